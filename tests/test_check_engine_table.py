"""check_engine's table of engines (issue 44): micrograd 0.1.0, this engine, the lecture's class, each
classic bug planted in it, a float32 engine and hostile engines, each with its verdict and the line
that decided it.  The same table is on docs/pages/build-your-own.md, made from a real run:
``python -m tests.test_check_engine_table`` writes it there, and a test checks it is what
check_engine returns now.

Also here: the grader cannot be fooled by what the learner's code patches or writes (the reference
is captured at import, the verdict decided in this process), and it shows its lines as it decides
them, within an overall time limit.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import micrograd
from benchmarks import install_reference
from micrograd.exercises import EngineResult, check_engine, isolation
from tests import engine_zoo
from tests.micrograd_reference import ensure_installed

DOCS = Path(__file__).resolve().parent.parent / "docs" / "pages" / "build-your-own.md"
START, END = "<!-- engines: python -m tests.test_check_engine_table -->", "<!-- /engines -->"
MICROGRAD_0_1_0 = "micrograd 0.1.0"
THIS_ENGINE = "micrograd-next's Value"
ROWS = [MICROGRAD_0_1_0, THIS_ENGINE, *engine_zoo.ENGINES]

# What each engine must get: its verdict and the line that decides it.
EXPECTED = {
    MICROGRAD_0_1_0: ("RIGHT SO FAR", "exp"),
    THIS_ENGINE: ("RIGHT", None),
    "the lecture's class": ("RIGHT SO FAR", "log"),
    "= for +=": ("WRONG", "backward: accumulation (+=)"),
    "no topological order": ("WRONG", "backward: topological order"),
    "tanh's 1 - t": ("WRONG", "tanh"),
    "relu'(0) = 1": ("WRONG", "relu"),
    "pow off by one": ("WRONG", "/"),
    "exp without the chain factor": ("WRONG", "exp"),
    "no zero_grad (the seed adds up)": ("WRONG", "backward: zeroing"),
    "float32": ("WRONG", "MLP: training step"),
    **{name: ("WRONG", "tanh") for name in engine_zoo.HOSTILE},
}


def micrograd_0_1_0() -> Any:
    """karpathy's micrograd 0.1.0 Value, from its fetched engine.py (skips without a package index)."""
    ensure_installed()
    source = "import math\n" + install_reference.upstream_file("engine").read_text()
    return engine_zoo.build(source, name="micrograd-0.1.0")


def engine(name: str) -> Any:
    if name == MICROGRAD_0_1_0:
        return micrograd_0_1_0()
    return micrograd.Value if name == THIS_ENGINE else engine_zoo.make(name)


def deciding_line(result: EngineResult) -> Any:
    """The first line with the status that decided the verdict (None for RIGHT)."""
    if result.verdict == "RIGHT":
        return None
    return next(line for line in result.lines if line.status == result.verdict_status())


def row(name: str, result: EngineResult) -> str:
    line = deciding_line(result)
    first = "every line OK" if line is None else f"{line.status} {line.check}: {line.message}"
    cells = [name, result.verdict, f"`{first}`"]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def table(results: dict[str, EngineResult]) -> str:
    lines = ["| engine | verdict | the line that decides it |", "|---|---|---|"]
    return "\n".join([*lines, *(row(name, result) for name, result in results.items())])


@pytest.fixture(scope="module")
def results() -> dict[str, EngineResult]:
    return {name: check_engine(engine(name), quiet=True) for name in ROWS if name != MICROGRAD_0_1_0}


@pytest.mark.parametrize("name", ROWS)
def test_each_engine_gets_its_verdict_on_the_line_of_its_bug(
    name: str, results: dict[str, EngineResult]
) -> None:
    result = results[name] if name in results else check_engine(engine(name), quiet=True)
    verdict, check = EXPECTED[name]
    line = deciding_line(result)
    assert (result.verdict, None if line is None else line.check) == (verdict, check), str(result)


def test_the_docs_table_is_what_check_engine_says_now(results: dict[str, EngineResult]) -> None:
    everything = {MICROGRAD_0_1_0: check_engine(micrograd_0_1_0(), quiet=True), **results}
    text = DOCS.read_text()
    assert START in text and END in text, f"{DOCS.name} has no engines table"
    shown = text.split(START)[1].split(END)[0].strip()
    assert shown == table({name: everything[name] for name in ROWS}), (
        "the table is out of date: python -m tests.test_check_engine_table"
    )


def test_a_hint_names_the_method_the_learners_engine_ran(results: dict[str, EngineResult]) -> None:
    line = deciding_line(results["pow off by one"])  # a / b is a * b**-1 in the lecture's class
    assert line.message == "a / b at a=2, b=-4: b.grad is 0.5, should be -0.125"
    assert line.hint.startswith(
        "your a / b ran __mul__'s _backward, __pow__'s _backward: look at __pow__'s _backward"
    )
    assert "`self.grad += other * self.data ** other * out.grad`" in line.hint  # the learner's own code
    assert "__truediv__" not in line.hint
    tanh = deciding_line(results["tanh's 1 - t"])
    assert tanh.hint.startswith("look at tanh's _backward (`self.grad += (1 - t) * out.grad`)")


def test_relu_at_its_kink_and_the_edges_of_pow_tanh_and_exp_are_checked(
    results: dict[str, EngineResult],
) -> None:
    relu = deciding_line(results["relu'(0) = 1"])
    assert relu.message == "relu(a = 0) at a=0: a.grad is 1, should be 0"
    ours = next(line for line in results[THIS_ENGINE].lines if line.check == "**")
    assert "a ** 0, a ** 1, a ** -2" in ours.message
    for op, case in (("tanh", "tanh(a) near -1"), ("exp", "exp(a) of a large a"), ("relu", "relu(a = 0)")):
        assert case in next(line.message for line in results[THIS_ENGINE].lines if line.check == op)


def test_a_patched_micrograd_value_does_not_become_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = engine_zoo.make("tanh's 1 - t").tanh  # the lecture's way: Value.tanh = f
    monkeypatch.setattr(micrograd.Value, "tanh", wrong)
    result = check_engine(micrograd.Value, only="tanh", quiet=True)
    assert result.verdict == "WRONG" and result.lines[-1].check == "tanh", str(result)

    class Patching(engine_zoo.make("tanh's 1 - t")):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            micrograd.Value.tanh = wrong  # the learner's class patching ours as well
            super().__init__(*args, **kwargs)

    assert check_engine(Patching, only="tanh", quiet=True).verdict == "WRONG"


# What a child does instead of answering, and what the grader says it did.
HOSTILE_CODE = {
    "exits without a word": "import os; os._exit(0)",
    "floods the pipe": "import gc, os\nfor o in gc.get_objects():\n    if type(o).__name__ == 'Sender':\n"
    "        os.write(o.fd, b'x' * (5 << 20))\nos._exit(0)",
    "sends garbage": "import gc, os\nfor o in gc.get_objects():\n    if type(o).__name__ == 'Sender':\n"
    "        os.write(o.fd, b'\\xff\\xfe not json\\n')\nos._exit(0)",
}
SAYS = {
    "exits without a word": "the process running it ended without an answer (os._exit? crashed?)",
    "floods the pipe": f"it sent an answer longer than {1 << 22} bytes",
    "sends garbage": "it sent an answer that is not JSON",
}


@pytest.mark.skipif(not isolation.available(), reason="the grader forks only on Linux")
@pytest.mark.parametrize("what", list(HOSTILE_CODE))
def test_a_child_that_dies_floods_or_sends_garbage_is_wrong_at_its_case(what: str) -> None:
    code = "\n".join("        " + line for line in HOSTILE_CODE[what].splitlines()) + "\n"
    cls = engine_zoo.build(engine_zoo.LECTURE, (engine_zoo.TANH, engine_zoo.TANH + code), name=what)
    started = time.monotonic()
    result = check_engine(cls, quiet=True)
    assert time.monotonic() - started < 30
    line = deciding_line(result)
    assert result.verdict == "WRONG" and line.check == "tanh", str(result)
    assert line.message.startswith(f"your engine stopped the grader at case tanh(a) (a=0.5): {SAYS[what]}")
    assert [line.status for line in result.lines[:-1]] == ["OK"] * 6  # + * - / ** exp, decided before


@pytest.mark.skipif(not isolation.available(), reason="the grader forks only on Linux")
def test_the_forged_answer_is_reported_as_what_it_is(results: dict[str, EngineResult]) -> None:
    line = results["hostile: writes a fake answer into the grader's pipe and exits"].lines[-1]
    assert line.status == "WRONG" and line.check == "tanh"
    case = "your engine stopped the grader at case tanh(a) (a=0.5)"
    assert line.message == f"{case}: it sent something other than this case's answer"


def test_without_fork_a_patched_isclose_still_cannot_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolation, "available", lambda: False)
    monkeypatch.setattr(math, "isclose", math.isclose)  # put back after the test: the class patches it
    result = check_engine(engine_zoo.make("hostile: math.isclose always True"), only="tanh", quiet=True)
    assert result.verdict == "WRONG" and result.lines[-1].message.startswith("tanh(a) at a=0.5: a.grad is 0")


class Clock:
    """stdout that notes when each line was written."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        self.lines += [(time.monotonic(), part) for part in text.splitlines() if part]
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def slow_class() -> Any:
    slow = "        import time\n        time.sleep(0.5)\n"
    return engine_zoo.build(engine_zoo.LECTURE, (engine_zoo.TANH, engine_zoo.TANH + slow), name="slow tanh")


def test_lines_are_shown_as_they_are_decided_and_the_total_limit_stops_a_slow_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(sys, "stdout", clock)
    started = time.monotonic()
    result = check_engine(slow_class(), total_timeout=1.2)
    took = time.monotonic() - started
    assert result.verdict == "TIMED OUT" and took < 5
    assert [line.status for line in result.lines[:6]] == ["OK"] * 6
    last = result.lines[-1]
    assert last.status == "TIMEOUT" and last.check == "tanh"
    assert last.message.startswith("check_engine ran longer than 1.2 s in all and was stopped here")
    assert "total_timeout=" in last.hint
    times = dict((text.split(":")[0], t) for t, text in clock.lines)
    assert times["OK    +"] - started < 0.9 * took  # printed long before the end, not all at once
    assert clock.lines[-1][1] == "verdict: TIMED OUT (tanh)"


def main() -> None:
    """Write the engines table into the docs page, from a run of check_engine now."""
    results = {name: check_engine(engine(name), quiet=True) for name in ROWS}
    text = DOCS.read_text()
    before, rest = text.split(START)
    after = rest.split(END)[1]
    DOCS.write_text(f"{before}{START}\n{table(results)}\n{END}{after}")
    print(table(results))


if __name__ == "__main__":
    main()


@pytest.mark.parametrize("name", ["the lecture's class", "pow off by one", "no topological order"])
def test_without_fork_the_lines_are_the_same(
    name: str, results: dict[str, EngineResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(isolation, "available", lambda: False)  # as in the browser's Python
    here = check_engine(engine_zoo.make(name), quiet=True)
    assert here.lines == results[name].lines
