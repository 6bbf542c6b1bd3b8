"""micrograd.exercises.check: right ops pass, wrong ones are named precisely, a wrong answer never raises."""

from __future__ import annotations

import math
import traceback
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
    assert [p.split()[0] for p in printed] == ["OK"] * 4
    assert "±1000" in printed[0] and "matches tanh at 34 points" in printed[0]
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


def test_not_written_yet_is_todo_not_an_exception(capsys: pytest.CaptureFixture[str]) -> None:
    result = exercises.check(NotYet, like="tanh")
    assert not result
    assert [(x.status, x.check) for x in result.lines] == [("TODO", "forward")]
    assert capsys.readouterr().out.startswith("TODO  forward: NotYet.forward is not written yet")


def test_a_broken_call_raises_the_students_own_exception_with_its_traceback() -> None:
    with pytest.raises(AttributeError) as info:
        exercises.check(Typo, like="exp", quiet=True)
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert frames[-1] == "backward"
    assert "(raised while micrograd.exercises.check ran Typo)" in getattr(info.value, "__notes__", [""])[0]


def test_an_overflow_error_at_an_edge_point_is_a_wrong_answer_not_an_exception() -> None:
    result = exercises.check(OverflowingSigmoid, like="sigmoid", quiet=True)
    forward = line(result, "forward")
    assert forward.status == "WRONG"
    assert "at x = -1000: yours 'OverflowError: math range error', expected 0" in forward.message
    assert "micrograd.math" in forward.hint


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
