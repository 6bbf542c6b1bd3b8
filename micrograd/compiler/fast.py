"""Array rules for the replay: an op whose own rule, run on arrays, loops in Python over its
operands, done in a few whole-array numpy calls instead, with the same numbers bit for bit.

``Pick`` (an embedding row or a class's probability chosen by a traced id) compares the label
with each of its ``K`` operands in turn: ``3 K`` numpy calls forward and ``2 K`` backward on
arrays.  ``pick_forward`` and ``pick_backward`` stack the operands and make the same choice
in one comparison.  Used only while the op's rules are the engine's own (a patched rule is
replayed as patched).

>>> import numpy as np
>>> from micrograd.context import Context
>>> ctx = Context((False, True, True), ())
>>> pick_forward(ctx, np.array([1.0, 0.0, 5.0]), np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
array([ 4.,  2., nan])
>>> [g.tolist() for g in pick_backward(ctx, np.ones(3))[1:]]
[[-0.0, 1.0, nan], [1.0, -0.0, nan]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core.context import Context
from ..engine import Function
from ..ops.basic import Dot, Pick
from .errors import load_numpy

Rule = Callable[..., Any]


def pick_forward(ctx: Context, label: Any, *values: Any) -> Any:
    """``Pick.forward`` on arrays: ``values[label]`` per element, nan where the label is no index."""
    np = load_numpy()
    if type(label) is not np.ndarray or any(
        type(v) is not np.ndarray or v.shape != label.shape for v in values
    ):
        ctx.save_for_backward(None)
        return Pick.forward(ctx, label, *values)  # (numbers among the operands: the op's own loop)
    stacked = np.stack(values)
    hit = label == np.arange(len(values), dtype=np.float64).reshape((-1,) + (1,) * label.ndim)
    found = hit.any(axis=0)
    picked = np.take_along_axis(stacked, hit.argmax(axis=0)[None], axis=0)[0]
    missed = np.where(found, -0.0, np.nan)  # the others' gradient, as Pick's
    ctx.save_for_backward(hit, missed)
    return np.where(found, picked, np.nan)


def pick_backward(ctx: Context, g: Any) -> tuple[Any, ...]:
    """``Pick.backward`` on arrays: ``g`` to the picked operand, -0.0 to the others (nan for all
    where the label is no index), the label none."""
    saved = ctx.saved_tensors
    if saved[0] is None:
        return Pick.backward(ctx, g)
    np = load_numpy()
    hit, missed = saved
    return (None, *np.where(hit, g, missed))


def dot_block_forward(ctx: Context, block: Any) -> Any:
    """``Dot.forward`` on its operands stacked as one block ``(start, w0..wn-1, x0..xn-1)`` of rows:
    the products in one call, then added to ``start`` one after another, as the op's loop adds
    them (``(start + w0*x0) + w1*x1 + ...``: element-wise adds in its order, no reduction).  Two
    numpy calls a term become one, and the group gathers its operands in one ``take``, not one
    per operand (a one-name GPT step: its 14 Dot groups' forward measured 0.32 ms -> 0.15 ms)."""
    n = (len(block) - 1) // 2
    w, x = block[1 : n + 1], block[n + 1 :]
    ctx.save_for_backward(w, x)
    if n == 0:
        return block[0].copy()
    products = w * x
    total = block[0] + products[0]
    for k in range(1, n):
        total += products[k]
    return total


def dot_block_backward(ctx: Context, g: Any) -> tuple[Any, Any]:
    """``Dot.backward`` from ``dot_block_forward``'s saved rows: ``g`` (start's gradient), and the
    others' as rows of one array, ``g * x_k`` for each weight then ``g * w_k`` for each input,
    made in two calls."""
    np = load_numpy()
    w, x = ctx.saved_tensors
    n = len(w)
    out = np.empty((2 * n, *np.broadcast_shapes(np.shape(g), w.shape[1:])))
    np.multiply(g, x, out=out[:n])
    np.multiply(g, w, out=out[n:])
    return g, out


def block_rules(fn: type[Function]) -> tuple[Rule, Rule] | None:
    """Rules that take a group's operands as one block of rows (``dot_block_forward``), for an op
    whose rules are the engine's own, else None (the operands one by one, ``array_rules``)."""
    if fn is Dot and Dot.builtin_rules == (Dot.forward, Dot.backward):
        return dot_block_forward, dot_block_backward
    return None


def array_rules(fn: type[Function]) -> tuple[Rule, Rule]:
    """The forward and backward a group of ``fn`` runs on arrays: the rules of this module for an
    op they cover whose rules are the engine's own, else the op's ``forward`` and ``backward``."""
    if fn is Pick and Pick.builtin_rules == (Pick.forward, Pick.backward):
        return pick_forward, pick_backward
    return fn.forward, fn.backward
