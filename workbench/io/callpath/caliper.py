"""Caliper: ``.cali`` files (read with ``caliper-reader``) and cali-query JSON.

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import io
import json
import re

import pandas as pd

from workbench.errors import DataFormatError
from workbench.io.callpath.common import (
    AGGREGATIONS,
    SEP,
    UNIT_ALIASES,
    WHAT,
    Rows,
    as_number,
    param_columns,
    split_path,
)
from workbench.io.callpath.extrap import parse_metric_label

__all__ = [
    "read_cali",
    "read_cali_json",
]


#: A node record's id and parent (Caliper writes ``__rec=node,id=..,attr=..,data=..,parent=..``;
#: a comma inside data is escaped, so ``,parent=`` followed by digits and the line end is the parent).
_NODE_PARENT = re.compile(r"^__rec=node,id=(\d+),.*?,parent=(\d+)[ \t\r]*$", re.M)


def _caliper_unit(reader, attribute: str) -> str:
    try:
        unit = reader.attribute(attribute).get("attribute.unit")
    except Exception:  # noqa: BLE001 - caliper-reader's metadata lookups raise assorted errors
        unit = None
    return UNIT_ALIASES.get(str(unit).lower(), str(unit)) if unit else ""


def read_cali(text: str, name: str) -> pd.DataFrame:
    """Read a Caliper ``.cali`` file's text into profile-table rows (``caliper-reader``).

    Parameters
    ----------
    text : str
        The ``.cali`` file's content.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    import caliperreader

    # caliper-reader links a node named as its own parent to itself, then loops forever looking
    # up its metadata (found by the fuzz suite): refuse such a file before it gets there
    for node, parent in _NODE_PARENT.findall(text):
        if node == parent:
            raise DataFormatError(f"{name}: node {node} names itself as its parent (a damaged Caliper .cali file)")
    reader = caliperreader.CaliperReader()
    try:
        reader.read(io.StringIO(text))
        records = reader.records
        globals_ = dict(reader.globals)
        value_attrs = [a for a in reader.attributes() if reader.attribute(a).is_value()]
    except Exception:  # noqa: BLE001 - a third-party parser on untrusted input: any failure is a bad file
        raise DataFormatError(f"{name}: not a readable Caliper .cali file (caliper-reader could not parse it)"
                              ) from None
    units = {a: _caliper_unit(reader, a) for a in value_attrs}
    return _records_frame(records, globals_, units, name, "caliper")


def _caliper_metric(attribute: str) -> tuple[str, str, str] | None:
    tokens = attribute.split("#")
    if "." in tokens[0] and len(tokens) > 1 and tokens[0].split(".")[0] in AGGREGATIONS:
        return None  # cross-rank bookkeeping (avg.sum#..., avg.count#...)
    if tokens[-1] in ("aggregate.slot",) or attribute.endswith("#aggregate.slot"):
        return None
    metric, kind, aggregation, _ = parse_metric_label(attribute)
    if len(tokens) == 1:
        kind = "exclusive" if "time" in metric else "n/a"
    return metric, kind, aggregation


def _records_frame(records, globals_: dict, units: dict, name: str, fmt: str) -> pd.DataFrame:
    """Caliper records (dicts with ``path`` and metric attributes) -> table rows of one profile."""
    metrics = {}
    cols = {k: [] for k in ("region", "metric", "kind", "aggregation", "value", "unit")}
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise DataFormatError(f"{name}, record {i + 1}: expected a record (an object), got "
                                  f"{type(record).__name__}")
        path = record.get("path")
        if path is None:
            continue  # time outside every region (Caliper's root record)
        elements = [str(p) for p in path] if isinstance(path, list) else str(path).split("/")
        region = SEP.join(e.strip() for e in elements)
        for attribute, raw in record.items():
            if attribute not in metrics:
                metrics[attribute] = (_caliper_metric(attribute) if attribute in units or "#" in attribute
                                      or (not units and "time" in attribute) else None)
            spec = metrics[attribute]
            if spec is None:
                continue
            value = as_number(raw)
            if not isinstance(value, float):
                raise DataFormatError(f"{name}, record {i + 1}: {attribute} = {str(raw)[:40]!r} is not a number")
            cols["region"].append(region)
            cols["metric"].append(spec[0])
            cols["kind"].append(spec[1])
            cols["aggregation"].append(spec[2])
            cols["value"].append(value)
            unit = units.get(attribute) or ("s" if spec[0] == "time.duration" else "")
            cols["unit"].append(unit)
    if not cols["value"]:
        raise DataFormatError(f"{name}: no region values found in {WHAT}")
    params = {}
    for key, value in globals_.items():
        if key.startswith(("cali.", "spot.")) or key in ("cali.channel",):
            continue
        params[str(key)] = as_number(value) if not isinstance(value, (list, dict)) else json.dumps(value)
    # rows as lists: an ensemble's files become one frame per chunk (a frame per file costs more than parsing)
    return Rows(cols, name, fmt, param_columns(params))


def read_cali_json(data, name: str) -> pd.DataFrame:
    """Read cali-query JSON (a list of records, or ``{records, globals}``) into profile-table rows.

    Parameters
    ----------
    data : list or dict
        Parsed cali-query JSON: a list of records, or a dict with ``records`` and ``globals``.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    if isinstance(data, dict) and "records" in data:
        records, globals_ = data["records"], data.get("globals", {}) or {}
    elif isinstance(data, dict) and {"data", "columns", "nodes"} <= set(data):
        return _read_json_split(data, name)
    else:
        records, globals_ = data, {}
    if not isinstance(records, list) or not isinstance(globals_, dict):
        raise DataFormatError(f"{name}: cali-query JSON needs a list of records")
    return _records_frame(records, globals_, {}, name, "cali-json")


def _read_json_split(data: dict, name: str) -> pd.DataFrame:
    """cali-query ``format json-split`` (Hatchet's input): nodes with parents, data rows by node."""
    try:
        nodes = data["nodes"]
        paths: list[str] = []
        for i, node in enumerate(nodes):
            parent = node.get("parent")
            label = str(node["label"])
            if parent is not None and not (isinstance(parent, int) and 0 <= parent < i):
                raise DataFormatError(f"{name}, node {i}: parent {parent!r} is not an earlier node")
            paths.append(label if parent is None else paths[parent] + SEP + label)
        columns = [str(c) for c in data["columns"]]
        where = columns.index("path")
        records = []
        for row in data["data"]:
            if len(row) != len(columns) or not isinstance(row[where], int) or not 0 <= row[where] < len(paths):
                raise DataFormatError(f"{name}: a data row that does not match the columns or names no node")
            record = dict(zip(columns, row))
            record["path"] = split_path(paths[row[where]])
            records.append(record)
    except (KeyError, TypeError, AttributeError, ValueError):
        raise DataFormatError(f"{name}: cali-query json-split without nodes, columns and data rows") from None
    globals_ = {k: v for k, v in data.items() if k not in ("data", "columns", "nodes", "column_metadata")
                and not isinstance(v, (list, dict))}
    return _records_frame(records, globals_, {}, name, "cali-json")


