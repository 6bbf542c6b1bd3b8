"""``backward()``'s bookkeeping around the chain rule: adding the gradients into ``.grad`` (the
sign of a zero as PyTorch gives it) and keeping Python's cyclic garbage collector off while a
backward pass runs, safely across threads.  Knows nodes by their slots; does not import the engine.
"""

from __future__ import annotations

import gc
import operator
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import repeat
from math import copysign
from typing import Any

from .coerce import is_value
from .nodes import grad_holds_value_error

# PyTorch's rule for the sign of a zero in ``.grad``: the first gradient into a ``.grad`` is taken
# as it is, so a first -0.0 keeps its sign; the ones after it are added, and 0.0 + -0.0 is 0.0.
# A .grad of 0.0 (a new Value's, ``p.grad = 0.0``, ``zero_grad()``'s) holds no gradient yet, as
# PyTorch's None.  So a .grad whose gradients summed to exactly 0.0 needs telling apart from it:
# it holds ZERO_SUM, a float 0.0 too, but this one object.  (Only a zero added to a zero needs the
# mark: any other sum has its own sign.)
ZERO_SUM = float("0")


def accumulate_grad(node: Any, g: Any) -> None:
    """``node.grad += g``, as PyTorch accumulates a gradient into ``.grad``, zeros' signs included
    (``accumulate_grads`` for one node).

    >>> import math
    >>> from micrograd import Value
    >>> x = Value(1.0)
    >>> accumulate_grad(x, -0.0); math.copysign(1.0, x.grad)  # the first gradient, as it is
    -1.0
    >>> accumulate_grad(x, 0.0); accumulate_grad(x, -0.0); math.copysign(1.0, x.grad)  # a sum
    1.0
    >>> accumulate_grad(x, 2.5); x.grad
    2.5
    """
    accumulate_grads({node: g})


def accumulate_grads(grads: dict[Any, Any]) -> None:
    """``node.grad += g`` for each node and its gradient ``g`` in ``grads`` (None: no gradient reached
    it), as PyTorch accumulates a gradient into ``.grad``, zeros' signs included: ``backward()``'s
    last step (PyTorch's ``AccumulateGrad``).  One pass after the chain-rule loop, the rule written
    out in it: a call of ``accumulate_grad`` per node cost the moons training step 1.7% more
    instructions (after its first step most of its gradients are zeros, which take the sign test).

    >>> from micrograd import Value
    >>> x, y = Value(1.0), Value(2.0)
    >>> accumulate_grads({x: 2.5, y: None}); x.grad, y.grad
    (2.5, 0.0)
    """
    for node, g in grads.items():
        if g is None:
            continue
        so_far = node.grad
        if so_far or so_far is ZERO_SUM:  # gradients already there: add g to them
            node.grad = add_to_grad(node, g)
        elif g or copysign(1.0, g) < 0:  # no gradient yet (0.0, -0.0, None, 0): g as it is, -0.0 too
            node.grad = g
        else:  # no gradient yet, and g is +0.0: now a sum of zeros (a -0.0 added next gives 0.0)
            node.grad = ZERO_SUM


def add_to_grad(node: Any, g: Any) -> Any:
    """``node.grad`` plus ``g``, for a ``.grad`` that holds gradients already (``accumulate_grad``'s
    first case): a float, micrograd 0.1.0's int, or a Value, refused with a clear error.

    >>> from micrograd import Value
    >>> x = Value(1.0)
    >>> x.grad = 2.0; add_to_grad(x, 0.5), add_to_grad(x, -2.0) is ZERO_SUM
    (2.5, True)
    """
    so_far = node.grad
    if type(so_far) is not float:
        if is_value(so_far):  # p.grad = <a Value>: adding to it would grow a graph
            raise grad_holds_value_error(node)
        return so_far + g  # an int (micrograd 0.1.0's ``p.grad = 0``, summed into): added as it is
    if so_far or g:
        return so_far + g or ZERO_SUM  # a sum that comes to 0.0 (x + -x) is a sum of zeros
    return ZERO_SUM  # a sum of zeros plus a zero: 0.0 + -0.0 is 0.0


def accumulate_rows(start: Any, summed: Any, rows: Any, reached: Any) -> tuple[Any, Any]:
    """``accumulate_grad``'s rule on arrays, for many backward passes at once: ``start`` (the .grads)
    and ``summed`` (which of them hold a sum), then each pass's gradients ``rows[k]``, added where
    ``reached[k]`` holds, one pass after the other.  The .grads after, and which hold a sum.

    One ordered sum per .grad, first row to last: a .grad that holds no gradient yet (a plain
    0.0) starts from -0.0, which takes its first gradient as it is (-0.0 + g is g, zeros' signs
    included), any other from itself; a pass that does not reach it adds -0.0, which changes
    nothing.  So each .grad goes through the very additions of the pass-by-pass loop.

    >>> acc, summed = accumulate_rows([0.0, 1.0], [False, False], [[-0.0, 2.0], [5.0, 3.0]],
    ...                               [[True, True], [False, True]])
    >>> acc.tolist(), summed.tolist()
    ([-0.0, 6.0], [True, True])
    """
    import numpy as np

    acc, summed = np.asarray(start, dtype=np.float64), np.asarray(summed, dtype=bool)
    rows, reached = np.asarray(rows, dtype=np.float64), np.asarray(reached, dtype=bool)
    if not len(rows):
        return acc.copy(), summed.copy()
    fresh = (acc == 0.0) & ~np.signbit(acc) & ~summed  # a plain 0.0: no gradient yet
    terms = np.empty((len(rows) + 1, len(acc)))
    terms[0] = np.where(fresh, -0.0, acc)
    terms[1:] = rows
    np.copyto(terms[1:], -0.0, where=~reached)
    # numpy adds the outer axis of a C-ordered array row by row (from its initial value, else
    # from 0.0, which would turn a -0.0 into 0.0), but a single column pairwise
    with np.errstate(all="ignore"):  # inf and nan are sums here, as in the engine
        if len(acc) > 1:
            total = np.add.reduce(terms, axis=0, initial=-0.0)
        else:
            total = np.add.accumulate(terms[:, 0])[-1:]
    any_pass = reached.any(axis=0)
    return np.where(any_pass, total, acc), summed | any_pass


def add_rows_into_grad(nodes: Any, rows: Any, reached: Any) -> tuple[list[Any], Any] | None:
    """What ``backward()`` would leave in each node's ``.grad`` after passes whose gradients are
    ``rows[k][i]`` (reaching ``nodes[i]`` where ``reached[k][i]``), in one go: a compiled step's
    gradients added as the eager loop adds them, zeros' signs included.  Returns the ``.grad``s
    now, as the very objects and as a float64 array (for a caller that keeps them), or None
    where they were added one by one (a ``.grad`` not a float).

    >>> from micrograd import Value
    >>> x = Value(1.0)
    >>> objs, array = add_rows_into_grad([x], [[-0.0], [0.0], [-0.0]], [[True], [True], [True]])
    >>> x.grad, copysign(1.0, x.grad), x.grad is ZERO_SUM, objs[0] is x.grad, array.tolist()
    (0.0, 1.0, True, True, [0.0])
    """
    import numpy as np

    grads: Any = [n.grad for n in nodes]
    rows, reached = np.asarray(rows, dtype=np.float64), np.asarray(reached, dtype=bool)
    if not grads or not rows.size:
        return None  # (no nodes, or no passes: nothing to add)
    rows = rows.reshape(-1, len(grads))  # (passes, nodes)
    reached = reached.reshape(rows.shape)
    touched = reached.any(axis=0)
    zero = grads[0]
    if (
        type(zero) is float
        and not zero
        and zero is not ZERO_SUM
        and all(map(operator.is_, grads, repeat(zero)))
    ):
        # every .grad the same fresh zero (as ``zero_grad()`` leaves them): none holds a sum, so
        # nothing to pack or look up (on microgpt's 4,192 parameters, 0.4 ms less a step)
        start, marked = np.zeros(len(grads)), np.zeros(len(grads), dtype=bool)
    elif not set(map(type, grads)) <= {float}:  # None (no gradient yet), an int, a Value: one by one
        for row, hits in zip(rows.tolist(), reached.tolist()):
            for node, g, hit in zip(nodes, row, hits):
                if hit:
                    accumulate_grad(node, g)
        return None
    else:
        start = np.frombuffer(struct.pack(f"{len(grads)}d", *grads))  # (a third of np.asarray's time)
        # Whether a 0.0 .grad holds a sum (ZERO_SUM) or none yet changes only a -0.0 first
        # gradient (0.0 + -0.0 is 0.0, a fresh .grad takes -0.0): only those few are looked up.
        first = rows[0] if len(rows) == 1 else rows[reached.argmax(axis=0), np.arange(len(start))]
        which = touched & (start == 0.0) & ~np.signbit(start) & (first == 0.0) & np.signbit(first)
        marked = np.zeros(len(start), dtype=bool)
        for i in np.flatnonzero(which).tolist():
            marked[i] = grads[i] is ZERO_SUM
    acc, _ = accumulate_rows(start, marked, rows, reached)
    values = acc.tolist()
    for i in np.flatnonzero(touched & (acc == 0.0) & ~np.signbit(acc)).tolist():
        values[i] = ZERO_SUM  # a zero that is a sum (rare: one pass in a few)
    # a node no pass reached keeps its .grad, the very object (ZERO_SUM stays the mark)
    for i in np.flatnonzero(~touched).tolist():
        values[i] = grads[i]
    for node, value in zip(nodes, values):  # (all of them: one zip, faster than an indexed loop over most)
        node.grad = value
    return values, acc


# How many backward passes are running, in all threads, and whether the collector was on when the
# first of them began; changed under the lock only.
_passes = [0, False]
_passes_lock = threading.Lock()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic collector off while any backward pass runs, back on when the last one ends,
    if it was on.  The graph has no reference cycles, so the collector would only walk its nodes
    again and again: a 300,000-node chain's backward took 1.49 s with it, 0.91 s without.  One
    counter under a lock, so that threads never leave it off (reading ``gc.isenabled()`` and
    switching it off in two steps did, 2 runs in 40).

    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    with _passes_lock:
        if _passes[0] == 0:
            _passes[1] = gc.isenabled()
            gc.disable()
        _passes[0] += 1
    try:
        yield
    finally:
        with _passes_lock:
            _passes[0] -= 1
            if _passes[0] == 0 and _passes[1]:
                gc.enable()
