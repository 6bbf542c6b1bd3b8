"""A layered layout of a Value's graph in pure Python: the explorer's page where Graphviz is not.

``explore`` lays a small graph out with Graphviz's ``dot`` program; a browser running the
engine (the docs site's playground, in Pyodide) has no ``dot``, and ``dot`` takes minutes
over thousands of Values, where this layout takes seconds.  ``graph_svg`` draws the
explorer's picture (``micrograd.viz.dot_graph(model, stacked=True)``'s: one record per
Value, its label, data and grad one above the other, one ellipse per op, edges in operand
order, left to right, the same colours) and writes it as the SVG that ``dot -Tsvg``
writes, the structure the explorer's script reads: ``g.node`` groups titled
``n<i>`` and ``n<i>_op``, a record's outline as a polygon and its field separators as
polylines, ``g.edge`` groups titled ``n<j>->n<i>_op`` holding a path.  ``explore(...,
layout="builtin")`` builds the explorer's page around it.

The layout is Sugiyama's, small: each node goes as far right as its uses allow (the
root in the last column), an edge across several columns gets a bend point in each,
three sweeps order every column by the mean position of its neighbours (an op's operands
top to bottom in operand order), and a few passes move each node towards its neighbours'
mean height without overlaps.  Text widths are estimated from Helvetica's metrics.

>>> from micrograd import Value
>>> from micrograd.viz.graph_model import graph_model
>>> a = Value(2.0, label="a"); b = Value(-3.0, label="b")
>>> L = a * b; L.label = "L"
>>> svg = graph_svg(graph_model(L))
>>> svg.startswith("<svg") and "<title>n2_op</title>" in svg and "<title>n0&#45;&gt;n2_op</title>" in svg
True
"""

from __future__ import annotations

import html
import itertools
import math

from .box_views import Item, graph_items, view_items
from .boxes import Box, places
from .graph_model import GraphModel

__all__ = ["box_svgs", "graph_svg", "layout_svg", "text_width"]

FONT_SIZE = 11.0  # draw_dot's fontsize, op names' too (as the explorer draws them)
FIELD_HEIGHT = 19.0  # a record's field, one above the other (Graphviz's, at 11 pt)
OP_WIDTH, OP_HEIGHT = 54.0, 36.0  # Graphviz's default ellipse, 0.75 in x 0.5 in
FIELD_PAD = 16.0  # room either side of a field's text, in points
RANK_GAP = 25.2  # between columns (graphviz_svg's ranksep, 0.35 in)
NODE_GAP = 14.0  # between two nodes of a column
MARGIN = 8.0
ARROW = 6.0  # the arrowhead's length (arrowsize 0.6)

# Helvetica's advance widths in thousandths of an em, for the characters numbers and names use most.
_WIDTHS = {
    **dict.fromkeys("0123456789", 556),
    **dict.fromkeys("abdeghnopqu", 556),
    **dict.fromkeys("ck", 500),
    **dict.fromkeys("sxyvz", 500),
    **dict.fromkeys("fjt", 278),
    **dict.fromkeys("ilI.,:;!| ", 278),
    "r": 333,
    "-": 333,
    "m": 833,
    "w": 722,
    "#": 556,
    "_": 556,
    "(": 333,
    ")": 333,
    "*": 389,
    "+": 584,
    "/": 278,
    "=": 584,
}


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """About how wide ``text`` is in Helvetica at ``size`` points (capitals and unknown glyphs: 0.667 em)."""
    return sum(_WIDTHS.get(ch, 667) for ch in text) * size / 1000.0


class _Node:
    """A box of the layout: a Value's record, an op's ellipse, or a bend point (width 0) of a long edge."""

    __slots__ = ("key", "kind", "width", "height", "rank", "x", "y", "pos", "preds", "succs")

    def __init__(self, key: str, kind: str, width: float, height: float) -> None:
        self.key = key
        self.kind = kind  # "record", "op" or "bend"
        self.width = width
        self.height = height
        self.rank = 0
        self.x = 0.0  # the column's left edge
        self.y = 0.0  # the centre
        self.pos = 0.0  # place in its column, for ordering
        self.preds: list[_Node] = []  # in operand order, for an op
        self.succs: list[_Node] = []


def _node_of(item: Item) -> _Node:
    if item.kind == "op":
        return _Node(item.key, "op", max(OP_WIDTH, text_width(item.lines[0]) + 24.0), OP_HEIGHT)
    # a box's lines are free text (its name in bold): room for a wider sans-serif than Helvetica
    wide, bold = (1.1, 1.2) if item.kind == "box" else (1.0, 1.0)
    width = max(text_width(t) * (bold if k == 0 else wide) for k, t in enumerate(item.lines)) + FIELD_PAD
    return _Node(item.key, item.kind, width, FIELD_HEIGHT * len(item.lines))


def _build(items: list[Item], edges: list[tuple[str, str]]) -> tuple[list[_Node], list[tuple[_Node, _Node]]]:
    """The layout's nodes, in ``items``' order, and its edges (operand -> op, op -> record)."""
    nodes = [_node_of(item) for item in items]
    by_key = {n.key: n for n in nodes}
    pairs = [(by_key[a], by_key[b]) for a, b in edges]
    for a, b in pairs:
        a.succs.append(b)
        b.preds.append(a)
    return nodes, pairs


def _rank(nodes: list[_Node]) -> int:
    """Each node as far right as its uses allow: the root last, everything else one left of its first use."""
    # nodes are in forward order (operands before ops before results), so reversed visits uses first
    depth = {id(n): 0 for n in nodes}
    for n in reversed(nodes):
        if n.succs:
            depth[id(n)] = 1 + max(depth[id(s)] for s in n.succs)
    last = max(depth.values())
    for n in reversed(nodes):  # (a box's arrows may loop back; a rank stays within the columns)
        n.rank = last - depth[id(n)] if not n.succs else max(0, min(s.rank for s in n.succs) - 1)
    return last


def _split_long_edges(edges: list[tuple[_Node, _Node]]) -> list[list[_Node]]:
    """Each edge as its chain of nodes, a bend point in every column it crosses."""
    chains = []
    for k, (a, b) in enumerate(edges):
        chain = [a]
        a.succs.remove(b)
        prev = a
        for r in range(a.rank + 1, b.rank):
            bend = _Node(f"bend{k}_{r}", "bend", 0.0, 4.0)
            bend.rank = r
            prev.succs.append(bend)
            bend.preds.append(prev)
            chain.append(bend)
            prev = bend
        if prev is not a:
            b.preds[b.preds.index(a)] = prev
        prev.succs.append(b)
        chain.append(b)
        chains.append(chain)
    return chains


def _order(columns: list[list[_Node]]) -> None:
    """Sort each column by the mean place of its neighbours: right to left, left to right, right to left."""

    def key_by_succs(n: _Node) -> float:
        if not n.succs:
            return n.pos
        # an operand sits by its op, and an op's operands keep their order: the slot breaks ties
        return sum(s.pos + (s.preds.index(n) + 1) / (len(s.preds) + 1) for s in n.succs) / len(n.succs)

    def key_by_preds(n: _Node) -> float:
        return sum(p.pos for p in n.preds) / len(n.preds) if n.preds else n.pos

    def sort(column: list[_Node], key: object) -> None:
        column.sort(key=key)  # type: ignore[arg-type]
        for i, n in enumerate(column):
            n.pos = float(i)

    for column in columns:
        for i, n in enumerate(column):
            n.pos = float(i)
    for sweep in ("left", "right", "left"):
        if sweep == "left":
            for column in reversed(columns[:-1]):
                sort(column, key_by_succs)
        else:
            for column in columns[1:]:
                sort(column, key_by_preds)


def _spread(column: list[_Node], wanted: list[float]) -> None:
    """Centres as close to ``wanted`` as the column's order and gaps allow (down, then up, averaged)."""
    n = len(column)
    down = list(wanted)
    for i in range(1, n):
        least = down[i - 1] + (column[i - 1].height + column[i].height) / 2 + NODE_GAP
        down[i] = max(down[i], least)
    up = list(wanted)
    for i in range(n - 2, -1, -1):
        most = up[i + 1] - (column[i + 1].height + column[i].height) / 2 - NODE_GAP
        up[i] = min(up[i], most)
    mid = [(d + u) / 2 for d, u in zip(down, up)]
    for i in range(1, n):  # the average can overlap again: push down once more
        mid[i] = max(mid[i], mid[i - 1] + (column[i - 1].height + column[i].height) / 2 + NODE_GAP)
    for node, y in zip(column, mid):
        node.y = y


def _place(columns: list[list[_Node]]) -> tuple[float, float]:
    x = MARGIN
    for column in columns:
        width = max(n.width for n in column)
        for n in column:
            n.x = x + (width - n.width) / 2
        x += width + RANK_GAP
        y = 0.0
        for n in column:
            n.y = y + n.height / 2
            y += n.height + NODE_GAP
    for _ in range(6):
        for column in reversed(columns[:-1]):
            _spread(column, [sum(s.y for s in n.succs) / len(n.succs) if n.succs else n.y for n in column])
        for column in columns[1:]:
            _spread(column, [sum(p.y for p in n.preds) / len(n.preds) if n.preds else n.y for n in column])
    top = min(n.y - n.height / 2 for c in columns for n in c)
    for c in columns:
        for n in c:
            n.y += MARGIN - top
    bottom = max(n.y + n.height / 2 for c in columns for n in c)
    return x - RANK_GAP + MARGIN, bottom + MARGIN


def _p(x: float, y: float) -> str:
    return f"{x:.1f},{y:.1f}"  # a tenth of a point: finer than a pixel at any zoom the page offers


def _record_svg(n: _Node, fields: list[str], fill: str, dashed: bool = False) -> list[str]:
    top, bottom = n.y - n.height / 2, n.y + n.height / 2
    left, right = n.x, n.x + n.width
    dash = ' stroke-dasharray="4,3"' if dashed else ""
    out = [
        f'<g id="{n.key}" class="node{" mg-outside" if dashed else ""}">',
        f"<title>{n.key}</title>",
        f'<polygon fill="{fill}" stroke="black"{dash} points="{_p(left, top)} {_p(left, bottom)} '
        f'{_p(right, bottom)} {_p(right, top)} {_p(left, top)}"/>',
    ]
    centre = (left + right) / 2
    for k, text in enumerate(fields):  # one above the other, as Graphviz stacks them left to right
        y = top + k * FIELD_HEIGHT
        if k:
            out.append(f'<polyline fill="none" stroke="black" points="{_p(left, y)} {_p(right, y)}"/>')
        out.append(
            f'<text text-anchor="middle" x="{centre:.1f}" y="{y + FIELD_HEIGHT / 2 + 3.8:.1f}" '
            f'font-size="11">{html.escape(text)}</text>'
        )
    out.append("</g>")
    return out


def _box_svg(n: _Node, lines: list[str], fill: str, dashed: bool = False) -> list[str]:
    """A closed scope: a rounded box, its name in bold above its other lines (dashed: from outside)."""
    top = n.y - n.height / 2
    dash = ' stroke-dasharray="5,3"' if dashed else ""
    out = [
        f'<g id="{n.key}" class="node mg-box{" mg-outside" if dashed else ""}">',
        f"<title>{n.key}</title>",
        f'<rect fill="{fill}" stroke="#5f3dc4" stroke-width="1.5"{dash} x="{n.x:.1f}" y="{top:.1f}" '
        f'width="{n.width:.1f}" height="{n.height:.1f}" rx="8"/>',
    ]
    centre = n.x + n.width / 2
    for k, text in enumerate(lines):
        weight = ' font-weight="bold"' if k == 0 else ""
        y = top + k * FIELD_HEIGHT + FIELD_HEIGHT / 2 + 3.8
        out.append(
            f'<text text-anchor="middle" x="{centre:.1f}" y="{y:.1f}" '
            f'font-size="11"{weight}>{html.escape(text)}</text>'
        )
    out.append("</g>")
    return out


def _op_svg(n: _Node, op: str) -> list[str]:
    cx = n.x + n.width / 2
    return [
        f'<g id="{n.key}" class="node">',
        f"<title>{n.key}</title>",
        f'<ellipse fill="#f1f3f5" stroke="black" cx="{cx:.1f}" cy="{n.y:.1f}" '
        f'rx="{n.width / 2:.1f}" ry="{n.height / 2:.1f}"/>',
        f'<text text-anchor="middle" x="{cx:.1f}" y="{n.y + 3.5:.1f}" '
        f'font-size="11">{html.escape(op)}</text>',
        "</g>",
    ]


def _edge_svg(chain: list[_Node], title: str) -> list[str]:
    start, end = chain[0], chain[-1]
    points = [(start.x + start.width, start.y)]
    points += [(n.x, n.y) for n in chain[1:-1]]
    tip = (end.x, end.y)
    points.append((tip[0] - ARROW, tip[1]))
    d = f"M{_p(*points[0])}"
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        mid = (x1 - x0) / 2
        d += f"C{_p(x0 + mid, y0)} {_p(x1 - mid, y1)} {_p(x1, y1)}"
    bx, by = points[-1]
    head = f"{_p(bx, by - ARROW / 2)} {_p(tip[0], tip[1])} {_p(bx, by + ARROW / 2)} {_p(bx, by - ARROW / 2)}"
    return [
        '<g class="edge">',
        f"<title>{html.escape(title)}</title>",
        f'<path fill="none" stroke="black" d="{d}"/>',
        f'<polygon fill="black" stroke="black" points="{head}"/>',
        "</g>",
    ]


def graph_svg(model: GraphModel) -> str:
    """``model``'s graph as ``draw_dot`` draws it, laid out here and written as Graphviz's SVG."""
    return layout_svg(*graph_items(model))


def box_svgs(model: GraphModel, boxes: list[Box]) -> list[str]:
    """Each box's picture (``micrograd.viz.box_views``), laid out here: the explorer's pictures of a
    graph in boxes, box 0's (the whole graph, its top boxes closed) first."""
    where = places(boxes, len(model.order))
    return [layout_svg(*view_items(model, boxes, box.index, where)) for box in boxes]


def layout_svg(items: list[Item], edges: list[tuple[str, str]]) -> str:
    """``items`` laid out left to right along ``edges`` (pairs of keys; an op's operands in order;
    ``items`` in forward order as far as their edges allow), written as Graphviz's SVG."""
    nodes, pairs = _build(items, edges)
    last = _rank(nodes)
    if not pairs and len(nodes) > 12:  # nothing but leaves (a box of parameters): a grid, not a column
        per_column = math.ceil(math.sqrt(len(nodes) * 2))
        for k, n in enumerate(nodes):
            n.rank = k // per_column
        last = (len(nodes) - 1) // per_column
    chains = _split_long_edges(pairs)
    columns: list[list[_Node]] = [[] for _ in range(last + 1)]
    seen: set[int] = set()
    for n in [*nodes, *(b for c in chains for b in c[1:-1])]:
        if id(n) not in seen:
            seen.add(id(n))
            columns[n.rank].append(n)
    columns = [c for c in columns if c]  # (boxes that read each other in a loop can leave gaps)
    _order(columns)
    width, height = _place(columns)
    body: list[str] = []
    for chain in chains:
        body += _edge_svg(chain, f"{chain[0].key}->{chain[-1].key}")
    for item, n in zip(items, nodes):
        if item.kind == "op":
            body += _op_svg(n, item.lines[0])
        elif item.kind == "box":
            body += _box_svg(n, item.lines, item.fill, item.dashed)
        else:
            body += _record_svg(n, item.lines, item.fill, item.dashed)
    # Graphviz writes "->" in a title as "&#45;&gt;"; the explorer reads textContent, the same either way.
    text = "\n".join(body).replace("-&gt;", "&#45;&gt;")
    return (
        f'<svg width="{width:.0f}pt" height="{height:.0f}pt" viewBox="0.00 0.00 {width:.2f} {height:.2f}" '
        'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n'
        f'<g id="graph0" class="graph" font-family="Helvetica,sans-Serif">\n'
        f'<polygon fill="white" stroke="none" points="0,0 0,{height:.2f} '
        f'{width:.2f},{height:.2f} {width:.2f},0 0,0"/>\n{text}\n</g>\n</svg>\n'
    )
