"""Figures of per-region predictions (:class:`workbench.models.regions.RegionPredictor`).

Every function takes frames -- the predicted exclusive times of
:meth:`~workbench.models.regions.RegionPredictor.predict_exclusive`, the measured runs
(``runs_``: region, n, run, inclusive, exclusive) and a region's ``predict_frame`` -- and
returns a :class:`plotly.graph_objects.Figure`; nothing here fits a model or touches a widget.

* :func:`stacked_regions_figure` -- predicted exclusive time of every region against n,
  stacked (the top edge is the predicted total), the measured exclusive medians as points
  and the target allocation marked;
* :func:`region_fit_figure` -- one region's measured inclusive times, its predicted curve
  and the calibrated interval band, with the target marked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from workbench.validation import require_columns

__all__ = ["stacked_regions_figure", "region_fit_figure", "region_colours"]

_MAX_STACKED = 8


def region_colours(regions) -> dict[str, str]:
    """Return a fixed colour per region (in the given order).

    Parameters
    ----------
    regions : iterable of str
        The regions, in order.
    """
    palette = qualitative.Plotly + qualitative.D3
    return {r: palette[i % len(palette)] for i, r in enumerate(regions)}


def stacked_regions_figure(exclusive: pd.DataFrame, runs: pd.DataFrame, target: float, *, unit: str = "s",
                           n_label: str = "processes", top: int = _MAX_STACKED,
                           total: pd.DataFrame | None = None) -> go.Figure:
    """Return the stacked predicted exclusive times of the regions against n.

    Parameters
    ----------
    exclusive : pandas.DataFrame
        Columns region, n, exclusive (predicted), over a grid of n.
    runs : pandas.DataFrame
        Measured runs: region, n, exclusive.
    target : float
        The allocation asked about (a vertical line).
    unit : str, default "s"
        Unit of the times (axis title).
    n_label : str, default "processes"
        What n counts (axis title).
    top : int, default 8
        Regions shown on their own (largest predicted exclusive time at the target); the
        others are summed into "other regions".
    total : pandas.DataFrame or None, default None
        The predicted total (n, prediction), drawn as a dashed line over the stack.
    """
    require_columns(exclusive, ("n", "exclusive"), "stacked_regions_figure")
    at_target = exclusive[exclusive["n"] == exclusive["n"].max()].groupby("region")["exclusive"].sum()
    order = at_target.sort_values(ascending=False).index.tolist()
    shown, rest = order[:top], order[top:]
    colours = region_colours(order)
    fig = go.Figure()
    for region in shown[::-1]:  # the largest on top of the stack
        part = exclusive[exclusive["region"] == region].sort_values("n")
        fig.add_trace(go.Scatter(x=part["n"], y=part["exclusive"].clip(lower=0), mode="lines", stackgroup="one",
                                 name=_short(region), line=dict(width=0.5, color=colours[region]),
                                 hovertemplate=f"{region}<br>n=%{{x:.4g}}<br>%{{y:.4g}} {unit}<extra></extra>"))
    if rest:
        other = exclusive[exclusive["region"].isin(rest)].groupby("n")["exclusive"].sum()
        fig.add_trace(go.Scatter(x=other.index, y=other.clip(lower=0).to_numpy(), mode="lines", stackgroup="one",
                                 name=f"other regions ({len(rest)})", line=dict(width=0.5, color="#bbbbbb")))
    measured = runs.dropna(subset=["exclusive"]).groupby(["region", "n"])["exclusive"].median().reset_index()
    measured = measured[measured["exclusive"] > 0]
    stacked = measured[measured["region"].isin(shown)].groupby("n")["exclusive"].sum()
    if rest:
        stacked = stacked.add(measured[measured["region"].isin(rest)].groupby("n")["exclusive"].sum(), fill_value=0)
    if total is not None:
        fig.add_trace(go.Scatter(x=total["n"], y=total["prediction"], mode="lines", name="predicted total",
                                 line=dict(color="black", dash="dot", width=2)))
    fig.add_trace(go.Scatter(x=stacked.index, y=stacked.to_numpy(), mode="markers", name="measured total",
                             marker=dict(color="black", size=8, symbol="diamond")))
    fig.add_vline(x=target, line=dict(color="#444", dash="dash"), annotation_text=f"target n = {target:g}")
    fig.update_layout(title=dict(text=f"Predicted time per region at n up to {target:g} (stacked exclusive times)"),
                      xaxis=dict(title=n_label, type="log"), yaxis=dict(title=f"time ({unit})"),
                      height=460, legend=dict(font=dict(size=11)), margin=dict(t=60, r=20))
    return fig


def region_fit_figure(region: str, runs: pd.DataFrame, curve: pd.DataFrame, target: float, *, unit: str = "s",
                      n_label: str = "processes") -> go.Figure:
    """Return one region's measured inclusive times, its predicted curve and interval band.

    Parameters
    ----------
    region : str
        The region (for the title).
    runs : pandas.DataFrame
        Its measured runs: n, inclusive.
    curve : pandas.DataFrame
        Its predictions over a grid: n, prediction, lower, upper.
    target : float
        The allocation asked about.
    unit : str, default "s"
        Unit of the times (y axis title).
    n_label : str, default "processes"
        What n counts (x axis title).
    """
    require_columns(curve, ("n", "prediction", "lower", "upper"), "region_fit_figure")
    curve = curve.sort_values("n")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.concatenate([curve["n"], curve["n"][::-1]]),
                             y=np.concatenate([curve["upper"], curve["lower"][::-1]]), fill="toself",
                             fillcolor="rgba(31,119,180,0.18)", line=dict(width=0), name="interval",
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=curve["n"], y=curve["prediction"], mode="lines", name="prediction",
                             line=dict(color="#1f77b4")))
    fig.add_trace(go.Scatter(x=runs["n"], y=runs["inclusive"], mode="markers", name="measured",
                             marker=dict(color="black", size=7)))
    fig.add_vline(x=target, line=dict(color="#444", dash="dash"))
    fig.update_layout(title=dict(text=f"{_short(region, 60)}: inclusive time, fit and interval"),
                      xaxis=dict(title=n_label, type="log"), yaxis=dict(title=f"time ({unit})", type="log"),
                      height=420, margin=dict(t=60, r=20))
    return fig


def _short(region: str, limit: int = 40) -> str:
    """Return the last element of a call path, shortened for a legend."""
    name = region.split("->")[-1]
    return name if len(name) <= limit else name[:limit - 1] + "…"
