"""Loaders for the measured MPI collective latencies used to calibrate FiM-Com.

Two real datasets of the data mirror (``WORKBENCH_DATA_MIRROR``, see
:mod:`workbench.io.catalogue`); the project reads them in place and never copies them.

``osu-orfeo/`` - :func:`read_osu_orfeo`
    OSU Micro-Benchmarks 7.3 latencies in microseconds, measured on two AMD EPYC 7H12
    nodes (2 sockets x 64 cores each) of the ORFEO cluster with Open MPI 4.1.5 in 2024
    (GitHub marcotallone/collective-operations-latency at 1fbc4a2b, MIT licence).  All
    latencies are OSU's per-call averages over ``iterations`` calls.

    ====================  ======================================================================
    file                  content (columns of the file)
    ====================  ======================================================================
    ``bcast_core.csv``    ``osu_bcast`` with ``--map-by core``, socket, node: Open MPI
    ``bcast_socket.csv``  ``coll_tuned`` algorithm forced to 0, 1, 2, 5, 6, ``cores`` = number of
    ``bcast_node.csv``    processes 2..256 (socket, node: ..254), ``size`` 1 B..1 MiB, ``latency``/``min``/``max``
                          (average, minimum, maximum over the processes), ``iterations``
    ``reduce_core.csv``   ``osu_reduce`` with ``--map-by core``, algorithms 0, 1, 2, 4; same columns
    ``nbft.csv``          linear broadcast (data README) by ``mapby`` (cache, core, socket,
                          node) for ``p`` = 2..257 processes; ``comm`` (= ``p`` - 1 in every
                          row); also the ``p50``/``p95``/``p99`` percentiles of the latency
    ``p2p.csv``           point-to-point latency of 2 processes, the receiver ``recv`` (0..127)
                          placed by ``mapby`` (same cache, core, socket, other node);
                          ``p50``/``p95``/``p99``, no ``min``/``max``; 1 B..4 MiB
    ====================  ======================================================================

``extrap-mpi/mpi_data.csv`` - :func:`read_extrap_mpi`
    Summary statistics of repeated timings of 7 MPI collectives (``MPI_Allgather``,
    ``MPI_Allreduce``, ``MPI_Alltoall``, ``MPI_Barrier``, ``MPI_Bcast``, ``MPI_Gather``,
    ``MPI_Reduce``) with IntelMPI and OpenMPI on 32..512 ranks: N repetitions, mean, sd,
    median, min, max, IQR and three 95% confidence intervals of the location
    (Extra-P test data, GitHub extra-p/extrap tests/data at 291ac815, BSD-3-Clause).
    The file states no unit; the magnitudes (``MPI_Barrier`` on 32 ranks: mean 13 with
    min 10) say microseconds, so the columns are labelled ``_us`` - *likely* µs, not
    documented upstream.

Known quirks of ``osu-orfeo`` (kept, not cleaned: every row of every file is one frame row,
``source``/``line`` say where it came from, so callers choose how to aggregate):

* ``bcast_socket.csv`` concatenates several campaigns (two blank lines, 8066-8067, mark
  one seam; blank lines are skipped): 4032 rows are verbatim copies of earlier rows (the
  full 64 x 21 sweeps of algorithms 0, 1 and 2 appear twice), and a
  configuration (algorithm, cores, size) appears up to 3 times, often with different
  values.  Example: algorithm 0, 206 cores, 2 B has latency 167.25 µs (max 342.04) in two
  identical rows but 9.21 µs in the third, while 1 B and 4 B take about 8-10 µs: an outlier.
* ``bcast_core.csv``: algorithm 1 (basic linear) is the only one measured on every core
  count 2..256 (the others: 2, 6, 10, ..., 254); with 1000 iterations the counts 2, 6, ...,
  254 were measured twice (different values), and a further campaign with 10000
  iterations for 2..93 cores has every row present twice (1930 verbatim copies; the
  93-core sweep is incomplete, 38 rows instead of 42).
* ``nbft.csv`` (mapping node) goes up to ``p`` = 257 processes, one more than the 256 cores
  of two nodes, so those runs cannot all have used only the two nodes named upstream.
* The ``size`` column of the ``bcast_*`` files is written as a float (``1.0``).
"""

from __future__ import annotations

import re
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ValidationError
from workbench.io.text import as_path, csv_frame, is_folder, read_file

__all__ = [
    "BCAST_ALGORITHMS",
    "REDUCE_ALGORITHMS",
    "OSU_ORFEO_COLUMNS",
    "EXTRAP_MPI_COLUMNS",
    "read_osu_orfeo",
    "read_extrap_mpi",
]

# Open MPI 4.1 ``coll_tuned`` algorithm ids as accepted by ``--mca coll_tuned_bcast_algorithm``
# / ``coll_tuned_reduce_algorithm``: the enum tables ``bcast_algorithms[]`` in
# ompi/mca/coll/tuned/coll_tuned_bcast_decision.c and ``reduce_algorithms[]`` in
# ompi/mca/coll/tuned/coll_tuned_reduce_decision.c (open-mpi/ompi, v4.1.x; 7-9 for bcast
# arrived in 4.1.0).  Open MPI calls id 0 "ignore": nothing is forced and the tuned
# component's fixed decision rules pick the algorithm, hence "default" here.
#: Open MPI 4.1 ``coll_tuned`` broadcast algorithm names by id.
BCAST_ALGORITHMS = {
    0: "default",
    1: "basic_linear",
    2: "chain",
    3: "pipeline",
    4: "split_binary_tree",
    5: "binary_tree",
    6: "binomial",
    7: "knomial",
    8: "scatter_allgather",
    9: "scatter_allgather_ring",
}
#: Open MPI 4.1 ``coll_tuned`` reduce algorithm names by id.
REDUCE_ALGORITHMS = {
    0: "default",
    1: "linear",
    2: "chain",
    3: "pipeline",
    4: "binary",
    5: "binomial",
    6: "in-order_binary",
    7: "rabenseifner",
}
_ALGORITHMS = {"bcast": BCAST_ALGORITHMS, "reduce": REDUCE_ALGORITHMS}

#: Column order of the frame returned by :func:`read_osu_orfeo`.
OSU_ORFEO_COLUMNS = [
    "benchmark",
    "mapping",
    "algorithm",
    "algorithm_name",
    "processes",
    "peer",
    "size_bytes",
    "latency_us",
    "min_us",
    "max_us",
    "p50_us",
    "p95_us",
    "p99_us",
    "iterations",
    "source",
    "line",
]
#: Column order of the frame returned by :func:`read_extrap_mpi`.
EXTRAP_MPI_COLUMNS = [
    "library",
    "collective",
    "ranks",
    "repetitions",
    "mean_us",
    "sd_us",
    "median_us",
    "min_us",
    "max_us",
    "iqr_us",
    "ci_sd_left_us",
    "ci_sd_right_us",
    "ci_median_left_us",
    "ci_median_right_us",
    "ci_iqr_left_us",
    "ci_iqr_right_us",
    "smallest_left",
    "largest_left",
    "smallest_right",
    "largest_right",
    "smallest_interval",
    "largest_interval",
    "source",
    "line",
]

MAPPINGS = ("cache", "core", "socket", "node")
_COLLECTIVE_FILE = re.compile(r"(bcast|reduce)_(cache|core|socket|node)\.csv")
_OSU_TIMES = ("latency", "min", "max", "p50", "p95", "p99")
# The header line of each kind of osu-orfeo file, as in the files (any column order is read).
_OSU_HEADERS = {
    "collective": "algorithm,cores,iterations,size,latency,min,max",
    "nbft": "mapby,p,comm,size,latency,min,max,iterations,p50,p95,p99",
    "p2p": "mapby,size,latency,iterations,p50,p95,p99,recv",
}
_OSU_NAMES = "bcast_{core,socket,node,cache}.csv, reduce_{core,socket,node,cache}.csv, nbft.csv, p2p.csv"
_OSU_SORT = ["benchmark", "mapping", "algorithm", "processes", "peer", "size_bytes", "source", "line"]

EXTRAP_FILE = "mpi_data.csv"
# file column -> frame column (the file's names are lower-cased by the reader)
_EXTRAP_STATS = {
    "mean": "mean_us",
    "sd": "sd_us",
    "median": "median_us",
    "min": "min_us",
    "max": "max_us",
    "iqr": "iqr_us",
    "ci_sd_left": "ci_sd_left_us",
    "ci_sd_right": "ci_sd_right_us",
    "ci_median_left": "ci_median_left_us",
    "ci_median_right": "ci_median_right_us",
    "ci_iqr_left": "ci_iqr_left_us",
    "ci_iqr_right": "ci_iqr_right_us",
}
_EXTRAP_LABELS = ["smallest_left", "largest_left", "smallest_right", "largest_right", "smallest_interval",
                  "largest_interval"]
_EXTRAP_HEADER = ",".join(["mpi", "variable", "Ranks", "N", *_EXTRAP_STATS, *_EXTRAP_LABELS])
# Whole numbers above this are corrupt (they would not fit the int64 columns exactly).
_MAX_WHOLE = 2.0**53


# ----------------------------------------------------------------------------- helpers

def _read_table(path: Path, header: str, what: str) -> pd.DataFrame:
    """Read the CSV as strings, indexed by line number, with its header checked.

    ``header`` is the expected header line; any column order is accepted.
    """
    try:
        raw = csv_frame(read_file(path, what=what), str(path), example=header)
    except ValidationError as exc:  # empty file / no data rows / repeated names: a format problem here
        raise DataFormatError(str(exc)) from None
    expected = set(header.lower().split(","))
    missing = sorted(expected - set(raw.columns))
    extra = sorted(set(raw.columns) - expected)
    if missing:
        raise DataFormatError(
            f"{path}: missing column(s) {missing} for {what}; the file has {list(raw.columns)[:30]}; "
            f"expected the header line {header!r}"
        )
    if extra:
        raise DataFormatError(f"{path}: unexpected column(s) {extra[:30]} for {what}; expected the header line "
                              f"{header!r}")
    return raw


def _numbers(raw: pd.DataFrame, column: str, path: Path, *, integer: bool = False, minimum: float = 0,
             meaning: str = "a number") -> np.ndarray:
    """Column ``column`` as floats.

    A DataFormatError naming the file, column, line and value for empty, non-numeric or
    non-finite cells, fractional values (``integer``) and values below ``minimum``.
    """
    text = raw[column]
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)

    def reject(bad: np.ndarray, problem: str) -> None:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            value = text.iloc[i]
            shown = "an empty cell" if pd.isna(value) else repr(value)
            raise DataFormatError(f"{path}: column {column!r} {problem}, got {shown} on line {raw.index[i]}")

    reject(~np.isfinite(values), "must be numeric")
    if integer:
        reject(values % 1 != 0, "must be a whole number")
        reject(np.abs(values) > _MAX_WHOLE, "must be a plausible whole number (below 2^53)")
    reject(values < minimum, f"must be {meaning}")
    return values


# ----------------------------------------------------------------------------- OSU on ORFEO

def _osu_kind(path: Path) -> tuple[str, str, str | None]:
    """Return (schema, benchmark, mapping or None) from the file name."""
    match = _COLLECTIVE_FILE.fullmatch(path.name)
    if match:
        return "collective", match.group(1), match.group(2)
    if path.name in ("nbft.csv", "p2p.csv"):
        return path.stem, path.stem, None
    raise DataFormatError(f"{path}: unknown osu-orfeo file name {path.name!r}; expected one of {_OSU_NAMES}")


def _read_osu_file(path: Path) -> pd.DataFrame:
    schema, benchmark, mapping = _osu_kind(path)
    raw = _read_table(path, _OSU_HEADERS[schema], f"an osu-orfeo {path.stem} file")
    n = len(raw)

    def whole(column: str, minimum: int, meaning: str) -> np.ndarray:
        return _numbers(raw, column, path, integer=True, minimum=minimum, meaning=meaning).astype(np.int64)

    if schema == "collective":
        algorithm = whole("algorithm", 0, "an Open MPI algorithm id >= 0")
        names = _ALGORITHMS[benchmark]
        unknown = sorted(set(algorithm.tolist()) - set(names))
        if unknown:
            raise DataFormatError(
                f"{path}: unknown Open MPI {benchmark} algorithm id(s) {unknown}; Open MPI 4.1 knows {names}"
            )
        algorithm_name = pd.Series(algorithm).map(names).astype("str").array
        mappings = np.full(n, mapping, dtype=object)
        processes = whole("cores", 1, "a process count >= 1")
        peer = pd.array([pd.NA] * n, dtype="Int64")
        algorithm = pd.array(algorithm, dtype="Int64")
    else:
        mappings = raw["mapby"].to_numpy(dtype=object)
        bad = ~pd.Series(mappings).isin(MAPPINGS).to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataFormatError(
                f"{path}: column 'mapby' must be one of {list(MAPPINGS)}, got {mappings[i]!r} on line {raw.index[i]}"
            )
        algorithm = pd.array([pd.NA] * n, dtype="Int64")
        algorithm_name = pd.array([None] * n, dtype="str")
        if schema == "nbft":
            processes = whole("p", 1, "a process count >= 1")
            peer = pd.array(whole("comm", 0, "a rank >= 0"), dtype="Int64")
        else:  # a point-to-point pair
            processes = np.full(n, 2, dtype=np.int64)
            peer = pd.array(whole("recv", 0, "a rank >= 0"), dtype="Int64")

    times = {
        f"{c}_us": (
            _numbers(raw, c, path, minimum=0, meaning="a non-negative time in microseconds")
            if c in raw.columns else np.full(n, np.nan)
        )
        for c in _OSU_TIMES
    }
    frame = pd.DataFrame(
        {
            "benchmark": benchmark,
            "mapping": mappings,
            "algorithm": algorithm,
            "algorithm_name": algorithm_name,
            "processes": processes,
            "peer": peer,
            "size_bytes": whole("size", 1, "a positive message size in bytes"),
            **times,
            "iterations": pd.array(whole("iterations", 1, "an iteration count >= 1"), dtype="Int64"),
            "source": path.name,
            "line": raw.index.to_numpy(dtype=np.int64),
        }
    )
    return frame[OSU_ORFEO_COLUMNS]


def read_osu_orfeo(path: str | PathLike) -> pd.DataFrame:
    """Read one osu-orfeo CSV file, or every ``*.csv`` of a folder, into one tidy frame.

    ``path`` is a file named ``bcast_<mapping>.csv``, ``reduce_<mapping>.csv``
    (``<mapping>`` = core, socket, node or cache), ``nbft.csv`` or ``p2p.csv``, or a
    folder holding such files (other files such as ``LICENSE`` are ignored; every
    ``*.csv`` must have one of these names).  See the module docstring for what each
    file holds and its known quirks: rows are kept as they are, duplicates included.

    Returns one row per row of the file(s), sorted by ``benchmark``, ``mapping``,
    ``algorithm``, ``processes``, ``peer``, ``size_bytes``, then file and line:

    ==================  =======  =============================================================
    column              dtype    meaning
    ==================  =======  =============================================================
    ``benchmark``       str      ``"bcast"``, ``"reduce"`` (from the file name), ``"nbft"``
                                 or ``"p2p"``
    ``mapping``         str      process placement (``mpirun --map-by``): ``"core"``,
                                 ``"socket"``, ``"node"``, ``"cache"``; from the file name
                                 for bcast/reduce, from the ``mapby`` column otherwise
    ``algorithm``       Int64    Open MPI ``coll_tuned`` algorithm id forced for the run
                                 (:data:`BCAST_ALGORITHMS`, :data:`REDUCE_ALGORITHMS`);
                                 ``<NA>`` for nbft and p2p (not recorded in those files)
    ``algorithm_name``  str      its Open MPI 4.1 name (0 = ``"default"``: Open MPI's own
                                 decision rules); missing (NaN) for nbft and p2p
    ``processes``       int64    MPI processes: ``cores`` (bcast/reduce), ``p`` (nbft),
                                 2 (p2p)
    ``peer``            Int64    nbft: the file's ``comm`` (``p - 1`` in every ORFEO row);
                                 p2p: the file's ``recv``, where the receiver sits
                                 (0..127, the sender is rank 0);
                                 ``<NA>`` for bcast/reduce
    ``size_bytes``      int64    message size in bytes (> 0)
    ``latency_us``      float64  OSU average latency per call in microseconds (average
                                 over the processes for collectives)
    ``min_us``          float64  minimum over the processes (µs); NaN in p2p
    ``max_us``          float64  maximum over the processes (µs); NaN in p2p
    ``p50_us``          float64  50th/95th/99th percentile latency (µs); NaN in the
    ``p95_us``                   bcast/reduce files
    ``p99_us``
    ``iterations``      Int64    timed calls OSU averaged over
    ``source``          str      file name, e.g. ``"bcast_core.csv"``
    ``line``            int64    line number in that file (the header is line 1)
    ==================  =======  =============================================================

    Parameters
    ----------
    path : str or path-like
        A file named as above, or a folder holding such files.

    Raises
    ------
    DataFormatError
        naming the file (and column and line): nonexistent path, a folder without CSV
        files, unknown file name, missing or unexpected columns, empty or non-numeric
        cells, fractional counts, non-positive sizes, negative latencies, unknown
        ``mapby`` values or algorithm ids.
    """
    path = as_path(path)
    if is_folder(path):  # a DataFormatError naming the path when it does not exist
        files = sorted(path.glob("*.csv"))
        if not files:
            raise DataFormatError(f"{path}: no osu-orfeo CSV files in this folder (expected {_OSU_NAMES})")
        for file in files:  # check every name before reading anything
            _osu_kind(file)
    else:
        files = [path]
    frame = pd.concat([_read_osu_file(f) for f in files], ignore_index=True)
    return frame.sort_values(_OSU_SORT, na_position="first", kind="stable").reset_index(drop=True)


# ----------------------------------------------------------------------------- Extra-P

def read_extrap_mpi(path: str | PathLike) -> pd.DataFrame:
    """Read Extra-P's ``mpi_data.csv`` (the file, or the folder holding it) into a tidy frame.

    Each row summarises the repeated timings of one MPI collective, one MPI library and
    one rank count.  **Units**: the file does not state them; the values are *likely*
    microseconds (see the module docstring), hence the ``_us`` suffix.

    =========================  =======  ======================================================
    column                     dtype    meaning (file column)
    =========================  =======  ======================================================
    ``library``                str      ``"IntelMPI"`` or ``"OpenMPI"`` (``mpi``)
    ``collective``             str      e.g. ``"MPI_Bcast"`` (``variable``)
    ``ranks``                  int64    MPI ranks (``Ranks``)
    ``repetitions``            int64    timings summarised, N (``N``)
    ``mean_us``, ``sd_us``     float64  sample mean and standard deviation
    ``median_us``              float64  sample median
    ``min_us``, ``max_us``     float64  fastest and slowest repetition
    ``iqr_us``                 float64  interquartile range
    ``ci_sd_left_us``,         float64  95% interval of the mean, mean -/+ t(0.975, N-1) sd/√N
    ``ci_sd_right_us``                  (checked against the file to 1e-9)
    ``ci_median_left_us``,     float64  95% interval of the median (order statistics)
    ``ci_median_right_us``
    ``ci_iqr_left_us``,        float64  median -/+ 1.58 IQR/√N: the box-plot notch interval
    ``ci_iqr_right_us``                 (McGill, Tukey & Larsen 1978)
    ``smallest_left`` ...      str      which interval (``"SD"``, ``"Med"``, ``"IQR"``) has
    ``largest_interval``                the smallest/largest left bound, right bound, width
    ``source``, ``line``       str/int  file name and line number (header = line 1)
    =========================  =======  ======================================================

    Rows are sorted by library, collective and ranks.

    Parameters
    ----------
    path : str or path-like
        ``mpi_data.csv``, or the folder holding it.

    Raises
    ------
    DataFormatError
        naming the file, column and line: nonexistent path, folder without
        ``mpi_data.csv``, missing or unexpected columns, empty or non-numeric cells,
        fractional or non-positive ranks/N, negative times.
    """
    path = as_path(path)
    if is_folder(path):  # a DataFormatError naming the path when it does not exist
        if not (path / EXTRAP_FILE).exists():
            raise DataFormatError(f"{path}: no {EXTRAP_FILE} in this folder")
        path = path / EXTRAP_FILE
    raw = _read_table(path, _EXTRAP_HEADER, "Extra-P MPI summary statistics (mpi_data.csv)")

    def text(column: str) -> np.ndarray:
        values = raw[column]
        if values.isna().any():
            i = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise DataFormatError(f"{path}: column {column!r} has an empty cell on line {raw.index[i]}")
        return values.to_numpy(dtype=object)

    def whole(column: str, meaning: str) -> np.ndarray:
        return _numbers(raw, column, path, integer=True, minimum=1, meaning=meaning).astype(np.int64)

    frame = pd.DataFrame(
        {
            "library": text("mpi"),
            "collective": text("variable"),
            "ranks": whole("ranks", "a rank count >= 1"),
            "repetitions": whole("n", "a repetition count >= 1"),
            **{
                new: _numbers(raw, old, path, minimum=0, meaning="a non-negative time")
                for old, new in _EXTRAP_STATS.items()
            },
            **{c: text(c) for c in _EXTRAP_LABELS},
            "source": path.name,
            "line": raw.index.to_numpy(dtype=np.int64),
        }
    )
    return frame.sort_values(["library", "collective", "ranks", "line"]).reset_index(drop=True)[EXTRAP_MPI_COLUMNS]
