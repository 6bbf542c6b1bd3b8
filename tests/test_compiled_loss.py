"""``GPT.compile_loss()`` replays one document a step on a few traces (``nn.gpt.bucket_lengths``):
each document padded to the shortest traced length that holds it and cut back to its own, its
loss and gradients the eager engine's on its ids as Values, bit for bit, at every length."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd import Value
from micrograd.compiler import RetraceWarning
from nn.gpt import GPT, CompiledLoss, bucket_lengths
from tests.float_bits import bits

np = pytest.importorskip("numpy")

VOCAB, BLOCK = 4, 5
MODELS: dict[int, tuple[GPT, CompiledLoss]] = {}
DOC = st.lists(st.integers(0, VOCAB - 1), min_size=2, max_size=BLOCK + 1)


def small(seed: int) -> tuple[GPT, CompiledLoss]:
    """A small GPT of two layers and its compiled loss, made once per seed (the traces are kept)."""
    if seed not in MODELS:
        model = GPT(VOCAB, BLOCK, n_layer=2, n_embd=4, n_head=2, seed=seed)
        MODELS[seed] = model, model.compile_loss()
    return MODELS[seed]


def eager(model: GPT, doc: list[int]) -> tuple[float, list[float]]:
    """``model.loss`` on the ids as Values (the graph the traces hold), backward, and the ``.grad``s."""
    loss = model.loss([Value(float(t)) for t in doc])
    loss.backward()
    return loss.data, [p.grad for p in model.parameters()]


def test_the_lengths_are_the_longest_document_and_about_half_of_it() -> None:
    assert bucket_lengths(16) == (9, 17)  # microgpt's block_size: the lengths measured on the names
    for block in range(1, 70):
        lengths = bucket_lengths(block)
        assert lengths[-1] == block + 1 and lengths[0] >= 2 and list(lengths) == sorted(set(lengths))
        assert len(lengths) == (1 if block == 1 else 2)
        assert abs(lengths[0] - (block + 1) / 2) <= 1
    assert GPT(3, block_size=7, n_embd=4, n_head=2).compile_loss().lengths == bucket_lengths(7)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2), data=st.data())
def test_every_length_is_the_eager_loss_and_gradients_bit_for_bit(seed: int, data: Any) -> None:
    model, step = small(seed)
    for n in range(2, BLOCK + 2):  # every length a document can have
        doc = data.draw(st.lists(st.integers(0, VOCAB - 1), min_size=n, max_size=n), label=f"doc {n}")
        loss, grads = step(doc)
        model.zero_grad()
        want, want_grads = eager(model, doc)
        assert loss == want, doc
        assert bits(grads.tolist()) == bits(want_grads), doc  # zeros' signs included
    assert sorted(step.traces) == list(step.lengths) == [3, 6]  # only the lengths' traces were made


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2),
    docs=st.lists(DOC, min_size=1, max_size=4),
)
def test_backward_adds_into_grad_as_the_eager_backward_does(seed: int, docs: list[list[int]]) -> None:
    model, step = small(seed)
    twin = GPT(VOCAB, BLOCK, n_layer=2, n_embd=4, n_head=2, seed=seed)
    model.zero_grad()
    for doc in docs:  # gradients added up over the documents, not zeroed between them
        loss = step.backward(doc)
        want, want_grads = eager(twin, doc)
        assert loss == want
        assert bits([p.grad for p in model.parameters()]) == bits(want_grads), doc


def test_backward_leaves_the_parameters_a_document_does_not_reach_alone() -> None:
    model, step = small(0)
    twin = GPT(VOCAB, BLOCK, n_layer=2, n_embd=4, n_head=2, seed=0)
    for p, q in zip(model.parameters(), twin.parameters()):
        p.grad = q.grad = 7.0
    doc = [3, 1, 3]  # 2 positions, replayed on the trace at 3: wpe rows 2.. are not in its graph
    step.backward(doc)
    eager(twin, doc)
    assert bits([p.grad for p in model.parameters()]) == bits([p.grad for p in twin.parameters()])
    assert all(w.grad == 7.0 for row in model.wpe.weight[2:] for w in row)
    assert all(w.grad != 7.0 for row in model.wpe.weight[:2] for w in row)
    model.zero_grad()
    grads_before = [p.grad for p in model.parameters()]
    step([3, 0, 1, 2, 3])  # step(doc) hands the gradients back: .grad untouched
    assert [p.grad for p in model.parameters()] == grads_before


def test_a_replaced_parameter_traces_the_lengths_again() -> None:
    model = GPT(VOCAB, BLOCK, n_embd=4, n_head=2, seed=1)
    step = model.compile_loss()
    short, long = [3, 0, 3], [3, 0, 1, 2, 0, 3]
    step(short), step(long)
    old = step.traces[3]
    model.wpe.weight[0][1] = Value(0.5)
    with pytest.warns(RetraceWarning, match=r"wpe\.weight\.0\.1"):
        loss, grads = step(short)
    assert step.traces[3] is not old and sorted(step.traces) == [3]  # the old traces were dropped
    model.zero_grad()
    want, want_grads = eager(model, short)
    assert loss == want and bits(grads.tolist()) == bits(want_grads)
    model.zero_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = step.backward(long)  # traced again at 6, with no second warning
    grads = [p.grad for p in model.parameters()]
    model.zero_grad()
    want, want_grads = eager(model, long)
    assert loss == want and bits(grads) == bits(want_grads)
    assert sorted(step.traces) == [3, 6]


@pytest.mark.parametrize(
    "doc, error, match",
    [
        ([], ValueError, r"a document needs at least 2 tokens .* got 0"),
        ([3], ValueError, r"a document needs at least 2 tokens .* got 1"),
        ([3, 0, 1, 2, 0, 1, 3], ValueError, r"a document has 7 tokens, more than the model's 6 \(block"),
        ([3, 9, 3], ValueError, r"token id 9 is not in the vocabulary 0\.\.3"),
        ([3, 1.5, 3], ValueError, r"token id 1\.5 is not in the vocabulary"),
        ([3, True, 3], ValueError, r"token id True is not in the vocabulary"),
        ([[3, 1, 3]], ValueError, r"token id \[3, 1, 3\] is not in the vocabulary"),
        ("abc", TypeError, r"a document must be a list of token ids, got str"),
        (None, TypeError, r"a document must be a list of token ids, got NoneType"),
    ],
)
def test_a_bad_document_is_refused_with_what_to_fix(doc: Any, error: type, match: str) -> None:
    _, step = small(0)
    with pytest.raises(error, match=match):
        step(doc)
    with pytest.raises(error, match=match):
        step.backward(doc)


def test_ids_as_values_are_taken_as_their_numbers() -> None:
    model, step = small(1)
    doc = [3, 2, 0, 3]
    assert step([Value(float(t)) for t in doc])[0] == step(doc)[0] == model.loss(doc).data
