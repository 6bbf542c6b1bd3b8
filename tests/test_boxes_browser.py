"""The explorer's graph in boxes (``explore(..., scopes=)``) in a real headless browser: a box
opens on click, the path above the graph goes back up, and stepping at any level goes box by box
with the chain rule's numbers through each box (checked against ``micrograd.viz.boxes``).

Screenshots at 1280x800 go to each test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import micrograd
from micrograd import Value, explore
from micrograd.scopes import record_scopes
from micrograd.viz.boxes import boxes_of, runs_of
from micrograd.viz.graph_model import fmt, graph_model, recorded_names
from nn import GPT, MLP
from tests.browser_support import browser, console_errors, needs_browser, screenshot

pytestmark = [needs_browser]
__all__ = ["browser"]  # the fixture, imported for the tests of this module

PANE = """
const q = (s) => [...document.querySelectorAll(s)];
const titles = (s) => q(s).map((g) => g.querySelector("title").textContent);
const cells = (tr) => [...tr.children].map((c) => c.textContent);
const sizes = q("#graph svg text").map((t) => t.getBoundingClientRect().height).filter((h) => h > 0);
return {crumbs: q("#crumbs button").map((b) => b.textContent),
        boxes: q("#graph g.mg-box:not(.mg-outside)").map((g) => [g.querySelector("title").textContent,
                                                                g.querySelector("text").textContent]),
        outside: titles("#graph g.mg-outside"), records: titles("#graph g.node:not(.mg-box)")
                 .filter((t) => !t.endsWith("_op")),
        current: titles("#graph g.mg-current"), where: document.getElementById("where").textContent,
        heading: document.querySelector("#step h2").textContent, smallest: Math.min(...sizes),
        upstream: q("[data-mg=box-upstream] tr").slice(1).map(cells),
        given: q("tr[data-mg=box-input]").map(cells),
        rows: q("tr[data-mg=contribution]").map((tr) => tr.querySelector("[data-mg=total]").textContent)};
"""


def pane(driver: Any) -> dict[str, Any]:
    result: dict[str, Any] = driver.execute_script(PANE)
    return result


def open_page(driver: Any, path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    console_errors(driver)
    driver.get(path.as_uri())
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
    )


def click_box(driver: Any, name: str) -> None:
    """Click the closed box called ``name`` in the graph, as a person would."""
    for g in driver.find_elements("css selector", "#graph g.mg-box:not(.mg-outside)"):
        if g.find_element("css selector", "text").text == name:
            driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", g)
            g.click()
            return
    raise AssertionError(f"no box called {name!r} in {pane(driver)['boxes']}")


def open_path(driver: Any, *names: str) -> dict[str, Any]:
    """Open the boxes ``names``, each inside the one before, and return what the pane shows."""
    for name in names:
        click_box(driver, name)
    shown = pane(driver)
    assert shown["crumbs"][-len(names) :] == list(names)
    return shown


def test_a_gpt_step_opens_box_by_box_down_to_an_attention_head(browser: Any, tmp_path: Path) -> None:
    model = GPT(27, 16, seed=0)
    with record_scopes() as rec:
        loss = model.loss([26, 4, 12, 12, 0, 26])
    loss.label = "loss"
    browser.set_window_size(1280, 800)
    try:
        open_page(browser, explore(loss, tmp_path / "gpt.html", scopes=rec))
        top = pane(browser)
        assert top["crumbs"] == ["the whole graph"]
        names = [name for _, name in top["boxes"]]
        assert all(f"position {t}" in names and f"loss at {t}" in names for t in range(5))
        assert top["smallest"] >= 12 * 0.95
        screenshot(browser, tmp_path, "grouped-gpt-whole-graph")
        inside = open_path(browser, "position 1", "layers.0", "attn")
        assert inside["crumbs"] == ["the whole graph", "position 1", "layers.0", "attn"]
        assert {name for _, name in inside["boxes"]} >= {"wq", "wk", "wv", "wo", "head 0", "head 3"}
        outside = "return [...document.querySelectorAll('.mg-box.mg-outside text')].map((t) => t.textContent)"
        assert "position 0" in browser.execute_script(outside)  # the keys and values the heads read
        assert inside["smallest"] >= 12 * 0.95
        screenshot(browser, tmp_path, "grouped-gpt-attention")
        click_box(browser, "head 0")
        head = pane(browser)
        assert head["crumbs"][-1] == "head 0" and head["records"]  # its own Values, drawn
        screenshot(browser, tmp_path, "grouped-gpt-head")
        browser.find_elements("css selector", "#crumbs button")[0].click()  # back to the top
        assert pane(browser)["crumbs"] == ["the whole graph"]
        assert console_errors(browser) == []
    finally:
        browser.set_window_size(1400, 900)


def test_stepping_goes_box_by_box_with_the_chain_rule_through_each(browser: Any, tmp_path: Path) -> None:
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", seed=0)
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    with record_scopes() as rec:
        loss = micrograd.sum((model(x) - y) ** 2 for x, y in zip(xs, [1.0, -1.0, -1.0, 1.0]))
    loss.label = "loss"
    graph = graph_model(loss, max_nodes=None, names=recorded_names(rec))  # the page's names
    boxes = boxes_of(graph, rec)
    trace = graph.backward()
    runs = runs_of(graph, boxes, trace)
    names = {i: graph.names[v] for i, v in enumerate(graph.order)}
    browser.set_window_size(1280, 800)
    try:
        open_page(browser, explore(loss, tmp_path / "lecture-boxes.html", scopes=rec))
        screenshot(browser, tmp_path, "grouped-lecture-whole-graph")
        seen_boxes = 0
        for _ in range(12):  # at the top: each sample's MLP call is one step, whole
            browser.find_element("id", "next").click()
            now = pane(browser)
            if not now["heading"].startswith("Backward through"):
                continue
            name = now["heading"].removeprefix("Backward through ")
            box = next(b for b in boxes if b.name == name)
            step = int(now["where"].split()[2]) - 1
            (run,) = [r for r in runs[box.index] if r.first <= step <= r.last]
            assert step == run.last  # one press: the whole run of steps inside the box
            assert now["upstream"] == [[names[i], fmt(g)] for i, g in run.upstream]
            assert now["given"] == [[names[i], fmt(g), fmt(t)] for i, g, t in run.given]
            assert now["current"] == [f"g{box.index}"]
            seen_boxes += 1
        assert seen_boxes >= 3
        screenshot(browser, tmp_path, "grouped-lecture-backward-through-a-box")
        assert open_path(browser, "MLP (4)", "layers.0", "neurons.1")["crumbs"][0] == "the whole graph"
        browser.find_element("id", "last").click()
        for _ in range(40):  # inside the neuron, a step is one op, with explain's numbers
            browser.find_element("id", "prev").click()
            now = pane(browser)
            if now["rows"]:
                step = int(now["where"].split()[2]) - 1
                assert now["rows"] == [fmt(c.total) for c in trace.steps[step].contributions]
                break
        else:
            raise AssertionError("no step of the neuron's ops was shown")
        screenshot(browser, tmp_path, "grouped-lecture-inside-a-neuron")
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(browser).send_keys("u").perform()  # u: up one box
        assert pane(browser)["crumbs"][-1] == "layers.0"
        assert console_errors(browser) == []
    finally:
        browser.set_window_size(1400, 900)


def test_a_scopes_name_shows_as_text(browser: Any, tmp_path: Path) -> None:
    x = Value(1.0, label="x")
    with (
        record_scopes() as rec,
        micrograd.scopes.scope("<b>bold</b> <img src=x onerror=alert(1)>", inputs=[x]),
    ):
        y = x * x
    open_page(browser, explore(y + 1, tmp_path / "name.html", scopes=rec))
    (box,) = pane(browser)["boxes"]
    assert box[1] == "<b>bold</b> <img src=x onerror=alert(1)>"
    assert browser.execute_script("return document.querySelectorAll('#graph b, #graph img').length") == 0
    click_box(browser, box[1])
    assert pane(browser)["crumbs"][-1] == "<b>bold</b> <img src=x onerror=alert(1)>"
    assert browser.execute_script("return document.querySelectorAll('#crumbs b, #crumbs img').length") == 0
