"""The op catalogue beyond the lecture's five (``engine.py`` has ``+``, ``*``, ``**``, ``tanh``, ``relu``).

Each op is a ``Function``, its ``forward`` beside its ``backward``, and the line that makes it a
method of ``Value`` follows it, as the lecture adds its ops: the one place where ``Value`` gets
its methods beyond the lecture's.  Importing this package runs ``basic``'s; each other module
runs its lines the first time one of its methods or names is used (``LazyMethod``).

* ``basic``: ``-``, ``/``, ``Value ** Value``, ``abs``, ``exp``, ``log``, ``sqrt``, ``sigmoid``,
  ``sin``, ``cos``, ``leaky_relu``, ``elu``, ``softplus``, comparisons, and the few ops of many
  operands a neuron and a loss use (``sum``, ``dot``, ``Pick``);
* ``scientific``: ``tan`` to ``erf``, the roundings, ``clamp``, ``atan2``, ``maximum``, ``%``, ``//``;
* ``activations``: ``gelu``, ``silu``, ``mish``, ``hardtanh``, ``relu6``, ``softsign``, ``selu``, ``celu``;
* ``reductions``: ``max``, ``min``, ``logsumexp``, ``softmax``, ``log_softmax`` of a list.

May import: ``engine``, ``_core`` and ``math``; never func, compile, viz, exercises or nn.

>>> from micrograd import Value
>>> x = Value(2.0)
>>> y = (x.exp() - x / 4).log()
>>> y.backward()
>>> round(x.grad, 6)
1.036289
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from ..engine import Value
from ..math import generic as mm
from . import basic as basic
from .basic import (
    ELU,
    Abs,
    Cos,
    DetachedMax,
    Div,
    Dot,
    Exp,
    Expm1,
    LeakyReLU,
    Log,
    Log1p,
    Neg,
    Pick,
    Pow,
    Sigmoid,
    Sin,
    Softplus,
    Sqrt,
    Sub,
    Sum,
    dot,
    sum,  # noqa: A004 - torch.sum's name
    weighted_sum,
)

if TYPE_CHECKING:  # what loads on first use (see LazyMethod), for the type checker
    from . import activations as activations
    from . import reductions as reductions
    from . import scientific as scientific
    from .activations import CELU, GELU, SELU, Hardtanh, LogSigmoid, Mish, ReLU6, SiLU, Softsign
    from .reductions import LogSumExp, Max, Min
    from .scientific import (
        Acos,
        Acosh,
        Asin,
        Asinh,
        Atan,
        Atan2,
        Atanh,
        Ceil,
        Clamp,
        Cosh,
        Erf,
        Erfc,
        Exp2,
        Floor,
        FloorDivide,
        Fmod,
        Frac,
        Hypot,
        Log2,
        Log10,
        LogAddExp,
        Maximum,
        Minimum,
        Reciprocal,
        Remainder,
        Round,
        Rsqrt,
        Sign,
        Sinh,
        Square,
        Tan,
        Trunc,
    )

#: The catalogue's modules beyond ``basic``: each loads the first time one of its methods or names is used.
LAZY_MODULES = ("activations", "reductions", "scientific")

# The methods each of them attaches to Value (its ``Value.name = ...`` lines), generated from their
# sources by ``python scripts/gen_value_methods.py`` (tests/test_engine_layout.py checks it is up to date).
# BEGIN GENERATED METHODS
METHODS: dict[str, tuple[str, ...]] = {
    "activations": (
        "gelu",
        "silu",
        "mish",
        "hardtanh",
        "relu6",
        "softsign",
        "logsigmoid",
        "selu",
        "celu",
    ),
    "scientific": (
        "tan",
        "asin",
        "acos",
        "atan",
        "sinh",
        "cosh",
        "asinh",
        "acosh",
        "atanh",
        "log2",
        "log10",
        "exp2",
        "erf",
        "erfc",
        "square",
        "rsqrt",
        "reciprocal",
        "sign",
        "floor",
        "__floor__",
        "ceil",
        "__ceil__",
        "trunc",
        "__trunc__",
        "round",
        "__round__",
        "frac",
        "clamp",
        "atan2",
        "maximum",
        "minimum",
        "hypot",
        "logaddexp",
        "fmod",
        "remainder",
        "__mod__",
        "__rmod__",
        "floor_divide",
        "__floordiv__",
        "__rfloordiv__",
        "__int__",
    ),
}
# END GENERATED METHODS


class LazyMethod:
    """A ``Value`` method whose module has not loaded yet: the first use loads it (which puts the
    real method in this one's place) and goes on with the real one.  ``import micrograd`` then costs
    the engine and ``basic``'s ops, not the whole catalogue."""

    __slots__ = ("module", "name")

    def __init__(self, name: str, module: str) -> None:
        self.name, self.module = name, module

    def __get__(self, obj: object, cls: type | None = None) -> Any:
        load(self.module)
        if Value.__dict__.get(self.name) is self:  # (the module attached no such method: a stale table)
            raise AttributeError(
                f"micrograd.ops.{self.module} attaches no Value.{self.name}: "
                "run python scripts/gen_value_methods.py"
            )
        return getattr(Value if obj is None else obj, self.name)


def load(module: str) -> Any:
    """``micrograd.ops.<module>``, imported now if not yet; a method a user attached to ``Value``
    under one of its names before it loaded (the lecture's way) is theirs and stays."""
    loaded = sys.modules.get(f"{__name__}.{module}")
    if loaded is not None:
        return loaded
    names = METHODS.get(module, ())
    attached = Value.__dict__
    own = {n: attached[n] for n in names if n in attached and not isinstance(attached[n], LazyMethod)}
    loaded = importlib.import_module(f"{__name__}.{module}")
    for name, method in own.items():
        setattr(Value, name, method)
    return loaded


def load_rest() -> None:
    """Every module of the catalogue that loads on first use, loaded now."""
    for module in LAZY_MODULES:
        load(module)


mm.GRAPH_OPS.load_rest = load_rest  # (micrograd.math's functions of a list and of a number and a Value)

for _module, _names in METHODS.items():
    for _name in _names:
        setattr(Value, _name, LazyMethod(_name, _module))


def __getattr__(name: str) -> Any:
    """``micrograd.ops.<name>`` for the modules that load on first use (PEP 562)."""
    for module in LAZY_MODULES:
        loaded = load(module)
        if name == module or hasattr(loaded, name):
            value = loaded if name == module else getattr(loaded, name)
            globals()[name] = value  # (later uses find it at once)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "SELU",
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atan2",
    "Atanh",
    "Ceil",
    "Clamp",
    "Cos",
    "Cosh",
    "DetachedMax",
    "Div",
    "Dot",
    "Erf",
    "Erfc",
    "Exp",
    "Exp2",
    "Expm1",
    "Floor",
    "FloorDivide",
    "Fmod",
    "Frac",
    "Hardtanh",
    "Hypot",
    "LeakyReLU",
    "Log",
    "Log1p",
    "Log2",
    "Log10",
    "LogAddExp",
    "LogSigmoid",
    "LogSumExp",
    "Max",
    "Maximum",
    "Min",
    "Minimum",
    "Mish",
    "Neg",
    "Pick",
    "Pow",
    "ReLU6",
    "Reciprocal",
    "Remainder",
    "Round",
    "Rsqrt",
    "SiLU",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Square",
    "Sub",
    "Sum",
    "Tan",
    "Trunc",
    "dot",
    "sum",
    "weighted_sum",
]
