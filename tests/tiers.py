"""Which tests `make test-fast` leaves out: five kinds, four needing a tool beyond Python, and the
slow runs, each taking seconds to minutes a test.  `make test` runs them all.

tests/conftest.py marks each collected test with the kinds ``kinds_of`` gives it; the markers are
registered in setup.cfg and the Makefile's test-fast target deselects them (tests/test_tiers.py
checks that the three agree, and that every test driving Chromium is marked).  A test marks itself
with ``@pytest.mark.slow``, or with ``@pytest.mark.browser`` when it starts Chromium other than
through tests/browser_support.py (the benchmark's playground row, in the benchmark's own worker).

A whole file is of a kind by its name (``FILES``, and every ``*_browser.py``).  In any other file
that imports tests/browser_support.py, a test is a browser test when it, or a fixture or helper it
uses, starts Chromium: found by reading the file, so a new browser test elsewhere is marked too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import cache
from pathlib import Path

#: Each kind of test left out of the fast tier, and why it is slow.
KINDS = {
    "browser": "drives a headless Chromium (tests/browser_support.py)",
    "notebook": "runs notebooks in a Jupyter kernel",
    "docs_build": "builds documentation pages with MkDocs",
    "demo": "runs the demos' scripts, plots included",
    "slow": "a long integration run, marked by hand: training to full accuracy, a whole demo",
}

#: Whole files of a kind, besides ``*_browser.py`` (all browser tests).
FILES = {
    "test_notebooks.py": {"notebook"},
    "test_docs_browser.py": {"docs_build"},
    "test_docs_notebooks_browser.py": {"docs_build", "notebook"},
    "test_docs_pages_browser.py": {"docs_build", "notebook"},
    "test_demos.py": {"demo"},
}

#: What starts Chromium: tests/browser_support.py's function and its module-scoped fixture.
STARTERS = frozenset({"chromium", "browser"})


def _called(node: ast.AST) -> set[str]:
    """The names a function calls, by name or as an attribute (``browser_support.chromium(...)``)."""
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            if isinstance(call.func, ast.Name):
                names.add(call.func.id)
            elif isinstance(call.func, ast.Attribute):
                names.add(call.func.attr)
    return names


@cache
def chromium_users(path: Path) -> frozenset[str]:
    """The functions of a test file (tests, fixtures and helpers) that start Chromium: those that
    call a starter, or call, or take as a fixture, a function that does."""
    functions = [
        node
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    uses = {f.name: _called(f) | {a.arg for a in f.args.args + f.args.kwonlyargs} for f in functions}
    found = set(STARTERS)
    while True:
        more = {name for name, used in uses.items() if used & found} - found
        if not more:
            return frozenset(found - STARTERS)
        found |= more


@cache
def drives_a_browser(path: Path) -> bool:
    """Whether a test file imports tests/browser_support.py, the one way the tests start Chromium."""
    imports = [
        n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.ImportFrom)
    ]
    return any(
        node.module == "tests.browser_support"
        or (node.module == "tests" and "browser_support" in {alias.name for alias in node.names})
        for node in imports
    )


def kinds_of(path: Path, test: str, fixtures: Iterable[str]) -> set[str]:
    """The kinds of the test function ``test`` of the file ``path``, which uses ``fixtures``."""
    kinds = set(FILES.get(path.name, ()))
    starts_chromium = drives_a_browser(path) and bool({test, *fixtures} & (chromium_users(path) | STARTERS))
    if path.name.endswith("_browser.py") or starts_chromium:
        kinds.add("browser")
    return kinds
