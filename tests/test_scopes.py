"""Named scopes (micrograd.scopes), the boxes made of them (micrograd.viz.boxes) and the picture inside
each box (micrograd.viz.box_views): what the explorer's grouped view is built from.

The boxes are checked against brute force: every Value in exactly one box, each box's inputs and
outputs the Values whose edges cross its border, and the chain rule through a box (what its inputs
receive from it) against ``micrograd.grad`` of its output."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import micrograd
from micrograd import Value, detect_anomaly, explore, no_grad
from micrograd.scopes import Recording, record_scopes, recording, scope
from micrograd.viz.box_views import view_items
from micrograd.viz.boxes import Box, boxes_of, chain_of, runs_of
from micrograd.viz.graph_model import GraphModel, graph_model
from nn import GPT, MLP, Layer, Module, Neuron

XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]


def lecture_batch(record: bool = True) -> tuple[Value, MLP, Recording | None]:
    """The lecture's 4-sample loss on an all-tanh MLP(3, [4, 4, 1])."""
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", seed=0)
    if not record:
        return micrograd.sum((model(x) - y) ** 2 for x, y in zip(XS, YS)), model, None
    with record_scopes() as rec:
        loss = micrograd.sum((model(x) - y) ** 2 for x, y in zip(XS, YS))
    return loss, model, rec


def gpt_step(record: bool = True) -> tuple[Value, GPT, Recording | None]:
    model = GPT(27, 8, n_embd=8, n_head=2, seed=0)
    if not record:
        return model.loss([26, 4, 12, 26]), model, None
    with record_scopes() as rec:
        loss = model.loss([26, 4, 12, 26])
    return loss, model, rec


# ---- recording ---------------------------------------------------------------------------------


def test_each_node_is_listed_by_the_innermost_open_scope() -> None:
    a, b = Value(2.0), Value(3.0)
    with record_scopes() as rec:
        c = a * b
        with scope("outer"):
            d = c + 1
            with scope("inner", inputs=[d]):
                e = d.tanh()
            f = e * 2
    assert rec.root.nodes == [c]
    (outer,) = rec.root.children
    assert (outer.name, outer.nodes, [s.name for s in outer.children]) == ("outer", [d, f], ["inner"])
    assert outer.children[0].nodes == [e] and outer.children[0].inputs == (d,)
    assert [s.name for s in rec.scopes()] == ["outer", "inner"]


def test_outside_a_recording_a_scope_does_nothing() -> None:
    with scope("nothing") as opened:
        y = Value(2.0) * 3
    assert opened is None and not recording()
    assert y._prev and y._extra is None


def test_a_scope_left_by_an_exception_is_closed() -> None:
    with record_scopes() as rec:
        with pytest.raises(ZeroDivisionError), scope("fails"):
            _ = Value(1.0) + 1
            raise ZeroDivisionError
        after = Value(1.0) * 2
    assert rec.root.nodes == [after] and not recording()


def test_bad_arguments_say_what_was_wrong() -> None:
    with record_scopes():
        with pytest.raises(TypeError, match="name must be a str"):
            scope(3)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="inputs must be a Value or a list or tuple of Values, got float"):
            scope("x", inputs=1.0)  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match="already recording"), record_scopes():
            pass
    assert not recording()


def test_recording_is_per_thread() -> None:
    made: list[Value] = []
    with record_scopes() as rec:
        worker = threading.Thread(target=lambda: made.append(Value(1.0) * 2))
        worker.start()
        worker.join()
        mine = Value(1.0) * 3
    assert rec.root.nodes == [mine] and made[0]._prev


def test_no_grad_and_detect_anomaly_keep_working_inside_a_recording() -> None:
    x = Value(2.0)
    with record_scopes() as rec, detect_anomaly():
        y = x * x
        with no_grad():
            z = x * 3
    assert rec.root.nodes == [y] and y._extra is not None and y._extra.origin  # where it was made
    assert z._prev == () and z not in rec.root.nodes


@pytest.mark.parametrize("make", [lecture_batch, gpt_step])
def test_recording_changes_no_number_and_no_node(make: Any) -> None:
    plain, plain_model, _ = make(record=False)
    seen, seen_model, _ = make(record=True)
    plain.backward()
    seen.backward()
    assert seen.data == plain.data
    assert [p.grad for p in seen_model.parameters()] == [p.grad for p in plain_model.parameters()]
    ops = [(v._op, len(v._prev)) for v in micrograd.topological_order(plain)]
    assert [(v._op, len(v._prev)) for v in micrograd.topological_order(seen)] == ops


def test_module_calls_are_scopes_named_after_their_attribute() -> None:
    _, _, rec = lecture_batch()
    assert rec is not None
    first = rec.root.children[0]
    assert (first.name, first.detail) == ("MLP", "MLP(3, [4, 4, 1], activation=['tanh', 'tanh', 'tanh'])")
    assert [s.name for s in first.children] == ["layers.0", "layers.1", "layers.2"]
    assert [s.name for s in first.children[0].children] == [f"neurons.{i}" for i in range(4)]
    assert first.children[0].children[0].detail == "TanhNeuron(3)"


def test_a_users_module_gets_a_scope_once_even_through_super() -> None:
    class Affine(Module):
        def __init__(self) -> None:
            self.w = Value(2.0)

        def __call__(self, x: Value) -> Value:
            return self.w * x

    class Shifted(Affine):
        def __call__(self, x: Value) -> Value:
            return super().__call__(x) + 1

    m, x = Shifted(), Value(3.0)
    with record_scopes() as rec:
        y = m(x)
    (only,) = rec.root.children
    assert (only.name, only.detail, only.children, only.inputs) == ("Shifted", "Shifted", [], (x,))
    assert len(only.nodes) == 2 and y in only.nodes
    assert m(x).data == 7.0  # and outside a recording the call is the user's own


def test_modules_are_plain_classes_but_while_a_recording_lasts() -> None:
    plain = {cls: (cls.__dict__["__call__"], cls.__dict__.get("forward")) for cls in (MLP, Layer, Neuron)}
    assert "__init_subclass__" not in vars(Module)  # nn wraps nothing: record_scopes() does
    ready, done = threading.Event(), threading.Event()
    other: list[list[str]] = []

    def record_in_another_thread() -> None:
        with record_scopes() as rec:
            ready.set()
            done.wait(timeout=30)
            MLP(2, [1], seed=0)([1.0, 2.0])
        other.append([s.name for s in rec.scopes()])

    with record_scopes() as rec:
        assert all(cls.__dict__["__call__"].__wrapped__ is calls[0] for cls, calls in plain.items())
        thread = threading.Thread(target=record_in_another_thread)
        thread.start()
        assert ready.wait(timeout=30)
    # this thread's recording ended, the other one's goes on: its module calls still open scopes
    done.set()
    thread.join(timeout=30)
    assert other == [["MLP", "layers.0", "neurons.0"]]
    assert {cls: (cls.__dict__["__call__"], cls.__dict__.get("forward")) for cls in plain} == plain
    assert rec.scopes() == [] and "__init_subclass__" not in vars(Module)


def test_a_module_class_defined_while_recording_gets_its_box_and_stays_plain() -> None:
    x = Value(3.0)
    with record_scopes() as rec:

        class Double(Module):
            def __call__(self, v: Value) -> Value:
                return v * 2

        y = Double()(x)
    assert [(s.name, s.nodes) for s in rec.scopes()] == [("Double", [y])]
    assert not hasattr(Double.__call__, "__wrapped__") and "__init_subclass__" not in vars(Module)


# ---- boxes ------------------------------------------------------------------------------------


def homes(model: GraphModel, boxes: list[Box]) -> list[int]:
    home = [-1] * len(model.order)
    for box in boxes:
        for i in box.members:
            assert home[i] == -1, "a Value in two boxes"
            home[i] = box.index
    assert -1 not in home, "a Value in no box"
    return home


def in_boxes(make: Any) -> tuple[Value, GraphModel, list[Box], list[set[int]]]:
    """``make``'s loss, its graph, its boxes and, for each Value, the boxes around it."""
    loss, _, rec = make()
    model = graph_model(loss, max_nodes=None)
    boxes = boxes_of(model, rec)
    return loss, model, boxes, [set(chain_of(h, boxes)) for h in homes(model, boxes)]


@pytest.mark.parametrize("make", [lecture_batch, gpt_step])
def test_every_value_is_in_one_box_and_the_borders_are_its_crossing_edges(make: Any) -> None:
    loss, model, boxes, inside = in_boxes(make)
    for box in boxes:
        b = box.index
        assert box.size == sum(1 for around in inside if b in around)
        used_in = {model.index[c] for i, v in enumerate(model.order) if b in inside[i] for c in v._prev}
        assert box.inputs == sorted(j for j in used_in if b not in inside[j])
        read_outside = {
            model.index[c] for i, v in enumerate(model.order) if b not in inside[i] for c in v._prev
        }
        expected = {j for j in read_outside if b in inside[j]} | (
            {model.index[loss]} if b in inside[model.index[loss]] else set()
        )
        assert box.outputs == sorted(expected)


def test_the_lecture_batch_in_boxes() -> None:
    loss, model, rec = lecture_batch()
    graph = graph_model(loss, max_nodes=None)
    boxes = boxes_of(graph, rec)
    top = [boxes[c].name for c in boxes[0].children]
    # the weights every sample reads: one box per layer; each sample's MLP call, numbered
    assert top == [
        "parameters of layers.2",
        "parameters of layers.1",
        "parameters of layers.0",
        "MLP (1)",
        "MLP (2)",
        "MLP (3)",
        "MLP (4)",
    ]
    first = boxes[boxes[0].children[3]]
    assert [boxes[c].name for c in first.children] == ["layers.0", "layers.1", "layers.2 / neurons.0"]
    params = set(model.parameters())
    assert all(graph.order[i] in params for c in boxes[0].children[:3] for i in boxes[c].members)
    assert sum(boxes[c].size for c in boxes[0].children[:3]) == len(params)


def test_a_neurons_weights_sit_in_its_box_when_only_it_reads_them() -> None:
    model = MLP(2, [3, 1], seed=0)
    x = [Value(0.5, label="x0"), Value(-1.0, label="x1")]
    with record_scopes() as rec:
        y = model(x)
    graph = graph_model(y)
    boxes = boxes_of(graph, rec)
    neuron = next(b for b in boxes if b.name == "neurons.0")
    members = {graph.order[i] for i in neuron.members}
    assert set(model.layers[0].neurons[0].parameters()) <= members
    assert not members & set(x)  # the call's inputs stay outside its box
    assert {graph.order[i] for i in boxes[0].members} >= set(x)


def test_the_chain_rule_through_a_box_is_its_outputs_gradient_times_its_jacobian() -> None:
    loss, _, rec = lecture_batch()
    graph = graph_model(loss, max_nodes=None)
    boxes = boxes_of(graph, rec)
    trace = graph.backward()
    runs = runs_of(graph, boxes, trace)
    sample = boxes[boxes[0].children[3]]  # MLP (1): one output, the prediction
    (out,) = sample.outputs
    (run,) = runs[sample.index]
    (upstream,) = run.upstream
    assert upstream == (out, trace.grads[graph.order[out]])
    inputs = [graph.order[j] for j, _, _ in run.given]
    local = micrograd.grad(graph.order[out], inputs)
    for (j, given, _), d in zip(run.given, local):
        assert math.isclose(given, upstream[1] * d, rel_tol=1e-12, abs_tol=1e-15), graph.names[graph.order[j]]


@pytest.mark.parametrize("make", [lecture_batch, gpt_step])
def test_runs_are_the_steps_inside_each_box_and_add_up_to_its_contributions(make: Any) -> None:
    _, graph, boxes, inside = in_boxes(make)
    trace = graph.backward()
    for box, runs in zip(boxes, runs_of(graph, boxes, trace)):
        b = box.index
        steps = [k for k, st in enumerate(trace.steps) if b in inside[graph.index[st.node]]]
        assert [k for run in runs for k in range(run.first, run.last + 1)] == steps
        for run in runs:
            given: dict[int, float] = {}
            for st in trace.steps[run.first : run.last + 1]:
                for c in st.contributions:
                    j = graph.index[c.operand]
                    if b not in inside[j]:
                        given[j] = given.get(j, 0.0) + c.contribution
            assert [(j, g) for j, g, _ in run.given] == list(given.items())


def test_boxes_of_wants_a_recording() -> None:
    with pytest.raises(TypeError, match="record_scopes"):
        boxes_of(graph_model(Value(1.0) * 2), [])  # type: ignore[arg-type]


def test_explore_checks_scopes() -> None:
    loss, _, rec = lecture_batch()
    with pytest.raises(TypeError, match="scopes must be what"):
        explore(loss, scopes="boxes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="layout='builtin' only"):
        explore(loss, scopes=rec, layout="graphviz")


# ---- the picture inside each box ------------------------------------------------------------------


@pytest.mark.parametrize("make", [lecture_batch, gpt_step])
def test_each_box_shows_its_own_values_its_boxes_and_where_its_inputs_come_from(make: Any) -> None:
    loss, _, rec = make()
    graph = graph_model(loss, max_nodes=None)
    boxes = boxes_of(graph, rec)
    assert graph.hidden  # the loss's sum start, in a box's members
    for box in boxes:
        items, edges = view_items(graph, boxes, box.index)
        keys = [item.key for item in items]
        assert len(keys) == len(set(keys))
        own = {item.key for item in items if item.kind == "record" and not item.dashed}
        # every member drawn but micrograd.sum's start of 0 (kept in the box, not drawn)
        assert own == {f"n{i}" for i in box.members if graph.order[i] not in graph.hidden}
        assert {item.key for item in items if item.kind == "box" and not item.dashed} == {
            f"g{c}" for c in box.children
        }
        assert all(a in keys and b in keys for a, b in edges)
        place = {key: k for k, key in enumerate(keys)}
        assert all(place[a] < place[b] for a, b in edges)  # these graphs' boxes make no loop


def test_boxes_that_read_each_other_in_a_loop_still_lay_out() -> None:
    a = Value(1.0, label="a")
    with record_scopes() as rec:
        with scope("first"):
            b = a * 2
        with scope("second"):
            c = b + 1
        with scope("first again"):
            d = c * b
    rec.root.children[2].nodes.extend(rec.root.children[0].nodes)  # b and d in one box: a loop
    rec.root.children[0].nodes.clear()
    page = explore(d, scopes=rec)
    assert "first again" in page.html


def test_a_scopes_name_cannot_inject_markup() -> None:
    x = Value(1.0)
    with record_scopes() as rec, scope("<script>alert(1)</script>", inputs=[x]):
        y = x * x
    text = explore(y + 1, scopes=rec).html
    assert "<script>alert(1)" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


# --- issue 34, item 2: no silent answers from scopes -------------------------------------------


def test_a_recording_of_none_of_the_graphs_values_is_said_not_silent() -> None:
    import warnings as _warnings

    a = Value(2.0, label="a")
    with record_scopes() as other, scope("elsewhere"):
        _ = a * 3
    loss = a * a
    with pytest.warns(
        UserWarning, match=r"recorded none of this graph's 2 Values, so it is shown without boxes"
    ):
        page = explore(loss, scopes=other, layout="builtin").html
    assert 'class="mg-note"' in page and "record_scopes()" in page
    with record_scopes() as empty:
        pass
    with pytest.warns(UserWarning, match="recorded none"):
        explore(loss, scopes=empty, layout="builtin")
    with record_scopes() as mine:
        loss = a * a
    with _warnings.catch_warnings():
        _warnings.simplefilter("error")  # a recording of the graph: no word
        explore(loss, scopes=mine)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"x": Value(1.0)}, r"got dict \(iterating a dict gives its keys: pass list\(d.values\(\)\)\)"),
        ({Value(1.0)}, "must be a Value or a list or tuple of Values, got set"),
        ("ab", "got str"),
        ([Value(1.0), 2.0], r"inputs\[1\] is a float, not a Value: 2.0"),
        ([[Value(1.0)], [None]], r"inputs\[1\]\[0\] is a NoneType, not a Value"),
        ([[[Value(1.0)]]], r"inputs\[0\]\[0\] is a list, not a Value"),
    ],
)
def test_inputs_that_are_not_values_are_refused(inputs: object, message: str) -> None:
    with record_scopes(), pytest.raises(TypeError, match=message):
        scope("block", inputs=inputs)  # type: ignore[arg-type]


def test_inputs_that_are_values_are_kept() -> None:
    a, b, c = Value(1.0), Value(2.0), Value(3.0)
    with (
        record_scopes() as rec,
        scope("one", inputs=a),
        scope("nested", inputs=[a, [b, c]]),
        scope("t", inputs=(c,)),
    ):
        pass
    assert [s.inputs for s in rec.scopes()] == [(a,), (a, b, c), (c,)]


def _doubles(x: Value) -> Iterator[Value]:
    with scope("inside the generator", inputs=[x]):
        yield x * 2
        yield x * 3


def test_a_scope_left_open_at_a_yield_is_closed_and_named_when_the_caller_goes_on() -> None:
    from micrograd.scopes import ScopeWarning

    a = Value(1.5, label="a")
    with record_scopes() as rec:
        g = _doubles(a)
        first = next(g)
        with (
            pytest.warns(ScopeWarning, match=r"'inside the generator', opened in the generator _doubles\(\)"),
            scope("the caller's"),
        ):
            mine = first + 1
        caller = rec.scopes()[-1]
        assert caller.name == "the caller's" and caller.parent is rec.root  # not inside the generator's
        assert caller.nodes == [mine]
        list(g)  # the generator finishes: its `with` exits quietly
    with pytest.warns(ScopeWarning, match="Close the `with scope"), record_scopes() as rec:
        g = _doubles(a)
        next(g) * 5  # no scope opens: the warning comes when the recording ends
    assert rec.scopes()[0].name == "inside the generator"


def test_a_generator_that_closes_its_scope_before_yielding_is_quiet() -> None:
    import warnings as _warnings

    def tidy(x: Value) -> Iterator[Value]:
        for k in (2, 3):
            with scope(f"times {k}", inputs=[x]):
                y = x * k
            yield y

    a = Value(1.0)
    with _warnings.catch_warnings():
        _warnings.simplefilter("error")
        with record_scopes() as rec:
            total = sum(tidy(a), Value(0.0))
            with scope("after"):
                total = total * 2
    assert [s.name for s in rec.scopes()] == ["times 2", "times 3", "after"]
