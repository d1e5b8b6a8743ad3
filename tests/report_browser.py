"""What the browser tests of the report share: headless system Chromium (Playwright), a page of the report
with its console errors recorded, and the whole registry's report made once for the whole test run.

Skips (with the reason) when Playwright or a Chromium binary is missing; CI installs both (Debian's
``chromium`` and ``pip install playwright``; Playwright is pointed at the system binary, no download).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from pyverify.cli import main

from conftest import REPO

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install playwright)")
CHROMIUM = os.environ.get("PYVERIFY_CHROMIUM") or next(
    (p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), shutil.which("google-chrome")) if p), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary found (apt-get install chromium)")
ARTIFACTS = REPO / "report-artifacts"
DESKTOP = {"width": 1440, "height": 900}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


class Page:
    """A page of the report with every console error and uncaught exception recorded."""

    def __init__(self, browser, path: Path, fragment: str = "", viewport: dict | None = None):
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = browser.new_page(viewport=viewport or {"width": 1400, "height": 950})
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri() + fragment)

    def shown(self, view: str = "all") -> set[str]:
        return set(self.page.eval_on_selector_all(
            f'.view[data-view="{view}"] .node:not(.hidden)', "ns => ns.map(n => n.dataset.id)"))

    def screenshot(self, tmp_path: Path, name: str) -> None:
        shot = tmp_path / name
        self.page.screenshot(path=str(shot))
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(shot, ARTIFACTS / name)

    def close(self) -> None:
        self.page.close()


@pytest.fixture(scope="session")
def full_report(tmp_path_factory):
    """The whole registry's report at the quick budget, made once for the test run: the pytest-xdist
    workers share one copy (the first to take the lock makes it, the others wait and reuse it).
    ``PYVERIFY_TEST_REPORT`` names a folder with a report made already, to test a page without making it."""
    made = os.environ.get("PYVERIFY_TEST_REPORT")
    if made:
        return Path(made)
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent   # the folder all workers' temporary folders share
    out, done = root / "full-report", root / "full-report.done"
    with open(root / "full-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            assert main(["report", "--out", str(out), "--budget", "quick", "--no-progress"]) == 0
            done.touch()
    return out
