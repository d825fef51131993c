"""Parser for raw NAS Parallel Benchmarks (NPB 3.x) output logs.

Every NPB variant ends a successful run with the same ``print_results`` block
(``common/print_results.f`` / ``c_print_results.c`` in the NPB sources)::

     CG Benchmark Completed.
     Class           =                        C
     Time in seconds =                   550.93
     Total processes =                        8      <- MPI and multi-zone (MZ) builds
     Total threads   =                        4      <- OpenMP and MZ builds
     Mop/s total     =                   260.19
     Verification    =               SUCCESSFUL
     Version         =                    3.4.3

The variants differ only in which counts they print:

* NPB-MPI: ``Total processes`` (and ``Active processes`` / ``Compiled procs``),
  ``Mop/s/process``; no thread count (one thread per process).
* NPB-OMP: ``Total threads`` and ``Avail threads`` (the header says ``Number of
  available threads``), ``Mop/s/thread``; no process count (one process).  A build
  without OpenMP prints neither count.
* NPB-MZ (``BT-MZ``, ``SP-MZ``, ``LU-MZ``, hybrid MPI+OpenMP): ``Total processes``
  and ``Total threads``, where *Total threads* is the sum over all processes
  (``Total number of threads: 72 (2.0 threads/process)`` in the header).

The values are taken from the *last* ``Benchmark Completed`` block of a log.  Logs
without that block (runs killed by the scheduler, out of memory, aborted by NPB
itself, empty files) are not results: :func:`read_npb_logs` reports each of them
with a :class:`~workbench.errors.ParseWarning` and in ``frame.attrs["skipped"]``.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError, ParseWarning
from workbench.io.text import as_path, checked_text, decode, is_folder, read_file

__all__ = ["NPB_COLUMNS", "parse_npb_text", "parse_npb_bytes", "read_npb_logs", "parse_npb_filename",
           "records_to_frame"]

#: Column order of the frame returned by :func:`read_npb_logs`.
NPB_COLUMNS = [
    "benchmark",
    "problem_class",
    "processes",
    "threads",
    "total_threads",
    "nodes",
    "time_s",
    "mops_total",
    "mops_per_process",
    "verified",
    "variant",
    "npb_version",
    "source",
]

# Logs are a few kB (the largest of the 85 Pi-cluster logs has 8.5 kB); anything far larger
# is not an NPB log and is not read into memory.
MAX_LOG_BYTES = 8 * 2**20
#: What an NPB file should hold, for messages.
NPB_WHAT = "an NPB log"
# Larger process/thread counts are corrupt output (and would overflow int64 columns).
MAX_COUNT = 2**31 - 1

_COMPLETED_RE = re.compile(r"^[ \t]*([A-Za-z][A-Za-z0-9-]*)[ \t]+Benchmark Completed\.?[ \t]*$", re.MULTILINE)
_KEY_RE = re.compile(r"[A-Za-z][A-Za-z /]*")
# Lines that explain why a run stopped early.  Only consulted when there is no
# completed block, so the harmless "Error is 0.28E-13" (CG residual) and
# "Comparison of RMS-norms of solution error" (BT/SP/LU) lines never count.  A line
# aborts when it does not start with "error is" and has "error" after "***", starts
# with "error", or has one of the other phrases.  Candidates are found by _ABORT_HINT_RE
# over the whole text and each one's line is judged by _aborts: a single pattern with
# ".*" on both sides took time quadratic in the length of long lines.
_ABORT_HINT_RE = re.compile(
    r"error|out of memory|oom[- ]kill|segmentation fault|core dumped|killed|bad termination|mpi_abort"
    r"|cancelled|due to time limit",
    re.IGNORECASE,
)
_ABORT_LINE_RE = re.compile(
    r"^\s*error\b|\berror:|out of memory|oom[- ]kill|segmentation fault|bus error|core dumped|\bkilled\b"
    r"|bad termination|mpi_abort|\bcancelled\b|due to time limit"
)
_ERROR_WORD_RE = re.compile(r"\berror\b")
_ERROR_IS_RE = re.compile(r"\s*error is\b")
_HEADER_RE = re.compile(r"NAS Parallel Benchmarks", re.IGNORECASE)
_FILENAME_RE = re.compile(
    r"^(?P<benchmark>[a-z]+(?:-mz)?)-(?P<problem_class>[SWABCDEFU])-(?P<processes>\d+)"
    r"(?:-(?P<nodes>\d+))?\.[A-Za-z0-9]+$",
    re.IGNORECASE,
)
_CLASSES = set("SWABCDEFU")
_VERIFICATION = {"SUCCESSFUL": True, "UNSUCCESSFUL": False, "NOT PERFORMED": False}
# Keys of the completed block, normalised (lower case, single spaces).
_PROCESS_KEYS = ("total processes", "active processes", "compiled procs")
_THREAD_KEYS = ("total threads", "num threads", "number of threads")


def parse_npb_filename(name: str) -> dict | None:
    """Decode the ``<bench>-<CLASS>-<np>[-<nodes>].<ext>`` naming convention.

    This is the convention of the Raspberry Pi cluster logs (``cg-C-64-16.out`` = CG
    class C, 64 processes on 16 nodes; without ``-<nodes>`` the scheduler's default
    placement was used).  Returns ``None`` for names that do not follow it.

    Parameters
    ----------
    name : str
        A log's file name or path (only its last component is decoded).
    """
    m = _FILENAME_RE.match(Path(name).name)
    if m is None:
        return None
    nodes = m["nodes"]
    return {
        "benchmark": m["benchmark"].lower(),
        "problem_class": m["problem_class"].upper(),
        "processes": int(m["processes"]),
        "nodes": int(nodes) if nodes is not None else None,
    }


def _completed_block(text: str) -> tuple[str, dict[str, str]] | None:
    """Benchmark name and ``key -> value`` lines of the last completed block."""
    matches = list(_COMPLETED_RE.finditer(text))
    if not matches:
        return None
    last = matches[-1]
    fields: dict[str, str] = {}
    started = False
    for line in text[last.end():].splitlines():
        if not line.strip():
            if started:
                break
            continue
        if line.strip().lower().startswith(("compile options", "please send")):
            break
        started = True
        key, equals, value = line.partition("=")
        key = key.strip()
        # other lines (e.g. the OpenMP "Warning: Threads used differ ...") carry no field
        if equals and _KEY_RE.fullmatch(key):
            fields.setdefault(" ".join(key.lower().split()), value.strip())
    return last[1], fields


def _aborts(line: str) -> bool:
    """Whether a log line says the run stopped early (see _ABORT_HINT_RE)."""
    low = line.lower()
    if _ERROR_IS_RE.match(low):
        return False
    stars = low.find("***")
    return (stars >= 0 and _ERROR_WORD_RE.search(low, stars) is not None) or _ABORT_LINE_RE.search(low) is not None


def _failure_reason(text: str) -> str:
    """Why a log without a completed block is not a result."""
    if not text.strip():
        return "empty file"
    position = 0
    while (hint := _ABORT_HINT_RE.search(text, position)) is not None:
        start = text.rfind("\n", 0, hint.start()) + 1
        end = text.find("\n", hint.end())
        end = len(text) if end < 0 else end
        if _aborts(text[start:end]):
            return f"aborted: {text[start:end].strip()[:160]}"
        position = end
    if _HEADER_RE.search(text):
        return "truncated: no 'Benchmark Completed' block"
    return "not NPB output: no 'NAS Parallel Benchmarks' header and no 'Benchmark Completed' block"


def _number(fields: dict[str, str], key: str, source: str, kind: type):
    raw = fields[key]
    try:
        value = kind(raw)
    except ValueError:
        raise DataFormatError(f"{source}: cannot read {key!r} = {raw!r} as a number") from None
    if not math.isfinite(value):
        raise DataFormatError(f"{source}: {key!r} = {raw!r} is not a finite number")
    return value


def _first_present(fields: dict[str, str], keys: Iterable[str]) -> str | None:
    return next((k for k in keys if k in fields), None)


def parse_npb_text(text: str, source: str = "<text>") -> dict:
    r"""Parse the text of one NPB log into a record (a dict with the :data:`NPB_COLUMNS`).

    ``source`` names the log in messages and in the record; when its file name follows
    :func:`parse_npb_filename`'s convention and agrees with the log (same class and
    process count), ``nodes`` is taken from it, otherwise ``nodes`` is ``None``.

    Raises :class:`~workbench.errors.DataFormatError` naming ``source`` and the reason
    ("empty file", "truncated: ...", "aborted: <the log's error line>", "not NPB
    output: ...", or a field that is missing or unreadable).  Any line ends (``\n``,
    ``\r\n``, ``\r``) are accepted; text over the limits of :mod:`workbench.io.text`
    is refused.

    Parameters
    ----------
    text : str
        The log's text.
    source : str, default "<text>"
        The log's name (file name or path), for messages and the record.
    """
    return _parse(checked_text(text, str(source), what=NPB_WHAT, max_bytes=MAX_LOG_BYTES), source)


def parse_npb_bytes(content: bytes, name: str) -> dict:
    """Parse the raw bytes of one NPB log (an upload) into a record, like :func:`parse_npb_text`.

    Parameters
    ----------
    content : bytes
        The file's bytes; any 8-bit text decodes (logs of old machines), within the limits of
        :mod:`workbench.io.text` (at most ``MAX_LOG_BYTES``).
    name : str
        The file's name: named in messages, the record's ``source``, and read for ``nodes``
        as in :func:`parse_npb_text`.

    Returns
    -------
    dict
        One record with the :data:`NPB_COLUMNS`.

    Raises
    ------
    DataFormatError
        The bytes are not text, too many, or not a completed NPB log (the reason as in
        :func:`parse_npb_text`).
    """
    return _parse(decode(content, name, what=NPB_WHAT, max_bytes=MAX_LOG_BYTES, legacy=True), name)


def _parse(text: str, source) -> dict:
    r""":func:`parse_npb_text` of checked text (``\n`` line ends)."""
    block = _completed_block(text)
    if block is None:
        raise DataFormatError(f"{source}: {_failure_reason(text)}")
    name, fields = block
    for key in ("class", "time in seconds", "mop/s total", "verification"):
        if key not in fields:
            raise DataFormatError(f"{source}: truncated: the 'Benchmark Completed' block lacks {key!r}")

    problem_class = fields["class"].strip().upper()
    if problem_class not in _CLASSES:
        raise DataFormatError(f"{source}: unknown problem class {fields['class']!r} (expected one of S, W, A-F, U)")
    time_s = _number(fields, "time in seconds", source, float)
    if time_s <= 0:
        # print_results writes f12.2: runs shorter than 5 ms show as 0.00
        raise DataFormatError(f"{source}: 'time in seconds' = {fields['time in seconds']!r} is not positive")
    mops_total = _number(fields, "mop/s total", source, float)
    verification = " ".join(fields["verification"].upper().split())
    if verification not in _VERIFICATION:
        raise DataFormatError(f"{source}: unrecognised Verification value {fields['verification']!r}")

    process_key = _first_present(fields, _PROCESS_KEYS)
    thread_key = _first_present(fields, _THREAD_KEYS)
    if process_key is None and "mop/s/process" in fields:
        raise DataFormatError(f"{source}: truncated: the block prints 'Mop/s/process' but no 'Total processes'")
    processes = _number(fields, process_key, source, int) if process_key else 1
    total_threads = _number(fields, thread_key, source, int) if thread_key else processes
    if not (1 <= processes <= MAX_COUNT and 1 <= total_threads <= MAX_COUNT):
        raise DataFormatError(f"{source}: implausible process/thread counts {processes} / {total_threads}")

    benchmark = name.lower()
    if benchmark.endswith("-mz"):
        variant = "mz"
    elif thread_key:
        variant = "omp"
    elif process_key:
        variant = "mpi"
    else:
        variant = "serial"

    nodes = None
    named = parse_npb_filename(source)
    if named is not None and named["nodes"] is not None:
        if named["processes"] == processes and named["problem_class"] == problem_class:
            nodes = named["nodes"]
        else:
            warnings.warn(
                f"{source}: file name says class {named['problem_class']} with {named['processes']} processes "
                f"but the log says class {problem_class} with {processes}; nodes left unknown",
                ParseWarning,
                stacklevel=2,
            )

    version = fields.get("version", "").strip()
    return {
        "benchmark": benchmark,
        "problem_class": problem_class,
        "processes": processes,
        # MZ prints the sum over processes; per-process counts can be uneven (load balancing)
        "threads": max(1, round(total_threads / processes)),
        "total_threads": total_threads,
        "nodes": nodes,
        "time_s": time_s,
        "mops_total": mops_total,
        "mops_per_process": mops_total / processes,
        "verified": _VERIFICATION[verification],
        "variant": variant,
        "npb_version": version or None,
        "source": str(source),
    }


def _as_paths(path) -> tuple[list[Path], bool]:
    """Expand ``path`` into files; the flag says whether it was one explicit file."""
    if isinstance(path, (str, PathLike)):
        items, single = [path], True
    else:
        try:
            items, single = list(path), False
        except TypeError:
            raise DataFormatError(f"expected a path or a list of paths, got {type(path).__name__}") from None
    files: list[Path] = []
    for item in items:
        p = as_path(item)
        if is_folder(p):  # a DataFormatError when p does not exist
            found = sorted(
                f for f in p.rglob("*")
                # hidden files and folders (.ipynb_checkpoints, .DS_Store, ...) are not logs;
                # neither are named pipes, devices and sockets (is_file is False for them)
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
            )
            files.extend(found)
            single = False
        else:  # anything else that exists: read_file refuses what is not a regular file
            files.append(p)
    return files, single


def read_npb_logs(path) -> pd.DataFrame:
    """Read NPB output logs into a tidy frame, one row per successful run.

    Parameters
    ----------
    path : str, Path or list of them
        A log file, a directory (searched recursively; every regular, non-hidden file
        is considered, whatever its extension: ``*.out``, ``*.log``, ``*.txt``, ...)
        or a list of files and directories.

    Returns
    -------
    DataFrame with columns (in this order)

    ========================  ======  ============================================================
    ``benchmark``             str     lower case NPB name: ``"cg"``, ``"ep"``, ``"bt-mz"``
    ``problem_class``         str     ``"S"``, ``"W"``, ``"A"`` .. ``"F"`` (``"U"`` = unknown size)
    ``processes``             int     MPI processes (``Total processes``); 1 for OpenMP/serial
    ``threads``               int     OpenMP threads per process; 1 when the log prints none.
                                      MZ logs print the total over processes; this is
                                      ``round(total_threads / processes)``
    ``total_threads``         int     threads over all processes (``processes`` for MPI logs)
    ``nodes``                 Int64   nodes from the file name ``<bench>-<CLASS>-<np>-<nodes>.out``
                                      (``cg-C-64-16.out``), else ``<NA>``
    ``time_s``                float   wall-clock time of the timed section, seconds
                                      (``Time in seconds``, printed with 0.01 s resolution)
    ``mops_total``            float   ``Mop/s total``, millions of operations per second
    ``mops_per_process``      float   ``mops_total / processes``
    ``verified``              bool    ``Verification = SUCCESSFUL``
    ``variant``               str     ``"mpi"``, ``"omp"``, ``"mz"`` or ``"serial"``
    ``npb_version``           str     ``Version`` line (``"3.4.3"``), ``<NA>`` when absent
    ``source``                str     path of the log
    ========================  ======  ============================================================

    Rows are sorted by benchmark, class, processes, nodes and source.  Logs that are not
    results (empty, truncated, aborted, not NPB output, binary) are reported with a
    :class:`~workbench.errors.ParseWarning` naming the file and the reason, and listed in
    ``frame.attrs["skipped"]`` as ``{"source": ..., "reason": ...}`` records.

    Raises
    ------
    DataFormatError
        if ``path`` (or an element of the list) does not exist, if ``path`` is a single
        file that is not a successful NPB log, or if no log at all could be parsed.
        (Nonexistent paths raise DataFormatError rather than FileNotFoundError so that
        callers need to catch only :class:`~workbench.errors.WorkbenchError`.)
    """
    files, single = _as_paths(path)
    if not files:
        raise DataFormatError(f"{path}: no files found")
    records, skipped = [], []
    for file in files:
        try:
            text = read_file(file, what=NPB_WHAT, max_bytes=MAX_LOG_BYTES, legacy=True)
            records.append(_parse(text, source=str(file)))
        except DataFormatError as exc:
            if single:
                raise
            reason = str(exc).removeprefix(f"{file}: ")
            skipped.append({"source": str(file), "reason": reason})
            warnings.warn(f"skipped NPB log {file}: {reason}", ParseWarning, stacklevel=2)
    if not records:
        summary = "; ".join(f"{Path(s['source']).name}: {s['reason']}" for s in skipped[:5])
        more = f" (and {len(skipped) - 5} more)" if len(skipped) > 5 else ""
        raise DataFormatError(f"{path}: no parseable NPB log among {len(files)} file(s): {summary}{more}")
    frame = records_to_frame(records)
    frame.attrs["skipped"] = skipped
    return frame


def records_to_frame(records: list[dict]) -> pd.DataFrame:
    """Tidy frame with :data:`NPB_COLUMNS` and their dtypes from :func:`parse_npb_text` records.

    Parameters
    ----------
    records : list of dict
        Records of :func:`parse_npb_text`.
    """
    frame = pd.DataFrame.from_records(records, columns=NPB_COLUMNS)
    frame = frame.astype(
        {
            "processes": "int64",
            "threads": "int64",
            "total_threads": "int64",
            "nodes": "Int64",
            "time_s": "float64",
            "mops_total": "float64",
            "mops_per_process": "float64",
            "verified": "bool",
        }
    )
    frame = frame.sort_values(["benchmark", "problem_class", "processes", "nodes", "source"], na_position="first")
    return frame.reset_index(drop=True)
