"""Cross-problem-size dashboard ([Deshmeh2013] section 3.12-3.15).

Predict a larger problem size from many runs of a smaller one (the *base*) and a few runs
of the larger one (the *target*).

Wiring only: :meth:`workbench.models.adept.Adept.fit` with ``base=`` builds the guiding
points t_base(n)·R and fits the union; :func:`workbench.plots.adept.cross_size_figure`
draws it.  The target curve and its observed runs come from a
:class:`~workbench.ui.data_picker.DataPicker`; the base curve is another problem class of the
same benchmark with at least 4 processor counts ([Deshmeh2013] section 3.12).
"""

from __future__ import annotations

import time

import ipywidgets as widgets
import numpy as np
import pandas as pd

from workbench.errors import ValidationError, WorkbenchError, quiet_warnings
from workbench.evaluation.multiparam import bundled_size_grids, relearn_grids, synthetic_grid
from workbench.io import select_curve
from workbench.models.adept import Adept
from workbench.models.multiparam import MultiParameterPredictor, learnt_work_law
from workbench.plots.adept import cross_size_figure, holdout_frame
from workbench.plots.multiparam import LAYERS, prediction_grid, surface_figure
from workbench.ui.adept_dashboard import FitCache, frame_html, placeholder_figure, summary_html
from workbench.ui.common import figure_widget, message_panel, rounded, show_errors, slider, update_figure_widget
from workbench.ui.data_picker import DataPicker
from workbench.views.adept import warnings_html
from workbench.views.multiparam import target_html

__all__ = ["CrossSizeDashboard", "cross_size_dashboard", "base_candidates", "targets_with_a_base", "MIN_BASE_POINTS",
           "NEEDS", "MultiParameterDashboard", "multiparam_dashboard", "multiparam_datasets"]

#: Thesis 3.12: at least 4 observations on the base size.
MIN_BASE_POINTS = 4


def base_candidates(curves, target: tuple) -> list[tuple]:
    """Curves usable as the base size for ``target`` (benchmark, class, placement).

    The other problem classes of the same benchmark with >= 4 processor counts ([Deshmeh2013] section 3.12),
    those with the same placement first, then by number of points.

    Parameters
    ----------
    curves : pandas.DataFrame
        The curves of the data (:func:`~workbench.io.list_curves`).
    target : tuple
        The target curve (benchmark, class, placement).
    """
    usable = curves[(curves["n_points"] >= MIN_BASE_POINTS) & (curves["benchmark"] == target[0])
                    & (curves["problem_class"] != target[1])]
    keys = sorted(((r.benchmark, r.problem_class, r.placement, r.n_points) for r in usable.itertuples()),
                  key=lambda k: (k[2] != target[2], -k[3]))
    return [k[:3] for k in keys]


#: What the dashboard needs, said before the user tries (and when a source has none).
NEEDS = (f"Cross-size prediction needs two problem sizes of one benchmark: a base size measured on at least "
         f"{MIN_BASE_POINTS} processor counts and a target size with at least 2 (e.g. NPB ft class C on 4-64 "
         "processes and ft class D on 16 and 32). A CSV needs the columns benchmark, problem_class, processes, "
         "time_s (seconds), e.g. the header: benchmark,problem_class,processes,time_s")


def targets_with_a_base(usable, curves):
    """Return the curves of ``usable`` that have a base size among ``curves`` (DataPicker ``offer``).

    Parameters
    ----------
    usable : pandas.DataFrame
        Curves with enough points.
    curves : pandas.DataFrame
        Every curve of the data.
    """
    keep = [bool(base_candidates(curves, (r.benchmark, r.problem_class, r.placement))) for r in usable.itertuples()]
    return usable[keep]


class CrossSizeDashboard(widgets.VBox):
    """Build the cross-size dashboard's widgets.

    Target-size picker (curve + observed runs), base-size menu, q (primary), γ and δ
    sliders, view toggle, one live figure, summary, held-back table and warnings.

    Attributes: ``picker`` (target size), ``base`` (Dropdown of base curves), ``q``,
    ``gamma``, ``delta``, ``view`` (controls), ``figure`` (LiveFigure), ``summary``,
    ``tables``, ``warnings`` (HTML), ``messages`` (error panel), ``model``,
    ``last_update_s``.

    Parameters
    ----------
    source : str, optional
        Initial data source; default: the first of ``sources``.
    q : float, default 2.0
        ADEPT's weight exponent q.
    gamma : float, default 5.0
        ADEPT's cross-size tolerance γ.
    delta : float, default 0.05
        ADEPT's initial deviation bound δ.
    view : {"speedup", "runtime"}, default "runtime"
        What the figure shows.
    sources : sequence of str, default ("synthetic-cross-size", "npb-pi-cluster-merged")
        The data sources offered.
    target : tuple, default ("downey-synthetic", "large")
        (benchmark, class) of the target size.
    """

    def __init__(self, source: str | None = None, q: float = 2.0, gamma: float = 5.0, delta: float = 0.05,
                 view: str = "runtime", sources=("synthetic-cross-size", "npb-pi-cluster-merged"),
                 target=("downey-synthetic", "large")):
        self.messages = message_panel()
        self.picker = DataPicker(sources, source=source, curve=target, n_observed=2, min_points=2,
                                 messages=self.messages, offer=targets_with_a_base, needs=NEEDS)
        self.needs = widgets.HTML(f"<span style='font-size:13px;color:#555'>{NEEDS}.</span>")
        self.base = widgets.Dropdown(description="Base size", style={"description_width": "70px"},
                                     layout=widgets.Layout(width="640px"))
        self.q = slider("q (weight sensitivity to distance)", q, 1.05, 6.0, 0.05, primary=True)
        self.gamma = slider("γ (cross-size anomaly threshold)", gamma, 0.5, 10.0, 0.5)
        self.delta = slider("δ (initial envelope deviation)", delta, 0.01, 0.5, 0.01)
        self.view = widgets.ToggleButtons(options=["runtime", "speedup"], value=view, description="view",
                                          style={"description_width": "50px"})
        self.summary = widgets.HTML(layout=widgets.Layout(margin="0 0 0 24px"))
        self.tables = widgets.HTML()
        self.warnings = widgets.HTML()
        self.model: Adept | None = None
        self.last_update_s = float("nan")
        self._cache = FitCache()
        self._quiet = False

        fig = None
        with show_errors(self.messages):
            self._set_base_options()
            fig = self._update()
        self.figure = figure_widget(fig if fig is not None else placeholder_figure("No prediction yet"), primary=True)

        self.picker.on_change(self._on_picker)
        for control in (self.base, self.q, self.gamma, self.delta, self.view):
            control.observe(self._on_change, names="value")
        controls = widgets.VBox([self.q, self.gamma, self.delta, self.view])
        super().__init__([
            self.needs,
            self.picker,
            self.base,
            widgets.HBox([controls, self.summary]),
            self.messages,
            self.figure,
            self.warnings,
            self.tables,
        ])

    def parameters(self) -> dict:
        """Return the current q, gamma and delta (slider values rounded)."""
        return {"q": rounded(self.q.value, 4), "gamma": rounded(self.gamma.value, 3),
                "delta": rounded(self.delta.value, 3)}

    def _set_base_options(self) -> None:
        """Offer the base curves for the picker's target curve (keeps the choice if it still fits)."""
        keys = base_candidates(self.picker.all_curves, self.picker.curve_key)
        previous = self.base.value
        self._quiet = True
        try:
            self.base.options = [(f"{b} class {c}, {p}", (b, c, p)) for b, c, p in keys]
            self.base.value = previous if previous in keys else (keys[0] if keys else None)
        finally:
            self._quiet = False
        if not keys:
            raise ValidationError(
                f"no base size for {self.picker.label}: cross-size prediction needs another problem class of "
                f"{self.picker.curve_key[0]} measured on at least {MIN_BASE_POINTS} processor counts (thesis 3.12); "
                "these data have none")

    def _update(self):
        start = time.perf_counter()
        if self.base.value is None:
            raise ValidationError("choose a base size: another problem class of the same benchmark")
        base_runs = select_curve(self.picker.frame, *self.base.value)
        base = (base_runs["processes"].to_numpy(float), base_runs["time_s"].to_numpy(float))
        n, t = self.picker.observed
        params = self.parameters()
        key = (self.picker.key, self.base.value, tuple(params.items()))
        model = self._cache.get(key, lambda: Adept(**params).fit(n, t, base=base))
        actual = self.picker.held_back
        fig = cross_size_figure(model, base, actual, view=self.view.value)
        holdout = holdout_frame(model, actual)
        self.model = model
        self.last_update_s = time.perf_counter() - start
        guides = model.observations_["kind"] == "guiding"
        self.summary.value = summary_html(model, holdout, self.last_update_s, {
            "target size": self.picker.label,
            "runtime ratio R = t_target(n0)/t_base(n0)": f"{model.ratio_:.4g}",
            "guiding points": f"{int(guides.sum())} (n = "
                              f"{', '.join(f'{v:g}' for v in model.observations_['n'][guides])})",
            "sizes differ (3.15)": "yes" if any(w.kind == "sizes-differ" for w in model.warnings_) else "no",
        })
        self.tables.value = frame_html(
            holdout.drop(columns=["warned"]).rename(
                columns={"actual": "actual t [s]", "prediction": "predicted t [s]"}),
            "Target size: prediction vs actual at the held-back runs (PA = 100 − E)")
        self.warnings.value = warnings_html(model.warnings_for(np.union1d(holdout["n"], model.fits_["target"])))
        return fig

    @property
    def panels(self) -> tuple:
        """The panels that show the fit: marked out of date when a change cannot be applied."""
        return (self.figure, self.summary, self.tables, self.warnings)

    def _on_picker(self, _picker) -> None:
        ok = False
        with show_errors(self.messages, stale=self.panels):
            self._set_base_options()
            ok = True
        if ok:
            self._on_change()

    def _on_change(self, _change=None) -> None:
        if self._quiet:
            return
        with show_errors(self.messages, stale=self.panels):
            start = time.perf_counter()
            update_figure_widget(self.figure, self._update())
            self.last_update_s = time.perf_counter() - start


def cross_size_dashboard(source: str | None = None, **kwargs) -> CrossSizeDashboard:
    """Build the cross-size dashboard; display it as a cell's last expression.

    ``source``: ``"synthetic-cross-size"`` (default, bundled) or ``"npb-pi-cluster-merged"``
    (the Pi-cluster logs, placements merged: NPB ep class D as the base of class F); keyword
    arguments ``q``, ``gamma``, ``delta``, ``view``, ``target`` ((benchmark, class) of the
    target size).

    Parameters
    ----------
    source : str, optional
        ``"synthetic-cross-size"`` (default) or ``"npb-pi-cluster-merged"``.
    **kwargs
        Further settings of :class:`CrossSizeDashboard`.
    """
    return CrossSizeDashboard(source=source, **kwargs)


# ------------------------------------------------------------------ processes x problem size
def multiparam_datasets() -> dict:
    """Return the dashboard's data sets: name -> (frame with ``n``, one size column, ``t``; size column).

    The SYNTHETIC grid and the bundled real size grids (:func:`bundled_size_grids`) always;
    the RELeARN regions when the data mirror is set.
    """
    sets = {"SYNTHETIC: 3 x 3 corner + diagonal band": (synthetic_grid(), "s")}
    for _source, _grid, label, frame in bundled_size_grids():
        sets[label] = (frame, "size")
    try:
        for region, frame in relearn_grids():
            sets[f"RELeARN (Extra-P data): {region}"] = (frame, "neurons")
    except (WorkbenchError, OSError):
        pass  # no mirror: the synthetic set only
    return sets


class MultiParameterDashboard(widgets.VBox):
    """Runtime over processes x problem size: heat map, interval width, a target and its interval.

    Wiring only: :class:`~workbench.models.multiparam.MultiParameterPredictor` fits the
    data set, :func:`workbench.plots.multiparam.surface_figure` draws the map with the
    measured runs, the target, and the lines of constant work per process (weak scaling)
    and constant size (strong scaling) through it; :func:`workbench.views.multiparam.target_html`
    says the prediction.

    Attributes: ``data`` (Dropdown), ``target_n``, ``target_s`` (log sliders), ``layer``
    (ToggleButtons), ``figure`` (LiveFigure named ``multiparam``), ``summary`` (HTML),
    ``messages``, ``model``.

    Parameters
    ----------
    data : str, optional
        A data set of :func:`multiparam_datasets`; default: the SYNTHETIC grid.
    layer : {"runtime", "interval width"}, default "runtime"
        What the map shows.
    """

    def __init__(self, data: str | None = None, layer: str = "runtime"):
        self.messages = message_panel()
        self._sets = multiparam_datasets()
        names = list(self._sets)
        self.data = widgets.Dropdown(options=names, value=data if data in self._sets else names[0],
                                     description="data", layout=widgets.Layout(width="520px"))
        self.target_n = slider("target n", 128.0, 1.0, 4096.0, log=True, step=0.05)
        self.target_s = slider("target size", 1.0, 1.0, 10.0, log=True, step=0.02)
        self.layer = widgets.ToggleButtons(options=list(LAYERS), value=layer, description="layer",
                                           style={"description_width": "50px"})
        self.summary = widgets.HTML()
        self.summary.add_class("wb-multiparam-summary")
        self.model: MultiParameterPredictor | None = None
        self._quiet = False
        self._fits: dict = {}
        fig = None
        with show_errors(self.messages):
            self._set_ranges()
            fig = self._update()
        self.figure = figure_widget(fig if fig is not None else placeholder_figure("No prediction yet"),
                                    name="multiparam")
        self.data.observe(self._on_data, names="value")
        for control in (self.target_n, self.target_s, self.layer):
            control.observe(self._on_change, names="value")
        super().__init__([
            widgets.HTML("<h3 style='margin:12px 0 4px'>Processes x problem size: one model for both</h3>"
                         "<span style='font-size:13px;color:#555'>The multi-parameter predictor (work-aware "
                         "models, Extra-P's multi-parameter PMNF, the expert form) fitted on every measured run; "
                         "move the target and read its calibrated 80 % interval.</span>"),
            self.data,
            widgets.HBox([widgets.VBox([self.target_n, self.target_s, self.layer]), self.summary]),
            self.messages,
            self.figure,
        ])

    @property
    def frame(self):
        """The chosen data set (``n``, size column, ``t``)."""
        return self._sets[self.data.value][0]

    @property
    def parameter(self) -> str:
        """The chosen data set's size column."""
        return self._sets[self.data.value][1]

    def _set_ranges(self) -> None:
        """Fit the chosen data set and put the target sliders past its largest run."""
        frame, p = self.frame, self.parameter
        self._quiet = True
        try:
            n_max, s_max = float(frame.n.max()), float(frame[p].max())
            for w, lo, hi, value in ((self.target_n, frame.n.min(), 64 * n_max, 4 * n_max),
                                     (self.target_s, frame[p].min(), 64 * s_max, 2 * s_max)):
                lo, hi = float(np.log10(lo)), float(np.log10(hi))
                w.max = max(w.max, hi)  # ipywidgets refuses min > max on the way
                w.min = lo
                w.max = hi
                w.step = (w.max - w.min) / 100
                w.value = float(value)
        finally:
            self._quiet = False

    def _fit(self) -> MultiParameterPredictor:
        key = self.data.value
        if key not in self._fits:
            frame = self.frame
            with quiet_warnings():
                self._fits[key] = MultiParameterPredictor().fit(frame.drop(columns="t"), frame.t)
        return self._fits[key]

    def _update(self):
        frame, p = self.frame, self.parameter
        model = self._fit()
        self.model = model
        target = model.predict_frame(pd.DataFrame({"n": [rounded(self.target_n.value, 6)],
                                                    p: [rounded(self.target_s.value, 6)]})).iloc[0]
        n_hi = max(float(frame.n.max()), float(target["n"])) * 2
        s_hi = max(float(frame[p].max()), float(target[p])) * 1.5
        grid = prediction_grid(model, (float(frame.n.min()) / 2, n_hi), (float(frame[p].min()) / 1.5, s_hi), p)
        exponents, n_exponent, _ = learnt_work_law(model, model.parameters_)
        fig = surface_figure(grid, frame, target, p, layer=self.layer.value, work_exponent=float(exponents[0]),
                             per_process=n_exponent > 0)
        frame_target = model.predict_frame(pd.DataFrame({"n": [target["n"]], p: [target[p]]}))
        self.summary.value = target_html(target, p, frame_target.attrs["messages"], model.weights_)
        return fig

    def _on_data(self, _change=None) -> None:
        with show_errors(self.messages, stale=(self.figure,)):
            self._set_ranges()
            update_figure_widget(self.figure, self._update())

    def _on_change(self, _change=None) -> None:
        if self._quiet:
            return
        with show_errors(self.messages, stale=(self.figure,)):
            update_figure_widget(self.figure, self._update())


def multiparam_dashboard(data: str | None = None, **kwargs) -> MultiParameterDashboard:
    """Build the processes x problem-size dashboard; display it as a cell's last expression.

    ``data``: a name from :func:`multiparam_datasets` (default: the SYNTHETIC grid);
    ``layer``: ``"runtime"`` or ``"interval width"``.

    Parameters
    ----------
    data : str, optional
        A data set of :func:`multiparam_datasets`; default: the SYNTHETIC grid.
    **kwargs
        Further settings of :class:`MultiParameterDashboard` (``layer``).
    """
    return MultiParameterDashboard(data=data, **kwargs)
