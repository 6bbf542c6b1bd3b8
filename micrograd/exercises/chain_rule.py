"""The chain-rule check: backward multiplies by ``grad_output``, and adds into ``.grad`` rather
than assigning it (the lecture's bug)."""

from __future__ import annotations

from typing import Any

from .compare import at_point, close, num
from .references import Point
from .result import CheckLine, CheckResult
from .running import Raised

UPSTREAM = -2.5  # the grad_output of the chain-rule check


def check_chain_rule(
    result: CheckResult,
    calls: Any,
    cases: list[tuple[Point, tuple[float, ...], bool]],
    runs: dict[int, Any],
    names: list[str],
) -> None:
    """``calls``: the student's op's numbers (``op_calls.Local`` or ``Remote``)."""
    for k, (pt, ps, _edge) in enumerate(cases[:6]):
        if isinstance(runs[k], Raised):
            continue
        one = calls.grads(pt, ps)
        scaled = calls.grads(pt, ps, UPSTREAM)
        if isinstance(one, Raised) or isinstance(scaled, Raised):
            continue
        for i, (g1, g2) in enumerate(zip(one, scaled)):
            if not close(g2, UPSTREAM * g1):
                hint = (
                    "multiply by grad_output: backward returns d(root)/d(input) = "
                    "grad_output * d(result)/d(input) (the chain rule)"
                )
                which = f"d/d{names[i]} " if len(pt) > 1 and i < len(names) else ""
                result.lines.append(
                    CheckLine(
                        "WRONG",
                        "chain rule",
                        f"{which}at {at_point(names, pt, ps)} with grad_output = {UPSTREAM}: "
                        f"yours {num(g2)}, "
                        f"expected {UPSTREAM} * {num(g1)} = {num(UPSTREAM * g1)}",
                        hint,
                    )
                )
                return
        if assigns_grad(result, calls, pt, ps, one, names):
            return
        break  # the accumulation is checked at one point
    result.lines.append(
        CheckLine(
            "OK",
            "chain rule",
            f"backward scales with grad_output (tried {UPSTREAM}) and adds to what other uses of "
            "an input give",
        )
    )


def assigns_grad(
    result: CheckResult, calls: Any, pt: Point, ps: tuple[float, ...], one: list[Any], names: list[str]
) -> bool:
    """The lecture's bug: a ``_backward`` closure that sets ``x.grad = ...`` instead of adding to
    it wipes out what the other uses of x gave.  Each input used once more, in ``op(x) + x``, must
    get its gradient plus 1 (a Function cannot have the bug: the engine adds its gradients)."""
    both = calls.with_inputs(pt, ps)
    if isinstance(both, Raised):
        return False
    for i, (g1, g) in enumerate(zip(one, both)):
        if not close(g, g1 + 1.0):
            which = f"d/d{names[i]} " if len(pt) > 1 and i < len(names) else ""
            label = names[i] if len(pt) > 1 and i < len(names) else (names[0] if names else "x")
            result.lines.append(
                CheckLine(
                    "WRONG",
                    "chain rule",
                    f"{which}of (your op + {label}) at {at_point(names, pt, ps)}: yours {num(g)}, "
                    f"expected {num(g1)} + 1 = {num(g1 + 1.0)}",
                    "add into .grad (x.grad += ...), do not assign it (x.grad = ...): an input used "
                    "twice gets the gradient of both uses (the lecture's bug)",
                )
            )
            return True
    return False
