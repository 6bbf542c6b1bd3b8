"""What the replaced-parameter check (``micrograd.compiler.params``) costs per call, against the
compiled step it guards and against building ``model.parameters()``, best of 7 repeats.

    python -m benchmarks.param_check
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from functools import partial

import micrograd
from micrograd.compiler.params import watcher
from nn import MLP
from nn.gpt import GPT


def best_us(f: Callable[[], object], number: int) -> float:
    """Microseconds per call of ``f``, the best of 7 repeats of ``number`` calls."""
    return min(timeit.repeat(f, number=number, repeat=7)) / number * 1e6


def main() -> None:
    mlp = MLP(2, [16, 16, 1], seed=0)
    plain = micrograd.compile(lambda x: mlp(x), ([1.0, 2.0],), params=mlp.parameters())
    watched = micrograd.compile(lambda x: mlp(x), ([1.0, 2.0],), params=mlp)
    step_us, watched_us = best_us(partial(plain, [1.0, 2.0]), 500), best_us(partial(watched, [1.0, 2.0]), 500)
    print(
        f"MLP(2, [16, 16, 1]), {len(mlp.parameters())} params: step {step_us:.0f} us, given the model "
        f"{watched_us:.0f} us; the check alone {best_us(watcher(mlp, mlp.parameters()), 2000):.1f} us"
    )
    for vocab, block, embd, heads in [(5, 4, 4, 2), (27, 16, 16, 4)]:
        gpt = GPT(vocab, block_size=block, n_embd=embd, n_head=heads, seed=0)
        docs = [[vocab - 1, 0, 1, 2, vocab - 1]] * 16
        step = gpt.compile_loss(batched=True)
        step(docs)
        print(
            f"GPT({vocab}, block_size={block}, n_embd={embd}, n_head={heads}), "
            f"{len(gpt.parameters())} params: compile_loss(batched=True) on 16 documents "
            f"{best_us(partial(step, docs), 20):.0f} us per call; "
            f"the check {best_us(watcher(gpt, gpt.parameters()), 2000):.1f} us; "
            f"model.parameters() {best_us(gpt.parameters, 100):.0f} us"
        )


if __name__ == "__main__":
    main()
