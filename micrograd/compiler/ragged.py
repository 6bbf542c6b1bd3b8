"""Samples of different sizes in one batched replay (``compile(..., batched=True, ragged=True)``).

A loss that adds up per-part terms, such as a document's loss over its positions,
has a graph that grows with the sample: a shorter document has fewer parts.  Traced
once at the largest size, the graph holds every smaller one: sample ``i`` keeps its
first ``sizes[i]`` parts and every node they are computed from (each node's *tag* is
the first part it leads to), and the rest of the graph is cut away for that sample:

- an ordered sum that reads the parts (the loss's ``sum(parts)``) reads a cut part as
  -0.0, which adds nothing (``x + -0.0`` is ``x``, signed zeros included);
- a gradient contribution from a cut node reads as -0.0 in the ordered sum it joins,
  so a kept node adds up exactly the contributions of its sample's own graph, in the
  same order (the eager walk of the smaller graph is the larger one's, cut nodes left out);
- a parameter only cut nodes read gets no gradient from the sample (``reached``).

So each sample's numbers are those of the eager engine on its own smaller graph, bit
for bit.  This holds when a node kept with part ``t`` reads only nodes of parts up to
``t`` (true of any node: what it reads leads where it leads), and the nodes that lead
to no part (the loss itself) read the parts only through ordered sums; ``Cuts`` checks
the second and raises a ``CompileError`` otherwise.

>>> import micrograd
>>> from micrograd import Value
>>> w = Value(0.5)
>>> def loss(xs, scale):                  # a mean over the parts, as a document's loss is
...     parts = [(w * x) ** 2 for x in xs]
...     return micrograd.sum(parts) * scale, parts
>>> step = micrograd.compile(loss, ([1.0] * 3, 1.0), [w], batched=True, reduction="sum", ragged=True)
>>> losses, grads = step.per_sample([[2.0, 4.0, 9.0], [2.0, 4.0, 6.0]], [1 / 2, 1 / 3], sizes=[2, 3])
>>> losses.tolist(), grads.tolist()       # (1 + 4) / 2 and (1 + 4 + 9) / 3; d/dw (4 + 16) / 2, ...
([2.5, 4.666666666666666], [[10.0], [18.666666666666664]])

The step loads a batch's samples longest first (and gives its results back in the caller's
order), so that the samples that cut a term are the batch's last ones: a cut is a slice of
the batch axis (``kernels.Cut``).

May import what ``compiler`` may; reads the plan's groups and gathers and sets their ``cut``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from itertools import chain as _chain
from itertools import compress, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from ..engine import Value
from .errors import CompileError, load_numpy
from .kernels import Cut, Gather, Group, as_index
from .plan import Plan
from .trace import TracerWarning

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Ints = NDArray[np.intp]

_operands = attrgetter("_prev")
ALWAYS = -1  # the tag of a node that leads to no part: in every sample's graph


def part_tags(parts: Sequence[Value], nodes: Iterable[Value]) -> dict[Value, int]:
    """Each node's tag: the index of the first part it is (or is computed into), else ``ALWAYS``."""
    tags = dict.fromkeys(nodes, ALWAYS)
    # Part by part, the nodes it is computed from that no earlier part is, found a layer of operands
    # at a time (which nodes, not the order they are met in, makes the tags) with set operations
    # at C speed, no Python frame per node or operand: on a 12-token GPT graph 6-7 ms, where a
    # walk node by node took 9-15 ms
    untagged = set(tags)
    for t, part in enumerate(parts):
        layer = untagged.intersection((part,))
        while layer:
            untagged -= layer
            tags.update(dict.fromkeys(layer, t))
            layer = untagged.intersection(_chain.from_iterable(map(_operands, layer)))
    return tags


def warn_traced_size(tags: dict[Value, int], plan: Plan, n: int) -> None:
    """A ``TracerWarning`` if the nodes every sample keeps read a constant equal to the traced count
    of parts or its inverse (``sum(parts) / len(parts)``): every sample would be scaled by the
    traced size, not its own."""
    fed = {*plan.trace.inputs, *plan.trace.params}
    kept_by_all = compress(tags, map(ALWAYS.__eq__, tags.values())) if n >= 2 else ()  # (in order, C speed)
    for v in kept_by_all:
        for c in v._prev:
            if not c._prev and c not in fed and c.data in (n, 1.0 / n):
                warnings.warn(
                    f"ragged=True: the loss reads the constant {c.data:g}, the traced count of parts ({n}) "
                    f"or its inverse, outside the parts: every sample would be scaled by it, not by its own "
                    'size. Let compile make the loss (ragged="mean": fn returns the parts only), or pass '
                    "1 / size as an input of the loss",
                    TracerWarning,
                    stacklevel=7,  # (compile's caller)
                )
                return


def slot_tags(plan: Plan, tags: dict[Value, int]) -> Ints:
    """Each value slot's tag (``ALWAYS`` where no node is), so that a sum's terms' tags are one
    take, not a Python call per term."""
    np, slot = load_numpy(), plan.layout.slot
    tag_at = np.full(plan.layout.size, ALWAYS, dtype=np.intp)
    tag_at[np.fromiter(slot.values(), np.intp, len(slot))] = np.fromiter(
        map(tags.get, slot, repeat(ALWAYS)), np.intp, len(slot)
    )
    return tag_at  # type: ignore[no-any-return]


def contribution_slot_tags(plan: Plan, tag_at: Ints) -> Ints:
    """Each contribution slot's tag: the tag of the node its edge goes out of (``ALWAYS`` for the
    pad slot), read block by block from the value slots' tags ``tag_at`` (``slot_tags``), not
    looked up edge by edge (a 12-token GPT graph: 66,000 gathered edges, 28 ms that way)."""
    np = load_numpy()
    slot_tag = np.full(plan.n_contrib, ALWAYS, dtype=np.intp)
    if not plan.contrib_blocks:
        return slot_tag  # type: ignore[no-any-return]
    # (slot start + i * nodes + j: node + j's): each block's slots as a (terms, nodes) view, its
    # nodes' tags broadcast into it, where indexing every slot at once (a 17-token GPT step's
    # 142,000 in 478 blocks) took 3.7-4.2 ms, against 0.31-0.36 ms this way
    for start, stop, node, nodes in plan.contrib_blocks:
        slot_tag[start:stop].reshape(-1, nodes)[...] = tag_at[node : node + nodes]
    return slot_tag  # type: ignore[no-any-return]


def contribution_tags(slot_tag: Ints, slots: Ints, pad_slot: int) -> Ints:
    """The tag of the node each contribution of a gather's ``slots`` (uses, nodes) is from; a merged
    gather's pads (``pad_slot``, -0.0) take the tag of the node's first, cut or kept with it."""
    np = load_numpy()
    used = slot_tag[slots]
    return np.where(slots == pad_slot, used[:1], used)  # type: ignore[no-any-return]


def rows_by_tag(tags: Ints) -> tuple[bool, list[tuple[int, Any]]]:
    """The terms of an ordered sum or gather of tags ``tags`` (terms, nodes), grouped by tag for a
    ``Cut``: whether by term (each term's tag the same for all its nodes), and per tag but
    ``ALWAYS``, the terms that hold it, else the (terms, nodes) pairs counted row by row, as a
    slice where consecutive (the pairs a tag cuts together, found once, not at every call).

    >>> import numpy as np
    >>> rows_by_tag(np.array([[0, 0], [1, 1], [1, 1]]))
    (True, [(0, slice(0, 1, None)), (1, slice(1, 3, None))])
    >>> by_use, rows = rows_by_tag(np.array([[0, -1], [1, 0]]))
    >>> by_use, [(t, r.tolist() if type(r) is not slice else r) for t, r in rows]
    (False, [(0, [0, 3]), (1, slice(2, 3, None))])
    """
    np = load_numpy()
    by_term = bool((tags == tags[:, :1]).all())  # (a GPT's weights' contributions: position by position)
    flat = tags[:, 0] if by_term else tags.ravel()
    rows = [(int(t), as_index(np, np.flatnonzero(flat == t))) for t in np.unique(flat) if t != ALWAYS]
    return by_term, rows


class Cuts:
    """What cutting a plan's graph to a sample's size needs: the terms of the ordered sums that
    read the parts (``sums``: (index in ``groups``, ``rows_by_tag`` of their (terms, nodes)
    tags)), the contributions of the gathers that mix nodes of several parts (``gathers``: (index
    in ``gathers``, the same of their (uses, nodes) tags)), and the parameters' tags
    (``param_tags``, in the order of ``params``).  By index, so that a step's clones, with copies
    of the groups and gathers, use them."""

    def __init__(
        self, plan: Plan, groups: Sequence[Group], gathers: Sequence[Gather], parts: Sequence[Value]
    ) -> None:
        np, graph = load_numpy(), plan.graph
        assert graph is not None
        known = graph.numbered.index  # (the graph's nodes, numbered: no set made of them)
        stray = [i for i, p in enumerate(parts) if not isinstance(p, Value) or p not in known]
        if stray:
            raise CompileError(
                f"parts {stray[:5]} are not nodes of the traced loss's graph: give the Values the traced "
                "function computed and added into the loss (e.g. a list it appends them to)"
            )
        tags = part_tags(parts, graph.nodes)
        self.n_parts = len(parts)
        warn_traced_size(tags, plan, len(parts))
        self.param_tags: Ints = np.array([tags.get(p, ALWAYS) for p in plan.trace.params], dtype=np.intp)
        value_at: dict[int, Value] = {}  # (made when first asked: most groups read no part)
        tag_at = slot_tags(plan, tags)
        self.sums: list[tuple[int, tuple[bool, list[tuple[int, Any]]]]] = []
        for i, grp in enumerate(groups):
            outer = tag_at[grp.start : grp.stop] == ALWAYS  # (its nodes' tags: those of their slots)
            if grp.fn is None:
                terms = tag_at[grp.args[0]]
                if ((terms != ALWAYS) & outer[None, :]).any():
                    if grp.shared:
                        raise CompileError(
                            "ragged=True: no part reads an input, so every sample has the same parts and "
                            "the step adds them up once for all samples: a sum it cannot cut to each "
                            "sample's size. Give each part the sample it belongs to (parts are usually "
                            "computed from the sample's inputs), or compute this loss without ragged=True"
                        )
                    self.sums.append((i, rows_by_tag(terms)))
                continue
            outer_slots = (grp.start + np.flatnonzero(outer)).tolist()
            if outer_slots and not value_at:
                value_at = dict(zip(plan.layout.slot.values(), plan.layout.slot))  # (C speed)
            for v in map(value_at.__getitem__, outer_slots):
                if any(tags.get(c, ALWAYS) != ALWAYS for c in v._prev):
                    raise CompileError(
                        f"ragged=True: the loss reads the parts through {v._op!r}, not only through a sum "
                        "(sum(parts) * scale is fine): a sample's smaller graph would not be part of it"
                    )
        self.gathers = self._gather_cuts(plan, gathers, tag_at)
        readers: dict[Value, set[int]] = {p: set() for p in plan.prefixed}
        for v in graph.computed if readers else ():  # (batched steps whose samples share contributions)
            for t in graph.terms(v):
                if t.value in readers:
                    readers[t.value].add(tags[v])
        if any(len(r) > 1 for r in readers.values()):
            raise CompileError("ragged=True: a parameter's shared contributions from several parts")

    @staticmethod
    def _gather_cuts(
        plan: Plan, gathers: Sequence[Gather], tag_at: Ints
    ) -> list[tuple[int, tuple[bool, list[tuple[int, Any]]]]]:
        """The gathers that mix contributions from nodes of several parts, and theirs by tag
        (``tag_at``: each value slot's tag)."""
        np = load_numpy()
        slot_tag = contribution_slot_tags(plan, tag_at)
        cuts = []
        for i, gather in enumerate(gathers):
            used = contribution_tags(slot_tag, gather.slots, plan.pad_slot)  # (uses, nodes)
            if (used.max(axis=0) == used.min(axis=0)).all():
                continue  # each node's contributions all come from one part: kept or cut together
            if len(used) < 2 or any(gather.shared):
                raise CompileError("ragged=True: shared contributions from nodes of several parts")
            if not (used == used[:, :1]).all():  # (else cut use by use, as a weight's contributions are)
                # a merged gather's pads are -0.0 already: never cut (a GPT's keys: 45% fewer rows)
                used = np.where(gather.slots == plan.pad_slot, ALWAYS, used)
            cuts.append((i, rows_by_tag(used)))
        return cuts

    def kept(self, sizes: Ints) -> list[int]:
        """Per part ``t``, the count of samples of ``sizes`` parts each (longest first) that have it:
        the batch's first ones; the others cut every term of tag ``t``."""
        np = load_numpy()
        assert not (sizes[1:] > sizes[:-1]).any(), "the samples go longest first"
        return (sizes > np.arange(self.n_parts)[:, None]).sum(axis=1).tolist()  # type: ignore[no-any-return]

    def apply(self, groups: Sequence[Group], gathers: Sequence[Gather], kept: list[int], batch: int) -> None:
        """Set the cuts of these groups and gathers (the step's own, in the order given to ``Cuts``)
        for a batch of ``batch`` samples, longest first, the first ``kept[t]`` of which have part
        ``t`` (``kept``); ``[]``: every sample whole, no cuts."""
        for sites, kernels in ((self.sums, groups), (self.gathers, gathers)):
            for at, (by_use, rows) in sites:
                runs = [(r, kept[t]) for t, r in rows if kept[t] < batch] if kept else []
                kernels[at].cut = Cut(by_use, runs) if runs else None

    def reached(self, sizes: Ints) -> Any:
        """Per sample and parameter, whether the sample's own graph reads it: ``(batch, params)``."""
        tags = self.param_tags[None, :]
        return (tags == ALWAYS) | (tags < sizes[:, None])
