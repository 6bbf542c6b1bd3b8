"""The documentation site: every ```python block of every page runs and shows what the page claims
(the README's harness), and every page is in the site's navigation.  `make docs` builds the site
itself with `mkdocs build --strict` (in CI), which fails on a broken link, page or docstring."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_readme import run_document

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted([DOCS / "index.md", *(DOCS / "pages").glob("*.md")])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
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
