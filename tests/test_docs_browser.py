"""The documentation site in a headless Chromium: code blocks and tables stay inside the page
(issue 35, item 6) on a laptop (1280x800) and a phone (390 px wide).

Each measured page is built with the site's own theme, Markdown extensions and stylesheets
(mkdocs.yml), but without the plugins and hooks that run notebooks and build the playground:
those take minutes and change nothing about how a page's code and tables are laid out.
``MICROGRAD_SITE=/path/to/site`` measures a site built by ``make docs`` instead.
Screenshots go to each test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import browser, console_errors, needs_browser, screenshot

yaml = pytest.importorskip("yaml", reason="building the pages needs MkDocs (docs extra)")
pytest.importorskip("mkdocs", reason="building the pages needs MkDocs (docs extra)")
pytest.importorskip("material", reason="building the pages needs mkdocs-material (docs extra)")

pytestmark = needs_browser
__all__ = ["browser"]  # the fixture, imported for the tests of this module

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# The lecture path (long code lines) and the benchmarks (a seven-column table).
PAGES = ["pages/tour.md", "pages/benchmarks.md"]
VIEWPORTS = {"laptop": (1280, 800), "phone": (390, 844)}

# For every pre and table of the page's content: its right edge against the content area's, and
# whether what does not fit can be scrolled to inside its own box (a box clipping it would hide
# code as surely as the page's edge).
MEASURE = """
const content = document.querySelector(".md-content__inner");
const edge = content.getBoundingClientRect().right;
const outside = [], clipped = [];
let scrolling = 0, first = null;
for (const el of content.querySelectorAll("pre, table")) {
  const what = el.tagName.toLowerCase() + " '" + el.textContent.trim().slice(0, 50) + "'";
  const right = el.getBoundingClientRect().right;
  if (right > edge + 0.5) outside.push(what + " ends at " + right.toFixed(1) + " px");
  // a pre's lines are in its code element, which is the box that scrolls
  const box = el.tagName === "PRE" ? el.querySelector("code") || el : el;
  if (box.scrollWidth > box.clientWidth + 1) {
    scrolling += 1;
    first = first || el;
    if (!["auto", "scroll"].includes(getComputedStyle(box).overflowX)) clipped.push(what);
  }
}
// the screenshot shows the first box that scrolls (a table first: the widest thing on a page)
const shown = content.querySelector("table") || first;
if (shown) shown.scrollIntoView({block: "center"});
return {edge: edge, viewport: window.innerWidth, page: document.documentElement.scrollWidth,
        count: content.querySelectorAll("pre, table").length, outside: outside, clipped: clipped,
        scrolling: scrolling};
"""


def build_pages(out: Path, pages: list[str] = PAGES, plugins: list[Any] | None = None) -> Path:
    """The ``pages`` built with mkdocs.yml's theme, extensions and CSS into ``out``, with only the
    ``plugins`` given (none by default); the site folder."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    docs = out / "docs"
    for page in pages:
        (docs / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(DOCS / page, docs / page)
    for folder in ("images", *{Path(css).parts[0] for css in config.get("extra_css", [])}):
        shutil.copytree(DOCS / folder, docs / folder)
    config.update(
        docs_dir=str(docs),
        site_dir=str(out / "site"),
        nav=pages,
        plugins=plugins or [],  # no notebooks, API reference or search unless asked: not what is measured
        strict=False,  # the pages' links to the pages left out are expected to dangle here
    )
    for key in ("hooks", "exclude_docs", "not_in_nav"):
        config.pop(key, None)
    if "custom_dir" in config["theme"]:  # the theme's overrides, where the config now is not
        config["theme"]["custom_dir"] = str(ROOT / config["theme"]["custom_dir"])
    (out / "mkdocs.yml").write_text(yaml.safe_dump(config))
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(out / "mkdocs.yml")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get("MICROGRAD_SITE")
    return Path(built) if built else build_pages(tmp_path_factory.mktemp("docs-site"))


def test_the_pages_are_built_with_the_sites_stylesheet(site: Path) -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config.get("extra_css"), "mkdocs.yml names no extra_css: the rules measured below are not there"
    for css in config["extra_css"]:
        assert (site / css).is_file(), css


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=str)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: Path(p).stem)
def test_code_and_tables_stay_inside_the_page(
    site: Path, browser: Any, page: str, viewport: str, tmp_path: Path
) -> None:
    width, height = VIEWPORTS[viewport]
    # The device metrics, not the window size: a window cannot be made as narrow as a phone.
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": viewport == "phone"},
    )
    console_errors(browser)  # forget the earlier pages' messages
    browser.get((site / page.replace(".md", ".html")).as_uri())
    got = browser.execute_script(MEASURE)
    screenshot(browser, tmp_path, f"docs-{Path(page).stem}-{viewport}")
    assert got["viewport"] == width
    assert got["count"] > 0
    assert got["outside"] == [], got
    assert got["clipped"] == [], got
    assert got["page"] <= got["viewport"], f"the page itself scrolls sideways: {got}"
    assert got["edge"] <= got["viewport"], got
    # Opened from the file system with no network, as a built site is: nothing fails to load (the
    # header's repository link asks GitHub for nothing: docs/overrides/partials/source.html).
    assert console_errors(browser) == []
