"""Live training for the docs site's playground: an ``MLP`` learning a 2-D dataset one step at a time.

Not part of the packages (``nn`` is a model library and never imports the pictures): the
playground's build copies this file beside the page, with ``trainer.py``, which imports it.

The playground's training worker (Pyodide, in a Web Worker) holds one ``LiveTraining``: the
points of a data set (``moons``, ``circles``, ``xor``, ``gaussian`` or ``spirals`` from
``nn.datasets``, with noise), split into a training and a test set; the input features the
network sees (``x``, ``y``, ``x2``, ``y2``, ``xy``, ``sinx``, ``siny``); an ``MLP`` of the
chosen hidden layers and activation with one linear output (its score: class 1 above 0); and
SGD on mini-batches of the training set, on the hinge loss plus an optional L1 or L2 penalty
on the weights.  Every step is the eager engine's ``loss.backward()``.  With ``fused=True``
(the default) the loss's graph has one node per neuron, ``micrograd.ops.weighted_sum`` of the
neuron's own weights and bias (the same floats as the MLP's forward pass, bit for bit,
gradients included, with far fewer nodes); ``fused=False`` calls the model itself.

The pictures come from ``outputs``: every neuron's output at any points, computed with floats
from the parameters' ``.data`` (the same float operations as the engine's forward pass, without
a graph).  ``explore_step`` trains one step through the model itself inside
``micrograd.scopes.record_scopes`` and returns the explorer's page of that step, every
parameter labelled with its ``named_parameters()`` name.

The whole set-up is a plain dict (``state()``, ``LiveTraining.from_state``): every setting and
every point, which the playground puts in its share link; a bad one raises ``ValueError``
saying what is wrong.

>>> t = LiveTraining(n_samples=40, seed=0)
>>> first = t.step()
>>> losses = [t.step() for _ in range(30)]
>>> sum(losses[-5:]) < 5 * first
True
>>> len(t.grid(5)) == 25
True
>>> LiveTraining.from_state(t.state()).state() == t.state()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import micrograd
from micrograd import Value
from micrograd.math.floats import sigmoid, tanh
from micrograd.ops import weighted_sum
from nn import datasets, losses, optim
from nn.layers import ACTIVATIONS, MLP

__all__ = ["BOUNDS", "DATASETS", "FEATURES", "LiveTraining", "Settings"]

#: The region the playground draws: (x min, x max, y min, y max); every data set lies inside it.
BOUNDS = (-1.6, 1.6, -1.6, 1.6)

#: The input features, each a function of a point (x, y).
FEATURES: dict[str, Callable[[float, float], float]] = {
    "x": lambda x, y: x,
    "y": lambda x, y: y,
    "x2": lambda x, y: x * x,
    "y2": lambda x, y: y * y,
    "xy": lambda x, y: x * y,
    "sinx": lambda x, y: math.sin(x),
    "siny": lambda x, y: math.sin(y),
}


def _moons(n: int, noise: float, seed: int) -> tuple[list[list[float]], list[int]]:
    # scikit-learn's moons span x in [-1, 2], y in [-0.5, 1]: centred on the origin, as the others are
    points, labels = datasets.make_moons(n, noise=noise, seed=seed)
    return [[a - 0.5, b - 0.25] for a, b in points], labels


#: The data sets, each ``(n_samples, noise, seed) -> (points, labels)`` with labels 0 and 1.
Points = tuple[list[list[float]], list[int]]
DATASETS: dict[str, Callable[[int, float, int], Points]] = {
    "moons": _moons,
    "circles": lambda n, noise, seed: datasets.make_circles(n, noise=noise, factor=0.5, seed=seed),
    "xor": lambda n, noise, seed: datasets.make_xor(n, noise=noise, seed=seed),
    "gaussian": lambda n, noise, seed: datasets.make_gaussian(n, noise=noise, seed=seed),
    "spirals": lambda n, noise, seed: datasets.make_spirals(n, n_classes=2, noise=noise, seed=seed),
}

#: The activations a hidden layer may have (the output is linear: its score).
HIDDEN_ACTIVATIONS = ("relu", "tanh", "sigmoid", "linear")
REGULARIZATIONS = ("none", "l1", "l2")
MAX_LAYERS, MAX_NEURONS, MAX_POINTS = 6, 8, 2000
#: ``explore_step`` trains on at most this many points of its batch: a step on 10 points of a
#: 2-[8, 8]-1 net is about 1,400 Values, laid out in a second or two; 100 would be 13,000 (a minute).
EXPLORE_POINTS = 10

# The float twin of each activation: the engine's own forward functions (relu: where(x < 0, 0, x)).
_FLOAT_ACTIVATIONS: dict[str, Callable[[float], float]] = {
    "relu": lambda s: 0.0 if s < 0.0 else s,
    "tanh": tanh,
    "sigmoid": sigmoid,
    "linear": lambda s: s,
}

# Which settings make new points, which a new model; the rest change the training in place.
_DATA_SETTINGS = ("dataset", "noise", "n_samples", "test_ratio", "seed")
_MODEL_SETTINGS = ("features", "hidden", "activation")


def _number(value: object, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"{name} must be a number from {low} to {high}, got {value!r}")
    return float(value)


def _integer(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _choice(value: object, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value


@dataclass
class Settings:
    """Every control of the playground's training tab, checked when made (``ValueError`` says which
    is wrong).  ``batch_size`` 0 is the whole training set; ``test_ratio`` the share of the points
    held out for the test loss; ``hidden`` the sizes of the hidden layers (none is a linear model)."""

    dataset: str = "moons"
    noise: float = 0.1
    n_samples: int = 200
    test_ratio: float = 0.5
    batch_size: int = 10
    features: list[str] = field(default_factory=lambda: ["x", "y"])
    hidden: list[int] = field(default_factory=lambda: [8, 8])
    activation: str = "relu"
    regularization: str = "none"
    reg_rate: float = 0.001
    lr: float = 0.1
    seed: int = 1337

    def __post_init__(self) -> None:
        self.dataset = _choice(self.dataset, "dataset", list(DATASETS))
        self.noise = _number(self.noise, "noise", 0.0, 1.0)
        self.n_samples = _integer(self.n_samples, "n_samples", 2, MAX_POINTS)
        self.test_ratio = _number(self.test_ratio, "test_ratio", 0.0, 0.9)
        self.batch_size = _integer(self.batch_size, "batch_size", 0, MAX_POINTS)
        if not isinstance(self.features, (list, tuple)) or not self.features:
            raise ValueError(
                f"features must be a non-empty list of {', '.join(FEATURES)}; got {self.features!r}"
            )
        chosen = [_choice(f, "a feature", list(FEATURES)) for f in self.features]
        self.features = [f for f in FEATURES if f in chosen]  # FEATURES' order, each once
        if not isinstance(self.hidden, (list, tuple)) or len(self.hidden) > MAX_LAYERS:
            raise ValueError(
                f"hidden must be a list of at most {MAX_LAYERS} layer sizes, got {self.hidden!r}"
            )
        self.hidden = [_integer(n, "a hidden layer's size", 1, MAX_NEURONS) for n in self.hidden]
        self.activation = _choice(self.activation, "activation", HIDDEN_ACTIVATIONS)
        self.regularization = _choice(self.regularization, "regularization", REGULARIZATIONS)
        self.reg_rate = _number(self.reg_rate, "reg_rate", 0.0, 10.0)
        self.lr = _number(self.lr, "lr", 1e-6, 10.0)
        self.seed = _integer(self.seed, "seed", 0, 2**31 - 1)


def _points(raw: object) -> list[list[Any]]:
    """A state's points, checked: ``[x, y, label, test]`` each (label 0 or 1, test 0 or 1)."""
    if not isinstance(raw, (list, tuple)) or len(raw) > MAX_POINTS:
        raise ValueError(f"points must be a list of at most {MAX_POINTS} points")
    checked = []
    for i, p in enumerate(raw):
        if not isinstance(p, (list, tuple)) or len(p) != 4:
            raise ValueError(f"point {i} must be [x, y, label, test], got {p!r}")
        x, y = (_number(c, f"point {i}'s coordinate", -100.0, 100.0) for c in p[:2])
        checked.append(
            [x, y, _integer(p[2], f"point {i}'s label", 0, 1), _integer(p[3], f"point {i}'s test", 0, 1)]
        )
    return checked


class LiveTraining:
    """Points (``points``, ``labels``, ``test``: held out or not), a model, its optimiser and the
    loss curves; ``step()`` trains one mini-batch step.  Keyword arguments are ``Settings``'."""

    def __init__(
        self, points: Sequence[Sequence[Any]] | None = None, *, fused: bool = True, **settings: Any
    ) -> None:
        self.settings = Settings(**settings)
        self.fused = fused
        self.generation = 0  # counts the new models: the page starts a new loss curve at each
        if points is None:
            self.new_points()
        else:
            self._set_points(_points(points))
        self.reset_model()

    # ---- the data ---------------------------------------------------------------------------

    def new_points(self) -> None:
        """The data set's points afresh (its seed: the same ones), split into training and test."""
        s = self.settings
        xs, ys = DATASETS[s.dataset](s.n_samples, s.noise, s.seed)
        order = list(range(len(xs)))
        random.Random(s.seed).shuffle(order)
        held = set(order[: round(s.test_ratio * len(xs))])
        # four decimals: a share link holds the points exactly as they are here
        self._set_points(
            [[round(a, 4), round(b, 4), c, int(i in held)] for i, ((a, b), c) in enumerate(zip(xs, ys))]
        )

    def _set_points(self, points: list[list[Any]]) -> None:
        self.points: list[list[float]] = [[float(p[0]), float(p[1])] for p in points]
        self.labels: list[int] = [int(p[2]) for p in points]
        self.test: list[int] = [int(p[3]) for p in points]
        self._make_inputs()

    def _make_inputs(self) -> None:
        # each point's features as Values, made once: a step does not lift them again
        self._inputs = [[Value(v) for v in self.features_of(x, y)] for x, y in self.points]

    def features_of(self, x: float, y: float) -> list[float]:
        """The network's inputs for the point (x, y): the chosen features, in ``FEATURES``' order."""
        return [FEATURES[f](x, y) for f in self.settings.features]

    def add(self, x: float, y: float, label: int, test: bool = False) -> None:
        """A point of class ``label`` (0 or 1) at (x, y), in the training set unless ``test``."""
        if label not in (0, 1):
            raise ValueError(f"a label is 0 or 1, got {label!r}")
        if len(self.points) >= MAX_POINTS:
            raise ValueError(f"at most {MAX_POINTS} points")
        x, y = round(float(x), 4), round(float(y), 4)
        self.points.append([x, y])
        self.labels.append(int(label))
        self.test.append(int(bool(test)))
        self._inputs.append([Value(v) for v in self.features_of(x, y)])

    def remove_nearest(self, x: float, y: float) -> int | None:
        """Remove the point nearest (x, y) and return its index (None when there is none)."""
        if not self.points:
            return None
        i = min(
            range(len(self.points)), key=lambda k: (self.points[k][0] - x) ** 2 + (self.points[k][1] - y) ** 2
        )
        del self.points[i], self.labels[i], self.test[i], self._inputs[i]
        return i

    def split(self, test: bool) -> list[int]:
        """The indices of the test points (``test``) or of the training points."""
        return [i for i, t in enumerate(self.test) if bool(t) == test]

    # ---- the model and its settings ---------------------------------------------------------

    def reset_model(self) -> None:
        """A fresh model (the same seed: the same initial weights) and optimiser; the points stay."""
        s = self.settings
        self.model = MLP(len(s.features), [*s.hidden, 1], activation=s.activation, seed=s.seed)
        self.optimizer = optim.SGD(self.model.parameters(), lr=s.lr)
        self._weights = [w for layer in self.model.layers for n in layer.neurons for w in n.w]
        self._batches = random.Random(s.seed)  # the mini-batches' order, the same after each reset
        self._queue: list[int] = []
        self.steps = 0
        self.history: list[float] = []  # each step's mini-batch loss
        self.curve: list[list[float]] = []  # [step, training loss, test loss], recorded by record()
        self.generation += 1

    def update(self, **changes: Any) -> str:
        """Change settings; returns what that restarted: ``"data"`` (new points and a new model),
        ``"model"`` (a new model, the same points) or ``"none"`` (the training goes on)."""
        merged = {**asdict(self.settings), **changes}
        unknown = set(changes) - {f.name for f in fields(Settings)}
        if unknown:
            raise ValueError(f"unknown settings: {', '.join(sorted(unknown))}")
        new = Settings(**merged)
        old, self.settings = self.settings, new
        if any(getattr(old, k) != getattr(new, k) for k in _DATA_SETTINGS):
            self.new_points()
            self.reset_model()
            return "data"
        if any(getattr(old, k) != getattr(new, k) for k in _MODEL_SETTINGS):
            self._make_inputs()
            self.reset_model()
            return "model"
        self.optimizer.lr = new.lr
        return "none"

    def set_lr(self, lr: float) -> None:
        """The learning rate from the next step on."""
        self.update(lr=lr)

    @property
    def lr(self) -> float:
        return self.settings.lr

    # ---- training -----------------------------------------------------------------------------

    def forward(self, x: Sequence[Value]) -> Value:
        """The model's output at ``x``: ``model(x)``, or (``fused``) one ``Dot`` node per neuron."""
        if not self.fused:
            out = self.model(x)
            assert isinstance(out, Value)  # one output: a Value
            return out
        values: list[Value] = list(x)
        for layer in self.model.layers:
            outs = []
            for n in layer.neurons:
                s = weighted_sum(n.w, values, n.b)  # b + w0*x0 + w1*x1 + ..., the neuron's own order
                activate = ACTIVATIONS[n.activation][0]
                outs.append(s if activate is None else activate(s))
            values = outs
        return values[0]

    def penalty(self) -> Value | None:
        """The regularization term (its rate times the weights' L1 or L2 norm; biases are left
        out), or None without one."""
        s = self.settings
        if s.regularization == "none" or s.reg_rate == 0.0:
            return None
        if s.regularization == "l2":
            term = weighted_sum(self._weights, self._weights) * s.reg_rate  # sum of w*w, one node
        else:
            term = micrograd.sum([w.abs() for w in self._weights]) * s.reg_rate
        # named as the hinge loss is: "Explore this step" shows the loss as hinge + penalty
        term.label = "penalty"
        return term

    def loss(self, batch: Sequence[int] | None = None) -> Value:
        """The hinge loss (micrograd's demo loss) over ``batch`` (indices; all training points by
        default) plus the penalty: a graph to backpropagate."""
        if batch is None:
            batch = self.split(False)
        data = losses.hinge([self.forward(self._inputs[i]) for i in batch], [self.labels[i] for i in batch])
        extra = self.penalty()
        return data if extra is None else data + extra

    def next_batch(self) -> list[int]:
        """The next mini-batch of training points: each epoch visits them all, in a seeded order."""
        train = self.split(False)
        size = self.settings.batch_size
        if size == 0 or size >= len(train):
            return train
        if len(self._queue) < size:
            self._batches.shuffle(train)
            self._queue = train
        batch, self._queue = self._queue[:size], self._queue[size:]
        return batch

    def _trainable(self) -> bool:
        return len({self.labels[i] for i in self.split(False)}) == 2

    def step(self) -> float:
        """One SGD step on the next mini-batch; returns its loss before the step (nan unless the
        training set has points of both classes)."""
        if not self._trainable():
            return math.nan
        return self._train(self.loss(self.next_batch()))

    def _train(self, loss: Value) -> float:
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        self.history.append(loss.data)
        return loss.data

    # ---- what the page shows --------------------------------------------------------------------

    def outputs(self, points: Sequence[Sequence[float]]) -> list[list[list[float]]]:
        """Every neuron's output at each point: ``[layer][neuron][point]``, layer 0 being the input
        features and the last the model's score, from the parameters' ``.data`` with the float
        operations of the engine's forward pass (its numbers, without a graph)."""
        layers = [
            [([w.data for w in n.w], n.b.data, _FLOAT_ACTIVATIONS[n.activation]) for n in layer.neurons]
            for layer in self.model.layers
        ]
        columns: list[list[list[float]]] = [[[] for _ in range(len(self.settings.features))]]
        columns += [[[] for _ in layer] for layer in layers]
        for p in points:
            xs = self.features_of(float(p[0]), float(p[1]))
            for k, v in enumerate(xs):
                columns[0][k].append(v)
            for depth, layer in enumerate(layers, start=1):
                nxt = []
                for j, (ws, b, act) in enumerate(layer):
                    s = b
                    for w, x in zip(ws, xs):  # the model's own order: b + w0*x0 + w1*x1 + ...
                        s = s + w * x
                    s = act(s)
                    columns[depth][j].append(s)
                    nxt.append(s)
                xs = nxt
        return columns

    def scores(self, points: Sequence[Sequence[float]]) -> list[float]:
        """The model's output at each point (see ``outputs``)."""
        return self.outputs(points)[-1][0]

    def grid(self, n: int, bounds: tuple[float, float, float, float] = BOUNDS) -> list[float]:
        """The model's score at the centres of an n x n grid over ``bounds``, row by row from the top."""
        return self.scores(grid_cells(n, bounds))

    def loss_values(self) -> tuple[float, float]:
        """The hinge loss on the training set and on the test set (nan for an empty one), from
        floats: the data's loss, the penalty left out, so the two compare."""
        scores = self.scores(self.points)
        result = []
        for test in (False, True):
            idx = self.split(test)
            terms = [max(1.0 - (2 * self.labels[i] - 1) * scores[i], 0.0) for i in idx]
            result.append(sum(terms) / len(terms) if terms else math.nan)
        return result[0], result[1]

    def record(self) -> list[float]:
        """Append ``[steps, training loss, test loss]`` to the loss curves, and return it."""
        entry = [float(self.steps), *self.loss_values()]
        self.curve.append(entry)
        return entry

    def accuracy(self, test: bool = False) -> float:
        """The share of the training (or test) points on their class's side of the boundary."""
        idx = self.split(test)
        if not idx:
            return math.nan
        scores = self.scores([self.points[i] for i in idx])
        return sum((s > 0) == (self.labels[i] == 1) for s, i in zip(scores, idx)) / len(idx)

    # ---- the share link's state and the explorer ----------------------------------------------

    def state(self) -> dict[str, Any]:
        """Every setting and every point (``[x, y, label, test]``): ``from_state`` makes it again."""
        points = [[x, y, c, t] for (x, y), c, t in zip(self.points, self.labels, self.test)]
        return {**asdict(self.settings), "points": points}

    @classmethod
    def from_state(cls, state: Mapping[str, Any], fused: bool = True) -> LiveTraining:
        """The training a ``state()`` describes, a new model; ``ValueError`` says what is wrong with it."""
        if not isinstance(state, Mapping):
            raise ValueError(f"a training state is a dict, got {type(state).__name__}")
        unknown = set(state) - {f.name for f in fields(Settings)} - {"points"}
        if unknown:
            raise ValueError(f"unknown settings: {', '.join(sorted(map(str, unknown)))}")
        settings = {k: v for k, v in state.items() if k != "points"}
        return cls(state.get("points"), fused=fused, **settings)

    def explore_step(self) -> tuple[str, str, int]:
        """Train one step through the model itself (``model(x)``: its module boxes), recording its
        scopes, and return the explorer's page of that step, its title and its number of Values.
        The step takes the next batch's first ``EXPLORE_POINTS`` points (the title says so)."""
        from micrograd.func.reverse import topological_order
        from micrograd.scopes import record_scopes
        from micrograd.viz.explorer import explore

        if not self._trainable():
            raise ValueError("nothing to train: the training set needs points of both classes")
        for name, p in self.model.named_parameters():
            p.label = name  # the explorer names each weight and bias as named_parameters() does
        whole = self.next_batch()
        batch = whole[:EXPLORE_POINTS]
        for i in batch:
            for name, v in zip(self.settings.features, self._inputs[i]):
                v.label = f"{name}[{i}]"  # the feature, and which point it is
        fused, self.fused = self.fused, False
        try:
            with record_scopes() as recording:
                loss = self.loss(batch)
        finally:
            self.fused = fused
        loss.label = "loss"
        of = f" of the batch's {len(whole)}" if len(whole) > len(batch) else ""
        title = f"training step {self.steps + 1} on {len(batch)} points{of}, loss {loss.data:.4f}"
        page = explore(loss, params=self.model.parameters(), scopes=recording, layout="builtin", title=title)
        size = len(topological_order(loss))
        self._train(loss)
        return page.html, page.title, size


def grid_cells(n: int, bounds: tuple[float, float, float, float] = BOUNDS) -> list[list[float]]:
    """The centres of an n x n grid over ``bounds``, row by row from the top."""
    x0, x1, y0, y1 = bounds
    return [
        [x0 + (i + 0.5) * (x1 - x0) / n, y1 - (j + 0.5) * (y1 - y0) / n] for j in range(n) for i in range(n)
    ]
