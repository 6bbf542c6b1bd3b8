"""playground/live_training.py and runner.py: the Python the docs site's playground runs in the browser.

Here on CPython; tests/test_playground.py runs the same code in Pyodide in Chromium."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import json
import math
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from micrograd import Value, topological_order
from nn import MLP, losses, optim

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "playground" / "runner.py"
# The playground's Python is not a package: trainer.py imports live_training from beside itself.
sys.path.insert(0, str(RUNNER.parent))
live_training = importlib.import_module("live_training")
BOUNDS, DATASETS, FEATURES = live_training.BOUNDS, live_training.DATASETS, live_training.FEATURES
LiveTraining = live_training.LiveTraining


def _load_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("playground_runner", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run = _load_runner().run

LECTURE = """from micrograd import Value, topological_order
a = Value(2.0); b = Value(-3.0); c = Value(10.0)
e = a * b; d = e + c
f = Value(-2.0)
L = d * f
L.backward()
print("L =", L.data)
"""


def test_the_lectures_example_runs_and_its_last_value_is_explored() -> None:
    r = run(LECTURE)
    assert r["error"] is None and r["note"] is None
    assert r["output"] == "L = -8.0\n"
    assert r["shown"]["name"] == "L" and r["shown"]["data"] == -8.0
    grads = {name: float(grad) for name, _, grad in r["values"]}
    assert grads == {"a": 6.0, "b": -4.0, "c": -2.0, "e": -2.0, "d": -2.0, "f": 4.0, "L": 1.0}
    page = r["shown"]["html"]
    assert page.startswith("<!DOCTYPE html>") and "<title>n6_op</title>" in page
    assert '"name":"a"' in page  # the names bound in the code label the Values


def test_show_and_the_last_expression_choose_the_value() -> None:
    assert run("x = Value(1.0)\nshow = x * 2\ny = x + 1")["shown"]["name"] == "show"
    assert run("x = Value(3.0, label='x')\nz = x + 1\nx * x")["shown"]["data"] == 9.0
    assert run("x = Value(3.0)\ny = x.tanh()\nn = 4")["shown"]["name"] == "y"
    r = run("print('no values')")
    assert r["shown"] is None and "No Value to explore" in r["note"] and r["output"] == "no values\n"


def test_an_error_is_its_traceback_from_the_users_code_with_its_lines() -> None:
    r = run("x = Value(1.0)\nprint('before')\ny = x + undefined_name\n")
    assert r["output"] == "before\n"
    lines = r["error"].splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert '  File "<playground>", line 3, in <module>' in lines
    assert "    y = x + undefined_name" in lines
    assert lines[-1] == "NameError: name 'undefined_name' is not defined"
    assert "runner.py" not in r["error"]  # the runner's own frames are left out
    syntax = run("x = (1,\n")["error"]
    assert "SyntaxError" in syntax and "<playground>" in syntax and "Traceback" not in syntax
    assert "SystemExit: 3" in run("raise SystemExit(3)")["error"]


def test_a_graph_too_large_to_step_through_says_so() -> None:
    r = run("from nn import MLP\nm = MLP(2, [16, 16, 1], seed=0)\nout = m([1.0, 2.0])")
    assert r["shown"] is None and "max_nodes=300" in r["note"] and r["error"] is None


def test_output_is_capped() -> None:
    r = run("for i in range(100000): print('x' * 10)")
    assert len(r["output"]) == 200_000 and r["error"] is None


def _demo(**settings: object) -> LiveTraining:
    """micrograd's demo loop: the moons, full batch, no test set, SGD with lr 0.1 (a smaller MLP)."""
    return LiveTraining(n_samples=100, test_ratio=0.0, batch_size=0, hidden=[8, 8], **settings)  # type: ignore[arg-type]


def test_live_training_is_micrograds_demo_step_by_step() -> None:
    t = _demo(seed=1337)
    assert len(t.points) == 100 and sorted(set(t.labels)) == [0, 1] and t.split(True) == []
    model = MLP(2, [8, 8, 1], seed=1337)
    opt = optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = losses.hinge([model(p) for p in t.points], t.labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        assert t.step() == loss.data  # bit for bit the README's loop
    assert t.steps == 3 and len(t.history) == 3


def test_mini_batches_visit_every_training_point_each_epoch() -> None:
    t = LiveTraining(n_samples=40, test_ratio=0.25, batch_size=10, seed=2)
    train, test = t.split(False), t.split(True)
    assert len(train) == 30 and len(test) == 10 and not set(train) & set(test)
    epoch = [i for _ in range(3) for i in t.next_batch()]
    assert sorted(epoch) == train and all(len(t.next_batch()) == 10 for _ in range(6))
    t.update(batch_size=0)
    assert t.next_batch() == train  # 0: the whole training set


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid", "linear"])
def test_every_neurons_float_output_is_the_engines_forward(activation: str, fused: bool) -> None:
    """``outputs`` (the pictures' fast path) equals the engine's forward bit for bit, for every
    activation and feature, every neuron: the model's own call, the fused graph and each layer."""
    t = LiveTraining(
        n_samples=30, seed=3, activation=activation, features=list(FEATURES), hidden=[5, 3], fused=fused
    )
    for _ in range(5):
        t.step()
    cells = [[x / 4, y / 4] for x in range(-6, 7) for y in range(-5, 6)]
    columns = t.outputs(cells)
    assert [len(c) for c in columns] == [7, 5, 3, 1]
    for k, (x, y) in enumerate(cells):
        xs = [Value(v) for v in t.features_of(x, y)]
        assert [col[k] for col in columns[0]] == [v.data for v in xs]
        assert t.forward(xs).data == columns[-1][0][k] == t.model(xs).data
        for depth, layer in enumerate(t.model.layers, start=1):
            out = layer.forward(xs)
            assert [v.data for v in out] == [col[k] for col in columns[depth]]
            xs = out
    assert t.features_of(0.5, 2.0) == [0.5, 2.0, 0.25, 4.0, 1.0, math.sin(0.5), math.sin(2.0)]
    g = t.grid(4, (0.0, 4.0, 0.0, 4.0))
    assert g[0] == t.scores([[0.5, 3.5]])[0] and g[-1] == t.scores([[3.5, 0.5]])[0]


def test_the_fused_graph_is_the_models_bit_for_bit_gradients_included() -> None:
    for reg in ("none", "l1", "l2"):
        settings = dict(n_samples=40, seed=5, regularization=reg, reg_rate=0.01, activation="tanh")
        fused, plain = LiveTraining(**settings), LiveTraining(fused=False, **settings)  # type: ignore[arg-type]
        for _ in range(3):
            assert fused.step() == plain.step()
            grads = [p.grad for p in fused.model.parameters()]
            assert grads == [p.grad for p in plain.model.parameters()] and any(grads)
        assert [p.data for p in fused.model.parameters()] == [p.data for p in plain.model.parameters()]
    assert len(topological_order(fused.loss())) * 2 < len(topological_order(plain.loss()))


def test_regularization_adds_the_weights_norm_times_its_rate() -> None:
    t = LiveTraining(n_samples=20, seed=1, hidden=[3])
    weights = [w for layer in t.model.layers for n in layer.neurons for w in n.w]
    data = t.loss().data
    t.update(regularization="l2", reg_rate=0.5)
    assert t.loss().data == pytest.approx(data + 0.5 * sum(w.data**2 for w in weights))
    t.update(regularization="l1")
    assert t.loss().data == pytest.approx(data + 0.5 * sum(abs(w.data) for w in weights))
    loss = t.loss()
    # the explorer names the loss by the functions that made it, as a learner would write it
    from micrograd.viz.graph_model import names_of

    assert names_of(topological_order(loss), expressions=True)[loss] == "hinge + penalty"
    t.optimizer.zero_grad()
    loss.backward()
    biases = [n.b for layer in t.model.layers for n in layer.neurons]
    plain = LiveTraining(n_samples=20, seed=1, hidden=[3])
    plain.loss().backward()
    pb = [n.b for layer in plain.model.layers for n in layer.neurons]
    assert [b.grad for b in biases] == [b.grad for b in pb]  # the biases are not regularized


def test_controls_restart_what_they_change() -> None:
    t = LiveTraining(n_samples=40, seed=0)
    t.step()
    points, generation = [list(p) for p in t.points], t.generation
    assert t.update(lr=0.3, batch_size=5, regularization="l2", reg_rate=0.01) == "none"
    assert t.steps == 1 and t.optimizer.lr == 0.3 and t.generation == generation
    assert t.update(activation="tanh") == "model" and t.steps == 0 and t.generation == generation + 1
    assert t.model.activations == ["tanh", "tanh", "linear"] and t.points == points
    assert t.update(features=["x", "y", "x2"], hidden=[4]) == "model"
    assert t.model.nin == 3 and t.model.nouts == [4, 1]
    assert t.update(features=["xy", "x"]) == "model" and t.settings.features == ["x", "xy"]
    assert t.update(hidden=[]) == "model" and t.model.nouts == [1]  # no hidden layer: a linear model
    assert t.update(dataset="xor") == "data" and t.points != points
    for name in DATASETS:
        t.update(dataset=name, noise=0.2)
        assert sorted(set(t.labels)) == [0, 1] and len(t.points) == 40
        x0, x1, y0, y1 = BOUNDS
        inside = sum(x0 < x < x1 and y0 < y < y1 for x, y in t.points)
        assert inside >= 36, (name, inside)  # the view holds (nearly) every point
    with pytest.raises(ValueError, match="activation must be one of relu, tanh, sigmoid, linear"):
        t.update(activation="gelu")
    with pytest.raises(ValueError, match="unknown settings: colour"):
        t.update(colour="red")
    assert t.settings.dataset == "spirals"  # a refused change changes nothing


def test_the_state_round_trips_and_bad_states_say_what_is_wrong() -> None:
    t = LiveTraining(n_samples=30, seed=4, dataset="gaussian", features=["x", "sinx"], hidden=[3, 2, 5])
    t.add(0.123456, -1.0, 1)
    t.remove_nearest(0.0, 0.0)
    state = t.state()
    again = LiveTraining.from_state(json.loads(json.dumps(state)))
    assert again.state() == state and again.points == t.points and again.test == t.test
    assert [p.data for p in again.model.parameters()] == [p.data for p in t.model.parameters()]
    assert state["points"][-1] == [0.1235, -1.0, 1, 0]  # four decimals: what a link holds
    bad = [
        ({**state, "hidden": [9]}, "a hidden layer's size must be a whole number from 1 to 8, got 9"),
        ({**state, "hidden": [1] * 7}, "hidden must be a list of at most 6"),
        ({**state, "features": []}, "features must be a non-empty list"),
        ({**state, "noise": "0.1"}, "noise must be a number from 0.0 to 1.0, got '0.1'"),
        ({**state, "lr": float("nan")}, "lr must be a number"),
        ({**state, "points": [[0, 0, 2, 0]]}, "point 0's label must be a whole number from 0 to 1, got 2"),
        ({**state, "points": [[0, 0, 1]]}, r"point 0 must be \[x, y, label, test\]"),
        ({**state, "points": "<script>"}, "points must be a list"),
        ({**state, "dataset": "<b>x</b>"}, "dataset must be one of moons"),
        ({**state, "extra": 1}, "unknown settings: extra"),
    ]
    for broken, message in bad:
        with pytest.raises(ValueError, match=message):
            LiveTraining.from_state(broken)
    with pytest.raises(ValueError, match="a training state is a dict"):
        LiveTraining.from_state([1, 2])  # type: ignore[arg-type]


def test_explore_step_trains_one_step_of_this_model_with_its_parameters_named() -> None:
    t = LiveTraining(n_samples=40, seed=6, batch_size=20, hidden=[3])
    t.step()
    before = [p.data for p in t.model.parameters()]
    twin = LiveTraining(n_samples=40, seed=6, batch_size=20, hidden=[3])
    twin.step()
    html, title, size = t.explore_step()
    assert title == "training step 2 on 10 points of the batch's 20, loss " + title.rsplit(" ", 1)[1]
    assert t.steps == 2 and [p.data for p in t.model.parameters()] != before
    assert html.startswith("<!DOCTYPE html>") and 100 < size < 2000
    for name, p in t.model.named_parameters():
        assert p.label == name and f'"{name}"' in html  # layers.0.neurons.1.w.0 ...
    assert '"loss"' in html
    t.update(dataset="moons")  # (the same) and one class only: nothing to explore
    while 0 in t.labels:
        t.remove_nearest(*t.points[t.labels.index(0)])
    with pytest.raises(ValueError, match="needs points of both classes"):
        t.explore_step()


def test_points_are_added_and_removed_and_the_rate_changes() -> None:
    t = LiveTraining(n_samples=10, seed=0)
    t.add(5.0, 5.0, 1)
    assert t.points[-1] == [5.0, 5.0] and t.labels[-1] == 1 and t.test[-1] == 0
    assert t.remove_nearest(4.9, 5.2) == 10 and len(t.points) == 10
    with pytest.raises(ValueError):
        t.add(0.0, 0.0, 2)
    t.set_lr(0.5)
    assert t.optimizer.lr == 0.5 and t.lr == 0.5
    with pytest.raises((ValueError, TypeError)):
        t.set_lr(-1.0)
    while t.points:
        t.remove_nearest(0.0, 0.0)
    assert t.remove_nearest(0.0, 0.0) is None and math.isnan(t.step()) and math.isnan(t.accuracy())
    t.add(0.0, 0.0, 0)
    assert math.isnan(t.step())  # one class only: nothing to separate
    assert t.record()[0] == 0.0 and math.isnan(t.record()[2])  # no test points: no test loss


def test_the_playgrounds_python_needs_no_numpy() -> None:
    import subprocess

    code = (
        "import sys; sys.modules['numpy'] = None\n"
        f"import sys; sys.path.insert(0, {str(RUNNER.parent)!r})\n"
        "from runner import run\nfrom live_training import LiveTraining\n"
        "r = run('a = Value(2.0)\\nb = a * a')\nassert r['shown'] and not r['error'], r\n"
        "t = LiveTraining(); t.step(); t.grid(10)\n"
        f"sys.path.insert(0, {str(RUNNER.parent)!r}); import trainer; trainer.snapshot(); trainer.explore()\n"
        "print('ok')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "ok", proc.stderr
    assert isinstance(Value(1.0), Value)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (it checks syntax)")
def test_the_playgrounds_scripts_parse() -> None:
    import subprocess

    scripts = sorted([*RUNNER.parent.glob("*.js"), *RUNNER.parent.glob("*.mjs")])
    assert {p.name for p in scripts} >= {"playground.js", "boot.mjs", "runner.mjs", "trainer.mjs"}
    for script in scripts:
        proc = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr


def test_live_trainings_examples_hold() -> None:
    # (out of nn, `pytest --doctest-modules micrograd nn` no longer runs them)
    result = doctest.testmod(live_training, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
