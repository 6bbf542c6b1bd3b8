"""``explore``: step through the forward and backward pass of a graph in the browser or in Jupyter.

``explore(root, "backprop.html")`` writes one self-contained HTML file (no
network: no CDN, no external fonts or scripts) showing the graph as ``draw_dot``
draws it (same roles, colours, labels and data, each record's fields one above the
other, so that the lecture's graph fits a laptop's window), laid out by Graphviz or, for
large graphs, by this package's own layout (``micrograd.viz.layout``), with every
gradient blank.  Step through it: first the forward pass
(the Values appear in topological order), then the backward pass, one op per
step in the engine's own backward order.  At each backward step the op is
highlighted, its upstream gradient shown, and for each operand the chain rule
written out with numbers: local derivative x upstream = contribution, and the
operand's running sum.  Clicking a node shows its op, data, final gradient,
label and the op's derivative rule in words.

Every number on the page comes from the graph's ``GraphModel`` (``micrograd.viz.graph_model``:
the ops' own derivative rules, run in Python, the numbers ``explain`` prints) and
is embedded as JSON; the page's JavaScript only shows them.  ``explore(root)``
without a path returns an ``Explorer`` whose ``_repr_html_`` shows the same
page inline in JupyterLab, classic Notebook and VS Code (an ``<iframe
srcdoc>``, so nothing to install and several explorers per notebook).

Given ``scopes=`` (what ``with micrograd.scopes.record_scopes() as scopes:`` recorded while the
graph was built), the page shows the graph in boxes (``micrograd.viz.boxes``): each ``nn`` Module
call, attention head or ``scope`` block one box, opened by a click, the path back up above the
graph; stepping in a box goes through the boxes inside it whole (the chain rule through each:
its outputs' gradients in, what each input receives out), or op by op once opened.

Graphs are limited to ``max_nodes`` Values (default 20,000: an ``nn.GPT`` training step
on a short name has about 7,200).  Graphviz lays out graphs of up to 300 Values, with a
time limit (``layout_timeout`` seconds, default 30); larger ones are laid out by
``micrograd.viz.layout`` in seconds (``layout=`` chooses).

>>> from micrograd import Value
>>> a = Value(2.0, label="a"); b = Value(-3.0, label="b")
>>> L = a * b; L.label = "L"
>>> page = explore(L)                       # in a notebook, the last line of a cell shows it
>>> page.html.startswith("<!DOCTYPE html>"), "https://" in page.html
(True, False)
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any, overload

from ..engine import Value
from ..files import write_atomically
from ..scopes import Recording
from . import page as pages
from .box_views import view_svgs
from .boxes import boxes_of, runs_of
from .dot import INSTALL_HINT, GraphvizNotFoundError, dot_graph
from .graph_model import (
    COLOURS,
    BackwardTrace,
    GraphModel,
    d_of,
    expression,
    fmt,
    graph_model,
)
from .layout import graph_svg

#: Seconds Graphviz may spend laying out the graph before ``explore`` gives up.
DEFAULT_LAYOUT_TIMEOUT = 30.0

#: ``explore``'s default limit: an ``nn.GPT`` training step on one short name has about 7,200 Values.
EXPLORE_MAX_NODES = 20_000

#: Up to this many Values, ``layout="auto"`` asks Graphviz (where ``dot`` is installed); beyond,
#: the built-in layout (``micrograd.viz.layout``), which takes seconds where ``dot`` takes minutes.
GRAPHVIZ_UP_TO = 300

LAYOUTS = ("auto", "graphviz", "builtin")

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


class Explorer:
    """An explorer page: ``html`` (the whole self-contained page), ``save(path)``, and
    ``_repr_html_`` for Jupyter (the page in an ``<iframe srcdoc>``, ``height`` pixels high)."""

    def __init__(self, page: str, title: str, height: int = 640) -> None:
        self.html = page
        self.title = title
        self.height = height

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8) and return it as a ``Path``."""
        target = Path(path)
        if not target.parent.is_dir():
            raise FileNotFoundError(f"explore: the directory {str(target.parent)!r} does not exist")
        write_atomically(target, self.html.encode("utf-8"), "explore")
        return target

    def _repr_html_(self) -> str:
        # srcdoc keeps the page's script and element ids in their own document; allow-scripts
        # without allow-same-origin keeps it away from the notebook.
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" title="{html.escape(self.title)}" '
            f'sandbox="allow-scripts" style="width: 100%; height: {self.height}px; '
            'border: 1px solid #ced4da; resize: vertical;"></iframe>'
        )

    def __repr__(self) -> str:
        return f"<Explorer of {self.title!r}: {len(self.html):,} characters of HTML; .save(path) writes it>"


def _num(x: float) -> list[str]:
    """A number as the page shows it: [4 decimals as explain prints it, Python's full repr]."""
    return [fmt(x), repr(float(x))]


def _rule_in_words(v: Value, has_rule: bool) -> str:
    if not v._prev:
        return ""
    if not has_rule:
        return _NO_RULE
    op = v._op
    if op in RULES_IN_WORDS:
        return RULES_IN_WORDS[op]
    if op.startswith("**") and len(v._prev) == 1:
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
                "op": v._op,
                "role": model.roles[v],
                "data": _num(v.data),
                "grad": _num(trace.grads[v]),
                "operands": [index[c] for c in v._prev],
                "expr": expression(v, names) if v._prev else "",
                "rule": _rule_in_words(v, rules.get(v, True)),
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


def boxes_data(model: GraphModel, recording: Recording, trace: BackwardTrace, data: dict[str, Any]) -> str:
    """Add the boxes of ``recording``'s scopes to the page's ``data`` (each node's box; each box's
    name, place, inputs, outputs, backward runs along ``trace`` and picture) and return the
    whole graph's picture."""
    boxes = boxes_of(model, recording)
    runs = runs_of(model, boxes, trace)
    svgs = view_svgs(model, boxes)
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
    return svgs[0]


def _layout_svg(model: GraphModel, timeout: float) -> str:
    """draw_dot's graph laid out by Graphviz as SVG (prolog and comments stripped), within ``timeout`` s."""
    source = dot_graph(model, "svg", stacked=True).source
    n = len(model.order)
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizNotFoundError(
            "explore: Graphviz's `dot` program was not found on PATH; it lays out the graph. To get it, "
            + INSTALL_HINT
            + "."
        )
    try:
        done = subprocess.run(
            [dot, "-Tsvg"], input=source.encode("utf-8"), capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError(
            f"explore: Graphviz did not lay out the graph of {n} Values within layout_timeout={timeout:g} s; "
            "explore a smaller graph (e.g. the loss of one sample instead of the whole batch) "
            "or pass a larger layout_timeout"
        ) from None
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", errors="replace").strip()
        raise RuntimeError(f"explore: Graphviz's `dot` failed (exit status {done.returncode}): {stderr}")
    svg = done.stdout.decode("utf-8")
    start = svg.find("<svg")
    if start < 0:
        raise RuntimeError("explore: Graphviz's `dot` wrote no SVG")
    svg = re.sub(r"<!--.*?-->\n?", "", svg[start:], flags=re.S)
    missing = [f"n{i}" for i in range(n) if f"<title>n{i}</title>" not in svg]
    if missing:
        raise RuntimeError(f"explore: the laid-out graph lacks the nodes {missing[:5]}")
    return svg


#: What explore's GraphTooLargeError advises (``{n}``: the graph's size).
EXPLORE_ADVICE = (
    "a graph this large is slow to lay out and too dense to follow step by step. Explore the graph of a "
    "single sample (e.g. one neuron, or the loss of one input instead of the whole batch), or raise the "
    "limit with max_nodes={n} (None: no limit; the page grows by about 2 kB per Value; record scopes "
    "with micrograd.scopes.record_scopes() and pass scopes= to see it in boxes)."
)


def page(
    root: Value,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = EXPLORE_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
    layout: str = "auto",
    scopes: Recording | None = None,
) -> Explorer:
    """Build the explorer page of ``root``'s graph (what ``explore`` saves or shows)."""
    if not isinstance(root, Value):
        raise TypeError(f"explore() needs a Value, got {type(root).__name__}: {root!r}")
    if (
        isinstance(layout_timeout, bool)
        or not isinstance(layout_timeout, (int, float))
        or not layout_timeout > 0
    ):
        raise ValueError(
            f"explore: layout_timeout must be a positive number of seconds, got {layout_timeout!r}"
        )
    if layout not in LAYOUTS:
        raise ValueError(f"explore: layout must be one of {', '.join(map(repr, LAYOUTS))}, got {layout!r}")
    if scopes is not None and not isinstance(scopes, Recording):
        raise TypeError(
            "explore: scopes must be what `with micrograd.scopes.record_scopes() as scopes:` gives, "
            f"got {type(scopes).__name__}: {scopes!r}"
        )
    model = graph_model(root, params, max_nodes, "explore", EXPLORE_ADVICE)
    trace = model.backward()
    data = trace_data(model, trace)
    if layout == "auto":
        small = len(model.order) <= GRAPHVIZ_UP_TO and shutil.which("dot") is not None
        layout = "graphviz" if small and scopes is None else "builtin"
    if scopes is not None:
        if layout == "graphviz":
            raise ValueError("explore: a graph in boxes (scopes=) is laid out by layout='builtin' only")
        svg = boxes_data(model, scopes, trace, data)
    elif layout == "graphviz":
        svg = _layout_svg(model, float(layout_timeout))
    else:
        svg = graph_svg(model)
    name = model.names[root]
    heading = title if title is not None else f"Backpropagation from {name} = {fmt(root.data)}"
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    count = f"{len(model.order):,} Values, {len(data['steps']):,} backward steps"
    text = pages.page("explorer", TITLE=html.escape(heading), COUNT=count, SVG=svg, DATA=payload)
    return Explorer(text, heading)


@overload
def explore(
    root: Value,
    path: None = None,
    *,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = EXPLORE_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
    layout: str = "auto",
    scopes: Recording | None = None,
) -> Explorer: ...


@overload
def explore(
    root: Value,
    path: str | os.PathLike[str],
    *,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = EXPLORE_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
    layout: str = "auto",
    scopes: Recording | None = None,
) -> Path: ...


def explore(
    root: Value,
    path: str | os.PathLike[str] | None = None,
    *,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = EXPLORE_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
    layout: str = "auto",
    scopes: Recording | None = None,
) -> Explorer | Path:
    """Step through the forward and backward pass of ``root``'s graph in a browser (see the module docstring).

    With ``path``: write one self-contained HTML file there and return its ``Path``
    (open it in any browser, offline).  Without: return an ``Explorer``, which a
    Jupyter notebook shows inline.  ``params`` marks leaves to colour as parameters
    (as ``draw_dot``).  More than ``max_nodes`` Values raise ``GraphTooLargeError``.
    ``layout``: ``"graphviz"`` (Graphviz's ``dot``, within ``layout_timeout`` seconds, else
    ``TimeoutError``; without ``dot``, ``GraphvizNotFoundError``), ``"builtin"`` (this
    package's own layered layout, ``micrograd.viz.layout``: seconds for thousands of Values, no
    Graphviz needed) or ``"auto"`` (Graphviz up to 300 Values where ``dot`` is installed, else
    the built-in one).  ``scopes``: a ``micrograd.scopes.Recording``; the graph is then shown in
    boxes, one per recorded scope, each opening on click (laid out by the built-in layout).
    ``.grad`` is left alone: the page's gradients come from the ops' rules, as ``explain``.
    """
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"explore: path must be a str or a path, got {type(path).__name__}: {path!r}")
    if path is not None and Path(path).suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"explore: the page is HTML; end the path with .html, got {os.fspath(path)!r}")
    if path is not None and not Path(path).parent.is_dir():
        raise FileNotFoundError(f"explore: the directory {str(Path(path).parent)!r} does not exist")
    explorer = page(
        root,
        params=params,
        max_nodes=max_nodes,
        layout_timeout=layout_timeout,
        title=title,
        layout=layout,
        scopes=scopes,
    )
    if path is None:
        return explorer
    return explorer.save(path)
