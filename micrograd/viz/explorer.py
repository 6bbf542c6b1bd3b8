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

import functools
import html
import os
import shutil
import sys
import types
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any, overload

from ..engine import Value
from ..files import write_atomically
from ..scopes import Recording
from . import page as pages
from .boxes import boxes_of, recorded_any, runs_of
from .chains import chain_of, expandable
from .dot import AUTO_GRAPHVIZ_SECONDS, GraphvizTimeoutError, graphviz_svg
from .graph_model import GraphModel, graph_model, model_names, recorded_names
from .layout import box_svgs, graph_svg
from .mistake_examples import EXAMPLES
from .mistakes import check_mistake
from .mistakes import page_data as breakit_data
from .page import RULES_IN_WORDS, trace_data

__all__ = ["EXPLORE_MAX_NODES", "RULES_IN_WORDS", "Explorer", "explore", "page", "trace_data"]

#: Seconds Graphviz may spend laying out the graph before ``explore(layout="graphviz")`` gives up.
DEFAULT_LAYOUT_TIMEOUT = 30.0

#: ``explore``'s default limit: an ``nn.GPT`` training step on one short name has about 7,200 Values.
EXPLORE_MAX_NODES = 20_000

#: Up to this many Values, ``layout="auto"`` asks Graphviz (where ``dot`` is installed, for at most
#: ``AUTO_GRAPHVIZ_SECONDS``); beyond, the built-in layout (``micrograd.viz.layout``), which takes
#: seconds where ``dot`` takes minutes.
GRAPHVIZ_UP_TO = 300

LAYOUTS = ("auto", "graphviz", "builtin")


class Explorer:
    """An explorer page: ``html`` (the whole self-contained page), ``save(path)``, and
    ``_repr_html_`` for Jupyter (the page in an ``<iframe srcdoc>``, ``height`` pixels high)."""

    # 760 px: in a notebook the controls and the step panel take about 400 px of the frame; at 640
    # the graph had some 230 px (the frame can be dragged taller: resize: vertical)
    def __init__(self, page: str, title: str, height: int = 760) -> None:
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
        # without allow-same-origin keeps it away from the notebook; allow="fullscreen" lets its
        # "full page" button give it the whole screen where the output is too narrow to read;
        # border-box keeps the border inside the output's width (no sideways scroll bar).
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" title="{html.escape(self.title)}" '
            f'sandbox="allow-scripts" allow="fullscreen" '
            f'style="box-sizing: border-box; width: 100%; height: {self.height}px; '
            'border: 1px solid #ced4da; resize: vertical;"></iframe>'
        )

    def __repr__(self) -> str:
        return f"<Explorer of {self.title!r}: {len(self.html):,} characters of HTML; .save(path) writes it>"


#: What explore's GraphTooLargeError advises (``{n}``: the graph's size).
EXPLORE_ADVICE = (
    "a graph this large is slow to lay out and too dense to follow step by step. Explore the graph of a "
    "single sample (e.g. one neuron, or the loss of one input instead of the whole batch), or raise the "
    "limit with max_nodes={n} (None: no limit; the page grows by about 2 kB per Value; record scopes "
    "with micrograd.scopes.record_scopes() and pass scopes= to see it in boxes)."
)


def _check(
    root: object, layout_timeout: object, layout: object, scopes: object, mistake: object, expand_dot: object
) -> None:
    """Refuse what ``explore`` cannot use, saying what it needs instead."""
    if mistake is not None:
        check_mistake(mistake, "explore")
    if not isinstance(expand_dot, bool):
        raise TypeError(f"explore: expand_dot must be True or False, got {expand_dot!r}")
    if expand_dot and (scopes is not None or mistake is not None):
        raise ValueError(
            "explore: expand_dot=True draws the chains on a graph without boxes or break-it mode; "
            "leave out scopes= and mistake= (or expand_dot)"
        )
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
    if scopes is not None and layout == "graphviz":
        raise ValueError("explore: a graph in boxes (scopes=) is laid out by layout='builtin' only")


def _boxes_for_breakit(breakit: dict[str, Any], data: dict[str, Any]) -> None:
    """Break-it rings the closed box that holds a wrong Value: give it each Value's box and each
    box's parent (from ``data``, once ``boxes_data`` has filled them)."""
    breakit["box"] = [node["box"] for node in data["nodes"]]
    breakit["parent"] = [box["parent"] for box in data["boxes"]]


def _offer_examples(breakit: dict[str, Any] | None, offered: bool = True) -> None:
    """Give each mistake that changes no gradient of this graph its example: the code, and the
    example's own page (in break-it mode on that mistake), which the panel opens with one click.
    Nothing when there is no break-it panel, or no example is ``offered``."""
    if breakit is None or not offered:
        return
    for m in breakit["mistakes"]:
        if "refused" not in m and m["first"] is None:
            m["example"] = {"code": EXAMPLES[m["name"]][0], "page": example_page(m["name"])}


@functools.cache
def example_page(mistake: str) -> str:
    """The explorer page of ``mistake``'s example graph, opened on that mistake (built once: the
    same few Values every time), offering no examples of its own.  Its style and scripts are left
    as comments, ``/*mg-shared:CSS*/``, ``/*mg-shared:CONTROLS_JS*/`` and ``/*mg-shared:PAGE_JS*/``:
    the page offering it fills them with its own, the same files, rather than carry them twice.

    >>> text = example_page("overwrite")
    >>> '"selected":"overwrite"' in text, "/*mg-shared:PAGE_JS*/" in text, "function mgControls(" in text
    (True, True, False)
    """
    code, build = EXAMPLES[check_mistake(mistake, "example_page")]
    text = page(build(), mistake=mistake, title=f"{mistake} on {code}", examples=False).html
    for field, shared in pages.explorer_assets().items():
        if text.count(shared) != 1:
            raise RuntimeError(f"example_page: the {field} of {mistake}'s example is not in its page once")
        text = text.replace(shared, f"/*mg-shared:{field}*/")
    return text


def _said(note: str) -> str:
    """``note``, also as a warning (the page shows it too), pointed at the user's line that
    called ``explore``: the first frame outside this package's pictures."""
    depth = 2
    frame: types.FrameType | None = sys._getframe(1)
    here = os.path.dirname(__file__)
    while frame is not None and os.path.dirname(frame.f_code.co_filename) == here:
        depth, frame = depth + 1, frame.f_back
    warnings.warn(note, stacklevel=depth)
    return note


def _picture(model: GraphModel, layout: str, timeout: float) -> tuple[str, str]:
    """The graph laid out as ``layout`` asks, and a note for the page (empty if none): with
    ``"auto"``, Graphviz for a small graph where ``dot`` is installed, within
    ``AUTO_GRAPHVIZ_SECONDS``, else (and on its timeout, said) the built-in layout."""
    if layout == "graphviz":
        return graphviz_svg(model, timeout), ""
    n = len(model.order)
    if layout == "auto" and n <= GRAPHVIZ_UP_TO and shutil.which("dot") is not None:
        limit = min(timeout, AUTO_GRAPHVIZ_SECONDS)
        try:
            return graphviz_svg(model, limit), ""
        except GraphvizTimeoutError:
            return graph_svg(model), _said(
                f"explore: Graphviz did not lay out this graph of {n} Values within {limit:g} s, so the "
                'built-in layout drew it (layout="builtin"); layout="graphviz" waits up to layout_timeout'
            )
    return graph_svg(model), ""


def _unrecorded(model: GraphModel, scopes: Recording | None) -> str:
    """What the page says when ``scopes`` recorded none of the graph (it is then drawn without boxes)."""
    if scopes is None or recorded_any(model, scopes):
        return ""
    return _said(
        f"explore: the scopes given recorded none of this graph's {len(model.order)} Values, so it is "
        "shown without boxes; build the graph inside `with micrograd.scopes.record_scopes() as scopes:` "
        "and pass that recording"
    )


def page(
    root: Value,
    params: Iterable[Value] | None = None,
    max_nodes: int | None = EXPLORE_MAX_NODES,
    layout_timeout: float = DEFAULT_LAYOUT_TIMEOUT,
    title: str | None = None,
    layout: str = "auto",
    scopes: Recording | None = None,
    mistake: str | None = None,
    named: object = None,
    examples: bool = True,
    expand_dot: bool = False,
    other_view: bool = True,
) -> Explorer:
    """Build the explorer page of ``root``'s graph (what ``explore`` saves or shows), one stage
    after the other: graph model, (boxes), layout, page.  Names: a label, else ``named``'s
    (``explore``'s ``model=``), else a Module's parameter's in ``scopes``.  ``examples``: a small
    graph for each mistake that changes nothing here; ``other_view``: ``_with_other_view``."""
    _check(root, layout_timeout, layout, scopes, mistake, expand_dot)
    names = recorded_names(scopes) | model_names(named, "explore")  # model= wins over discovered
    model = graph_model(root, params, max_nodes, "explore", EXPLORE_ADVICE, names, True, expand_dot)
    trace = model.backward()
    data = trace_data(model, trace)
    breakit = None if expand_dot else breakit_data(model, trace.grads, mistake)
    _offer_examples(breakit, examples)
    if scopes is None and mistake is None:  # (a page in boxes or in break-it mode has no chains)
        data = _with_other_view(data, model, other_view, (root, params, layout, layout_timeout, title, named))
    note = _unrecorded(model, scopes)
    if scopes is not None and not note:
        boxes = boxes_of(model, scopes)
        svgs = box_svgs(model, boxes)
        pages.boxes_data(boxes, runs_of(model, boxes, trace), svgs, data)
        if breakit is not None:
            _boxes_for_breakit(breakit, data)
        svg = svgs[0]
    else:
        svg, said = _picture(model, layout, float(layout_timeout))
        note = note or said
    heading = pages.heading(model, title)
    return Explorer(pages.explorer_page(model, data, svg, heading, note, breakit), heading)


def _with_other_view(
    data: dict[str, Any], model: GraphModel, offered: bool, page_args: tuple[Any, ...]
) -> dict[str, Any]:
    """The page's ``data`` with the other way of drawing the graph's sums and dots (``_other_view``);
    on the other view itself (not ``offered``), the node to pick at its start."""
    if not offered:  # the click that opens this view writes the node to pick over the -1, which
        data = {"pick": -1, **data}  # it finds as the page data's first key: so "pick" goes first
    other = _other_view(model, offered, *page_args)
    return data if other is None else {**data, "other": other}


#: The chain's button on a node, by the view the page shows (one node, or its chain)
CHAIN_BUTTONS = ("show as the lecture's chain", "show as one node")


def _other_view(
    model: GraphModel,
    offered: bool,
    root: Value,
    params: Iterable[Value] | None,
    layout: str,
    layout_timeout: float,
    title: str | None,
    named: object,
) -> dict[str, Any] | None:
    """The other way of drawing this graph's sums and dots (as their chains, or as one node each),
    for the button the page shows on such a node: ``html``, that page (None where ``offered`` is
    False: the page was itself that other view, and its button reloads the first); ``nodes``,
    each such node's id here -> its id there; ``button``, the button's text.  None where the graph
    has no node to draw the other way, or where the chains would make it larger than Graphviz lays
    out (``GRAPHVIZ_UP_TO``: two pages of a large graph would be slow to make and to load)."""
    expanded = bool(model.chains)
    nodes = list(model.chains) if expanded else [v for v in model.order if expandable(v, model.hidden)]
    if not nodes:
        return None
    links = sum(len(chain_of(v, model.hidden).links) for v in nodes) if not expanded else 0
    if len(model.order) + links > GRAPHVIZ_UP_TO:
        return None
    html_ = None
    if offered:
        other = page(
            root, params, None, layout_timeout, title, layout, None, None, named, False, not expanded, False
        )
        html_ = other.html
    there = graph_model(root, params, None, expressions=True, expand_dot=not expanded).index
    return {
        "html": html_,
        "button": CHAIN_BUTTONS[expanded],
        "nodes": {str(model.index[v]): there[v] for v in nodes},
    }


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
    mistake: str | None = None,
    model: object = None,
    expand_dot: bool = False,
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
    mistake: str | None = None,
    model: object = None,
    expand_dot: bool = False,
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
    mistake: str | None = None,
    model: object = None,
    expand_dot: bool = False,
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
    ``mistake``: one of ``micrograd.viz.mistakes.MISTAKES`` (``"overwrite"``, ``"no-topo"``,
    ``"no-zero-grad"``, ``"tanh"``): the page opens in break-it mode on that bug, every Value's
    wrong gradient beside its right one and the first that differs marked; the page's "break it"
    control switches between them whatever ``mistake`` is.
    ``model``: an ``nn.Module`` (or ``(name, Value)`` pairs): each of its parameters is drawn,
    explained and searchable by its ``named_parameters()`` name, ``layers.0.neurons.1.w.1``;
    with ``scopes=``, the Modules called at the top of the recording name theirs without it.
    A label you set on a Value always wins.  ``.grad`` is left alone: the page's gradients come
    from the ops' rules, as ``explain``.
    ``expand_dot``: every ``dot`` node (``micrograd.ops.weighted_sum``) and every sum of three
    terms or more (``micrograd.sum``; a neuron's ``w·x + b``, ``micrograd.dot``) drawn as the
    lecture's chain of ``*`` and ``+`` nodes, its values and gradients the engine's bit for bit
    (``micrograd.viz.chains``); a graph of up to 300 Values can switch on the page too, with the
    button on such a node.

    >>> from nn import MLP
    >>> model = MLP(2, [1], seed=0)
    >>> page = explore(model([1.0, 2.0]), model=model)
    >>> '"name":"layers.0.neurons.0.w.1"' in page.html
    True
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
        mistake=mistake,
        named=model,
        expand_dot=expand_dot,
    )
    if path is None:
        return explorer
    return explorer.save(path)
