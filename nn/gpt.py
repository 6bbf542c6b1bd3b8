"""karpathy's microgpt as modules: ``GPT`` and its ``CharTokenizer``.

The architecture and initialisation are microgpt's: token and position embeddings
(``wte``, ``wpe``), rmsnorm, per layer causal multi-head attention and a ReLU MLP
(each after an rmsnorm, each added to its input), and ``lm_head``; every weight
drawn from N(0, 0.08) in microgpt's order, no biases.  ``GPT.from_microgpt``
takes microgpt's own ``state_dict`` and shares its very Values, so a microgpt
student can swap this model into their training loop.

>>> tok = CharTokenizer.from_docs(["ab", "ba"])
>>> model = GPT(tok.vocab_size, block_size=4, n_layer=1, n_embd=4, n_head=2, seed=0)
>>> loss = model.loss(tok.document("ab"))
>>> loss.backward()
>>> round(loss.data, 3) > 0, model.wte.weight[0][0].grad != 0.0
(True, True)
"""

from __future__ import annotations

import itertools
import math
import numbers
import random
import re
import reprlib
import sys
import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, Literal, TypeVar, overload

import micrograd
from micrograd import Value, no_grad
from micrograd.ops import Pick
from micrograd.scopes import scope

from .module import Module
from .transformer import (
    CausalSelfAttention,
    Embedding,
    KVCache,
    Linear,
    Matrix,
    MLPBlock,
    RMSNorm,
    Vector,
    check_matrix,
    check_size,
    softmax,
)

Token = int | Value


class CharTokenizer:
    """Characters to token ids and back, microgpt's way: the sorted characters of the data
    are ids 0..n-1 and one more id, ``bos``, marks where a document begins and ends.

    >>> tok = CharTokenizer.from_docs(["emma", "ava"])
    >>> tok.chars, tok.bos, tok.document("ava")
    (['a', 'e', 'm', 'v'], 4, [4, 0, 3, 0, 4])
    >>> tok.decode([1, 2, 2, 0, 4])
    'emma'
    """

    def __init__(self, chars: Sequence[str]) -> None:
        chars = list(chars)
        if (
            not chars
            or not all(isinstance(c, str) and len(c) == 1 for c in chars)
            or len(set(chars)) < len(chars)
        ):
            raise ValueError(f"a CharTokenizer needs distinct single characters, got {chars[:10]!r}")
        self.chars = chars
        self.bos = len(chars)
        self.vocab_size = len(chars) + 1
        self.ids = {c: i for i, c in enumerate(chars)}

    @classmethod
    def from_docs(cls, docs: Iterable[str]) -> CharTokenizer:
        """The tokenizer of ``docs``: every character they use, sorted."""
        return cls(sorted(set("".join(docs))))

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``'s characters (no BOS)."""
        unknown = sorted(set(text) - set(self.ids))
        if unknown:
            raise ValueError(f"{text!r} has characters this tokenizer does not know: {unknown!r}")
        return [self.ids[c] for c in text]

    def document(self, text: str) -> list[int]:
        """``[BOS] + encode(text) + [BOS]``: a training document."""
        return [self.bos, *self.encode(text), self.bos]

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``, BOS left out."""
        out: list[str] = []
        for i in ids:
            if not isinstance(i, numbers.Integral) or not 0 <= i < self.vocab_size:
                raise ValueError(f"token id {i!r} is not in 0..{self.vocab_size - 1}")
            if i != self.bos:
                out.append(self.chars[i])
        return "".join(out)


class Block(Module):
    """One transformer layer: attention, then the MLP, each after an rmsnorm, each added to its input."""

    def __init__(self, n_embd: int, n_head: int, std: float, rng: random.Random) -> None:
        self.attn = CausalSelfAttention(n_embd, n_head, std=std, rng=rng)
        self.mlp = MLPBlock(n_embd, std=std, rng=rng)
        self.norm = RMSNorm(n_embd)

    def __call__(self, x: Vector, cache: KVCache, index: int) -> Vector:
        x = [a + b for a, b in zip(self.attn(self.norm(x), cache, index), x)]
        return [a + b for a, b in zip(self.mlp(self.norm(x)), x)]


LAYER_KEYS = ("attn_wq", "attn_wk", "attn_wv", "attn_wo", "mlp_fc1", "mlp_fc2")

# ---- checks of GPT's arguments ---------------------------------------------------------------
# The most parameters GPT allocates.  Each is a Value (about 113 bytes with its list slot), drawn
# one at a time, and a scalar engine takes minutes per step long before that: 10**7 is about
# 1.1 GB.  A bigger model is refused before allocating (GPT(5, 10**9) would fill the memory row
# by row); raise it here (nn.gpt.MAX_PARAMETERS = ...) if you really mean it.
MAX_PARAMETERS = 10**7
BYTES_PER_PARAMETER = 113


def parameter_count(vocab_size: int, block_size: int, n_layer: int, n_embd: int) -> int:
    """wte and lm_head (vocab x embd each), wpe (block x embd), and per layer four attention
    matrices (embd x embd) and the MLP's two (4 embd x embd).

    >>> parameter_count(27, 16, 1, 16)  # microgpt's names model
    4192
    """
    return n_embd * (2 * vocab_size + block_size) + n_layer * 12 * n_embd * n_embd


def check_affordable(vocab_size: int, block_size: int, n_layer: int, n_embd: int) -> None:
    n = parameter_count(vocab_size, block_size, n_layer, n_embd)
    if n > MAX_PARAMETERS:
        raise ValueError(
            f"GPT(vocab_size={vocab_size}, block_size={block_size}, n_layer={n_layer}, n_embd={n_embd}) "
            f"would have {n:,} parameters, about {n * BYTES_PER_PARAMETER / 1e9:,.1f} GB as Values, "
            f"more than {MAX_PARAMETERS:,} (nn.gpt.MAX_PARAMETERS); make the sizes smaller (microgpt's: "
            "block_size=16, n_layer=1, n_embd=16)"
        )


def check_std(std: object) -> None:
    if isinstance(std, bool) or not isinstance(std, numbers.Real) or not 0.0 <= float(std) < math.inf:
        raise ValueError(
            f"std must be a finite number >= 0 (the weights' standard deviation; microgpt's is 0.08), "
            f"got {std!r}"
        )


def check_finite_values(matrices: Mapping[str, Matrix], layers: Sequence[Mapping[str, Matrix]]) -> None:
    """A Value of nan or inf among the weights is refused, as the number nan is: a model that
    diverged in training gives nan losses from then on."""
    named = [
        *matrices.items(),
        *((f"layer{i}.{k}", m) for i, layer in enumerate(layers) for k, m in layer.items()),
    ]
    for name, matrix in named:
        for i, row in enumerate(matrix):
            for j, w in enumerate(row):
                if not math.isfinite(w.data):
                    raise ValueError(
                        f"{name}[{i}][{j}] is {w!r}: every weight must be finite; the model it came from "
                        "diverged (a smaller learning rate, or a checkpoint from before, will do)"
                    )


class GPT(Module):
    """microgpt's GPT: ``model(tokens)`` gives the logits at every position, causally.

    ``tokens`` are ids (ints, or Values holding them, which ``micrograd.compile``
    traces), at most ``block_size`` of them.  ``model.loss(tokens)`` is microgpt's
    loss, the mean over positions of ``-log softmax(logits)[next token]``.  An id out of
    the vocabulary, or a Value between two ids, is refused (it would give nan or a blend
    of rows), and so are sizes beyond ``MAX_PARAMETERS`` parameters, before allocating.

    >>> model = GPT(5, block_size=4, n_embd=4, n_head=2)
    >>> model.loss([Value(4.0), Value(9.0), Value(4.0)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: token id Value(data=9.0...) is not in the vocabulary 0..4: an id given as a Value must ...
    """

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        n_layer: int = 1,
        n_embd: int = 16,
        n_head: int = 4,
        seed: int | None = None,
        std: float = 0.08,
    ) -> None:
        for what, n in (("vocab_size", vocab_size), ("block_size", block_size), ("n_layer", n_layer)):
            check_size(what, n)
        check_size("n_embd", n_embd)
        check_size("n_head", n_head)
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be divisible by n_head ({n_head})")
        check_std(std)
        check_affordable(vocab_size, block_size, n_layer, n_embd)  # before a single weight is drawn
        rng = random.Random(seed)  # microgpt's order of draws: wte, wpe, lm_head, then layer by layer
        self.vocab_size, self.block_size, self.n_layer, self.n_embd, self.n_head = (
            vocab_size,
            block_size,
            n_layer,
            n_embd,
            n_head,
        )
        self.wte = Embedding(vocab_size, n_embd, std=std, rng=rng)
        self.wpe = Embedding(block_size, n_embd, std=std, rng=rng)
        self.lm_head = Linear(n_embd, vocab_size, bias=False, std=std, rng=rng)
        self.layers = [Block(n_embd, n_head, std, rng) for _ in range(n_layer)]
        self.norm = RMSNorm(n_embd)

    # ---- the forward pass ----------------------------------------------------------------

    def step(self, token: Token, cache: KVCache) -> Vector:
        """The logits after one more token, at position ``len(cache)``; the cache grows by one."""
        position = len(cache)
        if position >= self.block_size:
            raise ValueError(f"position {position} is past block_size ({self.block_size})")
        self._check_token(token)
        with scope(f"position {position}", owner=self, detail="GPT.step: embeddings, layers, lm_head"):
            x = self.norm([t + p for t, p in zip(self.wte(token), self.wpe(position))])
            for i, layer in enumerate(self.layers):
                x = layer(x, cache, i)
            cache.positions += 1
            return self.lm_head(x)

    def __call__(self, tokens: Sequence[Token]) -> list[Vector]:
        """The logits at each position of ``tokens`` (position t sees tokens 0..t)."""
        self._check_length(tokens, self.block_size, "tokens")
        for t in tokens:
            self._check_token(t)
        cache = KVCache(self.n_layer)
        return [self.step(t, cache) for t in tokens]

    def loss(self, tokens: Sequence[Token]) -> Value:
        """microgpt's loss on a document ``tokens`` (``[BOS] + ids + [BOS]``): the mean over its
        positions of ``-log softmax(logits)[next token]``."""
        losses = self.position_losses(tokens)
        loss = micrograd.sum(losses) * (1.0 / len(losses))
        loss.label = "loss"  # what explain, draw_dot and explore call it (a label set later wins)
        return loss

    def position_losses(self, tokens: Sequence[Token]) -> list[Value]:
        """The terms of ``loss(tokens)``: at each position, ``-log softmax(logits)[next token]``."""
        self._check_length(tokens, self.block_size + 1, "a document")
        self._check_has_a_target(tokens)
        for t in tokens:
            self._check_token(t)
        cache = KVCache(self.n_layer)
        losses: list[Value] = []
        for t, target in itertools.pairwise(tokens):
            logits = self.step(t, cache)
            with scope(f"loss at {len(losses)}", logits, detail="-log softmax(logits)[next token]"):
                probs = softmax(logits)
                picked = Pick.apply(target, *probs) if isinstance(target, Value) else probs[int(target)]
                losses.append(-picked.log())
        return losses

    @overload
    def compile_loss(self, batched: Literal[False] = False) -> CompiledLoss: ...

    @overload
    def compile_loss(self, batched: Literal[True]) -> BatchedLoss: ...

    def compile_loss(self, batched: bool = False) -> CompiledLoss | BatchedLoss:
        """``model.loss`` traced by ``micrograd.compile`` with the token ids as inputs, at two
        document lengths (``bucket_lengths``; made on first use, then kept; a document is replayed
        on the shorter that holds it, cut to its own length: ``CompiledLoss``): the same loss and
        gradients, bit for bit, as ``model.loss`` on the ids as Values, replayed with numpy.

        >>> model = GPT(3, block_size=4, n_embd=4, n_head=2, seed=0)
        >>> step = model.compile_loss()
        >>> loss = step.backward([2, 0, 1, 2])        # adds into each parameter's .grad
        >>> loss == model.loss([Value(2.0), Value(0.0), Value(1.0), Value(2.0)]).data
        True

        With ``batched=True`` (a ``BatchedLoss``), ``step.backward(docs)`` takes a list of
        documents of any lengths, runs them together (one trace per longest length), and leaves in
        ``.grad`` what the eager loop ``for d in docs: model.loss(d).backward()`` leaves, bit
        for bit; it returns the documents' losses, in order.

        >>> batch = model.compile_loss(batched=True)
        >>> losses = batch.backward([[2, 0, 1, 2], [2, 1, 2], [2, 0, 2]])
        >>> len(losses), losses[0] == loss
        (3, True)
        """
        return BatchedLoss(self) if batched else CompiledLoss(self)

    def attention(self, tokens: Sequence[int]) -> list[list[list[list[float]]]]:
        """The attention weights of each layer, position and head on ``tokens`` (position t's over
        positions 0..t), as numbers: ``attention(ids)[layer][t][head][s]``."""
        self._check_length(tokens, self.block_size, "tokens")
        cache = KVCache(self.n_layer, record=True)
        with no_grad():
            for t in tokens:
                self.step(t, cache)
        assert cache.weights is not None
        return cache.weights

    def generate(
        self, n: int, temperature: float = 0.5, seed: int | None = None, bos: int | None = None
    ) -> list[list[int]]:
        """``n`` samples, each the token ids drawn one at a time from ``softmax(logits / temperature)``
        after BOS, until BOS comes again or ``block_size`` tokens (BOS: the last id by default,
        the tokenizer's convention).  Decode them with ``CharTokenizer.decode``."""
        check_size("n", n)
        if not isinstance(temperature, numbers.Real) or not temperature > 0 or not math.isfinite(temperature):
            raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
        bos = self.vocab_size - 1 if bos is None else bos
        self._check_token(bos)
        rng = random.Random(seed)
        samples = []
        with no_grad():
            for _ in range(n):
                cache, token, sample = KVCache(self.n_layer), bos, []
                while len(cache) < self.block_size:
                    probs = softmax([logit / temperature for logit in self.step(token, cache)])
                    token = rng.choices(range(self.vocab_size), weights=[p.data for p in probs])[0]
                    if token == bos:
                        break
                    sample.append(token)
                samples.append(sample)
        return samples

    def _check_token(self, token: Token) -> None:
        """An id is an int in 0..vocab_size-1, or a Value holding one (as ``compile`` traces ids):
        an id out of range, or between two ids, would pick nan or a blend of rows, with no word."""
        if type(token) is int and 0 <= token < self.vocab_size:
            return  # (the common case first: a batched step checks every id of 16 names each step)
        if isinstance(token, Value):
            number = token.data  # the traced id's number now; CompiledLoss checks each replay's ids
            if not (math.isfinite(number) and number == int(number) and 0 <= number < self.vocab_size):
                raise ValueError(
                    f"token id {token!r} is not in the vocabulary 0..{self.vocab_size - 1}: an id given "
                    "as a Value must hold a whole number in that range (the tokenizer's encode gives them)"
                )
            return
        if (
            isinstance(token, bool)
            or not isinstance(token, numbers.Integral)
            or not 0 <= token < self.vocab_size
        ):
            raise ValueError(
                f"token id {token!r} is not in the vocabulary 0..{self.vocab_size - 1}: ids are ints in that "
                f"range (the tokenizer's encode gives them; a model for it is GPT(tok.vocab_size, ...))"
            )

    @staticmethod
    def _check_length(tokens: Sequence[Token], most: int, what: str) -> None:
        if not isinstance(tokens, Sequence) or isinstance(tokens, str):
            raise TypeError(f"{what} must be a list of token ids, got {type(tokens).__name__}")
        if len(tokens) > most:
            raise ValueError(
                f"{what} has {len(tokens)} tokens, more than the model's {most} (block_size "
                f"{most if what == 'tokens' else most - 1}); cut it to tokens[:{most}]"
            )

    @staticmethod
    def _check_has_a_target(tokens: Sequence[Token]) -> None:
        """A document holds at least one input and the token after it, the target."""
        if len(tokens) < 2:
            raise ValueError(f"a document needs at least 2 tokens (an input and its next), got {len(tokens)}")

    # ---- microgpt's state_dict -------------------------------------------------------------

    def to_microgpt(self) -> dict[str, Matrix]:
        """microgpt's ``state_dict``: names ``wte``, ``wpe``, ``lm_head``, ``layer{i}.attn_wq`` ...
        ``layer{i}.mlp_fc2``, each a list of rows of this model's very Values."""
        state = {"wte": self.wte.weight, "wpe": self.wpe.weight, "lm_head": self.lm_head.weight}
        for i, layer in enumerate(self.layers):
            mats = (layer.attn.wq, layer.attn.wk, layer.attn.wv, layer.attn.wo, layer.mlp.fc1, layer.mlp.fc2)
            state.update({f"layer{i}.{key}": m.weight for key, m in zip(LAYER_KEYS, mats)})
        return state

    def to_torch(self, dtype: Any = None) -> Any:
        """The same model in PyTorch (float64 by default), the weights copied: its
        ``forward(tokens)`` takes a 1-d tensor of ids and gives the logits at every position."""
        from . import gpt_torch

        floats = {key: [[w.data for w in row] for row in m] for key, m in self.to_microgpt().items()}
        return gpt_torch.build(floats, self.n_head, dtype)

    @classmethod
    def from_torch(cls, module: Any) -> GPT:
        """The model ``to_torch`` made (trained, perhaps), back as a GPT of Values."""
        from . import gpt_torch

        state, n_head = gpt_torch.read(module)
        return cls.from_microgpt(state, n_head)

    @classmethod
    def from_microgpt(cls, state_dict: Mapping[str, Any], n_head: int) -> GPT:
        """The GPT whose weights are microgpt's ``state_dict`` (lists of rows of Values or numbers).
        Given Values, the model's parameters ARE those Values, shared, not copied.  Every key and
        shape is checked before anything is built."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(
                f"state_dict must be a mapping of names to matrices, got {type(state_dict).__name__}"
            )
        for key in ("wte", "wpe", "lm_head"):
            if key not in state_dict:
                raise KeyError(
                    f"state_dict has no {key!r} (microgpt's keys: wte, wpe, lm_head, layer{{i}}.attn_wq, ...)"
                )
        wte = check_matrix("wte", state_dict["wte"])
        vocab_size, n_embd = len(wte), len(wte[0])
        wpe = check_matrix("wpe", state_dict["wpe"], cols=n_embd)
        lm_head = check_matrix("lm_head", state_dict["lm_head"], vocab_size, n_embd)
        layer_numbers = sorted(
            {int(m.group(1)) for k in state_dict if (m := re.fullmatch(r"layer(\d+)\.\w+", str(k)))}
        )
        if layer_numbers != list(range(len(layer_numbers))) or not layer_numbers:
            raise KeyError(f"state_dict's layers must be layer0 .. layer{{n-1}}, got {layer_numbers}")
        expected = {"wte", "wpe", "lm_head"} | {f"layer{i}.{k}" for i in layer_numbers for k in LAYER_KEYS}
        extra, missing = (
            sorted(set(map(str, state_dict)) - expected),
            sorted(expected - set(map(str, state_dict))),
        )
        if extra or missing:
            raise KeyError(
                f"state_dict does not match microgpt's names: missing {missing}, unexpected {extra}"
            )
        shapes = {"attn_wq": (n_embd, n_embd), "attn_wk": (n_embd, n_embd), "attn_wv": (n_embd, n_embd)}
        shapes |= {
            "attn_wo": (n_embd, n_embd),
            "mlp_fc1": (4 * n_embd, n_embd),
            "mlp_fc2": (n_embd, 4 * n_embd),
        }
        layers = [
            {k: check_matrix(f"layer{i}.{k}", state_dict[f"layer{i}.{k}"], *shapes[k]) for k in LAYER_KEYS}
            for i in layer_numbers
        ]
        check_finite_values({"wte": wte, "wpe": wpe, "lm_head": lm_head}, layers)
        model = cls(vocab_size, len(wpe), len(layers), n_embd, n_head, seed=0)
        model.wte.weight, model.wpe.weight, model.lm_head.weight = wte, wpe, lm_head
        for layer, mats in zip(model.layers, layers):
            for module, key in zip(
                (layer.attn.wq, layer.attn.wk, layer.attn.wv, layer.attn.wo), LAYER_KEYS[:4]
            ):
                module.weight = mats[key]
            layer.mlp.fc1.weight, layer.mlp.fc2.weight = mats["mlp_fc1"], mats["mlp_fc2"]
        return model


def frames_here() -> int:
    """The ``stacklevel`` of the first caller outside this file (a warning points at the user's line,
    however many of this file's methods lie between)."""
    level, frame = 1, sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename == __file__:
        level, frame = level + 1, frame.f_back
    return level


Given = TypeVar("Given")  # what a step takes: a document (CompiledLoss) or a list of them (BatchedLoss)
Loss = TypeVar("Loss")  # what it returns: the loss, or each document's


class TracedLoss(ABC, Generic[Given, Loss]):
    """What ``CompiledLoss`` and ``BatchedLoss`` share: the model, the parameters their traces
    hold, their arrays (``flat``), the traces (ragged steps, one per traced length), the check
    at every call that the model's parameters are still those Values (a parameter replaced by a
    new Value: every trace is dropped and made again), and what a step gives: ``step(x)`` the
    loss and the gradients, ``step.backward(x)`` the gradients added into ``.grad``."""

    def __init__(self, model: GPT) -> None:
        self.model = model
        self._hold(model.parameters())
        self.traces: dict[int, Any] = {}  # a traced length -> the ragged step

    def _hold(self, params: list[Value]) -> None:
        """Hold ``params``: the list the traces read, the watch on the model, and their arrays."""
        # (the compiler loads on first use, as compile does)
        from micrograd.compiler.flat import shared
        from micrograd.compiler.params import watcher

        self.params = params
        self.changed = watcher(self.model, params)  # (cheap: micrograd.compiler.params)
        # The parameters' .data and .grad as arrays, shared with an optimizer of the same list
        # (micrograd.compiler.flat), held here: looking them up at every step took 0.1 ms.
        self.flat = shared(params)

    def follow_the_model(self) -> None:
        """Trace again, with a ``RetraceWarning``, if a parameter of the model was replaced."""
        from micrograd.compiler.params import RetraceWarning, name_of, replaced_at, what_changed

        now = self.changed()
        at = None if now is None else replaced_at(now, self.params)
        if now is None or at is None:
            return
        name = name_of(self.model, at) if len(now) == len(self.params) else ""
        warnings.warn(
            f"GPT.compile_loss: {what_changed(now, self.params, at, name)} (replaced after compiling): "
            "tracing the model again. To change a parameter without a new trace, set its .data",
            RetraceWarning,
            stacklevel=frames_here(),
        )
        self._hold(list(now))
        self.traces.clear()

    def step_for(self, length: int) -> Any:
        """The ragged step for documents of up to ``length`` tokens (traced now if new):
        ``micrograd.compile(..., batched=True, ragged=True)``, each document cut to its own length."""
        import numpy as np

        step = self.traces.get(length)
        if step is None:
            ids = np.array([self.model.vocab_size - 1] * length, dtype=np.float64)
            step = self.traces[length] = micrograd.compile(
                self._loss_and_parts,
                (ids, 1.0),
                self.params,
                batched=True,
                reduction="sum",
                ragged=True,
                batch_axis=0,
            )
        return step

    def _loss_and_parts(self, ids: Sequence[Value], scale: Value) -> tuple[Value, list[Value]]:
        """``model.loss(ids)`` with its ``1 / len`` as an input (a document's own), and its terms."""
        parts = self.model.position_losses(list(ids))
        return micrograd.sum(parts) * scale, parts

    def __call__(self, given: Given) -> tuple[Loss, Any]:
        """The loss and the gradients from zero, one per parameter in ``model.parameters()`` order."""
        # (micrograd.func loads its transforms, inspect and all, so a step imports it here)
        from micrograd.func.reverse import sum_of_passes

        loss, grads, reached = self._replayed(given)
        return loss, sum_of_passes(grads, reached)

    def backward(self, given: Given) -> Loss:
        """Add the gradients into ``.grad``, as the eager loop does; the loss."""
        loss, grads, reached = self._replayed(given)
        # as backward() adds, into the parameters each document's graph holds only, through the
        # arrays the steps and an optimizer share (the .grads written are kept as an array, so Adam
        # does not pack them again)
        self.flat.add_rows(grads, reached)
        return loss

    @abstractmethod
    def _replayed(self, given: Given) -> tuple[Loss, Any, Any]:
        """The loss, each document's gradients (one row each) and which parameters its graph holds."""


def bucket_lengths(block_size: int) -> tuple[int, ...]:
    """The lengths ``CompiledLoss`` traces at, for a model of ``block_size``: the longest document
    (``block_size + 1`` tokens) and about half of it.  A document is replayed on the shortest that
    holds it, cut to its own length.  Why two: a replay's cost is mostly fixed (numpy calls per
    group of ops) and grows only slowly with the traced length, while a trace costs about its
    length.  So over a run of microgpt's 1,000 steps a trace per length costs more in tracing than
    its shorter replays save, one length alone makes the first call wait for the longest trace, and
    a third length does not pay for its trace.

    >>> bucket_lengths(16), bucket_lengths(4), bucket_lengths(1)
    ((9, 17), (3, 5), (2,))
    """
    longest = block_size + 1
    return tuple(sorted({max(2, (longest + 1) // 2), longest}))


class CompiledLoss(TracedLoss[Sequence[int], float]):
    """``GPT.compile_loss()``: the model's loss replayed with numpy, one document a step, traced at
    two lengths (``bucket_lengths``): the longest document and about half of it.

    A document is a list of token ids; ``step(ids)`` returns ``(loss, grads)`` (one gradient per
    parameter, in ``model.parameters()`` order) and ``step.backward(ids)`` adds the gradients
    into the parameters' ``.grad`` (those its graph does not reach are left alone, as
    ``backward()`` leaves them) and returns the loss, so an ``nn.optim`` optimizer can step.
    The traces read the parameters' current ``.data`` at every call.  A document is padded to the
    shortest traced length that holds it and cut back to its own length
    (``micrograd.compile(..., batched=True, ragged=True)``, as ``BatchedLoss``): a few traces,
    made on first use, serve every length.  The ids are traced as Values, so the lookups are
    ``Pick`` nodes: the numbers are those of ``model.loss`` on the ids as Values, bit for bit (on
    the ids as ints, the same loss, and gradients that can differ in their last bits: the graph,
    and so the order in which gradients add up, is not the same).

    >>> model = GPT(3, block_size=4, n_embd=4, n_head=2, seed=0)
    >>> step = model.compile_loss()
    >>> loss, grads = step([2, 0, 2])                   # 3 tokens: on the trace at 3
    >>> loss == model.loss([Value(2.0), Value(0.0), Value(2.0)]).data, sorted(step.traces)
    (True, [3])
    >>> _ = step([2, 0, 1, 2]), step([2, 1, 0, 1, 2])   # 4 and 5 tokens: on the trace at 5
    >>> step.lengths, sorted(step.traces)
    ((3, 5), [3, 5])
    """

    def __init__(self, model: GPT) -> None:
        super().__init__(model)
        self.lengths = bucket_lengths(model.block_size)

    def padded(self, tokens: Sequence[int]) -> tuple[Any, Any, Any]:
        """The step of the shortest traced length that holds ``tokens`` (traced now if new), the
        ids padded to it with copies of the last (positions the document's graph does not have),
        and the document's count of positions, as the step's ``sizes``."""
        import numpy as np

        self.follow_the_model()
        model = self.model
        model._check_length(tokens, model.block_size + 1, "a document")
        for t in tokens:  # (the ids first: [[0, 5, 0]] is refused for its id, the brackets shown)
            model._check_token(t)
        model._check_has_a_target(tokens)
        length = next(n for n in self.lengths if n >= len(tokens))
        step = self.step_for(length)
        ids = np.array([[*tokens, *[tokens[-1]] * (length - len(tokens))]], dtype=np.float64)
        return step, ids, np.array([len(tokens) - 1])

    def _replayed(self, tokens: Sequence[int]) -> tuple[float, Any, Any]:
        """The document's loss, its gradients and which parameters its graph holds (one row each,
        as ``BatchedLoss.per_document`` gives them for a batch of one)."""
        step, ids, sizes = self.padded(tokens)
        losses, grads = step.per_sample(ids, 1.0 / sizes, sizes=sizes)
        return float(losses[0]), grads, step.reached_by(sizes)


class BatchedLoss(TracedLoss[Sequence[Sequence[int]], list[float]]):
    """``GPT.compile_loss(batched=True)``: the model's loss on a batch of documents, replayed with
    numpy, all of them at once (``micrograd.compile(..., batched=True, ragged=True)``: a trace at
    the batch's longest length, made on first use, then kept; each document cut to its own length).

    ``step(docs)`` returns ``(losses, grads)``: each document's loss, in order, and what the eager
    loop ``for d in docs: model.loss(d).backward()`` would leave in the parameters' ``.grad`` from
    zero (one number per parameter, in ``model.parameters()`` order); ``step.backward(docs)``
    leaves that in ``.grad`` from whatever it holds and returns the losses.  Bit for bit: each
    document's gradients are the eager engine's on its ids as Values (its positions are the
    first of the longer trace's, the rest cut away: ``micrograd.compiler.ragged``), and they are
    added into ``.grad`` one document after another, as ``backward()`` adds them (a parameter a
    document does not reach, a position past its end, is left alone).

    >>> model = GPT(3, block_size=4, n_embd=4, n_head=2, seed=0)
    >>> losses, grads = model.compile_loss(batched=True)([[2, 0, 2], [2, 1, 0, 2]])
    >>> losses[1] == model.loss([Value(2.0), Value(1.0), Value(0.0), Value(2.0)]).data, grads.shape
    (True, (232,))
    """

    def __init__(self, model: GPT) -> None:
        super().__init__(model)  # traces: the longest document's length -> the ragged step
        self.widths: dict[tuple[int, int], Any] = {}  # (length, padded count) -> the step's clone

    def follow_the_model(self) -> None:
        super().follow_the_model()
        if not self.traces:
            self.widths.clear()

    SHAPE = "list of documents, each a list of token ids, as in step.backward([[0, 5, 3, 0], [0, 7, 0]])"

    def _check(self, docs: Sequence[Sequence[int]]) -> list[Sequence[int]]:
        if not isinstance(docs, Sequence) or isinstance(docs, str) or not docs:
            raise TypeError(f"a batched step takes a non-empty {self.SHAPE}")
        if not self._all_plain(docs):
            self._check_each(docs)
        return list(docs)

    def _all_plain(self, docs: Sequence[Sequence[int]]) -> bool:
        """Whether every document is a list of 2 to ``block_size + 1`` ints in the vocabulary: the
        common case, checked by C loops over all the documents at once (their types, lengths,
        and the smallest and largest id), where checking id by id took 0.09 ms a step for 16
        names.  Anything else is checked document by document (``_check_each``), which says
        what is wrong."""
        if set(map(type, docs)) != {list}:
            return False
        lengths = list(map(len, docs))
        if min(lengths) < 2 or max(lengths) > self.model.block_size + 1:
            return False
        ids = list(itertools.chain.from_iterable(docs))
        return set(map(type, ids)) == {int} and min(ids) >= 0 and max(ids) < self.model.vocab_size

    def _check_each(self, docs: Sequence[Sequence[int]]) -> None:
        """Each document's shape, length and ids, in order: an error for the first that is wrong."""
        for i, d in enumerate(docs):
            # The shape first: a list nested one level too deep or too shallow would otherwise be
            # refused for its length or its ids, not for the brackets that are wrong.
            if not isinstance(d, Sequence) or isinstance(d, str):
                raise TypeError(
                    f"a batched step takes a {self.SHAPE}; document {i} is {reprlib.repr(d)}, not a list "
                    f"(one document is a list holding one list of ids: [{reprlib.repr(list(docs))}])"
                )
            if any(isinstance(t, Sequence) and not isinstance(t, str) for t in d):
                raise TypeError(
                    f"a batched step takes a {self.SHAPE}; document {i} is {reprlib.repr(d)}, a list of "
                    "lists: one pair of brackets too many"
                )
            self.model._check_length(d, self.model.block_size + 1, "a document")
            self.model._check_has_a_target(d)
            for t in d:
                if isinstance(t, Value):
                    raise TypeError("a batched step takes token ids as ints, not Values")
                self.model._check_token(t)

    def per_document(self, docs: Sequence[Sequence[int]]) -> tuple[Any, Any, Any]:
        """Each document's loss, gradients, and which parameters its graph holds: arrays
        ``(n_docs,)``, ``(n_docs, n_params)`` and ``(n_docs, n_params)`` (booleans)."""
        import numpy as np

        docs = self._check(docs)
        self.follow_the_model()
        longest = max(map(len, docs))
        step = self.step_for(longest)
        # Padded to a power of two with copies of the first document: a step binds its arrays anew
        # for every new batch size (6-10 ms for a GPT's graph), so each width has a clone of the
        # step with arrays of its own; the padding's rows are dropped.  Each document is padded to
        # the longest with copies of its last token, positions its own graph does not have.
        width = 1 << (len(docs) - 1).bit_length()
        rows = [*docs, *[docs[0]] * (width - len(docs))]
        ids = np.array([[*d, *[d[-1]] * (longest - len(d))] for d in rows], dtype=np.float64)
        sizes = np.array([len(d) - 1 for d in rows])
        at_width = self.widths.get((longest, width))
        if at_width is None:
            at_width = self.widths[longest, width] = step.clone()
        losses, grads = at_width.per_sample(ids, 1.0 / sizes, data=step.param_data(), sizes=sizes)
        n = len(docs)
        return losses[:n], grads[:n], at_width.reached_by(sizes[:n])

    def _replayed(self, docs: Sequence[Sequence[int]]) -> tuple[list[float], Any, Any]:
        """The documents' losses, in order, their gradients and which parameters each graph holds."""
        losses, grads, reached = self.per_document(docs)
        return losses.tolist(), grads, reached
