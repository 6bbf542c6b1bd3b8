"""microgpt's GPT in PyTorch, for ``GPT.to_torch()`` and ``GPT.from_torch()``.

``build(state, n_head)`` makes a ``torch.nn.Module`` from microgpt's ``state_dict``
(names ``wte``, ``wpe``, ``lm_head``, ``layer{i}.attn_wq`` ... ``layer{i}.mlp_fc2``,
each a list of rows of floats); ``read(module)`` gives such a state back.  The
module's ``forward(tokens)`` takes a 1-d tensor of token ids and returns the logits
at every position, causally, as our ``GPT`` does: the same computation, batched
over positions with a causal mask.  PyTorch is imported only here.

>>> from nn import GPT                                     # doctest: +SKIP
>>> model = GPT(5, block_size=4, n_embd=4, n_head=2, seed=0)  # doctest: +SKIP
>>> GPT.from_torch(model.to_torch()).state_dict() == model.state_dict()  # doctest: +SKIP
True
"""

from __future__ import annotations

from typing import Any

LAYER_KEYS = ("attn_wq", "attn_wk", "attn_wv", "attn_wo", "mlp_fc1", "mlp_fc2")
_CLASS: list[Any] = []  # the module class, made once torch is imported


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ImportError("GPT.to_torch and GPT.from_torch need PyTorch: pip install torch") from None
    return torch


def _module_class() -> Any:
    if _CLASS:
        return _CLASS[0]
    torch = _torch()

    class TorchGPT(torch.nn.Module):  # type: ignore[misc, name-defined]
        """microgpt's GPT: embeddings, per layer attention and a ReLU MLP after rmsnorms, lm_head."""

        def __init__(
            self, vocab_size: int, block_size: int, n_layer: int, n_embd: int, n_head: int, dtype: Any
        ):
            super().__init__()
            self.n_head = n_head
            self.wte = torch.nn.Embedding(vocab_size, n_embd, dtype=dtype)
            self.wpe = torch.nn.Embedding(block_size, n_embd, dtype=dtype)
            self.lm_head = torch.nn.Linear(n_embd, vocab_size, bias=False, dtype=dtype)
            shapes = [(n_embd, n_embd)] * 4 + [(n_embd, 4 * n_embd), (4 * n_embd, n_embd)]
            self.layers = torch.nn.ModuleList(
                torch.nn.ModuleDict(
                    {
                        key: torch.nn.Linear(i, o, bias=False, dtype=dtype)
                        for key, (i, o) in zip(LAYER_KEYS, shapes)
                    }
                )
                for _ in range(n_layer)
            )
            self.norm = torch.nn.RMSNorm(n_embd, eps=1e-5, elementwise_affine=False)

        def forward(self, tokens: Any) -> Any:
            t = tokens.shape[0]
            x = self.norm(self.wte(tokens) + self.wpe(torch.arange(t)))
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            for layer in self.layers:
                h = self.norm(x)
                q, k, v = (layer[key](h).view(t, self.n_head, -1).transpose(0, 1) for key in LAYER_KEYS[:3])
                scores = (q @ k.transpose(1, 2)) / (q.shape[-1] ** 0.5)
                weights = scores.masked_fill(~mask, float("-inf")).softmax(dim=-1)
                x = x + layer["attn_wo"]((weights @ v).transpose(0, 1).reshape(t, -1))
                x = x + layer["mlp_fc2"](torch.relu(layer["mlp_fc1"](self.norm(x))))
            return self.lm_head(x)

    _CLASS.append(TorchGPT)
    return TorchGPT


def build(state: dict[str, list[list[float]]], n_head: int, dtype: Any = None) -> Any:
    """A ``torch.nn.Module`` with the weights of microgpt's ``state`` (float64 by default)."""
    torch = _torch()
    dtype = torch.float64 if dtype is None else dtype
    n_layer = sum(1 for key in state if key.endswith(".attn_wq"))
    vocab_size, n_embd = len(state["wte"]), len(state["wte"][0])
    module = _module_class()(vocab_size, len(state["wpe"]), n_layer, n_embd, n_head, dtype)
    with torch.no_grad():
        module.wte.weight.copy_(torch.tensor(state["wte"], dtype=dtype))
        module.wpe.weight.copy_(torch.tensor(state["wpe"], dtype=dtype))
        module.lm_head.weight.copy_(torch.tensor(state["lm_head"], dtype=dtype))
        for i, layer in enumerate(module.layers):
            for key in LAYER_KEYS:
                layer[key].weight.copy_(torch.tensor(state[f"layer{i}.{key}"], dtype=dtype))
    return module


def read(module: Any) -> tuple[dict[str, list[list[float]]], int]:
    """microgpt's state (floats) and ``n_head`` of a module ``build`` made."""
    if not isinstance(module, _module_class()):
        raise TypeError(f"GPT.from_torch reads a module made by GPT.to_torch, got {type(module).__name__}")

    def rows(linear_or_embedding: Any) -> list[list[float]]:
        return linear_or_embedding.weight.detach().to(_torch().float64).tolist()  # type: ignore[no-any-return]

    state = {"wte": rows(module.wte), "wpe": rows(module.wpe), "lm_head": rows(module.lm_head)}
    for i, layer in enumerate(module.layers):
        state.update({f"layer{i}.{key}": rows(layer[key]) for key in LAYER_KEYS})
    return state, module.n_head
