"""The profile table's columns, constants and the helpers every reader shares.

Reading bytes under the caps, numbers, call paths, run parameters.

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import math
import os
import re
import stat
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError
from workbench.io import text as _text

__all__ = [
    "AGGREGATIONS",
    "ALLOCATION_COLUMNS",
    "ALLOCATION_NAMES",
    "CUBE_PARAM_RE",
    "KINDS",
    "MAX_FILES",
    "MAX_ROWS",
    "MAX_ZIP_MEMBERS",
    "PER_RUN",
    "PROFILE_TABLE_COLUMNS",
    "Rows",
    "SEP",
    "UNIT_ALIASES",
    "WHAT",
    "as_number",
    "file_cap",
    "mib",
    "param_columns",
    "read_file_bytes",
    "split_path",
    "table_frame",
    "timer_rows",
    "TreePath",
    "with_run",
]


PROFILE_TABLE_COLUMNS = ["profile", "format", "region", "name", "parent", "depth", "metric", "kind",
                         "aggregation", "value", "unit", "processes", "nodes", "threads", "gpus", "run"]
#: Most files :func:`read_profiles` reads in one call (folders, globs, zip members).
MAX_FILES = 100_000
#: Most rows of one profile table.
MAX_ROWS = 20_000_000
SEP = "->"
KINDS = ("inclusive", "exclusive", "n/a")
AGGREGATIONS = ("min", "avg", "max", "sum", "any", "none")
ALLOCATION_COLUMNS = ("processes", "nodes", "threads", "gpus")
# parameter names (lower case) that state an allocation, most specific first
ALLOCATION_NAMES = {
    "processes": ("mpi.world.size", "jobsize", "processes", "procs", "nprocs", "num_processes", "np", "ranks",
                  "nranks", "mpi_ranks", "p"),
    "nodes": ("numhosts", "nodes", "num_nodes", "nnodes"),
    "threads": ("threads", "omp_num_threads", "num_threads", "nthreads", "t"),
    "gpus": ("gpus", "num_gpus", "ngpus"),
}
# Caliper globals that differ between repetitions of one configuration (they are kept as
# columns, but do not make a run a new configuration when `run` is numbered)
PER_RUN = {"launchdate", "launchday", "elapsed_time", "figure_of_merit", "user", "cali.caliper.version",
            "executablepath", "libraries", "hostname", "jobid", "starttime", "endtime", "walltime", "date",
            "cmdline", "command", "outdir", "output_dir", "hostlist"}
WHAT = ("a call-path profile (Caliper .cali, Score-P .cubex, Extra-P text/JSON/JSON Lines, cali-query JSON, "
        "GPTL timing file, phiprof report)")
UNIT_ALIASES = {"sec": "s", "seconds": "s", "second": "s", "s": "s", "msec": "ms", "usec": "us", "nsec": "ns"}
MAX_ZIP_MEMBERS = 20_000
CUBE_PARAM_RE = re.compile(r"([A-Za-z_][A-Za-z_-]*?)([0-9][0-9.,]*)")


def file_cap() -> int:
    """Return the per-file size cap in bytes (read at call time, so that tests can lower it)."""
    return _text.MAX_FILE_BYTES  # read at call time: tests lower it


def mib(n: int) -> str:
    """Return a byte count in words (MiB from 1 MiB on).

    Parameters
    ----------
    n : int
        A number of bytes.
    """
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n:,} bytes"


def read_file_bytes(path: Path, name: str) -> bytes:
    """Return the bytes of the regular file ``path``, refused before reading when over the cap.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    cap = file_cap()
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise DataFormatError(f"{name}: cannot read file: no such file or directory") from None
    except (OSError, ValueError) as exc:
        raise DataFormatError(f"{name}: cannot read file: {getattr(exc, 'strerror', None) or 'not a valid path'}"
                              ) from None
    if not stat.S_ISREG(status.st_mode):
        kind = next((k for test, k in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                                       (stat.S_ISSOCK, "a socket")) if test(status.st_mode)), "not a regular file")
        raise DataFormatError(f"{name}: cannot read file: it is {kind}, not a regular file holding {WHAT}")
    if status.st_size > cap:
        raise DataFormatError(f"{name}: the file is {status.st_size:,} bytes, more than the {mib(cap)} accepted "
                              f"for {WHAT}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise DataFormatError(f"{name}: cannot read file: not a regular file holding {WHAT}")
            data = file.read(cap + 1)
    except OSError as exc:
        raise DataFormatError(f"{name}: cannot read file: {(exc.strerror or 'error').lower()}") from None
    if len(data) > cap:
        raise DataFormatError(f"{name}: the file holds more than the {mib(cap)} accepted for {WHAT}")
    return data


def as_number(value):
    """Return a float for numeric text/values, else the stripped string (None for missing).

    Parameters
    ----------
    value : object
        A value read from a profile (text, number, bool or None).
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def split_path(region: str) -> list[str]:
    """Return the elements of a ``->``-joined call path, stripped.

    Parameters
    ----------
    region : str
        A call path such as ``"main->solve->MPI_Allreduce"``.
    """
    return [p.strip() for p in region.split(SEP)]


def param_columns(params: dict) -> dict:
    """Run parameters -> allocation columns + parameter columns (names clash-free).

    Parameters
    ----------
    params : dict of str to object
        One profile's run parameters (numbers as floats, text as str).
    """
    lower = {k.lower(): k for k in params}
    out = {}
    for column, names in ALLOCATION_NAMES.items():
        for name in names:
            key = lower.get(name)
            if key is not None and isinstance(params[key], float):
                out[column] = params[key]
                break
    reserved = set(PROFILE_TABLE_COLUMNS)
    for key, value in params.items():
        if key in ALLOCATION_COLUMNS and isinstance(value, float):
            continue  # mapped above
        out[f"param.{key}" if key in reserved else key] = value
    return out


def table_frame(rows: dict, name: str) -> pd.DataFrame:
    """Columns as lists -> a frame (values float).

    Parameters
    ----------
    rows : dict of str to list
        Column name to its values, one entry per row.
    name : str
        The file's name (or a label) that every error message starts with.
    """
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise DataFormatError(f"{name}: no region values found in {WHAT}")
    return frame


def with_run(frame: pd.DataFrame, params: dict) -> pd.DataFrame:
    """Attach one profile's run parameters (columns made once for all profiles, in :func:`finish_table`).

    Parameters
    ----------
    frame : pandas.DataFrame
        The profile's rows.
    params : dict of str to object
        Its run parameters (stored in ``frame.attrs["params"]`` as columns).
    """
    frame.attrs["params"] = param_columns(params)
    return frame


class Rows:
    """One profile's rows as lists (region, metric, kind, aggregation, value, unit) and its run parameters.

    Parameters
    ----------
    cols : dict of str to list
        Column name to its values (``region``, ``metric``, ``kind``, ``aggregation``, ``value``, ``unit``).
    profile : str
        The profile's label (its file name).
    fmt : str
        The format it was read from, the table's ``format`` column (e.g. ``"caliper"``).
    params : dict of str to object
        Its run parameters.
    """

    __slots__ = ("cols", "profile", "format", "params")

    def __init__(self, cols: dict, profile: str, fmt: str, params: dict):
        self.cols, self.profile, self.format, self.params = cols, profile, fmt, params

    def __len__(self) -> int:
        return len(self.cols["value"])




def timer_rows(rows: dict, name: str, fmt: str, params: dict) -> Rows:
    """One timer report's rows -> a profile's :class:`Rows` with its run parameters (GPTL, phiprof).

    Rows as lists, not a frame: an ensemble's files become one frame per chunk (a frame per
    file costs more than parsing it).

    Parameters
    ----------
    rows : dict of (str, str, str, str) to (float, str)
        (region, metric, kind, aggregation) -> (value, unit), in reading order.
    name : str
        The file's name (or a label): the profile and what every error message starts with.
    fmt : str
        The table's ``format`` (e.g. ``"gptl"``).
    params : dict of str to object
        Run parameters (``processes``, ``threads``, ... as floats; NaN ones are left out).
    """
    if not rows:
        raise DataFormatError(f"{name}: no timers found in this {fmt} file")
    keys = list(rows)
    cols = {"region": [k[0] for k in keys], "metric": [k[1] for k in keys], "kind": [k[2] for k in keys],
            "aggregation": [k[3] for k in keys], "value": [rows[k][0] for k in keys],
            "unit": [rows[k][1] for k in keys]}
    known = {k: v for k, v in params.items() if not (isinstance(v, float) and math.isnan(v))}
    return Rows(cols, name, fmt, param_columns(known))


class TreePath:
    """Call paths from a listing of timers by nesting level (an indented tree, parents first).

    Parameters
    ----------
    name : str
        The file's name (or a label) that every error message starts with.
    """

    __slots__ = ("name", "stack")

    def __init__(self, name: str):
        self.name, self.stack = name, []

    def path(self, depth: int, label: str, number: int) -> str:
        """Return the call path of ``label`` listed at nesting ``depth`` (0: a root) on line ``number``.

        Parameters
        ----------
        depth : int
            Nesting level, 0 for a root; at most one more than the previous timer's.
        label : str
            The timer's name.
        number : int
            The line number, for the error message.
        """
        if depth > len(self.stack):
            raise DataFormatError(f"{self.name}, line {number}: timer {label[:60]!r} is nested {depth} levels "
                                  f"deep under a timer nested {len(self.stack) - 1} deep (a damaged listing?)")
        del self.stack[depth:]
        region = SEP.join([*self.stack, label]) if self.stack else label
        self.stack.append(label)
        return region
