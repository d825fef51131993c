"""Call-path profiles of whole applications in one tidy *profile table*.

HPC users measure their codes with Caliper, Score-P (Cube) or Extra-P's own input formats,
not as ``processes,time_s`` tables. :func:`read_profiles` reads all of them into one frame
with one row per (profile, region, metric), so that every region can be modelled
(:func:`region_curves`, :class:`workbench.models.regions.RegionPredictor`).

The profile table
-----------------

===============  ========  ===================================================================
column           dtype     meaning
===============  ========  ===================================================================
``profile``      str       one measured run (a file, or one point and repetition of an
                           Extra-P experiment: ``file#p<point>r<repetition>``)
``format``       str       ``caliper``, ``cali-json``, ``cube``, ``extrap-text``,
                           ``extrap-json``, ``extrap-jsonl``, ``thicket``
``region``       str       call path from the root, elements joined by ``->`` (Extra-P's
                           separator), e.g. ``main->solve->MPI_Allreduce``
``name``         str       last element of the path
``parent``       str       ``region`` of the parent ("" for a root)
``depth``        int64     0 for a root
``metric``       str       what is measured (``time``, ``time.duration``, ``visits``, ...)
``kind``         str       ``inclusive``, ``exclusive`` or ``n/a`` (a per-region attribute)
``aggregation``  str       over processes (ranks; Cube: locations): ``min``, ``avg``, ``max``,
                           ``sum``, ``any`` (the same everywhere) or ``none`` (not aggregated
                           or not said)
``value``        float64   the measured value
``unit``         str       ``s`` for seconds, the source's unit otherwise, "" when unknown
``processes``    float64   MPI processes of the run (NaN when the source does not say)
``nodes``        float64   nodes (NaN when unknown)
``threads``      float64   threads per process (NaN when unknown)
``gpus``         float64   GPUs (NaN when unknown)
``run``          int64     repetition index among the profiles with the same run parameters
===============  ========  ===================================================================

Every run parameter the source records follows, one column each, after these: Caliper's
global attributes (adiak's ``problem_size``, ``jobsize``, ``numhosts``, ...; Caliper's own
``cali.*``/``spot.*`` bookkeeping left out), Extra-P's parameters (``p``, ``n``, ...), Cube's
``<attr>`` metadata and the parameters in the name of the folder of a Cube profile
(Extra-P's convention ``prefix.x10y1z1.r1``). Numeric parameters are float64. A parameter
whose name is a column above is mapped to it (``threads``) or prefixed with ``param.``.
Allocation columns come from the parameters when the source does not state them:
``processes`` from ``mpi.world.size``, ``jobsize``, ``p``, ``processes``, ``np``, ``ranks``...;
``nodes`` from ``numhosts``, ``nodes``; ``threads`` from ``threads``, ``omp_num_threads``, ``t``;
``gpus`` from ``gpus``, ``num_gpus``.

Formats are told by content, not by name: ``__rec=`` lines (Caliper ``.cali``, read with
``caliper-reader``), a tar archive holding ``anchor.xml`` (Score-P ``.cubex``, read with
``pycubexr``), Extra-P text (``PARAMETER``/``POINTS``/``REGION``/``METRIC``/``DATA`` lines),
Extra-P JSON (``parameters`` and ``measurements``, both its layouts), JSON Lines of
``{"params": ..., "value": ...}`` (Extra-P's; :func:`to_extrap` writes it), cali-query JSON
(a list of records, ``format json``, or ``{"records": [...], "globals": {...}}``), and zip
archives of any of these. :func:`from_thicket` takes a Hatchet GraphFrame or a Thicket.

Extra-P text files give no call tree; where ``REGION`` names are indented (as in the RELeARN
data), the indentation is taken as nesting (Extra-P itself reads them as flat regions).

Safety is that of the other readers (:mod:`workbench.io.text`): regular files only, size
caps before reading (``MAX_FILE_BYTES`` per file, :data:`MAX_FILES` files, zip members
capped in number and size), and only the project's errors, naming the file (and the line or
record): a parser's own exception never reaches the user.
"""

from __future__ import annotations

import glob
import io
import json
import math
import os
import re
import stat
import tarfile
import tempfile
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ValidationError
from workbench.io import text as _text
from workbench.io.text import as_path, decode

__all__ = [
    "PROFILE_TABLE_COLUMNS",
    "MAX_FILES",
    "read_profiles",
    "read_profile_files",
    "from_thicket",
    "to_extrap",
    "validate_profile_table",
    "time_metric",
    "region_curves",
]

PROFILE_TABLE_COLUMNS = ["profile", "format", "region", "name", "parent", "depth", "metric", "kind",
                         "aggregation", "value", "unit", "processes", "nodes", "threads", "gpus", "run"]
#: Most files :func:`read_profiles` reads in one call (folders, globs, zip members).
MAX_FILES = 100_000
#: Most rows of one profile table.
MAX_ROWS = 20_000_000
SEP = "->"
KINDS = ("inclusive", "exclusive", "n/a")
AGGREGATIONS = ("min", "avg", "max", "sum", "any", "none")
_ALLOCATION = ("processes", "nodes", "threads", "gpus")
# parameter names (lower case) that state an allocation, most specific first
_ALLOCATION_NAMES = {
    "processes": ("mpi.world.size", "jobsize", "processes", "procs", "nprocs", "num_processes", "np", "ranks",
                  "nranks", "mpi_ranks", "p"),
    "nodes": ("numhosts", "nodes", "num_nodes", "nnodes"),
    "threads": ("threads", "omp_num_threads", "num_threads", "nthreads", "t"),
    "gpus": ("gpus", "num_gpus", "ngpus"),
}
# Caliper globals that differ between repetitions of one configuration (they are kept as
# columns, but do not make a run a new configuration when `run` is numbered)
_PER_RUN = {"launchdate", "launchday", "elapsed_time", "figure_of_merit", "user", "cali.caliper.version",
            "executablepath", "libraries", "hostname", "jobid", "starttime", "endtime", "walltime", "date",
            "cmdline", "command", "outdir", "output_dir", "hostlist"}
_WHAT = "a call-path profile (Caliper .cali, Score-P .cubex, Extra-P text/JSON/JSON Lines, cali-query JSON)"
_UNITS = {"sec": "s", "seconds": "s", "second": "s", "s": "s", "msec": "ms", "usec": "us", "nsec": "ns"}
_MAX_ZIP_MEMBERS = 20_000
_CUBE_PARAM_RE = re.compile(r"([A-Za-z_][A-Za-z_-]*?)([0-9][0-9.,]*)")


# ----------------------------------------------------------------------------- helpers

def _cap() -> int:
    return _text.MAX_FILE_BYTES  # read at call time: tests lower it


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n:,} bytes"


def _read_bytes(path: Path, name: str) -> bytes:
    """Return the bytes of the regular file ``path``, refused before reading when over the cap."""
    cap = _cap()
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise DataFormatError(f"{name}: cannot read file: no such file or directory") from None
    except (OSError, ValueError) as exc:
        raise DataFormatError(f"{name}: cannot read file: {getattr(exc, 'strerror', None) or 'not a valid path'}"
                              ) from None
    if not stat.S_ISREG(status.st_mode):
        kind = next((k for test, k in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                                       (stat.S_ISSOCK, "a socket")) if test(status.st_mode)), "not a regular file")
        raise DataFormatError(f"{name}: cannot read file: it is {kind}, not a regular file holding {_WHAT}")
    if status.st_size > cap:
        raise DataFormatError(f"{name}: the file is {status.st_size:,} bytes, more than the {_mib(cap)} accepted "
                              f"for {_WHAT}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise DataFormatError(f"{name}: cannot read file: not a regular file holding {_WHAT}")
            data = file.read(cap + 1)
    except OSError as exc:
        raise DataFormatError(f"{name}: cannot read file: {(exc.strerror or 'error').lower()}") from None
    if len(data) > cap:
        raise DataFormatError(f"{name}: the file holds more than the {_mib(cap)} accepted for {_WHAT}")
    return data


def _number(value):
    """Return a float for numeric text/values, else the stripped string (None for missing)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def _split_path(region: str) -> list[str]:
    return [p.strip() for p in region.split(SEP)]


def _param_columns(params: dict) -> dict:
    """Run parameters -> allocation columns + parameter columns (names clash-free)."""
    lower = {k.lower(): k for k in params}
    out = {}
    for column, names in _ALLOCATION_NAMES.items():
        for name in names:
            key = lower.get(name)
            if key is not None and isinstance(params[key], float):
                out[column] = params[key]
                break
    reserved = set(PROFILE_TABLE_COLUMNS)
    for key, value in params.items():
        if key in _ALLOCATION and isinstance(value, float):
            continue  # mapped above
        out[f"param.{key}" if key in reserved else key] = value
    return out


def _frame(rows: dict, name: str) -> pd.DataFrame:
    """Columns as lists -> a frame (values float)."""
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise DataFormatError(f"{name}: no region values found in {_WHAT}")
    return frame


def _with_run(frame: pd.DataFrame, params: dict) -> pd.DataFrame:
    """Attach one profile's run parameters (columns made once for all profiles, in :func:`_finish`)."""
    frame.attrs["params"] = _param_columns(params)
    return frame


# ----------------------------------------------------------------------------- Extra-P text

_EXTRAP_KEYS = ("PARAMETER", "POINTS", "REGION", "METRIC", "DATA")


def _looks_like_extrap_text(text: str) -> bool:
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


def _read_extrap_text(text: str, name: str) -> pd.DataFrame:
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
    parsed = [_parse_metric_label(m) for m in labels.unique()]
    table = dict(zip(labels.unique(), parsed))
    frame["kind"] = [table[m][1] for m in labels]
    frame["aggregation"] = [table[m][2] for m in labels]
    frame["unit"] = [table[m][3] for m in labels]
    frame["metric"] = [table[m][0] for m in labels]
    lower = {p.lower(): p for p in params}
    for column, names in _ALLOCATION_NAMES.items():
        source = next((lower[n] for n in names if n in lower), None)
        if source is not None and source != column:
            frame[column] = frame[source]
    for p in params:
        if p in PROFILE_TABLE_COLUMNS:
            if p in _ALLOCATION:
                continue
            frame[f"param.{p}"] = frame.pop(p)
    return frame.drop(columns=["point", "rep"], errors="ignore")


def _parse_metric_label(label: str) -> tuple[str, str, str, str]:
    """Parse a metric label into (metric, kind, aggregation, unit).

    Caliper's ``max#inclusive#sum#time.duration`` (also what :func:`to_extrap` writes) and
    plain names (Extra-P's ``time``: inclusive, unit seconds by Extra-P's convention).
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


# ----------------------------------------------------------------------------- Extra-P JSON / JSON Lines

def _json_text(text: str, name: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{name}, line {exc.lineno}, column {exc.colno}: not valid JSON") from None
    except RecursionError:
        raise DataFormatError(f"{name}: JSON nested too deeply") from None


def _read_extrap_json(data: dict, name: str) -> pd.DataFrame:
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


def _read_extrap_jsonl(text: str, name: str) -> pd.DataFrame:
    """Extra-P JSON Lines; the ``workbench`` entry :func:`to_extrap` adds restores the table exactly."""
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


# ----------------------------------------------------------------------------- Caliper

def _caliper_unit(reader, attribute: str) -> str:
    try:
        unit = reader.attribute(attribute).get("attribute.unit")
    except Exception:  # noqa: BLE001 - caliper-reader's metadata lookups raise assorted errors
        unit = None
    return _UNITS.get(str(unit).lower(), str(unit)) if unit else ""


def _read_cali(text: str, name: str) -> pd.DataFrame:
    import caliperreader

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
    metric, kind, aggregation, _ = _parse_metric_label(attribute)
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
            value = _number(raw)
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
        raise DataFormatError(f"{name}: no region values found in {_WHAT}")
    params = {}
    for key, value in globals_.items():
        if key.startswith(("cali.", "spot.")) or key in ("cali.channel",):
            continue
        params[str(key)] = _number(value) if not isinstance(value, (list, dict)) else json.dumps(value)
    # rows as lists: an ensemble's files become one frame per chunk (a frame per file costs more than parsing)
    return _Rows(cols, name, fmt, _param_columns(params))


def _read_cali_json(data, name: str) -> pd.DataFrame:
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
            record["path"] = _split_path(paths[row[where]])
            records.append(record)
    except (KeyError, TypeError, AttributeError, ValueError):
        raise DataFormatError(f"{name}: cali-query json-split without nodes, columns and data rows") from None
    globals_ = {k: v for k, v in data.items() if k not in ("data", "columns", "nodes", "column_metadata")
                and not isinstance(v, (list, dict))}
    return _records_frame(records, globals_, {}, name, "cali-json")


# ----------------------------------------------------------------------------- Cube

def _cube_folder_params(folder: str) -> dict:
    """Extra-P's Cube naming: ``prefix.x10y1z1.r1`` -> {x: 10, y: 1, z: 1} (repetition dropped)."""
    start = folder.find(".") + 1
    end = folder.find(".r")
    body = folder[start:end if end > 0 else None]
    out = {}
    for key, raw in _CUBE_PARAM_RE.findall(body):
        try:
            out[key] = float(raw.replace(",", ".").rstrip("."))
        except ValueError:
            return {}
    return out if start > 0 else {}


def _cube_anchor(data: bytes, name: str) -> tuple[dict, dict]:
    """Cube metadata (``<attr>``) and allocation (processes, nodes, threads) from anchor.xml."""
    import gzip

    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        member = archive.getmember("anchor.xml")
        if member.size > _cap():
            raise DataFormatError(f"{name}: anchor.xml is larger than {_mib(_cap())}")
        raw = archive.extractfile(member).read()
    if not raw.startswith(b"<?xml"):
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as unzipped:
            raw = unzipped.read(_cap() + 1)
        if len(raw) > _cap():
            raise DataFormatError(f"{name}: anchor.xml unpacks to more than {_mib(_cap())}")
    if b"<!ENTITY" in raw:
        raise DataFormatError(f"{name}: anchor.xml declares XML entities, which Cube files do not use")
    root = ElementTree.fromstring(raw)
    attrs = {a.get("key"): a.get("value") for a in root.findall("attr") if a.get("key")}
    groups = [g for g in root.iter("locationgroup") if (g.findtext("type") or "").strip() == "process"]
    nodes = [s for s in root.iter("systemtreenode") if (s.findtext("class") or "").strip() == "node"]
    threads = [len(g.findall("location")) for g in groups]
    alloc = {"processes": float(len(groups)) if groups else np.nan,
             "nodes": float(len(nodes)) if nodes else np.nan,
             "threads": float(max(threads)) if threads else np.nan}
    return attrs, alloc


def _read_cube(data: bytes, path: Path, name: str) -> pd.DataFrame:
    from pycubexr import CubexParser

    try:
        attrs, alloc = _cube_anchor(data, name)
        cols = {k: [] for k in ("region", "metric", "kind", "aggregation", "value", "unit")}
        with CubexParser(path) as cube:
            cnodes = cube.all_cnodes()
            paths = {}
            for cnode in cnodes:  # parents come before their children
                label = cube.get_region(cnode).name
                paths[cnode.id] = label if cnode.parent is None else paths[cnode.parent.id] + SEP + label
            for metric in cube.get_metrics():
                if str(metric.data_type).upper().startswith(("MIN", "MAX")):
                    continue  # min_time/max_time: extremes over visits, neither summed nor split by call path
                try:
                    values = cube.get_metric_values(metric)
                except Exception:  # noqa: BLE001 - a metric without data (derived metrics): skip it
                    continue
                unit = _UNITS.get(str(metric.units).lower(), str(metric.units or ""))
                unit = "" if unit == "occ" else unit
                for cnode in cnodes:
                    for kind in ("inclusive", "exclusive"):
                        per_location = np.asarray(values.cnode_values(
                            cnode, convert_to_inclusive=kind == "inclusive",
                            convert_to_exclusive=kind == "exclusive"), dtype=float)
                        stats = (per_location.min(), per_location.mean(), per_location.max(), per_location.sum())
                        for aggregation, value in zip(("min", "avg", "max", "sum"), stats):
                            cols["region"].append(paths[cnode.id])
                            cols["metric"].append(metric.name)
                            cols["kind"].append(kind)
                            cols["aggregation"].append(aggregation)
                            cols["value"].append(float(value))
                            cols["unit"].append(unit)
    except DataFormatError:
        raise
    except Exception:  # noqa: BLE001 - a third-party parser on untrusted input: any failure is a bad file
        raise DataFormatError(f"{name}: not a readable Score-P Cube .cubex profile (pycubexr could not read it)"
                              ) from None
    frame = _frame(cols, name)
    frame["profile"] = name
    frame["format"] = "cube"
    params = {k: _number(v) for k, v in attrs.items()}
    params.update(_cube_folder_params(path.parent.name))
    frame = _with_run(frame, params)
    for column, value in alloc.items():  # what Cube's system tree says, unless a parameter said it
        frame.attrs["params"].setdefault(column, value)
    return frame


# ----------------------------------------------------------------------------- dispatch

def _is_tar(data: bytes) -> bool:
    return len(data) > 262 and data[257:262] == b"ustar"


def _read_one(data: bytes, path: Path, name: str) -> pd.DataFrame | None:
    """One file's table, or None when its content is not a profile format (skipped in folders)."""
    if data.startswith(b"__rec="):
        return _read_cali(decode(data, name, what=_WHAT), name)
    if _is_tar(data):
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                names = archive.getnames()
        except (tarfile.TarError, OSError, EOFError, ValueError):
            raise DataFormatError(f"{name}: a damaged tar archive (expected a Score-P .cubex profile)") from None
        if "anchor.xml" not in names:
            return None
        return _read_cube(data, path, name)
    if data.startswith(b"PK\x03\x04"):
        raise DataFormatError(f"{name}: a zip archive inside a zip archive is not read")
    head = data[:4096].lstrip()
    if head[:1] not in (b"{", b"[") and not _looks_like_extrap_text(data[:65536].decode("utf-8", "replace")):
        return None
    text = decode(data, name, what=_WHAT)
    if head[:1] == b"[":
        return _read_cali_json(_json_text(text, name), name)
    if head[:1] == b"{":
        first = text.lstrip().split("\n", 1)[0]
        try:
            one = json.loads(first)
        except (json.JSONDecodeError, RecursionError):
            one = None
        if isinstance(one, dict) and "params" in one:
            return _read_extrap_jsonl(text, name)
        data_ = _json_text(text, name)
        if not isinstance(data_, dict):
            return None
        if "measurements" in data_ and "parameters" in data_:
            return _read_extrap_json(data_, name)
        if "records" in data_ or {"data", "columns", "nodes"} <= set(data_):
            return _read_cali_json(data_, name)
        return None
    return _read_extrap_text(text, name)


def _expand(source) -> list[tuple[Path, str]]:
    """Expand a file, folder, glob or list into (path, name for messages) of every file."""
    if isinstance(source, (list, tuple)):
        out = []
        for item in source:
            out += _expand(item)
        return out
    path = as_path(source)
    text = str(source)
    if not _text.path_exists(path) and any(c in text for c in "*?["):
        matches = sorted(glob.glob(os.path.expanduser(text), recursive=True))
        files = [Path(m) for m in matches if os.path.isfile(m)]
        if not files:
            raise DataFormatError(f"{text}: no files match this pattern")
        return [(f, str(f)) for f in files]
    if _text.path_exists(path) and _text.is_folder(path):
        files = []
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            files += [Path(root) / n for n in sorted(names) if not n.startswith(".")]
            if len(files) > MAX_FILES:
                raise DataFormatError(f"{text}: more than {MAX_FILES:,} files in this folder")
        if not files:
            raise DataFormatError(f"{text}: an empty folder (expected {_WHAT} files)")
        return [(f, str(f)) for f in files]
    return [(path, text)]


def _zip_members(data: bytes, name: str, workdir: Path) -> list[tuple[Path, str]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in archive.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise DataFormatError(f"{name}: a damaged zip archive") from None
    if len(infos) > _MAX_ZIP_MEMBERS:
        raise DataFormatError(f"{name}: {len(infos):,} files in the zip archive, more than {_MAX_ZIP_MEMBERS:,}")
    total = sum(i.file_size for i in infos)
    if total > 8 * _cap():
        raise DataFormatError(f"{name}: the zip archive unpacks to {total:,} bytes, more than the "
                              f"{_mib(8 * _cap())} accepted")
    out = []
    for k, info in enumerate(infos):
        parts = [p for p in Path(info.filename).parts if p not in ("", ".", "..", "/")]
        if not parts or any(p.startswith(".") or p == "__MACOSX" for p in parts):
            continue
        target = workdir.joinpath(f"{k:05d}", *parts)  # (no member can leave workdir)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with archive.open(info) as src:
                chunk = src.read(_cap() + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError):
            raise DataFormatError(f"{name}: member {info.filename[:80]!r} of the zip archive cannot be read"
                                  ) from None
        if len(chunk) > _cap():
            raise DataFormatError(f"{name}: member {info.filename[:80]!r} is more than the {_mib(_cap())} accepted")
        target.write_bytes(chunk)
        out.append((target, f"{name}:{'/'.join(parts)}"))
    return out


def _read_files(files: list[tuple[Path, str]], single: bool, workdir) -> list[pd.DataFrame]:
    frames = []
    for path, name in files:
        data = _read_bytes(path, name)
        if data.startswith(b"PK\x03\x04"):
            members = _zip_members(data, name, Path(workdir))
            frames += _read_files(members, False, workdir)
            continue
        frame = _read_one(data, path, name)
        if frame is None:
            if single:
                raise DataFormatError(f"{name}: unknown format: expected {_WHAT}")
            continue
        frames.append(frame)
    return frames


def read_profiles(path_or_paths, n_jobs: int | None = 1, progress: bool | None = None) -> pd.DataFrame:
    """Read call-path profiles into one profile table (module docstring).

    Parameters
    ----------
    path_or_paths : str, path-like or list of them
        A file, a folder (read recursively: files of no profile format, such as Score-P's
        ``scorep.cfg``, are skipped), a glob pattern (``runs/*.cali``) or a list of any of
        these; zip archives are unpacked. Formats are told by content.
    n_jobs : int or None, default 1
        Processes reading the files (joblib; -1 or None: one per CPU). Worth it from a few
        hundred files on (starting the workers takes about a second); with a Dask client
        configured as joblib's backend (``joblib.parallel_backend("dask")``) the files are
        read on the cluster.
    progress : bool or None, default None
        Show a progress bar (``tqdm.auto``); None: from 1,000 files on.

    Returns
    -------
    pandas.DataFrame
        The profile table: :data:`PROFILE_TABLE_COLUMNS` then one column per run parameter,
        sorted by profile order in the input, region and metric.

    Raises
    ------
    DataFormatError
        A file that cannot be read or parsed (naming it and the line or record), a single
        file of no profile format, a folder or pattern without any profile.
    """
    files = _expand(path_or_paths)
    if len(files) > MAX_FILES:
        raise DataFormatError(f"{len(files):,} files given, more than the {MAX_FILES:,} read at once")
    single = (len(files) == 1 and not isinstance(path_or_paths, (list, tuple))
              and files[0][0] == as_path(path_or_paths))  # one file named: not a folder or a pattern
    show = len(files) >= 1000 if progress is None else bool(progress)
    with tempfile.TemporaryDirectory(prefix="workbench-profiles-") as workdir:
        if n_jobs == 1 or len(files) < 2:
            frames = []
            for chunk in _chunks(files, 256, show):
                read = _read_files(chunk, single, workdir)
                if read:
                    frames.append(_collect(read))
        else:
            frames = _read_parallel(files, n_jobs, show, workdir)
    if not frames:
        raise DataFormatError(f"{_label(path_or_paths)}: no profiles found (expected {_WHAT})")
    params = {k: v for _, chunk_params in frames for k, v in chunk_params.items()}
    return _finish([f for f, _ in frames], params)


def _chunks(files: list, size: int, show: bool):
    """``files`` in chunks of ``size``, with a progress bar over the files when ``show``."""
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(files), desc="reading profiles", unit="file")
    try:
        for start in range(0, len(files), size):
            chunk = files[start:start + size]
            yield chunk
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()


class _Rows:
    """One profile's rows as lists (region, metric, kind, aggregation, value, unit) and its run parameters."""

    __slots__ = ("cols", "profile", "format", "params")

    def __init__(self, cols: dict, profile: str, fmt: str, params: dict):
        self.cols, self.profile, self.format, self.params = cols, profile, fmt, params

    def __len__(self) -> int:
        return len(self.cols["value"])


def _rows_frame(rows: list[_Rows]) -> pd.DataFrame:
    """Many profiles' rows as one frame (built once)."""
    cols = {k: [v for r in rows for v in r.cols[k]] for k in ("region", "metric", "kind", "aggregation", "unit")}
    frame = pd.DataFrame(cols)
    frame["value"] = np.fromiter((v for r in rows for v in r.cols["value"]), dtype=float)
    lengths = [len(r) for r in rows]
    frame["profile"] = np.repeat(np.array([r.profile for r in rows], dtype=object), lengths)
    frame["format"] = np.repeat(np.array([r.format for r in rows], dtype=object), lengths)
    return frame


def _collect(frames: list) -> tuple[pd.DataFrame, dict]:
    """Concatenate per-file frames (or rows); their run parameters by profile."""
    params = {f["profile"].iloc[0]: f.attrs["params"] for f in frames
              if isinstance(f, pd.DataFrame) and "params" in f.attrs and len(f)}
    params.update({r.profile: r.params for r in frames if isinstance(r, _Rows)})
    if sum(len(f) for f in frames) > MAX_ROWS:
        raise DataFormatError(f"more than {MAX_ROWS:,} rows in these profiles")
    rows = [r for r in frames if isinstance(r, _Rows)]
    frames = [f for f in frames if isinstance(f, pd.DataFrame)] + ([_rows_frame(rows)] if rows else [])
    frame = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0].copy()
    frame.attrs = {}
    return frame, params


def _read_chunk(chunk: list, workdir: str) -> tuple[pd.DataFrame, dict] | None:
    """One worker's share: its files' tables concatenated (one frame to send back, not hundreds)."""
    frames = _read_files(chunk, False, workdir)
    return _collect(frames) if frames else None


def _read_parallel(files: list, n_jobs, show: bool, workdir: str) -> list[pd.DataFrame]:
    from joblib import Parallel, cpu_count, delayed

    workers = cpu_count() if n_jobs in (None, -1) else max(1, int(n_jobs))
    size = max(16, min(512, -(-len(files) // (4 * workers))))  # ~4 chunks per worker: balance, little overhead
    chunks = list(_chunks(files, size, False))
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(files), desc="reading profiles", unit="file")
    frames = []
    try:
        parallel = Parallel(n_jobs=workers, return_as="generator")
        for chunk, part in zip(chunks, parallel(delayed(_read_chunk)(c, workdir) for c in chunks)):
            if part is not None:
                frames.append(part)
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    return frames


def read_profile_files(files) -> pd.DataFrame:
    """Read uploaded profiles, ``(file name, content bytes)`` pairs, like :func:`read_profiles`.

    Each file is written under its base name into a private temporary folder (a zip archive
    is unpacked as with :func:`read_profiles`), so formats are told by content as for files
    on disk; at most :data:`MAX_FILES` files and ``MAX_FILE_BYTES`` each.
    """
    files = list(files)
    if not files:
        raise DataFormatError("no files uploaded (expected " + _WHAT + ")")
    if len(files) > MAX_FILES:
        raise DataFormatError(f"{len(files):,} files uploaded, more than the {MAX_FILES:,} read at once")
    with tempfile.TemporaryDirectory(prefix="workbench-upload-") as folder:
        for k, (name, content) in enumerate(files):
            base = Path(str(name).replace("\\", "/")).name or "upload"
            if len(content) > _cap():
                raise DataFormatError(f"{base}: the upload is {len(content):,} bytes, more than the {_mib(_cap())} "
                                      f"accepted for {_WHAT}")
            target = Path(folder) / f"{k:05d}" / base
            target.parent.mkdir()
            target.write_bytes(bytes(content))
        table = read_profiles(folder)
    prefix = str(Path(folder)) + os.sep
    names = [p.replace(prefix, "", 1) for p in table["profile"]]
    short = [n.split(os.sep, 1)[-1] for n in names]  # without the per-file folder, when still unique
    unique = len(set(short)) == len(set(names))
    table["profile"] = short if unique else names
    return table


def _label(source) -> str:
    if isinstance(source, (list, tuple)):
        return ", ".join(str(s) for s in source[:3]) + (" ..." if len(source) > 3 else "")
    return str(source)


def _finish(frames: list[pd.DataFrame], params: dict | None = None) -> pd.DataFrame:
    """Concatenate per-file frames, add the run parameters, fill the region and run columns, order the columns."""
    single = len(frames) == 1 and isinstance(frames[0], pd.DataFrame) and "params" not in frames[0].attrs
    frame, found = (frames[0], {}) if single else _collect(frames)
    params = {**found, **(params or {})}
    if params:
        table = pd.DataFrame.from_dict(params, orient="index")
        codes = table.index.get_indexer(frame["profile"])
        for column in table.columns:
            values = np.append(table[column].to_numpy(object), np.nan)[codes]  # -1: a profile without parameters
            if column in frame:
                values = np.where(frame[column].isna().to_numpy(), values, frame[column].to_numpy(object))
            frame[column] = values
    own = "run" in frame and "name" in frame and frame["name"].notna().all()  # read back from to_extrap
    if own:
        return _order(frame)
    regions = frame["region"].astype(str)
    unique = pd.Index(regions.unique())
    parts = [_split_path(r) for r in unique]
    info = pd.DataFrame({"name": [p[-1] for p in parts], "parent": [SEP.join(p[:-1]) for p in parts],
                         "depth": [len(p) - 1 for p in parts]}, index=unique)
    codes = unique.get_indexer(regions)
    for column in ("name", "parent", "depth"):
        frame[column] = info[column].to_numpy()[codes]
    for column in _ALLOCATION:
        frame[column] = pd.to_numeric(frame[column], errors="coerce") if column in frame else np.nan
    frame["run"] = _runs(frame)
    return _order(frame)


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    """Table columns then the parameters by name; parameters of numbers (or missing) as float."""
    params = [c for c in frame.columns if c not in PROFILE_TABLE_COLUMNS]
    for column in params:
        values = frame[column]
        if pd.api.types.is_float_dtype(values) or pd.api.types.is_integer_dtype(values):
            frame[column] = values.astype(float)
            continue
        # numbers and missing values only (readers give numbers as float, text as str): float
        kinds = values.map(type).value_counts().index
        if all(k in (float, int, type(None)) for k in kinds):
            frame[column] = values.astype(float)
        else:
            frame[column] = values.where(values.notna(), None).astype(object)
    frame = frame[PROFILE_TABLE_COLUMNS + sorted(params)]
    return validate_profile_table(frame)


def _runs(frame: pd.DataFrame) -> np.ndarray:
    """Repetition index of each profile among the profiles of the same configuration."""
    config = [c for c in frame.columns if c not in PROFILE_TABLE_COLUMNS and c.lower() not in _PER_RUN]
    codes, _ = pd.factorize(frame["profile"])
    _, first = np.unique(codes, return_index=True)  # one row per profile, in order of appearance
    profiles = frame[["profile", *_ALLOCATION, *config]].take(np.sort(first))
    keys = profiles[[*_ALLOCATION, *config]].astype(str)
    run = keys.groupby(list(keys.columns), sort=False, dropna=False).cumcount().to_numpy()
    return pd.Series(run, index=profiles["profile"].to_numpy()).reindex(frame["profile"]).to_numpy().astype(np.int64)


# ----------------------------------------------------------------------------- validation

def validate_profile_table(frame, name: str = "profile table") -> pd.DataFrame:
    """Check a profile table and return a canonical copy.

    Raises :class:`~workbench.errors.ValidationError` naming the column and the first rows
    (index labels) concerned: a missing column of :data:`PROFILE_TABLE_COLUMNS`, an empty
    table, an empty region or metric, a value that is not a finite number, a ``kind`` or
    ``aggregation`` outside the documented words, an allocation below 1, a negative ``run``,
    a repeated (profile, region, metric, kind, aggregation).
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{name}: expected a table (pandas DataFrame), got {type(frame).__name__}")
    missing = [c for c in PROFILE_TABLE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValidationError(f"{name}: missing column(s) {', '.join(map(repr, missing))}; a profile table has "
                              f"{', '.join(PROFILE_TABLE_COLUMNS)}")
    if frame.empty:
        raise ValidationError(f"{name}: no rows")
    out = frame.copy()

    def bad(mask, column, what):
        rows = out.index[np.asarray(mask, dtype=bool)]
        if len(rows):
            shown = ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
            raise ValidationError(f"{name}: column {column!r}, row(s) {shown}: {what}")

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
    for column in _ALLOCATION:
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


# ----------------------------------------------------------------------------- Thicket / Hatchet

def from_thicket(obj, name: str = "thicket") -> pd.DataFrame:
    """Return a Hatchet GraphFrame or a Thicket as a profile table (duck-typed: neither is imported).

    Reads ``obj.dataframe`` (index levels ``node`` and, for a Thicket, ``profile``; one
    column per metric, Caliper's names such as ``time (inc)``, ``Max time/rank`` or
    ``max#inclusive#sum#time.duration``), the node objects' ``frame["name"]`` and
    ``parents``, and, for a Thicket, ``obj.metadata`` (one row per profile: the run
    parameters) and for a GraphFrame ``obj.metadata`` (a dict).
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
        per_profile = {p: _param_columns({str(k): _number(v) for k, v in row.items()
                                          if not str(k).startswith(("cali.", "spot."))})
                       for p, row in meta.iterrows()}
        columns = sorted({k for v in per_profile.values() for k in v})
        for column in columns:
            frame[column] = frame["profile"].map(lambda p, c=column: per_profile.get(p, {}).get(c, np.nan))
    elif isinstance(metadata, dict):
        frame = _with_run(frame, {str(k): _number(v) for k, v in metadata.items()
                                  if not str(k).startswith(("cali.", "spot."))})
    return _finish([frame])


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
        metric, _, aggregation, _ = _parse_metric_label(column[:-6])
        return metric, "inclusive", aggregation
    metric, kind, aggregation, _ = _parse_metric_label(column)
    return metric, kind, aggregation


# ----------------------------------------------------------------------------- Extra-P output

def to_extrap(table: pd.DataFrame, path) -> Path:
    """Write a profile table as Extra-P JSON Lines (one line per row); return the path.

    Each line is ``{"params": {...}, "callpath": region, "metric": label, "value": v}``
    with ``label`` such as ``max#inclusive#time.duration``, so Extra-P keeps kinds and
    aggregations apart; ``params`` holds the allocation columns and numeric run parameters
    present in every row (Extra-P needs the same parameters on every line). Everything else
    is under the key ``"workbench"``, which Extra-P ignores and :func:`read_profiles` uses to
    give back the same table.
    """
    table = validate_profile_table(table)
    target = as_path(path)
    extra = [c for c in table.columns if c not in PROFILE_TABLE_COLUMNS]
    numeric = [c for c in [*_ALLOCATION, *extra]
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


# ----------------------------------------------------------------------------- metric choice

def time_metric(table: pd.DataFrame, kind: str = "inclusive") -> tuple[str, str, str]:
    """Return the (metric, kind, aggregation) that best stands for run time in ``table``.

    A time metric (unit ``s`` or a name with ``time``), of ``kind`` when present, with the
    max-over-ranks aggregation when present (the slowest rank sets the run time), else
    avg, none, sum, min.
    """
    combos = table[["metric", "kind", "aggregation", "unit"]].drop_duplicates()
    timed = combos[(combos["unit"] == "s") | combos["metric"].str.contains("time", case=False)]
    if timed.empty:
        raise ValidationError("profile table: no time metric (unit 's' or a name with 'time'); choose a metric")
    order = {"max": 0, "avg": 1, "none": 2, "sum": 3, "min": 4, "any": 5}
    kinds = {kind: 0, "inclusive": 1, "exclusive": 2, "n/a": 3}
    names = {"time": 0, "time.duration": 1}
    ranked = timed.assign(k=timed["kind"].map(kinds), a=timed["aggregation"].map(order),
                          m=timed["metric"].map(lambda m: names.get(m, 2)))
    best = ranked.sort_values(["k", "a", "m"], kind="stable").iloc[0]
    return str(best["metric"]), str(best["kind"]), str(best["aggregation"])


# ----------------------------------------------------------------------------- regions -> curves

def _derived_exclusive(rows: pd.DataFrame) -> pd.DataFrame:
    """Exclusive values from inclusive ones: a region's minus its children's, per profile."""
    children = rows[rows["parent"] != ""].groupby(["profile", "parent"], sort=False)["value"].sum()
    keys = pd.MultiIndex.from_arrays([rows["profile"], rows["region"]])
    out = rows.copy()
    out["value"] = rows["value"].to_numpy() - children.reindex(keys, fill_value=0.0).to_numpy()
    out["kind"] = "exclusive"
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
        aggregation = next(a for a in ("max", "avg", "none", "sum", "min", "any") if a in present)
    rows = rows[rows["aggregation"] == aggregation]
    kind = kind or ("inclusive" if (rows["kind"] == "inclusive").any() else rows["kind"].iloc[0])
    chosen = rows[rows["kind"] == kind]
    if chosen.empty and kind == "exclusive" and (rows["kind"] == "inclusive").any():
        chosen = _derived_exclusive(rows[rows["kind"] == "inclusive"])
    if chosen.empty:
        raise ValidationError(f"profile table: no {kind} values of {metric!r} aggregated by {aggregation!r}")
    alloc = pd.to_numeric(chosen[n], errors="coerce")
    if alloc.isna().all():
        raise ValidationError(f"profile table: column {n!r} is empty for {metric!r}: the profiles do not say "
                              f"their {n}; choose another allocation column")
    chosen = chosen[alloc.notna() & (chosen["value"] > min_value)]
    profiles = chosen.drop_duplicates("profile")
    params = [c for c in table.columns if c not in PROFILE_TABLE_COLUMNS and c != n and c.lower() not in _PER_RUN
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
