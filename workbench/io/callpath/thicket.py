"""Hatchet GraphFrames and Thicket objects (:func:`from_thicket`).

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError
from workbench.io.callpath.common import SEP, as_number, param_columns, with_run
from workbench.io.callpath.extrap import parse_metric_label
from workbench.io.callpath.reader import finish_table

__all__ = [
    "from_thicket",
]


def from_thicket(obj, name: str = "thicket") -> pd.DataFrame:
    """Return a Hatchet GraphFrame or a Thicket as a profile table (duck-typed: neither is imported).

    Reads ``obj.dataframe`` (index levels ``node`` and, for a Thicket, ``profile``; one
    column per metric, Caliper's names such as ``time (inc)``, ``Max time/rank`` or
    ``max#inclusive#sum#time.duration``), the node objects' ``frame["name"]`` and
    ``parents``, and, for a Thicket, ``obj.metadata`` (one row per profile: the run
    parameters) and for a GraphFrame ``obj.metadata`` (a dict).

    Parameters
    ----------
    obj : hatchet.GraphFrame or thicket.Thicket
        The object to convert (any object with the attributes above).
    name : str, default "thicket"
        The label error messages start with.
    """
    try:
        data = obj.dataframe
    except AttributeError:
        raise DataFormatError(f"{name}: expected a Hatchet GraphFrame or a Thicket (an object with a "
                              f"'dataframe'), got {type(obj).__name__}") from None
    if not isinstance(data, pd.DataFrame) or "node" not in (data.index.names or []):
        raise DataFormatError(f"{name}: its dataframe needs an index level 'node'")
    metadata = getattr(obj, "metadata", None)
    flat = data.reset_index()
    has_profile = "profile" in flat.columns
    paths = {}

    def path_of(node) -> str:
        key = id(node)
        if key not in paths:
            label = _node_name(node, name)
            parents = list(getattr(node, "parents", []) or [])
            paths[key] = label if not parents else path_of(parents[0]) + SEP + label
        return paths[key]

    regions = [path_of(node) for node in flat["node"]]
    skip = {"node", "profile", "name", "nid", "rank", "spot.channel"}
    metric_columns = [c for c in flat.columns if c not in skip and pd.api.types.is_numeric_dtype(flat[c])]
    if not metric_columns:
        raise DataFormatError(f"{name}: no numeric metric columns in its dataframe")
    frames = []
    for column in metric_columns:
        metric, kind, aggregation = _thicket_metric(str(column))
        part = pd.DataFrame({"region": regions, "metric": metric, "kind": kind, "aggregation": aggregation,
                             "value": flat[column].to_numpy(float),
                             "unit": "s" if "time" in metric else "",
                             "profile": flat["profile"].astype(str).to_numpy() if has_profile else name})
        frames.append(part[np.isfinite(part["value"].to_numpy())])
    frame = pd.concat(frames, ignore_index=True)
    frame["format"] = "thicket"
    if isinstance(metadata, pd.DataFrame) and has_profile:
        meta = metadata.copy()
        meta.index = meta.index.astype(str)
        per_profile = {p: param_columns({str(k): as_number(v) for k, v in row.items()
                                          if not str(k).startswith(("cali.", "spot."))})
                       for p, row in meta.iterrows()}
        columns = sorted({k for v in per_profile.values() for k in v})
        for column in columns:
            frame[column] = frame["profile"].map(lambda p, c=column: per_profile.get(p, {}).get(c, np.nan))
    elif isinstance(metadata, dict):
        frame = with_run(frame, {str(k): as_number(v) for k, v in metadata.items()
                                  if not str(k).startswith(("cali.", "spot."))})
    return finish_table([frame])


def _node_name(node, name: str) -> str:
    frame = getattr(node, "frame", None)
    try:
        return str(frame["name"])
    except (TypeError, KeyError, IndexError):
        label = getattr(node, "name", None)
        if label is None:
            raise DataFormatError(f"{name}: a node without a name (node.frame['name'])") from None
        return str(label)


_HATCHET_NAMES = {"time (inc)": ("time", "inclusive", "none"), "time": ("time", "exclusive", "none"),
                  "Min time/rank": ("time.duration", "inclusive", "min"),
                  "Max time/rank": ("time.duration", "inclusive", "max"),
                  "Avg time/rank": ("time.duration", "inclusive", "avg"),
                  "Total time": ("time.duration", "inclusive", "sum")}


def _thicket_metric(column: str) -> tuple[str, str, str]:
    if column in _HATCHET_NAMES:
        return _HATCHET_NAMES[column]
    if column.endswith(" (inc)"):
        metric, _, aggregation, _ = parse_metric_label(column[:-6])
        return metric, "inclusive", aggregation
    metric, kind, aggregation, _ = parse_metric_label(column)
    return metric, kind, aggregation


