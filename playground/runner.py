"""What the docs site's playground runs for the code in its editor (in Pyodide, in a Web Worker).

Not part of the packages (micrograd and nn never run code they are given): the playground's
build copies this file beside the page, and the page's worker imports it in Pyodide.

``run(source)`` executes the code as a script (``Value`` already imported), with its
printed output captured, and returns a dict the page shows: ``output`` (everything
printed), ``error`` (the traceback, the playground's own frames left out, or None),
``shown`` (the Value explored: ``name``, ``data``, ``grad``, the explorer's ``html``, or
None), ``note`` (why nothing is explored, or None) and ``values`` (``[name, data, grad]``
for every Value bound to a name, the numbers as Python writes them).

The Value explored is the one bound to ``show`` if there is one; else the value of the
code's last line if it is an expression giving a Value; else the Value bound by the last
top-level assignment.  Values bound to names and without a label are labelled with their
names, as the lecture writes ``Value(2.0, label="a")``.  The explorer's page comes from
``micrograd.explore`` with its built-in layout (no Graphviz in a browser).

>>> r = run("a = Value(2.0); b = a * a; b.backward(); print(a.grad)")
>>> r["output"], r["error"], r["shown"]["name"], r["values"]
('4.0\\n', None, 'b', [['a', '2.0', '4.0'], ['b', '4.0', '1.0']])
>>> run("1 / 0")["error"].splitlines()[-1]
'ZeroDivisionError: division by zero'
"""

from __future__ import annotations

import ast
import contextlib
import io
import linecache
import traceback
from typing import Any

from micrograd import Value, explore
from micrograd.viz import DEFAULT_MAX_NODES, GraphTooLargeError

__all__ = ["FILENAME", "run"]

#: The editor's code as tracebacks name it.
FILENAME = "<playground>"

#: At most this many characters of printed output are kept (a loop printing forever stops being shown).
MAX_OUTPUT = 200_000


class _Capped(io.StringIO):
    def write(self, s: str) -> int:
        if self.tell() < MAX_OUTPUT:
            super().write(s[: MAX_OUTPUT - self.tell()])
        return len(s)


def _traceback(exc: BaseException) -> str:
    """The traceback from the editor's code on: the playground's own frames are not the user's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != FILENAME:
        tb = tb.tb_next
    if isinstance(exc, SyntaxError):
        tb = None  # the code never ran: the error's own lines say where
    return "".join(traceback.format_exception(type(exc), exc, tb))


def _assigned(stmt: ast.stmt) -> list[str]:
    """The names a top-level statement binds, last first."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    names: list[str] = []
    for t in targets:
        for node in ast.walk(t):
            if isinstance(node, ast.Name):
                names.append(node.id)
    return names[::-1]


def _pick(tree: ast.Module, namespace: dict[str, Any], last: object) -> tuple[str, Value] | None:
    shown = namespace.get("show")
    if isinstance(shown, Value):
        return "show", shown
    if isinstance(last, Value):
        return (last.label or "the last line's value"), last
    for stmt in reversed(tree.body):
        for name in _assigned(stmt):
            value = namespace.get(name)
            if isinstance(value, Value):
                return name, value
    return None


def run(source: str, max_nodes: int = DEFAULT_MAX_NODES) -> dict[str, Any]:
    """Run the editor's code and return what the page shows (see the module docstring)."""
    namespace: dict[str, Any] = {"__name__": "__main__", "Value": Value}
    out = _Capped()
    result: dict[str, Any] = {"output": "", "error": None, "shown": None, "note": None, "values": []}
    lines = source.splitlines(keepends=True)
    linecache.cache[FILENAME] = (len(source), None, lines, FILENAME)
    tree: ast.Module | None = None
    last: object = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            tree = ast.parse(source, FILENAME)
            body = tree.body
            final = body[-1] if body and isinstance(body[-1], ast.Expr) else None
            head = ast.Module(body=body[:-1] if final else body, type_ignores=[])
            exec(compile(head, FILENAME, "exec"), namespace)
            if final is not None:
                last = eval(compile(ast.Expression(final.value), FILENAME, "eval"), namespace)
    except BaseException as exc:
        result["error"] = _traceback(exc)
    result["output"] = out.getvalue()
    for name, value in namespace.items():
        if isinstance(value, Value) and not name.startswith("__"):
            if not value.label:
                value.label = name
            result["values"].append([name, repr(value.data), repr(value.grad)])
    if tree is None:
        return result
    picked = _pick(tree, namespace, last)
    if picked is None:
        result["note"] = "No Value to explore: bind one to a name (or to `show`), or end with an expression."
        return result
    name, root = picked
    try:
        page = explore(root, max_nodes=max_nodes, layout="builtin")
    except GraphTooLargeError as exc:
        result["note"] = f"{name}: {exc}"
        return result
    except Exception:
        result["note"] = f"{name} could not be explored:\n{traceback.format_exc()}"
        return result
    result["shown"] = {
        "name": name,
        "data": root.data,
        "grad": root.grad,
        "html": page.html,
        "title": page.title,
    }
    return result
