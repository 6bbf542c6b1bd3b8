"""Math that works on floats, Values and numpy arrays alike.

Write an op's ``forward`` and ``backward`` with these functions (and the
operators ``+ - * /``) and the one definition runs in every mode of the
engine: on floats in ``backward()``, on Values in ``grad(...,
create_graph=True)`` (so the backward pass is itself differentiable), and on
numpy arrays in ``micrograd.compile``.

* floats follow PyTorch's float64 semantics: ``exp(1000.0)`` is inf,
  ``log(0.0)`` is -inf, ``div(1.0, 0.0)`` is inf, never a Python exception;
* a Value gets the engine's op (``exp(v)`` is ``v.exp()``), recorded in the graph;
* on an array, the transcendental functions (exp, log, tanh, pow, ...) apply
  the float function above to each element, so compiled replay gives the very
  numbers of the eager engine, bit for bit (``exp``, ``log`` and ``pow`` run
  numpy's own loop instead where ``exact_ufuncs`` finds it calls the same C
  function); the arithmetic (``abs``, ``sqrt``, ``div``, ``where``, ...) is
  numpy's, which IEEE 754 makes exact as well.

Branch on data with ``where(cond, a, b)``, never with a Python ``if``: on
floats and Values ``cond`` is a bool and ``where`` picks a branch; on arrays it
picks element by element.  Compare with ``<``, ``<=``, ``>``, ``>=`` or
``equal`` (``==`` on Values compares identity, so that Values can be dict keys).

>>> from micrograd import Value
>>> from micrograd import math as mm
>>> mm.exp(0.0), mm.exp(Value(0.0)), mm.where(2.0 > 0, "yes", "no")
(1.0, Value(data=1.0, grad=0.0), 'yes')
"""

from __future__ import annotations

import builtins
import math as _pymath
import numbers
from collections.abc import Callable
from itertools import repeat
from typing import Any

from .._core.coerce import is_value, to_float
from . import floats as fmath

__all__ = [
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "celu",
    "clamp",
    "cos",
    "cosh",
    "div",
    "equal",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "floor_divide",
    "fmod",
    "frac",
    "gelu",
    "hardtanh",
    "hypot",
    "isfinite",
    "isnan",
    "log",
    "log1p",
    "log2",
    "log10",
    "log_softmax",
    "logaddexp",
    "logsigmoid",
    "logsumexp",
    "max",
    "maximum",
    "min",
    "minimum",
    "mish",
    "pow",
    "reciprocal",
    "relu6",
    "remainder",
    "round",
    "rsqrt",
    "selu",
    "sigmoid",
    "sign",
    "silu",
    "sin",
    "sinh",
    "softmax",
    "softsign",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
    "where",
]


_np: Any = None  # numpy, once an array needs it (importing micrograd does not import it)
_ndarray: Any = None  # then also: numpy's array type and its float64 (what the compiled replay
_float64: Any = None  # passes), and numpy_errors.quiet, what an array function enters
_quiet: Any = None


def _numpy() -> Any:
    global _np, _ndarray, _float64, _quiet
    if _np is None:
        import numpy

        from .numpy_errors import quiet

        _np, _ndarray, _float64, _quiet = numpy, numpy.ndarray, numpy.dtype(numpy.float64), quiet
    return _np


def _is_float64_array(x: Any) -> bool:
    """Whether ``x`` is a float64 numpy array, to be used as it is: the compiled replay's operands,
    which skip the checks and conversions a number or another array needs (``_array``)."""
    return type(x) is _ndarray and x.dtype is _float64


def _array(x: Any, name: str) -> Any:
    """``x`` as a float64 array, or a clear TypeError: these functions take floats, Values and arrays."""
    np = _numpy()
    if isinstance(x, (np.ndarray, numbers.Real, np.generic)):
        return np.asarray(x, dtype=np.float64)
    raise TypeError(
        f"micrograd.math.{name} takes a number, a Value or a numpy array, got {type(x).__name__}: {x!r}"
    )


def _elementwise(f: Callable[..., float], *arrays: Any) -> Any:
    """``f`` applied to each element of the (broadcast) arrays, as a float64 array."""
    np = _numpy()
    parts = [_array(a, f.__name__) for a in arrays]
    shaped = [p for p in parts if p.ndim]
    if len(shaped) > 1 and any(p.shape != shaped[0].shape for p in shaped):
        parts = shaped = np.broadcast_arrays(*parts)
    # (an array and numbers, as x ** 0.5: each number repeated, not broadcast, which costs more
    # than the calls of ``f`` on a few elements)
    shape, size = (shaped[0].shape, shaped[0].size) if shaped else ((), 1)
    flat = [p.ravel().tolist() if p.ndim else repeat(float(p), size) for p in parts]
    return np.fromiter(map(f, *flat), dtype=np.float64, count=size).reshape(shape)


# The functions whose array version may be numpy's own loop, when exact_ufuncs finds on first use
# that it gives the float function's bits on this machine (imported then: not by ``import micrograd``).
_ON_NUMPY_IF_EXACT = frozenset({"exp", "log"})  # (and pow, in pow)
_exact_ufuncs: Any = None


def _exact_array_function(name: str) -> Callable[..., Any] | None:
    global _exact_ufuncs
    if _exact_ufuncs is None:
        from . import exact_ufuncs

        _exact_ufuncs = exact_ufuncs
    found: Callable[..., Any] | None = _exact_ufuncs.array_function(name)
    return found


def _unary(
    x: Any,
    method: str,
    on_float: Callable[[float], float],
    on_array: Callable[[Any], Any] | None = None,
    raising: Callable[[float], float] | None = None,
) -> Any:
    """``on_float`` on a number, the Value method ``method`` on a Value, and on an array
    ``on_array`` (a numpy function that gives the float's very result), or numpy's own loop
    where ``exact_ufuncs`` finds it gives those bits, else ``on_float`` element by element:
    first ``raising``, the ``math`` function that gives the same numbers where it does not
    raise, with no Python call per element (a third less time)."""
    if type(x) is float:
        return on_float(x)
    if is_value(x):
        return getattr(x, method)()  # the engine's op: recorded in the graph
    if _is_float64_array(x):
        a = x
    elif isinstance(x, numbers.Real):
        return on_float(float(x))
    else:
        a = _array(x, method)
    if on_array is not None:
        return on_array(a)
    if method in _ON_NUMPY_IF_EXACT:
        numpy_loop = _exact_array_function(method) if a.ndim else None
        if numpy_loop is not None:  # numpy's loop calls the very C function the float one does
            return numpy_loop(a)
    if raising is None:
        return _elementwise(on_float, a)
    return _elementwise_raising(raising, on_float, a)


def _elementwise_raising(raising: Callable[..., float], on_float: Callable[..., float], *arrays: Any) -> Any:
    """``_elementwise(on_float, ...)``, first tried as ``raising``: the ``math`` function that gives
    ``on_float``'s very numbers where it does not raise, with no Python call per element."""
    try:
        return _elementwise(raising, *arrays)
    except (OverflowError, ValueError):  # an element it refuses: on_float's inf or nan there
        return _elementwise(on_float, *arrays)


def exp(x: Any) -> Any:
    """e**x; inf on overflow."""
    return _unary(x, "exp", fmath.exp, raising=_pymath.exp)


def expm1(x: Any) -> Any:
    """e**x - 1, accurate near 0."""
    return _unary(x, "expm1", fmath.expm1, raising=_pymath.expm1)


def log(x: Any) -> Any:
    """Natural logarithm; -inf at 0, nan below 0."""
    return _unary(x, "log", fmath.log, raising=_pymath.log)


def log1p(x: Any) -> Any:
    """log(1 + x), accurate near 0; -inf at -1, nan below."""
    return _unary(x, "log1p", fmath.log1p, raising=_pymath.log1p)


def tanh(x: Any) -> Any:
    """Hyperbolic tangent."""
    return _unary(x, "tanh", fmath.tanh, raising=_pymath.tanh)


def sigmoid(x: Any) -> Any:
    """1 / (1 + e**-x), without overflow errors."""
    return _unary(x, "sigmoid", fmath.sigmoid)


def sin(x: Any) -> Any:
    """Sine (radians); nan at +-inf."""
    return _unary(x, "sin", fmath.sin, raising=_pymath.sin)


def cos(x: Any) -> Any:
    """Cosine (radians); nan at +-inf."""
    return _unary(x, "cos", fmath.cos, raising=_pymath.cos)


def sqrt(x: Any) -> Any:
    """Square root; nan below 0."""
    return _unary(x, "sqrt", fmath.sqrt, _array_sqrt)


def _array_sqrt(a: Any) -> Any:
    with _quiet():  # nan below 0, as on floats
        return _np.sqrt(a)  # correctly rounded by IEEE 754: the float's very result


def abs(x: Any) -> Any:  # noqa: A001 - named for what it is, as builtins.abs
    """|x|."""
    return _unary(x, "abs", builtins.abs, lambda a: _numpy().abs(a))


def sign(x: Any) -> Any:
    """-1.0, 0.0 or 1.0 (0.0 for nan, as ``torch.sign``); on a Value, ``v.sign()``,
    whose gradient is 0."""
    if type(x) is float:
        return fmath.sign(x)
    if is_value(x):
        return x.sign()
    if isinstance(x, numbers.Real):
        return fmath.sign(float(x))
    np = _numpy()
    a = _array(x, "sign")
    return (a > 0.0).astype(np.float64) - (a < 0.0)


def pow(a: Any, b: Any) -> Any:  # noqa: A001 - named for what it is, as builtins.pow
    """a**b with C's pow semantics: inf on overflow and at 0**-y, nan for a
    negative base with a non-integer exponent."""
    if type(a) is float and type(b) is float:
        return fmath.pow(a, b)
    if is_value(a) or is_value(b):
        return a**b
    if _is_float64_array(a) and type(b) is float:  # (the compiled replay's x ** n)
        x, y = a, _np.asarray(b, dtype=_float64)
    elif isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return fmath.pow(float(a), float(b))
    else:
        x, y = _array(a, "pow"), _array(b, "pow")
    numpy_loop = _exact_array_function("pow") if x.ndim or y.ndim else None
    if numpy_loop is not None:  # numpy's loop calls the very C function Python's float ** does
        return numpy_loop(x, y)
    # (math.pow refuses 0 ** -1, (-8) ** 0.5 and an overflow; elsewhere 56 ns an element against 118)
    return _elementwise_raising(_pymath.pow, fmath.pow, x, y)


def div(a: Any, b: Any) -> Any:
    """a / b; x / 0 is a signed inf (nan for 0 / 0) instead of ZeroDivisionError."""
    if type(a) is float and type(b) is float:
        return fmath.div(a, b)
    if _is_float64_array(a) and _is_float64_array(b):  # (the compiled replay's: taken as they are)
        with _quiet():  # inf and nan, as on floats
            return a / b
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return fmath.div(float(a), float(b))
    if is_value(a) or is_value(b):
        return a / b  # the engine's op
    x, y = _array(a, "div"), _array(b, "div")
    with _quiet():
        return x / y


def where(cond: Any, a: Any, b: Any) -> Any:
    """``a`` where ``cond`` holds, else ``b``: a branch on floats and Values
    (``cond`` is a bool), element by element on arrays."""
    if cond is True:
        return a
    if cond is False:
        return b
    if getattr(cond, "ndim", 0):  # an array
        return _numpy().where(cond, a, b)
    return a if cond else b  # a numpy bool scalar, or a 0-d array


def equal(a: Any, b: Any) -> Any:
    """a == b by value (on Values too, whose ``==`` is identity)."""
    x = a.data if is_value(a) else a
    y = b.data if is_value(b) else b
    return x == y


def isfinite(x: Any) -> Any:
    """True where x is neither inf nor nan."""
    if type(x) is float:
        return _pymath.isfinite(x)
    if is_value(x):
        return _pymath.isfinite(x.data)
    if isinstance(x, numbers.Real):
        return _pymath.isfinite(x)
    return _numpy().isfinite(_array(x, "isfinite"))


def isnan(x: Any) -> Any:
    """True where x is nan (on a Value, its data).

    >>> isnan(float("nan")), isnan(1.0)
    (True, False)
    """
    if type(x) is float:
        return x != x
    if is_value(x):
        return x.data != x.data
    if isinstance(x, numbers.Real):
        return x != x
    return _numpy().isnan(_array(x, "isnan"))


# ---- the op catalogue's math (the ops: micrograd/ops/scientific.py, activations.py, reductions.py) -------
# On a Value each function is the Value's method: one node of the graph, whose forward is this very
# function on the numbers.  On floats and arrays: the float function of fmath (element by element on
# an array), or a formula of operators, ``where`` and the functions above, exact on arrays as on floats.


def _numbers(x: Any, name: str) -> Any:
    """A number as a float, an array as a float64 array: what a formula below computes on."""
    if type(x) is float:
        return x
    if isinstance(x, numbers.Real):
        return float(x)
    return _array(x, name)


def tan(x: Any) -> Any:
    """Tangent (radians); nan at +-inf.

    >>> tan(0.5), tan(float("inf"))
    (0.5463024898437905, nan)
    """
    return _unary(x, "tan", fmath.tan, raising=_pymath.tan)


def asin(x: Any) -> Any:
    """Arc sine; nan outside [-1, 1].

    >>> asin(1.0), asin(2.0)
    (1.5707963267948966, nan)
    """
    return _unary(x, "asin", fmath.asin, raising=_pymath.asin)


def acos(x: Any) -> Any:
    """Arc cosine; nan outside [-1, 1].

    >>> acos(1.0), acos(-2.0)
    (0.0, nan)
    """
    return _unary(x, "acos", fmath.acos, raising=_pymath.acos)


def atan(x: Any) -> Any:
    """Arc tangent, in [-pi/2, pi/2].

    >>> atan(1.0), atan(float("-inf"))
    (0.7853981633974483, -1.5707963267948966)
    """
    return _unary(x, "atan", fmath.atan, raising=_pymath.atan)


def sinh(x: Any) -> Any:
    """Hyperbolic sine; +-inf on overflow.

    >>> sinh(1.0), sinh(-1000.0)
    (1.1752011936438014, -inf)
    """
    return _unary(x, "sinh", fmath.sinh, raising=_pymath.sinh)


def cosh(x: Any) -> Any:
    """Hyperbolic cosine; inf on overflow.

    >>> cosh(1.0), cosh(-1000.0)
    (1.5430806348152437, inf)
    """
    return _unary(x, "cosh", fmath.cosh, raising=_pymath.cosh)


def asinh(x: Any) -> Any:
    """Inverse hyperbolic sine.

    >>> asinh(1.0)
    0.881373587019543
    """
    return _unary(x, "asinh", fmath.asinh, raising=_pymath.asinh)


def acosh(x: Any) -> Any:
    """Inverse hyperbolic cosine; nan below 1.

    >>> acosh(1.0), acosh(0.5)
    (0.0, nan)
    """
    return _unary(x, "acosh", fmath.acosh, raising=_pymath.acosh)


def atanh(x: Any) -> Any:
    """Inverse hyperbolic tangent; +-inf at +-1, nan beyond.

    >>> atanh(0.5), atanh(-1.0), atanh(2.0)
    (0.5493061443340548, -inf, nan)
    """
    return _unary(x, "atanh", fmath.atanh, raising=_pymath.atanh)


def log2(x: Any) -> Any:
    """Base-2 logarithm; -inf at 0, nan below 0.

    >>> log2(8.0), log2(0.0), log2(-1.0)
    (3.0, -inf, nan)
    """
    return _unary(x, "log2", fmath.log2, raising=_pymath.log2)


def log10(x: Any) -> Any:
    """Base-10 logarithm; -inf at 0, nan below 0.

    >>> log10(1000.0), log10(0.0)
    (3.0, -inf)
    """
    return _unary(x, "log10", fmath.log10, raising=_pymath.log10)


def exp2(x: Any) -> Any:
    """2**x; inf on overflow.

    >>> exp2(10.0), exp2(2000.0)
    (1024.0, inf)
    """
    return _unary(x, "exp2", fmath.exp2)


def erf(x: Any) -> Any:
    """The error function, 2/sqrt(pi) times the integral of e**(-t**2) from 0 to x.

    >>> erf(0.5), erf(float("inf"))
    (0.5204998778130465, 1.0)
    """
    return _unary(x, "erf", fmath.erf, raising=_pymath.erf)


def erfc(x: Any) -> Any:
    """1 - erf(x), accurate where erf(x) is near 1.

    >>> erfc(0.5), erfc(30.0)
    (0.4795001221869535, 0.0)
    """
    return _unary(x, "erfc", fmath.erfc, raising=_pymath.erfc)


def rsqrt(x: Any) -> Any:
    """1 / sqrt(x): inf at 0, -inf at -0.0, nan below 0.

    >>> rsqrt(4.0), rsqrt(0.0), rsqrt(-0.0), rsqrt(-1.0)
    (0.5, inf, -inf, nan)
    """
    return _unary(x, "rsqrt", fmath.rsqrt, lambda a: div(1.0, _array_sqrt(a)))


def reciprocal(x: Any) -> Any:
    """1 / x: a signed inf at a signed zero.

    >>> reciprocal(4.0), reciprocal(-0.0)
    (0.25, -inf)
    """
    if is_value(x):
        return x.reciprocal()
    return div(1.0, _numbers(x, "reciprocal"))


def square(x: Any) -> Any:
    """x * x.

    >>> square(3.0)
    9.0
    """
    if is_value(x):
        return x.square()
    x = _numbers(x, "square")
    return x * x


def floor(x: Any) -> Any:
    """The largest integer <= x, as a float (-0.0, inf and nan as they are).

    >>> floor(-0.5), floor(2.5)
    (-1.0, 2.0)
    """
    return _unary(x, "floor", fmath.floor, lambda a: _numpy().floor(a))


def ceil(x: Any) -> Any:
    """The smallest integer >= x, as a float (ceil(-0.5) is -0.0).

    >>> ceil(-0.5), ceil(2.5)
    (-0.0, 3.0)
    """
    return _unary(x, "ceil", fmath.ceil, lambda a: _numpy().ceil(a))


def trunc(x: Any) -> Any:
    """x rounded toward zero, as a float (trunc(-0.5) is -0.0).

    >>> trunc(-0.5), trunc(2.5)
    (-0.0, 2.0)
    """
    return _unary(x, "trunc", fmath.trunc, lambda a: _numpy().trunc(a))


def frac(x: Any) -> Any:
    """x - trunc(x), with the sign of x; nan at +-inf.

    >>> frac(-2.5), frac(float("inf"))
    (-0.5, nan)
    """
    if is_value(x):
        return x.frac()
    x = _numbers(x, "frac")
    return x - trunc(x)


def decimals_of(decimals: Any, what: str = "round") -> int:
    """``round``'s ``decimals``, checked: an int (a bool is refused).

    >>> decimals_of(2)
    2
    """
    if isinstance(decimals, bool) or not isinstance(decimals, numbers.Integral):
        raise TypeError(f"{what}(decimals=...) must be an int, got {type(decimals).__name__}: {decimals!r}")
    return int(decimals)


def round(x: Any, decimals: int = 0) -> Any:  # noqa: A001 - torch.round's name
    """x rounded to ``decimals`` decimal places, halves to even, as ``torch.round``:
    ``nearbyint(x * 10**decimals) / 10**decimals`` (so round(2.675, decimals=2) is 2.68,
    where Python's decimal-exact ``round`` gives 2.67); a negative ``decimals`` rounds to tens,
    hundreds, ...

    >>> round(2.5), round(-0.5), round(1.25, decimals=1), round(1250.0, decimals=-2)
    (2.0, -0.0, 1.2, 1200.0)
    """
    decimals = decimals_of(decimals)
    if is_value(x):
        return x.round(decimals=decimals)
    x = _numbers(x, "round")
    # on an array numpy's rint: correctly rounded, halves to even, the float's very result
    on_float = fmath.round_half_even if type(x) is float else _numpy().rint
    if decimals == 0:
        return on_float(x)
    scale = fmath.pow(10.0, float(builtins.abs(decimals)))  # (as PyTorch: inf for 10**309 and beyond)
    return on_float(x / scale) * scale if decimals < 0 else on_float(x * scale) / scale


def clamp(x: Any, min: float | None = None, max: float | None = None) -> Any:  # noqa: A002 - torch's names
    """x limited to [min, max] (either may be None: no limit); nan stays nan, a nan bound gives
    nan, and with min > max every result is max, as ``torch.clamp``.

    >>> clamp(-2.0, min=0.0), clamp(7.0, max=6.0), clamp(0.5, 0.0, 1.0)
    (0.0, 6.0, 0.5)
    """
    low, high = bounds(min, max)
    if is_value(x):
        return x.clamp(min=min, max=max)
    x = _numbers(x, "clamp")
    if low != low or high != high:  # a nan bound makes every result nan, as torch.clamp
        return x + _pymath.nan
    out = where(x < low, low, x)  # (a nan compares false: it stays)
    return where(out > high, high, out)


def bounds(min: Any, max: Any, what: str = "clamp") -> tuple[float, float]:  # noqa: A002
    """``clamp``'s ``min`` and ``max`` as floats, None as -inf and inf; an error if both are None.

    >>> bounds(None, 1.0)
    (-inf, 1.0)
    """
    if min is None and max is None:
        raise ValueError(f"{what}() needs min or max (or both): at least one of them must not be None")
    for bound, name in ((min, "min"), (max, "max")):
        if is_value(bound):
            raise TypeError(
                f"{what}({name}=...) takes a number, got a Value; for a bound that is a Value (with a "
                f"gradient), use x.{'maximum' if name == 'min' else 'minimum'}(bound)"
            )
    low = -_pymath.inf if min is None else to_float(min, f"{what}'s min")
    high = _pymath.inf if max is None else to_float(max, f"{what}'s max")
    return low, high


# ---- activations (the ops: micrograd/ops/activations.py), as torch.nn.functional computes them ----------

SQRT1_2 = 0.7071067811865476  # 1/sqrt(2)
GELU_TANH_BETA = 1.4142135623730951 * 1.1283791670955126 * 0.5  # sqrt(2) * 2/sqrt(pi) / 2 = sqrt(2/pi)
GELU_TANH_KAPPA = 0.044715
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def approximation_of(approximate: Any) -> str:
    """``gelu``'s ``approximate``, checked: 'none' or 'tanh'.

    >>> approximation_of("tanh")
    'tanh'
    """
    if not isinstance(approximate, str) or approximate not in ("none", "tanh"):
        raise ValueError(f"gelu(approximate=...) must be 'none' or 'tanh', got {approximate!r}")
    return str(approximate)


def gelu(x: Any, approximate: str = "none") -> Any:
    """x * Phi(x), Phi the standard normal CDF: ``x/2 * (1 + erf(x/sqrt(2)))``; with
    ``approximate='tanh'``, ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x**3)))``.

    >>> round(gelu(1.0), 6), round(gelu(1.0, approximate="tanh"), 6)
    (0.841345, 0.841192)
    """
    approximate = approximation_of(approximate)
    if is_value(x):
        return x.gelu(approximate=approximate)
    x = _numbers(x, "gelu")
    if approximate == "tanh":
        inner = GELU_TANH_BETA * (x + GELU_TANH_KAPPA * x * x * x)
        return 0.5 * x * (1.0 + tanh(inner))
    return x * 0.5 * (1.0 + erf(x * SQRT1_2))


def silu(x: Any) -> Any:
    """x * sigmoid(x), computed as ``x / (1 + e**-x)`` (nan at -inf, as PyTorch).

    >>> silu(1.0), silu(float("-inf"))
    (0.7310585786300049, nan)
    """
    if is_value(x):
        return x.silu()
    x = _numbers(x, "silu")
    return div(x, 1.0 + exp(-x))


def mish(x: Any) -> Any:
    """x * tanh(softplus(x)), computed as ``x * tanh(log1p(e**x))``.

    >>> mish(1.0)
    0.8650983882673103
    """
    if is_value(x):
        return x.mish()
    x = _numbers(x, "mish")
    return x * tanh(log1p(exp(x)))


def hardtanh(x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    """x limited to [min_val, max_val]; nan stays nan.

    >>> hardtanh(3.0), hardtanh(0.5, 0.0, 6.0)
    (1.0, 0.5)
    """
    low, high = hardtanh_bounds(min_val, max_val)
    if is_value(x):
        return x.hardtanh(low, high)
    x = _numbers(x, "hardtanh")
    out = where(x < low, low, x)
    return where(out > high, high, out)


def hardtanh_bounds(min_val: Any, max_val: Any) -> tuple[float, float]:
    """``hardtanh``'s bounds as floats; an error if ``min_val > max_val``, as PyTorch.

    >>> hardtanh_bounds(-1, 1)
    (-1.0, 1.0)
    """
    low, high = to_float(min_val, "hardtanh's min_val"), to_float(max_val, "hardtanh's max_val")
    if low > high:
        raise ValueError(f"hardtanh: min_val ({low}) cannot be greater than max_val ({high})")
    return low, high


def relu6(x: Any) -> Any:
    """min(max(x, 0), 6): ``hardtanh(x, 0, 6)``.

    >>> relu6(-1.0), relu6(7.0)
    (0.0, 6.0)
    """
    if is_value(x):
        return x.relu6()
    return hardtanh(x, 0.0, 6.0)


def softsign(x: Any) -> Any:
    """x / (1 + |x|) (nan at +-inf, as PyTorch computes it).

    >>> softsign(3.0), softsign(float("inf"))
    (0.75, nan)
    """
    if is_value(x):
        return x.softsign()
    x = _numbers(x, "softsign")
    return div(x, abs(x) + 1.0)


def logsigmoid(x: Any) -> Any:
    """log(sigmoid(x)), stable: ``min(x, 0) - log1p(e**-|x|)``.

    >>> logsigmoid(0.0), logsigmoid(-1000.0)
    (-0.6931471805599453, -1000.0)
    """
    if is_value(x):
        return x.logsigmoid()
    x = _numbers(x, "logsigmoid")
    return where(x < 0.0, x, 0.0) - log1p(exp(-abs(x)))


def selu(x: Any) -> Any:
    """scale * x for x > 0, else scale * alpha * (e**x - 1), with PyTorch's alpha and scale.

    >>> selu(1.0), selu(-1.0)
    (1.0507009873554805, -1.1113307378125625)
    """
    if is_value(x):
        return x.selu()
    x = _numbers(x, "selu")
    return where(x > 0.0, x * SELU_SCALE, expm1(x) * (SELU_ALPHA * SELU_SCALE))


def celu(x: Any, alpha: float = 1.0) -> Any:
    """x for x > 0, else alpha * (e**(x/alpha) - 1), computed as PyTorch: ``expm1(x * (1/alpha))``.

    >>> celu(-1.0), celu(-1.0, alpha=2.0)
    (-0.6321205588285577, -0.7869386805747332)
    """
    alpha = celu_alpha(alpha)
    if is_value(x):
        return x.celu(alpha)
    x = _numbers(x, "celu")
    return where(x > 0.0, x, expm1(x * (1.0 / alpha)) * alpha)


def celu_alpha(alpha: Any) -> float:
    """``celu``'s alpha as a float; an error for 0, as PyTorch.

    >>> celu_alpha(2)
    2.0
    """
    a = to_float(alpha, "celu's alpha")
    if a == 0.0:
        raise ValueError("celu: alpha cannot be 0 (it divides x)")
    return a


# ---- functions of two numbers (the ops: micrograd/ops/scientific.py) ---------------------------------------


class GraphOps(dict[str, Callable[..., Any]]):
    """What the functions of several arguments below call where Values take part and no Value
    method serves (a number first and a Value second; a list): the graph-building functions, by
    name.  micrograd.ops's table says which module of ops makes each; those modules import this
    one (so this one cannot import them), and load on first use: a name not here yet calls
    ``attach``, which micrograd.ops sets, to load its module and put its functions here."""

    attach: Callable[[str], None] | None = None

    def __missing__(self, name: str) -> Callable[..., Any]:
        if self.attach is not None:
            self.attach(name)
        if name not in self:
            raise KeyError(f"micrograd.math has no graph-building function {name!r}")
        return self[name]


GRAPH_OPS = GraphOps()


def _binary(
    a: Any, b: Any, method: str, on_float: Callable[[float, float], float], on_arrays: Any = None
) -> Any:
    """``on_float`` on two numbers; on a Value ``a``, its method ``method``; a Value ``b`` with
    a number ``a``: the op with ``a`` as a constant; on arrays ``on_arrays`` (numpy's exact
    function), else ``on_float`` element by element."""
    if type(a) is float and type(b) is float:
        return on_float(a, b)
    if is_value(a):
        return getattr(a, method)(b)
    if is_value(b):
        return GRAPH_OPS[method](a, b)  # the op, with a as a constant
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return on_float(float(a), float(b))
    if on_arrays is not None:
        return on_arrays(_array(a, method), _array(b, method))
    return _elementwise(on_float, a, b)


def atan2(y: Any, x: Any) -> Any:
    """The angle of the point (x, y), in [-pi, pi] (the quadrant from both signs).

    >>> atan2(1.0, -1.0), atan2(-0.0, -1.0)
    (2.356194490192345, -3.141592653589793)
    """
    return _binary(y, x, "atan2", fmath.atan2)


def hypot(a: Any, b: Any) -> Any:
    """sqrt(a**2 + b**2), without intermediate overflow.

    >>> hypot(3.0, 4.0), hypot(1e308, 1e308)
    (5.0, 1.4142135623730951e+308)
    """
    return _binary(a, b, "hypot", fmath.hypot)


def logaddexp(a: Any, b: Any) -> Any:
    """log(e**a + e**b), stable.

    >>> logaddexp(0.0, 0.0), logaddexp(float("-inf"), float("-inf"))
    (0.6931471805599453, -inf)
    """
    return _binary(a, b, "logaddexp", fmath.logaddexp)


def fmod(a: Any, b: Any) -> Any:
    """C's fmod: the remainder of a / b truncated, with the sign of a; nan for b == 0.

    >>> fmod(-7.0, 2.0), fmod(1.0, 0.0)
    (-1.0, nan)
    """
    return _binary(a, b, "fmod", fmath.fmod)


def remainder(a: Any, b: Any) -> Any:
    """a % b with the sign of b (Python's and ``torch.remainder``'s convention); nan for b == 0.

    >>> remainder(-7.0, 2.0), remainder(7.0, -2.0), remainder(-4.0, 2.0)
    (1.0, -1.0, -0.0)
    """
    return _binary(a, b, "remainder", fmath.remainder)


def floor_divide(a: Any, b: Any) -> Any:
    """a // b, the floor of a / b (``torch.floor_divide``, Python's ``//``); a / b for b == 0.

    >>> floor_divide(7.0, -2.0), floor_divide(1.0, 0.0)
    (-4.0, inf)
    """
    return _binary(a, b, "floor_divide", fmath.floor_divide)


def maximum(a: Any, b: Any) -> Any:
    """The larger of a and b; nan if either is nan; a on a tie (so -0.0 against 0.0 is -0.0).

    >>> maximum(1.0, 2.0), maximum(-0.0, 0.0), maximum(1.0, float("nan"))
    (2.0, -0.0, nan)
    """
    return _binary(a, b, "maximum", larger, larger)


def minimum(a: Any, b: Any) -> Any:
    """The smaller of a and b; nan if either is nan; a on a tie.

    >>> minimum(1.0, 2.0), minimum(float("nan"), 1.0)
    (1.0, nan)
    """
    return _binary(a, b, "minimum", smaller, smaller)


def larger(a: Any, b: Any) -> Any:
    """``maximum`` on numbers or arrays.

    >>> larger(1.0, 2.0)
    2.0
    """
    return where(isnan(b) | (a < b), b, a)


def smaller(a: Any, b: Any) -> Any:
    """``minimum`` on numbers or arrays.

    >>> smaller(1.0, 2.0)
    1.0
    """
    return where(isnan(b) | (b < a), b, a)


# ---- functions of a list (the ops: micrograd/ops/reductions.py) -------------------------------------------


def max(values: Any) -> Any:  # noqa: A001 - torch.max's name
    """The largest of ``values`` (nan if any is nan), as ``torch.max`` of a tensor: over Values
    one node, whose gradient goes to the largest entry, split evenly among ties.

    >>> max([1.0, 3.0, 2.0])
    3.0
    """
    return GRAPH_OPS["max"](values)


def min(values: Any) -> Any:  # noqa: A001 - torch.min's name
    """The smallest of ``values`` (nan if any is nan); its gradient as ``max``'s.

    >>> min([1.0, 3.0, 2.0])
    1.0
    """
    return GRAPH_OPS["min"](values)


def logsumexp(values: Any) -> Any:
    """log(sum of e**v over ``values``), stable at any size of the values.

    >>> round(logsumexp([1000.0, 1000.0]), 6)
    1000.693147
    """
    return GRAPH_OPS["logsumexp"](values)


def softmax(values: Any) -> list[Any]:
    """e**v / (sum of e**v), a list as long as ``values``, computed stably.

    >>> [round(p, 4) for p in softmax([1.0, 2.0, 3.0])]
    [0.09, 0.2447, 0.6652]
    """
    return list(GRAPH_OPS["softmax"](values))


def log_softmax(values: Any) -> list[Any]:
    """v - logsumexp(values) for each v, computed as ``torch.log_softmax``: accurate where one
    entry dominates.

    >>> [round(p, 4) for p in log_softmax([1.0, 2.0, 3.0])]
    [-2.4076, -1.4076, -0.4076]
    """
    return list(GRAPH_OPS["log_softmax"](values))
