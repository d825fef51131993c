"""Anomaly detection with the R metric ([Deshmeh2013] section 3.9).

R_i = ((t_i n_i / n_{i+1}) / t_{i+1}) (1 + (n_{i+1} - n_i)/n_{i+1})  for consecutive
observations: the ratio of the runtime projected with ideal relative speedup to the
measured one, corrected for the distance between the allocations.  It needs no T(1) and
no time unit.  On a normal (Downey-like) curve R does not increase with n, so for three
consecutive observations i, i+1, i+2 an increase R_{i+1} / R_i > 1 + epsilon flags i+1
and i+2 as anomaly candidates (the thesis' garbled "CD > 1 + FC").

Decisions documented here (the thesis leaves them open):

- *Spacing.*  The distance factor (1 + (n_{i+1} - n_i)/n_{i+1}) is meant to remove the
  fluctuation of R caused by uneven allocation steps, but it only does so partly: with
  r = n_i/n_{i+1} and a local scaling exponent g (t_{i+1}/t_i = r^g), R = r^(1-g) (2 - r), so
  an ideally scaling run gives 1.5 for a doubling step and 1.75 for a 4x step, a flat run
  0.75 and 0.44.  Rises are therefore judged on R re-expressed at a doubling step,
  ``R2_i = 1.5 (R_i / (2 - r_i))^(log(1/2)/log(r_i))`` (same g, r = 1/2): on doubling
  layouts R2 == R and the test is exactly the thesis' R_{i+1}/R_i > 1 + epsilon.
- *Flatness* of an R curve is its total excess rise ``sum_i max(0, rise_i - 1)``.
- Resolution is greedy and global: while candidates remain, the candidate whose removal
  gives the flattest curve is removed, as long as that removal makes the curve flatter
  (a too-fast point raises R before it *and* lowers it after it, so two triples flag it
  and its neighbours; removing it is what flattens both).  At most a quarter of the points
  are removed; what remains is a pattern or unresolved.
- Individual points are resolved only with >= 4 observations ([Deshmeh2013] section 3.9.2); with fewer,
  candidates are reported as unresolved.
- Magnitude D = min(10, (R_{i+1} - R_i)/epsilon) from the flagging triple (thesis R); the fit then
  scales the point's weight by max(0, (theta - D)/theta) ([Deshmeh2013] section 3.9.2).
- A resolved anomaly that is the last observation, or a last observation slower than the
  one before it, is ambiguous (declining phase or anomaly): it is
  reported, excluded from fitting, and no prediction is made past it.
- Candidates that survive removal form a pattern: *stepwise* (>= 5 observations; split into
  phases at each remaining spike, each phase >= 2 points) or *specially optimised*
  (>= 9 observations; the remaining too-fast points -- the later point of each rising pair --
  sit exactly on the powers of two or on the perfect squares among the allocations; those
  are kept and the rest discarded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import pandas as pd

__all__ = ["r_metric", "anomaly_candidates", "flatness", "detect_anomalies", "AnomalyReport"]


def r_metric(n, t) -> np.ndarray:
    """R_i for consecutive observations ([Deshmeh2013] section 3.9.1); length len(n) - 1.

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending.
    t : array-like of float, shape (M,)
        Runtimes at ``n`` (any one unit: R is a ratio).
    """
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    with np.errstate(over="ignore", invalid="ignore"):
        R = (t[:-1] * n[:-1] / n[1:] / t[1:]) * (1 + (n[1:] - n[:-1]) / n[1:])
        bad = ~np.isfinite(R)
        if bad.any():  # t n beyond the float range (runtimes near 1e308): the ratios first
            R = np.where(bad, (t[:-1] / t[1:]) * (n[:-1] / n[1:]) * (1 + (n[1:] - n[:-1]) / n[1:]), R)
    return R


def r_at_doubling(n, R) -> np.ndarray:
    """R re-expressed at a doubling step with the same local scaling exponent (see above).

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending.
    R : array-like of float, shape (M - 1,)
        The R values of consecutive observations (:func:`r_metric`).
    """
    r = np.asarray(n, float)[:-1] / np.asarray(n, float)[1:]
    return 1.5 * (np.asarray(R, float) / (2 - r)) ** (np.log(0.5) / np.log(r))


def _rise(n, R) -> np.ndarray:
    """R2_{i+1}/R2_i: the rise of R free of the allocation spacing."""
    R2 = r_at_doubling(n, R)
    return R2[1:] / R2[:-1]


def anomaly_candidates(n, R, epsilon) -> np.ndarray:
    """Return the indices i (into R[:-1]) whose rise exceeds 1 + epsilon; they flag observations i+1, i+2.

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending.
    R : array-like of float, shape (M - 1,)
        The R values of consecutive observations (:func:`r_metric`).
    epsilon : float
        Tolerated relative rise of R at a doubling step before a pair is flagged.
    """
    return np.nonzero(_rise(n, np.asarray(R, float)) > 1 + epsilon)[0]


def flatness(n, R) -> float:
    """Total excess rise of an R curve (0 for a curve that never rises beyond spacing).

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending.
    R : array-like of float, shape (M - 1,)
        The R values of consecutive observations (:func:`r_metric`).
    """
    R = np.asarray(R, float)
    return float(np.sum(np.maximum(0.0, _rise(n, R) - 1))) if len(R) > 1 else 0.0


@dataclass(frozen=True)
class AnomalyReport:
    """Result of :func:`detect_anomalies`.

    Attributes
    ----------
    r : DataFrame (n_from, n_to, R, R_doubling) — the R curve of all observations, and R
        re-expressed at a doubling step (what the rises are judged on).
    candidates : DataFrame (n, flagged_by) — observations flagged as candidates.
    removal_curves : DataFrame (removed_n, n_from, n_to, R, R_doubling, flatness) — the R curve after
        removing each candidate ([Deshmeh2013] Figs. 9-10).
    anomalies : DataFrame (n, D, weight_factor, last_point) — resolved individual anomalies.
    pattern : "none", "stepwise" or "specially-optimised".
    phase : int array, phase index per observation (all 0 unless stepwise).
    weight_factor : per-observation multiplier for the fit weights (1 = untouched).
    unresolved : candidates left unexplained (too few points, or no pattern fits).
    feasible_allocations : description of allocations the application is optimised for.
    last_point_ambiguous : the last observation looks anomalous (decline or anomaly).
    """

    r: pd.DataFrame
    candidates: pd.DataFrame
    removal_curves: pd.DataFrame
    anomalies: pd.DataFrame
    pattern: str = "none"
    phase: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    weight_factor: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unresolved: list = field(default_factory=list)
    feasible_allocations: str | None = None
    last_point_ambiguous: bool = False


_EMPTY_ANOMALIES = pd.DataFrame({"n": [], "D": [], "weight_factor": [], "last_point": []})
_EMPTY_CANDIDATES = pd.DataFrame({"n": [], "flagged_by": []})


def _r_table(n, t) -> pd.DataFrame:
    """R between consecutive observations: n_from, n_to, R, R_doubling."""
    R = r_metric(n, t)
    return pd.DataFrame({"n_from": n[:-1], "n_to": n[1:], "R": R, "R_doubling": r_at_doubling(n, R)})


def _curve(n, t, removed=None):
    """:func:`_r_table` of the curve with observation ``removed`` left out (first column)."""
    out = _r_table(n, t)
    out.insert(0, "removed_n", removed)
    return out


_EMPTY_CURVES = _curve(np.array([1.0, 2.0]), np.array([2.0, 1.0])).iloc[0:0]


def _regular(ns) -> str | None:
    ns = np.asarray(ns, float)
    if np.all(np.log2(ns) == np.round(np.log2(ns))):
        return "powers of two"
    if np.all(np.sqrt(ns) == np.round(np.sqrt(ns))):
        return "perfect squares"
    return None


def _flags(n, t, idx, epsilon):
    """Return the flagging triples on the sub-curve ``idx`` as (first flagged, second flagged, D-rise)."""
    R = r_metric(n[idx], t[idx])
    return [(idx[i + 1], idx[i + 2], R[i + 1] - R[i]) for i in anomaly_candidates(n[idx], R, epsilon)]


def _magnitudes(flags, epsilon) -> dict[int, float]:
    """Magnitude D = min(10, rise / epsilon) of every flagged point (the largest of its triples)."""
    D: dict[int, float] = {}
    for a, b, d in flags:
        for c in (a, b):
            D[c] = max(D.get(c, 0.0), min(10.0, d / epsilon))
    return D


def _describe_candidates(report, n, t, live, flags, epsilon) -> None:
    """Record the flagged observations and the R curve without each of them on ``report``.

    ``report.candidates``: every observation a rising triple of the live curve flags, with
    the rise that flagged it; ``report.removal_curves``: the R curve and its flatness with
    each flagged observation left out in turn ([Deshmeh2013] Figs. 9-10).
    """
    R = r_metric(n[live], t[live])
    rise = _rise(n[live], R)
    cand_rows = []
    for i in anomaly_candidates(n[live], R, epsilon):
        for o in (1, 2):
            cand_rows.append((n[live[i + o]], f"rise of R[{i + 1}]/R[{i}] = {rise[i]:.3f} > 1 + epsilon"))
    report.candidates = pd.DataFrame(cand_rows, columns=["n", "flagged_by"]).drop_duplicates("n")
    curves = []
    for c in sorted({c for a, b, _ in flags for c in (a, b)}):
        keep = live[live != c]
        cur = _curve(n[keep], t[keep], removed=n[c])
        cur["flatness"] = flatness(n[keep], cur["R"])
        curves.append(cur)
    report.removal_curves = pd.concat(curves, ignore_index=True)


def _remove_greedily(n, t, live, flags, D, epsilon):
    """Remove flagged observations one at a time while that flattens the R curve.

    Each round removes the candidate whose removal leaves the flattest curve (ties: the later
    observation), if that curve is flatter than the current one; at most a quarter of the live
    observations (at least one) are removed.  Returns the removed indices in removal order and
    the flagging triples that remain; ``D`` gains the magnitude of every observation first
    flagged after a removal.
    """
    keep = live.copy()
    removed: list[int] = []
    remaining = flags
    while remaining and len(removed) < max(1, len(live) // 4):
        cands = sorted({c for a, b, _ in remaining for c in (a, b)})
        scores = {c: flatness(n[keep[keep != c]], r_metric(n[keep[keep != c]], t[keep[keep != c]])) for c in cands}
        pick = min(cands, key=lambda c: (scores[c], -c))
        if scores[pick] >= flatness(n[keep], r_metric(n[keep], t[keep])):
            break
        removed.append(pick)
        keep = keep[keep != pick]
        remaining = _flags(n, t, keep, epsilon)
        # a removal can flag points no earlier triple flagged (long curves): their
        # magnitude comes from the triple that flags them now (earlier ones are kept)
        for c, d in _magnitudes(remaining, epsilon).items():
            D.setdefault(c, d)
    return removed, remaining


def _resolve_individually(report, n, weight, live, declining, removed, D, theta) -> SimpleNamespace:
    """Report the removed observations as individual anomalies ([Deshmeh2013] section 3.9.2).

    Each one's fit weight is scaled by ``max(0, (theta - D)/theta)``; a removed last
    observation is ambiguous (weight 0), and a declining last observation is listed too.
    Returns ``report``, the draft of the :class:`AnomalyReport`, filled in.
    """
    M = len(n)
    for k in removed:
        weight[k] = max(0.0, (theta - D[k]) / theta)
    anomalies = [(n[k], D[k], weight[k], False) for k in removed]
    if removed and removed[-1] == live[-1] == M - 1:
        weight[-1] = 0.0
        report.last_point_ambiguous = True
    if declining:
        anomalies.append((n[-1], np.nan, 0.0, True))
    anomalies = [(a, b, weight[int(np.nonzero(n == a)[0][0])], a == n[-1]) for a, b, _, _ in anomalies]
    if anomalies:
        report.anomalies = pd.DataFrame(anomalies, columns=["n", "D", "weight_factor", "last_point"])
    report.weight_factor = weight
    return report


def _explain_pattern(report, n, weight, live, declining, flags, remaining) -> SimpleNamespace:
    """Explain the candidates that survive removal as a pattern ([Deshmeh2013] section 3.9.3).

    *Specially optimised* (>= 9 live observations, >= 3 too-fast points, all on the powers of
    two or all on the perfect squares: the observations off that lattice get weight 0), else
    *stepwise* (>= 5 live observations, phases cut after each too-fast point, >= 2 live points
    each), else the candidates are reported as unresolved.  Returns ``report``, the draft of
    the :class:`AnomalyReport`, filled in.
    """
    M = len(n)
    if declining:
        report.anomalies = pd.DataFrame([(n[-1], np.nan, 0.0, True)], columns=["n", "D", "weight_factor", "last_point"])
    fast = sorted({b for _, b, _ in flags})  # the later point of a rising pair ran too fast
    regular = _regular(n[fast]) if len(live) >= 9 and len(fast) >= 3 else None
    if regular is not None:
        on_lattice = np.array([_regular([v]) == regular for v in n])
        if on_lattice.sum() >= 3:
            report.pattern = "specially-optimised"
            report.feasible_allocations = regular
            report.weight_factor = np.where(on_lattice, weight, 0.0)
            return report
    if len(live) >= 5:
        cuts = sorted({b for _, b, _ in flags})  # the spike sits between the flagged pair
        phase = np.searchsorted(np.asarray(cuts), np.arange(M), side="right")
        if np.all(np.bincount(phase[live]) >= 2):
            report.pattern = "stepwise"
            report.phase = phase
            report.weight_factor = weight
            return report
    report.unresolved = sorted({float(n[c]) for a, b, _ in remaining for c in (a, b)})
    report.weight_factor = weight
    return report


def detect_anomalies(n, t, epsilon=0.1, theta=5.0) -> AnomalyReport:
    """Run the anomaly-detection algorithm of [Deshmeh2013] section 3.9.2 on sorted, aggregated observations.

    Parameters
    ----------
    n : array-like of float, shape (M,)
        Processor counts, sorted ascending, one per observation (aggregated).
    t : array-like of float, shape (M,)
        Runtimes at ``n``.
    epsilon : float, default 0.1
        Tolerated relative rise of R at a doubling step before observations are candidates.
    theta : float, default 5.0
        Anomaly magnitude D at which an observation's fit weight reaches 0: a resolved
        anomaly's weight is scaled by ``max(0, (theta - D)/theta)``.
    """
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    M = len(n)
    weight = np.ones(M)
    # the report is filled in step by step, then frozen; empty results share the templates'
    # (immutable: copy-on-write) data
    report = SimpleNamespace(**vars(AnomalyReport(
        _r_table(n, t), _EMPTY_CANDIDATES.copy(deep=False), _EMPTY_CURVES.copy(deep=False),
        _EMPTY_ANOMALIES.copy(deep=False), phase=np.zeros(M, int), weight_factor=weight)))
    if M < 3:
        return AnomalyReport(**vars(report))
    declining = t[-1] > t[-2]
    # more processors, slower run: the declining phase (or an anomaly).  Downey has no
    # declining piece, so the point is reported, never fitted, and nothing is predicted
    # past it (thesis 3.9.1); the rest of the curve is examined without it.
    live = np.arange(M - 1) if declining else np.arange(M)
    if declining:
        weight[-1] = 0.0
        report.last_point_ambiguous = True

    flags = _flags(n, t, live, epsilon) if len(live) >= 3 else []
    if flags:
        _describe_candidates(report, n, t, live, flags, epsilon)
    D = _magnitudes(flags, epsilon)
    removed, remaining = _remove_greedily(n, t, live, flags, D, epsilon) if len(live) >= 4 else ([], flags)
    if not remaining:
        _resolve_individually(report, n, weight, live, declining, removed, D, theta)
    else:  # candidates survive removal: a scalability pattern ([Deshmeh2013] section 3.9.3)
        _explain_pattern(report, n, weight, live, declining, flags, remaining)
    return AnomalyReport(**vars(report))
