"""Per-rank statistics of the data generator's runs ([Branikas2024] chapter 4 and section 7.2).

The data generator ([Branikas2024] section 2.2, Listing 3.1) reports three timers per MPI rank and
run -- communication, computation and total time, summed over the time iterations.
Section 4.1 treats the times the ranks of *one* run report as a population: box plots
(Fig. 4.1), density histograms against the normal ``N(mu, sigma^2)`` of the same mean and
standard deviation (Fig. 4.2) and mean +- std bands (Fig. 4.3).  Because those populations
look normal, the thesis represents a run by its mean over ranks (section 3.2), and the
models of chapters 6-8 are trained on these per-run means after the filter of section 7.2,
``0.1 <= communication time / total time <= 0.8``.

* :func:`rank_statistics` -- the descriptive statistics of every population (group of
  ranks), with a Shapiro-Wilk and a D'Agostino-Pearson normality p-value where the number
  of ranks allows one.
* :func:`run_summary` -- one row per run: its configuration (features) and the mean and
  standard deviation over ranks of every timer, plus ``comm_fraction``.
* :func:`comm_fraction_filter` -- section 7.2's filter, with a :class:`FilterReport` of
  what it dropped.

Input: the per-rank frame of ``workbench.measure.comm`` (catalogue ``comm-datagen-local``;
columns in ``notes/COMM_SCHEMA.md``): one row per rank per run, ``run_id``, ``rank``,
the configuration columns and ``comm_s``, ``comp_s``, ``total_s`` (seconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from workbench.errors import ValidationError
from workbench.validation import require_columns

__all__ = [
    "TIMERS",
    "RUN_FEATURES",
    "MIN_RANKS_SHAPIRO",
    "MIN_RANKS_NORMALTEST",
    "DERIVED_FEATURES",
    "FilterReport",
    "linked_features",
    "runs_varying",
    "rank_statistics",
    "run_summary",
    "comm_fraction_filter",
]

#: The three per-rank timers of [Branikas2024] Listing 3.1 (seconds, summed over the iterations).
TIMERS = ("comm_s", "comp_s", "total_s")
#: Configuration columns of a data-generator run (COMM_SCHEMA); constant within a run.
RUN_FEATURES = ("nodes", "ppn", "processes", "wss_bytes", "load", "extra_ops", "msg_multiple", "message_bytes",
                "messages", "iterations", "barrier")
#: Configuration columns computed from others (COMM_SCHEMA): varying one varies these.
DERIVED_FEATURES = {"message_bytes": ("wss_bytes", "msg_multiple"), "extra_ops": ("load",),
                    "processes": ("nodes", "ppn")}
#: Fewest ranks for :func:`scipy.stats.shapiro` (it is undefined below 3).
MIN_RANKS_SHAPIRO = 3
#: Fewest ranks for :func:`scipy.stats.normaltest`: its kurtosis test is only valid from
#: n = 20 (scipy warns below); [Branikas2024]'s populations have 80-1280 ranks.
MIN_RANKS_NORMALTEST = 20
#: Shapiro-Wilk's p-value is only accurate up to this many points (scipy's documentation).
_MAX_RANKS_SHAPIRO = 5000

_STAT_COLUMNS = ["n", "mean", "std", "min", "q1", "median", "q3", "max", "skew", "shapiro_p", "normaltest_p",
                 "normality_note"]


def _group_columns(by) -> list[str]:
    return [by] if isinstance(by, str) else list(by)


def _normality(values: np.ndarray) -> tuple[float, float, float, str]:
    """Skewness, Shapiro-Wilk p, D'Agostino-Pearson p and a note on what could not be computed (one population)."""
    n = values.size
    notes = []
    if n >= 2 and np.ptp(values) == 0:
        return 0.0, np.nan, np.nan, f"all {n} ranks report the same time: no normality test"
    skew = float(stats.skew(values, bias=False)) if n >= 3 else np.nan
    if n < MIN_RANKS_SHAPIRO:
        shapiro_p = np.nan
        notes.append(f"too few ranks (n={n}) for Shapiro-Wilk (needs {MIN_RANKS_SHAPIRO})")
    else:
        shapiro_p = float(stats.shapiro(values[:_MAX_RANKS_SHAPIRO]).pvalue)
        if n > _MAX_RANKS_SHAPIRO:
            notes.append(f"Shapiro-Wilk on the first {_MAX_RANKS_SHAPIRO} of {n} ranks")
    if n < MIN_RANKS_NORMALTEST:
        normal_p = np.nan
        notes.append(f"too few ranks (n={n}) for D'Agostino-Pearson (needs {MIN_RANKS_NORMALTEST})")
    else:
        normal_p = float(stats.normaltest(values).pvalue)
    return skew, shapiro_p, normal_p, "; ".join(notes)


def rank_statistics(per_rank: pd.DataFrame, by: str | Sequence[str] = "run_id", value: str = "comm_s") -> pd.DataFrame:
    """Compute descriptive statistics of ``value`` over the ranks of every group of ``by``.

    [Branikas2024] section 4.1: the times reported by the ranks of a run as a population.

    Returns one row per group, sorted by ``by``: the ``by`` columns, then ``n`` (ranks),
    ``mean``, ``std`` (sample standard deviation, ddof = 1; NaN for one rank), ``min``,
    ``q1``, ``median``, ``q3``, ``max`` (unit of ``value``), ``skew`` (bias-corrected
    sample skewness G1; NaN below 3 ranks), ``shapiro_p`` (Shapiro-Wilk, from 3 ranks),
    ``normaltest_p`` (D'Agostino-Pearson, from :data:`MIN_RANKS_NORMALTEST` ranks) and
    ``normality_note`` (empty, or why a test is missing: "too few ranks (n=...)", a
    constant population).  A *small* p-value rejects normality.

    Parameters
    ----------
    per_rank : pandas.DataFrame
        One row per rank and run.
    by : str or sequence of str, default "run_id"
        Columns defining a group.
    value : str, default "comm_s"
        Column whose distribution over ranks is described.
    """
    where = "rank_statistics"
    columns = _group_columns(by)
    if not isinstance(per_rank, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(per_rank).__name__}")
    missing = [c for c in columns if c not in per_rank.columns]
    if missing:
        raise ValidationError(f"{where}: missing group column(s) {missing}; the frame has {list(per_rank.columns)}")
    require_columns(per_rank, [value], where)
    if per_rank[columns].isna().any().any():
        bad = per_rank[columns].isna().any(axis=1).to_numpy().argmax()
        raise ValidationError(f"{where}: group column(s) {columns} hold a missing value in row {bad}")
    frame = per_rank[columns].copy()
    frame["_v"] = pd.to_numeric(per_rank[value]).astype(float)
    grouped = frame.groupby(columns, sort=True)["_v"]
    out = grouped.agg(n="size", mean="mean", std="std", min="min", max="max")
    quartiles = grouped.quantile([0.25, 0.5, 0.75]).unstack()
    out["q1"], out["median"], out["q3"] = (quartiles[q] for q in (0.25, 0.5, 0.75))
    # the tests run per population: one call per group (runs, not data points)
    tests = pd.DataFrame([_normality(g.to_numpy()) for _, g in grouped], index=out.index,
                         columns=["skew", "shapiro_p", "normaltest_p", "normality_note"])
    out = out.join(tests).reset_index()
    out["n"] = out["n"].astype(np.int64)
    return out[[*columns, *_STAT_COLUMNS]]


def linked_features(feature: str) -> set[str]:
    """Return the configuration columns that change with ``feature`` (itself included).

    The derived columns computed from it and, for a derived column, its sources.

    Parameters
    ----------
    feature : str
        A configuration column.
    """
    linked = {feature, *DERIVED_FEATURES.get(feature, ())}
    linked |= {derived for derived, sources in DERIVED_FEATURES.items() if feature in sources}
    return linked


def runs_varying(per_rank: pd.DataFrame, by: str, run_id, *, run: str = "run_id") -> pd.DataFrame:
    """Return the rows of the runs configured as run ``run_id`` except in ``by``.

    Runs whose configuration equals run ``run_id``'s in every column of
    :data:`RUN_FEATURES` except ``by`` and the columns linked to it
    (:func:`linked_features`): the populations of one of [Branikas2024]'s figures, e.g.
    Fig. 4.1 (working-set size varies; message size, a multiple of its square root, with
    it).

    Parameters
    ----------
    per_rank : pandas.DataFrame
        One row per rank and run.
    by : str
        The configuration column allowed to vary.
    run_id : object
        Identifier of the reference run.
    run : str, default "run_id"
        Column identifying runs.
    """
    where = "runs_varying"
    if by not in per_rank.columns:
        raise ValidationError(f"{where}: column {by!r} is not in the frame ({list(per_rank.columns)})")
    reference = per_rank[per_rank[run] == run_id]
    if reference.empty:
        raise ValidationError(f"{where}: run {run_id} is not in the frame")
    fixed = [c for c in RUN_FEATURES if c in per_rank.columns and c not in linked_features(by)]
    same = np.ones(len(per_rank), dtype=bool)
    for c in fixed:
        same &= (per_rank[c] == reference[c].iloc[0]).to_numpy()
    return per_rank[same]


def run_summary(per_rank: pd.DataFrame, *, run: str = "run_id") -> pd.DataFrame:
    """One row per run: its configuration and the per-run statistics the models use.

    Columns: ``run_id``; the configuration columns of :data:`RUN_FEATURES` that the frame
    has (each must be constant over a run's ranks); ``n_ranks``; for every timer ``t`` of
    ``comm_s``, ``comp_s``, ``total_s`` its mean over ranks under the same name (the
    thesis's representative value, section 3.2, and the target of chapters 7-8) and
    ``t_std`` (sample standard deviation over ranks); ``comm_fraction`` = mean ``comm_s``
    / mean ``total_s`` (section 7.2's ratio, from the per-run means).  Sorted by run.

    Parameters
    ----------
    per_rank : pandas.DataFrame
        One row per rank and run, with the configuration and the timers.
    run : str, default "run_id"
        Column identifying runs.
    """
    where = "run_summary"
    require_columns(per_rank, [run, *TIMERS], where)
    features = [c for c in RUN_FEATURES if c in per_rank.columns]
    grouped = per_rank.groupby(run, sort=True)
    varying = [c for c in features if (grouped[c].nunique(dropna=False) > 1).any()]
    if varying:
        c = varying[0]
        rid = grouped[c].nunique(dropna=False).gt(1).idxmax()
        raise ValidationError(f"{where}: column {c!r} takes several values within run {rid}; "
                              f"a run's configuration must be the same on every rank")
    out = grouped[features].first() if features else pd.DataFrame(index=grouped.size().index)
    out["n_ranks"] = grouped.size().astype(np.int64)
    timers = per_rank[[run, *TIMERS]].astype({t: float for t in TIMERS}).groupby(run, sort=True)
    means, stds = timers.mean(), timers.std()
    for t in TIMERS:
        out[t] = means[t]
        out[f"{t}_std"] = stds[t]
    out["comm_fraction"] = out["comm_s"] / out["total_s"].where(out["total_s"] != 0)
    return out.reset_index()


@dataclass(frozen=True)
class FilterReport:
    """What :func:`comm_fraction_filter` kept and dropped (counts of rows)."""

    low: float
    high: float
    n_in: int
    n_kept: int
    n_below: int
    n_above: int

    def __str__(self) -> str:
        return (f"kept {self.n_kept} of {self.n_in} runs with {self.low:g} <= comm/total <= {self.high:g}; "
                f"dropped {self.n_below} below, {self.n_above} above")


def comm_fraction_filter(frame: pd.DataFrame, low: float = 0.1, high: float = 0.8, *, comm: str = "comm_s",
                         total: str = "total_s") -> tuple[pd.DataFrame, FilterReport]:
    """Keep the rows with ``low <= comm / total <= high`` (bounds inclusive).

    [Branikas2024] section 7.2: this drops runs whose communication is a negligible or an
    unrealistically large share of the run.

    ``frame``: one row per run (e.g. :func:`run_summary`) with ``comm`` and ``total``
    (same unit).  Returns the kept rows (original index) and a :class:`FilterReport`.
    Raises :class:`~workbench.errors.ValidationError` for missing columns, NaN or
    infinite times, a non-positive total time (naming the row), negative communication
    times or bounds outside ``0 <= low < high``.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per run (e.g. :func:`run_summary`).
    low : float, default 0.1
        Smallest kept communication share.
    high : float, default 0.8
        Largest kept communication share.
    comm : str, default "comm_s"
        Communication-time column.
    total : str, default "total_s"
        Total-time column (same unit as ``comm``).
    """
    where = "comm_fraction_filter"
    if not (np.isfinite(low) and np.isfinite(high) and 0 <= low < high):
        raise ValidationError(f"{where}: need 0 <= low < high, got low={low!r}, high={high!r}")
    require_columns(frame, [comm, total], where)
    c = frame[comm].to_numpy(dtype=float)
    t = frame[total].to_numpy(dtype=float)
    for name, values, bad in ((total, t, t <= 0), (comm, c, c < 0)):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            sign = "> 0" if name == total else ">= 0"
            raise ValidationError(f"{where}: column {name!r} must be {sign}, got {values[i]} in row {i} "
                                  f"(index {frame.index[i]})")
    ratio = c / t
    below, above = ratio < low, ratio > high
    keep = ~(below | above)
    report = FilterReport(float(low), float(high), len(frame), int(keep.sum()), int(below.sum()), int(above.sum()))
    return frame[keep], report
