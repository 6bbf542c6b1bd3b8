"""The lecture's chain of ``*`` and ``+`` nodes for one node that adds many terms, as the pictures
can show it (``explore(..., expand_dot=True)``, ``draw_dot(..., expand_dot=True)``, or a click in
the explorer).

``weighted_sum`` makes ONE ``dot`` node of ``start + w0*x0 + w1*x1 + ...``, and ``micrograd.sum``
(a neuron's ``micrograd.dot``) ONE ``+`` node of ``start + v0 + v1 + ...``; the lecture builds a
``*`` node per product and a ``+`` node per addition.  A ``Chain`` is that chain for one such
node: new Values for the products and partial sums (``links``), the node itself its last ``+``.
Its numbers are the engine's, bit for bit: the engine adds a dot's or a sum's terms left to
right, ``(start + w0*x0) + w1*x1``, so each partial sum here is computed with the same float
operations in the same order, every link's gradient is the node's own (a sum passes its gradient
unchanged), and what each operand receives is what the engine gave it at the node's step.

A node reading one Value in two of its terms is left whole: the chain would add that Value's
gradient in another order than the engine does, and could differ in the last bit.

>>> from micrograd import Value
>>> from micrograd.ops import weighted_sum
>>> w0, w1, x0, x1 = Value(2.0), Value(3.0), Value(4.0), Value(5.0)
>>> y = weighted_sum([w0, w1], [x0, x1], start=1.0)
>>> c = chain_of(y)
>>> [(v.op, v.data) for v in c.links], c.operands == (c.links[1], c.links[2]), y.data
([('*', 8.0), ('+', 9.0), ('*', 15.0)], True, 24.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine import Value

__all__ = ["Chain", "chain_of", "chain_steps", "expandable"]

#: The ops drawn as a chain: weighted_sum's ``dot`` and the n-ary ``+`` of micrograd.sum
DOT, SUM = "dot", "+"


@dataclass(frozen=True)
class Chain:
    """``node`` drawn as the lecture's chain: ``links``, the products and partial sums it adds, in
    forward order; ``operands``, what the node's own last ``+`` adds (the last partial sum and
    the last term); ``reads``, for each link and the node, its operands: a link, or the position
    of one of ``node``'s children (what the engine gave that child is what it receives)."""

    node: Value
    links: tuple[Value, ...]
    operands: tuple[Value, Value]
    reads: dict[Value, tuple[Value | int, ...]]


def expandable(v: Value, hidden: frozenset[Value] = frozenset()) -> bool:
    """Whether ``v`` can be drawn as a chain: a ``dot`` of two or more products, or a ``+`` of
    three or more drawn terms, that reads no Value in two of its terms (a product ``w*w`` reads
    its one Value in one term)."""
    kids = v.children
    if v.op == DOT and len(kids) >= 5 and len(kids) % 2 == 1:
        n = (len(kids) - 1) // 2
        terms = [(kids[0],)] + [(kids[1 + k], kids[1 + n + k]) for k in range(n)]
    elif v.op == SUM and len([c for c in kids if c not in hidden]) >= 3:
        terms = [(c,) for c in kids]
    else:
        return False
    seen: set[Value] = set()
    for term in terms:
        if any(c in seen for c in set(term)):
            return False
        seen.update(term)
    return True


def chain_of(v: Value, hidden: frozenset[Value] = frozenset()) -> Chain:
    """The chain ``v`` is drawn as (``expandable(v, hidden)`` must hold): a sum's ``hidden`` start
    of 0 is left out of the chain's first ``+`` as it is out of the node's picture, but added to
    its number, as the engine adds it."""
    if not expandable(v, hidden):
        raise ValueError(f"chain_of: a {v.op!r} node of {len(v.children)} operands has no chain to draw")
    kids = v.children
    links: list[Value] = []
    reads: dict[Value, tuple[Value | int, ...]] = {}
    # what the chain adds so far: its Value, and how the step reads it (a link, or a child's position)
    acc: Value = kids[0]
    acc_read: Value | int = 0
    number = kids[0].data
    terms: list[tuple[Value, Value | int]] = []
    if v.op == DOT:
        n = (len(kids) - 1) // 2
        for k in range(n):
            w, x = kids[1 + k], kids[1 + n + k]
            product = Value(w.data * x.data, (w, x), "*")  # what the engine's product computes
            product.grad = v.grad  # a link's gradient is its node's: each + passes it unchanged
            reads[product] = (1 + k, 1 + n + k)
            terms.append((product, product))
    else:
        rest = list(range(1, len(kids)))
        if kids[0] in hidden:  # 0 + a + b drawn as a + b, its number still the engine's
            number = number + kids[1].data
            acc, acc_read, rest = kids[1], 1, rest[1:]
        terms = [(kids[i], i) for i in rest]
    for k, (term, read) in enumerate(terms):
        number = number + term.data  # left to right, as the engine's forward adds them
        if isinstance(read, Value):
            links.append(term)
        if k == len(terms) - 1:
            break
        partial = Value(number, (acc, term), "+")
        partial.grad = v.grad
        links.append(partial)
        reads[partial] = (acc_read, read)
        acc = acc_read = partial
    reads[v] = (acc_read, read)
    if number != v.data and not (number != number and v.data != v.data):
        raise RuntimeError(f"chain_of: the chain adds up to {number!r}, the engine to {v.data!r}")
    return Chain(v, tuple(links), (acc, term), reads)


def chain_steps(
    chain: Chain,
    upstream: float,
    received: Sequence[tuple[float, float, float]],
    step: Callable[[Value, float, list[tuple[Value, float, float, float]]], None],
) -> None:
    """The backward steps of ``chain``'s node, link by link, from its last ``+`` back to its first
    products: ``received[i]``, what the engine's step of the node gave its child ``i`` (local
    derivative, contribution, total so far); each link receives the node's ``upstream`` gradient
    (local derivative 1).  ``step(node, upstream, [(operand, local, contribution, total)])`` is
    called once per step, in backward order."""
    kids = chain.node.children
    order = [*chain.links, chain.node]
    for v in reversed(order):
        parts = []
        for r in chain.reads[v]:
            if isinstance(r, Value):
                parts.append((r, 1.0, upstream, upstream))
            else:
                parts.append((kids[r], *received[r]))
        step(v, upstream, parts)
