"""The lean core: the code a reader reads is the code that runs.

A rule patched on a built-in op after import takes effect on every path; the lecture's
hand-written ``_backward`` closures behave exactly as in micrograd 0.1.0 (its bug
included); ``loss.backward()`` runs through few project functions; no module of
``micrograd`` or ``nn`` imports another's private names or builds code at run time.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import pytest

import micrograd
from micrograd import Value, func
from micrograd import math as mm
from micrograd._core.nodes import hooks_of
from micrograd.engine import Add, Mul, Tanh, binary_method, pair_ops, takes_two
from micrograd.ops import Sum
from tests.micrograd_reference import ensure_installed

ROOT = Path(micrograd.__file__).resolve().parent.parent


# ---- a patched rule takes effect everywhere ----------------------------------------------------


def _sine_forward(ctx: Any, x: Any) -> Any:
    return mm.sin(x)


def _sine_backward(ctx: Any, g: Any) -> tuple[Any]:
    (x,) = ctx.inputs
    return (g * mm.cos(x),)


@pytest.fixture
def tanh_is_sine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``Tanh``'s rules replaced after import, as a learner would in a notebook: x.tanh() is sin(x)."""
    monkeypatch.setattr(Tanh, "forward", staticmethod(_sine_forward))
    monkeypatch.setattr(Tanh, "backward", staticmethod(_sine_backward))
    assert not Tanh.builtin  # patched: its gradients are checked as a user's op's
    yield


def test_a_patched_rule_reaches_backward_grad_and_create_graph(tanh_is_sine: None) -> None:
    x = Value(0.7)
    y = x.tanh()
    assert y.data == math.sin(0.7)
    y.backward()
    assert x.grad == math.cos(0.7)
    assert micrograd.grad(x.tanh(), [x]) == (math.cos(0.7),)
    (g,) = micrograd.grad(x.tanh(), [x], create_graph=True)  # cos(x), as a Value
    assert isinstance(g, Value) and g.data == math.cos(0.7)
    assert micrograd.grad(g, [x]) == (-math.sin(0.7),)


def test_a_patched_rule_reaches_forward_mode_explain_and_pictures(tanh_is_sine: None) -> None:
    primal, tangent = func.jvp(lambda a: a.tanh(), (0.7,), (1.0,))
    assert (primal, tangent) == (math.sin(0.7), math.cos(0.7))
    x = Value(0.7, label="x")
    loss = x.tanh()
    loss.label = "L"
    out = io.StringIO()
    micrograd.explain(loss, file=out)
    assert f"local dL/dx = {math.cos(0.7):.4g}" in out.getvalue()
    from micrograd.viz import backward_steps

    (step,) = backward_steps(loss).steps
    assert step.contributions[0].local == math.cos(0.7)


def test_a_patched_rule_reaches_compile(tanh_is_sine: None) -> None:
    np = pytest.importorskip("numpy")
    w = Value(0.5)
    step = micrograd.compile(lambda x: (x[0] * w).tanh(), (np.array([2.0]),), params=[w])
    loss, grads = step(np.array([2.0]))
    assert float(loss) == math.sin(1.0)
    assert grads.tolist() == [2.0 * math.cos(1.0)]


def test_putting_the_rule_back_restores_the_built_in_op() -> None:
    original = Mul.backward
    Mul.backward = staticmethod(lambda ctx, g: (g, g))  # type: ignore[method-assign, assignment]
    try:
        assert not Mul.builtin and Mul not in pair_ops  # the loop's dict, which it asks per node
        x = Value(3.0)
        (x * x).backward()
        assert x.grad == 2.0  # the patched rule ran: 1 to each operand
    finally:
        Mul.backward = staticmethod(original)  # type: ignore[method-assign]
    assert Mul.builtin and Mul in pair_ops
    x = Value(3.0)
    (x * x).backward()
    assert x.grad == 6.0


def test_a_patched_forward_reaches_the_operator_and_the_ops_that_inherit_it() -> None:
    class Doubled(Mul):  # an op of the user's that inherits Mul's forward, made into a method
        pass

    Value.doubled = binary_method(Doubled)  # type: ignore[attr-defined]
    original = Mul.forward
    try:
        Mul.forward = staticmethod(lambda ctx, a, b: a * b + 1.0)  # type: ignore[method-assign, assignment]
        assert (Value(2.0) * 3.0).data == 7.0 and (3.0 * Value(2.0)).data == 7.0
        assert Value(2.0).doubled(Value(3.0)).data == 7.0  # type: ignore[attr-defined]
        assert Mul not in pair_ops  # patched: the loop leaves its rules to the checked path
    finally:
        Mul.forward = staticmethod(original)  # type: ignore[method-assign]
        del Value.doubled  # type: ignore[attr-defined]
    assert (Value(2.0) * 3.0).data == 6.0 and Mul in pair_ops


def test_an_op_that_inherits_a_patched_rule_runs_it_and_then_the_rule_put_back() -> None:
    class Twice(Mul):  # a built-in op of two operands that inherits Mul's rules
        builtin = True

    original = Mul.backward
    x = Value(3.0)
    Mul.backward = staticmethod(lambda ctx, g: (g, g))  # type: ignore[method-assign, assignment]
    try:
        Twice.apply(x, x).backward()
        assert x.grad == 2.0 and pair_ops[Twice] is Mul.backward  # the patched rule ran: 1 to each
    finally:
        Mul.backward = staticmethod(original)  # type: ignore[method-assign]
    x.grad = 0.0
    Twice.apply(x, x).backward()
    assert x.grad == 6.0 and pair_ops[Twice] is original


def test_the_loop_runs_only_the_built_in_ops_of_exactly_two_operands() -> None:
    assert {Add, Mul} <= pair_ops.keys() and Tanh not in pair_ops and Sum not in pair_ops  # one, many
    assert not takes_two(lambda ctx, x, slope=0.1: x) and takes_two(lambda ctx, a, b: a)


def test_a_patched_rule_that_returns_too_few_gradients_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Tanh, "backward", staticmethod(lambda ctx, g: ()))
    with pytest.raises(TypeError, match=r"tanh.backward returned 0 gradient\(s\), but forward took 1"):
        Value(0.5).tanh().backward()


# ---- lecture closures, side by side with micrograd 0.1.0 ---------------------------------------


def _micrograd_0_1_0() -> ModuleType:
    """micrograd 0.1.0's own engine.py (fetched at test set-up), loaded as a module of its own."""
    ensure_installed()
    from benchmarks import install_reference

    path = install_reference.upstream_file("engine")
    spec = importlib.util.spec_from_file_location("micrograd_0_1_0_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lecture_ops(cls: type, accumulate: bool) -> dict[str, Callable[..., Any]]:
    """The lecture's add, mul and tanh, built by hand with ``_backward`` closures on ``cls``:
    with ``+=`` (right), or with ``=`` (the lecture's famous bug) when not ``accumulate``."""

    def put(node: Any, amount: float) -> None:
        node.grad = node.grad + amount if accumulate else amount

    def add(a: Any, b: Any) -> Any:
        out = cls(a.data + b.data, (a, b), "+")

        def _backward() -> None:
            put(a, 1.0 * out.grad)
            put(b, 1.0 * out.grad)

        out._backward = _backward
        return out

    def mul(a: Any, b: Any) -> Any:
        out = cls(a.data * b.data, (a, b), "*")

        def _backward() -> None:
            put(a, b.data * out.grad)
            put(b, a.data * out.grad)

        out._backward = _backward
        return out

    def tanh(a: Any) -> Any:
        t = (math.exp(2 * a.data) - 1) / (math.exp(2 * a.data) + 1)
        out = cls(t, (a,), "tanh")

        def _backward() -> None:
            put(a, (1 - t**2) * out.grad)

        out._backward = _backward
        return out

    return {"add": add, "mul": mul, "tanh": tanh}


Ops = dict[str, Callable[..., Any]]


def _neuron(op: Ops, value: type) -> tuple[Any, list[Any]]:  # the lecture's neuron
    x1, x2, w1, w2, b = value(2.0), value(0.0), value(-3.0), value(1.0), value(6.8813735870195432)
    return op["tanh"](op["add"](op["add"](op["mul"](x1, w1), op["mul"](x2, w2)), b)), [x1, x2, w1, w2, b]


def _twice_by_add(op: Ops, value: type) -> tuple[Any, list[Any]]:  # b = a + a: the bug's demonstration
    a = value(3.0)
    return op["add"](a, a), [a]


def _twice_by_mul(op: Ops, value: type) -> tuple[Any, list[Any]]:
    a = value(-1.5)
    return op["mul"](a, a), [a]


def _used_by_an_op_and_its_operand(op: Ops, value: type) -> tuple[Any, list[Any]]:
    a, b = value(-2.0), value(3.0)
    return op["mul"](op["add"](a, b), a), [a, b]


# Graphs whose micrograd 0.1.0 answer does not depend on the order of its sets.
LECTURE_GRAPHS = {
    f.__name__.strip("_"): f for f in (_neuron, _twice_by_add, _twice_by_mul, _used_by_an_op_and_its_operand)
}


@pytest.mark.parametrize("accumulate", [True, False], ids=["+=", "= (the lecture's bug)"])
@pytest.mark.parametrize("graph", sorted(LECTURE_GRAPHS))
def test_lecture_closures_give_micrograd_0_1_0s_gradients(graph: str, accumulate: bool) -> None:
    theirs = _micrograd_0_1_0().Value
    results = []
    for cls in (theirs, Value):
        root, leaves = LECTURE_GRAPHS[graph](_lecture_ops(cls, accumulate), cls)
        root.backward()
        results.append([leaf.grad for leaf in leaves])
    assert results[1] == results[0]  # bit for bit, the wrong answers included


def test_the_lectures_bug_shows_as_in_the_video() -> None:
    a = Value(3.0)
    b = _lecture_ops(Value, accumulate=False)["add"](a, a)
    b.backward()
    assert a.grad == 1.0  # the video's "wrong" answer; with += it is 2
    a = Value(3.0)
    _lecture_ops(Value, accumulate=True)["add"](a, a).backward()
    assert a.grad == 2.0


def test_lecture_closures_mix_with_the_engines_ops() -> None:
    x = Value(0.5)
    y = _lecture_ops(Value, accumulate=True)["tanh"](x * 2.0) * x
    y.backward()
    t = math.tanh(1.0)
    assert x.grad == pytest.approx(t + 0.5 * (1 - t * t) * 2.0, rel=1e-15)


# ---- what loss.backward() runs -----------------------------------------------------------------


def _project_functions_called(action: Callable[[], None]) -> set[str]:
    """The functions of micrograd/ and nn/ that ``action`` enters (file:function), besides the
    op rules (``Mul.backward``, ...) and what they call (``micrograd.math.where``, ...)."""
    called: set[str] = set()
    dirs = tuple(str(ROOT / pkg) for pkg in ("micrograd", "nn"))
    in_rule: list[FrameType] = []  # the rule being run, if any

    def is_rule(code: Any) -> bool:
        return code.co_name in ("forward", "backward") and code.co_varnames[:1] == ("ctx",)

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return" and in_rule and frame is in_rule[-1]:
            in_rule.pop()
        if event != "call" or in_rule:
            return
        code = frame.f_code
        if is_rule(code):
            in_rule.append(frame)  # the code the story is about
        elif code.co_filename.startswith(dirs) and not code.co_name.startswith("<"):
            called.add(f"{Path(code.co_filename).name}:{code.co_name}")  # (<listcomp>: not before 3.12)

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return called


def test_loss_backward_runs_at_most_nine_project_functions_in_two_files() -> None:
    from micrograd.nn import MLP

    model = MLP(2, [4, 4, 1])
    xs = [[Value(0.5), Value(-1.0)], [Value(2.0), Value(0.25)]]
    loss = micrograd.sum([(1 + -model(x)).relu() for x in xs]) * 0.5 + 1e-4 * micrograd.sum(
        [p * p for p in model.parameters()]
    )
    called = _project_functions_called(loss.backward)
    # backward, backpropagate and its named steps: watched_pass, collector_paused, topological_order and
    # visit, accumulate_grads (the .grad bookkeeping), watched_step (a leaf's nothing), add_received
    assert len(called) <= 9, called
    assert len({name.split(":")[0] for name in called}) <= 2, called


# ---- no code built at run time, no private names across modules ---------------------------------


def _modules() -> list[Path]:
    return sorted([*(ROOT / "micrograd").rglob("*.py"), *(ROOT / "nn").rglob("*.py")])


def test_no_module_builds_code_at_run_time() -> None:
    for path in _modules():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("exec", "eval", "compile"), (
                    f"{path}:{node.lineno} calls {node.func.id}"
                )
            if isinstance(node, ast.Import):
                assert "ast" not in [a.name for a in node.names], f"{path}:{node.lineno} imports ast"


def test_no_private_name_is_imported_across_modules() -> None:
    offenders = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            ours = node.level > 0 or (node.module or "").split(".")[0] in ("micrograd", "nn")
            if not ours:
                continue
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno} {a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__")
            ]
    assert offenders == []


# ---- one graph walk --------------------------------------------------------------------------------


def test_explain_the_pictures_and_the_explorer_run_the_engines_own_loop(tmp_path: Path) -> None:
    x = Value(0.5, label="x")
    loss = (x * x).tanh() + x
    walks = {
        "explain": lambda: micrograd.explain(loss, file=io.StringIO()),
        "explore": lambda: micrograd.explore(loss, tmp_path / "page.html"),
    }
    for what, run in walks.items():
        called = _project_functions_called(run)
        assert {"engine.py:backpropagate", "engine.py:topological_order"} <= called, what
    called = _project_functions_called(lambda: func.jvp(lambda a: (a * a).tanh(), (0.5,), (1.0,)))
    assert {"engine.py:topological_order", "engine.py:vjp"} <= called


def test_an_observer_hears_every_step_and_the_totals_match_backward() -> None:
    from micrograd.viz import backward_steps

    a, b = Value(2.0), Value(-3.0)
    loss = (a * b + a).relu() * a
    trace = backward_steps(loss)
    loss.backward()
    assert [trace.grads[v] for v in (a, b)] == [a.grad, b.grad]
    assert [s.node for s in trace.steps] == [v for v in reversed(trace.order) if v._prev]


def test_a_nodes_op_name_is_derived_from_its_op_unless_given_one() -> None:
    import copy

    x = Value(2.0)
    assert "_op" not in Value.__slots__ and x._op == "" and (x * x)._op == "*" and (x * x).op == "*"
    assert (x**2)._op == "**2" and copy.copy(x**2)._op == "**2"
    assert (x * 2.0)._prev[1]._op == "(constant)" and Value(1.0, (x,), "mine")._op == "mine"
    with micrograd.no_grad():
        assert (x * 3.0)._op == "(no_grad)"
    hand = Value(4.0, (x, x), "*")
    hand._op = "times"  # renamed by hand: kept beside the node
    assert hand._op == "times" and (x * x)._op == "*"


def test_a_label_or_hook_on_one_constant_leaves_the_other_constants_alone() -> None:
    x = Value(2.0)
    two, three = (x * 2.0)._prev[1], (x * 3.0)._prev[1]
    two.label = "two"
    heard: list[float] = []
    handle = three.register_hook(heard.append)
    try:
        (x * two * three).backward()
    finally:
        handle.remove()
    assert (two.label, three.label, (x + 4.0)._prev[1].label) == ("two", "", "")
    assert two._op == three._op == (x + 4.0)._prev[1]._op == "(constant)"
    assert heard == [4.0] and hooks_of((x + 5.0)._prev[1]) == []


@pytest.mark.parametrize("rule", ["forward", "backward"])
def test_a_deleted_rule_is_the_inherited_one_until_put_back(rule: str) -> None:
    own = Mul.__dict__[rule]
    delattr(Mul, rule)
    try:
        assert not Mul.builtin and Mul not in pair_ops  # (the loop no longer runs it unchecked)
        x = Value(3.0)
        with pytest.raises(NotImplementedError, match=f"must define {rule}"):
            (x * x).backward()
    finally:
        setattr(Mul, rule, own)
    assert Mul.builtin and pair_ops[Mul] is Mul.backward
    x = Value(3.0)
    (x * x).backward()
    assert x.grad == 6.0


# ---- a node's operands: two slots, read as _prev -------------------------------------------------


def test_prev_is_the_operands_in_order_however_many_and_however_set() -> None:
    a, b, c = Value(1.0), Value(2.0), Value(3.0)
    assert Value(0.0)._prev == () and (a.relu())._prev == (a,) and (a * b)._prev == (a, b)
    assert (a * a)._prev == (a, a) and (a + 2.0)._prev[0] is a and (2.0 - a)._prev[1] is a
    assert micrograd.sum([b, c], start=a)._prev == (a, b, c)  # (from its start: 0.0 by default)
    assert [v._prev for v in micrograd.dot([a, b], [c, c], start=1.0)._prev[1:]] == [(a, c), (b, c)]
    for operands in [(), (a,), (a, b), (a, b, c), [b, a], {c}]:  # the lecture's way: any iterable
        node = Value(0.5, operands, "mine")
        assert node._prev == tuple(operands) and type(node._prev) is tuple
        node._prev = [c, *operands]  # (set again, by hand)
        assert node._prev == (c, *operands)
    # a Value false as a number (0.0) is an operand like any other, and a node made from it is no leaf
    zero = Value(0.0)
    inner = zero * zero
    assert inner._prev == (zero, zero) and micrograd.topological_order([inner + 1.0])[:2] == [zero, inner]


def test_a_node_of_two_operands_is_one_object_for_the_collector() -> None:
    """The operands are slots, not a tuple beside the node: a ``*`` of two Values adds one object
    that Python's cyclic collector tracks (the node; its number is a float, untracked)."""
    import gc

    a, b = Value(1.5), Value(2.5)
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects(generation=0))
        nodes = [a * b for _ in range(1000)]
        made = len(gc.get_objects(generation=0)) - before
    finally:
        gc.enable()
    assert len(nodes) == 1000 and 1000 <= made < 1010, made  # (the list: one more)
