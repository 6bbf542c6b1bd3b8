"""A table of common mistakes with the nn library and ``render``: each gives an error that says
what was wrong and how to fix it (the exception type and a key phrase of the message are checked).

Engine-side mistakes (anomaly detection, hooks, backward under no_grad, numpy arrays * Value)
have their own rows elsewhere."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from micrograd import Value, is_grad_enabled, no_grad
from nn import MLP, optim

MODEL = MLP(2, [3, 1], seed=0)
MULTI = MLP(2, [3, 3], seed=0)  # three outputs per sample
P = MODEL.parameters()


def _call(f: Any, *args: Any, **kwargs: Any) -> Callable[[], object]:
    return lambda: f(*args, **kwargs)


# (what the user did, the call, the exception type, a key phrase of the message: a regular expression)
MISUSES: list[tuple[str, Callable[[], object], type[BaseException], str]] = [
    # ---- optimizers: the parameter list
    (
        "SGD(model.parameters) without the call",
        _call(optim.SGD, MODEL.parameters, lr=0.1),
        TypeError,
        r"the method .*parameters itself.*model\.parameters\(\)",
    ),
    (
        "Adam(model): the module",
        _call(optim.Adam, MODEL),
        TypeError,
        r"the module itself.*model\.parameters\(\)",
    ),
    ("one Value", _call(optim.SGD, Value(1.0), lr=0.1), TypeError, r"one Value.*\[v\]"),
    ("a number", _call(optim.SGD, 3.0, lr=0.1), TypeError, r"got float.*model\.parameters\(\)"),
    (
        "an empty list",
        _call(optim.SGD, [], lr=0.1),
        ValueError,
        r"empty parameter list.*model\.parameters\(\)",
    ),
    (
        "an op result",
        _call(optim.SGD, [Value(1.0) * 2], lr=0.1),
        ValueError,
        r"params\[0\] is the result of an op",
    ),
    ("duplicates", _call(optim.Adam, P + P[:1]), ValueError, r"params\[13\] appears more than once"),
    ("a nested list", _call(optim.SGD, [P], lr=0.1), TypeError, r"params\[0\] must be a Value.*nested"),
    (
        "a param group",
        _call(optim.SGD, [{"params": P}], lr=0.1),
        TypeError,
        r"groups \(dicts\) are not supported",
    ),
    (
        "a string in the list",
        _call(optim.SGD, [Value(1.0), "w"], lr=0.1),
        TypeError,
        r"params\[1\] must be a Value",
    ),
    # ---- optimizers: hyper-parameters
    ("lr=inf", _call(optim.SGD, P, lr=math.inf), ValueError, "invalid learning rate: inf .*finite"),
    ("lr=nan", _call(optim.Adam, P, lr=math.nan), ValueError, "invalid learning rate: nan .*finite"),
    ("lr<0", _call(optim.SGD, P, lr=-0.1), ValueError, "invalid learning rate: -0.1 .*>= 0"),
    ("lr as a string", _call(optim.SGD, P, lr="0.1"), TypeError, "learning rate must be a number"),
    ("lr as a Value", _call(optim.SGD, P, lr=Value(0.1)), TypeError, "learning rate must be a number"),
    ("momentum=inf", _call(optim.SGD, P, lr=0.1, momentum=math.inf), ValueError, "invalid momentum: inf"),
    ("eps=nan", _call(optim.Adam, P, eps=math.nan), ValueError, "invalid eps: nan"),
    ("beta1=1", _call(optim.Adam, P, betas=(1.0, 0.999)), ValueError, r"invalid beta1.*\[0\.0, 1\.0\)"),
    ("one beta", _call(optim.Adam, P, betas=0.9), ValueError, r"betas must be a pair"),
    ("weight_decay<0", _call(optim.AdamW, P, weight_decay=-1), ValueError, "invalid weight_decay"),
    # ---- no_grad
    ("no_grad(3)", _call(no_grad, 3), TypeError, r"no_grad\(\) takes no arguments.*@no_grad"),
]


@pytest.mark.parametrize(("call", "error", "phrase"), [m[1:] for m in MISUSES], ids=[m[0] for m in MISUSES])
def test_misuse_gives_a_clear_error(
    call: Callable[[], object], error: type[BaseException], phrase: str
) -> None:
    with pytest.raises(error, match=phrase) as info:
        call()
    assert len(str(info.value)) < 500


def test_setting_a_bad_lr_between_steps_is_refused_and_keeps_the_old_one() -> None:
    opt = optim.SGD(P, lr=0.1)
    with pytest.raises(ValueError, match="finite"):
        opt.lr = math.inf
    assert opt.lr == 0.1


def test_numpy_scalars_are_accepted_as_hyper_parameters() -> None:
    opt = optim.Adam(P, lr=np.float32(0.5), betas=np.array([0.9, 0.99]), eps=np.float64(1e-8))
    assert opt.lr == float(np.float32(0.5)) and opt.betas == (0.9, 0.99)
    sgd = optim.SGD(P, lr=np.int64(1), momentum=np.float16(0.5))
    assert (sgd.lr, sgd.momentum) == (1.0, 0.5)


def test_no_grad_as_a_bare_decorator() -> None:
    @no_grad
    def predict(v: Value) -> Value:
        assert not is_grad_enabled()
        return v * v

    class Model:
        @no_grad
        def __call__(self, v: Value) -> Value:
            return v * 3

    x = Value(2.0)
    assert predict(x)._prev == () and predict.__name__ == "predict"
    assert Model()(x)._prev == ()
    assert is_grad_enabled()
