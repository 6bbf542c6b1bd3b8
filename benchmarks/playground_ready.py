"""How long the docs' playground takes to have Python ready, in headless Chromium (issue 35).

The playground is built as ``make docs`` builds it (``scripts/build_playground.py`` of the engine's
own checkout: Pyodide's runtime from ``playground/node_modules``, the project's wheel), served by
``http.server`` on 127.0.0.1 and opened at 1280x800 in a Chromium with a fresh profile (a first
visit: nothing cached). The time is the page's own: ``document.body.dataset.readyMs``, the
milliseconds from the start of navigation to "Python ready", which the page also shows.
Measured and reported, never asserted: the machines are shared.

As a bench row (``suite.PLAYGROUND``, worker function ``ready``), each repetition builds the
playground of the engine the worker imports, so ``--baseline REV`` measures that commit's page too,
interleaved with this one (with this checkout's Pyodide, when both pin the same version). As a
script, it measures playgrounds already built, alternating between them:

    python -m benchmarks.playground_ready --runs 5                 # this checkout's, built first
    python -m benchmarks.playground_ready --runs 5 now=/tmp/a old=/tmp/b

The row is skipped, with the reason as its status, without Chromium (and chromedriver and
selenium) or without Pyodide's npm package in ``playground/node_modules`` (``make docs`` or
``npm ci`` in ``playground/`` installs it; the bench never runs npm).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # this checkout: its Pyodide is the one used
NO_BROWSER = "skipped: no chromium, chromedriver or selenium (bash scripts/install_browser.sh installs them)"
NO_PYODIDE = (
    "skipped: Pyodide's npm package is not in playground/node_modules (make docs, or npm ci in playground/)"
)
NO_PLAYGROUND = "skipped: this engine's checkout has no playground"
TIMEOUT = 180.0  # seconds for Python to be ready on a loaded machine


def missing_browser() -> bool:
    try:
        import selenium  # noqa: F401
    except ModuleNotFoundError:
        return True
    return any(shutil.which(exe) is None for exe in ("chromium", "chromedriver"))


def _pinned(repo: Path) -> str:
    return str(json.loads((repo / "playground" / "package.json").read_text())["dependencies"]["pyodide"])


def build(repo: Path, out: Path) -> Path | str:
    """The playground of checkout ``repo``, built by its own script into ``out``; or why not."""
    script = repo / "scripts" / "build_playground.py"
    if not script.is_file():
        return NO_PLAYGROUND
    modules = HERE / "playground" / "node_modules"
    if not (modules / "pyodide" / "package.json").is_file():
        return NO_PYODIDE
    installed = json.loads((modules / "pyodide" / "package.json").read_text())["version"]
    if _pinned(repo) != installed:
        return f"skipped: that checkout pins Pyodide {_pinned(repo)}, playground/node_modules has {installed}"
    theirs = repo / "playground" / "node_modules"
    if repo != HERE and not theirs.exists():
        theirs.symlink_to(modules)  # an exported commit: the same runtime, never npm
    spec = importlib.util.spec_from_file_location(f"build_playground_{abs(hash(repo))}", script)
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    builder.build(out)
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` on http://127.0.0.1:<a free port>/, from a thread, while the block runs."""
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


# The command-line flags of a headless Chromium that talks to nothing but the page it is given
# (no sandbox: these machines run as root); the browser tests start theirs with the same.
HEADLESS_CHROMIUM = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def open_once(url: str) -> dict[str, Any]:
    """Open ``url`` in a headless Chromium with a fresh profile; the page's ready time (s) and,
    where the page reports it, where start-up went (ms)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="bench-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "chromium"
        for flag in (
            *HEADLESS_CHROMIUM,
            "--window-size=1280,800",
            f"--user-data-dir={profile}",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        ):
            options.add_argument(flag)
        service = Service(shutil.which("chromedriver") or "chromedriver")
        driver = webdriver.Chrome(options=options, service=service)
        try:
            driver.set_page_load_timeout(60)
            driver.get(url)
            deadline = time.monotonic() + TIMEOUT
            ready = None
            while ready is None and time.monotonic() < deadline:
                ready = driver.execute_script("return document.body && document.body.dataset.readyMs || null")
                if ready is None:
                    time.sleep(0.05)
            if ready is None:
                raise TimeoutError(f"Python was not ready in {TIMEOUT:.0f} s at {url}")
            boot, start = driver.execute_script(
                "const s = window.mgPlayground || {}; return [s.boot || null, s.bootFrom || null]"
            )
        finally:
            driver.quit()
    return {"ready": float(ready) / 1000, "boot": boot, "from": start}


def breakdown(got: dict[str, Any]) -> str:
    """Where one open's time went, as its page says: the worker's phases, and what came before them
    (the page loading, the worker and its modules starting), in seconds; how Python started."""
    phases = got["boot"]
    if not phases:
        return ""
    parts = [f"{name} {ms / 1000:.2f} s" for name, ms in phases.items()]
    before = got["ready"] - sum(phases.values()) / 1000
    return ", ".join([f"before the worker's boot {before:.2f} s", *parts, f"from {got['from'] or '?'}"])


def ready(runs: int) -> dict[str, Any]:
    """Bench worker: the playground of the engine this process imports, built, served and opened
    ``runs`` times; seconds to "Python ready" each time."""
    import micrograd

    if missing_browser():
        return {"status": NO_BROWSER}
    repo = Path(micrograd.__file__ or "").resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="bench-playground-") as tmp:
        built = build(repo, Path(tmp) / "playground")
        if isinstance(built, str):
            return {"status": built}
        with serve(built) as base:
            opened = [open_once(base + "index.html") for _ in range(runs)]
    return {"samples": [o["ready"] for o in opened], "boot_ms": opened[-1]["boot"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="opens of each playground (default 5)")
    parser.add_argument(
        "sites", nargs="*", metavar="LABEL=DIR", help="built playgrounds (default: build this one)"
    )
    args = parser.parse_args(argv)
    if missing_browser():
        print(NO_BROWSER, file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-playground-") as tmp:
        sites: dict[str, Path] = {}
        for spec in args.sites:
            label, _, folder = spec.partition("=")
            sites[label] = Path(folder)
        if not sites:
            built = build(HERE, Path(tmp) / "playground")
            if isinstance(built, str):
                print(built, file=sys.stderr)
                return 0
            sites["this checkout"] = built
        times: dict[str, list[float]] = {label: [] for label in sites}
        for k in range(args.runs):  # alternating: A B, then B A, ...
            for label in sites if k % 2 == 0 else reversed(sites):
                with serve(sites[label]) as base:
                    got = open_once(base + "index.html")
                times[label].append(got["ready"])
                said = f"ready in {got['ready']:.2f} s  {breakdown(got)}"
                print(f"  run {k + 1}/{args.runs}  {label:<16} {said}")
    for label, samples in times.items():
        median, best = statistics.median(samples), min(samples)
        print(f"{label:<16} Python ready: median {median:.2f} s, best {best:.2f} s ({len(samples)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
