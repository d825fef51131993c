"""Panels of the multi-parameter dashboard (HTML built from the predictor's results)."""

from __future__ import annotations

import html

import pandas as pd

__all__ = ["target_html"]


def target_html(row: pd.Series, parameter: str, messages: dict, weights: dict, unit: str = "s") -> str:
    """Return the prediction at the target as HTML: value, interval, chosen model, weights and warnings.

    Parameters
    ----------
    row : pandas.Series
        One row of ``MultiParameterPredictor.predict_frame``.
    parameter : str
        The problem-parameter column.
    messages : dict
        ``predict_frame(...).attrs["messages"]`` (kind -> sentence).
    weights : dict
        Member -> weight.
    unit : str, default "s"
        Runtime unit.

    Returns
    -------
    str
    """
    kinds = list(row["warnings"])
    warn = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(messages.get(k, ''))}</li>" for k in kinds)
    shares = ", ".join(f"{html.escape(m)} {w:.0%}" for m, w in sorted(weights.items(), key=lambda kv: -kv[1]))
    flag = "<span style='color:#b00'>warned</span>" if row["warned"] else "not warned"
    return (
        f"<div style='font-size:14px'><b>n = {row['n']:g}, {html.escape(parameter)} = {row[parameter]:g}</b>: "
        f"predicted {row['prediction']:.4g} {unit}, 80 % interval [{row['lower']:.4g}, {row['upper']:.4g}] {unit}"
        f"<br>model with the largest weight: {html.escape(str(row['model']))} (weights: {shares}); {flag}"
        + (f"<ul style='margin:4px 0'>{warn}</ul>" if warn else "") + "</div>"
    )
