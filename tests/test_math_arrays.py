"""``micrograd.math`` on arrays: float64 arrays (the compiled replay's, taken as they are) and any
other array (converted first) give the float functions' bits element by element, without a
warning, inside ``numpy_errors.silenced()`` or not; ``silenced()`` in one thread leaves another's
errstate alone."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd import math as mm
from micrograd.math import floats as fmath
from micrograd.math.numpy_errors import quiet, silenced
from tests.float_bits import bits

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, 1e-308, -5e-324, -2.0, 1.0, 0.5, 3.0]
numbers = st.one_of(st.sampled_from(SPECIAL), st.floats(allow_nan=True, allow_infinity=True))

# (name, the array function, the float one, how many operands)
FUNCTIONS: list[tuple[str, Callable[..., Any], Callable[..., float], int]] = [
    ("div", mm.div, fmath.div, 2),
    ("pow", mm.pow, fmath.pow, 2),
    ("exp", mm.exp, fmath.exp, 1),
    ("log", mm.log, fmath.log, 1),
    ("sqrt", mm.sqrt, fmath.sqrt, 1),
]


def as_given(xs: list[float], kind: str) -> Any:
    """``xs`` as a caller passes them: a float64 array, a strided view, or a big-endian one (converted)."""
    if kind == "float64":
        return np.array(xs)
    if kind == "view":
        return np.repeat(np.array(xs), 2)[::2]
    return np.array(xs, dtype=">f8")


@pytest.mark.parametrize("kind", ["float64", "view", "big-endian"])
@pytest.mark.parametrize("inside", [False, True])
@pytest.mark.parametrize(("name", "array_fn", "float_fn", "arity"), FUNCTIONS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_arrays_give_the_float_functions_bits_without_a_warning(
    name: str,
    array_fn: Callable[..., Any],
    float_fn: Callable[..., float],
    arity: int,
    inside: bool,
    kind: str,
    data: st.DataObject,
) -> None:
    size = data.draw(st.integers(1, 6))
    operands = [data.draw(st.lists(numbers, min_size=size, max_size=size)) for _ in range(arity)]
    if name == "pow" and data.draw(st.booleans()):  # x ** n: one exponent, a float (PowConst's)
        exponent = data.draw(numbers)
        given_ = [as_given(operands[0], kind), exponent]
        expected = [float_fn(x, exponent) for x in operands[0]]
    else:
        given_ = [as_given(xs, kind) for xs in operands]
        expected = [float_fn(*xs) for xs in zip(*operands)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (inf and nan are results, never a warning)
        if inside:
            with silenced():
                got = array_fn(*given_)
        else:
            got = array_fn(*given_)
    assert got.dtype == np.float64
    assert bits(got.tolist()) == bits(expected)


def test_silenced_ignores_numpys_errors_in_its_block_only() -> None:
    before = np.geterr()
    with silenced():
        assert set(np.geterr().values()) == {"ignore"}
        with quiet():  # (nothing more to enter: numpy's own state stays the block's)
            assert set(np.geterr().values()) == {"ignore"}
    assert np.geterr() == before
    with quiet():
        assert set(np.geterr().values()) == {"ignore"}


def test_silenced_in_one_thread_leaves_another_threads_errstate_alone() -> None:
    inside, done = threading.Event(), threading.Event()
    seen: list[Any] = []

    def other_thread() -> None:
        inside.wait(5)
        seen.append(np.geterr())
        with np.errstate(divide="raise"), quiet():  # this thread's own choice, then quiet()'s errstate
            seen.append(mm.div(np.array([1.0]), np.array([0.0])).tolist())
        done.set()

    worker = threading.Thread(target=other_thread)
    worker.start()
    with silenced():
        inside.set()
        assert done.wait(5)
    worker.join()
    assert seen[0]["divide"] != "ignore"  # (numpy's default, not the other thread's block)
    assert seen[1] == [np.inf]
