"""The docs site's playground in headless Chromium, served by a local static server.

The playground is built with the docs build's own script (scripts/build_playground.py: Pyodide's
runtime from the pinned npm package, this project's wheel) into a temporary site folder and served
by ``http.server`` on 127.0.0.1.  The page runs the lecture's example with no click and explores it
(a.grad 6.0 in the page and in the explorer's frame), and says how long Python took to be ready and
where that went (printed with -s, never asserted); typed code runs and prints, as text; an error
shows its traceback; a shared link's fragment shows its code unrun, with a notice, until the visitor
presses Run (a stranger's js.fetch is not made before; markup in it stays text); opened as a file
the page says at once how to serve it, and `make serve` serves the site.  The training tab: a picture
on every neuron and both losses; clicks on the field add and remove points; a 2-[8, 8]-1 net trains,
its steps per second reported beside CPython's on the same machine (printed with -s; never asserted,
the machines are shared); the controls change the network and restart the loss curve; every control
and every point round-trip through a share link, and a bad link says what is wrong and injects
nothing; "Explore this step" opens the explorer on a step of the model being trained, its
parameters named as named_parameters() names them.  Python is restored from the build's memory
snapshot (random reseeded, the browser named as the runtime, the wheel's files all there); with the
snapshot missing, cut short or not a snapshot, Python starts as usual.  Every request
the browser makes (the workers' included) goes to 127.0.0.1; a copy of the site in another folder,
at another URL path, still works.  Screenshots at 1280x800 go to playground/build/screenshots/
(git-ignored)."""

from __future__ import annotations

import base64
import functools
import http.server
import importlib
import importlib.util
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests import browser_support
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


def playground_chromium(tmp_path_factory: pytest.TempPathFactory, netlog: Path) -> Any:
    """Headless Chromium with its console, performance and network logs (the network log in
    ``netlog``), a 1280x800 viewport."""
    flags = (
        "--disable-default-apps",
        f"--log-net-log={netlog}",  # every request of the browser, its workers' included
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
    return d


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The module's Chromium (``playground_chromium``), its network log in NETLOG."""
    global NETLOG
    if MISSING is not None:
        pytest.skip(MISSING)
    NETLOG = tmp_path_factory.mktemp("netlog") / "netlog.json"
    d = playground_chromium(tmp_path_factory, NETLOG)
    try:
        yield d
    finally:
        d.quit()


@pytest.fixture
def own_driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Chromium of the test's own, for the tests that open the playground from a damaged or
    unserved copy of the site, after the module's tests have loaded Python a dozen times in one
    browser: there its renderer crashed in one CI run ("tab crashed", its cause not found),
    and every later test of the module failed with it."""
    if MISSING is not None:
        pytest.skip(MISSING)
    d = playground_chromium(tmp_path_factory, tmp_path_factory.mktemp("netlog") / "netlog.json")
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
    return browser_support.shot(d, SHOTS, name, scroll_to)


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
        # break-it mode is the explorer's own control, so the playground has it too
        options = page.execute_script(
            "return [...document.querySelectorAll('#mistake option')].map((o) => o.value)"
        )
        assert options == ["", "overwrite", "no-topo", "no-zero-grad", "tanh"]
        page.execute_script(
            "const s = document.getElementById('mistake'); s.value = 'no-zero-grad';"
            "s.dispatchEvent(new Event('change'))"
        )
        wait(page, "document.querySelector('[data-mg=breakit-reason]') !== null", 10)
        names = page.execute_script(
            "return [...document.querySelectorAll('[data-mg=breakit-row] [data-mg=bk-name]')]"
            ".map((td) => td.textContent)"
        )
        assert {"a", "b", "L"} <= set(names), names  # every Value with its right and wrong gradient
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


def test_python_is_restored_from_the_builds_snapshot(page: Any, site: Path, server: Server) -> None:
    """The build makes a memory snapshot of Python with micrograd and the runners imported
    (playground/snapshot.mjs, with Node) and the editor's and the training tab's workers restore it
    instead of starting Python; what the snapshot holds from the build is the visitor's again:
    ``random`` reseeded (two visits draw different numbers), the browser named as the runtime."""
    assert (site / "playground" / "pyodide" / "python.snapshot.gz").is_file()
    state = page.execute_script("return [window.mgPlayground.bootFrom, window.mgPlayground.snapshotError]")
    assert state == ["snapshot", None]
    assert "restored from the build's snapshot" in text(page, "ready-time")
    probe = (
        "import js, os, random, sys\n"
        "print(random.random())\n"
        "print(sys._emscripten_info.runtime == js.navigator.userAgent, os.environ['_'], sys.path[:2])\n"
        "print('micrograd.nn' in sys.modules)\n"
        "from micrograd.nn import MLP\n"  # not in the snapshot: read from the wheel, unpacked again
        "print(len(MLP(2, [16, 16, 1]).parameters()))\n"
    )
    run_code(page, probe)
    drawn, checks, imported, parameters = text(page, "output").splitlines()
    assert checks == "True ./this.program ['/home/pyodide', '']"
    assert (imported, parameters) == ("False", "337")
    wait(page, "window.mgTraining && window.mgTraining.readyMs", 60)
    assert page.execute_script("return window.mgTraining.bootFrom") == "snapshot"
    page.get(server.base + "playground/index.html")  # a second visit
    wait(page, "window.mgPlayground.runs >= 1")
    run_code(page, probe)
    assert text(page, "output").splitlines()[0] != drawn
    network(page)


def test_the_wheel_is_unpacked_as_it_is(page: Any, site: Path) -> None:
    """boot.mjs unpacks the wheel itself (the build stores its files): every file of the wheel is in
    the worker's file system, under /home/pyodide as Pyodide's unpackArchive puts it, byte for byte."""
    import hashlib
    import zipfile

    (wheel,) = (site / "playground").glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
        expected = {i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist() if not i.is_dir()}
    run_code(
        page,
        "import hashlib, json, os\n"
        "found = {}\n"
        "for folder, _, names in os.walk('/home/pyodide'):\n"
        "    for name in names:\n"
        "        path = os.path.join(folder, name)\n"
        "        with open(path, 'rb') as f:\n"
        "            found[os.path.relpath(path, '/home/pyodide')] = hashlib.sha256(f.read()).hexdigest()\n"
        "print(json.dumps(found))\n",
    )
    found = json.loads(text(page, "output"))
    assert found.pop("runner.py")  # the editor's runner, written beside the wheel's files
    assert found == expected
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


# ---- the training tab ------------------------------------------------------------------------


def training(d: Any, server: Server, fragment: str = "") -> Any:
    """Open the playground afresh (with ``fragment``) and wait for the trainer's first picture."""
    d.get("about:blank")
    d.get(server.base + "playground/index.html" + fragment)
    wait(d, "window.mgTraining && window.mgTraining.snapshots >= 1 && window.mgTraining.readyMs !== null")
    return d.execute_script("return window.mgTraining.last")


def after(d: Any, action: Any, timeout: float = 20) -> Any:
    """Do ``action()`` (a click, a choice) and wait for the trainer's next picture; return its state."""
    n = d.execute_script("return window.mgTraining.snapshots")
    action()
    wait(d, f"window.mgTraining.snapshots > {n}", timeout)
    return d.execute_script("return window.mgTraining.last")


def choose(d: Any, select_id: str, value: str) -> Any:
    from selenium.webdriver.support.ui import Select

    return after(d, lambda: Select(d.find_element("id", select_id)).select_by_value(value))


def click(d: Any, selector: str) -> Any:
    return after(d, lambda: d.find_element("css selector", selector).click())


def neuron_pictures(d: Any) -> dict[str, int]:
    """How many neuron canvases the network shows, and how many have something drawn on them."""
    return dict(
        d.execute_script(
            "const cs = [...document.querySelectorAll('#network canvas.neuron')];"
            "const drawn = cs.filter((c) => {"
            "  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            "  for (let k = 0; k < px.length; k += 4) if (px[k] + px[k + 1] + px[k + 2] < 765) return true;"
            "  return false; });"
            "return {count: cs.length, drawn: drawn.length}"
        )
    )


def test_the_training_tab_draws_every_neuron_and_both_losses(page: Any, server: Server) -> None:
    last = training(page, server)
    assert not page.find_element("id", "train-link-broken").is_displayed()
    state = last["state"]
    assert state["dataset"] == "moons" and state["features"] == ["x", "y"] and state["hidden"] == [8, 8]
    assert last["neurons"] == [2, 8, 8, 1]
    # a picture on every neuron: the 7 features (the unchosen ones paler), 8 + 8 hidden, the output
    assert neuron_pictures(page) == {"count": 7 + 8 + 8 + 1, "drawn": 7 + 8 + 8 + 1}
    assert text(page, "net-shape") == "MLP(2, [8, 8, 1])"
    assert text(page, "npoints") == "100 training, 100 test"
    last = click(page, "#step")
    assert last["steps"] == 1
    for cell in ("loss", "test-loss", "accuracy", "test-accuracy"):
        assert text(page, cell) not in ("", "–"), cell
    assert float(text(page, "test-loss")) == pytest.approx(last["loss"][1], abs=1e-4)
    shot(page, "training-start", scroll_to="train-section")
    assert errors(page) == []
    network(page)


def test_clicks_add_and_remove_points(page: Any, server: Server) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    training(page, server)
    page.execute_script("document.getElementById('train-section').scrollIntoView()")
    field = page.find_element("id", "field")
    page.find_element("css selector", "input[name=cls][value='1']").click()
    # a point of class 1 near the top left corner, then shift-click removes it
    last = after(
        page, lambda: ActionChains(page).move_to_element_with_offset(field, -160, -160).click().perform()
    )
    points = last["state"]["points"]
    assert len(points) == 201 and points[-1][2:] == [1, 0]  # class 1, a training point
    x, y = points[-1][:2]
    assert x < -1.2 and y > 1.2  # where it was clicked: the field spans -1.6 to 1.6
    last = after(
        page,
        lambda: (
            ActionChains(page)
            .key_down(Keys.SHIFT)
            .move_to_element_with_offset(field, -159, -159)
            .click()
            .key_up(Keys.SHIFT)
            .perform()
        ),
    )
    assert len(last["state"]["points"]) == 200 and [x, y, 1, 0] not in last["state"]["points"]
    network(page)


def cpython_rate(steps: int = 20, **settings: Any) -> float:
    """The same training's steps per second on this machine's CPython, for comparison."""
    sys.path.insert(0, str(ROOT / "playground"))  # the training worker's Python, beside trainer.py
    live = importlib.import_module("live_training").LiveTraining(**settings)
    live.step()
    start = time.perf_counter()
    for _ in range(steps):
        live.step()
    return steps / (time.perf_counter() - start)


def measure(d: Any, seconds: float) -> tuple[float, Any]:
    """Train for ``seconds``; the page's measured steps per second, and the state paused after."""
    before = d.execute_script("return window.mgTraining.last.steps")
    click(d, "#play")
    time.sleep(seconds)
    wait(d, f"window.mgTraining.last.steps > {before} && window.mgTraining.stepsPerSecond !== null", 60)
    rate = float(d.execute_script("return window.mgTraining.stepsPerSecond"))
    after(d, lambda: d.find_element("id", "play").click())
    wait(d, "!window.mgTraining.last.playing", 10)
    return rate, d.execute_script("return window.mgTraining.last")


def test_a_2_8_8_1_net_trains_live_and_its_rate_is_measured(page: Any, server: Server) -> None:
    """The default net, 2-[8, 8]-1: the loss falls and the page stays responsive; the steps per
    second are printed (with -s) beside CPython's, never asserted (the machines are shared)."""
    training(page, server)
    page.execute_script(
        "window.mgGap = 0; let last = performance.now();"
        "window.mgTimer = setInterval(() => { const now = performance.now();"
        "  window.mgGap = Math.max(window.mgGap, now - last); last = now; }, 20);"
    )
    rate, last = measure(page, 6)
    gap = page.execute_script("clearInterval(window.mgTimer); return window.mgGap")
    # training runs in its worker: the page's own timers keep running (a generous bound)
    assert gap < 1500, f"the page's main thread stalled for {gap:.0f} ms while training"
    curve = page.execute_script("return window.mgTraining.curve")
    assert curve[0][0] == 0 and curve[-1][0] == last["steps"] >= 10
    assert curve[-1][1] < curve[0][1]  # the training loss fell
    assert text(page, "sps") not in ("", "–")
    shot(page, "training-trained", scroll_to="train-section")
    full = choose(page, "batch-size", "0")  # the whole training set (100 points) a step
    assert full["state"]["batch_size"] == 0 and full["steps"] == last["steps"]  # the training goes on
    full_rate, _ = measure(page, 5)
    native = cpython_rate()
    native_full = cpython_rate(5, batch_size=0)
    load = os.getloadavg()[0]
    print(
        f"\nplayground: MLP 2-[8, 8]-1 on the moons, {rate:.1f} steps/s in the browser with batches of 10 "
        f"({full_rate:.1f} with the whole training set of 100 points); CPython here, now: {native:.1f} "
        f"({native_full:.1f}); load average {load:.1f} on {os.cpu_count()} CPUs"
    )
    assert errors(page) == []
    network(page)


def test_controls_change_the_network_and_restart_the_loss_curve(page: Any, server: Server) -> None:
    training(page, server)
    for _ in range(3):
        last = click(page, "#step")
    assert last["steps"] == 3 and len(page.execute_script("return window.mgTraining.curve")) >= 3
    generation = page.execute_script("return window.mgTraining.generation")

    def restarted(last: Any) -> None:
        nonlocal generation
        now = page.execute_script("return window.mgTraining.generation")
        assert now > generation and last["steps"] == 0
        assert len(page.execute_script("return window.mgTraining.curve")) == 1  # a new curve
        generation = now

    last = choose(page, "activation", "tanh")
    assert last["state"]["activation"] == "tanh"
    restarted(last)
    last = click(page, "#step")
    last = after(page, lambda: page.find_element("css selector", "input[data-feature=x2]").click())
    assert last["state"]["features"] == ["x", "y", "x2"] and last["neurons"] == [3, 8, 8, 1]
    assert text(page, "net-shape") == "MLP(3, [8, 8, 1])"
    restarted(last)
    last = click(page, "#add-layer")
    assert last["state"]["hidden"] == [8, 8, 4] and neuron_pictures(page)["count"] == 7 + 8 + 8 + 4 + 1
    restarted(last)
    last = click(page, "#network .hidden:nth-of-type(2) .layer-head button:nth-of-type(2)")  # − on layer 1
    assert last["state"]["hidden"] == [7, 8, 4]
    last = click(page, "#remove-layer")
    assert last["state"]["hidden"] == [7, 8] and neuron_pictures(page) == {"count": 23, "drawn": 23}
    points = last["state"]["points"]
    last = click(page, "#datasets button[data-dataset=xor]")
    assert last["state"]["dataset"] == "xor" and last["state"]["points"] != points
    restarted(last)
    last = choose(page, "test-ratio", "0.3")
    assert sum(p[3] for p in last["state"]["points"]) == 60
    last = choose(page, "noise", "0.3")
    assert last["state"]["noise"] == 0.3
    # the optimiser's and the loss's settings: the training goes on
    click(page, "#step")
    for select, value, key in (
        ("lr", "0.03", "lr"),
        ("regularization", "l2", "regularization"),
        ("reg-rate", "0.01", "reg_rate"),
        ("batch-size", "20", "batch_size"),
    ):
        last = choose(page, select, value)
        assert str(last["state"][key]) == value and last["steps"] == 1
    last = click(page, "#step")
    assert last["steps"] == 2
    shot(page, "training-controls", scroll_to="train-section")
    assert errors(page) == []
    network(page)


def test_the_set_up_round_trips_through_a_share_link(page: Any, server: Server) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    training(page, server)
    click(page, "#datasets button[data-dataset=spirals]")
    for select, value in (
        ("noise", "0.05"),
        ("test-ratio", "0.2"),
        ("batch-size", "5"),
        ("activation", "sigmoid"),
        ("lr", "0.3"),
        ("regularization", "l1"),
        ("reg-rate", "0.003"),
    ):
        choose(page, select, value)
    after(page, lambda: page.find_element("css selector", "input[data-feature=sinx]").click())
    after(page, lambda: page.find_element("css selector", "input[data-feature=y]").click())
    click(page, "#add-layer")
    page.execute_script("document.getElementById('train-section').scrollIntoView()")
    page.find_element("css selector", "input[name=cls][value='0']").click()
    field = page.find_element("id", "field")
    after(page, lambda: ActionChains(page).move_to_element_with_offset(field, 100, -20).click().perform())
    before = page.execute_script("return window.mgTraining.last.state")
    assert (
        before["features"] == ["x", "sinx"] and before["hidden"] == [8, 8, 4] and len(before["points"]) == 201
    )
    page.find_element("id", "train-share").click()
    link = wait(page, "document.getElementById('train-share-link').value", 5)
    assert "#train=" in link and re.fullmatch(r"[A-Za-z0-9_-]+", link.split("#train=")[1])
    last = training(page, server, "#" + link.split("#", 1)[1])
    assert last["state"] == before  # every control and every point
    assert not page.find_element("id", "train-link-broken").is_displayed()
    shown = page.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#train-section select')]"
        ".map((s) => [s.id, s.value]))"
    )
    assert shown == {
        "noise": "0.05",
        "test-ratio": "0.2",
        "batch-size": "5",
        "activation": "sigmoid",
        "lr": "0.3",
        "regularization": "l1",
        "reg-rate": "0.003",
    }
    boxes = page.execute_script(
        "return [...document.querySelectorAll('#network input[type=checkbox]:checked')]"
        ".map((b) => b.dataset.feature)"
    )
    assert boxes == ["x", "sinx"] and text(page, "net-shape") == "MLP(2, [8, 8, 4, 1])"
    shot(page, "training-from-link", scroll_to="train-section")
    network(page)


def state_link(server: Server, state: Any) -> str:
    token = base64.urlsafe_b64encode(json.dumps(state).encode()).decode().rstrip("=")
    return "#train=" + token


def test_a_bad_set_up_link_says_what_is_wrong_and_injects_nothing(page: Any, server: Server) -> None:
    markup = '<img id=injected src=x onerror="document.body.dataset.pwned=1">'
    cases = (
        ("#train=not*base64", "it holds characters base64url does not use"),
        (
            "#train=" + base64.urlsafe_b64encode(b'{"hidden": [8').decode().rstrip("="),
            "it is not a whole set-up",
        ),
        (
            state_link(server, {"hidden": [99]}),
            "a hidden layer's size must be a whole number from 1 to 8, got 99",
        ),
        (
            state_link(server, {"dataset": markup}),
            "dataset must be one of moons, circles, xor, gaussian, spirals",
        ),
        (state_link(server, {"points": [[0, 0, markup, 0]]}), "point 0's label must be a whole number"),
        (state_link(server, {markup: 1}), "unknown settings: <img id=injected"),
    )
    for fragment, message in cases:
        last = training(page, server, fragment)
        said = text(page, "train-link-broken")
        assert page.find_element("id", "train-link-broken").is_displayed()
        assert said.startswith("This link's training set-up could not be read (") and message in said, said
        assert said.endswith("the default set-up is shown instead.")
        assert last["state"]["dataset"] == "moons" and last["state"]["hidden"] == [8, 8]  # the default
        assert (
            page.execute_script(
                "return document.getElementById('injected') || document.body.dataset.pwned || null"
            )
            is None
        )
    shot(page, "training-bad-link", scroll_to="train-section")
    network(page)


def test_a_set_up_link_opened_on_the_page_loads_it_paused(page: Any, server: Server) -> None:
    """A set-up link whose fragment arrives on the open page (a link clicked in it): that set-up."""
    last = training(page, server)
    state = {**last["state"], "dataset": "circles", "hidden": [3], "points": last["state"]["points"][:50]}
    page.execute_script("location.hash = arguments[0]", state_link(server, state)[1:])
    wait(page, "window.mgTraining.last.state.dataset === 'circles'", 30)
    last = page.execute_script("return window.mgTraining.last")
    assert last["state"] == state and not last["playing"] and last["neurons"] == [2, 3, 1]
    page.execute_script("location.hash = arguments[0]", state_link(server, {"lr": -1})[1:])
    wait(page, "!document.getElementById('train-link-broken').hidden", 30)
    said = text(page, "train-link-broken")
    assert "lr must be a number from 1e-06 to 10.0, got -1" in said and said.endswith(
        "the training goes on as it was."
    )
    assert page.execute_script("return window.mgTraining.last.state") == state  # the training as it was
    network(page)


def test_explore_this_step_opens_the_explorer_on_the_model_being_trained(page: Any, server: Server) -> None:
    training(page, server)
    click(page, "#step")
    params = page.execute_script("return window.mgTraining.last.steps")
    assert params == 1
    page.find_element("id", "explore-step").click()
    explored = wait(page, "window.mgTraining.explored", 120)
    assert "error" not in explored, explored
    assert explored["title"].startswith("Backpropagation from loss") or "training step 2" in explored["title"]
    wait(page, "window.mgTraining.last.steps === 2", 20)  # the explored step was trained
    title = text(page, "train-explorer-title")
    assert "training step 2 on 10 points" in title and "Values, built in" in title
    print(
        f"\nplayground: Explore this step: {explored['size']} Values, built in {explored['ms'] / 1000:.1f} s"
    )
    frame = page.find_element("id", "train-explorer")
    assert frame.is_displayed()
    page.switch_to.frame(frame)
    try:
        wait(page, "document.body && document.body.getAttribute('data-mg-ready') === '1'", 60)
        body = page.execute_script("return document.documentElement.outerHTML")
        for name in ("layers.0.neurons.0.w.0", "layers.1.neurons.7.b", "layers.2.neurons.0.w.7"):
            assert name in body, name
    finally:
        page.switch_to.default_content()
    shot(page, "training-explore", scroll_to="train-explorer-heading")
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
    wait(page, "window.mgTraining.readyMs", 60)  # both workers have fetched what they need
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


@pytest.mark.parametrize("damage", ["missing", "cut short", "not a snapshot"])
def test_without_a_snapshot_that_restores_python_starts_as_usual(
    own_driver: Any, site: Path, tmp_path: Path, damage: str
) -> None:
    """The snapshot missing, cut short (gzip's checksum fails) or not a snapshot at all (Pyodide
    refuses it): the worker says why and starts Python the usual way, and the page works."""
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    snapshot = copy / "playground" / "pyodide" / "python.snapshot.gz"
    if damage == "missing":
        snapshot.unlink()
    elif damage == "cut short":
        snapshot.write_bytes(snapshot.read_bytes()[: snapshot.stat().st_size // 2])
    else:
        import gzip

        snapshot.write_bytes(gzip.compress(os.urandom(1 << 20)))
    other = Server(copy)
    try:
        own_driver.get(other.base + "playground/index.html")
        wait(own_driver, "window.mgPlayground.runs >= 1")
        assert own_driver.execute_script("return window.mgPlayground.bootFrom") == "start"
        why = own_driver.execute_script("return window.mgPlayground.snapshotError")
        assert why, why
        assert values(own_driver)["a"] == ["2.0", "6.0"] and "L = -8.0" in text(own_driver, "output")
        assert "restored" not in text(own_driver, "ready-time")
        ready = float(own_driver.execute_script("return document.body.dataset.readyMs"))
        print(f"\nplayground, snapshot {damage}: Python started in {ready / 1000:.2f} s ({why})")
        network(own_driver)
    finally:
        other.close()


def test_opened_as_a_file_it_says_at_once_how_to_serve_it(
    own_driver: Any, site: Path, tmp_path: Path
) -> None:
    """From file:// a browser refuses the page's module scripts and workers: instead of "loading
    Python…" forever, the page says so and gives the two commands, the second with this site's folder."""
    moved = tmp_path / "my site"  # a space in the path: the command quotes it
    shutil.copytree(site, moved)
    started = time.monotonic()
    own_driver.get((moved / "playground" / "index.html").as_uri())
    wait(own_driver, "document.body.dataset.fileNotice === '1'", 5)
    print(f"\nplayground from file://: the notice in {time.monotonic() - started:.2f} s")
    notice = own_driver.find_element("id", "file-notice")
    assert notice.is_displayed()
    said = " ".join(notice.text.split())
    assert "Python cannot start in a page opened as a file." in said
    assert "make serve" in said
    assert f'python -m http.server -d "{moved}"' in said
    assert text(own_driver, "status") == "not started: this page needs a web server"
    assert all(not b.is_enabled() for b in own_driver.find_elements("tag name", "button"))
    shot(own_driver, "playground-file")


def test_make_serve_serves_the_built_site_on_localhost(tmp_path: Path) -> None:
    """`make serve` (with the site folder and a free port given) serves the site on 127.0.0.1: the
    folder's files as they are.  A stand-in folder, not a built site: building one takes seconds,
    and the browser tests above open the built playground."""
    import subprocess
    import urllib.request

    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not on PATH")
    site = tmp_path / "site"
    (site / "playground").mkdir(parents=True)
    (site / "index.html").write_text("<!DOCTYPE html><title>docs</title><p>the documentation\n")
    served = '<!DOCTYPE html><title>playground</title><p id="file-notice">served, not a file\n'
    (site / "playground" / "index.html").write_text(served)
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
        assert page == served
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
