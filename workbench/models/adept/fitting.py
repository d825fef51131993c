"""ADEPT's search object: the envelope, the delta search and the biased per-target fits.

:class:`TargetSearch` holds what :meth:`~workbench.models.adept.Adept.fit` decided once
(observations, time reference, envelope and the final delta) and the settings of the
search; the module-level functions compute from it, and never change it:

- :func:`choose_delta` grows delta until the reference instance fits ([Deshmeh2013] 3.5.1);
- :func:`fit_targets` fits targets: the two-pass biased search (3.5.2), the saturation
  rule of ``saturation="evidence"`` and the next-measurement suggestion (Table 3).

Work that does not depend on the target (envelopes per delta, pass-1 candidates per fixed
point) is memoised in a ``cache`` dict the caller passes: ``fit`` passes the search's own
:attr:`TargetSearch.cache` (filled while fitting, part of the fitted state), later calls a
copy of it, so predicting never changes a fitted model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from workbench.errors import ValidationError
from workbench.models import downey
from workbench.models.adept.envelope import Envelope, fit_envelope
from workbench.models.adept.observations import target_weights
from workbench.models.adept.results import TargetFits
from workbench.models.adept.search import (
    fixed_point_As,
    fixed_point_sigmas,
    grid_argmin,
    pass1_pick,
    profiled_scale,
    relative_model,
    runner_up_pick,
    scale_free_candidates,
    wssre,
)

__all__ = ["SearchSettings", "TargetSearch", "choose_delta", "fit_targets", "saturation_bound", "weights"]

#: targets searched together: pass 1 keeps a (targets x candidates) objective matrix per
#: fixed point for the runner-up rule, so larger requests are split to bound memory
TARGET_CHUNK = 64


@dataclass(frozen=True)
class SearchSettings:
    """The :class:`~workbench.models.adept.Adept` parameters the searches read.

    Attributes
    ----------
    units : {"fit", "paper"}
        Time scale profiled out, or tau = 1 input unit.
    delta : float
        Initial envelope deviation bound.
    q : float
        Weight sensitivity to prediction distance.
    pass1_size, pass2_size : int
        Search resolution.
    window : float
        Pass-2 window (fraction around the pass-1 optimum).
    high_error : float
        Fit-error threshold of "high-fit-error" and the saturation rule's bound.
    runner_up_ratio, runner_up_factor : float
        Table 3's WSSRE ratio and A factor of the runner-up rule.
    saturation : {"evidence", "thesis"}
        The saturation rule.
    horizon : float
        The saturation rule's horizon c (x the largest used observation).
    f_level : float
        The saturation rule's F-test level.
    pass1_spacing : {"linear", "geometric"} or None, default None
        Spacing of the pass-1 A grid; None: by mode (:func:`pass1_grid`).  Variants for
        ``bench/adept_saturation.py``, like the two below.
    bound : {"delta"} or float or None, default None
        The saturation rule's bound: None is ``max(delta_, high_error)``, "delta" is ``delta_``, a
        number x is ``max(delta_, x)``.
    floor : {"horizon", "target"}, default "horizon"
        The refit's floor on A: (c n_top + 1)/2, or (max(c n_top, target) + 1)/2.
    """

    units: str
    delta: float
    q: float
    pass1_size: int
    pass2_size: int
    window: float
    high_error: float
    runner_up_ratio: float
    runner_up_factor: float
    saturation: str
    horizon: float
    f_level: float
    pass1_spacing: str | None = None
    bound: str | float | None = None
    floor: str = "horizon"

    @property
    def paper(self) -> bool:
        """Bool : Whether tau = 1 input unit (``units="paper"``)."""
        return self.units == "paper"


@dataclass(frozen=True)
class TargetSearch:
    """The fitted search of one :class:`~workbench.models.adept.Adept`: what every target's fit reads.

    Attributes
    ----------
    obs : dict of str to numpy.ndarray
        Observation columns (those of ``Adept.observations_``), sorted by n.
    t_ref : float
        Runtime the searches divide by: the largest observed one (fit mode) or 1 (paper mode),
        so that inputs differing only by their unit give the same numbers to the search.
    settings : SearchSettings
        The parameters.
    n_max_fit : float
        No prediction past this allocation (the ambiguous last point, 3.9.1); inf if none.
    envelope : Envelope or None, default None
        The envelope of ``delta`` (None until :func:`choose_delta` has set it).
    delta : float, default nan
        The deviation bound finally used.
    cache : dict, default {}
        Memoised target-independent work (module docstring).
    """

    obs: dict
    t_ref: float
    settings: SearchSettings
    n_max_fit: float
    envelope: Envelope | None = None
    delta: float = float("nan")
    cache: dict = field(default_factory=dict, compare=False, repr=False)


def used(obs: dict) -> np.ndarray:
    """Return which observations the envelope is built on: weighted, not reserved for one target.

    Parameters
    ----------
    obs : dict
        Observation columns.

    Returns
    -------
    numpy.ndarray
        Boolean mask.
    """
    return (obs["weight_factor"] > 0) & np.isnan(obs["only_for_target"])


def envelope_for(s: TargetSearch, delta: float, cache: dict) -> Envelope:
    """Return the envelope of the used observations for ``delta`` (memoised in ``cache``).

    Parameters
    ----------
    s : TargetSearch
        The search.
    delta : float
        Deviation bound.
    cache : dict
        Memo.

    Returns
    -------
    Envelope
        Of the runtimes relative to ``s.t_ref``.
    """
    key = ("envelope", delta)
    if key not in cache:
        obs, mask = s.obs, used(s.obs)
        cache[key] = fit_envelope(obs["n"][mask], obs["t"][mask] / s.t_ref, delta, s.settings.units,
                                  phase=obs["phase"][mask], t_scale=s.t_ref)
    return cache[key]


def choose_delta(s: TargetSearch) -> TargetSearch:
    """Grow delta until the reference instance fits every used observation within it.

    The reference instance has uniform weights and is fixed at the largest allocation
    ([Deshmeh2013] section 3.5.1).

    Parameters
    ----------
    s : TargetSearch
        The search without envelope.

    Returns
    -------
    TargetSearch
        ``s`` with its envelope and final delta (sharing ``s.cache``).

    Raises
    ------
    ValidationError
        If no instance explains the observations even with delta = 0.95.
    """
    mask = used(s.obs)
    n, t = s.obs["n"][mask], s.obs["t"][mask] / s.t_ref
    delta = float(s.settings.delta)
    found = None
    for _ in range(60):
        env = envelope_for(s, delta, s.cache)
        if not env.empty:
            found = dataclasses.replace(s, envelope=env, delta=delta)
            ref = search(found, np.array([n.max()]), s.cache, uniform=True)
            err = ref["max_rel_error"][0]
            if err <= delta:
                break
            delta = min(0.95, max(delta + 0.01, err))
        else:
            delta = min(0.95, delta * 1.25 + 0.01)
        if delta >= 0.95:
            break
    if found is None:
        raise ValidationError(
            "no Downey instance explains these observations even with delta = 0.95 "
            f"(n = {n.tolist()}, t = {t.tolist()}): the runtimes do not follow a speedup curve")
    return found


def weights(s: TargetSearch, targets: np.ndarray, uniform: bool = False) -> np.ndarray:
    """Return the effective fit weights per target, shape (K, M).

    [Deshmeh2013] section 3.5.2 W_i (or uniform ones) times the anomaly, phase and
    cross-size factors.

    Parameters
    ----------
    s : TargetSearch
        The search.
    targets : numpy.ndarray
        Targets, shape (K,).
    uniform : bool, default False
        Uniform instead of distance weights (the reference instance).

    Returns
    -------
    numpy.ndarray
        Non-negative weights.
    """
    obs = s.obs
    n = obs["n"]
    W = np.ones((len(targets), len(n))) if uniform else target_weights(n, targets, s.settings.q)
    W = W * obs["weight_factor"]
    only = obs["only_for_target"]
    W = np.where(np.isnan(only) | (only[None, :] == targets[:, None]), W, 0.0)
    ph = obs["phase"]
    if ph.max() > 0:
        closest = np.argmin(np.abs(targets[:, None] - n[None, :]), axis=1)
        W = np.where(ph[None, :] == ph[closest][:, None], W, 0.0)
    return np.maximum(W, 0.0)


def pass1_grid(settings: SearchSettings, A_lo: float, A_hi: float) -> np.ndarray:
    """Return the pass-1 A values.

    Geometric for ``saturation="evidence"`` in fit mode, so every A gets the same relative
    resolution.  The thesis' linear grid over [A_lo, max(3000, 20 n_max)] has steps of ~0.6
    whatever the unit of n: too coarse for curves observed on small n (1-4 GPUs, or nodes
    counted in units of 16) to find their optimum, which the +-15 % pass-2 window cannot
    recover -- the same curve gave a saturating fit with n in nodes and a non-saturating one
    with n in units of 16 nodes.  Paper mode and ``saturation="thesis"`` keep the linear
    grid, so they reproduce the thesis' results exactly.

    Parameters
    ----------
    settings : SearchSettings
        The parameters.
    A_lo, A_hi : float
        The envelope's A range.

    Returns
    -------
    numpy.ndarray
        ``settings.pass1_size`` values.
    """
    linear = settings.paper or settings.saturation == "thesis"
    if settings.pass1_spacing is not None:
        linear = settings.pass1_spacing == "linear"
    if linear:
        return np.linspace(A_lo, A_hi, settings.pass1_size)
    return np.geomspace(A_lo, A_hi, settings.pass1_size)


def _paper_candidates(n_f, t_f, A_grid, env):
    """Paper-mode pass-1 candidates: the fixed-point curve on the A grid and across each range pair."""
    b = env.bounds
    A_grid = A_grid[((A_grid[:, None] >= b["A_min"]) & (A_grid[:, None] <= b["A_max"])).any(axis=1)]
    roots = fixed_point_sigmas(n_f, t_f, A_grid, paper=True, s_max=env.sigma_range[1])
    Ac = np.broadcast_to(A_grid[:, None], roots.shape)[np.isfinite(roots)]
    sc = roots[np.isfinite(roots)]
    # where the fixed-point curve crosses each range pair, thin ones included
    levels = np.linspace(b["sigma_min"], np.minimum(b["sigma_max"], 1e6), 5)
    A_x = fixed_point_As(n_f, t_f, levels)  # (5, B, 2)
    s_x = np.broadcast_to(levels[..., None], A_x.shape)
    ok = np.isfinite(A_x)
    Ac, sc = np.concatenate([Ac, A_x[ok]]), np.concatenate([sc, s_x[ok]])
    keep = env.contains(Ac, sc) if len(Ac) else np.zeros(0, bool)
    return Ac[keep], sc[keep]


def pass1_candidates(s: TargetSearch, n, t, fi: int, gi: int, env: Envelope, cache: dict) -> tuple:
    """Pass-1 candidates through fixed point ``fi`` (ratio to ``gi`` in fit mode) inside ``env``.

    They do not depend on the target, so each is computed once per ``cache`` and shared by
    every target using it.

    Parameters
    ----------
    s : TargetSearch
        The search.
    n, t : numpy.ndarray
        Observations (t relative to ``s.t_ref``).
    fi, gi : int
        Positions of the fixed point and of the next-closest point.
    env : Envelope
        The envelope searched.
    cache : dict
        Memo.

    Returns
    -------
    tuple of numpy.ndarray
        (A, sigma, model values x of shape (C, M), x^2).
    """
    key = ("candidates", fi, gi, env.delta)
    if key in cache:
        return cache[key]
    grid_key = ("grid", env.delta)  # one grid per envelope, shared by its fixed points
    if grid_key not in cache:
        cache[grid_key] = pass1_grid(s.settings, *env.A_range)
    A_grid = cache[grid_key]
    if not s.settings.paper:
        phase = np.zeros(len(env.n), int) if env.phase is None else env.phase
        Ac, sc = scale_free_candidates(n[fi], t[fi], n[gi], t[gi], A_grid, env.sigma_range[1], env.n, env.t,
                                       phase, env.delta)
    else:
        Ac, sc = _paper_candidates(n[fi], t[fi], A_grid, env)
    if len(Ac) == 0:  # no instance through the fixed point lies in the envelope
        Ac, sc = env.bound_instances()
    x = relative_model(n, t, Ac, sc)
    cache[key] = Ac, sc, x, x * x
    return cache[key]


def _fixed_points(obs, n, targets, W):
    """Return the fixed point (the used observation closest to the target) and the next-closest one.

    Down-weighted anomalies are passed over while two full-weight points remain: a curve
    forced through an anomaly would undo its weight reduction.
    """
    full = obs["weight_factor"] >= 1
    penalty = np.where(W > 0, 0.0, np.inf) + np.where(full, 0.0, 1e12)
    if ((W > 0) & full).sum(axis=1).min() < 2:
        penalty = np.where(W > 0, 0.0, np.inf)
    dist = np.abs(targets[:, None] - n[None, :]) + penalty
    order = np.argsort(dist, axis=1, kind="stable")
    return order[:, 0], order[:, 1]


def _pass1(s, n, t, W, f_idx, g_idx, A_floor, env, cache):
    """Pass 1 for every target: the best candidate through its fixed point, per (fixed, next) pair."""
    K, M = W.shape
    pass1 = np.zeros((K, 2))
    best1 = np.full(K, np.inf)
    groups = []
    pair = f_idx * M + g_idx  # (fixed point, next-closest point) as one number
    for code in np.unique(pair):
        fi, gi = divmod(int(code), M)
        members = np.flatnonzero(pair == code)
        Ac, sc, x, x2 = pass1_candidates(s, n, t, fi, gi, env, cache)
        Wm = W[members]
        # the sums over the observations as matrix products; the rest fused per target
        # (pass1_pick: objective, ties broken towards the largest A)
        floor = A_floor[members] if A_floor is not None else np.full(len(members), -np.inf)
        f, j, fmin = pass1_pick(Wm @ x.T, Wm @ x2.T, Wm.sum(axis=1), Ac, floor, s.settings.paper)
        pass1[members] = np.stack([Ac[j], sc[j]], axis=1)
        best1[members] = np.where(np.isfinite(fmin), wssre(x[j], Wm, s.settings.paper), np.inf)
        groups.append((members, Ac, sc, f))
    return pass1, best1, groups


def search(s: TargetSearch, targets: np.ndarray, cache: dict, uniform: bool = False, A_floor=None,
           env: Envelope | None = None) -> dict[str, np.ndarray]:
    """Two-pass search ([Deshmeh2013] section 3.5.2) for all ``targets`` at once.

    Parameters
    ----------
    s : TargetSearch
        The search (with its envelope).
    targets : numpy.ndarray
        Targets, shape (K,).
    cache : dict
        Memo of pass-1 candidates.
    uniform : bool, default False
        Uniform weights (the reference instance of :func:`choose_delta`).
    A_floor : numpy.ndarray or None, default None
        One value per target: only instances with A >= A_floor are considered (the
        non-saturating refit of ``saturation="evidence"``); a target without such an instance
        through its fixed point in the envelope gets objective and error inf.
    env : Envelope or None, default None
        Search in this envelope instead of ``s.envelope``.

    Returns
    -------
    dict of str to numpy.ndarray
        Columns target, A, sigma, scale, wssre, max_rel_error, fixed_point, pass1_A,
        pass1_sigma, runner_up_A, runner_up_sigma, runner_up_wssre, n_used.
    """
    st = s.settings
    n, t = s.obs["n"], s.obs["t"] / s.t_ref
    env = s.envelope if env is None else env
    W = weights(s, targets, uniform)
    f_idx, g_idx = _fixed_points(s.obs, n, targets, W)
    pass1, best1, groups = _pass1(s, n, t, W, f_idx, g_idx, A_floor, env, cache)
    w = st.window
    sA0, sA1 = env.A_range
    ss0, ss1 = env.sigma_range
    A_low = pass1[:, 0] * (1 - w) if A_floor is None else np.maximum(pass1[:, 0] * (1 - w), A_floor)
    lims = (
        np.clip(A_low, sA0, sA1), np.clip(pass1[:, 0] * (1 + w), sA0, sA1),
        np.clip(pass1[:, 1] * (1 - w), ss0, ss1), np.clip(pass1[:, 1] * (1 + w), ss0, ss1),
    )
    res = grid_argmin(n, t, W, *lims, st.pass2_size, st.pass2_size, paper=st.paper)
    better = res.objective <= best1
    A = np.where(better, res.A, pass1[:, 0])
    sigma = np.where(better, res.sigma, pass1[:, 1])
    obj = np.where(better, res.objective, best1)
    x = relative_model(n, t, A, sigma)
    tau = profiled_scale(x, W, st.paper)
    err = np.where(W > 0, np.abs(tau[:, None] * x - 1), 0.0).max(axis=1)
    if A_floor is not None:  # no pass-1 candidate above the floor: no constrained fit
        obj, err = np.where(np.isfinite(best1), obj, np.inf), np.where(np.isfinite(best1), err, np.inf)
    # runner-up (Table 3): WSSRE within 10 % of the best with A differing by > 1.5x
    runner = np.full((len(targets), 3), np.nan)
    for members, Ac, sc, f in groups:
        j, has = runner_up_pick(f, Ac, A[members], obj[members], float(st.runner_up_factor),
                                float(st.runner_up_ratio))
        runner[members[has]] = np.stack([Ac[j], sc[j], f[np.arange(len(members)), j]], axis=1)[has]
    return {
        "target": targets, "A": A, "sigma": sigma, "scale": tau * s.t_ref, "wssre": obj, "max_rel_error": err,
        "fixed_point": n[f_idx], "pass1_A": pass1[:, 0], "pass1_sigma": pass1[:, 1],
        "runner_up_A": runner[:, 0], "runner_up_sigma": runner[:, 1], "runner_up_wssre": runner[:, 2],
        "n_used": (W > 0).sum(axis=1),
    }


def saturation_bound(s: TargetSearch) -> float:
    """Deviation every used observation must stay within for a non-saturating refit to replace a saturating fit.

    The "high-fit-error" threshold, or ``delta_`` if the data needed a larger one (the
    saturating fit itself may deviate by up to ``delta_``).

    Parameters
    ----------
    s : TargetSearch
        The search.

    Returns
    -------
    float
        ``max(delta_, high_error)`` (or the variant of ``settings.bound``).
    """
    bound = s.settings.bound
    if bound is None:
        return max(s.delta, s.settings.high_error)
    return s.delta if bound == "delta" else max(s.delta, float(bound))


def beyond_grid(s: TargetSearch, cache: dict) -> np.ndarray:
    """Candidate allocations for a next measurement: up to 16 x the largest observation.

    Parameters
    ----------
    s : TargetSearch
        The search.
    cache : dict
        Memo.

    Returns
    -------
    numpy.ndarray
        200 geometric allocations (rounded, distinct).
    """
    if "beyond" not in cache:
        n_max = s.obs["n"].max()
        cache["beyond"] = np.unique(np.round(np.geomspace(n_max + 1, 16 * n_max, 200)))
    return cache["beyond"]


def _refit_unsaturated(s, out, near, n_top, bound, cache):
    """Non-saturating refits of the targets ``near``; which of them the data allow (F-test, bound)."""
    targets = out["target"]
    env = s.envelope if bound <= s.delta else envelope_for(s, bound, cache)
    # A >= (N + 1)/2 puts the flat piece at or past N = horizon for every sigma: 2A - 1
    # (low variance), A + (A - 1) sigma >= 2A - 1 (high variance).  Past the horizon the
    # refit may still saturate: the data say nothing there.
    horizon = s.settings.horizon * n_top[near]
    if s.settings.floor == "target":  # variant: the refit may not saturate before its own target either
        horizon = np.maximum(horizon, targets[near])
    floor = (horizon + 1) / 2
    free = search(s, targets[near], cache, A_floor=floor, env=env)
    # With more observations than parameters, the saturating fit's residuals measure the
    # noise: the data also demand saturation when the refit is significantly worse than
    # that (F-test, 5 %), e.g. exact model data.  With 3 points (fit mode) there is no
    # residual to judge by and only the bound decides.
    dof = free["n_used"] - (2 if s.settings.paper else 3)
    sat_obj = out["wssre"][near]
    with np.errstate(divide="ignore", invalid="ignore"):
        crit = special.fdtri(1, np.maximum(dof, 1), s.settings.f_level)  # F(1, dof) quantile
        worse = (free["wssre"] - sat_obj) * dof > crit * sat_obj
    return free, (free["max_rel_error"] <= bound) & ~((dof > 0) & worse)


def check_saturation(s: TargetSearch, out: dict, cache: dict) -> dict:
    """Apply ``saturation="evidence"`` to the fits ``out`` (in place; returned).

    Replace fits that saturate near the observed range without the data demanding it by the
    best non-saturating fit (the class docstring of :class:`~workbench.models.adept.Adept`).

    Parameters
    ----------
    s : TargetSearch
        The search.
    out : dict
        Columns of :func:`search`; gains saturation_n, saturation, saturating_A,
        saturating_sigma and saturation_suggested_n.
    cache : dict
        Memo.

    Returns
    -------
    dict
        ``out``.
    """
    targets = out["target"]
    n_top = np.where(weights(s, targets) > 0, s.obs["n"][None, :], 0.0).max(axis=1)
    out["saturation_n"] = downey.max_useful_allocation(out["A"], out["sigma"])
    out["saturation"] = np.full(targets.size, "", dtype=object)
    for col in ("saturating_A", "saturating_sigma", "saturation_suggested_n"):
        out[col] = np.full(targets.size, np.nan)
    near = np.nonzero(out["saturation_n"] <= s.settings.horizon * n_top)[0]
    if s.settings.saturation == "thesis" or near.size == 0:
        return out
    bound = saturation_bound(s)
    free, ok = _refit_unsaturated(s, out, near, n_top, bound, cache)
    keep, swap = near[~ok], near[ok]
    out["saturation"][keep] = "near-range"
    # confirming the flat part needs a run where it begins, if that is past the data
    sat_n = out["saturation_n"][keep]
    out["saturation_suggested_n"][keep] = np.where(sat_n > n_top[keep], np.ceil(sat_n), np.nan)
    if swap.size:
        old = np.stack([out["A"][swap], out["sigma"][swap], out["scale"][swap]], axis=1)
        out["saturation"][swap] = "undetermined"
        out["saturating_A"][swap], out["saturating_sigma"][swap] = old[:, 0], old[:, 1]
        for col, v in free.items():
            if col != "target":
                out[col][swap] = v[ok]
        # where the two fits differ by more than twice the bound, one run tells them apart
        grid = beyond_grid(s, cache)
        T_sat = old[:, 2:] * downey.runtime(grid, old[:, :1], old[:, 1:2])
        T_free = free["scale"][ok, None] * downey.runtime(grid, free["A"][ok, None], free["sigma"][ok, None])
        apart = np.abs(T_sat / T_free - 1) > 2 * bound
        out["saturation_suggested_n"][swap] = np.where(apart.any(axis=1), grid[np.argmax(apart, axis=1)], np.nan)
    return out


def suggest(s: TargetSearch, out: dict, cache: dict) -> np.ndarray:
    """Allocation beyond the observed range where best and runner-up differ most (Table 3).

    Parameters
    ----------
    s : TargetSearch
        The search.
    out : dict
        Per-target fit columns.
    cache : dict
        Memo.

    Returns
    -------
    numpy.ndarray
        One allocation per target, NaN for targets without a runner-up.
    """
    n, t = s.obs["n"], s.obs["t"] / s.t_ref
    grid = beyond_grid(s, cache)
    sug = np.full(out["target"].size, np.nan)
    has = ~np.isnan(out["runner_up_A"])
    if not has.any():
        return sug
    A, sig, rA, rs = (out[c][has] for c in ("A", "sigma", "runner_up_A", "runner_up_sigma"))
    Tb = downey.runtime(grid[None, :], A[:, None], sig[:, None])
    Tr = downey.runtime(grid[None, :], rA[:, None], rs[:, None])
    if not s.settings.paper:  # compare shapes at their own best (uniform) scales
        xr = relative_model(n, t, rA, rs)
        Tr = Tr * (xr.sum(-1) / (xr * xr).sum(-1))[:, None]
        Tb = Tb * out["scale"][has][:, None] / s.t_ref
    sug[has] = grid[np.argmax(np.abs(Tb / Tr - 1), axis=1)]
    return sug


def _fit_chunk(s, targets, cache):
    out = check_saturation(s, search(s, targets, cache), cache)
    out["variance"] = np.where(out["sigma"] <= 1, "low", "high").astype(object)
    beyond = out["target"] > s.n_max_fit
    out["prediction"] = np.where(beyond, np.nan, out["scale"] * downey.runtime(out["target"], out["A"], out["sigma"]))
    out["speedup"] = np.where(beyond, np.nan, downey.speedup(out["target"], out["A"], out["sigma"]))
    out["suggested_n"] = suggest(s, out, cache)
    return out


def fit_targets(s: TargetSearch, targets: np.ndarray, cache: dict) -> TargetFits:
    """Fit every distinct target: search, saturation rule, predictions and suggestions.

    Parameters
    ----------
    s : TargetSearch
        The search (with its envelope).
    targets : numpy.ndarray
        Processor counts (checked: finite, >= 1).
    cache : dict
        Memo: ``s.cache`` while fitting, a copy of it afterwards.

    Returns
    -------
    TargetFits
        One row per distinct target.  With no target, the columns of the largest observation's
        fit with no row.
    """
    new = np.unique(targets)
    if new.size == 0:
        some = fit_targets(s, s.obs["n"][-1:], cache)
        return TargetFits(some.empty())
    parts = [_fit_chunk(s, chunk, cache) for chunk in np.array_split(new, int(np.ceil(new.size / TARGET_CHUNK)))]
    return TargetFits({col: np.concatenate([p[col] for p in parts]) for col in parts[0]})
