"""Prediction-accuracy metrics: the one place where predictions are scored.

Every function takes ``pred`` (predicted values) and ``actual`` (measured values) as
one-dimensional array-likes of equal length (lists, numpy arrays, pandas Series; a
scalar counts as one point) and validates them, raising
:class:`~workbench.errors.ValidationError` with a message that names the metric, the
argument and the first offending position.

The thesis (section 3.7) scores predictions by the relative error percentage
``E = |pred - actual| / actual * 100`` and the prediction accuracy ``PA = 100 - E``;
the other metrics are the usual regression scores, defined as in scikit-learn where it
has them.  Relative metrics (E, PA, MPE, MAPE, share within) need ``actual > 0``; all
of them, and R^2 and Spearman's rho, are invariant under multiplying both arguments by
the same positive constant (a change of time unit).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from workbench.errors import ValidationError
from workbench.validation import as_vector

__all__ = [
    "error_pct",
    "prediction_accuracy",
    "rmse",
    "mpe",
    "mape",
    "r2",
    "spearman",
    "share_within",
    "summarize",
]


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _validated(pred, actual, metric: str, *, relative: bool = False, min_points: int = 1):
    """Return ``pred`` and ``actual`` as equal-length finite float vectors."""
    p = as_vector(pred, "pred", metric)
    a = as_vector(actual, "actual", metric)
    if p.size != a.size:
        raise ValidationError(f"{metric}: pred and actual must have the same length, got {p.size} and {a.size}")
    if p.size < min_points:
        raise ValidationError(f"{metric}: needs at least {min_points} points, got {p.size}")
    for name, arr in (("pred", p), ("actual", a)):
        bad = ~np.isfinite(arr)
        if bad.any():
            i = _first_bad(bad)
            raise ValidationError(f"{metric}: {name} must be finite, got {name}[{i}] = {arr[i]}")
    if relative and np.any(a <= 0):
        i = _first_bad(a <= 0)
        raise ValidationError(
            f"{metric}: actual must be > 0 for a relative error, got actual[{i}] = {a[i]}"
        )
    return p, a


def _elementwise_result(values: np.ndarray, like) -> np.ndarray | float:
    # a scalar in gives a float out; anything else a vector of the same length
    return float(values[0]) if np.ndim(like) == 0 else values


def error_pct(pred, actual) -> np.ndarray | float:
    """Relative error percentage per point, ``E = |pred - actual| / actual * 100``
    (thesis section 3.7).  Needs ``actual > 0``."""
    p, a = _validated(pred, actual, "error_pct", relative=True)
    return _elementwise_result(np.abs(p - a) / a * 100.0, actual)


def prediction_accuracy(pred, actual) -> np.ndarray | float:
    """Prediction accuracy percentage per point, ``PA = 100 - E`` (thesis section 3.7).

    Negative when a prediction is off by more than 100 %."""
    p, a = _validated(pred, actual, "prediction_accuracy", relative=True)
    return _elementwise_result(100.0 - np.abs(p - a) / a * 100.0, actual)


def rmse(pred, actual) -> float:
    """Root mean squared error, in the unit of the inputs."""
    p, a = _validated(pred, actual, "rmse")
    return float(np.sqrt(np.mean((p - a) ** 2)))


def mpe(pred, actual) -> float:
    """Mean percentage error, signed: ``mean((pred - actual) / actual) * 100``.

    Positive when the predictions overestimate on average."""
    p, a = _validated(pred, actual, "mpe", relative=True)
    return float(np.mean((p - a) / a) * 100.0)


def mape(pred, actual) -> float:
    """Mean absolute percentage error, ``mean(E)``, in percent (not sklearn's fraction)."""
    p, a = _validated(pred, actual, "mape", relative=True)
    return float(np.mean(np.abs(p - a) / a) * 100.0)


def r2(pred, actual) -> float:
    """Coefficient of determination ``1 - SS_res / SS_tot``, as
    :func:`sklearn.metrics.r2_score` (argument order reversed: pred first).

    Like sklearn's default (``force_finite=True``), a constant ``actual`` scores 1.0
    for a perfect prediction and 0.0 otherwise.  Needs at least 2 points."""
    p, a = _validated(pred, actual, "r2", min_points=2)
    ss_res = np.sum((a - p) ** 2)
    ss_tot = np.sum((a - np.average(a)) ** 2)
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return float(1.0 - ss_res / ss_tot)


def spearman(pred, actual) -> float:
    """Spearman rank correlation between predictions and actual values (ties get their
    average rank), via :func:`scipy.stats.spearmanr`.

    NaN when either argument is constant (the correlation is undefined).  Needs at least
    2 points."""
    p, a = _validated(pred, actual, "spearman", min_points=2)
    if np.ptp(p) == 0 or np.ptp(a) == 0:
        return float("nan")
    return float(stats.spearmanr(p, a).statistic)


def share_within(pred, actual, pct: float = 30) -> float:
    """Fraction (0..1) of predictions whose error ``E`` is at most ``pct`` percent.

    The bound is inclusive up to floating-point rounding (1.3 vs 1.0 is within 30 %)."""
    p, a = _validated(pred, actual, "share_within", relative=True)
    if not np.isfinite(pct) or pct < 0:
        raise ValidationError(f"share_within: pct must be finite and >= 0, got {pct!r}")
    e = np.abs(p - a) / a * 100.0
    return float(np.mean(e <= pct * (1 + 1e-12)))


def summarize(pred, actual, pct: float = 30) -> dict[str, float]:
    """All metrics at once, as a flat dict (one row of a tidy comparison table:
    ``pandas.DataFrame([summarize(p, a) for p in ...])``).

    Keys: ``n_points``; ``rmse`` (input unit); ``mpe``, ``mape``, ``max_error_pct``,
    ``mean_pa``, ``min_pa`` (percent); ``r2``; ``spearman``; ``share_within_<pct>``
    (fraction).  With a single point ``r2`` and ``spearman`` are NaN instead of raising,
    so that one prediction can still be summarised.
    """
    p, a = _validated(pred, actual, "summarize", relative=True)
    e = error_pct(p, a)
    many = p.size >= 2
    return {
        "n_points": int(p.size),
        "rmse": rmse(p, a),
        "mpe": mpe(p, a),
        "mape": float(np.mean(e)),
        "max_error_pct": float(np.max(e)),
        "mean_pa": float(100.0 - np.mean(e)),
        "min_pa": float(100.0 - np.max(e)),
        "r2": r2(p, a) if many else float("nan"),
        "spearman": spearman(p, a) if many else float("nan"),
        f"share_within_{pct:g}": share_within(p, a, pct),
    }
