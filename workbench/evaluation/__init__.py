"""Evaluation: metrics that score predictions against measurements ([Deshmeh2013] section 3.7)."""

from workbench.metrics import (
    error_pct,
    mape,
    mpe,
    prediction_accuracy,
    r2,
    rmse,
    share_within,
    spearman,
    summarize,
)

__all__ = [
    "error_pct",
    "mape",
    "mpe",
    "prediction_accuracy",
    "r2",
    "rmse",
    "share_within",
    "spearman",
    "summarize",
]
