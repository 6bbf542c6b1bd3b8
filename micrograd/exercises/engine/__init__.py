"""``check_engine``'s modules: grading a learner's whole ``Value`` class (``check``, the op grader,
is the folder above). ``check`` runs the plan, ``cases`` and ``models`` hold what it builds,
``refs`` the answers expected, ``child`` runs the learner's class and sends raw numbers, ``run``
and ``answers`` read them, ``evaluate`` and ``lines`` decide; ``recorded`` splits the two halves for a
browser with no fork (the playground's lab: ``record`` where the learner's code runs,
``grade_recorded`` where it never does). ``micrograd.exercises.check_engine`` is the entry.

May import: what ``micrograd.exercises`` may (``engine``, ``ops``, ``func.reverse``, ``math``),
and the exercises' own modules.
"""
