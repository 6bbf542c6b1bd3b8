"""The engine's own ops, specialised to floats: a speed trick of the engine's float path.

Each op writes ``forward`` and ``backward`` once, for floats, Values and arrays
alike.  On floats, three things cost more than the arithmetic: filling a Context
for every node so that ``backward`` can read ``ctx.inputs`` and ``ctx.output``,
calling ``where``, and calling ``forward`` at all.  So the same source is rewritten:

- ``backward_on_floats``: ``backward(ctx, g)`` becomes ``rule(g, output, *inputs)``,
  where ``ctx.inputs`` is the inputs' parameters and ``ctx.output`` the output's;
- ``inline_forward``: in the engine's methods that build a node (``Value.__mul__``,
  ``relu``, ``micrograd.dot``, ...), the call of the op's ``forward`` becomes the
  expression that ``forward`` returns;
- all: ``where(cond, a, b)`` (``micrograd.math.where``) becomes ``a if cond else b``:
  on floats ``cond`` is a bool, and the float math returns inf or nan rather than
  raising, so skipping the branch not taken changes nothing but the time.

The rewrite is mechanical and compiled against the op's own module and line
numbers (a traceback points at the real source); the tests check every rewritten
op against the source it came from, bit for bit.  What cannot be rewritten (a
``backward`` that reads anything else of ``ctx``, or code whose source is not
available) is not: ``backward_on_floats`` returns None and the engine calls the
op's own ``backward`` with a Context, as for any other op; ``inline_forward``
leaves the call in place.

>>> def forward(ctx, a, b):
...     return a * b
>>> def backward(ctx, g):
...     a, b = ctx.inputs
...     return g * b, g * a
>>> rule = backward_on_floats(forward, backward)
>>> rule(10.0, 6.0, 2.0, 3.0)   # grad_output, output, then the inputs
(30.0, 20.0)
"""

from __future__ import annotations
import __future__

import ast
import copy
import functools
import inspect
import textwrap
from collections.abc import Callable
from types import CodeType
from typing import Any, TypeVar

from .math import where

_OUTPUT = "_output"  # the parameters the rewrite adds (underscored: an op's own names keep theirs)
_INPUTS = "_inputs"  # the inputs of an op that takes any number of them, as one tuple

Fn = Callable[..., Any]
F = TypeVar("F", bound=Fn)


def forward_on_floats(forward: Fn) -> Fn:
    """``forward`` with ``where`` inlined, or ``forward`` itself if there is nothing to gain."""
    tree = _tree(forward)
    if tree is None:
        return forward
    rewrite = _Rewrite(None, None, _inlines_where(forward))
    tree.body = [rewrite.visit(stmt) for stmt in tree.body]
    return _compiled(tree, forward, f"{forward.__qualname__} (on floats)") if rewrite.changed else forward


def backward_on_floats(forward: Fn, backward: Fn) -> Fn | None:
    """``backward(ctx, g)`` rewritten as ``rule(g, output, *inputs)``, with as many inputs
    as ``forward(ctx, *inputs)`` takes, or None when it cannot be."""
    takes = getattr(forward, "__code__", None)
    tree = _tree(backward)
    if takes is None or tree is None or len(tree.args.args) != 2:
        return None
    n_inputs = None if takes.co_flags & inspect.CO_VARARGS else takes.co_argcount - 1
    inputs = None if n_inputs is None else [f"_input{i}" for i in range(n_inputs)]
    ctx, grad = (a.arg for a in tree.args.args)
    rewrite = _Rewrite(ctx, inputs, _inlines_where(backward))
    tree.body = [rewrite.visit(stmt) for stmt in tree.body]
    if rewrite.refused:
        return None
    tree.args = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(grad), ast.arg(_OUTPUT)] + [ast.arg(name) for name in inputs or ()],
        vararg=ast.arg(_INPUTS) if inputs is None else None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )
    tree.returns = None
    return _compiled(tree, backward, f"{backward.__qualname__} (on floats)")


def inline_forward(func: F, forward: Fn, name: str = "forward") -> F:
    """``func`` with each call ``name(ctx, *args)`` replaced by what the op's ``forward``
    returns, its parameters bound to the arguments: no call per node.  ``func`` itself when
    ``forward`` is not one ``return`` of an expression, or an argument is more than a name,
    an attribute or a constant (it could then be computed twice), or a name would clash.

    >>> def forward(ctx, a, b):
    ...     return a * b
    >>> def area(w, h):
    ...     return forward(None, w, h)
    >>> inline_forward(area, forward)(3.0, 4.0), "forward" in inline_forward(area, forward).__code__.co_names
    (12.0, False)
    """
    ftree, tree = _tree(forward), _tree(func)
    if ftree is None or tree is None or forward.__globals__ is not func.__globals__:
        return func
    ftree.body = [_Rewrite(None, None, _inlines_where(forward)).visit(stmt) for stmt in ftree.body]
    body = ftree.body[1:] if ast.get_docstring(ftree) is not None else ftree.body
    args = ftree.args
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None or args.vararg:
        return func
    ctx, *params = (a.arg for a in args.args)
    expression = body[0].value
    free = {n.id for n in ast.walk(expression) if isinstance(n, ast.Name)} - set(params)
    taken = {
        n.id if isinstance(n, ast.Name) else n.arg
        for n in ast.walk(tree)
        if isinstance(n, (ast.Name, ast.arg))
    }
    if ctx in free or free & taken:  # a name forward reads that means something else in func
        return func
    inliner = _Inline(name, params, expression)
    tree = inliner.visit(tree)
    return _compiled(tree, func, func.__qualname__) if inliner.inlined else func  # type: ignore[return-value]


def _tree(func: Fn) -> ast.FunctionDef | None:
    """The definition of ``func``, if its source is there and it is a plain function."""
    code = getattr(func, "__code__", None)
    if code is None:
        return None
    source = _source(code)
    if source is None:
        return None
    tree = ast.parse(source).body[0]
    if not isinstance(tree, ast.FunctionDef) or tree.args.kwonlyargs:
        return None
    if not all(isinstance(d, ast.Constant) for d in tree.args.defaults):
        return None  # (defaults are computed again: only constants come out the same)
    ast.increment_lineno(tree, code.co_firstlineno - 1)  # both count from the first decorator
    tree.decorator_list = []
    return tree


@functools.cache
def _source(code: CodeType) -> str | None:
    """The source of the function with this code, dedented; read once per code object (the
    methods of every op share one), or None when it is not there (frozen, typed at the prompt)."""
    try:
        return textwrap.dedent(inspect.getsource(code))
    except (OSError, TypeError):
        return None


def _compiled(tree: ast.FunctionDef, original: Fn, qualname: str) -> Fn:
    """``tree`` compiled in ``original``'s module and file, with ``original``'s closure."""
    freevars = original.__code__.co_freevars
    body: list[ast.stmt] = [tree]
    if freevars:  # a closure: made again inside a function that takes its variables
        outer = ast.parse(f"def _closure({', '.join(freevars)}):\n    return {tree.name}").body[0]
        assert isinstance(outer, ast.FunctionDef)
        outer.body.insert(0, tree)
        body = [ast.copy_location(outer, tree)]
    module = ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))
    namespace: dict[str, Any] = {}
    code = compile(
        module,
        original.__code__.co_filename,
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    exec(code, original.__globals__, namespace)
    if freevars:
        cells = original.__closure__ or ()
        func: Fn = namespace["_closure"](*[cell.cell_contents for cell in cells])
    else:
        func = namespace[tree.name]
    func.__qualname__ = qualname
    return func


def _inlines_where(func: Fn) -> bool:
    return func.__globals__.get("where") is where


class _Rewrite(ast.NodeTransformer):
    """``ctx.inputs`` and ``ctx.output`` to parameters (``ctx`` None: leave ctx alone), and
    ``where(c, a, b)`` to ``a if c else b`` (if ``where`` is micrograd.math's)."""

    def __init__(self, ctx: str | None, inputs: list[str] | None, inline_where: bool) -> None:
        self.ctx, self.inputs, self.inline_where = ctx, inputs, inline_where
        self.refused = self.changed = False

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if self.ctx is not None and isinstance(node.value, ast.Name) and node.value.id == self.ctx:
            self.changed = True
            if node.attr == "output":
                return ast.copy_location(ast.Name(_OUTPUT, ast.Load()), node)
            if node.attr == "inputs" and self.inputs is None:
                return ast.copy_location(ast.Name(_INPUTS, ast.Load()), node)
            if node.attr == "inputs":
                names: list[ast.expr] = [ast.Name(name, ast.Load()) for name in self.inputs or ()]
                return ast.copy_location(ast.Tuple(names, ast.Load()), node)
            self.refused = True  # saved_tensors, needs_input_grad, an attribute forward set
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.ctx:  # ctx itself passed on or stored: not rewritten
            self.refused = True
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not (self.inline_where and isinstance(node.func, ast.Name) and node.func.id == "where"):
            return node
        if len(node.args) != 3 or node.keywords:
            return node
        self.changed = True
        cond, a, b = node.args
        return ast.copy_location(ast.IfExp(cond, a, b), node)


class _Inline(ast.NodeTransformer):
    """Each call ``name(ctx, *args)`` to ``expression`` with ``params`` bound to ``args``."""

    def __init__(self, name: str, params: list[str], expression: ast.expr) -> None:
        self.name, self.params, self.expression = name, params, expression
        self.inlined = False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Name) and node.func.id == self.name):
            return node
        args = node.args[1:]
        simple = (ast.Name, ast.Attribute, ast.Constant)
        if node.keywords or len(args) != len(self.params) or not all(isinstance(a, simple) for a in args):
            return node
        self.inlined = True
        inlined: ast.expr = _Bind(dict(zip(self.params, args))).visit(copy.deepcopy(self.expression))
        return ast.copy_location(inlined, node)


class _Bind(ast.NodeTransformer):
    """Each name of ``bound`` to (a copy of) its expression."""

    def __init__(self, bound: dict[str, ast.expr]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.bound.get(node.id)
        return node if value is None else copy.deepcopy(value)
