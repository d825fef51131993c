"""Every dashboard renders in Voila, reacts to its primary slider, and shows no error.

Registry: one entry per notebook in ``DASHBOARDS``.  With the convention of
:mod:`workbench.ui.common` (primary slider has the DOM class ``wb-primary-slider``, main
figure ``wb-main-figure``) a new dashboard registers with one line::

    "05_my_dashboard.ipynb": Dashboard(),

and overrides a field only when it needs to (e.g. more key presses for a fine slider).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from workbench.ui.common import ERROR_CLASS, MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS
from workbench.ui.serve import PLOTLY_TRACES

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb"))


@dataclass(frozen=True)
class Dashboard:
    """How the browser test drives one dashboard."""

    slider: str = f".{PRIMARY_SLIDER_CLASS}"  # CSS selector of the slider to move
    figure: str = f".{MAIN_FIGURE_CLASS}"  # CSS selector of the figure that must change
    key: str = "ArrowRight"  # pressed on the focused slider handle ...
    presses: int = 5  # ... this many times (one slider step each)
    load_timeout_s: float = 90  # notebook execution in Voila, first render included
    change_timeout_s: float = 20  # slider release -> redrawn figure


DASHBOARDS: dict[str, Dashboard] = {
    "00_predict_my_runs.ipynb": Dashboard(),
    "01_downey_explorer.ipynb": Dashboard(),
    "02_adept_prediction.ipynb": Dashboard(),
    "03_anomalies.ipynb": Dashboard(),
    "04_cross_size.ipynb": Dashboard(),
    "05_fim_calculation.ipynb": Dashboard(),
    "06_fim_communication.ipynb": Dashboard(),
    "07_comm_regression.ipynb": Dashboard(),
    "08_comm_statistics_ml.ipynb": Dashboard(),
    "09_fractal_extrapolation.ipynb": Dashboard(),
}

#: Console errors that are not the dashboard's fault: offline, the lab template's Font
#: Awesome request to a CDN fails name resolution.
IGNORED_CONSOLE_ERRORS = ("ERR_NAME_NOT_RESOLVED",)
#: Page texts Voila shows for failed cells (tracebacks are stripped by default).
ERROR_TEXTS = (
    "Traceback",
    "There was an error when executing cell",
    "An exception occurred at the server",
    "Cell execution timed out",
)
#: Outputs of failed cells: JupyterLab renders errors and stderr with these MIME types.
ERROR_OUTPUTS = '.jp-OutputArea-output[data-mime-type*="error"], .jp-OutputArea-output[data-mime-type*="stderr"]'

# Trace geometry of a plotly figure, to tell whether it was redrawn.
FIGURE_SIGNATURE_JS = """([figure, traces]) => {
    const fig = document.querySelector(figure);
    if (!fig) return null;
    return Array.from(fig.querySelectorAll(traces))
        .map(e => e.getAttribute('d') || e.getAttribute('href') || '').join('|');
}"""


# What plotly.js holds for a figure: its title and trace count (diagnostics only).
PLOTLY_STATE_JS = """(figure) => {
    const el = document.querySelector(figure);
    const gd = el && (el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot'));
    if (!gd || !gd.layout) return 'no plotly graph div';
    const title = gd.layout.title && (gd.layout.title.text ?? gd.layout.title);
    return {title: String(title), traces: (gd.data || []).length};
}"""


def test_every_notebook_is_registered():
    missing = [nb for nb in NOTEBOOKS if nb not in DASHBOARDS]
    assert not missing, (
        f"add an entry for {missing} to DASHBOARDS in {Path(__file__).name}, e.g. "
        f'"{missing[0]}": Dashboard(),  (and give its primary slider/figure the DOM classes '
        f"{PRIMARY_SLIDER_CLASS}/{MAIN_FIGURE_CLASS})"
    )


def test_registry_has_no_stale_entries():
    stale = sorted(set(DASHBOARDS) - set(NOTEBOOKS))
    assert not stale, f"DASHBOARDS names notebooks that are not in notebooks/: {stale}"


def _page_problems(page) -> list[str]:
    problems = [f"error output: {t!r}" for t in page.locator(ERROR_OUTPUTS).all_inner_texts()]
    problems += [f"{ERROR_CLASS} panel: {t!r}" for t in page.locator(f".{ERROR_CLASS}").all_inner_texts()]
    body = page.inner_text("body")
    problems += [f"page text contains {t!r}" for t in ERROR_TEXTS if t in body]
    problems += [e for e in page.errors if not any(ignored in e for ignored in IGNORED_CONSOLE_ERRORS)]
    return problems


@pytest.mark.browser
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_dashboard_reacts_to_primary_slider(notebook, voila_server, browser_page):
    dashboard = DASHBOARDS.get(notebook)
    if dashboard is None:
        pytest.fail(f"{notebook} has no entry in DASHBOARDS (see test_every_notebook_is_registered)")
    page = browser_page
    page.set_default_timeout(dashboard.load_timeout_s * 1000)
    page.goto(voila_server.render_url(notebook), wait_until="domcontentloaded")

    handle = page.locator(f"{dashboard.slider} .noUi-handle")
    try:
        page.wait_for_selector(f"{dashboard.figure} :is({PLOTLY_TRACES})", state="attached")
        handle.wait_for()
        # Traces appear before plotly has finished the figure's first drawing; a person moves
        # the slider once the figure is there, and so does this test.
        page.wait_for_function("(figure) => window.__wbRendered.some(el => el.isConnected && el.closest(figure))",
                               arg=dashboard.figure)
    except Exception as exc:  # playwright's TimeoutError; add what the page and server show
        pytest.fail(f"{notebook} did not render its figure and slider: {exc}\n{_page_problems(page)}\n{voila_server.log_tail()}")
    assert handle.count() == 1, f"{notebook}: {handle.count()} elements match {dashboard.slider}; expected one"
    problems = _page_problems(page)
    assert not problems, f"{notebook} after loading: {problems}\n{voila_server.log_tail()}"

    readout = page.locator(f"{dashboard.slider} .widget-readout")
    value_before = readout.inner_text()
    before = page.evaluate(FIGURE_SIGNATURE_JS, [dashboard.figure, PLOTLY_TRACES])
    text_before = page.inner_text("body").splitlines()
    assert before, f"{notebook}: the figure {dashboard.figure} has no traces"

    handle.focus()
    for _ in range(dashboard.presses):
        page.keyboard.press(dashboard.key)
    value_after = readout.inner_text()
    assert value_after != value_before, f"{notebook}: {dashboard.presses} x {dashboard.key} did not move the slider"
    try:
        page.wait_for_function(
            f"([figure, traces, before]) => ({FIGURE_SIGNATURE_JS})([figure, traces]) !== before",
            arg=[dashboard.figure, PLOTLY_TRACES, before],
            timeout=dashboard.change_timeout_s * 1000,
        )
    except Exception:
        # Did the kernel answer at all (other widgets changed) or only the figure stay put?
        changed = [line for line in page.inner_text("body").splitlines() if line not in text_before]
        console = "\n".join(line for line in page.console_log if "version" not in line)
        pytest.fail(
            f"{notebook}: moving the slider {value_before} -> {value_after} did not redraw {dashboard.figure} "
            f"within {dashboard.change_timeout_s} s\nproblems: {_page_problems(page)}\n"
            f"page lines that changed: {changed[:10]}\nconsole:\n{console}\n"
            f"unhandled rejections: {page.evaluate('window.__wbRejections')}\n"
            f"plotly's state of the figure (did the update arrive but not draw?): "
            f"{page.evaluate(PLOTLY_STATE_JS, dashboard.figure)}"
        )
    problems = _page_problems(page)
    assert not problems, f"{notebook} after moving the slider: {problems}\n{voila_server.log_tail()}"
