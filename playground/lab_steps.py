"""The lab's steps (the playground's "Build micrograd" tab), read at build time from notebook 05
and its solutions, so that the lab and the notebook cannot drift apart: each step's title and
explanation (the notebook's markdown), the learner's starting code (the exercise's cell), the
solution (the solutions notebook's cell, in the same place) and the parts ``check_engine`` grades
(the ``only=`` of the notebook's own check cell).  ``scripts/build_playground.py`` writes them as
``lab_steps.json`` beside the page.

>>> data = read_steps()
>>> [s["title"] for s in data["steps"]][:3]
['The Value class', '1. Addition, a + b', '2. Multiplication, a · b']
>>> data["steps"][3]["only"], data["steps"][-1]["only"]
(['+', '*', 'backward'], None)
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parent.parent / "docs" / "notebooks"
EXERCISE = NOTEBOOKS / "05_build_micrograd_yourself.ipynb"
SOLUTIONS = NOTEBOOKS / "05_solutions.ipynb"
#: Which expression "Show me this step in the explorer" draws for each step: a case of
#: ``check_engine`` (``micrograd.exercises.engine.cases``), by the step's first graded part.
EXPLORE = {
    "+": ["op", "+", 1],
    "*": ["lecture", 0],
    "backward": ["topological"],
    "**": ["op", "/", 1],
    "exp": ["op", "exp", 1],
    "tanh": ["lecture", 1],
    "relu": ["op", "relu", 2],
    "log": ["op", "log", 1],
    "all": ["lecture", 1],
}


def cells(path: Path) -> list[tuple[str, str]]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [(c["cell_type"], "".join(c["source"])) for c in notebook["cells"]]


def graded(source: str) -> list[str] | bool | None:
    """The ``only=`` of a check cell (None: every part), or False when it is no check cell."""
    tree = ast.parse(source)
    calls = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "check_engine"
    ]
    if not calls:
        return False
    for keyword in calls[0].keywords:
        if keyword.arg == "only":
            only = ast.literal_eval(keyword.value)
            return [only] if isinstance(only, str) else list(only)
    return None


def read_steps(exercise: Path = EXERCISE, solutions: Path = SOLUTIONS) -> dict[str, Any]:
    """The header (imports), the steps (the class first) and the finale's text."""
    mine, theirs = cells(exercise), cells(solutions)
    if [kind for kind, _ in mine[: len(theirs)]] != [kind for kind, _ in theirs]:
        raise SystemExit(f"lab_steps: {solutions.name} does not follow {exercise.name} cell by cell")
    header = mine[1][1]
    steps: list[dict[str, Any]] = [
        {
            "title": "The Value class",
            "text": mine[2][1],
            "starter": mine[3][1],
            "solution": theirs[3][1],
            "only": None,
            "check": False,
            "explore": None,
        }
    ]
    finale = ""
    for k, (kind, source) in enumerate(mine):
        if kind == "markdown" and source.startswith("## "):
            finale = source.split("\n", 1)[1].strip()
            break
        if kind != "markdown" or not source.startswith("### "):
            continue
        title, _, text = source[4:].partition("\n")
        step: dict[str, Any] = {
            "title": title.strip(),
            "text": text.strip(),
            "starter": None,
            "solution": None,
        }
        for j in range(k + 1, len(mine)):
            if mine[j][0] != "code":
                break
            only = graded(mine[j][1])
            if only is False:
                step["starter"], step["solution"] = mine[j][1], theirs[j][1]
            else:
                step["only"], step["check"] = only, True
                break
        parts = step.get("only") or ["all"]
        step["explore"] = EXPLORE["backward" if "backward" in parts else parts[0]]
        steps.append(step)
    return {"header": header, "steps": steps, "finale": finale}


def write_steps(out: Path) -> Path:
    """``lab_steps.json`` in ``out``."""
    path = out / "lab_steps.json"
    path.write_text(json.dumps(read_steps(), ensure_ascii=False, indent=1), encoding="utf-8")
    return path
