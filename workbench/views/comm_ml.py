"""The communication statistics and ML dashboard's panels without widgets ([Branikas2024]).

One state and one set of panels per section of :mod:`workbench.ui.comm_ml_dashboard`:

* :class:`SemiEmpiricalState` -> :func:`semi_empirical_view` -> :class:`SemiEmpiricalPanels`
  (Figs. 6.4/6.5 and Tables 6.3/6.4 recomputed with the sliders' parameters, chapter 6);
* :class:`RankState` -> :func:`rank_view` -> :class:`RankPanels` (per-rank distributions
  of one group of runs, chapter 4);
* :class:`TrainingState` -> :func:`training_view` -> :class:`TrainingPanels` (a trained
  gradient-boosting scenario beside Tables 8.1/8.3/8.5, chapters 7-8).

:func:`comm_ml_view` composes the three (:class:`CommMLState` -> :class:`CommMLPanels`).  The
training itself (:func:`~workbench.evaluation.comm_ml.train_scenario`) runs in the
dashboard's background thread; :class:`TrainRequest` is what it depends on.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from workbench.errors import ValidationError
from workbench.evaluation.comm_ml import SCENARIOS, compare_with_tables8, reproduce_table_6_1, table_6_3_check
from workbench.models.comm.gbm import ScenarioResult
from workbench.models.comm.semi_empirical import SIZE_FACTOR, TABLE_6_2_BASE_US
from workbench.models.comm.statistics import RUN_FEATURES, TIMERS, rank_statistics, runs_varying
from workbench.plots.comm_ml import (
    importance_figure,
    mean_std_band_figure,
    prediction_vs_actual_figure,
    rank_box_figure,
    rank_density_figure,
    semi_empirical_figure,
    value_label,
)
from workbench.views.panels import frame_html, readout_html

__all__ = ["SCENARIO_LABELS", "CommMLPanels", "CommMLState", "RankPanels", "RankState", "SemiEmpiricalPanels",
           "SemiEmpiricalState", "TrainRequest", "TrainingPanels", "TrainingState", "color_choices",
           "prediction_figure", "rank_view", "run_options", "selected_ranks", "semi_empirical_view",
           "training_view", "varying_features", "comm_ml_view"]

#: Scenario names shown for the seed-table names ([Branikas2024] section 7.3).
SCENARIO_LABELS = {"message_scale": "message scale (Table 8.1)",
                   "train_small_test_big": "train small / test big (Table 8.3)", "main": "main (Table 8.5)"}
_UNITS = {"comm_s": "[s]", "latency_us": "[µs]"}
_TABLE_6_3_COLUMNS = {"message_size_bytes": "size", "processes_per_node": "PpN", "datagen_s": "data gen. [s]",
                      "published_prediction_s": "printed pred. [s]", "formula_prediction_s": "formula [s]",
                      "formula_percentage_error": "formula error [%]",
                      "published_exchange_x32_s": "printed 32×Exch. [s]",
                      "exchange_x32_s": "32×Table 6.1 [s]", "discrepancy": "discrepancy"}


# ----------------------------------------------------------------------- semi-empirical


@dataclass(frozen=True)
class SemiEmpiricalState:
    """The Exchange model's parameters ([Branikas2024] section 6.2).

    ``base_us``: the time (µs) at 1 PpN and 4 KiB; ``size_factor``: the factor per message
    size step.
    """

    base_us: float = TABLE_6_2_BASE_US
    size_factor: float = SIZE_FACTOR


@dataclass(frozen=True)
class SemiEmpiricalPanels:
    """The semi-empirical section's panels.

    ``main`` (Figs. 6.4/6.5 on Table 6.1), ``table_6_3`` (HTML: printed vs recomputed),
    ``readout_rows`` (``label -> text``) and the recomputed ``table`` (Table 6.1).
    """

    main: go.Figure
    table_6_3: str
    readout_rows: Mapping[str, str]
    table: pd.DataFrame

    @property
    def readout(self) -> str:
        """The readout rows as an HTML table."""
        return readout_html(self.readout_rows)


def semi_empirical_view(state: SemiEmpiricalState) -> SemiEmpiricalPanels:
    """Table 6.1 and Tables 6.3/6.4 recomputed with the state's parameters, and their figure.

    Parameters
    ----------
    state : SemiEmpiricalState
        The base time and the size factor chosen.
    """
    base, factor = state.base_us, state.size_factor
    table = reproduce_table_6_1(base_us=base, size_factor=factor)
    check = table_6_3_check(base_us=base, size_factor=factor)
    shown = check[list(_TABLE_6_3_COLUMNS)].rename(columns=_TABLE_6_3_COLUMNS)
    shown["size"] = [value_label("bytes", s).replace(" ", "\u00a0") for s in check["message_size_bytes"]]
    err, formula = table["percentage_error"], check["formula_percentage_error"]
    return SemiEmpiricalPanels(
        main=semi_empirical_figure(table),
        table_6_3=frame_html(shown, "Printed values vs recomputed; a non-empty discrepancy names what differs "
                                    "(the thesis's known inconsistencies are not fitted)"),
        readout_rows={
            "model": f"time = PpN × {factor:g} × (size / 4 KiB) × {base:.4g} µs",
            "error on Table 6.1 (thesis sign)": f"{err.min():+.1f} … {err.max():+.1f} %, mean |error| "
                                                f"{err.abs().mean():.1f} %",
            "Table 6.3 with this formula": f"{formula.min():.1f} … {formula.max():.1f} % (data generator under-"
                                           "predicted)",
        },
        table=table)


# ----------------------------------------------------------------------- per-rank


def varying_features(per_rank: pd.DataFrame | None) -> list[str]:
    """Return the run settings that take several values in ``per_rank`` (the group-by choices).

    The settings are :data:`~workbench.models.comm.statistics.RUN_FEATURES`.

    Parameters
    ----------
    per_rank : pandas.DataFrame or None
        Per-rank rows of the data generator (None: no data).
    """
    if per_rank is None:
        return []
    return [c for c in RUN_FEATURES if c in per_rank.columns and per_rank[c].nunique() > 1]


def run_options(per_rank: pd.DataFrame | None, varying: list[str]) -> list[tuple[str, int]]:
    """``(label, run_id)`` per run, the label naming its ``varying`` settings.

    Parameters
    ----------
    per_rank : pandas.DataFrame or None
        Per-rank rows (None: no options).
    varying : list of str
        The settings named in each label.
    """
    if per_rank is None:
        return []
    runs = per_rank.groupby("run_id", sort=True)[varying].first()
    return [(f"run {rid}: " + ", ".join(f"{c} = {value_label(c, row[c])}" for c in varying), rid)
            for rid, row in runs.iterrows()]


@dataclass(frozen=True)
class RankState:
    """The per-rank section's data and controls.

    ``per_rank``: per-rank rows (COMM_SCHEMA, ``None``: not available); ``by``: the
    feature to group by; ``reference``: the run whose other settings the shown runs share;
    ``value``: the timer shown.
    """

    per_rank: pd.DataFrame | None
    by: str
    reference: int
    value: str = "comm_s"


@dataclass(frozen=True)
class RankPanels:
    """The per-rank section's panels.

    ``box``, ``density`` and ``band`` figures, the statistics ``table`` (HTML) and the
    selected per-rank rows (``ranks``).
    """

    box: go.Figure
    density: go.Figure
    band: go.Figure
    table: str
    ranks: pd.DataFrame


def selected_ranks(state: RankState) -> pd.DataFrame:
    """Return the per-rank rows of the runs that differ from the reference run only in the group-by feature.

    Those share every setting not linked to the group-by feature with the reference run
    (:func:`~workbench.models.comm.statistics.runs_varying`).

    Parameters
    ----------
    state : RankState
        The data, the group-by feature and the reference run.
    """
    if state.per_rank is None:
        raise ValidationError("no per-rank data: our data-generator sweep (comm-datagen-local) is unavailable")
    if state.value not in TIMERS:
        raise ValidationError(f"the timer must be one of {list(TIMERS)}, got {state.value!r}")
    return runs_varying(state.per_rank, state.by, state.reference)


def rank_view(state: RankState) -> RankPanels:
    """Draw the per-rank distributions of the selected runs.

    Box plots, densities with the normal overlay, the mean +- std band and the statistics
    (normality tests where the number of ranks allows).

    Parameters
    ----------
    state : RankState
        The data, the group-by feature, the reference run and the timer.
    """
    ranks = selected_ranks(state)
    by, value = state.by, state.value
    stats = rank_statistics(ranks, by=by, value=value)
    runs = ranks["run_id"].nunique()
    shown = stats.copy()
    shown[by] = [value_label(by, v) for v in shown[by]]
    return RankPanels(
        box=rank_box_figure(ranks, by, value, title=f"Per-rank {value} by {by} ({runs} run{'s' if runs > 1 else ''}, "
                                                    f"{len(ranks)} rank times)"),
        density=rank_density_figure(ranks, by, value),
        band=mean_std_band_figure(stats, by, value_label_text=value),
        table=frame_html(shown, f"Per-rank statistics of {value} (a small p-value rejects normality)"),
        ranks=ranks)


# ----------------------------------------------------------------------- gradient boosting


@dataclass(frozen=True)
class TrainRequest:
    """Everything a training depends on (compared to skip stale work, cache key).

    The source and scenario, the comm/total filter ``low``..``high`` (our sweep), the test
    share and seed, and the search (candidates, folds, parameter ranges, log target).
    """

    source: str
    scenario: str
    low: float
    high: float
    test_size: float
    seed: int
    n_iter: int
    cv: int
    learning_rate: tuple[float, float]
    max_depth: tuple[int, int]
    n_estimators: tuple[int, int]
    log_target: bool


def color_choices(result: ScenarioResult) -> tuple[list[str], str]:
    """Return the columns the prediction figure can be coloured by, and the default.

    The thesis colours train small / test big by nodes (Fig. 8.3), the others by message
    size.

    Parameters
    ----------
    result : ScenarioResult
        A trained scenario.
    """
    options = ["subset", *result.features, "error_pct"]
    sizes = next((c for c in ("message_bytes", "size_bytes") if c in options), "subset")
    wanted = result.column if result.scenario == "train_small_test_big" and result.column in options else sizes
    return options, wanted


def prediction_figure(result: ScenarioResult, color_by: str) -> go.Figure:
    """Draw predicted vs actual of the test subsets, coloured by ``color_by``.

    Parameters
    ----------
    result : ScenarioResult
        A trained scenario.
    color_by : str
        A feature column of its predictions.
    """
    options, _ = color_choices(result)
    if color_by not in options:
        raise ValidationError(f"colour by must be one of {options}, got {color_by!r}")
    return prediction_vs_actual_figure(result.predictions, color_by, unit=_UNITS.get(result.target, ""),
                                       title=f"{SCENARIO_LABELS[result.scenario]}: predicted vs actual "
                                             f"{result.target}")


@dataclass(frozen=True)
class TrainingState:
    """A trained scenario and how it is shown.

    ``color_by``: the colour of its prediction figure (``None``: the default of
    :func:`color_choices`); ``seconds``: how long the training took.
    """

    result: ScenarioResult
    color_by: str | None = None
    seconds: float = float("nan")


@dataclass(frozen=True)
class TrainingPanels:
    """The gradient-boosting section's panels.

    ``prediction`` and ``importance`` figures, ``metrics`` (HTML: ours beside Tables
    8.1/8.3/8.5, best parameters), ``warnings`` (text, ``None``: none), ``status`` (HTML),
    the colour choices and the colour used.
    """

    prediction: go.Figure
    importance: go.Figure
    metrics: str
    warnings: str | None
    status: str
    color_options: list[str]
    color_by: str


def _parameters(result: ScenarioResult) -> str:
    return "; ".join(f"{m}: " + ", ".join(f"{k} = {v:.3g}" if isinstance(v, float) else f"{k} = {v}"
                                          for k, v in p.items()) for m, p in result.best_params.items())


def training_view(state: TrainingState) -> TrainingPanels:
    """Return the panels of a trained scenario.

    Parameters
    ----------
    state : TrainingState
        The trained scenario and the colour chosen.
    """
    result = state.result
    options, default = color_choices(result)
    color_by = default if state.color_by is None else state.color_by
    fit = ", ".join(f"{m}: {s:.1f} s" for m, s in result.fit_seconds.items())
    ours = result.metrics.drop(columns=["scenario", "published_subset"])
    metrics = (
        frame_html(ours, f"Our test metrics ({result.description}; RMSE in {result.target}, MAPE in % and as a "
                         "fraction, MPE > 0 = over-prediction)")
        + frame_html(compare_with_tables8(result.metrics), "Beside the thesis (Tables 8.1/8.3/8.5: ARIS data "
                     "generator, RMSE in s, MAPE as a fraction; only R2 and MAPE compare across data)")
        + f"<p style='font-size:12px'>best parameters: {html.escape(_parameters(result))}<br>search + refit: "
          f"{html.escape(fit)}</p>")
    return TrainingPanels(
        prediction=prediction_figure(result, color_by), importance=importance_figure(result.importances),
        metrics=metrics, warnings="\n".join(result.warnings) or None,
        status=(f"<span style='font-size:12px;color:#555'>{SCENARIO_LABELS[result.scenario]} trained in "
                f"{state.seconds:.1f} s</span>"),
        color_options=options, color_by=color_by)


# ----------------------------------------------------------------------- all sections


@dataclass(frozen=True)
class CommMLState:
    """The three sections' states (``None``: the section has nothing to show)."""

    semi: SemiEmpiricalState = SemiEmpiricalState()
    ranks: RankState | None = None
    training: TrainingState | None = None


@dataclass(frozen=True)
class CommMLPanels:
    """The three sections' panels (``None`` where the state was ``None``)."""

    semi: SemiEmpiricalPanels
    ranks: RankPanels | None
    training: TrainingPanels | None


def comm_ml_view(state: CommMLState) -> CommMLPanels:
    """Every panel of ``state``.

    Parameters
    ----------
    state : CommMLState
        The states of the three sections.

    Raises
    ------
    ValidationError
        No per-rank data for a rank state, an unknown timer or colour, a reference run
        that is not in the data.
    """
    if state.training is not None and state.training.result.scenario not in SCENARIOS:
        raise ValidationError(f"unknown scenario {state.training.result.scenario!r}; available: {list(SCENARIOS)}")
    return CommMLPanels(
        semi=semi_empirical_view(state.semi),
        ranks=None if state.ranks is None else rank_view(state.ranks),
        training=None if state.training is None else training_view(state.training))
