"""Code written for karpathy's micrograd 0.1.0 keeps running, with the same numbers.

The reference is micrograd 0.1.0's own ``micrograd/nn.py``, fetched from PyPI at
test set-up and executed unchanged on this engine's Value
(``tests/micrograd_reference.py``): our ``nn`` must reproduce it weight for
weight and float for float.
"""

from __future__ import annotations

import contextlib
import gc
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from micrograd.engine import Value
from micrograd.nn import MLP, Layer, Module, Neuron
from tests.micrograd_reference import load_upstream


@pytest.fixture(scope="module")
def upstream_nn() -> ModuleType:
    return load_upstream("nn")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off inside the block, as it was after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def test_same_weights_outputs_and_gradients_as_micrograd(upstream_nn: ModuleType) -> None:
    random.seed(1337)
    ref = upstream_nn.MLP(2, [16, 16, 1])
    random.seed(1337)
    ours = MLP(2, [16, 16, 1])
    assert [p.data for p in ours.parameters()] == [p.data for p in ref.parameters()]
    for model in (ref, ours):
        loss = sum(model([x, -0.5 * x]) ** 2 for x in (0.1, 0.7, -1.3, 2.2))
        loss.backward()
    assert [p.grad for p in ours.parameters()] == [p.grad for p in ref.parameters()]
    for x in ([0.3, 0.4], [-2.0, 1.0]):
        assert ours(x).data == ref(x).data  # type: ignore[union-attr]
    ref.zero_grad()  # upstream's zero_grad writes an int into our Values
    assert all(p.grad == 0 for p in ref.parameters())


def test_micrograds_own_code_paths(upstream_nn: ModuleType) -> None:
    random.seed(0)
    n = Neuron(2, nonlin=False)
    assert repr(n) == "LinearNeuron(2)" == repr(upstream_nn.Neuron(2, nonlin=False))
    assert repr(Neuron(3)) == "ReLUNeuron(3)" == repr(upstream_nn.Neuron(3))
    assert not n.nonlin and len(n.parameters()) == 3
    assert isinstance(n, Module)
    layer = Layer(2, 3, nonlin=False)  # micrograd's Layer forwards **kwargs to Neuron
    assert all(not m.nonlin for m in layer.neurons)
    assert len(layer([Value(1.0), 2.0])) == 3  # type: ignore[arg-type]
    single = Layer(2, 1)([1.0, 2.0])
    assert isinstance(single, Value)
    model = MLP(2, [16, 16, 1])
    out = model([Value(0.1), Value(-0.2)])
    assert isinstance(out, Value)
    out.backward()
    model.zero_grad()
    assert all(p.grad == 0 for p in model.parameters())
    assert "MLP" in repr(model) and "[16, 16, 1]" in repr(model)


def _sklearn_moons(n_samples: int, noise: float) -> tuple[list[list[float]], list[int]]:
    """scikit-learn's make_moons(n_samples, noise) after np.random.seed(1337), as micrograd's
    demo notebook calls it, written out with NumPy (sklearn is not a dependency): evenly spaced
    half circles, a shuffle of arange(n) by the RandomState, then normal noise from it."""
    np = pytest.importorskip("numpy", reason="the demo's data comes from NumPy's RandomState")
    rs = np.random.RandomState(1337)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    outer = np.linspace(0, np.pi, n_out)
    inner = np.linspace(0, np.pi, n_in)
    X = np.vstack(
        [np.append(np.cos(outer), 1 - np.cos(inner)), np.append(np.sin(outer), 1 - np.sin(inner) - 0.5)]
    ).T
    y = np.hstack([np.zeros(n_out, dtype=np.intp), np.ones(n_in, dtype=np.intp)])
    order = np.arange(n_samples)
    rs.shuffle(order)
    X, y = X[order], y[order]
    X += rs.normal(scale=noise, size=X.shape)
    return X.tolist(), y.tolist()


@pytest.mark.slow
def test_micrograds_demo_loop_reaches_full_training_accuracy(upstream_nn: ModuleType) -> None:
    """micrograd's demo.ipynb, written with micrograd 0.1.0's API only, trains micrograd 0.1.0's
    own MLP on this engine to 100%, and our MLP, trained beside it, follows it bit for bit."""
    X, y = _sklearn_moons(100, 0.1)
    y = [yi * 2 - 1 for yi in y]  # make y be -1 or 1
    random.seed(1337)
    reference = upstream_nn.MLP(2, [16, 16, 1])  # 2-layer neural network
    random.seed(1337)
    ours = MLP(2, [16, 16, 1])
    assert len(reference.parameters()) == len(ours.parameters()) == 337

    def loss(model: Any) -> tuple[Value, float]:
        inputs = [list(map(Value, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        alpha = 1e-4
        reg_loss = alpha * sum(p * p for p in model.parameters())
        total_loss = data_loss + reg_loss
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(y, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    first = None
    # Neither model's graphs hold reference cycles, so reference counting frees each step's graph;
    # pausing the cyclic collector only spares it walking every object earlier tests left alive.
    with collector_paused():
        for k in range(100):
            learning_rate = 1.0 - 0.9 * k / 100
            step = []
            for model in (reference, ours):
                total_loss, acc = loss(model)
                model.zero_grad()
                total_loss.backward()
                for p in model.parameters():
                    p.data -= learning_rate * p.grad
                step.append((total_loss.data, acc))
            assert step[1] == step[0], f"step {k}: ours {step[1]}, micrograd 0.1.0's MLP {step[0]}"
            first = step[0][0] if first is None else first
    assert [p.data for p in ours.parameters()] == [p.data for p in reference.parameters()]
    total_loss, acc = loss(reference)
    assert acc == 1.0
    assert total_loss.data < 0.05 * first


@pytest.mark.slow
def test_the_issue_example_trains_saves_and_loads(tmp_path: Path) -> None:
    from nn import accuracy, datasets, losses, optim

    X, y = datasets.make_moons(50, noise=0.1, seed=1337)  # half the issue's 100 points: quicker
    model = MLP(2, [16, 16, 1], seed=1337)
    opt = optim.Adam(model.parameters(), lr=0.05)
    for _ in range(40):
        scores = [model(x) for x in X]
        loss = losses.hinge(scores, y) + 1e-4 * sum(p * p for p in model.parameters())
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert accuracy([model(x) for x in X], y) >= 0.95
    model.save(str(tmp_path / "moons.json"))
    model2 = MLP.load(str(tmp_path / "moons.json"))
    assert [model2(x).data for x in X] == [model(x).data for x in X]  # type: ignore[union-attr]
