"""GPTL timing files: the per-region timers of CESM, E3SM and other codes timed with GPTL.

The General Purpose Timing Library (GPTL, J. Rosinski; bundled with CIME, CESM and E3SM)
writes two kinds of text files, both read here (told by content, not by name):

*Summary over ranks* (``GPTLpr_summary``: CIME's ``timing/model_timing_stats``, E3SM's
``e3sm_timing_stats.*``, CESM's ``ccsm_timing_stats.*``, GPTL's ``timing.summary``), one line
per timer. Three header layouts:

- CIME/E3SM/CESM: ``name on processes threads count walltotal wallmax (proc thrd) wallmin
  (proc thrd)``, names usually in double quotes, often after ``***** GLOBAL STATISTICS (N MPI
  TASKS) *****``. Rows: time ``max``/``min`` over the (process, thread) pairs that ran the
  timer, ``sum`` (walltotal) and ``avg`` = walltotal / threads; ``count`` (``sum``: cumulative).
  ``processes`` is N from the GLOBAL STATISTICS line, else the most processes of any timer;
  ``threads`` the most threads per process of any timer (its threads / processes).
- GPTL 8 (``pr_summary.c``): ``name ncalls nranks mean_time std_dev wallmax (rank [thread])
  wallmin (rank [thread])`` after ``Total ranks in communicator=N`` and ``nthreads on rank
  0=T``. Rows: time ``max``, ``min``, ``avg`` (mean_time: the mean over ranks of each rank's
  slowest thread); ``count`` (``sum``, ncalls). Timers still running (``NOT PRINTED``) are left out.
- Older CIME: ``name count wallmax (proc thrd) wallmin (proc thrd)``: time ``max``, ``min``.

These summaries list timers flat: each is a region of its own at depth 0 (names indented in
the name column are taken as nesting).

*One rank's timers* (``GPTLpr``: ``timing.N``, CIME's ``model_timing.NNNN``): after
``Stats for thread 0:``, the call tree indented two spaces per level (a leading ``*``: several
parents; ``!``: still running), then ``[On] Called Recurse [usr sys usr+sys] Wallclock max
min ...``. Rows: time (wallclock, aggregation ``none``: one rank) and ``count`` (Called) of
thread 0's tree; ``threads`` is the number of ``Stats for thread`` tables; ``rank`` (a run
parameter) is the number ending the file name; ``processes`` is not said.

All timers are inclusive (a timer's time includes its children's); time in seconds.

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import re

import numpy as np

from workbench.errors import DataFormatError
from workbench.io.callpath.common import Rows, TreePath, timer_rows

__all__ = [
    "gptl_layout",
    "read_gptl",
]

# patterns with one way to match each token (a name ends on a non-blank, a number's digits
# split only at its point), so that a hostile line costs time linear in its length
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_WHERE2 = r"\(\s*-?\d+\s+-?\d+\s*\)"  # (proc thrd)
_WHERE12 = r"\(\s*-?\d+(?:\s+-?\d+)?\s*\)"  # (rank [thread])
_NAME = r"(?P<indent>[ \t]*)(?:\"(?P<quoted>[^\"]*)\"|(?P<plain>\S(?:.*?\S)?))"
_SUMMARY_ROWS = {
    "cime": re.compile(rf"^{_NAME}\s+(?P<on>[y*-]\s+)?(?P<processes>\d+)\s+(?P<threads>\d+)\s+(?P<count>{_NUM})\s+"
                       rf"(?P<total>{_NUM})\s+(?P<max>{_NUM})\s*{_WHERE2}\s+(?P<min>{_NUM})\s*{_WHERE2}"),
    "gptl": re.compile(rf"^{_NAME}\s+(?P<count>{_NUM})\s+(?P<processes>\d+)\s+(?P<avg>{_NUM})\s+(?P<std>{_NUM})\s+"
                       rf"(?P<max>{_NUM})\s*{_WHERE12}\s+(?P<min>{_NUM})\s*{_WHERE12}"),
    "old": re.compile(rf"^{_NAME}\s+(?P<count>{_NUM})\s+(?P<max>{_NUM})\s*{_WHERE2}\s+(?P<min>{_NUM})\s*{_WHERE2}"),
}
_SUMMARY_COLUMNS = {"cime": "name on processes threads count walltotal wallmax (proc thrd) wallmin (proc thrd)",
                    "gptl": "name ncalls nranks mean_time std_dev wallmax (rank thread) wallmin (rank thread)",
                    "old": "name count wallmax (proc thrd) wallmin (proc thrd)"}
_GLOBAL = re.compile(r"GLOBAL STATISTICS\s*\(\s*(\d+)\s+MPI TASKS\s*\)")
_RANKS = re.compile(r"^Total ranks in communicator\s*=\s*(\d+)\s*$", re.I)  # "total" before GPTL 8
_NTHREADS = re.compile(r"^nthreads on rank 0\s*=\s*(\d+)\s*$")
_THREAD_TABLE = re.compile(r"^Stats for thread (\d+):\s*$")
#: longest timer line read (GPTL's longest names and many PAPI columns stay far below)
MAX_ROW_CHARS = 16_384
_TABLE_FOOTER = re.compile(r"^(?:Overhead sum|Total calls|Total recursive calls)\s*=")
_RANK_IN_NAME = re.compile(r"[._-](\d+)$")
#: how far into a file its layout is looked for (GPTL's preamble is some 30 lines)
_SNIFF_LINES = 400


def _summary_header(line: str) -> str | None:
    tokens = line.split()
    if tokens[:1] != ["name"] or "wallmax" not in tokens or "wallmin" not in tokens:
        return None
    if "walltotal" in tokens and "processes" in tokens:
        return "cime"
    if "ncalls" in tokens and "mean_time" in tokens:
        return "gptl"
    return "old" if "count" in tokens else None


def gptl_layout(text: str) -> str | None:
    """Return ``"summary"`` or ``"rank"`` when ``text`` (a file's start) is a GPTL timing file, else None.

    Parameters
    ----------
    text : str
        The start of a file's content (its first few hundred lines suffice).
    """
    for line in text.split("\n", _SNIFF_LINES)[:_SNIFF_LINES]:
        if _summary_header(line):
            return "summary"
        if _THREAD_TABLE.match(line):
            return "rank"
    return None


def read_gptl(text: str, name: str) -> Rows:
    """Read a GPTL timing file (a summary over ranks or one rank's timers) into profile-table rows.

    Parameters
    ----------
    text : str
        The file's content.
    name : str
        The file's name (or a label) that every error message starts with.

    Returns
    -------
    Rows
        The profile's rows (format ``gptl``) and its run parameters.

    Raises
    ------
    DataFormatError
        A timer line that does not follow the layout its header announces, a table cut short,
        a timer listed twice (each naming the file and the line).
    """
    lines = text.split("\n")
    for number, line in enumerate(lines[:_SNIFF_LINES], start=1):
        layout = _summary_header(line)
        if layout:
            return _read_summary(lines, number, layout, name)
        if _THREAD_TABLE.match(line):
            return _read_rank(lines, number, name)
    raise DataFormatError(f"{name}: not a GPTL timing file (no 'name ... wallmax ... wallmin' header or "
                          "'Stats for thread 0:' line)")


def _check_length(line: str, name: str, number: int) -> None:
    if len(line) > MAX_ROW_CHARS:
        raise DataFormatError(f"{name}, line {number}: {len(line):,} characters, more than the {MAX_ROW_CHARS:,} "
                              "of a timer line")


def _number(value: str, what: str, name: str, number: int) -> float:
    try:
        out = float(value)
    except ValueError:
        raise DataFormatError(f"{name}, line {number}: {what} {value[:40]!r} is not a number") from None
    if not np.isfinite(out) or out < 0:
        raise DataFormatError(f"{name}, line {number}: {what} {value[:40]!r} is not a finite number >= 0")
    return out


def _add(rows: dict, key: tuple, value: float, unit: str, name: str, number: int) -> None:
    if key in rows:
        raise DataFormatError(f"{name}, line {number}: timer {key[0][:60]!r} is listed twice (a damaged file?)")
    rows[key] = (value, unit)


def _read_summary(lines: list[str], header: int, layout: str, name: str) -> Rows:
    """Read the summary table whose header is on line ``header`` (1-based)."""
    processes = threads = np.nan
    for line in lines[:header]:
        if (match := _GLOBAL.search(line)) or (match := _RANKS.match(line)):
            processes = float(match.group(1))
        elif match := _NTHREADS.match(line):
            threads = float(match.group(1))
    pattern = _SUMMARY_ROWS[layout]
    tree = TreePath(name)
    rows: dict = {}
    most_processes, most_threads = 0.0, 0.0
    closed = False
    for number in range(header + 1, len(lines) + 1):
        line = lines[number - 1].rstrip("\r")
        if not line.strip():
            closed = number < len(lines)  # (the text after the file's last line end is no blank line)
            break
        if layout == "gptl" and " NOT PRINTED: timer is currently ON" in line:
            continue  # GPTL prints no statistics of a timer still running
        _check_length(line, name, number)
        match = pattern.match(line)
        if not match:
            raise DataFormatError(f"{name}, line {number}: not a timer line of this GPTL summary (expected "
                                  f"{_SUMMARY_COLUMNS[layout]}), got {line.strip()[:80]!r}: a damaged or truncated "
                                  "file?")
        label = (match["quoted"] if match["quoted"] is not None else match["plain"]).strip()
        if not label:
            raise DataFormatError(f"{name}, line {number}: a timer without a name")
        region = tree.path(len(match["indent"].expandtabs(2)) // 2, label, number)
        count = _number(match["count"], "count", name, number)
        stats = {"max": _number(match["max"], "wallmax", name, number),
                 "min": _number(match["min"], "wallmin", name, number)}
        if layout == "cime":
            total = _number(match["total"], "walltotal", name, number)
            n_proc = _number(match["processes"], "processes", name, number)
            n_thr = _number(match["threads"], "threads", name, number)
            stats["avg"] = total / n_thr if n_thr > 0 else 0.0
            stats["sum"] = total
            most_processes = max(most_processes, n_proc)
            if n_proc > 0:
                most_threads = max(most_threads, n_thr / n_proc)
        elif layout == "gptl":
            stats["avg"] = _number(match["avg"], "mean_time", name, number)
            most_processes = max(most_processes, _number(match["processes"], "nranks", name, number))
        for aggregation in ("max", "avg", "min", "sum"):
            if aggregation in stats:
                _add(rows, (region, "time", "inclusive", aggregation), stats[aggregation], "s", name, number)
        _add(rows, (region, "count", "n/a", "sum"), count, "", name, number)
    if not closed and layout == "cime":
        # CIME's summary ends with a blank line: without it the file was cut short
        raise DataFormatError(f"{name}: the GPTL timer table ends without its closing blank line: a truncated file?")
    if np.isnan(processes) and most_processes >= 1:
        processes = most_processes
    if np.isnan(threads) and most_threads >= 1:
        threads = most_threads
    return timer_rows(rows, name, "gptl", {"processes": processes, "threads": threads})


def _read_rank(lines: list[str], start: int, name: str) -> Rows:
    """Read one rank's timers: thread 0's table, whose ``Stats for thread`` line is line ``start``."""
    number = start + 1
    if number > len(lines) or "Called" not in lines[number - 1].split():
        raise DataFormatError(f"{name}, line {number}: expected the titles of GPTL's table (... Called Recurse "
                              "... Wallclock max min) after 'Stats for thread'")
    header = lines[number - 1].rstrip("\r")
    titles = header.split()
    if "Wallclock" not in titles and "Wall" not in titles:
        raise DataFormatError(f"{name}, line {number}: GPTL's table has no wallclock column (titles: "
                              f"{' '.join(titles)[:80]})")
    # the name column (a multiple-parent mark, indentation, name, padding) ends one character
    # before the first title: GPTL pads every name to the longest one
    cut = len(header) - len(header.lstrip(" ")) - 1
    count_at = 1 if titles[0] == "On" else 0
    wall_at = count_at + 2 + (3 if any(t.lower() == "usr" for t in titles) else 0)
    tree = TreePath(name)
    rows: dict = {}
    closed = False
    for number in range(start + 2, len(lines) + 1):
        line = lines[number - 1].rstrip("\r")
        if not line.strip() or _TABLE_FOOTER.match(line):
            # a blank line ends the table; older GPTL wrote its overhead totals right under it
            closed = number < len(lines)  # (the text after the file's last line end is no blank line)
            break
        _check_length(line, name, number)
        field, values = line[:cut], line[cut:].split()
        body = field[2:]
        label = body.strip()
        if field[:2].strip() not in ("", "*", "!") or not label or len(values) <= wall_at:
            raise DataFormatError(f"{name}, line {number}: not a timer line of GPTL's table (expected an indented "
                                  f"name then {' '.join(titles)[:60]}), got {line.strip()[:80]!r}: a damaged or "
                                  "truncated file?")
        if label.startswith('"') and label.endswith('"') and len(label) > 1:
            label = label[1:-1]
        region = tree.path((len(body) - len(body.lstrip(" "))) // 2, label, number)
        if count_at and values[0] not in ("y", "-"):
            raise DataFormatError(f"{name}, line {number}: the On column holds {values[0][:20]!r}, expected y or -")
        _add(rows, (region, "time", "inclusive", "none"), _number(values[wall_at], "Wallclock", name, number),
             "s", name, number)
        _add(rows, (region, "count", "n/a", "none"), _number(values[count_at], "Called", name, number), "",
             name, number)
    if not closed:
        raise DataFormatError(f"{name}: GPTL's table of thread 0 ends without its closing blank line: a "
                              "truncated file?")
    threads = sum(1 for line in lines if _THREAD_TABLE.match(line.rstrip("\r")))
    params = {"threads": float(threads)}
    base = name.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".gz")
    if match := _RANK_IN_NAME.search(base):
        params["rank"] = float(match.group(1))
    return timer_rows(rows, name, "gptl", params)
