"""Exercises that check themselves: ``check`` tells a student whether the op they wrote is right.

``check(fn, like=...)`` runs a user ``Function`` (or a plain function of Values)
at ordinary points and at the edges of its domain (±0, ±1e-8, ±1, ±20,
±1000) and checks, one line each:

* forward: the result against the reference op named by ``like`` (or a callable);
* backward: the gradient against the reference's gradient and against central differences;
* chain rule: that backward multiplies by ``grad_output``;
* second order: when backward is written with differentiable math (``grad(create_graph=True)``
  works and its result depends on the inputs), the second derivatives too.

A failure names the input, both numbers and, where the mistake is a usual one,
a hint.  A right formula that only breaks at an edge (Python's ``math.exp``
raising ``OverflowError`` at x = -1000, ``1 / x`` raising ``ZeroDivisionError``
at 0, a value that differs only at ±0 or where an intermediate overflowed to
inf or nan) is not called wrong: its line says EDGE, with the point and the fix
(``micrograd.math``'s ``div``, ``exp``, ``log``, ... follow PyTorch's float
semantics instead of raising).  The result's ``verdict`` sums it up: RIGHT,
RIGHT, EXCEPT AT EDGES, WRONG, NOT WRITTEN YET or TIMED OUT.

Every call of the student's code runs with a time limit (``timeout`` seconds,
5 by default): a forward or backward that runs longer is stopped and named, with
the point.  ``check`` returns a ``CheckResult`` (truthy when every check passed)
and never raises on a wrong answer: only a broken call (a ``TypeError`` in the
student's code, say) raises, with the student's own traceback.  A forward or
backward that still raises ``NotImplementedError`` counts as not written yet.
In a terminal the lines are printed; in Jupyter the result shows as a small
coloured table.

>>> from micrograd import Function, math
>>> class MyTanh(Function):
...     @staticmethod
...     def forward(ctx, x):
...         return math.tanh(x)
...     @staticmethod
...     def backward(ctx, grad_output):
...         return grad_output * (1 - ctx.output**2)
>>> result = check(MyTanh, like="tanh", quiet=True)
>>> bool(result), [line.status for line in result.lines], result.verdict
(True, ['OK', 'OK', 'OK', 'OK'], 'RIGHT')
"""

from __future__ import annotations

import html
import inspect
import linecache
import math as _pymath
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Function, Value
from ..func.reverse import grad
from ..math.floats import sigmoid as _fsigmoid
from ..math.floats import tanh as _ftanh
from .time_limit import Interrupted, time_limit

__all__ = ["CheckLine", "CheckResult", "check"]

Point = tuple[float, ...]
Domain = Callable[..., bool]

# ---- the built-in ops a student's op can be checked against ------------------------------

_UNARY: dict[str, Callable[..., Value]] = {
    "exp": lambda x: x.exp(),
    "expm1": lambda x: x.expm1(),
    "log": lambda x: x.log(),
    "log1p": lambda x: x.log1p(),
    "sqrt": lambda x: x.sqrt(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(),
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "abs": lambda x: abs(x),
    "neg": lambda x: -x,
    "square": lambda x: x * x,
    "leaky_relu": lambda x, *p: x.leaky_relu(*p),
    "elu": lambda x, *p: x.elu(*p),
    "softplus": lambda x, *p: x.softplus(*p),
}
_BINARY: dict[str, Callable[..., Value]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}
_DOMAINS: dict[str, tuple[float, float]] = {
    "log": (0.0, _pymath.inf),
    "log1p": (-1.0, _pymath.inf),
    "sqrt": (0.0, _pymath.inf),
}
_DOMAIN_PREDICATES: dict[str, Domain] = {"pow": lambda a, b: a > 0.0}
_DERIVATIVES: dict[str, str] = {
    "exp": "d/dx exp(x) = exp(x)",
    "expm1": "d/dx (exp(x) - 1) = exp(x)",
    "log": "d/dx log(x) = 1/x",
    "log1p": "d/dx log(1 + x) = 1/(1 + x)",
    "sqrt": "d/dx sqrt(x) = 1/(2 sqrt(x))",
    "tanh": "d/dx tanh(x) = 1 - tanh(x)**2",
    "sigmoid": "d/dx sigmoid(x) = sigmoid(x) * (1 - sigmoid(x))",
    "relu": "d/dx relu(x) = 1 for x > 0, else 0 (0 at x = 0, as PyTorch)",
    "sin": "d/dx sin(x) = cos(x)",
    "cos": "d/dx cos(x) = -sin(x)",
    "abs": "d/dx |x| = sign(x) (0 at x = 0)",
    "neg": "d/dx (-x) = -1",
    "square": "d/dx x*x = 2x",
    "leaky_relu": "d/dx leaky_relu(x, slope) = 1 for x > 0, else slope",
    "elu": "d/dx elu(x, alpha) = 1 for x > 0, else alpha * exp(x)",
    "softplus": "d/dx softplus(x) = sigmoid(beta x)",
    "add": "d/da (a + b) = 1, d/db (a + b) = 1",
    "sub": "d/da (a - b) = 1, d/db (a - b) = -1",
    "mul": "d/da (a * b) = b, d/db (a * b) = a",
    "div": "d/da (a / b) = 1/b, d/db (a / b) = -a/b**2",
    "pow": "d/da a**b = b * a**(b-1), d/db a**b = a**b * log(a)",
}


def _exp(x: float) -> float:
    return _pymath.inf if x > 709.0 else _pymath.exp(x)


# The usual wrong derivatives, per op: (input i, (what the student returned, it as a function of the point)).
_Mistake = tuple[str, Callable[..., float]]
_MISTAKES: dict[str, list[tuple[int, _Mistake]]] = {
    "tanh": [
        (0, ("grad_output * tanh(x)", lambda x: _ftanh(x))),
        (0, ("grad_output * (1 - tanh(x))", lambda x: 1 - _ftanh(x))),
        (0, ("grad_output * (1 + tanh(x)**2)", lambda x: 1 + _ftanh(x) ** 2)),
        (0, ("grad_output * (1 - x**2), with the input where tanh(x) belongs", lambda x: 1 - x * x)),
    ],
    "exp": [
        (0, ("grad_output * x * exp(x - 1), the power rule", lambda x: x * _exp(x - 1))),
        (0, ("grad_output * x", lambda x: x)),
        (0, ("grad_output * x * exp(x)", lambda x: x * _exp(x))),
    ],
    "sigmoid": [
        (0, ("grad_output * sigmoid(x)", lambda x: _fsigmoid(x))),
        (0, ("grad_output * (1 - sigmoid(x))", lambda x: 1 - _fsigmoid(x))),
        (0, ("grad_output * x * (1 - x), with the input where sigmoid(x) belongs", lambda x: x * (1 - x))),
        (0, ("grad_output * sigmoid(x) * (1 + sigmoid(x))", lambda x: _fsigmoid(x) * (1 + _fsigmoid(x)))),
    ],
    "relu": [
        (0, ("grad_output * x, the input instead of 0 or 1", lambda x: x)),
        (0, ("1 at x = 0; relu'(0) is 0 here and in PyTorch", lambda x: 1.0 if x >= 0 else 0.0)),
    ],
    "leaky_relu": [
        (0, ("0 for x < 0, forgetting the slope", lambda x, s=0.01: 1.0 if x > 0 else 0.0)),
        (0, ("grad_output * x * slope, the result instead of the derivative", lambda x, s=0.01: x * s)),
    ],
    "log": [
        (0, ("grad_output * log(x)", lambda x: _pymath.log(x) if x > 0 else _pymath.nan)),
        (0, ("grad_output * -1/x", lambda x: -1 / x if x else -_pymath.inf)),
    ],
    "sin": [(0, ("grad_output * -cos(x)", lambda x: -_pymath.cos(x)))],
    "cos": [(0, ("grad_output * sin(x), without the minus sign", lambda x: _pymath.sin(x)))],
    "mul": [
        (0, ("a for d/da: each input's gradient is the OTHER input", lambda a, b: a)),
        (1, ("b for d/db: each input's gradient is the OTHER input", lambda a, b: b)),
    ],
    "div": [
        (1, ("a/b**2 for d/db, missing the minus sign", lambda a, b: a / (b * b) if b else _pymath.nan)),
        (1, ("-1/b**2 for d/db, without a", lambda a, b: -1 / (b * b) if b else _pymath.nan)),
        (0, ("b for d/da instead of 1/b", lambda a, b: b)),
    ],
    "sub": [(1, ("1 for d/db; subtracting b flips its sign", lambda a, b: 1.0))],
}

# ---- the result --------------------------------------------------------------------------

_COLOURS = {
    "OK": "#1a7f37",
    "EDGE": "#bc4c00",
    "WRONG": "#cf222e",
    "SKIP": "#6e7781",
    "TODO": "#9a6700",
    "TIMEOUT": "#8250df",
}
_ANSI = {
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
            status = f"{_ANSI[self.status]}{status}\033[0m"
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
        counts = {s: sum(line.status == s for line in self.lines) for s in _COLOURS}
        summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        return f"<CheckResult {self.name}: {'passed' if self.passed else 'not passed'} ({summary})>"

    def _repr_html_(self) -> str:
        rows = []
        for line in self.lines:
            hint = f"<br><i>hint: {html.escape(line.hint)}</i>" if line.hint else ""
            rows.append(
                f'<tr><td style="background:{_COLOURS[line.status]};color:white;font-weight:bold;'
                f'text-align:center;padding:2px 8px">{line.status}</td>'
                f'<td style="padding:2px 8px;text-align:left">{html.escape(line.check)}</td>'
                f'<td style="padding:2px 8px;text-align:left;font-family:monospace">'
                f"{html.escape(line.message)}{hint}</td></tr>"
            )
        summary = " (all checks passed)" if self.passed else ""
        colour = _COLOURS[
            {RIGHT: "OK", EDGES: "EDGE", WRONG: "WRONG", TIMED_OUT: "TIMEOUT"}.get(self.verdict, "TODO")
        ]
        return (
            f'<table style="border-collapse:collapse"><caption style="text-align:left">'
            f'<b>{html.escape(self.name)}</b>: <b style="color:{colour}">{html.escape(self.verdict)}</b>'
            f"{summary}</caption>{''.join(rows)}</table>"
        )

    def _ipython_display_(self) -> None:
        shell = _kernel()
        if shell is None:  # pragma: no cover - only IPython calls this
            print(self)
            return
        if self._shown_in == shell.execution_count:
            return  # check() already showed it in this cell
        _show(self, shell)


def _kernel() -> Any:
    """The running Jupyter kernel's shell, or None (a terminal, or IPython's terminal)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return shell if shell is not None and getattr(shell, "kernel", None) is not None else None


def _show(result: CheckResult, shell: Any) -> None:
    from IPython.display import display

    result._shown_in = shell.execution_count
    display({"text/plain": str(result), "text/html": result._repr_html_()}, raw=True)  # type: ignore[no-untyped-call]


# ---- check -------------------------------------------------------------------------------


class _NotWrittenError(Exception):
    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class _TimedOut(BaseException):
    """A call of the student's code ran out of time: which one, and where."""

    def __init__(self, what: str, pt: Point, ps: tuple[float, ...], seconds: float) -> None:
        super().__init__(what)
        self.what, self.pt, self.ps, self.seconds = what, pt, ps, seconds


_EDGES = (0.0, -0.0, 1e-8, -1e-8, 1.0, -1.0, 20.0, -20.0, 1000.0, -1000.0)
_EDGES_BINARY = (0.0, 1e-8, -1.0, 1.0, 20.0, -1000.0, 1000.0)
_UPSTREAM = -2.5  # the grad_output of the chain-rule check


def check(
    fn: Any,
    like: str | Callable[..., Value] | None = None,
    domain: Any = None,
    *,
    params: Sequence[Any] = (),
    points: Sequence[Any] | None = None,
    quiet: bool = False,
    timeout: float | None = 5.0,
) -> CheckResult:
    """Check the op ``fn`` (a ``Function`` subclass, or a function of Values) against ``like``.

    ``like``: a built-in op's name (``"tanh"``, ``"exp"``, ``"sigmoid"``, ``"relu"``,
    ``"leaky_relu"``, ``"mul"``, ``"div"``, ... ; ``check.ops`` lists them), a function of
    Values, another ``Function``, or None (then forward is not compared, and backward only
    against central differences).  ``domain``: where the op is defined, as ``(low, high)``
    for every input (closed), one such pair per input, or a predicate of the inputs' numbers;
    the default is the named op's (``log``: ``(0, inf)``), else every real.
    ``params``: numbers passed after the inputs, to ``fn`` and to the reference alike
    (``params=(0.1,)`` for a slope), or a list of such tuples to try several.
    ``points``: your own points instead of the generated ones (numbers, or tuples for
    several inputs).  ``quiet``: print nothing.  ``timeout``: seconds each call of your
    forward or backward may take (None: no limit); a call that runs longer is stopped and
    reported as TIMEOUT with its point.

    >>> result = check(lambda x: x * x, like="square", quiet=True)
    >>> result.verdict
    'RIGHT'
    >>> import math
    >>> def my_exp(x):  # Python's math.exp raises OverflowError at x = 1000
    ...     out = Value(math.exp(x.data), (x,), "exp")
    ...     def _backward():
    ...         x.grad += out.data * out.grad
    ...     out._backward = _backward
    ...     return out
    >>> result = check(my_exp, like="exp", quiet=True)
    >>> result.verdict, result.lines[0].status
    ('RIGHT, EXCEPT AT EDGES', 'EDGE')
    """
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0.0 < timeout < _pymath.inf
    ):
        raise ValueError(f"check: timeout must be a positive number of seconds or None, got {timeout!r}")
    student = _caller(fn, "fn")
    name = getattr(fn, "name", "") or getattr(fn, "__name__", "") or type(fn).__name__
    param_sets = _param_sets(params)
    reference, like_name = _reference(like)
    arity, names = _arity(fn, like_name, points, len(param_sets[0]))
    if like_name in _BINARY and arity != 2:
        raise ValueError(f"check: like={like_name!r} is a binary op, but {name} takes {arity} input(s)")
    if like_name in _UNARY and arity != 1:
        raise ValueError(f"check: like={like_name!r} takes one input, but {name} takes {arity}")
    inside, bounds = _domain(domain, like_name, arity)
    pts = _points(points, arity, inside)
    result = CheckResult(name)
    limited = _Limited(student, None if timeout is None else float(timeout))
    try:
        _run_checks(result, limited, reference, like_name, pts, param_sets, names, inside, bounds)
    except _NotWrittenError as todo:
        result.lines.append(CheckLine("TODO", todo.where, f"{name}.{todo.where} is not written yet"))
    except _TimedOut as slow:
        who = f"your {slow.what}" if isinstance(fn, type) else f"your op's {slow.what}"
        result.lines.append(
            CheckLine(
                "TIMEOUT",
                slow.what,
                f"{who} ran longer than {slow.seconds:g} s at {_where(names, slow.pt, slow.ps)} "
                "and was stopped",
                "an endless loop (a while loop whose condition never turns False)? "
                "or pass a larger timeout=... if it is only slow",
            )
        )
    except Exception as exc:  # a broken call: the student's own exception, traceback and all
        if hasattr(exc, "add_note"):  # Python 3.11+
            exc.add_note(f"(raised while micrograd.exercises.check ran {name})")
        raise
    if not quiet:
        shell = _kernel()
        if shell is not None:
            _show(result, shell)
        else:
            colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
            print("\n".join([*(line.text(colour) for line in result.lines), result.verdict_line()]))
    return result


check.ops = sorted([*_UNARY, *_BINARY])  # type: ignore[attr-defined]


def _caller(fn: Any, what: str) -> Callable[..., Value]:
    if isinstance(fn, type) and issubclass(fn, Function):
        if fn is Function:
            raise TypeError(f"check: {what} must be a subclass of micrograd.Function, not Function itself")
        return fn.apply
    if isinstance(fn, type) or not callable(fn):
        raise TypeError(
            f"check: {what} must be a micrograd.Function subclass or a function of Values, "
            f"got {type(fn).__name__}: {fn!r}"
        )
    return fn  # type: ignore[no-any-return]


def _reference(like: Any) -> tuple[Callable[..., Value] | None, str]:
    if like is None:
        return None, ""
    if isinstance(like, str):
        ops = {**_UNARY, **_BINARY}
        if like not in ops:
            raise ValueError(f"check: unknown op like={like!r}; choose one of {', '.join(sorted(ops))}")
        return ops[like], like
    return _caller(like, "like"), ""


def _param_sets(params: Sequence[Any]) -> list[tuple[float, ...]]:
    if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
        raise TypeError(f"check: params must be a tuple of numbers (or a list of tuples), got {params!r}")
    items = list(params)
    sets = (
        [tuple(p) for p in items]
        if items and all(isinstance(p, (tuple, list)) for p in items)
        else [tuple(items)]
    )
    for s in sets:
        for p in s:
            if isinstance(p, bool) or not isinstance(p, (int, float)):
                raise TypeError(f"check: params must be numbers, got {type(p).__name__}: {p!r}")
        if len(s) != len(sets[0]):
            raise ValueError(f"check: every tuple of params must have the same length, got {params!r}")
    return sets


def _arity(fn: Any, like_name: str, points: Sequence[Any] | None, n_params: int) -> tuple[int, list[str]]:
    """How many Value inputs ``fn`` takes, and the names of its arguments (for messages)."""
    target = getattr(fn, "forward", fn) if isinstance(fn, type) else fn
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        sig = None
    names: list[str] = []
    variadic = sig is None
    if sig is not None:
        for p in sig.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
                names.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                variadic = True
        if isinstance(fn, type):
            names = names[1:]  # ctx
    if not variadic:
        arity = len(names) - n_params
        if arity < 1:
            raise ValueError(
                f"check: {getattr(fn, '__name__', fn)} takes {len(names)} argument(s) and params gives "
                f"{n_params}; it needs at least one input"
            )
        return arity, names
    if like_name:
        arity = 2 if like_name in _BINARY else 1
    elif points:
        first = points[0]
        arity = len(first) if isinstance(first, (tuple, list)) else 1
    else:
        raise ValueError("check: cannot tell how many inputs fn takes; pass like=... or points=[...]")
    if arity == 1:
        return arity, ["x"]
    return arity, ["a", "b"] if arity == 2 else [f"x{i}" for i in range(arity)]


def _domain(domain: Any, like_name: str, arity: int) -> tuple[Domain, set[float]]:
    """The domain's predicate, and its finite bounds (edge points: log's 0, log1p's -1)."""
    if domain is None:
        if like_name in _DOMAIN_PREDICATES:
            return _DOMAIN_PREDICATES[like_name], set()
        domain = _DOMAINS.get(like_name, (-_pymath.inf, _pymath.inf))
    if callable(domain):
        return domain, set()
    if not isinstance(domain, (tuple, list)) or (len(domain) != 2 and len(domain) != arity):
        raise ValueError(
            f"check: domain must be (low, high), one (low, high) per input, or a predicate; got {domain!r}"
        )
    pairs = list(domain) if all(isinstance(d, (tuple, list)) for d in domain) else [domain] * arity
    if len(pairs) != arity:
        raise ValueError(f"check: domain gives {len(pairs)} intervals for {arity} inputs: {domain!r}")
    bounds = []
    for pair in pairs:
        if len(pair) != 2 or not all(isinstance(b, (int, float)) for b in pair) or not pair[0] <= pair[1]:
            raise ValueError(
                f"check: each domain interval must be (low, high) with low <= high, got {pair!r}"
            )
        bounds.append((float(pair[0]), float(pair[1])))
    finite = {b for pair in bounds for b in pair if _pymath.isfinite(b)}
    return (lambda *xs: all(lo <= x <= hi for x, (lo, hi) in zip(xs, bounds))), finite


def _points(points: Sequence[Any] | None, arity: int, inside: Domain) -> list[tuple[Point, bool]]:
    """(point, is an edge point) pairs; an edge point is one of the domain's awkward places."""
    if points is not None:
        out = []
        for p in points:
            pt = tuple(float(v) for v in p) if isinstance(p, (tuple, list)) else (float(p),)
            if len(pt) != arity:
                raise ValueError(f"check: point {p!r} has {len(pt)} number(s), the op takes {arity}")
            out.append((pt, False))
        if not out:
            raise ValueError("check: points is empty")
        return out
    rng = random.Random(0)
    ordinary: list[Point] = []
    tries = 0
    while len(ordinary) < 24 and tries < 10000:
        tries += 1
        pt = tuple(round(rng.uniform(-3.0, 3.0), 3) for _ in range(arity))
        if _safe(inside, pt):
            ordinary.append(pt)
    tries = 0
    while len(ordinary) < 24 and tries < 10000:  # a domain away from [-3, 3]: look further out
        tries += 1
        pt = tuple(round(rng.uniform(-1000.0, 1000.0), 1) for _ in range(arity))
        if _safe(inside, pt):
            ordinary.append(pt)
    if not ordinary:
        raise ValueError("check: found no point inside the domain; pass points=[...]")
    edges = _EDGES if arity == 1 else _EDGES_BINARY
    edge_pts: list[Point] = [(e,) for e in edges] if arity == 1 else []
    if arity == 2:
        edge_pts = [(a, b) for a in edges for b in edges]
    elif arity > 2:
        edge_pts = [(e,) * arity for e in edges]
    return [(p, False) for p in ordinary] + [(p, True) for p in edge_pts if _safe(inside, p)]


def _safe(inside: Domain, pt: Point) -> bool:
    try:
        return bool(inside(*pt))
    except Exception as exc:
        raise ValueError(f"check: the domain predicate raised at {pt}: {exc!r}") from exc


# ---- running the op ---------------------------------------------------------------------


def _call(f: Callable[..., Value], pt: Point, ps: tuple[float, ...]) -> tuple[list[Value], Value]:
    xs = [Value(v) for v in pt]
    out = f(*xs, *ps)
    if not isinstance(out, Value):
        raise TypeError(f"check: the op must return a Value, got {type(out).__name__}: {out!r}")
    return xs, out


@dataclass
class _Raised:
    """The arithmetic error the student's code raised at a point (Python's float semantics, not
    PyTorch's): the exception's text and the student's own line that raised it."""

    error: str
    message: str
    line: str

    def __str__(self) -> str:
        return f"{self.error}: {self.message}"


def _arithmetic(exc: BaseException) -> bool:
    """Python's math raising where PyTorch gives inf or nan: 1/0, math.exp(1000), math.log(-1),
    int(inf).  Any other ValueError (a failed unpacking, say) is a bug in the code: it raises."""
    if isinstance(exc, ArithmeticError):
        return True
    text = str(exc).lower()
    return isinstance(exc, ValueError) and ("math domain error" in text or "nan" in text)


_PACKAGE = str(Path(__file__).resolve().parent) + os.sep  # frames in here are not the student's


def _raised(exc: BaseException) -> _Raised:
    """``exc`` with the innermost line of the student's code (outside micrograd) it passed through."""
    line = ""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not str(Path(code.co_filename).resolve()).startswith(_PACKAGE):
            line = linecache.getline(code.co_filename, tb.tb_lineno, tb.tb_frame.f_globals).strip() or line
        tb = tb.tb_next
    return _Raised(type(exc).__name__, str(exc), line)


def _student(
    f: Callable[..., Value], pt: Point, ps: tuple[float, ...], what: str
) -> tuple[list[Value], Value] | _Raised:
    """Run the student's op: its result, or the arithmetic error it raised at this point."""
    try:
        return _call(f, pt, ps)
    except NotImplementedError as exc:
        raise _NotWrittenError(_which(exc, what)) from None
    except (ArithmeticError, ValueError) as exc:
        if not _arithmetic(exc):
            raise
        return _raised(exc)


def _which(exc: BaseException, default: str) -> str:
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name in ("forward", "backward"):
            default = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    return default


def _grads(
    student: _Limited,
    xs: list[Value],
    out: Value,
    ps: tuple[float, ...] = (),
    upstream: float = 1.0,
    create_graph: bool = False,
) -> list[Any] | _Raised:
    try:
        gs = student.grad(out, xs, ps, grad_outputs=[upstream], create_graph=create_graph)
    except NotImplementedError as exc:
        raise _NotWrittenError(_which(exc, "backward")) from None
    except (ArithmeticError, ValueError) as exc:
        if not _arithmetic(exc):
            raise
        return _raised(exc)
    return [0.0 if g is None else g for g in gs]


# ---- the time limit ---------------------------------------------------------------------


class _Limited:
    """The student's op, each call of its forward and of its backward (``grad``) under the time
    limit; a call out of time is a ``_TimedOut`` naming the point."""

    def __init__(self, f: Callable[..., Value], seconds: float | None) -> None:
        self.f, self.seconds = f, seconds
        self.__name__ = getattr(f, "__name__", "the op")

    def __call__(self, *args: Any) -> Value:
        started = time.monotonic()
        try:
            with time_limit(self.seconds):
                return self.f(*args)
        except Interrupted as exc:
            raise self._timed_out(_which(exc, "forward"), args, started) from None

    def grad(self, out: Value, xs: list[Value], ps: tuple[float, ...] = (), **kwargs: Any) -> list[Any]:
        started = time.monotonic()
        try:
            with time_limit(self.seconds):
                return list(grad(out, xs, allow_unused=True, **kwargs))
        except Interrupted as exc:
            raise self._timed_out(_which(exc, "backward"), [*xs, *ps], started) from None

    def _timed_out(self, what: str, args: Sequence[Any], started: float) -> _TimedOut:
        pt = tuple(float(a.data) for a in args if isinstance(a, Value))
        ps = tuple(float(a) for a in args if not isinstance(a, Value))
        return _TimedOut(what, pt, ps, self.seconds or time.monotonic() - started)


def _close(a: float, b: float, rtol: float = 1e-6, atol: float = 1e-12) -> bool:
    if _pymath.isnan(a) or _pymath.isnan(b):
        return _pymath.isnan(a) and _pymath.isnan(b)
    if _pymath.isinf(a) or _pymath.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def _num(x: Any) -> str:
    if isinstance(x, _Raised):
        x = str(x)
    return repr(x) if isinstance(x, str) else f"{x:.10g}"


def _where(names: list[str], pt: Point, ps: tuple[float, ...]) -> str:
    labels = (
        names
        if len(names) == len(pt) + len(ps)
        else [f"x{i}" for i in range(len(pt))] + [f"p{i}" for i in range(len(ps))]
    )
    if len(pt) == 1 and not ps:
        labels = [names[0] if names else "x"]
    return ", ".join(f"{n} = {_num(v)}" for n, v in zip(labels, (*pt, *ps)))


def _central(
    f: Callable[..., Value], pt: Point, ps: tuple[float, ...], i: int, inside: Domain
) -> float | None:
    """d f / d input i by central differences, or None where they cannot be trusted (a kink, the
    domain's edge, an overflow)."""
    h = 1e-6 * max(abs(pt[i]), 1.0)

    def at(v: float) -> float:
        moved = list(pt)
        moved[i] = v
        return _call(f, tuple(moved), ps)[1].data

    for v in (pt[i] + h, pt[i] - h):
        if not _safe(inside, (*pt[:i], v, *pt[i + 1 :])):
            return None  # a step would leave the domain
    try:
        f0, fp, fm = at(pt[i]), at(pt[i] + h), at(pt[i] - h)
    except Exception:
        return None
    if not all(_pymath.isfinite(v) for v in (f0, fp, fm)):
        return None
    right, left, cd = (fp - f0) / h, (f0 - fm) / h, (fp - fm) / (2 * h)
    if abs(right - left) > 1e-2 * max(abs(right), abs(left), 1.0):
        return None  # a kink: the one-sided slopes disagree
    return cd


def _cd_tolerance(cd: float, scale: float, h: float) -> float:
    return 1e-5 + 1e-4 * abs(cd) + 8 * sys.float_info.epsilon * scale / h


# ---- the checks -------------------------------------------------------------------------


@dataclass
class _Diff:
    """Where the student's number differs from the expected one, and whether only as an edge
    case: a right formula can raise, or give inf or nan, or another number at ±0, at an edge."""

    message: str
    edge: bool
    pt: Point
    ps: tuple[float, ...]
    i: int
    mine: Any
    expected: Any
    out: float = _pymath.nan  # the op's result there, for the hint


def _edge_point(pt: Point, bounds: set[float]) -> bool:
    """±0, ±1e-8, beyond ±20 (exp overflows at 710, tanh(20) is 1.0), or the domain's bound."""
    return any(not _pymath.isfinite(c) or abs(c) <= 1e-6 or abs(c) >= 20.0 or c in bounds for c in pt)


def _is_edge(pt: Point, mine: Any, expected: Any, bounds: set[float]) -> bool:
    """A difference a right formula can make: at an edge point, raising (Python's math, where
    PyTorch gives inf or nan), or inf/nan where the other is not, or any number at ±0 (a kink's
    convention, as relu'(0)).  At an ordinary point every difference is a wrong formula."""
    if not _edge_point(pt, bounds):
        return False
    if isinstance(mine, _Raised):
        return True
    finite = isinstance(mine, (int, float)) and _pymath.isfinite(mine)
    if expected is None or not finite or not _pymath.isfinite(expected):
        return True
    return any(c == 0.0 for c in pt)


def _diff_line(
    check: str, diffs: list[_Diff], n_points: int, hint_of: Callable[[_Diff], str], like_name: str
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
        _edge_fix(first, like_name),
    )


def _edge_fix(d: _Diff, like_name: str) -> str:
    """What to change so that the edge point comes out as PyTorch's."""
    mine = d.mine
    if isinstance(mine, _Raised):
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
            f"yours is {_num(mine)}: an intermediate overflowed to inf (inf/inf and inf - inf are nan); "
            "write it with numbers that stay finite (ctx.output: sigmoid' = s * (1 - s)), or with "
            "micrograd.math.tanh and .sigmoid, which are stable everywhere"
        )
    if any(c == 0.0 for c in d.pt):
        for j, (text, usual) in _MISTAKES.get(like_name, []):
            if j == d.i and _close(mine, usual(*d.pt, *d.ps)):
                return f"you returned {text}"
        return (
            "at 0 the derivative of a kink is a convention: the reference (and PyTorch) takes the value "
            "expected here; use the same comparison (x > 0, say) as the reference"
        )
    return "micrograd.math's functions (div, exp, log, pow, ...) give PyTorch's inf and nan at the edges"


def _run_checks(
    result: CheckResult,
    student: _Limited,
    reference: Callable[..., Value] | None,
    like_name: str,
    pts: list[tuple[Point, bool]],
    param_sets: list[tuple[float, ...]],
    names: list[str],
    inside: Domain,
    bounds: set[float],
) -> None:
    ref_label = like_name or getattr(reference, "__name__", "the reference")
    cases = [(pt, ps, edge) for ps in param_sets for pt, edge in pts]
    n_edges = sum(edge for _, _, edge in cases)
    edge_note = f" (incl. {n_edges} edge points: ±0, ±1e-8, ±1, ±20, ±1000 where defined)" if n_edges else ""
    short_note = f" (incl. {n_edges} edge points)" if n_edges else ""
    derivative = _DERIVATIVES.get(like_name, "")

    # forward
    diffs: list[_Diff] = []
    skipped: set[int] = set()  # points whose forward is already reported
    runs: dict[int, tuple[list[Value], Value] | _Raised] = {}
    for k, (pt, ps, _edge) in enumerate(cases):
        runs[k] = _student(student, pt, ps, "forward")
        if reference is None:
            continue
        ref = _call(reference, pt, ps)[1].data
        got = runs[k]
        mine: Any = got if isinstance(got, _Raised) else got[1].data
        if isinstance(mine, _Raised) or not _close(mine, ref):
            msg = f"at {_where(names, pt, ps)}: yours {_num(mine)}, expected {_num(ref)}"
            diffs.append(_Diff(msg, _is_edge(pt, mine, ref, bounds), pt, ps, 0, mine, ref))
            skipped.add(k)
    if reference is None:
        result.lines.append(CheckLine("SKIP", "forward", "no reference to compare with (pass like=...)"))
    elif diffs:
        result.lines.append(_diff_line("forward", diffs, len(cases), _forward_hint, like_name))
    else:
        result.lines.append(
            CheckLine("OK", "forward", f"matches {ref_label} at {len(cases)} points{edge_note}")
        )
    forward_wrong = result.lines[-1].status == "WRONG"

    # backward, against the reference's gradient and central differences
    diffs = []
    n_cd = n_checked = 0
    for k, (pt, ps, _edge) in enumerate(cases):
        got = runs[k]
        if isinstance(got, _Raised) or k in skipped:
            continue  # already reported by the forward check
        n_checked += 1
        xs, out = got
        mine_all = _grads(student, xs, out, ps)
        ref_all: list[Any] | None = None
        if reference is not None:
            rx, rout = _call(reference, pt, ps)
            ref_all = list(grad(rout, rx, allow_unused=True))
            ref_all = [0.0 if g is None else g for g in ref_all]
        for i in range(len(pt)):
            mine = mine_all if isinstance(mine_all, _Raised) else mine_all[i]
            expected = None if ref_all is None else ref_all[i]
            cd = _central(student, pt, ps, i, inside)
            if cd is not None and expected is not None and not _close(cd, expected, 1e-3, 1e-5):
                cd = None  # the differences are not reliable here (rounding, a steep place)
            if cd is not None:
                n_cd += 1
            wrong = isinstance(mine, _Raised)
            if not wrong and expected is not None and not _close(mine, expected):
                wrong = True
            if not wrong and cd is not None:
                scale = max(abs(out.data), 1.0)
                wrong = not abs(mine - cd) <= _cd_tolerance(cd, scale, 1e-6 * max(abs(pt[i]), 1.0))
            if wrong:
                which = f"d/d{names[i]} " if len(pt) > 1 and i < len(names) else ""
                target = expected if expected is not None else cd
                msg = f"{which}at {_where(names, pt, ps)}: yours {_num(mine)}, expected {_num(target)}"
                if cd is not None and expected is not None:
                    msg += f" (central difference {_num(cd)})"
                edge = _is_edge(pt, mine, target, bounds)
                diffs.append(_Diff(msg, edge, pt, ps, i, mine, target, out.data))

    def backward_hint(d: _Diff) -> str:
        return _hint(like_name, d.i, d.pt, d.ps, d.mine, d.expected, d.out, derivative)

    if diffs:
        result.lines.append(
            _diff_line("backward", diffs, n_checked * len(cases[0][0]), backward_hint, like_name)
        )
    else:
        against = f"{ref_label}'s gradient and " if reference is not None else ""
        result.lines.append(
            CheckLine(
                "OK",
                "backward",
                f"matches {against}central differences at {n_checked} points{short_note}"
                f" ({n_cd} central differences)",
            )
        )
    backward_wrong = result.lines[-1].status == "WRONG"

    _chain_rule(result, student, cases, runs, names)
    if backward_wrong or forward_wrong:
        what = "backward" if backward_wrong else "forward"
        result.lines.append(CheckLine("SKIP", "second order", f"not checked until {what} is right"))
    else:
        _second_order(result, student, reference, cases, names, inside)


def _forward_hint(d: _Diff) -> str:
    if isinstance(d.mine, _Raised):
        return "Python's math raises where micrograd.math gives inf or nan (micrograd.math.exp(1000) is inf)"
    if isinstance(d.mine, float) and _pymath.isnan(d.mine):
        return (
            "an intermediate overflowed to inf (inf/inf and inf - inf are nan); "
            "micrograd.math.tanh and .sigmoid are stable everywhere"
        )
    return ""


def _hint(
    like_name: str, i: int, pt: Point, ps: tuple[float, ...], mine: Any, expected: Any, out: float, rule: str
) -> str:
    prefix = f"{rule}; " if rule else ""
    if isinstance(mine, _Raised):
        return prefix + "your backward raised; micrograd.math's functions give inf/nan instead of errors"
    for j, (text, wrong) in _MISTAKES.get(like_name, []):
        if j != i:
            continue
        try:
            value = wrong(*pt, *ps)
        except (ArithmeticError, ValueError, TypeError):
            continue
        if _close(mine, value, 1e-6, 1e-9) and not _close(value, expected, 1e-6, 1e-9):
            return f"{prefix}you returned {text}?"
    if expected is not None and mine == 0.0 and expected != 0.0:
        return prefix + (
            "yours is 0 here: a branch at the wrong point, or a backward that returns nothing "
            "(a function without return gives None)?"
        )
    if expected is not None and _close(mine, -expected) and expected != 0.0:
        return prefix + "the sign is flipped"
    if (
        _pymath.isfinite(out)
        and _close(mine, out)
        and not _close(out, expected if expected is not None else out + 1)
    ):
        return prefix + "you returned the op's result, not its derivative?"
    return rule


def _chain_rule(
    result: CheckResult,
    student: _Limited,
    cases: list[tuple[Point, tuple[float, ...], bool]],
    runs: dict[int, Any],
    names: list[str],
) -> None:
    for k, (pt, ps, _edge) in enumerate(cases[:6]):
        got = runs[k]
        if isinstance(got, _Raised):
            continue
        xs, out = got
        one = _grads(student, xs, out, ps)
        scaled = _grads(student, *_call(student, pt, ps), ps, upstream=_UPSTREAM)
        if isinstance(one, _Raised) or isinstance(scaled, _Raised):
            continue
        for i, (g1, g2) in enumerate(zip(one, scaled)):
            if not _close(g2, _UPSTREAM * g1):
                hint = (
                    "multiply by grad_output: backward returns d(root)/d(input) = "
                    "grad_output * d(result)/d(input) (the chain rule)"
                )
                which = f"d/d{names[i]} " if len(pt) > 1 and i < len(names) else ""
                result.lines.append(
                    CheckLine(
                        "WRONG",
                        "chain rule",
                        f"{which}at {_where(names, pt, ps)} with grad_output = {_UPSTREAM}: "
                        f"yours {_num(g2)}, "
                        f"expected {_UPSTREAM} * {_num(g1)} = {_num(_UPSTREAM * g1)}",
                        hint,
                    )
                )
                return
        if _assigns_grad(result, student, pt, ps, one, names):
            return
        break  # the accumulation is checked at one point
    result.lines.append(
        CheckLine(
            "OK",
            "chain rule",
            f"backward scales with grad_output (tried {_UPSTREAM}) and adds to what other uses of "
            "an input give",
        )
    )


def _assigns_grad(
    result: CheckResult, student: _Limited, pt: Point, ps: tuple[float, ...], one: list[Any], names: list[str]
) -> bool:
    """The lecture's bug: a ``_backward`` closure that sets ``x.grad = ...`` instead of adding to
    it wipes out what the other uses of x gave.  Each input used once more, in ``op(x) + x``, must
    get its gradient plus 1 (a Function cannot have the bug: the engine adds its gradients)."""
    xs, out = _call(student, pt, ps)
    root = out
    for x in xs:
        root = root + x
    both = _grads(student, xs, root, ps)
    if isinstance(both, _Raised):
        return False
    for i, (g1, g) in enumerate(zip(one, both)):
        if not _close(g, g1 + 1.0):
            which = f"d/d{names[i]} " if len(pt) > 1 and i < len(names) else ""
            label = names[i] if len(pt) > 1 and i < len(names) else (names[0] if names else "x")
            result.lines.append(
                CheckLine(
                    "WRONG",
                    "chain rule",
                    f"{which}of (your op + {label}) at {_where(names, pt, ps)}: yours {_num(g)}, "
                    f"expected {_num(g1)} + 1 = {_num(g1 + 1.0)}",
                    "add into .grad (x.grad += ...), do not assign it (x.grad = ...): an input used "
                    "twice gets the gradient of both uses (the lecture's bug)",
                )
            )
            return True
    return False


def _second_order(
    result: CheckResult,
    student: _Limited,
    reference: Callable[..., Value] | None,
    cases: list[tuple[Point, tuple[float, ...], bool]],
    names: list[str],
    inside: Domain,
) -> None:
    ordinary = [(pt, ps) for pt, ps, edge in cases if not edge]
    pt0, ps0 = ordinary[0] if ordinary else cases[0][:2]
    try:
        xs, out = _call(student, pt0, ps0)
        firsts = student.grad(out, xs, ps0, create_graph=True)
    except NotImplementedError:
        raise
    except Exception as exc:
        result.lines.append(
            CheckLine(
                "SKIP",
                "second order",
                f"grad(create_graph=True) does not run through your backward ({type(exc).__name__}); "
                "fine for first-order exercises",
                "write backward with operators and micrograd.math (as a Function) to make it differentiable",
            )
        )
        return
    # Which first derivatives the engine can differentiate: one computed with plain floats
    # (Python's math, float(), .data) is a constant to it, its second derivatives all 0.
    connected = [
        isinstance(g, Value) and any(s is not None for s in grad(g, xs, allow_unused=True)) for g in firsts
    ]
    ref_nonzero = [True] * len(firsts)  # without a reference, any derivative may depend on the inputs
    if reference is not None:
        rx, rout = _call(reference, pt0, ps0)
        ref_nonzero = [
            isinstance(rg, Value) and any(s is not None and s != 0.0 for s in grad(rg, rx, allow_unused=True))
            for rg in grad(rout, rx, create_graph=True, allow_unused=True)
        ]
    constant = [i for i, (c, nz) in enumerate(zip(connected, ref_nonzero)) if nz and not c]
    if constant and (reference is None or any(ref_nonzero)):
        part = (
            "your backward computes"
            if len(constant) == len(firsts) or not any(connected)
            else f"your backward's d/d{names[constant[0]] if constant[0] < len(names) else 'x'} computes"
        )
        result.lines.append(
            CheckLine(
                "SKIP",
                "second order",
                f"{part} with plain floats (Python's math module, float(), .data), so "
                "its result is a constant to the engine; fine for first-order exercises",
                "use micrograd.math (and ctx.inputs / ctx.output) to make backward differentiable",
            )
        )
        return
    n = 0
    for pt, ps in ordinary:
        try:
            xs, out = _call(student, pt, ps)
            firsts = student.grad(out, xs, ps, create_graph=True)
        except (ArithmeticError, ValueError):
            continue
        ref_h: list[list[float]] | None = None
        if reference is not None:
            rx, rout = _call(reference, pt, ps)
            ref_h = [
                [0.0 if s is None else float(s) for s in grad(rg, rx, allow_unused=True)]
                if isinstance(rg, Value)
                else [0.0] * len(rx)
                for rg in grad(rout, rx, create_graph=True, allow_unused=True)
            ]
        for i, g in enumerate(firsts):
            row = (
                [0.0 if s is None else float(s) for s in grad(g, xs, allow_unused=True)]
                if isinstance(g, Value)
                else [0.0] * len(xs)
            )
            for j, mine in enumerate(row):
                n += 1
                expected = None if ref_h is None else ref_h[i][j]
                if expected is None:
                    expected = _central(_derivative_fn(student, i), pt, ps, j, inside)
                if expected is not None and not _close(mine, expected, 1e-4 if ref_h is None else 1e-6, 1e-8):
                    which = f"d2/(d{names[i]} d{names[j]})" if len(pt) > 1 else "d2/dx2"
                    # backward's first derivatives are right (else this check does not run), so the
                    # second ones can only differ where part of backward is frozen as plain floats:
                    # not a wrong rule, a first-order one.
                    result.lines.append(
                        CheckLine(
                            "SKIP",
                            "second order",
                            f"{which} at {_where(names, pt, ps)}: "
                            f"yours {_num(mine)}, expected {_num(expected)}: part of your backward is a "
                            "constant to the engine; fine for first-order exercises",
                            "backward's formula is differentiated too: use ctx.inputs/ctx.output and "
                            "micrograd.math, not numbers from Python's math or saved as plain floats",
                        )
                    )
                    return
    result.lines.append(
        CheckLine("OK", "second order", f"second derivatives match at {len(ordinary)} points")
    )


def _derivative_fn(student: _Limited, i: int) -> Callable[..., Value]:
    def first(*args: Any) -> Value:
        xs = [a for a in args if isinstance(a, Value)]
        ps = tuple(a for a in args if not isinstance(a, Value))
        out = student(*xs, *ps)
        (g,) = student.grad(out, [xs[i]], ps)
        return Value(0.0 if g is None else float(g))

    return first
