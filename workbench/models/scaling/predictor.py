"""ScalingPredictor: every scaling model, weighted by how well it extrapolates this curve.

With calibrated intervals and warnings that were measured as a classifier.

How it predicts (all parameters learnt on real curves, :mod:`~workbench.models.scaling.calibration`, by
``tools/scaling_benchmark.py``, evaluated leave-one-source-out):

1. fit every model of :data:`~workbench.models.scaling.MODELS` on all runs;
2. *extrapolation-oriented cross-validation*: refit each model without the largest allocation (and, from 4 allocations
   on, without the two largest) and score its predictions of the left-out allocations, as a user extrapolates: the
   mean absolute log error is the model's ``cv_error``.  A model the curve is too short to cross-validate gets its
   median over the calibration curves (``Calibration.cv_prior``);
3. weights ``w_m ~ exp(-(g cv_m + penalty_m) / temperature)``, where ``penalty_m`` leaves a model out of the
   combination or not and ``g`` says how much the curve's own cross-validation counts (``Calibration``); the
   prediction is the weighted geometric mean of the models' predictions.  Models that refuse a target drop out of it,
   and so do, when the calibration chose it, members whose extrapolation turns upward although every measurement fell
   (:func:`plausible`);
4. the interval comes from the predictor's own :class:`~.calibration.ErrorModel`, whose scale knows how far the target
   is, how much the models disagree, how well they predicted this curve's largest allocations, how noisy, flattening
   and irregular the curve is and how unlike the calibration curves (its ``novelty``); its quantiles hold on sources
   it was not learnt from;
5. topology: with ``unit``/``per_node`` (or the nodes of each run), a target that needs more nodes than the one node
   every measurement ran on is warned (``leaves-node``);
6. warnings: one kind per reason to doubt (:data:`WARNING_KINDS`, thresholds in :data:`THRESHOLDS`), ``warned`` when
   the calibrated probability of missing by more than 30 % reaches ``Calibration.risk_threshold`` (chosen so that 91 %
   of such misses are flagged on the calibration records), and one ``verdict`` sentence per prediction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from workbench.errors import ValidationError, emit_warnings, quiet_warnings
from workbench.models.scaling.base import (
    MODELS,
    ModelWarning,
    allocation_medians,
    check_model_names,
    check_runs,
    check_targets,
    fit_or_message,
)
from workbench.models.scaling.calibration import check_level, default_calibration, miss_probability
from workbench.models.scaling.rules import (
    EXCLUDED_PENALTY,
    PLAUSIBLE_TOLERANCE,
    THRESHOLDS,
    WARNING_KINDS,
    combine,
    curve_descriptors,
    is_warned,
    percent,
    plausible,
    softmin_weights,
    verdicts,
    warning_kinds,
    weighted_cv_error,
)
from workbench.validation import (
    UNITS,
    FittedState,
    as_vector,
    check_fitted,
    check_unit,
    nodes_of,
    require_valid,
)

__all__ = [
    "ScalingPredictor", "PREDICT_FRAME_COLUMNS", "WARNING_KINDS", "combine", "curve_descriptors", "is_warned",
    "plausible", "softmin_weights", "verdicts", "warning_kinds", "weighted_cv_error", "THRESHOLDS",
    "PLAUSIBLE_TOLERANCE",
]

PREDICT_FRAME_COLUMNS = ["n", "prediction", "lower", "upper", "model", "warned", "warnings", "verdict"]

def _repeat_noise(n: np.ndarray, t: np.ndarray) -> float:
    """Return the median ``log(max / min)`` of the runtimes repeated at one allocation (0 without repeats)."""
    _, inverse, counts = np.unique(n, return_inverse=True, return_counts=True)
    if counts.max() < 2:
        return 0.0
    logt = np.log(t)
    hi = np.full(counts.size, -np.inf)
    lo = np.full(counts.size, np.inf)
    np.maximum.at(hi, inverse, logt)
    np.minimum.at(lo, inverse, logt)
    return float(np.median((hi - lo)[counts > 1]))


def _member_prediction(model, n: np.ndarray) -> np.ndarray:
    """Return ``model.predict(n)``, with NaN (it drops out) instead of its error where the runtime overflows."""
    pred = model.predict_raw(n)
    return np.where(np.isinf(pred) | (pred == 0), np.nan, pred)


class ScalingPredictor(FittedState, BaseEstimator):
    """Predict runtimes at new allocations from a strong-scaling curve.

    With calibrated intervals and measured warnings (module docstring).

    Parameters
    ----------
    models : tuple of str, default all of :data:`~workbench.models.scaling.MODELS`
        Names of the models to combine.
    calibration : Calibration or None, default None
        A :class:`~.calibration.Calibration`; None: the table shipped with the package (``tools/scaling_benchmark.py``).
    unit : {"processes", "nodes", "gpus", "cores"}, default "processes"
        What an allocation ``n`` counts (:data:`~workbench.validation.UNITS`).
    per_node : int or None, default None
        How many allocation units one node holds (cores per node for processes or cores, GPUs per node for GPUs; ignored
        for nodes).  With it, or with ``nodes`` given to :meth:`fit`, a target that needs more nodes than the
        measurements ever used, when they all ran inside one node, is a topology change the data cannot show: its
        prediction gets the ``leaves-node`` warning and an interval widened as calibrated on curves with such a change.

    Attributes
    ----------
    members_ : dict of str to ScalingModel
        The models that could be fitted, by name.
    failures_ : dict of str to str
        Why a model could not be fitted, by name.
    cv_ : pandas.DataFrame
        The cross-validation: model, train_max_n, n, actual, prediction, log_error (``log(actual / prediction)``).
    cv_error_ : dict of str to float
        Mean absolute log error in ``cv_`` per model (NaN: curve too short, or the calibration excludes the model).
    weights_ : dict of str to float
        Combination weight per model (sums to 1).
    combined_cv_error_ : float
        Weighted mean of ``cv_error_``, an interval feature (mispredicted largest allocations: a harder curve).
    allocations_, medians_ : numpy.ndarray
        Distinct allocations and the median runtime at each.
    n_max_ : float
        The largest measured allocation.
    unit_ : str
        What an allocation counts (the canonical ``unit``).
    measured_nodes_ : float
        The most nodes a measured run used (NaN when the topology is unknown).
    descriptors_ : dict of str to float
        The measured curve's shape (:func:`curve_descriptors`).
    warnings_ : list of ModelWarning
        Warnings about the data (:class:`~workbench.models.scaling.ModelWarning`).

    Examples
    --------
    >>> from workbench.models.scaling import ScalingPredictor
    >>> predictor = ScalingPredictor(per_node=16).fit([1, 2, 4, 8, 16], [100.0, 51.0, 26.4, 13.9, 7.6])
    >>> frame = predictor.predict_frame([64])
    >>> bool(frame["lower"].iloc[0] < frame["prediction"].iloc[0] < frame["upper"].iloc[0])
    True
    >>> "leaves-node" in frame["warnings"].iloc[0]
    True
    """

    def __init__(self, models=tuple(MODELS), calibration=None, unit="processes", per_node=None):
        self.models = models
        self.calibration = calibration
        self.unit = unit
        self.per_node = per_node

    # ------------------------------------------------------------------ fitting
    def fit(self, n, t, nodes=None) -> ScalingPredictor:
        """Fit on runs.

        Parameters
        ----------
        n : array-like of float
            Allocations >= 1 (repeats allowed), in ``unit``.
        t : array-like of float
            Runtimes > 0, one per run (any unit; predictions come in the same).
        nodes : array-like of int or None, default None
            Nodes each run used, when known (whole numbers, at most ``n`` for processes).

        Returns
        -------
        ScalingPredictor
            self, fitted.
        """
        names = check_model_names(self.models, "ScalingPredictor")
        n, t = check_runs(n, t, 3, "ScalingPredictor.fit")
        self.unit_ = check_unit(self.unit, "ScalingPredictor")
        self.allocations_, self.medians_ = allocation_medians(n, t)
        self.n_max_ = float(self.allocations_[-1])
        self.measured_nodes_ = self._measured_nodes(n, nodes)
        self.descriptors_ = curve_descriptors(self.allocations_, self.medians_, _repeat_noise(n, t))
        self.members_, self.failures_ = {}, {}
        for name in names:
            model = MODELS[name]()
            message = fit_or_message(model, n, t)
            if message:
                self.failures_[name] = message
            else:
                self.members_[name] = model
        # a model the calibration leaves out of the combination gets no weight whatever its
        # cross-validation says: skip the refits (ADEPT's are most of the predictor's time)
        excluded = self._calibration().penalty
        self.cv_ = self._cross_validate(n, t, [m for m in names if excluded.get(m, 0.0) < EXCLUDED_PENALTY])
        models, errors = self.cv_["model"].to_numpy(), np.abs(self.cv_["log_error"].to_numpy(float))
        self.cv_error_ = {name: float(errors[models == name].mean()) if (models == name).any() else float("nan")
                          for name in names}
        self.weights_ = self._weights()
        names = list(self.weights_)
        self.combined_cv_error_ = weighted_cv_error(np.array([self.weights_[m] for m in names]),
                                                    np.array([self.cv_error_[m] for m in names]))
        self.warnings_ = self._data_warnings()
        emit_warnings(self.warnings_)
        return self

    def _cross_validate(self, n, t, names) -> pd.DataFrame:
        alloc, med = self.allocations_, self.medians_
        rows = []
        for held in range(1, min(2, alloc.size - 2) + 1):
            cut = alloc[-held - 1]
            train = n <= cut
            test_n, test_t = alloc[-held:], med[-held:]
            for name in names:
                model = MODELS[name]()
                if np.unique(n[train]).size < model.min_points or fit_or_message(model, n[train], t[train],
                                                                                 in_sample=False):
                    continue
                pred = model.predict(test_n)
                with np.errstate(invalid="ignore", divide="ignore"):
                    err = np.log(test_t / pred)
                rows += [{"model": name, "train_max_n": cut, "n": a, "actual": b, "prediction": p, "log_error": e}
                         for a, b, p, e in zip(test_n, test_t, pred, err) if np.isfinite(e)]
        return pd.DataFrame(rows, columns=["model", "train_max_n", "n", "actual", "prediction", "log_error"])

    def _calibration(self):
        return self.calibration if self.calibration is not None else default_calibration()

    def _measured_nodes(self, n, nodes) -> float:
        """Return the most nodes a fitted run used (NaN: unknown), checking ``nodes`` against the runs."""
        where = "ScalingPredictor.fit"
        if nodes is not None:
            nodes = as_vector(nodes, "nodes", where)
            if nodes.size != n.size:
                raise ValidationError(f"{where}: nodes must have one value per run, got {nodes.size} for {n.size} runs")
            require_valid(~np.isfinite(nodes) | (nodes < 1) | (nodes != np.round(nodes)), nodes, "nodes",
                          "a whole number >= 1", where)
            if self.unit_ in ("processes", "cores"):
                require_valid(nodes > n, nodes, "nodes", f"at most the run's {UNITS[self.unit_][1]} (a run cannot "
                              "use more nodes than processes)", where)
            return float(nodes.max())
        return float(self.target_nodes([self.n_max_])[0])

    def target_nodes(self, n) -> np.ndarray:
        """Return the nodes allocations ``n`` need: ``n`` (unit="nodes"), ``ceil(n / per_node)`` or NaN (unknown).

        Parameters
        ----------
        n : array-like of float
            Allocations (finite, >= 1), in ``unit``.
        """
        n = check_targets(n, "ScalingPredictor.target_nodes")
        unit = check_unit(self.unit, "ScalingPredictor")
        if unit == "nodes":
            return n.copy()
        if self.per_node is None:
            return np.full(n.shape, np.nan)
        return nodes_of(n, self.per_node, "ScalingPredictor", "per_node")

    def _weights(self) -> dict[str, float]:
        cal = self._calibration()
        names = list(self.members_)
        cv = np.array([self.cv_error_[m] for m in names])
        prior = np.array([cal.cv_prior.get(m, np.nan) for m in names])
        penalty = np.array([cal.penalty.get(m, 0.0) for m in names])
        w = softmin_weights(cv, prior, cal.temperature, penalty, cal.cv_weight)
        w = np.where(w < 1e-12, 0.0, w)  # an excluded model weighs nothing, not 1e-200
        return dict(zip(names, (w / w.sum()).tolist()))

    fitted_attribute = "weights_"

    def _check_fitted(self):
        check_fitted(self)

    # ------------------------------------------------------------- predicting
    def member_predictions(self, n) -> pd.DataFrame:
        """Every fitted model's prediction at ``n``: models x targets (NaN: refused, or beyond the float range).

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1), in ``unit``.
        """
        self._check_fitted()
        n = check_targets(n, "ScalingPredictor.member_predictions")
        data = {name: _member_prediction(model, n) for name, model in self.members_.items()}
        return pd.DataFrame(data, index=n).T

    def plausible_members(self, n) -> pd.DataFrame:
        """Which members' predictions at ``n`` stay within what the measurements support.

        Models x targets, booleans (:func:`plausible`): False where a member turns upward past the measurements
        although they all fell, checked on the doublings from the largest measured allocation to each target.

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1), in ``unit``.
        """
        self._check_fitted()
        n = check_targets(n, "ScalingPredictor.plausible_members")
        return pd.DataFrame(self._members(n)[1], index=list(self.members_), columns=n)

    def _members(self, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the members' predictions at ``n`` and which are plausible (one call each: targets and doublings)."""
        top = float(n.max()) if n.size else self.n_max_
        steps = min(np.ceil(np.log2(max(top / self.n_max_, 1.0))), 24)
        path = self.n_max_ * 2.0 ** np.arange(1, steps + 1)
        grid = np.unique(np.concatenate([n, path[path < top]]))
        G = self.member_predictions(grid).to_numpy(float)
        at = np.searchsorted(grid, n)
        P = G[:, at]
        # the lowest prediction of each member from the largest measurement up to each target
        beyond = grid > self.n_max_
        running = np.fmin.accumulate(np.where(np.isfinite(G) & beyond, G, np.inf), axis=1)
        d = self.descriptors_
        return P, plausible(P, n, self.n_max_, d["t_last"], d["falling"], running[:, at])

    def _combine(self, n):
        """Return the combined prediction, log spread of the models and the chosen model per target."""
        names = list(self.members_)
        if not names:
            return np.full(n.size, np.nan), np.zeros(n.size), np.full(n.size, "", dtype=object)
        P, keep = self._members(n)
        keep = keep if self._calibration().combination == "plausible" else None
        pred, spread, best = combine(P, np.array([self.weights_[m] for m in names]), keep)
        chosen = np.where(best >= 0, np.array(names, dtype=object)[np.maximum(best, 0)], "")
        return pred, spread, chosen

    def interval_features(self, n) -> dict[str, np.ndarray]:
        """Features of the predictor's error model per target (see :mod:`~workbench.models.scaling.calibration`).

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1), in ``unit``.
        """
        self._check_fitted()
        n = check_targets(n, "ScalingPredictor.interval_features")
        return self._features(n, *self._combine(n)[1:])

    def _features(self, n, spread, chosen) -> dict[str, np.ndarray]:
        d = self.descriptors_
        with np.errstate(invalid="ignore"):
            leaves = (self.measured_nodes_ == 1) & (self.target_nodes(n) > 1)
        features = {
            "distance": np.log2(n / self.n_max_),
            "n_points": np.full(n.shape, float(self.allocations_.size)),
            "fit_error": np.array([self.members_[c].fit_error_ if c else np.nan for c in chosen]),
            "disagreement": spread,
            "cv_error": np.full(n.shape, self.combined_cv_error_),
            "noise": np.full(n.shape, d["noise"]),
            "last_exponent": np.full(n.shape, d["last_exponent"]),
            "mean_exponent": np.full(n.shape, d["mean_exponent"]),
            "roughness": np.full(n.shape, d["roughness"]),
            "leaves_node": leaves.astype(float),
            "perfect_scaling": d["best_work"] / n,
        }
        features["novelty"] = self._calibration().novelty(features)
        return features

    def predict(self, n) -> np.ndarray:
        """Return the combined prediction at ``n`` (unit of the fitted runtimes); NaN if no model fits.

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1), in ``unit``.
        """
        self._check_fitted()
        return self._combine(check_targets(n, "ScalingPredictor.predict"))[0]

    def predict_interval(self, n, level: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
        """Calibrated central ``level`` interval (lower, upper) at ``n`` (:meth:`predict_frame`).

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1), in ``unit``.
        level : float, default 0.8
            Probability that the interval holds the actual runtime, in (0, 1).
        """
        frame = self.predict_frame(n, level)
        return frame["lower"].to_numpy(), frame["upper"].to_numpy()

    def predict_frame(self, targets, level: float = 0.8) -> pd.DataFrame:
        """Predict at ``targets``: one row per target, with interval, chosen model and warnings.

        Columns ``n``, ``prediction``, ``lower``, ``upper`` (the calibrated ``level`` interval; runtimes in the unit
        of the fitted ``t``), ``model`` (the model with the largest weight, "" when none fits), ``warned`` (bool),
        ``warnings`` (tuple of kinds, :data:`WARNING_KINDS`) and ``verdict`` (one sentence: how far to trust the row
        and why).  ``frame.attrs["messages"]`` maps each kind that occurs to a sentence with the numbers;
        ``attrs["weights"]`` the model weights, ``attrs["miss_probability"]`` the calibrated chance of each row
        missing by more than the ``miss`` threshold. Never raises for data no model can fit: those rows have NaN
        predictions and intervals and the kind ``"no-model-fits"``.

        Parameters
        ----------
        targets : array-like of float
            Target allocations (finite, >= 1), in ``unit``.
        level : float, default 0.8
            Probability that the interval holds the actual runtime, in (0, 1).
        """
        self._check_fitted()
        level = check_level(level)
        n = check_targets(targets, "ScalingPredictor.predict_frame")
        cal = self._calibration()
        pred, spread, chosen = self._combine(n)
        features = self._features(n, spread, chosen)
        em = cal.error_model("predictor")
        lower, upper = cal.interval("predictor", pred, features, level)
        risk = miss_probability(em, features)
        kinds = warning_kinds(pred, risk, cal.risk_threshold, [w.kind for w in self.warnings_], features["distance"],
                              spread, features["fit_error"], features["novelty"], features["leaves_node"])
        messages = self._messages(kinds, n, spread, chosen, features, risk, cal.risk_threshold)
        warned = [is_warned(k) for k in kinds]
        frame = pd.DataFrame({
            "n": n, "prediction": pred, "lower": lower, "upper": upper, "model": chosen,
            "warned": warned, "warnings": kinds, "verdict": verdicts(kinds, risk, warned),
        }, columns=PREDICT_FRAME_COLUMNS)
        frame.attrs["messages"] = messages
        frame.attrs["weights"] = dict(self.weights_)
        frame.attrs["miss_probability"] = risk
        return frame

    def _messages(self, kinds, n, spread, chosen, features, risk, threshold) -> dict[str, str]:
        """Each warning kind that occurs, in words with the numbers of the worst target."""
        messages = {w.kind: w.message for w in self.warnings_}
        occurring = {k for ks in kinds for k in ks}
        where = {kind: [i for i, ks in enumerate(kinds) if kind in ks] for kind in occurring}
        if "no-model-fits" in occurring:
            messages["no-model-fits"] = ("no model could be fitted to these data: " + "; ".join(
                f"{m}: {why}" for m, why in self.failures_.items()) if self.failures_ else
                "every model refused to predict here (e.g. past a declining last point)")
        if "high-risk" in occurring:
            messages["high-risk"] = (
                f"a miss of more than {percent('miss')} is likely enough to warn (calibrated probability "
                f"{risk.max():.0%} at worst, threshold {threshold:.0%}): treat the interval, not the point, as the "
                "answer")
        if "leaves-node" in occurring:
            i = where["leaves-node"][0]
            factor = self._calibration().error_model("predictor").stretch_factor("leaves_node")
            nodes = self.target_nodes(n[i:i + 1])[0]
            wider = (f"so its interval is {factor:.1f}x as wide as inside one node (as calibrated on predictions "
                     "that crossed a node)" if factor > 1 else "and no calibration data with such a change was "
                     "available to widen its interval by")
            wider += (f", and its lower bound reaches down to perfect scaling from the most efficient run "
                      f"({features['perfect_scaling'][i]:.3g} at n = {n[i]:g})")
            messages["leaves-node"] = (
                f"every measurement ran inside one node, but n = {n[i]:g} {UNITS[self.unit_][1]} needs {nodes:g} "
                f"nodes: what the network adds is not in the data, {wider}. Measure at "
                f"{self.crossing_allocation():g} {UNITS[self.unit_][1]} (the smallest run on two nodes) to see it")
        if "far-extrapolation" in occurring:
            messages["far-extrapolation"] = (
                f"predicting up to {n.max() / self.n_max_:.3g}x the largest measured allocation "
                f"({self.n_max_:g}); measure closer to the target to narrow the interval")
        if "models-disagree" in occurring:
            messages["models-disagree"] = (
                f"the models disagree (spread of their predictions up to {np.expm1(spread.max()):.0%}): "
                "the data do not decide between their shapes")
        if "unlike-calibration" in occurring:
            i = where["unlike-calibration"][0]
            messages["unlike-calibration"] = (
                f"this curve's shape is {features['novelty'][i]:.1f} robust standard deviations from the curves the "
                "intervals were calibrated on: its interval is wider, and still less certain")
        if "poor-fit" in occurring:
            i = where["poor-fit"][0]
            messages["poor-fit"] = (
                f"the chosen model ({chosen[i]}) misses its own data by {features['fit_error'][i]:.0%} (RMS): "
                "the curve has a shape the model cannot follow")
        return messages

    def _data_warnings(self) -> list[ModelWarning]:
        out = []
        alloc, med = self.allocations_, self.medians_
        rise = med[1:] / med[:-1] - 1
        bad = np.flatnonzero(rise > THRESHOLDS["retrograde"].value)
        if bad.size:
            pairs = ", ".join(f"{alloc[i]:g} -> {alloc[i + 1]:g} (+{rise[i]:.0%})" for i in bad)
            out.append(ModelWarning(
                "retrograde-data",
                f"the runtime grows with the allocation between {pairs}: the code slows down at scale; "
                "models that cannot represent a slowdown (Amdahl, ADEPT) will be optimistic beyond it"))
        return out

    # ------------------------------------------------------- where to measure
    def crossing_allocation(self) -> float:
        """Return the smallest allocation that needs two nodes: 2 (unit="nodes"), ``per_node + 1`` or NaN (unknown)."""
        self._check_fitted()
        if self.unit_ == "nodes":
            return 2.0
        return float(self.per_node) + 1.0 if self.per_node is not None else float("nan")

    def measurement_value(self, target: float, candidates=None, level: float = 0.8) -> pd.DataFrame:
        """Where to measure next.

        For each candidate allocation strictly between the largest measured one and ``target``, the interval at
        ``target`` expected after measuring there (the predictor refitted with the candidate's current prediction
        added as a run).  Columns ``n``, ``width_ratio`` (upper / lower at the target, after), ``narrowing`` (fraction
        of today's log width removed, > 0); sorted best first.  The target itself is never proposed, nor a run that
        would not narrow the interval; the frame is empty when nothing lies between.

        Parameters
        ----------
        target : float
            The allocation to predict (finite, >= 1), in ``unit``.
        candidates : array-like of float, optional
            Allocations to consider (rounded; those outside the range above are ignored).  None
            (default): the whole powers of two between, and, when the target leaves the one node
            every measurement ran on, the smallest run on two nodes (:meth:`crossing_allocation`).
        level : float, default 0.8
            Probability of the interval whose width is compared, in (0, 1).
        """
        self._check_fitted()
        target = float(check_targets([target], "ScalingPredictor.measurement_value")[0])
        now = self.predict_frame([target], level).iloc[0]
        top = self.n_max_
        if candidates is None:
            powers = 2.0 ** np.arange(np.ceil(np.log2(top + 1)), np.floor(np.log2(max(target, 1))) + 1)
            candidates = np.append(powers, self.crossing_allocation() if "leaves-node" in now["warnings"] else [])
        cand = check_targets(np.asarray(candidates, float).reshape(-1), "ScalingPredictor.measurement_value")
        cand = np.unique(np.round(cand[(cand > top) & (cand < target)]))
        base_n, base_t = self.allocations_, self.medians_
        rows = []
        now_width = np.log(now["upper"] / now["lower"])
        for m in cand:
            guess = self.predict([m])[0]
            if not np.isfinite(guess):
                continue
            with quiet_warnings():  # this curve's warnings were reported by fit
                after = clone(self).fit(np.append(base_n, m), np.append(base_t, guess)).predict_frame([target], level)
            width = float(after["upper"].iloc[0] / after["lower"].iloc[0])
            narrowing = 1 - np.log(width) / now_width if now_width > 0 else 0.0
            if narrowing > 0:
                rows.append({"n": float(m), "width_ratio": width, "narrowing": float(narrowing)})
        frame = pd.DataFrame(rows, columns=["n", "width_ratio", "narrowing"])
        return frame.sort_values("width_ratio", kind="stable").reset_index(drop=True)
