"""micrograd's headline demo: an MLP(2, [16, 16, 1]) learns two moons to 100% training accuracy.

100 points of scikit-learn's two moons (noise 0.1), the SVM max-margin loss
plus 1e-4 L2, full-batch SGD with micrograd's schedule lr = 1 - 0.9 k / steps
(or Adam).  Writes the decision boundary (inference under ``no_grad``), the
loss and accuracy curves, and the computation graph of one trained neuron.

    python -m demos.moons --out out        # or: python demos/moons.py --out out
"""

from __future__ import annotations

import sys
from pathlib import Path

import micrograd

if not __package__:  # run as a file (python demos/x.py): the repository's packages, importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demos import common
from micrograd import Value, no_grad
from micrograd.viz.recorder import TrainingRecorder
from nn import datasets, losses, optim
from nn.layers import MLP
from nn.metrics import accuracy

ALPHA = 1e-4  # L2 strength, as micrograd's demo
ADAM_LR = 0.05
COLOURS = ["#e03131", "#1971c2"]  # the points of class 0 and 1
REGIONS = ["#ffc9c9", "#a5d8ff"]  # where the model predicts class 0 and 1


def loss_and_accuracy(model: MLP, xs: list[list[float]], y: list[int]) -> tuple[Value, float]:
    """micrograd's demo loss: mean hinge loss of the scores plus ALPHA times the sum of squared weights."""
    scores = [model(x) for x in xs]
    data_loss = losses.hinge(scores, y)  # type: ignore[arg-type]
    reg = ALPHA * sum((p * p for p in model.parameters()), Value(0.0))
    return data_loss + reg, accuracy(scores, y)  # type: ignore[arg-type]


def train(
    model: MLP,
    xs: list[list[float]],
    y: list[int],
    steps: int,
    optimizer: str,
    quiet: bool,
    compiled: bool = False,
    recorder: TrainingRecorder | None = None,
) -> tuple[list[float], list[float]]:
    """Full-batch training; returns the loss and accuracy of every step.

    ``compiled``: trace the step once with ``micrograd.compile`` and replay it with
    numpy; the same model comes out (equal to the eager one within 1e-9).
    ``recorder``: records every step (weights, gradients, loss, accuracy) for the replay page.
    """
    from tqdm import tqdm

    params = model.parameters()
    opt: optim.SGD | optim.Adam = (
        optim.SGD(params, lr=1.0) if optimizer == "sgd" else optim.Adam(params, lr=ADAM_LR)
    )
    if compiled:
        # The points are the traced input; the labels are constants of the loss.
        step = micrograd.compile(lambda pts: loss_and_accuracy(model, pts, y)[0], (xs,), params=params)
    loss_curve, acc_curve = [], []
    mode = "compiled" if compiled else "eager"
    bar = tqdm(range(steps), desc=f"moons ({optimizer}, {mode})", unit="step", disable=quiet, file=sys.stderr)
    for k in bar:
        opt.zero_grad()
        if compiled:
            loss = step.backward(xs)  # forward and backward by replay, into p.grad
            with no_grad():  # accuracy needs the scores, which the replay does not hand out
                acc = accuracy([model(x) for x in xs], y)  # type: ignore[arg-type]
        else:
            loss_value, acc = loss_and_accuracy(model, xs, y)
            loss_value.backward()
            loss = loss_value.data
        if optimizer == "sgd":
            opt.lr = 1.0 - 0.9 * k / steps  # micrograd's learning-rate decay
        if recorder is not None:
            recorder.record(loss, acc)  # this step's weights and gradients, before the update
        opt.step()
        loss_curve.append(loss)
        acc_curve.append(acc)
        bar.set_postfix(loss=f"{loss:.4f}", acc=f"{acc:.0%}")
    return loss_curve, acc_curve


def plot_boundary(model: MLP, xs: list[list[float]], y: list[int], path: Path, written: list[Path]) -> None:
    import numpy as np

    h = 0.05
    x0 = [p[0] for p in xs]
    x1 = [p[1] for p in xs]
    xx, yy = np.meshgrid(
        np.arange(min(x0) - 0.5, max(x0) + 0.5, h), np.arange(min(x1) - 0.5, max(x1) + 0.5, h)
    )
    with no_grad():  # inference: no graph, so no memory spent on it
        zz = np.array([model([float(a), float(b)]).data for a, b in zip(xx.ravel(), yy.ravel())])  # type: ignore[union-attr]
    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 5.5))
    ax.contourf(xx, yy, zz.reshape(xx.shape) > 0, levels=[-0.5, 0.5, 1.5], colors=REGIONS)
    ax.contour(xx, yy, zz.reshape(xx.shape), levels=[0.0], colors="black", linewidths=1)
    common.scatter_classes(ax, xs, y, COLOURS, size=25)
    common.region_legend(ax, REGIONS, boundary="decision boundary (score 0)")
    ax.set_title("moons: decision boundary of MLP(2, [16, 16, 1])")
    ax.set_xlabel("x₀")
    ax.set_ylabel("x₁")
    fig.tight_layout()
    common.save(fig, path, written)


def plot_curves(
    loss_curve: list[float], acc_curve: list[float], path: Path, written: list[Path], optimizer: str = "sgd"
) -> None:
    common.plot_curves(
        loss_curve,
        acc_curve,
        path,
        written,
        f"moons: training MLP(2, [16, 16, 1]) with {'SGD' if optimizer == 'sgd' else 'Adam'}, full batch",
        "hinge loss + L2",
        "training accuracy",
        log_loss=True,
    )


def neuron_graph(model: MLP, xs: list[list[float]], path: Path, written: list[Path]) -> None:
    """The graph of the first hidden neuron, as micrograd's README draws it, on the first
    input that switches its ReLU on (so that gradients flow to every weight)."""
    neuron = model.layers[0].neurons[0]
    for name, p in neuron.named_parameters():
        p.label = name.replace(".", "")  # w0, w1, b
    with no_grad():
        x = next((x for x in xs if neuron(x).data > 0), xs[0])
    inputs = [Value(v, label=f"x{i}") for i, v in enumerate(x)]
    out = neuron(inputs)
    out.label = "out"
    neuron.zero_grad()  # show this graph's gradients, not the last training step's
    out.backward()
    title = "moons: the first hidden neuron of the trained MLP on one input, backward() from its output"
    common.render_graph(out, path, written, title, params=neuron.parameters())


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], steps=100)
    p.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd", help="(default: sgd)")
    p.add_argument("--samples", type=common.positive_int, default=100, help="points (default: 100)")
    p.add_argument(
        "--compiled",
        action="store_true",
        help="trace the training step once and replay it with numpy (micrograd.compile): same model, faster",
    )
    p.add_argument("--no-html", action="store_true", help="do not write training.html (the training replay)")
    args = p.parse_args(argv)
    if args.samples < 2:
        p.error("--samples must be at least 2 (one per moon)")
    out = common.prepare_out(p, args.out)
    written: list[Path] = []

    xs, y = datasets.make_moons(args.samples, noise=0.1, seed=args.seed)
    model = MLP(2, [16, 16, 1], seed=args.seed)
    recorder = (
        None if args.no_html else TrainingRecorder(model, xs, y, title="Two moons: MLP(2, [16, 16, 1])")
    )
    loss_curve, acc_curve = train(
        model, xs, y, args.steps, args.optimizer, args.quiet, args.compiled, recorder
    )
    loss, acc = loss_and_accuracy(model, xs, y)

    plot_boundary(model, xs, y, out / "decision_boundary.png", written)
    plot_curves(loss_curve, acc_curve, out / "loss_curve.png", written, args.optimizer)
    neuron_graph(model, xs, out / "neuron_graph.png", written)
    if recorder is not None:
        recorder.loss_name = "loss (hinge + L2)"
        recorder.finish(loss, acc)
        written.append(recorder.write_html(out / "training.html"))

    print(f"after {args.steps} steps ({args.optimizer}): loss {loss.data:.4f}, training accuracy {acc:.0%}")
    common.report(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
