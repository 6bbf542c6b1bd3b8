"""Every page of the built documentation site in a headless Chromium at 1280x800 and 1024x768
(issue 46, item 6): no code block (``pre``) or table is wider than the page's text column. One wider
than that wraps or scrolls inside its own box: the element stays inside the column, and what it
holds beyond its width can be scrolled to in the nearest box around it that is within the column
(a ``pre`` with ``overflow-x: auto``, Material's ``code`` in it, a notebook cell's highlight box); a
box that clips it, or none at all, fails. And the page itself never scrolls sideways.

The site is built as ``make docs`` builds it (mkdocs.yml: its plugins, notebooks executed, hooks,
theme and stylesheets) into a temporary folder, all but the playground (``MICROGRAD_DOCS_PLAYGROUND=0``:
npm and minutes, and no page of text); ``MICROGRAD_SITE=/path/to/site`` measures a site built by
``make docs`` instead. Screenshots go to each test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import browser, console_errors, needs_browser, screenshot

yaml = pytest.importorskip("yaml", reason="building the pages needs MkDocs (docs extra)")
pytest.importorskip("mkdocs", reason="building the pages needs MkDocs (docs extra)")
pytest.importorskip("material", reason="building the pages needs mkdocs-material (docs extra)")
pytest.importorskip("mkdocs_jupyter", reason="building the notebook pages needs mkdocs-jupyter (docs extra)")
pytest.importorskip("mkdocstrings", reason="building the API reference needs mkdocstrings (docs extra)")

pytestmark = needs_browser
__all__ = ["browser"]  # the fixture, imported for the tests of this module

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SIZES = [(1280, 800), (1024, 768)]


def page_of(source: Path) -> str:
    """The built page of a source file of docs/ (use_directory_urls is off: a.md gives a.html,
    a folder's README.md its index.html)."""
    rel = source.relative_to(DOCS)
    if rel.name == "README.md":
        return (rel.parent / "index.html").as_posix()
    return rel.with_suffix(".html").as_posix()


# Every page the site has: each Markdown page and notebook of docs/ (the theme's overrides are
# templates, not pages), and the theme's 404 page.
PAGES = sorted(
    {
        page_of(p)
        for p in [*DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")]
        if "overrides" not in p.relative_to(DOCS).parts and ".ipynb_checkpoints" not in p.parts
    }
    | {"404.html"}
)

# For every pre and table of the page's content: whether its box stays inside the text column,
# and, where what it holds is wider than its box, the box it scrolls in (the element itself, a
# pre's code, or the nearest box around it that is still inside the column) or what clips it.
MEASURE = """
const content = document.querySelector(".md-content__inner");
const col = content.getBoundingClientRect();
const inside = (b) => b.left >= col.left - 0.5 && b.right <= col.right + 0.5;
const outside = [], clipped = [];
let scrolling = 0, first = null;
for (const el of content.querySelectorAll("pre, table")) {
  const what = el.tagName.toLowerCase() + " '" + el.textContent.trim().slice(0, 50) + "'";
  const b = el.getBoundingClientRect();
  if (!inside(b)) outside.push(`${what} spans ${b.left.toFixed(1)} to ${b.right.toFixed(1)} px`);
  // a pre's lines are in its code element where Material puts one
  const inner = el.tagName === "PRE" ? el.querySelector(":scope > code") || el : el;
  if (inner.scrollWidth <= inner.clientWidth + 1) continue;
  let box = inner, ok = false;
  while (box && box !== content && inside(box.getBoundingClientRect())) {
    const overflow = getComputedStyle(box).overflowX;
    if (["auto", "scroll"].includes(overflow)) { ok = true; break; }
    if (["hidden", "clip"].includes(overflow)) break;  // it cuts the lines off
    box = box.parentElement;
  }
  if (ok) { scrolling += 1; first = first || el; }
  else clipped.push(what + " is wider than its box, which does not scroll");
}
if (first) first.scrollIntoView({block: "center"});
return {column: [col.left, col.right], viewport: innerWidth, page: document.documentElement.scrollWidth,
        count: content.querySelectorAll("pre, table").length, outside: outside, clipped: clipped,
        scrolling: scrolling};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get("MICROGRAD_SITE")
    if built:
        return Path(built)
    out = tmp_path_factory.mktemp("whole-site")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(
        docs_dir=str(DOCS),
        site_dir=str(out / "site"),
        hooks=[str(ROOT / hook) for hook in config.get("hooks", [])],
        strict=False,  # the links to playground/, which is not built here, dangle
    )
    config["theme"]["custom_dir"] = str(ROOT / config["theme"]["custom_dir"])
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "mkdocstrings" in plugin:
            plugin["mkdocstrings"]["handlers"]["python"]["paths"] = [str(ROOT)]
        if isinstance(plugin, dict) and "mkdocs-jupyter" in plugin:
            # executed afresh: mkdocs-jupyter's cache is keyed on the notebook alone, not on the
            # code whose output the page shows
            plugin["mkdocs-jupyter"] = {**plugin["mkdocs-jupyter"], "cache": False}
    (out / "mkdocs.yml").write_text(yaml.safe_dump(config))
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(out / "mkdocs.yml")],
        capture_output=True,
        text=True,
        timeout=1200,
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "MICROGRAD_DOCS_PLAYGROUND": "0"},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out / "site"


def test_every_page_of_the_site_is_measured(site: Path) -> None:
    built = {
        p.relative_to(site).as_posix()
        for p in site.rglob("*.html")
        if p.relative_to(site).parts[0] not in ("playground", "assets")
    }
    assert built == set(PAGES), f"built but not measured: {built - set(PAGES)}; missing: {set(PAGES) - built}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("page", PAGES)
def test_code_and_tables_stay_inside_the_column(
    site: Path, browser: Any, page: str, size: tuple[int, int], tmp_path: Path
) -> None:
    width, height = size
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    console_errors(browser)  # forget the earlier pages' messages
    browser.get((site / page).as_uri())
    got = browser.execute_script(MEASURE)
    name = page.replace("/", "-").removesuffix(".html")
    screenshot(browser, tmp_path, f"docs-page-{name}-{width}x{height}")
    assert got["viewport"] == width
    assert got["outside"] == [], got
    assert got["clipped"] == [], got
    assert got["page"] <= got["viewport"], f"the page itself scrolls sideways: {got}"
    assert got["column"][1] <= got["viewport"], got
