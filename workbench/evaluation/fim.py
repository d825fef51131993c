"""FiM vs RBASP on measured runs.

Train on small configurations, predict larger ones, score as the paper's Table 4 (best /
average / worst relative error, predicted vs actual optimal process count) plus Spearman's
rank correlation of the process counts.

Frames (tidy, one row per measured run; see :mod:`workbench.measure.sweep`):

* ``runs`` -- application parameters (``features``), ``processes``, ``calc_time_s``
  (seconds), hardware counters, ``role`` ("train"/"test"), ``repeat``.
* :func:`aggregate_runs` -- one row per (configuration, processes): ``calc_time_s`` is the
  median of the repeats, ``calc_time_min_s`` / ``calc_time_max_s`` the range (the paper's
  range bars), ``repeats`` the count; counters are medians too.
* :func:`compare_predictions` -> :class:`Comparison` with ``per_run`` (configuration,
  ``processes``, ``model``, ``actual_s``, ``predicted_s``, ``error_pct``), ``per_config``
  (configuration, ``model``, ``actual_optimal``, ``predicted_optimal``, ``spearman``) and
  ``summary`` (one row per model: ``best_pct``, ``average_pct``, ``worst_pct``,
  ``within_20_pct`` (share of predictions within 20 %), ``optimal_matches``,
  ``configs``, ``mean_spearman``, ``missing`` (predictions refused: invalid hardware)).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import clone

from workbench.errors import ValidationError, quiet_warnings
from workbench.metrics import spearman
from workbench.models.fim import RBASP, FiMCal
from workbench.validation import require_columns

__all__ = ["KMEANS_FEATURES", "KMEANS_WORK_FEATURES", "aggregate_runs", "Comparison", "compare_predictions",
           "default_variants", "FiMExperiment", "run_fim_experiment"]

#: Application parameters of the K-means workload (paper section 2.2.1: I, K, N).
KMEANS_FEATURES = ("iterations", "clusters", "points")
_COUNTERS = ("cycles", "stall_cycles", "utilization", "freq_hz")


def aggregate_runs(runs: pd.DataFrame, features=KMEANS_FEATURES, target: str = "calc_time_s") -> pd.DataFrame:
    """Median over repeats per (configuration, processes), with the min-max range.

    Parameters
    ----------
    runs : pandas.DataFrame
        Measured runs, repeats as separate rows.
    features : sequence of str, default KMEANS_FEATURES
        The configuration columns.
    target : str, default "calc_time_s"
        The measured time column, seconds.
    """
    keys = [*features, "processes"]
    require_columns(runs, [*keys, target], "aggregate_runs")
    runs = runs.copy(deep=False)
    runs.attrs = {}  # pandas deep-copies attrs (the sweep's metadata) on every operation
    extra = [c for c in _COUNTERS if c in runs.columns]
    grouped = runs.groupby(keys + (["role"] if "role" in runs.columns else []), sort=True)
    out = grouped[[target, *extra]].median()
    out[f"{target.removesuffix('_s')}_min_s"] = grouped[target].min()
    out[f"{target.removesuffix('_s')}_max_s"] = grouped[target].max()
    out["repeats"] = grouped[target].size()
    return out.reset_index()


@dataclass(frozen=True)
class Comparison:
    """Scores of several models on the same measured runs (see the module docstring)."""

    per_run: pd.DataFrame
    per_config: pd.DataFrame
    summary: pd.DataFrame


def compare_predictions(actual: pd.DataFrame, predictions: Mapping[str, np.ndarray], features=KMEANS_FEATURES,
                        target: str = "calc_time_s") -> Comparison:
    """Score ``predictions`` (model name -> seconds per row of ``actual``; NaN = refused).

    Parameters
    ----------
    actual : pandas.DataFrame
        The measured runs predicted.
    predictions : mapping of str to ndarray
        Model name -> predicted seconds per row of ``actual`` (NaN: refused).
    features : sequence of str, default KMEANS_FEATURES
        The configuration columns.
    target : str, default "calc_time_s"
        The measured time column, seconds.
    """
    where = "compare_predictions"
    keys = [*features, "processes"]
    require_columns(actual, [*keys, target], where)
    if not predictions:
        raise ValidationError(f"{where}: no predictions to compare")
    if np.any(actual[target].to_numpy(dtype=float) <= 0):
        raise ValidationError(f"{where}: measured {target!r} must be > 0")
    parts = []
    for name, pred in predictions.items():
        pred = np.asarray(pred, dtype=float)
        if pred.shape != (len(actual),):
            raise ValidationError(f"{where}: predictions of {name!r} have shape {pred.shape}, "
                                  f"expected ({len(actual)},)")
        part = actual[keys].copy()
        part["model"] = name
        part["actual_s"] = actual[target].to_numpy(dtype=float)
        part["predicted_s"] = pred
        parts.append(part)
    per_run = pd.concat(parts, ignore_index=True)
    per_run["error_pct"] = np.abs(per_run["predicted_s"] - per_run["actual_s"]) / per_run["actual_s"] * 100
    configs = []
    for (name, *config), group in per_run.groupby(["model", *features], sort=False):
        ok = group.dropna(subset=["predicted_s"])
        row = dict(zip(features, config, strict=True), model=name,
                   actual_optimal=int(group.loc[group["actual_s"].idxmin(), "processes"]),
                   predicted_optimal=int(ok.loc[ok["predicted_s"].idxmin(), "processes"]) if len(ok) else np.nan,
                   spearman=spearman(ok["actual_s"], ok["predicted_s"]) if len(ok) >= 2 else np.nan)
        configs.append(row)
    per_config = pd.DataFrame(configs)
    summary = []
    for name in predictions:
        runs_m = per_run[per_run["model"] == name]
        err = runs_m["error_pct"].dropna()
        conf = per_config[per_config["model"] == name]
        summary.append(dict(
            model=name,
            best_pct=err.min() if len(err) else np.nan,
            average_pct=err.mean() if len(err) else np.nan,
            worst_pct=err.max() if len(err) else np.nan,
            within_20_pct=float((err <= 20).mean() * 100) if len(err) else np.nan,
            optimal_matches=int((conf["actual_optimal"] == conf["predicted_optimal"]).sum()),
            configs=len(conf),
            mean_spearman=conf["spearman"].mean(),
            missing=int(runs_m["predicted_s"].isna().sum()),
        ))
    return Comparison(per_run=per_run, per_config=per_config, summary=pd.DataFrame(summary))


#: The K-means work terms: distances cost ~ I N K, assignment and sums ~ I N.
KMEANS_WORK_FEATURES = ("iterations*points", "iterations*clusters*points")


def default_variants(features=KMEANS_FEATURES, work_features=KMEANS_WORK_FEATURES) -> dict:
    """Model name -> unfitted estimator.

    FiM as published (Eq. 11 on the plain parameters), FiM on work terms of the application
    (beyond the paper: Eq. 11 is linear in whatever features it is given; for K-means TC ~
    I N (a + b K)), the same with alpha scaling only TC and SC (Eq. 12 scaling U too caps
    alpha at ~1/U, see FiMCal), RBASP with linear and quadratic g(q) as published, and
    RBASP on log2 of the inputs (a power-law variant).

    Parameters
    ----------
    features : sequence of str, default KMEANS_FEATURES
        Application parameters of the published variants.
    work_features : sequence of str, default KMEANS_WORK_FEATURES
        Work terms of the application (products of parameters) for the work variants.
    """
    return {
        "FiM (I, K, N)": FiMCal(features),
        "FiM (I*N, I*K*N)": FiMCal(work_features),
        "FiM (I*N, I*K*N), U not scaled": FiMCal(work_features, scale_utilization=False),
        "RBASP linear g": RBASP(features, g="linear"),
        "RBASP quadratic g": RBASP(features, g="quadratic"),
        "RBASP log2 inputs": RBASP(features, g="linear", log_features=True),
    }


@dataclass(frozen=True)
class FiMExperiment:
    """Models fitted on the ``train`` runs and scored on the ``test`` runs (both aggregated over repeats).

    ``predictions`` maps model name -> seconds per ``test`` row.
    """

    train: pd.DataFrame
    test: pd.DataFrame
    models: dict
    predictions: dict
    comparison: Comparison
    warnings: list[str] = field(default_factory=list)


def run_fim_experiment(runs: pd.DataFrame, variants: Mapping | None = None, features=KMEANS_FEATURES,
                       target: str = "calc_time_s") -> FiMExperiment:
    """Fit every variant on the runs with ``role == "train"`` and predict the ``"test"`` runs.

    A variant that cannot be fitted (e.g. too few training configurations) is reported in
    ``warnings`` and left out, so the others can still be compared.

    Parameters
    ----------
    runs : pandas.DataFrame
        Measured runs with a ``role`` column (``"train"`` or ``"test"``).
    variants : mapping of str to estimator, optional
        Model name -> unfitted estimator; default :func:`default_variants`.
    features : sequence of str, default KMEANS_FEATURES
        The configuration columns.
    target : str, default "calc_time_s"
        The measured time column, seconds.
    """
    where = "run_fim_experiment"
    require_columns(runs, [*features, "processes", target], where)
    if "role" not in runs.columns:
        raise ValidationError(f"{where}: missing column 'role' ('train' / 'test' per run)")
    data = aggregate_runs(runs, features, target)
    train = data[data["role"] == "train"].reset_index(drop=True)
    test = data[data["role"] == "test"].reset_index(drop=True)
    for name, part in (("train", train), ("test", test)):
        if part.empty:
            raise ValidationError(f"{where}: no runs with role == {name!r}")
    variants = default_variants(features) if variants is None else variants
    models, predictions, notes = {}, {}, []
    for name, estimator in variants.items():
        try:
            with quiet_warnings():  # the experiment's notes list them
                model = clone(estimator).fit(train)
        except ValidationError as exc:
            notes.append(f"{name}: not fitted: {exc}")
            continue
        models[name] = model
        predictions[name] = model.predict(test)
        notes.extend(f"{name}: {w}" for w in getattr(model, "warnings_", []))
    if not predictions:
        raise ValidationError(f"{where}: no model could be fitted: " + "; ".join(notes))
    return FiMExperiment(train=train, test=test, models=models, predictions=predictions,
                         comparison=compare_predictions(test, predictions, features, target), warnings=notes)
