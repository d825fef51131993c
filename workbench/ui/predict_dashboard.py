"""The "Predict my runs" dashboard.

How long will my job take on n processes (nodes, GPUs), and how far can I trust that?

Notebook 00, the first dashboard a user sees.

Wiring only: the panels are :mod:`workbench.views.predict` (widget-free), on top of the
predictor :class:`workbench.models.scaling.ScalingPredictor` and the figures and tables of
:mod:`workbench.plots.scaling`; the data come from the
:class:`~workbench.ui.data_picker.DataPicker` (bundled example, NPB logs, the 152-curve
scaling corpus, uploads; it also chooses the curve and its observed runs), the benchmark's
results and curves from :mod:`workbench.evaluation.scaling_benchmark`.

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

import time
from pathlib import Path

import ipywidgets as widgets
import plotly.graph_objects as go

from workbench.errors import DatasetNotFoundError
from workbench.evaluation.scaling_benchmark import HOW_TO_BENCH, PROTOCOLS, benchmark_curves, read_benchmark_results
from workbench.models.scaling import MODELS
from workbench.plots.scaling import MODEL_LABELS
from workbench.ui.common import (
    ERROR_CLASS,
    PRIMARY_SLIDER_CLASS,
    FitCache,
    NamedFigures,
    QuietChanges,
    figure_widget,
    message_panel,
    placeholder_figure,
    readout_html,
    rounded,
    show_errors,
    show_message,
    slider,
)
from workbench.ui.data_picker import DataPicker
from workbench.validation import UNITS
from workbench.views.predict import (
    PredictState,
    board_curve_view,
    board_table_html,
    curve_unit,
    measure_next_view,
    prediction_view,
    predictions_csv_html,
    target_range,
)

__all__ = ["BENCHMARK_CSV", "HOW_TO_BENCH", "PredictDashboard", "benchmark_curves", "curve_unit", "predict_dashboard"]

#: Per-curve results of ``tools/scaling_benchmark.py``.
BENCHMARK_CSV = Path(__file__).resolve().parents[2] / "bench" / "results" / "scaling_curves.csv"
DEFAULT_CURVE = ("GROMACS 2021.5 on ARCHER2", "archer2-gromacs-benchpep-ofi-1thr")


class PredictDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Attributes: ``picker``, ``target`` (primary slider), ``level``, ``model_boxes`` (name -> Checkbox), ``view``.

    ``figure`` (main LiveFigure); ``readout``, ``target_table``, ``warnings``, ``weights``,
    ``next``, ``holdout`` (HTML); ``messages``; ``predictor`` and ``frame`` (the fit and
    ``predict_frame`` row of the target; None after a failed fit), ``next_frame``
    (measurement_value); leaderboard view: ``board_table``, ``board_curve``,
    ``board_protocol``, ``board_metrics``, ``board_out`` (LiveFigure), ``board_messages``.

    Parameters
    ----------
    source : str, optional
        Initial data source; default: the first of ``sources``.
    sources : sequence of str, default ("scaling-corpus", "synthetic-downey", "npb-pi-cluster")
        The data sources offered.
    curve : tuple, optional
        Initial curve; default ``DEFAULT_CURVE`` (GROMACS on ARCHER2).
    level : float, default 0.8
        Interval level.
    benchmark_csv : str or path-like, default BENCHMARK_CSV
        Per-curve benchmark results shown on the board view.
    """

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
        # whole allocations only (target_range's options): a SelectionSlider, applied on release
        self.target = widgets.SelectionSlider(options=[1, 2], value=2, description="target n",
                                              continuous_update=False, style={"description_width": "initial"},
                                              layout=widgets.Layout(width="420px"))
        self.target.add_class(PRIMARY_SLIDER_CLASS)
        self.unit = widgets.ToggleButtons(options=[(UNITS[u][1], u) for u in UNITS], description="n counts",
                                          style={"description_width": "initial", "button_width": "80px"})
        self.per_node = widgets.BoundedIntText(value=0, min=0, max=1_000_000, description="cores per node",
                                               style={"description_width": "initial"},
                                               layout=widgets.Layout(width="220px"),
                                               tooltip="0: unknown; with it, costs are in node-hours")
        self.download = widgets.HTML()
        self.unit_note = message_panel()
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
        for control in (self.target, self.level, self.per_node, *self.model_boxes.values()):
            control.observe(self._on_control, names="value")
        self.unit.observe(self._on_unit, names="value")
        self.messages.observe(self._on_message, names="value")
        predict = self._predict_layout()
        self._build_board()
        self.view = widgets.ToggleButtons(options=[("Predict", "predict"), ("Benchmark leaderboard", "board")],
                                          value="predict", style={"button_width": "190px"})
        self.view.observe(self._on_view, names="value")
        self._views = {"predict": predict, "board": self.board}
        super().__init__([self.view, predict, self.board])

    def _predict_layout(self) -> widgets.VBox:
        boxes = widgets.HBox(list(self.model_boxes.values()),
                             layout=widgets.Layout(flex_flow="row wrap", width="460px"))
        return widgets.VBox([
            self.picker,
            widgets.HBox([self.unit, self.per_node], layout=widgets.Layout(grid_gap="12px")), self.unit_note,
            widgets.HBox([widgets.VBox([self.target, self.level, widgets.HTML("<b>Models to draw</b>"), boxes]),
                          self.readout], layout=widgets.Layout(grid_gap="24px")),
            self.messages, self.figure, self.download,
            widgets.HBox([widgets.VBox([self.target_table, self.warnings], layout=widgets.Layout(width="50%")),
                          widgets.VBox([self.weights, self.next])], layout=widgets.Layout(grid_gap="24px")),
            self.holdout,
        ])

    # ------------------------------------------------------------------ predict
    def _set_target_range(self) -> None:
        """Set the target slider for the selected curve (:func:`~workbench.views.predict.target_range`)."""
        r = target_range(self.picker.processes, self.picker.observed_n)
        self._range = r
        self._unit = self.picker.unit
        with self._quietly():
            self.target.options = r.options
            self.target.value = int(r.value)
            self.target.description = f"target n ({UNITS[self._unit][1]})"
            self.unit.options = [(UNITS[u][1], u) for u in self.picker.units()]
            self.unit.value = self._unit
            self.per_node.description = "GPUs per node" if self._unit == "gpus" else "cores per node"
            self.per_node.layout.display = "none" if self._unit == "nodes" else None
        note = None
        if self.picker.both_counts and self._unit == "processes":
            note = ("These runs give both processes and nodes: n counts processes now. Choose 'nodes' under "
                    "'n counts' to predict in nodes (costs in node-hours).")
        elif self.picker.relabelled():
            note = (f"n counts {UNITS[self._unit][1]}: the allocations of the data (counted in "
                    f"{UNITS[self.picker.own_unit][1]} there) are read as {UNITS[self._unit][1]}.")
        show_message(self.unit_note, note, kind="info")
        self._curve_id = (self.picker.source.value, id(self.picker.frame), self.picker.curve_key, self.picker.unit)

    def parameters(self) -> dict:
        """Return the current target (a whole allocation) and interval level (rounded)."""
        return {"target": float(int(self.target.value)), "level": rounded(self.level.value, 3)}

    def state(self) -> PredictState:
        """Return the selected runs and the controls."""
        p, (target, level) = self.picker, self.parameters().values()
        per_node = int(self.per_node.value) or None if self._unit != "nodes" else None
        return PredictState(observed=p.observed, held_back=p.held_back, data_key=p.key, data_label=p.label,
                            observed_n=tuple(p.observed_n), unit=self._unit, per_node=per_node,
                            nodes=p.observed_nodes(), target=target, level=level,
                            models=tuple(m for m, box in self.model_boxes.items() if box.value),
                            grid=(self._range.lo, self._range.hi))

    def _update(self) -> go.Figure:
        """Fit (or reuse), refresh the readouts of the target and return the figure."""
        start = time.perf_counter()
        panels = prediction_view(self.state(), self._cache)
        self.predictor, self.frame, self._fig = panels.predictor, panels.frame, panels.main
        self.last_update_s = time.perf_counter() - start
        self.readout.value = readout_html({**panels.readout, "fit + figure": f"{self.last_update_s * 1000:.0f} ms"})
        self.target_table.value, self.warnings.value = panels.target_table, panels.warnings
        self.weights.value, self.holdout.value = panels.weights, panels.holdout
        state = self.state()
        self.download.value = predictions_csv_html(
            self.predictor, sorted({*self.picker.processes, state.target, *self._range.options[-1:]}), state.level,
            state.unit, f"predictions_{state.unit}.csv")
        return panels.main

    def _update_next(self) -> None:
        """'Where to measure next' for the current target (cached; refits the predictor)."""
        if self.predictor is None:
            self.next.value = ""
            return
        nxt = measure_next_view(self.state(), self.predictor, self._next_cache)
        self.next_frame, self.next.value = nxt.frame, nxt.html

    @property
    def panels(self) -> tuple:
        """The panels that show the prediction of the current selection."""
        return (self.figure, self.readout, self.target_table, self.warnings, self.weights, self.next, self.holdout,
                self.download)

    def _refresh(self, changed_data: bool = False) -> None:
        ok = False
        with show_errors(self.messages, stale=self.panels):  # never leave a stale figure or readout silently
            if changed_data:
                self._set_target_range()
            self.figure.update(self._update())
            ok = True
        if not ok:
            self.predictor = self.frame = self._fig = self.next_frame = None
            return
        with show_errors(self.messages, stale=(self.next,)):
            self._update_next()

    def _on_data(self, picker) -> None:
        curve_id = (picker.source.value, id(picker.frame), picker.curve_key, picker.unit)
        self._refresh(changed_data=curve_id != self._curve_id)

    def _on_control(self, change) -> None:
        if not self._quiet:
            self._refresh()

    def _on_unit(self, change) -> None:
        """Count the runs in the chosen unit (the picker re-reads the allocations), then refit."""
        if self._quiet:
            return
        ok = False
        with show_errors(self.messages):
            self.picker.set_unit(change["new"])  # notifies: _on_data refits
            ok = True
        if not ok:
            with self._quietly():
                self.unit.value = change["old"]

    def _on_message(self, change) -> None:
        """Say on the figure that it was not updated after an error.

        An error while a prediction is shown, e.g. a failed upload: the previous data stay
        selected.
        """
        if ERROR_CLASS in change["new"] and self._fig is not None and not self.figure.stale:
            marked = go.Figure(self._fig)
            still = self._fig.layout.title.text
            marked.update_layout(title_text=f"⚠ Not updated (see the red message); still: {still}",
                                 title_font_color="#b71c1c")
            self.figure.update(marked)

    # -------------------------------------------------------------- leaderboard
    def _build_board(self) -> None:
        self.board_table, self.board_metrics, self.board_note = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.board_curve = widgets.Dropdown(description="curve", style={"description_width": "50px"},
                                            layout=widgets.Layout(width="640px"))
        self.board_protocol = widgets.ToggleButtons(options=list(PROTOCOLS), value="k3", description="protocol",
                                                    style={"description_width": "60px", "button_width": "70px"})
        # hidden until a curve is drawn: no empty box
        self.board_out = figure_widget(placeholder_figure(""), name="board", display="none")
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
            self.per_curve, board = read_benchmark_results(self.benchmark_csv)
            self.board_table.value = board_table_html(self.per_curve, board,
                                                      self.benchmark_csv.with_name("scaling_leaderboard.csv").name)
            ids = self.per_curve.drop_duplicates("curve_id")
            with self._quietly():
                self.board_curve.options = [(f"{r.curve_id} ({r.fold})", r.curve_id) for r in ids.itertuples()]
                self.board_curve.value = self.board_curve.options[0][1] if len(ids) else None
            self._on_board_curve()

    def _on_board_curve(self, change=None) -> None:
        if self._quiet or self.board_curve.value is None:
            return
        with show_errors(self.board_messages, stale=(self.board_out, self.board_metrics)):
            self.board_note.value = ""
            try:
                if self._bench_curves is None:
                    self._bench_curves = benchmark_curves()
            except DatasetNotFoundError as exc:
                show_message(self.board_note, f"The curve's runs are not available, so it is not redrawn: {exc}",
                             kind="warning")
            panels = board_curve_view(self.per_curve, self.board_curve.value, self.board_protocol.value,
                                      self._bench_curves, self._cache)
            self.board_metrics.value = panels.metrics
            self.board_out.layout.display = None  # shown before the figure is sent: drawn at the size shown
            if panels.figure is None:
                self.board_out.mark_stale("the curve's runs are not available")
                return
            self._show("board", self.board_out, panels.figure)


def predict_dashboard(**kwargs) -> PredictDashboard:
    """Build the "Predict my runs" dashboard; display it as a cell's last expression.

    Keyword arguments: ``source`` (``"scaling-corpus"``, needs the real-data mirror;
    ``"synthetic-downey"``, bundled; ``"npb-pi-cluster"``), ``curve``, ``level``,
    ``benchmark_csv`` (per-curve benchmark results).

    Parameters
    ----------
    **kwargs
        Settings of :class:`PredictDashboard`.
    """
    return PredictDashboard(**kwargs)
