"""The explorer's toolbar holds still while the learner steps: every button, the speed list and the
slider stay where they were as the step text ("forward: 3 of 100 Values", "forward done · backward:
0 of 140 steps", ...) and the play button's label change, in a real headless Chromium at 1280x800
and 1024x768.  Screenshots go to the test's tmp folder and to /tmp/explorer-shots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import micrograd
from micrograd import explore
from nn import MLP
from tests.browser_support import browser, console_errors, needs_browser, screenshot

pytestmark = [needs_browser]
__all__ = ["browser"]  # the fixture, imported for the tests of this module

# Where each control of the bar is on screen (left, top, width), by its id or its tag.
CONTROLS = """
return [...document.querySelectorAll("header .bar > button, header .bar select, header .bar input")]
  .filter((e) => !e.hidden)
  .map((e) => { const b = e.getBoundingClientRect();
                return [e.id || e.tagName, Math.round(b.left * 10) / 10, Math.round(b.top * 10) / 10,
                        Math.round(b.width * 10) / 10]; });
"""


def key(driver: Any, name: str) -> None:
    driver.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', {key: arguments[0]}))", name)


def lecture_loss() -> micrograd.Value:
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", seed=0)
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    loss = micrograd.sum((model(x) - y) ** 2 for x, y in zip(xs, [1.0, -1.0, -1.0, 1.0]))
    loss.label = "loss"
    return loss


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)], ids=["1280x800", "1024x768"])
def test_the_toolbar_does_not_move_as_the_step_text_changes(
    browser: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.set_window_size(*size)
    try:
        console_errors(browser)
        browser.get(explore(lecture_loss(), tmp_path / "loss.html").as_uri())
        WebDriverWait(browser, 60).until(
            lambda d: d.execute_script("return document.body.getAttribute('data-mg-ready')") == "1"
        )
        seen: dict[str, list[Any]] = {}
        # Each kind of step text, short and long: the start, forward steps, the turn to the
        # backward pass, backward steps with more digits, the end; and the play button playing.
        for keys in (["Home"], ["ArrowRight"] * 9, ["ArrowRight"], ["b"], ["ArrowRight"] * 12, ["End"]):
            for name in keys:
                key(browser, name)
            seen[browser.find_element("id", "where").text] = browser.execute_script(CONTROLS)
            cut = browser.execute_script(
                "const w = document.getElementById('where'); return w.scrollWidth > w.clientWidth"
            )
            assert not cut, f"the step text is cut: {browser.find_element('id', 'where').text}"
        key(browser, "Home")
        browser.find_element("id", "play").click()
        seen["playing: " + browser.find_element("id", "play").text] = browser.execute_script(CONTROLS)
        browser.find_element("id", "play").click()
        screenshot(browser, tmp_path, f"toolbar-{size[0]}x{size[1]}")
        assert len(seen) == 7, list(seen)  # seven different texts were shown
        first = next(iter(seen.values()))
        assert len(first) >= 10
        moved = {text: [c for c, f in zip(controls, first) if c != f] for text, controls in seen.items()}
        assert all(not m for m in moved.values()), f"controls moved (id, left, top, width): {moved}"
        assert console_errors(browser) == []
    finally:
        browser.set_window_size(1400, 900)
