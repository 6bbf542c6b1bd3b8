"""The playground's GPT tab: microgpt (``nn.GPT``) learning names in the browser.

First ``playground/gpt_runner.py`` (what the tab's worker runs) in this Python: typed names are
checked with a clear message, an added name is the next one trained, the attention of a name is
each head's softmax over its positions, a step opens in the explorer in boxes.  Then the built
playground in headless Chromium from a local server, opened at ``?tab=gpt``: the tab is shown at
once, training advances (the step count, the loss curve, a falling loss), samples appear and change
with the temperature, an added name joins the training set, the attention of a typed name is drawn,
names with markup stay text, "Explore this step" opens the explorer, and no request leaves
127.0.0.1.  Steps per second in the browser are printed (with -s) beside this machine's CPython,
eager and compiled, and the load; never asserted.  Screenshots: /tmp/playground-shots/gpt-*.png."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests import browser_support
from tests.browser_support import MISSING, chromium

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path("/tmp/playground-shots")
TIMEOUT = 180  # seconds for Pyodide to start (three workers at once) on a busy 2-core machine
MARKUP = "<img src=x onerror=alert(1)>"
LETTERS = "cannot be a name: use only the letters a to z"
CONTEXT = "the model's context is 16 tokens, so a name has at most 15"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


runner = _load("gpt_runner", ROOT / "playground" / "gpt_runner.py")
NAMES = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper"]


# ---- gpt_runner in this Python -------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "type a name first: at least one letter from a to z"),
        ("   ", "type a name first: at least one letter from a to z"),
        ("anne-marie", "'anne-marie' cannot be a name: use only the letters a to z (found '-')"),
        ("zoë", "'zoë' cannot be a name: use only the letters a to z (found 'ë')"),
        (MARKUP, f"{MARKUP!r} {LETTERS} (found '<', ' ', '=', '(', '1', ')', '>')"),
        ("a" * 16, f"{'a' * 16!r} has 16 letters: {CONTEXT}"),
        (None, "a name is text, got NoneType"),
    ],
)
def test_a_bad_name_is_refused_saying_why(typed: object, said: str) -> None:
    with pytest.raises(ValueError) as caught:
        runner.check_name(typed)
    assert str(caught.value) == said
    session = runner.GPTSession(NAMES, seed=0)
    assert session.add(typed) == {"ok": False, "message": said, "name": None}
    assert session.attention(typed) == {"ok": False, "message": said}
    assert session.names_count() == len(NAMES)


def test_a_long_paste_is_not_echoed_whole() -> None:
    said = runner.GPTSession(NAMES, seed=0).add("x" * 30 + "<" * 5000)["message"]
    assert len(said) < 200 and said.endswith("(found '<')")


def test_an_added_name_is_trained_next_and_stays_in_the_set() -> None:
    session = runner.GPTSession(NAMES, seed=0)
    session.step()
    assert session.add(" Zoe ")["message"] == (
        "added 'zoe': the 9th name of the training set, trained at the next step"
    )
    assert session.next_name() == "zoe" and "zoe" in session.names and session.added == ["zoe"]
    again = session.add("zoe")
    assert again == {"ok": False, "message": "'zoe' is already in the training set", "name": "zoe"}
    session.step()
    assert session.steps == 2 and session.names_count() == len(NAMES) + 1


def test_attention_is_each_heads_softmax_over_the_names_positions() -> None:
    session = runner.GPTSession(NAMES, seed=0)
    shown = session.attention("Emma")
    assert shown["labels"] == ["BOS", "e", "m", "m", "a"] and len(shown["heads"]) == 4
    for grid in shown["heads"]:
        assert [len(row) for row in grid] == [1, 2, 3, 4, 5]  # position t sees 0..t
        assert all(abs(sum(row) - 1.0) < 1e-12 for row in grid)


def test_training_lowers_the_loss_and_samples_follow_the_temperature() -> None:
    session = runner.GPTSession(runner.read_names(names_file()), seed=0)
    losses = [session.step() for _ in range(60)]  # from about 3.04 a step to 2.51, over the first 60 names
    assert sum(losses[-20:]) / 20 < sum(losses[:20]) / 20 - 0.25
    cold, hot = session.samples(8, 0.5), session.samples(8, 1.5)
    assert len(cold) == 8 and cold != hot and cold == session.samples(8, 0.5)
    for bad in (0.0, -1.0, float("nan"), 99.0):
        with pytest.raises(ValueError, match=r"the temperature must be a number from 0\.05 to 5"):
            session.samples(8, bad)


def test_the_compiled_replay_trains_as_the_eager_graph() -> None:
    pytest.importorskip("numpy")
    eager, compiled = (runner.GPTSession(NAMES, seed=3, compiled=c) for c in (False, True))
    assert (eager.mode, compiled.mode) == ("eager", "compiled")
    for _ in range(10):
        assert compiled.step() == pytest.approx(eager.step(), rel=1e-9)


def test_explore_step_is_a_training_step_shown_in_boxes() -> None:
    session = runner.GPTSession(["al", "jo"], seed=0)
    shown = session.explore_step()
    assert shown["ok"] and shown["title"] == f"step 1, the name {session.names[0]!r}"
    assert session.steps == 1 and session.losses == [shown["loss"]]
    assert 'id="mg-data"' in shown["html"] and "position 0" in shown["html"]


def names_file() -> Path:
    """The names.txt the build writes (the build's own function), in a temporary folder."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="gpt-names-"))
    return Path(_builder().write_names(folder))


def _builder() -> ModuleType:
    return _load("build_playground", ROOT / "scripts" / "build_playground.py")


def test_the_build_ships_every_name_of_load_names() -> None:
    from nn.datasets import load_names

    assert runner.read_names(names_file()) == load_names()


# ---- the tab in headless Chromium ----------------------------------------------------------


SERVED: list[str] = []  # every path the server was asked for, the workers' requests included


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        SERVED.append(self.path)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The playground built as `make docs` builds it, served on 127.0.0.1; its base URL."""
    if MISSING is not None:
        pytest.skip(MISSING)
    site = tmp_path_factory.mktemp("site")
    _builder().build(site / "playground")
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}/playground/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, base: str) -> Iterator[Any]:
    """Chromium (1280x800, no host but 127.0.0.1 resolves) on ``?tab=gpt``, once its Python is ready."""
    flags = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",)
    driver = chromium(tmp_path_factory, (1280, 800), flags, ("browser", "performance"))
    try:
        driver.get(base + "index.html?tab=gpt")
        wait(driver, "window.mgGpt && window.mgGpt.ready", TIMEOUT)
        yield driver
    finally:
        driver.quit()


def wait(d: Any, script: str, timeout: float = 60) -> Any:
    """Poll ``script`` (a JS expression) until it is truthy; return its value."""
    end = time.monotonic() + timeout
    while True:
        value = d.execute_script(f"return {script}")
        if value:
            return value
        error = d.execute_script("return window.mgGpt && window.mgGpt.error")
        if error:
            raise AssertionError(f"the GPT tab's Python failed, waiting for {script}:\n{error}")
        if time.monotonic() > end:
            status = d.execute_script("return document.getElementById('gpt-status')?.textContent")
            raise AssertionError(f"timed out waiting for {script} (GPT tab: {status!r})")
        time.sleep(0.25)


def gpt(d: Any) -> dict[str, Any]:
    state: dict[str, Any] = d.execute_script("return window.mgGpt")
    return state


def text(d: Any, element_id: str) -> str:
    return str(d.execute_script(f"return document.getElementById({element_id!r}).textContent"))


def shot(d: Any, name: str, scroll_to: str | None = None) -> Path:
    return browser_support.shot(d, SHOTS, f"gpt-{name}", scroll_to)


def pause(d: Any) -> dict[str, Any]:
    if gpt(d)["playing"]:
        d.find_element("id", "gpt-play").click()
    return wait(d, "!window.mgGpt.playing && window.mgGpt", 60)  # type: ignore[no-any-return]


def play(d: Any) -> None:
    if not gpt(d)["playing"]:
        d.find_element("id", "gpt-play").click()
    wait(d, "window.mgGpt.playing", 30)


def submit(d: Any, field: str, typed: str) -> None:
    box = d.find_element("id", field)
    box.clear()
    box.send_keys(typed)
    d.find_element("id", f"{field}-button").click()


def test_tab_gpt_opens_the_tab(page: Any) -> None:
    assert page.find_element("id", "gpt-section").is_displayed()
    assert not page.find_element("id", "code-section").is_displayed()
    selected = page.find_element("css selector", "#tabs [aria-selected=true]")
    assert selected.get_attribute("data-tab") == "gpt"
    # the other tab is a click away, and the URL follows the tabs
    page.find_element("css selector", "#tabs [data-tab=engine]").click()
    assert page.find_element("id", "code-section").is_displayed()
    assert "tab=gpt" not in page.current_url
    wait(page, "!window.mgGpt.playing", 30)  # the hidden tab's training pauses
    page.find_element("css selector", "#tabs [data-tab=gpt]").click()
    assert page.find_element("id", "gpt-section").is_displayed() and "tab=gpt" in page.current_url


def test_the_tabs_python_is_restored_from_the_snapshot_unless_numpy_is_shipped(page: Any) -> None:
    """The GPT tab's worker restores the build's memory snapshot (gpt_runner already imported) when
    the site has no numpy to load; with numpy it starts Python itself.  Its ready time is printed."""
    state = gpt(page)
    shipped = state["numpy"] not in ("the site does not ship Pyodide's numpy", "this Pyodide has no numpy")
    assert state["bootFrom"] == ("start" if shipped else "snapshot"), state["numpy"]
    ready = state["readyMs"] / 1000
    print(f"\nGPT tab: Python ready {ready:.2f} s after the page opened, from {state['bootFrom']}")


def test_training_advances_and_the_loss_falls(page: Any) -> None:
    play(page)
    start = gpt(page)["steps"]
    wait(page, "window.mgGpt.steps >= 20 && window.mgGpt.samples.length", 240)
    shot(page, "training-early")
    wait(page, "window.mgGpt.steps >= 150 && window.mgGpt", 600)
    time.sleep(2)  # a few more slices for a steady rate
    # mid-training: the curve, the samples and the attention of "isabella", redrawn together
    version = gpt(page)["samplesVersion"]
    wait(page, f"window.mgGpt.samplesVersion > {version}", 120)
    time.sleep(0.5)
    shot(page, "training")
    state = gpt(page)
    losses = state["losses"]
    assert len(losses) == state["steps"] >= 150 and int(text(page, "gpt-steps")) == state["steps"]
    first, last = sum(losses[:20]) / 20, sum(losses[-50:]) / 50
    assert last < first, (first, last)
    rate = state["stepsPerSecond"]
    assert rate > 0 and text(page, "gpt-sps") not in ("", "–")
    pause(page)  # CPython's rates measured with the browser idle, not competing with it
    eager, compiled = cpython_rates()
    print(
        f"\nGPT tab: {rate:.2f} steps per second in headless Chromium ({state['mode']}: {state['numpy']}); "
        f"CPython here, now: eager {eager:.1f}, compiled {compiled:.1f}; loss {first:.3f} -> {last:.3f} "
        f"over {state['steps'] - start} steps; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    # The curve was drawn: its canvas is not blank.
    assert painted(page, "gpt-losses")


def cpython_rates(steps: int = 20) -> tuple[float, float]:
    """The same training's steps per second in this machine's CPython, eager and compiled."""
    names = runner.read_names(names_file())
    rates = []
    for compiled in (False, True):
        session = runner.GPTSession(names, seed=0, compiled=compiled)
        if session.replay is not None:  # a trace per name length, made first: the rate is the replay's
            for name in {len(n): n for n in names}.values():
                session.replay.backward(session.tok.document(name))
        start = time.perf_counter()
        for _ in range(steps):
            session.step()
        rates.append(steps / (time.perf_counter() - start))
    return rates[0], rates[1]


def painted(d: Any, canvas: str) -> bool:
    return bool(
        d.execute_script(
            f"const c = document.getElementById({canvas!r}), px = c.getContext('2d')"
            ".getImageData(0, 0, c.width, c.height).data;"
            "let n = 0; for (let k = 3; k < px.length; k += 4) if (px[k]) n++; return n > 500"
        )
    )


def test_samples_appear_and_change_with_the_temperature(page: Any) -> None:
    pause(page)
    before = wait(page, "window.mgGpt.samples.length === 8 && window.mgGpt")
    items = "[...document.querySelectorAll('#gpt-samples li')]"
    shown = page.execute_script(f"return {items}.map((li) => li.textContent)")
    assert len(shown) == 8 and all(isinstance(s, str) for s in shown)
    page.execute_script(
        "const t = document.getElementById('gpt-temp'); t.value = '1.5'; t.dispatchEvent(new Event('input'))"
    )
    wait(page, f"window.mgGpt.samplesVersion > {before['samplesVersion']}", 60)
    after = gpt(page)
    assert after["temperature"] == 1.5 and text(page, "gpt-temp-value") == "1.5"
    assert after["samples"] != before["samples"] and after["steps"] == before["steps"]
    print(f"\nGPT tab samples at step {after['steps']}: 0.5 {before['samples']}; 1.5 {after['samples']}")


def test_a_temperature_python_refuses_shows_pythons_message_and_keeps_the_last(page: Any) -> None:
    # The slider stops at 0.1; a value past it (as a page script could send) reaches Python, which
    # refuses it: the tab says so in Python's words, not where the worker's JS called Python.
    pause(page)
    before = wait(page, "window.mgGpt.samples.length === 8 && window.mgGpt")
    slide = (
        "const t = document.getElementById('gpt-temp'); t.min = arguments[0]; t.value = arguments[1]; "
        "t.dispatchEvent(new Event('input'))"
    )
    page.execute_script(slide, "0", "0")
    end = time.monotonic() + 60
    while not page.execute_script("return window.mgGpt.error") and time.monotonic() < end:
        time.sleep(0.25)
    said = text(page, "gpt-status")
    shot(page, "temperature-refused")
    python = "ValueError: the temperature must be a number from 0.05 to 5, got 0"
    assert said == f"error: {python} (the console has the traceback)"
    assert "boot.mjs" not in said and "Traceback" in gpt(page)["error"]
    # The traceback went to the console, as said: read (and so cleared) here, the one error expected
    logged = [e["message"] for e in page.get_log("browser") if e["level"] == "SEVERE"]
    assert logged and all("the temperature must be a number from 0.05 to 5" in m for m in logged), logged
    # Training goes on at the temperature before (a refused 0 would fail again at the next samples).
    page.execute_script("window.mgGpt.error = null")
    play(page)
    wait(page, f"window.mgGpt.steps > {before['steps'] + 30}", 120)
    after = pause(page)
    assert after["temperature"] == before["temperature"] and not after["error"]
    page.execute_script(slide, "0.1", str(before["temperature"]))


def test_an_added_name_joins_the_training_set(page: Any) -> None:
    pause(page)
    count = wait(page, "window.mgGpt.names", 120)  # (0 until the worker's first report: then it counts)
    submit(page, "gpt-add", "Qwerzy")
    wait(page, "window.mgGpt.added && window.mgGpt.added.ok && window.mgGpt.names > " + str(count), 60)
    assert text(page, "gpt-add-message").startswith("added 'qwerzy': the ")
    assert text(page, "gpt-next") == "qwerzy" and text(page, "gpt-names") == str(count + 1)
    submit(page, "gpt-add", "qwerzy")
    wait(page, "window.mgGpt.added && !window.mgGpt.added.ok", 60)
    assert text(page, "gpt-add-message") == "'qwerzy' is already in the training set"


def test_the_attention_of_a_typed_name_is_drawn(page: Any) -> None:
    submit(page, "gpt-attn", "Sophia")
    shown = wait(page, "window.mgGpt.attention?.name === 'sophia' && window.mgGpt.attention")
    assert shown["labels"] == ["BOS", "s", "o", "p", "h", "i", "a"] and len(shown["heads"]) == 4
    assert painted(page, "gpt-attention") and text(page, "gpt-attn-message") == ""
    shot(page, "attention", scroll_to="gpt-heading")


def test_names_with_markup_are_shown_as_text(page: Any) -> None:
    said = f"{MARKUP!r} cannot be a name: use only the letters a to z"
    for field in ("gpt-add", "gpt-attn"):
        submit(page, field, MARKUP)
        wait(page, f"document.getElementById('{field}-message').textContent.includes('cannot be a name')", 60)
        assert text(page, f"{field}-message").startswith(said)
    assert page.execute_script("return document.querySelectorAll('#gpt-section img').length") == 0
    assert gpt(page)["added"]["ok"] is False and gpt(page)["attention"]["ok"] is False
    shot(page, "markup", scroll_to="gpt-heading")


def test_explore_this_step_opens_the_explorer_in_boxes(page: Any) -> None:
    steps = gpt(page)["steps"]
    page.find_element("id", "gpt-explore").click()
    explored = wait(page, "window.mgGpt.explored", 600)
    assert explored["ok"], explored
    assert gpt(page)["steps"] == steps + 1
    assert text(page, "gpt-explorer-title").startswith(f"step {steps + 1}, the name ")
    print(f"\nGPT tab: one step explored (its page made in the worker) in {explored['ms'] / 1000:.1f} s")
    page.switch_to.frame(page.find_element("id", "gpt-explorer"))
    try:
        wait(page, "document.body && document.body.getAttribute('data-mg-ready') === '1'", 120)
        boxes = page.execute_script(
            "return [...document.querySelectorAll('#graph g.mg-box:not(.mg-outside) text')]"
            ".map((t) => t.textContent)"
        )
        assert "position 0" in boxes and "loss at 0" in boxes
    finally:
        page.switch_to.default_content()
    shot(page, "explorer", scroll_to="gpt-explorer")


def test_time_the_ladder_shows_each_rung_and_why_some_are_absent(page: Any) -> None:
    """The speed ladder, timed in the tab's worker: every rung's row, nn.GPT eager's loss the
    reference, microgpt's engine absent (not shipped), numpy's rungs absent when numpy is."""
    pause(page)
    page.find_element("id", "gpt-ladder").click()
    wait(page, "window.mgGpt.ladderProgress && window.mgGpt.ladderProgress.includes('timing rung')", 300)
    result = wait(page, "window.mgGpt.ladder", 600)
    cells = page.execute_script(
        "return [...document.querySelectorAll('#gpt-ladder-table tbody tr')]"
        ".map((tr) => [...tr.cells].map((td) => td.textContent))"
    )
    rows = {row[0]: row for row in cells}
    assert list(rows) == [r["title"] for r in result["rows"]] and len(rows) == 7
    assert rows["microgpt's engine on microgpt's script"][1] == "absent"
    assert "does not ship" in rows["microgpt's engine on microgpt's script"][4]
    eager = rows["nn.GPT, eager"]
    assert eager[1].endswith("s") and eager[3].endswith("(bit for bit)")
    ours = rows["micrograd.Value on microgpt's script"]
    assert ours[2] == "1.00x" and ("apart" in ours[3] or "bit for bit" in ours[3])
    assert text(page, "gpt-ladder-speedup") == "speed-up over micrograd.Value on microgpt's script"
    numpy_rungs = [rows[t] for t in rows if "numpy" in t or "compile_loss" in t]
    if gpt(page)["mode"] == "compiled":  # numpy loaded: its rungs ran, the same losses
        assert rows["nn.GPT, compile_loss()"][3].endswith("(bit for bit)")
        assert all(r[1] != "absent" for r in numpy_rungs)
    else:
        assert all(r[1] == "absent" and "needs numpy" in r[4] for r in numpy_rungs)
    assert "/playground/benchmarks/ladder.py" in SERVED
    print(f"\nGPT tab: the ladder timed in {result['ms'] / 1000:.1f} s: {cells}")
    shot(page, "ladder", scroll_to="gpt-ladder-status")


def test_no_request_leaves_localhost(page: Any) -> None:
    urls = []
    for entry in page.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    ours = [u for u in urls if u.split(":", 1)[0] in ("http", "https")]
    assert ours and all(u.startswith("http://127.0.0.1:") for u in ours), ours
    # The worker's own requests are not in the page's log: the server saw it fetch the names, from
    # the site; nothing else can have gone anywhere, as no host but 127.0.0.1 resolves.
    assert "/playground/names.txt" in SERVED and "/playground/gpt_runner.py" in SERVED
    severe = [e["message"] for e in page.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []
