"""What the benchmark measures: the engines, the workloads and their rows, the targets.

Each workload is a function of a worker module (``workloads.py`` for the
engines, ``numpy_floor.py`` for the floor) run in a fresh process per row and
repetition.  A row is one way of running it: which engine, which function,
collector on or off.  Adding a row is a few lines; e.g. the compiled replay
mode, once ``micrograd.compile`` exists: write ``train_step_compiled(n_points,
steps)`` in ``workloads.py`` (returning ``{"samples": [...], "loss": [...]}``
like ``train_step``) and add

    Row("ours, compiled replay", OURS, "workloads:train_step_compiled"),

to ``TRAIN.rows``; its median, speedups and loss agreement then appear in the
table and the JSON, and a ``Target`` can name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .playground_ready import NO_BROWSER, NO_PLAYGROUND, NO_PYODIDE

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
REFERENCE_VERSION = "0.1.0"
REFERENCE_DIR = BENCH_DIR / f".micrograd-{REFERENCE_VERSION}"


@dataclass(frozen=True)
class Engine:
    """Where a worker imports ``micrograd`` from (None: the row needs no engine)."""

    name: str
    path: Path | None


REFERENCE = Engine(f"micrograd {REFERENCE_VERSION}", REFERENCE_DIR)
OURS = Engine("ours", REPO_ROOT)
NUMPY = Engine("numpy", None)


@dataclass(frozen=True)
class Row:
    """One way of running a workload: ``target`` is ``module:function`` of a worker module."""

    label: str
    engine: Engine
    target: str
    gc: bool = True  # Python's default; False runs the whole worker with gc.disable()
    tolerated: tuple[str, ...] = ()  # statuses that are a finding, not a failure (e.g. RecursionError)


@dataclass(frozen=True)
class Workload:
    """A measurement, run for each of its rows, alternating rows across repetitions."""

    key: str
    title: str  # formatted with the params in use, e.g. "{n_points} points"
    unit: str  # "s" (seconds) or "B" (bytes per node); lower is better for both
    params: dict[str, Any]
    tiny_params: dict[str, Any]
    reps: int
    rows: tuple[Row, ...]
    baselines: tuple[str, ...] = ()  # labels of rows that the others are compared with
    agreement: str | None = None  # a result list compared with the first baseline's (e.g. "loss")
    tiny_reps: int = 1
    note: str = ""

    def row(self, label: str) -> Row:
        for r in self.rows:
            if r.label == label:
                return r
        raise KeyError(f"workload {self.key!r} has no row {label!r}; rows: {[r.label for r in self.rows]}")


REF = REFERENCE.name
REF_GC_OFF = f"{REF}, gc off"
NUMPY_FLOOR = "numpy floor"
BATCHED = "ours, compiled replay, batched"

TRAIN = Workload(
    key="train_step",
    title="training step: moons demo, MLP(2, [16, 16, 1]), {n_points} points, full batch",
    unit="s",
    params={"n_points": 100, "steps": 20},
    tiny_params={"n_points": 8, "steps": 2},
    reps=5,
    rows=(
        Row(REF, REFERENCE, "workloads:train_step"),
        Row(REF_GC_OFF, REFERENCE, "workloads:train_step", gc=False),
        Row("ours", OURS, "workloads:train_step"),
        Row("ours, gc off", OURS, "workloads:train_step", gc=False),
        Row("ours, compiled replay", OURS, "workloads:train_step_compiled"),
        Row(
            BATCHED,
            OURS,
            "workloads:train_step_compiled_batched",
            # an engine before compile(batched=True), run with --baseline, says so
            tolerated=("this engine has no compile(batched=True)",),
        ),
        Row(NUMPY_FLOOR, NUMPY, "numpy_floor:train_step"),
    ),
    baselines=(REF, REF_GC_OFF),
    agreement="loss",
    note="forward + zero_grad + backward + SGD update, median over steps and repetitions",
)

FORWARD = Workload(
    key="forward",
    title="forward only (inference): the same model's scores on {n_points} points",
    unit="s",
    params={"n_points": 100, "steps": 10},
    tiny_params={"n_points": 8, "steps": 2},
    reps=5,
    rows=(
        Row(REF, REFERENCE, "workloads:forward"),
        Row(REF_GC_OFF, REFERENCE, "workloads:forward", gc=False),
        Row("ours", OURS, "workloads:forward"),
        Row("ours, gc off", OURS, "workloads:forward", gc=False),
    ),
    baselines=(REF, REF_GC_OFF),
    agreement="scores",
)

CHAIN = Workload(
    key="chain_backward",
    title="backward through a {n_nodes:,}-node chain",
    unit="s",
    params={"n_nodes": 1_000_000},
    tiny_params={"n_nodes": 5_000},
    reps=3,
    rows=(
        Row(REF, REFERENCE, "workloads:chain_backward", tolerated=("RecursionError",)),
        Row("ours", OURS, "workloads:chain_backward"),
    ),
    baselines=(REF,),
    note="y = x + x + ... + x; backward only, building the chain is timed apart",
)

MEMORY = Workload(
    key="graph_memory",
    title="bytes per graph node (tracemalloc): the loss graph of {n_points} points",
    unit="B",
    params={"n_points": 100},
    tiny_params={"n_points": 8},
    reps=1,  # tracemalloc counts allocations: repeating gives the same number
    rows=(Row(REF, REFERENCE, "workloads:graph_memory"), Row("ours", OURS, "workloads:graph_memory")),
    baselines=(REF,),
    note="bytes the forward pass leaves allocated / nodes it made (parameters excluded)",
)

DIGITS = Workload(
    key="digits_epoch",
    title="digits: MLP(64, [32, 10]), cross-entropy, Adam, batches of 64: one epoch",
    unit="s",
    params={"epochs": 3},
    tiny_params={"epochs": 1, "limit": 128},
    reps=3,
    rows=(
        Row(
            BATCHED,
            OURS,
            "workloads:digits_epoch",
            tolerated=("this engine has no compile(batched=True)", "scikit-learn is not installed"),
        ),
        Row(NUMPY_FLOOR, NUMPY, "numpy_floor:digits_epoch", tolerated=("scikit-learn is not installed",)),
    ),
    baselines=(NUMPY_FLOOR,),
    agreement="loss",
    note="the 1,437 training images (tiny: 128), each batch's forward, backward and Adam update; "
    "median over epochs and repetitions",
)

NO_GPT = "this engine has no nn.GPT or nn.datasets.load_names"  # gpt_workloads.NO_GPT
NO_BOXES = "this engine's explore draws no boxes (scopes=)"  # gpt_workloads.NO_BOXES
NO_MICROGPT = "microgpt's engine unavailable"  # strands-microgpt could not be fetched (no index)
MICROGPT_ENGINE = Engine("microgpt's engine", REPO_ROOT)  # strands-microgpt's Value (the repo for the names)
MG = "microgpt's script, microgpt's Value"
MG_OURS = "microgpt's script, our Value"
GPT_EAGER = "nn.GPT, eager"
GPT_COMPILED = "nn.GPT, compile_loss() (traces included, over 1,000 steps)"
GPT_BATCHED = "nn.GPT, compile_loss(batched=True), 16 names a step (per name)"
GPT_FLOOR = "numpy floor, 1 name a step"
GPT_FLOOR_16 = "numpy floor, 16 names a step (per name)"
GPT_FLOOR_ORDERED = "numpy floor, ordered sums, 1 name a step"
GPT_FLOOR_ORDERED_16 = "numpy floor, ordered sums, 16 names a step (per name)"
NUMPY_GPT = Engine("numpy", REPO_ROOT)  # the hand-vectorised step (the repo for the names)

MICROGPT = Workload(
    key="microgpt_step",
    title="microgpt: a training step of its GPT (1 layer, 16 dims, 4 heads, Adam) on one first name",
    unit="s",
    params={"steps": 20, "compiled_steps": 1000},
    tiny_params={"steps": 2, "compiled_steps": 3},
    reps=3,
    rows=(
        Row(
            MG,
            MICROGPT_ENGINE,
            "gpt_workloads:microgpt_on_microgpt",
            tolerated=("microgpt's engine unavailable",),
        ),
        Row(MG_OURS, OURS, "gpt_workloads:microgpt_on_ours", tolerated=(NO_GPT,)),
        Row(GPT_EAGER, OURS, "gpt_workloads:gpt_eager", tolerated=(NO_GPT,)),
        Row(GPT_COMPILED, OURS, "gpt_workloads:gpt_compiled", tolerated=(NO_GPT,)),
        Row(
            GPT_BATCHED,
            OURS,
            "gpt_workloads:gpt_compiled_batched",
            tolerated=(NO_GPT, "this engine's nn.GPT has no compile_loss(batched=True)"),
        ),
        Row(GPT_FLOOR, NUMPY_GPT, "gpt_floor:one_name"),
        Row(GPT_FLOOR_16, NUMPY_GPT, "gpt_floor:sixteen_names"),
        Row(GPT_FLOOR_ORDERED, NUMPY_GPT, "gpt_floor:one_name_ordered"),
        Row(GPT_FLOOR_ORDERED_16, NUMPY_GPT, "gpt_floor:sixteen_names_ordered"),
    ),
    baselines=(MG, GPT_FLOOR),
    agreement="loss",
    note="the same names in the same order, one per step; microgpt's script is ours, written once and run "
    "on either Value; the compiled row's sample is the mean step over 1,000 steps, its traces included "
    "(every row's imports, numpy's too, before its timer); "
    "the numpy floor is the same training vectorised by hand (gpt_floor.py), every step of the 1,000 timed; "
    "its ordered-sums rows make every matrix product (forward, backward, attention, weight gradients) an "
    "in-order sum over the contracted axis, first term to last, as the eager engine adds a dot product (no "
    "BLAS, no pairwise sum): the cost of issue 37's ordered products in a hand-written step, not a "
    "bit-identical eager replica (softmax, rmsnorm and exp stay numpy's); "
    "a row of 16 names a step reports the time per name (its losses are not microgpt's one-name trajectory)",
)

EXPLORE = Workload(
    key="explore_page",
    title="the explorer's page of a large graph: written to disk, built-in layout",
    unit="s",
    params={"n_points": 8},
    tiny_params={"n_points": 1},
    reps=1,
    rows=(
        Row(
            "MLP batch: the moons loss of 8 samples",
            OURS,
            "gpt_workloads:explore_mlp_batch",
            tolerated=("this engine's explore has no built-in layout",),
        ),
        Row(
            "nn.GPT: a training step's loss on one name",
            OURS,
            "gpt_workloads:explore_gpt_step",
            tolerated=(
                "this engine's explore has no built-in layout",
                NO_GPT,
            ),
        ),
        Row(
            "nn.GPT: the same step in boxes (scopes=)",
            OURS,
            "gpt_workloads:explore_gpt_boxes",
            tolerated=("this engine's explore has no built-in layout", NO_GPT, NO_BOXES),
        ),
    ),
    note="the graph walk, the layout and the page, once per row (tiny: the MLP row on 1 sample)",
)

IMPORT = Workload(
    key="import",
    title="import micrograd, in a fresh interpreter",
    unit="s",
    params={"repeats": 10},
    tiny_params={"repeats": 1},
    reps=3,
    rows=(Row("ours", OURS, "workloads:import_micrograd"),),
    note="the engine, the op catalogue and the math load; the rest on first use (compare --baseline 68d2bfc)",
)

# The playground's row needs Chromium and Pyodide's npm package; without them it is skipped, the
# reason its status (NO_BROWSER, NO_PYODIDE, NO_PLAYGROUND of playground_ready.py).
PLAYGROUND = Workload(
    key="playground_ready",
    title="the playground: Python ready, first visit, headless Chromium",
    unit="s",
    params={"runs": 1},
    tiny_params={"runs": 1},
    reps=5,
    rows=(Row("ours", OURS, "playground_ready:ready", tolerated=(NO_BROWSER, NO_PYODIDE, NO_PLAYGROUND)),),
    note="built as make docs builds it, served on 127.0.0.1, a fresh profile each time; the page's own "
    "time from navigation to 'Python ready' (compare --baseline 68d2bfc)",
)

WORKLOADS: tuple[Workload, ...] = (
    TRAIN,
    FORWARD,
    CHAIN,
    MEMORY,
    DIGITS,
    MICROGPT,
    EXPLORE,
    IMPORT,
    PLAYGROUND,
)


@dataclass(frozen=True)
class Target:
    """A goal of issue 5 or 15, checked against one run's results (reported, never asserted).

    ``kind``: "speedup" (baseline median / row median >= threshold), "ratio"
    (row median / baseline median <= threshold), "seconds" (row median <
    threshold), "trace seconds" (the row's trace time < threshold), "run seconds" (the row's
    whole run, ``run_s``, <= threshold), "page MB" (the row's
    page size in MB <= threshold) or "agreement" (max relative difference <= threshold).
    """

    text: str
    workload: str
    row: str
    kind: str
    threshold: float | None  # None: the value is reported, with no goal
    baseline: str = field(default=REF)


TARGETS: tuple[Target, ...] = (
    Target(
        "playground: Python ready in < 3 s on a quiet machine (issue 35; reported, never asserted)",
        "playground_ready",
        "ours",
        "seconds",
        3.0,
    ),
    Target(
        "explorer: an MLP batch's page (~3,600 Values) in <= 20 s (learnability)",
        "explore_page",
        "MLP batch: the moons loss of 8 samples",
        "seconds",
        20.0,
    ),
    Target(
        "explorer: an nn.GPT step's page in <= 60 s (learnability)",
        "explore_page",
        "nn.GPT: a training step's loss on one name",
        "seconds",
        60.0,
    ),
    Target(
        "explorer: an nn.GPT step's page <= 30 MB (learnability)",
        "explore_page",
        "nn.GPT: a training step's loss on one name",
        "page MB",
        30.0,
    ),
    Target(
        "explorer: an nn.GPT step in boxes in <= 60 s (learnability)",
        "explore_page",
        "nn.GPT: the same step in boxes (scopes=)",
        "seconds",
        60.0,
    ),
    Target(
        "explorer: an nn.GPT step in boxes <= 30 MB (learnability)",
        "explore_page",
        "nn.GPT: the same step in boxes (scopes=)",
        "page MB",
        30.0,
    ),
    Target("training step >= 10x faster than micrograd 0.1.0 (gc on)", "train_step", "ours", "speedup", 10.0),
    Target(
        "training step faster than micrograd 0.1.0 with gc off",
        "train_step",
        "ours",
        "speedup",
        1.0,
        baseline=REF_GC_OFF,
    ),
    Target("same loss trajectory (max relative difference <= 1e-9)", "train_step", "ours", "agreement", 1e-9),
    Target("bytes per node <= half of micrograd 0.1.0's", "graph_memory", "ours", "ratio", 0.5),
    Target("1,000,000-node chain backward < 3 s", "chain_backward", "ours", "seconds", 3.0),
    Target(
        "batched compiled replay within 3x of the numpy floor (issue 15)",
        "train_step",
        BATCHED,
        "ratio",
        3.0,
        baseline=NUMPY_FLOOR,
    ),
    Target(
        "batched compiled replay: trace of the per-sample graph < 50 ms (issue 15)",
        "train_step",
        BATCHED,
        "trace seconds",
        0.05,
    ),
    Target(
        "batched compiled replay: same loss trajectory (max relative difference <= 1e-9)",
        "train_step",
        BATCHED,
        "agreement",
        1e-9,
    ),
    Target("digits: one epoch < 1 s (issue 15)", "digits_epoch", BATCHED, "seconds", 1.0),
    Target(
        "digits: one epoch, batched compiled replay / plain numpy (issue 15: reported, no goal)",
        "digits_epoch",
        BATCHED,
        "ratio",
        None,
        baseline=NUMPY_FLOOR,
    ),
    Target(
        "digits: the same losses as plain numpy (max relative difference <= 1e-9)",
        "digits_epoch",
        BATCHED,
        "agreement",
        1e-9,
    ),
    Target(
        "microgpt's script on our Value no slower than on microgpt's own (lean core; issue 48: >= 1.0x)",
        "microgpt_step",
        MG_OURS,
        "speedup",
        1.0,
        baseline=MG,
    ),
    Target(
        "nn.GPT eager >= 5x microgpt's engine (microgpt track)",
        "microgpt_step",
        GPT_EAGER,
        "speedup",
        5.0,
        baseline=MG,
    ),
    Target(
        "nn.GPT compiled >= 30x microgpt's engine, traces amortised (microgpt track)",
        "microgpt_step",
        GPT_COMPILED,
        "speedup",
        30.0,
        baseline=MG,
    ),
    # Issue 48's table: the targets restated against the floor the bit-for-bit contract allows (the
    # hand-vectorised step with ordered sums, in the same run), each row with its target.
    Target(
        "nn.GPT compile_loss(batched=True), 16 names a step, >= 300x microgpt's engine per name (issue 48)",
        "microgpt_step",
        GPT_BATCHED,
        "speedup",
        300.0,
        baseline=MG,
    ),
    Target(
        "nn.GPT batched, per name, within 2x the numpy floor with ordered sums at 16 names (issue 48)",
        "microgpt_step",
        GPT_BATCHED,
        "ratio",
        2.0,
        baseline=GPT_FLOOR_ORDERED_16,
    ),
    Target(
        "nn.GPT compile_loss(), one name a step, within 3x the numpy floor with ordered sums (issue 48)",
        "microgpt_step",
        GPT_COMPILED,
        "ratio",
        3.0,
        baseline=GPT_FLOOR_ORDERED,
    ),
    Target(
        "nn.GPT compile_loss(), one name a step, >= 60x microgpt's engine (issue 48)",
        "microgpt_step",
        GPT_COMPILED,
        "speedup",
        60.0,
        baseline=MG,
    ),
    Target(
        "nn.GPT batched: 1,000 steps of 16 names in <= 12 s, traces and Adam included (issue 48)",
        "microgpt_step",
        GPT_BATCHED,
        "run seconds",
        12.0,
    ),
    # (the microgpt script's row, >= 1.0x its own engine, is the "lean core" target above)
    # Issue 48, item 7: the floors side by side, reported, never a switch to BLAS.
    Target(
        "numpy floor, ordered sums, one name a step: speedup over microgpt's engine (reported, no goal)",
        "microgpt_step",
        GPT_FLOOR_ORDERED,
        "speedup",
        None,
        baseline=MG,
    ),
    Target(
        "numpy floor, ordered sums, 16 names a step: speedup per name over microgpt's engine "
        "(reported, no goal)",
        "microgpt_step",
        GPT_FLOOR_ORDERED_16,
        "speedup",
        None,
        baseline=MG,
    ),
    Target(
        "nn.GPT compiled, one name a step / numpy floor with BLAS (issue 48: reported, no goal)",
        "microgpt_step",
        GPT_COMPILED,
        "ratio",
        None,
        baseline=GPT_FLOOR,
    ),
    Target(
        "nn.GPT batched, per name / numpy floor with BLAS at 16 names (issue 48: reported, no goal)",
        "microgpt_step",
        GPT_BATCHED,
        "ratio",
        None,
        baseline=GPT_FLOOR_16,
    ),
)
