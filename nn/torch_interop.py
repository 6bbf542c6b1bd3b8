"""Moving an MLP to PyTorch and back, for users who outgrow a scalar engine.

``to_torch(mlp)`` builds the equivalent ``torch.nn.Sequential`` (a ``Linear``
per layer, each followed by its activation module unless linear) with the
weights copied; ``from_torch(seq)`` reads such a Sequential back into an MLP.
Neuron j of layer i becomes row j of ``seq[k].weight`` and entry j of its bias.
PyTorch is imported only when these functions are called.

>>> model = MLP(2, [3, 1], seed=0)                    # doctest: +SKIP
>>> seq = to_torch(model)                             # doctest: +SKIP
>>> from_torch(seq).state_dict() == model.state_dict()  # doctest: +SKIP
True
"""

from __future__ import annotations

import random
from typing import Any

from .layers import MLP

# activation name -> torch.nn class name (and the constructor arguments that match our op)
_TO_TORCH: dict[str, tuple[str, dict[str, Any]]] = {
    "relu": ("ReLU", {}),
    "leaky_relu": ("LeakyReLU", {"negative_slope": 0.01}),
    "tanh": ("Tanh", {}),
    "sigmoid": ("Sigmoid", {}),
}


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ImportError("nn.torch_interop needs PyTorch: pip install torch") from None
    return torch


def to_torch(model: MLP, dtype: Any = None) -> Any:
    """An equivalent ``torch.nn.Sequential`` with copies of the weights (float64 by default)."""
    if not isinstance(model, MLP):
        raise TypeError(f"to_torch() converts an MLP, got {type(model).__name__}")
    torch = _torch()
    dtype = torch.float64 if dtype is None else dtype
    modules = []
    for layer in model.layers:
        linear = torch.nn.Linear(layer.nin, layer.nout, dtype=dtype)
        with torch.no_grad():
            linear.weight.copy_(torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=dtype))
            linear.bias.copy_(torch.tensor([n.b.data for n in layer.neurons], dtype=dtype))
        modules.append(linear)
        if layer.activation != "linear":
            name, kwargs = _TO_TORCH[layer.activation]
            modules.append(getattr(torch.nn, name)(**kwargs))
    return torch.nn.Sequential(*modules)


def _activation_of(module: Any, index: int) -> str:
    torch = _torch()
    for ours, (name, kwargs) in _TO_TORCH.items():
        if type(module) is getattr(torch.nn, name):
            if all(getattr(module, k) == v for k, v in kwargs.items()):
                return ours
            settings = ", ".join(f"{k}={getattr(module, k)!r}" for k in kwargs)
            raise ValueError(f"seq[{index}] is {name}({settings}); only {kwargs} is supported")
    raise ValueError(
        f"seq[{index}] is {type(module).__name__}; supported: Linear, optionally followed by one of "
        f"{[name for name, _ in _TO_TORCH.values()]}"
    )


def from_torch(seq: Any) -> MLP:
    """An MLP with the architecture and weights of a Sequential of Linear layers
    (with bias), each optionally followed by ReLU, LeakyReLU(0.01), Tanh or Sigmoid."""
    torch = _torch()
    if not isinstance(seq, torch.nn.Sequential) or len(seq) == 0:
        raise TypeError(f"from_torch() reads a non-empty torch.nn.Sequential, got {type(seq).__name__}")
    linears: list[Any] = []
    activations: list[str] = []
    for i, module in enumerate(seq):
        if isinstance(module, torch.nn.Linear):
            if module.bias is None:
                raise ValueError(f"seq[{i}] is a Linear without bias; every neuron here has one")
            if linears and module.in_features != linears[-1].out_features:
                raise ValueError(
                    f"seq[{i}] takes {module.in_features} inputs but the layer before gives "
                    f"{linears[-1].out_features}"
                )
            linears.append(module)
            activations.append("linear")
        elif not linears or activations[-1] != "linear":
            raise ValueError(f"seq[{i}] ({type(module).__name__}) must follow a Linear layer")
        else:
            activations[-1] = _activation_of(module, i)
    model = MLP(
        linears[0].in_features,
        [m.out_features for m in linears],
        activation=activations,
        rng=random.Random(0),  # overwritten below; keeps the global random state untouched
    )
    state: dict[str, float] = {}
    for i, linear in enumerate(linears):
        weight = linear.weight.detach().to(torch.float64).tolist()
        bias = linear.bias.detach().to(torch.float64).tolist()
        for j, row in enumerate(weight):
            for k, w in enumerate(row):
                state[f"layers.{i}.neurons.{j}.w.{k}"] = w
            state[f"layers.{i}.neurons.{j}.b"] = bias[j]
    model.load_state_dict(state)
    return model
