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
>>> from nn.recorder import TrainingRecorder
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from micrograd import Value, no_grad
from micrograd.files import write_atomically
from micrograd.pages import HEAD as PAGE_HEAD
from micrograd.pages import SCRIPT as CONTROLS_SCRIPT

from .module import Module

Point = Sequence[float]


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
        model: Module,
        points: Sequence[Point] | None = None,
        labels: Sequence[int] | None = None,
        *,
        grid: int = 18,
        max_frames: int = 100,
        max_boundaries: int = 25,
        title: str = "Training replay",
        loss_name: str = "loss",
    ) -> None:
        if not isinstance(model, Module):
            raise TypeError(f"TrainingRecorder needs an nn Module, got {type(model).__name__}")
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
        n = len(self.losses)
        frame_steps: list[int | None] = [*_evenly(n, self.max_frames)]
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
        return result

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
        page = _PAGE.replace("%%TITLE%%", html.escape(self.title)).replace("%%DATA%%", payload)
        write_atomically(target, page.encode("utf-8"), "write_html")
        return target


_PAGE = (
    PAGE_HEAD
    + r"""
  body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
         color: #212529; background: #fff; }
  header { padding: 8px 12px; border-bottom: 1px solid #dee2e6; background: #f8f9fa; position: sticky; top: 0;
           z-index: 1; }
  #scrub { flex: 1 1 240px; }
  #status { font-weight: 600; font-variant-numeric: tabular-nums; min-width: 420px; }
  main { display: flex; flex-wrap: wrap; gap: 16px; padding: 12px; align-items: flex-start; }
  figure { margin: 0; }
  figcaption { font-size: 12px; color: #495057; margin-bottom: 4px; }
  #boundary-fig { width: 342px; }
  canvas { display: block; border: 1px solid #dee2e6; }
  .heat { display: flex; gap: 18px; flex-wrap: wrap; }
  .block { display: flex; flex-direction: column; gap: 1px; }
  .block h3 { font-size: 11px; font-weight: 600; color: #495057; margin: 0 0 2px 0; }
  .row { display: flex; gap: 1px; }
  .cell { width: 11px; height: 11px; background: #f1f3f5; }
  #param { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; min-height: 1.4em; }
</style>
</head>
<body>
<header>
  <h1>%%TITLE%%</h1>
  <div class="bar">
    <button id="first" title="first step (Home)">|◀</button>
    <button id="prev" title="previous recorded step (←)">◀</button>
    <button id="play" title="play / pause (space)">▶ play</button>
    <button id="next" title="next recorded step (→)">▶</button>
    <button id="last" title="the trained model (End)">▶|</button>
    <label>speed <select id="speed">
      <option value="2">2 / s</option><option value="5">5 / s</option>
      <option value="10" selected>10 / s</option><option value="25">25 / s</option>
    </select></label>
    <input id="scrub" type="range" min="0" value="0" step="1" aria-label="step">
    <span id="status"></span>
  </div>
  <div class="keys">Keys: ← → step · space play/pause · Home/End · click a curve to jump there ·
    hover a cell for its parameter</div>
</header>
<main>
  <figure id="boundary-fig"><figcaption id="boundary-caption">decision boundary</figcaption>
    <canvas id="boundary" width="340" height="340"></canvas></figure>
  <div>
    <figure><figcaption id="loss-caption">loss</figcaption>
      <canvas id="loss" width="400" height="170"></canvas></figure>
    <figure style="margin-top: 10px"><figcaption>accuracy (%)</figcaption>
      <canvas id="acc" width="400" height="120"></canvas></figure>
  </div>
  <div>
    <figure><figcaption id="weights-caption">weights</figcaption>
      <div class="heat" id="weights"></div></figure>
    <figure style="margin-top: 10px"><figcaption id="grads-caption">gradients</figcaption>
      <div class="heat" id="grads"></div></figure>
    <div id="param">&nbsp;</div>
  </div>
</main>
<script type="application/json" id="mg-data">%%DATA%%</script>
<script>%%CONTROLS_SCRIPT%%</script>
<script>
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("mg-data").textContent);
  const $ = (id) => document.getElementById(id);
  const F = D.frames.length, STEPS = D.loss.length;
  const CLASS = ["#e03131", "#1971c2", "#2f9e44", "#f08c00", "#7048e8", "#0c8599"];
  const REGION = [[255, 201, 201], [165, 216, 255], [178, 242, 187], [255, 216, 168], [208, 191, 255],
                  [153, 233, 242]];
  let frame = 0;
  const num = (x) => typeof x === "number" ? x : Number(x);

  // Which boundary each frame shows: the latest computed at or before it.
  const boundaryOf = [];
  for (let i = 0, b = -1; i < F; i++) {
    while (b + 1 < D.boundaries.length && D.boundaries[b + 1].frame <= i) b++;
    boundaryOf.push(b);
  }

  // Heat maps: one block per layer, one row per neuron, one cell per parameter.
  function heat(container) {
    const cells = [], blocks = {}, rows = {};
    D.names.forEach((name, i) => {
      const [block, row] = D.groups[i];
      if (!blocks[block]) {
        const b = document.createElement("div"); b.className = "block";
        const h = document.createElement("h3"); h.textContent = block; b.appendChild(h);
        container.appendChild(b); blocks[block] = b;
      }
      const key = block + "|" + row;
      if (!rows[key]) {
        const r = document.createElement("div"); r.className = "row"; r.title = row;
        blocks[block].appendChild(r); rows[key] = r;
      }
      const c = document.createElement("div"); c.className = "cell";
      c.addEventListener("mouseenter", () => describe(i));
      rows[key].appendChild(c); cells.push(c);
    });
    return cells;
  }
  const wCells = heat($("weights")), gCells = heat($("grads"));
  let wMax = 0;
  for (const f of D.frames)
    for (const w of f.weights) if (isFinite(num(w))) wMax = Math.max(wMax, Math.abs(num(w)));
  function colour(x, scale) {
    x = num(x);
    if (!isFinite(x)) return "#212529";
    const t = scale > 0 ? Math.max(-1, Math.min(1, x / scale)) : 0;
    const [r, g, b] = t >= 0 ? [25, 113, 194] : [224, 49, 49];
    const a = Math.abs(t);
    const mix = (v) => Math.round(255 + (v - 255) * a);
    return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
  }
  function describe(i) {
    const f = D.frames[frame];
    const g = f.grads ? f.grads[i] : "(none after the last step)";
    $("param").textContent = `${D.names[i]} = ${f.weights[i]}   grad ${g}`;
    $("param").setAttribute("data-param", String(i));
  }

  function drawCurve(canvas, values, text, logScale, lo, hi, colour_) {
    const ctx = canvas.getContext("2d"), W = canvas.width, H = canvas.height, P = 28;
    ctx.clearRect(0, 0, W, H);
    const ys = values.map(num);
    const finite = ys.filter((y) => isFinite(y) && (!logScale || y > 0));
    if (lo === null) { lo = Math.min(...finite); hi = Math.max(...finite); }
    const tf = (y) => logScale ? Math.log10(y) : y;
    let a = tf(lo), b = tf(hi);
    if (!(b > a)) { a -= 1; b += 1; }
    const X = (k) => P + (W - P - 8) * (STEPS > 1 ? k / (STEPS - 1 + (D.final ? 1 : 0)) : 0.5);
    const Y = (y) => H - 14 - (H - 24) * (tf(y) - a) / (b - a);
    ctx.strokeStyle = "#dee2e6"; ctx.fillStyle = "#868e96"; ctx.font = "10px system-ui, sans-serif";
    ctx.beginPath(); ctx.moveTo(P, 6); ctx.lineTo(P, H - 14); ctx.lineTo(W - 4, H - 14); ctx.stroke();
    ctx.fillText(text(hi), 2, 12); ctx.fillText(text(lo), 2, H - 16);
    ctx.fillText("step 1", P, H - 3);
    const endText = D.final ? "trained" : "step " + STEPS;
    ctx.fillText(endText, W - 6 - ctx.measureText(endText).width, H - 3);
    ctx.strokeStyle = colour_; ctx.lineWidth = 1.5; ctx.beginPath();
    let started = false;
    ys.forEach((y, k) => {
      if (!isFinite(y) || (logScale && y <= 0)) { started = false; return; }
      if (started) ctx.lineTo(X(k), Y(y)); else { ctx.moveTo(X(k), Y(y)); started = true; }
    });
    ctx.stroke();
    return { X: X, Y: Y };
  }
  function curves() {
    const losses = D.loss.map(num).concat(D.final ? [num(D.final.loss)] : []);
    const pos = losses.filter((y) => isFinite(y) && y > 0);
    const logScale = pos.length === losses.length && Math.max(...pos) / Math.min(...pos) > 50;
    $("loss-caption").textContent = D.loss_name + (logScale ? " (log scale)" : "");
    const f = D.frames[frame], k = f.step === null ? STEPS : f.step;
    const l = drawCurve($("loss"), D.loss, (y) => y.toPrecision(3), logScale, null, null, "#1c7ed6");
    const a = drawCurve($("acc"), D.acc.map((x) => 100 * x), (y) => y.toFixed(0), false, 0, 100, "#2f9e44");
    for (const [c, m, y] of [[$("loss"), l, f.step === null ? D.final.loss : D.loss[k]],
                             [$("acc"), a, 100 * (f.step === null ? D.final.acc : D.acc[k])]]) {
      const ctx = c.getContext("2d");
      ctx.strokeStyle = "#e8590c"; ctx.lineWidth = 1; ctx.beginPath();
      ctx.moveTo(m.X(k), 4); ctx.lineTo(m.X(k), c.height - 14); ctx.stroke();
      if (isFinite(num(y)) && (c !== $("loss") || !logScale || num(y) > 0)) {
        ctx.fillStyle = "#e8590c"; ctx.beginPath();
        ctx.arc(m.X(k), m.Y(num(y)), 3.5, 0, 2 * Math.PI); ctx.fill();
      }
    }
  }

  const small = document.createElement("canvas");
  function boundary() {
    const canvas = $("boundary");
    if (!D.points.length) { $("boundary-fig").style.display = "none"; return; }
    const ctx = canvas.getContext("2d"), W = canvas.width, H = canvas.height, n = D.grid;
    const [x0, x1, y0, y1] = D.box;
    const bi = boundaryOf[frame], b = D.boundaries[bi];
    small.width = n; small.height = n;
    const sctx = small.getContext("2d"), img = sctx.createImageData(n, n);
    for (let i = 0; i < n * n; i++) {
      const rgb = REGION[b.classes[i] % REGION.length], s = 0.45 + 0.55 * b.strength[i];
      for (let j = 0; j < 3; j++) img.data[4 * i + j] = Math.round(255 + (rgb[j] - 255) * s);
      img.data[4 * i + 3] = 255;
    }
    sctx.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(small, 0, 0, W, H);
    D.points.forEach((p, i) => {
      ctx.beginPath();
      ctx.arc((p[0] - x0) / (x1 - x0) * W, (y1 - p[1]) / (y1 - y0) * H, 4, 0, 2 * Math.PI);
      ctx.fillStyle = CLASS[D.labels[i] % CLASS.length]; ctx.fill();
      ctx.strokeStyle = "#212529"; ctx.lineWidth = 0.8; ctx.stroke();
    });
    const bf = D.frames[b.frame];
    $("boundary-caption").textContent = "decision boundary " +
      (bf.step === null ? "of the trained model" : `at step ${bf.step + 1}`) +
      ` (the model on a ${n}×${n} grid; ${D.boundaries.length} of the steps have one)`;
  }

  function show(t) {
    frame = Math.max(0, Math.min(F - 1, t));
    $("scrub").value = String(frame);
    const f = D.frames[frame];
    if (f.step === null) {
      $("status").textContent = `after ${STEPS} steps: ${D.loss_name} ${D.final.loss_text}, ` +
        `accuracy ${D.final.acc_text}`;
    } else {
      $("status").textContent = `step ${f.step + 1} of ${STEPS}: ${D.loss_name} ${D.loss_text[f.step]}, ` +
        `accuracy ${D.acc_text[f.step]}`;
    }
    $("status").setAttribute("data-loss", f.step === null ? D.final.loss_text : D.loss_text[f.step]);
    let gMax = 0;
    if (f.grads) for (const g of f.grads) if (isFinite(num(g))) gMax = Math.max(gMax, Math.abs(num(g)));
    f.weights.forEach((w, i) => { wCells[i].style.background = colour(w, wMax); });
    gCells.forEach((c, i) => { c.style.background = f.grads ? colour(f.grads[i], gMax) : "#f1f3f5"; });
    $("weights-caption").textContent = `weights (blue > 0 > red; full colour at ±${wMax.toPrecision(3)})`;
    $("grads-caption").textContent = f.grads
      ? `gradients of this step (full colour at ±${gMax.toPrecision(3)})`
      : "gradients (none: the trained model takes no further step)";
    const p = $("param").getAttribute("data-param");
    if (p !== null) describe(Number(p));
    curves();
    boundary();
    $("prev").disabled = frame === 0; $("next").disabled = frame === F - 1;
  }

  function jumpTo(canvas, event) {
    const r = canvas.getBoundingClientRect(), P = 28, W = canvas.width;
    const x = (event.clientX - r.left) * W / r.width;
    const total = STEPS - 1 + (D.final ? 1 : 0);
    const k = Math.round((x - P) / (W - P - 8) * total);
    let best = 0;
    D.frames.forEach((f, i) => {
      const s = f.step === null ? STEPS : f.step;
      if (Math.abs(s - k) < Math.abs((D.frames[best].step ?? STEPS) - k)) best = i;
    });
    controls.go(best);
  }
  const controls = mgControls({show, frame: () => frame, last: F - 1});
  $("loss").addEventListener("click", (e) => jumpTo($("loss"), e));
  $("acc").addEventListener("click", (e) => jumpTo($("acc"), e));
  show(0);
  document.body.setAttribute("data-mg-ready", "1");
})();
</script>
</body>
</html>
""".replace("%%CONTROLS_SCRIPT%%", CONTROLS_SCRIPT)
)
