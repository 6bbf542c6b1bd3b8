"""docs/pages/api.md's signatures of the optimizers are the code's: each parameter, in order, its default."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from nn import optim

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "pages" / "api.md").read_text()
OPTIMIZERS = re.search(r"^- \*\*Optimizers\*\*.*?(?=^- \*\*)", PAGE, re.M | re.S)


def page_signatures() -> dict[str, list[tuple[str, object]]]:
    """Each ``Name(param, name=default, ...)`` the page's Optimizers item writes out in full."""
    assert OPTIMIZERS, "api.md has no Optimizers item"
    found: dict[str, list[tuple[str, object]]] = {}
    for name, args in re.findall(r"`(\w+)\(([^`]*)\)`", OPTIMIZERS.group(0)):
        if "..." in args or not args:
            continue  # (AdamW(..., weight_decay=1e-2): below; step() and zero_grad(): methods)
        call = ast.parse(f"f({args})", mode="eval").body
        assert isinstance(call, ast.Call)
        names = [a.id for a in call.args if isinstance(a, ast.Name)]  # (no default)
        params: list[tuple[str, object]] = [(n, inspect.Parameter.empty) for n in names]
        params += [(kw.arg or "", ast.literal_eval(kw.value)) for kw in call.keywords]
        found[name] = params
    return found


@pytest.mark.parametrize("name", sorted(page_signatures()))
def test_each_optimizer_signature_on_the_page_is_the_codes(name: str) -> None:
    code = inspect.signature(getattr(optim, name))
    params = [(p.name, p.default) for p in code.parameters.values()]
    assert page_signatures()[name] == params


def test_the_page_writes_out_sgd_and_adam_and_adamws_one_difference() -> None:
    assert OPTIMIZERS and "`AdamW(..., weight_decay=1e-2)`" in OPTIMIZERS.group(0)
    assert {"SGD", "Adam"} <= set(page_signatures())
    adam, adamw = (inspect.signature(c).parameters for c in (optim.Adam, optim.AdamW))
    assert [(p.name, p.default) for p in adamw.values() if p.name != "weight_decay"] == [
        (p.name, p.default) for p in adam.values() if p.name != "weight_decay"
    ]
    assert adamw["weight_decay"].default == 1e-2
