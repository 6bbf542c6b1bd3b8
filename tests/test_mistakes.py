"""Break-it mode (issue 36, item 1): each classic backward bug, simulated by
``micrograd.viz.mistakes``, against gradients worked out by hand on three graphs: the lecture's
``f = (a*b) * (a+b)``, the video's ``b = a + a``, and a tanh neuron whose output is used twice."""

from __future__ import annotations

import json
import math
import re

import pytest

import micrograd
from micrograd import Value
from micrograd.viz.explorer import example_page
from micrograd.viz.mistake_examples import EXAMPLES
from micrograd.viz.mistakes import (
    MAX_RECURSION_RUNS,
    MISTAKES,
    SIMULATED_ORDER,
    UNCHANGED,
    wrong_gradients,
)

BREAKIT = re.compile(r'<script type="application/json" id="mg-breakit">(.*?)</script>', re.DOTALL)


def lecture() -> tuple[Value, dict[str, Value]]:
    """a = -2, b = 3, d = a*b = -6, e = a+b = 1, f = d*e = -6: right df/da = e*b + d = -3,
    df/db = e*a + d = -8, df/dd = e = 1, df/de = d = -6."""
    a = Value(-2.0, label="a")
    b = Value(3.0, label="b")
    d = a * b
    d.label = "d"
    e = a + b
    e.label = "e"
    f = d * e
    f.label = "f"
    return f, {"a": a, "b": b, "d": d, "e": e, "f": f}


def video_bug() -> tuple[Value, dict[str, Value]]:
    """a = 3, b = a + a: right db/da = 2."""
    a = Value(3.0, label="a")
    b = a + a
    b.label = "b"
    return b, {"a": a, "b": b}


def neuron() -> tuple[Value, dict[str, Value]]:
    """n = x*w = 0.5, t = tanh(n), s = t + 1, L = t * s: t is used by L and by s.
    Right: dL/ds = t, dL/dt = s + t = 2t + 1, dL/dn = (2t + 1)(1 - t²), dL/dx = w·dL/dn."""
    x = Value(2.0, label="x")
    w = Value(0.25, label="w")
    n = x * w
    n.label = "n"
    t = n.tanh()
    t.label = "t"
    s = t + 1
    s.label = "s"
    L = t * s
    L.label = "L"
    return L, {"x": x, "w": w, "n": n, "t": t, "s": s, "L": L}


T = math.tanh(0.5)
K = 1 - T * T  # tanh's right local derivative at n = 0.5

RIGHT = {
    "lecture": {"f": 1.0, "d": 1.0, "e": -6.0, "a": -3.0, "b": -8.0},
    "video_bug": {"b": 1.0, "a": 2.0},
    "neuron": {"L": 1.0, "s": T, "t": 2 * T + 1, "n": (2 * T + 1) * K, "x": 0.25 * (2 * T + 1) * K,
               "w": 2.0 * (2 * T + 1) * K},
}  # fmt: skip

# Worked by hand. The order is micrograd 0.1.0's, build_topo's reversed (operands in order): f, e,
# d, b, a, so under "overwrite" d's rule writes a and b last: a = b·1 = 3, b = a·1 = -2. "no-topo"
# changes nothing where no intermediate Value is reused; in the neuron, the recursion runs t's rule
# twice (with t+1, then with 2t+1) and n's twice too, so n gets (3t+2)K and x and w (4t+3)K·w and
# ·x. "no-zero-grad": the second backward() sets the output to 1 and adds onto the first pass (d:
# 1 + 1, e: -6 + -6, a: -3 + (2·3 - 12) = -9, b: -8 + (2·-2 - 12) = -24; the neuron's s: t + t,
# t: (2t+1) + (t+1) + 2t = 5t + 2). "tanh": 1 - t for 1 - t² below t.
WRONG = {
    "overwrite": {
        "lecture": ({"a": 3.0, "b": -2.0}, "b"),
        "video_bug": ({"a": 1.0}, "a"),
        "neuron": ({"t": T, "n": T * K, "x": 0.25 * T * K, "w": 2.0 * T * K}, "t"),
    },
    "no-topo": {
        "lecture": ({}, None),
        "video_bug": ({}, None),
        "neuron": ({"n": (3 * T + 2) * K, "x": 0.25 * (4 * T + 3) * K, "w": 2.0 * (4 * T + 3) * K}, "n"),
    },
    "no-zero-grad": {
        "lecture": ({"d": 2.0, "e": -12.0, "a": -9.0, "b": -24.0}, "e"),
        "video_bug": ({"a": 4.0}, "a"),
        "neuron": (
            {
                "s": 2 * T,
                "t": 5 * T + 2,
                "n": (7 * T + 3) * K,
                "x": 0.25 * (9 * T + 4) * K,
                "w": 2.0 * (9 * T + 4) * K,
            },
            "s",
        ),
    },
    "tanh": {
        "lecture": ({}, None),
        "video_bug": ({}, None),
        "neuron": (
            {"n": (2 * T + 1) * (1 - T), "x": 0.25 * (2 * T + 1) * (1 - T), "w": 2.0 * (2 * T + 1) * (1 - T)},
            "n",
        ),
    },
}
GRAPHS = {"lecture": lecture, "video_bug": video_bug, "neuron": neuron}


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("mistake", MISTAKES)
def test_each_mistake_gives_the_hand_computed_gradients(mistake: str, graph: str) -> None:
    root, values = GRAPHS[graph]()
    broken = wrong_gradients(root, mistake)
    changed, first = WRONG[mistake][graph]
    for name, v in values.items():
        right, wrong = broken[v]
        assert right == pytest.approx(RIGHT[graph][name], rel=1e-12), name
        assert wrong == pytest.approx(changed.get(name, RIGHT[graph][name]), rel=1e-12), name
        assert broken.differs(v) == (name in changed), name
    assert broken.first is (None if first is None else values[first])
    assert "\n" not in broken.reason and broken.reason
    assert all(v.grad == 0.0 for v in values.values())  # the Values' own gradients untouched


def test_the_reasons_name_the_bug_and_the_numbers() -> None:
    f, _ = lecture()
    assert wrong_gradients(f, "overwrite").reason == (
        "b receives 2 contributions (-6.0000 from e, -2.0000 from d); with = instead of +=, each overwrote "
        "the one before, so it keeps the last, -2.0000, not their sum -8.0000"
    )
    assert (
        wrong_gradients(f, "tanh").reason == "tanh changes no gradient of this graph: the graph has no tanh"
    )
    L, _ = neuron()
    assert wrong_gradients(L, "no-topo").reason.startswith("t's rule ran 2 times, once per path to it")
    assert wrong_gradients(L, "tanh").reason == (
        "n gets its gradient through t = tanh(n) = 0.4621, whose rule used 1 - t = 0.5379 instead of "
        "1 - t**2 = 0.7864"
    )
    assert (
        "kept the first pass's 0.4621 and the second added 0.4621"
        in wrong_gradients(L, "no-zero-grad").reason
    )


def test_the_backward_order_puts_every_value_after_its_users() -> None:
    L, _ = neuron()
    broken = wrong_gradients(L, "tanh")
    # micrograd 0.1.0's order: build_topo visits t's side (x, w, n, t), then s's (the 1, s), then L
    assert [broken.names[n] for n in broken.order] == ["L", "s", "1", "t", "n", "w", "x"]  # 1: the constant


@pytest.mark.parametrize("name", ["", "Overwrite", "no_topo", "=", None, 3])
def test_an_unknown_mistake_is_a_value_error_listing_the_names(name: object) -> None:
    f, _ = lecture()
    listed = "'overwrite', 'no-topo', 'no-zero-grad', 'tanh'"
    with pytest.raises(ValueError, match=f"unknown mistake {name!r}: the mistakes are {listed}"):
        wrong_gradients(f, name)  # type: ignore[arg-type]
    if name is None:
        return  # (explore's default: no mistake)
    with pytest.raises(ValueError, match=f"explore: unknown mistake {name!r}: the mistakes are {listed}"):
        micrograd.explore(f, mistake=name, layout="builtin")  # type: ignore[arg-type]


def test_bad_roots_and_graphs_too_large_for_the_recursion_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="wrong_gradients\\(\\) needs a Value, got float"):
        wrong_gradients(1.0, "tanh")  # type: ignore[arg-type]
    f, _ = lecture()
    with pytest.raises(micrograd.GraphTooLargeError, match="5 Values, more than max_nodes=4; break the"):
        wrong_gradients(f, "tanh", max_nodes=4)
    x = Value(1.0, label="x")
    for _ in range(20):  # 2**20 paths from the output back to x
        x = x * 1.0 + x
    with pytest.raises(ValueError, match=f"more than MAX_RECURSION_RUNS={MAX_RECURSION_RUNS:,}"):
        wrong_gradients(x, "no-topo")
    assert wrong_gradients(x, "overwrite").first is not None  # the others run
    with pytest.raises(ValueError, match="no-topo: the naive recursion would run"):
        micrograd.explore(x, mistake="no-topo", layout="builtin")
    page = micrograd.explore(x, mistake="overwrite", layout="builtin")  # no-topo listed as refused
    assert '"refused":"no-topo: the naive recursion would run' in page.html


@pytest.mark.parametrize("mistake", MISTAKES)
def test_each_mistake_has_an_example_it_changes_and_a_reason_where_it_changes_nothing(mistake: str) -> None:
    code, build = EXAMPLES[mistake]
    broken = wrong_gradients(build(), mistake)
    assert broken.first is not None and code.startswith(("a = Value(", "x = Value("))
    nothing = wrong_gradients(Value(2.0, label="x") * 3.0, mistake if mistake != "no-zero-grad" else "tanh")
    assert nothing.first is None and nothing.reason.endswith(UNCHANGED[nothing.mistake])


def test_explore_offers_the_example_only_where_a_mistake_changes_nothing() -> None:
    f, _ = lecture()  # overwrite and no-zero-grad change f's gradients; no-topo and tanh do not
    data = json.loads(re.search(BREAKIT, micrograd.explore(f, layout="builtin").html)[1])
    offered = {m["name"]: m.get("example") for m in data["mistakes"]}
    assert offered["overwrite"] is None and offered["no-zero-grad"] is None
    for name in ("no-topo", "tanh"):
        assert offered[name]["code"] == EXAMPLES[name][0]
        assert offered[name]["page"] == example_page(name) and f'"selected":"{name}"' in offered[name]["page"]
    assert data["simulates"] == SIMULATED_ORDER and "build_topo" in SIMULATED_ORDER
    assert "function mgControls(" not in example_page("tanh")  # the page's own scripts fill it in
