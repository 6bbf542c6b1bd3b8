"""Turning raw worker results into a summary, a markdown table and a JSON document."""

from __future__ import annotations

import datetime
import math
import os
import platform
import statistics
import subprocess
from typing import Any

from .suite import REPO_ROOT, TARGETS, Target, Workload


def machine() -> dict[str, Any]:
    """What the numbers were measured on: CPU, Python, OS, date, and the repository's commit."""
    return {
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "numpy": _numpy_version(),
        "commit": _git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _numpy_version() -> str | None:
    try:
        import numpy
    except ImportError:
        return None
    return str(numpy.__version__)


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def max_rel_diff(a: list[float], b: list[float]) -> float:
    """max |a_i - b_i| / max(|a_i|, |b_i|) (0 where both are 0); inf if the lengths differ."""
    if len(a) != len(b):
        return math.inf
    worst = 0.0
    for x, y in zip(a, b):
        scale = max(abs(x), abs(y))
        if scale:
            worst = max(worst, abs(x - y) / scale)
    return worst


def summarise(
    workload: Workload, params: dict[str, Any], runs: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """One entry per row: median of all samples, status, agreement with the baseline, ratios."""
    rows: dict[str, dict[str, Any]] = {}
    for label, results in runs.items():
        errors = [r["error"] for r in results if "error" in r]
        statuses = sorted({r["status"] for r in results if "status" in r})
        samples = [s for r in results for s in r.get("samples", [])]
        entry: dict[str, Any] = {
            "engine": workload.row(label).engine.name,
            "gc": workload.row(label).gc,
            "tolerated": list(workload.row(label).tolerated),
            "median": statistics.median(samples) if samples and not errors and not statuses else None,
            "status": errors[0] if errors else ("; ".join(statuses) if statuses else "ok"),
            "repetitions": len(results),
            "samples": samples,
        }
        for key in (
            "micrograd_version",
            "build_s",
            "trace_s",
            "nodes",
            "retained_bytes",
            "backward_peak_bytes",
            "page_bytes",
            "values",
            "modules",
            "all_modules",
            "run_s",
        ):
            values = [r[key] for r in results if key in r]
            if values:
                entry[key] = values[0] if isinstance(values[0], str) else statistics.median(values)
        rows[label] = entry
    key = workload.agreement
    if key:
        for label, results in runs.items():
            if rows[label]["status"] == "ok" and key in results[0]:  # (a row may have none to compare)
                rows[label][key] = results[0][key]  # the first repetition's, e.g. the loss trajectory
        base = workload.baselines[0] if workload.baselines else None
        if base in runs and rows[base]["status"] == "ok":
            reference = runs[base][0][key]
            for label, results in runs.items():
                if rows[label]["status"] == "ok" and key in results[0]:
                    rows[label][f"{key}_max_rel_diff"] = max(max_rel_diff(r[key], reference) for r in results)
    for entry in rows.values():
        entry["vs"] = {}
        for b in workload.baselines:
            if b in rows and entry["median"] and rows[b]["median"]:
                entry["vs"][b] = rows[b]["median"] / entry["median"]  # > 1: this row is faster / smaller
    return {
        "title": workload.title.format(**params),
        "unit": workload.unit,
        "note": workload.note,
        "params": params,
        "baselines": list(workload.baselines),
        "agreement": workload.agreement,
        "rows": rows,
    }


def check_targets(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of suite.TARGETS with the measured value and whether it is met (None: not measured)."""
    out = []
    for t in TARGETS:
        value, met = _measure(t, summary)
        out.append({"target": t.text, "value": value, "met": met})
    return out


def _measure(t: Target, summary: dict[str, Any]) -> tuple[float | None, bool | None]:
    """The measured value and whether it meets the goal (None: not measured, or no goal)."""
    rows = summary.get(t.workload, {}).get("rows", {})
    row, base = rows.get(t.row), rows.get(t.baseline)
    if row is None or row["median"] is None:
        return None, None
    if t.kind == "seconds":
        return row["median"], row["median"] < t.threshold
    if t.kind == "trace seconds":
        trace = row.get("trace_s")
        return (trace, trace < t.threshold) if trace is not None else (None, None)
    if t.kind == "run seconds":
        run = row.get("run_s")
        return (run, run <= t.threshold) if run is not None else (None, None)
    if t.kind == "page MB":
        size = row.get("page_bytes")
        return (size / 1e6, size / 1e6 <= t.threshold) if size is not None else (None, None)
    if t.kind == "agreement":
        diffs = [v for k, v in row.items() if k.endswith("_max_rel_diff")]
        return (diffs[0], diffs[0] <= t.threshold) if diffs else (None, None)
    if base is None or base["median"] is None:
        return None, None
    if t.kind == "speedup":
        speedup = base["median"] / row["median"]
        return speedup, None if t.threshold is None else speedup >= t.threshold
    if t.kind == "ratio":
        ratio = row["median"] / base["median"]
        return ratio, None if t.threshold is None else ratio <= t.threshold
    raise ValueError(f"unknown target kind {t.kind!r} in {t}")


def format_quantity(value: float, unit: str) -> str:
    if unit == "B":
        return f"{value:,.0f} B"
    for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if value >= scale:
            return f"{value / scale:.3g} {name}"
    return f"{value / 1e-9:.3g} ns"


def _ratio_cell(entry: dict[str, Any], label: str, baseline: str, unit: str) -> str:
    if label == baseline:
        return "baseline"
    if baseline not in entry["vs"]:
        return ""
    ratio = entry["vs"][baseline]
    better, worse = ("smaller", "larger") if unit == "B" else ("faster", "slower")
    factor, word = (ratio, better) if ratio >= 1 else (1 / ratio, worse)
    return f"{factor:,.0f}x {word}" if factor >= 100 else f"{factor:.3g}x {word}"


def _notes(entry: dict[str, Any], agreement: str | None, base: str | None) -> str:
    notes = []
    if agreement and f"{agreement}_max_rel_diff" in entry:
        notes.append(f"{agreement} max rel diff vs {base}: {entry[f'{agreement}_max_rel_diff']:.2g}")
    if "build_s" in entry:
        notes.append(f"build {format_quantity(entry['build_s'], 's')}")
    if "trace_s" in entry:
        notes.append(f"trace {format_quantity(entry['trace_s'], 's')}")
    if "nodes" in entry:
        notes.append(f"{entry['nodes']:,} nodes, {entry['retained_bytes'] / 1e6:.3g} MB")
    if "page_bytes" in entry:
        notes.append(f"{entry['values']:,.0f} Values, page {entry['page_bytes'] / 1e6:.3g} MB")
    if "modules" in entry:
        notes.append(f"{entry['modules']:.0f} of micrograd's modules, {entry['all_modules']:.0f} in all")
    if "backward_peak_bytes" in entry:
        notes.append(f"backward peak {entry['backward_peak_bytes'] / 1e6:.3g} MB")
    return "; ".join(notes)


def table(summary: dict[str, Any]) -> str:
    """The results as a markdown table, one line per row of every workload."""
    baselines: list[str] = []
    for w in summary.values():
        for entry in w["rows"].values():
            baselines += [b for b in entry["vs"] if b not in baselines]
    header = ["workload", "engine", "median", *[f"vs {b}" for b in baselines], "notes"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for w in summary.values():
        agreement, base = w["agreement"], (w["baselines"] or [None])[0]
        title = w["title"]
        for label, entry in w["rows"].items():
            value = (
                format_quantity(entry["median"], w["unit"])
                if entry["median"] is not None
                else entry["status"]
            )
            cells = [title, label, value]
            cells += [_ratio_cell(entry, label, b, w["unit"]) for b in baselines]
            cells.append(_notes(entry, agreement if label != base else None, base))
            lines.append("| " + " | ".join(cells) + " |")
            title = ""
    return "\n".join(lines)


def targets_text(targets: list[dict[str, Any]]) -> str:
    lines = []
    for t in targets:
        mark = {True: "met", False: "NOT met", None: "not measured"}[t["met"]]
        if t["met"] is None and t["value"] is not None:
            mark = "reported"
        value = "" if t["value"] is None else f" (measured {t['value']:.3g})"
        lines.append(f"- {t['target']}: {mark}{value}")
    return "\n".join(lines)


def load_summary(samples: list[float], how: str) -> dict[str, Any]:
    """The machine's load over a run: the least, median and most of the 1-minute load averages
    ``samples``, taken as ``how`` says (on a shared machine, what the absolute numbers went through)."""
    ordered = sorted(samples)
    return {
        "min": ordered[0],
        "median": ordered[len(ordered) // 2],
        "max": ordered[-1],
        "samples": len(ordered),
        "how": how,
    }


def machine_text(m: dict[str, Any]) -> str:
    load = m.get("load")
    return (
        f"Machine: {m['cpu']} ({m['logical_cpus']} logical CPUs), {m['implementation']} {m['python']}, "
        f"{m['platform']}, numpy {m['numpy']}; commit {m['commit']}; {m['date']}"
        + (
            f"; load average {load['min']:.1f} to {load['max']:.1f}, median {load['median']:.1f} "
            f"({load['samples']} samples: {load['how']})"
            if load
            else ""
        )
    )


# Issue 9's no-regression goals against the engine before it: (workload, our row, the most ratio allowed).
REGRESSION_LIMITS = {
    ("train_step", "ours"): 1.05,
    ("train_step", "ours, compiled replay"): 1.10,
    ("chain_backward", "ours"): 1.10,
}
BYTES_PER_NODE_LIMIT = 200.0


def against_baseline(summary: dict[str, Any], sha: str) -> list[dict[str, Any]]:
    """For each of our rows with a twin run on commit ``sha``: both medians, their ratio, and the goal."""
    out = []
    for key, entry in summary.items():
        for label, row in entry["rows"].items():
            twin = entry["rows"].get(f"{label} @ {sha}")
            if twin is None or row["median"] is None or twin["median"] is None:
                continue
            ratio = row["median"] / twin["median"]
            item: dict[str, Any] = {
                "workload": key,
                "row": label,
                "unit": entry["unit"],
                "this": row["median"],
                "baseline": twin["median"],
                "ratio": ratio,
            }
            limit = REGRESSION_LIMITS.get((key, label))
            if limit is not None:
                item["limit"], item["met"] = limit, ratio <= limit
            if key == "graph_memory":
                item["limit_bytes"], item["met"] = BYTES_PER_NODE_LIMIT, row["median"] <= BYTES_PER_NODE_LIMIT
            out.append(item)
    return out


def baseline_text(items: list[dict[str, Any]]) -> str:
    lines = []
    for it in items:
        goal = ""
        if "limit" in it:
            goal = f"  goal <= {it['limit']:.2f}: {'met' if it['met'] else 'NOT met'}"
        elif "limit_bytes" in it:
            goal = f"  goal <= {it['limit_bytes']:.0f} B: {'met' if it['met'] else 'NOT met'}"
        lines.append(
            f"  {it['workload']:<15} {it['row']:<24} {format_quantity(it['this'], it['unit']):>10} vs "
            f"{format_quantity(it['baseline'], it['unit']):>10}  ratio {it['ratio']:.3f}{goal}"
        )
    return "\n".join(lines)
