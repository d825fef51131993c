"""Pearson correlations of the descriptive metrics with communication time ([Papadopoulou2015] section III.C).

The paper computes "Pearson's correlation coefficients to decide which metrics have a high
impact on communication time" and then inspects the scatter plots, also "in logarithmic
scale", which is what revealed the area split.  :func:`pearson_table` gives both views as
a tidy frame; :func:`correlation_matrix` the metric x metric matrix behind a heatmap.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from workbench.errors import ValidationError
from workbench.models.comm.descriptors import METRIC_COLUMNS
from workbench.validation import numeric_column

__all__ = ["CONSTANT_NOTE", "TARGET", "pearson_table", "correlation_matrix"]

#: The communication-time column of the sweep frames (µs).
TARGET = "comm_time_us"
#: ``note`` of a metric that does not vary: Pearson's r is undefined, not zero.
CONSTANT_NOTE = "constant: no correlation defined"
_TABLE_COLUMNS = ["metric", "r", "p_value", "n_points", "note"]


def pearson_table(frame: pd.DataFrame, target: str = TARGET, columns: Sequence[str] | None = None, *,
                  log: bool = False) -> pd.DataFrame:
    """Pearson's r of every metric with ``target``, one row per metric.

    Columns: ``metric``; ``r`` (Pearson's correlation coefficient); ``p_value`` (two-sided,
    :func:`scipy.stats.pearsonr`); ``n_points`` (points used); ``note`` (empty, or why
    ``r`` is missing: :data:`CONSTANT_NOTE` for a metric or target that does not vary,
    "fewer than 3 points", or on the log scale how many non-positive points were left
    out).  ``columns`` defaults to the 13 metrics of
    :data:`~workbench.models.comm.descriptors.METRIC_COLUMNS` present in ``frame``
    (add them with :func:`~workbench.models.comm.descriptors.descriptors`).

    ``log=True`` correlates ``log10(metric)`` with ``log10(target)``, the paper's
    logarithmic scatter plots; points where either is <= 0 (e.g. ``NT = 0`` for purely
    intra-node traffic) have no logarithm and are left out per metric.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per configuration, with the metrics and the target as columns.
    target : str, default "comm_time_us"
        Column correlated against (:data:`TARGET`).
    columns : sequence of str, optional
        Metric columns; default: the metrics of ``METRIC_COLUMNS`` present in ``frame``.
    log : bool, default False
        Correlate the base-10 logarithms instead of the values.
    """
    where = "pearson_table"
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    if columns is None:
        columns = [c for c in METRIC_COLUMNS if c in frame.columns]
        if not columns:
            raise ValidationError(f"{where}: no metric columns {list(METRIC_COLUMNS)} in the frame; add them with "
                                  "workbench.models.comm.descriptors()")
    y_all = numeric_column(frame, target, where)
    rows = []
    for metric in columns:
        x = numeric_column(frame, metric, where)
        y = y_all
        note = ""
        if log:
            keep = (x > 0) & (y > 0)
            if not keep.all():
                note = f"{int((~keep).sum())} non-positive point(s) left out (no logarithm)"
            x, y = np.log10(x[keep]), np.log10(y[keep])
        r = p = np.nan
        if x.size < 3:
            note = "; ".join(filter(None, [note, "fewer than 3 points"]))
        elif np.ptp(x) == 0 or np.ptp(y) == 0:
            note = "; ".join(filter(None, [note, CONSTANT_NOTE]))
        else:
            result = stats.pearsonr(x, y)
            r, p = float(result.statistic), float(result.pvalue)
        rows.append({"metric": metric, "r": r, "p_value": p, "n_points": int(x.size), "note": note})
    return pd.DataFrame(rows, columns=_TABLE_COLUMNS)


def correlation_matrix(frame: pd.DataFrame, columns: Sequence[str] | None = None, *, log: bool = False) -> pd.DataFrame:
    """Compute Pearson's r between every pair of ``columns``, as a square frame.

    ``columns`` default to the metrics present plus :data:`TARGET` when present; the frame
    is indexed and labelled by column name.

    Constant columns give NaN rows and columns (r undefined; :func:`pearson_table`
    explains them).  ``log=True`` uses ``log10`` with non-positive values as missing
    (pairwise deletion).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per configuration, with the metrics as columns.
    columns : sequence of str, optional
        Columns to correlate; default: the metrics present plus :data:`TARGET` when present.
    log : bool, default False
        Correlate the base-10 logarithms instead of the values.
    """
    where = "correlation_matrix"
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    if columns is None:
        columns = [c for c in (*METRIC_COLUMNS, TARGET) if c in frame.columns]
    data = pd.DataFrame({c: numeric_column(frame, c, where) for c in columns})
    if log:
        data = np.log10(data.where(data > 0))
    # constant columns would make pandas divide by a zero standard deviation: NaN, silently
    return data.corr(method="pearson")
