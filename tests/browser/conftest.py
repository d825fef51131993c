"""Fixtures for browser tests: one Voila server over notebooks/ and one headless chromium
for the whole session (see :mod:`workbench.ui.serve`).

Chromium is Debian's ``/usr/bin/chromium`` driven by Playwright for Python (never
``playwright install``).  Without it the browser tests skip locally and fail when CI=true.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from workbench.ui.drive import block_foreign_requests
from workbench.ui.serve import CHROMIUM, launch_chromium
from workbench.ui.serve import voila_server as start_voila

#: Prefixes of variables set by the test run that must not leak into the dashboards' kernels.
TEST_ONLY_ENV_PREFIXES = ("PYTEST_", "_PYTEST", "COV_CORE_")


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), or run `make test`"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


@pytest.fixture(scope="session")
def voila_server(chromium_path, tmp_path_factory):
    """One Voila server over notebooks/ for the session (started only if chromium exists),
    started by the command of ``make dashboards`` (``python -m workbench.ui.serve``, voila.json:
    preheated kernels included), bound to 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(TEST_ONLY_ENV_PREFIXES)}
    try:
        with start_voila(tmp_path_factory.mktemp("voila") / "voila.log", env=env) as server:
            yield server
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def chromium_browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, chromium_path)
        yield browser
        browser.close()


@pytest.fixture()
def browser_page(chromium_browser):
    """A fresh page (own context) recording console errors and uncaught exceptions in
    ``page.errors``, every console message in ``page.console_log``, unhandled promise
    rejections in ``window.__wbRejections`` (for diagnostics).  Every request that would
    leave the machine is aborted and its URL recorded in ``page.foreign_requests``."""
    context = chromium_browser.new_context(viewport={"width": 1400, "height": 1000})
    foreign: list[str] = []
    block_foreign_requests(context, foreign)
    page = context.new_page()
    page.errors, page.console_log, page.foreign_requests = [], [], foreign

    def on_console(msg):
        page.console_log.append(f"{msg.type}: {msg.text[:300]}")
        if msg.type == "error":
            page.errors.append(f"console: {msg.text} ({msg.location.get('url')})")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: page.errors.append(f"uncaught: {exc}"))
    # Unhandled promise rejections reach neither listener: kept for failure messages.
    page.add_init_script(
        "window.__wbRejections = [];"
        "window.addEventListener('unhandledrejection', e => window.__wbRejections.push(String(e.reason)));"
    )
    yield page
    # Close the tab as a person does: Voila's beforeunload handler then asks the server to shut
    # the page's kernel down (voila/api/shutdown, see WorkbenchIdentityProvider); without it
    # the kernel would wait for the culler (~1.5 min) while the next tests run.
    try:
        with page.expect_event("close", timeout=10_000):
            page.close(run_before_unload=True)
        time.sleep(0.2)  # let the beacon leave before the context goes
    except Exception:  # a crashed or hung page: the culler frees its kernel
        pass
    context.close()
