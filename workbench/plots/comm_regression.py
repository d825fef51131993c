"""Figures of [Papadopoulou2015]'s communication regression (Papadopoulou, Goumas & Koziris, Figs. 1-2).

Every function takes data -- descriptor frames (:func:`workbench.models.comm.descriptors`),
correlation tables (:func:`workbench.models.comm.pearson_table`,
:func:`~workbench.models.comm.correlation_matrix`) or the predictions frame of a
:class:`~workbench.models.comm.CommRegressionResult` -- and returns a
:class:`plotly.graph_objects.Figure`; nothing here fits or touches a widget.  Times in µs.

* :func:`target_heatmap` -- Pearson's r of every metric with communication time, linear
  and log scale side by side (the paper's variable selection, section III.C).
* :func:`correlation_heatmap` -- metric x metric correlations.
* :func:`metric_scatter` -- one metric against communication time, coloured by area, the
  area thresholds drawn when the metric is ``NT`` or ``S`` (Fig. 1).
* :func:`predicted_vs_observed` -- log-log, the +-30 % band, area colours (Fig. 2 (a)-(c)).
* :func:`residuals_by_area` -- signed relative errors per area (Fig. 2 (d)).
* :func:`split_and_fit_figure` -- the dashboard's main figure: the NT split (time vs
  NT, threshold line) beside predicted vs observed.

:func:`split_and_fit_figure` keeps a fixed trace list (one trace per area even when it is
empty), so a live ``FigureWidget`` can be updated in place.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import ValidationError
from workbench.metrics import ERROR_BAND, band_text
from workbench.models.comm.correlation import TARGET
from workbench.models.comm.regression import AREAS, AreaSplit
from workbench.validation import require_columns

__all__ = [
    "AREA_COLORS",
    "BAND_PCT",
    "correlation_heatmap",
    "metric_scatter",
    "predicted_vs_observed",
    "residuals_by_area",
    "split_and_fit_figure",
    "target_heatmap",
]

#: Colour of each area (Fig. 2 (a)-(c)).
AREA_COLORS = {"Ia": "#1f77b4", "Ib": "#2ca02c", "II": "#d62728"}
#: Half-width of the error band, percent (:data:`workbench.metrics.ERROR_BAND`, the paper's).
BAND_PCT = ERROR_BAND.value
_BAND_FILL = "rgba(120,120,120,0.18)"
_COLORSCALE = "RdBu_r"


# ---------------------------------------------------------------------- heatmaps


def target_heatmap(tables: Mapping[str, pd.DataFrame], target: str = TARGET) -> go.Figure:
    """Draw Pearson's r of each metric (rows) with ``target`` under each of ``tables`` (columns).

    Cells without an r (a constant metric) stay blank; the hover gives n, p and the note.

    Parameters
    ----------
    tables : Mapping[str, pandas.DataFrame]
        Column label -> a :func:`~workbench.models.comm.pearson_table`, e.g. ``{"linear":
        pearson_table(f), "log10": pearson_table(f, log=True)}``.
    target : str, default TARGET ("comm_time_us")
        The target named in the title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if not tables:
        raise ValidationError("target_heatmap: give at least one correlation table")
    labels = list(tables)
    metrics = list(next(iter(tables.values()))["metric"])
    z = np.full((len(metrics), len(labels)), np.nan)
    text = np.full(z.shape, "", dtype=object)
    hover = np.full(z.shape, "", dtype=object)
    for j, label in enumerate(labels):
        table = tables[label].set_index("metric")
        for i, metric in enumerate(metrics):
            if metric not in table.index:
                continue
            row = table.loc[metric]
            z[i, j] = row["r"]
            text[i, j] = f"{row['r']:.2f}" if np.isfinite(row["r"]) else "–"
            hover[i, j] = (f"{metric} vs {target} ({label})<br>r = {text[i, j]}, p = {row['p_value']:.2g}, "
                           f"n = {row['n_points']}" + (f"<br>{row['note']}" if row["note"] else ""))
    fig = go.Figure(go.Heatmap(z=z, x=labels, y=metrics, text=text, texttemplate="%{text}", customdata=hover,
                               hovertemplate="%{customdata}<extra></extra>", zmin=-1, zmax=1,
                               colorscale=_COLORSCALE, colorbar=dict(title="r", len=0.8)))
    fig.update_layout(title=dict(text=f"Pearson's r with {target}", font=dict(size=14)), height=420,
                      width=110 * len(labels) + 260, yaxis=dict(autorange="reversed"),
                      margin=dict(l=60, r=20, t=50, b=40))
    return fig


def correlation_heatmap(matrix: pd.DataFrame, title: str = "Pearson's r between the metrics") -> go.Figure:
    """Draw a square correlation matrix as a heatmap with the values written in the cells.

    Blank cells are undefined (a constant column).

    Parameters
    ----------
    matrix : pandas.DataFrame
        The matrix of :func:`~workbench.models.comm.correlation_matrix`.
    title : str, default "Pearson's r between the metrics"
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    z = matrix.to_numpy(dtype=float)
    text = np.where(np.isfinite(z), np.char.mod("%.2f", np.nan_to_num(z)), "")
    fig = go.Figure(go.Heatmap(z=z, x=list(matrix.columns), y=list(matrix.index), text=text,
                               texttemplate="%{text}", zmin=-1, zmax=1, colorscale=_COLORSCALE,
                               hovertemplate="%{y} vs %{x}: r = %{z:.3f}<extra></extra>",
                               colorbar=dict(title="r", len=0.8)))
    fig.update_layout(title=dict(text=title, font=dict(size=14)), height=520,
                      yaxis=dict(autorange="reversed"), margin=dict(l=90, r=20, t=50, b=60))
    return fig


# ---------------------------------------------------------------------- scatters


def _areas(frame: pd.DataFrame, split: AreaSplit | None) -> np.ndarray:
    if "area" in frame.columns:
        return frame["area"].to_numpy()
    return (split or AreaSplit()).labels(frame)


def metric_scatter(frame: pd.DataFrame, metric: str, target: str = TARGET, split: AreaSplit | None = None,
                   log: bool = True) -> go.Figure:
    """Plot ``target`` against ``metric``, one colour per area (Fig. 1 of [Papadopoulou2015]).

    For ``NT`` and ``S`` the corresponding threshold of ``split`` is drawn.  On log axes
    points <= 0 cannot be drawn: how many were left out is said in the title.

    Parameters
    ----------
    frame : pandas.DataFrame
        The descriptor frame.
    metric : str
        The metric on the x axis.
    target : str, default TARGET ("comm_time_us")
        The column on the y axis.
    split : AreaSplit or None, default None
        The areas, unless the frame has an ``area`` column; None: :class:`AreaSplit()`.
    log : bool, default True
        Log axes.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    require_columns(frame, [metric, target], "metric_scatter")
    split = split or AreaSplit()
    labels = _areas(frame, split)
    x = frame[metric].to_numpy(float)
    y = frame[target].to_numpy(float)
    shown = (x > 0) & (y > 0) if log else np.ones(x.size, bool)
    fig = go.Figure()
    for area in AREAS:
        keep = shown & (labels == area)
        fig.add_trace(go.Scatter(x=x[keep], y=y[keep], mode="markers", name=f"Area {area}",
                                 marker=dict(color=AREA_COLORS[area], size=5, opacity=0.6),
                                 hovertemplate=f"{metric} = %{{x:.4g}}<br>{target} = %{{y:.4g}}"
                                               f"<extra>Area {area}</extra>"))
    threshold = {"NT": split.nt_threshold_bytes, "S": split.s_threshold_bytes}.get(metric)
    if threshold is not None and y[shown].size:
        fig.add_trace(go.Scatter(x=[threshold, threshold], y=[y[shown].min(), y[shown].max()], mode="lines",
                                 name=f"{metric} threshold {threshold:g} B",
                                 line=dict(color="#555", dash="dash", width=2)))
    hidden = int((~shown).sum())
    note = f" ({hidden} point(s) with {metric} or time <= 0 not shown on log axes)" if hidden else ""
    fig.update_layout(title=dict(text=f"{target} vs {metric}{note}", font=dict(size=14)), height=400,
                      xaxis=dict(title=metric, type="log" if log else "linear", exponentformat="power"),
                      yaxis=dict(title=f"{target}", type="log" if log else "linear", exponentformat="power"),
                      margin=dict(l=60, r=20, t=50, b=45), legend=dict(orientation="h", y=-0.2))
    return fig


def _band_traces(lo: float, hi: float, pct: float, showlegend: bool = True) -> list[go.Scatter]:
    grid = np.geomspace(lo, hi, 50)
    return [
        go.Scatter(x=grid, y=grid * (1 - pct / 100), mode="lines", line=dict(width=0), hoverinfo="skip",
                   showlegend=False),
        go.Scatter(x=grid, y=grid * (1 + pct / 100), mode="lines", line=dict(width=0), fill="tonexty",
                   fillcolor=_BAND_FILL, name=band_text(pct), hoverinfo="skip", showlegend=showlegend),
        go.Scatter(x=grid, y=grid, mode="lines", line=dict(color="#444", width=1), name="predicted = observed",
                   hoverinfo="skip", showlegend=showlegend),
    ]


def _prediction_traces(predictions: pd.DataFrame, showlegend: bool = True) -> list[go.Scatter]:
    traces = []
    for area in AREAS:
        part = predictions[predictions["area"] == area]
        keep = part["predicted"] > 0
        within = float(np.mean(np.abs(part["error_pct"]) <= BAND_PCT)) if len(part) else float("nan")
        name = f"Area {area}: {len(part)} pts" + (f", {within:.0%} in band" if len(part) else "")
        if (~keep).any():
            name += f" ({int((~keep).sum())} predicted <= 0 not drawn)"
        traces.append(go.Scatter(
            x=part.loc[keep, "observed"].to_numpy(float), y=part.loc[keep, "predicted"].to_numpy(float),
            customdata=part.loc[keep, "error_pct"].to_numpy(float), mode="markers", name=name,
            marker=dict(color=AREA_COLORS[area], size=5, opacity=0.65), showlegend=showlegend,
            hovertemplate="observed %{x:.4g} µs<br>predicted %{y:.4g} µs<br>error %{customdata:+.1f} %"
                          f"<extra>Area {area}</extra>"))
    return traces


def _positive_range(*arrays) -> tuple[float, float]:
    values = np.concatenate([np.asarray(a, float).ravel() for a in arrays])
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return 1.0, 10.0
    return float(values.min()) / 1.5, float(values.max()) * 1.5


def predicted_vs_observed(predictions: pd.DataFrame, pct: float = BAND_PCT, title: str | None = None) -> go.Figure:
    """Fig. 2 (a)-(c) in one panel.

    Predicted against observed communication time on log axes, area colours, the ``pct``
    band around the diagonal.  Predictions <= 0 (a linear model can give them) cannot be
    drawn on log axes; the legend counts them.

    Parameters
    ----------
    predictions : pandas.DataFrame
        Columns ``area``, ``observed``, ``predicted``, ``error_pct`` (a
        :class:`~workbench.models.comm.CommRegressionResult`'s).
    pct : float, default BAND_PCT (30)
        Half-width of the error band, percent.
    title : str or None, default None
        The figure's title; None: "Predicted vs observed communication time".

    Returns
    -------
    plotly.graph_objects.Figure
    """
    require_columns(predictions, ["observed", "predicted", "error_pct"], "predicted_vs_observed")
    lo, hi = _positive_range(predictions["observed"], predictions["predicted"])
    fig = go.Figure([*_band_traces(lo, hi, pct), *_prediction_traces(predictions)])
    fig.update_layout(title=dict(text=title or "Predicted vs observed communication time", font=dict(size=14)),
                      height=460, xaxis=dict(title="observed [µs]", type="log", exponentformat="power"),
                      yaxis=dict(title="predicted [µs]", type="log", exponentformat="power"),
                      margin=dict(l=60, r=20, t=50, b=45), legend=dict(orientation="h", y=-0.2))
    return fig


def residuals_by_area(predictions: pd.DataFrame, pct: float = BAND_PCT) -> go.Figure:
    """Plot the signed relative error per area as box plots with every point (Fig. 2 (d)).

    The error is ``100 (predicted - observed) / observed``; the ``pct`` band is dashed.

    Parameters
    ----------
    predictions : pandas.DataFrame
        Columns ``area``, ``observed``, ``predicted``, ``error_pct`` (a
        :class:`~workbench.models.comm.CommRegressionResult`'s).
    pct : float, default BAND_PCT (30)
        Half-width of the error band, percent.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    require_columns(predictions, ["error_pct"], "residuals_by_area")
    fig = go.Figure()
    for area in AREAS:
        part = predictions.loc[predictions["area"] == area, "error_pct"].to_numpy(float)
        fig.add_trace(go.Box(y=part, name=f"Area {area} ({part.size})", marker_color=AREA_COLORS[area],
                             boxpoints="outliers", hovertemplate="%{y:+.1f} %<extra></extra>"))
    # layout shapes given as data: add_hline is ~100 times slower
    band = [dict(type="line", xref="paper", x0=0, x1=1, y0=sign * pct, y1=sign * pct,
                 line=dict(color="#555", dash="dash")) for sign in (-1, 1)]
    fig.update_layout(title=dict(text=f"Relative error by area (dashed: {band_text(pct)})", font=dict(size=14)),
                      shapes=band, height=380, yaxis=dict(title="error [%]", zeroline=True), showlegend=False,
                      margin=dict(l=60, r=20, t=50, b=45))
    return fig


def split_and_fit_figure(data: pd.DataFrame, predictions: pd.DataFrame, split: AreaSplit,
                         target: str = TARGET, title: str = "", pct: float = BAND_PCT) -> go.Figure:
    """Return the dashboard's main figure, two panels.

    Left: ``target`` against ``NT + 1`` B (log-log, so the purely intra-node points with
    ``NT = 0`` appear at 1 B instead of vanishing), coloured by ``split``'s areas, with the
    NT threshold as a dashed vertical line: where the paper's Area I/II boundary falls on
    the data.  Right: :func:`predicted_vs_observed` of ``predictions``.  Fixed traces: 3
    area scatters + threshold line (left), band lower edge, band, diagonal, 3 area scatters
    (right).

    Parameters
    ----------
    data : pandas.DataFrame
        The descriptor frame (columns ``NT``, ``S`` and ``target``).
    predictions : pandas.DataFrame
        Columns ``area``, ``observed``, ``predicted``, ``error_pct`` (a
        :class:`~workbench.models.comm.CommRegressionResult`'s).
    split : AreaSplit
        The areas and thresholds.
    target : str, default TARGET ("comm_time_us")
        The column drawn on the left.
    title : str, default ""
        The figure's title.
    pct : float, default BAND_PCT (30)
        Half-width of the error band, percent.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    require_columns(data, ["NT", "S", target], "split_and_fit_figure")
    labels = split.labels(data)
    nt1 = data["NT"].to_numpy(float) + 1.0
    y = data[target].to_numpy(float)
    traces = []
    for area in AREAS:
        keep = labels == area
        traces.append(go.Scatter(x=nt1[keep], y=y[keep], mode="markers", showlegend=False,
                                 marker=dict(color=AREA_COLORS[area], size=5, opacity=0.6),
                                 customdata=nt1[keep] - 1, hovertemplate="NT = %{customdata:.4g} B<br>%{y:.4g} µs"
                                                                         f"<extra>Area {area}</extra>"))
    ylo, yhi = _positive_range(y)
    threshold = split.nt_threshold_bytes + 1
    traces.append(go.Scatter(x=[threshold, threshold], y=[ylo, yhi], mode="lines", showlegend=False,
                             line=dict(color="#555", dash="dash", width=2),
                             hovertemplate=f"NT threshold {split.nt_threshold_bytes:.4g} B<extra></extra>"))
    lo, hi = _positive_range(predictions["observed"], predictions["predicted"])
    right = [*_band_traces(lo, hi, pct), *_prediction_traces(predictions)]
    for trace in right:
        trace.update(xaxis="x2", yaxis="y2")
    intra = int(np.sum(nt1 == 1.0))
    xlo, xhi = _positive_range(nt1, [threshold])
    log = dict(type="log", exponentformat="power")
    # the two panels laid out by hand: make_subplots + update_*axes cost ~0.3 s per redraw
    heading = dict(xref="paper", yref="paper", y=1.0, yanchor="bottom", showarrow=False, font=dict(size=12))
    layout = dict(
        xaxis=dict(log, domain=[0, 0.455], anchor="y", range=[np.log10(max(xlo, 0.5)), np.log10(xhi)],
                   title=dict(text="NT + 1 [B]" + (f" ({intra} points with NT = 0 at 1 B)" if intra else ""))),
        yaxis=dict(log, anchor="x", title=dict(text=f"{target} [µs]")),
        xaxis2=dict(log, domain=[0.545, 1], anchor="y2", title=dict(text="observed [µs]")),
        yaxis2=dict(log, anchor="x2", title=dict(text="predicted [µs]")),
        annotations=[dict(heading, x=0.2275, text=f"Area split: time vs node traffic ({split.describe()['II']}: "
                                                  "Area II)"),
                     dict(heading, x=0.7725, text="Predicted vs observed (Fig. 2)")],
        title=dict(text=title, font=dict(size=14)), height=470,
        margin=dict(l=60, r=20, t=80 if title else 50, b=50), legend=dict(orientation="h", y=-0.2),
    )
    return go.Figure(data=[*traces, *right], layout=layout)
