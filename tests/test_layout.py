"""micrograd.viz.layout: the explorer's graph laid out without Graphviz, as the playground needs it.

The SVG has what the explorer's script reads (a titled group per Value and per op, a record's
outline and field separators, a titled path per edge), every edge runs left to right, no two
boxes of a column overlap, and the page carries the same data as ``explore``'s.  The playground's
browser tests (tests/test_playground.py) step through such a page in Chromium."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from micrograd import Value, explore, topological_order
from micrograd.viz import GraphTooLargeError
from micrograd.viz.explorer import trace_data
from micrograd.viz.graph_model import graph_model
from micrograd.viz.layout import graph_svg, text_width
from nn import MLP
from tests.explore_graphs import GRAPHS


def svg_of(root: Value) -> str:
    return graph_svg(graph_model(root, max_nodes=None))


SVG = "{http://www.w3.org/2000/svg}"


def boxes(svg: str) -> dict[str, tuple[float, float, float, float]]:
    """Each node's (left, top, right, bottom), by title."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "node":
            continue
        title = g.find(f"{SVG}title")
        assert title is not None and title.text
        poly = g.find(f"{SVG}polygon")
        if poly is not None:
            pts = [tuple(map(float, p.split(","))) for p in (poly.get("points") or "").split()]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            out[title.text] = (min(xs), min(ys), max(xs), max(ys))
        else:
            e = g.find(f"{SVG}ellipse")
            assert e is not None
            cx, cy, rx, ry = (float(e.get(k) or 0) for k in ("cx", "cy", "rx", "ry"))
            out[title.text] = (cx - rx, cy - ry, cx + rx, cy + ry)
    return out


def graphs() -> list[str]:
    return [name for name, make in GRAPHS.items() if make() is not None]


@pytest.mark.parametrize("name", graphs())
def test_every_value_op_and_edge_is_drawn_left_to_right_without_overlaps(name: str) -> None:
    root = GRAPHS[name]()
    assert root is not None
    order = topological_order(root)
    svg = svg_of(root)
    found = boxes(svg)
    # micrograd.sum's start of 0 is the one Value not drawn (its id stays its place in the order)
    hidden = {v for v in order if v.op == "(constant)" and v.data == 0.0 and not v._prev}
    hidden &= {p._prev[0] for p in order if p.op == "+" and len(p._prev) > 1}
    assert graph_model(root, max_nodes=None).hidden == hidden
    drawn = [(i, v) for i, v in enumerate(order) if v not in hidden]
    expected = {f"n{i}" for i, _ in drawn} | {f"n{i}_op" for i, v in drawn if v._prev}
    assert set(found) == expected
    # one edge per drawn operand (a reused operand once per use) and one from each op to its result
    titles = re.findall(r'<g class="edge">\n<title>([^<]*)</title>', svg)
    titles = [t.replace("&#45;&gt;", "->") for t in titles]
    index = {v: i for i, v in enumerate(order)}
    want = []
    for i, v in drawn:
        want += [f"n{index[c]}->n{i}_op" for c in v._prev if c not in hidden]
        if v._prev:
            want.append(f"n{i}_op->n{i}")
    assert sorted(titles) == sorted(want)
    for t in titles:
        a, b = t.split("->")
        assert found[a][2] < found[b][0], t  # the source ends left of where the target starts
    items = sorted(found.items(), key=lambda kv: kv[1][0])
    for k, (na, a) in enumerate(items):
        for nb, b in items[k + 1 :]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (na, nb)
    # the records' fields: name | data | grad, two separators, as the explorer reads them
    for i, _ in drawn:
        group = svg.split(f"<title>n{i}</title>")[1].split("</g>")[0]
        assert group.count("<polyline") == 2
        texts = re.findall(r">([^<]*)</text>", group)
        assert texts[-2].startswith("data ") and texts[-1].startswith("grad ")


def test_the_page_carries_explores_data_and_the_laid_out_graph() -> None:
    root = GRAPHS["readme"]()
    assert root is not None
    page = explore(root, layout="builtin")
    assert page.html.startswith("<!DOCTYPE html>") and "https://" not in page.html
    data = json.loads(page.html.split('id="mg-data">')[1].split("</script>")[0])
    model = graph_model(root)
    assert data == json.loads(json.dumps(trace_data(model, model.backward())))
    assert svg_of(root) in page.html
    assert page.title == "Backpropagation from L = -8.0000"


def test_an_operand_order_is_kept_top_to_bottom() -> None:
    a, b, c = Value(1.0, label="a"), Value(2.0, label="b"), Value(3.0, label="c")
    d = a - b
    e = d / c
    found = boxes(svg_of(e))
    assert found["n0"][1] < found["n1"][1]  # a above b: a - b
    assert found["n2"][1] < found["n3"][1]  # d above c: d / c


def test_names_are_text_never_markup() -> None:
    x = Value(1.0, label="<script>alert(1)</script>")
    y = x * 2
    y.label = '"><img src=x onerror=alert(1)>'
    svg = svg_of(y)
    assert "<script>" not in svg and "<img" not in svg
    ET.fromstring(svg)  # well-formed


def test_too_large_a_graph_says_so() -> None:
    model = MLP(2, [16, 16, 1], seed=0)
    out = model([1.0, 2.0])
    with pytest.raises(GraphTooLargeError, match="max_nodes=300"):
        explore(out, layout="builtin", max_nodes=300)
    assert svg_of(out).count('class="node"') > 300


def test_text_width_grows_with_the_text() -> None:
    assert text_width("data -8.0000") > text_width("data 2") > 0
