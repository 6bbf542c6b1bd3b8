"""The playground's lab, "Build micrograd" (``?tab=lab``): notebook 05 in the page, graded by
``check_engine``'s own code in a worker where the learner's code never runs.

First in this Python: the steps are notebook 05's (its cells, its solutions, its ``only=``);
``grade_recorded`` on ``record``'s answers gives ``check_engine``'s very lines, for a wrong class
and a right one; a malformed or late recording is reported, never read as right; the learner's
graph is drawn with every label of theirs escaped.  Then the built playground in headless
Chromium: the lab done twice, once wrong (``=`` for ``+=``, tanh's ``1 - t``: the WRONG lines and
their hints on the page) and once right, through every step to microgpt trained on the learner's
Value (its loss falling); Stop and the time limit restart the learner's Python; the code stays
between visits; the download, the export, the spoiler and the teacher's link.  Screenshots at
1280x800: /tmp/shots/lab/."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from micrograd.exercises import check_engine
from micrograd.exercises.engine.recorded import grade_recorded
from tests.browser_support import MISSING, chromium

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path("/tmp/shots/lab")
TIMEOUT = 240  # seconds for the page's Pythons to start on a busy 2-core machine
MARKUP = "<img src=x onerror=alert(1)>"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "playground" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


lab_steps, lab_runner, lab_grader = _load("lab_steps"), _load("lab_runner"), _load("lab_grader")
STEPS = lab_steps.read_steps()
ADD_RIGHT = "self.grad += out.grad\n        other.grad += out.grad"
ADD_WRONG = "self.grad = out.grad\n        other.grad = out.grad"
TANH_RIGHT, TANH_WRONG = "(1 - t**2)", "(1 - t)"


def solution(k: int, wrong: bool = False) -> str:
    code = str(STEPS["steps"][k]["solution"])
    if wrong:
        code = code.replace(ADD_RIGHT, ADD_WRONG).replace(TANH_RIGHT, TANH_WRONG)
    return code


def whole(wrong: bool = False) -> str:
    cells = [solution(k, wrong) for k, s in enumerate(STEPS["steps"]) if s["solution"] is not None]
    return "\n\n".join([STEPS["header"], *cells])


def index_of(title_start: str) -> int:
    return next(k for k, s in enumerate(STEPS["steps"]) if s["title"].startswith(title_start))


# ---- in this Python ------------------------------------------------------------------------


@pytest.mark.parametrize("module", [lab_steps, lab_runner, lab_grader], ids=lambda m: m.__name__)
def test_the_lab_modules_examples_hold(module: ModuleType) -> None:
    import doctest

    failed, tried = doctest.testmod(module)
    assert tried > 0 and failed == 0


def test_the_steps_are_notebook_05s_cells() -> None:
    exercise, solutions = lab_steps.cells(lab_steps.EXERCISE), lab_steps.cells(lab_steps.SOLUTIONS)
    steps = STEPS["steps"]
    assert steps[0]["starter"] == exercise[3][1] and steps[0]["solution"] == solutions[3][1]
    add = index_of("1. Addition")
    assert steps[add]["starter"] == exercise[5][1] and "raise NotImplementedError" in steps[add]["starter"]
    assert steps[add]["solution"] == solutions[5][1] and ADD_RIGHT in steps[add]["solution"]
    assert TANH_RIGHT in steps[index_of("6. The hyperbolic")]["solution"]
    assert [s["only"] for s in steps[1:]] == [
        ["+"],
        ["*"],
        ["+", "*", "backward"],
        ["**", "-", "/"],
        ["exp"],
        ["tanh"],
        ["relu"],
        ["log"],
        None,
    ]
    assert STEPS["finale"].startswith("karpathy's microgpt")


def lines_of(result: Any) -> list[tuple[str, str, str, str]]:
    return [(ln.status, ln.check, ln.message, ln.hint) for ln in result.lines]


@pytest.mark.parametrize("only", [["+", "*", "backward"], ["tanh"], ["**", "-", "/"]])
@pytest.mark.parametrize("wrong", [True, False])
def test_grading_recorded_answers_gives_check_engines_lines(only: list[str], wrong: bool) -> None:
    assert lab_runner.load(whole(wrong))["ok"]
    texts = list(lab_runner.texts(only))
    recorded = grade_recorded("Value", texts, only=only)
    direct = check_engine(lab_runner.STATE["cls"], only=only, quiet=True)
    assert lines_of(recorded) == lines_of(direct) and recorded.verdict == direct.verdict
    page = lab_grader.grade("Value", texts, only, "ended", 60.0)
    assert page["text"] == str(direct) and page["verdict"] == direct.verdict


def test_the_wrong_class_gets_the_wrong_lines_and_hints() -> None:
    assert lab_runner.load(whole(wrong=True))["ok"]
    table = lab_grader.grade("Value", list(lab_runner.texts(None)), None, "ended", 60.0)
    lines = {ln["check"]: ln for ln in table["lines"]}
    assert table["verdict"] == "WRONG"
    assert lines["backward: accumulation (+=)"]["message"] == "b = a + a at a=3: a.grad is 1, should be 2"
    assert "with = the second overwrites the first" in lines["backward: accumulation (+=)"]["hint"]
    assert lines["tanh"]["message"] == "tanh(a) at a=0.5: a.grad is 0.537883, should be 0.786448"
    assert lines["tanh"]["hint"] == (
        "look at tanh's _backward (`self.grad += (1 - t) * out.grad`): "
        "d tanh(a)/da = 1 - tanh(a)**2, each times out.grad"
    )


@pytest.mark.parametrize(
    ("texts", "said"),
    [
        (["not json"], "it sent a message that is not JSON"),
        ([42], "it sent a message that is not a line of JSON"),
        (['{"class": {"problem": null, "has": ["__add__"], "code": {}, "verdict": "RIGHT"}}'], "keys"),
    ],
)
def test_a_malformed_recording_is_wrong_never_right(texts: list[Any], said: str) -> None:
    result = grade_recorded("Value", texts, only="+")
    assert result.verdict == "WRONG" and said in result.lines[0].message


def test_a_late_recording_is_a_timeout_of_that_case() -> None:
    assert lab_runner.load(whole())["ok"]
    texts = list(lab_runner.texts(["tanh"]))
    result = grade_recorded("Value", texts[:5], only="tanh", end="late", seconds=60)
    # the reading stopped in "+", a part not asked for: its line is shown all the same, never RIGHT
    assert result.verdict == "TIMED OUT"
    assert [(ln.status, ln.check, ln.message) for ln in result.lines] == [
        ("TIMEOUT", "+", "ran longer than 60 s and was stopped")
    ]
    assert "timeout=" not in result.lines[0].hint.split("check_engine(")[0]  # no argument the page lacks


def test_the_learners_graph_is_drawn_with_their_labels_escaped() -> None:
    op = "<svg onload=f()>"  # an op name of the learner's (the worker sends at most 20 characters)
    assert lab_runner.load(whole(wrong=True).replace('"tanh")', f"{op!r})"))["ok"]
    spec = ["lecture", 1]
    data = lab_runner.graph(spec)
    assert [n["name"] for n in data["nodes"]][-1] == "o" and op in {n["op"] for n in data["nodes"]}
    drawn = lab_grader.picture(data, spec)
    assert op not in drawn["svg"] and "&lt;svg onload=f()&gt;" in drawn["svg"]
    assert drawn["wrong"] == [
        "b",
        "w1",
        "x1",
        "x1w1",
        "x2",
        "x2w2",
        "x1w1x2w2",
        "n",
    ]  # w2.grad is 0 either way
    assert "grad 0.2929" in drawn["svg"] and "right: 6.8814, grad 0.5000" in drawn["svg"]  # b: theirs, ours
    assert lab_grader.picture({"nodes": "no"}, spec) == {"error": "the learner worker sent no graph"}
    odd = lab_grader.picture({"nodes": [{"name": "b", "operands": 5, "data": "x", "grad": None}]}, spec)
    assert "data x" in odd["svg"] and "grad ?" in odd["svg"] and odd["wrong"] == ["b"]


# ---- the page in headless Chromium ---------------------------------------------------------


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if MISSING is not None:
        pytest.skip(MISSING)
    spec = importlib.util.spec_from_file_location(
        "build_playground", ROOT / "scripts" / "build_playground.py"
    )
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    site = tmp_path_factory.mktemp("site")
    builder.build(site / "playground")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}/playground/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, base: str) -> Iterator[Any]:
    flags = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",)
    driver = chromium(tmp_path_factory, (1280, 800), flags)
    try:
        open_lab(driver, base + "index.html?tab=lab&step=1")
        yield driver
    finally:
        driver.quit()


def open_lab(d: Any, url: str) -> None:
    d.get(url)
    wait(
        d,
        "window.mgLab && window.mgLab.loaded && window.mgLab.learnerReady && window.mgLab.graderReady",
        TIMEOUT,
    )


def wait(d: Any, script: str, timeout: float = 120) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = d.execute_script(f"return {script}")
        if value:
            return value
        if time.monotonic() > end:
            said = d.execute_script("return document.getElementById('lab-status').textContent")
            raise AssertionError(f"waited {timeout} s for {script}; the lab says: {said}")
        time.sleep(0.3)


def go(d: Any, k: int) -> None:
    d.execute_script(f"document.querySelector('#lab-steps [data-step=\"{k}\"]').click()")


def write(d: Any, code: str) -> None:
    d.execute_script(
        "const e = document.getElementById('lab-editor'); e.value = arguments[0];"
        "e.dispatchEvent(new Event('input'));",
        code,
    )


def check(d: Any, timeout: float = 180) -> dict[str, Any]:
    d.execute_script("window.mgLab.verdict = null; document.getElementById('lab-check').click()")
    wait(d, "window.mgLab.busy === null && window.mgLab.verdict !== null", timeout)
    rows = d.execute_script(
        "return [...document.querySelectorAll('#lab-lines tr')].map(r => [r.dataset.check, r.textContent])"
    )
    return {"verdict": d.execute_script("return window.mgLab.verdict"), "rows": dict(rows)}


def shot(d: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    d.save_screenshot(str(SHOTS / f"{name}.png"))


def test_the_lab_done_wrong_shows_the_wrong_lines_and_hints(page: Any) -> None:
    d = page
    assert d.execute_script("return document.getElementById('lab-title').textContent") == "1. Addition, a + b"
    shot(d, "wrong-00-open")
    assert check(d)["verdict"] == "NOT WRITTEN YET"
    for k in range(1, index_of("3. Backward") + 1):
        go(d, k)
        write(d, solution(k, wrong=True))
    seen = check(d)
    assert seen["verdict"] == "WRONG"
    accumulation = seen["rows"]["backward: accumulation (+=)"]
    assert accumulation.startswith(
        "WRONGbackward: accumulation (+=): b = a + a at a=3: a.grad is 1, should be 2"
    )
    assert (
        "hint: a is both self and other of one +" in accumulation
        and "with = the second overwrites" in accumulation
    )
    assert seen["rows"]["+"].startswith("RIGHT")  # alone, a + b never shows the overwrite
    d.execute_script("document.getElementById('lab-lines').scrollIntoView()")
    shot(d, "wrong-03-backward")
    tanh = index_of("6. The hyperbolic")
    go(d, tanh)
    write(d, solution(tanh, wrong=True))
    seen = check(d)
    assert seen["verdict"] == "WRONG"
    assert seen["rows"]["tanh"] == (
        "WRONGtanh: tanh(a) at a=0.5: a.grad is 0.537883, should be 0.786448"
        "hint: look at tanh's _backward (`self.grad += (1 - t) * out.grad`): "
        "d tanh(a)/da = 1 - tanh(a)**2, each times out.grad"
    )
    shot(d, "wrong-06-tanh")
    d.execute_script("document.getElementById('lab-explore').click()")
    wait(d, "window.mgLab.busy === null && window.mgLab.picture !== null")
    picture = d.execute_script("return window.mgLab.picture")
    assert picture["wrong"][-1] == "n" and "o" not in picture["wrong"]  # o's own grad is 1, n's is off
    d.execute_script("document.getElementById('lab-explorer-box').scrollIntoView()")
    shot(d, "wrong-06-tanh-explorer")
    badges = d.execute_script(
        "return [...document.querySelectorAll('#lab-steps button')].map(b => b.dataset.verdict)"
    )
    assert badges[index_of("3. Backward")] == "WRONG" and badges[tanh] == "WRONG"


def test_stop_and_the_time_limit_restart_the_learners_python(page: Any) -> None:
    d = page
    add = index_of("1. Addition")
    go(d, add)
    write(d, "def __add__(self, other):\n    while True:\n        pass\n\n\nValue.__add__ = __add__\n")
    restarts = d.execute_script("return window.mgLab.restarts")
    d.execute_script("document.getElementById('lab-check').click()")
    wait(d, "window.mgLab.busy === 'check'")
    time.sleep(2)
    d.execute_script("document.getElementById('lab-stop').click()")
    assert d.execute_script("return window.mgLab.stopped").startswith("stopped: you pressed Stop")
    wait(d, f"window.mgLab.restarts === {restarts + 1} && window.mgLab.learnerReady", TIMEOUT)
    d.execute_script("window.mgLab.limitMs = 4000")  # the page's limit is a minute; a test's is shorter
    seen = check(d, TIMEOUT)
    d.execute_script("window.mgLab.limitMs = 60000")
    assert seen["verdict"] == "TIMED OUT"
    assert seen["rows"]["+"].startswith("TIMED OUT+: ran longer than 4 s and was stopped")
    assert "time limit: your code ran longer than 4 s" in d.execute_script(
        "return document.getElementById('lab-status').textContent"
    )
    d.execute_script("document.getElementById('lab-heading').scrollIntoView()")
    shot(d, "timeout")
    wait(d, f"window.mgLab.restarts === {restarts + 2} && window.mgLab.learnerReady", TIMEOUT)


def test_the_lab_done_right_trains_microgpt_on_the_learners_value(page: Any) -> None:
    d = page
    verdicts = {}
    for k, step in enumerate(STEPS["steps"]):
        go(d, k)
        if step["starter"] is not None:
            write(d, solution(k))
        if step["check"]:
            verdicts[step["title"]] = check(d, 600)["verdict"]
        shot(d, f"right-{k:02d}")
    assert set(verdicts.values()) <= {"RIGHT SO FAR", "RIGHT"}, verdicts
    assert verdicts["The whole class"] == "RIGHT"
    assert d.execute_script("return !document.getElementById('lab-finale').hidden")
    d.execute_script(
        "document.getElementById('lab-gpt-steps').value = '10'; document.getElementById('lab-gpt').click()"
    )
    wait(d, "window.mgLab.gpt && window.mgLab.gpt.done", 900)
    gpt = d.execute_script("return window.mgLab.gpt")
    losses = gpt["losses"]
    assert len(losses) == 10 and sum(losses[-3:]) / 3 < sum(losses[:3]) / 3 - 0.1  # falling
    assert losses == pytest.approx(cpython_losses(10), rel=1e-9)  # the page's numbers are this Python's
    assert gpt["same"] and gpt["rate"] > 0 and gpt["builtin"] > 0 and len(gpt["samples"]) == 8
    d.execute_script("document.getElementById('lab-finale').scrollIntoView()")
    shot(d, "right-finale")
    print(
        f"\nmicrogpt in the page: your Value {gpt['rate']:.2f} steps/s, "
        f"built-in {gpt['builtin']:.2f}; {losses}"
    )


def cpython_losses(steps: int) -> list[float]:
    """microgpt's losses with this engine's Value in this Python, as the page trains it (the
    names as the build writes them)."""
    import tempfile

    from micrograd import Value
    from nn.datasets import load_names

    with tempfile.TemporaryDirectory(prefix="lab-names-") as folder:
        names = Path(folder) / "names.txt"
        names.write_text("\n".join(load_names()) + "\n", encoding="ascii")
        lab_runner.STATE["cls"] = Value
        lab_runner.gpt_start(steps, "built-in", str(names))
        return list(lab_runner.gpt_steps(steps))


def run_file(code: str, folder: Path) -> str:
    """What ``python my_micrograd.py`` prints, with this checkout's micrograd."""
    import os
    import subprocess

    path = folder / "my_micrograd.py"
    path.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=folder,
        check=False,
    )
    return done.stdout + done.stderr


def test_the_code_stays_and_downloads_and_the_verdicts_export(
    page: Any, base: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    d = page
    tanh = index_of("6. The hyperbolic")
    go(d, tanh)
    write(d, solution(tanh, wrong=True) + "\n# mine\n")
    open_lab(d, base + f"index.html?tab=lab&step={tanh}")
    assert d.execute_script("return document.getElementById('lab-editor').value").endswith("# mine\n")
    py_file = d.execute_script("return window.mgLab.pyFile()")
    assert py_file.startswith(STEPS["header"]) and TANH_WRONG in py_file and "check_engine(Value)" in py_file
    ran = run_file(py_file, tmp_path_factory.mktemp("download"))  # the download runs in any Python
    assert "WRONG tanh: tanh(a) at a=0.5: a.grad is 0.537883, should be 0.786448" in ran
    assert "verdict: WRONG (tanh)" in ran
    exported = d.execute_script("return window.mgLab.exportText()")
    assert (
        "== The whole class: RIGHT" in exported
        and "OK    microgpt: backward: all 4192 gradients right" in exported
    )
    d.execute_script("document.getElementById('lab-export').click()")
    assert d.execute_script("return document.getElementById('lab-export-text').value").startswith(
        "micrograd lab"
    )
    # the spoiler: one click says it is one, a second shows the code
    d.execute_script("document.getElementById('lab-solution-button').click()")
    assert d.execute_script("return document.getElementById('lab-solution-code').hidden")
    d.execute_script("document.getElementById('lab-solution-show').click()")
    assert d.execute_script("return document.getElementById('lab-solution-code').textContent") == solution(
        tanh
    )
    assert not d.execute_script("return document.getElementById('lab-stale').hidden")  # edited since
    d.execute_script("document.getElementById('lab-solution').scrollIntoView()")
    shot(d, "spoiler")
    link = d.execute_script("return window.mgLab.teacherLink()")
    assert link.endswith(f"?tab=lab&step={tanh}&solutions=hidden")
    open_lab(d, link)
    assert d.execute_script("return document.getElementById('lab-solution-button').hidden")
    assert not d.execute_script("return document.getElementById('lab-teacher-note').hidden")
    assert d.execute_script("return document.getElementById('lab-title').textContent").startswith(
        "6. The hyperbolic"
    )
    shot(d, "teacher-link")


def test_the_tabs_switch_to_and_from_the_lab(page: Any, base: str) -> None:
    d = page
    open_lab(d, base + "index.html?tab=lab")
    # opened on the lab, the engine tab's Python has not started: the lab's two are the page's
    assert d.execute_script("return document.body.dataset.readyMs === undefined")
    d.find_element("css selector", "#tabs [data-tab=engine]").click()
    assert not d.find_element("id", "lab-section").is_displayed()
    assert d.find_element("id", "code-section").is_displayed() and "tab=" not in d.current_url
    wait(d, "document.body.dataset.readyMs !== undefined", TIMEOUT)  # shown, it starts
    d.find_element("css selector", "#tabs [data-tab=lab]").click()
    assert d.find_element("id", "lab-section").is_displayed() and "tab=lab" in d.current_url
    assert not d.find_element("id", "code-section").is_displayed()
    assert not d.find_element("id", "gpt-section").is_displayed()
    selected = d.find_element("css selector", "#tabs [aria-selected=true]")
    assert selected.get_attribute("data-tab") == "lab"
