"""Small helpers shared by every dashboard in :mod:`workbench.ui`.

Dashboard convention (the browser tests in ``tests/browser/`` rely on it)
--------------------------------------------------------------------------
Every dashboard (one notebook in ``notebooks/``, one module here) follows the pattern of
:mod:`workbench.ui.downey_explorer`:

* its primary slider, the one a user moves first, carries the DOM class
  :data:`PRIMARY_SLIDER_CLASS` (``wb-primary-slider``): build it with
  ``slider(..., primary=True)``;
* its main figure is a :class:`LiveFigure` made by :func:`figure_widget` with
  ``primary=True``, which gives it the DOM class :data:`MAIN_FIGURE_CLASS`
  (``wb-main-figure``); moving the primary slider must redraw that figure;
* errors from callbacks go to a :func:`message_panel` through :func:`show_errors`, which
  shows :class:`~workbench.errors.WorkbenchError` messages in a red box with the class
  :data:`ERROR_CLASS` (``wb-error``) instead of a traceback.

A new dashboard registers with one entry in ``DASHBOARDS`` in
``tests/browser/test_dashboards.py``, ``"NN_name.ipynb": Dashboard(),`` (fields override
the selectors, the key pressed on the slider handle and how often).  That test opens
``/voila/render/NN_name.ipynb``, presses the key on ``.wb-primary-slider .noUi-handle``,
expects the traces of ``.wb-main-figure`` to be redrawn and no error output, ``wb-error``
box or console error on the page.  ``tests/test_notebooks.py`` executes every notebook
automatically and ``tools/screenshots.py`` photographs the output holding
``.wb-main-figure``.

Other rules the helpers encode (see the Jupyter/Voila notes): figures are
:class:`LiveFigure` s (never plotly ``FigureWidget`` s: see the class for why); expensive
sliders use ``continuous_update=False``; slider values are rounded in callbacks (keyboard
steps give values such as 3.4999999999999996); a refresh that changes nothing sends
nothing (:meth:`LiveFigure.update`); a panel whose input changed but could not be
recomputed is marked out of date (:meth:`LiveFigure.mark_stale`), never left showing the
previous input's result.
"""

from __future__ import annotations

import contextlib
import html
import json
import logging
import math
from collections.abc import Iterable

import ipywidgets as widgets
import plotly.graph_objects as go
import plotly.io as pio

from workbench.errors import WorkbenchError, quiet_warnings
from workbench.ui.limits import UPLOAD_LIMIT_BYTES
from workbench.views.panels import FitCache, frame_html, placeholder_figure, readout_html

__all__ = [
    "DEFAULT_FIGURE_HEIGHT",
    "ERROR_CLASS",
    "FIGURE_CLASS",
    "MAIN_FIGURE_CLASS",
    "MESSAGE_PANEL_CLASS",
    "PRIMARY_SLIDER_CLASS",
    "FitCache",
    "QuietChanges",
    "STALE_CLASS",
    "UPLOAD_LIMIT_BYTES",
    "LiveFigure",
    "figure_widget",
    "frame_html",
    "mark_stale",
    "message_panel",
    "placeholder_figure",
    "readout_html",
    "rounded",
    "show_errors",
    "show_message",
    "slider",
    "update_figure_widget",
]

log = logging.getLogger(__name__)

PRIMARY_SLIDER_CLASS = "wb-primary-slider"
MAIN_FIGURE_CLASS = "wb-main-figure"
MESSAGE_PANEL_CLASS = "wb-messages"
FIGURE_CLASS = "wb-figure"
STALE_CLASS = "wb-stale"
ERROR_CLASS = "wb-error"

_BOX_STYLE = {
    "error": "color:#8b0000;background:#fdecea;border:2px solid #d32f2f",
    "warning": "color:#6d4c00;background:#fff8e1;border:2px solid #f9a825",
    "info": "color:#0d3c61;background:#e8f4fd;border:2px solid #1e88e5",
}


# --------------------------------------------------------------------------- messages


def message_panel() -> widgets.HTML:
    """Return an initially empty panel for errors, warnings and notes of a dashboard."""
    return widgets.HTML(value="", _dom_classes=(MESSAGE_PANEL_CLASS,))


def show_message(panel: widgets.HTML, text: str | None, kind: str = "error") -> None:
    """Show ``text`` in ``panel`` as an ``error``, ``warning`` or ``info`` box; ``None`` or ``""`` clears the panel.

    The text is HTML-escaped (messages quote file contents).

    Parameters
    ----------
    panel : ipywidgets.HTML
        The message panel.
    text : str or None
        The message; None or "" clears the panel.
    kind : {"error", "warning", "info"}, default "error"
        The box's style.
    """
    if kind not in _BOX_STYLE:
        raise ValueError(f"kind must be one of {sorted(_BOX_STYLE)}, got {kind!r}")
    if not text:
        panel.value = ""
        return
    panel.value = (
        f'<div class="wb-{kind}" style="{_BOX_STYLE[kind]};padding:8px 12px;border-radius:4px;'
        f'white-space:pre-wrap">{html.escape(str(text))}</div>'
    )


#: What a dashboard shows when a callback fails with something other than a WorkbenchError.
INTERNAL_ERROR = ("Internal error: the workbench could not apply the last change (a bug; the details are in the "
                  "server's log). Try another value, or reload the page to start again.")


class show_errors(contextlib.ContextDecorator):
    """Context manager / decorator for widget callbacks: exceptions become a red box.

    A :class:`~workbench.errors.WorkbenchError` (bad input, unreadable file, ...) shows its
    message; any other exception is a bug: the page says so in the project's words
    (:data:`INTERNAL_ERROR`, never the library's text) and the server log gets the
    traceback.  Either way it is suppressed, so a callback never dumps a traceback into the
    page; a block that completes clears the panel.  ``stale``: the
    panels (figures, HTML readouts) that the block was to refresh; after an error they are
    marked out of date (:func:`mark_stale`), so that nothing on screen pretends to show the
    new input.  Usage::

        panel = message_panel()

        @show_errors(panel)
        def on_change(change): ...

        with show_errors(panel):
            result = load(path)

    Parameters
    ----------
    panel : ipywidgets.HTML
        The message panel.
    stale : iterable of ipywidgets.Widget, default ()
        The panels the block refreshes, marked out of date after an error.
    """

    def __init__(self, panel: widgets.HTML, stale: Iterable[widgets.Widget] = ()):
        self.panel = panel
        self.stale = tuple(stale)
        self._quiet: list[contextlib.AbstractContextManager] = []  # a stack: a decorator's instance is reused

    def __enter__(self):
        # the dashboards show models' warnings_ in their panels; emitted, they would also
        # land under the notebook cell as stderr text
        self._quiet.append(quiet_warnings())
        self._quiet[-1].__enter__()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self._quiet.pop().__exit__(None, None, None)
        if exc_type is None:
            show_message(self.panel, None)
            return False
        if not issubclass(exc_type, Exception):  # KeyboardInterrupt, SystemExit
            return False
        for widget in self.stale:
            mark_stale(widget, "the last change could not be applied (see the message above)")
        if issubclass(exc_type, WorkbenchError):
            show_message(self.panel, str(exc))
        else:
            log.error("unexpected error in a dashboard callback", exc_info=(exc_type, exc, tb))
            show_message(self.panel, INTERNAL_ERROR)
        return True


def mark_stale(widget: widgets.Widget, reason: str) -> None:
    """Mark a panel out of date, saying ``reason``.

    A :class:`LiveFigure` shows a notice instead of its figure, an HTML readout is
    replaced by the notice (the next refresh overwrites both).

    Parameters
    ----------
    widget : ipywidgets.Widget
        A LiveFigure or an HTML readout.
    reason : str
        What happened and what to do.
    """
    if isinstance(widget, LiveFigure):
        widget.mark_stale(reason)
    elif isinstance(widget, widgets.HTML):
        widget.value = (f'<div class="{STALE_CLASS}" style="color:#777;font-style:italic;font-size:13px">'
                        f"Out of date: {html.escape(reason)}</div>")
    else:
        raise TypeError(f"cannot mark a {type(widget).__name__} out of date")



# --------------------------------------------------------------------------- sliders


def rounded(value: float, digits: int = 4) -> float:
    """Round to ``digits`` significant digits (slider values such as 3.4999999999999996).

    Parameters
    ----------
    value : float
        The value.
    digits : int, default 4
        Significant digits.
    """
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def slider(
    description: str,
    value: float,
    min: float,
    max: float,
    step: float | None = None,
    *,
    log: bool = False,
    integer: bool = False,
    continuous_update: bool = False,
    primary: bool = False,
    readout_format: str | None = None,
    **kwargs,
) -> widgets.FloatSlider | widgets.FloatLogSlider | widgets.IntSlider:
    """Build a labelled slider.

    ``log=True`` gives a :class:`~ipywidgets.FloatLogSlider` over ``[min, max]`` (given as
    values, not exponents; ``step`` is then the step of log10 and defaults to 1/100 of the
    decades spanned).  ``integer=True`` gives an ``IntSlider``.  ``continuous_update``
    defaults to False (update on release), right for anything that refits or redraws much;
    cheap dashboards may turn it on.  ``primary=True`` adds :data:`PRIMARY_SLIDER_CLASS`.

    Parameters
    ----------
    description : str
        The label.
    value : float
        Initial value.
    min, max : float
        The range (values, also for a log slider).
    step : float, optional
        The step (of log10 for a log slider); default: ipywidgets', or 1/100 of the decades.
    log : bool, default False
        A :class:`~ipywidgets.FloatLogSlider`.
    integer : bool, default False
        An ``IntSlider``.
    continuous_update : bool, default False
        Update while dragging instead of on release.
    primary : bool, default False
        Mark the dashboard's primary slider (:data:`PRIMARY_SLIDER_CLASS`).
    readout_format : str, optional
        The readout's format; default: ipywidgets'.
    **kwargs
        Further arguments of the slider widget.
    """
    common = dict(
        description=description,
        continuous_update=continuous_update,
        style={"description_width": "initial"},
        layout=widgets.Layout(width="420px"),
        **kwargs,
    )
    if log:
        if min <= 0:
            raise ValueError(f"a log slider needs min > 0, got {min!r}")
        lo, hi = math.log10(min), math.log10(max)
        w = widgets.FloatLogSlider(
            value=value, base=10, min=lo, max=hi, step=step or (hi - lo) / 100,
            readout_format=readout_format or ".4g", **common,
        )
    elif integer:
        w = widgets.IntSlider(value=value, min=min, max=max, step=step or 1, **common)
    else:
        w = widgets.FloatSlider(
            value=value, min=min, max=max, step=step or (max - min) / 100,
            readout_format=readout_format or ".3g", **common,
        )
    if primary:
        w.add_class(PRIMARY_SLIDER_CLASS)
    return w


# --------------------------------------------------------------------------- figures


class LiveFigure(widgets.Output):
    """A figure panel that follows its inputs.

    One plotly figure shown as an output of a core ``ipywidgets.Output`` widget, drawn in
    the browser by plotly's mime renderer.

    Why not plotly's ``FigureWidget``: it is an anywidget whose model carries plotly.js
    (~5 MB) in its ``_esm`` trait, evaluated once per figure per page load, and anywidget
    gives a model 2 s to initialise; a model that misses the budget (two cores busy, a
    second figure on the page) rejects its ``ready`` promise and silently drops every later
    update, so the figure froze while the readouts beside it changed.  An ``Output`` is a
    core widget with no such budget, its content is *state* (the whole figure), not a
    stream of deltas, so a late message cannot leave it half-updated, and the page loads
    plotly.js once, from the renderer's cacheable static file.

    :meth:`update` replaces the figure in one message and sends nothing when it is
    unchanged; each change increments :attr:`revision`, also written into the figure as
    ``layout.meta.wb_revision`` so that a test (or a load test) can tell which revision the
    browser drew.  ``figure`` is the figure shown (a ``go.Figure``; ``layout`` is the
    widget's own), ``data`` its traces.  The DOM class :data:`FIGURE_CLASS` marks every
    figure, :data:`MAIN_FIGURE_CLASS` the main one, :data:`STALE_CLASS` one that shows an
    out-of-date notice (:meth:`mark_stale`), and ``wb-figure-<name>`` (``name``, "main"
    for the main figure) tells the figures of a dashboard apart.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure shown first.
    name : str, optional
        Name in the DOM class ``wb-figure-<name>``; default: "main" when ``primary``, else none.
    primary : bool, default False
        The dashboard's main figure.
    **layout
        The widget's ``Layout`` (width).
    """

    def __init__(self, fig: go.Figure, *, name: str | None = None, primary: bool = False, **layout):
        super().__init__(layout=widgets.Layout(**layout))
        self.add_class(FIGURE_CLASS)
        if primary:
            self.add_class(MAIN_FIGURE_CLASS)
        if name or primary:
            self.add_class(f"{FIGURE_CLASS}-{name or 'main'}")
        self.revision = 0
        self.figure: go.Figure = go.Figure()
        self._sent: str | None = None
        self.update(fig)

    @property
    def data(self):
        """The traces of the figure shown."""
        return self.figure.data

    @property
    def stale(self) -> bool:
        """Whether the figure is marked as no longer matching the inputs."""
        return STALE_CLASS in self._dom_classes

    def update(self, fig: go.Figure) -> bool:
        """Show ``fig``; returns False (and sends nothing) when it is what is shown already.

        Parameters
        ----------
        fig : plotly.graph_objects.Figure
            The figure to show.
        """
        spec = pio.to_json(fig, validate=False, remove_uids=True)
        if spec == self._sent and not self.stale:
            return False
        self.revision += 1
        shown = json.loads(spec)
        layout = shown.setdefault("layout", {})
        meta = layout.get("meta")
        layout["meta"] = {**(meta if isinstance(meta, dict) else {}), "wb_revision": self.revision}
        height = int(round(layout.get("height") or DEFAULT_FIGURE_HEIGHT))
        layout["height"] = height
        title = (fig.layout.title.text or "figure") if fig.layout.title else "figure"
        self._size_class(height)
        self.outputs = ({
            "output_type": "display_data",
            "data": {"application/vnd.plotly.v1+json": {**shown, "config": {"responsive": True}},
                     "text/plain": f"<plotly figure: {title}>"},
            "metadata": {},
        }, _height_style(height))
        self.figure = go.Figure(fig)
        self._sent = spec
        self.remove_class(STALE_CLASS)
        return True

    def _size_class(self, height: int) -> None:
        """Give the panel the DOM class of its figure's height (see :func:`_height_style`)."""
        wanted = f"{_HEIGHT_CLASS}{height}"
        for css in self._dom_classes:
            if css.startswith(_HEIGHT_CLASS) and css != wanted:
                self.remove_class(css)
        if wanted not in self._dom_classes:
            self.add_class(wanted)

    def redraw(self) -> None:
        """Send the figure shown again (a new revision), to be drawn at the size its panel has now.

        Call it after showing a panel that was hidden (``layout.display`` of it or of a box
        around it): a figure drawn while hidden took plotly's default width.
        """
        self._sent = None
        stale = self.stale
        self.update(self.figure)
        if stale:
            self.add_class(STALE_CLASS)

    def mark_stale(self, reason: str) -> None:
        """Replace the figure by a notice that it no longer matches the inputs, saying ``reason``.

        ``reason`` says what happened and what to do; the next :meth:`update` shows a
        figure again.  After an error nothing on screen may look like the result of the new
        input.

        Parameters
        ----------
        reason : str
            What happened and what to do.
        """
        self.update(placeholder_figure(f"Out of date: {reason}"))
        self.add_class(STALE_CLASS)


#: Height in px of a figure whose layout gives none (plotly's mime renderer would use 360).
DEFAULT_FIGURE_HEIGHT = 400
_HEIGHT_CLASS = "wb-height-"


def _height_style(height: int) -> dict:
    """Return the output that keeps a figure panel as tall as its figure, whenever the figure was drawn.

    Why: with ``config.responsive`` (which makes plotly follow the window's width), plotly
    sizes the box of the drawing (``.svg-container``) to ``height: 100%`` of the plot
    element, unless that element had no height when plotly first drew into it (plotly's
    ``_hasZeroHeight``), and JupyterLab's mime renderer relayouts every figure once drawn
    (``Plots.resize``, which drops ``layout.height``).  The plot element of an output has
    no height of its own, so the box collapsed to 0 px and the output area, which clips its
    content, showed nothing, for the figures whose element happened to be in the page
    (with a line of height) when plotly drew: "blank until the window is resized".  A
    minimum height equal to the figure's, keyed on the panel's
    ``wb-height-<px>`` class, makes the box the figure's height in both of plotly's
    modes; the width still follows the page.
    """
    rule = (f".{_HEIGHT_CLASS}{height} .js-plotly-plot .svg-container{{min-height:{height}px}}")
    return {"output_type": "display_data", "data": {"text/html": f"<style>{rule}</style>", "text/plain": ""},
            "metadata": {}}


def figure_widget(fig: go.Figure, *, name: str | None = None, primary: bool = False, **layout) -> LiveFigure:
    """Return a :class:`LiveFigure` showing ``fig``.

    ``primary=True`` marks the dashboard's main figure (:data:`MAIN_FIGURE_CLASS`), ``name``
    any other (DOM class ``wb-figure-<name>``); ``layout`` goes to the widget's ``Layout``
    (width).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure shown.
    name : str, optional
        Name in the DOM class ``wb-figure-<name>``.
    primary : bool, default False
        The dashboard's main figure.
    **layout
        The widget's ``Layout`` (width).
    """
    return LiveFigure(fig, name=name, primary=primary, **layout)


def update_figure_widget(widget: LiveFigure, fig: go.Figure) -> None:
    """Make ``widget`` show ``fig`` (nothing is sent when it shows ``fig`` already).

    Parameters
    ----------
    widget : LiveFigure
        The panel.
    fig : plotly.graph_objects.Figure
        The figure to show.
    """
    widget.update(fig)


class QuietChanges:
    """Mixin for a widget class whose code sets its own widgets.

    Inside ``with self._quietly():`` the change handlers (which return early while
    ``self._quiet``) do not run.
    """

    _quiet = False

    @contextlib.contextmanager
    def _quietly(self):
        previous, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = previous

    def _take_upload(self, change, load) -> None:
        """Body of a ``FileUpload`` handler (the widget is ``self.upload``).

        Hand the uploaded files to ``load`` as a list of ``(name, content bytes)``, then clear
        the widget quietly, so that the same file can be uploaded again after a fix.  Files over
        ``workbench.ui.limits.UPLOAD_LIMIT_BYTES`` in total are refused with a message in
        ``self.messages`` (a larger one would reach the server's websocket limit).
        """
        files = change["new"]
        if self._quiet or not files:
            return
        try:
            size = sum(len(f["content"]) for f in files)
            if size > UPLOAD_LIMIT_BYTES:
                names = ", ".join(f["name"] for f in files)
                show_message(self.messages, (
                    f"The upload ({names}) is {size / 2**20:.1f} MiB; the dashboards accept up to "
                    f"{UPLOAD_LIMIT_BYTES / 2**20:.0f} MiB at once. Upload fewer or smaller files (e.g. only the runs "
                    "of one benchmark); nothing was changed."))
                return
            load([(f["name"], bytes(f["content"])) for f in files])
        finally:
            with self._quietly():
                self.upload.value = ()


class NamedFigures:
    """Mixin for a dashboard with secondary figure panels (:class:`LiveFigure` s).

    Every figure shown through :meth:`_show` is also kept by name in ``figures`` (tests,
    screenshots).  Create ``self.figures = {}`` in the constructor.
    """

    figures: dict[str, go.Figure]

    def _show(self, name: str, panel: LiveFigure, fig: go.Figure) -> None:
        self.figures[name] = fig
        panel.update(fig)
