"""Communication-regression dashboard (Papadopoulou, Goumas & Koziris, seed 002): descriptive
metrics, their correlations with communication time, the area split and the robust
per-area regression, judged on predicted vs observed with the +-30 % band.

Wiring only: descriptors, correlations and the regression are :mod:`workbench.models.comm`,
the datasets and splits :mod:`workbench.evaluation.comm_regression`, the figures
:mod:`workbench.plots.comm_regression`.  Times in µs.

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

import html
import re
import time
import warnings

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.evaluation.comm_regression import (
    BCAST_PATTERNS,
    OSU_MAPPINGS,
    default_sweep,
    osu_broadcast_frame,
    published_comparison,
    random_split,
    train_test_split_by,
)
from workbench.io import fetch_dataset
from workbench.io._text import csv_frame, decode
from workbench.models.comm.correlation import TARGET, correlation_matrix, pearson_table
from workbench.models.comm.descriptors import DESCRIPTOR_COLUMNS, METRIC_COLUMNS, descriptors
from workbench.models.comm.regression import (
    PUBLISHED,
    ROBUST_LOSSES,
    AreaSplit,
    CommRegression,
    CommRegressionResult,
    evaluate,
)
from workbench.plots.comm_regression import (
    correlation_heatmap,
    metric_scatter,
    residuals_by_area,
    split_and_fit_figure,
    target_heatmap,
)
from workbench.ui.common import (
    FitCache,
    QuietChanges,
    NamedFigures,
    figure_widget,
    frame_html,
    message_panel,
    placeholder_figure,
    readout_html,
    show_errors,
    show_message,
    slider,
    update_figure_widget,
)
from workbench.ui.uploads import UploadFormat

__all__ = ["DATASETS", "EVALUATIONS", "DEFAULT_OSU", "UPLOAD_FORMAT", "CommRegressionDashboard",
           "comm_regression_dashboard", "read_upload"]

#: Dataset choices of the picker, in menu order (the first available is the default).
DATASETS = {"osu": "OSU broadcast (ORFEO)", "pingpong": "ping-pong sweep (this machine)", "upload": "uploaded CSV"}
#: Evaluation choices: label -> key.
EVALUATIONS = {
    "in-sample (fit and score all points)": "all",
    "train small / test big (processes)": "scale",
    "random 60 / 40 split (seed 0)": "random",
}
_UPLOAD_NEEDS = [*DESCRIPTOR_COLUMNS, TARGET]
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
    ",".join(_UPLOAD_NEEDS))


def _snap(value: float) -> float:
    """``value`` on the thresholds' grid: ``2^(k/4)`` rounded to whole bytes."""
    return float(round(2.0 ** (round(4 * np.log2(value)) / 4)))


def _threshold_slider(description: str, value: float, lo: int, hi: int, primary: bool = False):
    """Log slider in bytes over ``2^lo .. 2^hi`` with quarter-power-of-two steps, so the
    paper's 4 KiB and 128 KiB are slider positions."""
    return slider(description, _snap(value), 2.0**lo, 2.0**hi, np.log10(2) / 4, log=True, primary=primary,
                  readout_format=".4s")


def _in_file_words(message: str, lines: pd.Index) -> str:
    """A model's message about an uploaded table in the file's terms: without the Python
    name it starts with (``descriptors:``, ``CommRegression.fit:``) and with the file's line
    instead of the row position."""
    message = re.sub(r"^(?:[A-Za-z_][\w.]*: )+", "", message)
    return re.sub(r"\bin row (\d+)", lambda m: f"on line {lines[int(m[1])]}" if int(m[1]) < len(lines)
                  else m[0], message)


def read_upload(name: str, content: bytes) -> pd.DataFrame:
    """An uploaded CSV as a descriptor frame: needs ``S, M, PPN, N, I, SW, R`` and
    ``comm_time_us`` (> 0); errors name the file, the line and the problem (see
    :data:`UPLOAD_FORMAT` for what is expected)."""
    table = csv_frame(decode(bytes(content), name, what="a CSV table of communication times"), name,
                      example=UPLOAD_FORMAT.example, lower=False)
    missing = [c for c in _UPLOAD_NEEDS if c not in table.columns]
    if missing:
        found = ", ".join(map(str, table.columns[:12])) + (" ..." if len(table.columns) > 12 else "")
        lower = {str(c).lower() for c in table.columns}
        case = ("; column names are case-sensitive" if any(c.lower() in lower for c in missing) else "")
        raise ValidationError(f"{name}: missing the column(s) {', '.join(missing)} (the file has {found}{case})")
    try:
        data = descriptors(table)
        CommRegression._target(data, TARGET)
    except ValidationError as exc:
        raise ValidationError(f"{name}: {_in_file_words(str(exc), table.index)}") from None
    for column in data.columns:  # cells were read as text: numbers become numbers
        numbers = pd.to_numeric(data[column], errors="coerce")
        if numbers.notna().sum() == data[column].notna().sum():
            data[column] = numbers
    return data.reset_index(drop=True)


class CommRegressionDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Controls, the main live figure (area split + predicted vs observed), readouts and
    static correlation / scatter / residual panels.

    Attributes: ``dataset``, ``osu_mapping``, ``osu_algorithm``, ``upload``,
    ``nt_threshold`` (primary slider, bytes), ``s_threshold`` (bytes), ``log_scale``,
    ``robust``, ``evaluation``, ``metric`` (controls); ``figure`` (main LiveFigure);
    ``heatmap_out``, ``matrix_out``, ``scatter_out``, ``residuals_out`` (LiveFigures) and the
    figures they show in ``figures``; ``readout``, ``scores``, ``coefficients`` (HTML);
    ``messages`` (errors), ``notes`` (the model's warnings), ``notice`` (about the data);
    ``data`` (the current descriptor frame), ``data_label``, ``result``
    (:class:`~workbench.models.comm.CommRegressionResult`), ``last_update_s``.
    """

    def __init__(self, dataset: str | None = None, nt_threshold_bytes: float = 128 * 1024,
                 s_threshold_bytes: float = 4 * 1024, robust: str = "bisquare", evaluation: str = "all",
                 osu: pd.DataFrame | None = None):
        self.messages = message_panel()
        self.notes = message_panel()
        self.notice = message_panel()
        self._fits = FitCache(64)
        self._frames: dict[tuple, pd.DataFrame] = {}
        self._upload: tuple[str, pd.DataFrame] | None = None
        self.figures: dict[str, go.Figure] = {}
        self.result: CommRegressionResult | None = None
        self.last_update_s = float("nan")
        self.osu = osu if osu is not None else self._load_osu()
        self.pingpong, self.pingpong_label = default_sweep()
        #: run facts of the sweep (machine, date, MPI version); kept apart because pandas
        #: deep-copies ``attrs`` on every column access
        self.pingpong_facts = dict(self.pingpong.attrs)
        self.pingpong.attrs = {}
        if self.pingpong_facts.get("synthetic"):
            show_message(self.notice, "The measured ping-pong sweep (catalogue comm-pingpong-local) is not "
                                      "available: the ping-pong choice shows a SYNTHETIC sweep.", kind="warning")
        if dataset is None:  # data that show the split working, when the mirror has them
            dataset = "osu" if self.osu is not None else "pingpong"
        if dataset not in DATASETS or dataset == "upload":
            raise ValidationError(f"dataset must be 'pingpong' or 'osu' (upload a file in the dashboard), got "
                                  f"{dataset!r}")
        if dataset == "osu" and self.osu is None:
            raise ValidationError("dataset 'osu' needs the OSU data (catalogue osu-orfeo, set WORKBENCH_DATA_MIRROR)")
        if robust not in ROBUST_LOSSES:
            raise ValidationError(f"robust must be one of {list(ROBUST_LOSSES)}, got {robust!r}")
        if evaluation not in EVALUATIONS.values():
            raise ValidationError(f"evaluation must be one of {list(EVALUATIONS.values())}, got {evaluation!r}")

        wide = {"description_width": "initial"}
        self.dataset = widgets.Dropdown(options=[(v, k) for k, v in DATASETS.items()], value=dataset,
                                        description="data", style=wide, layout=widgets.Layout(width="330px"))
        self.osu_mapping = widgets.ToggleButtons(options=list(OSU_MAPPINGS), value=DEFAULT_OSU[0],
                                                 description="--map-by",
                                                 style={**wide, "button_width": "70px"})
        self.osu_algorithm = widgets.Dropdown(options=[(f"{k}: {v}", k) for k, v in BCAST_PATTERNS.items()],
                                              value=DEFAULT_OSU[1], description="algorithm", style=wide,
                                              layout=widgets.Layout(width="260px"))
        self.upload = widgets.FileUpload(accept=".csv", multiple=False, description="upload CSV")
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
        self.readout = widgets.HTML()
        self.scores = widgets.HTML()
        self.coefficients = widgets.HTML()
        self.heatmap_out, self.matrix_out, self.scatter_out, self.residuals_out = (
            figure_widget(placeholder_figure(""), name=name, width="50%")
            for name in ("heatmap", "matrix", "scatter", "residuals"))
        self._osu_controls = widgets.HBox([self.osu_mapping, self.osu_algorithm])
        self.dataset.options = [(v, k) for k, v in DATASETS.items() if k != "osu" or self.osu is not None]

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

        self.dataset.observe(self._on_data, names="value")
        self.osu_mapping.observe(self._on_data, names="value")
        self.osu_algorithm.observe(self._on_data, names="value")
        self.upload.observe(self._on_upload, names="value")
        for control in (self.nt_threshold, self.s_threshold, self.robust, self.evaluation):
            control.observe(self._on_fit_change, names="value")
        self.log_scale.observe(self._on_view_change, names="value")
        self.metric.observe(self._on_view_change, names="value")

        h = widgets.HTML
        super().__init__([
            self.notice,
            widgets.HBox([self.dataset, self.upload]), self._osu_controls,
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
    def _load_osu(self) -> pd.DataFrame | None:
        try:
            return fetch_dataset("osu-orfeo").frame
        except DatasetNotFoundError as exc:
            show_message(self.notice, f"The OSU broadcast data (catalogue osu-orfeo) are unavailable, so that "
                                      f"choice is hidden: {str(exc).split(';')[0]}.", kind="info")
            return None

    def _data_key(self) -> tuple:
        kind = self.dataset.value
        if kind == "osu":
            return ("osu", self.osu_mapping.value, int(self.osu_algorithm.value))
        if kind == "upload":
            return ("upload", self._upload[0] if self._upload else None)
        return ("pingpong",)

    def _load_data(self) -> None:
        key = self._data_key()
        kind = key[0]
        if kind == "pingpong":
            data, label = self.pingpong, self.pingpong_label
        elif kind == "osu":
            if key not in self._frames:
                self._frames[key] = osu_broadcast_frame(self.osu, key[1], key[2])
            data = self._frames[key]
            label = (f"OSU broadcast on ORFEO, --map-by {key[1]}, algorithm {key[2]} ({BCAST_PATTERNS[key[2]]}), "
                     "latency averaged over ranks")
        else:
            if self._upload is None:
                raise ValidationError("no CSV uploaded yet: use the upload button (columns "
                                      f"{', '.join(_UPLOAD_NEEDS)})")
            label, data = f"uploaded {self._upload[0]}", self._upload[1]
        self.data, self.data_label, self._key = data, label, key

    def _sync_visibility(self) -> None:
        self._osu_controls.layout.display = "" if self.dataset.value == "osu" else "none"

    # ------------------------------------------------------------------ model
    def split(self) -> AreaSplit:
        """The area split of the sliders, snapped to their grid of quarter powers of two in
        whole bytes (the log sliders' floating-point values are 131072.00000001 and such)."""
        return AreaSplit(nt_threshold_bytes=_snap(self.nt_threshold.value),
                         s_threshold_bytes=_snap(self.s_threshold.value))

    def _train_test(self) -> tuple[pd.DataFrame, pd.DataFrame, str]:
        data, how = self.data, self.evaluation.value
        if how == "all":
            return data, data, f"in-sample: fitted and scored on all {len(data)} points"
        if how == "random":
            train, test = random_split(data, 0.6, seed=0)
            return train, test, f"random split: trained on {len(train)}, scored on {len(test)} other points"
        if "processes" not in data.columns:
            raise ValidationError("train small / test big needs a 'processes' column in the data")
        counts = np.unique(data["processes"])
        if counts.size < 2:
            raise ValidationError(f"train small / test big needs several process counts, the data have {counts}")
        # the scenario (OSU: train <= 64, test 128..256) where the data reach that far;
        # otherwise train below the largest process count and test at it
        osu_like = (counts <= 64).any() and (counts >= 128).any()
        train_max, test_min = (64, 128) if osu_like else (counts[-2], counts[-1])
        train, test = train_test_split_by(data, "processes", train_max, test_min)
        return train, test, (f"trained on {len(train)} points with <= {train_max:g} processes, scored on "
                             f"{len(test)} with >= {test_min:g}")

    def _fit(self) -> None:
        """Fit (or reuse the cached fit of) the current data and controls: sets ``result``,
        ``model`` and ``evaluation_text``."""
        split, loss, how = self.split(), self.robust.value, self.evaluation.value

        def run():
            train, test, text = self._train_test()
            model = CommRegression(split=split, robust=loss)
            with warnings.catch_warnings():  # shown in the notes panel instead
                warnings.simplefilter("ignore")
                model.fit(train)
            return evaluate(model, test), text, model

        self.result, self.evaluation_text, self.model = self._fits.get((self._key, split, loss, how), run)

    # ------------------------------------------------------------------ refresh
    def _main_figure(self) -> go.Figure:
        """Fit (or reuse the fit) and draw the main figure."""
        self._fit()
        title = (f"{html.escape(self.data_label)}<br><sup>{html.escape(self.evaluation_text)}; "
                 f"robust loss {self.robust.value}</sup>")
        return split_and_fit_figure(self.data, self.result.predictions, self.split(), title=title)

    def _refresh_panels(self) -> None:
        """Readouts and the static panels that depend on the fit or the split."""
        self._readout()
        self._show("residuals", self.residuals_out, residuals_by_area(self.result.predictions))
        self._show("scatter", self.scatter_out, metric_scatter(self.data, self.metric.value, split=self.split(),
                                                               log=self.log_scale.value))

    def _refresh_exploration(self) -> None:
        tables = {"linear": pearson_table(self.data), "log10": pearson_table(self.data, log=True)}
        self._show("heatmap", self.heatmap_out, target_heatmap(tables))
        log = self.log_scale.value
        self._show("matrix", self.matrix_out, correlation_heatmap(
            correlation_matrix(self.data, log=log), f"Pearson's r between the metrics{' (log10)' if log else ''}"))

    def _readout(self) -> None:
        result, text = self.result, self.evaluation_text
        overall = result.overall()
        nt = self.data["NT"].to_numpy(float)
        rows = {
            "data": f"{self.data_label} ({len(self.data)} points)",
            "evaluation": text,
            "areas": "; ".join(f"{a}: {r}" for a, r in self.split().describe().items()),
            "overall (ours)": f"MAPE {overall['mape']:.1f} %, {overall['share_within_30']:.0%} within ±30 %, "
                              f"R² {overall['r2']:.3f} ({int(overall['n_points'])} points)",
            "paper 002 (3D-Jacobi / advection, 16-8192 processes)":
                f"mean error {PUBLISHED['mape']:.0f} %, {PUBLISHED['share_within_30']:.0%} within ±30 %",
        }
        if not (nt > 0).any():
            rows["note"] = ("NT = 0 for every point (one node: all messages intra-node), so everything is in "
                            "Area I and the NT threshold only moves the line; the S threshold splits Ia / Ib")
        rows["redraw"] = f"{self.last_update_s * 1000:.0f} ms (last change -> main figure)"
        self.readout.value = readout_html(rows)
        metrics = result.metrics[["area", "n_points", "mape", "share_within_30", "mpe", "r2", "rmse"]].rename(
            columns={"mape": "MAPE %", "share_within_30": "within ±30 %", "mpe": "MPE %", "rmse": "RMSE µs"})
        comparison = published_comparison(result).rename(columns={"ours": "ours", "paper": "paper 002"})
        self.scores.value = (frame_html(metrics, "Scores per area (MAPE in percent)")
                             + frame_html(comparison, "Beside the published numbers"))
        coef = self.model.coef_[["area", "term", "coef", "stderr", "source"]]
        self.coefficients.value = frame_html(coef, "Coefficients (µs per unit of the term; stderr approximate)")
        notes = result.warnings
        show_message(self.notes, "\n".join(notes) if notes else None, kind="warning")

    def refresh(self, exploration: bool = False) -> None:
        """Refit and redraw everything that depends on the controls."""
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
            split = self.split()
            self._show("scatter", self.scatter_out, metric_scatter(self.data, self.metric.value, split=split,
                                                                   log=self.log_scale.value))
            if log:
                self._refresh_exploration()

    def _switch_data(self) -> bool | None:
        """Load the data the controls name and redraw everything; True on success, None when
        the data could not be loaded (nothing changed), False when they were loaded but could
        not be fitted (then every panel is marked out of date)."""
        previous = (self.data, self.data_label, self._key)
        loaded = False
        with show_errors(self.messages):
            self._load_data()
            loaded = True
        if not loaded:
            self.data, self.data_label, self._key = previous
            return None
        with show_errors(self.messages, stale=(*self.panels, self.heatmap_out, self.matrix_out)):
            self.refresh(exploration=True)
            return True
        return False

    def _on_data(self, change) -> None:
        if self._quiet:
            return
        self._sync_visibility()
        if self._switch_data() is None and change["owner"] is self.dataset and change["old"] is not None:
            with self._quietly():  # keep showing the previous data, and say so in the picker
                self.dataset.value = change["old"]
            self._sync_visibility()

    def load_csv(self, name: str, content: bytes) -> bool:
        """Use an uploaded CSV (see :func:`read_upload`); True on success, else a red message
        (what is wrong, what the dashboard expects, an example header) and the current data
        stay."""
        data = None
        with show_errors(self.messages), UPLOAD_FORMAT.explaining([name]):
            data = read_upload(name, content)
        if data is None:
            return False
        self._upload = (name, data)
        with self._quietly():
            self.dataset.value = "upload"
        self._sync_visibility()
        return bool(self._switch_data())

    def _on_upload(self, change) -> None:
        self._take_upload(change, lambda files: self.load_csv(*files[0]))


def comm_regression_dashboard(**kwargs) -> CommRegressionDashboard:
    """Build the communication-regression dashboard; display it as a cell's last expression.
    Keyword arguments set the initial controls (``dataset`` ``"pingpong"``/``"osu"``,
    ``nt_threshold_bytes``, ``s_threshold_bytes``, ``robust``, ``evaluation``
    ``"all"``/``"scale"``/``"random"``) or pass an OSU frame (``osu=``)."""
    return CommRegressionDashboard(**kwargs)
