"""Neuron, Layer, MLP: construction, seeding, initialisation, forward values and gradients."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd import Value, gradcheck
from nn import MLP, Layer, Neuron

floats = st.floats(-2.0, 2.0, allow_nan=False)


def test_default_mlp_is_micrograds_demo_model() -> None:
    model = MLP(2, [16, 16, 1], seed=1337)
    assert model.num_parameters() == len(model.parameters()) == 337
    assert model.activations == ["relu", "relu", "linear"]
    assert [type(n).__name__ for n in model.layers[0].neurons] == ["Neuron"] * 16
    assert isinstance(model([0.5, -0.5]), Value)  # one output: a Value, not a list


def test_seeded_models_are_reproducible_and_leave_global_random_alone() -> None:
    random.seed(5)
    state = random.getstate()
    a, b = MLP(3, [4, 2], seed=7), MLP(3, [4, 2], seed=7)
    assert random.getstate() == state
    assert a.state_dict() == b.state_dict()
    assert a.state_dict() != MLP(3, [4, 2], seed=8).state_dict()
    assert MLP(3, [4, 2], rng=random.Random(7)).state_dict() == a.state_dict()


def test_weights_drawn_in_micrograds_order_from_global_random() -> None:
    random.seed(1337)
    expected = [random.uniform(-1, 1) for _ in range(2 * 16 + 16 * 16 + 16)]
    random.seed(1337)
    model = MLP(2, [16, 16, 1])
    weights = [p.data for name, p in model.named_parameters() if not name.endswith(".b")]
    assert weights == expected
    assert all(n.b.data == 0.0 for layer in model.layers for n in layer.neurons)


def test_seed_and_rng_together_are_an_error() -> None:
    with pytest.raises(ValueError, match="seed or rng"):
        MLP(2, [1], seed=1, rng=random.Random(1))
    with pytest.raises(TypeError, match="rng must be"):
        Neuron(2, rng=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed must be an int"):
        Neuron(2, seed=1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"nin": 0, "nouts": [1]}, "nin must be a positive int"),
        ({"nin": 2, "nouts": []}, "non-empty list"),
        ({"nin": 2, "nouts": [3, 0]}, r"nouts\[1\] must be a positive int"),
        ({"nin": 2, "nouts": [3, 1], "activation": "swish"}, "unknown activation 'swish'"),
        ({"nin": 2, "nouts": [3, 1], "activation": ["relu"]}, "expected 2, got 1"),
        ({"nin": 2, "nouts": [3, 1], "init": "normal"}, "unknown init 'normal'"),
    ],
)
def test_bad_constructor_arguments_say_what_is_wrong(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MLP(**kwargs)  # type: ignore[arg-type]


def test_neuron_nonlin_and_activation() -> None:
    assert Neuron(2, seed=0).activation == "relu" and Neuron(2, seed=0).nonlin
    assert Neuron(2, nonlin=False, seed=0).activation == "linear"
    assert Neuron(2, activation="tanh", seed=0).nonlin
    with pytest.raises(ValueError, match="not both"):
        Neuron(2, nonlin=True, activation="tanh")


def test_wrong_input_length_says_expected_and_got() -> None:
    with pytest.raises(ValueError, match="expected 2 inputs, got 3"):
        MLP(2, [3, 1], seed=0)([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="expected 3 inputs, got 1"):
        Layer(3, 2, seed=0)([1.0])


def test_forward_is_bit_identical_to_micrograds_expression() -> None:
    neuron = Neuron(5, seed=3)
    x = [0.1, -0.7, 2.5, 1e-3, -3.3]
    expected = sum((wi * xi for wi, xi in zip(neuron.w, x)), neuron.b).relu()
    assert neuron(x).data == expected.data
    assert neuron([Value(v) for v in x]).data == expected.data


@pytest.mark.parametrize("activation", ["linear", "relu", "leaky_relu", "tanh", "sigmoid"])
def test_activations_apply_the_named_function(activation: str) -> None:
    neuron = Neuron(2, activation=activation, seed=1)
    for x in ([0.3, -0.2], [-1.0, 2.0], [2.0, 1.0]):
        z = neuron.w[0].data * x[0] + neuron.w[1].data * x[1]
        expected = {
            "linear": z,
            "relu": max(z, 0.0),
            "leaky_relu": z if z > 0 else 0.01 * z,
            "tanh": math.tanh(z),
            "sigmoid": 1 / (1 + math.exp(-z)),
        }[activation]
        assert neuron(x).data == pytest.approx(expected, rel=1e-15, abs=1e-15)


def test_mlp_activation_per_layer_and_multiple_outputs() -> None:
    model = MLP(2, [3, 4, 2], activation=["tanh", "sigmoid", "relu"], seed=0)
    assert model.activations == ["tanh", "sigmoid", "relu"]
    out = model([0.1, 0.2])
    assert isinstance(out, list) and len(out) == 2 and all(o.data >= 0 for o in out)
    assert MLP(2, [3, 3, 1], activation="tanh", seed=0).activations == ["tanh", "tanh", "linear"]


@pytest.mark.parametrize(
    ("init", "activation", "bound"),
    [
        ("uniform", "relu", 1.0),
        ("kaiming", "relu", math.sqrt(2) * math.sqrt(3 / 50)),
        ("kaiming", "tanh", 5 / 3 * math.sqrt(3 / 50)),
        ("xavier", "sigmoid", math.sqrt(6 / (50 + 40))),
    ],
)
def test_initialisation_bounds(init: str, activation: str, bound: float) -> None:
    layer = Layer(50, 40, activation=activation, init=init, seed=0)
    ws = [w.data for n in layer.neurons for w in n.w]
    assert max(abs(w) for w in ws) <= bound
    assert max(abs(w) for w in ws) > 0.95 * bound  # 2000 draws fill the interval
    assert all(n.b.data == 0.0 for n in layer.neurons)


def test_reprs_show_the_architecture() -> None:
    assert repr(Neuron(3, seed=0)) == "ReLUNeuron(3)"
    assert repr(Neuron(3, nonlin=False, seed=0)) == "LinearNeuron(3)"
    assert repr(Layer(3, 2, activation="tanh", seed=0)) == "Layer(3, 2, activation='tanh')"
    assert repr(MLP(2, [16, 16, 1], seed=0)) == "MLP(2, [16, 16, 1], activation=['relu', 'relu', 'linear'])"


def _away_from_kinks(model: MLP, x: list[float]) -> bool:
    """True when no ReLU pre-activation is within 1e-3 of its kink (finite differences straddle it)."""
    h = x
    for layer in model.layers:
        pre = [sum((w.data * v for w, v in zip(n.w, h)), n.b.data) for n in layer.neurons]
        if layer.activation == "relu" and any(abs(z) < 1e-3 for z in pre):
            return False
        h = [max(z, 0.0) for z in pre] if layer.activation == "relu" else pre
    return True


@settings(max_examples=40, deadline=None)
@given(x=st.lists(floats, min_size=3, max_size=3), seed=st.integers(0, 2**16))
def test_mlp_gradients_match_finite_differences(x: list[float], seed: int) -> None:
    model = MLP(3, [4, 3, 2], seed=seed)
    assume(_away_from_kinks(model, x))
    # with respect to the inputs, then to every weight and bias (gradcheck perturbs them in place)
    assert gradcheck(lambda *a: model(list(a)), [Value(v) for v in x])
    assert gradcheck(lambda *_: model(x), model.parameters())


@settings(max_examples=40, deadline=None)
@given(x=st.lists(floats, min_size=2, max_size=2), seed=st.integers(0, 2**16))
@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "leaky_relu", "linear"])
def test_smooth_layer_gradients_match_finite_differences(activation: str, x: list[float], seed: int) -> None:
    layer = Layer(2, 3, activation=activation, seed=seed)
    if activation == "leaky_relu":
        pre = [n.w[0].data * x[0] + n.w[1].data * x[1] for n in layer.neurons]
        assume(all(abs(z) > 1e-3 for z in pre))
    assert gradcheck(lambda *a: layer.forward(list(a)), [Value(v) for v in x])
    assert gradcheck(lambda *_: layer.forward(x), layer.parameters())


def test_the_lectures_all_tanh_network_and_its_loop_converge() -> None:
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", seed=0)
    assert model.activations == ["tanh", "tanh", "tanh"]
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    for _ in range(50):  # the lecture's loop: squared error, plain gradient descent
        loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= 0.05 * p.grad
    assert loss.data < 0.05
    assert all((model(x).data > 0) == (y > 0) for x, y in zip(xs, ys))
    with pytest.raises(ValueError, match="output_activation goes with one activation name"):
        MLP(3, [4, 1], activation=["tanh", "tanh"], output_activation="tanh")
