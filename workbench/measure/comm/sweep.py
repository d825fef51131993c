"""Sweep driver of the communication benchmarks.

One ``mpiexec`` launch per process count runs a whole grid of configurations, the results become
one tidy CSV plus a JSON sidecar.

* :func:`pingpong_grid`, :func:`datagen_grid` -- the configuration grids (validated; an empty
  grid is an error).
* :func:`run_sweep` -- for every process count, write the grid as JSON and start
  ``mpiexec [mpiexec_args] -n P python -m mpi4py -m workbench.measure.comm.<benchmark> --grid
  G --out O`` (:mod:`~workbench.measure.comm.pingpong`, :mod:`~workbench.measure.comm.datagen`);
  starting MPI once per process count, not once per configuration, amortises the start-up
  (~0.3 s here, much more on a cluster). Rank 0's ``#progress`` lines drive a ``tqdm.auto``
  bar per launch. Returns the frame (:data:`PINGPONG_COLUMNS` / :data:`DATAGEN_COLUMNS`) with
  the run facts in ``frame.attrs``: machine (:func:`workbench.measure.machine.machine_facts`),
  dates, duration, MPI library version string, mpi4py version, load average before/after
  every launch, the exact mpiexec command lines and the MPI environment variables set.
* :func:`write_comm_sweep` / :func:`read_comm_pingpong` / :func:`read_comm_datagen` -- CSV +
  ``.json`` sidecar on disk, written atomically with the CSV's checksum
  (:func:`~workbench.io.sidecar.write_measured_csv`), read back with the checksum and validation
  checked (``frame.attrs`` = the sidecar). The readers and the table format (columns, units,
  checks) belong to the data layer, :mod:`workbench.io.measured`, and are re-exported here.

CLI (``python -m workbench.measure.comm``)::

    python -m workbench.measure.comm pingpong --processes 2 3 4 --out comm_pingpong.csv
    python -m workbench.measure.comm datagen --processes 2 4 --iterations 16 --out comm_datagen.csv

Without ``--out`` the files go to ``comm_<benchmark>.csv`` in
:func:`~workbench.io.sidecar.default_measure_dir` (``$WORKBENCH_MEASURE_DIR``, else
``~/.local/share/workbench/measured``); an existing file, or a path in the repository's
``data/``, needs ``--force`` (checked before the sweep starts). One sweep runs at a time per
machine and the ranks of a launch are capped
(:func:`~workbench.measure.lock.exclusive_measurement`).

On a cluster the same commands run unchanged from inside a job; pass the launcher's options
through ``--mpiexec-args`` (one string, split like a shell would), e.g. ``--mpiexec-args "-f
$PBS_NODEFILE -ppn 16"`` (MPICH/Intel MPI) or ``"--hostfile hosts --map-by node"`` (Open MPI),
and ``--mpiexec /path/to/mpiexec`` for the site's MPI (mpi4py must be built against it: ``pip
install mpi4py`` without the ``mpich`` wheel, or the site's module). ``--host-map map.json``
(``{"host": {"switch": "s1", "rack": "r1"}}``) gives [Papadopoulou2015]'s ``SW`` and ``R``; without it both
are 1. The venv must be visible on every node at the same path.

Oversubscription: this machine has 2 cores; MPICH's waiting ranks busy-poll, which on 3-4 ranks
takes CPU from the ranks that compute. ``--yield`` sets MPICH's
``MPIR_CVAR_POLLS_BEFORE_YIELD=1``, ``MPIR_CVAR_CH4_PROGRESS_THROTTLE=1`` and
``MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=1`` (the settings MPICH's own CI uses to
run mpi4py's tests on 3-5 ranks on 2-core runners) for every launch of the sweep; the sidecar
records them. Other MPI libraries ignore them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from workbench.errors import MeasurementError, ValidationError, WorkbenchError
from workbench.io.measured import (
    COMM_BENCHMARKS,
    DATAGEN_UNITS,
    PINGPONG_UNITS,
    read_comm_datagen,
    read_comm_pingpong,
    validate_comm_sweep,
)
from workbench.io.sidecar import check_output_path, default_measure_dir, sidecar_path, write_measured_csv
from workbench.measure.comm.datagen import DATAGEN_COLUMNS, LOADS, DatagenConfig
from workbench.measure.comm.pingpong import PINGPONG_COLUMNS, PingPongConfig, load_host_map
from workbench.measure.comm.worker import PROGRESS_PREFIX
from workbench.measure.lock import exclusive_measurement
from workbench.measure.machine import SINGLE_THREAD_ENV, machine_facts
from workbench.models.comm.patterns import integer_at_least

__all__ = [
    "BENCHMARKS",
    "DEFAULT_SIZES",
    "YIELD_ENV",
    "pingpong_grid",
    "datagen_grid",
    "default_comm_path",
    "find_mpiexec",
    "run_sweep",
    "write_comm_sweep",
    "read_comm_pingpong",
    "read_comm_datagen",
    "parse_bytes",
    "main",
]

BENCHMARKS = COMM_BENCHMARKS
#: Default ping-pong message sizes: 128 B x 4^k up to 2 MiB, then 4 MiB.
DEFAULT_SIZES = (128, 512, 2048, 8192, 32768, 131072, 524288, 2097152, 4194304)
#: MPICH settings that make waiting ranks yield the CPU (see the module docstring).
YIELD_ENV = {
    "MPIR_CVAR_POLLS_BEFORE_YIELD": "1",
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT": "1",
}

_METHOD = {
    "pingpong": (
        "002 section III.B: per configuration (S, M, repeat) every rank does `warmup` untimed and "
        "`iterations` timed iterations of Barrier; MPI.Wtime; M Irecv + M Isend of S bytes with its M "
        "random partners (a fresh random pairing per configuration and repeat, round k a random matching; "
        "odd process counts leave one rank out per round); Waitall. Per rank: drop the slowest "
        "floor(iterations/4) iterations, keep the maximum of the rest (3rd quartile); comm_time_us = max "
        "over ranks, median_us = median over ranks. PPN, N from MPI.Get_processor_name of every rank; I "
        "from the partners and that mapping; SW, R from the host map (1 and 1 without one). "
        "Configurations with M > processes - 1 are skipped (no more distinct partners)."
    ),
    "datagen": (
        "004 Listings 2.2/3.1/4.1: per configuration a global barrier and one untimed exchange, then "
        "`iterations` time steps of [messages Isend/Irecv of message_bytes = msg_multiple*sqrt(wss_bytes) "
        "(rounded to 8 B) with the periodic 2-D Cartesian neighbours N, W, S, E (re-iterated; message k "
        "sent to neighbour k mod 4, received from the opposite one) + Waitall] -> optional barrier "
        "(none / socket: ranks with the same host and CPU-affinity socket / global) -> Jacobi 5-point "
        "update of the rank's n x n float64 grid (n = isqrt(wss_bytes/8)) computed extra_ops times per "
        "element (memory: 1, compute: 16), numpy, blocked by ~256 KiB of rows. comm_s and comp_s are "
        "summed over the time steps, total_s spans the loop (barrier time = total - comm - comp). One "
        "row per rank and configuration; run_id numbers the configurations across the whole sweep."
    ),
}
# the units of the columns, written into the sidecar
_UNITS = {"pingpong": PINGPONG_UNITS, "datagen": DATAGEN_UNITS}


def _values(values, name: str, where: str) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        values = [values]
    values = list(values)
    if not values:
        raise ValidationError(f"{where}: {name} is empty, so the grid has zero configurations")
    return values


def pingpong_grid(sizes: Sequence[int] = DEFAULT_SIZES, messages: Sequence[int] = (1, 2, 3, 4),
                  repeats: int = 3) -> list[PingPongConfig]:
    """Return every ``(S, M)`` of ``sizes x messages``, repeat by repeat.

    Repeat by repeat, so that slow drifts of the machine spread over all configurations.

    Parameters
    ----------
    sizes : sequence of int, default DEFAULT_SIZES
        Message sizes S, bytes.
    messages : sequence of int, default (1, 2, 3, 4)
        Messages per process M.
    repeats : int, default 3
        Repeats of the whole grid.
    """
    where = "pingpong_grid"
    sizes, messages = _values(sizes, "sizes", where), _values(messages, "messages", where)
    repeats = integer_at_least(repeats, "repeats", where, 1)
    return [PingPongConfig(s, m, r) for r in range(repeats) for s in sizes for m in messages]


def datagen_grid(wss_bytes: Sequence[int] = (2 * 2**20, 8 * 2**20, 32 * 2**20),
                 loads: Sequence[str] = ("memory", "compute"),
                 msg_multiples: Sequence[float] = (1, 5, 10, 50, 100), messages: Sequence[int] = (2, 4, 8),
                 barriers: Sequence[str] = ("none",)) -> list[DatagenConfig]:
    """Return the full grid ``wss_bytes x loads x msg_multiples x messages x barriers``.

    [Branikas2024] section 7.2's feature space, scaled down; nodes and PPN come from the launches.

    Parameters
    ----------
    wss_bytes : sequence of int, default (2 MiB, 8 MiB, 32 MiB)
        Working-set sizes per rank, bytes.
    loads : sequence of str, default ("memory", "compute")
        Computational load types.
    msg_multiples : sequence of float, default (1, 5, 10, 50, 100)
        Message sizes as multiples of sqrt(WSS).
    messages : sequence of int, default (2, 4, 8)
        Messages per rank.
    barriers : sequence of str, default ("none",)
        The optional barrier of each time step (``"none"``, ``"global"``, ...; see
        :mod:`workbench.measure.comm.datagen`).
    """
    where = "datagen_grid"
    axes = [_values(v, n, where) for v, n in ((wss_bytes, "wss_bytes"), (loads, "loads"),
                                               (msg_multiples, "msg_multiples"), (messages, "messages"),
                                               (barriers, "barriers"))]
    return [DatagenConfig(w, ld, mm, m, b)
            for w in axes[0] for ld in axes[1] for mm in axes[2] for m in axes[3] for b in axes[4]]


def find_mpiexec(mpiexec: str | os.PathLike | None = None) -> str:
    """Return the ``mpiexec`` to use.

    ``mpiexec`` if given, else the one next to ``sys.executable`` (the venv's, from the
    ``mpich`` wheel), else the first on ``PATH``.

    Parameters
    ----------
    mpiexec : str or path-like, optional
        The launcher to use; default: the venv's, else the first on ``PATH``.
    """
    if mpiexec is not None:
        found = shutil.which(str(mpiexec))
        if found is None:
            raise MeasurementError(f"mpiexec {str(mpiexec)!r} is not an executable")
        return found
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("mpiexec")
    if found is None:
        raise MeasurementError(
            "no mpiexec found next to the Python interpreter or on PATH: install the 'mpi' extra "
            "(pip install -e '.[mpi]': mpi4py + the mpich wheel) or load the site's MPI"
        )
    return found


def _check_mpi4py() -> None:
    if importlib.util.find_spec("mpi4py") is None:
        raise MeasurementError("mpi4py is not installed: pip install -e '.[mpi]' (mpi4py + mpich)")


def _launch(benchmark: str, processes: int, spec: dict, workdir: Path, mpiexec: str, mpiexec_args: Sequence[str],
            env: Mapping[str, str], timeout: float | None, progress: bool) -> tuple[pd.DataFrame, dict]:
    grid = workdir / f"grid-{benchmark}-{processes}.json"
    out = workdir / f"part-{benchmark}-{processes}.csv"
    grid.write_text(json.dumps(spec))
    argv = [mpiexec, *mpiexec_args, "-n", str(processes), sys.executable, "-m", "mpi4py",
            "-m", f"workbench.measure.comm.{benchmark}", "--grid", str(grid), "--out", str(out)]
    load_before = os.getloadavg()
    started = time.perf_counter()
    stderr_path = workdir / f"stderr-{processes}.txt"
    bar = tqdm(total=len(spec["configs"]), desc=f"{benchmark} {processes} ranks", unit="config", disable=not progress)
    with open(stderr_path, "w+") as stderr:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL, text=True,
                                env={**os.environ, **env}, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, 9)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        try:
            for line in proc.stdout:
                if line.startswith(PROGRESS_PREFIX):
                    bar.n = int(line.split()[1])
                    bar.refresh()
            proc.wait()
        finally:
            if timer:
                timer.cancel()
            bar.close()
        stderr.seek(0)
        tail = "\n".join(stderr.read().strip().splitlines()[-15:])
    command = shlex.join(argv)
    if timed_out.is_set():
        raise MeasurementError(f"{command} timed out after {timeout:g} s")
    if proc.returncode != 0 or not out.exists():
        raise MeasurementError(f"{command} failed with exit code {proc.returncode}; stderr tail:\n{tail}")
    facts = json.loads(out.with_suffix(".json").read_text())
    facts.update({
        "command": command,
        "configurations": len(spec["configs"]),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "launch_wall_s": round(time.perf_counter() - started, 2),
    })
    return pd.read_csv(out), facts


def run_sweep(benchmark: str, configs: Iterable, processes: Sequence[int], *, iterations: int | None = None,
              warmup: int = 5, seed: int = 0, host_map=None, mpiexec: str | None = None,
              mpiexec_args: Sequence[str] | str = (), yield_cpu: bool = False, timeout: float | None = 3600.0,
              progress: bool = True, notes: str | None = None) -> pd.DataFrame:
    """Run ``configs`` once per process count in ``processes`` and return the tidy frame.

    ``configs`` are :func:`pingpong_grid` / :func:`datagen_grid` items or mappings of their
    fields; the run facts are in ``frame.attrs`` (see the module docstring).

    Ping-pong configurations with ``M > P - 1`` are skipped for ``P`` processes (listed in
    ``attrs["skipped"]``). Raises :class:`~workbench.errors.ValidationError` for a bad grid or
    process list and :class:`~workbench.errors.MeasurementError` when MPI cannot run, when
    another measurement is running on this machine or when a process count exceeds
    :func:`~workbench.measure.lock.max_processes` (see
    :func:`~workbench.measure.lock.exclusive_measurement`).

    Parameters
    ----------
    benchmark : {"pingpong", "datagen"}
        The MPI program run.
    configs : iterable
        :func:`pingpong_grid` / :func:`datagen_grid` items, or mappings of their fields.
    processes : sequence of int
        The process counts, one launch each.
    iterations : int, optional
        Timed iterations per configuration; default 200 (ping-pong), 32 time steps (data generator).
    warmup : int, default 5
        Untimed iterations first (ping-pong only).
    seed : int, default 0
        Seed of the random pairing (ping-pong only).
    host_map : str, path-like or mapping, optional
        Host -> switch and rack (ping-pong only); default None: one of each.
    mpiexec : str, optional
        The launcher; default :func:`find_mpiexec`.
    mpiexec_args : sequence of str or str, default ()
        Extra launcher options (a list, or one string split like a shell).
    yield_cpu : bool, default False
        Set :data:`YIELD_ENV` (waiting ranks yield the CPU).
    timeout : float, optional, default 3600.0
        Seconds per launch (None: no limit).
    progress : bool, default True
        Show a progress bar.
    notes : str, optional
        Free text stored in the sidecar (e.g. machine load).
    """
    plan, counts = _sweep_plan(benchmark, configs, processes)
    iterations = iterations if iterations is not None else (200 if benchmark == "pingpong" else 32)
    if isinstance(mpiexec_args, str):
        mpiexec_args = shlex.split(mpiexec_args)
    hosts = load_host_map(host_map)
    _check_mpi4py()
    launcher = find_mpiexec(mpiexec)
    env = {**SINGLE_THREAD_ENV, **(YIELD_ENV if yield_cpu else {})}

    launches, skipped, parts = [], [], []
    started_at, started = datetime.now(timezone.utc), time.perf_counter()
    with exclusive_measurement(f"{benchmark} MPI sweep ({len(plan)} configurations)", processes=max(counts)), \
            tempfile.TemporaryDirectory(prefix="workbench-comm-") as tmp:
        for p in counts:
            runnable = [c for c in plan if benchmark != "pingpong" or c.M <= p - 1]
            skipped += [{"processes": p, **asdict(c)} for c in plan if c not in runnable]
            if not runnable:
                continue
            spec = {"iterations": iterations, "configs": [asdict(c) for c in runnable]}
            if benchmark == "pingpong":
                spec.update({"warmup": warmup, "seed": seed, "host_map": hosts})
            frame, facts = _launch(benchmark, p, spec, Path(tmp), launcher, mpiexec_args, env, timeout, progress)
            if benchmark == "datagen":
                frame["run_id"] += sum(launch["configurations"] for launch in launches)
            parts.append(frame)
            launches.append(facts)
    if not parts:
        raise ValidationError(f"run_sweep: no configuration can run on {counts} processes (all need more partners)")
    columns = PINGPONG_COLUMNS if benchmark == "pingpong" else DATAGEN_COLUMNS
    frame = pd.concat(parts, ignore_index=True)[columns]
    pingpong = {"warmup": warmup, "seed": seed, "host_map": hosts,
                "switches_racks": "from the host map" if hosts else "no host map: SW = R = 1"}
    frame.attrs.update(_sweep_facts(benchmark, started_at, started, launches, env, iterations,
                                    pingpong if benchmark == "pingpong" else {}, skipped, plan, notes))
    return frame


def _sweep_plan(benchmark: str, configs: Iterable, processes: Sequence[int]) -> tuple[list, list[int]]:
    """Return the checked configurations and process counts of :func:`run_sweep`."""
    if benchmark not in BENCHMARKS:
        raise ValidationError(f"run_sweep: unknown benchmark {benchmark!r}; choose one of {list(BENCHMARKS)}")
    config_type = PingPongConfig if benchmark == "pingpong" else DatagenConfig
    plan = [config_type.from_mapping(c, i) for i, c in enumerate(configs)]
    if not plan:
        raise ValidationError(f"run_sweep: the {benchmark} grid has zero configurations")
    counts = _values(processes, "processes", "run_sweep")
    return plan, [integer_at_least(p, "every process count", "run_sweep", 2) for p in counts]


def _sweep_facts(benchmark: str, started_at: datetime, started: float, launches: list, env: dict, iterations: int,
                 pingpong: dict, skipped: list, plan: list, notes: str | None) -> dict:
    """Return the run facts of a sweep for ``frame.attrs`` (the module docstring lists them)."""
    return {
        "benchmark": benchmark,
        "machine": machine_facts(),
        "date": started_at.isoformat(timespec="seconds"),
        "date_end": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "mpi_library_version": launches[0]["mpi_library_version"],
        "mpi4py_version": launches[0]["mpi4py_version"],
        "load_average_before": launches[0]["load_average_before"],
        "load_average_after": launches[-1]["load_average_after"],
        "mpi_env": env,
        "iterations": iterations,
        **pingpong,
        "method": _METHOD[benchmark],
        "launches": launches,
        "skipped": skipped,
        "grid": [asdict(c) for c in plan],
        "columns": _UNITS[benchmark],
        "notes": notes,
    }


# ----------------------------------------------------------------------------- files

def default_comm_path(benchmark: str) -> Path:
    """Where a sweep goes without an explicit path.

    ``comm_<benchmark>.csv`` in :func:`~workbench.io.sidecar.default_measure_dir` (outside
    the repository).

    Parameters
    ----------
    benchmark : {"pingpong", "datagen"}
        The benchmark.
    """
    return default_measure_dir() / f"comm_{benchmark}.csv"


def write_comm_sweep(frame: pd.DataFrame, path=None, *, command: str | None = None, force: bool = False) -> Path:
    """Write a sweep frame and its metadata sidecar, atomically.

    The frame goes to ``path`` (CSV; default :func:`default_comm_path`) and its ``frame.attrs``
    (plus ``command`` and the CSV's row count and checksum) to ``<path>.json``, atomically
    (:func:`~workbench.io.sidecar.write_measured_csv`); the frame is validated first. An
    existing measurement, or a path in the repository's tracked ``data/``, is a
    :class:`~workbench.errors.MeasurementError` unless ``force=True``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The sweep, its run facts in ``frame.attrs``.
    path : str or path-like, optional
        The CSV; default :func:`default_comm_path`.
    command : str, optional
        The command that ran it, for the sidecar.
    force : bool, default False
        Overwrite an existing measurement or write into the repository's data.
    """
    benchmark = frame.attrs.get("benchmark")
    if benchmark not in BENCHMARKS:
        raise ValidationError(f"write_comm_sweep: frame.attrs['benchmark'] must be one of {list(BENCHMARKS)}, got "
                              f"{benchmark!r}")
    path = check_output_path(default_comm_path(benchmark) if path is None else path, force=force)
    frame = validate_comm_sweep(frame, benchmark, str(path))
    meta = {**frame.attrs, "command": command if command is not None else frame.attrs.get("command")}
    return write_measured_csv(frame, path, meta, force=force, float_format="%.6g")



# ----------------------------------------------------------------------------- CLI

_UNIT = {"": 1, "b": 1, "k": 2**10, "kib": 2**10, "kb": 2**10, "m": 2**20, "mib": 2**20, "mb": 2**20,
         "g": 2**30, "gib": 2**30, "gb": 2**30}


def parse_bytes(text) -> int:
    """``"128"``, ``"4KiB"``, ``"2MiB"``, ``"32M"`` -> bytes (binary units).

    Parameters
    ----------
    text : str or int
        A size with an optional binary unit.
    """
    match = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", str(text))
    if match is None or match.group(2).lower() not in _UNIT:
        raise ValidationError(f"cannot read {text!r} as a size in bytes (e.g. 128, 4KiB, 2MiB)")
    return int(match.group(1)) * _UNIT[match.group(2).lower()]


_HELP = {
    "pingpong": "Papadopoulou et al.'s random non-blocking ping-pong (S x M grid, repeats)",
    "datagen": "Branikas's halo-exchange data generator (working set x load x message size x messages)",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.measure.comm",
        description="Run the 002 ping-pong or the 004 data-generator sweep under MPI; write CSV + JSON sidecar.",
    )
    sub = parser.add_subparsers(dest="benchmark", required=True)
    for name in BENCHMARKS:
        p = sub.add_parser(name, help=_HELP[name], description=_METHOD[name])
        p.add_argument("--processes", type=int, nargs="+", default=[2, 4], help="one mpiexec launch per count (default "
                       "2 4)")
        p.add_argument("--out", help=f"CSV to write (.json sidecar beside it); default comm_{name}.csv in "
                                    "$WORKBENCH_MEASURE_DIR or ~/.local/share/workbench/measured")
        p.add_argument("--force", action="store_true",
                       help="overwrite an existing measurement, or write into the repository's data/")
        p.add_argument("--iterations", type=int, help="timed iterations (default: 200 ping-pong, 32 data generator)")
        p.add_argument("--mpiexec", help="mpiexec to use (default: the venv's, else PATH)")
        p.add_argument("--mpiexec-args", default="", help='extra launcher options as one string, e.g. "-f hosts -ppn '
                       '16"')
        p.add_argument("--yield", dest="yield_cpu", action="store_true",
                       help="MPICH: waiting ranks yield the CPU (for more ranks than cores)")
        p.add_argument("--timeout", type=float, default=3600.0, help="seconds per launch (default 3600)")
        p.add_argument("--notes", help="free text stored in the sidecar (e.g. machine load)")
        p.add_argument("--quiet", action="store_true", help="no progress bars")
    pp = sub.choices["pingpong"]
    pp.add_argument("--sizes", nargs="+", type=parse_bytes, default=list(DEFAULT_SIZES), help="message sizes S (128, "
                    "4KiB, 2MiB...)")
    pp.add_argument("--messages", nargs="+", type=int, default=[1, 2, 3, 4], help="partners M (default 1 2 3 4)")
    pp.add_argument("--repeats", type=int, default=3, help="repeats (default 3)")
    pp.add_argument("--warmup", type=int, default=5, help="untimed iterations first (default 5)")
    pp.add_argument("--seed", type=int, default=0, help="seed of the random pairings (default 0)")
    pp.add_argument("--host-map", help='JSON {"host": {"switch": ..., "rack": ...}} for SW and R')
    dg = sub.choices["datagen"]
    dg.add_argument("--wss", nargs="+", type=parse_bytes, default=[2 * 2**20, 8 * 2**20, 32 * 2**20],
                    help="working set per rank")
    dg.add_argument("--loads", nargs="+", choices=list(LOADS), default=list(LOADS))
    dg.add_argument("--msg-multiples", nargs="+", type=float, default=[1, 5, 10, 50, 100])
    dg.add_argument("--messages", nargs="+", type=int, default=[2, 4, 8])
    dg.add_argument("--barriers", nargs="+", default=["none"], help="none, socket, global")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a communication sweep from the command line; return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default None: ``sys.argv[1:]``.
    """
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    try:
        out = check_output_path(default_comm_path(args.benchmark) if args.out is None else args.out, force=args.force)
        if args.benchmark == "pingpong":
            configs = pingpong_grid(args.sizes, args.messages, args.repeats)
            extra = {"warmup": args.warmup, "seed": args.seed, "host_map": args.host_map}
        else:
            multiples = [int(m) if float(m).is_integer() else m for m in args.msg_multiples]
            configs = datagen_grid(args.wss, args.loads, multiples, args.messages, args.barriers)
            extra = {}
        frame = run_sweep(args.benchmark, configs, args.processes, iterations=args.iterations, mpiexec=args.mpiexec,
                          mpiexec_args=args.mpiexec_args, yield_cpu=args.yield_cpu, timeout=args.timeout,
                          progress=not args.quiet, notes=args.notes, **extra)
        path = write_comm_sweep(frame, out, command=shlex.join(["python", "-m", "workbench.measure.comm", *argv]),
                                force=args.force)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(frame)} rows to {path} and {sidecar_path(path)} in {frame.attrs['duration_s']} s")
    return 0
