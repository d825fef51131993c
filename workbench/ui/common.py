"""Small helpers shared by every dashboard in :mod:`workbench.ui`.

Dashboard convention (the browser tests in ``tests/browser/`` rely on it)
--------------------------------------------------------------------------
Every dashboard (one notebook in ``notebooks/``, one module here) follows the pattern of
:mod:`workbench.ui.downey_explorer`:

* its primary slider, the one a user moves first, carries the DOM class
  :data:`PRIMARY_SLIDER_CLASS` (``wb-primary-slider``): build it with
  ``slider(..., primary=True)``;
* its main live figure is a ``FigureWidget`` made by :func:`figure_widget` with
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

Other rules the helpers encode (see the Jupyter/Voila notes): a ``FigureWidget`` is built
complete in its constructor and only changed afterwards inside ``batch_update``, because
changes made before it is displayed are lost in Voila; expensive sliders use
``continuous_update=False``; slider values are rounded in callbacks (keyboard steps give
values such as 3.4999999999999996); a refresh that changes nothing must send nothing
(:func:`update_figure_widget` sees to it), because an update arriving while the browser
is still drawing a figure for the first time can freeze that figure.
"""

from __future__ import annotations

import contextlib
import html
import logging
import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from workbench.errors import WorkbenchError

__all__ = [
    "static_figure_outputs",
    "ERROR_CLASS",
    "MAIN_FIGURE_CLASS",
    "MESSAGE_PANEL_CLASS",
    "PRIMARY_SLIDER_CLASS",
    "FitCache",
    "QuietChanges",
    "StaticPanels",
    "figure_widget",
    "frame_html",
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
ERROR_CLASS = "wb-error"

_BOX_STYLE = {
    "error": "color:#8b0000;background:#fdecea;border:2px solid #d32f2f",
    "warning": "color:#6d4c00;background:#fff8e1;border:2px solid #f9a825",
    "info": "color:#0d3c61;background:#e8f4fd;border:2px solid #1e88e5",
}


# --------------------------------------------------------------------------- messages


def message_panel() -> widgets.HTML:
    """An initially empty panel for errors, warnings and notes of a dashboard."""
    return widgets.HTML(value="", _dom_classes=(MESSAGE_PANEL_CLASS,))


def show_message(panel: widgets.HTML, text: str | None, kind: str = "error") -> None:
    """Show ``text`` in ``panel`` as an ``error``, ``warning`` or ``info`` box; ``None`` or
    ``""`` clears the panel.  The text is HTML-escaped (messages quote file contents)."""
    if kind not in _BOX_STYLE:
        raise ValueError(f"kind must be one of {sorted(_BOX_STYLE)}, got {kind!r}")
    if not text:
        panel.value = ""
        return
    panel.value = (
        f'<div class="wb-{kind}" style="{_BOX_STYLE[kind]};padding:8px 12px;border-radius:4px;'
        f'white-space:pre-wrap">{html.escape(str(text))}</div>'
    )


class show_errors(contextlib.ContextDecorator):
    """Context manager / decorator for widget callbacks: exceptions become a red box.

    A :class:`~workbench.errors.WorkbenchError` (bad input, unreadable file, ...) shows its
    message; any other exception is a bug, shown as ``Unexpected error (TypeName): ...`` and
    logged with its traceback.  Either way it is suppressed, so a callback never dumps a
    traceback into the page; a block that completes clears the panel.  Usage::

        panel = message_panel()

        @show_errors(panel)
        def on_change(change): ...

        with show_errors(panel):
            result = load(path)
    """

    def __init__(self, panel: widgets.HTML):
        self.panel = panel

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            show_message(self.panel, None)
            return False
        if not issubclass(exc_type, Exception):  # KeyboardInterrupt, SystemExit
            return False
        if issubclass(exc_type, WorkbenchError):
            show_message(self.panel, str(exc))
        else:
            log.error("unexpected error in a dashboard callback", exc_info=(exc_type, exc, tb))
            show_message(self.panel, f"Unexpected error ({exc_type.__name__}): {exc}")
        return True


def readout_html(rows: Mapping[str, str]) -> str:
    """A compact two-column HTML table of ``label -> value`` readouts (values escaped)."""
    body = "".join(
        f'<tr><td style="padding:1px 10px 1px 0;color:#555">{html.escape(k)}</td>'
        f'<td style="padding:1px 0"><b>{html.escape(v)}</b></td></tr>'
        for k, v in rows.items()
    )
    return f'<table style="font-size:13px;line-height:1.5">{body}</table>'


# --------------------------------------------------------------------------- sliders


def rounded(value: float, digits: int = 4) -> float:
    """Round to ``digits`` significant digits (slider values such as 3.4999999999999996)."""
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


def figure_widget(fig: go.Figure, *, primary: bool = False) -> go.FigureWidget:
    """A live ``FigureWidget`` built complete from ``fig`` in its constructor.

    Change it afterwards only with :func:`update_figure_widget` (or inside
    ``with widget.batch_update():``): edits made before the widget is displayed are lost in
    Voila.  ``primary=True`` adds :data:`MAIN_FIGURE_CLASS`.  One or two per dashboard: each
    ships ~5 MB of JavaScript; secondary figures should be static ``go.Figure``.
    """
    widget = go.FigureWidget(fig)
    if primary:
        widget.add_class(MAIN_FIGURE_CLASS)
    return widget


def _same(a, b) -> bool:
    """Equal plotly property values, NaN equal to NaN (plotly's own check is not, so a
    figure with gaps would be resent unchanged)."""
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except (TypeError, ValueError):  # strings, dicts: plain comparison
        try:
            return bool(a == b)
        except ValueError:  # dicts holding arrays: treat as changed
            return False


def update_figure_widget(widget: go.FigureWidget, fig: go.Figure) -> None:
    """Make a displayed ``widget`` show ``fig`` in one message, sending only what changed.

    Traces are updated in place when ``fig`` has the same number and types of traces
    (what figure functions with a fixed trace list give), otherwise replaced; the layout is
    replaced key by key, except the template, which never changes and is large.  An update
    to an identical figure sends nothing: besides saving work, this matters because an
    update that reaches the browser while the figure's first drawing is still in progress
    can leave the figure frozen for the rest of the session (seen in Voila when a widget
    fired a refresh as the page connected).
    """
    # to_plotly_json keeps numpy arrays (to_dict would encode them as base64 dicts)
    traces = [t.to_plotly_json() for t in fig.data]
    layout = {k: v for k, v in fig.layout.to_plotly_json().items() if k != "template"}
    same_traces = [t.type for t in widget.data] == [t["type"] for t in traces]
    if not same_traces:
        widget.data = ()
        widget.add_traces(traces)
    with widget.batch_update():
        if same_traces:
            for trace, new in zip(widget.data, traces):
                current = trace.to_plotly_json()
                changed = {k: v for k, v in new.items() if k != "type" and not _same(current.get(k), v)}
                if changed:
                    trace.update(changed, overwrite=True)
        widget.update_layout(layout, overwrite=True)


class FitCache:
    """A small least-recently-used cache of fitted models keyed on (data, parameters)."""

    def __init__(self, size: int = 32):
        self.size = size
        self._items: OrderedDict = OrderedDict()

    def get(self, key: Hashable, fit: Callable[[], object]):
        """The cached value for ``key``, computing it with ``fit()`` on a miss."""
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = fit()
        self._items[key] = value
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return value


def frame_html(frame: pd.DataFrame, title: str = "") -> str:
    """A compact HTML table of a small DataFrame (4 significant digits, NaN as '–')."""
    table = frame.to_html(index=False, border=0, na_rep="–", float_format=lambda v: f"{v:.4g}",
                          classes="wb-table", justify="left")
    head = f"<b>{title}</b>" if title else ""
    return (f'<div style="font-size:12px;overflow-x:auto">{head}<style>.wb-table td,.wb-table th'
            f'{{padding:1px 8px;text-align:right}}</style>{table}</div>')


def placeholder_figure(text: str) -> go.Figure:
    """An empty figure with a title, shown until the first successful fit."""
    fig = go.Figure()
    fig.update_layout(title=dict(text=text), height=420, xaxis=dict(visible=False), yaxis=dict(visible=False))
    return fig


class QuietChanges:
    """Mixin for a widget class whose code sets its own widgets: inside ``with
    self._quietly():`` the change handlers (which return early while ``self._quiet``)
    do not run."""

    _quiet = False

    @contextlib.contextmanager
    def _quietly(self):
        previous, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = previous

    def _take_upload(self, change, load) -> None:
        """Body of a ``FileUpload`` handler (the widget is ``self.upload``): hand the uploaded
        files to ``load`` as a list of ``(name, content bytes)``, then clear the widget quietly,
        so that the same file can be uploaded again after a fix."""
        files = change["new"]
        if self._quiet or not files:
            return
        try:
            load([(f["name"], bytes(f["content"])) for f in files])
        finally:
            with self._quietly():
                self.upload.value = ()


class StaticPanels:
    """Mixin for a dashboard that shows static figures (plain plotly figures in ``Output``
    widgets, :func:`static_figure_outputs`) beside its live ``FigureWidget`` s.

    The static panels are sent only once the browser has drawn every live figure, or on
    :meth:`show_static` (tests, scripts, no browser).  Why: rendering them (another plotly.js
    figure each) while the FigureWidgets initialise kept the 2-core machine busy past
    anywidget's 2 s model initialisation budget, and the live figures then never updated
    (seen in Voila, 1 to 2 loads in 3).  The browser reports trace defaults
    (``_js2py_traceDeltas``) after drawing a FigureWidget: its first report means that
    figure is initialised.

    Use: :meth:`_init_static_panels` first in the constructor; every static figure goes
    through :meth:`_show` (kept in ``figures`` by name); :meth:`_wait_for_drawing` once the
    live figures exist.  Override :meth:`_send_static` to send more than the shown figures.
    """

    def _init_static_panels(self) -> None:
        self.figures: dict[str, go.Figure] = {}
        self._static_outs: dict[str, widgets.Output] = {}
        self._undrawn: set[str] | None = None  # live figures not drawn yet; None: not registered

    def _wait_for_drawing(self, live: Mapping[str, go.FigureWidget]) -> None:
        if self._undrawn is None:  # show_static() may have come first
            self._undrawn = set(live)
        for name, figure in live.items():
            figure.observe(lambda change, name=name: self._on_drawn(name, change), names="_js2py_traceDeltas")

    @property
    def static_shown(self) -> bool:
        """True once the static panels are sent: the browser drew every live figure, or
        :meth:`show_static` was called."""
        return self._undrawn is not None and not self._undrawn

    def _show(self, name: str, out: widgets.Output, fig: go.Figure) -> None:
        self.figures[name] = fig
        self._static_outs[name] = out
        if self.static_shown:
            out.outputs = static_figure_outputs(fig)

    def show_static(self) -> None:
        """Send the static panels to the browser now (without waiting for it)."""
        self._undrawn = set()
        self._send_static()

    def _send_static(self) -> None:
        for name, out in self._static_outs.items():
            out.outputs = static_figure_outputs(self.figures[name])

    def _on_drawn(self, name: str, change) -> None:
        if change["new"] is None or not self._undrawn:
            return
        self._undrawn.discard(name)
        if not self._undrawn:
            self._send_static()


def static_figure_outputs(fig: go.Figure) -> tuple:
    """Outputs of an ``Output`` widget showing ``fig`` as a static plotly figure (set
    ``out.outputs = ...``: replaces the contents in one message, no FigureWidget)."""
    data = pio.renderers["plotly_mimetype"].to_mimebundle(fig.to_dict())
    return ({"output_type": "display_data", "data": data, "metadata": {}},)
