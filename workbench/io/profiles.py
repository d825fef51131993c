"""Per-phase profiles of small runs, for the fractal model of [EscobarBoppana] (§2.1).

Both readers return the *profile frame* of :mod:`workbench.models.fractal` (one row per
phase per run: ``size``, ``phase``, ``time_s`` exclusive seconds, ``run``, optional
``total_s``), checked by :func:`workbench.validation.validate_profile`.

**Simple CSV** (:func:`read_profile_csv`)::

    size,phase,time_ms,run,total_ms
    64,stencil,120.5,0,180.2
    64,sort,40.1,0,180.2

Columns (names case-insensitive, ``,`` ``;`` or tab separated, ``#`` comment lines ignored):
``size`` (input size N > 0), ``phase`` (name), exactly one time column ``time_s``,
``time_ms`` or ``time_us`` (exclusive time of the phase in that run, >= 0; converted to
seconds), optional ``run`` (repeat index, default 0) and optional ``total_s`` /
``total_ms`` / ``total_us`` (the run's whole wall time, the same on every row of a run).
Other columns are ignored.

**TAU pprof text** (:func:`read_pprof`): the text printed by TAU's ``pprof`` (the tool
[EscobarBoppana] used, §2.1) - tables headed ``NODE n;CONTEXT c;THREAD t:`` and
``FUNCTION SUMMARY (total):`` / ``FUNCTION SUMMARY (mean):`` with the columns ``%Time``,
``Exclusive msec``, ``Inclusive total msec``, ``#Call``, ``#Subrs``, ``Inclusive
usec/call``, ``Name``. Times are milliseconds printed as ``0.593``, ``28,489``,
``1:10.733`` (m:ss.sss) or ``1:27:15.217`` (h:mm:ss.sss). Each function's *exclusive* time
becomes a phase; ``.TAU application`` is the whole program: its inclusive time becomes
``total_s`` and it is not a phase. Call-path entries (``a => b``, with ``TAU_CALLPATH``)
are skipped because they repeat the flat functions' time; the ``[THROTTLED]`` tag is
dropped from names; ``USER EVENTS`` tables are ignored. pprof output does not contain the
input size: pass ``size=``, or give a folder of saved outputs named
``profile_<size>[_<run>][.<ext>]`` (e.g. ``profile_64.txt``, ``profile_64_2.txt`` = size
64, repeat 2).
"""

from __future__ import annotations

import math
import re
import warnings
from io import BytesIO
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ParseWarning, ValidationError
from workbench.io.scaling import TIME_UNITS
from workbench.io.text import as_path, checked_text, csv_frame, decode, is_folder, read_buffer, read_file
from workbench.validation import validate_profile

__all__ = ["PPROF_FILE_PATTERN", "pprof_msec", "read_pprof", "read_profile_csv", "read_profile_files"]

#: File names of saved pprof outputs in a folder: ``profile_<size>[_<run>][.<ext>]``.
PPROF_FILE_PATTERN = re.compile(r"^profile_(?P<size>\d+(?:\.\d+)?)(?:_(?P<run>\d+))?(?:\.[A-Za-z0-9]+)?$")
#: A header line of a profile CSV, shown in messages about the file's columns.
EXAMPLE_HEADER = "size,phase,time_ms,run,total_ms"
_CSV_WHAT = "a profile CSV"
_PPROF_WHAT = "TAU pprof output"


# ----------------------------------------------------------------------------- CSV


def _unit_column(frame: pd.DataFrame, stem: str, name: str, *, required: bool) -> tuple[str | None, float]:
    """Return the one ``<stem>_<unit>`` column and its length in seconds."""
    candidates = [c for c in frame.columns if c == stem or c.startswith(stem + "_")]
    known = [c for c in candidates if c.removeprefix(stem + "_") in TIME_UNITS]
    unknown = [c for c in candidates if c not in known]
    units = ", ".join(f"{stem}_{u}" for u in TIME_UNITS if u != "µs")
    if unknown:
        raise DataFormatError(f"{name}: unknown time unit in column {unknown[0]!r}; use one of {units}")
    if len(known) > 1:
        raise ValidationError(f"{name}: several {stem} columns {known}; keep one of {units}")
    if not known:
        if required:
            raise ValidationError(
                f"{name}: missing column {stem}_s (or {stem}_ms / {stem}_us); a profile CSV needs size, phase, "
                f"{stem}_s[, run, total_s]; found columns {list(frame.columns)[:30]}; expected a header line such as "
                f"{EXAMPLE_HEADER!r}"
            )
        return None, 1.0
    return known[0], TIME_UNITS[known[0].removeprefix(stem + "_")]


def read_profile_csv(path_or_buffer) -> pd.DataFrame:
    """Read a profile CSV (see the module docstring) into the profile frame.

    Parameters
    ----------
    path_or_buffer : path-like or file-like
        A path, or a text/bytes file-like object.

    Raises
    ------
    DataFormatError
        Unreadable / non-CSV content or an unknown time unit (e.g. a ``time_min`` column).
    ValidationError
        Naming the file, the column and the line: missing columns, empty / non-numeric / NaN
        / negative times and the other checks of :func:`~workbench.validation.validate_profile`.
    """
    if isinstance(path_or_buffer, (str, PathLike)):
        name = str(path_or_buffer)
        text = read_file(path_or_buffer, what=_CSV_WHAT)
    elif hasattr(path_or_buffer, "read"):
        name = str(getattr(path_or_buffer, "name", "<buffer>"))
        text = read_buffer(path_or_buffer, name, what=_CSV_WHAT)
    else:
        raise DataFormatError("read_profile_csv: expected a CSV path or file-like object, got "
                              f"{type(path_or_buffer).__name__}")
    frame = csv_frame(text, name, example=EXAMPLE_HEADER)
    missing = [c for c in ("size", "phase") if c not in frame.columns]
    if missing:
        raise ValidationError(
            f"{name}: missing column(s) {missing}; a profile CSV needs size, phase, time_s (or time_ms / time_us)"
            f"[, run, total_s]; found columns {list(frame.columns)[:30]}; expected a header line such as "
            f"{EXAMPLE_HEADER!r}"
        )
    out = frame[[c for c in ("size", "phase", "run") if c in frame.columns]].copy()
    for stem, required in (("time", True), ("total", False)):
        column, scale = _unit_column(frame, stem, name, required=required)
        if column is None:
            continue
        values = pd.to_numeric(frame[column], errors="coerce").astype(float)
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            line = values.index[np.flatnonzero(bad.to_numpy())[0]]
            raw = frame.loc[line, column]
            what = "empty" if pd.isna(raw) else repr(raw)
            raise ValidationError(f"{name}: column {column!r} must hold finite times >= 0, got {what} on line {line}")
        out[f"{stem}_s"] = values * scale
    out = validate_profile(out, name, row_label="line").reset_index(drop=True)
    out.attrs["source"] = name
    return out


# ----------------------------------------------------------------------------- pprof

_TABLE_RE = re.compile(r"^\s*(?:(NODE \d+;\s*CONTEXT \d+;\s*THREAD \d+)|FUNCTION SUMMARY \((total|mean)\))\s*:?\s*$")
_USER_EVENTS_RE = re.compile(r"^\s*USER EVENTS")
_NUMBER = r"[-+]?\d[\d.,eE+-]*"
_TIME = r"\d[\d.,:]*"
# (the name takes the rest of the line and is stripped afterwards: a lazy name followed by
# "\s*$" took time quadratic in the length of a line of spaces)
_ROW_RE = re.compile(
    rf"^\s*(?P<pct>{_NUMBER})\s+(?P<excl>{_TIME})\s+(?P<incl>{_TIME})\s+(?P<calls>{_NUMBER})\s+"
    rf"(?P<subrs>{_NUMBER})\s+(?P<percall>{_NUMBER})\s+(?P<name>\S.*)$"
)
_MSEC_PART_RE = re.compile(r"\d+")
_MSEC_LAST_RE = re.compile(r"\d+(?:\.\d*)?")
_DECOR_RE = re.compile(r"^\s*(-{5,}|%Time|msec)")
_APPLICATION = ".TAU application"


def pprof_msec(token: str) -> float:
    """Parse a pprof time in milliseconds.

    Accepted forms: ``0.593``, ``28,489``, ``1:10.733`` (m:ss.sss) or ``1:27:15.217`` (h:mm:ss.sss).

    Anything else is a :class:`~workbench.errors.DataFormatError` (also a ``ValueError``).

    Parameters
    ----------
    token : str
        A time field of pprof output.
    """
    parts = str(token).replace(",", "").split(":")
    if (len(parts) > 3 or not all(_MSEC_PART_RE.fullmatch(p) for p in parts[:-1])
            or not _MSEC_LAST_RE.fullmatch(parts[-1])):
        raise DataFormatError(f"not a pprof time: {str(token)[:80]!r} (expected milliseconds such as 0.593, 28,489, "
                              "1:10.733 or 1:27:15.217)")
    seconds = 0.0
    for part in parts[:-1]:
        seconds = seconds * 60 + int(part)
    value = float(parts[-1]) if len(parts) == 1 else (seconds * 60 + float(parts[-1])) * 1000.0
    if not math.isfinite(value):
        raise DataFormatError(f"not a pprof time: {str(token)[:80]!r} (too large)")
    return value


def _tables(text: str, source: str) -> dict[str, list[tuple[int, str, float, float]]]:
    """``{label: [(line, name, exclusive ms, inclusive ms), ...]}`` of every table."""
    tables: dict[str, list] = {}
    current: list | None = None
    skipped: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        header = _TABLE_RE.match(line)
        if header:
            label = header.group(1) or header.group(2)
            label = re.sub(r";\s*", ";", label)
            current = tables.setdefault(label, [])
            continue
        if _USER_EVENTS_RE.match(line):
            current = None
            continue
        if current is None or not line.strip() or _DECOR_RE.match(line):
            continue
        row = _ROW_RE.match(line)
        try:
            if row is None:
                raise DataFormatError("not a table row")
            excl, incl = pprof_msec(row["excl"]), pprof_msec(row["incl"])
        except DataFormatError:
            skipped.append((number, line))
            continue
        current.append((number, row["name"].rstrip(), excl, incl))
    if skipped:  # one warning, not one per line: a file may have a million such lines
        number, line = skipped[0]
        more = f" (and {len(skipped) - 1} more such line(s))" if len(skipped) > 1 else ""
        warnings.warn(f"{source}: line {number} skipped, not a pprof table row: {line.strip()[:80]!r}{more}",
                      ParseWarning, stacklevel=3)
    return {label: rows for label, rows in tables.items() if rows}


def _select(tables: dict, table, source: str) -> str:
    labels = list(tables)
    if not labels:
        raise DataFormatError(
            f"{source}: no TAU pprof table found: expected a 'FUNCTION SUMMARY (mean):' or "
            "'NODE 0;CONTEXT 0;THREAD 0:' header followed by rows of %Time, Exclusive msec, Inclusive total msec, "
            "#Call, #Subrs, Inclusive usec/call, Name"
        )
    if table is None:
        if "mean" in tables:
            return "mean"
        if len(labels) == 1:
            return labels[0]
        raise ValidationError(f"{source}: several pprof tables {labels[:20]} and no 'FUNCTION SUMMARY (mean):' table "
                              "to use by default; choose one of these tables")
    wanted = str(table).strip()
    short = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", wanted)
    if short:  # "0.0.0" as in TAU's profile.0.0.0 file names
        wanted = "NODE {};CONTEXT {};THREAD {}".format(*short.groups())
    wanted = re.sub(r";\s*", ";", wanted.removeprefix("FUNCTION SUMMARY (").removesuffix(")"))
    if wanted not in tables:
        raise ValidationError(f"{source}: no pprof table {table!r}; the text has {labels}")
    return wanted


def _pprof_frame(text: str, source: str, size, run: int, table) -> pd.DataFrame:
    tables = _tables(text, source)
    label = _select(tables, table, source)
    rows = pd.DataFrame(tables[label], columns=["line", "name", "excl_ms", "incl_ms"])
    rows = rows[~rows["name"].str.contains(" => ", regex=False)]
    # (no "\s*" before the tag: on a name with a long run of spaces the regex would backtrack
    # in quadratic time; rstrip removes the spaces instead)
    rows["name"] = rows["name"].str.replace(r"\[THROTTLED\]$", "", regex=True).str.rstrip()
    app = rows["name"] == _APPLICATION
    phases = rows[~app].groupby("name", sort=False)["excl_ms"].sum()
    if phases.empty:
        raise DataFormatError(f"{source}: pprof table {label!r} has no function rows besides {_APPLICATION!r}")
    out = pd.DataFrame({"size": size, "phase": phases.index, "time_s": phases.to_numpy() / 1000.0, "run": run})
    if app.any():
        out["total_s"] = float(rows.loc[app, "incl_ms"].iloc[0]) / 1000.0
    out = validate_profile(out, f"{source} (table {label})")
    out.attrs.update({"source": source, "pprof_table": label})
    return out


def read_pprof(source, size=None, *, run: int = 0, table: str | None = None, name: str | None = None) -> pd.DataFrame:
    """Per-function exclusive times of TAU ``pprof`` output as a profile frame (see the module docstring).

    Parameters
    ----------
    source : str, bytes or path-like
        The text (``str`` with a newline, or ``bytes``), the path of a file holding it, or a
        folder of files named ``profile_<size>[_<run>][.<ext>]`` (sizes and repeats from the
        names; other files are ignored).  Files and bytes must be UTF-8 text within the
        limits of :mod:`workbench.io.text`.
    size : float, optional
        The input size of a single output (required then; not allowed with a folder).
    run : int, default 0
        The single output's repeat index.
    table : str, optional
        ``"mean"``, ``"total"``, ``"NODE 0;CONTEXT 0;THREAD 0"`` or ``"0.0.0"``; default: the
        mean table when present, else the only table of the text.
    name : str, optional
        What messages call a text or bytes source (e.g. an uploaded file's name); default
        ``"<pprof text>"``.

    Returns
    -------
    pandas.DataFrame
        The profile frame (the module docstring lists its columns).

    Raises
    ------
    DataFormatError
        When no pprof table is found or a file cannot be read.
    ValidationError
        For a missing ``size``, an unknown ``table`` and bad values.

    Warns
    -----
    ParseWarning
        For each line inside a table that is not a row (it is skipped), naming the line.
    """
    if isinstance(source, (bytes, bytearray)):
        name = name or "<pprof text>"
        text = decode(bytes(source), name, what=_PPROF_WHAT)
    elif isinstance(source, str) and "\n" in source:
        name = name or "<pprof text>"
        text = checked_text(source, name, what=_PPROF_WHAT)
    elif isinstance(source, (str, PathLike)):
        path = as_path(source)
        if is_folder(path):  # a DataFormatError naming the path when it does not exist
            if size is not None:
                raise ValidationError(f"{path}: the sizes of a folder's pprof outputs come from their file names "
                                      "(profile_<size>[_<run>].txt), so no size can be given as well")
            return _read_folder(path, table)
        name = str(path) if name is None else name
        text = read_file(path, what=_PPROF_WHAT, name=name)
    else:
        raise DataFormatError(f"read_pprof: expected pprof text, a file or a folder path, got {type(source).__name__}")
    if size is None:
        raise ValidationError(
            f"{name}: pprof output does not record the input size: name the file profile_<size>[_<run>].txt "
            "(e.g. profile_64.txt for size 64) and read its folder, or give the size with the text"
        )
    return _pprof_frame(text, name, size, run, table)


def _read_folder(folder: Path, table) -> pd.DataFrame:
    frames = []
    for path in sorted(folder.iterdir()):
        match = PPROF_FILE_PATTERN.match(path.name)
        if not path.is_file() or match is None:
            continue
        text = read_file(path, what=_PPROF_WHAT)
        frames.append(_pprof_frame(text, str(path), float(match["size"]), int(match["run"] or 0), table))
    if not frames:
        raise DataFormatError(f"{folder}: no pprof output files named profile_<size>[_<run>][.<ext>] (e.g. "
                              "profile_64.txt)")
    if len({"total_s" in f.columns for f in frames}) > 1:
        frames = [f.drop(columns="total_s", errors="ignore") for f in frames]
        warnings.warn(f"{folder}: some outputs lack '.TAU application': totals dropped for all", ParseWarning,
                      stacklevel=3)
    out = validate_profile(pd.concat(frames, ignore_index=True), str(folder))
    out.attrs.update({"source": str(folder), "pprof_table": frames[0].attrs["pprof_table"]})
    return out


def read_profile_files(files) -> pd.DataFrame:
    """One profile frame from ``(file name, content bytes)`` pairs, e.g. uploaded files.

    ``*.csv`` files are the profile CSV (:func:`read_profile_csv`); any other file is TAU
    ``pprof`` text (:func:`read_pprof`), whose output does not record the input size, so
    its name must say it: ``profile_<size>[_<run>][.<ext>]`` (e.g. ``profile_64.txt``,
    ``profile_64_2.txt``).  Several files are combined.  Raises a
    :class:`~workbench.errors.WorkbenchError` naming the first file that cannot be read.

    Parameters
    ----------
    files : iterable of (str, bytes)
        ``(file name, content)`` pairs.
    """
    files = [(name, bytes(content)) for name, content in files]
    frames = []
    for name, content in files:
        if name.lower().endswith(".csv"):
            buffer = BytesIO(content)
            buffer.name = name
            frames.append(read_profile_csv(buffer))
            continue
        match = PPROF_FILE_PATTERN.match(name)
        if match is None:
            raise ValidationError(f"{name}: a pprof output must be named profile_<size>[_<run>].txt (pprof does not "
                                  "record the input size), e.g. profile_64.txt; or upload a profile CSV")
        frames.append(read_pprof(content, size=float(match["size"]), run=int(match["run"] or 0), name=name))
    if not frames:
        raise ValidationError("no file uploaded")
    return validate_profile(pd.concat(frames, ignore_index=True), ", ".join(n for n, _ in files))
