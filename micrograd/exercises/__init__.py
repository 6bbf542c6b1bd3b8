"""Exercises that check themselves: ``check(fn, like=...)`` tells a student whether the op they
wrote is right, point by point, and why not.

The modules, in the order ``check`` uses them:

* ``grading``: ``check`` itself, which runs the steps below in order;
* ``inputs``: ``check``'s arguments, each checked, as the points and domain to try;
* ``references``: the built-in ops a student's op is checked against (their rules as the
  package defines them, whatever the student patched since), with their domains, derivatives
  and the usual mistakes;
* ``op_refs``: the reference's value, gradient and second derivatives at every case, computed
  before the student's code runs once;
* ``running``: each call of the student's forward and backward, under the time limit
  (``time_limit``), with the arithmetic errors Python's math raises kept as answers;
* ``op_calls``: the student's op's raw numbers (values, gradients, what it raised), from this
  process, or on Linux from a forked child (``forked``, ``isolation``) asked for each number in
  turn and killed when a call runs past the limit; its answers are read bounded and checked
  for their shape, and a missing, extra or malformed one is WRONG;
* ``first_order``, ``chain_rule``, ``second_order``: the checks, one line each, decided from
  those numbers where the student's code never runs;
* ``compare`` and ``hints``: closeness, edge cases, central differences, and what a failed
  line says;
* ``result``: ``CheckLine`` and ``CheckResult``, printed in a terminal, a table in Jupyter.

``check_engine(Value)`` grades a learner's whole ``Value`` class, written from scratch: its ops,
``backward()``'s structure, the lecture's expressions, an MLP step and microgpt.  Its modules are
the subfolder ``engine/``:

* ``engine.check``: ``check_engine`` itself: the plan of lines and cases, each line shown as decided;
* ``engine.cases`` and ``engine.models``: the expressions and the two models it builds, the
  expressions written in ``formulas``' small language (parsed, never ``eval``'d);
* ``engine.refs``: the answers expected, from the package's rules frozen at import;
* ``engine.child``: what runs the learner's class (a forked child on Linux), sending raw numbers;
* ``channel``, ``forked``, ``engine.run`` and ``engine.answers``: the pipe of JSON lines and the
  child behind it (shared with ``check``), the reading of it case by case under the time
  limits, and each answer's shape checked;
* ``engine.evaluate`` and ``engine.lines``: the comparisons and the lines, decided where the
  learner's code never runs.

May import: ``engine``, ``ops``, ``func.reverse``, ``math`` and ``IPython`` (a result's table in
Jupyter); nothing above them (never
``nn``, the pictures or ``compile``).  Nothing in ``micrograd`` imports this package: it loads
on first use of ``micrograd.exercises``.

>>> from micrograd.exercises import check
>>> result = check(lambda x: x.tanh(), like="tanh", quiet=True)
>>> result.verdict
'RIGHT'
"""

from .engine.check import check_engine
from .grading import CheckLine, CheckResult, check
from .result import EngineResult

__all__ = ["CheckLine", "CheckResult", "EngineResult", "check", "check_engine"]
