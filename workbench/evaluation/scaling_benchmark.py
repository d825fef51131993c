"""A benchmark of the n -> t scaling models and the predictor on real curves that anyone can rerun.

Protocols (what a user has measured, what they ask):

* ``k3`` / ``k4``: the 3 / 4 smallest allocations are measured (all their runs), every larger
  allocation is predicted (extrapolation);
* ``spread``: every other allocation is measured (the 1st, 3rd, 5th, ...), the others are
  predicted (mostly interpolation, the last one possibly an extrapolation).

The actual runtime at a predicted allocation is the median of its runs.  Every model is fitted
once per (curve, protocol) inside a :class:`~workbench.models.scaling.ScalingPredictor`, which
also records the leave-largest-out cross-validation errors; :func:`benchmark_records` keeps all
of it as raw records, so that the parts learnt from data (interval calibration, the
predictor's temperature and warning threshold, :mod:`workbench.models.scaling.calibration`)
can be refitted per fold without refitting a model.

Curves of one source are correlated, so every learnt number is evaluated
*leave-one-source-out* (:func:`leave_one_source_out`): calibrate on the other sources, score
on the held-out one.  :func:`leaderboard` and :func:`warning_table` summarise; the README
tables come from ``tools/scaling_benchmark.py``.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from workbench.errors import DataFormatError, ValidationError, quiet_warnings
from workbench.io import development_curves
from workbench.io.curves import validate_curves
from workbench.models.scaling import MODELS, ScalingPredictor
from workbench.models.scaling.base import allocation_medians
from workbench.models.scaling.calibration import (
    FEATURES,
    PREDICTOR_FEATURES,
    PROBABILITIES,
    Calibration,
    fit_error_model,
    miss_probability,
    novelty_stats,
)
from workbench.models.scaling.predictor import (
    THRESHOLDS,
    WARNING_KINDS,
    combine,
    is_warned,
    softmin_weights,
    verdicts,
    warning_kinds,
    weighted_cv_error,
)
from workbench.validation import check_unit

__all__ = [
    "PROTOCOLS",
    "MISS",
    "protocol_split",
    "benchmark_records",
    "fit_calibration",
    "apply_calibration",
    "leave_one_source_out",
    "leaderboard",
    "warning_table",
    "source_weighted",
    "speed_table",
    "HOW_TO_BENCH",
    "benchmark_curves",
    "read_benchmark_results",
    "curve_topology",
]

PROTOCOLS = ("k3", "k4", "spread")
#: A prediction "misses" when its relative error exceeds this (the warning classifier's target).
MISS = THRESHOLDS["miss"].value
#: Softmin temperatures tried when calibrating the predictor (inf: equal weights).
TEMPERATURES = (np.inf, 0.02, 0.05, 0.1, 0.2, 0.5)
_NEUTRAL = Calibration(error_models={}, cv_prior={}, temperature=np.inf, risk_threshold=1.0)


def protocol_split(allocations: np.ndarray, protocol: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the (measured, predicted) allocations of a protocol.

    None when the curve is too short (k3 needs 4 allocations, k4 and spread 5).

    Parameters
    ----------
    allocations : ndarray of float
        The curve's distinct allocations, ascending.
    protocol : {"k3", "k4", "spread"}
        The protocol (:data:`PROTOCOLS`).
    """
    a = np.sort(np.asarray(allocations, float))
    if protocol in ("k3", "k4"):
        k = int(protocol[1])
        return (a[:k], a[k:]) if a.size > k else None
    if protocol == "spread":
        return (a[::2], a[1::2]) if a.size >= 5 else None
    raise ValidationError(f"unknown protocol {protocol!r}; use one of {', '.join(PROTOCOLS)}")


def curve_topology(runs: pd.DataFrame) -> tuple[str, float | None, np.ndarray | None]:
    """Return a curve's allocation unit, units per node and nodes per run, from its topology columns.

    ``unit`` from the curve's ``unit`` column (processes when unknown); ``per_node`` from
    ``cores_per_node`` (processes, cores) or ``gpus_per_node`` (GPUs) when the curve states one
    value; nodes per run from a ``nodes`` column known for every run (None otherwise).

    Parameters
    ----------
    runs : pandas.DataFrame
        One curve's rows of a curve table.
    """
    try:  # the one alias table of units (check_unit); a unit it does not know counts as processes
        unit = check_unit(runs["unit"].iloc[0] if "unit" in runs.columns else None, "curve_topology")
    except ValidationError:
        unit = "processes"
    column = {"processes": "cores_per_node", "cores": "cores_per_node", "gpus": "gpus_per_node"}.get(unit)
    per_node = None
    if column in runs.columns:
        values = pd.to_numeric(runs[column], errors="coerce").dropna().unique()
        per_node = float(values[0]) if values.size == 1 and values[0] >= 1 else None
    nodes = None
    if unit != "nodes" and "nodes" in runs.columns:
        values = pd.to_numeric(runs["nodes"], errors="coerce").to_numpy(float)
        nodes = values if np.isfinite(values).all() and (values >= 1).all() else None
    return unit, per_node, nodes


def benchmark_records(curves: pd.DataFrame, protocols: Sequence[str] = PROTOCOLS, models: Sequence[str] = tuple(MODELS),
                      progress: bool = True) -> pd.DataFrame:
    """Fit every model on every (curve, protocol) and predict the held-back allocations.

    ``curves``: a curve table (:mod:`workbench.io.curves`).  Returns one row per (curve,
    protocol, target, model): ``curve_id``, ``source``, ``protocol``, ``model``, ``n``
    (target), ``actual`` (median runtime there, seconds), ``prediction`` (NaN: refused or not
    fitted), ``distance`` (log2 target / largest measured), ``n_points`` (distinct allocations
    measured), ``fit_error`` (in-sample RMS log residual), ``cv_error`` (the model's
    leave-largest-out mean absolute log error on the measured allocations, NaN when the curve
    was too short), ``fit_ms`` (the model's fit on the measured runs), ``failure`` (why it
    could not be fitted), ``predictor_ms`` (the whole predictor fit plus the predictions of
    this curve's targets, same for every model of a (curve, protocol)).

    Parameters
    ----------
    curves : pandas.DataFrame
        A curve table (:mod:`workbench.io.curves`).
    protocols : sequence of str, default PROTOCOLS
        The protocols run.
    models : sequence of str, default tuple(MODELS)
        The scaling models compared.
    progress : bool, default True
        Show a progress bar.
    """
    curves = validate_curves(curves)
    groups = list(curves.groupby("curve_id", sort=False))
    rows = []
    for curve_id, runs in tqdm(groups, desc="curves", disable=not progress):
        n_all, t_all = runs["n"].to_numpy(float), runs["time_s"].to_numpy(float)
        alloc, med = allocation_medians(n_all, t_all)
        unit, per_node, nodes_all = curve_topology(runs)
        for protocol in protocols:
            split = protocol_split(alloc, protocol)
            if split is None:
                continue
            measured, targets = split
            keep = np.isin(n_all, measured)
            actual = med[np.isin(alloc, targets)]
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                predictor = ScalingPredictor(models=tuple(models), calibration=_NEUTRAL, unit=unit,
                                             per_node=per_node).fit(
                    n_all[keep], t_all[keep], nodes=None if nodes_all is None else nodes_all[keep])
                member = predictor.member_predictions(targets) if predictor.members_ else None
                sane = predictor.plausible_members(targets) if predictor.members_ else None
            elapsed_ms = (time.perf_counter() - start) * 1e3
            shape = predictor.descriptors_
            with np.errstate(invalid="ignore"):
                leaves = (predictor.measured_nodes_ == 1) & (predictor.target_nodes(targets) > 1)
            for name in models:
                fitted = predictor.members_.get(name)
                pred = member.loc[name].to_numpy(float) if fitted is not None else np.full(targets.size, np.nan)
                ok = sane.loc[name].to_numpy(bool) if fitted is not None else np.ones(targets.size, bool)
                for target, act, p, leave, good in zip(targets, actual, pred, leaves, ok):
                    rows.append({
                        "curve_id": curve_id, "source": runs["source"].iloc[0], "protocol": protocol, "model": name,
                        "n": target, "actual": act, "prediction": p,
                        "distance": float(np.log2(target / measured.max())), "n_points": int(measured.size),
                        "fit_error": fitted.fit_error_ if fitted is not None else np.nan,
                        "cv_error": predictor.cv_error_.get(name, np.nan),
                        "fit_ms": fitted.fit_time_s_ * 1e3 if fitted is not None else np.nan,
                        "failure": predictor.failures_.get(name, ""), "predictor_ms": elapsed_ms,
                        "data_warnings": tuple(w.kind for w in predictor.warnings_),
                        "leaves_node": float(leave), "plausible": bool(good), **shape,
                    })
    if not rows:
        raise ValidationError("no curve is long enough for the protocols (k3 needs 4 allocations, k4 and spread 5)")
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------ calibration


#: Per-record columns the interval features are read from (what a predictor knows at fit time).
FEATURE_COLUMNS = ("distance", "n_points", "fit_error", "disagreement", "cv_error", "noise", "last_exponent",
                   "mean_exponent", "roughness", "leaves_node", "novelty")
#: Per-(curve, protocol) shape of the measured runs (:func:`~workbench.models.scaling.predictor.curve_descriptors`).
SHAPE_COLUMNS = ("noise", "last_exponent", "mean_exponent", "max_exponent", "roughness", "falling", "t_last",
                 "n_max", "best_work", "leaves_node")


def _features(frame: pd.DataFrame) -> dict:
    features = {k: frame[k].to_numpy(float) for k in FEATURE_COLUMNS if k in frame.columns}
    if "best_work" in frame.columns:  # perfect scaling at the target, as ScalingPredictor's features have it
        features["perfect_scaling"] = frame["best_work"].to_numpy(float) / frame["n"].to_numpy(float)
    return features


def _fit_weights(frame: pd.DataFrame) -> np.ndarray:
    """Record weights for calibration: every (curve, protocol) fit counts once, however many targets it predicted.

    (Weighting every source equally instead was tried: it let the smallest, least typical
    source widen every interval, 85 % coverage for a nominal 80 %, and chose model
    combinations that carried over worse, leave-one-source-out.)
    """
    return 1.0 / frame.groupby(["curve_id", "protocol"])["n"].transform("size").to_numpy(float)


def _log_error(frame: pd.DataFrame) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(frame["actual"].to_numpy(float) / frame["prediction"].to_numpy(float))


class _Wide:
    """The models' rows of benchmark records side by side.

    One column per (curve, protocol, target), one row per model, so that the predictor's
    combination is one array operation.
    """

    def __init__(self, records: pd.DataFrame):
        self.models = list(dict.fromkeys(records["model"]))
        keys = ["curve_id", "source", "protocol", "n"]
        values = ["prediction", "cv_error", "fit_error"] + ["plausible"] * ("plausible" in records.columns)
        wide = records.set_index(keys + ["model"])[values].unstack("model")
        shape = [c for c in SHAPE_COLUMNS if c in records.columns]
        self.base = records.drop_duplicates(keys).set_index(keys).loc[
            wide.index, ["actual", "distance", "n_points", "predictor_ms", "data_warnings"] + shape]
        self.P, self.cv, self.fit = (wide[c].reindex(columns=self.models).to_numpy(float).T
                                     for c in ("prediction", "cv_error", "fit_error"))
        self.fitted = np.isfinite(self.fit)  # a model that was fitted has a fit error
        self.actual = self.base["actual"].to_numpy(float)
        self.fit_weight = _fit_weights(self.base.reset_index())
        self.keep = {"all": None}
        if "plausible" in values:  # judged by each fitted predictor (ScalingPredictor.plausible_members)
            self.keep["plausible"] = wide["plausible"].reindex(columns=self.models).fillna(True).to_numpy(bool).T

    def weights(self, cv_prior: dict, temperature: float, penalty: dict, cv_weight: float = 1.0) -> np.ndarray:
        prior = np.array([cv_prior.get(m, np.nan) for m in self.models])
        pen = np.array([penalty.get(m, 0.0) for m in self.models])
        w = softmin_weights(np.where(self.fitted, self.cv, np.nan), prior, temperature, pen, cv_weight)
        return np.where(self.fitted, w, 0.0)

    def score(self, w: np.ndarray, combination: str = "all") -> tuple[float, float]:
        """Score the combination with weights ``w``: (share within 20 %, minus the median relative error).

        Every (curve, protocol) fit counts once.
        """
        pred = combine(self.P, w, self.keep[combination])[0]
        rel = np.abs(pred - self.actual) / self.actual
        rel = np.where(np.isfinite(rel), rel, np.inf)
        weight = self.fit_weight
        order = np.argsort(rel)
        cum = np.cumsum(weight[order])
        median = rel[order][np.searchsorted(cum, 0.5 * cum[-1])]
        return float(np.sum(weight * (rel <= 0.2)) / weight.sum()), float(-median)

    def rows(self, w: np.ndarray, combination: str = "all") -> pd.DataFrame:
        """Return the predictor's rows: one per (curve, protocol, target)."""
        pred, spread, best = combine(self.P, w, self.keep[combination])
        out = self.base.reset_index()
        out["model"] = "predictor"
        out["prediction"] = pred
        out["disagreement"] = spread
        out["cv_error"] = weighted_cv_error(w, self.cv)
        out["chosen"] = [self.models[b] if b >= 0 else "" for b in best]
        out["fit_error"] = self.fit[np.maximum(best, 0), np.arange(best.size)]
        out.loc[best < 0, "fit_error"] = np.nan
        out["fit_ms"] = out["predictor_ms"]
        out["failure"] = np.where(np.isfinite(pred), "", "no model could be fitted")
        return out


#: Weights of the curve's own cross-validation error tried when calibrating the predictor.
CV_WEIGHTS = (0.5, 1.0)
#: Penalty of a model left out of the combination (log-error units: weight e^-EXCLUDED/T;
#: the predictor skips the cross-validation of such models).
EXCLUDED = 50.0


#: How members are combined (:func:`~workbench.models.scaling.predictor.combine`): all of them, or only
#: those whose extrapolation stays within what the measurements show (chosen on the data).
COMBINATIONS = ("all", "plausible")


def _fit_combination(wide: _Wide, cv_prior: dict, combinations: Sequence[str] = COMBINATIONS
                     ) -> tuple[float, float, dict, str]:
    """Choose the models to combine, the softmin temperature, the weight of cross-validation and the combination.

    Models with penalty 0 are combined, the others are :data:`EXCLUDED`; the choice maximises the share within 20 %
    (then the median PA) of the combination.  An exhaustive search over model subsets, :data:`TEMPERATURES`,
    :data:`CV_WEIGHTS` and :data:`COMBINATIONS`: few, discrete choices, because finer per-model penalties fitted this
    way did not carry over to held-out sources (leave-one-source-out).
    """
    best = None
    for combination in [c for c in combinations if c in wide.keep]:
        for size in range(1, len(wide.models) + 1):
            for subset in itertools.combinations(wide.models, size):
                penalty = {m: 0.0 if m in subset else EXCLUDED for m in wide.models}
                for temperature in TEMPERATURES if size > 1 else TEMPERATURES[:1]:
                    for cv_weight in CV_WEIGHTS if size > 1 else CV_WEIGHTS[:1]:
                        score = wide.score(wide.weights(cv_prior, temperature, penalty, cv_weight), combination)
                        if best is None or score > best[0]:
                            best = (score, temperature, cv_weight, penalty, combination)
    return best[1:]


def fit_calibration(records: pd.DataFrame, recall_goal: float = 0.91, provenance: dict | None = None,
                    combinations: Sequence[str] = COMBINATIONS) -> Calibration:
    """Learn a :class:`~workbench.models.scaling.calibration.Calibration` from benchmark records.

    Per model, an error model of its held-back log errors; the models' median
    cross-validation errors (the predictor's prior); the predictor's softmin temperature
    (the one of :data:`TEMPERATURES` giving the largest share within 20 % on these records,
    ties broken by the median error); the predictor's error model; and the warning threshold:
    the largest calibrated miss probability that still flags ``recall_goal`` of the
    predictor's misses (> 30 %) in these records.  The default 0.91 is one point above the
    goal of flagging 90 % of misses on sources the threshold was not chosen on: at 0.90,
    leave-one-source-out recall was 89 %.

    Parameters
    ----------
    records : pandas.DataFrame
        Benchmark records (:func:`benchmark_records`).
    recall_goal : float, default 0.91
        Share of the predictor's misses the warning threshold must flag.
    provenance : dict, optional
        What the calibration was learnt from, stored with it.
    combinations : sequence of str, default COMBINATIONS
        Ways of combining members the calibration may choose from.
    """
    error_models = {}
    for name, g in records.groupby("model", sort=False):
        g = g[np.isfinite(g["prediction"])]
        error_models[name] = fit_error_model(_log_error(g), _features(g), FEATURES, _fit_weights(g))
    fits = records.drop_duplicates(["curve_id", "protocol", "model"])
    cv_prior = fits.groupby("model")["cv_error"].median().dropna().to_dict()
    wide = _Wide(records)
    temperature, cv_weight, penalty, combination = _fit_combination(wide, cv_prior, combinations)
    comb = wide.rows(wide.weights(cv_prior, temperature, penalty, cv_weight), combination)
    comb = comb[np.isfinite(comb["prediction"])]
    weights = _calibration_weights(comb)
    centre, scale = novelty_stats(_features(comb), weights)
    cal = Calibration(error_models, cv_prior, float(temperature), 1.0, penalty, float(cv_weight),
                      dict(provenance or {}), combination, centre, scale)
    comb["novelty"] = cal.novelty(_features(comb))
    em = fit_error_model(_log_error(comb), _features(comb), PREDICTOR_FEATURES, weights)
    em = widen_for_unseen_sources(em, comb, weights)
    em = stretch_for_flag(em, comb, weights, "leaves_node")
    error_models["predictor"] = em
    risk = miss_probability(em, _features(comb), MISS)
    miss = _relative_error(comb) > MISS
    threshold = float(np.quantile(risk[miss], 1 - recall_goal)) if miss.any() else 1.0
    return Calibration(error_models, cv_prior, float(temperature), threshold, penalty, float(cv_weight),
                       dict(provenance or {}), combination, centre, scale)


#: The predictor's interval must hold on a source it has not seen: at least this share of the held-out
#: predictions of every calibration source (with at least :data:`GROUP_MIN_RECORDS`) inside the 80 % interval,
#: each source's errors standardised by a scale model fitted without it ...
GROUP_COVERAGE = 0.70
#: ... but no wider than gives this pooled coverage (a nominal 80 % interval that holds 90 % is too wide).
#: Below 0.90 by a margin: leave-one-source-out, the held-out pooled coverage runs 1-2 points above the
#: training pooled coverage (a target leaving the node also gets the perfect-scaling floor, which this
#: widening does not see; at 0.88 it was 90.5 %).
POOLED_COVERAGE_MAX = 0.87
GROUP_MIN_RECORDS = 20


def widen_for_unseen_sources(em, frame: pd.DataFrame, weights: np.ndarray, level: float = 0.8):
    """Widen an error model's standardised-error quantiles so that its interval holds on unseen sources.

    For every source of ``frame``, the scale model is refitted without it and its errors are
    standardised by that model (what a new source sees); the quantiles of ``em`` are stretched
    about their median by the smallest factor >= 1 that brings each source with at least
    :data:`GROUP_MIN_RECORDS` predictions to :data:`GROUP_COVERAGE` at ``level``, capped where the
    pooled coverage would pass :data:`POOLED_COVERAGE_MAX`.  Returns a new ErrorModel (``em``
    unchanged when it already holds, or with fewer than two sources).

    Parameters
    ----------
    em : ErrorModel
        The error model to widen.
    frame : pandas.DataFrame
        The records it was fitted on, with a ``source`` column.
    weights : ndarray of float
        Weight per record.
    level : float, default 0.8
        Interval level whose coverage is calibrated.
    """
    sources = frame["source"].to_numpy()
    names = [s for s in dict.fromkeys(sources) if (sources == s).sum() >= GROUP_MIN_RECORDS]
    if len(set(sources)) < 2 or not names:
        return em
    e, features = _log_error(frame), _features(frame)
    z = np.full(len(frame), np.nan)
    for name in dict.fromkeys(sources):
        out = sources == name
        try:
            inner = fit_error_model(e[~out], {k: v[~out] for k, v in features.items()}, em.features,
                                    weights[~out])
        except ValidationError:
            continue
        z[out] = _half_widths(inner, frame[out], level)  # what a new source sees
    ok = np.isfinite(z)
    factors = np.linspace(1.0, 4.0, 61)
    inside = np.abs(z[ok])[None, :] <= factors[:, None]
    w = weights[ok]
    pooled = (inside * w).sum(axis=1) / w.sum()
    group = np.array([inside[:, sources[ok] == name].mean(axis=1) for name in names])
    enough = (group >= GROUP_COVERAGE).all(axis=0)
    factor = factors[np.argmax(enough)] if enough.any() else factors[-1]
    cap = factors[np.argmax(pooled > POOLED_COVERAGE_MAX)] if (pooled > POOLED_COVERAGE_MAX).any() else factors[-1]
    factor = max(1.0, min(factor, cap))
    if factor == 1.0:
        return em
    q = np.asarray(em.quantiles)
    mid = np.interp(0.5, PROBABILITIES, q)
    return replace(em, quantiles=tuple(map(float, mid + factor * (q - mid))))


def _half_widths(em, frame: pd.DataFrame, level: float) -> np.ndarray:
    """Each record's log error in units of ``em``'s half-width about its median (|z| <= 1: inside)."""
    e, f = _log_error(frame), _features(frame)
    lo, mid, hi = (em.error_quantile(f, q) for q in ((1 - level) / 2, 0.5, (1 + level) / 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(e >= mid, (e - mid) / (hi - mid), (e - mid) / (mid - lo))


def stretch_for_flag(em, frame: pd.DataFrame, weights: np.ndarray, flag: str, level: float = 0.8):
    """Store in ``em`` how much wider the interval of records flagged ``flag`` must be to hold at ``level``.

    The smallest factor >= 1 that brings the flagged records (every (curve, protocol) fit
    weighted once) to ``level`` coverage; unchanged when fewer than :data:`GROUP_MIN_RECORDS`
    records are flagged (nothing to calibrate on).  E.g. ``leaves_node``: targets that need more
    nodes than the single node every measurement ran on.

    Parameters
    ----------
    em : ErrorModel
        The error model (changed in place).
    frame : pandas.DataFrame
        The records; those with ``flag`` > 0 are flagged (none when the column is absent).
    weights : ndarray of float
        Weight per record.
    flag : str
        The flag column (e.g. ``"leaves_node"``).
    level : float, default 0.8
        Interval level whose coverage is calibrated.
    """
    flagged = frame[flag].to_numpy(float) > 0 if flag in frame.columns else np.zeros(len(frame), bool)
    if flagged.sum() < GROUP_MIN_RECORDS:
        return em
    z = np.abs(_half_widths(em, frame, level))[flagged]
    w = weights[flagged]
    ok = np.isfinite(z)
    factors = np.linspace(1.0, 6.0, 101)
    coverage = ((z[ok][None, :] <= factors[:, None]) * w[ok]).sum(axis=1) / w[ok].sum()
    factor = float(factors[np.argmax(coverage >= level)] if (coverage >= level).any() else factors[-1])
    return replace(em, stretch=tuple((k, v) for k, v in em.stretch if k != flag) + ((flag, factor),))


#: How the predictor's error model weighs its records: ``"fit"`` (every (curve, protocol) fit once) or
#: ``"source"`` (every source once, its fits equally).
SOURCE_BALANCE = "fit"


def _calibration_weights(frame: pd.DataFrame) -> np.ndarray:
    w = _fit_weights(frame)
    if SOURCE_BALANCE == "source":
        total = pd.Series(w).groupby(frame["source"].to_numpy()).transform("sum").to_numpy(float)
        w = w / total
    return w


def _relative_error(frame: pd.DataFrame) -> np.ndarray:
    actual = frame["actual"].to_numpy(float)
    return np.abs(frame["prediction"].to_numpy(float) - actual) / actual


def apply_calibration(records: pd.DataFrame, calibration: Calibration, level: float = 0.8) -> pd.DataFrame:
    """Return the rows of every model and the predictor with intervals and warnings.

    Columns ``lower``/``upper`` (``level`` interval), ``miss_probability`` and ``warned``
    (predictor rows: its warning rule; single models: NaN, they have no calibrated warning
    rule), plus ``warnings`` kinds for the predictor.

    Parameters
    ----------
    records : pandas.DataFrame
        Benchmark records.
    calibration : Calibration
        The calibration applied.
    level : float, default 0.8
        Interval level.
    """
    parts = []
    for name, g in records.groupby("model", sort=False):
        g = g.copy()
        lo, hi = calibration.interval(name, g["prediction"].to_numpy(float), _features(g), level)
        g["lower"], g["upper"] = lo, hi
        g["warned"] = np.nan  # a single model has no calibrated warning rule
        g["warnings"] = [()] * len(g)
        parts.append(g)
    wide = _Wide(records)
    comb = wide.rows(wide.weights(calibration.cv_prior, calibration.temperature, calibration.penalty,
                                  calibration.cv_weight), calibration.combination)
    comb["novelty"] = calibration.novelty(_features(comb))
    em = calibration.error_model("predictor")
    f = _features(comb)
    comb["lower"], comb["upper"] = calibration.interval("predictor", comb["prediction"].to_numpy(float), f, level)
    comb["miss_probability"] = miss_probability(em, f, MISS)
    comb["warnings"] = warning_kinds(comb["prediction"], comb["miss_probability"], calibration.risk_threshold,
                                     list(comb["data_warnings"]), comb["distance"], comb["disagreement"],
                                     comb["fit_error"], comb["novelty"], comb.get("leaves_node"))
    comb["warned"] = [is_warned(k) for k in comb["warnings"]]
    comb["verdict"] = verdicts(comb["warnings"], comb["miss_probability"], comb["warned"])
    parts.append(comb)
    return pd.concat(parts, ignore_index=True)


def leave_one_source_out(records: pd.DataFrame, level: float = 0.8, progress: bool = True,
                         combinations: Sequence[str] = COMBINATIONS) -> pd.DataFrame:
    """Calibrate on every source but one, apply to that one, for each source.

    The result has the columns of :func:`apply_calibration` plus ``fold`` (the held-out
    source).  ``combinations``: the ways of combining members the calibration may choose
    from (:data:`COMBINATIONS`; ``("all",)`` scores the combination without the
    plausibility rule).

    Parameters
    ----------
    records : pandas.DataFrame
        Benchmark records.
    level : float, default 0.8
        Interval level.
    progress : bool, default True
        Show a progress bar.
    combinations : sequence of str, default COMBINATIONS
        Ways of combining members the calibration may choose from (``("all",)`` scores the
        combination without the plausibility rule).
    """
    sources = list(dict.fromkeys(records["source"]))
    if len(sources) < 2:
        raise ValidationError("leave-one-source-out needs curves from at least 2 sources")
    parts = []
    for source in tqdm(sources, desc="folds", disable=not progress):
        train = records[records["source"] != source]
        test = records[records["source"] == source]
        cal = fit_calibration(train, combinations=combinations)
        out = apply_calibration(test, cal, level)
        out["fold"] = source
        parts.append(out)
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------- summaries


def leaderboard(results: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Summarise benchmark results per model (and ``by`` groups).

    Columns ``predictions``, ``refused``, ``median_pa`` (PA = 100 - 100 |pred - actual| / actual),
    ``within_10``, ``within_20`` (shares of all predictions; refused ones count as outside),
    ``coverage`` (share of actual runtimes inside the interval), ``median_width`` (median
    upper / lower), ``constant_width`` (upper / lower of a constant log band centred on the
    predictions with the same coverage), ``warned_share``, ``miss_recall`` (share of > 30 %
    misses that were warned), ``good_silent`` (share of the other predictions that were not
    warned), ``fit_ms`` (median).

    Parameters
    ----------
    results : pandas.DataFrame
        Calibrated results (:func:`apply_calibration`, :func:`leave_one_source_out`).
    by : sequence of str, default ("model",)
        Grouping columns.
    """
    def one(g: pd.DataFrame) -> pd.Series:
        ok = np.isfinite(g["prediction"].to_numpy(float))
        rel = _relative_error(g)
        a = g["actual"].to_numpy(float)
        inside = (g["lower"].to_numpy(float) <= a) & (a <= g["upper"].to_numpy(float))
        cov = float(np.mean(inside[ok])) if ok.any() else np.nan
        e = np.abs(_log_error(g))[ok]
        const = float(np.exp(2 * np.quantile(e, cov))) if ok.any() else np.nan
        miss = ~ok | (rel > MISS)
        rated = bool(g["warned"].notna().all())
        warned = g["warned"].to_numpy(float) == 1.0 if rated else np.zeros(len(g), bool)
        return pd.Series({
            "predictions": int(len(g)), "refused": int((~ok).sum()),
            "median_pa": float(100 - 100 * np.median(np.where(ok, rel, np.inf))),
            "within_10": float(np.mean(ok & (rel <= 0.1))), "within_20": float(np.mean(ok & (rel <= 0.2))),
            "coverage": cov,
            "median_width": float(np.median((g["upper"] / g["lower"]).to_numpy(float)[ok])) if ok.any() else np.nan,
            "constant_width": const,
            "warned_share": float(warned.mean()) if rated else np.nan,
            "miss_recall": float(warned[miss].mean()) if rated and miss.any() else np.nan,
            "good_silent": float((~warned[~miss]).mean()) if rated and (~miss).any() else np.nan,
            "fit_ms": float(np.nanmedian(g["fit_ms"])),
        })

    keys = list(by)
    return results.groupby(keys, sort=False)[list(results.columns)].apply(one).reset_index()


def warning_table(results: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Each predictor warning kind as a classifier of "error > 30 %" (overall, or per ``by`` group).

    ``kind``, ``fired`` (share of predictions), ``precision`` (share of fired ones that
    missed), ``recall`` (share of misses it fired on), ``predictions`` and ``misses``; the
    last row of each group, ``warned``, is the combined flag.  ``by=("fold",)`` gives the
    table per held-out source.

    Parameters
    ----------
    results : pandas.DataFrame
        Calibrated results.
    by : sequence of str, default ()
        Grouping columns (``("fold",)``: per held-out source).
    """
    p = results[results["model"] == "predictor"]
    keys = list(by)
    groups = p.groupby(keys, sort=False) if keys else [((), p)]
    rows = []
    for key, g in groups:
        miss = ~np.isfinite(g["prediction"].to_numpy(float)) | (_relative_error(g) > MISS)
        flags = {kind: np.array([kind in k for k in g["warnings"]], bool) for kind in WARNING_KINDS}
        flags["warned"] = g["warned"].to_numpy(bool)
        label = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        for kind, fired in flags.items():
            rows.append({
                **label, "kind": kind, "fired": float(fired.mean()),
                "precision": float(miss[fired].mean()) if fired.any() else np.nan,
                "recall": float(fired[miss].mean()) if miss.any() else np.nan,
                "predictions": int(len(g)), "misses": int(miss.sum()),
            })
    return pd.DataFrame(rows)


def source_weighted(results: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Return the :func:`leaderboard` with every held-out source weighted equally.

    The mean over sources (``fold``) of each source's own leaderboard row, per ``by`` group;
    ``sources`` counts them.

    Parameters
    ----------
    results : pandas.DataFrame
        Results of :func:`leave_one_source_out` (with ``fold``).
    by : sequence of str, default ("model",)
        Grouping columns.
    """
    per_source = leaderboard(results, by=("fold", *by))
    numeric = [c for c in per_source.columns if c not in ("fold", *by)]
    out = per_source.groupby(list(by), sort=False)[numeric].mean().reset_index()
    out["sources"] = per_source.groupby(list(by), sort=False)["fold"].nunique().to_numpy()
    return out


def _least_squares_amdahl(n: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Fit Amdahl's law once with ``scipy.optimize.least_squares``: the speed baseline.

    The law is ``T1 (f + (1 - f) / n)``, fitted to the runs on relative errors.
    """
    from scipy import optimize

    def resid(x):
        return x[0] * (x[1] + (1 - x[1]) / n) / t - 1

    return optimize.least_squares(resid, [t.max() * n.min(), 0.1], bounds=([0, 0], [np.inf, 1])).x


def speed_table(curves: pd.DataFrame, n_measured: int = 4, n_targets: int = 8) -> pd.DataFrame:
    """Time the predictor per curve beside one scipy least-squares fit of the same runs.

    Milliseconds per curve of ``ScalingPredictor().fit(...).predict_frame(targets)`` on the
    ``n_measured`` smallest allocations of every curve (``n_targets`` targets, doubling from
    twice the largest), beside one scipy least-squares fit of the same runs, timed one after
    the other in the same loop.  Rows: ``what``, ``curves``, ``median_ms``, ``p90_ms``.

    Parameters
    ----------
    curves : pandas.DataFrame
        A curve table.
    n_measured : int, default 4
        Smallest allocations of each curve fitted.
    n_targets : int, default 8
        Targets predicted per curve.
    """
    curves = validate_curves(curves)
    times = {"ScalingPredictor fit + predict_frame": [], "one scipy least_squares fit (Amdahl)": []}
    for _, runs in curves.groupby("curve_id", sort=False):
        keep = runs["n"].isin(np.sort(runs["n"].unique())[:n_measured])
        n, t = runs.loc[keep, "n"].to_numpy(float), runs.loc[keep, "time_s"].to_numpy(float)
        targets = n.max() * 2.0 ** np.arange(1, n_targets + 1)
        for what, call in zip(times, (lambda: ScalingPredictor().fit(n, t).predict_frame(targets),
                                      lambda: _least_squares_amdahl(n, t))):
            with quiet_warnings():  # timed as a batch runs it: its warnings are in the frame, not printed
                start = time.perf_counter()
                call()
                times[what].append((time.perf_counter() - start) * 1e3)
    return pd.DataFrame([{"what": what, "curves": len(v), "median_ms": float(np.median(v)),
                          "p90_ms": float(np.quantile(v, 0.9))} for what, v in times.items()])


#: How the per-curve results and the leaderboard are produced (said when they are missing).
HOW_TO_BENCH = ("WORKBENCH_DATA_MIRROR=../shared/data .venv/bin/python tools/scaling_benchmark.py "
                "(writes bench/results/scaling_curves.csv and scaling_leaderboard.csv)")


def benchmark_curves() -> pd.DataFrame:
    """Return the benchmark's curves: every development curve of the catalogue.

    :func:`~workbench.io.development_curves` (the scaling corpus, the Pi-cluster NPB curves
    with >= 4 allocations, the scaling-extra sources and the bundled external extracts), one
    ``source`` per repository, with their topology columns; needs the real-data mirror
    (raises :class:`~workbench.errors.DatasetNotFoundError` without it).
    """
    return development_curves()


def read_benchmark_results(per_curve_csv) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read the per-curve results of ``tools/scaling_benchmark.py`` and the overall leaderboard.

    The leaderboard is ``scaling_leaderboard.csv`` in the same folder as the results.

    Raises :class:`~workbench.errors.DataFormatError` naming the file that is missing or not
    a readable CSV table, with how to produce it (:data:`HOW_TO_BENCH`).

    Parameters
    ----------
    per_curve_csv : str or path-like
        The per-curve results CSV.
    """
    per_curve_csv = Path(per_curve_csv)
    board_csv = per_curve_csv.with_name("scaling_leaderboard.csv")
    frames = []
    for path, what in ((per_curve_csv, "a readable CSV table of benchmark results; produce it again"),
                       (board_csv, "missing or not a readable CSV table of the overall leaderboard; produce it")):
        try:
            frames.append(pd.read_csv(path))
        except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
            prefix = "not " if path == per_curve_csv else ""
            raise DataFormatError(f"{path}: {prefix}{what} with: {HOW_TO_BENCH}") from None
    return frames[0], frames[1]
