"""The engine workloads, written once against micrograd 0.1.0's API.

Runs inside a worker process whose ``micrograd`` is either karpathy's 0.1.0 or
this project (which serves the same API), so every function imports
``micrograd`` lazily and uses nothing beyond what 0.1.0 has: ``Value`` with
+ * ** relu, ``.data``, ``.grad``, ``._prev``, ``.backward()``, and
``micrograd.nn.MLP`` with ``parameters()`` and ``zero_grad()`` (except
``train_step_compiled``, ``train_step_compiled_batched`` and ``digits_epoch``, which
measure this project's ``micrograd.compile``).

Each workload takes keyword parameters (plain JSON values) and returns a
JSON-ready dict; ``"samples"`` holds the measurements (seconds, or bytes per
node), of which the driver reports the median, and an optional ``"status"``
says why there are none (e.g. RecursionError).
"""

from __future__ import annotations

import gc
import random
import tracemalloc
from time import perf_counter
from typing import Any

import digits
from moons import LAYER_SIZES, MODEL_SEED, learning_rate, make_moons


def _seeded_model() -> Any:
    from micrograd.nn import MLP

    random.seed(MODEL_SEED)
    return MLP(LAYER_SIZES[0], list(LAYER_SIZES[1:]))


def _scores(model: Any, points: list[list[float]]) -> list[Any]:
    from micrograd.engine import Value

    inputs = [list(map(Value, xrow)) for xrow in points]
    return list(map(model, inputs))


def _svm_loss(model: Any, points: list[list[float]], labels: list[int]) -> Any:
    """micrograd's demo loss: SVM max-margin, averaged, plus 1e-4 L2 (full batch)."""
    scores = _scores(model, points)
    losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(labels, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    return data_loss + reg_loss


def train_step(n_points: int, steps: int) -> dict[str, Any]:
    """``steps`` SGD steps of the demo from fresh seeded weights; each step timed
    from the forward pass to the end of the update."""
    points, labels = make_moons(n_points)
    model = _seeded_model()
    samples: list[float] = []
    losses: list[float] = []
    for k in range(steps):
        t0 = perf_counter()
        loss = _svm_loss(model, points, labels)
        model.zero_grad()
        loss.backward()
        lr = learning_rate(k)
        for p in model.parameters():
            p.data -= lr * p.grad
        samples.append(perf_counter() - t0)
        losses.append(float(loss.data))
    return {"samples": samples, "loss": losses}


def train_step_compiled(n_points: int, steps: int) -> dict[str, Any]:
    """``train_step`` on this project only, with the step traced once by ``micrograd.compile``
    and replayed with numpy (the trace is not timed; a step is the replay plus the update)."""
    from micrograd import compile as mg_compile

    points, labels = make_moons(n_points)
    model = _seeded_model()
    params = model.parameters()

    def loss_fn(xs: Any, ys: Any) -> Any:  # _svm_loss, on inputs the tracer already made Values
        scores = list(map(model, xs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(ys, scores)]
        return sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in params)

    import numpy  # noqa: F401 - loaded before the trace is timed (compile imports it on first use)

    t0 = perf_counter()
    step = mg_compile(loss_fn, (points, labels), params=params)
    trace = perf_counter() - t0
    return _replay_steps(step, params, points, labels, steps) | {"trace_s": trace}


def _replay_steps(step: Any, params: list[Any], points: Any, labels: Any, steps: int) -> dict[str, Any]:
    """``steps`` SGD steps through a compiled step, each timed from the replay to the end of the update.
    The data are made numpy arrays once, before the steps, as the numpy floor makes them."""
    import numpy

    points, labels = numpy.array(points, dtype=float), numpy.array(labels, dtype=float)
    samples: list[float] = []
    losses: list[float] = []
    for k in range(steps):
        t0 = perf_counter()
        loss, grads = step(points, labels)
        # the SGD step, its products lr * g taken on the array (the same floats as one by one)
        for p, step_k in zip(params, (learning_rate(k) * grads).tolist()):
            p.data -= step_k
        samples.append(perf_counter() - t0)
        losses.append(loss)
    return {"samples": samples, "loss": losses}


NO_BATCHED_COMPILE = "this engine has no compile(batched=True)"


def train_step_compiled_batched(n_points: int, steps: int) -> dict[str, Any]:
    """``train_step_compiled`` with the step traced on ONE point (its hinge term plus the L2
    term: the mean over the points is the demo's loss) and replayed over the batch of all
    points by ``micrograd.compile(..., batched=True)``, which returns the mean loss and
    gradients.  Equal to the demo's loss up to the order of additions (the L2 term is added
    to each point's hinge term, then averaged)."""
    import inspect

    from micrograd import compile as mg_compile

    if "batched" not in inspect.signature(mg_compile).parameters:  # an earlier commit (--baseline)
        return {"samples": [], "status": NO_BATCHED_COMPILE}
    points, labels = make_moons(n_points)
    model = _seeded_model()
    params = model.parameters()

    def loss_fn(x: Any, y: Any) -> Any:  # one point's loss
        return (1 + -y * model(x)).relu() + 1e-4 * sum(p * p for p in params)

    import numpy  # noqa: F401 - loaded before the trace is timed (compile imports it on first use)

    t0 = perf_counter()
    step = mg_compile(loss_fn, (points[0], labels[0]), params=params, batched=True)
    trace = perf_counter() - t0
    return _replay_steps(step, params, points, labels, steps) | {"trace_s": trace}


def digits_epoch(epochs: int, limit: int | None = None) -> dict[str, Any]:
    """Issue 15's digits training, as ``demos/digits.py`` runs it: MLP(64, [32, 10]) from
    ``digits.initial_weights``, one image's softmax cross-entropy traced once by
    ``micrograd.compile(..., batched=True)``, Adam (lr 1e-2) on the mini-batches of 64 of
    ``digits.epoch_batches``; each epoch timed (slicing the batches, replay, Adam's update).
    ``limit``: train on that many images only (tiny mode)."""
    import inspect

    from micrograd import compile as mg_compile

    if "batched" not in inspect.signature(mg_compile).parameters:  # an earlier commit (--baseline)
        return {"samples": [], "status": NO_BATCHED_COMPILE}
    try:
        images, onehot = digits.training_set(limit)
    except ImportError:
        return {"samples": [], "status": digits.NO_SKLEARN}
    from demos.digits import sample_loss
    from nn import MLP, optim

    model = MLP(digits.LAYER_SIZES[0], list(digits.LAYER_SIZES[1:]))
    layers = digits.initial_weights()
    weights = [x for rows, biases in layers for row, b in zip(rows, biases) for x in [*row, b]]
    params = model.parameters()
    for p, w in zip(params, weights, strict=True):  # per neuron: its weights, then its bias
        p.data = w
    t0 = perf_counter()
    step = mg_compile(sample_loss(model), (images[0], onehot[0]), params=params, batched=True)
    trace = perf_counter() - t0
    opt = optim.Adam(params, lr=digits.LR)
    samples: list[float] = []
    losses: list[float] = []
    for epoch in range(epochs):
        t0 = perf_counter()
        for idx in digits.epoch_batches(len(images), epoch):
            opt.zero_grad()
            losses.append(step.backward(images[idx], onehot[idx]))  # the batch's mean loss
            opt.step()
        samples.append(perf_counter() - t0)
    return {"samples": samples, "loss": losses, "trace_s": trace}


def forward(n_points: int, steps: int) -> dict[str, Any]:
    """Inference: the model's scores on every point (inputs wrapped as Values), no loss, no backward."""
    points, _ = make_moons(n_points)
    model = _seeded_model()
    samples: list[float] = []
    first: list[float] = []
    for _ in range(steps):
        t0 = perf_counter()
        scores = _scores(model, points)
        samples.append(perf_counter() - t0)
        if not first:
            first = [float(s.data) for s in scores]
        del scores  # drop the graph, as a user's loop would
    return {"samples": samples, "scores": first}


def chain_backward(n_nodes: int) -> dict[str, Any]:
    """Backward through y = x + x + ... + x, a chain ``n_nodes`` additions deep.

    d(y)/d(x) is exactly n_nodes + 1.  An engine whose backward recurses
    (micrograd 0.1.0) raises RecursionError: reported as a status, not a crash.
    """
    from micrograd.engine import Value

    x = Value(1.0)
    t0 = perf_counter()
    y = x
    for _ in range(n_nodes):
        y = y + x
    build = perf_counter() - t0
    t0 = perf_counter()
    try:
        y.backward()
    except RecursionError as exc:
        return {"samples": [], "status": "RecursionError", "detail": str(exc), "build_s": build}
    elapsed = perf_counter() - t0
    expected = n_nodes + 1
    if x.grad != expected:
        return {"samples": [], "status": f"wrong gradient {x.grad!r}, expected {expected}", "build_s": build}
    return {"samples": [elapsed], "build_s": build}


def _graph_nodes(root: Any) -> set[int]:
    """Identities of every node reachable from ``root`` (iterative: graphs are deep)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(node._prev)
    return seen


def graph_memory(n_points: int) -> dict[str, Any]:
    """Bytes per graph node of the demo's loss graph, by tracemalloc.

    The model is built before tracing starts; the nodes counted are those the
    forward pass made (every node reachable from the loss except the
    parameters), and the bytes are what the forward pass left allocated while
    the graph is alive.  The peak during backward is reported alongside.
    """
    points, labels = make_moons(n_points)
    model = _seeded_model()
    n_params = len(model.parameters())
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        loss = _svm_loss(model, points, labels)
        retained = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.reset_peak()
        model.zero_grad()
        loss.backward()
        backward_peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    nodes = len(_graph_nodes(loss)) - n_params
    return {
        "samples": [retained / nodes],
        "retained_bytes": retained,
        "nodes": nodes,
        "backward_peak_bytes": backward_peak,
    }


IMPORT_CODE = (
    "import sys, time\n"
    "start = time.perf_counter()\n"
    "import micrograd\n"
    "took = time.perf_counter() - start\n"
    "print(took, sum(m.split('.')[0] == 'micrograd' for m in sys.modules), len(sys.modules))"
)


def import_micrograd(repeats: int) -> dict[str, Any]:
    """``import micrograd`` in a fresh interpreter, ``repeats`` times (the engine PYTHONPATH names):
    the seconds each took, and how many modules it loaded, micrograd's own and in all."""
    import os
    import subprocess
    import sys
    import tempfile

    samples, modules, loaded = [], 0, 0
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_CODE],
            capture_output=True,
            text=True,
            check=True,
            cwd=tempfile.gettempdir(),  # (not a folder holding a micrograd of its own)
            env=os.environ,
        ).stdout.split()
        samples.append(float(out[0]))
        modules, loaded = int(out[1]), int(out[2])
    return {"samples": samples, "modules": modules, "all_modules": loaded}
