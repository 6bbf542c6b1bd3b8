"""An optional pass of ``micrograd.compile``'s plan, for batched steps: what the samples share.

A batched step replays one sample's graph on every sample at once, each value a row of
one number per sample.  Some values are the same for every sample (an L2 term of the
parameters, a constant's ``exp``): this pass finds them, and the gradients that are the
same for every sample too, so that the plan computes them once, on arrays of one
column, instead of once per sample (what ``jax.vmap`` does when it leaves unbatched
values unbatched).  Without it (``Sharing()``), every group runs on every sample: the
same numbers, more work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter

from ..engine import Value
from .graph import Graph


@dataclass(frozen=True)
class Sharing:
    """``values``: nodes whose value is the same for every sample; ``gradients``: nodes whose
    gradient is; ``edges``: ranks of the edges whose contribution is; ``narrow``: nodes whose
    group runs its backward on one column; ``wide``: shared values that per-sample ops read,
    so written to every sample's row too.  Empty: nothing shared (an unbatched step)."""

    values: set[Value] = field(default_factory=set)
    gradients: set[Value] = field(default_factory=set)
    edges: set[int] = field(default_factory=set)
    narrow: set[Value] = field(default_factory=set)
    wide: set[Value] = field(default_factory=set)


def shared_by_all_samples(graph: Graph) -> Sharing:
    """What every sample shares in ``graph``.

    A value is shared when it depends on no input (only parameters and constants), through the
    engine's own ops: a user ``Function`` is only ever run on arrays of one shape, as when it was
    probed, never on a mix of shared and per-sample ones.  Going backward from the loss (whose
    gradient is 1 for every sample), a sum hands each term ``sign * g``, shared when ``g`` is; any
    other op's contributions are shared when its operands, its output and ``g`` all are; and a
    node's gradient is shared when every contribution to it is."""
    ops, operands = graph.ops, graph.operands
    # (found with the levels, wave by wave in numpy: graph.Edges, where a walk of the computed
    # nodes asking each whether its operands were all shared took 3-4 ms on a GPT trace)
    values: set[Value] = set(compress(graph.nodes, graph.numbered.invariant.tolist()))
    gradients, edges = shared_gradients(graph, values)
    # a group whose contributions are shared runs its backward on one column too: of the
    # computed nodes (an ordered sum's, or an op's), those whose gradient is shared
    narrow = {v for v in gradients if v in operands or (v in ops and v in values)}
    wide = {graph.trace.root}  # shared values read as whole rows: the loss and per-sample ops' operands
    for v in graph.computed if values else ():
        if v not in values:
            wide.update(values.intersection(v._prev if v in ops else map(_first, operands[v])))
    return Sharing(values, gradients, edges, narrow, wide)


def shared_gradients(graph: Graph, values: set[Value]) -> tuple[set[Value], set[int]]:
    """The nodes whose gradient every sample shares, and the ranks of the edges whose contribution
    they share, given the shared ``values``: backward from the loss, each node after all of its
    consumers.  Only a node whose gradient may still be shared (``pending``: reached from the loss
    through shared contributions so far) can hand on shared ones; once none is left, no later node
    can, and the walk stops (a GPT's loss reads each sample's inputs: it stops at the loss)."""
    ops, needs = graph.ops, graph.needs_grad.get
    gradients: set[Value] = {graph.trace.root}
    pending = {graph.trace.root}
    varying: set[Value] = set()  # nodes with a contribution that differs between samples
    edges: set[int] = set()
    for v in reversed(graph.computed):  # every node after all of its consumers
        if not pending:
            break
        pending.discard(v)
        same = v in gradients and v not in varying and (v not in ops or v in values)
        if not same:  # (a filter, no Python frame per operand)
            varying.update(filter(needs, operands_of(graph, v)))
            continue
        for t in graph.terms(v):
            if needs(t.value, False):
                edges.add(t.rank)
                gradients.add(t.value)
                pending.add(t.value)
    gradients -= varying
    return gradients, edges


_first = itemgetter(0)


def operands_of(graph: Graph, v: Value) -> Sequence[Value]:
    """The values ``v`` reads: an op's operands, or an ordered sum's terms' values."""
    return v._prev if v in graph.ops else [t[0] for t in graph.operands[v]]
