"""Issue 37: the hand-vectorised numpy floor of a microgpt step, and ``compile_loss(batched=True)``."""

from __future__ import annotations

import functools
import operator
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.gpt_floor import loss_and_grads, ordered_matmul
from micrograd import Value
from nn import GPT
from tests.float_bits import raw_bits


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


@pytest.mark.parametrize("ordered", [False, True])
@pytest.mark.parametrize("n_docs", [1, 16])
def test_numpy_floor_matches_nn_gpt(n_docs: int, ordered: bool) -> None:
    """The floor (BLAS products, or with ``ordered`` products added in order) gives nn.GPT's losses
    and gradients to 1e-12, and the two floors give each other's."""
    model = _model()
    docs = _docs(random.Random(n_docs), n_docs, model.vocab_size, model.block_size)
    state = {k: np.array([[w.data for w in row] for row in m]) for k, m in model.to_microgpt().items()}
    losses, grads = loss_and_grads(state, docs, model.n_head, ordered=ordered)
    blas_losses, blas_grads = loss_and_grads(state, docs, model.n_head)
    want_losses, want_grads = _eager(model, docs)
    assert np.allclose(losses, want_losses, rtol=1e-12, atol=0)
    assert np.allclose(losses, blas_losses, rtol=1e-12, atol=0)
    got = np.concatenate([grads[k].ravel() for k in model.to_microgpt()])
    assert np.abs(got - np.concatenate([blas_grads[k].ravel() for k in model.to_microgpt()])).max() <= 1e-12
    # model.parameters() and to_microgpt() list the weights in the same order? compare by identity
    order = {
        id(w): i for i, w in enumerate(w for m in model.to_microgpt().values() for row in m for w in row)
    }
    got = got[[order[id(p)] for p in model.parameters()]]
    assert np.abs(got - np.array(want_grads)).max() <= 1e-12


def _in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (batch dimensions broadcast) in Python floats, each entry's products added first
    to last: ((p0 + p1) + p2) + ..."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    out = np.zeros((*batch, a.shape[-2], b.shape[-1]))
    for idx in np.ndindex(*out.shape):  # (*batch, i, j)
        row, col = a[idx[:-1]].tolist(), b[idx[:-2]][:, idx[-1]].tolist()
        out[idx] = functools.reduce(operator.add, [x * y for x, y in zip(row, col)]) if row else 0.0
    return out


# (a, b): the floor's products (B, T, C) @ (C, 4C), heads (B, H, T, D) @ (B, H, D, T), the weight
# gradients over positions (C, B*T) @ (B*T, 4C); one entry out, contracted over 3 and over 40 (the
# sum would run along numpy's innermost axis); batch dimensions that broadcast
ORDERED_SHAPES = [
    ((2, 5, 16), (16, 64)),
    ((2, 4, 5, 4), (2, 4, 4, 5)),
    ((2, 4, 5, 5), (2, 4, 5, 4)),
    ((16, 240), (240, 64)),
    ((27, 30), (30, 16)),
    ((1, 3), (3, 1)),
    ((1, 40), (40, 1)),
    ((1, 40), (40, 3)),
    ((3, 1, 2, 12), (4, 12, 2)),
    ((2, 12), (5, 1, 12, 3)),
    ((2, 0), (0, 3)),
]


@pytest.mark.parametrize(("a_shape", "b_shape"), ORDERED_SHAPES)
def test_ordered_matmul_adds_each_dot_product_first_to_last(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(len(a_shape) * 100 + a_shape[-1])
    # magnitudes from 1e-6 to 1e6, both signs: the sum's rounding depends on the order of its terms
    a = rng.standard_normal(a_shape) * 10.0 ** rng.integers(-6, 7, a_shape)
    b = rng.standard_normal(b_shape) * 10.0 ** rng.integers(-6, 7, b_shape)
    got, want = ordered_matmul(a, b), _in_order(a, b)
    assert got.shape == np.matmul(a, b).shape
    assert raw_bits(got.ravel()) == raw_bits(want.ravel())
    assert np.allclose(got, np.matmul(a, b), rtol=1e-6, atol=1e-6 * np.abs(want).max(initial=1.0))
    if a_shape[-1] >= 12:  # the inputs tell the orders apart: numpy's pairwise sum, and BLAS
        # the products with the contracted axis innermost in memory, added along it
        products = np.multiply(a[..., :, None, :], np.swapaxes(b, -1, -2)[..., None, :, :], order="C")
        assert raw_bits(np.add.reduce(products, axis=-1).ravel()) != raw_bits(want.ravel())
        # BLAS's order depends on the kernel the processor gets: a lone dot product may come out
        # in order on one machine and not another, so only products of many entries are compared
        if want.size > 1:
            assert raw_bits(np.matmul(a, b).ravel()) != raw_bits(want.ravel())


def test_ordered_matmul_keeps_the_sign_of_a_zero_as_the_first_to_last_sum_does() -> None:
    rng = np.random.default_rng(48)
    zeros = np.array([-0.0, 0.0, 1.0, -1.0])  # products of signed zeros, and sums of them
    for a_shape, b_shape in [((3, 4), (4, 5)), ((2, 1, 2, 3), (2, 3, 2)), ((1, 6), (6, 1))] * 100:
        a, b = rng.choice(zeros, a_shape), rng.choice(zeros, b_shape)
        assert raw_bits(ordered_matmul(a, b).ravel()) == raw_bits(_in_order(a, b).ravel()), (a, b)
    minus = ordered_matmul(np.array([[-0.0, 0.0]]), np.array([[1.0, 1.0], [-1.0, 1.0]]))
    assert raw_bits(minus.ravel()) == raw_bits([-0.0, 0.0])  # -0.0 + -0.0; -0.0 + 0.0


def test_ordered_matmul_on_cancelling_terms() -> None:
    # (1 + 1e16) - 1e16 is 0 first to last (1 + 1e16 rounds to 1e16), 1 with the last two first
    a = np.array([[1.0, 1e16, -1e16], [1e16, -1e16, 1.0]])
    assert ordered_matmul(a, np.ones((3, 2))).tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert ordered_matmul(a[:1], np.ones((3, 1))).tolist() == [[0.0]]
    # batch dimensions broadcast as @ broadcasts them: a (2, 1, 1, 3) by b (4, 3, 1)
    stacked = np.stack([a[:1], a[1:]])[:, None]
    assert ordered_matmul(stacked, np.ones((4, 3, 1))).tolist() == [[[[0.0]]] * 4, [[[1.0]]] * 4]
    # padded with terms that are 0.0 (the floor's padded positions), 40 terms to an entry
    padded = np.concatenate([np.tile(a[:1], (1, 13)), np.zeros((1, 1))], axis=1)
    assert ordered_matmul(padded, np.ones((40, 1))).tolist() == [[0.0]]
    with pytest.raises(ValueError, match="2 or more dimensions"):
        ordered_matmul(np.ones(3), np.ones((3, 1)))
    with pytest.raises(ValueError, match="contracted sizes differ"):
        ordered_matmul(np.ones((2, 3)), np.ones((4, 1)))


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
    assert raw_bits(losses) == raw_bits(want_losses)
    assert raw_bits([p.grad for p in params]) == raw_bits(want)
    # the step's own (losses, grads): the loop from zero
    for p in params:
        p.grad = 0.0
    for d in docs:
        SMALL.loss([Value(i) for i in d]).backward()
    got_losses, grads = SMALL_STEP(docs)
    assert raw_bits(grads) == raw_bits([p.grad for p in params])
    assert raw_bits(got_losses) == raw_bits(want_losses)


# one layer: 6 weight matrices, whose gradients a batched step gathers through strided views of
# their contributions (kernels.sum_grids; SMALL's 2 layers are too many grids for that)
ONE_LAYER = GPT(5, block_size=4, n_layer=1, n_embd=4, n_head=2, seed=5)
ONE_LAYER_STEP = ONE_LAYER.compile_loss(batched=True)


@st.composite
def unsorted_docs(draw: st.DrawFn) -> list[list[int]]:
    """Documents in no sorted order of length: a longest one that is not first (and another later),
    a length that repeats, shorter ones before and after the longest (a ragged step loads them
    longest first and gives their numbers back in this order)."""
    token = st.integers(0, SMALL.vocab_size - 1)
    longest = draw(st.integers(3, SMALL.block_size + 1))
    shorter = draw(st.lists(st.integers(2, longest - 1), min_size=1, max_size=4))
    lengths = [shorter[0], longest, *draw(st.permutations(shorter)), longest]
    return [draw(st.lists(token, min_size=n, max_size=n)) for n in lengths]


@pytest.mark.parametrize(
    "model, step", [(SMALL, SMALL_STEP), (ONE_LAYER, ONE_LAYER_STEP)], ids=["2 layers", "1 layer"]
)
@settings(max_examples=20, deadline=None)
@given(docs=unsorted_docs())
def test_documents_in_no_order_of_length_get_their_own_eager_numbers(
    model: GPT, step: Any, docs: list[list[int]]
) -> None:
    params = model.parameters()
    losses, grads, reached = step.per_document(docs)
    for i, d in enumerate(docs):  # each document's own, in the order given
        for p in params:
            p.grad = None
        loss = model.loss([Value(t) for t in d])
        loss.backward()
        assert raw_bits(losses[i]) == raw_bits(loss.data)
        assert reached[i].tolist() == [p.grad is not None for p in params]
        got = [g for g, r in zip(grads[i].tolist(), reached[i]) if r]  # (the others: never added)
        assert raw_bits(got) == raw_bits([p.grad for p in params if p.grad is not None])
    # into .grad, added in the documents' order as the eager loop adds them
    want_losses, want = _eager(model, docs)
    for p in params:
        p.grad = 0.0
    assert raw_bits(step.backward(docs)) == raw_bits(want_losses)
    assert raw_bits([p.grad for p in params]) == raw_bits(want)


def test_the_weights_sums_are_laid_out_as_their_contributions() -> None:
    """(What the bit-identity tests above run through) a weights matrix's contributions are
    regular grids whose rows are adjacent along one axis: their sums are laid out with that axis
    innermost (kernels.sum_grids adds it and the batch as one run), not in the grid's C order."""
    ONE_LAYER_STEP.per_document([[1, 2, 3, 4], [2, 3, 1]])
    gathers = [g for w in ONE_LAYER_STEP.widths.values() for g in w._all_gathers()]
    sums = [s for g in gathers for _, _, s in g.strided or ()]
    assert any(not s.flags.c_contiguous for s in sums)


def test_batched_compile_loss_checks_its_documents() -> None:
    with pytest.raises(TypeError, match="non-empty list"):
        SMALL_STEP.backward([])
    with pytest.raises(ValueError, match="at least 2 tokens"):
        SMALL_STEP.backward([[1, 2], [3]])
    with pytest.raises(ValueError, match="more than the model's"):
        SMALL_STEP.backward([[1] * 6])
    with pytest.raises(ValueError, match="not in the vocabulary"):
        SMALL_STEP.backward([[1, 5]])


# mostly ids in the vocabulary (so that most documents are right but for one thing), and its edges
ID = st.one_of(
    st.integers(0, SMALL.vocab_size - 1),
    st.sampled_from([-1, SMALL.vocab_size, True, 2.0, [1, 2], Value(1.0)]),
)


@settings(max_examples=400, deadline=None)
@given(
    docs=st.lists(
        st.one_of(st.lists(ID, min_size=1, max_size=SMALL.block_size + 2), st.tuples(ID, ID)),
        min_size=1,
        max_size=3,
    )
)
def test_the_quick_check_of_a_batch_passes_what_the_checks_one_by_one_pass(docs: list[Any]) -> None:
    # (the common case, lists of int ids, checked at once; anything else one by one, with its error)
    try:
        SMALL_STEP._check_each(docs)
        passes = True
    except (TypeError, ValueError):
        passes = False
    plain = all(type(d) is list and all(type(t) is int for t in d) for d in docs)
    assert SMALL_STEP._all_plain(docs) == (passes and plain)


@pytest.mark.parametrize(
    ("docs", "says"),
    [
        ([[[4, 1, 4]]], "document 0 is [[4, 1, 4]], a list of lists: one pair of brackets too many"),
        ([[4, 1, 4], [[4, 2], [1, 4]]], "document 1 is [[4, 2], [1, 4]], a list of lists"),
        ([4, 1, 4], "is 4, not a list (one document is a list holding one list of ids: [[4, 1, 4]]"),
        (["abc"], "document 0 is 'abc', not a list"),
    ],
)
def test_a_batch_of_the_wrong_depth_is_named_by_the_shape_it_needs(docs: Any, says: str) -> None:
    with pytest.raises(TypeError, match="takes a list of documents, each a list of token ids") as error:
        SMALL_STEP.backward(docs)
    assert says in str(error.value)


def test_names_gpt_demo_trains_in_batches() -> None:
    from demos import names_gpt  # (the demo, wherever its code lives)

    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    docs = [[4, 0, 1, 4], [4, 2, 4], [4, 3, 3, 1, 4]]
    first = [model.loss([Value(i) for i in d]).data for d in docs[:2]]
    losses = names_gpt.train(model, docs, steps=3, quiet=True, compiled=False, batch=2)
    assert len(losses) == 3 and losses[0] == sum(first) / 2
