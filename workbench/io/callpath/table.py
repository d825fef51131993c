"""The profile table's checks, its time metric and per-region curves.

:func:`validate_profile_table`, :func:`time_metric`, :func:`region_curves`.

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.calltree import AGGREGATION_ORDER, exclusive_from_inclusive, time_metric
from workbench.errors import ValidationError
from workbench.io.callpath.common import AGGREGATIONS, ALLOCATION_COLUMNS, KINDS, PER_RUN, PROFILE_TABLE_COLUMNS
from workbench.validation import require_table

__all__ = [
    "region_curves",
    "time_metric",
    "validate_profile_table",
]


def validate_profile_table(frame, name: str = "profile table") -> pd.DataFrame:
    """Check a profile table and return a canonical copy.

    Raises :class:`~workbench.errors.ValidationError` naming the column and the first rows
    (index labels) concerned: a missing column of :data:`PROFILE_TABLE_COLUMNS`, an empty
    table, an empty region or metric, a value that is not a finite number, a ``kind`` or
    ``aggregation`` outside the documented words, an allocation below 1, a negative ``run``,
    a repeated (profile, region, metric, kind, aggregation).

    Parameters
    ----------
    frame : pandas.DataFrame
        A profile table (:data:`PROFILE_TABLE_COLUMNS`, plus run parameter columns).
    name : str, default "profile table"
        The label every message starts with.
    """
    require_table(frame, PROFILE_TABLE_COLUMNS, name, f"a profile table has {', '.join(PROFILE_TABLE_COLUMNS)}",
                  empty="no rows")
    out = frame.copy()

    def bad(mask, column, what):
        rows = out.index[np.asarray(mask, dtype=bool)]
        if len(rows):
            shown = ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
            # the profiles (files) of these rows: what a user reading files can act on
            profiles = pd.unique(out.loc[rows[:1000], "profile"].astype(str))
            where = ", ".join(profiles[:3]) + (" ..." if len(profiles) > 3 else "")
            raise ValidationError(f"{name}: column {column!r}, row(s) {shown} (profile {where}): {what}")

    for column in ("profile", "region", "metric", "name", "format", "kind", "aggregation"):
        bad(out[column].isna() | (out[column].astype(str).str.strip() == ""), column, "empty")
        out[column] = out[column].astype(str)
    for column in ("parent", "unit"):
        out[column] = out[column].fillna("").astype(str)
    values = pd.to_numeric(out["value"], errors="coerce")
    bad(~np.isfinite(values.to_numpy(float)), "value", "not a finite number")
    out["value"] = values.astype(float)
    bad(~out["kind"].isin(KINDS), "kind", f"expected one of {', '.join(KINDS)}")
    bad(~out["aggregation"].isin(AGGREGATIONS), "aggregation", f"expected one of {', '.join(AGGREGATIONS)}")
    for column in ALLOCATION_COLUMNS:
        numbers = pd.to_numeric(out[column], errors="coerce").astype(float)
        bad(out[column].notna() & ~(numbers >= 1), column, "an allocation must be a number >= 1 (or empty)")
        out[column] = numbers
    for column in ("depth", "run"):
        numbers = pd.to_numeric(out[column], errors="coerce")
        bad(~(numbers >= 0) | (numbers % 1 != 0), column, "expected a whole number >= 0")
        out[column] = numbers.astype(np.int64)
    dup = out.duplicated(["profile", "region", "metric", "kind", "aggregation"], keep=False)
    bad(dup, "region", "the same (profile, region, metric, kind, aggregation) appears more than once")
    return out


def region_curves(table: pd.DataFrame, metric: str | None = None, kind: str | None = None,
                  aggregation: str | None = None, n: str = "processes", source: str = "profiles",
                  min_value: float = 0.0) -> pd.DataFrame:
    """Per-region scaling curves from a profile table, in the curve-table format.

    Parameters
    ----------
    table : pandas.DataFrame
        A profile table (:func:`read_profiles`).
    metric, kind, aggregation : str or None, default None
        Which values: None picks run time (:func:`time_metric`: inclusive, max over ranks
        when present). ``kind="exclusive"`` on a table holding only inclusive values derives
        them (a region's value minus its children's, per profile).
    n : str, default "processes"
        The allocation column (``processes``, ``nodes``, ``threads``, ``gpus`` or a
        parameter column).
    source : str, default "profiles"
        The curve table's ``source``.
    min_value : float, default 0.0
        Values at or below it are dropped (derived exclusive times can be 0 or negative
        from rounding): curves need positive times.

    Returns
    -------
    pandas.DataFrame
        :data:`workbench.io.curves.CURVE_COLUMNS` plus ``region`` and ``config``: one
        curve per region and configuration (the other run parameters that vary, e.g. a
        problem size); repeated profiles at the same allocation are ``run`` 0, 1, ...
        ``time_s`` holds the value (seconds when the unit is ``s``); ``metric`` says which
        (``time.duration inclusive max``).
    """
    table = validate_profile_table(table)
    if n not in table.columns:
        raise ValidationError(f"profile table: no column {n!r} for the allocation; columns: "
                              f"{', '.join(map(repr, table.columns[:20]))}")
    if metric is None:
        metric, best_kind, best_agg = time_metric(table, kind or "inclusive")
        kind = kind or best_kind
        aggregation = aggregation or best_agg
    rows = table[table["metric"] == metric]
    if rows.empty:
        raise ValidationError(f"profile table: no metric {metric!r}; metrics: "
                              f"{', '.join(map(repr, table['metric'].unique()[:20]))}")
    if aggregation is None:
        present = set(rows["aggregation"])
        aggregation = next(a for a in AGGREGATION_ORDER if a in present)
    rows = rows[rows["aggregation"] == aggregation]
    kind = kind or ("inclusive" if (rows["kind"] == "inclusive").any() else rows["kind"].iloc[0])
    chosen = rows[rows["kind"] == kind]
    if chosen.empty and kind == "exclusive" and (rows["kind"] == "inclusive").any():
        chosen = exclusive_from_inclusive(rows[rows["kind"] == "inclusive"])
    if chosen.empty:
        raise ValidationError(f"profile table: no {kind} values of {metric!r} aggregated by {aggregation!r}")
    alloc = pd.to_numeric(chosen[n], errors="coerce")
    if alloc.isna().all():
        raise ValidationError(f"profile table: column {n!r} is empty for {metric!r}: the profiles do not say "
                              f"their {n}; choose another allocation column")
    chosen = chosen[alloc.notna() & (chosen["value"] > min_value)]
    profiles = chosen.drop_duplicates("profile")
    params = [c for c in table.columns if c not in PROFILE_TABLE_COLUMNS and c != n and c.lower() not in PER_RUN
              and not _same_as(profiles, c, n)]
    varying = [c for c in params if profiles[c].astype(str).nunique() > 1]
    config = (chosen[varying].astype(str).apply(lambda r: ", ".join(f"{k}={v}" for k, v in r.items()), axis=1)
              if varying else pd.Series("", index=chosen.index))
    unit = chosen["unit"].iloc[0] if chosen["unit"].nunique() == 1 else ""
    curve_id = chosen["region"] + np.where(config != "", " [" + config + "]", "")
    curves = pd.DataFrame({
        "curve_id": curve_id.to_numpy(), "source": source, "n": pd.to_numeric(chosen[n]).to_numpy(float),
        "time_s": chosen["value"].to_numpy(float), "unit": n, "app": source, "machine": "n/a",
        "metric": f"{metric} {kind} {aggregation}" + (f" ({unit})" if unit and unit != "s" else ""),
        "region": chosen["region"].to_numpy(), "config": config.to_numpy(), "profile": chosen["profile"].to_numpy(),
    })
    curves = curves.sort_values(["curve_id", "n", "profile"], kind="stable")
    curves["run"] = curves.groupby(["curve_id", "n"], sort=False).cumcount().astype(np.int64)
    from workbench.io.curves import CURVE_COLUMNS

    return curves[[*CURVE_COLUMNS, "region", "config"]].reset_index(drop=True)


def _same_as(profiles: pd.DataFrame, column: str, n: str) -> bool:
    """Whether ``column`` just restates the allocation ``n`` (jobsize, mpi.world.size, p)."""
    a = pd.to_numeric(profiles[column], errors="coerce")
    return bool(a.notna().all() and np.allclose(a.to_numpy(float), pd.to_numeric(profiles[n]).to_numpy(float)))
