"""Compiled training on flat parameters (``micrograd.compiler.flat``): ``compile_loss()`` and the
optimizers hand the parameters on as arrays, and the training is the eager one, bit for bit,
with ``.data`` and ``.grad`` read and set between steps."""

from __future__ import annotations

import math
import random
import warnings
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from micrograd import Value
from nn import GPT, optim

np = pytest.importorskip("numpy")

from micrograd._core.bookkeeping import ZERO_SUM, add_rows_into_grad  # noqa: E402
from micrograd.compiler import RetraceWarning  # noqa: E402
from micrograd.compiler.flat import FlatParams, shared  # noqa: E402
from tests.float_bits import bits  # noqa: E402

VOCAB, BLOCK = 4, 5


def docs(seed: int, n: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [
        [VOCAB - 1, *[rng.randrange(VOCAB - 1) for _ in range(rng.randint(1, BLOCK - 1))], VOCAB - 1]
        for _ in range(n)
    ]


def pair(seed: int = 0) -> tuple[GPT, GPT]:
    """Two copies of one small GPT: one to train compiled, one eagerly."""
    return (
        GPT(VOCAB, BLOCK, n_layer=1, n_embd=4, n_head=2, seed=seed),
        GPT(VOCAB, BLOCK, n_layer=1, n_embd=4, n_head=2, seed=seed),
    )


def eager_backward(model: GPT, doc: list[int]) -> float:
    """The eager loss and backward on the ids as Values (the graph ``compile_loss`` traces)."""
    loss = model.loss([Value(float(t)) for t in doc])
    loss.backward()
    return loss.data


def make(kind: str, params: list[Value], fast: bool) -> Any:
    opt = (
        optim.Adam(params, lr=0.05, betas=(0.85, 0.99), eps=1e-8)
        if kind == "adam"
        else optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    )
    opt.fast = fast
    return opt


@pytest.mark.parametrize("kind, steps", [("adam", 1000), ("sgd", 300)])
def test_compiled_training_on_arrays_is_the_eager_training_bit_for_bit(kind: str, steps: int) -> None:
    flat_model, eager_model = pair()
    replay = flat_model.compile_loss()
    flat_opt, eager_opt = (
        make(kind, flat_model.parameters(), True),
        make(kind, eager_model.parameters(), False),
    )
    for step, doc in enumerate(docs(1, steps)):
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        assert bits([replay.backward(doc)]) == bits([eager_backward(eager_model, doc)]), step
        flat_opt.lr = eager_opt.lr = 0.05 * (1 - step / steps)
        flat_opt.step()
        eager_opt.step()
        if step % 100 == 0 or step == steps - 1:
            assert bits([p.data for p in flat_model.parameters()]) == bits(
                [p.data for p in eager_model.parameters()]
            ), step
    assert flat_opt._flat is replay.flat is shared(flat_model.parameters())  # (the arrays were shared)
    assert not isinstance(flat_opt.exp_avg if kind == "adam" else flat_opt.momentum_buffers, list)


EDIT = st.tuples(
    st.integers(0, 29),  # the step before which it happens
    st.sampled_from(["data", "grad", "read"]),
    st.integers(0, 10_000),  # which parameter (mod their count)
    st.sampled_from([0.0, -0.0, 0.5, -3.0, 7, 1e-300]),
)


@settings(max_examples=12, deadline=None)
@given(kind=st.sampled_from(["adam", "sgd"]), edits=st.lists(EDIT, max_size=8), seed=st.integers(0, 50))
# (a .data of 7 sends SGD's training to nan losses: both sides' nan, which == never calls equal)
@example(kind="sgd", edits=[(0, "data", 0, 0.0), (0, "data", 6151, 7), (7, "data", 155, 7)], seed=0)
def test_data_and_grad_set_or_read_between_steps_take_effect(kind: str, edits: list[Any], seed: int) -> None:
    flat_model, eager_model = pair(seed)
    replay = flat_model.compile_loss()
    flat_ps, eager_ps = flat_model.parameters(), eager_model.parameters()
    flat_opt, eager_opt = make(kind, flat_ps, True), make(kind, eager_ps, False)
    for step, doc in enumerate(docs(seed, 30)):
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        for at, what, which, x in edits:
            if at == step and what == "data":  # as load_state_dict sets it
                flat_ps[which % len(flat_ps)].data = eager_ps[which % len(eager_ps)].data = x
        assert bits([replay.backward(doc)]) == bits([eager_backward(eager_model, doc)]), step
        for at, what, which, x in edits:
            if at == step and what == "grad":  # clipping a gradient, between backward and step
                flat_ps[which % len(flat_ps)].grad = eager_ps[which % len(eager_ps)].grad = x
            if at == step and what == "read":
                assert bits([flat_ps[which % len(flat_ps)].grad]) == bits(
                    [eager_ps[which % len(eager_ps)].grad]
                )
        flat_opt.step()
        eager_opt.step()
        assert bits([p.data for p in flat_ps]) == bits([p.data for p in eager_ps]), step


def test_a_replaced_parameter_still_retraces_with_a_warning_and_training_goes_on_exact() -> None:
    flat_model, eager_model = pair(3)
    replay = flat_model.compile_loss()
    flat_opt, eager_opt = (
        make("adam", flat_model.parameters(), True),
        make("adam", eager_model.parameters(), False),
    )
    for step, doc in enumerate(docs(3, 20)):
        if step == 10:  # the same new Value in each: the optimizers are made again for it
            flat_model.wte.weight[0][0] = Value(0.25)
            eager_model.wte.weight[0][0] = Value(0.25)
            flat_opt = make("adam", flat_model.parameters(), True)
            eager_opt = make("adam", eager_model.parameters(), False)
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert bits([replay.backward(doc)]) == bits([eager_backward(eager_model, doc)])
        assert any(issubclass(w.category, RetraceWarning) for w in caught) == (step == 10)
        flat_opt.step()
        eager_opt.step()
        assert bits([p.data for p in flat_model.parameters()]) == bits(
            [p.data for p in eager_model.parameters()]
        )


def test_a_compiled_step_given_the_model_still_refuses_a_replaced_parameter() -> None:
    import micrograd
    from micrograd.compiler import ReplacedParameterError

    model, _ = pair()
    step = micrograd.compile(lambda xs: model.loss(list(xs)), (np.array([3.0, 0.0, 3.0]),), params=model)
    opt = make("adam", model.parameters(), True)
    step.backward(np.array([3.0, 1.0, 3.0]))
    opt.step()
    model.lm_head.weight[1][2] = Value(1.0)
    with pytest.raises(ReplacedParameterError, match="lm_head"):
        step.backward(np.array([3.0, 1.0, 3.0]))


GRAD = st.sampled_from([0.0, -0.0, 1.5, -2.0, math.inf, math.nan, 1e-310])


STARTS = st.lists(st.sampled_from(["fresh", "-fresh", "sum", 0.75, -0.0, 3]), min_size=1, max_size=6)


def grads_from(start: list[Any]) -> tuple[list[Value], list[Value]]:
    """Two lists of Values whose ``.grad``s start as ``start`` says: "fresh" (one zero object, as
    zero_grad() leaves in every .grad), "-fresh" (its negative), "sum" (ZERO_SUM), or a number."""
    zero = float("0")
    starts = {"fresh": zero, "-fresh": -zero, "sum": ZERO_SUM}

    def fill() -> list[Value]:
        vs = [Value(1.0) for _ in start]
        for v, s in zip(vs, start):
            v.grad = starts.get(s, s)
        return vs

    return fill(), fill()


def assert_same_grads(got: list[Value], want: list[Value]) -> None:
    """The same ``.grad``s: bits, types, and which are the marked sum of zeros ``ZERO_SUM``."""
    assert bits([v.grad for v in got]) == bits([v.grad for v in want])
    assert [v.grad is ZERO_SUM for v in got] == [v.grad is ZERO_SUM for v in want]
    assert [type(v.grad) for v in got] == [type(v.grad) for v in want]


@settings(max_examples=200, deadline=None)
@given(start=STARTS, data=st.data())
def test_add_grad_is_add_rows_into_grad(start: list[Any], data: Any) -> None:
    n = len(start)
    grads = np.array(data.draw(st.lists(GRAD, min_size=n, max_size=n)))
    reached = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    flat_vs, ref_vs = grads_from(start)
    FlatParams(flat_vs).add_grad(grads, reached)
    add_rows_into_grad(ref_vs, grads[None, :], reached[None, :])
    assert_same_grads(flat_vs, ref_vs)


@settings(max_examples=300, deadline=None)
@given(
    # (most all fresh, as zero_grad() leaves them: the path that writes over them as it checks)
    start=st.one_of(STARTS, st.integers(1, 6).map(lambda n: ["fresh"] * n)),
    passes=st.integers(1, 4),
    data=st.data(),
)
def test_add_rows_is_add_rows_into_grad(start: list[Any], passes: int, data: Any) -> None:
    n = len(start)

    def table(item: Any) -> Any:  # ``passes`` rows of n
        row = st.lists(item, min_size=n, max_size=n)
        return np.array(data.draw(st.lists(row, min_size=passes, max_size=passes)))

    rows, reached = table(GRAD), table(st.booleans())
    flat_vs, ref_vs = grads_from(start)
    before = [v.grad for v in flat_vs]
    flat = FlatParams(flat_vs)
    flat.add_rows(rows, reached)
    add_rows_into_grad(ref_vs, rows, reached)
    assert_same_grads(flat_vs, ref_vs)
    untouched = ~reached.any(axis=0)
    assert all(v.grad is b for v, b, u in zip(flat_vs, before, untouched) if u)  # (the very object)
    assert bits(flat.grad().tolist()) == bits([float(v.grad) for v in ref_vs])  # (the array kept: the .grads)


def test_the_arrays_follow_the_values_and_are_shared_by_the_same_list() -> None:
    a, b = Value(1.0), Value(2.0)
    flat = shared([a, b])
    assert shared((a, b)) is flat and shared([b, a]) is not flat
    assert flat.data().tolist() == [1.0, 2.0] and not flat.data().flags.writeable
    a.data = -0.0  # a new float object, the same number to ==: read again
    assert bits(flat.data().tolist()) == bits([-0.0, 2.0])
    b.data = "two"  # type: ignore[assignment]
    assert flat.data() is None  # (no array: the caller's scalar path says what is wrong)
    b.grad = 4
    assert flat.grad().tolist() == [0.0, 4.0]


@pytest.mark.parametrize("kind", ["adam", "sgd"])
def test_an_optimizer_whose_list_was_changed_steps_the_values_it_holds_now(kind: str) -> None:
    def run(fast: bool) -> list[float]:
        a, b, c = Value(1.0), Value(2.0), Value(3.0)
        opt = make(kind, [a, b], fast)
        for v, g in ((a, 0.5), (b, -1.0), (c, 2.0)):
            v.grad = g
        opt.step()
        opt.params[1] = c  # (in place: the arrays are of the old list)
        opt.step()
        return [a.data, b.data, c.data]

    assert bits(run(True)) == bits(run(False))


def test_an_int_past_the_floats_takes_the_scalar_loop_and_its_error() -> None:
    a, b = Value(1.0), Value(2.0)
    assert shared([a, b]).data() is not None
    b.data = 10**400
    assert shared([a, b]).data() is None
    opt = make("sgd", [a, b], True)
    a.grad = b.grad = 1.0
    with pytest.raises(OverflowError):  # the loop's own: 10**400 times a float
        opt.step()


@settings(max_examples=6, deadline=None)
@given(edits=st.lists(EDIT, max_size=6), seed=st.integers(0, 50))
def test_batched_training_keeps_its_grads_as_arrays_and_follows_edits(edits: list[Any], seed: int) -> None:
    # the batched step hands Adam the .grads it wrote as an array (FlatParams.add_rows): a .grad
    # or .data set between steps must still be what the next step reads
    flat_model, eager_model = pair(seed)
    replay = flat_model.compile_loss(batched=True)
    flat_ps, eager_ps = flat_model.parameters(), eager_model.parameters()
    flat_opt, eager_opt = make("adam", flat_ps, True), make("adam", eager_ps, False)
    batches = docs(seed, 4 * 12)
    for step in range(12):
        batch = batches[4 * step : 4 * step + 4]
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        for at, what, which, x in edits:
            if at % 12 == step and what == "data":
                flat_ps[which % len(flat_ps)].data = eager_ps[which % len(eager_ps)].data = x
        losses = replay.backward(batch)
        assert losses == [eager_backward(eager_model, d) for d in batch], step
        for at, what, which, x in edits:
            if at % 12 == step and what == "grad":
                flat_ps[which % len(flat_ps)].grad = eager_ps[which % len(eager_ps)].grad = x
        assert bits([p.grad for p in flat_ps]) == bits([p.grad for p in eager_ps]), step
        flat_opt.step()
        eager_opt.step()
        assert bits([p.data for p in flat_ps]) == bits([p.data for p in eager_ps]), step


@pytest.mark.parametrize("kind", ["adam", "sgd"])
@pytest.mark.parametrize("what", ["data", "grad", "same number"])
@pytest.mark.parametrize("where", [0, "middle", -1])
def test_a_value_set_between_backward_and_step_is_read(kind: str, what: str, where: Any) -> None:
    # the optimizer computes on the arrays it knows and checks each .data and .grad as it writes
    # (FlatParams.write_data_if_unchanged): one set since, even the last, makes it read them all
    flat_model, eager_model = pair(5)
    replay = flat_model.compile_loss()
    flat_ps, eager_ps = flat_model.parameters(), eager_model.parameters()
    at = len(flat_ps) // 2 if where == "middle" else where
    flat_opt, eager_opt = make(kind, flat_ps, True), make(kind, eager_ps, False)
    for step, doc in enumerate(docs(5, 4)):
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        assert bits([replay.backward(doc)]) == bits([eager_backward(eager_model, doc)])
        if step == 2:
            if what == "same number":  # an equal float, another object: the same numbers either way
                flat_ps[at].grad = float(repr(flat_ps[at].grad))
            else:
                setattr(flat_ps[at], what, 0.125)
                setattr(eager_ps[at], what, 0.125)
        flat_opt.step()
        eager_opt.step()
        assert bits([p.data for p in flat_ps]) == bits([p.data for p in eager_ps]), step


def test_write_data_if_unchanged_writes_nothing_after_a_change() -> None:
    vs = [Value(float(i)) for i in range(5)]
    flat = FlatParams(vs)
    data, _ = flat.data(), flat.grad()
    assert flat.known() is not None
    before = [v.data for v in vs]
    vs[-1].grad = float("0")  # the same number, another object: not what the arrays were made of
    assert not flat.write_data_if_unchanged(data + 1.0)
    assert all(v.data is x for v, x in zip(vs, before))  # (the four written first, set back)
    _ = flat.grad()  # read again: now known
    assert flat.write_data_if_unchanged(data + 1.0) and [v.data for v in vs] == [1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("late", [-0.0, ZERO_SUM, 0, 2.5])
def test_add_grad_over_fresh_zeros_but_the_last_is_add_rows_into_grad(late: Any) -> None:
    # add_grad writes while every .grad is the first one's zero object; the last not: set back, and
    # added by the general rule
    n = 7
    grads = np.array([1.0, -0.0, 0.0, -2.0, 3.0, -0.0, -0.0])
    reached = np.array([True, True, True, False, True, True, True])
    zero = float("0")

    def fill() -> list[Value]:
        vs = [Value(1.0) for _ in range(n)]
        for v in vs:
            v.grad = zero
        vs[-1].grad = late
        return vs

    flat_vs, ref_vs = fill(), fill()
    flat = FlatParams(flat_vs)
    flat.add_grad(grads, reached)
    add_rows_into_grad(ref_vs, grads[None, :], reached[None, :])
    assert_same_grads(flat_vs, ref_vs)
    assert flat_vs[3].grad is zero  # (not reached: the very object)
    assert bits(flat.grad().tolist()) == bits([float(v.grad) for v in ref_vs])


def test_flat_params_refuse_a_value_twice() -> None:
    a = Value(1.0)
    with pytest.raises(ValueError, match="more than once"):
        FlatParams([a, Value(2.0), a])


def train_pair(flat_model: GPT, eager_model: GPT, steps: int, between: Any) -> None:
    """``steps`` compiled steps (an array optimizer) beside eager ones, ``between(step)`` called after
    each; the same losses and, at the end, the same numbers, bit for bit."""
    replay = flat_model.compile_loss()
    flat_opt = make("adam", flat_model.parameters(), True)
    eager_opt = make("adam", eager_model.parameters(), False)
    for step, doc in enumerate(docs(7, steps)):
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        assert bits([replay.backward(doc)]) == bits([eager_backward(eager_model, doc)]), step
        flat_opt.step()
        eager_opt.step()
        between(step)
    assert bits([p.data for p in flat_model.parameters()]) == bits([p.data for p in eager_model.parameters()])


def test_after_an_array_step_the_parameters_are_held_until_one_is_looked_at() -> None:
    model, _ = pair(7)
    params = model.parameters()
    replay, opt = model.compile_loss(), make("sgd", params, True)
    for doc in docs(7, 3):
        opt.zero_grad()
        replay.backward(doc)
        opt.step()
    assert all(type(p).__name__ == "HeldValue" and isinstance(p, Value) for p in params)
    _ = params[-1].grad  # one look, at the last parameter's .grad
    assert all(type(p) is Value for p in params)


def one_zero_shared(params: list[Value]) -> list[int]:
    """Where the ``.grad``s are one zero object, shared (zero_grad()'s, where no gradient reached)."""
    ids = [id(p.grad) for p in params]
    return [i for i, p in enumerate(params) if not p.grad and ids.count(ids[i]) > 1]


def test_held_gradients_come_back_as_backward_leaves_them() -> None:
    # after a step the .grads are held; the next backward's are read between backward and step:
    # the very objects backward() leaves (a +0.0 sum marked ZERO_SUM, an unreached .grad the zero)
    flat_model, eager_model = pair(9)
    replay = flat_model.compile_loss()
    flat_ps, eager_ps = flat_model.parameters(), eager_model.parameters()
    flat_opt, eager_opt = make("adam", flat_ps, True), make("adam", eager_ps, False)
    held = 0
    for step, doc in enumerate(docs(9, 12)):
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        traced = len(replay.traces)
        replay.backward(doc)
        eager_backward(eager_model, doc)
        if step % 2:
            # (held since the last step, unless a new length was traced: tracing looks at them)
            assert (type(flat_ps[0]).__name__ == "HeldValue") == (len(replay.traces) == traced)
            held += type(flat_ps[0]).__name__ == "HeldValue"
            assert_same_grads(flat_ps, eager_ps)
            assert one_zero_shared(flat_ps) == one_zero_shared(eager_ps)  # (the unreached)
        flat_opt.step()
        eager_opt.step()
    assert held >= 3


def test_held_parameters_read_by_the_eager_engine_copy_and_pickle_as_plain_values() -> None:
    import copy
    import pickle

    flat_model, eager_model = pair(11)
    looks: list[Any] = []

    def look(step: int) -> None:
        flat_p, eager_p = flat_model.lm_head.weight[1][2], eager_model.lm_head.weight[1][2]
        if type(flat_p).__name__ != "HeldValue":
            return  # (written, not held: looked at every time it was held, see the next test)
        if len(looks) % 4 == 0:  # the eager engine reads them: a loss between steps, as sampling would
            loss = flat_model.loss([Value(3.0), Value(1.0)])
            assert bits([loss.data]) == bits([eager_model.loss([Value(3.0), Value(1.0)]).data])
        else:
            how = [copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))][len(looks) % 4 - 1]
            twin = how(flat_p)
            assert type(twin) is Value and bits([twin.data, twin.grad]) == bits([eager_p.data, eager_p.grad])
        assert type(flat_p) is Value
        looks.append(step)

    train_pair(flat_model, eager_model, 16, look)
    assert len(looks) >= 4


def test_parameters_looked_at_after_every_step_are_soon_written_not_held() -> None:
    # holding pays only if a step reads the arrays before something looks at the Values: else
    # they are written at the next steps, 1, 2, 4, ... of them, before holding is tried again
    flat_model, eager_model = pair(12)
    held: list[int] = []

    def look(step: int) -> None:
        if type(flat_model.parameters()[0]).__name__ == "HeldValue":
            held.append(step)
        _ = flat_model.parameters()[0].data

    train_pair(flat_model, eager_model, 40, look)
    assert held == [0, 2, 5, 10, 19, 36]


@pytest.mark.parametrize("zero", ["model", "model, the optimizer's order another", "set by hand"])
def test_gradients_zeroed_otherwise_than_by_the_optimizer_train_bit_for_bit(zero: str) -> None:
    # model.zero_grad() over the very parameters the optimizer holds zeroes them where they are
    # held; over another order, or a .grad set by hand, gives the held numbers back first
    flat_model, eager_model = pair(13)
    replay = flat_model.compile_loss()
    flat_ps, eager_ps = flat_model.parameters(), eager_model.parameters()
    order = slice(None, None, -1 if "order" in zero else 1)
    flat_opt, eager_opt = make("adam", flat_ps[order], True), make("adam", eager_ps[order], False)
    held_after_zero = []
    for step, doc in enumerate(docs(13, 8)):
        if zero.startswith("model"):
            flat_model.zero_grad()
        else:
            for p in flat_ps:
                p.grad = 0.0
        held_after_zero.append(type(flat_ps[0]).__name__ == "HeldValue")
        eager_model.zero_grad()
        assert bits([replay.backward(doc)]) == bits([eager_backward(eager_model, doc)]), step
        flat_opt.step()
        eager_opt.step()
    assert any(held_after_zero) == (zero == "model")
    flat_model.zero_grad()
    eager_model.zero_grad()
    assert bits([p.data for p in flat_ps]) == bits([p.data for p in eager_ps])  # (a look: given back)
    assert bits([p.grad for p in flat_ps]) == bits([p.grad for p in eager_ps]) == bits([0.0] * len(flat_ps))
    assert all(type(p) is Value for p in flat_ps)


def test_two_optimizers_over_the_parameters_in_two_orders_hold_them_in_turn() -> None:
    flat_model, eager_model = pair(15)
    replay = flat_model.compile_loss()
    flat_ps, eager_ps = flat_model.parameters(), eager_model.parameters()
    flat_opts = [make("adam", flat_ps, True), make("sgd", flat_ps[::-1], True)]
    eager_opts = [make("adam", eager_ps, False), make("sgd", eager_ps[::-1], False)]
    for step, doc in enumerate(docs(15, 10)):
        flat_opt, eager_opt = flat_opts[step % 2], eager_opts[step % 2]
        flat_opt.zero_grad()
        eager_opt.zero_grad()
        assert bits([replay.backward(doc)]) == bits([eager_backward(eager_model, doc)]), step
        flat_opt.step()
        eager_opt.step()
    assert bits([p.data for p in flat_ps]) == bits([p.data for p in eager_ps])
