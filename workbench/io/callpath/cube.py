"""Score-P Cube ``.cubex`` profiles (read with ``pycubexr``) and Extra-P's Cube folder names.

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError
from workbench.io.callpath.common import (
    CUBE_PARAM_RE,
    SEP,
    UNIT_ALIASES,
    as_number,
    file_cap,
    mib,
    table_frame,
    with_run,
)

__all__ = [
    "read_cube",
]


def _cube_folder_params(folder: str) -> dict:
    """Extra-P's Cube naming: ``prefix.x10y1z1.r1`` -> {x: 10, y: 1, z: 1} (repetition dropped)."""
    start = folder.find(".") + 1
    end = folder.find(".r")
    body = folder[start:end if end > 0 else None]
    out = {}
    for key, raw in CUBE_PARAM_RE.findall(body):
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
        if member.size > file_cap():
            raise DataFormatError(f"{name}: anchor.xml is larger than {mib(file_cap())}")
        raw = archive.extractfile(member).read()
    if not raw.startswith(b"<?xml"):
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as unzipped:
            raw = unzipped.read(file_cap() + 1)
        if len(raw) > file_cap():
            raise DataFormatError(f"{name}: anchor.xml unpacks to more than {mib(file_cap())}")
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


def read_cube(data: bytes, path: Path, name: str) -> pd.DataFrame:
    """Read a Score-P ``.cubex`` profile (``pycubexr``) into profile-table rows.

    Parameters
    ----------
    data : bytes
        The ``.cubex`` file's bytes (already read under the size cap).
    path : pathlib.Path
        The file itself: ``pycubexr`` opens it by path (``data`` is its content, read under the size cap, for
        the checks made before the parser runs).
    name : str
        The file's name (or a label) that every error message starts with.
    """
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
                unit = UNIT_ALIASES.get(str(metric.units).lower(), str(metric.units or ""))
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
    frame = table_frame(cols, name)
    frame["profile"] = name
    frame["format"] = "cube"
    params = {k: as_number(v) for k, v in attrs.items()}
    params.update(_cube_folder_params(path.parent.name))
    frame = with_run(frame, params)
    for column, value in alloc.items():  # what Cube's system tree says, unless a parameter said it
        frame.attrs["params"].setdefault(column, value)
    return frame


