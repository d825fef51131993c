"""The Intel MPI Benchmarks reader, :func:`read_imb` (the variants it understands: :mod:`workbench.io.microbench`).

A file is read line by line: each banner (``Intel(R) MPI Benchmarks ..., MPI-1 part``) starts
a run whose ``#`` lines are its metadata, each ``# Benchmarking <name>`` a block, and each
``#bytes #repetitions ...`` header a table of that block
(:class:`~workbench.io.microbench.tables.Table`); the shared machinery types them.
"""

from __future__ import annotations

import re
from os import PathLike
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError
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

__all__ = ["IMB_COLUMNS", "IMB_METRICS", "read_imb"]

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



# ----------------------------------------------------------------------------- IMB

def _imb_header(stripped: str) -> list[str]:
    """Return the frame column names of an IMB column header (``#bytes #repetitions t_min[usec] ...``)."""
    columns = []
    for token in stripped.split():
        key = token.lower()
        columns.append(_IMB_NAMES.get(key) or slug(key.replace("[usec]", " us").replace("[%]", " pct")
                                                   .replace("/sec", " per s")))
    return columns


# One file: the frames of its tables and the metadata of its banners.
def _parse_imb(path: Path) -> tuple[list[pd.DataFrame], list[dict]]:
    text = read_text(path)
    lines = text.split("\n")
    tables: list[Table] = []
    headers: list[dict] = []
    run: dict | None = None  # the banner's metadata
    block: dict | None = None
    table: Table | None = None
    ignored: list[tuple[int, str]] = []  # as in _parse_osu
    pending: list[tuple[int, str]] = []
    notes: list[str] = []  # warnings, given at the end by warn_notes
    expect_calling = expect_list = False
    blocks = 0

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        banner = _IMB_BANNER.search(stripped) if len(stripped) <= MAX_META_CHARS else None
        if banner and stripped.startswith("#"):
            check_count(len(headers), path, number)
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
            check_count(blocks, path, number)
            blocks += 1
            block = _imb_block(match, run, number)
            table = None
            pending.clear()
            expect_calling = expect_list = False
            continue
        if stripped.startswith(("#bytes", "#repetitions")):
            if block is None:
                raise DataFormatError(f"{path}, line {number}: a table header before any '# Benchmarking' line")
            table = Table(meta={k: block[k] for k in IMB_COLUMNS if k in block},
                           columns=_imb_header(stripped), header_line=number)
            check_count(len(tables), path, number)
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
        if not is_number(fields[0]):
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
        if check_row(table, fields, number, stripped, lines, path, f"'{block['benchmark']}'", notes):
            table.lines.append(number)
            table.cells.append(fields)
            ignored += pending
        pending.clear()

    if not blocks:
        raise _not_imb(path, text)
    warn_ignored(ignored, path)
    warn_notes(notes + _imb_notes(path, headers, tables), path)
    return [table_frame(t, path) for t in tables if t.cells], headers


def _not_imb(path: Path, text: str) -> UnknownFormat:
    """Return the error of a file without any IMB benchmark block (pointing to read_osu for OMB output)."""
    hint = " (this looks like OSU Micro-Benchmarks output: use read_osu)" if re.search(
        r"^[ \t]*#[ \t]*OSU\b", text, re.M) else ""
    return UnknownFormat(f"{path}: not Intel MPI Benchmarks output: no '# Benchmarking <name>' line{hint}")


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


def _imb_notes(path: Path, headers: list[dict], tables: list[Table]) -> list[str]:
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

    Parameters
    ----------
    path : str or os.PathLike
        A file holding the text ``IMB-MPI1`` (or IMB-EXT/-NBC/-RMA) prints (see
        :mod:`workbench.io.microbench` for the table variants understood), or a folder: every
        non-hidden file in it, files that are not IMB output skipped with a ParseWarning.

    Returns
    -------
    pandas.DataFrame
        One row per table row, in file, then line order:

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
        naming the file (and line): see :mod:`workbench.io.microbench`.
    """
    frame, headers = collect(path, _parse_imb, "Intel MPI Benchmarks", IMB_COLUMNS, IMB_METRICS,
                             text=("benchmark", "version", "mode"), whole=("processes", "groups", "waiting"))
    frame["multi"] = frame["multi"].astype(bool)
    frame.attrs["headers"] = headers
    return frame

