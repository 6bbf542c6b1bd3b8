"""nn.live and playground/runner.py: the Python the docs site's playground runs in the browser.

Here on CPython; tests/test_playground.py runs the same code in Pyodide in Chromium."""

from __future__ import annotations

import importlib.util
import math
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from micrograd import Value, topological_order
from nn import MLP, losses, optim
from nn.live import LiveTraining

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "playground" / "runner.py"


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


def test_live_training_is_micrograds_demo_step_by_step() -> None:
    t = LiveTraining(seed=1337)
    assert len(t.points) == 100 and sorted(set(t.labels)) == [0, 1]
    model = MLP(2, [16, 16, 1], seed=1337)
    opt = optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = losses.hinge([model(p) for p in t.points], t.labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        assert t.step() == loss.data  # bit for bit the README's loop
    assert t.steps == 3 and len(t.history) == 3


def test_the_fused_graph_is_the_models_bit_for_bit_gradients_included() -> None:
    fused, plain = LiveTraining(n_samples=40, seed=5), LiveTraining(n_samples=40, seed=5, fused=False)
    for _ in range(3):
        assert fused.step() == plain.step()
        grads = [p.grad for p in fused.model.parameters()]
        assert grads == [p.grad for p in plain.model.parameters()] and any(grads)
    assert [p.data for p in fused.model.parameters()] == [p.data for p in plain.model.parameters()]
    assert len(topological_order(fused.loss())) * 4 < len(topological_order(plain.loss()))


def test_the_grid_scores_are_the_models_outputs() -> None:
    t = LiveTraining(n_samples=30, seed=3)
    for _ in range(5):
        t.step()
    cells = [[x / 4, y / 4] for x in range(-6, 10) for y in range(-4, 7)]
    assert t.scores(cells) == [t.model(c).data for c in cells]
    g = t.grid(4, (0.0, 4.0, 0.0, 4.0))
    assert g[0] == t.model([0.5, 3.5]).data and g[-1] == t.model([3.5, 0.5]).data
    assert 0.0 <= t.accuracy() <= 1.0


def test_points_are_added_and_removed_and_the_rate_changes() -> None:
    t = LiveTraining(n_samples=10, seed=0)
    t.add(5.0, 5.0, 1)
    assert t.points[-1] == [5.0, 5.0] and t.labels[-1] == 1
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


def test_the_playgrounds_python_needs_no_numpy() -> None:
    import subprocess

    code = (
        "import sys; sys.modules['numpy'] = None\n"
        f"import sys; sys.path.insert(0, {str(RUNNER.parent)!r})\n"
        "from runner import run\nfrom nn.live import LiveTraining\n"
        "r = run('a = Value(2.0)\\nb = a * a')\nassert r['shown'] and not r['error'], r\n"
        "t = LiveTraining(); t.step(); t.grid(10)\nprint('ok')"
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
