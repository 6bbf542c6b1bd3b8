"""What a compiled step runs (see ``micrograd.compile``): groups and gathers.

A ``Group`` is the nodes of one level with the same op: one call of the op's own
``forward`` and one of its ``backward`` on numpy arrays compute all of them.  A
``Gather`` adds up the gradient contributions of nodes used several times, in
the order the eager ``backward`` adds them (``ordered_sum``).  ``Edge`` says where
a group's backward sends an operand's gradients, ``Target`` the array they land in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from .._core.context import Context
from ..engine import Function
from .array_rules import (
    WRITES_INTO,
    array_rules,
    block_rules,
    dot_block_forward,
    dot_grid,
    dot_grid_backward,
    dot_grid_forward,
    dot_grid_forward_fixed,
    pick_block_forward,
    pick_fixed_forward,
)
from .errors import HOW_TO_FIX, CompileError, load_numpy

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]
    Indices = NDArray[np.intp]


# Where a group's backward writes an operand's contributions (``Edge.dest``): contribution
# slots, to be gathered (all samples, or one column when the samples share them), or straight
# into a gradient: a node's (all samples, or one column), a parameter's.
CONTRIB, C_FIRST, GVALS, G_FIRST, GRADS = range(5)


class Edge(NamedTuple):
    """Where a group's backward sends the gradients for one operand (an ordered sum: for
    some of its terms, ``terms``): ``dest``, one of CONTRIB, C_FIRST, GVALS, G_FIRST and GRADS,
    and ``rows``, the rows of that array (a slice when consecutive; a sum's: (terms, nodes))."""

    dest: int
    rows: Any
    terms: Sequence[int] = ()


class Target(NamedTuple):
    """An ``Edge`` bound to its array for one allocation: gradients go to ``array[key]`` (the
    key ``...`` for a view of consecutive rows), a sum's terms multiplied by ``signs`` first."""

    array: Any
    key: Any
    signs: Any = None


class Cut(NamedTuple):
    """(A ragged step's, see ragged.py) for one call, the terms of an ordered sum (or the
    contributions of a gather) that are not in their sample's graph, to be read as -0.0, which
    adds nothing.  The step loads the batch's samples longest first, so the samples that cut a
    term are the batch's last ones: ``runs`` holds ``(rows, n)``, the terms ``rows`` are cut from
    sample ``n`` on, a slice of the batch axis.  (On a 16-name GPT batch, the cut of the weights'
    contributions measured 0.15 ms as slices against 0.32 with the cut samples as an index, and
    a call's cuts take 0.014 ms to make where its masks over every term and sample took 0.10.)
    ``rows`` index the terms (``by_use``: a sum's terms, a gather's uses, each cut for all its
    nodes at once) or the (terms, nodes) pairs counted row by row (a gather's uses cut node by node)."""

    by_use: bool
    runs: list[tuple[Any, int]]

    def apply(self, terms: Floats) -> None:
        """Set the cut terms of ``terms``, ``(terms, nodes..., batch)``, to -0.0 (a view's write lands
        where it views; a contiguous array's rows are viewed as ``(terms * nodes, batch)``).

        >>> import numpy as np
        >>> terms = np.ones((2, 1, 3))                    # 2 terms of 1 node, 3 samples
        >>> Cut(True, [(slice(1, 2), 1)]).apply(terms)    # term 1 cut from sample 1 on
        >>> terms[:, 0].tolist()
        [[1.0, 1.0, 1.0], [1.0, -0.0, -0.0]]
        """
        rows = terms if self.by_use else terms.reshape(-1, terms.shape[-1])
        for at, n in self.runs:
            rows[at, ..., n:] = -0.0


class Group:
    """Nodes of one level with the same op and parameters: one forward call, one backward call.

    ``args`` holds one index array per operand (a sum: one (terms, nodes) matrix), ``rows``
    the same, or a slice where they are consecutive and the op is the engine's own;
    the outputs occupy the slots ``start:stop``; ``edges[k]`` says where operand k's
    gradients go (None: not needed): contribution slots (``CONTRIB``, ``C_FIRST``) or straight
    to the gradient of nodes used once (``GVALS``, ``G_FIRST``, ``GRADS``); a sum's edges are
    per destination instead, each for some of its terms, row by row (term k of every node).
    For an op, ``template`` lists its arguments: ``(True, k)`` for operand k,
    ``(False, number)`` for a parameter; ``ctx`` is the Context of the last forward.
    ``shared``, ``wide`` and ``narrow`` are a batched step's (see ``sharing.py``)."""

    __slots__ = (
        "args",
        "block",
        "by_use",
        "ctx",
        "cut",
        "dest",
        "edges",
        "fixed",
        "flat",
        "fn",
        "g",
        "grid",
        "into",
        "kept",
        "narrow",
        "needs",
        "plain",
        "positions",
        "rules",
        "rows",
        "runs",
        "scattered",
        "scratch",
        "shared",
        "signs",
        "spread",
        "start",
        "stop",
        "template",
        "views",
        "wide",
    )

    def __init__(
        self, fn: type[Function] | None, template: tuple[tuple[bool, Any], ...], start: int, stop: int
    ):
        self.fn = fn
        self.rules = array_rules(fn) if fn is not None else None  # (array_rules.py: the same numbers)
        self.template = template
        self.needs: tuple[bool, ...] = ()
        self.positions = [i for i, (is_operand, _) in enumerate(template) if is_operand]
        self.plain = self.positions == list(range(len(template)))
        # rules on the operands stacked as one block of rows (array_rules.py), or None
        self.block = block_rules(fn) if fn is not None and self.plain else None
        if self.block is not None:
            self.rules = self.block  # (its backward reads what the block forward saved)
        self.start, self.stop = start, stop
        self.args: list[Indices] = []
        self.rows: list[Any] = []  # the operands' rows for the forward: slices where consecutive
        self.scratch: list[Any] = []  # arrays the forward gathers operands into (None: a view)
        self.views: list[Any] = []  # (per allocation) the operands that are views, else None
        self.dest: Any = None  # (per allocation) the value rows the outputs go to
        self.spread: Any = None  # (per allocation) rows to copy them to as well (see run.py)
        self.flat: Any = None  # (per allocation) an ordered sum's rows as one flat view, or None
        self.g: Any = None  # (per allocation) the gradient rows of the outputs; None: none needed
        self.into: list[Target | None] = []  # (per allocation) ``edges`` bound to their arrays
        # (per allocation, a block group) (view, first, stop): rows first:stop of its stacked
        # gradients written as one block into that view (see run.py's _merge_block_writes)
        self.runs: list[tuple[Any, int, int]] = []
        # (per allocation, a block group) (array, index, first, stop): rows first:stop of its stacked
        # gradients written to the rows ``index`` of that array in one assignment (see run.py)
        self.scattered: list[tuple[Any, Any, int, int]] = []
        self.signs: Floats | None = None
        self.edges: list[Edge | None] = []
        self.ctx: Context | None = None
        # the last backward's gradients (see call_backward); a block group's: (first, rest), the
        # first operand's and the others' stacked as rows (see block_backward_step)
        self.kept: Sequence[Any] = ()
        # batched: values the same for every sample (computed once, in the one-column arrays), written
        # as whole rows (read by per-sample ops), and contributions the same for every sample
        self.shared = self.narrow = False
        self.wide = True
        # (a ragged step's ordered sum, see ragged.py) per call: the terms not in their sample's
        # graph, read as -0.0 (which adds nothing); else None
        self.cut: Cut | None = None
        self.grid: Any = None  # (per allocation) a Dot group's grid of weights and inputs (dot_grid)
        # (per allocation) a fixed grid's (see run.py's _by_use): the order of its outputs, use by use,
        # in which its inputs' contributions are laid out for their one gather (grid_inputs_by_use)
        self.by_use: Any = None
        # (per allocation) per slot, whether its value is the same for every sample (parameters and
        # constants), or None
        self.fixed: Any = None

    def call_forward(self, operands: Sequence[Any]) -> Any:
        """The op's own forward on arrays of operands (one element per node of the group)."""
        fn = self.fn
        assert fn is not None
        if self.plain:  # the operands, in order: no parameters
            args = tuple(operands)
        else:
            args = tuple([operands[v] if is_operand else v for is_operand, v in self.template])
        ctx = Context(self.needs, args)
        try:
            out = self.rules[0](ctx, *args)  # type: ignore[index]
        except Exception as exc:
            raise CompileError(
                f"cannot replay {fn.name}.forward on numpy arrays ({exc}); {HOW_TO_FIX}"
            ) from exc
        ctx.output = out
        self.ctx = ctx
        return out

    def forward_step(self, src: Floats) -> Callable[[], None]:
        """This group's forward, its arrays bound, reading the value rows of ``src``: an op's on its
        operands (views, or gathered into the group's own arrays), or an ordered sum's."""
        np, dest, spread = load_numpy(), self.dest, self.spread
        take = src.take  # (the indices are in range: mode="clip" changes nothing, and is faster)
        if self.fn is None:  # an ordered sum: (terms, nodes[, batch]), added term by term
            (idx,), (view,), (buf,), signs, flat = self.args, self.views, self.scratch, self.signs, self.flat
            terms_shape, out_shape = (idx.shape[0], -1), (idx.shape[1], *src.shape[1:])

            def run_sum() -> None:
                terms = view if view is not None else take(idx, axis=0, out=buf, mode="clip")
                if self.cut is not None:  # (a ragged step's: the terms it gathers, never a view)
                    self.cut.apply(terms)
                if signs is not None:
                    terms *= signs
                if flat is not None:  # added up right into the value rows
                    ordered_sum(np, terms.reshape(terms_shape), flat)
                else:
                    dest[...] = ordered_sum(np, terms.reshape(terms_shape)).reshape(out_shape)
                if spread is not None:
                    spread[...] = dest

            return run_sum
        if self.block is not None:
            return self.block_step(src)
        call, views = self.call_forward, self.views
        parts = list(zip(views, self.rows, self.scratch))
        on_views = all(view is not None for view in views)

        def run_op() -> None:
            out = call(
                views
                if on_views
                else [v if v is not None else take(r, axis=0, out=b, mode="clip") for v, r, b in parts]
            )
            dest[...] = out
            if spread is not None:
                spread[...] = out

        return run_op

    def block_step(self, src: Floats) -> Callable[[], None]:
        """The forward of a group whose rules take its operands as one block of rows: every operand
        taken in one call (a GPT step's Dot groups: one ``take`` where there were 2n+1)."""
        np, dest, spread, forward = load_numpy(), self.dest, self.spread, self.block[0]  # type: ignore[index]
        index = np.stack(self.args)  # (operands, nodes)
        width = int(np.prod(src.shape[1:], dtype=np.intp))  # numbers per slot: the batch, or 1
        self.grid = dot_grid(index, width) if forward is dot_block_forward else None
        if self.grid is not None:
            return self.grid_step(src, index[0])
        if forward is pick_block_forward and self.fixed_over_batch(src, index[1:]):
            return self.fixed_pick_step(src, index)
        block = np.empty((*index.shape, *src.shape[1:]))
        take, needs = src.take, self.needs

        def run_block() -> None:
            take(index, axis=0, out=block, mode="clip")  # (in range: clip changes nothing)
            ctx = self.ctx = Context(needs, ())
            dest[...] = out = forward(ctx, block)
            ctx.output = out
            if spread is not None:
                spread[...] = out

        return run_block

    def fixed_over_batch(self, src: Floats, slots: Any) -> bool:
        """Whether ``src`` holds a batch (one axis of more than one sample) and every slot in
        ``slots`` a value the same for every sample (``fixed``): the fixed kernels' condition."""
        fixed = self.fixed
        return fixed is not None and src.ndim == 2 and src.shape[1] > 1 and bool(fixed[slots].all())

    def fixed_pick_step(self, src: Floats, index: Any) -> Callable[[], None]:
        """``block_step`` for a Pick group over a batch whose values are the same for every sample
        (an embedding's parameters): the labels taken, the values read once from the first
        sample's column, and each sample's picked by its index (``pick_fixed_forward``).  On a
        16-name GPT step, the embedding's forward measured 0.126 -> 0.073 ms (warm, paired)."""
        np, dest, spread, needs, take = load_numpy(), self.dest, self.spread, self.needs, src.take
        labels, by_node = index[0], np.ascontiguousarray(index[1:].T)  # (nodes, K): a node's values
        label = np.empty((len(labels), src.shape[1]))
        first = src[:, 0]  # (a fixed value is every sample's)

        def run_pick() -> None:
            take(labels, axis=0, out=label, mode="clip")  # (in range: clip changes nothing)
            ctx = self.ctx = Context(needs, ())
            dest[...] = out = pick_fixed_forward(ctx, label, first.take(by_node))
            ctx.output = out
            if spread is not None:
                spread[...] = out

        return run_pick

    def grid_step(self, src: Floats, starts: Any) -> Callable[[], None]:
        """``block_step`` for a Dot group whose nodes form a grid (``array_rules.dot_grid``: a Linear layer
        over positions): its starts, weights and inputs taken once each, not once per node."""
        np, dest, spread, needs, take = load_numpy(), self.dest, self.spread, self.needs, src.take
        weights, inputs = self.grid
        tail = src.shape[1:]
        if self.fixed_over_batch(src, weights):
            return self.fixed_grid_step(src, starts)
        block = np.empty((len(weights) + 1, inputs.shape[1], weights.shape[1], *tail))  # starts, products
        w, x = np.empty((*weights.shape, *tail)), np.empty((*inputs.shape, *tail))
        first, start = starts.reshape(block.shape[1:3]), block[0]

        def run_grid() -> None:
            take(first, axis=0, out=start, mode="clip")  # (in range: clip changes nothing)
            take(weights, axis=0, out=w, mode="clip")
            take(inputs, axis=0, out=x, mode="clip")
            ctx = self.ctx = Context(needs, ())
            dest[...] = out = dot_grid_forward(ctx, block, w, x)
            ctx.output = out
            if spread is not None:
                spread[...] = out

        return run_grid

    def fixed_grid_step(self, src: Floats, starts: Any) -> Callable[[], None]:
        """``grid_step`` over a batch for weights the same for every sample (a Linear layer's
        parameters): the products laid out outputs first, ``(n + 1, I, P, batch)``, so that each
        is one weight times a run of ``P * batch`` inputs (``dot_grid_forward_fixed``), and the
        sums, ``(I, P, batch)``, copied to the nodes' rows (column-major: ``(P, I, batch)``).
        On a 16-name GPT step the grids' forward measured 1.9 -> 1.4 ms (kprof.py)."""
        np, dest, spread, needs, take = load_numpy(), self.dest, self.spread, self.needs, src.take
        weights, inputs = self.grid
        (n, i_count), p_count, batch = weights.shape, inputs.shape[1], src.shape[1]
        block = np.empty((n + 1, i_count, p_count, batch))  # starts, products
        sums = np.empty((i_count, p_count, batch))
        w, x = np.empty((n, i_count, batch)), np.empty((n, p_count, batch))
        first = np.ascontiguousarray(starts.reshape(p_count, i_count).T)  # (outputs first, as the block)
        start, nodes = block[0], dest.reshape(p_count, i_count, batch)
        assert np.shares_memory(nodes, dest)  # (the writes must land)

        def run_grid() -> None:
            take(first, axis=0, out=start, mode="clip")  # (in range: clip changes nothing)
            take(weights, axis=0, out=w, mode="clip")
            take(inputs, axis=0, out=x, mode="clip")
            ctx = self.ctx = Context(needs, ())
            nodes[...] = dot_grid_forward_fixed(ctx, block, w, x, sums).transpose(1, 0, 2)
            ctx.output = dest
            if spread is not None:
                spread[...] = dest

        return run_grid

    def backward_step(self) -> Callable[[], None]:
        """This group's backward, its arrays bound: its gradient rows ``g`` handed to each term
        (an ordered sum: ``sign * g``) or through the op's backward, to where ``into`` says."""
        np, g, into = load_numpy(), self.g, self.into
        if self.fn is None:
            terms = [to for to in into if to is not None]  # (a sum's edges all lead somewhere)

            def run_sum() -> None:
                for target, key, signs in terms:
                    if signs is None:
                        target[key] = g
                    elif key is ...:  # contribution slots: (terms, nodes[, batch]), a view
                        np.multiply(signs, g, out=target)
                    else:  # (terms, nodes) rows of gradients
                        target[key] = signs * g

            return run_sum
        if self.block is not None:
            return self.block_backward_step()
        call = self.call_backward

        def run_op() -> None:
            for to, dx in zip(into, call(g)):
                if to is not None:  # None: no gradient; -0.0 adds nothing, signed zeros included
                    to.array[to.key] = -0.0 if dx is None else dx

        return run_op

    def block_backward_step(self) -> Callable[[], None]:
        """The backward of a block group: its rule gives the first operand's gradient and the
        others' stacked as rows of one array, written block by block (``runs``), the rest one by one."""
        g, runs, scattered = self.g, self.runs, self.scattered
        backward = self.block_backward_rule()
        singles = [(k, to) for k, to in enumerate(self.into) if to is not None]
        rows = len(self.edges) - 1
        if self.writes_one_block():
            # every stacked gradient goes to one block of slots: the rule writes them there itself
            into = runs[0][0].reshape(rows, self.stop - self.start, *runs[0][0].shape[1:])
            backward, runs = partial(backward, out=into), []
            if self.by_use is not None:  # (the inputs' rows laid out for their gather: run.py's _by_use)
                backward = partial(backward, order=self.by_use)
        else:
            assert self.by_use is None

        def run_block() -> None:
            first, rest = backward(self.ctx, g)
            # (the gathers that read at the source read them here: operand k's, k >= 1, is rest[k - 1];
            # not unpacked into a view per operand, which took 0.3 ms of a one-name GPT step's 14 calls)
            self.kept = (first, rest)
            for view, lo, hi in runs:
                view[...] = rest[lo:hi].reshape(view.shape)
            for array, index, lo, hi in scattered:  # (operand by operand, node by node: as index)
                array[index] = rest[lo:hi].reshape(-1, *rest.shape[2:])
            for k, to in singles:
                to.array[to.key] = (-0.0 if first is None else first) if k == 0 else rest[k - 1]

        return run_block

    def block_backward_rule(self) -> Callable[..., Any]:
        """A block group's backward rule: on its grid (a Dot over a grid), else its block rule's."""
        return dot_grid_backward if self.grid is not None else self.block[1]  # type: ignore[index]

    def writes_one_block(self) -> bool:
        """Whether this block group's backward rule writes all its stacked gradients itself, into
        one block of consecutive rows (``runs``, bound)."""
        runs = self.runs
        return (
            self.block_backward_rule() in WRITES_INTO
            and len(runs) == 1
            and runs[0][1:] == (0, len(self.edges) - 1)
            and runs[0][0].flags.c_contiguous
        )

    def call_backward(self, g: Any) -> list[Any]:
        """The op's own backward on arrays: one gradient per operand (None for none)."""
        fn = self.fn
        assert fn is not None and self.ctx is not None
        try:
            grads = self.rules[1](self.ctx, g)  # type: ignore[index]
        except Exception as exc:
            raise CompileError(
                f"cannot replay {fn.name}.backward on numpy arrays ({exc}); {HOW_TO_FIX}"
            ) from exc
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        # Kept until the next step's backward replaces them, as ``ctx`` keeps the forward's output:
        # large arrays freed at every step shrink the heap, which the next step page-faults back in;
        # held, the heap stays as large as a step needs and the next step's arrays reuse it.
        self.kept = grads
        if len(grads) != len(self.template):
            raise CompileError(
                f"{fn.name}.backward returned {len(grads)} gradient(s) for {len(self.template)} input(s)"
            )
        return grads if self.plain else [grads[i] for i in self.positions]


class Gather:
    """Gradients of several nodes, each the ordered sum of its contribution slots."""

    __slots__ = (
        "by_use",
        "cut",
        "dest",
        "flat",
        "into",
        "lead",
        "scratch",
        "shared",
        "slots",
        "source",
        "src",
        "strided",
        "targets",
        "view",
        "wide",
    )

    def __init__(self, targets: Any, slots: Indices, shared: tuple[bool, ...], wide: bool) -> None:
        self.targets = targets  # where the sums go: rows (a slice when consecutive)
        self.slots = slots  # (uses, nodes): contribution slots, in the order backward adds them
        self.shared = shared  # (batched) per use: the same contribution for every sample
        self.wide = wide  # (batched) write whole rows (else one column: the samples share the sums)
        # into the nodes' gradients (""), or the step's array of that name: the parameters'
        # gradients ("_grads") or (batched) their shared prefixes ("_prefix", see after_shared)
        self.into = ""
        # Per allocation (run.py's CompiledStep.bind): the array its contributions are taken into, when
        # there are several of one kind; where the sums go (``dest``, its rows ``view`` when they
        # are a slice, ``flat`` when one flat view of them takes a reduction's result); ``lead``,
        # the count of leading shared contributions (-1: one reduction over all); ``src``, the
        # contributions the reduction reads, or (mixed) the shared ones' column.
        self.scratch: Any = None
        self.dest: Any = None
        self.view: Any = None
        self.flat: Any = None
        self.lead = -1
        self.src: Any = None
        # (per allocation) when every contribution is one engine op's gradient for one operand:
        # (its group, the index of that gradient, the slots counted from its first); see
        # run.read_at_source
        self.source: Source | None = None
        # (a ragged step's, see ragged.py) per call: the contributions from nodes not in their
        # sample's graph, read as -0.0 (which adds nothing); else None
        self.cut: Cut | None = None
        # (per allocation, a batch's) when the contribution slots are a few regular grids: per
        # grid, the rows of ``dest`` its sums go to (viewed as (a, b, batch)), a strided view of its
        # contributions (uses, a, b, batch), which the cuts write, and an array its sums go to
        # first (``grid_blocks``, ``sum_grids``); else None
        self.strided: list[tuple[Any, Any, Any]] | None = None
        # (per allocation) when its contributions are a fixed grid's inputs', laid out use by use
        # (run.py's _by_use): those rows as (uses, inputs, batch), an array for their sums, and
        # per node, the row of its sums; else None
        self.by_use: tuple[Any, Any, Any] | None = None


class Source(NamedTuple):
    """Where a gather reads its contributions when they are all one engine op's gradients for
    one operand: that op's ``group``, the ``position`` of the gradient in its ``kept`` ones, and the
    ``slots`` of the contributions counted from the first of that group's."""

    group: Group
    position: int
    slots: Any


def as_index(np: Any, rows: Any) -> Any:
    """Rows of an array: a slice when they are consecutive (a view, no copy), else an index array."""
    return as_block(np, rows) or np.array(rows, dtype=np.intp)


def ordered_sum(np: Any, m: Floats, out: Floats | None = None) -> Floats:
    """The rows of ``m`` added first to last, as a chain of ``+`` adds them, starting from
    -0.0, the identity of addition (the eager engine starts from the first term, and
    -0.0 + x is x exactly, signed zeros included).  numpy reduces the outer axis of a
    C-ordered array row by row, a single column pairwise (hence accumulate).  ``out``:
    a 1-D array of ``m``'s row length to write the sums into."""
    if m.shape[0] > 1 and m.shape[1] > 1:
        return np.add.reduce(m, axis=0, initial=-0.0, out=out)  # type: ignore[no-any-return]
    row: Floats = m[0] if m.shape[0] == 1 else np.add.accumulate(m[:, 0])[-1:]
    if out is None:
        return row
    out[...] = row
    return out


def sum_uses(np: Any, gather: Gather, src: Floats, slots: Indices) -> None:
    """A gather's one reduction: the contributions at ``slots`` (uses, nodes) of ``src``, taken
    into the gather's own array, each node's added first to last into its rows of ``dest``."""
    (u, k), terms = slots.shape, src.take(slots, axis=0, out=gather.scratch, mode="clip")
    if gather.cut is not None:
        gather.cut.apply(terms)
    if gather.flat is not None:
        ordered_sum(np, terms.reshape(u, -1), gather.flat)
    else:
        gather.dest[gather.targets] = ordered_sum(np, terms.reshape(u, -1)).reshape(k, *src.shape[1:])


def sum_by_use(np: Any, gather: Gather) -> None:
    """``sum_uses`` for a gather of a fixed grid's inputs' contributions laid out use by use
    (``array_rules.grid_inputs_by_use``): one reduction over consecutive rows, nothing taken, then
    the sums put in the order of the gather's nodes (a gather a ragged step cuts is never one).
    On a 16-name GPT step the 17 gathers of the levels (these five of them) measured 1.4 -> 0.85
    ms, the grids' backward 1.6 -> 2.0 (kprof.py): the backward 0.36-0.46 ms less (100 steps
    interleaved in one process, paired medians)."""
    assert gather.by_use is not None and gather.cut is None
    terms, sums, rows = gather.by_use
    ordered_sum(np, terms.reshape(len(terms), -1), sums.reshape(-1))
    sums.take(rows, axis=0, out=gather.view, mode="clip")  # (in range: clip changes nothing)


def grid_blocks(
    np: Any, slots: Indices, most: int = 8
) -> list[tuple[int, int, int, int, int, int, int]] | None:
    """``slots`` (uses, nodes) as at most ``most`` blocks of consecutive columns whose slots are a
    regular grid: ``(c0, a, b, first, su, sa, sb)``, the slot of use ``u`` of column
    ``c0 + i * b + j`` being ``first + u * su + i * sa + j * sb``; else None.  A Linear layer's
    weights get their contributions so (one per position): one block per weights matrix.

    >>> import numpy as np
    >>> slots = np.array([[0, 10, 1, 11, 2, 12], [20, 30, 21, 31, 22, 32]])  # 2 uses, 20 apart
    >>> grid_blocks(np, slots)                  # 3 rows of 2 columns: rows 1 apart, columns 10
    [(0, 3, 2, 0, 20, 1, 10)]
    >>> grid_blocks(np, np.array([[0], [5], [7]])) is None   # uses not evenly apart
    True
    """
    uses, n = slots.shape
    offsets = slots - slots[0]
    first_row, c0 = slots[0], 0
    blocks: list[tuple[int, int, int, int, int, int, int]] = []
    while c0 < n:
        if len(blocks) == most:
            return None
        same = (offsets == offsets[:, c0 : c0 + 1]).all(axis=0)  # columns whose uses are c0's apart
        sb = int(first_row[c0 + 1] - first_row[c0]) if c0 + 1 < n else 1
        b = 1
        while c0 + b < n and same[c0 + b] and first_row[c0 + b] - first_row[c0 + b - 1] == sb:
            b += 1
        a, sa, row = 1, 0, first_row[c0 : c0 + b]
        while c0 + (a + 1) * b <= n:
            at = c0 + a * b
            step = int(first_row[at] - first_row[c0]) if a == 1 else sa
            if not (same[at : at + b].all() and (first_row[at : at + b] == row + a * step).all()):
                break
            a, sa = a + 1, step
        su = int(offsets[1, c0]) if uses > 1 else 0
        if not (offsets[:, c0] == np.arange(uses) * su).all():
            return None
        blocks.append((c0, a, b, int(first_row[c0]), su, sa, sb))
        c0 += a * b
    return blocks


def sum_grids(np: Any, gather: Gather) -> None:
    """``sum_uses`` for a gather whose contribution slots are regular grids (``grid_blocks``), read
    through strided views instead of taken into an array: each grid's uses added first to last.
    numpy reduces an axis in its order (its reductions never reverse a negative stride), and the
    batch axis, contiguous in both arrays, is in the inner loop (with a grid axis of adjacent
    rows, see run.py's ``_strided``), never the uses axis: so no sum runs pairwise."""
    assert gather.strided is not None
    cut = gather.cut
    if cut is not None and not cut.by_use:  # (a cut per node, not per use: taken)
        sum_uses(np, gather, gather.src, gather.slots)
        return
    # The cut contributions, a use's for its batch's last samples, are set to -0.0 where they are:
    # this gather is their only reader (a reduction ``where=`` a mask runs 5x slower than one without).
    for into, terms, sums in gather.strided:
        if cut is not None:
            cut.apply(terms)
        np.add.reduce(terms, axis=0, initial=-0.0, out=sums)
        into[...] = sums


def as_block(np: Any, rows: Any) -> slice | None:
    """``rows``, an array of slots, as a slice when they are consecutive in their order."""
    flat = np.ravel(rows)
    if flat.size and (flat == np.arange(flat[0], flat[0] + flat.size)).all():
        return slice(int(flat[0]), int(flat[0]) + flat.size)
    return None


def write_to(np: Any, dest: Floats, rows: Any, tail: tuple[int, ...]) -> Target:
    """Where an op's gradients for ``rows`` of ``dest`` go: a ``Target``, its key ``...`` for a
    view of consecutive rows, else the rows.  Into the parameters' gradients, which a batched
    step holds transposed (one row per sample), numpy writes a view along its contiguous axis,
    reading the gradients ``8 * batch`` bytes apart: when that stride is a multiple of 256 bytes
    (a batch of 32, 64, ...) or the block is large, the reads evict each other from the cache
    and row by row, through the rows as an index, is up to 2.5x faster."""
    if type(rows) is not slice:
        return Target(dest, rows)
    transposed = dest.ndim == 2 and dest.strides[0] < dest.strides[1]  # (one row per sample)
    if transposed and (rows.stop - rows.start > 512 or (8 * tail[0]) % 256 == 0):
        return Target(dest, np.arange(rows.start, rows.stop))
    return Target(dest[rows], ...)
