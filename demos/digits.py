"""Handwritten digits: an MLP(64, [32, 10]) learns scikit-learn's 8x8 digits through batched compiled replay.

The 1,797 images scikit-learn ships (pixels scaled to [0, 1], 80% for
training, 20% for testing), an MLP(64, [32, 10]) whose ten outputs are the
class logits, softmax cross-entropy, and Adam on shuffled mini-batches of 64.
The loss of ONE image is traced once by ``micrograd.compile(...,
batched=True)`` and replayed over every batch with numpy: the eager engine's
numbers, at a fraction of its time (``--eager`` measures the ratio on a few
batches).  Writes the loss and accuracy curves, a grid of test digits with the
predicted labels (mistakes in red) and the confusion matrix.  Needs
scikit-learn for the images (``pip install scikit-learn``).

    python -m demos.digits --out out        # or: python demos/digits.py --out out
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import micrograd

if not __package__:  # run as a file (python demos/x.py): the repository's packages, importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demos import common
from micrograd import Value
from nn import datasets, losses, optim
from nn.layers import MLP

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

CLASSES = 10
SIZES = [32, CLASSES]
BATCH = 64
LR = 1e-2
CORRECT, MISTAKE = "#2f9e44", "#e03131"


def sample_loss(model: MLP) -> Any:
    """One image's softmax cross-entropy, from its 64 pixels and its one-hot class (10 numbers):
    ``-sum(onehot * log_softmax(logits))``, the class as numbers so that the traced graph serves
    every image."""

    def loss(pixels: list[Value], onehot: list[Value]) -> Value:
        logp = losses.log_softmax(model(pixels))  # type: ignore[arg-type]
        return -micrograd.sum(t * lp for t, lp in zip(onehot, logp))

    return loss


def logits_of(model: MLP, images: NDArray[np.float64]) -> NDArray[np.float64]:
    """The model's logits for many images at once, with numpy from the model's weights (inference
    only: the same sums as ``model(x)``, in numpy's order, so equal to it up to rounding)."""
    import numpy

    h = images
    for layer in model.layers:
        w = numpy.array([[p.data for p in n.w] for n in layer.neurons])
        b = numpy.array([n.b.data for n in layer.neurons])
        h = h @ w.T + b
        if layer.neurons[0].activation == "relu":
            h = numpy.maximum(h, 0.0)
        elif layer.neurons[0].activation != "linear":
            raise ValueError(f"logits_of knows relu and linear layers, not {layer.neurons[0].activation!r}")
    return h


def accuracy_of(model: MLP, images: NDArray[np.float64], labels: NDArray[np.int64]) -> float:
    return float((logits_of(model, images).argmax(axis=1) == labels).mean())


def train(
    model: MLP,
    data: tuple[Any, Any, Any, Any],
    epochs: int,
    max_steps: int | None,
    seed: int,
    quiet: bool,
) -> dict[str, list[float]]:
    """Adam on shuffled mini-batches (a new order each epoch), each step one batched replay;
    returns the batch losses, and the training and test accuracy after each epoch."""
    import numpy
    from tqdm import tqdm

    x_train, y_train, x_test, y_test = data
    onehot = numpy.eye(CLASSES)[y_train]
    params = model.parameters()
    step = micrograd.compile(
        sample_loss(model), (x_train[0], onehot[0]), params=params, batched=True
    )  # traces one image; replays any batch size (the last batch of an epoch is shorter)
    opt = optim.Adam(params, lr=LR)
    per_epoch = len(datasets.batches(x_train, onehot, BATCH))
    total = epochs * per_epoch if max_steps is None else min(max_steps, epochs * per_epoch)
    curves: dict[str, list[float]] = {"loss": [], "train_acc": [], "test_acc": []}
    bar = tqdm(total=total, desc="digits (batched replay)", unit="batch", disable=quiet, file=sys.stderr)
    done = 0
    for epoch in range(epochs):
        for xb, tb in datasets.batches(x_train, onehot, BATCH, seed=seed + epoch):
            if done == total:
                break
            opt.zero_grad()
            curves["loss"].append(step.backward(xb, tb))  # the batch's mean loss; mean gradients
            opt.step()
            done += 1
            bar.update()
        curves["train_acc"].append(accuracy_of(model, x_train, y_train))
        curves["test_acc"].append(accuracy_of(model, x_test, y_test))
        bar.set_postfix(loss=f"{curves['loss'][-1]:.4f}", test_acc=f"{curves['test_acc'][-1]:.1%}")
        if done == total:
            break
    bar.close()
    return curves


def eager_speed_ratio(model: MLP, data: tuple[Any, Any, Any, Any], batches: int) -> tuple[float, float]:
    """Seconds per batch of 64 for the eager engine (each image's loss built and backpropagated,
    as the compiled step computes it) and for the batched replay, on the same ``batches`` batches."""
    import numpy

    x_train, y_train, _, _ = data
    onehot = numpy.eye(CLASSES)[y_train]
    params = model.parameters()
    loss_fn = sample_loss(model)
    step = micrograd.compile(loss_fn, (x_train[0], onehot[0]), params=params, batched=True)
    chosen = list(datasets.batches(x_train, onehot, BATCH, seed=0))[:batches]
    t0 = time.perf_counter()
    for xb, tb in chosen:
        model.zero_grad()
        total = micrograd.sum(
            loss_fn([Value(v) for v in x], [Value(v) for v in t]) for x, t in zip(xb.tolist(), tb.tolist())
        ) * (1.0 / len(xb))
        total.backward()
    eager = (time.perf_counter() - t0) / len(chosen)
    t0 = time.perf_counter()
    for xb, tb in chosen:
        model.zero_grad()
        step.backward(xb, tb)
    replay = (time.perf_counter() - t0) / len(chosen)
    model.zero_grad()
    return eager, replay


def plot_curves(curves: dict[str, list[float]], per_epoch: int, path: Path, written: list[Path]) -> None:
    plt = common.pyplot()
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4.2))
    epochs_axis = [(k + 1) / per_epoch for k in range(len(curves["loss"]))]
    ax_loss.plot(epochs_axis, curves["loss"], color=common.LOSS_COLOUR, linewidth=1, label="batch loss")
    ax_loss.set_yscale("log")
    ax_loss.set_title("digits: loss")
    ax_loss.set_ylabel("cross-entropy (log scale)")
    done = list(range(1, len(curves["test_acc"]) + 1))
    ax_acc.plot(
        done, [100 * a for a in curves["train_acc"]], color=common.LOSS_COLOUR, marker="o", label="training"
    )
    ax_acc.plot(
        done, [100 * a for a in curves["test_acc"]], color=common.ACCURACY_COLOUR, marker="o", label="test"
    )
    ax_acc.set_ylim(0, 105)
    ax_acc.set_title("digits: accuracy after each epoch")
    ax_acc.set_ylabel("accuracy (%)")
    for ax in (ax_loss, ax_acc):
        ax.set_xlabel("epoch")
        ax.legend(loc="best")
    common.integer_steps(ax_acc)
    fig.suptitle(f"digits: MLP(64, {SIZES}), Adam, batches of {BATCH}, compile(batched=True)")
    fig.tight_layout()
    common.save(fig, path, written)


def plot_grid(
    model: MLP, images: NDArray[np.float64], labels: NDArray[np.int64], path: Path, written: list[Path]
) -> None:
    """The first 48 test digits in one picture, each with its predicted label, mistakes in red."""
    import numpy
    from matplotlib.patches import Patch

    rows, cols, cell = 6, 8, 10  # 8x8 pixels and a 2-pixel gap
    shown = min(rows * cols, len(images))
    predicted = logits_of(model, images[:shown]).argmax(axis=1)
    mosaic = numpy.ones((rows * cell, cols * cell))
    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(8, 6.8))
    for i in range(shown):
        r, c = divmod(i, cols)
        mosaic[r * cell + 1 : r * cell + 9, c * cell + 1 : c * cell + 9] = 1.0 - images[i].reshape(8, 8)
    ax.imshow(mosaic, cmap="gray", vmin=0.0, vmax=1.0, interpolation="nearest")
    for i in range(shown):
        r, c = divmod(i, cols)
        right = predicted[i] == labels[i]
        text = f"{predicted[i]}" if right else f"{predicted[i]} (is {labels[i]})"
        ax.text(
            c * cell + 4.5,
            r * cell + 0.6,
            text,
            ha="center",
            va="bottom",
            fontsize=8,
            color=CORRECT if right else MISTAKE,
            fontweight="normal" if right else "bold",
        )
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("test images, left to right")
    ax.set_ylabel("row")
    wrong = int((predicted != labels[:shown]).sum())
    ax.set_title(f"digits: predicted labels of {shown} test images ({wrong} wrong)")
    ax.legend(
        handles=[Patch(color=CORRECT), Patch(color=MISTAKE)],
        labels=["predicted label, right", "mistake: predicted (true)"],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.06),
        ncol=2,
        fontsize=9,
    )
    fig.tight_layout()
    common.save(fig, path, written)


def confusion(model: MLP, images: NDArray[np.float64], labels: NDArray[np.int64]) -> NDArray[np.int64]:
    """counts[true, predicted] over the images."""
    import numpy

    counts = numpy.zeros((CLASSES, CLASSES), dtype=numpy.int64)
    numpy.add.at(counts, (labels, logits_of(model, images).argmax(axis=1)), 1)
    return counts


def plot_confusion(counts: NDArray[np.int64], path: Path, written: list[Path]) -> None:
    from matplotlib.patches import Patch

    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(6.8, 6.2))
    ax.imshow(counts, cmap="Blues", interpolation="nearest")
    top = max(int(counts.max()), 1)
    for t in range(CLASSES):
        for p in range(CLASSES):
            if counts[t, p]:
                colour = "white" if counts[t, p] > top / 2 else ("black" if t == p else MISTAKE)
                ax.text(p, t, str(counts[t, p]), ha="center", va="center", fontsize=9, color=colour)
    ax.set_xticks(range(CLASSES))
    ax.set_yticks(range(CLASSES))
    ax.set_xlabel("predicted digit")
    ax.set_ylabel("true digit")
    total = int(counts.sum())
    ax.set_title(f"digits: confusion matrix, {total} test images, {int(counts.trace())} right")
    ax.legend(
        handles=[Patch(color="#08306b"), Patch(color="#deebf7")],
        labels=["many images", "few images"],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.1),
        ncol=2,
        fontsize=9,
    )
    fig.tight_layout()
    common.save(fig, path, written)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], seed=0)
    p.add_argument(
        "--epochs",
        type=common.positive_int,
        default=20,
        help="passes over the training images (default: 20)",
    )
    p.add_argument(
        "--steps",
        type=common.positive_int,
        default=None,
        help="stop after this many batches in all (CI uses a few)",
    )
    p.add_argument(
        "--eager",
        action="store_true",
        help="also run a few batches on the eager engine and print its time per batch against the replay's",
    )
    args = p.parse_args(argv)
    out = common.prepare_out(p, args.out)
    try:
        data = datasets.load_digits(test_size=0.2, seed=0)
    except ImportError as exc:
        p.error(str(exc))
    written: list[Path] = []
    model = MLP(64, SIZES, activation="relu", seed=args.seed)
    if args.eager:
        eager, replay = eager_speed_ratio(MLP(64, SIZES, activation="relu", seed=args.seed), data, batches=2)
        print(
            f"one batch of {BATCH}: eager engine {eager * 1e3:.0f} ms, batched replay {replay * 1e3:.2f} ms "
            f"({eager / replay:.0f}x faster)"
        )
    t0 = time.perf_counter()
    curves = train(model, data, args.epochs, args.steps, args.seed, args.quiet)
    seconds = time.perf_counter() - t0
    x_train, _, x_test, y_test = data
    per_epoch = len(datasets.batches(x_train, x_train, BATCH))
    plot_curves(curves, per_epoch, out / "digits_curves.png", written)
    plot_grid(model, x_test, y_test, out / "digits_predictions.png", written)
    plot_confusion(confusion(model, x_test, y_test), out / "digits_confusion.png", written)
    print(
        f"after {len(curves['loss'])} batches ({len(curves['test_acc'])} epochs, {seconds:.1f} s): "
        f"test accuracy {curves['test_acc'][-1]:.1%}, training accuracy {curves['train_acc'][-1]:.1%}"
    )
    common.report(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
