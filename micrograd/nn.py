"""micrograd 0.1.0's ``micrograd.nn``, kept for code written against it: an alias
of the top-level ``nn`` package.

>>> from micrograd.nn import MLP
>>> import random; random.seed(1337)
>>> len(MLP(2, [16, 16, 1]).parameters())
337
"""

from nn import MLP, Layer, Module, Neuron

__all__ = ["MLP", "Layer", "Module", "Neuron"]
