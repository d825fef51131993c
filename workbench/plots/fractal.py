"""Figures of the fractal model (Escobar & Boppana, [EscobarBoppana]).

Every function takes data -- a phase-share frame
(:func:`~workbench.models.fractal.phase_shares`), per-phase fits
(:class:`~workbench.models.fractal.PhaseFit`), the comparison frame of
:func:`~workbench.evaluation.fractal.demo_experiment` or the frame of
:func:`~workbench.evaluation.fractal.table1_check` -- and returns a
:class:`plotly.graph_objects.Figure`; nothing here fits a model or touches a widget.
Times are in seconds.

* :func:`shares_figure` -- section 2.1: the share of the runtime in each phase against
  the input size (stacked), with the threshold (70 %), the convergence size C, the fitted
  sizes N_i and the target size marked.
* :func:`loglog_figure` -- section 2.2 / Fig. 1: per phase the points
  (ln(N_i / N_Lrg), ln T_i), the least-squares line with its slope m (the fractal
  dimension), its extension to x = 0 where e^b is the prediction, the prediction band
  there and the measured large run.
* :func:`prediction_figure` -- predicted (with the band as error bars) against measured
  time at the large size, per phase and for the whole program (section 2.3), with the
  error in %.
* :func:`table1_figure` -- Table 1: the published prediction against the bracket
  e^(b +- 0.05) ms implied by the printed intercept b (relative to e^b).

:func:`loglog_figure` and :func:`prediction_figure` keep the same traces in the same
order for the same phases, so a dashboard can update a live ``FigureWidget`` in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from workbench.validation import require_columns

__all__ = [
    "OTHER",
    "loglog_figure",
    "phase_colors",
    "prediction_figure",
    "shares_figure",
    "table1_figure",
]

#: Legend name of the runtime outside the major phases.
OTHER = "other phases"
_PALETTE = qualitative.Plotly + qualitative.D3
_C = {"threshold": "#d62728", "C": "#2ca02c", "target": "#555555", "measured": "#111111", "other": "#c7c7c7",
      "bracket": "#1f77b4", "published": "#d62728"}


def phase_colors(phases: Sequence[str]) -> dict[str, str]:
    """One colour per phase, in order (the same phase keeps its colour across figures).

    Parameters
    ----------
    phases : sequence of str
        The phases, in order.
    """
    return {p: _PALETTE[i % len(_PALETTE)] for i, p in enumerate(phases)}


def _vline(x: float, top: float, name: str, color: str, dash: str) -> go.Scatter:
    return go.Scatter(x=[x, x], y=[0, top], mode="lines", name=name, line=dict(color=color, dash=dash, width=2),
                      hoverinfo="name")


# ------------------------------------------------------------------------ shares (2.1)


def shares_figure(
    shares: pd.DataFrame,
    phases: Sequence[str],
    *,
    threshold: float,
    convergence_size: float | None = None,
    sizes: Sequence[float] | None = None,
    target_size: float | None = None,
) -> go.Figure:
    """Share of the runtime per phase vs input size (section 2.1), stacked.

    ``shares`` has columns ``size``, ``phase``, ``share`` (one row per size and phase,
    as :func:`~workbench.models.fractal.phase_shares` gives).  The major ``phases`` are
    stacked from the bottom, largest first, and everything else is one grey
    :data:`OTHER` area, so the top of the coloured stack is the cumulative share of the
    major phases, to be read against the ``threshold`` line.  Optional marks: the
    convergence size C (green), the fitted sizes N_i (diamonds on the major-phase share)
    and the target size (grey, dotted).  The x axis is logarithmic when the sizes span
    more than a factor of 20.

    Parameters
    ----------
    shares : pandas.DataFrame
        Columns ``size``, ``phase``, ``share``.
    phases : sequence of str
        The major phases.
    threshold : float
        The cumulative share the major phases reach (a horizontal line).
    convergence_size : float, optional
        The convergence size C to mark.
    sizes : sequence of float, optional
        The fitted sizes N_i to mark.
    target_size : float, optional
        The target size to mark.
    """
    require_columns(shares, ["size", "share"], "shares figure")
    wide = shares.pivot_table(index="size", columns="phase", values="share", aggfunc="mean").sort_index()
    x = wide.index.to_numpy(dtype=float)
    major = wide.reindex(columns=list(phases)).fillna(0.0)
    cumulative = major.sum(axis=1).to_numpy()
    colors = phase_colors(phases)
    traces = [
        go.Scatter(x=x, y=major[p].to_numpy(), name=p, mode="lines", stackgroup="major",
                   line=dict(color=colors[p], width=1),
                   hovertemplate=f"{p}: %{{y:.1%}} at size %{{x:g}}<extra></extra>")
        for p in phases
    ]
    traces.append(go.Scatter(x=x, y=np.clip(1.0 - cumulative, 0.0, None), name=OTHER, mode="lines",
                             stackgroup="major", line=dict(color=_C["other"], width=1),
                             hovertemplate=f"{OTHER}: %{{y:.1%}} at size %{{x:g}}<extra></extra>"))
    traces.append(go.Scatter(x=[x.min(), x.max()], y=[threshold, threshold], mode="lines",
                             name=f"threshold {threshold:.0%}", line=dict(color=_C["threshold"], dash="dash", width=2)))
    if convergence_size is not None:
        traces.append(_vline(convergence_size, 1.0, f"C = {convergence_size:g}", _C["C"], "solid"))
    if sizes is not None and len(sizes):
        used = np.asarray(sizes, dtype=float)
        traces.append(go.Scatter(x=used, y=np.interp(used, x, cumulative), mode="markers",
                                 name=f"N_i fitted ({used.size})",
                                 marker=dict(symbol="diamond", size=11, color="white",
                                             line=dict(color="black", width=2)),
                                 hovertemplate="N_i = %{x:g}: major phases %{y:.1%}<extra></extra>"))
    if target_size is not None:
        traces.append(_vline(target_size, 1.0, f"N_Lrg = {target_size:g}", _C["target"], "dot"))
    log_x = x.min() > 0 and x.max() / x.min() > 20
    fig = go.Figure(traces)
    fig.update_layout(
        title=dict(text=f"Share of runtime per phase (section 2.1): major phases = {', '.join(phases)} "
                        f"(cumulative ≥ {threshold:.0%} of the small runs)", font=dict(size=14)),
        xaxis=dict(title="input size N", type="log" if log_x else "linear"),
        yaxis=dict(title="share of the runtime", tickformat=".0%", range=[0, 1.02]),
        height=380, margin=dict(l=60, r=20, t=60, b=45), legend=dict(orientation="h", y=-0.2),
    )
    return fig


# ------------------------------------------------------------------------ log-log (2.2)


def _unfitted_trace(fits: Mapping[str, object], measured: pd.DataFrame) -> go.Scatter:
    """Return the grey trace of the measured sizes below the target that no phase's fit used."""
    require_columns(measured, ["size", "time_s"], "log-log figure")
    target = next(iter(fits.values())).target_size if fits else 1.0
    rows = measured[measured["phase"].isin(list(fits)) & (measured["size"] < target) & (measured["time_s"] > 0)]
    fitted = np.zeros(len(rows), dtype=bool)
    for phase, fit in fits.items():
        fitted |= (rows["phase"] == phase).to_numpy() & np.isin(rows["size"].to_numpy(dtype=float), fit.sizes)
    rest = rows[~fitted]
    return go.Scatter(
        x=np.log(rest["size"].to_numpy(dtype=float) / target), y=np.log(rest["time_s"].to_numpy(dtype=float)),
        mode="markers", name="measured, not fitted", marker=dict(color=_C["other"], size=7),
        customdata=np.c_[rest["size"].to_numpy(dtype=float)], text=rest["phase"].astype(str).to_numpy(),
        hovertemplate="%{text}, N = %{customdata[0]:g}: ln T = %{y:.3f}<extra></extra>")


def loglog_figure(
    fits: Mapping[str, object],
    *,
    actual: Mapping[str, float] | None = None,
    measured: pd.DataFrame | None = None,
) -> go.Figure:
    """Fig. 1 of [EscobarBoppana] for every phase: the log-log fit and its extrapolation.

    ``fits`` maps phase -> :class:`~workbench.models.fractal.PhaseFit` (attributes
    ``sizes``, ``times``, ``target_size``, ``m``, ``b``, ``band``).  Per phase, five
    traces in this order: the fitted points (ln(N_i / N_Lrg), ln T_i); the fitted line
    over the fitted span; its extension to x = 0 (dashed); the prediction b = ln e^b at x = 0
    with the prediction band as error bars; the measured large run ln T at x = 0 (a
    star, empty without ``actual[phase]``).  ``measured`` (``size``, ``phase``,
    ``time_s``, e.g. phase shares) adds one grey trace first: the measured sizes that
    were not fitted, to show what k and delta chose.  The slope m of each line is
    annotated.  Times are in the unit of the fits (s), logs natural.

    Parameters
    ----------
    fits : mapping of str to PhaseFit
        Phase -> fit.
    actual : mapping of str to float, optional
        Phase -> measured time at the target size (s).
    measured : pandas.DataFrame, optional
        Columns ``size``, ``phase``, ``time_s`` of all measured sizes (the unfitted in grey).
    """
    colors = phase_colors(list(fits))
    traces, notes = [], []
    if measured is not None:
        traces.append(_unfitted_trace(fits, measured))
    for i, (phase, fit) in enumerate(fits.items()):
        c = colors[phase]
        sizes = np.asarray(fit.sizes, dtype=float)
        x = np.log(sizes / fit.target_size)
        y = np.log(np.asarray(fit.times, dtype=float))
        span = np.array([x.min(), x.max()])
        ahead = np.array([x.max(), 0.0])
        low, high = (float(v) for v in fit.band)
        have_band = bool(np.isfinite(low) and np.isfinite(high))
        truth = np.nan if actual is None else float(actual.get(phase, np.nan))
        have_truth = bool(np.isfinite(truth) and truth > 0)
        traces += [
            go.Scatter(x=x, y=y, mode="markers", name=f"{phase}: fitted N_i", legendgroup=phase,
                       marker=dict(color=c, size=9), customdata=np.c_[sizes, np.exp(y)],
                       hovertemplate="N = %{customdata[0]:g}: T = %{customdata[1]:.4g} s<extra></extra>"),
            go.Scatter(x=span, y=fit.m * span + fit.b, mode="lines", name=f"{phase}: m = {fit.m:.3f}",
                       legendgroup=phase, line=dict(color=c, width=2), hoverinfo="skip"),
            go.Scatter(x=ahead, y=fit.m * ahead + fit.b, mode="lines", name=f"{phase}: extrapolation",
                       legendgroup=phase, showlegend=False, line=dict(color=c, width=2, dash="dash"),
                       hoverinfo="skip"),
            go.Scatter(x=[0.0], y=[fit.b], mode="markers", name=f"{phase}: e^b = {np.exp(fit.b):.4g} s",
                       legendgroup=phase, marker=dict(color=c, size=12, symbol="circle-open", line=dict(width=3)),
                       error_y=dict(type="data", symmetric=False, visible=have_band, color=c, thickness=2, width=8,
                                    array=[np.log(high) - fit.b if have_band else 0.0],
                                    arrayminus=[fit.b - np.log(low) if have_band else 0.0]),
                       hovertemplate=(f"prediction e^b = {np.exp(fit.b):.4g} s"
                                      + (f", band {low:.4g} … {high:.4g} s" if have_band else "")
                                      + "<extra></extra>")),
            go.Scatter(x=[0.0] if have_truth else [], y=[np.log(truth)] if have_truth else [], mode="markers",
                       name=f"{phase}: measured {truth:.4g} s" if have_truth else f"{phase}: measured: none",
                       legendgroup=phase, marker=dict(color=_C["measured"], size=13, symbol="star"),
                       hovertemplate="measured large run: ln T = %{y:.3f}<extra></extra>"),
        ]
        # the slope written beside the middle of the fitted span
        notes.append(dict(x=float(x.mean()), y=float(fit.m * x.mean() + fit.b), text=f"m = {fit.m:.2f}",
                          showarrow=True, arrowhead=0, ax=-40, ay=-25 - 18 * (i % 3), font=dict(color=c, size=13)))
    fig = go.Figure(traces)
    fig.add_vline(x=0.0, line=dict(color=_C["target"], dash="dot", width=1))
    fig.update_layout(
        title=dict(text="Log-log fits per phase (section 2.2): slope m = fractal dimension, "
                        "e^b at x = 0 = predicted time at N_Lrg", font=dict(size=14)),
        xaxis=dict(title="x = ln(N_i / N_Lrg)", zeroline=False),
        yaxis=dict(title="ln T_i  (T in s)"),
        annotations=notes, height=440, margin=dict(l=60, r=20, t=60, b=45),
        legend=dict(font=dict(size=11)),
    )
    return fig


# ------------------------------------------------------------- predicted vs actual (2.3)


def prediction_figure(comparison: pd.DataFrame, target_size: float | None = None) -> go.Figure:
    """Predicted against measured time at the large size, per phase and in total.

    ``comparison`` is :attr:`~workbench.evaluation.fractal.FractalExperiment.comparison`
    (columns ``phase``, ``predicted_s``, ``band_low_s``, ``band_high_s``, ``actual_s``,
    ``error_pct``; the last row is the whole program, T of section 2.3).  Two bar
    traces: predicted with the prediction band as error bars, measured (NaN bars
    without a large run); the error in % is written above each pair.

    Parameters
    ----------
    comparison : pandas.DataFrame
        The experiment's comparison frame.
    target_size : float, optional
        The target size, for the title.
    """
    require_columns(comparison, ["predicted_s"], "prediction figure")
    names = comparison["phase"].astype(str).tolist()
    pred = comparison["predicted_s"].to_numpy(dtype=float)
    low = comparison["band_low_s"].to_numpy(dtype=float)
    high = comparison["band_high_s"].to_numpy(dtype=float)
    actual = comparison["actual_s"].to_numpy(dtype=float)
    errors = comparison["error_pct"].to_numpy(dtype=float)
    band = np.isfinite(low) & np.isfinite(high)
    top = np.nanmax(np.r_[pred, np.where(band, high, np.nan), actual])
    fig = go.Figure([
        go.Bar(x=names, y=pred, name="predicted (e^b; T = Σt_P / Σr_P)", marker_color="#1f77b4",
               error_y=dict(type="data", symmetric=False, array=np.where(band, high - pred, 0.0),
                            arrayminus=np.where(band, pred - low, 0.0), color="#0d3c61", thickness=2),
               customdata=np.c_[low, high],
               hovertemplate="%{x}: predicted %{y:.4g} s, band %{customdata[0]:.4g} … %{customdata[1]:.4g} s"
                             "<extra></extra>"),
        go.Bar(x=names, y=actual, name="measured large run", marker_color="#7f7f7f",
               hovertemplate="%{x}: measured %{y:.4g} s<extra></extra>"),
    ])
    notes = [dict(x=n, y=top * 1.12, text=f"error {e:.1f} %" if np.isfinite(e) else "no measurement",
                  showarrow=False, font=dict(size=13)) for n, e in zip(names, errors)]
    at = f" N_Lrg = {target_size:g}" if target_size is not None else " the large size"
    total = f": overall error {errors[-1]:.1f} %" if errors.size and np.isfinite(errors[-1]) else ""
    fig.update_layout(
        title=dict(text=f"Predicted vs measured time at{at}{total}", font=dict(size=14)),
        barmode="group", annotations=notes, height=380,
        yaxis=dict(title="time [s]", range=[0, top * 1.2] if np.isfinite(top) and top > 0 else None),
        margin=dict(l=60, r=20, t=60, b=45), legend=dict(orientation="h", y=-0.15),
    )
    return fig


# ------------------------------------------------------------------------ Table 1


def table1_figure(check: pd.DataFrame) -> go.Figure:
    """Table 1 of [EscobarBoppana] relative to e^b.

    Per row of :func:`~workbench.evaluation.fractal.table1_check`, the rounding bracket
    e^(-+0.05) of the printed intercept (the same for every row, 0.951 ... 1.051), the
    published predicted time / e^b (inside the bracket when b was rounded from it) and the
    published actual time / e^b (its distance from 1 is the error of e^b).  Linear y axis:
    on a log axis of seconds the 10 % bracket would vanish; hover shows the seconds.

    Parameters
    ----------
    check : pandas.DataFrame
        Rows of :func:`~workbench.evaluation.fractal.table1_check`.
    """
    require_columns(check, ["eb_s", "bracket_low_s", "bracket_high_s", "published_predicted_s",
                            "published_actual_s"], "Table 1 figure")
    labels = check["label"].astype(str).tolist()
    eb = check["eb_s"].to_numpy(dtype=float)
    high = check["bracket_high_s"].to_numpy(dtype=float) / eb
    low = check["bracket_low_s"].to_numpy(dtype=float) / eb
    inside = int(check["inside_bracket"].sum())
    fig = go.Figure([
        go.Scatter(x=labels, y=np.ones(len(check)), mode="markers", name="e^b (b as printed) and its rounding bracket",
                   marker=dict(symbol="line-ew", size=22, color=_C["bracket"], line=dict(width=3)),
                   error_y=dict(type="data", symmetric=False, color=_C["bracket"], thickness=3, width=14,
                                array=high - 1.0, arrayminus=1.0 - low),
                   customdata=check[["b", "eb_s", "bracket_low_s", "bracket_high_s"]].to_numpy(dtype=float),
                   hovertemplate="b = %{customdata[0]}: e^b = %{customdata[1]:.5g} s, bracket %{customdata[2]:.5g}"
                                 " … %{customdata[3]:.5g} s<extra></extra>"),
        go.Scatter(x=labels, y=check["published_predicted_s"].to_numpy(dtype=float) / eb, mode="markers",
                   name="published predicted", marker=dict(symbol="circle", size=10, color=_C["published"]),
                   customdata=check[["published_predicted_s"]].to_numpy(dtype=float),
                   hovertemplate="published predicted %{customdata[0]:.5g} s = %{y:.4f} e^b<extra></extra>"),
        go.Scatter(x=labels, y=check["published_actual_s"].to_numpy(dtype=float) / eb, mode="markers",
                   name="published actual", marker=dict(symbol="x", size=10, color=_C["measured"]),
                   customdata=check[["published_actual_s"]].to_numpy(dtype=float),
                   hovertemplate="published actual %{customdata[0]:.5g} s = %{y:.4f} e^b<extra></extra>"),
    ])
    fig.update_layout(
        title=dict(text=f"Table 1 of Escobar & Boppana relative to e^b ms: published prediction inside the "
                        f"rounding bracket e^(b ± 0.05) in {inside} of {len(check)} rows", font=dict(size=14)),
        yaxis=dict(title="time / e^b", tickformat=".2f"), xaxis=dict(tickangle=-35),
        height=420, margin=dict(l=60, r=20, t=70, b=120), legend=dict(orientation="h", y=1.1, x=0),
    )
    return fig
