"""Comparing numbers: closeness, central differences, where a difference is only an edge case,
and the text of numbers and points in the messages."""

from __future__ import annotations

import math as _pymath
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .inputs import safe_inside
from .references import Domain, Point
from .running import Raised

# Captured at import: the learner's code may patch ``math`` (``math.isclose = lambda *a: True``)
# where it runs in this process; the comparisons keep the functions they were written with.
_isnan, _isinf, _isfinite = _pymath.isnan, _pymath.isinf, _pymath.isfinite


def close(a: float, b: float, rtol: float = 1e-6, atol: float = 1e-12) -> bool:
    if _isnan(a) or _isnan(b):
        return _isnan(a) and _isnan(b)
    if _isinf(a) or _isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def num(x: Any) -> str:
    if isinstance(x, Raised):
        x = str(x)
    return repr(x) if isinstance(x, str) else f"{x:.10g}"


def at_point(names: list[str], pt: Point, ps: tuple[float, ...]) -> str:
    labels = (
        names
        if len(names) == len(pt) + len(ps)
        else [f"x{i}" for i in range(len(pt))] + [f"p{i}" for i in range(len(ps))]
    )
    if len(pt) == 1 and not ps:
        labels = [names[0] if names else "x"]
    return ", ".join(f"{n} = {num(v)}" for n, v in zip(labels, (*pt, *ps)))


def central_difference(
    value: Callable[[Point, tuple[float, ...]], Any], pt: Point, ps: tuple[float, ...], i: int, inside: Domain
) -> float | None:
    """d value / d input i by central differences, or None where they cannot be trusted (a kink,
    the domain's edge, an overflow, a point where it raised).  ``value(pt, ps)``: a number, or
    what stands for none (``Raised``)."""
    h = 1e-6 * max(abs(pt[i]), 1.0)

    def at(v: float) -> Any:
        moved = list(pt)
        moved[i] = v
        return value(tuple(moved), ps)

    for v in (pt[i] + h, pt[i] - h):
        if not safe_inside(inside, (*pt[:i], v, *pt[i + 1 :])):
            return None  # a step would leave the domain
    f0, fp, fm = at(pt[i]), at(pt[i] + h), at(pt[i] - h)
    if not all(type(v) is float and _isfinite(v) for v in (f0, fp, fm)):
        return None
    right, left, cd = (fp - f0) / h, (f0 - fm) / h, float((fp - fm) / (2 * h))
    if abs(right - left) > 1e-2 * max(abs(right), abs(left), 1.0):
        return None  # a kink: the one-sided slopes disagree
    return cd


def cd_tolerance(cd: float, scale: float, h: float) -> float:
    return 1e-5 + 1e-4 * abs(cd) + 8 * sys.float_info.epsilon * scale / h


@dataclass
class Diff:
    """Where the student's number differs from the expected one, and whether only as an edge
    case: a right formula can raise, or give inf or nan, or another number at ±0, at an edge."""

    message: str
    edge: bool
    pt: Point
    ps: tuple[float, ...]
    i: int
    mine: Any
    expected: Any
    out: float = _pymath.nan  # the op's result there, for the hint


def is_edge_point(pt: Point, bounds: set[float]) -> bool:
    """±0, ±1e-8, beyond ±20 (exp overflows at 710, tanh(20) is 1.0), or the domain's bound."""
    return any(not _isfinite(c) or abs(c) <= 1e-6 or abs(c) >= 20.0 or c in bounds for c in pt)


def is_edge(pt: Point, mine: Any, expected: Any, bounds: set[float], settled: bool = False) -> bool:
    """A difference a right formula can make: at an edge point, raising (Python's math, where
    PyTorch gives inf or nan), or inf/nan where the other is not, or any number at ±0 (a kink's
    convention, as abs'(0)) unless the op's value there is ``settled`` (relu'(0) is 0 in
    micrograd 0.1.0, the lecture and PyTorch: 1 there is wrong).  At an ordinary point every
    difference is a wrong formula."""
    if not is_edge_point(pt, bounds):
        return False
    if isinstance(mine, Raised):
        return True
    finite = isinstance(mine, (int, float)) and _isfinite(mine)
    if expected is None or not finite or not _isfinite(expected):
        return True
    return not settled and any(c == 0.0 for c in pt)
