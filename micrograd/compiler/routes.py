"""Phase 2c of ``micrograd.compile``'s plan: where every gradient contribution goes.

Each group becomes a ``Group`` bound to its slots.  For every edge whose operand needs
a gradient, the backward sends the contribution either straight into the gradient of
its target (a node used once, or a parameter's last use after shared ones) or into a
contribution slot; a ``Gather`` then adds up each node's contribution slots in the
eager order (the gathers of a level that differ only in their count of contributions as
one, each node's padded with a slot that holds -0.0, which adds nothing: ``merge_counts``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain as _chain
from itertools import compress, repeat
from operator import attrgetter, not_
from typing import Any

from ..engine import Value
from .errors import load_numpy
from .graph import Graph, Term
from .group_nodes import GroupKey, Pads, Template, merged_arity
from .kernels import C_FIRST, CONTRIB, G_FIRST, GRADS, GVALS, Edge, Gather, Group, as_block, as_index
from .sharing import Sharing
from .slots import Layout


def per_operand(np: Any, numbers: Iterable[Any], nodes: int, dtype: Any = None) -> Any:
    """``numbers``, one per operand of each of ``nodes`` nodes in turn (all of one count of
    operands), as an (operands, nodes) array (of ``dtype``, slots: ``np.intp``): read by one
    ``np.fromiter``, not a list per node."""
    flat = np.fromiter(numbers, np.intp if dtype is None else dtype)
    return flat.reshape(nodes, len(flat) // nodes).T.copy()


def rank_array(np: Any, ranks: Any) -> Any:
    """``ranks`` (an array of ranks, or a sequence of ranks and None) as an array, -1 for None."""
    if isinstance(ranks, np.ndarray):
        return ranks
    if None not in ranks:  # (most: no pad, converted at C speed)
        return np.array(ranks, dtype=np.intp)
    return np.fromiter((-1 if r is None else r for r in ranks), np.intp, len(ranks))


def operand_rows(np: Any, args: Any) -> list[Any]:
    """Each operand's rows of an op group's ``args`` (operands, nodes), as ``as_index`` gives them (a
    slice where consecutive, else an index array), all operands tested in one comparison, not a
    few numpy calls each (a GPT's Dot groups have up to 129 operands: 3,000 in a trace)."""
    nodes = args.shape[1]
    consecutive = (args == args[:, :1] + np.arange(nodes)).all(axis=1).tolist()
    return [
        slice(int(a[0]), int(a[0]) + nodes) if whole else np.array(a, dtype=np.intp)
        for a, whole in zip(args, consecutive)
    ]


_value, _sign = attrgetter("value"), attrgetter("sign")  # (a Term's)
_operands = attrgetter("_prev")

NONE_SHARED = [(False,) * n for n in range(64)]  # (Router.gathers) no contribution shared, by count


class Router:
    """Decides where contributions go, handing out contribution slots as it goes.

    ``incoming``: the ranks of the edges that bring each node a gradient; ``edge_slot``: the
    contribution slot of each gathered edge, by rank (an array: -1 for an edge not gathered);
    ``prefixed``: parameters whose last contribution goes straight in, after their shared ones
    (see ``after_shared``); ``blocks``: per block of
    contribution slots handed out, ``(first slot, end, first node's value slot, nodes)``: slot
    ``first + i * nodes + j`` holds a contribution from the node at value slot ``node + j``."""

    def __init__(
        self, graph: Graph, sharing: Sharing, layout: Layout, batched: bool, pads: Pads | None = None
    ) -> None:
        self.graph, self.sharing, self.layout, self.batched = graph, sharing, layout, batched
        # what merged groups pad their nodes' operands with (group_nodes.Pads); None: merge nothing
        self.pads = pads
        np = load_numpy()
        self.edges = graph.numbered
        # each node's value slot, by number (-1: a fused link's, which has none)
        self.slot_of = np.fromiter(map(layout.slot.get, graph.nodes, repeat(-1)), np.intp, len(graph.nodes))
        # (an array, not a dict: a GPT step gathers 66,000 edges, set a block at a time)
        self.edge_slot = np.full(graph.n_edges, -1, dtype=np.intp)
        self.n_contrib = 0
        self.blocks: list[tuple[int, int, int, int]] = []
        self.prefixed: list[Value] = []
        self.went_straight: set[Value] = set()  # the targets of the edges straight() sent straight in
        self.pad_slot = -1  # (made when gathers are merged) a contribution slot that holds -0.0

    def after_shared(self, c: Value, r: int) -> bool:
        """(Batched) edge ``r`` is parameter ``c``'s last contribution, the only one that differs
        between samples: the shared ones before it add up once, on one column, into the
        parameter's shared prefix, which ``BatchedStep`` adds to every sample's gradient
        afterwards (``prefix + x`` is ``x + prefix``, bit for bit)."""
        rs, shared = self.edges.incoming(c), self.sharing.edges
        return (
            self.batched
            and c in self.graph.param_index
            and r == max(rs)
            and r not in shared
            and all(x in shared for x in rs if x != r)
        )

    def straight(self, targets: Sequence[Value], ranks: Sequence[int]) -> Edge | None:
        """Where contributions can go straight into their targets' gradients: each is the target's
        only one (nothing to add), unused (a constant's, an input's) or a parameter's last after
        shared ones, the targets all parameters or all nodes whose gradients are read alike; the
        ``Edge`` (its rows a list), else None."""
        is_param = self.graph.param_index.__contains__
        # (maps, not a Python frame per target: a GPT step asks this of 70,000 edges)
        counts = list(map(self.edges.counts.__getitem__, map(self.edges.index.__getitem__, targets)))
        if max(counts, default=0) > 1 and not (
            self.batched and all(n <= 1 or self.after_shared(c, r) for c, r, n in zip(targets, ranks, counts))
        ):
            return None
        if all(map(is_param, targets)):
            self.prefixed.extend(c for c, n in zip(targets, counts) if n > 1)
            self.went_straight.update(targets)
            return Edge(GRADS, [self.layout.grad_row[c] for c in targets])
        # one column only?
        read_first = set(map(self.sharing.narrow.__contains__, compress(targets, counts)))
        if any(map(is_param, targets)) or len(read_first) > 1:
            return None
        self.went_straight.update(targets)
        return Edge(G_FIRST if True in read_first else GVALS, [self.layout.slot[c] for c in targets])

    def gathered(self, ranks: Any, narrow: bool, node: int, nodes: int) -> Edge:
        """Contribution slots for the edges ``ranks``, in order (to be gathered), out of the ``nodes``
        nodes from value slot ``node`` on (term by term, node by node: ``blocks``); a rank None (a
        merged group's pad, or an operand that needs no gradient) gets a slot no gather reads."""
        np = load_numpy()
        ranks = rank_array(np, ranks)
        start, stop = self.n_contrib, self.n_contrib + len(ranks)
        self.blocks.append((start, stop, node, nodes))
        real = ranks >= 0  # (-1: a rank None)
        self.edge_slot[ranks[real]] = np.arange(start, stop)[real]
        self.n_contrib = stop
        return Edge(C_FIRST if narrow else CONTRIB, slice(start, stop))

    def group(self, key: GroupKey, members: list[Value], templates: dict[Value, Template]) -> Group:
        """The ``Group`` of ``members``, its operands' rows and its edges."""
        start = self.layout.slot[members[0]]
        if key.op is None:
            grp = self.sum_group(key, members, start)
        else:
            grp = self.op_group(key, members, templates[members[0]], start)
        grp.shared, grp.narrow = key.shared, key.narrow
        grp.wide = not grp.shared or any(v in self.sharing.wide for v in members)
        return grp

    def sum_group(self, key: GroupKey, members: list[Value], start: int) -> Group:
        """An ordered sum's group: its terms as a (terms, nodes) matrix of slots, and its edges, term
        by term (a row: that term of every node), one per kind of destination, the terms that
        cannot go straight into one block of contribution slots."""
        np, slot = load_numpy(), self.layout.slot
        grp = Group(None, (), start, start + len(members))
        cols: list[list[Term]] = [self.graph.operands[v] for v in members]
        arity = merged_arity(key)
        if arity:  # (merged: every node's terms padded with -0.0, a pad's rank None)
            assert self.pads is not None
            pad = Term(self.pads.minus_zero, 1.0, None)  # type: ignore[arg-type]
            cols = [col + [pad] * (arity - len(col)) for col in cols]
        # (every node's terms of one count: read by maps over them all, not a list per node)
        terms = list(_chain.from_iterable(cols))
        grp.args = [per_operand(np, map(slot.__getitem__, map(_value, terms)), len(members))]
        signs = per_operand(np, map(_sign, terms), len(members), np.float64)
        # shaped to multiply the (terms, nodes[, batch]) arrays of the replay
        grp.signs = None if (signs > 0).all() else signs.reshape(signs.shape + (1,) * self.batched)
        # the terms' rows: one block of slots (see slots.py), read as a view, else gathered;
        # a view only without signs, which the replay multiplies the terms by in place
        block = as_block(np, grp.args[0]) if grp.signs is None else None
        grp.rows = [block] if block is not None else grp.args
        if not any(key.needs):
            return grp
        rows = list(zip(*cols))  # (terms, nodes)
        by_kind: dict[int, tuple[list[int], list[Any]]] = {}
        gathered_terms: list[int] = []
        for t, row in enumerate(rows):
            padded = any(term.rank is None for term in row)
            to = None if padded else self.straight([term.value for term in row], [term.rank for term in row])
            if to is None:
                gathered_terms.append(t)
            else:
                terms_k, rows_k = by_kind.setdefault(to.dest, ([], []))
                terms_k.append(t)
                rows_k.append(to.rows)
        for kind, (terms_k, rows_k) in by_kind.items():
            grp.edges.append(Edge(kind, np.array(rows_k, dtype=np.intp), terms_k))
        if gathered_terms:  # the slot of its i-th gathered term of node j: i * len(members) + j
            ranks = [term.rank for t in gathered_terms for term in rows[t]]
            edge = self.gathered(ranks, key.narrow, start, len(members))
            grp.edges.append(edge._replace(terms=gathered_terms))
        return grp

    def op_group(self, key: GroupKey, members: list[Value], template: Template, start: int) -> Group:
        """An op's group: one index array of slots per operand, and one edge per operand."""
        np, slot, rank = load_numpy(), self.layout.slot, self.graph.rank
        assert key.op is not None
        # (by maps at C speed: a GPT trace's op groups have 25,000 members)
        prevs: list[Sequence[Value]] = list(map(_operands, members))
        bases = list(map(rank.__getitem__, members))  # (operand k's edge: rank k after its node's)
        ranks_of: list[list[int | None]] = []  # (merged) each node's operands' ranks, None for a pad
        arity = merged_arity(key)
        if arity:  # merged: every node's operands padded (group_nodes.Pads)
            assert self.pads is not None
            pad = self.pads.operands
            template = tuple((True, k) for k in range(arity))
            prevs = [pad(key.op, p, arity) for p in prevs]
            ranks_of = [pad(key.op, range(b, b + len(v._prev)), arity, None) for b, v in zip(bases, members)]
        grp = Group(key.op, template, start, start + len(members))
        grp.needs = tuple(key.needs[v] if is_operand else False for is_operand, v in grp.template)
        # an index array of slots per operand (operands, nodes), and per operand the most
        # contributions one of its nodes gets, for all operands at once (a GPT step's Dot groups
        # have 129 operands and 70,000 edges in all): from the operands' numbers (``Edges``), or
        # merged, with pads that are no node of the graph, one row of slots per node, transposed
        if arity:
            args = per_operand(np, map(slot.__getitem__, _chain.from_iterable(prevs)), len(members))
            # (a pad, no node: -1, which reads the 0 appended)
            ids = map(self.edges.index.get, _chain.from_iterable(prevs), repeat(-1))
            uses = np.append(self.edges.uses, 0)[per_operand(np, ids, len(members))]
            most = uses.max(axis=1)
        else:
            at = np.fromiter(map(self.edges.first_operand.__getitem__, members), np.intp, len(members))
            ids = self.edges.operand_ids[np.add.outer(np.arange(len(prevs[0])), at)]
            args, most = self.slot_of[ids], self.edges.uses[ids].max(axis=1)
        grp.args = list(args)
        # the engine's ops never write into their operands: views of consecutive rows will do
        grp.rows = operand_rows(np, args) if key.op.builtin else grp.args
        # (an array of ranks per operand, or merged a tuple with None for each pad)
        by_operand = list(zip(*ranks_of)) if arity else np.add.outer(range(len(key.needs)), bases)
        for k, flag in enumerate(key.needs):
            if not flag:
                grp.edges.append(None)
                continue
            ranks = by_operand[k]
            # A node with several contributions gathers them, unless it is a parameter whose last
            # comes after shared ones (``after_shared``): never when no sample shares an edge (most
            # batched steps: their weights' many uses), so straight() need not be asked
            gather = (arity > 0 and None in ranks) or (
                most[k] > 1 and not (self.batched and self.sharing.edges)
            )
            # (operand k of every member, listed only when asked: most of a GPT's are gathered)
            to = None if gather else self.straight([p[k] for p in prevs], list(map(int, ranks)))
            grp.edges.append(
                to._replace(rows=as_index(np, to.rows))
                if to
                else self.gathered(ranks, key.narrow, start, len(members))
            )
        return grp

    def gathers(
        self,
        has: Any,
        counts: Any,
        nodes: Sequence[Value],
        target: dict[Value, int],
        into: str = "",
    ) -> Iterable[tuple[int, Gather]]:
        """Gathers for ``nodes`` whose contributions sit in contribution slots (``has``, by node
        number: the first ``counts`` of its incoming edges, ``graph.Edges``): one per level, count
        and kind of contributions, and width, each with its level.  The eager backward adds a
        node's contributions in rank order; so do they (each node's ranks are in that order)."""
        np, graph, sharing, edges = load_numpy(), self.graph, self.sharing, self.edges
        # the nodes that gather, in order (a node of no number, a parameter the loss does not read: -1)
        ids = np.fromiter(map(edges.index.get, nodes, repeat(-1)), np.intp, len(nodes))
        take = np.append(has, False)[ids]
        root = edges.index.get(graph.trace.root, -1)
        if root >= 0:
            take &= ids != root
        at = np.flatnonzero(take)
        present = list(map(nodes.__getitem__, at.tolist()))
        ids = ids[at]
        n_of = counts[ids].tolist()
        # each node's bucket key, made by maps at C speed, not a Python call per node (a GPT step's
        # gathers sort 11,000 nodes): its level, the kinds of its contributions, whether wide
        levels = map(graph.level.get, present, repeat(0))
        if sharing.edges:
            starts = edges.start[ids].tolist()
            ranks = [edges.ranks[a : a + n].tolist() for a, n in zip(starts, n_of)]
            kind_of: Iterable[tuple[bool, ...]] = map(self.kinds, ranks)
        else:  # (no contribution shared: one tuple per count)
            most = max(n_of, default=0)
            table = NONE_SHARED if most < len(NONE_SHARED) else [(False,) * n for n in range(most + 1)]
            kind_of = map(table.__getitem__, n_of)
        # into the parameters' gradients: whole rows; into nodes': one column if shared
        wides = repeat(True) if into else map(not_, map(sharing.narrow.__contains__, present))
        buckets: dict[tuple[Any, ...], list[Value]] = {}
        for key, v in zip(zip(levels, kind_of, wides), present):
            members = buckets.get(key)
            if members is None:
                buckets[key] = [v]
            else:
                members.append(v)
        for (level, kinds, wide), members in (
            self.merge_counts(buckets) if self.pads and not into else buckets.items()
        ):
            slots = self.slot_matrix(members, counts, len(kinds))
            gather = Gather(as_index(np, [target[v] for v in members]), slots, kinds, wide)
            gather.into = into
            yield level, gather

    def kinds(self, ranks: list[int]) -> tuple[bool, ...]:
        """Per edge of ``ranks``, whether the samples share its contribution (asked where some are
        shared: ``gathers`` gives a step that shares none one tuple per count)."""
        return tuple(map(self.sharing.edges.__contains__, ranks))

    def slot_matrix(self, members: list[Value], counts: Any, uses: int) -> Any:
        """The contribution slots of ``members``' edges (the first ``counts`` of each one's incoming
        edges, by number), as a (uses, nodes) index array, a node with fewer padded with ``pad_slot``
        (-0.0).  Taken from the numbered edges' ranks in numpy, not from a list per node (a GPT
        step's gathers read 66,000 slots)."""
        np, edges = load_numpy(), self.edges
        ids = np.fromiter(map(edges.index.__getitem__, members), np.intp, len(members))
        use = np.arange(uses)[:, None]
        real = use < counts[ids][None, :]  # (counts merged by merge_counts: the rest are pads)
        at = np.minimum(edges.start[ids][None, :] + use, max(len(edges.ranks) - 1, 0))
        slots = np.where(real, self.edge_slot[edges.ranks[at]] if len(edges.ranks) else -1, self.pad_slot)
        assert (slots >= 0).all(), "an edge gathered without a contribution slot"
        return slots

    def merge_counts(
        self, buckets: dict[tuple[Any, ...], list[Value]], waste: float = 2.0
    ) -> list[tuple[tuple[Any, ...], list[Value]]]:
        """The buckets of one level and width whose contributions no sample shares, merged across
        their counts of contributions while the merged one adds at most ``waste`` times the numbers
        (as ``group_nodes.pad_groups`` merges groups): each node's slots padded to the most with
        ``pad_slot``, a contribution slot that holds -0.0, which adds nothing."""
        families: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
        for key in buckets:
            level, kinds, wide = key
            if kinds and not any(kinds):
                families.setdefault((level, wide), []).append(key)
        out = dict(buckets)
        for family in families.values():
            family.sort(key=lambda k: len(k[1]))
            runs: list[list[tuple[Any, ...]]] = []
            for key in family:
                run = [*runs[-1], key] if runs else []
                most = len(run[-1][1]) if run else 0
                if run and most * sum(len(buckets[k]) for k in run) <= waste * sum(
                    len(k[1]) * len(buckets[k]) for k in run
                ):
                    runs[-1].append(key)
                else:
                    runs.append([key])
            for run in runs:
                if len(run) < 2:
                    continue
                if self.pad_slot < 0:
                    self.pad_slot, self.n_contrib = self.n_contrib, self.n_contrib + 1
                members = {v: None for k in run for v in buckets[k]}  # (each bucket in its order)
                merged = (run[0][0], run[-1][1], run[0][2])
                for k in run:
                    del out[k]
                out[merged] = list(members)
        return list(out.items())
