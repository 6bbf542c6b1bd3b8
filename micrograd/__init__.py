"""micrograd: a scalar-valued reverse-mode autodiff engine.

>>> from micrograd import Value
>>> x = Value(-4.0)
>>> y = (2 * x + 2 + x).relu() + x**3 / 2 - (x * x + 1).log()
>>> y.backward()
>>> round(y.data, 4), round(x.grad, 4)
(-34.8332, 24.4706)

Modules, each one thing: ``engine`` (Value, ``Function``, the lecture's ops, ``backward``),
``ops`` (the rest of the op catalogue: ``ops_math``, ``activations`` and ``reductions`` too),
``math`` (math on floats, Values and numpy arrays, for writing ops), ``autograd``
(``grad``), ``grad_mode`` (``no_grad``, ``detect_anomaly``), ``check``
(``gradcheck``), ``fmath`` (float math with PyTorch's inf/nan semantics),
``viz`` (``draw_dot``, ``render``, ``explain``), ``explore`` (the step-through
page; ``scopes`` records the boxes it can draw, ``boxes`` and ``box_views`` make them),
``compile`` (trace once, replay with numpy: a package, one module per phase), ``func``
(function transforms, forward mode), ``exercises`` (checks for ops you write), ``files``
(atomic writes).
"""

from . import activations as activations  # gelu, silu, mish, hardtanh, relu6, softsign, ..., selu, celu
from . import clash  # noqa: F401 - warns once if karpathy's micrograd shares this environment
from . import exercises as exercises  # micrograd.exercises.check: exercises that check themselves
from . import func as func  # micrograd.func: grad(f), jvp, jacobian, hessian (function transforms)
from . import math as math  # micrograd.math: math on floats, Values and numpy arrays
from . import ops as ops  # the op catalogue beyond the lecture's: attaches -, /, exp, log, ... to Value
from . import ops_math as ops_math  # tan, asin, ..., erf, the roundings, clamp, atan2, maximum, %, //, ...
from . import reductions as reductions  # micrograd.math's max, min, logsumexp, softmax, log_softmax
from .autograd import backward, grad, topological_order
from .check import GradcheckError, gradcheck, gradgradcheck
from .compile import BatchedStep, CompiledStep, CompileError, TracerWarning
from .compile import compile as compile  # noqa: A004 - micrograd.compile (numpy loads lazily), kept out of __all__
from .context import Context
from .engine import Function, Value
from .explore import explore as explore  # the interactive page (Graphviz lays it out)
from .grad_mode import (
    AnomalyError,
    detect_anomaly,
    enable_grad,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .hooks import RemovableHandle
from .ops import dot as dot  # micrograd.dot: a neuron's w . x + b, kept out of __all__
from .ops import sum as sum  # noqa: A004 - micrograd.sum, kept out of __all__
from .viz import GraphTooLargeError, GraphvizNotFoundError, draw_dot, explain, render  # graphviz loads lazily

__version__ = "0.2.0"

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
