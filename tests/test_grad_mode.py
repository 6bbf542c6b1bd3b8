"""set_grad_enabled as PyTorch has it: a call switches at once; a block or a decorator restores."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from micrograd import Value, enable_grad, is_grad_enabled, no_grad, set_grad_enabled


@pytest.fixture(autouse=True)
def grad_on_after() -> Iterator[None]:
    yield
    set_grad_enabled(True)


def test_called_as_a_function_it_switches_recording_off_and_on() -> None:
    set_grad_enabled(False)
    assert not is_grad_enabled() and (Value(2.0) * Value(3.0))._prev == ()
    set_grad_enabled(True)
    assert is_grad_enabled() and len((Value(2.0) * Value(3.0))._prev) == 2


def test_as_a_block_it_restores_what_was_before_even_on_an_exception() -> None:
    with pytest.raises(ZeroDivisionError), set_grad_enabled(False):
        assert not is_grad_enabled()
        raise ZeroDivisionError
    assert is_grad_enabled()
    with no_grad():
        with set_grad_enabled(True):
            assert is_grad_enabled()
        assert not is_grad_enabled()
        with enable_grad(), set_grad_enabled(False):
            assert not is_grad_enabled()
        assert not is_grad_enabled()
    assert is_grad_enabled()


def test_as_a_decorator_it_switches_only_inside_the_function() -> None:
    @set_grad_enabled(False)
    def predict(v: Value) -> Value:
        assert not is_grad_enabled()
        return v * v

    assert is_grad_enabled()  # decorating switched nothing
    assert predict(Value(3.0))._prev == () and is_grad_enabled()


def test_it_is_per_thread_and_refuses_a_non_bool() -> None:
    set_grad_enabled(False)
    seen: list[bool] = []
    t = threading.Thread(target=lambda: seen.append(is_grad_enabled()))
    t.start()
    t.join()
    assert seen == [True] and not is_grad_enabled()
    with pytest.raises(TypeError, match="set_grad_enabled expects a bool, got int: 0"):
        set_grad_enabled(0)  # type: ignore[arg-type]
