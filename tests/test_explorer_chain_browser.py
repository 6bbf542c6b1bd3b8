"""The lecture's neuron on request, in a real headless Chromium: a ``dot`` node picked in the
explorer offers "show as the lecture's chain"; a click shows the same graph with the products
and partial sums as nodes of their own, every value and gradient the engine's (as
``graph_model(..., expand_dot=True)`` computes them), and "show as one node" goes back.
Screenshots at 1280×800 go to the test's tmp folder, /tmp/explorer-shots/ and /tmp/shots/names2/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from micrograd import Value, explore
from micrograd.ops import weighted_sum
from micrograd.viz.graph_model import fmt, graph_model
from tests.browser_support import browser, console_errors, needs_browser, screenshot

pytestmark = [needs_browser]
__all__ = ["browser"]  # the fixture, imported for the tests of this module

SHOTS = Path("/tmp/shots/names2")

FIELDS = """
const out = {};
for (const g of document.querySelectorAll("g.node")) {
  const name = g.querySelector("title").textContent;
  if (name.endsWith("_op")) continue;
  const t = [...g.querySelectorAll("text")].map((e) => e.textContent);
  out[name] = [t.slice(0, t.length - 2).join(" "), t[t.length - 2], t[t.length - 1]];
}
return out;
"""


def lecture_neuron() -> Value:
    """The lecture's neuron, its ``x1*w1 + x2*w2 + b`` one ``dot`` node (as ``weighted_sum`` makes it)."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    n = weighted_sum([x1, x2], [w1, w2], start=b)
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o


def wait_ready(driver: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.body?.getAttribute('data-mg-ready')") == "1"
    )


def click_node(driver: Any, node_id: str) -> None:
    driver.execute_script(
        "[...document.querySelectorAll('g.node')].find((g) => g.querySelector('title').textContent"
        " === arguments[0]).dispatchEvent(new MouseEvent('click', {bubbles: true}))",
        node_id,
    )


def test_a_click_shows_the_dot_as_the_lectures_chain_with_the_engines_numbers(
    browser: Any, tmp_path: Path
) -> None:
    o = lecture_neuron()
    one = graph_model(o, expressions=True)
    chain = graph_model(o, expressions=True, expand_dot=True)
    (n,) = chain.chains
    trace = chain.backward()
    browser.set_window_size(1280, 800)
    try:
        console_errors(browser)
        browser.get(explore(o, tmp_path / "neuron.html").as_uri())
        wait_ready(browser)
        assert len(browser.execute_script(FIELDS)) == len(one.order)  # one dot node at first
        click_node(browser, one.id(n))
        button = browser.find_element("css selector", "#info button[data-mg=chain]")
        assert button.text == "show as the lecture's chain"
        button.click()
        wait_ready(browser)
        # the chain: x1*w1, b + x1*w1, x2*w2 and n, its last +; n picked, its button to go back
        info = browser.find_element("id", "info").text
        assert "Node n" in info and "+: n = b + x1*w1 + x2*w2" in info, info
        back = browser.find_element("css selector", "#info button[data-mg=chain]")
        assert back.text == "show as one node"
        browser.find_element("id", "last").click()  # the end: every gradient
        fields = browser.execute_script(FIELDS)
        assert set(fields) == {chain.id(v) for v in chain.order}
        for v in chain.order:
            shown = [chain.names[v], f"data {fmt(v.data)}", f"grad {fmt(trace.grads[v])}"]
            assert fields[chain.id(v)] == shown
        assert {chain.names[v] for v in chain.chains[n].links} == {"x1*w1", "x2*w2", "b + x1*w1"}
        # the full numbers, in a link's details: the engine's, bit for bit
        link = chain.chains[n].links[1]
        click_node(browser, chain.id(link))
        assert browser.find_element("css selector", "[data-mg=info-data]").text == repr(link.data)
        assert repr(trace.grads[link]) in browser.find_element("css selector", "[data-mg=info-grad]").text
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / "lecture-neuron-chain-1280x800.png"))
        screenshot(browser, tmp_path, "lecture-neuron-chain")
        assert console_errors(browser) == []
        click_node(browser, chain.id(n))
        browser.find_element("css selector", "#info button[data-mg=chain]").click()
        wait_ready(browser)
        assert len(browser.execute_script(FIELDS)) == len(one.order)  # one dot node again
        assert console_errors(browser) == []
    finally:
        browser.set_window_size(1400, 900)


def test_expand_dot_opens_as_the_chain_and_labels_stay_text(browser: Any, tmp_path: Path) -> None:
    o = lecture_neuron()
    w1 = o._prev[0]._prev[3]
    w1.label = "<img src=x onerror=alert(1)>"
    chain = graph_model(o, expressions=True, expand_dot=True)
    console_errors(browser)
    browser.get(explore(o, tmp_path / "chain.html", expand_dot=True).as_uri())
    wait_ready(browser)
    fields = browser.execute_script(FIELDS)
    assert len(fields) == len(chain.order) and browser.find_elements("css selector", "img") == []
    assert fields[chain.id(w1)][0] == "<img src=x onerror=alert(1)>"
    (n,) = chain.chains
    click_node(browser, chain.id(n))
    browser.find_element("css selector", "#info button[data-mg=chain]").click()  # to one node
    wait_ready(browser)
    assert browser.find_elements("css selector", "img") == []
    assert len(browser.execute_script(FIELDS)) == len(chain.order) - len(chain.chains[n].links)
    assert console_errors(browser) == []
