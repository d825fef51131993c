r"""Predict every curve of a job archive.

One :class:`ScalingPredictor` per curve, curves in chunks on local processes (joblib) or a
Dask cluster, results written as they come.

**Targets** are allocations, whole numbers in the unit of the allocation column (processes,
nodes, GPUs or cores, :data:`~workbench.validation.UNITS`), chosen per curve
(:func:`parse_targets`):

* absolute targets, e.g. ``[256, 512]``: the same for every curve;
* relative targets, e.g. ``["2x", "4x"]``: that multiple of each curve's largest measured
  allocation (rounded to a whole number);
* a targets column of the runs table (``targets_column=``): its values on a curve's rows are
  that curve's targets.

A target below a curve's smallest measured allocation is refused for that curve (a row with
its message in ``error``): the models extrapolate to larger allocations, not smaller ones.

Output (:func:`batch_columns`, one row per curve and target, in the order of the curve keys
and then of increasing target, whatever the engine):

====================  ========  ===========================================================
column                dtype     meaning
====================  ========  ===========================================================
*by* columns          as given  the keys of the curve
*n_column*            Int64     target allocation, in the column's own name and unit
``prediction``        float     predicted runtime, unit of the runs' runtimes; NaN if none
``lower``             float     lower end of the calibrated ``level`` interval
``upper``             float     upper end
``<unit>_hours``      float     cost: target x prediction / 3600 (``node_hours``,
                                ``gpu_hours``, ...; runtimes taken as seconds)
``model``             str       model with the largest weight ("" when none fits)
``warned``            bool      the calibrated risk of missing by > 30 % is high
``warnings``          str       warning kinds, ``;``-separated (``WARNING_KINDS``)
``verdict``           str       one sentence: how far to trust the row, and why
``observed``          int       distinct allocations measured on the curve
``error``             str       why this target of the curve was not predicted ("" when it was)
====================  ========  ===========================================================

With ``efficiency=`` or ``deadline=`` the columns of :func:`recommend_allocation` follow
(allocations as Int64, ``<NA>`` where no target qualifies), repeated on every row of a curve.
A curve that cannot be predicted (too few allocations, bad values) gets one row per target
with its message in ``error`` and NaN predictions: the batch never stops for one curve and
drops none (a curve without any target gets one row with ``<NA>`` target and a message).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain

import numpy as np
import pandas as pd

from workbench.errors import ValidationError, WorkbenchError, quiet_warnings
from workbench.models.scaling import ScalingPredictor
from workbench.models.scaling.base import check_model_names
from workbench.models.scaling.calibration import check_level
from workbench.validation import UNITS, check_unit

__all__ = [
    "BATCH_COLUMNS",
    "RECOMMEND_COLUMNS",
    "UNITS",
    "batch_columns",
    "cost_column",
    "parse_targets",
    "predict_curves",
    "recommend_allocation",
    "unit_labels",
]

#: The columns after the target column (see :func:`batch_columns` for the whole list).
BATCH_COLUMNS = ["prediction", "lower", "upper", "model", "warned", "warnings", "verdict", "observed", "error"]
RECOMMEND_COLUMNS = [
    "efficient_n", "efficient_n_optimistic", "efficient_n_pessimistic",
    "deadline_n", "deadline_n_optimistic", "deadline_n_pessimistic",
]
_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*[x×]\s*$", re.IGNORECASE)


def unit_labels(unit: str) -> tuple[str, str, str]:
    """Return ``(one, several, cost unit)`` of ``unit``, e.g. ``("node", "nodes", "node-hours")``.

    ``unit`` as :func:`workbench.validation.check_unit` (``"nodes"``, ``"GPU"``...).

    Parameters
    ----------
    unit : str
        An allocation unit (``"nodes"``, ``"GPU"``...), as :func:`workbench.validation.check_unit` reads it.
    """
    return UNITS[check_unit(unit, "predict_many")]


def cost_column(unit: str) -> str:
    """Return the name of the cost column of ``unit``: ``node_hours``, ``gpu_hours``, ...

    Parameters
    ----------
    unit : str
        An allocation unit.
    """
    return unit_labels(unit)[0].lower() + "_hours"


def batch_columns(by: Sequence[str], recommend: bool, n_column: str = "processes",
                  unit: str = "processes") -> list[str]:
    """Return the columns of a batch result (module docstring).

    Parameters
    ----------
    by : sequence of str
        The curve keys.
    recommend : bool
        Whether the recommendation columns of :func:`recommend_allocation` are included.
    n_column : str, default "processes"
        The allocation column (also the target column's name).
    unit : str, default "processes"
        What ``n_column`` counts (names the cost column).
    """
    return [*by, n_column, *BATCH_COLUMNS[:3], cost_column(unit), *BATCH_COLUMNS[3:],
            *(RECOMMEND_COLUMNS if recommend else [])]


def parse_targets(targets, where: str = "predict_many") -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Split target specifications into absolute allocations and relative factors.

    Parameters
    ----------
    targets : sequence of int, float or str, or None
        Whole allocations (``256``, ``"256"``, ``256.0``) and multiples of each curve's
        largest measured allocation (``"2x"``, ``"1.5x"``).  None: no targets.
    where : str, default "predict_many"
        Who asks, for messages.

    Returns
    -------
    tuple of (tuple of int, tuple of float)
        The absolute targets and the factors, each without repeats, in the order given.

    Raises
    ------
    ValidationError
        For a value that is neither, a fraction of an allocation (``87.2``), or a value
        below 1 (a factor must be > 0).
    """
    if targets is None:
        return (), ()
    if isinstance(targets, (str, int, float, np.integer, np.floating)):
        targets = [targets]
    absolute, factors = [], []
    for position, value in enumerate(targets):
        shown = value if isinstance(value, str) else repr(value)
        if isinstance(value, str) and _RELATIVE.match(value):
            factor = float(_RELATIVE.match(value)[1])
            if not factor > 0:
                raise ValidationError(f"{where}: target {shown} (position {position}): a multiple must be > 0, "
                                      "e.g. 2x")
            factors.append(factor)
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValidationError(f"{where}: target {shown!s} (position {position}) is neither an allocation "
                                  "(a whole number such as 256) nor a multiple of each curve's largest "
                                  "measured allocation (such as 2x)") from None
        if not np.isfinite(number) or number < 1 or number != np.floor(number) or number > 2**53:
            raise ValidationError(f"{where}: target {shown!s} (position {position}) is not an allocation: targets "
                                  "are whole numbers >= 1 (processes, nodes, GPUs), or multiples such as 2x")
        absolute.append(int(number))
    return tuple(dict.fromkeys(absolute)), tuple(dict.fromkeys(factors))


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

    Parameters
    ----------
    n_base, t_base : float
        The smallest observed allocation and its median runtime.
    targets : array-like of float
        The targets predicted.
    prediction, lower, upper : array-like of float
        Predicted runtime and its interval at each target (NaN: no prediction).
    efficiency : float, optional
        Threshold on the parallel efficiency, in (0, 1]; default None: no ``efficient_n``.
    deadline : float, optional
        Largest runtime (unit of the runtimes); default None: no ``deadline_n``.
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


def _curve_targets(n: np.ndarray, absolute, factors, listed: np.ndarray) -> tuple[np.ndarray, str]:
    """Return one curve's targets (sorted whole numbers) and a problem with its listed ones ("" if none)."""
    measured = n[np.isfinite(n)]
    chosen = list(absolute)
    if factors and measured.size:
        chosen += [max(1, int(np.floor(f * measured.max() + 0.5))) for f in factors]  # half up
    listed = listed[~np.isnan(listed)]
    bad = listed[(listed < 1) | (listed != np.floor(listed)) | ~np.isfinite(listed)]
    chosen += [int(v) for v in listed if np.isfinite(v) and v >= 1 and v == np.floor(v)]
    problem = f"listed target {bad[0]:g} is not a whole number >= 1" if bad.size else ""
    return np.unique(np.asarray(chosen, dtype=np.int64)), problem


def _curve_rows(n, t, listed, nodes, absolute, factors, level: float, models: tuple[str, ...], unit: str,
                per_node: int | None, efficiency: float | None, deadline: float | None) -> dict[str, np.ndarray | list]:
    """Return the batch columns of one curve (:data:`BATCH_COLUMNS` + target, cost, recommendations)."""
    targets, problem = _curve_targets(n, absolute, factors, listed)
    observed = int(np.unique(n[np.isfinite(n)]).size)
    k = max(targets.size, 1)
    cols = {"target": pd.array(targets if targets.size else [None], dtype="Int64"),
            "prediction": np.full(k, np.nan), "lower": np.full(k, np.nan), "upper": np.full(k, np.nan),
            "model": [""] * k, "warned": np.ones(k, bool), "warnings": [""] * k, "verdict": ["no prediction"] * k,
            "observed": np.full(k, observed),
            "error": [problem or "no target for this curve (give targets, or values in the targets column)"] * k}
    one, several, _ = unit_labels(unit)
    smallest = float(np.nanmin(n)) if observed else np.nan
    below = targets < smallest  # NaN compares False: such a curve fails in the fit below
    for i in np.flatnonzero(below):
        cols["error"][i] = (f"{targets[i]:,} {one if targets[i] == 1 else several}: below this curve's smallest "
                            f"measured allocation ({smallest:,.0f} {several}); models extrapolate to larger "
                            "allocations only")
    wanted = np.flatnonzero(~below)
    predictor = None
    if wanted.size:
        try:
            with quiet_warnings():  # a batch records the warning kinds per row instead of printing them
                predictor = ScalingPredictor(models=models, unit=unit, per_node=per_node).fit(n, t, nodes)
            frame = predictor.predict_frame(targets[wanted].astype(float), level)
        except WorkbenchError as exc:
            predictor = None
            for i in wanted:
                cols["error"][i] = str(exc)
        else:
            for name in ("prediction", "lower", "upper"):
                cols[name][wanted] = frame[name].to_numpy(float)
            cols["warned"][wanted] = frame["warned"].to_numpy(bool)
            for j, i in enumerate(wanted):
                cols["model"][i] = frame["model"].iat[j]
                cols["warnings"][i] = ";".join(frame["warnings"].iat[j])
                cols["verdict"][i] = frame["verdict"].iat[j]
                cols["error"][i] = problem
    if efficiency is not None or deadline is not None:
        if predictor is None:
            rec = dict.fromkeys(RECOMMEND_COLUMNS, np.nan)
        else:
            rec = recommend_allocation(predictor.allocations_[0], predictor.medians_[0], targets[wanted],
                                       cols["prediction"][wanted], cols["lower"][wanted], cols["upper"][wanted],
                                       efficiency=efficiency, deadline=deadline)
        cols.update({name: np.full(k, value) for name, value in rec.items()})
    return cols


def predict_curves(runs: pd.DataFrame, by: Sequence[str], targets=None, level: float = 0.8, models=None, *,
                   n_column: str = "processes", t_column: str = "time_s", unit: str = "processes",
                   targets_column: str | None = None, per_node: int | None = None, nodes_column: str | None = None,
                   efficiency: float | None = None, deadline: float | None = None) -> pd.DataFrame:
    """Predict every curve of ``runs`` (whole curves, in one process).

    ``targets`` as :func:`parse_targets`, ``targets_column`` a column of ``runs`` listing
    further targets per curve; ``per_node`` and ``nodes_column`` (the nodes of each run; a
    curve with a run of unknown nodes is fitted without them) go to the predictor.  The batch
    columns (module docstring) for each curve, in the order of its ``by`` keys.

    Parameters
    ----------
    runs : pandas.DataFrame
        The runs, one row per run.
    by : sequence of str
        The columns that identify a curve.
    targets : sequence of int or str, optional
        Targets as :func:`parse_targets` reads them.
    level : float, default 0.8
        Central probability of the intervals.
    models : str or sequence of str, optional
        Model names; default None: all.
    n_column, t_column : str, default "processes", "time_s"
        Allocation and runtime columns.
    unit : str, default "processes"
        What ``n_column`` counts.
    targets_column : str, optional
        A column of ``runs`` listing further targets per curve.
    per_node : int, optional
        Allocation units per node, for the predictor's ``leaves-node`` check.
    nodes_column : str, optional
        The nodes of each run (a curve with a run of unknown nodes is fitted without them).
    efficiency, deadline : float, optional
        Thresholds of :func:`recommend_allocation`; default None: no recommendation.
    """
    absolute, factors = parse_targets(targets)
    level = check_level(level)
    models = check_model_names(models, "predict_many")
    unit = check_unit(unit, "predict_many")
    columns = batch_columns(by, efficiency is not None or deadline is not None, n_column, unit)
    if not len(runs):
        return _typed(pd.DataFrame(columns=columns), n_column, unit)
    n_all = pd.to_numeric(runs[n_column], errors="coerce").to_numpy(float)
    t_all = pd.to_numeric(runs[t_column], errors="coerce").to_numpy(float)
    listed_all = (pd.to_numeric(runs[targets_column], errors="coerce").to_numpy(float) if targets_column
                  else np.full(len(runs), np.nan))
    nodes_all = pd.to_numeric(runs[nodes_column], errors="coerce").to_numpy(float) if nodes_column else None
    groups = runs.groupby(list(by), sort=True, dropna=False)
    keys = groups.size().index  # in the order of the group numbers
    codes = groups.ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    edges = np.searchsorted(codes[order], np.arange(len(keys) + 1))
    parts: dict[str, list] = {}
    # one model fit per curve: a loop over curves, each vectorised inside; the rows are
    # gathered as columns and framed once
    for g, key in enumerate(keys):
        rows = order[edges[g]:edges[g + 1]]
        nodes = nodes_all[rows] if nodes_all is not None else None
        nodes = nodes if nodes is not None and np.isfinite(nodes).all() else None
        cols = _curve_rows(n_all[rows], t_all[rows], listed_all[rows], nodes, absolute, factors, level, models, unit,
                           per_node, efficiency, deadline)
        size = len(cols["target"])
        for k, v in zip(by, key if isinstance(key, tuple) else (key,)):
            cols[k] = [v] * size
        for c, v in cols.items():
            parts.setdefault(c, []).append(v)
    data = {c: (list(chain.from_iterable(v)) if isinstance(v[0], list) else
                pd.array(np.concatenate([np.asarray(x, dtype=object) for x in v]), dtype="Int64") if c == "target"
                else np.concatenate(v))
            for c, v in parts.items()}
    frame = pd.DataFrame(data).rename(columns={"target": n_column})
    frame[cost_column(unit)] = frame[n_column].to_numpy(float, na_value=np.nan) * frame["prediction"] / 3600
    return _typed(frame[columns], n_column, unit)


def _typed(frame: pd.DataFrame, n_column: str, unit: str) -> pd.DataFrame:
    """Give the batch columns their documented dtypes (allocations as Int64, counts as int)."""
    frame = frame.copy()
    for col in frame.columns:
        if col == n_column or col in RECOMMEND_COLUMNS:
            frame[col] = pd.array(pd.to_numeric(frame[col], errors="coerce").round(), dtype="Int64")
    for col, dtype in (("prediction", float), ("lower", float), ("upper", float), (cost_column(unit), float),
                       ("warned", bool), ("observed", "int64")):
        frame[col] = frame[col].astype(dtype)
    return frame
