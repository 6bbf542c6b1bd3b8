"""micrograd.exercises.check: right ops pass, wrong ones are named precisely, a wrong answer never raises."""

from __future__ import annotations

import math
import re
import sys
import traceback
from functools import cache
from typing import Any

import pytest

import micrograd
from micrograd import Function, Value, exercises
from micrograd import math as mm


class GoodTanh(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return mm.tanh(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        return grad_output * (1 - ctx.output**2)


class TanhTimesOutput(Function):  # the usual mistake: grad_output * tanh(x)
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return mm.tanh(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        return grad_output * ctx.output


class TanhWithoutGradOutput(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return mm.tanh(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        return 1 - ctx.output**2


class FloatTanh(Function):  # right first derivative, computed with Python's math: not differentiable
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return math.tanh(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        (x,) = ctx.inputs
        return grad_output * (1 - math.tanh(x) ** 2)


class NotYet(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        raise NotImplementedError("write forward")

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        raise NotImplementedError("write backward")


class Typo(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return mm.exp(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        return grad_output * ctx.outptu  # the student's typo


class OverflowingSigmoid(Function):  # Python's math.exp raises OverflowError at x = -1000
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return 1 / (1 + math.exp(-x))

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        s = ctx.output
        return grad_output * s * (1 - s)


class SwappedMul(Function):
    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        a, b = ctx.inputs
        return grad_output * a, grad_output * b


class Mul(Function):
    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Any:
        return a * b

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        a, b = ctx.inputs
        return grad_output * b, grad_output * a


class LeakyReLU(Function):
    @staticmethod
    def forward(ctx: Any, x: Any, slope: float) -> Any:
        return mm.where(x > 0.0, x, x * slope)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        x, slope = ctx.inputs
        return mm.where(x > 0.0, grad_output, grad_output * slope), None


class LeakyReLUFixedSlope(Function):  # ignores its slope: right only for 0.01
    @staticmethod
    def forward(ctx: Any, x: Any, slope: float) -> Any:
        return mm.where(x > 0.0, x, x * 0.01)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        x, _slope = ctx.inputs
        return mm.where(x > 0.0, grad_output, grad_output * 0.01), None


def statuses(result: exercises.CheckResult) -> dict[str, str]:
    return {line.check: line.status for line in result.lines}


def line(result: exercises.CheckResult, check: str) -> exercises.CheckLine:
    (found,) = [x for x in result.lines if x.check == check]
    return found


def test_a_right_op_passes_every_check_and_prints_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    result = exercises.check(GoodTanh, like="tanh")
    assert result and result.passed
    assert statuses(result) == {"forward": "OK", "backward": "OK", "chain rule": "OK", "second order": "OK"}
    printed = capsys.readouterr().out.splitlines()
    assert [p.split()[0] for p in printed] == ["OK"] * 4 + ["verdict:"]
    assert "±1000" in printed[0] and "matches tanh at 34 points" in printed[0]
    assert printed[-1] == "verdict: RIGHT" and result.verdict == "RIGHT"
    assert repr(result) == "<CheckResult GoodTanh: passed (4 OK)>"


def test_the_usual_tanh_mistake_is_named_with_the_point_both_numbers_and_a_hint() -> None:
    result = exercises.check(TanhTimesOutput, like="tanh", quiet=True)
    assert not result
    wrong = line(result, "backward")
    assert wrong.status == "WRONG"
    x = float(wrong.message.split("at x = ")[1].split(":")[0])
    assert f"yours {math.tanh(x):.10g}" in wrong.message
    assert f"expected {1 - math.tanh(x) ** 2:.10g}" in wrong.message
    assert "central difference" in wrong.message
    assert wrong.hint == "d/dx tanh(x) = 1 - tanh(x)**2; you returned grad_output * tanh(x)?"
    assert statuses(result)["second order"] == "SKIP"  # not checked until backward is right


def test_forgetting_grad_output_fails_the_chain_rule_check() -> None:
    result = exercises.check(TanhWithoutGradOutput, like="tanh", quiet=True)
    assert statuses(result)["backward"] == "OK"  # at grad_output 1 it cannot be seen
    chain = line(result, "chain rule")
    assert chain.status == "WRONG" and "grad_output = -2.5" in chain.message
    assert "multiply by grad_output" in chain.hint
    assert not result


def test_float_math_in_backward_skips_second_order_and_still_passes() -> None:
    result = exercises.check(FloatTanh, like="tanh", quiet=True)
    assert result
    skip = line(result, "second order")
    assert skip.status == "SKIP" and "plain floats" in skip.message


def test_the_lecture_closure_way_is_first_order_only() -> None:
    def closure_tanh(self: Value) -> Value:
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward  # type: ignore[assignment,method-assign]
        return out

    result = exercises.check(closure_tanh, like="tanh", quiet=True)
    assert result
    assert statuses(result) == {"forward": "OK", "backward": "OK", "chain rule": "OK", "second order": "SKIP"}


def test_the_lectures_bug_assigning_grad_is_caught_by_the_chain_rule_check() -> None:
    def assigning_tanh(self: Value) -> Value:
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward() -> None:
            self.grad = (1 - t**2) * out.grad  # = where += belongs

        out._backward = _backward  # type: ignore[assignment,method-assign]
        return out

    result = exercises.check(assigning_tanh, like="tanh", quiet=True)
    assert statuses(result)["backward"] == "OK" and result.verdict == "WRONG"
    chain = line(result, "chain rule")
    assert chain.status == "WRONG" and chain.message.startswith("of (your op + self) at self = ")
    x = float(chain.message.split("at self = ")[1].split(":")[0])
    g = 1 - math.tanh(x) ** 2
    assert f"yours {g:.10g}, expected {g:.10g} + 1 = {g + 1:.10g}" in chain.message
    assert "do not assign it (x.grad = ...)" in chain.hint


def test_not_written_yet_is_todo_not_an_exception(capsys: pytest.CaptureFixture[str]) -> None:
    result = exercises.check(NotYet, like="tanh")
    assert not result
    assert [(x.status, x.check) for x in result.lines] == [("TODO", "forward")]
    assert capsys.readouterr().out.startswith("TODO  forward: NotYet.forward is not written yet")


def test_a_broken_call_raises_the_students_own_exception_with_its_traceback() -> None:
    with pytest.raises(AttributeError) as info:
        exercises.check(Typo, like="exp", quiet=True)
    notes = getattr(info.value, "__notes__", [])
    assert "(raised while micrograd.exercises.check ran Typo)" in notes
    if exercises.isolation.available():  # raised from the child's answer: its traceback in a note
        (child,) = [note for note in notes if note.startswith("(in the process that ran your op:)")]
        assert child.rstrip().splitlines()[-1].startswith("AttributeError")
        assert ", in backward\n" in child
    else:  # raised here: the student's own frames
        assert [f.name for f in traceback.extract_tb(info.value.__traceback__)][-1] == "backward"


def test_an_overflow_error_at_an_edge_point_is_right_except_at_edges_not_wrong() -> None:
    result = exercises.check(OverflowingSigmoid, like="sigmoid", quiet=True)
    forward = line(result, "forward")
    assert forward.status == "EDGE" and result.verdict == "RIGHT, EXCEPT AT EDGES" and not result
    assert forward.message == (
        "right at 33 of 34 points; only at the edges it differs: "
        "at x = -1000: yours 'OverflowError: math range error', expected 0"
    )
    # the student's own line that raised, and the fix
    assert forward.hint.startswith("`return 1 / (1 + math.exp(-x))` raised OverflowError; ")
    assert "use micrograd.math.exp" in forward.hint
    assert str(result).splitlines()[-1] == "verdict: RIGHT, EXCEPT AT EDGES (forward)"
    assert statuses(result)["backward"] == "OK"  # the other points are still checked


def test_binary_ops_take_pairs_and_name_the_input() -> None:
    assert exercises.check(Mul, like="mul", quiet=True)
    result = exercises.check(SwappedMul, like="mul", quiet=True)
    wrong = line(result, "backward")
    assert wrong.message.startswith("d/da at a = ")
    assert "each input's gradient is the OTHER input" in wrong.hint
    assert exercises.check(lambda a, b: a / b, like="div", quiet=True)
    assert exercises.check(lambda a, b: a**b, like="pow", quiet=True)


def test_ops_with_a_parameter() -> None:
    assert exercises.check(LeakyReLU, like="leaky_relu", params=(0.1,), quiet=True)
    assert exercises.check(LeakyReLU, like="leaky_relu", params=[(0.01,), (0.3,)], quiet=True)
    assert exercises.check(LeakyReLUFixedSlope, like="leaky_relu", params=(0.01,), quiet=True)
    result = exercises.check(LeakyReLUFixedSlope, like="leaky_relu", params=[(0.01,), (0.3,)], quiet=True)
    assert "slope = 0.3: yours" in line(result, "forward").message


def test_references_domains_and_points() -> None:
    assert exercises.check(GoodTanh, like=lambda x: x.tanh(), quiet=True)
    assert exercises.check(GoodTanh, like=GoodTanh, quiet=True)
    no_ref = exercises.check(GoodTanh, quiet=True)  # backward against central differences alone
    assert no_ref and statuses(no_ref)["forward"] == "SKIP"
    assert exercises.check(lambda x: x.log(), like="log", quiet=True)  # default domain (0, inf)
    assert exercises.check(lambda x: x.sqrt(), like="sqrt", domain=(0.5, 4.0), quiet=True)
    assert exercises.check(lambda x: (x * x).log(), domain=lambda x: x != 0, quiet=True)
    result = exercises.check(GoodTanh, like="tanh", points=[0.5, -2.0], quiet=True)
    assert "at 2 points" in line(result, "forward").message
    wrong = exercises.check(lambda x: x * x * x, like="square", quiet=True)
    assert line(wrong, "forward").status == "WRONG"


def test_html_table_is_coloured() -> None:
    result = exercises.check(TanhTimesOutput, like="tanh", quiet=True)
    page = result._repr_html_()
    assert page.startswith("<table") and "#cf222e" in page and "#1a7f37" in page
    assert "hint: d/dx tanh(x) = 1 - tanh(x)**2" in page
    assert '<b>TanhTimesOutput</b>: <b style="color:#cf222e">WRONG</b></caption>' in page
    edge = exercises.check(OverflowingSigmoid, like="sigmoid", quiet=True)._repr_html_()
    assert '<b style="color:#bc4c00">RIGHT, EXCEPT AT EDGES</b>' in edge and "#bc4c00;color:white" in edge


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"fn": 3}, TypeError, "must be a micrograd.Function subclass or a function of Values, got int"),
        ({"fn": Function}, TypeError, "not Function itself"),
        ({"fn": GoodTanh, "like": "tanhh"}, ValueError, "unknown op like='tanhh'; choose one of abs, add"),
        ({"fn": Mul, "like": "tanh"}, ValueError, "like='tanh' takes one input, but Mul takes 2"),
        ({"fn": GoodTanh, "like": "mul"}, ValueError, "like='mul' is a binary op, but GoodTanh takes 1"),
        ({"fn": GoodTanh, "domain": (1.0,)}, ValueError, "each domain interval must be (low, high)"),
        ({"fn": GoodTanh, "domain": (2.0, 1.0)}, ValueError, "low <= high"),
        ({"fn": GoodTanh, "params": "ab"}, TypeError, "params must be a tuple of numbers"),
        ({"fn": LeakyReLU, "params": ("x",)}, TypeError, "params must be numbers, got str"),
        ({"fn": lambda x: 1.0}, TypeError, "the op must return a Value, got float"),
        ({"fn": GoodTanh, "points": [(1.0, 2.0)]}, ValueError, "has 2 number(s), the op takes 1"),
        ({"fn": GoodTanh, "points": []}, ValueError, "points is empty"),
        ({"fn": lambda *xs: xs[0]}, ValueError, "cannot tell how many inputs"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=None) as info:
        exercises.check(**kwargs, quiet=True)
    assert message in str(info.value)


def test_exported_from_the_package() -> None:
    assert micrograd.exercises.check is exercises.check
    assert "tanh" in exercises.check.ops  # type: ignore[attr-defined]


def test_without_a_reference_central_differences_alone_catch_a_wrong_backward() -> None:
    result = exercises.check(TanhTimesOutput, quiet=True)
    wrong = line(result, "backward")
    assert wrong.status == "WRONG" and "expected" in wrong.message
    assert "central difference" not in wrong.message  # the expected number IS the central difference
    # central differences never step outside the domain: sqrt at 0 has no two-sided difference
    assert exercises.check(lambda x: x.sqrt(), domain=(0.0, math.inf), quiet=True)


class LogPython(Function):  # right, but 1 / x raises ZeroDivisionError at x = 0 (PyTorch: inf)
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return mm.log(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        (x,) = ctx.inputs
        return grad_output / x


def test_a_division_by_zero_at_the_domains_edge_names_the_point_the_line_and_mm_div() -> None:
    result = exercises.check(LogPython, like="log", quiet=True)
    backward = line(result, "backward")
    assert backward.status == "EDGE" and result.verdict == "RIGHT, EXCEPT AT EDGES"
    assert "at x = 0: yours 'ZeroDivisionError: float division by zero', expected inf" in backward.message
    assert backward.hint.startswith("`return grad_output / x` raised ZeroDivisionError; ")
    assert "micrograd.math.div(a, b)" in backward.hint
    # an edge is a place, wherever the point comes from: your own points, or the domain's bound
    mine = exercises.check(LogPython, like="log", points=[0.0, 0.5, 2.0], quiet=True)
    assert (
        mine.verdict == "RIGHT, EXCEPT AT EDGES"
        and "right at 2 of 3 points" in line(mine, "backward").message
    )

    class Log1pPython(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return mm.log1p(x)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (x,) = ctx.inputs
            return grad_output / (1 + x)  # raises at the domain's bound, x = -1

    bound = exercises.check(Log1pPython, like="log1p", quiet=True)
    assert bound.verdict == "RIGHT, EXCEPT AT EDGES"
    assert "at x = -1: yours 'ZeroDivisionError: float division by zero'" in line(bound, "backward").message


def test_relu_at_zero_and_a_branch_at_one_are_both_wrong() -> None:
    def relu_with(branch: Any) -> type[Function]:
        return type(
            "MyRelu",
            (Function,),
            {
                "forward": staticmethod(lambda ctx, x: mm.where(x > 0, x, 0.0)),
                "backward": staticmethod(lambda ctx, g: mm.where(branch(ctx.inputs[0]), g, 0.0)),
            },
        )

    at_zero = exercises.check(relu_with(lambda x: x >= 0), like="relu", quiet=True)
    zero = line(at_zero, "backward")
    assert at_zero.verdict == "WRONG" and zero.status == "WRONG"
    assert zero.message.startswith("at x = 0: yours 1, expected 0")
    assert zero.hint.endswith("you returned 1 at x = 0; relu'(0) is 0 here and in PyTorch?")
    at_one = exercises.check(relu_with(lambda x: x > 1), like="relu", quiet=True)
    wrong = line(at_one, "backward")
    assert at_one.verdict == "WRONG" and wrong.status == "WRONG"
    x = float(wrong.message.split("at x = ")[1].split(":")[0])
    assert 0 < x <= 1 and "yours 0, expected 1" in wrong.message  # a point between the two branches


def test_inf_or_nan_at_an_ordinary_point_is_wrong_not_an_edge() -> None:
    class InfLog(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return mm.log(x)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (x,) = ctx.inputs
            return mm.div(grad_output, x - x)  # inf everywhere

    result = exercises.check(InfLog, like="log", quiet=True)
    assert result.verdict == "WRONG" and "yours inf" in line(result, "backward").message


def test_a_python_error_that_is_not_arithmetic_is_a_broken_call() -> None:
    class Unpacks(Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            return a * b

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (a,) = ctx.inputs  # two inputs: ValueError, a bug, not an edge of the formula
            return grad_output * a

    with pytest.raises(ValueError, match="too many values to unpack"):
        exercises.check(Unpacks, like="mul", quiet=True)


class Forever(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return mm.exp(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        while True:
            pass


class ForeverForward(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        while True:
            try:  # noqa: SIM105 - as a student writes it
                pass
            except Exception:  # a student's catch-all does not swallow the time limit
                pass

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        return grad_output


def test_an_endless_backward_is_stopped_and_named_with_its_point(capsys: pytest.CaptureFixture[str]) -> None:
    import time

    started = time.monotonic()
    result = exercises.check(Forever, like="exp", timeout=0.3)
    assert time.monotonic() - started < 5
    slow = line(result, "backward")
    assert slow.status == "TIMEOUT" and result.verdict == "TIMED OUT" and not result
    assert slow.message.startswith("your backward ran longer than 0.3 s at x = ")
    assert slow.message.endswith(" and was stopped")
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: TIMED OUT (backward)"
    # the timer is gone: the next check runs to the end
    assert exercises.check(GoodTanh, like="tanh", timeout=0.3, quiet=True)


def test_an_endless_forward_is_stopped_on_a_thread_too() -> None:
    import threading

    results: list[exercises.CheckResult] = []
    worker = threading.Thread(
        target=lambda: results.append(exercises.check(ForeverForward, like="exp", timeout=0.3, quiet=True))
    )
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    (result,) = results
    assert result.verdict == "TIMED OUT"
    assert line(result, "forward").message.startswith("your forward ran longer than 0.3 s at x = ")
    on_main = exercises.check(ForeverForward, like="exp", timeout=0.3, quiet=True)
    assert on_main.verdict == "TIMED OUT"
    # nothing is left pending: code under a profiler still runs (cancelling a pending asynchronous
    # exception leaves CPython 3.11's eval breaker set, and profiled code then loops forever)
    done: list[float] = []

    def profiled() -> None:
        sys.setprofile(lambda *args: None)
        try:
            x = Value(0.5)
            (x * x).tanh().backward()
            done.append(x.grad)
        finally:
            sys.setprofile(None)

    runner = threading.Thread(target=profiled, daemon=True)
    runner.start()
    runner.join(10)
    assert done, "a profiled backward hung after the time limit"


def test_a_slow_but_finite_op_passes_with_a_larger_timeout() -> None:
    import time

    class Slow(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            time.sleep(0.05)
            return mm.exp(x)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output * ctx.output

    assert exercises.check(Slow, like="exp", timeout=0.01, points=[0.5], quiet=True).verdict == "TIMED OUT"
    assert exercises.check(Slow, like="exp", timeout=2, points=[0.5, 1.0], quiet=True).verdict == "RIGHT"


@pytest.mark.parametrize("timeout", [0, -1.0, math.inf, math.nan, "5", True])
def test_a_bad_timeout_is_a_clear_error(timeout: Any) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds or None"):
        exercises.check(GoodTanh, like="tanh", timeout=timeout, quiet=True)


def test_no_timeout_runs_without_a_limit() -> None:
    assert exercises.check(GoodTanh, like="tanh", timeout=None, quiet=True).verdict == "RIGHT"


# ---- the audit: right rules are never called WRONG, wrong ones always are, with the point -----------------


def unary(name: str, forward: Any, backward: Any) -> type[Function]:
    """A student's one-input Function: ``forward(x)`` and ``backward(x, out, grad_output)``."""
    return type(
        name,
        (Function,),
        {
            "forward": staticmethod(lambda ctx, x: forward(x)),
            "backward": staticmethod(lambda ctx, g: backward(ctx.inputs[0], ctx.output, g)),
        },
    )


def binary(name: str, forward: Any, backward: Any) -> type[Function]:
    """A student's two-input Function: ``forward(a, b)`` and ``backward(a, b, out, grad_output)``."""
    return type(
        name,
        (Function,),
        {
            "forward": staticmethod(lambda ctx, a, b: forward(a, b)),
            "backward": staticmethod(lambda ctx, g: backward(*ctx.inputs, ctx.output, g)),
        },
    )


def closure(name: str, forward: Any, local: Any, accumulate: bool = True, chain: bool = True) -> Any:
    """The lecture's way: a Value made by hand with a ``_backward`` closure.  ``local(x, out)`` is
    the local derivative; ``chain=False`` forgets out.grad, ``accumulate=False`` assigns .grad."""

    def op(self: Value) -> Value:
        out = Value(forward(self.data), (self,), name)

        def _backward() -> None:
            g = local(self.data, out.data) * (out.grad if chain else 1.0)
            self.grad = self.grad + g if accumulate else g

        out._backward = _backward
        return out

    op.__name__ = name
    return op


def a_exp_b(a: Value, b: Value) -> Value:
    """The reference of the two-input user op of the table: a * exp(b)."""
    return a * b.exp()


def where(c: bool, a: Any, b: Any) -> Any:
    return mm.where(c, a, b)


# (like, the rule, its expected verdict): the right rules, some of which break only at an edge point
RIGHT_RULES: list[tuple[Any, Any, str]] = [
    ("log", unary("LogDiv", mm.log, lambda x, o, g: g / x), "RIGHT, EXCEPT AT EDGES"),  # 1/0 raises
    ("log", unary("LogMathDiv", mm.log, lambda x, o, g: mm.div(g, x)), "RIGHT"),
    ("log", unary("LogPython", math.log, lambda x, o, g: g * (1 / x)), "RIGHT, EXCEPT AT EDGES"),
    ("exp", unary("Exp", mm.exp, lambda x, o, g: g * o), "RIGHT"),
    ("exp", unary("ExpPython", math.exp, lambda x, o, g: g * o), "RIGHT, EXCEPT AT EDGES"),
    ("exp", unary("ExpBackwardPython", mm.exp, lambda x, o, g: g * math.exp(x)), "RIGHT, EXCEPT AT EDGES"),
    ("tanh", unary("Tanh", mm.tanh, lambda x, o, g: g * (1 - o**2)), "RIGHT"),
    ("tanh", unary("TanhPython", math.tanh, lambda x, o, g: g * (1 - math.tanh(x) ** 2)), "RIGHT"),
    ("tanh", unary("TanhFactored", mm.tanh, lambda x, o, g: g * (1 - o) * (1 + o)), "RIGHT"),
    (
        "tanh",
        unary(
            "TanhByExp",
            lambda x: (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1),
            lambda x, o, g: g * (1 - o * o),
        ),
        "RIGHT, EXCEPT AT EDGES",
    ),
    (
        "tanh",
        unary("TanhCosh", mm.tanh, lambda x, o, g: g * 4 / (math.exp(x) + math.exp(-x)) ** 2),
        "RIGHT, EXCEPT AT EDGES",
    ),
    ("sigmoid", unary("Sigmoid", mm.sigmoid, lambda x, o, g: g * o * (1 - o)), "RIGHT"),
    ("sigmoid", unary("SigmoidDiff", mm.sigmoid, lambda x, o, g: g * (o - o * o)), "RIGHT"),
    (
        "sigmoid",
        unary("SigmoidPython", lambda x: 1 / (1 + math.exp(-x)), lambda x, o, g: g * o * (1 - o)),
        "RIGHT, EXCEPT AT EDGES",
    ),
    (
        "sigmoid",
        unary("SigmoidByExp", mm.sigmoid, lambda x, o, g: g * mm.exp(-x) / (1 + mm.exp(-x)) ** 2),
        "RIGHT, EXCEPT AT EDGES",  # inf / inf is nan at x = -1000
    ),
    ("relu", unary("Relu", lambda x: where(x > 0, x, 0.0), lambda x, o, g: where(x > 0, g, 0.0)), "RIGHT"),
    ("relu", unary("ReluIf", lambda x: max(x, 0.0), lambda x, o, g: g * (1.0 if x > 0 else 0.0)), "RIGHT"),
    ("relu", closure("lecture_relu", lambda x: max(x, 0.0), lambda x, o: float(o > 0)), "RIGHT"),
    ("pow", binary("Pow", mm.pow, lambda a, b, o, g: (g * b * mm.pow(a, b - 1), g * o * mm.log(a))), "RIGHT"),
    (
        "pow",
        binary("PowPython", mm.pow, lambda a, b, o, g: (g * b * a ** (b - 1), g * a**b * math.log(a))),
        "RIGHT, EXCEPT AT EDGES",  # 1000.0 ** 999 raises OverflowError
    ),
    ("pow", lambda a, b: (b * a.log()).exp(), "RIGHT"),
    ("div", binary("DivPython", mm.div, lambda a, b, o, g: (g / b, -g * a / b**2)), "RIGHT, EXCEPT AT EDGES"),
    ("div", binary("Div", mm.div, lambda a, b, o, g: (mm.div(g, b), mm.div(-g * a, b * b))), "RIGHT"),
    ("div", lambda a, b: a * b**-1, "RIGHT"),
    ("sin", unary("Sin", mm.sin, lambda x, o, g: g * mm.cos(x)), "RIGHT"),
    ("cos", unary("CosPython", math.cos, lambda x, o, g: -g * math.sin(x)), "RIGHT"),
    ("sin", closure("lecture_sin", math.sin, lambda x, o: math.cos(x)), "RIGHT"),
    ("sqrt", unary("SqrtHalf", mm.sqrt, lambda x, o, g: g * 0.5 / o), "RIGHT, EXCEPT AT EDGES"),
    ("sqrt", unary("Sqrt", mm.sqrt, lambda x, o, g: mm.div(g, 2 * o)), "RIGHT"),
    (
        "sqrt",
        unary("SqrtPython", math.sqrt, lambda x, o, g: g / (2 * math.sqrt(x))),
        "RIGHT, EXCEPT AT EDGES",
    ),
    ("mul", binary("MulRule", lambda a, b: a * b, lambda a, b, o, g: (g * b, g * a)), "RIGHT"),
    ("mul", lambda a, b: a * b, "RIGHT"),
    ("square", unary("Square", lambda x: x * x, lambda x, o, g: 2 * x * g), "RIGHT"),
    (
        "softplus",
        unary("Softplus", lambda x: mm.log(1 + mm.exp(x)), lambda x, o, g: g * mm.sigmoid(x)),
        "RIGHT, EXCEPT AT EDGES",
    ),
    ("abs", unary("Abs", mm.abs, lambda x, o, g: g * mm.sign(x)), "RIGHT"),
    ("abs", unary("AbsBranch", mm.abs, lambda x, o, g: where(x > 0, g, -g)), "RIGHT, EXCEPT AT EDGES"),
    (
        a_exp_b,
        binary("AExpB", lambda a, b: a * mm.exp(b), lambda a, b, o, g: (g * mm.exp(b), g * o)),
        "RIGHT",
    ),
    (
        a_exp_b,
        binary("AExpBPython", lambda a, b: a * math.exp(b), lambda a, b, o, g: (g * math.exp(b), g * o)),
        "RIGHT, EXCEPT AT EDGES",
    ),
    # other right ways to write them: other formulas, compositions of Values, the lecture's closures
    (
        "sigmoid",
        unary("SigmoidSymmetric", mm.sigmoid, lambda x, o, g: g * mm.sigmoid(x) * mm.sigmoid(-x)),
        "RIGHT",
    ),
    ("exp", unary("ExpAsPower", lambda x: mm.pow(math.e, x), lambda x, o, g: g * o), "RIGHT"),
    ("log", unary("LogPowerRule", mm.log, lambda x, o, g: g * x**-1), "RIGHT, EXCEPT AT EDGES"),  # 0.0 ** -1
    ("sqrt", unary("SqrtPowerRule", mm.sqrt, lambda x, o, g: g * 0.5 * x**-0.5), "RIGHT, EXCEPT AT EDGES"),
    (
        "cos",
        unary("CosAsShiftedSin", lambda x: mm.sin(x + math.pi / 2), lambda x, o, g: -g * mm.sin(x)),
        "RIGHT",
    ),
    ("softplus", lambda x: (1 + x.exp()).log(), "RIGHT, EXCEPT AT EDGES"),  # inf at x = 1000
    ("tanh", lambda x: (2 * x).sigmoid() * 2 - 1, "RIGHT"),
    ("sigmoid", lambda x: 1 / (1 + (-x).exp()), "RIGHT, EXCEPT AT EDGES"),  # inf * 0 at x = -1000
    ("pow", binary("PowByOutput", mm.pow, lambda a, b, o, g: (g * b * o / a, g * o * mm.log(a))), "RIGHT"),
    ("leaky_relu", lambda x: x.relu() - 0.01 * (-x).relu(), "RIGHT, EXCEPT AT EDGES"),  # 0 at 0, not 0.01
    ("abs", lambda x: (x * x).sqrt(), "RIGHT, EXCEPT AT EDGES"),  # nan at 0
    ("log1p", lambda x: (1 + x).log(), "RIGHT"),
    ("expm1", lambda x: x.exp() - 1, "RIGHT"),
    ("tanh", closure("lecture_tanh", math.tanh, lambda x, o: 1 - o**2), "RIGHT"),
    ("exp", closure("lecture_exp", math.exp, lambda x, o: o), "RIGHT, EXCEPT AT EDGES"),
]

# (like, the rule): each with one usual mistake
WRONG_RULES: list[tuple[Any, Any]] = [
    ("log", unary("LogOfX", mm.log, lambda x, o, g: g * mm.log(x))),  # the op, not its derivative
    ("log", unary("LogSign", mm.log, lambda x, o, g: -mm.div(g, x))),  # a sign flipped
    ("log", unary("LogNoGrad", mm.log, lambda x, o, g: mm.div(1.0, x))),  # grad_output forgotten
    ("log", unary("LogHalf", mm.log, lambda x, o, g: mm.div(g, 2 * x))),  # a factor of 2 too many
    ("exp", unary("ExpPowerRule", mm.exp, lambda x, o, g: g * x * mm.exp(x - 1))),
    ("exp", unary("ExpNoGrad", mm.exp, lambda x, o, g: o)),
    ("exp", unary("ExpPlusOne", mm.exp, lambda x, o, g: g * (o + 1))),  # off by a constant
    ("tanh", unary("TanhOfInput", mm.tanh, lambda x, o, g: g * (1 - x**2))),  # input where output belongs
    ("tanh", unary("TanhNoSquare", mm.tanh, lambda x, o, g: g * (1 - o))),
    ("tanh", unary("TanhPlus", mm.tanh, lambda x, o, g: g * (1 + o**2))),  # a sign flipped
    ("tanh", unary("TanhNoGrad", mm.tanh, lambda x, o, g: 1 - o**2)),
    ("tanh", unary("TanhTwice", mm.tanh, lambda x, o, g: 2 * g * (1 - o**2))),
    ("tanh", closure("lecture_tanh_no_grad", math.tanh, lambda x, o: 1 - o**2, chain=False)),
    ("tanh", closure("lecture_tanh_assigns", math.tanh, lambda x, o: 1 - o**2, accumulate=False)),
    ("exp", closure("lecture_exp_assigns", math.exp, lambda x, o: o, accumulate=False)),
    ("sigmoid", unary("SigmoidOfInput", mm.sigmoid, lambda x, o, g: g * x * (1 - x))),
    ("sigmoid", unary("SigmoidPlus", mm.sigmoid, lambda x, o, g: g * o * (1 + o))),
    ("sigmoid", unary("SigmoidOutput", mm.sigmoid, lambda x, o, g: g * o)),
    ("relu", unary("ReluAtOne", lambda x: where(x > 0, x, 0.0), lambda x, o, g: where(x > 1, g, 0.0))),
    ("relu", unary("ReluFlipped", lambda x: where(x > 0, x, 0.0), lambda x, o, g: where(x < 0, g, 0.0))),
    ("relu", unary("ReluInput", lambda x: where(x > 0, x, 0.0), lambda x, o, g: g * x)),
    # relu'(0) has one answer, 0 (micrograd 0.1.0, the lecture and PyTorch): 1 or 1/2 there is wrong
    ("relu", unary("ReluAtZero", lambda x: where(x > 0, x, 0.0), lambda x, o, g: where(x >= 0, g, 0.0))),
    ("relu", lambda x: (x + abs(x)) / 2),  # 1/2 at 0
    (
        "relu",
        unary("ReluAtMinusHalf", lambda x: where(x > 0, x, 0.0), lambda x, o, g: where(x > -0.5, g, 0.0)),
    ),
    ("pow", binary("PowNoMinusOne", mm.pow, lambda a, b, o, g: (g * b * mm.pow(a, b), g * o * mm.log(a)))),
    ("pow", binary("PowNoLog", mm.pow, lambda a, b, o, g: (g * b * mm.pow(a, b - 1), g * o))),
    ("pow", binary("PowSwapped", mm.pow, lambda a, b, o, g: (g * o * mm.log(a), g * b * mm.pow(a, b - 1)))),
    ("div", binary("DivSign", mm.div, lambda a, b, o, g: (mm.div(g, b), mm.div(g * a, b * b)))),
    ("div", binary("DivNoA", mm.div, lambda a, b, o, g: (mm.div(g, b), mm.div(-g, b * b)))),
    ("div", binary("DivTimesB", mm.div, lambda a, b, o, g: (g * b, mm.div(-g * a, b * b)))),
    ("div", binary("DivSwapped", mm.div, lambda a, b, o, g: (mm.div(-g * a, b * b), mm.div(g, b)))),
    ("sin", unary("SinSign", mm.sin, lambda x, o, g: -g * mm.cos(x))),
    ("cos", unary("CosSign", mm.cos, lambda x, o, g: g * mm.sin(x))),
    ("sin", unary("SinOfOutput", mm.sin, lambda x, o, g: g * mm.cos(o))),  # output where input belongs
    ("sqrt", unary("SqrtNoHalf", mm.sqrt, lambda x, o, g: mm.div(g, o))),  # a factor of 2 missing
    ("sqrt", unary("SqrtTimes", mm.sqrt, lambda x, o, g: g * 0.5 * o)),
    ("mul", binary("MulSwapped", lambda a, b: a * b, lambda a, b, o, g: (g * a, g * b))),
    ("mul", binary("MulSameTwice", lambda a, b: a * b, lambda a, b, o, g: (g * b, g * b))),
    ("mul", binary("MulNoGrad", lambda a, b: a * b, lambda a, b, o, g: (b, a))),
    ("square", unary("SquareNoTwo", lambda x: x * x, lambda x, o, g: g * x)),  # a factor of 2 missing
    (a_exp_b, binary("AExpBSwapped", lambda a, b: a * mm.exp(b), lambda a, b, o, g: (g * o, g * mm.exp(b)))),
    (
        a_exp_b,
        binary("AExpBNoA", lambda a, b: a * mm.exp(b), lambda a, b, o, g: (g * mm.exp(b), g * mm.exp(b))),
    ),
    ("abs", unary("AbsFlipped", mm.abs, lambda x, o, g: -g * mm.sign(x))),
    ("sigmoid", unary("SigmoidSquared", mm.sigmoid, lambda x, o, g: g * mm.sigmoid(x) * mm.sigmoid(x))),
    ("log", unary("LogPowerTwo", mm.log, lambda x, o, g: g * mm.pow(x, -2.0))),
    ("sqrt", unary("SqrtPowerFlipped", mm.sqrt, lambda x, o, g: g * 0.5 * mm.pow(x, 0.5))),
    ("pow", binary("PowNoB", mm.pow, lambda a, b, o, g: (g * o / a, g * o * mm.log(a)))),
    ("tanh", lambda x: (2 * x).sigmoid() * 2 + 1),  # off by a constant (2)
]


@cache  # the table's score below reads the verdicts the tests of each rule got: each rule is checked once
def verdict_and_line(like: Any, rule: Any) -> tuple[str, exercises.CheckLine | None]:
    result = exercises.check(rule, like=like, quiet=True)
    assert result.verdict in ("RIGHT", "RIGHT, EXCEPT AT EDGES", "WRONG"), str(result)
    decided_by = "WRONG" if result.verdict == "WRONG" else "EDGE"
    first = next((x for x in result.lines if x.status == decided_by), None)
    return result.verdict, first


def rule_name(rule: Any) -> str:
    return str(getattr(rule, "__name__", rule))


@pytest.mark.parametrize(
    ("like", "rule", "expected"), RIGHT_RULES, ids=[rule_name(r[1]) for r in RIGHT_RULES]
)
def test_audit_a_right_rule_is_never_wrong(like: Any, rule: Any, expected: str) -> None:
    verdict, first = verdict_and_line(like, rule)
    assert verdict == expected
    if first is not None:  # an edge difference: its point, and how to make it PyTorch's
        assert first.status == "EDGE" and "only at the edges it differs: " in first.message
        assert re.search(r"\bat \w+ = -?[\d.e+-]+", first.message), first.message
        assert first.hint


@pytest.mark.parametrize(("like", "rule"), WRONG_RULES, ids=[rule_name(r[1]) for r in WRONG_RULES])
def test_audit_a_wrong_rule_is_wrong_at_a_named_point(like: Any, rule: Any) -> None:
    verdict, first = verdict_and_line(like, rule)
    assert verdict == "WRONG"
    assert first is not None and first.status == "WRONG"
    assert re.match(r"(d/d\w+ )?(of \(your op \+ \w+\) )?at \w+ = -?[\d.e+-]+", first.message), first.message


def test_audit_table_size_and_score(capsys: pytest.CaptureFixture[str]) -> None:
    """At least 30 right and 30 wrong rules over at least ten ops; every right one is RIGHT or
    RIGHT, EXCEPT AT EDGES (no false alarm), every wrong one WRONG."""
    assert len(RIGHT_RULES) >= 30 and len(WRONG_RULES) >= 30
    ops = {str(like) for like, *_ in RIGHT_RULES} | {str(like) for like, _ in WRONG_RULES}
    assert len(ops) >= 10
    false_alarms = [rule_name(r) for like, r, _ in RIGHT_RULES if verdict_and_line(like, r)[0] == "WRONG"]
    caught = [rule_name(r) for like, r in WRONG_RULES if verdict_and_line(like, r)[0] == "WRONG"]
    assert false_alarms == []
    assert len(caught) == len(WRONG_RULES)
    with capsys.disabled():
        print(
            f"\naudit: {len(RIGHT_RULES)} right rules, 0 called WRONG; "
            f"{len(caught)}/{len(WRONG_RULES)} wrong rules caught"
        )


# ---- the package's layout: split by what its parts do, no long functions ------------------------------


def test_no_function_of_the_exercises_is_over_60_lines() -> None:
    import ast
    from pathlib import Path

    folder = Path(exercises.__file__).parent
    long = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    lines -= first.end_lineno - first.lineno + 1  # type: ignore[operator]  # docstrings aside
                if lines > 60:
                    long.append(f"{path.name}:{node.name} ({lines} lines)")
    assert not long
    assert len(list(folder.glob("*.py"))) >= 8  # split by what the parts do, not one 1,000-line file


def test_the_public_names_still_import() -> None:
    from micrograd.exercises import CheckLine, CheckResult, check

    assert micrograd.exercises.check is check and exercises.CheckLine is CheckLine
    assert exercises.CheckResult is CheckResult and "tanh" in check.ops  # type: ignore[attr-defined]


# ---- the references are the built-in rules, whatever the student patched -------------------------------


def test_a_patched_value_method_does_not_become_the_reference() -> None:
    # The lecture adds a method by patching the class; a wrong tanh patched in must stay wrong.
    from micrograd.engine import Value as EngineValue

    original = EngineValue.__dict__["tanh"]
    try:
        EngineValue.tanh = lambda self: self * 1.0

        def mytanh(x: Value) -> Value:
            return x.tanh()  # the patched method: x * 1.0, not tanh

        result = exercises.check(mytanh, like="tanh", quiet=True)
        assert result.verdict == "WRONG"
        assert line(result, "forward").status == "WRONG"
        assert re.search(r"yours -?[\d.]+, expected -?[\d.]+", line(result, "forward").message)
    finally:
        EngineValue.tanh = original
    assert Value(1.0).tanh().data == math.tanh(1.0)
    assert exercises.check(GoodTanh, like="tanh", quiet=True).verdict == "RIGHT"


def test_a_patched_rule_of_a_built_in_op_does_not_become_the_reference() -> None:
    from micrograd.engine import Mul as EngineMul

    original = EngineMul.__dict__["backward"]
    try:
        EngineMul.backward = staticmethod(lambda ctx, g: (g, g))  # type: ignore[method-assign]  # wrong: 1 each
        result = exercises.check(lambda a, b: a * b, like="mul", quiet=True)
        assert result.verdict == "WRONG" and line(result, "backward").status == "WRONG"
    finally:
        EngineMul.backward = original  # type: ignore[method-assign]
    assert EngineMul.builtin  # put back: built-in again
    assert exercises.check(Mul, like="mul", quiet=True).verdict == "RIGHT"


@pytest.mark.parametrize("name", sorted(exercises.check.ops))  # type: ignore[attr-defined]
def test_every_reference_is_the_value_method_it_replaces(name: str) -> None:
    from micrograd.exercises.inputs import resolve_like

    reference, _ = resolve_like(name)
    by_method: Any = {
        "abs": abs,
        "neg": lambda x: -x,
        "square": lambda x: x * x,
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b,
        "pow": lambda a, b: a**b,
    }.get(name, lambda x: getattr(x, name)())
    args = [Value(0.7), Value(1.3)] if name in ("add", "sub", "mul", "div", "pow") else [Value(0.7)]
    assert reference is not None
    mine, theirs = reference(*args), by_method(*args)
    assert mine.data == theirs.data
    assert [g for g in micrograd.grad(mine, args)] == [g for g in micrograd.grad(theirs, args)]


# ---- the time limit holds against the student's own `except:` -------------------------------------------


class SwallowingBackward(Function):
    """A loop whose `except:` swallows any stop raised inside it, and goes on for ever."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return mm.exp(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        while True:
            try:
                while True:
                    pass
            except:  # noqa: E722 - the student's bare except, the point of the test
                continue


class SwallowingForward(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        while True:
            try:  # noqa: SIM105 - the issue's own example
                pass
            except:  # noqa: E722
                pass

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        return grad_output


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the stop by a child process: Linux"
)


@linux_only
@pytest.mark.parametrize("op, what", [(SwallowingBackward, "backward"), (SwallowingForward, "forward")])
def test_a_bare_except_cannot_swallow_the_time_limit(op: type[Function], what: str) -> None:
    import time

    started = time.monotonic()
    result = exercises.check(op, like="exp", timeout=1.0, quiet=True)
    took = time.monotonic() - started
    assert result.verdict == "TIMED OUT" and took < 2.5, took  # about twice the limit, at most
    slow = line(result, what)
    assert slow.message.startswith(f"your {what} ran longer than 1 s at x = ")
    if what == "backward":
        assert line(result, "forward").status == "OK"  # the lines found before the stop are kept
    assert not _children(), "the process that ran the check is left behind"
    assert exercises.check(GoodTanh, like="tanh", timeout=1.0, quiet=True).verdict == "RIGHT"


@linux_only
def test_a_bare_except_is_stopped_on_a_thread_too() -> None:
    import threading

    results: list[exercises.CheckResult] = []
    worker = threading.Thread(
        target=lambda: results.append(
            exercises.check(SwallowingBackward, like="exp", timeout=0.5, quiet=True)
        )
    )
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    assert results[0].verdict == "TIMED OUT"


def test_a_call_that_swallows_the_stop_and_returns_late_is_still_out_of_time() -> None:
    import time

    class SleepsThrough(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return mm.exp(x)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            try:
                time.sleep(0.6)  # the stop arrives here, at 0.2 s, and is swallowed
            except:  # noqa: E722
                time.sleep(0.4)
            return grad_output * ctx.output

    result = exercises.check(SleepsThrough, like="exp", timeout=0.2, points=[0.5], quiet=True)
    assert result.verdict == "TIMED OUT" and line(result, "backward").status == "TIMEOUT"


@linux_only
def test_the_students_prints_appear_once(capfd: pytest.CaptureFixture[str]) -> None:
    class Chatty(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            if x == 0.5:
                print("forward at 0.5")
            return mm.exp(x)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output * ctx.output

    print("before", flush=False)  # buffered in the parent: printed once, not again by the child
    assert exercises.check(Chatty, like="exp", points=[0.5], quiet=True).verdict == "RIGHT"
    out = capfd.readouterr().out
    assert out.count("before") == 1 and out.count("forward at 0.5") >= 1


@linux_only
def test_a_student_op_that_ends_the_process_is_wrong_and_says_so() -> None:
    import os

    class Exits(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            os._exit(3)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output

    result = exercises.check(Exits, like="exp", quiet=True)
    assert result.verdict == "WRONG" and [line.check for line in result.lines] == ["answer"]
    assert "the process running it ended without an answer (os._exit" in result.lines[0].message
    assert not _children()


def test_without_fork_the_check_runs_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from micrograd.exercises import isolation

    monkeypatch.setattr(isolation, "available", lambda: False)
    assert exercises.check(GoodTanh, like="tanh", timeout=1.0, quiet=True).verdict == "RIGHT"
    assert exercises.check(Forever, like="exp", timeout=0.2, quiet=True).verdict == "TIMED OUT"


def _children() -> list[str]:
    """This process's living children (Linux's /proc), zombies included."""
    import os
    from pathlib import Path

    found = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found += (task / "children").read_text().split()
    return found
