"""FiM-Cal dashboard ([Bhimani2019] sections 2 and 4).

Measured K-means runs, the regression mapping (Eq. 11, Fig. 10), Algorithm 1's alpha
calibration, the Markov chain of Eqs. 6-8 for a chosen process count, and predicted vs
measured calculation time with RBASP (Eq. 17) beside FiM.

Wiring only: the panels are computed by :func:`workbench.views.fim.fim_view` (FiMCal and
RBASP fitted by :func:`workbench.evaluation.fim_explore.calibrate_and_compare`: train on
the ``role == "train"`` runs, score on the ``"test"`` runs; figures from
:mod:`workbench.plots.fim`); the data menu is a :class:`~workbench.ui.data_source.DataSource`.

Data: the K-means runs measured on this machine (catalogue ``kmeans-fim``, the default),
a small sweep measured here with the button
(:data:`workbench.measure.fim_sweep.SMALL_SWEEP`, ~20 runs under ``perf stat``), or an
uploaded CSV with the columns of :data:`workbench.io.measured.KMEANS_COLUMNS`.  When the
catalogue dataset is missing the dashboard says so and shows clearly labelled SYNTHETIC
runs (:func:`workbench.io.kmeans_runs.synthetic_kmeans_runs`).

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

import math
import time

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go
from tqdm.notebook import tqdm as tqdm_notebook

from workbench.io import fetch_dataset
from workbench.io.kmeans_runs import check_fim_runs, read_runs_upload, synthetic_kmeans_runs
from workbench.io.measured import KMEANS_COLUMNS as MEASURED_COLUMNS
from workbench.measure import current_measurement, fim_sweep
from workbench.measure.fim_sweep import SMALL_SWEEP, measure_small_sweep
from workbench.measure.sweep import KMeansConfig
from workbench.plots.fim import HARDWARE_LABELS
from workbench.ui.common import (
    FitCache,
    NamedFigures,
    QuietChanges,
    figure_widget,
    frame_html,
    mark_stale,
    message_panel,
    placeholder_figure,
    readout_html,
    rounded,
    show_errors,
    show_message,
    slider,
)
from workbench.ui.data_source import Dataset, DataSource
from workbench.ui.uploads import UploadFormat
from workbench.views import fim as fim_views
from workbench.views.fim import ALPHA_START, DEFAULTS, DISPLAY_TC, FEATURES, MAX_ITER, FiMState

__all__ = [
    "ALPHA_START",
    "DEFAULTS",
    "DISPLAY_TC",
    "FEATURES",
    "MAX_ITER",
    "UPLOAD_FORMAT",
    "SMALL_SWEEP",
    "FiMDashboard",
    "KMeansConfig",
    "SweepButton",
    "fim_dashboard",
    "measure_small_sweep",
    "read_runs_upload",
    "synthetic_kmeans_runs",
]

#: What the "Upload runs CSV" button reads (said after every upload error).
UPLOAD_FORMAT = UploadFormat(
    "The dashboard reads a UTF-8 CSV table of measured K-means runs, one row per run, with the columns that "
    "python -m workbench.measure.sweep writes (as data/measured/kmeans_fim.csv): role (train or test), the "
    "parameters iterations, clusters, points, dims, the processes, repeat, the calculation time calc_time_s "
    "(seconds) and the perf counters cycles, stalled_cycles_frontend, stalled_cycles_backend, stall_cycles, "
    "task_clock_ms, cpus_utilized, utilization, freq_hz (a counter perf could not count may be empty).",
    ",".join(MEASURED_COLUMNS))
_CATALOGUE = "kmeans-fim"
_SYNTHETIC = "synthetic"
_GIVEN = "given"
_SWEEP = "sweep"
_DATASETS = (
    Dataset(_CATALOGUE, "K-means measured on this machine (catalogue: kmeans-fim)",
            lambda: fetch_dataset(_CATALOGUE).frame),
    Dataset(_SYNTHETIC, "SYNTHETIC K-means-like runs (not measured)", synthetic_kmeans_runs),
)


class FiMDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Data source, FiM-Cal controls, two live figures.

    The calibration trace (main) and prediction vs actual -- and static panels: parity,
    Table 4, regression surfaces, Markov chain.

    Attributes: ``data_source`` (:class:`~workbench.ui.data_source.DataSource`), its
    ``source`` (menu) and ``upload``, ``measure`` (data controls), ``features``,
    ``model``, ``scale_u``, ``alpha_init``, ``epsilon``, ``tau`` (primary slider),
    ``max_iter``, ``alpha`` (alpha used for prediction), ``config``, ``processes``
    (t of the Markov view), ``variable``, ``axes``, ``fixed``, ``surface_view`` (regression
    view: ``"2d"`` slices, default, or the ``"3d"`` surface);
    ``figure`` (main LiveFigure: calibration trace), ``prediction`` (LiveFigure: prediction
    vs actual); ``parity_out``, ``table4_out``, ``surface_out``, ``heatmap_out``,
    ``occupancy_out`` (LiveFigures) and their figures in ``figures`` (name -> go.Figure); ``summary``,
    ``markov_readout``, ``table4`` (HTML); ``messages`` (errors), ``notes`` (warnings of
    the fit), ``notice`` (about the data); ``runs`` (the runs frame), ``experiment``
    (:class:`~workbench.evaluation.fim.FiMExperiment`), ``comparison`` (scores at the alpha
    used), ``panels_shown`` (the last :class:`~workbench.views.fim.FiMPanels`), ``last_update_s``.

    Parameters
    ----------
    source : str, default "kmeans-fim"
        Initial data: the catalogue's measured runs, ``"synthetic"`` or ``"given"`` (``runs``).
    runs : pandas.DataFrame, optional
        Measured runs of your own, offered as ``"given"``.
    features : {"paper", "work"}, default "paper"
        Eq. 11 on I, K, N (the paper) or on the work terms I·N, I·K·N.
    model : {"paper", "barrier"}, default "paper"
        The Markov model.
    alpha_init : float, default 0.0
        Where Algorithm 1's walk starts.
    epsilon : float, default 1e-3
        Step of the walk.
    tau : float, default 0.5
        RMS error at which the walk stops.
    max_iter : int, default 5000
        Most steps of the walk (capped per model, :data:`~workbench.views.fim.MAX_ITER`).
    scale_utilization : bool, default True
        Eq. 12 scales U with alpha.
    """

    def __init__(self, source: str = _CATALOGUE, runs: pd.DataFrame | None = None, features: str = "paper",
                 model: str = "paper", alpha_init: float = DEFAULTS["alpha_init"],
                 epsilon: float = DEFAULTS["epsilon"], tau: float = DEFAULTS["tau"],
                 max_iter: int = DEFAULTS["max_iter"], scale_utilization: bool = True):
        self.messages, self.notes = message_panel(), message_panel()
        self._cache = FitCache()
        self._fit_key = None
        self.experiment = self.comparison = self.panels_shown = None
        self.figures: dict[str, go.Figure] = {}
        self.last_update_s = float("nan")
        self._data_ok = True
        self._build_data(source, runs)
        self._build_fim_controls(features, model, alpha_init, epsilon, tau, max_iter, scale_utilization)
        self._build_view_controls()
        self.figure = figure_widget(placeholder_figure("No calibration yet"), primary=True)
        self.prediction = figure_widget(placeholder_figure("No prediction yet"), name="prediction")
        with show_errors(self.messages):
            self._take_runs(self.data_source)
            self._refresh()
        self.data_source.on_change(self._on_data)
        self.measure.on_click(lambda _button: self.run_sweep())
        self.show_measurement_state()
        for control in (self.features, self.model, self.scale_u, self.alpha_init, self.epsilon, self.tau,
                        self.max_iter, self.alpha, self.config, self.processes, self.variable, self.axes, self.fixed,
                        self.surface_view):
            control.observe(self._on_change, names="value")
        super().__init__(self._layout())

    # ------------------------------------------------------------------ building
    def _build_data(self, source: str, runs: pd.DataFrame | None) -> None:
        datasets = list(_DATASETS)
        if runs is not None:
            datasets.append(Dataset(_GIVEN, "runs given to the dashboard", lambda: runs))
            source = _GIVEN
        labels = {d.key: d.label for d in datasets}

        def usable(frame: pd.DataFrame) -> pd.DataFrame:
            data = getattr(self, "data_source", None)  # None while the DataSource loads its first entry
            return check_fim_runs(frame, data.loading if data is not None else labels[source])

        self.data_source = DataSource(
            datasets, value=source, upload=UPLOAD_FORMAT, read_upload=lambda files: read_runs_upload(*files[0]),
            multiple=False, upload_label="Upload runs CSV", validate=usable, messages=self.messages,
            description="Data", row_noun="runs")
        self.source, self.upload, self.notice = self.data_source.menu, self.data_source.upload, self.data_source.notice
        if self.data_source.frame is None and source == _CATALOGUE:  # the bundled measurements are missing
            reason = (self.data_source.error or "").split(";")[0]
            self.data_source.select(_SYNTHETIC)
            show_message(self.notice, f"The measured K-means dataset is not available ({reason}). Showing SYNTHETIC "
                                      "runs instead; measure a small sweep here or upload a CSV.", kind="warning")
        self.sweep = SweepButton(self.messages)
        self.measure, self.progress, self.measure_note = self.sweep.button, self.sweep.progress, self.sweep.note
        self.data_summary = widgets.HTML()

    def _build_fim_controls(self, features, model, alpha_init, epsilon, tau, max_iter, scale_utilization) -> None:
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

    def _build_view_controls(self) -> None:
        wide = {"description_width": "initial"}
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

    def _layout(self) -> list[widgets.Widget]:
        h = widgets.HTML
        return [
            widgets.HBox([self.data_source, self.measure]), self.progress, self.measure_note, self.data_summary,
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
        ]

    # ------------------------------------------------------------------ data
    def _take_runs(self, data: DataSource) -> None:
        """Use the runs of ``data``; refill the configuration, axes and fixed-value pickers."""
        # pandas deep-copies attrs (here the sidecar JSON: machine, method, design) in every
        # operation, which made one refit ~10x slower: keep them aside
        self.meta = dict(data.frame.attrs)
        self.runs = data.frame.copy()
        self.runs.attrs = {}
        configs, pairs = fim_views.data_choices(self.runs)
        with self._quietly():
            self.config.options = configs
            self.config.value = configs[-1][1]
            self.axes.options = pairs
            self.axes.value = pairs[0][1]  # I x K as in Fig. 10
            self.processes.value = int(min(self.runs["processes"].max(), self.processes.max))
        self._fill_fixed()
        self.data_summary.value = fim_views.data_summary_html(self.runs, self.meta, data.label)

    def _fill_fixed(self) -> None:
        options, middle = fim_views.fixed_choices(self.runs, self.axes.value)
        with self._quietly():
            self.fixed.options = options
            self.fixed.value = middle

    # ------------------------------------------------------------------ fitting
    def state(self, alpha: float | None = None) -> FiMState:
        """Return the view's state from the controls (slider values rounded); ``alpha`` None: calibrated.

        Parameters
        ----------
        alpha : float, optional
            An alpha to predict with; default None: the calibrated one.
        """
        return FiMState(
            runs=self.runs, features=self.features.value, model=self.model.value,
            alpha_init=rounded(self.alpha_init.value, 4), epsilon=rounded(self.epsilon.value, 3),
            tau=rounded(self.tau.value, 3), max_iter=int(self.max_iter.value),
            scale_utilization=bool(self.scale_u.value), alpha=alpha, config=self.config.value,
            processes=int(self.processes.value), variable=self.variable.value, axes=self.axes.value,
            fixed=self.fixed.value, surface_view=self.surface_view.value)

    def parameters(self) -> dict:
        """FiMCal parameters from the controls (slider values rounded, max_iter capped)."""
        return fim_views.fim_parameters(self.state())

    @property
    def fim_name(self) -> str:
        """The FiM variant chosen (model and features), for titles."""
        return self.state().fim_name

    def _refresh(self) -> None:
        """Fit (or reuse the cached fit), then refresh every panel."""
        start = time.perf_counter()
        state = self.state()
        if fim_views.fit_key(state) == self._fit_key:
            state = self.state(alpha=rounded(self.alpha.value, 6))  # the same calibration: keep the user's alpha
        panels = fim_views.fim_view(state, self._cache)
        if panels.fit_key != self._fit_key and panels.calibrated_alpha is not None:  # predict with the new alpha
            with self._quietly():
                self.alpha.max = max(3.0, float(math.ceil(2 * panels.calibrated_alpha)))
                self.alpha.value = panels.calibrated_alpha
        self._fit_key = panels.fit_key
        self.panels_shown, self.experiment, self.comparison = panels, panels.experiment, panels.comparison
        for name, fig in panels.figures.items():
            self._show(name, getattr(self, f"{name}_out"), fig)
        self.table4.value = frame_html(panels.table4_table,
                                       "Paper Table 4 (K-means row) beside ours (the test runs measured here)")
        self.markov_readout.value = readout_html(panels.markov_rows) if panels.markov_rows else ""
        show_message(self.notes, panels.notes, kind=panels.notes_kind)
        self.last_update_s = time.perf_counter() - start
        timing = {"fit + redraw": f"{self.last_update_s * 1000:.0f} ms"}
        self.summary.value = readout_html({**panels.summary_rows, **timing})
        self.figure.update(panels.calibration)
        self.prediction.update(panels.prediction)
        self.last_update_s = time.perf_counter() - start

    # ---------------------------------------------------------------- handlers
    @property
    def panels(self) -> tuple:
        """Every panel that shows a result of the data and the controls."""
        return (self.figure, self.prediction, self.parity_out, self.table4_out, self.surface_out, self.heatmap_out,
                self.occupancy_out, self.summary, self.table4, self.markov_readout, self.notes)

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

    def _on_data(self, data: DataSource) -> None:
        """Refit on new runs (chosen, uploaded or measured); runs that cannot be fitted mark the panels stale."""
        self._data_ok = False
        with show_errors(self.messages):
            self._take_runs(data)
            self._refresh()
            self._data_ok = True
        if not self._data_ok:
            for panel in self.panels:
                mark_stale(panel, "the new data could not be fitted with these settings (see the message above): "
                                  "change a setting or choose other data")

    def load_csv(self, name: str, content: bytes) -> bool:
        """Use an uploaded CSV of measured runs.

        True on success, else the error is shown in :attr:`messages` (with what the
        dashboard expects) and the previous data stay selected.

        Parameters
        ----------
        name : str
            The uploaded file's name.
        content : bytes
            Its content.
        """
        return self.data_source.load_files([(name, content)]) and self._data_ok

    def show_measurement_state(self) -> dict | None:
        """Say in :attr:`measure_note` whether a measurement is running here (see :class:`SweepButton`)."""
        return self.sweep.show_state()

    def run_sweep(self, plan=SMALL_SWEEP) -> bool:
        """Measure ``plan`` here with a progress bar (removed when measuring ends), then use it; True on success.

        Refused (a red message) while another measurement runs on this machine.

        Parameters
        ----------
        plan : sequence of KMeansConfig, default SMALL_SWEEP
            The configurations measured.
        """
        frame = self.sweep.run(plan)
        if frame is None:
            return False
        label = f"small sweep measured here just now ({len(frame)} runs)"
        return self.data_source.add(_SWEEP, label, frame) and self._data_ok


class SweepButton(widgets.VBox):
    """The button that measures a small K-means sweep here, with its progress bar and note.

    The note says whether a measurement is running on this machine (this button's or
    another).  Shown as ``progress`` and ``note``; the dashboard places ``button`` beside its data
    menu.  Errors (perf missing, the measurement lock taken) go to ``messages``.

    Parameters
    ----------
    messages : ipywidgets.HTML
        The dashboard's error panel.
    """

    def __init__(self, messages: widgets.HTML):
        self.messages = messages
        self.button = widgets.Button(description="Measure a small sweep here (~20 s)", icon="play",
                                     layout=widgets.Layout(width="290px"))
        self.progress = widgets.Box()
        self.note = message_panel()  # "a measurement is running (...)" on this machine
        super().__init__([self.progress, self.note])

    def show_state(self) -> dict | None:
        """Say in :attr:`note` whether a measurement is running on this machine.

        This button's or another one (:func:`~workbench.measure.current_measurement`);
        returns its description or None.
        """
        info = current_measurement()
        if not info:
            show_message(self.note, None)
            return None
        parts = [str(info.get("what") or "a measurement")]
        if info.get("processes"):
            parts.append(f"{info['processes']} processes")
        started = str(info.get("started") or "")
        when = f" {started[11:16]}" if len(started) >= 16 else ""  # ISO time: the hour and minute
        parts.append(f"started{when} by {info.get('user') or 'another user'}")
        show_message(self.note, f"a measurement is running ({', '.join(parts)}): measuring here is "
                                "refused until it finishes, to keep both sets of timings clean; the data "
                                "below are not affected", kind="info")
        return info

    def run(self, plan=SMALL_SWEEP) -> pd.DataFrame | None:
        """Measure ``plan`` with a progress bar (removed when measuring ends).

        Returns the runs, or None after an error (shown in :attr:`messages`).

        Parameters
        ----------
        plan : sequence of KMeansConfig, default SMALL_SWEEP
            The configurations measured.
        """
        frame = None
        self.button.disabled = True
        bar = tqdm_notebook(total=sum(len(c.processes) for c in plan), desc="measuring", display=False)
        self.progress.children = [bar.container]
        try:
            with show_errors(self.messages):
                frame = check_fim_runs(fim_sweep.measure_small_sweep(bar, plan), "the small sweep")
        finally:
            bar.close()
            self.progress.children = ()  # no "measuring 0 %" bar left behind, whatever happened
            self.button.disabled = False
            self.show_state()
        return frame


def fim_dashboard(source: str = _CATALOGUE, **kwargs) -> FiMDashboard:
    """Build the FiM-Cal dashboard; display it as a cell's last expression.

    ``source``: ``"kmeans-fim"`` (default: the K-means runs measured on this machine) or
    ``"synthetic"``; ``runs=`` a runs frame of your own; other keyword arguments set the
    initial controls (``features``, ``model``, ``alpha_init``, ``epsilon``, ``tau``,
    ``max_iter``, ``scale_utilization``).

    Parameters
    ----------
    source : str, default "kmeans-fim"
        Initial data (see :class:`FiMDashboard`).
    **kwargs
        Further settings of :class:`FiMDashboard`.
    """
    return FiMDashboard(source=source, **kwargs)
