"""Run the benchmark: every workload of ``suite.WORKLOADS``, each row in its own process.

    python -m benchmarks.run                # full run: table, targets, benchmarks/results/latest.json
    python -m benchmarks.run --tiny         # seconds: every workload on tiny inputs (CI)
    python -m benchmarks.run --only train_step --reps 3 --json /tmp/train.json
    python -m benchmarks.run --baseline HEAD~3   # also this engine as of a git commit, side by side

Repetitions alternate the order of the rows (forward, then backward), so a
slow drift of the machine does not favour one engine.  The exit status is 1
when a row failed (an error, not an expected status such as micrograd
0.1.0's RecursionError), 2 on bad arguments or a missing reference install.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from . import report
from .install_reference import installed_version
from .suite import (
    BENCH_DIR,
    OURS,
    REFERENCE,
    REFERENCE_DIR,
    REFERENCE_VERSION,
    REPO_ROOT,
    WORKLOADS,
    Engine,
    Row,
    Workload,
)

DEFAULT_JSON = BENCH_DIR / "results" / "latest.json"
WORKER = BENCH_DIR / "worker.py"


def export_commit(rev: str) -> tuple[str, Path]:
    """The tree of commit ``rev`` (``git archive``) in ``benchmarks/.baseline-<sha>``: (sha, folder)."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", f"{rev}^{{commit}}"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", "") or str(e)
        raise ValueError(f"--baseline {rev!r} is not a commit of this repository: {detail.strip()}") from None
    folder = BENCH_DIR / f".baseline-{sha}"
    if not (folder / "micrograd" / "__init__.py").exists():
        tar = subprocess.run(
            ["git", "archive", "--format=tar", sha], cwd=REPO_ROOT, capture_output=True, check=True
        )
        staging = Path(tempfile.mkdtemp(prefix=f".baseline-{sha}-", dir=BENCH_DIR))
        with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
            if hasattr(tarfile, "data_filter"):  # Python 3.10.12 and later: refuse links out of the folder
                archive.extractall(staging, filter="data")
            else:  # our own repository's archive
                archive.extractall(staging)
        os.replace(staging, folder)  # whole or not at all
    return sha, folder


def with_baseline(workload: Workload, sha: str, folder: Path) -> Workload:
    """``workload`` with each of our rows run a second time on the engine of commit ``sha``."""
    engine = Engine(f"ours @ {sha}", folder)
    twins = tuple(
        dataclasses.replace(r, label=f"{r.label} @ {sha}", engine=engine)
        for r in workload.rows
        if r.engine == OURS
    )
    return dataclasses.replace(workload, rows=workload.rows + twins)


def compile_engines(workloads: list[Workload]) -> list[Path]:
    """Byte-compile the packages of every engine the rows import (``micrograd``, ``nn``), before any
    row runs: each worker then imports them from bytecode, as an installed wheel is, whichever tree
    it is.  With PYTHONDONTWRITEBYTECODE set, as on these machines, Python writes no bytecode on
    import, so a tree never compiled (a ``--baseline`` export) compiled every module from source in
    every worker: ``import micrograd`` measured 30.8 ms there against 9.56 ms for the working tree,
    whose import-time modules had bytecode from an earlier run.  Returns the folders compiled."""
    import compileall

    roots = {row.engine.path for w in workloads for row in w.rows if row.engine.path is not None}
    folders = [root / pkg for root in sorted(roots) for pkg in ("micrograd", "nn") if (root / pkg).is_dir()]
    for folder in folders:
        if not compileall.compile_dir(folder, quiet=1):
            raise RuntimeError(f"could not byte-compile {folder}: a module there has a syntax error")
    return folders


LOADS: list[float] = []  # the 1-minute load average as each worker starts: the JSON's machine.load


def run_row(row: Row, params: dict[str, Any], scratch: Path) -> dict[str, Any]:
    """One repetition of one row, in a fresh interpreter (the one running this driver)."""
    LOADS.append(os.getloadavg()[0])
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, str(WORKER), row.target, "--params", json.dumps(params)]
    if row.engine.path is not None:
        env["PYTHONPATH"] = str(row.engine.path)
        cmd += ["--engine-dir", str(row.engine.path)]
    if not row.gc:
        cmd.append("--gc-off")
    out = scratch / "result.json"
    out.unlink(missing_ok=True)
    proc = subprocess.run([*cmd, "--out", str(out)], env=env, capture_output=True, text=True)
    if not out.exists():  # the worker died before writing (killed, out of memory, a crash)
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"worker exited with {proc.returncode}: {' / '.join(tail)}"}
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def run_workload(workload: Workload, tiny: bool, reps: int | None, skip: set[str]) -> dict[str, Any]:
    """All repetitions of all rows of one workload, alternating the row order."""
    rows = [r for r in workload.rows if r.engine.name not in skip]
    params = workload.tiny_params if tiny else workload.params
    n_reps = reps if reps is not None else (workload.tiny_reps if tiny else workload.reps)
    runs: dict[str, list[dict[str, Any]]] = {r.label: [] for r in rows}
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        for rep in range(n_reps):
            for row in rows if rep % 2 == 0 else reversed(rows):
                result = run_row(row, params, Path(scratch))
                runs[row.label].append(result)
                print(
                    f"  {workload.key} rep {rep + 1}/{n_reps}  {row.label:<28} {_progress(result)}",
                    file=sys.stderr,
                )
    return report.summarise(workload, params, runs)


def _progress(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"ERROR {result['error']}"
    if "status" in result:
        return str(result["status"])
    samples = sorted(result["samples"])
    return f"median {samples[len(samples) // 2]:.4g}" if samples else "no samples"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tiny", action="store_true", help="every workload on tiny inputs, once (CI)")
    parser.add_argument(
        "--json",
        type=Path,
        help=f"where to save the results (default: {DEFAULT_JSON}; with --tiny: not saved)",
    )
    parser.add_argument("--reps", type=int, help="repetitions per row (default: per workload)")
    keys = [w.key for w in WORKLOADS]
    parser.add_argument("--only", nargs="+", choices=keys, metavar="WORKLOAD", help=f"a subset of {keys}")
    parser.add_argument(
        "--without-reference", action="store_true", help=f"skip the micrograd {REFERENCE_VERSION} rows"
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also run our rows on this engine as of git commit REV, in the same run, and compare",
    )
    args = parser.parse_args(argv)
    if args.reps is not None and args.reps < 1:
        parser.error(f"--reps must be at least 1, got {args.reps}")
    skip = {REFERENCE.name} if args.without_reference else set()
    if not args.without_reference and installed_version() != REFERENCE_VERSION:
        print(
            f"micrograd {REFERENCE_VERSION} is not installed in {REFERENCE_DIR}: run "
            "`python -m benchmarks.install_reference` (`make bench` does), or pass --without-reference",
            file=sys.stderr,
        )
        return 2
    selected = [w for w in WORKLOADS if args.only is None or w.key in args.only]
    sha = None
    if args.baseline is not None:
        try:
            sha, folder = export_commit(args.baseline)
        except ValueError as e:
            parser.error(str(e))
        selected = [with_baseline(w, sha, folder) for w in selected]
    compile_engines(selected)
    summary = {w.key: run_workload(w, args.tiny, args.reps, skip) for w in selected}
    doc: dict[str, Any] = {
        "machine": report.machine(),
        "mode": "tiny" if args.tiny else "full",
        "workloads": summary,
        "targets": report.check_targets(summary),
    }
    if LOADS:
        doc["machine"]["load"] = report.load_summary(
            LOADS, "the 1-minute load average as each worker started"
        )
    if sha is not None:
        doc["baseline"] = {"commit": sha, "comparison": report.against_baseline(summary, sha)}
    print()
    print(report.table(summary))
    print()
    print(report.machine_text(doc["machine"]))
    if not args.tiny:
        print("\nTargets (issues 5 and 15, lean core, microgpt track, learnability):")
        print(report.targets_text(doc["targets"]))
    if sha is not None:
        print(
            f"\nThis engine against commit {sha} (ratio of medians, this / {sha}; < 1 is faster or smaller):"
        )
        print(report.baseline_text(doc["baseline"]["comparison"]))
    path = args.json if args.json is not None else (None if args.tiny else DEFAULT_JSON)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"\nsaved {path}")
    failed = [
        f"{w}: {label}: {e['status']}"
        for w, s in summary.items()
        for label, e in s["rows"].items()
        if e["status"] != "ok" and e["status"] not in e["tolerated"]
    ]
    for line in failed:
        print(f"FAILED {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
