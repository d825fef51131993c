"""Anomaly dashboard ([Deshmeh2013] section 3.9).

The R metric, anomaly candidates and the curves after removing each one, the resulting
weights, the pattern verdict, and the fit with and without anomaly handling.

Wiring only: :class:`workbench.models.adept.Adept` detects and handles anomalies;
:func:`workbench.plots.adept.r_metric_figure`, :func:`~workbench.plots.adept.prediction_figure`
and :func:`~workbench.plots.adept.weights_figure` draw them.  "Without anomaly handling"
is the same ADEPT fit with ε so large that no R increase is ever flagged.

The default data are a clearly labelled SYNTHETIC curve made by
:func:`synthetic_anomaly_frame`: a Downey model with one run 25 % too fast.
"""

from __future__ import annotations

import html
import time

import ipywidgets as widgets
import numpy as np

from workbench.evaluation.model_data import synthetic_anomaly_frame
from workbench.models.adept import Adept, AnomalyReport
from workbench.plots.adept import (
    holdout_frame,
    prediction_figure,
    r_metric_figure,
    weights_figure,
)
from workbench.plots.layout import side_by_side
from workbench.ui.adept_dashboard import summary_html
from workbench.ui.common import (
    FitCache,
    figure_widget,
    frame_html,
    message_panel,
    placeholder_figure,
    rounded,
    show_errors,
    slider,
    update_figure_widget,
)
from workbench.ui.data_picker import DataPicker, Source
from workbench.views.adept import warnings_html

__all__ = ["AnomalyDashboard", "anomaly_dashboard", "synthetic_anomaly_frame", "verdict_html", "NO_HANDLING_EPSILON"]

#: ε of the "without anomaly handling" fit: no ratio of consecutive R values reaches 1 + ε.
NO_HANDLING_EPSILON = 1e9


#: The picker source of :func:`synthetic_anomaly_frame`.
SYNTHETIC_ANOMALY = Source("synthetic-anomaly", "SYNTHETIC: Downey model with one run 25 % too fast (n = 32)",
                           synthetic_anomaly_frame)


def _all_but_largest(processes: list[float]) -> list[float]:
    """Observe every run except the largest allocation (kept to score the prediction).

    With fewer than 5 counts observe all (>= 4 are needed to resolve anomalies, 3.9.2).
    """
    return processes[:-1] if len(processes) >= 5 else processes


def verdict_html(report: AnomalyReport) -> str:
    """Return the outcome of anomaly detection ([Deshmeh2013] section 3.9.2-3.9.3) as a short HTML summary.

    Parameters
    ----------
    report : AnomalyReport
        The outcome of :func:`~workbench.models.adept.anomalies.detect_anomalies`.
    """
    rows = [f"<b>pattern</b>: {html.escape(report.pattern)}"]
    if len(report.anomalies):
        items = ", ".join(
            f"n = {r.n:g} (D = {r.D:.2f}, weight × {r.weight_factor:.2f}{', last point' if r.last_point else ''})"
            for r in report.anomalies.itertuples())
        rows.append(f"<b>anomalous points</b>: {items}")
    elif not len(report.candidates):
        rows.append("<b>anomalous points</b>: none (no R increase above 1 + ε)")
    if report.unresolved:
        rows.append(f"<b>unresolved candidates</b>: n = {', '.join(f'{v:g}' for v in report.unresolved)}")
    if report.last_point_ambiguous:
        rows.append("<b>last point</b>: looks anomalous (declining phase or anomaly): no prediction past it")
    if report.pattern == "stepwise":
        rows.append(f"<b>phases</b>: {report.phase.tolist()}")
    if report.feasible_allocations:
        rows.append(f"<b>feasible allocations</b>: {html.escape(report.feasible_allocations)}")
    return "<div style='font-size:13px;line-height:1.6'>" + "<br>".join(rows) + "</div>"


class AnomalyDashboard(widgets.VBox):
    """Build the anomaly dashboard's widgets.

    Data picker, ε (primary) and θ sliders, the live R-metric figure, the verdict, and a
    second figure with the prediction with/without anomaly handling and the weights.

    Attributes: ``picker``, ``epsilon``, ``theta``, ``view`` (controls), ``figure`` (R
    metric, main LiveFigure), ``fit_figure`` (LiveFigure), ``verdict``, ``summary``,
    ``warnings``, ``tables`` (HTML), ``messages`` (error panel), ``model`` and
    ``baseline`` (fitted with and without anomaly handling), ``last_update_s``.

    Parameters
    ----------
    source : str, optional
        Initial data source; default: the first of ``sources``.
    epsilon : float, default 0.1
        Tolerated rise of R before observations are candidates (ε).
    theta : float, default 5.0
        Anomaly magnitude at which a run's weight reaches 0 (θ).
    view : {"speedup", "runtime"}, default "speedup"
        What the prediction figure shows.
    sources : sequence, default (SYNTHETIC_ANOMALY, "synthetic-downey", "npb-pi-cluster")
        The data sources offered, in menu order.
    """

    def __init__(self, source: str | None = None, epsilon: float = 0.1, theta: float = 5.0, view: str = "speedup",
                 sources=(SYNTHETIC_ANOMALY, "synthetic-downey", "npb-pi-cluster")):
        self.messages = message_panel()
        self.picker = DataPicker(sources, source=source, n_observed=_all_but_largest, messages=self.messages)
        self.epsilon = slider("ε (sensitivity: ignored R increase)", epsilon, 0.01, 0.5, 0.01, primary=True)
        self.theta = slider("θ (deviation tolerance)", theta, 0.5, 10.0, 0.5)
        self.view = widgets.ToggleButtons(options=["speedup", "runtime"], value=view, description="view",
                                          style={"description_width": "50px"})
        self.verdict = widgets.HTML()
        self.summary = widgets.HTML(layout=widgets.Layout(margin="0 0 0 24px"))
        self.warnings = widgets.HTML()
        self.tables = widgets.HTML()
        self.model: Adept | None = None
        self.baseline: Adept | None = None
        self.last_update_s = float("nan")
        self._cache = FitCache()

        figs = None
        with show_errors(self.messages):
            figs = self._update()
        r_fig, fit_fig = figs if figs is not None else (placeholder_figure("No R metric yet"),
                                                       placeholder_figure("No fit yet"))
        self.figure = figure_widget(r_fig, primary=True)
        self.fit_figure = figure_widget(fit_fig, name="fit")

        self.picker.on_change(self._on_change)
        for control in (self.epsilon, self.theta, self.view):
            control.observe(self._on_change, names="value")
        controls = widgets.VBox([self.epsilon, self.theta, self.view, self.verdict])
        super().__init__([
            self.picker,
            widgets.HBox([controls, self.summary]),
            self.messages,
            self.figure,
            self.fit_figure,
            self.warnings,
            self.tables,
        ])

    def parameters(self) -> dict:
        """Return the current epsilon and theta (slider values rounded)."""
        return {"epsilon": rounded(self.epsilon.value, 3), "theta": rounded(self.theta.value, 3)}

    def _update(self):
        start = time.perf_counter()
        n, t = self.picker.observed
        params = self.parameters()
        key = self.picker.key
        model = self._cache.get((key, tuple(params.items())), lambda: Adept(**params).fit(n, t))
        baseline = self._cache.get((key, "no handling"), lambda: Adept(epsilon=NO_HANDLING_EPSILON).fit(n, t))
        actual = self.picker.held_back
        holdout = holdout_frame(model, actual)
        target = float(holdout["n"].iloc[0]) if len(holdout) else float(4 * model.observations_["n"].max())
        r_fig = r_metric_figure(model.anomalies_, params["epsilon"])
        fit_fig = side_by_side(
            [prediction_figure(model, actual, view=self.view.value, compare=baseline,
                               compare_label="without anomaly handling"),
             weights_figure(model, target)],
            titles=["Prediction with anomaly handling (blue) and without (grey)",
                    f"Weights: anomaly factor, and W' for n* = {target:g}"],
            widths=[0.62, 0.38],
        )
        self.model, self.baseline = model, baseline
        self.last_update_s = time.perf_counter() - start
        base_pa = holdout_frame(baseline, actual)["accuracy_pct"].mean()
        self.summary.value = summary_html(model, holdout, self.last_update_s, {
            "data": self.picker.label,
            "mean PA without handling": f"{base_pa:.1f} %" if np.isfinite(base_pa) else "–",
        })
        self.verdict.value = verdict_html(model.anomalies_)
        self.warnings.value = warnings_html(model.warnings_)
        report = model.anomalies_
        self.tables.value = (
            frame_html(report.r, "R metric of consecutive observations (thesis 3.9.1)")
            + (frame_html(report.anomalies, "Resolved anomalies: D = min(10, ΔR/ε), factor max(0, (θ − D)/θ)")
               if len(report.anomalies) else "")
        )
        return r_fig, fit_fig

    def _on_change(self, _change=None) -> None:
        panels = (self.figure, self.fit_figure, self.summary, self.verdict, self.warnings, self.tables)
        with show_errors(self.messages, stale=panels):
            start = time.perf_counter()
            r_fig, fit_fig = self._update()
            update_figure_widget(self.figure, r_fig)
            update_figure_widget(self.fit_figure, fit_fig)
            self.last_update_s = time.perf_counter() - start


def anomaly_dashboard(source: str | None = None, **kwargs) -> AnomalyDashboard:
    """Build the anomaly dashboard; display it as a cell's last expression.

    ``source``: ``"synthetic-anomaly"`` (default), ``"synthetic-downey"`` or
    ``"npb-pi-cluster"``; keyword arguments ``epsilon``, ``theta``, ``view``.

    Parameters
    ----------
    source : str, optional
        ``"synthetic-anomaly"`` (default), ``"synthetic-downey"`` or ``"npb-pi-cluster"``.
    **kwargs
        Further settings of :class:`AnomalyDashboard` (``epsilon``, ``theta``, ``view``).
    """
    return AnomalyDashboard(source=source, **kwargs)
