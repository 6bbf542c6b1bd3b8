"""What each picture shows, before it is laid out: its ``Item``s (a Value's record, an op's
ellipse, a closed box) and its edges.  ``graph_items`` gives the whole graph's (no boxes);
``view_items`` the picture inside one box (``micrograd.viz.boxes``), what the explorer shows when a
box is opened.  ``micrograd.viz.layout`` places them.

Inside box B the picture holds B's own Values (records, and the ops that made them), each box
directly inside B drawn closed (name, what it is, how many Values), and, dashed, where B's
inputs come from: a Value of a box around B, or the box beside B that made it (drawn closed).
An arrow goes from whatever holds an operand to the op, or to the closed box, that reads it.

>>> from micrograd import Value
>>> from micrograd.viz.graph_model import graph_model
>>> from micrograd.viz.boxes import boxes_of
>>> from micrograd.scopes import record_scopes, scope
>>> a = Value(2.0, label="a")
>>> with record_scopes() as rec:
...     with scope("square", inputs=[a]):
...         b = a * a
...     L = b + 1; L.label = "L"
>>> model = graph_model(L)
>>> boxes = boxes_of(model, rec)
>>> items, edges = view_items(model, boxes, 0)
>>> [item.key for item in items], edges
(['n0', 'g1', 'n2', 'n3_op', 'n3'], [('n0', 'g1'), ('g1', 'n3_op'), ('n2', 'n3_op'), ('n3_op', 'n3')])
"""

from __future__ import annotations

import heapq

from ..engine import Value
from .boxes import Box, Places, places
from .graph_model import COLOURS, GraphModel, fmt

__all__ = ["BOX_FILL", "Item", "box_lines", "graph_items", "value_items", "view_items"]

BOX_FILL = "#e5dbff"  # a closed box (a scope): violet, a colour no Value has
_DETAIL_CHARS = 40


class Item:
    """What a picture shows: a Value's ``record`` (its fields one above the other), an ``op``'s
    ellipse, or a ``box`` (a scope, drawn closed); ``key`` is its SVG title (``n3``,
    ``n3_op``, ``g2``); ``dashed``: a Value from outside the box being shown."""

    __slots__ = ("key", "kind", "lines", "fill", "dashed")

    def __init__(self, key: str, kind: str, lines: list[str], fill: str = "", dashed: bool = False) -> None:
        self.key, self.kind, self.lines, self.fill, self.dashed = key, kind, lines, fill, dashed


def _fields(v: Value, name: str) -> list[str]:
    return [name, f"data {fmt(v.data)}", f"grad {fmt(v.grad)}"]


def value_items(
    v: Value, key: str, name: str, fill: str, dashed: bool = False, op: str | None = None
) -> list[Item]:
    """``v``'s record and, for a result, its op's ellipse before it (``op``: as drawn, else ``v.op``)."""
    record = Item(key, "record", _fields(v, name), fill, dashed)
    return [Item(f"{key}_op", "op", [op or v.op or "?"]), record] if v.children and not dashed else [record]


def graph_items(model: GraphModel) -> tuple[list[Item], list[tuple[str, str]]]:
    """The whole graph's items, in forward order, and its edges (operand -> op, op -> result), as
    ``draw_dot`` draws it."""
    items: list[Item] = []
    edges: list[tuple[str, str]] = []
    for v in model.order:
        if v in model.hidden:
            continue
        key = model.id(v)
        items += value_items(v, key, model.names[v], COLOURS[model.roles[v]], op=model.op(v))
        if v.children:
            edges += [(model.id(c), f"{key}_op") for c in model.operands(v)]
            edges.append((f"{key}_op", key))
    return items, edges


def box_lines(box: Box) -> list[str]:
    """What a closed box says: its name, what it is (cut to 40 characters), how many Values."""
    detail = box.detail if len(box.detail) <= _DETAIL_CHARS else box.detail[: _DETAIL_CHARS - 1] + "…"
    lines = [box.name or "(the whole graph)"]
    if detail:
        lines.append(detail)
    lines.append(f"{box.size:,} Value{'s' if box.size != 1 else ''} · open ▸")
    return lines


class _Reps:
    """What stands for each Value in the picture of one box: its record, or a closed box."""

    def __init__(self, where: Places, view: int) -> None:
        self.where = where
        self.around = where.inside[view]  # the view and the boxes around it
        self.view = view

    def key(self, i: int) -> tuple[str, bool]:
        """(key, outside): ``n<i>`` or ``g<j>``, and whether it is drawn dashed, from outside."""
        chain = self.where.chains[self.where.home[i]]
        for k, b in enumerate(chain):
            if b in self.around:  # the lowest box around both the Value and the view
                outside = b != self.view
                return (f"n{i}", outside) if k == 0 else (f"g{chain[k - 1]}", outside)
        raise AssertionError("box 0 is around everything")


def view_items(
    model: GraphModel, boxes: list[Box], view: int, where: Places | None = None
) -> tuple[list[Item], list[tuple[str, str]]]:
    """The items of box ``view``'s picture, in an order that puts operands before their uses
    wherever the boxes allow it, and its edges (pairs of keys); ``where``: the boxes' ``Places``
    (derived from ``boxes`` if not given)."""
    reps = _Reps(where or places(boxes, len(model.order)), view)
    order, index = model.order, model.index
    items: dict[str, Item] = {}
    first: dict[str, float] = {}  # each item's place in the forward order, for the layout's order
    edges: dict[tuple[str, str], None] = {}

    def source(i: int) -> str:
        key, outside = reps.key(i)
        if key not in items:
            if key.startswith("n"):
                v = order[i]
                items[key] = value_items(v, key, model.names[v], COLOURS[model.roles[v]], outside)[-1]
            else:
                box = boxes[int(key[1:])]
                items[key] = Item(key, "box", box_lines(box), "#f3f0ff" if outside else BOX_FILL, outside)
            first[key] = i - 0.5 if outside else i
        first[key] = min(first[key], i)
        return key

    for b in boxes[view].children:
        box = boxes[b]
        key = f"g{b}"
        items[key] = Item(key, "box", box_lines(box), BOX_FILL)
        first[key] = min(box.outputs or box.members or [0])
        for i in box.inputs:
            edges[(source(i), key)] = None
    for i in boxes[view].members:
        v = order[i]
        if v in model.hidden:
            continue
        key = f"n{i}"
        for item in value_items(v, key, model.names[v], COLOURS[model.roles[v]], op=model.op(v)):
            items[item.key], first[item.key] = item, i - (0.25 if item.kind == "op" else 0.0)
        if v.children:
            for c in model.operands(v):
                edges[(source(index[c]), f"{key}_op")] = None
            edges[(f"{key}_op", key)] = None
    return _topological(items, first, list(edges)), list(edges)


def _topological(items: dict[str, Item], first: dict[str, float], edges: list[tuple[str, str]]) -> list[Item]:
    """``items`` with every item after its operands where no loop of boxes forbids it, and
    otherwise in forward order (``first``)."""
    preds = dict.fromkeys(items, 0)
    succs: dict[str, list[str]] = {key: [] for key in items}
    for a, b in edges:
        preds[b] += 1
        succs[a].append(b)
    ready = [(first[k], k) for k, n in preds.items() if n == 0]
    heapq.heapify(ready)
    out: list[Item] = []
    placed: set[str] = set()
    while len(out) < len(items):
        if not ready:  # a loop between boxes: the earliest item left goes next
            key = min((k for k in items if k not in placed), key=lambda k: first[k])
        else:
            key = heapq.heappop(ready)[1]
            if key in placed:
                continue
        placed.add(key)
        out.append(items[key])
        for s in succs[key]:
            preds[s] -= 1
            if preds[s] == 0 and s not in placed:
                heapq.heappush(ready, (first[s], s))
    return out
