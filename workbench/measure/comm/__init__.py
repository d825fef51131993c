"""Communication benchmarks under MPI (mpi4py; the optional ``mpi`` extra) and their sweep driver.

* :mod:`workbench.measure.comm.pingpong` -- the random non-blocking ping-pong of Papadopoulou,
  Goumas & Koziris ([Papadopoulou2015] section III.B) and its reduction (:func:`third_quartile`,
  :func:`reported_time`: per process drop the slowest 25 %, max over processes).
* :mod:`workbench.measure.comm.datagen` -- Branikas's halo-exchange data generator ([Branikas2024],
  Listings 2.2, 3.1, 4.1): message size, messages, working set, memory/compute load, optional
  socket/global barrier, per-rank comm/comp/total timers.
* :mod:`workbench.measure.comm.sweep` -- grids, one ``mpiexec`` launch per process count,
  CSV + JSON sidecar, readers (:func:`read_comm_pingpong`, :func:`read_comm_datagen`); CLI
  ``python -m workbench.measure.comm pingpong|datagen ...``.

Importing this package does not import mpi4py; only the MPI programs (run by ``mpiexec``) do.
"""

from workbench.measure.comm.datagen import BARRIERS, DATAGEN_COLUMNS, LOADS, DatagenConfig, jacobi_sweep, message_bytes
from workbench.measure.comm.pingpong import PINGPONG_COLUMNS, PingPongConfig, reported_time, third_quartile
from workbench.measure.comm.sweep import (
    datagen_grid,
    find_mpiexec,
    pingpong_grid,
    read_comm_datagen,
    read_comm_pingpong,
    run_sweep,
    write_comm_sweep,
)

__all__ = [
    "BARRIERS",
    "DATAGEN_COLUMNS",
    "LOADS",
    "PINGPONG_COLUMNS",
    "DatagenConfig",
    "PingPongConfig",
    "datagen_grid",
    "find_mpiexec",
    "jacobi_sweep",
    "message_bytes",
    "pingpong_grid",
    "read_comm_datagen",
    "read_comm_pingpong",
    "reported_time",
    "run_sweep",
    "third_quartile",
    "write_comm_sweep",
]
