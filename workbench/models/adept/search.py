"""Vectorised search for the biased best-fitting Downey instance ([Deshmeh2013] section 3.5.2).

The key fact used throughout: for a fixed A and observation n_i, the Downey runtime
T(n_i; A, sigma) is *piecewise linear in sigma*:

- low variance (sigma <= 1): ``A/n + sigma (1 - 1/n)/2`` if n <= A, else
  ``1 + sigma ((A - 1/2)/n - 1/2)`` if n <= 2A - 1, else ``1``;
- high variance (sigma > 1): ``A/n + sigma (1 + (A - 1)/n)`` while
  sigma >= (n - A)/(A - 1) (or n <= A), else ``1 + sigma``.

Between the breakpoints {1} and {(n_i - A)/(A - 1)} every observation's relative model value
x_i = T_i / t_i is therefore ``p_i + r_i sigma``, and the weighted sums that make up the
objective are polynomials in sigma:

    S0 = sum w,  S1 = sum w x = P + Q sigma,  S2 = sum w x^2 = R + 2 U sigma + V sigma^2.

WSSRE ([Deshmeh2013] section 3.5.2) with a time scale tau is ``sum w (tau x - 1)^2``:

- ``units="paper"`` (tau = 1, the thesis): ``S0 - 2 S1 + S2``, a parabola in sigma;
- ``units="fit"`` (tau profiled in closed form, tau* = S1 / S2): ``S0 - S1^2 / S2``, whose
  only stationary point on a segment is ``sigma* = (P U - Q R) / (Q U - P V)``.

So the minimum over a whole column of a sigma grid is found among a handful of grid
points per segment (segment ends and the grid neighbours of the stationary point),
giving *exactly* the argmin of the full 500 x 500 grid of pass 2 at a cost of O(M^2) per
column instead of O(500 M).  ``grid_objective_bruteforce`` evaluates every grid point
and is kept as the reference the tests compare against.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from workbench.models import downey

__all__ = [
    "column_segments",
    "fixed_point_As",
    "wssre",
    "profiled_scale",
    "grid_objective_bruteforce",
    "grid_argmin",
    "GridResult",
    "fixed_point_sigmas",
    "scale_free_candidates",
    "pass1_pick",
    "runner_up_pick",
]


def relative_model(n, t, A, sigma):
    """x_i = T(n_i; A, sigma) / t_i for instances broadcast against the trailing obs axis.

    Parameters
    ----------
    n, t : array-like of float, shape (M,)
        Processor counts and runtimes of the observations.
    A, sigma : float or array-like of float
        Average and variance of parallelism of the instances (broadcast).
    """
    n_arr, t_arr = np.asarray(n), np.asarray(t)
    if n_arr.ndim == 1 and t_arr.shape == n_arr.shape and n_arr.dtype == float and t_arr.dtype == float:
        A, sigma = np.broadcast_arrays(np.asarray(A, float), np.asarray(sigma, float))
        out = np.empty(A.shape + n_arr.shape)
        flat = [np.require(v.reshape(-1), float, ["C", "W"]) for v in (n_arr, t_arr, A, sigma)]
        _relative_kernel(*flat, out.reshape(-1, n_arr.size))
        return out
    return downey.runtime_unchecked(n, np.asarray(A)[..., None], np.asarray(sigma)[..., None]) / t


@njit(cache=True, nogil=True, error_model="numpy")
def _maximum(a, b):  # pragma: no cover - compiled
    """np.maximum of two floats (NaN if either is NaN)."""
    if a != a or b != b:
        return np.nan
    return a if a >= b else b


@njit(cache=True, nogil=True, error_model="numpy")
def _relative_kernel(n, t, A, sigma, out):  # pragma: no cover - compiled
    """:func:`relative_model` for 1-D n, t and flat instances.

    The same floating-point operations as :func:`downey.runtime_unchecked` followed by
    ``/ t``, in one pass without the (instances x observations) temporaries -- the hot loop
    of pass 1.
    """
    for c in range(A.size):
        for i in range(n.size):
            out[c, i] = _runtime(n[i], A[c], sigma[c]) / t[i]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _runtime(m, a, s):  # pragma: no cover - compiled
    """Downey's T(m; a, s) with the floating-point operations of :func:`downey.runtime_unchecked`."""
    if s <= 1:
        if m <= a:
            return (a - s / 2) / m + s / 2
        return _maximum(s * (a - 0.5) / m + 1 - s / 2, 1.0)
    return _maximum(s + (a + (a - 1) * s) / m, s + 1)


def profiled_scale(x, w, paper: bool):
    """Return the tau minimising sum w (tau x - 1)^2: S1/S2 (closed form), or 1 in paper mode.

    Parameters
    ----------
    x, w : ndarray of float, shape (..., M)
        Model values relative to the observations (T(n_i)/t_i) and their weights.
    paper : bool
        Runtimes in model units: the scale is fixed at 1.
    """
    if paper:
        return np.ones(np.shape(x)[:-1])
    return np.sum(w * x, axis=-1) / np.sum(w * x * x, axis=-1)


def wssre(x, w, paper: bool):
    """Weighted sum of squared relative errors ([Deshmeh2013] section 3.5.2) at the best scale.

    Parameters
    ----------
    x, w : ndarray of float, shape (..., M)
        Model values relative to the observations (T(n_i)/t_i) and their weights.
    paper : bool
        Runtimes in model units: the scale is fixed at 1 instead of profiled.
    """
    tau = profiled_scale(x, w, paper)
    return np.sum(w * (tau[..., None] * x - 1.0) ** 2, axis=-1)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _pieces(m, a):  # pragma: no cover - compiled
    """Return the Downey pieces of observation m for A = a as T = u + v sigma.

    (m <= a, low-variance u, v, rising high-variance u, v, the breakpoint (m - a)/(a - 1)
    past which the high-variance runtime leaves its rising piece, inf if never); the
    saturated high-variance piece is 1 + sigma.
    """
    rise_u = a / m
    if m <= a:
        lo_u, lo_v = rise_u, (1 - 1 / m) / 2
    else:
        lo_u, lo_v = 1.0, ((a - 0.5) / m - 0.5 if m <= 2 * a - 1 else 0.0)
    beta = (m - a) / (a - 1) if (m > a and a > 1) else np.inf
    return m <= a, lo_u, lo_v, rise_u, 1 + (a - 1) / m, beta


@njit(cache=True, nogil=True, error_model="numpy")
def column_segments(n, a, lo, hi, b, u, v):  # pragma: no cover - compiled
    """Compute the segment boundaries and piecewise-linear coefficients of one A column in place.

    Segment boundaries ``b`` (M + 3: lo, 1 and the observations' high-variance breakpoints
    (n_i - A)/(A - 1), clipped to [lo, hi], and hi, sorted) and the coefficients ``u``, ``v``
    (M + 2, M) with T(n_i; A, sigma) = u + v sigma on each segment.  On a segment with
    midpoint s the Downey pieces are: low variance (s <= 1) ``A/n + s (1 - 1/n)/2`` for n <=
    A, ``1 + s ((A - 1/2)/n - 1/2)`` for n <= 2A - 1, else 1; high variance
    ``A/n + s (1 + (A - 1)/n)`` on the rising piece (n <= A or s (A - 1) >= n - A), else
    ``1 + s``.  (A zero-length segment sitting on sigma = 1 belongs to the low-variance
    side.)  A numba kernel shared by the search (:func:`fixed_point_sigmas`,
    :func:`scale_free_candidates`) and the
    envelope (:mod:`workbench.models.adept.envelope`).

    Parameters
    ----------
    n : numpy.ndarray of float, shape (M,)
        The observations' processor counts.
    a : float
        The column's average parallelism A.
    lo, hi : float
        The sigma window, lo <= hi.
    b : numpy.ndarray of float, shape (M + 3,)
        Written: the sorted segment boundaries.
    u, v : numpy.ndarray of float, shape (M + 2, M)
        Written: per segment and observation, T = u + v sigma.
    """
    M = n.size
    lo1 = max(lo, 1.0)
    b[0] = lo
    b[1] = min(max(1.0, lo), hi)
    for i in range(M):
        b[2 + i] = min(max(_pieces(n[i], a)[5], lo1), hi)
    b[M + 2] = hi
    for i in range(1, M + 3):  # insertion sort (a handful of values)
        x = b[i]
        j = i
        while j > 0 and b[j - 1] > x:
            b[j] = b[j - 1]
            j -= 1
        b[j] = x
    for seg in range(M + 2):
        mid = 0.5 * (b[seg] + b[seg + 1])
        for i in range(M):
            first, lo_u, lo_v, rise_u, rise_v, _ = _pieces(n[i], a)
            if mid <= 1:
                u[seg, i], v[seg, i] = lo_u, lo_v
            elif first or mid * (a - 1) >= n[i] - a:
                u[seg, i], v[seg, i] = rise_u, rise_v
            else:
                u[seg, i], v[seg, i] = 1.0, 1.0


@dataclass(frozen=True)
class GridResult:
    """Best grid point per problem: indices into the A and sigma grids, values and objective."""

    A: np.ndarray
    sigma: np.ndarray
    objective: np.ndarray


def _grid(lo, hi, size):
    """Grid values lo + h k (k = 0..size-1) and the step h (0 for a degenerate window)."""
    h = np.where(hi > lo, (hi - lo) / max(size - 1, 1), 0.0)
    return h


def grid_argmin(n, t, w, A_lo, A_hi, s_lo, s_hi, size_A=500, size_s=500, paper=False) -> GridResult:
    """Exact argmin of WSSRE over the size_A x size_s grid of each problem.

    Parameters
    ----------
    n, t : array-like of float, shape (M,)
        Processor counts and runtimes (runtimes in model units when ``paper``).
    w : array-like of float, shape (K, M)
        Weights, one row per problem (prediction target).
    A_lo, A_hi, s_lo, s_hi : float or array-like of float, shape (K,)
        Grid windows; grids are ``lo + h k`` with ``h = (hi - lo)/(size - 1)``.  A degenerate
        window (hi == lo) is a single value.
    size_A, size_s : int, default 500
        Grid points along A and along sigma.
    paper : bool, default False
        Runtimes in model units (the thesis' convention) instead of a profiled time scale.
    """
    n = np.ascontiguousarray(n, float)
    t = np.ascontiguousarray(t, float)
    w = np.ascontiguousarray(np.atleast_2d(np.asarray(w, float)))
    K = w.shape[0]
    A_lo, A_hi, s_lo, s_hi = (np.broadcast_to(np.asarray(v, float), (K,)) for v in (A_lo, A_hi, s_lo, s_hi))
    hA = _grid(A_lo, A_hi, size_A)
    hs = _grid(s_lo, s_hi, size_s)
    A = A_lo[:, None] + hA[:, None] * np.arange(size_A)  # (K, NA)
    S0 = np.sum(w, axis=-1)
    best, s_best, obj = _grid_argmin_kernel(n, t, w, A, np.ascontiguousarray(s_lo), np.ascontiguousarray(s_hi),
                                            np.ascontiguousarray(hs), S0, int(size_s), bool(paper))
    A_best = A[np.arange(K), best]
    # re-evaluate the winner directly: the polynomial form can differ from it by rounding
    x = relative_model(n, t, A_best, s_best)
    obj = np.where(np.isfinite(obj), wssre(x, w, paper), np.inf)
    return GridResult(A=A_best, sigma=s_best, objective=obj)


@njit(cache=True, nogil=True, error_model="numpy")
def _grid_index(lo, h, size, b, strict):  # pragma: no cover - compiled
    """Smallest grid index k with lo + h k >= b (or > b when strict); size if none.

    The arithmetic guess is corrected by one step either way, because the guess and the
    grid values are rounded differently.
    """
    if h > 0:
        guess = np.ceil((b - lo) / h)
    else:
        guess = 0.0 if lo >= b else float(size)
    if guess != guess or guess == np.inf:
        guess = float(size)
    elif guess == -np.inf:
        guess = 0.0
    k = int(min(max(guess, 0.0), float(size)))
    if k < size:
        val = lo + h * float(k)
        if not ((val > b) if strict else (val >= b)):
            k += 1
    if k > 0:
        val = lo + h * float(k - 1)
        if (val > b) if strict else (val >= b):
            k -= 1
    return min(k, size)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _column_terms(n, t, w, k, Aa, low, base, step, beta, srt):  # pragma: no cover - compiled
    """Fill the per-observation terms of the five sums for problem k's column A = ``Aa``, in place.

    For each observation i and family (P, Q, R, U, V: S1 = P + Q s, S2 = R + 2 U s + V s^2)
    the weighted term on its low-variance piece (``low``), on the saturated high-variance
    piece (``base``) and the rising minus the saturated piece (``step``); ``beta`` holds
    where it starts rising (-inf: rising for every sigma) and ``srt`` the same sorted
    ascending.
    """
    for i in range(n.size):
        wi = w[k, i]
        first, lo_u, lo_v, rise_u, rise_v, b_i = _pieces(n[i], Aa)
        pl = lo_u / t[i]
        rl = lo_v / t[i]
        p1 = rise_u / t[i]
        r1 = rise_v / t[i]
        p2 = 1 / t[i]
        sq2 = p2 * p2
        low[0, i], low[1, i], low[2, i] = wi * pl, wi * rl, wi * (pl * pl)
        low[3, i], low[4, i] = wi * (pl * rl), wi * (rl * rl)
        base[0, i], base[1, i], base[2, i], base[3, i], base[4, i] = wi * p2, wi * p2, wi * sq2, wi * sq2, wi * sq2
        step[0, i], step[1, i], step[2, i] = wi * (p1 - p2), wi * (r1 - p2), wi * (p1 * p1 - sq2)
        step[3, i], step[4, i] = wi * (p1 * r1 - sq2), wi * (r1 * r1 - sq2)
        beta[i] = -np.inf if first else b_i  # on its rising piece for every sigma
        # insertion sort of the breakpoints (a handful)
        j = i
        while j > 0 and srt[j - 1] > beta[i]:
            srt[j] = srt[j - 1]
            j -= 1
        srt[j] = beta[i]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _segment_sums(low, base, step, beta, srt, coef):  # pragma: no cover - compiled
    """Sum one column's terms into ``coef[family, segment]``, in place.

    Segment 0 is the low-variance part; segment ``seg + 1`` starts at the sorted breakpoint
    ``srt[seg - 1]`` (-inf for seg = 0) and adds the rising step of every observation whose
    breakpoint is at or below that start.  The sums run in observation order (the first
    term, then each next one added); a term of an observation not yet rising adds 0 and is
    skipped (a non-finite one adds ``0 * step``, NaN, as the full sum would).
    """
    M = beta.size
    for fam in range(5):
        lsum = low[fam, 0]
        bsum = base[fam, 0]
        for i in range(1, M):
            lsum += low[fam, i]
            bsum += base[fam, i]
        coef[fam, 0] = lsum
        for seg in range(M + 1):
            left = -np.inf if seg == 0 else srt[seg - 1]
            high = 0.0
            for i in range(M):
                if beta[i] <= left:
                    high += step[fam, i]
                elif not np.isfinite(step[fam, i]):
                    high += 0.0 * step[fam, i]
            coef[fam, seg + 1] = bsum + high


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _boundary_indices(lo, h, size_s, one, srt, bounds, at):  # pragma: no cover - compiled
    """Fill one column's segment boundaries and their grid indices, in place.

    ``bounds``: lo, ``one`` (sigma = 1 clipped to the window), the sorted breakpoints
    ``srt`` and inf; ``at[j]`` (j >= 1): the grid index of inner boundary j, the end of one
    segment and the start of the next (:func:`_grid_index`).
    """
    M = srt.size
    bounds[0] = lo
    bounds[1] = one
    for i in range(M):
        bounds[2 + i] = srt[i]
    bounds[M + 2] = np.inf
    for j in range(1, M + 3):
        at[j] = _grid_index(lo, h, size_s, bounds[j], False)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _segment_range(seg, at, past_one, size_s, h):  # pragma: no cover - compiled
    """Return the first and last grid index of segment ``seg`` (last < first: empty).

    Segment 0 (low variance) ends before the first grid value above 1 (``past_one``), the
    others start no earlier; a degenerate window (``h`` = 0) has only index 0.
    """
    if seg == 0:
        first_k = 0
        last_k = past_one - 1
    else:
        first_k = max(at[seg], past_one)
        last_k = at[seg + 1] - 1
    last_k = min(last_k, size_s - 1)
    if not h > 0:
        last_k = min(last_k, 0)
    return first_k, last_k


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _stationary_index(P, Q, R, U, V, lo, h, paper):  # pragma: no cover - compiled
    """Return the grid index (floored, as a float) of a segment's stationary point.

    The stationary point of the objective in sigma: ``(Q - U)/V`` in paper mode (the
    parabola's vertex), ``(P U - Q R)/(Q U - P V)`` otherwise (module docstring); -1 when it
    is not a finite index.
    """
    if paper:
        s_star = (Q - U) / V
    else:
        s_star = (P * U - Q * R) / (Q * U - P * V)
    k_star = (s_star - lo) / h if h > 0 else 0.0
    if k_star != k_star or k_star == np.inf or k_star == -np.inf:
        k_star = -1.0
    return np.floor(k_star)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _segment_objective(P, Q, R, U, V, S0k, sg, paper):  # pragma: no cover - compiled
    """Return WSSRE at sigma ``sg`` from its segment's coefficients; inf if not finite.

    ``S0 - 2 S1 + S2`` in paper mode, else ``S0 - S1^2 / S2`` (module docstring).
    """
    S1 = P + Q * sg
    S2 = R + (2 * U + V * sg) * sg
    val = S0k - 2 * S1 + S2 if paper else S0k - S1 * S1 / S2
    if not np.isfinite(val):
        val = np.inf
    return val


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _update_segment(coef, seg, first_k, last_k, lo, h, S0k, paper, a, f, col, sig):  # pragma: no cover - compiled
    """Evaluate segment ``seg`` of column ``a`` at its four candidates and keep the best, in place.

    The candidates are the segment's first and last grid index and the two grid neighbours
    of its stationary point, each clipped to the segment.  ``f[c, seg]``, ``col[c, seg]``,
    ``sig[c, seg]`` hold candidate c's least objective so far, its column and sigma; a
    column replaces them only when strictly better (or is the first column), so the first
    column of least objective wins.
    """
    P, Q, R, U, V = coef[0, seg], coef[1, seg], coef[2, seg], coef[3, seg], coef[4, seg]
    k_star = _stationary_index(P, Q, R, U, V, lo, h, paper)
    top = float(max(last_k, first_k))
    fk = float(first_k)
    empty = last_k < first_k
    for c in range(4):
        if c == 0:
            cand = fk
        elif c == 1:
            cand = top
        elif c == 2:
            cand = k_star
        else:
            cand = k_star + 1
        cand = min(max(cand, fk), top)
        sg = lo + h * cand
        val = np.inf if empty else _segment_objective(P, Q, R, U, V, S0k, sg, paper)
        if a == 0 or val < f[c, seg]:
            f[c, seg] = val
            col[c, seg] = a
            sig[c, seg] = sg


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _first_minimum(f):  # pragma: no cover - compiled
    """Return (row, column) of the first least value of ``f`` in row-major order.

    The same choice as ``argmin`` over the flattened array: a later entry wins only when
    strictly smaller.
    """
    bc, bs = 0, 0
    for c in range(f.shape[0]):
        for seg in range(f.shape[1]):
            if f[c, seg] < f[bc, bs]:
                bc, bs = c, seg
    return bc, bs


@njit(cache=True, nogil=True, error_model="numpy")
def _grid_argmin_kernel(n, t, w, A, s_lo, s_hi, hs, S0, size_s, paper):  # pragma: no cover - compiled
    """For each problem k, the grid point (A column, sigma) of least WSSRE and its value.

    On every A column the sigma axis splits into segments on which S1 = P + Q s and
    S2 = R + 2 U s + V s^2 (module docstring): segment 0 is the low-variance part [lo,
    min(hi, 1)], segments 1.. cover (1, hi] split at the sorted high-variance breakpoints
    (observation i is on its rising piece once s >= beta_i).  Each segment's minimum lies
    among its end points and the grid neighbours of the stationary point.  The sums run
    over the observations in order, and the first minimum in (candidate, segment, column)
    order wins, so the result is the grid point an evaluation of every one would choose.
    """
    K, M = w.shape
    NA = A.shape[1]
    S = M + 2
    best_col = np.zeros(K, np.int64)
    best_sig = np.zeros(K)
    best_obj = np.full(K, np.inf)
    beta = np.empty(M)
    srt = np.empty(M)
    low = np.empty((5, M))  # w x (family value) on the low-variance pieces
    base = np.empty((5, M))  # ... on the saturated high-variance piece
    step = np.empty((5, M))  # rising minus saturated high-variance piece
    bounds = np.empty(M + 3)
    at = np.zeros(M + 3, np.int64)
    coef = np.empty((5, S))
    # per (candidate, segment): the first column of least objective and its sigma
    f = np.empty((4, S))
    col = np.zeros((4, S), np.int64)
    sig = np.empty((4, S))
    for k in range(K):
        lo = s_lo[k]
        h = hs[k]
        past_one = _grid_index(lo, h, size_s, 1.0, True)
        one = min(max(1.0, lo), s_hi[k])
        for a in range(NA):
            _column_terms(n, t, w, k, A[k, a], low, base, step, beta, srt)
            _segment_sums(low, base, step, beta, srt, coef)
            _boundary_indices(lo, h, size_s, one, srt, bounds, at)
            for seg in range(S):
                first_k, last_k = _segment_range(seg, at, past_one, size_s, h)
                _update_segment(coef, seg, first_k, last_k, lo, h, S0[k], paper, a, f, col, sig)
        # the first minimum in (candidate, segment, column) order, as argmin over the flat array
        bc, bs = _first_minimum(f)
        best_col[k] = col[bc, bs]
        best_sig[k] = sig[bc, bs]
        best_obj[k] = f[bc, bs]
    return best_col, best_sig, best_obj


def grid_objective_bruteforce(n, t, w, A_lo, A_hi, s_lo, s_hi, size_A=500, size_s=500, paper=False):
    """WSSRE on every point of one problem's grid (reference implementation, O(size^2 M)).

    Returns (A grid, sigma grid, objective of shape (size_A, size_s)).

    Parameters
    ----------
    n, t, w : array-like of float, shape (M,)
        Processor counts, runtimes and weights of the observations.
    A_lo, A_hi, s_lo, s_hi : float
        The grid window in A and in sigma.
    size_A, size_s : int, default 500
        Grid points along A and along sigma.
    paper : bool, default False
        Runtimes in model units instead of a profiled time scale.
    """
    hA = _grid(np.float64(A_lo), np.float64(A_hi), size_A)
    hs = _grid(np.float64(s_lo), np.float64(s_hi), size_s)
    A = A_lo + hA * np.arange(size_A)
    s = s_lo + hs * np.arange(size_s)
    x = relative_model(np.asarray(n, float), np.asarray(t, float), A[:, None], s[None, :])
    return A, s, wssre(x, np.asarray(w, float), paper)


def fixed_point_sigmas(n_f, t_f, A, *, paper: bool, n_g=None, t_g=None, s_max=np.inf):
    """Return the sigma values making the model pass through the fixed point (pass 1, [Deshmeh2013] 3.5.2).

    ``paper``: T(n_f; A, sigma) = t_f.  Otherwise the time scale is free, so "passing through
    the fixed point" pins the runtime *ratio* to the next-closest observation g instead:
    T(n_f)/T(n_g) = t_f/t_g (the scale then makes the curve pass through the point).
    Both equations are piecewise linear in sigma; returns an (len(A), S) array of roots
    with NaN where a segment has none.

    Parameters
    ----------
    n_f, t_f : float
        Processor count and runtime of the fixed point.
    A : array-like of float
        The A grid.
    paper : bool
        Runtimes in model units instead of a free time scale.
    n_g, t_g : float, optional
        Processor count and runtime of the next-closest observation (needed unless ``paper``).
    s_max : float, default inf
        Largest sigma considered.
    """
    A = np.ascontiguousarray(A, float)
    pts = np.array([n_f] if paper else [n_f, n_g], float)
    return _fixed_point_roots(pts, A, float(s_max), float(t_f), float(t_f if paper else t_g), bool(paper))


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _segment_root(b, u, v, seg, t_f, t_g, paper):  # pragma: no cover - compiled
    """Return the root of segment ``seg``'s fixed-point equation c0 + c1 sigma = 0, or NaN.

    The equation is T(n_f) = t_f in paper mode, T(n_f)/T(n_g) = t_f/t_g otherwise; NaN
    when the root does not lie on the segment. A root exactly on sigma = 1 from the high
    side belongs to the low-variance formula.
    """
    if paper:
        c0 = u[seg, 0] - t_f
        c1 = v[seg, 0]
    else:
        c0 = t_g * u[seg, 0] - t_f * u[seg, 1]
        c1 = t_g * v[seg, 0] - t_f * v[seg, 1]
    root = -c0 / c1
    if (root >= b[seg] and root <= b[seg + 1] and np.isfinite(root)
            and not (b[seg] == 1.0 and root == 1.0 and seg > 0)):
        return root
    return np.nan


@njit(cache=True, nogil=True, error_model="numpy")
def _fixed_point_roots(pts, A, s_max, t_f, t_g, paper):  # pragma: no cover - compiled
    """:func:`fixed_point_sigmas`: each segment's root (:func:`_segment_root`) per A column."""
    P = pts.size
    S = P + 2
    out = np.full((A.size, S), np.nan)
    b = np.empty(P + 3)
    u = np.empty((S, P))
    v = np.empty((S, P))
    for c in range(A.size):
        column_segments(pts, A[c], 0.0, s_max, b, u, v)
        for seg in range(S):
            out[c, seg] = _segment_root(b, u, v, seg, t_f, t_g, paper)
    return out


def containment_limit(delta: float) -> float:
    """Return the largest max/min ratio of the model values x_i = T_i/t_i that fits the envelope.

    The largest ratio for which some time scale puts every tau x_i within [1 - delta, 1 + delta]
    (the scale-free envelope), with a rounding margin.

    Parameters
    ----------
    delta : float
        Largest relative deviation of an observation from the true model, in (0, 1).
    """
    return (1 + delta) / (1 - delta) * (1 + 1e-12)


def scale_free_candidates(n_f, t_f, n_g, t_g, A, s_max, env_n, env_t, env_phase, delta):
    """Pass-1 candidates of the scale-free (``units="fit"``) search.

    Every (A, sigma) on the grid ``A`` through the fixed point f (runtime ratio to g,
    :func:`fixed_point_sigmas`) that lies in the envelope of deviation ``delta`` (some scale
    explains each phase's used observations ``env_n``, ``env_t`` within it, as
    :meth:`Envelope.contains`), in grid and segment order.  One pass, without the (A x
    segment) and (candidate x observation) temporaries of doing the same with array
    operations.

    Parameters
    ----------
    n_f, t_f, n_g, t_g : float
        Processor count and runtime of the fixed point f and of the next-closest observation g.
    A : array-like of float
        The A grid.
    s_max : float
        Largest sigma considered.
    env_n, env_t, env_phase : array-like, shape (M,)
        Processor counts, runtimes and phase indices of the observations the envelope is
        built from.
    delta : float
        Largest relative deviation of an observation from the true model, in (0, 1).
    """
    phases = np.unique(np.asarray(env_phase))
    codes = np.searchsorted(phases, env_phase).astype(np.int64)
    return _scale_free_candidates(np.array([n_f, n_g], float), float(t_f), float(t_g),
                                  np.ascontiguousarray(A, float), float(s_max), np.ascontiguousarray(env_n, float),
                                  np.ascontiguousarray(env_t, float), codes, phases.size, containment_limit(delta))


@njit(cache=True, nogil=True, error_model="numpy")
def _scale_free_candidates(pts, t_f, t_g, A, s_max, env_n, env_t, codes, n_phases, limit):  # pragma: no cover
    S = pts.size + 2
    A_out = np.empty(A.size * S)
    s_out = np.empty(A.size * S)
    count = 0
    b = np.empty(pts.size + 3)
    u = np.empty((S, pts.size))
    v = np.empty((S, pts.size))
    hi = np.empty(n_phases)
    lo = np.empty(n_phases)
    nan = np.empty(n_phases, np.bool_)
    for c in range(A.size):
        a = A[c]
        column_segments(pts, a, 0.0, s_max, b, u, v)
        for seg in range(S):
            root = _segment_root(b, u, v, seg, t_f, t_g, False)
            if root != root:
                continue
            # in the envelope: max/min of the model values within some phase <= limit
            hi[:] = -np.inf
            lo[:] = np.inf
            nan[:] = False
            for i in range(env_n.size):
                x = _runtime(env_n[i], a, root) / env_t[i]
                p = codes[i]
                if x != x:
                    nan[p] = True
                if x > hi[p]:
                    hi[p] = x
                if x < lo[p]:
                    lo[p] = x
            inside = False
            for p in range(n_phases):
                if not nan[p] and hi[p] / lo[p] <= limit:
                    inside = True
            if inside:
                A_out[count] = a
                s_out[count] = root
                count += 1
    return A_out[:count], s_out[:count]


@njit(cache=True, nogil=True, error_model="numpy")
def pass1_pick(S1, S2, S0, A, A_floor, paper):  # pragma: no cover - compiled
    """Pass 1's choice among candidates (A, sigma) for each target k ([Deshmeh2013] section 3.5.2).

    WSSRE is ``S0 - S1^2/S2`` (scale profiled) or ``S0 - 2 S1 + S2`` (paper), floored at 0 (it can round below
    zero at a perfect fit), and inf where A < ``A_floor[k]``. Flat valleys (A not identifiable) give exact ties
    whose rounding depends on how many targets share the matrix product, so among the candidates within 1e-9
    (relative) of the minimum the one with the largest A is taken: the data show no saturation, so none is
    predicted earlier than they demand, and a target's fit does not depend on the other targets. Returns
    (objective matrix, chosen index, minimum). NaN propagates like numpy's minimum (a NaN minimum ties nothing:
    index 0).

    Parameters
    ----------
    S1, S2 : ndarray of float, shape (K, C)
        Weighted sums of x and of x^2 over the observations (matrix products).
    S0, A_floor : ndarray of float, shape (K,)
        Sum of each target's weights, and its smallest admissible A.
    A : ndarray of float, shape (C,)
        The candidates' A values.
    paper : bool
        Runtimes in model units instead of a profiled scale.
    """
    K, C = S1.shape
    f = np.empty((K, C))
    pick = np.zeros(K, np.int64)
    fmin = np.empty(K)
    for k in range(K):
        lo = np.inf
        nan = False
        for c in range(C):
            v = (S2[k, c] - 2 * S1[k, c]) + S0[k] if paper else S0[k] - S1[k, c] * S1[k, c] / S2[k, c]
            if v < 0.0:
                v = 0.0
            if A[c] < A_floor[k]:
                v = np.inf
            f[k, c] = v
            if v != v:
                nan = True
            elif v < lo:
                lo = v
        if nan:
            lo = np.nan
        fmin[k] = lo
        tol = 1e-9 * (lo if (lo != lo or lo >= 1e-12 * S0[k]) else 1e-12 * S0[k])
        best = -np.inf
        for c in range(C):
            if f[k, c] <= lo + tol and A[c] > best:
                best = A[c]
                pick[k] = c
    return f, pick, fmin


@njit(cache=True, nogil=True, error_model="numpy")
def runner_up_pick(f, A, A_best, obj, factor, ratio):  # pragma: no cover - compiled
    """Table 3's runner-up for each target k.

    The candidate of least objective ``f[k]`` among those with A differing from
    ``A_best[k]`` by more than ``factor`` and objective below ``ratio`` times the best
    ``obj[k]`` (> 0).  Returns (index, found).

    Parameters
    ----------
    f : ndarray of float, shape (K, C)
        Objective of every candidate per target.
    A : ndarray of float, shape (C,)
        The candidates' A values.
    A_best, obj : ndarray of float, shape (K,)
        The chosen A and objective per target.
    factor, ratio : float
        Relative difference in A a runner-up needs from ``A_best``, and the largest multiple
        of the best objective it may have.
    """
    K, C = f.shape
    pick = np.zeros(K, np.int64)
    found = np.zeros(K, np.bool_)
    for k in range(K):
        lo = np.inf
        for c in range(C):
            far = A[c] < A_best[k] / factor or A[c] > A_best[k] * factor
            if far and f[k, c] < ratio * obj[k] and obj[k] > 0:
                if not found[k] or f[k, c] < lo:
                    lo = f[k, c]
                    pick[k] = c
                found[k] = True
    return pick, found


def fixed_point_As(n_f, t_f, sigma) -> np.ndarray:
    """Return the A values with T(n_f; A, sigma) = t_f (paper mode), shape sigma.shape + (2,), NaN if none.

    For fixed sigma the runtime is piecewise linear in A as well: low variance
    A/n + sigma (1 - 1/n)/2 for A >= n, sigma (A - 1/2)/n + 1 - sigma/2 for (n+1)/2 <= A < n;
    high variance A (1 + sigma)/n + sigma (1 - 1/n) while A >= (n + sigma)/(1 + sigma).
    Pass 1 uses it to find where the fixed-point curve crosses a range pair that is thin in
    sigma, which a grid over A alone can step over.

    Parameters
    ----------
    n_f, t_f : float
        Processor count and runtime (model units) of the fixed point.
    sigma : array-like of float
        Variance-of-parallelism values.
    """
    s = np.asarray(sigma, float)
    n, t = float(n_f), float(t_f)
    with np.errstate(divide="ignore", invalid="ignore"):
        low1 = n * (t - s * (1 - 1 / n) / 2)
        low2 = (t - 1 + s / 2) * n / s + 0.5
        high1 = (t - s * (1 - 1 / n)) * n / (1 + s)
    a = np.where(s <= 1, np.where(low1 >= n, low1, np.nan), np.where(high1 >= (n + s) / (1 + s), high1, np.nan))
    b = np.where((s <= 1) & (s > 0) & (low2 >= (n + 1) / 2) & (low2 < n), low2, np.nan)
    out = np.stack([a, b], axis=-1)
    return np.where(out >= 1, out, np.nan)
