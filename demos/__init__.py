"""The demos, as the repository runs them (``make demo``, ``python -m demos.<name>``, CI).

Each module here is the demo of the same name in ``micrograd.demos`` (the code, shipped in the
wheel): ``import demos.moons`` gives that very module, and ``python -m demos.moons`` (or
``python demos/moons.py``) runs it.
"""
