"""Functions of a list of Values: ``max``, ``min`` and ``logsumexp`` (each ONE node of the
graph, a ``Function`` of n operands), and ``softmax`` and ``log_softmax`` (a few nodes each,
built from ``logsumexp``'s pieces).  ``micrograd.math.max`` etc. call these.

``max`` and ``min`` are ``torch.max`` and ``torch.min`` of a whole tensor: nan if any entry
is nan, and the gradient split evenly among the entries that equal the result (the nan
entries if it is nan), as ``torch.amax`` splits it too.  (``torch.max(t, dim)`` would give
it all to one index instead; here two Values that tie get half each, as ``maximum`` gives.)

>>> from micrograd import Value
>>> a, b, c = Value(1.0), Value(3.0), Value(3.0)
>>> top = max([a, b, c]); top.backward()
>>> top.data, a.grad, b.grad, c.grad
(3.0, 0.0, 0.5, 0.5)
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

from .._core.context import FORWARD_CTX, Context
from ..engine import Function, Value, node, operand
from ..math.generic import div, equal, exp, expm1, isnan, log, log1p, where
from .basic import DetachedMax, Sum
from .basic import sum as sum_node


def _entries(values: Any, what: str) -> list[Any]:
    """``values`` as a non-empty list of Values, floats and arrays; a clear error otherwise."""
    if isinstance(values, (Value, numbers.Number, str)) or not isinstance(values, Iterable):
        raise TypeError(
            f"micrograd.math.{what} takes a list of Values (or numbers), got {type(values).__name__}: "
            f"{values!r}; write {what}([a, b, c])"
        )
    xs = list(values)
    if not xs:
        raise ValueError(f"micrograd.math.{what} of an empty list: it needs at least one value")
    out = []
    for i, x in enumerate(xs):
        if isinstance(x, Value) or type(x) is float:
            out.append(x)
        elif isinstance(x, numbers.Real):
            out.append(float(x))
        elif getattr(x, "ndim", None) is not None and not isinstance(x, str):
            out.append(x)  # a numpy array (micrograd.math's functions run element by element)
        else:
            raise TypeError(
                f"micrograd.math.{what}: entry {i} is {type(x).__name__} ({x!r}); "
                "the entries must be Values, numbers or numpy arrays"
            )
    return out


def _has_values(xs: list[Any]) -> bool:
    return any(isinstance(x, Value) for x in xs)


def _on_graph(fn: type[Function], xs: list[Any]) -> Value:
    """``fn`` of ``xs`` as one node, numbers among them constants of the graph."""
    operands = tuple([operand(x) for x in xs])
    return node(fn, fn.forward(FORWARD_CTX, *[v.data for v in operands]), operands)


def _largest(xs: tuple[Any, ...]) -> Any:
    """``torch.max`` of ``xs``: nan if any is nan; of 0.0 and -0.0, 0.0 (IEEE 754's maximum: torch's
    own sign there follows its vector lanes, and torch.max and torch.amax disagree)."""
    top = xs[0]
    for x in xs[1:]:
        # (once top is nan, it stays; 0.0 + -0.0 is 0.0, and -0.0 + -0.0 is -0.0)
        top = where((x > top) | isnan(x), x, where((x == 0.0) & (top == 0.0), top + x, top))
    return top


def _smallest(xs: tuple[Any, ...]) -> Any:
    """``torch.min`` of ``xs``: nan if any is nan; of 0.0 and -0.0, -0.0 (IEEE 754's minimum)."""
    low = xs[0]
    for x in xs[1:]:
        low = where((x < low) | isnan(x), x, where((x == 0.0) & (low == 0.0), -(-low - x), low))
    return low


def _split_among_ties(ctx: Context, g: Any) -> tuple[Any, ...]:
    """``g`` shared evenly by the inputs equal to the output (the nan inputs if it is nan)."""
    out = ctx.output
    missing = isnan(out)
    chosen = [where(missing, isnan(x), equal(x, out)) for x in ctx.inputs]
    count: Any = 0.0
    for c in chosen:
        count = count + where(c, 1.0, 0.0)
    share = div(g, count)
    return tuple([where(c, share, 0.0) for c in chosen])


class Max(Function):
    name = "max"
    builtin = True

    @staticmethod
    def forward(ctx: Context, *xs: Any) -> Any:
        return _largest(xs)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return _split_among_ties(ctx, g)


class Min(Function):
    name = "min"
    builtin = True

    @staticmethod
    def forward(ctx: Context, *xs: Any) -> Any:
        return _smallest(xs)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        return _split_among_ties(ctx, g)


class LogSumExp(Function):
    """log(e**x0 + e**x1 + ...) as one node, computed as ``torch.logsumexp``: the largest
    entry m taken out first (m = 0 if it is infinite), log(sum of e**(x - m)) + m."""

    name = "logsumexp"
    builtin = True

    @staticmethod
    def forward(ctx: Context, *xs: Any) -> Any:
        top = _largest(xs)
        shift = where(equal(abs(top), float("inf")), 0.0, top)
        # The largest entry's term is e**0 = 1, so the sum is 1 + rest and log rounds a small rest
        # away (log(1 + 1e-14) keeps one digit).  Summing expm1(0) = 0 for it and log1p of the
        # total keeps every digit; expm1 keeps the term's derivative, e**0, too.
        rest, seen = 0.0, False
        for x in xs:
            s = x - shift
            first = where(seen, False, s == 0.0)  # (the first entry equal to the shift, on arrays too)
            rest = rest + where(first, expm1(s), exp(s))
            seen = seen | first
        return where(seen, log1p(rest), log(rest)) + shift  # (nothing found: all -inf, or an inf shift)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple[Any, ...]:
        out = ctx.output
        return tuple([g * exp(x - out) for x in ctx.inputs])  # the softmax, e**(x - logsumexp)


def max(values: Iterable[Any]) -> Any:  # noqa: A001 - torch.max's name
    """The largest entry: a Value (one node) if any entry is a Value, else a number or array.

    >>> max([1.0, Value(3.0)])
    Value(data=3.0, grad=0.0)
    """
    xs = _entries(values, "max")
    return _on_graph(Max, xs) if _has_values(xs) else Max.forward(FORWARD_CTX, *xs)


def min(values: Iterable[Any]) -> Any:  # noqa: A001 - torch.min's name
    """The smallest entry, as ``max`` takes the largest.

    >>> min([1.0, 3.0])
    1.0
    """
    xs = _entries(values, "min")
    return _on_graph(Min, xs) if _has_values(xs) else Min.forward(FORWARD_CTX, *xs)


def logsumexp(values: Iterable[Any]) -> Any:
    """log(sum of e**v), one node over Values.

    >>> logsumexp([Value(0.0), Value(0.0)]).data == log(2.0)
    True
    """
    xs = _entries(values, "logsumexp")
    return _on_graph(LogSumExp, xs) if _has_values(xs) else LogSumExp.forward(FORWARD_CTX, *xs)


def _shifted(xs: list[Any]) -> list[Any]:
    """Each entry minus the largest (detached: softmax does not depend on it), as PyTorch's
    softmax and log_softmax compute them."""
    if _has_values(xs):
        top: Any = DetachedMax.apply(*[operand(x) for x in xs])
    else:
        top = DetachedMax.forward(FORWARD_CTX, *xs)
    return [x - top for x in xs]


def _total(terms: list[Any]) -> Any:
    """Their sum, left to right: one node over Values."""
    if _has_values(terms):
        return sum_node(terms[1:], start=terms[0])
    return Sum.forward(FORWARD_CTX, *terms)


def softmax(values: Iterable[Any]) -> list[Any]:
    """e**(v - m) / sum of e**(v - m), m the largest entry: Values over Values.

    >>> ps = softmax([Value(0.0), Value(0.0)]); [p.data for p in ps]
    [0.5, 0.5]
    """
    terms = [exp(s) for s in _shifted(_entries(values, "softmax"))]
    s = _total(terms)
    return [div(t, s) for t in terms]


def log_softmax(values: Iterable[Any]) -> list[Any]:
    """(v - m) - logsumexp(v - m), m the largest entry, as ``torch.log_softmax``; the logsumexp is
    the accurate one above, so a dominating entry keeps its small log-probability to the last digit.

    >>> [round(p.data, 4) for p in log_softmax([Value(0.0), Value(0.0)])]
    [-0.6931, -0.6931]
    """
    xs = _shifted(_entries(values, "log_softmax"))
    lse = _on_graph(LogSumExp, xs) if _has_values(xs) else LogSumExp.forward(FORWARD_CTX, *xs)
    return [s - lse for s in xs]
