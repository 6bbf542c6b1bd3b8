"""Backpropagation: the graph walk and the functional API (``backward``, ``grad``).

Reverse mode in three lines: order the graph so that every node comes after
all the nodes computed from it (a reverse topological order), seed the output
with d(out)/d(out) = 1, then visit the nodes in that order, each handing its
gradient times its local derivatives down to its operands (the chain rule),
where contributions from several uses of a node add up.

The walk is iterative (an explicit stack, no recursion), so a chain of a
million nodes is fine.  Gradients of one pass are kept in a dict, keyed by
node, and added into ``.grad`` only at the end: calling ``backward`` twice on
the same graph gives exactly twice the gradients, as in PyTorch.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .engine import Number, Value, _leaf, _to_float

Values = Value | Sequence[Value]


def topological_order(roots: Values) -> list[Value]:
    """Every node reachable from ``roots``, each after all of its operands
    (leaves first, roots last): the order of the forward computation.

    >>> a = Value(1.0); b = a * 2; c = b + a
    >>> [v.data for v in topological_order(c)]
    [1.0, 2.0, 2.0, 3.0]
    """
    return list(_walk(_as_tuple(roots, "roots")))


def _walk(roots: tuple[Value, ...]) -> dict[Value, float]:
    """The nodes reachable from ``roots`` in topological order, as the keys of a
    dict whose values (all 0.0) are ready to accumulate gradients in."""
    order: dict[Value, float] = {}  # insertion-ordered; doubles as the visited set
    for root in roots:
        if root in order:
            continue
        # Depth-first, without recursion: `path` holds the nodes being expanded and
        # `pending` an iterator over each one's operands; a node is emitted once all
        # of its operands have been.
        path = [root]
        pending = [iter(root._prev)]
        while pending:
            for child in pending[-1]:
                if child not in order:  # (a node still being expanded can't recur: the graph is acyclic)
                    path.append(child)
                    pending.append(iter(child._prev))
                    break
            else:
                order[path.pop()] = 0.0
                pending.pop()
    return order


def _propagate(grads: dict[Value, float], seeds: dict[Value, Any]) -> dict[Value, float]:
    """Float gradients of the seeded roots with respect to every node of ``grads``
    (the zero-filled dict of ``_walk``, in topological order), filled in place."""
    for root, seed in seeds.items():
        grads[root] += seed
    for node in reversed(grads):
        rule = node._rule
        if rule is None:
            continue
        g = grads[node]
        prev = node._prev
        # Unrolled for the common arities: this loop is the hot path of training.
        if len(prev) == 2:
            a, b = prev
            ga, gb = rule(g, node.data, a.data, b.data)
            grads[a] += ga
            grads[b] += gb
        elif len(prev) == 1:
            (a,) = prev
            (ga,) = rule(g, node.data, a.data)
            grads[a] += ga
        else:
            for child, gc_ in zip(prev, rule(g, node.data, *[c.data for c in prev])):
                grads[child] += gc_
    return grads


def _propagate_graph(order: dict[Value, float], seeds: dict[Value, Any]) -> dict[Value, Any]:
    """Like ``_propagate``, but the rules run on Values, so the gradients are
    themselves nodes of a graph that can be differentiated again."""
    grads: dict[Value, Any] = dict(seeds)
    for node in reversed(order):
        rule = node._rule
        g = grads.get(node)
        if rule is None or g is None:
            continue
        if not isinstance(g, Value):
            g = _leaf(g)
        for child, gc_ in zip(node._prev, rule(g, node, *node._prev)):
            acc = grads.get(child)
            grads[child] = gc_ if acc is None else acc + gc_
    return grads


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a graph walk.

    The graph has no reference cycles, so the collector has nothing to find in
    it, yet on a large graph it would walk every node again and again.
    Restored on exit, exceptions included; never switched on if it was off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def backward(root: Value, gradient: Number = 1.0) -> None:
    """Add d(root)/d(node) * gradient into ``node.grad`` for every node of the graph.

    >>> x = Value(2.0); y = x * x * x
    >>> backward(y); x.grad
    12.0
    """
    if not isinstance(root, Value):
        raise TypeError(f"backward() needs a Value, got {type(root).__name__}: {root!r}")
    seed = _to_float(gradient, "backward()'s gradient")
    with _collector_paused():
        grads = _propagate(_walk((root,)), {root: seed})
        for node, g in grads.items():
            node.grad += g


def grad(
    outputs: Values,
    inputs: Values,
    grad_outputs: Sequence[Any] | Number | Value | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, as ``torch.autograd.grad``.

    Returns a tuple with one gradient per input: floats, or with
    ``create_graph=True`` Values that form a graph of their own, so that they
    can be differentiated again (second derivatives, Hessian-vector products,
    gradient penalties).  ``.grad`` attributes are left untouched.
    ``grad_outputs`` weights each output (default 1.0): the result is then the
    vector-Jacobian product.  An input that the outputs do not depend on is an
    error, unless ``allow_unused=True``, which gives None for it.

    >>> x = Value(3.0)
    >>> (g,) = grad(x**3, [x], create_graph=True)   # 3 x**2 = 27, as a Value
    >>> grad(g, [x])                                # 6 x = 18
    (18.0,)
    """
    outs = _as_tuple(outputs, "outputs")
    ins = _as_tuple(inputs, "inputs")
    if grad_outputs is None:
        weights: tuple[Any, ...] = (1.0,) * len(outs)
    elif isinstance(grad_outputs, (Value, int, float)):
        weights = (grad_outputs,)
    else:
        weights = tuple(grad_outputs)
    if len(weights) != len(outs):
        raise ValueError(f"grad_outputs has {len(weights)} entries but there are {len(outs)} outputs")
    seeds: dict[Value, Any] = {}
    for out, w in zip(outs, weights):
        if not create_graph:
            w = _to_float(w.data if isinstance(w, Value) else w, "grad_outputs")
        elif not isinstance(w, Value):
            w = _leaf(_to_float(w, "grad_outputs"))
        seeds[out] = w if out not in seeds else seeds[out] + w
    with _collector_paused():
        reachable = _walk(outs)
        grads = _propagate_graph(reachable, seeds) if create_graph else _propagate(dict(reachable), seeds)
    result: list[Any] = []
    for i, x in enumerate(ins):
        if x not in reachable:
            if not allow_unused:
                raise ValueError(
                    f"input {i} ({x!r}) was not used to compute the outputs; "
                    "pass allow_unused=True to get None for it"
                )
            result.append(None)
            continue
        g = grads.get(x, 0.0)
        if create_graph and not isinstance(g, Value):
            g = _leaf(g)  # reachable, but every path to it had a zero-by-rule gradient
        result.append(g)
    return tuple(result)


def _as_tuple(values: Values, what: str) -> tuple[Value, ...]:
    items = (values,) if isinstance(values, Value) else tuple(values)
    if not items:
        raise ValueError(f"{what} is empty")
    for i, v in enumerate(items):
        if not isinstance(v, Value):
            raise TypeError(f"{what}[{i}] must be a Value, got {type(v).__name__}: {v!r}")
    return items
