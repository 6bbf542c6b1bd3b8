"""The explorer opens whole and readable, names every parameter and steps without jumping, in a
real headless Chromium at a laptop's 1280x800:

* the lecture's neuron opens fitted, every node's box inside the window and the graph's pane,
  its text at least 12 px (measured: font size times the SVG's scale on screen);
* a larger graph opens readable around its output, ``fit`` shows all of it, and a Value is
  found by its ``named_parameters()`` name;
* embedded as a notebook shows it (``Explorer._repr_html_`` in a narrow column), the text stays
  at least 12 px;
* in a box holding only parameters, each → is one op step.

Screenshots go to each test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import micrograd
from micrograd import Value, explore
from micrograd.scopes import record_scopes
from micrograd.viz.boxes import boxes_of
from micrograd.viz.graph_model import graph_model, recorded_names
from nn import MLP
from tests.browser_support import browser, console_errors, needs_browser, screenshot

pytestmark = [needs_browser]
__all__ = ["browser"]  # the fixture, imported for the tests of this module

HOSTILE = "<img src=x onerror=alert(1)>"

# Every node of the pane's picture: its box on screen, and the smallest text on screen in px (an
# SVG text's font size times the picture's scale), with the window's and the pane's boxes.
MEASURE = """
const pane = document.getElementById("graph"), svg = pane.querySelector("svg");
const scale = svg.getScreenCTM().a;
const texts = [...svg.querySelectorAll("g.node text")];
const size = (t) => parseFloat(getComputedStyle(t).fontSize) * scale;
const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
return {window: [0, 0, window.innerWidth, window.innerHeight], pane: r(pane),
        nodes: [...svg.querySelectorAll("g.node")].map((g) => [g.querySelector("title").textContent, r(g)]),
        texts: texts.map(r), smallest: Math.min(...texts.map(size)),
        below: document.querySelector("main").classList.contains("mg-below"),
        where: document.getElementById("where").textContent,
        heading: (document.querySelector("#step h2") || {}).textContent || "",
        rows: [...document.querySelectorAll("tr[data-mg=contribution] [data-mg=operand]")]
              .map((t) => t.textContent)};
"""


def measure(driver: Any) -> dict[str, Any]:
    result: dict[str, Any] = driver.execute_script(MEASURE)
    return result


def inside(box: list[float], frame: list[float], slack: float = 0.5) -> bool:
    return (
        box[0] >= frame[0] - slack
        and box[1] >= frame[1] - slack
        and box[2] <= frame[2] + slack
        and box[3] <= frame[3] + slack
    )


def open_page(driver: Any, path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    console_errors(driver)
    driver.get(path.as_uri())
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
    )


@pytest.fixture
def laptop(browser: Any) -> Any:
    browser.set_window_size(1280, 800)
    try:
        yield browser
    finally:
        browser.set_window_size(1400, 900)


def lecture_neuron() -> Value:
    """The lecture's neuron: x1*w1 + x2*w2 + b, then tanh (10 Values)."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o


def lecture_loss() -> tuple[MLP, Value]:
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", seed=0)
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    loss = micrograd.sum((model(x) - y) ** 2 for x, y in zip(xs, [1.0, -1.0, -1.0, 1.0]))
    loss.label = "loss"
    return model, loss


def test_the_lecture_neuron_opens_whole_and_readable(laptop: Any, tmp_path: Path) -> None:
    root = lecture_neuron()
    assert len(graph_model(root).order) == 10
    open_page(laptop, explore(root, tmp_path / "neuron.html"))
    m = measure(laptop)
    screenshot(laptop, tmp_path, "fit-lecture-neuron-1280x800")
    assert len(m["texts"]) == 35  # 10 records of 3 fields, 5 ops
    outside = [name for name, box in m["nodes"] if not inside(box, m["window"]) or not inside(box, m["pane"])]
    assert outside == [], f"nodes outside the window or the pane: {outside}"
    assert [t for t in m["texts"] if not inside(t, m["window"])] == []
    assert m["smallest"] >= 12 - 0.01, m["smallest"]  # layout rounds widths to 1/64 px
    laptop.find_element("id", "side").click()  # the panel beside the graph again, by hand
    assert not measure(laptop)["below"] or not m["below"]
    assert console_errors(laptop) == []


def test_a_larger_graph_opens_readable_at_its_output_with_fit_and_search(laptop: Any, tmp_path: Path) -> None:
    model, loss = lecture_loss()
    open_page(laptop, explore(loss, tmp_path / "mlp.html", model=model, layout="builtin"))
    m = measure(laptop)
    assert m["smallest"] >= 12 - 0.01, m["smallest"]  # layout rounds widths to 1/64 px
    titles = dict(m["nodes"])
    root = f"n{len(graph_model(loss, max_nodes=None).order) - 1}"
    assert inside(titles[root], m["pane"]), "the output is in view"
    screenshot(laptop, tmp_path, "fit-mlp-opens-at-output")
    laptop.find_element("id", "zoomfit").click()
    m = measure(laptop)
    screenshot(laptop, tmp_path, "fit-mlp-fitted")
    out = [(name, box) for name, box in m["nodes"] if not inside(box, m["pane"])]
    assert out == [], (m["pane"], out[:3])  # fit: the whole graph in the pane
    find = laptop.find_element("id", "find")
    find.send_keys("neurons.1.w.1")
    hits = [b.text for b in laptop.find_elements("css selector", "#found button")]
    assert "layers.0.neurons.1.w.1" in hits
    laptop.find_element("xpath", "//div[@id='found']/button[text()='layers.0.neurons.1.w.1']").click()
    assert laptop.find_element("css selector", "#info h2").text == "Node layers.0.neurons.1.w.1"
    picked = laptop.execute_script(
        "const g = document.querySelector('g.mg-picked'); const b = g.getBoundingClientRect();"
        "const p = document.getElementById('graph').getBoundingClientRect();"
        "return [b.left >= p.left && b.right <= p.right && b.top >= p.top && b.bottom <= p.bottom,"
        " g.querySelector('text').textContent]"
    )
    assert picked == [True, "layers.0.neurons.1.w.1"]
    screenshot(laptop, tmp_path, "names-mlp-search")
    assert console_errors(laptop) == []


def test_embedded_as_in_a_notebook_the_text_stays_readable(laptop: Any, tmp_path: Path) -> None:
    model, loss = lecture_loss()
    frames = [explore(lecture_neuron()), explore(loss, model=model, layout="builtin")]
    host = tmp_path / "notebook.html"
    host.write_text(
        '<!DOCTYPE html><html><body style="margin: 0"><main style="width: 760px; margin: 0 auto">'
        + "".join(f"<div>{e._repr_html_()}</div>" for e in frames)
        + "</main></body></html>",
        encoding="utf-8",
    )
    console_errors(laptop)
    laptop.get(host.as_uri())
    from selenium.webdriver.support.ui import WebDriverWait

    for k in range(len(frames)):
        laptop.switch_to.frame(laptop.find_elements("tag name", "iframe")[k])
        try:
            WebDriverWait(laptop, 60).until(
                lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
            )
            m = measure(laptop)
            assert m["smallest"] >= 12 - 0.01, m["smallest"]  # layout rounds widths to 1/64 px
            assert m["below"]  # a narrow output: the panel goes below the graph
            assert laptop.find_element("id", "full").is_displayed()  # and the whole screen is offered
        finally:
            laptop.switch_to.default_content()
    screenshot(laptop, tmp_path, "fit-notebook-embedded")
    assert console_errors(laptop) == []


def test_in_a_box_of_parameters_each_press_is_one_op_step(laptop: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    with record_scopes() as rec:
        _, loss = lecture_loss()
    graph = graph_model(loss, max_nodes=None, names=recorded_names(rec))
    boxes = boxes_of(graph, rec)
    (box,) = [b for b in boxes if b.name == "parameters of layers.1"]
    members = {graph.names[graph.order[i]] for i in box.members}
    steps = graph.backward().steps
    reaching = [
        k for k, s in enumerate(steps) if any(graph.names[c.operand] in members for c in s.contributions)
    ]
    assert len(reaching) >= 16
    open_page(laptop, explore(loss, tmp_path / "params.html", scopes=rec))
    for g in laptop.find_elements("css selector", "#graph g.mg-box"):
        if g.find_element("css selector", "text").text == box.name:
            g.click()
            break
    records = laptop.execute_script(
        "return [...document.querySelectorAll('#graph g.node:not(.mg-box)')]"
        ".map((g) => g.querySelector('text').textContent)"
    )
    assert "layers.1.neurons.0.w.0" in records  # drawn by name, not #63
    laptop.find_element("id", "bwd").click()
    seen = []
    for _ in range(len(reaching)):
        ActionChains(laptop).send_keys(Keys.ARROW_RIGHT).perform()
        m = measure(laptop)
        assert m["where"].startswith("backward: step "), m["where"]
        seen.append(int(m["where"].split()[2]) - 1)
        assert members & set(m["rows"]), m["rows"]  # the op passes gradient to a parameter here
        if len(seen) == 2:
            screenshot(laptop, tmp_path, "step-parameter-box")
    assert seen == reaching  # one op at a time, none skipped
    ActionChains(laptop).send_keys(Keys.ARROW_RIGHT).perform()
    assert measure(laptop)["where"] == "backward done: every gradient"
    assert console_errors(laptop) == []


def test_a_hostile_name_found_by_search_stays_text(laptop: Any, tmp_path: Path) -> None:
    w = Value(0.5)

    class Hostile:
        def named_parameters(self) -> Any:
            yield HOSTILE, w

    open_page(laptop, explore((w * 3.0).tanh(), tmp_path / "hostile.html", model=Hostile()))
    laptop.find_element("id", "find").send_keys("img")
    (hit,) = laptop.find_elements("css selector", "#found button")
    assert hit.text == HOSTILE
    hit.click()
    assert laptop.execute_script("return document.querySelectorAll('img').length") == 0
    assert HOSTILE in laptop.find_element("id", "graph").text
    assert console_errors(laptop) == []


# The overview's parts on screen: whether it shows, the map's box, the rectangle's box (in the
# map's own px) and the pane's scroll.
OVERVIEW = """
const o = document.getElementById("overview"), map = document.getElementById("overview-map");
const lens = document.getElementById("overview-view"), pane = document.getElementById("graph");
const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
return {shown: !o.hidden && o.offsetWidth > 0, map: r(map), lens: r(lens), pane: r(pane),
        scroll: [pane.scrollLeft, pane.scrollTop], inner: [map.width, map.height]};
"""


def overview(driver: Any) -> dict[str, Any]:
    result: dict[str, Any] = driver.execute_script(OVERVIEW)
    return result


def test_a_larger_graph_has_an_overview_that_follows_and_moves_the_view(laptop: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    model, loss = lecture_loss()
    open_page(laptop, explore(loss, tmp_path / "overview.html", model=model, layout="builtin"))
    o = overview(laptop)
    screenshot(laptop, tmp_path, "overview-mlp-at-output")
    assert o["shown"], "a graph larger than its pane shows no overview"
    mp, lens = o["map"], o["lens"]
    assert inside(lens, mp, slack=1.0) and lens[2] - lens[0] < mp[2] - mp[0], (mp, lens)
    assert inside(mp, o["pane"]), "the overview sits in the graph's pane"
    # Scrolled by hand to the picture's top left corner: the rectangle goes to the map's.
    laptop.execute_script("const p = document.getElementById('graph'); p.scrollLeft = 0; p.scrollTop = 0;")
    o = overview(laptop)
    assert abs(o["lens"][0] - mp[0]) < 1.5 and abs(o["lens"][1] - mp[1]) < 1.5, (mp, o["lens"])
    assert o["lens"] != lens
    # A click near the map's bottom right: the view goes there, the rectangle centred on the click.
    map_el = laptop.find_element("id", "overview-map")
    w, h = mp[2] - mp[0], mp[3] - mp[1]
    dx, dy = round(w * 0.4), round(h * 0.3)  # from the map's centre
    ActionChains(laptop).move_to_element_with_offset(map_el, dx, dy).click().perform()
    o = overview(laptop)
    screenshot(laptop, tmp_path, "overview-mlp-after-click")
    assert o["scroll"][0] > 0 and o["scroll"][1] > 0, o["scroll"]
    cx, cy = (o["lens"][0] + o["lens"][2]) / 2, (o["lens"][1] + o["lens"][3]) / 2
    click = (mp[0] + w / 2 + dx, mp[1] + h / 2 + dy)
    # centred unless the pane's scroll stops at the picture's edge (then the rectangle touches it)
    assert abs(cx - click[0]) < 3 or abs(o["lens"][2] - mp[2]) < 1.5, (cx, click, o)
    assert abs(cy - click[1]) < 3 or abs(o["lens"][3] - mp[3]) < 1.5, (cy, click, o)
    # Fitted, the whole graph is in view: no overview; o hides it and shows it again.
    laptop.find_element("id", "zoomfit").click()
    assert not overview(laptop)["shown"]
    laptop.find_element("id", "zoomin").click()
    laptop.find_element("id", "zoomin").click()
    assert overview(laptop)["shown"]
    ActionChains(laptop).send_keys("o").perform()
    assert not overview(laptop)["shown"]
    ActionChains(laptop).send_keys("o").perform()
    assert overview(laptop)["shown"]
    assert console_errors(laptop) == []


def test_a_graph_that_fits_has_no_overview(laptop: Any, tmp_path: Path) -> None:
    open_page(laptop, explore(lecture_neuron(), tmp_path / "neuron.html"))
    assert not overview(laptop)["shown"]
