"""micrograd.exercises.check_engine: karpathy's micrograd 0.1.0 is right in all it has, and each
classic bug planted in it is WRONG, on the line that names its rule.

micrograd 0.1.0's ``engine.py`` is fetched at test set-up (``benchmarks.install_reference``, as
tests/test_micrograd_upstream.py does; skipped with pip's reason without a package index), and
every planted bug is a text replacement made here, at test time, on the fetched file: nothing
upstream wrote is kept in this repository.
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from benchmarks import install_reference
from micrograd import Value
from micrograd.exercises import EngineResult, check_engine
from tests.micrograd_reference import ensure_installed

# What micrograd 0.1.0's Value has not: its engine has + - * / ** and relu, no exp, tanh or log.
MISSING_IN_0_1_0 = ["exp", "tanh", "log"]

# The lines of the table, in order (all parts).
LINES = [
    *["+", "*", "-", "/", "**", "exp", "tanh", "relu", "log"],
    "backward: seed",
    "backward: accumulation (+=)",
    "backward: topological order",
    "backward: zeroing",
    "lecture: L = (a*b + c) * f",
    "lecture: neuron o = tanh(x1*w1 + x2*w2 + b)",
    "lecture: neuron, tanh from exp: o = (e - 1) / (e + 1)",
    "lecture: a and b used twice: f = (a*b) * (a+b)",
    "lecture: micrograd's README expression",
    "MLP: training step",
    "microgpt: forward",
    "microgpt: backward",
]

# The planted bugs: (text in micrograd 0.1.0's engine.py, what replaces it).
OVERWRITE = (
    "self.grad += out.grad\n            other.grad += out.grad",
    "self.grad = out.grad\n            other.grad = out.grad",
)
WRONG_OPERAND = ("self.grad += other.data * out.grad", "self.grad += self.data * out.grad")
BACKWARD = "    def backward(self):\n"
# A tanh written here (0.1.0 has none), right or with the classic 1 - t for 1 - t**2.
TANH = """    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += DERIVATIVE * out.grad
        out._backward = _backward
        return out

"""
# A recursive backward, each node's rule run as soon as it is reached (no topological order).
RECURSIVE = """    def backward(self):
        self.grad = 1

        def recurse(v):
            v._backward()
            for child in v._prev:
                recurse(child)
        recurse(self)

    def __neg__(self):"""


@pytest.fixture(scope="module")
def source() -> str:
    ensure_installed()
    return install_reference.upstream_file("engine").read_text()


def planted(source: str, *replacements: tuple[str, str]) -> Any:
    """micrograd 0.1.0's Value with each (old, new) replacement made once in its source."""
    text = "import math\n" + source
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    namespace: dict[str, Any] = {"__name__": "micrograd_0_1_0_planted"}
    exec(compile(text, "micrograd-0.1.0-planted/engine.py", "exec"), namespace)
    return namespace["Value"]


def with_tanh(derivative: str) -> tuple[str, str]:
    return BACKWARD, TANH.replace("DERIVATIVE", derivative) + BACKWARD


def recursive_backward(source: str) -> tuple[str, str]:
    start = source.index(BACKWARD)
    end = source.index("    def __neg__(self):")
    return source[start:end] + "    def __neg__(self):", RECURSIVE


def first_wrong(result: EngineResult) -> Any:
    return next(line for line in result.lines if line.status == "WRONG")


def test_our_engine_is_right_everywhere() -> None:
    result = check_engine(Value, quiet=True)
    assert [line.check for line in result.lines] == LINES
    assert result.verdict == "RIGHT" and result.missing == [] and bool(result)


def test_micrograd_0_1_0_is_right_in_all_it_has(source: str) -> None:
    result = check_engine(planted(source), quiet=True)
    assert [line.check for line in result.lines] == LINES
    assert not [line for line in result.lines if line.status in ("WRONG", "TIMEOUT")], str(result)
    assert result.verdict == "RIGHT SO FAR" and result.missing == MISSING_IN_0_1_0
    assert str(result).splitlines()[-1] == "verdict: RIGHT SO FAR (not written yet: exp, tanh, log)"
    for op in ["+", "*", "-", "/", "**", "relu"]:
        assert result.verdict_of(op) == "RIGHT"
    for op in MISSING_IN_0_1_0:
        assert result.verdict_of(op) == "NOT WRITTEN YET"
    for part in ("seed", "accumulation (+=)", "topological order", "zeroing"):
        assert result.verdict_of(f"backward: {part}") == "RIGHT"  # zeroing as 0.1.0 does it
    assert result.verdict_of("MLP: training step") == "RIGHT"  # with relu, its only nonlinearity
    assert "(relu)" in next(line.message for line in result.lines if line.check == "MLP: training step")
    assert result.verdict_of("microgpt: forward") == "NOT WRITTEN YET"
    assert "exp, log" in next(line.message for line in result.lines if line.check == "microgpt: forward")


def test_the_overwrite_bug_in_add_is_wrong_at_accumulation(source: str) -> None:
    result = check_engine(planted(source, OVERWRITE), quiet=True)
    assert result.verdict == "WRONG"
    line = first_wrong(result)
    assert line.check == "backward: accumulation (+=)"
    assert line.message == "b = a + a at a=3: a.grad is 1, should be 2"
    assert "__add__'s _backward must add each contribution" in line.hint and "+=" in line.hint
    assert str(result).splitlines()[-1] == "verdict: WRONG (backward: accumulation (+=))"
    assert result.verdict_of("+") == "RIGHT"  # a + b alone is right: only reuse shows the bug
    # (The lecture's f = (a*b) * (a+b) may or may not show it: 0.1.0 keeps a node's operands in a set,
    # so which rule overwrites which depends on the run; b = a + a shows it every time.)


def test_tanh_with_1_minus_t_is_wrong_at_tanh(source: str) -> None:
    right = check_engine(planted(source, with_tanh("(1 - t**2)")), quiet=True)
    assert right.verdict_of("tanh") == "RIGHT" and right.verdict == "RIGHT SO FAR"
    result = check_engine(planted(source, with_tanh("(1 - t)")), quiet=True)
    line = first_wrong(result)
    assert line.check == "tanh"
    assert line.message == "tanh(a) at a=0.5: a.grad is 0.537883, should be 0.786448"
    assert "tanh's _backward: d tanh(a)/da = 1 - tanh(a)**2" in line.hint
    neuron = next(line for line in result.lines if line.check.startswith("lecture: neuron o = tanh"))
    assert neuron.status == "WRONG" and neuron.message.startswith("at node n = x1w1x2w2 + b: n.grad is")
    assert "o = tanh(n) (tanh)" in neuron.hint  # the rule of n's one user
    assert "(relu)" in next(line.message for line in result.lines if line.check == "MLP: training step")


def test_a_recursive_backward_is_wrong_at_topological_order(source: str) -> None:
    result = check_engine(planted(source, recursive_backward(source)), quiet=True)
    line = first_wrong(result)
    assert line.check == "backward: topological order"
    assert line.message.startswith("b = a * a; c = b + b * b at a=3: a.grad is ")
    assert line.message.endswith(", should be 114")
    assert "topologically" in line.hint and "not recurse" in line.hint
    assert result.verdict_of("backward: accumulation (+=)") == "RIGHT"


def test_mul_with_the_wrong_operand_is_wrong_at_mul(source: str) -> None:
    result = check_engine(planted(source, WRONG_OPERAND), quiet=True)
    line = first_wrong(result)
    assert line.check == "*"
    assert line.message == "a * b at a=2, b=-3: a.grad is 2, should be -3"
    assert "__mul__'s _backward: d(a * b)/da = b" in line.hint
    assert result.verdict_of("MLP: training step") == "NOT CHECKED"  # it needs *
    assert result.verdict_of("backward: topological order") == "NOT CHECKED"


class Stub:
    """What notebook 05 gives a learner: __init__ written, every op still to write."""

    def __init__(self, data: float, _children: tuple[Any, ...] = (), _op: str = "") -> None:
        self.data, self.grad, self._prev = data, 0.0, set(_children)

    def __add__(self, other: Any) -> Any:
        raise NotImplementedError

    def backward(self) -> None:
        raise NotImplementedError


def test_a_stub_is_not_written_yet_and_every_line_says_what_is_missing() -> None:
    result = check_engine(Stub, quiet=True)
    assert result.verdict == "NOT WRITTEN YET"
    assert {line.status for line in result.lines} == {"TODO", "SKIP"}
    assert result.missing[:2] == ["__add__", "__mul__"] and "backward" in result.missing
    assert "<b>Stub</b>" in result._repr_html_() and "NOT WRITTEN YET" in result._repr_html_()
    only = check_engine(Stub, only="+", quiet=True)
    assert [line.check for line in only.lines] == ["+"]


def test_the_forward_is_graded_before_backward_is_written() -> None:
    class AddOnly(Stub):
        def __add__(self, other: Any) -> Any:
            other = other if isinstance(other, AddOnly) else AddOnly(other)
            return AddOnly(self.data + other.data, (self, other))

        __radd__ = __add__

    result = check_engine(AddOnly, only="+", quiet=True)
    assert result.lines[0].message == "forward right; gradients not checked until backward() is written"
    assert result.missing == ["backward()"] and result.verdict == "RIGHT SO FAR"
    assert str(result).splitlines()[-1] == "verdict: RIGHT SO FAR (not written yet: backward())"


def test_bad_inputs_say_what_check_engine_wants() -> None:
    with pytest.raises(TypeError, match=r"wants your Value class itself.*got the int 42"):
        check_engine(42)
    with pytest.raises(TypeError, match=r"got a Value instance \(pass the class: check_engine\(Value\)\)"):
        check_engine(Value(2.0))
    with pytest.raises(ValueError, match="no part 'nope'; the parts are"):
        check_engine(Value, only="nope")
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        check_engine(Value, timeout=0)

    class NoData:
        def __init__(self, x: float) -> None:
            self.value = x

    with pytest.raises(TypeError, match=r"NoData\(2.0\) must keep 2.0 in .data"):
        check_engine(NoData)


def test_a_learner_bug_raises_with_their_traceback_and_an_endless_backward_is_stopped() -> None:
    class Broken(Stub):
        def __add__(self, other: Any) -> Any:
            return Broken(self.data + other.dta)  # a typo: AttributeError is the learner's to see

    with pytest.raises(AttributeError, match="dta") as caught:
        check_engine(Broken, quiet=True)
    assert "check_engine graded Broken" in "".join(getattr(caught.value, "__notes__", []))

    class Endless(Stub):
        def backward(self) -> None:
            while True:
                try:  # noqa: SIM105 - a learner's except that swallows the stop, as they write it
                    time.sleep(0.001)
                except BaseException:
                    pass

    started = time.monotonic()
    result = check_engine(Endless, only="backward", quiet=True, timeout=0.3)
    assert time.monotonic() - started < 5
    assert result.verdict == "TIMED OUT" and result.lines[0].status == "TIMEOUT"
    assert result.lines[0].check == "backward: seed"


def test_an_op_that_raises_or_returns_nothing_is_wrong_with_what_it_did() -> None:
    class Odd(Stub):
        def __add__(self, other: Any) -> Any:
            other = other if isinstance(other, Odd) else Odd(other)
            out = Odd(self.data + other.data, (self, other))  # noqa: F841 - the missing `return out`

        def exp(self) -> Any:
            return Odd(math.exp(10_000 * self.data))  # an overflow at an ordinary point

    result = check_engine(Odd, only=["+", "exp"], quiet=True)
    plus, exp = result.lines
    assert (
        plus.status == "WRONG"
        and plus.message == "a + b at a=2, b=-3: out = a + b is None, not a Value (a `return out` missing?)"
    )
    assert "__add__ must return the new Value" in plus.hint
    assert exp.status == "WRONG" and exp.message.startswith(
        "exp(a) at a=0.5: raised OverflowError: math range error"
    )
    assert "math.exp(10_000 * self.data)" in exp.message  # the learner's own line
