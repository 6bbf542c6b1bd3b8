"""The pictures as a pipeline (issue 33, item 6): graph model → boxes → box views → layout → DOT →
page → explorer, each module of ``micrograd/viz`` importing only the ones before it; and no
function over 60 lines (docstrings aside) in the pictures, scopes, files and the page writers."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import micrograd.viz.explorer as explorer_module

ROOT = Path(__file__).resolve().parent.parent
VIZ = ROOT / "micrograd" / "viz"

#: The pipeline, one way down: a module may import only those before it.
ORDER = [
    "chains",
    "graph_model",
    "boxes",
    "box_views",
    "layout",
    "dot",
    "forward_mode",
    "mistakes",
    "mistake_examples",
    "page",
    "explorer",
    "recorder",
]


def viz_imports(path: Path) -> set[str]:
    """The modules of ``micrograd.viz`` that the module at ``path`` imports, anywhere in it (at
    the top, or inside a function, as a lazy import)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from .x import y, from . import x
                names = [node.module] if node.module else [a.name for a in node.names]
            elif node.level == 0 and (node.module or "").startswith("micrograd.viz"):
                rest = (node.module or "").removeprefix("micrograd.viz").lstrip(".")
                names = [rest.split(".")[0]] if rest else [a.name for a in node.names]
            elif node.level == 2 and node.module == "viz":  # from ..viz import x
                names = [a.name for a in node.names]
            elif node.level == 2 and (node.module or "").startswith("viz."):
                names = [(node.module or "").split(".")[1]]
            else:
                names = []
            found.update(n.split(".")[0] for n in names if n)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("micrograd.viz."):
                    found.add(alias.name.split(".")[2])
    return found & set(ORDER)


def test_every_module_of_the_pictures_is_in_the_pipeline() -> None:
    modules = {p.stem for p in VIZ.glob("*.py")} - {"__init__"}
    assert modules == set(ORDER)


def test_each_module_imports_only_the_ones_below_it() -> None:
    graph = {name: viz_imports(VIZ / f"{name}.py") for name in ORDER}
    upward = [
        f"{name} imports {other}"
        for name, imported in graph.items()
        for other in imported
        if ORDER.index(other) >= ORDER.index(name)
    ]
    assert upward == []  # (a strict order: no cycle either)
    assert graph == {  # the pipeline as it is, to notice a new edge
        "chains": set(),
        "graph_model": {"chains"},
        "boxes": {"graph_model"},
        "box_views": {"boxes", "graph_model"},
        "layout": {"box_views", "boxes", "graph_model"},
        "dot": {"graph_model"},
        "forward_mode": {"graph_model"},
        "mistakes": {"graph_model"},
        "mistake_examples": set(),
        "page": {"boxes", "graph_model"},
        "explorer": {
            "boxes",
            "chains",
            "dot",
            "graph_model",
            "layout",
            "mistake_examples",
            "mistakes",
            "page",
        },
        "recorder": {"page"},
    }


def test_the_import_check_sees_upward_and_lazy_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from .layout import x\nfrom . import page\ndef f():\n    from micrograd.viz.explorer import y\n"
        "    import micrograd.viz.dot\n"
    )
    assert viz_imports(probe) == {"layout", "page", "explorer", "dot"}


def test_explore_is_a_short_entry_that_calls_the_stages_in_order() -> None:
    source = inspect.getsource(explorer_module.page)
    stages = ["graph_model(", "model.backward()", "trace_data(", "boxes_of(", "box_svgs(", "explorer_page("]
    places = [source.index(stage) for stage in stages]
    assert places == sorted(places)
    assert len(source.splitlines()) <= 40


def _long_functions(path: Path, limit: int = 60) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            doc = node.body[0] if node.body else None
            if (
                isinstance(doc, ast.Expr)
                and isinstance(doc.value, ast.Constant)
                and isinstance(doc.value.value, str)
            ):
                lines -= (doc.end_lineno or doc.lineno) - doc.lineno + 1
            if lines > limit:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    return out


@pytest.mark.parametrize(
    "path",
    [
        *sorted(VIZ.glob("*.py")),
        ROOT / "micrograd" / "scopes.py",
        ROOT / "micrograd" / "files.py",
    ],
    ids=lambda p: p.name,
)
def test_no_function_is_over_60_lines(path: Path) -> None:
    assert _long_functions(path) == []


def test_value_op_and_children_are_the_graphs_public_read_only_view() -> None:
    from micrograd import Value, no_grad

    x = Value(2.0)
    y = x * 3
    assert (y.op, y.children[0], x.op, x.children) == ("*", x, "", ())
    assert y.children == y._prev and y.children[1].op == "(constant)"  # a leaf the engine made
    with no_grad():
        z = x * x
    assert (z.op, z.children) == ("(no_grad)", ())  # (the graph model's role(): both constants)
    with pytest.raises(AttributeError):
        y.op = "+"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        y.children = ()  # type: ignore[misc]


# Break-it mode simulates a hand-written backward pass (a rule's closure, _prev as micrograd names
# it): the one module of the pictures that reads the engine's private slots.
PRIVATE_READERS = {"mistakes"}


def test_the_pictures_read_graphs_through_value_op_and_children() -> None:
    private = {"_prev", "_op", "_fn", "_extra"}
    found = [
        f"{path.name}:{node.lineno} .{node.attr}"
        for path in sorted(VIZ.glob("*.py"))
        if path.stem not in PRIVATE_READERS
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in private
    ]
    assert found == []
