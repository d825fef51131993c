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

The RegionPredictor's other questions take a DataFrame of targets too:
:meth:`~workbench.models.regions.RegionPredictor.predict_exclusive`
(:func:`predict_exclusive_over_sizes`), ``consistency_frame`` (:func:`consistency_over_sizes`),
``growth`` (:func:`growth_over_sizes`) and ``verdicts`` (:func:`verdicts_over_sizes`): where a
region starts to dominate along two lines through each target, the target's problem on other
allocations (strong scaling at the user's size) and the problem grown at constant work per
process (weak scaling, by the work law the root's work model learnt, :func:`work_law`).
``region_frame`` (one region at allocations only) refuses and names ``predict_frame``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import ModelWarning, ValidationError, quiet_warnings
from workbench.models.multiparam import ALLOCATION, MultiParameterPredictor, learnt_work_law

__all__ = ["LINES", "check_size_parameters", "consistency_over_sizes", "fit_regions_over_sizes", "frame_columns",
           "growth_over_sizes", "line_through", "predict_exclusive_over_sizes", "predict_frame_over_sizes",
           "profile_parameters", "verdicts_over_sizes", "work_law"]

#: Least distinct (allocation, problem parameters) points of a region for a model of it.
MIN_POINTS = 4
#: The lines through a target along which :func:`verdicts_over_sizes` looks for a region that
#: starts to dominate: name -> what stays constant along it (:func:`line_through`).
LINES = {"strong": "the problem parameters (the target's problem on other allocations: strong scaling at the "
                   "user's size)",
         "weak": "the work per process (the problem grown with the allocation: weak scaling)"}


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


def _targets(targets, n_col: str, parameters, where: str = "RegionPredictor.predict_frame") -> pd.DataFrame:
    """Return the targets as a frame with the allocation and problem-parameter columns (numeric), else an error."""
    if not isinstance(targets, pd.DataFrame):
        raise ValidationError(f"{where}: fitted over {n_col} x {', '.join(parameters)}: "
                              f"targets must be a DataFrame with the columns {[n_col, *parameters]}, got "
                              f"{type(targets).__name__}")
    frame = targets
    if n_col not in frame.columns and ALLOCATION in frame.columns and ALLOCATION not in parameters:
        frame = frame.rename(columns={ALLOCATION: n_col})
    missing = [c for c in (n_col, *parameters) if c not in frame.columns]
    if missing:
        raise ValidationError(f"{where}: targets lack column(s) "
                              f"{', '.join(map(repr, missing))}; expected {[n_col, *parameters]}")
    out = pd.DataFrame({c: pd.to_numeric(frame[c], errors="coerce").to_numpy(float) for c in (n_col, *parameters)})
    if out.empty:
        raise ValidationError(f"{where}: no targets")
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
    growth, kinds, verdicts = _along_n(model, X, lattice, limits, words_of)
    frame = region_rows(frames, exclusive, model.root_, {c: table[c].to_numpy(float) for c in (n_col, *params)},
                        growth, kinds)[frame_columns(n_col, params)]
    frame.attrs["verdicts"] = verdicts
    frame.attrs["consistency"] = _consistency(model, table, inclusive[model.root_], exclusive)
    frame.attrs["messages"] = {r: f.attrs.get("messages", {}) for r, f in frames.items()}
    return frame


def region_rows(frames: dict, exclusive: dict, root: str, coordinates: dict, growth: dict, kinds: dict
                ) -> pd.DataFrame:
    """Stack every region's predictions into the rows of ``RegionPredictor.predict_frame``.

    Parameters
    ----------
    frames : dict of str to pandas.DataFrame
        Each region's prediction frame at the targets (``prediction``, ``lower``, ``upper``,
        ``warned``, ``warnings``), in the regions' order.
    exclusive : dict of str to numpy.ndarray
        Each region's predicted exclusive time at the targets (ranks the regions).
    root : str
        The root region (``share`` is of its predicted time).
    coordinates : dict of str to numpy.ndarray
        The target columns (the allocation, and the problem parameters over p x s).
    growth : dict of str to str or array-like of str
        Each region's trend in words (one for all targets, or one per target).
    kinds : dict of str to sequence of tuple of str
        Each region's own warning kinds per target, appended to its predictor's.

    Returns
    -------
    pandas.DataFrame
        One row per (region, target): ``region``, the coordinates, ``prediction``, ``lower``,
        ``upper``, ``share``, ``rank`` (1 = largest predicted exclusive time at that
        target), ``growth``, ``warned`` and ``warnings``.
    """
    regions = list(frames)
    ex = np.vstack([exclusive[r] for r in regions])  # (regions, targets)
    order = np.argsort(np.argsort(-np.where(np.isfinite(ex), ex, -np.inf), axis=0, kind="stable"), axis=0) + 1
    total = frames[root]["prediction"].to_numpy(float)
    parts = []
    for i, region in enumerate(regions):
        f = frames[region]
        prediction = f["prediction"].to_numpy(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = prediction / total
        parts.append(pd.DataFrame({
            "region": region, **coordinates, "prediction": prediction, "lower": f["lower"].to_numpy(float),
            "upper": f["upper"].to_numpy(float), "share": share, "rank": order[i].astype(np.int64),
            "growth": growth[region], "warned": f["warned"].to_numpy(bool),
            "warnings": [tuple(w) + tuple(k) for w, k in zip(f["warnings"], kinds[region])]}))
    return pd.concat(parts, ignore_index=True)


def _consistency(model, table: pd.DataFrame, total: np.ndarray, exclusive: dict) -> pd.DataFrame:
    """Return the targets with the root's total, the parts' exclusive predictions summed and both ratios."""
    summed = np.nansum(np.vstack([exclusive[r] for r in model.parts_ if r in exclusive]), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = summed / total
    return table.assign(total=total, sum_exclusive=summed, ratio=ratio, measured_ratio=model.measured_ratio_)


def _inclusive_exclusive(model, targets, where: str) -> tuple[pd.DataFrame, dict, dict]:
    table = _targets(targets, model.n_column_, list(model.parameters_), where)
    X = _design(table, model.n_column_, model.parameters_)
    inclusive = {r: m.predict(X) for r, m in model.predictors_.items()}
    return table, inclusive, _exclusive(model, X, inclusive)


def predict_exclusive_over_sizes(model, targets) -> pd.DataFrame:
    """Return every region's predicted exclusive time at the targets of a RegionPredictor fitted over p x s.

    Parameters
    ----------
    model : RegionPredictor
        Fitted with ``parameters=``.
    targets : pandas.DataFrame
        The allocation column (as fitted, or ``n``) and the problem-parameter columns.

    Returns
    -------
    pandas.DataFrame
        Columns ``region``, the allocation and problem-parameter columns, ``exclusive`` (the
        region's own model, or its inclusive prediction minus its children's).
    """
    table, _, exclusive = _inclusive_exclusive(model, targets, "RegionPredictor.predict_exclusive")
    return pd.concat([table.assign(exclusive=v).assign(region=r) for r, v in exclusive.items()], ignore_index=True)[
        ["region", *table.columns, "exclusive"]]


def consistency_over_sizes(model, targets) -> pd.DataFrame:
    """Return the sum of the regions' exclusive predictions beside the predicted total, at targets over p x s.

    Parameters
    ----------
    model : RegionPredictor
        Fitted with ``parameters=``.
    targets : pandas.DataFrame
        The allocation column (as fitted, or ``n``) and the problem-parameter columns.

    Returns
    -------
    pandas.DataFrame
        The allocation and problem-parameter columns, ``total``, ``sum_exclusive``,
        ``ratio`` and ``measured_ratio`` (as :meth:`RegionPredictor.consistency_frame`).
    """
    table, inclusive, exclusive = _inclusive_exclusive(model, targets, "RegionPredictor.consistency_frame")
    return _consistency(model, table, inclusive[model.root_], exclusive)


def growth_over_sizes(model, targets, lattice: np.ndarray, limits: tuple[float, float, float],
                      words_of) -> pd.DataFrame:
    """Return every region's trend in words along the allocation, at each target's problem parameters.

    From the smallest measured allocation to the target's (or the largest measured one, if
    larger), the problem parameters held at the target's.

    Parameters
    ----------
    model : RegionPredictor
        Fitted with ``parameters=``.
    targets : pandas.DataFrame
        The allocation column (as fitted, or ``n``) and the problem-parameter columns.
    lattice : ndarray
        Allocations of the curves (the RegionPredictor's fixed lattice).
    limits : tuple of float
        The region warnings' thresholds (relative share rise, relative runtime rise, least share).
    words_of : callable
        ``words_of(n, t)``: a curve's trend in words.

    Returns
    -------
    pandas.DataFrame
        Columns ``region``, the allocation and problem-parameter columns, ``growth``.
    """
    table = _targets(targets, model.n_column_, list(model.parameters_), "RegionPredictor.growth")
    X = _design(table, model.n_column_, model.parameters_)
    growth, _, _ = _along_n(model, X, lattice, limits, words_of)
    return pd.concat([table.assign(region=r, growth=g) for r, g in growth.items()], ignore_index=True)[
        ["region", *table.columns, "growth"]]


def work_law(model) -> tuple[np.ndarray, float, str]:
    """Return how the work grows: exponents of the problem parameters, the exponent of n, and the source.

    ``W = n^e prod_j s_j^a_j`` as the root's work-aware model learnt it
    (:func:`~workbench.models.multiparam.learnt_work_law`); ``a_j = 1``, ``e = 0`` when that
    model is missing.

    Parameters
    ----------
    model : RegionPredictor
        Fitted with ``parameters=``.
    """
    a, e, law = learnt_work_law(model.predictors_[model.root_], model.parameters_)
    if not law:
        return a, e, "assumed: the parameters give the total work, W = prod s"
    return a, e, f"learnt by the root's work model: {law}"


def line_through(n_target: float, s_target: np.ndarray, n: np.ndarray, line: str, law) -> np.ndarray:
    """Return the problem parameters (len(n) x q) along a line of :data:`LINES` through a target.

    ``"strong"`` keeps the problem parameters at the target's.  ``"weak"`` keeps the work per
    process ``W / n`` at the target's, with ``W = n^e prod_j s_j^a_j`` (:func:`work_law`), the
    parameters moving together by one factor per point: when they give the total work
    (``e = 0``) they grow as ``prod s^a ~ n`` (the dashboard's line ``s^a / n`` constant); when
    they give one process's part (``e = 1``) the weak line keeps them constant too.

    Parameters
    ----------
    n_target : float
        The target's allocation.
    s_target : ndarray of shape (q,)
        The target's problem parameters.
    n : ndarray
        The allocations of the line's points.
    line : {"strong", "weak"}
        Which line.
    law : tuple
        :func:`work_law` of the model.
    """
    if line not in LINES:
        raise ValidationError(f"line must be one of {list(LINES)}, got {line!r}")
    a, e, _ = law
    slope = 0.0 if line == "strong" else 1.0 - e  # d log(prod s^a) / d log n along the line
    g = slope * (np.log(n) - np.log(n_target)) / float(np.sum(a))
    return np.asarray(s_target, float)[None, :] * np.exp(g)[:, None]


def _first(n: np.ndarray, mask: np.ndarray) -> float:
    hit = np.flatnonzero(mask)
    return float(n[hit[0]]) if hit.size else np.nan


def _line_verdicts(model, line: str, n_t: float, s_t: np.ndarray, points: np.ndarray, top: float, level: float,
                   limits: tuple[float, float, float], law) -> list[dict]:
    """Return the verdict rows of one line through one target (:func:`verdicts_over_sizes`)."""
    share_rise, rise, min_share = limits
    n_col, params = model.n_column_, list(model.parameters_)
    S = line_through(n_t, s_t, points, line, law)
    X = pd.DataFrame({ALLOCATION: points, **{internal_name(p): S[:, j] for j, p in enumerate(params)}})
    inclusive = {r: m.predict(X) for r, m in model.predictors_.items()}
    exclusive = _exclusive(model, X, inclusive)
    bounds = {r: m.predict_frame(X, level)[["lower", "upper"]].to_numpy(float).T
              for r, m in model.exclusive_predictors_.items()}
    total, end = inclusive[model.root_], int(np.flatnonzero(points <= top)[-1])
    at = f"{n_col} = {n_t:g}, " + ", ".join(f"{p} = {v:g}" for p, v in zip(params, s_t))
    where = f"along the line of constant {'problem size' if line == 'strong' else 'work per process'} through {at}"
    rows = []
    for region, p in inclusive.items():
        if region == model.root_:
            continue
        base = {"region": region, "line": line, n_col: n_t, **dict(zip(params, s_t))}
        with np.errstate(invalid="ignore", divide="ignore"):
            share = p[[0, end]] / total[[0, end]]
        if np.isfinite(share).all() and share[1] > (1 + share_rise) * share[0] and share[1] >= min_share:
            others = np.vstack([v for r, v in exclusive.items() if r != region] or [np.full(points.size, -np.inf)])
            best_other = np.nanmax(np.where(np.isfinite(others), others, -np.inf), axis=0)
            n_at = _first(points, exclusive[region] > best_other)
            lower, upper = bounds.get(region, (np.full(points.size, np.nan),) * 2)
            lo, hi = _first(points, upper > best_other), _first(points, lower > best_other)
            s_at = S[np.flatnonzero(points == n_at)[0]] if np.isfinite(n_at) else np.full(len(params), np.nan)
            if n_at == points[0]:
                verdict = "is already the largest part at its start"
                n_at, lo, hi, s_at = np.nan, np.nan, np.nan, np.full(len(params), np.nan)
            elif np.isfinite(n_at):
                until = f"{hi:.4g}" if np.isfinite(hi) else f"beyond {points[-1]:.4g}"
                verdict = (f"starts to dominate at {n_col} ~ {n_at:.4g} ("
                           + ", ".join(f"{q} ~ {v:.4g}" for q, v in zip(params, s_at))
                           + f"; between {n_col} = {lo:.4g} and {until})")
            else:
                verdict = f"does not become the largest part before {n_col} = {points[-1]:.4g}"
            rows.append({**base, "kind": "share-grows", "n_dominates": n_at,
                         **{f"{q}_at_dominance": v for q, v in zip(params, s_at)}, "n_lower": lo, "n_upper": hi,
                         "message": f"{region} {where}: its share of the run grows from {share[0]:.1%} at "
                                    f"{n_col} = {points[0]:g} to {share[1]:.1%} at {n_col} = {points[end]:g}; "
                                    f"it {verdict}"})
        if p[end] > (1 + rise) * p[0]:
            rows.append({**base, "kind": "runtime-rises", "n_dominates": np.nan, "n_lower": np.nan,
                         "n_upper": np.nan, "message": f"{region} {where}: its time rises from {p[0]:.4g} at "
                                                       f"{n_col} = {points[0]:g} to {p[end]:.4g} at "
                                                       f"{n_col} = {points[end]:g}"})
    return rows


def verdicts_over_sizes(model, targets, level: float, horizon: float, lattice: np.ndarray,
                        limits: tuple[float, float, float]) -> pd.DataFrame:
    """Return the regions whose share grows or time rises along the strong and weak lines, and where they dominate.

    Through every target two lines of :data:`LINES` (:func:`line_through`): ``"strong"``, the
    target's problem parameters on other allocations, and ``"weak"``, the problem grown with
    the allocation at constant work per process (the work law of :func:`work_law`).  Along each, from the
    smallest measured allocation to the target's (or the largest measured, if larger), a
    region whose share of the root's time grows (by the region warnings' thresholds) is
    followed up to ``horizon`` times further to the allocation at which its exclusive time
    becomes the largest of all regions' (with the interval's ends from its exclusive model's
    ``level`` interval, where it has one); a region whose time rises gets ``runtime-rises``.

    Parameters
    ----------
    model : RegionPredictor
        Fitted with ``parameters=``.
    targets : pandas.DataFrame
        The allocation column (as fitted, or ``n``) and the problem-parameter columns.
    level : float
        Central probability of the dominance interval.
    horizon : float
        How far beyond the target's allocation (a factor) to look for dominance.
    lattice : ndarray
        Allocations of the lines (the RegionPredictor's fixed lattice).
    limits : tuple of float
        Relative share rise, relative runtime rise, least share at the line's end.

    Returns
    -------
    pandas.DataFrame
        Columns ``region``, ``line``, the allocation and problem-parameter columns (the
        target), ``kind`` (``share-grows`` / ``runtime-rises``), ``n_dominates`` (NaN: not
        within the horizon, or already the largest), ``<parameter>_at_dominance`` (the problem
        parameters there), ``n_lower``, ``n_upper`` (where the region's upper / lower bound
        first exceeds every other region's prediction) and ``message``.  ``attrs["work_law"]``
        says which work law drew the lines.
    """
    n_col, params = model.n_column_, list(model.parameters_)
    table = _targets(targets, n_col, params, "RegionPredictor.verdicts")
    law = work_law(model)
    rows = []
    for values in table.drop_duplicates().to_numpy(float):
        n_t, s_t = float(values[0]), values[1:]
        top = max(n_t, model.n_max_)
        points = np.unique(np.concatenate([lattice[lattice <= top * horizon], [top]]))
        for line in LINES:
            rows += _line_verdicts(model, line, n_t, s_t, points, top, level, limits, law)
    columns = ["region", "line", n_col, *params, "kind", "n_dominates", *[f"{p}_at_dominance" for p in params],
               "n_lower", "n_upper", "message"]
    frame = pd.DataFrame(rows, columns=columns)
    frame.attrs["work_law"] = law[2]
    return frame
