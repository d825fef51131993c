""""Predict my runs": how long will my job take on n processes (nodes, GPUs), and how far
can I trust that?  Notebook 00, the first dashboard a user sees.

Wiring only: the predictor is :class:`workbench.models.scaling.ScalingPredictor`, the data
:class:`~workbench.ui.data_picker.DataPicker` (bundled example, NPB logs, the 152-curve
scaling corpus, uploads), figures and tables :mod:`workbench.plots.scaling`.

* **Predict** view: the target allocation (primary slider, log scale), the interval level
  and the models to draw; one live figure (runtime vs allocation, log-log); readouts of
  the prediction at the target, the model weights, the warnings in words, the held-back
  runs against the prediction and "where to measure next"
  (:meth:`~workbench.models.scaling.ScalingPredictor.measurement_value`).
* **Benchmark leaderboard** view (built when first opened): the overall leaderboard
  aggregated from the per-curve file of ``tools/scaling_benchmark.py`` and a per-curve
  drill-down: the curve's metrics and, with the real-data mirror, the curve refitted under
  protocol k3/k4/spread, drawn with the same figure function .

Fits are cached per (data, observed runs); curves per level; "where to measure next"
(~0.5-1 s, refits) per target, computed after the figure is sent.  An error shows a red
message; the figure is then replaced by a placeholder (the fit failed) or its title says
it was not updated (an upload failed and the previous data stay selected).
"""

from __future__ import annotations

import html
import math
import time
import warnings
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DataFormatError, DatasetNotFoundError, ParseWarning
from workbench.evaluation.scaling_benchmark import PROTOCOLS
from workbench.io import curves_from_scaling_frame, fetch_dataset, fetch_npb_pi_cluster
from workbench.models.scaling import MODELS, ScalingPredictor
from workbench.plots.scaling import (
    MODEL_LABELS, allocation_grid, format_leaderboard, format_seconds, holdout_frame,
    measure_next_html, prediction_curves, prediction_figure, protocol_figure, warnings_html, weights_frame,
    weights_html,
)
from workbench.ui.common import (
    ERROR_CLASS, FitCache, QuietChanges, NamedFigures, figure_widget, frame_html, message_panel,
    placeholder_figure, readout_html, rounded, show_errors, show_message, slider, update_figure_widget,
)
from workbench.ui.data_picker import DataPicker

__all__ = ["BENCHMARK_CSV", "PredictDashboard", "curve_unit", "predict_dashboard"]

#: Per-curve results of ``tools/scaling_benchmark.py``.
BENCHMARK_CSV = Path(__file__).resolve().parents[2] / "bench" / "results" / "scaling_curves.csv"
HOW_TO_BENCH = ("WORKBENCH_DATA_MIRROR=../shared/data .venv/bin/python tools/scaling_benchmark.py "
                "(writes bench/results/scaling_curves.csv and scaling_leaderboard.csv)")
DEFAULT_CURVE = ("GROMACS 2021.5 on ARCHER2", "archer2-gromacs-benchpep-ofi-1thr")


def curve_unit(frame: pd.DataFrame, curve_key: tuple) -> str:
    """What n counts in the selected curve: the ``unit`` column (scaling corpus), else processes."""
    if "unit" not in frame.columns:
        return "processes"
    sel = frame.loc[(frame["benchmark"] == curve_key[0]) & (frame["problem_class"] == curve_key[1]), "unit"]
    return str(sel.iloc[0]) if len(sel) else "processes"


def benchmark_curves() -> pd.DataFrame:
    """The benchmark's curves (scaling corpus and Pi-cluster NPB curves with >= 4 allocations,
    as ``tools/scaling_benchmark.py`` reads them); needs the real-data mirror."""
    corpus = fetch_dataset("scaling-corpus").frame
    with warnings.catch_warnings():  # aborted NPB logs are skipped, as by the benchmark
        warnings.simplefilter("ignore", ParseWarning)
        npb = curves_from_scaling_frame(fetch_npb_pi_cluster().frame, source="npb-pi-cluster", min_points=4)
    return pd.concat([corpus, npb], ignore_index=True)


class PredictDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Attributes: ``picker``, ``target`` (primary slider), ``level``, ``model_boxes`` (name ->
    Checkbox), ``view``; ``figure`` (main LiveFigure); ``readout``, ``target_table``,
    ``warnings``, ``weights``, ``next``, ``holdout`` (HTML); ``messages``; ``predictor`` and
    ``frame`` (the fit and ``predict_frame`` row of the target; None after a failed fit),
    ``next_frame`` (measurement_value); leaderboard view: ``board_table``, ``board_curve``,
    ``board_protocol``, ``board_metrics``, ``board_out`` (LiveFigure), ``board_messages``."""

    def __init__(self, source: str | None = None, sources=("scaling-corpus", "synthetic-downey", "npb-pi-cluster"),
                 curve: tuple | None = DEFAULT_CURVE, level: float = 0.8, benchmark_csv: str | Path = BENCHMARK_CSV):
        self.figures: dict[str, go.Figure] = {}
        self.messages, self.board_messages = message_panel(), message_panel()
        self.picker = DataPicker(sources, source=source, curve=curve, messages=self.messages)
        self.benchmark_csv = Path(benchmark_csv)
        self._cache, self._next_cache = FitCache(32), FitCache(64)
        self._curve_id = None
        self.predictor = self.frame = self.next_frame = self._fig = None
        self.last_update_s = float("nan")
        self.target = slider("target allocation n", 2.0, 1.0, 16.0, log=True, primary=True, readout_format=".3g")
        self.level = slider("interval level", level, 0.5, 0.95, 0.05, readout_format=".2f")
        self.model_boxes = {m: widgets.Checkbox(value=True, description=MODEL_LABELS[m], indent=False,
                                                layout=widgets.Layout(width="auto", margin="0 12px 0 0"))
                            for m in MODELS}
        self.readout, self.target_table, self.warnings = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.weights, self.next, self.holdout = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self._set_target_range()

        fig = None
        with show_errors(self.messages):
            fig = self._update()
        self.figure = figure_widget(fig if fig is not None else placeholder_figure("No prediction yet"), primary=True)
        with show_errors(self.messages):
            self._update_next()

        self.picker.on_change(self._on_data)
        for control in (self.target, self.level, *self.model_boxes.values()):
            control.observe(self._on_control, names="value")
        self.messages.observe(self._on_message, names="value")

        predict = widgets.VBox([
            self.picker,
            widgets.HBox([widgets.VBox([self.target, self.level, widgets.HTML("<b>Models to draw</b>"),
                                        widgets.HBox(list(self.model_boxes.values()),
                                                     layout=widgets.Layout(flex_flow="row wrap", width="460px"))]),
                          self.readout], layout=widgets.Layout(grid_gap="24px")),
            self.messages, self.figure,
            widgets.HBox([widgets.VBox([self.target_table, self.warnings], layout=widgets.Layout(width="50%")),
                          widgets.VBox([self.weights, self.next])], layout=widgets.Layout(grid_gap="24px")),
            self.holdout,
        ])
        self._build_board()
        self.view = widgets.ToggleButtons(options=[("Predict", "predict"), ("Benchmark leaderboard", "board")],
                                          value="predict", style={"button_width": "190px"})
        self.view.observe(self._on_view, names="value")
        self._views = {"predict": predict, "board": self.board}
        super().__init__([self.view, predict, self.board])

    # ------------------------------------------------------------------ predict
    def _set_target_range(self) -> None:
        """Slider from the curve's smallest allocation to 16x its largest; target: the largest
        held-back allocation beyond the observed ones, else 4x the largest observed."""
        n = np.asarray(self.picker.processes, float)
        self._unit = curve_unit(self.picker.frame, self.picker.curve_key)
        # steps of 1/8 doubling from the smallest allocation: powers of two times it lie on the grid
        step = math.log10(2) / 8
        lo = math.log10(n.min())
        hi = lo + math.ceil((math.log10(16 * n.max()) - lo) / step) * step
        beyond = n[n > max(self.picker.observed_n or (n.min(),))]
        value = beyond.max() if beyond.size else 4 * n.max()
        with self._quietly():
            if lo > self.target.max:
                self.target.max = hi
            self.target.min, self.target.max, self.target.step = lo, hi, step
            self.target.value = 10 ** (lo + round((math.log10(value) - lo) / step) * step)
            self.target.description = f"target n ({self._unit})"
        self._curve_id = (self.picker.source.value, id(self.picker.frame), self.picker.curve_key)

    def parameters(self) -> dict:
        return {"target": rounded(self.target.value, 3), "level": rounded(self.level.value, 3)}

    def _fit(self) -> ScalingPredictor:
        return self._cache.get(("fit", self.picker.key), lambda: ScalingPredictor().fit(*self.picker.observed))

    def _update(self) -> go.Figure:
        """Fit (or reuse), refresh the readouts of the target and return the figure."""
        start = time.perf_counter()
        p, (target, level) = self._fit(), self.parameters().values()
        grid_key = (self.target.min, self.target.max)
        curves = self._cache.get(("curves", self.picker.key, level, grid_key), lambda: prediction_curves(
            p, allocation_grid(10 ** grid_key[0], 10 ** grid_key[1]), level))
        frame = p.predict_frame([target], level)
        models = [m for m, box in self.model_boxes.items() if box.value]
        fig = prediction_figure(p, target, level=level, observed=self.picker.observed, held_back=self.picker.held_back,
                                models=models, unit=self._unit, curves=curves, target_frame=frame)
        self.predictor, self.frame, self._fig = p, frame, fig
        self.last_update_s = time.perf_counter() - start
        self._readouts()
        return fig

    def _readouts(self) -> None:
        p, frame, (target, level) = self.predictor, self.frame, self.parameters().values()
        row, unit = frame.iloc[0], self._unit
        pred, lo, hi = row["prediction"], row["lower"], row["upper"]
        rows = {"data": self.picker.label, "n counts": unit,
                "observed n": ", ".join(f"{v:g}" for v in self.picker.observed_n),
                f"runtime at n = {target:g}": format_seconds(pred),
                f"{100 * level:.0f} % interval": f"{lo:.3g} – {hi:.3g} s (width ×{hi / lo:.2f})"
                if np.isfinite(lo) else "–",
                "chosen model": MODEL_LABELS.get(row["model"], row["model"] or "none"),
                "verdict": "WARNED: trust the interval, not the point" if row["warned"] else "no warning"}
        if np.isfinite(lo) and not lo <= pred <= hi:
            rows["note"] = "interval beside the point: corrects the models' typical bias on unseen curves"
        rows["fit + figure"] = f"{self.last_update_s * 1000:.0f} ms"
        self.readout.value = readout_html(rows)
        shown = frame.assign(warnings=frame["warnings"].map(", ".join))
        self.target_table.value = frame_html(shown, f"predict_frame at n = {target:g} {html.escape(unit)}")
        self.warnings.value = warnings_html(frame, p)
        self.weights.value = weights_html(weights_frame(p), row["model"])
        hold = holdout_frame(p, self.picker.held_back, level)
        self.holdout.value = frame_html(hold, "Held-back runs (not fitted) against the predictor") if len(hold) else ""

    def _update_next(self) -> None:
        """'Where to measure next' for the current target (cached; refits the predictor)."""
        if self.predictor is None:
            self.next.value = ""
            return
        target, level = self.parameters().values()
        key = (self.picker.key, target, level)
        mv = self._next_cache.get(key, lambda: self.predictor.measurement_value(target, level=level))
        if len(mv):  # what the run would cost: allocation x predicted runtime
            mv = mv.assign(cost=mv["n"].to_numpy() * self.predictor.predict(mv["n"].to_numpy()))
        self.next_frame = mv
        self.next.value = measure_next_html(mv, target, self._unit)

    @property
    def panels(self) -> tuple:
        """The panels that show the prediction of the current selection."""
        return (self.figure, self.readout, self.target_table, self.warnings, self.weights, self.next, self.holdout)

    def _refresh(self, changed_data: bool = False) -> None:
        ok = False
        with show_errors(self.messages, stale=self.panels):  # never leave a stale figure or readout silently
            if changed_data:
                self._set_target_range()
            update_figure_widget(self.figure, self._update())
            ok = True
        if not ok:
            self.predictor = self.frame = self._fig = self.next_frame = None
            return
        with show_errors(self.messages, stale=(self.next,)):
            self._update_next()

    def _on_data(self, picker) -> None:
        curve_id = (picker.source.value, id(picker.frame), picker.curve_key)
        self._refresh(changed_data=curve_id != self._curve_id)

    def _on_control(self, change) -> None:
        if not self._quiet:
            self._refresh()

    def _on_message(self, change) -> None:
        """An error while a prediction is shown (e.g. a failed upload: the previous data stay
        selected): say on the figure that it was not updated."""
        if ERROR_CLASS in change["new"] and self._fig is not None and not self.figure.stale:
            marked = go.Figure(self._fig)
            still = self._fig.layout.title.text
            marked.update_layout(title_text=f"⚠ Not updated (see the red message); still: {still}",
                                 title_font_color="#b71c1c")
            update_figure_widget(self.figure, marked)

    # -------------------------------------------------------------- leaderboard
    def _build_board(self) -> None:
        self.board_table, self.board_metrics, self.board_note = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.board_curve = widgets.Dropdown(description="curve", style={"description_width": "50px"},
                                            layout=widgets.Layout(width="640px"))
        self.board_protocol = widgets.ToggleButtons(options=list(PROTOCOLS), value="k3", description="protocol",
                                                    style={"description_width": "60px", "button_width": "70px"})
        self.board_out = figure_widget(placeholder_figure(""), name="board")
        self.board_curve.observe(self._on_board_curve, names="value")
        self.board_protocol.observe(self._on_board_curve, names="value")
        self._board_filled, self._bench_curves = False, None
        self.board = widgets.VBox([self.board_messages, self.board_table, widgets.HTML("<h4>Per-curve drill-down</h4>"),
                                   widgets.HBox([self.board_curve, self.board_protocol]), self.board_metrics,
                                   self.board_note, self.board_out], layout=widgets.Layout(display="none"))

    def _on_view(self, change) -> None:
        for key, box in self._views.items():
            box.layout.display = None if key == change["new"] else "none"
        if change["new"] == "board" and not self._board_filled:
            self.fill_board()

    def fill_board(self) -> None:
        """Read the per-curve benchmark file and fill the leaderboard view."""
        self._board_filled = True
        if not self.benchmark_csv.exists():
            show_message(self.board_messages, f"No benchmark results yet ({self.benchmark_csv} is missing). "
                                              f"Produce them with: {HOW_TO_BENCH}", kind="info")
            return
        with show_errors(self.board_messages):
            try:
                self.per_curve = pd.read_csv(self.benchmark_csv)
            except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
                raise DataFormatError(f"{self.benchmark_csv}: not a readable CSV table of benchmark results; "
                                      f"produce it again with: {HOW_TO_BENCH}") from None
            board_csv = self.benchmark_csv.with_name("scaling_leaderboard.csv")
            try:
                board = pd.read_csv(board_csv)
            except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
                raise DataFormatError(f"{board_csv}: missing or not a readable CSV table of the overall leaderboard; "
                                      f"produce it with: {HOW_TO_BENCH}") from None
            self.board_table.value = frame_html(format_leaderboard(board), (
                f"Leaderboard: {int(board['predictions'].max())} held-back predictions per model on "
                f"{self.per_curve['curve_id'].nunique()} real curves, leave-one-source-out ({board_csv.name}; "
                "by protocol and source: bench/results/scaling_benchmark.md)"))
            ids = self.per_curve.drop_duplicates("curve_id")
            with self._quietly():
                self.board_curve.options = [(f"{r.curve_id} ({r.fold})", r.curve_id) for r in ids.itertuples()]
                self.board_curve.value = self.board_curve.options[0][1] if len(ids) else None
            self._on_board_curve()

    def _on_board_curve(self, change=None) -> None:
        if self._quiet or self.board_curve.value is None:
            return
        with show_errors(self.board_messages, stale=(self.board_out, self.board_metrics)):
            curve_id, protocol = self.board_curve.value, self.board_protocol.value
            rows = self.per_curve[self.per_curve["curve_id"] == curve_id]
            self.board_metrics.value = frame_html(format_leaderboard(rows),
                                                  f"{html.escape(str(curve_id))}: metrics per model")
            self.board_note.value = ""
            try:
                if self._bench_curves is None:
                    self._bench_curves = benchmark_curves()
            except DatasetNotFoundError as exc:
                show_message(self.board_note, f"The curve's runs are not available, so it is not redrawn: {exc}",
                             kind="warning")
                self.board_out.mark_stale("the curve's runs are not available")
                return
            fig = self._cache.get(("board", curve_id, protocol), lambda: protocol_figure(
                self._bench_curves[self._bench_curves["curve_id"] == curve_id], protocol))
            self._show("board", self.board_out, fig)


def predict_dashboard(**kwargs) -> PredictDashboard:
    """Build the "Predict my runs" dashboard; display it as a cell's last expression.
    Keyword arguments: ``source`` (``"scaling-corpus"``, needs the real-data mirror;
    ``"synthetic-downey"``, bundled; ``"npb-pi-cluster"``), ``curve``, ``level``,
    ``benchmark_csv`` (per-curve benchmark results)."""
    return PredictDashboard(**kwargs)
