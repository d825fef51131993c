"""Runtime over processes x problem size: multi-parameter models and a calibrated predictor.

References
----------
[ExtraP]
    The performance model normal form (PMNF) and its hypothesis search.
[ExtraP4]
    Extra-P 4.2.5 (commit 291ac81), ``extrap/modelers/multi_parameter/multi_parameter_modeler.py``
    (``find_best_measurement_points``, ``create_model``) and ``extrap/entities/hypotheses.py``
    (``MultiParameterHypothesis.compute_coefficients`` / ``compute_cost``,
    ``calc_term_contribution``).  No Extra-P code is used.

Input
-----
``X`` is a DataFrame with a column ``n`` (the allocation: processes, nodes, GPUs; >= 1) and
one or more problem-parameter columns named by the user (``s``, ``ne``, ``grid`` ...; > 0);
``t`` the runtimes (> 0, any unit).  Runs repeated at one coordinate are averaged.

Models
------
:class:`ExtraPMultiParameter`
    Extra-P's multi-parameter PMNF ([ExtraP4]): for each parameter, the runs on the longest
    lines along it (the other parameters fixed) are averaged per value and modelled by the
    single-parameter PMNF (:class:`~workbench.models.pmnf.PMNF`, one term ``x^i log2(x)^j``);
    the terms of the parameters that are not constant are combined into the hypotheses
    ``a*b``, ``a+b``, ``a*b+a``, ``a*b+b`` (for three parameters Extra-P's 23), each fitted
    by least squares on all points, and the one with the smallest training SMAPE whose terms
    all contribute at least 0.0005 of the data wins (the first hypothesis, the product, is
    the start).  ``target="cost"`` models ``t * n`` instead of ``t`` (Extra-P's strong
    scaling conversion applied to the multi-parameter case).
:class:`WorkAwareModel`
    ``t = c0 + c1 W(s)/n + sum_k c_k h_k(n, s)``: the per-process share of the work
    ``W(s) = prod_j s_j^a_j`` (exponents ``a_j`` learnt from a grid, or a user-given work
    function) plus at most ``max_terms`` overhead terms from :data:`OVERHEAD_TERMS`
    (``log2 n``, ``n^(1/2)``, ``n``, halo ``(W/n)^(2/3)``, serial work ``W``, ...), every
    coefficient >= 0.  Fitted on relative errors; the work exponents and the terms are
    chosen by *extrapolation-oriented* cross-validation: refit without the largest size, and
    without the largest allocation of each size, score the log errors of the left-out runs
    (:func:`extrapolation_folds`).  All candidates and folds are solved at once (batched
    normal equations).  Weak scaling (``s / n`` constant) needs no special case: along that
    line ``W/n`` is constant and the overhead terms carry the growth.
:class:`ExpertWorkModel`
    The fixed expert form ``t = c0 + c1 W/n + c2 log2 n`` (``W`` = the size, or a work
    function): a baseline.
:class:`SizePowerModel`
    ``t = a_n * s^m``: the fractal extrapolation's power law in the size, one exponent shared
    by the measured allocations; it predicts only at those (a *bigger* problem on allocations
    already measured) and abstains elsewhere.

:class:`MultiParameterPredictor` fits several of them, weights them by the same
extrapolation-oriented cross-validation and returns calibrated intervals and warnings
(``multiparam_calibration.json`` beside this module, made by ``tools/multiparam_calibrate.py``).
"""

from __future__ import annotations

import functools
import itertools
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from workbench.errors import ModelWarning, ValidationError, WorkbenchWarning, emit_warnings, quiet_warnings
from workbench.models.pmnf import PMNF
from workbench.models.scaling.calibration import Calibration, check_level, miss_probability
from workbench.models.scaling.predictor import THRESHOLDS as SCALING_THRESHOLDS
from workbench.models.scaling.predictor import combine, softmin_weights
from workbench.validation import Threshold, check_fitted, numeric_column

__all__ = [
    "ALLOCATION",
    "CALIBRATION_PATH",
    "OVERHEAD_TERMS",
    "WORK_EXPONENTS",
    "MEMBERS",
    "PREDICT_FRAME_EXTRA",
    "THRESHOLDS",
    "WARNING_KINDS",
    "ExpertWorkModel",
    "ExtraPMultiParameter",
    "MultiParameterModel",
    "MultiParameterPredictor",
    "SizePowerModel",
    "WorkAwareModel",
    "check_parameters",
    "default_calibration",
    "extrapolation_folds",
    "size_key",
    "target_direction",
    "target_weights",
]

#: Name of the allocation column of ``X``.
ALLOCATION = "n"
CALIBRATION_PATH = Path(__file__).with_name("multiparam_calibration.json")
#: Default grid of work exponents ``a`` in ``W = s^a`` (per problem parameter).
WORK_EXPONENTS = (0.5, 2 / 3, 0.75, 1.0, 1.25, 4 / 3, 1.5, 5 / 3, 2.0, 2.5, 3.0)
#: Overhead terms of :class:`WorkAwareModel`: name -> function of (n, W) (vectorised).
OVERHEAD_TERMS = {
    "log2(n)": lambda n, w: np.log2(n),
    "n^(1/2)": lambda n, w: np.sqrt(n),
    "n": lambda n, w: n,
    "(W/n)^(2/3)": lambda n, w: (w / n) ** (2 / 3),
    "(W/n)^(1/2)": lambda n, w: np.sqrt(w / n),
    "W": lambda n, w: w,
    "W/n*log2(n)": lambda n, w: w / n * np.log2(n),
    "W*log2(n)": lambda n, w: w * np.log2(n),
    "W*n^(1/2)": lambda n, w: w * np.sqrt(n),
    "W*n": lambda n, w: w * n,
}
_FLOOR_REL = 1e-9
# beam of the work model's forward selection: best single terms and work exponents kept
_BEAM_TERMS, _BEAM_EXPONENTS = 4, 3


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


def _check_runtimes(t, k: int, where: str) -> np.ndarray:
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


def _aggregate(n, S, t):
    """Distinct coordinates (sorted), the mean runtime at each and the run counts."""
    coords = np.column_stack([n, S])
    uniq, inv, counts = np.unique(coords, axis=0, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    mean = np.bincount(inv, weights=t, minlength=len(uniq)) / counts
    return uniq[:, 0].copy(), uniq[:, 1:].copy(), mean, counts


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
    inv = inv.reshape(-1)
    folds = []
    if sizes.size >= 3:
        folds.append(("bigger", inv == sizes.size - 1))
    nmax = np.full(sizes.size, -np.inf)
    np.maximum.at(nmax, inv, n)
    pairs = np.unique(np.column_stack([inv, n]), axis=0)
    count = np.bincount(pairs[:, 0].astype(int), minlength=sizes.size)
    test = (n == nmax[inv]) & (count[inv] >= 2)
    if test.any() and (~test).sum() >= 3:
        folds.append(("more-n", test))
    return folds


def _distance(n, S, n_lo, n_hi, s_lo, s_hi) -> np.ndarray:
    """How far outside the training box a target is, in doublings (0 inside), the largest over parameters."""
    lo = np.column_stack([np.atleast_1d(n_lo), np.atleast_2d(s_lo)]).reshape(-1)
    hi = np.column_stack([np.atleast_1d(n_hi), np.atleast_2d(s_hi)]).reshape(-1)
    P = np.column_stack([n, S])
    with np.errstate(divide="ignore"):
        up = np.log2(P / hi)
        down = np.log2(lo / P)
    return np.maximum(np.maximum(up, down), 0.0).max(axis=1)


# ----------------------------------------------------------------------------------------- base
class MultiParameterModel(BaseEstimator):
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
        t = _check_runtimes(t, n.size, where)
        nd, Sd, td, runs = _aggregate(n, S, t)
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

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "fit_error_")

    def _check_fitted(self, where: str) -> None:
        check_fitted(self, "fit_error_", where, fit="fit(X, t)")

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
        d = _distance(n, S, self.n_train_.min(), self.n_train_.max(), self.S_train_.min(axis=0),
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


# ------------------------------------------------------------------------------------ Extra-P
def _term_values(x, i, j):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(x, float) ** i * np.log2(np.asarray(x, float)) ** j


def _line_points(P: np.ndarray, y: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Extra-P's ``find_best_measurement_points`` for parameter ``p``.

    Group the points by their other coordinates (lines along ``p``), keep the longest lines,
    keep only the lines present at the first value of ``p``, and average ``y`` per value of
    ``p`` over them.
    """
    others = np.delete(P, p, axis=1)
    _, line, counts = np.unique(others, axis=0, return_inverse=True, return_counts=True)
    line = line.reshape(-1)
    longest = counts[line] == counts.max()
    first = P[np.flatnonzero(longest)[0], p]
    common = np.unique(line[longest & (P[:, p] == first)])
    keep = longest & np.isin(line, common)
    xs, inv = np.unique(P[keep, p], return_inverse=True)
    ys = np.bincount(inv.reshape(-1), weights=y[keep]) / np.bincount(inv.reshape(-1))
    return xs, ys


def _extrap_hypotheses(k: int, combinations: bool) -> list[tuple[tuple[int, ...], ...]]:
    """Extra-P's multi-parameter hypotheses over ``k`` active terms, in its order.

    Each hypothesis is a tuple of products; a product is a tuple of term indices.
    """
    mult = tuple(range(k))
    add = [(i,) for i in range(k)]
    out = [(mult,), tuple(add)]
    if not combinations:
        return out
    if k == 2:
        out += [(add[0], mult), (add[1], mult)]
    elif k == 3:
        xy, yz, xz = (0, 1), (1, 2), (0, 2)
        out += [(mult, add[0]), (mult, add[1]), (mult, add[2]),
                (mult, xy), (mult, yz), (mult, xz),
                (mult, xy, add[2]), (mult, yz, add[0]), (mult, xz, add[1]),
                (mult, add[0], add[1]), (mult, add[0], add[2]), (mult, add[1], add[2]),
                (xy, add[2]), (xy, add[2], add[1]), (xy, add[2], add[0]),
                (xz, add[1]), (xz, add[1], add[0]), (xz, add[1], add[2]),
                (yz, add[0]), (yz, add[0], add[1]), (yz, add[0], add[2])]
    return out


def _smape(pred, y) -> float:
    s = np.abs(pred) + np.abs(y)
    return float(np.mean(np.where(s > 0, 2 * np.abs(pred - y) / np.where(s > 0, s, 1.0), 0.0)) * 100)


def _lstsq(A, y):
    # as [ExtraP4] compute_coefficients: numpy's default cut-off, retried at machine precision
    # when it drops a singular value
    coef, _, rank, _ = np.linalg.lstsq(A, y, rcond=None)
    if rank < A.shape[1]:
        coef = np.linalg.lstsq(A, y, rcond=-1)[0]
    return coef


class ExtraPMultiParameter(MultiParameterModel):
    """Extra-P 4.2.5's multi-parameter PMNF modeler, reimplemented (module docstring).

    Parameters
    ----------
    target : {"runtime", "cost"}, default "runtime"
        Model ``t`` itself (Extra-P on runtime) or the cost ``t * n`` (runtime x allocation),
        predicting ``cost / n``.
    combinations : bool, default True
        Extra-P's ``allow_combinations_of_sums_and_products``.
    epsilon : float, default 0.0005
        Minimum term contribution ([ExtraP4] ``self.epsilon``).

    Attributes
    ----------
    terms_ : list of (str, float, float)
        The single-parameter term ``x^i log2(x)^j`` of each parameter that is not constant
        (parameter name, ``i``, ``j``).
    products_ : tuple of tuple of int
        The chosen hypothesis: a sum of products of ``terms_`` (indices).
    coefficients_ : ndarray
        Constant, then one coefficient per product.
    smape_ : float
        Training SMAPE (percent) of the chosen hypothesis.
    hypotheses_ : DataFrame
        Every hypothesis tried: ``formula``, ``smape``, ``eligible``, ``chosen``.
    """

    name = "extrap-mp"

    def __init__(self, target: str = "runtime", combinations: bool = True, epsilon: float = 0.0005):
        self.target = target
        self.combinations = combinations
        self.epsilon = epsilon

    def _y(self, n, t):
        return t * n if self.target == "cost" else t

    def _fit(self, n, S, t, notes) -> None:
        where = f"{type(self).__name__}.fit"
        if self.target not in ("runtime", "cost"):
            raise ValidationError(f"{where}: target must be 'runtime' or 'cost', got {self.target!r}")
        P = np.column_stack([n, S])
        y = self._y(n, t)
        names = [ALLOCATION] + list(self.parameters_)
        terms, single = [], []
        for p in range(P.shape[1]):
            xs, ys = _line_points(P, y, p)
            if xs.size < 2:
                continue
            with quiet_warnings():
                try:
                    model = PMNF(strong_scaling=False).fit(xs, ys)
                except ValidationError:
                    continue
            h = model.hypothesis_
            if not h.is_constant:
                terms.append((names[p], h.i, h.j))
                single.append((p, model.coefficients_))
            if xs.size < 5:
                notes.append(ModelWarning(
                    "few-points", f"{where}: parameter {names[p]!r} has {xs.size} values on its longest lines; "
                    "Extra-P asks for at least 5", details={"parameter": names[p]}))
        G = np.column_stack([_term_values(P[:, p], i, j) for (_, i, j), (p, _) in zip(terms, single)]) \
            if terms else np.zeros((len(y), 0))
        rows, chosen = [], 0
        if not terms:
            products, coef = (), np.array([y.mean()])
            rows.append((self._formula((), terms), _smape(np.full_like(y, y.mean()), y), True))
        elif len(terms) == 1:
            # [ExtraP4] create_model: the single-parameter coefficients reused, or refitted on all points
            products = ((0,),)
            reuse = np.array(single[0][1])
            refit = _lstsq(np.column_stack([np.ones_like(y), G[:, 0]]), y)
            s_reuse = _smape(reuse[0] + reuse[1] * G[:, 0], y)
            s_refit = _smape(refit[0] + refit[1] * G[:, 0], y)
            chosen = int(s_refit < s_reuse)
            coef = refit if chosen else reuse
            rows += [(self._formula(products, terms) + " (single-parameter coefficients)", s_reuse, True),
                     (self._formula(products, terms) + " (refitted)", s_refit, True)]
        else:
            best = None
            for h in _extrap_hypotheses(len(terms), self.combinations):
                A = np.column_stack([np.ones_like(y)] + [G[:, list(prod)].prod(axis=1) for prod in h])
                c = _lstsq(A, y)
                s = _smape(A @ c, y)
                contrib = np.abs(A[:, 1:] * c[1:] / y[:, None]).max(axis=0)
                ok = bool(np.all(c[1:] != 0) and np.all(contrib >= self.epsilon))
                rows.append((self._formula(h, terms), s, ok))
                # the first hypothesis is the start whatever its terms ([ExtraP4] scores hypothesis 0
                # again inside its loop, where it can only replace itself)
                if best is None or (ok and s < best[2]):
                    best, chosen = (h, c, s), len(rows) - 1
            products, coef = best[0], best[1]
        self.terms_ = terms
        self.products_ = tuple(products)
        self.coefficients_ = np.asarray(coef, float)
        self._G_index = [p for p, _ in single]
        with np.errstate(all="ignore"):
            self.smape_ = _smape(self._evaluate(P), y)
        self._hypotheses = (rows, chosen)

    @property
    def hypotheses_(self) -> pd.DataFrame:
        """Every hypothesis tried: ``formula``, ``smape`` (training, percent), ``eligible``, ``chosen``.

        Built lazily (a DataFrame costs more than the fit).
        """
        self._check_fitted(f"{type(self).__name__}.hypotheses_")
        rows, chosen = self._hypotheses
        table = pd.DataFrame(rows, columns=["formula", "smape", "eligible"])
        table["chosen"] = np.arange(len(table)) == chosen
        return table

    @staticmethod
    def _formula(products, terms) -> str:
        def term(k):
            name, i, j = terms[k]
            parts = ([f"{name}^{i:g}"] if i != 0 else []) + ([f"log2({name})^{j:g}"] if j != 0 else [])
            return "*".join(parts)
        return " + ".join(["c0"] + [f"c{m + 1}*" + "*".join(term(k) for k in prod) for m, prod in enumerate(products)])

    def _evaluate(self, P: np.ndarray) -> np.ndarray:
        out = np.full(P.shape[0], self.coefficients_[0])
        for m, prod in enumerate(self.products_):
            v = np.ones(P.shape[0])
            for k in prod:
                _, i, j = self.terms_[k]
                v = v * _term_values(P[:, self._G_index[k]], i, j)
            out = out + self.coefficients_[m + 1] * v
        return out

    def _predict(self, n, S) -> np.ndarray:
        y = self._evaluate(np.column_stack([n, S]))
        return y / n if self.target == "cost" else y

    @property
    def equation_(self) -> str:
        """The fitted model with its numbers."""
        self._check_fitted(f"{type(self).__name__}.equation_")
        parts = [f"{self.coefficients_[0]:.4g}"]
        for m, prod in enumerate(self.products_):
            factors = []
            for k in prod:
                name, i, j = self.terms_[k]
                factors += ([f"{name}^{i:g}"] if i != 0 else []) + ([f"log2({name})^{j:g}"] if j != 0 else [])
            parts.append(f"{self.coefficients_[m + 1]:.4g}*" + "*".join(factors))
        body = " + ".join(parts)
        return f"t = ({body}) / n" if self.target == "cost" else f"t = {body}"


# ------------------------------------------------------------------------------------ work-aware
def _batched_fit(D: np.ndarray, W: np.ndarray, ridge: float = 1e-9) -> np.ndarray:
    """Weighted least squares for a batch of designs.

    ``D``: (C, m, k) designs (rows already divided by the runtimes), ``W``: (F, m) row
    weights (0/1 fold masks).  Returns (F, C, k) coefficients minimising
    ``sum_m W[f, m] (D[c, m] @ b - 1)^2`` with a tiny ridge on the column-normalised system.
    """
    norm = np.sqrt((D * D).sum(axis=1))  # (C, k)
    norm = np.where(norm > 0, norm, 1.0)
    Dn = D / norm[:, None, :]
    Dw = Dn[None] * W[:, None, :, None]  # (F, C, m, k)
    G = np.matmul(Dw.transpose(0, 1, 3, 2), Dn[None])  # (F, C, k, k), batched
    b = Dw.sum(axis=2)
    k = D.shape[2]
    G = G + ridge * np.eye(k)
    coef = np.linalg.solve(G, b[..., None])[..., 0]
    return coef / norm[None]


class WorkAwareModel(MultiParameterModel):
    """``t = c0 + c1 W(s)/n + overheads``, exponents and terms chosen by cross-validation.

    Parameters
    ----------
    work : callable or None, default None
        ``work(S)`` -> total work per row from the (k, q) array of problem parameters (any
        positive unit); None learns ``W = prod_j s_j^a_j`` with ``a_j`` from ``exponents``.
    exponents : sequence of float, default :data:`WORK_EXPONENTS`
        Grid of work exponents per problem parameter (product grid over the parameters).
    overheads : sequence of str, default all of :data:`OVERHEAD_TERMS`
        Candidate overhead terms.
    max_terms : int, default 2
        Most overhead terms in one model.  Sets of two or more terms are searched among the 4
        best single terms at the 3 best work exponents (forward selection with a beam).
    select_terms : bool, default True
        False: use exactly ``overheads`` (and the first work exponent vector that fits
        best), no selection -- e.g. the expert form.
    complexity : float, default 0.01
        Added to a candidate's cross-validated log error per overhead term (prefers the
        simpler of near ties).

    Attributes
    ----------
    exponents_ : tuple of float
        Work exponents (NaN with a user work function).
    terms_ : tuple of str
        The chosen overhead terms.
    coefficients_ : ndarray
        ``c0``, ``c1`` (work), then one per overhead term; all >= 0 when selected.
    cv_error_ : float
        Cross-validated mean absolute log error of the chosen candidate (NaN: no fold).
    candidates_ : DataFrame
        Every candidate: ``exponents``, ``terms``, ``cv_error``, ``feasible``, ``score``.
    """

    name = "work"

    def __init__(self, work=None, exponents=WORK_EXPONENTS, overheads=tuple(OVERHEAD_TERMS), max_terms: int = 2,
                 select_terms: bool = True, complexity: float = 0.01):
        self.work = work
        self.exponents = exponents
        self.overheads = overheads
        self.max_terms = max_terms
        self.select_terms = select_terms
        self.complexity = complexity

    def _work_grid(self, S, where) -> tuple[list[tuple[float, ...]], np.ndarray]:
        """Work exponent vectors and the (A, m) log-work values."""
        if self.work is not None:
            w = np.asarray(self.work(S), float).reshape(-1)
            if w.size != S.shape[0] or not np.all(np.isfinite(w) & (w > 0)):
                raise ValidationError(f"{where}: work(S) must return one finite positive work value per row")
            return [(np.nan,) * S.shape[1]], np.log(w)[None]
        ex = np.asarray(self.exponents, float).reshape(-1)
        if ex.size == 0 or not np.all(np.isfinite(ex) & (ex > 0)):
            raise ValidationError(f"{where}: exponents must be finite and > 0, got {self.exponents!r}")
        grid = list(itertools.product(ex, repeat=S.shape[1]))
        logS = np.log(S)
        return grid, np.asarray(grid) @ logS.T

    def _subsets(self, where):
        unknown = [h for h in self.overheads if h not in OVERHEAD_TERMS]
        if unknown:
            raise ValidationError(f"{where}: unknown overhead term(s) {unknown}; known: {list(OVERHEAD_TERMS)}")
        if not self.select_terms:
            return [tuple(self.overheads)]
        kmax = int(self.max_terms)
        return [c for k in range(kmax + 1) for c in itertools.combinations(self.overheads, k)]

    @staticmethod
    def _columns(n, logw, terms) -> np.ndarray:
        """Return the (A, m, 2 + len(terms)) design ``1, W/n, overheads`` for every work vector."""
        w = np.exp(logw)  # (A, m)
        cols = [np.ones_like(w), w / n] + [np.broadcast_to(OVERHEAD_TERMS[h](n, w), w.shape) for h in terms]
        return np.stack(cols, axis=-1)

    def _fit(self, n, S, t, notes) -> None:
        where = f"{type(self).__name__}.fit"
        grid, logw = self._work_grid(S, where)
        # scale the work so that W/n is near the runtimes (conditioning only)
        logw = logw - np.median(logw - np.log(n), axis=1, keepdims=True) + np.log(np.median(t))
        subsets = self._subsets(where)
        terms_all = list(dict.fromkeys(h for sub in subsets for h in sub))
        base = self._columns(n, logw, terms_all) / t[None, :, None]  # (A, m, 2 + T): relative least squares
        folds = extrapolation_folds(n, S)
        masks = np.vstack([np.ones_like(n)] + [(~m).astype(float) for _, m in folds])
        A = len(grid)
        cand_a, cand_terms, cand_cv, cand_ok, cand_score, cand_coef = [], [], [], [], [], []
        sizes = sorted({len(sub) for sub in subsets})
        keep_a, keep_terms = np.arange(A), set(terms_all)
        for k in sizes:
            subs = [sub for sub in subsets if len(sub) == k and set(sub) <= keep_terms]
            if not subs:
                continue
            idx = np.array([[0, 1] + [2 + terms_all.index(h) for h in sub] for sub in subs])  # (U, 2 + k)
            D = base[keep_a][:, :, idx]  # (A', m, U, 2 + k)
            # candidates ordered (u, a): on a tie the earlier terms (the gentler ones) win
            D = D.transpose(2, 0, 1, 3).reshape(len(subs) * keep_a.size, n.size, 2 + k)
            coef = _batched_fit(D, masks)  # (F + 1, C, 2 + k)
            pred = np.matmul(D[None], coef[..., None])[..., 0]  # (F + 1, C, m): prediction / t
            C = D.shape[0]
            feasible = np.all(coef[0] >= -1e-12, axis=1) if self.select_terms else np.ones(C, bool)
            fold_err = [np.abs(np.log(np.maximum(pred[f][:, test], 1e-12))).mean(axis=1)
                        for f, (_, test) in enumerate(folds, start=1) if masks[f].sum() >= 3 + k]
            cv = np.mean(fold_err, axis=0) if fold_err else np.full(C, np.nan)
            train = np.sqrt(np.mean((pred[0] - 1.0) ** 2, axis=1))
            score = np.where(np.isfinite(cv), cv, train) + self.complexity * k
            score = np.where(feasible & np.isfinite(score), score, np.inf)
            cand_a.append(np.tile(keep_a, len(subs)))
            cand_terms += [sub for sub in subs for _ in range(keep_a.size)]
            cand_cv.append(cv)
            cand_ok.append(np.isfinite(score))
            cand_score.append(score)
            cand_coef += list(coef[0])
            if k == 1 and self.select_terms and len(sizes) > 2:
                # forward selection: pairs (and larger sets) only of the best single terms, at the
                # best work exponents -- a beam that keeps the search linear in the number of terms
                by_term = score.reshape(len(subs), keep_a.size)
                keep_terms = {subs[u][0] for u in np.argsort(by_term.min(axis=1), kind="stable")[:_BEAM_TERMS]}
                keep_a = keep_a[np.sort(np.argsort(by_term.min(axis=0), kind="stable")[:_BEAM_EXPONENTS])]
        cand_a = np.concatenate(cand_a)
        cand_cv = np.concatenate(cand_cv)
        cand_score = np.concatenate(cand_score)
        # scores within 1e-6 of the best are ties (exact data: rounding noise must not decide)
        best = int(np.flatnonzero(cand_score <= cand_score.min() + 1e-6)[0]) if np.isfinite(cand_score).any() else 0
        if np.isfinite(cand_score[best]):
            a, terms, coef, cv = int(cand_a[best]), cand_terms[best], cand_coef[best], float(cand_cv[best])
        else:
            # no candidate with non-negative coefficients: c0 + c1 W/n by NNLS on the middle exponent
            from scipy.optimize import nnls

            a, terms, cv = A // 2, (), float("nan")
            coef = nnls(self._columns(n, logw[a:a + 1], ())[0] / t[:, None], np.ones_like(t))[0]
            notes.append(ModelWarning("no-feasible-terms", f"{where}: no candidate had non-negative coefficients; "
                                      "fell back to c0 + c1 W/n by non-negative least squares"))
        self.exponents_ = tuple(float(v) for v in grid[a])
        self.terms_ = tuple(terms)
        self.coefficients_ = np.asarray(coef, float)
        self.cv_error_ = cv
        raw = np.log(np.asarray(self.work(S), float)).reshape(-1) if self.work is not None else \
            np.log(S) @ np.asarray(grid[a], float)
        self._log_shift = float(logw[a][0] - raw[0])
        self._candidates = (grid, cand_a, cand_terms, cand_cv, np.concatenate(cand_ok), cand_score)
        if not folds:
            notes.append(ModelWarning("no-cross-validation", f"{where}: too few sizes and allocations to leave the "
                                      "largest out; terms chosen on the training error"))

    @property
    def candidates_(self) -> pd.DataFrame:
        """Every candidate: ``exponents``, ``terms``, ``cv_error``, ``feasible``, ``score`` (built lazily)."""
        self._check_fitted(f"{type(self).__name__}.candidates_")
        grid, a, terms, cv, ok, score = self._candidates
        return pd.DataFrame({"exponents": [grid[i] for i in a], "terms": terms, "cv_error": cv, "feasible": ok,
                             "score": score})

    def _log_work(self, S) -> np.ndarray:
        if self.work is not None:
            base = np.log(np.asarray(self.work(S), float).reshape(-1))
        else:
            base = np.log(S) @ np.asarray(self.exponents_)
        return base + self._log_shift

    def _predict(self, n, S) -> np.ndarray:
        D = self._columns(n, self._log_work(S)[None], self.terms_)[0]
        return D @ self.coefficients_

    @property
    def equation_(self) -> str:
        """The fitted model with its numbers (``W`` in the unit of the work function or ``prod s^a``)."""
        self._check_fitted(f"{type(self).__name__}.equation_")
        c = self.coefficients_
        scale = np.exp(self._log_shift)
        if self.work is None:
            w = "*".join(f"{p}^{a:.3g}" for p, a in zip(self.parameters_, self.exponents_))
        else:
            w = "W"
        parts = [f"{c[0]:.4g}", f"{c[1] * scale:.4g}*{w}/n"] + [
            f"{ci:.4g}*{h}" for ci, h in zip(c[2:], self.terms_)]
        return "t = " + " + ".join(parts) + ("" if not any("W" in h for h in self.terms_)
                                             else f"  (W = {scale:.4g}*{w})")


class ExpertWorkModel(WorkAwareModel):
    """The expert form ``t = c0 + c1 W/n + c2 log2(n)``, ``W`` = the size or ``work(S)``.

    Parameters
    ----------
    work : callable or None, default None
        Total work per row from the problem parameters; None: the product of the parameters.
    """

    name = "expert"
    # the fixed form: read by WorkAwareModel's fit as if they were parameters
    exponents = (1.0,)
    overheads = ("log2(n)",)
    max_terms = 1
    select_terms = False
    complexity = 0.0

    def __init__(self, work=None):
        self.work = work


# ------------------------------------------------------------------------------------ size power law
class SizePowerModel(MultiParameterModel):
    """``t = a_n * prod_j s_j^m_j``: a power law in the size, shared by the measured allocations.

    The fractal extrapolation of [EscobarBoppana] (a line of ``ln t`` on ``ln size``) at every
    measured allocation at once, with one exponent per problem parameter shared by all
    allocations and one level ``a_n`` per allocation (least squares on ``ln t`` with an
    indicator column per allocation).  It predicts only at the measured allocations: elsewhere
    :meth:`predict` raises a ValidationError, and inside the predictor it abstains (NaN).

    Attributes
    ----------
    allocations_ : ndarray
        The measured allocations.
    levels_ : ndarray
        ``ln a_n`` per allocation.
    exponents_ : ndarray
        ``m_j`` per problem parameter.
    """

    name = "size-power"

    def _fit(self, n, S, t, notes) -> None:
        where = f"{type(self).__name__}.fit"
        alloc, idx = np.unique(n, return_inverse=True)
        idx = idx.reshape(-1)
        counts = np.bincount(idx)
        if not np.any(counts >= 2):
            raise ValidationError(f"{where}: needs at least one allocation measured at >= 2 sizes (to learn the "
                                  "size exponent), got one size per allocation")
        A = np.column_stack([np.eye(alloc.size)[idx], np.log(S)])
        coef = np.linalg.lstsq(A, np.log(t), rcond=None)[0]
        self.allocations_ = alloc
        self.levels_ = coef[:alloc.size]
        self.exponents_ = coef[alloc.size:]

    def _predict(self, n, S) -> np.ndarray:
        pos = np.searchsorted(self.allocations_, n)
        pos = np.minimum(pos, self.allocations_.size - 1)
        known = self.allocations_[pos] == n
        out = np.exp(self.levels_[pos] + np.log(S) @ self.exponents_)
        return np.where(known, out, np.nan)

    def predict(self, X) -> np.ndarray:
        """Return the runtime at each row of ``X``; only at the measured allocations (else a ValidationError).

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        """
        n, S = self._targets(X, f"{type(self).__name__}.predict")
        unknown = ~np.isin(n, self.allocations_)
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise ValidationError(f"{type(self).__name__}.predict: predicts only at the measured allocations "
                                  f"{self.allocations_.tolist()}, got n = {n[i]:g} in row {i}")
        return super().predict(X)

    @property
    def equation_(self) -> str:
        """The fitted model: the size exponents and the allocations it knows."""
        self._check_fitted(f"{type(self).__name__}.equation_")
        powers = " * ".join(f"{p}^{m:.3g}" for p, m in zip(self.parameters_, self.exponents_))
        return f"t = a(n) * {powers}, n in {self.allocations_.tolist()}"


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


def target_weights(fold_cv: dict, names: list, direction: np.ndarray, calibration: Calibration
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Return member weights per target (members x targets) and the weighted cross-validation error per target.

    ``fold_cv[fold][member]``: the member's mean absolute log error on the left-out runs of
    ``fold`` (``"all"``: on every fold).  A target uses the errors of the fold of its
    ``direction`` (:func:`target_direction`), falling back to ``"all"`` when that fold was
    not possible; weights are :func:`~workbench.models.scaling.predictor.softmin_weights`
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
        w = softmin_weights(cv, prior, calibration.temperature, penalty, calibration.cv_weight)
        at = direction == fold
        W[:, at] = w[:, None]
        have = np.isfinite(cv)
        if have.any() and w[have].sum() > 0:
            cv_t[at] = float(np.sum(w[have] * cv[have]) / np.sum(w[have]))
    return W, cv_t


@functools.lru_cache(maxsize=1)
def default_calibration() -> Calibration:
    """Return the multi-parameter calibration shipped with the package (``multiparam_calibration.json``)."""
    if not CALIBRATION_PATH.exists():
        raise ValidationError(f"the interval calibration {CALIBRATION_PATH} is missing; run "
                              "tools/multiparam_calibrate.py")
    return Calibration.from_json(CALIBRATION_PATH)


def _extrapolation_cv(members: dict, folds: list, frame: pd.DataFrame, n: np.ndarray, S: np.ndarray,
                      t: np.ndarray) -> pd.DataFrame:
    """Refit every member on each training part of ``folds``; return the held-out predictions.

    ``folds`` from :func:`extrapolation_folds`; columns ``model, fold, actual, prediction, failed`` (a failed
    refit predicts NaN).
    """
    cv_rows = []
    with quiet_warnings():
        for fold, test in folds:
            train = ~test
            for name in members:
                failed = False
                try:
                    model = clone(members[name]).fit(frame[train], t[train])
                    with np.errstate(all="ignore"):
                        p = model._predict(n[test], S[test])
                except (ValidationError, np.linalg.LinAlgError):
                    p, failed = np.full(int(test.sum()), np.nan), True
                cv_rows.append(pd.DataFrame({"model": name, "fold": fold, "actual": t[test], "prediction": p,
                                             "failed": failed}))
    return pd.concat(cv_rows, ignore_index=True) if cv_rows else pd.DataFrame(
        columns=["model", "fold", "actual", "prediction", "failed"])


class MultiParameterPredictor(BaseEstimator):
    """Runtime over allocation x problem size from several models, with calibrated intervals.

    1. fit every member (:data:`MEMBERS`) on all runs;
    2. refit each on the :func:`extrapolation_folds` (without the largest size; without the
       largest allocation of each size) and score the left-out runs: the mean absolute log
       error is the member's ``cv_error_`` (members without a fold get the calibration's
       prior);
    3. weights ``exp(-(cv + penalty) / temperature)`` (temperature learnt on the development
       data; optionally per target from the fold that extrapolates as it does, ``weighting``);
       the prediction is the weighted geometric mean;
    4. the interval is the calibrated error model ``"predictor"``; warnings per target.

    Parameters
    ----------
    models : sequence of str, default tuple(MEMBERS)
        The members to combine, names of :data:`MEMBERS`.
    calibration : Calibration or None, default None
        The error models, priors, temperature and risk threshold; None:
        :func:`default_calibration`.
    weighting : {"pooled", "per-target"}, default "pooled"
        ``"pooled"``: one set of weights from the errors on both folds.  ``"per-target"``: a
        target past the largest allocation is weighted by the ``more-n`` fold only, one past
        the largest size by the ``bigger`` fold (:func:`target_direction`).  On the
        development data (``bench/results/multiparam.md``) per-target weighting was no
        better (RELeARN *more-p* median PA 64 % vs 72 % pooled), hence the default.

    Attributes
    ----------
    members_ : dict of str -> MultiParameterModel
        The fitted members by name.
    fit_seconds_ : dict of str -> float
        Seconds of each member's fit on all runs.
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
    >>> round(float(model.predict(pd.DataFrame({"n": [32.0], "s": [400.0]}))[0]), 2)
    1.0
    """

    def __init__(self, models=tuple(MEMBERS), calibration=None, weighting: str = "pooled"):
        self.models = models
        self.calibration = calibration
        self.weighting = weighting

    def _directions(self, n, S) -> np.ndarray:
        if self.weighting == "per-target":
            return target_direction(n, S, self.n_range_[1], self.S_range_[1])
        return np.full(np.shape(n), "all")

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
        if self.weighting not in ("pooled", "per-target"):
            raise ValidationError(f"{where}: weighting must be 'pooled' or 'per-target', got {self.weighting!r}")
        unknown = [m for m in self.models if m not in MEMBERS]
        if unknown or not len(self.models):
            raise ValidationError(f"{where}: models must be names from {list(MEMBERS)}, got {list(self.models)}")
        n, S, names = check_parameters(X, where)
        t = _check_runtimes(t, n.size, where)
        frame = pd.DataFrame(np.column_stack([n, S]), columns=[ALLOCATION] + names)
        nd, Sd, td, _ = _aggregate(n, S, t)
        self.parameters_ = names
        self.n_range_ = (float(nd.min()), float(nd.max()))
        self.S_range_ = (Sd.min(axis=0), Sd.max(axis=0))
        self.n_points_ = int(nd.size)
        self.members_, self.failures_, self.fit_seconds_ = {}, {}, {}
        with quiet_warnings():
            for name in self.models:
                start = time.perf_counter()
                try:
                    self.members_[name] = MEMBERS[name]().fit(frame, t)
                except (ValidationError, np.linalg.LinAlgError) as exc:
                    self.failures_[name] = str(exc)
                self.fit_seconds_[name] = time.perf_counter() - start
        folds = extrapolation_folds(n, S)
        self.cv_ = _extrapolation_cv(self.members_, folds, frame, n, S, t)
        err = np.log(self.cv_["actual"] / self.cv_["prediction"].where(self.cv_["prediction"] > 0))
        # a member whose refit failed, or that predicts a non-positive runtime, scores as a 10x
        # miss there; one that abstains (NaN: size-power at an allocation it never saw) is
        # judged where it predicts, as the combination uses it only there
        abstain = self.cv_["prediction"].isna() & ~self.cv_["failed"]
        self.cv_["log_error"] = err.fillna(np.log(10.0)).where(~abstain)
        abs_err = self.cv_.assign(a=self.cv_["log_error"].abs())
        per = abs_err.groupby("model")["a"].mean()
        self.cv_error_ = {m: float(per.get(m, np.nan)) for m in self.members_}
        self.fold_cv_error_ = {"all": dict(self.cv_error_)}
        for (fold, m), e in abs_err.groupby(["fold", "model"])["a"].mean().items():
            self.fold_cv_error_.setdefault(fold, {})[m] = float(e)
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
        emit_warnings(notes)
        return self

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "weights_")

    def _check_fitted(self, where: str) -> None:
        check_fitted(self, "weights_", where, fit="fit(X, t)")

    def _combine(self, n, S):
        names = list(self.members_)
        if not names:
            k = n.size
            return np.full(k, np.nan), np.zeros(k), np.array([""] * k, dtype=object), np.full(k, np.nan)
        with np.errstate(all="ignore"):
            P = np.vstack([self.members_[m]._predict(n, S) for m in names])
        direction = self._directions(n, S)
        w, cv_t = target_weights(self.fold_cv_error_, names, direction, self._calibration())
        pred, spread, best = combine(P, w)
        chosen = np.array([names[b] if b >= 0 else "" for b in best], dtype=object)
        fit_error = np.array([self.members_[names[b]].fit_error_ if b >= 0 else np.nan for b in best])
        return pred, spread, chosen, fit_error

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

    def _features(self, n, S, spread, fit_error) -> dict:
        d = _distance(n, S, self.n_range_[0], self.n_range_[1], self.S_range_[0], self.S_range_[1])
        direction = self._directions(n, S)
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
            with np.errstate(all="ignore"):
                p = np.asarray(model._predict(n, S), float)
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
        ``upper`` (calibrated central ``level`` interval, unit of the fitted ``t``),
        ``model`` (member with the largest weight, "" when none predicts), ``warned`` (bool)
        and ``warnings`` (tuple of kinds, :data:`WARNING_KINDS`).  ``attrs["messages"]``
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
        pred, spread, chosen, fit_error = self._combine(n, S)
        feats = self._features(n, S, spread, fit_error)
        lower, upper = cal.interval("predictor", pred, feats, level)
        risk = miss_probability(cal.error_model("predictor"), feats, THRESHOLDS["miss"].value)
        limit = {key: t.value for key, t in THRESHOLDS.items()}
        rules = (("far-extrapolation", feats["distance"] > limit["far"]),
                 ("models-disagree", spread > limit["disagree"]),
                 ("cv-miss", np.nan_to_num(feats["cv_error"]) > limit["cv_miss"]),
                 ("poor-fit", np.nan_to_num(fit_error) > limit["poor_fit"]))
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
        frame["warned"] = [("high-risk" in k or "no-model-fits" in k) for k in kinds]
        frame["warnings"] = kinds
        messages = {w.kind: w.message for w in self.warnings_}
        occurring = {k for ks in kinds for k in ks}
        for kind in occurring:
            messages.setdefault(kind, WARNING_KINDS[kind])
        frame.attrs["messages"] = messages
        frame.attrs["weights"] = dict(self.weights_)
        frame.attrs["miss_probability"] = risk
        return frame
