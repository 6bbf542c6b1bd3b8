"""The explorer and the training replay in a real headless browser (Debian's Chromium, via Selenium).

Every number the pages show is checked against the engine: at every step of the backward pass
the step panel shows explain's line and every node's grad field its running sum; at the end the
gradients of ``backward()``; the training page's last step shows the loss the demo printed.
Screenshots go to each test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any

import pytest

from micrograd import Value, explain, explore, topological_order
from micrograd.viz import backward_steps
from micrograd.viz.graph_model import graph_model
from tests.browser_support import browser, console_errors, needs_browser, screenshot
from tests.explore_graphs import GRAPHS, explain_steps, operand_line

pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")
from tests.graphviz_support import needs_dot

pytestmark = [needs_browser, needs_dot]
__all__ = ["browser"]  # the fixture, imported for the tests of this module

STATE = """
const q = (s) => document.querySelector(s);
const text = (s) => q(s) ? q(s).textContent : null;
const fields = {};
for (const g of document.querySelectorAll("g.node")) {
  const t = g.querySelectorAll("text");
  const name = g.querySelector("title").textContent;
  if (!name.endsWith("_op")) fields[name] = [t[t.length - 2].textContent, t[t.length - 1].textContent];
}
const rows = [...document.querySelectorAll("tr[data-mg=contribution]")].map((tr) =>
  ["operand", "local", "up", "contrib", "total"].map((k) => tr.querySelector(`[data-mg=${k}]`).textContent));
const notation = [...document.querySelectorAll("[data-mg=notation]")].map((line) =>
  ["dlocal", "dname"].map((k) => line.querySelector(`[data-mg=${k}]`).textContent));
return {ready: document.body.getAttribute("data-mg-ready"), where: text("#where"),
        node: text("[data-mg=node]"), upstream: text("[data-mg=upstream]"),
        norule: text("[data-mg=norule]"), rows: rows, notation: notation, fields: fields,
        edges: [...document.querySelectorAll("g.mg-edge-label text")].map((t) => t.textContent),
        current: [...document.querySelectorAll("g.node.mg-current > title")].map((t) => t.textContent)};
"""


def fmt(x: float) -> str:
    """explain's number format."""
    if math.isnan(x) or math.isinf(x):
        return str(x)
    return f"{x:.4f}" if x == 0.0 or 1e-3 <= abs(x) < 1e6 else f"{x:.4e}"


def state(driver: Any) -> dict[str, Any]:
    result: dict[str, Any] = driver.execute_script(STATE)
    return result


def press(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def open_page(driver: Any, path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    console_errors(driver)  # forget earlier pages' messages
    driver.get(path.as_uri())
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
    )


def graphs() -> list[str]:
    return [name for name, make in GRAPHS.items() if name != "user_function" or make() is not None]


@pytest.mark.parametrize("name", graphs())
def test_every_backward_step_shows_explains_numbers_and_the_running_gradients(
    browser: Any, tmp_path: Path, name: str
) -> None:
    from selenium.webdriver.common.keys import Keys

    root = GRAPHS[name]()
    assert root is not None
    out = io.StringIO()
    explain(root, file=out)
    steps = explain_steps(out.getvalue())
    # every Value is drawn but micrograd.sum's start of 0 (ids stay positions in the forward order)
    hidden = graph_model(root).hidden
    order = [v for v in topological_order(root) if v not in hidden]
    ids = {v: f"n{i}" for i, v in enumerate(topological_order(root))}
    page = explore(root, tmp_path / f"{name}.html")
    open_page(browser, page)

    # It opens at the start of the backward pass: every value shown, every gradient blank.
    s = state(browser)
    assert s["where"].startswith("forward done")
    assert {f[1] for f in s["fields"].values()} == {"grad"}
    assert [s["fields"][ids[v]][0] for v in order] == [f"data {fmt(v.data)}" for v in order]

    trace = backward_steps(root)
    assert len(trace.steps) == len(steps)
    shown = {ids[root]: "1.0000"}  # the seed
    for k, (head, operand_lines) in enumerate(steps):
        if k % 2:
            browser.find_element("id", "next").click()
        else:
            press(browser, Keys.ARROW_RIGHT)
        s = state(browser)
        assert s["where"] == f"backward: step {k + 1} of {len(steps)}"
        assert f"{s['node']}  {s['upstream']}" == head
        if trace.steps[k].has_rule:
            assert s["norule"] is None
            # The table and the notation below it, written as explain writes them.
            names = [row[0] for row in s["rows"]]
            lines = []
            for i, (row, (dlocal, dname)) in enumerate(zip(s["rows"], s["notation"])):
                _, local, up, contribution, total = row
                assert up.startswith("× ") and contribution.startswith("= ")
                lines.append(operand_line(names, i, dlocal, local, up[2:], contribution[2:], dname, total))
            assert lines == operand_lines
            # Each contribution is also written on its edge.
            assert s["edges"] == [row[3][2:] for row in s["rows"]]
            for c in trace.steps[k].contributions:
                shown[ids[c.operand]] = fmt(c.total)
        else:
            assert s["norule"] == operand_lines[0] and s["edges"] == []
        expected = {i: f"grad {shown[i]}" if i in shown else "grad" for i in s["fields"]}
        assert {i: f[1] for i, f in s["fields"].items()} == expected, f"after step {k + 1}"
        if k == len(steps) // 2:
            screenshot(browser, tmp_path, f"explorer-{name}-mid-backward")

    # The end: every gradient, as backward() computes it (by hand: it stops at the rule-less node).
    press(browser, Keys.END)
    s = state(browser)
    assert s["where"] == "backward done: every gradient"
    if name != "by_hand":  # (backward() refuses a node built without a rule, rather than stop there)
        for v in order:
            v.grad = 0.0
        root.backward()
        assert {i: f[1] for i, f in s["fields"].items()} == {ids[v]: f"grad {fmt(v.grad)}" for v in order}
    leaves = [v for v in order if not v._prev and v is not root]
    assert browser.execute_script(LEAVES) == [
        [node_name(order, v), fmt(v.data), fmt(trace.grads[v])] for v in leaves
    ]
    explained = re.findall(
        r"  data (\S+)  .* = (\S+)$", out.getvalue().split("with respect to the leaves:")[-1], flags=re.M
    )
    assert explained == [(fmt(v.data), fmt(trace.grads[v])) for v in leaves]
    screenshot(browser, tmp_path, f"explorer-{name}-end")
    assert console_errors(browser) == []


LEAVES = """return [...document.querySelectorAll("tr[data-mg=leaf]")].map(
  (tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent));"""


def node_name(order: list[Value], v: Value) -> str:
    from micrograd.viz.graph_model import names_of

    return names_of(order, expressions=True)[v]  # as the explorer names it


def test_forward_mode_shows_the_values_in_topological_order(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    root = GRAPHS["reused"]()
    assert root is not None
    # micrograd.sum's start of 0 is not drawn, nor a stop, nor counted
    hidden = graph_model(root).hidden
    assert len(hidden) == 1
    order = [(f"n{i}", v) for i, v in enumerate(topological_order(root)) if v not in hidden]
    open_page(browser, explore(root, tmp_path / "forward.html"))
    press(browser, Keys.HOME)
    s = state(browser)
    assert s["where"] == f"forward: 0 of {len(order)} Values"
    assert {tuple(f) for f in s["fields"].values()} == {("data", "grad")}
    for i, (key, _) in enumerate(order):
        press(browser, Keys.ARROW_RIGHT)
        s = state(browser)
        assert key in s["current"]
        if i < len(order) - 1:
            assert s["where"] == f"forward: {i + 1} of {len(order)} Values"
        assert [s["fields"][k][0] for k, _ in order] == [
            f"data {fmt(w.data)}" if j <= i else "data" for j, (_, w) in enumerate(order)
        ]
        if i == len(order) // 2:
            screenshot(browser, tmp_path, "explorer-forward")
    press(browser, "b")
    assert state(browser)["where"].startswith("forward done")
    assert console_errors(browser) == []


def test_clicking_a_node_shows_its_op_data_grad_label_and_rule(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    root = GRAPHS["readme"]()
    assert root is not None
    order = topological_order(root)
    e = next(v for v in order if v.label == "e")
    open_page(browser, explore(root, tmp_path / "click.html"))
    title = f"*[local-name()='title' and text()='n{order.index(e)}']"
    g = browser.find_element("xpath", f"//*[local-name()='g'][{title}]")
    ActionChains(browser).move_to_element(g).click().perform()
    info = browser.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#info dd')]"
        ".map((dd) => [dd.getAttribute('data-mg'), dd.textContent]))"
    )
    assert info["info-label"] == "e"
    assert info["info-op"] == "*: e = a * b"
    assert info["info-data"] == repr(e.data)
    assert info["info-grad"] == "dL/de = -2.0"
    assert info["info-rule"].startswith("d(a*b)/da = b, d(a*b)/db = a")
    screenshot(browser, tmp_path, "explorer-clicked")
    assert console_errors(browser) == []


def test_play_runs_to_the_end_and_stops(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    root = GRAPHS["readme"]()
    assert root is not None
    open_page(browser, explore(root, tmp_path / "play.html"))
    Select(browser.find_element("id", "speed")).select_by_value("8")
    browser.find_element("id", "play").click()
    assert "pause" in browser.find_element("id", "play").text
    WebDriverWait(browser, 20).until(lambda d: state(d)["where"] == "backward done: every gradient")
    assert "play" in browser.find_element("id", "play").text
    assert console_errors(browser) == []


def test_in_a_notebook_two_explorers_live_side_by_side(browser: Any, tmp_path: Path) -> None:
    """What Jupyter does with _repr_html_: put it in the output area (here, twice in one page)."""
    from selenium.webdriver.support.ui import WebDriverWait

    a, b = GRAPHS["readme"](), GRAPHS["reused"]()
    assert a is not None and b is not None
    cells = "".join(f"<div class='output'>{explore(r)._repr_html_()}</div>" for r in (a, b))
    notebook = tmp_path / "notebook.html"
    notebook.write_text(f"<!DOCTYPE html><html><body><h3>cell output</h3>{cells}</body></html>", "utf-8")
    browser.get(notebook.as_uri())
    frames = browser.find_elements("tag name", "iframe")
    assert len(frames) == 2
    for frame in frames:
        browser.switch_to.frame(frame)
        WebDriverWait(browser, 20).until(lambda d: state(d)["ready"] == "1")
        browser.find_element("id", "next").click()
        s = state(browser)
        assert s["where"].startswith("backward: step 1 of")
        assert s["upstream"].endswith("= 1.0000 (the seed)")
        browser.switch_to.default_content()
    screenshot(browser, tmp_path, "explorer-notebook")
    assert console_errors(browser) == []


# ---- the training replay --------------------------------------------------------------------


def training_page(browser: Any, tmp_path: Path, demo: Any, args: list[str], capsys: Any) -> str:
    """Run a demo, open its training.html, scrub to the end; return the loss the demo printed."""
    from selenium.webdriver.common.keys import Keys

    assert demo.main([*args, "--quiet", "--out", str(tmp_path)]) == 0
    pattern = r"after (\d+) steps \(\w+\): loss (\S+), training accuracy (\d+%)"
    printed = re.search(pattern, capsys.readouterr().out)
    assert printed
    open_page(browser, tmp_path / "training.html")
    status = browser.find_element("id", "status")
    assert status.text.startswith(f"step 1 of {printed.group(1)}:")
    scrub = browser.find_element("id", "scrub")
    scrub.click()  # lands mid-way, as a click on a slider does
    assert status.text.startswith("step ")
    scrub.send_keys(Keys.END)
    assert status.get_attribute("data-loss") == printed.group(2)
    assert status.text.startswith(f"after {printed.group(1)} steps:")
    assert status.text.endswith(f" {printed.group(2)}, accuracy {printed.group(3)}")
    return printed.group(2)


def test_moons_training_page_scrubs_to_the_loss_the_demo_printed(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    from demos import moons

    training_page(browser, tmp_path, moons, ["--steps", "12", "--samples", "40"], capsys)
    screenshot(browser, tmp_path, "training-moons-end")
    # Step back: each step shows its own loss, the one the training loop recorded.
    data = browser.execute_script("return JSON.parse(document.getElementById('mg-data').textContent)")
    status = browser.find_element("id", "status")
    for k in reversed(range(12)):
        press(browser, Keys.ARROW_LEFT)
        assert status.get_attribute("data-loss") == data["loss_text"][k]
        assert status.text.startswith(f"step {k + 1} of 12:")
    # Hover a weight of the heat map: its name, value and gradient at this step.
    cell = browser.find_elements("css selector", "#weights .cell")[5]
    ActionChains(browser).move_to_element(cell).perform()
    frame = data["frames"][0]
    name, value, grad = re.fullmatch(
        r"(\S+) = (\S+) +grad (\S+)", browser.find_element("id", "param").text
    ).groups()
    assert (name, float(value), float(grad)) == (data["names"][5], frame["weights"][5], frame["grads"][5])
    # Click the loss curve near its right end: the replay jumps to the trained model.
    loss = browser.find_element("id", "loss")
    ActionChains(browser).move_to_element_with_offset(loss, loss.size["width"] // 2 - 6, 0).click().perform()
    assert status.text.startswith("after 12 steps:")
    assert console_errors(browser) == []


def test_spirals_training_page_scrubs_to_the_loss_the_demo_printed(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from demos import spirals

    training_page(browser, tmp_path, spirals, ["--steps", "8", "--samples", "30", "--batch", "10"], capsys)
    screenshot(browser, tmp_path, "training-spirals-end")
    assert console_errors(browser) == []


def test_both_pages_step_play_and_pause_with_the_same_controls(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """micrograd.viz.page on each page: space plays and pauses, Home and End, the buttons,
    playing stops at the last frame; the explorer's own keys (+ and - for the speed, f)."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from demos import moons

    def playing(d: Any) -> bool:
        return "pause" in d.find_element("id", "play").text

    root = GRAPHS["readme"]()
    assert root is not None
    open_page(browser, explore(root, tmp_path / "controls.html"))
    speed = Select(browser.find_element("id", "speed"))
    assert speed.first_selected_option.text == "1 / s"
    press(browser, "+")
    press(browser, "+")
    assert speed.first_selected_option.text == "4 / s"
    press(browser, "-")
    assert speed.first_selected_option.text == "2 / s"
    press(browser, " ")
    assert playing(browser)
    press(browser, " ")
    assert not playing(browser)
    press(browser, "f")
    assert state(browser)["where"].startswith("forward: 0 of")
    press(browser, Keys.END)
    assert state(browser)["where"] == "backward done: every gradient"
    browser.find_element("id", "first").click()
    assert state(browser)["where"].startswith("forward: 0 of")
    assert console_errors(browser) == []

    assert moons.main(["--steps", "6", "--samples", "20", "--quiet", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    open_page(browser, tmp_path / "training.html")
    status = browser.find_element("id", "status")
    Select(browser.find_element("id", "speed")).select_by_value("25")
    browser.execute_script("document.activeElement.blur()")  # keys typed into the select are its own
    press(browser, Keys.END)
    assert status.text.startswith("after 6 steps:")
    press(browser, Keys.HOME)
    assert status.text.startswith("step 1 of 6:")
    press(browser, "+")  # the replay has no speed keys: nothing happens
    assert Select(browser.find_element("id", "speed")).first_selected_option.text == "25 / s"
    press(browser, " ")
    assert playing(browser)
    WebDriverWait(browser, 20).until(lambda d: d.find_element("id", "status").text.startswith("after 6"))
    assert not playing(browser)
    browser.find_element("id", "prev").click()
    assert status.text.startswith("step 6 of 6:")
    browser.find_element("id", "play").click()  # from the step before the end: plays on to it
    WebDriverWait(browser, 20).until(lambda d: not playing(d))
    assert status.text.startswith("after 6 steps:")
    assert console_errors(browser) == []


# ---- the view: fitted, readable --------------------------------------------------------------------

VIEW = """
const pane = document.getElementById("graph").getBoundingClientRect();
const svg = document.querySelector("#graph svg").getBoundingClientRect();
const sizes = [...document.querySelectorAll("#graph svg text")].map((t) => t.getBoundingClientRect().height)
  .filter((h) => h > 0);
const nodes = [...document.querySelectorAll("#graph g.node")].map((g) => g.getBoundingClientRect());
return {pane: [pane.left, pane.top, pane.width, pane.height], svg: [svg.left, svg.top, svg.width, svg.height],
        smallest: Math.min(...sizes),
        left: Math.min(...nodes.map((r) => r.left)) + document.getElementById("graph").scrollLeft,
        scroll: [document.getElementById("graph").scrollWidth, document.getElementById("graph").clientWidth]};
"""


def lecture_graph() -> Value:
    a, b, c, f = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c"), Value(-2.0, label="f")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    return L


def mlp_graph() -> Value:
    from nn import MLP

    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", seed=0)
    return model([2.0, 3.0, -1.0])


@pytest.mark.parametrize("name", ["lecture", "mlp"])
def test_the_explorer_opens_fitted_with_text_at_least_12px_at_1280x800(
    browser: Any, tmp_path: Path, name: str
) -> None:
    root = lecture_graph() if name == "lecture" else mlp_graph()
    browser.set_window_size(1280, 800)
    try:
        open_page(browser, explore(root, tmp_path / f"{name}.html"))
        view = browser.execute_script(VIEW)
        screenshot(browser, tmp_path, f"view-{name}-1280x800")
    finally:
        browser.set_window_size(1400, 900)
    # every text of the graph (numbers, labels, op names) at least 12 px tall on screen
    assert view["smallest"] >= 12 * 0.95, view  # (a glyph box is about the font size)
    # nothing clipped on the left: scrolled to its start, the leftmost node is inside the pane
    assert view["left"] >= view["pane"][0] - 1, view
    if name == "mlp":  # too large to fit at 12 px: it opens readable and scrolls
        assert view["scroll"][0] > view["scroll"][1], view
    else:  # the lecture's graph fits: it fills the pane's width or height, nothing to scroll
        pane_w, pane_h, svg_w, svg_h = view["pane"][2], view["pane"][3], view["svg"][2], view["svg"][3]
        assert svg_w <= pane_w and svg_h <= pane_h, view
        assert svg_w >= 0.9 * (pane_w - 40) or svg_h >= 0.9 * (pane_h - 40), view
        assert view["scroll"][0] <= view["scroll"][1], view


def test_a_batchs_loss_of_thousands_of_values_opens_and_steps(browser: Any, tmp_path: Path) -> None:
    """The loss of 8 moons samples (3,589 Values, the built-in layout): the page opens readable and
    each step shows explain's numbers, the last step every gradient."""
    import micrograd
    from nn import MLP

    model = MLP(2, [16, 16, 1], seed=1)
    points = [[0.1 * k, 1.0 - 0.2 * k] for k in range(8)]
    loss = micrograd.sum((1 + -1.0 * model(x)).relu() for x in points) * (1 / 8)
    order = topological_order(loss)
    trace = backward_steps(loss, max_nodes=None)
    browser.set_window_size(1280, 800)
    try:
        open_page(browser, explore(loss, tmp_path / "batch.html"))
        assert browser.execute_script(VIEW)["smallest"] >= 12 * 0.95
        for k in range(3):
            browser.find_element("id", "next").click()
            s = state(browser)
            assert s["where"] == f"backward: step {k + 1} of {len(trace.steps)}"
            step = trace.steps[k]
            assert [row[4] for row in s["rows"]] == [fmt(c.total) for c in step.contributions]
        screenshot(browser, tmp_path, "batch-3589-values-step-3")
        browser.find_element("id", "last").click()
        s = state(browser)
        ids = {v: f"n{i}" for i, v in enumerate(order)}
        drawn = [v for v in order if v not in graph_model(loss, max_nodes=None).hidden]
        assert len(drawn) == len(order) - 1 and len(s["fields"]) == len(drawn)
        assert all(s["fields"][ids[v]][1] == f"grad {fmt(trace.grads[v])}" for v in drawn)
    finally:
        browser.set_window_size(1400, 900)
