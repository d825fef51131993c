"""The "Predict my runs" dashboard's panels without widgets.

:class:`PredictState` holds what the prediction panels depend on: the observed (fitted)
and held-back runs of one scaling curve, what n counts, the target allocation, the
interval level and the models to draw.  :func:`prediction_view` fits a
:class:`~workbench.models.scaling.ScalingPredictor` and returns :class:`PredictPanels`:
runtime vs allocation (main figure), the readout rows and the HTML tables of the target,
the warnings, the model weights and the held-back runs.  :func:`measure_next_view` is
"where to measure next" (slower: it refits), :func:`target_range` the target slider's
range, :func:`board_table_html` and :func:`board_curve_view` the benchmark leaderboard.
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.models.scaling import MODELS, WARNING_KINDS, ScalingPredictor
from workbench.plots.scaling import (
    MODEL_LABELS,
    allocation_grid,
    format_leaderboard,
    format_seconds,
    holdout_frame,
    prediction_curves,
    prediction_figure,
    protocol_figure,
    weights_frame,
)
from workbench.validation import UNITS, check_unit
from workbench.views.panels import FitCache, frame_html
from workbench.views.tables import Column

__all__ = [
    "board_curve_view",
    "board_table_html",
    "BoardCurvePanels",
    "cost_word",
    "curve_unit",
    "fit_predictor",
    "measure_next_html",
    "measure_next_view",
    "MeasureNext",
    "prediction_view",
    "predictions_csv_html",
    "PredictPanels",
    "PredictState",
    "run_cost",
    "target_range",
    "target_table_html",
    "TargetRange",
    "warnings_html",
    "weights_html",
]



def _cached(cache: FitCache | None, key, compute):
    return compute() if cache is None else cache.get(key, compute)


def curve_unit(frame: pd.DataFrame, curve_key: tuple) -> str:
    """Return what n counts in the curve ``(benchmark, problem_class, ...)`` of ``frame``.

    Its ``unit`` column (scaling corpus), else processes.

    Parameters
    ----------
    frame : pandas.DataFrame
        Scaling runs with columns ``benchmark``, ``problem_class`` and optionally ``unit``.
    curve_key : tuple
        ``(benchmark, problem_class, ...)`` of the curve.
    """
    if "unit" not in frame.columns:
        return "processes"
    sel = frame.loc[(frame["benchmark"] == curve_key[0]) & (frame["problem_class"] == curve_key[1]), "unit"]
    return str(sel.iloc[0]) if len(sel) else "processes"


@dataclass(frozen=True)
class TargetRange:
    """The target slider: log10 bounds ``lo``, ``hi``, log10 ``step`` and the initial ``value`` (an allocation).

    ``options``: the whole allocations the slider offers, ascending (an allocation is a count:
    never n = 87.2).
    """

    lo: float
    hi: float
    step: float
    value: float
    options: tuple[int, ...] = ()


def target_range(processes, observed_n) -> TargetRange:
    """Return the target slider's range: the curve's smallest allocation to 16x its largest.

    In steps of 1/8 doubling from the smallest (so that it times powers of two lie on the
    grid); the initial target is the largest held-back allocation beyond the observed
    ones, else 4x the largest.

    Parameters
    ----------
    processes : array-like
        Every allocation of the curve.
    observed_n : array-like
        The observed (fitted) allocations.
    """
    n = np.asarray(processes, float)
    step = math.log10(2) / 8
    lo = math.log10(n.min())
    hi = lo + math.ceil((math.log10(16 * n.max()) - lo) / step) * step
    beyond = n[n > max(tuple(observed_n) or (n.min(),))]
    value = beyond.max() if beyond.size else 4 * n.max()
    # whole allocations on the grid of eighth doublings (several steps round to one count at
    # small n: kept once), and every measured allocation
    grid = np.round(10 ** (lo + step * np.arange(round((hi - lo) / step) + 1)))
    options = tuple(int(v) for v in np.unique(np.concatenate([grid, np.round(n)])) if v >= 1)
    value = min(options, key=lambda o: abs(math.log(o / value)))
    return TargetRange(lo, hi, step, float(value), options)


@dataclass(frozen=True)
class PredictState:
    """Everything the prediction panels depend on.

    ``observed`` and ``held_back`` are ``(allocations, runtimes)`` of the fitted and the
    held-back runs; ``data_key`` names them in caches and comparisons (the arrays take part
    in neither), ``data_label`` says in words what they are, ``observed_n`` lists the
    fitted allocations, ``unit`` what n counts (a key of :data:`~workbench.validation.UNITS`),
    ``per_node`` how many of them one node holds (None: unknown), ``nodes`` the nodes each
    observed run used (None: unknown).  ``grid``: the log10 range of allocations drawn (the
    target slider's); ``models``: the models drawn.
    """

    observed: tuple[np.ndarray, np.ndarray] = field(compare=False, repr=False)
    held_back: tuple[np.ndarray, np.ndarray] = field(compare=False, repr=False)
    data_key: object = "data"
    data_label: str = ""
    observed_n: tuple[float, ...] = ()
    unit: str = "processes"
    per_node: int | None = None
    nodes: np.ndarray | None = field(default=None, compare=False, repr=False)
    target: float = 2.0
    level: float = 0.8
    models: tuple[str, ...] = tuple(MODELS)
    grid: tuple[float, float] = (0.0, 1.0)


@dataclass(frozen=True)
class PredictPanels:
    """What the dashboard shows for one state.

    The fitted ``predictor``, its ``predict_frame`` row of the target (``frame``), the
    ``main`` figure, the ``readout`` rows (label -> value) and the HTML panels
    ``target_table``, ``warnings``, ``weights`` and ``holdout``.
    """

    predictor: ScalingPredictor
    frame: pd.DataFrame
    main: go.Figure
    readout: dict[str, str]
    target_table: str
    warnings: str
    weights: str
    holdout: str


@dataclass(frozen=True)
class MeasureNext:
    """Where to measure next.

    ``frame`` (:meth:`~workbench.models.scaling.ScalingPredictor.measurement_value` with the ``cost`` of each
    run, allocation x predicted runtime) and its ``html``.
    """

    frame: pd.DataFrame
    html: str


def fit_predictor(state: PredictState, cache: FitCache | None = None) -> ScalingPredictor:
    """Return the predictor fitted to the observed runs (cached per data).

    Parameters
    ----------
    state : PredictState
        The runs, unit, target, level and models of the panels.
    cache : FitCache or None, default None
        Where fits and curves are kept per data (None: computed every call).
    """
    return _cached(cache, ("fit", state.data_key, state.unit, state.per_node), lambda: ScalingPredictor(
        unit=state.unit, per_node=state.per_node).fit(*state.observed, nodes=state.nodes))


def prediction_view(state: PredictState, cache: FitCache | None = None) -> PredictPanels:
    """Fit (or reuse) the predictor of ``state`` and build the prediction panels.

    Raises :class:`~workbench.errors.ValidationError` (in the project's words) for runs the
    predictor cannot fit, e.g. fewer than 3 distinct observed allocations.

    Parameters
    ----------
    state : PredictState
        The runs, unit, target, level and models of the panels.
    cache : FitCache or None, default None
        Where fits and curves are kept per data (None: computed every call).
    """
    p = fit_predictor(state, cache)
    grid = state.grid
    curves = _cached(cache, ("curves", state.data_key, state.level, grid), lambda: prediction_curves(
        p, allocation_grid(10 ** grid[0], 10 ** grid[1]), state.level))
    frame = p.predict_frame([state.target], state.level)
    fig = prediction_figure(p, state.target, level=state.level, observed=state.observed, held_back=state.held_back,
                            models=list(state.models), unit=_word(state.unit), curves=curves,
                            target_frame=frame)
    row = frame.iloc[0]
    hold = holdout_frame(p, state.held_back, state.level)
    return PredictPanels(
        predictor=p, frame=frame, main=fig, readout=_readout(state, row, p),
        target_table=target_table_html(frame, _word(state.unit), state.level),
        warnings=warnings_html(frame, p), weights=weights_html(weights_frame(p), row["model"]),
        holdout=frame_html(hold, "Held-back runs (not fitted) against the predictor",
                           _holdout_columns(_word(state.unit), state.level)) if len(hold) else "",
    )


def warnings_html(frame: pd.DataFrame, predictor=None) -> str:
    """List the warning kinds of the first row of a ``predict_frame`` result in words, as HTML.

    Each kind in words (``frame.attrs["messages"]``), a green note when there are none;
    with ``predictor``, the single models' own notes (``warnings_``) in a collapsed list
    below.

    Parameters
    ----------
    frame : pandas.DataFrame
        A ``ScalingPredictor.predict_frame`` result (its first row is listed).
    predictor : ScalingPredictor or None, default None
        The fitted predictor whose members' notes are added.
    """
    row = frame.iloc[0]
    kinds = list(row["warnings"])
    messages = frame.attrs.get("messages", {})
    if not kinds:
        text = "<div style='color:#1b5e20'>No warning for this target.</div>"
    else:
        head = ("<b style='color:#b71c1c'>Warned</b>: do not trust the point, use the interval"
                if row["warned"] else "<b>Notes</b> (not a warning of a likely miss)")
        text = head + "<ul style='margin:2px 0'>" + "".join(
            f"<li><code>{html.escape(k)}</code>: {html.escape(messages.get(k, WARNING_KINDS.get(k, '')))}</li>"
            for k in kinds) + "</ul>"
    notes = [(name, w) for name, m in (predictor.members_.items() if predictor is not None else ())
             for w in m.warnings_]
    if notes:
        text += (f"<details><summary>the single models' own notes ({len(notes)})</summary><ul style='margin:2px 0'>"
                 + "".join(f"<li>{html.escape(MODEL_LABELS.get(name, name))}, <code>{html.escape(w.kind)}</code>: "
                           f"{html.escape(w.message)}</li>" for name, w in notes) + "</ul></details>")
    return f"<div style='font-size:13px'>{text}</div>"


def weights_html(frame: pd.DataFrame, chosen: str = "") -> str:
    """:func:`~workbench.plots.scaling.weights_frame` as a small HTML table, the ``chosen`` model highlighted.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`~workbench.plots.scaling.weights_frame` of a fitted predictor.
    chosen : str, default ""
        The model with the largest weight at the target ("" : none highlighted).
    """
    rows = []
    for r in frame.itertuples(index=False):
        style = "background:#e3f2fd;font-weight:bold" if r.model == chosen else ""
        cv = "–" if not np.isfinite(r.cv_error) else f"{100 * np.expm1(r.cv_error):.0f} %"
        mark = " ◀ chosen" if r.model == chosen else ""
        rows.append(f"<tr style='{style}'><td>{html.escape(r.label)}{mark}</td><td>{100 * r.weight:.0f} %</td>"
                    f"<td>{cv}</td><td>{html.escape(r.status[:90])}</td></tr>")
    head = "<tr><th>model</th><th>weight</th><th>own-curve CV miss</th><th>status</th></tr>"
    return ("<div style='font-size:12px'><b>Model weights</b><table class='wb-table' style='border-collapse:collapse'>"
            "<style>.wb-table td,.wb-table th{padding:1px 8px;text-align:left}</style>"
            f"{head}{''.join(rows)}</table></div>")


def _word(unit: str) -> str:
    """Return what n counts, in words (GPUs, not gpus)."""
    return UNITS[unit][1] if unit in UNITS else unit


def _interval_columns(unit: str, level: float) -> dict[str, Column]:
    pct = f"{100 * level:.0f} %"
    return {"n": Column(f"n [{unit}]"), "prediction": Column("predicted runtime [s]"),
            "lower": Column(f"{pct} interval, lower [s]"), "upper": Column(f"{pct} interval, upper [s]")}


def _holdout_columns(unit: str, level: float) -> dict[str, Column]:
    return {**_interval_columns(unit, level), "actual": Column("measured runtime [s]"),
            "error_pct": Column("error", "percent"), "inside": Column("inside the interval"),
            "warned": Column("warned")}


def target_table_html(frame: pd.DataFrame, unit: str = "processes", level: float = 0.8) -> str:
    """Return the ``predict_frame`` row(s) of the target as a table (units in the headers, words for the rest).

    Parameters
    ----------
    frame : pandas.DataFrame
        A ``ScalingPredictor.predict_frame`` result.
    unit : str, default "processes"
        What n counts, in words.
    level : float, default 0.8
        Central probability of the interval.
    """
    shown = frame.assign(model=frame["model"].map(lambda m: MODEL_LABELS.get(m, m) if m else "none"),
                         warnings=frame["warnings"].map(lambda kinds: ", ".join(kinds) if len(kinds) else "none"))
    n = float(frame["n"].iloc[0])
    return frame_html(shown, f"Prediction at n = {n:g} {html.escape(unit)}",
                      {**_interval_columns(unit, level), "model": Column("chosen model"),
                       "warned": Column("warned"), "warnings": Column("warnings")})


def _readout(state: PredictState, row: pd.Series, predictor: ScalingPredictor) -> dict[str, str]:
    pred, lo, hi = row["prediction"], row["lower"], row["upper"]
    per_node = {"gpus": "GPUs per node"}.get(state.unit, "cores per node")
    rows = {"data": state.data_label,
            "n counts": UNITS[state.unit][1] + (f" ({state.per_node} {per_node})"
                                                if state.per_node and state.unit != "nodes" else ""),
            "observed n": ", ".join(f"{v:g}" for v in state.observed_n),
            f"runtime at n = {state.target:g}": format_seconds(pred),
            f"{100 * state.level:.0f} % interval": f"{lo:.3g} – {hi:.3g} s (width ×{hi / lo:.2f})"
            if np.isfinite(lo) else "–",
            f"cost of one run at n = {state.target:g}": (
                f"{run_cost(predictor, [state.target], state.unit, state.per_node)[0] / 3600:.3g} "
                f"{cost_word(state.unit, state.per_node)}" if np.isfinite(pred) else "–"),
            "chosen model": MODEL_LABELS.get(row["model"], row["model"] or "none"),
            "verdict": str(row["verdict"]) if "verdict" in row.index else (
                "WARNED: trust the interval, not the point" if row["warned"] else "no warning")}
    if np.isfinite(lo) and not lo <= pred <= hi:
        rows["note"] = "interval beside the point: corrects the models' typical bias on unseen curves"
    return rows


def measure_next_view(state: PredictState, predictor: ScalingPredictor, cache: FitCache | None = None) -> MeasureNext:
    """'Where to measure next' for the target of ``state`` (cached per data, target and level; refits).

    Parameters
    ----------
    state : PredictState
        The runs, unit, target and level.
    predictor : ScalingPredictor
        The predictor fitted to ``state``'s observed runs.
    cache : FitCache or None, default None
        Where results are kept per data (None: computed every call).
    """
    mv = _cached(cache, (state.data_key, state.target, state.level),
                 lambda: predictor.measurement_value(state.target, level=state.level))
    if len(mv):  # what the run would cost: allocation (or its nodes) x predicted runtime
        mv = mv.assign(cost=run_cost(predictor, mv["n"].to_numpy(float), state.unit, state.per_node))
    return MeasureNext(mv, measure_next_html(mv, state.target, _word(state.unit),
                                             cost_word=cost_word(state.unit, state.per_node)))


def cost_word(unit: str, per_node: int | None = None) -> str:
    """Return what a run's cost is counted in: node-hours when the nodes are known, else ``unit``-hours.

    Parameters
    ----------
    unit : str
        What n counts (a key of :data:`~workbench.validation.UNITS`).
    per_node : int or None, default None
        Processes (or GPUs) per node, when known.
    """
    return UNITS["nodes"][2] if unit == "nodes" or per_node else UNITS[check_unit(unit, "cost")][2]


def run_cost(predictor: ScalingPredictor, n, unit: str, per_node: int | None = None) -> np.ndarray:
    """Return the cost of one run at each allocation ``n`` in :func:`cost_word` x seconds.

    Nodes (``ceil(n / per_node)``, or n itself in nodes) when known, else n, times the
    predicted runtime.

    Parameters
    ----------
    predictor : ScalingPredictor
        A fitted predictor.
    n : array-like
        Allocations.
    unit : str
        What n counts.
    per_node : int or None, default None
        Processes (or GPUs) per node, when known.
    """
    n = np.asarray(n, float)
    count = n if unit == "nodes" or not per_node else np.ceil(n / per_node)
    return count * predictor.predict(n)


def predictions_csv_html(predictor: ScalingPredictor, allocations, level: float, unit: str,
                         filename: str = "predictions.csv") -> str:
    """Return a link that downloads the predictions at ``allocations`` as a CSV file (a ``data:`` URL: works offline).

    Columns: n (in ``unit``), unit, predicted runtime and its interval in seconds, the
    interval level, the chosen model, the warning flag, the warnings and the verdict.

    Parameters
    ----------
    predictor : ScalingPredictor
        A fitted predictor.
    allocations : array-like
        Where to predict.
    level : float
        Central probability of the intervals.
    unit : str
        What n counts.
    filename : str, default "predictions.csv"
        The downloaded file's name.
    """
    n = np.unique(np.asarray(allocations, float))
    frame = predictor.predict_frame(n, level)
    table = pd.DataFrame({
        "n": [int(v) if float(v).is_integer() else v for v in frame["n"]], "unit": unit,
        "prediction_s": frame["prediction"], "lower_s": frame["lower"], "upper_s": frame["upper"],
        "level": level, "model": frame["model"], "warned": frame["warned"],
        "warnings": frame["warnings"].map(lambda kinds: " ".join(kinds)),
        **({"verdict": frame["verdict"]} if "verdict" in frame.columns else {})})
    data = base64.b64encode(table.to_csv(index=False).encode()).decode()
    return (f'<a class="wb-download" download="{html.escape(filename)}" href="data:text/csv;base64,{data}" '
            f'style="font-size:13px">⬇ Download the predictions at {len(n)} allocations (CSV)</a>')


def measure_next_html(frame: pd.DataFrame, target: float, unit: str = "processes", rows: int = 5,
                      cost_word: str | None = None) -> str:
    """"Where to measure next" from :meth:`~workbench.models.scaling.ScalingPredictor.measurement_value`.

    The best allocation in words and the ``rows`` best candidates as a small table (with the run's cost
    in ``cost_word``, default ``unit``-hours, when ``frame`` has a ``cost`` column: n or nodes x predicted seconds).

    Parameters
    ----------
    frame : pandas.DataFrame
        ``measurement_value`` of the target, optionally with a ``cost`` column.
    target : float
        The target allocation.
    unit : str, default "processes"
        What n counts, in words.
    rows : int, default 5
        Candidates shown.
    cost_word : str or None, default None
        Unit of the cost (None: ``unit``-hours).
    """
    head = "<b>Where to measure next</b>"
    if frame.empty:
        return f"<div style='font-size:13px'>{head}: no candidate allocation</div>"
    best = frame.iloc[0]
    top = frame.head(rows)
    table = pd.DataFrame({"n": top["n"].to_numpy(float), "width": top["width_ratio"].to_numpy(float),
                          "narrowing": top["narrowing"].to_numpy(float)})
    columns = {"n": Column(f"measure at n [{unit}]"), "width": Column("interval width after (upper / lower)",
                                                                      "number", 3),
               "narrowing": Column("narrowing", "fraction", 0)}
    if "cost" in top.columns:
        word = cost_word or (UNITS[unit][2] if unit in UNITS else f"{unit}-hours")
        table["cost"] = top["cost"].to_numpy(float) / 3600
        columns["cost"] = Column(f"cost of the run [{word}]", "number", 3)
    return (f"<div style='font-size:13px'>{head}: a run at n = {best['n']:g} {html.escape(unit)} would narrow the "
            f"interval at n = {target:g} by about {100 * best['narrowing']:.0f} % (to ×{best['width_ratio']:.2f}, "
            f"upper / lower).{frame_html(table, '', columns)}</div>")


def board_table_html(per_curve: pd.DataFrame, board: pd.DataFrame, board_name: str) -> str:
    """Return the overall leaderboard (``board``, read from ``board_name``) of the per-curve results.

    Parameters
    ----------
    per_curve : pandas.DataFrame
        The per-curve benchmark results.
    board : pandas.DataFrame
        The overall leaderboard.
    board_name : str
        The file ``board`` was read from.
    """
    return frame_html(format_leaderboard(board), (
        f"Leaderboard: {int(board['predictions'].max())} held-back predictions per model on "
        f"{per_curve['curve_id'].nunique()} real curves, leave-one-source-out ({html.escape(board_name)}; "
        "by protocol and source: bench/results/scaling_benchmark.md)"))


@dataclass(frozen=True)
class BoardCurvePanels:
    """One curve of the leaderboard.

    Its ``metrics`` per model (HTML) and, when its runs are available, the curve refitted
    under the protocol (``figure``, else None).
    """

    metrics: str
    figure: go.Figure | None


def board_curve_view(per_curve: pd.DataFrame, curve_id: str, protocol: str, curves: pd.DataFrame | None,
                     cache: FitCache | None = None) -> BoardCurvePanels:
    """Return the drill-down of ``curve_id``.

    Its metrics and, with the benchmark's ``curves`` (None: not available), the curve
    refitted under ``protocol`` (cached).

    Parameters
    ----------
    per_curve : pandas.DataFrame
        The per-curve benchmark results.
    curve_id : str
        The curve.
    protocol : str
        The benchmark protocol (k3, k4, spread).
    curves : pandas.DataFrame or None
        The benchmark's curves (None: not available).
    cache : FitCache or None, default None
        Where results are kept per data (None: computed every call).
    """
    rows = per_curve[per_curve["curve_id"] == curve_id]
    metrics = frame_html(format_leaderboard(rows), f"{html.escape(str(curve_id))}: metrics per model")
    if curves is None:
        return BoardCurvePanels(metrics, None)
    fig = _cached(cache, ("board", curve_id, protocol),
                  lambda: protocol_figure(curves[curves["curve_id"] == curve_id], protocol))
    return BoardCurvePanels(metrics, fig)
