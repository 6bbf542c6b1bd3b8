"""What the docs site's playground's training worker runs (Pyodide, in a Web Worker).

Not part of the packages: the playground's build copies this file beside the page, and
trainer.mjs imports it in its own Pyodide.  It holds one ``live_training.LiveTraining`` and answers
the page's messages, every answer JSON: ``start`` (the set-up of a share link, or the default),
``train_for`` (steps for a slice of time), ``snapshot`` (what the page draws: the points, every
neuron's output on a grid, the loss curves), ``change`` (a control), ``explore`` (the explorer's
page of one training step of this very model).

>>> import json
>>> start()
''
>>> train_for(60.0, 3)
3
>>> s = json.loads(snapshot())
>>> s["steps"], len(s["neurons"]), [len(layer) for layer in s["neurons"]]
(3, 4, [2, 8, 8, 1])
>>> json.loads(change('{"activation": "tanh"}'))["restarted"]
'model'
>>> start('{"hidden": [99]}')
"a hidden layer's size must be a whole number from 1 to 8, got 99"
"""

from __future__ import annotations

import json
import math
import time

from live_training import BOUNDS, LiveTraining, grid_cells

__all__ = [
    "GRID",
    "add",
    "change",
    "explore",
    "load",
    "new_data",
    "remove",
    "reset",
    "snapshot",
    "start",
    "train_for",
]

#: Every neuron's picture is its output at the centres of a GRID x GRID grid over BOUNDS.
GRID = 20
CELLS = grid_cells(GRID, BOUNDS)

live = LiveTraining()
_sent = (0, 0)  # the model (its generation) and the length of its loss curves the page has


def start(state: str | None = None) -> str:
    """Train what ``state`` (a share link's JSON) describes, else the default; returns why the
    state was refused ("" when it was not)."""
    global live
    if state is None:
        live = LiveTraining()
        return ""
    try:
        live = LiveTraining.from_state(json.loads(state))
    except (ValueError, TypeError) as exc:
        live = LiveTraining()
        return str(exc)
    return ""


def load(state: str) -> str:
    """A share link opened on the page: its training, or (refused) the training goes on as it was."""
    global live
    try:
        live = LiveTraining.from_state(json.loads(state))
    except (ValueError, TypeError) as exc:
        return str(exc)
    return ""


def train_for(seconds: float, limit: int) -> int:
    """Train up to ``limit`` steps, stopping after ``seconds``; returns how many were made (none
    when the training set lacks a class, or the loss is no longer a number)."""
    started, made = time.perf_counter(), 0
    while made < limit:
        if math.isnan(live.step()):
            break
        made += 1
        if time.perf_counter() - started >= seconds:
            break
    return made


def _rounded(xs: list[float]) -> list[float | None]:
    # three decimals are more than a 20 x 20 picture shows; JSON has no nan (null: not a number)
    return [round(x, 3) if math.isfinite(x) else None for x in xs]


def snapshot() -> str:
    """What the page draws, as JSON; of the loss curves only what was not sent before (the page
    keeps the rest; a new ``generation``, a new model, starts them afresh).  A point is added to
    the curves whenever the model has changed since the last one."""
    global _sent
    if not live.curve or live.curve[-1][0] != live.steps:
        live.record()
    since = _sent[1] if _sent[0] == live.generation else 0
    _sent = (live.generation, len(live.curve))
    neurons = [[_rounded(n) for n in layer] for layer in live.outputs(CELLS)]
    train, test = live.curve[-1][1:]
    return json.dumps(
        {
            "state": live.state(),
            "steps": live.steps,
            "generation": live.generation,
            "curve": [[s, _finite(a), _finite(b)] for s, a, b in live.curve[since:]],
            "neurons": neurons,
            # each neuron's weights, [layer][neuron][input]: the lines between the pictures
            "weights": [
                [_rounded([w.data for w in n.w]) for n in layer.neurons] for layer in live.model.layers
            ],
            "n": GRID,
            "bounds": BOUNDS,
            "loss": [_finite(train), _finite(test)],
            "accuracy": [_finite(live.accuracy(False)), _finite(live.accuracy(True))],
        }
    )


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def change(changes: str) -> str:
    """Apply the controls' changes (JSON): ``{"restarted": "data" | "model" | "none"}``, or
    ``{"error": why}`` (the training as it was)."""
    try:
        return json.dumps({"restarted": live.update(**json.loads(changes))})
    except (ValueError, TypeError) as exc:
        return json.dumps({"error": str(exc)})


def add(x: float, y: float, label: int) -> None:
    live.add(x, y, label)


def remove(x: float, y: float) -> None:
    live.remove_nearest(x, y)


def explore() -> str:
    """One training step of the model being trained, explored: ``{"html", "title", "size"}`` or
    ``{"error": why}``."""
    try:
        html, title, size = live.explore_step()
    except ValueError as exc:
        return json.dumps({"error": str(exc)})
    return json.dumps({"html": html, "title": title, "size": size})


def reset() -> None:
    """A new model, the same points."""
    live.reset_model()


def new_data() -> None:
    """The data set drawn again with the next seed (and so a new model)."""
    live.update(seed=(live.settings.seed + 1) % 2**31)
