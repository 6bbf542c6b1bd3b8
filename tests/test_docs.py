"""The documentation site: every ```python block of every page runs and shows what the page claims
(the README's harness), and every page is in the site's navigation.  `make docs` builds the site
itself with `mkdocs build --strict` (in CI), which fails on a broken link, page or docstring."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_readme import run_document

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted([DOCS / "index.md", *(DOCS / "pages").glob("*.md")])


# The lecture path trains micrograd's moons classifier for its 100 steps, as the lecture does: tens of
# seconds, so it is a slow test (`make test` runs it, `make test-fast` leaves it out; tests/tiers.py).
SLOW_PAGES = {DOCS / "pages" / "tour.md"}


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, marks=pytest.mark.slow) if p in SLOW_PAGES else p for p in PAGES],
    ids=lambda p: str(p.relative_to(DOCS)),
)
def test_page_blocks_run_and_claims_hold(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_document(page, tmp_path, monkeypatch)


def test_every_page_and_notebook_is_in_the_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    for page in PAGES:
        assert str(page.relative_to(DOCS)) in config, page
    for notebook in sorted((DOCS / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{notebook.name}" in config, notebook
    for reference in sorted((DOCS / "reference").glob("*.md")):
        assert f"reference/{reference.name}" in config, reference


# The lecture path's steps, in the lecture's order (issue 35): each a heading of pages/tour.md.
LECTURE_STEPS = [
    "1. A value and its derivative, by hand",
    "2. The chain rule, by hand",
    "3. `Value` and `backward()`",
    "4. A neuron",
    "5. An MLP",
    "6. The training loop",
]


def test_the_lecture_path_follows_the_lecture_with_code_and_a_picture_at_each_step() -> None:
    text = (DOCS / "pages" / "tour.md").read_text()
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings[: len(LECTURE_STEPS)] == LECTURE_STEPS
    sections = re.split(r"^## .+$", text, flags=re.MULTILINE)[1 : len(LECTURE_STEPS) + 1]
    for step, section in zip(LECTURE_STEPS, sections):
        assert "```python\n" in section, f"{step}: no code that runs"
        images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", section)
        assert images, f"{step}: no picture"
        for image in images:  # mkdocs --strict checks them too, but only where the site is built
            assert (DOCS / "pages" / image).resolve().is_file(), f"{step}: {image} is missing"
    # The numerical derivative comes before any Value: the lecture starts by hand.
    assert text.index("(f(x + h) - f(x)) / h") < text.index("Value(")
