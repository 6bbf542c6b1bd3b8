"""No silent answers from the engine (issue 34): PyTorch's numbers at signed zeros and nan,
``backward()`` safe in threads, and ``.data`` of a traced Value reported as ``float()`` is."""

from __future__ import annotations

import gc
import itertools
import math
import sys
import threading
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd import Value, func
from micrograd.func.reverse import add_passes_into_grad
from micrograd.func.transforms import TracedValueReadWarning
from tests.dag_recipes import build, recipes


def sign(x: float) -> float:
    return math.copysign(1.0, x)


def same(a: float, b: float) -> bool:
    """Equal bit for bit, as far as floats go: nan is nan, and 0.0 is not -0.0."""
    return (math.isnan(a) and math.isnan(b)) or (a == b and sign(a) == sign(b))


def give_grad(x: Value, start: object) -> None:
    """``x.grad = start``; "a sum of zeros" is a 0.0 that backward() summed (ZERO_SUM), not a fresh 0.0."""
    if start == "a sum of zeros":
        x.grad = 0.0
        (x * 0.0).backward()
        (x * -0.0).backward()
    else:
        x.grad = start  # type: ignore[assignment]


# ---- the sign of an accumulated zero ---------------------------------------------------------


def test_an_accumulated_zero_is_positive_as_in_pytorch() -> None:
    x = Value(1.0)
    for c in (-0.0, 0.0, -0.0):
        (x * c).backward()
    assert x.grad == 0.0 and sign(x.grad) == 1.0  # torch: 0.0 (it was -0.0)


def test_the_first_gradient_keeps_its_sign_and_a_reset_grad_is_fresh() -> None:
    x = Value(1.0)
    (x * -0.0).backward()
    assert sign(x.grad) == -1.0  # torch's grad is None, then set to -0.0
    x.grad = 0.0  # zero_grad: no gradient yet, as torch's zero_grad(set_to_none=True)
    (x * -0.0).backward()
    assert sign(x.grad) == -1.0


def test_sequences_of_signed_zero_gradients_accumulate_as_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    steps = (-0.0, 0.0, 1.0, -1.0)
    for n in range(1, 5):
        for seq in itertools.product(steps, repeat=n):
            x = Value(2.0)
            t = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
            for c in seq:
                (x * c).backward()
                (t * c).backward()
                assert same(x.grad, t.grad.item()), (seq, x.grad, t.grad.item())


def test_a_node_used_twice_sums_signed_zeros_as_in_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for a, b in itertools.product((-0.0, 0.0), repeat=2):
        x = Value(1.0)
        (x * a + x * b).backward()
        t = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
        (t * a + t * b).backward()
        assert same(x.grad, t.grad.item()), (a, b)


SPECIAL = st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e16, -1e16, 3.5, math.inf, -math.inf, math.nan])


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(0, 10))
def test_many_passes_added_at_once_are_the_passes_one_by_one(data: st.DataObject, n: int, k: int) -> None:
    """add_passes_into_grad (a compiled step's gradients of k samples into n .grads, in one go) leaves
    what k backward() passes leave, one after the other: signed zeros, sums of zeros, inf, nan,
    a .grad of None or an int."""
    # (None: no gradient yet; ints: micrograd 0.1.0's p.grad = 0)
    other_starts = st.sampled_from(["a sum of zeros", None, 0, 2])
    starts = data.draw(st.lists(st.one_of(SPECIAL, other_starts), min_size=n, max_size=n))
    rows = data.draw(st.lists(st.lists(SPECIAL, min_size=n, max_size=n), min_size=k, max_size=k))
    reached = data.draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=k, max_size=k))
    at_once, one_by_one = [Value(1.0) for _ in range(n)], [Value(1.0) for _ in range(n)]
    for a, b, start in zip(at_once, one_by_one, starts):
        give_grad(a, start)
        give_grad(b, start)
    add_passes_into_grad(at_once, rows, reached)
    for row, hits in zip(rows, reached):
        for x, g, hit in zip(one_by_one, row, hits):
            if hit:
                (x * g).backward()  # d(x * g)/dx = g, added as backward() adds
    for a, b in zip(at_once, one_by_one):
        assert type(a.grad) is type(b.grad), (starts, rows, reached)
        assert a.grad is None or same(a.grad, b.grad), (starts, rows, reached)
    # and a zero summed reads as a sum to the next pass
    for a, b in zip(at_once, one_by_one):
        (a * -0.0).backward()
        (b * -0.0).backward()
        assert same(a.grad, b.grad), (starts, rows, reached)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_watched_backward_adds_into_grad_as_the_plain_one_does(data: st.DataObject) -> None:
    """With a hook registered (the watched path, as under detect_anomaly or create_graph), each
    .grad ends as the plain loop leaves it, from any start: None and micrograd 0.1.0's int 0 are no
    gradient yet (a -0.0 first gradient keeps its sign), a sum of zeros stays one."""
    start = data.draw(st.one_of(SPECIAL, st.sampled_from(["a sum of zeros", None, 0, 2, Value(0.0)])))
    gradients = data.draw(st.lists(SPECIAL, min_size=1, max_size=4))
    plain, watched = Value(1.0), Value(1.0)
    give_grad(plain, start)
    give_grad(watched, start)
    with Value(0.0).register_hook(lambda g: None):  # (a hook anywhere: backward() takes the watched path)
        for g in gradients:
            (watched * g).backward()
    for g in gradients:
        (plain * g).backward()
    assert type(plain.grad) is type(watched.grad), (start, gradients)
    assert same(plain.grad, watched.grad), (start, gradients, plain.grad, watched.grad)
    (plain * -0.0).backward()  # and a zero summed reads as a sum to the next pass
    with Value(0.0).register_hook(lambda g: None):
        (watched * -0.0).backward()
    assert same(plain.grad, watched.grad), (start, gradients, plain.grad, watched.grad)


@settings(max_examples=150, deadline=None)
@given(recipes(max_steps=12), st.sampled_from([0.0, -0.0, None, 0, 1.5]), st.sampled_from([1.0, 0.0, -0.0]))
def test_on_random_graphs_the_watched_backward_leaves_the_plain_ones_grads(
    recipe: tuple[list[float], list[Any]], start: float | None, scale: float
) -> None:
    """Every op of the engine, kinks and signed zeros included: a backward() with a hook registered
    anywhere (the watched path) leaves each input's .grad as the plain loop does, bit for bit.
    (The root times a ``scale`` of 0.0 or -0.0 makes every gradient a signed zero.)"""
    (plain_xs, plain), (watched_xs, watched) = (
        build(recipe, skip_unsafe=False),
        build(recipe, skip_unsafe=False),
    )
    for x in (*plain_xs, *watched_xs):
        x.grad = start  # type: ignore[assignment]
    (plain * scale).backward()
    with Value(0.0).register_hook(lambda g: None):
        (watched * scale).backward()
    for a, b in zip(plain_xs, watched_xs):
        assert type(a.grad) is type(b.grad), (start, a.grad, b.grad)
        assert a.grad is None or same(a.grad, b.grad), (start, a.grad, b.grad)


# ---- nan: elu, clamp -------------------------------------------------------------------------


def test_elu_at_nan_has_pytorchs_gradient() -> None:
    torch = pytest.importorskip("torch")
    for alpha in (1.0, 0.5):
        x = Value(math.nan)
        y = x.elu(alpha)
        y.backward()
        t = torch.tensor(math.nan, dtype=torch.float64, requires_grad=True)
        torch.nn.functional.elu(t, alpha).backward()
        assert math.isnan(y.data)
        assert same(x.grad, t.grad.item()) and x.grad == 1.0


@pytest.mark.parametrize(
    "x, low, high",
    [
        (1.0, math.nan, None),
        (1.0, None, math.nan),
        (-3.0, math.nan, 2.0),
        (0.5, 0.0, math.nan),
        (math.nan, 0.0, 1.0),
    ],
)
def test_clamp_with_a_nan_follows_torch_clamp(x: float, low: float | None, high: float | None) -> None:
    torch = pytest.importorskip("torch")
    v = Value(x)
    out = v.clamp(min=low, max=high)
    out.backward()
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    t_out = torch.clamp(t, min=low, max=high)
    t_out.backward()
    assert same(out.data, t_out.item())
    assert same(v.grad, t.grad.item())


# ---- threads ---------------------------------------------------------------------------------


def test_backward_in_many_threads_never_leaves_the_collector_off() -> None:
    assert gc.isenabled()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(30):
                x = Value(0.5)
                y = x
                for _ in range(50):
                    y = (y * x + 0.25).tanh()
                y.backward()
        except BaseException as exc:  # (reported below)
            failures.append(exc)

    try:
        for _ in range(10):
            threads = [threading.Thread(target=work) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert gc.isenabled()
    finally:
        sys.setswitchinterval(interval)
    assert not failures


# ---- .data of a traced Value -----------------------------------------------------------------


def test_reading_data_of_a_traced_value_warns_as_float_does() -> None:
    with pytest.warns(TracedValueReadWarning, match=r"x\.data"):
        assert func.grad(lambda x: x.data * x)(3.0) == 3.0  # the constant's gradient: the warning says why
    with pytest.warns(TracedValueReadWarning, match=r"x\.data"):
        func.jvp(lambda x: x.data * x, (3.0,), (1.0,))
    with pytest.warns(TracedValueReadWarning) as caught:
        func.grad(lambda x: x.data * x)(3.0)
    assert caught[0].filename == __file__  # at the line of the function that read it


def test_the_engine_and_ordinary_values_read_data_silently() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert func.grad(lambda x: (x * x).tanh())(0.0) == 0.0
        assert func.grad(lambda x: x * x * x)(2.0) == 12.0
        assert func.grad(func.grad(lambda x: x * x * x))(2.0) == 12.0
        v = Value(2.0)
        assert v.data == 2.0  # outside a transform: the plain slot
    assert type(Value(1.0)).__dict__["data"].__class__.__name__ == "member_descriptor"
