"""Figures and tables of the scaling predictor (:mod:`workbench.models.scaling`).

Every function takes a *fitted* :class:`~workbench.models.scaling.ScalingPredictor` (or
tables of the scaling benchmark) plus plain arrays and returns data (a ``DataFrame``), a
:class:`plotly.graph_objects.Figure`; nothing here touches a widget (their HTML is in
:mod:`workbench.views.predict`).

:func:`prediction_figure` keeps the same traces in the same order whatever the data (a
model that is not drawn or could not be fitted is an invisible, empty trace), so a
dashboard can update a live ``FigureWidget`` in place
(:func:`workbench.ui.common.update_figure_widget`).  Runtimes are in seconds, the
allocation ``n`` in ``unit`` (processes, nodes or GPUs).

Reading the benchmark tables: ``bench/results/scaling_curves.csv`` (written by
``tools/scaling_benchmark.py``) holds :func:`~workbench.evaluation.scaling_benchmark.leaderboard`
per (curve, fold, model), and ``scaling_leaderboard.csv`` the same per model over all curves.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import ValidationError, quiet_warnings
from workbench.models.scaling import MODELS
from workbench.models.scaling.calibration import default_calibration
from workbench.models.scaling.predictor import THRESHOLDS
from workbench.validation import run_pair

__all__ = [
    "GRID_POINTS",
    "MODEL_LABELS",
    "PREDICTOR",
    "allocation_grid",
    "format_leaderboard",
    "format_seconds",
    "holdout_frame",
    "prediction_curves",
    "prediction_figure",
    "prediction_title",
    "protocol_figure",
    "weights_frame",
]

#: Allocations on the drawn curves (log-spaced; ADEPT costs ~2 ms per new allocation).
GRID_POINTS = 48
PREDICTOR = "predictor"
#: Display name of each model with the short reference key of :mod:`workbench.models.scaling.base`.
MODEL_LABELS = {
    "amdahl": "Amdahl [Amdahl67]",
    "usl": "USL [USL]",
    "downey-lm": "Downey LM [Downey1997]",
    "adept": "ADEPT [Deshmeh2013]",
    "pmnf": "PMNF [ExtraP]",
    PREDICTOR: "predictor (weighted)",
}
_COLORS = {
    "amdahl": "#ff7f0e", "usl": "#2ca02c", "downey-lm": "#9467bd", "adept": "#8c564b", "pmnf": "#e377c2",
    PREDICTOR: "#1f77b4", "observed": "#111111", "held": "#d62728",
}


def _rgba(color: str, alpha: float) -> str:
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def format_seconds(t: float) -> str:
    """Return a runtime in seconds with 3 significant digits, and in minutes or hours when long.

    Parameters
    ----------
    t : float
        A runtime in seconds (not finite: shown as a dash).
    """
    if not np.isfinite(t):
        return "–"
    text = f"{t:.3g} s"
    if t >= 3600:
        text += f" (≈ {t / 3600:.3g} h)"
    elif t >= 120:
        text += f" (≈ {t / 60:.3g} min)"
    return text


def allocation_grid(n_min: float, n_max: float, points: int = GRID_POINTS) -> np.ndarray:
    """Return ``points`` log-spaced allocations from ``n_min`` to ``n_max``, to 4 significant digits.

    Rounded so that nearby grids share allocations, which ADEPT caches.

    Parameters
    ----------
    n_min : float
        The smallest allocation, > 0.
    n_max : float
        The largest allocation.
    points : int, default GRID_POINTS
        How many allocations.
    """
    grid = np.geomspace(max(float(n_min), 1.0), max(float(n_max), float(n_min), 1.0), points)
    step = 10.0 ** (np.floor(np.log10(grid)) - 3)
    return np.unique(np.round(grid / step) * step)


def prediction_curves(predictor, grid, level: float = 0.8) -> pd.DataFrame:
    """Every fitted model's and the predictor's prediction and calibrated ``level`` interval on ``grid``.

    Columns ``model`` (a name of ``MODELS`` or ``"predictor"``), ``n``, ``prediction``,
    ``lower``, ``upper`` (NaN where a model refuses).

    Parameters
    ----------
    predictor : ScalingPredictor
        A fitted predictor.
    grid : array-like
        The allocations (e.g. :func:`allocation_grid`).
    level : float, default 0.8
        Central probability of the intervals.
    """
    grid = np.asarray(grid, float)
    frame = predictor.predict_frame(grid, level)
    parts = [pd.DataFrame({"model": PREDICTOR, "n": grid, "prediction": frame["prediction"].to_numpy(float),
                           "lower": frame["lower"].to_numpy(float), "upper": frame["upper"].to_numpy(float)})]
    cal = predictor.calibration if predictor.calibration is not None else default_calibration()
    for name, model in predictor.members_.items():
        lower, upper = model.predict_interval(grid, level, calibration=cal)
        parts.append(pd.DataFrame({"model": name, "n": grid, "prediction": model.predict(grid),
                                   "lower": lower, "upper": upper}))
    return pd.concat(parts, ignore_index=True)


def weights_frame(predictor) -> pd.DataFrame:
    """One row per model of the predictor.

    ``model`` (name), ``label`` (with its reference key), ``weight`` (combination weight, 0
    when not fitted), ``cv_error`` (mean absolute log error predicting this curve's own
    largest allocation(s), NaN: too short), ``status`` ("fitted", "fitted, drawn only" when
    its weight is negligible, or why it could not be fitted).

    Parameters
    ----------
    predictor : ScalingPredictor
        A fitted predictor.
    """
    rows = []
    for name in predictor.models:
        weight = float(predictor.weights_.get(name, 0.0))
        status = ("fitted" if weight >= 1e-3 else "fitted, drawn only (weight < 0.1 %)") if name in predictor.members_ \
            else predictor.failures_.get(name, "not fitted")
        rows.append({"model": name, "label": MODEL_LABELS.get(name, name), "weight": weight,
                     "cv_error": float(predictor.cv_error_.get(name, np.nan)), "status": status})
    return pd.DataFrame(rows, columns=["model", "label", "weight", "cv_error", "status"])


def holdout_frame(predictor, held_back, level: float = 0.8) -> pd.DataFrame:
    """Tabulate the predictor against runs it did not see.

    One row per held-back allocation with ``n``, ``actual`` (median runtime there),
    ``prediction``, ``lower``, ``upper``, ``error_pct`` (|prediction - actual| / actual,
    %), ``inside`` (actual in the interval) and ``warned``.

    Parameters
    ----------
    predictor : ScalingPredictor
        A fitted predictor.
    held_back : (array-like, array-like) or None
        ``(n, t)`` of the runs it did not see.
    level : float, default 0.8
        Central probability of the intervals.
    """
    n, t = run_pair(held_back, "held_back")
    columns = ["n", "actual", "prediction", "lower", "upper", "error_pct", "inside", "warned"]
    if n.size == 0:
        return pd.DataFrame(columns=columns)
    actual = pd.Series(t).groupby(n).median()
    frame = predictor.predict_frame(actual.index.to_numpy(float), level)
    a = actual.to_numpy(float)
    return pd.DataFrame({
        "n": frame["n"], "actual": a, "prediction": frame["prediction"], "lower": frame["lower"],
        "upper": frame["upper"], "error_pct": 100 * np.abs(frame["prediction"] - a) / a,
        "inside": (frame["lower"] <= a) & (a <= frame["upper"]), "warned": frame["warned"],
    })[columns]


def prediction_title(row, unit: str = "processes", level: float = 0.8) -> str:
    """``"at n = X <unit>: T s (80 % interval L – U s)"`` for a row of ``predict_frame``.

    Parameters
    ----------
    row : pandas.Series
        A row of ``predict_frame``.
    unit : str, default "processes"
        What n counts, in words.
    level : float, default 0.8
        Central probability of the interval.
    """
    n = float(row["n"])
    if not np.isfinite(row["prediction"]):
        return f"at n = {n:g} {unit}: no model predicts here"
    return (f"at n = {n:g} {unit}: {format_seconds(row['prediction'])} "
            f"({100 * level:.0f} % interval {row['lower']:.3g} – {row['upper']:.3g} s)")


# -------------------------------------------------------------------------- figures


def _band(x: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the closed polygon of an interval band, dropping allocations without a finite interval."""
    ok = np.isfinite(lower) & np.isfinite(upper) & (lower > 0)
    x, lower, upper = x[ok], lower[ok], upper[ok]
    return np.concatenate([x, x[::-1]]), np.concatenate([upper, lower[::-1]])


def _y_range(runs: Sequence[np.ndarray], bands: Sequence[np.ndarray], clip: float = 20.0) -> list[float]:
    """Return the log10 y range holding the runs and the bands.

    The bands are cut at ``clip`` times beyond the runs (an interval spanning decades must
    not squash the data into a line).
    """
    def finite(values):
        v = np.concatenate([np.asarray(a, float).ravel() for a in values] or [np.zeros(0)])
        return v[np.isfinite(v) & (v > 0)]

    t, b = finite(runs), finite(bands)
    if t.size == 0 and b.size == 0:
        return [0.0, 1.0]
    lo = t.min() if t.size else b.min()
    hi = t.max() if t.size else b.max()
    if b.size:
        lo, hi = max(min(lo, b.min()), lo / clip), min(max(hi, b.max()), hi * clip)
    return [float(np.log10(lo / 1.5)), float(np.log10(hi * 1.5))]


def _model_traces(curves: pd.DataFrame, shown: set, weights: dict) -> list[go.Scatter]:
    """Return the band and prediction traces of every model and of the predictor (hidden when not ``shown``)."""
    data = []
    for name in [*MODELS, PREDICTOR]:
        c = curves[curves["model"] == name]
        x, lo, up, pred = (c[k].to_numpy(float) for k in ("n", "lower", "upper", "prediction"))
        is_pred = name == PREDICTOR
        visible = is_pred or (name in shown and len(c) > 0)
        bx, by = _band(x, lo, up) if visible else (np.zeros(0), np.zeros(0))
        color = _COLORS.get(name, "#7f7f7f")
        label = MODEL_LABELS.get(name, name)
        data.append(go.Scatter(
            x=bx, y=by, name=f"{label} band", fill="toself", mode="lines", line=dict(width=0),
            fillcolor=_rgba(color, 0.22 if is_pred else 0.07), hoverinfo="skip", showlegend=False,
            legendgroup=name, visible=visible))
        wtext = "" if is_pred else f" (w = {100 * weights.get(name, 0.0):.0f} %)"
        data.append(go.Scatter(
            x=x if visible else [], y=pred if visible else [], name=label + wtext, mode="lines", legendgroup=name,
            line=dict(color=color, width=3.5 if is_pred else 1.5, dash=None if is_pred else "dot"),
            hovertemplate=f"{label}<br>n = %{{x:.4g}}<br>t = %{{y:.4g}} s<extra></extra>", visible=visible))
    return data


def _run_traces(n_obs: np.ndarray, t_obs: np.ndarray, n_held: np.ndarray, t_held: np.ndarray) -> list[go.Scatter]:
    """Return the traces of the observed (fitted) and the held-back runs."""
    return [
        go.Scatter(
            x=n_obs, y=t_obs, name="observed runs (fitted)", mode="markers",
            marker=dict(color=_COLORS["observed"], size=8, symbol="circle"),
            hovertemplate="observed<br>n = %{x:g}<br>t = %{y:.4g} s<extra></extra>"),
        go.Scatter(
            x=n_held, y=t_held, name="held back (actual)", mode="markers",
            marker=dict(color="white", size=9, symbol="diamond", line=dict(color=_COLORS["held"], width=2)),
            hovertemplate="held back: actual<br>n = %{x:g}<br>t = %{y:.4g} s<extra></extra>"),
    ]


def _prediction_layout(fig: go.Figure, head: str, unit: str, x_all: np.ndarray, yr: list[float]) -> go.Figure:
    """Title, log axes (x around every allocation drawn, y the range ``yr``) and legend of :func:`prediction_figure`."""
    fig.update_layout(
        title=dict(text=head, font=dict(size=16)), height=480, margin=dict(l=60, r=20, t=60, b=50),
        xaxis=dict(type="log", title=f"allocation n ({unit})",
                   range=[float(np.log10(x_all.min() / 1.3)), float(np.log10(x_all.max() * 1.3))]),
        yaxis=dict(type="log", title="runtime [s]", range=yr),
        legend=dict(font=dict(size=11), itemsizing="constant"), hovermode="closest", template="plotly_white",
    )
    return fig


def _target_traces(target: float, row: pd.Series, level: float, yr: list[float]) -> list[go.Scatter]:
    """Return the target's vertical line, the predictor's interval there and its prediction."""
    data = []
    data.append(go.Scatter(
        x=[target, target], y=[10 ** yr[0], 10 ** yr[1]], name="target", mode="lines", showlegend=False,
        line=dict(color=_COLORS[PREDICTOR], width=1, dash="dash"), hoverinfo="skip"))
    p, lo, up = (float(row[k]) for k in ("prediction", "lower", "upper"))
    ok = np.isfinite(p)
    # the interval as an error bar: a segment with caps (not error_y, which needs the point
    # inside the interval; the calibrated interval corrects a bias and may lie beside it)
    data.append(go.Scatter(
        x=[target, target] if ok else [], y=[lo, up] if ok else [], name=f"{100 * level:.0f} % interval at the target",
        mode="lines+markers", line=dict(color=_COLORS[PREDICTOR], width=3),
        marker=dict(symbol="line-ew-open", size=16, color=_COLORS[PREDICTOR], line=dict(width=3)),
        hovertemplate=f"target n = {target:g}<br>{100 * level:.0f} % interval {lo:.4g} – {up:.4g} s<extra></extra>"))
    data.append(go.Scatter(
        x=[target] if ok else [], y=[p] if ok else [], name="prediction at the target", mode="markers",
        marker=dict(color=_COLORS[PREDICTOR], size=14, symbol="star", line=dict(color="white", width=1)),
        hovertemplate="target n = %{x:g}<br>prediction %{y:.4g} s<extra></extra>"))
    return data


def prediction_figure(
    predictor,
    target: float,
    *,
    level: float = 0.8,
    observed=None,
    held_back=None,
    models: Sequence[str] | None = None,
    unit: str = "processes",
    curves: pd.DataFrame | None = None,
    grid=None,
    target_frame: pd.DataFrame | None = None,
    title: str | None = None,
) -> go.Figure:
    """Runtime vs allocation (log-log) with every model's prediction and the predictor's.

    Traces, always in this order (``2 len(MODELS) + 7``):

    * per model of :data:`~workbench.models.scaling.MODELS`: its ``level`` interval band
      (light, ``"<label> band"``) and its prediction (``"<label> (w = 12 %)"``); invisible and
      empty when the model is not in ``models`` (default: all) or could not be fitted;
    * the predictor's band (highlighted) and prediction;
    * ``observed``: the runs used to fit, ``held_back``: runs not used ("actual"), both
      pairs (n, t) with repeats as separate points;
    * the target allocation: a vertical line, the predictor's interval there (a segment with
      caps: an error bar that need not contain the point, since the calibrated interval
      corrects the models' typical bias) and its prediction (a star).

    ``curves`` (:func:`prediction_curves`) and ``target_frame`` (``predict_frame([target])``)
    may be passed when already computed; ``grid`` defaults to :func:`allocation_grid` from
    the smallest run to 16x the largest (or the target).  The y range follows the runs and
    predictor's band (cut at 20x beyond the runs), so a huge interval does not squash the runs.

    Parameters
    ----------
    predictor : ScalingPredictor
        A fitted predictor.
    target : float
        The target allocation.
    level : float, default 0.8
        Central probability of the intervals.
    observed, held_back : (array-like, array-like) or None, default None
        Runs ``(n, t)`` used to fit, and runs held back.
    models : sequence of str or None, default None
        The models drawn (None: all of :data:`~workbench.models.scaling.MODELS`).
    unit : str, default "processes"
        What n counts, for the axis title.
    curves : pandas.DataFrame or None, default None
        :func:`prediction_curves` already computed.
    grid : array-like or None, default None
        Allocations of the curves when ``curves`` is None.
    target_frame : pandas.DataFrame or None, default None
        ``predict_frame([target], level)`` already computed.
    title : str or None, default None
        The title; None: :func:`prediction_title` of the target row.
    """
    n_obs, t_obs = run_pair(observed, "observed")
    n_held, t_held = run_pair(held_back, "held_back")
    target = float(target)
    if curves is None:
        if grid is None:
            n_all = np.concatenate([n_obs, n_held, predictor.allocations_])
            grid = allocation_grid(n_all.min(), max(16 * n_all.max(), target))
        curves = prediction_curves(predictor, grid, level)
    row = (target_frame if target_frame is not None else predictor.predict_frame([target], level)).iloc[0]
    shown = set(MODELS if models is None else models)
    data = _model_traces(curves, shown, predictor.weights_)
    data += _run_traces(n_obs, t_obs, n_held, t_held)
    pred_band = curves[curves["model"] == PREDICTOR]
    yr = _y_range([t_obs, t_held], [pred_band["lower"], pred_band["upper"], [row["lower"], row["upper"]]])
    data += _target_traces(target, row, level, yr)
    head = title if title is not None else prediction_title(row, unit, level)
    x_all = np.concatenate([curves["n"].to_numpy(float), n_obs, n_held, [target]])
    return _prediction_layout(go.Figure(data=data), head + (" ⚠ warned" if bool(row["warned"]) else ""), unit,
                              x_all, yr)


def protocol_figure(runs: pd.DataFrame, protocol: str, level: float = 0.8) -> go.Figure:
    """Draw one curve of a curve table as the scaling benchmark sees it under ``protocol``.

    Curve tables are described in :mod:`workbench.io.curves`; protocols are ``k3``, ``k4``,
    ``spread`` (:func:`~workbench.evaluation.scaling_benchmark.protocol_split`): the predictor
    fitted on the measured allocations, the others held back, the target its largest predicted
    allocation; drawn by :func:`prediction_figure` (a placeholder when the curve is too short).

    Parameters
    ----------
    runs : pandas.DataFrame
        The runs of one curve (a curve table).
    protocol : {"k3", "k4", "spread"}
        The benchmark protocol.
    level : float, default 0.8
        Central probability of the intervals.
    """
    from workbench.evaluation.scaling_benchmark import protocol_split
    from workbench.models.scaling import ScalingPredictor

    if runs.empty:
        raise ValidationError("protocol_figure: the curve has no runs")
    curve_id = str(runs["curve_id"].iloc[0])
    n, t = runs["n"].to_numpy(float), runs["time_s"].to_numpy(float)
    split = protocol_split(np.unique(n), protocol)
    if split is None:
        fig = go.Figure()
        fig.update_layout(title_text=f"{curve_id} is too short for protocol {protocol}", height=300,
                          xaxis=dict(visible=False), yaxis=dict(visible=False))
        return fig
    keep = np.isin(n, split[0])
    with quiet_warnings():  # a figure shows the prediction; the warnings are in predictor.warnings_
        predictor = ScalingPredictor().fit(n[keep], t[keep])
    unit = str(runs["unit"].iloc[0]) if "unit" in runs.columns else "processes"
    fig = prediction_figure(predictor, float(split[1].max()), level=level, observed=(n[keep], t[keep]),
                            held_back=(n[~keep], t[~keep]), unit=unit, grid=allocation_grid(n.min(), 2 * n.max()))
    fig.update_layout(title_text=f"{curve_id}, protocol {protocol}: {fig.layout.title.text}", height=420)
    return fig


# ------------------------------------------------------------------------ benchmark

#: Leaderboard columns that are shares of the predictions (shown in %).
_SHARES = ("within_10", "within_20", "coverage", "warned_share", "miss_recall", "good_silent")
_BOARD_NAMES = {
    "model": "model", "curves": "curves", "predictions": "predictions", "refused": "refused",
    "median_pa": "median PA", "within_10": "within 10 %", "within_20": "within 20 %", "coverage": "interval coverage",
    "median_width": "median width (upper/lower)", "warned_share": "warned",
    "miss_recall": f"misses > {THRESHOLDS['miss'].value:.0%} warned".replace("%", " %"),
    "good_silent": f"silent when ≤ {THRESHOLDS['miss'].value:.0%}".replace("%", " %"), "fit_ms": "fit [ms]",
}


def format_leaderboard(frame: pd.DataFrame, approximate: Sequence[str] = ()) -> pd.DataFrame:
    """Leaderboard rows for display.

    Shares in %, PA in %, widths as ``1.23x``; columns named in words, those in
    ``approximate`` marked with ``≈``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Leaderboard rows (:func:`~workbench.evaluation.scaling_benchmark.leaderboard`).
    approximate : sequence of str, default ()
        Columns marked as approximate.
    """
    out = pd.DataFrame(index=frame.index)
    for col, name in _BOARD_NAMES.items():
        if col not in frame.columns:
            continue
        v = frame[col]
        if col in _SHARES:
            v = v.map(lambda x: "–" if pd.isna(x) else f"{100 * x:.0f} %")
        elif col == "median_pa":
            v = v.map(lambda x: "–" if pd.isna(x) else f"{x:.1f} %")
        elif col == "median_width":
            v = v.map(lambda x: "–" if pd.isna(x) else f"{x:.2f}x")
        elif col == "fit_ms":
            v = v.map(lambda x: "–" if pd.isna(x) else f"{x:.1f}")
        out[name + (" ≈" if col in approximate else "")] = v
    return out
