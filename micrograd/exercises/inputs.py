"""What ``check`` was asked, turned into what it runs: the student's op and the reference as
callables, the parameters, how many inputs the op takes, its domain and the points to try.
Every argument is checked here, with an error that says what was wrong."""

from __future__ import annotations

import inspect
import math as _pymath
import random
from collections.abc import Callable, Sequence
from typing import Any

from ..engine import Function, Value
from .references import BINARY, DOMAIN_PREDICATES, DOMAINS, UNARY, Domain, Point

EDGE_POINTS = (0.0, -0.0, 1e-8, -1e-8, 1.0, -1.0, 20.0, -20.0, 1000.0, -1000.0)
EDGE_POINTS_BINARY = (0.0, 1e-8, -1.0, 1.0, 20.0, -1000.0, 1000.0)


def caller(fn: Any, what: str) -> Callable[..., Value]:
    if isinstance(fn, type) and issubclass(fn, Function):
        if fn is Function:
            raise TypeError(f"check: {what} must be a subclass of micrograd.Function, not Function itself")
        return fn.apply
    if isinstance(fn, type) or not callable(fn):
        raise TypeError(
            f"check: {what} must be a micrograd.Function subclass or a function of Values, "
            f"got {type(fn).__name__}: {fn!r}"
        )
    return fn  # type: ignore[no-any-return]


def resolve_like(like: Any) -> tuple[Callable[..., Value] | None, str]:
    if like is None:
        return None, ""
    if isinstance(like, str):
        ops = {**UNARY, **BINARY}
        if like not in ops:
            raise ValueError(f"check: unknown op like={like!r}; choose one of {', '.join(sorted(ops))}")
        return ops[like], like
    return caller(like, "like"), ""


def parse_params(params: Sequence[Any]) -> list[tuple[float, ...]]:
    if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
        raise TypeError(f"check: params must be a tuple of numbers (or a list of tuples), got {params!r}")
    items = list(params)
    sets = (
        [tuple(p) for p in items]
        if items and all(isinstance(p, (tuple, list)) for p in items)
        else [tuple(items)]
    )
    for s in sets:
        for p in s:
            if isinstance(p, bool) or not isinstance(p, (int, float)):
                raise TypeError(f"check: params must be numbers, got {type(p).__name__}: {p!r}")
        if len(s) != len(sets[0]):
            raise ValueError(f"check: every tuple of params must have the same length, got {params!r}")
    return sets


def count_inputs(
    fn: Any, like_name: str, points: Sequence[Any] | None, n_params: int
) -> tuple[int, list[str]]:
    """How many Value inputs ``fn`` takes, and the names of its arguments (for messages)."""
    target = getattr(fn, "forward", fn) if isinstance(fn, type) else fn
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        sig = None
    names: list[str] = []
    variadic = sig is None
    if sig is not None:
        for p in sig.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
                names.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                variadic = True
        if isinstance(fn, type):
            names = names[1:]  # ctx
    if not variadic:
        arity = len(names) - n_params
        if arity < 1:
            raise ValueError(
                f"check: {getattr(fn, '__name__', fn)} takes {len(names)} argument(s) and params gives "
                f"{n_params}; it needs at least one input"
            )
        return arity, names
    if like_name:
        arity = 2 if like_name in BINARY else 1
    elif points:
        first = points[0]
        arity = len(first) if isinstance(first, (tuple, list)) else 1
    else:
        raise ValueError("check: cannot tell how many inputs fn takes; pass like=... or points=[...]")
    if arity == 1:
        return arity, ["x"]
    return arity, ["a", "b"] if arity == 2 else [f"x{i}" for i in range(arity)]


def domain_of(domain: Any, like_name: str, arity: int) -> tuple[Domain, set[float]]:
    """The domain's predicate, and its finite bounds (edge points: log's 0, log1p's -1)."""
    if domain is None:
        if like_name in DOMAIN_PREDICATES:
            return DOMAIN_PREDICATES[like_name], set()
        domain = DOMAINS.get(like_name, (-_pymath.inf, _pymath.inf))
    if callable(domain):
        return domain, set()
    if not isinstance(domain, (tuple, list)) or (len(domain) != 2 and len(domain) != arity):
        raise ValueError(
            f"check: domain must be (low, high), one (low, high) per input, or a predicate; got {domain!r}"
        )
    pairs = list(domain) if all(isinstance(d, (tuple, list)) for d in domain) else [domain] * arity
    if len(pairs) != arity:
        raise ValueError(f"check: domain gives {len(pairs)} intervals for {arity} inputs: {domain!r}")
    bounds = []
    for pair in pairs:
        if len(pair) != 2 or not all(isinstance(b, (int, float)) for b in pair) or not pair[0] <= pair[1]:
            raise ValueError(
                f"check: each domain interval must be (low, high) with low <= high, got {pair!r}"
            )
        bounds.append((float(pair[0]), float(pair[1])))
    finite = {b for pair in bounds for b in pair if _pymath.isfinite(b)}
    return (lambda *xs: all(lo <= x <= hi for x, (lo, hi) in zip(xs, bounds))), finite


def points_of(points: Sequence[Any] | None, arity: int, inside: Domain) -> list[tuple[Point, bool]]:
    """(point, is an edge point) pairs; an edge point is one of the domain's awkward places."""
    if points is not None:
        out = []
        for p in points:
            pt = tuple(float(v) for v in p) if isinstance(p, (tuple, list)) else (float(p),)
            if len(pt) != arity:
                raise ValueError(f"check: point {p!r} has {len(pt)} number(s), the op takes {arity}")
            out.append((pt, False))
        if not out:
            raise ValueError("check: points is empty")
        return out
    rng = random.Random(0)
    ordinary: list[Point] = []
    tries = 0
    while len(ordinary) < 24 and tries < 10000:
        tries += 1
        pt = tuple(round(rng.uniform(-3.0, 3.0), 3) for _ in range(arity))
        if safe_inside(inside, pt):
            ordinary.append(pt)
    tries = 0
    while len(ordinary) < 24 and tries < 10000:  # a domain away from [-3, 3]: look further out
        tries += 1
        pt = tuple(round(rng.uniform(-1000.0, 1000.0), 1) for _ in range(arity))
        if safe_inside(inside, pt):
            ordinary.append(pt)
    if not ordinary:
        raise ValueError("check: found no point inside the domain; pass points=[...]")
    edges = EDGE_POINTS if arity == 1 else EDGE_POINTS_BINARY
    edge_pts: list[Point] = [(e,) for e in edges] if arity == 1 else []
    if arity == 2:
        edge_pts = [(a, b) for a in edges for b in edges]
    elif arity > 2:
        edge_pts = [(e,) * arity for e in edges]
    return [(p, False) for p in ordinary] + [(p, True) for p in edge_pts if safe_inside(inside, p)]


def safe_inside(inside: Domain, pt: Point) -> bool:
    try:
        return bool(inside(*pt))
    except Exception as exc:
        raise ValueError(f"check: the domain predicate raised at {pt}: {exc!r}") from exc
