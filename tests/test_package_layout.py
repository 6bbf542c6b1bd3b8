"""The package's layout is its architecture: a short top level of folders that say what they hold,
``import micrograd`` that loads only the engine, the ops and the math, every public name still
importable, and imports that point one way, down the layers."""

from __future__ import annotations

import ast
import importlib
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

import micrograd

ROOT = Path(micrograd.__file__).resolve().parent
REPO = ROOT.parent
FOLDERS = ("_core", "ops", "math", "func", "compiler", "viz", "exercises")
# Layers, bottom up: a module may import its own layer and those below it, never one above.
LAYERS = {
    "micrograd._core": 0,
    "micrograd.math": 0,
    "micrograd.engine": 1,
    "micrograd.ops": 2,
    "micrograd.func": 3,
    "micrograd.scopes": 3,
    "micrograd.files": 3,
    "micrograd.compiler": 4,
    "micrograd.exercises": 4,
    "micrograd.viz": 4,
    "micrograd.nn": 5,
}
# An upward import made inside a function, when it is called, and why (none left: explain_jvp,
# which func imported viz for, is the pictures' own, micrograd.viz.forward_mode).
LAZY_UPWARD: dict[tuple[str, str], str] = {}


def test_the_top_level_is_a_dozen_entries_each_folder_saying_what_it_holds_and_may_import() -> None:
    entries = sorted(p.name for p in ROOT.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 14, entries  # 12 and __init__.py, py.typed
    for folder in FOLDERS:
        doc = ast.get_docstring(ast.parse((ROOT / folder / "__init__.py").read_text()))
        assert doc and len(doc) > 200 and "May import" in doc, folder
    assert not (ROOT / "demos").exists()  # the demos are the repository's, above micrograd and nn


def loaded_by(statement: str) -> set[str]:
    """The modules a fresh interpreter holds after ``statement``."""
    code = f"import sys\n{statement}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    return set(out.stdout.split())


# What `import micrograd` loads: the engine, its machinery, the math and the ops micrograd 0.1.0's
# code uses (ops/basic.py); the rest of the op catalogue waits for its first use.
IMPORTED = {
    "micrograd",
    "micrograd._core",
    "micrograd._core.bookkeeping",
    "micrograd._core.coerce",
    "micrograd._core.context",
    "micrograd._core.grad_mode",
    "micrograd._core.hooks",
    "micrograd._core.name_clash_warning",
    "micrograd._core.nodes",
    "micrograd.engine",
    "micrograd.math",
    "micrograd.math.floats",
    "micrograd.math.generic",
    "micrograd.ops",
    "micrograd.ops.basic",
}


def test_import_micrograd_loads_the_engine_the_basic_ops_and_the_math_and_nothing_else() -> None:
    modules = loaded_by("import micrograd")
    ours = {m for m in modules if m.split(".")[0] in ("micrograd", "nn", "demos")}
    assert ours == IMPORTED, sorted(ours ^ IMPORTED)
    assert len(IMPORTED) == 15
    assert not modules & {"numpy", "graphviz", "nn", "subprocess", "json", "html"}, sorted(modules)


@pytest.mark.parametrize(
    ("first_use", "loads"),
    [
        ("Value(1.0).tanh()", set()),  # the lecture's op, engine.py's own
        ("Value(1.0) - 2", set()),  # basic's, loaded at import
        ("Value(1.0).gelu()", {"micrograd.ops.activations"}),
        ("Value(1.0).tan()", {"micrograd.ops.scientific"}),
        ("round(Value(2.5))", {"micrograd.ops.scientific"}),  # a special method, found through its type
        ("micrograd.math.atan2(1.0, Value(2.0))", {"micrograd.ops.scientific"}),
        ("micrograd.math.softmax([Value(1.0)])", {"micrograd.ops.reductions"}),
        ("micrograd.ops.Max", {f"micrograd.ops.{m}" for m in ("activations", "scientific", "reductions")}),
    ],
)
def test_the_rest_of_the_catalogue_loads_its_module_on_first_use(first_use: str, loads: set[str]) -> None:
    after = loaded_by(f"import micrograd\nfrom micrograd import Value\n{first_use}")
    ours = {m for m in after if m.startswith("micrograd")}
    assert ours - IMPORTED == loads


USERS_OWN = """
import math, sys
import micrograd
from micrograd import Value
def loaded(): return sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("micrograd.ops."))
before = loaded()
Value.gelu = lambda self: "mine"              # a user's method, the lecture's way, before its module loads
Value.tanh = lambda self: "my tanh"           # over the lecture's own op
Value.double = lambda self: self * 2          # and a new op of their own
x = Value(7.5)
out = [x.silu().data > 7.0, x.gelu(), x.tanh(), x.double().data, (x % 2).data, (2 % Value(1.5)).data]
out += [int(x), math.floor(x).data, round(Value(2.6)).data, (x // 2).data, Value(0.5).tan().data]
out += [micrograd.math.max([x, 9.0]).data, micrograd.math.atan2(0.0, Value(1.0)).data, x.gelu()]
Value.tan = lambda self: "my tan"             # after its module loaded
out += [x.tan(), micrograd.math.tan(x)]       # (micrograd.math calls the method: the user's)
print(before, loaded(), out, micrograd.ops.Max.__name__, micrograd.ops.scientific.__name__)
"""


def test_a_users_own_methods_stay_theirs_before_and_after_the_catalogue_loads() -> None:
    command = [sys.executable, "-c", USERS_OWN]
    run = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=True)
    loaded = "['basic'] ['activations', 'basic', 'reductions', 'scientific']"
    want = f"[True, 'mine', 'my tanh', 15.0, 1.5, 0.5, 7, 7.0, 3.0, 3.0, {math.tan(0.5)}, 9.0, 0.0, 'mine'"
    want += ", 'my tan', 'my tan']"
    assert run.stdout.strip() == f"{loaded} {want} Max micrograd.ops.scientific"


def test_a_row_of_no_known_kind_and_a_function_of_no_row_are_clear_errors() -> None:
    from micrograd.math.generic import GRAPH_OPS
    from micrograd.ops import Method, basic, made

    with pytest.raises(ValueError, match="'exp' has kind 'unray', which is none of the kinds"):
        made(Method("exp", "basic", "Exp", "unray"), basic, {})
    with pytest.raises(KeyError, match=r"micrograd\.math has no graph-building function 'nope'"):
        GRAPH_OPS["nope"]


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("explore", "micrograd.viz.explorer"),
        ("render", "micrograd.viz.dot"),
        ("compile", "micrograd.compiler"),
        ("grad", "micrograd.func.reverse"),
        ("gradcheck", "micrograd.func.gradcheck"),
        ("exercises", "micrograd.exercises"),
        ("nn", "nn"),
        ("scopes", "micrograd.scopes"),
    ],
)
def test_the_rest_loads_on_first_use(name: str, module: str) -> None:
    before = loaded_by("import micrograd")
    after = loaded_by(f"import micrograd\nmicrograd.{name}")
    assert module not in before and module in after


def test_every_name_importable_before_still_imports() -> None:
    for name in [*micrograd.__all__, "compile", "explore", "sum", "dot", "math", "func", "exercises", "nn"]:
        assert getattr(micrograd, name) is not None, name
    assert callable(micrograd.compile) and callable(micrograd.explore)
    from micrograd.engine import Value  # karpathy's imports
    from micrograd.nn import MLP, Layer, Neuron

    assert Value is micrograd.Value and MLP and Layer and Neuron
    from micrograd.exercises import check
    from micrograd.func import grad, hessian, jacobian, jvp
    from micrograd.math import exp, log_softmax, where
    from micrograd.scopes import record_scopes

    assert all(
        callable(f) for f in (check, grad, hessian, jacobian, jvp, exp, log_softmax, where, record_scopes)
    )
    assert micrograd.scopes.record_scopes is record_scopes
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        micrograd.nothing_here  # noqa: B018
    assert {"explore", "compile", "nn"} <= set(dir(micrograd))


def module_of(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The absolute names of the modules ``path`` imports at run time (not for the type checker only)."""
    tree = ast.parse(path.read_text())
    for block in ast.walk(tree):
        if isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            block.body = []
    here = module_of(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # `from . import x`: a module
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def module_graph(top: Path) -> dict[str, set[str]]:
    files = {module_of(p): p for p in top.rglob("*.py")}
    return {name: {m for m in imports_of(path) if m in files and m != name} for name, path in files.items()}


def layer(module: str) -> int:
    return max(
        level for prefix, level in LAYERS.items() if module == prefix or module.startswith(prefix + ".")
    )


def test_layers_point_one_way() -> None:
    graph = module_graph(ROOT)
    upward = [
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if "micrograd" not in (a, b)
        and not b.startswith(a + ".")
        and layer(b) > layer(a)
        and (a, b) not in LAZY_UPWARD
    ]
    assert upward == []
    # nothing in micrograd imports nn or the demos, but the micrograd.nn alias, itself loaded lazily
    for path in ROOT.rglob("*.py"):
        outside = {m.split(".")[0] for m in imports_of(path)} & {"nn", "demos"}
        assert not outside or path == ROOT / "nn.py", (path, outside)


def test_no_import_cycle_between_micrograds_modules() -> None:
    graph = module_graph(ROOT)
    graph = {a: {b for b in targets if b != "micrograd"} for a, targets in graph.items()}
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt.startswith(node + "."):
                continue  # a package's __init__ importing its own modules is no cycle
            if state.get(nxt) == 1:
                return [*path, node, nxt]
            if nxt not in state and (found := visit(nxt, [*path, node])):
                return found
        state[node] = 2
        return None

    cycles = [found for start in sorted(graph) if start not in state and (found := visit(start, []))]
    assert cycles == []


def test_the_layers_above_use_no_private_part_of_micrograd() -> None:
    for top in ("nn", "demos", "benchmarks"):
        for path in (REPO / top).rglob("*.py"):
            if any(part.startswith(".") for part in path.relative_to(REPO).parts):
                continue  # (what the bench fetches or exports there: other engines, git-ignored)
            private = [m for m in imports_of(path) if m.startswith("micrograd._")]
            assert private == [], (path, private)


def test_the_alias_micrograd_nn_is_karpathys_nn() -> None:
    alias = importlib.import_module("micrograd.nn")
    import nn

    assert alias.MLP is nn.MLP and alias.Neuron is nn.Neuron


def test_no_function_runs_over_60_lines_in_micrograd_or_nn() -> None:
    """Docstrings aside: a function a reader must scroll through is a function to split."""
    long = []
    for top in (ROOT, REPO / "nn"):
        for path in sorted(top.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                    if ast.get_docstring(node) is not None:
                        doc = node.body[0]
                        lines -= doc.end_lineno - doc.lineno + 1  # type: ignore[operator]
                    if lines > 60:
                        long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


# ---- each folder's "May import:" line, enforced ---------------------------------------------------

RULED = [*(ROOT / f for f in FOLDERS), REPO / "nn"]
NAMED = re.compile(r"``([\w.]+)``")


def may_import(folder: Path) -> set[str]:
    """The modules a folder's ``__init__`` docstring says it may import: the ````names```` of its
    "May import:" sentence (up to its first ``;`` or full stop), absolute, or relative to
    ``micrograd`` where micrograd has such a module (``engine``, ``func.reverse``)."""
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    found = re.search(r"May import:(.*?)(?:;|\.\s|\.$)", doc, flags=re.DOTALL)
    assert found, f"{folder.name}/__init__.py: no 'May import:' sentence"
    return {absolute(name) for name in NAMED.findall(found.group(1))}


def absolute(name: str) -> str:
    """``engine`` is ``micrograd.engine``; ``micrograd.ops``, ``numpy`` are as written."""
    inside = ROOT.joinpath(*name.split("."))
    local = inside.is_dir() or inside.with_suffix(".py").is_file()
    return f"micrograd.{name}" if local and not name.startswith("micrograd") else name


def imported_where(path: Path) -> list[tuple[str, int]]:
    """Every module ``path`` imports at run time, top level and inside functions, with its line: a
    ``from package import name`` is ``package.name`` when that is a module, else ``package``."""
    tree = ast.parse(path.read_text())
    for block in ast.walk(tree):
        if isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            block.body = []  # (for the type checker only: never run)
    here = module_of(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = REPO.joinpath(*f"{target}.{alias.name}".split("."))
                is_module = sub.is_dir() or sub.with_suffix(".py").is_file()
                found.append((f"{target}.{alias.name}" if is_module else target, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
    return sorted(set(found), key=lambda item: item[1])


def allowed(target: str, own: str, rules: set[str]) -> bool:
    top = target.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__" or target == own or target.startswith(own + "."):
        return True
    # ``micrograd`` alone is the package's public names (`from micrograd import Value`), not its modules
    return any(target == rule or (rule != "micrograd" and target.startswith(rule + ".")) for rule in rules)


@pytest.mark.parametrize("folder", RULED, ids=lambda f: f.name)
def test_every_import_in_a_folder_is_one_its_may_import_line_allows(folder: Path) -> None:
    rules, own = may_import(folder), module_of(folder / "__init__.py")
    broken = [
        f"{path.relative_to(REPO)}:{line} imports {target}"
        for path in sorted(folder.rglob("*.py"))
        for target, line in imported_where(path)
        if not allowed(target, own, rules)
    ]
    assert broken == [], f"{own} may import {sorted(rules)}"


def test_the_may_import_rules_are_read_as_written() -> None:
    assert may_import(ROOT / "viz") >= {"micrograd.engine", "micrograd.func.reverse", "graphviz"}
    assert not allowed("micrograd.viz.dot", "nn", {"micrograd", "micrograd.func"})
    assert allowed("micrograd.func.reverse", "nn", {"micrograd", "micrograd.func"})
    assert allowed("json", "micrograd.viz", set()) and not allowed("numpy", "micrograd.viz", set())


def test_no_module_but_the_packages_own_re_exports_a_name_of_core() -> None:
    """``micrograd/__init__.py`` makes a few of ``_core``'s names public (``no_grad``, ``Context``);
    no other module passes ``_core``'s names on (as ``func.reverse`` once did the bookkeeping's)."""
    passed_on = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == ROOT / "__init__.py" or ROOT / "_core" in path.parents:
            continue
        tree = ast.parse(path.read_text())
        core = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and "_core" in (node.module or "").split(".")
            for alias in node.names
        }
        listed = {
            elt.value
            for node in tree.body
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets)
            for elt in getattr(node.value, "elts", [])
            if isinstance(elt, ast.Constant)
        }
        passed_on += [f"{path.relative_to(REPO)}: {name}" for name in sorted(core & listed)]
    assert passed_on == []


def test_the_layout_page_shows_the_rules_the_test_enforces() -> None:
    page = (REPO / "docs" / "pages" / "layout.md").read_text()
    shown = {}
    for row in re.findall(r"^\| `(\w+)/` \| ([^|\n]+) \|$", page, flags=re.MULTILINE):
        folder, names = row
        shown[folder] = {absolute(name) for name in re.findall(r"`([\w.]+)`", names)}
    assert shown == {folder.name: may_import(folder) for folder in RULED}


def test_import_nn_loads_no_pictures_and_no_transforms() -> None:
    modules = loaded_by("import nn")
    assert not {m for m in modules if m.startswith(("micrograd.viz", "micrograd.func"))}, sorted(modules)
    assert "micrograd.scopes" in modules  # (the GPT's named boxes: a with block, no pictures)


def test_nn_reads_graphs_through_values_public_api() -> None:
    private = {"_prev", "_op", "_fn", "_extra"}
    found = [
        f"{path.relative_to(REPO)}:{node.lineno} .{node.attr}"
        for path in sorted((REPO / "nn").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in private
    ]
    assert found == []  # (Value.op and Value.children; docstrings' examples are checked by doctest)
