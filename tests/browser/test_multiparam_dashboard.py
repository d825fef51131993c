"""The processes x problem-size dashboard of notebook 04 in a browser: the heat map, the measured runs,
the target with its interval, the lines of constant work per process and constant size; moving
the target size moves the target and redraws, switching the layer shows the interval width."""

from __future__ import annotations

import time

import pytest

from workbench.ui.drive import DRAWN_REVISIONS_JS, Move, open_dashboard, page_problems, perform, wait_for_redraw

NOTEBOOK = "04_cross_size.ipynb"
FIGURE = ".wb-figure-multiparam .js-plotly-plot"
#: names and the target's (x, y) of the multi-parameter figure's traces, as plotly holds them
TRACES_JS = f"""() => {{
  const gd = document.querySelector('{FIGURE}');
  return gd.data.map(t => ({{type: t.type || 'scatter', name: t.name,
                            x: t.x ? Array.from(t.x).slice(0, 1) : null, y: t.y ? Array.from(t.y).slice(0, 1) : null,
                            title: gd.layout.title.text || gd.layout.title}}));
}}"""


def settle(page, quiet_s: float = 2.0, timeout_s: float = 30.0) -> None:
    """Wait until the figure's drawn revision has not changed for ``quiet_s``.

    A slider moved by 5 key presses sends 5 values, each redrawn in turn.
    """
    deadline = time.monotonic() + timeout_s
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = page.evaluate(DRAWN_REVISIONS_JS).get("multiparam")
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return
        time.sleep(0.2)


@pytest.mark.browser
def test_multiparam_dashboard_moves_the_target_and_switches_the_layer(voila_server, browser_page):
    page = browser_page
    try:
        open_dashboard(page, voila_server.render_url(NOTEBOOK), 120)
        page.wait_for_selector(f"{FIGURE} .main-svg", state="attached", timeout=60_000)
    except Exception as exc:  # playwright's TimeoutError: say what the page and the server show
        pytest.fail(f"{NOTEBOOK} did not render: {exc}\n{page_problems(page)}\n{voila_server.log_tail()}")
    traces = page.evaluate(TRACES_JS)
    names = [t["name"] for t in traces]
    assert traces[0]["type"] == "heatmap" and names[0] == "runtime"
    assert "measured" in names and "target" in names
    assert any(n.startswith("constant work per process") for n in names)
    assert any(n.startswith("constant s") for n in names)
    target_before = next(t for t in traces if t["name"] == "target")
    summary_before = page.locator(".wb-multiparam-summary").inner_text()

    before = page.evaluate(DRAWN_REVISIONS_JS)
    perform(page, Move("slider", "target size", figures=("multiparam",)))
    assert not wait_for_redraw(page, ("multiparam",), before, 30), page_problems(page)
    settle(page)
    target_after = next(t for t in page.evaluate(TRACES_JS) if t["name"] == "target")
    assert target_after["y"][0] > target_before["y"][0]  # ArrowRight: a larger size
    assert target_after["x"] == target_before["x"]
    assert page.locator(".wb-multiparam-summary").inner_text() != summary_before

    before = page.evaluate(DRAWN_REVISIONS_JS)
    perform(page, Move("toggle", "layer", option="interval width", figures=("multiparam",)))
    assert not wait_for_redraw(page, ("multiparam",), before, 30), page_problems(page)
    settle(page)
    traces = page.evaluate(TRACES_JS)
    assert traces[0]["name"] == "interval width"
    assert "width of the interval" in str(traces[0]["title"])
    assert not page_problems(page)
