"""Live training for the docs site's playground: an ``MLP`` learning a 2-D dataset one step at a time.

The playground's training worker (Pyodide, in a Web Worker) holds one ``LiveTraining``:
the moons of ``datasets.make_moons``, an ``MLP(2, [16, 16, 1])`` (ReLU hidden layers, a
linear output: micrograd's demo model) and full-batch SGD on the hinge loss, the eager
engine's ``loss.backward()`` at every step.  With ``fused=True`` (the default) the loss's
graph has one node per neuron, ``micrograd.ops.weighted_sum`` of the neuron's own weights
and bias (a ``Dot``: the same floats as the MLP's forward pass, which makes a ``*`` node per
weight, bit for bit, gradients included, with a sixth of the nodes: about three times the
steps per second); ``fused=False`` calls the model itself.  Points can be added and removed between steps;
``grid`` gives the model's score over a square grid for the decision boundary, from the
parameters' floats (the same float operations as the model's forward pass, without building
a graph: a grid of 625 points costs about as much as one training step).

>>> t = LiveTraining(n_samples=20, seed=0)
>>> first = t.step()
>>> losses = [t.step() for _ in range(20)]
>>> losses[-1] < first
True
>>> len(t.grid(5)) == 25
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from micrograd import Value
from micrograd.ops import weighted_sum

from . import datasets, losses, optim
from .layers import ACTIVATIONS, MLP

__all__ = ["BOUNDS", "LiveTraining"]

#: The region the playground draws: (x min, x max, y min, y max), the moons with a margin.
BOUNDS = (-1.6, 2.6, -1.1, 1.6)


class LiveTraining:
    """Points, labels (0 or 1), a model and its optimiser; ``step()`` trains one full-batch step."""

    def __init__(
        self,
        n_samples: int = 100,
        noise: float = 0.1,
        seed: int = 1337,
        hidden: Sequence[int] = (16, 16),
        lr: float = 0.1,
        fused: bool = True,
    ) -> None:
        self.hidden = list(hidden)
        self.fused = fused
        self.seed = seed
        self.lr = float(lr)
        points, labels = datasets.make_moons(n_samples, noise=noise, seed=seed)
        self.points: list[list[float]] = points
        self.labels: list[int] = labels
        # each point's coordinates as Values, made once: a step does not lift 2 floats per neuron
        self._inputs = [[Value(a), Value(b)] for a, b in points]
        self.reset_model()

    def reset_model(self) -> None:
        """A fresh model (the same seed: the same initial weights) and optimiser; the points stay."""
        self.model = MLP(2, [*self.hidden, 1], seed=self.seed)
        self.optimizer = optim.SGD(self.model.parameters(), lr=self.lr)
        self.steps = 0
        self.history: list[float] = []

    def set_lr(self, lr: float) -> None:
        """The learning rate from the next step on (the optimiser checks it)."""
        self.optimizer.lr = lr
        self.lr = self.optimizer.lr

    def add(self, x: float, y: float, label: int) -> None:
        """A point of class ``label`` (0 or 1) at (x, y)."""
        if label not in (0, 1):
            raise ValueError(f"a label is 0 or 1, got {label!r}")
        self.points.append([float(x), float(y)])
        self.labels.append(int(label))
        self._inputs.append([Value(float(x)), Value(float(y))])

    def remove_nearest(self, x: float, y: float) -> int | None:
        """Remove the point nearest (x, y) and return its index (None when there is none)."""
        if not self.points:
            return None
        i = min(
            range(len(self.points)), key=lambda k: (self.points[k][0] - x) ** 2 + (self.points[k][1] - y) ** 2
        )
        del self.points[i], self.labels[i], self._inputs[i]
        return i

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

    def loss(self) -> Value:
        """The hinge loss of every point (micrograd's demo loss), a graph to backpropagate."""
        return losses.hinge([self.forward(p) for p in self._inputs], self.labels)

    def step(self) -> float:
        """One full-batch SGD step; returns the loss before it (nan with no points of both classes)."""
        if len(set(self.labels)) < 2:
            return math.nan
        loss = self.loss()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        self.history.append(loss.data)
        return loss.data

    def scores(self, points: Sequence[Sequence[float]]) -> list[float]:
        """The model's output at each point, computed with floats from the parameters' ``.data``."""
        layers = [
            [([w.data for w in n.w], n.b.data, n.activation) for n in layer.neurons]
            for layer in self.model.layers
        ]
        out = []
        for p in points:
            xs = [float(v) for v in p]
            for layer in layers:
                nxt = []
                for ws, b, act in layer:
                    # the model's own order: b + w0*x0 + w1*x1 + ... (micrograd.dot)
                    s = b
                    for w, x in zip(ws, xs):
                        s = s + w * x
                    nxt.append(max(s, 0.0) if act == "relu" else s)
                xs = nxt
            out.append(xs[0])
        return out

    def grid(self, n: int, bounds: tuple[float, float, float, float] = BOUNDS) -> list[float]:
        """The model's score at the centres of an n x n grid over ``bounds``, row by row from the top."""
        x0, x1, y0, y1 = bounds
        cells = [
            [x0 + (i + 0.5) * (x1 - x0) / n, y1 - (j + 0.5) * (y1 - y0) / n]
            for j in range(n)
            for i in range(n)
        ]
        return self.scores(cells)

    def accuracy(self) -> float:
        """The share of points on their class's side of the boundary (score > 0: class 1)."""
        if not self.points:
            return math.nan
        right = sum((s > 0) == (y == 1) for s, y in zip(self.scores(self.points), self.labels))
        return right / len(self.points)
