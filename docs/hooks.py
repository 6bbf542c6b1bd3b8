"""MkDocs hooks: doctests shown as code, and the benchmark page's plots from the committed run.

* ``on_config`` adds a Markdown preprocessor that fences the docstrings' doctest examples
  (``>>>`` lines and their output) as code, so the API reference shows them as such.
* ``on_page_markdown`` appends to pages/benchmarks.md one plot per workload (the median of each
  row, on a log scale) and the machine the run was made on; ``on_files`` adds the plots, drawn
  by matplotlib as SVG at build time from ``benchmarks/results/latest.json``.  Nothing is fetched.
* ``on_files`` also builds the playground (``scripts/build_playground.py``: Pyodide's runtime from
  the npm package pinned in ``playground/package-lock.json``, installed by ``npm ci``, and this
  project's wheel) into ``playground/build/`` and adds it to the site as ``playground/``; not when
  ``MICROGRAD_DOCS_PLAYGROUND=0`` is set (tests/test_docs_pages_browser.py measures every other
  page, where npm and the playground's minutes change nothing).
"""

from __future__ import annotations

import html
import json
import math
import os
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "latest.json"
PAGE = "pages/benchmarks.md"
FOLDER = "pages/bench"  # where the plots go, in the built site


def _run() -> dict[str, Any]:
    return json.loads(RESULTS.read_text())  # type: ignore[no-any-return]


def _measured(rows: dict[str, Any]) -> list[tuple[str, float]]:
    return [
        (label, row["median"])
        for label, row in rows.items()
        if row.get("status") == "ok" and row.get("median")
    ]


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    run = _run()
    m = run["machine"]
    lines = [
        "",
        "## The committed run, plotted",
        "",
        f"Drawn when this site was built from `benchmarks/results/latest.json`: commit {m['commit']}, "
        f"{m['date'][:10]}, on {html.escape(m['cpu'])} ({m['logical_cpus']} logical CPUs), "
        f"{m['implementation']} {m['python']}, numpy {m['numpy']}, {html.escape(m['platform'])}.",
        "",
    ]
    for name, workload in run["workloads"].items():
        if _measured(workload["rows"]):
            lines += [f"![{html.escape(workload['title'])}](bench/{name}.svg)", ""]
    return markdown.rstrip() + "\n" + "\n".join(lines)


class DoctestFences(Preprocessor):
    """A docstring's doctest (``>>>`` lines, ``...`` lines and the output up to a blank line)
    as a fenced ``pycon`` block; text already inside a fence is left alone."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fence = in_doctest = False
        for line in lines:
            if line.lstrip().startswith("```"):
                fence = not fence
            elif not fence and not in_doctest and line.startswith(">>> "):
                out.append("```pycon")
                in_doctest = True
            elif in_doctest and not line.strip():
                out.append("```")
                in_doctest = False
            out.append(line)
        if in_doctest:
            out.append("```")
        return out


class DoctestExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        md.preprocessors.register(DoctestFences(md), "doctest_fences", 40)


def on_config(config: Any) -> Any:
    config["markdown_extensions"].append(DoctestExtension())
    return config


def _plot(workload: dict[str, Any]) -> bytes:
    """The workload's medians as a horizontal bar chart, SVG."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, medians = zip(*_measured(workload["rows"]))
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(labels) + 1.4))
    ax.barh(range(len(labels)), medians, color=["#1c7ed6" if "ours" in lab else "#adb5bd" for lab in labels])
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    if max(medians) / min(medians) > 20:
        ax.set_xscale("log")
    unit = workload.get("unit", "s")
    ax.set_xlabel(f"median ({unit}{', log scale' if ax.get_xscale() == 'log' else ''})")
    ax.set_title(workload["title"], fontsize=10)
    for i, v in enumerate(medians):
        ax.text(v, i, f" {v:.3g} {unit}" if math.isfinite(v) else " n/a", va="center", fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    return buffer.getvalue()


PLAYGROUND_BUILD = ROOT / "playground" / "build"  # git-ignored; holds playground/ as the site has it


def _playground(files: Files, config: Any) -> None:
    import importlib.util

    script = ROOT / "scripts" / "build_playground.py"
    spec = importlib.util.spec_from_file_location("build_playground", script)
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    out = PLAYGROUND_BUILD / "playground"
    builder.build(out)
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        rel = path.relative_to(PLAYGROUND_BUILD).as_posix()
        files.append(File(rel, str(PLAYGROUND_BUILD), config["site_dir"], config["use_directory_urls"]))


def on_files(files: Files, config: Any) -> Files:
    for name, workload in _run()["workloads"].items():
        if _measured(workload["rows"]):
            files.append(File.generated(config, f"{FOLDER}/{name}.svg", content=_plot(workload)))
    if os.environ.get("MICROGRAD_DOCS_PLAYGROUND") != "0":
        _playground(files, config)
    return files
