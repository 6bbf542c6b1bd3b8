"""Adam's numpy path (``Adam._array_step``) against its scalar loop: the same numbers, bit for bit."""

from __future__ import annotations

import math
import random
import struct

import pytest

from micrograd import Value
from nn import optim


def bits(x: float) -> bytes:
    """``x``'s bits, every nan as one: which nan two nans give (its sign) is the hardware's choice of
    operand, which numpy's compiled loops may take in the other order (as tests/test_compile.py's
    ``same``: nan equals nan, zeros by their sign)."""
    return b"nan" if math.isnan(x) else struct.pack("d", x)


SPECIAL = [0.0, -0.0, 1e-300, -1e-300, 5e-324, 1e300, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize(
    "kind, kwargs",
    [
        ("adam", {}),
        ("adam", {"betas": (0.85, 0.99), "lr": 0.01, "eps": 1e-8}),  # microgpt's settings
        ("adam", {"betas": (0.3, 0.9)}),  # 1 - beta1 >= 0.5: torch.lerp's other formula
        ("adam", {"weight_decay": 0.1}),
        ("adam", {"amsgrad": True, "weight_decay": 0.01}),
        ("adamw", {"weight_decay": 0.05}),
        ("adamw", {"amsgrad": True, "betas": (0.2, 0.5)}),
    ],
)
@pytest.mark.parametrize("specials", [False, True])
def test_array_path_is_the_scalar_loop_bit_for_bit(kind: str, kwargs: dict, specials: bool) -> None:
    rng = random.Random(f"{kind} {kwargs} {specials}")  # (a str seed: the same in every process)
    n, steps = 300, 60
    start = [rng.gauss(0, 1) for _ in range(n)]
    fast_ps, slow_ps = [Value(x) for x in start], [Value(x) for x in start]
    make = optim.AdamW if kind == "adamw" else optim.Adam
    fast, slow = make(fast_ps, **kwargs), make(slow_ps, **kwargs)
    slow.fast = False
    for step in range(steps):
        grads = [rng.gauss(0, 10 ** rng.randint(-8, 3)) for _ in range(n)]
        if specials:
            for i in rng.sample(range(n), 8):
                grads[i] = rng.choice(SPECIAL)
        grads[0] = 0  # an int, as microgpt's script leaves it
        for ps in (fast_ps, slow_ps):
            for p, g in zip(ps, grads):
                p.grad = g
        fast.lr = slow.lr = 0.01 * (1 - step / steps)
        fast.step()
        slow.step()
        assert isinstance(fast.exp_avg, list) is False  # (the numpy path ran)
        assert [bits(p.data) for p in fast_ps] == [bits(p.data) for p in slow_ps], step
    assert [bits(x) for x in fast.exp_avg.tolist()] == [bits(x) for x in slow.exp_avg]
    assert [bits(x) for x in fast.exp_avg_sq.tolist()] == [bits(x) for x in slow.exp_avg_sq]


def test_a_grad_that_is_no_number_takes_the_scalar_loop() -> None:
    ps = [Value(1.0), Value(2.0)]
    opt = optim.Adam(ps, lr=0.1)
    ps[0].grad, ps[1].grad = 1.0, 2.0
    opt.step()
    ps[0].grad, ps[1].grad = 1.0, None  # type: ignore[assignment]
    with pytest.raises(TypeError):  # the loop's own error, as before the numpy path
        opt.step()
    assert isinstance(opt.exp_avg, list)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": 0.1},
        {"lr": 0.05, "momentum": 0.9},
        {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01},
        {"lr": 0.02, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1},
    ],
)
@pytest.mark.parametrize("specials", [False, True])
def test_sgd_array_path_is_the_scalar_loop_bit_for_bit(kwargs: dict, specials: bool) -> None:
    rng = random.Random(f"sgd {kwargs} {specials}")
    n, steps = 300, 40
    start = [rng.gauss(0, 1) for _ in range(n)]
    fast_ps, slow_ps = [Value(x) for x in start], [Value(x) for x in start]
    fast, slow = optim.SGD(fast_ps, **kwargs), optim.SGD(slow_ps, **kwargs)
    slow.fast = False
    for step in range(steps):
        grads = [rng.gauss(0, 10 ** rng.randint(-8, 3)) for _ in range(n)]
        if specials:
            for i in rng.sample(range(n), 8):
                grads[i] = rng.choice(SPECIAL)
        grads[0] = 0  # an int
        for ps in (fast_ps, slow_ps):
            for p, g in zip(ps, grads):
                p.grad = g
        fast.lr = slow.lr = 0.05 * (1 - step / steps)
        fast.step()
        slow.step()
        assert isinstance(fast.momentum_buffers, list) is False or not fast.momentum
        assert [bits(p.data) for p in fast_ps] == [bits(p.data) for p in slow_ps], step
    if fast.momentum:
        assert [bits(x) for x in fast.momentum_buffers.tolist()] == [bits(x) for x in slow.momentum_buffers]


def test_sgd_goes_on_from_scalar_buffers_and_back() -> None:
    ps, twins = [Value(1.0), Value(-2.0)], [Value(1.0), Value(-2.0)]
    opt, ref = optim.SGD(ps, lr=0.1, momentum=0.9), optim.SGD(twins, lr=0.1, momentum=0.9)
    ref.fast = False
    for fast in (False, True, False, True):  # the buffers change form between the paths
        opt.fast = fast
        for p, q, g in zip(ps, twins, (0.5, -1.5)):
            p.grad = q.grad = g
        opt.step()
        ref.step()
        assert [p.data for p in ps] == [q.data for q in twins]
    ps[1].grad = None  # type: ignore[assignment]
    with pytest.raises(TypeError):  # the loop's own error
        opt.step()


def test_without_numpy_the_optimizers_step_as_the_loop() -> None:
    """Where numpy cannot be imported (the playground's Pyodide without its wheel), ``step()`` runs
    the scalar loop instead of failing in the numpy path."""
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['numpy'] = None\n"  # an import of numpy now fails, as without it
        "from micrograd import Value\n"
        "from nn.optim import SGD, Adam\n"
        "for opt_class in (SGD, Adam):\n"
        "    p = Value(1.0); p.grad = 0.5\n"
        "    opt_class([p], lr=0.1).step()\n"
        "    print(opt_class.__name__, p.data)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    sgd, sgd_data, adam, adam_data = done.stdout.split()
    assert (sgd, float(sgd_data)) == ("SGD", 1.0 - 0.1 * 0.5)
    assert adam == "Adam" and math.isclose(float(adam_data), 0.9, rel_tol=1e-7)  # lr, less eps's share
