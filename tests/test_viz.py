"""micrograd.viz: draw_dot, render and explain."""

from __future__ import annotations

import html
import io
import math
import os
import re
import shlex
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from micrograd import Value, grad, topological_order
from micrograd.viz.dot import (
    COLOURS,
    DEFAULT_MAX_NODES,
    LAYOUT_LIMITS,
    GraphTooLargeError,
    GraphvizNotFoundError,
    GraphvizTimeoutError,
    draw_dot,
    explain,
    render,
)
from micrograd.viz.graph_model import names_of

graphviz = pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")

from tests.graphviz_support import has_dot, needs_dot  # noqa: E402


def neuron() -> tuple[Value, list[Value]]:
    """micrograd's README neuron: o = tanh(x1*w1 + x2*w2 + b)."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    n = x1 * w1 + x2 * w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o, [w1, w2, b]


def records(source: str) -> dict[str, str]:
    """node name -> record label, from DOT source."""
    return dict(re.findall(r'^\t(n\d+) \[label="(\{.*?\})" ', source, flags=re.M))


# ---- draw_dot ---------------------------------------------------------------


def test_one_record_per_value_one_node_per_op_edges_in_operand_order() -> None:
    a, b = Value(5.0, label="a"), Value(2.0, label="b")
    c = a - b  # non-commutative: operand order must survive
    c.label = "c"
    src = draw_dot(c).source
    recs = records(src)
    assert recs == {
        "n0": "{ a | data 5.0000 | grad 0.0000 }",
        "n1": "{ b | data 2.0000 | grad 0.0000 }",
        "n2": "{ c | data 3.0000 | grad 0.0000 }",
    }
    assert re.findall(r"^\t(\S+) -> (\S+)", src, flags=re.M) == [
        ("n0", "n2_op"),
        ("n1", "n2_op"),
        ("n2_op", "n2"),
    ]
    assert re.search(r'^\tn2_op \[label="-" .*ordering=in', src, flags=re.M)


def test_a_reused_operand_gets_one_edge_per_use() -> None:
    a = Value(3.0, label="a")
    src = draw_dot(a * a).source
    assert re.findall(r"^\t(\S+) -> (\S+)", src, flags=re.M) == [
        ("n0", "n1_op"),
        ("n0", "n1_op"),
        ("n1_op", "n1"),
    ]


def test_records_show_data_and_grad_after_backward_and_number_unlabelled_values() -> None:
    o, _ = neuron()
    o.backward()
    recs = records(draw_dot(o).source)
    order = topological_order(o)
    assert len(recs) == len(order) == 10
    names = names_of(order, expressions=True)  # a label, else the expression of named operands
    for i, v in enumerate(order):
        assert recs[f"n{i}"] == f"{{ {names[v]} | data {v.data:.4f} | grad {v.grad:.4f} }}"
    assert recs["n0"] == "{ x1 | data 2.0000 | grad -1.5000 }"
    assert recs["n2"] == "{ x1*w1 | data -6.0000 | grad 0.5000 }"
    assert recs["n9"] == "{ o | data 0.7071 | grad 1.0000 }"


def test_numbers_too_small_or_large_for_four_decimals_are_shown_in_scientific_notation() -> None:
    recs = records(draw_dot(Value(1e-7) + Value(3e9) + Value(float("nan")) + Value(-math.inf)).source)
    labels = " ".join(recs.values())
    assert "data 1.0000e-07" in labels
    assert "data 3.0000e+09" in labels
    assert "data nan" in labels
    assert "data -inf" in labels


def fill(source: str, node: str) -> str:
    m = re.search(rf'^\t{node} \[.*fillcolor="(#[0-9a-f]+)"', source, flags=re.M)
    assert m, f"{node} not found"
    return m.group(1)


def test_colours_by_role() -> None:
    x = Value(1.0, label="x")  # named leaf
    w = Value(2.0, label="w")  # parameter
    y = 3.0 * (w * x)  # 3.0 is a constant leaf; w*x intermediate; y output
    src = draw_dot(y, params=[w]).source
    order = topological_order(y)
    ids = {v: f"n{i}" for i, v in enumerate(order)}
    const = next(v for v in order if not v._prev and not v.label)
    assert fill(src, ids[x]) == COLOURS["named leaf"]
    assert fill(src, ids[w]) == COLOURS["parameter"]
    assert fill(src, ids[const]) == COLOURS["constant"]
    assert fill(src, ids[y._prev[1]]) == COLOURS["intermediate"]
    assert fill(src, ids[y]) == COLOURS["output"]
    assert len(set(COLOURS.values())) == len(COLOURS)
    # Without params, a labelled leaf is a named leaf.
    assert fill(draw_dot(y).source, ids[w]) == COLOURS["named leaf"]


def test_several_roots_are_all_outputs() -> None:
    a = Value(1.0, label="a")
    b, c = a * 2, a + 1
    src = draw_dot([b, c]).source
    order = topological_order([b, c])
    assert fill(src, f"n{order.index(b)}") == COLOURS["output"]
    assert fill(src, f"n{order.index(c)}") == COLOURS["output"]


@pytest.mark.parametrize(
    "label",
    ["{a}", "a|b", "<port>", 'say "hi"', "back\\slash", "trailing\\", "two\nlines", '{|<>"\\}', "\\N"],
)
def test_labels_with_dot_syntax_are_escaped(label: str, tmp_path: Path) -> None:
    v = Value(1.0, label=label)
    w = v * 2
    w.label = label
    src = draw_dot(w, format="svg").source
    rec = records(src)["n0"]
    assert rec.startswith("{ ") and rec.endswith(" | data 1.0000 | grad 0.0000 }")
    # Unescaping the record field gives the label back (newlines become DOT's \n).
    field = rec[2 : -len(" | data 1.0000 | grad 0.0000 }")]
    assert re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), field) == label
    if has_dot():
        # Graphviz itself parses it, and the record keeps its three fields.
        svg = graphviz.Source(src).pipe(format="svg").decode()
        assert svg.count("data 1.0000") == 1
        assert svg.count("data 2.0000") == 2  # the constant 2 and w
        for line in label.split("\n"):
            assert svg.count(f">{html.escape(line)}</text>") == 2  # v and w


def test_an_op_name_with_quotes_or_backslashes_is_escaped() -> None:
    a = Value(1.0, label="a")
    b = Value(2.0, (a,), 'my"op\\')  # built by hand, with an awkward op name
    src = draw_dot(b).source
    assert 'n1_op [label="my\\"op\\\\"' in src
    if has_dot():
        assert b"my&quot;op\\" in graphviz.Source(src).pipe(format="svg")


def test_dot_source_is_deterministic_within_and_across_processes() -> None:
    def build() -> str:
        o, params = neuron()
        o.backward()
        return str(draw_dot(o, params=params).source)

    assert build() == build()
    script = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, sys.argv[1])
        from micrograd import Value
        from micrograd.viz import draw_dot
        xs = [Value(float(i), label=f"x{i}") for i in range(6)]
        junk = [Value(0.0) for _ in range(int(sys.argv[2]))]  # shifts id()s
        y = sum(x * x for x in xs) + xs[0] * xs[5]
        y.backward()
        sys.stdout.write(draw_dot(y).source)
        """
    )
    root = str(Path(__file__).resolve().parent.parent)
    outputs = set()
    for seed, junk in [("0", "0"), ("1", "1000"), ("12345", "7")]:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", script, root, junk], capture_output=True, text=True, env=env, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
    # ids are positions in the forward order: n0, sum's start of 0, is not drawn, n1 is x0
    assert 'n1 [label="{ x0 |' in outputs.pop()


def test_node_limit_error_says_how_many_and_what_to_do() -> None:
    x = Value(1.0)
    y = x
    for _ in range(DEFAULT_MAX_NODES):
        y = y + 1.0  # two Values per step: the constant and the sum
    n = len(topological_order(y))
    with pytest.raises(GraphTooLargeError) as info:
        draw_dot(y)
    msg = str(info.value)
    assert f"{n} Values" in msg
    assert f"max_nodes={DEFAULT_MAX_NODES}" in msg
    assert "single sample" in msg and "svg" in msg and f"max_nodes={n}" in msg
    assert isinstance(info.value, ValueError)
    # Raisable by argument, or switched off.
    assert len(records(draw_dot(y, max_nodes=n).source)) == n
    assert len(records(draw_dot(y, max_nodes=None).source)) == n
    with pytest.raises(GraphTooLargeError, match=f"{n} Values, more than max_nodes={n - 1}"):
        draw_dot(y, max_nodes=n - 1)
    with pytest.raises(GraphTooLargeError):
        explain(y, file=io.StringIO())


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "100"])
def test_bad_max_nodes(bad: object) -> None:
    with pytest.raises(ValueError, match="max_nodes must be a positive int or None"):
        draw_dot(Value(1.0), max_nodes=bad)  # type: ignore[arg-type]


def test_bad_arguments_to_draw_dot() -> None:
    with pytest.raises(ValueError, match="format must be one of png, svg, pdf; got 'jpg'"):
        draw_dot(Value(1.0), format="jpg")
    with pytest.raises(ValueError, match="rankdir must be one of LR, TB, RL, BT; got 'XY'"):
        draw_dot(Value(1.0), rankdir="XY")
    with pytest.raises(TypeError, match="needs a Value or a sequence of Values, got float"):
        draw_dot(3.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"params\[1\] must be a Value"):
        draw_dot(Value(1.0), params=[Value(2.0), 3.0])  # type: ignore[list-item]


def test_rankdir_and_format_reach_the_digraph() -> None:
    dot = draw_dot(Value(1.0), format="svg", rankdir="TB")
    assert dot.format == "svg"
    assert "rankdir=TB" in dot.source


# ---- render -------------------------------------------------------------------

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@needs_dot
def test_render_png_and_svg(tmp_path: Path) -> None:
    o, params = neuron()
    o.backward()
    png = render(o, tmp_path / "neuron.png", params=params)
    assert png == tmp_path / "neuron.png"
    data = png.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 1000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width > height > 50  # left to right
    svg = render(o, tmp_path / "neuron", format="svg")
    assert svg == tmp_path / "neuron.svg"
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and "data 0.7071" in text
    assert not (tmp_path / "neuron.dot").exists()  # the source is only kept when dot is missing


def test_render_bad_paths(tmp_path: Path) -> None:
    v = Value(1.0)
    with pytest.raises(ValueError, match="cannot tell the format from"):
        render(v, tmp_path / "graph")
    with pytest.raises(ValueError, match="cannot tell the format"):
        render(v, tmp_path / "graph.jpg")
    with pytest.raises(ValueError, match=r"ends in \.png but format='svg'"):
        render(v, tmp_path / "graph.png", format="svg")
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="is a file, not a directory"):
        render(v, tmp_path / "file" / "sub" / "graph.png")


def test_missing_dot_gives_install_instructions_and_keeps_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no `dot` anywhere on PATH
    o, params = neuron()
    target = tmp_path / "neuron.png"
    with pytest.raises(GraphvizNotFoundError) as info:
        render(o, target, params=params)
    msg = str(info.value)
    for hint in ("apt-get install graphviz", "brew install graphviz", "conda install graphviz", "winget"):
        assert hint in msg
    source = tmp_path / "neuron.dot"
    assert str(source) in msg
    assert not target.exists()
    bounded = draw_dot(o, params=params)
    bounded.graph_attr.update(LAYOUT_LIMITS)
    assert source.read_text() == bounded.source  # what dot was given: the layout limits included
    assert "nslimit=1" in source.read_text()
    assert isinstance(info.value, RuntimeError)


@needs_dot
def test_the_saved_source_renders_once_dot_is_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    o, _ = neuron()
    with monkeypatch.context() as m:
        m.setenv("PATH", str(tmp_path))
        with pytest.raises(GraphvizNotFoundError):
            render(o, tmp_path / "g.svg")
    svg = graphviz.Source((tmp_path / "g.dot").read_text()).pipe(format="svg")
    assert b"<svg" in svg


def test_failing_dot_is_reported_and_keeps_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    script = fake / "dot"
    script.write_text("#!/bin/sh\necho 'Error: something broke' >&2\nexit 3\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    with pytest.raises(RuntimeError, match=r"exit status 3.*something broke") as info:
        render(Value(1.0), tmp_path / "g.png")
    assert not isinstance(info.value, GraphvizNotFoundError)
    assert (tmp_path / "g.dot").exists()


@needs_dot
def test_render_creates_missing_directories_and_writes_through_symlinks(tmp_path: Path) -> None:
    o, _ = neuron()
    out = render(o, tmp_path / "out" / "deep" / "graph.svg")
    assert out.read_text().lstrip().startswith("<?xml")
    (tmp_path / "pictures").mkdir()
    real = tmp_path / "pictures" / "g.svg"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "latest.svg"
    link.symlink_to(real)
    render(o, link)
    assert link.is_symlink() and "<svg" in real.read_text()
    assert real.stat().st_mode & 0o777 == 0o640  # replacing a file keeps its permissions
    assert sorted(p.name for p in (tmp_path / "pictures").iterdir()) == ["g.svg"]  # no temporary file left


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every fsync fail as on a full disk: the bytes written so far never reach the file."""

    def fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fsync)


@needs_dot
def test_a_failed_write_leaves_the_old_picture_and_the_original_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    o, _ = neuron()
    target = tmp_path / "g.png"
    target.write_bytes(b"old picture")
    _full_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left on device") as info:
        render(o, target)
    assert info.value.errno == 28
    assert target.read_bytes() == b"old picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.png"]  # no partial or temporary file


def test_when_the_dot_source_cannot_be_saved_the_original_error_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    _full_disk(monkeypatch)
    o, _ = neuron()
    with pytest.raises(GraphvizNotFoundError, match=r"could not be saved either \(\[Errno 28\]"):
        render(o, tmp_path / "g.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty-bin"]


@needs_dot
def test_an_unwritable_directory_is_named_not_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def no_new_files(path: Any, flags: int, mode: int = 0o777) -> int:
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", no_new_files)
    target = tmp_path / "g.png"
    with pytest.raises(PermissionError, match="cannot write") as info:
        render(Value(1.0), target)
    assert info.value.filename == str(target) and ".tmp" not in str(info.value)


def test_a_slow_dot_is_stopped_after_the_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    script = fake / "dot"
    # exec: the process render stops is the sleeping one itself
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c 'import time; time.sleep(60)'\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    o, params = neuron()
    target = tmp_path / "g.png"
    with pytest.raises(GraphvizTimeoutError) as info:
        render(o, target, params=params, timeout=0.2)
    msg = str(info.value)
    for phrase in ("within 0.2 s", "10 Values", "one sample", "max_nodes=", "format='svg'", "timeout=None"):
        assert phrase in msg
    assert isinstance(info.value, TimeoutError)
    assert not target.exists()
    assert str(tmp_path / "g.dot") in msg and "nslimit" in (tmp_path / "g.dot").read_text()


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, "5", True])
def test_bad_timeouts(bad: object, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds or None"):
        render(Value(1.0), tmp_path / "g.png", timeout=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "g.png").exists()


def horner(n: int) -> Value:
    """``v = v * x + c`` n times: a long chain sharing one operand, slow for Graphviz unbounded."""
    x = Value(0.5, label="x")
    v = x
    for i in range(n):
        v = v * x + 0.1 * i
    return v


@needs_dot
def test_a_chain_graph_lays_out_quickly_with_the_layout_limits(tmp_path: Path) -> None:
    # 181 Values: over 90 s for dot without the limits, well under a second with them
    out = render(horner(60), tmp_path / "horner.svg")
    assert "<svg" in out.read_text()


@needs_dot
def test_the_421_value_horner_graph_renders_or_is_refused_within_the_timeout(tmp_path: Path) -> None:
    root = horner(140)
    assert len(topological_order(root)) == 421
    with pytest.raises(GraphTooLargeError):
        render(root, tmp_path / "h.png")  # over the default max_nodes: refused at once
    start = time.monotonic()
    try:
        out = render(root, tmp_path / "h.png", max_nodes=None)  # 12 minutes for dot without the limits
    except GraphvizTimeoutError:
        assert not (tmp_path / "h.png").exists() and (tmp_path / "h.dot").exists()
    else:
        assert out.read_bytes().startswith(PNG_MAGIC)
    assert time.monotonic() - start < 10


def test_without_the_graphviz_package_draw_dot_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "graphviz", None)  # makes `import graphviz` fail
    with pytest.raises(ModuleNotFoundError, match="pip install graphviz"):
        draw_dot(Value(1.0))
    explain(Value(1.0) * 2, file=io.StringIO())  # explain needs no graphviz


def test_importing_micrograd_does_not_import_graphviz() -> None:
    code = "import sys, micrograd, micrograd.viz; assert 'graphviz' not in sys.modules, 'graphviz imported'"
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": root}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


# ---- explain ------------------------------------------------------------------


def explained(root: Value) -> str:
    buf = io.StringIO()
    explain(root, file=buf)
    return buf.getvalue()


def test_explain_walks_the_chain_rule_by_hand() -> None:
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    c.label = "c"
    L = c + a
    L.label = "L"
    text = explained(L)
    assert text == textwrap.dedent(
        """\
        Backpropagation from L = -4.0000 through 4 Values, in backward order.
        Each operand receives: local derivative * upstream gradient (contributions add up).

        L = c + a  data -4.0000  upstream dL/dL = 1.0000 (the seed)
            c  local dL/dc = 1.0000 * 1.0000 = 1.0000  dL/dc so far 1.0000
            a  local dL/da = 1.0000 * 1.0000 = 1.0000  dL/da so far 1.0000

        c = a * b  data -6.0000  upstream dL/dc = 1.0000
            a  local dc/da = -3.0000 * 1.0000 = -3.0000  dL/da so far -2.0000
            b  local dc/db = 2.0000 * 1.0000 = 2.0000  dL/db so far 2.0000

        Gradients of L with respect to the leaves:
            a  data 2.0000  dL/da = -2.0000
            b  data -3.0000  dL/db = 2.0000
        """
    )


def test_explain_leaves_grads_alone_and_agrees_with_backward() -> None:
    o, params = neuron()
    for p in params:
        p.grad = 7.0  # stale gradients must survive
    text = explained(o)
    assert [p.grad for p in params] == [7.0, 7.0, 7.0]
    leaves = [v for v in topological_order(o) if not v._prev]
    expected = grad(o, leaves)
    for v, g in zip(leaves, expected):
        d = f"do/d{v.label}" if len(v.label) == 1 else f"do/d({v.label})"
        assert f"    {v.label:<2}  data {v.data:.4f}  {d} = {g:.4f}\n" in text  # names padded to x1's width


def test_explain_names_unlabelled_values_as_draw_dot_numbers_them_and_writes_ops_readably() -> None:
    x = Value(3.0)
    y = (-(x**2)).relu() + (x / 2.0).exp()
    text = explained(y)
    # forward order: #0 x, #1 x**2, #2 neg, #3 relu, #4 2.0, #5 x/2, #6 exp, #7 y
    assert "#7 = #3 + #6  data" in text
    assert "#6 = exp(#5)" in text
    assert "#5 = #0 / 2" in text  # a lifted number is named by its value
    assert "#3 = ReLU(#2)" in text
    assert "#2 = -#1" in text
    assert "#1 = #0**2" in text
    assert "local d(#3)/d(#2) = 0.0000" in text  # relu is off at -9
    assert "d(#7)/d(#0) = 2.2408" in text  # only the exp path contributes: e**1.5 / 2
    recs = records(draw_dot(y).source)
    assert recs["n5"].startswith("{ #5 | data 1.5000")


def test_an_n_ary_sum_is_drawn_and_explained_operand_by_operand() -> None:
    import micrograd

    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    s = micrograd.sum([a, b, a])  # start 0.0, then a + b + a, as ONE node
    s.label = "s"
    src = draw_dot(s).source
    # the start of 0 (n0) adds nothing: it is not drawn, nor explained; the graph keeps it
    assert re.findall(r"^\t(\S+) -> (\S+)", src, flags=re.M) == [
        ("n1", "n3_op"),
        ("n2", "n3_op"),
        ("n1", "n3_op"),
        ("n3_op", "n3"),
    ]
    assert not re.search(r"^\tn0 ", src, flags=re.M) and len(s._prev) == 4
    text = explained(s)
    assert "s = a + b + a  data 7.0000" in text
    assert "through 3 Values" in text and "\n    0 " not in text
    assert "ds/da = 2.0000" in text and "ds/db = 1.0000" in text
    # a start that adds something is drawn, as an operand like the others
    t = micrograd.sum([a, b], start=1.5)
    t.label = "t"
    assert re.findall(r"^\t(\S+) -> (\S+)", draw_dot(t).source, flags=re.M)[0] == ("n0", "n3_op")
    assert "t = 1.5 + a + b  data 6.5000" in explained(t)


def test_explain_of_a_leaf_and_of_a_hand_built_node() -> None:
    assert explained(Value(2.0, label="x")) == (
        "Backpropagation from x = 2.0000 through 1 Values, in backward order.\n"
        "Each operand receives: local derivative * upstream gradient (contributions add up).\n"
    )
    a = Value(1.0, label="a")
    b = Value(2.0, (a,), "custom", label="b")
    text = explained(b)
    assert "b = custom(a)" in text and "gradients stop here" in text
    assert "db/da = 0.0000" in text


def test_explain_rejects_non_values() -> None:
    with pytest.raises(TypeError, match="explain\\(\\) needs a Value, got float"):
        explain(1.0)  # type: ignore[arg-type]


def test_explain_prints_to_stdout_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    explain(Value(2.0, label="a") * 3)
    assert "local d(a*3)/da = 3.0000" in capsys.readouterr().out


def test_without_params_a_models_weights_are_parameters_and_lifted_numbers_constants() -> None:
    """No ``params=``: an unlabelled leaf you made (a Module's weight) is drawn as a parameter, a
    number the engine lifted into a leaf (an input given as a float, the 2 of ``h * 2``) as a constant."""
    from nn import MLP

    model = MLP(2, [2, 1], seed=0)
    y = model([0.5, -1.0]) * 2
    order = topological_order(y)
    ids = {v: f"n{i}" for i, v in enumerate(order)}
    src = draw_dot(y).source
    weights = set(model.parameters())
    leaves = [v for v in order if not v._prev]
    assert weights <= set(leaves)
    for v in leaves:
        assert fill(src, ids[v]) == COLOURS["parameter" if v in weights else "constant"], v
