"""Hostile names stay text: op names, Function names and labels reach Graphviz, SVG and the pages
escaped for where they go, never as markup, a link or a script."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import micrograd
from micrograd import Function, Value
from tests.browser_support import browser, console_errors, screenshot
from tests.graphviz_support import needs_dot

__all__ = ["browser"]  # the fixture, imported for the tests of this module

pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")

HOSTILE_OPS = [
    "<<TABLE HREF='javascript:alert(1)'><TR><TD>x</TD></TR></TABLE>>",  # an HTML-like label
    "<x> URL=<javascript:alert(2)>",  # a DOT attribute smuggled after a label
    'x" URL="javascript:alert(5)',  # out of a quoted label
]
HOSTILE_LABELS = ["<b onmouseover=alert(3)>x</b>", "</script><script>alert(4)</script>", "{a|<p>b}"]


def hostile_graph() -> Value:
    x = Value(1.0, label=HOSTILE_LABELS[0])
    y = x
    for k, name in enumerate(HOSTILE_OPS):
        op = type(f"Evil{k}", (Function,), {"name": name, "forward": staticmethod(lambda ctx, v: v * 2.0)})
        op.backward = staticmethod(lambda ctx, g: (g * 2.0,))
        y = op.apply(y)
        y.label = HOSTILE_LABELS[(k + 1) % len(HOSTILE_LABELS)]
    return y


def test_draw_dot_quotes_every_label() -> None:
    source = micrograd.draw_dot(hostile_graph()).source
    for line in source.splitlines():
        if "label=" in line:
            assert re.search(r'label="([^"\\]|\\.)*"', line), line  # a quoted string, quotes escaped
            assert "label=<" not in line, line  # never an HTML-like label
    assert "URL=" not in source.replace("URL=<javascript", "").replace('URL=\\"javascript', "")


@needs_dot
def test_svg_has_no_link_and_shows_the_names_as_text(tmp_path: Path) -> None:
    path = tmp_path / "g.svg"
    micrograd.render(hostile_graph(), path)
    svg = path.read_text()
    assert "<a " not in svg and "href" not in svg and "<script" not in svg
    assert "&lt;x&gt; URL=&lt;javascript:alert(2)&gt;" in svg  # shown as text


@needs_dot
def test_the_explorer_page_has_no_link_and_no_extra_script(tmp_path: Path) -> None:
    plain = tmp_path / "plain.html"
    micrograd.explore(Value(1.0, label="x") * 2.0, plain)
    page_path = tmp_path / "evil.html"
    micrograd.explore(hostile_graph(), page_path, title=HOSTILE_LABELS[1])
    page = page_path.read_text()
    assert page.count("<script") == plain.read_text().count("<script")
    assert not re.search(r"<a[\s>]", page) and "href=" not in page.replace('href="#', "")


@needs_dot
def test_in_the_browser_the_hostile_names_are_text(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "evil.html"
    micrograd.explore(hostile_graph(), page, title=HOSTILE_LABELS[1])
    browser.get(page.as_uri())
    console_errors(browser)
    assert browser.execute_script("return document.querySelectorAll('a, [href], [onmouseover]').length") == 0
    scripts = browser.execute_script("return document.querySelectorAll('script').length")
    assert scripts == page.read_text().count("<script")
    text = browser.execute_script("return document.body.innerText + document.title")
    assert "<x> URL=<javascript:alert(2)>" in browser.execute_script(
        "return Array.from(document.querySelectorAll('svg text')).map(t => t.textContent).join('|')"
    )
    assert "</script><script>alert(4)</script>" in text
    screenshot(browser, tmp_path, "hostile-names")
