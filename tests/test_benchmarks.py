"""The benchmark harness works end to end (tiny mode); no timing is asserted."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import digits, report
from benchmarks.install_reference import installed_version
from benchmarks.moons import initial_weights, make_moons
from benchmarks.report import max_rel_diff
from benchmarks.suite import PLAYGROUND, REFERENCE, REFERENCE_DIR, REFERENCE_VERSION, REPO_ROOT, WORKLOADS
from tests.micrograd_reference import ensure_installed


@pytest.fixture
def reference() -> None:
    """micrograd 0.1.0 in REFERENCE_DIR, fetched at set-up if missing (skipped without the index)."""
    ensure_installed()
    assert installed_version() == REFERENCE_VERSION


needs_reference = pytest.mark.usefixtures("reference")


# The tiny runs split the harness three ways, so that each row runs once and the browser's only in the
# browser tier: every workload but the playground's without micrograd 0.1.0; the workloads that have
# micrograd 0.1.0 rows side by side with it; the playground's row (headless Chromium) alone.
PLAYGROUND_KEY = "playground_ready"
WITH_REFERENCE = [w.key for w in WORKLOADS if any(row.engine == REFERENCE for row in w.rows)]
NOT_IN_A_BROWSER = [w.key for w in WORKLOADS if w.key != PLAYGROUND_KEY]


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--tiny", "--json", str(out), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc, json.loads(out.read_text())


def _check_common(proc: subprocess.CompletedProcess[str], doc: dict[str, Any], keys: list[str]) -> None:
    assert doc["mode"] == "tiny"
    assert set(doc["machine"]) >= {"cpu", "python", "date", "platform"}
    assert list(doc["workloads"]) == keys
    for key, workload in doc["workloads"].items():
        for label, row in workload["rows"].items():
            if row["status"] in row["tolerated"]:
                continue
            assert row["status"] == "ok", (key, label, row["status"])
            assert row["median"] > 0, (key, label)
            assert f"| {label} |" in proc.stdout  # every row is in the printed table
    assert "Machine:" in proc.stdout


def test_the_tiny_runs_between_them_run_every_row() -> None:
    assert "train_step" in WITH_REFERENCE and set(WITH_REFERENCE) <= set(NOT_IN_A_BROWSER)
    assert set(NOT_IN_A_BROWSER) | {PLAYGROUND_KEY} == {w.key for w in WORKLOADS}
    assert all(row.engine != REFERENCE for row in PLAYGROUND.rows)  # nothing to see side by side


def test_tiny_run_without_reference(tmp_path: Path) -> None:
    proc, doc = _run(tmp_path, "--without-reference", "--only", *NOT_IN_A_BROWSER)
    _check_common(proc, doc, NOT_IN_A_BROWSER)
    assert all(REFERENCE.name not in label for w in doc["workloads"].values() for label in w["rows"])
    rows = doc["workloads"]["train_step"]["rows"]
    batched = "ours, compiled replay, batched"
    assert set(rows) == {"ours", "ours, gc off", "ours, compiled replay", batched, "numpy floor"}
    # gc on or off, our engine follows the same trajectory; the compiled replays too, within 1e-9
    assert rows["ours"]["loss"] == rows["ours, gc off"]["loss"]
    assert max_rel_diff(rows["ours"]["loss"], rows["ours, compiled replay"]["loss"]) <= 1e-9
    assert max_rel_diff(rows["ours"]["loss"], rows[batched]["loss"]) <= 1e-9
    assert rows[batched]["trace_s"] > 0 and "trace " in proc.stdout
    assert max_rel_diff(rows["ours"]["loss"], rows["numpy floor"]["loss"]) < 1e-12
    chain = doc["workloads"]["chain_backward"]["rows"]["ours"]
    assert chain["status"] == "ok" and chain["build_s"] > 0
    memory = doc["workloads"]["graph_memory"]["rows"]["ours"]
    assert memory["nodes"] > 1000 and memory["retained_bytes"] > 0
    # the digits epoch: the batched replay and plain numpy train the same model on the same batches
    digits_rows = doc["workloads"]["digits_epoch"]["rows"]
    assert digits_rows[batched]["status"] == "ok" and digits_rows["numpy floor"]["status"] == "ok"
    assert len(digits_rows[batched]["loss"]) == 2  # 128 images: two batches of 64
    assert digits_rows[batched]["loss_max_rel_diff"] < 1e-12
    targets = {t["target"]: t for t in doc["targets"]}
    assert targets["digits: one epoch < 1 s (issue 15)"]["value"] > 0


@needs_reference
def test_tiny_run_side_by_side(tmp_path: Path) -> None:
    proc, doc = _run(tmp_path, "--only", *WITH_REFERENCE)
    _check_common(proc, doc, WITH_REFERENCE)
    ref = f"micrograd {REFERENCE_VERSION}"
    train = doc["workloads"]["train_step"]["rows"]
    assert train[ref]["micrograd_version"] == REFERENCE_VERSION
    assert train["ours"]["micrograd_version"] != REFERENCE_VERSION
    for label in (
        "ours",
        "ours, gc off",
        "ours, compiled replay",
        "ours, compiled replay, batched",
        f"{ref}, gc off",
    ):
        assert train[label]["loss_max_rel_diff"] <= 1e-9, label
    assert train["numpy floor"]["loss_max_rel_diff"] < 1e-12
    assert doc["workloads"]["forward"]["rows"]["ours"]["scores_max_rel_diff"] <= 1e-12
    assert doc["workloads"]["chain_backward"]["rows"][ref]["status"] == "RecursionError"
    memory = doc["workloads"]["graph_memory"]["rows"]
    assert memory["ours"]["nodes"] > 1000 and memory[ref]["nodes"] > 1000
    assert {t["target"] for t in doc["targets"]} and all("met" in t for t in doc["targets"])


@pytest.mark.browser  # the row opens the built playground in headless Chromium, from the bench's worker
def test_tiny_run_of_the_playground_row(tmp_path: Path) -> None:
    proc, doc = _run(tmp_path, "--without-reference", "--only", PLAYGROUND_KEY)
    _check_common(proc, doc, [PLAYGROUND_KEY])
    row = doc["workloads"][PLAYGROUND_KEY]["rows"]["ours"]
    assert row["status"] == "ok" or row["status"] in row["tolerated"], row["status"]


@needs_reference
def test_worker_refuses_the_wrong_micrograd(tmp_path: Path) -> None:
    # PYTHONPATH gives our engine, but the row claims micrograd 0.1.0: the worker must notice
    out = tmp_path / "result.json"
    cmd = [sys.executable, str(REPO_ROOT / "benchmarks" / "worker.py"), "workloads:chain_backward"]
    cmd += ["--params", '{"n_nodes": 10}', "--engine-dir", str(REFERENCE_DIR), "--out", str(out)]
    proc = subprocess.run(cmd, env={"PYTHONPATH": str(REPO_ROOT)}, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "expected it under" in json.loads(out.read_text())["error"]


def test_an_older_engine_gets_no_module_from_the_working_tree(tmp_path: Path) -> None:
    # an engine without micrograd.explore: the editable install of this tree must not supply it
    engine = tmp_path / "engine"
    (engine / "micrograd").mkdir(parents=True)
    (engine / "micrograd" / "__init__.py").write_text('__version__ = "0.0.1"\n')
    out = tmp_path / "result.json"
    cmd = [sys.executable, str(REPO_ROOT / "benchmarks" / "worker.py"), "gpt_workloads:explore_gpt_boxes"]
    cmd += ["--params", '{"n_points": 1}', "--engine-dir", str(engine), "--out", str(out)]
    env = {"PYTHONPATH": str(engine), "PATH": os.environ.get("PATH", "")}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(out.read_text())["error"].startswith("ImportError: cannot import name 'explore'")


def test_every_engine_is_byte_compiled_before_the_rows_run(tmp_path: Path) -> None:
    # with PYTHONDONTWRITEBYTECODE set, an exported tree would compile from source in every worker
    import dataclasses

    from benchmarks.run import compile_engines
    from benchmarks.suite import Engine, Row

    engine = tmp_path / "engine"
    (engine / "micrograd").mkdir(parents=True)
    (engine / "micrograd" / "__init__.py").write_text("x = 1\n")
    rows = (Row("old", Engine("old", engine), "workloads:train_step"),)
    workload = dataclasses.replace(WORKLOADS[0], rows=rows)
    assert compile_engines([workload]) == [engine / "micrograd"]
    assert list((engine / "micrograd" / "__pycache__").glob("__init__.*.pyc"))
    (engine / "micrograd" / "broken.py").write_text("def (:\n")
    with pytest.raises(RuntimeError, match=r"could not byte-compile .*engine/micrograd: a module there"):
        compile_engines([workload])


def test_bad_arguments_are_rejected() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--reps", "0"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "--reps must be at least 1" in proc.stderr


def test_moons_are_deterministic_and_balanced() -> None:
    points, labels = make_moons(100)
    assert (points, labels) == make_moons(100)
    assert labels.count(-1) == labels.count(1) == 50
    assert all(len(p) == 2 and all(math.isfinite(c) for c in p) for p in points)
    with pytest.raises(ValueError, match="n_points >= 2"):
        make_moons(1)


def test_initial_weights_follow_micrograd_mlp_shapes() -> None:
    layers = initial_weights()
    assert [(len(w), len(w[0]), len(b)) for w, b in layers] == [(16, 2, 16), (16, 16, 16), (1, 16, 1)]
    assert layers == initial_weights()  # reseeded each call
    assert all(-1 <= v <= 1 for w, _ in layers for row in w for v in row)


def test_digits_batches_and_weights_are_deterministic() -> None:
    batches = digits.epoch_batches(150, epoch=2)
    assert [len(b) for b in batches] == [64, 64, 22]
    assert sorted(i for b in batches for i in b) == list(range(150))  # each image once per epoch
    assert batches == digits.epoch_batches(150, epoch=2) != digits.epoch_batches(150, epoch=3)
    layers = digits.initial_weights()
    assert [(len(w), len(w[0]), len(b)) for w, b in layers] == [(32, 64, 32), (10, 32, 10)]
    assert layers == digits.initial_weights()


def test_targets_without_a_goal_are_reported_not_judged() -> None:
    """Every target measures on a summary of every row; one with no goal (threshold None), of any
    kind, is reported, never met or not met."""
    from benchmarks.suite import TARGETS

    extras = {"trace_s": 1e-3, "run_s": 1.0, "page_bytes": 1e6, "loss_max_rel_diff": 0.0}
    summary = {
        w.key: {"rows": {r.label: {"median": 1e-3 * (i + 1), **extras} for i, r in enumerate(w.rows)}}
        for w in WORKLOADS
    }
    measured = report.check_targets(summary)
    assert [m["target"] for m in measured] == [t.text for t in TARGETS]
    for t, m in zip(TARGETS, measured):
        assert m["value"] is not None, t.text
        assert (m["met"] is None) == (t.threshold is None), t.text
    assert "reported (measured" in report.targets_text(measured)


def test_max_rel_diff() -> None:
    assert max_rel_diff([1.0, 0.0], [1.0, 0.0]) == 0.0
    assert max_rel_diff([1.0, 2.0], [1.0, 2.2]) == pytest.approx(0.2 / 2.2)
    assert max_rel_diff([1.0], [1.0, 2.0]) == math.inf


def _site_pages() -> str:
    """The documentation site's pages, where the benchmark's numbers are quoted."""
    return "\n".join(p.read_text() for p in sorted((REPO_ROOT / "docs" / "pages").glob("*.md")))


def test_the_readme_describes_every_workload() -> None:
    """benchmarks/README.md's table has a row for each workload the suite runs, and no other."""
    table = (REPO_ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    keys = [line.split("`")[1] for line in table.splitlines() if line.startswith("| `")]
    assert keys == [w.key for w in WORKLOADS]


def test_the_benchmark_page_shows_the_committed_run() -> None:
    """The site's benchmark numbers are the committed full run (benchmarks/results/latest.json), as
    `make bench` printed them: the table, the machine, the targets and the side-by-side with a commit."""
    doc = json.loads((REPO_ROOT / "benchmarks" / "results" / "latest.json").read_text())
    readme = _site_pages()
    assert doc["mode"] == "full"
    parts = [
        report.table(doc["workloads"]),
        report.machine_text(doc["machine"]),
        report.targets_text(doc["targets"]),
    ]
    if "baseline" in doc:
        parts.append(report.baseline_text(doc["baseline"]["comparison"]))
    missing = [part.splitlines()[0] for part in parts if part not in readme]
    assert not missing, (
        f"docs/pages/benchmarks.md lacks these parts of latest.json (paste `make bench`'s output): {missing}"
    )


def test_the_playground_row_is_skipped_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without Chromium, Pyodide's npm package or a playground, the row's status says so and is
    tolerated (never a failure of `make bench`)."""
    from benchmarks import playground_ready

    assert set(PLAYGROUND.row("ours").tolerated) == {
        playground_ready.NO_BROWSER,
        playground_ready.NO_PYODIDE,
        playground_ready.NO_PLAYGROUND,
    }
    assert playground_ready.build(tmp_path, tmp_path / "out") == playground_ready.NO_PLAYGROUND
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "build_playground.py").write_text("")
    monkeypatch.setattr(playground_ready, "HERE", tmp_path)  # a checkout without node_modules
    assert playground_ready.build(tmp_path, tmp_path / "out") == playground_ready.NO_PYODIDE
    monkeypatch.setattr(playground_ready, "missing_browser", lambda: True)
    assert playground_ready.ready(runs=1) == {"status": playground_ready.NO_BROWSER}


def test_the_machine_line_gives_the_load_the_run_went_through() -> None:
    """On a shared machine the load is what the absolute numbers went through: the JSON keeps its least,
    median and most, and the machine line the page shows says them (a run saved without it, none)."""
    load = report.load_summary([3.25, 1.0, 2.5, 9.0], "as each worker started")
    assert load == {"min": 1.0, "median": 3.25, "max": 9.0, "samples": 4, "how": "as each worker started"}
    m = {"cpu": "c", "logical_cpus": 2, "implementation": "CPython", "python": "3.11", "platform": "p"}
    m |= {"numpy": "2", "commit": "abc1234", "date": "2026-11-28"}
    assert report.machine_text(m).endswith("commit abc1234; 2026-11-28")
    assert report.machine_text({**m, "load": load}).endswith(
        "2026-11-28; load average 1.0 to 9.0, median 3.2 (4 samples: as each worker started)"
    )
