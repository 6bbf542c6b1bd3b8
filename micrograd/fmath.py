"""Float math with PyTorch's float64 semantics.

Python's ``math`` module and float operators raise where IEEE 754 floats (and
PyTorch) quietly give ``inf`` or ``nan``: ``math.exp(1000)`` raises
OverflowError, ``1.0 / 0.0`` raises ZeroDivisionError, ``math.log(-1)`` raises
ValueError and ``(-8.0) ** (1 / 3)`` returns a complex number.  Every op of the
engine computes its float results through these functions instead, so no such
exception (or complex number) ever escapes from an op.

>>> exp(1000.0), log(0.0), div(1.0, 0.0)
(inf, -inf, inf)
"""

from __future__ import annotations

import math

inf = math.inf
nan = math.nan


def div(a: float, b: float) -> float:
    """``a / b``, with ``x / 0`` giving a signed inf (or nan for ``0 / 0``)."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0.0:
            return nan
        # The sign of the zero counts: 1 / -0.0 is -inf, as in IEEE 754.
        return math.copysign(inf, a) * math.copysign(1.0, b)


def _is_odd_integer(y: float) -> bool:
    return y.is_integer() and y % 2.0 == 1.0


def pow(x: float, y: float) -> float:  # noqa: A001 - named for what it is, like math.pow
    """``x ** y`` with C's ``pow`` semantics: inf on overflow and on ``0 ** -y``,
    nan for a negative base with a non-integer exponent."""
    try:
        r: float | complex = x**y
    except ZeroDivisionError:  # 0.0 ** negative: a pole; -0.0 keeps its sign for odd y
        return -inf if (math.copysign(1.0, x) < 0 and _is_odd_integer(y)) else inf
    except OverflowError:
        if x < 0 and not y.is_integer():  # Python overflowed computing a complex result: C gives nan
            return nan
        return -inf if (x < 0 and _is_odd_integer(y)) else inf
    if isinstance(r, complex):  # negative base, non-integer exponent
        return nan
    return r


def exp(x: float) -> float:
    """e**x, inf on overflow."""
    try:
        return math.exp(x)
    except OverflowError:
        return inf


def expm1(x: float) -> float:
    """e**x - 1, accurate near 0, inf on overflow."""
    try:
        return math.expm1(x)
    except OverflowError:
        return inf


def log(x: float) -> float:
    """Natural log: -inf at 0, nan below 0."""
    if x > 0.0 or x != x:
        return math.log(x)  # x = inf gives inf, nan gives nan
    return -inf if x == 0.0 else nan


def log1p(x: float) -> float:
    """log(1 + x), accurate near 0; -inf at -1, nan below -1."""
    if x > -1.0 or x != x:
        return math.log1p(x)
    return -inf if x == -1.0 else nan


def sqrt(x: float) -> float:
    """Square root, nan below 0."""
    return math.sqrt(x) if x >= 0.0 or x != x else nan


def sin(x: float) -> float:
    """Sine; nan at +-inf (where math.sin raises)."""
    return math.sin(x) if x - x == 0.0 else nan


def cos(x: float) -> float:
    """Cosine; nan at +-inf (where math.cos raises)."""
    return math.cos(x) if x - x == 0.0 else nan


def tanh(x: float) -> float:
    """Hyperbolic tangent (math.tanh never raises: +-1 at +-inf)."""
    return math.tanh(x)


def sigmoid(x: float) -> float:
    """1 / (1 + e**-x), computed as PyTorch does; exp's overflow gives 0, not an error."""
    return 1.0 / (1.0 + exp(-x))


def sign(x: float) -> float:
    """-1.0, 0.0 or 1.0; 0.0 for nan, like ``torch.sign``."""
    return float((x > 0.0) - (x < 0.0))
