"""The ADEPT estimator ([Deshmeh2013] chapter 3).

Envelope, biased per-target fits, anomaly handling, reliability judgment and
cross-problem-size prediction.

Units (the decision is recorded in docs/decisions/adept.md).  The thesis fits (A, sigma) to
raw runtimes, which silently fixes the time unit (T(1) = A seconds): the fitted A and every
verdict then change if the same data are
given in milliseconds.  ``units="fit"`` (default) models t(n) = tau T(n; A, sigma) and profiles
the scale tau out in closed form (tau* = sum w x / sum w x^2 for the weighted squared
relative errors), so every result except the predicted runtimes (which scale with the input)
is invariant to the unit.  ``units="paper"`` fixes tau = 1 input unit and reproduces the
thesis literally.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, emit_warnings
from workbench.models import downey
from workbench.models.adept.anomalies import AnomalyReport, detect_anomalies
from workbench.models.adept.envelope import Envelope, fit_envelope
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
from workbench.validation import check_fitted, require_span

__all__ = ["Adept", "WARNING_KINDS", "aggregate_repeats", "target_weights"]


#: The kinds of ADEPT's :class:`~workbench.errors.ModelWarning` s ([Deshmeh2013] section 3.10,
#: Table 3, and the data checks) and what each means.  Fit-level ones are emitted by ``fit``;
#: per-target ones are in ``warnings_`` / ``warnings_for``.
WARNING_KINDS = {
    "dropped-repeat": "repeated runs were dropped as obvious outliers",
    "sizes-differ": "cross-size: the runtime ratio target/base varies with n, the sizes behave differently (3.15)",
    "declining-or-anomalous-last-point":
        "the last observation looks anomalous: excluded, no prediction past it (3.9.1)",
    "anomaly": "an observation is anomalous and its weight is scaled down (3.9.2)",
    "unresolved-anomaly": "anomaly candidates could not be resolved",
    "stepwise": "stepwise scalability: each prediction uses only the phase of its closest observation (3.9.3)",
    "specially-optimised": "the application appears optimised for some allocations: only those are used (3.9.3)",
    "superlinear-speedup": "superlinear speedup, which the Downey model cannot represent",
    "delta-increased": "delta was increased so that a model instance explains every observation (3.5.1)",
    "linear-section": "all observations lie on the first, near-linear piece: the saturation point is not constrained",
    "high-fit-error": "the fitted instances deviate from an observation by more than the threshold (3.10)",
    "saturation-undetermined": ("the best fit saturated near the observed range, the data did not demand it, and a "
                                "non-saturating fit is used"),
    "saturation-near-range": "a kept fit's flat piece begins within 3x the largest observation: flat predictions past "
                             "it",
    "runner-up": "another instance with a very different A explains the observations nearly as well",
}

#: Largest processor count ADEPT accepts in observations: 2^53.
MAX_PROCESSORS = float(2**53)


def _or_none(x):
    return float(x) if np.isfinite(x) else None


def _as_1d(name, values) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{name} must be numeric: {exc}") from None
    if arr.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def _check_observations(n, t, label="observations"):
    n = _as_1d("n (processor counts)", n)
    t = _as_1d("t (runtimes)", t)
    if len(n) != len(t):
        raise ValidationError(f"{label}: n has {len(n)} values but t has {len(t)}")
    if len(n) == 0:
        raise ValidationError(f"{label}: no observations given")
    if not np.all(np.isfinite(n)):
        raise ValidationError(f"{label}: processor counts contain NaN or infinity at positions "
                              f"{np.nonzero(~np.isfinite(n))[0].tolist()}")
    if not np.all(np.isfinite(t)):
        raise ValidationError(f"{label}: runtimes contain NaN or infinity at positions "
                              f"{np.nonzero(~np.isfinite(t))[0].tolist()}")
    if np.any(n < 1):
        raise ValidationError(f"{label}: processor counts must be >= 1, got {n[n < 1].tolist()} at positions "
                              f"{np.nonzero(n < 1)[0].tolist()}")
    if np.any(n > MAX_PROCESSORS):
        raise ValidationError(f"{label}: processor counts must be at most 2^53 = {MAX_PROCESSORS:g} (the largest "
                              f"integer a float holds exactly; ADEPT searches A up to 20 times the largest count), "
                              f"got {n[n > MAX_PROCESSORS][:5].tolist()} at positions "
                              f"{np.nonzero(n > MAX_PROCESSORS)[0][:5].tolist()}")
    if np.any(t <= 0):
        raise ValidationError(f"{label}: runtimes must be positive, got {t[t <= 0].tolist()} at positions "
                              f"{np.nonzero(t <= 0)[0].tolist()}")
    require_span(t, label)
    return n, t


def _check_size(label, distinct, limit):
    """Enforce the resource limit on distinct processor counts (see :attr:`Adept.MAX_ALLOCATIONS`)."""
    if distinct > limit:
        raise ValidationError(
            f"{label}: ADEPT fits at most {limit} distinct processor counts, got {distinct}. Its envelope and "
            "biased searches grow with the square to the cube of that number (pairs of observations per "
            "sigma segment, one fit per target), so larger inputs are refused rather than left to run for "
            "minutes. Repeated runs at the same n are averaged and count once; select the allocations nearest "
            "the ones you predict from (e.g. the powers of two), or use a model without this limit "
            "(workbench.models.scaling: amdahl, usl, downey-lm, pmnf)")


def _check_growth(label, obs, delta):
    """Refuse runtimes that never fall as n grows and end more than ``delta`` above their start.

    Such runs (sorted, aggregated ``obs``) cannot be a speedup curve.  A rise within delta is
    noise on a flat curve: the thesis' ambiguous last point handles it ([Deshmeh2013] section
    3.9.1).
    """
    t = np.asarray(obs["t"])
    if len(t) >= 2 and np.all(np.diff(t) >= 0) and t[-1] > t[0] * (1 + delta):
        n = np.asarray(obs["n"])
        raise ValidationError(
            f"{label}: the runtimes grow with n (never falling, from t = {t[0]:g} at n = {n[0]:g} to t = {t[-1]:g} "
            f"at n = {n[-1]:g}, more than delta = {delta:g} above): there is no speedup for ADEPT to model. "
            "Downey's model has no slowdown (its runtime never rises with n), so it has no prediction to offer; "
            "USL (workbench.models.scaling.USLScaling) models retrograde scaling")


def _group_medians(values, gid, starts, counts):
    """Median of each contiguous group (mean of the two middle values for an even count)."""
    ranked = values[np.lexsort((values, gid))]
    return (ranked[starts + (counts - 1) // 2] + ranked[starts + counts // 2]) / 2


def aggregate_repeats(n, t, outlier_rel=0.25, outlier_mads=3.0):
    """Average repeated runs at the same n after dropping obvious outliers ([Deshmeh2013] section 3.5.2).

    A run is an obvious outlier (only with >= 3 runs at that n) when it deviates from the
    group's median by more than ``outlier_rel`` of the median *and* by more than
    ``outlier_mads`` scaled median absolute deviations.  Returns (observations frame with
    n, t, runs, dropped; dropped runs frame with n, t).
    """
    obs, gone = _aggregate(n, t, outlier_rel, outlier_mads)
    return pd.DataFrame(obs), pd.DataFrame(gone)


def _aggregate(n, t, outlier_rel=0.25, outlier_mads=3.0) -> tuple[dict, dict]:
    """:func:`aggregate_repeats` as columns (dicts of arrays)."""
    n, t = np.asarray(n, float), np.asarray(t, float)
    order = np.argsort(n, kind="stable")  # groups contiguous, runs in their given order
    ns, ts = n[order], t[order]
    keys, starts, counts = np.unique(ns, return_index=True, return_counts=True)
    if keys.size == n.size:  # no repeated runs: nothing to drop or average
        return ({"n": ns, "t": ts, "runs": np.ones(n.size, np.int64), "dropped": np.zeros(n.size, np.int64)},
                {"n": n[:0], "t": t[:0]})
    # averaged relative to a power of two near the largest runtime (exact), so that sums of
    # runtimes near the largest float do not overflow
    big = np.max(t) > np.finfo(float).max / len(t)
    scale = float(np.ldexp(1.0, int(np.frexp(np.max(t))[1]) - 1)) if big else 1.0
    ts = ts / scale
    gid = np.repeat(np.arange(keys.size), counts)
    med = _group_medians(ts, gid, starts, counts)[gid]
    dev = np.abs(ts - med)
    mad = 1.4826 * _group_medians(dev, gid, starts, counts)[gid]
    out = (counts[gid] >= 3) & (dev > outlier_rel * med) & (dev > outlier_mads * mad)
    runs = np.bincount(gid[~out], minlength=keys.size)
    # the sums pandas' grouped mean of sorted groups takes (np.add.reduceat), as before
    mean = np.add.reduceat(ts[~out], np.cumsum(runs) - runs) / runs
    gone = np.sort(order[out])  # dropped runs in their given order
    return {"n": keys, "t": mean * scale, "runs": runs, "dropped": counts - runs}, {"n": n[gone], "t": t[gone]}


def target_weights(n_obs, targets, q) -> np.ndarray:
    """W_i = q max_j |n* - n_j| - |n* - n_i| for every target n* ([Deshmeh2013] section 3.5.2); shape (K, M)."""
    d = np.abs(np.asarray(targets, float)[:, None] - np.asarray(n_obs, float)[None, :])
    return q * d.max(axis=1, keepdims=True) - d


class Adept(BaseEstimator):
    """ADEPT scalability predictor ([Deshmeh2013] chapter 3), scikit-learn style.

    ``get_params``/``set_params``, so ``sklearn.base.clone`` copies every parameter.

    Parameters
    ----------
    delta : initial envelope deviation bound (fraction); increased until the reference
        instance fits within it ([Deshmeh2013] section 3.5.1).  The value used is ``delta_``.
    q : weight sensitivity to prediction distance ([Deshmeh2013] section 3.5.2; 2 in the thesis).
    epsilon, theta : anomaly sensitivity and deviation tolerance ([Deshmeh2013] section 3.9; 0.1 and 5).
    gamma : cross-size threshold on base-size anomaly magnitudes ([Deshmeh2013] section 3.14; 5).
    units : "fit" (unit-invariant, tau profiled) or "paper" (tau = 1 input unit, the thesis).
    targets : allocations fitted during ``fit`` (their warnings land in ``warnings_``);
        default: the observed n, powers of two up to 4 n_max and 1.5-4 x n_max.
    pass1_size, pass2_size, window : search resolution (5,000 A values; 500 x 500 within
        +-15 %, the thesis' values).
    high_error : fit-error threshold for the "high-fit-error" warning (the thesis uses 10 %;
        the initial ``delta`` if larger); also the saturation rule's bound (below).
    runner_up_ratio, runner_up_factor : Table 3's 1.1 (WSSRE) and 1.5 (A) thresholds.
    size_ratio_tolerance : cross-size runtime ratios may vary by this fraction before the
        "sizes-differ" warning.
    saturation : "evidence" (default) or "thesis".  Whether a fit may predict that the
        speedup stops near the observed range on the strength of small deviations (below).
        "thesis" is the thesis' (and this class's earlier) behaviour, bit for bit: the best
        WSSRE fit is used whatever it predicts, and the pass-1 A grid is linear.  "evidence"
        in fit mode also searches pass 1 on a geometric A grid, so that n counted in other
        units (nodes vs groups of 16 nodes) gets the same relative resolution.

    Saturation rule (``saturation="evidence"``)
    -------------------------------------------
    With 3-4 runtimes, Downey's model can often reach its flat piece (speedup = A from
    n_sat = 2A - 1, or A + (A - 1) sigma for sigma > 1) right after the largest observation
    by reading a deviation of a few percent as the onset of saturation; the prediction is then
    flat for every larger allocation (e.g. 2054/1027/524 s at 16/32/64 nodes: A = 62.7,
    sigma = 0, 521 s at 128-512 nodes where 278/149/92 s were measured).  For every target
    whose best fit has n_sat <= c n_top (n_top: its largest used observation, c = 3):

    1. refit with A >= (c n_top + 1)/2, which keeps n_sat >= c n_top for every sigma (same
       search, the floor applied to the pass-1 candidates and the pass-2 window), in the
       envelope of the bound below;
    2. if the refit explains every used observation within the bound max(``delta_``,
       ``high_error``) (10 % by default: the error above which ADEPT itself reports a
       "high-fit-error"), and -- when there are more observations than parameters -- its
       WSSRE is not significantly larger than the saturating fit's (F-test at 5 %, one
       numerator degree of freedom: exact model data keep their saturating fit), the data do
       not demand saturation: the refit is used and a "saturation-undetermined" warning
       suggests the allocation where the two fits differ by more than twice the bound;
    3. otherwise the saturating fit is kept with a "saturation-near-range" warning, so a
       flat extrapolation is never silent.

    How c, the bound and the floor were chosen (``bench/adept_saturation.py``, 152 real
    curves; k = 3 (4) smallest allocations fitted, 516 (364) larger ones predicted; results in
    ``bench/results/adept_saturation.md``): with "thesis", 28 % (25 %) of the predictions
    were flat and the median PA was 81.0 (84.7), 202 (98) errors > 30 %.  c = 1.5 changes
    little (34 % flat: sigma ~ 0 fits with A ~ n_top have n_sat = 2A - 1 ~ 2 n_top); c = 2
    gives median PA 84.8 (87.3), 13 % (20 %) flat; c = 2.5-3 also catches the fits with A
    just above n_top (flat without a saturation warning: 3 % -> 1 % (2 % -> 0 %)) at the
    same accuracy, 85.2 (87.1), 153 (77) errors > 30 %; c = 4 is slightly worse (85.1,
    86.7).  Bound ``delta_`` alone (5 %): 84.4 (86.6), 17 % (24 %) flat; 15 %: 86.2 (87.8)
    -- 10 % is kept because it is ADEPT's own acceptance threshold, which the user can
    change with ``high_error``.  A floor that also keeps the refit rising up to its target
    did worse (85.1 (86.6), 164 (86) errors > 30 %): beyond c n_top the data say nothing
    either way.  The F-test changes nothing at k = 3 (no residual degree of freedom) and
    little at k = 4 (77 instead of 75 errors > 30 %).  No one source drives this: median PA
    "thesis" -> "evidence", k3 / k4: Castro 22.6 -> 78.1 / 88.3 -> 91.3, ARCHER2 83.4 -> 82.8
    / 51.4 -> 78.9, Gunrock 90.9 -> 91.9 / 93.2 -> 93.8, archer-benchmarks 67.1 -> 77.1 /
    75.2 -> 78.8, and leaving any one source out gives the same ranking of the variants.
    61 % (68 %) of the errors > 30 % carry a saturation warning, the rest "linear-section".

    Limits
    ------
    The envelope costs O(M^3) per A column and every target is its own two-pass search over
    the M distinct processor counts (M^2 per candidate column), so ADEPT refuses, with a
    ValidationError saying what to do, more than ``MAX_ALLOCATIONS`` = 32 distinct processor
    counts (repeated runs at one n are averaged first and count once; the real curves of the
    scaling corpus have 5-11) and more than ``MAX_TARGETS`` = 500 distinct targets per
    ``predict``/``explain`` call or in ``targets``.  At the limit a fit takes ~0.1-0.3 s of
    CPU and < 150 MB above the interpreter, and each target ~4 ms (2 cores, 2026).  Runtimes that grow with n
    (never falling, the last more than ``delta`` above the first) are refused too: Downey's
    model has no slowdown, so it has nothing to predict there.  A smaller rise, or a last
    point slower than the one before it, is the thesis' ambiguous last point instead (3.9.1:
    excluded from the fit, NaN predictions past it, a "declining-or-anomalous-last-point"
    warning).  Processor counts above 2^53 and runtimes spanning more than 1e100 are refused.

    Fitted attributes
    -----------------
    observations_ : DataFrame n, t, runs, dropped, kind ("observed"/"guiding"),
        weight_factor, phase — the points the fits use.
    delta_ : deviation bound finally used.
    envelope_ : :class:`Envelope`.
    anomalies_ : :class:`AnomalyReport`.
    warnings_ : list of :class:`~workbench.errors.ModelWarning`.
    fits_ : DataFrame, one row per fitted target: target, A, sigma, scale, wssre,
        max_rel_error, fixed_point, variance ("low"/"high"), prediction, speedup,
        runner_up_A, runner_up_sigma, runner_up_wssre, suggested_n, pass1_A, pass1_sigma,
        saturation_n (where the best fit's flat piece begins), saturation ("",
        "undetermined" or "near-range"), saturating_A, saturating_sigma (the replaced fit),
        saturation_suggested_n.
    """

    #: saturation="evidence": c, the horizon (x the largest used observation) within which a
    #: fit's saturation is checked, and the F-test level (class docstring: how they were chosen)
    _SATURATION_HORIZON = 3.0
    _SATURATION_F_LEVEL = 0.95
    #: Resource limits (see "Limits" above): distinct processor counts per fit (base and target
    #: sizes together in cross-size mode) and distinct targets per prediction call.
    MAX_ALLOCATIONS = 32
    MAX_TARGETS = 500

    def __init__(self, delta=0.05, q=2.0, epsilon=0.1, theta=5.0, gamma=5.0, units="fit", targets=None,
                 pass1_size=5000, pass2_size=500, window=0.15, high_error=0.10, runner_up_ratio=1.1,
                 runner_up_factor=1.5, size_ratio_tolerance=0.25, saturation="evidence"):
        self.delta = delta
        self.q = q
        self.epsilon = epsilon
        self.theta = theta
        self.gamma = gamma
        self.units = units
        self.targets = targets
        self.pass1_size = pass1_size
        self.pass2_size = pass2_size
        self.window = window
        self.high_error = high_error
        self.runner_up_ratio = runner_up_ratio
        self.runner_up_factor = runner_up_factor
        self.size_ratio_tolerance = size_ratio_tolerance
        self.saturation = saturation

    # ------------------------------------------------------------------ checks
    def _check_params(self):
        for name in ("delta", "q", "epsilon", "theta", "gamma", "high_error", "window", "runner_up_ratio",
                     "runner_up_factor", "size_ratio_tolerance"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(value):
                raise ValidationError(f"{name} must be a finite number, got {value!r}")
        # the pass-2 grid is (targets x A values x segments) in memory: bounded like the data
        for name, top in (("pass1_size", 20_000), ("pass2_size", 2_000)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 2 <= value <= top:
                raise ValidationError(f"{name} must be an integer in [2, {top}], got {value!r}")
        if self.units not in ("fit", "paper"):
            raise ValidationError(f"units must be 'fit' or 'paper', got {self.units!r}")
        if self.saturation not in ("evidence", "thesis"):
            raise ValidationError(f"saturation must be 'evidence' or 'thesis', got {self.saturation!r}")
        if not 0 < self.delta < 1:
            raise ValidationError(f"delta must be in (0, 1), got {self.delta!r}")
        if not self.q >= 1:
            raise ValidationError(f"q must be >= 1 (q = 1 ignores the farthest point), got {self.q!r}")
        if not self.epsilon > 0:
            raise ValidationError(f"epsilon must be positive, got {self.epsilon!r}")
        if not self.theta > 0 or not self.gamma > 0:
            raise ValidationError(f"theta and gamma must be positive, got {self.theta!r}, {self.gamma!r}")

    @property
    def _paper(self):
        return self.units == "paper"

    # --------------------------------------------------------------------- fit
    def fit(self, n, t, base=None):
        """Fit on observations (n processors, runtimes t in any unit).

        ``base=(n_base, t_base)``: cross-problem-size prediction ([Deshmeh2013] section 3.12) — (n, t) are
        the few runs of the target size, ``base`` the runs of a smaller size.
        """
        self._check_params()
        label = "target-size observations" if base is not None else "observations"
        n, t = _check_observations(n, t, label)
        _check_size(label, np.unique(n).size, self.MAX_ALLOCATIONS)
        obs, dropped = _aggregate(n, t)
        warnings: list[ModelWarning] = []
        if dropped["n"].size:
            dropped = pd.DataFrame(dropped)
            warnings.append(ModelWarning(
                "dropped-repeat",
                f"dropped {len(dropped)} repeated run(s) as obvious outliers: "
                + ", ".join(f"n={a:g}: {b:g}" for a, b in dropped.itertuples(index=False)),
                details={"dropped": dropped}))
        self.ratio_ = None
        if base is None:
            if obs["n"].size < 3:
                raise ValidationError(
                    f"ADEPT needs runtimes on at least 3 different processor counts, got {obs['n'].size} "
                    f"({obs['n'].tolist()})")
            _check_growth(label, obs, self.delta)
            anomalies = detect_anomalies(obs["n"], obs["t"], self.epsilon, self.theta)
            m = obs["n"].size
            obs = {**obs, "kind": np.full(m, "observed", dtype=object), "weight_factor": anomalies.weight_factor,
                   "phase": anomalies.phase, "only_for_target": np.full(m, np.nan)}
        else:
            union, anomalies = self._cross_size(pd.DataFrame({**obs, "kind": "observed"}), base, warnings)
            obs = {c: union[c].to_numpy() for c in union.columns}
        self.anomalies_ = anomalies
        warnings += self._anomaly_warnings(anomalies, cross=base is not None)
        warnings += self._superlinear_warnings(obs)
        # the observations as columns (what the searches read, many times per target chunk);
        # the observations_ frame is made from them when first asked for
        self._obs, self._observations = obs, None
        # fit mode searches on runtimes relative to the largest one, so that inputs differing
        # only by their unit give the same numbers to the search, not just the same optimum
        self._t_ref = 1.0 if self._paper else float(self._obs["t"].max())
        self.n_max_fit_ = (
            float(self._obs["n"][-2]) if anomalies.last_point_ambiguous and base is None else np.inf
        )
        self._reset_caches()
        self._choose_delta(warnings)
        self._fit_warnings = warnings
        if self.targets is not None:
            self._fitted_targets = _as_1d("targets", np.atleast_1d(self.targets))
            self._check_targets(self._fitted_targets, "targets")
        else:
            self._fitted_targets = np.asarray(self._default_targets(), float)
        self._fits = None
        emit_warnings(warnings)  # the per-target ones are in warnings_ / warnings_for
        return self

    @property
    def observations_(self) -> pd.DataFrame:
        """The points the fits use (class docstring), as a frame."""
        if self._observations is None:
            self._observations = pd.DataFrame(self._obs)
        return self._observations

    def _reset_caches(self):
        # per-target fits as columns, rows sorted by target (``_fitted_keys``), computed once
        self._fitted_keys = np.zeros(0)
        self._fitted_columns: dict[str, np.ndarray] = {}
        # what does not depend on the target: envelopes by delta, and the pass-1 candidates
        # (and their model values) by fixed point, next-closest point and envelope
        self._envelopes: dict[float, Envelope] = {}
        self._candidates: dict[tuple, tuple[np.ndarray, ...]] = {}
        self._grids: dict[float, np.ndarray] = {}  # pass-1 A grids by envelope delta
        self._beyond = None  # candidate allocations for a next measurement (_beyond_grid)

    @property
    def fits_(self) -> pd.DataFrame:
        """Per-target fits of ``targets`` (computed on first access, like every target)."""
        self._check_fitted()
        if self._fits is None:
            self._fits = pd.DataFrame(self.explain_columns(np.unique(self._fitted_targets)))
        return self._fits

    @property
    def warnings_(self) -> list[ModelWarning]:
        """Data and reliability warnings: fit-level ones and those of the ``targets`` fits."""
        return self._fit_warnings + self._target_warnings(self.explain_columns(np.unique(self._fitted_targets)))

    def _default_targets(self):
        n = self._obs["n"]
        top = n.max()
        pow2 = 2.0 ** np.arange(0, np.floor(np.log2(4 * top)) + 1)
        return np.unique(np.concatenate([n, pow2, top * np.array([1.5, 2, 3, 4])]).round(6))

    def _cross_size(self, obs, base, warnings):
        try:
            n_b, t_b = base
        except (TypeError, ValueError):
            raise ValidationError("base must be a pair (n_base, t_base) of arrays") from None
        n_b, t_b = _check_observations(n_b, t_b, "base-size observations")
        _check_size("base- and target-size observations", np.unique(np.concatenate([n_b, obs["n"]])).size,
                    self.MAX_ALLOCATIONS)
        bobs, bdropped = aggregate_repeats(n_b, t_b)
        if len(bobs) < 4:
            raise ValidationError("cross-size prediction needs >= 4 processor counts on the base size, "
                                  f"got {len(bobs)}")
        _check_growth("base-size observations", bobs, self.delta)
        if len(obs) < 2:
            raise ValidationError("cross-size prediction needs >= 2 processor counts on the target size, got "
                                  f"{len(obs)}")
        common = np.intersect1d(obs["n"], bobs["n"])
        if common.size == 0:
            raise ValidationError(
                "base and target sizes share no processor count; the runtime ratio needs one "
                f"(target n: {obs['n'].tolist()}, base n: {bobs['n'].tolist()})")
        tt = obs.set_index("n")["t"]
        tb = bobs.set_index("n")["t"]
        n0 = common.min()
        ratio = tt[n0] / tb[n0]  # [Deshmeh2013] section 3.12 step 1
        self.ratio_ = float(ratio)
        ratios = (tt[common] / tb[common]).to_numpy()
        if len(ratios) >= 2 and ratios.max() / ratios.min() - 1 > self.size_ratio_tolerance:
            warnings.append(ModelWarning(
                "sizes-differ",
                f"the runtime ratio target/base varies from {ratios.min():.3g} to {ratios.max():.3g} across "
                f"n = {common.tolist()}: the two sizes behave like different applications (thesis 3.15)",
                details={"n": common, "ratio": ratios}))
        banom = detect_anomalies(bobs["n"], bobs["t"], self.epsilon, self.theta)
        D = dict(zip(banom.anomalies["n"], banom.anomalies["D"]))
        guide = bobs[~bobs["n"].isin(obs["n"])].copy()  # step 2
        guide["t"] = guide["t"] * ratio
        guide["kind"] = "guiding"
        guide["weight_factor"] = [
            1.0 if D.get(v, 0.0) >= self.gamma else max(0.0, (self.theta - D.get(v, 0.0)) / self.theta)
            for v in guide["n"]
        ]
        # base anomalies with D >= gamma give guiding points only for the target at that n (3.14)
        guide["only_for_target"] = [v if D.get(v, 0.0) >= self.gamma else np.nan for v in guide["n"]]
        obs = obs.assign(weight_factor=1.0, only_for_target=np.nan)
        union = pd.concat([obs, guide], ignore_index=True).sort_values("n").reset_index(drop=True)
        union["phase"] = 0
        if len(union) < 3:
            raise ValidationError("cross-size prediction needs at least 3 distinct processor counts in total")
        return union, banom

    def _anomaly_warnings(self, a: AnomalyReport, cross: bool):
        out = []
        where = "base-size " if cross else ""
        for row in a.anomalies.itertuples(index=False) if len(a.anomalies) else ():
            if row.last_point and not cross:
                out.append(ModelWarning(
                    "declining-or-anomalous-last-point",
                    f"the last observation (n={row.n:g}) looks anomalous: it may be the declining phase or an "
                    "anomaly. It is excluded from the fit and no prediction is made past it (thesis 3.9.1).",
                    suggested_n=None, details={"n": row.n, "D": row.D}))
            elif row.last_point:
                out.append(ModelWarning(
                    "anomaly", f"the last base-size observation (n={row.n:g}) is slower than the one before it "
                    "(declining phase or anomaly); it gives no guiding point", details={"n": row.n}))
            else:
                out.append(ModelWarning(
                    "anomaly",
                    f"{where}observation n={row.n:g} is anomalous (magnitude D={row.D:.2f}); its weight is scaled "
                    f"by {row.weight_factor:.2f} (thesis 3.9.2)", details={"n": row.n, "D": row.D}))
        if a.unresolved:
            out.append(ModelWarning(
                "unresolved-anomaly",
                f"{where}anomaly candidates at n={a.unresolved} could not be resolved "
                "(needs >= 4 observations, or no known pattern fits)", details={"n": a.unresolved}))
        if a.pattern == "stepwise":
            out.append(ModelWarning(
                "stepwise",
                f"stepwise scalability: {a.phase.max() + 1} phases; each prediction uses only the phase of "
                "its closest observation (thesis 3.9.3)", details={"phase": a.phase}))
        if a.pattern == "specially-optimised":
            out.append(ModelWarning(
                "specially-optimised",
                f"the application appears optimised for {a.feasible_allocations}: only those allocations are "
                "used and recommended (thesis 3.9.3)", details={"feasible": a.feasible_allocations}))
        return out

    @staticmethod
    def _superlinear_warnings(obs):
        """Warn of relative speedup above the processor ratio between two observations.

        The Downey model cannot represent it (S(n) <= n and S(m)/S(n) <= m/n); it typically
        comes from data fitting a faster memory level (the thesis' stepwise pattern,
        [Deshmeh2013] section 3.9.3).
        """
        # every measured (not guiding) point counts: an anomaly the fit discounts is still
        # a measured superlinear step the model cannot follow
        measured = obs["kind"] == "observed"
        n, t = obs["n"][measured], obs["t"][measured]
        gain = (t[:-1] / t[1:]) / (n[1:] / n[:-1])
        bad = np.nonzero(gain > 1.05)[0]
        if bad.size == 0:
            return []
        pairs = ", ".join(f"{n[i]:g}->{n[i + 1]:g} ({gain[i]:.2f}x ideal)" for i in bad)
        return [ModelWarning(
            "superlinear-speedup",
            f"superlinear speedup between {pairs}: the Downey model cannot represent it, so predictions "
            "extrapolate a curve the data do not follow (cache/memory effects, placement changes?)",
            details={"pairs": [(n[i], n[i + 1]) for i in bad], "gain": gain[bad]})]

    # ------------------------------------------------------------ delta search
    def _choose_delta(self, warnings):
        """Grow delta until the reference instance fits every used observation within it.

        The reference instance has uniform weights and is fixed at the largest allocation
        ([Deshmeh2013] section 3.5.1).
        """
        used = self._used()
        n, t = self._obs["n"][used], self._obs["t"][used] / self._t_ref
        delta = float(self.delta)
        self.envelope_ = None
        for _ in range(60):
            env = self._envelope(delta)
            if not env.empty:
                self.envelope_ = env
                self.delta_ = delta
                ref = self._search(np.array([n.max()]), uniform=True)
                err = ref["max_rel_error"][0]
                if err <= delta:
                    break
                delta = min(0.95, max(delta + 0.01, err))
            else:
                delta = min(0.95, delta * 1.25 + 0.01)
            if delta >= 0.95:
                break
        if self.envelope_ is None or self.envelope_.empty:
            raise ValidationError(
                "no Downey instance explains these observations even with delta = 0.95 "
                f"(n = {n.tolist()}, t = {t.tolist()}): the runtimes do not follow a speedup curve")
        if self.delta_ > self.delta:
            warnings.append(ModelWarning(
                "delta-increased",
                f"delta increased from {self.delta:g} to {self.delta_:.3g} so that a model instance explains "
                "every observation within it (thesis 3.5.1)", details={"delta": self.delta_}))

    def _used(self):
        """Observations the envelope is built on: weighted, not reserved for one target."""
        obs = self._obs
        return (obs["weight_factor"] > 0) & np.isnan(obs["only_for_target"])

    def _envelope(self, delta) -> Envelope:
        """Return the envelope of the used observations for ``delta``.

        Runtimes relative to ``_t_ref``; computed once per delta, since the delta search and
        the saturation rule ask again.
        """
        if delta in self._envelopes:
            return self._envelopes[delta]
        obs, used = self._obs, self._used()
        self._envelopes[delta] = fit_envelope(
            obs["n"][used], obs["t"][used] / self._t_ref, delta, self.units, phase=obs["phase"][used],
            t_scale=self._t_ref)
        return self._envelopes[delta]

    # -------------------------------------------------------- per-target fits
    def _weights(self, targets, uniform=False):
        obs = self._obs
        n = obs["n"]
        W = np.ones((len(targets), len(n))) if uniform else target_weights(n, targets, self.q)
        W = W * obs["weight_factor"]
        only = obs["only_for_target"]
        W = np.where(np.isnan(only) | (only[None, :] == targets[:, None]), W, 0.0)
        ph = obs["phase"]
        if ph.max() > 0:
            closest = np.argmin(np.abs(targets[:, None] - n[None, :]), axis=1)
            W = np.where(ph[None, :] == ph[closest][:, None], W, 0.0)
        return np.maximum(W, 0.0)

    def _pass1_grid(self, A_lo, A_hi):
        """Return the pass-1 A values.

        Geometric for ``saturation="evidence"`` in fit mode, so every A gets the same relative
        resolution.  The thesis' linear grid over [A_lo, max(3000, 20 n_max)] has steps of ~0.6
        whatever the unit of n: too coarse for curves observed on small n (1-4 GPUs, or nodes
        counted in units of 16) to find their optimum, which the +-15 % pass-2 window cannot
        recover -- the same curve gave a saturating fit with n in nodes and a non-saturating one
        with n in units of 16 nodes.  Paper mode and ``saturation="thesis"`` keep the linear
        grid, so they reproduce earlier results exactly.
        """
        if self._paper or self.saturation == "thesis":
            return np.linspace(A_lo, A_hi, self.pass1_size)
        return np.geomspace(A_lo, A_hi, self.pass1_size)

    def _pass1_candidates(self, n, t, fi, gi, env):
        """Pass-1 candidates through fixed point ``fi`` (ratio to ``gi`` in fit mode) inside ``env``.

        (A, sigma, model values x of shape (C, M), x^2).  They do not depend on the target, so each
        is computed once per fit and shared by every target (and later call) using it.
        """
        key = (fi, gi, env.delta)
        if key in self._candidates:
            return self._candidates[key]
        if env.delta not in self._grids:  # one grid per envelope, shared by its fixed points
            self._grids[env.delta] = self._pass1_grid(*env.A_range)
        A_grid = self._grids[env.delta]
        if not self._paper:
            phase = np.zeros(len(env.n), int) if env.phase is None else env.phase
            Ac, sc = scale_free_candidates(n[fi], t[fi], n[gi], t[gi], A_grid, env.sigma_range[1], env.n, env.t,
                                           phase, env.delta)
        else:
            b = env.bounds
            A_grid = A_grid[((A_grid[:, None] >= b["A_min"]) & (A_grid[:, None] <= b["A_max"])).any(axis=1)]
            roots = fixed_point_sigmas(n[fi], t[fi], A_grid, paper=True, s_max=env.sigma_range[1])
            Ac = np.broadcast_to(A_grid[:, None], roots.shape)[np.isfinite(roots)]
            sc = roots[np.isfinite(roots)]
            # where the fixed-point curve crosses each range pair, thin ones included
            levels = np.linspace(b["sigma_min"], np.minimum(b["sigma_max"], 1e6), 5)
            A_x = fixed_point_As(n[fi], t[fi], levels)  # (5, B, 2)
            s_x = np.broadcast_to(levels[..., None], A_x.shape)
            ok = np.isfinite(A_x)
            Ac, sc = np.concatenate([Ac, A_x[ok]]), np.concatenate([sc, s_x[ok]])
            keep = env.contains(Ac, sc) if len(Ac) else np.zeros(0, bool)
            Ac, sc = Ac[keep], sc[keep]
        if len(Ac) == 0:  # no instance through the fixed point lies in the envelope
            Ac, sc = env.bound_instances()
        x = relative_model(n, t, Ac, sc)
        self._candidates[key] = Ac, sc, x, x * x
        return self._candidates[key]

    def _search(self, targets, uniform=False, A_floor=None, env=None):
        """Two-pass search ([Deshmeh2013] section 3.5.2) for all targets at once; returns a dict of arrays.

        ``A_floor`` (one value per target): only instances with A >= A_floor are considered
        (the non-saturating refit of ``saturation="evidence"``); a target without such an
        instance through its fixed point in the envelope gets objective and error inf.
        ``env``: search in this envelope instead of ``envelope_``.
        """
        obs = self._obs
        n, t = obs["n"], obs["t"] / self._t_ref
        env = self.envelope_ if env is None else env
        paper = self._paper
        W = self._weights(targets, uniform)
        K, M = W.shape
        # fixed point: the used observation closest to the target; g: the next closest.
        # Down-weighted anomalies are passed over while two full-weight points remain: a curve
        # forced through an anomaly would undo its weight reduction.
        full = obs["weight_factor"] >= 1
        penalty = np.where(W > 0, 0.0, np.inf) + np.where(full, 0.0, 1e12)
        if ((W > 0) & full).sum(axis=1).min() < 2:
            penalty = np.where(W > 0, 0.0, np.inf)
        dist = np.abs(targets[:, None] - n[None, :]) + penalty
        order = np.argsort(dist, axis=1, kind="stable")
        f_idx, g_idx = order[:, 0], order[:, 1]

        pass1 = np.zeros((K, 2))
        best1 = np.full(K, np.inf)
        runner = np.full((K, 3), np.nan)
        cand_store = {}
        pair = f_idx * M + g_idx  # (fixed point, next-closest point) as one number
        for code in np.unique(pair):
            fi, gi = divmod(int(code), M)
            key = (fi, gi)
            members = np.flatnonzero(pair == code)
            Ac, sc, x, x2 = self._pass1_candidates(n, t, fi, gi, env)
            Wm = W[members]
            # the sums over the observations as matrix products; the rest fused per target
            # (pass1_pick: objective, ties broken towards the largest A)
            floor = A_floor[members] if A_floor is not None else np.full(len(members), -np.inf)
            f, j, fmin = pass1_pick(Wm @ x.T, Wm @ x2.T, Wm.sum(axis=1), Ac, floor, paper)
            pass1[members] = np.stack([Ac[j], sc[j]], axis=1)
            best1[members] = np.where(np.isfinite(fmin), wssre(x[j], Wm, paper), np.inf)
            cand_store[key] = (members, Ac, sc, f)

        w = self.window
        sA0, sA1 = env.A_range
        ss0, ss1 = env.sigma_range
        A_low = pass1[:, 0] * (1 - w) if A_floor is None else np.maximum(pass1[:, 0] * (1 - w), A_floor)
        lims = (
            np.clip(A_low, sA0, sA1), np.clip(pass1[:, 0] * (1 + w), sA0, sA1),
            np.clip(pass1[:, 1] * (1 - w), ss0, ss1), np.clip(pass1[:, 1] * (1 + w), ss0, ss1),
        )
        res = grid_argmin(n, t, W, *lims, self.pass2_size, self.pass2_size, paper=paper)
        better = res.objective <= best1
        A = np.where(better, res.A, pass1[:, 0])
        s = np.where(better, res.sigma, pass1[:, 1])
        obj = np.where(better, res.objective, best1)
        x = relative_model(n, t, A, s)
        tau = profiled_scale(x, W, paper)
        used = W > 0
        err = np.where(used, np.abs(tau[:, None] * x - 1), 0.0).max(axis=1)
        if A_floor is not None:  # no pass-1 candidate above the floor: no constrained fit
            obj, err = np.where(np.isfinite(best1), obj, np.inf), np.where(np.isfinite(best1), err, np.inf)
        tau = tau * self._t_ref

        # runner-up (Table 3): WSSRE within 10 % of the best with A differing by > 1.5x
        for members, Ac, sc, f in cand_store.values():
            j, has = runner_up_pick(f, Ac, A[members], obj[members], float(self.runner_up_factor),
                                    float(self.runner_up_ratio))
            runner[members[has]] = np.stack([Ac[j], sc[j], f[np.arange(len(members)), j]], axis=1)[has]
        return {
            "target": targets, "A": A, "sigma": s, "scale": tau, "wssre": obj, "max_rel_error": err,
            "fixed_point": n[f_idx], "pass1_A": pass1[:, 0], "pass1_sigma": pass1[:, 1],
            "runner_up_A": runner[:, 0], "runner_up_sigma": runner[:, 1], "runner_up_wssre": runner[:, 2],
            "n_used": used.sum(axis=1),
        }

    #: targets searched together: pass 1 keeps a (targets x candidates) objective matrix per
    #: fixed point for the runner-up rule, so larger requests are split to bound memory
    _TARGET_CHUNK = 64

    def _fit_targets(self, targets):
        """Fit the targets not fitted yet and merge them into the per-target columns."""
        new = np.setdiff1d(targets, self._fitted_keys)
        if new.size == 0:
            return
        parts = [self._fit_target_chunk(chunk)
                 for chunk in np.array_split(new, int(np.ceil(new.size / self._TARGET_CHUNK)))]
        keys = np.concatenate([self._fitted_keys, new])
        order = np.argsort(keys, kind="stable")
        self._fitted_keys = keys[order]
        done = self._fitted_columns
        self._fitted_columns = {
            col: np.concatenate(([done[col]] if done else []) + [p[col] for p in parts])[order] for col in parts[0]}

    def _fit_target_chunk(self, new) -> dict[str, np.ndarray]:
        out = self._check_saturation(self._search(new))
        out["variance"] = np.where(out["sigma"] <= 1, "low", "high").astype(object)
        beyond = out["target"] > self.n_max_fit_
        out["prediction"] = np.where(beyond, np.nan,
                                     out["scale"] * downey.runtime(out["target"], out["A"], out["sigma"]))
        out["speedup"] = np.where(beyond, np.nan, downey.speedup(out["target"], out["A"], out["sigma"]))
        out["suggested_n"] = self._suggest(out)
        return out

    def _check_saturation(self, out):
        """Apply ``saturation="evidence"``.

        Replace fits that saturate near the observed range without the data demanding it by the
        best non-saturating fit (see the class docstring).
        """
        targets = out["target"]
        n = self._obs["n"]
        n_top = np.where(self._weights(targets) > 0, n[None, :], 0.0).max(axis=1)
        horizon = self._SATURATION_HORIZON * n_top
        out["saturation_n"] = downey.max_useful_allocation(out["A"], out["sigma"])
        out["saturation"] = np.full(targets.size, "", dtype=object)
        for col in ("saturating_A", "saturating_sigma", "saturation_suggested_n"):
            out[col] = np.full(targets.size, np.nan)
        near = np.nonzero(out["saturation_n"] <= horizon)[0]
        if self.saturation == "thesis" or near.size == 0:
            return out
        bound = self._saturation_bound()
        env = self.envelope_ if bound <= self.delta_ else self._envelope(bound)
        free = self._search(targets[near], A_floor=self._saturation_floor(targets[near], horizon[near]), env=env)
        # With more observations than parameters, the saturating fit's residuals measure the
        # noise: the data also demand saturation when the refit is significantly worse than
        # that (F-test, 5 %), e.g. exact model data.  With 3 points (fit mode) there is no
        # residual to judge by and only the bound decides.
        dof = free["n_used"] - (2 if self._paper else 3)
        sat_obj = out["wssre"][near]
        with np.errstate(divide="ignore", invalid="ignore"):
            crit = special.fdtri(1, np.maximum(dof, 1), self._SATURATION_F_LEVEL)  # F(1, dof) quantile
            worse = (free["wssre"] - sat_obj) * dof > crit * sat_obj
        ok = (free["max_rel_error"] <= bound) & ~((dof > 0) & worse)
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
            grid = self._beyond_grid()
            T_sat = old[:, 2:] * downey.runtime(grid, old[:, :1], old[:, 1:2])
            T_free = free["scale"][ok, None] * downey.runtime(grid, free["A"][ok, None], free["sigma"][ok, None])
            apart = np.abs(T_sat / T_free - 1) > 2 * bound
            out["saturation_suggested_n"][swap] = np.where(apart.any(axis=1), grid[np.argmax(apart, axis=1)], np.nan)
        return out

    def _saturation_bound(self):
        """Deviation every used observation must stay within for a non-saturating refit to replace a saturating fit.

        The "high-fit-error" threshold, or ``delta_`` if the data needed a larger one (the
        saturating fit itself may deviate by up to ``delta_``).
        """
        return max(self.delta_, self.high_error)

    @staticmethod
    def _saturation_floor(targets, horizon):
        """Smallest A of the non-saturating refit (``targets``: for variants of the rule).

        A >= (N + 1)/2 puts the flat piece at or past N = horizon for every sigma: 2A - 1
        (low variance), A + (A - 1) sigma >= 2A - 1 (high variance).  Past the horizon the
        refit may still saturate: the data say nothing there.
        """
        return (horizon + 1) / 2

    def _beyond_grid(self):
        """Candidate allocations for a next measurement: up to 16 x the largest observation."""
        if self._beyond is None:
            n_max = self._obs["n"].max()
            self._beyond = np.unique(np.round(np.geomspace(n_max + 1, 16 * n_max, 200)))
        return self._beyond

    def _suggest(self, out):
        """Allocation beyond the observed range where best and runner-up differ most (Table 3)."""
        n, t = self._obs["n"], self._obs["t"] / self._t_ref
        grid = self._beyond_grid()
        sug = np.full(out["target"].size, np.nan)
        has = ~np.isnan(out["runner_up_A"])
        if not has.any():
            return sug
        A, s, rA, rs = (out[c][has] for c in ("A", "sigma", "runner_up_A", "runner_up_sigma"))
        Tb = downey.runtime(grid[None, :], A[:, None], s[:, None])
        Tr = downey.runtime(grid[None, :], rA[:, None], rs[:, None])
        if not self._paper:  # compare shapes at their own best (uniform) scales
            xr = relative_model(n, t, rA, rs)
            Tr = Tr * (xr.sum(-1) / (xr * xr).sum(-1))[:, None]
            Tb = Tb * out["scale"][has][:, None] / self._t_ref
        sug[has] = grid[np.argmax(np.abs(Tb / Tr - 1), axis=1)]
        return sug

    def _target_warnings(self, fits: dict[str, np.ndarray]):
        """Table 3's reliability warnings for the per-target fits ``fits`` (columns)."""
        out = []
        n_used = self._obs["n"][self._obs["weight_factor"] > 0]
        targets = fits["target"]
        # against the user's bound, not delta_: delta_ was grown until the data fit within it
        thr = max(self.delta, self.high_error)
        # Table 3: a low-variance fit with every n_i < A.  With a free time scale (fit mode)
        # the first piece of *either* mode is Amdahl-shaped, tau (a + b/n), so observations
        # that all lie on it leave the saturation undetermined in the high-variance mode too.
        low = fits["variance"] == "low"
        first_end = np.where(low, fits["A"], fits["A"] + (fits["A"] - 1) * fits["sigma"])
        # Every allocation the saturation warnings quote or suggest lies between the largest
        # observation and the largest target concerned: a section end or a run past every
        # target (e.g. the first piece of a high-variance fit, A + (A - 1) sigma, can be
        # 10^6) is nothing a user can act on.
        n_top = n_used.max()
        lin = (low | (not self._paper)) & (first_end > n_top)
        if lin.any():
            end, reach = first_end[lin].min(), targets[lin].max()
            if end < reach:
                where = f"it ends at n = {end:.0f}, beyond n = {n_top:g}"
                suggested = float(np.ceil(end))
                advice = f"Measure at n >= {suggested:g}"
            else:
                where = f"it reaches past n = {reach:g}, the largest target"
                suggested = float(reach)
                advice = f"Measure as close to n = {reach:g} as you can"
            out.append(ModelWarning(
                "linear-section",
                f"all observations lie on the first (near-linear) piece of the fitted model ({where}): the "
                f"saturation point is not constrained. {advice} (thesis 3.10, Table 3).",
                targets=tuple(targets[lin].tolist()), suggested_n=suggested))
        hi = fits["max_rel_error"] > thr
        if hi.any():
            worst = fits["max_rel_error"][hi].max()
            out.append(ModelWarning(
                "high-fit-error",
                f"the fitted instances deviate from an observation by up to {worst:.0%} "
                f"(> {thr:.0%}): the application deviates from the Downey model (thesis 3.10)",
                targets=tuple(targets[hi].tolist()), details={"max_rel_error": float(worst)}))
        bound = self._saturation_bound()

        def within(sug, concerned):  # a suggestion between the largest observation and the targets concerned
            return sug if sug is not None and n_top < sug <= targets[concerned].max() else None

        und = fits["saturation"] == "undetermined"
        if und.any():
            i = int(np.flatnonzero(und)[0])
            sug = within(_or_none(fits["saturation_suggested_n"][i]), und)
            out.append(ModelWarning(
                "saturation-undetermined",
                f"the best fit stops speeding up at n = {fits['saturation_n'][i]:.0f} (A = "
                f"{fits['saturating_A'][i]:.3g}), within {self._SATURATION_HORIZON:g}x the largest observation, but "
                f"the data do not demand it: an instance that keeps speeding up there explains every observation "
                f"within {bound:.0%} and is used instead. Where the application saturates is undetermined"
                + (f"; a run at n = {sug:g} would tell the two apart." if sug else "."),
                targets=tuple(targets[und].tolist()), suggested_n=sug,
                details={c: fits[c][und] for c in ("saturation_n", "saturating_A", "saturating_sigma")}))
        near = fits["saturation"] == "near-range"
        if near.any():
            i = int(np.flatnonzero(near)[0])
            sug = within(_or_none(fits["saturation_suggested_n"][i]), near)
            out.append(ModelWarning(
                "saturation-near-range",
                f"the fitted instance stops speeding up at n = {fits['saturation_n'][i]:.0f} (A = "
                f"{fits['A'][i]:.3g}), within {self._SATURATION_HORIZON:g}x the largest observation: predictions "
                f"past it are flat. The data demand it (an instance that keeps speeding up misses an observation "
                f"by more than {bound:.0%} or fits significantly worse)"
                + (f"; a run at n = {sug:g} would confirm it." if sug else "."),
                targets=tuple(targets[near].tolist()), suggested_n=sug,
                details={"saturation_n": fits["saturation_n"][near]}))
        ru = ~np.isnan(fits["runner_up_A"])
        if ru.any():
            i = int(np.flatnonzero(ru)[0])
            sug = float(fits["suggested_n"][i])
            out.append(ModelWarning(
                "runner-up",
                "another instance with a very different A explains the observations nearly as well "
                f"(e.g. A={fits['A'][i]:.0f} vs runner-up A={fits['runner_up_A'][i]:.0f}); an observation at "
                f"n={sug:g}, where they differ most, would decide (thesis 3.10, Table 3)",
                targets=tuple(targets[ru].tolist()), suggested_n=sug))
        return out

    # ----------------------------------------------------------------- predict
    def _check_fitted(self):
        check_fitted(self, "_fitted_targets")

    def explain_columns(self, n_targets) -> dict[str, np.ndarray]:
        """Return :meth:`explain` as a dict of numpy columns.

        No DataFrame: the fast path for callers that read one or two columns.
        """
        self._check_fitted()
        targets = _as_1d("n_targets", np.atleast_1d(n_targets))
        if targets.size == 0:
            self._fit_targets(self._fitted_targets)  # so that every column exists
            return {col: v[:0] for col, v in self._fitted_columns.items()}
        self._check_targets(targets, "n_targets")
        self._fit_targets(targets)
        rows = np.searchsorted(self._fitted_keys, targets)
        return {col: v[rows] for col, v in self._fitted_columns.items()}

    def _check_targets(self, targets, name):
        bad = ~np.isfinite(targets) | (targets < 1)
        if bad.any():
            shown = targets.tolist() if targets.size <= 20 else f"{targets[bad][:5].tolist()} ..."
            raise ValidationError(f"prediction targets must be finite processor counts >= 1, got {shown} ({name}: "
                                  f"first bad value at position {int(np.flatnonzero(bad)[0])})")
        distinct = np.unique(targets).size
        if distinct > self.MAX_TARGETS:
            raise ValidationError(
                f"{name}: ADEPT predicts at most {self.MAX_TARGETS} distinct targets per call, got {distinct}; "
                "every target is its own biased fit (~4 ms each at 32 processor counts): split the request")

    def predict(self, n_targets) -> np.ndarray:
        """Predicted runtimes at n_targets, in the input's unit (NaN past an ambiguous last point).

        A runtime beyond the float range (overflowing, or underflowing to 0, for runtimes near
        1e308 or 1e-308) is a ValidationError naming the target; :meth:`explain` still shows it.
        """
        pred = self.explain_columns(n_targets)["prediction"]
        bad = np.isinf(pred.astype(float)) | (pred == 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            target = float(np.asarray(np.atleast_1d(n_targets), float)[i])
            raise ValidationError(f"the predicted runtime at n_targets[{i}] = {target:g} is beyond the float range "
                                  f"({pred[i]:g}): give the runtimes in another unit")
        return pred

    def predict_speedup(self, n_targets) -> np.ndarray:
        """Predicted speedup S(n) = T(1)/T(n) of each target's own instance (unit-free)."""
        return self.explain_columns(n_targets)["speedup"]

    def explain(self, n_targets) -> pd.DataFrame:
        """Per-target fit details (same columns as ``fits_``) for the given targets."""
        return pd.DataFrame(self.explain_columns(n_targets))

    def weights_for(self, n_targets) -> pd.DataFrame:
        """Return the effective fit weights per target.

        [Deshmeh2013] section 3.5.2 W_i times the anomaly, phase and cross-size factors; one
        row per target, one column per observed n.
        """
        self._check_fitted()
        targets = _as_1d("n_targets", np.atleast_1d(n_targets))
        self._check_targets(targets, "n_targets")
        return pd.DataFrame(self._weights(targets), index=pd.Index(targets, name="target"),
                            columns=self.observations_["n"].to_numpy())

    def warnings_for(self, n_targets) -> list[ModelWarning]:
        """Reliability warnings for specific targets (fit-level warnings included)."""
        fits = self.explain_columns(n_targets)
        return self._fit_warnings + self._target_warnings(fits)
