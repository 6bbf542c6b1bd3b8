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
from micrograd.viz.graph_model import MAX_EXPRESSION_NAME, graph_model, model_names, recorded_names
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


def expression_names(*roots: Value) -> dict[Value, str]:
    from micrograd import topological_order
    from micrograd.viz.graph_model import names_of

    return names_of(topological_order(list(roots)), expressions=True)


def test_an_unlabelled_value_of_named_operands_is_named_by_its_expression() -> None:
    x1, w1, x2, w2 = (Value(v, label=n) for v, n in [(2.0, "x1"), (-3.0, "w1"), (0.0, "x2"), (1.0, "w2")])
    b = Value(6.88, label="b")
    x1w1, x2w2 = x1 * w1, x2 * w2
    s = x1w1 + x2w2
    n = s + b
    names = expression_names(n)
    assert [names[v] for v in (x1w1, x2w2, s)] == ["x1*w1", "x2*w2", "x1*w1 + x2*w2"]
    assert names[n] == "x1*w1 + x2*w2 + b"
    assert names[x1] == "x1" and names[b] == "b"


def test_expression_names_bracket_what_binds_looser_and_stop_at_the_length_limit() -> None:
    a, b, c = Value(1.0, label="a"), Value(2.0, label="b"), Value(3.0, label="c")
    cases = [
        ((a + b) * c, "(a + b)*c"),
        (a - (b - c), "a - (b - c)"),
        (a - b - c, "a - b - c"),
        (a / (b * c), "a/(b*c)"),
        ((a * b) ** 2, "(a*b)**2"),
        (-(a + b), "-(a + b)"),
        ((a + b).tanh(), "tanh(a + b)"),
        (a * 2, "a*2"),
        (a * -2, "a*(-2)"),
    ]
    for v, want in cases:
        assert expression_names(v)[v] == want
    x = Value(3.0, label="x")
    y = (-(x**2)).relu() + (x / 2.0).exp()
    assert expression_names(y)[y] == "ReLU(-(x**2)) + exp(x/2)"  # 24 characters: the limit
    z = y + x
    assert len("ReLU(-(x**2)) + exp(x/2) + x") > MAX_EXPRESSION_NAME
    assert expression_names(z)[z].startswith("#")  # too long to read as a name
    spaced = Value(1.0, label="my weight")
    product = spaced * a
    assert expression_names(product)[product] == "(my weight)*a"  # a label with a space is bracketed


def test_a_sums_start_is_named_by_its_value_and_left_out_of_its_name() -> None:
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    s = micrograd.sum([a, b])
    names = expression_names(s)
    assert names[s] == "a + b" and names[s._prev[0]] == "0"
    assert "#" not in " ".join(names.values())


def test_an_operand_without_a_name_keeps_the_position_name() -> None:
    a = Value(2.0)  # no label: a parameter, #0
    b = Value(3.0, label="b")
    p = a * b
    assert expression_names(p)[p] == "#2"


def test_expression_names_of_hostile_labels_stay_text_in_the_explorer() -> None:
    hostile = "<b>x</b>"
    a = Value(2.0, label=hostile)
    b = Value(3.0, label="b")
    page = micrograd.explore(a * b).html
    assert hostile not in page  # escaped in the picture and in the page's data
    names = [n["name"] for n in page_data(page)["nodes"]]  # type: ignore[index, union-attr]
    assert f"({hostile})*b" in names
