"""The lines of ``check_engine``'s table, one function each: an op, a part of ``backward()``'s
structure (seed, accumulation, topological order, zeroing), a lecture expression, the MLP step
and microgpt.  Each returns its ``CheckLine`` or raises ``NotWrittenYetError`` (the caller's TODO line)."""

from __future__ import annotations

from typing import Any

from ..engine import Value
from . import engine_models as models
from . import formulas
from .engine_cases import ACCUMULATION, OP_CASES, RULES, TOPOLOGICAL, ZEROING, Expr, needs
from .engine_eval import Mismatch, NotWrittenYetError, close, compare, has, learner, number
from .result import FORWARD_RIGHT, CheckLine

NOT_YET = "not written yet: "
OP_OF = {
    "__add__": "+",
    "__mul__": "*",
    "__pow__": "**",
    "exp": "exp",
    "log": "log",
    "relu": "relu",
    "tanh": "tanh",
}
BAD = ("WRONG", "TIMEOUT")  # an op line in these states: what uses the op is not checked


def todo(check: str, exc: NotWrittenYetError) -> CheckLine:
    if exc.forward_right:
        return CheckLine("TODO", check, FORWARD_RIGHT)
    return CheckLine("TODO", check, f"{NOT_YET}{exc.method}")


def op_line(cls: type, op: str) -> CheckLine:
    """One op on its cases: alone, fed into itself, and with plain numbers on either side."""
    pending: NotWrittenYetError | None = None
    for i, case in enumerate(OP_CASES[op]):
        try:
            mismatch = compare(cls, case)
        except NotWrittenYetError as exc:
            if not exc.forward_right:
                return CheckLine("TODO", op, f"{NOT_YET}{exc.method} ({case.title} needs it)")
            pending, mismatch = exc, None  # the forward is checked on every case all the same
        if mismatch is not None:
            return wrong_op(op, case, mismatch, alone_right=i > 0 and case.chain)
    if pending is not None:
        return todo(op, pending)
    return CheckLine("OK", op, "right on " + ", ".join(case.title for case in OP_CASES[op]))


def wrong_op(op: str, case: Expr, m: Mismatch, alone_right: bool) -> CheckLine:
    method = needs(case.lines[0])[0]
    forward_rule, backward_rule = RULES[op]
    if m.kind == "forward":
        hint = f"look at {method}: {forward_rule}"
    elif m.kind == "grad":
        hint = f"look at {method}'s _backward: {backward_rule}, each times out.grad"
        if alone_right:
            hint += " (right alone, wrong when fed into itself: multiply by out.grad, the chain rule)"
    elif m.kind == "not a Value":
        hint = f"{method} must return the new Value (out = Value(...), its _backward, then return out)"
    else:
        hint = f"look at {method}: at these ordinary points nothing should raise"
    return CheckLine("WRONG", op, f"{case.title} at {case.at}: {m}", hint)


def seed_line(cls: type) -> CheckLine:
    check = "backward: seed"
    if not has(cls, "backward"):
        raise NotWrittenYetError("backward")
    x = cls(3.0)
    learner(x.backward, cls)
    if close(x.grad, 1.0):
        return CheckLine("OK", check, "x.backward() on a lone Value sets x.grad = 1")
    return CheckLine(
        "WRONG",
        check,
        f"after x.backward() on a lone Value x, x.grad is {number(x.grad)}, should be 1",
        "backward() starts the chain rule at the output: self.grad = 1, then every node's _backward",
    )


def accumulation_line(cls: type, status: dict[str, str]) -> CheckLine:
    check = "backward: accumulation (+=)"
    tried = [
        op for op in ("+", "*") if status.get(op) not in BAD and has(cls, needs(ACCUMULATION[op].lines[0])[0])
    ]
    if not tried:
        return CheckLine("SKIP", check, "not checked until + or * is right")
    for op in tried:
        expr = ACCUMULATION[op]
        m = compare(cls, expr)
        if m is not None:
            method = needs(expr.lines[0])[0]
            return CheckLine(
                "WRONG",
                check,
                f"{expr.title} at {expr.at}: {m}",
                f"a is both self and other of one {op}: {method}'s _backward must add each contribution "
                "(self.grad += ..., other.grad += ...); with = the second overwrites the first",
            )
    return CheckLine(
        "OK",
        check,
        "a node used twice adds up both contributions: " + ", ".join(ACCUMULATION[op].title for op in tried),
    )


def topological_line(cls: type, status: dict[str, str]) -> CheckLine:
    check = "backward: topological order"
    usable = all(status.get(op) not in BAD and has(cls, m) for op, m in (("+", "__add__"), ("*", "__mul__")))
    if not usable or status.get("backward: accumulation (+=)") != "OK":
        return CheckLine("SKIP", check, "not checked until +, * and accumulation are right")
    m = compare(cls, TOPOLOGICAL)
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


def zeroing_line(cls: type, status: dict[str, str]) -> CheckLine:
    check = "backward: zeroing"
    if status.get("*") in BAD or not has(cls, "__mul__"):
        return CheckLine("SKIP", check, "not checked until * is right")
    a, b = (cls(v) for v in ZEROING.leaves.values())
    c = learner(lambda: a * b, cls)
    learner(c.backward, cls)
    once = (a.grad, b.grad)
    learner(c.backward, cls)
    want = [2 * g for g in (-3.0, 2.0)]
    if not (close(a.grad, want[0]) and close(b.grad, want[1])):
        if close(a.grad, once[0]):
            hint = "backward() zeroed the gradients itself: leave that to the training loop (p.grad = 0)"
        else:
            hint = "backward() must set the output's grad to 1 (not add 1) and add into the others"
        got = f"a.grad is {number(a.grad)}, b.grad {number(b.grad)}, should be -6 and 4"
        return CheckLine("WRONG", check, f"{ZEROING.title}: {got}, as in micrograd 0.1.0 and PyTorch", hint)
    a.grad = b.grad = 0
    d = learner(lambda: a * b, cls)
    learner(d.backward, cls)
    if not (close(a.grad, -3.0) and close(b.grad, 2.0)):
        return CheckLine(
            "WRONG",
            check,
            f"after a.grad = b.grad = 0, a new d = a * b gives a.grad {number(a.grad)}, should be -3",
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


def lecture_line(cls: type, expr: Expr) -> CheckLine:
    check = f"lecture: {expr.title}"
    m = compare(cls, expr)
    if m is None:
        return CheckLine("OK", check, f"every node's value and gradient right at {expr.at}")
    formula = expr.formulas.get(m.node)
    node = f"{m.node} = {formula}" if formula else f"{m.node} (a leaf)"
    if m.kind == "forward" and formula:
        method = needs(formula)[0]
        hint = f"look at {method} in {node}: {RULES[OP_OF.get(method, method_op(method))][0]}"
    elif m.kind == "grad":
        hint = users_hint(expr, m.node)
    else:
        hint = "see the op's own line above"
    return CheckLine("WRONG", check, f"at node {node}: {m}", hint)


def method_op(method: str) -> str:
    for symbol, name in (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "truediv"), ("**", "pow")):
        if name in method:
            return symbol
    return "-" if method == "__neg__" else method


def uses_ok(cls: type, methods: list[str], status: dict[str, str], check: str) -> CheckLine | None:
    """A TODO or SKIP line when the model needs a method that is missing or an op that is wrong."""
    missing = [m for m in methods if not has(cls, m)]
    if missing:
        return CheckLine("TODO", check, f"{NOT_YET}{', '.join(missing)} (this model needs them)")
    bad = [OP_OF[m] for m in methods if status.get(OP_OF[m]) in BAD]
    if bad:
        return CheckLine("SKIP", check, f"not checked until {', '.join(bad)} is right (see above)")
    return None


def mlp_line(cls: type, status: dict[str, str]) -> CheckLine:
    check = "MLP: training step"
    usable = [n for n in ("tanh", "relu") if has(cls, n) and status.get(n) not in BAD]
    blocked = uses_ok(cls, [*models.MLP_OPS, *(usable[:1] or ["tanh"])], status, check)
    if blocked is not None:
        return blocked
    ours = models.mlp_step(Value, usable[0])
    loss, grads, after = learner(lambda: models.mlp_step(cls, usable[0]), cls)
    size = f"MLP 3-4-4-1 ({usable[0]}) on the lecture's 4 samples"
    if not close(loss, ours[0]):
        return CheckLine("WRONG", check, f"{size}: the loss is {number(loss)}, should be {number(ours[0])}")
    wrong = [(n, g, w) for (n, g), (_, w) in zip(grads, ours[1]) if not close(g, w)]
    if wrong:
        n, g, w = wrong[0]
        message = (
            f"{size}: {n}.grad is {number(g)}, should be {number(w)} ({len(wrong)} of {len(grads)} differ)"
        )
        return CheckLine("WRONG", check, message, "the ops' lines and backward()'s above say which rule")
    if not close(after, ours[2]):
        return CheckLine(
            "WRONG", check, f"after one step the loss is {number(after)}, should be {number(ours[2])}"
        )
    return CheckLine(
        "OK",
        check,
        f"{size}: loss {loss:.4f}, {after:.4f} after one step (lr 0.05); all {len(grads)} gradients right",
    )


def microgpt_lines(cls: type, status: dict[str, str]) -> list[CheckLine]:
    blocked = uses_ok(cls, models.GPT_OPS, status, "microgpt")
    if blocked is not None:
        return [
            CheckLine(blocked.status, f"microgpt: {part}", blocked.message)
            for part in ("forward", "backward")
        ]
    tokens = models.gpt_tokens()
    ours = models.gpt_weights(Value)
    want = models.gpt_loss(ours, tokens)
    want.backward()
    weights = models.gpt_weights(cls)
    loss: Any = learner(lambda: models.gpt_loss(weights, tokens), cls)
    on = f"on {models.NAME!r} (4192 weights)"
    if not close(loss.data, want.data):
        wrong = CheckLine(
            "WRONG", "microgpt: forward", f"the loss {on} is {number(loss.data)}, should be {want.data:.6g}"
        )
        return [wrong, CheckLine("SKIP", "microgpt: backward", "not checked until the forward is right")]
    right = CheckLine("OK", "microgpt: forward", f"the loss {on} is {loss.data:.6g}, as ours")
    try:
        learner(loss.backward, cls)
    except NotWrittenYetError as exc:
        return [right, todo("microgpt: backward", exc)]
    pairs = zip(models.gpt_grads(weights), models.gpt_grads(ours))
    wrong_grads = [(n, g, w) for (n, g), (_, w) in pairs if not close(g, w)]
    if wrong_grads:
        n, g, w = wrong_grads[0]
        message = f"{n}.grad is {number(g)}, should be {number(w)} ({len(wrong_grads)} of 4192 differ)"
        return [right, CheckLine("WRONG", "microgpt: backward", message, "the lines above say which rule")]
    return [right, CheckLine("OK", "microgpt: backward", "all 4192 gradients right")]
