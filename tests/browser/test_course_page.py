"""The root of ``make dashboards`` in a browser: the course page, its thumbnails drawn, and a
lesson's link opening its dashboard with a moving figure."""

from __future__ import annotations

import pytest

from workbench.course.path import COURSE
from workbench.ui.common import MAIN_FIGURE_CLASS
from workbench.ui.drive import page_problems

#: Thumbnails loaded and drawn: every image of the course has pixels.
THUMBNAILS_DRAWN_JS = ("() => [...document.querySelectorAll('li.lesson img')]"
                       ".every(img => img.complete && img.naturalWidth > 0)")


@pytest.mark.browser
def test_root_shows_the_course_and_lesson_01_opens_its_dashboard(voila_server, browser_page):
    page = browser_page
    page.goto(voila_server.url, wait_until="load", timeout=60_000)
    titles = [" ".join(text.split()) for text in page.locator("li.lesson h2").all_inner_texts()]
    assert titles == [f"{number:02d}{entry.title}" for number, entry in enumerate(COURSE)]
    page.wait_for_function(THUMBNAILS_DRAWN_JS, timeout=30_000)
    assert page.locator("li.lesson img").count() == len(COURSE)
    assert not page_problems(page)
    page.locator("li[id='01_downey_explorer'] a.open").click()
    page.wait_for_url("**/voila/render/01_downey_explorer.ipynb", timeout=30_000)
    page.wait_for_selector(f".{MAIN_FIGURE_CLASS} .js-plotly-plot .main-svg", state="attached", timeout=180_000)
    assert not page_problems(page), page_problems(page)


@pytest.mark.browser
def test_a_dashboard_opened_again_at_once_shows_its_exercises(voila_server, browser_page):
    """The second of two quick visits gets no preheated kernel (the pool is refilling) and
    Voila renders the page while the notebook runs: the exercises, shown with the dashboard
    (``with_exercises``), must still draw ("model not found" when they had a cell of their own)."""
    page = browser_page
    for _ in range(2):
        page.goto(voila_server.render_url("03_anomalies.ipynb"), wait_until="load", timeout=60_000)
        page.wait_for_selector(f".{MAIN_FIGURE_CLASS} .js-plotly-plot .main-svg", state="attached", timeout=180_000)
        page.wait_for_selector(".widget-accordion, .jupyter-widget-Accordion, .lm-AccordionPanel",
                               state="attached", timeout=60_000)
        assert "model not found" not in page.inner_text("body")
        assert not page_problems(page), page_problems(page)
