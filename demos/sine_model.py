"""A three-weight model fitted to 4 sin(x^4) by plain SGD, one random x in [0, 1) per step.

The model of Mateen Ulhaq's "mini autograd" talk, weights starting at
w1 = 1.7, w2 = 0.2, w3 = 0.6:

    a = x^2;  b = relu(w1 a + w3);  c = relu(w2 a + w3);  y_hat = 4 sin(b + c)
    loss = (4 sin(x^4) - y_hat)^2 + 0.1 (w1^2 + w2^2 + w3^2)

Writes the loss curve (the squared error per step and its running mean), the
fit before and after training, and the graph of the loss for one x.

    python -m demos.sine_model --out out        # or: python demos/sine_model.py --out out
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

if not __package__:  # run as a file (python demos/x.py): the repository's packages, importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demos import common
from micrograd import Value, no_grad
from nn.optim import SGD

INITIAL = {"w1": 1.7, "w2": 0.2, "w3": 0.6}
PENALTY = 0.1
WINDOW = 25  # steps in the running mean of the loss curve


class SineModel:
    """y_hat = 4 sin(relu(w1 x^2 + w3) + relu(w2 x^2 + w3))."""

    def __init__(self) -> None:
        self.w1, self.w2, self.w3 = (Value(v, label=k) for k, v in INITIAL.items())

    def parameters(self) -> list[Value]:
        return [self.w1, self.w2, self.w3]

    def __call__(self, x: Value | float) -> Value:
        a = x * x if isinstance(x, Value) else Value(x * x)
        b = (self.w1 * a + self.w3).relu()
        c = (self.w2 * a + self.w3).relu()
        y_hat = (b + c).sin() * 4
        # The docstring's names, shown in the graph picture.
        a.label, b.label, c.label, y_hat.label = "a", "b", "c", "y_hat"
        return y_hat


def target(x: float) -> float:
    return float((Value(x) ** 4).sin().data * 4)


def losses_of(model: SineModel, x: float) -> tuple[Value, Value]:
    """(total loss, squared error) for one sample."""
    y_hat = model(Value(x, label="x"))
    mse = (target(x) - y_hat) ** 2
    penalty = sum((w * w for w in model.parameters()), Value(0.0))
    mse.label, penalty.label = "squared_error", "penalty"
    return mse + PENALTY * penalty, mse


def running_mean(xs: list[float], window: int) -> list[float]:
    out, total = [], 0.0
    for i, x in enumerate(xs):
        total += x - (xs[i - window] if i >= window else 0.0)
        out.append(total / min(i + 1, window))
    return out


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], steps=500, seed=0)
    p.add_argument(
        "--lr", type=common.positive_float, default=1e-3, help="SGD learning rate (default: 0.001)"
    )
    args = p.parse_args(argv)
    out = common.prepare_out(p, args.out)
    written: list[Path] = []

    rng = random.Random(args.seed)
    model = SineModel()
    optimizer = SGD(model.parameters(), lr=args.lr)
    grid = [i / 200 for i in range(201)]
    with no_grad():
        before = [model(x).data for x in grid]

    errors: list[float] = []
    for _ in range(args.steps):
        loss, mse = losses_of(model, rng.random())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        errors.append(mse.data)

    with no_grad():
        after = [model(x).data for x in grid]
    weights = ", ".join(f"{w.label} = {w.data:.3f}" for w in model.parameters())

    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    steps = range(1, len(errors) + 1)
    ax.plot(steps, errors, color="#adb5bd", linewidth=0.6, label="squared error of the step's sample")
    ax.plot(
        steps,
        running_mean(errors, WINDOW),
        color="#1c7ed6",
        linewidth=2,
        label=f"running mean ({WINDOW} steps)",
    )
    ax.set_xlabel(common.STEP_LABEL)
    ax.set_ylabel("squared error (4 sin(x⁴) − ŷ)²")
    ax.set_title(f"sine model: squared error per step, SGD (lr = {args.lr:g})\nafter training: {weights}")
    common.integer_steps(ax)
    ax.legend(loc="best")
    fig.tight_layout()
    common.save(fig, out / "sine_loss.png", written)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(grid, [target(x) for x in grid], color="black", linewidth=2, label="target 4 sin(x⁴)")
    ax.plot(grid, before, "--", color="#adb5bd", label="model before training")
    ax.plot(grid, after, color="#e8590c", label=f"model after {args.steps} steps")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"sine model: the fit of 4 sin(x⁴) before and after {args.steps} steps")
    ax.legend(loc="best")
    fig.tight_layout()
    common.save(fig, out / "sine_fit.png", written)

    loss, _ = losses_of(model, 0.5)
    loss.label = "loss"
    loss.backward()
    title = "sine model: the graph of the loss at x = 0.5 after training, backward() from the loss"
    common.render_graph(loss, out / "sine_graph.png", written, title, params=model.parameters())

    if not args.quiet:
        k = min(50, len(errors))
        first, last = sum(errors[:k]) / k, sum(errors[-k:]) / k
        print(f"squared error, mean of {k} steps: {first:.4f} first, {last:.4f} last; {weights}")
    common.report(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
