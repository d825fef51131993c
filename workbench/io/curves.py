"""Curve tables: many strong-scaling curves in one tidy frame, for benchmarks and batch work.

A *curve table* has one row per measured run:

=============  ========  ==================================================================
column         dtype     meaning
=============  ========  ==================================================================
``curve_id``   str       one fixed-size problem, one configuration, one campaign
``source``     str       where the curve comes from (a repository, a dataset name); curves of
                         one source are correlated, so evaluations hold out whole sources
``n``          float64   allocation: processes, nodes or GPUs (see ``unit``), >= 1
``run``        int64     repetition index >= 0 at the same ``n`` (default 0)
``time_s``     float64   measured time, > 0 (seconds; what it times is in ``metric``)
``unit``       str       what ``n`` counts: ``processes``, ``nodes``, ``gpus``... (default
                         ``"processes"``)
``app``        str       application (default: ``curve_id``)
``machine``    str       machine (default ``"n/a"``)
``metric``     str       what the time is: whole run, per iteration... (default ``"runtime"``)
=============  ========  ==================================================================

Optional *topology* columns (:data:`TOPOLOGY_COLUMNS`), kept right after these when present:

===================  ======  ============================================================
column               dtype   meaning
===================  ======  ============================================================
``processes``        Int64   MPI processes (ranks) of the run, ``<NA>`` = not stated
``nodes``            Int64   nodes of the run, ``<NA>`` = not stated
``cores_per_node``   Int64   physical cores per node of the machine, ``<NA>`` = not stated
``gpus_per_node``    Int64   GPUs per node, ``<NA>`` = none or not stated
===================  ======  ============================================================

Each is a whole number >= 1 or missing; a run cannot use more nodes than processes, nor more
processes per node than ``cores_per_node`` (:func:`validate_curves` refuses such rows, naming
them).  Other columns are kept after these.  :func:`read_scaling_corpus` reads the 152-curve corpus of
real strong-scaling measurements (catalogue entry ``scaling-corpus``),
:func:`curves_from_scaling_frame` turns a scaling frame (NPB logs, a CSV) into curves, and
:func:`read_curves_csv` / :func:`validate_curves` check user tables.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ValidationError
from workbench.io.npb import MAX_COUNT
from workbench.io.scaling import list_curves, select_curve, validate_scaling_frame
from workbench.io.text import as_path, csv_frame, is_folder, read_file

__all__ = [
    "CURVE_COLUMNS",
    "TOPOLOGY_COLUMNS",
    "read_curve_extract",
    "CORPUS_LICENCES",
    "read_scaling_corpus",
    "read_curves_csv",
    "validate_curves",
    "curves_from_scaling_frame",
    "curve_summary",
]

CURVE_COLUMNS = ["curve_id", "source", "n", "run", "time_s", "unit", "app", "machine", "metric"]
#: Optional columns of a curve table that describe where each run ran (module docstring).
TOPOLOGY_COLUMNS = ["processes", "nodes", "cores_per_node", "gpus_per_node"]
#: A header line of a curve table, shown in messages about the file's columns.
EXAMPLE_HEADER = "curve_id,n,run,time_s"
_WHAT = "a curve table (CSV)"
_DEFAULTS = {"source": "custom", "run": 0, "unit": "processes", "machine": "n/a", "metric": "runtime"}

#: Licence of the rows of each source of the scaling corpus (its README).
CORPUS_LICENCES = {
    "ARCHER2-HPC/performance_ofi-ucx": "CC0-1.0",
    "hpc-uk/archer-benchmarks": "GPL-3.0",
    "AMReX-Astro/Castro": "BSD-3-Clause-LBNL",
    "gunrock/gunrock": "Apache-2.0",
}


def validate_curves(frame: pd.DataFrame, name: str = "curve table", *, row_label: str = "row") -> pd.DataFrame:
    """Check a curve table and return a canonical copy (module docstring columns first).

    Raises :class:`~workbench.errors.ValidationError` naming the column and the first rows
    concerned (index labels, called ``row_label`` in messages: ``"line"`` for a frame read
    from a file): missing ``curve_id``/``n``/``time_s``, empty or non-numeric cells,
    allocations below 1, runtimes that are not positive, repetition indices that are not
    whole numbers, repeated (curve_id, n, run).  Topology columns (:data:`TOPOLOGY_COLUMNS`),
    where present, must be whole numbers >= 1 or empty; rows with more nodes than processes,
    more processes per node than ``cores_per_node``, or a ``processes``/``nodes`` value that
    differs from ``n`` when ``unit`` counts that column are refused.  The topology columns
    come back as ``Int64`` right after the columns of the module docstring.

    Parameters
    ----------
    frame : pandas.DataFrame
        The curve table (columns of the module docstring).
    name : str, default "curve table"
        What the messages call the table (e.g. the file's name).
    row_label : str, default "row"
        What the messages call an index label (``"line"`` for a frame read from a file).
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{name}: expected a table (pandas DataFrame), got {type(frame).__name__}")
    missing = [c for c in ("curve_id", "n", "time_s") if c not in frame.columns]
    if missing:
        raise ValidationError(
            f"{name}: missing column(s) {', '.join(map(repr, missing))}; a curve table needs curve_id, n "
            f"(allocation) and time_s (seconds); found {', '.join(map(repr, frame.columns[:12]))}; expected a header "
            f"line such as {EXAMPLE_HEADER!r}")
    if frame.empty:
        raise ValidationError(f"{name}: the table has no rows")
    out = frame.copy()
    for col, default in _DEFAULTS.items():
        if col not in out.columns:
            out[col] = default
    if "app" not in out.columns:
        out["app"] = out["curve_id"]
    problems = []
    for col, low, strict in (("n", 1.0, False), ("time_s", 0.0, True), ("run", 0.0, False)):
        values = pd.to_numeric(out[col], errors="coerce").astype("float64")
        bad = ~np.isfinite(values) | ((values <= low) if strict else (values < low))
        need = "> 0 (a runtime)" if strict else f">= {low:g}"
        if col == "run":  # a repetition index: a whole number that fits the int64 column
            bad |= (values != np.round(values)) | (values > MAX_COUNT)
            need = f"a whole number >= 0 (and <= {MAX_COUNT})"
        if bad.any():
            rows = out.index[bad][:5].tolist()
            shown = out.loc[bad, col].head(5).tolist()
            problems.append(f"column {col!r} must be a finite number {need}; found {shown} in {row_label}s {rows}")
        out[col] = values
    problems += _topology_problems(out, row_label)
    if out["curve_id"].isna().any():
        problems.append(f"column 'curve_id' has empty cells in {row_label}s "
                        f"{out.index[out['curve_id'].isna()][:5].tolist()}")
    if problems:
        raise ValidationError(f"{name}: invalid curve data:\n- " + "\n- ".join(problems))
    out["run"] = out["run"].astype("int64")
    for col in ("curve_id", "source", "unit", "app", "machine", "metric"):
        out[col] = out[col].astype(str)
    dup = out.duplicated(["curve_id", "n", "run"], keep=False)
    if dup.any():
        first = out.loc[dup].iloc[0]
        raise ValidationError(
            f"{name}: curve {first['curve_id']!r} has several rows with n = {first['n']:g} and run = {first['run']} "
            f"({row_label}s {out.index[dup][:5].tolist()}); number repeated runs 0, 1, 2, ... in a 'run' column")
    topology = [c for c in TOPOLOGY_COLUMNS if c in out.columns]
    extras = [c for c in out.columns if c not in CURVE_COLUMNS and c not in topology]
    result = out[CURVE_COLUMNS + topology + extras].reset_index(drop=True)
    result.attrs = dict(frame.attrs)
    return result


def _topology_problems(out: pd.DataFrame, row_label: str) -> list[str]:
    """Check the topology columns present in ``out`` and convert them to ``Int64`` in place.

    Returns the problems found (empty when the columns are valid), each naming the rows.
    """
    problems = []
    present = [c for c in TOPOLOGY_COLUMNS if c in out.columns]
    for col in present:
        raw = out[col]
        values = pd.to_numeric(raw, errors="coerce").astype("float64")
        # an empty or blank cell means "not stated", like a missing value
        missing = raw.isna().to_numpy() | raw.astype("string").str.strip().eq("").fillna(False).to_numpy(dtype=bool)
        finite = np.isfinite(values)
        bad = ~missing & (~finite | (values < 1) | (values != np.round(values)) | (values > MAX_COUNT))
        if bad.any():
            rows = out.index[bad][:5].tolist()
            shown = raw[bad].head(5).tolist()
            problems.append(f"column {col!r} must be a whole number >= 1 (or empty when not known); found {shown} "
                            f"in {row_label}s {rows}")
            continue
        out[col] = pd.array(np.where(missing, np.nan, values), dtype="Float64").round().astype("Int64")
    if problems:
        return problems
    known = {c: out[c].astype("Float64").to_numpy(dtype=float, na_value=np.nan) for c in present}

    def report(bad: np.ndarray, what: str, left: str, right: str) -> None:
        if bad.any():
            rows = out.index[bad][:5].tolist()
            pairs = [f"{known[left][i]:g} vs {known[right][i]:g}" if right in known else f"{known[left][i]:g}"
                     for i in np.flatnonzero(bad)[:5]]
            problems.append(f"{what} ({left} vs {right}: {', '.join(pairs)}) in {row_label}s {rows}")

    n = out["n"].to_numpy(dtype=float)
    unit = out["unit"].astype(str).str.strip().str.lower().to_numpy()
    if "nodes" in known and "processes" in known:
        report(known["nodes"] > known["processes"], "more nodes than processes: each node runs at least one process",
               "nodes", "processes")
    if {"nodes", "processes", "cores_per_node"} <= known.keys():
        per_node = known["processes"] / known["nodes"]
        bad = per_node > known["cores_per_node"]
        if bad.any():
            rows = out.index[bad][:5].tolist()
            shown = [f"{known['processes'][i]:g} processes on {known['nodes'][i]:g} nodes of "
                     f"{known['cores_per_node'][i]:g} cores" for i in np.flatnonzero(bad)[:5]]
            problems.append(f"more processes per node than cores_per_node ({'; '.join(shown)}) in {row_label}s {rows}")
    for col, name in (("processes", "processes"), ("nodes", "nodes")):
        if col in known:
            # the allocation n counts this column's unit, so both must agree where the column is stated
            bad = (unit == name) & np.isfinite(known[col]) & (known[col] != n)
            if bad.any():
                rows = out.index[bad][:5].tolist()
                shown = [f"n = {n[i]:g}, {col} = {known[col][i]:g}" for i in np.flatnonzero(bad)[:5]]
                problems.append(f"unit {name!r} but column {col!r} differs from n ({'; '.join(shown)}) in "
                                f"{row_label}s {rows}")
    return problems


def _read_csv(path: Path) -> pd.DataFrame:
    """Return the comma-separated table at ``path``, typed by pandas, indexed by line number."""
    return csv_frame(read_file(path, what=_WHAT), str(path), example=EXAMPLE_HEADER, strings=False, lower=False,
                     sep=",")


def read_curves_csv(path: str | PathLike) -> pd.DataFrame:
    """Read a curve table from a CSV file.

    Columns of the module docstring; ``curve_id``, ``n`` and ``time_s`` required;
    comma-separated, ``#`` comment lines ignored; the checks and limits of
    :mod:`workbench.io.text`. Messages name the file and its lines.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    """
    return validate_curves(_read_csv(as_path(path)), str(path), row_label="line")


def read_scaling_corpus(path: str | PathLike) -> pd.DataFrame:
    """Return the scaling corpus (``curves.csv``, or the folder holding it) as a curve table.

    ``source`` is the upstream repository (``source_repo``); a ``licence`` column gives each
    row's licence (:data:`CORPUS_LICENCES`): the ``hpc-uk/archer-benchmarks`` rows are
    GPL-3.0.  ``problem``, ``commit``, ``path`` and ``notes`` are kept.

    Parameters
    ----------
    path : str or path-like
        ``curves.csv``, or the folder holding it.
    """
    path = as_path(path)
    if is_folder(path):  # a DataFormatError naming the path when it does not exist
        path = path / "curves.csv"
    raw = _read_csv(path)
    if "source_repo" not in raw.columns:
        raise DataFormatError(f"{path}: not the scaling corpus: no 'source_repo' column")
    raw = raw.rename(columns={"source_repo": "source"})
    raw["licence"] = raw["source"].map(CORPUS_LICENCES).fillna("see the corpus README")
    return validate_curves(raw, str(path), row_label="line")


def read_curve_extract(path: str | PathLike, licence: str) -> pd.DataFrame:
    """Return a tidy extract of one upstream source (``curves.csv`` or its folder) as a curve table.

    The extract has the scaling corpus's columns (``curve_id, source_repo, commit, path, app,
    machine, problem, unit, n, run, time_s, metric, notes``) plus the topology columns
    (:data:`TOPOLOGY_COLUMNS`), as in the ``scaling-extra`` folders of the data mirror and the
    project's ``data/external`` folders.  ``source`` is the upstream repository
    (``source_repo``); every row gets ``licence``.  Raises
    :class:`~workbench.errors.DataFormatError` when the file is not such an extract.

    Parameters
    ----------
    path : str or os.PathLike
        The ``curves.csv`` file or the folder holding it.
    licence : str
        Licence of the upstream data (SPDX identifier, e.g. ``"Apache-2.0"``).

    Returns
    -------
    pandas.DataFrame
        A validated curve table with the topology columns.
    """
    path = as_path(path)
    if is_folder(path):
        path = path / "curves.csv"
    raw = _read_csv(path)
    missing = [c for c in ("source_repo", "commit", *TOPOLOGY_COLUMNS) if c not in raw.columns]
    if missing:
        raise DataFormatError(f"{path}: not a curve extract of an upstream source: no column(s) "
                              f"{', '.join(map(repr, missing))}")
    raw = raw.rename(columns={"source_repo": "source"})
    raw["licence"] = licence
    return validate_curves(raw, str(path), row_label="line")


def curves_from_scaling_frame(frame: pd.DataFrame, source: str = "custom", min_points: int = 1) -> pd.DataFrame:
    """Convert a scaling frame to a curve table with ``unit="processes"``.

    One curve per (benchmark, problem class, placement) of a scaling frame (NPB logs or a
    tidy CSV, :mod:`workbench.io.scaling`).

    ``curve_id`` is ``"<benchmark>-<class>-<placement>"``; curves with fewer than
    ``min_points`` distinct process counts are left out.  The topology columns are filled:
    ``processes`` = ``n``, ``nodes`` from the frame (``<NA>`` for the scheduler's default
    placement), ``cores_per_node`` from ``frame.attrs["cores_per_node"]`` (set by the
    catalogue for machines it knows, e.g. 4 on the Raspberry Pi cluster; else ``<NA>``) and
    ``gpus_per_node`` ``<NA>``.

    Parameters
    ----------
    frame : pandas.DataFrame
        A scaling frame (:mod:`workbench.io.scaling`).
    source : str, default "custom"
        The ``source`` column of the curves.
    min_points : int, default 1
        Fewest distinct process counts a curve needs to be kept.
    """
    cores = frame.attrs.get("cores_per_node") if isinstance(frame, pd.DataFrame) else None
    frame = validate_scaling_frame(frame)
    cores = frame.attrs.get("cores_per_node", cores)
    parts = []
    for row in list_curves(frame).itertuples(index=False):
        if row.n_points < min_points:
            continue
        runs = select_curve(frame, row.benchmark, row.problem_class, row.placement)
        parts.append(pd.DataFrame({
            "curve_id": f"{row.benchmark}-{row.problem_class}-{row.placement}",
            "source": source,
            "n": runs["processes"].astype(float),
            "run": runs.groupby("processes").cumcount().astype("int64"),
            "time_s": runs["time_s"].astype(float),
            "unit": "processes",
            "app": row.benchmark,
            "machine": frame.attrs.get("machine", "n/a"),
            "metric": "runtime",
            "problem": row.problem_class,
            "processes": runs["processes"].astype("Int64"),
            "nodes": runs["nodes"].astype("Int64"),
            "cores_per_node": pd.array([cores] * len(runs), dtype="Int64"),
            "gpus_per_node": pd.array([pd.NA] * len(runs), dtype="Int64"),
        }))
    if not parts:
        raise ValidationError(f"no strong-scaling curve with at least {min_points} distinct process counts")
    return validate_curves(pd.concat(parts, ignore_index=True), f"{source} curves")


def curve_summary(curves: pd.DataFrame) -> pd.DataFrame:
    """Summarise a curve table: one row per curve.

    Columns ``curve_id``, ``source``, ``app``, ``machine``, ``unit``, ``metric``, ``n_points``
    (distinct allocations), ``runs``, ``n_min``, ``n_max``.

    Parameters
    ----------
    curves : pandas.DataFrame
        A curve table.
    """
    curves = validate_curves(curves)
    g = curves.groupby("curve_id", sort=False)
    out = g.agg(source=("source", "first"), app=("app", "first"), machine=("machine", "first"),
                unit=("unit", "first"), metric=("metric", "first"), n_points=("n", "nunique"),
                runs=("n", "size"), n_min=("n", "min"), n_max=("n", "max"))
    return out.reset_index()
