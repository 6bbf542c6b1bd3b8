"""What a failed check says: the line (WRONG, or EDGE when every difference is an edge case)
and the hint, naming the usual mistake where the student's number matches one."""

from __future__ import annotations

import math as _pymath
from collections.abc import Callable
from typing import Any

from .compare import Diff, close, num
from .references import MISTAKES, Point
from .result import CheckLine
from .running import Raised


def diff_line(
    check: str, diffs: list[Diff], n_points: int, hint_of: Callable[[Diff], str], like_name: str
) -> CheckLine:
    """WRONG when one difference is not an edge case (the first such one shown), else EDGE."""
    wrong = [d for d in diffs if not d.edge]
    if wrong:
        more = f" (and {len(diffs) - 1} more)" if len(diffs) > 1 else ""
        return CheckLine("WRONG", check, wrong[0].message + more, hint_of(wrong[0]))
    first = diffs[0]
    more = f" (and {len(diffs) - 1} more edge point{'s' if len(diffs) > 2 else ''})" if len(diffs) > 1 else ""
    return CheckLine(
        "EDGE",
        check,
        f"right at {n_points - len(diffs)} of {n_points} points; only at the edges it differs: "
        f"{first.message}{more}",
        edge_fix(first, like_name),
    )


def edge_fix(d: Diff, like_name: str) -> str:
    """What to change so that the edge point comes out as PyTorch's."""
    mine = d.mine
    if isinstance(mine, Raised):
        where = f"`{mine.line}` raised {mine.error}" if mine.line else f"your code raised {mine.error}"
        fixes = {
            "ZeroDivisionError": "Python's / raises at 0 where PyTorch gives inf or nan: "
            "write micrograd.math.div(a, b) (or divide Values)",
            "OverflowError": "Python's math.exp and ** raise on overflow where PyTorch gives inf: "
            "use micrograd.math.exp and micrograd.math.pow",
        }
        fix = fixes.get(
            mine.error,
            "Python's math.log and math.sqrt raise outside their domain where PyTorch gives nan or -inf: "
            "use micrograd.math.log and micrograd.math.sqrt",
        )
        return f"{where}; {fix}"
    if isinstance(mine, float) and not _pymath.isfinite(mine) and _pymath.isfinite(d.expected or 0.0):
        return (
            f"yours is {num(mine)}: an intermediate overflowed to inf (inf/inf and inf - inf are nan); "
            "write it with numbers that stay finite (ctx.output: sigmoid' = s * (1 - s)), or with "
            "micrograd.math.tanh and .sigmoid, which are stable everywhere"
        )
    if any(c == 0.0 for c in d.pt):
        for j, (text, usual) in MISTAKES.get(like_name, []):
            if j == d.i and close(mine, usual(*d.pt, *d.ps)):
                return f"you returned {text}"
        return (
            "at 0 the derivative of a kink is a convention: the reference (and PyTorch) takes the value "
            "expected here; use the same comparison (x > 0, say) as the reference"
        )
    return "micrograd.math's functions (div, exp, log, pow, ...) give PyTorch's inf and nan at the edges"


def forward_hint(d: Diff) -> str:
    if isinstance(d.mine, Raised):
        return "Python's math raises where micrograd.math gives inf or nan (micrograd.math.exp(1000) is inf)"
    if isinstance(d.mine, float) and _pymath.isnan(d.mine):
        return (
            "an intermediate overflowed to inf (inf/inf and inf - inf are nan); "
            "micrograd.math.tanh and .sigmoid are stable everywhere"
        )
    return ""


def hint_for(
    like_name: str, i: int, pt: Point, ps: tuple[float, ...], mine: Any, expected: Any, out: float, rule: str
) -> str:
    prefix = f"{rule}; " if rule else ""
    if isinstance(mine, Raised):
        return prefix + "your backward raised; micrograd.math's functions give inf/nan instead of errors"
    for j, (text, wrong) in MISTAKES.get(like_name, []):
        if j != i:
            continue
        try:
            value = wrong(*pt, *ps)
        except (ArithmeticError, ValueError, TypeError):
            continue
        if close(mine, value, 1e-6, 1e-9) and not close(value, expected, 1e-6, 1e-9):
            return f"{prefix}you returned {text}?"
    if expected is not None and mine == 0.0 and expected != 0.0:
        return prefix + (
            "yours is 0 here: a branch at the wrong point, or a backward that returns nothing "
            "(a function without return gives None)?"
        )
    if expected is not None and close(mine, -expected) and expected != 0.0:
        return prefix + "the sign is flipped"
    if (
        _pymath.isfinite(out)
        and close(mine, out)
        and not close(out, expected if expected is not None else out + 1)
    ):
        return prefix + "you returned the op's result, not its derivative?"
    return rule
