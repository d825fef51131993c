"""The random non-blocking ping-pong benchmark of Papadopoulou, Goumas & Koziris ([Papadopoulou2015] section III.B).

"Each process performs simultaneous non-blocking ping-pongs with one or more randomly selected
processes, with messages of equal size. [...] the core ping-pong operations are executed for a
few hundred iterations, with an MPI barrier between each [...] each process disposes 25% of the
iterations with the highest reported communication times, so the maximum time for each process
is the third quantile of all iterations. The reported communication time from the benchmark is
the maximum time of all processes."

One configuration is ``(S, M, repeat)``: message size ``S`` bytes and ``M`` partners per process
(:func:`workbench.models.comm.patterns.random_partners`, a new random pairing per repeat and
configuration; round ``k`` is a random matching, so both ends of every pair run the same round).
Per timed iteration every rank does ``Barrier``, then ``t0 = MPI.Wtime()``, posts ``M``
``Irecv`` (one numpy buffer per partner) and ``M`` ``Isend`` of ``S`` bytes (tag ``k`` for
round ``k``), ``Waitall``, and records ``MPI.Wtime() - t0``: both directions of each ping-pong
travel at once, as in the paper's simultaneous non-blocking exchange. A few untimed warm-up
iterations first (connection set-up, first touch of the buffers). With an odd number of
processes one process sits out each round (no partner), so its ``M`` is one smaller in that
round; ``M`` cannot exceed ``processes - 1`` (configurations asking for more are skipped by the
sweep driver and listed in the sidecar).

Reduction (pure, :func:`third_quartile`, :func:`reported_time`): per process, sort the timed
iterations, drop the slowest ``floor(iterations / 4)`` and keep the maximum of the rest (the
nearest-rank 3rd quartile); ``comm_time_us`` is the maximum over processes of these, and
``median_us`` their median (a robustness companion the paper does not report).

Descriptors recorded per row ([Papadopoulou2015] section III.A): ``PPN`` and ``N`` from the real rank -> host
mapping (``MPI.Get_processor_name``), ``I`` from the partners actually used and that mapping
(:func:`~workbench.models.comm.patterns.internode_ratio`); ``SW`` (switches) and ``R`` (racks)
from an optional host map ``{"host": {"switch": "...", "rack": "..."}}``
(:func:`load_host_map`). Without a map every host counts as one switch and one rack
(``SW = R = 1``), true on a single machine and a placeholder on a cluster.

Run under MPI (normally through the sweep driver, :mod:`workbench.measure.comm.sweep`)::

    mpiexec -n 4 python -m mpi4py -m workbench.measure.comm.pingpong --grid grid.json --out part.csv

``grid.json`` holds ``{"iterations": 200, "warmup": 5, "seed": 0, "host_map": null,
"configs": [{"S": 128, "M": 1, "repeat": 0}, ...]}``; rank 0 writes the rows of
:data:`PINGPONG_COLUMNS` to ``part.csv`` and the run facts to ``part.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from workbench.errors import ValidationError
from workbench.io.measured import PINGPONG_COLUMNS
from workbench.io.text import read_json
from workbench.measure.comm.worker import library_name, worker_main
from workbench.models.comm.patterns import NO_PARTNER, integer_at_least, internode_ratio, nodes_and_ppn, random_partners

__all__ = [
    "PINGPONG_COLUMNS",
    "DROP_FRACTION",
    "PingPongConfig",
    "third_quartile",
    "reported_time",
    "over_processes",
    "load_host_map",
    "allocation_descriptors",
    "partner_seed",
    "run_pingpong",
    "main",
]

#: Share of each process's slowest iterations dropped before taking its maximum ([Papadopoulou2015] section III.B).
DROP_FRACTION = 0.25



@dataclass(frozen=True)
class PingPongConfig:
    """One ping-pong configuration: message size ``S`` [B], partners ``M``, ``repeat`` index."""

    S: int
    M: int
    repeat: int = 0

    def __post_init__(self):
        where = f"PingPongConfig(S={self.S!r}, M={self.M!r}, repeat={self.repeat!r})"
        integer_at_least(self.S, "S (message size in bytes)", where, 1)
        integer_at_least(self.M, "M (messages per process)", where, 1)
        integer_at_least(self.repeat, "repeat", where, 0)

    @classmethod
    def from_mapping(cls, item, index: int) -> PingPongConfig:
        """Return ``item`` (a configuration or a mapping of its fields) as a configuration.

        ``index`` is the item's position, named in error messages.

        Parameters
        ----------
        item : PingPongConfig or mapping
            A configuration or a mapping of its fields.
        index : int
            The item's position, named in error messages.
        """
        if isinstance(item, cls):
            return item
        if not isinstance(item, Mapping):
            raise ValidationError(f"ping-pong configuration {index} must be a mapping with S, M (and repeat), got "
                                  f"{item!r}")
        try:
            return cls(**item)
        except TypeError as exc:
            raise ValidationError(f"ping-pong configuration {index} {dict(item)!r}: {exc}") from None


# ----------------------------------------------------------------------------- pure reduction

def third_quartile(times, drop: float = DROP_FRACTION) -> np.ndarray:
    """Return each process's time: the maximum of its iterations after dropping the slowest.

    Per process (last axis = iterations), drop the slowest ``floor(drop * iterations)``
    iterations and return the maximum of the rest ([Papadopoulou2015] section III.B: "the
    maximum time for each process is the third quantile of all iterations"). ``times``:
    ``(..., iterations)``.

    Parameters
    ----------
    times : array-like of float, shape (..., iterations)
        Iteration times per process.
    drop : float, default 0.25
        Share of the slowest iterations dropped.
    """
    arr = np.asarray(times, dtype=float)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValidationError(f"third_quartile: times must have at least one iteration, got shape {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValidationError("third_quartile: times must be finite and >= 0")
    if not 0 <= drop < 1:
        raise ValidationError(f"third_quartile: drop must be in [0, 1), got {drop!r}")
    keep = arr.shape[-1] - int(np.floor(drop * arr.shape[-1]))
    return np.partition(arr, keep - 1, axis=-1)[..., keep - 1]


def reported_time(times, drop: float = DROP_FRACTION) -> tuple[float, float]:
    """[Papadopoulou2015]'s reported time of one configuration from ``(processes, iterations)`` times.

    The maximum over processes of their :func:`third_quartile`, and (second value) the median
    over processes of the same.

    Parameters
    ----------
    times : array-like of float, shape (processes, iterations)
        Iteration times.
    drop : float, default 0.25
        Share of the slowest iterations dropped.
    """
    arr = np.asarray(times, dtype=float)
    if arr.ndim != 2:
        raise ValidationError(f"reported_time: times must be (processes, iterations), got shape {arr.shape}")
    return over_processes(third_quartile(arr, drop))


def over_processes(quartiles) -> tuple[float, float]:
    """``(max, median)`` over processes of their per-process :func:`third_quartile` times.

    Parameters
    ----------
    quartiles : array-like of float
        Per-process :func:`third_quartile` times.
    """
    q = np.asarray(quartiles, dtype=float)
    return float(q.max()), float(np.median(q))


# ----------------------------------------------------------------------------- host map

def load_host_map(source) -> dict[str, dict[str, str]] | None:
    """Read a host -> ``{"switch": ..., "rack": ...}`` map from a JSON file path or a mapping.

    ``None`` stays ``None``: one switch and one rack. Raises DataFormatError for unreadable
    JSON and ValidationError for a malformed map.

    Parameters
    ----------
    source : str, path-like, mapping or None
        A JSON file path or a mapping; None: one switch and one rack.
    """
    if source is None:
        return None
    if isinstance(source, Mapping):
        data, name = source, "host map"
    else:
        name = str(source)
        data = read_json(source, what="a host map {host: {switch, rack}}")
    if not isinstance(data, Mapping) or not data:
        raise ValidationError(f"{name}: the host map must be a non-empty JSON object {{host: {{switch, rack}}}}")
    out = {}
    for host, where in data.items():
        if not isinstance(where, Mapping) or not {"switch", "rack"} <= set(where):
            raise ValidationError(f"{name}: entry {host!r} must be an object with keys 'switch' and 'rack', got "
                                  f"{where!r}")
        out[str(host)] = {"switch": str(where["switch"]), "rack": str(where["rack"])}
    return out


def allocation_descriptors(hosts, host_map=None) -> dict[str, int]:
    """``N``, ``PPN``, ``SW``, ``R`` of an allocation from the host of every rank ([Papadopoulou2015] section III.A).

    ``SW``/``R`` count the distinct switches/racks of the hosts in ``host_map``
    (:func:`load_host_map`); without one they are 1.

    Parameters
    ----------
    hosts : sequence of str
        The host of every rank.
    host_map : mapping, optional
        Host -> switch and rack (:func:`load_host_map`); default None: one of each.
    """
    hosts = np.asarray(hosts, dtype=str)
    nodes, ppn = nodes_and_ppn(hosts)
    if host_map is None:
        return {"N": nodes, "PPN": ppn, "SW": 1, "R": 1}
    used = sorted(set(hosts.tolist()))
    missing = [h for h in used if h not in host_map]
    if missing:
        raise ValidationError(f"host map has no entry for host(s) {missing}; it lists {sorted(host_map)[:10]}")
    return {
        "N": nodes,
        "PPN": ppn,
        "SW": len({host_map[h]["switch"] for h in used}),
        "R": len({host_map[h]["rack"] for h in used}),
    }


def partner_seed(seed: int, processes: int, config: PingPongConfig) -> np.random.SeedSequence:
    """Return the seed of one configuration's random pairing.

    The same on every rank, different per repeat and configuration.

    Parameters
    ----------
    seed : int
        The sweep's seed.
    processes : int
        The launch's process count.
    config : PingPongConfig
        The configuration.
    """
    return np.random.SeedSequence([seed, processes, config.S, config.M, config.repeat])


# ----------------------------------------------------------------------------- MPI kernel

def _timed_iterations(comm, partners_row, send, recv, iterations: int, warmup: int) -> np.ndarray:
    from mpi4py import MPI

    peers = [(k, int(p)) for k, p in enumerate(partners_row) if p != NO_PARTNER]
    times = np.empty(iterations)
    for i in range(warmup + iterations):
        comm.Barrier()
        t0 = MPI.Wtime()
        requests = [comm.Irecv(recv[k], source=p, tag=k) for k, p in peers]
        requests += [comm.Isend(send, dest=p, tag=k) for k, p in peers]
        MPI.Request.Waitall(requests)
        elapsed = MPI.Wtime() - t0
        if i >= warmup:
            times[i - warmup] = elapsed
    return times


def run_pingpong(comm, configs, *, iterations: int = 200, warmup: int = 5, seed: int = 0, host_map=None,
                 progress=None) -> list[dict] | None:
    """Run every configuration on communicator ``comm`` (all ranks call this).

    Rank 0 returns the rows of :data:`PINGPONG_COLUMNS` (minus ``mpi_library``), the other
    ranks ``None``.

    ``progress(done, total)`` is called on rank 0 after every configuration.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The communicator.
    configs : sequence of PingPongConfig
        The configurations.
    iterations : int, default 200
        Timed iterations per configuration.
    warmup : int, default 5
        Untimed iterations first.
    seed : int, default 0
        Seed of the random pairing.
    host_map : mapping, optional
        Host -> switch and rack; default None: one of each.
    progress : callable, optional
        ``progress(done, total)``, called on rank 0 after each configuration.
    """
    from mpi4py import MPI

    plan = [PingPongConfig.from_mapping(c, i) for i, c in enumerate(configs)]
    if not plan:
        raise ValidationError("run_pingpong: no configurations to run")
    iterations = integer_at_least(iterations, "iterations", "run_pingpong", 1)
    warmup = integer_at_least(warmup, "warmup", "run_pingpong", 0)
    size, rank = comm.Get_size(), comm.Get_rank()
    too_many = [c for c in plan if c.M > size - 1]
    if too_many:
        raise ValidationError(f"run_pingpong: M={too_many[0].M} partners need more than {size} processes (M <= "
                              "processes - 1)")
    hosts = comm.allgather(MPI.Get_processor_name())
    allocation = allocation_descriptors(hosts, host_map)
    send = np.full(max(c.S for c in plan), rank % 251, dtype=np.uint8)
    recv_pool = np.empty((max(c.M for c in plan), send.size), dtype=np.uint8)
    rows = []
    for done, config in enumerate(plan, start=1):
        partners = random_partners(size, config.M, partner_seed(seed, size, config))
        recv = recv_pool[:, : config.S]
        times = _timed_iterations(comm, partners[rank], send[: config.S], recv, iterations, warmup)
        quartiles = comm.gather(float(third_quartile(times)), root=0)
        if rank == 0:
            worst, median = over_processes(quartiles)
            rows.append({
                "S": config.S, "M": config.M, **{k: allocation[k] for k in ("PPN", "N")},
                "I": internode_ratio(partners, np.asarray(hosts)),
                "SW": allocation["SW"], "R": allocation["R"],
                "processes": size, "iterations": iterations, "repeat": config.repeat,
                "comm_time_us": worst * 1e6, "median_us": median * 1e6,
                "host": hosts[0],
            })
            if progress is not None:
                progress(done, len(plan))
    return rows if rank == 0 else None


def _run_launch(comm, spec: dict, progress) -> list[dict] | None:
    """One sweep launch: :func:`run_pingpong` on the grid ``spec``, rows with ``mpi_library``."""
    from mpi4py import MPI

    rows = run_pingpong(
        comm, spec["configs"], iterations=spec.get("iterations", 200), warmup=spec.get("warmup", 5),
        seed=spec.get("seed", 0), host_map=load_host_map(spec.get("host_map")), progress=progress,
    )
    if rows is None:
        return None
    library = library_name(MPI.Get_library_version().strip())
    # mpi_library goes before host, the order of PINGPONG_COLUMNS
    return [{**{k: v for k, v in row.items() if k != "host"}, "mpi_library": library, "host": row["host"]}
            for row in rows]


def main(argv: list[str] | None = None) -> int:
    """MPI program entry point (see the module docstring).

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default None: ``sys.argv[1:]``.
    """
    return worker_main("pingpong", _run_launch, argv)


if __name__ == "__main__":
    raise SystemExit(main())
