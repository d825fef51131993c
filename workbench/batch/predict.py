"""Predict every curve of a job archive.

One :class:`ScalingPredictor` per curve, curves in chunks on local processes (joblib) or a
Dask cluster, results written as they come.

Output (:data:`BATCH_COLUMNS`, one row per curve and target, in the order of the curve keys
and then of the targets, whatever the engine):

================  ========  ===============================================================
column            dtype     meaning
================  ========  ===============================================================
*by* columns      as given  the keys of the curve
``n``             float     target allocation (processes, nodes or GPUs, as the runs)
``prediction``    float     predicted runtime, unit of the runs' runtimes; NaN if none
``lower``         float     lower end of the calibrated ``level`` interval
``upper``         float     upper end
``model``         str       model with the largest weight ("" when none fits)
``warned``        bool      the calibrated risk of missing by > 30 % is high
``warnings``      str       warning kinds, ``;``-separated (``WARNING_KINDS``)
``observed``      int       distinct allocations measured on the curve
``error``         str       why the curve could not be predicted ("" when it was)
================  ========  ===============================================================

With ``efficiency=`` or ``deadline=`` the columns of :func:`recommend_allocation` follow,
repeated on every row of a curve.  A curve that cannot be predicted (too few allocations,
bad values) gets one row per target with its message in ``error`` and NaN predictions: the
batch never stops for one curve and drops none.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
import pandas as pd

from workbench.errors import WorkbenchError, quiet_warnings
from workbench.models.scaling import ScalingPredictor
from workbench.models.scaling.base import check_model_names, check_targets
from workbench.models.scaling.calibration import check_level

__all__ = ["BATCH_COLUMNS", "RECOMMEND_COLUMNS", "batch_columns", "predict_curves", "recommend_allocation"]

BATCH_COLUMNS = ["n", "prediction", "lower", "upper", "model", "warned", "warnings", "observed", "error"]
RECOMMEND_COLUMNS = [
    "efficient_n", "efficient_n_optimistic", "efficient_n_pessimistic",
    "deadline_n", "deadline_n_optimistic", "deadline_n_pessimistic",
]


def batch_columns(by: Sequence[str], recommend: bool) -> list[str]:
    """Return the columns of a batch result (module docstring)."""
    return [*by, *BATCH_COLUMNS, *(RECOMMEND_COLUMNS if recommend else [])]


def recommend_allocation(n_base: float, t_base: float, targets, prediction, lower, upper, *,
                         efficiency: float | None = None, deadline: float | None = None) -> dict[str, float]:
    """Return what a scheduler asks of one curve's predictions (NaN where no target qualifies).

    * ``efficient_n``: the largest target up to which the predicted parallel efficiency
      ``E(n) = n_base t_base / (n t(n))``, relative to the smallest observed allocation
      ``n_base`` (runtime ``t_base``, the median there), stays >= ``efficiency``;
    * ``deadline_n``: the smallest target whose predicted runtime is <= ``deadline`` (same
      unit as the runtimes).

    ``_optimistic`` answers use the interval's lower runtime, ``_pessimistic`` its upper one.
    Targets are considered in increasing order; a target without a prediction ends the
    efficient range and never meets the deadline.
    """
    n = np.asarray(targets, dtype=float)
    order = np.argsort(n, kind="stable")
    n = n[order]
    runtimes = {"": np.asarray(prediction, float)[order], "_optimistic": np.asarray(lower, float)[order],
                "_pessimistic": np.asarray(upper, float)[order]}
    out = dict.fromkeys(RECOMMEND_COLUMNS, np.nan)
    for suffix, t in runtimes.items():
        if efficiency is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                ok = (n_base * t_base) / (n * t) >= efficiency  # NaN compares False
            stays = np.logical_and.accumulate(ok)
            if stays.any():
                out["efficient_n" + suffix] = float(n[stays][-1])
        if deadline is not None:
            meets = t <= deadline
            if meets.any():
                out["deadline_n" + suffix] = float(n[meets][0])
    return out


def _curve_rows(n, t, targets: np.ndarray, level: float, models: tuple[str, ...],
                efficiency: float | None, deadline: float | None) -> dict[str, np.ndarray | list]:
    """Return the batch columns of one curve (:data:`BATCH_COLUMNS` + recommendations)."""
    k = targets.size
    observed = int(np.unique(n[np.isfinite(n)]).size)
    try:
        with quiet_warnings():  # a batch records the warning kinds per row instead of printing them
            predictor = ScalingPredictor(models=models).fit(n, t)
        frame = predictor.predict_frame(targets, level)
    except WorkbenchError as exc:
        cols = {"n": targets, "prediction": np.full(k, np.nan), "lower": np.full(k, np.nan),
                "upper": np.full(k, np.nan), "model": [""] * k, "warned": np.ones(k, bool),
                "warnings": [""] * k, "observed": np.full(k, observed), "error": [str(exc)] * k}
        frame = None
    else:
        cols = {"n": frame["n"].to_numpy(float), "prediction": frame["prediction"].to_numpy(float),
                "lower": frame["lower"].to_numpy(float), "upper": frame["upper"].to_numpy(float),
                "model": frame["model"].tolist(), "warned": frame["warned"].to_numpy(bool),
                "warnings": [";".join(kinds) for kinds in frame["warnings"]],
                "observed": np.full(k, observed), "error": [""] * k}
    if efficiency is not None or deadline is not None:
        if frame is None:
            rec = dict.fromkeys(RECOMMEND_COLUMNS, np.nan)
        else:
            rec = recommend_allocation(predictor.allocations_[0], predictor.medians_[0], cols["n"],
                                       cols["prediction"], cols["lower"], cols["upper"],
                                       efficiency=efficiency, deadline=deadline)
        cols.update({name: np.full(k, value) for name, value in rec.items()})
    return cols


def predict_curves(runs: pd.DataFrame, by: Sequence[str], targets, level: float = 0.8, models=None, *,
                   n_column: str = "processes", t_column: str = "time_s", efficiency: float | None = None,
                   deadline: float | None = None) -> pd.DataFrame:
    """Predict every curve of ``runs`` (whole curves, in one process).

    The batch columns (module docstring) for each curve, in the order of its ``by`` keys.
    """
    targets = check_targets(targets, "predict_many")
    level = check_level(level)
    models = check_model_names(models, "predict_many")
    columns = batch_columns(by, efficiency is not None or deadline is not None)
    n_all = pd.to_numeric(runs[n_column], errors="coerce").to_numpy(float)
    t_all = pd.to_numeric(runs[t_column], errors="coerce").to_numpy(float)
    groups = runs.groupby(list(by), sort=True, dropna=False)
    keys = groups.size().index  # in the order of the group numbers
    codes = groups.ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    edges = np.searchsorted(codes[order], np.arange(len(keys) + 1))
    parts: dict[str, list] = {c: [] for c in columns}
    # one model fit per curve: a loop over curves, each vectorised inside; the rows are
    # gathered as columns and framed once
    for g, key in enumerate(keys):
        rows = order[edges[g]:edges[g + 1]]
        cols = _curve_rows(n_all[rows], t_all[rows], targets, level, models, efficiency, deadline)
        for k, v in zip(by, key if isinstance(key, tuple) else (key,)):
            cols[k] = [v] * targets.size
        for c, v in cols.items():
            parts[c].append(v)
    if not len(keys):
        return pd.DataFrame(columns=columns)
    return pd.DataFrame({c: np.concatenate(v) if isinstance(v[0], np.ndarray) else list(chain.from_iterable(v))
                         for c, v in parts.items()})[columns]
