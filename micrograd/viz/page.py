"""How micrograd's HTML pages are made: from the files in ``micrograd/viz/assets/``.

``explore``'s backpropagation page and ``nn.recorder``'s training replay are each one
self-contained HTML file, made from asset files that linters and browsers see as what
they are: the document's head and foot (``head.html``; ``foot.html``, the page's data and
scripts), a page's body (``explorer.html``, ``replay.html``), its CSS and its script, and
what both pages share, the step controls (``controls.css``, ``controls.js``: buttons
``#first``, ``#prev``, ``#play``, ``#next`` and ``#last``, a range ``#scrub``, a select
``#speed`` and the keys ← → (step), space (play / pause), Home and End; ``mgControls``
wires them to the page's own ``show(frame)``).

>>> html = page("replay", TITLE="a &lt;title&gt;", DATA="{}")
>>> html.startswith("<!DOCTYPE html>") and "function mgControls(" in html and "%%" not in html
True
"""

from __future__ import annotations

import re
from importlib import resources

__all__ = ["asset", "page"]

PLACEHOLDER = re.compile(r"%%([A-Z_]+)%%")


def asset(name: str) -> str:
    """The text of ``micrograd/viz/assets/<name>`` (shipped in the wheel and the sdist)."""
    return resources.files("micrograd.viz").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def page(name: str, **fields: str) -> str:
    """``assets/head.html``, the body ``assets/<name>.html`` and ``assets/foot.html``, with the CSS
    (``controls.css`` and ``<name>.css``), the scripts (``controls.js`` and ``<name>.js``) and each
    ``%%FIELD%%`` filled from ``fields``.

    Filled in one pass over the template: a field's text is never read again as a
    placeholder.  Fields go in as given, so escape each for where it goes (``html.escape``
    for text, JSON with ``<`` as ``\\u003c`` inside a ``<script>``).  A field the template
    has and ``fields`` lacks is a KeyError.
    """
    values = {
        "CSS": asset("controls.css") + asset(f"{name}.css"),
        "CONTROLS_JS": asset("controls.js"),
        "PAGE_JS": asset(f"{name}.js"),
        **fields,
    }
    template = asset("head.html") + asset(f"{name}.html") + asset("foot.html")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
