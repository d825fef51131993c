r"""A real multi-phase program whose phases have different polynomial complexity in n.

The demonstration workload of the fractal model (Escobar & Boppana, [EscobarBoppana]): every run
at input size ``n`` executes four timed phases (:class:`~workbench.measure.phases.PhaseTimer`,
exclusive time; ``total_s`` = the whole run on the same clock; see :func:`measure_phases_demo`
for the choice of clock):

* ``setup`` - allocation of the two n x n grid buffers and random initialisation of the
  n x n matrix and the sort keys: O(n^2), small;
* ``stencil`` - :data:`SWEEPS` Jacobi sweeps of the 5-point Poisson stencil
  (-Laplace u = f, uniform f) on the n x n grid (vectorised slices into the second buffer):
  O(n^2) per sweep;
* ``sort`` - ``np.sort`` of n^2 / :data:`KEY_DIVISOR` random float64 keys:
  O(n^2 log n);
* ``dense_solve`` - ``np.linalg.solve`` of the n x n diagonally dominant system (LAPACK
  LU with partial pivoting, ~2/3 n^3 flops): O(n^3).

At small n the O(n^2) phases dominate; the O(n^3) solve takes over as n grows, so the share
of time in the major phases is not stable at first - which is what the convergence size C of
[EscobarBoppana] (§2.1) detects. With the constants (:data:`SWEEPS`, :data:`KEY_DIVISOR`), on this
project's 2-core VM the solve's share grows from ~0.3 at n = 250 to ~0.75 at n = 3000 and
~0.8 at n = 8000, while the O(n^2) stencil + setup fall from ~0.6 to ~0.15.

**Threads.** BLAS is limited to one thread (``threadpoolctl.threadpool_limits(1)`` around
the measurement; threadpoolctl comes with scikit-learn): a multi-threaded LU on a 2-core
machine shared with other processes would add scheduling noise and bend the n^3 law, the
default CPU-time clock (:func:`time.thread_time`) only sees the calling thread, and every
other phase is single-threaded numpy anyway.

CLI::

    python -m workbench.workloads.phases_demo --sizes 250 500 1000 1500 1800 2100 2400 2700 3000 \
        --target 8000 --repeats 3 --out fractal_demo.csv

runs one untimed warm-up round over the small sizes, then ``repeats`` rounds; each round runs
every small size then the target size (rounds interleave the sizes, so that a burst of load
from other processes hits several sizes rather than all repeats of one). It writes the
profile frame (``size, phase, time_s, run, total_s``) as CSV and a ``.json`` sidecar with
the machine, date, BLAS, load averages before
and after, the exact command, ``small_sizes``, ``target_size`` and the CSV's row count and
checksum, both atomically (:func:`~workbench.io.sidecar.write_measured_csv`).
:func:`read_fractal_demo` reads both back and checks them (sidecar in ``frame.attrs``); it belongs
to the data layer (:func:`workbench.io.measured.read_fractal_demo`) and is re-exported here.
Without ``--out`` the files go to ``fractal_demo.csv`` in
:func:`~workbench.io.sidecar.default_measure_dir` (``$WORKBENCH_MEASURE_DIR``, else
``~/.local/share/workbench/measured``); an existing file, or a path in the repository's
``data/``, needs ``--force`` (checked before measuring). The measurement runs inside
:func:`~workbench.measure.lock.exclusive_measurement` (one at a time per machine).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path
from time import perf_counter, thread_time

import numpy as np
import pandas as pd

from workbench.errors import ValidationError, WorkbenchError
from workbench.io.measured import read_fractal_demo
from workbench.io.sidecar import check_output_path, default_measure_dir, write_measured_csv
from workbench.measure.lock import exclusive_measurement
from workbench.measure.machine import machine_facts
from workbench.measure.phases import PhaseTimer

__all__ = [
    "CLOCKS",
    "KEY_DIVISOR",
    "PHASES",
    "SWEEPS",
    "default_demo_path",
    "measure_phases_demo",
    "read_fractal_demo",
    "run_phases",
    "write_fractal_demo",
]

#: Jacobi sweeps of the stencil phase per run.
SWEEPS = 2
#: Uniform source term of the Poisson problem the sweeps relax (-Laplace u = f).
SOURCE = 1.0
#: The sort phase sorts n^2 / KEY_DIVISOR keys.
KEY_DIVISOR = 4
#: Phase names in execution order.
PHASES = ("setup", "stencil", "sort", "dense_solve")
#: Clocks of :func:`measure_phases_demo`: the calling thread's CPU time or the wall clock.
CLOCKS = {"cpu": thread_time, "wall": perf_counter}

METHOD = (
    "Each run at size n times four phases with workbench.measure.phases.PhaseTimer (exclusive time on the clock "
    "named in 'clock': thread CPU time by default, wall time with --clock wall): setup (two n x n grid buffers, random "
    "n x n matrix and n^2/{k} sort keys, O(n^2)), "
    "stencil ({s} Jacobi sweeps of the 5-point Poisson stencil on the n x n grid, O(n^2)), sort (np.sort of n^2/{k} "
    "float64 keys, O(n^2 log n)), dense_solve (np.linalg.solve of an n x n diagonally dominant system, LU, "
    "O(n^3)). total_s = the run's time on the same clock (timer.run); wall_s lists each run's wall time. BLAS limited "
    "to 1 thread with threadpoolctl. Rounds "
    "repeat every small size then the target size, after one untimed warm-up round over the small sizes. Other "
    "development processes shared the 2 cores (see load_before / load_after)."
).format(s=SWEEPS, k=KEY_DIVISOR)


def _size(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 3:
        raise ValidationError(f"{where}: sizes must be integers >= 3 (grid side n), got {value!r}")
    return int(value)


def run_phases(n: int, timer: PhaseTimer, *, run: int | None = None, seed: int = 0) -> float:
    """One run of the workload at size ``n`` recorded in ``timer``.

    Returns a checksum (so that no phase's result is dead code).

    Parameters
    ----------
    n : int
        The input size.
    timer : PhaseTimer
        Records the phases.
    run : int, optional
        The repeat index; default: the timer's count of runs at ``n``.
    seed : int, default 0
        Seed of the input data.
    """
    n = _size(n, "run_phases")
    rng = np.random.default_rng(seed)
    with timer.run(n, run):
        with timer.phase("setup"):
            u = np.zeros((n, n))
            u[0, :] = 1.0  # a hot boundary, zero elsewhere
            v = u.copy()
            a = rng.random((n, n))
            a[np.diag_indices(n)] += n  # diagonally dominant: well conditioned
            b = rng.random(n)
            keys = rng.random(n * n // KEY_DIVISOR)
        with timer.phase("stencil"):
            h2f = SOURCE / (n - 1) ** 2  # uniform source term f, scaled by the grid step h^2
            for _ in range(SWEEPS):  # a fixed sweep count: the loop is over sweeps, not points
                out = v[1:-1, 1:-1]
                np.add(u[:-2, 1:-1], u[2:, 1:-1], out=out)
                out += u[1:-1, :-2]
                out += u[1:-1, 2:]
                out += h2f
                out *= 0.25
                u, v = v, u
        with timer.phase("sort"):
            ordered = np.sort(keys)
        with timer.phase("dense_solve"):
            x = np.linalg.solve(a, b)
    return float(u[n // 2, n // 2] + ordered[len(ordered) // 2] + x[0])


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def measure_phases_demo(
    sizes, target_size: int, *, repeats: int = 3, seed: int = 0, clock: str = "cpu", progress=None
) -> pd.DataFrame:
    """Measure the workload at every size in ``sizes`` and at ``target_size``, ``repeats`` rounds.

    Returns the profile frame with ``attrs`` ``small_sizes``, ``target_size``, ``repeats``,
    ``clock``, ``sweeps``, ``key_divisor``, ``blas`` (threadpoolctl info during the runs),
    ``load_before`` / ``load_after`` (1/5/15-minute load averages) and ``wall_s`` (one
    ``[size, run, wall seconds]`` per run, whatever the clock).

    ``clock``: ``"cpu"`` (default; :func:`time.thread_time`, the CPU time of the measuring
    thread, like TAU's ``CPU_TIME`` metric) or ``"wall"`` (:func:`time.perf_counter`, TAU's
    default ``TIME``). The program is single-threaded (BLAS limited to 1 thread), so on an
    idle machine both agree; on a machine shared with other processes the CPU time leaves out
    the time the scheduler gives to them, which would otherwise be measured as phase time.

    Runs inside :func:`~workbench.measure.lock.exclusive_measurement` (one process): a
    :class:`~workbench.errors.MeasurementError` at once when another measurement is running.

    Parameters
    ----------
    sizes : sequence of int
        The small input sizes.
    target_size : int
        The large run's size.
    repeats : int, default 3
        Rounds over all sizes.
    seed : int, default 0
        Seed of the input data.
    clock : {"cpu", "wall"}, default "cpu"
        The measuring thread's CPU time or wall time (see below).
    progress : callable, optional
        Receives ``(round, size, seconds)`` after each run.
    """
    from threadpoolctl import threadpool_info, threadpool_limits

    small = sorted({_size(s, "measure_phases_demo") for s in sizes})
    target = _size(target_size, "measure_phases_demo")
    if not small:
        raise ValidationError("measure_phases_demo: give at least one small size")
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValidationError(f"measure_phases_demo: repeats must be an integer >= 1, got {repeats!r}")
    if clock not in CLOCKS:
        raise ValidationError(f"measure_phases_demo: clock must be one of {sorted(CLOCKS)}, got {clock!r}")
    timer = PhaseTimer(clock=CLOCKS[clock])
    wall = []
    load_before = _load()
    with exclusive_measurement(f"phases demo ({len(small)} sizes + {target}, {repeats} rounds)", processes=1), \
            threadpool_limits(limits=1, user_api="blas"):
        blas = threadpool_info()
        # untimed warm-up round over the small sizes: BLAS initialisation, and the C library's
        # allocator adapts its mmap threshold to the first large frees - without this round the
        # first timed round of the small sizes pays extra page faults (seen: up to 1.5x slower)
        for n in small:
            run_phases(n, PhaseTimer(), seed=seed)
        for r in range(repeats):
            for n in [*(s for s in small if s != target), target]:
                start = perf_counter()
                run_phases(n, timer, run=r, seed=seed + r)
                wall.append([n, r, perf_counter() - start])
                if progress is not None:
                    progress(r, n, wall[-1][2])
    frame = timer.frame()
    frame.attrs.update(
        {
            "small_sizes": [s for s in small if s != target],
            "target_size": target,
            "repeats": int(repeats),
            "clock": f"{clock} ({CLOCKS[clock].__name__})",
            "sweeps": SWEEPS,
            "key_divisor": KEY_DIVISOR,
            "seed": seed,
            "blas": blas,
            "load_before": load_before,
            "load_after": _load(),
            "wall_s": wall,
        }
    )
    return frame


# ----------------------------------------------------------------------------- files


def default_demo_path() -> Path:
    """Where the demo goes without an explicit path.

    ``fractal_demo.csv`` in :func:`~workbench.io.sidecar.default_measure_dir` (outside the
    repository).
    """
    return default_measure_dir() / "fractal_demo.csv"


def write_fractal_demo(frame: pd.DataFrame, path=None, *, command: str | None = None, force: bool = False) -> Path:
    """Write the profile frame and its metadata sidecar, atomically.

    CSV at ``path`` (default :func:`default_demo_path`) and ``<path>.json`` (machine facts,
    date, method, command, the frame's attrs and the CSV's row count and checksum),
    atomically (:func:`~workbench.io.sidecar.write_measured_csv`). An existing measurement,
    or a path in the repository's tracked ``data/``, is a
    :class:`~workbench.errors.MeasurementError` unless ``force=True``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measured profile.
    path : str or path-like, optional
        The CSV; default :func:`default_demo_path`.
    command : str, optional
        The command that measured it, for the sidecar.
    force : bool, default False
        Overwrite an existing measurement or write into the repository's data.
    """
    path = check_output_path(default_demo_path() if path is None else path, force=force)
    clock = frame.attrs.get("clock", "unknown")
    meta = {
        "machine": {k: v for k, v in machine_facts().items() if not k.startswith("perf")},
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "method": METHOD,
        "columns": {
            "size": "grid side n (the stencil grid and the matrix are n x n)",
            "phase": "setup, stencil, sort, dense_solve",
            "time_s": f"exclusive time of the phase in the run, s, on the clock {clock}",
            "run": "repeat index (round) 0..repeats-1",
            "total_s": f"time of the whole run (timer.run), s, on the clock {clock}",
        },
        **{k: v for k, v in frame.attrs.items() if k != "time_unit"},
    }
    return write_measured_csv(frame, path, meta, force=force, float_format="%.9g")


# ----------------------------------------------------------------------------- CLI


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.workloads.phases_demo",
        description="Measure the multi-phase demo workload (stencil O(n^2), sort O(n^2 log n), dense solve O(n^3)) "
        "at small sizes and a target size; write the profile CSV and its .json sidecar.",
    )
    parser.add_argument("--sizes", type=int, nargs="+", required=True, help="small grid sides n")
    parser.add_argument("--target", type=int, required=True, help="the large target size N_Lrg (measured too)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds over all sizes (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the data (default 0)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: thread CPU time (default; robust to other processes); wall: perf_counter")
    parser.add_argument("--out", help="CSV to write (metadata beside it as .json); default fractal_demo.csv in "
                                      "$WORKBENCH_MEASURE_DIR or ~/.local/share/workbench/measured")
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing measurement, or write into the repository's data/")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Measure the multi-phase demo from the command line and write it; return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default None: ``sys.argv[1:]``.
    """
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)

    def progress(r, n, total):
        print(f"round {r} size {n}: {total:.3f} s", file=sys.stderr, flush=True)

    command = shlex.join([sys.executable, "-m", "workbench.workloads.phases_demo", *argv])
    try:
        for n in [*args.sizes, args.target]:  # bad input first, then the output file, then measure
            _size(n, "measure_phases_demo")
        out = check_output_path(default_demo_path() if args.out is None else args.out, force=args.force)
        frame = measure_phases_demo(
            args.sizes, args.target, repeats=args.repeats, seed=args.seed, clock=args.clock, progress=progress
        )
        path = write_fractal_demo(frame, out, command=command, force=args.force)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
