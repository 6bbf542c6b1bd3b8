"""An optional pass of ``micrograd.compile``'s plan: the memory layout of the value arrays.

Every node has a slot, a row of the value arrays.  Laid out well, an op reads its
operands as a view of consecutive rows instead of gathering a copy: a layer's weights
sit in the order its products read them, and a layer's biases right before its
products, so that the neurons' sums read their terms as one block.  Without this
pass (``layout=False``) the parameters sit in the order given and every sum gathers
its terms: the same numbers, more copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain as _chain
from itertools import count
from operator import attrgetter

from .._core.nodes import CONSTANT
from ..engine import Value
from .errors import load_numpy
from .graph import Graph, Term, concatenated_ranges
from .group_nodes import GroupKey, merged_arity


def place_blocks(
    keys: Sequence[GroupKey], groups: dict[GroupKey, list[Value]], graph: Graph
) -> dict[GroupKey, list[Value]]:
    """Lay out sums so that they read their terms as one block of slots, a view, not a copy.

    A sum group whose terms, ``(terms, nodes)``, are rows of parameters (a layer's biases), then
    every node of one op group once (its products ``w*x``), all added, has that op group's nodes
    reordered term by term (``groups`` is changed in place): the result says which parameters go
    right before which group's nodes, in the same order, so that the rows form the block."""
    member_of = {v: key for key, members in groups.items() for v in members}
    lead: dict[GroupKey, list[Value]] = {}
    placed: set[Value] = set()
    for key in keys:
        if key.op is not None or merged_arity(key):  # (a merged sum's rows hold pads)
            continue
        rows: list[tuple[Term, ...]] = list(zip(*(graph.operands[v] for v in groups[key])))
        if any(t.sign != 1.0 for row in rows for t in row):
            continue  # the replay multiplies the terms by their signs: they need a copy anyway
        k = 0
        while k < len(rows) and all(t.value in graph.param_index for t in rows[k]):
            k += 1
        firsts = [t.value for row in rows[:k] for t in row]
        nodes = [t.value for row in rows[k:] for t in row]
        other = member_of.get(nodes[0]) if nodes else None
        if (
            other is None
            or other.op is None
            or other in lead
            or other.shared != key.shared  # (batched) both shared by the samples, or neither
            or len(set(nodes)) != len(nodes)
            or set(nodes) != set(groups[other])
            or len(set(firsts)) != len(firsts)
            or not placed.isdisjoint(firsts)
        ):
            continue
        groups[other] = nodes
        lead[other] = firsts
        placed.update(firsts)
    return lead


@dataclass
class Layout:
    """Where every value lives: ``slot`` of each node; the parameters in ``slot_params`` order
    (their data as a step writes it, their gradients as it computes them): first the ``region``
    block after the inputs, then those placed before a group (at ``lead_slots``); ``grad_row``,
    each parameter's row of the gradients; ``constants``, the frozen leaves' slots' values."""

    slot: dict[Value, int]
    slot_params: tuple[Value, ...]
    grad_row: dict[Value, int]
    n_region: int
    lead_slots: list[int]
    constants: list[Value]
    const_rows: slice
    size: int


def assign_slots(
    graph: Graph,
    keys: Sequence[GroupKey],
    groups: dict[GroupKey, list[Value]],
    lead: dict[GroupKey, list[Value]],
    reading_order: bool,
    pads: Sequence[Value] = (),
) -> Layout:
    """Slots of the value array: inputs, parameters, constants, then group by group, each group
    after the parameters ``lead`` places before it.  With ``reading_order``, the other parameters
    in the order the per-sample ops read them (a layer's weights, neuron by neuron), so that an op
    reads its parameters as a view of consecutive rows, not a copy."""
    inputs, params = graph.trace.inputs, graph.trace.params
    slot: dict[Value, int] = {x: i for i, x in enumerate(inputs)}
    leading = [p for ps in lead.values() for p in ps]
    read: dict[Value, None] = {}
    if reading_order:
        # the parameters in the order every op's operands read them, per-sample groups first: taken
        # from the operands' numbers (graph.Edges) in numpy, not looked up one by one (a GPT step's
        # ops read 100,000 operands)
        ordered = sorted(keys, key=lambda k: k.shared)
        members = list(_chain.from_iterable(groups[key] for key in ordered if key.op is not None))
        read.update(dict.fromkeys(params_read(graph, members)))
    read.update(dict.fromkeys(params))  # then the others, in their order
    lead_set = set(leading)
    region = [p for p in read if p not in lead_set]
    n_in = len(inputs)
    slot.update(zip(region, count(n_in)))  # (numbered by zip and count, as the groups below)
    constants = [v for v in graph.nodes if not v._prev and v not in slot and v not in lead_set]
    constants += pads  # (what merged groups pad operands with: group_nodes.Pads)
    slot.update(zip(constants, count(n_in + len(region))))
    n = n_in + len(region) + len(constants)
    for key in keys:  # (numbered by zip and count: no Python frame per node)
        placed = (*lead.get(key, ()), *groups[key])
        slot.update(zip(placed, count(n)))
        n += len(placed)
    slot_params = (*region, *leading)
    return Layout(
        slot=slot,
        slot_params=slot_params,
        grad_row={p: i for i, p in enumerate(slot_params)},
        n_region=len(region),
        lead_slots=[slot[p] for p in leading],
        constants=constants,
        const_rows=slice(n_in + len(region), n_in + len(region) + len(constants)),
        size=n,
    )


def params_read(graph: Graph, nodes: list[Value]) -> list[Value]:
    """The parameters that the op nodes ``nodes`` read, each once, in the order they first read them."""
    np, numbered = load_numpy(), graph.numbered
    at = np.fromiter(map(numbered.first_operand.__getitem__, nodes), np.intp, len(nodes))
    arity = np.fromiter(map(len, map(_operands, nodes)), np.intp, len(nodes))
    # each node's operands' places in the numbered operands, node after node
    places = concatenated_ranges(np, at, arity)
    ids = numbered.operand_ids[places]
    is_param = np.zeros(len(graph.nodes), dtype=bool)
    is_param[[numbered.index[p] for p in graph.param_index if p in numbered.index]] = True
    found, first = np.unique(ids[is_param[ids]], return_index=True)
    return list(map(graph.nodes.__getitem__, found[np.argsort(first)].tolist()))


_operands = attrgetter("_prev")


def frozen_values(layout: Layout) -> int:
    """Leaves the trace did not make from numbers: Values from outside fn, frozen (not in params)."""
    return sum(1 for c in layout.constants if c._op != CONSTANT)
