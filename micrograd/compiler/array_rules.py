"""Array rules for the replay: an op whose own rule, run on arrays, loops in Python over its
operands, done in a few whole-array numpy calls instead, with the same numbers bit for bit.

``Pick`` (an embedding row or a class's probability chosen by a traced id) compares the label
with each of its ``K`` operands in turn: ``3 K`` numpy calls forward and ``2 K`` backward on
arrays.  ``pick_forward`` and ``pick_backward`` stack the operands and make the same choice
in one comparison.  Used only while the op's rules are the engine's own (a patched rule is
replayed as patched).

>>> import numpy as np
>>> from micrograd._core.context import Context
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
from ..ops.basic import DetachedMax, Dot, Pick
from .errors import load_numpy

Rule = Callable[..., Any]
RuleTable = tuple[tuple[type[Function], tuple[Rule, Rule]], ...]  # ops, each with its forward and backward


def pick_forward(ctx: Context, label: Any, *values: Any) -> Any:
    """``Pick.forward`` on arrays: ``values[label]`` per element, nan where the label is no index."""
    np = load_numpy()
    if type(label) is not np.ndarray or any(
        type(v) is not np.ndarray or v.shape != label.shape for v in values
    ):
        ctx.save_for_backward(None)
        return Pick.forward(ctx, label, *values)  # (numbers among the operands: the op's own loop)
    return pick_stacked(ctx, label, np.stack(values))


def pick_stacked(ctx: Context, label: Any, stacked: Any) -> Any:
    """``pick_forward`` on the values stacked as the rows of one array."""
    np = load_numpy()
    hit = label_hits(label, len(stacked))
    found = hit.any(axis=0)
    # each element's picked row, read through one index pair (row, element) per element: the values
    # take_along_axis reads, in half its time (it builds an index per axis; 12 -> 6.5 us on 128 nodes)
    at = hit.argmax(axis=0)
    n = at.size
    picked = stacked.reshape(len(stacked), n)[at.reshape(n), np.arange(n)].reshape(at.shape)
    save_picked(ctx, at, found, len(stacked))
    return np.where(found, picked, np.nan)


def save_picked(ctx: Context, at: Any, found: Any, count: int) -> None:
    """What ``picked_gradients`` reads: each element's picked row ``at`` (0 where none), where a
    row was picked (``found``), the others' gradient (-0.0, nan for all where none, as Pick's)
    and the count of rows.  The rows, not a mask over every row and element: the backward then
    writes ``g`` once per element, not through a ``K``-row mask (the embedding's Pick of a 16-name
    GPT step, 176 nodes of 27 rows: forward 74 -> 57 us, backward 90 -> 56 us; the loss's, 11
    nodes: backward 9 -> 16 us; medians of 2,000 interleaved calls)."""
    np = load_numpy()
    ctx.save_for_backward(at, found, np.where(found, -0.0, np.nan), count)


def picked_gradients(ctx: Context, g: Any, out: Any = None) -> Any:
    """The picked operands' gradients from ``save_picked``'s: ``g`` to each element's picked row,
    -0.0 to the others (nan to all where none was picked), one row per operand; into ``out``
    when given.  The others' gradient is written first, then each element's picked row.

    >>> import numpy as np
    >>> ctx = Context((False, True, True), ())
    >>> save_picked(ctx, np.array([1, 0, 0]), np.array([True, True, False]), 2)
    >>> picked_gradients(ctx, np.array([5.0, -0.0, 7.0])).tolist()
    [[-0.0, -0.0, nan], [5.0, -0.0, nan]]
    """
    np = load_numpy()
    at, found, missed, count = ctx.saved_tensors
    if out is None:
        out = np.empty((count, *missed.shape))
    np.copyto(out, missed)
    # each element's picked row (row 0, where none was picked: it gets the nan it holds again), by
    # its place in ``out`` counted row by row (``put`` counts so in any view, and writes there)
    n = at.size
    out.put(at * n + np.arange(n).reshape(at.shape), np.where(found, g, missed))
    return out


def label_hits(label: Any, count: int) -> Any:
    """Where ``label`` equals each index ``0 .. count-1``, as Pick compares it (``-0.0`` is 0; nan,
    0.5 and ``count`` equal none): booleans, one row of ``label``'s shape per index.

    >>> import numpy as np
    >>> label_hits(np.array([1.0, -0.0, 0.5]), 2).tolist()
    [[False, True, False], [True, False, False]]
    """
    np = load_numpy()
    return label == np.arange(count, dtype=np.float64).reshape((-1,) + (1,) * label.ndim)


def pick_backward(ctx: Context, g: Any) -> tuple[Any, ...]:
    """``Pick.backward`` on arrays: ``g`` to the picked operand, -0.0 to the others (nan for all
    where the label is no index), the label none."""
    if ctx.saved_tensors[0] is None:
        return Pick.backward(ctx, g)
    return (None, *picked_gradients(ctx, g))


def dot_block_forward(ctx: Context, block: Any) -> Any:
    """``Dot.forward`` on its operands stacked as one block ``(start, w0..wn-1, x0..xn-1)`` of rows:
    the products in one call, then added to ``start`` one after another, as the op's loop adds
    them (``(start + w0*x0) + w1*x1 + ...``: element-wise adds in its order, never pairwise).  Two
    numpy calls a term become one, and the group gathers its operands in one ``take``, not one
    per operand (a one-name GPT step: its 14 Dot groups' forward measured 0.32 ms -> 0.15 ms).
    From 5 terms the products go below the start in one array, added along its first axis in one
    call (in order, as ``dot_grid_forward``): 16 terms over 64 nodes, 35 us -> 8 us."""
    n = (len(block) - 1) // 2
    w, x = block[1 : n + 1], block[n + 1 :]
    ctx.save_for_backward(w, x)
    if n == 0:
        return block[0].copy()
    # A loop for a few terms (cheaper under 5: measured), and for one number a row: there numpy's
    # reduce would run along the innermost axis, which it adds pairwise, out of the op's order.
    if n < 5 or block[0].size < 2:
        products = w * x
        total = block[0] + products[0]
        for k in range(1, n):
            total += products[k]
        return total
    np = load_numpy()
    terms = np.empty((n + 1, *block.shape[1:]))  # (start, w0 x0, ...): added in order, as the grid's
    terms[0] = block[0]
    np.multiply(w, x, out=terms[1:])
    return np.add.reduce(terms, axis=0, initial=-0.0)


def dot_block_backward(ctx: Context, g: Any, out: Any = None) -> tuple[Any, Any]:
    """``Dot.backward`` from ``dot_block_forward``'s saved rows: ``g`` (start's gradient), and the
    others' as rows of one array, ``g * x_k`` for each weight then ``g * w_k`` for each input,
    made in two calls; into ``out`` when given (the contribution slots themselves: no copy)."""
    np = load_numpy()
    w, x = ctx.saved_tensors
    n = len(w)
    if out is None:
        out = np.empty((2 * n, *np.broadcast_shapes(np.shape(g), w.shape[1:])))
    np.multiply(g, x, out=out[:n])
    np.multiply(g, w, out=out[n:])
    return g, out


# What one more numpy call costs, in numbers a ``take`` copies (about 1.5 us against 1 ns): the grid
# makes two calls a term where the block makes one in all, so it pays only when it copies fewer
# operands by more than that.  Measured on nn.GPT: one name a step (width 1), the grid took 2.13 ms
# a replay against the block's 1.90 (medians of 15 interleaved runs); 16 names (width 16), 13.6
# against 14.3 ms.
CALL_COST = 2000


def dot_grid(index: Any, width: int = 1) -> tuple[Any, Any] | None:
    """For a Dot group's operand rows ``(start, w0.., x0..)`` (one column per node): when the nodes
    are every pair of a weights row and an inputs column, column-major (node ``p * I + i`` dots
    output ``i``'s weights with column ``p``'s inputs, as a Linear layer's outputs over several
    positions do), and taking the weights and inputs once each instead of once per node saves more
    than the grid's extra calls cost (``width`` numbers per slot), the weights' rows ``(n, I)`` and
    the inputs' ``(n, P)``; else None."""
    n, nodes = (len(index) - 1) // 2, index.shape[1]
    if n == 0 or nodes < 2:
        return None
    w, x = index[1 : n + 1], index[n + 1 :]
    same_x = (x == x[:, :1]).all(axis=0)
    i_count = nodes if same_x.all() else int(same_x.argmin())  # outputs sharing column 0's inputs
    if nodes % i_count:
        return None
    grid = (n, nodes // i_count, i_count)
    weights, inputs = w[:, :i_count], x[:, ::i_count]
    saved = (2 * n * nodes - n * (grid[1] + grid[2])) * width  # numbers the block takes, the grid not
    if saved < n * CALL_COST:
        return None
    if (w.reshape(grid) == weights[:, None, :]).all() and (x.reshape(grid) == inputs[:, :, None]).all():
        return weights, inputs
    return None


def dot_grid_forward(ctx: Context, block: Any, w: Any, x: Any) -> Any:
    """``dot_block_forward`` on a grid (``dot_grid``): the weights ``(n, I, ...)`` and the inputs
    ``(n, P, ...)`` taken once each, not once per node; ``block`` ``(n + 1, P, I, ...)`` holds the
    starts in its row 0 and takes the products, broadcast over the grid, in rows 1..n.  Numpy adds
    along an axis that is not the innermost element by element, first row to last: ``(start + w0
    x0) + w1 x1 + ...``, the op's own order, in one call (a grid has 2 or more nodes, so the first
    axis is never the innermost).  Two calls in all, not two a term.

    >>> import numpy as np
    >>> block = np.empty((4, 1, 2)); block[0] = -0.0  # one position, two outputs, three terms
    >>> w = np.array([[1.0, -0.0], [1e16, -0.0], [-1e16, -0.0]])  # output 0: (1 + 1e16) - 1e16
    >>> dot_grid_forward(Context((True, True), ()), block, w, np.ones((3, 1)))
    array([ 0., -0.])
    """
    np = load_numpy()
    ctx.save_for_backward(w, x)
    np.multiply(w[:, None], x[:, :, None], out=block[1:])
    total = np.add.reduce(block, axis=0, initial=-0.0)  # (from -0.0: numpy's own start is +0.0)
    return total.reshape(-1, *total.shape[2:])


def dot_grid_forward_fixed(ctx: Context, block: Any, w: Any, x: Any, out: Any = None) -> Any:
    """``dot_grid_forward`` over a batch for weights the same for every sample: ``w`` ``(n, I,
    batch)``, each row one number repeated, and ``x`` ``(n, P, batch)``; ``block`` ``(n + 1, I, P,
    batch)`` holds the starts in its row 0 and takes the products, outputs first: each weight
    times a whole run of ``P * batch`` inputs in one inner loop of numpy (in the grid's own
    layout, ``(P, I, batch)``, numpy multiplies one row of ``batch`` numbers at a time: 1.6x
    slower).  The sums are the same: each product is ``w[k, i] * x[k, p]``, and they are added
    along the first axis in order, ``(start + w0 x0) + w1 x1 + ...``.  Gives ``(I, P, batch)``.

    >>> import numpy as np
    >>> block = np.empty((3, 2, 1, 2)); block[0] = -0.0  # 2 terms, 2 outputs, 1 position, 2 samples
    >>> w = np.array([[[1.0, 1.0], [2.0, 2.0]], [[3.0, 3.0], [4.0, 4.0]]])  # rows: weights by output
    >>> x = np.array([[[1.0, 10.0]], [[1.0, -1.0]]])  # the position's inputs, per sample
    >>> dot_grid_forward_fixed(Context((True, True), ()), block, w, x)[:, 0].tolist()
    [[4.0, 7.0], [6.0, 16.0]]
    """
    np = load_numpy()
    ctx.save_for_backward(w, x)
    np.multiply(x[:, None], w[:, :, :1, None], out=block[1:])  # (one sample's weight: all the same)
    return np.add.reduce(block, axis=0, initial=-0.0, out=out)  # (from -0.0: numpy's own start is +0.0)


def dot_grid_backward(ctx: Context, g: Any, out: Any = None, order: Any = None) -> tuple[Any, Any]:
    """``dot_block_backward`` from ``dot_grid_forward``'s saved weights and inputs, broadcast.
    The weights' rows ``g * x_k`` are made as ``x_k`` copied across the outputs, then multiplied
    in place by ``g`` (``x * g`` is ``g * x``, bit for bit): numpy then multiplies whole rows of
    ``I * batch`` numbers at a time, where ``x_k`` broadcast along the outputs gave it one row of
    ``batch`` numbers per call of its inner loop (16-name GPT, the five grids' weights' rows:
    0.79 -> 0.65 ms a step, best of 7 interleaved runs; with no batch axis, 16 -> 20 us: not there).
    ``order`` (weights the same for every sample of a batch, ``dot_grid_forward_fixed``'s): the
    inputs' rows laid out use by use instead, see ``grid_inputs_by_use``.

    >>> import numpy as np
    >>> ctx = Context((True, True), ()); ctx.save_for_backward(np.ones((1, 2, 2)), np.array([[[-0.0, 3.0]]]))
    >>> g = np.array([[1.0, 1.0], [-1.0, 2.0]])  # 1 term, 1 position, 2 outputs, 2 samples
    >>> dot_grid_backward(ctx, g)[1].tolist()
    [[[-0.0, 3.0], [0.0, 6.0]], [[1.0, 1.0], [-1.0, 2.0]]]
    """
    np = load_numpy()
    w, x = ctx.saved_tensors
    n, (i_count, p_count) = len(w), (w.shape[1], x.shape[1])
    if out is None:
        out = np.empty((2 * n, *g.shape))
    grid = out.reshape(2 * n, p_count, i_count, *g.shape[1:])
    on_grid = g.reshape(p_count, i_count, *g.shape[1:])[None]
    if g.ndim > 1:  # (a batch: x_k across the outputs, then times g)
        np.copyto(grid[:n], x[:, :, None])
        np.multiply(grid[:n], on_grid, out=grid[:n])  # g * x_k, for each weight
    else:  # (one number a node: numpy's inner loop takes x_k as one number, already fast)
        np.multiply(on_grid, x[:, :, None], out=grid[:n])
    if order is None:
        np.multiply(on_grid, w[:, None], out=grid[n:])  # g * w_k, for each input
    else:
        grid_inputs_by_use(w, g, order, out[n:])
    return g, out


def grid_inputs_by_use(w: Any, g: Any, order: Any, out: Any) -> None:
    """A grid's inputs' gradients ``g * w_k`` over a batch, for weights ``w`` ``(n, I, batch)`` the
    same for every sample, laid out use by use: ``out`` viewed as ``(uses, n, P * batch)``, row
    ``u`` holding every input's contribution from output ``order[u]`` (a slice or index array of
    the ``I`` outputs), inputs in the grid's order (weights row ``k``, then position ``p``).  Each
    input's contributions are then one column of consecutive rows, in the order its gather adds
    them: the gather is one reduction with nothing taken (``kernels.sum_by_use``).  Each row is one
    weight times a run of ``P * batch`` gradients (``w_k * g`` is ``g * w_k``, bit for bit).

    >>> import numpy as np
    >>> w = np.array([[[2.0, 2.0], [3.0, 3.0]]])   # 1 term, 2 outputs, 2 samples
    >>> g = np.array([[1.0, 10.0], [-1.0, 5.0], [4.0, 0.5], [1.0, 1.0]])  # positions 0, 1: outputs 0, 1
    >>> out = np.empty((4, 2)); grid_inputs_by_use(w, g, slice(None, None, -1), out)
    >>> out.reshape(2, 2, 2).tolist()              # use 0 (output 1's), use 1 (output 0's); by position
    [[[-3.0, 15.0], [3.0, 3.0]], [[2.0, 20.0], [8.0, 1.0]]]
    """
    np = load_numpy()
    n, i_count, batch = w.shape  # (each output once: I uses)
    by_output = np.ascontiguousarray(g.reshape(-1, i_count, batch)[:, order].transpose(1, 0, 2))
    weights = w[:, order, 0].T  # (uses, n): the same weight for every sample, the first's
    np.multiply(weights[:, :, None], by_output.reshape(i_count, 1, -1), out=out.reshape(i_count, n, -1))


def pick_block_forward(ctx: Context, block: Any) -> Any:
    """``Pick.forward`` on ``(label, v0, ..., vK-1)`` stacked as rows: the values are rows already."""
    return pick_stacked(ctx, block[0], block[1:])


def pick_fixed_forward(ctx: Context, label: Any, values: Any) -> Any:
    """``pick_block_forward`` over a batch for values the same for every sample (an embedding's
    parameters): ``label`` ``(nodes, batch)``, ``values`` ``(nodes, K)``, one sample's.  Each
    sample's value read by its index, not the ``K`` rows of the whole batch taken and searched;
    a label is an index where it equals one of ``0 .. K-1`` (``-0.0`` too), as Pick compares it.
    Saves what ``pick_block_backward`` reads.

    >>> import numpy as np
    >>> ctx = Context((False, True, True), ())
    >>> label = np.array([[1.0, -0.0, 0.5, 2.0]])  # one node, four samples
    >>> pick_fixed_forward(ctx, label, np.array([[10.0, 20.0]])).tolist()
    [[20.0, 10.0, nan, nan]]
    """
    np = load_numpy()
    nodes, count = values.shape
    found = (label >= 0) & (label < count) & (np.floor(label) == label)  # (nan: False)
    at = np.where(found, label, 0).astype(np.intp)
    save_picked(ctx, at, found, count)
    picked = values.take(at + np.arange(0, nodes * count, count).reshape(-1, 1))  # (row n: n * K + at)
    return np.where(found, picked, np.nan)


def pick_block_backward(ctx: Context, g: Any, out: Any = None) -> tuple[Any, Any]:
    """``pick_backward``: none for the label, the values' gradients as rows of one array; into
    ``out`` when given (the contribution slots themselves: two writes there measured 2.2x faster
    than a new array copied there)."""
    return None, picked_gradients(ctx, g, out)


def max_block_forward(ctx: Context, block: Any) -> Any:
    """``DetachedMax.forward`` on its operands stacked as rows.  The op's loop, ``top = where(x > top,
    x, top)`` operand by operand, keeps the first operand equal to the largest: where no operand is
    nan and the largest is no zero (whose sign tells equal operands apart), that is numpy's ``max``,
    one call for any count of operands; else the op's loop itself, without a ``take`` per operand."""
    np = load_numpy()
    ctx.save_for_backward(len(block))
    largest = block.max(axis=0)
    if largest.all() and not np.isnan(largest).any():  # (max gives nan where an operand is nan)
        return largest
    top = block[0]
    for x in block[1:]:
        top = np.where(x > top, x, top)
    return top.copy() if len(block) == 1 else top


def max_block_backward(ctx: Context, g: Any, out: Any = None) -> tuple[Any, Any]:
    """No gradient through the max: -0.0 for every operand, which adds nothing, as None does;
    into ``out`` when given (the contribution slots themselves: no new array to copy there)."""
    np = load_numpy()
    (n,) = ctx.saved_tensors
    if out is None:
        return None, np.full((n - 1, *np.shape(g)), -0.0)
    out.fill(-0.0)
    return None, out


# Block backward rules that take ``out=``, the array their stacked gradients go to.
WRITES_INTO: frozenset[Rule] = frozenset(
    {dot_block_backward, dot_grid_backward, pick_block_backward, max_block_backward}
)


def rules_in(table: RuleTable, fn: type[Function]) -> tuple[Rule, Rule] | None:
    """The rules ``table`` holds for ``fn`` while its rules are the engine's own as written (a
    patched op is replayed as patched), else None."""
    for op, rules in table:
        if fn is op and op.builtin_rules == (op.forward, op.backward):
            return rules
    return None


def block_rules(fn: type[Function]) -> tuple[Rule, Rule] | None:
    """Rules that take a group's operands as one block of rows (``dot_block_forward``), for an op
    whose rules are the engine's own, else None (the operands one by one, ``array_rules``)."""
    return rules_in(BLOCK_RULES, fn)


BLOCK_RULES: RuleTable = (
    (Dot, (dot_block_forward, dot_block_backward)),
    (Pick, (pick_block_forward, pick_block_backward)),
    (DetachedMax, (max_block_forward, max_block_backward)),
)


def array_rules(fn: type[Function]) -> tuple[Rule, Rule]:
    """The forward and backward a group of ``fn`` runs on arrays: the rules of this module for an
    op they cover whose rules are the engine's own, else the op's ``forward`` and ``backward``."""
    return rules_in(ARRAY_RULES, fn) or (fn.forward, fn.backward)


ARRAY_RULES: RuleTable = ((Pick, (pick_forward, pick_backward)),)
