"""Calibrated prediction intervals: how far off a scaling model is on curves it did not see.

The error of a prediction is ``e = log(actual / predicted)``.  For every model, an
:class:`ErrorModel` describes its distribution as a *location-scale* model learnt from real
held-back runtimes (the scaling corpus, leave-one-source-out):

    e = mu(x) + s(x) z,    mu(x) = a . [1, extrapolation],    log s(x) = b . [1, features(x)]

where the features say how hard the prediction is (how far past the largest measured
allocation, in doublings; whether the target lies inside the measured range; the model's
in-sample misfit; how few allocations it saw; for the predictor also how much the models
disagree and how well they predicted the curve's own largest allocations).  ``a`` is a
weighted median regression (a robust bias correction), ``b`` the maximum-likelihood scale of
a Laplace model (convex), and the distribution of the standardised errors ``z`` is kept as
its empirical quantiles, so the tails are the data's, not a Gaussian's.  This is
normalised split-conformal prediction: the quantiles of ``z`` are read on curves the scale
model was not fitted to when :func:`fit_error_model` is given a separate calibration set.

A :class:`Calibration` bundles one error model per model name, the corpus-wide
cross-validation error per model (the predictor's prior), the predictor's combination
temperature and its warning threshold; it is stored as JSON next to this module
(``calibration.json``, numbers only, no data) and made by ``tools/scaling_benchmark.py``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from scipy import optimize, sparse

from workbench.errors import ValidationError
from workbench.validation import as_vector, check_level, require_valid

__all__ = [
    "CALIBRATION_PATH",
    "check_level",
    "FEATURES",
    "PREDICTOR_FEATURES",
    "PROBABILITIES",
    "Calibration",
    "ErrorModel",
    "default_calibration",
    "design_matrix",
    "fit_error_model",
    "miss_probability",
    "novelty_stats",
    "NOVELTY_DESCRIPTORS",
]

CALIBRATION_PATH = Path(__file__).with_name("calibration.json")
#: Features of a single model's error scale (see :func:`design_matrix`).
FEATURES = ("extrapolation", "inside", "log_fit_error", "inv_points")
#: The predictor's features: the single-model ones, two that only an ensemble has, and four that say
#: how hard this curve is and how unlike the calibration curves (its noise, its flattening, how much its
#: local scaling jumps, its distance from them).
#: A target that leaves the one node every measurement ran on is not a feature of the scale but a
#: stretch of the quantiles (``ErrorModel.stretch``), calibrated on predictions that cross a node,
#: and its interval reaches down to perfect scaling (:meth:`Calibration.interval`).
PREDICTOR_FEATURES = FEATURES + ("log_disagreement", "log_cv_error", "log_noise", "flattening", "roughness",
                                 "novelty")
#: Curve descriptors whose robust distance from the calibration curves is the ``novelty`` feature.
NOVELTY_DESCRIPTORS = ("last_exponent", "mean_exponent", "roughness", "log_noise", "log_fit_error")
#: Probabilities at which the standardised-error quantiles are stored.
PROBABILITIES = tuple(np.round(np.concatenate([[0.005, 0.01, 0.025], np.arange(0.05, 0.951, 0.025),
                                               [0.975, 0.99, 0.995]]), 4).tolist())
# Floor added before taking logs of error-like features: a 1 % misfit is "no misfit".
_FLOOR = 0.01


def design_matrix(features: dict, names: tuple[str, ...]) -> np.ndarray:
    """Build the columns ``[1, names...]`` from raw features.

    Features ``distance``, ``n_points``, ``fit_error``, ``disagreement``, ``cv_error``; arrays
    of one length.  Missing or NaN error-like inputs count as the floor (no evidence of a
    problem).

    Parameters
    ----------
    features : dict of str to array-like
        Raw features, one value per target (a scalar is broadcast): ``distance`` (log2 of
        target / largest measured allocation) always, ``n_points`` for ``inv_points``;
        ``fit_error``, ``disagreement``, ``cv_error``, ``noise`` (relative errors),
        ``last_exponent``, ``mean_exponent``, ``roughness``, ``novelty`` and ``leaves_node``
        (0/1) may be missing and then take a neutral value (no evidence of a problem).
    names : tuple of str
        The columns to build after the intercept, in order (from :data:`PREDICTOR_FEATURES`,
        :data:`NOVELTY_DESCRIPTORS` or ``"leaves_node"``).
    """
    d = np.asarray(features["distance"], float)

    def err(key):
        v = np.asarray(features.get(key, np.zeros_like(d)), float) * np.ones_like(d)
        return np.log(np.where(np.isfinite(v), v, 0.0) + _FLOOR)

    def raw(key, default=0.0):
        v = np.asarray(features.get(key, np.full_like(d, default)), float) * np.ones_like(d)
        return np.where(np.isfinite(v), v, default)

    columns = {
        "extrapolation": lambda: np.maximum(d, 0.0),
        "inside": lambda: (d <= 1e-9).astype(float),
        "log_fit_error": lambda: err("fit_error"),
        "inv_points": lambda: 1.0 / np.asarray(features["n_points"], float) * np.ones_like(d),
        "log_disagreement": lambda: err("disagreement"),
        "log_cv_error": lambda: err("cv_error"),
        "log_noise": lambda: err("noise"),
        # how far the last measured step is from ideal scaling, either way (capped: a curve that turned)
        "flattening": lambda: np.minimum(np.abs(1.0 - raw("last_exponent", 1.0)), 2.0),
        "novelty": lambda: np.minimum(raw("novelty"), 10.0),
        "roughness": lambda: np.minimum(np.abs(raw("roughness")), 2.0),
        "leaves_node": lambda: raw("leaves_node"),
        "last_exponent": lambda: np.clip(raw("last_exponent", 1.0), -2.0, 3.0),
        "mean_exponent": lambda: np.clip(raw("mean_exponent", 1.0), -2.0, 3.0),
    }
    return np.column_stack([np.ones_like(d)] + [columns[k]() for k in names])


def novelty_stats(features: dict, weights=None) -> tuple[dict, dict]:
    """Robust centre (weighted median) and scale (1.4826 x weighted MAD) of each novelty descriptor.

    Parameters
    ----------
    features : dict of str to array-like
        Raw features of the calibration predictions (:func:`design_matrix`).
    weights : array-like of float, optional
        One weight (>= 0) per prediction; None (default) weighs all equally.
    """
    X = design_matrix(features, NOVELTY_DESCRIPTORS)[:, 1:]
    w = np.ones(len(X)) if weights is None else np.asarray(weights, float)
    centre, scale = {}, {}
    for j, name in enumerate(NOVELTY_DESCRIPTORS):
        c = float(_weighted_quantiles(X[:, j], w, [0.5])[0])
        mad = float(_weighted_quantiles(np.abs(X[:, j] - c), w, [0.5])[0])
        centre[name], scale[name] = c, max(1.4826 * mad, 1e-3)
    return centre, scale


@dataclass(frozen=True)
class ErrorModel:
    """Location-scale model of ``e = log(actual / predicted)`` for one model (module docstring).

    ``location`` are the coefficients on ``[1, extrapolation]``, ``scale`` on
    ``[1, features...]``; ``quantiles`` of the standardised error ``z`` at ``PROBABILITIES``;
    ``n_records`` the held-back predictions it was learnt from.
    """

    features: tuple[str, ...]
    location: tuple[float, ...]
    scale: tuple[float, ...]
    quantiles: tuple[float, ...]
    n_records: int
    stretch: tuple[tuple[str, float], ...] = ()

    def _mu_s(self, features: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        X = design_matrix(features, self.features)
        mu = X[:, :2] @ np.asarray(self.location)
        s = np.exp(np.clip(X @ np.asarray(self.scale), -12, 5))
        # a flagged target's standardised errors are stretched about their median by the stored factor
        factor = np.ones(len(X))
        for name, value in self.stretch:
            flag = np.asarray(features.get(name, np.zeros(len(X))), float) * np.ones(len(X))
            factor = np.where(np.nan_to_num(flag) > 0, factor * value, factor)
        return mu, s, factor

    def error_quantile(self, features: dict, p: float) -> np.ndarray:
        """Return the ``p`` quantile of the log error at each target.

        Parameters
        ----------
        features : dict of str to array-like
            Raw features per target (:func:`design_matrix`): this model's ``features`` and
            its stretch flags (e.g. ``leaves_node``).
        p : float
            Probability, read within the stored range 0.005 to 0.995 (clipped beyond).
        """
        mu, s, factor = self._mu_s(features)
        mid = np.interp(0.5, PROBABILITIES, self.quantiles)
        return mu + s * (mid + factor * (np.interp(p, PROBABILITIES, self.quantiles) - mid))

    def error_cdf(self, features: dict, e) -> np.ndarray:
        """P(log error <= e) at each target (clipped to the stored probability range).

        Parameters
        ----------
        features : dict of str to array-like
            Raw features per target (:func:`design_matrix`): this model's ``features`` and
            its stretch flags (e.g. ``leaves_node``).
        e : float or array-like of float
            Log error ``log(actual / predicted)``, one value or one per target.
        """
        mu, s, factor = self._mu_s(features)
        mid = np.interp(0.5, PROBABILITIES, self.quantiles)
        z = mid + ((np.asarray(e, float) - mu) / s - mid) / factor
        return np.interp(z, self.quantiles, PROBABILITIES)

    def stretch_factor(self, name: str) -> float:
        """Return how much wider the interval of a target flagged ``name`` is (1.0: not stretched).

        Parameters
        ----------
        name : str
            A flag feature, e.g. ``"leaves_node"``.
        """
        return float(dict(self.stretch).get(name, 1.0))


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, probs) -> np.ndarray:
    order = np.argsort(values)
    v, w = values[order], weights[order]
    cum = (np.cumsum(w) - 0.5 * w) / w.sum()
    return np.interp(probs, cum, v)


def fit_error_model(errors, features: dict, names: tuple[str, ...] = FEATURES, weights=None,
                    ridge: float = 1e-3) -> ErrorModel:
    """Learn an :class:`ErrorModel` from held-back log errors and their raw features.

    ``weights`` (default 1) let every fitted curve count once whatever its number of targets.
    ``ridge`` is a small L2 penalty on the scale coefficients (but the intercept) that keeps
    them finite when a feature is constant in the data.

    Parameters
    ----------
    errors : array-like of float
        Held-back log errors ``log(actual / predicted)``; non-finite ones and
        ``|e| >= 1000`` are left out.  At least 20 must remain.
    features : dict of str to array-like
        Raw features, one value per error (:func:`design_matrix`); ``distance`` and
        ``n_points`` are required.
    names : tuple of str, default FEATURES
        The scale model's features (columns after the intercept).
    weights : array-like of float, optional
        One weight (finite, >= 0) per error; None (default) weighs all equally.
    ridge : float, default 1e-3
        L2 penalty on the scale coefficients but the intercept.
    """
    where = "fit_error_model"
    e = as_vector(errors, "errors", where)
    w = np.ones_like(e) if weights is None else as_vector(weights, "weights", where)
    if w.size != e.size:
        raise ValidationError(f"{where}: weights must have one value per error, got {w.size} and {e.size}")
    require_valid(~np.isfinite(w) | (w < 0), w, "weights", "finite and >= 0", where)
    if not isinstance(features, dict) or "distance" not in features or "n_points" not in features:
        raise ValidationError(f"{where}: features must be a dict with at least 'distance' and 'n_points' arrays")
    for key, value in features.items():
        v = as_vector(value, f"features[{key!r}]", where)
        if v.size != e.size and (key == "distance" or v.size != 1):
            raise ValidationError(f"{where}: features[{key!r}] must have one value per error, got {v.size} and "
                                  f"{e.size}")
    ok = np.isfinite(e) & (np.abs(e) < 1e3)  # |log error| >= 1e3: not a runtime ratio, left out
    X = design_matrix(features, names)
    ok &= np.isfinite(X).all(axis=1) & (w > 0)
    if ok.sum() < 20:
        raise ValidationError(f"an error model needs at least 20 held-back predictions, got {int(ok.sum())}")
    X = X[ok]
    e, w = e[ok], w[ok] / w[ok].mean()
    # location: weighted least absolute deviations (a linear programme), robust to the tails
    X_loc = X[:, :2]
    k = X_loc.shape[1]
    m = len(e)
    # min sum w (u + v)  s.t.  X a + u - v = e,  u, v >= 0  (sparse: memory linear in m)
    eye = sparse.identity(m, format="csc")
    res = optimize.linprog(
        np.concatenate([np.zeros(k), w, w]),
        A_eq=sparse.hstack([sparse.csc_matrix(X_loc), eye, -eye], format="csc"), b_eq=e,
        bounds=[(None, None)] * k + [(0, None)] * (2 * m), method="highs")
    a = res.x[:k] if res.success else np.array([np.median(e), 0.0])
    r = np.abs(e - X_loc @ a) + 1e-6

    # scale: Laplace negative log-likelihood sum w (|r| exp(-Xb) + Xb), convex in b
    def nll(b):
        eta = np.clip(X @ b, -30, 30)
        q = r * np.exp(-eta)
        pen = ridge * np.sum(b[1:] ** 2)
        grad = X.T @ (w * (1.0 - q)) + np.concatenate([[0.0], 2 * ridge * b[1:]])
        return float(np.sum(w * (q + eta)) + pen), grad

    b0 = np.zeros(X.shape[1])
    b0[0] = np.log(np.average(r, weights=w))
    b = optimize.minimize(nll, b0, jac=True, method="L-BFGS-B").x
    z = (e - X_loc @ a) / np.exp(X @ b)
    q = _weighted_quantiles(z, w, PROBABILITIES)
    return ErrorModel(tuple(names), tuple(map(float, a)), tuple(map(float, b)), tuple(map(float, q)), int(m))


def miss_probability(error_model: ErrorModel, features: dict, miss: float = 0.30) -> np.ndarray:
    """Return the calibrated probability that a prediction misses by more than ``miss``.

    Relative error ``|pred - actual| / actual``: ``e < -log(1 + miss)`` or
    ``e > -log(1 - miss)``.

    Parameters
    ----------
    error_model : ErrorModel
        The calibrated error distribution of the model (or of the predictor).
    features : dict of str to array-like
        Raw features per target (:func:`design_matrix`): the error model's ``features`` and
        its stretch flags (e.g. ``leaves_node``).
    miss : float, default 0.30
        Relative error that counts as a miss, in (0, 1) (0.30: off by more than 30 %).
    """
    low = error_model.error_cdf(features, -np.log1p(miss))
    high = 1.0 - error_model.error_cdf(features, -np.log1p(-miss))
    return np.clip(low + high, 0.0, 1.0)


@dataclass(frozen=True)
class Calibration:
    """Everything the scaling models and the predictor learnt from real curves.

    ``error_models``: model name -> :class:`ErrorModel` (``"predictor"`` for
    :class:`~workbench.models.scaling.ScalingPredictor`).  ``cv_prior``: model name -> the
    corpus median of the model's leave-largest-out log error (used for a model the curve
    at hand is too short to cross-validate).  ``penalty``: model name -> what the predictor
    adds to the model's cross-validation error before the softmin (learnt: how much worse
    than its one-step cross-validation the model extrapolates across the corpus).
    ``cv_weight``: how much the curve's own cross-validation error counts against the
    penalty.  ``temperature``: the predictor's softmin temperature.  ``risk_threshold``: the predictor warns when
    the calibrated probability of a > 30 % miss reaches it.  ``provenance``: how the
    numbers were made.  ``combination``: ``"all"`` (every member in the weighted geometric
    mean) or ``"plausible"`` (members whose extrapolation leaves what the data show drop out,
    :func:`~workbench.models.scaling.predictor.plausible`), chosen on the data.
    ``novelty_centre``/``novelty_scale``: the calibration curves' descriptor statistics behind
    :meth:`novelty`.
    """

    error_models: dict
    cv_prior: dict
    temperature: float
    risk_threshold: float
    penalty: dict = field(default_factory=dict)
    cv_weight: float = 1.0
    provenance: dict = field(default_factory=dict)
    combination: str = "all"
    novelty_centre: dict = field(default_factory=dict)
    novelty_scale: dict = field(default_factory=dict)

    def novelty(self, features: dict) -> np.ndarray:
        """Return how unlike the calibration curves a curve is, per target.

        The root-mean-square of its :data:`NOVELTY_DESCRIPTORS`, each standardised by the
        calibration curves' median and MAD (0: a typical curve; 0 without stored statistics).

        Parameters
        ----------
        features : dict of str to array-like
            Raw features per target (:func:`design_matrix`): ``distance`` and the
            :data:`NOVELTY_DESCRIPTORS` (a missing one takes its neutral value).
        """
        d = np.asarray(features["distance"], float)
        if not self.novelty_centre:
            return np.zeros_like(d)
        X = design_matrix(features, NOVELTY_DESCRIPTORS)[:, 1:]
        centre = np.array([self.novelty_centre[k] for k in NOVELTY_DESCRIPTORS])
        scale = np.array([self.novelty_scale[k] for k in NOVELTY_DESCRIPTORS])
        return np.sqrt(np.mean(((X - centre) / scale) ** 2, axis=1))

    def error_model(self, model: str) -> ErrorModel:
        """Return the error model of ``model``, or raise a ValidationError.

        Parameters
        ----------
        model : str
            A model name of :data:`~workbench.models.scaling.MODELS` or ``"predictor"``.
        """
        try:
            return self.error_models[model]
        except KeyError:
            raise ValidationError(
                f"no interval calibration for model {model!r}; calibrated: {', '.join(sorted(self.error_models))}"
            ) from None

    def interval(self, model: str, prediction, features: dict, level: float = 0.8):
        """Return (lower, upper): the central ``level`` interval around ``prediction``.

        Parameters
        ----------
        model : str
            The error model's name (a member model or ``"predictor"``).
        prediction : array-like of float
            Point predictions (runtimes).
        features : dict of str to array-like
            The error model's features per prediction.  Where ``leaves_node`` is set and
            ``perfect_scaling`` (the runtime of perfect strong scaling from the most efficient
            measured run) is given, the lower bound reaches down to it: measurements inside
            one node cannot show what the network adds or takes away (more memory bandwidth
            and cache per process can make a code run much faster than any in-node trend
            says), and perfect scaling is the one bound no such change beats.
        level : float, default 0.8
            Central probability of the interval, in (0, 1).

        Returns
        -------
        tuple of numpy.ndarray
            (lower, upper); NaN where the prediction is NaN.  An upper bound beyond the float
            range, for predictions near 1e308, is capped at the largest float.
        """
        level = check_level(level)
        em = self.error_model(model)
        p = np.asarray(prediction, float)
        with np.errstate(over="ignore"):
            lo = p * np.exp(em.error_quantile(features, (1 - level) / 2))
            hi = p * np.exp(em.error_quantile(features, (1 + level) / 2))
        leaves = np.nan_to_num(np.asarray(features.get("leaves_node", 0.0), float)) > 0
        floor = np.asarray(features.get("perfect_scaling", np.nan), float) * np.ones_like(p)
        lo = np.where(leaves & np.isfinite(floor), np.fmin(lo, floor), lo)
        # the location corrects a model's typical bias, which can move a narrow interval past
        # the model's own prediction; a reader expects the point inside its interval, and
        # widening to it only adds coverage.  No prediction (NaN): no interval either.
        refused = ~np.isfinite(p)
        return (np.where(refused, np.nan, np.fmin(lo, p)),
                np.where(refused, np.nan, np.fmin(np.fmax(hi, p), np.finfo(float).max)))

    # ---------------------------------------------------------------- storage
    def to_json(self, path: str | Path) -> None:
        """Write the calibration to ``path`` as JSON.

        Parameters
        ----------
        path : str or pathlib.Path
            The file to write (replaced if it exists).
        """
        data = {
            "error_models": {k: asdict(v) for k, v in self.error_models.items()},
            "cv_prior": self.cv_prior, "temperature": self.temperature,
            "risk_threshold": self.risk_threshold, "penalty": self.penalty, "cv_weight": self.cv_weight,
            "provenance": self.provenance, "combination": self.combination,
            "novelty_centre": self.novelty_centre, "novelty_scale": self.novelty_scale,
            "probabilities": list(PROBABILITIES),
        }
        Path(path).write_text(json.dumps(data, indent=1) + "\n")

    @classmethod
    def from_json(cls, path: str | Path) -> Calibration:
        """Read a calibration written by :meth:`to_json`.

        Parameters
        ----------
        path : str or pathlib.Path
            A JSON file made for the current :data:`PROBABILITIES` (else a ValidationError).
        """
        data = json.loads(Path(path).read_text())
        if tuple(data.get("probabilities", ())) != PROBABILITIES:
            raise ValidationError(f"{path}: calibration made for other probability levels; rebuild it")
        models = {k: ErrorModel(**{**v, "features": tuple(v["features"]), "location": tuple(v["location"]),
                                   "scale": tuple(v["scale"]), "quantiles": tuple(v["quantiles"]),
                                   "stretch": tuple((str(a), float(b)) for a, b in v.get("stretch", ()))})
                  for k, v in data["error_models"].items()}
        return cls(models, data["cv_prior"], data["temperature"], data["risk_threshold"], data.get("penalty", {}),
                   data.get("cv_weight", 1.0), data.get("provenance", {}), data.get("combination", "all"),
                   data.get("novelty_centre", {}), data.get("novelty_scale", {}))


@functools.lru_cache(maxsize=1)
def default_calibration() -> Calibration:
    """Return the calibration shipped with the package (``calibration.json``)."""
    if not CALIBRATION_PATH.exists():
        raise ValidationError(f"the interval calibration {CALIBRATION_PATH} is missing; run tools/scaling_benchmark.py")
    return Calibration.from_json(CALIBRATION_PATH)
