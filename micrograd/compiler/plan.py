"""Phase 2 of ``micrograd.compile``: the plan, what a compiled step runs and where each number lives.

``make_plan`` reads the traced graph (``graph.py``), groups its nodes so that one numpy
call computes a group (``group_nodes.py``), lays out the value arrays (``slots.py``, an
optional pass), finds what the samples of a batch share (``sharing.py``, an optional
pass for batched steps) and decides where every gradient contribution goes
(``routes.py``).  Each user op is then run once on small arrays and checked against the
eager engine (``probe``), so that an op that only works on floats fails here, at compile
time, with a ``CompileError`` that says how to fix it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import Value, vjp
from .errors import HOW_TO_FIX, CompileError, load_numpy
from .graph import Graph, read_graph
from .group_nodes import Pads, group_nodes, pad_groups
from .kernels import Gather, Group
from .routes import Router
from .sharing import Sharing, shared_by_all_samples
from .slots import Layout, assign_slots, frozen_values, place_blocks
from .trace import Trace


@dataclass
class Plan:
    """A compiled step's program: the ``groups`` (with their levels) in the order the forward runs
    them; the ``gathers`` of the nodes' gradients by level, then those of the parameters'
    gradients (``param_gathers``) and (batched) of their shared prefixes (``prefix_gathers``);
    the ``layout`` of the value arrays and the count of contribution slots, ``n_contrib``."""

    trace: Trace
    layout: Layout
    groups: list[tuple[int, Group]]
    gathers: dict[int, list[Gather]]
    param_gathers: list[Gather]
    prefix_gathers: list[Gather]
    n_contrib: int
    num_nodes: int  # traced nodes the loss depends on
    reached: list[bool]  # per parameter: whether the loss's graph holds it (Graph.reached)
    # what ragged.py reads to cut a sample's graph: the graph and the parameters whose last
    # contribution goes straight in (Router's)
    graph: Graph | None = None
    prefixed: list[Value] = field(default_factory=list)
    pad_slot: int = -1  # a contribution slot that holds -0.0, which merged gathers pad with; -1: none
    # whose edges fill the contribution slots, block by block (Router.blocks): what ragged.py tags them by
    contrib_blocks: list[tuple[int, int, int, int]] = field(default_factory=list)

    @property
    def levels(self) -> int:
        return max((level for level, _ in self.groups), default=0)

    @property
    def frozen_values(self) -> int:
        """Leaves from outside the traced function that are not parameters: frozen."""
        return frozen_values(self.layout)


def make_plan(
    trace: Trace, batched: bool = False, share: bool = True, layout: bool = True, pad: bool = True
) -> Plan:
    """The plan of ``trace``'s replay; ``batched``: one row of numbers per sample.  The optional
    passes: ``share`` (batched only) computes once what the samples share, ``layout`` places
    operands so that ops read them as views, ``pad`` merges the groups of a level that differ
    only in their count of operands (``group_nodes.pad_groups``), and the gathers of a level that
    differ only in their count of contributions (``Router.merge_counts``).  Turned off, the
    numbers are the same.

    >>> from micrograd.compiler.trace import trace
    >>> w = Value(0.5)
    >>> plan = make_plan(trace(lambda x: (w * x).tanh() + w, (2.0,), [w]))
    >>> [(level, grp.fn.name if grp.fn else "sum") for level, grp in plan.groups]
    [(1, '*'), (2, 'tanh'), (3, 'sum')]
    """
    graph = read_graph(trace)
    sharing = shared_by_all_samples(graph) if batched and share else Sharing()
    keys, groups, templates = group_nodes(graph, sharing)
    pads = Pads()
    if pad:
        keys = pad_groups(keys, groups, pads)
    lead = place_blocks(keys, groups, graph) if layout else {}
    slots = assign_slots(graph, keys, groups, lead, reading_order=layout, pads=pads.constants())
    router = Router(graph, sharing, slots, batched, pads if pad else None)
    built = [(key.level, router.group(key, groups[key], templates)) for key in keys]
    node_gathers, param_gathers, prefix_gathers = plan_gathers(graph, router, slots)
    plan = Plan(
        trace,
        slots,
        built,
        node_gathers,
        param_gathers,
        prefix_gathers,
        router.n_contrib,
        len(graph.nodes),
        graph.reached,
        graph,
        router.prefixed,
        router.pad_slot,
        router.blocks,
    )
    np = load_numpy()
    with np.errstate(all="ignore"):
        for key, (_, grp) in zip(keys, built):
            if key.op is not None and not key.op.builtin:
                probe(grp, groups[key][0], (2, 2) if batched else (2,))
    return plan


def plan_gathers(
    graph: Graph, router: Router, slots: Layout
) -> tuple[dict[int, list[Gather]], list[Gather], list[Gather]]:
    """The gathers of the nodes' gradients, by level, of the parameters' and (batched) of their
    shared prefixes, the groups routed (``router``)."""
    # Each node whose contributions went to contribution slots sums them (every edge into a node
    # that needs a gradient goes straight in or to a slot: asked per node, not per edge); by node
    # number (graph.Edges): whether it gathers, and how many of its incoming edges
    np, edges = load_numpy(), graph.numbered
    gathered = edges.uses > 0
    gathered[[edges.index[c] for c in router.went_straight]] = False
    node_gathers: dict[int, list[Gather]] = {}
    for level, gather in router.gathers(gathered, edges.uses, graph.computed, slots.slot):
        node_gathers.setdefault(level, []).append(gather)
    params = router.gathers(gathered, edges.uses, slots.slot_params, slots.grad_row, "grads")
    # (batched) the shared prefixes: the parameters' contributions before their straight last one
    prefixed = np.zeros(len(graph.nodes), dtype=bool)
    prefixed[[edges.index[c] for c in router.prefixed]] = True
    prefixes = router.gathers(prefixed, edges.uses - 1, slots.slot_params, slots.grad_row, "prefix")
    return node_gathers, [g for _, g in params], [g for _, g in prefixes]


def same_numbers(a: object, b: object) -> bool:
    """Whether ``a`` and ``b`` hold the same numbers (to 1e-9, nan equal to nan), broadcast."""
    np = load_numpy()
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    return bool(np.allclose(a, b, rtol=1e-9, atol=0.0, equal_nan=True))


def probe(grp: Group, node: Value, shape: tuple[int, ...]) -> None:
    """Run a user op's forward and backward once on arrays of ``shape`` filled with ``node``'s
    numbers and check them against the eager engine's: an ``if`` on data, ``math.exp`` or a
    result of the wrong shape shows up here, at compile time, not as wrong numbers later."""
    np = load_numpy()
    fn = grp.fn
    assert fn is not None
    lanes = [np.full(shape, c.data) for c in node._prev]
    out = grp.call_forward(lanes)
    if np.shape(out) not in ((), shape) or not same_numbers(out, node.data):
        raise CompileError(
            f"{fn.name}.forward gives {out!r} on the arrays {lanes}, where the eager engine gives "
            f"{node.data!r} for each element; {HOW_TO_FIX}"
        )
    expected = vjp(node, 1.0)
    for k, (got, want) in enumerate(zip(grp.call_backward(np.ones(shape)), expected)):
        if got is None or want is None:
            if (got is None) != (want is None):
                raise CompileError(
                    f"{fn.name}.backward returns None for operand {k} on arrays only; {HOW_TO_FIX}"
                )
            continue
        if np.shape(got) not in ((), shape) or not same_numbers(got, want):
            raise CompileError(
                f"{fn.name}.backward gives {got!r} for operand {k} on arrays, where the eager engine gives "
                f"{want!r} for each element; {HOW_TO_FIX}"
            )
