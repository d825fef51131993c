"""The ADEPT envelope: constraints on (A, sigma) derived from the observations.

Thesis section 3.5.1 and Appendix A.  Each observation is assumed to deviate from the
true model by at most ``delta``: t'_i in t_i [1 - delta, 1 + delta] (eq. 25).

``units="paper"`` — runtimes are taken as model units (the thesis' "runtimes are greater
than one second").  For every pair i < j and each of the five cases the closed-form
solutions (eqs. 7-24) extended by delta (eqs. 26-35) give a *range pair*
([A_min, A_max], [sigma_min, sigma_max]).  Invalid parts (sigma < 0, sigma > 1 for the
low-variance cases 4-5, sigma < 1 for the high-variance cases 1-3, A < 1) are clipped away,
range pairs contained in another are dropped, and the envelope is their union.

``units="fit"`` — the time scale tau is a third unknown, and any pair of observations can
then be matched exactly by scaling, so pairwise closed forms bound nothing.  The envelope is
computed as what it stands for: all (A, sigma) for which *some* scale explains every
observation within +-delta, i.e. ``max_i x_i / min_i x_i <= (1 + delta)/(1 - delta)`` with
x_i = T(n_i; A, sigma)/t_i — a condition free of the time unit.  For fixed A each
x_i is piecewise linear in sigma (see :mod:`.search`), so the feasible sigma set of a column
is an exact intersection of half-lines; A is scanned on a fine geometric grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from numba import njit

from workbench.models import downey
from workbench.models.adept.search import column_segments, containment_limit, relative_model

__all__ = ["Envelope", "range_pairs", "fit_envelope", "feasible_columns"]

_BOX_COLUMNS = ["A_min", "A_max", "sigma_min", "sigma_max", "case", "i", "j", "k"]


def _box(case, i, j, k, s_lo, s_hi, a_of_sigma_lo, a_of_sigma_hi, s_valid, a_piece=(1.0, np.inf)):
    """Assemble range pairs: clip sigma to its valid interval and take A extremes over it.

    ``a_of_sigma_lo(s)`` / ``a_of_sigma_hi(s)`` give the lower/upper A bound at a given sigma;
    every A bound in Appendix A is monotone in sigma, so its extremes over a sigma range
    are at the range's ends.
    """
    # a sigma of exactly 0 (linear speedup) computes as +-1e-15: widen by a rounding margin
    margin = 1e-9 * (1 + np.abs(s_lo) + np.abs(s_hi))
    lo = np.maximum(np.minimum(s_lo, s_hi) - margin, s_valid[0])
    hi = np.minimum(np.maximum(s_lo, s_hi) + margin, s_valid[1])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a_lo = np.minimum(a_of_sigma_lo(lo), a_of_sigma_lo(hi))
        a_hi = np.maximum(a_of_sigma_hi(lo), a_of_sigma_hi(hi))
    # where a formula is unbounded (Case 5's n_i (t_i - 1)/sigma as sigma -> 0), A is bounded
    # by the piece the case puts the observations on instead of dropping the range pair
    a_lo = np.maximum(np.where(np.isfinite(a_lo), a_lo, a_piece[0]), 1.0)
    a_hi = np.where(np.isfinite(a_hi), a_hi, a_piece[1])
    ok = (hi >= lo) & (a_hi >= a_lo) & np.isfinite(a_lo) & np.isfinite(a_hi)
    return pd.DataFrame(
        {
            "A_min": a_lo[ok],
            "A_max": a_hi[ok],
            "sigma_min": lo[ok],
            "sigma_max": hi[ok],
            "case": case,
            "i": np.asarray(i)[ok],
            "j": np.asarray(j)[ok],
            "k": np.asarray(k)[ok],
        }
    )


def range_pairs(n, t, delta) -> pd.DataFrame:
    """All non-redundant range pairs of the five cases (Appendix A, eqs. 26-35).

    ``n`` sorted ascending, ``t`` in model units.  Columns: A_min, A_max, sigma_min,
    sigma_max, case (1-5), i, j (the pair, indices into n) and k (case 3's third
    observation, -1 otherwise).

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending.
    t : array-like of float, shape (M,)
        Runtimes at ``n`` in model units.
    delta : float
        Largest relative deviation of an observation from the true model, in (0, 1).
    """
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    i, j = np.triu_indices(len(n), 1)
    ni, ti, nj, tj = n[i], t[i], n[j], t[j]
    lo, hi = 1 - delta, 1 + delta
    none = -np.ones_like(i)
    high, low = (1.0, np.inf), (0.0, 1.0)
    frames = []

    # Case 1 (eqs. 26-27): high variance, both in the rising piece.
    s1 = (nj * tj - ni * ti) / (nj - ni)
    frames.append(_box(
        1, i, j, none, s1 * lo, s1 * hi,
        lambda s: (ni * ti * lo - s * (ni - 1)) / (s + 1),
        lambda s: (ni * ti * hi - s * (ni - 1)) / (s + 1),
        high,
    ))
    # Case 2 (eqs. 28-29): i rising, j saturated.  The appendix prints t_i in eq. 28;
    # t_j is the consistent reading, since the saturated piece gives t = sigma + 1.
    frames.append(_box(
        2, i, j, none, tj * lo - 1, tj * hi - 1,
        lambda s: (ni * ti * lo + s * (1 - ni)) / (s + 1),
        lambda s: (ni * ti * hi + s * (1 - ni)) / (s + 1),
        high,
    ))
    # Case 3 (eqs. 30-31): both saturated; A from every earlier observation k < i.
    ii, kk = np.meshgrid(np.arange(len(i)), np.arange(len(n)), indexing="ij")
    sel = kk < i[ii]
    p, k = ii[sel], kk[sel]
    nk, tk, tj3 = n[k], t[k], tj[p]
    frames.append(_box(
        3, i[p], j[p], k, tj3 * lo - 1, tj3 * hi - 1,
        lambda s: (nk * tk * lo + s * (1 - nk)) / (s + 1),
        lambda s: (nk * tk * hi + s * (1 - nk)) / (s + 1),
        high,
    ))
    # Case 4 (eqs. 32-33): low variance, both in the first piece.
    s4 = 2 * (nj * tj - ni * ti) / (nj - ni)
    frames.append(_box(
        4, i, j, none, s4 * lo, s4 * hi,
        lambda s: ni * ti * lo - s * (ni - 1) / 2,
        lambda s: ni * ti * hi - s * (ni - 1) / 2,
        low,
    ))
    # Case 5 (eqs. 34-35): low variance, both in the second piece.
    s5 = 2 * (ni * ti - nj * tj) / (nj - ni)
    frames.append(_box(
        5, i, j, none, s5 * lo + 2, s5 * hi + 2,
        lambda s: (ni + 1) / 2 - ni / s + ni * ti * lo / s,
        lambda s: (ni + 1) / 2 - ni / s + ni * ti * hi / s,
        (np.nextafter(0.0, 1.0), 1.0),
        a_piece=((nj + 1) / 2, ni),  # piece 2 holds n in [A, 2A - 1]
    ))
    boxes = pd.concat(frames, ignore_index=True)[_BOX_COLUMNS]
    return _drop_redundant(boxes)


def _drop_redundant(boxes: pd.DataFrame) -> pd.DataFrame:
    """Drop range pairs contained in another ([Deshmeh2013] section 3.5.1); of identical ones keep the first."""
    if boxes.empty:
        return boxes
    a0, a1, s0, s1 = (boxes[c].to_numpy() for c in ("A_min", "A_max", "sigma_min", "sigma_max"))
    inside = (
        (a0[:, None] >= a0[None, :]) & (a1[:, None] <= a1[None, :])
        & (s0[:, None] >= s0[None, :]) & (s1[:, None] <= s1[None, :])
    )
    same = (a0[:, None] == a0[None, :]) & (a1[:, None] == a1[None, :]) & (s0[:, None] == s0[None, :]) & (
        s1[:, None] == s1[None, :]
    )
    idx = np.arange(len(boxes))
    # l is redundant if inside some other box j, unless they are identical and l comes first
    redundant = (inside & ~(same & (idx[:, None] < idx[None, :])) & (idx[:, None] != idx[None, :])).any(axis=1)
    return boxes.loc[~redundant].reset_index(drop=True)


@njit(cache=True, nogil=True, error_model="numpy")
def _pair_bounds(p, r, bounds, hi, lo):  # pragma: no cover - compiled
    """Compute the sigma interval the pair constraints allow, per column and segment.

    ``lower = max root``, ``upper = min root`` of the pair constraints ``a + b sigma >= 0``
    (``a = hi p_i - lo p_k``, ``b = hi r_i - lo r_k``, ``root = -a / b``) over the pairs
    with ``b > 0`` / ``b < 0``, and ``never`` (a pair with ``b == 0 > a``).  The same
    floating-point operations as the broadcast (NA, S, M, M) expression it replaces, reduced
    in a loop: memory O(NA S) instead of O(NA S M^2).  A zero-length segment at the same
    sigma as the previous one has the same pieces, hence the same result, and is copied.
    """
    NA, S, M = p.shape
    lower = np.empty((NA, S))
    upper = np.empty((NA, S))
    never = np.zeros((NA, S), np.bool_)
    for c in range(NA):
        for s in range(S):
            if s > 0 and bounds[c, s - 1] == bounds[c, s] and bounds[c, s] == bounds[c, s + 1]:
                lower[c, s] = lower[c, s - 1]
                upper[c, s] = upper[c, s - 1]
                never[c, s] = never[c, s - 1]
                continue
            low = -np.inf
            up = np.inf
            nan_low = False
            nan_up = False
            nev = False
            for i in range(M):
                pi = hi * p[c, s, i]
                ri = hi * r[c, s, i]
                for k in range(M):
                    a = pi - lo * p[c, s, k]
                    b = ri - lo * r[c, s, k]
                    if b > 0:
                        root = -a / b
                        if root != root:
                            nan_low = True
                        elif root > low:
                            low = root
                    elif b < 0:
                        root = -a / b
                        if root != root:
                            nan_up = True
                        elif root < up:
                            up = root
                    elif b == 0 and a < 0:
                        nev = True
            lower[c, s] = np.nan if nan_low else low
            upper[c, s] = np.nan if nan_up else up
            never[c, s] = nev
    return lower, upper, never


@njit(cache=True, nogil=True, error_model="numpy")
def _scaled_segments(n, t, A, lo, hi):  # pragma: no cover - compiled
    """Compute each A column's sigma segments with the piece coefficients divided by the runtimes.

    Segments of :func:`~workbench.models.adept.search.column_segments`: x_i = p + r sigma on a
    segment. Returns boundaries (NA, M + 3) and p, r (NA, M + 2, M).
    """
    M = n.size
    bounds = np.empty((A.size, M + 3))
    p = np.empty((A.size, M + 2, M))
    r = np.empty((A.size, M + 2, M))
    for c in range(A.size):
        column_segments(n, A[c], lo, hi, bounds[c], p[c], r[c])
        for seg in range(M + 2):
            for i in range(M):
                p[c, seg, i] = p[c, seg, i] / t[i]
                r[c, seg, i] = r[c, seg, i] / t[i]
    return bounds, p, r


def feasible_columns(n, t, delta, A_grid, s_max=np.inf) -> pd.DataFrame:
    """Feasible sigma intervals per A column for the scale-free envelope (units="fit").

    Feasible means some tau puts every tau x_i in [1 - delta, 1 + delta], i.e.
    (1 + delta) x_i - (1 - delta) x_k >= 0 for all i, k: linear in sigma on each segment.
    Returns a tidy frame (A, sigma_min, sigma_max), one row per non-empty interval.

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending.
    t : array-like of float, shape (M,)
        Runtimes at ``n`` (any unit: the test is scale-free).
    delta : float
        Largest relative deviation of an observation from the true model, in (0, 1).
    A_grid : array-like of float
        The A values (average parallelism, >= 1) to test, one column each.
    s_max : float, default inf
        Upper end of the sigma range searched.
    """
    A, s_lo, s_hi = _feasible_intervals(n, t, delta, A_grid, s_max)
    return pd.DataFrame({"A": A, "sigma_min": s_lo, "sigma_max": s_hi})


def _feasible_intervals(n, t, delta, A_grid, s_max=np.inf):
    """:func:`feasible_columns` as arrays (A, sigma_min, sigma_max)."""
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    A = np.asarray(A_grid, float)
    bounds, p, r = _scaled_segments(n, t, A, 0.0, float(s_max))  # (NA, S+1), (NA, S, M)
    lower, upper, never = _pair_bounds(p, r, bounds, float(1 + delta), float(1 - delta))
    s_lo = np.maximum(lower, bounds[..., :-1])
    s_hi = np.minimum(upper, bounds[..., 1:])
    ok = (s_hi >= s_lo) & ~never & np.isfinite(s_lo)
    col, _ = np.nonzero(ok)
    return A[col], s_lo[ok], np.minimum(s_hi[ok], 1e300)


@dataclass(frozen=True)
class Envelope:
    """The constraint set on (A, sigma) for a given delta ([Deshmeh2013] section 3.5.1).

    Attributes
    ----------
    units : "paper" or "fit" (see the module docstring).
    delta : the deviation bound used.
    bounds : the boxes' A_min, A_max, sigma_min, sigma_max as arrays (what the searches read).
    boxes : the same as a frame with the range pairs' case and observations i, j, k (paper
        mode; in fit mode one box per feasible A column interval, case 0, i = j = k = -1).
    A_range, sigma_range : bounding box of the envelope.
    """

    units: str
    delta: float
    n: np.ndarray
    t: np.ndarray
    bounds: dict[str, np.ndarray]
    A_range: tuple[float, float]
    sigma_range: tuple[float, float]
    phase: np.ndarray | None = None
    t_scale: float = 1.0  # t holds runtimes / t_scale; runtime bands are returned in input units
    range_pairs: pd.DataFrame | None = None  # paper mode: the boxes frame itself

    @property
    def empty(self) -> bool:
        """Whether no (A, sigma) instance lies in the envelope."""
        return self.bounds["A_min"].size == 0

    @cached_property
    def boxes(self) -> pd.DataFrame:
        """The boxes as a frame (:data:`_BOX_COLUMNS`), built on first use in fit mode."""
        if self.range_pairs is not None:
            return self.range_pairs
        return pd.DataFrame({**self.bounds, "case": 0, "i": -1, "j": -1, "k": -1})

    def contains(self, A, sigma) -> np.ndarray:
        """Whether instances lie in the envelope (union of boxes / exact scale-free test).

        Parameters
        ----------
        A : float or array-like of float
            Average parallelism of the instances.
        sigma : float or array-like of float
            Variance of parallelism of the instances, broadcast against ``A``.
        """
        A = np.asarray(A, float)
        sigma = np.asarray(sigma, float)
        if self.empty:
            return np.zeros(np.broadcast(A, sigma).shape, bool)
        if self.units == "fit":
            x = relative_model(self.n, self.t, A, sigma)
            phase = np.zeros(len(self.n), int) if self.phase is None else self.phase
            limit = containment_limit(self.delta)
            # stepwise applications: an instance need only explain one phase ([Deshmeh2013] section 3.9.3)
            ok = np.zeros(x.shape[:-1], bool)
            for p in np.unique(phase):
                xp = x[..., phase == p]
                ok |= xp.max(axis=-1) / xp.min(axis=-1) <= limit
            return ok
        b = self.bounds
        inside = (
            (A[..., None] >= b["A_min"]) & (A[..., None] <= b["A_max"])
            & (sigma[..., None] >= b["sigma_min"]) & (sigma[..., None] <= b["sigma_max"])
        )
        return inside.any(axis=-1)

    def bound_instances(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the (A, sigma) instances on the envelope's boundary (box corners / interval ends)."""
        b = self.bounds
        if self.units == "fit":
            A = np.concatenate([b["A_min"], b["A_min"]])
            s = np.concatenate([b["sigma_min"], b["sigma_max"]])
        else:
            A = np.concatenate([b["A_min"], b["A_min"], b["A_max"], b["A_max"]])
            s = np.concatenate([b["sigma_min"], b["sigma_max"], b["sigma_min"], b["sigma_max"]])
        s = np.minimum(s, 1e6)  # unbounded sigma intervals are drawn at a large finite value
        return A, s

    def speedup_band(self, n_grid) -> tuple[np.ndarray, np.ndarray]:
        """Pointwise lowest and highest speedup over the bound instances ([Deshmeh2013] Fig. 4).

        Parameters
        ----------
        n_grid : array-like of float
            Processor counts at which to evaluate the band.
        """
        n_grid = np.asarray(n_grid, float)
        if self.empty:
            nan = np.full(n_grid.shape, np.nan)
            return nan, nan
        A, s = self.bound_instances()
        S = downey.speedup(n_grid[None, :], A[:, None], s[:, None])
        return S.min(axis=0), S.max(axis=0)

    def runtime_band(self, n_grid) -> tuple[np.ndarray, np.ndarray]:
        """Pointwise runtime bounds.

        In fit mode every bound instance gets the scale that fits the observations best
        (uniform weights); in paper mode runtimes are model units.

        Parameters
        ----------
        n_grid : array-like of float
            Processor counts at which to evaluate the band.
        """
        n_grid = np.asarray(n_grid, float)
        if self.empty:
            nan = np.full(n_grid.shape, np.nan)
            return nan, nan
        A, s = self.bound_instances()
        T = downey.runtime(n_grid[None, :], A[:, None], s[:, None])
        if self.units == "fit":
            x = relative_model(self.n, self.t, A, s)
            T = T * (x.sum(axis=-1) / (x * x).sum(axis=-1))[:, None] * self.t_scale
        return T.min(axis=0), T.max(axis=0)


def fit_envelope(n, t, delta, units="fit", *, phase=None, A_max=None, sigma_max=3000.0,
                 grid_size=1200, t_scale=1.0) -> Envelope:
    """Envelope of observations (n sorted ascending, runtimes t) for a deviation ``delta``.

    ``A_max`` bounds the scale-free envelope, which is unbounded when all observations are
    in the linear section (default ``max(3000, 20 n_max)``, cf. the thesis' A in [1, 3000]).
    ``phase`` (stepwise scalability) builds the envelope as the union of each phase's own.

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending.
    t : array-like of float, shape (M,)
        Runtimes at ``n`` (model units when ``units="paper"``).
    delta : float
        Largest relative deviation of an observation from the true model, in (0, 1).
    units : {"fit", "paper"}, default "fit"
        ``"fit"``: scale-free envelope (the time scale is a third unknown); ``"paper"``:
        runtimes are model units and the envelope is the union of the range pairs.
    phase : array-like of int, shape (M,), optional
        Phase index per observation (stepwise scalability); default: one phase.
    A_max : float, optional
        Upper end of the A grid of the scale-free envelope; default ``max(3000, 20 n_max)``.
    sigma_max : float, default 3000.0
        Upper end of the sigma range of the scale-free envelope.
    grid_size : int, default 1200
        Number of geometric A grid points of the scale-free envelope.
    t_scale : float, default 1.0
        Factor that turns the (normalised) runtimes ``t`` back into the caller's unit, for bands.
    """
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    phase = np.zeros(len(n), int) if phase is None else np.asarray(phase)
    groups = [np.nonzero(phase == p)[0] for p in np.unique(phase)]
    groups = [g for g in groups if len(g) >= 2]
    pairs = None
    if units == "paper":
        parts = []
        for g in groups:
            b = range_pairs(n[g], t[g], delta)
            for c in ("i", "j"):
                b[c] = g[b[c].to_numpy()]
            b["k"] = np.where(b["k"] >= 0, g[np.maximum(b["k"].to_numpy(), 0)], -1)
            parts.append(b)
        pairs = _drop_redundant(pd.concat(parts, ignore_index=True)) if parts else pd.DataFrame(columns=_BOX_COLUMNS)
        bounds = _bound_arrays(pairs)
    else:
        A_max = A_max if A_max is not None else max(3000.0, 20 * n.max())
        A_grid = np.geomspace(1.0, A_max, grid_size)
        parts = [_feasible_intervals(n[g], t[g], delta, A_grid, s_max=sigma_max) for g in groups]
        A_col, s_lo, s_hi = (np.concatenate([p[c] for p in parts]) if parts else np.zeros(0) for c in range(3))
        bounds = {"A_min": A_col, "A_max": A_col, "sigma_min": s_lo, "sigma_max": s_hi}
    if bounds["A_min"].size == 0:
        return Envelope(units, delta, n, t, bounds, (np.nan, np.nan), (np.nan, np.nan), phase=phase,
                        t_scale=t_scale, range_pairs=pairs)
    # nan-skipping like pandas' min/max (the boxes hold no NaN)
    A_range = (float(np.nanmin(bounds["A_min"])), float(np.nanmax(bounds["A_max"])))
    s_range = (float(np.nanmin(bounds["sigma_min"])), float(np.nanmax(bounds["sigma_max"])))
    if units == "fit":
        # the A grid is discrete: widen the range by one grid step each way
        step = (A_max / 1.0) ** (1.0 / (grid_size - 1))
        A_range = (max(1.0, A_range[0] / step), min(A_max, A_range[1] * step))
    return Envelope(units, delta, n, t, bounds, A_range, s_range, phase=phase, t_scale=t_scale, range_pairs=pairs)


def _bound_arrays(boxes: pd.DataFrame) -> dict[str, np.ndarray]:
    """Return the bound columns of a boxes frame as float arrays."""
    return {c: boxes[c].to_numpy(float) for c in ("A_min", "A_max", "sigma_min", "sigma_max")}
