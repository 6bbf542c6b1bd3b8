"""What the lab's learner worker runs (the playground's "Build micrograd" tab, in Pyodide): the
learner's code, and nothing that decides anything.  Its own Pyodide, in its own Web Worker; the
page stops it (terminates the worker) when a call runs past the time limit or on Stop.

* ``load(code)``: the learner's file executed as a module; its class ``Value``;
* ``begin(only)`` then ``next_text()`` until None: ``check_engine``'s answers for those parts,
  one JSON text each (``micrograd.exercises.engine.recorded.record``), sent raw to the grader
  worker, which decides every line;
* ``graph(spec)``: the learner's own graph of one of ``check_engine``'s expressions, after their
  ``backward()``, as data (each node's label, op, data, grad and operands);
* ``gpt_start(steps, engine)``, ``gpt_steps(k)`` and ``gpt_samples(n)``: microgpt
  (``micrograd.exercises.engine.models``) trained with Adam on the names, on the learner's
  Value or the built-in one.

>>> load("class Value:\\n    def __init__(self, data):\\n        self.data, self.grad = data, 0.0\\n")
{'ok': True, 'error': None, 'output': ''}
>>> begin(["+"]); import json; json.loads(next_text())["class"]["has"]
[]
"""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import math
import random
import time
import traceback
from collections.abc import Iterator
from typing import Any

from micrograd.exercises import formulas
from micrograd.exercises.engine import cases, models
from micrograd.exercises.engine.child import FUNCTIONS, number
from micrograd.exercises.engine.recorded import jobs_of, record

__all__ = ["begin", "gpt_samples", "gpt_start", "gpt_steps", "graph", "load", "next_text"]

FILENAME = "/tmp/your_value.py"  # a real file: tracebacks and the grader's hints quote its lines
MOST_NODES = 200
STATE: dict[str, Any] = {"cls": None, "texts": iter(()), "gpt": None}


def load(code: str) -> dict[str, Any]:
    """Run the learner's file; ``ok`` when it defines a class ``Value``, else ``error`` says why."""
    STATE["cls"] = None
    with open(FILENAME, "w", encoding="utf-8") as f:
        f.write(code)
    linecache.checkcache(FILENAME)
    namespace: dict[str, Any] = {"__name__": "your_value", "__file__": FILENAME}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, FILENAME, "exec"), namespace)
    except BaseException as exc:
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != FILENAME:
            tb = tb.tb_next
        text = "".join(
            traceback.format_exception(type(exc), exc, None if isinstance(exc, SyntaxError) else tb)
        )
        return {"ok": False, "error": text, "output": out.getvalue()[-5000:]}
    cls = namespace.get("Value")
    if not isinstance(cls, type):
        return {
            "ok": False,
            "error": "your code defines no class named Value",
            "output": out.getvalue()[-5000:],
        }
    STATE["cls"] = cls
    return {"ok": True, "error": None, "output": out.getvalue()[-5000:]}


def begin(only: list[str] | None) -> None:
    """Start the answers for the parts ``only`` (None: all), the cases made before any call of
    the learner's code."""
    jobs = jobs_of(only)
    STATE["texts"] = record(STATE["cls"], jobs)


def next_text() -> str | None:
    """The next answer's JSON text, None when there is no more."""
    return next(STATE["texts"], None)


# ---- the learner's graph ---------------------------------------------------------------------


def graph(spec: list[Any]) -> dict[str, Any]:
    """The learner's graph of the expression ``spec``: ``nodes`` (name, op, data, grad, operands'
    indices), the output last; ``backward`` says what stopped their backward(), if anything."""
    cls, expr = STATE["cls"], cases.expression(spec)
    named: dict[str, Any] = {}
    try:
        for name, value in expr.leaves.items():
            named[name] = cls(value)
        for name, tree in expr.trees.items():
            named[name] = formulas.evaluate(tree, dict(named), FUNCTIONS)
    except BaseException as exc:
        return {"title": expr.title, "error": f"building it raised {type(exc).__name__}: {exc}"[:500]}
    root = named[expr.names[-1]]
    stopped = None
    try:
        root.backward()
    except BaseException as exc:
        stopped = f"{type(exc).__name__}: {exc}"[:500]
    return {"title": expr.title, "at": expr.at, "nodes": walk(root, named), "backward": stopped}


def walk(root: Any, named: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes reachable from ``root`` through ``_prev`` (or only the named ones), operands first."""
    names = {id(v): k for k, v in named.items()}
    order: list[Any] = []
    index: dict[int, int] = {}

    def operands(v: Any) -> list[Any]:
        prev = getattr(v, "_prev", ())
        try:
            return (
                sorted(prev, key=lambda c: names.get(id(c), "~"))
                if isinstance(prev, (set, frozenset))
                else list(prev)
            )
        except TypeError:
            return []

    stack = [(root, False)]
    while stack and len(order) < MOST_NODES:
        v, done = stack.pop()
        if id(v) in index:
            continue
        if done:
            index[id(v)] = len(order)
            order.append(v)
            continue
        stack.append((v, True))
        stack += [(c, False) for c in reversed(operands(v)) if id(c) not in index]
    return [
        {
            "name": names.get(id(v), str(getattr(v, "label", "") or ""))[:60],
            "op": str(getattr(v, "_op", "") or "")[:20],
            "data": finite(number(getattr(v, "data", None))),
            "grad": finite(number(getattr(v, "grad", None))),
            "operands": [index[id(c)] for c in operands(v) if id(c) in index],
        }
        for v in order
    ]


def finite(x: float | str) -> float | str:
    """A number as JSON can carry it to the page: nan and infinities as their names."""
    return x if isinstance(x, str) or math.isfinite(x) else repr(x)


# ---- microgpt on the learner's Value ---------------------------------------------------------


def read_names(path: str) -> list[str]:
    with open(path, encoding="ascii") as f:
        return [line.strip() for line in f if line.strip()]


def gpt_start(steps: int, engine: str, names_file: str = "/home/pyodide/names.txt") -> None:
    """A microgpt run of ``steps`` steps on ``engine`` ("yours" or "built-in"), microgpt's weights
    (seed 42) and the names in one fixed shuffled order: both engines see the same."""
    from micrograd import Value

    cls = STATE["cls"] if engine == "yours" else Value
    names = read_names(names_file)
    random.Random(0).shuffle(names)
    weights = models.gpt_weights(cls)
    params = [p for rows in weights.values() for row in rows for p in row]
    STATE["gpt"] = {
        "cls": cls,
        "weights": weights,
        "params": params,
        "names": names,
        "n": 0,
        "steps": steps,
        "m": [0.0] * len(params),
        "v": [0.0] * len(params),
        "seconds": 0.0,
    }


def gpt_steps(k: int) -> list[float]:
    """``k`` more training steps (Adam, lr 0.01 decaying to 0, betas 0.85 and 0.99): their losses."""
    run, losses = STATE["gpt"], []
    t0 = time.perf_counter()
    for _ in range(k):
        n = run["n"]
        if n >= run["steps"]:
            break
        name = run["names"][n % len(run["names"])][: models.BLOCK_SIZE - 1]
        loss = models.gpt_loss(run["weights"], models.gpt_tokens(name))
        loss.backward()
        lr = 0.01 * (1 - n / run["steps"])
        for i, p in enumerate(run["params"]):
            g = p.grad
            run["m"][i] = 0.85 * run["m"][i] + 0.15 * g
            run["v"][i] = 0.99 * run["v"][i] + 0.01 * g * g
            m_hat, v_hat = run["m"][i] / (1 - 0.85 ** (n + 1)), run["v"][i] / (1 - 0.99 ** (n + 1))
            p.data -= lr * m_hat / (v_hat**0.5 + 1e-8)
            p.grad = 0.0
        if not math.isfinite(loss.data):
            raise ValueError(f"microgpt's loss is {loss.data} at step {n + 1}: training stopped")
        losses.append(float(loss.data))
        run["n"] = n + 1
    run["seconds"] += time.perf_counter() - t0
    return losses


def gpt_rate() -> float:
    """Steps per second so far."""
    run = STATE["gpt"]
    return run["n"] / run["seconds"] if run["seconds"] > 0 else 0.0


def gpt_samples(count: int, temperature: float = 0.5, seed: int = 1) -> list[str]:
    """``count`` names drawn from the model (its forward on the same Value class)."""
    run, rng, out = STATE["gpt"], random.Random(seed), []
    w = run["weights"]
    for _ in range(count):
        keys: list[Any] = []
        values: list[Any] = []
        token, name = models.BOS, ""
        for pos in range(models.BLOCK_SIZE - 1):
            x = models.rmsnorm([t + p for t, p in zip(w["wte"][token], w["wpe"][pos])])
            xn = models.rmsnorm(x)
            keys.append(models.linear(xn, w["layer0.attn_wk"]))
            values.append(models.linear(xn, w["layer0.attn_wv"]))
            q = models.linear(xn, w["layer0.attn_wq"])
            x = [
                a + b
                for a, b in zip(models.linear(models.attention(q, keys, values), w["layer0.attn_wo"]), x)
            ]
            hidden = [h.relu() for h in models.linear(models.rmsnorm(x), w["layer0.mlp_fc1"])]
            x = [a + b for a, b in zip(models.linear(hidden, w["layer0.mlp_fc2"]), x)]
            logits = [float(v.data) / temperature for v in models.linear(x, w["lm_head"])]
            top = max(logits)
            weights = [math.exp(v - top) for v in logits]
            token = rng.choices(range(len(weights)), weights=weights)[0]
            if token == models.BOS:
                break
            name += models.VOCAB[token]
        out.append(name)
    return out


def as_json(x: Any) -> str:
    return json.dumps(x)


def texts(only: list[str] | None) -> Iterator[str]:
    """Every answer's text at once (for tests in CPython)."""
    begin(only)
    while (text := next_text()) is not None:
        yield text
