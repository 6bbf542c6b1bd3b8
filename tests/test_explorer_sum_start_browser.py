"""``micrograd.sum``'s start of 0 is no stop of the explorer's forward pass and no operand of the
sum, in a real headless Chromium: → goes from a to b to a*b to s, and s reads ``a*b + b``.
A screenshot goes to the test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import micrograd
from micrograd import Value, explore
from tests.browser_support import browser, console_errors, needs_browser, screenshot

pytestmark = [needs_browser]
__all__ = ["browser"]  # the fixture, imported for the tests of this module


def test_the_start_of_a_sum_is_not_a_step_nor_an_operand(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    s = micrograd.sum([a * b, b])
    s.label = "s"
    console_errors(browser)
    browser.get(explore(s, tmp_path / "sum.html").as_uri())
    WebDriverWait(browser, 60).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
    )
    titles = browser.execute_script(
        "return [...document.querySelectorAll('svg g.node > title')].map((t) => t.textContent)"
    )
    assert "n0" not in titles and "n1" in titles  # n0: the start of 0, kept in the data, not drawn

    def press(name: str) -> str:
        browser.execute_script(
            "document.dispatchEvent(new KeyboardEvent('keydown', {key: arguments[0]}))", name
        )
        return str(browser.find_element("css selector", "aside").text)

    first_backward = press("b")  # the backward pass's first step: the sum's, two operands
    assert "s = a*b + b" in first_backward and "0.0000" not in first_backward.split("Node")[0]
    press("Home")
    panels = [press("ArrowRight") for _ in range(5)]  # four stops, a, b, a*b and s, then the backward pass
    assert "a*b = a * b = -6.0000" in panels[2], panels[2]
    assert "s = a*b + b = -9.0000" in panels[3], panels[3]
    assert "Backward step" in panels[4] and not any("= 0.0000" in p for p in panels[:4])
    screenshot(browser, tmp_path, "sum-start")
    assert console_errors(browser) == []
