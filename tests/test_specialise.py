"""The engine's own ops rewritten for floats (micrograd/specialise.py, speed tricks 5 and 6) are the
same rules: checked against the source they came from, bit for bit, and the rewrite refuses
what it cannot rewrite."""

from __future__ import annotations

import dis
import importlib
import inspect
import math
import traceback
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Context, Function, Value, engine
from micrograd.specialise import backward_on_floats, forward_on_floats, inline_forward
from tests.user_ops import Swish

ENGINE_OPS = [
    fn
    for fn in vars(engine).values()
    if isinstance(fn, type) and issubclass(fn, Function) and fn._trusted and fn is not engine._HandWritten
]
PARAMETERS = {  # the ops that take a number besides their input: values to try it with
    "PowConst": [0.0, 1.0, 2.0, -1.0, 0.5, 3.0, -2.5],
    "LeakyReLU": [0.01, 0.2, -0.5],
    "ELU": [1.0, 0.5, 2.0],
    "Softplus": [(1.0, 20.0), (2.0, 5.0), (0.5, 1.0)],
}
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-310, -1e-310, 20.0, 1e300, -1e300, math.inf, -math.inf, math.nan]
numbers = st.one_of(st.floats(-50.0, 50.0, allow_nan=False), st.sampled_from(EDGES))


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return bool(a == b) and math.copysign(1.0, a) == math.copysign(1.0, b)


def _arity(fn: type[Function]) -> int | None:
    code = fn.forward.__code__
    return None if code.co_flags & inspect.CO_VARARGS else code.co_argcount - 1


def _inputs(fn: type[Function], xs: list[float]) -> list[tuple[Any, ...]]:
    """Inputs to try ``fn`` on: numbers for its Value inputs, then each of its parameters' values."""
    if fn.__name__ not in PARAMETERS:
        return [tuple(xs[: _arity(fn) or 3])]
    return [(xs[0], *p) if isinstance(p, tuple) else (xs[0], p) for p in PARAMETERS[fn.__name__]]


def _check(fn: type[Function], inputs: tuple[Any, ...], g: float) -> None:
    ctx = Context((True,) * len(inputs), inputs)
    out = fn.forward(ctx, *inputs)
    assert _same(fn._float_forward(ctx, *inputs), out), (fn.__name__, inputs)
    ctx.output = out
    expected = fn.backward(ctx, g)
    rule = fn._float_backward
    assert rule is not None, f"{fn.__name__}.backward was not rewritten"
    got = rule(g, out, *inputs)
    assert len(got) == len(expected)
    assert all(_same(a, b) for a, b in zip(got, expected)), (fn.__name__, inputs, g, got, expected)


def test_every_engine_op_is_rewritten() -> None:
    """All of the engine's own ops take the fast float path (a regression here is silent but slow)."""
    assert len(ENGINE_OPS) >= 22
    assert [fn.__name__ for fn in ENGINE_OPS if fn._float_backward is None] == []
    # where ReLU's forward branches, the rewrite made it a conditional expression
    assert engine.ReLU._float_forward is not engine.ReLU.forward
    assert "where" not in engine.ReLU._float_forward.__code__.co_names


@pytest.mark.parametrize("fn", ENGINE_OPS, ids=lambda fn: fn.__name__)
def test_rewritten_ops_equal_their_source_at_edge_values(fn: type[Function]) -> None:
    for x in EDGES:
        for y in EDGES:
            for g in (1.0, -0.0, -2.5, math.inf, math.nan):
                for inputs in _inputs(fn, [x, y, 0.25]):
                    _check(fn, inputs, g)


@pytest.mark.parametrize("fn", ENGINE_OPS, ids=lambda fn: fn.__name__)
@settings(max_examples=60, deadline=None)
@given(xs=st.lists(numbers, min_size=3, max_size=3), g=numbers)
def test_rewritten_ops_equal_their_source(fn: type[Function], xs: list[float], g: float) -> None:
    for inputs in _inputs(fn, xs):
        _check(fn, inputs, g)


def test_the_rewrite_keeps_the_source_lines() -> None:
    """A traceback from a rewritten rule points at the op's own source line."""
    rule = engine.Mul._float_backward
    assert rule is not None
    with pytest.raises(TypeError) as raised:
        rule(1.0, 2.0, "a", None)  # g * b with b None
    frame = traceback.extract_tb(raised.tb)[-1]
    assert frame.filename == engine.__file__
    assert "return g * b, g * a" in frame.line


def test_what_cannot_be_rewritten_is_left_to_the_context() -> None:
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x

    def reads_saved(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return (g * x,)

    def passes_ctx_on(ctx: Any, g: Any) -> Any:
        return helper(ctx, g)

    def helper(ctx: Any, g: Any) -> Any:
        return (g,)

    assert backward_on_floats(forward, reads_saved) is None
    assert backward_on_floats(forward, passes_ctx_on) is None
    assert backward_on_floats(forward, eval("lambda ctx, g: (g,)")) is None  # no source to read
    assert forward_on_floats(forward) is forward  # nothing to inline


def test_only_micrograd_math_where_is_inlined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``where`` that is not micrograd.math's is called as written; micrograd.math's is inlined."""
    (tmp_path / "own_where.py").write_text(
        "def where(c, a, b):\n    return 'mine'\n\n\ndef forward(ctx, x):\n    return where(x > 0, x, 0.0)\n"
    )
    (tmp_path / "math_where.py").write_text(
        "from micrograd.math import where\n\n\ndef forward(ctx, x):\n    return where(x > 0, x, 0.0)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    own, theirs = importlib.import_module("own_where"), importlib.import_module("math_where")
    assert forward_on_floats(own.forward) is own.forward
    inlined = forward_on_floats(theirs.forward)
    assert "where" not in inlined.__code__.co_names
    xs = (2.0, -2.0, -0.0)
    assert [inlined(None, x) for x in xs] == [theirs.forward(None, x) for x in xs]


def test_a_user_function_is_not_rewritten_and_still_runs() -> None:
    """User ops keep their own backward, called with a Context (what the rewrite never touches)."""
    assert Swish._float_backward is None and Swish._float_forward is Swish.forward
    x = Value(0.5)
    (Swish.apply(x) + micrograd.math.tanh(x)).backward()
    s = 1 / (1 + math.exp(-0.5))
    assert x.grad == pytest.approx(s + 0.5 * s * (1 - s) + (1 - math.tanh(0.5) ** 2), rel=1e-15)


# ---- forward inlined into the methods that build nodes (speed trick 6) -------------------------

BINARY_METHODS = [
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
]


def _method_code(name: str) -> Any:
    method = getattr(Value, name)
    # a reflected method calls the plain one, which is where the node is built
    inner = dict(zip(method.__code__.co_freevars, method.__closure__ or ())).get("method")
    return (inner.cell_contents if inner is not None else method).__code__


def test_dot_calls_no_forward() -> None:
    # (dot still assigns Mul's forward to a local, for when inlining cannot be done; it never reads it)
    reads = [
        i
        for i in dis.get_instructions(micrograd.dot)
        if i.opname.startswith("LOAD") and i.argval == "forward"
    ]
    assert reads == []


@pytest.mark.parametrize("name", [*BINARY_METHODS, "relu", "__neg__"])
def test_the_node_building_methods_call_no_forward(name: str) -> None:
    code = _method_code(name)
    assert "forward" not in code.co_freevars + code.co_names, f"Value.{name} still calls its op's forward"


@settings(max_examples=200, deadline=None)
@given(a=numbers, b=numbers)
def test_inlined_methods_equal_the_ops_forward(a: float, b: float) -> None:
    ops = {"__add__": engine.Add, "__sub__": engine.Sub, "__mul__": engine.Mul, "__truediv__": engine.Div}
    for name, fn in ops.items():
        assert _same(getattr(Value(a), name)(Value(b)).data, fn.forward(None, a, b)), (name, a, b)
        reflected = "__r" + name[2:]
        assert _same(getattr(Value(b), reflected)(a).data, fn.forward(None, a, b)), (reflected, a, b)
    assert _same(Value(a).relu().data, engine.ReLU.forward(None, a))
    assert _same((-Value(a)).data, engine.Neg.forward(None, a))
    ws, xs = [Value(a), Value(b), Value(a)], [b, a, -b]
    assert _same(micrograd.dot(ws, xs, b).data, micrograd.sum([w * x for w, x in zip(ws, xs)], b).data)


def test_what_cannot_be_inlined_is_called(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "inlining_cases.py").write_text(
        "from math import sqrt\n"
        "\n"
        "def two_statements(ctx, a):\n"
        "    b = a * 2\n"
        "    return b\n"
        "\n"
        "def reads_sqrt(ctx, a):\n"
        "    return sqrt(a)\n"
        "\n"
        "def scale(ctx, a):\n"
        "    return a * 3\n"
        "\n"
        "def calls(x):\n"
        "    return forward(None, x)\n"
        "\n"
        "def computed_argument(x):\n"
        "    return forward(None, x + 1)\n"
        "\n"
        "def clash(x, sqrt):\n"
        "    return forward(None, x) + sqrt\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cases = importlib.import_module("inlining_cases")
    assert inline_forward(cases.calls, cases.two_statements) is cases.calls
    assert (
        inline_forward(cases.computed_argument, cases.scale) is cases.computed_argument
    )  # (inlined, x + 1 could be computed twice)
    assert inline_forward(cases.clash, cases.reads_sqrt) is cases.clash  # sqrt means another thing there
    assert inline_forward(cases.calls, engine.Mul.forward) is cases.calls  # another module's names
    inlined = inline_forward(cases.calls, cases.scale)
    assert inlined is not cases.calls and "forward" not in inlined.__code__.co_names
    assert inlined(2.0) == 6.0
