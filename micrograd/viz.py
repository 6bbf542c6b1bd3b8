"""Seeing the graph: ``draw_dot`` (Graphviz), ``render`` (PNG/SVG) and ``explain`` (the chain rule, in text).

Graphviz is imported lazily, inside the functions that need it, so
``import micrograd`` works without it; ``explain`` needs nothing at all.

Colours, by the role of a Value in the graph:

================  ===========  ====================================================
role              fill         which Values
================  ===========  ====================================================
output            light green  the root(s) passed to ``draw_dot``
parameter         orange       leaves listed in ``params=`` (e.g. ``model.parameters()``)
named leaf        light blue   other leaves with a label (inputs; parameters too
                               when ``params`` is not given)
constant          grey         leaves without a label (numbers such as the 2 in ``2 * x``)
intermediate      white        results of ops
================  ===========  ====================================================

Each Value is a record ``label | data | grad`` (``#i`` stands in for a missing
label, ``i`` being the Value's position in the forward order, the same numbers
``explain`` prints); each op is a small ellipse between its operands and its
result, with its in-edges in operand order.

>>> from micrograd import Value
>>> from micrograd.viz import explain
>>> a = Value(2.0, label="a"); b = Value(-3.0, label="b")
>>> L = a * b; L.label = "L"
>>> explain(L)  # doctest: +NORMALIZE_WHITESPACE
Backpropagation from L = -6.0000 through 3 Values, in backward order.
Each operand receives: local derivative * upstream gradient (contributions add up).
<BLANKLINE>
L = a * b  data -6.0000  upstream dL/dL = 1.0000 (the seed)
    a  local dL/da = -3.0000 * 1.0000 = -3.0000  dL/da so far -3.0000
    b  local dL/db = 2.0000 * 1.0000 = 2.0000  dL/db so far 2.0000
<BLANKLINE>
Gradients of L with respect to the leaves:
    a  data 2.0000  dL/da = -3.0000
    b  data -3.0000  dL/db = 2.0000
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .autograd import topological_order
from .engine import Value, backpropagate, vjp
from .files import write_atomically
from .nodes import CONSTANT, NO_GRAD

Roots = Value | Sequence[Value]

#: Default limit on the number of Values ``draw_dot``/``render``/``explain`` accept:
#: beyond a few hundred, Graphviz lays out slowly and the picture is unreadable.
DEFAULT_MAX_NODES = 300

FORMATS = ("png", "svg", "pdf")
RANKDIRS = ("LR", "TB", "RL", "BT")

COLOURS = {
    "output": "#b2f2bb",
    "parameter": "#ffc078",
    "named leaf": "#a5d8ff",
    "constant": "#dee2e6",
    "intermediate": "#ffffff",
}

INSTALL_HINT = (
    "install Graphviz, which provides it: `sudo apt-get install graphviz` (Debian/Ubuntu), "
    "`brew install graphviz` (macOS), `conda install graphviz` (conda) or "
    "`winget install graphviz` (Windows), then make sure `dot` is on your PATH"
)


class GraphTooLargeError(ValueError):
    """The graph has more Values than ``max_nodes`` allows (the message says how many, and what to do)."""


class GraphvizNotFoundError(RuntimeError):
    """Graphviz's ``dot`` executable is missing; the ``.dot`` source was saved instead."""


def _graphviz() -> Any:
    try:
        import graphviz
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "drawing graphs needs the graphviz Python package: `pip install graphviz` "
            "(or `pip install micrograd-next[demos]`); Graphviz's `dot` program is needed too: "
            + INSTALL_HINT
        ) from None
    return graphviz


def _graph(roots: Roots, max_nodes: int | None, what: str) -> list[Value]:
    """The Values of the graph in forward order, after checking the roots and the size limit."""
    if max_nodes is not None and (
        isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1
    ):
        raise ValueError(f"{what}: max_nodes must be a positive int or None, got {max_nodes!r}")
    if not isinstance(roots, (Value, Sequence)):
        raise TypeError(
            f"{what} needs a Value or a sequence of Values, got {type(roots).__name__}: {roots!r}"
        )
    order = topological_order(roots)
    if max_nodes is not None and len(order) > max_nodes:
        raise GraphTooLargeError(
            f"{what}: the graph has {len(order)} Values, more than max_nodes={max_nodes}; "
            "a graph this large lays out slowly and is unreadable as a picture. "
            "Draw the graph of a single sample (e.g. the loss of one input instead of the whole batch), "
            f"use format='svg' to zoom in, or raise the limit with max_nodes={len(order)} (None: no limit)."
        )
    return order


def fmt(x: float) -> str:
    """4 decimals, as micrograd shows them; scientific notation where that would hide the value."""
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0.0 or 1e-3 <= abs(x) < 1e6:
        return f"{x:.4f}"
    return f"{x:.4e}"


def _escape(text: str, record: bool) -> str:
    r"""Text as a DOT label: backslashes and quotes always escaped; in a record, also the
    characters that delimit fields and ports (``{ } | < >``); line breaks as DOT's ``\n``."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    if record:
        for ch in "{}|<>":
            text = text.replace(ch, "\\" + ch)
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n").replace("\t", " ")


def names_of(order: list[Value]) -> dict[Value, str]:
    """A display name per Value: its label, or ``#i`` (its position in the forward order)."""
    return {v: v.label or f"#{i}" for i, v in enumerate(order)}


def role(v: Value, outputs: set[Value], params: set[Value]) -> str:
    """What ``v`` is in the picture: an output, an intermediate, a parameter, a named leaf or a
    constant.  Without ``params``, a leaf you made (``Value(0.3)``, a Module's weight) that has no
    label is a parameter, and a number the engine lifted into a leaf (the 2 of ``x * 2``) a constant."""
    if v in outputs:
        return "output"
    if v._prev:
        return "intermediate"
    if v in params:
        return "parameter"
    if v.label:
        return "named leaf"
    return "parameter" if not params and v._op not in (CONSTANT, NO_GRAD) else "constant"


def as_values(values: Value | Iterable[Value] | None, what: str) -> set[Value]:
    if values is None:
        return set()
    if isinstance(values, Value):
        return {values}
    result: set[Value] = set()
    for i, v in enumerate(values):
        if not isinstance(v, Value):
            raise TypeError(f"{what}[{i}] must be a Value, got {type(v).__name__}: {v!r}")
        result.add(v)
    return result


def draw_dot(
    root: Roots,
    format: str = "png",  # noqa: A002 - graphviz's own name for it
    rankdir: str = "LR",
    max_nodes: int | None = DEFAULT_MAX_NODES,
    params: Iterable[Value] | None = None,
) -> Any:
    """The graph that computed ``root`` as a ``graphviz.Digraph``.

    One record per Value (label, data, grad), one small node per op, edges in
    operand order; colours by role (see the module docstring), ``params``
    marking the leaves to show as parameters.  The DOT text is deterministic:
    nodes are named by their position in the forward order, so the same graph
    gives byte-identical ``.source`` on every run.  More than ``max_nodes``
    Values raise ``GraphTooLargeError`` (``max_nodes=None``: no limit).

    >>> from micrograd import Value
    >>> x = Value(3.0, label="x"); y = x * x; y.label = "y"
    >>> dot = draw_dot(y)          # dot.render("graph") writes graph.png; see also render()
    >>> print(dot.source.splitlines()[4].strip())
    n0 [label="{ x | data 3.0000 | grad 0.0000 }" fillcolor="#a5d8ff" shape=record]
    """
    if format not in FORMATS:
        raise ValueError(f"draw_dot: format must be one of {', '.join(FORMATS)}; got {format!r}")
    if rankdir not in RANKDIRS:
        raise ValueError(f"draw_dot: rankdir must be one of {', '.join(RANKDIRS)}; got {rankdir!r}")
    order = _graph(root, max_nodes, "draw_dot")
    outputs = as_values(root, "root")
    param_set = as_values(params, "params")
    graphviz = _graphviz()
    dot = graphviz.Digraph(
        format=format,
        graph_attr={"rankdir": rankdir},
        node_attr={"style": "filled", "fontname": "Helvetica", "fontsize": "11"},
        edge_attr={"arrowsize": "0.6"},
    )
    ids = {v: f"n{i}" for i, v in enumerate(order)}
    names = names_of(order)
    for v in order:
        label = f"{{ {_escape(names[v], True)} | data {fmt(v.data)} | grad {fmt(v.grad)} }}"
        # nohtml: a label is text, never Graphviz's HTML-like label (<...>), whatever a name holds
        node_label = graphviz.nohtml(label)
        dot.node(ids[v], label=node_label, shape="record", fillcolor=COLOURS[role(v, outputs, param_set)])
        if v._prev:
            op_id = ids[v] + "_op"
            # ordering=in keeps the in-edges, hence the operands, in the order they are listed.
            op = graphviz.nohtml(_escape(v._op or "?", False))
            dot.node(op_id, label=op, shape="ellipse", fillcolor="#f1f3f5", ordering="in", fontsize="10")
            for child in v._prev:
                dot.edge(ids[child], op_id)
            dot.edge(op_id, ids[v])
    return dot


def _target(path: str | Path, fmt: str | None) -> tuple[Path, str]:
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    if fmt is None:
        if suffix not in FORMATS:
            raise ValueError(
                f"render: cannot tell the format from {str(path)!r}; "
                f"end the path with .{', .'.join(FORMATS)} or pass format="
            )
        return path, suffix
    if fmt not in FORMATS:
        raise ValueError(f"render: format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if suffix in FORMATS and suffix != fmt:
        raise ValueError(f"render: the path {str(path)!r} ends in .{suffix} but format={fmt!r}")
    return (path if suffix == fmt else path.with_name(path.name + "." + fmt)), fmt


#: Graphviz attributes ``render`` adds to bound the layout's effort: at most (number of nodes)
#: iterations of network simplex, for ranking (``nslimit1``) and for x coordinates (``nslimit``).
#: Unbounded, network simplex dominates the layout of long chains with a shared operand
#: (``v = v * x + c`` in a loop: 4 s at 122 Values, minutes at 181); bounded, the same graphs lay
#: out in under a second, and the pictures of ordinary graphs (an MLP sample) are unchanged.
LAYOUT_LIMITS = {"nslimit": "1", "nslimit1": "1"}

#: Seconds ``render`` lets Graphviz's ``dot`` run before stopping it (``timeout=None``: no limit).
DEFAULT_RENDER_TIMEOUT = 8.0


class GraphvizTimeoutError(TimeoutError):
    """Graphviz's ``dot`` took longer than ``render``'s ``timeout`` and was stopped; the ``.dot``
    source was saved, and the message says how to get a picture anyway."""


def _check_timeout(timeout: object) -> float | None:
    import numbers

    if timeout is None:
        return None
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, numbers.Real)
        or not 0 < float(timeout) < math.inf
    ):
        raise ValueError(f"render: timeout must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


def _make_parent(target: Path) -> None:
    """Create the directories above ``target`` that are missing, with a clear error if one is a file."""
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocked = next((p for p in (parent, *parent.parents) if p.exists() and not p.is_dir()), None)
        why = f"{str(blocked)!r} is a file, not a directory" if blocked else exc.strerror
        raise OSError(
            exc.errno, f"render: cannot create the directory {str(parent)!r}: {why}", str(target)
        ) from exc


def _save_source(source: str, path: Path) -> str:
    """Save the DOT source for the user to render by hand; the sentence to add to an error message.
    A failure to save it is reported in that sentence, so the error being raised stays the original one."""
    try:
        write_atomically(path, source.encode("utf-8"), "render")
    except OSError as exc:
        return f"the DOT source could not be saved either ({exc})"
    return f"the graph's DOT source is saved in {str(path)!r}"


def render(
    root: Roots,
    path: str | Path,
    format: str | None = None,  # noqa: A002 - graphviz's own name for it
    rankdir: str = "LR",
    max_nodes: int | None = DEFAULT_MAX_NODES,
    params: Iterable[Value] | None = None,
    timeout: float | None = DEFAULT_RENDER_TIMEOUT,
) -> Path:
    """Draw the graph of ``root`` into ``path`` (PNG, SVG or PDF) and return the path written.

    The format comes from the path's suffix, or from ``format`` (the suffix is
    then added if missing).  Missing directories above ``path`` are created.
    The file is written atomically (a temporary file in the same directory,
    renamed over ``path``): a failure leaves no partial picture behind.

    Graphviz's layout effort is bounded (``LAYOUT_LIMITS``), and ``dot`` is
    stopped after ``timeout`` seconds (``None``: no limit) with a
    ``GraphvizTimeoutError`` that says how to get a picture anyway.  If ``dot``
    is missing, fails or is stopped, the DOT source is written next to the
    target (``graph.png`` -> ``graph.dot``); ``GraphvizNotFoundError`` says how
    to install Graphviz.

    >>> from micrograd import Value
    >>> import tempfile, pathlib
    >>> x = Value(3.0, label="x"); y = (x * x).relu()
    >>> out = render(y, pathlib.Path(tempfile.mkdtemp()) / "graph.png")
    >>> out.name, out.read_bytes()[:4]
    ('graph.png', b'\\x89PNG')
    """
    import subprocess

    target, fmt = _target(path, format)
    seconds = _check_timeout(timeout)
    dot = draw_dot(root, format=fmt, rankdir=rankdir, max_nodes=max_nodes, params=params)
    dot.graph_attr.update(LAYOUT_LIMITS)
    source = dot.source
    _make_parent(target)
    source_path = target.with_suffix(".dot")
    try:
        # dot itself rather than graphviz's pipe(), which has no timeout in the versions we support
        done = subprocess.run(
            ["dot", f"-T{fmt}"], input=source.encode("utf-8"), capture_output=True, timeout=seconds
        )
    except FileNotFoundError as exc:
        saved = _save_source(source, source_path)
        raise GraphvizNotFoundError(
            f"render: Graphviz's `dot` program was not found on PATH, so {str(target)!r} was not drawn; "
            f"{saved}. To draw it, " + INSTALL_HINT + f", "
            f"then run `dot -T{fmt} {source_path} -o {target}` or call render() again."
        ) from exc
    except subprocess.TimeoutExpired as exc:  # subprocess.run has killed dot
        saved = _save_source(source, source_path)
        n = len(topological_order(root))
        raise GraphvizTimeoutError(
            f"render: Graphviz's `dot` did not finish drawing the graph of {n} Values within {seconds:g} s "
            f"and was stopped, so {str(target)!r} was not drawn; {saved}. To get a picture anyway, draw a "
            "smaller graph: one sample (e.g. the loss of a single input instead of the whole batch), or pass "
            "a lower max_nodes= to refuse large graphs at once; format='svg' skips the bitmap step, slow for "
            "large pictures; timeout=None waits as long as dot needs."
        ) from exc
    stderr = done.stderr.decode(errors="replace").strip()
    if done.returncode != 0:
        saved = _save_source(source, source_path)
        raise RuntimeError(
            f"render: Graphviz's `dot` failed (exit status {done.returncode}): {stderr}; {saved}"
        )
    if stderr:
        print(stderr, file=sys.stderr)  # dot's warnings, as graphviz's pipe() shows them
    write_atomically(target, done.stdout, "render")
    return target


_INFIX = ("+", "-", "*", "/", "**")


def d_of(num: str, den: str) -> str:
    """``dL/da``, ``d(#5)/d(#2)``: explain's notation for a derivative of one named Value by another."""
    return f"d{num if len(num) == 1 else f'({num})'}/d{den if len(den) == 1 else f'({den})'}"


def expression(v: Value, names: dict[Value, str]) -> str:
    """``v``'s op written out with its operands' names: ``a * b``, ``ReLU(c)``, ``c**2``, ``#0 + a + b``."""
    args = [names[c] for c in v._prev]
    op = v._op or "?"
    if (op in _INFIX and len(args) == 2) or (op in ("+", "*") and len(args) > 2):  # n-ary: micrograd.sum
        return f" {op} ".join(args)
    if op.startswith("**") and len(args) == 1:
        return f"{args[0]}{op}"
    if op == "neg" and len(args) == 1:
        return f"-{args[0]}"
    return f"{op}({', '.join(args)})"


@dataclass(frozen=True)
class Contribution:
    """What one operand receives at one backward step: ``local * upstream = contribution``."""

    operand: Value
    local: float  # d(node)/d(operand), the op's local derivative
    contribution: float  # local derivative * upstream gradient, as the op's rule computes it
    total: float  # d(root)/d(operand) so far: the running sum of its contributions


@dataclass(frozen=True)
class BackwardStep:
    """One node of the backward pass: its upstream gradient d(root)/d(node) and what each operand receives.

    ``contributions`` is empty for a node built by hand without a derivative rule
    (``has_rule`` False): gradients stop there."""

    node: Value
    upstream: float
    contributions: tuple[Contribution, ...]
    has_rule: bool


@dataclass(frozen=True)
class BackwardTrace:
    """Backpropagation through a graph, step by step: what ``explain`` prints and the explorer shows.

    ``order`` is the forward (topological) order, ``names`` the display name of
    each Value (its label, or ``#i`` for its position in ``order``), ``steps``
    the ops in backward order and ``grads`` d(root)/d(v) for every Value."""

    root: Value
    order: list[Value]
    names: dict[Value, str]
    steps: list[BackwardStep]
    grads: dict[Value, float]


def backward_steps(root: Value, max_nodes: int | None = DEFAULT_MAX_NODES) -> BackwardTrace:
    """Run backpropagation through ``root``'s graph with the ops' own derivative rules,
    recording every step; every ``.grad`` is left as it was.

    >>> from micrograd import Value
    >>> a = Value(2.0, label="a"); L = a * a; L.label = "L"
    >>> trace = backward_steps(L)
    >>> [(c.local, c.total) for c in trace.steps[0].contributions]
    [(2.0, 2.0), (2.0, 4.0)]
    """
    if not isinstance(root, Value):
        raise TypeError(f"backward_steps() needs a Value, got {type(root).__name__}: {root!r}")
    order = _graph(root, max_nodes, "backward_steps")
    steps: list[BackwardStep] = []

    def record(v: Value, g: float, received: Sequence[Any] | None, grads: dict[Value, Any]) -> None:
        """One step of the engine's own backward pass, as it happens, with the local derivatives."""
        if received is None:
            steps.append(BackwardStep(v, g, (), False))  # built by hand without a rule
            return
        local = vjp(v, 1.0)  # the op's rule asked with 1: its local derivatives
        parts: list[Contribution] = []
        now: dict[Value, Any] = {}  # what each operand has after each contribution of this step
        for child, loc, contrib in zip(v._prev, local, received):
            contrib = 0.0 if contrib is None else contrib
            before = now[child] if child in now else grads[child]  # (None: nothing yet)
            now[child] = contrib if before is None else before + contrib  # as the engine adds it
            parts.append(Contribution(child, 0.0 if loc is None else loc, contrib, now[child]))
        steps.append(BackwardStep(v, g, tuple(parts), True))

    grads = backpropagate({root: 1.0}, observe=record)
    totals = {v: 0.0 if grads[v] is None else grads[v] for v in order}
    return BackwardTrace(root, order, names_of(order), steps, totals)


def explain(
    root: Value,
    file: TextIO | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
) -> None:
    """Print backpropagation through ``root``'s graph step by step, for following the chain rule by hand.

    Node by node in backward order: each op's output with its upstream
    gradient d(root)/d(output), then for each operand the local derivative
    d(output)/d(operand), the contribution it receives (local derivative *
    upstream gradient) and its gradient so far.  Then the leaves' gradients.
    Unlabelled Values are called ``#i``, as in ``draw_dot``'s pictures.

    ``explain`` runs its own backward pass with the ops' derivative rules: it
    does not call ``backward`` and leaves every ``.grad`` as it was.  Prints
    to ``file`` (default: standard output).  See the module docstring for an
    example.
    """
    if not isinstance(root, Value):
        raise TypeError(f"explain() needs a Value, got {type(root).__name__}: {root!r}")
    trace = backward_steps(root, max_nodes)
    out = sys.stdout if file is None else file
    names = trace.names
    r = names[root]

    def d(num: Value, den: Value) -> str:
        return d_of(names[num], names[den])

    header = (
        f"Backpropagation from {r} = {fmt(root.data)} through {len(trace.order)} Values, in backward order."
    )
    print(header, file=out)
    print("Each operand receives: local derivative * upstream gradient (contributions add up).", file=out)
    for step in trace.steps:
        v, g = step.node, step.upstream
        upstream = f"{d(root, v)} = {fmt(g)}" + (" (the seed)" if v is root else "")
        print(f"\n{names[v]} = {expression(v, names)}  data {fmt(v.data)}  upstream {upstream}", file=out)
        if not step.has_rule:
            print("    (built by hand, without a derivative rule: gradients stop here)", file=out)
            continue
        width = max(len(names[c.operand]) for c in step.contributions)
        for c in step.contributions:
            print(
                f"    {names[c.operand]:<{width}}  local {d(v, c.operand)} = {fmt(c.local)}"
                f" * {fmt(g)} = {fmt(c.contribution)}  {d(root, c.operand)} so far {fmt(c.total)}",
                file=out,
            )
    leaves = [v for v in trace.order if not v._prev and v is not root]
    if leaves:
        print(f"\nGradients of {r} with respect to the leaves:", file=out)
        width = max(len(names[v]) for v in leaves)
        for v in leaves:
            print(
                f"    {names[v]:<{width}}  data {fmt(v.data)}  {d(root, v)} = {fmt(trace.grads[v])}",
                file=out,
            )
