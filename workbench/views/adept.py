"""The ADEPT chapter's tables (notebook 02) as a person reads them.

Each function takes a frame of :mod:`workbench.plots.adept` or :mod:`workbench.evaluation`
and returns a :class:`~workbench.views.tables.Table` (shown formatted as a cell's last
expression): units in the headers, percentages with %, counts as integers, no index.
"""

from __future__ import annotations

import pandas as pd

from workbench.views.tables import Column, Table, table

__all__ = ["holdout_summary_table", "model_data_table", "unit_pitfall"]


def holdout_summary_table(summary: pd.DataFrame) -> Table:
    """:func:`~workbench.evaluation.holdout.holdout_summary` per model: PA in %, shares in %, counts."""
    return table(summary, {
        "predictions": Column("predictions", "int"), "refused": Column("refused", "int"),
        "mean_PA": Column("mean PA", "percent"), "median_PA": Column("median PA", "percent"),
        "within_30pct": Column("within 30 %", "fraction", 0), "misses": Column("misses > 30 %", "int"),
        "misses_warned": Column("misses warned", "int"),
        "warned_share_of_misses": Column("share of misses warned", "fraction", 0),
        "warned_share_of_all": Column("share of all warned", "fraction", 0)})


def model_data_table(comparison: pd.DataFrame) -> Table:
    """:func:`~workbench.evaluation.model_data.model_data_comparison`: each method's start and its errors in %."""
    return table(comparison, {
        "A0": Column("start A"), "sigma0": Column("start σ"), "max_error_pct": Column("max error [%]"),
        "mean_error_pct": Column("mean error [%]")},
        note="ADEPT needs no start (– ); each LM row is one start of Levenberg-Marquardt.")


def unit_pitfall(pitfall: pd.DataFrame) -> Table:
    """:func:`~workbench.plots.adept.unit_pitfall_table` with the warnings in words ("none" when there are none)."""
    return table(pitfall.assign(warnings=pitfall["warnings"].replace("", "none")))
