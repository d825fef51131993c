"""The scaling predictor's rules: how members are weighted and combined, which are plausible, and its warnings.

Module-level functions of :class:`~workbench.models.scaling.predictor.ScalingPredictor` (which re-exports them),
kept apart so that the benchmark (:mod:`workbench.evaluation.scaling_benchmark`) applies the same rules to
thousands of records in one array operation: :func:`softmin_weights`, :func:`combine`, :func:`weighted_cv_error`,
:func:`curve_descriptors`, :func:`plausible`; and the warnings: :data:`THRESHOLDS` (every number behind them,
declared once), :data:`WARNING_KINDS`, :func:`warning_kinds`, :func:`is_warned`, :func:`verdicts`.
"""

from __future__ import annotations

import numpy as np

from workbench.validation import Threshold

__all__ = [
    "EXCLUDED_PENALTY", "PLAUSIBLE_TOLERANCE", "THRESHOLDS", "WARNING_KINDS", "combine", "curve_descriptors",
    "is_warned", "percent", "plausible", "softmin_weights", "verdicts", "warning_kinds", "weighted_cv_error",
]

#: Every number behind the predictor's warnings, declared once (value, unit, meaning, where it is used);
#: the texts of :data:`WARNING_KINDS` and of the messages are written from them.
THRESHOLDS = {
    "miss": Threshold(0.30, "relative error", "a prediction misses when it is off by more than this",
                      "high-risk, warned, the benchmark's recall"),
    "far": Threshold(2.0, "doublings", "a target this many doublings past the largest measured allocation is far",
                     "far-extrapolation"),
    "disagree": Threshold(0.25, "log standard deviation", "the members' predictions spread this much",
                          "models-disagree"),
    "poor_fit": Threshold(0.10, "RMS log residual", "the chosen model misses its own data by this much", "poor-fit"),
    "retrograde": Threshold(0.05, "relative rise", "the measured runtime grows this much with more resources",
                            "retrograde-data"),
    "novel": Threshold(3.0, "robust z (RMS)", "the curve's shape is this far from the calibration curves",
                       "unlike-calibration"),
    "plausible": Threshold(0.10, "relative rise", "a member rising this much past falling measurements is left out "
                           "of the point", "plausible, the combination"),
}


def percent(key: str) -> str:
    """Return the threshold ``key`` of :data:`THRESHOLDS` as a percentage for a text (``"30 %"``).

    Parameters
    ----------
    key : str
        A key of :data:`THRESHOLDS` whose value is a fraction (``"miss"``, ``"disagree"``, ...).

    Returns
    -------
    str
        The value in percent, with a space before the sign.
    """
    return f"{THRESHOLDS[key].value:.0%}".replace("%", " %")


#: Per-target warning kinds of the predictor and what triggers them (each measured as a classifier of a miss
#: per source in the benchmark; kinds that carried no information there, e.g. "few allocations", were dropped).
WARNING_KINDS = {
    "high-risk": f"calibrated probability of missing by more than {percent('miss')} at or above the threshold",
    "leaves-node": "every measurement ran inside one node, the target needs several: what the network adds is not in "
                   "the data",
    "far-extrapolation": f"target more than {2 ** THRESHOLDS['far'].value:g}x the largest measured allocation",
    "models-disagree": f"the models' predictions spread by more than {percent('disagree')} (log standard deviation)",
    "poor-fit": f"the chosen model misses its own data by more than {percent('poor_fit')} (RMS)",
    "unlike-calibration": f"the curve's shape lies more than {THRESHOLDS['novel'].value:g} robust standard deviations "
                          "from the curves the intervals were calibrated on",
    "retrograde-data": f"the measured runtime grows by more than {percent('retrograde')} from one allocation to a "
                       "larger one",
    "no-model-fits": "no model could be fitted to these data",
}
#: A penalty this large (log-error units) leaves a model out of the combination.
EXCLUDED_PENALTY = 20.0


def softmin_weights(cv_error: np.ndarray, prior: np.ndarray, temperature: float, penalty=None,
                    cv_weight: float = 1.0) -> np.ndarray:
    """Weights ``exp(-(cv_weight cv + penalty) / temperature)`` over models (axis 0), normalised.

    Parameters
    ----------
    cv_error, prior : numpy.ndarray of float
        The models' cross-validation errors on this curve (models, or models x curves) and, per
        model, its corpus median, which replaces a NaN error (a NaN prior too: the others' worst).
    temperature : float
        Softmin temperature, in mean-absolute-log-error units; inf gives equal weights.
    penalty : array-like of float, optional
        Per model, added to its error: how much worse it extrapolates on the corpus (None, the default: 0).
    cv_weight : float, default 1.0
        Factor on the curve's own cross-validation error.
    """
    cv = np.asarray(cv_error, float)
    shape = (-1,) + (1,) * (cv.ndim - 1)
    prior = np.asarray(prior, float).reshape(shape)
    cv = np.where(np.isfinite(cv), cv, prior)
    if cv.size == 0:
        return cv
    worst = np.nanmax(np.where(np.isfinite(cv), cv, -np.inf), axis=0)
    cv = np.where(np.isfinite(cv), cv, np.where(np.isfinite(worst), worst, 0.0))
    cv = cv_weight * cv
    if penalty is not None:
        cv = cv + np.asarray(penalty, float).reshape(shape)
    w = np.exp(-(cv - cv.min(axis=0)) / max(float(temperature), 1e-9))
    return w / w.sum(axis=0)


def combine(P: np.ndarray, weights: np.ndarray, keep: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Combine the models' predictions ``P`` (models x targets) by a weighted geometric mean.

    Returns the prediction, the weighted standard deviation of the log predictions
    (disagreement) and the index of the largest-weight model per target (-1 where none predicts).

    Parameters
    ----------
    P : numpy.ndarray of float
        Models x targets; a model with no (NaN) or a non-positive prediction drops out there.
    weights : numpy.ndarray of float
        Combination weights (>= 0), per model or models x targets.
    keep : numpy.ndarray of bool, optional
        Models x targets: False drops the model at that target unless none would be left (None, the default: all).
    """
    usable = np.isfinite(P) & (P > 0)
    weights = np.asarray(weights, float)
    weights = weights if weights.ndim == 2 else weights[:, None]
    if keep is not None:
        kept = usable & keep
        usable = np.where((kept & (weights > 0)).any(axis=0), kept, usable)
    w = weights * usable
    total = w.sum(axis=0)
    ok = total > 0
    w = w / np.where(ok, total, 1.0)
    logP = np.log(np.where(usable, P, 1.0))
    mean = (w * logP).sum(axis=0)
    spread = np.sqrt((w * (logP - mean) ** 2).sum(axis=0))
    best = np.where(ok, np.argmax(w, axis=0), -1)
    return np.where(ok, np.exp(mean), np.nan), spread, best


def weighted_cv_error(weights: np.ndarray, cv_error: np.ndarray) -> np.ndarray | float:
    """Return the weighted mean (over axis 0, the models) of the existing cross-validation errors; NaN: none.

    Parameters
    ----------
    weights, cv_error : numpy.ndarray of float
        Per model (axis 0; models x curves for several): weights and errors (NaN: not cross-validated).
    """
    have = np.isfinite(cv_error)
    w = np.where(have, weights, 0.0)
    total = w.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, (w * np.where(have, cv_error, 0.0)).sum(axis=0) / total, np.nan)
    return float(out) if np.ndim(out) == 0 else out


#: A member's extrapolation is implausible when it rises by more than this (relative) past the measurements
#: although every measurement fell (:data:`THRESHOLDS`).
PLAUSIBLE_TOLERANCE = THRESHOLDS["plausible"].value


def curve_descriptors(allocations: np.ndarray, medians: np.ndarray, noise: float = 0.0) -> dict[str, float]:
    """Describe the shape of a measured curve (its distinct allocations and median runtimes).

    ``last_exponent`` and ``max_exponent``: the local scaling exponents ``log(t_i / t_i+1) / log(n_i+1 / n_i)`` of the
    last step and the steepest one (1 = ideal strong scaling, 0 = flat, < 0 = slower with more); ``mean_exponent``
    over the whole curve; ``roughness``: the range of the local exponents (0 for a curve that bends smoothly or not at
    all, large for one that jumps); ``falling``: 1.0 when every step made the runtime smaller; ``t_last``: the runtime
    at the largest allocation; ``noise``: the typical spread of repeated runs (``log max/min``); ``best_work``: the
    smallest ``n x t`` measured (allocation times runtime), so that ``best_work / n`` is the runtime at ``n`` of
    perfect strong scaling from the most efficient measured run.

    Parameters
    ----------
    allocations, medians : numpy.ndarray of float
        Distinct allocations (ascending, at least two) and the median runtime at each (> 0).
    noise : float, default 0.0
        The repeated runs' spread, returned as ``noise``.
    """
    a, m = np.asarray(allocations, float), np.asarray(medians, float)
    slopes = np.log(m[:-1] / m[1:]) / np.log(a[1:] / a[:-1])
    return {
        "last_exponent": float(slopes[-1]), "max_exponent": float(slopes.max()),
        "mean_exponent": float(np.log(m[0] / m[-1]) / np.log(a[-1] / a[0])),
        "roughness": float(slopes.max() - slopes.min()),
        "falling": float(np.all(slopes > 0)), "t_last": float(m[-1]), "n_max": float(a[-1]), "noise": float(noise),
        "best_work": float((a * m).min()),
    }


def plausible(P: np.ndarray, n, n_max, t_last, falling, path_min=None,
              tolerance: float = PLAUSIBLE_TOLERANCE) -> np.ndarray:
    """Which member predictions ``P`` (models x targets) stay within what the measurements support.

    Only extrapolations (``n > n_max``) are judged: a prediction is implausible when it rises by more than ``tolerance``
    above ``t_last`` or above ``path_min`` although every measurement fell: a slowdown the data never showed.  (Falling
    faster than ideal scaling was tried as a second rule; leave-one-source-out it removed members that were right on
    noisy and flat-tailed sources, so it is not used.)  Refusals (NaN) count as plausible: they drop out anyway.

    Parameters
    ----------
    P : numpy.ndarray of float
        The member predictions, models x targets.
    n, n_max, t_last, falling : float or array-like of float
        Per target, or scalars: the target, the largest measured allocation, its runtime, whether all steps fell (> 0).
    path_min : array-like of float, optional
        Models x targets: each member's lowest prediction from ``n_max`` to the target (None: ``P``).
    tolerance : float, default PLAUSIBLE_TOLERANCE
        Relative rise allowed (0.10, ``THRESHOLDS["plausible"]``).
    """
    n, n_max, t_last = (np.asarray(x, float) for x in (n, n_max, t_last))
    falling = np.asarray(falling, float) > 0
    lowest = np.fmin(t_last, P if path_min is None else np.asarray(path_min, float))
    with np.errstate(invalid="ignore"):
        rising = falling & (P > lowest * (1 + tolerance))
    return ~((n > n_max * (1 + 1e-9)) & rising)


def warning_kinds(prediction, miss_probability, threshold: float, data_kinds, distance, disagreement,
                  fit_error, novelty=None, leaves_node=None) -> list[tuple[str, ...]]:
    """Return the predictor's warning kinds per target (:data:`WARNING_KINDS`), in display order.

    A target without a prediction gets ``"no-model-fits"`` and the data kinds only.  Shared by
    :meth:`ScalingPredictor.predict_frame` and the benchmark, so that what is measured is what users get.

    Parameters
    ----------
    prediction, miss_probability : array-like of float
        Per target: the point prediction (NaN: none) and the calibrated chance of a miss.
    threshold : float
        ``high-risk`` where ``miss_probability`` reaches it (``Calibration.risk_threshold``).
    data_kinds : sequence of str, or sequence of sequences of str
        The data warnings' kinds: one sequence for all targets, or one per target.
    distance, disagreement, fit_error : array-like of float
        Per target (:meth:`ScalingPredictor.interval_features`), compared with :data:`THRESHOLDS`.
    novelty, leaves_node : array-like of float, optional
        Per target (None, the default: 0 everywhere).
    """
    pred = np.asarray(prediction, float)
    zeros = np.zeros(pred.shape)
    per_target = len(data_kinds) == pred.size and all(isinstance(k, (tuple, list)) for k in data_kinds)
    with np.errstate(invalid="ignore"):  # NaN compares False: no evidence, no warning
        rules = (("leaves-node", np.asarray(zeros if leaves_node is None else leaves_node, float) > 0),
                 ("far-extrapolation", np.asarray(distance, float) > THRESHOLDS["far"].value),
                 ("models-disagree", np.asarray(disagreement, float) > THRESHOLDS["disagree"].value),
                 ("poor-fit", np.asarray(fit_error, float) > THRESHOLDS["poor_fit"].value),
                 ("unlike-calibration", np.asarray(zeros if novelty is None else novelty, float)
                  > THRESHOLDS["novel"].value))
    risky = np.asarray(miss_probability, float) >= threshold
    fired = np.column_stack([f * np.ones(pred.shape, bool) for _, f in rules])
    out = []
    for i in range(pred.size):
        data = list(data_kinds[i] if per_target else data_kinds)
        if not np.isfinite(pred[i]):
            out.append(tuple(["no-model-fits"] + data))
            continue
        kinds = [kind for (kind, _), on in zip(rules, fired[i]) if on]
        out.append(tuple(["high-risk"] * bool(risky[i]) + kinds[:1] * ("leaves-node" in kinds) + data
                         + [k for k in kinds if k != "leaves-node"]))
    return out


def is_warned(kinds: tuple[str, ...]) -> bool:
    """Return the combined flag: high miss probability, a target leaving the one node measured, or no prediction.

    Parameters
    ----------
    kinds : tuple of str
        One target's warning kinds (:func:`warning_kinds`).
    """
    return "high-risk" in kinds or "no-model-fits" in kinds or "leaves-node" in kinds


#: The reasons a verdict names, in words (the first two that apply, in :data:`WARNING_KINDS` order).
_REASONS = {
    "leaves-node": "the target leaves the one node every run used",
    "far-extrapolation": "far past the measurements",
    "models-disagree": "the models disagree",
    "poor-fit": "no model follows the data well",
    "unlike-calibration": "the curve is unlike the calibration curves",
    "retrograde-data": "the runtime already grows with more resources",
}


def verdicts(kinds, miss_probability, warned) -> list[str]:
    """Return one sentence per prediction: how far to trust it, and the main reasons not to.

    Parameters
    ----------
    kinds, miss_probability, warned : sequence
        Per target: its warning kinds (tuple of str), the calibrated chance (float) of missing by
        more than the ``miss`` threshold and the combined flag (bool, :func:`is_warned`).
    """
    miss = percent("miss")
    out = []
    for k, risk, flag in zip(kinds, np.asarray(miss_probability, float), warned):
        if "no-model-fits" in k:
            out.append("no prediction: no model could give one here")
            continue
        reasons = [_REASONS[kind] for kind in _REASONS if kind in k][:2]
        chance = f"{risk:.0%}".replace("%", " %") if np.isfinite(risk) else "unknown"
        if flag:
            because = f" ({'; '.join(reasons)})" if reasons else ""
            out.append(f"doubtful{because}: plan with the interval, not the point (chance of missing by more "
                       f"than {miss}: {chance})")
        else:
            out.append(f"usable: likely within {miss} (chance of a larger miss: {chance})")
    return out
