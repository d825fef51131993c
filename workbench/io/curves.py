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

Other columns are kept after these.  :func:`read_scaling_corpus` reads the 152-curve corpus of
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
from workbench.io._text import as_path, csv_frame, is_folder, read_file
from workbench.io.npb import MAX_COUNT
from workbench.io.scaling import list_curves, select_curve, validate_scaling_frame

__all__ = [
    "CURVE_COLUMNS",
    "CORPUS_LICENCES",
    "read_scaling_corpus",
    "read_curves_csv",
    "validate_curves",
    "curves_from_scaling_frame",
    "curve_summary",
]

CURVE_COLUMNS = ["curve_id", "source", "n", "run", "time_s", "unit", "app", "machine", "metric"]
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
    whole numbers, repeated (curve_id, n, run).
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
    extras = [c for c in out.columns if c not in CURVE_COLUMNS]
    result = out[CURVE_COLUMNS + extras].reset_index(drop=True)
    result.attrs = dict(frame.attrs)
    return result


def _read_csv(path: Path) -> pd.DataFrame:
    """Return the comma-separated table at ``path``, typed by pandas, indexed by line number."""
    return csv_frame(read_file(path, what=_WHAT), str(path), example=EXAMPLE_HEADER, strings=False, lower=False,
                     sep=",")


def read_curves_csv(path: str | PathLike) -> pd.DataFrame:
    """Read a curve table from a CSV file.

    Columns of the module docstring; ``curve_id``, ``n`` and ``time_s`` required;
    comma-separated, ``#`` comment lines ignored; the checks and limits of
    :mod:`workbench.io._text`. Messages name the file and its lines.
    """
    return validate_curves(_read_csv(as_path(path)), str(path), row_label="line")


def read_scaling_corpus(path: str | PathLike) -> pd.DataFrame:
    """Return the scaling corpus (``curves.csv``, or the folder holding it) as a curve table.

    ``source`` is the upstream repository (``source_repo``); a ``licence`` column gives each
    row's licence (:data:`CORPUS_LICENCES`): the ``hpc-uk/archer-benchmarks`` rows are
    GPL-3.0.  ``problem``, ``commit``, ``path`` and ``notes`` are kept.
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


def curves_from_scaling_frame(frame: pd.DataFrame, source: str = "custom", min_points: int = 1) -> pd.DataFrame:
    """Convert a scaling frame to a curve table with ``unit="processes"``.

    One curve per (benchmark, problem class, placement) of a scaling frame (NPB logs or a
    tidy CSV, :mod:`workbench.io.scaling`).

    ``curve_id`` is ``"<benchmark>-<class>-<placement>"``; curves with fewer than
    ``min_points`` distinct process counts are left out.
    """
    frame = validate_scaling_frame(frame)
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
        }))
    if not parts:
        raise ValidationError(f"no strong-scaling curve with at least {min_points} distinct process counts")
    return validate_curves(pd.concat(parts, ignore_index=True), f"{source} curves")


def curve_summary(curves: pd.DataFrame) -> pd.DataFrame:
    """Summarise a curve table: one row per curve.

    Columns ``curve_id``, ``source``, ``app``, ``machine``, ``unit``, ``metric``, ``n_points``
    (distinct allocations), ``runs``, ``n_min``, ``n_max``.
    """
    curves = validate_curves(curves)
    g = curves.groupby("curve_id", sort=False)
    out = g.agg(source=("source", "first"), app=("app", "first"), machine=("machine", "first"),
                unit=("unit", "first"), metric=("metric", "first"), n_points=("n", "nunique"),
                runs=("n", "size"), n_min=("n", "min"), n_max=("n", "max"))
    return out.reset_index()
