"""Issue 37: the hand-vectorised numpy floor of a microgpt step, and ``compile_loss(batched=True)``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.gpt_floor import loss_and_grads
from micrograd import Value
from nn import GPT


def _model(seed: int = 3, vocab: int = 7, block_size: int = 8) -> GPT:
    return GPT(vocab, block_size=block_size, n_layer=2, n_embd=8, n_head=2, seed=seed)


def _docs(rng: random.Random, n: int, vocab: int, block_size: int) -> list[list[int]]:
    return [[rng.randrange(vocab) for _ in range(rng.randint(2, block_size + 1))] for _ in range(n)]


def _eager(model: GPT, docs: list[list[int]]) -> tuple[list[float], list[float]]:
    """The eager loop's losses and the .grad it leaves, from zero."""
    params = model.parameters()
    for p in params:
        p.grad = 0.0
    losses = []
    for d in docs:
        loss = model.loss([Value(i) for i in d])
        loss.backward()
        losses.append(loss.data)
    return losses, [p.grad for p in params]


@pytest.mark.parametrize("n_docs", [1, 16])
def test_numpy_floor_matches_nn_gpt(n_docs: int) -> None:
    model = _model()
    docs = _docs(random.Random(n_docs), n_docs, model.vocab_size, model.block_size)
    state = {k: np.array([[w.data for w in row] for row in m]) for k, m in model.to_microgpt().items()}
    losses, grads = loss_and_grads(state, docs, model.n_head)
    want_losses, want_grads = _eager(model, docs)
    assert np.allclose(losses, want_losses, rtol=1e-12, atol=0)
    got = np.concatenate([grads[k].ravel() for k in model.to_microgpt()])
    # model.parameters() and to_microgpt() list the weights in the same order? compare by identity
    order = {
        id(w): i for i, w in enumerate(w for m in model.to_microgpt().values() for row in m for w in row)
    }
    got = got[[order[id(p)] for p in model.parameters()]]
    assert np.abs(got - np.array(want_grads)).max() <= 1e-12


def _bits(xs: object) -> list[int]:
    return np.array(xs, dtype=np.float64).view(np.int64).tolist()  # type: ignore[no-any-return]


SMALL = GPT(5, block_size=4, n_layer=2, n_embd=4, n_head=2, seed=11)
SMALL_STEP = SMALL.compile_loss(batched=True)  # its traces are kept from example to example

docs_strategy = st.lists(
    st.lists(st.integers(0, SMALL.vocab_size - 1), min_size=2, max_size=SMALL.block_size + 1),
    min_size=1,
    max_size=6,
)


@settings(max_examples=30, deadline=None)
@given(docs=docs_strategy, start=st.sampled_from([0.0, -0.0, 0.25]))
def test_batched_compile_loss_is_the_eager_loop_bit_for_bit(docs: list[list[int]], start: float) -> None:
    params = SMALL.parameters()
    for p in params:
        p.grad = start
    want_losses = []
    for d in docs:
        loss = SMALL.loss([Value(i) for i in d])
        loss.backward()
        want_losses.append(loss.data)
    want = [p.grad for p in params]
    for p in params:
        p.grad = start
    losses = SMALL_STEP.backward(docs)
    assert _bits(losses) == _bits(want_losses)
    assert _bits([p.grad for p in params]) == _bits(want)
    # the step's own (losses, grads): the loop from zero
    for p in params:
        p.grad = 0.0
    for d in docs:
        SMALL.loss([Value(i) for i in d]).backward()
    got_losses, grads = SMALL_STEP(docs)
    assert _bits(grads) == _bits([p.grad for p in params]) and _bits(got_losses) == _bits(want_losses)


def test_batched_compile_loss_checks_its_documents() -> None:
    with pytest.raises(TypeError, match="non-empty list"):
        SMALL_STEP.backward([])
    with pytest.raises(ValueError, match="at least 2 tokens"):
        SMALL_STEP.backward([[1, 2], [3]])
    with pytest.raises(ValueError, match="more than the model's"):
        SMALL_STEP.backward([[1] * 6])
    with pytest.raises(ValueError, match="not in the vocabulary"):
        SMALL_STEP.backward([[1, 5]])


def test_names_gpt_demo_trains_in_batches() -> None:
    from demos import names_gpt  # (the demo, wherever its code lives)

    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    docs = [[4, 0, 1, 4], [4, 2, 4], [4, 3, 3, 1, 4]]
    first = [model.loss([Value(i) for i in d]).data for d in docs[:2]]
    losses = names_gpt.train(model, docs, steps=3, quiet=True, compiled=False, batch=2)
    assert len(losses) == 3 and losses[0] == sum(first) / 2
