"""f(x) = x^3 + x and its derivative, computed by the engine, over [-3, 3]; and f's graph at x = 1.2.

Every point is a separate forward and backward pass: ``x.grad`` after
``f(x).backward()`` is f'(x), which the plot compares with 3x^2 + 1.
At x = 1.2 the graph shows f(1.2) = 2.928 and f'(1.2) = 5.32, and
``explain`` prints how backpropagation gets there.

    python -m demos.derivative --out out        # or: python demos/derivative.py --out out
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file (python demos/x.py): the repository's packages, importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demos import common
from micrograd import Value
from micrograd.viz import explain


def f(x: Value) -> Value:
    return x * x * x + x


def derivative_at(x: float) -> tuple[float, float]:
    """(f(x), f'(x)), the derivative by backpropagation."""
    v = Value(x)
    y = f(v)
    y.backward()
    return y.data, v.grad


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], steps=None, seed=None)
    p.add_argument(
        "--points", type=common.positive_int, default=121, help="x values in [-3, 3] (default: 121)"
    )
    args = p.parse_args(argv)
    if args.points < 2:
        p.error("--points must be at least 2")
    out = common.prepare_out(p, args.out)
    written: list[Path] = []

    xs = [-3.0 + 6.0 * i / (args.points - 1) for i in range(args.points)]
    ys, dys = zip(*(derivative_at(x) for x in xs))
    exact = [3 * x * x + 1 for x in xs]
    error = max(abs(d - e) for d, e in zip(dys, exact))

    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(xs, ys, color="#1c7ed6", label="f(x) = x³ + x")
    ax.plot(xs, exact, color="#adb5bd", linewidth=4, label="3x² + 1 (by hand)")
    ax.plot(xs, dys, "o", color="#e8590c", markersize=3, label="f'(x) from backward()")
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_xlabel("x")
    ax.set_ylabel("value")
    ax.set_title(f"derivative: f(x) = x³ + x and f'(x) by backward() (max error {error:.1e})")
    ax.legend(loc="best")
    fig.tight_layout()
    common.save(fig, out / "derivative.png", written)

    x = Value(1.2, label="x")
    y = f(x)
    y.label = "f"
    y.backward()
    title = "derivative: the graph of f(x) = x³ + x at x = 1.2 after backward(); df/dx = grad of x"
    common.render_graph(y, out / "derivative_graph.png", written, title)

    if not args.quiet:
        print(f"f(1.2) = {y.data:.4f}, f'(1.2) = {x.grad:.4f} (3 * 1.2**2 + 1 = {3 * 1.2**2 + 1:.4f})")
        print(f"largest |backward() - (3x^2 + 1)| over {args.points} points: {error:.2e}\n")
        explain(y)
        print()
    common.report(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
