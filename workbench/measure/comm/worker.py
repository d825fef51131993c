"""The MPI side of a sweep launch.

Read the grid JSON, run the benchmark on ``MPI.COMM_WORLD``, and let rank 0 write the rows
(CSV) and the run facts (JSON beside it).

Started by :mod:`workbench.measure.comm.sweep` as
``mpiexec [args] -n P python -m mpi4py -m workbench.measure.comm.<benchmark> --grid G --out O``
(``-m mpi4py`` makes an unhandled exception on any rank call ``MPI_Abort`` instead of leaving
the other ranks waiting). Rank 0 prints ``#progress <done> <total>`` lines, which the driver
turns into a progress bar. Each benchmark module's ``main`` calls :func:`worker_main` with
its own run function: this driver imports no benchmark (the benchmarks import it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError
from workbench.io.text import read_json

#: Prefix of the progress lines rank 0 prints (read by the sweep driver).
PROGRESS_PREFIX = "#progress"
#: What a benchmark gives :func:`worker_main`: ``run(comm, spec, progress)`` -> rows on rank 0, else ``None``.
LaunchRun = Callable[[object, dict, Callable[[int, int], None]], list[dict] | None]


def read_grid(path) -> dict:
    """Return the grid JSON of a launch (``{"configs": [...], "iterations": ..., ...}``).

    Parameters
    ----------
    path : str or path-like
        The grid JSON file.
    """
    spec = read_json(path, what="the sweep grid")
    if not isinstance(spec.get("configs"), list):
        raise DataFormatError(f"{path}: the sweep grid JSON must have a list 'configs'")
    return spec


def library_name(version: str) -> str:
    """Return a short MPI library name from ``MPI.Get_library_version()``.

    For example ``"MPICH 5.0.2"``, ``"Open MPI v4.1.5"``.

    Parameters
    ----------
    version : str
        ``MPI.Get_library_version()``.
    """
    first = next((line for line in version.splitlines() if line.strip()), "unknown")
    return " ".join(first.split(",")[0].replace("Version:", " ").split())


def _progress(done: int, total: int) -> None:
    print(f"{PROGRESS_PREFIX} {done} {total}", flush=True)


def worker_main(benchmark: str, run: LaunchRun, argv: list[str] | None = None) -> int:
    """Run one sweep launch of a benchmark on ``MPI.COMM_WORLD`` and let rank 0 write its results.

    The benchmark's module passes its own ``run``, so that this driver knows no benchmark and
    the benchmarks import it, not the other way round.

    Parameters
    ----------
    benchmark : str
        The benchmark's module name under :mod:`workbench.measure.comm` (for the usage line).
    run : callable
        ``run(comm, spec, progress)``: runs the grid ``spec`` (:func:`read_grid`) on ``comm``
        and returns, on rank 0, one dict per row of the output CSV (``None`` on the other
        ranks); calls ``progress(done, total)`` on rank 0 after every configuration.
    argv : list of str, optional
        ``--grid G --out O``; default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status, 0.
    """
    parser = argparse.ArgumentParser(prog=f"python -m mpi4py -m workbench.measure.comm.{benchmark}")
    parser.add_argument("--grid", required=True, help="grid JSON (see the module docstring)")
    parser.add_argument("--out", required=True, help="CSV written by rank 0 (run facts in the .json beside it)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    spec = read_grid(args.grid)

    import mpi4py
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    started = time.perf_counter()
    rows = run(comm, spec, _progress)
    if comm.Get_rank() == 0:
        version = MPI.Get_library_version().strip()
        frame = pd.DataFrame(rows)
        out = Path(args.out)
        frame.to_csv(out, index=False)
        facts = {
            "mpi_library_version": version,
            "mpi_standard": "{}.{}".format(*MPI.Get_version()),
            "mpi4py_version": mpi4py.__version__,
            "processes": comm.Get_size(),
            "hosts": sorted(set(frame["host"])),
            "wall_s": round(time.perf_counter() - started, 3),
        }
        out.with_suffix(".json").write_text(json.dumps(facts, indent=2) + "\n")
    return 0
