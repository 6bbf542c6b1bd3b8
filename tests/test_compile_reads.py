"""``.data`` warnings that are right (issue 47, item 3): compile and the transforms warn when a
traced input's ``.data`` reaches the result as a constant, and not for a read that picks a
branch or feeds a lecture-style op with its own ``_backward``."""

from __future__ import annotations

import warnings

import pytest

import micrograd
from micrograd import Value, func
from micrograd.compiler import TracerWarning
from micrograd.func import TracedValueReadWarning


def times3(a: Value) -> Value:
    """A lecture-style op: its number from ``a.data``, its derivative in a ``_backward`` closure."""
    out = Value(a.data * 3, (a,), "times3")

    def _backward() -> None:
        a.grad += 3 * out.grad

    out._backward = _backward  # type: ignore[attr-defined]
    return out


def test_compile_warns_when_data_reaches_the_loss_as_a_constant() -> None:
    with pytest.warns(TracerWarning, match=r"x\.data read .* constant 1\.0.*not x\.data") as got:
        step = micrograd.compile(lambda xs: xs[0].data * xs[0], ([1.0],))
    assert got[0].filename == __file__  # at the line that read it
    assert step([-2.0])[0] == -2.0  # the traced 1.0 kept, as the warning says (eager: 4.0)


def test_compile_is_silent_for_a_branch_on_data() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step = micrograd.compile(lambda x: x * x if x.data > 0 else -x, (3.0,))
        assert step(2.0)[0] == 4.0


def test_the_transforms_warn_when_data_reaches_the_result_as_a_constant() -> None:
    with pytest.warns(TracedValueReadWarning, match=r"x\.data .* reached the result as a constant") as got:
        assert func.grad(lambda x: x.data * x)(3.0) == 3.0
    assert got[0].filename == __file__
    with pytest.warns(TracedValueReadWarning, match="constant"):
        func.jacfwd(lambda x: x * x.data)(3.0)


def test_the_transforms_are_silent_for_a_branch_and_a_lecture_style_op() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert func.grad(lambda x: x * x if x.data > 0 else -x)(3.0) == 6.0
        assert func.grad(lambda x: x * x if x.data > 0 else -x)(-3.0) == -1.0
        assert func.jacfwd(times3)(2.0) == 3.0
        assert func.jvp(lambda x: x * x if x.data > 0 else -x, (3.0,), (1.0,))[1] == 6.0


def test_a_read_outside_a_trace_and_float_keep_their_behaviour() -> None:
    x = Value(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x.data * x).data == 4.0  # eager: no trace, no word
    with pytest.warns(TracedValueReadWarning, match=r"float"):
        func.grad(lambda x: float(x) * x)(3.0)


def test_only_the_read_that_became_a_constant_is_warned_of() -> None:
    def both(x: Value) -> Value:
        scale = x.data  # (this read becomes a constant)
        return x * scale if x.data > 0 else -x  # (this one picks the branch)

    with pytest.warns(TracedValueReadWarning) as got:
        func.grad(both)(3.0)
    assert [w.lineno for w in got] == [both.__code__.co_firstlineno + 1]
