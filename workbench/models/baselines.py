"""Scalability baselines to compare ADEPT against, scikit-learn style.

Every estimator takes its settings in ``__init__``, learns from ``fit(n, t)`` (``n``:
processor counts >= 1, ``t``: runtimes > 0 in any unit, optional ``sample_weight``),
predicts runtimes in the input's unit with ``predict(n)`` and speedups
``S(n) = T(1) / T(n)`` with ``predict_speedup(n)``.  Fitted attributes end in ``_``;
``result_`` holds the diagnostics (:class:`FitResult`).

All fits minimise the weighted sum of squared *relative* errors
``WSSRE = sum_i w_i ((T_pred(n_i) - t_i) / t_i)^2`` (the objective of ADEPT's curve
fitting, [Deshmeh2013] section 3.5.2), so every fit is invariant under a change of time unit:
multiplying ``t`` by ``c`` multiplies the fitted time scale by ``c`` and leaves every
other parameter unchanged (except in :class:`DowneyLM`'s ``units="paper"`` mode, which
reproduces the thesis literally).

Any positive finite runtimes work, from 1e-308 to 1e308 in any unit: the fits run on
``t / s`` for a power of two ``s`` near the median runtime (exact in floating point, so
the results are those of the unscaled fit wherever that did not overflow) and scale the
time-valued parameters back.  One curve's runtimes may span at most
:data:`MAX_RUNTIME_SPAN` (1e100); a wider spread is refused with a ValidationError (no
strong-scaling curve spans it, and squared relative errors cannot be formed across it).

* :class:`AmdahlModel` -- Amdahl's law ``T(n) = T1 (f + (1 - f) / n)``.
* :class:`USLModel` -- Gunther's Universal Scalability Law.
* :class:`DowneyLM` -- Levenberg-Marquardt fit of the Downey model, the baseline of
  [Deshmeh2013] section 3.6 / Table 2, and :func:`lm_from_random_starts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, emit_warnings, quiet_warnings
from workbench.models import downey
from workbench.models.adept.search import profiled_scale
from workbench.validation import (
    MAX_RUNTIME_SPAN,
    FittedState,
    as_vector,
    check_fitted,
    processor_counts,
    require_allocations,
    require_span,
    require_valid,
    sample_weights,
    training_runs,
)

__all__ = [
    "MAX_RUNTIME_SPAN",
    "FitResult",
    "AmdahlModel",
    "USLModel",
    "DowneyLM",
    "lm_from_random_starts",
]


@dataclass(frozen=True)
class FitResult:
    """Diagnostics of one baseline fit.

    Attributes
    ----------
    params : fitted parameters by name (time-valued ones in the input's unit).
    converged : whether the optimiser stopped on a convergence criterion (always True
        for closed-form fits).  For Levenberg-Marquardt this says nothing about the
        quality of the optimum, which may be local.
    residuals : relative residuals ``(T_pred(n_i) - t_i) / t_i`` in input order
        (unweighted, dimensionless).
    cost : WSSRE, ``sum_i w_i residuals_i^2`` (twice scipy's ``cost``).
    nfev : model evaluations used (0 for closed-form fits).
    message : the optimiser's termination message.
    warnings : caveats about the fit (kinds ``linear-or-better``, ``no-speedup``,
        ``retrograde-scaling``, ``first-piece-only``, ``not-converged``), also the model's ``warnings_``.
    """

    params: dict[str, float]
    converged: bool
    residuals: np.ndarray
    cost: float
    nfev: int
    message: str = ""
    warnings: list[ModelWarning] = field(default_factory=list)


def _time_scale(t: np.ndarray, w: np.ndarray, where: str) -> float:
    """Return a power of two near the median runtime (of the weighted runs), so that ``t / s`` is exact and of order 1.

    A ValidationError when the runtimes span more than :data:`MAX_RUNTIME_SPAN`, naming
    the extreme values and their positions.
    """
    used = np.flatnonzero(w > 0)
    require_span(np.where(w > 0, t, np.median(t[used])), where)
    return float(np.ldexp(1.0, int(np.round(np.median(np.log2(t[used]))))))


def _check_t1(t1: float, n: np.ndarray, t: np.ndarray, where: str) -> None:
    """Refuse a fitted T(1) beyond the float range with a ValidationError.

    Runs at huge n can extrapolate to n = 1 past 1.8e308 in the unit of t.
    """
    if not np.isfinite(t1):
        i = int(np.argmin(n))
        raise ValidationError(
            f"{where}: the fitted runtime on 1 processor is beyond the float range (the smallest allocation is "
            f"n[{i}] = {n[i]:g} with t[{i}] = {t[i]:g}); give t in a larger unit or measure smaller allocations")


def _observations(n, t, sample_weight, min_points: int, where: str):
    """Validate training data; return float vectors ``n``, ``t`` and weights ``w``.

    The checks of :mod:`workbench.validation`; at least ``min_points`` distinct processor
    counts must have a positive weight.
    """
    n, t = training_runs(n, t, where)
    w = sample_weights(sample_weight, t, where)
    require_allocations(n[w > 0], min_points, where, "processor counts (with positive weight)", "observations")
    return n, t, w


class _Baseline(FittedState, BaseEstimator):
    """Shared plumbing: fitted-state check (``result_`` marks a fit) and the speedup definition."""

    fitted_attribute = "result_"

    def _check_fitted(self) -> None:
        check_fitted(self)

    def _result(self, n, t, w, params, **kw) -> FitResult:
        """Return the fit's diagnostics; its warnings also become ``warnings_`` and are emitted."""
        resid = self._predict(n) / t - 1.0
        result = FitResult(params=params, residuals=resid, cost=float(np.sum(w * resid**2)), **kw)
        self.warnings_ = list(result.warnings)
        emit_warnings(self.warnings_, stacklevel=3)  # from the fit that called this
        return result

    def predict(self, n) -> np.ndarray:
        """Runtime at ``n`` processors, in the unit of the fitted ``t``; same shape as ``n``.

        A runtime beyond the float range (an extrapolation of runtimes near 1e308) is a
        ValidationError naming the position.
        """
        where = f"{type(self).__name__}.predict"
        n, pred = self._evaluate(n, where)
        flat = np.asarray(pred, float).reshape(-1)
        require_valid(~np.isfinite(flat), np.asarray(n, float).reshape(-1), "n",
                      "an allocation whose predicted runtime is finite (it is beyond the float range there)", where)
        return pred

    def predict_raw(self, n) -> np.ndarray:
        """Runtime at ``n`` as the fitted formula gives it, without the range check of :meth:`predict`.

        Parameters
        ----------
        n : array-like of float
            Processor counts, finite and >= 1 (any shape).

        Returns
        -------
        numpy.ndarray
            Runtimes in the unit of the fitted ``t``, same shape as ``n``: inf (or 0) where the
            runtime is beyond the float range, for a caller that reports such targets in its own
            words (:mod:`workbench.models.scaling`).
        """
        return self._evaluate(n, f"{type(self).__name__}.predict_raw")[1]

    def _evaluate(self, n, where: str) -> tuple[np.ndarray, np.ndarray]:
        """Check the model is fitted and ``n``; return ``n`` as floats and the formula's runtimes there."""
        self._check_fitted()
        n = processor_counts(n, where)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return n, self._predict(n)

    def predict_speedup(self, n) -> np.ndarray:
        """Speedup ``T(1) / T(n)`` of the fitted model (dimensionless)."""
        t = self.predict(n)
        return self.t1_ / t


def _nnls_relative(basis: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Minimise ``sum_i w_i (basis_i . c - 1)^2`` over ``c >= 0`` exactly (active-set NNLS).

    The relative residual of a model linear in ``c`` is ``basis . c - 1`` with
    ``basis_ij = phi_j(n_i) / t_i``.  Columns are normalised first because they can
    differ by many orders of magnitude (USL: 1 vs n (n - 1)); a positive rescaling keeps
    the sign constraints.
    """
    sw = np.sqrt(w)
    weighted = basis * sw[:, None]
    norms = np.linalg.norm(weighted, axis=0)
    norms[norms == 0] = 1.0
    coef, _ = optimize.nnls(weighted / norms, sw)
    return coef / norms


class AmdahlModel(_Baseline):
    """Amdahl's law: ``T(n) = T1 (f + (1 - f) / n)`` (serial fraction ``f``).

    ``T(n) = a + b / n`` is linear in the serial time ``a = T1 f`` and the parallel time
    ``b = T1 (1 - f)``, and so are the relative residuals ``a / t + b / (n t) - 1``: the
    WSSRE fit is a non-negative least-squares problem (:func:`scipy.optimize.nnls`),
    solved exactly, with ``a, b >= 0`` keeping ``f`` in ``[0, 1]``.

    Fitted attributes: ``t1_`` (input unit), ``serial_fraction_``, ``result_``.
    """

    def fit(self, n, t, sample_weight=None) -> AmdahlModel:
        """Fit Amdahl's law to the runs ``(n, t)``, optionally weighted; return self.

        Parameters
        ----------
        n : array-like of float, shape (M,)
            Processor counts of the runs (>= 1).
        t : array-like of float, shape (M,)
            Runtimes at ``n`` (any one unit; predictions come back in it).
        sample_weight : array-like of float, shape (M,), optional
            Non-negative weight per run; default: all runs weigh 1.
        """
        n, t, w = _observations(n, t, sample_weight, 2, "AmdahlModel.fit")
        scale = _time_scale(t, w, "AmdahlModel.fit")
        ts = t / scale
        with np.errstate(over="ignore"):  # n t beyond the float range: its basis value is 0
            serial, parallel = _nnls_relative(np.column_stack([1.0 / ts, 1.0 / (n * ts)]), w)
        self.t1_ = float(serial + parallel) * scale
        _check_t1(self.t1_, n, t, "AmdahlModel.fit")
        self.serial_fraction_ = float(serial / (serial + parallel))
        notes = []
        if self.serial_fraction_ == 0.0:
            notes.append(ModelWarning("linear-or-better", "serial fraction at its bound 0: the data scale linearly or "
                                      "better"))
        elif self.serial_fraction_ == 1.0:
            notes.append(ModelWarning("no-speedup", "serial fraction at its bound 1: the data show no speedup"))
        self.result_ = self._result(
            n, t, w,
            {"t1": self.t1_, "serial_fraction": self.serial_fraction_},
            converged=True, nfev=0, message="closed form (nnls)", warnings=notes,
        )
        return self

    def _predict(self, n):
        f = self.serial_fraction_
        return self.t1_ * (f + (1.0 - f) / n)


class USLModel(_Baseline):
    """Gunther's Universal Scalability Law: ``S(n) = n / (1 + alpha (n - 1) + beta n (n - 1))``, ``T(n) = t1 / S(n)``.

    ``alpha`` (contention) and ``beta`` (coherency) are >= 0; the fit minimises the
    WSSRE (relative errors) under these bounds.  ``n T(n) = t1 + (t1 alpha) (n - 1) +
    (t1 beta) n (n - 1)`` is linear in ``c = (t1, t1 alpha, t1 beta)``, so the relative
    residuals are too, and for ``t1 > 0`` the bounds are just ``c >= 0``: bounded least
    squares reduces to non-negative least squares, solved exactly and deterministically.
    (An iterative :func:`scipy.optimize.least_squares` ``trf`` run is worse here: it
    first moves a start on the bound ``beta = 0`` strictly inside, and stops a little
    off the optimum.)

    Fitted attributes: ``t1_`` (input unit), ``alpha_``, ``beta_``, ``n_peak_`` (where
    the speedup peaks, ``sqrt((1 - alpha) / beta)`` but at least 1; ``inf`` if it
    never does), ``result_``.
    """

    def fit(self, n, t, sample_weight=None) -> USLModel:
        """Fit the universal scalability law to the runs ``(n, t)``, optionally weighted; return self.

        Parameters
        ----------
        n : array-like of float, shape (M,)
            Processor counts of the runs (>= 1).
        t : array-like of float, shape (M,)
            Runtimes at ``n`` (any one unit; predictions come back in it).
        sample_weight : array-like of float, shape (M,), optional
            Non-negative weight per run; default: all runs weigh 1.
        """
        n, t, w = _observations(n, t, sample_weight, 3, "USLModel.fit")
        scale = _time_scale(t, w, "USLModel.fit")
        ts = t / scale
        with np.errstate(over="ignore", invalid="ignore"):
            basis = np.column_stack([np.ones_like(n), n - 1.0, n * (n - 1.0)]) / (n * ts)[:, None]
            if not np.all(np.isfinite(basis)):  # n (n - 1) or n t beyond the float range
                basis = np.column_stack([1.0 / n / ts, (1.0 - 1.0 / n) / ts, (n - 1.0) / ts])
        if not np.all(np.isfinite(basis)):
            i = int(np.flatnonzero(~np.isfinite(basis).all(axis=1))[0])
            raise ValidationError(f"USLModel.fit: n[{i}] = {n[i]:g} with t[{i}] = {t[i]:g} is beyond what the USL "
                                  "terms n (n - 1) / (n t) can represent")
        c0, c1, c2 = _nnls_relative(basis, w)
        # n T(n) is at least c0; a c0 negligible against every observed n t means T(1) -> 0
        with np.errstate(over="ignore"):
            floor = 1e-9 * np.min(n * ts)
        if not c0 > floor:
            raise ValidationError(
                "USLModel.fit: the best fit has T(1) = 0 (runtimes grow roughly in proportion to n - 1); "
                "USL cannot describe these data"
            )
        self.t1_, self.alpha_, self.beta_ = float(c0) * scale, float(c1 / c0), float(c2 / c0)
        _check_t1(self.t1_, n, t, "USLModel.fit")
        if self.alpha_ >= 1:
            self.n_peak_ = 1.0
        elif self.beta_ > 0:
            self.n_peak_ = float(max(1.0, np.sqrt((1.0 - self.alpha_) / self.beta_)))
        else:
            self.n_peak_ = float("inf")
        notes = []
        if self.alpha_ == 0 and self.beta_ == 0:
            notes.append(ModelWarning("linear-or-better", "alpha = beta = 0: the data scale linearly or better"))
        if self.n_peak_ < n.max():
            notes.append(ModelWarning("retrograde-scaling", f"speedup peaks at n = {self.n_peak_:.3g} inside the "
                                      "observed range (retrograde scaling)"))
        self.result_ = self._result(
            n, t, w,
            {"t1": self.t1_, "alpha": self.alpha_, "beta": self.beta_},
            converged=True, nfev=0, message="closed form (nnls)", warnings=notes,
        )
        return self

    def _predict(self, n):
        return self.t1_ / self._speedup(n)

    def _speedup(self, n):
        return n / (1.0 + self.alpha_ * (n - 1.0) + self.beta_ * n * (n - 1.0))

    def predict_speedup(self, n) -> np.ndarray:
        """Return the fitted model's speedup at ``n``.

        Parameters
        ----------
        n : float or array-like of float
            Processor counts (>= 1).
        """
        self._check_fitted()
        return self._speedup(processor_counts(n, "USLModel.predict_speedup"))


_UNITS = ("fit", "paper")


class DowneyLM(_Baseline):
    """Levenberg-Marquardt fit of the Downey model ([Deshmeh2013] section 3.6, Table 2 baseline).

    Model: ``t(n) = scale * runtime(n, A, sigma)`` with :func:`workbench.models.downey.runtime`
    in model units.  ``units="fit"`` (default, as :class:`~workbench.models.adept.ADEPT`)
    fits the time scale: for any (A, sigma) the WSSRE-optimal scale has the closed form
    ``scale = sum w u / sum w u^2`` with ``u_i = runtime(n_i) / t_i``
    (:func:`~workbench.models.adept.search.profiled_scale`), so LM works on (A, sigma)
    only with the scale profiled out, and the fit is unit-invariant.
    ``units="paper"`` fixes ``scale = 1`` input unit, as the thesis did (which silently
    makes T(inf) = 1 input unit; see docs/decisions/adept.md).

    Plain, unconstrained LM (``scipy.optimize.least_squares(method="lm")``, MINPACK,
    finite-difference Jacobian) on relative residuals, from the initial guess
    ``x0 = (A0, sigma0)``.  To keep the model in its domain without bounds, LM works on
    ``(a, s)`` with ``A = 1 + a^2`` and ``sigma = s^2``.  Their gradient vanishes at
    ``a = 0`` / ``s = 0``, so starts closer than 1e-6 to ``A0 = 1`` or ``sigma0 = 0``
    are moved to ``A0 = 1 + 1e-6`` / ``sigma0 = 1e-6`` (``a``, ``s`` = 1e-3).

    Parameters
    ----------
    x0 : tuple of (float, float), default (10.0, 2.0)
        Initial (A0, sigma0).  Arbitrary, as in the thesis, but off sigma0 = 1, where the
        model *runtime* jumps by a factor 2 (T(1) = A on the low-variance side, 2A on the
        high-variance side) and the finite-difference Jacobian is meaningless, so that LM
        stops at once in ``paper`` mode.
    units : {"fit", "paper"}, default "fit"
        ``"fit"``: the time scale is profiled out; ``"paper"``: it is fixed at 1 input unit.
    max_nfev : int, default 2000
        Evaluation budget (the thesis ran levmar for up to 2000 iterations).

    Fitted attributes: ``A_``, ``sigma_``, ``scale_`` (input unit), ``t1_`` (input unit),
    ``nfev_``, ``cost_`` (WSSRE), ``converged_``, ``result_``.
    """

    def __init__(self, x0=(10.0, 2.0), units: str = "fit", max_nfev: int = 2000):
        self.x0 = x0
        self.units = units
        self.max_nfev = max_nfev

    def _check_params(self) -> np.ndarray:
        if self.units not in _UNITS:
            raise ValidationError(f"DowneyLM: units must be one of {_UNITS}, got {self.units!r}")
        x0 = as_vector(self.x0, "x0", "DowneyLM")
        if x0.size != 2 or not np.all(np.isfinite(x0)) or x0[0] < 1 or x0[1] < 0:
            raise ValidationError(f"DowneyLM: x0 must be (A0 >= 1, sigma0 >= 0), finite, got {self.x0!r}")
        if not (isinstance(self.max_nfev, (int, np.integer)) and self.max_nfev >= 1):
            raise ValidationError(f"DowneyLM: max_nfev must be a positive integer, got {self.max_nfev!r}")
        return x0

    def fit(self, n, t, sample_weight=None) -> DowneyLM:
        """Fit Downey's model to the runs ``(n, t)`` by Levenberg-Marquardt, optionally weighted; return self.

        Parameters
        ----------
        n : array-like of float, shape (M,)
            Processor counts of the runs (>= 1).
        t : array-like of float, shape (M,)
            Runtimes at ``n`` (any one unit; predictions come back in it).
        sample_weight : array-like of float, shape (M,), optional
            Non-negative weight per run; default: all runs weigh 1.
        """
        A0, sigma0 = self._check_params()
        n, t_in, w = _observations(n, t, sample_weight, 3, "DowneyLM.fit")
        sw = np.sqrt(w)
        paper = self.units == "paper"
        # the fit runs on t / time_scale (exact: a power of two) and scales the time scale back;
        # paper mode fixes the scale at 1 input unit, so its runtimes are used as given
        time_scale = 1.0 if paper else _time_scale(t_in, w, "DowneyLM.fit")
        t = t_in / time_scale

        def unpack(x):
            return 1.0 + x[0] ** 2, x[1] ** 2

        def scale_for(u):
            return float(profiled_scale(u, w, paper))

        def residuals(x):
            A, sigma = unpack(x)
            if not (np.isfinite(A) and np.isfinite(sigma)):
                downey.check_parameters(A, sigma)  # the model's own message (the hot path skips the checks)
            u = downey.runtime_unchecked(n, A, sigma) / t
            return sw * (scale_for(u) * u - 1.0)

        start = np.maximum(np.sqrt([A0 - 1.0, sigma0]), 1e-3)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            r0 = residuals(start)
        if not np.all(np.isfinite(r0)):
            i = int(np.flatnonzero(~np.isfinite(r0))[0])
            raise ValidationError(
                f"DowneyLM.fit: the relative residual of t[{i}] = {t_in[i]:g} is not finite at the start "
                + ("(units='paper' takes runtimes as model units, T(inf) = 1: use units='fit' for runtimes in "
                   "another range)" if paper else "(runtimes too far apart)"))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            try:
                sol = optimize.least_squares(residuals, start, method="lm", max_nfev=self.max_nfev)
            except ValueError as exc:  # a residual overflowed on the way (extreme paper-mode runtimes)
                raise ValidationError(f"DowneyLM.fit: Levenberg-Marquardt failed on these runtimes: {exc}") from None
        A, sigma = unpack(sol.x)
        self.A_, self.sigma_ = float(A), float(sigma)
        self.scale_ = scale_for(downey.runtime(n, A, sigma) / t) * time_scale
        self.t1_ = float(self.scale_ * downey.serial_runtime(A, sigma))
        _check_t1(self.t1_, n, t_in, "DowneyLM.fit")
        self.nfev_ = int(sol.nfev)
        self.converged_ = bool(sol.status > 0)
        notes = []
        if not self.converged_:
            notes.append(ModelWarning("not-converged",
                                      f"Levenberg-Marquardt stopped without converging: {sol.message}"))
        first_piece_end = A if sigma <= 1 else float(downey.max_useful_allocation(A, sigma))
        if not paper and np.all(n <= first_piece_end):
            # there T(n) = scale (c + d / n): two numbers for three unknowns
            notes.append(ModelWarning(
                "first-piece-only",
                f"every observation lies on the first piece of the fitted model (n <= {first_piece_end:.4g}): "
                "with a fitted time scale, A and sigma are not identifiable there and extrapolations "
                "are unreliable"
            ))
        self.result_ = self._result(
            n, t_in, w,
            {"A": self.A_, "sigma": self.sigma_, "scale": self.scale_},
            converged=self.converged_, nfev=self.nfev_, message=str(sol.message), warnings=notes,
        )
        self.cost_ = self.result_.cost
        return self

    def _predict(self, n):
        return self.scale_ * downey.runtime(n, self.A_, self.sigma_)

    def predict_speedup(self, n) -> np.ndarray:
        """Return Downey's speedup at ``n`` with the fitted A and sigma.

        Parameters
        ----------
        n : float or array-like of float
            Processor counts (>= 1).
        """
        self._check_fitted()
        return downey.speedup(processor_counts(n, "DowneyLM.predict_speedup"), self.A_, self.sigma_)


def lm_from_random_starts(
    n,
    t,
    n_starts: int = 20,
    seed: int = 0,
    units: str = "fit",
    sample_weight=None,
    A_range: tuple[float, float] = (1.0, 3000.0),
    sigma_range: tuple[float, float] = (0.0, 3000.0),
    max_nfev: int = 2000,
) -> pd.DataFrame:
    """Fit :class:`DowneyLM` from ``n_starts`` random initial guesses.

    [Deshmeh2013] section 3.6: LM with "arbitrary initial guesses" is highly sensitive to
    them.

    Starts are drawn uniformly from the thesis' search box (A in [1, 3000], sigma in
    [0, 3000] by default) with ``numpy.random.default_rng(seed)``.

    Returns a DataFrame, one row per start, columns: ``A0``, ``sigma0`` (start),
    ``A``, ``sigma`` (fitted), ``scale`` (input time unit), ``cost`` (WSSRE),
    ``nfev``, ``converged``.

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts of the runs (>= 1).
    t : array-like of float, shape (M,)
        Runtimes at ``n``.
    n_starts : int, default 20
        Number of random starts.
    seed : int, default 0
        Seed of the random generator.
    units : {"fit", "paper"}, default "fit"
        Time-scale convention of each fit (see :class:`DowneyLM`).
    sample_weight : array-like of float, shape (M,), optional
        Non-negative weight per run; default: all runs weigh 1.
    A_range : tuple of (float, float), default (1.0, 3000.0)
        Box the A starts are drawn from (lo >= 1).
    sigma_range : tuple of (float, float), default (0.0, 3000.0)
        Box the sigma starts are drawn from (lo >= 0).
    max_nfev : int, default 2000
        Evaluation budget of each fit.
    """
    if not (isinstance(n_starts, (int, np.integer)) and n_starts >= 1):
        raise ValidationError(f"lm_from_random_starts: n_starts must be a positive integer, got {n_starts!r}")
    for name, box, floor in (("A_range", A_range, 1.0), ("sigma_range", sigma_range, 0.0)):
        lo, hi = np.resize(as_vector(box, name, "lm_from_random_starts"), 2)
        if np.size(box) != 2 or not (np.isfinite(lo) and np.isfinite(hi) and floor <= lo <= hi):
            raise ValidationError(
                f"lm_from_random_starts: {name} must be finite (lo, hi) with {floor:g} <= lo <= hi, got {box!r}"
            )
    # validate once here, so that a bad input fails before the first fit
    n, t, w = _observations(n, t, sample_weight, 3, "lm_from_random_starts")
    rng = np.random.default_rng(seed)
    starts = np.column_stack([rng.uniform(*A_range, n_starts), rng.uniform(*sigma_range, n_starts)])
    rows = []
    for A0, sigma0 in starts:
        with quiet_warnings():  # the table's converged column says what the warnings would
            m = DowneyLM(x0=(A0, sigma0), units=units, max_nfev=max_nfev).fit(n, t, sample_weight=w)
        rows.append((A0, sigma0, m.A_, m.sigma_, m.scale_, m.cost_, m.nfev_, m.converged_))
    return pd.DataFrame(rows, columns=["A0", "sigma0", "A", "sigma", "scale", "cost", "nfev", "converged"])
