"""Panels of the region dashboard ("Which part of my code stops scaling?"), widget-free.

:func:`region_view` turns a fitted :class:`~workbench.models.regions.RegionPredictor` and a
target allocation into everything the dashboard shows: the stacked figure, the chosen
region's fit, the region table (HTML: predicted share at the target, growth, interval, rank,
warnings) and the verdicts in words. :func:`synthetic_regions` is the SYNTHETIC example
application (exact laws) shown when no real data is at hand.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.io.callpath import validate_profile_table
from workbench.models.regions import RegionPredictor
from workbench.plots.regions import region_fit_figure, stacked_regions_figure
from workbench.views.panels import frame_html

__all__ = ["RegionView", "region_view", "region_table_html", "verdicts_html", "synthetic_regions"]

#: The SYNTHETIC application: region -> exclusive time (s) as a function of the process count p.
SYNTHETIC_LAWS = {
    "main": lambda p: 0.5 + 0 * p,
    "main->solve": lambda p: 64.0 / p,
    "main->solve->MPI_Allreduce": lambda p: 0.2 * np.log2(p),
    "main->io": lambda p: 1.0 + 0 * p,
}


def synthetic_regions(processes=(2, 4, 8, 16, 32), repeats: int = 2) -> pd.DataFrame:
    """Return a SYNTHETIC profile table: 4 regions with exact laws, 2 % repetition jitter.

    solve shrinks like 64/p, MPI_Allreduce grows like 0.2 log2 p, io is 1 s, main's own
    time 0.5 s; values are inclusive max-over-ranks times in seconds.

    Parameters
    ----------
    processes : sequence of int, default (2, 4, 8, 16, 32)
        Process counts measured.
    repeats : int, default 2
        Runs per process count.
    """
    rows = []
    for p in processes:
        for rep in range(repeats):
            own = {r: float(law(np.float64(p))) * (1 + 0.02 * rep) for r, law in SYNTHETIC_LAWS.items()}
            for region in SYNTHETIC_LAWS:
                parts = region.split("->")
                value = sum(v for r, v in own.items() if r == region or r.startswith(region + "->"))
                rows.append({"profile": f"synthetic-p{p}-r{rep}", "format": "synthetic", "region": region,
                             "name": parts[-1], "parent": "->".join(parts[:-1]), "depth": len(parts) - 1,
                             "metric": "time", "kind": "inclusive", "aggregation": "max", "value": value,
                             "unit": "s", "processes": float(p), "nodes": np.nan, "threads": np.nan,
                             "gpus": np.nan, "run": rep})
    return validate_profile_table(pd.DataFrame(rows), "synthetic profile")


@dataclass(frozen=True)
class RegionView:
    """What the dashboard shows for one target."""

    stacked: go.Figure
    fit: go.Figure
    table_html: str
    verdicts_html: str
    frame: pd.DataFrame
    region: str


def region_table_html(frame: pd.DataFrame, target: float) -> str:
    """Return the region table at ``target``: share, interval, rank, growth, warnings (largest first).

    Parameters
    ----------
    frame : pandas.DataFrame
        The region predictions (:meth:`~workbench.models.regions.RegionPredictor.predict_frame`).
    target : float
        The allocation shown.
    """
    at = frame[np.isclose(frame["n"], target)].sort_values("share", ascending=False)
    shown = pd.DataFrame({
        "region": at["region"], "share at target": (100 * at["share"]).map(lambda v: f"{v:.1f} %"),
        "predicted": at["prediction"], "lower": at["lower"], "upper": at["upper"], "rank": at["rank"],
        "growth": at["growth"], "warned": at["warned"].map({True: "yes", False: ""}),
        "warnings": at["warnings"].map(lambda w: ", ".join(w))})
    return frame_html(shown, f"Regions at n = {target:g} (times in the profiles' unit; rank 1 = largest own time)")


def verdicts_html(verdicts: pd.DataFrame, consistency: pd.DataFrame) -> str:
    """Return the verdicts in words and the check of the exclusive sum against the total.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        The regions' verdicts.
    consistency : pandas.DataFrame
        The exclusive sum against the total.
    """
    items = [f"<li>{html.escape(m)}</li>" for m in verdicts["message"]] or [
        "<li>No region's share grows by more than 10 % and no region's time rises with n: every part of the "
        "code keeps scaling over this range.</li>"]
    check = consistency.iloc[-1]
    ratio = (f"The regions' own (exclusive) predictions add up to {check['sum_exclusive']:.4g} at n = "
             f"{check['n']:g}, {check['ratio']:.0%} of the predicted total {check['total']:.4g}")
    if abs(check["measured_ratio"] - 1) > 0.1:
        ratio += (f". Already in the measured profiles they add up to {check['measured_ratio']:.0%} of the total: the "
                  "regions overlap (the profile's nesting does not match its times), so the stack is not the total.")
    elif abs(check["ratio"] - 1) < 0.1:
        ratio += " (they agree)."
    else:
        ratio += ": the per-region models disagree with the total's; trust the total's interval."
    return (f'<div style="font-size:13px"><b>Verdicts</b><ul>{"".join(items)}</ul>'
            f"<p>{html.escape(ratio)}</p></div>")


def region_view(model: RegionPredictor, target: float, region: str | None = None, level: float = 0.8,
                unit: str = "s") -> RegionView:
    """Return every panel for ``target`` (``region``: the one whose fit is shown; None: the largest growing one).

    Parameters
    ----------
    model : RegionPredictor
        A fitted region predictor.
    target : float
        The allocation asked about.
    region : str, optional
        The region whose fit is shown; default: the largest growing one.
    level : float, default 0.8
        Interval level.
    unit : str, default "s"
        Unit of the times.
    """
    frame = model.predict_frame([target], level)
    verdicts, consistency = frame.attrs["verdicts"], frame.attrs["consistency"]
    lattice = np.geomspace(model.n_min_, model.n_max_ * 4096, 121)  # the model's own lattice: predictions reused
    grid = np.unique(np.concatenate([lattice[lattice < max(target, model.n_max_)], [max(target, model.n_max_)]]))
    exclusive = model.predict_exclusive(grid)
    parts = model.parts_
    total = model.region_frame(model.root_, grid, level)
    stacked = stacked_regions_figure(exclusive[exclusive["region"].isin(parts)],
                                     model.runs_[model.runs_["region"].isin(parts)], target, unit=unit,
                                     n_label=model.n_column_, total=total)
    if region is None or region not in model.predictors_:
        growing = verdicts[verdicts["kind"] == "share-grows"]["region"]
        region = growing.iloc[0] if len(growing) else model.root_
    curve = model.region_frame(region, grid, level)
    runs = model.runs_[model.runs_["region"] == region]
    fit = region_fit_figure(region, runs, curve, target, unit=unit, n_label=model.n_column_)
    return RegionView(stacked, fit, region_table_html(frame, target), verdicts_html(verdicts, consistency), frame,
                      region)
