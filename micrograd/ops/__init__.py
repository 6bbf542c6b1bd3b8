"""The op catalogue beyond the lecture's five (``engine.py`` has ``+``, ``*``, ``**``, ``tanh``, ``relu``).

Each op is a ``Function``, its ``forward`` beside its ``backward``, in one of four modules.  Which
methods of ``Value`` they make is written in one place, the table ``CATALOGUE`` below: a row per
method (its name, the module and op it is made from, how, and its docstring).  From the table,
``import micrograd`` puts ``basic``'s methods on ``Value`` and, for the other modules' methods,
placeholders (``OnFirstUse``) that load their module the first time one of its methods is used;
``micrograd.math``'s functions of Values load the same way (its ``GRAPH_OPS``).  The type
checker's view of the methods, ``_core/value_methods.py``, is generated from the same table
(``scripts/gen_value_methods.py``).  A method you attach the lecture's way (``Value.gelu =
my_gelu``, before its module loads or after) is yours and stays.  docs/pages/layout.md gives
what the import and a first use cost.

* ``basic``: ``-``, ``/``, ``Value ** Value``, ``abs``, ``exp``, ``log``, ``sqrt``, ``sigmoid``,
  ``sin``, ``cos``, ``leaky_relu``, ``elu``, ``softplus``, comparisons, and the few ops of many
  operands a neuron and a loss use (``sum``, ``dot``, ``Pick``): loaded at import;
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
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..engine import Value, binary_method, unary_method
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

if (
    TYPE_CHECKING
):  # what loads on first use (micrograd.ops.Tan, micrograd.ops.scientific), for the type checker
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


class Method(NamedTuple):
    """One row of the catalogue: what ``name`` is made of (``op``, in ``micrograd.ops.<module>``)
    and how (``kind``); ``doc`` is the docstring of a method made from a ``Function``.

    >>> CATALOGUE[0]
    Method(name='__sub__', module='basic', op='Sub', kind='binary', doc='self - other.')
    """

    name: str
    module: str
    op: str
    kind: str
    doc: str = ""


# How a row's method is made from its op.  The first five are methods of Value; the last two are
# micrograd.math's functions where Values take part and no method of Value serves (math.GRAPH_OPS).
UNARY = "unary"  # x.exp(): unary_method(op, doc)
BINARY = "binary"  # x.atan2(y), x - y: binary_method(op)
REFLECTED = "reflected"  # 2 - x: binary_method(op, reflected=True)
FUNCTION = "function"  # x.gelu(approximate="tanh"): op is the module's function, with its own docstring
SAME_AS = "same as"  # math.floor(x): the method of the row named op, the same object
OF_A_LIST = "of a list"  # micrograd.math.max([a, b]): op is the module's function of a list
NUMBER_FIRST = "number first"  # micrograd.math.atan2(2.0, x): the op, the number a constant of the graph
ON_MATH = (OF_A_LIST, NUMBER_FIRST)

# Value's methods beyond the lecture's, and micrograd.math's functions of Values, in one place: the
# methods are attached from this table (below), and the type checker's view of them,
# _core/value_methods.py, is generated from it (scripts/gen_value_methods.py).
CATALOGUE: tuple[Method, ...] = (
    # basic: loaded at import; the ops micrograd 0.1.0's code uses (-, /, comparisons) are here
    Method("__sub__", "basic", "Sub", BINARY, "self - other."),
    Method("__rsub__", "basic", "Sub", REFLECTED, "other - self."),
    Method("__neg__", "basic", "Neg", UNARY, "-x."),
    Method("__truediv__", "basic", "Div", BINARY, "self / other."),
    Method("__rtruediv__", "basic", "Div", REFLECTED, "other / self."),
    Method("pow", "basic", "Pow", BINARY, "self ** other, the exponent a Value or a number."),
    Method("__rpow__", "basic", "Pow", REFLECTED, "other ** self."),
    Method("abs", "basic", "Abs", UNARY, "|x|; its derivative at 0 is 0, as in PyTorch."),
    Method("__abs__", "basic", "abs", SAME_AS),
    Method("__pos__", "basic", "positive", FUNCTION),
    Method("exp", "basic", "Exp", UNARY, "e**x; inf on overflow."),
    Method("expm1", "basic", "Expm1", UNARY, "e**x - 1, accurate near 0."),
    Method("log", "basic", "Log", UNARY, "Natural logarithm; -inf at 0 and nan below 0."),
    Method("log1p", "basic", "Log1p", UNARY, "log(1 + x), accurate near 0."),
    Method("sqrt", "basic", "Sqrt", UNARY, "Square root; nan below 0."),
    Method("sigmoid", "basic", "Sigmoid", UNARY, "1 / (1 + e**-x)."),
    Method("sin", "basic", "Sin", UNARY, "Sine (radians)."),
    Method("cos", "basic", "Cos", UNARY, "Cosine (radians)."),
    Method("leaky_relu", "basic", "leaky_relu", FUNCTION),
    Method("elu", "basic", "elu", FUNCTION),
    Method("softplus", "basic", "softplus", FUNCTION),
    Method("__lt__", "basic", "less", FUNCTION),
    Method("__le__", "basic", "less_or_equal", FUNCTION),
    Method("__gt__", "basic", "greater", FUNCTION),
    Method("__ge__", "basic", "greater_or_equal", FUNCTION),
    Method("__bool__", "basic", "truth", FUNCTION),
    Method("item", "basic", "item", FUNCTION),
    Method("__float__", "basic", "as_float", FUNCTION),
    # activations: torch.nn.functional's
    Method("gelu", "activations", "gelu", FUNCTION),
    Method("silu", "activations", "SiLU", UNARY, "x * sigmoid(x) (swish); nan at -inf, as PyTorch."),
    Method("mish", "activations", "Mish", UNARY, "x * tanh(softplus(x)); nan at -inf, as PyTorch."),
    Method("hardtanh", "activations", "hardtanh", FUNCTION),
    Method("relu6", "activations", "ReLU6", UNARY, "min(max(x, 0), 6); gradient 0 at 0 and 6, as PyTorch."),
    Method("softsign", "activations", "Softsign", UNARY, "x / (1 + |x|); nan at +-inf, as PyTorch."),
    Method("logsigmoid", "activations", "LogSigmoid", UNARY, "log(sigmoid(x)), stable for every x."),
    Method("selu", "activations", "SELU", UNARY, "scale * (x if x > 0 else alpha (e**x - 1)), PyTorch's."),
    Method("celu", "activations", "celu", FUNCTION),
    # scientific: trigonometry, logarithms, erf, the roundings, the functions of two Values
    Method("tan", "scientific", "Tan", UNARY, "Tangent (radians); nan at +-inf."),
    Method("asin", "scientific", "Asin", UNARY, "Arc sine; nan outside [-1, 1], gradient inf at +-1."),
    Method("acos", "scientific", "Acos", UNARY, "Arc cosine; nan outside [-1, 1], gradient -inf at +-1."),
    Method("atan", "scientific", "Atan", UNARY, "Arc tangent, in [-pi/2, pi/2]."),
    Method("sinh", "scientific", "Sinh", UNARY, "Hyperbolic sine; +-inf on overflow."),
    Method("cosh", "scientific", "Cosh", UNARY, "Hyperbolic cosine; inf on overflow."),
    Method("asinh", "scientific", "Asinh", UNARY, "Inverse hyperbolic sine."),
    Method("acosh", "scientific", "Acosh", UNARY, "The inverse of cosh; nan below 1, gradient inf at 1."),
    Method("atanh", "scientific", "Atanh", UNARY, "Inverse hyperbolic tangent; +-inf at +-1, nan beyond."),
    Method("log2", "scientific", "Log2", UNARY, "Base-2 logarithm; -inf at 0, nan below 0."),
    Method("log10", "scientific", "Log10", UNARY, "Base-10 logarithm; -inf at 0, nan below 0."),
    Method("exp2", "scientific", "Exp2", UNARY, "2**x; inf on overflow."),
    Method("erf", "scientific", "Erf", UNARY, "The error function."),
    Method("erfc", "scientific", "Erfc", UNARY, "1 - erf(x), accurate where erf(x) is near 1."),
    Method("square", "scientific", "Square", UNARY, "x * x."),
    Method("rsqrt", "scientific", "Rsqrt", UNARY, "1 / sqrt(x); inf at 0 (-inf at -0.0), nan below 0."),
    Method("reciprocal", "scientific", "Reciprocal", UNARY, "1 / x; a signed inf at a signed zero."),
    Method("sign", "scientific", "Sign", UNARY, "-1.0, 0.0 or 1.0 (0.0 for nan and both zeros); gradient 0."),
    Method("floor", "scientific", "Floor", UNARY, "The largest integer <= x (a Value); gradient 0."),
    Method("__floor__", "scientific", "floor", SAME_AS),
    Method("ceil", "scientific", "Ceil", UNARY, "The smallest integer >= x (a Value); gradient 0."),
    Method("__ceil__", "scientific", "ceil", SAME_AS),
    Method("trunc", "scientific", "Trunc", UNARY, "x rounded toward zero (a Value); gradient 0."),
    Method("__trunc__", "scientific", "trunc", SAME_AS),
    Method("round", "scientific", "round_", FUNCTION),
    Method("__round__", "scientific", "python_round", FUNCTION),
    Method("frac", "scientific", "Frac", UNARY, "x - trunc(x), the sign of x's; nan at +-inf; gradient 1."),
    Method("clamp", "scientific", "clamp", FUNCTION),
    Method("atan2", "scientific", "Atan2", BINARY, "The angle of the point (other, self), in [-pi, pi]."),
    Method("maximum", "scientific", "Maximum", BINARY, "The larger; nan if either is; a tie halves it."),
    Method("minimum", "scientific", "Minimum", BINARY, "The smaller; nan if either is; a tie halves it."),
    Method("hypot", "scientific", "Hypot", BINARY, "sqrt(self**2 + other**2), without overflow."),
    Method("logaddexp", "scientific", "LogAddExp", BINARY, "log(e**self + e**other), stable."),
    Method("fmod", "scientific", "Fmod", BINARY, "C's fmod: self - trunc(self/other) other."),
    Method("remainder", "scientific", "Remainder", BINARY, "self % other, the sign of other's (Python's)."),
    Method("__mod__", "scientific", "remainder", SAME_AS),
    Method("__rmod__", "scientific", "Remainder", REFLECTED, "other % self."),
    Method("floor_divide", "scientific", "FloorDivide", BINARY, "self // other, the floor of self / other."),
    Method("__floordiv__", "scientific", "floor_divide", SAME_AS),
    Method("__rfloordiv__", "scientific", "FloorDivide", REFLECTED, "other // self."),
    Method("__int__", "scientific", "as_int", FUNCTION),
    Method("atan2", "scientific", "Atan2", NUMBER_FIRST),
    Method("maximum", "scientific", "Maximum", NUMBER_FIRST),
    Method("minimum", "scientific", "Minimum", NUMBER_FIRST),
    Method("hypot", "scientific", "Hypot", NUMBER_FIRST),
    Method("logaddexp", "scientific", "LogAddExp", NUMBER_FIRST),
    Method("fmod", "scientific", "Fmod", NUMBER_FIRST),
    Method("remainder", "scientific", "Remainder", NUMBER_FIRST),
    Method("floor_divide", "scientific", "FloorDivide", NUMBER_FIRST),
    # reductions: functions of a list, for micrograd.math
    Method("max", "reductions", "max", OF_A_LIST),
    Method("min", "reductions", "min", OF_A_LIST),
    Method("logsumexp", "reductions", "logsumexp", OF_A_LIST),
    Method("softmax", "reductions", "softmax", OF_A_LIST),
    Method("log_softmax", "reductions", "log_softmax", OF_A_LIST),
)

#: The catalogue's modules that load on first use: every one but ``basic``.
LAZY_MODULES = tuple(dict.fromkeys(row.module for row in CATALOGUE if row.module != "basic"))


def made(row: Method, module: ModuleType, methods: dict[str, Any]) -> Any:
    """The method (or micrograd.math's function) ``row`` describes, from its op in ``module``;
    ``methods``: the module's methods made so far, by name (what a ``SAME_AS`` row names)."""
    if row.kind == SAME_AS:
        return methods[row.op]
    op = getattr(module, row.op)
    if row.kind == UNARY:
        return unary_method(op, row.doc)
    if row.kind in (BINARY, REFLECTED, NUMBER_FIRST):
        method = binary_method(op, reflected=row.kind != BINARY)
        if row.kind == NUMBER_FIRST:
            return lambda a, b: method(b, a)  # (reflected: a, the number, becomes the first operand)
        method.__doc__ = row.doc
        return method
    if row.kind in (FUNCTION, OF_A_LIST):
        return op
    raise ValueError(
        f"micrograd.ops.CATALOGUE: {row.name!r} has kind {row.kind!r}, which is none of the kinds"
    )


class OnFirstUse:
    """``Value.<name>`` until its module loads: the first use loads it (``attach``), which puts
    the real method in this one's place, and goes on with the real one.  So ``import micrograd``
    costs the engine and ``basic``'s ops, not the whole catalogue."""

    __slots__ = ("module", "name")

    def __init__(self, name: str, module: str) -> None:
        self.name, self.module = name, module

    def __get__(self, obj: object, cls: type | None = None) -> Any:
        attach(self.module)
        return getattr(obj if obj is not None else cls or Value, self.name)


def attach(module: str) -> ModuleType:
    """``micrograd.ops.<module>``, imported, its rows' methods put on ``Value`` and its functions
    in ``micrograd.math``'s.  A method a user attached under one of its names the lecture's way
    (``Value.gelu = my_gelu``), before or after, is theirs and stays: only a placeholder is replaced.

    >>> attach("scientific").__name__, Value.tan.__doc__
    ('micrograd.ops.scientific', 'Tangent (radians); nan at +-inf.')
    """
    loaded = importlib.import_module(f"{__name__}.{module}")
    methods: dict[str, Any] = {}
    for row in CATALOGUE:
        if row.module != module:
            continue
        thing = made(row, loaded, methods)
        if row.kind in ON_MATH:
            mm.GRAPH_OPS[row.name] = thing
            continue
        methods[row.name] = thing
        if isinstance(Value.__dict__.get(row.name), OnFirstUse):
            setattr(Value, row.name, thing)
    return loaded


def attach_math_function(name: str) -> None:
    """Load the module whose row puts micrograd.math's function ``name`` (``math.GRAPH_OPS``'s hook)."""
    for row in CATALOGUE:
        if row.name == name and row.kind in ON_MATH:
            attach(row.module)
            return


for _row in CATALOGUE:
    if _row.kind not in ON_MATH:
        setattr(Value, _row.name, OnFirstUse(_row.name, _row.module))
attach("basic")  # (loaded above: its methods now, for micrograd 0.1.0's code and micrograd.sum)
mm.GRAPH_OPS.attach = attach_math_function


def __getattr__(name: str) -> Any:
    """``micrograd.ops.<name>`` for the modules that load on first use and what they hold (PEP 562)."""
    if not name.startswith("__"):  # (tools probe for __wrapped__, __path__, ...: no reason to load)
        for module in LAZY_MODULES:
            loaded = importlib.import_module(f"{__name__}.{module}")
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
