"""How micrograd's HTML pages are made: from the files in ``micrograd/viz/assets/``, and the
explorer's page from a graph's model, its backward trace, its boxes and its laid-out pictures.

``explore``'s backpropagation page and ``recorder``'s training replay are each one
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

import html
import json
import re
from importlib import resources
from typing import Any

from ..engine import Value
from .boxes import Box, Run
from .graph_model import COLOURS, BackwardTrace, GraphModel, d_of, expression, fmt

__all__ = [
    "RULES_IN_WORDS",
    "asset",
    "boxes_data",
    "explorer_assets",
    "explorer_page",
    "heading",
    "page",
    "trace_data",
]

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


#: Each built-in op's derivative rule, in words (``a``, ``b`` are the operands in order).
RULES_IN_WORDS: dict[str, str] = {
    "+": "d(a + b)/da = 1, d(a + b)/db = 1: a sum passes its gradient unchanged to every term",
    "-": "d(a - b)/da = 1, d(a - b)/db = -1",
    "*": "d(a*b)/da = b, d(a*b)/db = a: each factor gets the other factor",
    "/": "d(a/b)/da = 1/b, d(a/b)/db = -a/b²",
    "**": "d(a**b)/da = b·a**(b-1), d(a**b)/db = a**b·log(a)",
    "neg": "d(-a)/da = -1",
    "abs": "d|a|/da = sign(a), and 0 at a = 0",
    "exp": "d(exp a)/da = exp a: the output itself",
    "log": "d(log a)/da = 1/a",
    "sqrt": "d(√a)/da = 1/(2√a)",
    "tanh": "d(tanh a)/da = 1 - tanh²(a): one minus the output squared",
    "sigmoid": "d(σ(a))/da = σ(a)·(1 - σ(a)), from the output",
    "ReLU": "d(relu a)/da = 1 where the output is > 0, else 0 (relu'(0) = 0)",
    "leaky_relu": "d(leaky_relu a)/da = 1 for a > 0, else the negative slope",
    "elu": "d(elu a)/da = 1 for a > 0, else alpha·exp(a) (the output + alpha)",
    "softplus": "d(softplus a)/da = sigmoid(beta·a), and 1 above the threshold (where softplus is a)",
    "sin": "d(sin a)/da = cos a",
    "cos": "d(cos a)/da = -sin a",
}
_POWER_BY_NUMBER = "d(a**n)/da = n·a**(n-1), for the number n in the op's name"
_USER_OP = "this op is not built in: its local derivatives come from its own backward (a user-defined op)"
_NO_RULE = "built by hand without a derivative rule: gradients stop here"


def _num(x: float) -> list[str]:
    """A number as the page shows it: [4 decimals as explain prints it, Python's full repr]."""
    return [fmt(x), repr(float(x))]


def _rule_in_words(v: Value, has_rule: bool, op: str) -> str:
    if not v.children:
        return ""
    if not has_rule:
        return _NO_RULE
    if op in RULES_IN_WORDS:
        return RULES_IN_WORDS[op]
    if op.startswith("**") and len(v.children) == 1:
        return _POWER_BY_NUMBER
    return _USER_OP


def trace_data(model: GraphModel, trace: BackwardTrace) -> dict[str, Any]:
    """The page's data: every node and backward step of ``model``'s one output (``trace``: its
    backward pass), every number as [explain's text, repr]."""
    index, names, root = model.index, model.names, trace.root
    rules = {step.node: step.has_rule for step in trace.steps}
    nodes = []
    for i, v in enumerate(model.order):
        nodes.append(
            {
                "id": f"n{i}",
                "name": names[v],
                "label": v.label,
                "op": model.op(v),
                "role": model.roles[v],
                "data": _num(v.data),
                "grad": _num(trace.grads[v]),
                "operands": [index[c] for c in model.operands(v)],
                "expr": expression(v, names, model.operands(v), model.op(v)) if v.children else "",
                "hidden": v in model.hidden,
                "rule": _rule_in_words(v, rules.get(v, True), model.op(v)),
                "dname": d_of(names[root], names[v]),
            }
        )
    steps = []
    for step in trace.steps:
        v = step.node
        steps.append(
            {
                "node": index[v],
                "upstream": _num(step.upstream),
                "has_rule": step.has_rule,
                "contributions": [
                    {
                        "operand": index[c.operand],
                        "dlocal": d_of(names[v], names[c.operand]),
                        "local": _num(c.local),
                        "contribution": _num(c.contribution),
                        "total": _num(c.total),
                    }
                    for c in step.contributions
                ],
            }
        )
    return {
        "root": index[root],
        "nodes": nodes,
        "steps": steps,
        "colours": COLOURS,
        "seed": _num(1.0),
    }


def boxes_data(boxes: list[Box], runs: list[list[Run]], svgs: list[str], data: dict[str, Any]) -> None:
    """Add the boxes to the page's ``data``: each node's box; each box's name, place, inputs,
    outputs, backward runs (``runs``, from ``boxes.runs_of``) and picture (``svgs``, from
    ``layout.box_svgs``; box 0's is the page's own)."""
    for box in boxes:
        for i in box.members:
            data["nodes"][i]["box"] = box.index
    data["boxes"] = [
        {
            "name": box.name,
            "detail": box.detail,
            "parent": box.parent,
            "size": box.size,
            "inputs": box.inputs,
            "outputs": box.outputs,
            "runs": [
                {
                    "first": run.first,
                    "last": run.last,
                    "upstream": [[i, _num(g)] for i, g in run.upstream],
                    "given": [[i, _num(g), _num(total)] for i, g, total in run.given],
                }
                for run in runs[box.index]
            ],
            "svg": svgs[box.index] if box.index else None,  # box 0's: in the page
        }
        for box in boxes
    ]


def heading(model: GraphModel, title: str | None) -> str:
    """The explorer page's heading: ``title``, or what the graph's output is."""
    if title is not None:
        return title
    root = model.outputs[0]
    return f"Backpropagation from {model.names[root]} = {fmt(root.data)}"


def _script_json(data: Any) -> str:
    """``data`` as JSON for a ``<script type="application/json">`` element."""
    # "<" as \u003c: no "</script>" in a name can end the data's script element early
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def explorer_assets() -> dict[str, str]:
    """The explorer page's style and scripts, by the field each fills: break-it mode's own after
    the explorer's (it marks the explorer's picture).

    >>> sorted(explorer_assets())
    ['CONTROLS_JS', 'CSS', 'PAGE_JS']
    """
    return {
        "CSS": asset("controls.css") + asset("explorer.css") + asset("breakit.css"),
        "CONTROLS_JS": asset("controls.js"),
        "PAGE_JS": asset("explorer.js") + asset("breakit.js"),
    }


def explorer_page(
    model: GraphModel,
    data: dict[str, Any],
    svg: str,
    title: str,
    note: str = "",
    breakit: dict[str, Any] | None = None,
) -> str:
    """The explorer's whole page: ``data`` (``trace_data``, with ``boxes_data``'s boxes if any) as
    JSON, ``svg`` the laid-out graph, ``title`` its heading (text), ``note`` a sentence (text) to
    show under the keys, e.g. why the built-in layout drew the graph; ``breakit``: break-it mode's
    data (``mistakes.page_data``), shown by ``breakit.js`` (None: no break-it control)."""
    payload = _script_json(data)
    count = f"{len(model.order) - len(model.hidden):,} Values, {len(data['steps']):,} backward steps"
    shown = (
        f'\n  <p class="mg-note" role="note" style="margin: 4px 0; color: #8a5300">{html.escape(note)}</p>'
        if note
        else ""
    )
    return page(
        "explorer",
        TITLE=html.escape(title),
        COUNT=count,
        SVG=svg,
        DATA=payload,
        NOTE=shown,
        BREAKIT=_script_json(breakit),
        **explorer_assets(),
    )
