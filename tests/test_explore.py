"""micrograd.explore without a browser: the embedded numbers are explain's, the page is offline
and self-contained, errors are clear. (tests/test_pages_browser.py drives the pages in Chromium.)"""

from __future__ import annotations

import html
import importlib
import io
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

import micrograd
from micrograd import (
    GraphTooLargeError,
    GraphvizNotFoundError,
    Value,
    explain,
    explore,
    render,
    topological_order,
)
from micrograd.viz import GraphvizTimeoutError, backward_steps
from micrograd.viz.explorer import RULES_IN_WORDS, Explorer
from nn import MLP
from tests.explore_graphs import GRAPHS, every_op, explain_steps, operand_line, readme

explore_module = importlib.import_module("micrograd.viz.explorer")  # micrograd.explore is the function
page_module = importlib.import_module("micrograd.viz.page")

pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")
from tests.graphviz_support import needs_dot  # noqa: E402

pytestmark = needs_dot


def page_data(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="mg-data">(.*?)</script>', page, flags=re.S)
    assert m, "no embedded data"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def graphs() -> list[tuple[str, Value]]:
    built = [(name, make()) for name, make in GRAPHS.items()]
    return [(name, g) for name, g in built if g is not None]


@pytest.mark.parametrize(("name", "root"), graphs())
def test_the_embedded_numbers_are_explains(name: str, root: Value) -> None:
    data = page_data(explore(root).html)
    out = io.StringIO()
    explain(root, file=out)
    steps = explain_steps(out.getvalue())
    assert len(steps) == len(data["steps"])
    nodes = data["nodes"]
    for (head, operand_lines), step in zip(steps, data["steps"]):
        node = nodes[step["node"]]
        seed = " (the seed)" if step["node"] == data["root"] else ""
        assert head == (
            f"{node['name']} = {node['expr']}  data {node['data'][0]}  "
            f"upstream {node['dname']} = {step['upstream'][0]}{seed}"
        )
        if not step["has_rule"]:
            assert operand_lines == ["(built by hand, without a derivative rule: gradients stop here)"]
            continue
        names = [nodes[c["operand"]]["name"] for c in step["contributions"]]
        shown = [
            operand_line(
                names,
                i,
                c["dlocal"],
                c["local"][0],
                step["upstream"][0],
                c["contribution"][0],
                nodes[c["operand"]]["dname"],
                c["total"][0],
            )
            for i, c in enumerate(step["contributions"])
        ]
        assert shown == operand_lines


@pytest.mark.parametrize(("name", "root"), graphs())
def test_full_precision_numbers_are_backward_steps_and_backward(name: str, root: Value) -> None:
    trace = backward_steps(root)
    data = page_data(explore(root).html)
    for v, node in zip(trace.order, data["nodes"]):
        assert node["data"][1] == repr(v.data)
        assert node["grad"][1] == repr(trace.grads[v])
    for step, shown in zip(trace.steps, data["steps"]):
        assert shown["upstream"][1] == repr(step.upstream)
        for c, s in zip(step.contributions, shown["contributions"]):
            assert [s["local"][1], s["contribution"][1], s["total"][1]] == [
                repr(c.local),
                repr(c.contribution),
                repr(c.total),
            ]
    if name != "by_hand":  # backward() agrees (by hand, gradients stop at the rule-less node)
        for v in trace.order:
            v.grad = 0.0
        root.backward()
        for v, node in zip(trace.order, data["nodes"]):
            assert node["grad"][1] == repr(v.grad)


def test_grads_are_left_alone_and_the_graph_keeps_draw_dots_node_names() -> None:
    L = readme()
    order = topological_order(L)
    for i, v in enumerate(order):
        v.grad = float(i)
    page = explore(L).html
    assert [v.grad for v in order] == [float(i) for i in range(len(order))]
    for i in range(len(order)):
        assert f"<title>n{i}</title>" in page
    assert page.count('class="node"') == len(order) + 3  # and one op node per op


def test_the_page_is_self_contained_and_offline() -> None:
    page = explore(every_op()).html
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"<(link|iframe|img|object|embed)\b", page)
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"\b(src|href)\s*=", page)
    assert "@import" not in page and "url(" not in page
    # The only addresses are XML namespace names inside the SVG, which are never fetched (also in
    # break-it's example pages, JSON strings in the page: there a quote is \", so a URL ends at \).
    assert set(re.findall(r"https?://[^\s\"'<>\\]+", page)) <= {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xlink",
    }


def test_labels_are_escaped() -> None:
    a = Value(1.0, label="</script><script>alert(1)</script>")
    b = Value(2.0, label='"quoted" & <b>bold</b>')
    page = explore(a * b).html
    assert "<script>alert(1)" not in page
    assert "<b>bold</b>" not in page
    names = [n["name"] for n in page_data(page)["nodes"]]
    assert names[:2] == ["</script><script>alert(1)</script>", '"quoted" & <b>bold</b>']


def test_every_built_in_op_has_its_rule_in_words_and_others_say_where_theirs_comes_from() -> None:
    data = page_data(explore(every_op()).html)
    rules = {n["op"]: n["rule"] for n in data["nodes"] if n["operands"]}
    assert set(rules) == {*RULES_IN_WORDS, "**3"}
    for op, words in rules.items():
        assert words == RULES_IN_WORDS.get(op, page_module._POWER_BY_NUMBER)
    assert "d(a*b)/da = b" in rules["*"]
    hand = page_data(explore(GRAPHS["by_hand"]() or Value(0.0)).html)
    (rule,) = [n["rule"] for n in hand["nodes"] if n["op"] == "twice_a_plus_b"]
    assert "without a derivative rule" in rule


def test_a_user_function_is_shown_with_its_own_backward() -> None:
    root = GRAPHS["user_function"]()
    if root is None:
        pytest.skip("micrograd.Function (issue 9) is not in this engine yet")
    data = page_data(explore(root).html)
    user = [n for n in data["nodes"] if n["operands"] and n["op"] not in RULES_IN_WORDS]
    assert user and all("its own backward" in n["rule"] for n in user)


def test_path_writes_one_file_and_returns_it(tmp_path: Path) -> None:
    target = tmp_path / "backprop.html"
    assert explore(readme(), target) == target
    assert target.read_text(encoding="utf-8") == explore(readme()).html
    assert explore(readme(), str(tmp_path / "b.htm")) == tmp_path / "b.htm"


def test_jupyter_repr_is_an_iframe_with_the_whole_page() -> None:
    explorer = explore(readme())
    assert isinstance(explorer, Explorer)
    frame = explorer._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame)
    assert srcdoc and html.unescape(srcdoc.group(1)) == explorer.html
    assert "Explorer of" in repr(explorer)


def test_graphviz_lays_out_300_values_the_builtin_layout_more_and_max_nodes_refuses_with_advice() -> None:
    model = MLP(3, [8, 8, 1], seed=0)
    y = model([Value(0.5, label="x0"), Value(-1.0, label="x1"), Value(2.0, label="x2")])
    assert isinstance(y, Value)
    while len(topological_order(y)) < 300:
        y = y.tanh()
    page = explore(y, params=model.parameters()).html
    size = len(page.encode("utf-8"))
    fixed = len(explore(Value(1.0) * 2).html.encode("utf-8"))  # the page's scripts and styles
    per_value = (size - fixed) / len(topological_order(y))
    assert 1_700 < per_value < 2_300, (size, fixed, per_value)  # about 2 kB per Value
    assert "Generated by graphviz" in page or 'id="graph0"' in page
    assert {n["role"] for n in page_data(page)["nodes"]} >= {"parameter", "named leaf", "output"}
    with pytest.raises(GraphTooLargeError, match=r"301 Values, more than max_nodes=300.*single sample"):
        explore(y.tanh(), max_nodes=300)
    bigger = explore(y.tanh()).html  # past 300 Values, the built-in layout
    assert len(page_data(bigger)["nodes"]) == 301 and "<title>n300</title>" in bigger


def test_a_batchs_loss_of_thousands_of_values_is_explored_with_the_builtin_layout() -> None:
    """The loss of 8 moons samples through MLP(2, [16, 16, 1]): 3,594 Values, every one drawn and
    stepped through (its time and size are the benchmark's, ``python -m benchmarks.run --only explore``)."""
    model = MLP(2, [16, 16, 1], seed=1)
    points = [[0.1 * k, 1.0 - 0.2 * k] for k in range(8)]
    loss = micrograd.sum((1 + -1.0 * model(x)).relu() for x in points) * (1 / 8)
    n = len(topological_order(loss))
    assert n > 3_000
    page = explore(loss).html
    data = page_data(page)
    ops = sum(1 for v in topological_order(loss) if v._prev)
    assert len(data["nodes"]) == n and len(data["steps"]) == ops
    # every Value drawn but the loss's sum's start of 0 (a neuron's start is its bias: drawn)
    hidden = {i for i, nd in enumerate(data["nodes"]) if nd["hidden"]}
    assert len(hidden) == 1 and all(data["nodes"][i]["data"][0] == "0.0000" for i in hidden)
    assert all((f"<title>n{i}</title>" in page) == (i not in hidden) for i in range(n))


def test_layout_time_is_bounded_and_the_message_names_the_builtin_layout() -> None:
    with pytest.raises(
        GraphvizTimeoutError, match=r"did not lay out the graph of 7 Values within layout_timeout"
    ):
        explore(readme(), layout="graphviz", layout_timeout=1e-6)
    with pytest.raises(TimeoutError, match='pass layout="builtin"'):
        explore(readme(), layout="graphviz", layout_timeout=1e-6)


def test_auto_falls_back_to_the_builtin_layout_and_says_so() -> None:
    with pytest.warns(
        UserWarning, match=r'within 1e-06 s, so the built-in layout drew it \(layout="builtin"\)'
    ):
        page = explore(readme(), layout_timeout=1e-6).html
    assert 'class="mg-note"' in page and "the built-in layout drew it" in page
    plain = explore(readme(), layout="builtin").html
    assert page.replace(page_note(page), "") == plain  # the builtin page, with the note


def horner(uses: int = 99) -> Value:
    """The issue's graph: ``v = v * x + 0.5`` with ``x`` used ``uses`` times (298 Values at 99), on
    which ``dot`` ran for over 40 minutes."""
    x = Value(0.9, label="x")
    v = x
    for _ in range(uses):
        v = v * x + 0.5
    return v


@needs_dot
def test_auto_never_waits_long_on_graphviz() -> None:
    root = horner()
    assert len(topological_order(root)) == 298
    start = time.monotonic()
    with pytest.warns(UserWarning, match=r"298 Values within 2 s, so the built-in layout drew it"):
        page = explore(root).html
    assert time.monotonic() - start < 10  # 2 s of Graphviz, then the built-in layout's moment
    assert "<title>n297</title>" in page and "the built-in layout drew it" in page


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to see which processes run")
@pytest.mark.parametrize("how", ["explore graphviz", "explore auto", "render"])
def test_a_stopped_dot_leaves_no_process_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    fake = tmp_path / "bin" / "dot"  # a dot that never finishes, and starts a child that would outlive it
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {tmp_path}/child\necho $$ > {tmp_path}/dot\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    start = time.monotonic()
    if how == "explore graphviz":
        with pytest.raises(GraphvizTimeoutError, match='layout="builtin"'):
            explore(readme(), layout="graphviz", layout_timeout=0.5)
    elif how == "explore auto":
        with pytest.warns(UserWarning, match='layout="builtin"'):
            explore(readme(), layout_timeout=0.5)
    else:
        with pytest.raises(GraphvizTimeoutError, match='layout="builtin"'):
            render(readme(), tmp_path / "g.svg", timeout=0.5)
    assert time.monotonic() - start < 5
    pids = [int((tmp_path / name).read_text()) for name in ("dot", "child")]
    deadline = time.monotonic() + 3
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)  # (the orphaned child is reaped by init, a moment later)
    assert not any(_alive(pid) for pid in pids)


def page_note(page: str) -> str:
    found = re.search(r'\n  <p class="mg-note".*?</p>', page)
    assert found
    return found.group(0)


def test_without_graphviz_the_builtin_layout_steps_in_and_asking_for_graphviz_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(explore_module.shutil, "which", lambda name: None)
    assert "<title>n6</title>" in explore(readme()).html
    with pytest.raises(GraphvizNotFoundError, match="apt-get install graphviz"):
        explore(readme(), layout="graphviz")
    with pytest.raises(ValueError, match="layout must be one of 'auto', 'graphviz', 'builtin', got 'neato'"):
        explore(readme(), layout="neato")


def test_a_failing_dot_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\necho 'syntax error in line 1' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"exit status 3\): syntax error in line 1"):
        explore(readme())


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((3.0,), {}, TypeError, "explore\\(\\) needs a Value, got float"),
        ((Value(1.0),), {"max_nodes": 0}, ValueError, "max_nodes must be a positive int or None"),
        ((Value(1.0),), {"max_nodes": True}, ValueError, "max_nodes must be a positive int or None"),
        ((Value(1.0),), {"layout_timeout": 0}, ValueError, "layout_timeout must be a positive number"),
        ((Value(1.0),), {"params": [1.0]}, TypeError, "params\\[0\\] must be a Value, got float"),
        ((Value(1.0), "graph.png"), {}, ValueError, "end the path with .html"),
        ((Value(1.0), 42), {}, TypeError, "path must be a str or a path"),
        ((Value(1.0), "/no/such/dir/x.html"), {}, FileNotFoundError, "does not exist"),
    ],
)
def test_bad_input_is_a_clear_error(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        explore(*args, **kwargs)


def test_a_single_value_has_no_backward_steps() -> None:
    data = page_data(explore(Value(3.0, label="x")).html)
    assert data["steps"] == [] and data["nodes"][0]["grad"][0] == "1.0000"


def test_exported_from_micrograd() -> None:
    assert micrograd.explore is explore
