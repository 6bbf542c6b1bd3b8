"""Forward versus reverse mode: the cost of a full Jacobian of f: R^n -> R^m as n and m vary,
measured; and Newton's method with grad(grad(f)), step by step.

``micrograd.func.jacfwd`` pushes n tangents forward through the graph (one per input) in one
walk; ``micrograd.func.jacrev`` runs one backward pass per output.  Forward mode's cost grows
with n, reverse mode's with m: forward wins when n << m, reverse when m << n (a neural net's
loss, m = 1, is why deep learning uses reverse mode).  The functions measured share a body of
fixed size, so the graph barely grows with n and m and the trade-off shows plainly.  Here the
crossover is not at n = m: forward mode visits each node once, asking its op for the local
derivatives once and then doing n multiply-adds, while each of reverse mode's m passes walks
the whole graph again, so a tangent costs less than a backward pass.

Newton's method minimises a scalar function with its first and second derivatives, both by
``micrograd.func.grad``.

    python -m demos.forward_vs_reverse --out out   # or: python -m demos.forward_vs_reverse
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if not __package__:  # run as a file (python demos/x.py): the repository's packages, importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demos import common
from micrograd import func
from micrograd import sum as vsum

FORWARD_COLOUR, REVERSE_COLOUR = "#e8590c", "#1c7ed6"
BODY_WIDTH, BODY_DEPTH = 4, 12  # the shared body: 4 running values mixed through 12 layers


def make_f(n: int, m: int) -> Callable[[list[Any]], list[Any]]:
    """f: R^n -> R^m: the inputs fold into a body of fixed size, which every output reads."""

    def f(xs: list[Any]) -> list[Any]:
        h = [vsum(x * (0.3 + 0.1 * ((i + k) % 5)) for i, x in enumerate(xs)) for k in range(BODY_WIDTH)]
        for layer in range(BODY_DEPTH):
            h = [(h[k] * 0.5 + h[(k + layer + 1) % BODY_WIDTH] * 0.4).tanh() for k in range(BODY_WIDTH)]
        return [(h[j % BODY_WIDTH] * (1.0 + 0.01 * j) + h[(j + 1) % BODY_WIDTH]).sin() for j in range(m)]

    return f


def seconds(work: Callable[[], Any], repeats: int) -> float:
    """The shortest of ``repeats`` timings of ``work()``: the least disturbed by the machine."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def jacobian_costs(n: int, m: int, repeats: int) -> tuple[float, float, float]:
    """(forward seconds, reverse seconds, largest difference between the two Jacobians)."""
    f = make_f(n, m)
    xs = [0.1 * (i % 7) - 0.3 for i in range(n)]
    forward, reverse = func.jacfwd(f), func.jacrev(f)
    jf, jr = forward(xs), reverse(xs)
    gap = max(abs(a - b) for row_f, row_r in zip(jf, jr) for a, b in zip(row_f, row_r))
    return seconds(lambda: forward(xs), repeats), seconds(lambda: reverse(xs), repeats), gap


def sizes(largest: int) -> list[int]:
    """1, 2, 4, ... up to ``largest`` (and ``largest`` itself)."""
    out = [1]
    while out[-1] * 2 <= largest:
        out.append(out[-1] * 2)
    if out[-1] != largest:
        out.append(largest)
    return out


def newton_f(x: Any) -> Any:
    """x**4 - 3x**2 + x: minima near x = -1.30 and x = 1.13 (Newton from x = 2 finds the nearer)."""
    return x**4 - 3 * x**2 + x


def newton(x0: float, steps: int) -> list[float]:
    """Newton's method for a minimum: x <- x - f'(x) / f''(x), with f' and f'' by grad."""
    df, d2f = func.grad(newton_f), func.grad(func.grad(newton_f))
    xs = [x0]
    for _ in range(steps):
        x = xs[-1]
        xs.append(x - df(x) / d2f(x))
    return xs


def plot_costs(largest: int, repeats: int, out: Path, written: list[Path], quiet: bool) -> float:
    plt = common.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    worst = 0.0
    for ax, varying in zip(axes, ("n", "m")):
        ns = sizes(largest)
        fwd, rev = [], []
        for k in ns:
            n, m = (k, largest) if varying == "n" else (largest, k)
            tf, tr, gap = jacobian_costs(n, m, repeats)
            worst = max(worst, gap)
            fwd.append(tf * 1e3)
            rev.append(tr * 1e3)
            if not quiet:
                print(f"n = {n:3d}, m = {m:3d}: forward {tf * 1e3:8.2f} ms, reverse {tr * 1e3:8.2f} ms")
        ax.plot(ns, fwd, "o-", color=FORWARD_COLOUR, label="forward mode (jacfwd): n tangents, one walk")
        ax.plot(ns, rev, "s-", color=REVERSE_COLOUR, label="reverse mode (jacrev): m backward passes")
        fixed = "m" if varying == "n" else "n"
        ax.set_xscale("log", base=2)
        ax.set_xlabel(f"{varying} ({'inputs' if varying == 'n' else 'outputs'}); {fixed} = {largest}")
        ax.set_ylabel("time for the full Jacobian (ms)")
        ax.set_title(f"forward vs reverse: {varying} varies, {fixed} = {largest}")
        ax.legend(loc="upper left", fontsize=8)
    fig.suptitle(
        f"forward vs reverse: the full Jacobian of f: R^n -> R^m (best of {repeats}); "
        f"both agree within {worst:.0e}"
    )
    fig.tight_layout()
    common.save(fig, out / "forward_vs_reverse.png", written)
    return worst


def plot_newton(steps: int, out: Path, written: list[Path], quiet: bool) -> list[float]:
    xs = newton(2.0, steps)
    df, d2f = func.grad(newton_f), func.grad(func.grad(newton_f))
    plt = common.pyplot()
    fig, (ax, ax_err) = plt.subplots(1, 2, figsize=(12, 4.6))
    grid = [-2.2 + 4.6 * i / 400 for i in range(401)]
    ax.plot(grid, [newton_f(x) for x in grid], color="black", label="f(x) = x⁴ - 3x² + x")
    colours = plt.get_cmap("viridis")
    for k, (x, x_next) in enumerate(itertools.pairwise(xs)):
        fx, g, h = newton_f(x), df(x), d2f(x)
        width = max(abs(x_next - x) * 1.5, 0.15)
        local = [x - width + 2 * width * i / 60 for i in range(61)]
        colour = colours(k / max(1, steps))
        ax.plot(
            local,
            [fx + g * (t - x) + 0.5 * h * (t - x) ** 2 for t in local],
            "--",
            color=colour,
            label=f"step {k + 1}: quadratic model at x = {x:.4f}",
        )
        ax.annotate(
            "",
            xy=(x_next, newton_f(x_next)),
            xytext=(x, fx),
            arrowprops={"arrowstyle": "->", "color": colour},
        )
    ax.plot(xs, [newton_f(x) for x in xs], "o", color="#e03131", label="Newton's iterates")
    ax.set_ylim(-3.5, 6)
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.set_title("forward vs reverse: Newton's method, x <- x - f'(x) / f''(x)")
    ax.legend(loc="upper center", fontsize=7)
    steps_axis = list(range(len(xs)))
    ax_err.semilogy(
        steps_axis,
        [max(abs(df(x)), 1e-17) for x in xs],
        "o-",
        color="#e03131",
        label="|f'(x)| (1e-17 = zero)",
    )
    ax_err.set_xlabel("Newton step")
    ax_err.set_ylabel("|f'(x)|")
    ax_err.set_title("forward vs reverse: |f'| per step; f' = grad(f), f'' = grad(grad(f))")
    ax_err.legend(loc="upper right")
    common.integer_steps(ax_err)
    fig.tight_layout()
    common.save(fig, out / "newton.png", written)
    if not quiet:
        for k, x in enumerate(xs):
            print(f"Newton step {k}: x = {x:.15f}, f'(x) = {df(x):+.3e}, f''(x) = {d2f(x):.4f}")
    return xs


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], steps=None, seed=None)
    p.add_argument(
        "--largest",
        type=common.positive_int,
        default=64,
        help="the largest n and m measured (default: 64; CI uses 4)",
    )
    p.add_argument(
        "--repeats", type=common.positive_int, default=3, help="timings per size, the best kept (default: 3)"
    )
    p.add_argument(
        "--newton-steps", type=common.positive_int, default=6, help="Newton steps drawn (default: 6)"
    )
    args = p.parse_args(argv)
    if args.largest < 2:
        p.error("--largest must be at least 2")
    out = common.prepare_out(p, args.out)
    written: list[Path] = []
    worst = plot_costs(args.largest, args.repeats, out, written, args.quiet)
    plot_newton(args.newton_steps, out, written, args.quiet)
    if not args.quiet:
        print(f"jacfwd and jacrev agree within {worst:.1e}\n")
    common.report(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
