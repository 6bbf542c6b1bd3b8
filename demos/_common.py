"""What every demo shares: its command line (``--seed``, ``--out``, ``--steps``, ``--quiet``),
the check that ``--out`` is writable before any work starts, and matplotlib on the Agg backend."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from micrograd.viz import GraphvizNotFoundError, render


def positive_int(text: str) -> int:
    """argparse type: an int >= 1 (argparse turns the ValueError into a usage error)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {n}")
    return n


def positive_float(text: str) -> float:
    """argparse type: a finite float > 0."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not 0.0 < x < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return x


def parser(description: str, steps: int | None = None, seed: int | None = 1337) -> argparse.ArgumentParser:
    """A parser with ``--out`` and ``--quiet``, plus ``--seed`` and ``--steps`` for demos that train."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", type=Path, default=Path("out"), help="directory for the PNGs (default: out)")
    if seed is not None:
        p.add_argument("--seed", type=int, default=seed, help=f"random seed (default: {seed})")
    if steps is not None:
        p.add_argument(
            "--steps",
            type=positive_int,
            default=steps,
            help=f"training steps (default: {steps}; CI uses a few)",
        )
    p.add_argument("--quiet", action="store_true", help="no progress bar or explanations, only the file list")
    return p


def prepare_out(p: argparse.ArgumentParser, out: Path) -> Path:
    """Create ``out`` and prove it writable, or stop with a usage error: before training, not after."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        # Writing a file is the only sure test: os.access is wrong for root and on some mounts.
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        p.error(f"--out {str(out)!r} is not a writable directory: {exc.strerror or exc}")
    return out


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend: PNGs without a display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig: Any, path: Path, written: list[Path]) -> None:
    """Save a figure as PNG, close it, and record the path."""
    fig.savefig(path, dpi=100)
    pyplot().close(fig)
    written.append(path)


def plot_curves(
    loss_curve: list[float],
    acc_curve: list[float],
    path: Path,
    written: list[Path],
    loss_title: str,
    acc_title: str,
    log_loss: bool = False,
    linewidth: float = 1.5,
) -> None:
    """Loss (left) and accuracy in % (right) against the training step, side by side."""
    plt = pyplot()
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    steps = range(1, len(loss_curve) + 1)
    ax_loss.plot(steps, loss_curve, color="#1c7ed6", linewidth=linewidth)
    if log_loss:
        ax_loss.set_yscale("log")
    ax_loss.set_title(loss_title)
    ax_acc.plot(steps, [100 * a for a in acc_curve], color="#2f9e44", linewidth=linewidth)
    ax_acc.set_ylim(0, 105)
    ax_acc.set_title(acc_title)
    for ax in (ax_loss, ax_acc):
        ax.set_xlabel("step")
    fig.tight_layout()
    save(fig, path, written)


def render_graph(root: Any, path: Path, written: list[Path], **kwargs: Any) -> None:
    """Render a graph PNG; without Graphviz's ``dot``, warn (the DOT source is kept) and go on."""
    try:
        written.append(render(root, path, **kwargs))
    except GraphvizNotFoundError as exc:
        print(f"warning: {exc}", file=sys.stderr)


def report(written: list[Path]) -> None:
    """The list of files written, one per line, on stdout."""
    for path in written:
        print(f"wrote {os.fspath(path)}")
