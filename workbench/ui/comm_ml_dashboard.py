"""Communication statistics and ML dashboard ([Branikas2024] chapters 4, 6-8).

Wiring only: the models are :mod:`workbench.models.comm.semi_empirical`,
:mod:`~workbench.models.comm.statistics` and :mod:`~workbench.models.comm.gbm`, the real-data
adapters and the training :mod:`workbench.evaluation.comm_ml`, the figures
:mod:`workbench.plots.comm_ml`, the panels of each section's state
:mod:`workbench.views.comm_ml`, the models' data menu
:class:`~workbench.ui.data_source.DataSource`.

Three sections:

* **Semi-empirical Exchange model** (chapter 6, on the thesis's Table 6.1): sliders for
  the size factor (**the primary slider**, 1/3 in the thesis) and the base time (µs at
  1 PpN and 4 KiB; 6.10 µs implied by Table 6.2).  The main live figure shows Fig. 6.4
  (measured vs model) and Fig. 6.5 (percentage error) and follows both sliders at once;
  below it Tables 6.3/6.4 recomputed with the same parameters, the thesis's
  inconsistencies in the ``discrepancy`` column.
* **Per-rank distributions** (chapter 4, our data-generator sweep ``comm-datagen-local``):
  group by a feature (Fig. 4.1's working-set size by default) among the runs that share
  every other setting with a chosen reference run; box plots with mean +- std, density
  histograms with the normal overlay, the mean +- std band and the statistics table
  (with the normality tests where the number of ranks allows).
* **Gradient boosting** (chapters 7-8): data source (our sweep, filtered by comm/total;
  or OSU broadcast latencies from the data mirror), scenario (message scale, train small
  / test big, main), search controls (candidates, folds, learning-rate and depth ranges,
  trees, test share, log target, seed).  **Train** runs in a background thread (one
  worker, the latest request wins, results cached per parameters) with a progress bar,
  so the page never freezes; then prediction vs actual coloured by a chosen feature,
  both importances, our metrics and the thesis's Tables 8.1/8.3/8.5 beside them.

Static panels are sent once the browser has drawn the main figure (see
:class:`~workbench.ui.fim_dashboard.FiMDashboard` for why).  Speed (this 2-core machine):
a slider move recomputes and sends the main figure in ~80 ms (``last_main_s``), all
semi-empirical panels in ~90 ms (``last_update_s``); in Voila, key press -> redrawn
figure takes 0.2-0.3 s, also while a training runs.  Training with the default search:
~4 s for our sweep's main scenario, ~7-10 s for OSU train small / test big, up to a
minute for OSU's main scenario (24 000 configurations).

Without the data generator sweep or the mirror the sections that need them say so; the
semi-empirical section always works (seed tables are bundled).
"""

from __future__ import annotations

import html
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go
from tqdm.notebook import tqdm as tqdm_notebook

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.evaluation.comm_ml import SCENARIOS, load_datagen, model_frame, train_scenario
from workbench.io import fetch_dataset
from workbench.models.comm.gbm import ScenarioResult
from workbench.models.comm.semi_empirical import SIZE_FACTOR, TABLE_6_2_BASE_US
from workbench.models.comm.statistics import TIMERS
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
    update_figure_widget,
)
from workbench.ui.data_source import Dataset, DataSource
from workbench.views import comm_ml as views
from workbench.views.comm_ml import SCENARIO_LABELS, TrainRequest

__all__ = ["SOURCE_LABELS", "SCENARIO_LABELS", "TrainRequest", "CommMLDashboard", "comm_ml_dashboard"]

#: Data sources of the ML section.
SOURCE_LABELS = {"datagen": "our data generator sweep", "osu": "OSU broadcast (ORFEO)"}
_WIDE = {"description_width": "initial"}


class _Stale(Exception):
    """Raised from the progress callback to abort a training nobody waits for."""


def _range_slider(kind, description: str, value: tuple, lo: float, hi: float, step: float = 1):
    """Build a range slider of the search settings (applied on release)."""
    return kind(value=value, min=lo, max=hi, step=step, description=description, style=_WIDE,
                continuous_update=False, layout=widgets.Layout(width="420px"))


class _GradientBoosting:
    """The gradient-boosting section of :class:`CommMLDashboard` (a mixin of it).

    Data (a :class:`~workbench.ui.data_source.DataSource` of the available sources),
    scenario and search controls, **train** in a background thread (one worker, the latest
    request wins, results cached per :class:`TrainRequest`) with a progress bar, and the
    result's panels (:func:`workbench.views.comm_ml.training_view`), marked out of date
    when a setting changes.
    """

    def _build_training(self, frames: dict[str, pd.DataFrame], source: str | None, scenario: str) -> None:
        available = [s for s in SOURCE_LABELS if frames.get(s) is not None]
        if source is not None and source not in available:
            raise ValidationError(f"source {source!r} is not available; available: {available or 'none'}")
        if scenario not in SCENARIOS:
            raise ValidationError(f"scenario must be one of {SCENARIOS}, got {scenario!r}")
        self.ml_data = DataSource([Dataset(s, SOURCE_LABELS[s], lambda s=s: frames[s]) for s in available],
                                  value=source, messages=self.ml_messages, description="data")
        self.source = self.ml_data.menu
        self.source.disabled = not available
        self.scenario = widgets.Dropdown(options=[(SCENARIO_LABELS[s], s) for s in SCENARIOS], value=scenario,
                                         description="scenario", style=_WIDE, layout=widgets.Layout(width="420px"))
        self.fraction = _range_slider(widgets.FloatRangeSlider, "keep comm/total in (our sweep)", (0.1, 0.8), 0.0,
                                      1.0, 0.01)
        self.n_iter = slider("search candidates (n_iter)", 6, 1, 60, integer=True)
        self.cv = slider("cross-validation folds", 3, 2, 10, integer=True)
        self.learning_rate = _range_slider(widgets.FloatRangeSlider, "learning rate range", (0.03, 0.3), 0.01, 0.5,
                                           0.01)
        self.max_depth = _range_slider(widgets.IntRangeSlider, "max depth range", (2, 5), 1, 10)
        self.n_estimators = _range_slider(widgets.IntRangeSlider, "trees range", (100, 300), 20, 1000, 10)
        self.test_share = slider("test share (thesis 0.4)", 0.4, 0.1, 0.7, 0.05, readout_format=".2f")
        self.log_target = widgets.Checkbox(value=True, description="log target", indent=False)
        self.seed = widgets.BoundedIntText(value=0, min=0, max=2**31 - 1, description="seed", style=_WIDE,
                                           layout=widgets.Layout(width="160px"))
        self.train_button = widgets.Button(description="train", icon="play", button_style="primary",
                                           disabled=not available, layout=widgets.Layout(width="120px"))
        self.progress = widgets.Box()
        self.train_status = widgets.HTML(
            "<i>Choose the data and scenario, then press <b>train</b>: prediction vs actual and the feature "
            "importances appear below once the models are trained.</i>" if available else
            "<i>No data for the models: neither our data-generator sweep nor the OSU data are available.</i>")
        self.color_by = widgets.Dropdown(options=["subset"], value="subset", description="colour by", style=_WIDE)
        self.metrics = widgets.HTML()
        self.warnings_panel = message_panel()
        self._ml_out = {name: figure_widget(placeholder_figure(""), name=name, width=width)
                        for name, width in (("prediction", "55%"), ("importance", "45%"))}
        # hidden until the first training: no empty boxes, the status line says what to do
        self.ml_results = widgets.VBox([self.color_by, widgets.HBox(list(self._ml_out.values()))],
                                       layout=widgets.Layout(display="none"))
        self.train_button.on_click(self._on_train)
        self.color_by.observe(self._on_color, names="value")
        self.ml_data.on_change(self._on_source)
        for control in self._ml_controls:
            control.observe(self._on_ml_settings, names="value")
        self._on_source(None)

    def _training_section(self) -> list[widgets.Widget]:
        search = widgets.VBox([self.n_iter, self.cv, self.learning_rate, self.max_depth, self.n_estimators])
        setup = widgets.VBox([self.ml_data, self.scenario, self.fraction, self.test_share,
                              widgets.HBox([self.log_target, self.seed])])
        return [widgets.HBox([setup, search]),
                widgets.HBox([self.train_button, self.progress, self.train_status]), self.ml_messages,
                self.warnings_panel, self.ml_results, self.metrics]

    def request(self) -> TrainRequest:
        """Return the training the ML controls describe."""
        if not self.ml_data.key:
            raise ValidationError("no data for the models: neither our sweep nor the OSU data are available")
        lo, hi = self.fraction.value
        return TrainRequest(
            source=self.ml_data.key, scenario=self.scenario.value, low=round(lo, 2), high=round(hi, 2),
            test_size=round(float(self.test_share.value), 2), seed=int(self.seed.value), n_iter=int(self.n_iter.value),
            cv=int(self.cv.value), learning_rate=tuple(round(v, 3) for v in self.learning_rate.value),
            max_depth=tuple(int(v) for v in self.max_depth.value),
            n_estimators=tuple(int(v) for v in self.n_estimators.value), log_target=bool(self.log_target.value))

    def _frame(self, request: TrainRequest) -> pd.DataFrame:
        """Return the model frame of the request's source (our runs filtered at ``[low, high]``), cached."""
        key = (request.source, request.low, request.high) if request.source == "datagen" else (request.source,)
        if key not in self._frames:
            self._frames[key] = model_frame(request.source, self.ml_data.frame, request.low, request.high)
        return self._frames[key]

    def train(self, wait: bool = False, timeout: float | None = 300) -> None:
        """Start training the current request in the background.

        ``wait``: block until it is shown (tests and scripts).
        """
        ready = None
        with show_errors(self.ml_messages, stale=self.ml_panels if self.result is not None else ()):
            request = self.request()
            self._request = request
            frame = self._frame(request)
            total = request.n_iter * request.cv + 1
            per_model = 2 if request.scenario == "message_scale" else 1
            bar = tqdm_notebook(total=total * per_model, desc="training", display=False)
            self.progress.children = [bar.container]
            self.train_status.value = (f"<i>training on {len(frame)} rows"
                                       f"{html.escape(frame.attrs.get('filter', ''))} …</i>")
            ready = request, frame, bar
        if ready is None:
            return
        # submitted after the block above has cleared the message panel, so that an error
        # of a quick training is not wiped
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="comm-ml-train")
        self._future = self._executor.submit(self._run, *ready)
        if wait:
            self.wait_for_training(timeout)

    def wait_for_training(self, timeout: float | None = 300) -> None:
        """Block until the last requested training is shown."""
        if self._future is not None:
            self._future.result(timeout)

    def _run(self, request: TrainRequest, frame: pd.DataFrame, bar) -> None:
        """Training thread: fit (or reuse) the request's result, show it if still wanted."""
        start = time.perf_counter()

        def progress(done: int, total: int) -> None:
            if request != self._request:
                raise _Stale
            bar.update(done - bar.n)

        settings = {k: v for k, v in asdict(request).items() if k not in ("source", "scenario", "low", "high")}
        try:
            with show_errors(self.ml_messages, stale=self.ml_panels):
                result = self._results.get(request, lambda: train_scenario(
                    request.source, request.scenario, frame, progress=progress, **settings))
                if request != self._request:
                    return
                self._show_result(result, time.perf_counter() - start, request)
        except _Stale:
            pass
        finally:
            bar.close()

    def _show_result(self, result: ScenarioResult, seconds: float, request: TrainRequest | None = None) -> None:
        self.result = result
        self._shown_request, self._shown_seconds = request, seconds
        panels = views.training_view(views.TrainingState(result, seconds=seconds))
        with self._quietly():
            self.color_by.options = panels.color_options
            self.color_by.value = panels.color_by
        self.ml_results.layout.display = None  # shown before the figures are sent: drawn at the size shown
        self._show("prediction", self._ml_out["prediction"], panels.prediction)
        self._show("importance", self._ml_out["importance"], panels.importance)
        self.metrics.value = panels.metrics
        show_message(self.warnings_panel, panels.warnings, kind="info")
        self.train_status.value = panels.status

    def _on_color(self, change) -> None:
        if self._quiet or self.result is None:
            return
        with show_errors(self.ml_messages, stale=(self._ml_out["prediction"],)):
            self._show("prediction", self._ml_out["prediction"],
                       views.prediction_figure(self.result, self.color_by.value))

    def _on_train(self, _button) -> None:
        self.train()

    def _on_source(self, source: DataSource | None) -> None:
        self.fraction.disabled = self.ml_data.key != "datagen"
        if source is not None:
            self._on_ml_settings({"owner": self.source})

    @property
    def _ml_controls(self) -> tuple:
        """The controls a training depends on besides the data (the fields of :class:`TrainRequest`)."""
        return (self.scenario, self.fraction, self.n_iter, self.cv, self.learning_rate, self.max_depth,
                self.n_estimators, self.test_share, self.log_target, self.seed)

    @property
    def ml_panels(self) -> tuple:
        """The panels that show a training's result."""
        return (*self._ml_out.values(), self.metrics, self.warnings_panel)

    def _on_ml_settings(self, change) -> None:
        """Mark the result out of date when a setting of the models changed.

        The result on screen was trained on other data or settings, so it is marked out of
        date until **train** is pressed (shown again when the settings return to those it was
        trained with).
        """
        if self._quiet or self.result is None:
            return
        try:
            wanted = self.request()
        except ValidationError:
            wanted = None
        if wanted is not None and wanted == self._shown_request:
            if any(panel.stale for panel in self._ml_out.values()):
                with show_errors(self.ml_messages, stale=self.ml_panels):
                    self._show_result(self.result, self._shown_seconds, self._shown_request)
            return
        what = "the data changed" if change["owner"] in (self.source, self.fraction) else "the settings changed"
        for panel in self.ml_panels:
            mark_stale(panel, f"{what}: press train to retrain")
        self.train_status.value = (f"<span style='font-size:12px;color:#8a6d00'>{what} since the last training: "
                                   "press <b>train</b></span>")


class CommMLDashboard(_GradientBoosting, QuietChanges, NamedFigures, widgets.VBox):
    """The three sections of the module docstring; their panels come from :mod:`workbench.views.comm_ml`.

    Attributes: ``size_factor`` (primary slider), ``base_us``, ``reset`` (semi-empirical
    controls); ``figure`` (main LiveFigure, Figs. 6.4/6.5), ``table_6_3`` (HTML),
    ``semi_readout``; ``rank_by``, ``reference``, ``rank_value`` (per-rank controls) and
    the per-rank Outputs; ``ml_data`` (the models' DataSource), ``source`` (its menu),
    ``scenario``, ``fraction``, ``n_iter``, ``cv``, ``learning_rate``, ``max_depth``,
    ``n_estimators``, ``test_share``, ``log_target``, ``seed``, ``train_button``,
    ``color_by`` (ML controls); ``result`` (the last
    :class:`~workbench.models.comm.gbm.ScenarioResult` shown), ``figures`` (static
    figures by name), ``messages``, ``rank_messages``, ``ml_messages``, ``notice``;
    ``per_rank`` and ``osu`` (None when unavailable); ``last_main_s``, ``last_update_s``.

    Parameters
    ----------
    per_rank : pandas.DataFrame, optional
        Per-rank rows of your own; default: the catalogue's.
    osu : pandas.DataFrame, optional
        OSU latencies of your own; default: the catalogue's.
    source : str, optional
        Data of the models: ``"datagen"`` or ``"osu"``; default: the first available.
    scenario : str, default "train_small_test_big"
        The initial modelling scenario.
    """

    def __init__(self, per_rank: pd.DataFrame | None = None, osu: pd.DataFrame | None = None,
                 source: str | None = None, scenario: str = "train_small_test_big"):
        self.messages, self.rank_messages, self.ml_messages, self.notice = (message_panel() for _ in range(4))
        self.figures: dict[str, go.Figure] = {}
        self.result: ScenarioResult | None = None
        self._shown_request: TrainRequest | None = None  # the request whose result is on screen
        self._shown_seconds = float("nan")
        self.last_main_s = self.last_update_s = float("nan")
        self._executor: ThreadPoolExecutor | None = None
        self._future: Future | None = None
        self._request: TrainRequest | None = None
        self._results = FitCache(16)
        self._frames: dict[tuple, pd.DataFrame] = {}
        notes = []
        self.per_rank = per_rank if per_rank is not None else self._load(load_datagen, "our data-generator sweep "
                                                                          "(catalogue comm-datagen-local)", notes)
        self.osu = osu if osu is not None else self._load(lambda: fetch_dataset("osu-orfeo").frame,
                                                          "the OSU broadcast latencies (catalogue osu-orfeo)", notes)
        if notes:
            show_message(self.notice, "\n".join(notes), kind="warning")
        self._build_semi()
        self._build_ranks()
        self._build_training({"datagen": self.per_rank, "osu": self.osu}, source, scenario)
        with show_errors(self.rank_messages):
            self._rank_refresh()
        self._layout()

    def _layout(self) -> None:
        h = widgets.HTML
        super().__init__([
            self.notice,
            h("<h3>Semi-empirical Exchange model (thesis chapter 6)</h3>"),
            widgets.HBox([widgets.VBox([self.size_factor, self.base_us, self.reset]), self.semi_readout]),
            self.messages, self.figure,
            h("<h4>Tables 6.3/6.4 recomputed (32 MiB working set, 64 nodes, 32 iterations)</h4>"), self.table_6_3,
            h("<h3>Per-rank distributions of one configuration (thesis chapter 4)</h3>"),
            widgets.HBox([self.rank_by, self.rank_value]), self.reference, self.rank_messages,
            widgets.HBox([self._rank_out["box"], self._rank_out["density"]]), self._rank_out["band"], self.rank_table,
            h("<h3>Gradient-boosting models (thesis chapters 7-8)</h3>"),
            *self._training_section(),
        ])

    @staticmethod
    def _load(loader, what: str, notes: list[str]):
        try:
            return loader()
        except DatasetNotFoundError as exc:
            notes.append(f"{what} is unavailable, so the sections using it are empty: {str(exc).split(';')[0]}.")
            return None

    # ------------------------------------------------------------------ semi-empirical
    def _build_semi(self) -> None:
        self.size_factor = slider("size factor (thesis: 1/3)", SIZE_FACTOR, 0.05, 1.0, 0.01, primary=True,
                                  readout_format=".3f")
        self.base_us = slider("base time at 1 PpN, 4 KiB [µs]", TABLE_6_2_BASE_US, 1.0, 50.0, log=True)
        self.reset = widgets.Button(description="thesis values", icon="undo", layout=widgets.Layout(width="150px"),
                                    tooltip="size factor 1/3, base time 6.10 µs (implied by Table 6.2)")
        self.semi_readout, self.table_6_3 = widgets.HTML(), widgets.HTML()
        main = None
        with show_errors(self.messages):
            main = self._semi_refresh(initial=True)
        self.figure = figure_widget(main if main is not None else placeholder_figure("No semi-empirical model"),
                                    primary=True)
        self.size_factor.observe(self._on_semi, names="value")
        self.base_us.observe(self._on_semi, names="value")
        self.reset.on_click(self._on_reset)

    def semi_parameters(self) -> tuple[float, float]:
        """``(base_us, size_factor)`` from the sliders, rounded to 4 significant digits."""
        return rounded(self.base_us.value, 4), rounded(self.size_factor.value, 4)

    def _semi_refresh(self, initial: bool = False) -> go.Figure:
        start = time.perf_counter()
        base, factor = self.semi_parameters()
        panels = views.semi_empirical_view(views.SemiEmpiricalState(base_us=base, size_factor=factor))
        if not initial:
            update_figure_widget(self.figure, panels.main)
        self.last_main_s = time.perf_counter() - start
        self.table_6_3.value = panels.table_6_3
        self.last_update_s = time.perf_counter() - start
        self.semi_readout.value = readout_html({
            **panels.readout_rows,
            "redraw": f"main figure {self.last_main_s * 1000:.0f} ms, all panels {self.last_update_s * 1000:.0f} ms"})
        return panels.main

    @property
    def semi_panels(self) -> tuple:
        """The panels of the semi-empirical model."""
        return (self.figure, self.table_6_3, self.semi_readout)

    def _on_semi(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.messages, stale=self.semi_panels):
            self._semi_refresh()

    def _on_reset(self, _button=None) -> None:
        with self._quietly():
            self.size_factor.value = SIZE_FACTOR
            self.base_us.value = TABLE_6_2_BASE_US
        with show_errors(self.messages, stale=self.semi_panels):
            self._semi_refresh()

    # ------------------------------------------------------------------ per-rank
    def _build_ranks(self) -> None:
        varying = views.varying_features(self.per_rank)
        self.rank_by = widgets.Dropdown(options=varying or ["(no data)"], description="group by", style=_WIDE,
                                        value="wss_bytes" if "wss_bytes" in varying else (varying or ["(no data)"])[0],
                                        disabled=not varying)
        runs = views.run_options(self.per_rank, varying)
        self.reference = widgets.Dropdown(options=runs or [("(no data)", -1)], description="other settings as in",
                                          style=_WIDE, layout=widgets.Layout(width="640px"), disabled=not runs)
        self.rank_value = widgets.ToggleButtons(options=list(TIMERS), value="comm_s", description="timer",
                                                disabled=not varying, style={**_WIDE, "button_width": "80px"})
        self.rank_table = widgets.HTML()
        self._rank_out = {name: figure_widget(placeholder_figure(""), name=name, width=width)
                          for name, width in (("box", "50%"), ("density", "50%"), ("band", "100%"))}
        for control in (self.rank_by, self.reference, self.rank_value):
            control.observe(self._on_rank, names="value")

    def _rank_state(self) -> views.RankState:
        return views.RankState(self.per_rank, self.rank_by.value, self.reference.value, self.rank_value.value)

    def selected_ranks(self) -> pd.DataFrame:
        """Return the per-rank rows of the runs that differ from the reference run only in the group-by feature.

        See :func:`workbench.views.comm_ml.selected_ranks`.
        """
        return views.selected_ranks(self._rank_state())

    def _rank_refresh(self) -> None:
        if self.per_rank is None:
            self.rank_table.value = "<i>No per-rank data.</i>"
            return
        panels = views.rank_view(self._rank_state())
        for name, panel in self._rank_out.items():
            self._show(name, panel, getattr(panels, name))
        self.rank_table.value = panels.table

    def _on_rank(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.rank_messages, stale=(*self._rank_out.values(), self.rank_table)):
            self._rank_refresh()


def comm_ml_dashboard(**kwargs) -> CommMLDashboard:
    """Build the communication statistics and ML dashboard; display it as a cell's last expression.

    Keyword arguments: ``per_rank`` / ``osu`` (frames of your own instead of the
    catalogue's), ``source`` (``"datagen"`` or ``"osu"``), ``scenario``.

    Parameters
    ----------
    **kwargs
        Settings of :class:`CommMLDashboard` (``per_rank``, ``osu``, ``source``, ``scenario``).
    """
    return CommMLDashboard(**kwargs)
