"""The tables this project measures itself: their columns, units, checks and readers.

Three measured formats, each a CSV with a JSON sidecar (:mod:`workbench.io.sidecar`):

* the **K-means sweep** of FiM-Cal [Bhimani2019] (:data:`KMEANS_COLUMNS`, one row per run),
  written by :mod:`workbench.measure.sweep`, read by :func:`read_measured_kmeans`;
* the **communication sweeps**: the random non-blocking ping-pong of [Papadopoulou2015]
  (:data:`PINGPONG_COLUMNS`) and the halo-exchange data generator of [Branikas2024]
  (:data:`DATAGEN_COLUMNS`, one row per rank and configuration), written by
  :mod:`workbench.measure.comm.sweep`, read by :func:`read_comm_pingpong` and
  :func:`read_comm_datagen`;
* the **multi-phase demo profile** of the fractal model [EscobarBoppana] (the profile frame
  of :mod:`workbench.io.profiles`), written by :mod:`workbench.workloads.phases_demo`, read
  by :func:`read_fractal_demo`.

The formats live here, in the data layer, so that the dataset catalogue
(:mod:`workbench.io.catalogue`) reads the project's own measurements without importing the
programs that measure them; those programs write with the same column lists and checks.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from workbench.errors import ValidationError
from workbench.io.profiles import read_profile_csv
from workbench.io.sidecar import read_measured_csv

__all__ = [
    "KMEANS_COLUMNS",
    "KMEANS_INT_COLUMNS",
    "KMEANS_ROLES",
    "KMEANS_UNITS",
    "COMM_BENCHMARKS",
    "PINGPONG_COLUMNS",
    "PINGPONG_UNITS",
    "DATAGEN_COLUMNS",
    "DATAGEN_UNITS",
    "LOADS",
    "BARRIERS",
    "validate_kmeans_runs",
    "read_measured_kmeans",
    "validate_comm_sweep",
    "read_comm_pingpong",
    "read_comm_datagen",
    "read_fractal_demo",
]

# ----------------------------------------------------------------------------- K-means sweep

#: Columns of the measured K-means table, in order (units in :data:`KMEANS_UNITS`; see
#: :mod:`workbench.measure.sweep` for how each is measured).
KMEANS_COLUMNS = [
    "role",
    "iterations",
    "clusters",
    "points",
    "dims",
    "processes",
    "repeat",
    "calc_time_s",
    "cycles",
    "stalled_cycles_frontend",
    "stalled_cycles_backend",
    "stall_cycles",
    "task_clock_ms",
    "cpus_utilized",
    "utilization",
    "freq_hz",
]
#: The integer columns of the K-means table: the configuration and the repeat index.
KMEANS_INT_COLUMNS = ["iterations", "clusters", "points", "dims", "processes", "repeat"]
# the measured values, after role and the integer columns
_KMEANS_FLOAT_COLUMNS = KMEANS_COLUMNS[7:]
#: Values of the K-means table's ``role`` column.
KMEANS_ROLES = ("train", "test")
#: Unit and meaning of every K-means column (written into the sidecar).
KMEANS_UNITS = {
    "role": "train or test", "iterations": "I, count", "clusters": "K, count", "points": "N, count",
    "dims": "d, count", "processes": "t, count", "repeat": "0-based index",
    "calc_time_s": "calculation wall time, s", "cycles": "TC, cycles (all processes)",
    "stalled_cycles_frontend": "cycles", "stalled_cycles_backend": "cycles (NaN: not supported)",
    "stall_cycles": "SC = frontend + backend (where supported), cycles",
    "task_clock_ms": "CPU time of all processes in the calculation, ms",
    "cpus_utilized": "perf's CPUs utilized over the whole run (not the calculation)",
    "utilization": "U per process = task_clock_s / (calc_time_s * processes), 0..1",
    "freq_hz": "F = cycles / task_clock_s, Hz",
}


def validate_kmeans_runs(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Check a measured K-means table and return it typed, in :data:`KMEANS_COLUMNS` order.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, with at least the columns of :data:`KMEANS_COLUMNS`.
    name : str
        What the table is (a file name), used in the error messages.

    Returns
    -------
    pandas.DataFrame
        A copy with integer configuration columns, float measurements and ``frame.attrs``.

    Raises
    ------
    ValidationError
        For a missing column, an empty table, an unknown role, a configuration that is not a
        positive integer (``repeat``: >= 0), a non-numeric measurement or ``calc_time_s <= 0``.
    """
    missing = [c for c in KMEANS_COLUMNS if c not in frame.columns]
    if missing:
        raise ValidationError(f"{name}: missing column(s) {', '.join(missing)} of a measured K-means table")
    if frame.empty:
        raise ValidationError(f"{name}: no runs (the table is empty)")
    out = frame[KMEANS_COLUMNS].copy()
    bad_roles = sorted(set(out["role"].astype(str)) - set(KMEANS_ROLES))
    if bad_roles:
        raise ValidationError(f"{name}: column role has values {bad_roles}; expected 'train' or 'test'")
    out["role"] = out["role"].astype(str)
    for col in KMEANS_INT_COLUMNS:
        values = pd.to_numeric(out[col], errors="coerce")
        low = 0 if col == "repeat" else 1
        bad = values.isna() | (values < low) | (values != values.round())
        if bad.any():
            rows = list(out.index[bad][:5])
            raise ValidationError(f"{name}: column {col} must hold integers >= {low}; bad rows {rows}")
        out[col] = values.astype("int64")
    for col in _KMEANS_FLOAT_COLUMNS:
        values = pd.to_numeric(out[col], errors="coerce")
        bad = values.isna() & out[col].notna()
        if bad.any():
            raise ValidationError(f"{name}: column {col} has non-numeric values in rows {list(out.index[bad][:5])}")
        out[col] = values.astype("float64")
    bad = ~(out["calc_time_s"] > 0)
    if bad.any():
        raise ValidationError(f"{name}: calc_time_s must be > 0 seconds; bad rows {list(out.index[bad][:5])}")
    out.attrs.update(frame.attrs)
    return out


def read_measured_kmeans(path) -> pd.DataFrame:
    """Read a measured K-means table (CSV of :data:`KMEANS_COLUMNS`) and its sidecar JSON.

    The sidecar's content (machine, date, command, method, ...) is in ``frame.attrs``; a
    missing sidecar gives a :class:`~workbench.errors.ParseWarning` and empty attrs.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV; its sidecar is the same name with ``.json``.

    Returns
    -------
    pandas.DataFrame
        One row per run, checked by :func:`validate_kmeans_runs`.

    Raises
    ------
    DataFormatError
        For an unreadable file, or a CSV that disagrees with the checksum of its sidecar.
    ValidationError
        For missing columns or bad values.
    """
    return read_measured_csv(path, validate_kmeans_runs, "machine, date, method")


# ----------------------------------------------------------------------------- communication sweeps

#: The two communication benchmarks, as named in a sweep's ``frame.attrs["benchmark"]``.
COMM_BENCHMARKS = ("pingpong", "datagen")
#: Columns of the ping-pong sweep table, in order (times in microseconds; :data:`PINGPONG_UNITS`).
PINGPONG_COLUMNS = [
    "S", "M", "PPN", "N", "I", "SW", "R", "processes", "iterations", "repeat",
    "comm_time_us", "median_us", "mpi_library", "host",
]
#: Columns of the per-rank data-generator table, in order (timers in seconds, summed over
#: the time steps; :data:`DATAGEN_UNITS`).
DATAGEN_COLUMNS = [
    "run_id", "rank", "host", "nodes", "ppn", "processes", "wss_bytes", "load", "extra_ops", "msg_multiple",
    "message_bytes", "messages", "iterations", "barrier", "comm_s", "comp_s", "total_s",
]
#: Computational loads of the data generator and their default operations per element
#: ([Branikas2024] section 4.3 naming): the values of the ``load`` column.
LOADS = {"memory": 1, "compute": 16}
#: Barrier placements between communication and computation ([Branikas2024] Listing 4.1): the
#: values of the ``barrier`` column.
BARRIERS = ("none", "socket", "global")
#: Unit and meaning of every ping-pong column (written into the sidecar).
PINGPONG_UNITS = {
    "S": "message size, bytes", "M": "messages (random partners) per process", "PPN": "processes per node",
    "N": "nodes", "I": "share of inter-node messages, 0..1", "SW": "switches in the allocation",
    "R": "racks in the allocation", "processes": "MPI processes", "iterations": "timed iterations",
    "repeat": "0-based repeat index", "comm_time_us": "max over ranks of the per-rank 3rd quartile, microseconds",
    "median_us": "median over ranks of the per-rank 3rd quartile, microseconds",
    "mpi_library": "MPI library (short)", "host": "host of rank 0",
}
#: Unit and meaning of every data-generator column (written into the sidecar).
DATAGEN_UNITS = {
    "run_id": "configuration x launch index (unique in the file)", "rank": "MPI rank", "host": "host of the rank",
    "nodes": "nodes of the launch", "ppn": "largest number of ranks on one node", "processes": "MPI processes",
    "wss_bytes": "working set per rank, bytes", "load": "memory (1 op/element) or compute",
    "extra_ops": "Jacobi updates per element per time step", "msg_multiple": "message size / sqrt(wss_bytes)",
    "message_bytes": "bytes per message", "messages": "messages per rank per time step",
    "iterations": "time steps", "barrier": "none, socket or global",
    "comm_s": "communication time incl. Waitall, summed over time steps, seconds",
    "comp_s": "computation time summed over time steps, seconds", "total_s": "time of the whole loop, seconds",
}

# the integer columns of each table and their least value
_COMM_INT_COLUMNS = {
    "pingpong": {"S": 1, "M": 1, "PPN": 1, "N": 1, "SW": 1, "R": 1, "processes": 2, "iterations": 1, "repeat": 0},
    "datagen": {"run_id": 0, "rank": 0, "nodes": 1, "ppn": 1, "processes": 2, "wss_bytes": 1, "extra_ops": 1,
                "message_bytes": 1, "messages": 1, "iterations": 1},
}
_COMM_POSITIVE = {"pingpong": ["comm_time_us", "median_us"], "datagen": ["msg_multiple", "total_s"]}
_COMM_NON_NEGATIVE = {"pingpong": ["I"], "datagen": ["comm_s", "comp_s"]}
_COMM_CHOICES = {"pingpong": {}, "datagen": {"load": tuple(LOADS), "barrier": BARRIERS}}


def validate_comm_sweep(frame: pd.DataFrame, benchmark: str, name: str) -> pd.DataFrame:
    """Check a communication sweep table and return it typed, in its columns' order.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, with at least :data:`PINGPONG_COLUMNS` or :data:`DATAGEN_COLUMNS`.
    benchmark : {"pingpong", "datagen"}
        Which of the two tables it is.
    name : str
        What the table is (a file name), used in the error messages.

    Returns
    -------
    pandas.DataFrame
        A copy with integer counts, float times and ``frame.attrs``.

    Raises
    ------
    ValidationError
        For a missing column, an empty table, counts that are not integers at or above their
        least value, times that are not finite and positive (or non-negative), unknown loads
        or barriers, an inter-node ratio outside [0, 1], or a median above the maximum.
    """
    columns = PINGPONG_COLUMNS if benchmark == "pingpong" else DATAGEN_COLUMNS
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValidationError(f"{name}: missing column(s) {missing} of a {benchmark} sweep table; "
                              f"it has {list(frame.columns)}")
    if frame.empty:
        raise ValidationError(f"{name}: the {benchmark} sweep table has no rows")
    out = frame[columns].copy()
    for col, low in _COMM_INT_COLUMNS[benchmark].items():
        values = pd.to_numeric(out[col], errors="coerce")
        bad = values.isna() | (values < low) | (values != values.round())
        if bad.any():
            rows = list(out.index[bad][:5])
            raise ValidationError(f"{name}: column {col} must hold integers >= {low}; bad rows {rows}")
        out[col] = values.astype("int64")
    for col in _COMM_POSITIVE[benchmark] + _COMM_NON_NEGATIVE[benchmark]:
        values = pd.to_numeric(out[col], errors="coerce")
        low_ok = values > 0 if col in _COMM_POSITIVE[benchmark] else values >= 0
        bad = values.isna() | ~low_ok | (values == float("inf"))
        if bad.any():
            need = "> 0" if col in _COMM_POSITIVE[benchmark] else ">= 0"
            rows = list(out.index[bad][:5])
            raise ValidationError(f"{name}: column {col} must be finite and {need}; bad rows {rows}")
        out[col] = values.astype("float64")
    for col, allowed in _COMM_CHOICES[benchmark].items():
        bad = ~out[col].isin(allowed)
        if bad.any():
            raise ValidationError(f"{name}: column {col} has values {sorted(set(out[col][bad].astype(str)))}; "
                                  f"expected one of {list(allowed)}")
    if benchmark == "pingpong":
        if (out["I"] > 1).any():
            raise ValidationError(f"{name}: column I (inter-node ratio) must lie in [0, 1]")
        if (out["median_us"] > out["comm_time_us"] * (1 + 1e-9)).any():
            raise ValidationError(f"{name}: median_us exceeds comm_time_us (the maximum over processes) in some rows")
    for col in ("host", "mpi_library") if benchmark == "pingpong" else ("host",):
        out[col] = out[col].astype(str)
    out.attrs.update(frame.attrs)
    return out


def _read_comm(path, benchmark: str) -> pd.DataFrame:
    return read_measured_csv(path, lambda frame, name: validate_comm_sweep(frame, benchmark, name),
                             "machine, date, MPI version")


def read_comm_pingpong(path) -> pd.DataFrame:
    """Read a ping-pong sweep table (:data:`PINGPONG_COLUMNS`) with its sidecar in ``frame.attrs``.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV; its sidecar is the same name with ``.json``.

    Returns
    -------
    pandas.DataFrame
        One row per configuration and launch, checked by :func:`validate_comm_sweep`.

    Raises
    ------
    DataFormatError
        For an unreadable file, or a CSV that disagrees with the checksum of its sidecar.
    ValidationError
        For missing columns or bad values. A missing sidecar is a ParseWarning.
    """
    return _read_comm(path, "pingpong")


def read_comm_datagen(path) -> pd.DataFrame:
    """Read a per-rank data-generator table (:data:`DATAGEN_COLUMNS`) with its sidecar in ``frame.attrs``.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV; its sidecar is the same name with ``.json``.

    Returns
    -------
    pandas.DataFrame
        One row per rank and configuration, checked by :func:`validate_comm_sweep`.

    Raises
    ------
    DataFormatError, ValidationError
        As :func:`read_comm_pingpong`.
    """
    return _read_comm(path, "datagen")


# ----------------------------------------------------------------------------- multi-phase demo


def read_fractal_demo(path) -> pd.DataFrame:
    """Read the measured multi-phase demo profile with its sidecar JSON in ``frame.attrs``.

    The CSV is a profile (:func:`workbench.io.read_profile_csv`); the sidecar holds
    ``target_size``, ``small_sizes``, ``machine``, ``date``, ... and the row count and
    checksum of the CSV, which are checked (:func:`~workbench.io.sidecar.read_measured_csv`).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV; its sidecar is the same name with ``.json``.

    Returns
    -------
    pandas.DataFrame
        The profile frame (``size, phase, time_s, run, total_s``).

    Raises
    ------
    DataFormatError
        For an unreadable file, or a CSV and sidecar that disagree (naming both files).
    ValidationError
        For a malformed profile. A missing sidecar is a ParseWarning.
    """

    def parse(data: bytes, name: str) -> pd.DataFrame:
        buffer = io.BytesIO(data)
        buffer.name = name  # read_profile_csv names the file in its messages
        return read_profile_csv(buffer)

    return read_measured_csv(Path(path), lambda frame, name: frame, "target size, machine, date", parse=parse)
