"""The communication-regression dashboard's panels without widgets ([Papadopoulou2015]).

:class:`CommRegressionState` holds everything the panels depend on (the descriptor frame
and the control values); :func:`comm_regression_view` turns it into :class:`CommRegressionPanels`: the
main figure (area split + predicted vs observed), the readouts as HTML, the static
correlation / scatter / residual figures.  The dashboard
(:mod:`workbench.ui.comm_regression_dashboard`) calls the parts separately so that a
slider move redraws the main figure first and recomputes the correlations only when the
data or the log scale change: :func:`fit_comm_regression`, :func:`main_figure`, :func:`fit_panels`,
:func:`scatter_figure`, :func:`exploration_panels`.
"""

from __future__ import annotations

import html
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from workbench.errors import ValidationError
from workbench.evaluation.comm_regression import EVALUATIONS, fit_and_evaluate, published_comparison
from workbench.metrics import ERROR_BAND, band_text
from workbench.models.comm.correlation import correlation_matrix, pearson_table
from workbench.models.comm.descriptors import METRIC_COLUMNS
from workbench.models.comm.regression import PUBLISHED, ROBUST_LOSSES, AreaSplit, CommRegression, CommRegressionResult
from workbench.plots.comm_regression import (
    correlation_heatmap,
    metric_scatter,
    residuals_by_area,
    split_and_fit_figure,
    target_heatmap,
)
from workbench.views.panels import FitCache, frame_html, readout_html
from workbench.views.tables import Column, Table, format_value, table

__all__ = ["CommRegressionFit", "CommRegressionPanels", "CommRegressionState", "FitPanels", "comm_regression_view",
           "comparison_frame", "exploration_panels", "fit_comm_regression", "fit_panels", "main_figure",
           "scatter_figure", "scores_table"]

#: The share within the error band in the scores (:func:`workbench.metrics.summarize`).
_WITHIN = f"share_within_{ERROR_BAND.value:g}"
#: Score columns of the per-area table and how they are shown (MAPE and MPE are in percent,
#: the share within the band a fraction).
_SCORE_COLUMNS = {"area": Column("area"), "n_points": Column("points", "int"), "mape": Column("MAPE", "percent"),
                  _WITHIN: Column(f"within {band_text()}", "fraction", 0), "mpe": Column("MPE", "percent"),
                  "r2": Column("R²", "number", 3), "rmse": Column("RMSE [µs]", "number", 3)}


@dataclass(frozen=True)
class CommRegressionState:
    """What the panels show: the data and the controls.

    ``data`` is a descriptor frame (:func:`~workbench.models.comm.descriptors.descriptors`
    columns and ``comm_time_us``), ``data_label`` says what it is, ``data_key`` identifies
    it for the fit cache (``None``: never cached).  Thresholds in bytes, ``robust`` one of
    :data:`~workbench.models.comm.regression.ROBUST_LOSSES`, ``evaluation`` a key of
    :data:`~workbench.evaluation.comm_regression.EVALUATIONS`, ``metric`` the scatter
    panel's metric, ``log_scale`` for the scatter and the metric x metric matrix.
    """

    data: pd.DataFrame
    data_label: str
    data_key: Hashable | None = None
    nt_threshold_bytes: float = 128 * 1024
    s_threshold_bytes: float = 4 * 1024
    robust: str = "bisquare"
    evaluation: str = "all"
    metric: str = "PT"
    log_scale: bool = True

    @property
    def split(self) -> AreaSplit:
        """The area split of the thresholds."""
        return AreaSplit(nt_threshold_bytes=self.nt_threshold_bytes, s_threshold_bytes=self.s_threshold_bytes)

    def check(self) -> None:
        """Raise a :class:`~workbench.errors.ValidationError` naming a value the panels cannot show."""
        if not isinstance(self.data, pd.DataFrame) or self.data.empty:
            raise ValidationError(f"no data to fit: {self.data_label or 'nothing'} has no rows")
        if self.robust not in ROBUST_LOSSES:
            raise ValidationError(f"the robust loss must be one of {list(ROBUST_LOSSES)}, got {self.robust!r}")
        if self.evaluation not in EVALUATIONS:
            raise ValidationError(f"the evaluation must be one of {list(EVALUATIONS)}, got {self.evaluation!r}")
        if self.metric not in METRIC_COLUMNS:
            raise ValidationError(f"the scatter metric must be one of {list(METRIC_COLUMNS)}, got {self.metric!r}")


@dataclass(frozen=True)
class CommRegressionFit:
    """A fit of the state's data and controls: the scores, the fitted model and the evaluation in words."""

    result: CommRegressionResult
    evaluation_text: str
    model: CommRegression


@dataclass(frozen=True)
class FitPanels:
    """The panels that follow the fit.

    Readout rows (``label -> text``), per-area scores and coefficients (HTML), the model's
    warnings (text, ``None``: none) and the relative errors by area.
    """

    readout_rows: Mapping[str, str]
    scores: str
    coefficients: str
    notes: str | None
    residuals: go.Figure

    @property
    def readout(self) -> str:
        """The readout rows as an HTML table."""
        return readout_html(self.readout_rows)


@dataclass(frozen=True)
class CommRegressionPanels:
    """Every panel of the dashboard, named as there.

    ``main`` (area split + predicted vs observed), ``scatter`` (one metric against time),
    ``heatmap`` (Pearson's r with time), ``matrix`` (metric x metric), the fit's panels
    (``fit_panels``, a :class:`FitPanels`: readout, scores, coefficients, notes, residuals)
    and the ``fit`` itself.
    """

    main: go.Figure
    scatter: go.Figure
    heatmap: go.Figure
    matrix: go.Figure
    fit_panels: FitPanels
    fit: CommRegressionFit


def fit_comm_regression(state: CommRegressionState, cache: FitCache | None = None) -> CommRegressionFit:
    """Fit and score the state's data (:func:`~workbench.evaluation.comm_regression.fit_and_evaluate`).

    With a ``cache`` a fit of the same data key, split, loss and evaluation is reused.

    Parameters
    ----------
    state : CommRegressionState
        The data and the control values.
    cache : FitCache, optional
        Reuses fits per data key, split, loss and evaluation; default None: always fit.
    """
    state.check()
    split = state.split

    def run() -> CommRegressionFit:
        return CommRegressionFit(*fit_and_evaluate(state.data, split, state.robust, state.evaluation))

    if cache is None or state.data_key is None:
        return run()
    return cache.get((state.data_key, split, state.robust, state.evaluation), run)


def main_figure(state: CommRegressionState, fitted: CommRegressionFit) -> go.Figure:
    """Return the main figure: time against NT with the threshold line, and predicted vs observed.

    Parameters
    ----------
    state : CommRegressionState
        The data and the control values.
    fitted : CommRegressionFit
        Its fit (:func:`fit_comm_regression`).
    """
    title = (f"{html.escape(state.data_label)}<br><sup>{html.escape(fitted.evaluation_text)}; "
             f"robust loss {state.robust}</sup>")
    return split_and_fit_figure(state.data, fitted.result.predictions, state.split, title=title)


def _readout_rows(state: CommRegressionState, fitted: CommRegressionFit) -> dict[str, str]:
    overall = fitted.result.overall()
    rows = {
        "data": f"{state.data_label} ({len(state.data)} points)",
        "evaluation": fitted.evaluation_text,
        "areas": "; ".join(f"{a}: {r}" for a, r in state.split.describe().items()),
        "overall (ours)": f"MAPE {overall['mape']:.1f} %, {overall[_WITHIN]:.0%} within {band_text()}, "
                          f"R² {overall['r2']:.3f} ({int(overall['n_points'])} points)",
        "paper 002 (3D-Jacobi / advection, 16-8192 processes)":
            f"mean error {PUBLISHED['mape']:.0f} %, {PUBLISHED[_WITHIN]:.0%} within {band_text()}",
    }
    if not (state.data["NT"].to_numpy(float) > 0).any():
        rows["note"] = ("NT = 0 for every point (one node: all messages intra-node), so everything is in "
                        "Area I and the NT threshold only moves the line; the S threshold splits Ia / Ib")
    return rows


def scores_table(result: CommRegressionResult) -> Table:
    """Return the scores per area of ``result`` as shown (MAPE in %, the share within the band as %, counts).

    Parameters
    ----------
    result : CommRegressionResult
        A scored fit.
    """
    return table(result.metrics[list(_SCORE_COLUMNS)], _SCORE_COLUMNS)


def comparison_frame(result: CommRegressionResult) -> pd.DataFrame:
    """:func:`~workbench.evaluation.comm_regression.published_comparison` as shown: every value with its %.

    Its first row is a MAPE in percent, its second a share (fraction).

    Parameters
    ----------
    result : CommRegressionResult
        A scored fit.
    """
    table = published_comparison(result)
    kinds = ["percent", "fraction"]
    return pd.DataFrame({
        "metric": ["mean absolute relative error (MAPE)", f"share of predictions within {band_text()}"],
        **{name: [format_value(v, kind, 0 if kind == "fraction" else 1) for v, kind in zip(table[col], kinds,
                                                                                           strict=True)]
           for col, name in (("ours", "ours"), ("paper", "paper 002"))}})


def fit_panels(state: CommRegressionState, fitted: CommRegressionFit) -> FitPanels:
    """Return the readouts, scores, coefficients, warnings and residuals of a fit.

    Parameters
    ----------
    state : CommRegressionState
        The data and the control values.
    fitted : CommRegressionFit
        Its fit.
    """
    result = fitted.result
    scores = result.metrics[list(_SCORE_COLUMNS)]
    coef = fitted.model.coef_[["area", "term", "coef", "stderr", "source"]]
    return FitPanels(
        readout_rows=_readout_rows(state, fitted),
        scores=(frame_html(scores, "Scores per area", _SCORE_COLUMNS)
                + frame_html(comparison_frame(result), "Beside the published numbers")),
        coefficients=frame_html(coef, "Coefficients (µs per unit of the term; stderr approximate)",
                                {"coef": Column("coefficient [µs per unit]"),
                                 "stderr": Column("stderr [µs per unit]")}),
        notes="\n".join(result.warnings) if result.warnings else None,
        residuals=residuals_by_area(result.predictions))


def scatter_figure(state: CommRegressionState) -> go.Figure:
    """Return the chosen metric against time, coloured by area (log axes if ``log_scale``).

    Parameters
    ----------
    state : CommRegressionState
        The data, the metric chosen and the scale.
    """
    state.check()
    return metric_scatter(state.data, state.metric, split=state.split, log=state.log_scale)


def exploration_panels(state: CommRegressionState) -> tuple[go.Figure, go.Figure]:
    """Return ``(heatmap, matrix)``: Pearson's r of the metrics with time and between each other.

    With time in linear and log10, between the metrics in log10 if ``log_scale``
    ([Papadopoulou2015] section III.C).

    Parameters
    ----------
    state : CommRegressionState
        The data and the scale.
    """
    state.check()
    tables = {"linear": pearson_table(state.data), "log10": pearson_table(state.data, log=True)}
    title = f"Pearson's r between the metrics{' (log10)' if state.log_scale else ''}"
    return target_heatmap(tables), correlation_heatmap(correlation_matrix(state.data, log=state.log_scale), title)


def comm_regression_view(state: CommRegressionState, cache: FitCache | None = None) -> CommRegressionPanels:
    """Every panel of ``state``.

    Parameters
    ----------
    state : CommRegressionState
        The data and the control values.
    cache : FitCache, optional
        Reuses fits (see :func:`fit_comm_regression`); default None: always fit.

    Raises
    ------
    ValidationError
        A control value the panels cannot show, data the model refuses, an evaluation the
        data cannot support (e.g. train small / test big without a ``processes`` column).
    """
    fitted = fit_comm_regression(state, cache)
    heatmap, matrix = exploration_panels(state)
    return CommRegressionPanels(main=main_figure(state, fitted), scatter=scatter_figure(state), heatmap=heatmap,
                                matrix=matrix, fit_panels=fit_panels(state, fitted), fit=fitted)
