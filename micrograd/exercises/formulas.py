"""The small language ``check_engine``'s expressions are written in, read without ``eval``: numbers,
names, ``+ - * / **``, unary ``-``, parentheses and the calls ``exp()``, ``tanh()``, ``relu()`` and
``log()``, with Python's precedence (``-a ** 2`` is ``-(a ** 2)``, ``a ** -1`` a power of -1).

A formula is parsed once into a tree of tuples; ``evaluate`` runs it with the learner's Values
or ours (through the very operators Python would call, reflected ones included), and
``methods`` lists the methods of Value it needs, outermost first.

>>> tree = parse("2.0 * tanh(a) - b")
>>> methods(tree)
['__sub__', '__rmul__', 'tanh']
>>> evaluate(tree, {"a": 0.0, "b": 1.0}, {"tanh": lambda x: x})
-1.0
"""

from __future__ import annotations

import operator
import re
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

# symbol -> (its operator, the method, the reflected method: the one Python calls for ``2.0 + a``)
BINARY: dict[str, tuple[Callable[[Any, Any], Any], str, str]] = {
    "+": (operator.add, "__add__", "__radd__"),
    "-": (operator.sub, "__sub__", "__rsub__"),
    "*": (operator.mul, "__mul__", "__rmul__"),
    "/": (operator.truediv, "__truediv__", "__rtruediv__"),
    "**": (operator.pow, "__pow__", "__rpow__"),
}
TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|([A-Za-z_]\w*)|(\*\*|[-+*/(),]))")
Tree = tuple[Any, ...]  # ("num", x) | ("name", n) | ("neg", t) | ("call", f, t) | (symbol, left, right)


def tokens(text: str) -> list[str | float]:
    out: list[str | float] = []
    at, text = 0, text.rstrip()
    while at < len(text):
        m = TOKEN.match(text, at)
        if m is None or m.end() == at:
            raise ValueError(f"cannot read the formula {text!r} at {text[at:]!r}")
        number, name, symbol = m.groups()
        out.append(float(number) if number is not None else name or symbol)
        at = m.end()
    return out


def parse(text: str) -> Tree:
    """The tree of ``text``: sums of products of (signed) powers of atoms, as Python reads them."""
    items = deque(tokens(text))

    def peek() -> str | float | None:
        return items[0] if items else None

    def take(expected: str) -> None:
        if peek() != expected:
            raise ValueError(f"the formula {text!r} expects {expected!r}, found {peek()!r}")
        items.popleft()

    def chain(lower: Callable[[], Tree], symbols: tuple[str, ...]) -> Tree:
        tree = lower()
        while peek() in symbols:
            tree = (items.popleft(), tree, lower())
        return tree

    def unary() -> Tree:
        if peek() == "-":
            items.popleft()
            return ("neg", unary())
        left = atom()
        if peek() == "**":  # right-associative, and binds tighter than a unary minus on its left
            items.popleft()
            return ("**", left, unary())
        return left

    def atom() -> Tree:
        item = items.popleft() if items else None
        if isinstance(item, float):
            return ("num", item)
        if item == "(":
            inner = chain(lambda: chain(unary, ("*", "/")), ("+", "-"))
            take(")")
            return inner
        if isinstance(item, str) and (item[0].isalpha() or item[0] == "_"):
            if peek() != "(":
                return ("name", item)
            take("(")
            argument = chain(lambda: chain(unary, ("*", "/")), ("+", "-"))
            take(")")
            return ("call", item, argument)
        raise ValueError(f"the formula {text!r} has {item!r} where a number, a name or ( belongs")

    tree = chain(lambda: chain(unary, ("*", "/")), ("+", "-"))
    if items:
        raise ValueError(f"the formula {text!r} has {peek()!r} left over")
    return tree


def evaluate(tree: Tree, names: Mapping[str, Any], functions: Mapping[str, Callable[[Any], Any]]) -> Any:
    """``tree`` computed with ``names`` (Values or numbers) and ``functions`` for the calls."""
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "name":
        return names[tree[1]]
    if kind == "neg":
        return operator.neg(evaluate(tree[1], names, functions))
    if kind == "call":
        return functions[tree[1]](evaluate(tree[2], names, functions))
    apply = BINARY[kind][0]
    return apply(evaluate(tree[1], names, functions), evaluate(tree[2], names, functions))


def _constant(tree: Tree) -> bool:
    return tree[0] == "num" or (tree[0] == "neg" and _constant(tree[1]))


def methods(tree: Tree) -> list[str]:
    """The methods of Value the formula calls, outermost first, each once (``2.0 + a``: ``__radd__``;
    ``-1``, a number, none)."""
    found: list[str] = []
    queue = deque([tree])
    while queue:
        node = queue.popleft()
        kind, method = node[0], None
        if kind in BINARY:
            _, plain, reflected = BINARY[kind]
            method = reflected if _constant(node[1]) else plain
            queue.extend(node[1:])
        elif kind == "neg":
            method = None if _constant(node[1]) else "__neg__"
            queue.append(node[1])
        elif kind == "call":
            method = node[1]
            queue.append(node[2])
        if method is not None and method not in found:
            found.append(method)
    return found


def names(tree: Tree) -> list[str]:
    """The names a formula reads, in the order they appear (with repeats)."""
    if tree[0] == "name":
        return [tree[1]]
    if tree[0] == "num":
        return []
    return [name for part in tree[1:] if isinstance(part, tuple) for name in names(part)]
