"""micrograd.math's exp and log on arrays: numpy's own loop where it gives the float functions'
very bits, else the element-by-element path, and the same bits either way."""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from micrograd import math as mm
from micrograd.math import exact_ufuncs
from micrograd.math import floats as fmath

FLOAT_FUNCTIONS: dict[str, Callable[[float], float]] = {"exp": fmath.exp, "log": fmath.log}
ARRAY_FUNCTIONS: dict[str, Callable[[Any], Any]] = {"exp": mm.exp, "log": mm.log}
# Floats where exp and log change behaviour: the overflow and underflow edges, 0, 1, inf, nan.
EDGES = [709.782712893384, 709.7827128933841, -708.3964185322641, -745.1332191019411, -745.1332191019412]
EDGES += [0.0, -0.0, 1.0, math.nextafter(1.0, 2.0), math.nextafter(1.0, 0.0), -1.0, 5e-324, -5e-324]
EDGES += [math.inf, -math.inf, math.nan, -math.nan, 1.7976931348623157e308, 2.2250738585072014e-308]
SIGNALLING_NAN = np.array([0x7FF0000000000001, 0xFFF4000000000ABC], dtype=np.uint64).view(np.float64)


def element_by_element(name: str, a: Any) -> Any:
    """The engine's float function on each element: the eager engine's numbers."""
    f = FLOAT_FUNCTIONS[name]
    return np.array([f(v) for v in a.ravel().tolist()], dtype=np.float64).reshape(a.shape)


def bits(a: Any) -> Any:
    return np.ascontiguousarray(a).view(np.uint64)


def any_float64() -> st.SearchStrategy[int]:
    """A float64's bit pattern: any of them (nans of any payload, signalling ones, subnormals), or an edge."""
    edge = st.sampled_from(EDGES).map(lambda x: int(np.array([x]).view(np.uint64)[0]))
    near = st.floats(-750.0, 750.0).map(lambda x: int(np.array([x]).view(np.uint64)[0]))
    return st.one_of(st.integers(0, 2**64 - 1), edge, near)


@pytest.fixture
def undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not decided yet: the checks run again, and the real decisions come back after."""
    monkeypatch.setattr(exact_ufuncs, "decisions", {})


@pytest.mark.parametrize("name", ["exp", "log"])
@settings(max_examples=300, deadline=None)
@given(patterns=st.lists(any_float64(), min_size=1, max_size=40), rows=st.integers(1, 3))
@example(patterns=[int(x) for x in SIGNALLING_NAN.view(np.uint64)], rows=1)
def test_an_array_gets_the_float_functions_very_bits(name: str, patterns: list[int], rows: int) -> None:
    a = np.array(patterns * rows, dtype=np.uint64).view(np.float64).reshape(rows, len(patterns))
    with np.errstate(all="raise"):  # and not a warning on the way, as on floats
        got = ARRAY_FUNCTIONS[name](a)
    assert got.shape == a.shape and got.dtype == np.float64
    np.testing.assert_array_equal(bits(got), bits(element_by_element(name, a)))


def test_this_machine_runs_numpy_where_its_dispatch_calls_the_c_library() -> None:
    # The reading of numpy's source this rests on, checked where it applies: a target that calls
    # the C library passes the probe (on x86-64 without AVX-512, exp, log and pow run on numpy here),
    # and where it does not, exp's generic complex128 loop does (on AVX-512).
    for name, (ufunc, on_array, _) in exact_ufuncs.CANDIDATES.items():
        target = exact_ufuncs.dispatch_target(ufunc)
        assert target is None or isinstance(target, str)
        if target is not None and exact_ufuncs.target_calls_the_c_library(target):
            expected = on_array
        elif name in exact_ufuncs.THROUGH_COMPLEX and exact_ufuncs.complex_loop_is_generic(ufunc):
            expected = exact_ufuncs.THROUGH_COMPLEX[name]
        else:
            expected = None
        assert exact_ufuncs.array_function(name) is expected, (name, target)
        assert (name in exact_ufuncs.on_numpy()) == (expected is not None)


@pytest.mark.parametrize(
    ("target", "calls_it"),
    [
        ("X86_V3", True),
        ("baseline(X86_V2)", True),
        ("baseline(NEON NEON_FP16 NEON_VFPV4 ASIMD)", True),
        ("baseline()", True),
        ("FMA3__AVX2", True),
        ("X86_V4", False),
        ("AVX512F", False),
        ("AVX512_SKX", False),
        ("baseline(X86_V2 X86_V3 X86_V4)", False),
        ("baseline(SVE)", False),
        ("", False),
        ("SOMETHING_NEW", False),
    ],
)
def test_only_targets_known_to_call_the_c_library_are_allowed(target: str, calls_it: bool) -> None:
    assert exact_ufuncs.target_calls_the_c_library(target) is calls_it


def fake_dispatch(monkeypatch: pytest.MonkeyPatch, target: str, complex_target: str | None = None) -> None:
    """numpy's dispatch, as opt_func_info reports it, made to name ``target`` for every float64 loop,
    and ``complex_target`` for every complex128 one (None: numpy's generic loop, listed as none)."""
    import numpy.lib.introspect

    def opt_func_info(func_name: str, signature: str) -> dict[str, Any]:
        name = func_name.strip("^$")
        if signature == "complex128":
            kind, target_here = "DD", complex_target
        else:
            kind, target_here = "dd", target
        if target_here is None:
            return {}
        return {name: {kind: {"current": target_here, "available": f"{target_here} baseline(X86_V2)"}}}

    monkeypatch.setattr(numpy.lib.introspect, "opt_func_info", opt_func_info)


@pytest.mark.parametrize("name", ["exp", "log"])
def test_an_avx512_loop_is_refused_and_the_element_path_gives_the_same_bits(
    name: str, monkeypatch: pytest.MonkeyPatch, undecided: None
) -> None:
    fake_dispatch(monkeypatch, "X86_V4", complex_target="X86_V4")  # (no generic complex loop either)
    assert exact_ufuncs.dispatch_target(name) == "X86_V4"
    _, _, on_float = exact_ufuncs.CANDIDATES[name]
    # a numpy loop that would be wrong everywhere: never used once the dispatch refuses
    monkeypatch.setitem(exact_ufuncs.CANDIDATES, name, (name, lambda a: a * 0.0 + 7.0, on_float))
    assert exact_ufuncs.array_function(name) is None
    assert exact_ufuncs.on_numpy() == []
    a = np.array([0.5, 1000.0, -1.0, 0.0, math.nan, 3.0])
    np.testing.assert_array_equal(bits(ARRAY_FUNCTIONS[name](a)), bits(element_by_element(name, a)))


def test_a_numpy_without_opt_func_info_is_refused(monkeypatch: pytest.MonkeyPatch, undecided: None) -> None:
    monkeypatch.setitem(sys.modules, "numpy.lib.introspect", None)  # its import raises ImportError
    assert exact_ufuncs.dispatch_target("exp") is None
    assert not exact_ufuncs.complex_loop_is_generic("exp")
    assert exact_ufuncs.array_function("exp") is None


# ---- exp through numpy's complex128 loop, where its float64 one is AVX-512's own -----------------

THROUGH = exact_ufuncs.array_exp_through_complex
# Where cexp scales its result (glibc: above 709), and the route's own edge
CEXP_EDGES = [708.0, math.nextafter(708.0, 709.0), 709.0, math.nextafter(709.0, 710.0), 709.5, 709.78]


def complex_route_here() -> None:
    """Skip, saying why, where this machine's complex exp does not give exp's bits (the probe)."""
    if not exact_ufuncs.complex_loop_is_generic("exp"):
        pytest.skip("numpy runs a SIMD complex128 exp here, or does not say: the route is refused")
    if not exact_ufuncs.probe_agrees(THROUGH, fmath.exp, 1):
        pytest.skip("this C library's cexp(x + 0j) is not exp(x) bit for bit here: the route is refused")


@settings(max_examples=300, deadline=None)
@given(patterns=st.lists(any_float64(), min_size=1, max_size=40))
@example(patterns=[int(np.array([x]).view(np.uint64)[0]) for x in CEXP_EDGES + EDGES])
def test_exp_through_the_complex_loop_gets_the_float_functions_very_bits(patterns: list[int]) -> None:
    complex_route_here()
    a = np.array(patterns, dtype=np.uint64).view(np.float64)
    with np.errstate(all="raise"):  # quiet, as on floats
        got = THROUGH(a)
    assert got.dtype == np.float64 and got.flags.c_contiguous
    np.testing.assert_array_equal(bits(got), bits(element_by_element("exp", a)))


def test_the_complex_route_is_taken_on_avx512_and_only_when_both_checks_pass(
    monkeypatch: pytest.MonkeyPatch, undecided: None
) -> None:
    complex_route_here()
    fake_dispatch(monkeypatch, "X86_V4")  # float64 exp on AVX-512's kernel, complex128 on the generic loop
    assert exact_ufuncs.array_function("exp") is THROUGH
    assert exact_ufuncs.array_function("log") is None  # (log has no such route)
    a = np.array([-3.0, 0.0, 708.5, 1000.0, math.nan, -math.inf, 1e-300])
    np.testing.assert_array_equal(bits(mm.exp(a)), bits(element_by_element("exp", a)))
    monkeypatch.setattr(exact_ufuncs, "decisions", {})
    fake_dispatch(monkeypatch, "X86_V4", complex_target="AVX512F")  # a SIMD complex loop: refused
    assert exact_ufuncs.array_function("exp") is None
    monkeypatch.setattr(exact_ufuncs, "decisions", {})
    fake_dispatch(monkeypatch, "X86_V4")
    # a complex loop that is a last bit off where cexp would scale, were the route's edge not below it
    monkeypatch.setitem(exact_ufuncs.THROUGH_COMPLEX, "exp", exp_an_ulp_low_at_its_edge)
    assert exact_ufuncs.array_function("exp") is None
    np.testing.assert_array_equal(bits(mm.exp(a)), bits(element_by_element("exp", a)))


def log_unmended(a: Any) -> Any:
    """numpy's log as it is: it quiets a signalling nan, which math.log returns as it is."""
    with np.errstate(all="ignore"):
        return np.log(a)


def exp_an_ulp_low_at_its_edge(a: Any) -> Any:
    """numpy's exp, an ulp low at exp's last finite result only."""
    with np.errstate(all="ignore"):
        return np.where(a == 709.782712893384, 1.797693134862273e308, np.exp(a))


@pytest.mark.parametrize(
    ("name", "numpy_as_is"), [("log", log_unmended), ("exp", exp_an_ulp_low_at_its_edge)]
)
def test_a_probe_that_sees_one_bit_of_difference_refuses_numpy(
    name: str, numpy_as_is: Callable[[Any], Any], monkeypatch: pytest.MonkeyPatch, undecided: None
) -> None:
    # a dispatch that allows the float64 loop and no second route: the probe alone decides
    fake_dispatch(monkeypatch, "X86_V3", complex_target="X86_V4")
    _, _, on_float = exact_ufuncs.CANDIDATES[name]
    monkeypatch.setitem(exact_ufuncs.CANDIDATES, name, (name, numpy_as_is, on_float))
    assert exact_ufuncs.array_function(name) is None
    assert name not in exact_ufuncs.on_numpy()
    a = np.concatenate([SIGNALLING_NAN, [0.5, 2.0, -3.0]])
    np.testing.assert_array_equal(bits(ARRAY_FUNCTIONS[name](a)), bits(element_by_element(name, a)))


def test_the_probe_passes_the_mended_log_and_sees_what_it_mends(undecided: None) -> None:
    values = exact_ufuncs.probe_values()
    assert values.size > 20_000
    kinds = {
        "nan": np.isnan(values).any(),
        "signalling nan": ((bits(values) & 0x7FF8000000000000) == 0x7FF0000000000000).any(),
        "subnormal": ((values != 0) & (np.abs(values) < 2.2250738585072014e-308)).any(),
        "-0.0": (bits(values) == 0x8000000000000000).any(),
        "-inf": (values == -math.inf).any(),
        "exp's overflow edge": ((values > 709.78) & (values < 709.79)).sum() > 100,
    }
    assert all(kinds.values()), kinds
    if exact_ufuncs.target_calls_the_c_library(exact_ufuncs.dispatch_target("log") or ""):
        expected = exact_ufuncs.element_by_element(fmath.log, values)
        assert exact_ufuncs.same_bits(exact_ufuncs.array_log(values), expected)
        with np.errstate(all="ignore"):
            assert not exact_ufuncs.same_bits(np.log(values), expected)  # the mending is needed


def test_a_zero_dimensional_array_and_a_number_keep_their_kinds() -> None:
    assert mm.exp(0.0) == 1.0 and type(mm.exp(0.0)) is float
    zero_d = mm.log(np.array(1.0))
    assert isinstance(zero_d, np.ndarray) and zero_d.shape == () and zero_d == 0.0


# ---- pow: two operands, the second an array or one number ----------------------------------------

EXPONENTS = [2.0, 0.5, -1.0, -0.5, -1.5, 3.0, 0.0, 1.0, 1 / 3, 1024.0, -1075.0, math.inf, math.nan]


def pow_element_by_element(a: Any, b: Any) -> Any:
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    flat = [fmath.pow(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist(), strict=True)]
    return np.array(flat, dtype=np.float64).reshape(a.shape)


def pow_operand() -> st.SearchStrategy[int]:
    as_bits = st.sampled_from([*EXPONENTS, -2.0, -8.0, 1.0000000000000002]).map(
        lambda x: int(np.array([x]).view(np.uint64)[0])
    )
    return st.one_of(any_float64(), as_bits)


@settings(max_examples=300, deadline=None)
@given(pairs=st.lists(st.tuples(pow_operand(), pow_operand()), min_size=1, max_size=40))
@example(
    pairs=[
        (int(SIGNALLING_NAN.view(np.uint64)[0]), 0),
        (0x3FF0000000000000, int(SIGNALLING_NAN.view(np.uint64)[1])),
    ]
)
def test_pow_of_two_arrays_gets_the_float_functions_very_bits(pairs: list[tuple[int, int]]) -> None:
    a = np.array([p[0] for p in pairs], dtype=np.uint64).view(np.float64)
    b = np.array([p[1] for p in pairs], dtype=np.uint64).view(np.float64)
    with np.errstate(all="raise"):
        got = mm.pow(a, b)
    np.testing.assert_array_equal(bits(got), bits(pow_element_by_element(a, b)))


def float_bits(*xs: float) -> list[int]:
    return [int(u) for u in np.array(xs, dtype=np.float64).view(np.uint64)]


# Where numpy's own answer (x * x, sqrt(x), 1 / x) is not C's pow: an ulp apart, or -0.0 and -inf
SHORTCUT_DIFFERS = float_bits(
    1.4820504433352794e-14, 105369175.2793893, 2.2458410407823136e-40, -0.0, -math.inf
)


@settings(max_examples=200, deadline=None)
@given(
    patterns=st.lists(any_float64(), min_size=1, max_size=30),
    exponent=st.one_of(st.sampled_from(EXPONENTS), st.floats(-40.0, 40.0)),
    as_array=st.booleans(),
)
@example(patterns=SHORTCUT_DIFFERS, exponent=2.0, as_array=False)
@example(patterns=SHORTCUT_DIFFERS, exponent=0.5, as_array=True)
@example(patterns=SHORTCUT_DIFFERS, exponent=-1.0, as_array=False)
def test_pow_by_one_exponent_gets_the_float_functions_very_bits(
    patterns: list[int], exponent: float, as_array: bool
) -> None:
    # numpy answers x ** 2, x ** 0.5 and x ** -1 itself when the exponent is one number: not C's pow
    a = np.array(patterns * 2, dtype=np.uint64).view(np.float64).reshape(2, len(patterns))
    b: Any = np.float64(exponent) if as_array else exponent
    with np.errstate(all="raise"):
        got = mm.pow(a, b)
    assert got.shape == a.shape
    np.testing.assert_array_equal(bits(got), bits(pow_element_by_element(a, exponent)))
    np.testing.assert_array_equal(bits(mm.pow(exponent, a)), bits(pow_element_by_element(exponent, a)))


def pow_unmended(a: Any, b: Any) -> Any:
    """numpy's power as it is: C's pow where Python's float ** answers itself (nan ** 0 is 1...)."""
    with np.errstate(all="ignore"):
        return np.power(a, b)


def test_pow_is_refused_on_avx512_and_when_the_probe_sees_a_difference(
    monkeypatch: pytest.MonkeyPatch, undecided: None
) -> None:
    a, b = np.array([4.0, -8.0, 2.0, math.nan]), np.array([0.5, 1 / 3, 2.0, 0.0])
    expected = bits(pow_element_by_element(a, b))
    fake_dispatch(monkeypatch, "X86_V4")
    assert exact_ufuncs.array_function("pow") is None
    np.testing.assert_array_equal(bits(mm.pow(a, b)), expected)  # ((-8) ** (1/3): math.pow refuses it)
    fine = np.array([4.0, 2.0, math.nan, -2.0, -0.0]), np.array([0.5, -1.5, 0.0, 3.0, 3.0])  # (math.pow's)
    np.testing.assert_array_equal(bits(mm.pow(*fine)), bits(pow_element_by_element(*fine)))
    monkeypatch.setattr(exact_ufuncs, "decisions", {})
    fake_dispatch(monkeypatch, "baseline(X86_V2)")
    monkeypatch.setitem(exact_ufuncs.CANDIDATES, "pow", ("power", pow_unmended, fmath.pow))
    assert exact_ufuncs.array_function("pow") is None
    np.testing.assert_array_equal(bits(mm.pow(a, b)), expected)


def test_the_probe_decides_the_same_under_numpys_strictest_error_settings(undecided: None) -> None:
    # a user's np.seterr(all="raise") or -W error must not make the decision fail or differ
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            strict = exact_ufuncs.on_numpy()
    exact_ufuncs.decisions.clear()
    assert strict == exact_ufuncs.on_numpy()
