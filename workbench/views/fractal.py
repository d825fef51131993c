"""The fractal extrapolation dashboard's panels without widgets ([EscobarBoppana]).

:class:`FractalState` holds what the panels depend on: the profile (one row per phase per
run) and the controls -- target size N_Lrg, the threshold of the major phases, the
tolerance of C, C and delta (None: automatic), k and the confidence of the band.
:func:`fractal_view` runs :func:`~workbench.evaluation.fractal.demo_experiment` and returns
:class:`FractalPanels`: the log-log fits per phase (main figure), predicted vs measured at
N_Lrg (``bars``), the shares vs size, the readout rows and the notes.  :func:`table1_view`
is the static Table 1 check.  Times in seconds.
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import WorkbenchWarning
from workbench.evaluation.fractal import FractalExperiment, demo_experiment, table1_check
from workbench.plots.fractal import loglog_figure, prediction_figure, shares_figure, table1_figure
from workbench.views.panels import FitCache, frame_html

__all__ = ["FractalPanels", "FractalState", "Table1Panels", "experiment", "table1_view", "fractal_view"]



@dataclass(frozen=True)
class FractalState:
    """Everything the fractal panels depend on.

    ``profile`` is the profile frame (``size, phase, time_s[, run, total_s]``);
    ``data_key`` names it in caches and comparisons (the frame itself takes part in
    neither), ``data_label`` says in words what it is.  ``C`` and ``delta`` None: chosen
    by the method (section 2.2); ``target_size`` None: the largest measured size.
    """

    profile: pd.DataFrame = field(compare=False, repr=False)
    data_key: str = "profile"
    data_label: str = "profile"
    target_size: float | None = None
    threshold: float = 0.70
    tolerance: float = 0.05
    C: float | None = None
    delta: float | None = None
    k: int = 5
    confidence: float = 0.95

    def parameters(self) -> dict:
        """Keyword arguments of :func:`~workbench.evaluation.fractal.demo_experiment` (after the profile)."""
        target = float(self.profile["size"].max()) if self.target_size is None else float(self.target_size)
        return dict(target_size=target, threshold=self.threshold, tolerance=self.tolerance, C=self.C,
                    delta=self.delta, k=int(self.k), confidence=self.confidence)


@dataclass(frozen=True)
class FractalPanels:
    """What the dashboard shows for one state.

    The ``experiment``, the ``main`` figure (log-log fits, Fig. 1), ``bars`` (predicted vs
    measured at N_Lrg), ``shares`` (share per phase vs size), the ``readout`` rows (label ->
    value) and the ``notes`` (HTML).
    """

    experiment: FractalExperiment
    threshold: float
    main: go.Figure
    bars: go.Figure
    readout: dict[str, str]
    notes: str

    @cached_property
    def shares(self) -> go.Figure:
        """The shares-vs-size figure; built on first access, after the live figures are sent."""
        e = self.experiment
        return shares_figure(e.shares, e.phases, threshold=self.threshold, convergence_size=e.convergence_size,
                             sizes=e.sizes, target_size=e.target_size)


@dataclass(frozen=True)
class Table1Panels:
    """Table 1 of [EscobarBoppana] recomputed from its m and b: ``table`` (HTML) and ``figure``."""

    table: str
    figure: go.Figure


def experiment(state: FractalState, cache: FitCache | None = None) -> FractalExperiment:
    """Run the method on ``state`` (reusing ``cache`` per data and parameters).

    The model's warnings are kept in the experiment's notes, not raised.

    Parameters
    ----------
    state : FractalState
        The profile and the control values.
    cache : FitCache, optional
        Reuses experiments per data and parameters; default None: always run.
    """
    params = state.parameters()

    def run() -> FractalExperiment:
        with warnings.catch_warnings():  # the notes panel lists them
            warnings.simplefilter("ignore", WorkbenchWarning)
            return demo_experiment(state.profile, **params)

    return run() if cache is None else cache.get((state.data_key, id(state.profile), tuple(sorted(params.items()))),
                                                 run)


def fractal_view(state: FractalState, cache: FitCache | None = None) -> FractalPanels:
    """Run (or reuse) the experiment of ``state`` and build its panels.

    Raises :class:`~workbench.errors.ValidationError` (in the project's words) when the
    method cannot run on the profile with these controls, e.g. a design that maps onto a
    single measured size.

    Parameters
    ----------
    state : FractalState
        The profile and the control values.
    cache : FitCache, optional
        Reuses experiments per data and parameters; default None: always run.
    """
    e = experiment(state, cache)
    actual = dict(zip(e.comparison["phase"], e.comparison["actual_s"]))
    notes = ("<details style='font-size:12px'><summary>how the sizes were chosen, model notes "
             f"({len(e.notes)})</summary><ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in e.notes)
             + "</ul></details>")
    return FractalPanels(experiment=e, threshold=state.threshold,
                         main=loglog_figure(e.prediction.phase_fits, actual=actual, measured=e.shares),
                         bars=prediction_figure(e.comparison, e.target_size), readout=_readout(state, e), notes=notes)


def _band(low: float, high: float, missing: str) -> str:
    return f"{low:.4g} … {high:.4g} s" if np.isfinite(low) else missing


def _readout(state: FractalState, e: FractalExperiment) -> dict[str, str]:
    rows = {"data": state.data_label,
            "major phases": ", ".join(e.phases) + f" (cumulative ≥ {state.threshold:.0%})",
            "C, δ, k": f"C = {e.convergence_size:g} ({'auto' if e.convergence_auto else 'chosen'}), "
                       f"δ = {e.delta:.4g} ({'auto' if state.delta is None else 'chosen'}), k = {e.k}",
            "fitted sizes N_i": ", ".join(f"{s:g}" for s in e.sizes)}
    for r in e.comparison.itertuples():
        if r.phase == "total":
            continue
        err = f", error {r.error_pct:.1f} %" if np.isfinite(r.error_pct) else ""
        rows[f"phase {r.phase}"] = (f"m = {r.m:.3f}, e^b = {r.predicted_s:.4g} s "
                                    f"(band {_band(r.band_low_s, r.band_high_s, 'no band (k = 2)')}), "
                                    f"measured {r.actual_s:.4g} s{err}")
    total = e.comparison.iloc[-1]
    rows[f"T at N_Lrg = {e.target_size:g}"] = (f"{total.predicted_s:.4g} s "
                                               f"(band {_band(total.band_low_s, total.band_high_s, 'no band')})")
    rows["measured large run"] = (f"{e.measured_total_s:.4g} s ({e.large_runs['run'].nunique()} run(s)): "
                                  f"error {e.error_total_pct:.1f} %" if np.isfinite(e.measured_total_s)
                                  else "none at this size")
    return rows


def table1_view() -> Table1Panels:
    """Table 1 of [EscobarBoppana].

    The published predictions against the bracket of the printed intercept
    (:func:`~workbench.evaluation.fractal.table1_check`).
    """
    check = table1_check()
    table = frame_html(
        check[["label", "m", "b", "eb_s", "published_predicted_s", "inside_bracket", "published_actual_s",
               "eb_error_pct", "published_error_pct"]].rename(columns={
            "label": "row", "eb_s": "e^b ms [s]", "published_predicted_s": "published pred. [s]",
            "inside_bracket": "in e^(b±0.05)", "published_actual_s": "actual [s]",
            "eb_error_pct": "e^b error %", "published_error_pct": "paper error %"}),
        "Table 1 of Escobar & Boppana from its m and b (b = ln ms)")
    return Table1Panels(table, table1_figure(check))
