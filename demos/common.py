"""What every demo shares: its command line (``--seed``, ``--out``, ``--steps``, ``--quiet``),
the check that ``--out`` is writable before any work starts, matplotlib on the Agg backend, and
one look for every picture: a title naming the demo, labelled axes, integer training-step ticks,
a legend for every colour that means something, and graphs at most MAX_GRAPH_WIDTH pixels wide."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from micrograd import Value, topological_order
from micrograd.viz import COLOURS, INSTALL_HINT, draw_dot

from .check_pngs import MAX_WIDTH, png_size

MAX_GRAPH_WIDTH = MAX_WIDTH  # pixels: wider graphs are drawn top to bottom instead of left to right
STEP_LABEL = "training step"
LOSS_COLOUR, ACCURACY_COLOUR = "#1c7ed6", "#2f9e44"
# What each fill colour of micrograd.viz means, for the graphs' legends.
ROLE_NAMES = {
    "named leaf": "input",
    "parameter": "parameter",
    "constant": "constant",
    "intermediate": "op result",
    "output": "output",
}


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


def integer_steps(ax: Any) -> None:
    """Whole numbers only on the x axis (training steps)."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def plot_curves(
    loss_curve: list[float],
    acc_curve: list[float],
    path: Path,
    written: list[Path],
    title: str,
    loss_label: str,
    acc_label: str,
    log_loss: bool = False,
    linewidth: float = 1.5,
) -> None:
    """Loss (left) and accuracy in % (right) against the training step, side by side, under ``title``;
    ``loss_label`` and ``acc_label`` name the two curves in their legends."""
    plt = pyplot()
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4.2))
    steps = range(1, len(loss_curve) + 1)
    ax_loss.plot(steps, loss_curve, color=LOSS_COLOUR, linewidth=linewidth, label=loss_label)
    if log_loss:
        ax_loss.set_yscale("log")
    ax_loss.set_title("loss")
    ax_loss.set_ylabel("loss (log scale)" if log_loss else "loss")
    ax_acc.plot(
        steps, [100 * a for a in acc_curve], color=ACCURACY_COLOUR, linewidth=linewidth, label=acc_label
    )
    ax_acc.set_ylim(0, 105)
    ax_acc.set_title("accuracy")
    ax_acc.set_ylabel("accuracy (%)")
    for ax in (ax_loss, ax_acc):
        ax.set_xlabel(STEP_LABEL)
        integer_steps(ax)
        ax.legend(loc="best")
    fig.suptitle(title)
    fig.tight_layout()
    save(fig, path, written)


def scatter_classes(
    ax: Any, points: Sequence[Sequence[float]], labels: Sequence[int], colours: list[str], size: float
) -> None:
    """The 2-D ``points`` on ``ax``, class c (``labels``) in ``colours[c]``, each labelled "class c"."""
    for c, colour in enumerate(colours):
        members = [p for p, t in zip(points, labels) if t == c]
        ax.scatter(
            [p[0] for p in members],
            [p[1] for p in members],
            color=colour,
            s=size,
            edgecolors="black",
            label=f"class {c}",
        )


def region_legend(ax: Any, regions: list[str], boundary: str | None = None) -> None:
    """A legend of the points already labelled on ``ax``, then one patch per predicted class
    (``regions[c]`` is class c's fill) and, if given, the boundary line."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    for c, colour in enumerate(regions):
        handles.append(Patch(facecolor=colour, edgecolor="none"))
        labels.append(f"predicted {c}")
    if boundary is not None:
        handles.append(Line2D([], [], color="black", linewidth=1))
        labels.append(boundary)
    ax.legend(handles, labels, loc="best", fontsize=9, framealpha=0.9)


def roles(root: Value, params: list[Value] | None = None) -> list[str]:
    """The roles (keys of micrograd.viz.COLOURS) of the Values in ``root``'s graph, as draw_dot colours
    them: the root is the output, op results are intermediate, leaves in ``params`` are parameters,
    other leaves are named leaves if labelled, else constants."""
    param_set = set(params or [])
    found = set()
    for v in topological_order(root):
        if v is root:
            found.add("output")
        elif v._prev:
            found.add("intermediate")
        elif v in param_set:
            found.add("parameter")
        else:
            found.add("named leaf" if v.label else "constant")
    order = [*ROLE_NAMES, *COLOURS]  # reading order: inputs first, the output last
    return [role for role in dict.fromkeys(order) if role in found and role in COLOURS]


def graph_caption(title: str, present: list[str]) -> str:
    """A Graphviz HTML-like label: ``title`` in bold over a legend of the fill colours in ``present``."""
    from html import escape

    # Graphviz stretches a nested table to the width of the title; fixed sizes (in points) keep the
    # legend compact and centred.
    key_width, cell_width, height, spacing = 64, 84, 22, 3
    size = f'fixedsize="true" height="{height}"'
    cells = "".join(
        f'<td bgcolor="{COLOURS[role]}" border="1" {size} width="{cell_width}">'
        f"{escape(ROLE_NAMES.get(role, role))}</td>"
        for role in present
    )
    width = key_width + cell_width * len(present) + spacing * (len(present) + 2)
    legend = (
        f'<table border="0" cellspacing="{spacing}" fixedsize="true" width="{width}" height="{height + 8}">'
        f'<tr><td {size} width="{key_width}">colours:</td>{cells}</tr></table>'
    )
    note = "each box: label | data | grad; #i is the i-th Value, as explain() numbers it"
    return (
        '<<table border="0" cellspacing="2">'
        f"<tr><td><b>{escape(title)}</b></td></tr>"
        f"<tr><td>{legend}</td></tr>"
        f'<tr><td><font point-size="10">{escape(note)}</font></td></tr>'
        "</table>>"
    )


def graph_picture(
    root: Value, title: str, params: list[Value] | None, rankdir: str, max_width: int | None = None
) -> Any:
    """draw_dot's graph of ``root`` with ``title`` and the colour legend on top, at 96 dpi; with
    ``max_width``, scaled down (never up) to at most that many pixels wide."""
    dot = draw_dot(root, format="png", rankdir=rankdir, params=params)
    caption = graph_caption(title, roles(root, params))
    dot.attr(label=caption, labelloc="t", fontname="Helvetica", fontsize="12", dpi="96")
    if max_width is not None:  # Graphviz's size is in inches: at 96 dpi, this caps the width in pixels
        dot.attr(size=f"{max_width / 96:.4f},1000")
    return dot


def render_graph(
    root: Value,
    path: Path,
    written: list[Path],
    title: str,
    params: list[Value] | None = None,
    max_width: int = MAX_GRAPH_WIDTH,
) -> None:
    """Render ``root``'s graph as a PNG under ``title``, with a legend of its colours, at most
    ``max_width`` pixels wide: left to right if that fits, else top to bottom, else top to bottom
    scaled down.  Without Graphviz's ``dot``, warn (the DOT source is kept) and go on."""
    import graphviz

    image = b""
    for rankdir, scale in (("LR", False), ("TB", False), ("TB", True)):
        dot = graph_picture(root, title, params, rankdir, max_width if scale else None)
        try:
            image = dot.pipe(format="png")
        except graphviz.ExecutableNotFound:
            dot_path = path.with_suffix(".dot")
            dot_path.write_text(dot.source, encoding="utf-8")
            print(
                f"warning: Graphviz's `dot` program was not found on PATH, so {str(path)!r} was not drawn; "
                f"its DOT source is in {str(dot_path)!r}. To draw it, {INSTALL_HINT}.",
                file=sys.stderr,
            )
            return
        if png_size(image)[0] <= max_width:
            break
    else:
        raise RuntimeError(
            f"{path}: the graph is {png_size(image)[0]} pixels wide even scaled, over {max_width}"
        )
    path.write_bytes(image)
    written.append(path)


def report(written: list[Path]) -> None:
    """The list of files written, one per line, on stdout."""
    for path in written:
        print(f"wrote {os.fspath(path)}")
