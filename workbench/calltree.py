"""Call-tree arithmetic on the profile table, shared by its readers and its models.

The profile table (one row per profile, region and metric; its columns are documented in
:mod:`workbench.io.callpath`) is made by :mod:`workbench.io` and modelled by
:class:`workbench.models.regions.RegionPredictor`, two floors that may not import each other.
What both need to turn a table into per-region curves lives here, once:

* :func:`time_metric` - which (metric, kind, aggregation) stands for run time;
* :func:`exclusive_from_inclusive` - a region's own time: its value minus its children's,
  per profile;
* :func:`inclusive_from_exclusive` - a region's value plus its descendants', per profile.

Only the columns ``profile``, ``region``, ``parent``, ``metric``, ``kind``,
``aggregation``, ``value`` and ``unit`` are read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import ValidationError

__all__ = ["AGGREGATION_ORDER", "SEP", "exclusive_from_inclusive", "inclusive_from_exclusive", "time_metric"]

#: The separator of call-path elements in ``region`` (Extra-P's).
SEP = "->"
#: Aggregations over ranks in the order :func:`time_metric` prefers them: the slowest rank sets
#: the run time, then the mean, a value that was not aggregated, the sum, the fastest rank.
AGGREGATION_ORDER = ("max", "avg", "none", "sum", "min", "any")
# among several time metrics of one kind and aggregation, Caliper's and Cube's names first
_TIME_NAMES = {"time": 0, "time.duration": 1}


def time_metric(table: pd.DataFrame, kind: str = "inclusive", metric: str | None = None,
                where: str = "profile table") -> tuple[str, str, str]:
    """Return the (metric, kind, aggregation) that best stands for run time in ``table``.

    Parameters
    ----------
    table : pandas.DataFrame
        A profile table.
    kind : str, default "inclusive"
        The kind preferred (``inclusive``, ``exclusive``, ``n/a``); the others follow,
        inclusive before exclusive.
    metric : str or None, default None
        The metric; None takes a time metric (unit ``s`` or a name with ``time``), or the
        only metric of a table that holds one (Extra-P's unnamed ``<default>``: it is what
        was measured).
    where : str, default "profile table"
        Who asks, for the error messages.

    Returns
    -------
    tuple of str
        (metric, kind, aggregation): of ``kind`` when present, with the max-over-ranks
        aggregation when present, else avg, none, sum, min (:data:`AGGREGATION_ORDER`).

    Raises
    ------
    ValidationError
        No time metric (``metric=None``), or no metric of that name.
    """
    combos = table[["metric", "kind", "aggregation", "unit"]].drop_duplicates()
    if metric is None:
        candidates = combos[(combos["unit"] == "s") | combos["metric"].str.contains("time", case=False)]
        if candidates.empty and combos["metric"].nunique() == 1:
            candidates = combos
        if candidates.empty:
            raise ValidationError(f"{where}: no time metric (unit 's' or a name with 'time'); metrics: "
                                  f"{', '.join(map(repr, combos['metric'].unique()[:10]))}; choose a metric")
    else:
        candidates = combos[combos["metric"] == metric]
        if candidates.empty:
            raise ValidationError(f"{where}: no metric {metric!r} in the profile table; metrics: "
                                  f"{', '.join(map(repr, combos['metric'].unique()[:10]))}")
    kinds = {"inclusive": 1, "exclusive": 2, "n/a": 3}
    kinds[kind] = 0  # (a literal {kind: 0, ...} would let the later key win)
    ranked = candidates.assign(k=candidates["kind"].map(kinds).fillna(4),
                               a=candidates["aggregation"].map({a: i for i, a in enumerate(AGGREGATION_ORDER)}),
                               m=candidates["metric"].map(lambda m: _TIME_NAMES.get(m, 2)))
    best = ranked.sort_values(["k", "a", "m"], kind="stable").iloc[0]
    return str(best["metric"]), str(best["kind"]), str(best["aggregation"])


def exclusive_from_inclusive(rows: pd.DataFrame) -> pd.DataFrame:
    """Return exclusive values from inclusive ones: a region's value minus its children's, per profile.

    ``rows`` holds one metric, kind and aggregation. The result can be 0 or negative where
    the children were measured longer than their parent (rounding, overlapping regions).

    Parameters
    ----------
    rows : pandas.DataFrame
        Call-tree rows of one metric, kind and aggregation, with inclusive values.
    """
    children = rows[rows["parent"] != ""].groupby(["profile", "parent"], sort=False)["value"].sum()
    keys = pd.MultiIndex.from_arrays([rows["profile"], rows["region"]])
    out = rows.copy()
    out["value"] = rows["value"].to_numpy() - children.reindex(keys, fill_value=0.0).to_numpy()
    out["kind"] = "exclusive"
    return out


def inclusive_from_exclusive(rows: pd.DataFrame) -> pd.DataFrame:
    """Return inclusive values from exclusive ones: a region's value plus its descendants', per profile.

    ``rows`` holds one metric, kind and aggregation; descendants are the regions whose path
    starts with the region's followed by :data:`SEP`.

    Parameters
    ----------
    rows : pandas.DataFrame
        Call-tree rows of one metric, kind and aggregation, with exclusive values.
    """
    out = rows.copy()
    regions = rows["region"].to_numpy(str)
    value = rows["value"].to_numpy(float)
    total = np.empty_like(value)
    for idx in rows.groupby("profile", sort=False).indices.values():  # a profile's regions: each one's subtree
        names = regions[idx]
        for k, region in enumerate(names):
            inside = (names == region) | np.char.startswith(names.astype(str), region + SEP)
            total[idx[k]] = value[idx][inside].sum()
    out["value"] = total
    out["kind"] = "inclusive"
    return out
