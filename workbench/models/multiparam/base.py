"""Input checks, cross-validation folds and the base class of the multi-parameter models.

``X`` is a DataFrame with a column ``n`` (the allocation: processes, nodes, GPUs; >= 1) and
one or more problem-parameter columns named by the user (``s``, ``ne``, ``grid`` ...; > 0);
``t`` the runtimes (> 0, any unit).  Runs repeated at one coordinate are averaged.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, WorkbenchWarning, emit_warnings
from workbench.models.multiparam.calibration import default_calibration
from workbench.models.scaling.calibration import check_level
from workbench.validation import FittedState, check_fitted, numeric_column

__all__ = [
    "ALLOCATION",
    "MultiParameterModel",
    "aggregate_runs",
    "check_parameters",
    "check_runtimes",
    "extrapolation_distance",
    "extrapolation_folds",
    "extrapolation_splits",
    "ideal_speedup_floor",
    "line_distance",
    "size_key",
    "unique_rows",
    "unvaried_changes",
]

#: Name of the allocation column of ``X``.
ALLOCATION = "n"
_FLOOR_REL = 1e-9
# relative difference below which two coordinates are the same (a value read back from a file)
_SAME_VALUE = 1e-9


# ----------------------------------------------------------------------------------------- input
def check_parameters(X, where: str, parameters=None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Return ``(n, S, names)`` from a parameter frame, else raise a ValidationError.

    Parameters
    ----------
    X : pandas.DataFrame
        Column ``n`` (finite, >= 1) and the problem-parameter columns (finite, > 0).
    where : str
        The caller, for messages.
    parameters : list of str, optional
        The problem-parameter columns expected (a fitted model's); default: every column
        but ``n``.

    Returns
    -------
    n : ndarray of shape (k,)
    S : ndarray of shape (k, q)
    names : list of str
    """
    if not isinstance(X, pd.DataFrame):
        raise ValidationError(f"{where}: X must be a pandas DataFrame with a column 'n' (allocation) and the "
                              f"problem-parameter columns, got {type(X).__name__}")
    if len(X) == 0:
        raise ValidationError(f"{where}: X is empty (no runs or targets)")
    n = _column(X, ALLOCATION, where)
    if parameters is None:
        names = [str(c) for c in X.columns if c != ALLOCATION]
        if not names:
            raise ValidationError(f"{where}: X needs at least one problem-parameter column besides 'n' (e.g. 's'), "
                                  f"got columns {list(X.columns)}")
    else:
        names = list(parameters)
    S = np.column_stack([_column(X, c, where) for c in names])
    bad = n < 1
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{where}: column 'n' must be >= 1 (an allocation), got {n[i]:g} in row {i}")
    bad = ~(S > 0)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise ValidationError(f"{where}: problem parameter {names[j]!r} must be > 0, got {S[i, j]:g} in row {i}")
    return n, S, names


def _column(X: pd.DataFrame, name: str, where: str) -> np.ndarray:
    """Column ``name`` as finite floats; numeric columns without a copy through pandas' checks."""
    column = X.get(name) if isinstance(name, str) else None
    if isinstance(column, pd.Series) and pd.api.types.is_numeric_dtype(column.dtype) \
            and not pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy(dtype=float)
        if np.isfinite(values).all():
            return values
    return numeric_column(X, name, where)  # the project's messages for anything else


def check_runtimes(t, k: int, where: str) -> np.ndarray:
    """Return the runtimes ``t`` as a float array of length ``k``, else raise a ValidationError.

    Parameters
    ----------
    t : array-like of shape (k,)
        Runtimes, finite and > 0.
    k : int
        The number of runs (rows of ``X``).
    where : str
        The caller, for messages.
    """
    try:
        t = np.asarray(t, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: t must be numeric runtimes, got {t!r}") from None
    if t.size != k:
        raise ValidationError(f"{where}: X and t must have the same length, got {k} and {t.size}")
    bad = ~np.isfinite(t) | (t <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{where}: t must be finite and > 0 (runtimes), got t[{i}] = {t[i]}")
    return t


def aggregate_runs(n, S, t) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the distinct coordinates (sorted), the mean runtime at each and the run counts.

    Parameters
    ----------
    n : ndarray of shape (k,)
        Allocations.
    S : ndarray of shape (k, parameters)
        Problem parameters.
    t : ndarray of shape (k,)
        Runtimes.

    Returns
    -------
    n, S, mean, counts : ndarray
        One row per distinct ``(n, S)``.
    """
    coords = np.column_stack([n, S])
    uniq, inv, counts = unique_rows(coords)
    mean = np.bincount(inv, weights=t, minlength=len(uniq)) / counts
    return uniq[:, 0].copy(), uniq[:, 1:].copy(), mean, counts


def unique_rows(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``np.unique(A, axis=0, return_inverse=True, return_counts=True)`` of a 2-D float array.

    The same rows in the same (lexicographic) order, by one ``lexsort`` instead of numpy's
    structured-view sort (which cost more than the small fits it served).

    Parameters
    ----------
    A : ndarray of shape (k, c)
        Finite values.
    """
    A = np.asarray(A, float)
    if A.shape[0] == 0:
        return A.copy(), np.zeros(0, int), np.zeros(0, int)
    order = np.lexsort(A.T[::-1])
    B = A[order]
    new = np.ones(len(B), bool)
    new[1:] = np.any(B[1:] != B[:-1], axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(A), int)
    inverse[order] = group
    return B[new], inverse, np.bincount(group)


def size_key(S: np.ndarray) -> np.ndarray:
    """Return one number per row that orders problem sizes: ``sum_j log(s_j)``.

    With one problem parameter it orders by it; with several, by their product.

    Parameters
    ----------
    S : ndarray of shape (k, parameters)
        The problem parameters of each row, > 0.
    """
    return np.round(np.log(np.asarray(S, float)).sum(axis=1), 9)


def extrapolation_folds(n, S) -> list[tuple[str, np.ndarray]]:
    """Return the extrapolation-oriented cross-validation folds as ``(name, test_mask)``.

    ``"bigger"``: every run of the largest size (:func:`size_key`) is left out, if at least
    two smaller sizes remain.  ``"more-n"``: the largest allocation of every size measured at
    >= 2 allocations is left out, if >= 3 runs remain.  The training set is the complement.

    Parameters
    ----------
    n : ndarray of shape (k,)
        The allocations of the runs.
    S : ndarray of shape (k, parameters)
        Their problem parameters.
    """
    n = np.asarray(n, float)
    sizes, inv = np.unique(size_key(S), return_inverse=True)
    return _folds(n, sizes.size, inv.reshape(-1))


def _folds(n: np.ndarray, sizes: int, inv: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """:func:`extrapolation_folds` from the index ``inv`` of each run's size among ``sizes`` sizes."""
    folds = []
    if sizes >= 3:
        folds.append(("bigger", inv == sizes - 1))
    pairs = unique_rows(np.column_stack([inv, n]))[0]  # sorted by size, then n
    count = np.bincount(pairs[:, 0].astype(int), minlength=sizes)
    nmax = pairs[np.cumsum(count) - 1, 1]  # every size has a run: the last pair of each is its largest n
    test = (n == nmax[inv]) & (count[inv] >= 2)
    if test.any() and (~test).sum() >= 3:
        folds.append(("more-n", test))
    return folds


def extrapolation_splits(n, S) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Return the cross-validation splits of the model choice as ``(name, test_mask, train_mask)``.

    The :func:`extrapolation_folds` (training set: the complement), and one step back along
    the size: ``"bigger-2"`` predicts every run of the second-largest size from the smaller
    ones (the largest left out too), if at least two smaller sizes remain.  A second size
    step doubles the evidence of how a model extrapolates in the size (the direction with
    the fewest runs) at the same distance; on the development data it was the difference
    between choosing by one noisy fold and by two (``bench/results/multiparam.md``).

    Parameters
    ----------
    n : ndarray of shape (k,)
        The allocations of the runs.
    S : ndarray of shape (k, parameters)
        Their problem parameters.
    """
    sizes, inv = np.unique(size_key(S), return_inverse=True)
    inv = inv.reshape(-1)
    out = [(name, test, ~test) for name, test in _folds(np.asarray(n, float), sizes.size, inv)]
    if sizes.size >= 4:
        out.append(("bigger-2", inv == sizes.size - 2, inv < sizes.size - 2))
    return out


def extrapolation_distance(n, S, n_lo, n_hi, s_lo, s_hi) -> np.ndarray:
    """Return how far outside the training box each target is, in doublings (0 inside).

    The largest over ``n`` and the problem parameters.

    Parameters
    ----------
    n : ndarray of shape (k,)
        Target allocations.
    S : ndarray of shape (k, parameters)
        Target problem parameters.
    n_lo, n_hi : float
        The measured range of ``n``.
    s_lo, s_hi : ndarray of shape (parameters,)
        The measured range of each problem parameter.
    """
    lo = np.column_stack([np.atleast_1d(n_lo), np.atleast_2d(s_lo)]).reshape(-1)
    hi = np.column_stack([np.atleast_1d(n_hi), np.atleast_2d(s_hi)]).reshape(-1)
    P = np.column_stack([n, S])
    with np.errstate(divide="ignore"):
        up = np.log2(P / hi)
        down = np.log2(lo / P)
    return np.maximum(np.maximum(up, down), 0.0).max(axis=1)


def line_distance(n, S, n_train, S_train) -> np.ndarray:
    """Return how far past its own lines each target is, in doublings (0 on or inside them).

    Along the allocation: past the largest allocation measured at the target's problem
    parameters (if they were measured); along the size: past the largest size (:func:`size_key`)
    measured at the target's allocation (if it was measured).  A target inside the overall
    measured box can still extrapolate along its line -- a size measured only up to 16
    processes, asked at 64 that other sizes reached -- which :func:`extrapolation_distance`
    does not see.

    Parameters
    ----------
    n, S : ndarray
        Targets: allocations (k,) and problem parameters (k, q).
    n_train, S_train : ndarray
        The measured (distinct) points: allocations (m,) and problem parameters (m, q).
    """
    n, n_train = np.asarray(n, float), np.asarray(n_train, float)
    key, key_train = size_key(S), size_key(S_train)
    same_size = key[:, None] == key_train[None, :]  # (k, m)
    same_n = n[:, None] == n_train[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        top_n = np.max(np.where(same_size, n_train[None, :], -np.inf), axis=1)
        top_s = np.max(np.where(same_n, key_train[None, :], -np.inf), axis=1)
        along_n = np.where(np.isfinite(top_n), np.log2(n / top_n), 0.0)
        along_s = np.where(np.isfinite(top_s), (key - top_s) / np.log(2.0), 0.0)
    return np.maximum(np.maximum(along_n, along_s), 0.0)


def unvaried_changes(S, s_lo, s_hi) -> np.ndarray:
    """Return per target and problem parameter whether the target changes a parameter no run varied.

    A parameter with one value in every measured run (``s_lo == s_hi``) shows nothing of how
    the runtime depends on it; at another value of it the members can only guess (the expert
    form and the work model count it as linear work, Extra-P's search leaves it out), however
    few doublings away the target is.

    Parameters
    ----------
    S : array-like of shape (targets, parameters)
        The target problem parameters.
    s_lo, s_hi : array-like of shape (parameters,)
        The measured range of each problem parameter.

    Examples
    --------
    >>> unvaried_changes([[400.0, 100.0], [800.0, 200.0]], [100.0, 100.0], [400.0, 100.0])
    array([[False, False],
           [False,  True]])
    """
    S = np.atleast_2d(np.asarray(S, float))
    lo, hi = np.asarray(s_lo, float).reshape(-1), np.asarray(s_hi, float).reshape(-1)
    constant = np.abs(hi - lo) <= _SAME_VALUE * np.abs(hi)
    return constant[None, :] & (np.abs(S - hi[None, :]) > _SAME_VALUE * np.abs(hi)[None, :])


def ideal_speedup_floor(n, S, n_train, S_train, t_train) -> np.ndarray:
    """Return per target the shortest runtime ideal speedup allows from the measured runs (0: no bound).

    A target ``(n, S)`` does at least the work of a measured point ``(n_m, S_m)`` with
    ``n_m <= n`` and ``S_m <= S`` (every parameter): the work grows with the problem and the
    allocation adds none.  Spread perfectly over ``n`` processes it takes at least
    ``t_m * n_m / n``; the floor is the largest such bound.  It holds whether a parameter
    counts the whole problem or the work per process (then the target does more work still).
    A runtime below it is a superlinear speedup (caches can make a small one real).

    Parameters
    ----------
    n, S : ndarray
        Targets: allocations (k,) and problem parameters (k, q).
    n_train, S_train, t_train : ndarray
        The measured points: allocations (m,), problem parameters (m, q) and (mean) runtimes (m,).

    Examples
    --------
    >>> import numpy as np
    >>> ideal_speedup_floor([64.0, 8.0], [[200.0], [50.0]], np.array([16.0, 32.0]),
    ...                     np.array([[100.0], [200.0]]), np.array([8.0, 5.0]))
    array([2.5, 0. ])
    """
    n, n_train = np.asarray(n, float).reshape(-1), np.asarray(n_train, float).reshape(-1)
    S, S_train = np.atleast_2d(np.asarray(S, float)), np.atleast_2d(np.asarray(S_train, float))
    below = (S_train[None, :, :] <= S[:, None, :] * (1.0 + _SAME_VALUE)).all(axis=2)  # (k, m)
    below &= n_train[None, :] <= n[:, None] * (1.0 + _SAME_VALUE)
    bound = np.asarray(t_train, float)[None, :] * n_train[None, :] / n[:, None]
    return np.max(np.where(below, bound, 0.0), axis=1, initial=0.0)


# ----------------------------------------------------------------------------------------- base
class MultiParameterModel(FittedState, BaseEstimator):
    """Base of the runtime models over ``n`` x problem parameters (module docstring).

    :meth:`fit` sets the attributes below in every subclass.

    Attributes
    ----------
    parameters_ : list of str
        The problem-parameter columns.
    n_train_, S_train_, t_train_, runs_ : ndarray
        Distinct training coordinates, the mean runtime at each and the run counts.
    fit_error_ : float
        RMS relative error of the fit on its own (averaged) data.
    floor_ : float
        What :meth:`predict` returns where the model is not positive.
    warnings_ : list of ModelWarning
        What the fit noticed about the data (also emitted once by :meth:`fit`).
    equation_ : str
        The fitted model with its numbers.
    """

    name = "base"
    min_points = 3

    #: set last by ``fit``: the model can predict
    fitted_attribute = "fit_error_"

    def fit(self, X, t) -> MultiParameterModel:
        """Fit to runs ``(X, t)``; returns self.

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the problem-parameter columns (:func:`check_parameters`).
        t : array-like of shape (k,)
            Runtimes, finite and > 0.

        Returns
        -------
        self
        """
        where = f"{type(self).__name__}.fit"
        n, S, names = check_parameters(X, where)
        return self.fit_checked(n, S, check_runtimes(t, n.size, where), names)

    def fit_checked(self, n, S, t, parameters) -> MultiParameterModel:
        """Fit to runs given as arrays already checked; returns self.

        The same fit as :meth:`fit` without the checks of its input (and without building
        a DataFrame): for combiners that checked the runs once and refit members on many
        subsets (:class:`MultiParameterPredictor`'s cross-validation).

        Parameters
        ----------
        n : ndarray of shape (k,)
            Allocations (>= 1), as from :func:`check_parameters`.
        S : ndarray of shape (k, q)
            Problem parameters (> 0), in the order of ``parameters``.
        t : ndarray of shape (k,)
            Runtimes (finite, > 0), as from :func:`check_runtimes`.
        parameters : list of str
            The problem-parameter names.

        Returns
        -------
        self
        """
        where = f"{type(self).__name__}.fit"
        names = list(parameters)
        nd, Sd, td, runs = aggregate_runs(n, S, t)
        if nd.size < self.min_points:
            raise ValidationError(f"{where}: needs runs at >= {self.min_points} distinct (n, {', '.join(names)}) "
                                  f"points, got {nd.size}")
        self.parameters_ = names
        self.n_train_, self.S_train_, self.t_train_, self.runs_ = nd, Sd, td, runs
        notes: list[ModelWarning] = []
        self._fit(nd, Sd, td, notes)
        self.floor_ = float(_FLOOR_REL * td.min())
        with np.errstate(all="ignore"):
            pred = self._predict(nd, Sd)
        rel = np.where(np.isfinite(pred) & (pred > 0), pred, self.floor_) / td - 1.0
        self.fit_error_ = float(np.sqrt(np.mean(rel**2)))
        self.warnings_ = notes
        emit_warnings(notes)
        return self

    def _check_fitted(self, where: str) -> None:
        check_fitted(self, where=where, fit="fit(X, t)")

    def _targets(self, X, where: str) -> tuple[np.ndarray, np.ndarray]:
        self._check_fitted(where)
        n, S, _ = check_parameters(X, where, self.parameters_)
        return n, S

    def predict(self, X) -> np.ndarray:
        """Return the runtime at each row of ``X`` (unit of the fitted ``t``).

        Where the fitted model is not positive the result is ``floor_`` and a
        :class:`~workbench.errors.WorkbenchWarning` says so.

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        """
        where = f"{type(self).__name__}.predict"
        n, S = self._targets(X, where)
        with np.errstate(all="ignore"):
            t = self._predict(n, S)
        bad = ~(t > 0) | ~np.isfinite(t)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            warnings.warn(f"{where}: the fitted model {self.equation_} is not a positive finite runtime at row {i} "
                          f"({int(bad.sum())} row(s)); returning floor_ = {self.floor_:.3g} there",
                          WorkbenchWarning, stacklevel=2)
            t = np.where(bad, self.floor_, t)
        return t

    def evaluate(self, n, S) -> np.ndarray:
        """Return the fitted model's raw values at arrays of targets, for combining models.

        No input checks and no floor (unlike :meth:`predict`): a value may be non-positive,
        and NaN where the model abstains (:class:`SizePowerModel` off its allocations).  For
        callers that checked the targets once (:class:`MultiParameterPredictor`).

        Parameters
        ----------
        n : ndarray of shape (k,)
            Target allocations.
        S : ndarray of shape (k, parameters)
            Target problem parameters, in the order of ``parameters_``.
        """
        self._check_fitted(f"{type(self).__name__}.evaluate")
        with np.errstate(all="ignore"):
            return np.asarray(self._predict(np.asarray(n, float), np.asarray(S, float)), float)

    def interval_features(self, X) -> dict:
        """Return the raw features of the interval at each row of ``X``.

        ``distance`` (doublings outside the training box), ``n_points`` (distinct training
        points) and ``fit_error``.

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        """
        n, S = self._targets(X, f"{type(self).__name__}.interval_features")
        return self._features(n, S)

    def _features(self, n, S) -> dict:
        d = extrapolation_distance(n, S, self.n_train_.min(), self.n_train_.max(), self.S_train_.min(axis=0),
                                   self.S_train_.max(axis=0))
        return {"distance": d, "n_points": np.full(d.shape, float(self.n_train_.size)),
                "fit_error": np.full(d.shape, self.fit_error_)}

    def predict_interval(self, X, level: float = 0.8, calibration=None) -> tuple[np.ndarray, np.ndarray]:
        """Central ``level`` interval (lower, upper) of the runtime at each row of ``X``.

        The prediction times the calibrated quantiles of this model's error on held-out
        development data (:func:`default_calibration`, or ``calibration``).

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        level : float, default 0.8
            Central probability of the interval, in (0, 1).
        calibration : Calibration or None, default None
            The error models; None: :func:`default_calibration`.
        """
        level = check_level(level)
        pred = self.predict(X)
        cal = calibration if calibration is not None else default_calibration()
        n, S = self._targets(X, f"{type(self).__name__}.predict_interval")
        return cal.interval(self.name, pred, self._features(n, S), level)

    # subclasses
    def _fit(self, n, S, t, notes) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _predict(self, n, S) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

