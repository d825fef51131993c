"""Size grids: one application on one machine at several problem sizes and allocations.

A *size-grid table* has one row per measured run:

===============  ========  ================================================================
column           dtype     meaning
===============  ========  ================================================================
``grid``         str       one application on one machine and software environment
``app``          str       the application (and its benchmark problem)
``machine``      str       the machine (VM type, cluster, scheduler)
``n``            float64   allocation, >= 1 (what it counts: ``n_unit``)
``n_unit``       str       ``nodes``, ``gpus``, ``processes``, ``cores``...
``size_name``    str       the problem size as the source names it, e.g. ``256x256x128 per
                           process``
``size``         float64   the problem size as a number, > 0 (cells, zones, atoms... of
                           the whole problem or of one process: ``size_scope``)
``size_scope``   str       ``total`` (the whole problem) or ``per-process`` (weak scaling:
                           the whole problem grows with the processes)
``time``         float64   measured time, > 0, in ``time_unit``
``time_unit``    str       ``s`` (seconds) or ``s/step`` (seconds per time step)
``run``          int64     repetition index >= 0 of the same (grid, size, n)
``path``         str       the upstream file the row comes from
===============  ========  ================================================================

Other columns (e.g. ``processes``, ``nodes`` or the phases of ``time``) are kept after these.
Within a grid, ``n_unit``, ``size_scope`` and ``time_unit`` are the same on every row, and
each ``size_name`` names one ``size``. :func:`read_size_grids` reads and checks such a table
(the catalogue's ``cloud-size-grids``).
"""

from __future__ import annotations

from os import PathLike

import numpy as np
import pandas as pd

from workbench.errors import ValidationError
from workbench.io.npb import MAX_COUNT
from workbench.io.text import as_path, csv_frame, read_file
from workbench.validation import require_table

__all__ = ["SIZE_GRID_COLUMNS", "SIZE_SCOPES", "SIZE_GRID_TIME_UNITS", "read_size_grids", "validate_size_grids"]

#: Columns of a size-grid table, in order (module docstring).
SIZE_GRID_COLUMNS = ["grid", "app", "machine", "n", "n_unit", "size_name", "size", "size_scope", "time",
                     "time_unit", "run", "path"]
#: Allowed values of ``size_scope``.
SIZE_SCOPES = ("total", "per-process")
#: Allowed values of ``time_unit``.
SIZE_GRID_TIME_UNITS = ("s", "s/step")
_TEXT = ["grid", "app", "machine", "n_unit", "size_name", "size_scope", "time_unit", "path"]
_EXAMPLE = ",".join(SIZE_GRID_COLUMNS)


def validate_size_grids(frame: pd.DataFrame, name: str = "size-grid table", *,
                        row_label: str = "row") -> pd.DataFrame:
    """Check a size-grid table and return a canonical copy (module docstring columns first).

    Raises :class:`~workbench.errors.ValidationError` naming the column and the first rows
    concerned: missing columns, empty text cells, allocations below 1, sizes or times that
    are not positive, repetition indices that are not whole numbers, a ``size_scope`` or
    ``time_unit`` outside :data:`SIZE_SCOPES` / :data:`SIZE_GRID_TIME_UNITS`, a grid that mixes
    ``n_unit``, ``size_scope`` or ``time_unit`` values, a ``size_name`` that names two sizes
    in one grid, repeated (grid, size, n, run).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (columns of the module docstring).
    name : str, default "size-grid table"
        What the messages call the table (e.g. the file's name).
    row_label : str, default "row"
        What the messages call an index label (``"line"`` for a frame read from a file).

    Returns
    -------
    pandas.DataFrame
        The table with ``n``, ``size``, ``time`` as float64, ``run`` as int64, text columns
        as str, the module docstring's columns first and a fresh index.
    """
    require_table(frame, SIZE_GRID_COLUMNS, name, f"a size-grid table needs the header {_EXAMPLE!r}")
    out = frame.copy()
    problems = []
    for col in _TEXT:
        empty = out[col].isna() | out[col].astype(str).str.strip().eq("")
        if empty.any():
            problems.append(f"column {col!r} has empty cells in {row_label}s {out.index[empty][:5].tolist()}")
    for col, low, strict, need in (("n", 1.0, False, ">= 1 (an allocation)"), ("size", 0.0, True, "> 0"),
                                   ("time", 0.0, True, "> 0 (a time)"), ("run", 0.0, False, ">= 0")):
        values = pd.to_numeric(out[col], errors="coerce").astype("float64")
        bad = ~np.isfinite(values) | ((values <= low) if strict else (values < low))
        if col == "run":  # a repetition index: a whole number that fits the int64 column
            bad |= (values != np.round(values)) | (values > MAX_COUNT)
            need = f"a whole number >= 0 (and <= {MAX_COUNT})"
        if bad.any():
            shown = out.loc[bad, col].head(5).tolist()
            problems.append(f"column {col!r} must be a finite number {need}; found {shown} in {row_label}s "
                            f"{out.index[bad][:5].tolist()}")
        out[col] = values
    for col, allowed in (("size_scope", SIZE_SCOPES), ("time_unit", SIZE_GRID_TIME_UNITS)):
        bad = ~out[col].isin(allowed)
        if bad.any():
            problems.append(f"column {col!r} must be one of {', '.join(allowed)}; found "
                            f"{out.loc[bad, col].head(5).tolist()} in {row_label}s {out.index[bad][:5].tolist()}")
    if problems:
        raise ValidationError(f"{name}: invalid size-grid data:\n- " + "\n- ".join(problems))
    for col in ("n_unit", "size_scope", "time_unit"):
        mixed = out.groupby("grid")[col].nunique()
        if (mixed > 1).any():
            grid = mixed[mixed > 1].index[0]
            raise ValidationError(f"{name}: grid {grid!r} mixes {col} values "
                                  f"{sorted(out.loc[out['grid'] == grid, col].unique())}; one grid has one {col}")
    _check_names_and_repeats(out, name, row_label)
    out["run"] = out["run"].astype("int64")
    for col in _TEXT:
        out[col] = out[col].astype(str)
    extras = [c for c in out.columns if c not in SIZE_GRID_COLUMNS]
    result = out[SIZE_GRID_COLUMNS + extras].reset_index(drop=True)
    result.attrs = dict(frame.attrs)
    return result


def _check_names_and_repeats(out: pd.DataFrame, name: str, row_label: str) -> None:
    """One size per ``size_name`` in a grid, one row per (grid, size, n, run); else a ValidationError."""
    names = out.groupby(["grid", "size_name"])["size"].nunique()
    if (names > 1).any():
        grid, size_name = names[names > 1].index[0]
        raise ValidationError(f"{name}: grid {grid!r} gives size_name {size_name!r} several sizes; one name is one "
                              "size")
    dup = out.duplicated(["grid", "size", "n", "run"], keep=False)
    if dup.any():
        first = out.loc[dup].iloc[0]
        raise ValidationError(f"{name}: grid {first['grid']!r} has several rows with size = {first['size']:g}, n = "
                              f"{first['n']:g} and run = {first['run']:g} ({row_label}s "
                              f"{out.index[dup][:5].tolist()}); number repeated runs 0, 1, 2, ... in the 'run' column")


def read_size_grids(path: str | PathLike) -> pd.DataFrame:
    """Read a size-grid table from a CSV file (comma-separated, ``#`` comment lines ignored).

    The checks and limits of :mod:`workbench.io.text`, then :func:`validate_size_grids`;
    messages name the file and its lines.

    Parameters
    ----------
    path : str or path-like
        The CSV file (e.g. ``data/external/<owner>+<repo>/size_grids.csv``).

    Returns
    -------
    pandas.DataFrame
        The validated table (:func:`validate_size_grids`).
    """
    path = as_path(path)
    text = read_file(path, what="a size-grid table (CSV)")
    frame = csv_frame(text, str(path), example=_EXAMPLE, strings=False, lower=False, sep=",")
    return validate_size_grids(frame, str(path), row_label="line")
