"""The table machinery the OSU and IMB readers share (:mod:`workbench.io.microbench`).

A reader (:mod:`~workbench.io.microbench.osu`, :mod:`~workbench.io.microbench.imb`) turns one
file into :class:`Table` objects (context, column names, raw cells with their line numbers);
:func:`table_frame` types one table's columns, and :func:`collect` reads a file or a folder
with a reader and concatenates its tables into the tidy frame.  The checks and warnings every
reader gives (row length, run cut short, too many tables, lines ignored inside tables) live
here so that both suites report them in the same words.  These names serve the readers; users
call :func:`~workbench.io.microbench.read_osu` and :func:`~workbench.io.microbench.read_imb`.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ParseWarning
from workbench.io.text import as_path, is_folder, read_file

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_META_CHARS",
    "Table",
    "UnknownFormat",
    "check_count",
    "check_row",
    "collect",
    "is_number",
    "read_text",
    "slug",
    "table_frame",
    "warn_ignored",
    "warn_notes",
]

#: Largest file read, in bytes.  Output of these suites is a few kB (a terminal log of many
#: runs, a few MB); anything far larger is not such a file.
MAX_FILE_BYTES = 16 * 2**20
#: Longest title, banner or metadata line matched, in characters.  Real ones are under 200;
#: longer lines are not matched against their patterns, some of which take time quadratic in
#: the length of a line built to defeat them (e.g. "# OSU" followed by a megabyte of spaces).
MAX_META_CHARS = 1000
# Runs and tables per file (a real log has a few hundred), and warnings given one by one
# per file: each run costs ~1 kB, and warnings are kept by the warnings registry.
_MAX_TABLES = 100_000
_MAX_WARNINGS = 5

# Columns holding whole numbers (Int64) and text; every other metric is float64.
_WHOLE = {"size_bytes", "iterations", "transmit_bytes", "repetitions", "defects"}
_TEXT = {"validation"}


class UnknownFormat(DataFormatError):
    """The text is not output of the suite asked for (or is empty): :func:`collect` skips it in a folder."""


@dataclass
class Table:
    """One table of a file: its context, column names and raw cells with line numbers.

    Attributes
    ----------
    meta : dict
        The table's context (benchmark, run, processes ...): one column of the frame each.
    columns : list of str
        Frame column names of the table's columns, from its header.
    header_line : int
        Line number of the header in the file (first line = 1).
    lines : list of int, default []
        Line number of each row kept.
    cells : list of list of str, default []
        The rows' fields as read, one list per row.
    """

    meta: dict
    columns: list[str]
    header_line: int
    lines: list[int] = field(default_factory=list)
    cells: list[list[str]] = field(default_factory=list)


# ----------------------------------------------------------------------------- shared helpers

def read_text(path: Path) -> str:
    """Return the text of one benchmark output file (at most :data:`MAX_FILE_BYTES`).

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    str
        Its text (any 8-bit text decodes: logs of old machines may hold it; the tables are ASCII).

    Raises
    ------
    UnknownFormat
        The file is empty, binary or not text.
    DataFormatError
        It is missing, unreadable or too large.
    """
    text = read_file(path, what="benchmark text output", max_bytes=MAX_FILE_BYTES, legacy=True, unknown=UnknownFormat)
    if not text.strip():
        raise UnknownFormat(f"{path}: empty file")
    return text


def is_number(token: str) -> bool:
    """Return whether ``token`` is a finite number (a table row's first field is one).

    Parameters
    ----------
    token : str
        One whitespace-separated field.

    Returns
    -------
    bool
        True for ``"16"``, ``"1.5e3"``; False for ``"#"``, ``"nan"``, ``"inf"``, words.
    """
    try:
        return math.isfinite(float(token))
    except ValueError:
        return False


def slug(name: str) -> str:
    """Return ``name`` as a column name: lower case, runs of other characters as one ``_``.

    Parameters
    ----------
    name : str
        A column title or benchmark description (``"Avg Latency(us)"``).

    Returns
    -------
    str
        E.g. ``"avg_latency_us"``.
    """
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def check_row(table: Table, fields: list[str], number: int, text: str, lines: list[str],
              path: Path, what: str, notes: list[str]) -> bool:
    """Return True if the row fits the header.

    A row with too few fields is a run cut short (a note for :func:`warn_notes`, the row
    dropped) when no further data row follows it; anything else is an error.

    Parameters
    ----------
    table : Table
        The table the row belongs to.
    fields : list of str
        The row's fields.
    number : int
        Its line number (first line = 1).
    text : str
        The line as read (quoted in the error).
    lines : list of str
        Every line of the file (to look for a further data row).
    path : pathlib.Path
        The file (named in the messages).
    what : str
        The table's name in the messages (``"'PingPong'"``).
    notes : list of str
        Warnings collected for :func:`warn_notes`; a note is appended for a run cut short.

    Returns
    -------
    bool
        True to keep the row, False to drop it (a cut-short last row).

    Raises
    ------
    DataFormatError
        The row has more fields than the header, or fewer and data rows follow it.
    """
    n = len(table.columns)
    if len(fields) == n:
        return True
    if len(fields) < n and not _data_row_follows(lines, number):
        notes.append(f"{path}, line {number}: incomplete last row of the {what} table ({len(fields)} of {n} fields): "
                     "dropped; the run was probably cut short")
        return False
    shown = text if len(text) <= 80 else text[:77] + "..."
    raise DataFormatError(
        f"{path}, line {number}: expected {n} fields ({', '.join(table.columns[:20])}) as in the header on line "
        f"{table.header_line}, got {len(fields)}: {shown!r}"
    )


def warn_notes(notes: list[str], path: Path) -> None:
    """Warn the first few notes one by one and the rest in one line.

    A file made of a million empty tables must not give a million warnings.

    Parameters
    ----------
    notes : list of str
        The file's warnings, in line order.
    path : pathlib.Path
        The file (named in the summary line).

    Warns
    -----
    ParseWarning
        One per note up to five, then one for the rest.
    """
    for note in notes[:_MAX_WARNINGS]:
        warnings.warn(note, ParseWarning, stacklevel=4)
    if len(notes) > _MAX_WARNINGS:
        warnings.warn(f"{path}: {len(notes) - _MAX_WARNINGS:,} more warning(s) like the ones above", ParseWarning,
                      stacklevel=4)


def check_count(count: int, path: Path, number: int) -> None:
    """Raise a DataFormatError when a file has more runs, blocks or tables than 100,000.

    Each run costs ~1 kB; a real log has a few hundred.

    Parameters
    ----------
    count : int
        Runs, blocks or tables found so far.
    path : pathlib.Path
        The file.
    number : int
        The line about to add one.

    Raises
    ------
    DataFormatError
        ``count`` has reached the limit.
    """
    if count >= _MAX_TABLES:
        raise DataFormatError(f"{path}, line {number}: more than {_MAX_TABLES:,} runs or tables in one file; "
                              "split it into smaller files")


def _data_row_follows(lines: list[str], number: int) -> bool:
    """Whether the next non-blank line after line ``number`` (1-based) starts with a number."""
    for line in lines[number:]:
        if line.strip():
            return is_number(line.split()[0])
    return False


def warn_ignored(ignored: list[tuple[int, str]], path: Path) -> None:
    """Warn once about lines inside tables that are not rows (stderr interleaved with stdout).

    Parameters
    ----------
    ignored : list of (int, str)
        ``(line number, text)`` of each such line; nothing is said when empty.
    path : pathlib.Path
        The file.

    Warns
    -----
    ParseWarning
        Naming how many lines and the first one.
    """
    if ignored:
        number, text = ignored[0]
        warnings.warn(
            f"{path}: ignored {len(ignored)} line(s) inside tables that are not table rows "
            f"(first: line {number}: {text[:80]!r})",
            ParseWarning,
            stacklevel=4,
        )


def table_frame(table: Table, path: Path) -> pd.DataFrame:
    """Return the table's cells as typed columns (vectorised per column), with its context.

    Parameters
    ----------
    table : Table
        A table with at least one row.
    path : pathlib.Path
        Its file (the ``source`` column, and named in errors).

    Returns
    -------
    pandas.DataFrame
        One row per table row: the metric columns (float64; whole-number columns Int64, text
        columns str), ``size_bytes`` (0 when the table has none), the context of
        ``table.meta``, ``source`` and ``line``.

    Raises
    ------
    DataFormatError
        A cell is not a number, is negative, or is not whole (or implausibly large) in a
        whole-number column; naming the file, line and column.
    """
    raw = pd.DataFrame(table.cells, columns=table.columns, dtype=object)
    data: dict[str, object] = {}
    for column in table.columns:
        text = raw[column]
        if column in _TEXT:
            data[column] = pd.array(text.to_numpy(), dtype="str")
            continue
        values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
        for bad, problem in (
            (~np.isfinite(values), "must be a number"),
            (values < 0, "must not be negative"),
            ((values % 1 != 0) if column in _WHOLE else np.zeros(len(values), bool), "must be a whole number"),
            ((values > 2.0**53) if column in _WHOLE else np.zeros(len(values), bool), "is implausibly large"),
        ):
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise DataFormatError(
                    f"{path}, line {table.lines[i]}: column {column!r} {problem}, got {text.iloc[i]!r}"
                )
        data[column] = pd.array(values.astype(np.int64), dtype="Int64") if column in _WHOLE else values
    frame = pd.DataFrame(data, index=pd.RangeIndex(len(raw)))
    if "size_bytes" not in frame:
        # Barrier-type tables have no message: 0 bytes keeps size_bytes complete.
        frame["size_bytes"] = pd.array(np.zeros(len(frame), np.int64), dtype="Int64")
    for key, value in table.meta.items():
        frame[key] = value
    frame["source"] = path.name
    frame["line"] = np.asarray(table.lines, dtype=np.int64)
    return frame


def collect(path: str | PathLike, parse: Callable[[Path], tuple[list[pd.DataFrame], list[dict]]], suite: str,
            columns: list[str], metrics: list[str], *, text: tuple[str, ...], whole: tuple[str, ...]
            ) -> tuple[pd.DataFrame, list[dict]]:
    """Parse a file, or every non-hidden file of a folder, into one frame (+ the parsers' headers).

    Parameters
    ----------
    path : str or os.PathLike
        A file, or a folder: files that are not the suite's output (:class:`UnknownFormat`)
        are skipped with a warning and listed in ``frame.attrs["skipped"]``.
    parse : callable
        ``parse(file) -> (frames, headers)``: one reader's parser of one file.
    suite : str
        The suite's name in messages (``"OSU Micro-Benchmarks"``).
    columns : list of str
        The leading columns, in order.
    metrics : list of str
        The metric columns in frame order (those present are kept; unknown ones follow, sorted).
    text : tuple of str
        Columns typed str.
    whole : tuple of str
        Columns typed Int64.

    Returns
    -------
    frame : pandas.DataFrame
        ``columns``, the metrics present, any other column, ``source``, ``line``.
    headers : list of dict
        The parsers' headers, in file order.

    Raises
    ------
    DataFormatError
        A folder holds no output of the suite, or every table is empty.
    """
    path = as_path(path)
    frames: list[pd.DataFrame] = []
    headers: list[dict] = []
    skipped: list[str] = []
    if is_folder(path):  # a DataFormatError naming the path when it does not exist
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        for file in files:
            try:
                found, found_headers = parse(file)
            except UnknownFormat as exc:
                skipped.append(file.name)
                warnings.warn(f"skipped {exc}", ParseWarning, stacklevel=3)
                continue
            frames += found
            headers += found_headers
        if len(skipped) == len(files):
            listed = f": {', '.join(p.name for p in files[:10])}" if files else ""
            raise DataFormatError(f"{path}: no {suite} output in this folder ({len(files)} file(s) looked at{listed})")
    else:
        frames, headers = parse(path)
    if not frames:
        raise DataFormatError(f"{path}: no data rows: every {suite} table in it is empty")
    frame = pd.concat(frames, ignore_index=True)
    for column in frame.columns:
        if column in whole or column in _WHOLE:
            frame[column] = frame[column].astype("Int64")
        elif column in text or column in _TEXT or column == "source":
            frame[column] = pd.array(frame[column].to_numpy(dtype=object), dtype="str")
    frame["run"] = frame["run"].astype(np.int64)
    frame["line"] = frame["line"].astype(np.int64)
    present = [c for c in metrics if c in frame]
    extra = sorted(set(frame) - set(columns) - set(metrics) - {"source", "line"})
    frame = frame[columns + present + extra + ["source", "line"]].reset_index(drop=True)
    frame.attrs["skipped"] = skipped
    return frame, headers

