"""Figures of the Downey speedup model ([Downey1997]; [Deshmeh2013] Table 1 and section 3.3.2).

:func:`downey_curves` tabulates the model on a grid of processor counts (data);
:func:`downey_figure` draws it as three panels sharing the n axis: speedup with its bounds,
runtime in model units, and efficiency.  The figure always has the same traces in the same
order whatever the parameters, so a dashboard can update a live ``FigureWidget`` in place
(see :func:`workbench.ui.common.update_figure_widget`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from workbench.errors import ValidationError
from workbench.models import downey

__all__ = ["default_n_max", "downey_curves", "downey_figure", "variance_mode"]

#: Points of the log-spaced n grid; the model's kinks are added to it exactly.
GRID_POINTS = 400

_COLORS = {"model": "#1f77b4", "ideal": "#7f7f7f", "bound": "#d62728", "pws": "#2ca02c"}


def variance_mode(sigma: float) -> str:
    """Return ``"low"`` for sigma <= 1, ``"high"`` otherwise.

    At sigma == 1 both formulas agree; :mod:`workbench.models.downey` uses the
    low-variance ones there.

    Parameters
    ----------
    sigma : float
        Variance of parallelism (>= 0).
    """
    return "low" if float(sigma) <= 1 else "high"


def default_n_max(A: float, sigma: float) -> float:
    """Twice the maximum useful allocation (at least 4), so the saturated piece is visible.

    Parameters
    ----------
    A : float
        Average parallelism (>= 1).
    sigma : float
        Variance of parallelism (>= 0).
    """
    return max(4.0, 2.0 * float(downey.max_useful_allocation(A, sigma)))


def downey_curves(A: float, sigma: float, n_max: float | None = None, points: int = GRID_POINTS) -> pd.DataFrame:
    """Tabulate the model for 1 <= n <= n_max.

    Returns a DataFrame with columns ``n`` (processors, float: the model is continuous in n),
    ``speedup`` (S(n), dimensionless), ``runtime`` (T(n) in model units, T = T(1)/S) and
    ``efficiency`` (S(n)/n).  The grid is log-spaced and contains the piece boundaries
    A and the maximum useful allocation whenever they are in range, so the curves show
    their kinks exactly instead of cutting corners.

    Parameters
    ----------
    A : float
        Average parallelism (>= 1).
    sigma : float
        Variance of parallelism (>= 0).
    n_max : float, optional
        Largest allocation tabulated; default :func:`default_n_max`.
    points : int, default 400
        Grid points (before the piece boundaries are added).
    """
    A, sigma = (float(v) for v in downey.check_parameters(A, sigma))
    n_max = default_n_max(A, sigma) if n_max is None else float(n_max)
    if not np.isfinite(n_max) or n_max <= 1:
        raise ValidationError(f"n_max (largest processor count to plot) must be finite and > 1, got {n_max!r}")
    kinks = np.array([A, float(downey.max_useful_allocation(A, sigma))])
    n = np.union1d(np.geomspace(1.0, n_max, points), kinks[(kinks >= 1) & (kinks <= n_max)])
    return pd.DataFrame(
        {
            "n": n,
            "speedup": downey.speedup(n, A, sigma),
            "runtime": downey.runtime(n, A, sigma),
            "efficiency": downey.efficiency(n, A, sigma),
        }
    )


def _at(n: float, n_max: float) -> list[float]:
    """``[n]`` when n is inside the plotted range, else ``[]`` (keeps the trace, hides the marker)."""
    return [n] if n <= n_max else []


def downey_figure(A: float, sigma: float, n_max: float | None = None, log_x: bool = True) -> go.Figure:
    """Speedup, runtime and efficiency of the Downey model with parameters (A, sigma).

    Panel 1 shows S(n) with the ideal linear speedup S = n, the asymptote S = A, the maximum
    useful allocation (2A - 1 low variance, A + A sigma - sigma high variance) and the
    processor working set (smallest n maximising S^2/n), [Deshmeh2013] section 3.3.2.  Panel 2 shows
    T(n) in model units (log scale), panel 3 the efficiency S(n)/n; both mark the same two
    allocations.  Markers outside ``1 <= n <= n_max`` are left empty rather than removed so
    the trace list is identical for every parameter value.

    Parameters
    ----------
    A : float
        Average parallelism (>= 1).
    sigma : float
        Variance of parallelism (>= 0).
    n_max : float, optional
        Largest allocation drawn; default :func:`default_n_max`.
    log_x : bool, default True
        Logarithmic n axis.
    """
    curves = downey_curves(A, sigma, n_max)
    A, sigma = float(A), float(sigma)
    n_max = float(curves["n"].iloc[-1])
    mua = float(downey.max_useful_allocation(A, sigma))
    pws = float(downey.processor_working_set(A, sigma))
    marks = {"max useful allocation": (mua, "bound", "diamond"), "processor working set": (pws, "pws", "circle")}

    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=("Speedup S(n)", "Runtime T(n) [model units]", "Efficiency S(n)/n"),
        horizontal_spacing=0.07,
    )
    n = curves["n"].to_numpy()
    s_top = 1.1 * max(float(curves["speedup"].max()), 1.0)
    ideal = np.append(n[n < s_top], s_top)
    fig.add_scatter(
        x=ideal, y=ideal, name="ideal S = n", mode="lines", line=dict(color=_COLORS["ideal"], dash="dot"), row=1, col=1
    )
    fig.add_scatter(
        x=[1.0, n_max], y=[A, A], name="asymptote S = A", mode="lines",
        line=dict(color=_COLORS["bound"], dash="dash", width=1), row=1, col=1,
    )
    for col, column in enumerate(("speedup", "runtime", "efficiency"), start=1):
        fig.add_scatter(
            x=n, y=curves[column], name="Downey model", legendgroup="model", showlegend=col == 1,
            mode="lines", line=dict(color=_COLORS["model"], width=2.5), row=1, col=col,
            hovertemplate=f"n = %{{x:.4g}}<br>{column} = %{{y:.4g}}<extra></extra>",
        )
        for label, (at, color, symbol) in marks.items():
            x = _at(at, n_max)
            y = getattr(downey, column)(np.asarray(x, dtype=float), A, sigma) if x else []
            fig.add_scatter(
                x=x, y=y, name=f"{label} (n = {at:.4g})", legendgroup=label, showlegend=col == 1,
                mode="markers",
                marker=dict(color=_COLORS[color], symbol=symbol, size=11, line=dict(width=1, color="white")),
                row=1, col=col, hovertemplate=f"{label}<br>n = %{{x:.4g}}<br>{column} = %{{y:.4g}}<extra></extra>",
            )

    x_type = "log" if log_x else "linear"
    fig.update_xaxes(type=x_type, title_text="processors n")
    fig.update_yaxes(range=[0, s_top], row=1, col=1)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_yaxes(range=[0, 1.05], row=1, col=3)
    fig.update_layout(
        title=dict(text=f"Downey model: A = {A:.4g}, σ = {sigma:.4g} ({variance_mode(sigma)} variance)"),
        height=430,
        margin=dict(l=50, r=20, t=80, b=50),
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0),
    )
    return fig
