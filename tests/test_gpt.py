"""The microgpt track: Dot, the GPT modules, the model against PyTorch float64 and finite
differences, microgpt's state_dict in and out, generation, the names data, and bad input."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd
from micrograd import Value, gradcheck, gradgradcheck
from micrograd.ops import Dot, weighted_sum
from nn import GPT, CausalSelfAttention, CharTokenizer, Embedding, KVCache, Linear, RMSNorm, datasets
from nn.transformer import softmax

DOCS = ["emma", "olivia", "ava", "isabella", "sophia", "mia"]


def tiny(seed: int = 0, n_layer: int = 1) -> tuple[GPT, CharTokenizer]:
    tok = CharTokenizer.from_docs(DOCS)
    return GPT(tok.vocab_size, block_size=10, n_layer=n_layer, n_embd=8, n_head=2, seed=seed), tok


# ---- Dot: one node, the chain's floats ------------------------------------------------------------

finite = st.floats(-1e3, 1e3, allow_nan=False)
Pair = tuple[float, float]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=9), finite)
def test_dot_is_the_chain_of_products_and_sums_bit_for_bit(
    pairs: list[tuple[float, float]], start: float
) -> None:
    ws = [Value(w) for w, _ in pairs]
    xs = [Value(x) for _, x in pairs]
    chain = start + ws[0] * xs[0]
    for w, x in zip(ws[1:], xs[1:]):
        chain = chain + w * x
    chain.backward()
    expected = [v.grad for v in ws + xs]
    for v in ws + xs:
        v.grad = 0.0
    one = weighted_sum(ws, xs, start=start)
    one.backward()
    assert one.data == chain.data and len(one._prev) == 2 * len(pairs) + 1
    assert [v.grad for v in ws + xs] == expected


def test_dot_against_finite_differences_to_second_order() -> None:
    rng = random.Random(0)
    xs = [Value(rng.uniform(-2, 2)) for _ in range(7)]
    assert gradcheck(lambda *v: Dot.apply(v[0], *v[1:4], *v[4:7]), xs)
    assert gradgradcheck(lambda *v: Dot.apply(v[0], *v[1:4], *v[4:7]) * v[1], xs)


def test_weighted_sum_refuses_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="as many weights as inputs, got 2 and 1"):
        weighted_sum([Value(1.0), Value(2.0)], [1.0])


# ---- the modules against finite differences --------------------------------------------------------


def test_embedding_with_a_traced_index_sends_gradient_to_the_chosen_row_only() -> None:
    emb = Embedding(4, 3, rng=random.Random(1))
    row = emb(Value(2.0))
    micrograd.sum(row).backward()
    assert [[w.grad for w in r] for r in emb.weight] == [[0.0] * 3, [0.0] * 3, [1.0] * 3, [0.0] * 3]
    assert [v.data for v in row] == [w.data for w in emb.weight[2]]
    with pytest.raises(IndexError, match="index 4 is out of range for an Embedding of 4 rows"):
        emb(4)


@pytest.mark.parametrize("affine", [False, True])
def test_rmsnorm_linear_and_attention_against_finite_differences(affine: bool) -> None:
    rng = random.Random(2)
    norm, lin = RMSNorm(4, elementwise_affine=affine), Linear(4, 4, rng=rng)
    attn = CausalSelfAttention(4, 2, std=0.5, rng=rng)

    def f(*x: Value) -> Value:
        cache = KVCache(1)
        attn(norm(list(x[:4])), cache)  # an earlier position, in the cache
        out = attn(lin(norm(list(x[4:]))), cache)
        return weighted_sum(out, out)

    inputs = [Value(rng.uniform(-1, 1)) for _ in range(8)]
    assert gradcheck(f, inputs)
    assert gradcheck(lambda *w: f(*inputs) * 0 + micrograd.sum(norm(list(w))) ** 2, inputs[:4])


def test_softmax_subtracts_a_detached_max() -> None:
    probs = softmax([Value(1000.0), Value(1001.0)])
    assert probs[0].data == pytest.approx(1 / (1 + math.e)) and math.isfinite(probs[1].data)


# ---- the model -------------------------------------------------------------------------------------


def test_the_model_against_pytorch_float64() -> None:
    torch = pytest.importorskip("torch")
    model, tok = tiny(seed=4, n_layer=2)
    ids = tok.document("isabella")[:-1]
    ours = [[v.data for v in row] for row in model(ids)]
    theirs = model.to_torch()(torch.tensor(ids)).tolist()
    for a_row, b_row in zip(ours, theirs):
        assert a_row == pytest.approx(b_row, rel=1e-12, abs=1e-15)
    assert GPT.from_torch(model.to_torch()).state_dict() == model.state_dict()
    loss = model.loss(tok.document("mia"))
    loss.backward()
    tm = model.to_torch()
    logits = tm(torch.tensor(tok.document("mia")[:-1]))
    tloss = torch.nn.functional.cross_entropy(logits, torch.tensor(tok.document("mia")[1:]))
    tloss.backward()
    assert loss.data == pytest.approx(tloss.item(), rel=1e-12)
    assert [w.grad for w in model.wte.weight[tok.bos]] == pytest.approx(
        tm.wte.weight.grad[tok.bos].tolist(), rel=1e-9
    )


def test_logits_are_causal() -> None:
    model, tok = tiny()
    a = model(tok.document("emma")[:3])
    b = model(tok.document("emmx".replace("x", "a"))[:3])
    assert [[v.data for v in row] for row in a] == [[v.data for v in row] for row in b]
    c = model(tok.document("ava")[:3])
    assert [v.data for v in a[0]] == [v.data for v in c[0]]  # position 0 sees BOS alone
    assert [v.data for v in a[2]] != [v.data for v in c[2]]


def test_loss_with_token_ids_as_values_is_the_same() -> None:
    model, tok = tiny()
    doc = tok.document("sophia")
    as_ints = model.loss(doc)
    as_values = model.loss([Value(float(t)) for t in doc])
    assert as_values.data == as_ints.data


def test_microgpts_state_dict_shares_the_very_values() -> None:
    model, tok = tiny(seed=5)
    state = model.to_microgpt()
    assert list(state) == [
        "wte",
        "wpe",
        "lm_head",
        *(f"layer0.{k}" for k in ("attn_wq", "attn_wk", "attn_wv", "attn_wo", "mlp_fc1", "mlp_fc2")),
    ]
    twin = GPT.from_microgpt(state, n_head=2)
    assert twin.wte.weight[0][0] is model.wte.weight[0][0]
    assert twin.parameters() == model.parameters()
    loss = twin.loss(tok.document("ava"))
    loss.backward()
    assert model.lm_head.weight[0][0].grad == twin.lm_head.weight[0][0].grad != 0.0
    floats = {k: [[w.data for w in row] for row in m] for k, m in state.items()}
    copied = GPT.from_microgpt(floats, n_head=2)
    assert copied.state_dict() == model.state_dict() and copied.wte.weight[0][0] is not model.wte.weight[0][0]


def test_generation_is_seeded_and_stops_at_bos() -> None:
    model, tok = tiny(seed=6)
    a = model.generate(5, temperature=0.5, seed=1)
    assert a == model.generate(5, temperature=0.5, seed=1)
    assert all(tok.bos not in s and len(s) <= model.block_size for s in a)
    assert all(isinstance(tok.decode(s), str) for s in a)


# ---- bad input, before any work ---------------------------------------------------------------------


def test_bad_input_is_named() -> None:
    model, tok = tiny()
    with pytest.raises(ValueError, match=r"token id 99 is not in the vocabulary 0..\d+"):
        model.loss([tok.bos, 99, tok.bos])
    with pytest.raises(ValueError, match="has 12 tokens, more than the model's 11"):
        model.loss([tok.bos] * 12)
    with pytest.raises(ValueError, match=r"n_embd \(10\) must be divisible by n_head \(3\)"):
        GPT(5, 4, n_embd=10, n_head=3)
    with pytest.raises(ValueError, match="characters this tokenizer does not know"):
        tok.encode("zoë")
    state = model.to_microgpt()
    with pytest.raises(KeyError, match=r"missing \['layer0.mlp_fc2'\]"):
        GPT.from_microgpt({k: v for k, v in state.items() if k != "layer0.mlp_fc2"}, 2)
    with pytest.raises(KeyError, match=r"unexpected \['layer0.extra'\]"):
        GPT.from_microgpt({**state, "layer0.extra": state["wte"]}, 2)
    with pytest.raises(ValueError, match=r"layer0.mlp_fc1 is 8 x 8, expected 32 x 8"):
        GPT.from_microgpt({**state, "layer0.mlp_fc1": state["layer0.attn_wq"]}, 2)
    with pytest.raises(ValueError, match=r"wte\[0\]\[1\] must be a Value or a finite number"):
        GPT.from_microgpt({**state, "wte": [[0.0, "x", *[0.0] * 6], *state["wte"][1:]]}, 2)


# ---- the names data -----------------------------------------------------------------------------------


def test_names_are_thousands_of_lowercase_first_names() -> None:
    names = datasets.load_names()
    assert len(names) > 4000 and len(set(names)) == len(names)
    assert all(n.isalpha() and n.islower() for n in names)
    tok = CharTokenizer.from_docs(names)
    assert tok.chars == list("abcdefghijklmnopqrstuvwxyz") and tok.bos == 26


def test_names_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "names" else real(name, *a)
    )
    with pytest.raises(ImportError, match=r"pip install names==0.3.0"):
        datasets.load_names()


def test_each_position_reads_its_own_position_embedding_and_attention_sums_to_one() -> None:
    model, tok = tiny(seed=7)
    ids = tok.document("emma")[:-1]
    before = [v.data for v in model(ids)[2]]
    model.wpe.weight[2][0].data += 1.0  # position 2's embedding: only positions >= 2 change
    after = model(ids)
    assert [v.data for v in after[2]] != before
    pattern = model.attention(ids)
    assert len(pattern) == 1 and len(pattern[0]) == len(ids)
    for t, heads in enumerate(pattern[0]):
        assert len(heads) == model.n_head and all(
            len(w) == t + 1 and sum(w) == pytest.approx(1.0) for w in heads
        )


def test_the_compiled_loss_is_the_eager_loss_on_traced_ids_bit_for_bit() -> None:
    pytest.importorskip("numpy")
    model, tok = tiny(seed=8, n_layer=2)
    step = model.compile_loss()
    for name in ("emma", "mia", "ava", "olivia"):  # 6, 5, 5 and 8 tokens: traced at 6 and at 11
        doc = tok.document(name)
        loss, grads = step(doc)
        model.zero_grad()
        eager = model.loss([Value(float(t)) for t in doc])
        eager.backward()
        assert loss == eager.data
        assert grads.tolist() == [p.grad for p in model.parameters()]
        assert loss == model.loss(doc).data  # the int ids' loss too
    assert step.lengths == (6, 11) and sorted(step.traces) == [6, 11]  # (block_size 10)
    model.zero_grad()
    emma = step.backward(tok.document("emma"))
    assert emma == model.loss(tok.document("emma")).data and model.wte.weight[0][0].grad != 0.0
    with pytest.raises(ValueError, match="token id 40 is not in the vocabulary"):
        step([tok.bos, 40, tok.bos])


# ---- against microgpt's own engine (fetched at test set-up) ---------------------------------------


def test_from_microgpts_model_the_logits_and_gradients_are_microgpts() -> None:
    from tests.microgpt_reference import load_microgpt

    mg = load_microgpt()
    tok = CharTokenizer.from_docs(DOCS)
    ref = mg.MicroGPT(tok.vocab_size, n_layer=2, n_embd=8, block_size=10, n_head=2, seed=3)
    ours = GPT(tok.vocab_size, block_size=10, n_layer=2, n_embd=8, n_head=2, seed=3)
    theirs = [w.data for m in ref.state_dict.values() for row in m for w in row]
    mine = [w.data for m in ours.to_microgpt().values() for row in m for w in row]
    assert mine == theirs  # microgpt's initialisation, draw for draw
    model = GPT.from_microgpt(ref.state_dict, n_head=2)  # their Values: copied as numbers
    doc = tok.document("isabella")
    keys: list[list[Any]] = [[] for _ in range(2)]
    values: list[list[Any]] = [[] for _ in range(2)]
    their_losses = []
    for pos, (t, target) in enumerate(itertools.pairwise(doc)):
        logits = ref.forward(t, pos, keys, values)
        for a, b in zip(logits, model(doc[: pos + 1])[pos]):
            assert b.data == pytest.approx(a.data, rel=1e-12, abs=1e-15)
        their_losses.append(-mg._softmax(logits)[target].log())
    their_loss = (1 / len(their_losses)) * sum(their_losses)
    their_loss.backward()
    loss = model.loss(doc)
    loss.backward()
    assert loss.data == pytest.approx(their_loss.data, rel=1e-12)
    theirs_grads = [w.grad for m in ref.state_dict.values() for row in m for w in row]
    ours_grads = [w.grad for m in model.to_microgpt().values() for row in m for w in row]
    assert ours_grads == pytest.approx(theirs_grads, rel=1e-12, abs=1e-15)


# ---- ids and sizes are checked: no nan loss, no allocation that cannot finish ------------------------


@pytest.mark.parametrize(
    "ids",
    [
        [Value(4.0), Value(9.0), Value(4.0)],  # 9 is past the vocabulary of 5
        [Value(4.0), Value(0.5), Value(4.0)],  # between two ids
        [Value(4.0), Value(-1.0), Value(4.0)],
        [Value(4.0), Value(math.nan), Value(4.0)],
        [Value(4.0), Value(math.inf), Value(4.0)],
    ],
)
def test_an_id_given_as_a_value_is_checked(ids: list[Value]) -> None:
    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    with pytest.raises(
        ValueError, match=r"token id Value\(.*\) is not in the vocabulary 0\.\.4: .*whole number"
    ):
        model.loss(ids)
    with pytest.raises(ValueError, match=r"is not in the vocabulary 0\.\.4"):
        model(ids[:2])


@pytest.mark.parametrize("bad", [-1, 5, 2.0, 0.5, True, "1"])
def test_an_int_id_is_checked_and_the_error_says_how_to_fix_it(bad: Any) -> None:
    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    with pytest.raises(ValueError, match=r"is not in the vocabulary 0\.\.4: ids are ints in that range"):
        model.loss([4, bad, 4])


def test_ids_as_values_holding_ints_still_run_eager_and_compiled() -> None:
    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    eager = model.loss([Value(4.0), Value(2.0), Value(4.0)]).data
    assert math.isfinite(eager) and eager == model.loss([4, 2, 4]).data
    pytest.importorskip("numpy")
    assert model.compile_loss()([4, 2, 4])[0] == eager


@pytest.mark.parametrize("std", [math.nan, math.inf, -0.1, "0.08", None, True])
def test_a_bad_std_is_refused(std: Any) -> None:
    with pytest.raises(ValueError, match=r"std must be a finite number >= 0 .*microgpt's is 0\.08"):
        GPT(5, 4, n_embd=4, n_head=2, std=std)


@pytest.mark.parametrize(
    "sizes",
    [
        {"block_size": math.inf},
        {"block_size": -3},
        {"n_embd": math.nan},
        {"n_layer": 1.5},
        {"vocab_size": 0},
    ],
)
def test_a_non_finite_or_negative_size_is_refused(sizes: dict[str, Any]) -> None:
    args: dict[str, Any] = {"vocab_size": 5, "block_size": 4, "n_layer": 1, "n_embd": 4, "n_head": 2, **sizes}
    (name,) = sizes
    with pytest.raises(ValueError, match=rf"{name} must be an int >= 1, got"):
        GPT(**args)


def test_sizes_that_cannot_be_allocated_are_refused_before_allocating() -> None:
    import time
    import tracemalloc

    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(
            ValueError, match=r"would have 16,000,003,232 parameters, about 1,808\.0 GB"
        ) as info:
            GPT(5, 10**9, n_embd=16, n_head=4)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 1 and peak < 10**6  # refused, not allocated row by row
    assert "MAX_PARAMETERS" in str(info.value) and "make the sizes smaller" in str(info.value)
    from nn.gpt import parameter_count

    assert parameter_count(7, 10, 2, 8) == GPT(7, 10, n_layer=2, n_embd=8, n_head=2).num_parameters()
    with pytest.raises(ValueError, match="parameters"):
        GPT(10**6, 16, n_embd=64, n_head=4)  # a vocabulary too large: 128 million in wte and lm_head


def test_from_microgpt_refuses_a_value_of_nan_as_it_refuses_nan() -> None:
    model, _ = tiny()
    state = model.to_microgpt()
    for bad in (Value(math.nan), Value(-math.inf)):
        rows = [list(row) for row in state["layer0.mlp_fc2"]]
        rows[1][2] = bad
        with pytest.raises(
            ValueError, match=r"layer0\.mlp_fc2\[1\]\[2\] is Value\(.*\): every weight must be finite"
        ):
            GPT.from_microgpt({**state, "layer0.mlp_fc2": rows}, 2)
    with pytest.raises(ValueError, match=r"wte\[0\]\[0\] must be a Value or a finite number"):
        GPT.from_microgpt({**state, "wte": [[math.nan, *state["wte"][0][1:]], *state["wte"][1:]]}, 2)
