"""The speed ladder (benchmarks/ladder.py): its rungs agree, and its page shows the saved run."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest

from benchmarks import ladder, report

ROOT = Path(__file__).resolve().parent.parent
SAVED = ROOT / "benchmarks" / "results" / "ladder.json"
PAGE = ROOT / "docs" / "pages" / "ladder.md"


def test_the_page_shows_the_saved_run() -> None:
    run = json.loads(SAVED.read_text())
    block = re.search(r"<!-- saved run -->\n(.*?)\n<!-- /saved run -->", PAGE.read_text(), flags=re.DOTALL)
    assert block, "docs/pages/ladder.md has no <!-- saved run --> block"
    expected = f"{ladder.saved_run_text(run)}"
    assert block.group(1) == expected, (
        "docs/pages/ladder.md: paste the saved run's table (ladder.saved_run_text)"
    )


def test_the_saved_run_is_whole() -> None:
    run = json.loads(SAVED.read_text())
    assert list(run["rungs"]) == [r.key for r in ladder.RUNGS]
    for key, entry in run["rungs"].items():
        assert "absent" not in entry, f"the saved run lacks the rung {key}: {entry.get('absent')}"
        assert len(entry["samples"]) == run["rounds"] and entry["per_name_s"] > 0


@pytest.mark.slow
def test_every_rung_trains_the_same_step() -> None:
    """One round of every rung: the first losses agree as the page says."""
    pytest.importorskip("numpy")
    run = ladder.run(rounds=1)
    rungs = run["rungs"]
    if "absent" in rungs["microgpt"]:
        pytest.skip(f"microgpt's engine could not be fetched: {rungs['microgpt']['absent']}")
    missing = {k: e["absent"] for k, e in rungs.items() if "absent" in e}
    assert not missing, missing
    eager = rungs["gpt_eager"]["loss"]
    # the same arithmetic: compile changes nothing but the time
    assert rungs["compiled"]["loss"] == eager and rungs["batched"]["loss"] == eager
    # microgpt's script on either engine, and nn.GPT: the same model, within microgpt's 6e-16
    for key in ("microgpt", "script_ours"):
        assert math.isclose(rungs[key]["loss"], eager, rel_tol=6e-16), key
    for key in ("floor_ordered", "floor_blas"):  # numpy's own sums in the softmax and rmsnorm
        assert math.isclose(rungs[key]["loss"], eager, rel_tol=1e-12), key
    assert "ulp" in ladder.agreement(math.nextafter(eager, 0.0), eager)
    text = ladder.table(run)
    assert text.count("\n") == len(ladder.RUNGS) + 1 and "bit for bit" in text


def test_a_rung_that_cannot_run_is_shown_absent_with_its_reason() -> None:
    run = {
        "rungs": {
            "microgpt": {
                "title": "microgpt's engine",
                "why": "w",
                "absent": "MicrogptUnavailableError: no index",
            },
            "gpt_eager": {"title": "nn.GPT, eager", "why": "w", "per_name_s": 0.1, "loss": 3.0},
        }
    }
    text = ladder.table(run)
    assert "| microgpt's engine | absent |  |  | MicrogptUnavailableError: no index |" in text
    # the speed-up is over the first rung present
    assert "| nn.GPT, eager | 100 ms | 1.00x | 3.0 (bit for bit) | w |" in text


def test_rounds_below_one_are_refused() -> None:
    with pytest.raises(SystemExit):
        ladder.main(["--rounds", "0"])


def test_the_machine_line_names_the_load() -> None:
    run = json.loads(SAVED.read_text())
    assert report.machine_text(run["machine"]) in ladder.saved_run_text(run)


NAMES = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "zoe", "liam", "noah", "oliver"]


def test_in_process_the_rungs_take_turns_on_the_names_given() -> None:
    """The playground's way (Pyodide has no processes): every rung in this process, on its names."""
    told: list[str] = []
    absent = {"microgpt": "another project's code, not shipped", "floor_blas": "no numpy here"}
    run = ladder.run(
        1, {"script_ours", "gpt_eager"}, names=NAMES, absent=absent, in_process=True, progress=told.append
    )
    assert list(run["rungs"]) == ["microgpt", "script_ours", "gpt_eager", "floor_blas"]
    shuffled = list(NAMES)
    random.Random(ladder.SEED).shuffle(shuffled)
    assert run["name"] == shuffled[0] and "machine" not in run
    for key in ("script_ours", "gpt_eager"):
        entry = run["rungs"][key]
        assert len(entry["samples"]) == 1 and entry["per_name_s"] > 0 and "absent" not in entry
    # microgpt's script on our Value and nn.GPT: the same model, within microgpt's 6e-16
    eager = run["rungs"]["gpt_eager"]["loss"]
    assert math.isclose(run["rungs"]["script_ours"]["loss"], eager, rel_tol=6e-16)
    assert told[-1] == "round 1 of 1: timing rung 2 of 2, nn.GPT, eager"
    rows = {r["title"]: r for r in ladder.rows(run)}
    assert rows["micrograd.Value on microgpt's script"]["speedup"] == "1.00x"
    assert rows["nn.GPT, eager"]["loss"] == f"{eager!r} (bit for bit)"
    for key, reason in absent.items():
        title = run["rungs"][key]["title"]
        assert rows[title]["time"] == "absent" and rows[title]["why"] == reason


def test_a_names_list_sets_the_vocabulary() -> None:
    """Names with fewer letters make a smaller model: the vocabulary comes from the names given."""
    from nn import GPT

    run = ladder.run(1, {"gpt_eager"}, names=["ab", "ba", "aab"], in_process=True)
    ids = {"a": 0, "b": 1}  # and BOS, 2: a vocabulary of 3
    model = GPT(3, ladder.BLOCK_SIZE, ladder.N_LAYER, ladder.N_EMBD, ladder.N_HEAD, seed=ladder.SEED)
    first = model.loss([2, *(ids[c] for c in run["name"]), 2]).data
    assert run["rungs"]["gpt_eager"]["loss"] == first
