"""Three interleaved spirals: an MLP trained with softmax cross-entropy and Adam colours the plane by class.

``--samples`` points on three spiral arms (CS231n's spiral data, noise 0.05),
an MLP(2, [16, 16, 3]) whose three outputs are the class logits, the mean
softmax cross-entropy, and Adam on mini-batches.  Writes the decision regions
(inference under ``no_grad``) and the loss and accuracy curves.

    python -m demos.spirals --out out        # or: python demos/spirals.py --out out
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

if not __package__:  # run as a file (python demos/x.py): the repository's packages, importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demos import common
from micrograd import Value, no_grad
from micrograd.viz.recorder import TrainingRecorder
from nn import datasets, losses, optim
from nn.layers import MLP
from nn.metrics import accuracy

CLASSES = 3
COLOURS = ["#e03131", "#2f9e44", "#1971c2"]
REGIONS = ["#ffc9c9", "#b2f2bb", "#a5d8ff"]


def logits(model: MLP, xs: list[list[float]]) -> list[list[Value]]:
    return [model(x) for x in xs]  # type: ignore[misc]


def predict(model: MLP, x: list[float]) -> int:
    """The class with the largest logit."""
    z: list[Value] = model(x)  # type: ignore[assignment]
    return max(range(CLASSES), key=lambda c: z[c].data)


def train(
    model: MLP,
    xs: list[list[float]],
    y: list[int],
    steps: int,
    batch: int,
    lr: float,
    seed: int,
    quiet: bool,
    recorder: TrainingRecorder | None = None,
) -> tuple[list[float], list[float]]:
    """Adam on mini-batches; returns the batch loss and the batch accuracy of every step
    (``recorder``: records each step for the replay page)."""
    from tqdm import tqdm

    rng = random.Random(seed)
    opt = optim.Adam(model.parameters(), lr=lr)
    loss_curve, acc_curve = [], []
    order = list(range(len(xs)))
    bar = tqdm(range(steps), desc="spirals (adam)", unit="step", disable=quiet, file=sys.stderr)
    for k in bar:
        if k * batch % len(xs) < batch:
            rng.shuffle(order)  # a new epoch
        start = k * batch % len(xs)
        idx = (order + order)[start : start + batch]
        zs = logits(model, [xs[i] for i in idx])
        labels = [y[i] for i in idx]
        loss = losses.cross_entropy(zs, labels)
        opt.zero_grad()
        loss.backward()
        acc = accuracy(zs, labels)
        if recorder is not None:
            recorder.record(loss, acc)  # this step's weights and gradients, before the update
        opt.step()
        loss_curve.append(loss.data)
        acc_curve.append(acc)
        bar.set_postfix(loss=f"{loss.data:.4f}", acc=f"{acc:.0%}")
    return loss_curve, acc_curve


def plot_regions(model: MLP, xs: list[list[float]], y: list[int], path: Path, written: list[Path]) -> None:
    import numpy as np

    h = 0.03
    grid = np.arange(-1.2, 1.2 + h / 2, h)
    xx, yy = np.meshgrid(grid, grid)
    with no_grad():  # inference: no graph is built
        zz = np.array([predict(model, [float(a), float(b)]) for a, b in zip(xx.ravel(), yy.ravel())]).reshape(
            xx.shape
        )
    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 6.5))
    ax.contourf(xx, yy, zz, levels=[-0.5, 0.5, 1.5, 2.5], colors=REGIONS)
    common.scatter_classes(ax, xs, y, COLOURS, size=18)
    common.region_legend(ax, REGIONS)
    ax.set_title("spirals: decision regions of MLP(2, [16, 16, 3])")
    ax.set_xlabel("x₀")
    ax.set_ylabel("x₁")
    ax.set_aspect("equal")
    fig.tight_layout()
    common.save(fig, path, written)


def plot_curves(
    loss_curve: list[float], acc_curve: list[float], path: Path, written: list[Path], batch: int = 30
) -> None:
    common.plot_curves(
        loss_curve,
        acc_curve,
        path,
        written,
        f"spirals: training MLP(2, [16, 16, 3]) with Adam, mini-batches of {batch}",
        "softmax cross-entropy of the mini-batch",
        "mini-batch accuracy",
        linewidth=0.8,
    )


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], steps=300)
    p.add_argument("--samples", type=common.positive_int, default=150, help="points (default: 150)")
    p.add_argument("--batch", type=common.positive_int, default=30, help="mini-batch size (default: 30)")
    p.add_argument(
        "--lr", type=common.positive_float, default=0.02, help="Adam's learning rate (default: 0.02)"
    )
    p.add_argument("--no-html", action="store_true", help="do not write training.html (the training replay)")
    args = p.parse_args(argv)
    if args.samples < CLASSES:
        p.error(f"--samples must be at least {CLASSES} (one per class)")
    out = common.prepare_out(p, args.out)
    written: list[Path] = []

    xs, y = datasets.make_spirals(args.samples, n_classes=CLASSES, noise=0.05, seed=args.seed)
    model = MLP(2, [16, 16, CLASSES], seed=args.seed)
    batch = min(args.batch, len(xs))
    recorder = None
    if not args.no_html:
        title = "Three spirals: MLP(2, [16, 16, 3])"
        recorder = TrainingRecorder(model, xs, y, title=title, loss_name="cross-entropy (mini-batch)")
    loss_curve, acc_curve = train(model, xs, y, args.steps, batch, args.lr, args.seed, args.quiet, recorder)
    with no_grad():
        zs = logits(model, xs)
        loss, acc = losses.cross_entropy(zs, y), accuracy(zs, y)

    plot_regions(model, xs, y, out / "spirals_regions.png", written)
    plot_curves(loss_curve, acc_curve, out / "spirals_curves.png", written, batch)
    if recorder is not None:
        recorder.finish(loss, acc)  # the whole data set, as printed below
        written.append(recorder.write_html(out / "training.html"))

    print(f"after {args.steps} steps (adam): loss {loss.data:.4f}, training accuracy {acc:.0%}")
    common.report(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
