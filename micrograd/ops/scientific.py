"""The op catalogue's mathematics: each op a ``Function``, its forward beside its backward.

Trigonometric and hyperbolic functions and their inverses, logarithms and powers of
two and ten, erf, the roundings, ``clamp``, and the functions of two Values
(``atan2``, ``maximum``, ``minimum``, ``hypot``, ``logaddexp``, ``fmod``, ``%`` and
``//``).  Each op is written as ``micrograd/ops/basic.py``'s are, with operators and
``micrograd.math``, so the one definition runs on floats (``backward()``), on Values
(``create_graph``), on numpy arrays (``compile``) and in forward mode; each backward is
PyTorch's derivative formula, term for term, so that the gradients are torch's in
float64, at the edges (0, +-inf, nan, the ends of a domain) too.  The methods of ``Value``
they make, named as ``torch.Tensor``'s, are rows of ``micrograd/ops/__init__.py``'s table.

>>> from micrograd import Value
>>> x = Value(0.5)
>>> y = x.asin() + x.atan2(2.0) + round(x * 3)
>>> y.backward()
>>> round(y.data, 6), round(x.grad, 6)
(2.768577, 1.625289)
"""

from __future__ import annotations

from typing import Any

from .._core.context import Context
from .._core.grad_mode import data_read, data_read_hooks
from ..engine import Function, Value
from ..math import generic as mm
from ..math.generic import (
    cosh,
    div,
    equal,
    exp,
    floor_divide,
    rsqrt,
    sinh,
    trunc,
    where,
)

LN2 = 0.6931471805599453  # log(2), as PyTorch writes it in log2's and exp2's derivatives
LN10 = 2.3025850929940456  # log(10)
TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi): erf'(x) = 2/sqrt(pi) e**(-x**2)


# ---- trigonometric and hyperbolic functions ---------------------------------------------------------


class Tan(Function):
    name = "tan"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.tan(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        t = ctx.output
        return (g * (1.0 + t * t),)  # tan' = 1 + tan**2


class Asin(Function):
    name = "asin"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.asin(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * rsqrt(1.0 - x * x),)  # 1/sqrt(1 - x**2): inf at +-1, nan beyond


class Acos(Function):
    name = "acos"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.acos(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * -rsqrt(1.0 - x * x),)  # -1/sqrt(1 - x**2)


class Atan(Function):
    name = "atan"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.atan(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (div(g, x * x + 1.0),)  # 1 / (1 + x**2)


class Sinh(Function):
    name = "sinh"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return sinh(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * cosh(x),)


class Cosh(Function):
    name = "cosh"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return cosh(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * sinh(x),)


class Asinh(Function):
    name = "asinh"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.asinh(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * rsqrt(x * x + 1.0),)  # 1/sqrt(x**2 + 1)


class Acosh(Function):
    name = "acosh"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.acosh(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * rsqrt(x * x - 1.0),)  # 1/sqrt(x**2 - 1): inf at 1, nan below


class Atanh(Function):
    name = "atanh"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.atanh(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        # 1 / (1 - x**2): inf at +-1; beyond, where atanh is nan, the formula's finite number (PyTorch's)
        return (div(g, 1.0 - x * x),)


# ---- logarithms and powers ----------------------------------------------------------------------


class Log2(Function):
    name = "log2"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.log2(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (div(g, x * LN2),)  # 1 / (x log 2)


class Log10(Function):
    name = "log10"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.log10(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (div(g, x * LN10),)  # 1 / (x log 10)


class Exp2(Function):
    name = "exp2"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.exp2(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g * ctx.output * LN2,)  # (2**x)' = 2**x log 2


class Erf(Function):
    name = "erf"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.erf(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (TWO_OVER_SQRT_PI * exp(-(x * x)) * g,)  # 2/sqrt(pi) e**(-x**2)


class Erfc(Function):
    name = "erfc"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.erfc(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (-TWO_OVER_SQRT_PI * exp(-(x * x)) * g,)


class Square(Function):
    name = "square"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return x * x

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        (x,) = ctx.inputs
        return (g * (2.0 * x),)


class Rsqrt(Function):
    name = "rsqrt"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return rsqrt(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        r = ctx.output
        return (-0.5 * g * (r * r * r),)  # (x**-1/2)' = -1/2 x**-3/2 = -1/2 rsqrt(x)**3


class Reciprocal(Function):
    name = "reciprocal"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return div(1.0, x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        r = ctx.output
        return (-g * (r * r),)  # (1/x)' = -1/x**2


# ---- steps: the roundings and sign (gradient 0, as PyTorch's) ----------------------------------------
# Flat wherever they have a derivative; PyTorch gives 0 everywhere (at the jumps too), and so do these.


class Sign(Function):
    name = "sign"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.sign(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (0.0,)


class Floor(Function):
    name = "floor"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.floor(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (0.0,)


class Ceil(Function):
    name = "ceil"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return mm.ceil(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (0.0,)


class Trunc(Function):
    name = "trunc"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return trunc(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (0.0,)


class Round(Function):
    name = "round"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, decimals: int) -> Any:
        return mm.round(x, decimals)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return 0.0, None


def round_(self: Value, decimals: int = 0) -> Value:
    """x rounded to ``decimals`` places, halves to even, as ``torch.round``; gradient 0.

    >>> Value(2.5).round(), Value(0.125).round(decimals=2)
    (Value(data=2.0, grad=0.0), Value(data=0.12, grad=0.0))
    """
    return Round.apply(self, mm.decimals_of(decimals))


def python_round(self: Value, ndigits: int | None = None) -> Value:
    """``round(v)`` and ``round(v, n)``: a Value, rounded as ``torch.round`` (halves to even).

    >>> from micrograd import Value
    >>> round(Value(2.5)), round(Value(0.125), 2)
    (Value(data=2.0, grad=0.0), Value(data=0.12, grad=0.0))
    """
    return round_(self, 0 if ndigits is None else mm.decimals_of(ndigits, "round"))


class Frac(Function):
    name = "frac"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any) -> Any:
        return x - trunc(x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return (g,)  # x - trunc(x): the trunc is flat


class Clamp(Function):
    name = "clamp"
    builtin = True

    @staticmethod
    def forward(ctx: Context, x: Any, low: float, high: float) -> Any:
        return mm.clamp(x, low, high)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        x, low, high = ctx.inputs
        # PyTorch's rule: the gradient passes where low <= x <= high, the bounds included (nan: 0)
        return where((x >= low) & (x <= high), g, 0.0), None, None


def clamp(self: Value, min: float | None = None, max: float | None = None) -> Value:  # noqa: A002
    """x limited to [min, max] (None: no limit); the gradient passes where min <= x <= max.

    >>> Value(-2.0).clamp(min=0.0), Value(0.5).clamp(0.0, 1.0)
    (Value(data=0.0, grad=0.0), Value(data=0.5, grad=0.0))
    """
    low, high = mm.bounds(min, max)
    return Clamp.apply(self, low, high)


# ---- functions of two Values ---------------------------------------------------------------------------


class Atan2(Function):
    name = "atan2"
    builtin = True

    @staticmethod
    def forward(ctx: Context, y: Any, x: Any) -> Any:
        return mm.atan2(y, x)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        y, x = ctx.inputs
        squared = y * y + x * x
        # 1 / (x**2 + y**2), taken as 0 where that is 0 (PyTorch's rule: gradient 0 at the origin)
        recip = where(equal(squared, 0.0), 0.0, div(1.0, squared))
        return g * x * recip, g * -y * recip  # d/dy = x / r**2, d/dx = -y / r**2


class Maximum(Function):
    name = "maximum"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return mm.larger(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        tie = equal(a, b)
        half = g * 0.5  # a tie: half to each, as PyTorch
        return where(a < b, 0.0, where(tie, half, g)), where(a > b, 0.0, where(tie, half, g))


class Minimum(Function):
    name = "minimum"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return mm.smaller(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        tie = equal(a, b)
        half = g * 0.5
        return where(a > b, 0.0, where(tie, half, g)), where(a < b, 0.0, where(tie, half, g))


class Hypot(Function):
    name = "hypot"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return mm.hypot(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        r = ctx.output
        return div(g * a, r), div(g * b, r)  # a / r, b / r: nan at the origin


class LogAddExp(Function):
    name = "logaddexp"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return mm.logaddexp(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        return div(g, 1.0 + exp(b - a)), div(g, 1.0 + exp(a - b))  # the softmax of (a, b)


class Fmod(Function):
    name = "fmod"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return mm.fmod(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        return g, -g * trunc(div(a, b))  # a - trunc(a/b) b, the quotient held fixed


class Remainder(Function):
    name = "%"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return mm.remainder(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        a, b = ctx.inputs
        return g, -g * floor_divide(a, b)  # a - floor(a/b) b, the quotient held fixed


class FloorDivide(Function):
    name = "//"
    builtin = True

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> Any:
        return floor_divide(a, b)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return 0.0, 0.0  # a step function: 0, as torch.div(a, b, rounding_mode="floor")


def as_int(self: Value) -> int:
    """``int(v)``: the data truncated to an int, as ``int(torch.tensor(x))`` (a number, not a node).

    >>> from micrograd import Value
    >>> int(Value(-2.7))
    -2
    """
    if data_read_hooks:
        data_read("int() of a Value", "convert")
    return int(self.data)
