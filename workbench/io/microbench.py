"""Parsers for the text output of the two standard MPI micro-benchmark suites.

:func:`read_osu` - OSU Micro-Benchmarks (OMB, ``osu_latency``, ``osu_bw``, ``osu_bcast`` ...)
    The stdout of any 5.x-7.x version, as users keep it: one file per run, several runs
    appended to one log (each ``# OSU MPI ... Test vX.Y`` title starts a new ``run``), or a
    whole terminal session with prompts and ``mpirun`` messages in between (lines before a
    title, outside tables, are ignored).  Every variant of OMB's table is understood from
    its column header (``print_header``/``print_only_header``/``print_only_header_nbc`` of
    ``c/util/osu_util*.c``):

    * point-to-point ``# Size  Latency (us)`` / ``Avg Latency(us)`` (7.5+), bandwidth
      ``Bandwidth (MB/s)`` (``osu_bw``, ``osu_bibw``), ``osu_mbw_mr``'s ``MB/s  Messages/s``
      with its ``# [ pairs: N ] [ window size: W ]`` line;
    * blocking collectives ``Avg Latency(us)`` and, with ``-f``, ``Min Latency(us)
      Max Latency(us)  Iterations``; ``osu_barrier`` has no ``Size`` column;
    * non-blocking collectives ``Overall(us)  Compute(us)  Pure Comm.(us)  Overlap(%)`` and,
      with ``-f``, ``Coll. Init(us)  MPI_Test(us)  MPI_Wait(us)`` (and in 7.x ``Min Comm.(us)
      Max Comm.(us)``); ``osu_ibarrier`` prints its header without ``#``;
    * 7.x extras: the ``# Datatype: MPI_CHAR.`` line (before or after the header), the
      ``Validation`` column (``Pass``/``Fail``, with ``-c``), the percentile columns ``P50 Tail
      Lat(us)`` / ``P99 Tail BW(MB/s)`` of the tail-latency option (in the 7.4 sources; no
      real output seen, the test uses a file laid out from those ``printf`` formats) and
      ``Transmit Size`` (derived datatypes).

:func:`read_imb` - Intel MPI Benchmarks (``IMB-MPI1``; also IMB-EXT/-NBC/-RMA tables)
    One block per ``# Benchmarking <name>`` with ``# #processes = N``, optionally
    ``# ( N additional processes waiting in MPI_Barrier)``, ``-multi`` blocks
    (``# Benchmarking Multi-<name>``, ``# ( G groups of P processes each running
    simultaneous )``), ``MODE: AGGREGATE``/``NON-AGGREGATE`` (IMB-EXT/-RMA), and the table
    ``#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec] Mbytes/sec`` in its variants:
    ``t[usec]`` (PingPong, PingPing), no ``Mbytes/sec`` (collectives), no ``#bytes``
    (Barrier), ``Mbytes/sec Msg/sec`` (Uniband, Biband), ``defects`` (builds with ``-check``),
    ``t_ovrl t_pure t_CPU overlap[%]`` (IMB-NBC).  The banner (``Intel(R) MPI Benchmarks
    2021.7, MPI-1 part``, ``# Date``, ``# Machine``, ``# MPI Version``, the calling sequence,
    ``# List of Benchmarks to run:``) goes to ``frame.attrs["headers"]``; each banner starts
    a new ``run``.  The ``[ 1.91, 21.93, ... ]`` tail-latency lines of the ``-show_tail``
    fork of IMB (PerfKitBenchmarker) are skipped.

Both readers take a file or a folder (every non-hidden file in it; files that are not
output of that suite are skipped with a :class:`~workbench.errors.ParseWarning` and listed
in ``frame.attrs["skipped"]``) and return one row per table row: per file, run, table
(benchmark, process count) and message size.  ``source`` and ``line`` say where each row
came from.

Bad input raises :class:`~workbench.errors.DataFormatError` naming the file and line: a
missing file, an empty file, text that is not that suite's output, a table row with the
wrong number of fields, a data row before any column header, non-numeric or negative
values, a folder without any output of the suite.  A run cut short (a job killed in the
middle of a table) keeps its complete rows and warns with a ParseWarning naming the line
of the incomplete last row (IMB also warns when a run has no ``All processes entering
MPI_Finalize`` line).

:func:`imb_exchange_table` turns IMB ``Exchange`` rows into the layout of Table 6.1 of
Branikas ([Branikas2024], ``data/seed-tables/exchange_benchmark_table6_1.csv``), the input
of the semi-empirical Exchange model (§6.1-6.2).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ParseWarning, ValidationError
from workbench.io.text import as_path, is_folder, read_file

__all__ = [
    "OSU_COLUMNS",
    "OSU_METRICS",
    "IMB_COLUMNS",
    "IMB_METRICS",
    "EXCHANGE_TABLE_COLUMNS",
    "read_osu",
    "read_imb",
    "imb_exchange_table",
]

# Output of these suites is a few kB (a terminal log of many runs, a few MB); anything far
# larger is not such a file.
MAX_FILE_BYTES = 16 * 2**20
# Title, banner and metadata lines are under 200 characters.  Longer lines are not matched
# against their patterns, some of which take time quadratic in the length of a line built
# to defeat them (e.g. "# OSU" followed by a megabyte of spaces).
_MAX_META_CHARS = 1000
# Runs and tables per file (a real log has a few hundred), and warnings given one by one
# per file: each run costs ~1 kB, and warnings are kept by the warnings registry.
_MAX_TABLES = 100_000
_MAX_WARNINGS = 5

#: Leading columns of :func:`read_osu` (metric columns follow, then ``source``, ``line``).
OSU_COLUMNS = ["benchmark", "title", "version", "run", "datatype", "processes", "size_bytes"]
#: OSU metric columns in the order they appear in the frame (only those present are kept);
#: ``p<N>_us`` / ``p<N>_bandwidth_mb_s`` (percentiles) follow ``max_comm_us``.
OSU_METRICS = [
    "latency_us",  # "Latency (us)" (pt2pt <= 7.4), "Avg Latency(us)"
    "min_us",  # "Min Latency(us)" (-f)
    "max_us",  # "Max Latency(us)" (-f)
    "iterations",  # "Iterations" (-f)
    "bandwidth_mb_s",  # "Bandwidth (MB/s)", osu_mbw_mr's aggregate "MB/s"
    "messages_per_s",  # "Messages/s" (osu_mbw_mr)
    "overall_us",  # "Overall(us)" non-blocking collectives
    "compute_us",  # "Compute(us)"
    "init_us",  # "Coll. Init(us)" / "Init(us)" (-f)
    "test_us",  # "MPI_Test(us)" (-f)
    "wait_us",  # "MPI_Wait(us)" (-f)
    "pure_comm_us",  # "Pure Comm.(us)"
    "min_comm_us",  # "Min Comm.(us)" (7.x -f)
    "max_comm_us",  # "Max Comm.(us)" (7.x -f)
    "overlap_pct",  # "Overlap(%)"
    "validation",  # "Validation": "Pass"/"Fail" (-c)
    "transmit_bytes",  # "Transmit Size" (derived datatypes)
]
#: Leading columns of :func:`read_imb` (metric columns follow, then ``source``, ``line``).
IMB_COLUMNS = ["benchmark", "version", "run", "processes", "multi", "groups", "waiting", "mode", "size_bytes"]
#: IMB metric columns in frame order (only those present are kept).
IMB_METRICS = [
    "repetitions",  # "#repetitions"
    "t_min_us",  # "t_min[usec]"
    "t_max_us",  # "t_max[usec]"
    "t_avg_us",  # "t_avg[usec]", and the single "t[usec]" of PingPong/PingPing/Uniband...
    "mbytes_per_s",  # "Mbytes/sec"
    "messages_per_s",  # "Msg/sec" (Uniband, Biband)
    "t_ovrl_us",  # IMB-NBC "t_ovrl[usec]"
    "t_pure_us",  # IMB-NBC "t_pure[usec]"
    "t_cpu_us",  # IMB-NBC "t_CPU[usec]"
    "overlap_pct",  # IMB-NBC "overlap[%]"
    "defects",  # builds with -DCHECK
]
#: Columns of :func:`imb_exchange_table` (the first four are Table 6.1's).
EXCHANGE_TABLE_COLUMNS = [
    "message_size_bytes",
    "processes_per_node",
    "nodes",
    "avg_comm_time_us",
    "processes",
    "source",
    "line",
]

# Columns holding whole numbers (Int64) and text; every other metric is float64.
_WHOLE = {"size_bytes", "iterations", "transmit_bytes", "repetitions", "defects"}
_TEXT = {"validation"}

# OMB column titles, lower-cased without blanks -> frame column.
_OSU_NAMES = {
    "size": "size_bytes",
    "latency(us)": "latency_us",
    "avglatency(us)": "latency_us",
    "minlatency(us)": "min_us",
    "maxlatency(us)": "max_us",
    "iterations": "iterations",
    "bandwidth(mb/s)": "bandwidth_mb_s",
    "mb/s": "bandwidth_mb_s",
    "messages/s": "messages_per_s",
    "overall(us)": "overall_us",
    "compute(us)": "compute_us",
    "coll.init(us)": "init_us",
    "init(us)": "init_us",
    "mpi_test(us)": "test_us",
    "mpi_wait(us)": "wait_us",
    "purecomm.(us)": "pure_comm_us",
    "mincomm.(us)": "min_comm_us",
    "maxcomm.(us)": "max_comm_us",
    "overlap(%)": "overlap_pct",
    "validation": "validation",
    "transmitsize": "transmit_bytes",
}
# A header line starts with one of these (the first column OMB prints).
_OSU_FIRST = {"size", "latency(us)", "avglatency(us)", "bandwidth(mb/s)", "mb/s", "overall(us)"}
_OSU_PERCENTILE = re.compile(r"p(\d+)tail(lat\(us\)|bw\(mb/s\))")

_IMB_NAMES = {
    "#bytes": "size_bytes",
    "#repetitions": "repetitions",
    "t[usec]": "t_avg_us",
    "t_min[usec]": "t_min_us",
    "t_max[usec]": "t_max_us",
    "t_avg[usec]": "t_avg_us",
    "mbytes/sec": "mbytes_per_s",
    "msg/sec": "messages_per_s",
    "t_ovrl[usec]": "t_ovrl_us",
    "t_pure[usec]": "t_pure_us",
    "t_cpu[usec]": "t_cpu_us",
    "overlap[%]": "overlap_pct",
    "defects": "defects",
}

# "# OSU MPI Latency Test v7.3", "# OSU MPI-CUDA Bi-Directional Bandwidth Test v7.5",
# "# OSU MPI_Put Latency Test v5.7", "# OSU MPI Non-Blocking Broadcast Latency Test"
_OSU_TITLE = re.compile(
    r"^#\s*OSU\s+(?:MPI(?P<accel>-[A-Z]+(?:\s+MANAGED)?)?)?\s*(?P<desc>.+?)\s+Test\b(?:\s+v(?P<version>\S+))?\s*$",
    re.IGNORECASE,
)
_OSU_DATATYPE = re.compile(r"^#\s*Datatype:\s*(\S+?)\.?\s*$")
_OSU_PAIRS = re.compile(r"\[\s*pairs:\s*(\d{1,9})\s*\]")  # (counts of 10 digits and more are corrupt)
# Benchmarks that run on exactly two processes (OMB refuses any other count).
_OSU_TWO_PROCESSES = {
    "osu_latency", "osu_bw", "osu_bibw", "osu_latency_mt", "osu_latency_mp", "osu_latency_persistent",
    "osu_bw_persistent", "osu_bibw_persistent", "osu_put_latency", "osu_get_latency", "osu_put_bw",
    "osu_get_bw", "osu_put_bibw", "osu_acc_latency", "osu_get_acc_latency", "osu_fop_latency",
    "osu_cas_latency",
}  # fmt: skip
# Title text (after "OSU MPI", before "Test", lower case) -> executable, where the
# general rule in _osu_benchmark does not give it.
_OSU_TITLES = {
    "latency": "osu_latency",
    "bandwidth": "osu_bw",
    "bi-directional bandwidth": "osu_bibw",
    "multiple bandwidth / message rate": "osu_mbw_mr",
    "multi latency": "osu_multi_lat",
    "multi-threaded latency": "osu_latency_mt",
    "multi-process latency": "osu_latency_mp",
    "_put latency": "osu_put_latency",
    "_get latency": "osu_get_latency",
    "_put bandwidth": "osu_put_bw",
    "_get bandwidth": "osu_get_bw",
    "_put bi-directional bandwidth": "osu_put_bibw",
    "_accumulate latency": "osu_acc_latency",
    "_get_accumulate latency": "osu_get_acc_latency",
    "_fetch_and_op latency": "osu_fop_latency",
    "_compare_and_swap latency": "osu_cas_latency",
}
_OSU_COLLECTIVES = {
    "broadcast": "bcast",
    "all-to-all": "alltoall",
    "all-to-all personalized exchange": "alltoall",
    "alltoallv personalized exchange": "alltoallv",
    "alltoallw personalized exchange": "alltoallw",
}

_IMB_BANNER = re.compile(r"Intel\s*\(R\)\s*MPI\s+Benchmarks\s+(?P<version>.+?),\s*(?P<part>\S+)\s+part", re.I)
_IMB_BLOCK = re.compile(r"^#\s*Benchmarking\s+(?P<multi>Multi-)?(?P<name>\S+)\s*$")
_IMB_PROCESSES = re.compile(r"^#\s*#processes\s*=\s*(\d{1,9})(?!\d)")
_IMB_GROUPS = re.compile(r"\(\s*(\d{1,9})\s+groups?\s+of\s+(\d{1,9})\s+process")
_IMB_WAITING = re.compile(r"\(\s*(\d{1,9})\s+additional\s+process(?:es)?\s+waiting")
_IMB_MODE = re.compile(r"^#\s*MODE:\s*(\S+)")
_IMB_FINALIZE = re.compile(r"All processes entering MPI_Finalize")
_IMB_META = {
    "date": "date",
    "machine": "machine",
    "system": "system",
    "release": "release",
    "version": "os_version",
    "mpi version": "mpi_version",
    "mpi thread environment": "mpi_thread_environment",
    "minimum message length in bytes": "min_message_bytes",
    "maximum message length in bytes": "max_message_bytes",
    "mpi_datatype": "datatype",
    "mpi_datatype for reductions": "reduction_datatype",
    "mpi_op": "reduction_op",
}


class _UnknownFormat(DataFormatError):
    """The text is not output of the suite asked for (or is empty): a folder skips it."""


@dataclass
class _Table:
    """One table of a file: its context, column names and raw cells with line numbers."""

    meta: dict
    columns: list[str]
    header_line: int
    lines: list[int] = field(default_factory=list)
    cells: list[list[str]] = field(default_factory=list)


# ----------------------------------------------------------------------------- shared helpers

def _read_text(path: Path) -> str:
    # legacy: logs of old machines may hold any 8-bit text; the tables are ASCII
    text = read_file(path, what="benchmark text output", max_bytes=MAX_FILE_BYTES, legacy=True, unknown=_UnknownFormat)
    if not text.strip():
        raise _UnknownFormat(f"{path}: empty file")
    return text


def _number(token: str) -> bool:
    try:
        return math.isfinite(float(token))
    except ValueError:
        return False


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _check_row(table: _Table, fields: list[str], number: int, text: str, lines: list[str],
               path: Path, what: str, notes: list[str]) -> bool:
    """Return True if the row fits the header.

    A row with too few fields is a run cut short (a note for :func:`_warn_notes`, the row
    dropped) when no further data row follows it; anything else is an error.
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


def _warn_notes(notes: list[str], path: Path) -> None:
    """Warn the first few notes one by one and the rest in one line.

    A file made of a million empty tables must not give a million warnings.
    """
    for note in notes[:_MAX_WARNINGS]:
        warnings.warn(note, ParseWarning, stacklevel=4)
    if len(notes) > _MAX_WARNINGS:
        warnings.warn(f"{path}: {len(notes) - _MAX_WARNINGS:,} more warning(s) like the ones above", ParseWarning,
                      stacklevel=4)


def _check_count(count: int, path: Path, number: int) -> None:
    """Raise a DataFormatError when a file has more runs, blocks or tables than :data:`_MAX_TABLES`."""
    if count >= _MAX_TABLES:
        raise DataFormatError(f"{path}, line {number}: more than {_MAX_TABLES:,} runs or tables in one file; "
                              "split it into smaller files")


def _data_row_follows(lines: list[str], number: int) -> bool:
    """Whether the next non-blank line after line ``number`` (1-based) starts with a number."""
    for line in lines[number:]:
        if line.strip():
            return _number(line.split()[0])
    return False


def _warn_ignored(ignored: list[tuple[int, str]], path: Path) -> None:
    if ignored:
        number, text = ignored[0]
        warnings.warn(
            f"{path}: ignored {len(ignored)} line(s) inside tables that are not table rows "
            f"(first: line {number}: {text[:80]!r})",
            ParseWarning,
            stacklevel=4,
        )


def _table_frame(table: _Table, path: Path) -> pd.DataFrame:
    """Return the table's cells as typed columns (vectorised per column), with its context."""
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


def _collect(path: str | PathLike, parse: Callable[[Path], tuple[list[pd.DataFrame], list[dict]]], suite: str,
             columns: list[str], metrics: list[str], *, text: tuple[str, ...], whole: tuple[str, ...]
             ) -> tuple[pd.DataFrame, list[dict]]:
    """Parse a file, or every non-hidden file of a folder, into one frame (+ the parsers' headers)."""
    path = as_path(path)
    frames: list[pd.DataFrame] = []
    headers: list[dict] = []
    skipped: list[str] = []
    if is_folder(path):  # a DataFormatError naming the path when it does not exist
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        for file in files:
            try:
                found, found_headers = parse(file)
            except _UnknownFormat as exc:
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


# ----------------------------------------------------------------------------- OSU

def _osu_benchmark(description: str) -> str:
    """Return the executable name (``osu_bcast``) from the title text (``Broadcast Latency``)."""
    text = " ".join(description.lower().split())
    if text in _OSU_TITLES:
        return _OSU_TITLES[text]
    prefix = ""
    if text.startswith("non-blocking "):  # osu_ibcast, osu_ialltoall ...
        prefix, text = "i", text[len("non-blocking "):]
    suffix = ""
    if text.endswith(" persistent latency"):
        suffix, text = "_persistent", text[: -len(" persistent latency")]
    elif text.endswith(" latency"):
        text = text[: -len(" latency")]
    name = _OSU_COLLECTIVES.get(text, _slug(text))
    return f"osu_{prefix}{name}{suffix}"


def _osu_header(text: str) -> list[str] | None:
    """Frame column names if ``text`` (without the leading ``#``) is an OMB column header."""
    names = [n for n in re.split(r"\s{2,}", text.strip()) if n]
    if not names or "".join(names[0].lower().split()) not in _OSU_FIRST:
        return None
    columns = []
    for name in names:
        key = "".join(name.lower().split())
        percentile = _OSU_PERCENTILE.fullmatch(key)
        if key in _OSU_NAMES:
            columns.append(_OSU_NAMES[key])
        elif percentile:
            unit = "us" if percentile[2].startswith("lat") else "bandwidth_mb_s"
            columns.append(f"p{percentile[1]}_{unit}")
        else:  # a column of a newer OMB: keep it under a readable name
            columns.append(_slug(name.replace("(us)", " us").replace("(%)", " pct").replace("/s", " per s")))
    if len(set(columns)) != len(columns):
        return None
    return columns


def _parse_osu(path: Path, processes) -> tuple[list[pd.DataFrame], list[dict]]:
    text = _read_text(path)
    lines = text.split("\n")
    tables: list[_Table] = []
    runs: list[dict] = []
    run: dict | None = None
    table: _Table | None = None
    # Other text between rows of one table (stderr interleaved with stdout) is reported;
    # text after a table's last row (prompts, the next command) is not.
    ignored: list[tuple[int, str]] = []
    pending: list[tuple[int, str]] = []
    notes: list[str] = []  # warnings, given at the end by _warn_notes

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        title = _OSU_TITLE.match(stripped) if len(stripped) <= _MAX_META_CHARS else None
        if title:
            run = _osu_run(title, stripped, len(runs) + 1, number)
            _check_count(len(runs), path, number)
            runs.append(run)
            table = None
            pending.clear()
            continue
        if run is None:  # prompts, module loads, mpirun banners before the first title
            continue
        if stripped.startswith("#"):
            body = stripped[1:].strip()
            datatype = _OSU_DATATYPE.match(stripped)
            if datatype:
                run["datatype"] = datatype[1]
                if table is not None:  # 7.0-7.2 print it after the header
                    table.meta["datatype"] = datatype[1]
                continue
            pairs = _OSU_PAIRS.search(body)
            if pairs:
                run["processes"] = 2 * int(pairs[1])
                continue
            columns = _osu_header(body)
            if columns:
                table = _add_osu_table(tables, run, columns, number, path)
                pending.clear()
            continue
        fields = stripped.split()
        if not _number(fields[0]):
            columns = _osu_header(stripped)  # osu_ibarrier prints its header without '#'
            if columns:
                table = _add_osu_table(tables, run, columns, number, path)
                pending.clear()
            elif table is not None:
                pending.append((number, stripped))
            continue
        if table is None:
            raise DataFormatError(
                f"{path}, line {number}: a data row before any column header ('# Size ...') "
                f"of {run['title']!r} (line {run['line']})"
            )
        if _check_row(table, fields, number, stripped, lines, path, repr(run["title"]), notes):
            table.lines.append(number)
            table.cells.append(fields)
            run["rows"] += 1
            ignored += pending
            pending.clear()

    if not runs:
        hint = " (this looks like Intel MPI Benchmarks output: use read_imb)" if re.search(
            r"^[ \t]*#[ \t]*Benchmarking\s", text, re.M) else ""
        raise _UnknownFormat(f"{path}: not OSU Micro-Benchmarks output: no '# OSU MPI ... Test' title line{hint}")
    _warn_ignored(ignored, path)
    notes += [f"{path}, line {run['line']}: run {run['run']} ({run['title']!r}) has no data rows"
              for run in runs if not run["rows"]]
    _warn_notes(notes, path)
    given = _file_processes(processes, path)
    for t in tables:
        if t.meta["processes"] is None:
            t.meta["processes"] = given
    return [_table_frame(t, path) for t in tables if t.cells], []


def _osu_run(title: re.Match, stripped: str, run: int, number: int) -> dict:
    """Return the metadata of the run whose title line (number ``number``) matched ``title``."""
    benchmark = _osu_benchmark(title["desc"])
    return {
        "benchmark": benchmark,
        "title": stripped.lstrip("#").strip(),
        "version": title["version"],
        "run": run,
        "datatype": None,
        "processes": 2 if benchmark in _OSU_TWO_PROCESSES else None,
        "line": number,
        "rows": 0,
    }


def _file_processes(processes, path: Path):
    """Return the process count of the tables of ``path`` that do not state it (``read_osu``'s ``processes``)."""
    given = processes
    if callable(processes):
        try:
            given = processes(path.name)
        except Exception as exc:  # a user's function: report it against the file, not as a traceback
            raise ValidationError(f"processes({path.name!r}) failed: {type(exc).__name__}: {exc}") from None
    if given is not None and not _whole_positive(given):
        raise ValidationError(f"processes for {path.name} must be a whole number >= 1, got {given!r}")
    return given


def _whole_positive(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1


def _osu_table(run: dict, columns: list[str], number: int) -> _Table:
    meta = {k: run[k] for k in ("benchmark", "title", "version", "run", "datatype", "processes")}
    return _Table(meta=meta, columns=columns, header_line=number)


def _add_osu_table(tables: list[_Table], run: dict, columns: list[str], number: int, path: Path) -> _Table:
    """Append the table whose header is on line ``number`` to ``tables`` and return it."""
    table = _osu_table(run, columns, number)
    _check_count(len(tables), path, number)
    tables.append(table)
    return table


def read_osu(path: str | PathLike, *, processes: int | Callable[[str], int | None] | None = None
             ) -> pd.DataFrame:
    r"""Read OSU Micro-Benchmarks stdout (a file, or every file of a folder) into a tidy frame.

    ``path`` holds the text OMB prints (5.x-7.x; see the module docstring for the table
    variants).  OMB states the process count only for ``osu_mbw_mr`` (``pairs``) and the
    two-process point-to-point and one-sided tests; for the others (collectives,
    ``osu_multi_lat``) pass ``processes``: an int for every file, or a function of the file
    name returning an int or None, e.g. ``lambda name: int(re.search(r"np(\d+)",
    name)[1])`` or ``{"bcast_64.txt": 64}.get``.  It only fills tables whose output does
    not state the count.

    Returns one row per table row, in file, then line order:

    ==================  =======  ==============================================================
    column              dtype    meaning
    ==================  =======  ==============================================================
    ``benchmark``       str      executable name from the title: ``osu_latency``, ``osu_bw``,
                                 ``osu_bcast``, ``osu_ialltoall`` ... (a title OMB may add later
                                 gives ``osu_`` + its words)
    ``title``           str      the title line (``OSU MPI Latency Test v7.3``)
    ``version``         str      OMB version (``7.3``), <NA> when the title has none
    ``run``             int64    1, 2, ... per file: each title line starts a run
    ``datatype``        str      ``MPI_CHAR``, ``MPI_INT``... from ``# Datatype:`` (7.x), <NA>
                                 before 7.0
    ``processes``       Int64    MPI processes: 2 for point-to-point/one-sided tests,
                                 2 x pairs for ``osu_mbw_mr``, else ``processes`` or <NA>
    ``size_bytes``      Int64    message size; 0 for tables without a Size column (barriers)
    metric columns      float64  those of :data:`OSU_METRICS` present in the input (units in
                                 the name: ``_us`` microseconds, ``_mb_s`` MB/s = 10^6 B/s,
                                 ``_pct`` percent, ``p50_us`` = 50th percentile latency);
                                 ``iterations``, ``transmit_bytes`` Int64, ``validation`` str
    ``source``          str      file name
    ``line``            int64    line number of the row in the file (first line = 1)
    ==================  =======  ==============================================================

    ``frame.attrs["skipped"]`` lists the files of a folder that are not OMB output.

    Raises
    ------
    DataFormatError
        naming the file (and line): see the module docstring.
    ValidationError
        ``processes`` (or what the function returns) is not a whole number >= 1.
    """
    if processes is not None and not callable(processes) and not _whole_positive(processes):
        raise ValidationError(
            f"processes must be a whole number >= 1 or a function of the file name, got {processes!r}"
        )
    frame, _ = _collect(path, lambda p: _parse_osu(p, processes), "OSU Micro-Benchmarks", OSU_COLUMNS,
                        OSU_METRICS, text=("benchmark", "title", "version", "datatype"), whole=("processes",))
    return frame


# ----------------------------------------------------------------------------- IMB

def _imb_header(stripped: str) -> list[str]:
    columns = []
    for token in stripped.split():
        key = token.lower()
        columns.append(_IMB_NAMES.get(key) or _slug(key.replace("[usec]", " us").replace("[%]", " pct")
                                                   .replace("/sec", " per s")))
    return columns


def _parse_imb(path: Path) -> tuple[list[pd.DataFrame], list[dict]]:
    text = _read_text(path)
    lines = text.split("\n")
    tables: list[_Table] = []
    headers: list[dict] = []
    run: dict | None = None  # the banner's metadata
    block: dict | None = None
    table: _Table | None = None
    ignored: list[tuple[int, str]] = []  # as in _parse_osu
    pending: list[tuple[int, str]] = []
    notes: list[str] = []  # warnings, given at the end by _warn_notes
    expect_calling = expect_list = False
    blocks = 0

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        banner = _IMB_BANNER.search(stripped) if len(stripped) <= _MAX_META_CHARS else None
        if banner and stripped.startswith("#"):
            _check_count(len(headers), path, number)
            run = {"source": path.name, "run": len(headers) + 1, "line": number,
                   "version": banner["version"].strip(), "part": banner["part"], "finalized": False}
            headers.append(run)
            block = table = None
            continue
        if _IMB_FINALIZE.search(stripped):
            if run is not None:
                run["finalized"] = True
            block = table = None
            continue
        match = _IMB_BLOCK.match(stripped)
        if match:
            _check_count(blocks, path, number)
            blocks += 1
            block = _imb_block(match, run, number)
            table = None
            pending.clear()
            expect_calling = expect_list = False
            continue
        if stripped.startswith(("#bytes", "#repetitions")):
            if block is None:
                raise DataFormatError(f"{path}, line {number}: a table header before any '# Benchmarking' line")
            table = _Table(meta={k: block[k] for k in IMB_COLUMNS if k in block},
                           columns=_imb_header(stripped), header_line=number)
            _check_count(len(tables), path, number)
            tables.append(table)
            pending.clear()
            continue
        if stripped.startswith("#"):
            if block is not None:
                _imb_block_comment(block, stripped)
            elif run is not None:
                expect_calling, expect_list = _imb_banner_line(run, stripped[1:].strip(), expect_calling, expect_list)
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            continue  # tail latencies of the -show_tail fork
        fields = stripped.split()
        if not _number(fields[0]):
            if table is not None:
                pending.append((number, stripped))
            continue
        if table is None:
            if block is None:
                continue  # numbers in text before any benchmark block (e.g. a shell transcript)
            raise DataFormatError(
                f"{path}, line {number}: a data row before the column header ('#bytes #repetitions ...') "
                f"of the '{block['benchmark']}' block (line {block['line']})"
            )
        if _check_row(table, fields, number, stripped, lines, path, f"'{block['benchmark']}'", notes):
            table.lines.append(number)
            table.cells.append(fields)
            ignored += pending
        pending.clear()

    if not blocks:
        raise _not_imb(path, text)
    _warn_ignored(ignored, path)
    _warn_notes(notes + _imb_notes(path, headers, tables), path)
    return [_table_frame(t, path) for t in tables if t.cells], headers


def _not_imb(path: Path, text: str) -> _UnknownFormat:
    """Return the error of a file without any IMB benchmark block (pointing to read_osu for OMB output)."""
    hint = " (this looks like OSU Micro-Benchmarks output: use read_osu)" if re.search(
        r"^[ \t]*#[ \t]*OSU\b", text, re.M) else ""
    return _UnknownFormat(f"{path}: not Intel MPI Benchmarks output: no '# Benchmarking <name>' line{hint}")


def _imb_block(match: re.Match, run: dict | None, number: int) -> dict:
    """Return the metadata of the benchmark block whose ``# Benchmarking`` line (number ``number``) matched."""
    return {
        "benchmark": match["name"],
        "version": run["version"] if run else None,
        "run": run["run"] if run else 1,
        "processes": None,
        "multi": bool(match["multi"]),
        "groups": 1,
        "waiting": 0,
        "mode": None,
        "line": number,
    }


def _imb_block_comment(block: dict, stripped: str) -> None:
    """Record a ``#`` line of a benchmark block (processes, waiting, groups, mode) in ``block``."""
    for regex, key in ((_IMB_PROCESSES, "processes"), (_IMB_WAITING, "waiting")):
        found = regex.search(stripped)
        if found:
            block[key] = int(found[1])
    groups = _IMB_GROUPS.search(stripped)
    if groups:
        block["groups"], block["processes"] = int(groups[1]), int(groups[2])
    mode = _IMB_MODE.match(stripped)
    if mode:
        block["mode"] = mode[1].lower()


def _imb_banner_line(run: dict, body: str, expect_calling: bool, expect_list: bool) -> tuple[bool, bool]:
    """Record a ``#`` line of the banner in ``run``; return the new (expect_calling, expect_list)."""
    _imb_metadata(run, body, expect_calling, expect_list)
    if body.lower().startswith("calling sequence"):
        expect_calling = True
    elif expect_calling and body:
        expect_calling = False
    if body.lower().startswith("list of benchmarks"):
        expect_list = True
        run["benchmarks"] = []
    elif expect_list and body.startswith("-"):
        expect_list = False
    return expect_calling, expect_list


def _imb_notes(path: Path, headers: list[dict], tables: list[_Table]) -> list[str]:
    """Warnings of runs cut short and of tables without rows (pops each header's ``finalized``)."""
    notes = [f"{path}: run {header['run']} (banner on line {header['line']}) has no 'All processes entering "
             "MPI_Finalize' line: the run was cut short, later results are missing"
             for header in headers if not header.pop("finalized")]
    return notes + [f"{path}, line {t.header_line}: the '{t.meta['benchmark']}' table has no data rows"
                    for t in tables if not t.cells]


def _imb_metadata(run: dict, body: str, expect_calling: bool, expect_list: bool) -> None:
    """Record one banner line (``Date : ...``) of the IMB header in ``run``."""
    if expect_calling and body:
        run["calling_sequence"] = body
        return
    if expect_list and body and not body.startswith("-"):
        run.setdefault("benchmarks", []).append(body)
        return
    if ":" in body:
        key, value = body.split(":", 1)
        key = " ".join(key.lower().split())
        if key in _IMB_META:
            value = value.strip()
            run[_IMB_META[key]] = int(value) if value.isdecimal() and len(value) < 19 else value


def read_imb(path: str | PathLike) -> pd.DataFrame:
    """Read Intel MPI Benchmarks output (a file, or every file of a folder) into a tidy frame.

    ``path`` holds the text ``IMB-MPI1`` (or IMB-EXT/-NBC/-RMA) prints; see the module
    docstring for the table variants understood.  Returns one row per table row, in file,
    then line order:

    ==================  =======  ==============================================================
    column              dtype    meaning
    ==================  =======  ==============================================================
    ``benchmark``       str      ``PingPong``, ``Exchange``, ``Allreduce``, ``Barrier`` ...
                                 (``Multi-`` removed, see ``multi``)
    ``version``         str      IMB version from the banner (``2021.7``, ``2019 Update 6``),
                                 <NA> for an excerpt without banner
    ``run``             int64    1, 2, ... per file: each banner starts a run
    ``processes``       Int64    processes running the benchmark (``#processes = N``; with
                                 ``-multi``, the processes of one group); <NA> if not stated
    ``multi``           bool     a ``-multi`` block (``# Benchmarking Multi-<name>``)
    ``groups``          Int64    groups running simultaneously (``-multi``), else 1
    ``waiting``         Int64    further processes idle in MPI_Barrier meanwhile (0 if none)
    ``mode``            str      ``aggregate``/``non-aggregate`` (IMB-EXT/-RMA), else <NA>
    ``size_bytes``      Int64    message size ``#bytes``; 0 for tables without it (Barrier)
    metric columns      float64  those of :data:`IMB_METRICS` present (``_us`` microseconds,
                                 ``mbytes_per_s`` IMB's Mbytes/sec = 2^20 B/s,
                                 ``messages_per_s`` Msg/sec); ``repetitions``, ``defects``
                                 Int64.  The single ``t[usec]`` of PingPong, PingPing,
                                 Unidir/Bidir... (the average over repetitions, IMB prints
                                 t_min = t_max = t_avg for it under ``-multi``) is ``t_avg_us``
    ``source``          str      file name
    ``line``            int64    line number of the row in the file (first line = 1)
    ==================  =======  ==============================================================

    ``frame.attrs["headers"]`` is a list with one dict per banner: ``source``, ``run``,
    ``line``, ``version``, ``part`` (``MPI-1``), ``date``, ``machine``, ``system``,
    ``release``, ``os_version``, ``mpi_version``, ``mpi_thread_environment``,
    ``calling_sequence``, ``min_message_bytes``, ``max_message_bytes``, ``datatype``,
    ``reduction_datatype``, ``reduction_op``, ``benchmarks`` (the list to run), each when
    present.  ``frame.attrs["skipped"]`` lists the files of a folder that are not IMB output.

    Raises
    ------
    DataFormatError
        naming the file (and line): see the module docstring.
    """
    frame, headers = _collect(path, _parse_imb, "Intel MPI Benchmarks", IMB_COLUMNS, IMB_METRICS,
                              text=("benchmark", "version", "mode"), whole=("processes", "groups", "waiting"))
    frame["multi"] = frame["multi"].astype(bool)
    frame.attrs["headers"] = headers
    return frame


# ----------------------------------------------------------------------------- Exchange -> Table 6.1

def imb_exchange_table(frame: pd.DataFrame, ppn: int | Mapping[str, int], *, benchmark: str = "Exchange"
                       ) -> pd.DataFrame:
    """IMB ``Exchange`` rows of :func:`read_imb` in the layout of Table 6.1 ([Branikas2024]).

    Branikas (2024), §6.1: the Exchange benchmark's average time Δt per message size and
    processes per node (PpN) on a fixed node count is the data of the semi-empirical
    model ``Communication Time(PpN, S) = PpN * Base Case(S)`` (§6.2).  IMB does not know
    the placement, so ``ppn`` (processes per node of the run; an int for all rows, or a
    mapping from file name - the ``source`` column - to its PpN) is required;
    ``nodes = processes / ppn``.

    Returns the columns :data:`EXCHANGE_TABLE_COLUMNS`: ``message_size_bytes``,
    ``processes_per_node``, ``nodes`` (Int64), ``avg_comm_time_us`` (IMB's ``t_avg``,
    µs), ``processes``, ``source``, ``line``; one row per table row (repeated
    configurations are kept, not averaged), sorted by size, PpN, nodes.  ``-multi`` blocks
    are left out (their time is per group, not for the whole job).

    Raises
    ------
    ValidationError
        the frame lacks the columns of :func:`read_imb`, holds no ``benchmark`` rows,
        a row's process count is unknown, ``ppn`` is not a whole number >= 1 (or a file
        is missing from the mapping), or ``processes`` is not a multiple of ``ppn``.
    """
    needed = {"benchmark", "multi", "processes", "size_bytes", "t_avg_us", "source", "line"}
    missing = sorted(needed - set(frame.columns))
    if missing:
        raise ValidationError(f"missing column(s) {missing}: pass the frame returned by read_imb")
    rows = frame[(frame["benchmark"] == benchmark) & ~frame["multi"].astype(bool)]
    if rows.empty:
        found = sorted(frame["benchmark"].dropna().unique().tolist())
        raise ValidationError(f"no {benchmark!r} rows (without -multi) in the frame; benchmarks present: {found}")
    if rows["processes"].isna().any():
        line = rows.loc[rows["processes"].isna(), ["source", "line"]].iloc[0]
        raise ValidationError(
            f"{line['source']}, line {line['line']}: the process count of this {benchmark} table is unknown "
            "(no '#processes = N' line)"
        )
    if isinstance(ppn, Mapping):
        unknown = sorted(set(rows["source"]) - set(ppn))
        if unknown:
            raise ValidationError(f"ppn gives no processes per node for file(s) {unknown}")
        per_node = rows["source"].map(dict(ppn))
    else:
        per_node = pd.Series(ppn, index=rows.index, dtype=object)
    bad = ~per_node.map(lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1)
    if bad.any():
        raise ValidationError(f"ppn must be a whole number >= 1, got {per_node[bad].iloc[0]!r}")
    per_node = per_node.astype(np.int64).to_numpy()
    processes = rows["processes"].to_numpy(dtype=np.int64)
    uneven = processes % per_node != 0
    if uneven.any():
        i = int(np.flatnonzero(uneven)[0])
        raise ValidationError(
            f"{rows['source'].iloc[i]}, line {rows['line'].iloc[i]}: {processes[i]} processes are not a "
            f"multiple of ppn = {per_node[i]}"
        )
    table = pd.DataFrame(
        {
            "message_size_bytes": rows["size_bytes"].to_numpy(dtype=np.int64),
            "processes_per_node": per_node,
            "nodes": processes // per_node,
            "avg_comm_time_us": rows["t_avg_us"].to_numpy(dtype=float),
            "processes": processes,
            "source": rows["source"].to_numpy(dtype=object),
            "line": rows["line"].to_numpy(dtype=np.int64),
        }
    )
    for column in ("message_size_bytes", "processes_per_node", "nodes", "processes"):
        table[column] = pd.array(table[column].to_numpy(), dtype="Int64")
    table["source"] = pd.array(table["source"].to_numpy(), dtype="str")
    table = table.sort_values(["message_size_bytes", "processes_per_node", "nodes", "source", "line"])
    return table.reset_index(drop=True)[EXCHANGE_TABLE_COLUMNS]
