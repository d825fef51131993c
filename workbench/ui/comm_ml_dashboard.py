"""Communication statistics and ML dashboard (Branikas 2024, seed 004, chapters 4, 6-8).

Wiring only: the models are :mod:`workbench.models.comm.semi_empirical`,
:mod:`~workbench.models.comm.statistics` and :mod:`~workbench.models.comm.gbm`, the real-data
adapters :mod:`workbench.evaluation.comm_ml`, the figures :mod:`workbench.plots.comm_ml`.

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
from dataclasses import dataclass

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go
from tqdm.notebook import tqdm as tqdm_notebook

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.evaluation.comm_ml import (
    SCENARIOS,
    build_scenario,
    compare_with_tables8,
    datagen_runs,
    load_datagen,
    osu_bcast_configurations,
    reproduce_table_6_1,
    source_features,
    table_6_3_check,
)
from workbench.io import fetch_dataset
from workbench.models.comm.gbm import CommGBM, ScenarioResult, run_scenario
from workbench.models.comm.semi_empirical import SIZE_FACTOR, TABLE_6_2_BASE_US
from workbench.models.comm.statistics import RUN_FEATURES, TIMERS, rank_statistics, runs_varying
from workbench.plots.comm_ml import (
    importance_figure,
    mean_std_band_figure,
    prediction_vs_actual_figure,
    rank_box_figure,
    rank_density_figure,
    semi_empirical_figure,
    value_label,
)
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
    update_figure_widget,
)

__all__ = ["SOURCE_LABELS", "SCENARIO_LABELS", "TrainRequest", "CommMLDashboard", "comm_ml_dashboard"]

#: Data sources of the ML section.
SOURCE_LABELS = {"datagen": "our data generator sweep", "osu": "OSU broadcast (ORFEO)"}
#: Scenario names shown for the seed-table names (004 section 7.3).
SCENARIO_LABELS = {"message_scale": "message scale (Table 8.1)",
                   "train_small_test_big": "train small / test big (Table 8.3)", "main": "main (Table 8.5)"}
_UNITS = {"comm_s": "[s]", "latency_us": "[µs]"}
_TABLE_6_3_COLUMNS = {"message_size_bytes": "size", "processes_per_node": "PpN", "datagen_s": "data gen. [s]",
                      "published_prediction_s": "printed pred. [s]", "formula_prediction_s": "formula [s]",
                      "formula_percentage_error": "formula error [%]",
                      "published_exchange_x32_s": "printed 32×Exch. [s]",
                      "exchange_x32_s": "32×Table 6.1 [s]", "discrepancy": "discrepancy"}


class _Stale(Exception):
    """Raised from the progress callback to abort a training nobody waits for."""


@dataclass(frozen=True)
class TrainRequest:
    """Everything a training depends on (compared to skip stale work, cache key)."""

    source: str
    scenario: str
    low: float
    high: float
    test_size: float
    seed: int
    n_iter: int
    cv: int
    learning_rate: tuple[float, float]
    max_depth: tuple[int, int]
    n_estimators: tuple[int, int]
    log_target: bool


class CommMLDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """The three sections of the module docstring.

    Attributes: ``size_factor`` (primary slider), ``base_us``, ``reset`` (semi-empirical
    controls); ``figure`` (main LiveFigure, Figs. 6.4/6.5), ``table_6_3`` (HTML),
    ``semi_readout``; ``rank_by``, ``reference``, ``rank_value`` (per-rank controls) and
    the per-rank Outputs; ``source``, ``scenario``, ``fraction``, ``n_iter``, ``cv``,
    ``learning_rate``, ``max_depth``, ``n_estimators``, ``test_share``, ``log_target``,
    ``seed``, ``train_button``, ``color_by`` (ML controls); ``result`` (the last
    :class:`~workbench.models.comm.gbm.ScenarioResult` shown), ``figures`` (static
    figures by name), ``messages``, ``rank_messages``, ``ml_messages``, ``notice``;
    ``per_rank`` and ``osu`` (None when unavailable); ``last_main_s``, ``last_update_s``.
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
        wide = {"description_width": "initial"}

        # -- semi-empirical -------------------------------------------------------------
        self.size_factor = slider("size factor (thesis: 1/3)", SIZE_FACTOR, 0.05, 1.0, 0.01, primary=True,
                                  readout_format=".3f")
        self.base_us = slider("base time at 1 PpN, 4 KiB [µs]", TABLE_6_2_BASE_US, 1.0, 50.0, log=True)
        self.reset = widgets.Button(description="thesis values", icon="undo", layout=widgets.Layout(width="150px"),
                                    tooltip="size factor 1/3, base time 6.10 µs (implied by Table 6.2)")
        self.semi_readout = widgets.HTML()
        self.table_6_3 = widgets.HTML()
        main = None
        with show_errors(self.messages):
            main = self._semi_refresh(initial=True)
        self.figure = figure_widget(main if main is not None else placeholder_figure("No semi-empirical model"),
                                    primary=True)
        self.size_factor.observe(self._on_semi, names="value")
        self.base_us.observe(self._on_semi, names="value")
        self.reset.on_click(self._on_reset)

        # -- per-rank -------------------------------------------------------------------
        varying = self._varying_features()
        self.rank_by = widgets.Dropdown(options=varying or ["(no data)"], description="group by", style=wide,
                                        value="wss_bytes" if "wss_bytes" in varying else (varying or ["(no data)"])[0],
                                        disabled=not varying)
        runs = self._run_options(varying)
        self.reference = widgets.Dropdown(options=runs or [("(no data)", -1)], description="other settings as in",
                                          style=wide, layout=widgets.Layout(width="640px"), disabled=not runs)
        self.rank_value = widgets.ToggleButtons(options=list(TIMERS), value="comm_s", description="timer",
                                                disabled=not varying, style={**wide, "button_width": "80px"})
        self.rank_table = widgets.HTML()
        self._rank_out = {name: figure_widget(placeholder_figure(""), name=name, width=width)
                          for name, width in (("box", "50%"), ("density", "50%"), ("band", "100%"))}
        for control in (self.rank_by, self.reference, self.rank_value):
            control.observe(self._on_rank, names="value")

        # -- gradient boosting ----------------------------------------------------------
        available = [s for s in SOURCE_LABELS if (self.per_rank if s == "datagen" else self.osu) is not None]
        if source is not None and source not in available:
            raise ValidationError(f"source {source!r} is not available; available: {available or 'none'}")
        if scenario not in SCENARIOS:
            raise ValidationError(f"scenario must be one of {SCENARIOS}, got {scenario!r}")
        self.source = widgets.ToggleButtons(options=[(SOURCE_LABELS[s], s) for s in available] or [("no data", "")],
                                            value=source or (available[0] if available else ""), description="data",
                                            style={**wide, "button_width": "210px"}, disabled=not available)
        self.scenario = widgets.Dropdown(options=[(SCENARIO_LABELS[s], s) for s in SCENARIOS], value=scenario,
                                         description="scenario", style=wide, layout=widgets.Layout(width="420px"))
        self.fraction = widgets.FloatRangeSlider(value=(0.1, 0.8), min=0.0, max=1.0, step=0.01,
                                                 description="keep comm/total in (our sweep)", style=wide,
                                                 continuous_update=False, layout=widgets.Layout(width="420px"))
        self.n_iter = slider("search candidates (n_iter)", 6, 1, 60, integer=True)
        self.cv = slider("cross-validation folds", 3, 2, 10, integer=True)
        self.learning_rate = widgets.FloatRangeSlider(value=(0.03, 0.3), min=0.01, max=0.5, step=0.01,
                                                      description="learning rate range", style=wide,
                                                      continuous_update=False, layout=widgets.Layout(width="420px"))
        self.max_depth = widgets.IntRangeSlider(value=(2, 5), min=1, max=10, description="max depth range",
                                                style=wide, continuous_update=False,
                                                layout=widgets.Layout(width="420px"))
        self.n_estimators = widgets.IntRangeSlider(value=(100, 300), min=20, max=1000, step=10,
                                                   description="trees range", style=wide, continuous_update=False,
                                                   layout=widgets.Layout(width="420px"))
        self.test_share = slider("test share (thesis 0.4)", 0.4, 0.1, 0.7, 0.05, readout_format=".2f")
        self.log_target = widgets.Checkbox(value=True, description="log target", indent=False)
        self.seed = widgets.BoundedIntText(value=0, min=0, max=2**31 - 1, description="seed", style=wide,
                                           layout=widgets.Layout(width="160px"))
        self.train_button = widgets.Button(description="train", icon="play", button_style="primary",
                                           disabled=not available, layout=widgets.Layout(width="120px"))
        self.progress = widgets.Box()
        self.train_status = widgets.HTML("<i>Choose the data and scenario, then press <b>train</b>.</i>"
                                         if available else "<i>No data for the models.</i>")
        self.color_by = widgets.Dropdown(options=["subset"], value="subset", description="colour by", style=wide)
        self.metrics = widgets.HTML()
        self.warnings_panel = message_panel()
        self._ml_out = {name: figure_widget(placeholder_figure(""), name=name, width=width)
                        for name, width in (("prediction", "55%"), ("importance", "45%"))}
        self.train_button.on_click(self._on_train)
        self.color_by.observe(self._on_color, names="value")
        self.source.observe(self._on_source, names="value")
        for control in self._ml_controls:
            control.observe(self._on_ml_settings, names="value")
        self._on_source(None)
        with show_errors(self.rank_messages):
            self._rank_refresh()

        h = widgets.HTML
        search = widgets.VBox([self.n_iter, self.cv, self.learning_rate, self.max_depth, self.n_estimators])
        setup = widgets.VBox([self.source, self.scenario, self.fraction, self.test_share,
                              widgets.HBox([self.log_target, self.seed])])
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
            widgets.HBox([setup, search]),
            widgets.HBox([self.train_button, self.progress, self.train_status]), self.ml_messages,
            self.warnings_panel, self.color_by,
            widgets.HBox([self._ml_out["prediction"], self._ml_out["importance"]]), self.metrics,
        ])

    # ------------------------------------------------------------------ data
    @staticmethod
    def _load(loader, what: str, notes: list[str]):
        try:
            return loader()
        except DatasetNotFoundError as exc:
            notes.append(f"{what} is unavailable, so the sections using it are empty: {str(exc).split(';')[0]}.")
            return None

    def _varying_features(self) -> list[str]:
        if self.per_rank is None:
            return []
        return [c for c in RUN_FEATURES if c in self.per_rank.columns and self.per_rank[c].nunique() > 1]

    def _run_options(self, varying: list[str]) -> list[tuple[str, int]]:
        if self.per_rank is None:
            return []
        runs = self.per_rank.groupby("run_id", sort=True)[varying].first()
        return [(f"run {rid}: " + ", ".join(f"{c} = {value_label(c, row[c])}" for c in varying), rid)
                for rid, row in runs.iterrows()]

    def _frame(self, source: str, low: float, high: float) -> pd.DataFrame:
        """The model frame of a source (datagen runs filtered at ``[low, high]``)."""
        key = (source, low, high) if source == "datagen" else (source,)
        if key not in self._frames:
            if source == "datagen":
                frame, report = datagen_runs(self.per_rank, low, high)
                if frame.empty:
                    raise ValidationError(f"no runs left for the models: {report}")
                frame.attrs["filter"] = f" ({report})"
            else:
                frame = osu_bcast_configurations(self.osu)
            self._frames[key] = frame
        return self._frames[key]

    # ------------------------------------------------------------------ semi-empirical
    def semi_parameters(self) -> tuple[float, float]:
        """``(base_us, size_factor)`` from the sliders, rounded to 4 significant digits."""
        return rounded(self.base_us.value, 4), rounded(self.size_factor.value, 4)

    def _semi_refresh(self, initial: bool = False) -> go.Figure | None:
        start = time.perf_counter()
        base, factor = self.semi_parameters()
        table = reproduce_table_6_1(base_us=base, size_factor=factor)
        fig = semi_empirical_figure(table)
        if not initial:
            update_figure_widget(self.figure, fig)
        self.last_main_s = time.perf_counter() - start
        check = table_6_3_check(base_us=base, size_factor=factor)
        shown = check[list(_TABLE_6_3_COLUMNS)].rename(columns=_TABLE_6_3_COLUMNS)
        shown["size"] = [value_label("bytes", s).replace(" ", "\u00a0") for s in check["message_size_bytes"]]
        self.table_6_3.value = frame_html(shown, "Printed values vs recomputed; a non-empty discrepancy names what "
                                                 "differs (the thesis's known inconsistencies are not fitted)")
        err = table["percentage_error"]
        self.last_update_s = time.perf_counter() - start
        self.semi_readout.value = readout_html({
            "model": f"time = PpN × {factor:g} × (size / 4 KiB) × {base:.4g} µs",
            "error on Table 6.1 (thesis sign)": f"{err.min():+.1f} … {err.max():+.1f} %, mean |error| "
                                                f"{err.abs().mean():.1f} %",
            "Table 6.3 with this formula": f"{check['formula_percentage_error'].min():.1f} … "
                                           f"{check['formula_percentage_error'].max():.1f} % (data generator under-"
                                           "predicted)",
            "redraw": f"main figure {self.last_main_s * 1000:.0f} ms, all panels {self.last_update_s * 1000:.0f} ms",
        })
        return fig

    @property
    def semi_panels(self) -> tuple:
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
    def selected_ranks(self) -> pd.DataFrame:
        """Per-rank rows of the runs that share every setting not linked to the
        group-by feature with the reference run (:func:`runs_varying`)."""
        if self.per_rank is None:
            raise ValidationError("no per-rank data: our data-generator sweep (comm-datagen-local) is unavailable")
        return runs_varying(self.per_rank, self.rank_by.value, self.reference.value)

    def _rank_refresh(self) -> None:
        if self.per_rank is None:
            self.rank_table.value = "<i>No per-rank data.</i>"
            return
        ranks = self.selected_ranks()
        by, value = self.rank_by.value, self.rank_value.value
        stats = rank_statistics(ranks, by=by, value=value)
        runs = ranks["run_id"].nunique()
        title = f"{runs} run{'s' if runs > 1 else ''}, {len(ranks)} rank times"
        self._show("box", self._rank_out["box"], rank_box_figure(ranks, by, value, title=f"Per-rank {value} by {by} "
                                                                 f"({title})"))
        self._show("density", self._rank_out["density"], rank_density_figure(ranks, by, value))
        self._show("band", self._rank_out["band"], mean_std_band_figure(stats, by, value_label_text=value))
        shown = stats.copy()
        shown[by] = [value_label(by, v) for v in shown[by]]
        self.rank_table.value = frame_html(shown, f"Per-rank statistics of {value} (a small p-value rejects "
                                                  "normality)")

    def _on_rank(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.rank_messages, stale=(*self._rank_out.values(), self.rank_table)):
            self._rank_refresh()

    # ------------------------------------------------------------------ gradient boosting
    def request(self) -> TrainRequest:
        """The training the ML controls describe."""
        if not self.source.value:
            raise ValidationError("no data for the models: neither our sweep nor the OSU data are available")
        lo, hi = self.fraction.value
        return TrainRequest(
            source=self.source.value, scenario=self.scenario.value, low=round(lo, 2), high=round(hi, 2),
            test_size=round(float(self.test_share.value), 2), seed=int(self.seed.value), n_iter=int(self.n_iter.value),
            cv=int(self.cv.value), learning_rate=tuple(round(v, 3) for v in self.learning_rate.value),
            max_depth=tuple(int(v) for v in self.max_depth.value),
            n_estimators=tuple(int(v) for v in self.n_estimators.value), log_target=bool(self.log_target.value))

    def train(self, wait: bool = False, timeout: float | None = 300) -> None:
        """Start training the current request in the background (``wait``: block until
        it is shown; tests and scripts)."""
        ready = None
        with show_errors(self.ml_messages, stale=self.ml_panels if self.result is not None else ()):
            request = self.request()
            self._request = request
            frame = self._frame(request.source, request.low, request.high)
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

        try:
            with show_errors(self.ml_messages, stale=self.ml_panels):
                result = self._results.get(request, lambda: self._fit(request, frame, progress))
                if request != self._request:
                    return
                self._show_result(result, time.perf_counter() - start, request)
        except _Stale:
            pass
        finally:
            bar.close()

    @staticmethod
    def _fit(request: TrainRequest, frame: pd.DataFrame, progress) -> ScenarioResult:
        features, target = source_features(request.source)
        scenario = build_scenario(request.source, request.scenario, frame, test_size=request.test_size,
                                  seed=request.seed)
        estimator = CommGBM(n_iter=request.n_iter, cv=request.cv, learning_rate=request.learning_rate,
                            max_depth=request.max_depth, n_estimators=request.n_estimators,
                            log_target=request.log_target, random_state=request.seed)
        return run_scenario(frame, scenario, features=features, target=target, estimator=estimator, progress=progress)

    def _show_result(self, result: ScenarioResult, seconds: float, request: TrainRequest | None = None) -> None:
        self.result = result
        self._shown_request, self._shown_seconds = request, seconds
        options = ["subset", *result.features, "error_pct"]
        # the thesis colours train small / test big by nodes (Fig. 8.3), the others by message size
        sizes = next((c for c in ("message_bytes", "size_bytes") if c in options), "subset")
        wanted = result.column if result.scenario == "train_small_test_big" and result.column in options else sizes
        with self._quietly():
            self.color_by.options = options
            self.color_by.value = wanted
        self._draw_prediction()
        self._show("importance", self._ml_out["importance"], importance_figure(result.importances))
        ours = result.metrics.drop(columns=["scenario", "published_subset"])
        compared = compare_with_tables8(result.metrics)
        fit = ", ".join(f"{m}: {s:.1f} s" for m, s in result.fit_seconds.items())
        params = "; ".join(f"{m}: " + ", ".join(f"{k} = {v:.3g}" if isinstance(v, float) else f"{k} = {v}"
                                                 for k, v in p.items()) for m, p in result.best_params.items())
        self.metrics.value = (
            frame_html(ours, f"Our test metrics ({result.description}; RMSE in {result.target}, MAPE in % and as "
                             "a fraction, MPE > 0 = over-prediction)")
            + frame_html(compared, "Beside the thesis (Tables 8.1/8.3/8.5: ARIS data generator, RMSE in s, MAPE "
                                   "as a fraction; only R2 and MAPE compare across data)")
            + f"<p style='font-size:12px'>best parameters: {html.escape(params)}<br>search + refit: "
              f"{html.escape(fit)}</p>")
        show_message(self.warnings_panel, "\n".join(result.warnings), kind="info")
        self.train_status.value = (f"<span style='font-size:12px;color:#555'>{SCENARIO_LABELS[result.scenario]} "
                                   f"trained in {seconds:.1f} s</span>")

    def _draw_prediction(self) -> None:
        result = self.result
        if result is None:
            return
        self._show("prediction", self._ml_out["prediction"], prediction_vs_actual_figure(
            result.predictions, self.color_by.value, unit=_UNITS.get(result.target, ""),
            title=f"{SCENARIO_LABELS[result.scenario]}: predicted vs actual {result.target}"))

    def _on_color(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.ml_messages, stale=(self._ml_out["prediction"],)):
            self._draw_prediction()

    def _on_train(self, _button) -> None:
        self.train()

    def _on_source(self, change) -> None:
        self.fraction.disabled = self.source.value != "datagen"

    @property
    def _ml_controls(self) -> tuple:
        """The controls a training depends on (the fields of :class:`TrainRequest`)."""
        return (self.source, self.scenario, self.fraction, self.n_iter, self.cv, self.learning_rate, self.max_depth,
                self.n_estimators, self.test_share, self.log_target, self.seed)

    @property
    def ml_panels(self) -> tuple:
        """The panels that show a training's result."""
        return (*self._ml_out.values(), self.metrics, self.warnings_panel)

    def _on_ml_settings(self, change) -> None:
        """A setting of the models changed: the result on screen was trained on other data or
        settings, so it is marked out of date until **train** is pressed (shown again when the
        settings return to those it was trained with)."""
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


def comm_ml_dashboard(**kwargs) -> CommMLDashboard:
    """Build the communication statistics and ML dashboard; display it as a cell's last
    expression.  Keyword arguments: ``per_rank`` / ``osu`` (frames of your own instead of
    the catalogue's), ``source`` (``"datagen"`` or ``"osu"``), ``scenario``."""
    return CommMLDashboard(**kwargs)
