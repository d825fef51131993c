"""The ADEPT chapter's tables (notebook 02) and its warnings as a person reads them.

Each function takes a frame of :mod:`workbench.plots.adept` or :mod:`workbench.evaluation`
and returns a :class:`~workbench.views.tables.Table` (shown formatted as a cell's last
expression): units in the headers, percentages with %, counts as integers, no index.
:func:`warnings_html` lists a model's warnings for the dashboards.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.errors import ModelWarning
from workbench.evaluation.holdout import MISS, RELIABILITY_KINDS
from workbench.views.tables import Column, Table, table

__all__ = ["holdout_summary_table", "model_data_table", "unit_pitfall", "warnings_html"]


def holdout_summary_table(summary: pd.DataFrame) -> Table:
    """:func:`~workbench.evaluation.holdout.holdout_summary` per model: PA in %, shares in %, counts.

    Parameters
    ----------
    summary : pandas.DataFrame
        The output of :func:`~workbench.evaluation.holdout.holdout_summary`.
    """
    return table(summary, {
        "predictions": Column("predictions", "int"), "refused": Column("refused", "int"),
        "mean_PA": Column("mean PA", "percent"), "median_PA": Column("median PA", "percent"),
        f"within_{MISS.value:g}pct": Column(f"within {MISS.value:g} %", "fraction", 0),
        "misses": Column(f"misses > {MISS.value:g} %", "int"),
        "misses_warned": Column("misses warned", "int"),
        "warned_share_of_misses": Column("share of misses warned", "fraction", 0),
        "warned_share_of_all": Column("share of all warned", "fraction", 0)})


def model_data_table(comparison: pd.DataFrame) -> Table:
    """:func:`~workbench.evaluation.model_data.model_data_comparison`: each method's start and its errors in %.

    Parameters
    ----------
    comparison : pandas.DataFrame
        The output of :func:`~workbench.evaluation.model_data.model_data_comparison`.
    """
    return table(comparison, {
        "A0": Column("start A"), "sigma0": Column("start σ"), "max_error_pct": Column("max error [%]"),
        "mean_error_pct": Column("mean error [%]")},
        note="ADEPT needs no start (– ); each LM row is one start of Levenberg-Marquardt.")


def unit_pitfall(pitfall: pd.DataFrame) -> Table:
    """:func:`~workbench.plots.adept.unit_pitfall_table` with the warnings in words ("none" when there are none).

    Parameters
    ----------
    pitfall : pandas.DataFrame
        The output of :func:`~workbench.plots.adept.unit_pitfall_table`.
    """
    return table(pitfall.assign(warnings=pitfall["warnings"].replace("", "none")))


def _targets_text(targets: Sequence[float], limit: int = 6) -> str:
    vals = sorted(float(v) for v in targets)
    shown = ", ".join(f"{v:g}" for v in vals[:limit])
    return shown + (f", … ({len(vals)} targets)" if len(vals) > limit else "")


def warnings_html(warnings: Sequence[ModelWarning]) -> str:
    """ADEPT's warnings ([Deshmeh2013] section 3.10, Table 3) as an HTML list.

    Kind, message, the targets concerned (abridged) and a suggested allocation to measure.
    Text is escaped.

    Parameters
    ----------
    warnings : sequence of ModelWarning
        A model's ``warnings_`` (or those for some targets).
    """
    if not warnings:
        return '<div class="wb-adept-warnings"><b>Reliability:</b> no warnings.</div>'
    items = []
    for w in warnings:
        extra = []
        if w.targets:
            extra.append(f"targets n = {_targets_text(w.targets)}")
        if w.suggested_n is not None and np.isfinite(w.suggested_n):
            extra.append(f"suggested: measure at n = {w.suggested_n:g}")
        tail = f' <span style="color:#555">({html.escape("; ".join(extra))})</span>' if extra else ""
        color = "#8b0000" if w.kind in RELIABILITY_KINDS else "#6d4c00"
        items.append(f'<li><b style="color:{color}">{html.escape(w.kind)}</b>: {html.escape(w.message)}{tail}</li>')
    return (f'<div class="wb-adept-warnings"><b>Warnings ({len(warnings)}):</b>'
            f'<ul style="margin:2px 0 0 0;padding-left:20px">{"".join(items)}</ul></div>')
