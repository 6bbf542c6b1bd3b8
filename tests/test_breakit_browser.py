"""Break-it mode in a real headless browser (Debian's Chromium, via Selenium): the explorer's
"break it" control switches between the mistakes; each shows every Value's right and wrong
gradient (the numbers ``wrong_gradients`` computes), the first Value that differs highlighted in
the table and ringed in the graph with its wrong gradient; a hostile label stays text.
Screenshots go to each test's tmp folder and to /tmp/explorer-shots/breakit-*.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import micrograd
from micrograd import Value, explore
from micrograd.scopes import record_scopes
from micrograd.viz.graph_model import fmt
from micrograd.viz.mistake_examples import EXAMPLES
from micrograd.viz.mistakes import SIMULATED_ORDER, UNCHANGED, wrong_gradients
from tests.browser_support import browser, console_errors, needs_browser, screenshot
from tests.test_mistakes import lecture, neuron
from tests.test_viz import neuron as readme_neuron

pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")
from tests.graphviz_support import needs_dot

pytestmark = [needs_browser, needs_dot]
__all__ = ["browser"]  # the fixture, imported for the tests of this module

STATE = """
const rows = [...document.querySelectorAll("tr[data-mg=breakit-row]")];
const cell = (tr, k) => tr.querySelector(`[data-mg=${k}]`).textContent;
const text = (s) => document.querySelector(s) ? document.querySelector(s).textContent : null;
return {mode: document.body.getAttribute("data-mg-breakit"),
        control: document.getElementById("mistake").value,
        rows: rows.map((tr) => [cell(tr, "bk-name"), cell(tr, "bk-right"), cell(tr, "bk-wrong")]),
        wrongRows: rows.filter((tr) => tr.classList.contains("mg-bk-wrong")).map((tr) => cell(tr, "bk-name")),
        firstRow: rows.filter((tr) => tr.classList.contains("mg-bk-first")).map((tr) => cell(tr, "bk-name")),
        first: text("[data-mg=breakit-first]"), reason: text("[data-mg=breakit-reason]"),
        grads: Object.fromEntries([...document.querySelectorAll("#graph g.node")].map((g) =>
          [g.querySelector("title").textContent, [...g.querySelectorAll("text")].pop().textContent])),
        tags: [...document.querySelectorAll("g.mg-bk-tag")].map((g) =>
          [g.getAttribute("data-mg-for"), g.classList.contains("mg-bk-first"), g.textContent]),
        where: text("#where")};
"""


def state(driver: Any) -> dict[str, Any]:
    result: dict[str, Any] = driver.execute_script(STATE)
    return result


def open_page(driver: Any, path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    console_errors(driver)  # forget earlier pages' messages
    driver.get(path.as_uri())
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-mg-breakit')") is not None
    )


def choose(driver: Any, name: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "mistake")).select_by_value(name)


def expected(root: Value, mistake: str) -> dict[str, Any]:
    """What the page should show for ``mistake``, from ``wrong_gradients`` (itself checked against
    hand-computed numbers in test_mistakes.py)."""
    broken = wrong_gradients(root, mistake)
    ids = {v: f"n{i}" for i, v in enumerate(broken.names)}  # names follow the forward order
    return {
        "rows": [[broken.names[v], fmt(broken.right[v]), fmt(broken.wrong[v])] for v in broken.order],
        "wrongRows": [broken.names[v] for v in broken.order if broken.differs(v)],
        "firstRow": [] if broken.first is None else [broken.names[broken.first]],
        "tags": sorted(
            [
                ids[v],
                v is broken.first,
                f"{'first ✗' if v is broken.first else '✗'} should be {fmt(broken.right[v])}",
            ]
            for v in broken.order
            if broken.differs(v)
        ),
        "reason": broken.reason,
        # what each record shows at the end: what the buggy code prints, marked where it is wrong
        "grads": {
            ids[v]: f"grad ✗ {fmt(broken.wrong[v])}" if broken.differs(v) else f"grad {fmt(broken.right[v])}"
            for v in broken.order
        },
    }


def check(driver: Any, root: Value, mistake: str) -> None:
    s, want = state(driver), expected(root, mistake)
    assert s["mode"] == s["control"] == mistake
    for key in ("rows", "wrongRows", "firstRow", "reason"):
        assert s[key] == want[key], key
    assert sorted(s["tags"]) == want["tags"]
    assert s["where"] == "backward done: every gradient"
    drawn = {name: text for name, text in s["grads"].items() if name in want["grads"]}
    assert drawn == {name: want["grads"][name] for name in drawn}


def test_the_control_switches_the_mistakes_on_the_lecture_graph(browser: Any, tmp_path: Path) -> None:
    f, values = lecture()
    open_page(browser, explore(f, tmp_path / "lecture.html"))
    s = state(browser)
    assert s["mode"] == "none" and s["control"] == "" and s["rows"] == [] and s["tags"] == []
    options = "return [...document.querySelectorAll('#mistake option')].map(o => o.value)"
    assert browser.execute_script(options) == ["", "overwrite", "no-topo", "no-zero-grad", "tanh"]
    choose(browser, "overwrite")
    check(browser, f, "overwrite")
    s = state(browser)  # micrograd 0.1.0's order f, e, d, b, a: d's rule writes b and a last
    assert s["rows"][3:] == [["b", "-8.0000", "-2.0000"], ["a", "-3.0000", "3.0000"]]
    assert s["first"] == "first wrong: b" and s["firstRow"] == ["b"]
    screenshot(browser, tmp_path, "breakit-overwrite-lecture")
    choose(browser, "no-zero-grad")
    check(browser, f, "no-zero-grad")
    assert state(browser)["firstRow"] == ["e"]
    screenshot(browser, tmp_path, "breakit-no-zero-grad-lecture")
    choose(browser, "no-topo")  # nothing changes on this graph: no row, no ring marked
    check(browser, f, "no-topo")
    assert state(browser)["first"] == "no gradient changes"
    choose(browser, "")
    s = state(browser)
    assert s["mode"] == "none" and s["rows"] == [] and s["tags"] == []
    assert all(v.grad == 0.0 for v in values.values())
    assert console_errors(browser) == []


def test_explore_opens_on_the_mistake_asked_for(browser: Any, tmp_path: Path) -> None:
    L, _ = neuron()
    open_page(browser, explore(L, tmp_path / "neuron.html", mistake="no-topo"))
    check(browser, L, "no-topo")
    assert state(browser)["firstRow"] == ["n"]
    screenshot(browser, tmp_path, "breakit-no-topo-neuron")
    choose(browser, "tanh")
    check(browser, L, "tanh")
    screenshot(browser, tmp_path, "breakit-tanh-neuron")
    assert console_errors(browser) == []


HOSTILE = ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>"]


def test_a_label_with_markup_stays_text(browser: Any, tmp_path: Path) -> None:
    a = Value(3.0, label=HOSTILE[0])
    b = a + a
    b.label = HOSTILE[1]
    path = explore(b, tmp_path / "hostile.html", mistake="overwrite")
    open_page(browser, path)
    s = state(browser)
    assert s["rows"] == [[HOSTILE[1], "1.0000", "1.0000"], [HOSTILE[0], "2.0000", "1.0000"]]
    assert s["reason"].startswith(f"{HOSTILE[0]} receives 2 contributions (1.0000 from {HOSTILE[1]}")
    assert browser.execute_script("return document.querySelectorAll('img, [onerror]').length") == 0
    scripts = browser.execute_script("return document.querySelectorAll('script').length")
    assert scripts == path.read_text().count("<script")
    screenshot(browser, tmp_path, "breakit-hostile-label")
    assert console_errors(browser) == []


def test_in_boxes_a_closed_box_holding_wrong_values_is_ringed(browser: Any, tmp_path: Path) -> None:
    from nn import MLP

    model = MLP(3, [4, 1], activation="tanh", output_activation="tanh", seed=0)
    with record_scopes() as scopes:
        loss = micrograd.sum(
            (model(x) - y) ** 2 for x, y in [([2.0, 3.0, -1.0], 1.0), ([3.0, -1.0, 0.5], -1.0)]
        )
    open_page(browser, explore(loss, tmp_path / "boxes.html", scopes=scopes, mistake="tanh"))
    broken = wrong_gradients(loss, "tanh")
    s = state(browser)
    assert s["mode"] == "tanh" and s["firstRow"] == [broken.names[broken.first]]
    boxes = [t for t in s["tags"] if t[0].startswith("g")]
    assert boxes and all(t[2].endswith("wrong inside") for t in boxes)
    assert [t[1] for t in s["tags"]].count(True) == 1  # one first: the box holding it, or its record
    first_box = next(t[0] for t in s["tags"] if t[1])
    screenshot(browser, tmp_path, "breakit-boxes")
    browser.find_element(
        "xpath", f"//*[local-name()='g'][*[local-name()='title' and text()='{first_box}']]"
    ).click()
    inside = state(browser)["tags"]  # the box opened: its own Values ringed, the first among them
    assert inside != s["tags"] and any(t[1] for t in inside)
    screenshot(browser, tmp_path, "breakit-boxes-opened")
    assert console_errors(browser) == []


def lecture_neuron() -> Value:
    """The lecture's neuron, o = tanh(x1*w1 + x2*w2 + b): no Value used twice, no reuse."""
    return readme_neuron()[0]


@pytest.fixture(scope="module")
def laptop(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A Chromium whose page is a laptop's 1280 x 800 (the window around it a little larger)."""
    from tests.browser_support import chromium

    driver = chromium(tmp_path_factory, size=(1280, 800))
    try:
        chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
        driver.set_window_size(1280, 800 + chrome)
        yield driver
    finally:
        driver.quit()


OFFER = """
const b = document.querySelector("[data-mg=breakit-example]");
return {offer: b ? b.textContent : null, order: document.querySelector("[data-mg=breakit-order]").textContent,
        frames: document.querySelectorAll("#mg-bk-example iframe").length};
"""


# Whether the first ring encloses its Value's record (a ring drawn before the picture was laid out
# would be a dot at the origin).
RINGED = """
const tag = document.querySelector("g.mg-bk-tag.mg-bk-first");
if (!tag) return false;
const ring = tag.querySelector("rect").getBoundingClientRect();
const node = [...document.querySelectorAll("g.node")].find(
  (g) => g.querySelector("title").textContent === tag.getAttribute("data-mg-for")).getBoundingClientRect();
return node.width > 0 && ring.left < node.left && ring.right > node.right && ring.top < node.top
  && ring.bottom > node.bottom;
"""


@pytest.mark.parametrize("mistake", ["overwrite", "no-topo"])
def test_a_mistake_that_changes_nothing_says_why_and_opens_its_example(
    laptop: Any, tmp_path: Path, mistake: str
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    o = lecture_neuron()
    open_page(laptop, explore(o, tmp_path / "neuron.html", mistake=mistake))
    check(laptop, o, mistake)
    s, offer = state(laptop), laptop.execute_script(OFFER)
    assert s["first"] == "no gradient changes" and s["wrongRows"] == []
    assert s["reason"] == f"{mistake} changes no gradient of this graph: {UNCHANGED[mistake]}"
    assert offer == {"offer": EXAMPLES[mistake][0], "order": SIMULATED_ORDER, "frames": 0}
    screenshot(laptop, tmp_path, f"breakit-{mistake}-nothing-changes")
    laptop.find_element("css selector", "[data-mg=breakit-example]").click()
    assert laptop.execute_script(OFFER)["frames"] == 1
    laptop.switch_to.frame(laptop.find_element("css selector", "#mg-bk-example iframe"))
    try:
        WebDriverWait(laptop, 20).until(
            lambda d: d.execute_script("return document.body.getAttribute('data-mg-breakit')") == mistake
        )
        # a frame's picture may be laid out a few frames after its script ran: the rings follow it
        WebDriverWait(laptop, 20).until(lambda d: d.execute_script(RINGED))
        example = EXAMPLES[mistake][1]()
        check(laptop, example, mistake)  # the example's wrong gradients, as wrong_gradients gives them
        inside = state(laptop)
        assert inside["wrongRows"] and inside["first"].startswith("first wrong: ")
        assert any(right != wrong for _, right, wrong in inside["rows"])  # a gradient changes
    finally:
        laptop.switch_to.default_content()
    # two frames drawn before the picture: on a busy machine the frame's page can lag a paint behind
    laptop.execute_async_script("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))")
    screenshot(laptop, tmp_path, f"breakit-{mistake}-example")
    laptop.find_element("css selector", "[data-mg=breakit-back]").click()
    assert laptop.execute_script(OFFER)["frames"] == 0 and state(laptop)["mode"] == mistake
    assert console_errors(laptop) == []


def test_a_mistake_that_changes_something_offers_no_example(browser: Any, tmp_path: Path) -> None:
    f, _ = lecture()
    open_page(browser, explore(f, tmp_path / "lecture.html", mistake="overwrite"))
    assert browser.execute_script(OFFER)["offer"] is None
    choose(browser, "tanh")  # the lecture's graph has no tanh: offered
    assert browser.execute_script(OFFER)["offer"] == EXAMPLES["tanh"][0]


def test_the_example_opens_inside_a_notebooks_frame_too(browser: Any, tmp_path: Path) -> None:
    """In Jupyter the explorer is an <iframe srcdoc sandbox="allow-scripts">: the example's frame
    opens inside it."""
    from selenium.webdriver.support.ui import WebDriverWait

    notebook = tmp_path / "notebook.html"
    notebook.write_text(f"<!DOCTYPE html><html><body>{explore(lecture_neuron())._repr_html_()}</body></html>")
    console_errors(browser)
    browser.get(notebook.as_uri())
    browser.switch_to.frame(browser.find_element("tag name", "iframe"))
    try:
        WebDriverWait(browser, 20).until(lambda d: d.find_elements("id", "mistake"))
        choose(browser, "overwrite")
        browser.find_element("css selector", "[data-mg=breakit-example]").click()
        browser.switch_to.frame(browser.find_element("css selector", "#mg-bk-example iframe"))
        WebDriverWait(browser, 20).until(
            lambda d: d.execute_script("return document.body.getAttribute('data-mg-breakit')") == "overwrite"
        )
        assert state(browser)["wrongRows"] == ["a"]
    finally:
        browser.switch_to.default_content()
    assert console_errors(browser) == []


# The page's layout: every record inside the graph's pane and the window, the smallest text of
# the picture on screen, the panel's box and whether the offer's button shows in it unscrolled.
LAYOUT = """
const pane = document.getElementById("graph"), svg = pane.querySelector("svg");
const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
const scale = svg.getScreenCTM().a;
const texts = [...svg.querySelectorAll("g.node text")];
const offer = document.querySelector("[data-mg=breakit-example]");
return {window: [0, 0, innerWidth, innerHeight], pane: r(pane),
        nodes: [...svg.querySelectorAll("g.node")].map((g) => [g.querySelector("title").textContent, r(g)]),
        smallest: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
        panel: r(document.getElementById("breakit")), offer: offer ? r(offer) : null,
        parts: [...document.getElementById("breakit").children].map((d) =>
          [d.className, r(d), d.scrollWidth, d.clientWidth])};
"""


def within(box: list[float], frame: list[float]) -> bool:
    left, top, right, bottom = frame
    return box[0] >= left - 0.5 and box[1] >= top - 0.5 and box[2] <= right + 0.5 and box[3] <= bottom + 0.5


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_break_it_fits_the_lecture_neuron(laptop: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """At 1280 x 800 and at 1024 x 768 the whole neuron in view at text of at least 12 px. The
    explanation in a panel at least 300 px wide and 150 px tall, its words and its table each whole
    across (no sideways scroll box), its example's button in view without scrolling."""
    chrome = laptop.execute_script("return window.outerHeight - window.innerHeight")
    laptop.set_window_size(size[0], size[1] + chrome)
    try:
        o = lecture_neuron()
        open_page(laptop, explore(o, tmp_path / "neuron.html", mistake="overwrite"))
        m = laptop.execute_script(LAYOUT)
        screenshot(laptop, tmp_path, f"breakit-fit-neuron-{size[0]}x{size[1]}")
    finally:
        laptop.set_window_size(1280, 800 + chrome)
    assert m["window"][2:] == list(size)
    outside = [n for n, box in m["nodes"] if not within(box, m["pane"]) or not within(box, m["window"])]
    assert outside == [], f"records outside the pane or the window: {outside}"
    assert m["smallest"] >= 12 - 0.01  # the px a rounded style size gives
    left, top, right, bottom = m["panel"]
    assert right - left >= 300 and bottom - top >= 150
    assert left >= 0 and right <= size[0] and top < size[1] - 150, m["panel"]
    for name, box, scroll_width, client_width in m["parts"]:  # the words, the table
        assert scroll_width <= client_width + 1, f"the explanation's {name} scrolls sideways"
        assert box[2] - box[0] >= 200 and box[2] <= size[0], (name, box)
    assert m["offer"] is not None and within(m["offer"], m["panel"])
