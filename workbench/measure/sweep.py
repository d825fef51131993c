"""Measure the K-means workload over a sweep of configurations: FiM-Cal's training and test data.

Every run is ``python -m workbench.workloads.kmeans`` (bulk-synchronous parallel Lloyd, see
:mod:`workbench.workloads.kmeans`) under ``perf stat`` in control mode, so only the
calculation phase (workers started ... joined) is counted (paper section 2.1: the hardware
variables TC, SC, U and the clock F of a run). :func:`kmeans_design` is the default plan:
small *training* configurations on 1, 2, 4 processes and a few larger *test*
configurations on 1-8 processes (this machine has 2 cores, so 3-8 processes oversubscribe
it - the effect the models must predict). Runs are ordered repeat by repeat, so that slow
drifts of the machine spread over all configurations instead of biasing one.

Columns of the frame of :func:`measure_kmeans` (one row per run; :data:`MEASURED_COLUMNS`):

===========================  =====================================================================
``role``                     ``"train"`` or ``"test"``
``iterations``               I, Lloyd iterations (= FiM stages)
``clusters``                 K, clusters
``points``                   N, data points
``dims``                     d, dimensions of a point
``processes``                t, worker processes
``repeat``                   0-based repeat index of this (configuration, t)
``calc_time_s``              wall time of the calculation (workers started ... joined), seconds
``cycles``                   TC: CPU cycles of the parent and every worker in the calculation, count
``stalled_cycles_frontend``  cycles without instructions supplied by the front end, count
``stalled_cycles_backend``   cycles stalled in the back end, count (NaN where the CPU lacks the
                             event, e.g. AMD Zen)
``stall_cycles``             SC: frontend + backend where backend is counted, else frontend, count
``task_clock_ms``            CPU time of the parent and workers in the calculation, milliseconds
``cpus_utilized``            perf's "CPUs utilized": task-clock / wall time of the *whole* run
                             (interpreter start-up included), so not the calculation's; for reference
``utilization``              U per process = task_clock_s / (calc_time_s * processes): the fraction
                             of the calculation's wall time each process spent on a CPU, 0..1
``freq_hz``                  F: effective clock = cycles / task_clock_s, Hz
===========================  =====================================================================

Counter columns are float (NaN = not measured: perf unavailable, or the event not
supported). Why SC = frontend + backend: FiM's passive state is "stalled, waiting for
resources"; perf splits stalls into the front end (instruction fetch/decode starved) and the
back end (execution units, memory). Where both are counted their sum is SC (the two can
overlap on some CPUs, making it an upper bound; FiM's validity check SC < TC catches an
overshoot); where the CPU exposes only the front-end event, that is all of SC that can be
measured and SC is a lower bound.

CLI: ``python -m workbench.measure.sweep [--out runs.csv] [--force]`` runs the default plan
and writes the CSV plus ``<same>.json`` with the machine facts, method and the CSV's checksum
(:func:`write_measured_kmeans`); :func:`read_measured_kmeans` reads both back and checks them.
The file format (columns, units, checks, reader) is defined in the data layer,
:mod:`workbench.io.measured`, so that the dataset catalogue reads it without this module;
it is re-exported here.
Without ``--out`` the files go to ``kmeans_<host>.csv`` in
:func:`~workbench.io.sidecar.default_measure_dir` (``$WORKBENCH_MEASURE_DIR``, else
``~/.local/share/workbench/measured``), never into the repository's ``data/``; an existing
file, or a path in the repository's data, is refused unless ``--force`` is given (checked
before measuring). One sweep runs at a time per machine
(:func:`~workbench.measure.lock.exclusive_measurement`): a second is refused at once.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import subprocess
import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from workbench.errors import MeasurementError, ValidationError, WorkbenchWarning
from workbench.io.measured import KMEANS_COLUMNS as MEASURED_COLUMNS
from workbench.io.measured import (
    KMEANS_INT_COLUMNS,
    KMEANS_ROLES,
    KMEANS_UNITS,
    read_measured_kmeans,
    validate_kmeans_runs,
)
from workbench.io.sidecar import check_output_path, default_measure_dir, sidecar_path, write_measured_csv
from workbench.measure.lock import exclusive_measurement
from workbench.measure.machine import SINGLE_THREAD_ENV, machine_facts
from workbench.measure.perf import DEFAULT_EVENTS, perf_unavailable_reason, run_perf_stat
from workbench.validation import positive_int

__all__ = [
    "MEASURED_COLUMNS",
    "METHOD",
    "KMeansConfig",
    "default_kmeans_path",
    "kmeans_design",
    "machine_facts",
    "measure_kmeans",
    "read_measured_kmeans",
    "write_measured_kmeans",
]

#: How the data are measured (written into the sidecar JSON).
METHOD = (
    "Bulk-synchronous parallel K-means (Lloyd; workbench.workloads.kmeans): the parent generates "
    "N Gaussian-blob points in d dimensions (seeded), forks t worker processes (fork context, "
    "contiguous chunks), and runs I iterations; per iteration it sends the centroids to every "
    "worker over a pipe, each worker returns per-cluster sums and counts of its chunk's nearest-"
    "centroid assignment, the parent reduces and updates the centroids (barrier). BLAS/OpenMP "
    "single-threaded. Each run is a fresh `python -m workbench.workloads.kmeans` under "
    "`perf stat -x, -e cycles,stalled-cycles-frontend,stalled-cycles-backend,task-clock "
    "-D -1 --control fifo:...`; counters are enabled only around the calculation (workers "
    "started ... joined), whose wall time calc_time_s the parent measures with perf_counter. "
    "U = task_clock / (calc_time_s * t); F = cycles / task_clock; SC = frontend + backend stall "
    "cycles (backend where supported). Runs ordered repeat by repeat."
)


@dataclass(frozen=True)
class KMeansConfig:
    """One K-means configuration of a sweep.

    I, K, N, d, and optionally its own process counts (``None``: the sweep's
    ``processes``) and its role (``"train"`` / ``"test"``).
    """

    points: int
    clusters: int
    iterations: int
    dims: int = 8
    processes: tuple[int, ...] | None = None
    role: str = "train"

    def __post_init__(self):
        where = f"KMeansConfig(points={self.points!r}, clusters={self.clusters!r}, iterations={self.iterations!r})"
        for name in ("points", "clusters", "iterations", "dims"):
            positive_int(getattr(self, name), name, where)
        if self.clusters > self.points:
            raise ValidationError(f"{where}: clusters must not exceed points")
        if self.role not in KMEANS_ROLES:
            raise ValidationError(f"{where}: role must be 'train' or 'test', got {self.role!r}")
        if self.processes is not None:
            object.__setattr__(self, "processes", _process_counts(self.processes, where))
            if max(self.processes) > self.points:
                raise ValidationError(f"{where}: processes {max(self.processes)} exceeds points")


def _process_counts(values, where: str) -> tuple[int, ...]:
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = (values,)
    try:
        counts = tuple(values)
    except TypeError:
        raise ValidationError(f"{where}: processes must be positive integers, got {values!r}") from None
    if not counts:
        raise ValidationError(f"{where}: processes is empty: give at least one process count")
    return tuple(positive_int(v, "processes", where) for v in counts)


def kmeans_design(
    *,
    train_points: Sequence[int] = (50_000, 100_000, 200_000),
    train_clusters: Sequence[int] = (8, 16, 32),
    train_iterations: Sequence[int] = (20, 40, 80),
    train_processes: Sequence[int] = (1, 2, 4),
    test_configs: Sequence[tuple[int, int, int]] = ((320_000, 16, 40), (320_000, 32, 80), (640_000, 16, 20),
                                                    (640_000, 32, 40)),
    test_processes: Sequence[int] = (1, 2, 3, 4, 6, 8),
    dims: int = 8,
) -> list[KMeansConfig]:
    """Return the default sweep plan.

    The full grid of small training configurations (``train_points`` x ``train_clusters`` x
    ``train_iterations`` on ``train_processes``) and the larger test configurations
    ``(points, clusters, iterations)`` on ``test_processes``.

    Sized for this 2-core machine (measured): the smallest run (N = 50 000, K = 8, I = 20)
    calculates for ~75-110 ms, the largest (N = 640 000, K = 32, I = 40, one process) for
    ~4.2 s; 81 training + 24 test runs per repeat, about 2 minutes per repeat, so the default
    3 repeats take about 6-7 minutes on an otherwise idle machine.

    Parameters
    ----------
    train_points : sequence of int, default (50000, 100000, 200000)
        Data points N of the training configurations.
    train_clusters : sequence of int, default (8, 16, 32)
        Clusters K of the training configurations.
    train_iterations : sequence of int, default (20, 40, 80)
        Iterations I of the training configurations.
    train_processes : sequence of int, default (1, 2, 4)
        Process counts of the training runs.
    test_configs : sequence of (int, int, int), optional
        ``(points, clusters, iterations)`` of the test configurations; default (320000, 16,
        40), (320000, 32, 80), (640000, 16, 20) and (640000, 32, 40).
    test_processes : sequence of int, default (1, 2, 3, 4, 6, 8)
        Process counts of the test runs.
    dims : int, default 8
        Dimensions of the data points.
    """
    train = [
        KMeansConfig(n, k, i, dims, tuple(train_processes), "train")
        for n in train_points for k in train_clusters for i in train_iterations
    ]
    test = [KMeansConfig(n, k, i, dims, tuple(test_processes), "test") for n, k, i in test_configs]
    return train + test


def _as_config(item, index: int) -> KMeansConfig:
    if isinstance(item, KMeansConfig):
        return item
    if isinstance(item, Mapping):
        try:
            return KMeansConfig(**item)
        except TypeError as exc:
            raise ValidationError(f"measure_kmeans: configuration {index} {dict(item)!r}: {exc}") from None
    raise ValidationError(
        f"measure_kmeans: configuration {index} must be a KMeansConfig or a mapping with points, "
        f"clusters, iterations, got {item!r}"
    )


def _command(config: KMeansConfig, processes: int, seed: int) -> list[str]:
    return [
        sys.executable, "-m", "workbench.workloads.kmeans",
        "--points", str(config.points), "--clusters", str(config.clusters),
        "--iterations", str(config.iterations), "--processes", str(processes),
        "--dims", str(config.dims), "--seed", str(seed),
    ]


def _result_line(stdout: str, argv: list[str]) -> dict:
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                break
    raise MeasurementError(f"{shlex.join(argv)}: no JSON result line in its output: {stdout[-500:]!r}")


def _run_once(config: KMeansConfig, processes: int, seed: int, use_perf: bool, timeout: float | None) -> dict:
    argv = _command(config, processes, seed)
    env = {**os.environ, **SINGLE_THREAD_ENV}
    counters: dict = {}
    if use_perf:
        run = run_perf_stat(argv, control=True, env=env, timeout=timeout)
        stdout = run.stdout
        counters = dict(run.stat)
    else:
        try:
            proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise MeasurementError(f"{shlex.join(argv)} timed out after {timeout:g} s") from None
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
            raise MeasurementError(f"{shlex.join(argv)} failed with exit code {proc.returncode}; stderr tail:\n{tail}")
        stdout = proc.stdout
    result = _result_line(stdout, argv)
    return {
        "calc_time_s": result["calc_time_s"],
        "cycles": counters.get("cycles"),
        "stalled_cycles_frontend": counters.get("stalled_cycles_frontend"),
        "stalled_cycles_backend": counters.get("stalled_cycles_backend"),
        "task_clock_ms": counters.get("task_clock_ms"),
        "cpus_utilized": counters.get("cpus_utilized"),
    }


def _derive(frame: pd.DataFrame) -> pd.DataFrame:
    """Add SC, U and F (vectorised) and order the columns."""
    backend = frame["stalled_cycles_backend"]
    frame["stall_cycles"] = frame["stalled_cycles_frontend"] + backend.fillna(0.0)
    task_clock_s = frame["task_clock_ms"] / 1e3
    frame["utilization"] = task_clock_s / (frame["calc_time_s"] * frame["processes"])
    frame["freq_hz"] = frame["cycles"] / task_clock_s
    return frame[MEASURED_COLUMNS]


def _planned_runs(configs, processes, repeats) -> tuple[list[tuple[int, KMeansConfig, int]], int]:
    """Return every (repeat, configuration, process count) of :func:`measure_kmeans`, checked, and the repeats."""
    plan = [_as_config(item, i) for i, item in enumerate(configs)]
    if not plan:
        raise ValidationError("measure_kmeans: the sweep plan is empty: give at least one configuration (see "
                              "kmeans_design())")
    default_processes = _process_counts(processes, "measure_kmeans")
    repeats = positive_int(repeats, "repeats", "measure_kmeans")
    runs = [
        (repeat, config, t)
        for repeat in range(repeats)
        for config in plan
        for t in (config.processes or default_processes)
    ]
    for _, config, t in runs:
        if t > config.points:
            raise ValidationError(f"measure_kmeans: {t} processes exceed points={config.points}")
    return runs, repeats


def _use_perf(perf: bool) -> bool:
    """Whether the sweep counts with perf: asked for and available (a WorkbenchWarning says why not)."""
    if not perf:
        warnings.warn("measure_kmeans: perf=False: measuring times only, counter columns are NaN",
                      WorkbenchWarning, stacklevel=3)
        return False
    reason = perf_unavailable_reason()
    if reason is not None:
        warnings.warn(f"measure_kmeans: perf unavailable, measuring times only (counter columns NaN): {reason}",
                      WorkbenchWarning, stacklevel=3)
        return False
    return True


def measure_kmeans(
    configs: Iterable[KMeansConfig | Mapping],
    processes: Sequence[int] = (1, 2, 4),
    repeats: int = 3,
    *,
    perf: bool = True,
    progress: bool = True,
    seed: int = 0,
    timeout: float | None = 600.0,
) -> pd.DataFrame:
    """Run every (configuration, process count, repeat) and return the tidy frame.

    Columns :data:`MEASURED_COLUMNS` (see the module docstring), one row per run.

    ``configs``: :class:`KMeansConfig` objects or mappings of their fields; a configuration
    without its own ``processes`` uses ``processes``. ``perf=False``, or perf unavailable,
    measures times only: the counter columns are NaN and a
    :class:`~workbench.errors.WorkbenchWarning` says so. ``seed`` fixes the data (the same
    for every repeat: repeats measure timing noise). ``timeout``: seconds per run.

    Runs inside :func:`~workbench.measure.lock.exclusive_measurement`: a
    :class:`~workbench.errors.MeasurementError` at once when another measurement is running on
    this machine, or when a process count exceeds :func:`~workbench.measure.lock.max_processes`.

    Parameters
    ----------
    configs : iterable of KMeansConfig or mapping
        The configurations (mappings of their fields).
    processes : sequence of int, default (1, 2, 4)
        Process counts of a configuration without its own.
    repeats : int, default 3
        Runs per configuration and process count.
    perf : bool, default True
        Count hardware events with ``perf stat`` (False: times only).
    progress : bool, default True
        Show a progress bar.
    seed : int, default 0
        Seed of the data (the same for every repeat).
    timeout : float, optional, default 600.0
        Seconds per run (None: no limit).
    """
    runs, repeats = _planned_runs(configs, processes, repeats)
    use_perf = _use_perf(perf)
    rows = []
    most = max(t for _, _, t in runs)
    with exclusive_measurement(f"K-means sweep ({len(runs)} run{'s' if len(runs) != 1 else ''})", processes=most):
        bar = tqdm(runs, desc="K-means sweep", unit="run", disable=not progress)
        try:
            for repeat, config, t in bar:
                bar.set_postfix_str(f"{config.role} N={config.points} K={config.clusters} I={config.iterations} t={t}")
                try:
                    measured = _run_once(config, t, seed, use_perf, timeout)
                except MeasurementError as exc:
                    raise MeasurementError(
                        f"measure_kmeans: run {config} with {t} processes (repeat {repeat}) failed: {exc}") from None
                rows.append({
                    "role": config.role, "iterations": config.iterations, "clusters": config.clusters,
                    "points": config.points, "dims": config.dims, "processes": t, "repeat": repeat, **measured,
                })
        finally:
            bar.close()
    frame = pd.DataFrame(rows)
    frame[KMEANS_INT_COLUMNS] = frame[KMEANS_INT_COLUMNS].astype("int64")
    measured = list(rows[0])[len(KMEANS_INT_COLUMNS) + 1:]
    frame[measured] = frame[measured].astype("float64")
    frame = _derive(frame)
    frame.attrs.update({"perf": use_perf, "seed": seed, "repeats": repeats})
    return frame


# ----------------------------------------------------------------------------- files

def default_kmeans_path() -> Path:
    """Where the sweep goes without an explicit path.

    ``kmeans_<host>.csv`` in :func:`~workbench.io.sidecar.default_measure_dir` (outside
    the repository).
    """
    return default_measure_dir() / f"kmeans_{socket.gethostname()}.csv"


def write_measured_kmeans(frame: pd.DataFrame, path=None, *, command: str | None = None, extra: Mapping | None = None,
                          force: bool = False) -> Path:
    """Write the measured frame and its metadata sidecar, atomically.

    The frame goes to ``path`` (CSV; default :func:`default_kmeans_path`) and ``<path>.json``
    gets :func:`machine_facts`, the date, ``command``, :data:`METHOD`, the column units and the
    CSV's row count and checksum, atomically (:func:`~workbench.io.sidecar.write_measured_csv`).
    An existing measurement, or a path in the repository's tracked ``data/``, is a
    :class:`~workbench.errors.MeasurementError` unless ``force=True``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measured runs.
    path : str or path-like, optional
        The CSV; default :func:`default_kmeans_path`.
    command : str, optional
        The command that measured them, for the sidecar.
    extra : mapping, optional
        Further metadata for the sidecar.
    force : bool, default False
        Overwrite an existing measurement or write into the repository's data.
    """
    path = check_output_path(default_kmeans_path() if path is None else path, force=force)
    frame = validate_kmeans_runs(frame, str(path))
    meta = {
        "machine": machine_facts(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "method": METHOD,
        "events": list(DEFAULT_EVENTS),
        "perf": bool(frame.attrs.get("perf", frame["cycles"].notna().any())),
        "seed": frame.attrs.get("seed"),
        "repeats": frame.attrs.get("repeats"),
        "runs": len(frame),
        "columns": KMEANS_UNITS,
        **dict(extra or {}),
    }
    return write_measured_csv(frame, path, meta, force=force)


# ----------------------------------------------------------------------------- CLI

#: A plan of two tiny configurations (a few seconds) to try the harness.
TINY_DESIGN = (KMeansConfig(20_000, 8, 10, processes=(1, 2)),
               KMeansConfig(40_000, 8, 10, processes=(1, 2), role="test"))


def main(argv: list[str] | None = None) -> int:
    """Measure a K-means sweep from the command line; return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default None: ``sys.argv[1:]``.
    """
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="python -m workbench.measure.sweep",
        description="Measure the K-means workload under perf stat and write CSV + JSON metadata.",
    )
    parser.add_argument("--out", default=None,
                        help="CSV to write (metadata beside it as .json); default kmeans_<host>.csv in "
                             "$WORKBENCH_MEASURE_DIR or ~/.local/share/workbench/measured")
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing measurement, or write into the repository's data/")
    parser.add_argument("--repeats", type=int, default=3, help="runs per (configuration, process count); default 3")
    parser.add_argument("--design", choices=("default", "tiny"), default="default",
                        help="default: kmeans_design() (~6-7 min); tiny: two small configurations")
    parser.add_argument("--no-perf", action="store_true", help="measure times only (counter columns NaN)")
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    args = parser.parse_args(argv)
    plan = kmeans_design() if args.design == "default" else list(TINY_DESIGN)
    try:
        out = check_output_path(default_kmeans_path() if args.out is None else args.out, force=args.force)
        with exclusive_measurement("K-means sweep (python -m workbench.measure.sweep)"):
            frame = measure_kmeans(plan, repeats=args.repeats, perf=not args.no_perf, seed=args.seed)
            path = write_measured_kmeans(
                frame, out, command=shlex.join([sys.executable, "-m", "workbench.measure.sweep", *argv]),
                extra={"design": [asdict(c) for c in plan]}, force=args.force,
            )
    except (MeasurementError, ValidationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(frame)} runs to {path} and {sidecar_path(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
