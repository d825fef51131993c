"""ADEPT prediction dashboard ([Deshmeh2013] chapter 3).

Pick a strong-scaling curve, choose which runs ADEPT sees, and compare its per-target
predictions with the runs held back.

Wiring only: the estimator is :class:`workbench.models.adept.Adept`, the figure
:func:`workbench.plots.adept.prediction_figure`, the tables
:func:`~workbench.plots.adept.holdout_frame` / :func:`~workbench.plots.adept.fits_table`.
Fitted models are cached per (data, parameters), so returning to a slider value is
instant.  The small helpers at the top (:class:`FitCache`, :func:`frame_html`,
:func:`placeholder_figure`, :func:`summary_html`) are shared with the anomaly and
cross-size dashboards.
"""

from __future__ import annotations

import time

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.models.adept import Adept
from workbench.plots.adept import curve_warnings, fits_table, holdout_frame, prediction_figure
from workbench.ui.common import (
    FitCache,
    figure_widget,
    frame_html,
    message_panel,
    placeholder_figure,
    readout_html,
    rounded,
    show_errors,
    slider,
    update_figure_widget,
)
from workbench.ui.data_picker import DataPicker
from workbench.views.adept import warnings_html
from workbench.views.tables import Column

__all__ = ["AdeptDashboard", "adept_dashboard", "summary_html"]


# --------------------------------------------------------------------------- helpers

#: How the held-back and per-target tables show their columns (units in the headers).
HOLDOUT_COLUMNS = {"n": Column("n [processes]"), "actual": Column("actual t [s]"),
                   "prediction": Column("predicted t [s]"), "error_pct": Column("error E", "percent"),
                   "accuracy_pct": Column("PA", "percent"), "speedup": Column("predicted S"), "sigma": Column("σ")}
FITS_COLUMNS = {"target n": Column("target n [processes]"), "τ": Column("τ [s per model unit]"),
                "fixed point n": Column("fixed point n [processes]"),
                "max rel. error": Column("max rel. error", "fraction"), "predicted t": Column("predicted t [s]")}


def summary_html(model: Adept, holdout: pd.DataFrame, seconds: float, extra: dict | None = None) -> str:
    """Readouts of a fit: δ used, held-back accuracy (mean and worst PA), warnings, time.

    Parameters
    ----------
    model : Adept
        The fitted model.
    holdout : pandas.DataFrame
        Its predictions of the held-back runs, with their prediction accuracy.
    seconds : float
        Time of the fit and redraw.
    extra : dict, optional
        Further readouts (label -> value).
    """
    pa = holdout["accuracy_pct"].dropna()
    rows = {
        "δ used (envelope)": f"{model.delta_:.3g}" + (" (increased)" if model.delta_ > model.delta else ""),
        "held-back points": f"{len(holdout)} ({int(holdout['warned'].sum())} with a reliability warning)",
        "mean PA (runtime)": f"{pa.mean():.1f} %" if len(pa) else "–",
        "worst PA": f"{pa.min():.1f} % at n = {holdout.loc[pa.idxmin(), 'n']:g}" if len(pa) else "–",
    }
    rows.update(extra or {})
    rows["fit + figure"] = f"{seconds * 1000:.0f} ms"
    return readout_html(rows)


# ------------------------------------------------------------------------- dashboard


class AdeptDashboard(widgets.VBox):
    """Build the ADEPT dashboard's widgets.

    Data picker, δ / q sliders, units and view toggles, one live figure, the summary, the
    prediction-vs-actual and per-target fit tables, and ADEPT's warnings.

    Attributes: ``picker`` (:class:`~workbench.ui.data_picker.DataPicker`), ``q`` (the
    primary slider), ``delta``, ``units``, ``view`` (controls), ``figure`` (LiveFigure),
    ``summary``, ``tables``, ``warnings`` (HTML), ``messages`` (error panel), ``model`` (the
    current fitted :class:`~workbench.models.adept.Adept`), ``last_update_s`` (seconds of
    the last fit + redraw).

    Parameters
    ----------
    source : str, optional
        Initial data source (a key of ``sources``); default: the first.
    delta : float, default 0.05
        ADEPT's initial deviation bound δ.
    q : float, default 2.0
        ADEPT's weight exponent q.
    units : {"fit", "paper"}, default "fit"
        ADEPT's time-scale convention.
    view : {"speedup", "runtime"}, default "speedup"
        What the figure shows.
    sources : sequence of str, default ("synthetic-downey", "npb-pi-cluster")
        The data sources offered, in menu order.
    """

    def __init__(self, source: str | None = None, delta: float = 0.05, q: float = 2.0, units: str = "fit",
                 view: str = "speedup", sources=("synthetic-downey", "npb-pi-cluster")):
        self.messages = message_panel()
        self.picker = DataPicker(sources, source=source, messages=self.messages)
        self.q = slider("q (weight sensitivity to distance)", q, 1.05, 6.0, 0.05, primary=True)
        self.delta = slider("δ (initial envelope deviation)", delta, 0.01, 0.5, 0.01)
        self.units = widgets.ToggleButtons(
            options=[("fit: τ profiled (unit-free)", "fit"), ("paper: τ = 1 s (thesis)", "paper")], value=units,
            description="units", style={"description_width": "50px", "button_width": "190px"})
        self.view = widgets.ToggleButtons(options=[("speedup", "speedup"), ("runtime", "runtime")], value=view,
                                          description="view", style={"description_width": "50px"})
        self.summary = widgets.HTML(layout=widgets.Layout(margin="0 0 0 24px"))
        self.tables = widgets.HTML()
        self.warnings = widgets.HTML()
        self.model: Adept | None = None
        self.last_update_s = float("nan")
        self._cache = FitCache()

        fig = None
        with show_errors(self.messages):
            fig = self._update()
        self.figure = figure_widget(fig if fig is not None else placeholder_figure("No prediction yet"), primary=True)

        self.picker.on_change(self._on_change)
        for control in (self.q, self.delta, self.units, self.view):
            control.observe(self._on_change, names="value")
        controls = widgets.VBox([self.q, self.delta, self.units, self.view])
        super().__init__([
            self.picker,
            widgets.HBox([controls, self.summary]),
            self.messages,
            self.figure,
            self.warnings,
            self.tables,
        ])

    def parameters(self) -> dict:
        """Return the current ADEPT parameters from the controls (slider values rounded)."""
        return {"delta": rounded(self.delta.value, 3), "q": rounded(self.q.value, 4), "units": self.units.value}

    def _fit(self) -> Adept:
        params = self.parameters()
        n, t = self.picker.observed
        return self._cache.get((self.picker.key, tuple(sorted(params.items()))), lambda: Adept(**params).fit(n, t))

    def _update(self) -> go.Figure:
        """Fit (or reuse) the model, refresh the HTML outputs and return the new figure."""
        start = time.perf_counter()
        model = self._fit()
        actual = self.picker.held_back
        fig = prediction_figure(model, actual, view=self.view.value, time_unit="s")
        holdout = holdout_frame(model, actual)
        targets = np.union1d(self.picker.observed_n, holdout["n"].to_numpy(float))
        self.model = model
        self.last_update_s = time.perf_counter() - start
        self.summary.value = summary_html(model, holdout, self.last_update_s, {"data": self.picker.label})
        self.tables.value = (
            frame_html(holdout.drop(columns=["warned"]).assign(warnings=holdout["warnings"].replace("", "none")),
                       "Prediction vs actual at the held-back runs (PA = 100 − E, thesis 3.7)", HOLDOUT_COLUMNS)
            + frame_html(fits_table(model, targets), "Per-target fits (one biased fit per target, thesis 3.5.2)",
                         FITS_COLUMNS)
        )
        self.warnings.value = warnings_html(curve_warnings(model, np.union1d(targets, model.fits_["target"])))
        return fig

    def _on_change(self, _change=None) -> None:
        with show_errors(self.messages, stale=(self.figure, self.summary, self.tables, self.warnings)):
            start = time.perf_counter()
            fig = self._update()
            update_figure_widget(self.figure, fig)
            self.last_update_s = time.perf_counter() - start


def adept_dashboard(source: str | None = None, **kwargs) -> AdeptDashboard:
    """Build the ADEPT prediction dashboard; display it as a cell's last expression.

    ``source``: ``"synthetic-downey"`` (default, bundled) or ``"npb-pi-cluster"`` (needs the
    real-data mirror); other keyword arguments: ``delta``, ``q``, ``units``, ``view``.

    Parameters
    ----------
    source : str, optional
        ``"synthetic-downey"`` (default, bundled) or ``"npb-pi-cluster"``.
    **kwargs
        Further settings of :class:`AdeptDashboard` (``delta``, ``q``, ``units``, ``view``).
    """
    return AdeptDashboard(source=source, **kwargs)

