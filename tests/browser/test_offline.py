"""Offline: no page of ``make dashboards`` requests anything off the machine.

HPC login nodes and classrooms are often offline; a request to a CDN there fails
(``ERR_NAME_NOT_RESOLVED``) and online it tells a third party who opened which dashboard.
Every request of the page (documents, stylesheets, scripts, fonts, images, fetches,
websockets) is routed here: loopback requests go through, every other one is blocked and
recorded, and the test asserts that none was attempted, on the course page, on every
dashboard (loaded until its figures are drawn) and on an error page.  The widgets' icons still
draw, from the Font Awesome 5 that Voila's own bundle serves.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from workbench.ui.drive import DASHBOARDS, open_dashboard, page_problems

NOTEBOOKS = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))

#: Font Awesome faces loaded by the page (Voila's bundle declares them; they load when an
#: icon is drawn), and the icons drawn with them.
FONT_AWESOME_JS = """() => ({
    loaded: [...document.fonts].filter(f => f.family.includes('Font Awesome') && f.status === 'loaded').length,
    icons: [...document.querySelectorAll('i.fa')].filter(i => i.offsetParent !== null).map(i => ({
        family: getComputedStyle(i).fontFamily, width: i.getBoundingClientRect().width})),
})"""


def _loopback(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome", "chrome-extension", "devtools"):
        return True  # never leaves the browser
    host = (parts.hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture()
def offline_page(browser_page):
    """``browser_page`` with every non-loopback request blocked and recorded in ``page.off_machine``."""
    page = browser_page
    page.off_machine = []

    def route(route):
        url = route.request.url
        if _loopback(url):
            route.continue_()
        else:
            page.off_machine.append(f"{route.request.resource_type}: {url}")
            route.abort("internetdisconnected")

    page.context.route("**/*", route)
    # Requests the router may not see (websockets, service workers) are recorded here too.
    page.on("websocket", lambda ws: None if _loopback(ws.url) else page.off_machine.append(f"websocket: {ws.url}"))
    page.on("request", lambda request: None if _loopback(request.url) else page.off_machine.append(
        f"{request.resource_type} (request event): {request.url}"))
    yield page
    page.context.unroute("**/*")


def test_loopback_rule():
    assert _loopback("http://127.0.0.1:8866/voila/render/a.ipynb") and _loopback("ws://localhost:1/api")
    assert _loopback("http://[::1]:8866/") and _loopback("data:font/woff2;base64,AAAA")
    assert not _loopback("https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@^5/css/all.min.css")
    assert not _loopback("http://192.168.1.20:8866/") and not _loopback("https://cdnjs.cloudflare.com/x.mjs")


@pytest.mark.browser
def test_course_page_and_error_page_request_nothing_off_the_machine(voila_server, offline_page):
    page = offline_page
    page.goto(voila_server.url, wait_until="networkidle", timeout=60_000)
    assert page.locator("li.lesson").count() >= 1
    page.goto(voila_server.render_url("no_such_notebook.ipynb"), wait_until="networkidle", timeout=60_000)
    assert "404" in page.inner_text("body")
    assert page.off_machine == [], page.off_machine


@pytest.mark.browser
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_dashboard_requests_nothing_off_the_machine(notebook, voila_server, offline_page):
    page = offline_page
    open_dashboard(page, voila_server.render_url(notebook), DASHBOARDS[notebook].load_timeout_s)
    page.wait_for_load_state("networkidle", timeout=60_000)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    assert page.off_machine == [], f"{notebook} asked another machine for: {page.off_machine}"
    assert not page_problems(page), page_problems(page)
    fonts = page.evaluate(FONT_AWESOME_JS)
    for icon in fonts["icons"]:  # e.g. the exercises' "check" button: drawn with the served font
        assert "Font Awesome" in icon["family"] and icon["width"] > 0, fonts
    if fonts["icons"]:
        assert fonts["loaded"] >= 1, fonts
