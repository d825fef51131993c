"""The FiM-Com dashboard's panels without widgets ([Bhimani2019] section 3, Fig. 6 and Fig. 11).

:class:`FiMComState` holds what the panels depend on: the controls (pattern, message size,
receivers, replications, seed, the service parameters of Eqs. 13-16, phi, the OSU
placement) and the measured data of that placement
(:class:`~workbench.evaluation.fim_com.PlacementData`, None without the data mirror) and of
Extra-P.  :func:`fim_com_view` simulates the collective
(:func:`~workbench.models.fim.queueing.simulate_collective`) and returns
:class:`FiMComPanels`: the makespan distribution (main figure), the station CDFs and the
readout rows; :func:`fit_table_html` is the table of the placement's station fits.  The
time-vs-N and time-vs-p panels of Fig. 6 are :func:`sweep_summary` (one sweep, the slow
part: the dashboard runs it in a thread) and :func:`sweep_view`.  Times in µs.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd
import plotly.graph_objects as go

from workbench.evaluation.fim_com import (
    PlacementData,
    data_points,
    extrap_spread_near,
    measured_at,
    measured_sweep_curves,
    relative_spread,
    size_label,
    summarize_sweep,
    sweep_collective,
    sweep_values,
)
from workbench.models.fim.queueing import CollectiveSimulation, simulate_collective
from workbench.plots.fim_com import makespan_figure, station_cdf_figure, station_fit_frame, sweep_figure
from workbench.views.panels import FitCache, frame_html

__all__ = ["DEFAULT_RATES", "RATE_NAMES", "SAMPLE_LIMIT", "SWEEP_REPLICATIONS", "VARIES", "FiMComPanels",
           "FiMComState", "FiMComSweepPanels", "fim_com_view", "fit_table_html", "simulate", "sweep_summary",
           "sweep_view"]

#: The service parameters of Eqs. 13-16, in slider order.
RATE_NAMES = ("zeta_min", "zeta_max", "metadata_coef", "eta", "psi")
#: Rates used without the data mirror: the core placement's station fits rounded to 2-3
#: digits (points/µs for zeta, µs otherwise); a test keeps them in step with the fits.
DEFAULT_RATES = {"zeta_min": 425.0, "zeta_max": 890.0, "metadata_coef": 1.65e-5, "eta": 0.54, "psi": 0.00087}
#: Service-time samples kept from the simulation for the CDF panel.
SAMPLE_LIMIT = 2000
#: Replications per point of the time-vs-N and time-vs-p sweeps.
SWEEP_REPLICATIONS = 3
#: The two sweeps of Fig. 6: over data points N and over processes p.
VARIES = ("n_jobs", "processes")
#: Extra-P collective with the measured repetition spread of each pattern (no scatter there).
EXTRAP_COLLECTIVE = {"broadcast": "MPI_Bcast", "gather": "MPI_Gather"}



@dataclass(frozen=True)
class FiMComState:
    """Everything the FiM-Com panels depend on.

    ``rates`` are the service parameters as ``(name, value)`` pairs (:data:`RATE_NAMES`);
    ``phi`` None means the pattern's default (Eq. 16); ``placement`` the measured data of
    ``mapping`` (None: no data mirror); ``extrap`` the Extra-P MPI statistics (None: not
    available).  The data frames do not take part in comparisons: ``mapping`` names them.
    """

    pattern: str = "broadcast"
    size_bytes: int = 65536
    processes: int = 29
    replications: int = 20
    seed: int = 0
    rates: tuple[tuple[str, float], ...] = tuple(DEFAULT_RATES.items())
    phi: float | None = None
    mapping: str = "core"
    per_point: bool = True
    placement: PlacementData | None = field(default=None, compare=False, repr=False)
    extrap: pd.DataFrame | None = field(default=None, compare=False, repr=False)

    @property
    def n_jobs(self) -> int:
        """Data points of the message (20 B each)."""
        return data_points(self.size_bytes)

    def parameters(self) -> dict:
        """Keyword arguments of :func:`~workbench.models.fim.queueing.simulate_collective`."""
        return dict(pattern=self.pattern, n_jobs=self.n_jobs, processes=int(self.processes), phi=self.phi,
                    seed=int(self.seed), replications=int(self.replications), **dict(self.rates))


@dataclass(frozen=True)
class FiMComPanels:
    """What the dashboard shows for one state.

    The simulation and the measured OSU row it is compared with, the ``main`` figure
    (makespan distribution), the ``readout`` rows (label -> value) and the station CDFs
    (``cdf``, Fig. 11, from the placement's ``fits``).
    """

    simulation: CollectiveSimulation
    measured_row: pd.Series | None
    main: go.Figure
    readout: dict[str, str]
    fits: dict | None = field(default=None, repr=False)

    @cached_property
    def cdf(self) -> go.Figure:
        """The station CDFs: measured, fitted and simulated.

        Built on first access (it takes longer than the simulation), so that the dashboard
        can send the main figure before it.
        """
        return station_cdf_figure(self.fits, self.simulation)


@dataclass(frozen=True)
class FiMComSweepPanels:
    """The two panels of Fig. 6: time vs data points (``vs_n``) and vs processes (``vs_p``)."""

    vs_n: go.Figure
    vs_p: go.Figure


def simulate(state: FiMComState, cache: FitCache | None = None) -> CollectiveSimulation:
    """Simulate the collective of ``state`` (reusing ``cache`` per parameters).

    Parameters
    ----------
    state : FiMComState
        The pattern, sizes and rates.
    cache : FitCache, optional
        Reuses simulations per parameters; default None: always simulate.
    """
    params = state.parameters()
    run = lambda: simulate_collective(**params, sample_limit=SAMPLE_LIMIT)  # noqa: E731
    return run() if cache is None else cache.get(tuple(sorted(params.items())), run)


def fim_com_view(state: FiMComState, cache: FitCache | None = None) -> FiMComPanels:
    """Simulate (or reuse the cached run) and build every live panel of ``state``.

    Raises the model's :class:`~workbench.errors.ValidationError` for parameters it cannot
    use (e.g. zeta_min above zeta_max).

    Parameters
    ----------
    state : FiMComState
        The pattern, sizes, rates and placement.
    cache : FitCache, optional
        Reuses simulations per parameters; default None: always simulate.
    """
    sim = simulate(state, cache)
    curve = state.placement.curve if state.placement is not None else None
    row = measured_at(curve, state.size_bytes, sim.processes) if sim.pattern == "broadcast" else None
    return FiMComPanels(simulation=sim, measured_row=row,
                        main=makespan_figure(sim, None if row is None else float(row["latency_us"])),
                        readout=_readout(state, sim, row),
                        fits=state.placement.fits if state.placement is not None else None)


def fit_table_html(placement: PlacementData | None) -> str:
    """Return the station fits of ``placement`` with how their samples were derived (HTML).

    Parameters
    ----------
    placement : PlacementData or None
        A placement's station fits (None: nothing fitted).
    """
    if placement is None:
        return "<i>No station fits: the measured OSU data are unavailable.</i>"
    notes = "".join(f"<li><b>{s}</b>: {html.escape(text)}</li>" for s, text in placement.provenance.items())
    notes += "".join(f"<li>{html.escape(w)}</li>" for w in placement.warnings)
    return (frame_html(station_fit_frame(placement.fits), f"Station fits, OSU broadcast, placement {placement.mapping} "
                                                          "(χ² goodness of fit: a small p-value rejects the family)")
            + f"<details style='font-size:12px'><summary>how the samples were derived</summary><ul>{notes}</ul>"
              "</details>")


def _spread_text(sim: CollectiveSimulation, extrap: pd.DataFrame | None) -> str:
    """Return the model's repetition spread beside Extra-P's measured one (IQR / median)."""
    model = relative_spread(sim.makespan)["rel_iqr"]
    collective = EXTRAP_COLLECTIVE.get(sim.pattern)
    if extrap is None or collective is None:
        return f"model {model:.3g}; no measured {sim.pattern} spread in the Extra-P statistics"
    rows = extrap_spread_near(extrap, collective, sim.processes + 1)
    measured = ", ".join(f"{r.library} {r.rel_iqr:.3g}" for r in rows.itertuples())
    return f"model {model:.3g}; Extra-P {collective} at {int(rows['ranks'].iloc[0])} ranks: {measured}"


def _readout(state: FiMComState, sim: CollectiveSimulation, row: pd.Series | None) -> dict[str, str]:
    s = sim.summary()
    finish = sim.station_finish.mean()
    rows = {
        "model makespan": f"{s['mean']:.4g} ± {s['std']:.2g} µs (min {s['min']:.4g}, max {s['max']:.4g}; "
                          f"{sim.replications} replications)",
        "per data point": f"{s['mean'] / sim.n_jobs:.4g} µs ({size_label(state.size_bytes)})",
        "last departure D, M, C, R": ", ".join(f"{finish[k]:.4g}" for k in ("D", "M", "C", "R")) + " µs",
        "φ used": f"{sim.phi:g}" + (" (pattern default)" if state.phi is None else ""),
    }
    if sim.replications >= 4:
        rows["repetition spread (IQR / median)"] = _spread_text(sim, state.extrap)
    if sim.pattern != "broadcast":
        rows["measured (OSU)"] = "broadcast only: no measured scatter/gather in osu-orfeo"
    elif row is None:
        rows["measured (OSU)"] = "unavailable (no data mirror)"
    else:
        cores = int(row["cores"])
        where = "" if cores == sim.processes + 1 else f", nearest measured to {sim.processes + 1}"
        rows[f"measured OSU bcast ({state.mapping}, {cores} cores{where}, basic linear)"] = (
            f"{row['latency_us']:.4g} µs (ranks {row['min_us']:.4g} … {row['max_us']:.4g})")
        rows["model vs measured"] = f"{(s['mean'] - row['latency_us']) / row['latency_us'] * 100:+.1f} %"
    return rows


def sweep_summary(state: FiMComState, vary: str, cache: FitCache | None = None) -> pd.DataFrame:
    """Simulate one sweep of Fig. 6 (``vary``: ``"n_jobs"`` or ``"processes"``).

    :data:`SWEEP_REPLICATIONS` replications per point: mean, min and max makespan per
    point (:func:`~workbench.evaluation.fim_com.summarize_sweep`; reusing ``cache``).

    Parameters
    ----------
    state : FiMComState
        The pattern, sizes and rates.
    vary : {"n_jobs", "processes"}
        The swept quantity.
    cache : FitCache, optional
        Reuses sweeps per parameters; default None: always simulate.
    """
    p = state.parameters()
    values = sweep_values(vary, state.processes)
    held = p["processes"] if vary == "n_jobs" else p["n_jobs"]
    key = (vary, p["pattern"], state.rates, p["phi"], p["seed"], held, tuple(values))

    def run() -> pd.DataFrame:
        return summarize_sweep(sweep_collective(
            p["pattern"], vary=vary, values=values, n_jobs=p["n_jobs"], processes=p["processes"],
            replications=SWEEP_REPLICATIONS, seed=p["seed"], phi=p["phi"], **dict(state.rates)))

    return run() if cache is None else cache.get(key, run)


def sweep_view(state: FiMComState, summaries: dict[str, pd.DataFrame]) -> FiMComSweepPanels:
    """Return the time-vs-N and time-vs-p figures of the :func:`sweep_summary` s (``vary`` -> summary).

    With the measured broadcast beside them where there is one.

    Parameters
    ----------
    state : FiMComState
        The pattern, sizes, rates and placement.
    summaries : dict of str to pandas.DataFrame
        ``vary`` -> :func:`sweep_summary`.
    """
    curve = state.placement.curve if state.placement is not None and state.pattern == "broadcast" else None
    measured_n, measured_p = measured_sweep_curves(curve, state.size_bytes, state.processes)
    return FiMComSweepPanels(sweep_figure(summaries["n_jobs"], "n_jobs", measured_n, state.per_point),
                             sweep_figure(summaries["processes"], "processes", measured_p, state.per_point))
