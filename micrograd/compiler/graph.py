"""Phase 2a of ``micrograd.compile``: the traced graph, read for the replay.

``read_graph`` keeps the nodes the loss is computed from, decides how each computed
node runs (its op's ``Function``, or an ordered sum), fuses left chains of additions
into one ordered sum, and numbers the edges in the order the eager ``backward`` walks
them, so that the replay adds a node's gradient contributions in that order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import chain as _chain
from itertools import count, filterfalse, repeat
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from .._core.context import args_of
from .._core.nodes import hooks_of
from ..engine import Add, Function, HandWritten, Value
from ..engine import topological_order as walk
from ..ops.basic import Sub, Sum
from .errors import CompileError, load_numpy
from .trace import Trace

# Sums (a + b, a - b, micrograd.sum) fuse into ordered sums: the sign of each operand after the first.
SUMS: dict[type[Function], float] = {Add: 1.0, Sub: -1.0, Sum: 1.0}  # a - b is a + -1 * b, exactly


class Term(NamedTuple):
    """An operand of a computed node, as the replay reads it: the ``value``, its ``sign`` (-1.0
    for what ``a - b`` subtracts, fused into an ordered sum) and the ``rank`` of the edge, its
    place in the eager backward's order."""

    value: Value
    sign: float
    rank: int


@dataclass
class Graph:
    """The traced graph as the plan reads it.

    ``nodes``: the live nodes (the loss depends on them), in topological order; ``computed``:
    those computed by the replay (fused links gone), in that order; ``ops``: how each computed
    node runs (absent: an ordered sum); ``operands``: an ordered sum's terms (an op's, as
    ``terms`` gives them, are its operands in order: no list kept per op); ``rank``: the place of edge
    ``(node, 0)`` in the eager backward's order (edge ``(node, k)``'s is ``rank[node] + k``);
    ``level``: 1 + the deepest operand's;
    ``needs_grad``: whether a gradient reaches it from a parameter; ``reached``: per parameter,
    whether the loss's graph holds it (the eager backward walks it: where every path carries a
    gradient, as in ``nn.GPT``'s loss, exactly where ``grad(..., allow_unused=True)`` gives a number)."""

    trace: Trace
    nodes: list[Value]
    computed: list[Value] = field(default_factory=list)
    ops: dict[Value, type[Function]] = field(default_factory=dict)
    operands: dict[Value, list[Term]] = field(default_factory=dict)
    rank: dict[Value, int] = field(default_factory=dict)
    level: dict[Value, int] = field(default_factory=dict)
    needs_grad: dict[Value, bool] = field(default_factory=dict)
    param_index: dict[Value, int] = field(default_factory=dict)
    input_index: dict[Value, int] = field(default_factory=dict)
    reached: list[bool] = field(default_factory=list)
    n_edges: int = 0  # the count of edges ranked, every rank below it
    numbered: Edges = field(init=False)  # (read_graph) the edges numbered, for numpy passes

    def terms(self, v: Value) -> list[Term]:
        """The terms of computed node ``v``: an ordered sum's, or an op's operands in order, each
        with sign 1.0 and the rank of its edge (``rank[v] + k``)."""
        if v in self.ops:
            return list(map(_new_term, repeat(Term), zip(v._prev, repeat(1.0), count(self.rank[v]))))
        return self.operands[v]


class Edges:
    """The graph's edges numbered once, for the planner's numpy passes: ``index``, each node's number
    (its place in ``graph.nodes``); ``ranks``, the ranks of the edges that bring a node a gradient
    (its operand needs one), node by node, each node's in rank order, the order the eager backward
    adds them in, from ``start`` on (by number); ``uses`` (``counts``, a list), each node's count
    of them, by number; ``needs``, whether it needs a gradient, by
    number; ``invariant``, by number, the computed nodes that read no input, through the engine's
    own ops only (``sharing.py``'s shared values); ``operand_ids``, the numbers of every op node's
    operands in turn, node ``v``'s from ``first_operand[v]`` on.

    Grouped by node in numpy, not edge by edge in Python: a 13-token GPT step's plan has 107,000
    edges, and a Python statement each took 40 ms."""

    def __init__(self, np: Any, graph: Graph) -> None:
        nodes, ops, operands = graph.nodes, graph.ops, graph.operands
        self.index = index = dict(zip(nodes, count()))
        # (no tuple made per edge: an op's edges are its operands, ranked from its node's rank on; an
        # ordered sum's, its terms)
        run = list(filter(ops.__contains__, graph.computed))
        summed = list(filterfalse(ops.__contains__, graph.computed))
        terms = list(_chain.from_iterable(map(operands.__getitem__, summed)))
        arity = np.fromiter(map(len, map(_operands, run)), np.intp, len(run))
        first = np.fromiter(map(graph.rank.__getitem__, run), np.intp, len(run))
        n_op = int(arity.sum())
        before = np.cumsum(arity) - arity  # (each op node's first edge in the flat arrays)
        self.first_operand = dict(zip(run, before.tolist()))
        # each op edge's rank: its node's first, plus its place among the node's operands
        at = concatenated_ranges(np, first, arity)
        ids = np.fromiter(
            map(index.__getitem__, _chain(_chain.from_iterable(map(_operands, run)), map(_first, terms))),
            np.intp,
            n_op + len(terms),
        )
        self.operand_ids = ids[:n_op]
        ranks = np.concatenate((at, np.fromiter(map(_third, terms), np.intp, len(terms))))
        counts = np.concatenate((arity, np.fromiter(map(len, map(operands.__getitem__, summed)), np.intp)))
        # (an op not of the engine's own, a user Function's: what it computes is never shared)
        own = np.fromiter(map(_builtin, map(ops.__getitem__, run)), bool, len(run))
        opaque = np.concatenate((~own, np.zeros(len(summed), dtype=bool)))
        self.needs, self.invariant = levels_and_needs(np, graph, index, [*run, *summed], counts, ids, opaque)
        needs = self.needs
        keep = needs[ids]
        ids, ranks = ids[keep], ranks[keep]
        # by node, then by rank (ranks: 0 to n_edges - 1); the keys are unique, so any sort gives this
        # order: "stable", a merge sort of the runs the keys come in (a 17-token GPT trace: 7.0 -> 1.6 ms)
        order = np.argsort(ids * graph.n_edges + ranks, kind="stable")
        ids, ranks = ids[order], ranks[order]
        starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1]))) if len(ids) else ids
        ends = np.append(starts[1:], len(ids))
        self.uses = np.zeros(len(nodes), dtype=np.intp)
        self.uses[ids[starts]] = ends - starts
        # (arrays, not a list of ranks per node: 11,000 lists took 7 ms to make)
        self.ranks, self.start = ranks, np.zeros(len(nodes), dtype=np.intp)
        self.start[ids[starts]] = starts
        self.counts: list[int] = self.uses.tolist()

    def incoming(self, v: Value) -> list[int]:
        """The ranks of the edges that bring ``v`` a gradient, in rank order (none: ``[]``)."""
        i = self.index[v]
        start = int(self.start[i])
        return self.ranks[start : start + self.counts[i]].tolist()  # type: ignore[no-any-return]


def unreplayable(node: Value) -> str | None:
    """Why ``node`` cannot be replayed on arrays, or None."""
    if hooks_of(node):
        return (
            f"a Value ({node!r}) has hooks (register_hook), which only the eager engine calls; "
            "remove them (handle.remove()) before compiling, or train eagerly"
        )
    if node._fn is HandWritten:
        return (
            f"op {node._op or '?'!r} has a hand-written _backward closure, which works on floats only; "
            "define it as a micrograd.Function to compile it"
        )
    if node._fn is None:
        return (
            f"op {node._op or '?'!r} was built by hand (Value(data, children, op)) without a derivative "
            "rule; define it as a micrograd.Function to compile it"
        )
    return None


def read_graph(trace: Trace) -> Graph:
    """The traced graph, ready to plan: live nodes, ops, fused sums, edge ranks and levels."""
    param_index = {p: i for i, p in enumerate(trace.params)}
    behind = walk((trace.root,))  # (every node the eager backward walks, a parameter's own operands too)
    order = list(behind)
    nodes = order
    if any(map(_operands, trace.params)):  # (compile's parameters are leaves: then every node is live)
        live = {trace.root}  # parameters and inputs are leaves here
        for node in reversed(order):
            if node in live and node._prev and node not in param_index:
                live.update(node._prev)
        nodes = [v for v in order if v in live]
    graph = Graph(trace, nodes, param_index=param_index)
    graph.input_index = {x: i for i, x in enumerate(trace.inputs)}
    graph.reached = [p in behind for p in trace.params]
    # the nodes the replay computes (those with operands, not an input or a parameter, which it
    # reads), asked once here, not by each pass below (a GPT step: 10,000), with no call per node
    fed = param_index.keys() | graph.input_index.keys()
    here = list(filterfalse(fed.__contains__, filter(_operands, graph.nodes)))
    sums = classify(graph, here)
    rank_edges(graph, here)
    fuse_sums(graph, sums, here)
    ops, operands = graph.ops, graph.operands
    graph.computed = [v for v in here if v in ops or v in operands]  # (a fused link: in neither)
    graph.numbered = Edges(load_numpy(), graph)  # (and each computed node's level and needs)
    return graph


_new_term, flatten = tuple.__new__, _chain.from_iterable
_first, _third = itemgetter(0), itemgetter(2)
_operands, _builtin = attrgetter("_prev"), attrgetter("builtin")


def levels_and_needs(
    np: Any,
    graph: Graph,
    index: dict[Value, int],
    consumers: list[Value],
    arity: Any,
    operand_ids: Any,
    opaque: Any,
) -> tuple[Any, Any]:
    """Each computed node's level (1 + its deepest operand's; a leaf's is 0), whether a gradient
    reaches it and whether it depends on no input through ``opaque`` ops only (per consumer: a
    user ``Function``'s), from the numbered edges: ``operand_ids`` holds the operands of
    ``consumers`` (the computed nodes), ``arity`` of each in turn.  In waves, in numpy: the nodes
    whose operands are all done, then those they complete, and so on (a GPT step's 43 levels),
    not node by node (a 13-token GPT: 12-16 ms that way, for 107,000 operands).  Set in
    ``graph.level`` and ``graph.needs_grad``; returned, by node number (``index``): the needs,
    and the computed nodes that read no input and no opaque op (``Edges.invariant``)."""
    n = len(graph.nodes)
    cons = np.fromiter(map(index.__getitem__, consumers), np.intp, len(consumers))
    first_edge = np.cumsum(arity) - arity
    owner = np.repeat(np.arange(len(consumers)), arity)  # (each edge's consumer, by place)
    computed = np.zeros(n, dtype=bool)
    computed[cons] = True
    level = np.zeros(n, dtype=np.intp)
    needs = np.zeros(n, dtype=bool)
    needs[[index[p] for p in graph.trace.params if p in index]] = True
    varies = np.zeros(n, dtype=bool)
    varies[[index[x] for x in graph.trace.inputs if x in index]] = True
    by_operand = stable_order(np, operand_ids, n)  # (the edges out of each node, together)
    out_count = np.bincount(operand_ids, minlength=n)
    out_first = np.cumsum(out_count) - out_count  # (where each node's run begins in by_operand)
    waiting = np.zeros(len(consumers), dtype=bool)  # (scratch: the consumers a wave completes)
    pending = np.bincount(owner[computed[operand_ids]], minlength=len(consumers))  # operands not done
    ready = np.flatnonzero(pending == 0)
    while ready.size:
        sizes = arity[ready]
        offsets = np.cumsum(sizes) - sizes
        reads = operand_ids[concatenated_ranges(np, first_edge[ready], sizes)]
        done = cons[ready]
        level[done] = 1 + np.maximum.reduceat(level[reads], offsets)
        needs[done] = np.logical_or.reduceat(needs[reads], offsets)
        varies[done] = np.logical_or.reduceat(varies[reads], offsets) | opaque[ready]
        # their consumers have one operand fewer to wait for per edge from them
        outs = out_count[done]
        places = concatenated_ranges(np, out_first[done], outs)
        users = owner[by_operand[places]]
        pending -= np.bincount(users, minlength=len(consumers))
        # (marked, then read back: sorted and each once, as np.unique gives them, without its sort)
        waiting[users[pending[users] == 0]] = True
        ready = np.flatnonzero(waiting)
        waiting[ready] = False
    assert not pending.any(), "a computed node whose operands were never all done"
    # (by number: a node not computed, a leaf or a fused link, was never done, its level left 0)
    graph.level.update(zip(graph.nodes, level.tolist()))
    in_order = np.fromiter(map(index.__getitem__, graph.computed), np.intp, len(graph.computed))
    graph.needs_grad.update(dict.fromkeys(graph.trace.params, True))
    graph.needs_grad.update(zip(graph.computed, needs[in_order].tolist()))
    return needs, computed & ~varies


def stable_order(np: Any, keys: Any, bound: int) -> Any:
    """``np.argsort(keys, kind="stable")`` for keys in ``range(bound)``: the order is the same
    whatever the sort, and numpy radix-sorts keys of 16 bits, where it merge-sorts wider ones
    (a 17-token GPT trace's 141,000 operands: 1.8 -> 1.2 ms).

    >>> np = load_numpy()
    >>> stable_order(np, np.array([2, 0, 2, 1]), 3).tolist()
    [1, 3, 0, 2]
    """
    if bound <= 1 << 16:
        keys = keys.astype(np.uint16)
    return np.argsort(keys, kind="stable")


def concatenated_ranges(np: Any, starts: Any, sizes: Any) -> Any:
    """``starts[i]`` to ``starts[i] + sizes[i] - 1`` for each ``i`` in turn, as one array: the places
    of each node's run of edges, all at once.

    >>> np = load_numpy()
    >>> concatenated_ranges(np, np.array([5, 0]), np.array([2, 3])).tolist()
    [5, 6, 0, 1, 2]
    """
    before = np.cumsum(sizes) - sizes  # (where each run begins in the result)
    return np.repeat(starts - before, sizes) + np.arange(int(sizes.sum()))


def classify(graph: Graph, here: list[Value]) -> dict[Value, float]:
    """Fill ``graph.ops`` with the nodes run by their op (of ``here``, the nodes the replay
    computes); return the additions (node -> the sign of its operands after the first), which
    fuse into ordered sums.  A node the replay cannot run is a ``CompileError`` naming it."""
    computed = set(here)
    for v in graph.nodes:  # the first node in order that cannot be replayed is the one named
        # (a node without _extra has no hooks and no kept arguments: nothing more to ask)
        fn = v._fn
        if v in computed and (fn is HandWritten or fn is None or v._extra is not None):
            why = unreplayable(v)
            if why is not None:
                raise CompileError(f"cannot replay the traced graph: {why}")
        elif v._extra is not None and hooks_of(v):
            raise CompileError(f"cannot replay the traced graph: {unreplayable(v)}")
    sums: dict[Value, float] = {}
    ops = graph.ops
    for v in here:
        fn = v._fn
        assert fn is not None  # (unreplayable: checked above)
        if fn in SUMS and len(args_of(v)) == len(v._prev):
            sums[v] = SUMS[fn]
        else:
            ops[v] = fn
    return sums


def rank_edges(graph: Graph, here: list[Value]) -> None:
    """The eager backward's order: reverse topological, operands in order. Each (node, operand)
    edge gets its rank, so that a node's gradient adds its contributions in the same order.
    ``here``: the nodes the replay computes, in topological order (a leaf has no edges)."""
    n, rank = 0, graph.rank
    for v in reversed(here):
        rank[v] = n
        n += len(v._prev)
    graph.n_edges = n


def fuse_sums(graph: Graph, sums: dict[Value, float], here: list[Value]) -> None:
    """Left chains of +, - and micrograd.sum, each link the first operand of the next and used
    only there, as one ordered sum each (``graph.operands``): the eager floats, links gone."""
    # (the count of uses of each sum that is the first operand of a sum, the only ones asked: a link
    # fuses when used once; none in a GPT step, whose 100,000 edges are then not walked)
    links = {first for first in map(_first, map(_operands, sums)) if first in sums}
    uses = Counter(filter(links.__contains__, flatten(map(_operands, here)))) if links else Counter()
    terms = graph.operands
    for v in sums:  # (in topological order, as ``here``: a link is fused before its sum)
        first, *rest = v._prev
        fuse = first in terms and uses[first] == 1
        base = graph.rank[v]
        chain = terms.pop(first) if fuse else [Term(first, 1.0, base)]
        chain += [Term(c, sums[v], base + k) for k, c in enumerate(rest, 1)]
        terms[v] = chain
