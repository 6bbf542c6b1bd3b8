"""karpathy's microgpt with this engine's modules: a GPT trained on first names, then sampled.

microgpt's model and recipe (``nn.GPT``: 1 layer, 16 dimensions, 4 heads, a context
of 16 characters; Adam with betas 0.85 and 0.99, lr 0.01 decaying linearly to 0;
one name per step), on the US census first names (``nn.datasets.load_names``).
Shows the loss as it trains, prints names sampled at temperature 0.5 and the
time per step, and writes the loss curve and the attention pattern of a name.

    python -m demos.names_gpt --out out          # or: python demos/names_gpt.py --out out
    python -m demos.names_gpt --batch 16         # 16 names a step, compile_loss(batched=True)
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

if not __package__:  # run as a file (python demos/x.py): the repository's packages, importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demos import common
from nn import GPT, CharTokenizer, datasets
from nn.optim import Adam

WINDOW = 50  # steps in the running mean of the loss curve
SHOWN_NAME = "isabella"  # the name whose attention pattern is drawn


def train(
    model: GPT, docs: list[list[int]], steps: int, quiet: bool, compiled: bool, batch: int = 1
) -> list[float]:
    """microgpt's loop: one document per step, Adam with lr 0.01 decaying linearly to 0; each step
    eager (the graph built and walked) or ``compiled`` (``model.compile_loss()``: traced at two lengths).
    With ``batch`` > 1, ``batch`` documents a step (``model.compile_loss(batched=True)``, their
    gradients added up as the eager loop adds them); the loss of a step is then their mean."""
    from tqdm import tqdm

    optimizer = Adam(model.parameters(), lr=0.01, betas=(0.85, 0.99), eps=1e-8)
    replay = model.compile_loss() if compiled and batch == 1 else None
    batched = model.compile_loss(batched=True) if batch > 1 else None
    losses: list[float] = []
    mode = f"batches of {batch}" if batch > 1 else "compiled" if compiled else "eager"
    bar = tqdm(range(steps), desc=f"names GPT ({mode})", unit="step", disable=quiet, file=sys.stderr)
    for step in bar:
        optimizer.zero_grad()
        if batched is not None:
            chosen = [docs[(step * batch + j) % len(docs)] for j in range(batch)]
            losses.append(sum(batched.backward(chosen)) / batch)
        elif replay is not None:
            losses.append(replay.backward(docs[step % len(docs)]))
        else:
            loss = model.loss(docs[step % len(docs)])
            loss.backward()
            losses.append(loss.data)
        optimizer.lr = 0.01 * (1 - step / steps)
        optimizer.step()
        if step % 10 == 0:
            bar.set_postfix(loss=f"{sum(losses[-WINDOW:]) / len(losses[-WINDOW:]):.3f}")
    return losses


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], steps=1000, seed=42)
    p.add_argument("--samples", type=common.positive_int, default=20, help="names to sample (default: 20)")
    p.add_argument(
        "--temperature", type=common.positive_float, default=0.5, help="sampling temperature (default: 0.5)"
    )
    p.add_argument(
        "--compiled",
        action="store_true",
        help="replay each step with micrograd.compile (traced at two name lengths)",
    )
    p.add_argument(
        "--batch",
        type=common.positive_int,
        default=1,
        help="names a step (default: 1); more than 1 replays them with compile_loss(batched=True)",
    )
    args = p.parse_args(argv)
    out = common.prepare_out(p, args.out)
    written: list[Path] = []

    names = datasets.load_names()
    random.Random(args.seed).shuffle(names)
    tok = CharTokenizer.from_docs(names)
    model = GPT(tok.vocab_size, block_size=16, n_layer=1, n_embd=16, n_head=4, seed=args.seed)
    docs = [tok.document(name) for name in names]

    start = time.perf_counter()
    losses = train(model, docs, args.steps, args.quiet, args.compiled, args.batch)
    per_step = (time.perf_counter() - start) / args.steps
    samples = [tok.decode(s) for s in model.generate(args.samples, args.temperature, seed=args.seed)]

    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    steps = range(1, len(losses) + 1)
    mean = [sum(losses[max(0, i - WINDOW + 1) : i + 1]) / min(i + 1, WINDOW) for i in range(len(losses))]
    ax.plot(steps, losses, color="#adb5bd", linewidth=0.6, label="loss of the step's name")
    ax.plot(steps, mean, color="#1c7ed6", linewidth=2, label=f"running mean ({WINDOW} steps)")
    ax.set_xlabel(common.STEP_LABEL)
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.set_title(
        f"names GPT: loss per step ({model.num_parameters():,} parameters, {per_step * 1e3:.0f} ms a step)"
    )
    common.integer_steps(ax)
    ax.legend(loc="best")
    fig.tight_layout()
    common.save(fig, out / "names_gpt_loss.png", written)

    from matplotlib.patches import Patch

    ids = tok.document(SHOWN_NAME)[:-1]
    pattern = model.attention(ids)[0]  # layer 0: [position][head][earlier position]
    labels = ["BOS", *SHOWN_NAME]
    fig, axes = plt.subplots(1, model.n_head, figsize=(3.2 * model.n_head, 3.6))
    for h, ax in enumerate(axes):
        grid = [
            [pattern[t][h][s] if s <= t else float("nan") for s in range(len(ids))] for t in range(len(ids))
        ]
        ax.imshow(grid, cmap="Blues", vmin=0.0, vmax=1.0)
        ax.set_title(f"head {h}")
        ax.set_xticks(range(len(ids)), labels)
        ax.set_yticks(range(len(ids)), labels)
        ax.set_xlabel("attends to")
        ax.set_ylabel("position")
        key = [Patch(color=plt.get_cmap("Blues")(x), label=f"weight {x:g}") for x in (0.0, 1.0)]
        ax.legend(handles=key, loc="lower left", fontsize="small")
    fig.suptitle(f"names GPT: attention of each head on {SHOWN_NAME!r} after {args.steps} steps")
    fig.tight_layout()
    common.save(fig, out / "names_gpt_attention.png", written)

    if not args.quiet:
        k = min(WINDOW, len(losses))
        print(f"loss, mean of {k} steps: {sum(losses[:k]) / k:.3f} first, {sum(losses[-k:]) / k:.3f} last")
        print(f"{per_step * 1e3:.1f} ms a step ({args.steps} steps in {per_step * args.steps:.1f} s)")
        print(f"samples at temperature {args.temperature:g}: {', '.join(samples)}")
    common.report(written)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
