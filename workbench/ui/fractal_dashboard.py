"""Fractal extrapolation dashboard (Escobar & Boppana, [EscobarBoppana]).

Phase shares, log-log fits per phase and the predicted runtime at a large input against a
measured large run.

Wiring only: the panels are :mod:`workbench.views.fractal` (widget-free), on top of
the method :func:`workbench.evaluation.fractal.demo_experiment` (and
:mod:`workbench.models.fractal`), Table 1 :func:`~workbench.evaluation.fractal.table1_check`
and the figures of :mod:`workbench.plots.fractal`; the data come from a
:class:`~workbench.ui.data_source.DataSource`.  Times in seconds.

* **Data**: the measured demonstration workload (catalogue ``fractal-demo-local``), a
  SYNTHETIC profile of exact power laws, or an uploaded profile -- a CSV of the profile
  form (``size, phase, time_s[, run, total_s]``) or TAU ``pprof`` text.  A file that
  cannot be read shows a red message and the previous data stay selected.
* **Controls**: the 70 % threshold of the major phases (section 2.1), the convergence
  size C (auto: detected with the tolerance; or one of the measured sizes), delta (auto:
  the k sizes spread up to the largest small run; or a value, each N_i = C + i delta then
  mapped to the nearest measured size), k, the confidence of the prediction band and
  the target size N_Lrg (a measured size, so that the prediction meets a measurement).
* **k is the primary slider** and the log-log fits the main figure: k changes the
  fitted sizes N_i (a point more or less per phase, a new slope).
* Second live figure: predicted vs measured at N_Lrg per phase and in total, with the
  band as error bars and the error in %.  Plain figures: shares vs size (redrawn after a
  change) and Table 1 (static), sent once the browser has drawn both live figures (see
  :class:`~workbench.ui.fim_dashboard.FiMDashboard` for why); the readout with Table 1's
  check beside it.

Speed (this 2-core machine shared with other work, load ~2, the measured demo): a change
of k refits and updates the main figure in ~80-250 ms in the kernel (``last_main_s``;
~70-100 ms for settings seen before, cached), all panels ~50 ms later
(``last_update_s``); slider release -> redrawn figure in the browser ~200-400 ms.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import ValidationError, WorkbenchError, WorkbenchWarning
from workbench.evaluation.fractal import FractalExperiment, design_choices, synthetic_profile
from workbench.io import fetch_dataset
from workbench.io.profiles import EXAMPLE_HEADER, read_profile_files
from workbench.models.fractal import validate_profile
from workbench.ui.common import (
    FitCache,
    NamedFigures,
    QuietChanges,
    figure_widget,
    mark_stale,
    message_panel,
    placeholder_figure,
    readout_html,
    rounded,
    show_errors,
    show_message,
    slider,
)
from workbench.ui.data_source import UPLOAD, Dataset, DataSource
from workbench.ui.uploads import UploadFormat
from workbench.views.fractal import FractalState, fractal_view, table1_view

__all__ = ["DEMO", "SOURCES", "SYNTHETIC", "UPLOAD", "UPLOAD_FORMAT", "FractalDashboard", "fractal_dashboard"]

DEMO, SYNTHETIC = "demo", "synthetic"
AUTO = "auto"
#: Built-in data sources: key -> (label, loader).
SOURCES: dict[str, tuple[str, Callable[[], pd.DataFrame]]] = {
    DEMO: ("measured demo workload (catalogue fractal-demo-local)", lambda: fetch_dataset("fractal-demo-local").frame),
    SYNTHETIC: ("SYNTHETIC power laws: solve N³, sweep N², setup N (exact)", synthetic_profile),
}
#: What the upload button reads (said under the button and after every upload error).
UPLOAD_FORMAT = UploadFormat(
    "The dashboard reads a profile of runs at several input sizes: a UTF-8 CSV (.csv) with one row per phase "
    "per run -- the input size (size), the phase (function) name (phase) and the time spent in it (time_s, "
    "time_ms or time_us), optionally the repetition (run) and the run's whole runtime (total_s, total_ms or "
    "total_us) -- or TAU pprof text outputs, one per run, named profile_<size>[_<run>].txt (pprof does not "
    "record the size). The method needs at least 3 sizes: 2 small ones to fit and a larger one to predict.",
    EXAMPLE_HEADER)
_UPLOAD_HELP = (
    "<span style='font-size:12px;color:#555'>Upload: a CSV with one row per phase per run, columns "
    "<code>size, phase, time_s</code> (or <code>time_ms</code>, <code>time_us</code>) [, <code>run</code>, "
    "<code>total_s</code>], e.g. the header <code>size,phase,time_ms,run,total_ms</code>; or TAU "
    "<code>pprof</code> outputs named <code>profile_&lt;size&gt;[_&lt;run&gt;].txt</code>. At least 3 sizes: "
    "2 small ones to fit, a larger one to predict.</span>")


def _checked_profile(frame: pd.DataFrame) -> pd.DataFrame:
    """Return the documented profile columns and at least 3 measured sizes (2 to fit, 1 to predict)."""
    frame = validate_profile(frame, "dashboard profile")
    design_choices(frame)
    return frame


class FractalDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Data picker, controls, readout, two live figures.

    Log-log fits (main) and predicted vs measured -- the shares-vs-size panel and Table 1.

    Attributes: ``data`` (the :class:`~workbench.ui.data_source.DataSource`; ``source`` its
    menu, ``upload`` its upload button); ``threshold``, ``tolerance``, ``C``,
    ``delta_auto``, ``delta``, ``k`` (primary slider), ``confidence``, ``target``
    (controls); ``figure`` (main LiveFigure), ``bars`` (LiveFigure); ``shares_out``,
    ``table1_out`` (LiveFigures) and the figures they show in ``figures``; ``readout``,
    ``table1_html``, ``notes`` (HTML); ``messages`` (errors of the controls and uploads),
    ``notice`` (about the data); ``profile`` (the current profile frame),
    ``experiment`` (the last :class:`~workbench.evaluation.fractal.FractalExperiment`),
    ``last_main_s`` (change -> main figure updated), ``last_update_s`` (change -> every
    panel updated).

    Parameters
    ----------
    source : str, default "demo"
        A key of :data:`SOURCES` (ignored with ``profile``).
    profile : pandas.DataFrame, optional
        A profile frame of your own.
    k : int, default 5
        Number of fitted sizes.
    threshold : float, default 0.7
        Cumulative share the major phases reach.
    confidence : float, default 0.95
        Level of the prediction intervals.
    """

    def __init__(self, source: str = DEMO, *, profile: pd.DataFrame | None = None, k: int = 5,
                 threshold: float = 0.70, confidence: float = 0.95):
        if profile is None and source not in SOURCES:
            raise ValidationError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
        self.messages, self.notice = message_panel(), message_panel()
        self.notes, self.readout, self.table1_html = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self._cache = FitCache(64)
        self._uploads = 0  # uploads so far: names each uploaded profile in the cache
        self._upload_warnings: list[str] = []
        self.figures: dict[str, go.Figure] = {}
        self.experiment: FractalExperiment | None = None
        self.last_main_s = self.last_update_s = float("nan")
        self._load_data(source, profile)

        self._build_controls(k, threshold, confidence)
        self.figure = figure_widget(placeholder_figure("No fit yet"), primary=True)
        self.bars = figure_widget(placeholder_figure("No prediction yet"), name="bars")
        self.shares_out, self.table1_out = (figure_widget(placeholder_figure(""), name=name)
                                            for name in ("shares", "table1"))
        with show_errors(self.messages):
            self._set_size_options()
            self._refresh()
        with show_errors(self.messages):
            table1 = table1_view()
            self.table1_html.value = table1.table
            self._show("table1", self.table1_out, table1.figure)

        for control in (self.threshold, self.tolerance, self.C, self.delta, self.k, self.confidence, self.target):
            control.observe(self._on_change, names="value")
        self.delta_auto.observe(self._on_delta_auto, names="value")
        self.data.on_change(self._on_data)
        super().__init__(self._layout())

    def _load_data(self, source: str, profile: pd.DataFrame | None) -> None:
        """Build the data source with ``source`` (or a given ``profile``) selected.

        The SYNTHETIC profile when the demo's cannot be read.
        """
        if profile is not None:
            profile = _checked_profile(profile)  # a bad profile of the caller's is an error, not a message
        self.data = DataSource([Dataset(key, label, load) for key, (label, load) in SOURCES.items()],
                               value=SYNTHETIC if profile is not None else source, upload=UPLOAD_FORMAT,
                               read_upload=self._read_upload, accept=".csv,.txt,.pprof,.out",
                               upload_label="Upload profile", validate=_checked_profile, messages=self.messages,
                               description="data")
        self.source, self.upload = self.data.menu, self.data.upload
        if profile is not None:
            self.data.add(UPLOAD, "uploaded profile", profile)
        elif self.data.frame is None:  # the demo profile is missing: the SYNTHETIC one instead
            self.data.select(SYNTHETIC)
            show_message(self.notice, "The measured demo profile (catalogue fractal-demo-local) is unavailable; "
                                      "showing the SYNTHETIC power-law profile instead.", kind="warning")

    def _build_controls(self, k: int, threshold: float, confidence: float) -> None:
        wide = {"description_width": "initial"}
        self.threshold = slider("threshold (major phases)", threshold, 0.3, 0.99, 0.01)
        self.tolerance = slider("tolerance of C (share)", 0.05, 0.005, 0.3, 0.005)
        self.C = widgets.Dropdown(description="convergence size C", style=wide, layout=widgets.Layout(width="300px"))
        self.delta_auto = widgets.Checkbox(value=True, description="auto δ", indent=False,
                                           layout=widgets.Layout(width="90px"))
        self.delta = slider("δ (size step)", 1.0, 0.5, 2.0, disabled=True)
        self.k = slider("k (fitted sizes)", k, 2, 10, integer=True, primary=True)
        self.confidence = slider("confidence of the band", confidence, 0.5, 0.995, 0.005)
        self.target = widgets.Dropdown(description="target size N_Lrg", style=wide,
                                       layout=widgets.Layout(width="300px"))

    def _layout(self) -> list[widgets.Widget]:
        h = widgets.HTML
        model = widgets.VBox([self.threshold, self.tolerance, self.C, self.target])
        design = widgets.VBox([self.k, widgets.HBox([self.delta, self.delta_auto]), self.confidence])
        return [
            widgets.VBox([self.data, self.notice, h(_UPLOAD_HELP)]), widgets.HBox([model, design]), self.messages,
            widgets.HBox([self.readout, self.table1_html], layout=widgets.Layout(grid_gap="24px")), self.notes,
            h("<h4>Log-log fits per phase (Fig. 1 of Escobar & Boppana): the line through the fitted sizes, "
              "extended to x = 0</h4>"), self.figure,
            h("<h4>Predicted vs measured at the large size (section 2.3)</h4>"), self.bars,
            h("<h4>Share of the runtime per phase vs size (section 2.1)</h4>"), self.shares_out,
            h("<h4>Table 1 of Escobar & Boppana: published predictions vs the bracket of the printed intercept</h4>"),
            self.table1_out,
        ]

    # ------------------------------------------------------------------ data
    @property
    def profile(self) -> pd.DataFrame:
        """The current profile frame."""
        return self.data.frame

    def _read_upload(self, files: list[tuple[str, bytes]]) -> pd.DataFrame:
        """:func:`~workbench.io.profiles.read_profile_files`, keeping its warnings for the notice panel."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", WorkbenchWarning)
            frame = read_profile_files(files)
        self._upload_warnings = [str(w.message) for w in caught]
        return frame

    def load_files(self, files: Iterable[tuple[str, bytes]]) -> bool:
        """Use uploaded (file name, content) pairs as the data (see :func:`~workbench.io.profiles.read_profile_files`).

        True when they were loaded, else the error is shown in :attr:`messages` and the
        previous data stay selected.

        Parameters
        ----------
        files : iterable of (str, bytes)
            ``(file name, content)`` pairs.
        """
        return self.data.load_files(files)

    def _set_size_options(self, keep_target: bool = False) -> None:
        """Target: measured sizes with >= 2 smaller ones (the largest selected unless ``keep_target``).

        C: auto or a possible convergence size below the target; the ranges of k and δ
        (:func:`~workbench.evaluation.fractal.design_choices`).
        """
        choices = design_choices(self.profile, self.target.value if keep_target else None)
        options = [(AUTO, AUTO)] + [(f"{s:g}", float(s)) for s in choices.convergence_sizes]
        with self._quietly():
            if not keep_target:
                self.target.options = [(f"{s:g}", float(s)) for s in choices.targets[::-1]]
                self.target.value = choices.target_size
            previous = self.C.value
            self.C.options = options
            self.C.value = previous if previous in [v for _, v in options] else AUTO
            self.k.max = choices.k_max
            self.delta.min, self.delta.max = 0.0, choices.delta_max  # min first: keep min <= max while changing
            self.delta.min, self.delta.step = choices.delta_min, choices.delta_min
            self.delta.value = min(max(self.delta.value, choices.delta_min), choices.delta_max)

    def _on_data(self, source: DataSource) -> None:
        """Refresh the size choices, then every panel, for new data (menu, upload)."""
        if source.key not in SOURCES:
            self._uploads += 1
        show_message(self.notice, "\n".join(self._upload_warnings) if source.key == UPLOAD else None,
                     kind="warning")
        self._upload_warnings = []
        with show_errors(self.messages):
            self._set_size_options()
            self._refresh_new_data()

    def _refresh_new_data(self) -> None:
        """Refresh after the data changed.

        If the method fails on them with the current controls, say that the data were
        loaded, and mark every panel out of date (they showed the previous data) with what
        to do.
        """
        try:
            self._refresh()
        except WorkbenchError as exc:
            sizes = ", ".join(f"{s:g}" for s in np.unique(self.profile["size"]))
            for panel in self.panels:
                mark_stale(panel, "the new profile was loaded, but the method fails on it with these settings: "
                                  "choose C, raise the tolerance or change the threshold")
            raise type(exc)(f"{exc}\nThe profile was loaded (sizes {sizes}), but the method fails on it with "
                            "the current controls: choose C, raise the tolerance or change the threshold.") from None

    # ------------------------------------------------------------------ model
    def state(self) -> FractalState:
        """Return the current profile and controls (slider values rounded)."""
        key = self.data.key if self.data.key in SOURCES else f"{self.data.key}#{self._uploads}"
        label = self.data.label
        if self.data.key == UPLOAD:
            label = label.replace("uploaded:", "uploaded profile:", 1)
        return FractalState(
            profile=self.profile, data_key=key, data_label=label, target_size=float(self.target.value),
            threshold=rounded(self.threshold.value, 3), tolerance=rounded(self.tolerance.value, 3),
            C=None if self.C.value == AUTO else float(self.C.value),
            delta=None if self.delta_auto.value else rounded(self.delta.value, 6), k=int(self.k.value),
            confidence=rounded(self.confidence.value, 4))

    def parameters(self) -> dict:
        """Keyword arguments of :func:`~workbench.evaluation.fractal.demo_experiment` from the controls."""
        return self.state().parameters()

    # ------------------------------------------------------------------ refresh
    def _refresh(self) -> None:
        # the main figure goes out first: the browser draws messages in order, and the
        # static shares panel is a whole new plotly figure to draw
        start = time.perf_counter()
        panels = fractal_view(self.state(), self._cache)
        e = self.experiment = panels.experiment
        if self.delta_auto.value:
            with self._quietly():
                self.delta.value = min(max(e.delta, self.delta.min), self.delta.max)
        self.figure.update(panels.main)
        self.last_main_s = time.perf_counter() - start
        self.bars.update(panels.bars)
        self._show("shares", self.shares_out, panels.shares)
        self.notes.value = panels.notes
        self.last_update_s = time.perf_counter() - start
        self.readout.value = readout_html({**panels.readout, "redraw": (
            f"main figure {self.last_main_s * 1000:.0f} ms, all panels {self.last_update_s * 1000:.0f} ms")})

    @property
    def panels(self) -> tuple:
        """The panels that show the experiment of the current data and controls (Table 1 is static)."""
        return (self.figure, self.bars, self.shares_out, self.readout, self.notes)

    def _on_change(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.messages, stale=self.panels):
            if change["owner"] is self.target:
                self._set_size_options(keep_target=True)
            self._refresh()

    def _on_delta_auto(self, change) -> None:
        self.delta.disabled = bool(change["new"])
        self._on_change(change)


def fractal_dashboard(**kwargs) -> FractalDashboard:
    """Build the fractal extrapolation dashboard; display it as a cell's last expression.

    Keyword arguments: ``source`` (``"demo"`` or ``"synthetic"``), ``profile`` (a profile
    frame of your own), ``k``, ``threshold``, ``confidence``.

    Parameters
    ----------
    **kwargs
        Settings of :class:`FractalDashboard`.
    """
    return FractalDashboard(**kwargs)
