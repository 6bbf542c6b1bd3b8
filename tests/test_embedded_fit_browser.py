"""The explorer embedded in the playground's panes, in a real headless Chromium at 1280x800 and
1024x768 (issue 46, item 1): the Code section's explorer (an ``<iframe>`` styled by
``playground/playground.css``, here on the lecture's neuron as a learner types it) opens with the
whole graph in view at 12 px text or more, at both sizes; the
training tab's "Explore this step" (an ``nn.MLP`` training step in boxes) opens on its output,
which the overview never covers; so does the GPT tab's "Explore this step" (a training step of
microgpt, 6,408 Values in boxes, made by ``playground/gpt_runner.py`` in this Python). Everywhere
the text is at least 12 px and the step panel at least 300 px wide, the panel below the graph at
least 150 px tall. And a dot's backward step (an ``nn`` neuron of 32 inputs: 33 operands, one named
``layers.0.neurons.0.b``) keeps its table inside its panel.

The host page is the playground's own stylesheet around the same ``<iframe>`` elements, filled
with ``micrograd.explore``'s page (the playground runs the same function in Pyodide; its own
browser tests, tests/test_playground.py, open the real page). Screenshots go to each test's tmp
folder and to /tmp/explorer-shots/embedded-*.png."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

import micrograd
from micrograd import Value
from micrograd.scopes import record_scopes
from nn import MLP
from tests.browser_support import chromium, console_errors, needs_browser, screenshot
from tests.test_explorer_fit_browser import lecture_neuron

pytestmark = [needs_browser]

ROOT = Path(__file__).resolve().parent.parent
SIZES = [(1280, 800), (1024, 768)]

# Inside the frame: every node's box, the pane's, the panel's and the overview's, the current
# step's node (record and op) and operands, and the smallest text on screen (font size x scale).
MEASURE = """
const pane = document.getElementById("graph"), svg = pane.querySelector("svg");
const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
const scale = svg.getScreenCTM().a;
const texts = [...svg.querySelectorAll("g.node text")];
const overview = document.getElementById("overview");
const named = (sel) => [...svg.querySelectorAll(sel)].map(
  (g) => [g.querySelector("title").textContent, r(g)]);
return {pane: r(pane), panel: r(document.querySelector("aside")),
        overview: overview.hidden ? null : r(overview), nodes: named("g.node"),
        current: named("g.node.mg-current"), operands: named("g.node.mg-operand"),
        smallest: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale))};
"""


def within(box: list[float], frame: list[float]) -> bool:
    left, top, right, bottom = frame
    return box[0] >= left - 0.5 and box[1] >= top - 0.5 and box[2] <= right + 0.5 and box[3] <= bottom + 0.5


def overlaps(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def training_step() -> str:
    """A training step as "Explore this step" builds it: an MLP 2-8-8-1, its parameters named,
    ten points' squared errors summed, in the model's boxes."""
    model = MLP(2, [8, 8, 1], seed=0)
    for name, p in model.named_parameters():
        p.label = name
    points = [([0.1 * i, -0.2 * i], 1.0 if i % 2 else -1.0) for i in range(10)]
    with record_scopes() as recording:
        loss = micrograd.sum((model([Value(a), Value(b)]) - y) ** 2 for (a, b), y in points)
    loss.label = "loss"
    return micrograd.explore(loss, params=model.parameters(), scopes=recording, layout="builtin").html


def gpt_step() -> str:
    """The GPT tab's "Explore this step": its runner's first step on a few names."""
    spec = importlib.util.spec_from_file_location("gpt_runner", ROOT / "playground" / "gpt_runner.py")
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gpt_runner", runner)
    spec.loader.exec_module(runner)
    shown = runner.GPTSession(["emma", "olivia", "ava", "isabella"], seed=0).explore_step()
    assert shown["ok"], shown["message"]
    html: str = shown["html"]
    return html


def host(tmp_path: Path, frame_id: str) -> Path:
    """A page with the playground's stylesheets and its explorer frame ``frame_id``."""
    css = "".join(
        f'<link rel="stylesheet" href="{(ROOT / "playground" / name).as_uri()}">'
        for name in ("playground.css", "gpt.css")
    )
    page = tmp_path / f"{frame_id}.html"
    page.write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8">{css}</head>'
        f'<body><main><section><h3 id="{frame_id}-heading">Explorer</h3>'
        f'<iframe id="{frame_id}" sandbox="allow-scripts"></iframe></section></main></body></html>',
        encoding="utf-8",
    )
    return page


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Any:
    browser = chromium(tmp_path_factory)
    try:
        yield browser
    finally:
        browser.quit()


def open_in_frame(driver: Any, tmp_path: Path, frame_id: str, html: str, size: tuple[int, int]) -> Any:
    """The explorer's page in the host's frame, the window's page ``size``; measured inside."""
    from selenium.webdriver.support.ui import WebDriverWait

    chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
    driver.set_window_size(size[0], size[1] + chrome)
    console_errors(driver)
    driver.get(host(tmp_path, frame_id).as_uri())
    assert driver.execute_script("return [innerWidth, innerHeight]") == list(size)
    frame = driver.find_element("id", frame_id)
    driver.set_script_timeout(300)  # the GPT step's page is some 24 MB of HTML
    driver.execute_script("arguments[0].srcdoc = arguments[1]", frame, html)
    driver.execute_script("arguments[0].scrollIntoView()", frame)
    driver.switch_to.frame(frame)
    try:
        ready = "return document.body && document.body.getAttribute('data-mg-ready')"
        WebDriverWait(driver, 300).until(lambda d: d.execute_script(ready) == "1")
        driver.execute_async_script("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))")
        return driver.execute_script(MEASURE)
    finally:
        driver.switch_to.default_content()


def check_readable(m: dict[str, Any]) -> None:
    assert m["smallest"] >= 12 - 0.01, m["smallest"]  # layout rounds widths to 1/64 px
    assert m["panel"][2] - m["panel"][0] >= 300, m["panel"]
    assert m["panel"][3] - m["panel"][1] >= 150, m["panel"]
    assert m["current"], "no current step marked"
    for name, box in m["current"]:
        assert within(box, m["pane"]), f"the current step's {name} is outside the pane"
        assert m["overview"] is None or not overlaps(box, m["overview"]), f"the overview covers {name}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_playgrounds_explorer_opens_the_lecture_neuron_whole(
    driver: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    m = open_in_frame(driver, tmp_path, "explorer", micrograd.explore(lecture_neuron()).html, size)
    screenshot(driver, tmp_path, f"embedded-playground-explorer-{size[0]}x{size[1]}")
    check_readable(m)
    outside = [name for name, box in m["nodes"] if not within(box, m["pane"])]
    assert outside == [], f"nodes outside the pane: {outside}"
    assert console_errors(driver) == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_explore_this_step_opens_on_its_output_clear_of_the_overview(
    driver: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    m = open_in_frame(driver, tmp_path, "train-explorer", training_step(), size)
    screenshot(driver, tmp_path, f"embedded-training-explorer-{size[0]}x{size[1]}")
    assert m["overview"] is not None  # a graph larger than its pane: the overview is shown
    check_readable(m)
    assert m["current"][0][0].startswith("n")  # the output's record
    assert console_errors(driver) == []


def test_a_dot_steps_table_stays_inside_its_panel(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    model = MLP(32, [1], seed=0)
    loss = (model([Value(0.1 * i) for i in range(32)]) - 1.0) ** 2
    loss.label = "loss"
    chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
    driver.set_window_size(1280, 800 + chrome)
    console_errors(driver)
    driver.get(micrograd.explore(loss, tmp_path / "dot.html", model=model).as_uri())
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
    )
    table = "return document.querySelectorAll('#step tr[data-mg=contribution]').length"
    for _ in range(10):  # the backward steps from the loss down to the neuron's sum
        if driver.execute_script(table) == 33:
            break
        driver.find_element("id", "next").click()
    assert driver.execute_script(table) == 33
    widths = driver.execute_script(
        "const t = document.querySelector('#step table[data-mg=contributions]'), "
        "s = document.getElementById('step');"
        "return [t.getBoundingClientRect().right, s.getBoundingClientRect().right,"
        " s.scrollWidth, s.clientWidth]"
    )
    screenshot(driver, tmp_path, "embedded-dot-step-1280x800")
    table_right, panel_right, scroll_width, client_width = widths
    assert table_right <= panel_right + 0.5 and scroll_width <= client_width, widths
    assert console_errors(driver) == []


@pytest.fixture(scope="module")
def gpt_page() -> str:
    return gpt_step()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_gpt_tabs_explore_this_step_opens_on_the_loss_clear_of_the_overview(
    driver: Any, tmp_path: Path, gpt_page: str, size: tuple[int, int]
) -> None:
    m = open_in_frame(driver, tmp_path, "gpt-explorer", gpt_page, size)
    screenshot(driver, tmp_path, f"embedded-gpt-explorer-{size[0]}x{size[1]}")
    assert m["overview"] is not None  # thousands of Values: the overview is shown
    check_readable(m)
    for name, box in m["operands"]:
        assert within(box, m["pane"]), f"the current step's operand {name} is outside the pane"
        assert not overlaps(box, m["overview"]), f"the overview covers the operand {name}"
    assert console_errors(driver) == []
