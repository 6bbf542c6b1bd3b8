"""Phase 3 of ``micrograd.compile``: the run.  ``CompiledStep`` replays a plan on numpy
arrays; ``BatchedStep`` replays it over a batch of samples, one row of numbers per sample.

A step binds the plan to its arrays once per allocation (``bind``: views, scratch
arrays, where each gradient lands), then every call loads the inputs and the
parameters' ``.data``, runs the groups forward level by level, and backward from the
loss, each level's gathers, then its groups, then the parameters' gathers.
"""

from __future__ import annotations

import copy
import reprlib
import struct
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from ..math.numpy_errors import silenced
from .errors import load_numpy
from .flat import shared
from .kernels import (
    CONTRIB,
    G_FIRST,
    Gather,
    Source,
    Target,
    as_block,
    grid_blocks,
    ordered_sum,
    sum_by_use,
    sum_grids,
    sum_uses,
    write_to,
)
from .params import HasParameters, check_parameters, watcher
from .plan import Plan
from .ragged import Cuts, rows_by_tag
from .trace import as_array

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ..engine import Value

    Floats = NDArray[np.float64]

__all__ = ["BatchedStep", "CompiledStep"]


def consecutive_runs(items: Sequence[Any], joins: Callable[[Any, Any], bool]) -> list[list[int]]:
    """The places of the operands ``k >= 1`` whose ``items[k]`` is not None, in runs of consecutive
    places, each joining the one before it where ``joins(items[k - 1], items[k])``: a block
    group's gradients written run by run (``items[0]``, the first operand's, is never in one).

    >>> consecutive_runs([9, 1, 2, None, 4, 5, 8], lambda a, b: b == a + 1)
    [[1, 2], [4, 5], [6]]
    """
    runs: list[list[int]] = []
    for k in range(1, len(items)):
        if items[k] is None:
            continue
        if runs and runs[-1][-1] == k - 1 and joins(items[k - 1], items[k]):
            runs[-1].append(k)
        else:
            runs.append([k])
    return runs


class CompiledStep:
    """A traced loss function replayed with numpy; made by ``compile``.

    Not thread-safe: a step keeps its arrays between calls (compile one per thread).
    """

    def __init__(self, plan: Plan) -> None:
        np = load_numpy()
        trace, layout = plan.trace, plan.layout
        self.params = tuple(trace.params)
        # their .data and .grad as arrays, shared with an optimizer of the same parameters (flat.py)
        self._flat = shared(self.params)
        self.model: HasParameters | None = None  # (compile(params=model), see watch) checked at every call
        self._changed: Callable[[], Sequence[Value] | None] | None = None
        self.input_shapes: tuple[tuple[int, ...], ...] = tuple(trace.shapes)
        self.num_nodes = plan.num_nodes  # traced nodes the loss depends on
        # per parameter, whether the loss's graph holds it (False: the eager backward leaves its .grad alone)
        self.reached = np.array(plan.reached, dtype=bool)
        self.num_groups = len(plan.groups)  # numpy kernels per forward pass
        self.frozen_values = plan.frozen_values
        self._levels = plan.levels
        self._input_sizes = [int(np.prod(s, dtype=np.intp)) for s in trace.shapes]
        self._n_in, self._n_p = len(trace.inputs), len(trace.params)
        # The parameters' data is written, and their gradients computed, in the layout's order
        # (a layer's weight gradients as one block), then put in the order of ``params``.
        self._slot_params = layout.slot_params
        self._user_order = np.array([layout.grad_row[p] for p in trace.params], dtype=np.intp)
        # where each slot's parameter is in ``params`` (data read in that order: ``param_data``)
        index = {p: i for i, p in enumerate(trace.params)}
        self._slot_order = np.array([index[p] for p in layout.slot_params], dtype=np.intp)
        self._pack = struct.Struct(f"{self._n_p}d").pack  # (see _param_data)
        self._n_region = layout.n_region
        self._lead_slots = np.array(layout.lead_slots, dtype=np.intp)
        self._const_rows = layout.const_rows
        # the slots whose value is the same for every sample of a batch: parameters and constants
        self._fixed = np.zeros(layout.size, dtype=bool)
        for rows in (slice(self._n_in, self._n_in + self._n_region), self._lead_slots, self._const_rows):
            self._fixed[rows] = True
        self._vals: Floats = np.zeros(layout.size)
        self._vals[self._const_rows] = [c.data for c in layout.constants]
        self._gvals: Floats = np.zeros(layout.size)
        self._root = layout.slot[trace.root]
        self._gvals[self._root] = 1.0
        self._root_param = layout.grad_row.get(trace.root, -1)
        self._groups = plan.groups
        self._gathers = plan.gathers
        self._param_gathers, self._prefix_gathers = plan.param_gathers, plan.prefix_gathers
        self._contrib: Floats = np.zeros(plan.n_contrib)
        self._pad_slot = plan.pad_slot  # (-0.0 there: what merged gathers pad with, see routes.py)
        if self._pad_slot >= 0:
            self._contrib[self._pad_slot] = -0.0
        # (a BatchedStep's own arrays for what the samples share, see _allocate; here the same arrays)
        self._vals1, self._gvals1, self._contrib1 = self._vals, self._gvals, self._contrib
        self._bind_first()

    def _bind_first(self) -> None:
        """Bind the plan to the arrays just made (``bind``)."""
        self.bind(())

    def __repr__(self) -> str:
        return (
            f"CompiledStep(nodes={self.num_nodes}, levels={self._levels}, groups={self.num_groups}, "
            f"params={len(self.params)}, input_shapes={list(self.input_shapes)})"
        )

    # ---- running -------------------------------------------------------------------------------

    def watch(self, model: HasParameters) -> None:
        """Check at every call that ``model``'s parameters are still the Values traced (``params.py``)."""
        self.model, self._changed = model, watcher(model, self.params)

    def check_model(self) -> None:
        """(Watching a model) a ``ReplacedParameterError`` if its parameters are not the Values traced."""
        if self._changed is not None:
            check_parameters(self._changed(), self.params, self.model)

    def _load(self, inputs: tuple[Any, ...]) -> None:
        self.check_model()
        if len(inputs) != len(self.input_shapes):
            raise ValueError(
                f"the step was traced with {len(self.input_shapes)} inputs, got {len(inputs)}; "
                "the graph is fixed at trace time"
            )
        vals, at = self._vals, 0
        for i, (x, shape, size) in enumerate(zip(inputs, self.input_shapes, self._input_sizes)):
            arr = as_array(x, f"input {i}")
            if arr.shape != shape:
                raise ValueError(
                    f"input {i} has shape {arr.shape}, but the step was traced with shape {shape}; "
                    "the graph is fixed at trace time, so compile again for another shape"
                )
            vals[at : at + size] = arr.ravel()
            at += size
        self._put_params(vals, self._param_data())

    def bind(self, tail: tuple[int, ...]) -> None:
        """Bind the plan to this step's arrays, for rows of shape ``tail`` (``(batch,)``): the
        arrays a step reuses from call to call (each group's gathered operands, the parameters'
        gradients), the views it reads, and where each gradient lands.  Fresh arrays of a batch's
        size at every step would cost more than the copies into them (the allocator hands large
        ones back to the system and page-faults them in again)."""
        np = load_numpy()
        self._bind_forward(tail)
        # One gradient per parameter (batched: per parameter and sample), rows no gradient reaches
        # stay 0.  Batched, they are the transposed view of an array with one row per sample, the
        # layout in which the samples add up in order: the writes of the backward transpose them.
        self._by_sample: Floats = np.zeros((*tail, self._n_p))
        self._grads: Floats = self._by_sample.T
        # (batched) added to every sample's parameter gradients; -0.0 adds nothing, signed zeros included
        self._prefix: Floats = np.full((self._n_p, 1), -0.0)
        self._bind_backward(tail)
        gathers = self._all_gathers()
        for gather in gathers:
            self._bind_gather(gather, tail)
        self._read_at_source(gathers)
        self._merge_block_writes()
        self._merge_index_writes()
        self._programs()

    def _all_gathers(self) -> list[Gather]:
        """Every gather of the plan, in one fixed order (a clone's copies in the same order)."""
        levels = (g for gs in self._gathers.values() for g in gs)
        return [*self._param_gathers, *self._prefix_gathers, *levels]

    def _bind_forward(self, tail: tuple[int, ...]) -> None:
        """Each group's operands: views of the value arrays where consecutive, else scratch arrays
        to gather them into; the rows its values go to."""
        np = load_numpy()
        vals, first = self._vals, self._vals1
        for _, grp in self._groups:
            width = (1,) * len(tail) if grp.shared else tail  # a shared group: one column
            grp.scratch = [None if type(r) is slice else np.empty(r.shape + width) for r in grp.rows]
            # views of the value arrays, made once per allocation rather than at every step
            src = first if grp.shared else vals
            grp.views = [src[r] if type(r) is slice else None for r in grp.rows]
            grp.dest = src[grp.start : grp.stop]
            grp.fixed = self._fixed
            # (batched) a shared group's values copied to every sample, for the per-sample ops that read them
            grp.spread = vals[grp.start : grp.stop] if grp.shared and grp.wide and first is not vals else None
            # an ordered sum adds straight into its rows when they hold exactly its result
            same = grp.fn is None and grp.dest.flags.c_contiguous
            grp.flat = grp.dest.reshape(-1) if same else None

    def _bind_backward(self, tail: tuple[int, ...]) -> None:
        """Each group's gradient rows ``g``, and its ``edges`` bound to the arrays they name (``into``)."""
        np = load_numpy()
        gvals = self._gvals
        to = (self._contrib, self._contrib1, gvals, self._gvals1, self._grads)  # by CONTRIB, C_FIRST, ...
        for _, grp in self._groups:
            if not any(grp.edges):
                grp.g, grp.into = None, []
                continue
            grp.g = (to[G_FIRST] if grp.narrow else gvals)[grp.start : grp.stop]
            if grp.fn is not None:  # where each operand's contributions go
                grp.into = [
                    None if edge is None else write_to(np, to[edge.dest], edge.rows, tail)
                    for edge in grp.edges
                ]
                continue
            grp.into = []  # an ordered sum: per edge, its terms' rows and signs
            for edge in grp.edges:
                assert edge is not None
                terms, array = edge.terms, to[edge.dest]
                signs = None if grp.signs is None or (grp.signs[terms] > 0).all() else grp.signs[terms]
                # contribution slots, or rows of gradients that form one block (see slots.py)
                rows = edge.rows if type(edge.rows) is slice else as_block(np, edge.rows) or edge.rows
                if type(rows) is slice:  # (terms, nodes[, batch]): a view
                    block = array[rows].reshape(len(terms), grp.stop - grp.start, *array.shape[1:])
                    assert np.shares_memory(block, array)  # (writes must land)
                    grp.into.append(Target(block, ..., signs))
                else:  # (terms, nodes) rows of gradients
                    grp.into.append(Target(array, rows, signs))

    def _bind_gather(self, gather: Gather, tail: tuple[int, ...]) -> None:
        """Where ``gather`` reads its contributions and writes its sums."""
        np = load_numpy()
        shared = gather.shared
        into = {"grads": self._grads, "prefix": self._prefix}
        gather.dest = into[gather.into] if gather.into else self._gvals if gather.wide else self._gvals1
        rows = gather.targets
        gather.view = gather.dest[rows] if type(rows) is slice else None
        gather.flat = None
        if len(set(shared)) == 1 and len(shared) > 1:  # one reduction over the uses
            gather.lead = -1
            gather.src = self._contrib1 if shared[0] else self._contrib
            gather.scratch = np.empty(gather.slots.shape + ((1,) * len(tail) if shared[0] else tail))
            view = gather.view
            if view is not None and view.shape[1:] == gather.src.shape[1:] and view.flags.c_contiguous:
                gather.flat = view.reshape(-1)
            gather.strided = self._strided(gather, tail) if not shared[0] else None
        else:  # the leading contributions the samples share, added up on one column, then the rest
            gather.lead = shared.index(False) if False in shared else len(shared)
            gather.src = self._contrib1

    def _strided(self, gather: Gather, tail: tuple[int, ...]) -> list[tuple[Any, Any, Any]] | None:
        """(A batch of 2 or more, the sums going to consecutive rows) the contributions of each
        regular grid of ``gather``'s slots as a strided view, an array for its sums, and the rows of
        ``gather.dest`` they go to, viewed as the grid (``(a, b, batch)``); else None.
        Where a weights matrix's are, the view saves taking them: on the weights of a 16-name GPT
        batch, 11 positions (6 of them cut for some names), 1.08 ms against 1.60 (best of 30)."""
        np = load_numpy()
        if len(tail) != 1 or tail[0] < 2 or gather.view is None:
            return None
        blocks = grid_blocks(np, gather.slots)
        if blocks is None:
            return None
        src, uses = self._contrib, len(gather.slots)
        rows, col = src.strides
        out = []
        for c0, a, b, first, su, sa, sb in blocks:
            if sb != 1 and sa != 1:  # (rows far apart both ways: the copy reads them no worse)
                return None
            terms = np.lib.stride_tricks.as_strided(
                src[first:], (uses, a, b, tail[0]), (su * rows, sa * rows, sb * rows, col)
            )
            # The sums laid out as the terms are, the grid axis whose rows are adjacent innermost:
            # numpy then adds that axis and the batch as one run of numbers per use, not one row of
            # ``batch`` numbers at a time (16-name GPT: the weights' gather 1.62 -> 0.83 ms a step, kprof.py).
            sums = np.empty((b, a, tail[0])).transpose(1, 0, 2) if sa == 1 < sb else np.empty((a, b, tail[0]))
            into = gather.view[c0 : c0 + a * b].reshape(a, b, tail[0])  # (a view: no copy)
            assert np.shares_memory(into, gather.dest)
            out.append((into, terms, sums))
        return out

    def _read_at_source(self, gathers: list[Gather]) -> None:
        """A gather of contributions that are all one engine op's gradients for one operand reads
        them from the gradients the op's group keeps (``Group.kept``), and the group's backward
        writes no copy of them into the contribution slots.  (The engine's ops give arrays of
        floats, or numbers that broadcast; a user op's gradients are copied, so converted.)"""
        np = load_numpy()
        readers = np.full(len(self._contrib), -1)  # slot -> the gather that reads it (-2: several)
        for i, gather in enumerate(gathers):
            gather.source = None
            slots = gather.slots.ravel()
            readers[slots] = np.where(readers[slots] == -1, i, -2)
        for _, grp in self._groups:
            if grp.fn is None or not grp.fn.builtin:
                continue
            ks, blocks = [], []
            for k, edge in enumerate(grp.edges):
                if edge is not None and edge.dest == CONTRIB and type(edge.rows) is slice:
                    ks.append(k)
                    blocks.append(edge.rows)
            for k, block, first in zip(ks, blocks, sole_readers(np, readers, blocks)):
                if first < 0:
                    continue
                gather = gathers[first]
                if gather.lead >= 0 or not (
                    block.start <= gather.slots.min() and gather.slots.max() < block.stop
                ):
                    continue
                gather.source = Source(grp, grp.positions[k], gather.slots - block.start)
                grp.into[k] = None

    def _merge_block_writes(self) -> None:
        """A block group's gradients for consecutive operands that go to consecutive rows of one
        array are written in one assignment (``Group.runs``), not one per operand: its backward
        made them as consecutive rows of one array (on a one-name GPT step the Dot groups'
        backward measured 0.24 -> 0.14 ms: 7 of them wrote 32 operands' gradients one by one)."""
        arrays = (self._contrib, self._contrib1, self._gvals, self._gvals1, self._grads)
        for _, grp in self._groups:
            grp.runs = []
            if grp.block is None or grp.g is None:
                continue
            viewed = [  # (the operands' edges whose gradients go to a view of consecutive rows)
                edge
                if edge is not None and to is not None and to.key is ... and type(edge.rows) is slice
                else None
                for edge, to in zip(grp.edges, grp.into)
            ]
            for run in consecutive_runs(
                viewed, lambda last, e: last.dest == e.dest and last.rows.stop == e.rows.start
            ):
                if len(run) > 1:
                    first, last = grp.edges[run[0]], grp.edges[run[-1]]
                    assert first is not None and last is not None
                    grp.runs.append(
                        (arrays[first.dest][first.rows.start : last.rows.stop], run[0] - 1, run[-1])
                    )
                    for k in run:
                        grp.into[k] = None

    def _merge_index_writes(self) -> None:
        """A block group's gradients for consecutive operands that go to rows of one array given by
        index (``Target``'s key) are written in one assignment through their indices joined
        (``Group.scattered``), not one per operand, when no row repeats (each then gets the one
        write it got).  The loss's Pick of a one-name GPT step wrote 27 operands' gradients one by
        one: the two Pick groups' backward measured 0.044 -> 0.017 ms (kprof1.py, min)."""
        np = load_numpy()
        for _, grp in self._groups:
            grp.scattered = []
            if grp.block is None or grp.g is None:
                continue
            indexed = [to if to is not None and type(to.key) is np.ndarray else None for to in grp.into]
            for run in consecutive_runs(indexed, lambda last, to: last.array is to.array):
                array = grp.into[run[0]].array  # type: ignore[union-attr]
                index = np.concatenate([grp.into[k].key.ravel() for k in run])  # type: ignore[union-attr]
                if len(run) < 2 or len(np.unique(index)) < len(index):
                    continue
                grp.scattered.append((array, index, run[0] - 1, run[-1]))
                for k in run:
                    grp.into[k] = None

    def _put_params(self, vals: Floats, data: Floats) -> None:
        """The parameters' data into their slots: most in one block after the inputs, those
        that ``slots.place_blocks`` placed before a group's nodes by index."""
        at, n = self._n_in, self._n_region
        vals[at : at + n] = data[:n]
        if n < len(data):
            vals[self._lead_slots] = data[n:]

    def param_data(self) -> Floats:
        """The parameters' current ``.data`` in the order of ``params``, as a step reads them: for a
        caller that runs several steps of the same parameters at once (``per_sample(..., data=)``)."""
        return self._param_data(self.params)

    def _param_data(self, params: Sequence[Value] | None = None) -> Floats:
        """The parameters' current ``.data``, read at every call, in the order of their slots (or of
        ``params``): as the array ``flat.py`` keeps while no ``.data`` was set since (an
        optimizer's, or this step's last), else packed as C doubles (a number converts as
        ``float()`` converts it)."""
        flat = self._flat.data()
        if flat is not None:
            return flat[self._slot_order] if params is None else flat.copy()  # type: ignore[no-any-return]
        params = self._slot_params if params is None else params
        data = [p.data for p in params]  # (a numpy float, a bool: as float() converts them)
        try:
            packed = self._pack(*data)
        except (TypeError, ValueError, OverflowError, struct.error):
            for p, x in zip(params, data):
                try:
                    struct.pack("d", x)
                except (TypeError, ValueError, OverflowError, struct.error) as exc:
                    raise TypeError(
                        f"params[{self.params.index(p)}].data is {reprlib.repr(x)}, which is not a float "
                        f"({exc}); a compiled step reads each parameter's .data as a float at every call"
                    ) from None
            raise
        return load_numpy().frombuffer(packed)  # type: ignore[no-any-return]

    def _programs(self) -> None:
        """The passes as lists of steps, one per group or gather, in the order they run, each
        with its arrays bound (made once per allocation, so that a call only runs them).

        Forward: level by level.  The value arrays hold one number per slot, or (batched) one
        row of numbers per slot, one per sample; a group whose values the samples share
        runs on the arrays of one column.  Backward: level by level from the loss, each
        level's gathers, then its groups (a shared group's on one column), then the gathers
        of the parameters' gradients, in the eager order."""
        vals, first = self._vals, self._vals1
        self._forward_steps = [grp.forward_step(first if grp.shared else vals) for _, grp in self._groups]
        self._by_use()  # (once the forward steps found the grids)
        steps: list[Callable[[], None]] = []
        groups = self._groups
        i = len(groups) - 1
        for lvl in range(self._levels, 0, -1):
            steps += [self._gather_step(gather) for gather in self._gathers.get(lvl, ())]
            while i >= 0 and groups[i][0] == lvl:
                grp = groups[i][1]
                i -= 1
                if grp.g is not None:  # (None: no operand needs a gradient)
                    steps.append(grp.backward_step())
        steps += [self._gather_step(gather) for gather in (*self._param_gathers, *self._prefix_gathers)]
        self._backward_steps = steps

    def _by_use(self) -> None:
        """(A batch) a grid whose weights are the same for every sample (``Group.fixed_grid_step``)
        and whose inputs' contributions one gather reads, each node's from every output once,
        writes them use by use (``array_rules.grid_inputs_by_use``) into its block of slots, which
        that gather then adds up as they are (``kernels.sum_by_use``) instead of taking them in the
        order of its slots: the same products, added in the same order."""
        np = load_numpy()
        gathers = self._all_gathers()
        for gather in gathers:
            gather.by_use = None
        for _, grp in self._groups:
            grp.by_use = None
        contrib = self._contrib
        if contrib.ndim != 2 or contrib.shape[1] < 2 or not gathers:
            return
        readers = np.bincount(np.concatenate([g.slots.ravel() for g in gathers]), minlength=len(contrib))
        sources = {id(g.source.group) for g in gathers if g.source is not None}
        cut = self._cut_gathers()
        by_first = {  # the gathers that could: one reduction into consecutive rows, by their first slot
            int(g.slots.min()): g
            for i, g in enumerate(gathers)
            if g.lead < 0
            and g.flat is not None
            and g.source is None
            and g.strided is None
            and g.slots.size
            and i not in cut
        }
        for _, grp in self._groups:
            if grp.grid is None or grp.g is None or id(grp) in sources or not grp.writes_one_block():
                continue
            weights, inputs = grp.grid
            (n, i_count), p_count = weights.shape, inputs.shape[1]
            edge = grp.edges[n + 1]  # (the first input's: the inputs' rows follow, one block)
            if edge is None or edge.dest != CONTRIB or not grp.fixed_over_batch(self._vals, weights):
                continue
            base, size = edge.rows.start, n * p_count * i_count
            reader = by_first.get(base)
            if reader is None or reader.slots.shape != (i_count, n * p_count):
                continue
            at = reader.slots - base  # (input k's from the output of position p, i: k * P * I + p * I + i)
            node, output = np.divmod(at, i_count)  # (node: k * P + p)
            order = output[:, 0]
            if not (
                at.max() < size
                and (readers[base : base + size] == 1).all()  # (so: each slot once, and only here)
                and (output == order[:, None]).all()
                and (node == node[:1]).all()
            ):
                continue
            backwards = np.arange(i_count - 1, -1, -1)
            grp.by_use = slice(None, None, -1) if (order == backwards).all() else order
            terms = contrib[base : base + size].reshape(i_count, n * p_count, contrib.shape[1])
            reader.by_use = (terms, np.empty(terms.shape[1:]), node[0])

    def _cut_gathers(self) -> set[int]:
        """The gathers (by place in ``_all_gathers``) that a ragged step may cut: none here."""
        return set()

    def _gather_step(self, gather: Gather) -> Callable[[], None]:
        """``gather`` as a step: ``_gather``, or, reading at the source, the op's gradients."""
        np = load_numpy()
        if gather.by_use is not None:
            return partial(sum_by_use, np, gather)
        if gather.source is None:
            return partial(self._gather, gather)
        grp, i, slots = gather.source
        shape = (grp.stop - grp.start, *self._contrib.shape[1:])  # the op's gradients for one operand
        block = grp.block is not None  # (its kept gradients: the first operand's, the others' stacked)

        def run() -> None:
            kept = grp.kept
            dx = (kept[0] if i == 0 else kept[1][i - 1]) if block else kept[i]
            if type(dx) is not np.ndarray or dx.shape != shape:  # None (no gradient: -0.0), or a number
                dx = np.broadcast_to(-0.0 if dx is None else dx, shape)
            sum_uses(np, gather, dx, slots)

        return run

    def _forward(self) -> None:
        """Every group's values."""
        for run in self._forward_steps:
            run()

    def _gather(self, gather: Gather) -> None:
        """The gradients of ``gather``'s nodes into their rows of ``gather.dest``: each the ordered
        sum of its contributions, first to last (a contribution the samples share is one column)."""
        np = load_numpy()
        slots, lead, dest, rows = gather.slots, gather.lead, gather.dest, gather.targets
        if lead < 0:  # one kind: one reduction over the uses
            if gather.strided is not None:
                sum_grids(np, gather)
            else:
                sum_uses(np, gather, gather.src, slots)
            return
        # Mixed, or one use: added in place, left to right, the leading shared ones on one column
        # (-0.0 + x is x, and a + b is b + a, bit for bit: the same sums as ordered_sum's).
        first, contrib = gather.src, self._contrib
        total = first.take(slots[0], axis=0) if lead else None
        for row in slots[1:lead]:
            total = total + first.take(row, axis=0)
        if lead == len(slots):
            dest[rows] = total
            return
        out = gather.view if gather.view is not None else np.empty((len(rows), *dest.shape[1:]))
        contrib.take(slots[lead], axis=0, out=out, mode="clip")  # (in range: clip changes nothing)
        if total is not None:
            out += total
        for row, same in zip(slots[lead + 1 :], gather.shared[lead + 1 :]):
            out += (first if same else contrib).take(row, axis=0)
        if gather.view is None:
            dest[rows] = out

    def _backward(self) -> Floats:
        """The parameters' gradients (batched: one column per sample), in the eager order."""
        for run in self._backward_steps:
            run()
        grads = self._grads
        if self._root_param >= 0:
            grads[self._root_param] = 1.0
        return grads

    def __call__(self, *inputs: Any) -> tuple[float, Floats]:
        """Forward and backward for these inputs and the parameters' current ``.data``:
        ``(loss, grads)``, one gradient per parameter (a new array)."""
        self._load(inputs)
        with silenced():  # inf and nan are results here, as in the engine: one errstate
            self._forward()
            grads = self._backward()[self._user_order]  # (a copy)
        return float(self._vals[self._root]), grads

    def forward(self, *inputs: Any) -> float:
        """The loss only, for these inputs and the parameters' current ``.data``."""
        self._load(inputs)
        with silenced():
            self._forward()
        return float(self._vals[self._root])

    def backward(self, *inputs: Any) -> float:
        """Like ``loss.backward()`` on the eager graph: add each gradient into its parameter's
        ``.grad`` (so zero them between steps, e.g. ``optimizer.zero_grad()``); returns the loss."""
        loss, grads = self(*inputs)
        # as backward() adds (a fresh 0.0 takes the gradient as it is, a sum of zeros adds it), into
        # the parameters the loss's graph holds only: another's .grad is left alone
        self._flat.add_grad(grads, self.reached)
        return loss


def sole_readers(np: Any, readers: Any, blocks: list[slice]) -> list[int]:
    """Per block of contribution slots, the one gather that reads all of it (``readers``: each
    slot's gather, -1 none, -2 several), else -1.  Blocks of one length, as an op group's are, are
    asked in one comparison, not a few numpy calls each (a GPT step's Dot groups: 3,000 blocks)."""
    sizes = {b.stop - b.start for b in blocks}
    if len(sizes) == 1 and 0 not in sizes:
        (n,) = sizes
        read = readers[np.array([b.start for b in blocks])[:, None] + np.arange(n)]
        first = read[:, 0]
        sole = (read == first[:, None]).all(axis=1) & (first >= 0)  # (-2, read by several: none)
        return np.where(sole, first, -1).tolist()  # type: ignore[no-any-return]
    out = []
    for block in blocks:
        read = readers[block]
        first = int(read[0]) if read.size else -1
        out.append(-1 if first < 0 or (read != first).any() else first)
    return out


def reads_both_ways(arr: Floats, shape: tuple[int, ...]) -> bool:
    """Whether ``arr`` is a batch of samples of ``shape`` both samples first and features first:
    every axis of one length (3 samples of 3 numbers), more than 1 (one number reads the same)."""
    return arr.shape[1:] == shape and len(set(arr.shape)) == 1 and arr.shape[0] > 1


class BatchedStep(CompiledStep):
    """A loss traced on one sample, replayed over a batch of any size; made by
    ``compile(..., batched=True)``.

    The plan is the unbatched one (with ``sharing.py``'s pass); each slot of the value
    arrays becomes a row of ``batch`` numbers, one per sample (values shaped ``(nodes,
    batch)``), so that every group's op runs its own ``forward`` and ``backward`` once on 2-D arrays of shape
    ``(group size, batch)`` and each sample's numbers are those of the eager engine on
    that sample, bit for bit.  Parameters and constants are the same for every sample.
    A sample's parameter gradients add up in the eager order; then the samples' losses
    and gradients add up first sample to last, as a loop of ``loss.backward()`` calls
    over the samples adds them into ``.grad``, and with ``reduction="mean"`` are divided
    by the batch size.  A new batch size reallocates the arrays, nothing more.
    """

    def __init__(self, plan: Plan, reduction: str = "mean", parts: Sequence[Value] | None = None) -> None:
        super().__init__(plan)
        np = load_numpy()
        self.reduction = reduction
        self._constant_data = self._vals[self._const_rows].copy()
        self._slots, self._n_contrib = len(self._vals), len(self._contrib)
        self.batch_size = 0  # of the last call: the arrays' width
        self.batch_axis: int | None = None  # 0: samples first, -1: last; None: first, if the shapes say so
        self.part_reduction = ""  # (ragged="mean" or "sum") the last input, 1 / size, is given here
        # (ragged, see ragged.py) what cuts a sample's graph to its size; the parameters' columns of
        # the gradients (the layout's order) by tag; and per call, the parameters the samples' graphs
        # do not read: (columns, n), those of ``columns`` from the n-th sample as loaded on
        self._cuts = None if parts is None else Cuts(plan, self._group_list(), self._all_gathers(), parts)
        self._param_cols: list[tuple[int, Any]] = []
        if self._cuts is not None:
            layout_tags = np.empty(self._n_p, dtype=np.intp)
            layout_tags[self._user_order] = self._cuts.param_tags
            self._param_cols = rows_by_tag(layout_tags[:, None])[1]
        self._cut_off: list[tuple[Any, int]] = []
        self._reached_by: dict[tuple[str, tuple[int, ...], bytes], Any] = {}  # see reached_by
        # (ragged, per call) the samples as loaded, longest first: the caller's index of each
        # (``_order``) and where each of the caller's samples is (``_back``); None: the caller's order
        self._order: Any = None
        self._back: Any = None
        if self._cuts is not None:
            for at, _ in self._cuts.sums:  # (gathered into arrays of their own, which the cuts write)
                grp = self._group_list()[at]
                grp.rows = grp.args

    def _bind_first(self) -> None:
        """Nothing yet: ``_allocate`` binds the plan at the first call, to the batch's size (bound
        here as well, to arrays of one sample that no call uses, it cost 10 ms of a GPT's trace)."""

    @property
    def parts(self) -> int:
        """(A ragged step) the traced loss's count of parts, the most a sample keeps; 0: not ragged."""
        return 0 if self._cuts is None else self._cuts.n_parts

    def _group_list(self) -> list[Any]:
        return [grp for _, grp in self._groups]

    def _cut_gathers(self) -> set[int]:
        """(Ragged) the gathers whose contributions a sample's size may cut (``Cuts``)."""
        return set() if self._cuts is None else {at for at, _ in self._cuts.gathers}

    def reached_by(self, sizes: Any) -> Any:
        """(A ragged step) per sample of ``sizes`` parts and per parameter (in the order of
        ``params``), whether the sample's graph holds the parameter: ``(batch, params)`` booleans."""
        if self._cuts is None:
            raise TypeError("reached_by() is a ragged step's (compile(..., batched=True, ragged=True))")
        # Kept per pattern of sizes (read-only: shared by the calls): a one-name-a-step run asks
        # for the same few every step.  Keyed by the very bytes and type of sizes checked before,
        # so a hit holds numbers that passed the check.
        arr = load_numpy().asarray(sizes)
        key = (arr.dtype.str, arr.shape, arr.tobytes()) if arr.dtype.kind in "iu" else None
        found = self._reached_by.get(key) if key is not None else None
        if found is None:
            found = self._cuts.reached(self._check_sizes(sizes, -1)) & self.reached[None, :]
            found.flags.writeable = False
            if key is not None:
                if len(self._reached_by) >= 64:  # (a batch's many patterns: keep the last few)
                    self._reached_by.clear()
                self._reached_by[key] = found
        return found

    def __repr__(self) -> str:
        return (
            f"BatchedStep(nodes={self.num_nodes}, levels={self._levels}, groups={self.num_groups}, "
            f"params={len(self.params)}, sample_shapes={list(self.input_shapes)}, "
            f"reduction={self.reduction!r})"
        )

    def clone(self) -> BatchedStep:
        """Another step of the same plan with arrays of its own, bound at its first call: a caller
        that alternates between batch sizes keeps one clone per size, since a step binds its
        arrays anew at every change of size (6-10 ms for a GPT's graph).  The plan's groups and
        gathers are copied shallowly: what a step binds is set again by ``bind``; the rest (index
        arrays, edges) is only read."""
        twin = copy.copy(self)
        twin._groups = [(level, copy.copy(grp)) for level, grp in self._groups]
        twin._gathers = {level: [copy.copy(g) for g in gs] for level, gs in self._gathers.items()}
        twin._param_gathers = [copy.copy(g) for g in self._param_gathers]
        twin._prefix_gathers = [copy.copy(g) for g in self._prefix_gathers]
        twin.batch_size = 0
        return twin

    def _allocate(self, batch: int) -> None:
        if batch == self.batch_size:
            return
        np = load_numpy()
        self._vals = np.zeros((self._slots, batch))
        self._gvals = np.zeros((self._slots, batch))
        self._contrib = np.zeros((self._n_contrib, batch))
        if self._pad_slot >= 0:
            self._contrib[self._pad_slot] = -0.0
        # what the samples share, in arrays of one column of their own (contiguous, unlike a column
        # of the arrays above): the shared groups' values, gradients and contributions
        self._vals1, self._gvals1, self._contrib1 = (
            np.zeros((len(a), 1)) for a in (self._vals, self._gvals, self._contrib)
        )
        for vals in (self._vals, self._vals1):
            vals[self._const_rows] = self._constant_data[:, None]
        for gvals in (self._gvals, self._gvals1):
            gvals[self._root] = 1.0
        self.bind((batch,))
        # the gradients put back in the caller's order of the samples (ragged), the prefixes added,
        # the cut-off set: an array the step keeps, as it keeps the others (see bind)
        self._by_caller: Floats = np.empty_like(self._by_sample)
        self.batch_size = batch

    def _check_sizes(self, sizes: Any, batch: int) -> Any:
        """``sizes`` as an array of ints, one per sample, each from 1 to ``parts``; or an error."""
        np = load_numpy()
        arr = np.asarray(sizes)
        if arr.ndim != 1 or (batch >= 0 and len(arr) != batch) or arr.dtype.kind not in "iu":
            raise ValueError(
                f"sizes must be a list of ints, one per sample ({batch if batch >= 0 else 'the batch'}), "
                f"got {sizes!r}"
            )
        if len(arr) and (arr.min() < 1 or arr.max() > self.parts):
            raise ValueError(f"sizes must be from 1 to the traced loss's {self.parts} parts, got {sizes!r}")
        return arr.astype(np.intp)

    def _load(self, inputs: tuple[Any, ...], data: Floats | None = None, sizes: Any = None) -> None:
        self.check_model()
        if self.part_reduction:
            inputs = (*inputs, self._scales(inputs, sizes))
        if sizes is not None and self._cuts is None:
            raise TypeError("sizes= is a ragged step's: compile(..., batched=True, ragged=True)")
        if len(inputs) != len(self.input_shapes):
            raise ValueError(
                f"the step was traced with {len(self.input_shapes)} inputs, got {len(inputs)}; "
                "the graph is fixed at trace time"
            )
        arrays = self._samples_first([as_array(x, f"input {i}") for i, x in enumerate(inputs)])
        batch = -1
        for i, (arr, shape) in enumerate(zip(arrays, self.input_shapes)):
            if arr.shape[1:] != shape or arr.ndim != len(shape) + 1:
                hint = " (one sample: give a batch of one, e.g. x[None] or [x])" if arr.shape == shape else ""
                if self.batch_axis is None and arr.ndim == len(shape) + 1 and arr.shape[:-1] == shape:
                    hint = " (features first? compile(..., batch_axis=-1) takes the batch axis last)"
                wanted = "(batch" + "".join(f", {d}" for d in shape) + ("" if shape else ",") + ")"
                raise ValueError(
                    f"input {i} has shape {arr.shape}, but a batched step takes a batch of samples of the "
                    f"traced shape {shape}, i.e. an array of shape {wanted}{hint}"
                )
            if batch >= 0 and arr.shape[0] != batch:
                raise ValueError(
                    f"input {i} holds {arr.shape[0]} samples but input 0 holds {batch}; "
                    "every input needs the same batch size"
                )
            batch = arr.shape[0]
        if batch == 0:
            raise ValueError("the batch is empty (0 samples); give at least one sample")
        self._allocate(batch)
        if self._cuts is not None:
            self._cut_sizes(None if sizes is None else self._check_sizes(sizes, batch))
        vals, at, order = self._vals, 0, self._order
        for arr, size in zip(arrays, self._input_sizes):
            rows = arr.reshape(batch, size)
            vals[at : at + size] = (rows if order is None else rows[order]).T
            at += size
        data = (self._param_data() if data is None else data[self._slot_order])[:, None]
        self._put_params(vals, data)
        self._put_params(self._vals1, data)

    def _scales(self, inputs: tuple[Any, ...], sizes: Any) -> Floats:
        """(``ragged="mean"`` or ``"sum"``) each sample's ``1 / size`` (``"sum"``: 1.0), the input
        that makes its loss the mean of its own parts."""
        np = load_numpy()
        if len(inputs) != len(self.input_shapes) - 1:
            raise ValueError(
                f"the step was traced with {len(self.input_shapes) - 1} inputs, got {len(inputs)}"
            )
        first = as_array(inputs[0], "input 0")
        batch = first.shape[self.batch_axis or 0] if first.ndim else 1
        size = np.full(batch, self.parts) if sizes is None else self._check_sizes(sizes, batch)
        scales: Floats = 1.0 / size if self.part_reduction == "mean" else np.ones(batch)
        return scales

    def _samples_first(self, arrays: list[Floats]) -> list[Floats]:
        """The inputs with the batch axis first (``batch_axis=-1``: moved there), or a ValueError if
        ``batch_axis`` is not given and every input reads both ways (3 samples of 3 numbers)."""
        np = load_numpy()
        if self.batch_axis == -1:
            return [np.moveaxis(a, -1, 0) if a.ndim else a for a in arrays]
        telling = [(i, a) for i, (a, s) in enumerate(zip(arrays, self.input_shapes)) if s]
        if (
            self.batch_axis is None
            and telling
            and all(reads_both_ways(a, self.input_shapes[i]) for i, a in telling)
        ):
            i, a = telling[0]
            raise ValueError(
                f"input {i} has shape {a.shape}: {a.shape[0]} samples of shape {a.shape[1:]}, or the other "
                "way round (features first)? A square batch reads both ways; say which with "
                "compile(..., batched=True, batch_axis=0) (samples first) or batch_axis=-1 (features first)"
            )
        return arrays

    def _cut_sizes(self, sizes: Any) -> None:
        """The order to load samples of ``sizes`` parts in, the cuts for them (None: all whole),
        and which parameters they cut off."""
        np = load_numpy()
        assert self._cuts is not None
        self._order = self._back = None
        if sizes is not None and (sizes[1:] > sizes[:-1]).any():
            # Loaded longest first, so that the samples that cut a term are the batch's last ones, a
            # slice of the batch axis (kernels.Cut); each sample's numbers are its own in any order,
            # and its results go back to the caller's order (``_losses``, ``_sample_grads``).
            self._order = np.argsort(-sizes, kind="stable")
            self._back = np.argsort(self._order)
            sizes = sizes[self._order]
        kept = [] if sizes is None else self._cuts.kept(sizes)
        batch = 0 if sizes is None else len(sizes)
        self._cuts.apply(self._group_list(), self._all_gathers(), kept, batch)
        # (slices of the samples, as the cuts, not a mask over every sample and parameter: on a
        # 16-name GPT batch, this method took 0.27-0.29 ms with the masks, 0.026 ms now)
        self._cut_off = [(cols, kept[t]) for t, cols in self._param_cols if kept[t] < batch] if kept else []

    def _sample_grads(self) -> Floats:
        """The gradients, one row per sample in the caller's order (the prefixes added), in the
        layout's order.  A parameter the traced graph does not read gets 0.0 there, as eager
        leaves its ``.grad``; one that only the parts a ragged sample drops read gets -0.0, which
        adds nothing.  (The step's own arrays: read them before the next call.)"""
        np = load_numpy()
        # (changed rows go to the step's second array, ``_by_caller``, never a new one: a new
        # array of a batch's gradients each call is large enough for malloc to map it anew from
        # the system, page by page, and unmap it after; on the moons step, 14 us -> 70 us a call)
        by_sample, order, out = self._by_sample, self._order, self._by_caller
        if order is not None:  # loaded longest first: the rows put back in the caller's order
            by_sample = np.take(by_sample, self._back, axis=0, out=out, mode="clip")
        if self._prefix_gathers:
            by_sample = np.add(by_sample, self._prefix[:, 0], out=out)
        if self._cut_off:
            if by_sample is self._by_sample:  # (left as the backward wrote it)
                by_sample = out
                np.copyto(out, self._by_sample)
            for cols, n in self._cut_off:  # the samples loaded from the n-th on
                by_sample[slice(n, None) if order is None else order[n:], cols] = -0.0
        return by_sample

    def _losses(self) -> Floats:
        """Each sample's loss, in the caller's order (a new array)."""
        losses: Floats = self._vals[self._root]
        return losses.copy() if self._back is None else losses.take(self._back)  # type: ignore[no-any-return]

    def _reduce(self, per_sample: Floats) -> Floats:
        """Rows of ``per_sample`` (one per sample) added first to last, then the reduction."""
        np = load_numpy()
        total = ordered_sum(np, per_sample) if per_sample.shape[1] else np.zeros(0)
        return total / self.batch_size if self.reduction == "mean" else total

    def __call__(self, *inputs: Any, sizes: Any = None) -> tuple[float, Floats]:
        """Forward and backward over a batch (each input with a leading batch axis) for the
        parameters' current ``.data``: ``(loss, grads)``, the mean (``reduction="mean"``)
        or sum over the samples of the loss and of each parameter's gradient.  (Ragged:
        ``sizes``, the parts each sample keeps; None: all.)"""
        self._load(inputs, sizes=sizes)
        with silenced():  # inf and nan are results here, as in the engine: one errstate
            self._forward()
            self._backward()
            grads = self._reduce(self._sample_grads())
            for cols, n in self._cut_off:
                if n == 0:  # reached by no sample: .grad keeps its 0.0, as in the eager loop
                    grads[cols] = 0.0
            loss = self._reduce(self._losses()[:, None])
        return float(loss[0]), grads[self._user_order]

    def per_sample(
        self, *inputs: Any, data: Floats | None = None, sizes: Any = None
    ) -> tuple[Floats, Floats]:
        """Each sample's loss and gradients, not added up: ``(losses, grads)``, arrays of shapes
        ``(batch,)`` and ``(batch, params)``, row ``i`` the eager engine's ``loss.data`` and
        gradients on sample ``i``, bit for bit (the reduction is not applied).  ``data``: the
        parameters' ``.data`` as ``param_data()`` read them (else read now).  ``sizes`` (a ragged
        step's): the parts each sample keeps.  A parameter the traced graph does not read gets 0.0;
        one only the dropped parts of a ragged sample read gets -0.0, which adds nothing.

        >>> from micrograd import Value, compile
        >>> w = Value(0.5)
        >>> step = compile(lambda x: (w * x) ** 2, (1.0,), params=[w], batched=True)
        >>> losses, grads = step.per_sample([2.0, 4.0])      # (0.5 x)**2, and its d/dw 2 (0.5 x) x
        >>> losses.tolist(), grads.tolist()
        ([1.0, 4.0], [[4.0], [16.0]])
        """
        np = load_numpy()
        self._load(inputs, data, sizes)
        with silenced():  # inf and nan are results here, as in the engine: one errstate
            self._forward()
            self._backward()
            # (``take`` along the parameters: half the time of ``[:, order]``, 0.06 ms on 16 names)
            return self._losses(), np.take(self._sample_grads(), self._user_order, axis=1)

    def forward(self, *inputs: Any, sizes: Any = None) -> float:
        """The loss only (the batch's mean or sum), for these inputs and the parameters' ``.data``."""
        self._load(inputs, sizes=sizes)
        with silenced():
            self._forward()
            loss = self._reduce(self._losses()[:, None])
        return float(loss[0])
