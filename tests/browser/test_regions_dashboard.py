"""The region dashboard ("Which part of my code stops scaling?") in a browser: it renders,
moving the target slider redraws both figures and the verdicts, choosing another region
redraws its fit, and no error shows."""

from __future__ import annotations

import pytest

from workbench.ui.drive import DASHBOARDS, DRAWN_REVISIONS_JS, open_dashboard, page_problems, perform, wait_for_redraw

NOTEBOOK = "10_regions.ipynb"


@pytest.mark.browser
def test_target_and_region_redraw_every_figure(voila_server, browser_page):
    dashboard = DASHBOARDS[NOTEBOOK]
    page = browser_page
    open_dashboard(page, voila_server.render_url(NOTEBOOK), dashboard.load_timeout_s)
    assert not page_problems(page), f"{page_problems(page)}\n{voila_server.log_tail()}"
    assert set(page.evaluate(DRAWN_REVISIONS_JS)) == {"main", "fit"}
    verdicts = page.locator("text=Verdicts").first
    assert verdicts.is_visible()
    before_text = page.locator(".widget-html", has_text="Regions at n =").first.inner_text()
    for move in dashboard.moves:
        before = page.evaluate(DRAWN_REVISIONS_JS)
        done = perform(page, move)
        stuck = wait_for_redraw(page, move.figures, before, move.timeout_s)
        assert not stuck, f"after '{done}' the figures {stuck} were not redrawn: {page_problems(page)}"
        assert not page_problems(page), f"after '{done}': {page_problems(page)}"
    # the region table follows the target (its title names the target allocation)
    assert page.locator(".widget-html", has_text="Regions at n =").first.inner_text() != before_text
