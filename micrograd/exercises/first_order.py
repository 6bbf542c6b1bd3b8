"""The first-order checks: the forward against the reference, and the backward against the
reference's gradient and against central differences."""

from __future__ import annotations

from .compare import Diff, at_point, cd_tolerance, central_difference, close, is_edge, num
from .hints import diff_line, forward_hint, hint_for
from .references import DERIVATIVES, SETTLED_KINKS
from .result import CheckLine, CheckResult
from .running import Raised, Task


def edge_notes(task: Task) -> tuple[str, str]:
    """How many of the cases are edge points, in a long and a short note for the OK lines."""
    n_edges = sum(edge for _, _, edge in task.cases)
    if not n_edges:
        return "", ""
    return f" (incl. {n_edges} edge points: ±0, ±1e-8, ±1, ±20, ±1000 where defined)", (
        f" (incl. {n_edges} edge points)"
    )


def check_forward(result: CheckResult, task: Task) -> tuple[dict[int, float | Raised], set[int]]:
    """Run the student's forward at every case; compare it with the reference's.  Returns the
    values (the backward check reuses them) and the cases whose forward was already reported."""
    diffs: list[Diff] = []
    reported: set[int] = set()
    runs: dict[int, float | Raised] = {}
    for k, (pt, ps, _edge) in enumerate(task.cases):
        runs[k] = mine = task.calls.forward(pt, ps)
        if task.refs is None:
            continue
        ref = task.refs[k].value
        if isinstance(mine, Raised) or not close(mine, ref):
            msg = f"at {at_point(task.names, pt, ps)}: yours {num(mine)}, expected {num(ref)}"
            diffs.append(Diff(msg, is_edge(pt, mine, ref, task.bounds), pt, ps, 0, mine, ref))
            reported.add(k)
    if task.refs is None:
        result.lines.append(CheckLine("SKIP", "forward", "no reference to compare with (pass like=...)"))
    elif diffs:
        result.lines.append(diff_line("forward", diffs, len(task.cases), forward_hint, task.like_name))
    else:
        label = task.like_name or getattr(task.reference, "__name__", "the reference")
        note = edge_notes(task)[0]
        result.lines.append(CheckLine("OK", "forward", f"matches {label} at {len(task.cases)} points{note}"))
    return runs, reported


def backward_diffs_at(task: Task, k: int, out: float) -> tuple[list[Diff], int]:
    """The student's gradient at case ``k`` against the reference's and central differences:
    the differences found, and how many central differences could be trusted."""
    pt, ps, _edge = task.cases[k]
    mine_all = task.calls.grads(pt, ps)
    ref_all = None if task.refs is None else task.refs[k].grads
    diffs, n_cd = [], 0
    for i in range(len(pt)):
        mine = mine_all if isinstance(mine_all, Raised) else mine_all[i]
        expected = None if ref_all is None else ref_all[i]
        cd = central_difference(task.calls.forward, pt, ps, i, task.inside)
        if cd is not None and expected is not None and not close(cd, expected, 1e-3, 1e-5):
            cd = None  # the differences are not reliable here (rounding, a steep place)
        n_cd += cd is not None
        wrong = isinstance(mine, Raised) or (expected is not None and not close(mine, expected))
        if not wrong and cd is not None and not isinstance(mine, Raised):
            scale = max(abs(out), 1.0)
            wrong = not abs(mine - cd) <= cd_tolerance(cd, scale, 1e-6 * max(abs(pt[i]), 1.0))
        if wrong:
            which = f"d/d{task.names[i]} " if len(pt) > 1 and i < len(task.names) else ""
            target = expected if expected is not None else cd
            msg = f"{which}at {at_point(task.names, pt, ps)}: yours {num(mine)}, expected {num(target)}"
            if cd is not None and expected is not None:
                msg += f" (central difference {num(cd)})"
            edge = is_edge(pt, mine, target, task.bounds, task.like_name in SETTLED_KINKS)
            diffs.append(Diff(msg, edge, pt, ps, i, mine, target, out))
    return diffs, n_cd


def check_backward(
    result: CheckResult, task: Task, runs: dict[int, float | Raised], reported: set[int]
) -> None:
    """The student's backward at every case whose forward ran and was right."""
    diffs: list[Diff] = []
    n_cd = n_checked = 0
    for k, got in runs.items():
        if isinstance(got, Raised) or k in reported:
            continue  # already reported by the forward check
        n_checked += 1
        found, trusted = backward_diffs_at(task, k, got)
        diffs += found
        n_cd += trusted
    derivative = DERIVATIVES.get(task.like_name, "")

    def backward_hint(d: Diff) -> str:
        return hint_for(task.like_name, d.i, d.pt, d.ps, d.mine, d.expected, d.out, derivative)

    if diffs:
        n_grads = n_checked * len(task.cases[0][0])
        result.lines.append(diff_line("backward", diffs, n_grads, backward_hint, task.like_name))
        return
    if not n_checked:  # no point where the forward ran and was right: nothing to say OK about
        result.lines.append(CheckLine("SKIP", "backward", "not checked: the forward is off at every point"))
        return
    label = task.like_name or getattr(task.reference, "__name__", "the reference")
    against = f"{label}'s gradient and " if task.reference is not None else ""
    result.lines.append(
        CheckLine(
            "OK",
            "backward",
            f"matches {against}central differences at {n_checked} points{edge_notes(task)[1]}"
            f" ({n_cd} central differences)",
        )
    )
