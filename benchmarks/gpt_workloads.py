"""The microgpt workloads: microgpt's training on first names, on microgpt's own ``Value`` and on ours.

``microgpt_script`` is microgpt's training script, written here once and run on either
engine's ``Value`` (microgpt's from ``strands-microgpt``, or ``micrograd.Value``), the
model, data order and Adam identical: the script of a student who swapped in our
``Value``.  ``gpt_eager`` and ``gpt_compiled`` train the same model as ``nn.GPT``
(eagerly, or with ``compile_loss()``, traced at two lengths).  All take the names of
``nn.datasets.load_names()`` in the order ``random.Random(42)`` shuffles them, one per step.
Run by ``worker.py`` in a process of its own, as every workload.
"""

from __future__ import annotations

import math
import random
from time import perf_counter
from typing import Any

NO_GPT = "this engine has no nn.GPT or nn.datasets.load_names"  # (an older commit, with --baseline)
NO_MICROGPT = "microgpt's engine unavailable"  # strands-microgpt could not be fetched: "detail" says why
SEED = 42
N_LAYER, N_EMBD, BLOCK_SIZE, N_HEAD = 1, 16, 16, 4
LR, BETA1, BETA2, EPS = 0.01, 0.85, 0.99, 1e-8


def shuffled_names(names: list[str] | None = None) -> tuple[list[str], list[str]]:
    """The shuffled names (a copy of ``names``, else ``nn.datasets.load_names()``) and the
    vocabulary's characters."""
    if names is None:
        from nn import datasets

        names = datasets.load_names()
    names = list(names)
    random.Random(SEED).shuffle(names)
    return names, sorted(set("".join(names)))


def microgpt_on_microgpt(steps: int, compiled_steps: int) -> dict[str, Any]:
    """microgpt's script on microgpt's own Value (strands-microgpt's engine.py)."""
    return microgpt_script(steps, compiled_steps, "microgpt")


def microgpt_on_ours(steps: int, compiled_steps: int) -> dict[str, Any]:
    """microgpt's script on ``micrograd.Value``, unchanged but for the class."""
    return microgpt_script(steps, compiled_steps, "ours")


def microgpt_value_class(engine: str) -> Any:
    """The ``Value`` class of ``engine``: "microgpt" (strands-microgpt's ``engine.py``, fetched from
    PyPI; ``MicrogptUnavailableError`` says why it cannot be) or "ours" (``micrograd.Value``)."""
    if engine == "microgpt":
        from benchmarks.install_microgpt import load

        return load().Value
    import micrograd

    return micrograd.Value


class MicrogptScript:
    """microgpt's model, written as its script writes it, on ``value_class``'s Values: the weights
    drawn N(0, 0.08) from ``random.Random(42)`` in microgpt's order, and its training step (the
    mean of the positions' cross-entropies, ``backward``, then microgpt's Adam written out)."""

    def __init__(self, value_class: Any, vocab: int) -> None:
        rng = random.Random(SEED)

        def matrix(rows: int, cols: int) -> list[list[Any]]:
            return [[value_class(rng.gauss(0, 0.08)) for _ in range(cols)] for _ in range(rows)]

        self.state = {
            "wte": matrix(vocab, N_EMBD),
            "wpe": matrix(BLOCK_SIZE, N_EMBD),
            "lm_head": matrix(vocab, N_EMBD),
        }
        for i in range(N_LAYER):
            for key, (rows, cols) in {
                "attn_wq": (N_EMBD, N_EMBD),
                "attn_wk": (N_EMBD, N_EMBD),
                "attn_wv": (N_EMBD, N_EMBD),
                "attn_wo": (N_EMBD, N_EMBD),
                "mlp_fc1": (4 * N_EMBD, N_EMBD),
                "mlp_fc2": (N_EMBD, 4 * N_EMBD),
            }.items():
                self.state[f"layer{i}.{key}"] = matrix(rows, cols)
        self.params = [p for m in self.state.values() for row in m for p in row]
        self.m, self.v = [0.0] * len(self.params), [0.0] * len(self.params)
        self.steps = 0

    @staticmethod
    def linear(x: list[Any], w: list[list[Any]]) -> list[Any]:
        return [sum(wi * xi for wi, xi in zip(row, x)) for row in w]

    @staticmethod
    def softmax(logits: list[Any]) -> list[Any]:
        top = max(v.data for v in logits)
        exps = [(v - top).exp() for v in logits]
        total = sum(exps)
        return [e / total for e in exps]

    @staticmethod
    def rmsnorm(x: list[Any]) -> list[Any]:
        scale = (sum(xi * xi for xi in x) / len(x) + 1e-5) ** -0.5
        return [xi * scale for xi in x]

    def gpt(self, token: int, pos: int, keys: list[list[Any]], values: list[list[Any]]) -> list[Any]:
        state, linear, rmsnorm = self.state, self.linear, self.rmsnorm
        x = rmsnorm([t + p for t, p in zip(state["wte"][token], state["wpe"][pos])])
        head_dim = N_EMBD // N_HEAD
        for li in range(N_LAYER):
            residual = x
            x = rmsnorm(x)
            q, k, v = (linear(x, state[f"layer{li}.attn_w{n}"]) for n in "qkv")
            keys[li].append(k)
            values[li].append(v)
            joined: list[Any] = []
            for h in range(0, N_EMBD, head_dim):
                scores = [
                    sum(q[h + j] * kt[h + j] for j in range(head_dim)) / head_dim**0.5 for kt in keys[li]
                ]
                weights = self.softmax(scores)
                joined += [sum(w * vt[h + j] for w, vt in zip(weights, values[li])) for j in range(head_dim)]
            x = [a + b for a, b in zip(linear(joined, state[f"layer{li}.attn_wo"]), residual)]
            residual = x
            hidden = [h.relu() for h in linear(rmsnorm(x), state[f"layer{li}.mlp_fc1"])]
            x = [a + b for a, b in zip(linear(hidden, state[f"layer{li}.mlp_fc2"]), residual)]
        return linear(x, state["lm_head"])

    def step(self, tokens: list[int], lr: float) -> float:
        """One training step on the document ``tokens`` (``BOS, ids..., BOS``); its loss."""
        n = min(BLOCK_SIZE, len(tokens) - 1)
        keys: list[list[Any]] = [[] for _ in range(N_LAYER)]
        vals: list[list[Any]] = [[] for _ in range(N_LAYER)]
        losses = [-self.softmax(self.gpt(tokens[p], p, keys, vals))[tokens[p + 1]].log() for p in range(n)]
        loss = (1 / n) * sum(losses)
        loss.backward()
        self.steps += 1
        t, m, v = self.steps, self.m, self.v
        for i, p in enumerate(self.params):
            m[i] = BETA1 * m[i] + (1 - BETA1) * p.grad
            v[i] = BETA2 * v[i] + (1 - BETA2) * p.grad**2
            p.data -= lr * (m[i] / (1 - BETA1**t)) / ((v[i] / (1 - BETA2**t)) ** 0.5 + EPS)
            p.grad = 0
        return float(loss.data)


def microgpt_script(steps: int, total: int, engine: str) -> dict[str, Any]:
    """The first ``steps`` steps of microgpt's ``total``-step training (its learning rate decays
    over ``total``), on ``engine``'s Value ("microgpt" or "ours")."""
    from benchmarks.install_microgpt import MicrogptUnavailableError

    try:
        value_class = microgpt_value_class(engine)
    except MicrogptUnavailableError as exc:
        return {"samples": [], "status": NO_MICROGPT, "detail": str(exc)}
    try:
        names, chars = shuffled_names()
    except (ImportError, AttributeError):
        return {"samples": [], "status": NO_GPT}
    bos = len(chars)
    script = MicrogptScript(value_class, len(chars) + 1)
    samples: list[float] = []
    losses: list[float] = []
    for step in range(steps):
        t0 = perf_counter()
        tokens = [bos, *[chars.index(c) for c in names[step % len(names)]], bos]
        losses.append(script.step(tokens, LR * (1 - step / total)))
        samples.append(perf_counter() - t0)
    return {"samples": samples, "loss": losses}


def _gpt() -> tuple[Any, Any, list[str]]:
    from nn import GPT, CharTokenizer  # (ImportError on an engine without it: the callers say so)

    names, _ = shuffled_names()
    tok = CharTokenizer.from_docs(names)
    model = GPT(tok.vocab_size, BLOCK_SIZE, N_LAYER, N_EMBD, N_HEAD, seed=SEED)
    return model, tok, names


def gpt_eager(steps: int, compiled_steps: int) -> dict[str, Any]:
    """The first ``steps`` steps of the ``compiled_steps``-step training of ``nn.GPT``, eagerly, with
    ``nn.optim.Adam`` on microgpt's settings; each step timed."""
    from nn.optim import Adam

    try:
        model, tok, names = _gpt()
    except (ImportError, AttributeError):
        return {"samples": [], "status": NO_GPT}
    opt = Adam(model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS)
    samples, losses = [], []
    for step in range(steps):
        t0 = perf_counter()
        opt.zero_grad()
        loss = model.loss(tok.document(names[step % len(names)]))
        loss.backward()
        opt.lr = LR * (1 - step / compiled_steps)
        opt.step()
        samples.append(perf_counter() - t0)
        losses.append(loss.data)
    return {"samples": samples, "loss": losses}


def gpt_compiled(steps: int, compiled_steps: int) -> dict[str, Any]:
    """``nn.GPT`` with ``compile_loss()``: the whole ``compiled_steps``-step training (microgpt's
    1,000), the traces (at two lengths: ``nn.gpt.bucket_lengths``) included; the sample is the mean
    time per step over the run, so the traces are amortised as in a real training run.  numpy is
    imported before the timer, as the floors and microgpt's engine are."""
    from nn.optim import Adam

    shown, steps = steps, compiled_steps
    try:
        model, tok, names = _gpt()
    except (ImportError, AttributeError):
        return {"samples": [], "status": NO_GPT}
    opt = Adam(model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS)
    replay = model.compile_loss()
    import numpy  # noqa: F401 - loaded before the timer, as every row's imports (compile loads it on first use)

    losses = []
    t0 = perf_counter()
    for step in range(steps):
        opt.zero_grad()
        losses.append(replay.backward(tok.document(names[step % len(names)])))
        opt.lr = LR * (1 - step / steps)
        opt.step()
    total = perf_counter() - t0
    if not all(math.isfinite(x) for x in losses):
        return {"samples": [], "status": "a loss was not finite"}
    # the losses of the steps the other rows run (the same learning rates), and the last one
    traces = len(replay.traces)
    return {"samples": [total / steps], "loss": losses[:shown], "final_loss": losses[-1], "traces": traces}


NO_BATCHED = "this engine's nn.GPT has no compile_loss(batched=True)"
BATCH = 16


def gpt_compiled_batched(steps: int, compiled_steps: int) -> dict[str, Any]:
    """``nn.GPT`` with ``compile_loss(batched=True)``: ``compiled_steps`` steps of 16 names each
    (names ``16 k`` to ``16 k + 15`` in the shuffled order, their gradients added into ``.grad`` as the
    eager loop adds them), Adam as the other rows; the traces (one per longest name length) included; the
    sample is the mean time per NAME over the run, ``run_s`` the whole run."""
    import inspect

    from nn.optim import Adam

    try:
        model, tok, names = _gpt()
    except (ImportError, AttributeError):
        return {"samples": [], "status": NO_GPT}
    if "batched" not in inspect.signature(model.compile_loss).parameters:
        return {"samples": [], "status": NO_BATCHED}
    opt = Adam(model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS)
    replay = model.compile_loss(batched=True)
    import numpy  # noqa: F401 - loaded before the timer, as every row's imports (compile loads it on first use)

    losses = []
    t0 = perf_counter()
    for step in range(compiled_steps):
        opt.zero_grad()
        docs = [tok.document(names[(step * BATCH + j) % len(names)]) for j in range(BATCH)]
        losses.append(sum(replay.backward(docs)) / BATCH)
        opt.lr = LR * (1 - step / compiled_steps)
        opt.step()
    total = perf_counter() - t0
    if not all(math.isfinite(x) for x in losses):
        return {"samples": [], "status": "a loss was not finite"}
    return {
        "samples": [total / (compiled_steps * BATCH)],
        "batch_loss": losses[:steps],
        "final_loss": losses[-1],
        "traces": len(replay.traces),
        "run_s": total,
    }


NO_EXPLORE = "this engine's explore has no built-in layout"


NO_BOXES = "this engine's explore draws no boxes (scopes=)"


def _explore_page(loss: Any, **options: Any) -> dict[str, Any]:
    """The explorer's page of ``loss`` written to a temporary file: the seconds it took (the graph
    walk, the layout, the page), its size and the Values in it."""
    import inspect
    import tempfile
    from pathlib import Path

    from micrograd import explore, topological_order

    if "layout" not in inspect.signature(explore).parameters:
        return {"samples": [], "status": NO_EXPLORE}
    with tempfile.TemporaryDirectory() as folder:
        t0 = perf_counter()
        path = explore(loss, Path(folder) / "page.html", **options)
        seconds = perf_counter() - t0
        size = path.stat().st_size
    return {"samples": [seconds], "page_bytes": size, "values": len(topological_order(loss))}


def explore_mlp_batch(n_points: int) -> dict[str, Any]:
    """The explorer's page of the moons demo's loss over ``n_points`` samples (8: about 3,600 Values)."""
    import micrograd
    from nn import MLP

    model = MLP(2, [16, 16, 1], seed=1)
    points = [[0.1 * k, 1.0 - 0.2 * k] for k in range(n_points)]
    loss = micrograd.sum((1 + -1.0 * model(x)).relu() for x in points) * (1 / n_points)
    return _explore_page(loss)


def explore_gpt_step(n_points: int) -> dict[str, Any]:
    """The explorer's page of an ``nn.GPT`` training step's loss on one name (about 7,200 Values)."""
    try:
        model, tok, _ = _gpt()
    except (ImportError, AttributeError):
        return {"samples": [], "status": NO_GPT}
    return _explore_page(model.loss(tok.document("emma")))


def explore_gpt_boxes(n_points: int) -> dict[str, Any]:
    """The same page in boxes: the step recorded with ``micrograd.scopes.record_scopes()`` (a box per
    position, module call and attention head), explored with ``scopes=``."""
    import inspect

    from micrograd import explore

    if "scopes" not in inspect.signature(explore).parameters:
        return {"samples": [], "status": NO_BOXES}
    from micrograd.scopes import record_scopes

    try:
        model, tok, _ = _gpt()
    except (ImportError, AttributeError):
        return {"samples": [], "status": NO_GPT}
    with record_scopes() as scopes:
        loss = model.loss(tok.document("emma"))
    return _explore_page(loss, scopes=scopes)
