"""ADEPT's observations: input checks, repeated runs, target weights and the cross-size union.

Everything here runs once per :meth:`~workbench.models.adept.Adept.fit`, before any search
([Deshmeh2013] sections 3.5.2, 3.12-3.15).  Observations travel between the modules as a
dict of numpy columns (n, t, runs, dropped, kind, weight_factor, phase, only_for_target), the
columns of :attr:`~workbench.models.adept.Adept.observations_`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench import validation
from workbench.errors import ModelWarning, ValidationError
from workbench.models.adept.anomalies import AnomalyReport, detect_anomalies
from workbench.models.adept.warnings import sizes_differ_warning
from workbench.validation import one_dimensional, require_none, require_span

__all__ = ["MAX_PROCESSORS", "aggregate_columns", "aggregate_repeats", "check_growth",
           "check_observations", "check_size", "check_targets", "cross_size_union", "single_size_columns",
           "target_weights"]

#: Largest processor count ADEPT accepts in observations: 2^53.
MAX_PROCESSORS = float(2**53)


def check_observations(n, t, label: str = "observations") -> tuple[np.ndarray, np.ndarray]:
    """Check processor counts ``n`` and runtimes ``t`` and return them as float arrays.

    The checks of :mod:`workbench.validation` (:func:`~workbench.validation.one_dimensional`,
    :func:`~workbench.validation.require_none`, :func:`~workbench.validation.require_span`)
    with ADEPT's limits.

    Parameters
    ----------
    n, t : array_like
        Processor counts (1 to 2^53) and positive runtimes, one per run.
    label : str, default "observations"
        Which observations, for the error messages.

    Returns
    -------
    tuple of numpy.ndarray
        ``(n, t)``.

    Raises
    ------
    ValidationError
        Naming the first problem: lengths, NaN/infinity, counts < 1 or > 2^53, runtimes <= 0,
        runtimes spanning more than :data:`workbench.validation.MAX_RUNTIME_SPAN`; the
        positions (and values) concerned.
    """
    n = one_dimensional(n, "n (processor counts)")
    t = one_dimensional(t, "t (runtimes)")
    if len(n) != len(t):
        raise ValidationError(f"{label}: n has {len(n)} values but t has {len(t)}")
    if len(n) == 0:
        raise ValidationError(f"{label}: no observations given")
    require_none(~np.isfinite(n), n, "processor counts contain NaN or infinity", label, show_values=False)
    require_none(~np.isfinite(t), t, "runtimes contain NaN or infinity", label, show_values=False)
    require_none(n < 1, n, "processor counts must be >= 1", label)
    require_none(n > MAX_PROCESSORS, n, f"processor counts must be at most 2^53 = {MAX_PROCESSORS:g} (the largest "
                 "integer a float holds exactly; ADEPT searches A up to 20 times the largest count)", label, limit=5)
    require_none(t <= 0, t, "runtimes must be positive", label)
    require_span(t, label)
    return n, t


def check_size(label: str, distinct: int, limit: int) -> None:
    """Enforce the resource limit on distinct processor counts (``Adept.MAX_ALLOCATIONS``).

    Parameters
    ----------
    label : str
        Which observations, for the message.
    distinct : int
        Their number of distinct processor counts.
    limit : int
        The most accepted.

    Raises
    ------
    ValidationError
        If ``distinct > limit``, saying what to do instead.
    """
    if distinct > limit:
        raise ValidationError(
            f"{label}: ADEPT fits at most {limit} distinct processor counts, got {distinct}. Its envelope and "
            "biased searches grow with the square to the cube of that number (pairs of observations per "
            "sigma segment, one fit per target), so larger inputs are refused rather than left to run for "
            "minutes. Repeated runs at the same n are averaged and count once; select the allocations nearest "
            "the ones you predict from (e.g. the powers of two), or use a model without this limit "
            "(workbench.models.scaling: amdahl, usl, downey-lm, pmnf)")


def check_growth(label: str, obs, delta: float) -> None:
    """Refuse runtimes that never fall as n grows and end more than ``delta`` above their start.

    Such runs cannot be a speedup curve.  A rise within delta is noise on a flat curve: the
    thesis' ambiguous last point handles it ([Deshmeh2013] section 3.9.1).

    Parameters
    ----------
    label : str
        Which observations, for the message.
    obs : mapping or pandas.DataFrame
        Sorted, aggregated observations with columns n and t.
    delta : float
        The envelope's initial deviation bound.

    Raises
    ------
    ValidationError
        If the runtimes grow with n.
    """
    t = np.asarray(obs["t"])
    if len(t) >= 2 and np.all(np.diff(t) >= 0) and t[-1] > t[0] * (1 + delta):
        n = np.asarray(obs["n"])
        raise ValidationError(
            f"{label}: the runtimes grow with n (never falling, from t = {t[0]:g} at n = {n[0]:g} to t = {t[-1]:g} "
            f"at n = {n[-1]:g}, more than delta = {delta:g} above): there is no speedup for ADEPT to model. "
            "Downey's model has no slowdown (its runtime never rises with n), so it has no prediction to offer; "
            "USL (workbench.models.scaling.USLScaling) models retrograde scaling")


def check_targets(targets, name: str, limit: int) -> np.ndarray:
    """Return prediction targets as a float vector: :func:`workbench.validation.check_targets` with ADEPT's limit.

    Parameters
    ----------
    targets : float or array-like of float
        The targets (one-dimensional; a scalar is one target).
    name : str
        The argument they came from, named first in the messages.
    limit : int
        Most distinct targets per call (``Adept.MAX_TARGETS``).

    Returns
    -------
    numpy.ndarray
        The targets as floats, in the given order.

    Raises
    ------
    ValidationError
        Naming the first bad value and its position, or the number of distinct targets.
    """
    return validation.check_targets(
        one_dimensional(np.atleast_1d(targets), name), name, name="prediction targets",
        what="finite processor counts >= 1", max_distinct=limit,
        too_many="ADEPT fits every target on its own (~4 ms each at 32 processor counts): split the request")


def _group_medians(values, gid, starts, counts):
    """Median of each contiguous group (mean of the two middle values for an even count)."""
    ranked = values[np.lexsort((values, gid))]
    return (ranked[starts + (counts - 1) // 2] + ranked[starts + counts // 2]) / 2


def aggregate_repeats(n, t, outlier_rel: float = 0.25, outlier_mads: float = 3.0):
    """Average repeated runs at the same n after dropping obvious outliers ([Deshmeh2013] section 3.5.2).

    A run is an obvious outlier (only with >= 3 runs at that n) when it deviates from the
    group's median by more than ``outlier_rel`` of the median *and* by more than
    ``outlier_mads`` scaled median absolute deviations.

    Parameters
    ----------
    n, t : array_like
        Processor counts and runtimes, one per run.
    outlier_rel : float, default 0.25
        Relative deviation from the median an outlier exceeds.
    outlier_mads : float, default 3.0
        Scaled median absolute deviations an outlier exceeds.

    Returns
    -------
    tuple of pandas.DataFrame
        The observations (n, t, runs, dropped; sorted by n) and the dropped runs (n, t).
    """
    obs, gone = aggregate_columns(n, t, outlier_rel, outlier_mads)
    return pd.DataFrame(obs), pd.DataFrame(gone)


def aggregate_columns(n, t, outlier_rel: float = 0.25, outlier_mads: float = 3.0) -> tuple[dict, dict]:
    """Return :func:`aggregate_repeats` as columns (dicts of arrays).

    Parameters
    ----------
    n, t : array_like
        Processor counts and runtimes, one per run.
    outlier_rel : float, default 0.25
        See :func:`aggregate_repeats`.
    outlier_mads : float, default 3.0
        See :func:`aggregate_repeats`.

    Returns
    -------
    tuple of dict
        Columns of the observations and of the dropped runs.
    """
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
    # the same sums as pandas' grouped mean of sorted groups (np.add.reduceat), so that
    # results match the pandas implementation this replaced to the last bit
    mean = np.add.reduceat(ts[~out], np.cumsum(runs) - runs) / runs
    gone = np.sort(order[out])  # dropped runs in their given order
    return {"n": keys, "t": mean * scale, "runs": runs, "dropped": counts - runs}, {"n": n[gone], "t": t[gone]}


def target_weights(n_obs, targets, q: float) -> np.ndarray:
    """W_i = q max_j |n* - n_j| - |n* - n_i| for every target n* ([Deshmeh2013] section 3.5.2).

    Parameters
    ----------
    n_obs : array_like
        Observed processor counts, shape (M,).
    targets : array_like
        Targets n*, shape (K,).
    q : float
        Weight sensitivity to prediction distance (>= 1).

    Returns
    -------
    numpy.ndarray
        The weights, shape (K, M).
    """
    d = np.abs(np.asarray(targets, float)[:, None] - np.asarray(n_obs, float)[None, :])
    return q * d.max(axis=1, keepdims=True) - d


def single_size_columns(obs: dict, anomalies: AnomalyReport) -> dict:
    """Observation columns of one problem size: every point observed, anomaly weights and phases.

    Parameters
    ----------
    obs : dict
        Aggregated columns n, t, runs, dropped.
    anomalies : AnomalyReport
        Their anomaly report.

    Returns
    -------
    dict
        ``obs`` with kind, weight_factor, phase and only_for_target.
    """
    m = obs["n"].size
    return {**obs, "kind": np.full(m, "observed", dtype=object), "weight_factor": anomalies.weight_factor,
            "phase": anomalies.phase, "only_for_target": np.full(m, np.nan)}


def _base_runs(base, n_target, *, delta, max_allocations):
    """Check and aggregate the base-size runs of a cross-size fit."""
    try:
        n_b, t_b = base
    except (TypeError, ValueError):
        raise ValidationError("base must be a pair (n_base, t_base) of arrays") from None
    n_b, t_b = check_observations(n_b, t_b, "base-size observations")
    check_size("base- and target-size observations", np.unique(np.concatenate([n_b, n_target])).size,
               max_allocations)
    bobs, _ = aggregate_repeats(n_b, t_b)
    if len(bobs) < 4:
        raise ValidationError("cross-size prediction needs >= 4 processor counts on the base size, "
                              f"got {len(bobs)}")
    check_growth("base-size observations", bobs, delta)
    return bobs


def cross_size_union(obs: pd.DataFrame, base, *, delta: float, epsilon: float, theta: float, gamma: float,
                     size_ratio_tolerance: float, max_allocations: int
                     ) -> tuple[pd.DataFrame, AnomalyReport, float, list[ModelWarning]]:
    """Target-size runs plus the guiding points t_base(n) R of the base size ([Deshmeh2013] 3.12-3.15).

    Parameters
    ----------
    obs : pandas.DataFrame
        Aggregated target-size observations (n, t, runs, dropped, kind).
    base : tuple of array_like
        ``(n_base, t_base)``, the runs of the smaller size.
    delta, epsilon, theta, gamma, size_ratio_tolerance : float
        The :class:`~workbench.models.adept.Adept` parameters of the same names.
    max_allocations : int
        Most distinct processor counts of both sizes together.

    Returns
    -------
    tuple
        ``(union, base_anomalies, ratio, warnings)``: the observations frame sorted by n, the
        base size's :class:`AnomalyReport`, the runtime ratio R at the smallest common n and
        the "sizes-differ" warning if the ratio varies by more than the tolerance.

    Raises
    ------
    ValidationError
        If the sizes cannot be combined (too few counts, no common count, bad ``base``).
    """
    bobs = _base_runs(base, obs["n"], delta=delta, max_allocations=max_allocations)
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
    ratio = tt[common.min()] / tb[common.min()]  # [Deshmeh2013] section 3.12 step 1
    ratios = (tt[common] / tb[common]).to_numpy()
    warnings = []
    if len(ratios) >= 2 and ratios.max() / ratios.min() - 1 > size_ratio_tolerance:
        warnings.append(sizes_differ_warning(common, ratios))
    banom = detect_anomalies(bobs["n"], bobs["t"], epsilon, theta)
    D = dict(zip(banom.anomalies["n"], banom.anomalies["D"]))
    guide = bobs[~bobs["n"].isin(obs["n"])].copy()  # step 2
    guide["t"] = guide["t"] * ratio
    guide["kind"] = "guiding"
    guide["weight_factor"] = [
        1.0 if D.get(v, 0.0) >= gamma else max(0.0, (theta - D.get(v, 0.0)) / theta) for v in guide["n"]
    ]
    # base anomalies with D >= gamma give guiding points only for the target at that n (3.14)
    guide["only_for_target"] = [v if D.get(v, 0.0) >= gamma else np.nan for v in guide["n"]]
    obs = obs.assign(weight_factor=1.0, only_for_target=np.nan)
    union = pd.concat([obs, guide], ignore_index=True).sort_values("n").reset_index(drop=True)
    union["phase"] = 0
    if len(union) < 3:
        raise ValidationError("cross-size prediction needs at least 3 distinct processor counts in total")
    return union, banom, float(ratio), warnings
