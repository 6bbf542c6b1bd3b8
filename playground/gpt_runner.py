"""What the playground's GPT tab runs in its Web Worker (Pyodide): karpathy's microgpt, as ``nn.GPT``,
learning first names one name a step, sampled, its attention shown and one step explored.

Not part of the packages: the playground's build copies this file beside the page with
``names.txt`` (the US census first names of ``nn.datasets.load_names``, written at build time,
one a line), and the tab's worker imports it in Pyodide.  It runs in any Python too:

>>> s = GPTSession(["emma", "olivia", "ava", "isabella", "sophia"], seed=1)
>>> first = s.step()
>>> s.steps, s.names_count(), s.tok.vocab_size
(1, 5, 27)
>>> s.add("Zoe")["message"]
"added 'zoe': the 6th name of the training set, trained at the next step"
>>> s.add("<b>x</b>")["message"]
"'<b>x</b>' cannot be a name: use only the letters a to z (found '<', '>', '/')"
>>> a = s.attention("ava")
>>> a["labels"], len(a["heads"]), len(a["heads"][0]), a["heads"][0][1][0] + a["heads"][0][1][1]
(['BOS', 'a', 'v', 'a'], 4, 4, 1.0)
"""

from __future__ import annotations

import importlib
import math
import random
import string
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from micrograd import explore
from micrograd.scopes import record_scopes
from micrograd.viz import GraphTooLargeError
from nn import GPT, CharTokenizer
from nn.optim import Adam

__all__ = ["ALPHABET", "BLOCK_SIZE", "GPTSession", "check_name", "read_names", "time_ladder"]

#: The tokenizer's characters, fixed (not read off the data) so a typed name is judged by one rule.
ALPHABET = string.ascii_lowercase
#: microgpt's context: a document is BOS, the name, BOS, so a name has at most BLOCK_SIZE - 1 letters.
BLOCK_SIZE = 16
MAX_LETTERS = BLOCK_SIZE - 1
#: microgpt's Adam, with a constant rate: the tab trains for as long as it is left open, and a
#: rate decaying to 0 over a fixed number of steps would stop it learning.
LR = 0.01
#: A typed text longer than this is not echoed back whole in a message (it is someone's paste).
ECHO = 40


def _echo(text: str) -> str:
    return repr(text if len(text) <= ECHO else text[:ECHO] + "…")


def check_name(text: object) -> str:
    """``text`` as a name the model can take (stripped, lowercased), or ValueError saying why not."""
    if not isinstance(text, str):
        raise ValueError(f"a name is text, got {type(text).__name__}")
    name = text.strip().lower()
    if not name:
        raise ValueError("type a name first: at least one letter from a to z")
    bad = [c for c in dict.fromkeys(name) if c not in ALPHABET]
    if bad:
        shown = ", ".join(repr(c) for c in bad[:8])
        raise ValueError(f"{_echo(text)} cannot be a name: use only the letters a to z (found {shown})")
    if len(name) > MAX_LETTERS:
        raise ValueError(
            f"{_echo(text)} has {len(name)} letters: the model's context is {BLOCK_SIZE} tokens, "
            f"so a name has at most {MAX_LETTERS}"
        )
    return name


def read_names(path: str | Path) -> list[str]:
    """The names of ``names.txt`` (one a line), each checked as a typed name is."""
    names = [check_name(line) for line in Path(path).read_text(encoding="ascii").splitlines() if line]
    if not names:
        raise ValueError(f"{path} holds no names")
    return names


def _ordinal(n: int) -> str:
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


class GPTSession:
    """microgpt's model and recipe (1 layer, 16 dimensions, 4 heads, Adam with betas 0.85 and
    0.99) on ``names``, shuffled with ``seed``; one name a step, in order, round and round.

    ``compiled``: each step replayed by ``model.compile_loss()`` (needs numpy), else the eager
    graph built and walked; the same model and losses either way (the eager graph picks each
    embedding row by its int id, so the two part in the last bits after a few steps)."""

    def __init__(self, names: list[str], seed: int = 42, compiled: bool = False) -> None:
        self.names = [check_name(n) for n in names]
        random.Random(seed).shuffle(self.names)
        self.tok = CharTokenizer(list(ALPHABET))
        self.model = GPT(self.tok.vocab_size, BLOCK_SIZE, n_layer=1, n_embd=16, n_head=4, seed=seed)
        self.optimizer = Adam(self.model.parameters(), lr=LR, betas=(0.85, 0.99), eps=1e-8)
        self.replay = self.model.compile_loss() if compiled else None
        self.mode = "compiled" if compiled else "eager"
        self.steps = 0
        self.losses: list[float] = []
        self.added: list[str] = []

    @classmethod
    def from_file(cls, path: str | Path, seed: int = 42, compiled: bool = False) -> GPTSession:
        return cls(read_names(path), seed=seed, compiled=compiled)

    def names_count(self) -> int:
        return len(self.names)

    def next_name(self) -> str:
        return self.names[self.steps % len(self.names)]

    def step(self) -> float:
        """One training step on the next name; returns its loss."""
        doc = self.tok.document(self.next_name())
        self.optimizer.zero_grad()
        if self.replay is not None:
            loss = float(self.replay.backward(doc))
        else:
            graph = self.model.loss(doc)
            graph.backward()
            loss = graph.data
        self.optimizer.step()
        self.steps += 1
        self.losses.append(loss)
        return loss

    def train(self, seconds: float, limit: int) -> list[float]:
        """Steps for about ``seconds`` (at least one, at most ``limit``); their losses.  A loss
        that is not finite stops the slice: the page shows it rather than train on nan."""
        start, new = time.perf_counter(), list[float]()
        while len(new) < limit:
            loss = self.step()
            new.append(loss)
            if not math.isfinite(loss) or time.perf_counter() - start >= seconds:
                break
        return new

    def samples(self, n: int, temperature: float) -> list[str]:
        """``n`` names sampled at ``temperature``, seeded by the step count: the same step and
        temperature give the same names, so a change of temperature alone is what changes them."""
        t = float(temperature)
        if not (math.isfinite(t) and 0.05 <= t <= 5.0):
            raise ValueError(f"the temperature must be a number from 0.05 to 5, got {temperature!r}")
        return [self.tok.decode(s) for s in self.model.generate(n, t, seed=self.steps)]

    def add(self, text: object) -> dict[str, Any]:
        """Put a typed name into the training set, as the next name trained; ``ok`` and ``message``."""
        try:
            name = check_name(text)
        except ValueError as exc:
            return {"ok": False, "message": str(exc), "name": None}
        if name in self.names:
            return {"ok": False, "message": f"{name!r} is already in the training set", "name": name}
        at = self.steps % len(self.names)
        self.names.insert(at, name)  # at the cursor: the very next step trains on it
        self.added.append(name)
        message = (
            f"added {name!r}: the {_ordinal(len(self.names))} name of the training set, "
            "trained at the next step"
        )
        return {"ok": True, "message": message, "name": name}

    def attention(self, text: object) -> dict[str, Any]:
        """The attention weights of each head over a typed name's positions (BOS, then its letters),
        from the model's forward: ``heads[h][t][s]``, position t's weight on position s <= t."""
        try:
            name = check_name(text)
        except ValueError as exc:
            return {"ok": False, "message": str(exc)}
        ids = self.tok.document(name)[:-1]  # the positions the model reads: BOS and the letters
        layers = self.model.attention(ids)
        heads = [[layers[0][t][h] for t in range(len(ids))] for h in range(self.model.n_head)]
        return {"ok": True, "message": "", "name": name, "labels": ["BOS", *name], "heads": heads}

    def explore_step(self) -> dict[str, Any]:
        """One training step (the next name) recorded in scopes and explored in boxes, the page
        made before the optimizer moves the weights so it shows the step's own numbers."""
        name = self.next_name()
        self.optimizer.zero_grad()
        with record_scopes() as recording:
            loss = self.model.loss(self.tok.document(name))
        loss.label = "loss"
        loss.backward()
        title = f"step {self.steps + 1}, the name {name!r}"
        try:
            page = explore(loss, scopes=recording, layout="builtin", title=f"microgpt: {title}")
        except GraphTooLargeError as exc:
            page, note = None, f"{title}: {exc}"
        self.optimizer.step()  # the step is a training step like the others
        self.steps += 1
        self.losses.append(loss.data)
        if page is None:
            return {"ok": False, "message": note, "loss": loss.data}
        return {"ok": True, "message": "", "html": page.html, "title": title, "loss": loss.data}


#: Why a rung of the speed ladder cannot run in the page (benchmarks/ladder.py's keys).
NOT_SHIPPED = (
    "microgpt's engine is another project's code, which this site does not ship: "
    "python -m benchmarks.ladder times it on your machine"
)
NEEDS_NUMPY = ("compiled", "batched", "floor_ordered", "floor_blas")


def time_ladder(
    rounds: int, names: list[str], numpy_why: str | None, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The speed ladder (``benchmarks.ladder``, shipped beside this file) timed in this process,
    ``rounds`` steps a rung, on ``names``; ``numpy_why``: why numpy is absent (None: it is here).
    The ladder's name, its rounds, the first rung present and the rows as text.

    >>> r = time_ladder(1, ["emma", "olivia", "ava"], "the site does not ship it")
    >>> r["first"], [row["time"] == "absent" for row in r["rows"]]
    ("micrograd.Value on microgpt's script", [True, False, False, True, True, True, True])
    >>> r["rows"][3]["why"]
    'needs numpy, absent here (the site does not ship it)'
    """
    # by name: the benchmarks are checked by their own tests, not with this page's runners' types
    ladder = importlib.import_module("benchmarks.ladder")
    absent = {"microgpt": NOT_SHIPPED}
    if numpy_why is not None:
        absent.update({key: f"needs numpy, absent here ({numpy_why})" for key in NEEDS_NUMPY})
    run = ladder.run(rounds, names=names, absent=absent, in_process=True, progress=progress)
    first = next((e["title"] for e in run["rungs"].values() if "absent" not in e), None)
    return {"name": run["name"], "rounds": rounds, "first": first, "rows": ladder.rows(run)}
