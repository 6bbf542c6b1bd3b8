"""``check_engine`` split in two for a browser, where there is no fork: ``record`` runs the
learner's class in one place (the playground's learner worker) and gives its answers as JSON
texts; ``grade_recorded`` grades those texts somewhere else (the playground's grader worker,
where the learner's code never runs), with ``check_engine``'s own plan, references and lines.

The texts are read as the forked child's are: one JSON value each, checked for its shape
(``answers``); ``end`` says how the recording stopped: ``"ended"`` (the class answered every
case) or ``"late"`` (the page stopped it at its time limit: that case's line is TIMEOUT).

>>> from micrograd import Value
>>> texts = list(record(Value, jobs_of("+")))
>>> result = grade_recorded("Value", texts, only="+")
>>> result.verdict, result.verdict_of("+")
('RIGHT', 'RIGHT')
>>> grade_recorded("Value", texts[:3], only="+", end="late", seconds=10).lines[0].message
'ran longer than 10 s and was stopped'
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from ..channel import ENDED, LATE, MOST_LINE, MalformedError
from ..result import EngineResult, Progress
from .check import grade_answers, make_plan, missing_of, parse_only, prepare
from .child import Guard, Job, answers
from .run import Reader

__all__ = ["Recorded", "grade_recorded", "jobs_of", "record"]

ENDINGS = {"ended": ENDED, "late": LATE}
PAGE_TIMEOUT_HINT = (
    "an endless loop (backward()'s walk over the graph revisiting nodes?); the page stops an answer "
    "at its time limit: if your code is only slow, run the downloaded .py with check_engine(timeout=...)"
)
_loads, _type, _len = json.loads, type, len


def jobs_of(only: str | Sequence[str] | None = None) -> list[Job]:
    """The cases ``check_engine(only=only)`` runs, in its order (both sides make them alike)."""
    return [job for line in make_plan(parse_only(only)) for job in line.jobs]


def record(cls: type, jobs: list[Job]) -> Iterator[str]:
    """``cls``'s answers to ``jobs``, one JSON text each, as the forked child sends them (no time
    limit here: whoever runs this stops it from outside; ``builtins`` and ``math`` put back after
    each call of the learner's code)."""
    for message in answers(cls, jobs, None, Guard()):
        yield json.dumps(message)


class Recorded:
    """A ``Reader``'s source: the recorded texts in order, then ``end``."""

    def __init__(self, texts: Sequence[Any], end: str) -> None:
        self.texts, self.end = iter(list(texts)), ENDINGS[end]

    def next(self, until: float) -> Any:
        text = next(self.texts, None)
        if text is None:
            return self.end
        if _type(text) is not str or _len(text) > MOST_LINE:
            raise MalformedError("a message that is not a line of JSON")
        try:
            return _loads(text)
        except ValueError:
            raise MalformedError("a message that is not JSON") from None

    def close(self) -> None:
        self.texts = iter(())


def grade_recorded(
    name: str,
    texts: Sequence[Any],
    *,
    only: str | Sequence[str] | None = None,
    end: str = "ended",
    seconds: float | None = None,
) -> EngineResult:
    """The table ``check_engine(cls, only=only, quiet=True)`` gives, from ``record``'s texts of
    ``cls``; ``seconds``: the time limit the recording ran under (said in a TIMEOUT line).
    ``TypeError`` when the class makes no Values; the learner's own exception when their code
    broke (as ``check_engine`` raises them)."""
    if end not in ENDINGS:
        raise ValueError(f"grade_recorded: end must be 'ended' or 'late', got {end!r}")
    parts = parse_only(only)
    plan = make_plan(parts)
    prepare(plan)
    result = EngineResult(name, [])
    progress = Progress(result, quiet=True)
    jobs = [job for line in plan for job in line.jobs]
    with Reader(None, jobs, seconds, None, Recorded(texts, end)) as reader:
        grade_answers(reader, name, plan, parts, progress, seconds, None)
    # The page's time limit is not a ``timeout=`` the learner can pass: say what they can do there.
    for line in result.lines:
        if line.status == "TIMEOUT":
            line.hint = PAGE_TIMEOUT_HINT
    result.missing = missing_of(result.lines)
    progress.done()
    return result
