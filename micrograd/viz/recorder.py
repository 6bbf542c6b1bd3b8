"""``TrainingRecorder``: record a training run step by step and replay it in the browser.

Per step it keeps the loss, the accuracy, and every parameter with its
gradient; ``write_html`` writes one self-contained page (no network) with
play / pause / step / scrub: the loss and accuracy curves, the decision
boundary of a 2-D classifier at that step (the model itself evaluated on a
coarse grid, in Python), and a heat map of the weights and of their gradients.

Call ``record`` after ``backward()`` and before the optimizer's ``step()``,
so that the weights, the gradients, the loss and the accuracy of a step belong
together; then ``finish`` with the trained model's loss and accuracy:

>>> from nn import MLP, accuracy, datasets, losses, optim
>>> from micrograd.viz.recorder import TrainingRecorder
>>> X, y = datasets.make_moons(20, noise=0.1, seed=0)
>>> model = MLP(2, [4, 1], seed=0)
>>> opt = optim.SGD(model.parameters(), lr=0.1)
>>> rec = TrainingRecorder(model, X, y, grid=6)
>>> for _ in range(3):
...     scores = [model(x) for x in X]
...     loss = losses.hinge(scores, y)
...     opt.zero_grad(); loss.backward()
...     rec.record(loss, accuracy(scores, y))
...     opt.step()
>>> rec.finish(losses.hinge([model(x) for x in X], y), 0.5)
>>> len(rec.losses), rec.final is not None
(3, True)

The page embeds every number it shows: the losses as the demos print them
(4 decimals), the parameters to 6 significant digits.  At most ``max_frames``
steps keep their weights (evenly spaced, first and last included) and at most
``max_boundaries`` of those get a decision boundary (each costs ``grid**2``
forward passes); the loss and accuracy curves keep every step.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from .. import no_grad
from ..engine import Value
from ..files import write_atomically
from . import page as pages

Point = Sequence[float]
# What the recorder calls on a model: an ``nn.Module``'s parameter API (read by name, so that the
# pictures never import nn: nn is a model library above them).
MODEL_API = ("named_parameters", "parameters", "load_state_dict")


class Model(Protocol):
    """A model as the recorder reads it: an ``nn.Module`` (or anything with its parameter API)."""

    def named_parameters(self) -> Iterator[tuple[str, Value]]: ...

    def parameters(self) -> list[Value]: ...

    def load_state_dict(self, state: Mapping[str, float]) -> object: ...


def _number(x: object, what: str) -> float:
    if isinstance(x, Value):
        return float(x.data)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{what} must be a Value or a number, got {type(x).__name__}: {x!r}")
    return float(x)


def _short(x: float) -> float | str:
    """6 significant digits for the page; non-finite numbers as strings (JSON has none)."""
    if math.isfinite(x):
        return float(f"{x:.6g}")
    return str(x)


def _evenly(n: int, k: int) -> list[int]:
    """At most ``k`` indices of ``range(n)``, evenly spaced, first and last included."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [n - 1]
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def _group(name: str) -> tuple[str, str, str]:
    """``layers.0.neurons.3.w.1`` -> (``layers.0``, ``neurons.3``, ``w1``): block, row, column."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[-1].isdigit():
        owner, col = parts[:-2], parts[-2] + parts[-1]
    else:
        owner, col = parts[:-1], parts[-1]
    if len(owner) >= 2:
        return ".".join(owner[:-2]) or owner[0], ".".join(owner[-2:]), col
    return ".".join(owner) or "(model)", ".".join(owner) or "(model)", col


MAX_GRID = 200  # cells per side of a decision boundary: 40,000 model calls a boundary at most
MAX_FRAMES = 10_000  # frames (and boundaries) a page holds at most


class TrainingRecorder:
    """Record a training run (see the module docstring) and write it as a replayable HTML page.

    ``model``: a ``Module`` (its ``named_parameters()`` are recorded).  ``points`` and
    ``labels``: the training data of a 2-D classifier, to draw its decision boundary
    (binary: one score per point, class 1 where it is > 0; multi-class: a list of
    logits, the argmax); without them the page has no boundary.  ``grid``: cells per
    side of the boundary's grid.
    """

    def __init__(
        self,
        model: Model,
        points: Sequence[Point] | None = None,
        labels: Sequence[int] | None = None,
        *,
        grid: int = 18,
        max_frames: int = 100,
        max_boundaries: int = 25,
        title: str = "Training replay",
        loss_name: str = "loss",
    ) -> None:
        missing = [name for name in MODEL_API if not callable(getattr(model, name, None))]
        if missing:
            raise TypeError(
                f"TrainingRecorder needs an nn Module (a model with {', '.join(MODEL_API)}), got "
                f"{type(model).__name__}, which has no {', '.join(missing)}"
            )
        for value, what, most in (
            (grid, "grid", MAX_GRID),
            (max_frames, "max_frames", MAX_FRAMES),
            (max_boundaries, "max_boundaries", MAX_FRAMES),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= most:
                raise ValueError(
                    f"TrainingRecorder: {what} must be an int from 2 to {most} (each boundary evaluates the "
                    f"model grid**2 times, and the page holds every frame), got {value!r}"
                )
        if (points is None) != (labels is None):
            raise ValueError(
                "TrainingRecorder: give both points and labels (for the decision boundary), or neither"
            )
        self.points: list[tuple[float, float]] = []
        self.labels: list[int] = []
        if points is not None and labels is not None:
            if len(points) != len(labels) or not points:
                raise ValueError(
                    f"TrainingRecorder: {len(points)} points but {len(labels)} labels "
                    "(need the same number, at least 1)"
                )
            for i, p in enumerate(points):
                if len(p) != 2:
                    raise ValueError(
                        f"TrainingRecorder: the boundary needs 2-D points; points[{i}] has {len(p)}"
                    )
                self.points.append((float(p[0]), float(p[1])))
            self.labels = [int(t) for t in labels]
        self.model = model
        self.grid = grid
        self.max_frames = max_frames
        self.max_boundaries = max_boundaries
        self.title = title
        self.loss_name = loss_name
        self.names = [name for name, _ in model.named_parameters()]
        self.losses: list[float] = []
        self.accuracies: list[float] = []
        self.weights: list[list[float]] = []
        self.grads: list[list[float]] = []
        self.final: tuple[float, float, list[float]] | None = None

    def record(self, loss: Value | float, accuracy: float) -> None:
        """One training step: its loss and accuracy, and every parameter with its ``.grad``
        (call after ``backward()``, before the optimizer's ``step()``)."""
        if self.final is not None:
            raise RuntimeError("TrainingRecorder.record: the run is finished (finish() was called)")
        acc = _number(accuracy, "accuracy")
        if not 0.0 <= acc <= 1.0:
            raise ValueError(f"TrainingRecorder.record: accuracy is a fraction in [0, 1], got {acc!r}")
        params = self.model.parameters()
        if len(params) != len(self.names):
            raise RuntimeError(
                "TrainingRecorder.record: the model's parameters changed since the recorder was made"
            )
        self.losses.append(_number(loss, "loss"))
        self.accuracies.append(acc)
        self.weights.append([p.data for p in params])
        self.grads.append([p.grad for p in params])

    def finish(self, loss: Value | float, accuracy: float) -> None:
        """The trained model (after the last step): its loss and accuracy, as the run reports them."""
        if not self.losses:
            raise RuntimeError("TrainingRecorder.finish: no step was recorded")
        acc = _number(accuracy, "accuracy")
        if not 0.0 <= acc <= 1.0:
            raise ValueError(f"TrainingRecorder.finish: accuracy is a fraction in [0, 1], got {acc!r}")
        self.final = (_number(loss, "loss"), acc, [p.data for p in self.model.parameters()])

    # ---- the page ----------------------------------------------------------------------------

    def _predictor(self) -> Callable[[float, float], tuple[int, float]]:
        """(class, confidence in [0, 1]) of the model at a point."""

        def predict(x0: float, x1: float) -> tuple[int, float]:
            out = self.model([x0, x1])  # type: ignore[operator]
            if isinstance(out, Value):
                s = out.data
                return (1 if s > 0 else 0), min(1.0, abs(s)) if math.isfinite(s) else 1.0
            zs = [z.data if isinstance(z, Value) else float(z) for z in out]
            best = max(range(len(zs)), key=zs.__getitem__)
            top = zs[best]
            total = sum(math.exp(z - top) for z in zs)  # softmax probability of the argmax
            return best, (1.0 / total - 1.0 / len(zs)) / (1.0 - 1.0 / len(zs)) if len(zs) > 1 else 1.0

        return predict

    def _boundary(self, weights: list[float], box: tuple[float, float, float, float]) -> dict[str, Any]:
        x0, x1, y0, y1 = box
        n = self.grid
        self.model.load_state_dict(dict(zip(self.names, weights)))
        predict = self._predictor()
        classes, strength = [], []
        with no_grad():
            for r in range(n):  # rows from the top (largest y) down, as an image
                y = y1 - (r + 0.5) * (y1 - y0) / n
                for c in range(n):
                    k, s = predict(x0 + (c + 0.5) * (x1 - x0) / n, y)
                    classes.append(k)
                    strength.append(round(s, 3))
        return {"classes": classes, "strength": strength}

    def data(self) -> dict[str, Any]:
        """Everything the page shows, as JSON-ready data."""
        if not self.losses:
            raise RuntimeError("TrainingRecorder: no step was recorded")
        frames = self._frames()
        result: dict[str, Any] = {
            "title": self.title,
            "loss_name": self.loss_name,
            "loss": [_short(x) for x in self.losses],
            "loss_text": [f"{x:.4f}" for x in self.losses],
            "acc": self.accuracies,
            "acc_text": [f"{a:.0%}" for a in self.accuracies],
            "final": None
            if self.final is None
            else {
                "loss": _short(self.final[0]),
                "loss_text": f"{self.final[0]:.4f}",
                "acc": self.final[1],
                "acc_text": f"{self.final[1]:.0%}",
            },
            "names": self.names,
            "groups": [list(_group(name)) for name in self.names],
            "frames": frames,
            "boundaries": [],
            "points": [list(p) for p in self.points],
            "labels": self.labels,
        }
        if self.points:
            self._add_boundaries(frames, result)
        return result

    def _frames(self) -> list[dict[str, Any]]:
        """The frames the page steps through: up to ``max_frames`` recorded steps, evenly spread,
        and the final weights (step None) if ``finish`` was called."""
        frame_steps: list[int | None] = [*_evenly(len(self.losses), self.max_frames)]
        if self.final is not None:
            frame_steps.append(None)
        frames: list[dict[str, Any]] = []
        for s in frame_steps:
            if s is None:
                assert self.final is not None
                frames.append({"step": None, "weights": [_short(w) for w in self.final[2]], "grads": None})
            else:
                frames.append(
                    {
                        "step": s,
                        "weights": [_short(w) for w in self.weights[s]],
                        "grads": [_short(g) for g in self.grads[s]],
                    }
                )
        return frames

    def _add_boundaries(self, frames: list[dict[str, Any]], result: dict[str, Any]) -> None:
        """Add the decision boundary of up to ``max_boundaries`` frames (the last always) to
        ``result``, with the box around the points; the model's weights are put back after."""
        xs = [p[0] for p in self.points]
        ys = [p[1] for p in self.points]
        mx = max(0.25, 0.1 * (max(xs) - min(xs)))
        my = max(0.25, 0.1 * (max(ys) - min(ys)))
        box = (min(xs) - mx, max(xs) + mx, min(ys) - my, max(ys) + my)
        result["box"] = list(box)
        result["grid"] = self.grid
        chosen = _evenly(len(frames), self.max_boundaries)
        if len(frames) - 1 not in chosen:
            chosen.append(len(frames) - 1)
        current = [p.data for p in self.model.parameters()]
        try:
            for i in chosen:
                weights = self.final[2] if frames[i]["step"] is None else self.weights[frames[i]["step"]]  # type: ignore[index]
                result["boundaries"].append({"frame": i, **self._boundary(weights, box)})
        finally:
            self.model.load_state_dict(dict(zip(self.names, current)))
        n_classes = max([*self.labels, *(k for b in result["boundaries"] for k in b["classes"])]) + 1
        result["classes"] = max(2, n_classes)

    def write_html(self, path: str | os.PathLike[str]) -> Path:
        """Write the replay page (one self-contained HTML file) and return its path."""
        target = Path(path)
        if target.suffix.lower() not in (".html", ".htm"):
            raise ValueError(f"TrainingRecorder.write_html: end the path with .html, got {os.fspath(path)!r}")
        if not target.parent.is_dir():
            raise FileNotFoundError(
                f"TrainingRecorder.write_html: the directory {str(target.parent)!r} does not exist"
            )
        payload = json.dumps(self.data(), separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
        page = pages.page("replay", TITLE=html.escape(self.title), DATA=payload)
        write_atomically(target, page.encode("utf-8"), "write_html")
        return target
