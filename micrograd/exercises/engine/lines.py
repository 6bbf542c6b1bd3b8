"""The lines of ``check_engine``'s table, decided in the grader's own process from the raw answers
of the learner's class (``answers``) and the references (``refs``): an op, a part of
``backward()``'s structure (seed, accumulation, topological order, zeroing), a lecture
expression, the MLP step and microgpt.  Each returns its ``CheckLine`` (or raises what
``evaluate.failed`` raises: the caller's TODO, TIMEOUT or WRONG line)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import formulas
from ..result import FORWARD_RIGHT, CheckLine
from . import refs
from .cases import (
    ACCUMULATION,
    BINARY,
    METHOD_OF,
    OP_CASES,
    RULES,
    TOPOLOGICAL,
    UNARY_METHODS,
    ZEROING,
    Expr,
    needs,
)
from .evaluate import Mismatch, NotWrittenYetError, RaisedError, close, failed, mismatch, number
from .models import GPT_OPS, GPT_WEIGHTS, MLP_OPS, MLP_PARAMS, MLP_SIZES, NAME

NOT_YET = "not written yet: "
# a method of Value -> the op (the line) it computes
OP_OF = {method: op for op, (_, plain, reflected) in BINARY.items() for method in (plain, reflected)}
OP_OF.update({"__neg__": "-", **{name: name for name in UNARY_METHODS}})
BAD = ("WRONG", "TIMEOUT")  # an op line in these states: what uses the op is not checked


@dataclass
class Seen:
    """What the grader knows of the learner's class: its methods, the code of their inner
    functions (``__pow__'s _backward``), and the lines' statuses so far."""

    name: str
    has: set[str]
    code: dict[str, str] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)


def todo(check: str, exc: NotWrittenYetError) -> CheckLine:
    if exc.forward_right:
        return CheckLine("TODO", check, FORWARD_RIGHT)
    return CheckLine("TODO", check, f"{NOT_YET}{exc.method}")


def stopped(answer: dict[str, Any]) -> None:
    """Raise what stopped the learner's code in a job that is not an expression."""
    failed(answer)
    if "raised" in answer:
        raise RaisedError(answer["raised"])


def op_line(seen: Seen, op: str, answers: list[dict[str, Any]]) -> CheckLine:
    """One op on its cases: alone, fed into itself, with plain numbers on either side, at its kinks."""
    pending: NotWrittenYetError | None = None
    for i, (case, answer) in enumerate(zip(OP_CASES[op], answers)):
        try:
            m = mismatch(case, answer)
        except NotWrittenYetError as exc:
            if not exc.forward_right:
                return CheckLine("TODO", op, f"{NOT_YET}{exc.method} ({case.title} needs it)")
            pending, m = exc, None  # the forward is checked on every case all the same
        if m is not None:
            return wrong_op(seen, op, case, m, alone_right=i > 0 and case.chain)
    if pending is not None:
        return todo(op, pending)
    return CheckLine("OK", op, "right on " + ", ".join(case.title for case in OP_CASES[op]))


def op_of(label: str) -> str | None:
    """The op of a learner's method or of a function inside one (``__pow__'s _backward``: ``**``)."""
    return OP_OF.get(label.split("'s ")[0])


def culprit(seen: Seen, m: Mismatch) -> tuple[str, list[str]] | None:
    """The learner's code to look at for ``m``: of the op methods (for a value) or of the functions
    inside them (for a gradient) that ran for this case, the first not already right on its own
    line; with all of them.  None when nothing was seen running."""
    inner = m.kind == "grad"
    ran = [label for label in m.ran if ("'s " in label) == inner and op_of(label) is not None]
    doubtful = [label for label in ran if seen.status.get(op_of(label) or "") != "OK"]
    return ((doubtful or ran)[0], ran) if ran else None


def look_at(seen: Seen, case: Expr, m: Mismatch, method: str) -> str:
    """``look at __pow__'s _backward (`...`)``: the method the learner's engine ran, with its code."""
    found = culprit(seen, m)
    if found is None:
        return f"look at {method}" + ("'s _backward" if m.kind == "grad" else "")
    label, ran = found
    code = seen.code.get(label)
    where = f"look at {label}" + (f" (`{code}`)" if code and len(code) <= 200 else "")
    if label.split("'s ")[0] != method:
        where = f"your {case.title} ran {', '.join(ran)}: {where}"
    return where


def wrong_op(seen: Seen, op: str, case: Expr, m: Mismatch, alone_right: bool) -> CheckLine:
    method = needs(case.lines[0])[0]
    found = culprit(seen, m)
    rules = RULES[op_of(found[0]) or op] if found else RULES[op]
    if m.kind == "forward":
        hint = f"{look_at(seen, case, m, method)}: {rules[0]}"
    elif m.kind == "grad":
        hint = f"{look_at(seen, case, m, method)}: {rules[1]}, each times out.grad"
        if alone_right:
            hint += " (right alone, wrong when fed into itself: multiply by out.grad, the chain rule)"
    elif m.kind == "not a Value":
        hint = f"{method} must return the new Value (out = Value(...), its _backward, then return out)"
    else:
        hint = f"look at {method}: at these ordinary points nothing should raise"
    return CheckLine("WRONG", op, f"{case.title} at {case.at}: {m}", hint)


def seed_line(seen: Seen, answer: dict[str, Any]) -> CheckLine:
    check = "backward: seed"
    stopped(answer)
    if close(answer["grad"], 1.0):
        return CheckLine("OK", check, "x.backward() on a lone Value sets x.grad = 1")
    return CheckLine(
        "WRONG",
        check,
        f"after x.backward() on a lone Value x, x.grad is {number(answer['grad'])}, should be 1",
        "backward() starts the chain rule at the output: self.grad = 1, then every node's _backward",
    )


def accumulation_line(seen: Seen, answers: list[dict[str, Any]]) -> CheckLine:
    check = "backward: accumulation (+=)"
    ops = [op for op in ("+", "*") if seen.status.get(op) not in BAD and METHOD_OF[op] in seen.has]
    if not ops:
        return CheckLine("SKIP", check, "not checked until + or * is right")
    for op, answer in zip(("+", "*"), answers):
        expr = ACCUMULATION[op]
        m = mismatch(expr, answer) if op in ops else None
        if m is not None:
            return CheckLine(
                "WRONG",
                check,
                f"{expr.title} at {expr.at}: {m}",
                f"a is both self and other of one {op}: {METHOD_OF[op]}'s _backward must add each "
                "contribution (self.grad += ..., other.grad += ...); with = the second overwrites the first",
            )
    return CheckLine(
        "OK",
        check,
        "a node used twice adds up both contributions: " + ", ".join(ACCUMULATION[op].title for op in ops),
    )


def topological_line(seen: Seen, answer: dict[str, Any]) -> CheckLine:
    check = "backward: topological order"
    usable = all(seen.status.get(op) not in BAD and METHOD_OF[op] in seen.has for op in ("+", "*"))
    if not usable or seen.status.get("backward: accumulation (+=)") != "OK":
        return CheckLine("SKIP", check, "not checked until +, * and accumulation are right")
    m = mismatch(TOPOLOGICAL, answer)
    if m is None:
        return CheckLine("OK", check, f"{TOPOLOGICAL.title}: b's rule ran after both its users added in")
    return CheckLine(
        "WRONG",
        check,
        f"{TOPOLOGICAL.title} at {TOPOLOGICAL.at}: {m}",
        "b is used by bb = b * b and by c = b + bb: its _backward may run only once both have added into "
        "b.grad. backward() must sort the nodes topologically (build_topo) and call _backward in reverse, "
        "not recurse from the output",
    )


def zeroing_line(seen: Seen, answer: dict[str, Any]) -> CheckLine:
    check = "backward: zeroing"
    if seen.status.get("*") in BAD or "__mul__" not in seen.has:
        return CheckLine("SKIP", check, "not checked until * is right")
    stopped(answer)
    want = refs.zeroing_reference()
    twice = answer["twice"]
    if not all(close(g, 2 * w) for g, w in zip(twice, want)):
        if close(twice[0], answer["once"][0]):
            hint = "backward() zeroed the gradients itself: leave that to the training loop (p.grad = 0)"
        else:
            hint = "backward() must set the output's grad to 1 (not add 1) and add into the others"
        got = f"a.grad is {number(twice[0])}, b.grad {number(twice[1])}, "
        got += f"should be {2 * want[0]:g} and {2 * want[1]:g}"
        return CheckLine("WRONG", check, f"{ZEROING.title}: {got}, as in micrograd 0.1.0 and PyTorch", hint)
    if not all(close(g, w) for g, w in zip(answer["fresh"], want)):
        return CheckLine(
            "WRONG",
            check,
            f"after a.grad = b.grad = 0, a new d = a * b gives a.grad {number(answer['fresh'][0])}, "
            f"should be {want[0]:g}",
            "something outside the nodes remembers the last backward() (a visited set kept between calls?)",
        )
    return CheckLine(
        "OK",
        check,
        "a second backward() adds the gradients again (a.grad -3, then -6), "
        "as in micrograd 0.1.0 and PyTorch; after p.grad = 0 a new graph gives them once",
    )


def names_in(formula: str) -> list[str]:
    return formulas.names(formulas.parse(formula))


def users_hint(expr: Expr, node: str) -> str:
    """Where a node's wrong gradient comes from: the rules of the nodes that use it."""
    users = [(name, f) for name, f in expr.formulas.items() if node in names_in(f)]
    if not users:
        return "the output: backward() must set its grad to 1"
    rules = "; ".join(f"{name} = {f} ({', '.join(needs(f))})" for name, f in users)
    hint = f"{node}.grad comes from the _backward of what uses it: {rules}"
    uses = sum(names_in(f).count(node) for _, f in users)
    if uses > 1:
        hint += f". {node} is used {uses} times: every contribution must be added (+=), and {node}'s own "
        hint += "rule may run only after all of them (topological order)"
    return hint


def lecture_line(seen: Seen, expr: Expr, answer: dict[str, Any]) -> CheckLine:
    check = f"lecture: {expr.title}"
    m = mismatch(expr, answer)
    if m is None:
        return CheckLine("OK", check, f"every node's value and gradient right at {expr.at}")
    formula = expr.formulas.get(m.node)
    node = f"{m.node} = {formula}" if formula else f"{m.node} (a leaf)"
    if m.kind == "forward" and formula:
        method = needs(formula)[0]
        hint = f"look at {method} in {node}: {RULES[op_of(method) or method][0]}"
    elif m.kind == "grad":
        hint = users_hint(expr, m.node)
    else:
        hint = "see the op's own line above"
    return CheckLine("WRONG", check, f"at node {node}: {m}", hint)


def uses_ok(seen: Seen, methods: list[str], check: str) -> CheckLine | None:
    """A TODO or SKIP line when the model needs a method that is missing or an op that is wrong."""
    missing = [m for m in methods if m not in seen.has]
    if missing:
        return CheckLine("TODO", check, f"{NOT_YET}{', '.join(missing)} (this model needs them)")
    bad = [op_of(m) or m for m in methods if seen.status.get(op_of(m) or m) in BAD]
    if bad:
        return CheckLine("SKIP", check, f"not checked until {', '.join(bad)} is right (see above)")
    return None


def mlp_line(seen: Seen, answer: dict[str, Any]) -> CheckLine:
    check = "MLP: training step"
    usable = [n for n in ("tanh", "relu") if n in seen.has and seen.status.get(n) not in BAD]
    blocked = uses_ok(seen, [*MLP_OPS, *(usable[:1] or ["tanh"])], check)
    if blocked is not None:
        return blocked
    run = answer["runs"].get(usable[0], {"broke": ["KeyError", f"no MLP run with {usable[0]}", ""]})
    stopped(run)
    want = refs.mlp_reference(usable[0])
    size = f"MLP {'-'.join(map(str, MLP_SIZES))} ({usable[0]}) on the lecture's 4 samples"
    if not close(run["loss"], want[0]):
        return CheckLine(
            "WRONG", check, f"{size}: the loss is {number(run['loss'])}, should be {number(want[0])}"
        )
    wrong = [(n, g, w) for n, g, w in zip(want[3], run["grads"], want[1]) if not close(g, w)]
    if wrong:
        n, g, w = wrong[0]
        message = (
            f"{size}: {n}.grad is {number(g)}, should be {number(w)} ({len(wrong)} of {MLP_PARAMS} differ)"
        )
        return CheckLine("WRONG", check, message, "the ops' lines and backward()'s above say which rule")
    if not close(run["after"], want[2]):
        return CheckLine(
            "WRONG", check, f"after one step the loss is {number(run['after'])}, should be {number(want[2])}"
        )
    return CheckLine(
        "OK",
        check,
        f"{size}: loss {want[0]:.4f}, {want[2]:.4f} after one step (lr 0.05); "
        f"all {MLP_PARAMS} gradients right",
    )


def microgpt_lines(seen: Seen, answer: dict[str, Any]) -> list[CheckLine]:
    blocked = uses_ok(seen, GPT_OPS, "microgpt")
    if blocked is not None:
        return [
            CheckLine(blocked.status, f"microgpt: {part}", blocked.message)
            for part in ("forward", "backward")
        ]
    stopped(answer)
    loss, grads, names = refs.gpt_reference()
    on = f"on {NAME!r} ({GPT_WEIGHTS} weights)"
    if not close(answer["loss"], loss):
        wrong = CheckLine(
            "WRONG", "microgpt: forward", f"the loss {on} is {number(answer['loss'])}, should be {loss:.6g}"
        )
        return [wrong, CheckLine("SKIP", "microgpt: backward", "not checked until the forward is right")]
    right = CheckLine("OK", "microgpt: forward", f"the loss {on} is {loss:.6g}, as ours")
    try:
        stopped(answer["back"])
    except NotWrittenYetError as exc:
        return [right, todo("microgpt: backward", exc)]
    wrong_grads = [(n, g, w) for n, g, w in zip(names, answer["back"]["grad"], grads) if not close(g, w)]
    if wrong_grads:
        n, g, w = wrong_grads[0]
        message = (
            f"{n}.grad is {number(g)}, should be {number(w)} ({len(wrong_grads)} of {GPT_WEIGHTS} differ)"
        )
        return [right, CheckLine("WRONG", "microgpt: backward", message, "the lines above say which rule")]
    return [right, CheckLine("OK", "microgpt: backward", f"all {GPT_WEIGHTS} gradients right")]
