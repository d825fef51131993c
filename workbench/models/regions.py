"""RegionPredictor: which part of an application stops scaling, and when it starts to dominate.

One :class:`~workbench.models.scaling.ScalingPredictor` per region of a profile table
(:func:`workbench.io.read_profiles`: one row per profile, region and metric), each with its
calibrated interval and warnings, and what follows from comparing them.

A region's point prediction is the geometric mean (equal weights) of its ScalingPredictor's
and of Extra-P's own per-region model: :class:`~workbench.models.pmnf.PMNF` of the values as
measured (``strong_scaling=False``, negative exponents allowed) [ExtraP]. The predictor's
members assume strong scaling (time that falls with n, then levels off), but a region's time
often rises with n (communication, or a code whose work per process is fixed, as RELeARN's):
they level such a region off even inside the measured range. Measured by
``tools/region_coverage.py`` on four sources of region curves (every cut leaving >= 3
allocations, all five scaling models), the combination lowers the median |log error| on each
(RELeARN 0.34 -> 0.28, LULESH 0.38 -> 0.33, Extra-P's synthetic strong scaling 0.85 -> 0.47,
Extra-P's Cube set 0.58 -> 0.39); fitted on 3 allocations only, RELeARN's PMNF overshoots
(holding out its two largest: 0.22 -> 0.37). The default models leave ADEPT out
(:data:`REGION_MODELS`: 6-10x faster; 0.29, 0.35, 0.50 and 0.39).

The interval is calibrated on region predictions, not on whole programs: ``point x/÷
exp(q(level) * (shape + sqrt(ln(n / n_fitted))))`` (:func:`interval_half_width`), where
``n_fitted`` is the region's largest measured allocation and ``q`` a quantile of the held-out
errors of region predictions of six development sources, each weighted equally
(``region_calibration.json``, made by ``tools/region_coverage.py --calibrate``). The
ScalingPredictor's own interval is calibrated on whole programs that scale strongly; around
the combined point it was too wide where region times rise (RELeARN: 95 % of held-out points
inside its 80 % interval; Extra-P's Cube set: 100 %). ``warned`` and ``warnings`` are the
ScalingPredictor's, plus ``trend-disagrees`` where its point and the PMNF's differ by more
than :data:`DISAGREE`, and ``region-risk`` where its calibrated chance of a miss of more than
30 % reaches the region calibration's ``risk_threshold`` (learnt so that every development
source's warned recall is >= 0.92).

* ``share`` - the region's predicted (inclusive) time as a fraction of the root's, the
  predicted total of the run;
* ``rank`` - 1 for the region with the largest predicted *exclusive* time at that n (the
  part of the code the run spends most time in, Extra-P's "dominating function");
* ``growth`` - the fitted trend in words ("shrinks like 1/n", "grows like log n", ...): the
  term of the performance-model normal form ``a + b n^i log2(n)^j`` [ExtraP] that best
  follows the region's predicted curve from the smallest measured allocation to the largest
  target;
* region warnings: ``share-grows`` when the share rises by more than 10 % (relative) over
  that range, with the allocation at which the region becomes the largest exclusive part
  ("starts to dominate at n ~ X", interval from the regions' intervals), and
  ``runtime-rises`` when its predicted time at the largest target exceeds that at the
  smallest measured allocation by more than 5 %; regions under 1 % of the run at the largest
  target are not reported as growing in share;
* :meth:`RegionPredictor.consistency_frame` - the sum of the exclusive region predictions
  beside the predicted total (they agree when the regions' models are consistent).

The profile table's columns are documented in :mod:`workbench.io.callpath`; the curves are
taken from it with :mod:`workbench.calltree` (the time metric, exclusive and inclusive times),
as :func:`workbench.io.region_curves` does (this module cannot import :mod:`workbench.io`, a
sibling floor).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from tqdm.auto import tqdm

from workbench.calltree import exclusive_from_inclusive, inclusive_from_exclusive, time_metric
from workbench.errors import ModelWarning, ValidationError, WorkbenchError, emit_warnings, quiet_warnings
from workbench.models import region_sizes
from workbench.models.pmnf import PMNF
from workbench.models.region_intervals import (
    CALIBRATION_PATH,
    interval_half_width,
    interval_scale,
    shipped_region_calibration,
)
from workbench.models.scaling import MODELS, ScalingPredictor
from workbench.validation import FittedState, Threshold, check_fitted

__all__ = ["RegionPredictor", "REGION_FRAME_COLUMNS", "REGION_WARNING_KINDS", "DISAGREE", "REGION_MODELS",
           "CALIBRATION_PATH", "growth_words", "interval_half_width", "interval_scale", "shipped_region_calibration"]

REGION_FRAME_COLUMNS = ["region", "n", "prediction", "lower", "upper", "share", "rank", "growth", "warned",
                        "warnings"]
#: Region-level warning kinds (beside the ScalingPredictor's own, :data:`~workbench.models.scaling.WARNING_KINDS`).
REGION_WARNING_KINDS = {
    "share-grows": "the region's share of the predicted total rises by more than 10 % (relative) with n",
    "runtime-rises": "the region's predicted time at the largest target is > 5 % above that at the smallest "
                     "measured allocation",
}
#: Above this |log| ratio between a region's ScalingPredictor point and its PMNF, the row is ``warned``.
DISAGREE = Threshold(1.0, "|log ratio|", "a region's strong-scaling predictor and its measured trend (PMNF) differ by "
                     "more than a factor e = 2.7 at the target", "trend-disagrees")
REGION_WARNING_KINDS["trend-disagrees"] = DISAGREE.meaning
RISK_KIND = "region-risk"
REGION_WARNING_KINDS[RISK_KIND] = (
    "the ScalingPredictor's calibrated chance of a miss of more than 30 % is at least the region calibration's "
    "risk_threshold (learnt on held-out region predictions)")
# the columns of region_frame (after n)
_REGION_FRAME = ["prediction", "lower", "upper", "warned", "warnings", "miss_probability"]
#: The models each region's ScalingPredictor combines by default: every one but ADEPT, whose fit
#: per target is ~90 % of a region's fit and prediction time (40 regions: fit 5.8 -> 0.6 s,
#: predict 9.2 -> 1.0 s, bench/region_speed.py) for a median |log error| 0.3-2.5 points lower
#: (tools/region_coverage.py); pass ``models=tuple(MODELS)`` to include it.
REGION_MODELS = tuple(m for m in MODELS if m != "adept")
# a progress bar over the regions from this many on (progress=None)
_PROGRESS_FROM = 20
_SHARE_RISE, _RISE = 0.10, 0.05
# a region below 1 % of the run at the largest target is not reported as growing in share
_MIN_SHARE = 0.01
_LIMITS = (_SHARE_RISE, _RISE, _MIN_SHARE)  # the region warnings' thresholds, for region_sizes
_REQUIRED = ("profile", "region", "parent", "depth", "metric", "kind", "aggregation", "value", "unit")
# the PMNF terms growth_words chooses from: (i, j) of n^i log2(n)^j and their names
_TERMS = ((-1.0, 0, "1/n"), (-0.5, 0, "1/sqrt(n)"), (-1.0, 1, "log n / n"), (0.0, 1, "log n"), (0.5, 0, "sqrt(n)"),
          (1.0, 0, "n"), (1.0, 1, "n log n"), (2.0, 0, "n^2"), (0.0, 2, "log^2 n"))
_FLAT = 0.05
# Weight of the region's PMNF in the geometric mean with its ScalingPredictor (equal weights): the
# predictor's members assume strong scaling, a region's time often rises with n (tools/region_coverage.py)
_PMNF_WEIGHT = 0.5


def growth_words(n: np.ndarray, t: np.ndarray) -> str:
    """Return the trend of a predicted curve ``t(n)`` in words.

    Fits ``a + b f(n)`` for each term ``f`` of :data:`_TERMS` by least squares (all terms
    at once, vectorised) and names the best term whose direction matches the curve's:
    "grows like log n" (b > 0 for a term that grows), "shrinks like 1/n" (b > 0 for a term
    that decays). A rising curve best followed by a decaying term (``a - b/n``) "grows and
    levels off", a falling one best followed by a growing term "shrinks and levels off".
    A curve that changes by less than 5 % over the range "stays flat".

    Parameters
    ----------
    n : numpy.ndarray
        Allocations, increasing.
    t : numpy.ndarray
        The predicted times at ``n`` (positive).
    """
    n, t = np.asarray(n, float), np.asarray(t, float)
    ok = np.isfinite(t) & (t > 0) & np.isfinite(n) & (n > 0)
    n, t = n[ok], t[ok]
    if n.size < 3 or np.ptp(n) == 0:
        return "unknown"
    if np.ptp(t) <= _FLAT * np.median(t):
        return "stays flat"
    x = np.log2(n)
    f = np.stack([n ** i * x ** j for i, j, _ in _TERMS])  # (terms, points)
    fc = f - f.mean(axis=1, keepdims=True)
    tc = t - t.mean()
    denom = (fc ** 2).sum(axis=1)
    b = np.divide(fc @ tc, denom, out=np.zeros(len(_TERMS)), where=denom > 0)
    residual = ((tc[None, :] - b[:, None] * fc) ** 2).sum(axis=1)
    rising = t[np.argmax(n)] > t[np.argmin(n)]
    decays = np.array([i < 0 for i, _, _ in _TERMS])  # (log n / n decays from n = 3 on)
    matching = (b > 0) & (decays != rising)
    if not matching.any() or residual[matching].min() > 2 * residual.min():
        return "grows and levels off" if rising else "shrinks and levels off"
    best = int(np.flatnonzero(matching)[np.argmin(residual[matching])])
    return f"{'grows' if rising else 'shrinks'} like {_TERMS[best][2]}"


class RegionPredictor(FittedState, BaseEstimator):
    """Predict every region of an application's profiles, with intervals and warnings per region.

    Parameters
    ----------
    models : tuple of str, default :data:`REGION_MODELS`
        The models each region's :class:`~workbench.models.scaling.ScalingPredictor` combines
        (names of :data:`~workbench.models.scaling.MODELS`; the default leaves ADEPT out).
    calibration : Calibration or None, default None
        Passed to every ScalingPredictor (None: the shipped table).
    config : dict or None, default None
        Run parameters that select one configuration when the profiles hold several (e.g.
        ``{"n": 5000}`` for one problem size of a p x n experiment); None takes the
        configuration with the most profiles and warns (``several-configurations``).
    region_calibration : dict or None, default None
        The region interval calibration (:func:`interval_half_width`: keys ``shape``,
        ``levels``, ``quantiles``); None: the shipped table, ``region_calibration.json``.

    Fitted attributes
    -----------------
    metric_ : tuple (metric, kind, aggregation) of the modelled values.
    n_column_ : the allocation column.
    parameters_ : tuple of the problem-parameter columns modelled beside it (empty: none;
        then ``predictors_`` holds one :class:`~workbench.models.multiparam.MultiParameterPredictor` per region).
    regions_ : DataFrame, one row per modelled region: region, name, parent, depth,
        allocations (distinct n measured), exclusive (whether exclusive times were fitted).
    root_ : the region whose predicted time is the total (the root with the largest
        measured time).
    parts_ : the regions whose exclusive times add up to the total: the root and its
        descendants, or, for a flat profile whose root has no children, every other region.
    measured_ratio_ : median over the profiles of the parts' measured exclusive times summed
        (negative ones as 0), divided by the root's inclusive time (1 for a consistent call
        tree; above 1 when regions overlap).
    predictors_ : dict region -> fitted ScalingPredictor of the inclusive time.
    pmnf_ : dict region -> fitted PMNF (Extra-P's per-region model of the values as
        measured) of the inclusive time, None where it cannot be fitted; the prediction is
        the geometric mean of both.
    exclusive_pmnf_ : the same for the exclusive time, beside ``exclusive_predictors_``.
    exclusive_predictors_ : dict region -> fitted ScalingPredictor of the exclusive time
        (measured, or a region's time minus its children's per profile).
    runs_ : DataFrame of the runs fitted: region, n, run, inclusive, exclusive.
    n_min_, n_max_ : smallest and largest measured allocation.
    warnings_ : list of :class:`~workbench.errors.ModelWarning` (skipped regions, chosen
        configuration).
    """

    #: set by ``fit``: one predictor per modelled region
    fitted_attribute = "predictors_"

    def __init__(self, models=REGION_MODELS, calibration=None, config=None, region_calibration=None):
        self.models = models
        self.calibration = calibration
        self.config = config
        self.region_calibration = region_calibration

    # ------------------------------------------------------------------ fitting
    def fit(self, table: pd.DataFrame, metric: str | None = None, n: str = "processes",
            parameters=None, progress: bool | None = None) -> RegionPredictor:
        """Fit one ScalingPredictor per region (inclusive and exclusive time) on a profile table.

        Parameters
        ----------
        table : pandas.DataFrame
            A profile table (:func:`workbench.io.read_profiles`).
        metric : str or None, default None
            The metric to model; None takes the inclusive time with the max-over-ranks
            aggregation when present (the slowest rank sets the run time), or the only
            metric of a table that holds one.
        n : str, default "processes"
            The allocation column.
        parameters : str or sequence of str or None, default None
            Problem-parameter columns (e.g. ``("size",)``; RELeARN's neurons per rank ``"n"``
            with ``n="processes"``): every region is then modelled over the allocation x
            these parameters by a :class:`~workbench.models.multiparam.MultiParameterPredictor`
            (:mod:`workbench.models.region_sizes`; ``models`` and ``calibration`` are the
            scaling predictors' and do not apply), and :meth:`predict_frame` takes a
            DataFrame of targets.  None: one allocation axis, one configuration.
        progress : bool or None, default None
            Show a progress bar over the regions (``tqdm.auto``); None: from 20 regions on.

        Returns
        -------
        RegionPredictor
            self.
        """
        where = "RegionPredictor.fit"
        if not isinstance(table, pd.DataFrame):
            raise ValidationError(f"{where}: expected a profile table (pandas DataFrame), got {type(table).__name__}")
        missing = [c for c in (*_REQUIRED, n) if c not in table.columns]
        if missing:
            raise ValidationError(f"{where}: the profile table lacks column(s) {', '.join(map(repr, missing))}"
                                  + (" (the allocation column, n=...)" if n in missing else ""))
        axes = region_sizes.check_size_parameters(table, n, parameters) if parameters is not None else ()
        warnings: list[ModelWarning] = []
        name, _, aggregation = time_metric(table, "inclusive", metric, where)
        rows = table[(table["metric"] == name) & (table["aggregation"] == aggregation)].copy()
        rows["_n"] = pd.to_numeric(rows[n], errors="coerce")
        rows = rows[rows["_n"].notna()]
        if rows.empty:
            raise ValidationError(f"{where}: column {n!r} is empty for {name!r}: the profiles do not say their {n}")
        rows, note = self._one_configuration(rows, n, axes)
        if note:
            warnings.append(note)
        inclusive, exclusive = _both_kinds(rows)
        runs = _runs(inclusive, exclusive)
        if axes:  # each run's problem parameters beside its times
            runs = runs.merge(region_sizes.profile_parameters(rows, axes), on="profile", how="left")
        self.parameters_ = axes
        self.metric_ = (name, "inclusive", aggregation)
        self.n_column_ = n
        self.runs_ = runs
        self.n_min_, self.n_max_ = float(runs["n"].min()), float(runs["n"].max())
        self.predictors_, self.exclusive_predictors_ = {}, {}
        self.pmnf_, self.exclusive_pmnf_ = {}, {}
        self._memo = {}  # predictions by (model, region, level) and n: the dashboard asks for the same n again
        info = inclusive.drop_duplicates("region").set_index("region")
        if axes:
            self.predictors_, self.exclusive_predictors_, records, notes = region_sizes.fit_regions_over_sizes(
                runs, info, axes)
            warnings += notes
        else:
            records = self._fit_regions(runs, info, warnings, progress)
        if not records:
            raise ValidationError(f"{where}: no region has 3 allocations with a positive time; measure at least 3 "
                                  f"values of {n!r}" + (f" and {region_sizes.MIN_POINTS} points of {n!r} x "
                                                        f"{', '.join(axes)}" if axes else ""))
        self.regions_ = pd.DataFrame(records)
        self._set_parts(runs)
        self.warnings_ = warnings
        emit_warnings(self.warnings_)
        return self

    def _fit_regions(self, runs: pd.DataFrame, info: pd.DataFrame, warnings: list,
                     progress: bool | None) -> list[dict]:
        """Fit the inclusive (and, where measured, exclusive) predictor of every region; one record each."""
        records = []
        groups = runs.groupby("region", sort=False)
        show = groups.ngroups >= _PROGRESS_FROM if progress is None else bool(progress)
        for region, group in tqdm(groups, total=groups.ngroups, desc="regions", unit="region", disable=not show):
            incl = group[group["inclusive"] > 0]
            if incl["n"].nunique() < 3:
                warnings.append(ModelWarning("region-skipped", f"region {region!r}: only {incl['n'].nunique()} "
                                             f"allocations with a positive time; 3 are needed to model it"))
                continue
            with quiet_warnings():
                self.predictors_[region] = ScalingPredictor(self.models, self.calibration).fit(
                    incl["n"].to_numpy(float), incl["inclusive"].to_numpy(float))
                self.pmnf_[region] = _region_pmnf(incl["n"].to_numpy(float), incl["inclusive"].to_numpy(float))
                excl = group[group["exclusive"] > 0]
                if excl["n"].nunique() >= 3:
                    self.exclusive_predictors_[region] = ScalingPredictor(self.models, self.calibration).fit(
                        excl["n"].to_numpy(float), excl["exclusive"].to_numpy(float))
                    self.exclusive_pmnf_[region] = _region_pmnf(excl["n"].to_numpy(float),
                                                                excl["exclusive"].to_numpy(float))
            records.append({"region": region, "name": info.loc[region, "name"] if "name" in info else region,
                            "parent": info.loc[region, "parent"], "depth": int(info.loc[region, "depth"]),
                            "allocations": int(incl["n"].nunique()),
                            "exclusive": region in self.exclusive_predictors_,
                            "measured": float(incl["inclusive"].median())})
        return records

    def _set_parts(self, runs: pd.DataFrame) -> None:
        """Set the root region, the parts its time is split into and their measured share of it."""
        roots = self.regions_[self.regions_["depth"] == self.regions_["depth"].min()]
        self.root_ = str(roots.sort_values("measured", ascending=False)["region"].iloc[0])
        regions = self.regions_["region"].tolist()
        under = [r for r in regions if r == self.root_ or r.startswith(self.root_ + "->")]
        # a flat profile (a root without children beside the other regions, as RELeARN's
        # main()) has its parts beside the root
        others = [r for r in regions if r != self.root_]
        self.parts_ = under if len(under) > 1 or not others else others
        # negative own times (a region's children measured longer than itself) count as 0, as in the fits
        own = runs[runs["region"].isin(self.parts_)].assign(exclusive=lambda f: f["exclusive"].clip(lower=0)).groupby(
            "profile")["exclusive"].sum()
        total = runs[runs["region"] == self.root_].set_index("profile")["inclusive"]
        with np.errstate(invalid="ignore", divide="ignore"):
            self.measured_ratio_ = float(np.nanmedian((own.reindex(total.index) / total).to_numpy(float)))

    def _one_configuration(self, rows: pd.DataFrame, n: str, axes=()):
        """Keep one configuration (the other varying run parameters) of the profiles; ``axes`` are modelled."""
        fixed = set(_REQUIRED) | {"profile", "format", "name", "run", "_n", n, "processes", "nodes", "threads", "gpus",
                                  *axes}
        per_run = {"launchdate", "launchday", "elapsed_time", "figure_of_merit", "user", "cmdline", "libraries",
                   "executablepath", "jobsize", "mpi.world.size", "numhosts", "p"}
        profiles = rows.drop_duplicates("profile")
        params = [c for c in rows.columns if c not in fixed and c.lower() not in per_run
                  and profiles[c].astype(str).nunique() > 1]
        if self.config:
            unknown = [k for k in self.config if k not in rows.columns]
            if unknown:
                raise ValidationError("RegionPredictor: config names unknown column(s) "
                                      f"{', '.join(map(repr, unknown))}")
            keep = np.ones(len(rows), bool)
            for key, value in self.config.items():
                keep &= (rows[key].astype(str) == str(value)) | (pd.to_numeric(rows[key], errors="coerce") == value)
            if not keep.any():
                raise ValidationError(f"RegionPredictor: no profile has {self.config}")
            return rows[keep], None
        if not params:
            return rows, None
        keys = rows[params].astype(str).agg(", ".join, axis=1)
        counts = keys[rows.index.isin(profiles.index)].value_counts(sort=False)
        best = counts.idxmax()
        chosen = rows[keys == best]
        label = ", ".join(f"{p}={v}" for p, v in zip(params, chosen[params].iloc[0]))
        return chosen, ModelWarning(
            "several-configurations",
            f"the profiles hold {len(counts)} configurations of {', '.join(params)}; modelled {label} (the one with "
            f"the most profiles); choose another with config={{...}}")

    def _check(self):
        check_fitted(self, fit="fit(table)")

    def region_frame(self, region: str, targets, level: float = 0.8, exclusive: bool = False) -> pd.DataFrame:
        """Return one region's predictions at ``targets``.

        Columns n, prediction, lower, upper (the ScalingPredictor's ``predict_frame`` with its
        point combined with the region's PMNF, and the region calibration's interval about it),
        warned, warnings (the ScalingPredictor's, ``trend-disagrees`` and ``region-risk``),
        miss_probability (the ScalingPredictor's calibrated chance of a miss of more than 30 %,
        which ``region-risk`` compares with the region calibration's ``risk_threshold``). ``exclusive`` selects the
        model of its exclusive time. Predictions are kept per allocation, so asking again
        for the same n costs nothing (each new n of an ADEPT member is a fit of its own).

        Parameters
        ----------
        region : str
            The region's call path (a row of ``regions_``).
        targets : array-like of float
            Allocations to predict at.
        level : float, default 0.8
            Central probability of the interval.
        exclusive : bool, default False
            Predict the region's exclusive time instead of its inclusive time.
        """
        self._check()
        if getattr(self, "parameters_", ()):
            raise ValidationError(f"RegionPredictor: fitted over {self.n_column_} x {', '.join(self.parameters_)}; "
                                  "ask predict_frame with a DataFrame of targets")
        models = self.exclusive_predictors_ if exclusive else self.predictors_
        if region not in models:
            raise ValidationError(f"RegionPredictor: no {'exclusive ' if exclusive else ''}model of region {region!r}; "
                                  f"regions: {', '.join(map(repr, list(models)[:10]))}")
        n = np.atleast_1d(np.asarray(targets, float))
        memo = self.__dict__.setdefault("_memo", {}).setdefault((exclusive, region, float(level)), {})
        missing = np.unique(n[[x not in memo for x in n]])
        if missing.size:
            frame = self._with_pmnf(region, missing, models[region].predict_frame(missing, level), exclusive, level)
            for x, row in zip(missing, frame[_REGION_FRAME].itertuples(
                    index=False)):
                memo[float(x)] = tuple(row)
        rows = [memo[float(x)] for x in n]
        return pd.DataFrame(rows, columns=_REGION_FRAME).assign(n=n)[["n", *_REGION_FRAME]]

    def _predict(self, region: str, n, exclusive: bool = False) -> np.ndarray:
        return self.region_frame(region, n, exclusive=exclusive)["prediction"].to_numpy(float)

    def _lattice(self) -> np.ndarray:
        """Return fixed allocations for curves and searches (so that predictions are reused across targets)."""
        return np.geomspace(self.n_min_, self.n_max_ * 4096, 121)

    # ------------------------------------------------------------- predicting
    def _region_frames(self, targets, level):
        frames = {}
        for region, model in self.predictors_.items():
            frame = model.predict_frame(targets, level)
            frames[region] = self._with_pmnf(region, frame["n"].to_numpy(float), frame, False, level)
        return frames

    def _with_pmnf(self, region: str, n: np.ndarray, frame: pd.DataFrame, exclusive: bool,
                   level: float) -> pd.DataFrame:
        """Return the ScalingPredictor's frame with the region's point and interval.

        The point is the geometric mean of the ScalingPredictor's and the region's PMNF
        (weight :data:`_PMNF_WEIGHT`; where the PMNF has no positive prediction, the
        ScalingPredictor's point alone). The interval is the region calibration's
        (:func:`interval_half_width`) about that point. A row whose two points differ by more
        than :data:`DISAGREE` is ``warned`` (``trend-disagrees``), and so is one whose
        ScalingPredictor gives a miss of more than 30 % a calibrated chance of at least the
        region calibration's ``risk_threshold`` (``region-risk``).
        """
        models = self.exclusive_predictors_ if exclusive else self.predictors_
        pmnf = (self.exclusive_pmnf_ if exclusive else self.pmnf_).get(region)
        point = frame["prediction"].to_numpy(float)
        combined, apart = point, np.zeros(point.shape, bool)
        if pmnf is not None:
            theirs = _pmnf_values(pmnf, n)
            ok = np.isfinite(theirs) & (theirs > pmnf.floor_) & np.isfinite(point) & (point > 0)
            theirs = np.where(ok, theirs, 1.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                combined = np.where(ok, point ** (1 - _PMNF_WEIGHT) * theirs ** _PMNF_WEIGHT, point)
                apart = ok & (np.abs(np.log(theirs / np.where(ok, point, 1.0))) > DISAGREE.value)
        calibration = self.region_calibration if self.region_calibration is not None else shipped_region_calibration()
        half = interval_half_width(n, models[region].n_max_, level, calibration)
        out = frame.copy()
        out["prediction"] = combined
        out["lower"], out["upper"] = combined * np.exp(-half), combined * np.exp(half)
        risk = np.asarray(frame.attrs.get("miss_probability", np.full(point.shape, np.nan)), float)
        out["miss_probability"] = risk
        threshold = calibration.get("risk_threshold")
        risky = risk >= threshold if threshold is not None else np.zeros(point.shape, bool)
        messages = dict(frame.attrs.get("messages", {}))
        if apart.any():
            ratio = float(np.exp(np.max(np.abs(np.log(theirs / np.where(apart, point, theirs))))))
            messages[DISAGREE.used_by] = (
                f"the strong-scaling models and the region's measured trend (Extra-P's PMNF) differ by up to "
                f"{ratio:.1f}x here (more than {np.exp(DISAGREE.value):.1f}x): the point is their geometric "
                "mean; plan with the interval")
        if risky.any():
            messages[RISK_KIND] = (
                f"a miss of more than 30 % has a calibrated chance of up to {np.nanmax(risk[risky]):.0%} here, at "
                f"least the {threshold:.0%} above which region predictions are warned (learnt on held-out region "
                "predictions): plan with the interval")
        out["warned"] = out["warned"].to_numpy(bool) | apart | risky
        out["warnings"] = [tuple(dict.fromkeys((*kinds, *([DISAGREE.used_by] if far else []),
                                                *([RISK_KIND] if high else []))))
                           for kinds, far, high in zip(out["warnings"], apart, risky)]
        out.attrs["messages"] = messages
        return out

    def _exclusive(self, targets, inclusive: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Predicted exclusive time per region: its own model, else inclusive minus children's."""
        out = {}
        for region in self.predictors_:
            if region in self.exclusive_predictors_:
                out[region] = self._predict(region, targets, exclusive=True)
            else:
                children = [r for r in self.predictors_ if self._parent(r) == region]
                rest = inclusive[region] - sum((inclusive[c] for c in children), np.zeros_like(inclusive[region]))
                out[region] = np.maximum(rest, 0.0)
        return out

    def _parent(self, region: str) -> str:
        return str(self.regions_.set_index("region").at[region, "parent"])

    def predict_frame(self, targets, level: float = 0.8) -> pd.DataFrame:
        """Predict every region at the allocations ``targets``.

        Parameters
        ----------
        targets : array-like of float or pandas.DataFrame
            Allocations to predict at; fitted with ``parameters``, a DataFrame with the
            allocation column and every parameter.
        level : float, default 0.8
            Central probability of the intervals.

        Returns
        -------
        pandas.DataFrame
            One row per (region, n), :data:`REGION_FRAME_COLUMNS`: ``prediction``,
            ``lower``, ``upper`` (the calibrated ``level`` interval of the region's
            inclusive time, in the unit of the profiles), ``share`` (of the root's
            predicted time), ``rank`` (1 = largest predicted exclusive time at that n),
            ``growth`` (words), ``warned`` (the region's ScalingPredictor warns at that n, or
            ``trend-disagrees`` or ``region-risk`` holds) and ``warnings`` (its kinds plus
            :data:`REGION_WARNING_KINDS`).
            ``attrs["verdicts"]`` holds :meth:`verdicts`, ``attrs["consistency"]``
            :meth:`consistency_frame` and ``attrs["messages"]`` the sentences of every
            region's warnings.  Fitted with ``parameters``: ``targets`` is a DataFrame
            (the allocation column and the parameters) and the frame has those columns in
            place of ``n`` (:func:`workbench.models.region_sizes.predict_frame_over_sizes`).
        """
        self._check()
        if getattr(self, "parameters_", ()):
            return region_sizes.predict_frame_over_sizes(self, targets, level, self._lattice(), _LIMITS, growth_words)
        frames = self._region_frames(targets, level)
        n = frames[self.root_]["n"].to_numpy(float)
        inclusive = {r: f["prediction"].to_numpy(float) for r, f in frames.items()}
        exclusive = self._exclusive(n, inclusive)
        verdicts = self.verdicts(n, level)
        flags = {r: [tuple(verdicts.loc[verdicts["region"] == r, "kind"])] * n.size for r in frames}
        growth = {r: self._growth(r, n) for r in frames}
        frame = region_sizes.region_rows(frames, exclusive, self.root_, {"n": n}, growth, flags)[REGION_FRAME_COLUMNS]
        frame.attrs["verdicts"] = verdicts
        frame.attrs["consistency"] = self.consistency_frame(n)
        frame.attrs["messages"] = {r: f.attrs.get("messages", {}) for r, f in frames.items()}
        return frame

    def predict_exclusive(self, targets) -> pd.DataFrame:
        """Return every region's predicted exclusive time at ``targets``.

        Columns region, n, exclusive (its own model's prediction, or the region's inclusive
        prediction minus its children's where its exclusive times could not be modelled);
        stacked over the regions under the root, they make the predicted total.

        Parameters
        ----------
        targets : array-like of float or pandas.DataFrame
            Allocations to predict at (a DataFrame of targets when fitted with ``parameters``).
        """
        self._check()
        if getattr(self, "parameters_", ()):
            return region_sizes.predict_exclusive_over_sizes(self, targets)
        n = np.atleast_1d(np.asarray(targets, float))
        inclusive = {r: self._predict(r, n) for r in self.predictors_}
        exclusive = self._exclusive(n, inclusive)
        return pd.DataFrame({"region": np.repeat(list(exclusive), n.size), "n": np.tile(n, len(exclusive)),
                             "exclusive": np.concatenate(list(exclusive.values()))})

    def _grid(self, targets) -> np.ndarray:
        top = max(float(np.max(targets)), self.n_max_)
        lattice = self._lattice()
        return np.unique(np.concatenate([lattice[lattice < top], [top]]))

    def _growth(self, region: str, targets) -> str:
        grid = self._grid(targets)
        return growth_words(grid, self._predict(region, grid))

    def growth(self, targets) -> pd.DataFrame:
        """Return the trend in words of every region from the smallest allocation to ``max(targets)``.

        Parameters
        ----------
        targets : array-like of float or pandas.DataFrame
            Allocations the trend runs to (a DataFrame of targets when fitted with ``parameters``).
        """
        self._check()
        if getattr(self, "parameters_", ()):
            return region_sizes.growth_over_sizes(self, targets, self._lattice(), _LIMITS, growth_words)
        return pd.DataFrame({"region": list(self.predictors_),
                             "growth": [self._growth(r, targets) for r in self.predictors_]})

    def verdicts(self, targets, level: float = 0.8, horizon: float = 64.0) -> pd.DataFrame:
        """Regions whose share grows with n or whose runtime rises, with where they start to dominate.

        Parameters
        ----------
        targets : array-like
            Allocations the question is about (the range runs from the smallest measured
            allocation to ``max(targets)``).
        level : float, default 0.8
            Interval level of the dominance interval.
        horizon : float, default 64.0
            How far beyond ``max(targets)`` (a factor; at most 4096 times the largest measured
            allocation) to look for the allocation at which a growing region becomes the
            largest exclusive part.

        Returns
        -------
        pandas.DataFrame
            Columns region, kind (:data:`REGION_WARNING_KINDS`), n_dominates (NaN: not
            within the horizon), n_lower, n_upper (from the regions' intervals: where the
            region's upper bound first exceeds every other region's prediction, and where
            its lower bound does), message (words).
        """
        self._check()
        if getattr(self, "parameters_", ()):
            return region_sizes.verdicts_over_sizes(self, targets, level, horizon, self._lattice(), _LIMITS)
        targets = np.atleast_1d(np.asarray(targets, float))
        grid = self._grid(targets)
        share_rows = []
        total = self._predict(self.root_, grid)
        lattice = self._lattice()
        far = lattice[lattice <= max(float(targets.max()), self.n_max_) * horizon]
        far_frames = {r: self.region_frame(r, far, level, exclusive=True) for r in self.exclusive_predictors_}
        for region in self.predictors_:
            if region == self.root_:
                continue
            pred = self._predict(region, grid)
            with np.errstate(invalid="ignore", divide="ignore"):
                share = pred / total
            if (np.isfinite(share[[0, -1]]).all() and share[-1] > (1 + _SHARE_RISE) * share[0]
                    and share[-1] >= _MIN_SHARE):
                n_at, lo, hi = self._dominance(region, far, far_frames)
                until = f"{hi:.4g}" if np.isfinite(hi) else f"beyond {far[-1]:.4g}"
                where = (f"starts to dominate at n ~ {n_at:.4g} (between {lo:.4g} and {until})"
                         if np.isfinite(n_at) else
                         ("already the largest part" if n_at == -np.inf else
                          f"does not become the largest part before n = {far[-1]:.4g}"))
                share_rows.append({"region": region, "kind": "share-grows",
                                   "n_dominates": n_at if np.isfinite(n_at) else np.nan,
                                   "n_lower": lo, "n_upper": hi,
                                   "message": f"{region}: its share of the run grows from {share[0]:.1%} at n = "
                                              f"{grid[0]:g} to {share[-1]:.1%} at n = {grid[-1]:g}; it {where}"})
            ends = pred[[0, -1]]
            if ends[1] > (1 + _RISE) * ends[0]:
                share_rows.append({"region": region, "kind": "runtime-rises", "n_dominates": np.nan,
                                   "n_lower": np.nan, "n_upper": np.nan,
                                   "message": f"{region}: its time rises with n ({self._growth(region, targets)}): "
                                              f"{ends[0]:.4g} at n = {grid[0]:g}, {ends[1]:.4g} predicted at "
                                              f"n = {grid[-1]:g}"})
        return pd.DataFrame(share_rows, columns=["region", "kind", "n_dominates", "n_lower", "n_upper", "message"])

    def _dominance(self, region: str, far: np.ndarray, frames: dict) -> tuple[float, float, float]:
        """First n where the region's exclusive time is the largest (and its interval's ends)."""
        if region not in frames:
            return np.nan, np.nan, np.nan
        mine = frames[region]
        others = [f["prediction"].to_numpy(float) for r, f in frames.items() if r != region]
        if not others:
            return -np.inf, np.nan, np.nan
        best_other = np.nanmax(np.vstack(others), axis=0)
        pred, lower, upper = (mine[c].to_numpy(float) for c in ("prediction", "lower", "upper"))

        def first(mask):
            hit = np.flatnonzero(mask)
            return float(far[hit[0]]) if hit.size else np.nan

        n_at = first(pred > best_other)
        if n_at == far[0]:
            return -np.inf, np.nan, np.nan
        return n_at, first(upper > best_other), first(lower > best_other)

    def consistency_frame(self, targets) -> pd.DataFrame:
        """Compare the sum of the regions' exclusive predictions with the predicted total.

        Parameters
        ----------
        targets : array-like of float or pandas.DataFrame
            Allocations to compare at (a DataFrame of targets when fitted with ``parameters``).

        Returns
        -------
        pandas.DataFrame
            Columns n, total (the root's predicted time), sum_exclusive (the exclusive
            predictions of ``parts_`` summed), ratio (sum_exclusive / total; 1 when the
            region models agree with the total's), measured_ratio (the same ratio in the
            measured profiles, median: far from 1 when the regions overlap, i.e. the
            profile's nesting does not match its times).
        """
        self._check()
        if getattr(self, "parameters_", ()):
            return region_sizes.consistency_over_sizes(self, targets)
        n = np.atleast_1d(np.asarray(targets, float))
        inclusive = {r: self._predict(r, n) for r in self.predictors_}
        exclusive = self._exclusive(n, inclusive)
        total = inclusive[self.root_]
        summed = np.nansum(np.vstack([exclusive[r] for r in self.parts_]), axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = summed / total
        return pd.DataFrame({"n": n, "total": total, "sum_exclusive": summed, "ratio": ratio,
                             "measured_ratio": self.measured_ratio_})


def _pmnf_values(pmnf: PMNF, n: np.ndarray) -> np.ndarray:
    """Return a region's PMNF at ``n``; NaN where it is undefined.

    A negative power of log2(n) has no value at n = 1: a region measured from n = 2 on can
    have one, and the verdicts ask every region from the run's smallest allocation on.
    """
    defined = (n > 1) | (pmnf.hypothesis_.j >= 0)
    out = np.full(n.shape, np.nan)
    if defined.any():
        with quiet_warnings():  # a non-positive PMNF value is returned as its floor_: left out by the caller
            out[defined] = pmnf.predict(n[defined])
    return out


def _region_pmnf(n: np.ndarray, t: np.ndarray) -> PMNF | None:
    """Return Extra-P's per-region model of the values as measured (None when PMNF cannot fit them)."""
    try:
        return PMNF(strong_scaling=False, allow_negative_exponents=True).fit(n, t)
    except WorkbenchError:
        return None


def _both_kinds(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return the inclusive and exclusive rows of one metric, each derived from the other where missing."""
    inclusive = rows[rows["kind"] == "inclusive"]
    if inclusive.empty and (rows["kind"] == "exclusive").any():  # inclusive = own + descendants' per profile
        inclusive = inclusive_from_exclusive(rows[rows["kind"] == "exclusive"])
    elif inclusive.empty:  # a value per region that says neither (kind "n/a"): modelled as it is
        inclusive = rows.assign(kind="inclusive")
    exclusive = rows[rows["kind"] == "exclusive"]
    if exclusive.empty:
        exclusive = exclusive_from_inclusive(inclusive)
    return inclusive, exclusive


def _runs(inclusive: pd.DataFrame, exclusive: pd.DataFrame) -> pd.DataFrame:
    """One row per (region, profile): n, run index and both times."""
    incl = inclusive[["region", "profile", "_n", "value"]].rename(columns={"_n": "n", "value": "inclusive"})
    excl = exclusive[["region", "profile", "value"]].rename(columns={"value": "exclusive"})
    runs = incl.merge(excl, on=["region", "profile"], how="left")
    runs = runs.sort_values(["region", "n", "profile"], kind="stable")
    runs["run"] = runs.groupby(["region", "n"], sort=False).cumcount()
    return runs.reset_index(drop=True)[["region", "n", "run", "inclusive", "exclusive", "profile"]]
