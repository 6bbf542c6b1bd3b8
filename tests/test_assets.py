"""The pages' assets are files (micrograd/viz/assets/): each JavaScript file parses (node --check), each
HTML template is well nested, each stylesheet balanced, and every placeholder a page fills is there."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from micrograd.viz import page as pages

ASSETS = Path(pages.__file__).resolve().parent / "assets"
VOID = {"meta", "link", "br", "hr", "img", "input", "source", "wbr", "area", "base", "col", "embed", "track"}


@pytest.mark.parametrize("script", sorted(ASSETS.glob("*.js")), ids=lambda p: p.name)
def test_javascript_parses(script: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH (install Node.js to check the pages' scripts)")
    proc = subprocess.run([node, "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


class Nesting(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.errors.append(f"</{tag}> at line {self.getpos()[0]} closes {self.open[-1:] or 'nothing'}")
        else:
            self.open.pop()


BODIES = [p for p in sorted(ASSETS.glob("*.html")) if p.name not in ("head.html", "foot.html")]


@pytest.mark.parametrize("body", BODIES, ids=lambda p: p.name)
def test_html_templates_are_well_nested_and_fill(body: Path) -> None:
    head, foot = (ASSETS / "head.html").read_text(), (ASSETS / "foot.html").read_text()
    template = head + body.read_text() + foot
    parser = Nesting()
    parser.feed(template)
    parser.close()
    assert parser.errors == [] and parser.open == []
    fields = {"TITLE": "t", "DATA": "{}", "COUNT": "c", "SVG": "<svg></svg>", "NOTE": "", "BREAKIT": "null"}
    page = pages.page(body.stem, **{k: v for k, v in fields.items() if f"%%{k}%%" in template})
    assert "%%" not in page and page.count("<script") == template.count("<script")


@pytest.mark.parametrize("sheet", sorted(ASSETS.glob("*.css")), ids=lambda p: p.name)
def test_stylesheets_are_balanced(sheet: Path) -> None:
    text = sheet.read_text()
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0


def test_a_field_is_not_read_again_as_a_placeholder() -> None:
    page = pages.page("replay", TITLE="%%DATA%%", DATA="{}")
    assert "<h1>%%DATA%%</h1>" in page
