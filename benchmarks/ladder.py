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
learner's ``Value`` runs; here, outside the browser, there is no learner.
"""

from __future__ import annotations

import argparse
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
    setup: Callable[[list[int], list[list[int]]], Step]  # (the name's ids, 16 names' ids) -> a step
    per_name: int = 1  # names a step trains on: the time shown is per name


def _script(engine: str) -> Callable[[list[int], list[list[int]]], Step]:
    def setup(doc: list[int], batch: list[list[int]]) -> Step:
        value_class = gpt_workloads.microgpt_value_class(engine)
        script = gpt_workloads.MicrogptScript(value_class, _vocab())
        return lambda: script.step(doc, LR)

    return setup


def _model() -> Any:
    from nn import GPT

    return GPT(_vocab(), BLOCK_SIZE, N_LAYER, N_EMBD, N_HEAD, seed=SEED)


def _adam(model: Any) -> Any:
    from nn.optim import Adam

    return Adam(model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS)


def _eager(doc: list[int], batch: list[list[int]]) -> Step:
    model = _model()
    opt = _adam(model)

    def step() -> float:
        opt.zero_grad()
        loss = model.loss(doc)
        loss.backward()
        opt.step()
        return float(loss.data)

    return step


def _compiled(doc: list[int], batch: list[list[int]]) -> Step:
    model = _model()
    opt, replay = _adam(model), model.compile_loss()

    def step() -> float:
        opt.zero_grad()
        loss = replay.backward(doc)
        opt.step()
        return float(loss)

    return step


def _batched(doc: list[int], batch: list[list[int]]) -> Step:
    model = _model()
    opt, replay = _adam(model), model.compile_loss(batched=True)

    def step() -> float:
        opt.zero_grad()
        losses = replay.backward(batch)
        opt.step()
        return float(losses[0])  # the ladder's name is the batch's first

    return step


def _floor(ordered: bool, names: int) -> Callable[[list[int], list[list[int]]], Step]:
    def setup(doc: list[int], batch: list[list[int]]) -> Step:
        import random

        w = gpt_floor.init_weights(_vocab(), BLOCK_SIZE, N_LAYER, N_EMBD, random.Random(SEED))
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
        "The start: a 40-line scalar Value, a Python object and a closure for every +, * and exp.",
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
        "The graph is traced once per name length, then replayed with numpy: no Python object per node.",
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


def _vocab() -> int:
    return len(gpt_workloads.shuffled_names()[1]) + 1


def _documents() -> tuple[str, list[int], list[list[int]]]:
    """The ladder's name, its ids (``BOS, ids..., BOS``), and the 16 names of the batched rungs
    (the ladder's name first), cut to the model's block size as ``nn.GPT`` would refuse longer."""
    names, chars = gpt_workloads.shuffled_names()
    bos, ids = len(chars), {c: i for i, c in enumerate(chars)}

    def document(name: str) -> list[int]:
        return [bos, *(ids[c] for c in name), bos][: BLOCK_SIZE + 1]

    return names[0], document(names[0]), [document(n) for n in names[:BATCH]]


def _serve(key: str, conn: Connection) -> None:
    """A rung's own process: set it up, take the first step (its loss and time, a compiled rung's
    trace included), then time one step each time the parent asks, until it sends ``False``."""
    _, doc, batch = _documents()
    rung = next(r for r in RUNGS if r.key == key)
    try:
        step = rung.setup(doc, batch)
    except Exception as exc:  # a rung that cannot run (no microgpt, no numpy) is reported, never fatal
        conn.send({"absent": f"{type(exc).__name__}: {exc}"})
        return
    t0 = perf_counter()
    loss = step()
    first = perf_counter() - t0
    conn.send({"loss": loss, "first_step_s": first})
    while conn.recv():
        t0 = perf_counter()
        step()
        conn.send(perf_counter() - t0)


def run(rounds: int, only: set[str] | None = None) -> dict[str, Any]:
    """Each rung in a process of its own (so none pays for another's objects), set up and given
    its first step; then ``rounds`` timed steps, the rungs taking turns, one at a time."""
    context = multiprocessing.get_context("spawn")
    rungs = [r for r in RUNGS if only is None or r.key in only]
    results: dict[str, dict[str, Any]] = {}
    workers: dict[str, tuple[Any, Connection]] = {}
    load = [os.getloadavg()[0]]
    try:
        for rung in rungs:
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(rung.key, theirs), daemon=True)
            process.start()
            workers[rung.key] = (process, ours)
        for rung in rungs:
            entry: dict[str, Any] = {"title": rung.title, "why": rung.why, "per_name": rung.per_name}
            entry.update(workers[rung.key][1].recv())
            results[rung.key] = entry
        running = {key: conn for key, (_, conn) in workers.items() if "absent" not in results[key]}
        for key in running:
            results[key]["samples"] = []
        for _ in range(rounds):
            for key, conn in running.items():
                conn.send(True)
                results[key]["samples"].append(conn.recv())
            load.append(os.getloadavg()[0])
        for conn in running.values():
            conn.send(False)
    finally:
        for process, _ in workers.values():
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    for entry in results.values():
        if entry.get("samples"):
            entry["step_s"] = statistics.median(entry["samples"])
            entry["per_name_s"] = entry["step_s"] / entry["per_name"]
    machine = report.machine()
    machine["load"] = report.load_summary(load, "the 1-minute load average by os.getloadavg after each round")
    name, _, _ = _documents()
    return {"name": name, "rounds": rounds, "machine": machine, "rungs": results}


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


def table(result: dict[str, Any]) -> str:
    """The ladder as a Markdown table: each rung's time per name, its speed-up over the first
    rung, its first-step loss against ``nn.GPT`` eager's, and what made it faster."""
    rungs = result["rungs"]
    base = rungs.get("microgpt", {}).get("per_name_s")
    reference = rungs.get("gpt_eager", {}).get("loss")
    lines = [
        "| rung | time per name | speed-up | first loss, against nn.GPT eager | what made it faster |",
        "|---|---|---|---|---|",
    ]
    for entry in rungs.values():
        if "absent" in entry:
            lines.append(f"| {entry['title']} | absent | | | {entry['absent']} |")
            continue
        per_name = entry["per_name_s"]
        speedup = _speedup(base / per_name) if base else ""
        match = agreement(entry["loss"], reference) if reference is not None else ""
        time = report.format_quantity(per_name, "s")
        lines.append(
            f"| {entry['title']} | {time} | {speedup} | {entry['loss']!r} ({match}) | {entry['why']} |"
        )
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
