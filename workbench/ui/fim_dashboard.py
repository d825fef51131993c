"""FiM-Cal dashboard (Bhimani et al. 2019, section 2 and 4): measured K-means runs, the
regression mapping (Eq. 11, Fig. 10), Algorithm 1's alpha calibration, the Markov chain
of Eqs. 6-8 for a chosen process count, and predicted vs measured calculation time with
RBASP (Eq. 17) beside FiM.

Wiring only: the models are :class:`workbench.models.fim.FiMCal` and
:class:`~workbench.models.fim.RBASP`, fitted by
:func:`workbench.evaluation.fim.run_fim_experiment` (train on the ``role == "train"``
runs, score on the ``"test"`` runs); the figures come from :mod:`workbench.plots.fim`.

Data: the K-means runs measured on this machine (catalogue ``kmeans-fim``, the default),
a small sweep measured here with the button (:data:`SMALL_SWEEP`, ~20 runs under
``perf stat``), or an uploaded CSV with the columns of
:data:`workbench.measure.sweep.MEASURED_COLUMNS`.  When the catalogue dataset is missing
the dashboard says so and shows clearly labelled SYNTHETIC runs
(:func:`synthetic_kmeans_runs`).

Speed: every control recomputes in well under a second.  Algorithm 1 moves alpha by
epsilon per iteration, so the dashboard caps ``max_iter`` (:data:`MAX_ITER`: 20 000 steps
for the paper model, ~0.1-0.2 s; 25 for the barrier extension, whose every step evaluates
a phase-type maximum) -- with the paper's epsilon = 1e-5 the walk then covers alpha +-0.2,
hence the default epsilon = 1e-3 here.  Fits are cached per (data, parameters).

Defaults (:data:`DEFAULTS`): Algorithm 1 as in the paper -- alpha starts at 0 and walks up
until the relative RMS error of the training times is below tau -- with tau = 0.5.  The
paper's tau = 0.01 (1 %) cannot be reached on the runs measured here: on this 2-core
machine a run on 4 processes takes as long as on 2, while the paper's model divides TC by
t, so the lowest relative RMS over all alpha is 0.485 (at alpha = 1.019, the ceiling that
Eq. 12's scaling of U sets), and a walk with tau = 0.01 ends "NOT converged" at that
ceiling.  With tau = 0.5 the walk converges after 877 steps of epsilon = 1e-3, at alpha =
0.877 (RMS 0.4999), and the summary shows the lowest RMS of the walk whenever tau is out
of reach.  The barrier extension starts at alpha = 1 (:data:`ALPHA_START`; its 25 steps
cannot walk from 0), where its RMS is 0.436.

Primary slider: **tau**, Algorithm 1's RMS threshold; the main figure is the calibration
trace (RMS error against alpha along the walk, with the tau line), so moving tau always
redraws it, whether or not the walk then stops elsewhere.  A second live figure shows
prediction vs actual; its slider "α used for prediction" starts at the calibrated alpha
(and returns to it after every recalibration) and shows what alpha does to FiM's curve,
the Markov view and the scores.
"""

from __future__ import annotations

import html
import itertools
import re
import tempfile
import time
import warnings
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go
from tqdm.notebook import tqdm as tqdm_notebook

from workbench.errors import (
    DatasetNotFoundError,
    MeasurementError,
    ValidationError,
    WorkbenchError,
    WorkbenchWarning,
)
from workbench.evaluation.fim import (
    KMEANS_FEATURES,
    KMEANS_WORK_FEATURES,
    FiMExperiment,
    compare_predictions,
    run_fim_experiment,
)
from workbench.io import fetch_dataset
from workbench.io._text import csv_frame, decode
from workbench.measure import current_measurement, exclusive_measurement
from workbench.measure.perf import perf_unavailable_reason
from workbench.measure.sweep import MEASURED_COLUMNS, KMeansConfig, measure_kmeans, read_measured_kmeans
from workbench.models.fim import (
    RBASP,
    U_TOLERANCE,
    FiMCal,
    calculation_time,
    stage_completion_probability,
    state_occupancy,
    transition_matrix,
)
from workbench.plots.fim import (
    HARDWARE_LABELS,
    PARAMETER_LABELS,
    calibration_trace,
    config_label,
    display_probabilities,
    occupancy_figure,
    parity_figure,
    prediction_vs_actual,
    regression_slices,
    regression_surface,
    table4_figure,
    table4_frame,
    transition_heatmap,
)
from workbench.ui.common import (
    FitCache,
    QuietChanges,
    NamedFigures,
    frame_html,
    mark_stale,
    placeholder_figure,
    figure_widget,
    message_panel,
    readout_html,
    rounded,
    show_errors,
    show_message,
    slider,
    update_figure_widget,
)
from workbench.ui.uploads import UploadFormat

__all__ = [
    "ALPHA_START",
    "DEFAULTS",
    "FEATURES",
    "MAX_ITER",
    "UPLOAD_FORMAT",
    "SMALL_SWEEP",
    "FiMDashboard",
    "fim_dashboard",
    "measure_small_sweep",
    "read_runs_upload",
    "synthetic_kmeans_runs",
]

#: Feature choices of Eq. 11 (and Eq. 17): the paper's plain parameters, or the K-means
#: work terms I N and I K N (beyond the paper, see workbench.evaluation.fim).
FEATURES = {
    "paper": KMEANS_FEATURES,
    "work": KMEANS_WORK_FEATURES,
}
#: Cap of Algorithm 1's iterations in the dashboard, per Markov model (see the module docstring).
MAX_ITER = {"paper": 20_000, "barrier": 25}
#: Initial Algorithm 1 controls: the paper's start alpha = 0, a tau the measured runs can reach
#: (their lowest relative RMS is 0.485, see the module docstring), epsilon and max_iter sized
#: for the dashboard's latency.
DEFAULTS = {"alpha_init": 0.0, "epsilon": 1e-3, "tau": 0.5, "max_iter": 5000}
#: The alpha start each Markov model gets when the user has not chosen one: the barrier
#: extension's 25 steps cannot walk from the paper's 0, so it starts where the authors' code
#: does, at 1.
ALPHA_START = {"paper": DEFAULTS["alpha_init"], "barrier": 1.0}
#: What the "Upload runs CSV" button reads (said after every upload error).
UPLOAD_FORMAT = UploadFormat(
    "The dashboard reads a UTF-8 CSV table of measured K-means runs, one row per run, with the columns that "
    "python -m workbench.measure.sweep writes (as data/measured/kmeans_fim.csv): role (train or test), the "
    "parameters iterations, clusters, points, dims, the processes, repeat, the calculation time calc_time_s "
    "(seconds) and the perf counters cycles, stalled_cycles_frontend, stalled_cycles_backend, stall_cycles, "
    "task_clock_ms, cpus_utilized, utilization, freq_hz (a counter perf could not count may be empty).",
    ",".join(MEASURED_COLUMNS))
#: The small sweep of the "measure here" button: 5 training configurations (I, K and N
#: each varied, enough for Eq. 11's 4 coefficients) on 1, 2, 4 processes and one larger
#: test configuration on 1-4 processes, one repeat: 19 runs, ~20 s on this machine.  The
#: smallest run still calculates for ~0.1 s: in shorter runs the timer granularity pushes
#: the measured U past 1.02, which FiMCal refuses.
SMALL_SWEEP = (
    KMeansConfig(100_000, 8, 20, processes=(1, 2, 4)),
    KMeansConfig(200_000, 8, 20, processes=(1, 2, 4)),
    KMeansConfig(100_000, 16, 20, processes=(1, 2, 4)),
    KMeansConfig(100_000, 8, 40, processes=(1, 2, 4)),
    KMeansConfig(200_000, 16, 40, processes=(1, 2, 4)),
    KMeansConfig(400_000, 16, 40, processes=(1, 2, 3, 4), role="test"),
)
#: Cycles per stage of the chain drawn in the Markov view (see display_probabilities).
DISPLAY_TC = 40
_CATALOGUE = "kmeans-fim"
_SYNTHETIC = "synthetic"
_UPLOAD = "upload"
_SWEEP = "sweep"
_RBASP = {"RBASP linear g": "linear", "RBASP quadratic g": "quadratic"}


# ----------------------------------------------------------------------------- data


def synthetic_kmeans_runs(repeats: int = 3, cores: int = 2, seed: int = 0) -> pd.DataFrame:
    """SYNTHETIC runs shaped like a K-means sweep on a ``cores``-core machine (nothing
    here was measured), with the columns of :data:`~workbench.measure.sweep.MEASURED_COLUMNS`.

    TC = 3e7 + 25 I K N (1 + 0.05 (t - 1)) cycles (work plus a per-process overhead),
    SC = 0.25 TC, U = min(1, cores / t), F = 2.4 GHz and time = TC / (F min(t, cores))
    with 2 % noise.  Training: I in {20, 40, 80}, K in {8, 16, 32}, N in {5e4, 1e5, 2e5}
    on t = 1, 2, 4; test: four larger configurations on t = 1, 2, 3, 4, 6, 8.
    """
    rng = np.random.default_rng(seed)
    train = [(i, k, n, "train", (1, 2, 4)) for i, k, n in itertools.product((20, 40, 80), (8, 16, 32),
                                                                             (50_000, 100_000, 200_000))]
    test = [(i, k, n, "test", (1, 2, 3, 4, 6, 8)) for i, k, n in ((40, 16, 320_000), (80, 32, 320_000),
                                                                  (20, 16, 640_000), (40, 32, 640_000))]
    rows = [dict(role=role, iterations=i, clusters=k, points=n, dims=8, processes=t, repeat=r)
            for i, k, n, role, ts in train + test for t in ts for r in range(repeats)]
    frame = pd.DataFrame(rows)
    t = frame["processes"].to_numpy(float)
    work = frame["iterations"] * frame["clusters"] * frame["points"]
    tc = (3e7 + 25.0 * work * (1 + 0.05 * (t - 1))).to_numpy(float)
    f = 2.4e9
    frame["calc_time_s"] = tc / (f * np.minimum(t, cores)) * rng.normal(1, 0.02, len(frame))
    frame["cycles"] = tc
    frame["stalled_cycles_frontend"] = 0.25 * tc
    frame["stalled_cycles_backend"] = np.nan
    frame["stall_cycles"] = 0.25 * tc
    frame["task_clock_ms"] = tc / f * 1e3
    frame["utilization"] = np.minimum(frame["task_clock_ms"] / 1e3 / (frame["calc_time_s"] * t), 1.0)
    frame["cpus_utilized"] = np.nan
    frame["freq_hz"] = f
    frame = frame[MEASURED_COLUMNS]
    frame.attrs["description"] = "SYNTHETIC K-means-like runs (not measured): see synthetic_kmeans_runs"
    return frame


def _in_file_lines(message: str, lines: pd.Index) -> str:
    """The reader's "rows [0, 3]" (positions in the table it read) as the uploaded file's lines."""
    def lines_of(match: re.Match) -> str:
        rows = [int(v) for v in match[1].split(",") if v.strip()]
        if not all(0 <= r < len(lines) for r in rows):
            return match[0]
        return f"line{'s' if len(rows) > 1 else ''} {', '.join(str(lines[r]) for r in rows)}"

    return re.sub(r"\brows \[([\d, ]+)\]", lines_of, message)


def read_runs_upload(name: str, content: bytes) -> pd.DataFrame:
    """A measured-runs CSV uploaded as (file name, bytes), read like
    :func:`~workbench.measure.sweep.read_measured_kmeans` (same columns and checks; no
    metadata sidecar).  Errors name the uploaded file."""
    if not name.lower().endswith(".csv"):
        raise ValidationError(f"{name}: not a CSV file (the name does not end in .csv): upload the CSV table of "
                              "measured runs")
    # checked here (encoding, binary content, shape, columns) so that the reader below only
    # ever sees a plain comma-separated table, and no message quotes pandas or a codec
    table = csv_frame(decode(bytes(content), name, what="a CSV table of measured K-means runs"), name,
                      example=",".join(MEASURED_COLUMNS))
    missing = [c for c in MEASURED_COLUMNS if c not in table.columns]
    if missing:
        found = ", ".join(map(str, table.columns[:12])) + (" ..." if len(table.columns) > 12 else "")
        raise ValidationError(f"{name}: not a table of measured K-means runs: missing the column(s) "
                              f"{', '.join(missing)} (the file has {found})")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "upload.csv"
        table.to_csv(path, index=False)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", WorkbenchWarning)  # no sidecar JSON with an upload
                frame = read_measured_kmeans(path)
        except WorkbenchError as exc:
            raise type(exc)(_in_file_lines(str(exc).replace(str(path), name), table.index)) from None
    frame.attrs["description"] = f"uploaded file {name}"
    return frame


def measure_small_sweep(progress=None, plan=SMALL_SWEEP) -> pd.DataFrame:
    """Measure ``plan`` (default :data:`SMALL_SWEEP`) once under ``perf stat``, run by run,
    calling ``progress.update(1)`` after each (a tqdm bar).  Raises
    :class:`~workbench.errors.MeasurementError` when perf cannot count here: FiM needs TC, SC, U."""
    reason = perf_unavailable_reason()
    if reason is not None:
        raise MeasurementError(f"perf stat cannot count on this machine, so TC, SC and U cannot be measured: {reason}")
    runs = [(config, t) for config in plan for t in config.processes]
    parts = []
    # one lock for the whole sweep (measure_kmeans takes it again per run: re-entrant), so that
    # no other measurement on this machine slips in between two runs
    with exclusive_measurement(f"FiM dashboard: small K-means sweep ({len(runs)} runs)",
                               processes=max(t for _, t in runs)):
        for config, t in runs:
            one = KMeansConfig(config.points, config.clusters, config.iterations, config.dims, (t,), config.role)
            parts.append(measure_kmeans([one], repeats=1, progress=False))
            if progress is not None:
                progress.update(1)
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["description"] = f"small sweep measured here just now ({len(frame)} runs, one repeat)"
    return frame


def _check_runs(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    need = [*KMEANS_FEATURES, "processes", "role", "calc_time_s", "cycles", "stall_cycles", "utilization", "freq_hz"]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValidationError(f"{label}: missing the column(s) {', '.join(missing)}")
    counters = frame[["cycles", "stall_cycles", "utilization", "freq_hz"]]
    if counters.isna().all(axis=None):
        raise ValidationError(f"{label}: no perf counters (the columns cycles, stall_cycles, utilization and "
                              "freq_hz, FiM's TC, SC, U and F, are all empty): FiM needs them; measure where perf "
                              "can count")
    for role in ("train", "test"):
        if not (frame["role"] == role).any():
            raise ValidationError(f"{label}: no {role} runs (the column role has no {role!r} row): FiM is trained on "
                                  "the train runs and scored on the test runs")
    return frame


# ------------------------------------------------------------------------ dashboard


class FiMDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Data source, FiM-Cal controls, two live figures -- the calibration trace (main) and
    prediction vs actual -- and static panels: parity, Table 4, regression surfaces,
    Markov chain.

    Attributes: ``source``, ``upload``, ``measure`` (data controls), ``features``,
    ``model``, ``scale_u``, ``alpha_init``, ``epsilon``, ``tau`` (primary slider),
    ``max_iter``, ``alpha`` (alpha used for prediction), ``config``, ``processes``
    (t of the Markov view), ``variable``, ``axes``, ``fixed``, ``surface_view`` (regression
    view: ``"2d"`` slices, default, or the ``"3d"`` surface);
    ``figure`` (main LiveFigure: calibration trace), ``prediction`` (LiveFigure:
    prediction vs actual); ``parity_out``,
    ``table4_out``, ``surface_out``, ``heatmap_out``, ``occupancy_out`` (LiveFigures)
    and the figures they show in ``figures`` (name -> go.Figure); ``summary``,
    ``markov_readout``, ``table4`` (HTML); ``messages`` (errors), ``notes`` (warnings of
    the fit), ``notice`` (about the data); ``runs`` (the runs frame), ``experiment``
    (:class:`~workbench.evaluation.fim.FiMExperiment`), ``comparison`` (scores at the alpha
    used), ``last_update_s``.
    """

    def __init__(self, source: str = _CATALOGUE, runs: pd.DataFrame | None = None, features: str = "paper",
                 model: str = "paper", alpha_init: float = DEFAULTS["alpha_init"],
                 epsilon: float = DEFAULTS["epsilon"], tau: float = DEFAULTS["tau"],
                 max_iter: int = DEFAULTS["max_iter"], scale_utilization: bool = True):
        self.messages = message_panel()
        self.notes = message_panel()
        self.notice = message_panel()
        self._cache = FitCache()
        self._frames: dict[str, pd.DataFrame] = {}
        self._fit_key = None
        self.experiment: FiMExperiment | None = None
        self.comparison = None
        self.figures: dict[str, go.Figure] = {}
        self.last_update_s = float("nan")

        # data
        options = [("K-means measured on this machine (catalogue: kmeans-fim)", _CATALOGUE),
                   ("SYNTHETIC K-means-like runs (not measured)", _SYNTHETIC)]
        if runs is not None:
            self._frames["given"] = runs
            options.append(("runs given to the dashboard", "given"))
            source = "given"
        self.source = widgets.Dropdown(options=options, value=source, description="Data",
                                       style={"description_width": "50px"}, layout=widgets.Layout(width="560px"))
        self.upload = widgets.FileUpload(accept=".csv", multiple=False, description="Upload runs CSV",
                                         layout=widgets.Layout(width="190px"))
        self.measure = widgets.Button(description="Measure a small sweep here (~20 s)", icon="play",
                                      layout=widgets.Layout(width="290px"))
        self.progress = widgets.Box()
        self.measure_note = message_panel()  # "a measurement is running (...)" on this machine
        self.data_summary = widgets.HTML()

        # FiM-Cal
        wide = {"description_width": "initial"}
        self.features = widgets.ToggleButtons(
            options=[("I, K, N (paper)", "paper"), ("I·N, I·K·N (work)", "work")], value=features,
            description="Eq. 11 features", style={**wide, "button_width": "130px"})
        self.model = widgets.ToggleButtons(
            options=[("paper: Eqs. 9-10", "paper"), ("barrier (extension)", "barrier")], value=model,
            description="Markov model", style={**wide, "button_width": "140px"})
        self.scale_u = widgets.Checkbox(value=scale_utilization, description="scale U with α too (Eq. 12, paper)",
                                        indent=False)
        self.alpha_init = slider("α start (paper 0, code 1)", alpha_init, 0.0, 3.0, 0.01)
        self.epsilon = slider("ε (α step)", epsilon, 1e-6, 1e-1, 0.1, log=True)
        self.tau = slider("τ (RMS threshold)", tau, 1e-4, 1.0, 0.05, log=True, primary=True)
        self.max_iter = slider("max_iter (dashboard cap)", max_iter, 10, MAX_ITER["paper"], 10, integer=True)
        self.alpha = slider("α used for prediction", 1.0, 0.0, 3.0, 0.01, readout_format=".4g")
        self.summary = widgets.HTML(layout=widgets.Layout(margin="0 0 0 24px"))

        # views
        self.config = widgets.Dropdown(description="test configuration", style=wide,
                                       layout=widgets.Layout(width="420px"))
        self.processes = slider("t (processes, Markov view)", 4, 1, 64, 1, integer=True)
        self.variable = widgets.ToggleButtons(options=[(v, k) for k, v in HARDWARE_LABELS.items()], value="cycles",
                                              description="variable", style={**wide, "button_width": "50px"})
        self.axes = widgets.Dropdown(description="over", style=wide, layout=widgets.Layout(width="330px"))
        self.fixed = widgets.Dropdown(description="at", style=wide, layout=widgets.Layout(width="220px"))
        # 2-D by default: a WebGL scene (software GL here) slows every page load; the 3-D
        # view (paper Fig. 10) is one click away
        self.surface_view = widgets.ToggleButtons(options=[("2-D slices", "2d"), ("3-D surface", "3d")],
                                                  value="2d", style={"button_width": "100px"})
        self.markov_readout = widgets.HTML()
        self.table4 = widgets.HTML()
        self.parity_out, self.table4_out, self.surface_out, self.heatmap_out, self.occupancy_out = (
            figure_widget(placeholder_figure(""), name=name, width=w) for name, w in (
                ("parity", "100%"), ("table4", "100%"), ("surface", "100%"), ("heatmap", "50%"), ("occupancy", "50%")))

        calib = prediction = None
        with show_errors(self.messages):
            self._use_source(self.source.value, initial=True)
            calib, prediction = self._update()
        self.figure = figure_widget(calib if calib is not None else placeholder_figure("No calibration yet"),
                                    primary=True)
        self.prediction = figure_widget(prediction if prediction is not None
                                        else placeholder_figure("No prediction yet"), name="prediction")
        self.source.observe(self._on_source, names="value")
        self.upload.observe(self._on_upload, names="value")
        self.measure.on_click(self._on_measure)
        self.show_measurement_state()
        for control in (self.features, self.model, self.scale_u, self.alpha_init, self.epsilon, self.tau,
                        self.max_iter, self.alpha, self.config, self.processes, self.variable, self.axes, self.fixed,
                        self.surface_view):
            control.observe(self._on_change, names="value")

        h = widgets.HTML
        super().__init__([
            widgets.HBox([self.source, self.upload, self.measure]),
            self.progress, self.measure_note, self.data_summary, self.notice,
            widgets.HBox([widgets.VBox([self.features, self.model, self.scale_u, self.alpha_init, self.epsilon,
                                        self.tau, self.max_iter]), self.summary]),
            self.messages, self.notes,
            h("<h4>Calibration of α (Algorithm 1) on the training runs</h4>"), self.figure,
            h("<h4>Prediction vs actual (paper Fig. 6 a): FiM beside RBASP on the test runs</h4>"),
            widgets.HBox([self.alpha, self.config]), self.prediction,
            h("<h4>All test runs and the paper's Table 4</h4>"), self.parity_out, self.table4, self.table4_out,
            h("<h4>Regression mapping (Eq. 11, paper Fig. 10)</h4>"),
            widgets.HBox([self.variable, self.axes, self.fixed, self.surface_view]), self.surface_out,
            h(f"<h4>Markov chain (Eqs. 6-9) of the chosen configuration, drawn with TC' = {DISPLAY_TC} cycles</h4>"),
            self.processes, self.markov_readout, widgets.HBox([self.heatmap_out, self.occupancy_out]),
        ])

    # ------------------------------------------------------------------ data
    def _load(self, key: str) -> pd.DataFrame:
        if key not in self._frames:
            if key == _CATALOGUE:
                self._frames[key] = fetch_dataset(_CATALOGUE).frame
            elif key == _SYNTHETIC:
                self._frames[key] = synthetic_kmeans_runs()
            else:
                raise ValidationError(f"no data loaded for source {key!r}")
        return self._frames[key]

    def _use_source(self, key: str, initial: bool = False) -> None:
        try:
            frame = self._load(key)
        except DatasetNotFoundError as exc:
            if not initial:
                raise
            reason = str(exc).split(";")[0]
            show_message(self.notice, f"The measured K-means dataset is not available ({reason}). Showing SYNTHETIC "
                                      "runs instead; measure a small sweep here or upload a CSV.", kind="warning")
            key = _SYNTHETIC
            frame = self._load(key)
            with self._quietly():
                self.source.value = key
        label = dict((v, k) for k, v in self.source.options)[key]
        _check_runs(frame, label)
        # pandas deep-copies attrs (here the sidecar JSON: machine, method, design) in every
        # operation, which made one refit ~10x slower: keep them aside
        self.meta = dict(frame.attrs)
        self.runs = frame.copy()
        self.runs.attrs = {}
        self._data_changed(label)

    def _data_changed(self, label: str) -> None:
        """New runs: refill the configuration, axes and fixed-value pickers."""
        runs = self.runs
        test = runs[runs["role"] == "test"].drop_duplicates(list(KMEANS_FEATURES))
        configs = [(config_label(dict(zip(KMEANS_FEATURES, row, strict=True))), tuple(float(v) for v in row))
                   for row in test[list(KMEANS_FEATURES)].itertuples(index=False)]
        pairs = [(f"{PARAMETER_LABELS[x]} × {PARAMETER_LABELS[y]}", (x, y))
                 for x, y in itertools.combinations(KMEANS_FEATURES, 2)]
        with self._quietly():
            self.config.options = configs
            self.config.value = configs[-1][1]
            self.axes.options = pairs
            self.axes.value = pairs[0][1]  # I x K as in Fig. 10
            self.processes.value = int(min(runs["processes"].max(), self.processes.max))
        self._fill_fixed()
        attrs = self.meta
        machine = attrs.get("machine") or {}
        facts = [f"{len(runs)} runs ({(runs['role'] == 'train').sum()} train, {(runs['role'] == 'test').sum()} test)",
                 f"{runs[runs['role'] == 'train'].drop_duplicates(list(KMEANS_FEATURES)).shape[0]} training and "
                 f"{len(configs)} test configurations",
                 "processes " + ", ".join(f"{v:g}" for v in sorted(runs["processes"].unique()))]
        if machine:
            facts.append(f"{machine.get('cpu_model', '?')}, {machine.get('cpus', '?')} CPUs")
        if attrs.get("date"):
            facts.append(f"measured {str(attrs['date'])[:10]}")
        if attrs.get("description") and str(attrs["description"]) not in label:
            facts.append(str(attrs["description"]))
        self.data_summary.value = (f"<div style='font-size:13px'><b>{html.escape(label)}</b>: "
                                   f"{html.escape('; '.join(facts))}</div>")

    def _fill_fixed(self) -> None:
        x, y = self.axes.value
        other = next(p for p in KMEANS_FEATURES if p not in (x, y))
        values = sorted(self.runs.loc[(self.runs["role"] == "train") & (self.runs["processes"] == 1), other].unique())
        values = values or sorted(self.runs[other].unique())
        with self._quietly():
            self.fixed.options = [(f"{PARAMETER_LABELS[other].split(' ')[0]} = {v:g}", float(v)) for v in values]
            self.fixed.value = float(values[len(values) // 2])

    # ------------------------------------------------------------------ fitting
    def parameters(self) -> dict:
        """FiMCal parameters from the controls (slider values rounded, max_iter capped)."""
        model = self.model.value
        return dict(features=FEATURES[self.features.value], model=model,
                    alpha_init=rounded(self.alpha_init.value, 4), epsilon=rounded(self.epsilon.value, 3),
                    tau=rounded(self.tau.value, 3), max_iter=min(int(self.max_iter.value), MAX_ITER[model]),
                    scale_utilization=bool(self.scale_u.value))

    @property
    def fim_name(self) -> str:
        return "FiM" + (" barrier ext." if self.model.value == "barrier" else "") + (
            " (I·N, I·K·N)" if self.features.value == "work" else " (I, K, N)")

    def _fit(self) -> tuple[FiMExperiment, tuple]:
        params = self.parameters()
        key = (id(self.runs), tuple(sorted(params.items())))

        def fit():
            variants = {self.fim_name: FiMCal(**params)}
            variants.update({name: RBASP(params["features"], g=g) for name, g in _RBASP.items()})
            return run_fim_experiment(self.runs, variants)

        return self._cache.get(key, fit), key

    def _update(self) -> tuple[go.Figure, go.Figure]:
        """Fit (or reuse), then refresh every panel; returns the calibration (main) and the
        prediction figures."""
        start = time.perf_counter()
        exp, key = self._fit()
        self.experiment = exp
        fim = exp.models.get(self.fim_name)
        if key != self._fit_key:
            self._fit_key = key
            if fim is not None:  # a new calibration: predict with its alpha
                alpha = fim.alpha_
                with self._quietly():
                    self.alpha.max = max(3.0, float(np.ceil(2 * alpha)))
                    self.alpha.value = alpha
        alpha = rounded(self.alpha.value, 6)
        predictions = dict(exp.predictions)
        if fim is not None:
            predictions[self.fim_name] = fim.predict(exp.test, alpha=alpha)
        self.comparison = compare_predictions(exp.test, predictions)
        config = dict(zip(KMEANS_FEATURES, self.config.value, strict=True))
        prediction = prediction_vs_actual(exp.test, predictions, config)
        if fim is not None:
            calib = calibration_trace(fim.calibration_, fim.tau, alpha_used=alpha, error=fim.error)
        else:
            calib = placeholder_figure("FiM could not be fitted: see the message above")
        self._show("parity", self.parity_out, parity_figure(self.comparison))
        table = table4_frame(self.comparison)
        self.table4.value = frame_html(table, "Paper Table 4 (K-means row) beside ours (the test runs measured here)")
        self._show("table4", self.table4_out, table4_figure(table))
        self._surface(exp)
        self._markov(fim, config, alpha)
        if fim is None:  # RBASP is still shown; the panel of the fit, not of the callback
            show_message(self.notes, "FiM could not be fitted with these settings:\n" + "\n".join(exp.warnings))
        else:  # notes of a converged fit are information; a walk that missed tau is a warning
            show_message(self.notes, "\n".join(exp.warnings),
                         kind="info" if fim.calibration_.converged else "warning")
        self.last_update_s = time.perf_counter() - start
        self.summary.value = self._summary_html(fim, alpha)
        return calib, prediction

    def _summary_html(self, fim, alpha: float) -> str:
        rows = {}
        if fim is not None:
            c = fim.calibration_
            capped = " (capped)" if int(self.max_iter.value) > MAX_ITER[self.model.value] else ""
            rows.update({
                "calibrated α": f"{c.alpha:.6g} ({'converged' if c.converged else 'NOT converged'}, "
                                f"{c.iterations} steps{capped}, {'up' if c.direction > 0 else 'down'})",
                "RMS at α (train)": f"{c.rms:.4g} ({fim.error}); τ = {fim.tau:g}",
            })
            lowest = float(c.trace["rms"].min())
            if not c.converged and np.isfinite(lowest):
                rows["τ out of reach"] = (f"the lowest RMS on the walk is {lowest:.4g}: choose τ above it (or "
                                          "more steps, a larger ε, another α start)")
            rows.update({
                "neglected train rows": f"{c.neglected}",
                "α used for prediction": f"{alpha:.6g}",
                "F used": f"{fim.freq_hz_ / 1e9:.3f} GHz",
                "R² of TC, SC, U": ", ".join(f"{v:.3f}" for v in fim.regression_.r2_),
            })
        for rec in self.comparison.summary.itertuples(index=False):
            if pd.isna(rec.average_pct):
                rows[f"{rec.model}: mean error"] = "no valid prediction (all refused: invalid hardware variables)"
                continue
            rows[f"{rec.model}: mean error"] = (f"{rec.average_pct:.1f} % (worst {rec.worst_pct:.1f} %, "
                                                f"optimal t right in {rec.optimal_matches} of {rec.configs})")
        rows["fit + redraw"] = f"{self.last_update_s * 1000:.0f} ms"
        return readout_html(rows)

    # ------------------------------------------------------------------ panels
    def _surface(self, exp: FiMExperiment) -> None:
        fim = exp.models.get(self.fim_name)
        if fim is None:
            self._show("surface", self.surface_out, placeholder_figure("No regression (FiM not fitted)"))
            return
        x, y = self.axes.value
        other = next(p for p in KMEANS_FEATURES if p not in (x, y))
        runs = exp.train[exp.train["processes"] == fim.regression_processes]
        draw = regression_surface if self.surface_view.value == "3d" else regression_slices
        fig = draw(runs, fim.regression_, self.variable.value, x, y, fixed={other: self.fixed.value})
        self._show("surface", self.surface_out, fig)

    def _markov(self, fim, config: dict, alpha: float) -> None:
        t = int(self.processes.value)
        if fim is None:
            self.markov_readout.value = ""
            for name, out in (("heatmap", self.heatmap_out), ("occupancy", self.occupancy_out)):
                self._show(name, out, placeholder_figure("No Markov chain (FiM not fitted)"))
            return
        row = pd.DataFrame({k: [v] for k, v in config.items()} | {"processes": [t]})
        tc, sc, u = fim.predict_hardware(row, alpha).to_numpy()[0]
        if not (tc > 1 and 0 < sc < tc):
            self.markov_readout.value = readout_html({"hardware at α": f"TC = {tc:.4g}, SC = {sc:.4g}: not valid "
                                                                       "(need 0 < SC < TC)"})
            for name, out in (("heatmap", self.heatmap_out), ("occupancy", self.occupancy_out)):
                self._show(name, out, placeholder_figure("Invalid hardware variables at this α"))
            return
        probabilities = display_probabilities(tc, sc, u, DISPLAY_TC)
        matrix = transition_matrix(t, *probabilities)
        # expected completion after ~TC'/t cycles from the all-active state (Eq. 9)
        occupancy = state_occupancy(matrix, int(np.ceil(4 * DISPLAY_TC / t)) + 10)
        self._show("heatmap", self.heatmap_out, transition_heatmap(
            matrix, f"P_ij({t}) with TC' = {DISPLAY_TC}, SC/TC = {sc / tc:.3f}, U = {min(max(u, 0), 1):.3f}"))
        self._show("occupancy", self.occupancy_out, occupancy_figure(occupancy))
        stages = 1 if fim.stages is None else config[fim.stages]
        prediction = fim.predict(row, alpha=alpha)[0]
        rows = {
            f"{config_label(config)} at α = {alpha:.4g}": f"TC = {tc:.4g} cycles, SC = {sc:.4g}, U = {u:.4f}",
            "per-cycle completion 1/TC (Eq. 5)": f"{1 / tc:.3g}   (drawn with 1/TC' = {1 / DISPLAY_TC:.3g})",
            f"Eq. 9: P_s = 1 - (1 - 1/TC)^{t}": f"{stage_completion_probability(t, tc):.4g}",
            f"Eq. 10: T = 1/(P_s F) at t = {t}": f"{calculation_time(t, tc, fim.freq_hz_, stages):.4g} s "
                                                 "(SC and U do not enter)",
            f"{self.fim_name} prediction at t = {t}": "invalid hardware (neglected)" if not np.isfinite(prediction)
            else f"{prediction:.4g} s",
        }
        if not 0 <= u <= 1 + U_TOLERANCE:
            rows["warning"] = f"U = {u:.4g} is outside [0, 1] at this α (Eq. 12 scales U): invalid, drawn with U = 1"
        self.markov_readout.value = readout_html(rows)

    # ---------------------------------------------------------------- handlers
    @property
    def panels(self) -> tuple:
        """Every panel that shows a result of the data and the controls."""
        return (self.figure, self.prediction, self.parity_out, self.table4_out, self.surface_out, self.heatmap_out,
                self.occupancy_out, self.summary, self.table4, self.markov_readout, self.notes)

    def _refresh(self) -> None:
        start = time.perf_counter()
        calib, prediction = self._update()
        update_figure_widget(self.figure, calib)
        update_figure_widget(self.prediction, prediction)
        self.last_update_s = time.perf_counter() - start

    def _on_change(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.messages, stale=self.panels):
            if change["owner"] is self.axes:
                self._fill_fixed()
            if change["owner"] is self.model and rounded(self.alpha_init.value, 4) == ALPHA_START[change["old"]]:
                with self._quietly():  # the start the user left at the other model's default follows the model
                    self.alpha_init.value = ALPHA_START[change["new"]]
            self._refresh()

    def _use(self, key: str, previous: str | None, label: str | None = None) -> bool:
        """Use the frame of source ``key`` (adding it to the menu with ``label``) and refresh;
        True on success.  A failure before the runs changed (unreadable, unusable data) keeps
        ``previous`` selected and every panel valid; a failure after (the new runs cannot be
        fitted with these settings) marks the panels out of date."""
        before = getattr(self, "runs", None)
        ok = False
        with show_errors(self.messages):
            if label is not None:
                options = [o for o in self.source.options if o[1] != key] + [(label, key)]
                with self._quietly():
                    self.source.options = options
            with self._quietly():
                self.source.value = key
            self._use_source(key)
            self._refresh()
            ok = True
        if ok:
            return True
        if getattr(self, "runs", None) is before:
            if previous is not None:
                with self._quietly():
                    self.source.value = previous
        else:
            for panel in self.panels:
                mark_stale(panel, "the new data could not be fitted with these settings (see the message above): "
                                  "change a setting or choose other data")
        return False

    def _on_source(self, change) -> None:
        if self._quiet:
            return
        self._use(change["new"], change["old"])

    def load_csv(self, name: str, content: bytes) -> bool:
        """Use an uploaded CSV of measured runs; True on success, else the error is shown
        in :attr:`messages` (with what the dashboard expects) and the previous data stay
        selected."""
        frame = None
        with show_errors(self.messages), UPLOAD_FORMAT.explaining([name]):
            frame = _check_runs(read_runs_upload(name, content), name)
        if frame is None:
            return False
        self._frames[_UPLOAD] = frame
        return self._use(_UPLOAD, self.source.value, f"uploaded: {name} ({len(frame)} runs)")

    def _on_upload(self, change) -> None:
        self._take_upload(change, lambda files: self.load_csv(*files[0]))

    def show_measurement_state(self) -> dict | None:
        """Say in :attr:`measure_note` whether a measurement is running on this machine (this
        button's or another one, :func:`~workbench.measure.current_measurement`); returns its
        description or None."""
        info = current_measurement()
        if not info:
            show_message(self.measure_note, None)
            return None
        parts = [str(info.get("what") or "a measurement")]
        if info.get("processes"):
            parts.append(f"{info['processes']} processes")
        started = str(info.get("started") or "")
        when = f" {started[11:16]}" if len(started) >= 16 else ""  # ISO time: the hour and minute
        parts.append(f"started{when} by {info.get('user') or 'another user'}")
        show_message(self.measure_note, f"a measurement is running ({', '.join(parts)}): measuring here is "
                                        "refused until it finishes, to keep both sets of timings clean; the data "
                                        "below are not affected", kind="info")
        return info

    def run_sweep(self, plan=SMALL_SWEEP) -> bool:
        """Measure ``plan`` here with a progress bar (removed when measuring ends), then use
        it; True on success.  Refused (a red message) while another measurement runs on this
        machine."""
        frame = None
        previous = self.source.value
        self.measure.disabled = True
        total = sum(len(c.processes) for c in plan)
        bar = tqdm_notebook(total=total, desc="measuring", display=False)
        self.progress.children = [bar.container]
        try:
            with show_errors(self.messages):
                frame = _check_runs(measure_small_sweep(bar, plan), "the small sweep")
        finally:
            bar.close()
            self.progress.children = ()  # no "measuring 0 %" bar left behind, whatever happened
            self.measure.disabled = False
            self.show_measurement_state()
        if frame is None:
            return False
        self._frames[_SWEEP] = frame
        return self._use(_SWEEP, previous, f"small sweep measured here just now ({len(frame)} runs)")

    def _on_measure(self, _button) -> None:
        self.run_sweep()


def fim_dashboard(source: str = _CATALOGUE, **kwargs) -> FiMDashboard:
    """Build the FiM-Cal dashboard; display it as a cell's last expression.

    ``source``: ``"kmeans-fim"`` (default: the K-means runs measured on this machine) or
    ``"synthetic"``; ``runs=`` a runs frame of your own; other keyword arguments set the
    initial controls (``features``, ``model``, ``alpha_init``, ``epsilon``, ``tau``,
    ``max_iter``, ``scale_utilization``).
    """
    return FiMDashboard(source=source, **kwargs)
