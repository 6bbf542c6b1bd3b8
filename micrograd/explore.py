"""``explore``: step through the forward and backward pass of a graph in the browser or in Jupyter.

``explore(root, "backprop.html")`` writes one self-contained HTML file (no
network: no CDN, no external fonts or scripts) showing the graph laid out by
Graphviz exactly as ``draw_dot`` draws it (same roles, colours, labels and
data), with every gradient blank.  Step through it: first the forward pass
(the Values appear in topological order), then the backward pass, one op per
step in the engine's own backward order.  At each backward step the op is
highlighted, its upstream gradient shown, and for each operand the chain rule
written out with numbers: local derivative x upstream = contribution, and the
operand's running sum.  Clicking a node shows its op, data, final gradient,
label and the op's derivative rule in words.

Every number on the page comes from ``micrograd.viz.backward_steps`` (the
ops' own derivative rules, run in Python: the numbers ``explain`` prints) and
is embedded as JSON; the page's JavaScript only shows them.  ``explore(root)``
without a path returns an ``Explorer`` whose ``_repr_html_`` shows the same
page inline in JupyterLab, classic Notebook and VS Code (an ``<iframe
srcdoc>``, so nothing to install and several explorers per notebook).

Graphs are limited to ``max_nodes`` Values (default 300, as ``draw_dot``); a
page takes about 2 kB per Value: about 0.6 MB for a 300-Value graph
(an MLP(3, [8, 8, 1]) on one input, then tanh ops: ``tests/test_explore.py``).  Graphviz's
layout runs with a time limit (``layout_timeout`` seconds, default 30).

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

from .autograd import topological_order
from .engine import Value
from .files import write_atomically
from .pages import HEAD as PAGE_HEAD
from .pages import SCRIPT as CONTROLS_SCRIPT
from .viz import (
    COLOURS,
    DEFAULT_MAX_NODES,
    INSTALL_HINT,
    BackwardTrace,
    GraphTooLargeError,
    GraphvizNotFoundError,
    as_values,
    backward_steps,
    d_of,
    draw_dot,
    expression,
    fmt,
    role,
)

#: Seconds Graphviz may spend laying out the graph before ``explore`` gives up.
DEFAULT_LAYOUT_TIMEOUT = 30.0

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


def trace_data(trace: BackwardTrace, params: set[Value]) -> dict[str, Any]:
    """The page's data: every node and backward step, every number as [explain's text, repr]."""
    index = {v: i for i, v in enumerate(trace.order)}
    names = trace.names
    root = trace.root
    rules = {step.node: step.has_rule for step in trace.steps}
    nodes = []
    for i, v in enumerate(trace.order):
        nodes.append(
            {
                "id": f"n{i}",
                "name": names[v],
                "label": v.label,
                "op": v._op,
                "role": role(v, {root}, params),
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


def _layout_svg(root: Value, params: set[Value], n: int, timeout: float) -> str:
    """draw_dot's graph laid out by Graphviz as SVG (prolog and comments stripped), within ``timeout`` s."""
    source = draw_dot(root, format="svg", max_nodes=None, params=params or None).source
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


def _check_size(order: list[Value], max_nodes: int | None) -> None:
    if max_nodes is not None and (
        isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1
    ):
        raise ValueError(f"explore: max_nodes must be a positive int or None, got {max_nodes!r}")
    if max_nodes is not None and len(order) > max_nodes:
        raise GraphTooLargeError(
            f"explore: the graph has {len(order)} Values, more than max_nodes={max_nodes}; a graph this "
            "large is slow to lay out and too dense to follow step by step. Explore the graph of a single "
            "sample (e.g. one neuron, or the loss of one input instead of the whole batch), or raise the "
            f"limit with max_nodes={len(order)} (None: no limit; the page grows by about 2 kB per Value)."
        )


def page(
    root: Value,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
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
    order = topological_order(root)
    _check_size(order, max_nodes)
    param_set = as_values(params, "explore: params")
    trace = backward_steps(root, max_nodes=None)
    data = trace_data(trace, param_set)
    svg = _layout_svg(root, param_set, len(order), float(layout_timeout))
    name = trace.names[root]
    heading = title if title is not None else f"Backpropagation from {name} = {fmt(root.data)}"
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    text = (
        _PAGE.replace("%%TITLE%%", html.escape(heading))
        .replace("%%SVG%%", svg)
        .replace("%%DATA%%", payload)
        .replace("%%COUNT%%", f"{len(order)} Values, {len(trace.steps)} backward steps")
    )
    return Explorer(text, heading)


@overload
def explore(
    root: Value,
    path: None = None,
    *,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
) -> Explorer: ...


@overload
def explore(
    root: Value,
    path: str | os.PathLike[str],
    *,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
) -> Path: ...


def explore(
    root: Value,
    path: str | os.PathLike[str] | None = None,
    *,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
) -> Explorer | Path:
    """Step through the forward and backward pass of ``root``'s graph in a browser (see the module docstring).

    With ``path``: write one self-contained HTML file there and return its ``Path``
    (open it in any browser, offline).  Without: return an ``Explorer``, which a
    Jupyter notebook shows inline.  ``params`` marks leaves to colour as parameters
    (as ``draw_dot``).  More than ``max_nodes`` Values raise ``GraphTooLargeError``;
    Graphviz's layout taking longer than ``layout_timeout`` seconds raises
    ``TimeoutError``; without Graphviz's ``dot``, ``GraphvizNotFoundError``.
    ``.grad`` is left alone: the page's gradients come from the ops' rules, as ``explain``.
    """
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"explore: path must be a str or a path, got {type(path).__name__}: {path!r}")
    if path is not None and Path(path).suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"explore: the page is HTML; end the path with .html, got {os.fspath(path)!r}")
    if path is not None and not Path(path).parent.is_dir():
        raise FileNotFoundError(f"explore: the directory {str(Path(path).parent)!r} does not exist")
    explorer = page(root, params=params, max_nodes=max_nodes, layout_timeout=layout_timeout, title=title)
    if path is None:
        return explorer
    return explorer.save(path)


_PAGE = (
    PAGE_HEAD
    + r"""
  html, body { margin: 0; height: 100%; }
  body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #212529;
         display: flex; flex-direction: column; background: #fff; }
  header { padding: 8px 12px; border-bottom: 1px solid #dee2e6; background: #f8f9fa; }
  h1 small { font-weight: normal; color: #868e96; margin-left: 8px; }
  #scrub { flex: 1 1 200px; min-width: 120px; }
  #where { font-weight: 600; min-width: 220px; }
  main { flex: 1; display: flex; min-height: 0; }
  #graph { flex: 1; overflow: auto; padding: 8px; min-width: 0; }
  #graph svg { display: block; }
  aside { width: 430px; max-width: 45%; border-left: 1px solid #dee2e6; overflow: auto; padding: 10px 12px;
          background: #fcfcfd; }
  aside h2 { font-size: 14px; color: #495057; margin: 4px 0; }
  .expr { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; white-space: pre-wrap; }
  table { border-collapse: collapse; width: 100%; font-size: 12px; margin: 6px 0; }
  td, th { padding: 2px 4px; text-align: right; font-family: ui-monospace, Menlo, Consolas, monospace; }
  th { font-family: inherit; font-weight: 600; color: #495057; border-bottom: 1px solid #dee2e6;
       white-space: nowrap; }
  td:first-child, th:first-child { text-align: left; }
  .muted { color: #868e96; }
  .legend { display: flex; flex-wrap: wrap; gap: 10px; font-size: 12px; margin-top: 6px; }
  .legend span::before { content: ""; display: inline-block; width: 11px; height: 11px; margin-right: 4px;
                         border: 1px solid #868e96; vertical-align: -1px; background: var(--c); }
  #info dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 4px 0; }
  #info dt { color: #495057; }
  #info dd { margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace; word-break: break-all; }
  section + section { margin-top: 14px; border-top: 1px solid #dee2e6; padding-top: 8px; }
  g.node { cursor: pointer; }
  g.node.mg-current > polygon, g.node.mg-current > ellipse { stroke: #e8590c; stroke-width: 3.5px; }
  g.node.mg-operand > polygon { stroke: #1c7ed6; stroke-width: 3px; }
  g.node.mg-picked > polygon, g.node.mg-picked > ellipse { stroke-dasharray: 4 2; stroke-width: 2.5px; }
  g.edge.mg-flow > path { stroke: #e8590c; stroke-width: 2.5px; }
  g.edge.mg-flow > polygon { stroke: #e8590c; fill: #e8590c; }
  text.mg-blank { fill: #adb5bd; }
  text.mg-fresh { fill: #c92a2a; font-weight: bold; }
  g.mg-edge-label text { font: bold 10px Helvetica, Arial, sans-serif; fill: #c92a2a; }
  g.mg-edge-label rect { fill: #fff4e6; stroke: #e8590c; stroke-width: 0.8px; }
</style>
</head>
<body>
<header>
  <h1>%%TITLE%% <small>%%COUNT%%</small></h1>
  <div class="bar">
    <button id="first" title="start of the forward pass (Home)">|◀</button>
    <button id="prev" title="previous step (←)">◀</button>
    <button id="play" title="play / pause (space)">▶ play</button>
    <button id="next" title="next step (→)">▶</button>
    <button id="last" title="end: every gradient (End)">▶|</button>
    <label>speed <select id="speed" title="steps per second (+ / −)">
      <option value="0.5">0.5 / s</option><option value="1" selected>1 / s</option>
      <option value="2">2 / s</option><option value="4">4 / s</option><option value="8">8 / s</option>
    </select></label>
    <button id="fwd" title="start of the forward pass (f)">forward</button>
    <button id="bwd" title="start of the backward pass (b)">backward</button>
    <input id="scrub" type="range" min="0" value="0" step="1" aria-label="step">
    <span id="where"></span>
    <button id="zoomout" title="smaller">−</button><button id="zoomfit" title="fit (0)">fit</button>
    <button id="zoomin" title="larger">+</button>
  </div>
  <div class="legend" id="legend"></div>
  <div class="keys">Keys: ← → step · space play/pause · Home/End · f forward · b backward · + − speed ·
    click a node for its details</div>
</header>
<main>
  <div id="graph">%%SVG%%</div>
  <aside>
    <section id="step"></section>
    <section id="info"><h2>Node</h2>
      <p class="muted">Click a node to see its op, data, gradient and derivative rule.</p></section>
  </aside>
</main>
<script type="application/json" id="mg-data">%%DATA%%</script>
<script>%%CONTROLS_SCRIPT%%</script>
<script>
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("mg-data").textContent);
  const N = D.nodes.length, S = D.steps.length;
  const svg = document.querySelector("#graph svg");
  const $ = (id) => document.getElementById(id);
  // Frames: 0 = nothing computed; 1..N = forward, node i-1 appears; N+1..N+S = backward step;
  // N+S+1 = done (every gradient). The page opens at the start of the backward pass (frame N).
  const LAST = N + S + 1;
  let frame = N, picked = null, zoom = 1;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The SVG's groups by Graphviz node name (draw_dot names node i "n<i>", its op "n<i>_op").
  const groups = {}, edgesInto = {};
  for (const g of svg.querySelectorAll("g.node")) groups[g.querySelector("title").textContent] = g;
  for (const g of svg.querySelectorAll("g.edge")) {
    const t = g.querySelector("title").textContent.split("->");
    (edgesInto[t[1]] = edgesInto[t[1]] || []).push(g);
  }
  const fields = D.nodes.map((nd) => {
    const g = groups[nd.id];
    const texts = g.querySelectorAll("text");
    const data = texts[texts.length - 2], grad = texts[texts.length - 1];
    if (!data.textContent.startsWith("data ") || !grad.textContent.startsWith("grad "))
      throw new Error("unexpected record layout for node " + nd.id);
    // Each field's width, from the record's geometry (not from measuring text, which reads 0
    // while the page is not rendered yet, e.g. in a notebook's hidden output).
    const xs = (el_) => el_.getAttribute("points").trim().split(/\s+/).map((p) => Number(p.split(",")[0]));
    const seps = [...g.querySelectorAll("polyline")].map((l) => xs(l)[0]);
    const right = Math.max(...xs(g.querySelector("polygon")));
    const sepA = seps[seps.length - 2], sepB = seps[seps.length - 1];
    return { g: g, data: data, grad: grad, dataRoom: sepB - sepA - 6, gradRoom: right - sepB - 6 };
  });

  function setField(t, room, prefix, value, cls) {
    t.textContent = value === null ? prefix : prefix + " " + value;
    t.setAttribute("class", value === null ? "mg-blank" : (cls || ""));
    t.removeAttribute("textLength"); t.removeAttribute("lengthAdjust");
    if (value !== null && room > 0 && t.getComputedTextLength() > room) {
      t.setAttribute("textLength", String(room)); t.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }

  // Legend, from the same colours as draw_dot.
  for (const role in D.colours) {
    const s = el("span", {}, role); s.style.setProperty("--c", D.colours[role]); $("legend").appendChild(s);
  }

  function clearMarks() {
    for (const g of svg.querySelectorAll(".mg-current, .mg-operand, .mg-flow"))
      g.classList.remove("mg-current", "mg-operand", "mg-flow");
    for (const t of svg.querySelectorAll(".mg-edge-label")) t.remove();
  }

  // Each contribution written on its edge (operand -> op), halfway along it; a reused operand
  // has one edge per use, taken in operand order.
  function labelEdges(st, nd) {
    const unused = [...(edgesInto[nd.id + "_op"] || [])];
    const NS = "http://www.w3.org/2000/svg";
    for (const c of st.contributions) {
      const from = "n" + c.operand + "->";
      const i = unused.findIndex((e) => e.querySelector("title").textContent.startsWith(from));
      if (i < 0) continue;
      const path = unused.splice(i, 1)[0].querySelector("path");
      const p = path.getPointAtLength(path.getTotalLength() / 2);
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", "mg-edge-label");
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", String(p.x)); t.setAttribute("y", String(p.y - 4));
      t.setAttribute("text-anchor", "middle");
      t.textContent = c.contribution[0];
      g.appendChild(t);
      svg.querySelector("g.graph").appendChild(g);
      const box = t.getBBox();
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("x", String(box.x - 2)); r.setAttribute("y", String(box.y - 1));
      r.setAttribute("width", String(box.width + 4)); r.setAttribute("height", String(box.height + 2));
      r.setAttribute("rx", "3");
      g.insertBefore(r, t);
    }
  }

  function show(t) {
    frame = Math.max(0, Math.min(LAST, t));
    $("scrub").value = String(frame);
    clearMarks();
    // Data: in the forward pass, the first `shown` Values of the topological order.
    const shown = Math.min(frame, N);
    for (let i = 0; i < N; i++)
      setField(fields[i].data, fields[i].dataRoom, "data", i < shown ? D.nodes[i].data[0] : null,
               frame <= N && i === shown - 1 ? "mg-fresh" : "");
    // Gradients: blank until a step sets them; each shows its running sum after the steps so far.
    const k = frame - N - 1;  // index of the current backward step (-1: none yet)
    const grads = new Array(N).fill(null);
    const fresh = new Set();
    if (frame === LAST) {
      for (let i = 0; i < N; i++) grads[i] = D.nodes[i].grad[0];
    } else if (k >= 0) {
      grads[D.root] = D.seed[0];
      for (let j = 0; j <= k; j++)
        for (const c of D.steps[j].contributions) {
          grads[c.operand] = c.total[0];
          if (j === k) fresh.add(c.operand);
        }
    }
    for (let i = 0; i < N; i++)
      setField(fields[i].grad, fields[i].gradRoom, "grad", grads[i], fresh.has(i) ? "mg-fresh" : "");
    const panel = $("step");
    panel.replaceChildren();
    if (frame <= N) forwardPanel(panel, shown);
    else if (frame === LAST) donePanel(panel);
    else backwardPanel(panel, k);
    $("where").textContent = frame < N ? `forward: ${shown} of ${N} Values` :
      frame === N ? `forward done · backward: 0 of ${S} steps` :
      frame === LAST ? `backward done: every gradient` : `backward: step ${k + 1} of ${S}`;
    $("prev").disabled = frame === 0; $("next").disabled = frame === LAST;
  }

  function reveal(g) {
    if (!g) return;
    // Scroll the graph's own box only (scrollIntoView would scroll a notebook around the page too).
    const pane = $("graph"), box = g.getBoundingClientRect(), view = pane.getBoundingClientRect();
    if (box.left < view.left || box.right > view.right)
      pane.scrollLeft += (box.left + box.right) / 2 - (view.left + view.right) / 2;
    if (box.top < view.top || box.bottom > view.bottom)
      pane.scrollTop += (box.top + box.bottom) / 2 - (view.top + view.bottom) / 2;
  }

  function forwardPanel(panel, shown) {
    panel.appendChild(el("h2", {}, "Forward pass"));
    if (shown === 0) {
      panel.appendChild(el("p", {}, "Nothing computed yet. Step forward (→) to compute the Values " +
                                    "in topological order, operands first."));
      return;
    }
    const i = shown - 1, nd = D.nodes[i];
    fields[i].g.classList.add("mg-current");
    reveal(fields[i].g);
    if (nd.operands.length) {
      groups[nd.id + "_op"].classList.add("mg-current");
      for (const e of edgesInto[nd.id + "_op"] || []) e.classList.add("mg-flow");
      for (const o of nd.operands) fields[o].g.classList.add("mg-operand");
      panel.appendChild(el("p", { class: "expr", "data-mg": "fwd-expr" },
                           `${nd.name} = ${nd.expr} = ${nd.data[0]}`));
      const tb = el("table");
      tb.appendChild(row(["operand", "data"], "th"));
      for (const o of nd.operands) tb.appendChild(row([D.nodes[o].name, D.nodes[o].data[0]]));
      panel.appendChild(tb);
    } else {
      panel.appendChild(el("p", { class: "expr", "data-mg": "fwd-expr" }, `${nd.name} = ${nd.data[0]}`));
      panel.appendChild(el("p", { class: "muted" }, `a leaf (${nd.role}): its value is given, not computed`));
    }
    if (shown === N)
      panel.appendChild(el("p", {}, `The forward pass is done: ${D.nodes[D.root].name} = ` +
                                    `${D.nodes[D.root].data[0]}. Step on (→) for the backward pass.`));
  }

  function row(cells, tag, attrs) {
    const tr = el("tr", attrs || {});
    cells.forEach((c, i) => tr.appendChild(el(tag || "td", {}, c)));
    return tr;
  }

  function backwardPanel(panel, k) {
    const st = D.steps[k], nd = D.nodes[st.node];
    panel.appendChild(el("h2", {}, `Backward step ${k + 1} of ${S}`));
    fields[st.node].g.classList.add("mg-current");
    groups[nd.id + "_op"].classList.add("mg-current");
    for (const e of edgesInto[nd.id + "_op"] || []) e.classList.add("mg-flow");
    for (const c of st.contributions) fields[c.operand].g.classList.add("mg-operand");
    labelEdges(st, nd);
    reveal(fields[st.node].g);
    panel.appendChild(el("p", { class: "expr", "data-mg": "node" },
                         `${nd.name} = ${nd.expr}  data ${nd.data[0]}`));
    panel.appendChild(el("p", { class: "expr", "data-mg": "upstream" },
      `upstream ${nd.dname} = ${st.upstream[0]}` + (st.node === D.root ? " (the seed)" : "")));
    if (!st.has_rule) {
      panel.appendChild(el("p", { "data-mg": "norule" },
                           "(built by hand, without a derivative rule: gradients stop here)"));
      return;
    }
    panel.appendChild(el("p", { class: "muted" },
                         "Each operand receives local derivative × upstream; contributions add up."));
    const tb = el("table", { "data-mg": "contributions" });
    const head = ["operand", "local", "× upstream", "= contribution", "grad so far"];
    tb.appendChild(row(head, "th"));
    for (const c of st.contributions) {
      const o = D.nodes[c.operand];
      const tr = el("tr", { "data-mg": "contribution" });
      tr.appendChild(el("td", { "data-mg": "operand" }, o.name));
      tr.appendChild(el("td", { "data-mg": "local", title: c.dlocal + " = " + c.local[1] }, c.local[0]));
      tr.appendChild(el("td", { "data-mg": "up", title: st.upstream[1] }, "× " + st.upstream[0]));
      tr.appendChild(el("td", { "data-mg": "contrib", title: c.contribution[1] }, "= " + c.contribution[0]));
      tr.appendChild(el("td", { "data-mg": "total", title: o.dname + " = " + c.total[1] }, c.total[0]));
      tb.appendChild(tr);
    }
    panel.appendChild(tb);
    const lines = el("div", { class: "expr muted" });
    for (const c of st.contributions) {
      const o = D.nodes[c.operand];
      const line = el("div", { "data-mg": "notation" });
      line.append(el("span", { "data-mg": "dlocal" }, c.dlocal), ` = ${c.local[0]}; `,
                  el("span", { "data-mg": "dname" }, o.dname), ` so far ${c.total[0]}`);
      lines.appendChild(line);
    }
    panel.appendChild(lines);
  }

  function donePanel(panel) {
    const root = D.nodes[D.root];
    panel.appendChild(el("h2", {}, "Backward pass done"));
    panel.appendChild(el("p", {}, `Gradients of ${root.name} with respect to the leaves:`));
    const tb = el("table", { "data-mg": "leaves" });
    tb.appendChild(row(["leaf", "data", "gradient"], "th"));
    D.nodes.forEach((nd, i) => {
      if (nd.operands.length || i === D.root) return;
      const tr = row([nd.name, nd.data[0], nd.grad[0]]);
      tr.setAttribute("data-mg", "leaf");
      tb.appendChild(tr);
    });
    panel.appendChild(tb);
  }

  function pick(i) {
    if (picked !== null) fields[picked].g.classList.remove("mg-picked");
    picked = i;
    const nd = D.nodes[i];
    fields[i].g.classList.add("mg-picked");
    const box = $("info");
    box.replaceChildren(el("h2", {}, "Node " + nd.name));
    const dl = el("dl", { "data-mg": "info" });
    const add = (k, v) => {
      dl.appendChild(el("dt", {}, k));
      dl.appendChild(el("dd", { "data-mg": "info-" + k }, v));
    };
    add("label", nd.label || "(none: shown as " + nd.name + ")");
    add("role", nd.role);
    add("op", nd.operands.length ? `${nd.op || "?"}: ${nd.name} = ${nd.expr}` : "(a leaf)");
    add("data", nd.data[1]);
    add("grad", `${nd.dname} = ${nd.grad[1]}`);
    if (nd.operands.length) add("rule", nd.rule);
    box.appendChild(dl);
  }
  D.nodes.forEach((nd, i) => {
    fields[i].g.addEventListener("click", () => pick(i));
    const op = groups[nd.id + "_op"];
    if (op) op.addEventListener("click", () => pick(i));
  });

  function setZoom(z) {
    const vb = svg.viewBox.baseVal;
    if (z === null) z = Math.min(1.5, ($("graph").clientWidth - 20) / (vb.width * 4 / 3),
                                 ($("graph").clientHeight - 20) / (vb.height * 4 / 3));
    zoom = Math.max(0.1, Math.min(4, z));
    svg.style.width = (vb.width * zoom * 4 / 3) + "px"; svg.style.height = (vb.height * zoom * 4 / 3) + "px";
  }

  const controls = mgControls({
    show, frame: () => frame, last: LAST,
    keys: ({go, speed}) => ({
      f: () => go(0), b: () => go(N), "+": () => speed(1), "=": () => speed(1), "-": () => speed(-1),
      "0": () => setZoom(null),
    }),
  });
  $("fwd").addEventListener("click", () => controls.go(0));
  $("bwd").addEventListener("click", () => controls.go(N));
  $("zoomin").addEventListener("click", () => setZoom(zoom * 1.25));
  $("zoomout").addEventListener("click", () => setZoom(zoom / 1.25));
  $("zoomfit").addEventListener("click", () => setZoom(null));
  const vb0 = svg.viewBox.baseVal;
  setZoom(Math.max(0.5, Math.min(1, ($("graph").clientWidth - 20) / (vb0.width * 4 / 3),
                                    ($("graph").clientHeight - 20) / (vb0.height * 4 / 3))));
  show(frame);
  document.body.setAttribute("data-mg-ready", "1");
})();
</script>
</body>
</html>
""".replace("%%CONTROLS_SCRIPT%%", CONTROLS_SCRIPT)
)
