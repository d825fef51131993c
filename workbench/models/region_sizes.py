"""Regions over allocation x problem size: the p x s branch of :class:`~workbench.models.regions.RegionPredictor`.

``RegionPredictor().fit(table, n="processes", parameters=("size",))`` models every region of
a profile table over the allocation *and* the problem parameters (issue 25 item 3): one
:class:`~workbench.models.multiparam.MultiParameterPredictor` per region for its inclusive
time (and one for its exclusive time where those are positive at >= 3 distinct points), each
with its calibrated interval and warnings.  This module holds that branch's fitting and
prediction so that :mod:`workbench.models.regions` only dispatches to it.

What a region frame says over p x s (:func:`predict_frame_over_sizes`), per target row
(allocation and problem parameters): the region's predicted inclusive time and interval,
its ``share`` of the root's predicted time at the same target, its ``rank`` by predicted
exclusive time (1 = largest), its ``growth`` along the allocation at the target's problem
parameters (:func:`~workbench.models.regions.growth_words` from the smallest measured
allocation to the target's), and the region warnings ``share-grows`` / ``runtime-rises``
along that same line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import ModelWarning, ValidationError, quiet_warnings
from workbench.models.multiparam import ALLOCATION, MultiParameterPredictor

__all__ = ["check_size_parameters", "fit_regions_over_sizes", "frame_columns", "predict_frame_over_sizes",
           "profile_parameters"]

#: Least distinct (allocation, problem parameters) points of a region for a model of it.
MIN_POINTS = 4


def internal_name(parameter: str) -> str:
    """Return the column name a problem parameter has inside the region models.

    The models' allocation column is ``n``; a problem parameter that the table calls ``n``
    (RELeARN's neurons per rank) becomes ``n_param`` there.

    Parameters
    ----------
    parameter : str
        The parameter's column in the profile table.
    """
    return f"{parameter}_param" if parameter == ALLOCATION else str(parameter)


def frame_columns(n_column: str, parameters) -> list[str]:
    """Return the columns of :func:`predict_frame_over_sizes`.

    Parameters
    ----------
    n_column : str
        The allocation column of the profile table.
    parameters : sequence of str
        The problem-parameter columns.
    """
    return ["region", n_column, *parameters, "prediction", "lower", "upper", "share", "rank", "growth", "warned",
            "warnings"]


def check_size_parameters(table: pd.DataFrame, n: str, parameters) -> tuple[str, ...]:
    """Return the problem-parameter columns as a tuple, else raise a ValidationError.

    Parameters
    ----------
    table : pandas.DataFrame
        The profile table.
    n : str
        The allocation column.
    parameters : str or sequence of str
        The problem-parameter columns (one name or several).
    """
    params = (parameters,) if isinstance(parameters, str) else tuple(str(p) for p in parameters)
    missing = [p for p in params if p not in table.columns]
    if missing:
        raise ValidationError(f"RegionPredictor.fit: the profile table lacks problem-parameter column(s) "
                              f"{', '.join(map(repr, missing))}; columns: {', '.join(map(str, table.columns))}")
    if n in params or len(set(params)) != len(params):
        raise ValidationError(f"RegionPredictor.fit: parameters must be distinct columns other than the allocation "
                              f"column {n!r}, got {list(params)}")
    return params


def profile_parameters(rows: pd.DataFrame, parameters: tuple[str, ...]) -> pd.DataFrame:
    """Return one row per profile with its problem parameters (numeric, > 0), else raise a ValidationError.

    The parameters' columns have their :func:`internal_name` (the runs' allocation is ``n``).

    Parameters
    ----------
    rows : pandas.DataFrame
        The profile table's rows of the modelled metric (column ``profile`` and the parameters).
    parameters : tuple of str
        The problem-parameter columns.
    """
    per = rows.drop_duplicates("profile")[["profile", *parameters]].copy()
    for p in parameters:
        values = pd.to_numeric(per[p], errors="coerce")
        bad = ~(values > 0)
        if bad.any():
            raise ValidationError(f"RegionPredictor.fit: problem parameter {p!r} must be a number > 0 in every "
                                  f"profile, got {per[p][bad].iloc[0]!r} in {per['profile'][bad].iloc[0]}")
        per[p] = values.astype(float)
    return per.rename(columns={p: internal_name(p) for p in parameters})


def _design(frame: pd.DataFrame, n_col: str, parameters) -> pd.DataFrame:
    """Return the models' input: ``n`` and the problem parameters under their internal names."""
    out = pd.DataFrame({ALLOCATION: frame[n_col].to_numpy(float)})
    for p in parameters:
        out[internal_name(p)] = frame[p].to_numpy(float)
    return out


def _fit_one(X: pd.DataFrame, t: np.ndarray):
    """Return a fitted MultiParameterPredictor, or None with the reason when the runs cannot make one."""
    points = len(X.drop_duplicates())
    if points < MIN_POINTS:
        return None, f"only {points} distinct points with a positive time; {MIN_POINTS} are needed"
    try:
        with quiet_warnings():
            return MultiParameterPredictor().fit(X, t), ""
    except ValidationError as exc:
        return None, str(exc)


def fit_regions_over_sizes(runs: pd.DataFrame, info: pd.DataFrame, parameters
                           ) -> tuple[dict, dict, list[dict], list[ModelWarning]]:
    """Fit a MultiParameterPredictor per region (inclusive time; exclusive where positive).

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per (region, profile): ``region, n, inclusive, exclusive`` and the problem
        parameters (:func:`profile_parameters`: their :func:`internal_name`).
    info : pandas.DataFrame
        Per region (index): ``parent``, ``depth`` and optionally ``name``.
    parameters : tuple of str
        The problem-parameter columns.

    Returns
    -------
    predictors, exclusive_predictors : dict of str -> MultiParameterPredictor
    records : list of dict
        One per modelled region: region, name, parent, depth, allocations, points,
        exclusive, measured.
    warnings : list of ModelWarning
        ``region-skipped`` for every region that could not be modelled.
    """
    parameters = [internal_name(p) for p in parameters]
    predictors, exclusive, records, notes = {}, {}, [], []
    for region, group in runs.groupby("region", sort=False):
        incl = group[group["inclusive"] > 0]
        model, why = _fit_one(_design(incl, "n", parameters), incl["inclusive"].to_numpy(float))
        if model is None:
            notes.append(ModelWarning("region-skipped", f"region {region!r}: {why}"))
            continue
        predictors[region] = model
        excl = group[group["exclusive"] > 0]
        own, _ = _fit_one(_design(excl, "n", parameters), excl["exclusive"].to_numpy(float))
        if own is not None:
            exclusive[region] = own
        records.append({"region": region, "name": info.loc[region, "name"] if "name" in info else region,
                        "parent": info.loc[region, "parent"], "depth": int(info.loc[region, "depth"]),
                        "allocations": int(incl["n"].nunique()),
                        "points": int(len(incl[["n", *parameters]].drop_duplicates())),
                        "exclusive": region in exclusive, "measured": float(incl["inclusive"].median())})
    return predictors, exclusive, records, notes


def _targets(targets, n_col: str, parameters) -> pd.DataFrame:
    """Return the targets as a frame with the allocation and problem-parameter columns (numeric), else an error."""
    if not isinstance(targets, pd.DataFrame):
        raise ValidationError(f"RegionPredictor.predict_frame: fitted over {n_col} x {', '.join(parameters)}: "
                              f"targets must be a DataFrame with the columns {[n_col, *parameters]}, got "
                              f"{type(targets).__name__}")
    frame = targets
    if n_col not in frame.columns and ALLOCATION in frame.columns and ALLOCATION not in parameters:
        frame = frame.rename(columns={ALLOCATION: n_col})
    missing = [c for c in (n_col, *parameters) if c not in frame.columns]
    if missing:
        raise ValidationError(f"RegionPredictor.predict_frame: targets lack column(s) "
                              f"{', '.join(map(repr, missing))}; expected {[n_col, *parameters]}")
    out = pd.DataFrame({c: pd.to_numeric(frame[c], errors="coerce").to_numpy(float) for c in (n_col, *parameters)})
    if out.empty:
        raise ValidationError("RegionPredictor.predict_frame: no targets")
    return out


def _exclusive(model, X: pd.DataFrame, inclusive: dict) -> dict:
    """Return the predicted exclusive time per region: its own model, else inclusive minus its children's (>= 0)."""
    parents = model.regions_.set_index("region")["parent"].astype(str)
    out = {}
    for region in model.predictors_:
        if region in model.exclusive_predictors_:
            out[region] = model.exclusive_predictors_[region].predict(X)
        else:
            children = [r for r in model.predictors_ if parents.get(r) == region]
            rest = inclusive[region] - sum((inclusive[c] for c in children), np.zeros_like(inclusive[region]))
            out[region] = np.maximum(rest, 0.0)
    return out


def _along_n(model, X: pd.DataFrame, lattice: np.ndarray, limits: tuple[float, float, float], words_of):
    """Return growth words and region warnings per region and target, along n at each target's problem parameters.

    Returns ``(growth, kinds, verdicts)``: growth[region] a list of words per target, kinds[region]
    a list of tuples of warning kinds per target, and the verdict rows.
    """
    share_rise, rise, min_share = limits
    n_col = model.n_column_

    params = [c for c in X.columns if c != ALLOCATION]
    combos, which = np.unique(X[params].to_numpy(float), axis=0, return_inverse=True)
    which = which.reshape(-1)
    growth = {r: [""] * len(X) for r in model.predictors_}
    kinds = {r: [()] * len(X) for r in model.predictors_}
    verdicts = []
    for c, values in enumerate(combos):
        at = np.flatnonzero(which == c)
        top = max(float(X[ALLOCATION].to_numpy()[at].max()), model.n_max_)
        grid = np.unique(np.concatenate([lattice[lattice < top], [top]]))
        line = pd.DataFrame({ALLOCATION: grid, **{p: np.full(grid.size, v) for p, v in zip(params, values)}})
        pred = {r: m.predict(line) for r, m in model.predictors_.items()}
        total = pred[model.root_]
        label = ", ".join(f"{p}={v:g}" for p, v in zip(model.parameters_, values))
        for region, p in pred.items():
            words = words_of(grid, p)
            found = []
            with np.errstate(invalid="ignore", divide="ignore"):
                share = p[[0, -1]] / total[[0, -1]]
            if (region != model.root_ and np.isfinite(share).all() and share[1] > (1 + share_rise) * share[0]
                    and share[1] >= min_share):
                found.append(("share-grows", f"{region} at {label}: its share of the run grows from {share[0]:.1%} "
                                             f"at {n_col} = {grid[0]:g} to {share[1]:.1%} at {n_col} = {grid[-1]:g}"))
            if region != model.root_ and p[-1] > (1 + rise) * p[0]:
                found.append(("runtime-rises", f"{region} at {label}: its time rises with {n_col} ({words}): "
                                               f"{p[0]:.4g} at {n_col} = {grid[0]:g}, {p[-1]:.4g} predicted at "
                                               f"{n_col} = {grid[-1]:g}"))
            for i in at:
                growth[region][i] = words
                kinds[region][i] = tuple(k for k, _ in found)
            verdicts += [{"region": region, **dict(zip(model.parameters_, values)), "kind": k, "message": msg}
                         for k, msg in found]
    return growth, kinds, pd.DataFrame(verdicts, columns=["region", *model.parameters_, "kind", "message"])


def predict_frame_over_sizes(model, targets, level: float, lattice: np.ndarray, limits: tuple[float, float, float],
                             words_of) -> pd.DataFrame:
    """Predict every region of a RegionPredictor fitted over p x s at the rows of ``targets``.

    Parameters
    ----------
    model : RegionPredictor
        Fitted with ``parameters=``.
    targets : pandas.DataFrame
        The allocation column (as fitted, or ``n``) and the problem-parameter columns.
    level : float
        Central probability of the intervals.
    lattice : ndarray
        Allocations of the growth curves (the RegionPredictor's fixed lattice).
    limits : tuple of float
        The region warnings' thresholds: relative share rise, relative runtime rise, least
        share at the largest target.
    words_of : callable
        ``words_of(n, t)``: a curve's trend in words (:func:`~workbench.models.regions.growth_words`).

    Returns
    -------
    pandas.DataFrame
        One row per (region, target), :func:`frame_columns`; ``attrs["verdicts"]`` the
        region warnings (region, the problem parameters, kind, message),
        ``attrs["consistency"]`` the exclusive predictions of ``parts_`` summed beside the
        root's (``total``, ``sum_exclusive``, ``ratio``, ``measured_ratio``) and
        ``attrs["messages"]`` the sentences of every region's warnings.
    """
    n_col, params = model.n_column_, list(model.parameters_)
    table = _targets(targets, n_col, params)
    X = _design(table, n_col, params)
    frames = {r: m.predict_frame(X, level) for r, m in model.predictors_.items()}
    inclusive = {r: f["prediction"].to_numpy(float) for r, f in frames.items()}
    exclusive = _exclusive(model, X, inclusive)
    regions = list(frames)
    ex = np.vstack([exclusive[r] for r in regions])
    order = np.argsort(np.argsort(-np.where(np.isfinite(ex), ex, -np.inf), axis=0, kind="stable"), axis=0) + 1
    growth, kinds, verdicts = _along_n(model, X, lattice, limits, words_of)
    total = inclusive[model.root_]
    parts = []
    for i, region in enumerate(regions):
        f = frames[region]
        with np.errstate(invalid="ignore", divide="ignore"):
            share = inclusive[region] / total
        parts.append(pd.DataFrame({
            "region": region, **{c: table[c].to_numpy(float) for c in (n_col, *params)},
            "prediction": inclusive[region], "lower": f["lower"].to_numpy(float),
            "upper": f["upper"].to_numpy(float), "share": share, "rank": order[i].astype(np.int64),
            "growth": growth[region], "warned": f["warned"].to_numpy(bool),
            "warnings": [tuple(w) + k for w, k in zip(f["warnings"], kinds[region])]}))
    frame = pd.concat(parts, ignore_index=True)[frame_columns(n_col, params)]
    summed = np.nansum(np.vstack([exclusive[r] for r in model.parts_ if r in exclusive]), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = summed / total
    frame.attrs["verdicts"] = verdicts
    frame.attrs["consistency"] = table.assign(total=total, sum_exclusive=summed, ratio=ratio,
                                              measured_ratio=model.measured_ratio_)
    frame.attrs["messages"] = {r: f.attrs.get("messages", {}) for r, f in frames.items()}
    return frame
