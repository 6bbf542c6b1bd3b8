"""The engine's machinery, private to ``micrograd``: what ``engine.py`` stands on but a reader of the
chain rule need not open.

``context`` (the ``ctx`` an op's rules get), ``nodes`` (what few nodes carry besides their
numbers: labels, hooks, a kept context; and the errors about nodes), ``hooks`` (gradient hooks),
``grad_mode`` (``no_grad``, ``detect_anomaly``, the per-thread switches), ``coerce`` (numbers in,
numbers out, with clear errors), ``bookkeeping`` (``backward()``'s adding into ``.grad`` and its
pause of the garbage collector), ``value_methods`` (the attached methods' types, generated),
``name_clash_warning`` (the warning when karpathy's micrograd shares the environment).

May import: the standard library, and ``micrograd.math`` for the float math.  Nothing above the
engine (ops, func, compile, viz, exercises, nn) and nothing outside ``micrograd`` imports from here.
"""
