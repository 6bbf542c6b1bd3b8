"""Names everywhere: a model's parameters are drawn, explained and explored by their
``named_parameters()`` names (``model=``, or found in a ``record_scopes()`` recording), a label
set by hand wins, bad ``model=`` arguments are clear errors, and a hostile name stays text."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import micrograd
from micrograd import Value
from micrograd.scopes import record_scopes
from micrograd.viz.boxes import boxes_of
from micrograd.viz.graph_model import graph_model, model_names, recorded_names
from micrograd.viz.layout import box_svgs
from nn import MLP

HOSTILE = "<img src=x onerror=alert(1)>"


def lecture_mlp() -> tuple[MLP, Value]:
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", seed=0)
    loss = micrograd.sum(
        (model(x) - y) ** 2 for x, y in zip([[2.0, 3.0, -1.0], [3.0, -1.0, 0.5]], [1.0, -1.0])
    )
    return model, loss


def page_data(html: str) -> dict[str, object]:
    raw = re.search(r'<script type="application/json" id="mg-data">(.*?)</script>', html, re.S)
    assert raw is not None
    data: dict[str, object] = json.loads(raw.group(1))
    return data


def test_draw_dot_render_and_explain_use_the_named_parameters_names(tmp_path: Path) -> None:
    pytest.importorskip("graphviz")
    model, loss = lecture_mlp()
    names = [name for name, _ in model.named_parameters()]
    assert "layers.0.neurons.1.w.1" in names
    source = micrograd.draw_dot(loss, model=model).source
    assert all(f"{{ {name} | data" in source for name in names)
    out = io.StringIO()
    micrograd.explain(loss, file=out, model=model)
    assert all(name in out.getvalue() for name in names)
    assert "layers.0.neurons.1.w.1  data" in out.getvalue()  # among the leaves' gradients
    assert "#" in micrograd.draw_dot(loss).source  # without model=, as before


def test_explore_names_parameters_from_model_and_from_recorded_scopes() -> None:
    model, loss = lecture_mlp()
    expected = {name for name, _ in model.named_parameters()}
    by_model = page_data(micrograd.explore(loss, model=model).html)
    assert expected <= {n["name"] for n in by_model["nodes"]}  # type: ignore[index, attr-defined]
    with record_scopes() as rec:
        _, recorded_loss = lecture_mlp()
    assert {name for name, _ in MLP(3, [4, 4, 1], seed=0).named_parameters()} == expected
    found = recorded_names(rec)
    assert set(found.values()) == expected  # the MLP called at the top knows its parameters
    page = micrograd.explore(recorded_loss, scopes=rec).html
    assert expected <= {n["name"] for n in page_data(page)["nodes"]}  # type: ignore[index, attr-defined]


def test_boxes_draw_the_parameters_by_name() -> None:
    with record_scopes() as rec:
        _, loss = lecture_mlp()
    graph = graph_model(loss, max_nodes=None, names=recorded_names(rec))
    boxes = boxes_of(graph, rec)
    svgs = box_svgs(graph, boxes)
    held = [box for box in boxes if box.name.startswith("parameters of")]
    assert sorted(box.name for box in held) == [f"parameters of layers.{i}" for i in range(3)]
    for box in held:  # every weight and bias drawn by name, none as #63
        assert not re.search(r">#\d+<", svgs[box.index])
    assert any(">layers.0.neurons.1.w.1<" in svgs[box.index] for box in held)


def test_a_label_wins_and_model_wins_over_discovered_names() -> None:
    model, loss = lecture_mlp()
    w = model.layers[0].neurons[1].w[1]
    w.label = "mine"
    assert graph_model(loss, names=model_names(model, "t")).names[w] == "mine"
    w.label = ""
    other = {w: "from model="}
    assert graph_model(loss, names={w: "discovered"} | other).names[w] == "from model="


class Hostile:
    def __init__(self, w: Value) -> None:
        self.w = w

    def named_parameters(self) -> Iterator[tuple[str, Value]]:
        yield HOSTILE, self.w


def test_a_hostile_parameter_name_stays_text() -> None:
    w = Value(0.5)
    loss = (w * 3.0).tanh()
    html = micrograd.explore(loss, model=Hostile(w), layout="builtin").html
    assert HOSTILE not in html  # escaped in the SVG, \u003c in the JSON
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert HOSTILE in [n["name"] for n in page_data(html)["nodes"]]  # type: ignore[index, union-attr]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (42, "model must be an nn.Module"),
        ("weights", "model must be an nn.Module"),
        ([("w", 1.0)], "entry 0 must be a (name: str, Value) pair"),
        ({3: Value(1.0)}, "entry 0 must be a (name: str, Value) pair"),
        ([Value(1.0)], "entry 0 must be a (name: str, Value) pair"),
    ],
)
def test_a_bad_model_is_a_clear_error(bad: object, message: str) -> None:
    loss = Value(1.0) * 2
    for call in (
        lambda: micrograd.explore(loss, model=bad),
        lambda: micrograd.explain(loss, model=bad, file=io.StringIO()),
    ):
        with pytest.raises(TypeError, match=re.escape(message)):
            call()


def test_the_loss_functions_name_their_result_and_a_later_label_wins() -> None:
    from nn import GPT
    from nn.losses import cross_entropy, mse

    model = MLP(2, [1], seed=0)
    loss = mse([model([1.0, 2.0])], [1.0])
    assert loss.label == "mse"
    assert micrograd.explore(loss, model=model).title.startswith("Backpropagation from mse = ")
    assert cross_entropy([[Value(0.5), Value(-1.0)]], [0]).label == "cross_entropy"
    assert GPT(5, 4, n_embd=4, n_head=1, seed=0).loss([0, 1, 2]).label == "loss"
    loss.label = "L"
    out = io.StringIO()
    micrograd.explain(loss, file=out, model=model)
    assert out.getvalue().startswith("Backpropagation from L = ")
