"""Every dashboard renders in Voila; every figure on it redraws when a control it depends
on moves; every visible figure is drawn at a non-zero size with at least one trace, after
loading and after every move; no error shows; no request leaves the machine.

The moves and figures of each notebook are registered in
:data:`workbench.ui.drive.DASHBOARDS`; a new dashboard registers there with one line
(``"NN_name.ipynb": Dashboard(),`` moves its primary slider and expects its main figure to
redraw) and lists more moves until every figure on its page is covered.

A newcomer reaches a moving figure within one screen of scrolling: the main figure starts
less than :data:`MAX_MAIN_FIGURE_DEPTH` viewport heights from the top of the page (the
first screen plus one screen of scrolling), so a notebook opens with its title, a short
"what to try" and the dashboard, and keeps its teaching text below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.ui.common import MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS
from workbench.ui.drive import (
    DASHBOARDS,
    DRAWN_REVISIONS_JS,
    invisible_figures,
    open_dashboard,
    page_problems,
    perform,
    wait_for_redraw,
)

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb"))

#: The main figure must start within this many viewport heights of the top of the page.
MAX_MAIN_FIGURE_DEPTH = 2.0
#: Where the main figure starts, in viewport heights below the top of the page; the scroll
#: offsets of the window and of every scrolling ancestor are added back, so the depth is
#: the same whether the page or a container inside it scrolls.
MAIN_FIGURE_DEPTH_JS = f"""() => {{
  const figure = document.querySelector('.{MAIN_FIGURE_CLASS}');
  let top = figure.getBoundingClientRect().top + window.scrollY;
  for (let el = figure.parentElement; el; el = el.parentElement) top += el.scrollTop;
  return top / window.innerHeight;
}}"""


def test_every_notebook_is_registered():
    missing = [nb for nb in NOTEBOOKS if nb not in DASHBOARDS]
    assert not missing, (
        f"add an entry for {missing} to DASHBOARDS in workbench/ui/drive.py, e.g. "
        f'"{missing[0]}": Dashboard(),  (and give its primary slider/figure the DOM classes '
        f"{PRIMARY_SLIDER_CLASS}/{MAIN_FIGURE_CLASS})"
    )


def test_registry_has_no_stale_entries():
    stale = sorted(set(DASHBOARDS) - set(NOTEBOOKS))
    assert not stale, f"DASHBOARDS names notebooks that are not in notebooks/: {stale}"


@pytest.mark.browser
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_figure_redraws_when_a_control_it_depends_on_moves(notebook, voila_server, browser_page):
    dashboard = DASHBOARDS.get(notebook)
    if dashboard is None:
        pytest.fail(f"{notebook} has no entry in DASHBOARDS (see test_every_notebook_is_registered)")
    page = browser_page
    try:
        open_dashboard(page, voila_server.render_url(notebook), dashboard.load_timeout_s)
    except Exception as exc:  # playwright's TimeoutError; add what the page and server show
        pytest.fail(f"{notebook} did not render its figures and slider: {exc}\n{page_problems(page)}\n"
                    f"{voila_server.log_tail()}")
    problems = page_problems(page) + invisible_figures(page)
    assert not problems, f"{notebook} after loading: {problems}\n{voila_server.log_tail()}"
    depth = page.evaluate(MAIN_FIGURE_DEPTH_JS)  # as a newcomer finds the page, before any move

    on_page = set(page.evaluate(DRAWN_REVISIONS_JS))
    covered = {name for move in dashboard.moves for name in move.figures} | set(dashboard.constant)
    assert on_page <= covered, (f"{notebook}: figures {sorted(on_page - covered)} are not redrawn by any move in "
                                f"DASHBOARDS (add a Move that changes them, or list them in constant=)")
    assert covered <= on_page, (f"{notebook}: DASHBOARDS names figures that are not on the page: "
                                f"{sorted(covered - on_page)}")

    for move in dashboard.moves:
        before = page.evaluate(DRAWN_REVISIONS_JS)
        done = perform(page, move)
        stuck = wait_for_redraw(page, move.figures, before, move.timeout_s)
        if stuck:
            pytest.fail(f"{notebook}: after '{done}' the figures {stuck} were not redrawn within {move.timeout_s} s "
                        f"(drawn revisions before {before}, after {page.evaluate(DRAWN_REVISIONS_JS)})\n"
                        f"problems: {page_problems(page)}\nunhandled rejections: "
                        f"{page.evaluate('window.__wbRejections')}")
        problems = page_problems(page) + invisible_figures(page)
        assert not problems, f"{notebook} after '{done}': {problems}\n{voila_server.log_tail()}"
    _FOREIGN[notebook] = list(page.foreign_requests)

    # asserted last, so that a dashboard too far down the page still has its redraws checked
    assert depth < MAX_MAIN_FIGURE_DEPTH, (
        f"{notebook}: the main figure starts {depth:.2f} viewport heights down the page; a newcomer must reach "
        f"it within one screen of scrolling (< {MAX_MAIN_FIGURE_DEPTH:g}): open the notebook with its title, a short "
        "'what to try' and the dashboard cell, and move the teaching text below it (<details> sections)")


#: The requests off the machine that each dashboard's page attempted (all aborted), recorded
#: by the test above so that the test below need not load the page again.
_FOREIGN: dict[str, list[str]] = {}


@pytest.mark.browser
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_no_request_leaves_the_machine(notebook, voila_server, browser_page):
    """Nothing is allowed off the machine (offline clusters): every such request is aborted and listed."""
    seen = _FOREIGN.get(notebook)
    if seen is None:  # the test above did not run for this notebook (-k): load the page here
        page = browser_page
        open_dashboard(page, voila_server.render_url(notebook), DASHBOARDS[notebook].load_timeout_s)
        seen = list(page.foreign_requests)
    assert not seen, f"{notebook} requested {len(seen)} resource(s) from off the machine: {seen}"
