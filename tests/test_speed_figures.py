"""Every speed figure the README and the docs quote is the saved benchmark run's.

The run is ``benchmarks/results/latest.json`` (one ``make bench``, its machine, date, commit and load
inside). Each figure is quoted in a phrase listed below, with the number the run gives, rounded as
the phrase writes it; and a figure the pages show that no phrase here claims fails the test: a new
figure on a page needs its line here, from the saved run. docs/pages/benchmarks.md shows the run's
table, machine and targets as `make bench` prints them (tests/test_benchmarks.py checks those)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks import report

ROOT = Path(__file__).resolve().parent.parent
RUN = json.loads((ROOT / "benchmarks" / "results" / "latest.json").read_text())
# The test suite's own times on a fresh clone (`bash .ci/run`'s stages, `make test-fast`): the other
# saved run the pages quote
TESTS = json.loads((ROOT / "benchmarks" / "results" / "test_times.json").read_text())
PAGES = [ROOT / "README.md", ROOT / "docs" / "index.md", *sorted((ROOT / "docs" / "pages").glob("*.md"))]
REF, REF_OFF = "micrograd 0.1.0", "micrograd 0.1.0, gc off"
MG = "microgpt's script, microgpt's Value"
EAGER, COMPILED = "nn.GPT, eager", "nn.GPT, compile_loss() (traces included, over 1,000 steps)"
BATCHED = "nn.GPT, compile_loss(batched=True), 16 names a step (per name)"
FLOOR, FLOOR_16 = "numpy floor, 1 name a step", "numpy floor, 16 names a step (per name)"

# What a page may say with a number and a unit that is not a measurement of speed: limits it sets,
# a derivative in a table of ops. Each is a phrase of one page.
NOT_MEASURED = {
    "docs/pages/build-your-own.md": [
        "under a time limit (`timeout`, 10 s",
        "`total_timeout=` (300 s by default)",
    ],
    "docs/pages/own-op.md": ["`total_timeout` (120 s)"],
    "docs/pages/development.md": ["about 3 minutes"],  # issue 45's goal
    "docs/pages/explorer.md": [
        "laid out by Graphviz, given 2 seconds",
        "within those 2 seconds",
        "waits up to `layout_timeout=` (30 s)",
        "kept it busy for over 40 minutes",  # Graphviz's, on one graph: why the limit is there
    ],
    "docs/pages/playground.md": ["`pyodide/python.snapshot.gz` (about 7 MB)"],  # a file's size
    "docs/pages/reliability.md": [
        "TIMED OUT in about 1.5x the limit",
        "30 s on Graphviz",
        "gives Graphviz 2 s",
    ],
    "docs/pages/ops.md": ["| x · x | 2x |"],
    "docs/pages/compile.md": [
        "a `Dot`'s extra pairs -0.0 times 0.0",  # a product, not a speed
        "entered an `errstate` 29 times",  # a count of calls before the change (now once, tested)
    ],
}


def row(workload: str, label: str) -> dict[str, Any]:
    entry: dict[str, Any] = RUN["workloads"][workload]["rows"][label]
    assert entry["status"] == "ok", f"the saved run's {workload} / {label}: {entry['status']}"
    return entry


def median(workload: str, label: str) -> float:
    return float(row(workload, label)["median"])


def vs(workload: str, label: str, baseline: str) -> float:
    return float(row(workload, label)["vs"][baseline])


def target(prefix: str) -> dict[str, Any]:
    (found,) = [t for t in RUN["targets"] if t["target"].startswith(prefix)]
    return found


def ratio(x: float) -> str:
    """A ratio as the pages write it: three significant figures, whole with thousands commas past 100."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def about(x: float) -> str:
    """A large ratio to two significant figures: 5,500."""
    return f"{round(x, 1 - math.floor(math.log10(x))):,.0f}"


def time(seconds: float) -> str:
    return report.format_quantity(seconds, "s")


def long_time(seconds: float) -> str:
    """A time of minutes in minutes (1,000 training steps), else as ``time``."""
    return f"{seconds / 60:.3g} minutes" if seconds >= 120 else time(seconds)


def mb(n_bytes: float) -> str:
    return f"{n_bytes / 1e6:.0f} MB"


# (page, phrase): each {} is a figure of the saved run. Sentences wrap anywhere: the pages are read
# with every run of white space as one space.
def the_moons_step() -> tuple[str, ...]:
    return (
        ratio(vs("train_step", "ours", REF)),
        about(vs("train_step", "ours, compiled replay", REF)),
        about(vs("train_step", "ours, compiled replay, batched", REF)),
    )


def memory() -> tuple[str, ...]:
    ref, ours = row("graph_memory", REF), row("graph_memory", "ours")
    return f"{ref['median']:.0f}", f"{ours['median']:.0f}", f"{100 * (1 - ours['nodes'] / ref['nodes']):.0f}"


def gpt_steps() -> tuple[str, ...]:
    steps = [median("microgpt_step", label) for label in (MG, EAGER, COMPILED)]
    return tuple(t for s in steps for t in (time(s), long_time(1000 * s)))


def explore_pages() -> tuple[str, ...]:
    mlp = row("explore_page", "MLP batch: the moons loss of 8 samples")
    gpt = row("explore_page", "nn.GPT: a training step's loss on one name")
    size = mlp["page_bytes"] / 1e6
    article = "an" if f"{size:.0f}".startswith("8") or f"{size:.0f}" in ("11", "18") else "a"
    return (
        f"{mlp['values']:,.0f}",
        article,
        mb(mlp["page_bytes"]),
        f"{gpt['values']:,.0f}",
        mb(gpt["page_bytes"]),
    )


def the_benchmark_page() -> tuple[str, ...]:
    batched = row("train_step", "ours, compiled replay, batched")
    return (
        ratio(vs("train_step", "ours", REF)),
        ratio(vs("train_step", "ours", REF_OFF)),
        about(vs("train_step", "ours, compiled replay", REF)),
        f"{batched['trace_s'] * 1e3:.0f} ms",
        about(vs("train_step", "ours, compiled replay, batched", REF)),
        ratio(target("batched compiled replay within 3x")["value"]),
    )


def issue_15() -> tuple[str, ...]:
    floor = target("batched compiled replay within 3x")
    return (
        ratio(floor["value"]),
        "met" if floor["met"] else "not met",
        f"{row('train_step', 'ours, compiled replay, batched')['trace_s'] * 1e3:.0f} ms",
        time(median("digits_epoch", "ours, compiled replay, batched")),
        ratio(target("digits: one epoch, batched")["value"]),
        f"{target('digits: the same losses')['value']:.1e}",
    )


def microgpt_rows() -> tuple[str, ...]:
    out = [time(median("microgpt_step", MG))]
    for label in (EAGER, COMPILED, BATCHED, FLOOR, FLOOR_16):
        out += [time(median("microgpt_step", label)), ratio(vs("microgpt_step", label, MG))]
    return tuple(out)


def fast_tier(key: str) -> tuple[str, ...]:
    """A run of `make test-fast`: its tests, minutes and CPU seconds."""
    run = TESTS[key]
    return f"{run['tests']:,}", f"{run['wall_s'] / 60:.1f}", f"{run['cpu_s']:.0f}"


def suite_times() -> tuple[str, ...]:
    ci = TESTS["ci_run"]
    return f"{ci['tests']:,}", f"{ci['stages_s']['test'] / 60:.1f}", *fast_tier("make_test_fast")


def suite_times_table() -> tuple[str, ...]:
    ci = TESTS["ci_run"]
    load = TESTS["make_test_fast"]["load"]
    return (
        f"{ci['tests']:,}",
        f"{ci['stages_s']['test'] / 60:.1f}",
        *fast_tier("make_test_fast_before"),
        *fast_tier("make_test_fast"),
        f"{load['start']:.1f}",
        f"{load['end']:.1f}",
    )


FIGURES: list[tuple[str, str, Callable[[], tuple[str, ...]]]] = [
    (
        "README.md",
        "`make test` ran {} tests in {} minutes; `make test-fast` ran {} in {} minutes ({} s of CPU time)",
        suite_times,
    ),
    (
        "docs/pages/development.md",
        "| `make test` (2 workers), in `bash .ci/run`, a fresh clone | {} | {} minutes | "
        "| `make test-fast` (2 workers), a fresh clone, before the `slow` kind | {} | {} minutes, {} s of "
        "CPU time | | `make test-fast`'s command (2 workers), a checkout, with the `slow` kind | {} | {} "
        "minutes, {} s of CPU time, the load average {} at its start and {} at its end |",
        suite_times_table,
    ),
    (
        "README.md",
        "its own demo trains {}x faster than micrograd 0.1.0 eagerly and thousands of times faster with "
        "`micrograd.compile`",
        lambda: (ratio(vs("train_step", "ours", REF)),),
    ),
    (
        "docs/pages/compile.md",
        "You keep the scalar code, and a training step runs about {} times faster than the eager one",
        lambda: (about(median("train_step", "ours") / median("train_step", "ours, compiled replay")),),
    ),
    (
        "docs/pages/compared.md",
        "| speed on its own demo | 1× | {}× eager, about {}× with `micrograd.compile` and {}× with "
        "`compile(batched=True)`",
        the_moons_step,
    ),
    (
        "docs/pages/compared.md",
        "| memory per graph node | {} bytes | {} bytes, and {}% fewer nodes |",
        memory,
    ),
    (
        "docs/pages/microgpt.md",
        "| microgpt's own `Value` | {} | {} | | `nn.GPT`, eager | {} | {} | | `nn.GPT`, `compile_loss()` | "
        "{} | {}, the traces included |",
        gpt_steps,
    ),
    (
        "docs/pages/demos.md",
        "(eager {} a step, `--compiled` {} a step with its traces, in the [benchmark](benchmarks.md))",
        lambda: (time(median("microgpt_step", EAGER)), time(median("microgpt_step", COMPILED))),
    ),
    (
        "docs/pages/explorer.md",
        "through `MLP(2, [16, 16, 1])`, {} Values, gives {} {} page, and an `nn.GPT` training step on one "
        "name, {} Values, a {} page",
        explore_pages,
    ),
    (
        "docs/pages/benchmarks.md",
        "micrograd's own demo step runs {}x faster than micrograd 0.1.0 as users run it ({}x faster "
        "than micrograd with its collector off), with the same loss trajectory from the same weights "
        "(micrograd 0.1.0 differs from itself by ~1e-15 between runs: its set-ordered `_prev` adds "
        "gradients in memory-address order); compiled replay (`micrograd.compile`) runs it about {}x "
        "faster, and the batched replay (one point's loss traced in {}, replayed over the 100 points) "
        "about {}x, {}x the time of a hand-vectorised numpy step.",
        the_benchmark_page,
    ),
    (
        "docs/pages/benchmarks.md",
        "**Issue 15** (in the run above): the batched replay of the moons step is {}x the numpy "
        "floor (target 3x: {}); the trace of the per-sample graph takes {} (target < 50 ms); an epoch "
        "of the digits model takes {} (target < 1 s), {}x the same training written in plain numpy, "
        "with the same losses ({}).",
        issue_15,
    ),
    (
        "docs/pages/benchmarks.md",
        "microgpt's script on its own `Value` {} a step; eager `nn.GPT` {} ({}x faster); "
        "`compile_loss()`, one name a step, {} a step over 1,000 steps with its traces ({}x); "
        "`compile_loss(batched=True)` with 16 names a step, {} a name ({}x); the numpy floor, the same "
        "training vectorised by hand (`benchmarks/gpt_floor.py`), {} a step with one name ({}x) and {} "
        "a name with 16 ({}x).",
        microgpt_rows,
    ),
    (
        "docs/pages/benchmarks.md",
        "The run below is the one saved there: `make bench` at commit {} on {}, each row measuring that "
        "commit's code.",
        lambda: (RUN["machine"]["commit"], RUN["machine"]["date"][:10]),
    ),
    (
        "docs/pages/benchmarks.md",
        "the load average went from {} to {} through the run (median {}).",
        lambda: tuple(f"{RUN['machine']['load'][k]:.1f}" for k in ("min", "max", "median")),
    ),
]


def normalized(page: Path) -> str:
    """The page's text without its code blocks (their outputs are run by test_readme/test_docs) and
    without the saved run's table, machine and targets, each white-space run one space."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"<!-- saved run -->.*?<!-- /saved run -->", "", text, flags=re.DOTALL)
    return " ".join(text.split())


FIGURE = re.compile(
    r"\d[\d,.–-]*\s?(?:[x×](?![\w×])|times\b|ms\b|µs\b|ns\b|s\b|seconds?\b|minutes?\b|hours?\b|bytes\b|B\b|MB\b|KB\b)"
)


def test_the_claims_hold() -> None:
    assert vs("train_step", "ours, compiled replay", REF) >= 1000  # "thousands of times faster"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_figure_of_a_page_is_the_saved_runs(page: Path) -> None:
    name = str(page.relative_to(ROOT))
    text = normalized(page)
    claimed: list[tuple[int, int]] = []
    wrong = []
    for where, phrase, figures in FIGURES:
        if where != name:
            continue
        said = phrase.format(*figures())
        at = text.find(said)
        if at < 0:
            wrong.append(said)
        else:
            claimed.append((at, at + len(said)))
    for phrase in NOT_MEASURED.get(name, []):
        at = text.find(phrase)
        assert at >= 0, f"{name}: the phrase {phrase!r} is no longer there: take it out of NOT_MEASURED"
        claimed.append((at, at + len(phrase)))
    assert not wrong, f"{name} should say, from the saved run (benchmarks/results/latest.json): {wrong}"
    unclaimed = [
        text[max(0, m.start() - 50) : m.end() + 20]
        for m in FIGURE.finditer(text)
        if not any(a <= m.start() and m.end() <= b for a, b in claimed)
    ]
    assert not unclaimed, (
        f"{name}: figures not from the saved run, or not listed in tests/test_speed_figures.py: {unclaimed}"
    )
