"""Compiled steps notice a parameter replaced by a new Value (issue 47): ``GPT.compile_loss()``
and ``compile_loss(batched=True)`` trace again and say so; ``compile(..., params=model)``
raises.  Setting ``.data`` (``load_state_dict``) is followed, as before, with no word."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import micrograd
from micrograd import Value
from micrograd.compiler import ReplacedParameterError, RetraceWarning
from micrograd.compiler.params import Watch, watcher
from nn import MLP
from nn.gpt import GPT

DOC = [4, 1, 4]


def eager_loss(model: GPT, doc: list[int]) -> tuple[float, list[float]]:
    """``model.loss`` on the ids as Values (the compiled steps' graph) and its gradients."""
    model.zero_grad()
    loss = model.loss([Value(float(t)) for t in doc])
    loss.backward()
    return loss.data, [p.grad for p in model.parameters()]


def test_the_issue_case_a_batched_gpt_step_traces_again_and_says_so() -> None:
    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    step = model.compile_loss(batched=True)
    before, _ = step([DOC])
    model.wte.weight[1][0] = Value(5.0)
    with pytest.warns(
        RetraceWarning, match=r"parameter 4 \(wte\.weight\.1\.0\) is a new Value.*again"
    ) as got:
        losses, grads = step([DOC])
    assert got[0].filename == __file__  # (at the caller's line)
    loss, eager_grads = eager_loss(model, DOC)
    assert losses == [loss] != before and round(loss, 4) == 1.4965
    assert grads.tolist() == eager_grads
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert step([DOC])[0] == [loss]  # traced once more only


def test_an_unbatched_gpt_step_traces_again_and_says_so() -> None:
    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    step = model.compile_loss()
    step(DOC)
    model.lm_head.weight[0] = [Value(0.5) for _ in range(4)]  # a whole row
    with pytest.warns(RetraceWarning, match=r"lm_head\.weight\.0\.0"):
        loss, grads = step(DOC)
    assert (loss, grads.tolist()) == eager_loss(model, DOC)


def test_setting_data_or_load_state_dict_is_followed_without_a_trace() -> None:
    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    step, batch = model.compile_loss(), model.compile_loss(batched=True)
    step(DOC), batch([DOC])
    model.wte.weight[1][0].data = 5.0
    state = model.state_dict()
    state["lm_head.weight.0.0"] = -1.0
    model.load_state_dict(state)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert step(DOC)[0] == batch([DOC])[0][0] == eager_loss(model, DOC)[0]
    assert len(step.traces) == len(batch.traces) == 1


def test_compile_given_the_model_raises_when_a_parameter_is_replaced() -> None:
    model = MLP(2, [3, 1], seed=0)
    step = micrograd.compile(lambda x: model(x), ([1.0, 2.0],), params=model)
    assert step.params == tuple(model.parameters())
    step([1.0, 2.0])
    model.layers[0].neurons[0].w[0].data = 3.0  # followed
    assert step([1.0, 2.0])[0] == model([1.0, 2.0]).data
    model.layers[1].neurons[0].b = Value(1.0)
    with pytest.raises(
        ReplacedParameterError,
        match=r"parameter 12 \(layers\.1\.neurons\.0\.b\) is a new Value.*Compile again.*\.data",
    ):
        step([1.0, 2.0])
    with pytest.raises(ReplacedParameterError):  # every entry point checks
        step.forward([1.0, 2.0])


def test_a_batched_step_given_the_model_checks_too_and_a_changed_count_is_named() -> None:
    model = MLP(2, [3, 1], seed=0)
    step = micrograd.compile(lambda x: model(x), ([1.0, 2.0],), params=model, batched=True)
    step([[1.0, 2.0]])
    model.layers.append(MLP(1, [1], seed=1))
    with pytest.raises(ReplacedParameterError, match=r"has 15 parameters now, the step traced 13"):
        step.per_sample([[1.0, 2.0]])


def test_a_change_that_keeps_the_parameters_is_not_an_error() -> None:
    model = MLP(2, [3, 1], seed=0)
    step = micrograd.compile(lambda x: model(x), ([1.0, 2.0],), params=model)
    model.note = "a new attribute"  # type: ignore[attr-defined]
    model.layers = list(model.layers)  # a new list of the same layers
    assert step([1.0, 2.0])[0] == model([1.0, 2.0]).data


class Hidden:
    """A model whose ``parameters()`` the walk cannot find (computed from a private attribute)."""

    def __init__(self) -> None:
        self._ws = [Value(1.0), Value(2.0)]

    def parameters(self) -> list[Value]:
        return list(self._ws)


def test_a_model_the_walk_cannot_read_gets_parameters_at_every_call() -> None:
    model = Hidden()
    assert not Watch(model, model.parameters()).exact
    check = watcher(model, model.parameters())
    assert check() is None
    model._ws[1] = Value(2.0)
    now = check()
    assert now is not None and now[1] is model._ws[1]
    step = micrograd.compile(lambda x: model._ws[0] * x + model._ws[1], 1.0, params=model)
    model._ws[0] = Value(1.0)
    with pytest.raises(ReplacedParameterError, match="parameter 0"):
        step(1.0)


def gpt_and_check() -> tuple[GPT, Callable[[], object]]:
    model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)
    check = watcher(model, model.parameters())
    assert check() is None
    return model, check


def test_the_watch_sees_an_entry_a_row_or_a_module_replaced() -> None:
    model, check = gpt_and_check()
    model.layers[0].mlp.fc1.weight[2][3] = Value(0.0)
    assert check() is not None
    model, check = gpt_and_check()
    model.layers[0].attn.wq.weight[1] = [Value(0.0) for _ in range(4)]
    assert check() is not None
    model, check = gpt_and_check()
    model.wpe = type(model.wpe)(4, 4, weight=np.zeros((4, 4)).tolist())
    assert check() is not None


def test_the_watch_takes_new_containers_of_the_same_values_as_they_are() -> None:
    model, check = gpt_and_check()
    wq = model.layers[0].attn.wq
    wq.weight = [list(row) for row in wq.weight]
    model.layers = list(model.layers)
    assert check() is None
    assert check() is None  # (noted again: found the cheap way)


def test_a_copy_of_a_list_that_compares_equal_is_followed_when_changed_later() -> None:
    # held() compares the boxes with ==: a new list of the same rows is equal, but the watch must
    # follow the new list, or a row replaced in it later would go unseen
    model, check = gpt_and_check()
    wq = model.layers[0].attn.wq
    wq.weight = list(wq.weight)
    check()
    wq.weight[1] = [Value(0.0) for _ in range(4)]  # (in the new list only: the old one still holds the row)
    assert check() is not None


def test_an_attribute_whose_equality_raises_counts_as_changed() -> None:
    model, check = gpt_and_check()
    model.layers[0].mlp.table = np.zeros(3)  # type: ignore[attr-defined]
    check()
    model.layers[0].mlp.table = np.zeros(3)  # type: ignore[attr-defined]  # (== of arrays: no bool)
    assert check() is None
    model.layers[0].mlp.fc1.weight[0][0] = Value(0.0)
    assert check() is not None


# ---- a square batch (issue 47, item 5) ---------------------------------------------------------


def linear_step(batch_axis: int | None = None) -> tuple[Any, list[Value]]:
    w = [Value(1.0), Value(10.0), Value(100.0)]
    step = micrograd.compile(
        lambda x: w[0] * x[0] + w[1] * x[1] + w[2] * x[2],
        ([0.0, 0.0, 0.0],),
        params=w,
        batched=True,
        reduction="sum",
        batch_axis=batch_axis,
    )
    return step, w


SQUARE = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]


def test_a_square_batch_is_refused_with_how_to_say_its_layout() -> None:
    step, _ = linear_step()
    message = r"shape \(3, 3\): 3 samples .*\(features first\).*batch_axis=0.*batch_axis=-1"
    with pytest.raises(ValueError, match=message):
        step(SQUARE)
    with pytest.raises(ValueError, match=message):
        step.per_sample(SQUARE)
    assert step([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])[0] == 321 + 654  # not square: samples first


def test_the_batch_axis_said_reads_a_square_batch_either_way() -> None:
    first, _ = linear_step(batch_axis=0)
    last, _ = linear_step(batch_axis=-1)
    losses = first.per_sample(SQUARE)[0].tolist()
    assert losses == [321.0, 654.0, 987.0]
    assert last.per_sample(np.array(SQUARE).T)[0].tolist() == losses
    assert last.per_sample([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])[0].tolist() == [321.0, 654.0]


def test_a_features_first_batch_that_is_not_square_gets_the_hint() -> None:
    step, _ = linear_step()
    with pytest.raises(ValueError, match=r"features first\? compile\(\.\.\., batch_axis=-1\)"):
        step([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])


def test_one_input_that_tells_the_layout_is_enough() -> None:
    w = Value(2.0)
    step = micrograd.compile(
        lambda x, y: (w * x[0] - y[0]) ** 2, ([0.0, 0.0], [0.0, 0.0, 0.0]), params=[w], batched=True
    )
    losses, _ = step.per_sample([[1.0, 0.0], [3.0, 0.0]], [[1.0, 0, 0], [1.0, 0, 0]])  # (2, 2) and (2, 3)
    assert losses.tolist() == [1.0, 25.0]


def test_batch_axis_takes_0_or_minus_1_with_batched() -> None:
    with pytest.raises(ValueError, match=r"batch_axis=\.\.\.\) says where.*got 1"):
        linear_step(batch_axis=1)
    with pytest.raises(ValueError, match="with batched=True"):
        micrograd.compile(lambda x: x * 2, 1.0, batch_axis=0)
