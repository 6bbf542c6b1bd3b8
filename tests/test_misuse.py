"""A table of common mistakes with the engine, the nn library and ``render``: each gives an error
that says what was wrong and how to fix it (the exception type and a key phrase of the message are
checked).  Anomaly detection and hooks have their own tests in ``test_hooks_and_anomalies.py``."""

from __future__ import annotations

import math
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import micrograd
import nn
from micrograd import Value, is_grad_enabled, no_grad, render
from micrograd.compiler import ReplacedParameterError
from micrograd.viz import GraphTooLargeError
from nn import MLP, Layer, Neuron, accuracy, datasets, losses, optim

MODEL = MLP(2, [3, 1], seed=0)


def replace_a_parameter_after_compiling() -> None:
    model = MLP(2, [3, 1], seed=0)
    step = micrograd.compile(lambda x: model([x, x]), 1.0, params=model)
    model.layers[0].neurons[0].w[0] = Value(5.0)
    step(2.0)


MULTI = MLP(2, [3, 3], seed=0)  # three outputs per sample
P = MODEL.parameters()
X, y = datasets.make_moons(4, seed=0)
# paths in the rows: never written, as every row fails before writing
TMP = Path(tempfile.gettempdir()) / "micrograd-misuse-table"
DIVERGED = MLP(1, [1], seed=0)
DIVERGED.layers[0].neurons[0].b.data = math.nan


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
    # ---- models: construction and calling
    ("MLP(2, 16): one size", _call(MLP, 2, 16), ValueError, r"nouts must be a non-empty list.*\[16, 16, 1\]"),
    ("MLP(2.5, [1])", _call(MLP, 2.5, [1]), ValueError, "nin must be a positive int, got 2.5"),
    ("MLP(2, [4, 0])", _call(MLP, 2, [4, 0]), ValueError, r"nouts\[1\] must be a positive int"),
    ("seed as a float", _call(MLP, 2, [1], seed=1.5), TypeError, "seed must be an int"),
    (
        "model(1.0): a number",
        _call(MODEL, 1.0),
        TypeError,
        r"takes one sample, a list of 2 inputs.*got float",
    ),
    ("model(x) of a 1-input model", _call(MLP(1, [1], seed=0), 2.0), TypeError, r"write model\(\[x\]\)"),
    ("model('ab'): a string", _call(MODEL, "ab"), TypeError, "a list of 2 inputs.*got str"),
    ("model(x) with 3 inputs", _call(MODEL, [1.0, 2.0, 3.0]), ValueError, "expected 2 inputs, got 3"),
    (
        "model(X): the batch",
        _call(MODEL, [[0.0, 1.0]] * 5),
        ValueError,
        r"batch of 5 samples.*\[model\(x\) for x in X\]",
    ),
    ("model(X[:2])", _call(MODEL, [[0.0, 1.0]] * 2), TypeError, r"input 0 must be a number.*for a batch"),
    (
        "model([1.0, None])",
        _call(MODEL, [1.0, None]),
        TypeError,
        "input 1 must be a number or a Value, got NoneType",
    ),
    ("layer(1.0)", _call(MODEL.layers[0], 1.0), TypeError, r"layer\(x\) takes one sample"),
    (
        "neuron([1.0])",
        _call(MODEL.layers[0].neurons[0], [1.0]),
        ValueError,
        r"neuron\(x\) expected 2 inputs, got 1",
    ),
    # ---- losses on the wrong shapes
    (
        "hinge on 3 outputs per sample",
        _call(losses.hinge, [MULTI(x) for x in X], y),
        TypeError,
        r"scores\[0\] is a list of 3 items.*cross_entropy",
    ),
    (
        "mse on 3 outputs per sample",
        _call(losses.mse, [MULTI(x) for x in X], [[0.0] * 3] * 4),
        TypeError,
        r"mse: preds\[0\] is a list of 3 items.*flatten",
    ),
    (
        "bce on 3 outputs per sample",
        _call(losses.binary_cross_entropy_with_logits, [MULTI(x) for x in X], y),
        TypeError,
        r"logits\[0\] is a list.*one score per sample",
    ),
    (
        "mse(None, ...)",
        _call(losses.mse, None, [1.0]),
        TypeError,
        "preds must be a number, a Value or a list",
    ),
    (
        "hinge with string labels",
        _call(losses.hinge, [Value(1.0)], ["1"]),
        TypeError,
        r"labels\[0\] must be a number",
    ),
    (
        "hinge with labels 1, 2",
        _call(losses.hinge, [Value(1.0)] * 2, [1, 2]),
        ValueError,
        "binary labels must be",
    ),
    (
        "cross_entropy of scores",
        _call(losses.cross_entropy, [Value(1.0)], [0]),
        TypeError,
        "must be a list of logits",
    ),
    ("accuracy of nothing", _call(accuracy, [], []), ValueError, "outputs is empty"),
    # ---- datasets
    ("make_moons(1)", _call(datasets.make_moons, 1), ValueError, "n_samples must be an int >= 2"),
    (
        "make_moons(100.0)",
        _call(datasets.make_moons, 100.0),
        ValueError,
        "n_samples must be an int >= 2, got 100.0",
    ),
    (
        "noise=-0.1",
        _call(datasets.make_moons, 10, noise=-0.1),
        ValueError,
        "noise must be a finite number >= 0",
    ),
    (
        "noise=nan",
        _call(datasets.make_circles, 10, noise=math.nan),
        ValueError,
        "noise must be a finite number",
    ),
    (
        "test_size=1.5",
        _call(datasets.train_test_split, X, y, 1.5),
        ValueError,
        r"fraction must be in \(0, 1\)",
    ),
    (
        "test_size='0.2'",
        _call(datasets.train_test_split, X, y, "0.2"),
        TypeError,
        "test_size must be a fraction or a count",
    ),
    (
        "make_spirals(n_classes=1)",
        _call(datasets.make_spirals, 10, n_classes=1),
        ValueError,
        "n_classes must be an int >= 2",
    ),
    (
        "X and y of different lengths",
        _call(datasets.train_test_split, X, y[:-1]),
        ValueError,
        "X has 4 samples but y has 3",
    ),
    # ---- model configuration
    (
        "activation='softmax'",
        _call(MLP, 2, [3, 1], activation="softmax"),
        ValueError,
        "unknown activation 'softmax'; choose one of",
    ),
    (
        "one activation per layer",
        _call(MLP, 2, [3, 1], activation=["relu"]),
        ValueError,
        "one name per layer: expected 2, got 1",
    ),
    ("init='he'", _call(MLP, 2, [3, 1], init="he"), ValueError, "unknown init 'he'"),
    (
        "seed and rng",
        _call(MLP, 2, [1], seed=1, rng=random.Random(1)),
        ValueError,
        "give seed or rng, not both",
    ),
    ("load_state_dict(list)", _call(MODEL.load_state_dict, [1.0]), TypeError, "state must be a mapping"),
    (
        "load_state_dict with nan",
        _call(MODEL.load_state_dict, dict.fromkeys(MODEL.state_dict(), math.nan)),
        ValueError,
        "not a finite number",
    ),
    # ---- model files
    (
        "save a Layer",
        _call(nn.io.save, MODEL.layers[0], TMP / "m.json"),
        TypeError,
        "save\\(\\) writes an MLP",
    ),
    (
        "save into a missing directory",
        _call(MODEL.save, TMP / "missing" / "dir" / "m.json"),
        FileNotFoundError,
        r"the directory '.*missing/dir' does not exist",
    ),
    (
        "save a diverged model",
        _call(nn.io.save, DIVERGED, TMP / "m.json"),
        ValueError,
        "non-finite weights.*learning rate too high.*nan/inf came in with the data",
    ),
    (
        "load a missing file",
        _call(MLP.load, TMP / "no-such-model.json"),
        FileNotFoundError,
        "no-such-model.json",
    ),
    # ---- render
    (
        "render(3.0, ...)",
        _call(render, 3.0, TMP / "g.png"),
        TypeError,
        "needs a Value or a sequence of Values, got float",
    ),
    (
        "render to .jpg",
        _call(render, Value(1.0), TMP / "g.jpg"),
        ValueError,
        r"cannot tell the format.*\.png",
    ),
    (
        "render .png as svg",
        _call(render, Value(1.0), TMP / "g.png", format="svg"),
        ValueError,
        r"ends in \.png but format='svg'",
    ),
    (
        "render(timeout=0)",
        _call(render, Value(1.0), TMP / "g.png", timeout=0),
        ValueError,
        "timeout must be a positive number",
    ),
    (
        "render a huge graph",
        _call(render, micrograd.sum(Value(float(i)) for i in range(400)), TMP / "g.svg"),
        GraphTooLargeError,
        r"402 Values.*single sample.*format='svg'.*max_nodes=402",
    ),
    # ---- no_grad
    ("no_grad(3)", _call(no_grad, 3), TypeError, r"no_grad\(\) takes no arguments.*@no_grad"),
    # ---- the engine
    (
        "backward() on a result computed under no_grad",
        lambda: _under_no_grad().backward(),
        RuntimeError,
        r"no_grad\(\).*outside",
    ),
    (
        "a numpy array times a Value",
        lambda: np.array([1.0, 2.0]) * Value(2.0),
        TypeError,
        r"numpy array of shape \(2,\)",
    ),
    (
        "a Value times a numpy array",
        lambda: Value(2.0) * np.array([1.0, 2.0]),
        TypeError,
        r"one Value per element",
    ),
    ("Value of a string", _call(Value, "1.5"), TypeError, r"expects a real number.*str"),
    ("Value of a Value", _call(Value, Value(1.0)), TypeError, r"got a Value.*detach\(\)"),
    (
        "a hand-built node without a rule",
        lambda: (Value(1.0, (Value(2.0),), "twice") * 2).backward(),
        RuntimeError,
        r"op 'twice'.*_backward.*Function",
    ),
    (
        "a hook that is not a function",
        lambda: Value(1.0).register_hook(3),
        TypeError,
        r"register_hook needs a function",
    ),
    (
        "compile(params=model), then a parameter replaced by a new Value",
        lambda: replace_a_parameter_after_compiling(),
        ReplacedParameterError,
        r"parameter 0 .* is a new Value.*Compile again.*setting its \.data",
    ),
    (
        "compile(params=model.parameters)",
        _call(micrograd.compile, lambda x: MODEL([x, x]), 1.0, params=MODEL.parameters),
        TypeError,
        r"call it: params=model\.parameters\(\)",
    ),
    (
        "compile(params=3)",
        _call(micrograd.compile, lambda x: x * 2, 1.0, params=3),
        TypeError,
        r"list of Values",
    ),
    (
        "grad() of an input not used",
        _call(micrograd.grad, Value(1.0) * 2, [Value(3.0)]),
        ValueError,
        r"not used.*allow_unused=True",
    ),
    (
        "backward() into a .grad that holds a Value",
        lambda: _grad_holding_a_value().backward(),
        TypeError,
        r"a \.grad holds a Value",
    ),
]


def _grad_holding_a_value() -> Value:
    p = Value(1.0)
    p.grad = p * 2  # type: ignore[assignment]
    return p * 3.0


def _under_no_grad() -> Value:
    with no_grad():
        return Value(2.0) * 3


@pytest.mark.parametrize(("call", "error", "phrase"), [m[1:] for m in MISUSES], ids=[m[0] for m in MISUSES])
def test_misuse_gives_a_clear_error(
    call: Callable[[], object], error: type[BaseException], phrase: str
) -> None:
    with pytest.raises(error, match=phrase) as info:
        call()
    assert len(str(info.value)) < 500


def test_the_table_is_long_enough() -> None:
    assert len(MISUSES) >= 30


def test_setting_a_bad_lr_between_steps_is_refused_and_keeps_the_old_one() -> None:
    opt = optim.SGD(P, lr=0.1)
    with pytest.raises(ValueError, match="finite"):
        opt.lr = math.inf
    assert opt.lr == 0.1


def test_numpy_scalars_are_accepted_as_hyper_parameters() -> None:
    betas = np.array([0.9, 0.99])  # an array where a tuple is expected: any pair will do
    opt = optim.Adam(P, lr=np.float32(0.5), betas=betas, eps=np.float64(1e-8))  # type: ignore[arg-type]
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


def test_numpy_scalars_are_accepted_wherever_python_numbers_are() -> None:
    i, f = np.int64, np.float32
    model = MLP(i(2), np.array([3, 1]), seed=i(7))  # type: ignore[arg-type]
    assert model.state_dict() == MLP(2, [3, 1], seed=7).state_dict()
    sample = np.array([0.5, -1.0])
    assert model(sample).data == model([0.5, -1.0]).data  # type: ignore[arg-type, union-attr]
    assert model([f(0.5), i(-1)]).data == model([float(f(0.5)), -1]).data  # type: ignore[union-attr]
    Xn, yn = datasets.make_moons(i(10), noise=f(0.1), seed=i(1))
    assert (Xn, yn) == datasets.make_moons(10, noise=float(f(0.1)), seed=1)
    assert all(type(label) is int for label in yn)
    assert len(datasets.make_circles(np.int32(6), factor=np.float64(0.5), noise=np.float16(0.1))[0]) == 6
    assert len(datasets.make_spirals(i(9), n_classes=i(3), seed=np.uint8(2))[0]) == 9
    assert len(datasets.train_test_split(Xn, yn, test_size=f(0.25), seed=i(0))[1]) == 3
    assert len(datasets.train_test_split(Xn, yn, test_size=i(4))[1]) == 4
    assert accuracy([[0.1, 0.9], [2.0, -1.0]], [i(1), i(1)]) == 0.5
    assert repr(Layer(i(2), i(3), activation=np.str_("tanh"), seed=i(0))) == "Layer(2, 3, activation='tanh')"
    assert Neuron(np.int8(2), seed=np.uint64(1)).nin == 2
    assert optim.SGD(P, lr=f(0.1), momentum=0.9, nesterov=np.bool_(True)).nesterov is True


def test_data_set_to_a_value_is_named_at_the_next_op() -> None:
    from micrograd import Value

    p = Value(1.0)
    p.grad = 0.5
    p.data = p - 0.1 * p.grad  # type: ignore[assignment]  # the slip: a node where a number belongs
    for use in (lambda: p * 2.0, lambda: p.exp(), lambda: 1.0 + p, lambda: p**2):
        with pytest.raises(
            TypeError, match=r"an operand.s \.data holds a Value .*write `p\.data -= lr \* p\.grad`"
        ):
            use()


def test_grad_set_to_a_value_is_named_at_the_next_backward() -> None:
    """``p.grad = <a Value>`` would make backward() add into it and build a graph of gradients,
    silently; it is a TypeError saying what to store instead.  Numbers (ints too, as microgpt's
    ``p.grad = 0``) stay fine."""
    from micrograd import Value

    p, t = Value(1.0), Value(3.0)
    p.grad = 2 * (p - t)  # type: ignore[assignment]  # the slip: a node where a number belongs
    with pytest.raises(TypeError, match=r"a \.grad holds a Value .*`p\.grad = 0\.0` resets it"):
        (p * 3.0).backward()
    p.grad = 0
    (p * 3.0).backward()
    (p * 3.0).backward()
    assert p.grad == 6.0 and type(p.grad) is float
    p.grad = Value(0.0)  # type: ignore[assignment]  # zero: nothing to add to, simply replaced
    (p * 3.0).backward()
    assert p.grad == 3.0
