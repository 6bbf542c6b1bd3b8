"""The docs site's table of contents of each notebook page names every heading: mkdocs-jupyter
builds it from the notebook's markdown with every `code` span taken out, so a heading that is
only code (### `__add__`) became an empty entry a learner could not find or click.  Notebook 05's
contents name each exercise in words, in the order a learner writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
BUILD = ROOT / "docs" / "notebooks" / "05_build_micrograd_yourself.ipynb"


def contents(notebook: Path) -> list[tuple[int, str]]:
    """The page's table of contents as mkdocs-jupyter makes it: (level, title) in order."""
    plugin = pytest.importorskip(
        "mkdocs_jupyter.plugin", reason="mkdocs-jupyter (the docs extra) is not installed"
    )
    toc, _ = plugin.get_nb_toc(str(notebook), 6)

    def walk(items: Any) -> list[tuple[int, str]]:
        return [entry for item in items for entry in [(item.level, item.title), *walk(item.children)]]

    return walk(toc)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_every_heading_of_a_notebook_page_is_named_in_its_contents(notebook: Path) -> None:
    entries = contents(notebook)
    assert entries, f"{notebook.name}: no table of contents"
    empty = [level for level, title in entries if not title.strip(" ,.:;·()-–—")]
    assert empty == [], f"{notebook.name}: {len(empty)} headings with no name in the contents: {entries}"


def test_notebook_05_contents_name_each_exercise_in_order() -> None:
    exercises = [title for level, title in contents(BUILD) if level == 3]
    assert exercises == [
        "1. Addition, a + b",
        "2. Multiplication, a · b",
        "3. Backward: every gradient, in reverse topological order",
        "4. Powers, aⁿ",
        "5. The exponential, exp(x)",
        "6. The hyperbolic tangent, tanh(x)",
        "7. ReLU, relu(x)",
        "8. The logarithm, log(x)",
        "The whole class",
    ]
