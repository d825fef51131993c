"""The configurable halo-exchange "data generator" of Branikas ([Branikas2024] sections 2.2, 3.2 and 4.3).

Per configuration every rank runs ``iterations`` time steps (32 in the thesis, section 3.2) of

1. **communication** (Listing 2.2): ``messages`` non-blocking exchanges of ``message_bytes`` with
   the periodic 2-D Cartesian neighbours north, west, south, east (re-iterated beyond 4;
   :func:`workbench.models.comm.patterns.halo_partners`, Fig. 2.1), then ``Waitall``. Message
   ``k`` is a shift: sent to neighbour ``k mod 4`` and received from the opposite neighbour, so
   that every receive has a matching send for any number of messages (with 4, 8, ... messages
   this is exactly the set of transfers of the listing, which pairs each Irecv/Isend with one
   neighbour);
2. an optional **barrier** (Listing 4.1, section 4.3): ``"none"``, ``"global"``
   (``MPI_COMM_WORLD``) or ``"socket"`` (the ranks sharing a processor socket, see below);
3. **computation** (Listing 2.2's inner loop): a Jacobi 5-point update of the rank's
   ``n x n`` float64 grid (the working set, ``n = isqrt(wss_bytes / 8)``) computed
   ``extra_ops`` times per element: 1 for the *memory bound* load, 16 for *compute bound*
   ("Compute Bound 16"; any ``extra_ops >= 2`` may be given), see :func:`jacobi_sweep`.

Message size: ``message_bytes = msg_multiple * sqrt(wss_bytes)`` rounded to a multiple of 8 B
(section 2.3: "some multiple of its square root", i.e. a row of the grid for ``msg_multiple``
= 1 when the working set is measured in bytes).

Timers (Listing 3.1, ``MPI.Wtime``): ``comm_s`` sums the communication phase including
``Waitall``; ``comp_s`` sums the computation; ``total_s`` spans the whole time loop, so the
barrier time of section 4.3 is ``total_s - comp_s - comm_s`` and the thesis's *derived*
communication time is ``total_s - comp_s``. Before the loop: a global barrier and one untimed
warm-up exchange.

Socket barrier: the thesis splits with Open MPI's ``OMPI_COMM_TYPE_SOCKET``. Portable MPI
(``MPI_COMM_TYPE_HW_GUIDED`` with ``"Package"``) returns ``MPI_COMM_NULL`` for unbound
processes, so here a rank's socket is derived on Linux from its CPU affinity: the
``physical_package_id`` (``/sys/devices/system/cpu/cpuN/topology``) shared by all CPUs it may
run on. Ranks bound to one socket (``mpiexec -bind-to socket`` or ``core``) get that socket;
an unbound rank (its affinity spans several sockets) or a non-Linux host gets the whole host.
The split colour is ``(host, socket)``. On a one-socket machine such as this project's VM the
socket barrier is therefore a node barrier.

Run under MPI (normally through :mod:`workbench.measure.comm.sweep`)::

    mpiexec -n 4 python -m mpi4py -m workbench.measure.comm.datagen --grid grid.json --out part.csv

``grid.json``: ``{"iterations": 32, "configs": [{"wss_bytes": 2097152, "load": "memory",
"msg_multiple": 1, "messages": 4, "barrier": "none"}, ...]}``; rank 0 writes one row per rank
and configuration (:data:`DATAGEN_COLUMNS`, ``run_id`` = index of the configuration in the
grid) to ``part.csv``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from workbench.errors import ValidationError
from workbench.io.measured import BARRIERS, DATAGEN_COLUMNS, LOADS
from workbench.measure.comm.worker import worker_main
from workbench.models.comm.patterns import halo_partners, integer_at_least, nodes_and_ppn

__all__ = [
    "DATAGEN_COLUMNS",
    "LOADS",
    "BARRIERS",
    "DatagenConfig",
    "grid_side",
    "message_bytes",
    "jacobi_sweep",
    "socket_id",
    "run_datagen",
    "main",
]

#: Rows per block of :func:`jacobi_sweep` target about this many bytes (an L2-sized block, so
#: the repeated operations of a compute-bound load re-use cached data like the per-element loop
#: of Listing 2.2 does).
BLOCK_BYTES = 256 * 1024



def grid_side(wss_bytes: int) -> int:
    """Return the side ``n`` of the rank's ``n x n`` float64 grid for a working set of ``wss_bytes``.

    ``n = isqrt(wss_bytes / 8)``; 2 MiB -> 512, 8 MiB -> 1024, 32 MiB -> 2048.

    Parameters
    ----------
    wss_bytes : int
        Working-set size per rank, bytes.
    """
    return math.isqrt(int(wss_bytes) // 8)


def message_bytes(msg_multiple: float, wss_bytes: int) -> int:
    """``msg_multiple * sqrt(wss_bytes)`` rounded to a multiple of 8 bytes, at least 8 ([Branikas2024] section 2.3).

    Parameters
    ----------
    msg_multiple : float
        Message size as a multiple of sqrt(WSS).
    wss_bytes : int
        Working-set size per rank, bytes.
    """
    return max(8, 8 * int(round(msg_multiple * math.sqrt(wss_bytes) / 8)))


@dataclass(frozen=True)
class DatagenConfig:
    """One data-generator configuration: [Branikas2024] section 2.4's features.

    Nodes and PPN are not among them: they come from the launch.

    ``extra_ops`` defaults to :data:`LOADS` ``[load]``.
    """

    wss_bytes: int
    load: str
    msg_multiple: float
    messages: int
    barrier: str = "none"
    extra_ops: int | None = field(default=None)

    def __post_init__(self):
        where = (f"DatagenConfig(wss_bytes={self.wss_bytes!r}, load={self.load!r}, "
                 f"msg_multiple={self.msg_multiple!r}, messages={self.messages!r}, barrier={self.barrier!r})")
        integer_at_least(self.wss_bytes, "wss_bytes", where, 72)  # at least a 3 x 3 grid
        integer_at_least(self.messages, "messages", where, 1)
        if self.load not in LOADS:
            raise ValidationError(f"{where}: unknown load {self.load!r}; choose one of {list(LOADS)}")
        if self.barrier not in BARRIERS:
            raise ValidationError(f"{where}: unknown barrier {self.barrier!r}; choose one of {list(BARRIERS)}")
        if isinstance(self.msg_multiple, bool) or not isinstance(self.msg_multiple, (int, float, np.number)) \
                or not np.isfinite(self.msg_multiple) or self.msg_multiple <= 0:
            raise ValidationError(f"{where}: msg_multiple must be a positive number, got {self.msg_multiple!r}")
        ops = LOADS[self.load] if self.extra_ops is None else integer_at_least(self.extra_ops, "extra_ops", where, 1)
        if (self.load == "memory") != (ops == 1):
            raise ValidationError(f"{where}: load {self.load!r} needs extra_ops "
                                  f"{'1' if self.load == 'memory' else '>= 2'}, got {ops}")
        object.__setattr__(self, "extra_ops", ops)

    @property
    def message_bytes(self) -> int:
        """The message size of this configuration in bytes."""
        return message_bytes(self.msg_multiple, self.wss_bytes)

    @classmethod
    def from_mapping(cls, item, index: int) -> DatagenConfig:
        """Return ``item`` (a configuration or a mapping of its fields) as a configuration.

        ``index`` is the item's position, named in error messages.

        Parameters
        ----------
        item : DatagenConfig or mapping
            A configuration or a mapping of its fields.
        index : int
            The item's position, named in error messages.
        """
        if isinstance(item, cls):
            return item
        if not isinstance(item, Mapping):
            raise ValidationError(f"data-generator configuration {index} must be a mapping with wss_bytes, load, "
                                  f"msg_multiple, messages (and barrier), got {item!r}")
        try:
            return cls(**item)
        except TypeError as exc:
            raise ValidationError(f"data-generator configuration {index} {dict(item)!r}: {exc}") from None


# ----------------------------------------------------------------------------- computation

def jacobi_sweep(u: np.ndarray, new: np.ndarray, extra_ops: int = 1, block_bytes: int = BLOCK_BYTES) -> None:
    """One time step of Listing 2.2's computation.

    ``new[i, j] = (u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1]) / 4`` on the interior,
    computed ``extra_ops`` times per element.

    Works in place in ``new`` (no temporaries) block of rows by block of rows; each block
    (about ``block_bytes``) is recomputed ``extra_ops`` times while it is in cache, so one
    operation per element streams the grid from memory (memory bound) and 16 re-use the cached
    block (compute bound), as the per-element inner loop of the listing does. The border of
    ``new`` is left untouched (fixed boundary values).

    Parameters
    ----------
    u : numpy.ndarray
        The grid at this time step.
    new : numpy.ndarray
        The grid of the next time step (written in place).
    extra_ops : int, default 1
        Times each element is computed (1: memory bound; 16: compute bound).
    block_bytes : int, default 262144
        Bytes of rows recomputed while in cache.
    """
    rows, cols = u.shape
    step = max(1, block_bytes // (8 * cols))
    for r0 in range(1, rows - 1, step):
        r1 = min(r0 + step, rows - 1)
        out = new[r0:r1, 1:-1]
        for _ in range(extra_ops):
            np.add(u[r0 - 1:r1 - 1, 1:-1], u[r0 + 1:r1 + 1, 1:-1], out=out)
            np.add(out, u[r0:r1, :-2], out=out)
            np.add(out, u[r0:r1, 2:], out=out)
            np.multiply(out, 0.25, out=out)


# ----------------------------------------------------------------------------- socket of a rank

def socket_id() -> int:
    """Return the processor socket this process is bound to, or -1.

    Linux ``physical_package_id`` shared by every CPU of its affinity mask; -1 when unbound
    across sockets or unknown.
    """
    try:
        cpus = os.sched_getaffinity(0)
        packages = {
            int(Path(f"/sys/devices/system/cpu/cpu{c}/topology/physical_package_id").read_text())
            for c in cpus
        }
    except (AttributeError, OSError, ValueError):
        return -1
    return packages.pop() if len(packages) == 1 else -1


# ----------------------------------------------------------------------------- MPI kernel

def _exchange(comm, send, recv, destinations, sources):
    from mpi4py import MPI

    requests = [comm.Irecv(recv[k], source=int(s), tag=k) for k, s in enumerate(sources)]
    requests += [comm.Isend(send, dest=int(d), tag=k) for k, d in enumerate(destinations)]
    MPI.Request.Waitall(requests)


def run_datagen(comm, configs, *, iterations: int = 32, progress=None) -> list[dict] | None:
    """Run every configuration on ``comm`` (all ranks call this).

    Rank 0 returns one row per rank and configuration (:data:`DATAGEN_COLUMNS`, ``run_id`` =
    configuration index), the other ranks ``None``. ``progress(done, total)`` is called on rank 0
    after each configuration.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The communicator.
    configs : sequence of DatagenConfig
        The configurations.
    iterations : int, default 32
        Time steps per configuration.
    progress : callable, optional
        ``progress(done, total)``, called on rank 0 after each configuration.
    """
    from mpi4py import MPI

    plan = [DatagenConfig.from_mapping(c, i) for i, c in enumerate(configs)]
    if not plan:
        raise ValidationError("run_datagen: no configurations to run")
    iterations = integer_at_least(iterations, "iterations", "run_datagen", 1)
    size, rank = comm.Get_size(), comm.Get_rank()
    host = MPI.Get_processor_name()
    placement = comm.allgather((host, socket_id()))
    nodes, ppn = nodes_and_ppn(np.array([h for h, _ in placement]))
    colours = {key: i for i, key in enumerate(sorted(set(placement)))}
    barrier_comms = {"none": None, "global": comm, "socket": comm.Split(colours[placement[rank]], rank)}
    halo = halo_partners(size, 4)
    grids: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    rows = []
    for run_id, config in enumerate(plan):
        if config.wss_bytes not in grids:
            grids.clear()  # one working set at a time: memory stays at 2 x wss per rank
            n = grid_side(config.wss_bytes)
            u = np.random.default_rng(rank).random((n, n))
            grids[config.wss_bytes] = (u, u.copy())
        u, new = grids[config.wss_bytes]
        k = np.arange(config.messages) % 4
        destinations, sources = halo[rank, k], halo[rank, (k + 2) % 4]
        send = np.full(config.message_bytes, rank % 251, dtype=np.uint8)
        recv = np.empty((config.messages, config.message_bytes), dtype=np.uint8)
        barrier_comm = barrier_comms[config.barrier]

        comm.Barrier()
        _exchange(comm, send, recv, destinations, sources)  # untimed warm-up
        comm.Barrier()
        comm_s = comp_s = 0.0
        start = MPI.Wtime()
        for _ in range(iterations):
            t0 = MPI.Wtime()
            _exchange(comm, send, recv, destinations, sources)
            t1 = MPI.Wtime()
            if barrier_comm is not None:
                barrier_comm.Barrier()
            t2 = MPI.Wtime()
            jacobi_sweep(u, new, config.extra_ops)
            u, new = new, u
            comp_s += MPI.Wtime() - t2
            comm_s += t1 - t0
        total_s = MPI.Wtime() - start
        grids[config.wss_bytes] = (u, new)
        gathered = comm.gather((rank, host, comm_s, comp_s, total_s), root=0)
        if rank == 0:
            common = {
                "nodes": nodes, "ppn": ppn, "processes": size, "wss_bytes": config.wss_bytes, "load": config.load,
                "extra_ops": config.extra_ops, "msg_multiple": config.msg_multiple,
                "message_bytes": config.message_bytes, "messages": config.messages, "iterations": iterations,
                "barrier": config.barrier,
            }
            rows += [
                {"run_id": run_id, "rank": r, "host": h, **common, "comm_s": c, "comp_s": p, "total_s": t}
                for r, h, c, p, t in gathered
            ]
            if progress is not None:
                progress(run_id + 1, len(plan))
    barrier_comms["socket"].Free()
    return rows if rank == 0 else None


def _run_launch(comm, spec: dict, progress) -> list[dict] | None:
    """One sweep launch: :func:`run_datagen` on the grid ``spec``."""
    return run_datagen(comm, spec["configs"], iterations=spec.get("iterations", 32), progress=progress)


def main(argv: list[str] | None = None) -> int:
    """MPI program entry point (see the module docstring).

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default None: ``sys.argv[1:]``.
    """
    return worker_main("datagen", _run_launch, argv)


if __name__ == "__main__":
    raise SystemExit(main())
