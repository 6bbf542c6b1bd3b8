"""A headless Chromium (Debian's, driven by Selenium) for the tests of the HTML pages.

``scripts/install_browser.sh`` installs it in the test set-up; without it the browser
tests skip, saying what is missing and how to install it."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.playground_ready import HEADLESS_CHROMIUM

INSTALL = (
    "install it with `bash scripts/install_browser.sh` (Debian's chromium and chromium-driver, selenium)"
)
SHOTS = Path("/tmp/explorer-shots")


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ModuleNotFoundError:
        return "selenium is not installed; " + INSTALL
    for exe in ("chromium", "chromedriver"):
        if shutil.which(exe) is None:
            return f"`{exe}` is not on PATH; " + INSTALL
    return None


MISSING = _missing()
needs_browser = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def chromium(
    tmp_path_factory: pytest.TempPathFactory,
    size: tuple[int, int] = (1400, 900),
    flags: tuple[str, ...] = (),
    logs: tuple[str, ...] = ("browser",),
) -> Any:
    """A headless Chromium driven by Selenium, with its own profile, the window ``size``, the
    extra command-line ``flags`` and the Selenium ``logs`` kept (the caller quits it)."""
    if MISSING is not None:
        pytest.skip(MISSING)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in (
        *HEADLESS_CHROMIUM,
        f"--window-size={size[0]},{size[1]}",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
        *flags,
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", dict.fromkeys(logs, "ALL"))
    driver = webdriver.Chrome(
        options=options, service=Service(shutil.which("chromedriver") or "chromedriver")
    )
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium per test module, with its browser console log kept."""
    driver = chromium(tmp_path_factory)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The browser console's errors (and warnings) since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def shot(driver: Any, folder: Path, name: str, scroll_to: str | None = None) -> Path:
    """Save a PNG of the page as ``folder``/``name``.png, first scrolled to the element of id
    ``scroll_to`` (if given) and left a moment to settle."""
    if scroll_to is not None:
        driver.execute_script(f"document.getElementById({scroll_to!r}).scrollIntoView()")
        time.sleep(0.3)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def screenshot(driver: Any, folder: Path, name: str) -> Path:
    """Save a PNG of the page in ``folder`` (the test's tmp folder) and a copy in /tmp/explorer-shots/."""
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, SHOTS / path.name)
    except OSError:
        pass  # the copy is for people; the test's own folder has the screenshot
    return path
