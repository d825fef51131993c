"""Figures of FiM-Com ([Bhimani2019] section 3, Fig. 6 and Fig. 11).

Every function takes data -- a :class:`~workbench.models.fim.CollectiveSimulation`,
fitted stations (:class:`~workbench.models.fim.service_fit.StationFit`), a sweep summary
(:func:`workbench.evaluation.fim_com.summarize_sweep`) and measured OSU curves
(:func:`workbench.evaluation.fim_com.osu_collective_curve`) -- and returns a
:class:`plotly.graph_objects.Figure`; nothing here simulates or touches a widget.  Times
are in µs, the unit of :mod:`workbench.evaluation.fim_com`.

* :func:`makespan_figure` -- the communication time (makespan) of every replication, its
  mean and the measured OSU latency.
* :func:`station_cdf_figure` -- paper Fig. 11: per station D, M, C, R the measured
  service-time CDF, the fitted model CDF (Eqs. 13-16) with its chi-square p-value, and
  the service times the current simulation drew.
* :func:`sweep_figure` -- paper Fig. 6 (b)-(d): model mean and min-max band over data
  points N or over processes p, the measured curve beside it, the eager limit marked.

:func:`makespan_figure` and :func:`station_cdf_figure` keep the same traces in the same
order whatever the data (empty traces stand for absent items), so a dashboard can update
a live ``FigureWidget`` in place.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from workbench.errors import ValidationError
from workbench.evaluation.fim_com import EAGER_BYTES, POINT_BYTES
from workbench.models.fim.queueing import STATIONS, CollectiveSimulation
from workbench.models.fim.service_fit import StationFit
from workbench.validation import require_columns

__all__ = [
    "EAGER_POINTS",
    "STATION_NAMES",
    "ecdf",
    "fit_label",
    "makespan_figure",
    "p_value_text",
    "station_cdf_figure",
    "station_fit_frame",
    "sweep_figure",
]

#: The eager limit (64 KiB) in data points of :data:`POINT_BYTES` (section 4.1): 3277.
EAGER_POINTS = int(np.ceil(EAGER_BYTES / POINT_BYTES))
#: What each station of Fig. 4 does and its equation.
STATION_NAMES = {"D": "D: data transfer (Eq. 13)", "M": "M: metadata (Eq. 14)",
                 "C": "C: initialisation (Eq. 15)", "R": "R: receive (Eq. 16)"}
_PARAM_LABELS = {"zeta_min": "ζmin", "zeta_max": "ζmax", "metadata_coef": "c", "scale": "mean", "loc": "floor"}
_C = {"model": "#1f77b4", "band": "rgba(31,119,180,0.18)", "measured": "#111111", "fit": "#d62728",
      "sim": "#1f77b4", "eager": "#9467bd", "mean": "#d62728"}
#: Points drawn per empirical CDF (order statistics evenly spaced beyond that).
MAX_CDF_POINTS = 1000


# ----------------------------------------------------------------------------- helpers


def ecdf(values, max_points: int = MAX_CDF_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ``values`` and their empirical CDF ``i / n`` (a step function, draw with ``line_shape="hv"``).

    Beyond ``max_points`` evenly spaced order statistics, so the drawn curve keeps the
    shape at a fixed size.

    Parameters
    ----------
    values : array-like of float
        The samples.
    max_points : int, default 1000
        Most points returned.
    """
    x = np.sort(np.asarray(values, dtype=float).ravel())
    x = x[np.isfinite(x)]
    y = np.arange(1, x.size + 1) / max(x.size, 1)
    if x.size > max_points:
        keep = np.linspace(0, x.size - 1, max_points).astype(np.int64)
        x, y = x[keep], y[keep]
    return x, y


def p_value_text(fit: StationFit) -> str:
    """``"p = 0.189"`` or ``"p = n/a (reason)"`` for a fit without a chi-square test.

    Parameters
    ----------
    fit : StationFit
        A fitted station.
    """
    if np.isfinite(fit.p_value):
        return f"χ² p = {fit.p_value:.3g}"
    reason = fit.warnings[-1].split(":")[0] if fit.warnings else "no test"
    return f"χ² p = n/a ({reason})"


def fit_label(fit: StationFit) -> str:
    """``"uniform_rate(ζmin=584, ζmax=676)"``: the family and its fitted parameters.

    Parameters
    ----------
    fit : StationFit
        A fitted station.
    """
    params = ", ".join(f"{_PARAM_LABELS.get(k, k)}={v:.3g}" for k, v in fit.params.items())
    return f"{fit.family}({params})"


def _simulated_samples(sim: CollectiveSimulation) -> dict[str, np.ndarray]:
    """Return the simulation's per-station service times in the units of the measured samples.

    R's draws include phi (Eq. 16); divided by phi they are one fetch's time, which is
    what the OSU R samples measure (see workbench.evaluation.fim_com).
    """
    samples = {s: np.asarray(sim.samples.get(s, ()), dtype=float) for s in STATIONS}
    samples["R"] = samples["R"] / sim.phi
    return samples


# ------------------------------------------------------------------------- makespan


def makespan_figure(sim: CollectiveSimulation, measured_us: float | None = None) -> go.Figure:
    """Plot the makespans (µs) of ``sim``'s replications as a histogram with their mean.

    The mean as a red line and, if given, the measured latency (OSU average over ranks,
    black dashed).

    Fixed traces: histogram bars, mean, measured (empty without ``measured_us``).  The
    title gives mean ± standard deviation, the time per data point (the y axis of Fig. 6)
    and the model's relative error against the measurement.

    Parameters
    ----------
    sim : CollectiveSimulation
        The simulated collective.
    measured_us : float, optional
        The measured latency, µs; default None: not drawn.
    """
    m = np.asarray(sim.makespan, dtype=float)
    summary = sim.summary()
    edges = np.histogram_bin_edges(m, bins="auto")
    if edges.size > 41:  # many replications: keep the bars readable
        edges = np.histogram_bin_edges(m, bins=40)
    counts, edges = np.histogram(m, bins=edges)
    top = float(counts.max()) * 1.08
    have_measured = measured_us is not None and np.isfinite(measured_us)
    fig = go.Figure([
        go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges), name="simulated makespans",
               marker=dict(color=_C["model"], opacity=0.7),
               hovertemplate="%{x:.4g} µs: %{y} replications<extra></extra>"),
        go.Scatter(x=[summary["mean"]] * 2, y=[0, top], mode="lines", name=f"mean {summary['mean']:.4g} µs",
                   line=dict(color=_C["mean"], width=3)),
        go.Scatter(x=[measured_us] * 2 if have_measured else [], y=[0, top] if have_measured else [],
                   mode="lines", line=dict(color=_C["measured"], width=3, dash="dash"),
                   name=f"measured (OSU) {measured_us:.4g} µs" if have_measured else "measured (OSU): none"),
    ])
    # an explicit range keeps every bar and the measured line in view
    xs = np.r_[edges[[0, -1]], [measured_us] if have_measured else []]
    pad = 0.04 * max(xs.max() - xs.min(), 1e-9 * max(abs(xs.max()), 1.0))
    role = "senders" if sim.pattern == "gather" else "receivers"
    title = (f"{sim.pattern} of {sim.n_jobs} points, {sim.processes} {role}: makespan {summary['mean']:.4g} ± "
             f"{summary['std']:.2g} µs ({sim.replications} replications), "
             f"{summary['mean'] / sim.n_jobs:.3g} µs per point")
    if have_measured:
        title += (f"<br>measured (OSU) {measured_us:.4g} µs: model "
                  f"{(summary['mean'] - measured_us) / measured_us * 100:+.1f} %")
    fig.update_layout(
        title=dict(text=title, font=dict(size=14)), bargap=0.02, height=380,
        xaxis=dict(title="communication time (makespan) [µs]", range=[xs.min() - pad, xs.max() + pad]),
        yaxis=dict(title="replications", rangemode="tozero"),
        margin=dict(l=60, r=20, t=70, b=45), legend=dict(orientation="h", y=-0.2),
    )
    return fig


# ----------------------------------------------------------------- CDFs (Fig. 11)


def station_fit_frame(fits: Mapping[str, StationFit]) -> pd.DataFrame:
    """One row per fitted station.

    ``station``, ``family``, ``parameters`` (text, rates in points/µs, times in µs), ``n``
    (measured samples), ``chi2``, ``dof``, ``p_value`` (NaN without a test), ``ks``
    (Kolmogorov-Smirnov distance of the fit) and ``note`` (the fit's warnings).

    Parameters
    ----------
    fits : mapping of str to StationFit
        Station name -> fit.
    """
    rows = [dict(station=s, family=f.family, parameters=fit_label(f).split("(", 1)[1].rstrip(")"), n=f.n,
                 chi2=f.chi2, dof=f.dof, p_value=f.p_value, ks=f.ks_statistic, note="; ".join(f.warnings))
            for s, f in fits.items()]
    return pd.DataFrame(rows, columns=["station", "family", "parameters", "n", "chi2", "dof", "p_value", "ks", "note"])



def station_cdf_figure(fits: Mapping[str, StationFit] | None,
                       simulated: CollectiveSimulation | None = None) -> go.Figure:
    """Paper Fig. 11 for the four stations (2 x 2 subplots D, M, C, R), service time per data point (µs).

    The measured empirical CDF (black steps), the fitted model's CDF (red, Eqs. 13-16)
    and, with ``simulated``, the empirical CDF of the service times that simulation drew
    in its first replication (blue steps; R divided by phi, i.e. one fetch).  Each subplot
    title names the fitted family, its parameters and the chi-square p-value (a *small* p
    rejects the fit; "n/a" with the reason when the samples are too few for a test).  An x
    axis is logarithmic when the positive times shown span more than two decades.

    Fixed traces, per station in D, M, C, R order: measured, simulated, fitted (empty
    when absent; the fit drawn last, dotted, because a simulation with the fitted
    parameters lies on it), so the figure can update a live widget in place.

    Parameters
    ----------
    fits : mapping of str to StationFit or None
        Station name -> fit (None: empty subplots).
    simulated : CollectiveSimulation, optional
        A simulation whose drawn service times are added.
    """
    fits = dict(fits or {})
    sim = _simulated_samples(simulated) if simulated is not None else {}
    titles = []
    for s in STATIONS:
        fit = fits.get(s)
        detail = f"{fit_label(fit)}<br>{p_value_text(fit)}, n = {fit.n}" if fit else "no measured samples"
        titles.append(f"<b>{STATION_NAMES[s]}</b><br>{detail}")
    fig = make_subplots(rows=2, cols=2, subplot_titles=titles, vertical_spacing=0.2, horizontal_spacing=0.09)
    for k, s in enumerate(STATIONS):
        row, col = k // 2 + 1, k % 2 + 1
        fit = fits.get(s)
        measured = fit.samples if fit is not None else np.array([])
        drawn = sim.get(s, np.array([]))
        shown = np.r_[measured, drawn]
        positive = shown[np.isfinite(shown) & (shown > 0)]
        log = positive.size > 1 and positive.max() / positive.min() > 100
        if fit is not None and positive.size:
            lo, hi = positive.min(), positive.max()
            grid = np.geomspace(lo, hi, 300) if log else np.linspace(shown.min(), hi, 300)
            fx, fy = grid, fit.cdf(grid)
        else:
            fx = fy = np.array([])
        mx, my = ecdf(measured)
        sx, sy = ecdf(drawn)
        first = k == 0
        fig.add_trace(go.Scatter(x=mx, y=my, mode="lines", line=dict(color=_C["measured"], shape="hv", width=2),
                                 name="measured (OSU-derived)", legendgroup="measured", showlegend=first),
                      row=row, col=col)
        fig.add_trace(go.Scatter(x=sx, y=sy, mode="lines", line=dict(color=_C["sim"], shape="hv", width=1.5),
                                 name="simulated (current parameters)", legendgroup="sim", showlegend=first),
                      row=row, col=col)
        fig.add_trace(go.Scatter(x=fx, y=fy, mode="lines", line=dict(color=_C["fit"], width=2, dash="dot"),
                                 name="fitted model", legendgroup="fit", showlegend=first), row=row, col=col)
        # powers of ten, not SI prefixes: "1µ µs" would read as a unit twice
        fig.update_xaxes(type="log" if log else "linear", exponentformat="power",
                         title_text="service time per point [µs]", title_standoff=2, row=row, col=col)
        fig.update_yaxes(range=[0, 1.02], title_text="CDF" if col == 1 else None, row=row, col=col)
    fig.update_annotations(font=dict(size=11))
    fig.update_layout(height=620, margin=dict(l=55, r=20, t=90, b=40), legend=dict(orientation="h", y=-0.1))
    return fig


# ------------------------------------------------------------------- sweeps (Fig. 6)


def _add_measured(fig: go.Figure, measured: pd.DataFrame | None, vary: str, per_job: bool, unit: str) -> np.ndarray:
    """Add the measured OSU trace of :func:`sweep_figure` (empty without ``measured``); return its y values."""
    on_n = vary == "n_jobs"
    if measured is None or not len(measured):
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines+markers", name="measured (OSU): none"))
        return np.array([])
    require_columns(measured, ["n_jobs", "processes", "size_bytes", "latency_us"], "sweep_figure (measured)")
    meas = measured.sort_values(vary)
    mn = meas["n_jobs"].to_numpy(float)
    measured_y = meas["latency_us"].to_numpy(float) / (mn if per_job else 1.0)
    mcustom = meas["size_bytes"].to_numpy(float) if on_n else mn
    mhover = ("%{customdata:.0f} B = N %{x:.0f} points" if on_n else "p = %{x:.0f} (cores - 1)")
    fig.add_trace(go.Scatter(x=meas[vary].to_numpy(float), y=measured_y, mode="lines+markers", customdata=mcustom,
                             name="measured (OSU broadcast)", line=dict(color=_C["measured"], width=1.5),
                             marker=dict(size=6, symbol="circle-open"),
                             hovertemplate=mhover + f"<br>%{{y:.4g}} {unit}<extra>OSU</extra>"))
    return measured_y


def sweep_figure(summary: pd.DataFrame, vary: str, measured: pd.DataFrame | None = None,
                 per_job: bool = False) -> go.Figure:
    """Paper Fig. 6 (b)-(d).

    Communication time over data points N (``vary="n_jobs"``, log x, hover also gives the
    message size in bytes at :data:`POINT_BYTES` per point) or over processes p
    (``vary="processes"``).

    ``summary``: :func:`~workbench.evaluation.fim_com.summarize_sweep` of one pattern
    (columns ``pattern, n_jobs, processes, mean, min, max``); the model's mean is a line
    with the min-max band over replications.  ``measured``: OSU rows
    (:func:`~workbench.evaluation.fim_com.osu_collective_curve`, columns ``n_jobs``,
    ``processes``, ``size_bytes``, ``latency_us``) along the same axis, drawn as
    markers and line.  ``per_job``: divide every time by N (Fig. 6's y axis).  On the
    vs-N plot the eager limit (64 KiB, :data:`EAGER_POINTS` points) is a dotted line; for
    scatter it sits at ``EAGER_POINTS * p``, where each receiver's share reaches 64 KiB
    (section 4.1).

    Traces: band lower edge, band (``fill="tonexty"``), model mean, measured (empty
    without ``measured``), eager limit (vs N only).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`~workbench.evaluation.fim_com.summarize_sweep` of one pattern.
    vary : {"n_jobs", "processes"}
        The x axis.
    measured : pandas.DataFrame, optional
        OSU rows along the same axis; default None: none drawn.
    per_job : bool, default False
        Divide every time by N (Fig. 6's y axis).
    """
    if vary not in ("n_jobs", "processes"):
        raise ValidationError(f"sweep_figure: vary must be 'n_jobs' or 'processes', got {vary!r}")
    require_columns(summary, ["n_jobs", "processes", "mean", "min", "max"], "sweep_figure")
    data = summary.sort_values(vary)
    x = data[vary].to_numpy(float)
    n = data["n_jobs"].to_numpy(float)
    scale = n if per_job else np.ones_like(n)
    lo, mean, hi = (data[c].to_numpy(float) / scale for c in ("min", "mean", "max"))
    patterns = data["pattern"].unique() if "pattern" in data else ["model"]
    pattern = str(patterns[0]) if len(patterns) == 1 else "model"
    unit = "µs per point" if per_job else "µs"
    on_n = vary == "n_jobs"
    size = n * POINT_BYTES
    hover = ("N = %{x:.0f} points (%{customdata:.0f} B)" if on_n else "p = %{x:.0f} (N = %{customdata:.0f})")
    custom = size if on_n else n
    fig = go.Figure([
        go.Scatter(x=x, y=lo, mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"),
        go.Scatter(x=x, y=hi, mode="lines", line=dict(width=0), fill="tonexty", fillcolor=_C["band"],
                   name="model min-max over replications", hoverinfo="skip"),
        go.Scatter(x=x, y=mean, mode="lines+markers", name=f"model mean ({pattern})", customdata=custom,
                   line=dict(color=_C["model"], width=2), marker=dict(size=5),
                   hovertemplate=hover + f"<br>%{{y:.4g}} {unit}<extra>model</extra>"),
    ])
    measured_y = _add_measured(fig, measured, vary, per_job, unit)
    if on_n:
        p = int(data["processes"].iloc[0])
        eager = EAGER_POINTS * (p if pattern == "scatter" else 1)
        shown = np.r_[lo, hi, measured_y]
        shown = shown[np.isfinite(shown) & (shown > 0)]
        ylo, yhi = (shown.min(), shown.max()) if shown.size else (1.0, 10.0)
        share = f", {EAGER_POINTS} points per receiver" if pattern == "scatter" else ""
        fig.add_trace(go.Scatter(x=[eager, eager], y=[ylo, yhi], mode="lines", hoverinfo="skip",
                                 name=f"eager limit 64 KiB (N = {eager}{share})",
                                 line=dict(color=_C["eager"], dash="dot", width=2)))
        others = f"p = {p}"
        xaxis = dict(title=f"data points N (log; {POINT_BYTES} B each)", type="log")
    else:
        others = f"N = {int(data['n_jobs'].iloc[0])} points ({int(data['n_jobs'].iloc[0]) * POINT_BYTES} B)"
        xaxis = dict(title="processes p (receivers; gather: senders)")
    what = "time per data point" if per_job else "communication time"
    fig.update_layout(
        title=dict(text=f"{pattern}: {what} vs {'N' if on_n else 'p'} at {others}", font=dict(size=14)),
        xaxis=xaxis, yaxis=dict(title=f"{what} [{unit}]", type="log" if on_n else "linear"),
        height=360, margin=dict(l=60, r=20, t=50, b=45),
        legend=dict(orientation="h", y=-0.22, traceorder="normal"),
    )
    return fig
