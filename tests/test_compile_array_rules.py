"""The replay's ``/``, ``exp``, ``log`` and ``x ** n``, the ops' own rules on arrays under one errstate
for the whole replay (``micrograd.math.numpy_errors.silenced``), give the eager engine's numbers bit for
bit, inf and nan included, without a warning; a patched op keeps its patched rules.  A block
group's gradients written to indexed rows in one assignment (``Group.scattered``) land as one by one.
And Pick's array rules give its own rules' numbers, for any label."""

from __future__ import annotations

import math
import random
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value
from micrograd.compiler.array_rules import (
    array_rules,
    pick_block_backward,
    pick_block_forward,
    pick_fixed_forward,
    pick_forward,
)
from micrograd.engine import PowConst
from micrograd.ops import Context, Pick
from micrograd.ops.basic import Div, Exp, Log
from tests.float_bits import bits

SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e308, -1e-320, -2.0, 1.0]


def arith_net(params: list[Value], xs: list[Value]) -> Value:
    """Each of the four ops on every pair of a parameter and an input, added up (finite on finite
    inputs, but for a zero: no nan that would hide the other terms' bits in the total)."""
    total = Value(0.0)
    for p, x in zip(params, xs):
        q = p * p + x * x
        total = total + p / x + x / p + (x * p).exp() + q.log() + q**-0.5 + (p * x) ** 3.0
    return total


@pytest.mark.parametrize("specials", [False, True])
def test_the_replays_div_exp_log_and_pow_give_the_eager_bits_without_a_warning(specials: bool) -> None:
    rng = random.Random(specials)
    params = [Value(rng.gauss(0, 2)) for _ in range(6)]
    step = micrograd.compile(lambda xs: arith_net(params, list(xs)), (np.ones(6),), params=params)
    forwards = {grp.rules[0] for _, grp in step._groups if grp.rules is not None}
    assert {Div.forward, Exp.forward, Log.forward, PowConst.forward} <= forwards  # (they ran)
    for _ in range(8):
        x = [rng.choice([*SPECIAL, rng.gauss(0, 3)]) if specials else rng.gauss(0, 3) for _ in params]
        if specials:
            params[rng.randrange(6)].data = rng.choice(SPECIAL)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (a division by zero, a log of 0: results, never a warning)
            loss, grads = step(np.array(x))
        eager = arith_net(params, [Value(v) for v in x])
        assert bits([loss]) == bits([eager.data])
        assert bits(grads.tolist()) == bits(list(micrograd.grad(eager, params)))


def test_a_replay_enters_numpys_errstate_once_whatever_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    params = [Value(0.5 + k) for k in range(6)]
    step = micrograd.compile(lambda xs: arith_net(params, list(xs)), (np.ones(6),), params=params)
    entered = []
    enter = np.errstate.__enter__
    monkeypatch.setattr(np.errstate, "__enter__", lambda self: entered.append(self) or enter(self))
    step(np.arange(6.0))  # (a zero among them: a division by zero, silent)
    assert len(entered) == 1
    step.forward(np.arange(6.0))
    assert len(entered) == 2


def test_a_patched_op_is_replayed_with_its_patched_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    def first(ctx: Context, label: Any, *values: Any) -> Any:
        return values[0]

    monkeypatch.setattr(Pick, "forward", staticmethod(first))
    assert array_rules(Pick) == (first, Pick.backward)
    monkeypatch.undo()
    assert array_rules(Pick)[0] is pick_forward  # (the engine's own again)


def test_a_picks_gradients_to_indexed_rows_land_as_written_one_by_one() -> None:
    # The picked entries are the nodes' only reads: their gradients go straight to their rows, by index
    rng = random.Random(3)
    params = [Value(rng.gauss(0, 1)) for _ in range(5)]

    def loss(label: Value, xs: list[Value]) -> Value:
        a = [(p * x).exp() for p, x in zip(params, xs)]
        b = [(p + x).exp() for p, x in zip(params, xs)]
        return Pick.apply(label, *a) * Pick.apply(label + 1.0, *b)  # (operand k's rows: a[k], b[k])

    step = micrograd.compile(lambda lab, xs: loss(lab, list(xs)), (0.0, np.zeros(5)), params=params)
    assert any(grp.scattered for _, grp in step._groups)  # (written through the joined indices)
    for label in (0.0, 2.0, 3.0, 4.0, math.nan):
        x = [rng.gauss(0, 1) for _ in params]
        got, grads = step(label, np.array(x))
        eager = loss(Value(label), [Value(v) for v in x])
        assert bits([got]) == bits([eager.data])
        assert bits(grads.tolist()) == bits(
            [0.0 if g is None else g for g in micrograd.grad(eager, params, allow_unused=True)]
        )


LABELS = [0.0, -0.0, 1.0, 2.0, 0.5, -1.0, 3.0, math.inf, -math.inf, math.nan]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 3),  # operands
    st.integers(1, 4),  # nodes
    st.integers(1, 3),  # samples: a batch of one too
    st.randoms(use_true_random=False),
)
def test_picks_array_rules_give_picks_own_bits_for_any_label(
    k: int, nodes: int, batch: int, rnd: Any
) -> None:
    """The stacked Pick (``pick_block_forward``/``_backward``, the fixed one for a batch's shared
    values, and the gradients written into a view of a larger array) against Pick's own rules run
    on the arrays, over labels that are indices (-0.0 too) or none (0.5, -1, k, inf, nan)."""
    label = np.array([[rnd.choice(LABELS) for _ in range(batch)] for _ in range(nodes)])
    shared = np.array([[rnd.choice(SPECIAL) for _ in range(k)] for _ in range(nodes)])  # (nodes, K)
    values = [np.repeat(shared[:, j : j + 1], batch, axis=1) for j in range(k)]
    g = np.array([[rnd.choice(SPECIAL) for _ in range(batch)] for _ in range(nodes)])
    ctx = Context((False,) + (True,) * k, (label, *values))
    want = Pick.forward(ctx, label, *values)
    want_grads = np.stack(Pick.backward(ctx, g)[1:])

    def flat(a: Any) -> list[bytes]:
        return bits(np.ravel(a).tolist())

    block = Context((False,) + (True,) * k, ())
    assert flat(pick_block_forward(block, np.stack([label, *values]))) == flat(want)
    assert flat(pick_block_backward(block, g)[1]) == flat(want_grads)
    fixed = Context((False,) + (True,) * k, ())
    assert flat(pick_fixed_forward(fixed, label, shared)) == flat(want)
    slots = np.full(
        (k + 2, nodes, 2 * batch), 7.0
    )  # (the gradients go to a view: rows 1..k, every other column)
    pick_block_backward(fixed, g, out=slots[1:-1, :, ::2])
    assert flat(slots[1:-1, :, ::2]) == flat(want_grads)
    slots[1:-1, :, ::2] = 7.0
    assert (slots == 7.0).all()  # (nothing written elsewhere)
