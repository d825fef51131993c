"""Extra-P's formats: text, JSON and JSON Lines readers, and :func:`to_extrap` (writes JSON Lines).

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError
from workbench.io.callpath.common import AGGREGATIONS, ALLOCATION_COLUMNS, ALLOCATION_NAMES, PROFILE_TABLE_COLUMNS, SEP
from workbench.io.callpath.table import validate_profile_table
from workbench.io.text import as_path

__all__ = [
    "json_text",
    "looks_like_extrap_text",
    "parse_metric_label",
    "read_extrap_json",
    "read_extrap_jsonl",
    "read_extrap_text",
    "to_extrap",
]


_EXTRAP_KEYS = ("PARAMETER", "POINTS", "REGION", "METRIC", "DATA")


def looks_like_extrap_text(text: str) -> bool:
    """Return whether ``text`` starts like an Extra-P text file (its keywords in the first lines).

    Parameters
    ----------
    text : str
        The start of a file's content.
    """
    for line in text.split("\n", 200)[:200]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        return stripped.split(None, 1)[0] in _EXTRAP_KEYS
    return False


def _parse_points(value: str, n_params: int, name: str, number: int) -> list[tuple[float, ...]]:
    if "(" in value:
        groups = re.findall(r"\(([^()]*)\)", value)
        if not groups or value.count("(") != len(groups):
            raise DataFormatError(f"{name}, line {number}: POINTS needs groups like ( 32 5000 ), got {value[:80]!r}")
        tokens = [g.split() for g in groups]
    else:
        flat = value.split()
        if n_params != 1:
            raise DataFormatError(f"{name}, line {number}: with {n_params} parameters POINTS needs groups like "
                                  f"( 32 5000 ), got {value[:80]!r}")
        tokens = [[t] for t in flat]
    points = []
    for group in tokens:
        if len(group) != n_params:
            raise DataFormatError(f"{name}, line {number}: a point with {len(group)} values where there are "
                                  f"{n_params} parameters")
        try:
            points.append(tuple(float(t) for t in group))
        except ValueError:
            raise DataFormatError(f"{name}, line {number}: POINTS holds a value that is not a number: "
                                  f"{value[:80]!r}") from None
    return points


def read_extrap_text(text: str, name: str) -> pd.DataFrame:
    """Read Extra-P's text format into profile-table rows (indented REGION names nest).

    Parameters
    ----------
    text : str
        The file's content.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    params: list[str] = []
    points: list[tuple[float, ...]] = []
    metric, region, point = "", "", 0
    stack: list[tuple[int, str]] = []  # (indent, region path) of the open regions
    seen_data = False
    cols = {k: [] for k in ("point", "rep", "region", "metric", "value")}
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, value = (stripped.split(None, 1) + [""])[:2]
        value = value.strip()
        if key == "PARAMETER":
            if seen_data:
                raise DataFormatError(f"{name}, line {number}: PARAMETER after DATA lines")
            params += value.split()
        elif key == "POINTS":
            if not params:
                raise DataFormatError(f"{name}, line {number}: POINTS before any PARAMETER line")
            points += _parse_points(value, len(params), name, number)
        elif key == "METRIC":
            metric, point = value, 0
        elif key == "REGION":
            if not value:
                raise DataFormatError(f"{name}, line {number}: REGION without a name")
            indent = len(line) - len(line.lstrip(" \t")) + len(stripped[6:]) - len(stripped[6:].lstrip(" \t"))
            label = re.sub(r"\s+", " ", value)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            region = f"{stack[-1][1]}{SEP}{label}" if stack else label
            stack.append((indent, region))
            point = 0
        elif key == "DATA":
            seen_data = True
            if not params:
                raise DataFormatError(f"{name}, line {number}: DATA before any PARAMETER line")
            if point >= len(points):
                raise DataFormatError(f"{name}, line {number}: more DATA lines ({point + 1}) than POINTS "
                                      f"({len(points)}) for region {region or '(none)'!r}")
            try:
                values = [float(v) for v in value.split()]
            except ValueError:
                raise DataFormatError(f"{name}, line {number}: DATA holds a value that is not a number: "
                                      f"{value[:80]!r}") from None
            if not values or not all(math.isfinite(v) for v in values):
                raise DataFormatError(f"{name}, line {number}: DATA needs finite numbers, got {value[:80]!r}")
            k = len(values)
            cols["point"] += [point] * k
            cols["rep"] += list(range(k))
            cols["region"] += [region or "<root>"] * k
            cols["metric"] += [metric or "<default>"] * k
            cols["value"] += values
            point += 1
        else:
            raise DataFormatError(f"{name}, line {number}: unknown keyword {key[:40]!r}; Extra-P text has "
                                  "PARAMETER, POINTS, REGION, METRIC and DATA lines")
    if not cols["value"]:
        raise DataFormatError(f"{name}: no DATA lines in this Extra-P text file")
    frame = pd.DataFrame(cols)
    coords = np.array(points, dtype=float)[frame["point"].to_numpy()]
    frame["profile"] = [f"{name}#p{p}r{r}" for p, r in zip(frame["point"], frame["rep"])]
    frame["format"] = "extrap-text"
    for i, p in enumerate(params):
        frame[p] = coords[:, i]
    return _extrap_finish(frame, params)


def _extrap_finish(frame: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """Extra-P's rows -> table rows: metric label parsed, allocation columns from parameters."""
    labels = frame["metric"].astype(str)
    parsed = [parse_metric_label(m) for m in labels.unique()]
    table = dict(zip(labels.unique(), parsed))
    frame["kind"] = [table[m][1] for m in labels]
    frame["aggregation"] = [table[m][2] for m in labels]
    frame["unit"] = [table[m][3] for m in labels]
    frame["metric"] = [table[m][0] for m in labels]
    lower = {p.lower(): p for p in params}
    for column, names in ALLOCATION_NAMES.items():
        source = next((lower[n] for n in names if n in lower), None)
        if source is not None and source != column:
            frame[column] = frame[source]
    for p in params:
        if p in PROFILE_TABLE_COLUMNS:
            if p in ALLOCATION_COLUMNS:
                continue
            frame[f"param.{p}"] = frame.pop(p)
    return frame.drop(columns=["point", "rep"], errors="ignore")


def parse_metric_label(label: str) -> tuple[str, str, str, str]:
    """Parse a metric label into (metric, kind, aggregation, unit).

    Caliper's ``max#inclusive#sum#time.duration`` (also what :func:`to_extrap` writes) and
    plain names (Extra-P's ``time``: inclusive, unit seconds by Extra-P's convention).

    Parameters
    ----------
    label : str
        A metric name as written in the file.
    """
    tokens = label.split("#")
    base = tokens[-1]
    rest = tokens[:-1]
    if len(rest) >= 2 and rest[1] in ("inclusive", "exclusive", "any") and rest[0] in AGGREGATIONS:
        kind = "n/a" if rest[1] == "any" else rest[1]
        aggregation = rest[0]
    elif rest:
        kind = "inclusive" if "inclusive" in rest else ("exclusive" if "time" in base else "n/a")
        aggregation = "none"
    else:  # a plain Extra-P metric name
        kind, aggregation = ("inclusive" if base in ("time", "runtime") else "n/a"), "none"
    unit = "s" if base in ("time", "time.duration", "runtime") else ""
    return base, kind, aggregation, unit


def json_text(text: str, name: str):
    """Parse JSON text, raising a DataFormatError that names the file and the position.

    Parameters
    ----------
    text : str
        The JSON text.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{name}, line {exc.lineno}, column {exc.colno}: not valid JSON") from None
    except RecursionError:
        raise DataFormatError(f"{name}: JSON nested too deeply") from None


def read_extrap_json(data: dict, name: str) -> pd.DataFrame:
    """Read an Extra-P JSON experiment (both layouts) into profile-table rows.

    Parameters
    ----------
    data : dict
        The parsed experiment.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    cols = {k: [] for k in ("coord", "rep", "region", "metric", "value")}
    try:
        if "callpaths" in data:  # Extra-P's legacy layout: ids
            params = [p["name"] for p in sorted(data["parameters"], key=lambda p: p["id"])]
            paths = {c["id"]: str(c["name"]) for c in data["callpaths"]}
            metrics = {m["id"]: str(m["name"]) for m in data["metrics"]}
            coords = {c["id"]: tuple(float(v["parameter_value"]) for v in
                                     sorted(c["parameter_value_pairs"], key=lambda v: v["parameter_id"]))
                      for c in data["coordinates"]}
            count: dict = {}
            for i, m in enumerate(data["measurements"]):
                key = (m["coordinate_id"], m["callpath_id"], m["metric_id"])
                count[key] = count.get(key, -1) + 1
                cols["coord"].append(coords[m["coordinate_id"]])
                cols["rep"].append(count[key])
                cols["region"].append(paths[m["callpath_id"]])
                cols["metric"].append(metrics[m["metric_id"]])
                cols["value"].append(float(m["value"]))
        else:
            params = [str(p) for p in data["parameters"]]
            for region, metrics in data["measurements"].items():
                for metric, measurements in metrics.items():
                    for m in measurements:
                        values = [float(v) for v in m["values"]]
                        coord = tuple(float(v) for v in m["point"])
                        cols["coord"] += [coord] * len(values)
                        cols["rep"] += range(len(values))
                        cols["region"] += [str(region)] * len(values)
                        cols["metric"] += [str(metric)] * len(values)
                        cols["value"] += values
    except KeyError as exc:
        raise DataFormatError(f"{name}: Extra-P JSON without the entry {exc.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError):
        raise DataFormatError(f"{name}: Extra-P JSON with an entry of the wrong type (parameters, points and "
                              "values must be numbers in lists)") from None
    return _coords_frame(cols, params, name, "extrap-json")


def _coords_frame(cols: dict, params: list[str], name: str, fmt: str) -> pd.DataFrame:
    if not cols["value"]:
        raise DataFormatError(f"{name}: no measurements in this Extra-P file")
    bad = [i for i, c in enumerate(cols["coord"]) if len(c) != len(params)]
    if bad:
        raise DataFormatError(f"{name}: measurement {bad[0] + 1} has {len(cols['coord'][bad[0]])} coordinates "
                              f"where there are {len(params)} parameters")
    values = np.asarray(cols["value"], dtype=float)
    if not np.isfinite(values).all():
        raise DataFormatError(f"{name}: measurement {int(np.flatnonzero(~np.isfinite(values))[0]) + 1} is not a "
                              "finite number")
    frame = pd.DataFrame({k: cols[k] for k in ("rep", "region", "metric")})
    frame["value"] = values
    coords = np.array(cols["coord"], dtype=float).reshape(len(values), len(params))
    ids = {c: i for i, c in enumerate(dict.fromkeys(cols["coord"]))}
    frame["profile"] = [f"{name}#p{ids[c]}r{r}" for c, r in zip(cols["coord"], cols["rep"])]
    frame["format"] = fmt
    for i, p in enumerate(params):
        frame[p] = coords[:, i]
    return _extrap_finish(frame, params)


def read_extrap_jsonl(text: str, name: str) -> pd.DataFrame:
    """Extra-P JSON Lines; the ``workbench`` entry :func:`to_extrap` adds restores the table exactly.

    Parameters
    ----------
    text : str
        The file's content, one JSON object per line.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    own = []
    cols = {k: [] for k in ("coord", "rep", "region", "metric", "value")}
    params = None
    count: dict = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            raise DataFormatError(f"{name}, line {number}: not valid JSON (JSON Lines need one object per line)"
                                  ) from None
        if not isinstance(record, dict) or not isinstance(record.get("params"), dict) or "value" not in record:
            raise DataFormatError(f"{name}, line {number}: expected an object with \"params\" and \"value\"")
        if "workbench" in record and isinstance(record["workbench"], dict):
            own.append((number, record))
            continue
        if params is None:
            params = [str(p) for p in record["params"]]
        try:
            coord = tuple(float(record["params"][p]) for p in params)
            raw = record["value"]
            values = [float(v) for v in raw] if isinstance(raw, list) else [float(raw)]  # a list: repetitions
        except KeyError as exc:
            raise DataFormatError(f"{name}, line {number}: parameter {exc.args[0]!r} missing (every line needs "
                                  "the parameters of the first)") from None
        except (TypeError, ValueError):
            raise DataFormatError(f"{name}, line {number}: parameters and value must be numbers") from None
        region, metric = str(record.get("callpath", "<root>")), str(record.get("metric", "<default>"))
        key = (coord, region, metric)
        for value in values:
            count[key] = count.get(key, -1) + 1
            for k, v in zip(cols, (coord, count[key], region, metric, value)):
                cols[k].append(v)
    if own and cols["value"]:
        raise DataFormatError(f"{name}: lines written by the workbench mixed with other Extra-P lines")
    if own:
        return _own_lines(own, name)
    if params is None:
        raise DataFormatError(f"{name}: no measurements in this Extra-P JSON Lines file")
    return _coords_frame(cols, params, name, "extrap-jsonl")


def _own_lines(lines: list, name: str) -> pd.DataFrame:
    rows = []
    for number, record in lines:
        extra = record["workbench"]
        row = dict(extra.get("row", {}))
        try:
            row.update({k: float(v) for k, v in record["params"].items()})
            row["value"] = float(record["value"])
        except (TypeError, ValueError):
            raise DataFormatError(f"{name}, line {number}: parameters and value must be numbers") from None
        row["region"] = str(record.get("callpath", "<root>"))
        rows.append(row)
    frame = pd.DataFrame(rows)
    return frame


def to_extrap(table: pd.DataFrame, path) -> Path:
    """Write a profile table as Extra-P JSON Lines (one line per row); return the path.

    Each line is ``{"params": {...}, "callpath": region, "metric": label, "value": v}``
    with ``label`` such as ``max#inclusive#time.duration``, so Extra-P keeps kinds and
    aggregations apart; ``params`` holds the allocation columns and numeric run parameters
    present in every row (Extra-P needs the same parameters on every line). Everything else
    is under the key ``"workbench"``, which Extra-P ignores and :func:`read_profiles` uses to
    give back the same table.

    Parameters
    ----------
    table : pandas.DataFrame
        A profile table (:func:`~workbench.io.callpath.table.validate_profile_table` is applied first).
    path : str or os.PathLike
        The file to write (``.jsonl``).
    """
    table = validate_profile_table(table)
    target = as_path(path)
    extra = [c for c in table.columns if c not in PROFILE_TABLE_COLUMNS]
    numeric = [c for c in [*ALLOCATION_COLUMNS, *extra]
               if pd.api.types.is_float_dtype(table[c]) and table[c].notna().all()]
    own = [c for c in table.columns if c not in numeric and c not in ("region", "value")]
    labels = table["aggregation"] + "#" + table["kind"].replace({"n/a": "any"}) + "#" + table["metric"]
    own_rows = table[own].astype(object).where(table[own].notna(), None).to_dict("records")
    lines = []
    params = table[numeric].to_numpy(float)
    for i, (region, label, value, row) in enumerate(zip(table["region"], labels, table["value"], own_rows)):
        record = {"params": dict(zip(numeric, params[i].tolist())), "callpath": region, "metric": label,
                  "value": float(value), "workbench": {"row": {k: _plain(v) for k, v in row.items()}}}
        lines.append(json.dumps(record, allow_nan=True))
    try:
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as exc:
        raise DataFormatError(f"{target}: cannot write: {(exc.strerror or 'error').lower()}") from None
    return target


def _plain(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return None if not math.isfinite(float(value)) else float(value)
    return value


