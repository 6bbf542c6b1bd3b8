"""The speed ladder: one microgpt training step, the same weights and the same name, on each rung.

From microgpt's own scalar engine to a compiled, batched replay, every rung trains microgpt's
model (1 layer, 16 wide, 4 heads; the weights N(0, 0.08) from ``random.Random(42)`` in
microgpt's order) on the first name of ``gpt_workloads.shuffled_names()``, with Adam.  The
first step's loss is kept, so the rungs can be checked against each other: equal bit for bit
where the arithmetic is the same, within the last bits where it is not.  Then each rung's step
is timed again and again, each rung in a process of its own, the rungs taking turns (round-robin),
so a busy machine slows them all alike; the table shows the median.

    python -m benchmarks.ladder                      # the table, on stdout
    python -m benchmarks.ladder --save benchmarks/results/ladder.json

The learner's own engine is a rung too, in the playground's "Build micrograd" tab, where the
learner's ``Value`` runs; here, outside the browser, there is no learner.  The playground's GPT tab
times the other rungs with ``run(..., in_process=True)``: a browser's Python has no processes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from time import perf_counter
from typing import Any

if __package__ in (None, ""):  # run as a file: the repository root is then not on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import gpt_floor, gpt_workloads, report
from benchmarks.gpt_workloads import BETA1, BETA2, BLOCK_SIZE, EPS, LR, N_EMBD, N_HEAD, N_LAYER, SEED

BATCH = 16
Step = Callable[[], float]  # one training step; the loss of the ladder's name


@dataclass(frozen=True)
class Rung:
    """One rung: its name, what made it faster than the rung below, and how to set it up."""

    key: str
    title: str
    why: str
    setup: Callable[[list[int], list[list[int]], int], Step]  # (the name's ids, 16 names', vocab)
    per_name: int = 1  # names a step trains on: the time shown is per name


def _script(engine: str) -> Callable[[list[int], list[list[int]], int], Step]:
    def setup(doc: list[int], batch: list[list[int]], vocab: int) -> Step:
        value_class = gpt_workloads.microgpt_value_class(engine)
        script = gpt_workloads.MicrogptScript(value_class, vocab)
        return lambda: script.step(doc, LR)

    return setup


def _model(vocab: int) -> Any:
    from nn import GPT

    return GPT(vocab, BLOCK_SIZE, N_LAYER, N_EMBD, N_HEAD, seed=SEED)


def _adam(model: Any) -> Any:
    from nn.optim import Adam

    return Adam(model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS)


def _eager(doc: list[int], batch: list[list[int]], vocab: int) -> Step:
    model = _model(vocab)
    opt = _adam(model)

    def step() -> float:
        opt.zero_grad()
        loss = model.loss(doc)
        loss.backward()
        opt.step()
        return float(loss.data)

    return step


def _compiled(doc: list[int], batch: list[list[int]], vocab: int) -> Step:
    model = _model(vocab)
    opt, replay = _adam(model), model.compile_loss()

    def step() -> float:
        opt.zero_grad()
        loss = replay.backward(doc)
        opt.step()
        return float(loss)

    return step


def _batched(doc: list[int], batch: list[list[int]], vocab: int) -> Step:
    model = _model(vocab)
    opt, replay = _adam(model), model.compile_loss(batched=True)

    def step() -> float:
        opt.zero_grad()
        losses = replay.backward(batch)
        opt.step()
        return float(losses[0])  # the ladder's name is the batch's first

    return step


def _floor(ordered: bool, names: int) -> Callable[[list[int], list[list[int]], int], Step]:
    def setup(doc: list[int], batch: list[list[int]], vocab: int) -> Step:
        import random

        w = gpt_floor.init_weights(vocab, BLOCK_SIZE, N_LAYER, N_EMBD, random.Random(SEED))
        opt = gpt_floor.Adam(w, LR, (BETA1, BETA2), EPS)
        docs = batch if names > 1 else [doc]

        def step() -> float:
            losses, grads = gpt_floor.loss_and_grads(w, docs, N_HEAD, ordered)
            opt.step(grads)
            return float(losses[0])

        return step

    return setup


RUNGS = (
    Rung(
        "microgpt",
        "microgpt's engine on microgpt's script",
        "The start: a 40-line scalar Value, a Python object and a tuple of its local derivatives for every "
        "+, * and exp.",
        _script("microgpt"),
    ),
    Rung(
        "script_ours",
        "micrograd.Value on microgpt's script",
        "The same script with this project's Value swapped in: only the cost of each node changes.",
        _script("ours"),
    ),
    Rung(
        "gpt_eager",
        "nn.GPT, eager",
        "The same model as nn.GPT: each weighted sum is one dot node instead of a chain of * and +.",
        _eager,
    ),
    Rung(
        "compiled",
        "nn.GPT, compile_loss()",
        "The graph is traced at two lengths, then replayed with numpy: no Python object per node.",
        _compiled,
    ),
    Rung(
        "batched",
        "nn.GPT, compile_loss(batched=True), 16 names",
        "16 names share one replay, so each numpy call does 16 names' work.",
        _batched,
        per_name=BATCH,
    ),
    Rung(
        "floor_ordered",
        "numpy by hand, sums in order, 16 names",
        "No graph at all: forward and backward written by hand over arrays, sums added in order.",
        _floor(ordered=True, names=BATCH),
        per_name=BATCH,
    ),
    Rung(
        "floor_blas",
        "numpy by hand with BLAS, 16 names",
        "The same with numpy's matrix products, which add in BLAS's order: the last bits differ.",
        _floor(ordered=False, names=BATCH),
        per_name=BATCH,
    ),
)


def _documents(names: list[str] | None = None) -> tuple[str, list[int], list[list[int]], int]:
    """The ladder's name, its ids (``BOS, ids..., BOS``), the 16 names of the batched rungs (the
    ladder's name first; all cut to the model's block size, as ``nn.GPT`` would refuse longer) and
    the vocabulary's size (the characters and BOS); from ``names`` (shuffled here) or, by default,
    ``nn.datasets.load_names()``."""
    shuffled, chars = gpt_workloads.shuffled_names(names)
    bos, ids = len(chars), {c: i for i, c in enumerate(chars)}

    def document(name: str) -> list[int]:
        return [bos, *(ids[c] for c in name), bos][: BLOCK_SIZE + 1]

    return shuffled[0], document(shuffled[0]), [document(n) for n in shuffled[:BATCH]], bos + 1


def _first_step(key: str, names: list[str] | None) -> tuple[dict[str, Any], Step | None]:
    """A rung set up and given its first step: its loss and time (a compiled rung's trace
    included) and the step to time again; or why it cannot run, and no step."""
    _, doc, batch, vocab = _documents(names)
    rung = next(r for r in RUNGS if r.key == key)
    try:
        step = rung.setup(doc, batch, vocab)
    except Exception as exc:  # a rung that cannot run (no microgpt, no numpy) is reported, never fatal
        return {"absent": f"{type(exc).__name__}: {exc}"}, None
    t0 = perf_counter()
    loss = step()
    return {"loss": loss, "first_step_s": perf_counter() - t0}, step


def _timed(step: Step) -> float:
    t0 = perf_counter()
    step()
    return perf_counter() - t0


def _serve(key: str, names: list[str] | None, conn: Connection) -> None:
    """A rung's own process: its first step sent, then one step timed each time the parent asks,
    until it sends ``False``."""
    first, step = _first_step(key, names)
    conn.send(first)
    while step is not None and conn.recv():
        conn.send(_timed(step))


class _Processes:
    """Each rung in a process of its own (so none pays for another's objects), all started at once."""

    def __init__(self, keys: list[str], names: list[str] | None) -> None:
        context = multiprocessing.get_context("spawn")
        self.workers: dict[str, tuple[Any, Connection]] = {}
        try:
            for key in keys:
                ours, theirs = context.Pipe()
                process = context.Process(target=_serve, args=(key, names, theirs), daemon=True)
                process.start()
                self.workers[key] = (process, ours)
        except BaseException:
            self.close()
            raise

    def first(self, key: str) -> dict[str, Any]:
        answer: dict[str, Any] = self.workers[key][1].recv()
        return answer

    def time(self, key: str) -> float:
        conn = self.workers[key][1]
        conn.send(True)
        seconds: float = conn.recv()
        return seconds

    def close(self) -> None:
        for process, conn in self.workers.values():
            if process.is_alive():
                with contextlib.suppress(OSError):  # one that has already ended
                    conn.send(False)
            process.join(timeout=10)
            if process.is_alive():
                process.kill()


class _Local:
    """Every rung in this process, one after another: where there are no processes (Pyodide)."""

    def __init__(self, keys: list[str], names: list[str] | None) -> None:
        self.names, self.steps = names, dict[str, Step]()

    def first(self, key: str) -> dict[str, Any]:
        first, step = _first_step(key, self.names)
        if step is not None:
            self.steps[key] = step
        return first

    def time(self, key: str) -> float:
        return _timed(self.steps[key])

    def close(self) -> None:
        self.steps.clear()


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:  # no load average here (Pyodide, Windows)
        return None


def run(
    rounds: int,
    only: set[str] | None = None,
    *,
    names: list[str] | None = None,
    absent: dict[str, str] | None = None,
    in_process: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Each rung set up and given its first step; then ``rounds`` timed steps, the rungs taking
    turns, one at a time.  Each rung runs in a process of its own, or, with ``in_process``, all
    in this one.  ``names``: the names to shuffle (else ``nn.datasets.load_names()``); ``absent``:
    rungs the caller knows cannot run, each with the reason shown; ``progress``: told each stage.

    >>> names = ["emma", "olivia", "ava", "isabella", "sophia"]
    >>> r = run(1, {"gpt_eager"}, names=names, absent={"microgpt": "not shipped"}, in_process=True)
    >>> r["name"], list(r["rungs"]), r["rungs"]["microgpt"]["absent"], len(r["rungs"]["gpt_eager"]["samples"])
    ('isabella', ['microgpt', 'gpt_eager'], 'not shipped', 1)
    """
    absent = absent or {}
    rungs = [r for r in RUNGS if only is None or r.key in only or r.key in absent]
    keys = [r.key for r in rungs if r.key not in absent]
    tell = progress or (lambda text: None)
    results: dict[str, dict[str, Any]] = {}
    load = [_load()]
    driver: _Processes | _Local = (_Local if in_process else _Processes)(keys, names)
    try:
        for i, rung in enumerate(rungs, 1):
            entry: dict[str, Any] = {"title": rung.title, "why": rung.why, "per_name": rung.per_name}
            if rung.key in absent:
                entry["absent"] = absent[rung.key]
            else:
                tell(f"setting up rung {i} of {len(rungs)}: {rung.title}")
                entry.update(driver.first(rung.key))
            results[rung.key] = entry
        running = [key for key in keys if "absent" not in results[key]]
        for key in running:
            results[key]["samples"] = []
        for n in range(rounds):
            for i, key in enumerate(running, 1):
                tell(f"round {n + 1} of {rounds}: timing rung {i} of {len(running)}, {results[key]['title']}")
                results[key]["samples"].append(driver.time(key))
            load.append(_load())
    finally:
        driver.close()
    for entry in results.values():
        if entry.get("samples"):
            entry["step_s"] = statistics.median(entry["samples"])
            entry["per_name_s"] = entry["step_s"] / entry["per_name"]
    name = _documents(names)[0]
    result: dict[str, Any] = {"name": name, "rounds": rounds, "rungs": results}
    if not in_process:  # the machine's description runs git and reads /proc: not in a browser
        machine = report.machine()
        how = "the 1-minute load average by os.getloadavg after each round"
        machine["load"] = report.load_summary([x for x in load if x is not None], how)
        result["machine"] = machine
    return result


def agreement(loss: float, reference: float) -> str:
    """How ``loss`` compares with ``reference``: "bit for bit", or the difference in units of the
    last place (ulps) of ``reference``."""
    if loss == reference:
        return "bit for bit"
    ulps = abs(loss - reference) / math.ulp(reference)
    return f"{ulps:.0f} ulp{'s' if round(ulps) != 1 else ''} apart"


def _speedup(x: float) -> str:
    """A speed-up as the benchmark writes it: whole with thousands commas from 10x, else 2 decimals."""
    return f"{x:,.0f}x" if x >= 10 else f"{x:.2f}x"


def rows(result: dict[str, Any]) -> list[dict[str, str]]:
    """The ladder's rows, as text: each rung's title, time per name, speed-up over the first rung
    present, first-step loss against ``nn.GPT`` eager's, and what made it faster (or why absent)."""
    rungs = result["rungs"]
    base = next((e["per_name_s"] for e in rungs.values() if "per_name_s" in e), None)
    reference = rungs.get("gpt_eager", {}).get("loss")
    out = []
    for entry in rungs.values():
        row = {
            "title": entry["title"],
            "time": "absent",
            "speedup": "",
            "loss": "",
            "why": entry.get("why", ""),
        }
        if "absent" in entry:
            row["why"] = entry["absent"]
        else:
            per_name = entry["per_name_s"]
            match = agreement(entry["loss"], reference) if reference is not None else ""
            row["time"] = report.format_quantity(per_name, "s")
            row["speedup"] = _speedup(base / per_name) if base else ""
            row["loss"] = f"{entry['loss']!r} ({match})" if match else repr(entry["loss"])
        out.append(row)
    return out


def table(result: dict[str, Any]) -> str:
    """The ladder as a Markdown table (``rows``)."""
    lines = [
        "| rung | time per name | speed-up | first loss, against nn.GPT eager | what made it faster |",
        "|---|---|---|---|---|",
    ]
    for r in rows(result):
        lines.append(f"| {r['title']} | {r['time']} | {r['speedup']} | {r['loss']} | {r['why']} |")
    return "\n".join(lines)


def saved_run_text(result: dict[str, Any]) -> str:
    """What the docs page shows of a saved run: the table, then the machine, commit, date and load."""
    return f"{table(result)}\n\n{report.machine_text(result['machine'])}."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ladder", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="timed steps per rung (default 20)")
    parser.add_argument("--save", type=Path, help="write the run as JSON to this file")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    result = run(args.rounds)
    print(f"one training step on {result['name']!r}, the median of {args.rounds} per rung\n")
    print(table(result))
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.save.with_suffix(".partial")
        tmp.write_text(json.dumps(result, indent=1) + "\n")
        tmp.replace(args.save)  # whole or not at all
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
