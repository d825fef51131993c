"""Figures of Branikas ([Branikas2024]).

Per-rank statistics (chapter 4), the semi-empirical Exchange model (chapter 6) and the
gradient-boosting models (chapter 8).

Every function takes data -- a per-rank frame, a :func:`~workbench.models.comm.statistics
.rank_statistics` table, :func:`~workbench.evaluation.comm_ml.reproduce_table_6_1`,
or the ``predictions``/``importances`` of a :class:`~workbench.models.comm.gbm
.ScenarioResult` -- and returns a :class:`plotly.graph_objects.Figure`; nothing here fits a
model or touches a widget.

* :func:`rank_box_figure` -- Fig. 4.1: per-rank times of each group as a box with its
  mean and +-1 standard deviation (plotly's ``boxmean="sd"``: the dashed line and rhombus
  of the thesis) and every rank as a point.
* :func:`rank_density_figure` -- Fig. 4.2: probability-density histogram per group with
  the normal ``N(mu, sigma^2)`` of the group's mean and standard deviation.
* :func:`mean_std_band_figure` -- Fig. 4.3: mean over ranks +- one standard deviation
  against a feature, one band per group.
* :func:`semi_empirical_figure` -- Figs. 6.4 and 6.5 side by side: measured Exchange
  times and the model's predictions per PpN (log-log), and the percentage error; the
  PpN-factor model of Fig. 6.3 as hidden (legend-only) traces.  Fixed traces, so a
  dashboard updates it in place.
* :func:`prediction_vs_actual_figure` -- Figs. 8.1-8.5: predicted vs actual (log-log),
  the line y = x and the +-30 % band, points coloured by a chosen feature.
* :func:`importance_figure` -- Tables 8.2/8.4/8.6 as bars: inverse mean minimum depth
  beside permutation importance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots
from scipy import stats

from workbench.errors import ValidationError
from workbench.metrics import band_text
from workbench.models.comm.gbm import BAND_PCT
from workbench.validation import require_columns

__all__ = [
    "MAX_POINTS",
    "value_label",
    "rank_box_figure",
    "rank_density_figure",
    "mean_std_band_figure",
    "semi_empirical_figure",
    "prediction_vs_actual_figure",
    "importance_figure",
]

#: Points drawn at most in a prediction-vs-actual plot (a seeded sample beyond that keeps
#: the page light; the title says how many are shown).
MAX_POINTS = 4000
#: Distinct values up to which a colour feature gets one legend entry per value.
MAX_DISCRETE = 12
_PALETTE = qualitative.Plotly + qualitative.D3
_TIME_LABELS = {"comm_s": "communication time [s]", "comp_s": "computation time [s]", "total_s": "total time [s]",
                "latency_us": "latency [µs]"}


def value_label(column: str, value) -> str:
    """Return a readable value of ``column``: sizes in B/KiB/MiB/GiB for ``*_bytes`` columns.

    Parameters
    ----------
    column : str
        The column the value belongs to.
    value : object
        The value; floats are shown with ``%g``.

    Returns
    -------
    str
        E.g. ``"64 KiB"`` for ``("size_bytes", 65536)``.
    """
    if column.endswith("bytes") and isinstance(value, (int, float, np.integer, np.floating)):
        v, unit = float(value), "B"
        for bigger in ("KiB", "MiB", "GiB"):
            if abs(v) < 1024:
                break
            v, unit = v / 1024, bigger
        return f"{v:g} {unit}"
    if isinstance(value, (float, np.floating)):
        return f"{value:g}"
    return str(value)


def _axis_label(column: str) -> str:
    return _TIME_LABELS.get(column, column)


def _groups(frame: pd.DataFrame, by: str, where: str) -> list:
    if by not in frame.columns:
        raise ValidationError(f"{where}: column {by!r} is not in the frame ({list(frame.columns)})")
    return sorted(frame[by].dropna().unique().tolist())


# ----------------------------------------------------------------- per-rank (chapter 4)


def rank_box_figure(per_rank: pd.DataFrame, by: str, value: str = "comm_s", title: str | None = None) -> go.Figure:
    """[Branikas2024] Fig. 4.1: one box per value of ``by`` over the per-rank values of ``value``.

    With the mean (dashed line) and +-1 sample standard deviation (dashed rhombus) and
    every rank as a jittered point.

    Parameters
    ----------
    per_rank : pandas.DataFrame
        One row per rank and run.
    by : str
        The column whose values get a box each.
    value : str, default "comm_s"
        The column drawn.
    title : str or None, default None
        The figure's title; None: a title saying what is drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    where = "rank_box_figure"
    require_columns(per_rank, [value], where)
    groups = _groups(per_rank, by, where)
    traces = []
    for k, g in enumerate(groups):
        values = per_rank.loc[per_rank[by] == g, value].to_numpy(dtype=float)
        traces.append(go.Box(y=values, name=value_label(by, g), boxmean="sd", boxpoints="all", jitter=0.4,
                             pointpos=0, marker=dict(size=4, opacity=0.5, color=_PALETTE[k % len(_PALETTE)]),
                             line=dict(width=1.5), hoveron="boxes+points"))
    fig = go.Figure(traces)
    fig.update_layout(title=dict(text=title or f"{_axis_label(value)} of every rank, by {by} "
                                 "(box: quartiles; dashed: mean ± 1 std)", font=dict(size=14)),
                      xaxis_title=by, yaxis_title=_axis_label(value), showlegend=False, height=400,
                      margin=dict(l=60, r=20, t=60, b=50))
    return fig


def rank_density_figure(per_rank: pd.DataFrame, by: str, value: str = "comm_s", bins: int = 30,
                        title: str | None = None) -> go.Figure:
    """[Branikas2024] Fig. 4.2: per value of ``by`` a histogram of the per-rank ``value`` and a normal density.

    A probability-density histogram (``min(bins, ceil(sqrt(n)))`` bins for ``n`` ranks)
    and, as a line, the normal density ``N(mu, sigma^2)`` with the group's mean and sample
    standard deviation (none for a constant group or a single rank).

    Parameters
    ----------
    per_rank : pandas.DataFrame
        One row per rank and run.
    by : str
        The column whose values get a histogram each.
    value : str, default "comm_s"
        The column drawn.
    bins : int, default 30
        Most bins of a histogram.
    title : str or None, default None
        The figure's title; None: a title saying what is drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    where = "rank_density_figure"
    require_columns(per_rank, [value], where)
    groups = _groups(per_rank, by, where)
    fig = go.Figure()
    for k, g in enumerate(groups):
        color = _PALETTE[k % len(_PALETTE)]
        values = per_rank.loc[per_rank[by] == g, value].to_numpy(dtype=float)
        label = f"{by} = {value_label(by, g)}"
        if np.ptp(values) > 0:
            # about sqrt(n) bins: a few ranks (2-4 per run on one node) get 1-2 bars, not spikes
            density, edges = np.histogram(values, bins=int(min(bins, np.ceil(np.sqrt(values.size)))), density=True)
        else:  # one value: no density to draw
            density, edges = np.array([]), np.array([values[0]])
        fig.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=density, width=np.diff(edges), name=label,
                             legendgroup=label, marker=dict(color=color, opacity=0.45),
                             hovertemplate="%{x:.4g}: density %{y:.3g}<extra>" + label + "</extra>"))
        mu, sigma = values.mean(), values.std(ddof=1) if values.size > 1 else 0.0
        if sigma > 0:
            x = np.linspace(mu - 4 * sigma, mu + 4 * sigma, 200)
            fig.add_trace(go.Scatter(x=x, y=stats.norm.pdf(x, mu, sigma), mode="lines", legendgroup=label,
                                     name=f"N({mu:.3g}, {sigma:.2g}²)", line=dict(color=color, width=2)))
    fig.update_layout(title=dict(text=title or f"Density of the per-rank {_axis_label(value)} with the normal "
                                 "N(μ, σ²) of each group", font=dict(size=14)),
                      barmode="overlay", bargap=0, xaxis_title=_axis_label(value), yaxis_title="probability density",
                      height=400, margin=dict(l=60, r=20, t=60, b=50))
    return fig


def mean_std_band_figure(statistics: pd.DataFrame, x: str, group: str | None = None,
                         value_label_text: str = "communication time [s]", title: str | None = None) -> go.Figure:
    """[Branikas2024] Fig. 4.3: ``mean`` against ``x`` with a ``mean +- std`` band per value of ``group``.

    Parameters
    ----------
    statistics : pandas.DataFrame
        A :func:`~workbench.models.comm.statistics.rank_statistics` table grouped by
        ``[group, x]`` or ``x`` (columns ``mean``, ``std``).
    x : str
        The column on the x axis.
    group : str or None, default None
        The column whose values get a line and band each; None: one line.
    value_label_text : str, default "communication time [s]"
        The y axis title.
    title : str or None, default None
        The figure's title; None: a title saying what is drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    where = "mean_std_band_figure"
    require_columns(statistics, ["mean"], where)
    for c in (x, "std"):
        if c not in statistics.columns:
            raise ValidationError(f"{where}: column {c!r} is missing")
    groups = _groups(statistics, group, where) if group else [None]
    numeric = pd.api.types.is_numeric_dtype(statistics[x])
    fig = go.Figure()
    for k, g in enumerate(groups):
        rows = (statistics if g is None else statistics[statistics[group] == g]).sort_values(x)
        xs = rows[x].to_numpy(dtype=float) if numeric else rows[x].astype(str).to_numpy()
        mean = rows["mean"].to_numpy(dtype=float)
        std = np.nan_to_num(rows["std"].to_numpy(dtype=float))
        color = _PALETTE[k % len(_PALETTE)]
        name = "mean over ranks" if g is None else f"{group} = {value_label(group, g)}"
        fig.add_trace(go.Scatter(x=np.r_[xs, xs[::-1]], y=np.r_[mean + std, (mean - std)[::-1]], fill="toself",
                                 fillcolor=color, opacity=0.2, line=dict(width=0), legendgroup=name,
                                 showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=xs, y=mean, mode="lines+markers", name=name, legendgroup=name,
                                 line=dict(color=color, width=2),
                                 customdata=std, hovertemplate="%{x}: %{y:.4g} ± %{customdata:.2g}<extra></extra>"))
    log_x = numeric and (statistics[x] > 0).all() and statistics[x].max() / max(statistics[x].min(), 1e-300) > 50
    fig.update_layout(title=dict(text=title or f"Mean ± 1 std over ranks vs {x}", font=dict(size=14)),
                      xaxis=dict(title=x, type="log" if log_x else "linear"), yaxis_title=value_label_text,
                      height=380, margin=dict(l=60, r=20, t=60, b=50))
    return fig


# ----------------------------------------------------------------- semi-empirical (chapter 6)


def semi_empirical_figure(table: pd.DataFrame, title: str | None = None) -> go.Figure:
    """[Branikas2024] Figs. 6.4 (left) and 6.5 (right) from :func:`~workbench.evaluation.comm_ml.reproduce_table_6_1`.

    Left, log-log: measured Exchange time per PpN (markers), the semi-empirical
    prediction (line) and the PpN-factor model of Fig. 6.3 (dotted, legend-only).
    Right: the thesis's percentage error ``100 (measured - predicted) / measured`` per
    PpN against message size, with the +-10 % lines of section 6.2.  Fixed traces: four
    per PpN in increasing PpN order (measured, predicted, PpN factor, error) and the two
    band lines.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~workbench.evaluation.comm_ml.reproduce_table_6_1`'s table.
    title : str or None, default None
        The figure's title; None: a title saying what is drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    require_columns(table, ["message_size_bytes", "processes_per_node", "measured_us", "predicted_us",
                            "percentage_error", "ppn_factor_us"], "semi_empirical_figure")
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("Exchange time: measured (Table 6.1) vs model (Fig. 6.4)",
                                        "percentage error (Fig. 6.5; > 0 = under-prediction)"))
    sizes = np.sort(table["message_size_bytes"].unique())
    ticks = dict(tickvals=sizes, ticktext=[value_label("bytes", s) for s in sizes])
    for k, ppn in enumerate(np.sort(table["processes_per_node"].unique())):
        rows = table[table["processes_per_node"] == ppn].sort_values("message_size_bytes")
        x = rows["message_size_bytes"].to_numpy(dtype=float)
        color = _PALETTE[k % len(_PALETTE)]
        group = f"PpN {ppn}"
        fig.add_trace(go.Scatter(x=x, y=rows["measured_us"], mode="markers", name=f"{group} measured",
                                 legendgroup=group, marker=dict(color=color, size=9, symbol="circle")), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=rows["predicted_us"], mode="lines", name=f"{group} semi-empirical",
                                 legendgroup=group, line=dict(color=color, width=2)), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=rows["ppn_factor_us"], mode="lines", name=f"{group} PpN × base(size)",
                                 legendgroup=group, visible="legendonly", line=dict(color=color, width=1, dash="dot")),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=rows["percentage_error"], mode="lines+markers", legendgroup=group,
                                 showlegend=False, name=f"{group} error", line=dict(color=color, width=2),
                                 hovertemplate="%{y:+.1f} %<extra>" + group + "</extra>"), row=1, col=2)
    for bound in (10, -10):
        fig.add_trace(go.Scatter(x=[sizes.min(), sizes.max()], y=[bound, bound], mode="lines", showlegend=False,
                                 hoverinfo="skip", line=dict(color="#888", width=1, dash="dash")), row=1, col=2)
    attrs = table.attrs
    err = table["percentage_error"].abs()
    text = title or (f"Semi-empirical Exchange model: time = PpN × {attrs.get('size_factor', np.nan):.3g} × "
                     f"(size / 4 KiB) × {attrs.get('base_us', np.nan):.4g} µs — mean |error| {err.mean():.1f} %, "
                     f"max {err.max():.1f} %")
    fig.update_xaxes(type="log", title_text="message size", **ticks)
    fig.update_yaxes(type="log", title_text="average time [µs]", exponentformat="power", row=1, col=1)
    fig.update_yaxes(title_text="percentage error [%]", zeroline=True, row=1, col=2)
    fig.update_annotations(font=dict(size=12))
    fig.update_layout(title=dict(text=text, font=dict(size=14)), height=440, margin=dict(l=60, r=20, t=80, b=50),
                      legend=dict(font=dict(size=10)))
    return fig


# ----------------------------------------------------------------- gradient boosting (chapter 8)


def _diagonal_traces(line: np.ndarray, band_pct: float) -> list[go.Scatter]:
    """Return the line y = x over ``line`` and the dashed +-``band_pct`` % band around it."""
    return [
        go.Scatter(x=line, y=line, mode="lines", name="y = x", line=dict(color="#1f3b99", width=2)),
        go.Scatter(x=line, y=line * (1 + band_pct / 100), mode="lines", name=band_text(band_pct),
                   line=dict(color="#888", width=1, dash="dash")),
        go.Scatter(x=line, y=line * (1 - band_pct / 100), mode="lines", showlegend=False,
                   line=dict(color="#888", width=1, dash="dash")),
    ]


def prediction_vs_actual_figure(predictions: pd.DataFrame, color_by: str | None = None, *, band_pct: float = BAND_PCT,
                                unit: str = "", max_points: int = MAX_POINTS, seed: int = 0,
                                title: str | None = None) -> go.Figure:
    """[Branikas2024] Figs. 8.1-8.5: predicted against actual (log-log), the line y = x and the +-``band_pct`` % band.

    Points above the line are over-predictions.  Different test subsets get different
    marker symbols.

    Parameters
    ----------
    predictions : pandas.DataFrame
        A ``ScenarioResult.predictions`` frame (``actual``, ``predicted``, ``subset`` and
        feature columns).
    color_by : str or None, default None
        A column; up to 12 distinct values get one legend entry each, more a continuous
        colour scale.  None: one colour.
    band_pct : float, default BAND_PCT (30)
        Half-width of the band, percent.
    unit : str, default ""
        The unit of the times, in the axis titles.
    max_points : int, default MAX_POINTS (4000)
        Beyond this many points a seeded random sample is drawn.
    seed : int, default 0
        Seeds the sample.
    title : str or None, default None
        The figure's title; None: a title saying what is drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    where = "prediction_vs_actual_figure"
    require_columns(predictions, ["actual", "predicted"], where)
    data = predictions
    if color_by is not None and color_by not in data.columns:
        raise ValidationError(f"{where}: colour column {color_by!r} is not in the predictions ({list(data.columns)})")
    shown = len(data)
    if shown > max_points:
        data = data.sample(max_points, random_state=seed)
    subsets = data["subset"].unique().tolist() if "subset" in data.columns else [None]
    symbols = ["circle", "x", "diamond", "square"]
    positive = np.r_[data["actual"].to_numpy(float), data["predicted"].to_numpy(float)]
    positive = positive[positive > 0]
    lo, hi = (positive.min() / 1.5, positive.max() * 1.5) if positive.size else (1e-3, 1.0)
    line = np.geomspace(lo, hi, 50)
    fig = go.Figure(_diagonal_traces(line, band_pct))
    discrete = color_by is None or data[color_by].nunique() <= MAX_DISCRETE or not pd.api.types.is_numeric_dtype(
        data[color_by])
    hover = "actual %{x:.4g}<br>predicted %{y:.4g}<br>%{text}<extra></extra>"
    for s_k, subset in enumerate(subsets):
        rows = data if subset is None else data[data["subset"] == subset]
        symbol = symbols[s_k % len(symbols)]
        suffix = "" if subset is None or len(subsets) == 1 else f" — {subset}"
        if discrete:
            values = [None] if color_by is None else sorted(rows[color_by].unique().tolist(), key=str)
            all_values = [None] if color_by is None else sorted(data[color_by].unique().tolist(), key=str)
            for v in values:
                part = rows if v is None else rows[rows[color_by] == v]
                color = _PALETTE[all_values.index(v) % len(_PALETTE)]
                name = ("predictions" if v is None else f"{color_by} = {value_label(color_by, v)}") + suffix
                fig.add_trace(go.Scattergl(x=part["actual"], y=part["predicted"], mode="markers", name=name,
                                           text=_hover_text(part, color_by), hovertemplate=hover,
                                           marker=dict(color=color, size=6, opacity=0.7, symbol=symbol)))
        else:
            values = rows[color_by].to_numpy(dtype=float)
            log = (data[color_by] > 0).all() and data[color_by].max() / data[color_by].min() > 100
            fig.add_trace(go.Scattergl(
                x=rows["actual"], y=rows["predicted"], mode="markers", name=f"{subset or 'predictions'}",
                text=_hover_text(rows, color_by), hovertemplate=hover,
                marker=dict(color=np.log10(values) if log else values, colorscale="Viridis", size=6, opacity=0.7,
                            symbol=symbol, showscale=s_k == 0,
                            colorbar=dict(title=f"log10 {color_by}" if log else color_by, len=0.8))))
    note = f" (showing {max_points} of {shown} points)" if shown > max_points else ""
    fig.update_layout(
        title=dict(text=(title or "Predicted vs actual") + note, font=dict(size=14)), height=520,
        xaxis=dict(type="log", title=f"actual {unit}".strip(), exponentformat="power", range=np.log10([lo, hi])),
        yaxis=dict(type="log", title=f"predicted {unit}".strip(), exponentformat="power", range=np.log10([lo, hi])),
        legend=dict(font=dict(size=10), orientation="h", y=-0.15), margin=dict(l=60, r=20, t=60, b=50))
    return fig


def _hover_text(rows: pd.DataFrame, color_by: str | None) -> list[str]:
    skip = {"actual", "predicted", "row", "model"}
    columns = [c for c in rows.columns if c not in skip][:8]
    text = pd.Series([""] * len(rows), index=rows.index)
    for c in columns:
        v = rows[c]
        text += f"{c} = " + (v.map(lambda x: f"{x:.3g}") if c == "error_pct" else v.astype(str)) + "<br>"
    return text.tolist()


def importance_figure(importances: pd.DataFrame, models: Sequence[str] | None = None,
                      title: str | None = None) -> go.Figure:
    """Tables 8.2/8.4/8.6 as bars.

    Left the inverse mean minimum depth (the thesis's YDF ``INV_MEAN_MIN_DEPTH``), right
    the permutation importance (drop of R2 with its standard deviation over repeats), one
    bar group per model.  Features no tree splits on (NaN) are labelled "(no split)".

    Parameters
    ----------
    importances : pandas.DataFrame
        Columns ``model``, ``feature``, ``inv_mean_min_depth``, and ``permutation_mean``,
        ``permutation_std`` when present.
    models : sequence of str or None, default None
        The models drawn, in order; None: every model of ``importances``.
    title : str or None, default None
        The figure's title; None: a title saying what is drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    missing = [c for c in ("model", "feature", "inv_mean_min_depth") if c not in importances.columns]
    if missing:
        raise ValidationError(f"importance_figure: missing column(s) {missing}")
    models = list(models) if models is not None else importances["model"].unique().tolist()
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.18,
                        subplot_titles=("inverse mean minimum depth 1 / (1 + d)",
                                        "permutation importance (drop of R2)"))
    # unused features (no split: NaN) at the bottom, labelled
    order = importances.groupby("feature")["inv_mean_min_depth"].mean().fillna(-1).sort_values().index.tolist()
    unused = set(importances.loc[importances["inv_mean_min_depth"].isna(), "feature"])
    labels = [f"{f} (no split)" if f in unused else f for f in order]
    for k, model in enumerate(models):
        rows = importances[importances["model"] == model].set_index("feature").reindex(order)
        color = _PALETTE[k % len(_PALETTE)]
        fig.add_trace(go.Bar(y=labels, x=rows["inv_mean_min_depth"], orientation="h", name=model, legendgroup=model,
                             marker_color=color), row=1, col=1)
        fig.add_trace(go.Bar(y=labels, x=rows.get("permutation_mean"), orientation="h", name=model, legendgroup=model,
                             showlegend=False, marker_color=color,
                             error_x=dict(type="data", array=rows.get("permutation_std"), visible=True)), row=1, col=2)
    fig.update_layout(barmode="group", height=max(300, 60 + 45 * len(order) * max(1, len(models))),
                      title=dict(text=title or "Feature importances", font=dict(size=14)),
                      margin=dict(l=110, r=20, t=70, b=40), legend=dict(orientation="h", y=-0.15))
    fig.update_annotations(font=dict(size=12))
    return fig
