"""numpy's own ``exp`` and ``log`` on float64 arrays, where they give the float functions' very bits.

On an array, ``micrograd.math.exp`` must give, element by element, the bits the eager engine
computes with ``floats.exp`` (Python's ``math.exp``): compiled replay equals eager, bit for bit.
Calling ``math.exp`` on each element does that, at 130 to 150 ns an element; ``numpy.exp`` on the
whole array takes about 6 ns an element.  This module decides, once per process and per function,
whether numpy's float64 loop may stand in for the element-by-element path.

Why it can be exact: CPython's ``math.exp`` and ``math.log`` call the C library's ``exp`` and
``log``.  numpy's float64 ``exp`` and ``log`` have SIMD kernels of their own only for AVX-512
(numpy's targets ``X86_V4``, ``AVX512F``, ``AVX512_SKX``, in
``numpy/_core/src/umath/loops_exponent_log.dispatch.c.src``); on every other target their loop
calls that same C function on each element.  So both paths run one function on the same
numbers, and numpy only saves the Python call per element.

The decision takes two checks, and uses numpy only when both pass:

1. numpy's dispatch (``numpy.lib.introspect.opt_func_info``): the float64 loop numpy runs on this
   machine must be one of the targets known to call the C library (an allow-list: numpy's
   baseline, ``X86_V2``, ``X86_V3`` and their parts up to AVX2/FMA3, ARM's NEON/ASIMD, POWER's VSX,
   s390x's VX, LoongArch's LSX).  Anything else is refused, AVX-512 above all; so is a numpy
   without ``opt_func_info`` (numpy 1.x).
2. a probe: about 30,000 float64 values (random bit patterns of both signs, nan payloads, signalling
   nans, subnormals, +-0, +-inf, the values around exp's overflow and underflow edges and around 1
   for log, a uniform sweep of exp's finite range) must give numpy the very bits, compared as
   integers (so a nan's sign and payload and a zero's sign count), that the float function gives
   one element at a time.  The probe is a check, not a proof: the proof is the first rule (one C
   function behind both); the probe catches a build or platform where that reading of numpy's
   source is wrong.  It runs on first use, never at import: 10 to 20 ms a function on a busy
   2-core machine, nearly all of it the float function's 30,000 calls.

Where the float function's nan is not the C library's, the array version mends it the same way
for every element: ``floats.log`` of a negative number is Python's ``nan`` (a +nan, where C's
``log`` may give -nan), and ``math.log`` of a nan returns that very nan (where C's quiets a
signalling one).  ``numpy.errstate`` keeps numpy silent where the float function gives inf or nan
without a word.

Left element by element: ``pow``.  numpy's float64 ``power`` answers some exponents itself when
the exponent is one number (``x ** 2`` as ``x * x``, ``x ** 0.5`` as ``sqrt(x)``, ``x ** -1`` as
``1 / x``, in ``loops_umath_fp.dispatch.c.src``), not with C's ``pow``, and which loop runs
depends on the arrays' strides; Python's float ``**`` answers nan, inf, zero and negative bases
itself before it calls ``pow``.  In a GPT step its arrays hold about a thousand elements in all.

>>> import numpy as np
>>> from micrograd import math as mm
>>> from micrograd.math import exact_ufuncs
>>> mm.exp(np.array([0.0, 1000.0])), mm.log(np.array([1.0, 0.0, -1.0]))  # either way
(array([ 1., inf]), array([  0., -inf,  nan]))
>>> set(exact_ufuncs.on_numpy()) <= {"exp", "log"}  # ['exp', 'log'] on x86-64 AVX2, [] on AVX-512
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from . import floats as fmath

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


def dispatch_target(ufunc: str) -> str | None:
    """The target of the float64 loop numpy runs for ``ufunc`` on this machine, or None when
    this numpy does not say (numpy 1.x has no ``opt_func_info``)."""
    try:
        from numpy.lib.introspect import opt_func_info
    except ImportError:
        return None
    info = opt_func_info(func_name=f"^{ufunc}$", signature="float64").get(ufunc, {})
    # one float64 -> float64 loop ("dd" in numpy 2.4): its target, if numpy names a single one
    targets = {loop.get("current") for loop in info.values() if isinstance(loop, dict)}
    return targets.pop() if len(targets) == 1 and None not in targets else None


def _np() -> Any:
    import numpy

    return numpy


def array_exp(a: Any) -> Any:
    """numpy's exp of the float64 array ``a``; inf on overflow, without a warning."""
    np = _np()
    with np.errstate(all="ignore"):
        return np.exp(a)


def array_log(a: Any) -> Any:
    """numpy's log of the float64 array ``a``, with ``floats.log``'s nans: +nan below 0, and a
    nan's log that very nan (its sign and payload, signalling or not)."""
    np = _np()
    with np.errstate(all="ignore"):
        out = np.log(a)
    if not (a > 0.0).all():  # a zero (-inf: C's already), a negative or a nan somewhere
        out[a < 0.0] = math.nan
        nans = a != a
        out[nans] = a[nans]
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


def probe_values() -> Any:
    """The float64 values the probe tries (the same on every run)."""
    np = _np()
    bits = np.uint64

    def around(x: float, n: int) -> Any:  # x and its n neighbours either side
        return np.array([x]).view(bits) + np.arange(-n, n + 1, dtype=np.int64).astype(bits)

    def uniform(lo: float, hi: float, n: int, stream: int) -> Any:
        return lo + (hi - lo) * ((random_bits(n, stream) >> bits(11)) * 2.0**-53)

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
    parts += [around(x, 64) for x in edges]
    parts += [around(1.0, 256), around(-1.0, 16)]  # log near 1, where C's log takes its own path
    sweep = uniform(-746.0, 710.0, 8192, 4)  # exp's whole finite range, and log of small positives
    near_one = uniform(0.93, 1.07, 2048, 5)
    parts += [sweep.view(bits), near_one.view(bits), np.abs(sweep).view(bits)]
    return np.concatenate(parts).view(np.float64)


def element_by_element(f: Callable[[float], float], a: Any) -> Any:
    """``f`` on each element of the 1-d float64 array ``a``: the path the probe checks against."""
    np = _np()
    return np.fromiter(map(f, a.tolist()), dtype=np.float64, count=a.size)


def same_bits(a: Any, b: Any) -> bool:
    """Whether two float64 arrays hold the very same bits (a nan's sign and payload, a zero's sign)."""
    np = _np()
    return a.shape == b.shape and bool((a.view(np.uint64) == b.view(np.uint64)).all())


# name -> (numpy's ufunc, whose dispatch counts; the array function; the float function)
CANDIDATES: dict[str, tuple[str, Callable[[Any], Any], Callable[[float], float]]] = {
    "exp": ("exp", array_exp, fmath.exp),
    "log": ("log", array_log, fmath.log),
}

# name -> its array function, or None where it goes element by element: filled on first use, once
decisions: dict[str, Callable[[Any], Any] | None] = {}


def decide(name: str) -> Callable[[Any], Any] | None:
    """Both checks for ``name``: the array function if numpy's dispatch calls the C library and the
    probe finds not one bit of difference, else None."""
    ufunc, on_array, on_float = CANDIDATES[name]
    target = dispatch_target(ufunc)
    if target is None or not target_calls_the_c_library(target):
        return None
    values = probe_values()
    return on_array if same_bits(on_array(values), element_by_element(on_float, values)) else None


def array_function(name: str) -> Callable[[Any], Any] | None:
    """numpy's array version of the float function ``name`` (``"exp"``, ``"log"``) if it gives its
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

    >>> set(on_numpy()) <= {"exp", "log"}
    True
    """
    return [name for name in CANDIDATES if array_function(name) is not None]
