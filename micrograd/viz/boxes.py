"""A graph in boxes: the scopes ``record_scopes`` saw (a neuron, a layer, an attention head, a
``Module`` call), each a ``Box`` of the Values it made, boxes inside boxes.

``boxes_of(model, recording)`` puts every Value of a ``GraphModel`` in one box: a result in
the innermost scope open when it was made (or box 0, the whole graph, if none was), a leaf
in the innermost box holding all its uses, outside any box it was given as an input (a
weight used by a single neuron sits in that neuron's box; one shared by every sample of a
batch, outside them all).  Scopes that made no Value of the graph are left out, and a box
holding nothing but one other box is merged with it (``layers.2 / neurons.0``).

For each box, ``inputs`` are the Values from outside it that its ops read and ``outputs``
its Values read outside it (or the root): the chain rule through a box turns the gradients
of its outputs into contributions to its inputs.  ``runs`` says, for each box, which
consecutive backward steps (``model.backward().steps``) happen inside it, with those
numbers.

>>> from micrograd import Value
>>> from micrograd.viz.graph_model import graph_model
>>> from micrograd.scopes import record_scopes, scope
>>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
>>> with record_scopes() as rec:
...     with scope("product", inputs=[a, b]):
...         c = a * b
...     L = c + 1; L.label = "L"
>>> model = graph_model(L)
>>> boxes = boxes_of(model, rec)
>>> [(box.name, [model.names[model.order[i]] for i in box.members]) for box in boxes]
[('', ['a', 'b', '#3', 'L']), ('product', ['#2'])]
>>> boxes[1].inputs, boxes[1].outputs
([0, 1], [2])
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from ..engine import Value
from ..scopes import Recording, Scope
from .graph_model import BackwardTrace, GraphModel

__all__ = ["Box", "Places", "Run", "boxes_of", "chain_of", "places", "recorded_any", "runs_of"]

#: At most this many boxes of shared parameters side by side (more: a box per layer, not per neuron).
MAX_PARAMETER_BOXES = 8


@dataclass
class Box:
    """A scope as the explorer draws it: ``members``, the positions (in ``model.order``) of the
    Values directly in it; ``children``, the boxes inside it; ``size``, its Values at any depth.
    Box 0 is the whole graph (``parent`` -1)."""

    index: int
    name: str
    detail: str
    parent: int
    children: list[int] = field(default_factory=list)
    members: list[int] = field(default_factory=list)
    size: int = 0
    inputs: list[int] = field(default_factory=list)  # Values outside it, read inside it
    outputs: list[int] = field(default_factory=list)  # Values inside it, read outside it (or the root)


def _lowest_common(a: Scope, b: Scope, depth: dict[Scope, int]) -> Scope:
    while depth[a] > depth[b]:
        a = a.parent  # type: ignore[assignment]
    while depth[b] > depth[a]:
        b = b.parent  # type: ignore[assignment]
    while a is not b:
        a, b = a.parent, b.parent  # type: ignore[assignment]
    return a


def _homes(model: GraphModel, recording: Recording) -> tuple[list[Scope], dict[Scope, list[Scope]]]:
    """The scope each Value of ``model`` belongs in (see the module docstring), and the
    parameter boxes made for it, by the scope they are in."""
    root = recording.root
    depth: dict[Scope, int] = {}
    for s in root.walk():  # (parents first)
        depth[s] = 0 if s.parent is None else depth[s.parent] + 1
    made_in = {v: s for s in depth for v in s.nodes}
    order, index = model.order, model.index
    homes: list[Scope] = [made_in.get(v, root) if v.children else root for v in order]
    users: list[list[int]] = [[] for _ in order]
    for i, v in enumerate(order):
        for c in v.children:
            users[index[c]].append(i)
    given = {id(v) for s in depth for v in s.inputs}
    for i, v in enumerate(order):
        if v.children or not users[i]:
            continue
        home = homes[users[i][0]]
        for u in users[i][1:]:
            home = _lowest_common(home, homes[u], depth)
        if id(v) in given:  # outside the outermost box it was given to
            around: Scope | None = home
            while around is not None:
                if around.parent is not None and any(x is v for x in around.inputs):
                    home = around.parent
                around = around.parent
        homes[i] = home
    extra: dict[Scope, list[Scope]] = {}  # the parameter boxes inside each scope
    _parameter_boxes(order, homes, users, recording, extra)
    return homes, extra


def _parameter_names(recording: Recording) -> dict[int, str]:
    """``named_parameters()``' name of every parameter of the modules that opened scopes, from the
    outermost module that has it (``layers.0.neurons.3.w.1``)."""
    names: dict[int, str] = {}
    seen: set[int] = set()
    for s in recording.root.walk():  # (outer scopes first)
        named = getattr(s.owner, "named_parameters", None)  # an nn.Module's (micrograd knows no nn)
        if not callable(named) or id(s.owner) in seen:
            continue
        seen.add(id(s.owner))
        for name, p in named():
            names.setdefault(id(p), name)
    return names


def _parameter_boxes(
    order: list[Value],
    homes: list[Scope],
    users: list[list[int]],
    recording: Recording,
    extra: dict[Scope, list[Scope]],
) -> None:
    """A parameter used in several boxes (a weight every sample of a batch reads) goes into a box of
    its module's parameters (``parameters of layers.0``) beside them, instead of among them one by one."""
    names = _parameter_names(recording)
    shared: dict[Scope, list[tuple[int, list[str]]]] = {}  # per scope: its shared parameters' paths
    for i, v in enumerate(order):
        name = names.get(id(v))
        if name is not None and not v.children and len({id(homes[u]) for u in users[i]}) > 1:
            parts = name.split(".")  # the module's path: up to its attribute (w), before the indices
            attr = max((k for k, part in enumerate(parts) if not part.isdigit()), default=0)
            shared.setdefault(homes[i], []).append((i, parts[:attr]))
    for home, params in shared.items():
        keep = max((len(path) for _, path in params), default=0)
        while keep > 0 and len({tuple(path[:keep]) for _, path in params}) > MAX_PARAMETER_BOXES:
            keep -= 1  # (too many boxes side by side: one per layer rather than one per neuron)
            while keep > 0 and any(len(path) > keep and path[keep].isdigit() for _, path in params):
                keep -= 1  # a module's path, not a list's (layers.0, not layers.0.neurons)
        made: dict[str, Scope] = {}
        for i, path in params:
            module = ".".join(path[:keep])
            if module not in made:
                name = f"parameters of {module}" if module else "parameters"
                made[module] = Scope(name, home, detail="read by several boxes")
                extra.setdefault(home, []).append(made[module])
            homes[i] = made[module]


def recorded_any(model: GraphModel, recording: Recording) -> bool:
    """Whether ``recording`` saw any op of ``model``'s graph being made: one of another graph, or
    one that recorded nothing, saw none (its boxes would all be empty)."""
    made = {id(v) for s in recording.root.walk() for v in s.nodes}
    return any(id(v) in made for v in model.order)


def boxes_of(model: GraphModel, recording: Recording) -> list[Box]:
    """The boxes of ``model``'s graph from the scopes in ``recording`` (box 0: the whole graph)."""
    if not isinstance(recording, Recording):
        raise TypeError(
            "scopes must be what `with micrograd.scopes.record_scopes() as scopes:` gives, "
            f"got {type(recording).__name__}: {recording!r}"
        )
    homes, extra = _homes(model, recording)
    direct: dict[Scope, list[int]] = {}
    for i, s in enumerate(homes):
        direct.setdefault(s, []).append(i)
    deep: Counter[Scope] = Counter()
    for s, members in direct.items():
        x: Scope | None = s
        while x is not None:
            deep[x] += len(members)
            x = x.parent
    boxes: list[Box] = []

    def build(s: Scope, parent: int, prefix: str) -> None:
        kept = [c for c in [*extra.get(s, []), *s.children] if deep[c]]
        if parent >= 0 and not direct.get(s) and len(kept) == 1:  # only one box inside: one box
            build(kept[0], parent, f"{prefix}{s.name} / ")
            return
        box = Box(len(boxes), prefix + s.name, s.detail, parent, members=direct.get(s, []), size=deep[s])
        boxes.append(box)
        if parent >= 0:
            boxes[parent].children.append(box.index)
        for c in kept:
            build(c, box.index, "")

    build(recording.root, -1, "")
    for box in boxes:  # siblings of one name (a module called on each sample) get numbers
        counts = Counter(boxes[c].name for c in box.children)
        seen: Counter[str] = Counter()
        for c in box.children:
            name = boxes[c].name
            if counts[name] > 1:
                seen[name] += 1
                boxes[c].name = f"{name} ({seen[name]})"
    _connect(model, boxes, places(boxes, len(model.order)))
    return boxes


def chain_of(box: int, boxes: list[Box]) -> list[int]:
    """``box`` and the boxes around it, innermost first, box 0 last."""
    chain = [box]
    while boxes[chain[-1]].parent >= 0:
        chain.append(boxes[chain[-1]].parent)
    return chain


class Places(NamedTuple):
    """Where things are, derived once from the boxes: ``home[i]``, the box Value ``i`` is directly
    in; ``chains[b]``, box ``b`` and the boxes around it (``chain_of``); ``inside[b]``, the same as
    a set."""

    home: list[int]
    chains: list[list[int]]
    inside: list[set[int]]


def places(boxes: list[Box], n_values: int) -> Places:
    """The ``Places`` of ``boxes``, over a graph of ``n_values`` Values."""
    home = [0] * n_values
    for box in boxes:
        for i in box.members:
            home[i] = box.index
    chains = [chain_of(b.index, boxes) for b in boxes]
    return Places(home, chains, [set(c) for c in chains])


def _connect(model: GraphModel, boxes: list[Box], where: Places) -> None:
    """Each box's inputs and outputs: the Values whose edges cross its border."""
    home, chains, inside = where
    inputs: list[dict[int, None]] = [{} for _ in boxes]
    outputs: list[dict[int, None]] = [{} for _ in boxes]
    index = model.index
    for i, v in enumerate(model.order):
        inside_v = chains[home[i]]
        for c in model.operands(v):
            j = index[c]
            inside_c = inside[home[j]]
            for b in inside_v:
                if b not in inside_c:
                    inputs[b][j] = None
            for b in chains[home[j]]:
                if b not in inside_v:
                    outputs[b][j] = None
    for root in model.outputs:
        for b in chains[home[index[root]]]:
            outputs[b][index[root]] = None
    for b, box in enumerate(boxes):
        box.inputs = sorted(inputs[b])
        box.outputs = sorted(outputs[b])


@dataclass
class Run:
    """Backward steps ``first``..``last`` (inclusive) of one box, one after another: the
    gradients its outputs brought in (``upstream``: position, gradient) and what its inputs
    received from it (``given``: position, the sum of its contributions, its total after)."""

    first: int
    last: int
    upstream: list[tuple[int, float]]
    given: list[tuple[int, float, float]]


def runs_of(model: GraphModel, boxes: list[Box], trace: BackwardTrace) -> list[list[Run]]:
    """Per box, its runs of consecutive backward steps (box 0, the whole graph: one run)."""
    index = model.index
    home, chains, inside = places(boxes, len(model.order))
    outputs = [set(b.outputs) for b in boxes]
    spans: list[list[list[int]]] = [[] for _ in boxes]
    for k, step in enumerate(trace.steps):
        for b in chains[home[index[step.node]]]:
            if spans[b] and spans[b][-1][1] == k - 1:
                spans[b][-1][1] = k
            else:
                spans[b].append([k, k])
    runs: list[list[Run]] = []
    for b in range(len(boxes)):
        mine: list[Run] = []
        for first, last in spans[b]:
            upstream: list[tuple[int, float]] = []
            given: dict[int, list[float]] = {}
            for step in trace.steps[first : last + 1]:
                i = index[step.node]
                if i in outputs[b]:
                    upstream.append((i, step.upstream))
                for c in step.contributions:
                    j = index[c.operand]
                    if b not in inside[home[j]]:
                        so_far = given.get(j)
                        given[j] = (
                            [c.contribution, c.total]
                            if so_far is None
                            else [so_far[0] + c.contribution, c.total]
                        )
            mine.append(Run(first, last, upstream, [(j, s, t) for j, (s, t) in given.items()]))
        runs.append(mine)
    return runs
