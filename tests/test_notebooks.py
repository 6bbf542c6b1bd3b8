"""Every notebook in docs/notebooks runs top to bottom in a real Jupyter kernel, and says what it should.

The notebooks are committed without outputs (docs/notebooks/README.md says why); these tests execute them
with nbclient and ipykernel (the `dev` extra), fail on any error, and check a few key outputs.  The
exercise notebook runs twice: as a student gets it (every check says TODO), and with the solution cells of
02_solutions in place of its exercise cells (every check says OK).
"""

from __future__ import annotations

import copy
import itertools
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (the dev extra has it)")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (the dev extra has it)")
pytest.importorskip("ipykernel", reason="ipykernel is not installed (the dev extra has it)")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "docs" / "notebooks"


def load(name: str) -> Any:
    return nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)


def execute(nb: Any, cwd: Path) -> Any:
    """Run every cell in a fresh python3 kernel (nbclient raises CellExecutionError on the first error)."""
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()
    for cell in nb.cells:  # no warnings, no tracebacks printed by a cell that did not raise
        for out in cell.get("outputs", []):
            assert not (out["output_type"] == "stream" and out["name"] == "stderr"), out["text"]
    return nb


def text_of(cell: Any) -> str:
    """What a cell showed, as text: its stream output and the text/plain of its results."""
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif out["output_type"] in ("execute_result", "display_data"):
            parts.append(out["data"].get("text/plain", ""))
    return "".join(parts)


def mimetypes(nb: Any) -> set[str]:
    return {
        key
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out["output_type"] in ("execute_result", "display_data")
        for key in out["data"]
    }


def tagged(nb: Any, tag: str) -> list[Any]:
    return [c for c in nb.cells if tag in c.metadata.get("tags", [])]


def test_the_notebooks_are_committed_without_outputs() -> None:
    names = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert names == [
        "01_value_and_backprop.ipynb",
        "02_solutions.ipynb",
        "02_write_your_own_op.ipynb",
        "03_train_a_classifier.ipynb",
        "04_microgpt.ipynb",
        "05_build_micrograd_yourself.ipynb",
        "05_solutions.ipynb",
    ]
    for name in names:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name} has outputs"


def test_value_and_backprop(tmp_path: Path) -> None:
    from tests.graphviz_support import has_dot

    if not has_dot():
        pytest.skip("the notebook draws graphs, and Graphviz's `dot` executable is not on PATH")
    nb = execute(load("01_value_and_backprop"), tmp_path)
    shown = "".join(text_of(c) for c in nb.cells)
    assert "6.0 6.0" in shown  # dL/da by hand and by central differences
    assert "dL/da = 6.0  dL/db = -4.0  dL/dc = -2.0  dL/df = 4.0" in shown
    assert "Backpropagation from L = -8.0000 through 7 Values" in shown
    assert "o = 0.7071, do/dw1 = 1.0000, do/dw2 = 0.0000, do/db = 0.5000" in shown
    assert {"image/svg+xml", "text/html"} <= mimetypes(nb)  # the graphs, and the explorer inline
    # the lecture's all-tanh net and its 4-sample loop: 20 steps, read back from what the cell printed
    sources = "".join(c.source for c in nb.cells)
    assert 'MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh"' in sources
    assert "p.grad = 0.0" in sources and "p.data += -0.05 * p.grad" in sources
    assert "MLP(3, [4, 4, 1], activation=['tanh', 'tanh', 'tanh']) with 41 parameters" in shown
    (loop,) = [c for c in nb.cells if "p.data += -0.05 * p.grad" in c.source]
    steps = [line.split() for line in text_of(loop).splitlines()]
    assert [int(k) for k, _ in steps] == list(range(20))
    losses = [float(v) for _, v in steps]
    assert losses[-1] < 0.1 * losses[0]  # converged, as in the video
    assert all(b < a for a, b in itertools.pairwise(losses))  # and went down at every step
    assert f"loss {losses[0]:.4f} -> " in shown
    # the batch's loss in boxes: the explorer inline, each sample's MLP call a closed box
    (boxes,) = [c for c in nb.cells if "scopes=scopes" in c.source]
    page = "".join(str(out.get("data", {}).get("text/html", "")) for out in boxes.outputs)
    assert "mg-box" in page and "MLP (4)" in page and "parameters of layers.0" in page


def with_solutions(exercises: str = "02_write_your_own_op", answers: str = "02_solutions") -> Any:
    """An exercise notebook (02_write_your_own_op) with each exercise cell replaced by the solutions
    notebook's (02_solutions) cell for it."""
    nb = load(exercises)
    solutions = {c.metadata["exercise"]: c for c in tagged(load(answers), "solution")}
    exercises = tagged(nb, "exercise")
    assert sorted(c.metadata["exercise"] for c in exercises) == sorted(solutions)
    for cell in exercises:
        cell.source = solutions[cell.metadata["exercise"]].source
    return nb


def verdicts(nb: Any) -> list[str]:
    """The check verdicts the notebook showed, in order."""
    return [line for c in nb.cells for line in text_of(c).splitlines() if line.startswith("verdict: ")]


# What the cells before the exercises show: a first attempt at cos (WRONG), the fixed one (RIGHT),
# Python's math.exp (right, except where it raises), an endless backward, then sin written two ways.
INTRODUCTION = [
    "verdict: WRONG (backward)",
    "verdict: RIGHT",
    "verdict: RIGHT, EXCEPT AT EDGES (forward)",
    "verdict: TIMED OUT (backward)",
    "verdict: RIGHT",
    "verdict: RIGHT",
]


def test_write_your_own_op_with_the_solutions_filled_in(tmp_path: Path) -> None:
    nb = execute(with_solutions(), tmp_path)
    checks = tagged(nb, "check")
    assert [c.metadata["exercise"] for c in checks] == ["tanh", "exp", "sigmoid", "mul", "leaky_relu"]
    for cell in checks:
        assert len(cell.outputs) == 1  # shown once: the table, not also the returned object
        shown = text_of(cell)
        statuses = [line.split()[0] for line in shown.splitlines() if not line.startswith(" ")]
        assert statuses == ["OK", "OK", "OK", "OK", "verdict:"], shown
        assert shown.splitlines()[-1] == "verdict: RIGHT"
        html = "".join(o["data"].get("text/html", "") for o in cell.outputs if "data" in o)
        assert '#1a7f37">RIGHT</b> (all checks passed)' in html  # the coloured table
    shown = "".join(text_of(c) for c in nb.cells)
    assert "SKIP  second order: grad(create_graph=True) does not run through your backward" in shown
    assert "WRONG backward: at x = " in shown and "hint: d/dx cos(x) = -sin(x)" in shown  # MyCos at first
    assert "EDGE  forward: right at 33 of 34 points; only at the edges it differs: at x = 1000" in shown
    assert "hint: `return math.exp(x)  # raises OverflowError at x = 1000` raised OverflowError" in shown
    assert "TIMEOUT backward: your backward ran longer than 0.5 s at x = " in shown  # EndlessExp, stopped
    assert verdicts(nb) == INTRODUCTION + ["verdict: RIGHT"] * 5  # the stub's verdict first, then RIGHT
    assert "Backpropagation from y" in shown  # the student's ops in explain


def test_write_your_own_op_as_a_student_gets_it_says_todo(tmp_path: Path) -> None:
    nb = load("02_write_your_own_op")
    last_check = max(i for i, c in enumerate(nb.cells) if "check" in c.metadata.get("tags", []))
    nb.cells = nb.cells[: last_check + 1]  # the cells after it use the finished ops
    nb = execute(nb, tmp_path)
    for cell in tagged(nb, "check"):
        assert text_of(cell).startswith("TODO  forward: My"), text_of(cell)
        assert text_of(cell).splitlines()[-1] == "verdict: NOT WRITTEN YET (forward)"
    assert verdicts(nb) == INTRODUCTION + ["verdict: NOT WRITTEN YET (forward)"] * 5


def test_the_solutions_notebook_runs_on_its_own(tmp_path: Path) -> None:
    nb = execute(copy.deepcopy(load("02_solutions")), tmp_path)
    for cell in tagged(nb, "check"):
        assert "WRONG" not in text_of(cell) and "TODO" not in text_of(cell)


def pixel_counts(cell: Any, colours: list[str]) -> list[int]:
    """How many pixels of the cell's PNG have exactly each of ``colours`` (hex, #rrggbb)."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    (png,) = [o["data"]["image/png"] for o in cell.outputs if "image/png" in o.get("data", {})]
    rgb = np.asarray(Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB")).reshape(-1, 3)
    wanted = [tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in colours]
    return [int(np.all(rgb == np.array(w), axis=1).sum()) for w in wanted]


def test_train_a_classifier(tmp_path: Path) -> None:
    from demos.moons import COLOURS, REGIONS

    nb = execute(load("03_train_a_classifier"), tmp_path)
    shown = "".join(text_of(c) for c in nb.cells)
    assert "MLP(2, [16, 16, 1], activation=['relu', 'relu', 'linear']) with 337 parameters" in shown
    assert "step  0: loss 0.9094, accuracy" in shown
    assert "training accuracy 100%" in shown
    assert "image/png" in mimetypes(nb)  # the moons, the loss curve, the decision boundary
    assert (tmp_path / "training.html").read_text().lower().startswith("<!doctype html>")
    assert "the replay of 60 steps, in training.html" in shown
    # the moons demo's colours: its class colours for the points, its region colours for the boundary
    moons = next(c for c in nb.cells if 'ax.set_title("two moons")' in c.source)
    assert all(n > 50 for n in pixel_counts(moons, COLOURS)), pixel_counts(moons, COLOURS)
    (boundary,) = [c for c in nb.cells if "decision boundary on a" in text_of(c)]
    regions, points = pixel_counts(boundary, REGIONS), pixel_counts(boundary, COLOURS)
    assert all(n > 10_000 for n in regions) and all(n > 50 for n in points), (regions, points)
    assert pixel_counts(boundary, ["#c6dbef", "#fcbba1", "#1f77b4", "#d62728"]) == [0, 0, 0, 0]  # no others
    # a fine grid (a blocky 20 x 20 or 40 x 40 one is not smooth), filled by the score's 0 level
    sides = text_of(boundary).split("decision boundary on a ")[1].split(" grid")[0].split(" x ")
    assert all(int(n) >= 100 for n in sides), sides
    assert "ax.contourf(xx, yy, zz, levels=" in boundary.source


def test_microgpt(tmp_path: Path) -> None:
    nb = execute(load("04_microgpt"), tmp_path)
    shown = "".join(text_of(c) for c in nb.cells)
    assert "27 tokens" in shown and "a document: [26, 4, 12, 12, 0, 26]" in shown
    assert "layer0.mlp_fc1    64 x 16" in shown and "4192 parameters" in shown
    line = shown.split("mean loss of the first 20 steps ")[1].splitlines()[0]
    first, last = (float(x) for x in line.split(", of the last 20 "))
    assert last < first
    assert "each row sums to 1: True" in shown
    assert "image/png" in mimetypes(nb)


# Notebook 05: a learner's own Value class, one method per cell, each graded by check_engine.
BUILD = "05_build_micrograd_yourself"
BUILD_CHECKS = ["add", "mul", "backward", "pow", "exp", "tanh", "relu", "log", "all"]


def last_line(cell: Any) -> str:
    return text_of(cell).splitlines()[-1]


def test_build_micrograd_yourself_as_a_learner_gets_it_says_not_written_yet(tmp_path: Path) -> None:
    nb = execute(load(BUILD), tmp_path)
    checks = tagged(nb, "check")
    assert [c.metadata["exercise"] for c in checks] == BUILD_CHECKS
    for cell in checks:
        assert len(cell.outputs) == 1  # the table, shown once
        assert last_line(cell).startswith("verdict: NOT WRITTEN YET"), text_of(cell)
        assert "WRONG" not in text_of(cell)
    assert "TODO  microgpt: backward: not written yet: __add__" in text_of(checks[-1])
    (run,) = tagged(nb, "microgpt")
    shown = text_of(run)
    assert "not ready for microgpt yet: microgpt: backward is NOT WRITTEN YET" in shown
    assert len(shown.split("micrograd's Value: ")[1].split()) == 3  # our losses, all the same


def test_build_micrograd_yourself_with_the_solutions_trains_microgpt_on_the_learners_value(
    tmp_path: Path,
) -> None:
    nb = execute(with_solutions(BUILD, "05_solutions"), tmp_path)
    checks = tagged(nb, "check")
    before_backward = "verdict: RIGHT SO FAR (not written yet: backward())"
    assert [last_line(c) for c in checks] == [before_backward] * 2 + ["verdict: RIGHT"] * 7
    shown = text_of(checks[-1])
    assert "OK    backward: topological order" in shown and "OK    microgpt: backward: all 4192" in shown
    html = "".join(o["data"].get("text/html", "") for o in checks[-1].outputs if "data" in o)
    assert '#1a7f37">RIGHT</b> (all checks passed)' in html
    (run,) = tagged(nb, "microgpt")
    rows = [line.split() for line in text_of(run).splitlines()[1:-1]]
    assert [int(r[0]) for r in rows] == [0, 1, 2]
    assert all(r[1] == r[2] for r in rows) and 3.0 < float(rows[0][1]) < 3.6  # ln 27 is 3.30
    assert last_line(run) == "the same losses: True"


def test_the_05_solutions_notebook_runs_on_its_own(tmp_path: Path) -> None:
    nb = execute(copy.deepcopy(load("05_solutions")), tmp_path)
    checks = tagged(nb, "check")
    assert [c.metadata["exercise"] for c in checks] == BUILD_CHECKS
    assert not any("WRONG" in text_of(c) for c in checks)
    assert last_line(checks[-1]) == "verdict: RIGHT"
