"""numpy's own ``exp``, ``log`` and ``power`` on float64 arrays, where they give the float functions' bits.

On an array, ``micrograd.math.exp`` must give, element by element, the bits the eager engine
computes with ``floats.exp`` (Python's ``math.exp``): compiled replay equals eager, bit for bit.
Calling ``math.exp`` on each element does that, at 130 to 150 ns an element; ``numpy.exp`` on the
whole array takes about 6 ns an element.  This module decides, once per process and per function,
whether numpy's float64 loop may stand in for the element-by-element path.

Why it can be exact: CPython's ``math.exp``, ``math.log`` and float ``**`` call the C library's
``exp``, ``log`` and ``pow``.  numpy's float64 ``exp``, ``log`` and ``power`` have SIMD kernels of
their own only for AVX-512 (numpy's targets ``X86_V4``, ``AVX512F``, ``AVX512_SKX``, in
``numpy/_core/src/umath/loops_exponent_log.dispatch.c.src`` and ``loops_umath_fp.dispatch.c.src``);
on every other target their loop calls that same C function on each element.  So both paths run
one function on the same numbers, and numpy only saves the Python call per element.

The decision takes two checks, and uses numpy only when both pass:

1. numpy's dispatch (``numpy.lib.introspect.opt_func_info``): the float64 loop numpy runs on this
   machine must be one of the targets known to call the C library (an allow-list: numpy's
   baseline, ``X86_V2``, ``X86_V3`` and their parts up to AVX2/FMA3, ARM's NEON/ASIMD, POWER's VSX,
   s390x's VX, LoongArch's LSX).  Anything else is refused, AVX-512 above all; so is a numpy
   without ``opt_func_info`` (numpy 1.x).
2. a probe: about 30,000 float64 values for exp and log (random bit patterns of both signs, nan
   payloads, signalling nans, subnormals, +-0, +-inf, the values around exp's overflow and
   underflow edges and around 1 for log, a uniform sweep of exp's finite range), about 25,000
   pairs for pow (each special value with each, any bits with any bits, 2 ** y at the overflow
   and underflow edges, negative bases with integer exponents, each exponent also as one number),
   must give numpy the very bits, compared as integers (so a nan's sign and payload and a zero's
   sign count), that the float function gives one element at a time.  The probe is a check, not
   a proof: the proof is the first rule (one C function behind both); the probe catches a build or
   platform where that reading of numpy's source is wrong.  It runs on first use, never at import:
   about 6 ms each for exp and log and 12 ms for pow on a quiet 2-core machine (up to three times
   that on a busy one), nearly all of it the float function's calls.

Where the float function answers without the C library, the array version gives its answer, for
every element alike: ``floats.log`` of a negative number is Python's ``nan`` (a +nan, where C's
``log`` may give -nan), and ``math.log`` of a nan returns that very nan (where C's quiets a
signalling one).  Python's float ``**`` answers nan, zero, inf and negative bases itself before
it calls ``pow`` (``1 ** y`` and ``x ** 0`` are 1 even for a signalling nan, a negative base
with a non-integer exponent gives +nan), and numpy's ``power`` answers ``x ** 2``, ``x ** 0.5``
and ``x ** -1`` itself (``x * x``, ``sqrt(x)``, ``1 / x``) when the exponent is one number:
those elements go element by element.  numpy is kept silent where the float function gives inf or
nan without a word (``numpy_errors.quiet``).

Where numpy's float64 ``exp`` is its own (AVX-512), exp has a second route: numpy's complex128
``exp`` of ``x + 0j``.  That loop has no SIMD kernel of its own (``opt_func_info`` lists none): it
calls ``npy_cexp`` on each element, which is the C library's ``cexp`` (numpy's own where there is
none).  For a finite ``x`` up to 709 and an imaginary part +0, ``cexp`` returns ``exp(x) * cos(0)``
with the C library's ``exp``: ``exp(x) * 1.0``, the very bits.  Above 709 glibc's ``cexp`` scales its
result (a last bit apart, seen here), so elements above 708, nans and +inf go element by element.
The same two checks decide it: the loop must not be dispatched, and the probe must see not one
bit of difference.  About 13 ns an element against 45 element by element (8,000 elements,
AVX-512 EPYC): the softmaxes of a 16-name GPT step, 0.50-0.61 -> 0.12-0.13 ms (two runs each).

>>> import numpy as np
>>> from micrograd import math as mm
>>> from micrograd.math import exact_ufuncs
>>> mm.exp(np.array([0.0, 1000.0])), mm.log(np.array([1.0, 0.0, -1.0]))  # either way
(array([ 1., inf]), array([  0., -inf,  nan]))
>>> mm.pow(np.array([4.0, -8.0, 0.0]), np.array([-0.5, 1 / 3, -1.0]))
array([0.5, nan, inf])
>>> set(exact_ufuncs.on_numpy()) <= {"exp", "log", "pow"}  # all three on x86-64 AVX2, exp on AVX-512
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import repeat
from typing import Any

from . import floats as fmath
from .numpy_errors import quiet

# The dispatch targets whose float64 exp and log loop calls the C library on each element (numpy's
# names, old and new): a target not in this list is refused, whatever it is.
CALLS_THE_C_LIBRARY = frozenset(
    {
        "baseline",
        "X86_V2",
        "X86_V3",
        "SSE",
        "SSE2",
        "SSE3",
        "SSSE3",
        "SSE41",
        "POPCNT",
        "SSE42",
        "AVX",
        "F16C",
        "FMA3",
        "AVX2",
        "NEON",
        "NEON_FP16",
        "NEON_VFPV4",
        "ASIMD",
        "VSX",
        "VSX2",
        "VSX3",
        "VX",
        "VXE",
        "VXE2",
        "LSX",
    }
)


def target_calls_the_c_library(target: str) -> bool:
    """Whether numpy's dispatch target ``target`` (as ``opt_func_info`` names it, e.g.
    ``"X86_V3"`` or ``"baseline(X86_V2)"``) is one whose float64 exp and log call the C library.

    >>> target_calls_the_c_library("X86_V3"), target_calls_the_c_library("baseline(NEON ASIMD)")
    (True, True)
    >>> target_calls_the_c_library("X86_V4"), target_calls_the_c_library("baseline(X86_V2 AVX512F)")
    (False, False)
    """
    parts = re.findall(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*", target)  # (numpy 1.x joins targets with "__")
    return bool(parts) and all(p in CALLS_THE_C_LIBRARY for p in parts)


def loops_info(ufunc: str, signature: str) -> dict[str, Any] | None:
    """What numpy's dispatch says of ``ufunc``'s loops of ``signature`` on this machine, loop by
    loop (none listed: its generic loop, no SIMD kernel), or None when this numpy does not say
    (numpy 1.x has no ``opt_func_info``)."""
    try:
        from numpy.lib.introspect import opt_func_info
    except ImportError:
        return None
    return opt_func_info(func_name=f"^{ufunc}$", signature=signature).get(ufunc, {})


def dispatch_target(ufunc: str) -> str | None:
    """The target of the float64 loop numpy runs for ``ufunc`` on this machine, or None when
    this numpy does not say."""
    info = loops_info(ufunc, "float64")
    if info is None:
        return None
    # one float64 -> float64 loop ("dd" in numpy 2.4): its target, if numpy names a single one
    targets = {loop.get("current") for loop in info.values() if isinstance(loop, dict)}
    return targets.pop() if len(targets) == 1 and None not in targets else None


def _np() -> Any:
    import numpy

    return numpy


def array_exp(a: Any) -> Any:
    """numpy's exp of the float64 array ``a``; inf on overflow, without a warning."""
    with quiet():
        return _np().exp(a)


# The largest x whose exp ``cexp(x + 0j)`` gives unscaled: glibc's scales above (int)(1023 ln 2), 709
COMPLEX_EXP_UP_TO = 708.0


def array_exp_through_complex(a: Any) -> Any:
    """The real part of numpy's complex128 exp of ``a + 0j`` for the float64 array ``a``: the C library's
    ``exp(x) * cos(0)``; element by element above ``COMPLEX_EXP_UP_TO``, at nans and at +inf."""
    np = _np()
    with quiet():
        out = np.exp(a.astype(np.complex128)).real.copy()
    unscaled = a <= COMPLEX_EXP_UP_TO  # (a nan compares False)
    if not unscaled.all():
        rest = ~unscaled
        out[rest] = element_by_element(fmath.exp, a[rest])
    return out


def array_log(a: Any) -> Any:
    """numpy's log of the float64 array ``a``, with ``floats.log``'s nans: +nan below 0, and a
    nan's log that very nan (its sign and payload, signalling or not)."""
    np = _np()
    with quiet():
        out = np.log(a)
    if not (a > 0.0).all():  # a zero (-inf: C's already), a negative or a nan somewhere
        out[a < 0.0] = math.nan
        nans = a != a
        out[nans] = a[nans]
    return out


# Exponents numpy's float64 power answers itself, when the exponent is one number (a stride-0
# operand): x ** -1 as 1 / x, x ** 0.5 as sqrt(x), x ** 2 as x * x (and x ** 0, x ** 1, exact anyway).
NUMPYS_OWN_EXPONENTS = (-1.0, 0.5, 2.0)


def array_pow(a: Any, b: Any) -> Any:
    """numpy's power of the float64 arrays ``a`` and ``b`` (broadcast), with ``floats.pow``'s
    answers where Python's float ``**`` gives its own before it calls C's ``pow``: a nan base's
    result is that very nan, a nan exponent's that nan, ``x ** 0`` and ``1 ** y`` are 1 (nan or
    not), a negative finite base with a finite non-integer exponent gives +nan; and, where the
    exponent is one numpy answers itself, element by element."""
    np = _np()
    one_exponent = float(b) if not b.ndim else None  # (a number's checks: Python's, cheaper)
    if one_exponent in NUMPYS_OWN_EXPONENTS:  # numpy's own answer for every element: not C's pow
        return np.fromiter(map(fmath.pow, a.ravel().tolist(), repeat(one_exponent)), np.float64).reshape(
            a.shape
        )
    with quiet():
        out = np.power(a, b)
        finite_b = math.isfinite(one_exponent) if one_exponent is not None else (b - b == 0.0).all()
        if not (finite_b and (a > 0.0).all()):  # a base <= 0 or nan, an exponent inf or nan
            a, b = np.broadcast_arrays(a, b)
            nan_b = (b != b) & (a == a) & (a != 1.0)
            out[nan_b] = b[nan_b]
            nan_a = (a != a) & (b != 0.0)
            out[nan_a] = a[nan_a]
            out[(a < 0.0) & (a - a == 0.0) & (b - b == 0.0) & (b != np.floor(b))] = math.nan
            out[(b == 0.0) | (a == 1.0)] = 1.0  # even with a signalling nan, where C's pow gives nan
    if one_exponent is None:  # an array of exponents: numpy answers itself where it broadcasts one
        own = (b == NUMPYS_OWN_EXPONENTS[0]) | (b == NUMPYS_OWN_EXPONENTS[1]) | (b == NUMPYS_OWN_EXPONENTS[2])
        if own.any():
            a, b, own = np.broadcast_arrays(a, b, own)
            out[own] = np.fromiter(map(fmath.pow, a[own].tolist(), b[own].tolist()), dtype=np.float64)
    return out


def random_bits(n: int, stream: int) -> Any:
    """``n`` pseudo-random uint64s, the same on every run: splitmix64 on a counter, in numpy
    (``numpy.random``'s first import alone would cost the probe some 100 ms)."""
    np = _np()
    z = np.arange(n, dtype=np.uint64) + np.uint64(stream << 32)
    z *= np.uint64(0x9E3779B97F4A7C15)  # (uint64 arithmetic wraps around: what splitmix64 wants)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def uniform(lo: float, hi: float, n: int, stream: int) -> Any:
    """``n`` pseudo-random floats in [lo, hi), the same on every run."""
    np = _np()
    return lo + (hi - lo) * ((random_bits(n, stream) >> np.uint64(11)) * 2.0**-53)


def probe_values() -> Any:
    """The float64 values the probe tries (the same on every run)."""
    np = _np()
    bits = np.uint64

    def around(x: float, n: int) -> Any:  # x and its n neighbours either side
        return np.array([x]).view(bits) + np.arange(-n, n + 1, dtype=np.int64).astype(bits)

    payload = bits(2**52 - 1)
    tiny, huge = 5e-324, 1.7976931348623157e308  # the smallest subnormal, the largest float
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1.0, -1.0, 0.5, tiny, -tiny, huge, -huge]
    parts = [
        random_bits(8192, 1),  # any bits: all exponents, both signs, nans
        (random_bits(1024, 2) & payload) | bits(0x7FF0000000000001),  # nans, quiet or signalling, + and -
        (random_bits(1024, 3) & (payload | bits(2**63))),  # subnormals of both signs (and a zero or two)
        np.array(specials).view(bits),
    ]
    parts[1][::2] |= bits(2**63)
    # exp's edges: its last finite result, its first subnormal one, its last nonzero one and beyond
    edges = (709.782712893384, -708.3964185322641, -745.1332191019411, -745.1332191019412)
    parts += [around(x, 64) for x in (*edges, COMPLEX_EXP_UP_TO, 709.0)]  # (and where cexp scales)
    parts += [around(1.0, 256), around(-1.0, 16)]  # log near 1, where C's log takes its own path
    sweep = uniform(-746.0, 710.0, 8192, 4)  # exp's whole finite range, and log of small positives
    near_one = uniform(0.93, 1.07, 2048, 5)
    parts += [sweep.view(bits), near_one.view(bits), np.abs(sweep).view(bits)]
    return np.concatenate(parts).view(np.float64)


def probe_pairs() -> tuple[Any, Any]:
    """The (base, exponent) pairs the probe tries for pow (the same on every run)."""
    np = _np()
    signalling = np.array([0x7FF0000000000001, 0xFFF4000000000ABC], dtype=np.uint64).view(np.float64)
    near = np.nextafter([1.0, 1.0, -1.0], [2.0, 0.0, -2.0])
    specials = [
        0.0,
        -0.0,
        math.inf,
        -math.inf,
        math.nan,
        -math.nan,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.0,
        -2.0,
    ]
    specials += [3.0, -3.0, 5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 1e300]
    special = np.concatenate([specials, signalling, near])
    x_special, y_special = (g.ravel() for g in np.meshgrid(special, special))  # each with each
    anything = random_bits(4096, 6).view(np.float64)  # any bits, bases and exponents
    exponents = [-0.5, -1.5, 0.5, 2.0, -1.0, 3.0, 1 / 3, 0.25, -2.0, 1e-3]
    x_fixed, y_fixed = (g.ravel() for g in np.meshgrid(np.abs(anything[:512]), exponents))
    small, large = uniform(0.0, 7.0, 2048, 7), uniform(-30.0, 30.0, 2048, 8)
    base = np.concatenate([anything[:2048], small[:1024], -small[1024:]])
    exponent = np.concatenate([anything[2048:], large[:1024], np.round(large[1024:])])  # integers too
    edges = np.array([2.0, -2.0]).repeat(3 * 129)  # 2 ** y around overflow, subnormals, underflow
    edge_exponents = np.tile(np.concatenate([np.linspace(-64, 64, 129) + e for e in (1024, -1022, -1074)]), 2)
    near_one = uniform(0.999, 1.001, 1024, 9)
    x = np.concatenate([x_special, x_fixed, base, edges, near_one])
    y = np.concatenate(
        [y_special, y_fixed, exponent, edge_exponents, large[:512] * 1e12, -np.abs(large[512:1024])]
    )
    return x, y


def element_by_element(f: Callable[[float], float], a: Any) -> Any:
    """``f`` on each element of the 1-d float64 array ``a``: the path the probe checks against."""
    np = _np()
    return np.fromiter(map(f, a.tolist()), dtype=np.float64, count=a.size)


def same_bits(a: Any, b: Any) -> bool:
    """Whether two float64 arrays hold the very same bits (a nan's sign and payload, a zero's sign)."""
    np = _np()
    return a.shape == b.shape and bool((a.view(np.uint64) == b.view(np.uint64)).all())


# name -> (numpy's ufunc, whose dispatch counts; the array function; the float function)
CANDIDATES: dict[str, tuple[str, Callable[..., Any], Callable[..., float]]] = {
    "exp": ("exp", array_exp, fmath.exp),
    "log": ("log", array_log, fmath.log),
    "pow": ("power", array_pow, fmath.pow),
}

# name -> a second route, through numpy's complex128 loop, where the float64 one is refused
THROUGH_COMPLEX: dict[str, Callable[..., Any]] = {"exp": array_exp_through_complex}

# name -> its array function, or None where it goes element by element: filled on first use, once
decisions: dict[str, Callable[..., Any] | None] = {}


def probe_agrees(on_array: Callable[..., Any], on_float: Callable[..., float], operands: int) -> bool:
    """Whether ``on_array`` gives the bits of ``on_float`` on each of the probe's values (pairs of
    values for a function of two operands, whose second may be an array or one number)."""
    np = _np()
    if operands == 1:
        values = probe_values()
        return same_bits(on_array(values), element_by_element(on_float, values))
    x, y = probe_pairs()
    expected = np.fromiter(map(on_float, x.tolist(), y.tolist()), dtype=np.float64, count=x.size)
    if not same_bits(on_array(x, y), expected):
        return False
    # each exponent as one number too (numpy's loop for that case), on the specials and any bits
    bases = np.concatenate([x[:1024], random_bits(512, 10).view(np.float64)])
    for exponent in (*NUMPYS_OWN_EXPONENTS, -0.5, -1.5, 3.0, 0.0, 1.0, -math.inf, math.nan):
        expected = np.fromiter(map(on_float, bases.tolist(), [exponent] * bases.size), dtype=np.float64)
        if not same_bits(on_array(bases, np.float64(exponent)), expected):
            return False
    return True


def decide(name: str) -> Callable[..., Any] | None:
    """Both checks for ``name``: the array function if numpy's dispatch calls the C library and the
    probe finds not one bit of difference; else its route through the complex128 loop, if it has
    one, that loop is not dispatched and the probe passes it; else None."""
    ufunc, on_array, on_float = CANDIDATES[name]
    operands = 2 if name == "pow" else 1
    target = dispatch_target(ufunc)
    allowed = target is not None and target_calls_the_c_library(target)
    if allowed and probe_agrees(on_array, on_float, operands):
        return on_array
    through = THROUGH_COMPLEX.get(name)
    if through is not None and complex_loop_is_generic(ufunc) and probe_agrees(through, on_float, operands):
        return through
    return None


def complex_loop_is_generic(ufunc: str) -> bool:
    """Whether numpy's complex128 loop for ``ufunc`` is its generic one (no SIMD kernel, as
    ``opt_func_info`` says by listing none), which calls the C library's complex function; False
    when this numpy does not say (numpy 1.x)."""
    return loops_info(ufunc, "complex128") == {}


def array_function(name: str) -> Callable[..., Any] | None:
    """numpy's array version of the float function ``name`` (``"exp"``, ``"log"``, ``"pow"``) if it gives its
    very bits on this machine, else None (then the caller goes element by element); decided on the
    first call, once per process."""
    if name not in CANDIDATES:
        return None
    try:
        return decisions[name]
    except KeyError:
        decisions[name] = found = decide(name)
        return found


def on_numpy() -> list[str]:
    """The functions that run on numpy's own loops on arrays in this process (deciding now for
    those not decided yet); the others go element by element through the float function.

    >>> set(on_numpy()) <= {"exp", "log", "pow"}
    True
    """
    return [name for name in CANDIDATES if array_function(name) is not None]
