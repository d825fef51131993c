"""Fractal extrapolation of phase runtimes to a large input (Escobar & Boppana, [EscobarBoppana]).

The method has three steps ([EscobarBoppana] section 2):

1. **Major phases** (§2.1): from per-function (per-phase) times of a few small runs, the
   phases that cumulatively make >= 70 % of the runtime (:func:`major_phases`); the
   *convergence size* C beyond which the share of time in those phases is stable
   (:func:`convergence_size`); further runs at ``N_i = C + i*delta``, ``i = 1..k``
   (:func:`design_sizes`, k = 5 in the paper).
2. **Phase runtime** (§2.2): per phase, the least-squares line ``m x + b`` through the
   points ``(ln(N_i / N_Lrg), ln T_i)``; ``m`` is the fractal dimension (the degree of the
   phase's runtime polynomial) and ``e^b`` the predicted phase time at ``N_Lrg``
   (:func:`fit_phase`). Table 1 of the paper lists m and b (b in ln of milliseconds).
3. **Overall runtime** (§2.3): each phase's share ``r_P`` of the total time is extrapolated
   linearly in N to ``N_Lrg`` (:func:`extrapolate_share`) and ``T = sum t_P / sum r_P``
   (:class:`FractalExtrapolator`).

The paper gives point predictions only; the band of :func:`fit_phase` is the ordinary
least-squares *prediction interval* of ln T at x = 0 (Student t, k - 2 degrees of freedom),
exponentiated: an addition of this project, so that a prediction comes with its
uncertainty from the regression.

**Profile frame** (the input of the phase-level functions; produced by
:mod:`workbench.io.profiles` and :mod:`workbench.measure.phases`): one row per phase per run,
columns ``size`` (input size N > 0), ``phase`` (str), ``time_s`` (exclusive time of the
phase in that run, s, >= 0), ``run`` (int >= 0, default 0), optional ``total_s`` (the run's
whole-program wall time, s; when absent the total is the sum of the run's phase times).
``frame.attrs["time_unit"] == "s"``. :func:`validate_profile` checks and normalises it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, WorkbenchWarning, emit_warnings
from workbench.validation import PROFILE_COLUMNS, as_vector, check_fitted, validate_profile

__all__ = [
    "PROFILE_COLUMNS",
    "FractalExtrapolator",
    "FractalPrediction",
    "PhaseFit",
    "ShareFit",
    "convergence_size",
    "design_sizes",
    "extrapolate_share",
    "fit_phase",
    "major_phases",
    "phase_shares",
    "validate_profile",
]

def _warn(messages: list[str], text: str) -> None:
    messages.append(text)
    warnings.warn(text, WorkbenchWarning, stacklevel=3)


# ----------------------------------------------------------------------------- §2.2 phase fit


@dataclass(frozen=True, eq=False)
class PhaseFit:
    """Least-squares line ``ln T = m ln(N / N_Lrg) + b`` of one phase ([EscobarBoppana] §2.2).

    ``m``: slope = fractal dimension (e.g. 3 for an O(N^3) phase). ``b``: intercept, ln of
    the time unit of ``times`` (Table 1 uses ln ms). ``predicted = e^b``: the phase time at
    ``target_size`` (N_Lrg), same unit as ``times``. ``r2``: coefficient of determination in
    log space. ``residual_std``: standard deviation of the log residuals (k - 2 dof; NaN for
    k = 2). ``band``: ``(low, high)`` = exp of the ``confidence`` prediction interval of ln T at
    x = 0, ``b -/+ t_{k-2} s sqrt(1 + 1/k + xbar^2 / Sxx)``; ``(nan, nan)`` when k = 2.
    ``warnings``: texts of the warnings raised while fitting.
    """

    m: float
    b: float
    predicted: float
    target_size: float
    sizes: np.ndarray
    times: np.ndarray
    r2: float
    residual_std: float
    band: tuple[float, float]
    confidence: float = 0.95
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def predict(self, size) -> np.ndarray | float:
        """``e^(m ln(size / target_size) + b)`` for each size (> 0); a scalar gives a float.

        Parameters
        ----------
        size : float or array-like
            Input sizes, finite and > 0.
        """
        s = as_vector(size, "size", "PhaseFit.predict")
        if not np.all(np.isfinite(s) & (s > 0)):
            raise ValidationError(f"PhaseFit.predict: size must be finite and > 0, got {size!r}")
        out = np.exp(self.m * np.log(s / self.target_size) + self.b)
        return float(out[0]) if np.ndim(size) == 0 else out


def _check_confidence(confidence, where: str) -> float:
    try:
        c = float(confidence)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: confidence must be a number in (0, 1), got {confidence!r}") from None
    if not 0 < c < 1:
        raise ValidationError(f"{where}: confidence must be in (0, 1), got {confidence!r}")
    return c


def _check_target(target_size, where: str) -> float:
    try:
        t = float(target_size)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: target_size must be a number > 0, got {target_size!r}") from None
    if not (np.isfinite(t) and t > 0):
        raise ValidationError(f"{where}: target_size must be finite and > 0, got {target_size!r}")
    return t


def _sizes_and_values(sizes, values, name: str, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Equal-length finite vectors, >= 2 strictly increasing positive sizes."""
    n = as_vector(sizes, "sizes", where)
    v = as_vector(values, name, where)
    if n.size != v.size:
        raise ValidationError(f"{where}: sizes and {name} must have the same length, got {n.size} and {v.size}")
    if n.size < 2:
        raise ValidationError(f"{where}: needs at least 2 sizes to fit a line, got {n.size}")
    for label, arr in (("sizes", n), (name, v)):
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValidationError(f"{where}: {label} must be finite, got {label}[{i}] = {arr[i]}")
    if np.any(n <= 0):
        i = int(np.flatnonzero(n <= 0)[0])
        raise ValidationError(f"{where}: sizes must be > 0, got sizes[{i}] = {n[i]}")
    steps = np.diff(n)
    if np.any(steps <= 0):
        i = int(np.flatnonzero(steps <= 0)[0])
        raise ValidationError(
            f"{where}: sizes must be strictly increasing, got sizes[{i}] = {n[i]} then sizes[{i + 1}] = {n[i + 1]}"
        )
    return n, v


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float, float]:
    """Slope, intercept, r2, residual sum of squares and Sxx of the OLS line y = m x + b."""
    xbar, ybar = x.mean(), y.mean()
    sxx = float(np.sum((x - xbar) ** 2))
    m = float(np.sum((x - xbar) * (y - ybar)) / sxx)
    b = float(ybar - m * xbar)
    ss_res = float(np.sum((y - (m * x + b)) ** 2))
    ss_tot = float(np.sum((y - ybar) ** 2))
    # a flat, exactly fitted line explains everything there is to explain
    r2 = 1.0 if ss_tot == 0 else 1.0 - ss_res / ss_tot
    return m, b, r2, ss_res, sxx


def fit_phase(sizes, times, target_size, *, confidence: float = 0.95) -> PhaseFit:
    """Fractal fit of one phase ([EscobarBoppana] §2.2).

    Least squares of ``ln(times)`` on ``x = ln(sizes / target_size)``; ``predicted = e^b``
    is the time at ``target_size``.

    With k = 2 the line is exact and has no residual degrees of freedom: ``band`` is
    ``(nan, nan)`` and a :class:`~workbench.errors.WorkbenchWarning` is raised (and kept in
    ``warnings``).

    Parameters
    ----------
    sizes : array-like of shape (k,)
        The small input sizes N_i, strictly increasing, > 0.
    times : array-like of shape (k,)
        The phase times T_i, > 0, any unit (``b`` and ``predicted`` are in that unit).
    target_size : float
        N_Lrg, > 0.
    confidence : float, default 0.95
        Confidence level of the band, in (0, 1).

    Raises
    ------
    ValidationError
        Fewer than 2 sizes, lengths that differ, non-finite or non-positive sizes or times,
        sizes not strictly increasing, or ``target_size <= 0``.
    """
    where = "fit_phase"
    n, t = _sizes_and_values(sizes, times, "times", where)
    if np.any(t <= 0):
        i = int(np.flatnonzero(t <= 0)[0])
        raise ValidationError(f"{where}: times must be > 0 (their logarithm is fitted), got times[{i}] = {t[i]}")
    target = _check_target(target_size, where)
    conf = _check_confidence(confidence, where)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        ratio = n / target
        # a target ~1e-308 or ~1e308 away from the sizes: the ratio leaves the float range
        x = np.where(np.isfinite(ratio) & (ratio > 0), np.log(ratio), np.log(n) - np.log(target))
    m, b, r2, ss_res, sxx = _line(x, np.log(t))
    if not (np.isfinite(m) and np.isfinite(b) and np.exp(b) < np.inf):
        raise ValidationError(f"{where}: the phase time extrapolated to target_size {target:g} is beyond the float "
                              f"range (fitted sizes {n[0]:g} .. {n[-1]:g}): choose a target nearer the profiled sizes")
    k = n.size
    notes: list[str] = []
    if k == 2:
        _warn(notes, "fit_phase: only 2 sizes, the line has no residual degrees of freedom: no prediction band")
        residual_std, band = float("nan"), (float("nan"), float("nan"))
    else:
        residual_std = float(np.sqrt(ss_res / (k - 2)))
        # prediction interval of a new ln T at x = 0 (the target size)
        half = stats.t.ppf(0.5 + conf / 2, k - 2) * residual_std * np.sqrt(1 + 1 / k + x.mean() ** 2 / sxx)
        band = (float(np.exp(b - half)), float(np.exp(b + half)))
    if target <= n[-1]:
        _warn(notes, f"fit_phase: target_size {target:g} is not above the largest fitted size {n[-1]:g} (no "
              "extrapolation)")
    return PhaseFit(
        m=m, b=b, predicted=float(np.exp(b)), target_size=target, sizes=n, times=t, r2=float(r2),
        residual_std=residual_std, band=band, confidence=conf, warnings=tuple(notes),
    )


# ----------------------------------------------------------------------------- profile frame


def phase_shares(profile) -> pd.DataFrame:
    """Mean time and share of each phase per size ([EscobarBoppana] §2.1/§2.3).

    Per run, the total is ``total_s`` when the frame has it, else the sum of that run's phase
    times; each row's share is ``time_s / total``. Returned (one row per size and phase, sorted
    by size then phase): ``size``, ``phase``, ``time_s`` (mean over runs, s), ``total_s``
    (mean total over the runs of that size, s), ``share`` (mean over runs of the per-run
    share, 0..1). A phase missing from a run counts as 0 s in that run.

    Parameters
    ----------
    profile : pandas.DataFrame
        The profile: columns ``size``, ``phase``, ``time_s`` (s), ``run`` and optionally
        ``total_s`` (the run's whole time, s, when it includes unprofiled time).
    """
    frame = validate_profile(profile)
    sizes, size_of_row = np.unique(frame["size"].to_numpy(dtype=float), return_inverse=True)
    phases, phase_of_row = np.unique(frame["phase"].to_numpy(dtype=str), return_inverse=True)
    # one row of ``wide`` per (size, run); a phase missing from a run stays 0 s, so that the
    # means below are over all runs of a size
    runs, run_of_row = np.unique(np.c_[size_of_row, frame["run"].to_numpy()], axis=0, return_inverse=True)
    wide = np.zeros((len(runs), len(phases)))
    np.add.at(wide, (run_of_row, phase_of_row), frame["time_s"].to_numpy(dtype=float))
    if "total_s" in frame.columns:
        totals = np.empty(len(runs))
        totals[run_of_row] = frame["total_s"].to_numpy(dtype=float)  # one value per run (validated)
    else:
        totals = wide.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = wide / totals[:, None]
    share[np.isnan(share)] = 0.0
    size_of_run = runs[:, 0]
    runs_per_size = np.bincount(size_of_run, minlength=len(sizes))

    def by_size(values: np.ndarray) -> np.ndarray:
        summed = np.zeros((len(sizes),) + values.shape[1:])
        np.add.at(summed, size_of_run, values)
        return summed / runs_per_size.reshape((-1,) + (1,) * (values.ndim - 1))

    n_phases = len(phases)
    out = pd.DataFrame({
        "size": np.repeat(sizes, n_phases),
        "phase": np.tile(phases.astype(object), len(sizes)),
        "time_s": by_size(wide).ravel(),
        "total_s": np.repeat(by_size(totals), n_phases),
        "share": by_size(share).ravel(),
    })
    out.attrs = frame.attrs
    return out


def _check_fraction(value, name: str, where: str, *, low_open: bool = True) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: {name} must be a number in (0, 1], got {value!r}") from None
    if not (0 < v <= 1 if low_open else 0 <= v <= 1):
        raise ValidationError(f"{where}: {name} must be in {'(0, 1]' if low_open else '[0, 1]'}, got {value!r}")
    return v


def major_phases(profile, threshold: float = 0.70) -> list[str]:
    """Phases that cumulatively make >= ``threshold`` of the runtime ([EscobarBoppana] §2.1: 70 %).

    Pooling: each phase's share is the mean over the profile's sizes of its mean-over-runs
    share (:func:`phase_shares`), so every small size weighs the same whatever its runtime.
    Phases are sorted by that share, descending (ties by name), and the shortest prefix whose
    cumulative share reaches ``threshold`` is returned. When ``total_s`` includes unprofiled
    time and even all phases together stay below ``threshold``, all phases are returned and
    a :class:`~workbench.errors.WorkbenchWarning` says so.

    Parameters
    ----------
    profile : pandas.DataFrame
        The profile: columns ``size``, ``phase``, ``time_s`` (s), ``run`` and optionally
        ``total_s`` (the run's whole time, s, when it includes unprofiled time).
    threshold : float, default 0.70
        Cumulative share the major phases reach, in (0, 1].
    """
    thr = _check_fraction(threshold, "threshold", "major_phases")
    phases, note = _major_from_shares(phase_shares(profile), thr)
    if note:
        note.emit()
    return phases


def _major_from_shares(shares: pd.DataFrame, thr: float) -> tuple[list[str], ModelWarning | None]:
    """Return the major phases, and a warning when even all of them stay below ``thr``."""
    pooled = shares.groupby("phase")["share"].mean()
    pooled = pooled.sort_index().sort_values(ascending=False, kind="stable")
    cumulative = pooled.cumsum().to_numpy()
    reached = np.flatnonzero(cumulative >= thr - 1e-12)
    if reached.size == 0:
        return list(pooled.index), ModelWarning(
            "phases-below-threshold",
            f"major_phases: all phases together make only {cumulative[-1]:.1%} of the runtime, below the "
            f"threshold {thr:.0%}: returning all of them")
    return list(pooled.index[: reached[0] + 1]), None


def _check_phases(phases, available, where: str) -> list[str]:
    if isinstance(phases, str):
        phases = [phases]
    phases = list(phases)
    if not phases:
        raise ValidationError(f"{where}: phases must name at least one phase; available: {sorted(available)}")
    unknown = [p for p in phases if p not in set(available)]
    if unknown:
        raise ValidationError(f"{where}: unknown phase(s) {unknown}; the profile has {sorted(available)}")
    return phases


def _combined_share(shares: pd.DataFrame, phases: list[str]) -> pd.Series:
    return shares[shares["phase"].isin(phases)].groupby("size")["share"].sum()


def convergence_size(profile, phases, tolerance: float = 0.05) -> float:
    """Convergence size C ([EscobarBoppana] §2.1).

    The smallest profiled size beyond which the share of time in ``phases`` (summed) changes
    by at most ``tolerance`` (absolute share, e.g. 0.05 = 5 percentage points) between every
    pair of consecutive sizes.

    Needs >= 2 sizes. Raises :class:`~workbench.errors.ValidationError` for unknown phases and
    when the share never stabilises (its last step already exceeds ``tolerance``).

    Parameters
    ----------
    profile : pandas.DataFrame
        The profile: columns ``size``, ``phase``, ``time_s`` (s), ``run`` and optionally
        ``total_s`` (the run's whole time, s, when it includes unprofiled time).
    phases : sequence of str
        The phases whose summed share must stabilise.
    tolerance : float, default 0.05
        Largest change of that share between consecutive sizes (absolute share).
    """
    tol = _check_fraction(tolerance, "tolerance", "convergence_size", low_open=False)
    return _convergence_from_shares(phase_shares(profile), phases, tol)


def _convergence_from_shares(shares: pd.DataFrame, phases, tol: float) -> float:
    where = "convergence_size"
    phases = _check_phases(phases, shares["phase"].unique(), where)
    combined = _combined_share(shares, phases).sort_index()
    if combined.size < 2:
        raise ValidationError(f"{where}: needs at least 2 profiled sizes, got {combined.size}")
    sizes = combined.index.to_numpy(dtype=float)
    steps = np.abs(np.diff(combined.to_numpy()))
    # shares are ratios of floats: 0.8 - 0.6 must count as a step of 0.2
    unstable = np.flatnonzero(steps > tol + 1e-12)
    if unstable.size and unstable[-1] == steps.size - 1:
        raise ValidationError(
            f"{where}: the share of {phases} never stabilises within {tol:g}: it changes by {steps[-1]:.3f} "
            f"between the two largest sizes {sizes[-2]:g} and {sizes[-1]:g}; profile larger sizes"
        )
    return float(sizes[unstable[-1] + 1] if unstable.size else sizes[0])


def design_sizes(C, delta, k: int = 5) -> np.ndarray:
    """Sizes of the fitting runs ``N_i = C + i*delta``, ``i = 1..k`` ([EscobarBoppana] §2.1; k = 5).

    Parameters
    ----------
    C : float
        The convergence size, finite and >= 0.
    delta : float
        The size step, finite and > 0.
    k : int, default 5
        How many sizes, >= 1.
    """
    where = "design_sizes"
    try:
        c, d = float(C), float(delta)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: C and delta must be numbers, got C={C!r}, delta={delta!r}") from None
    if not (np.isfinite(c) and c >= 0):
        raise ValidationError(f"{where}: C must be finite and >= 0, got {C!r}")
    if not (np.isfinite(d) and d > 0):
        raise ValidationError(f"{where}: delta must be finite and > 0, got {delta!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValidationError(f"{where}: k must be an integer >= 1, got {k!r}")
    return C + delta * np.arange(1, k + 1)


# ----------------------------------------------------------------------------- §2.3 overall


@dataclass(frozen=True, eq=False)
class ShareFit:
    """Linear extrapolation of a phase's share of the runtime to the target size (§2.3).

    ``share = intercept + slope * size``; ``raw`` is its value at ``target_size`` and
    ``share`` the value used: ``raw`` clipped to ``(0, 1]`` - above 1 to 1, at or below 0 to
    the smallest share observed in ``shares`` (a major phase does not vanish; a tiny floor
    would blow up ``T = sum t / sum r``). ``clipped`` says whether that happened.
    """

    slope: float
    intercept: float
    share: float
    raw: float
    clipped: bool
    target_size: float
    sizes: np.ndarray
    shares: np.ndarray
    r2: float
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def predict(self, size) -> np.ndarray | float:
        """Return the unclipped line at ``size``.

        Parameters
        ----------
        size : float or array-like
            Input sizes.
        """
        s = as_vector(size, "size", "ShareFit.predict")
        out = self.intercept + self.slope * s
        return float(out[0]) if np.ndim(size) == 0 else out


def extrapolate_share(sizes, shares, target_size) -> ShareFit:
    """Fit a least-squares line of a phase's share (0..1) on the input size and evaluate it at ``target_size``.

    The value is clipped to ``(0, 1]`` ([EscobarBoppana] §2.3; see :class:`ShareFit`). A
    :class:`~workbench.errors.WorkbenchWarning` is raised when the value is clipped.

    Parameters
    ----------
    sizes : array-like of shape (k,)
        The input sizes, k >= 2.
    shares : array-like of shape (k,)
        The phase's share at each size, in [0, 1].
    target_size : float
        Where to evaluate the line, > 0.
    """
    where = "extrapolate_share"
    n, r = _sizes_and_values(sizes, shares, "shares", where)
    if np.any((r < 0) | (r > 1)):
        i = int(np.flatnonzero((r < 0) | (r > 1))[0])
        raise ValidationError(f"{where}: shares must be in [0, 1], got shares[{i}] = {r[i]}")
    target = _check_target(target_size, where)
    slope, intercept, r2, _, _ = _line(n, r)
    raw = intercept + slope * target
    notes: list[str] = []
    share = float(raw)
    if raw > 1:
        share = 1.0
    elif raw <= 0:
        share = float(r.min()) if r.min() > 0 else float(r[r > 0].min()) if np.any(r > 0) else np.nan
    clipped = share != raw
    if clipped:
        _warn(notes, f"{where}: the extrapolated share {raw:.3f} at size {target:g} is outside (0, 1]; using "
              f"{share:.3f}")
    if not np.isfinite(share):
        raise ValidationError(f"{where}: every observed share is 0; the phase takes no time")
    return ShareFit(
        slope=slope, intercept=intercept, share=share, raw=float(raw), clipped=bool(clipped),
        target_size=target, sizes=n, shares=r, r2=float(r2), warnings=tuple(notes),
    )


@dataclass(frozen=True, eq=False)
class FractalPrediction:
    """Prediction of :meth:`FractalExtrapolator.predict` at ``target_size``.

    ``total``: ``T = sum t_P / sum r_P`` ([EscobarBoppana] §2.3), s. ``band``: ``(low, high)`` =
    ``(sum low_P / sum r_P, sum high_P / sum r_P)`` from the phases' prediction bands - the
    phases' errors taken as fully correlated (conservative); the uncertainty of the share
    extrapolation is not included. ``phases``: one row per phase, columns ``phase``, ``m``,
    ``b`` (ln s), ``predicted`` (s), ``band_low``, ``band_high`` (s), ``share_at_target``
    (r_P), ``r2``. ``phase_fits`` / ``share_fits``: the fits by phase. ``warnings``: texts.
    """

    target_size: float
    total: float
    band: tuple[float, float]
    phases: pd.DataFrame
    phase_fits: dict[str, PhaseFit]
    share_fits: dict[str, ShareFit]
    warnings: tuple[str, ...] = field(default_factory=tuple)


class FractalExtrapolator(BaseEstimator):
    """The whole method of [EscobarBoppana] (§2.1-2.3) as a scikit-learn style estimator.

    :meth:`fit` takes the profile frame of the small runs.  The regressions need the target
    size, so :meth:`predict` does them and returns them in its :class:`FractalPrediction`
    (``phase_fits``, ``share_fits``), leaving the model as fitted.

    Parameters
    ----------
    threshold : float, default 0.70
        Cumulative share of the major phases (§2.1).
    tolerance : float, default 0.05
        Share stability of :func:`convergence_size`.
    confidence : float, default 0.95
        Confidence level of the bands.
    phases : list of str or None, default None
        The phases to model instead of detecting them; None: :func:`major_phases`.
    min_size : float or None, default None
        Fit on the rows with ``size >= min_size`` instead of ``size >= C``.

    Attributes
    ----------
    phases_ : list of str
        The modelled phases.
    convergence_size_ : float
        C, or ``min_size`` when given.
    shares_ : pandas.DataFrame
        :func:`phase_shares` of the whole profile.
    data_ : pandas.DataFrame
        The per-size mean phase times and shares of the rows used.
    warnings_ : list of ModelWarning
        Kind ``phases-below-threshold``: all phases together stay below ``threshold``.

    Examples
    --------
    Two phases growing as N^2 and a quarter of the time unprofiled: the total at N = 100 is
    the phases' times over their shares.

    >>> import pandas as pd
    >>> profile = pd.DataFrame([{"size": n, "phase": p, "time_s": c * n**2, "run": 0, "total_s": 4.0 * n**2}
    ...                         for n in (10, 20, 30, 40, 50) for p, c in (("solve", 2.0), ("sort", 1.0))])
    >>> model = FractalExtrapolator().fit(profile)
    >>> model.phases_, model.convergence_size_
    (['solve', 'sort'], 10.0)
    >>> round(model.predict(100).total)
    40000
    """

    def __init__(self, threshold=0.70, tolerance=0.05, confidence=0.95, phases=None, min_size=None):
        self.threshold = threshold
        self.tolerance = tolerance
        self.confidence = confidence
        self.phases = phases
        self.min_size = min_size

    def fit(self, profile) -> "FractalExtrapolator":
        """Fit each phase's time and share against the input size of ``profile``; return self.

        Parameters
        ----------
        profile : pandas.DataFrame
            Phase profile: columns ``size``, ``phase``, ``time_s`` (s), ``run`` and optionally
            ``total_s`` (s), one row per run and phase (as :func:`phase_shares` reads it).
        """
        where = "FractalExtrapolator.fit"
        _check_confidence(self.confidence, where)
        shares = phase_shares(profile)
        note = None
        if self.phases is None:
            phases, note = _major_from_shares(shares, _check_fraction(self.threshold, "threshold", where))
        else:
            phases = _check_phases(self.phases, shares["phase"].unique(), where)
        if self.min_size is None:
            tol = _check_fraction(self.tolerance, "tolerance", where, low_open=False)
            start = _convergence_from_shares(shares, phases, tol)
        else:
            try:
                start = float(self.min_size)
            except (TypeError, ValueError):
                raise ValidationError(f"{where}: min_size must be a number, got {self.min_size!r}") from None
        data = shares[(shares["size"] >= start) & shares["phase"].isin(phases)].reset_index(drop=True)
        data.attrs = {}  # the profile's metadata stays on shares_; predict filters data_ per phase
        n_sizes = data["size"].nunique()
        if n_sizes < 2:
            raise ValidationError(
                f"{where}: only {n_sizes} profiled size(s) >= {start:g} (the convergence size C or min_size); "
                "the fits need at least 2 - profile more sizes above C"
            )
        self.phases_ = phases
        self.warnings_ = [note] if note else []
        emit_warnings(self.warnings_)
        self.convergence_size_ = start
        self.shares_ = shares
        self.data_ = data
        return self

    def predict(self, target_size) -> FractalPrediction:
        """Predict the runtime at ``target_size`` from the fitted phases.

        Parameters
        ----------
        target_size : float
            N_Lrg, > 0.

        Returns
        -------
        FractalPrediction
            The total, its band, the per-phase fits and the notes.
        """
        where = "FractalExtrapolator.predict"
        check_fitted(self, "data_", where, fit="fit(profile)")
        target = _check_target(target_size, where)
        notes: list[str] = []
        fits: dict[str, PhaseFit] = {}
        share_fits: dict[str, ShareFit] = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", WorkbenchWarning)
            for phase in self.phases_:
                rows = self.data_[self.data_["phase"] == phase].sort_values("size")
                try:
                    fits[phase] = fit_phase(rows["size"], rows["time_s"], target, confidence=self.confidence)
                    share_fits[phase] = extrapolate_share(rows["size"], rows["share"], target)
                except ValidationError as exc:
                    raise ValidationError(f"{where}: phase {phase!r}: {exc}") from None
        for w in caught:
            notes.append(str(w.message))
        t = np.array([fits[p].predicted for p in self.phases_])
        r = np.array([share_fits[p].share for p in self.phases_])
        share_sum = float(r.sum())
        if share_sum > 1:
            notes.append(
                f"{where}: the extrapolated shares of {self.phases_} add up to {share_sum:.3f} > 1; using 1 "
                "(the whole runtime cannot be shorter than its phases)"
            )
            share_sum = 1.0
        low = np.array([fits[p].band[0] for p in self.phases_])
        high = np.array([fits[p].band[1] for p in self.phases_])
        for text in notes:
            warnings.warn(text, WorkbenchWarning, stacklevel=2)
        table = pd.DataFrame(
            {
                "phase": list(self.phases_),
                "m": [fits[p].m for p in self.phases_],
                "b": [fits[p].b for p in self.phases_],
                "predicted": t,
                "band_low": low,
                "band_high": high,
                "share_at_target": r,
                "r2": [fits[p].r2 for p in self.phases_],
            }
        )
        return FractalPrediction(
            target_size=target,
            total=float(t.sum() / share_sum),
            band=(float(low.sum() / share_sum), float(high.sum() / share_sum)),
            phases=table,
            phase_fits=fits,
            share_fits=share_fits,
            warnings=tuple(notes),
        )
