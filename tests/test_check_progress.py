"""micrograd.exercises.check shows each line as it is decided, stops at an overall time limit with
the lines decided so far, and does not take a forged answer from the process running the op for
its checks (issue 44)."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time

import pytest

from micrograd import Value
from micrograd.exercises import check, isolation
from tests.test_check_engine_table import Clock


def slow_tanh(x: Value) -> Value:
    time.sleep(0.5)  # a student's op that takes half a second a call
    return x.tanh()


def test_a_slow_op_shows_its_lines_as_they_come_and_stops_at_the_total_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(sys, "stdout", clock)
    started = time.monotonic()
    result = check(slow_tanh, like="tanh", points=[0.5, 1.0], total_timeout=3.0)
    took = time.monotonic() - started
    assert result.verdict == "TIMED OUT" and took < 6
    assert [line.check for line in result.lines] == ["forward", "total"]
    assert result.lines[0].status == "OK"
    assert result.lines[1].message.startswith("check ran longer than 3 s in all and was stopped at x = ")
    assert "total_timeout=" in result.lines[1].hint
    printed = dict((text.split(":")[0], t) for t, text in clock.lines)
    assert printed["OK    forward"] - started < took - 1.0  # shown a second or more before the end
    assert clock.lines[-1][1] == "verdict: TIMED OUT (total)"


def test_without_fork_the_total_limit_holds_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolation, "available", lambda: False)
    result = check(slow_tanh, like="tanh", points=[0.5, 1.0], total_timeout=2.0, quiet=True)
    assert result.verdict == "TIMED OUT" and result.lines[-1].check == "total"


def test_a_bad_total_timeout_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="total_timeout must be a positive number of seconds or None"):
        check(lambda x: x.tanh(), like="tanh", total_timeout=-1)


def into_the_pipe(data: bytes) -> None:
    """Write ``data`` into each pipe the grader's objects hold open, then exit."""
    for obj in gc.get_objects():
        if type(obj).__name__ == "Sender":
            with contextlib.suppress(OSError):  # (a closed one, left from an earlier check)
                os.write(obj.fd, data)
    os._exit(0)


def forging_tanh(x: Value) -> Value:
    """Finds the pipe to the grader, sends one OK line as the whole answer, and exits."""
    into_the_pipe(b'["done", [["OK", "everything", "right", ""]]]\n')
    return x.tanh()


def garbling_tanh(x: Value) -> Value:
    """Writes what is no message into the grader's pipe, and exits."""
    into_the_pipe(b'["done", "RIGHT"]\n')
    return x.tanh()


@pytest.mark.skipif(not isolation.available(), reason="check forks only on Linux")
def test_a_forged_answer_is_wrong_not_right() -> None:
    result = check(forging_tanh, like="tanh", quiet=True)
    assert result.verdict == "WRONG", str(result)
    assert [line.check for line in result.lines] == ["answer"]  # nothing was decided before it
    message = result.lines[-1].message
    assert message.startswith("your op stopped the grader at case forward at x = ")
    assert message.endswith(": it sent an answer that is not a record")
    garbled = check(garbling_tanh, like="tanh", quiet=True).lines[-1]
    assert garbled.status == "WRONG"
    assert garbled.message.startswith("your op stopped the grader at case forward at x = ")


FIRST_PID = os.getpid()


def tanh_that_raises_only_in_the_child(x: Value) -> Value:
    if os.getpid() != FIRST_PID:
        raise TypeError("only where the grader's child runs me")
    return x.tanh()


@pytest.mark.skipif(not isolation.available(), reason="check forks only on Linux")
def test_an_op_that_raises_in_the_child_is_raised_here_without_running_it_again() -> None:
    with pytest.raises(TypeError, match="only where the grader's child runs me") as info:
        check(tanh_that_raises_only_in_the_child, like="tanh", quiet=True)
    (child,) = [n for n in info.value.__notes__ if n.startswith("(in the process that ran your op:)")]
    assert "in tanh_that_raises_only_in_the_child" in child


def test_every_line_is_shown_once_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    result = check(lambda x: x.tanh(), like="tanh")
    shown = capsys.readouterr().out.splitlines()
    assert shown == [*(line.text() for line in result.lines), "verdict: RIGHT"]
    assert type(result.lines) is list  # a plain list once the check is over
