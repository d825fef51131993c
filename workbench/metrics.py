"""Prediction-accuracy metrics: the one place where predictions are scored.

Every function takes ``y_true`` (measured values) and then ``y_pred`` (predicted values),
in scikit-learn's order and with its names, as one-dimensional array-likes of equal length
(lists, numpy arrays, pandas Series; a scalar counts as one point) and validates them,
raising :class:`~workbench.errors.ValidationError` with a message that names the metric,
the argument and the first offending position.

``y_true`` is the reference: relative errors divide by it and R^2 measures the residuals
against its variance, so most metrics give a different number when the two arguments are
swapped (only RMSE and Spearman's rho are symmetric).

[Deshmeh2013] (section 3.7) scores predictions by the relative error percentage
``E = |y_pred - y_true| / y_true * 100`` and the prediction accuracy ``PA = 100 - E``;
the other metrics are the usual regression scores, defined as in scikit-learn where it
has them.  Relative metrics (E, PA, MPE, MAPE, share within) need ``y_true > 0``; all
of them, and R^2 and Spearman's rho, are invariant under multiplying both arguments by
the same positive constant (a change of time unit).
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from workbench.errors import ValidationError
from workbench.validation import Threshold, as_vector

# the metric functions (re-exported by workbench.evaluation); ERROR_BAND and band_text are
# module attributes, used by name
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


#: The error band of the communication models' papers (their "within ±30 %"), declared once:
#: :func:`share_within` and :func:`summarize` default to it, the comm figures draw it and the
#: comm tables name it with :func:`band_text`.
ERROR_BAND = Threshold(
    30.0, "percent", "a prediction is within the band when its error E = |predicted - measured| / measured is at "
    "most this", "share_within, summarize; the comm regression and comm GBM figures, scores and tables")


def band_text(pct: float = ERROR_BAND.value) -> str:
    """Return the band of half-width ``pct`` percent as the figures and tables write it: ``"±30 %"``.

    Parameters
    ----------
    pct : float, default ERROR_BAND.value (30)
        Half-width of the band, in percent.
    """
    return f"±{pct:g} %"


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _validated(y_true, y_pred, metric: str, *, relative: bool = False, min_points: int = 1):
    """Return ``y_true`` and ``y_pred`` as equal-length finite float vectors."""
    t = as_vector(y_true, "y_true", metric)
    p = as_vector(y_pred, "y_pred", metric)
    if t.size != p.size:
        raise ValidationError(f"{metric}: y_true and y_pred must have the same length, got {t.size} and {p.size}")
    if t.size < min_points:
        raise ValidationError(f"{metric}: needs at least {min_points} points, got {t.size}")
    for name, arr in (("y_true", t), ("y_pred", p)):
        bad = ~np.isfinite(arr)
        if bad.any():
            i = _first_bad(bad)
            raise ValidationError(f"{metric}: {name} must be finite, got {name}[{i}] = {arr[i]}")
    if relative and np.any(t <= 0):
        i = _first_bad(t <= 0)
        raise ValidationError(
            f"{metric}: y_true (the measured values) must be > 0 for a relative error, "
            f"got y_true[{i}] = {t[i]}"
        )
    return t, p


def _elementwise_result(values: np.ndarray, like) -> np.ndarray | float:
    # a scalar in gives a float out; anything else a vector of the same length
    return float(values[0]) if np.ndim(like) == 0 else values


def error_pct(y_true, y_pred) -> np.ndarray | float:
    """Relative error percentage per point, ``E = |y_pred - y_true| / y_true * 100`` ([Deshmeh2013] section 3.7).

    Parameters
    ----------
    y_true : array-like or float
        Measured values, the reference the error is relative to (divided by); must be > 0.
    y_pred : array-like or float
        Predicted values, same length.  The order is scikit-learn's: swapping the arguments
        divides by the prediction instead and gives a different number.

    Returns
    -------
    numpy.ndarray or float
        E per point in percent (a float when ``y_true`` is a scalar).
    """
    t, p = _validated(y_true, y_pred, "error_pct", relative=True)
    return _elementwise_result(np.abs(p - t) / t * 100.0, y_true)


def prediction_accuracy(y_true, y_pred) -> np.ndarray | float:
    """Prediction accuracy percentage per point, ``PA = 100 - E`` ([Deshmeh2013] section 3.7).

    Negative when a prediction is off by more than 100 %.

    Parameters
    ----------
    y_true : array-like or float
        Measured values, the reference E is relative to (divided by); must be > 0.
    y_pred : array-like or float
        Predicted values, same length (scikit-learn's order: measured first).

    Returns
    -------
    numpy.ndarray or float
        PA per point in percent (a float when ``y_true`` is a scalar).
    """
    t, p = _validated(y_true, y_pred, "prediction_accuracy", relative=True)
    return _elementwise_result(100.0 - np.abs(p - t) / t * 100.0, y_true)


def rmse(y_true, y_pred) -> float:
    """Root mean squared error, in the unit of the inputs, as :func:`sklearn.metrics.root_mean_squared_error`.

    Parameters
    ----------
    y_true : array-like
        Measured values.
    y_pred : array-like
        Predicted values, same length.  RMSE is symmetric in the two; the order is
        scikit-learn's, like every metric here.
    """
    t, p = _validated(y_true, y_pred, "rmse")
    return float(np.sqrt(np.mean((p - t) ** 2)))


def mpe(y_true, y_pred) -> float:
    """Mean percentage error, signed: ``mean((y_pred - y_true) / y_true) * 100``.

    Positive when the predictions overestimate on average.

    Parameters
    ----------
    y_true : array-like
        Measured values, the reference each error is relative to (divided by); must be > 0.
    y_pred : array-like
        Predicted values, same length (scikit-learn's order: measured first; swapped,
        the sign and the size change).
    """
    t, p = _validated(y_true, y_pred, "mpe", relative=True)
    return float(np.mean((p - t) / t) * 100.0)


def mape(y_true, y_pred) -> float:
    """Mean absolute percentage error, ``mean(E)``, in percent.

    100 times :func:`sklearn.metrics.mean_absolute_percentage_error` (which returns a
    fraction).

    Parameters
    ----------
    y_true : array-like
        Measured values, the reference each error is relative to (divided by); must be > 0.
    y_pred : array-like
        Predicted values, same length (scikit-learn's order: measured first).
    """
    t, p = _validated(y_true, y_pred, "mape", relative=True)
    return float(np.mean(np.abs(p - t) / t) * 100.0)


def r2(y_true, y_pred) -> float:
    """Coefficient of determination ``1 - SS_res / SS_tot``, as :func:`sklearn.metrics.r2_score` (same argument order).

    Like sklearn's default (``force_finite=True``), a constant ``y_true`` scores 1.0
    for a perfect prediction and 0.0 otherwise.  Needs at least 2 points.

    Parameters
    ----------
    y_true : array-like
        Measured values, the reference: ``SS_tot`` is the spread of ``y_true`` about its
        mean, ``SS_res = sum((y_true - y_pred)**2)``.  Swapping the arguments measures
        against the spread of the predictions instead and gives a different number.
    y_pred : array-like
        Predicted values, same length.
    """
    t, p = _validated(y_true, y_pred, "r2", min_points=2)
    ss_res = np.sum((t - p) ** 2)
    ss_tot = np.sum((t - np.average(t)) ** 2)
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return float(1.0 - ss_res / ss_tot)


def spearman(y_true, y_pred) -> float:
    """Compute the Spearman rank correlation between measured and predicted values.

    Ties get their average rank; computed by :func:`scipy.stats.spearmanr`.

    NaN when either argument is constant (the correlation is undefined).  Needs at least
    2 points.

    Parameters
    ----------
    y_true : array-like
        Measured values.
    y_pred : array-like
        Predicted values, same length.  The correlation is symmetric in the two; the order
        is scikit-learn's, like every metric here.
    """
    t, p = _validated(y_true, y_pred, "spearman", min_points=2)
    if np.ptp(t) == 0 or np.ptp(p) == 0:
        return float("nan")
    # predictions first: the correlation is symmetric, but the other order can differ in the
    # last bit, and the reference numbers were computed in this order
    return float(stats.spearmanr(p, t).statistic)


def share_within(y_true, y_pred, pct: float = ERROR_BAND.value) -> float:
    """Fraction (0..1) of predictions whose error ``E`` is at most ``pct`` percent.

    The bound is inclusive up to floating-point rounding (1.3 vs 1.0 is within 30 %).

    Parameters
    ----------
    y_true : array-like
        Measured values, the reference E is relative to (divided by); must be > 0.
    y_pred : array-like
        Predicted values, same length (scikit-learn's order: measured first).
    pct : float, default 30
        The bound on E, in percent, finite and >= 0.
    """
    t, p = _validated(y_true, y_pred, "share_within", relative=True)
    if not np.isfinite(pct) or pct < 0:
        raise ValidationError(f"share_within: pct must be finite and >= 0, got {pct!r}")
    e = np.abs(p - t) / t * 100.0
    return float(np.mean(e <= pct * (1 + 1e-12)))


def summarize(y_true, y_pred, pct: float = ERROR_BAND.value) -> dict[str, float]:
    """Compute all metrics at once, as a flat dict.

    One row of a tidy comparison table:
    ``pandas.DataFrame([summarize(y_true, p) for p in ...])``.

    Parameters
    ----------
    y_true : array-like
        Measured values, the reference of every metric (see each one); must be > 0.
    y_pred : array-like
        Predicted values, same length (scikit-learn's order: measured first).
    pct : float, default 30
        The bound of ``share_within``, in percent.

    Returns
    -------
    dict
        Keys: ``n_points``; ``rmse`` (input unit); ``mpe``, ``mape``, ``max_error_pct``,
        ``mean_pa``, ``min_pa`` (percent); ``r2``; ``spearman``; ``share_within_<pct>``
        (fraction).  With a single point ``r2`` and ``spearman`` are NaN instead of raising,
        so that one prediction can still be summarised.
    """
    t, p = _validated(y_true, y_pred, "summarize", relative=True)
    e = error_pct(t, p)
    many = t.size >= 2
    return {
        "n_points": int(t.size),
        "rmse": rmse(t, p),
        "mpe": mpe(t, p),
        "mape": float(np.mean(e)),
        "max_error_pct": float(np.max(e)),
        "mean_pa": float(100.0 - np.mean(e)),
        "min_pa": float(100.0 - np.max(e)),
        "r2": r2(t, p) if many else float("nan"),
        "spearman": spearman(t, p) if many else float("nan"),
        f"share_within_{pct:g}": share_within(t, p, pct),
    }
