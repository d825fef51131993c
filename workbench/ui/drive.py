"""Drive the dashboards in a browser as a person would, and check what they show.

One registry, :data:`DASHBOARDS`, says for every notebook which controls a person moves and
which figures must redraw after each move; every figure on the page must be covered (or
declared constant).  Used by the browser tests (``tests/browser/test_dashboards.py``), the
freeze benchmark (``tools/freeze_bench.py``) and the load test (``tools/load_test.py``).

A figure is a :class:`~workbench.ui.common.LiveFigure`: an element with the DOM class
``wb-figure`` (``wb-figure-<name>``, ``main`` for the main figure) whose plotly figure carries
its revision in ``layout.meta.wb_revision``.  "Redrawn" means plotly has drawn a newer
revision than before the move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.ui.common import ERROR_CLASS, MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS

__all__ = ["DASHBOARDS", "DRAWN_REVISIONS_JS", "VISIBLE_FIGURES_DRAWN_JS", "VISIBLE_FIGURE_SIZES_JS", "Dashboard",
           "Move", "block_foreign_requests", "invisible_figures", "open_dashboard", "page_problems", "perform",
           "wait_for_redraw"]


@dataclass(frozen=True)
class Move:
    """One thing a person does on a dashboard and the figures that must redraw after it.

    ``kind`` is ``slider`` (focus the handle, press ``key`` ``presses`` times), ``toggle``
    (click the button ``option`` of a ToggleButtons), ``dropdown`` (choose ``option``, by
    its text), ``checkbox`` (click it) or ``button`` (click the button whose text is
    ``label``).  ``label`` is the control's description (None: the primary slider, or a
    toggle without one).  ``figures`` are figure names (``wb-figure-<name>``; ``main`` is
    the main figure): each must show a newer revision, drawn, within ``timeout_s``.
    """

    kind: str
    label: str | None = None
    figures: tuple[str, ...] = ("main",)
    option: str | None = None
    key: str = "ArrowRight"
    presses: int = 5
    timeout_s: float = 20


@dataclass(frozen=True)
class Dashboard:
    """How the browser test drives one dashboard.

    ``moves`` in order on one page load; every figure on the page must be redrawn by some
    move or be listed in ``constant`` (figures that depend on no control, e.g. a paper's
    table).
    """

    moves: tuple[Move, ...] = (Move("slider"),)
    constant: tuple[str, ...] = ()
    load_timeout_s: float = 90  # notebook execution in Voila, first drawing included


DASHBOARDS: dict[str, Dashboard] = {
    "00_predict_my_runs.ipynb": Dashboard(moves=(
        Move("slider"),
        Move("toggle", option="Benchmark leaderboard", figures=("board",)),
        Move("toggle", "protocol", option="k4", figures=("board",)),
    )),
    "01_downey_explorer.ipynb": Dashboard(),
    "02_adept_prediction.ipynb": Dashboard(),
    "03_anomalies.ipynb": Dashboard(moves=(
        Move("slider", figures=("main", "fit")),
        Move("toggle", "view", option="runtime", figures=("main",)),
        Move("slider", figures=("main", "fit")),
    )),
    "04_cross_size.ipynb": Dashboard(moves=(
        Move("slider"),
        Move("slider", "target n", figures=("multiparam",)),
        Move("toggle", "layer", option="interval width", figures=("multiparam",)),
    )),
    "05_fim_calculation.ipynb": Dashboard(moves=(
        Move("slider", figures=("main", "prediction", "parity", "heatmap", "occupancy")),
        Move("toggle", "variable", option="SC", figures=("surface",)),
        Move("dropdown", "Data", option=None, figures=("main", "prediction", "parity", "table4")),
    )),
    "06_fim_communication.ipynb": Dashboard(moves=(
        Move("slider", figures=("main", "cdf", "vs_n", "vs_p")),
        Move("checkbox", "time per data point (Fig. 6)", figures=("vs_n", "vs_p")),
    )),
    "07_comm_regression.ipynb": Dashboard(moves=(
        Move("slider", figures=("main",)),
        Move("dropdown", "scatter metric", figures=("scatter",)),
        Move("toggle", "robust loss", option=None, figures=("main", "residuals")),
        Move("dropdown", "data", figures=("main", "heatmap", "matrix", "scatter", "residuals")),
    )),
    "08_comm_statistics_ml.ipynb": Dashboard(moves=(
        Move("slider", figures=("main",)),
        Move("dropdown", "group by", figures=("box", "density", "band")),
        Move("button", "train", figures=("prediction", "importance"), timeout_s=60),
    )),
    "10_regions.ipynb": Dashboard(moves=(
        Move("slider", figures=("main", "fit"), timeout_s=60),
        Move("dropdown", "region", figures=("fit",), timeout_s=60),
    ), load_timeout_s=180),
    "09_fractal_extrapolation.ipynb": Dashboard(moves=(
        Move("slider", figures=("main", "bars", "shares")),
    ), constant=("table1",)),
}

#: Console errors that are not the dashboard's fault (substrings).  None at present: the pages
#: request nothing off the machine (workbench/ui/voila_templates, tests/browser/test_offline.py),
#: so a failed name resolution is a problem like any other.
IGNORED_CONSOLE_ERRORS: tuple[str, ...] = ()
#: Page texts Voila shows for failed cells (tracebacks are stripped by default).
ERROR_TEXTS = (
    "Traceback",
    "There was an error when executing cell",
    "An exception occurred at the server",
    "Cell execution timed out",
)
#: Outputs of failed cells: JupyterLab renders errors and stderr with these MIME types.
ERROR_OUTPUTS = '.jp-OutputArea-output[data-mime-type*="error"], .jp-OutputArea-output[data-mime-type*="stderr"]'

# Every figure on the page: name -> revision drawn by plotly (-1: not drawn yet).  A
# LiveFigure writes its revision into layout.meta.wb_revision; the drawing is finished when
# plotly has laid the figure out (_fullLayout) and drawn its SVG.
DRAWN_REVISIONS_JS = """() => Object.fromEntries(Array.from(document.querySelectorAll('.wb-figure')).map(f => {
    const name = Array.from(f.classList).find(c => c.startsWith('wb-figure-'));
    const gd = f.querySelector('.js-plotly-plot');
    const drawn = gd && gd._fullLayout && gd.layout && gd.layout.meta && gd.querySelector('.main-svg');
    return [name ? name.slice('wb-figure-'.length) : '?', drawn ? gd.layout.meta.wb_revision : -1];
}))"""

VISIBLE_FIGURES_DRAWN_JS = """() => Array.from(document.querySelectorAll('.wb-figure')).every(f => {
    if (f.offsetParent === null) return true;
    const gd = f.querySelector('.js-plotly-plot');
    return Boolean(gd && gd._fullLayout && gd.querySelector('.main-svg'));
})"""


#: Every visible figure: its name, the size plotly's drawing (its first ``.main-svg``) shows on
#: the page -- its bounding box clipped by every element between it and the figure panel
#: that clips its content (the output areas do: a drawing whose box collapsed is cut to
#: nothing although the svg itself keeps its size) -- and its number of traces.  Hidden
#: figures (``display: none`` on them or an ancestor) are skipped.
VISIBLE_FIGURE_SIZES_JS = """() => Array.from(document.querySelectorAll('.wb-figure'))
  .filter(f => f.offsetParent !== null && f.getClientRects().length > 0).map(f => {
    const name = Array.from(f.classList).find(c => c.startsWith('wb-figure-'));
    const gd = f.querySelector('.js-plotly-plot');
    const svg = gd && gd.querySelector('.main-svg');
    let width = 0, height = 0;
    if (svg) {
      const r = svg.getBoundingClientRect();
      let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
      for (let el = svg.parentElement; el && el !== f.parentElement; el = el.parentElement) {
        const cs = getComputedStyle(el), c = el.getBoundingClientRect();
        if (cs.overflowX !== 'visible') { left = Math.max(left, c.left); right = Math.min(right, c.right); }
        if (cs.overflowY !== 'visible') { top = Math.max(top, c.top); bottom = Math.min(bottom, c.bottom); }
      }
      width = Math.max(0, right - left); height = Math.max(0, bottom - top);
    }
    return {name: name ? name.slice('wb-figure-'.length) : '?', width: Math.round(width),
            height: Math.round(height), traces: gd && gd.data ? gd.data.length : 0};
  })"""


def invisible_figures(page, timeout_s: float = 5) -> list[str]:
    """Return the visible figures that are not drawn at a non-zero size with at least one trace.

    Waits up to ``timeout_s`` for them (plotly relayouts a figure ~0.1 s after drawing it);
    each problem names the figure, its drawn size and its number of traces.  Empty: every
    visible figure shows something.

    Parameters
    ----------
    page : playwright.sync_api.Page
        The dashboard's page.
    timeout_s : float, default 5
        Longest wait for the figures to be drawn, seconds.
    """
    ok = f"() => ({VISIBLE_FIGURE_SIZES_JS})().every(f => f.width > 0 && f.height > 0 && f.traces > 0)"
    try:
        page.wait_for_function(ok, timeout=timeout_s * 1000)
        return []
    except Exception:  # playwright's TimeoutError
        return [f"figure {f['name']} drawn at {f['width']} x {f['height']} px with {f['traces']} traces"
                for f in page.evaluate(VISIBLE_FIGURE_SIZES_JS)
                if not (f["width"] > 0 and f["height"] > 0 and f["traces"] > 0)]


#: Requests that would leave the machine: http(s) and websockets to any host but loopback.
FOREIGN_URL = re.compile(r"^(https?|wss?)://(?!(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(/|$))",
                         re.IGNORECASE)


def block_foreign_requests(context, record: list[str]) -> None:
    """Abort every request of a playwright browser ``context`` that would leave the machine.

    Each one's URL is appended to ``record`` (see :data:`FOREIGN_URL`): a page must load and
    work offline, as on an HPC login node.

    Parameters
    ----------
    context : playwright.sync_api.BrowserContext
        The browser context.
    record : list of str
        Receives the URL of every blocked request.
    """
    def abort(route) -> None:
        record.append(route.request.url)
        route.abort()

    context.route(FOREIGN_URL, abort)


def page_problems(page) -> list[str]:
    """Return the error outputs, error panels and error texts shown on ``page``.

    Console errors about a request aborted by :func:`block_foreign_requests` (listed in
    ``page.foreign_requests``, checked on their own) are left out.

    Parameters
    ----------
    page : playwright.sync_api.Page
        The dashboard's page.
    """
    problems = [f"error output: {t!r}" for t in page.locator(ERROR_OUTPUTS).all_inner_texts()]
    problems += [f"{ERROR_CLASS} panel: {t!r}" for t in page.locator(f".{ERROR_CLASS}").all_inner_texts()]
    body = page.inner_text("body")
    problems += [f"page text contains {t!r}" for t in ERROR_TEXTS if t in body]
    blocked = tuple(getattr(page, "foreign_requests", ()))
    problems += [e for e in page.errors if not any(ignored in e for ignored in IGNORED_CONSOLE_ERRORS + blocked)]
    return problems


def _labelled(page, css: str, label: str | None):
    controls = page.locator(css)
    if label is None:
        return controls
    exact = re.compile(f"^\\s*{re.escape(label)}\\s*$")
    return controls.filter(has=page.locator(".widget-label, .widget-label-basic", has_text=exact))


def perform(page, move: Move) -> str:
    """Perform ``move``; returns what was done (for failure messages).

    Parameters
    ----------
    page : playwright.sync_api.Page
        The dashboard's page.
    move : Move
        What the person does.
    """
    if move.kind == "slider":
        box = (page.locator(f".{PRIMARY_SLIDER_CLASS}") if move.label is None
               else _labelled(page, ".widget-slider", move.label))
        readout = box.locator(".widget-readout")
        before = readout.inner_text()
        box.locator(".noUi-handle").focus()
        for _ in range(move.presses):
            page.keyboard.press(move.key)
        after = readout.inner_text()
        assert after != before, f"{move.presses} x {move.key} did not move the slider {move.label or 'primary'}"
        return f"slider {move.label or 'primary'} {before} -> {after}"
    if move.kind == "toggle":
        box = _labelled(page, ".widget-toggle-buttons", move.label)
        buttons = box.locator("button.widget-toggle-button")
        if move.option is None:  # the first button that is not selected
            button = box.locator("button.widget-toggle-button:not(.mod-active)").first
        else:
            button = buttons.filter(has_text=re.compile(f"^\\s*{re.escape(move.option)}\\s*$"))
        text = button.inner_text()
        button.click()
        return f"toggle {move.label} -> {text}"
    if move.kind == "dropdown":
        select = _labelled(page, ".widget-dropdown", move.label).locator("select")
        options = select.locator("option").all_inner_texts()
        current = select.evaluate("s => s.selectedIndex")
        choice = move.option if move.option is not None else options[(current + 1) % len(options)]
        select.select_option(label=choice)
        return f"dropdown {move.label} -> {choice}"
    if move.kind == "checkbox":
        _labelled(page, ".widget-checkbox", move.label).locator("input").click()
        return f"checkbox {move.label}"
    if move.kind == "button":
        page.locator("button.widget-button", has_text=move.label).click()
        return f"button {move.label}"
    raise ValueError(f"unknown move kind {move.kind!r}")




def wait_for_redraw(page, figures, before: dict, timeout_s: float) -> list[str]:
    """Wait until every figure in ``figures`` shows a drawn revision newer than in ``before``.

    ``before`` is a :data:`DRAWN_REVISIONS_JS` result; returns the figures that did not
    within ``timeout_s`` (empty: all redrawn).

    Parameters
    ----------
    page : playwright.sync_api.Page
        The dashboard's page.
    figures : iterable of str
        Names of the figures that must redraw.
    before : dict
        The drawn revisions before the move (:data:`DRAWN_REVISIONS_JS`).
    timeout_s : float
        Longest wait, seconds.
    """
    try:
        page.wait_for_function(
            f"([names, before]) => {{ const now = ({DRAWN_REVISIONS_JS})();"
            " return names.every(n => now[n] > before[n]); }",
            arg=[list(figures), before], timeout=timeout_s * 1000)
        return []
    except Exception:  # playwright's TimeoutError
        after = page.evaluate(DRAWN_REVISIONS_JS)
        return [n for n in figures if after.get(n, -1) <= before.get(n, -1)]


def open_dashboard(page, url: str, timeout_s: float) -> None:
    """Load a dashboard and wait as a person would.

    The main figure drawn, the primary slider there and every visible figure drawn once
    (hidden views draw when shown). Raises playwright's ``TimeoutError`` after
    ``timeout_s``.

    Parameters
    ----------
    page : playwright.sync_api.Page
        A browser page.
    url : str
        The dashboard's address.
    timeout_s : float
        Longest wait, seconds.
    """
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_s * 1000)
    page.wait_for_selector(f".{MAIN_FIGURE_CLASS} .js-plotly-plot .main-svg", state="attached",
                           timeout=timeout_s * 1000)
    page.locator(f".{PRIMARY_SLIDER_CLASS} .noUi-handle").wait_for(timeout=timeout_s * 1000)
    page.wait_for_function(VISIBLE_FIGURES_DRAWN_JS, timeout=timeout_s * 1000)
