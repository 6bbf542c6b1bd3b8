"""The demos: applications of ``micrograd`` and ``nn`` that write PNGs, run from a clone of the
repository as ``python -m demos.<name> --out DIR`` (``make demo`` runs the first, ``make demos`` all).

* ``moons``      - micrograd's headline: an MLP learns two moons (decision boundary, curves, a neuron's graph)
* ``spirals``    - three-class spirals with softmax cross-entropy and Adam (decision regions, curves)
* ``derivative`` - f(x) = x^3 + x and its derivative from the engine over [-3, 3], and f's graph at 1.2
* ``sine_model`` - a three-weight model fitted to 4 sin(x^4) by plain SGD (loss curve, fit, graph)
* ``forward_vs_reverse`` - forward and reverse mode timed against the number of inputs, and Newton's method
* ``digits``     - scikit-learn's 8x8 digits, an MLP trained eagerly or compiled
* ``names_gpt``  - microgpt's model (``nn.GPT``) learning to make up names
* ``check_pngs`` - CI's check that every PNG a demo wrote is a real, sensibly sized image

They sit above both packages: nothing in ``micrograd`` or ``nn`` imports them, and the wheel does
not install them (they need matplotlib, scikit-learn and the names data; the engine needs nothing).
"""
