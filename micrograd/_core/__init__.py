"""The engine's machinery, private to ``micrograd``: what ``engine.py`` stands on but a reader of the
chain rule need not open.

``context`` (the ``ctx`` an op's rules get), ``nodes`` (what few nodes carry besides their
numbers: labels, hooks, a kept context; and the errors about nodes), ``hooks`` (gradient hooks),
``grad_mode`` (``no_grad``, ``detect_anomaly``, the per-thread switches), ``coerce`` (numbers in,
numbers out, with clear errors), ``bookkeeping`` (``backward()``'s adding into ``.grad`` and its
pause of the garbage collector), ``value_methods`` (the attached methods' types, generated),
``name_clash_warning`` (the warning when karpathy's micrograd shares the environment).

May import: ``math`` (the float math) and ``numpy`` (the bookkeeping's rules on arrays, when a
compiled step's gradients arrive); the standard library otherwise.

Imported by ``engine.py``, which stands on it, and by the layers that extend the engine itself:
``ops`` (ctx, numbers in, grad modes), ``math.generic`` (numbers in), ``func`` (reverse mode's
bookkeeping, the transforms' tracing), ``compiler`` (ctx, nodes, bookkeeping), ``scopes`` (the
per-thread scope stacks) and ``micrograd/__init__.py`` (the public names it re-exports: ``Context``,
``no_grad`` and the grad modes, ``RemovableHandle``).  Never by the layers that only use the
engine: the pictures (viz), the exercises, ``nn`` and anything outside ``micrograd`` read its
public API instead (``tests/test_package_layout.py`` checks each folder's "May import" line).
"""
