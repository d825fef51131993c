"""Communication-regression dashboard (Papadopoulou, Goumas & Koziris, [Papadopoulou2015]).

Descriptive metrics, their correlations with communication time, the area split and the
robust per-area regression, judged on predicted vs observed with the +-30 % band.

Wiring only: descriptors, correlations and the regression are :mod:`workbench.models.comm`,
the datasets, splits and the upload reader :mod:`workbench.evaluation.comm_regression`,
the figures :mod:`workbench.plots.comm_regression`, the panels of a state
:mod:`workbench.views.comm_regression`, the data menu and upload
:class:`~workbench.ui.data_source.DataSource`.  Times in µs.

* **Data**: OSU broadcasts on ORFEO by placement and algorithm (needs the data mirror; the
  default when it is there: ``--map-by core``, algorithm 5, binary tree, see below), our
  ping-pong sweep measured on this machine (``comm-pingpong-local``; without it a clearly
  labelled synthetic sweep; the default without the mirror), or an uploaded CSV with
  ``S, M, PPN, N, I, SW, R`` and ``comm_time_us`` (a bad file gives a red message and keeps
  the current data).
* **Area split**: NT threshold (**the primary slider**) and S threshold (log sliders,
  bytes); the main figure's left panel shows time against NT with the threshold line,
  so moving it always moves the line, and on data with inter-node traffic it also moves
  points between areas and refits.  The default OSU set (1344 points, half of them
  inter-node, 673 distinct NT values) is chosen for that: every quarter-octave step of the
  NT slider around the paper's 128 KiB moves 5-12 points between Area I and II and changes
  the fit (in-sample MAPE 27.7 %, 81 % within +-30 % at 128 KiB, beside the paper's 29 % and
  60 %).  The linear broadcast (algorithm 1) has 5355 points, too many to redraw within a
  second in a browser.  On our single-machine ping-pong sweep every message is intra-node
  (``NT = 0``): only the S threshold changes the fit there, and the readout says so.
* **Fit**: robust loss (bisquare = the paper's Matlab default, Huber, least squares) and
  the evaluation (in-sample, train-small / test-big by processes, random 60/40).
* **Readout**: metrics per area and overall beside the paper's 29 % / 60 %, the
  coefficients, the model's warnings.
* Static panels: Pearson's r with time (linear and log), metric x metric, one metric's
  scatter (log axes optional), relative error by area.  Sent once the browser has drawn
  the live figure (see :class:`~workbench.ui.fim_dashboard.FiMDashboard` for why).

Speed (this 2-core machine): slider change -> main figure sent ~80-110 ms in the kernel
(fit ~50 ms, figure ~40 ms; ``last_update_s``), whole callback with the static panels
~0.25-0.3 s, on both the ping-pong sweep (162 points) and the OSU linear broadcast with
``--map-by core`` (5355 points).  In headless chromium, key press -> redrawn main figure:
0.25-0.45 s on the ping-pong sweep, 1.1-1.6 s on the 5355-point OSU set (drawing 2 x 5355
SVG markers dominates).
"""

from __future__ import annotations

import time

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.evaluation.comm_regression import (
    BCAST_PATTERNS,
    COMM_TIMES_COLUMNS,
    COMM_TIMES_EXAMPLE,
    OSU_MAPPINGS,
    default_sweep,
    osu_broadcast_frame,
    osu_broadcast_label,
    read_comm_times_csv,
)
from workbench.evaluation.comm_regression import (
    EVALUATIONS as _EVALUATION_LABELS,
)
from workbench.io import fetch_dataset
from workbench.models.comm.descriptors import METRIC_COLUMNS
from workbench.models.comm.regression import ROBUST_LOSSES, AreaSplit, CommRegressionResult
from workbench.ui.common import (
    FitCache,
    NamedFigures,
    QuietChanges,
    figure_widget,
    message_panel,
    placeholder_figure,
    readout_html,
    show_errors,
    show_message,
    slider,
    update_figure_widget,
)
from workbench.ui.data_source import UPLOAD, Dataset, DataSource
from workbench.ui.uploads import UploadFormat
from workbench.views import comm_regression as views

__all__ = ["DATASETS", "EVALUATIONS", "DEFAULT_OSU", "UPLOAD_FORMAT", "CommRegressionDashboard",
           "comm_regression_dashboard", "read_upload"]

#: Dataset choices of the picker, in menu order (the first available is the default; an
#: uploaded CSV becomes an entry of its own).
DATASETS = {"osu": "OSU broadcast (ORFEO)", "pingpong": "ping-pong sweep (this machine)", UPLOAD: "uploaded CSV"}
#: Evaluation choices: label -> key (:data:`workbench.evaluation.comm_regression.EVALUATIONS`).
EVALUATIONS = {label: key for key, label in _EVALUATION_LABELS.items()}
#: The OSU set shown first when the data mirror is there: (--map-by, algorithm); see the
#: module docstring.
DEFAULT_OSU = ("core", 5)
#: What the upload button reads (said after every upload error).
UPLOAD_FORMAT = UploadFormat(
    "The dashboard reads a UTF-8 CSV table with one row per measured communication phase: the metrics S "
    "(message size, bytes), M (messages per process), PPN (processes per node), N (nodes), I (share of "
    "inter-node messages, 0 to 1), SW (switches) and R (racks, > 0), and the time comm_time_us (microseconds, "
    "> 0); column names are case-sensitive, other columns (e.g. processes, for 'train small / test big') are "
    "kept.",
    COMM_TIMES_EXAMPLE)
#: Kept importable from here: the reader of the upload button.
read_upload = read_comm_times_csv
_UPLOAD_NEEDS = list(COMM_TIMES_COLUMNS)


def _snap(value: float) -> float:
    """Return ``value`` on the thresholds' grid: ``2^(k/4)`` rounded to whole bytes."""
    return float(round(2.0 ** (round(4 * np.log2(value)) / 4)))


def _threshold_slider(description: str, value: float, lo: int, hi: int, primary: bool = False):
    """Build a log slider in bytes over ``2^lo .. 2^hi`` with quarter-power-of-two steps.

    So that the paper's 4 KiB and 128 KiB are slider positions.
    """
    return slider(description, _snap(value), 2.0**lo, 2.0**hi, np.log10(2) / 4, log=True, primary=primary,
                  readout_format=".4s")


def _check_arguments(dataset: str, osu: pd.DataFrame | None, robust: str, evaluation: str) -> None:
    """Refuse initial control values the dashboard cannot show, in the dashboard's words."""
    if dataset not in DATASETS or dataset == UPLOAD:
        raise ValidationError(f"dataset must be 'pingpong' or 'osu' (upload a file in the dashboard), got "
                              f"{dataset!r}")
    if dataset == "osu" and osu is None:
        raise ValidationError("dataset 'osu' needs the OSU data (catalogue osu-orfeo, set WORKBENCH_DATA_MIRROR)")
    if robust not in ROBUST_LOSSES:
        raise ValidationError(f"robust must be one of {list(ROBUST_LOSSES)}, got {robust!r}")
    if evaluation not in EVALUATIONS.values():
        raise ValidationError(f"evaluation must be one of {list(EVALUATIONS.values())}, got {evaluation!r}")


def _load_osu(notice: widgets.HTML) -> pd.DataFrame | None:
    """Return the OSU broadcast latencies of the catalogue, or None (said in ``notice``)."""
    try:
        return fetch_dataset("osu-orfeo").frame
    except DatasetNotFoundError as exc:
        show_message(notice, f"The OSU broadcast data (catalogue osu-orfeo) are unavailable, so that "
                             f"choice is hidden: {str(exc).split(';')[0]}.", kind="info")
        return None


def _load_pingpong(notice: widgets.HTML) -> tuple[pd.DataFrame, str, dict]:
    """Return our ping-pong sweep (or the SYNTHETIC one, said in ``notice``), its label and run facts."""
    sweep, label = default_sweep()
    # the run facts (machine, date, MPI version) are kept apart because pandas deep-copies
    # ``attrs`` on every column access
    facts = dict(sweep.attrs)
    sweep.attrs = {}
    if facts.get("synthetic"):
        show_message(notice, "The measured ping-pong sweep (catalogue comm-pingpong-local) is not "
                             "available: the ping-pong choice shows a SYNTHETIC sweep.", kind="warning")
    return sweep, label, facts


class CommRegressionDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Build the communication regression dashboard's widgets.

    Controls, the main live figure (area split + predicted vs observed), readouts and
    static correlation / scatter / residual panels; the panels come from
    :mod:`workbench.views.comm_regression`.

    Attributes: ``source`` (the :class:`~workbench.ui.data_source.DataSource`), ``dataset``
    (its menu), ``upload`` (its upload button), ``osu_mapping``, ``osu_algorithm``,
    ``nt_threshold`` (primary slider, bytes), ``s_threshold`` (bytes), ``log_scale``,
    ``robust``, ``evaluation``, ``metric`` (controls); ``figure`` (main LiveFigure);
    ``heatmap_out``, ``matrix_out``, ``scatter_out``, ``residuals_out`` (LiveFigures) and the
    figures they show in ``figures``; ``readout``, ``scores``, ``coefficients`` (HTML);
    ``messages`` (errors), ``notes`` (the model's warnings), ``notice`` (about the data);
    ``data`` (the current descriptor frame), ``data_label``, ``result``
    (:class:`~workbench.models.comm.CommRegressionResult`), ``last_update_s``.

    Parameters
    ----------
    dataset : str, optional
        ``"pingpong"`` or ``"osu"``; default: the first entry of the menu.
    nt_threshold_bytes : float, default 131072
        Initial NT threshold between areas I and II, bytes.
    s_threshold_bytes : float, default 4096
        Initial message-size threshold between areas Ia and Ib, bytes.
    robust : {"bisquare", "huber", "ols"}, default "bisquare"
        The regression's loss.
    evaluation : {"all", "scale", "random"}, default "all"
        How the model is scored.
    osu : pandas.DataFrame, optional
        OSU latencies of your own; default: the catalogue's.
    """

    def __init__(self, dataset: str | None = None, nt_threshold_bytes: float = 128 * 1024,
                 s_threshold_bytes: float = 4 * 1024, robust: str = "bisquare", evaluation: str = "all",
                 osu: pd.DataFrame | None = None):
        self.messages, self.notes, self.notice = message_panel(), message_panel(), message_panel()
        self._fits = FitCache(64)
        self._frames: dict[tuple, pd.DataFrame] = {}
        self._uploads: list[str] = []  # names of the uploaded files, in order (the fit cache's key)
        self.figures: dict[str, go.Figure] = {}
        self.result: CommRegressionResult | None = None
        self.data: pd.DataFrame | None = None
        self.data_label, self._key, self._refreshed = "", None, False
        self.last_update_s = float("nan")
        self.osu = osu if osu is not None else _load_osu(self.notice)
        self.pingpong, self.pingpong_label, self.pingpong_facts = _load_pingpong(self.notice)
        dataset = dataset or ("osu" if self.osu is not None else "pingpong")  # data that show the split working
        _check_arguments(dataset, self.osu, robust, evaluation)
        self._build_controls(dataset, nt_threshold_bytes, s_threshold_bytes, robust, evaluation)

        main = None
        with show_errors(self.messages):
            self._load_data()
            start = time.perf_counter()
            main = self._main_figure()
            self.last_update_s = time.perf_counter() - start
            self._refresh_panels()
            self._refresh_exploration()
        self.figure = figure_widget(main if main is not None else placeholder_figure("No fit yet"), primary=True)
        self._sync_visibility()
        self._observe()
        self._layout()

    # ------------------------------------------------------------------ widgets
    def _build_controls(self, dataset: str, nt_threshold_bytes: float, s_threshold_bytes: float, robust: str,
                        evaluation: str) -> None:
        wide = {"description_width": "initial"}
        entries = [Dataset("osu", DATASETS["osu"], lambda: self.osu)] if self.osu is not None else []
        entries.append(Dataset("pingpong", DATASETS["pingpong"], lambda: self.pingpong))
        self.source = DataSource(entries, value=dataset, upload=UPLOAD_FORMAT, read_upload=self._read_files,
                                 multiple=False, upload_label="upload CSV", messages=self.messages,
                                 description="data")
        self.dataset, self.upload = self.source.menu, self.source.upload
        self.osu_mapping = widgets.ToggleButtons(options=list(OSU_MAPPINGS), value=DEFAULT_OSU[0],
                                                 description="--map-by", style={**wide, "button_width": "70px"})
        self.osu_algorithm = widgets.Dropdown(options=[(f"{k}: {v}", k) for k, v in BCAST_PATTERNS.items()],
                                              value=DEFAULT_OSU[1], description="algorithm", style=wide,
                                              layout=widgets.Layout(width="260px"))
        self._osu_controls = widgets.HBox([self.osu_mapping, self.osu_algorithm])
        self.nt_threshold = _threshold_slider("NT threshold [B] (Area I ≤ · < Area II)", nt_threshold_bytes, 6, 34,
                                              primary=True)
        self.s_threshold = _threshold_slider("S threshold [B] (Ia ≤ · < Ib)", s_threshold_bytes, 0, 24)
        self.log_scale = widgets.Checkbox(value=True, description="log scale (scatter, metric matrix)", indent=False)
        self.robust = widgets.ToggleButtons(options=list(ROBUST_LOSSES), value=robust, description="robust loss",
                                            style={**wide, "button_width": "80px"},
                                            tooltips=["Tukey bisquare, Matlab's robust default (the paper)",
                                                      "Huber", "ordinary least squares"])
        self.evaluation = widgets.Dropdown(options=list(EVALUATIONS.items()), value=evaluation,
                                           description="evaluation", style=wide, layout=widgets.Layout(width="400px"))
        self.metric = widgets.Dropdown(options=list(METRIC_COLUMNS), value="PT", description="scatter metric",
                                       style=wide, layout=widgets.Layout(width="220px"))
        self.readout, self.scores, self.coefficients = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.heatmap_out, self.matrix_out, self.scatter_out, self.residuals_out = (
            figure_widget(placeholder_figure(""), name=name, width="50%")
            for name in ("heatmap", "matrix", "scatter", "residuals"))

    def _observe(self) -> None:
        self.source.on_change(self._on_source)
        self.osu_mapping.observe(self._on_osu, names="value")
        self.osu_algorithm.observe(self._on_osu, names="value")
        for control in (self.nt_threshold, self.s_threshold, self.robust, self.evaluation):
            control.observe(self._on_fit_change, names="value")
        self.log_scale.observe(self._on_view_change, names="value")
        self.metric.observe(self._on_view_change, names="value")

    def _layout(self) -> None:
        h = widgets.HTML
        super().__init__([
            self.notice, self.source, self._osu_controls,
            widgets.HBox([widgets.VBox([self.nt_threshold, self.s_threshold, self.log_scale]),
                          widgets.VBox([self.robust, self.evaluation])]),
            self.messages, self.readout,
            h("<h4>Area split and robust per-area regression (paper Figs. 1-2)</h4>"), self.figure,
            widgets.HBox([self.scores, self.coefficients]), self.notes,
            h("<h4>Which metrics go with communication time (Pearson's r, section III.C)</h4>"),
            widgets.HBox([self.heatmap_out, self.matrix_out]),
            h("<h4>One metric against time, and the errors by area</h4>"), self.metric,
            widgets.HBox([self.scatter_out, self.residuals_out]),
        ])

    # ------------------------------------------------------------------ data
    def _read_files(self, files: list[tuple[str, bytes]]) -> pd.DataFrame:
        """Read the upload button's file (:func:`read_upload`) and remember its name."""
        name, content = files[0]
        data = read_upload(name, content)
        self._uploads.append(name)
        return data

    def _load_data(self) -> None:
        """Set ``data``, ``data_label`` and the fit-cache key from the data source and the OSU controls."""
        kind = self.source.key
        if self.source.frame is None:
            raise ValidationError("no data: choose a dataset or upload a CSV (columns "
                                  f"{', '.join(_UPLOAD_NEEDS)})")
        if kind == "osu":
            key = ("osu", self.osu_mapping.value, int(self.osu_algorithm.value))
            if key not in self._frames:
                self._frames[key] = osu_broadcast_frame(self.source.frame, key[1], key[2])
            data, label = self._frames[key], osu_broadcast_label(key[1], key[2])
        elif kind == UPLOAD:
            key = (UPLOAD, len(self._uploads))
            data, label = self.source.frame, f"uploaded {self._uploads[-1]}"
        else:
            key, data, label = ("pingpong",), self.source.frame, self.pingpong_label
        self.data, self.data_label, self._key = data, label, key

    def _sync_visibility(self) -> None:
        self._osu_controls.layout.display = "" if self.source.key == "osu" else "none"

    # ------------------------------------------------------------------ refresh
    def split(self) -> AreaSplit:
        """Return the area split of the sliders, snapped to their grid in whole bytes.

        Their grid is quarter powers of two (the log sliders' floating-point values are
        131072.00000001 and such).
        """
        return AreaSplit(nt_threshold_bytes=_snap(self.nt_threshold.value),
                         s_threshold_bytes=_snap(self.s_threshold.value))

    def state(self) -> views.CommRegressionState:
        """Return the current data and control values (the state of :mod:`workbench.views.comm_regression`)."""
        split = self.split()
        return views.CommRegressionState(
            data=self.data, data_label=self.data_label, data_key=self._key,
            nt_threshold_bytes=split.nt_threshold_bytes, s_threshold_bytes=split.s_threshold_bytes,
            robust=self.robust.value, evaluation=self.evaluation.value, metric=self.metric.value,
            log_scale=self.log_scale.value)

    def _main_figure(self) -> go.Figure:
        """Fit (or reuse the fit: sets ``result``, ``model``, ``evaluation_text``) and draw the main figure."""
        state = self.state()
        self._fit = views.fit_comm_regression(state, self._fits)
        self.result, self.evaluation_text, self.model = self._fit.result, self._fit.evaluation_text, self._fit.model
        return views.main_figure(state, self._fit)

    def _refresh_panels(self) -> None:
        """Readouts and the static panels that depend on the fit or the split."""
        state = self.state()
        panels = views.fit_panels(state, self._fit)
        rows = {**panels.readout_rows, "redraw": f"{self.last_update_s * 1000:.0f} ms (last change -> main figure)"}
        self.readout.value = readout_html(rows)
        self.scores.value, self.coefficients.value = panels.scores, panels.coefficients
        show_message(self.notes, panels.notes, kind="warning")
        self._show("residuals", self.residuals_out, panels.residuals)
        self._show("scatter", self.scatter_out, views.scatter_figure(state))

    def _refresh_exploration(self) -> None:
        heatmap, matrix = views.exploration_panels(self.state())
        self._show("heatmap", self.heatmap_out, heatmap)
        self._show("matrix", self.matrix_out, matrix)

    def refresh(self, exploration: bool = False) -> None:
        """Refit and redraw everything that depends on the controls.

        Parameters
        ----------
        exploration : bool, default False
            Redraw the correlation and scatter panels too.
        """
        start = time.perf_counter()
        update_figure_widget(self.figure, self._main_figure())
        self.last_update_s = time.perf_counter() - start
        self._refresh_panels()
        if exploration:
            self._refresh_exploration()

    # ------------------------------------------------------------------ callbacks
    @property
    def panels(self) -> tuple:
        """The panels that show the fit of the current data and controls."""
        return (self.figure, self.readout, self.scores, self.coefficients, self.notes, self.residuals_out,
                self.scatter_out)

    def _on_fit_change(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.messages, stale=self.panels):
            self.refresh()

    def _on_view_change(self, change) -> None:
        if self._quiet:
            return
        log = change["owner"] is self.log_scale
        with show_errors(self.messages, stale=(self.scatter_out, self.matrix_out) if log else (self.scatter_out,)):
            self._show("scatter", self.scatter_out, views.scatter_figure(self.state()))
            if log:
                self._refresh_exploration()

    def _switch_data(self) -> bool:
        """Use the data the source and the OSU controls name and redraw everything.

        True on success; False when they could not be used or fitted (then every panel is
        marked out of date and the message says why).
        """
        self._sync_visibility()
        self._refreshed = False
        with show_errors(self.messages, stale=(*self.panels, self.heatmap_out, self.matrix_out)):
            self._load_data()
            self.refresh(exploration=True)
            self._refreshed = True
        return self._refreshed

    def _on_source(self, source: DataSource) -> None:
        self._switch_data()

    def _on_osu(self, change) -> None:
        if not self._quiet and self.source.key == "osu":
            self._switch_data()

    def load_csv(self, name: str, content: bytes) -> bool:
        """Use an uploaded CSV (see :func:`read_upload`).

        True on success, else a red message (what is wrong, what the dashboard expects, an
        example header) and the current data stay; False too when the file was read but
        could not be fitted (then the panels are marked out of date).

        Parameters
        ----------
        name : str
            The uploaded file's name.
        content : bytes
            Its content.
        """
        self._refreshed = False
        return self.source.load_files([(name, content)]) and self._refreshed


def comm_regression_dashboard(**kwargs) -> CommRegressionDashboard:
    """Build the communication-regression dashboard; display it as a cell's last expression.

    Keyword arguments set the initial controls (``dataset`` ``"pingpong"``/``"osu"``,
    ``nt_threshold_bytes``, ``s_threshold_bytes``, ``robust``, ``evaluation``
    ``"all"``/``"scale"``/``"random"``) or pass an OSU frame (``osu=``).

    Parameters
    ----------
    **kwargs
        Settings of :class:`CommRegressionDashboard`.
    """
    return CommRegressionDashboard(**kwargs)
