"""Figures and tables of FiM-Cal ([Bhimani2019] sections 2 and 4).

Every function takes data -- measured runs (tidy frames of
:mod:`workbench.evaluation.fim`), a fitted
:class:`~workbench.models.fim.HardwareRegression`, a
:class:`~workbench.models.fim.CalibrationResult`, a transition matrix -- and returns a
:class:`plotly.graph_objects.Figure` or a tidy ``DataFrame``; nothing here fits a model
or touches a widget.

* :func:`regression_surface` -- paper Fig. 10: TC, SC or U over two application
  parameters, measured points and the fitted Eq. 11 surface (3-D, WebGL);
  :func:`regression_slices` -- the same as lines over one parameter (2-D).
* :func:`calibration_trace` -- Algorithm 1's walk: RMS error against alpha, tau, the
  chosen alpha, the rows left out ("neglect bad values").
* :func:`transition_heatmap`, :func:`occupancy_figure` -- the Markov chain of Eqs. 6-8
  and the distribution over the number of active processes cycle by cycle.
* :func:`prediction_vs_actual`, :func:`parity_figure` -- predicted against measured
  calculation time (paper Fig. 6 (a) and Table 4's errors).
* :func:`table4_frame`, :func:`table4_figure` -- the paper's Table 4 beside ours.

:func:`calibration_trace` and :func:`prediction_vs_actual` keep the same traces in the
same order whatever the data (empty traces stand for absent items), so a dashboard can
update a live ``FigureWidget`` in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from workbench.errors import ValidationError
from workbench.evaluation.fim import KMEANS_FEATURES, Comparison
from workbench.evaluation.fim_explore import display_probabilities
from workbench.models.fim import CalibrationResult, HardwareRegression, feature_columns
from workbench.validation import require_columns

__all__ = [
    "HARDWARE_LABELS",
    "PARAMETER_LABELS",
    "calibration_trace",
    "config_label",
    "display_probabilities",
    "hardware_column",
    "occupancy_figure",
    "parity_figure",
    "prediction_vs_actual",
    "regression_slices",
    "regression_surface",
    "select_config",
    "table4_figure",
    "table4_frame",
    "transition_heatmap",
]

#: Hardware variables of FiM (section 2.1.1): frame column -> short name used in the paper.
HARDWARE_LABELS = {"cycles": "TC", "stall_cycles": "SC", "utilization": "U"}
#: Axis labels of the K-means application parameters (section 2.2.1).
PARAMETER_LABELS = {"iterations": "I (iterations)", "clusters": "K (clusters)", "points": "N (points)"}
_SHORT = {"iterations": "I", "clusters": "K", "points": "N"}
_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
_C = {"measured": "#111111", "tau": "#d62728", "chosen": "#2ca02c", "used": "#9467bd", "valid": "#9e9e9e",
      "done": "#111111", "band": "rgba(31,119,180,0.12)"}


# ----------------------------------------------------------------------------- helpers


def hardware_column(variable: str) -> str:
    """Frame column of a hardware variable given as ``"TC"``, ``"SC"``, ``"U"`` or a column name.

    Parameters
    ----------
    variable : str
        ``"TC"``, ``"SC"``, ``"U"`` or a column name.
    """
    by_short = {v: k for k, v in HARDWARE_LABELS.items()}
    key = by_short.get(str(variable).upper(), variable)
    if key not in HARDWARE_LABELS:
        raise ValidationError(
            f"hardware variable must be one of TC, SC, U ({', '.join(HARDWARE_LABELS)}), got {variable!r}")
    return key


def _label(column: str) -> str:
    return PARAMETER_LABELS.get(column, column)


def config_label(config: Mapping) -> str:
    """``"I=40, K=16, N=320000"`` for a configuration mapping.

    Parameters
    ----------
    config : mapping
        Application parameter -> value.
    """
    return ", ".join(f"{_SHORT.get(k, k)}={float(v):g}" for k, v in config.items())


def _as_config(config, features: Sequence[str]) -> dict:
    if isinstance(config, Mapping):
        missing = [f for f in features if f not in config]
        if missing:
            raise ValidationError(f"configuration {dict(config)!r} lacks {missing}")
        return {f: config[f] for f in features}
    values = tuple(config)
    if len(values) != len(features):
        raise ValidationError(f"configuration {values!r} must give one value per feature {list(features)}")
    return dict(zip(features, values, strict=True))


def select_config(frame: pd.DataFrame, config, features: Sequence[str] = KMEANS_FEATURES) -> np.ndarray:
    """Return the boolean mask of the rows of ``frame`` with the application parameters ``config``.

    ``config`` is a mapping feature -> value, or a tuple in ``features`` order.

    Parameters
    ----------
    frame : pandas.DataFrame
        Runs with the feature columns.
    config : mapping or tuple
        Feature -> value, or the values in ``features`` order.
    features : sequence of str, default KMEANS_FEATURES
        The application parameters.
    """
    config = _as_config(config, features)
    mask = np.ones(len(frame), dtype=bool)
    for f, v in config.items():
        mask &= np.isclose(frame[f].to_numpy(dtype=float), float(v))
    return mask


def _nearest_median(values: np.ndarray) -> float:
    values = np.unique(values)
    return float(values[np.argmin(np.abs(values - np.median(values)))])


# --------------------------------------------------------------- regression (Fig. 10)


def _regression_view(runs: pd.DataFrame, regression: HardwareRegression, variable: str, x: str, y: str,
                     fixed: Mapping | None, where: str) -> tuple[str, list[str], dict, np.ndarray]:
    """Run the checks shared by the two regression views.

    The hardware column, the other parameters, their fixed values (default: measured value
    nearest the median) and the mask of the runs on that slice.
    """
    if not hasattr(regression, "coef_"):
        raise ValidationError(f"{where}: the regression is not fitted")
    column = hardware_column(variable)
    params = feature_columns(regression.features)
    for axis in (x, y):
        if axis not in params:
            raise ValidationError(f"{where}: {axis!r} is not a parameter of the regression (parameters: {params})")
    if x == y:
        raise ValidationError(f"{where}: x and y must be different parameters, both are {x!r}")
    require_columns(runs, [*params, column], where)
    others = [p for p in params if p not in (x, y)]
    fixed = dict(fixed or {})
    for p in others:
        fixed.setdefault(p, _nearest_median(runs[p].to_numpy(dtype=float)))
    on_slice = select_config(runs, fixed, others) if others else np.ones(len(runs), dtype=bool)
    return column, others, fixed, on_slice


def _fitted(regression: HardwareRegression, column: str, values: Mapping) -> np.ndarray:
    """Eq. 11 (alpha = 1) at the parameter ``values`` (arrays of one shape, or scalars)."""
    shape = np.broadcast(*(np.asarray(v) for v in values.values())).shape
    frame = pd.DataFrame({k: np.broadcast_to(np.asarray(v, dtype=float), shape).ravel() for k, v in values.items()})
    return regression.predict(frame)[column].to_numpy().reshape(shape)


def _regression_title(regression: HardwareRegression, column: str, fixed: Mapping) -> str:
    fixed_text = config_label(fixed) if fixed else "no other parameter"
    return (f"{HARDWARE_LABELS[column]} = β0 + β·X (Eq. 11), R² = {float(regression.r2_[column]):.4f} "
            f"over all runs; slice {fixed_text}")


def regression_surface(runs: pd.DataFrame, regression: HardwareRegression, variable: str, x: str, y: str,
                       fixed: Mapping | None = None, grid: int = 25) -> go.Figure:
    """Paper Fig. 10: a hardware variable (TC, SC or U) over two application parameters.

    ``runs``: the runs the hardware variables were regressed on (FiM: one process).
    ``regression``: the fitted Eq. 11 mapping.  ``x``, ``y``: two parameter columns read by
    its features; every other parameter is held at ``fixed[name]`` (default: the measured
    value nearest the median).  Traces: the fitted surface (alpha = 1, Eq. 11) over the
    measured range, the runs at the fixed values (black), the other runs (grey: they lie
    on other slices of the fit).  With a product feature such as ``I*K*N`` the "plane"
    is curved.  A WebGL figure: see :func:`regression_slices` for a light 2-D view.

    Parameters
    ----------
    runs : pandas.DataFrame
        The runs the hardware variables were regressed on (FiM: one process).
    regression : HardwareRegression
        The fitted Eq. 11 mapping.
    variable : str
        The hardware variable drawn (``"TC"``, ``"SC"``, ``"U"`` or a column name).
    x, y : str
        Two parameter columns read by the regression's features.
    fixed : mapping, optional
        Values of the other parameters; default: the measured value nearest the median.
    grid : int, default 25
        Grid points per axis of the surface.
    """
    column, _, fixed, on_slice = _regression_view(runs, regression, variable, x, y, fixed, "regression_surface")
    gx = np.linspace(runs[x].min(), runs[x].max(), grid)
    gy = np.linspace(runs[y].min(), runs[y].max(), grid)
    mx, my = np.meshgrid(gx, gy)
    z = _fitted(regression, column, {x: mx, y: my, **fixed})
    short = HARDWARE_LABELS[column]

    def points(mask, name, color, size):
        sel = runs[mask]
        return go.Scatter3d(x=sel[x].to_numpy(float), y=sel[y].to_numpy(float), z=sel[column].to_numpy(float),
                            mode="markers", name=name, marker=dict(size=size, color=color))

    fig = go.Figure([
        go.Surface(x=gx, y=gy, z=z, name=f"Eq. 11 fit of {short}", colorscale="Viridis", opacity=0.75,
                   showscale=False, showlegend=True),
        points(on_slice, f"measured, {config_label(fixed) if fixed else 'all'}", _C["measured"], 4),
        points(~on_slice, "measured, other slices", "#b0b0b0", 2.5),
    ])
    fig.update_layout(
        title=dict(text=_regression_title(regression, column, fixed)),
        scene=dict(xaxis_title=_label(x), yaxis_title=_label(y), zaxis_title=f"{short} ({column})"),
        height=480, margin=dict(l=0, r=0, t=50, b=0), legend=dict(x=0, y=1),
    )
    return fig


def regression_slices(runs: pd.DataFrame, regression: HardwareRegression, variable: str, x: str, y: str,
                      fixed: Mapping | None = None, grid: int = 25) -> go.Figure:
    """Paper Fig. 10 in 2-D.

    The same data as :func:`regression_surface`, as one line per measured value of ``y``
    -- the Eq. 11 fit over ``x`` at that ``y`` (the other parameters at ``fixed``) -- with
    the measured runs of that slice as markers of the same colour.  Plain features give
    straight, parallel lines; a product feature fans them out.  Traces, per value of
    ``y``: the fitted line, then the measured points.

    Parameters
    ----------
    runs : pandas.DataFrame
        The runs the hardware variables were regressed on.
    regression : HardwareRegression
        The fitted Eq. 11 mapping.
    variable : str
        The hardware variable drawn.
    x, y : str
        The parameter along the lines, and the one whose measured values give the lines.
    fixed : mapping, optional
        Values of the other parameters; default: the measured value nearest the median.
    grid : int, default 25
        Points per line.
    """
    column, _, fixed, on_slice = _regression_view(runs, regression, variable, x, y, fixed, "regression_slices")
    gx = np.linspace(runs[x].min(), runs[x].max(), grid)
    sel = runs[on_slice]
    fig = go.Figure()
    for k, v in enumerate(np.unique(runs[y].to_numpy(dtype=float))):
        color = _PALETTE[k % len(_PALETTE)]
        label = f"{_SHORT.get(y, y)}={v:g}"
        fig.add_trace(go.Scatter(x=gx, y=_fitted(regression, column, {x: gx, y: v, **fixed}), mode="lines",
                                 name=f"Eq. 11 fit, {label}", line=dict(color=color), legendgroup=label))
        at = sel[np.isclose(sel[y].to_numpy(dtype=float), v)]
        fig.add_trace(go.Scatter(x=at[x].to_numpy(float), y=at[column].to_numpy(float), mode="markers",
                                 name=f"measured, {label}", marker=dict(color=color, size=9), legendgroup=label))
    short = HARDWARE_LABELS[column]
    fig.update_layout(
        title=dict(text=_regression_title(regression, column, fixed)),
        xaxis_title=_label(x), yaxis_title=f"{short} ({column})", height=420,
        margin=dict(l=60, r=20, t=50, b=45),
    )
    return fig


# -------------------------------------------------------------- calibration (Alg. 1)


def calibration_trace(result: CalibrationResult, tau: float, alpha_used: float | None = None,
                      error: str = "relative") -> go.Figure:
    """Plot Algorithm 1's walk: RMS error against alpha, the threshold tau and the chosen alpha.

    RMS error on a log y axis, the chosen alpha as a star and, on the right axis, how many
    training rows were valid at each alpha (the others are neglected, line 17).  The x
    axis zooms on the alphas where some row is valid; the title says when the walk went on
    beyond them.  ``alpha_used``: an alpha used for prediction that differs from the
    calibrated one (dotted vertical line; empty trace otherwise). Fixed traces: RMS, tau,
    chosen alpha, alpha used, valid rows.

    Parameters
    ----------
    result : CalibrationResult
        Algorithm 1's outcome (:func:`~workbench.models.fim.calibrate_alpha`).
    tau : float
        The RMS threshold.
    alpha_used : float, optional
        An alpha used for prediction that differs from the calibrated one.
    error : {"relative", "absolute"}, default "relative"
        What the RMS error measures (the y axis title).
    """
    if not (np.isfinite(tau) and tau > 0):
        raise ValidationError(f"calibration_trace: tau must be > 0, got {tau!r}")
    trace = result.trace
    a = trace["alpha"].to_numpy(float)
    rms = trace["rms"].to_numpy(float)
    # Zoom on the alphas where some row is valid (plus one step beyond, to show the drop):
    # past alpha ~ 1/U (Eq. 12) a walk can go on for thousands of steps with nothing to draw.
    valid = trace["valid_rows"].to_numpy() > 0
    idx = np.flatnonzero(valid)
    if idx.size:
        zoom = np.arange(max(idx[0] - 1, 0), min(idx[-1] + 2, a.size))
    else:
        zoom = np.arange(a.size)
    lo, hi = float(np.min(a[zoom])), float(np.max(a[zoom]))
    lo, hi = min(lo, result.alpha), max(hi, result.alpha)
    beyond = ""
    if idx.size and idx[-1] < a.size - 1:
        beyond = f"<br>every training row is invalid (neglected) past α = {a[idx[-1]]:.4g}"
    if alpha_used is not None:
        lo, hi = min(lo, alpha_used), max(hi, alpha_used)
    if hi == lo:
        lo, hi = lo - 0.01, hi + 0.01
    finite = rms[np.isfinite(rms) & (rms > 0)]
    ylo = min(float(finite.min()) if finite.size else tau, tau) / 2
    yhi = max(float(finite.max()) if finite.size else tau, tau) * 2
    used = [] if alpha_used is None or np.isclose(alpha_used, result.alpha) else [alpha_used, alpha_used]
    unit = "relative RMS error" if error == "relative" else "RMS error [s]"
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=a, y=rms, mode="lines+markers", name=f"{unit} along the walk",
                             line=dict(color=_PALETTE[0]), marker=dict(size=3)))
    fig.add_trace(go.Scatter(x=[lo, hi], y=[tau, tau], mode="lines", name=f"τ = {tau:.3g}",
                             line=dict(color=_C["tau"], dash="dash")))
    fig.add_trace(go.Scatter(x=[result.alpha], y=[result.rms], mode="markers",
                             name=f"calibrated α = {result.alpha:.6g}",
                             marker=dict(symbol="star", size=14, color=_C["chosen"],
                                         line=dict(width=1, color="black"))))
    fig.add_trace(go.Scatter(x=used, y=[ylo, yhi] if used else [], mode="lines",
                             name=f"α used = {alpha_used:.4g}" if used else "α used (= calibrated)",
                             line=dict(color=_C["used"], dash="dot")))
    fig.add_trace(go.Scatter(x=a, y=trace["valid_rows"].to_numpy(float), mode="lines", name="valid training rows",
                             line=dict(color=_C["valid"], width=1, shape="hv")), secondary_y=True)
    direction = "up" if result.direction > 0 else "down"
    if result.converged:
        status = f"converged: RMS < τ after {result.iterations} steps ({direction})"
    else:
        status = f"NOT converged in {result.iterations} steps ({direction}); best α on the walk"
    fig.update_layout(
        title=dict(text=f"Algorithm 1: {status}, α = {result.alpha:.6g}, RMS = {result.rms:.3g}{beyond}"),
        height=400, margin=dict(l=60, r=60, t=70, b=45), legend=dict(orientation="h", y=-0.2),
    )
    pad = 0.02 * (hi - lo)
    fig.update_xaxes(title_text="α (Eq. 12 sensitivity constant)", range=[lo - pad, hi + pad])
    fig.update_yaxes(title_text=unit, type="log", range=[np.log10(ylo), np.log10(yhi)], secondary_y=False)
    rows = float(trace["valid_rows"].max()) if len(trace) else 1.0
    fig.update_yaxes(title_text="valid training rows", range=[0, 1.1 * max(rows, 1.0)], showgrid=False, nticks=4,
                     tickformat="d", secondary_y=True)
    return fig


# ------------------------------------------------------------------ Markov (Eqs. 6-8)


# display_probabilities (the chain drawn with a short stage) is computed in
# workbench.evaluation.fim_explore; imported above for the callers of this module.


def transition_heatmap(matrix: np.ndarray, title: str | None = None) -> go.Figure:
    """Heatmap of P_ij(t) (Eqs. 6-8).

    Rows i = active processes now, columns j = active processes one cycle later, plus a
    last column ``done`` = 1 - sum_j P_ij, the probability that an active process
    completes the stage (Eq. 9 for i = t).

    Parameters
    ----------
    matrix : ndarray of float, shape (t + 1, t + 1)
        Transition matrix (:func:`~workbench.models.fim.transition_matrix`).
    title : str, optional
        Figure title; default: a description of the matrix.
    """
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValidationError(f"transition_heatmap: matrix must be square, got shape {matrix.shape}")
    t = matrix.shape[0] - 1
    done = np.clip(1.0 - matrix.sum(axis=1), 0.0, 1.0)
    z = np.column_stack([matrix, done])
    columns = [str(j) for j in range(t + 1)] + ["done"]
    rows = [str(i) for i in range(t + 1)]
    fig = go.Figure(go.Heatmap(z=z, x=columns, y=rows, colorscale="Viridis", colorbar=dict(title="P"),
                               hovertemplate="i = %{y} active → %{x}: %{z:.4g}<extra></extra>"))
    fig.update_layout(
        title=dict(text=title or f"Transition matrix P_ij({t}) (Eqs. 6-8) and completion"),
        xaxis=dict(title="j: active processes next cycle (or done)", type="category"),
        yaxis=dict(title="i: active processes now", type="category", autorange="reversed"),
        height=400, margin=dict(l=60, r=20, t=50, b=50),
    )
    return fig


def occupancy_figure(occupancy: np.ndarray, title: str | None = None) -> go.Figure:
    """State occupancy over cycles (:func:`workbench.models.fim.state_occupancy`, shape ``(cycles + 1, t + 2)``).

    The probability of each number of active processes as stacked areas, and the completed
    mass (last column) as its own line.

    Parameters
    ----------
    occupancy : ndarray of float, shape (cycles + 1, t + 2)
        State probabilities per cycle, completion last.
    title : str, optional
        Figure title; default: a description of the occupancy.
    """
    occupancy = np.asarray(occupancy, dtype=float)
    if occupancy.ndim != 2 or occupancy.shape[1] < 3:
        raise ValidationError(f"occupancy_figure: expected shape (cycles + 1, t + 2), got {occupancy.shape}")
    t = occupancy.shape[1] - 2
    cycles = np.arange(occupancy.shape[0])
    fig = go.Figure()
    colors = [f"rgba({int(68 + 185 * i / max(t, 1))},{int(1 + 200 * i / max(t, 1))},{int(84 + 60 * i / max(t, 1))},0.8)"
              for i in range(t + 1)]
    for i in range(t + 1):
        fig.add_trace(go.Scatter(x=cycles, y=occupancy[:, i], mode="lines", stackgroup="states", name=f"{i} active",
                                 line=dict(width=0.5, color=colors[i]), showlegend=t <= 8))
    fig.add_trace(go.Scatter(x=cycles, y=occupancy[:, -1], mode="lines", name="completed",
                             line=dict(color=_C["done"], width=3, dash="dash")))
    fig.update_layout(
        title=dict(text=title or f"State occupancy from all {t} active; completed after {cycles[-1]} cycles: "
                                 f"{occupancy[-1, -1]:.3f}"),
        xaxis_title="cycle", yaxis=dict(title="probability", range=[0, 1.02]),
        height=400, margin=dict(l=60, r=20, t=50, b=50),
    )
    return fig


# ------------------------------------------------------------ prediction vs actual

#: Predictions further than this factor from the measured range are drawn off the chart
#: (a wild extrapolation would otherwise squash everything else to a line).
_RANGE_FACTOR = 20.0


def _clip_range(values: np.ndarray, actual: np.ndarray) -> tuple[float, float]:
    """Return a log-axis range covering ``actual`` and the positive ``values`` near it.

    Values within :data:`_RANGE_FACTOR` of ``actual`` count; the range has a margin.
    """
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    a_lo, a_hi = float(np.min(actual)), float(np.max(actual))
    inside = values[(values >= a_lo / _RANGE_FACTOR) & (values <= a_hi * _RANGE_FACTOR)]
    return float(min(a_lo, inside.min(initial=a_lo))) / 1.5, float(max(a_hi, inside.max(initial=a_hi))) * 1.5



def prediction_vs_actual(test_frame: pd.DataFrame, predictions: Mapping[str, np.ndarray], config,
                         features: Sequence[str] = KMEANS_FEATURES, target: str = "calc_time_s") -> go.Figure:
    """Paper Fig. 6 (a) for one configuration: calculation time against processes.

    ``test_frame``: runs aggregated over repeats (:func:`workbench.evaluation.fim.aggregate_runs`:
    median ``calc_time_s``, range ``calc_time_min_s`` / ``calc_time_max_s``);
    ``predictions``: model name -> seconds per row of ``test_frame`` (NaN = refused);
    ``config``: the application parameters to show (mapping or tuple in ``features`` order).
    Traces, in order: measured median with min-max range bars, one line per model, the
    actual optimum (star), the predicted optima (one marker per model, its colour).

    Parameters
    ----------
    test_frame : pandas.DataFrame
        Runs aggregated over repeats (:func:`workbench.evaluation.fim.aggregate_runs`).
    predictions : mapping of str to ndarray
        Model name -> seconds per row of ``test_frame`` (NaN = refused).
    config : mapping or tuple
        The application parameters shown (tuple in ``features`` order).
    features : sequence of str, default KMEANS_FEATURES
        The application parameters.
    target : str, default "calc_time_s"
        The measured time column, seconds.
    """
    where = "prediction_vs_actual"
    require_columns(test_frame, [*features, "processes", target], where)
    config = _as_config(config, features)
    mask = select_config(test_frame, config, features)
    if not mask.any():
        raise ValidationError(f"{where}: no measured runs with {config_label(config)}")
    for name, pred in predictions.items():
        if np.shape(pred) != (len(test_frame),):
            raise ValidationError(
                f"{where}: predictions of {name!r} have shape {np.shape(pred)}, expected ({len(test_frame)},)")
    sel = test_frame[mask]
    order = np.argsort(sel["processes"].to_numpy(float), kind="stable")
    sel = sel.iloc[order]
    t = sel["processes"].to_numpy(float)
    actual = sel[target].to_numpy(float)
    base = target.removesuffix("_s")
    error_y = None
    if f"{base}_min_s" in sel and f"{base}_max_s" in sel:
        error_y = dict(type="data", symmetric=False, array=sel[f"{base}_max_s"].to_numpy(float) - actual,
                       arrayminus=actual - sel[f"{base}_min_s"].to_numpy(float), color=_C["measured"], thickness=1.2)
    fig = go.Figure(go.Scatter(x=t, y=actual, mode="markers", name="measured (median, min-max)", error_y=error_y,
                               marker=dict(color=_C["measured"], size=9)))
    opt_x, opt_y, opt_c, opt_text = [], [], [], []
    summary = []
    for k, (name, pred) in enumerate(predictions.items()):
        y = np.asarray(pred, dtype=float)[mask][order]
        color = _PALETTE[k % len(_PALETTE)]
        fig.add_trace(go.Scatter(x=t, y=y, mode="lines+markers", name=name, line=dict(color=color, width=2),
                                 marker=dict(size=6)))
        if np.isfinite(y).any():
            i = int(np.nanargmin(y))
            opt_x.append(t[i])
            opt_y.append(y[i])
            opt_c.append(color)
            opt_text.append(f"{name}: optimum t = {t[i]:g}")
            summary.append(f"{name} {t[i]:g}")
        else:
            summary.append(f"{name} –")
    best = int(np.argmin(actual))
    fig.add_trace(go.Scatter(x=[t[best]], y=[actual[best]], mode="markers", name=f"actual optimum t = {t[best]:g}",
                             marker=dict(symbol="star", size=18, color="#ffd700", line=dict(width=1.5, color="black"))))
    fig.add_trace(go.Scatter(x=opt_x, y=opt_y, mode="markers", name="predicted optima", text=opt_text,
                             hovertemplate="%{text}<extra></extra>",
                             marker=dict(symbol="diamond-open", size=16, color=opt_c,
                                         line=dict(width=2.5, color=opt_c))))
    shown = np.r_[actual, opt_y, *(np.asarray(p, dtype=float)[mask] for p in predictions.values())]
    lo, hi = _clip_range(shown, actual)
    fig.update_layout(
        title=dict(text=f"{config_label(config)}: optimal t actual {t[best]:g}; predicted: " + ", ".join(summary)),
        xaxis=dict(title="processes t", type="log", tickvals=t, ticktext=[f"{v:g}" for v in t]),
        yaxis=dict(title="calculation time [s] (log)", type="log", range=[np.log10(lo), np.log10(hi)]),
        height=430, margin=dict(l=60, r=20, t=50, b=45), legend=dict(orientation="h", y=-0.18),
    )
    return fig


def parity_figure(comparison: Comparison, band_pct: float = 20.0) -> go.Figure:
    """Plot predicted against actual time for every test run and model (log axes).

    With y = x and the +-``band_pct`` % band ([Bhimani2019]: FiM's errors stay below 20
    %).

    Parameters
    ----------
    comparison : Comparison
        Scores of the models (:func:`~workbench.evaluation.fim.compare_predictions`).
    band_pct : float, default 20.0
        Half-width of the error band, percent.
    """
    runs = comparison.per_run
    require_columns(runs, ["actual_s"], "parity_figure")
    actual = runs["actual_s"].to_numpy(float)
    lo, hi = _clip_range(np.r_[actual, runs["predicted_s"].to_numpy(float)], actual)
    line = np.array([lo, hi])
    f = band_pct / 100
    fig = go.Figure([
        go.Scatter(x=line, y=line * (1 - f), mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"),
        go.Scatter(x=line, y=line * (1 + f), mode="lines", line=dict(width=0), fill="tonexty", fillcolor=_C["band"],
                   name=f"±{band_pct:g} %", hoverinfo="skip"),
        go.Scatter(x=line, y=line, mode="lines", name="predicted = actual", line=dict(color="#555", dash="dash")),
    ])
    within = []
    for k, (name, group) in enumerate(runs.groupby("model", sort=False)):
        text = [f"{name}<br>t = {p:g}, error {e:.1f} %"
                for p, e in zip(group["processes"], group["error_pct"], strict=True)]
        fig.add_trace(go.Scatter(x=group["actual_s"], y=group["predicted_s"], mode="markers", name=name, text=text,
                                 hovertemplate="%{text}<extra></extra>",
                                 marker=dict(color=_PALETTE[k % len(_PALETTE)], size=8, opacity=0.8)))
        err = group["error_pct"].dropna()
        within.append(f"{name} {(err <= band_pct).mean() * 100:.0f} %" if len(err) else f"{name} –")
    fig.update_layout(
        title=dict(text=f"All test runs; within ±{band_pct:g} %: " + ", ".join(within)),
        xaxis=dict(title="actual time [s]", type="log", range=np.log10(line)),
        yaxis=dict(title="predicted time [s]", type="log", range=np.log10(line)),
        height=430, margin=dict(l=60, r=20, t=50, b=45), legend=dict(traceorder="normal"),
    )
    return fig


# ------------------------------------------------------------------------ Table 4

TABLE4_COLUMNS = ["source", "application", "model", "best_pct", "average_pct", "worst_pct",
                  "predicted_optimal", "actual_optimal", "within_20_pct", "mean_spearman"]


def table4_frame(comparison: Comparison | None = None, paper: pd.DataFrame | None = None, apps=("KM",),
                 ours_label: str = "ours: K-means measured here") -> pd.DataFrame:
    """Return the paper's Table 4 rows beside our measured summary, one row per (source, model).

    Columns: ``source`` (``"paper Table 4"`` or ``ours_label``), ``application``,
    ``model``, ``best_pct`` / ``average_pct`` / ``worst_pct`` (relative error, %),
    ``predicted_optimal`` / ``actual_optimal`` (optimal process count; ours: one per
    test configuration, comma-separated, as text), ``within_20_pct`` (share of
    predictions within 20 %, ours only) and ``mean_spearman`` (rank correlation of the
    process counts, ours only; the paper reports 0.80-0.99 for FiM without a per-app value).
    ``paper``: the seed table (default ``fetch_seed_table("fim_vs_rbasp_table4")``);
    ``apps``: its applications to include (``None``: all).

    Parameters
    ----------
    comparison : Comparison, optional
        Our measured comparison; default None: the paper's rows only.
    paper : pandas.DataFrame, optional
        The seed table; default ``fetch_seed_table("fim_vs_rbasp_table4")``.
    apps : sequence of str, default ("KM",)
        The paper's applications included (None: all).
    ours_label : str, default "ours: K-means measured here"
        The ``source`` of our rows.
    """
    if paper is None:
        from workbench.io import fetch_seed_table

        paper = fetch_seed_table("fim_vs_rbasp_table4").frame
    rows = []
    chosen = paper if apps is None else paper[paper["app"].isin(list(apps))]
    for rec in chosen.itertuples(index=False):
        for model, key in (("RBASP", "rbasp"), ("FiM", "fim")):
            rows.append(dict(source="paper Table 4", application=rec.app, model=model,
                             best_pct=float(getattr(rec, f"best_err_{key}")),
                             average_pct=float(getattr(rec, f"avg_err_{key}")),
                             worst_pct=float(getattr(rec, f"worst_err_{key}")),
                             predicted_optimal=f"{getattr(rec, f'opt_procs_{key}'):g}",
                             actual_optimal=f"{rec.opt_procs_actual:g}", within_20_pct=np.nan, mean_spearman=np.nan))
    if comparison is not None:
        for rec in comparison.summary.itertuples(index=False):
            conf = comparison.per_config[comparison.per_config["model"] == rec.model]
            pred = ", ".join("–" if pd.isna(v) else f"{v:g}" for v in conf["predicted_optimal"])
            act = ", ".join(f"{v:g}" for v in conf["actual_optimal"])
            rows.append(dict(source=ours_label, application="KM", model=rec.model, best_pct=rec.best_pct,
                             average_pct=rec.average_pct, worst_pct=rec.worst_pct, predicted_optimal=pred,
                             actual_optimal=act, within_20_pct=rec.within_20_pct, mean_spearman=rec.mean_spearman))
    return pd.DataFrame(rows, columns=TABLE4_COLUMNS)


def table4_figure(table: pd.DataFrame) -> go.Figure:
    """Error ranges of :func:`table4_frame` rows.

    A bar from the best to the worst relative error with the average marked, one row per
    (source, model), log x axis (a model without any valid prediction keeps its row,
    empty).

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :func:`table4_frame`.
    """
    missing = [c for c in ("source", "application", "model", "best_pct", "average_pct", "worst_pct") if c not in table]
    if missing:
        raise ValidationError(f"table4_figure: missing column(s) {missing} (build the table with table4_frame)")
    labels = [f"{s.split(':')[0]} · {a} · {m}"
              for s, a, m in zip(table["source"], table["application"], table["model"], strict=True)]
    fig = go.Figure()
    ours = 0
    for label, rec in zip(labels, table.itertuples(index=False), strict=True):
        if rec.source.startswith("paper"):
            color = "#7f7f7f"
        else:  # the colours of the models in prediction_vs_actual / parity_figure
            color, ours = _PALETTE[ours % len(_PALETTE)], ours + 1
        fig.add_trace(go.Scatter(x=[rec.best_pct, rec.worst_pct], y=[label, label], mode="lines",
                                 line=dict(color=color, width=8), showlegend=False,
                                 hovertemplate=f"{label}: best %{{x:.3g}} %<extra></extra>"))
        fig.add_trace(go.Scatter(x=[rec.average_pct], y=[label], mode="markers", showlegend=False,
                                 marker=dict(symbol="line-ns", size=18, line=dict(width=3, color="black")),
                                 hovertemplate=f"{label}: average %{{x:.3g}} %<extra></extra>"))
    fig.add_vline(x=20, line=dict(color="#d62728", dash="dot"))
    fig.update_layout(
        title=dict(text="Relative error %: best … worst, average marked (dotted: 20 %)"),
        xaxis=dict(title="relative error [%]", type="log"), yaxis=dict(autorange="reversed"),
        height=120 + 32 * len(table), margin=dict(l=260, r=20, t=50, b=45),
    )
    return fig
