"""Neural networks on top of micrograd's ``Value``: modules, losses, optimizers, data.

>>> from nn import MLP, losses, optim, datasets
>>> X, y = datasets.make_moons(20, noise=0.1, seed=0)
>>> model = MLP(2, [8, 1], seed=0)
>>> opt = optim.SGD(model.parameters(), lr=0.1)
>>> loss = losses.hinge([model(x) for x in X], y)
>>> opt.zero_grad(); loss.backward(); opt.step()

Modules, each one thing: ``module`` (Module: parameters, state_dict),
``layers`` (Neuron, Layer, MLP), ``losses``, ``metrics`` (accuracy), ``optim``
(SGD, Adam, AdamW), ``datasets`` (moons, circles, spirals, digits, names,
train_test_split), ``io`` (save and load), ``torch_interop`` (to_torch, from_torch;
needs PyTorch), ``transformer`` (Embedding, Linear, RMSNorm, attention, MLP block),
``gpt`` (karpathy's microgpt: GPT, CharTokenizer) and ``gpt_torch`` (that GPT as a
``torch.nn.Module``, for ``GPT.to_torch()`` and ``GPT.from_torch()``; needs PyTorch).

May import: ``micrograd`` (its public names), ``micrograd.ops``, ``micrograd.func``,
``micrograd.compiler`` (a compiled GPT step's watch on its parameters), ``micrograd.scopes``
(named boxes for the explorer), ``micrograd.files``, and ``numpy``, ``torch``
and ``sklearn`` where a model or a data set asks for them; never the pictures (micrograd.viz: nn is
a model library, above the engine and beside the pictures) nor micrograd's private parts.
"""

from . import datasets, gpt, io, losses, metrics, optim, transformer
from .gpt import GPT, CharTokenizer
from .io import ModelFileError
from .layers import MLP, Layer, Neuron
from .metrics import accuracy
from .module import Module
from .transformer import CausalSelfAttention, Embedding, KVCache, Linear, MLPBlock, RMSNorm

__all__ = [
    "GPT",
    "MLP",
    "CausalSelfAttention",
    "CharTokenizer",
    "Embedding",
    "KVCache",
    "Layer",
    "Linear",
    "MLPBlock",
    "ModelFileError",
    "Module",
    "Neuron",
    "RMSNorm",
    "accuracy",
    "datasets",
    "gpt",
    "io",
    "losses",
    "metrics",
    "optim",
    "transformer",
]
