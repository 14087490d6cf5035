"""A real Chromium for the browser tests (Playwright over the system's Chromium), and where
their screenshots go: `$RULESPEC_ARTIFACTS`, else the test's temporary folder."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def chromium(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    """A launched browser and the screenshot folder; skips where Playwright or Chromium is
    not installed."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (pip install '.[dev]')")
    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser_path is None:
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium)")
    artifacts = Path(os.environ.get("RULESPEC_ARTIFACTS") or tmp_path)
    artifacts.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=FLAGS)
        try:
            yield browser, artifacts
        finally:
            browser.close()
