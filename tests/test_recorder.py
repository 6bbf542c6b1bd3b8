"""micrograd.viz.recorder.TrainingRecorder without a browser: what it records, the page's data, errors.
(tests/test_pages_browser.py opens the demos' pages in Chromium.)"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from micrograd import Value, no_grad
from micrograd.viz.recorder import TrainingRecorder
from nn import MLP, accuracy, datasets, losses, optim


def train(
    steps: int, recorder: TrainingRecorder, model: MLP, xs: list[list[float]], y: list[int]
) -> list[float]:
    opt = optim.SGD(model.parameters(), lr=0.1)
    curve = []
    for _ in range(steps):
        scores = [model(x) for x in xs]
        loss = losses.hinge(scores, y)  # type: ignore[arg-type]
        opt.zero_grad()
        loss.backward()
        recorder.record(loss, accuracy(scores, y))  # type: ignore[arg-type]
        opt.step()
        curve.append(loss.data)
    with no_grad():
        scores = [model(x) for x in xs]
    recorder.finish(losses.hinge(scores, y), accuracy(scores, y))  # type: ignore[arg-type]
    return curve


def page_data(path: Path) -> dict[str, Any]:
    m = re.search(
        r'<script type="application/json" id="mg-data">(.*?)</script>', path.read_text("utf-8"), re.S
    )
    assert m
    data: dict[str, Any] = json.loads(m.group(1))
    return data


@pytest.fixture
def moons() -> tuple[list[list[float]], list[int]]:
    return datasets.make_moons(16, noise=0.1, seed=3)


def test_records_each_steps_loss_accuracy_weights_and_gradients(moons: Any, tmp_path: Path) -> None:
    xs, y = moons
    model = MLP(2, [4, 1], seed=1)
    rec = TrainingRecorder(model, xs, y, grid=5)
    first = [(p.data, p.grad) for p in model.parameters()]
    curve = train(4, rec, model, xs, y)
    assert rec.losses == curve
    assert rec.weights[0] == [w for w, _ in first]
    assert rec.grads[0] != [0.0] * len(first)  # recorded after backward
    assert rec.final is not None and rec.final[2] == [p.data for p in model.parameters()]
    data = page_data(rec.write_html(tmp_path / "t.html"))
    assert data["loss_text"] == [f"{x:.4f}" for x in curve]
    assert [f["step"] for f in data["frames"]] == [0, 1, 2, 3, None]
    assert data["frames"][-1]["grads"] is None
    assert data["final"]["loss_text"] == f"{rec.final[0]:.4f}"
    assert data["names"] == [name for name, _ in model.named_parameters()]
    assert data["groups"][0] == ["layers.0", "neurons.0", "w0"] and data["groups"][2] == [
        "layers.0",
        "neurons.0",
        "b",
    ]
    assert len(data["boundaries"]) == 5 and all(len(b["classes"]) == 25 for b in data["boundaries"])
    assert [p.data for p in model.parameters()] == rec.final[2]  # the model is left as trained


def test_the_boundary_is_the_models_own_prediction(moons: Any) -> None:
    xs, y = moons
    model = MLP(2, [4, 1], seed=1)
    rec = TrainingRecorder(model, xs, y, grid=4)
    train(2, rec, model, xs, y)
    data = rec.data()
    x0, x1, y0, y1 = data["box"]
    last = data["boundaries"][-1]["classes"]
    with no_grad():
        for r in range(4):
            for c in range(4):
                point = [x0 + (c + 0.5) * (x1 - x0) / 4, y1 - (r + 0.5) * (y1 - y0) / 4]
                assert last[4 * r + c] == (model(point).data > 0)  # type: ignore[union-attr]


def test_long_runs_keep_at_most_max_frames_and_max_boundaries(moons: Any) -> None:
    xs, y = moons
    model = MLP(2, [2, 1], seed=0)
    rec = TrainingRecorder(model, xs, y, grid=2, max_frames=5, max_boundaries=3)
    train(20, rec, model, xs, y)
    data = rec.data()
    assert len(data["loss"]) == 20  # the curves keep every step
    assert [f["step"] for f in data["frames"]] == [0, 5, 10, 14, 19, None]
    assert [b["frame"] for b in data["boundaries"]] == [0, 2, 5]


def test_multi_class_models_and_no_boundary_without_points(tmp_path: Path) -> None:
    xs, y = datasets.make_spirals(12, n_classes=3, noise=0.05, seed=0)
    model = MLP(2, [4, 3], seed=0)
    rec = TrainingRecorder(model, xs, y, grid=3)
    logits = [model(x) for x in xs]
    loss = losses.cross_entropy(logits, y)  # type: ignore[arg-type]
    loss.backward()
    rec.record(loss, accuracy(logits, y))  # type: ignore[arg-type]
    data = rec.data()
    assert data["classes"] == 3 and all(0 <= s <= 1 for s in data["boundaries"][0]["strength"])
    plain = TrainingRecorder(model)
    plain.record(float("nan"), 0.5)
    page = plain.write_html(tmp_path / "plain.html")
    assert page_data(page)["boundaries"] == [] and page_data(page)["loss"] == ["nan"]


def test_the_page_is_self_contained(moons: Any, tmp_path: Path) -> None:
    xs, y = moons
    model = MLP(2, [2, 1], seed=0)
    rec = TrainingRecorder(model, xs, y, grid=2, title="<b>moons</b>")
    train(2, rec, model, xs, y)
    text = rec.write_html(tmp_path / "t.html").read_text("utf-8")
    assert not re.search(r"\b(src|href)\s*=|<link|@import|url\(|https?://", text)
    assert "<b>moons</b>" not in text and "&lt;b&gt;moons&lt;/b&gt;" in text


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda m, xs, y: TrainingRecorder(object(), xs, y), TypeError, "needs an nn Module"),  # type: ignore[arg-type]
        (lambda m, xs, y: TrainingRecorder(m, xs, None), ValueError, "give both points and labels"),
        (lambda m, xs, y: TrainingRecorder(m, xs, y[:3]), ValueError, "16 points but 3 labels"),
        (lambda m, xs, y: TrainingRecorder(m, [[1.0, 2.0, 3.0]], [0]), ValueError, "2-D points"),
        (lambda m, xs, y: TrainingRecorder(m, grid=1), ValueError, "grid must be an int from 2 to 200"),
        (lambda m, xs, y: TrainingRecorder(m, grid=10**9), ValueError, "grid must be an int from 2 to 200"),
        (
            lambda m, xs, y: TrainingRecorder(m, max_frames=10**9),
            ValueError,
            "max_frames must be an int from 2",
        ),
        (
            lambda m, xs, y: TrainingRecorder(m).record("a", 0.5),
            TypeError,
            "loss must be a Value or a number",
        ),
        (lambda m, xs, y: TrainingRecorder(m).record(1.0, 2.0), ValueError, "accuracy is a fraction"),
        (lambda m, xs, y: TrainingRecorder(m).finish(1.0, 1.0), RuntimeError, "no step was recorded"),
        (lambda m, xs, y: TrainingRecorder(m).data(), RuntimeError, "no step was recorded"),
    ],
)
def test_bad_input_is_a_clear_error(moons: Any, call: Any, error: type, message: str) -> None:
    xs, y = moons
    with pytest.raises(error, match=message):
        call(MLP(2, [2, 1], seed=0), xs, y)


def test_write_html_checks_the_path_and_record_refuses_after_finish(tmp_path: Path) -> None:
    rec = TrainingRecorder(MLP(2, [2, 1], seed=0))
    rec.record(Value(1.0), 0.5)
    with pytest.raises(ValueError, match=r"end the path with \.html"):
        rec.write_html(tmp_path / "t.png")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        rec.write_html(tmp_path / "no" / "t.html")
    rec.finish(0.5, 1.0)
    with pytest.raises(RuntimeError, match="the run is finished"):
        rec.record(1.0, 0.5)
