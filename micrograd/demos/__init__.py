"""Demos that write PNGs: run each as ``python -m micrograd.demos.<name> --out DIR`` (in a clone of the
repository also ``python -m demos.<name>`` or ``make demo``).

* ``moons``      - micrograd's headline: an MLP learns two moons (decision boundary, curves, a neuron's graph)
* ``spirals``    - three-class spirals with softmax cross-entropy and Adam (decision regions, curves)
* ``derivative`` - f(x) = x^3 + x and its derivative from the engine over [-3, 3], and f's graph at 1.2
* ``sine_model`` - a three-weight model fitted to 4 sin(x^4) by plain SGD (loss curve, fit, graph)
* ``check_pngs`` - CI's check that every PNG a demo wrote is a real, sensibly sized image
"""
