"""What ``check`` found: a ``CheckLine`` per check and the ``CheckResult`` that sums them up,
printed in a terminal and shown as a coloured table in Jupyter."""

from __future__ import annotations

import html
import sys
from dataclasses import dataclass, field
from typing import Any

COLOURS = {
    "OK": "#1a7f37",
    "EDGE": "#bc4c00",
    "WRONG": "#cf222e",
    "SKIP": "#6e7781",
    "TODO": "#9a6700",
    "TIMEOUT": "#8250df",
}
ANSI = {
    "OK": "\033[32m",
    "EDGE": "\033[35m",
    "WRONG": "\033[31m",
    "SKIP": "\033[90m",
    "TODO": "\033[33m",
    "TIMEOUT": "\033[35m",
}
RIGHT, EDGES, WRONG, NOT_WRITTEN, TIMED_OUT = (
    "RIGHT",
    "RIGHT, EXCEPT AT EDGES",
    "WRONG",
    "NOT WRITTEN YET",
    "TIMED OUT",
)


@dataclass
class CheckLine:
    """One check: ``status`` is OK, EDGE (right, except at the edge points it names), WRONG,
    SKIP (not applicable), TODO (not written yet) or TIMEOUT (a call ran out of time)."""

    status: str
    check: str
    message: str
    hint: str = ""

    def text(self, colour: bool = False) -> str:
        status = f"{self.status:<5}"
        if colour:
            status = f"{ANSI[self.status]}{status}\033[0m"
        line = f"{status} {self.check}: {self.message}"
        if self.hint:
            line += f"\n      hint: {self.hint}"
        return line


@dataclass
class CheckResult:
    """What ``check`` found: truthy when every check passed (SKIP lines do not fail)."""

    name: str
    lines: list[CheckLine] = field(default_factory=list)
    _shown_in: int | None = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        return all(line.status in ("OK", "SKIP") for line in self.lines)

    @property
    def verdict(self) -> str:
        """The whole check in words: RIGHT, RIGHT, EXCEPT AT EDGES (the formula is right, but it
        raises or gives another number at an edge point such as ±0, ±1000 or where an
        intermediate overflows), WRONG, NOT WRITTEN YET or TIMED OUT."""
        statuses = {line.status for line in self.lines}
        for status, verdict in (
            ("TODO", NOT_WRITTEN),
            ("TIMEOUT", TIMED_OUT),
            ("WRONG", WRONG),
            ("EDGE", EDGES),
        ):
            if status in statuses:
                return verdict
        return RIGHT

    def verdict_line(self) -> str:
        """``verdict: ...``, with the first line that decided it when it is not RIGHT."""
        verdict = self.verdict
        status = {NOT_WRITTEN: "TODO", TIMED_OUT: "TIMEOUT", WRONG: "WRONG", EDGES: "EDGE"}.get(verdict)
        first = next((line for line in self.lines if line.status == status), None)
        return f"verdict: {verdict}" + (f" ({first.check})" if first is not None else "")

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return "\n".join([*(line.text() for line in self.lines), self.verdict_line()])

    def __repr__(self) -> str:
        counts = {s: sum(line.status == s for line in self.lines) for s in COLOURS}
        summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        return f"<CheckResult {self.name}: {'passed' if self.passed else 'not passed'} ({summary})>"

    def _repr_html_(self) -> str:
        rows = []
        for line in self.lines:
            hint = f"<br><i>hint: {html.escape(line.hint)}</i>" if line.hint else ""
            rows.append(
                f'<tr><td style="background:{COLOURS[line.status]};color:white;font-weight:bold;'
                f'text-align:center;padding:2px 8px">{line.status}</td>'
                f'<td style="padding:2px 8px;text-align:left">{html.escape(line.check)}</td>'
                f'<td style="padding:2px 8px;text-align:left;font-family:monospace">'
                f"{html.escape(line.message)}{hint}</td></tr>"
            )
        summary = " (all checks passed)" if self.passed else ""
        colour = COLOURS[
            {RIGHT: "OK", EDGES: "EDGE", WRONG: "WRONG", TIMED_OUT: "TIMEOUT"}.get(self.verdict, "TODO")
        ]
        return (
            f'<table style="border-collapse:collapse"><caption style="text-align:left">'
            f'<b>{html.escape(self.name)}</b>: <b style="color:{colour}">{html.escape(self.verdict)}</b>'
            f"{summary}</caption>{''.join(rows)}</table>"
        )

    def _ipython_display_(self) -> None:
        shell = jupyter_shell()
        if shell is None:  # pragma: no cover - only IPython calls this
            print(self)
            return
        if self._shown_in == shell.execution_count:
            return  # check() already showed it in this cell
        show(self, shell)


def jupyter_shell() -> Any:
    """The running Jupyter kernel's shell, or None (a terminal, or IPython's terminal)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return shell if shell is not None and getattr(shell, "kernel", None) is not None else None


def show(result: CheckResult, shell: Any) -> None:
    from IPython.display import display

    result._shown_in = shell.execution_count
    display({"text/plain": str(result), "text/html": result._repr_html_()}, raw=True)  # type: ignore[no-untyped-call]
