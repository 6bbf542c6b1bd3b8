"""The second-order check: when the student's backward is written with differentiable math,
``grad(create_graph=True)`` runs through it, and its second derivatives match the reference's
(or central differences of the first ones).  Backward computed with plain floats is fine for
first-order exercises: that is a SKIP with a hint, never WRONG."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .compare import at_point, central_difference, close, num
from .references import Point
from .result import CheckLine, CheckResult
from .running import Raised, Task

Params = tuple[float, ...]

FROZEN_HINT = "use micrograd.math (and ctx.inputs / ctx.output) to make backward differentiable"


def check_second_order(result: CheckResult, task: Task) -> None:
    """Append the second-order line: OK, or SKIP saying which part of backward is not differentiable."""
    ordinary = [(k, pt, ps) for k, (pt, ps, edge) in enumerate(task.cases) if not edge]
    k0, pt0, ps0 = ordinary[0] if ordinary else (0, *task.cases[0][:2])
    skipped = first_derivatives_are_constant(task, k0, pt0, ps0)
    if skipped is not None:
        result.lines.append(skipped)
        return
    for k, pt, ps in ordinary:
        mismatch = second_derivatives_differ(task, k, pt, ps)
        if mismatch is not None:
            result.lines.append(mismatch)
            return
    result.lines.append(
        CheckLine("OK", "second order", f"second derivatives match at {len(ordinary)} points")
    )


def first_derivatives_are_constant(task: Task, k: int, pt: Point, ps: Params) -> CheckLine | None:
    """A SKIP line when ``grad(create_graph=True)`` cannot run through the student's backward, or
    when a first derivative that depends on the inputs (the reference's does) is a constant to the
    engine, computed with plain floats (Python's math, float(), .data); else None."""
    second = task.calls.second(pt, ps)
    if second.error:
        return CheckLine(
            "SKIP",
            "second order",
            f"grad(create_graph=True) does not run through your backward ({second.error}); "
            "fine for first-order exercises",
            "write backward with operators and micrograd.math (as a Function) to make it differentiable",
        )
    connected = second.connected
    # without a reference, any derivative may depend on the inputs
    ref_nonzero = [True] * len(connected) if task.refs is None else task.refs[k].nonzero
    constant = [i for i, (c, nz) in enumerate(zip(connected, ref_nonzero)) if nz and not c]
    if not constant or (task.refs is not None and not any(ref_nonzero)):
        return None
    first = constant[0]
    part = (
        "your backward computes"
        if len(constant) == len(connected) or not any(connected)
        else f"your backward's d/d{task.names[first] if first < len(task.names) else 'x'} computes"
    )
    message = (
        f"{part} with plain floats (Python's math module, float(), .data), so "
        "its result is a constant to the engine; fine for first-order exercises"
    )
    return CheckLine("SKIP", "second order", message, FROZEN_HINT)


def second_derivatives_differ(task: Task, k: int, pt: Point, ps: Params) -> CheckLine | None:
    """The first second derivative at ``pt`` that differs from the reference's (or, without one,
    from central differences of the student's first derivative), as a SKIP line; else None."""
    second = task.calls.second(pt, ps)
    if second.error or second.hessian is None:
        return None
    ref_h = None if task.refs is None else task.refs[k].hessian
    for i, row in enumerate(second.hessian):
        for j, value in enumerate(row):
            expected = (
                ref_h[i][j]
                if ref_h is not None
                else central_difference(derivative_of(task.calls, i), pt, ps, j, task.inside)
            )
            if expected is None or close(value, expected, 1e-4 if ref_h is None else 1e-6, 1e-8):
                continue
            which = f"d2/(d{task.names[i]} d{task.names[j]})" if len(pt) > 1 else "d2/dx2"
            # backward's first derivatives are right (else this check does not run), so the
            # second ones can only differ where part of backward is frozen as plain floats:
            # not a wrong rule, a first-order one.
            return CheckLine(
                "SKIP",
                "second order",
                f"{which} at {at_point(task.names, pt, ps)}: "
                f"yours {num(value)}, expected {num(expected)}: part of your backward is a "
                "constant to the engine; fine for first-order exercises",
                "backward's formula is differentiated too: use ctx.inputs/ctx.output and "
                "micrograd.math, not numbers from Python's math or saved as plain floats",
            )
    return None


def derivative_of(calls: Any, i: int) -> Callable[[Point, Params], Any]:
    """The student's first derivative in input ``i`` at a point (for its central differences)."""

    def first(pt: Point, ps: Params) -> Any:
        gs = calls.grads(pt, ps)
        return gs if isinstance(gs, Raised) else gs[i]

    return first
