"""docs/pages/demos.md's table of the flags CI runs each demo with is what `.ci/run` runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "pages" / "demos.md").read_text()
CI_RUN = (ROOT / ".ci" / "run").read_text()
COMMON = {"--quiet"}  # every CI run of a demo is quiet, and writes its PNGs to a folder of its own


def ci_runs() -> dict[str, list[str]]:
    """Each demo's runs in `.ci/run`, in order: the flags besides ``--quiet`` and ``--out DIR``."""
    runs: dict[str, list[str]] = {}
    for line in CI_RUN.splitlines():
        found = re.search(r"-m demos\.(\w+)\s(.*)$", line)
        if not found or found.group(1) == "check_pngs":
            continue
        words = shlex.split(found.group(2), posix=True)
        out = words.index("--out")
        flags = [w for w in words[:out] + words[out + 2 :] if w not in COMMON]
        runs.setdefault(found.group(1), []).append(" ".join(flags))
    return runs


def page_table() -> dict[str, list[str]]:
    """The page's table of CI's runs: each demo's, in order, as the flags of each (``none``: no flags)."""
    section = PAGE[PAGE.index("| demo | CI's flags |") :]
    table: dict[str, list[str]] = {}
    for demo, cell in re.findall(r"^\| (\w+) \| (.+) \|$", section, re.M):
        if demo != "demo":  # (the header)
            table[demo] = ["" if run == "none" else run.split("`")[1] for run in cell.split("; ")]
    return table


def test_the_page_gives_the_flags_ci_runs_each_demo_with() -> None:
    runs = ci_runs()
    assert set(runs) >= {"moons", "spirals", "digits", "names_gpt"}, "`.ci/run`'s demo lines were not found"
    assert page_table() == runs  # (a row for every demo CI runs, and no other)
    demos = {p.stem for p in (ROOT / "demos").glob("*.py") if not p.stem.startswith("_")} - {"check_pngs"}
    assert set(runs) <= demos
