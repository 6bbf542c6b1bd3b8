"""Seeing the graph: ``draw_dot`` (Graphviz), ``render`` (PNG/SVG) and ``explain`` (the chain rule, in text).

Graphviz is imported lazily, inside the functions that need it, so
``import micrograd`` works without it; ``explain`` needs nothing at all.

Colours, by the role of a Value in the graph:

================  ===========  ====================================================
role              fill         which Values
================  ===========  ====================================================
output            light green  the root(s) passed to ``draw_dot``
parameter         orange       leaves listed in ``params=`` (e.g. ``model.parameters()``);
                               without ``params``, the unlabelled leaves you made
                               (``Value(0.3)``, a Module's weights)
named leaf        light blue   other leaves with a label (inputs)
constant          grey         numbers the engine made into leaves (the 2 in ``2 * x``);
                               with ``params``, the other unlabelled leaves too
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

import contextlib
import math
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from ..engine import Value
from ..files import write_atomically
from .graph_model import (
    COLOURS,
    DEFAULT_MAX_NODES,
    BackwardStep,
    BackwardTrace,
    Contribution,
    GraphModel,
    GraphTooLargeError,
    Roots,
    as_values,
    backward_steps,
    d_of,
    expression,
    fmt,
    graph_model,
    model_names,
    names_of,
    role,
)

__all__ = [
    "COLOURS",
    "DEFAULT_MAX_NODES",
    "BackwardStep",
    "BackwardTrace",
    "Contribution",
    "GraphTooLargeError",
    "GraphvizNotFoundError",
    "GraphvizTimeoutError",
    "as_values",
    "backward_steps",
    "d_of",
    "draw_dot",
    "explain",
    "expression",
    "fmt",
    "graphviz_svg",
    "names_of",
    "render",
    "role",
    "run_dot",
]

FORMATS = ("png", "svg", "pdf")
RANKDIRS = ("LR", "TB", "RL", "BT")

INSTALL_HINT = (
    "install Graphviz, which provides it: `sudo apt-get install graphviz` (Debian/Ubuntu), "
    "`brew install graphviz` (macOS), `conda install graphviz` (conda) or "
    "`winget install graphviz` (Windows), then make sure `dot` is on your PATH"
)


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


def _escape(text: str, record: bool) -> str:
    r"""Text as a DOT label: backslashes and quotes always escaped; in a record, also the
    characters that delimit fields and ports (``{ } | < >``); line breaks as DOT's ``\n``."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    if record:
        for ch in "{}|<>":
            text = text.replace(ch, "\\" + ch)
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n").replace("\t", " ")


def draw_dot(
    root: Roots,
    format: str = "png",  # noqa: A002 - graphviz's own name for it
    rankdir: str = "LR",
    max_nodes: int | None = DEFAULT_MAX_NODES,
    params: Iterable[Value] | None = None,
    model: object = None,
    expand_dot: bool = False,
) -> Any:
    """The graph that computed ``root`` as a ``graphviz.Digraph``.

    One record per Value (label, data, grad), one small node per op, edges in
    operand order; colours by role (see the module docstring), ``params``
    marking the leaves to show as parameters; ``model`` (an ``nn.Module``, or ``(name, Value)``
    pairs) names its parameters as ``named_parameters()`` does (``layers.0.neurons.1.w.1``;
    a label you set wins).  The DOT text is deterministic:
    nodes are named by their position in the forward order, so the same graph
    gives byte-identical ``.source`` on every run.  More than ``max_nodes``
    Values raise ``GraphTooLargeError`` (``max_nodes=None``: no limit).  ``expand_dot``: every
    ``dot`` node and every sum of three terms or more drawn as the lecture's chain of ``*`` and
    ``+`` nodes, with the engine's numbers (see ``explore``).

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
    names = model_names(model, "draw_dot")
    graph = graph_model(
        root, params, max_nodes, "draw_dot", names=names, expressions=True, expand_dot=expand_dot
    )
    return dot_graph(graph, format, rankdir)


def dot_graph(model: GraphModel, format: str = "png", rankdir: str = "LR", stacked: bool = False) -> Any:  # noqa: A002
    """``model`` as a ``graphviz.Digraph``: ``draw_dot``'s picture.  ``stacked``: each record's
    fields one above the other and the op names as large as the numbers, as the explorer draws
    them (about two thirds of the width: the lecture's graph fits a laptop's window at 12 px)."""
    graphviz = _graphviz()
    dot = graphviz.Digraph(
        format=format,
        graph_attr={"rankdir": rankdir},
        node_attr={"style": "filled", "fontname": "Helvetica", "fontsize": "11"},
        edge_attr={"arrowsize": "0.6"},
    )
    for v in model.order:
        if v in model.hidden:
            continue
        fields = f"{_escape(model.names[v], True)} | data {fmt(v.data)} | grad {fmt(v.grad)}"
        # rankdir LR lays a record's fields out top to bottom; braces turn them side by side
        label = fields if stacked else f"{{ {fields} }}"
        # nohtml: a label is text, never Graphviz's HTML-like label (<...>), whatever a name holds
        node_label = graphviz.nohtml(label)
        dot.node(model.id(v), label=node_label, shape="record", fillcolor=COLOURS[model.roles[v]])
        if v.children:
            op_id = model.id(v) + "_op"
            # ordering=in keeps the in-edges, hence the operands, in the order they are listed.
            op = graphviz.nohtml(_escape(model.op(v) or "?", False))
            size = "11" if stacked else "10"
            dot.node(op_id, label=op, shape="ellipse", fillcolor="#f1f3f5", ordering="in", fontsize=size)
            for child in model.operands(v):
                dot.edge(model.id(child), op_id)
            dot.edge(op_id, model.id(v))
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
    """Graphviz's ``dot`` took longer than its time limit (``render``'s ``timeout``, ``explore``'s
    ``layout_timeout``) and was stopped, with every process it started; the message says how to
    get a picture anyway (``layout="builtin"`` among them)."""


def run_dot(args: list[str], source: str, timeout: float | None) -> subprocess.CompletedProcess[bytes]:
    """Run Graphviz's ``dot`` with ``args`` on the DOT ``source``: its exit status, output and
    messages.  Past ``timeout`` seconds (``None``: no limit) it is stopped and
    ``subprocess.TimeoutExpired`` raised; so it is on any other exception (Ctrl-C).  ``dot`` runs
    in a process group of its own and the whole group is killed, so that nothing it started (a
    wrapper script's children, a plugin) is left running: ``dot`` can lay out for an hour.  If
    this process ends first, however it ends (``kill -9``, a notebook's kernel restarted), a
    ``watchdog`` kills the group."""
    posix = os.name == "posix"
    with subprocess.Popen(
        ["dot", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=posix,  # its own process group, killed whole below
    ) as proc:
        guard = watchdog(proc.pid) if posix else None
        try:
            out, err = proc.communicate(source.encode("utf-8"), timeout=timeout)
        except BaseException:
            if posix:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
            proc.kill()
            proc.wait()  # reaped: no zombie either (the pipes are closed on leaving the with)
            raise
        finally:
            if guard is not None:
                call_off(guard)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def watchdog(group: int) -> subprocess.Popen[bytes]:
    """A ``sh`` that kills process ``group`` once this process has ended, however it ended: it
    reads a pipe that only this process writes to, and the system closes that pipe when this
    process ends (SIGKILL included, which no handler and no ``finally`` sees).  In a session of
    its own, so that a Ctrl-C or a kill of this process's group does not stop it first."""
    return subprocess.Popen(
        ["/bin/sh", "-c", 'read _ ; kill -9 "-$1"', "micrograd-dot-watchdog", str(group)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def call_off(guard: subprocess.Popen[bytes]) -> None:
    """Stop a ``watchdog`` before it acts (``dot`` ended, or was killed here), and reap it."""
    guard.kill()
    guard.wait()
    assert guard.stdin is not None
    guard.stdin.close()


#: Seconds ``explore(layout="auto")`` gives Graphviz before drawing the graph with the built-in
#: layout instead: ``dot`` takes well under a second on the graphs it lays out well, and can
#: take an hour on others of the same size (a 298-Value Horner chain: over 40 minutes).
AUTO_GRAPHVIZ_SECONDS = 2.0


#: The gap between the explorer's columns, in inches (layout.py's RANK_GAP, in points, the same).
EXPLORER_RANKSEP = 0.35


def graphviz_svg(model: GraphModel, timeout: float) -> str:
    """The explorer's picture of ``model`` (``dot_graph(stacked=True)``) laid out by Graphviz, as
    SVG (prolog and comments stripped).  Past ``timeout`` seconds ``dot`` is stopped and
    ``GraphvizTimeoutError`` raised; without ``dot``, ``GraphvizNotFoundError``."""
    source = dot_graph(model, "svg", stacked=True).source
    n = len(model.order)
    if shutil.which("dot") is None:
        raise GraphvizNotFoundError(
            "explore: Graphviz's `dot` program was not found on PATH; it lays out the graph. To get it, "
            + INSTALL_HINT
            + '; or pass layout="builtin" (this package\'s own layout, no Graphviz needed).'
        )
    try:
        # The explorer's columns closer than draw_dot's (EXPLORER_RANKSEP): the lecture's neuron
        # then fits a 1024 px window at readable text; draw_dot's pictures keep Graphviz's 0.5 in.
        done = run_dot(["-Tsvg", f"-Granksep={EXPLORER_RANKSEP}"], source, timeout)
    except subprocess.TimeoutExpired:
        raise GraphvizTimeoutError(
            f"explore: Graphviz did not lay out the graph of {n} Values within layout_timeout={timeout:g} s "
            'and was stopped; pass layout="builtin" (this package\'s own layout: seconds, even for '
            "thousands of Values), explore a smaller graph (e.g. the loss of one sample instead of the "
            "whole batch) or pass a larger layout_timeout"
        ) from None
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", errors="replace").strip()
        raise RuntimeError(f"explore: Graphviz's `dot` failed (exit status {done.returncode}): {stderr}")
    svg = done.stdout.decode("utf-8")
    start = svg.find("<svg")
    if start < 0:
        raise RuntimeError("explore: Graphviz's `dot` wrote no SVG")
    svg = re.sub(r"<!--.*?-->\n?", "", svg[start:], flags=re.S)
    drawn = [i for i, v in enumerate(model.order) if v not in model.hidden]
    missing = [f"n{i}" for i in drawn if f"<title>n{i}</title>" not in svg]
    if missing:
        raise RuntimeError(f"explore: the laid-out graph lacks the nodes {missing[:5]}")
    return svg


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
    model: object = None,
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
    to install Graphviz.  ``params`` and ``model`` (its parameters' names) as in ``draw_dot``.

    >>> from micrograd import Value
    >>> import tempfile, pathlib
    >>> x = Value(3.0, label="x"); y = (x * x).relu()
    >>> out = render(y, pathlib.Path(tempfile.mkdtemp()) / "graph.png")
    >>> out.name, out.read_bytes()[:4]
    ('graph.png', b'\\x89PNG')
    """
    target, fmt = _target(path, format)
    seconds = _check_timeout(timeout)
    if rankdir not in RANKDIRS:
        raise ValueError(f"render: rankdir must be one of {', '.join(RANKDIRS)}; got {rankdir!r}")
    graph = graph_model(
        root, params, max_nodes, "render", names=model_names(model, "render"), expressions=True
    )
    dot = dot_graph(graph, fmt, rankdir)
    dot.graph_attr.update(LAYOUT_LIMITS)
    source = dot.source
    _make_parent(target)
    source_path = target.with_suffix(".dot")
    try:
        # dot itself rather than graphviz's pipe(), which has no timeout in the versions we support
        done = run_dot([f"-T{fmt}"], source, seconds)
    except FileNotFoundError as exc:
        saved = _save_source(source, source_path)
        raise GraphvizNotFoundError(
            f"render: Graphviz's `dot` program was not found on PATH, so {str(target)!r} was not drawn; "
            f"{saved}. To draw it, " + INSTALL_HINT + f", "
            f"then run `dot -T{fmt} {source_path} -o {target}` or call render() again."
        ) from exc
    except subprocess.TimeoutExpired as exc:  # run_dot has stopped dot
        saved = _save_source(source, source_path)
        raise GraphvizTimeoutError(
            f"render: Graphviz's `dot` did not finish drawing the graph of {len(graph.order)} Values within "
            f"{seconds:g} s and was stopped, so {str(target)!r} was not drawn; {saved}. To get a picture "
            "anyway, draw a smaller graph: one sample (e.g. the loss of a single input instead of the whole "
            "batch), or pass a lower max_nodes= to refuse large graphs at once; format='svg' skips the "
            "bitmap step, slow for large pictures; timeout=None waits as long as dot needs; or see it "
            "without Graphviz, laid out in seconds: explore(root, 'graph.html', layout=\"builtin\")."
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


def explain(
    root: Value,
    file: TextIO | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    model: object = None,
) -> None:
    """Print backpropagation through ``root``'s graph step by step, for following the chain rule by hand.

    Node by node in backward order: each op's output with its upstream
    gradient d(root)/d(output), then for each operand the local derivative
    d(output)/d(operand), the contribution it receives (local derivative *
    upstream gradient) and its gradient so far.  Then the leaves' gradients.
    Unlabelled Values are called ``#i``, as in ``draw_dot``'s pictures, or by their names in
    ``model`` (an ``nn.Module``'s ``named_parameters()``, or ``(name, Value)`` pairs).

    ``explain`` runs its own backward pass with the ops' derivative rules: it
    does not call ``backward`` and leaves every ``.grad`` as it was.  Prints
    to ``file`` (default: standard output).  See the module docstring for an
    example.
    """
    if not isinstance(root, Value):
        raise TypeError(f"explain() needs a Value, got {type(root).__name__}: {root!r}")
    names_given = model_names(model, "explain")
    model = graph_model(root, max_nodes=max_nodes, what="explain", names=names_given, expressions=True)
    trace = model.backward()
    out = sys.stdout if file is None else file
    names = trace.names
    r = names[root]

    def d(num: Value, den: Value) -> str:
        return d_of(names[num], names[den])

    header = (
        f"Backpropagation from {r} = {fmt(root.data)} through {len(trace.order) - len(model.hidden)} Values, "
        "in backward order."
    )
    print(header, file=out)
    print("Each operand receives: local derivative * upstream gradient (contributions add up).", file=out)
    for step in trace.steps:
        v, g = step.node, step.upstream
        upstream = f"{d(root, v)} = {fmt(g)}" + (" (the seed)" if v is root else "")
        written = expression(v, names, model.operands(v), model.op(v))
        print(f"\n{names[v]} = {written}  data {fmt(v.data)}  upstream {upstream}", file=out)
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
    leaves = [v for v in trace.order if not v.children and v is not root and v not in model.hidden]
    if leaves:
        print(f"\nGradients of {r} with respect to the leaves:", file=out)
        width = max(len(names[v]) for v in leaves)
        for v in leaves:
            print(
                f"    {names[v]:<{width}}  data {fmt(v.data)}  {d(root, v)} = {fmt(trace.grads[v])}",
                file=out,
            )
