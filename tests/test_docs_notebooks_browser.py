"""The explorers embedded in the docs' notebook pages, in a headless Chromium at 1280x800 and
1024x768 (issues 35 and 46, item 1): each opens readable (its graph's text at least 12 px on
screen) with the whole graph in view, or where it is too large for that the current step and its
operands, the overview clear of the step, a step panel at least 300 px wide, inside the page's text
column (no sideways scroll bar), and offers the whole screen. The lecture's expression (notebook
1's first explorer, a to L) opens whole. draw_dot's pictures keep text of 10 px at least (item 4).

The notebook pages that call ``explore`` are built as ``make docs`` builds them (mkdocs-jupyter,
executed), with the site's theme and stylesheets but no other page, plugin or hook.
``MICROGRAD_SITE=/path/to/site`` measures a site built by ``make docs`` instead.
Screenshots go to each test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import chromium, console_errors, needs_browser, screenshot

yaml = pytest.importorskip("yaml", reason="building the pages needs MkDocs (docs extra)")
pytest.importorskip("mkdocs_jupyter", reason="building the notebook pages needs mkdocs-jupyter (docs extra)")
from tests.test_docs_browser import ROOT, build_pages  # noqa: E402 - after the skips

pytestmark = needs_browser

# The notebooks whose pages embed an explorer (each calls micrograd.explore in a cell).
NOTEBOOKS = sorted(
    str(p.relative_to(ROOT / "docs"))
    for p in (ROOT / "docs" / "notebooks").glob("*.ipynb")
    if "explore(" in p.read_text(encoding="utf-8")
)

# Inside an explorer's frame: the smallest text of the graph on screen (font size times the SVG's
# scale), whether the current step's picture is inside the graph's pane, and the full-page button.
MEASURE = """
const pane = document.getElementById("graph"), svg = pane.querySelector("svg");
const scale = svg.getScreenCTM().a;
const sizes = [...svg.querySelectorAll("g.node text")]
  .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
const cur = svg.querySelector(".mg-current"), p = pane.getBoundingClientRect();
const b = cur && cur.getBoundingClientRect();
const within = (b) => b.left >= p.left - 0.5 && b.right <= p.right + 0.5
  && b.top >= p.top - 0.5 && b.bottom <= p.bottom + 0.5;
const inView = !!b && within(b);
const outside = (sel) => [...svg.querySelectorAll(sel)].filter((g) => !within(g.getBoundingClientRect()))
  .map((g) => g.querySelector("title").textContent);
const aside = document.querySelector("aside").getBoundingClientRect();
const ov = document.getElementById("overview"), o = ov.hidden ? null : ov.getBoundingClientRect();
const covered = !!o && !!b && Math.min(o.right, b.right) > Math.max(o.left, b.left)
  && Math.min(o.bottom, b.bottom) > Math.max(o.top, b.top);
return {smallest: Math.min(...sizes), texts: sizes.length, inView: inView,
        outside: outside("g.node"), operandsOutside: outside("g.node.mg-operand"),
        panel: aside.width, covered: covered,
        current: cur ? cur.querySelector("title").textContent : null,
        full: !document.getElementById("full").hidden, window: [innerWidth, innerHeight],
        pane: [p.left, p.top, p.right, p.bottom], box: b && [b.left, b.top, b.right, b.bottom],
        scroll: [pane.scrollLeft, pane.scrollTop, pane.scrollWidth, pane.scrollHeight]};
"""

# Outside: each explorer's frame and whether a box around it scrolls sideways.
FRAMES = """
return [...document.querySelectorAll("iframe")].map((f) => {
  let sideways = null;
  for (let e = f.parentElement; e && e !== document.body; e = e.parentElement)
    if (e.scrollWidth > e.clientWidth + 1 && ["auto", "scroll"].includes(getComputedStyle(e).overflowX)) {
      sideways = e.className || e.tagName; break;
    }
  const r = f.getBoundingClientRect();
  const explorer = (f.getAttribute("srcdoc") || "").includes('id="mg-data"');
  return {explorer: explorer, width: r.width, sideways: sideways};
});
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get("MICROGRAD_SITE")
    if built:
        return Path(built)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    jupyter = [p for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p]
    assert jupyter, "mkdocs.yml has no mkdocs-jupyter plugin: the notebook pages are not built as measured"
    # Executed afresh: mkdocs-jupyter's cache is keyed on the notebook alone, not on the explorer's code.
    jupyter[0]["mkdocs-jupyter"] = {**jupyter[0]["mkdocs-jupyter"], "cache": False}
    return build_pages(tmp_path_factory.mktemp("notebook-site"), NOTEBOOKS, jupyter)


SIZES = [(1280, 800), (1024, 768)]
# The explorers that must open with the whole graph in view (notebook, its k-th explorer): the
# lecture's expression L = (a*b + c) * f, ten records and ops.
WHOLE = {("notebooks/01_value_and_backprop.ipynb", 0)}


@pytest.fixture(scope="module")
def laptop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    browser = chromium(tmp_path_factory, size=(1280, 800))
    try:
        yield browser
    finally:
        browser.quit()


def page_size(browser: Any, size: tuple[int, int]) -> None:
    """The page's viewport ``size`` (the device metrics: a window cannot be sized exactly)."""
    metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def test_some_notebook_embeds_an_explorer() -> None:
    assert "notebooks/01_value_and_backprop.ipynb" in NOTEBOOKS


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: Path(p).stem)
def test_the_embedded_explorers_are_readable_in_the_text_column(
    site: Path, laptop: Any, notebook: str, size: tuple[int, int], tmp_path: Path
) -> None:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    page_size(laptop, size)
    console_errors(laptop)
    laptop.get((site / notebook.replace(".ipynb", ".html")).as_uri())
    frames = laptop.execute_script(FRAMES)
    explorers = [k for k, f in enumerate(frames) if f["explorer"]]
    if not explorers:
        pytest.skip(f"{notebook}'s page shows no explorer (its explore() cell is an exercise)")
    for k in explorers:
        assert frames[k]["sideways"] is None, f"explorer {k}: its output box scrolls sideways: {frames[k]}"
        frame = laptop.find_elements("tag name", "iframe")[k]
        laptop.execute_script("arguments[0].scrollIntoView({block: 'center'})", frame)
        laptop.switch_to.frame(frame)
        try:
            WebDriverWait(laptop, 60).until(
                lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
            )
            # A frame out of view is told its size once it comes into view: the step is brought
            # into view then, within a rendered frame or two.
            with contextlib.suppress(TimeoutException):  # the assertion below says what is where
                WebDriverWait(laptop, 5).until(lambda d: d.execute_script(MEASURE)["inView"])
            m = laptop.execute_script(MEASURE)
        finally:
            laptop.switch_to.default_content()
        screenshot(laptop, tmp_path, f"docs-{Path(notebook).stem}-explorer-{k}-{size[0]}x{size[1]}")
        width, smallest = frames[k]["width"], m["smallest"]
        print(f"\n{notebook} explorer {k}: {width:.0f} px wide, smallest text {smallest:.2f} px")
        assert m["texts"] > 0
        assert m["smallest"] >= 12 - 0.01, m  # layout rounds widths to 1/64 px
        assert m["inView"], f"explorer {k}: the current step is outside the graph's pane: {m}"
        if (notebook, k) in WHOLE:
            assert m["outside"] == [], f"explorer {k}: records outside the graph's pane: {m['outside']}"
        else:  # the whole graph, or the current step's operands with it
            assert m["operandsOutside"] == [], f"explorer {k}: operands outside the pane: {m}"
        assert m["full"], "the explorer offers no full page"
        assert m["panel"] >= 300, f"explorer {k}: its step panel is {m['panel']:.0f} px wide"
        assert not m["covered"], f"explorer {k}: the overview covers the current step: {m}"
    assert console_errors(laptop) == []


# Each SVG picture of the page (draw_dot's output): its smallest text on screen, in px (the
# smallest font size of the SVG, in its units, times the picture's rendered px per unit).
PICTURES = """
return [...document.querySelectorAll(".jp-RenderedSVG img")].map((img) => {
  const svg = new DOMParser().parseFromString(atob(img.src.split(",")[1]), "image/svg+xml").documentElement;
  const units = parseFloat(svg.getAttribute("viewBox").split(/\\s+/)[2]);
  const fonts = [...svg.querySelectorAll("[font-size]")].map((t) => parseFloat(t.getAttribute("font-size")));
  const box = img.getBoundingClientRect(), out = img.closest(".jp-RenderedSVG");
  return {smallest: Math.min(...fonts) * box.width / units, width: box.width,
          outer: out.getBoundingClientRect().width, scrolls: out.scrollWidth > out.clientWidth};
});
"""


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: Path(p).stem)
def test_draw_dot_pictures_are_readable_and_scroll_in_their_own_box(
    site: Path, laptop: Any, notebook: str, size: tuple[int, int], tmp_path: Path
) -> None:
    page_size(laptop, size)
    laptop.get((site / notebook.replace(".ipynb", ".html")).as_uri())
    pictures = laptop.execute_script(PICTURES)
    if not pictures:
        pytest.skip(f"{notebook}'s page shows no draw_dot picture")
    laptop.execute_script("document.querySelector('.jp-RenderedSVG').scrollIntoView({block: 'center'})")
    screenshot(laptop, tmp_path, f"docs-{Path(notebook).stem}-draw-dot-{size[0]}x{size[1]}")
    for k, pic in enumerate(pictures):
        print(f"\n{notebook} picture {k}: {pic['width']:.0f} px wide, smallest text {pic['smallest']:.2f} px")
        assert pic["smallest"] >= 10 - 0.01, f"picture {k}: text of {pic['smallest']:.2f} px"
        # wider than its output box: it scrolls there, not the page
        assert pic["width"] <= pic["outer"] + 0.5 or pic["scrolls"], pic
