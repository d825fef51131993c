"""Calibration of FiM-Com's station service-time distributions (section 3.3, Fig. 11).

Each station of the queueing network has a parametric service process:

=========  ======================  ============================================  =========
station    family                  fitted parameters (MLE / least squares)       Eq.
=========  ======================  ============================================  =========
D          ``uniform_rate``        rate ~ U(zeta_min, zeta_max); time = 1/rate   13
M          ``log``                 time = coef * (1 + ln(chi)), chi = load       14
C          ``exponential``         time ~ Exp(mean eta)                          15
R          ``exponential``         time ~ Exp(mean psi)                          16
=========  ======================  ============================================  =========

``shifted_exponential`` (a floor plus an exponential) is offered beside the paper's
families because measured latencies never reach zero.

Goodness of fit is Pearson's chi-square test (``scipy.stats.chisquare`` with ``ddof`` =
number of fitted parameters) on equiprobable bins of the measured samples.  Note the
direction: a *small* p-value rejects the fitted distribution.  The paper (section 4.3)
reads its p-values 0.08, 0.11 and 0.14 the other way round; we report p-values with
their usual meaning.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats

from workbench.errors import ValidationError
from workbench.validation import as_vector

__all__ = ["FAMILIES", "STATION_FAMILIES", "StationFit", "chi_square_test", "fit_station", "rates_from_fits"]

#: Families and the number of parameters each fits (the chi-square ddof).
FAMILIES = {"uniform_rate": 2, "log": 1, "exponential": 1, "shifted_exponential": 2}
#: The paper's family per station (Eqs. 13-16).
STATION_FAMILIES = {"D": "uniform_rate", "M": "log", "C": "exponential", "R": "exponential"}
#: Service times a fit accepts: magnitudes up to 1e150 (sums and squares stay finite), and
#: for ``uniform_rate``, whose rates 1/t are fitted, at least 1e-150.
SAMPLE_RANGE = (1e-150, 1e150)
#: Smallest expected count per chi-square bin (the usual rule of thumb).
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class StationFit:
    """A fitted service-time distribution and its goodness of fit.

    ``samples`` are the measured service times (sorted, time unit of the input);
    ``loads`` the queue lengths chi paired with them (``log`` family only, same order).
    ``chi2``/``dof``/``p_value`` are NaN when there are too few samples for a test
    (``warnings`` then says so).
    """

    station: str
    family: str
    params: dict[str, float]
    samples: np.ndarray = field(repr=False)
    loads: np.ndarray | None = field(repr=False)
    chi2: float
    dof: int
    p_value: float
    ks_statistic: float
    warnings: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        """The number of samples."""
        return int(self.samples.size)

    @property
    def mean(self) -> float:
        """Mean service time of the fitted distribution."""
        p = self.params
        if self.family == "uniform_rate":
            lo, hi = p["zeta_min"], p["zeta_max"]
            return float(1 / lo if hi == lo else np.log(hi / lo) / (hi - lo))
        if self.family == "log":
            return float(self._log_times().mean())
        return float(p.get("loc", 0.0) + p["scale"])

    def cdf(self, x) -> np.ndarray:
        """Return the fitted distribution's CDF at service times ``x``.

        Parameters
        ----------
        x : array-like of float
            Service times.
        """
        x = np.asarray(x, dtype=float)
        p = self.params
        if self.family == "uniform_rate":
            lo, hi = p["zeta_min"], p["zeta_max"]
            with np.errstate(divide="ignore"):
                rate = np.where(x > 0, 1.0 / np.where(x > 0, x, 1.0), np.inf)
            if hi == lo:
                return (x >= 1.0 / lo).astype(float)
            return np.clip((hi - rate) / (hi - lo), 0.0, 1.0)
        if self.family == "log":
            return self._log_step_cdf(x, "right")
        loc = p.get("loc", 0.0)
        return np.where(x >= loc, -np.expm1(-(x - loc) / p["scale"]), 0.0)

    def cdf_left(self, x) -> np.ndarray:
        """Left limits of :meth:`cdf` (differ only at the steps of the ``log`` form).

        Parameters
        ----------
        x : array-like of float
            Service times.
        """
        if self.family != "log":
            return self.cdf(x)
        return self._log_step_cdf(np.asarray(x, dtype=float), "left")

    def _log_times(self) -> np.ndarray:
        """Return the fitted log form (Eq. 14) at every measured load: ``c (1 + ln chi)``."""
        return self.params["metadata_coef"] * (1.0 + np.log(self.loads))

    def _log_step_cdf(self, x: np.ndarray, side: str) -> np.ndarray:
        """Return the measured loads pushed through the fitted form.

        A step CDF (``side``: right-continuous values or left limits).
        """
        model = np.sort(self._log_times())
        return np.searchsorted(model, x, side=side) / model.size


def chi_square_test(samples, cdf, n_params: int, bins: int | None = None) -> tuple[float, int, float, str | None]:
    """Pearson chi-square goodness of fit of ``samples`` against ``cdf``.

    Interior bin edges are empirical quantiles (equiprobable bins, ``bins`` of them,
    default ``2 n^0.4`` capped so each expects >= 5 samples); adjacent bins expecting
    fewer than 5 under the model are merged.  Returns ``(statistic, dof, p_value,
    warning)``; with fewer than ``n_params + 2`` usable bins the test has no degrees of
    freedom and NaNs are returned with the reason.

    Parameters
    ----------
    samples : array-like of float
        Measured values.
    cdf : callable
        The fitted distribution's CDF.
    n_params : int
        Parameters fitted (subtracted from the degrees of freedom).
    bins : int, optional
        Number of equiprobable bins; default ``2 n^0.4`` capped so each expects >= 5.
    """
    x = np.sort(np.asarray(samples, dtype=float))
    n = x.size
    k = bins if bins is not None else int(np.clip(round(2 * n**0.4), 3, 30))
    k = max(1, min(k, n // int(MIN_EXPECTED)))
    inner = np.unique(np.quantile(x, np.arange(1, k) / k))
    edges = np.r_[-np.inf, inner, np.inf]
    observed = np.histogram(x, edges)[0].astype(float)
    # right-closed bins agree with np.histogram's half-open ones for continuous data
    expected = n * np.diff(np.r_[0.0, cdf(inner), 1.0])
    observed, expected = _merge_small_bins(observed, expected)
    dof = observed.size - 1 - n_params
    if dof < 1:
        return np.nan, 0, np.nan, (
            f"too few samples for a chi-square test: {n} samples give {observed.size} bins "
            f"of >= {MIN_EXPECTED:.0f} expected, {n_params} parameters leave no degree of freedom"
        )
    if np.any(expected <= 0):
        outside = int(observed[expected <= 0].sum())
        return np.inf, dof, 0.0, f"{outside} samples lie where the fitted distribution has no mass"
    statistic = float(((observed - expected) ** 2 / expected).sum())
    return statistic, dof, float(stats.chi2.sf(statistic, dof)), None


def _merge_small_bins(observed, expected):
    """Merge each bin expecting < 5 into its right neighbour (the last into its left)."""
    obs, exp = list(observed), list(expected)
    i = 0
    while i < len(exp) and len(exp) > 1:
        if exp[i] < MIN_EXPECTED:
            j = i + 1 if i + 1 < len(exp) else i - 1
            obs[j] += obs[i]
            exp[j] += exp[i]
            del obs[i], exp[i]
            i = max(0, min(i, j))
        else:
            i += 1
    return np.array(obs), np.array(exp)


def fit_station(samples, family: str, *, station: str = "", loads=None, bins: int | None = None) -> StationFit:
    """Fit one station's service-time distribution to measured ``samples``.

    Parameters
    ----------
    samples : array-like of float
        Service times (one time unit throughout).
    family : {"uniform_rate", "log", "exponential", "shifted_exponential"}
        ``uniform_rate`` (Eq. 13), ``log`` (Eq. 14, needs ``loads``), ``exponential``
        (Eqs. 15-16) or ``shifted_exponential``.
    station : str, default ""
        Station name (D, M, C or R) for messages; default: the family's name.
    loads : array-like of float, optional
        Queue lengths chi >= 1 paired with the samples (``log`` only).
    bins : int, optional
        Bins of the chi-square test; default: :func:`chi_square_test`'s choice.

    Notes
    -----
    The ``log`` form ``t = c (1 + ln chi)`` is fitted by least squares,
    ``c = sum(t x) / sum(x ** 2)`` with ``x = 1 + ln chi``; the others by maximum
    likelihood.
    """
    if family not in FAMILIES:
        raise ValidationError(f"unknown service-time family {family!r}; choose one of {', '.join(FAMILIES)}")
    where = f"fit_station({station or family})"
    if bins is not None and (isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1):
        raise ValidationError(f"{where}: bins must be None or an integer >= 1, got {bins!r}")
    t = _finite(samples, "service times", where)
    if t.size < 2:
        raise ValidationError(f"{where}: a distribution needs at least 2 service times, got {t.size}")
    low = SAMPLE_RANGE[0] if family == "uniform_rate" else 0.0
    bad = (np.abs(t) > SAMPLE_RANGE[1]) | ((np.abs(t) < low) & (t != 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{where}: service times must lie within {SAMPLE_RANGE[1]:g} in magnitude"
                              + (f" and above {SAMPLE_RANGE[0]:g} (their rates are fitted)" if low else "")
                              + f", got samples[{i}] = {t[i]:g}: give them in another unit")
    warnings: list[str] = []
    order = np.argsort(t)
    t = t[order]
    chi = None
    if family == "log":
        if loads is None:
            raise ValidationError("the log form (Eq. 14) needs the queue length chi of every sample (loads=)")
        chi = _finite(loads, "loads (queue lengths chi)", where)
        if chi.size != order.size:
            raise ValidationError(f"{order.size} service times but {chi.size} loads: they must pair up")
        if np.any(chi < 1):
            raise ValidationError(f"queue lengths chi must be >= 1, got minimum {chi.min()}")
        chi = chi[order]
        x = 1.0 + np.log(chi)
        params = {"metadata_coef": float(t @ x / (x @ x))}
    elif family == "uniform_rate":
        if np.any(t <= 0):
            raise ValidationError(f"uniform_rate needs positive service times; {int((t <= 0).sum())} are <= 0")
        rates = 1.0 / t
        params = {"zeta_min": float(rates.min()), "zeta_max": float(rates.max())}
    else:
        if np.any(t < 0):
            warnings.append(f"{int((t < 0).sum())} of {t.size} service times are negative")
        if family == "exponential":
            params = {"scale": float(t.mean())}
        else:
            params = {"loc": float(t.min()), "scale": float(t.mean() - t.min())}
        if params["scale"] <= 0:
            raise ValidationError(f"{family} needs samples with a positive spread/mean, got mean {t.mean():g}")
    fit = StationFit(station, family, params, t, chi, np.nan, 0, np.nan, np.nan, warnings)
    chi2, dof, p_value, warning = chi_square_test(t, fit.cdf, FAMILIES[family], bins)
    if warning:
        warnings.append(warning)
    return replace(fit, chi2=chi2, dof=dof, p_value=p_value, ks_statistic=_ks_distance(t, fit))


def _ks_distance(sorted_samples, fit: StationFit) -> float:
    """Compute the Kolmogorov-Smirnov distance sup |F - F_n|.

    Both sides of every step (ties, and the step CDF of the log form) are compared.
    """
    u = np.unique(sorted_samples)
    n = sorted_samples.size
    right = np.abs(fit.cdf(u) - np.searchsorted(sorted_samples, u, side="right") / n)
    left = np.abs(fit.cdf_left(u) - np.searchsorted(sorted_samples, u, side="left") / n)
    return float(max(right.max(), left.max()))


def _finite(x, name, where) -> np.ndarray:
    values = as_vector(x, name, where)
    if not np.all(np.isfinite(values)):
        raise ValidationError(f"{where}: {name} must be finite, got {int((~np.isfinite(values)).sum())} NaN/inf")
    return values


def rates_from_fits(fits: dict[str, StationFit]) -> dict[str, float]:
    """Return :func:`~workbench.models.fim.queueing.simulate_collective` arguments from fitted stations.

    The stations are ``{"D": ..., "M": ..., "C": ..., "R": ...}``: D's rate bounds, M's
    coefficient, and the mean times of C (``eta``) and R (``psi``).

    Parameters
    ----------
    fits : dict of str to StationFit
        Fitted stations ``{"D": ..., "M": ..., "C": ..., "R": ...}``.
    """
    missing = [s for s in ("D", "M", "C", "R") if s not in fits]
    if missing:
        raise ValidationError(f"fits for stations {', '.join(missing)} are missing")
    d, m = fits["D"], fits["M"]
    if d.family != "uniform_rate" or m.family != "log":
        raise ValidationError("station D must be fitted with uniform_rate and M with log (Eqs. 13-14)")
    return {
        "zeta_min": d.params["zeta_min"],
        "zeta_max": d.params["zeta_max"],
        "metadata_coef": max(m.params["metadata_coef"], 0.0),
        "eta": fits["C"].mean,
        "psi": fits["R"].mean,
    }
