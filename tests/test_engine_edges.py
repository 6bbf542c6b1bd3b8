"""Edge semantics: values and gradients where PyTorch (float64) gives inf, nan or a convention.

The table holds what PyTorch 2.13 returns for each case (value, gradient); the
engine must give the same, bit for bit (signed zeros included), and must never
raise OverflowError, ZeroDivisionError or a math domain error, nor return a
complex number.  Where torch is installed, the table itself is re-checked against it.
"""

from __future__ import annotations

import math

import pytest

from micrograd import Value

INF, NAN = math.inf, math.nan

# (case, micrograd expression in x, torch expression in x, x, value, d value / dx)
EDGE_TABLE = [
    ("exp overflow", "x.exp()", "torch.exp(x)", 1000.0, INF, INF),
    ("exp underflow", "x.exp()", "torch.exp(x)", -1000.0, 0.0, 0.0),
    ("log at 0", "x.log()", "torch.log(x)", 0.0, -INF, INF),
    ("log below 0", "x.log()", "torch.log(x)", -1.0, NAN, -1.0),
    ("log at inf", "x.log()", "torch.log(x)", INF, INF, 0.0),
    ("1/x at 0", "1 / x", "1 / x", 0.0, INF, -INF),
    ("x/0 at 1", "x / 0.0", "x / 0.0", 1.0, INF, INF),
    ("x/0 at 0", "x / 0.0", "x / 0.0", 0.0, NAN, INF),
    ("x/0 at -1", "x / 0.0", "x / 0.0", -1.0, -INF, INF),
    ("relu at 0", "x.relu()", "torch.relu(x)", 0.0, 0.0, 0.0),
    ("relu at -0.0", "x.relu()", "torch.relu(x)", -0.0, -0.0, 0.0),
    ("relu at nan", "x.relu()", "torch.relu(x)", NAN, NAN, 1.0),
    ("abs at 0", "x.abs()", "torch.abs(x)", 0.0, 0.0, 0.0),
    ("abs at nan", "x.abs()", "torch.abs(x)", NAN, NAN, 0.0),
    ("sqrt at 0", "x.sqrt()", "torch.sqrt(x)", 0.0, 0.0, INF),
    ("sqrt below 0", "x.sqrt()", "torch.sqrt(x)", -1.0, NAN, NAN),
    ("x**0 at 0", "x**0", "x**0", 0.0, 1.0, 0.0),
    ("x**0 at nan", "x**0", "x**0", NAN, 1.0, 0.0),
    ("x**-1 at 0", "x**-1", "x**-1", 0.0, INF, -INF),
    ("x**-1 at -0.0", "x**-1", "x**-1", -0.0, -INF, -INF),
    ("x**0.5 at -1", "x**0.5", "x**0.5", -1.0, NAN, NAN),
    ("x**(1/3) at -8", "x**(1/3)", "x**(1/3)", -8.0, NAN, NAN),
    ("x**2 at 3", "x**2", "x**2", 3.0, 9.0, 6.0),
    ("x**400 overflow", "x**400", "x**400", 10.0, INF, INF),
    ("x**401 overflow at -10", "x**401", "x**401", -10.0, -INF, INF),
    ("2**x at 3", "2**x", "2**x", 3.0, 8.0, 5.545177444479562),
    ("0**x at 2", "0.0**x", "0.0**x", 2.0, 0.0, 0.0),
    ("0**x at 0", "0.0**x", "0.0**x", 0.0, 1.0, 0.0),
    ("0**x at -1", "0.0**x", "0.0**x", -1.0, INF, -INF),
    ("(-2)**x at 2", "(-2.0)**x", "(-2.0)**x", 2.0, 4.0, NAN),
    (
        "x**Value(0) at 0 (base grad)",
        "x**Value(0.0)",
        "x**torch.tensor(0.0, dtype=torch.float64)",
        0.0,
        1.0,
        0.0,
    ),
    (
        "x**Value(2) at -3 (base grad)",
        "x**Value(2.0)",
        "x**torch.tensor(2.0, dtype=torch.float64)",
        -3.0,
        9.0,
        -6.0,
    ),
    ("tanh at 1e308", "x.tanh()", "torch.tanh(x)", 1e308, 1.0, 0.0),
    ("tanh at -1e308", "x.tanh()", "torch.tanh(x)", -1e308, -1.0, 0.0),
    ("tanh at nan", "x.tanh()", "torch.tanh(x)", NAN, NAN, NAN),
    ("sigmoid at 1e308", "x.sigmoid()", "torch.sigmoid(x)", 1e308, 1.0, 0.0),
    ("sigmoid at -1e308", "x.sigmoid()", "torch.sigmoid(x)", -1e308, 0.0, 0.0),
    ("sigmoid at -1000", "x.sigmoid()", "torch.sigmoid(x)", -1000.0, 0.0, 0.0),
    ("sin at inf", "x.sin()", "torch.sin(x)", INF, NAN, NAN),
    ("cos at inf", "x.cos()", "torch.cos(x)", INF, NAN, NAN),
    ("leaky_relu at 0", "x.leaky_relu()", "torch.nn.functional.leaky_relu(x)", 0.0, 0.0, 0.01),
    ("leaky_relu at -2", "x.leaky_relu()", "torch.nn.functional.leaky_relu(x)", -2.0, -0.02, 0.01),
    ("elu at 0", "x.elu()", "torch.nn.functional.elu(x)", 0.0, 0.0, 1.0),
    ("elu at -1000", "x.elu()", "torch.nn.functional.elu(x)", -1000.0, -1.0, 0.0),
    ("elu at -1e-10", "x.elu()", "torch.nn.functional.elu(x)", -1e-10, -9.999999999500001e-11, 0.9999999999),
    ("softplus at 1000", "x.softplus()", "torch.nn.functional.softplus(x)", 1000.0, 1000.0, 1.0),
    ("softplus at -1000", "x.softplus()", "torch.nn.functional.softplus(x)", -1000.0, 0.0, 0.0),
    (
        "softplus at threshold 20",
        "x.softplus()",
        "torch.nn.functional.softplus(x)",
        20.0,
        20.000000002061153,
        0.9999999979388464,
    ),
    ("exp at nan", "x.exp()", "torch.exp(x)", NAN, NAN, NAN),
    ("x*inf at 0", "x * float('inf')", "x * float('inf')", 0.0, NAN, INF),
]


def same(a: float, b: float) -> bool:
    """Equal as IEEE floats, nan equal to nan, and the sign of a zero counts."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@pytest.mark.parametrize(
    ("case", "expr", "torch_expr", "x", "value", "grad"), EDGE_TABLE, ids=[r[0] for r in EDGE_TABLE]
)
def test_edge_case_matches_pytorch_table(
    case: str, expr: str, torch_expr: str, x: float, value: float, grad: float
) -> None:
    v = Value(x)
    out = eval(expr, {"x": v, "Value": Value})
    out.backward()
    assert type(out.data) is float and type(v.grad) is float
    assert same(out.data, value), f"{case}: value {out.data!r}, PyTorch gives {value!r}"
    assert same(v.grad, grad), f"{case}: gradient {v.grad!r}, PyTorch gives {grad!r}"


@pytest.mark.parametrize(
    ("case", "expr", "torch_expr", "x", "value", "grad"), EDGE_TABLE, ids=[r[0] for r in EDGE_TABLE]
)
def test_edge_table_is_what_pytorch_returns(
    case: str, expr: str, torch_expr: str, x: float, value: float, grad: float
) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle of this table; install torch==2.13.0")
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = eval(torch_expr, {"torch": torch, "x": t})
    y.backward()
    assert same(y.item(), value) and same(t.grad.item(), grad), case


def test_no_python_exception_escapes_any_op() -> None:
    specials = [0.0, -0.0, 1.0, -1.0, 1e308, -1e308, 1e-308, INF, -INF, NAN, 710.0, -745.0]
    unary = [
        "exp",
        "log",
        "sqrt",
        "tanh",
        "sigmoid",
        "relu",
        "leaky_relu",
        "elu",
        "softplus",
        "sin",
        "cos",
        "abs",
    ]
    for a in specials:
        for name in unary:
            x = Value(a)
            y = getattr(x, name)()
            y.backward()
            assert isinstance(y.data, float) and isinstance(x.grad, float), (name, a)
        for b in specials:
            for op in ("+", "-", "*", "/", "**"):
                x, y = Value(a), Value(b)
                z = eval(f"x {op} y")
                z.backward()
                assert isinstance(z.data, float) and isinstance(x.grad, float) and isinstance(y.grad, float)
                for w in (eval(f"a {op} y"), eval(f"x {op} b")):
                    w.backward()
                    assert isinstance(w.data, float), (a, op, b)
