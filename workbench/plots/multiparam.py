"""Figures of the runtime over allocation x problem size (:mod:`workbench.models.multiparam`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import ValidationError

__all__ = ["LAYERS", "prediction_grid", "surface_figure"]

#: What the heat map shows: the predicted runtime, or the width of its interval (upper / lower).
LAYERS = ("runtime", "interval width")


def prediction_grid(model, n_range: tuple[float, float], s_range: tuple[float, float], parameter: str,
                    level: float = 0.8, points: tuple[int, int] = (36, 28)) -> pd.DataFrame:
    """Predict on a log-spaced grid of allocations x sizes.

    Parameters
    ----------
    model : MultiParameterPredictor
        Fitted, with one problem parameter.
    n_range, s_range : (float, float)
        Smallest and largest allocation and size of the grid.
    parameter : str
        Name of the problem-parameter column.
    level : float, default 0.8
        Interval level.
    points : (int, int), default (36, 28)
        Grid points along n and s.

    Returns
    -------
    pandas.DataFrame
        ``model.predict_frame`` of the grid (columns ``n``, ``parameter``, ``prediction``,
        ``lower``, ``upper``, ...), n varying fastest.
    """
    n = np.geomspace(max(n_range[0], 1.0), n_range[1], points[0])
    s = np.geomspace(s_range[0], s_range[1], points[1])
    N, S = np.meshgrid(n, s)
    return model.predict_frame(pd.DataFrame({"n": N.ravel(), parameter: S.ravel()}), level=level)


def surface_figure(grid: pd.DataFrame, measured: pd.DataFrame, target: pd.Series, parameter: str,
                   layer: str = "runtime", work_exponent: float = 1.0, per_process: bool = False,
                   unit: str = "s") -> go.Figure:
    """Heat map of the predicted runtime (or interval width) over n x size, with the data and a target.

    Parameters
    ----------
    grid : pandas.DataFrame
        :func:`prediction_grid` output.
    measured : pandas.DataFrame
        The measured runs: ``n``, ``parameter``, ``t``.
    target : pandas.Series
        One row of ``predict_frame``: ``n``, ``parameter``, ``prediction``, ``lower``, ``upper``.
    parameter : str
        The problem-parameter column (the y axis).
    layer : {"runtime", "interval width"}, default "runtime"
        The heat map's values: log10 of the predicted runtime, or the interval's width as
        the ratio upper / lower.
    work_exponent : float, default 1.0
        ``a`` in ``W = s^a``: the line of constant work per process through the target is
        ``s^a / n`` constant.
    per_process : bool, default False
        The parameter is one process's part (the work model's scope is not ``"total"``): the
        weak-scaling line keeps it constant, as a weak-scaling campaign does, and lies on the
        strong-scaling line.
    unit : str, default "s"
        Runtime unit for labels.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if layer not in LAYERS:
        raise ValidationError(f"layer must be one of {LAYERS}, got {layer!r}")
    n = np.unique(grid["n"].to_numpy(float))
    s = np.unique(grid[parameter].to_numpy(float))
    shape = (s.size, n.size)
    if layer == "runtime":
        z = np.log10(grid["prediction"].to_numpy(float)).reshape(shape)
        ticks = np.arange(np.floor(np.nanmin(z)), np.ceil(np.nanmax(z)) + 1)
        colorbar = dict(title=f"runtime [{unit}]", tickvals=ticks, ticktext=[f"{10 ** v:g}" for v in ticks])
        text = np.array([f"{v:.3g} {unit}" for v in grid["prediction"]]).reshape(shape)
        scale = "Viridis"
    else:
        z = (grid["upper"] / grid["lower"]).to_numpy(float).reshape(shape)
        colorbar = dict(title="upper / lower")
        text = np.array([f"x{v:.3g}" for v in z.ravel()]).reshape(shape)
        scale = "Magma"
    fig = go.Figure(go.Heatmap(x=n, y=s, z=z, text=text, colorscale=scale, colorbar=colorbar, name=layer,
                               hovertemplate=f"n %{{x:.3g}}<br>{parameter} %{{y:.3g}}<br>%{{text}}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=measured["n"], y=measured[parameter], mode="markers", name="measured",
        marker=dict(color="white", size=9, line=dict(color="black", width=1.5)),
        text=[f"{v:.3g} {unit}" for v in measured["t"]],
        hovertemplate=f"measured: n %{{x:g}}, {parameter} %{{y:g}}: %{{text}}<extra></extra>"))
    nt, st = float(target["n"]), float(target[parameter])
    a = float(work_exponent) if np.isfinite(work_exponent) and work_exponent > 0 else 1.0
    line_n = np.geomspace(n[0], n[-1], 50)
    weak = np.full(line_n.shape, st) if per_process else st * (line_n / nt) ** (1 / a)
    name = f"constant {parameter} per process (weak scaling)" if per_process else "constant work per process (weak " \
        "scaling)"
    fig.add_trace(go.Scatter(x=line_n, y=weak, mode="lines", name=name, line=dict(color="white", dash="dash",
                                                                                 width=2)))
    fig.add_trace(go.Scatter(x=[n[0], n[-1]], y=[st, st], mode="lines", name=f"constant {parameter} (strong "
                             "scaling)", line=dict(color="#ff7f0e", dash="dot", width=2)))
    label = f"{target['prediction']:.3g} {unit} [{target['lower']:.3g}, {target['upper']:.3g}]"
    fig.add_trace(go.Scatter(x=[nt], y=[st], mode="markers+text", name="target", text=[label],
                             textposition="top center", textfont=dict(color="white", size=13),
                             marker=dict(symbol="star", size=18, color="#d62728", line=dict(color="white", width=1))))
    fig.update_xaxes(type="log", title="n (allocation)", range=np.log10([n[0], n[-1]]).tolist())
    fig.update_yaxes(type="log", title=parameter, range=np.log10([s[0], s[-1]]).tolist())
    what = "predicted runtime" if layer == "runtime" else "width of the interval (upper / lower)"
    fig.update_layout(title=f"{what} over n x {parameter}; target n = {nt:g}, {parameter} = {st:g}",
                      height=520, legend=dict(orientation="h", y=-0.18), margin=dict(t=60))
    return fig
