"""MLP <-> torch.nn.Sequential: same architecture, same weights, same outputs in float64."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="nn.torch_interop converts to and from PyTorch")

from micrograd import Value  # noqa: E402
from nn import MLP  # noqa: E402
from nn.torch_interop import from_torch, to_torch  # noqa: E402

INPUTS = [[0.3, -1.2, 2.0], [0.0, 0.0, 0.0], [-3.0, 1.5, 0.25], [10.0, -7.0, 4.0]]


def outputs(model: MLP, x: list[float]) -> list[float]:
    out = model(x)
    return [out.data] if isinstance(out, Value) else [o.data for o in out]


@pytest.mark.parametrize(
    "activation", ["relu", ["tanh", "sigmoid", "linear"], ["leaky_relu", "relu", "tanh"]], ids=str
)
def test_to_torch_gives_the_same_outputs(activation: str | list[str]) -> None:
    model = MLP(3, [5, 4, 2], activation=activation, seed=11)
    seq = to_torch(model)
    assert len([m for m in seq if isinstance(m, torch.nn.Linear)]) == 3
    for x in INPUTS:
        theirs = seq(torch.tensor(x, dtype=torch.float64)).tolist()
        assert outputs(model, x) == pytest.approx(theirs, rel=1e-12, abs=1e-12)


def test_round_trip_keeps_every_weight() -> None:
    model = MLP(3, [5, 1], activation=["sigmoid", "linear"], seed=2)
    back = from_torch(to_torch(model))
    assert repr(back) == repr(model)
    assert back.state_dict() == model.state_dict()


def test_from_torch_reads_a_torch_built_network() -> None:
    torch.manual_seed(0)
    seq = torch.nn.Sequential(
        torch.nn.Linear(3, 6), torch.nn.Tanh(), torch.nn.Linear(6, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)
    ).double()
    model = from_torch(seq)
    assert model.activations == ["tanh", "relu", "linear"] and model.num_parameters() == 24 + 28 + 10
    for x in INPUTS:
        theirs = seq(torch.tensor(x, dtype=torch.float64)).tolist()
        assert outputs(model, x) == pytest.approx(theirs, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    ("modules", "message"),
    [
        (lambda: [torch.nn.ReLU(), torch.nn.Linear(2, 1)], "must follow a Linear"),
        (lambda: [torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Tanh()], "must follow a Linear"),
        (lambda: [torch.nn.Linear(2, 3), torch.nn.GELU()], "GELU; supported"),
        (lambda: [torch.nn.Linear(2, 3), torch.nn.LeakyReLU(0.2)], "negative_slope=0.2"),
        (lambda: [torch.nn.Linear(2, 3, bias=False)], "without bias"),
        (
            lambda: [torch.nn.Linear(2, 3), torch.nn.Linear(4, 1)],
            "takes 4 inputs but the layer before gives 3",
        ),
    ],
)
def test_unsupported_sequentials_are_clear_errors(modules: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_torch(torch.nn.Sequential(*modules()))  # type: ignore[operator]


def test_wrong_types() -> None:
    with pytest.raises(TypeError, match=r"non-empty torch\.nn\.Sequential"):
        from_torch(torch.nn.Linear(2, 1))
    with pytest.raises(TypeError, match="converts an MLP"):
        to_torch(torch.nn.Linear(2, 1))
