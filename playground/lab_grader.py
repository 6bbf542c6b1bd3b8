"""What the lab's grader worker runs (the playground's "Build micrograd" tab, in Pyodide): it never
runs the learner's code.  It receives the raw answers the learner worker recorded and decides
each line with ``check_engine``'s own plan, references and lines
(``micrograd.exercises.engine.recorded.grade_recorded``); and it draws the learner's graph, sent
as data, with the explorer's layout (``micrograd.viz.layout``), each named node's gradient beside
the right one.  Every text of the learner's is checked and escaped (the layout escapes what it
writes; the page shows the lines as text).

>>> import lab_runner
>>> _ = lab_runner.load("from micrograd import Value\\n")
>>> texts = list(lab_runner.texts(["+"]))
>>> result = grade("Value", texts, ["+"], "ended", 10.0)
>>> result["verdict"], result["lines"][0]["status"]
('RIGHT', 'OK')
"""

from __future__ import annotations

import math
from typing import Any

from micrograd.exercises.engine import cases
from micrograd.exercises.engine.recorded import grade_recorded
from micrograd.exercises.engine.refs import expr_reference
from micrograd.exercises.result import IN_WORDS
from micrograd.viz.box_views import Item
from micrograd.viz.graph_model import fmt
from micrograd.viz.layout import layout_svg

__all__ = ["grade", "picture"]

MOST_NODES = 200
WRONG_FILL, RIGHT_FILL, PLAIN_FILL = "#ffc9c9", "#b2f2bb", "#ffffff"


def grade(name: str, texts: list[str], only: list[str] | None, end: str, seconds: float) -> dict[str, Any]:
    """The table as data: ``verdict``, ``verdict_line``, ``lines`` (status, words, check, message,
    hint) and ``text`` (the table as check_engine prints it); or ``problem`` when the class makes
    no Values or the learner's code broke (their exception, as check_engine raises it)."""
    try:
        result = grade_recorded(name, list(texts), only=only, end=end, seconds=seconds)
    except Exception as exc:
        notes = "\n".join(getattr(exc, "__notes__", []))
        return {"problem": f"{type(exc).__name__}: {exc}" + (f"\n{notes}" if notes else "")}
    lines = [
        {
            "status": ln.status,
            "words": IN_WORDS[ln.status],
            "check": ln.check,
            "message": ln.message,
            "hint": ln.hint,
        }
        for ln in result.lines
    ]
    return {
        "verdict": result.verdict,
        "verdict_line": result.verdict_line(),
        "lines": lines,
        "text": str(result),
    }


def text(x: Any, most: int) -> str:
    return x[:most] if isinstance(x, str) else ""


def shown(x: Any) -> str:
    return fmt(float(x)) if type(x) in (int, float) else text(x, 40) or "?"


def picture(data: Any, spec: list[Any]) -> dict[str, Any]:
    """The learner's graph (``lab_runner.graph``'s data) as the explorer's SVG: ``svg``, ``wrong``
    (the named nodes whose value or gradient is not the right one) and ``note``."""
    if not isinstance(data, dict):
        return {"error": "the learner worker sent no graph"}
    if "error" in data:
        return {"error": text(data["error"], 500)}
    nodes = data.get("nodes")
    if not isinstance(nodes, list) or not 0 < len(nodes) <= MOST_NODES:
        return {"error": "the learner worker sent no graph"}
    expr = cases.expression(spec)
    right_data, right_grads = expr_reference(expr)
    want = {n: (d, g) for n, d, g in zip(expr.names, right_data, right_grads)}
    backward = data.get("backward")
    items: list[Item] = []
    edges: list[tuple[str, str]] = []
    wrong: list[str] = []
    for k, node in enumerate(nodes):
        if not isinstance(node, dict):
            return {"error": "the learner worker sent a node that is not one"}
        sent = node.get("operands")
        operands = [j for j in (sent if isinstance(sent, list) else []) if type(j) is int and 0 <= j < k]
        name = text(node.get("name"), 60)
        lines = [name or f"#{k}", f"data {shown(node.get('data'))}", f"grad {shown(node.get('grad'))}"]
        fill = PLAIN_FILL
        if name in want:
            d, g = want[name]
            ok_data = close(node.get("data"), d)
            ok_grad = backward is not None or close(node.get("grad"), g)
            lines.append(f"right: {fmt(d)}, grad {fmt(g)}")
            fill = RIGHT_FILL if ok_data and ok_grad else WRONG_FILL
            if fill == WRONG_FILL:
                wrong.append(name)
        key = f"n{k}"
        if operands:
            items.append(Item(f"{key}_op", "op", [text(node.get("op"), 20) or "?"]))
            edges += [(f"n{j}", f"{key}_op") for j in operands]
            edges.append((f"{key}_op", key))
        items.append(Item(key, "record", lines, fill))
    note = f"{text(data.get('title'), 100)} at {text(data.get('at'), 100)}"
    if backward is not None:
        note += f"; your backward() stopped: {text(backward, 300)} (the gradients are not compared)"
    return {"svg": layout_svg(items, edges), "wrong": wrong, "note": note}


def close(got: Any, want: float) -> bool:
    if type(got) not in (int, float):
        return False
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-9)
