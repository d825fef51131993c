"""The multi-parameter predictor: members weighted by extrapolation-oriented cross-validation."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from workbench.errors import ModelWarning, ValidationError, emit_warnings, quiet_warnings
from workbench.models.multiparam.base import (
    ALLOCATION,
    aggregate_runs,
    check_parameters,
    check_runtimes,
    extrapolation_distance,
    extrapolation_splits,
    ideal_speedup_floor,
    line_distance,
    unvaried_changes,
)
from workbench.models.multiparam.calibration import default_calibration
from workbench.models.multiparam.extrap import ExtraPMultiParameter
from workbench.models.multiparam.sizepower import SizePowerModel
from workbench.models.multiparam.work import SCOPES, ExpertWorkModel, WorkAwareModel
from workbench.models.scaling.calibration import Calibration, check_level, miss_probability
from workbench.models.scaling.predictor import THRESHOLDS as SCALING_THRESHOLDS
from workbench.models.scaling.predictor import combine, softmin_weights
from workbench.validation import FittedState, Threshold, check_fitted

__all__ = [
    "MEMBERS",
    "PREDICT_FRAME_EXTRA",
    "MIN_VOTERS",
    "THRESHOLDS",
    "WARNING_KINDS",
    "MultiParameterPredictor",
    "UNSEEN_SIZE",
    "combine_members",
    "combine_screened",
    "learnt_work_law",
    "screen_members",
    "screen_misfits",
    "widen_to_span",
    "weighting_folds",
    "target_direction",
    "target_weights",
]

# ------------------------------------------------------------------------------------ predictor
#: Members of :class:`MultiParameterPredictor` by name.
MEMBERS = {
    "work": lambda: WorkAwareModel(),
    "extrap-mp": lambda: ExtraPMultiParameter(target="runtime"),
    "extrap-mp-cost": lambda: ExtraPMultiParameter(target="cost"),
    "expert": lambda: ExpertWorkModel(),
    "size-power": lambda: SizePowerModel(),
}
#: Every number behind the predictor's warnings, declared once (value, unit, meaning, where it is used);
#: the texts of :data:`WARNING_KINDS` are written from them.  A miss is the scaling predictor's.
THRESHOLDS = {
    "miss": SCALING_THRESHOLDS["miss"],
    "far": Threshold(2.0, "doublings", "a target this many doublings past the measured range in n or a problem "
                     "parameter is far", "far-extrapolation"),
    "disagree": Threshold(0.25, "log standard deviation", "the members' predictions spread this much",
                          "models-disagree"),
    "cv_miss": Threshold(0.15, "mean absolute log error", "left out, the largest size / allocations were "
                         "mispredicted by this much", "cv-miss"),
    "poor_fit": Threshold(0.10, "RMS log residual", "the chosen model misses its own data by this much", "poor-fit"),
    "speedup": Threshold(2.0, "times the ideal speedup", "a prediction faster than a measured run at no larger "
                         "size and allocation, sped up ideally, by this factor is implausible: such a member is "
                         "set aside", "faster-than-ideal"),
    "misfit": Threshold(2.0, "times the smallest RMS log residual of the members", "past the measured sizes of a "
                        "fit without a size fold, a member that misses the measured runs by this many times the best "
                        "member's residual is set aside (its size law does not even describe the sizes it saw)",
                        "unseen-size"),
}


def _pct(key: str) -> str:
    return f"{THRESHOLDS[key].value:.0%}".replace("%", " %")


#: Per-target warning kinds of the predictor.
WARNING_KINDS = {
    "high-risk": f"calibrated probability of missing by more than {_pct('miss')} at or above the threshold",
    "far-extrapolation": f"target more than {2 ** THRESHOLDS['far'].value:g}x past the measured range in n or a "
                         "problem parameter",
    "models-disagree": f"the models' predictions spread by more than {_pct('disagree')} (log standard deviation)",
    "cv-miss": f"left out, the largest size / allocations were mispredicted by more than {_pct('cv_miss')}",
    "poor-fit": f"the chosen model misses its own data by more than {_pct('poor_fit')} (RMS)",
    "faster-than-ideal": f"every model predicts more than {THRESHOLDS['speedup'].value:g}x the ideal speedup from a "
                         "measured run at no larger size and allocation",
    "unseen-size": "past the measured sizes of a fit with fewer than 3 of them: no run tested how the models "
                   "extrapolate in the size (models missing the measured runs by more than "
                   f"{THRESHOLDS['misfit'].value:g}x the best one's residual are set aside)",
    "unvaried-parameter": "the target changes a problem parameter that had one value in every run: no run shows how "
                          "the runtime depends on it, so the models can only guess (the interval does not count "
                          "that guess)",
    "no-cross-validation": "too few sizes and allocations to leave the largest out",
    "no-model-fits": "no model could be fitted to these data",
}
PREDICT_FRAME_EXTRA = ["prediction", "lower", "upper", "model", "warned", "warnings"]


def target_direction(n, S, n_max: float, s_max) -> np.ndarray:
    """Return per target the fold that mimics its extrapolation: ``"more-n"``, ``"bigger"`` or ``"all"``.

    ``"more-n"`` when the target lies further past the largest measured allocation than past
    the largest measured size (in doublings), ``"bigger"`` when it lies past the largest size,
    ``"all"`` inside the measured range.

    Parameters
    ----------
    n : array-like of shape (targets,)
        The target allocations.
    S : array-like of shape (targets, parameters)
        The target problem parameters.
    n_max : float
        The largest measured allocation.
    s_max : array-like of shape (parameters,)
        The largest measured value of each problem parameter.
    """
    with np.errstate(divide="ignore"):
        dn = np.maximum(np.log2(np.asarray(n, float) / n_max), 0.0)
        ds = np.maximum(np.log2(np.asarray(S, float) / np.asarray(s_max, float)), 0.0).max(axis=1)
    return np.where((dn > ds) & (dn > 0), "more-n", np.where(ds > 0, "bigger", "all"))


#: The weighting "fold" of a target past the largest measured size when the fit had no size fold
#: (fewer than 3 sizes): no run showed how the members extrapolate in the size, so every member
#: that fits the measured runs (:func:`screen_misfits`) counts alike and the prediction is their
#: median (:func:`combine_members`); the target is warned ``"unseen-size"``.  Two sizes still pin
#: each member's size law: the work model tries no overhead in the work then, size-power has no
#: constant of its own, and Extra-P's leave-one-out on 1-point sets matches the points' ratio.
UNSEEN_SIZE = "unseen-size"


def weighting_folds(direction: np.ndarray, fold_cv: dict, weighting: str = "pooled") -> np.ndarray:
    """Return per target the fold whose cross-validation errors weight the members.

    :data:`UNSEEN_SIZE` where the target extrapolates in the size (``direction`` ``"bigger"``)
    and ``fold_cv`` has no ``"bigger"`` fold (the allocation fold says nothing of how a member
    extrapolates in the size); elsewhere ``"all"`` (``weighting="pooled"``) or ``direction``
    (``"per-target"``).

    Parameters
    ----------
    direction : ndarray of str, shape (targets,)
        :func:`target_direction` of each target.
    fold_cv : dict of str -> dict of str -> float
        The fit's per-fold cross-validation errors (its ``fold_cv_error_``).
    weighting : {"pooled", "per-target"}, default "pooled"
        As :class:`MultiParameterPredictor`'s.
    """
    direction = np.asarray(direction, str).astype(object)
    unseen = (direction == "bigger") & ("bigger" not in fold_cv)
    return np.where(unseen, UNSEEN_SIZE, direction if weighting == "per-target" else "all")


def combine_members(P: np.ndarray, weights: np.ndarray, folds: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Combine the members' predictions per target: weighted geometric mean, a median where the size is unseen.

    As :func:`~workbench.models.scaling.predictor.combine` (prediction, log spread, largest-weight
    member); at the :data:`UNSEEN_SIZE` targets the prediction is the median of the predicting
    members with a positive weight: without evidence to weight them, one member whose size law
    two sizes misled (a small, overhead-bound size can set any work exponent) must not move it.

    Parameters
    ----------
    P : numpy.ndarray of float
        Members x targets; NaN or non-positive where a member does not predict.
    weights : numpy.ndarray of float
        Members x targets (:func:`target_weights`).
    folds : numpy.ndarray of str
        Per target, :func:`weighting_folds`.
    """
    pred, spread, best = combine(P, weights)
    unseen = np.asarray(folds) == UNSEEN_SIZE
    if unseen.any():
        logs = np.where(np.isfinite(P) & (P > 0) & (weights > 0), np.log(np.where(P > 0, P, 1.0)), np.nan)[:, unseen]
        have = np.isfinite(logs).any(axis=0)
        med = np.full(logs.shape[1], np.nan)
        if have.any():
            med[have] = np.nanmedian(logs[:, have], axis=0)
        pred[unseen] = np.where(have, np.exp(med), pred[unseen])
    return pred, spread, best


def screen_members(P: np.ndarray, weights: np.ndarray, floor: np.ndarray,
                   factor: float = THRESHOLDS["speedup"].value) -> tuple[np.ndarray, np.ndarray]:
    """Set aside, per target, the members that predict a runtime ideal speedup cannot reach.

    A member predicting below ``floor / factor`` (:func:`~workbench.models.multiparam.base.ideal_speedup_floor`)
    gets weight 0 there, as long as another member with a positive weight predicts above it:
    an extrapolation that has the runtime collapse (Extra-P's terms with negative coefficients
    past the data) must not drag the combination down however well it cross-validated inside
    the data.  Where every member is below, the weights stay and the target is flagged.

    Parameters
    ----------
    P : numpy.ndarray of float
        Members x targets; NaN or non-positive where a member does not predict.
    weights : numpy.ndarray of float
        Members x targets (:func:`target_weights`).
    floor : numpy.ndarray of float
        Per target the ideal-speedup floor (0: none).
    factor : float, default THRESHOLDS["speedup"].value
        How many times faster than ideal a prediction may be.

    Returns
    -------
    weights : numpy.ndarray
        The screened weights (members x targets).
    below : numpy.ndarray of bool
        Per target: every predicting member is below the floor (``"faster-than-ideal"``).
    """
    predicts = np.isfinite(P) & (P > 0) & (weights > 0)
    low = predicts & (np.nan_to_num(P, nan=np.inf) * factor < np.asarray(floor, float)[None, :])
    plausible = (predicts & ~low).any(axis=0)
    screened = np.where(low & plausible[None, :], 0.0, weights)
    return screened, predicts.any(axis=0) & ~plausible


#: Fewest members :func:`screen_misfits` leaves to vote (the best-fitting ones), as the median
#: of two is their geometric mean, which one member misled by two sizes moves as far as it is off.
MIN_VOTERS = 3


def screen_misfits(P: np.ndarray, weights: np.ndarray, folds: np.ndarray, fit_error: np.ndarray,
                   factor: float = THRESHOLDS["misfit"].value) -> np.ndarray:
    """Set aside, at the :data:`UNSEEN_SIZE` targets, the members that fit the measured runs far worse than the best.

    No fold tested how the members extrapolate in the size there, so their weights are equal
    and the prediction is their median (:func:`combine_members`); a member whose RMS log
    residual (``fit_error_``) exceeds ``factor`` times the smallest of the members that
    predict there with a weight does not even describe the sizes it saw (the expert form's
    linear work where the work grows as the cube of an edge), and its size law gets no vote.
    Elsewhere the cross-validation weights already judge the members.

    Parameters
    ----------
    P : numpy.ndarray of float
        Members x targets; NaN or non-positive where a member does not predict.
    weights : numpy.ndarray of float
        Members x targets (:func:`target_weights`).
    folds : numpy.ndarray of str
        Per target, :func:`weighting_folds`.
    fit_error : numpy.ndarray of float
        Per member its RMS log residual on the measured runs (NaN: unknown, ranked last).
    factor : float, default THRESHOLDS["misfit"].value
        How many times the best residual a member may miss by.

    Returns
    -------
    numpy.ndarray
        The screened weights (members x targets).
    """
    weights = np.asarray(weights, float)
    unseen = np.asarray(folds) == UNSEEN_SIZE
    fe = np.asarray(fit_error, float)
    if not unseen.any() or not np.isfinite(fe).any():
        return weights
    fe = np.where(np.isfinite(fe), fe, np.inf)[:, None]
    live = np.isfinite(P) & (P > 0) & (weights > 0)
    ranked = np.sort(np.where(live, fe, np.inf), axis=0)  # per target, over the weighted members
    # never fewer than MIN_VOTERS: the median of two is their mean, which one wild member moves
    limit = np.maximum(factor * ranked[0], ranked[min(MIN_VOTERS, len(ranked)) - 1])
    misfit = live & (fe > limit[None, :]) & unseen[None, :]
    return np.where(misfit, 0.0, weights)


def widen_to_span(lower: np.ndarray, upper: np.ndarray, span: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Widen an interval to cover ``span`` where it is given (:func:`combine_screened`'s, NaN: nothing).

    Parameters
    ----------
    lower, upper : numpy.ndarray
        The interval per target.
    span : numpy.ndarray, shape (2, targets)
        The smallest and largest prediction of the voting members at an unseen size, NaN elsewhere.
    """
    return np.fmin(lower, span[0]), np.fmax(upper, span[1])


def combine_screened(P: np.ndarray, weights: np.ndarray, folds: np.ndarray, floor: np.ndarray,
                     fit_error: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Combine the members per target after the screens: the predictor's combination.

    :func:`screen_members` (implausible speedups), then at the :data:`UNSEEN_SIZE` targets
    :func:`screen_misfits`; the prediction and the largest-weight member are
    :func:`combine_members`' on the screened weights.  The spread is taken before the screens
    (one member off by an implausible speedup is still a sign that the models disagree, a
    feature of the interval).  At the :data:`UNSEEN_SIZE` targets the span of the members that
    vote there is returned too: no fold tested which of them is right, so the predictor's
    interval covers at least that span.

    Parameters
    ----------
    P : numpy.ndarray of float
        Members x targets; NaN or non-positive where a member does not predict.
    weights : numpy.ndarray of float
        Members x targets (:func:`target_weights`).
    folds : numpy.ndarray of str
        Per target, :func:`weighting_folds`.
    floor : numpy.ndarray of float
        Per target the ideal-speedup floor (:func:`~workbench.models.multiparam.base.ideal_speedup_floor`; 0: none).
    fit_error : numpy.ndarray of float or None, default None
        Per member its RMS log residual on the measured runs (None: no misfit screen).

    Returns
    -------
    prediction, spread, best, below : numpy.ndarray
        As :func:`combine_members`, and per target whether every member was below the floor.
    span : numpy.ndarray, shape (2, targets)
        The smallest and the largest prediction of the voting members at the
        :data:`UNSEEN_SIZE` targets (NaN elsewhere).
    """
    _, spread, _ = combine_members(P, weights, folds)
    screened, below = screen_members(P, weights, floor)
    if fit_error is not None:
        screened = screen_misfits(P, screened, folds, fit_error)
    pred, _, best = combine_members(P, screened, folds)
    votes = np.isfinite(P) & (P > 0) & (screened > 0) & (np.asarray(folds) == UNSEEN_SIZE)[None, :]
    with np.errstate(invalid="ignore"):
        span = np.where(votes.any(axis=0), [np.where(votes, P, np.inf).min(axis=0),
                                            np.where(votes, P, -np.inf).max(axis=0)], np.nan)
    return pred, spread, best, below, span


def target_weights(fold_cv: dict, names: list, direction: np.ndarray, calibration: Calibration
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Return member weights per target (members x targets) and the weighted cross-validation error per target.

    ``fold_cv[fold][member]``: the member's mean absolute log error on the left-out runs of
    ``fold`` (``"all"``: on every fold).  A target uses the errors of the fold of its
    ``direction`` (:func:`target_direction`), falling back to ``"all"`` when that fold was
    not possible (:data:`UNSEEN_SIZE`: equal weights); weights are
    :func:`~workbench.models.scaling.predictor.softmin_weights`
    with the calibration's prior, penalty, weight and temperature.

    Parameters
    ----------
    fold_cv : dict of str -> dict of str -> float
        Per fold, each member's mean absolute log error (``"all"``: every fold).
    names : list of str
        The members, in the order of the rows of the result.
    direction : ndarray of str, shape (targets,)
        :func:`target_direction` of each target.
    calibration : Calibration
        Priors, penalties, weight and temperature of the weights.
    """
    prior = np.array([calibration.cv_prior.get(m, np.nan) for m in names])
    penalty = np.array([calibration.penalty.get(m, 0.0) for m in names])
    W = np.zeros((len(names), direction.size))
    cv_t = np.full(direction.size, np.nan)
    for fold in np.unique(direction):
        use = fold if fold in fold_cv else "all"
        cv = np.array([fold_cv.get(use, {}).get(m, np.nan) for m in names], float)
        # a member the fold could not test, beside members it could, counts as the worst of them: its
        # prior is a median over the fits where it could be tested (for size-power, the easy ones)
        fold_prior = np.full(len(names), np.nan) if np.isfinite(cv).any() else prior
        if fold == UNSEEN_SIZE:  # no run showed the size law: every member counts alike
            cv, fold_prior = np.zeros(len(names)), np.zeros(len(names))
        w = softmin_weights(cv, fold_prior, calibration.temperature, penalty, calibration.cv_weight)
        at = direction == fold
        W[:, at] = w[:, None]
        have = np.isfinite(cv)
        if have.any() and w[have].sum() > 0:
            cv_t[at] = float(np.sum(w[have] * cv[have]) / np.sum(w[have]))
    return W, cv_t


def _extrapolation_cv(members: dict, folds: list, names: list, n: np.ndarray, S: np.ndarray,
                      t: np.ndarray) -> pd.DataFrame:
    """Refit every member on each training part of ``folds``; return the held-out predictions.

    ``folds`` from :func:`~workbench.models.multiparam.base.extrapolation_splits`; columns ``model, fold,
    actual, prediction, failed`` (a failed refit predicts NaN).
    """
    model_col, fold_col, actual, prediction, failed = [], [], [], [], []
    # a fresh estimator with the member's parameters (what sklearn's clone does, without
    # inspecting the signature again for every fold)
    params = {name: (type(m), clone(m).get_params(deep=False)) for name, m in members.items()}
    with quiet_warnings():
        for fold, test, train in folds:
            k = int(test.sum())
            for name in members:
                try:
                    kind, kwargs = params[name]
                    model = kind(**kwargs).fit_checked(n[train], S[train], t[train], names)
                    p, bad = model.evaluate(n[test], S[test]), False
                except (ValidationError, np.linalg.LinAlgError):
                    p, bad = np.full(k, np.nan), True
                model_col += [name] * k
                fold_col += [fold] * k
                actual.append(t[test])
                prediction.append(p)
                failed.append(np.full(k, bad))
    # one frame at the end: a frame per (fold, member) cost more than the refits
    return pd.DataFrame({"model": model_col, "fold": fold_col, "actual": np.concatenate(actual or [[]]),
                         "prediction": np.concatenate(prediction or [[]]),
                         "failed": np.concatenate(failed or [[]]).astype(bool)})


def _mean_errors(cv: pd.DataFrame, names: list) -> tuple[dict, dict]:
    """Per member the mean absolute log error of ``cv`` (NaN rows skipped): overall and per fold."""
    a = np.abs(cv["log_error"].to_numpy(float))
    model, fold = cv["model"].to_numpy(), cv["fold"].to_numpy()
    ok = ~np.isnan(a)

    def mean(at):
        use = at & ok
        return float(a[use].mean()) if use.any() else np.nan

    overall = {m: mean(model == m) for m in names}
    per_fold = {"all": dict(overall)}
    for f in dict.fromkeys(fold):
        for m in names:
            at = (fold == f) & (model == m)
            if at.any():
                per_fold.setdefault(f, {})[m] = mean(at)
    return overall, per_fold


def learnt_work_law(predictor, parameters) -> tuple[np.ndarray, float, str]:
    """Return the work law a fitted predictor's work model learnt: ``(a, e, law)``.

    ``W = n^e prod_j s_j^a_j``: the exponents ``a_j`` of the problem parameters and ``e`` = 0
    when they give the total work, 1 when they give one process's part (RELeARN's neurons per
    rank).  A scope whose time steps grow with the whole mesh (:data:`SCOPES`, ``n^(4/3)``,
    ``n^(3/2)``) still gives one process's part: ``e`` = 1, so that a weak-scaling line keeps
    the part per process, as a weak-scaling campaign does; ``law`` states the whole law
    (``"W = ..."``).  Without a usable work model (missing, or a user work function): ``a_j``
    = 1, ``e`` = 0 and ``law`` = "".

    Parameters
    ----------
    predictor : MultiParameterPredictor
        Fitted.
    parameters : sequence of str
        Its problem-parameter columns, in order.
    """
    work = getattr(predictor, "members_", {}).get("work")
    a = np.asarray(getattr(work, "exponents_", ()), float)
    if work is None or a.size != len(parameters) or not np.all(np.isfinite(a) & (a > 0)):
        return np.ones(len(parameters)), 0.0, ""
    b = SCOPES[work.scope_]
    per_n = "" if b == 0 else "n * " if b == 1 else f"n^{b:.3g} * "
    return a, min(b, 1.0), "W = " + per_n + " * ".join(f"{p}^{v:.3g}" for p, v in zip(parameters, a))


class MultiParameterPredictor(FittedState, BaseEstimator):
    """Runtime over allocation x problem size from several models, with calibrated intervals.

    1. fit every member (:data:`MEMBERS`) on all runs;
    2. refit each on the :func:`~workbench.models.multiparam.base.extrapolation_splits`
       (without the largest size; without the largest allocation of each size; the
       second-largest size from the smaller ones) and score the left-out runs: the mean absolute log
       error is the member's ``cv_error_`` (members without a fold get the calibration's
       prior);
    3. weights ``exp(-(cv + penalty) / temperature)`` (temperature learnt on the development
       data; optionally per target from the fold that extrapolates as it does, ``weighting``);
       a member predicting more than ``THRESHOLDS["speedup"]`` times the ideal speedup from a
       measured run is set aside at that target (:func:`screen_members`); the prediction is
       the weighted geometric mean (:func:`combine_screened`);
    4. the interval is the calibrated error model ``"predictor"``; warnings per target.

    Parameters
    ----------
    models : sequence of str, default tuple(MEMBERS)
        The members to combine, names of :data:`MEMBERS`.
    calibration : Calibration or None, default None
        The error models, priors, temperature and risk threshold; None:
        :func:`default_calibration`.
    weighting : {"pooled", "per-target"}, default "pooled"
        ``"pooled"``: one set of weights from the errors on every fold.  ``"per-target"``: a
        target past the largest allocation is weighted by the ``more-n`` fold only, one past
        the largest size by the ``bigger`` fold (:func:`target_direction`).  Either way a
        target past the largest size of a fit without a size fold is :data:`UNSEEN_SIZE`.
        Leave-one-source-out on the 11 development sources (``bench/results/multiparam.md``)
        the two tie: pooled met the accuracy goals in 12 of 20 (source, split) cells,
        per-target in 11, with means over sources of the median absolute log error 0.172 and
        0.168; pooled keeps RELeARN *more-p* at 80 % median PA where per-target falls to 74 %.

    Attributes
    ----------
    members_ : dict of str -> MultiParameterModel
        The fitted members by name.
    fit_seconds_ : dict of str -> float
        Seconds of each member's fit on all runs.
    total_fit_seconds_ : float
        Seconds of the whole fit: every member, its cross-validation refits and the weights.
    failures_ : dict of str -> str
        Why a member could not be fitted.
    cv_error_ : dict of str -> float
        Cross-validated mean absolute log error per member (NaN: no fold).
    fold_cv_error_ : dict of str -> dict of str -> float
        The same per fold (``"all"``: every fold).
    weights_ : dict of str -> float
        Weight per member (sums to 1); with ``weighting="per-target"`` those of a target
        inside the measured range (:func:`target_weights`).
    cv_ : pandas.DataFrame
        The cross-validation predictions (``model, fold, actual, prediction, failed,
        log_error``; NaN ``log_error``: the member abstained there).
    parameters_ : list of str
        The problem-parameter columns.
    points_ : tuple of ndarray
        The distinct measured points ``(n, S)``: how far a target lies past its own lines
        (:func:`~workbench.models.multiparam.base.line_distance`) is part of its interval's distance.
    point_runtimes_ : ndarray
        The mean runtime at each of ``points_``: the ideal-speedup floor of a target
        (:func:`~workbench.models.multiparam.base.ideal_speedup_floor`) below which a member is set
        aside (:func:`screen_members`).
    warnings_ : list of ModelWarning
        What the fit noticed about the data.

    Examples
    --------
    Runs on a 3 x 3 grid of allocations ``n`` and sizes ``s`` of ``t = 0.5 + 0.002 s^1.5 / n``;
    the prediction at twice the largest allocation:

    >>> import numpy as np, pandas as pd
    >>> n, s = np.meshgrid([4.0, 8.0, 16.0], [100.0, 200.0, 400.0])
    >>> X = pd.DataFrame({"n": n.ravel(), "s": s.ravel()})
    >>> model = MultiParameterPredictor().fit(X, 0.5 + 2e-3 * X["s"] ** 1.5 / X["n"])
    >>> round(float(model.predict(pd.DataFrame({"n": [32.0], "s": [400.0]}))[0]), 2)  # truth: 1.0
    1.03
    """

    #: set by ``fit`` once the members are weighted
    fitted_attribute = "weights_"

    def __init__(self, models=tuple(MEMBERS), calibration=None, weighting: str = "pooled"):
        self.models = models
        self.calibration = calibration
        self.weighting = weighting

    def _directions(self, n, S) -> np.ndarray:
        direction = target_direction(n, S, self.n_range_[1], self.S_range_[1])
        return weighting_folds(direction, self.fold_cv_error_, self.weighting)

    def _calibration(self) -> Calibration:
        return self.calibration if self.calibration is not None else default_calibration()

    def fit(self, X, t) -> MultiParameterPredictor:
        """Fit the members and weight them; returns self.

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the problem-parameter columns.
        t : array-like of shape (k,)
            Runtimes, finite and > 0.

        Returns
        -------
        self
        """
        where = "MultiParameterPredictor.fit"
        begin = time.perf_counter()
        if self.weighting not in ("pooled", "per-target"):
            raise ValidationError(f"{where}: weighting must be 'pooled' or 'per-target', got {self.weighting!r}")
        unknown = [m for m in self.models if m not in MEMBERS]
        if unknown or not len(self.models):
            raise ValidationError(f"{where}: models must be names from {list(MEMBERS)}, got {list(self.models)}")
        n, S, names = check_parameters(X, where)
        t = check_runtimes(t, n.size, where)
        nd, Sd, td, _ = aggregate_runs(n, S, t)
        self.parameters_ = names
        self.n_range_ = (float(nd.min()), float(nd.max()))
        self.S_range_ = (Sd.min(axis=0), Sd.max(axis=0))
        self.n_points_ = int(nd.size)
        self.points_ = (nd, Sd)
        self.point_runtimes_ = td
        self.members_, self.failures_, self.fit_seconds_ = {}, {}, {}
        with quiet_warnings():
            for name in self.models:
                start = time.perf_counter()
                try:
                    self.members_[name] = MEMBERS[name]().fit_checked(n, S, t, names)
                except (ValidationError, np.linalg.LinAlgError) as exc:
                    self.failures_[name] = str(exc)
                self.fit_seconds_[name] = time.perf_counter() - start
        folds = extrapolation_splits(n, S)
        self.cv_ = _extrapolation_cv(self.members_, folds, names, n, S, t)
        pred_cv, failed = self.cv_["prediction"].to_numpy(float), self.cv_["failed"].to_numpy(bool)
        with np.errstate(divide="ignore", invalid="ignore"):
            err = np.log(self.cv_["actual"].to_numpy(float) / np.where(pred_cv > 0, pred_cv, np.nan))
        # a member whose refit failed, or that predicts a non-positive runtime, scores as a 10x
        # miss there; one that abstains (NaN: size-power at an allocation it never saw) is
        # judged where it predicts, as the combination uses it only there
        abstain = np.isnan(pred_cv) & ~failed
        err = np.where(np.isnan(err), np.log(10.0), err)
        self.cv_["log_error"] = np.where(abstain, np.nan, err)
        self.cv_error_, self.fold_cv_error_ = _mean_errors(self.cv_, list(self.members_))
        # the weights of a target inside the measured range (per target: see _combine)
        names_fit = list(self.members_)
        w, cv_all = target_weights(self.fold_cv_error_, names_fit, np.array(["all"]), self._calibration())
        self.weights_ = dict(zip(names_fit, map(float, w[:, 0])))
        self.combined_cv_error_ = float(cv_all[0])
        notes = []
        if not folds:
            notes.append(ModelWarning("no-cross-validation", f"{where}: {nd.size} distinct points: too few sizes "
                                      "(>= 3) or allocations per size (>= 2) to leave the largest out; the models "
                                      "are weighted by the calibration's priors"))
        if not self.members_:
            notes.append(ModelWarning("no-model-fits", f"{where}: no model could be fitted: " + "; ".join(
                f"{m}: {why}" for m, why in self.failures_.items())))
        self.warnings_ = notes
        self.total_fit_seconds_ = time.perf_counter() - begin
        emit_warnings(notes)
        return self

    def _check_fitted(self, where: str) -> None:
        check_fitted(self, where=where, fit="fit(X, t)")

    def _combine(self, n, S, direction=None):
        names = list(self.members_)
        k = n.size
        if not names:
            return (np.full(k, np.nan), np.zeros(k), np.array([""] * k, dtype=object), np.full(k, np.nan),
                    np.zeros(k, bool), np.full((2, k), np.nan))
        P = np.vstack([self.members_[m].evaluate(n, S) for m in names])
        direction = self._directions(n, S) if direction is None else direction
        w, _ = target_weights(self.fold_cv_error_, names, direction, self._calibration())
        fit_errors = np.array([self.members_[m].fit_error_ for m in names], float)
        pred, spread, best, below, span = combine_screened(
            P, w, direction, ideal_speedup_floor(n, S, *self.points_, self.point_runtimes_), fit_errors)
        chosen = np.array([names[b] if b >= 0 else "" for b in best], dtype=object)
        fit_error = np.array([self.members_[names[b]].fit_error_ if b >= 0 else np.nan for b in best])
        return pred, spread, chosen, fit_error, below, span

    def predict(self, X) -> np.ndarray:
        """Return the combined runtime prediction at each row of ``X`` (NaN where no member predicts).

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        """
        self._check_fitted("MultiParameterPredictor.predict")
        n, S, _ = check_parameters(X, "MultiParameterPredictor.predict", self.parameters_)
        return self._combine(n, S)[0]

    def _features(self, n, S, spread, fit_error, direction) -> dict:
        d = np.maximum(extrapolation_distance(n, S, self.n_range_[0], self.n_range_[1], self.S_range_[0],
                                              self.S_range_[1]), line_distance(n, S, *self.points_))
        _, cv_t = target_weights(self.fold_cv_error_, list(self.members_), direction, self._calibration())
        return {"distance": d, "n_points": np.full(d.shape, float(self.n_points_)), "fit_error": fit_error,
                "disagreement": spread, "cv_error": cv_t}

    def member_predictions(self, X) -> pd.DataFrame:
        """Return each member's prediction at each row of ``X`` (columns: member names; NaN: none).

        The raw material of the combination, for benchmarks and dashboards.

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        """
        self._check_fitted("MultiParameterPredictor.member_predictions")
        n, S, _ = check_parameters(X, "MultiParameterPredictor.member_predictions", self.parameters_)
        out = {}
        for m, model in self.members_.items():
            p = model.evaluate(n, S)
            out[m] = np.where(np.isfinite(p) & (p > 0), p, np.nan)
        return pd.DataFrame(out)

    def predict_interval(self, X, level: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
        """Central ``level`` interval (lower, upper) at each row of ``X`` (calibrated).

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        level : float, default 0.8
            Central probability of the interval, in (0, 1).
        """
        frame = self.predict_frame(X, level)
        return frame["lower"].to_numpy(), frame["upper"].to_numpy()

    def predict_frame(self, X_targets, level: float = 0.8) -> pd.DataFrame:
        """Predict at each row of ``X_targets``: prediction, interval, model and warnings.

        Columns: ``n`` and the problem parameters (as fitted), ``prediction``, ``lower``,
        ``upper`` (calibrated central ``level`` interval, unit of the fitted ``t``; at a size no
        fold tested at least the span of the members that vote there, :func:`combine_screened`),
        ``model`` (member with the largest weight, "" when none predicts), ``warned`` (bool:
        ``high-risk``, ``no-model-fits`` or ``unvaried-parameter``) and ``warnings`` (tuple of
        kinds, :data:`WARNING_KINDS`).  ``attrs["messages"]``
        maps each kind that occurs to a sentence; ``attrs["weights"]`` the member weights;
        ``attrs["miss_probability"]`` the calibrated probability of a miss (``THRESHOLDS["miss"]``).

        Parameters
        ----------
        X_targets : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns, one row per target.
        level : float, default 0.8
            Central probability of the intervals, in (0, 1).
        """
        where = "MultiParameterPredictor.predict_frame"
        self._check_fitted(where)
        level = check_level(level)
        n, S, _ = check_parameters(X_targets, where, self.parameters_)
        cal = self._calibration()
        direction = self._directions(n, S)
        pred, spread, chosen, fit_error, below, span = self._combine(n, S, direction)
        changed = unvaried_changes(S, *self.S_range_)
        feats = self._features(n, S, spread, fit_error, direction)
        lower, upper = widen_to_span(*cal.interval("predictor", pred, feats, level), span)
        risk = miss_probability(cal.error_model("predictor"), feats, THRESHOLDS["miss"].value)
        limit = {key: t.value for key, t in THRESHOLDS.items()}
        rules = (("far-extrapolation", feats["distance"] > limit["far"]),
                 ("models-disagree", spread > limit["disagree"]),
                 ("cv-miss", np.nan_to_num(feats["cv_error"]) > limit["cv_miss"]),
                 ("poor-fit", np.nan_to_num(fit_error) > limit["poor_fit"]),
                 ("faster-than-ideal", below),
                 ("unseen-size", direction == UNSEEN_SIZE),
                 ("unvaried-parameter", changed.any(axis=1)))
        data = [w.kind for w in self.warnings_ if w.kind != "no-model-fits"]
        kinds = []
        for i in range(n.size):
            if not np.isfinite(pred[i]):
                kinds.append(tuple(["no-model-fits"] + data))
                continue
            kinds.append(tuple(["high-risk"] * bool(risk[i] >= cal.risk_threshold) + data
                               + [k for k, fired in rules if fired[i]]))
        frame = pd.DataFrame({ALLOCATION: n})
        for j, c in enumerate(self.parameters_):
            frame[c] = S[:, j]
        frame["prediction"] = pred
        frame["lower"] = lower
        frame["upper"] = upper
        frame["model"] = chosen
        frame["warned"] = [bool({"high-risk", "no-model-fits", "unvaried-parameter"} & set(k)) for k in kinds]
        frame["warnings"] = kinds
        messages = {w.kind: w.message for w in self.warnings_}
        occurring = {k for ks in kinds for k in ks}
        if changed.any():  # which parameters, and the one value each had
            messages["unvaried-parameter"] = WARNING_KINDS["unvaried-parameter"] + "; " + ", ".join(
                f"'{c}' was {self.S_range_[0][j]:g} in every run" for j, c in enumerate(self.parameters_)
                if changed[:, j].any())
        for kind in occurring:
            messages.setdefault(kind, WARNING_KINDS[kind])
        frame.attrs["messages"] = messages
        frame.attrs["weights"] = dict(self.weights_)
        frame.attrs["miss_probability"] = risk
        return frame
