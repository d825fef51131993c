"""Figures and result tables of ADEPT ([Deshmeh2013] chapter 3).

Every function takes a *fitted* :class:`~workbench.models.adept.Adept` (or its
:class:`~workbench.models.adept.AnomalyReport`) plus plain arrays and returns data (a
tidy ``DataFrame``) or a :class:`plotly.graph_objects.Figure` (the HTML of the warnings is
:func:`workbench.views.adept.warnings_html`); nothing here fits a model or touches a widget.

Figures with a fixed trace list (:func:`prediction_figure`, :func:`cross_size_figure`,
:func:`weights_figure`) keep the same traces in the same order whatever the data -- empty
traces stand for absent items -- so a dashboard can update a live ``FigureWidget`` in
place (:func:`workbench.ui.common.update_figure_widget`).

Speedup view
------------
ADEPT predicts speedup as S(n*) = T(1)/T(n*) of the model instance fitted for the target
n* ([Deshmeh2013] section 3.8.1): it needs no run on one processor.  How the speedup view is drawn:

* **t(1) measured** (a run on one processor was observed): everything is the runtime view
  divided into t(1) -- observed and held-back runs at t(1)/t(n), predictions at
  t(1)/t_pred(n), the envelope and the instances likewise -- so the speedup and runtime
  views tell the same story.
* **no t(1)**: the predicted curve, the envelope band and the drawn instances are the
  instances' own T(1)/T(n).  The measured runs are put into speedup space with one
  reference serial time for all of them, so their relative positions are the data's own:
  T1_ref = ADEPT's prediction for n = 1, i.e. tau T(1; A, sigma) of the instance fitted
  for the target n = 1, and the points are at S = tau T(1)/t(n).

The hover texts say which case applies.  Prediction accuracy (PA) is always computed on
runtimes, PA = 100 - |t_pred - t| / t * 100 ([Deshmeh2013] section 3.7), in both views.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import ModelWarning, ValidationError, quiet_warnings
from workbench.evaluation.holdout import RELIABILITY_KINDS
from workbench.metrics import error_pct
from workbench.models import downey
from workbench.models.adept import Adept, AnomalyReport
from workbench.validation import run_pair

__all__ = [
    "GRID_POINTS",
    "SATURATION_KINDS",
    "VIEWS",
    "cross_size_figure",
    "curve_warnings",
    "effective_weights",
    "fits_table",
    "holdout_frame",
    "prediction_curve",
    "prediction_figure",
    "prediction_grid",
    "r_metric_figure",
    "measured_t1",
    "speedup_reference",
    "unit_pitfall_table",
    "weights_figure",
]

#: Log-spaced targets of the predicted curve.  Every target is its own biased fit
#: ([Deshmeh2013] section 3.5.2), so this sets the cost of a redraw (~2 ms per target).
GRID_POINTS = 40
VIEWS = ("speedup", "runtime")

_C = {
    "band": "rgba(31,119,180,0.15)",
    "band_line": "rgba(31,119,180,0.45)",
    "pred": "#1f77b4",
    "obs": "#111111",
    "guide": "#9467bd",
    "actual": "#d62728",
    "runner": "#ff7f0e",
    "best": "#2ca02c",
    "compare": "#7f7f7f",
    "base": "#bcbd22",
}


# ----------------------------------------------------------------------------- data


def _mean_per_n(n: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Repeated runs at one n averaged, sorted by n."""
    if n.size == 0:
        return n, t
    g = pd.Series(t).groupby(n).mean()
    return g.index.to_numpy(float), g.to_numpy(float)


def _check_view(view: str) -> None:
    if view not in VIEWS:
        raise ValidationError(f"view must be one of {VIEWS}, got {view!r}")


def prediction_grid(model: Adept, n_extra=(), points: int = GRID_POINTS) -> np.ndarray:
    """Targets for the predicted curve.

    ``points`` log-spaced allocations from 1 to max(4 n_max observed, largest extra n),
    plus the observed and ``n_extra`` allocations.

    Parameters
    ----------
    model : Adept
        A fitted model.
    n_extra : array-like, default ()
        More allocations to include (e.g. held-back runs).
    points : int, default GRID_POINTS
        Log-spaced targets.
    """
    n_obs = model.observations_["n"].to_numpy(float)
    n_extra = np.asarray(n_extra, float).ravel()
    hi = max(4 * n_obs.max(), n_extra.max() if n_extra.size else 0.0)
    # 4 significant digits: nearby grids of successive refits share targets
    grid = np.geomspace(1.0, hi, points)
    step = 10.0 ** (np.floor(np.log10(grid)) - 3)
    grid = np.round(grid / step) * step
    return np.unique(np.concatenate([grid, n_obs, n_extra]))


def measured_t1(model: Adept) -> float | None:
    """Return the observed runtime on one processor (averaged repeats), or None.

    Parameters
    ----------
    model : Adept
        A fitted model.
    """
    obs = model.observations_
    one = obs[(obs["n"] == 1) & (obs["kind"] == "observed")]
    return float(one["t"].iloc[0]) if len(one) else None


def speedup_reference(model: Adept) -> tuple[float, str]:
    """Return the serial time T1_ref that puts runtimes into speedup space, and how it was obtained.

    See the module docstring.

    A measured t(1), else ADEPT's prediction for n = 1.

    Parameters
    ----------
    model : Adept
        A fitted model.
    """
    t1 = measured_t1(model)
    if t1 is not None:
        return t1, "S = t(1)/t(n) with the measured t(1)"
    t1 = float(model.predict([1.0])[0])
    return t1, (
        f"S = τ·T(1)/t(n): no run on 1 processor, so T(1) = {t1:.4g} is ADEPT's prediction for n = 1 "
        "(τ·T(1; A, σ) of the instance fitted for n = 1)"
    )


def prediction_curve(model: Adept, n_grid) -> pd.DataFrame:
    """ADEPT's prediction at each target of ``n_grid``, one biased fit per target (3.5.2).

    Columns: ``n``; ``runtime`` (input time unit; NaN past an ambiguous last point);
    ``speedup`` (T(1)/T(n) of the target's own instance); ``A``, ``sigma``, ``scale`` (tau,
    input unit per model unit); ``max_rel_error`` (largest relative deviation of that
    instance from the used observations).

    Parameters
    ----------
    model : Adept
        A fitted model.
    n_grid : array-like
        The targets (e.g. :func:`prediction_grid`).
    """
    n_grid = np.asarray(n_grid, float).ravel()
    if n_grid.size == 0:
        return pd.DataFrame(columns=["n", "runtime", "speedup", "A", "sigma", "scale", "max_rel_error"])
    e = model.explain(n_grid)
    return pd.DataFrame({
        "n": n_grid, "runtime": e["prediction"].to_numpy(float), "speedup": e["speedup"].to_numpy(float),
        "A": e["A"].to_numpy(float), "sigma": e["sigma"].to_numpy(float), "scale": e["scale"].to_numpy(float),
        "max_rel_error": e["max_rel_error"].to_numpy(float),
    })


def _target_kinds(warnings: Sequence[ModelWarning], target: float) -> list[str]:
    """Kinds of the warnings that concern ``target`` (fit-level warnings have no targets)."""
    return sorted({w.kind for w in warnings if not w.targets or target in w.targets})


def holdout_frame(model: Adept, actual) -> pd.DataFrame:
    """Prediction vs measurement at held-back allocations ([Deshmeh2013] section 3.7).

    ``actual``: (n, t) of runs not used for fitting (repeats are averaged per n).  Columns:
    ``n``; ``actual`` and ``prediction`` (input time unit); ``error_pct``
    E = |pred - actual|/actual * 100 and ``accuracy_pct`` PA = 100 - E (NaN where ADEPT
    refuses to predict, past an ambiguous last point); ``speedup`` (predicted, the target
    instance's T(1)/T(n)); ``A``, ``sigma`` of that instance; ``warned`` (a reliability
    warning of :data:`~workbench.evaluation.holdout.RELIABILITY_KINDS` covers the target)
    and ``warnings`` (comma-separated kinds of all warnings that concern it).

    Parameters
    ----------
    model : Adept
        A fitted model.
    actual : (array-like, array-like) or None
        ``(n, t)`` of the held-back runs.
    """
    n, t = _mean_per_n(*run_pair(actual, "actual"))
    columns = ["n", "actual", "prediction", "error_pct", "accuracy_pct", "speedup", "A", "sigma", "warned", "warnings"]
    if n.size == 0:
        return pd.DataFrame(columns=columns)
    e = model.explain(n)
    pred = e["prediction"].to_numpy(float)
    ok = np.isfinite(pred)
    err = np.full(n.size, np.nan)
    if ok.any():
        err[ok] = error_pct(t[ok], pred[ok])
    warns = curve_warnings(model, n)
    kinds = [_target_kinds(warns, v) for v in n]
    return pd.DataFrame({
        "n": n, "actual": t, "prediction": pred, "error_pct": err, "accuracy_pct": 100.0 - err,
        "speedup": e["speedup"].to_numpy(float), "A": e["A"].to_numpy(float), "sigma": e["sigma"].to_numpy(float),
        "warned": [bool(RELIABILITY_KINDS.intersection(k)) for k in kinds],
        "warnings": [", ".join(k) for k in kinds],
    })[columns]


#: The warnings about where the speedup stops growing: they concern predictions past the data.
SATURATION_KINDS = frozenset({"linear-section", "saturation-undetermined", "saturation-near-range"})


def curve_warnings(model: Adept, targets) -> list[ModelWarning]:
    """ADEPT's warnings for a curve drawn at ``targets``, as a dashboard shows them.

    Every warning of :meth:`~workbench.models.adept.Adept.warnings_for` ``targets``, except
    that the saturation warnings (:data:`SATURATION_KINDS`) are those of the targets past
    the largest used observation only.  Inside the data a prediction does not depend on
    where the speedup saturates, and each target has its own biased fit (thesis 3.5.2):
    the fit for n = 2 of the bundled example saturates at n = 255 with a first piece
    "ending" at n = 862788, the fits past the data at n = 241, so asking for all targets
    gave two saturation points and a section end far beyond the drawn range.

    Parameters
    ----------
    model : Adept
        A fitted model.
    targets : array-like
        The targets the curve is drawn at.
    """
    targets = np.unique(np.asarray(targets, float))
    obs = model.observations_
    top = obs["n"][obs["weight_factor"] > 0].max()
    out = [w for w in model.warnings_for(targets) if w.kind not in SATURATION_KINDS]
    beyond = targets[targets > top]
    if beyond.size:
        out += [w for w in model.warnings_for(beyond) if w.kind in SATURATION_KINDS]
    return out


def fits_table(model: Adept, targets) -> pd.DataFrame:
    """Return the per-target fits ([Deshmeh2013] section 3.5.2) as a display table, one row per target.

    Columns: ``target n``, ``A``, ``σ``, ``variance`` (low/high mode), ``τ`` (time scale,
    input unit per model unit; 1 in paper mode), ``fixed point n`` (the observation the
    pass-1 instances pass through), ``WSSRE``, ``max rel. error`` (fraction), ``predicted t``
    (input unit), ``predicted S``, ``runner-up A`` (NaN when none, Table 3).

    Parameters
    ----------
    model : Adept
        A fitted model.
    targets : array-like
        The targets, one row each.
    """
    e = model.explain(np.unique(np.asarray(targets, float)))
    return pd.DataFrame({
        "target n": e["target"], "A": e["A"], "σ": e["sigma"], "variance": e["variance"], "τ": e["scale"],
        "fixed point n": e["fixed_point"], "WSSRE": e["wssre"], "max rel. error": e["max_rel_error"],
        "predicted t": e["prediction"], "predicted S": e["speedup"], "runner-up A": e["runner_up_A"],
    })


def effective_weights(model: Adept, target: float) -> np.ndarray:
    """Weights W_i' the fit for ``target`` gives each row of ``model.observations_``.

    W_i = q max_j |n* - n_j| - |n* - n_i| (3.5.2) times the anomaly factor max(0, (θ - D)/θ)
    (3.9.2), zero outside the target's phase (3.9.3) and for cross-size guiding points
    reserved for another target (3.14).

    Parameters
    ----------
    model : Adept
        A fitted model.
    target : float
        The target n* of the fit.
    """
    # Adept keeps this in a private method; use it rather than re-deriving the rules here.
    return model.weights_for([float(target)]).to_numpy()[0]


def unit_pitfall_table(n, t_seconds, target: float, base=None) -> pd.DataFrame:
    """Fit the same runs given in seconds and in milliseconds, in ``fit`` and ``paper`` units.

    Report the instance fitted for ``target`` (the ``units`` choice is explained in
    docs/decisions/adept.md).

    ``base``: (n, t in seconds) of a base size for a cross-size fit ([Deshmeh2013] section 3.12), scaled
    with the target runs.  Columns: ``units``, ``time unit``, ``A``, ``σ``, ``τ [s]`` (time
    scale in seconds; in paper mode 1 input unit, i.e. 1 s or 0.001 s), ``T(1) [s]`` of the
    instance, ``predicted S`` and ``predicted t [s]`` at ``target``, and ``warnings``
    (kinds).  In fit mode the two time units give the same row (up to ties between
    equally good instances); in paper mode T(1) = A (1 + σ in high variance) input units,
    so A, σ and the verdicts change with the unit.

    Parameters
    ----------
    n : array-like
        Allocations of the target runs.
    t_seconds : array-like
        Their runtimes in seconds.
    target : float
        The target allocation.
    base : (array-like, array-like) or None, default None
        ``(n, t in seconds)`` of a base size for a cross-size fit.
    """
    n = np.asarray(n, float)
    t_seconds = np.asarray(t_seconds, float)
    n_b, t_b = run_pair(base, "base")
    rows = []
    for units in ("fit", "paper"):
        for unit, factor in (("s", 1.0), ("ms", 1e3)):
            scaled_base = (n_b, t_b * factor) if base is not None else None
            with quiet_warnings():  # the table shows the verdicts
                model = Adept(units=units).fit(n, t_seconds * factor, base=scaled_base)
            e = model.explain([target]).iloc[0]
            tau_s = float(e["scale"]) / factor
            rows.append({
                "units": units, "time unit": unit, "A": float(e["A"]), "σ": float(e["sigma"]), "τ [s]": tau_s,
                "T(1) [s]": tau_s * float(downey.serial_runtime(e["A"], e["sigma"])),
                "predicted S": float(e["speedup"]), "predicted t [s]": float(e["prediction"]) / factor,
                "warnings": ", ".join(_target_kinds(model.warnings_for([target]), target)),
            })
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------- figures


def _hover_instance(label: str) -> str:
    return (
        f"{label}<br>n = %{{x:.4g}}<br>%{{y:.4g}}<br>instance fitted for this n: "
        "A = %{customdata[0]:.4g}, σ = %{customdata[1]:.3g}<extra></extra>"
    )


def _instance_scale(model: Adept, A: float, sigma: float) -> float:
    """Time scale for drawing an instance over the runs.

    1 in paper mode, else the tau that fits the used observations best with uniform weights
    (closed form, [Deshmeh2013] section 3.5.2 WSSRE).
    """
    if model.units == "paper":
        return 1.0
    obs = model.observations_[model.observations_["weight_factor"] > 0]
    x = downey.runtime(obs["n"].to_numpy(float), A, sigma) / obs["t"].to_numpy(float)
    return float(np.sum(x) / np.sum(x * x))


def _runner_up(model: Adept, targets: np.ndarray) -> pd.Series | None:
    """Return the fit with a runner-up instance (Table 3) for the largest such target, if any."""
    if targets.size == 0:
        return None
    e = model.explain(targets)
    e = e[e["runner_up_A"].notna()]
    return None if e.empty else e.sort_values("target").iloc[-1]


def _to_view(view: str, t, t1_ref: float):
    t = np.asarray(t, float)
    return t1_ref / t if view == "speedup" else t


@dataclass(frozen=True)
class _ViewSpace:
    """How :func:`prediction_figure` puts runtimes into its ``view`` (module docstring)."""

    view: str
    t1_ref: float
    t1_how: str
    # with a measured t(1) the speedup view is t(1) / runtime view
    via_t1: bool

    @property
    def speed(self) -> bool:
        return self.view == "speedup"

    def y_pred(self, runtime, inst_speedup) -> np.ndarray:
        """Predicted values in the current view from runtimes / the instances' speedups."""
        runtime = np.asarray(runtime, float)
        return (self.t1_ref / runtime if self.via_t1 else np.asarray(inst_speedup, float)) if self.speed else runtime

    def measured(self, t) -> np.ndarray:
        """Measured runtimes in the current view."""
        return _to_view(self.view, t, self.t1_ref)


def _add_envelope(fig: go.Figure, model: Adept, grid: np.ndarray, v: _ViewSpace) -> None:
    """Traces 0-1 of :func:`prediction_figure`: the envelope band."""
    env = model.envelope_
    if v.speed and not v.via_t1:
        lo, hi = env.speedup_band(grid)
    else:
        lo, hi = env.runtime_band(grid)
        if v.via_t1:
            lo, hi = v.t1_ref / hi, v.t1_ref / lo
    band_hover = (
        f"envelope (δ = {model.delta_:.3g}): %{{y:.4g}}<br>n = %{{x:.4g}}<br>pointwise extreme of the bound "
        "instances of all range pairs (thesis Fig. 4); not a confidence interval<extra></extra>"
    )
    fig.add_scatter(x=grid, y=lo, name="envelope (lowest bound)", mode="lines", legendgroup="env", showlegend=False,
                    line=dict(color=_C["band_line"], width=1), hovertemplate=band_hover)
    fig.add_scatter(x=grid, y=hi, name=f"envelope, δ = {model.delta_:.3g}", mode="lines", legendgroup="env",
                    fill="tonexty", fillcolor=_C["band"], line=dict(color=_C["band_line"], width=1),
                    hovertemplate=band_hover)


def _add_compare(fig: go.Figure, compare: Adept | None, label: str, grid: np.ndarray, v: _ViewSpace) -> None:
    """Trace 2 of :func:`prediction_figure`: the comparison model's predicted curve."""
    if compare is not None:
        c = prediction_curve(compare, grid)
        fig.add_scatter(x=grid, y=v.y_pred(c["runtime"], c["speedup"]), name=f"prediction {label}", mode="lines",
                        line=dict(color=_C["compare"], width=2, dash="dashdot"),
                        customdata=c[["A", "sigma"]].to_numpy(), hovertemplate=_hover_instance(label))
    else:
        fig.add_scatter(x=[], y=[], name=f"prediction {label}", mode="lines", showlegend=False)


def _add_instances(fig: go.Figure, model: Adept, targets: np.ndarray, grid: np.ndarray, v: _ViewSpace) -> None:
    """Traces 3-4 of :func:`prediction_figure`: best and runner-up instance of the largest target with a runner-up."""
    ru = _runner_up(model, targets)
    for label, key_A, key_s, color, dash in (
        ("best instance", "A", "sigma", _C["best"], "dot"),
        ("runner-up instance", "runner_up_A", "runner_up_sigma", _C["runner"], "dash"),
    ):
        if ru is None:
            fig.add_scatter(x=[], y=[], name=label, mode="lines", showlegend=False)
            continue
        A, s = float(ru[key_A]), float(ru[key_s])
        scale = float(ru["scale"]) if key_A == "A" else _instance_scale(model, A, s)
        y = v.y_pred(scale * downey.runtime(grid, A, s), downey.speedup(grid, A, s))
        fig.add_scatter(
            x=grid, y=y, name=f"{label} for n* = {ru['target']:g}: A = {A:.3g}, σ = {s:.3g}", mode="lines",
            line=dict(color=color, width=1.5, dash=dash),
            hovertemplate=(f"{label} for n* = {ru['target']:g} (A = {A:.4g}, σ = {s:.3g})<br>n = %{{x:.4g}}<br>"
                           "%{y:.4g}<br>runner-up: WSSRE within 10 % of the best, A differs > 1.5× (Table 3)"
                           "<extra></extra>"),
        )


def _add_prediction(fig: go.Figure, curve: pd.DataFrame, grid: np.ndarray, time_unit: str, v: _ViewSpace) -> None:
    """Trace 5 of :func:`prediction_figure`: the predicted curve."""
    if v.via_t1:
        what = "speedup t(1)/t_pred(n) with the measured t(1)"
    elif v.speed:
        what = "speedup S = T(1)/T(n) of the instance fitted for this n (unit-free, needs no measured T(1))"
    else:
        what = f"predicted runtime [{time_unit}]"
    fig.add_scatter(x=grid, y=v.y_pred(curve["runtime"], curve["speedup"]), name="ADEPT prediction (one fit per n)",
                    mode="lines",
                    line=dict(color=_C["pred"], width=2.5), customdata=curve[["A", "sigma"]].to_numpy(),
                    hovertemplate=_hover_instance(what))


def _add_base(fig: go.Figure, model: Adept, n_base: np.ndarray, t_base: np.ndarray, v: _ViewSpace) -> None:
    """Trace 6 of :func:`prediction_figure`: the base-size runs of a cross-size fit."""
    ratio = getattr(model, "ratio_", None)
    if n_base.size:
        yb = v.measured(t_base * (ratio or 1.0)) if v.speed else t_base
        fig.add_scatter(
            x=n_base, y=yb, name="base size" + (" (× R, speedup space)" if v.speed else ""), mode="lines+markers",
            line=dict(color=_C["base"], width=1.5), marker=dict(size=7, symbol="square"),
            hovertemplate=(f"base size<br>n = %{{x:.4g}}<br>%{{y:.4g}}<br>runtime ratio R = {ratio or float('nan'):.4g}"
                           "<extra></extra>"),
        )
    else:
        fig.add_scatter(x=[], y=[], name="base size", mode="lines+markers", showlegend=False)


def _add_points(fig: go.Figure, obs: pd.DataFrame, time_unit: str, v: _ViewSpace) -> None:
    """Traces 7-8 of :func:`prediction_figure`: guiding and observed points."""
    hover_pts = f"%{{text}}<br>n = %{{x:.4g}}<br>%{{y:.4g}}<br>t = %{{customdata[0]:.4g}} {time_unit}, " \
                f"weight factor %{{customdata[1]:.2f}}" + (f"<br>{v.t1_how}" if v.speed else "") + "<extra></extra>"
    for kind, label, color, symbol in (("guiding", "guiding points (base × R)", _C["guide"], "diamond"),
                                        ("observed", "observed (used)", _C["obs"], "circle")):
        o = obs[obs["kind"] == kind]
        w = o["weight_factor"].to_numpy(float)
        symbols = np.where(w <= 0, "x", np.where(w < 1, f"{symbol}-open", symbol)).tolist()
        text = np.where(w <= 0, f"{kind}: not used (weight 0)",
                        np.where(w < 1, f"{kind}: anomalous, weight reduced", kind)).tolist()
        fig.add_scatter(
            x=o["n"], y=v.measured(o["t"]), name=label, mode="markers", showlegend=not o.empty,
            marker=dict(color=color, size=10, symbol=symbols, line=dict(width=1.5, color=color)),
            text=text, customdata=np.column_stack([o["t"], w]) if len(o) else None, hovertemplate=hover_pts,
        )


def _add_holdout(fig: go.Figure, model: Adept, n_act: np.ndarray, t_act: np.ndarray, time_unit: str,
                 v: _ViewSpace) -> pd.DataFrame:
    """Traces 9-10 of :func:`prediction_figure`: held-back runs and the predictions there; return the holdout frame."""
    h = holdout_frame(model, (n_act, t_act))
    pa_text = [f"PA {x:.0f}%" if np.isfinite(x) else "no prediction" for x in h["accuracy_pct"].to_numpy(float)]
    pred_y = v.y_pred(h["prediction"], h["speedup"])
    custom = np.column_stack([h["actual"], h["prediction"], h["error_pct"], h["warnings"].replace("", "none")]) \
        if len(h) else None
    hover_act = (
        f"held back (not used for fitting)<br>n = %{{x:.4g}}<br>%{{y:.4g}}<br>actual t = %{{customdata[0]:.4g}} "
        f"{time_unit}<br>predicted t = %{{customdata[1]:.4g}} {time_unit}<br>E = %{{customdata[2]:.1f}} %, "
        "%{text} (PA = 100 − E, on runtimes)<br>warnings: %{customdata[3]}"
        + (f"<br>{v.t1_how}" if v.speed else "") + "<extra></extra>"
    )
    fig.add_scatter(
        x=h["n"], y=v.measured(h["actual"]), name="held back (actual)", mode="markers+text",
        showlegend=len(h) > 0, text=pa_text, textposition="top center", textfont=dict(color=_C["actual"], size=11),
        marker=dict(color=_C["actual"], size=11, symbol="star"), customdata=custom, hovertemplate=hover_act,
    )
    fig.add_scatter(
        x=h["n"], y=pred_y, name="prediction at held-back n", mode="markers", showlegend=len(h) > 0,
        marker=dict(color=_C["pred"], size=9, symbol="diamond-open", line=dict(width=2)),
        text=pa_text, customdata=custom, hovertemplate=hover_act.replace("held back (not used for fitting)",
                                                                          "ADEPT prediction"),
    )
    return h


def _prediction_layout(fig: go.Figure, model: Adept, curve: pd.DataFrame, obs: pd.DataFrame, h: pd.DataFrame,
                       title: str | None, time_unit: str, v: _ViewSpace) -> None:
    """Title, axes and legend of :func:`prediction_figure` (the speedup axis holds every point)."""
    if title is None:
        mean_pa = h["accuracy_pct"].mean() if len(h) else np.nan
        summary = f", mean PA {mean_pa:.0f}% on {len(h)} held-back n" if np.isfinite(mean_pa) else ""
        title = (f"ADEPT {v.view} prediction ({model.units} units, δ = {model.delta_:.3g}, q = {model.q:g})"
                 f"{summary}")
    fig.update_xaxes(type="log", title_text="processors n")
    if v.speed:
        top = np.nanmax(np.concatenate([v.y_pred(curve["runtime"], curve["speedup"]), v.measured(obs["t"]),
                                        v.measured(h["actual"]), [1.0]]))
        fig.update_yaxes(title_text="speedup S(n)", range=[0, 1.15 * top])
    else:
        fig.update_yaxes(type="log", title_text=f"runtime [{time_unit}]")
    fig.update_layout(title=dict(text=title), height=480, margin=dict(l=60, r=20, t=70, b=50),
                      legend=dict(orientation="h", yanchor="top", y=-0.16, x=0))


def prediction_figure(
    model: Adept,
    actual=None,
    *,
    view: str = "speedup",
    compare: Adept | None = None,
    compare_label: str = "without anomaly handling",
    base=None,
    n_grid=None,
    time_unit: str = "s",
    title: str | None = None,
) -> go.Figure:
    """ADEPT's prediction over n ([Deshmeh2013] Figs. 4-8 and 11), ``view`` "speedup" or "runtime".

    Traces, always in this order (empty when absent):

    - 0-1: envelope band: pointwise lowest and highest bound instances (3.5.1, Fig. 4);
    - 2: ``compare``'s predicted curve (e.g. the same data without anomaly handling);
    - 3-4: for the largest target with a runner-up (Table 3): its best instance (dotted) and
      the runner-up instance (dashed) over the whole n range;
    - 5: the predicted curve, one biased fit per target of ``n_grid`` (3.5.2);
    - 6: ``base``: the base-size runs of a cross-size fit, scaled by the runtime ratio R in
      the speedup view (3.12);
    - 7: guiding points (cross-size, 3.12 step 2);
    - 8: the observations used (averaged repeats; open markers: weight reduced as anomalous,
      crosses: weight 0);
    - 9: held-back runs ``actual`` = (n, t), labelled with PA (runtime-based);
    - 10: ADEPT's predictions at the held-back n.

    x is log n; the runtime view has a log y axis in the input time unit ``time_unit``; the
    speedup view is drawn as the module docstring explains (t(1)-based when t(1) was
    measured, the instances' own speedups otherwise).

    Parameters
    ----------
    model : Adept
        A fitted model.
    actual : (array-like, array-like) or None, default None
        Held-back runs ``(n, t)``.
    view : {"speedup", "runtime"}, default "speedup"
        What the y axis shows.
    compare : Adept or None, default None
        A second fitted model drawn for comparison.
    compare_label : str, default "without anomaly handling"
        Its legend label.
    base : (array-like, array-like) or None, default None
        The base-size runs of a cross-size fit.
    n_grid : array-like or None, default None
        Targets of the predicted curve (None: :func:`prediction_grid`).
    time_unit : str, default "s"
        Unit of the runtimes, for the axis and hovers.
    title : str or None, default None
        The title; None: the view, units, delta, q and the mean PA.
    """
    _check_view(view)
    n_act, t_act = _mean_per_n(*run_pair(actual, "actual"))
    n_base, t_base = _mean_per_n(*run_pair(base, "base"))
    grid = prediction_grid(model, n_act) if n_grid is None else np.asarray(n_grid, float)
    curve = prediction_curve(model, grid)
    t1_ref, t1_how = speedup_reference(model)
    v = _ViewSpace(view, t1_ref, t1_how, via_t1=view == "speedup" and measured_t1(model) is not None)
    obs = model.observations_
    fig = go.Figure()
    _add_envelope(fig, model, grid, v)
    _add_compare(fig, compare, compare_label, grid, v)
    _add_instances(fig, model, np.union1d(n_act, grid), grid, v)
    _add_prediction(fig, curve, grid, time_unit, v)
    _add_base(fig, model, n_base, t_base, v)
    _add_points(fig, obs, time_unit, v)
    h = _add_holdout(fig, model, n_act, t_act, time_unit, v)
    _prediction_layout(fig, model, curve, obs, h, title, time_unit, v)
    return fig


def cross_size_figure(model: Adept, base, actual=None, *, view: str = "runtime", time_unit: str = "s",
                      n_grid=None) -> go.Figure:
    """Cross-problem-size prediction ([Deshmeh2013] section 3.12-3.15, Figs. 12-16).

    The base-size runs, the target-size observations, the guiding points t_base(n)·R, the
    predicted target curve and the held-back target runs ``actual`` with PA.  ``model`` must
    have been fitted with ``base=``; the traces are those of :func:`prediction_figure`.

    Parameters
    ----------
    model : Adept
        A model fitted with ``base=``.
    base : (array-like, array-like)
        ``(n, t)`` of the base-size runs.
    actual : (array-like, array-like) or None, default None
        Held-back target runs ``(n, t)``.
    view : {"runtime", "speedup"}, default "runtime"
        What the y axis shows.
    time_unit : str, default "s"
        Unit of the runtimes.
    n_grid : array-like or None, default None
        Targets of the predicted curve (None: :func:`prediction_grid`).
    """
    if getattr(model, "ratio_", None) is None:
        raise ValidationError("cross_size_figure needs an Adept fitted with base=(n_base, t_base)")
    h = holdout_frame(model, actual)
    if n_grid is None:  # the guiding points already give the curve its detail
        n_grid = prediction_grid(model, h["n"], points=GRID_POINTS // 2)
    mean_pa = h["accuracy_pct"].mean() if len(h) else np.nan
    summary = f", mean PA {mean_pa:.0f}%" if np.isfinite(mean_pa) else ""
    title = (f"Cross-size {view} prediction: ratio R = {model.ratio_:.3g}, "
             f"{int((model.observations_['kind'] == 'guiding').sum())} guiding points{summary}")
    return prediction_figure(model, actual, view=view, base=base, n_grid=n_grid, time_unit=time_unit, title=title)


def r_metric_figure(report: AnomalyReport, epsilon: float) -> go.Figure:
    """Return the R metric ([Deshmeh2013] section 3.9.1) and the R curves after removing each candidate (Figs. 9-10).

    R_i of the pair (n_i, n_{i+1}) is drawn at n_{i+1}.  Traces: 0 the R curve; 1 the flag
    threshold, a dotted segment over each pair (n_i, n_{i+1}) at (1 + ε) R_{i-1} -- an R_i
    above it flags both observations of that pair as anomaly candidates; 2 the candidates;
    3 the resolved anomalies (with D and the weight factor); then one dashed curve per
    removed candidate (its flatness = total
    relative rise; the flattest removal identifies the anomaly, 3.9.2).

    Parameters
    ----------
    report : AnomalyReport
        The anomaly report of a fitted model.
    epsilon : float
        The flag threshold epsilon of the R metric.
    """
    r = report.r
    n_to = r["n_to"].to_numpy(float)
    R = r["R"].to_numpy(float)
    fig = go.Figure()
    fig.add_scatter(
        x=n_to, y=R, name="R (all observations)", mode="lines+markers", line=dict(color=_C["obs"], width=2.5),
        marker=dict(size=8), customdata=r[["n_from"]].to_numpy(),
        hovertemplate="R for n = %{customdata[0]:.4g} → %{x:.4g}: %{y:.4g}<extra></extra>",
    )
    # one horizontal segment per pair (n_i -> n_{i+1}, i >= 1) at (1 + eps) R_{i-1}, gaps between
    seg = np.full((len(R) - 1, 3), np.nan) if len(R) > 1 else np.zeros((0, 3))
    seg_x, seg_y = seg.copy(), seg.copy()
    if len(R) > 1:
        seg_x[:, 0], seg_x[:, 1] = r["n_from"].to_numpy(float)[1:], n_to[1:]
        seg_y[:, 0] = seg_y[:, 1] = (1 + epsilon) * R[:-1]
    fig.add_scatter(
        x=seg_x.ravel(), y=seg_y.ravel(), name=f"flag threshold (1 + ε)·R of the previous pair, ε = {epsilon:g}",
        mode="lines", line=dict(color=_C["actual"], width=2, dash="dot"), connectgaps=False,
        hovertemplate=(f"threshold (1 + ε)·R_previous = %{{y:.4g}} (ε = {epsilon:g})<br>an R of this pair above "
                       "it flags both of its observations as anomaly candidates (thesis 3.9.1)<extra></extra>"),
    )
    at = pd.Series(R, index=n_to)
    cand = report.candidates
    fig.add_scatter(
        x=cand["n"], y=at.reindex(cand["n"]).to_numpy(), name="anomaly candidates", mode="markers",
        marker=dict(symbol="circle-open", size=18, color=_C["runner"], line=dict(width=2.5)),
        text=cand["flagged_by"], hovertemplate="candidate n = %{x:.4g}<br>flagged by %{text}<extra></extra>",
    )
    an = report.anomalies
    fig.add_scatter(
        x=an["n"], y=at.reindex(an["n"]).to_numpy(), name="resolved anomalies", mode="markers",
        marker=dict(symbol="x", size=14, color=_C["actual"]),
        customdata=an[["D", "weight_factor"]].to_numpy(float) if len(an) else None,
        hovertemplate=("anomaly at n = %{x:.4g}<br>D = min(10, ΔR/ε) = %{customdata[0]:.3g}<br>weight factor "
                       "max(0, (θ − D)/θ) = %{customdata[1]:.2f}<extra></extra>"),
    )
    chosen = set(an["n"].tolist())
    for removed, cur in report.removal_curves.groupby("removed_n", sort=True):
        best = removed in chosen
        fig.add_scatter(
            x=cur["n_to"], y=cur["R"], mode="lines+markers",
            name=f"without n = {removed:g} (flatness {cur['flatness'].iloc[0]:.3g})",
            line=dict(width=2.5 if best else 1.2, dash="dash"), marker=dict(size=5),
            hovertemplate=f"R after removing n = {removed:g}<br>n → %{{x:.4g}}: %{{y:.4g}}<extra></extra>",
        )
    fig.update_xaxes(type="log", title_text="processors n (end of the pair)")
    fig.update_yaxes(title_text="R")
    fig.update_layout(
        title=dict(text=f"R metric (thesis 3.9.1), ε = {epsilon:g}: {len(cand)} candidate(s), "
                        f"pattern: {report.pattern}"),
        height=420, margin=dict(l=60, r=20, t=70, b=50), legend=dict(orientation="h", yanchor="top", y=-0.18, x=0),
    )
    return fig


def weights_figure(model: Adept, target: float | None = None) -> go.Figure:
    """Per-observation weights after anomaly handling ([Deshmeh2013] section 3.9.2).

    The factor max(0, (θ - D)/θ) (bars 0) and, for ``target``, the effective weight W_i'
    of its fit relative to the largest (bars 1; empty without a target).

    Parameters
    ----------
    model : Adept
        A fitted model.
    target : float or None, default None
        The target whose effective weights are drawn (None: only the factors).
    """
    obs = model.observations_
    labels = [f"n={v:g}" + (" (guide)" if k == "guiding" else "") for v, k in zip(obs["n"], obs["kind"])]
    factor = obs["weight_factor"].to_numpy(float)
    fig = go.Figure()
    fig.add_bar(x=labels, y=factor, name=f"anomaly factor (θ = {model.theta:g})", marker_color=_C["actual"],
                hovertemplate="%{x}<br>factor max(0, (θ − D)/θ) = %{y:.3f}<extra></extra>")
    if target is not None:
        w = effective_weights(model, target)
        rel = w / w.max() if w.max() > 0 else w
        fig.add_bar(x=labels, y=rel, name=f"weight W' for n* = {target:g} (relative)", marker_color=_C["pred"],
                    hovertemplate=(f"%{{x}}<br>W'/max W' = %{{y:.3f}} for n* = {target:g}<br>W = q·max|n*−n_j| − "
                                   f"|n*−n_i|, q = {model.q:g}<extra></extra>"))
    else:
        fig.add_bar(x=[], y=[], name="weight W' (no target)", showlegend=False)
    fig.update_yaxes(range=[0, 1.05], title_text="weight")
    fig.update_layout(title=dict(text="Weights after anomaly handling"), barmode="group", height=420,
                      margin=dict(l=60, r=20, t=70, b=50), legend=dict(orientation="h", yanchor="top", y=-0.18, x=0))
    return fig
