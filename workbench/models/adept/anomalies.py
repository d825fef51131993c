"""Anomaly detection with the R metric (thesis section 3.9).

R_i = ((t_i n_i / n_{i+1}) / t_{i+1}) (1 + (n_{i+1} - n_i)/n_{i+1})  for consecutive
observations: the ratio of the runtime projected with ideal relative speedup to the
measured one, corrected for the distance between the allocations.  It needs no T(1) and
no time unit.  On a normal (Downey-like) curve R does not increase with n, so for three
consecutive observations i, i+1, i+2 an increase R_{i+1} / R_i > 1 + epsilon flags i+1
and i+2 as anomaly candidates (the thesis' garbled "CD > 1 + FC").

Decisions documented here (the thesis leaves them open):

- *Flatness* of an R curve is its total relative rise,
  ``sum_i max(0, R_{i+1}/R_i - 1)``; of two candidates, the one whose removal gives the
  flatter curve is the anomaly (ties: the later point, whose removal keeps more history).
- Individual points are resolved only with >= 4 observations (thesis 3.9.2); with fewer,
  candidates are reported as unresolved.
- Magnitude D = min(10, (R_{i+1} - R_i)/epsilon) from the flagging triple; the fit then
  scales the point's weight by max(0, (theta - D)/theta) (thesis 3.9.2).
- A resolved anomaly that is the last observation, or a last observation that is not
  faster than the one before it, is ambiguous (declining phase or anomaly): it is
  reported, excluded from fitting, and no prediction is made past it.
- Candidates that survive removal form a pattern: *stepwise* (>= 5 observations; split into
  phases at each remaining spike, each phase >= 2 points) or *specially optimised*
  (>= 9 observations; the remaining fast points sit exactly on the powers of two or on the
  perfect squares among the allocations; those are kept and the rest discarded).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["r_metric", "anomaly_candidates", "flatness", "detect_anomalies", "AnomalyReport"]


def r_metric(n, t) -> np.ndarray:
    """R_i for consecutive observations (thesis 3.9.1); length len(n) - 1."""
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    return (t[:-1] * n[:-1] / n[1:] / t[1:]) * (1 + (n[1:] - n[:-1]) / n[1:])


def anomaly_candidates(R, epsilon) -> np.ndarray:
    """Indices i (into R[:-1]) where R_{i+1}/R_i > 1 + epsilon; they flag observations i+1, i+2."""
    R = np.asarray(R, float)
    return np.nonzero(R[1:] / R[:-1] > 1 + epsilon)[0]


def flatness(R) -> float:
    """Total relative rise of an R curve (0 for a non-increasing curve)."""
    R = np.asarray(R, float)
    return float(np.sum(np.maximum(0.0, R[1:] / R[:-1] - 1))) if len(R) > 1 else 0.0


@dataclass
class AnomalyReport:
    """Result of :func:`detect_anomalies`.

    Attributes
    ----------
    r : DataFrame (n_from, n_to, R) — the R curve of all observations.
    candidates : DataFrame (n, flagged_by) — observations flagged as candidates.
    removal_curves : DataFrame (removed_n, n_from, n_to, R, flatness) — the R curve after
        removing each candidate (thesis Figs. 9-10).
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


def _curve(n, t, removed=None):
    R = r_metric(n, t)
    return pd.DataFrame({"removed_n": removed, "n_from": n[:-1], "n_to": n[1:], "R": R})


def _regular(ns) -> str | None:
    ns = np.asarray(ns, float)
    if np.all(np.log2(ns) == np.round(np.log2(ns))):
        return "powers of two"
    if np.all(np.sqrt(ns) == np.round(np.sqrt(ns))):
        return "perfect squares"
    return None


def detect_anomalies(n, t, epsilon=0.1, theta=5.0) -> AnomalyReport:
    """Run the anomaly-detection algorithm of thesis 3.9.2 on sorted, aggregated observations."""
    n = np.asarray(n, float)
    t = np.asarray(t, float)
    M = len(n)
    base = _curve(n, t)
    R = base["R"].to_numpy()
    weight = np.ones(M)
    phase = np.zeros(M, int)
    empty_anom = pd.DataFrame({"n": [], "D": [], "weight_factor": [], "last_point": []})
    empty_cand = pd.DataFrame({"n": [], "flagged_by": []})
    report = AnomalyReport(base.drop(columns="removed_n"), empty_cand, base.iloc[0:0], empty_anom,
                           phase=phase, weight_factor=weight)
    if M < 3:
        return report
    if t[-1] >= t[-2]:
        # more processors, no gain: the declining phase (or an anomaly) -- Downey has no
        # declining piece, so the point is reported, never fitted, and nothing is
        # predicted past it (thesis 3.9.1)
        weight[-1] = 0.0
        report.last_point_ambiguous = True
        report.anomalies = pd.DataFrame({"n": [n[-1]], "D": [np.nan], "weight_factor": [0.0], "last_point": [True]})
        inner = detect_anomalies(n[:-1], t[:-1], epsilon, theta) if M >= 4 else None
        if inner is not None and inner.pattern == "none" and not inner.unresolved:
            weight[:-1] = inner.weight_factor
            report.anomalies = pd.concat([inner.anomalies, report.anomalies], ignore_index=True)
            report.candidates, report.removal_curves = inner.candidates, inner.removal_curves
        return report
    flags = anomaly_candidates(R, epsilon)
    if flags.size == 0:
        return report
    cand_rows = [(n[i + o], f"R[{i + 1}]/R[{i}] = {R[i + 1] / R[i]:.3f}") for i in flags for o in (1, 2)]
    report.candidates = pd.DataFrame(cand_rows, columns=["n", "flagged_by"]).drop_duplicates("n")
    cand_idx = sorted({i + o for i in flags for o in (1, 2)})
    curves = []
    for c in cand_idx:
        keep = np.arange(M) != c
        cur = _curve(n[keep], t[keep], removed=n[c])
        cur["flatness"] = flatness(cur["R"])
        curves.append(cur)
    report.removal_curves = pd.concat(curves, ignore_index=True)
    if M < 4:
        report.unresolved = [float(n[c]) for c in cand_idx]
        return report

    flat_after = {c: flatness(r_metric(n[np.arange(M) != c], t[np.arange(M) != c])) for c in cand_idx}
    chosen: dict[int, float] = {}
    for i in flags:
        a, b = i + 1, i + 2
        pick = a if flat_after[a] < flat_after[b] else b
        D = min(10.0, (R[i + 1] - R[i]) / epsilon)
        chosen[pick] = max(chosen.get(pick, 0.0), D)
    keep = np.array([k not in chosen for k in range(M)])
    remaining = anomaly_candidates(r_metric(n[keep], t[keep]), epsilon)

    if remaining.size == 0:
        last = (M - 1) in chosen
        for k, D in chosen.items():
            weight[k] = max(0.0, (theta - D) / theta)
        if last:
            weight[M - 1] = 0.0  # declining phase or anomaly: never fitted
        report.anomalies = pd.DataFrame({
            "n": [n[k] for k in chosen], "D": list(chosen.values()),
            "weight_factor": [weight[k] for k in chosen], "last_point": [k == M - 1 for k in chosen],
        })
        report.last_point_ambiguous = last
        report.weight_factor = weight
        return report

    # Candidates survive removal: a scalability pattern (thesis 3.9.3).
    fast = sorted({i + 1 for i in flags})  # points entered with an upward R jump
    regular = _regular(n[fast]) if M >= 9 and len(fast) >= 3 else None
    if regular is not None:
        on_lattice = np.array([_regular([v]) == regular for v in n])
        if on_lattice.sum() >= 3:
            weight = np.where(on_lattice, 1.0, 0.0)
            report.pattern = "specially-optimised"
            report.feasible_allocations = regular
            report.weight_factor = weight
            return report
    if M >= 5:
        cuts = sorted({i + 2 for i in flags})  # the spike sits between i+1 and i+2
        phase = np.searchsorted(np.asarray(cuts), np.arange(M), side="right")
        sizes = np.bincount(phase)
        if np.all(sizes >= 2):
            report.pattern = "stepwise"
            report.phase = phase
            return report
    report.unresolved = [float(n[c]) for c in cand_idx]
    return report
