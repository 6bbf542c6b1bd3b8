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


# ---- the op catalogue's float functions (micrograd/ops/scientific.py, activations.py) ----------------


def _finite(x: float) -> bool:
    return x - x == 0.0  # False for inf and nan


def tan(x: float) -> float:
    """Tangent; nan at +-inf (where math.tan raises).

    >>> tan(inf)
    nan
    """
    return math.tan(x) if _finite(x) else nan


def asin(x: float) -> float:
    """Arc sine; nan outside [-1, 1].

    >>> asin(2.0)
    nan
    """
    return math.asin(x) if -1.0 <= x <= 1.0 or x != x else nan


def acos(x: float) -> float:
    """Arc cosine; nan outside [-1, 1].

    >>> acos(1.0)
    0.0
    """
    return math.acos(x) if -1.0 <= x <= 1.0 or x != x else nan


def atan(x: float) -> float:
    """Arc tangent (math.atan never raises: +-pi/2 at +-inf).

    >>> atan(-inf)
    -1.5707963267948966
    """
    return math.atan(x)


def sinh(x: float) -> float:
    """Hyperbolic sine; +-inf on overflow.

    >>> sinh(-1000.0)
    -inf
    """
    try:
        return math.sinh(x)
    except OverflowError:
        return math.copysign(inf, x)


def cosh(x: float) -> float:
    """Hyperbolic cosine; inf on overflow.

    >>> cosh(-1000.0)
    inf
    """
    try:
        return math.cosh(x)
    except OverflowError:
        return inf


def asinh(x: float) -> float:
    """Inverse hyperbolic sine (never raises).

    >>> asinh(inf)
    inf
    """
    return math.asinh(x)


def acosh(x: float) -> float:
    """Inverse hyperbolic cosine; nan below 1.

    >>> acosh(0.5)
    nan
    """
    return math.acosh(x) if x >= 1.0 or x != x else nan


def atanh(x: float) -> float:
    """Inverse hyperbolic tangent; +-inf at +-1, nan beyond.

    >>> atanh(1.0), atanh(2.0)
    (inf, nan)
    """
    if -1.0 < x < 1.0 or x != x:
        return math.atanh(x)
    return math.copysign(inf, x) if x in (-1.0, 1.0) else nan


def log2(x: float) -> float:
    """Base-2 logarithm: -inf at 0, nan below 0.

    >>> log2(0.0), log2(-1.0)
    (-inf, nan)
    """
    if x > 0.0 or x != x:
        return math.log2(x)
    return -inf if x == 0.0 else nan


def log10(x: float) -> float:
    """Base-10 logarithm: -inf at 0, nan below 0.

    >>> log10(100.0)
    2.0
    """
    if x > 0.0 or x != x:
        return math.log10(x)
    return -inf if x == 0.0 else nan


def exp2(x: float) -> float:
    """2**x; inf on overflow.

    >>> exp2(2000.0)
    inf
    """
    return pow(2.0, x)


def erf(x: float) -> float:
    """The error function (math.erf never raises).

    >>> erf(-inf)
    -1.0
    """
    return math.erf(x)


def erfc(x: float) -> float:
    """1 - erf(x), accurate where erf(x) is near 1 (math.erfc never raises).

    >>> erfc(-inf)
    2.0
    """
    return math.erfc(x)


def rsqrt(x: float) -> float:
    """1 / sqrt(x), as PyTorch computes it: inf at 0, -inf at -0.0, nan below 0.

    >>> rsqrt(0.0), rsqrt(-0.0)
    (inf, -inf)
    """
    return div(1.0, sqrt(x))


def _integral(x: float, rounded: int) -> float:
    """``rounded`` (math.floor's, ceil's, trunc's or round's int of x) as a float; a zero result
    takes x's sign, as C's floor, ceil, trunc and nearbyint give (ceil(-0.5) is -0.0)."""
    out = float(rounded)
    return math.copysign(0.0, x) if out == 0.0 else out


def floor(x: float) -> float:
    """The largest integer <= x, as a float; inf and nan as they are.

    >>> floor(-0.0), floor(inf)
    (-0.0, inf)
    """
    return _integral(x, math.floor(x)) if _finite(x) else x


def ceil(x: float) -> float:
    """The smallest integer >= x, as a float; inf and nan as they are.

    >>> ceil(-0.5)
    -0.0
    """
    return _integral(x, math.ceil(x)) if _finite(x) else x


def trunc(x: float) -> float:
    """x rounded toward zero, as a float; inf and nan as they are.

    >>> trunc(-0.5)
    -0.0
    """
    return _integral(x, math.trunc(x)) if _finite(x) else x


def round_half_even(x: float) -> float:
    """x rounded to the nearest integer, halves to even (C's nearbyint, torch.round).

    >>> round_half_even(2.5), round_half_even(-0.5)
    (2.0, -0.0)
    """
    return _integral(x, round(x)) if _finite(x) else x


def fmod(a: float, b: float) -> float:
    """C's fmod: a - trunc(a / b) * b, computed exactly, with the sign of a; nan for b == 0 or
    a = +-inf, where math.fmod raises.

    >>> fmod(-7.0, 2.0), fmod(inf, 1.0)
    (-1.0, nan)
    """
    if b == 0.0 or not _finite(a):
        return nan
    return math.fmod(a, b)  # (a nan b gives nan)


def remainder(a: float, b: float) -> float:
    """torch.remainder: fmod moved into the sign of b; a zero keeps fmod's sign.

    >>> remainder(-7.0, 2.0), remainder(-4.0, 2.0)
    (1.0, -0.0)
    """
    mod = fmod(a, b)
    if mod != 0.0 and (b < 0.0) != (mod < 0.0):
        mod += b
    return mod


def floor_divide(a: float, b: float) -> float:
    """torch.floor_divide (and Python's ``//``): the floor of a / b, from fmod, so that
    a == b * (a // b) + remainder(a, b) holds; a / b (a signed inf, or nan) for b == 0.

    >>> floor_divide(-7.0, 2.0), floor_divide(-1.0, 0.0)
    (-4.0, -inf)
    """
    if b == 0.0:
        return div(a, b)
    mod = fmod(a, b)
    quotient = (a - mod) / b
    if mod != 0.0 and (b < 0.0) != (mod < 0.0):
        quotient -= 1.0
    if quotient == 0.0:
        return math.copysign(0.0, a / b)
    result = floor(quotient)
    if quotient - result > 0.5:
        result += 1.0
    return result


def atan2(y: float, x: float) -> float:
    """The angle of the point (x, y), in (-pi, pi] (math.atan2 never raises).

    >>> atan2(-0.0, -1.0)
    -3.141592653589793
    """
    return math.atan2(y, x)


def hypot(a: float, b: float) -> float:
    """sqrt(a**2 + b**2) without intermediate overflow; inf if the result overflows, and
    inf if either is +-inf (even with a nan), as C's hypot.

    >>> hypot(inf, nan)
    inf
    """
    try:
        return math.hypot(a, b)
    except OverflowError:
        return inf


def logaddexp(a: float, b: float) -> float:
    """log(e**a + e**b), as PyTorch computes it: the larger plus log1p(e**-|a - b|).

    >>> logaddexp(inf, inf), logaddexp(1.0, nan)
    (inf, nan)
    """
    if a == b and not _finite(a):
        return a  # inf and inf, or -inf and -inf: a - b would be nan
    top = b if a < b else a  # (C++'s std::max: a nan b gives a)
    return top + log1p(exp(-abs(a - b)))
