"""micrograd.exercises.check against ops that try to write their own verdict (issue 44): the child
that runs the op sends only numbers, and the parent, which never runs the op, decides every line.
A hostile op can make itself fail; it never passes."""

from __future__ import annotations

import builtins
import contextlib
import gc
import json
import math
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import pytest

from micrograd import Value
from micrograd.exercises import check, isolation

linux_only = pytest.mark.skipif(not isolation.available(), reason="check forks only on Linux")


def tanh_without_gradient(x: Value) -> Value:
    """The lecture's tanh with a rule that adds nothing: right values, every gradient 0 (WRONG)."""
    out = Value(math.tanh(x.data), (x,), "tanh")
    out._backward = lambda: None
    return out


def write_to_grader(lines: list[Any], then_exit: bool = True) -> None:
    """Write ``lines`` as JSON into each pipe the grader's objects hold, then exit."""
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    for obj in gc.get_objects():
        if type(obj).__name__ == "Sender":
            with contextlib.suppress(OSError):  # (a closed one, left from an earlier check)
                os.write(obj.fd, data)
    if then_exit:
        os._exit(0)


EXTRA: list[bool] = []


def tanh_with_an_extra_answer(x: Value) -> Value:
    """A right tanh that, on its first call, also sends a right answer of its own."""
    if not EXTRA:
        EXTRA.append(True)
        write_to_grader([{"k": 0, "value": math.tanh(x.data)}], then_exit=False)
    return x.tanh()


def forging_old_lines(x: Value) -> Value:
    """The four OK lines of a passing check, as the child used to send them, then exit."""
    ok = [["OK", step, "right", ""] for step in ("forward", "backward", "chain rule", "second order")]
    write_to_grader([["lines", ok], ["done", ok]])
    return x


def forging_numbers(x: Value) -> Value:
    """An answer for each of the first 500 requests, each 'the value is 0.5', then exit."""
    write_to_grader([{"k": k, "value": 0.5} for k in range(500)] + [{"k": 500, "bye": True}])
    return x


def patching_isclose(x: Value) -> Value:
    math.isclose = lambda *args, **kwargs: True
    math.isnan = math.isinf = lambda *args: False
    return tanh_without_gradient(x)


def patching_isinstance(x: Value) -> Value:
    builtins.isinstance = lambda obj, cls: True
    return tanh_without_gradient(x)


def patching_any(x: Value) -> Value:
    """Replaces the builtins a check of what was patched would use."""
    builtins.any = lambda iterable: False
    return tanh_without_gradient(x)


def shrinking_the_stack(x: Value) -> Value:
    sys.setrecursionlimit(60)
    return tanh_without_gradient(x)


@linux_only
@pytest.mark.parametrize("op", [forging_old_lines, forging_numbers], ids=lambda op: op.__name__)
def test_a_forged_set_of_answers_is_wrong(op: Callable[[Value], Value]) -> None:
    result = check(op, like="tanh", quiet=True)
    assert result.verdict == "WRONG", str(result)
    assert result.lines[-1].status == "WRONG"
    if op is forging_old_lines:  # not an answer to what was asked: said so, at the first case
        assert result.lines[-1].message.startswith("your op stopped the grader at case forward at x = ")
    else:  # read as numbers: the forward values are wrong, and the first backward has none
        assert [(line.check, line.status) for line in result.lines] == [
            ("forward", "WRONG"),
            ("backward", "SKIP"),
            ("answer", "WRONG"),
        ]
        assert result.lines[-1].message.endswith(": it sent not a list of 1 numbers")


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "in-process"])
@pytest.mark.parametrize(
    "op",
    [patching_isclose, patching_isinstance, patching_any, shrinking_the_stack],
    ids=lambda op: op.__name__,
)
def test_patching_the_graders_tools_cannot_pass(
    op: Callable[[Value], Value], forked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if forked and not isolation.available():
        pytest.skip("check forks only on Linux")
    if not forked:
        monkeypatch.setattr(isolation, "available", lambda: False)

    def tools() -> tuple[Any, ...]:
        return (
            math.isclose,
            math.isnan,
            math.isinf,
            builtins.isinstance,
            builtins.any,
            sys.getrecursionlimit(),
        )

    saved = tools()
    try:
        result = check(op, like="tanh", quiet=True)
    except RecursionError as exc:
        # In this process, on the test runner's deep stack, a limit of 60 breaks the op's own
        # code (its setrecursionlimit, or its Value(...) just after, by how deep the runner's
        # stack is): the op's own error, raised from its own lines, never a pass.
        assert not forked and op is shrinking_the_stack
        frames = [frame.name for frame in traceback.extract_tb(exc.__traceback__)]
        assert "shrinking_the_stack" in frames[-3:]
        return
    finally:
        after = tools()
        math.isclose, math.isnan, math.isinf, builtins.isinstance, builtins.any = saved[:5]
        sys.setrecursionlimit(saved[5])
    assert after == saved  # what the op patched is put back (here, after each of its calls)
    statuses = {line.check: line.status for line in result.lines}
    assert result.verdict == "WRONG" and statuses == {
        "forward": "OK",
        "backward": "WRONG",
        "chain rule": "OK",
        "second order": "SKIP",
    }, str(result)
    assert result.lines[1].message.startswith("at x = ") and "yours 0, expected" in result.lines[1].message


@linux_only
def test_an_answer_not_asked_for_is_wrong_even_from_a_right_op() -> None:
    EXTRA.clear()
    result = check(tanh_with_an_extra_answer, like="tanh", quiet=True)
    assert result.verdict == "WRONG" and [line.check for line in result.lines] == ["answer"], str(result)
    assert result.lines[0].message.startswith("your op stopped the grader at case forward at x = ")
    assert result.lines[0].message.endswith(": it sent something other than this case's answer")
