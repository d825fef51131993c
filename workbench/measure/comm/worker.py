"""The MPI side of a sweep launch: read the grid JSON, run the benchmark on ``MPI.COMM_WORLD``,
and let rank 0 write the rows (CSV) and the run facts (JSON beside it).

Started by :mod:`workbench.measure.comm.sweep` as
``mpiexec [args] -n P python -m mpi4py -m workbench.measure.comm.<benchmark> --grid G --out O``
(``-m mpi4py`` makes an unhandled exception on any rank call ``MPI_Abort`` instead of leaving
the other ranks waiting). Rank 0 prints ``#progress <done> <total>`` lines, which the driver
turns into a progress bar.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError
from workbench.io._text import read_json

#: Prefix of the progress lines rank 0 prints (read by the sweep driver).
PROGRESS_PREFIX = "#progress"


def read_grid(path) -> dict:
    """The grid JSON of a launch (``{"configs": [...], "iterations": ..., ...}``)."""
    spec = read_json(path, what="the sweep grid")
    if not isinstance(spec.get("configs"), list):
        raise DataFormatError(f"{path}: the sweep grid JSON must have a list 'configs'")
    return spec


def library_name(version: str) -> str:
    """A short MPI library name from ``MPI.Get_library_version()``: ``"MPICH 5.0.2"``,
    ``"Open MPI v4.1.5"``, ..."""
    first = next((line for line in version.splitlines() if line.strip()), "unknown")
    return " ".join(first.split(",")[0].replace("Version:", " ").split())


def _progress(done: int, total: int) -> None:
    print(f"{PROGRESS_PREFIX} {done} {total}", flush=True)


def worker_main(benchmark: str, argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m mpi4py -m workbench.measure.comm.{benchmark}")
    parser.add_argument("--grid", required=True, help="grid JSON (see the module docstring)")
    parser.add_argument("--out", required=True, help="CSV written by rank 0 (run facts in the .json beside it)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    spec = read_grid(args.grid)

    import mpi4py
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    started = time.perf_counter()
    if benchmark == "pingpong":
        from workbench.measure.comm.pingpong import load_host_map, run_pingpong

        rows = run_pingpong(
            comm, spec["configs"], iterations=spec.get("iterations", 200), warmup=spec.get("warmup", 5),
            seed=spec.get("seed", 0), host_map=load_host_map(spec.get("host_map")), progress=_progress,
        )
    else:
        from workbench.measure.comm.datagen import run_datagen

        rows = run_datagen(comm, spec["configs"], iterations=spec.get("iterations", 32), progress=_progress)
    if comm.Get_rank() == 0:
        version = MPI.Get_library_version().strip()
        frame = pd.DataFrame(rows)
        if benchmark == "pingpong":
            frame.insert(len(frame.columns) - 1, "mpi_library", library_name(version))
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
