"""``Neuron``, ``Layer`` and ``MLP``: micrograd's networks, configurable and seeded.

With the defaults they are exactly karpathy's micrograd 0.1.0: weights drawn
with ``random.uniform(-1, 1)`` from Python's global ``random`` module, in the
same order (layer by layer, neuron by neuron, weights first), biases 0, ReLU
hidden layers and a linear output layer, and the same float operations in the
forward pass.  So ``random.seed(1337); MLP(2, [16, 16, 1])`` is micrograd's
demo model, weight for weight.
"""

from __future__ import annotations

import math
import numbers
import os
import random
import reprlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import micrograd
from micrograd import Value

from . import io
from .module import Module

Input = Sequence[Value | float | int]
Rng = random.Random | ModuleType  # a random.Random, or the random module itself

# name -> (the op applied to a neuron's sum, PyTorch's calculate_gain for the scaled inits)
ACTIVATIONS: dict[str, tuple[Callable[[Value], Value] | None, float]] = {
    "linear": (None, 1.0),
    "relu": (Value.relu, math.sqrt(2.0)),
    "leaky_relu": (Value.leaky_relu, math.sqrt(2.0 / (1 + 0.01**2))),
    "tanh": (Value.tanh, 5.0 / 3.0),
    "sigmoid": (Value.sigmoid, 1.0),
}
INITS = ("uniform", "kaiming", "xavier")
_TITLES = {
    "linear": "Linear",
    "relu": "ReLU",
    "leaky_relu": "LeakyReLU",
    "tanh": "Tanh",
    "sigmoid": "Sigmoid",
}


def _check_activation(activation: object) -> str:
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; choose one of {sorted(ACTIVATIONS)}")
    return str(activation)  # a plain str, also for NumPy's np.str_


def _check_size(n: object, what: str) -> int:
    # numbers.Integral: Python and NumPy ints alike (np.int64(2) is a fine size)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"{what} must be a positive int, got {n!r}")
    return int(n)


# What a sample's items usually are, checked by their exact types in one pass (set operations run
# in C): each neuron of a layer checks the inputs the layer checked, so the common case is cheap.
_PLAIN_ITEMS = frozenset({Value, float, int})


def _check_input(x: object, n: int, who: str) -> None:
    """A clear error unless ``x`` is one sample: a list (tuple, array) of ``n`` numbers or Values."""
    if isinstance(x, (list, tuple)) and len(x) == n and _PLAIN_ITEMS.issuperset(map(type, x)):
        return  # (bool is not among them: True is refused below)
    if isinstance(x, (Value, numbers.Number, str, bytes)) or not hasattr(x, "__len__"):
        wrap = (
            f"; for one input write {who}([x])" if n == 1 and isinstance(x, (Value, numbers.Number)) else ""
        )
        raise TypeError(
            f"{who}(x) takes one sample, a list of {n} input{'s' * (n != 1)} (numbers or Values), "
            f"got {type(x).__name__}: {reprlib.repr(x)}{wrap}"
        )
    items = list(x)  # type: ignore[call-overload]
    if len(items) != n:
        batch = ""
        if items and all(hasattr(i, "__len__") and not isinstance(i, (str, bytes)) for i in items):
            batch = f"; it looks like a batch of {len(items)} samples: use [{who}(x) for x in X]"
        raise ValueError(f"{who}(x) expected {n} inputs, got {len(items)}{batch}")
    for i, xi in enumerate(items):
        if isinstance(xi, bool) or not isinstance(xi, (Value, numbers.Real)):
            batch = f"; for a batch use [{who}(x) for x in X]" if hasattr(xi, "__len__") else ""
            raise TypeError(
                f"{who}(x): input {i} must be a number or a Value, got {type(xi).__name__}: "
                f"{reprlib.repr(xi)}{batch}"
            )


def make_rng(seed: int | None, rng: Rng | None) -> Rng:
    """The random source for initialisation: ``random.Random(seed)``, ``rng``, or
    (neither given) Python's global ``random`` module, as micrograd uses."""
    if seed is not None and rng is not None:
        raise ValueError("give seed or rng, not both")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}: {seed!r}")
        return random.Random(int(seed))  # random.Random refuses NumPy ints
    if rng is None:
        return random
    if not callable(getattr(rng, "uniform", None)):
        raise TypeError(f"rng must be a random.Random (or the random module), got {type(rng).__name__}")
    return rng


def _weight_bound(init: str, activation: str, fan_in: int, fan_out: int) -> float:
    """Half-width of the uniform distribution the weights are drawn from."""
    if init == "uniform":
        return 1.0  # micrograd's uniform(-1, 1)
    gain = ACTIVATIONS[activation][1]
    if init == "kaiming":  # PyTorch's kaiming_uniform_, fan_in mode
        return gain * math.sqrt(3.0 / fan_in)
    if init == "xavier":  # PyTorch's xavier_uniform_
        return gain * math.sqrt(6.0 / (fan_in + fan_out))
    raise ValueError(f"unknown init {init!r}; choose one of {list(INITS)}")


class Neuron(Module):
    """``activation(w . x + b)``, one weight per input.

    ``nonlin`` is micrograd's switch (True: ReLU, False: linear); ``activation``
    names any of ``linear``, ``relu``, ``leaky_relu``, ``tanh``, ``sigmoid``.
    ``init`` is ``"uniform"`` (micrograd's U(-1, 1)), ``"kaiming"`` or ``"xavier"``
    (PyTorch's uniform variants, scaled for the activation; Xavier also uses
    ``fan_out``, the size of the neuron's layer).  Biases start at 0.

    >>> n = Neuron(2, nonlin=False, seed=0)
    >>> n
    LinearNeuron(2)
    >>> n([1.0, 2.0]).data == n.w[0].data + 2 * n.w[1].data
    True
    """

    w: list[Value]
    b: Value

    def __init__(
        self,
        nin: int,
        nonlin: bool | None = None,
        *,
        activation: str | None = None,
        init: str = "uniform",
        fan_out: int = 1,
        seed: int | None = None,
        rng: Rng | None = None,
    ) -> None:
        nin = _check_size(nin, "nin")
        fan_out = _check_size(fan_out, "fan_out")
        if nonlin is not None and activation is not None:
            raise ValueError("give nonlin (micrograd's switch) or activation, not both")
        if activation is None:
            activation = "linear" if nonlin is False else "relu"
        self._activation = _check_activation(activation)
        self._activate = ACTIVATIONS[activation][0]
        if init not in INITS:
            raise ValueError(f"unknown init {init!r}; choose one of {list(INITS)}")
        bound = _weight_bound(init, activation, nin, fan_out)
        r = make_rng(seed, rng)
        self.w = [Value(r.uniform(-bound, bound)) for _ in range(nin)]
        self.b = Value(0)

    @property
    def activation(self) -> str:
        """The name of the activation."""
        return self._activation

    @property
    def nonlin(self) -> bool:
        """micrograd's flag: True unless the neuron is linear."""
        return self._activation != "linear"

    @property
    def nin(self) -> int:
        return len(self.w)

    def __call__(self, x: Input) -> Value:
        _check_input(x, len(self.w), "neuron")
        # micrograd's sum((wi*xi for ...), self.b): the same float operations in the same
        # order, but the additions form one n-ary node instead of a chain of nin nodes.
        act = micrograd.dot(self.w, x, self.b)
        activate = self._activate
        return act if activate is None else activate(act)

    def __repr__(self) -> str:
        return f"{_TITLES[self._activation]}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons that all see the same inputs.

    Returns a list of ``nout`` Values, or a single Value when ``nout == 1``
    (as micrograd does).

    >>> layer = Layer(3, 2, activation="tanh", seed=0)
    >>> layer
    Layer(3, 2, activation='tanh')
    >>> len(layer([1.0, 2.0, 3.0]))
    2
    """

    neurons: list[Neuron]

    def __init__(
        self,
        nin: int,
        nout: int,
        nonlin: bool | None = None,
        *,
        activation: str | None = None,
        init: str = "uniform",
        seed: int | None = None,
        rng: Rng | None = None,
    ) -> None:
        nout = _check_size(nout, "nout")
        r = make_rng(seed, rng)
        kw: dict[str, Any] = {"nonlin": nonlin, "activation": activation, "init": init, "fan_out": nout}
        self.neurons = [Neuron(nin, rng=r, **kw) for _ in range(nout)]

    @property
    def nin(self) -> int:
        return self.neurons[0].nin

    @property
    def nout(self) -> int:
        return len(self.neurons)

    @property
    def activation(self) -> str:
        return self.neurons[0].activation

    def forward(self, x: Input) -> list[Value]:
        """The outputs as a list, whatever their number."""
        _check_input(x, self.nin, "layer")
        return [n(x) for n in self.neurons]

    def __call__(self, x: Input) -> Value | list[Value]:
        out = self.forward(x)
        return out[0] if len(out) == 1 else out

    def __repr__(self) -> str:
        return f"Layer({self.nin}, {self.nout}, activation={self.activation!r})"


class MLP(Module):
    """A multi-layer perceptron: layers of sizes ``nouts`` on ``nin`` inputs.

    ``activation`` is either one name for all hidden layers (the last layer is
    then ``output_activation``, linear by default, as micrograd's) or a list with
    one name per layer, the last layer included.  The lecture's network is all
    tanh: ``MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh")``.
    Weights come from ``random.Random(seed)``, from ``rng``, or (neither given)
    from Python's global ``random`` module in micrograd's order.
    Parameters are ordered layer by layer, neuron by neuron, weights then bias.

    >>> model = MLP(2, [16, 16, 1], seed=1337)
    >>> model.num_parameters()
    337
    >>> model
    MLP(2, [16, 16, 1], activation=['relu', 'relu', 'linear'])
    >>> type(model([0.5, -1.0])).__name__
    'Value'
    """

    layers: list[Layer]

    def __init__(
        self,
        nin: int,
        nouts: Sequence[int],
        activation: str | Sequence[str] = "relu",
        init: str = "uniform",
        seed: int | None = None,
        rng: Rng | None = None,
        output_activation: str | None = None,
    ) -> None:
        nin = _check_size(nin, "nin")
        if isinstance(nouts, (str, bytes)) or not hasattr(nouts, "__len__") or len(nouts) == 0:
            raise ValueError(
                f"nouts must be a non-empty list of layer sizes (e.g. [16, 16, 1]), got {reprlib.repr(nouts)}"
            )
        nouts = [_check_size(n, f"nouts[{i}]") for i, n in enumerate(nouts)]
        sizes = [nin, *nouts]
        if isinstance(activation, str):
            acts = [activation] * (len(nouts) - 1) + [output_activation or "linear"]
        elif output_activation is not None:
            raise ValueError(
                "output_activation goes with one activation name; with a list of activations, "
                "name the last layer's in the list"
            )
        else:
            acts = list(activation)
            if len(acts) != len(nouts):
                raise ValueError(
                    f"activation lists one name per layer: expected {len(nouts)}, got {len(acts)}"
                )
        acts = [_check_activation(a) for a in acts]
        r = make_rng(seed, rng)
        self.layers = [
            Layer(sizes[i], sizes[i + 1], activation=acts[i], init=init, rng=r) for i in range(len(nouts))
        ]

    @property
    def nin(self) -> int:
        return self.layers[0].nin

    @property
    def nouts(self) -> list[int]:
        return [layer.nout for layer in self.layers]

    @property
    def activations(self) -> list[str]:
        return [layer.activation for layer in self.layers]

    def __call__(self, x: Input) -> Value | list[Value]:
        _check_input(x, self.nin, "model")
        out = self.layers[0].forward(x)  # (forward: a list, even of one output)
        for layer in self.layers[1:]:
            out = layer.forward(out)
        return out[0] if len(out) == 1 else out

    def __repr__(self) -> str:
        return f"MLP({self.nin}, {self.nouts}, activation={self.activations})"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the architecture and weights to ``path`` as JSON, atomically (see ``nn.io``)."""
        io.save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MLP:
        """A new MLP rebuilt from a file written by ``save``."""
        loaded: MLP = io.load(path)
        return loaded


io.register_model(MLP, ACTIVATIONS)  # nn.io saves and rebuilds MLPs without importing this module
