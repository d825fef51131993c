"""Vectorised search for the biased best-fitting Downey instance (thesis section 3.5.2).

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

WSSRE (thesis 3.5.2) with a time scale tau is ``sum w (tau x - 1)^2``:

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
    "fixed_point_As",
    "wssre",
    "profiled_scale",
    "grid_objective_bruteforce",
    "grid_argmin",
    "GridResult",
    "fixed_point_sigmas",
]


def relative_model(n, t, A, sigma):
    """x_i = T(n_i; A, sigma) / t_i for instances broadcast against the trailing obs axis."""
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
    """:func:`relative_model` for 1-D n, t and flat instances: the same floating-point
    operations as :func:`downey.runtime_unchecked` followed by ``/ t``, in one pass without
    the (instances x observations) temporaries -- the hot loop of pass 1."""
    for c in range(A.size):
        a = A[c]
        s = sigma[c]
        for i in range(n.size):
            m = n[i]
            if s <= 1:
                if m <= a:
                    T = (a - s / 2) / m + s / 2
                else:
                    T = _maximum(s * (a - 0.5) / m + 1 - s / 2, 1.0)
            else:
                T = _maximum(s + (a + (a - 1) * s) / m, s + 1)
            out[c, i] = T / t[i]


def profiled_scale(x, w, paper: bool):
    """tau minimising sum w (tau x - 1)^2: S1/S2 (closed form), or 1 in paper mode."""
    if paper:
        return np.ones(np.shape(x)[:-1])
    return np.sum(w * x, axis=-1) / np.sum(w * x * x, axis=-1)


def wssre(x, w, paper: bool):
    """Weighted sum of squared relative errors (thesis 3.5.2) at the best scale."""
    tau = profiled_scale(x, w, paper)
    return np.sum(w * (tau[..., None] * x - 1.0) ** 2, axis=-1)


def _piece_coefficients(n, A):
    """The Downey pieces as T = u + v sigma for fixed A: returns (n <= A, low-variance u, v,
    rising high-variance u, v); the saturated high-variance piece is 1 + sigma."""
    first = n <= A
    lo_u = np.where(first, A / n, 1.0)
    lo_v = np.where(first, (1 - 1 / n) / 2, np.where(n <= 2 * A - 1, (A - 0.5) / n - 0.5, 0.0))
    return first, lo_u, lo_v, A / n, 1 + (A - 1) / n


def _pieces(n, A, s_mid):
    """Linear coefficients (u, v) with T(n; A, sigma) = u + v sigma on the segment holding s_mid."""
    first, lo_u, lo_v, rise_u, rise_v = _piece_coefficients(n, A)
    piece1 = first | (s_mid * (A - 1) >= n - A)
    low = s_mid <= 1
    return (np.where(low, lo_u, np.where(piece1, rise_u, 1.0)),
            np.where(low, lo_v, np.where(piece1, rise_v, 1.0)))


def _high_breakpoints(n, A):
    """sigma at which observation n leaves the rising high-variance piece (inf if never)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = (n - A) / (A - 1)
    return np.where((n > A) & (A > 1), beta, np.inf)


def _segments(n, A, lo, hi):
    """Sorted segment boundaries in sigma for columns A over windows [lo, hi].

    Shapes: n (M,), A (..., ), lo/hi broadcastable to A.  Returns boundaries of shape
    (..., M + 3) and the (u, v) coefficients per segment, shape (..., M + 2, M).
    """
    A = np.asarray(A, dtype=float)
    lo = np.broadcast_to(lo, A.shape)
    hi = np.broadcast_to(hi, A.shape)
    lo1 = np.maximum(lo, 1.0)
    beta = np.clip(_high_breakpoints(n, A[..., None]), lo1[..., None], hi[..., None])
    one = np.clip(1.0, lo, hi)
    bounds = np.sort(np.concatenate([lo[..., None], one[..., None], beta, hi[..., None]], axis=-1), axis=-1)
    mid = 0.5 * (bounds[..., :-1] + bounds[..., 1:])
    # a zero-length segment sitting on sigma = 1 belongs to the low-variance side
    u, v = _pieces(n, A[..., None, None], mid[..., None])
    return bounds, u, v


@dataclass
class GridResult:
    """Best grid point per problem: indices into the A and sigma grids, values and objective."""

    A: np.ndarray
    sigma: np.ndarray
    objective: np.ndarray


def _grid(lo, hi, size):
    """Grid values lo + h k (k = 0..size-1) and the step h (0 for a degenerate window)."""
    h = np.where(hi > lo, (hi - lo) / max(size - 1, 1), 0.0)
    return h


def _index(lo, h, size, b, strict: bool):
    """Smallest grid index k with lo + h k >= b (or > b when strict); size if none.

    The arithmetic guess is corrected by one step either way, because the guess and the
    grid values are rounded differently."""
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = np.where(h > 0, np.ceil((b - lo) / h), np.where(lo >= b, 0, size))
    k = np.clip(np.nan_to_num(guess, nan=size, posinf=size, neginf=0), 0, size).astype(np.int64)

    def ok(j):
        val = lo + h * j
        return (val > b) if strict else (val >= b)

    k = np.where((k < size) & ~ok(k), k + 1, k)
    k = np.where((k > 0) & ok(np.maximum(k - 1, 0)), k - 1, k)
    return np.minimum(k, size)


def _segment_sums(n, t, w, A, lo, hi):
    """Polynomial coefficients of S1, S2 on every sigma segment of every column.

    Shapes: n, t (M,), w (K, M), A (K, NA), lo/hi (K, 1).  Returns boundaries and
    P, Q, R, U, V, all with the segment axis first: (M + 3, K, NA) and (M + 2, K, NA), with
    S1 = P + Q s and S2 = R + 2 U s + V s^2 on each segment.  Segment 0 is the
    low-variance part [lo, min(hi, 1)]; segments 1.. cover (1, hi] split at the sorted
    high-variance breakpoints, observation i being on its rising piece once s >= beta_i.
    Observation and segment axes lead so that every numpy operation runs over whole
    (K, NA) planes (reductions over a short trailing axis are several times slower).
    """
    M = len(n)
    n3, t3, w3 = n[:, None, None], t[:, None, None], w.T[:, :, None]
    Ac = A[None]
    # low variance: the piece depends on A only; high variance: rising piece (1) or
    # saturated piece (2, x = (1 + s)/t for every A)
    first, lo_u, lo_v, rise_u, rise_v = _piece_coefficients(n3, Ac)
    pl, rl = lo_u / t3, lo_v / t3
    p1, r1 = rise_u / t3, rise_v / t3
    p2 = 1 / t3
    beta = np.where(first, -np.inf, _high_breakpoints(n3, Ac))  # (M, K, NA)
    beta_s = np.sort(beta, axis=0)
    fam_lo = (pl, rl, pl * pl, pl * rl, rl * rl)
    fam_1 = (p1, r1, p1 * p1, p1 * r1, r1 * r1)
    fam_2 = (p2, p2, p2 * p2, p2 * p2, p2 * p2)
    # high segment m lies right of the m-th smallest breakpoint: observation i is on its
    # rising piece there iff beta_i <= that breakpoint (beta = -inf: rising for every sigma)
    lefts = np.concatenate([np.full((1,) + A.shape, -np.inf), beta_s])  # (M + 1, K, NA)
    rising = (beta[:, None] <= lefts[None]).astype(float)  # (M, M + 1, K, NA)
    steps = np.stack([w3 * (f1 - f2) for f1, f2 in zip(fam_1, fam_2)])  # (5, M, K, NA)
    highs = np.einsum("imka,fika->fmka", rising, steps)
    out = []
    for lo_f, f2, high in zip(fam_lo, fam_2, highs):
        base2 = np.sum(w3 * f2, axis=0)
        out.append(np.concatenate([np.sum(w3 * lo_f, axis=0)[None], base2 + high]))
    lo = np.broadcast_to(lo, A.shape)[None]
    hi = np.broadcast_to(hi, A.shape)[None]
    one = np.minimum(np.maximum(1.0, lo), hi)
    # breakpoints are not clipped to the window: a segment beyond a breakpoint outside the
    # window must come out empty, not collapse onto the window's edge with the wrong pieces
    bounds = np.concatenate([lo, one, beta_s, np.full_like(hi, np.inf)])
    return (bounds, *out)


def grid_argmin(n, t, w, A_lo, A_hi, s_lo, s_hi, size_A=500, size_s=500, paper=False) -> GridResult:
    """Exact argmin of WSSRE over the size_A x size_s grid of each problem.

    Parameters
    ----------
    n, t : (M,) observations (runtimes in model units when ``paper``).
    w : (K, M) weights, one row per problem (prediction target).
    A_lo, A_hi, s_lo, s_hi : (K,) grid windows; grids are ``lo + h k`` with
        ``h = (hi - lo)/(size - 1)``.  A degenerate window (hi == lo) is a single value.
    """
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    w = np.atleast_2d(np.asarray(w, float))
    K = w.shape[0]
    A_lo, A_hi, s_lo, s_hi = (np.broadcast_to(np.asarray(v, float), (K,)) for v in (A_lo, A_hi, s_lo, s_hi))
    hA = _grid(A_lo, A_hi, size_A)
    hs = _grid(s_lo, s_hi, size_s)
    A = A_lo[:, None] + hA[:, None] * np.arange(size_A)  # (K, NA)
    bounds, P, Q, R, U, V = _segment_sums(n, t, w, A, s_lo[:, None], s_hi[:, None])
    S0 = np.sum(w, axis=-1)[:, None]

    lo2 = s_lo[:, None]
    h2 = hs[:, None]
    # sigma = 1 itself is evaluated with the low-variance formulas: segment 0 holds the grid
    # points <= 1, the high-variance segments only those > 1
    past_one = _index(lo2, h2, size_s, 1.0, strict=True)
    first = np.maximum(_index(lo2, h2, size_s, bounds[:-1], strict=False), past_one)
    # segments are half-open [b_k, b_k+1): every grid value lies in exactly one of them
    last = _index(lo2, h2, size_s, bounds[1:], strict=False) - 1
    first[0] = 0
    last[0] = past_one - 1
    last = np.minimum(last, size_s - 1)
    last = np.where(h2 > 0, last, np.minimum(last, 0))  # a degenerate window holds one value

    with np.errstate(divide="ignore", invalid="ignore"):
        if paper:
            s_star = (Q - U) / V
        else:
            s_star = (P * U - Q * R) / (Q * U - P * V)
        k_star = np.where(h2 > 0, (s_star - lo2) / h2, 0.0)
    k_star = np.floor(np.nan_to_num(k_star, nan=-1.0, posinf=-1.0, neginf=-1.0))
    top = np.maximum(last, first)
    cands = np.stack([first, top, k_star, k_star + 1])  # (4, S, K, NA)
    cands = np.clip(cands, first, top)
    sig = lo2 + h2 * cands
    S1 = P + Q * sig
    S2 = R + (2 * U + V * sig) * sig
    with np.errstate(divide="ignore", invalid="ignore"):
        f = S0 - 2 * S1 + S2 if paper else S0 - S1 * S1 / S2
    f = np.where((last >= first) & np.isfinite(f), f, np.inf)
    flat = np.moveaxis(f, 2, 0).reshape(K, -1)
    best = np.argmin(flat, axis=1)
    obj = flat[np.arange(K), best]
    s_best = np.moveaxis(sig, 2, 0).reshape(K, -1)[np.arange(K), best]
    A_best = A[np.arange(K), best % size_A]
    # re-evaluate the winner directly: the polynomial form can differ from it by rounding
    x = relative_model(n, t, A_best, s_best)
    obj = np.where(np.isfinite(obj), wssre(x, w, paper), np.inf)
    return GridResult(A=A_best, sigma=s_best, objective=obj)


def grid_objective_bruteforce(n, t, w, A_lo, A_hi, s_lo, s_hi, size_A=500, size_s=500, paper=False):
    """WSSRE on every point of one problem's grid (reference implementation, O(size^2 M)).

    Returns (A grid, sigma grid, objective of shape (size_A, size_s))."""
    hA = _grid(np.float64(A_lo), np.float64(A_hi), size_A)
    hs = _grid(np.float64(s_lo), np.float64(s_hi), size_s)
    A = A_lo + hA * np.arange(size_A)
    s = s_lo + hs * np.arange(size_s)
    x = relative_model(np.asarray(n, float), np.asarray(t, float), A[:, None], s[None, :])
    return A, s, wssre(x, np.asarray(w, float), paper)


def fixed_point_sigmas(n_f, t_f, A, *, paper: bool, n_g=None, t_g=None, s_max=np.inf):
    """sigma values making the model pass through the fixed point (pass 1, thesis 3.5.2).

    ``paper``: T(n_f; A, sigma) = t_f.  Otherwise the time scale is free, so "passing through
    the fixed point" pins the runtime *ratio* to the next-closest observation g instead:
    T(n_f)/T(n_g) = t_f/t_g (the scale then makes the curve pass through the point).
    Both equations are piecewise linear in sigma; returns an (len(A), S) array of roots
    with NaN where a segment has none.
    """
    A = np.asarray(A, float)
    pts = np.array([n_f] if paper else [n_f, n_g], float)
    bounds, u, v = _segments(pts, A, 0.0, s_max)
    if paper:
        c0 = u[..., 0] - t_f
        c1 = v[..., 0]
    else:
        c0 = t_g * u[..., 0] - t_f * u[..., 1]
        c1 = t_g * v[..., 0] - t_f * v[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        root = -c0 / c1
    inside = (root >= bounds[..., :-1]) & (root <= bounds[..., 1:]) & np.isfinite(root)
    # a root exactly on sigma = 1 from the high side belongs to the low-variance formula
    inside &= ~((bounds[..., :-1] == 1.0) & (root == 1.0) & (np.arange(root.shape[-1]) > 0))
    return np.where(inside, root, np.nan)


def fixed_point_As(n_f, t_f, sigma) -> np.ndarray:
    """A values with T(n_f; A, sigma) = t_f (paper mode), shape sigma.shape + (2,), NaN if none.

    For fixed sigma the runtime is piecewise linear in A as well: low variance
    A/n + sigma (1 - 1/n)/2 for A >= n, sigma (A - 1/2)/n + 1 - sigma/2 for (n+1)/2 <= A < n;
    high variance A (1 + sigma)/n + sigma (1 - 1/n) while A >= (n + sigma)/(1 + sigma).
    Pass 1 uses it to find where the fixed-point curve crosses a range pair that is thin in
    sigma, which a grid over A alone can step over.
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
