"""micrograd: a scalar-valued reverse-mode autodiff engine.

>>> from micrograd import Value
>>> x = Value(-4.0)
>>> y = (2 * x + 2 + x).relu() + x**3 / 2 - (x * x + 1).log()
>>> y.backward()
>>> round(y.data, 4), round(x.grad, 4)
(-34.8332, 24.4706)

The package, top down (each folder's ``__init__`` says what it holds and what it may import):

* ``engine.py``: ``Function``, the lecture's ops, ``Value`` and the chain-rule loop ``backward()`` runs;
* ``_core/``: the engine's machinery (ctx, nodes, hooks, grad modes, numbers in and out);
* ``ops/``: the op catalogue beyond the lecture's, each op beside its ``Value`` method;
* ``math/``: math on floats, Values and numpy arrays alike, for writing ops;
* ``func/``: ``grad``, ``gradcheck`` and the function transforms (``micrograd.func``);
* ``compiler/``: ``compile``, trace once and replay with numpy;
* ``scopes.py``: which part of a program made each node (the explorer's boxes);
* ``viz/``: the pictures: ``draw_dot``, ``render``, ``explain``, ``explore``;
* ``exercises/``: ``check``, exercises that check themselves;
* ``files.py``: writing files whole or not at all; ``nn.py``: micrograd 0.1.0's ``micrograd.nn``.

``import micrograd`` loads the engine, the basic ops and the math, nothing else: the rest loads the
first time one of its names is used (``micrograd.explore``, ``micrograd.compile``, ``x.gelu()``, ...).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import math as math  # micrograd.math: math on floats, Values and numpy arrays
from . import ops as ops  # attaches basic's methods to Value (-, /, exp, ...), the rest on first use
from ._core import name_clash_warning  # noqa: F401 - warns once if karpathy's micrograd shares this environment
from ._core.context import Context
from ._core.grad_mode import (
    AnomalyError,
    detect_anomaly,
    enable_grad,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ._core.hooks import RemovableHandle
from .engine import Function, Value
from .ops import dot as dot  # micrograd.dot: a neuron's w . x + b, kept out of __all__
from .ops import sum as sum  # noqa: A004 - micrograd.sum, kept out of __all__

if TYPE_CHECKING:  # what __getattr__ loads on first use, for the type checker
    from . import exercises as exercises
    from . import func as func
    from . import nn as nn
    from . import scopes as scopes
    from . import viz as viz
    from .compiler import BatchedStep, CompiledStep, CompileError, TracerWarning
    from .compiler import compile as compile  # noqa: A004
    from .func.gradcheck import GradcheckError, gradcheck, gradgradcheck
    from .func.reverse import backward, grad, topological_order
    from .viz.dot import GraphTooLargeError, GraphvizNotFoundError, draw_dot, explain, render
    from .viz.explorer import explore as explore

__version__ = "0.2.0"

# Loaded on first use: name -> (module, attribute of it, or None for the module itself).
LAZY: dict[str, tuple[str, str | None]] = {
    "backward": ("micrograd.func.reverse", "backward"),
    "grad": ("micrograd.func.reverse", "grad"),
    "topological_order": ("micrograd.func.reverse", "topological_order"),
    "GradcheckError": ("micrograd.func.gradcheck", "GradcheckError"),
    "gradcheck": ("micrograd.func.gradcheck", "gradcheck"),
    "gradgradcheck": ("micrograd.func.gradcheck", "gradgradcheck"),
    "compile": ("micrograd.compiler", "compile"),
    "BatchedStep": ("micrograd.compiler", "BatchedStep"),
    "CompiledStep": ("micrograd.compiler", "CompiledStep"),
    "CompileError": ("micrograd.compiler", "CompileError"),
    "TracerWarning": ("micrograd.compiler", "TracerWarning"),
    "draw_dot": ("micrograd.viz.dot", "draw_dot"),
    "render": ("micrograd.viz.dot", "render"),
    "explain": ("micrograd.viz.dot", "explain"),
    "GraphTooLargeError": ("micrograd.viz.dot", "GraphTooLargeError"),
    "GraphvizNotFoundError": ("micrograd.viz.dot", "GraphvizNotFoundError"),
    "explore": ("micrograd.viz.explorer", "explore"),
    "compiler": ("micrograd.compiler", None),
    "exercises": ("micrograd.exercises", None),
    "func": ("micrograd.func", None),
    "nn": ("micrograd.nn", None),
    "scopes": ("micrograd.scopes", None),
    "viz": ("micrograd.viz", None),
    "files": ("micrograd.files", None),
}


def __getattr__(name: str) -> Any:
    """``micrograd.<name>`` for what ``import micrograd`` does not load (PEP 562): imported now."""
    if name not in LAZY:
        raise AttributeError(f"module 'micrograd' has no attribute {name!r}")
    module_name, attribute = LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # (later uses find it at once)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(LAZY))


__all__ = [
    "AnomalyError",
    "BatchedStep",
    "CompileError",
    "CompiledStep",
    "Context",
    "Function",
    "GradcheckError",
    "GraphTooLargeError",
    "GraphvizNotFoundError",
    "RemovableHandle",
    "TracerWarning",
    "Value",
    "backward",
    "detect_anomaly",
    "draw_dot",
    "enable_grad",
    "explain",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "render",
    "set_grad_enabled",
    "topological_order",
]
