"""The docs site's playground in headless Chromium, served by a local static server.

The playground is built with the docs build's own script (scripts/build_playground.py: Pyodide's
runtime from the pinned npm package, this project's wheel) into a temporary site folder and served
by ``http.server`` on 127.0.0.1.  The page runs the lecture's example with no click and explores it
(a.grad 6.0 in the page and in the explorer's frame), and says how long Python took to be ready and
where that went (printed with -s, never asserted); typed code runs and prints, as text; an error
shows its traceback; a shared link's fragment shows its code unrun, with a notice, until the visitor
presses Run (a stranger's js.fetch is not made before; markup in it stays text); opened as a file
the page says at once how to serve it, and `make serve` serves the site; clicks on the field add and remove
points, and training lowers the loss and moves the boundary, its steps per second reported beside
CPython's on the same machine (printed with -s; never asserted, the machines are shared); every request
the browser makes (the workers' included) goes to 127.0.0.1; a copy of the site in another folder,
at another URL path, still works.  Screenshots at 1280x800 go to playground/build/screenshots/
(git-ignored)."""

from __future__ import annotations

import base64
import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.browser_support import MISSING, chromium, needs_browser

pytestmark = [needs_browser]

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "playground" / "build" / "screenshots"
LOAD_TIMEOUT = 90  # seconds for Pyodide to start in a worker on a busy 2-core machine
REQUESTS: list[str] = []  # every URL the browser asked for, from Chromium's performance log
SERVED: list[str] = []  # every path the servers were asked for
NETLOG = Path("netlog.json")  # Chromium's network log (--log-net-log), set by the driver fixture


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_playground", ROOT / "scripts" / "build_playground.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        SERVED.append(self.path)


class Server:
    """``http.server`` on 127.0.0.1 serving ``folder`` from a thread."""

    def __init__(self, folder: Path) -> None:
        handler = functools.partial(_Quiet, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.httpd.server_port}/"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder holding playground/, built as `make docs` builds it."""
    if MISSING is not None:
        pytest.skip(MISSING)
    folder = tmp_path_factory.mktemp("site")
    _builder().build(folder / "playground")
    (folder / "index.html").write_text("<!DOCTYPE html><title>docs</title><p>the documentation\n")
    return folder


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[Server]:
    s = Server(site)
    yield s
    s.close()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium with its console, performance and network logs, a 1280x800 viewport."""
    global NETLOG
    if MISSING is not None:
        pytest.skip(MISSING)
    NETLOG = tmp_path_factory.mktemp("netlog") / "netlog.json"
    flags = (
        "--disable-default-apps",
        f"--log-net-log={NETLOG}",  # every request of the browser, its workers' included
        # Chromium's own background traffic off (autofill, sign-in, updates, network time, ...),
        # and no host but this one resolves: nothing can leave the machine, whoever asks.
        "--no-pings",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--disable-features=AutofillServerCommunication,OptimizationHints,OptimizationGuideModelDownloading,"
        "NetworkTimeServiceQuerying,MediaRouter,DialMediaRouteProvider,Translate,SigninInterception",
        "--homepage=about:blank",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    )
    d = chromium(tmp_path_factory, (1280, 800), flags, ("browser", "performance"))
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield d
    finally:
        d.quit()


def network(d: Any) -> None:
    """Move the URLs of the requests in the performance log into REQUESTS."""
    for entry in d.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            REQUESTS.append(message["params"]["request"]["url"])


def errors(d: Any) -> list[str]:
    return [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]


def shot(d: Any, name: str, scroll_to: str | None = None) -> Path:
    if scroll_to is not None:
        d.execute_script(f"document.getElementById({scroll_to!r}).scrollIntoView()")
        time.sleep(0.2)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    d.save_screenshot(str(path))
    return path


def wait(d: Any, script: str, timeout: float = LOAD_TIMEOUT) -> Any:
    """Poll ``script`` (a JS expression) until it is truthy; return its value."""
    end = time.monotonic() + timeout
    while True:
        value = d.execute_script(f"return {script}")
        if value:
            return value
        if time.monotonic() > end:
            status = d.execute_script("return document.getElementById('status').textContent")
            raise AssertionError(f"timed out waiting for {script} (status: {status!r}); console: {errors(d)}")
        time.sleep(0.2)


def text(d: Any, element_id: str) -> str:
    return str(d.execute_script(f"return document.getElementById({element_id!r}).textContent"))


def values(d: Any) -> dict[str, list[str]]:
    rows = d.execute_script(
        "return [...document.querySelectorAll('#values tbody tr')].map("
        "(tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))"
    )
    return {r[0]: r[1:] for r in rows}


def cpython_rate(steps: int = 4) -> float:
    """The same training's steps per second on this machine's CPython, for comparison."""
    from nn.live import LiveTraining

    live = LiveTraining()
    live.step()
    start = time.perf_counter()
    for _ in range(steps):
        live.step()
    return steps / (time.perf_counter() - start)


def runs(d: Any) -> int:
    return int(d.execute_script("return window.mgPlayground ? window.mgPlayground.runs : 0"))


def run_code(d: Any, code: str) -> None:
    """Type ``code`` into the editor (replacing it) and run it with Ctrl+Enter."""
    from selenium.webdriver.common.keys import Keys

    before = runs(d)
    editor = d.find_element("id", "editor")
    d.execute_script("arguments[0].value = ''", editor)
    editor.send_keys(code)
    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    wait(d, f"window.mgPlayground.runs > {before}", 60)


@pytest.fixture(scope="module")
def page(driver: Any, server: Server) -> Any:
    """The playground, opened; returns the driver once the default example has run."""
    driver.get(server.base + "playground/index.html")
    # Before Python: the page is on screen and says it is loading.
    assert text(driver, "status") == "loading Python…"
    shot(driver, "playground-loading")
    wait(driver, "window.mgPlayground.runs >= 1")
    return driver


def test_the_page_paints_before_python_is_ready_and_says_when_it_was(page: Any) -> None:
    """The static page is on screen before Pyodide has started (its times are reported, not
    asserted: the machines are shared)."""
    paint = page.execute_script(
        "const e = performance.getEntriesByName('first-contentful-paint')[0]; return e ? e.startTime : null"
    )
    ready = float(page.execute_script("return document.body.dataset.readyMs"))
    assert paint is not None and paint < ready, (paint, ready)
    shown = text(page, "ready-time")
    assert shown.startswith("· Python ready in ") and f"{ready / 1000:.1f} s" in shown
    # Where start-up went, as the editor's worker timed it: Pyodide's runtime (WebAssembly and the
    # standard library), the wheel, `import micrograd` (the engine, ops and math), then the runner
    # (the explorer's modules); and the first run, the default example explored.
    phases = page.execute_script("return window.mgPlayground.boot")
    assert set(phases) == {"runtime", "wheel", "micrograd", "runner"}
    assert all(ms >= 0 for ms in phases.values())
    first = float(page.execute_script("return window.mgPlayground.firstRunMs"))
    order = ("runtime", "wheel", "micrograd", "runner")
    parts = ", ".join(f"{name} {phases[name] / 1000:.2f} s" for name in order)
    files = page.execute_script("return window.mgPlayground.bootFiles")
    big = sorted(files.items(), key=lambda kv: -kv[1]["ms"])[:3]
    transfers = ", ".join(f"{name} {f['bytes'] / 1e6:.1f} MB in {f['ms'] / 1000:.2f} s" for name, f in big)
    print(
        f"\nplayground: first contentful paint {paint:.0f} ms, Python ready in {ready / 1000:.2f} s "
        f"({parts}); the default example ran and was explored in {first / 1000:.2f} s more; "
        f"the runtime's largest transfers: {transfers}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )


def test_the_default_example_runs_with_no_click_and_is_explored(page: Any) -> None:
    assert "L = -8.0" in text(page, "output")
    assert values(page)["a"] == ["2.0", "6.0"] and values(page)["b"] == ["-3.0", "-4.0"]
    assert values(page)["L"] == ["-8.0", "1.0"]
    assert page.find_element("id", "error").get_attribute("hidden") is not None
    shot(page, "playground-default")
    frame = page.find_element("id", "explorer")
    page.switch_to.frame(frame)
    try:
        wait(page, "document.body && document.body.getAttribute('data-mg-ready') === '1'", 20)
        assert page.execute_script("return document.querySelectorAll('g.node').length") == 7 + 3
        page.find_element("id", "last").click()  # the end: every gradient
        leaves = page.execute_script(
            "return [...document.querySelectorAll('tr[data-mg=leaf]')].map("
            "(tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))"
        )
        assert ["a", "2.0000", "6.0000"] in leaves and ["f", "-2.0000", "4.0000"] in leaves
    finally:
        page.switch_to.default_content()
    shot(page, "playground-explorer", scroll_to="explorer-heading")
    assert errors(page) == []
    network(page)


def test_typed_code_runs_and_its_output_is_text(page: Any) -> None:
    run_code(page, 'x = Value(3.0)\nprint("<b id=injected>bold</b>", x.data)\nshow = x * x + x\n')
    assert text(page, "output") == "<b id=injected>bold</b> 3.0\n"
    assert page.execute_script("return document.getElementById('injected')") is None
    assert text(page, "explorer-title").startswith("show: Backpropagation from show = 12.0000")
    assert values(page)["show"] == ["12.0", "0.0"]
    shot(page, "playground-typed")
    network(page)


def test_labels_with_markup_stay_text_in_the_page_and_the_explorer(page: Any) -> None:
    """A label is the user's text: in the values table, the explorer's title and the explorer's own
    page it is shown as written, and no element it spells exists in either document."""
    label = '<img id=injected src=x onerror="document.body.dataset.pwned=1"></script><b id=bold>'
    run_code(
        page,
        f"a = Value(2.0, label={label!r})\nshow = a * a\nshow.label = {label!r} + '2'\nshow.backward()\n",
    )
    bad = "document.querySelector('#injected, #bold') || document.body.dataset.pwned"
    assert page.execute_script(f"return {bad} || null") is None
    assert text(page, "explorer-title").startswith(f"show: Backpropagation from {label}2 = 4.0000")
    page.switch_to.frame(page.find_element("id", "explorer"))
    try:
        wait(page, "document.body && document.body.getAttribute('data-mg-ready') === '1'", 20)
        assert page.execute_script(f"return {bad} || null") is None
        assert label in page.execute_script("return document.body.textContent")
    finally:
        page.switch_to.default_content()
    network(page)


def test_an_error_shows_its_traceback(page: Any) -> None:
    run_code(page, "x = Value(1.0)\nprint('before')\ny = x + undefined_name\n")
    assert text(page, "output") == "before\n"
    error = text(page, "error")
    assert page.find_element("id", "error").is_displayed()
    assert error.startswith("Traceback (most recent call last):")
    assert 'File "<playground>", line 3, in <module>' in error
    assert error.rstrip().endswith("NameError: name 'undefined_name' is not defined")
    assert text(page, "status").startswith("error")
    shot(page, "playground-error")
    network(page)


def test_stop_ends_a_run_that_never_ends(page: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    editor = page.find_element("id", "editor")
    page.execute_script("arguments[0].value = 'print(1)\\nwhile True:\\n    pass'", editor)
    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    wait(page, "!document.getElementById('stop').disabled", 10)
    time.sleep(0.5)
    assert text(page, "status") == "running…"
    page.find_element("id", "stop").click()
    assert text(page, "error").startswith("Stopped")
    wait(page, "!document.getElementById('run').disabled")  # a new Python is ready
    run_code(page, "print('after the restart')")
    assert text(page, "output") == "after the restart\n"
    network(page)


NOTICE = "This link's code has not run: read it, then press Run."


def link_to(server: Server, code: str) -> str:
    """A share link to ``code`` on this server, as the Share button makes it."""
    token = base64.urlsafe_b64encode(code.encode()).decode().rstrip("=")
    return f"{server.base}playground/index.html#code={token}"


def open_unrun(page: Any, link: str) -> None:
    """Open ``link`` afresh and wait until Python is ready (Run enabled) with nothing run."""
    page.get("about:blank")
    page.get(link)
    wait(page, "window.mgPlayground.readyMs !== null && !document.getElementById('run').disabled")
    time.sleep(1)  # time for a run to start if the page were to start one
    assert runs(page) == 0 and text(page, "output") == ""
    assert page.find_element("id", "link-notice").is_displayed()
    assert " ".join(text(page, "link-notice").split()).startswith(NOTICE)
    assert text(page, "status") == "Python ready"


def test_a_shared_link_shows_its_code_and_runs_it_on_the_visitors_click(page: Any) -> None:
    run_code(page, 'word = "π ≈ 3.14 — ünïcode"\nprint(word)\nt = Value(0.5).tanh()\n')
    page.find_element("id", "share").click()
    link = wait(page, "document.getElementById('share-link').value", 5)
    assert link.startswith(page.current_url.split("#")[0] + "#code=")
    fragment = link.split("#code=")[1]
    assert set(fragment) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    open_unrun(page, link)
    assert page.find_element("id", "editor").get_attribute("value").startswith('word = "π ≈ 3.14 — ünïcode"')
    assert "It is 3 lines long." in text(page, "link-notice")
    shot(page, "playground-shared-unrun")
    page.find_element("id", "run").click()
    wait(page, "window.mgPlayground.runs >= 1", 60)
    assert text(page, "output") == "π ≈ 3.14 — ünïcode\n"
    assert text(page, "explorer-title").startswith("t: ")
    assert not page.find_element("id", "link-notice").is_displayed()
    shot(page, "playground-shared")
    network(page)


def test_a_strangers_link_runs_nothing_before_the_click(page: Any, server: Server) -> None:
    """A link whose code fetches (js.fetch) and tries markup in the page: nothing is fetched and no
    markup appears until the visitor presses Run; then the fetch happens (so the check can see one)."""
    marker = f"/never-before-the-click-{time.monotonic_ns()}"
    code = (
        '# </textarea><img id=injected src=x onerror="document.body.dataset.pwned=1">\n'
        "import js\n"
        f"js.fetch({marker!r})\n"
        "print('ran')\n"
    )
    open_unrun(page, link_to(server, code))
    ready = float(page.execute_script("return window.mgPlayground.readyMs"))
    print(f"\nplayground: Python ready in {ready / 1000:.2f} s opened again (the browser's cache warm)")
    assert page.find_element("id", "editor").get_attribute("value") == code
    assert "It is 4 lines long." in text(page, "link-notice")
    time.sleep(2)  # the trainer's worker has started meanwhile: still nothing from the link
    assert not [p for p in SERVED if p.startswith(marker)]
    injected = "return document.getElementById('injected') || document.body.dataset.pwned || null"
    assert page.execute_script(injected) is None
    shot(page, "playground-stranger-unrun")
    # Ctrl+Enter in the editor would do too; the Run button is the visitor's click here.
    page.find_element("id", "run").click()
    wait(page, "window.mgPlayground.runs >= 1", 60)
    assert text(page, "output") == "ran\n"
    end = time.monotonic() + 10
    while not [p for p in SERVED if p.startswith(marker)] and time.monotonic() < end:
        time.sleep(0.2)
    assert [p for p in SERVED if p.startswith(marker)]  # the same check sees the fetch once run
    assert page.execute_script(injected) is None
    network(page)


def test_a_link_that_cannot_be_read_says_so(page: Any, server: Server) -> None:
    """A link cut short (base64 of half a UTF-8 character) or changed: the page says so and shows
    its own example, which runs as it does without a link."""
    token = base64.urlsafe_b64encode("π".encode()[:1]).decode().rstrip("=")
    for fragment in (f"#code={token}", "#code=not*base64"):
        page.get("about:blank")
        page.get(f"{server.base}playground/index.html{fragment}")
        wait(page, "window.mgPlayground.runs >= 1")
        assert page.find_element("id", "link-broken").is_displayed()
        assert not page.find_element("id", "link-notice").is_displayed()
        assert "L = -8.0" in text(page, "output")
    shot(page, "playground-broken-link")
    network(page)


def test_a_link_opened_on_the_page_is_shown_not_run(page: Any, server: Server) -> None:
    """A fragment changed on an open page (a link clicked elsewhere in it) loads the code unrun too."""
    page.get("about:blank")
    page.get(server.base + "playground/index.html")  # the page itself, no link: its example runs
    wait(page, "window.mgPlayground.runs >= 1")
    assert "L = -8.0" in text(page, "output")
    fragment = link_to(server, "print('from the hash')").split("#")[1]
    page.execute_script("location.hash = arguments[0]", fragment)
    wait(page, "!document.getElementById('link-notice').hidden", 5)
    time.sleep(1)
    assert runs(page) == 1 and "L = -8.0" in text(page, "output")
    assert page.find_element("id", "editor").get_attribute("value") == "print('from the hash')"
    editor = page.find_element("id", "editor")
    from selenium.webdriver.common.keys import Keys

    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    wait(page, "window.mgPlayground.runs >= 2", 60)
    assert text(page, "output") == "from the hash\n"
    network(page)


def test_clicks_add_and_remove_points_and_training_learns_live(page: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    wait(page, "window.mgPlayground.training && window.mgPlayground.training.points === 100")
    page.execute_script("document.getElementById('train-section').scrollIntoView()")
    field = page.find_element("id", "field")
    before = page.execute_script("return window.mgPlayground.training")
    # a point of class 1 in the top left corner (class 0's region), then shift-click removes it
    page.find_element("css selector", "input[name=cls][value='1']").click()
    version = page.execute_script("return window.mgPlayground.gridVersion")
    ActionChains(page).move_to_element_with_offset(field, -200, -200).click().perform()
    wait(page, f"window.mgPlayground.gridVersion > {version}", 10)
    after = page.execute_script("return window.mgPlayground.training")
    assert after["points"] == 101 and text(page, "npoints") == "101"
    version = page.execute_script("return window.mgPlayground.gridVersion")
    ActionChains(page).key_down(Keys.SHIFT).move_to_element_with_offset(field, -199, -199).click().key_up(
        Keys.SHIFT
    ).perform()
    wait(page, f"window.mgPlayground.gridVersion > {version}", 10)
    assert page.execute_script("return window.mgPlayground.training.points") == 100
    # Train: the loss falls, the boundary moves, the page keeps answering (its timers run on time).
    page.execute_script(
        "window.mgGap = 0; let last = performance.now();"
        "window.mgTimer = setInterval(() => { const now = performance.now();"
        "  window.mgGap = Math.max(window.mgGap, now - last); last = now; }, 20);"
    )
    page.find_element("id", "play").click()
    wait(page, "window.mgPlayground.training.steps >= 30", 60)
    time.sleep(3)  # a few more slices for a steady rate
    gap = page.execute_script("clearInterval(window.mgTimer); return window.mgGap")
    # training runs in its worker: the page's own timers keep running (a generous bound, as the
    # machine may be busy; the engine on the main thread would stall it for whole slices of steps)
    assert gap < 1500, f"the page's main thread stalled for {gap:.0f} ms while training"
    page.find_element("id", "play").click()
    state = wait(page, "!window.mgPlayground.training.playing && window.mgPlayground.training", 10)
    history = page.execute_script("return window.mgPlayground.lossCount")
    assert history == state["steps"] >= 30
    assert state["loss"] < 0.5 < 1.0
    assert state["grid"] != before["grid"]
    rate = state["stepsPerSecond"]
    shot(page, "playground-training", scroll_to="train-section")
    native = cpython_rate()
    load = os.getloadavg()[0]
    print(
        f"\nplayground: {rate:.2f} training steps per second in the browser (MLP 2-16-16-1, 100 points, "
        f"full batch); CPython here, now: {native:.2f}; load average {load:.1f} on {os.cpu_count()} CPUs"
    )
    # Speed is reported, never asserted here (the machines are shared): the rate above, next to
    # CPython's on the same machine at the same moment; the page shows it too.
    assert rate > 0 and text(page, "sps") not in ("", "–")
    steps = state["steps"]
    page.find_element("id", "step").click()
    wait(page, f"window.mgPlayground.training.steps === {steps + 1}", 10)
    # the learning rate and reset reach the worker
    from selenium.webdriver.support.ui import Select

    Select(page.find_element("id", "lr")).select_by_visible_text("0.3")
    page.find_element("id", "step").click()
    wait(page, f"window.mgPlayground.training.steps === {steps + 2}", 10)
    assert page.execute_script("return window.mgPlayground.training.lr") == 0.3
    page.find_element("id", "reset").click()
    wait(page, "window.mgPlayground.training.steps === 0 && window.mgPlayground.lossCount === 0", 10)
    assert page.execute_script("return window.mgPlayground.training.points") == 100
    assert errors(page) == []
    network(page)


def netlog_requests() -> list[dict[str, str]]:
    """The URL requests in Chromium's network log so far (it is written as it goes, one event a line,
    and closed when the browser quits): each one's ``url``, ``initiator`` and network isolation key."""
    found = []
    for line in NETLOG.read_text(errors="replace").splitlines():
        if '"url":"' not in line or '"params":' not in line:
            continue
        try:
            params = json.loads(line.rstrip().rstrip(","))["params"]
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
        if isinstance(params, dict) and "url" in params:
            found.append(
                {
                    k: str(params.get(k, ""))
                    for k in ("url", "initiator", "network_isolation_key", "request_type")
                }
            )
    return found


def test_no_request_leaves_localhost(page: Any, server: Server) -> None:
    network(page)
    wait(page, "window.mgPlayground.trainerReadyMs", 60)  # both workers have fetched what they need
    # The page's own requests, from the DevTools performance log; Chromium's own pages
    # (chrome://new-tab-page and its resources, before the first get) are not the network.
    internal = ("chrome", "chrome-untrusted", "data", "blob", "about")
    page_requests = [u for u in REQUESTS if u.split(":", 1)[0].lower() not in internal]
    assert page_requests and all(u.startswith("http://127.0.0.1:") for u in page_requests), page_requests
    # Everything the browser fetched for the pages, the workers' requests included, from its network
    # log: whatever a page or its workers ask for carries the page's origin as initiator.
    requests = netlog_requests()
    ours = [r for r in requests if "127.0.0.1" in r["initiator"] or "127.0.0.1" in r["network_isolation_key"]]
    offsite = sorted({r["url"] for r in ours if not re.match(r"https?://127\.0\.0\.1:\d+/", r["url"])})
    assert offsite == []
    urls = {r["url"] for r in ours}
    for tail in (
        "/playground/pyodide/pyodide.asm.wasm",
        "/playground/pyodide/python_stdlib.zip",
        "-none-any.whl",
    ):
        assert any(u.startswith(server.base) and u.endswith(tail) for u in urls), tail
    assert any(p.endswith("/pyodide/python_stdlib.zip") for p in SERVED)
    # The rest is Chromium's own background traffic (updates, sign-in, its start page), started by
    # no page; --host-resolver-rules lets none of it resolve, so it never leaves the machine.
    elsewhere = [
        r
        for r in requests
        if not re.match(r"(https?://127\.0\.0\.1:\d+/|chrome|data:|blob:|about:)", r["url"])
    ]
    assert all(r["initiator"] in ("", "not an origin") for r in elsewhere), elsewhere
    if elsewhere:
        print(
            f"\nChromium's own requests, not resolved: {sorted({r['url'].split('?')[0] for r in elsewhere})}"
        )


def test_a_copy_of_the_site_elsewhere_still_works(driver: Any, site: Path, tmp_path: Path) -> None:
    moved = tmp_path / "somewhere" / "else"
    shutil.copytree(site, moved)
    other = Server(tmp_path)
    try:
        driver.get(other.base + "somewhere/else/playground/index.html")
        wait(driver, "window.mgPlayground.runs >= 1")
        assert values(driver)["a"] == ["2.0", "6.0"]
        assert "L = -8.0" in text(driver, "output")
        network(driver)
        moved_urls = {r["url"] for r in netlog_requests()}
        assert other.base + "somewhere/else/playground/pyodide/pyodide.asm.wasm" in moved_urls
    finally:
        other.close()


def test_opened_as_a_file_it_says_at_once_how_to_serve_it(driver: Any, site: Path, tmp_path: Path) -> None:
    """From file:// a browser refuses the page's module scripts and workers: instead of "loading
    Python…" forever, the page says so and gives the two commands, the second with this site's folder."""
    moved = tmp_path / "my site"  # a space in the path: the command quotes it
    shutil.copytree(site, moved)
    started = time.monotonic()
    driver.get((moved / "playground" / "index.html").as_uri())
    wait(driver, "document.body.dataset.fileNotice === '1'", 5)
    print(f"\nplayground from file://: the notice in {time.monotonic() - started:.2f} s")
    notice = driver.find_element("id", "file-notice")
    assert notice.is_displayed()
    said = " ".join(notice.text.split())
    assert "Python cannot start in a page opened as a file." in said
    assert "make serve" in said
    assert f'python -m http.server -d "{moved}"' in said
    assert text(driver, "status") == "not started: this page needs a web server"
    assert all(not b.is_enabled() for b in driver.find_elements("tag name", "button"))
    shot(driver, "playground-file")


def test_make_serve_serves_the_built_site_on_localhost(site: Path) -> None:
    """`make serve` (with the site folder and a free port given) serves the site on 127.0.0.1."""
    import subprocess
    import urllib.request

    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not on PATH")
    command = [make, "-s", "serve", f"SITE={site}", "PORT=0"]
    # its own process group: make and the server it starts are stopped together, and nothing else
    proc = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:  # http.server says the port it was given
            lines.append(line)
            m = re.search(r"Serving HTTP on 127\.0\.0\.1 port (\d+)", line)
            if m:
                break
        else:
            raise AssertionError(f"make serve said: {''.join(lines)}")
        base = f"http://127.0.0.1:{m.group(1)}/"
        with urllib.request.urlopen(base + "playground/index.html", timeout=10) as response:
            page = response.read().decode()
        assert 'id="file-notice"' in page and "%%WHEEL%%" not in page
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
