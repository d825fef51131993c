"""Downey's speedup model ([Downey1997]), as tabulated in [Deshmeh2013] Table 1.

Two parameters: ``A`` (average parallelism, A >= 1) and ``sigma`` (variance of
parallelism, sigma >= 0).  Low variance (sigma <= 1)::

    S(n) = A n / (A + sigma (n - 1) / 2)              1 <= n <= A
    S(n) = A n / (sigma (A - 1/2) + n (1 - sigma/2))   A <= n <= 2A - 1
    S(n) = A                                           n >= 2A - 1

High variance (sigma >= 1)::

    S(n) = n A (sigma + 1) / (sigma (n + A - 1) + A)   1 <= n <= A + A sigma - sigma
    S(n) = A                                           n >= A + A sigma - sigma

Runtimes are in *model units*: T(n) = T(1) / S(n) with T(1) = A (low variance) or
A (1 + sigma) (high variance), i.e. T(inf) = 1 for low variance.  A physical runtime is
``tau * runtime(n, A, sigma)`` for a time scale ``tau`` (see :mod:`workbench.models.adept`
for why that scale matters).

All functions broadcast their arguments with numpy rules.  The saturated piece is used
inclusively at its boundary, so ``speedup(2A - 1) == A`` exactly, and ``speedup(1) == 1``
exactly.  At sigma == 1 both modes give the same curve; the low-variance formulas are used.
"""

from __future__ import annotations

import numpy as np

from workbench.errors import ValidationError

__all__ = [
    "speedup",
    "runtime",
    "runtime_unchecked",
    "serial_runtime",
    "efficiency",
    "max_useful_allocation",
    "processor_working_set",
    "check_parameters",
]


def check_parameters(A, sigma) -> tuple[np.ndarray, np.ndarray]:
    """Return ``A`` and ``sigma`` as float arrays, or raise if outside the model's domain.

    Parameters
    ----------
    A : float or array-like
        Average parallelism, >= 1.
    sigma : float or array-like
        Variance of parallelism, >= 0 (<= 1: low-variance model, > 1: high-variance).

    Raises
    ------
    ValidationError
        ``A`` below 1, ``sigma`` negative, or either not finite.
    """
    A = np.asarray(A, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    if not np.all(np.isfinite(A)) or np.any(A < 1):
        raise ValidationError(f"Downey parameter A (average parallelism) must be finite and >= 1, got {A!r}")
    if not np.all(np.isfinite(sigma)) or np.any(sigma < 0):
        raise ValidationError("Downey parameter sigma (variance of parallelism) must be finite and >= 0, "
                              f"got {sigma!r}")
    return A, sigma


def _check_n(n) -> np.ndarray:
    n = np.asarray(n, dtype=float)
    if not np.all(np.isfinite(n)) or np.any(n < 1):
        raise ValidationError(f"the number of processors n must be finite and >= 1, got {n!r}")
    return n


def max_useful_allocation(A, sigma) -> np.ndarray:
    """Smallest n at which the speedup reaches its maximum A.

    2A - 1 (low variance) or A + A sigma - sigma (high variance) ([Deshmeh2013] section 3.3.2).

    Parameters
    ----------
    A : float or array-like
        Average parallelism, >= 1.
    sigma : float or array-like
        Variance of parallelism, >= 0 (<= 1: low-variance model, > 1: high-variance).
    """
    A, sigma = check_parameters(A, sigma)
    # A + (A - 1) sigma rather than A + A sigma - sigma: it cannot round below A (>= 1),
    # so the result is always a valid processor count
    return np.where(sigma <= 1, 2 * A - 1, A + (A - 1) * sigma)


def speedup(n, A, sigma) -> np.ndarray:
    """Downey speedup S(n) ([Deshmeh2013] Table 1), vectorised over n, A and sigma.

    Parameters
    ----------
    n : float or array-like
        Processor counts, >= 1 (broadcast against ``A`` and ``sigma``).
    A : float or array-like
        Average parallelism, >= 1.
    sigma : float or array-like
        Variance of parallelism, >= 0 (<= 1: low-variance model, > 1: high-variance).

    Returns
    -------
    ndarray
        S(n), 1 at n = 1 and at most ``min(n, A)``.
    """
    n = _check_n(n)
    A, sigma = check_parameters(A, sigma)
    n, A, sigma = np.broadcast_arrays(n, A, sigma)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        low1 = A * n / (A + sigma * (n - 1) / 2)
        low2 = A * n / (sigma * (A - 0.5) + n * (1 - sigma / 2))
        high1 = n * A * (sigma + 1) / (sigma * (n + A - 1) + A)
        low = np.where(n <= A, low1, np.where(n < 2 * A - 1, low2, A))
        high = np.where(n < A + (A - 1) * sigma, high1, A)
        s = np.where(sigma <= 1, low, high)
        over = ~np.isfinite(s)
        if over.any():
            # products such as n A (sigma + 1) beyond the float range (A, sigma or n ~ 1e150 and
            # up): the same formulas divided through by n (and sigma), which cannot overflow
            # (S <= min(n, A)); used only there, so ordinary values keep their exact rounding
            nn, AA, ss = n[over], A[over], sigma[over]
            safe_low1 = AA / (AA / nn + ss / 2 * (1 - 1 / nn))
            safe_low2 = AA / (ss * (AA - 0.5) / nn + (1 - ss / 2))
            safe_high1 = (1 + 1 / ss) / (1 / AA + 1 / nn - 1 / nn / AA + 1 / nn / ss)
            safe_low = np.where(nn <= AA, safe_low1, np.where(nn < 2 * AA - 1, safe_low2, AA))
            safe_high = np.where(nn < AA + (AA - 1) * ss, safe_high1, AA)
            s = s.copy()
            s[over] = np.where(ss <= 1, safe_low, safe_high)
    return np.where(n == 1, 1.0, s)


def serial_runtime(A, sigma) -> np.ndarray:
    """T(1) in model units: A (low variance) or A (1 + sigma) (high variance).

    Parameters
    ----------
    A : float or array-like
        Average parallelism, >= 1.
    sigma : float or array-like
        Variance of parallelism, >= 0 (<= 1: low-variance model, > 1: high-variance).
    """
    A, sigma = check_parameters(A, sigma)
    return np.where(sigma <= 1, A, A * (1 + sigma))


def runtime(n, A, sigma) -> np.ndarray:
    """Downey runtime T(n) in model units ([Deshmeh2013] Table 1, T column).

    Low variance: (A - sigma/2)/n + sigma/2, then sigma (A - 1/2)/n + 1 - sigma/2, then 1.
    High variance: sigma + (A + A sigma - sigma)/n, then sigma + 1.

    Parameters
    ----------
    n : float or array-like
        Processor counts, >= 1 (broadcast against ``A`` and ``sigma``).
    A : float or array-like
        Average parallelism, >= 1.
    sigma : float or array-like
        Variance of parallelism, >= 0 (<= 1: low-variance model, > 1: high-variance).
    """
    n = _check_n(n)
    A, sigma = check_parameters(A, sigma)
    return runtime_unchecked(*np.broadcast_arrays(n, A, sigma))


def runtime_unchecked(n, A, sigma) -> np.ndarray:
    """:func:`runtime` without argument validation, for hot loops whose inputs are checked.

    Each piece is written as the maximum of the two formulas meeting at its boundary
    (T is continuous there), so no boundary comparison is needed for the saturation.

    Parameters
    ----------
    n, A, sigma : ndarray
        Already checked (n >= 1, A >= 1, sigma >= 0) and broadcast to one shape.
    """
    low = np.where(
        n <= A,
        (A - sigma / 2) / n + sigma / 2,
        np.maximum(sigma * (A - 0.5) / n + 1 - sigma / 2, 1.0),
    )
    high = np.maximum(sigma + (A + (A - 1) * sigma) / n, sigma + 1)
    return np.where(sigma <= 1, low, high)


def efficiency(n, A, sigma) -> np.ndarray:
    """Parallel efficiency S(n) / n.

    Parameters
    ----------
    n : float or array-like
        Processor counts, >= 1 (broadcast against ``A`` and ``sigma``).
    A : float or array-like
        Average parallelism, >= 1.
    sigma : float or array-like
        Variance of parallelism, >= 0 (<= 1: low-variance model, > 1: high-variance).
    """
    return speedup(n, A, sigma) / np.asarray(n, dtype=float)


def processor_working_set(A, sigma) -> np.ndarray:
    """Smallest integer n maximising eta(n) = S(n)^2 / n ([Ghosal1991]; [Deshmeh2013] section 3.3.2).

    On every rising piece S has the form n / (c + d n), so eta = n / (c + d n)^2 up to a
    constant, with its maximum at n = c / d; on the saturated piece eta decreases.  The
    integer maximiser is therefore among the floor/ceil of each piece's critical point and
    the piece boundaries, which we compare exactly instead of scanning all n.

    Parameters
    ----------
    A : float or array-like
        Average parallelism, >= 1.
    sigma : float or array-like
        Variance of parallelism, >= 0 (<= 1: low-variance model, > 1: high-variance).
    """
    A, sigma = check_parameters(A, sigma)
    A, sigma = np.broadcast_arrays(A, sigma)
    # a tiny sigma overflows the critical points to inf, which the clip below handles
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        crit = np.where(
            sigma <= 1,
            # low piece 1: c = A - sigma/2, d = sigma/2; piece 2: c = sigma (A - 1/2), d = 1 - sigma/2
            np.stack([(2 * A - sigma) / sigma, sigma * (A - 0.5) / (1 - sigma / 2)]),
            # high piece 1: c = sigma (A - 1) + A, d = sigma (twice, to keep the stack shape)
            np.stack([(sigma * (A - 1) + A) / sigma] * 2),
        )
    n_max = max_useful_allocation(A, sigma)
    bounds = np.stack([np.ones_like(A), np.minimum(A, n_max), n_max])
    cont = np.concatenate([crit, bounds])
    cont = np.clip(np.nan_to_num(cont, nan=1.0, posinf=np.inf), 1.0, n_max[None, ...])
    cand = np.concatenate([np.floor(cont), np.ceil(cont)])
    cand = np.clip(cand, 1.0, None)
    eta = speedup(cand, A[None, ...], sigma[None, ...]) ** 2 / cand
    best = eta.max(axis=0)
    # smallest candidate within rounding of the best value
    ok = eta >= best * (1 - 1e-12)
    return np.where(ok, cand, np.inf).min(axis=0)
