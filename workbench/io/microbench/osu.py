"""The OSU Micro-Benchmarks reader, :func:`read_osu` (the variants it understands: :mod:`workbench.io.microbench`).

A file is read line by line: each ``# OSU MPI ... Test`` title starts a run, each column
header (with or without ``#``) a table of that run, and the rows that follow are its cells
(:class:`~workbench.io.microbench.tables.Table`); the shared machinery types them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ValidationError
from workbench.io.microbench.tables import (
    MAX_META_CHARS,
    Table,
    UnknownFormat,
    check_count,
    check_row,
    collect,
    is_number,
    read_text,
    slug,
    table_frame,
    warn_ignored,
    warn_notes,
)

__all__ = ["OSU_COLUMNS", "OSU_METRICS", "read_osu"]

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
    name = _OSU_COLLECTIVES.get(text, slug(text))
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
            columns.append(slug(name.replace("(us)", " us").replace("(%)", " pct").replace("/s", " per s")))
    if len(set(columns)) != len(columns):
        return None
    return columns


def _parse_osu(path: Path, processes) -> tuple[list[pd.DataFrame], list[dict]]:
    """Return the frames of the tables of one file (no headers: OMB prints none)."""
    text = read_text(path)
    lines = text.split("\n")
    tables: list[Table] = []
    runs: list[dict] = []
    run: dict | None = None
    table: Table | None = None
    # Other text between rows of one table (stderr interleaved with stdout) is reported;
    # text after a table's last row (prompts, the next command) is not.
    ignored: list[tuple[int, str]] = []
    pending: list[tuple[int, str]] = []
    notes: list[str] = []  # warnings, given at the end by warn_notes

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        title = _OSU_TITLE.match(stripped) if len(stripped) <= MAX_META_CHARS else None
        if title:
            run = _osu_run(title, stripped, len(runs) + 1, number)
            check_count(len(runs), path, number)
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
        if not is_number(fields[0]):
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
        if check_row(table, fields, number, stripped, lines, path, repr(run["title"]), notes):
            table.lines.append(number)
            table.cells.append(fields)
            run["rows"] += 1
            ignored += pending
            pending.clear()

    if not runs:
        hint = " (this looks like Intel MPI Benchmarks output: use read_imb)" if re.search(
            r"^[ \t]*#[ \t]*Benchmarking\s", text, re.M) else ""
        raise UnknownFormat(f"{path}: not OSU Micro-Benchmarks output: no '# OSU MPI ... Test' title line{hint}")
    warn_ignored(ignored, path)
    notes += [f"{path}, line {run['line']}: run {run['run']} ({run['title']!r}) has no data rows"
              for run in runs if not run["rows"]]
    warn_notes(notes, path)
    given = _file_processes(processes, path)
    for t in tables:
        if t.meta["processes"] is None:
            t.meta["processes"] = given
    return [table_frame(t, path) for t in tables if t.cells], []


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


def _osu_table(run: dict, columns: list[str], number: int) -> Table:
    meta = {k: run[k] for k in ("benchmark", "title", "version", "run", "datatype", "processes")}
    return Table(meta=meta, columns=columns, header_line=number)


def _add_osu_table(tables: list[Table], run: dict, columns: list[str], number: int, path: Path) -> Table:
    """Append the table whose header is on line ``number`` to ``tables`` and return it."""
    table = _osu_table(run, columns, number)
    check_count(len(tables), path, number)
    tables.append(table)
    return table


def read_osu(path: str | PathLike, *, processes: int | Callable[[str], int | None] | None = None
             ) -> pd.DataFrame:
    r"""Read OSU Micro-Benchmarks stdout (a file, or every file of a folder) into a tidy frame.

    OMB states the process count only for ``osu_mbw_mr`` (``pairs``) and the two-process
    point-to-point and one-sided tests; for the others (collectives, ``osu_multi_lat``) pass
    ``processes``.

    Parameters
    ----------
    path : str or os.PathLike
        A file holding the text OMB prints (5.x-7.x; see :mod:`workbench.io.microbench` for
        the table variants), or a folder: every non-hidden file in it, files that are not OMB
        output skipped with a ParseWarning.
    processes : int or callable or None, default None
        The process count of tables whose output does not state it: an int for every file,
        or a function of the file name returning an int or None, e.g. ``lambda name:
        int(re.search(r"np(\d+)", name)[1])`` or ``{"bcast_64.txt": 64}.get``.  None leaves
        those counts <NA>.

    Returns
    -------
    pandas.DataFrame
        One row per table row, in file, then line order:

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
        naming the file (and line): see :mod:`workbench.io.microbench`.
    ValidationError
        ``processes`` (or what the function returns) is not a whole number >= 1.
    """
    if processes is not None and not callable(processes) and not _whole_positive(processes):
        raise ValidationError(
            f"processes must be a whole number >= 1 or a function of the file name, got {processes!r}"
        )
    frame, _ = collect(path, lambda p: _parse_osu(p, processes), "OSU Micro-Benchmarks", OSU_COLUMNS,
                       OSU_METRICS, text=("benchmark", "title", "version", "datatype"), whole=("processes",))
    return frame

