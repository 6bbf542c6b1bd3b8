"""What ``check`` found: a ``CheckLine`` per check and the ``CheckResult`` that sums them up,
printed in a terminal and shown as a coloured table in Jupyter."""

from __future__ import annotations

import html
import os
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

    def verdict_status(self) -> str:
        """The line status that decided the verdict (its colour in the table)."""
        return {NOT_WRITTEN: "TODO", TIMED_OUT: "TIMEOUT", WRONG: "WRONG", EDGES: "EDGE"}.get(
            self.verdict, "OK"
        )

    def verdict_line(self) -> str:
        """``verdict: ...``, with the first line that decided it when it is not RIGHT."""
        status = self.verdict_status()
        first = next((line for line in self.lines if line.status == status), None)
        decided = first is not None and status != "OK"
        return f"verdict: {self.verdict}" + (f" ({first.check})" if decided and first else "")

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
        colour = COLOURS[self.verdict_status()]
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


def report(result: CheckResult) -> None:
    """Show the result: a table in Jupyter, coloured lines in a terminal (unless NO_COLOR)."""
    shell = jupyter_shell()
    if shell is not None:
        show(result, shell)
        return
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    print("\n".join([*(line.text(colour) for line in result.lines), result.verdict_line()]))


class Progress:
    """A result shown as its lines are decided: each printed at once in a terminal, a table
    updated in place in Jupyter; ``done()`` adds the verdict.  ``quiet``: nothing shown."""

    def __init__(self, result: CheckResult, quiet: bool = False) -> None:
        self.result, self.quiet = result, quiet
        self.shell = None if quiet else jupyter_shell()
        self.colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        self.handle: Any = None

    def add(self, line: CheckLine) -> None:
        self.result.lines.append(line)
        self.show(line)

    def show(self, line: CheckLine) -> None:
        """Show one more line (already in the result's lines)."""
        if self.quiet:
            return
        if self.shell is None:
            print(line.text(self.colour), flush=True)
        else:
            self.table()

    def done(self) -> None:
        if self.quiet:
            return
        if self.shell is None:
            print(self.result.verdict_line(), flush=True)
            return
        self.table()
        self.result._shown_in = self.shell.execution_count

    def table(self) -> None:
        from IPython.display import display

        data = {"text/plain": str(self.result), "text/html": self.result._repr_html_()}
        if self.handle is None:
            self.handle = display(data, raw=True, display_id=True)  # type: ignore[no-untyped-call]
        else:
            self.handle.update(data, raw=True)


def show(result: CheckResult, shell: Any) -> None:
    from IPython.display import display

    result._shown_in = shell.execution_count
    display({"text/plain": str(result), "text/html": result._repr_html_()}, raw=True)  # type: ignore[no-untyped-call]


RIGHT_SO_FAR = "RIGHT SO FAR"
# A TODO line of check_engine whose forward was checked and right (its gradients await backward()):
# progress, so a class with nothing else written yet is RIGHT SO FAR, not NOT WRITTEN YET.
FORWARD_RIGHT = "forward right; gradients not checked until backward() is written"
# A line's status in words, for one op or one part of check_engine's table.
IN_WORDS = {"OK": RIGHT, "WRONG": WRONG, "TODO": NOT_WRITTEN, "TIMEOUT": TIMED_OUT, "SKIP": "NOT CHECKED"}


@dataclass
class EngineResult(CheckResult):
    """What ``check_engine`` found: a line per op, per part of ``backward()`` and per model.

    Its verdict: WRONG as soon as one line is, then TIMED OUT; NOT WRITTEN YET while nothing is
    right; RIGHT SO FAR while something is right and something else not written yet (``missing``
    names what); RIGHT when every line is.
    """

    missing: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        statuses = {line.status for line in self.lines}
        if "WRONG" in statuses:
            return WRONG
        if "TIMEOUT" in statuses:
            return TIMED_OUT
        if "TODO" in statuses:
            progress = "OK" in statuses or any(line.message == FORWARD_RIGHT for line in self.lines)
            return RIGHT_SO_FAR if progress else NOT_WRITTEN
        return RIGHT

    def verdict_status(self) -> str:
        return {WRONG: "WRONG", TIMED_OUT: "TIMEOUT", NOT_WRITTEN: "TODO", RIGHT_SO_FAR: "TODO"}.get(
            self.verdict, "OK"
        )

    def verdict_line(self) -> str:
        if self.verdict == RIGHT_SO_FAR and self.missing:
            return f"verdict: {RIGHT_SO_FAR} (not written yet: {', '.join(self.missing)})"
        return super().verdict_line()

    def verdict_of(self, check: str) -> str:
        """One line's status in words: ``result.verdict_of("tanh")`` is RIGHT, WRONG, NOT WRITTEN
        YET, TIMED OUT or NOT CHECKED; KeyError for a line the table does not have."""
        for line in self.lines:
            if line.check == check:
                return IN_WORDS[line.status]
        raise KeyError(f"no line {check!r}; the lines are {[line.check for line in self.lines]}")

    def __repr__(self) -> str:
        return f"<EngineResult {self.name}: {self.verdict}>"
