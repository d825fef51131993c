"""The ADEPT estimator ([Deshmeh2013] chapter 3).

Envelope, biased per-target fits, anomaly handling, reliability judgment and
cross-problem-size prediction.  :class:`Adept` holds the parameters and the fitted state;
the work is done by module-level functions: :mod:`.observations` (input checks, repeated
runs, cross-size union), :mod:`.fitting` (the search object :class:`~.fitting.TargetSearch`,
the delta search and the per-target fits), :mod:`.results` (:class:`~.results.TargetFits`)
and :mod:`.warnings` (the warning rules).

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
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, emit_warnings
from workbench.models.adept.anomalies import detect_anomalies
from workbench.models.adept.fitting import (
    SearchSettings,
    TargetSearch,
    choose_delta,
    fit_targets,
    saturation_bound,
    weights,
)
from workbench.models.adept.observations import (
    aggregate_columns,
    aggregate_repeats,
    check_growth,
    check_observations,
    check_size,
    check_targets,
    cross_size_union,
    single_size_columns,
    target_weights,
)
from workbench.models.adept.warnings import (
    WARNING_KINDS,
    anomaly_warnings,
    delta_increased_warning,
    dropped_repeat_warning,
    superlinear_warnings,
    target_warnings,
)
from workbench.validation import FittedState, check_fitted

__all__ = ["Adept", "WARNING_KINDS", "aggregate_repeats", "target_weights"]

_NUMBERS = ("delta", "q", "epsilon", "theta", "gamma", "high_error", "window", "runner_up_ratio",
            "runner_up_factor", "size_ratio_tolerance")


class Adept(FittedState, BaseEstimator):
    """ADEPT scalability predictor ([Deshmeh2013] chapter 3), scikit-learn style.

    ``get_params``/``set_params``, so ``sklearn.base.clone`` copies every parameter.
    :meth:`fit` computes every fitted attribute, including the fits of ``targets``;
    :meth:`predict`, :meth:`explain` and the other methods only read them.  A target that
    was not fitted is fitted on each call from the fitted search (``search_``), without
    changing the model: the same call always gives the same answer.

    How targets are fixed at fit time: with ``targets`` given, their fits are the model's
    per-target results (``fits_``) and a request reads them, fitting only the targets not
    among them (together, from the fitted search).  With ``targets=None`` the default targets
    are a summary of the fit (``fits_``, ``warnings_``) and each request is fitted as a
    whole from the fitted search: the targets searched together share their matrix products,
    so a target's last bits may depend on its companions, and a request's answer does not
    depend on what was asked before.

    Parameters
    ----------
    delta : float, default 0.05
        Initial envelope deviation bound (fraction); increased until the reference instance
        fits within it ([Deshmeh2013] section 3.5.1).  The value used is ``delta_``.
    q : float, default 2.0
        Weight sensitivity to prediction distance ([Deshmeh2013] section 3.5.2; >= 1).
    epsilon : float, default 0.1
        Anomaly sensitivity ([Deshmeh2013] section 3.9).
    theta : float, default 5.0
        Anomaly deviation tolerance ([Deshmeh2013] section 3.9).
    gamma : float, default 5.0
        Cross-size threshold on base-size anomaly magnitudes ([Deshmeh2013] section 3.14).
    units : {"fit", "paper"}, default "fit"
        "fit": unit-invariant, tau profiled; "paper": tau = 1 input unit, the thesis.
    targets : array_like or None, default None
        Allocations fitted by :meth:`fit` (their fits are ``fits_``, their warnings are in
        ``warnings_``).  None: the observed n, the powers of two up to 4 n_max and 1.5-4 x
        n_max.
    pass1_size : int, default 5000
        Pass-1 A values (2 to 20,000).
    pass2_size : int, default 500
        Pass-2 grid per axis (2 to 2,000).
    window : float, default 0.15
        Pass-2 window, +- this fraction around the pass-1 optimum (the thesis' value).
    high_error : float, default 0.10
        Fit-error threshold of the "high-fit-error" warning (the thesis uses 10 %; the
        initial ``delta`` if larger); also the saturation rule's bound (below).
    runner_up_ratio : float, default 1.1
        Table 3's WSSRE ratio of a runner-up.
    runner_up_factor : float, default 1.5
        Table 3's A factor of a runner-up.
    size_ratio_tolerance : float, default 0.25
        Cross-size runtime ratios may vary by this fraction before the "sizes-differ"
        warning.
    saturation : {"evidence", "thesis"}, default "evidence"
        Whether a fit may predict that the speedup stops near the observed range on the
        strength of small deviations (below).  "thesis" is the thesis' behaviour, bit for
        bit: the best WSSRE fit is used whatever it predicts, and the pass-1 A grid is
        linear.  "evidence" in fit mode also searches pass 1 on a geometric A grid, so that
        n counted in other units (nodes vs groups of 16 nodes) gets the same relative
        resolution.

    Attributes
    ----------
    observations_ : pandas.DataFrame
        The points the fits use: n, t, runs, dropped, kind ("observed"/"guiding"),
        weight_factor, phase, only_for_target.
    delta_ : float
        Deviation bound finally used.
    envelope_ : Envelope
        The envelope of ``delta_``.
    anomalies_ : AnomalyReport
        Anomalies of the observations (of the base size in cross-size mode).
    ratio_ : float or None
        Cross-size runtime ratio R target/base (None without ``base``).
    n_max_fit_ : float
        No prediction past this allocation (an ambiguous last point); inf if none.
    search_ : TargetSearch
        The fitted search every per-target fit reads.
    target_fits_ : TargetFits
        The fits of ``targets`` as columns.
    fits_ : pandas.DataFrame
        The same as a frame, one row per distinct target: target, A, sigma, scale, wssre,
        max_rel_error, fixed_point, pass1_A, pass1_sigma, runner_up_A, runner_up_sigma,
        runner_up_wssre, n_used, saturation_n (where the best fit's flat piece begins),
        saturation ("", "undetermined" or "near-range"), saturating_A, saturating_sigma (the
        replaced fit), saturation_suggested_n, variance ("low"/"high"), prediction, speedup,
        suggested_n.
    fit_warnings_ : list of ModelWarning
        Warnings about the data and the fit as a whole (emitted by :meth:`fit`).
    warnings_ : list of ModelWarning
        ``fit_warnings_`` and the reliability warnings of the ``targets`` fits.

    Notes
    -----
    Saturation rule (``saturation="evidence"``).  With 3-4 runtimes, Downey's model can often
    reach its flat piece (speedup = A from n_sat = 2A - 1, or A + (A - 1) sigma for
    sigma > 1) right after the largest observation by reading a deviation of a few percent as
    the onset of saturation; the prediction is then flat for every larger allocation (e.g.
    2054/1027/524 s at 16/32/64 nodes: A = 62.7, sigma = 0, 521 s at 128-512 nodes where
    278/149/92 s were measured).  For every target whose best fit has n_sat <= c n_top
    (n_top: its largest used observation, c = 3):

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

    How c, the bound and the floor were chosen, on 152 real curves: docs/decisions/adept.md
    (decision 20).

    Limits.  The envelope costs O(M^3) per A column and every target is its own two-pass
    search over the M distinct processor counts, so ADEPT refuses, with a ValidationError
    saying what to do, more than ``MAX_ALLOCATIONS`` = 32 distinct processor counts
    (repeated runs at one n are averaged first and count once) and more than
    ``MAX_TARGETS`` = 500 distinct targets per ``predict``/``explain`` call or in
    ``targets``.  Runtimes that grow with n (never falling, the last more than ``delta``
    above the first) are refused too: Downey's model has no slowdown, so it has nothing to
    predict there.  A smaller rise, or a last point slower than the one before it, is the
    thesis' ambiguous last point instead (3.9.1: excluded from the fit, NaN predictions past
    it, a "declining-or-anomalous-last-point" warning).  Processor counts above 2^53 and
    runtimes spanning more than 1e100 are refused.
    """

    #: saturation="evidence": c, the horizon (x the largest used observation) within which a
    #: fit's saturation is checked, and the F-test level (docs/decisions/adept.md, decision 20)
    _SATURATION_HORIZON = 3.0
    _SATURATION_F_LEVEL = 0.95
    #: variants of the saturation rule and pass-1 grid, for bench/adept_saturation.py only
    #: (:class:`~workbench.models.adept.fitting.SearchSettings`: pass1_spacing, bound, floor)
    _PASS1_SPACING = None
    _SATURATION_BOUND = None
    _SATURATION_FLOOR = "horizon"
    #: Resource limits (see "Limits" above): distinct processor counts per fit (base and target
    #: sizes together in cross-size mode) and distinct targets per prediction call.
    MAX_ALLOCATIONS = 32
    MAX_TARGETS = 500
    #: the fitted attribute that marks a fit (workbench.validation.FittedState)
    fitted_attribute = "target_fits_"

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
        for name in _NUMBERS:
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

    def _settings(self) -> SearchSettings:
        return SearchSettings(
            units=self.units, delta=self.delta, q=self.q, pass1_size=self.pass1_size, pass2_size=self.pass2_size,
            window=self.window, high_error=self.high_error, runner_up_ratio=self.runner_up_ratio,
            runner_up_factor=self.runner_up_factor, saturation=self.saturation,
            horizon=self._SATURATION_HORIZON, f_level=self._SATURATION_F_LEVEL, pass1_spacing=self._PASS1_SPACING,
            bound=self._SATURATION_BOUND, floor=self._SATURATION_FLOOR)

    # --------------------------------------------------------------------- fit
    def fit(self, n, t, base=None):
        """Fit on observations (n processors, runtimes t in any unit), and fit ``targets``.

        Parameters
        ----------
        n : array_like
            Processor counts, one per run (repeats are averaged after dropping obvious
            outliers).
        t : array_like
            Runtimes, in any unit.
        base : tuple of array_like or None, default None
            ``(n_base, t_base)``: cross-problem-size prediction ([Deshmeh2013] section 3.12)
            -- (n, t) are the few runs of the target size, ``base`` the runs of a smaller size.

        Returns
        -------
        Adept
            ``self``, fitted.

        Raises
        ------
        ValidationError
            For bad parameters or observations, naming the problem.
        """
        self._check_params()
        label = "target-size observations" if base is not None else "observations"
        n, t = check_observations(n, t, label)
        check_size(label, np.unique(n).size, self.MAX_ALLOCATIONS)
        obs, dropped = aggregate_columns(n, t)
        warnings = [dropped_repeat_warning(dropped)] if dropped["n"].size else []
        obs, anomalies, ratio = self._observations(obs, base, warnings)
        warnings += anomaly_warnings(anomalies, cross=base is not None)
        warnings += superlinear_warnings(obs)
        # fit mode searches on runtimes relative to the largest one, so that inputs differing
        # only by their unit give the same numbers to the search, not just the same optimum
        n_max_fit = float(obs["n"][-2]) if anomalies.last_point_ambiguous and base is None else np.inf
        search = choose_delta(TargetSearch(obs=obs, t_ref=1.0 if self.units == "paper" else float(obs["t"].max()),
                                           settings=self._settings(), n_max_fit=n_max_fit))
        if search.delta > self.delta:
            warnings.append(delta_increased_warning(self.delta, search.delta))
        targets = self._fit_targets_of(obs)
        fits = fit_targets(search, targets, search.cache)
        self.observations_ = pd.DataFrame(obs)
        self.anomalies_, self.ratio_, self.n_max_fit_ = anomalies, ratio, n_max_fit
        self.search_, self.envelope_, self.delta_ = search, search.envelope, search.delta
        self.target_fits_, self.fits_ = fits, fits.frame()
        self.fit_warnings_ = warnings
        self.warnings_ = warnings + self._target_warnings(fits.columns)
        emit_warnings(warnings)  # the per-target ones are in warnings_ / warnings_for
        return self

    def _observations(self, obs, base, warnings):
        """Observation columns, their anomaly report and the cross-size ratio (None without ``base``)."""
        if base is None:
            if obs["n"].size < 3:
                raise ValidationError(
                    f"ADEPT needs runtimes on at least 3 different processor counts, got {obs['n'].size} "
                    f"({obs['n'].tolist()})")
            check_growth("observations", obs, self.delta)
            anomalies = detect_anomalies(obs["n"], obs["t"], self.epsilon, self.theta)
            return single_size_columns(obs, anomalies), anomalies, None
        union, anomalies, ratio, more = cross_size_union(
            pd.DataFrame({**obs, "kind": "observed"}), base, delta=self.delta, epsilon=self.epsilon,
            theta=self.theta, gamma=self.gamma, size_ratio_tolerance=self.size_ratio_tolerance,
            max_allocations=self.MAX_ALLOCATIONS)
        warnings += more
        return {c: union[c].to_numpy() for c in union.columns}, anomalies, ratio

    def _fit_targets_of(self, obs) -> np.ndarray:
        """Return the targets ``fit`` fits: ``targets``, or the default ones."""
        if self.targets is not None:
            return check_targets(self.targets, "targets", self.MAX_TARGETS)
        n = obs["n"]
        top = n.max()
        pow2 = 2.0 ** np.arange(0, np.floor(np.log2(4 * top)) + 1)
        return np.unique(np.concatenate([n, pow2, top * np.array([1.5, 2, 3, 4])]).round(6))

    def _target_warnings(self, fits: dict[str, np.ndarray]) -> list[ModelWarning]:
        """Table 3's reliability warnings for the per-target fit columns ``fits``."""
        s = self.search_
        obs = s.obs
        return target_warnings(
            fits, n_used=obs["n"][obs["weight_factor"] > 0], threshold=max(self.delta, self.high_error),
            bound=saturation_bound(s), horizon=self._SATURATION_HORIZON, paper=self.units == "paper")

    # ----------------------------------------------------------------- predict
    def explain_columns(self, n_targets) -> dict[str, np.ndarray]:
        """Return :meth:`explain` as a dict of numpy columns.

        No DataFrame: the fast path for callers that read one or two columns.

        Parameters
        ----------
        n_targets : array_like
            Processor counts (finite, >= 1; at most ``MAX_TARGETS`` distinct).

        Returns
        -------
        dict of str to numpy.ndarray
            The columns of ``fits_``, one value per target in the given order.
        """
        check_fitted(self)
        targets = check_targets(n_targets, "n_targets", self.MAX_TARGETS)
        if targets.size == 0:
            return self.target_fits_.empty()
        memo = dict(self.search_.cache)  # a copy: fitting targets here never changes the model
        if self.targets is None:  # the default targets summarise the fit; a request is fitted as a whole
            return fit_targets(self.search_, targets, memo).rows(targets)
        fits = self.target_fits_
        missing = fits.missing(targets)
        if missing.size:
            fits = fits.merge(fit_targets(self.search_, missing, memo))
        return fits.rows(targets)

    def predict(self, n_targets) -> np.ndarray:
        """Predicted runtimes at ``n_targets``, in the input's unit (NaN past an ambiguous last point).

        A runtime beyond the float range (overflowing, or underflowing to 0, for runtimes near
        1e308 or 1e-308) is a ValidationError naming the target; :meth:`explain` still shows it.

        Parameters
        ----------
        n_targets : array_like
            Processor counts (finite, >= 1; at most ``MAX_TARGETS`` distinct).

        Returns
        -------
        numpy.ndarray
            One runtime per target.
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
        """Predicted speedup S(n) = T(1)/T(n) of each target's own instance (unit-free).

        Parameters
        ----------
        n_targets : array_like
            Processor counts.

        Returns
        -------
        numpy.ndarray
            One speedup per target.
        """
        return self.explain_columns(n_targets)["speedup"]

    def explain(self, n_targets) -> pd.DataFrame:
        """Per-target fit details (the columns of ``fits_``) for the given targets.

        Parameters
        ----------
        n_targets : array_like
            Processor counts.

        Returns
        -------
        pandas.DataFrame
            One row per target, in the given order.
        """
        return pd.DataFrame(self.explain_columns(n_targets))

    def weights_for(self, n_targets) -> pd.DataFrame:
        """Return the effective fit weights per target.

        [Deshmeh2013] section 3.5.2 W_i times the anomaly, phase and cross-size factors.

        Parameters
        ----------
        n_targets : array_like
            Processor counts.

        Returns
        -------
        pandas.DataFrame
            One row per target (index "target"), one column per observed n.
        """
        check_fitted(self)
        targets = check_targets(n_targets, "n_targets", self.MAX_TARGETS)
        return pd.DataFrame(weights(self.search_, targets), index=pd.Index(targets, name="target"),
                            columns=self.observations_["n"].to_numpy())

    def warnings_for(self, n_targets) -> list[ModelWarning]:
        """Reliability warnings for specific targets (fit-level warnings included).

        Parameters
        ----------
        n_targets : array_like
            Processor counts.

        Returns
        -------
        list of ModelWarning
            ``fit_warnings_`` and the per-target warnings of these targets' fits.
        """
        fits = self.explain_columns(n_targets)
        return self.fit_warnings_ + self._target_warnings(fits)
