"""FiM-Com: queueing-network models of collective communication ([Bhimani2019] section 3, Fig. 4, Eqs. 13-16).

A collective moves ``n_jobs`` *jobs* (data points, e.g. pixels of K-means) through four
stations in series:

* **D** -- data transfer: one FIFO server per sending line, service rate
  ``mu1 ~ Uniform(zeta_min, zeta_max)`` jobs per time unit, drawn per job (Eq. 13).  All
  jobs wait at D at time 0 (section 3.2), so D's departures are a cumulative sum.
* **M** -- metadata: one FIFO server per sending line whose service depends on the load.
  Eq. 14 gives the *rate* ``log(chi)``, which is zero for a lone job (the queue would
  stall).  We use a well-defined *time* form with one coefficient: a job that starts
  service while ``chi`` jobs are at M (itself included) takes
  ``metadata_coef * (1 + ln(chi))`` -- the metadata of one packet, plus a part growing
  logarithmically with the load, as section 4.3 measured.  (The authors' code adds
  ``c ln(chi - 1)`` to a base service time; without a base a lone job would cost nothing
  and, with distinct arrivals, M could never build a queue.)
* **C** -- network initialisation: an infinite-server delay station, exponential with
  mean ``eta`` (Eq. 15, ``eta`` read as the mean service *time*, as Fig. 11 plots it).
* **R** -- receive: ``processes`` receiver FIFO queues, each exponential with mean
  ``psi`` times ``phi`` (Eq. 16).  We read ``phi`` as *contention*: ``phi`` receivers
  fetching simultaneously share the sender, so each fetch takes ``phi`` times longer.
  Eq. 16 literally multiplies the rate by ``phi``; that reading would make broadcast
  faster with more receivers, contrary to Fig. 6(c).  Defaults: scatter ``phi = 1``
  (one receiver at a time), broadcast ``phi = processes``, gather ``phi = 1``.

Routing (Fig. 4):

* **scatter** -- one D/M/C line; job ``k`` goes to R queue ``k mod p`` (round robin).
* **broadcast** -- one D/M/C line; every job is duplicated to all ``p`` R queues.
* **gather** -- ``p`` parallel D/M/C lines, line ``j`` sends its share of the jobs
  (``n // p``, the first ``n % p`` lines one more), into one FIFO R at the collector.

The communication time is the makespan, the last departure from R.

Speed: a FIFO queue with sorted arrivals ``a`` and services ``s`` is the max-plus
recursion ``D_k = max(D_{k-1}, a_k) + s_k = S_k + max_{i<=k}(a_i - S_{i-1})`` with ``S``
the cumulative service, one vectorised pass (:func:`fifo_departures`).  The
state-dependent M station is inherently sequential; :func:`metadata_departures` runs it
exactly in a numba-compiled loop (O(n), one pointer over the arrivals).
:func:`metadata_departures_reference` is the literal event-by-event definition used to
check it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit

from workbench.errors import ValidationError

__all__ = [
    "PATTERNS",
    "STATIONS",
    "CollectiveSimulation",
    "ServiceRates",
    "check_simulation",
    "default_phi",
    "fifo_departures",
    "metadata_departures",
    "metadata_departures_reference",
    "simulate_collective",
]

PATTERNS = ("scatter", "broadcast", "gather")
STATIONS = ("D", "M", "C", "R")
#: Largest number of (receiver x job) service times drawn at once for a broadcast.
_BROADCAST_CHUNK = 4_000_000


@dataclass(frozen=True)
class ServiceRates:
    """Service parameters of the four stations (Eqs. 13-16), in one time unit.

    ``zeta_min``/``zeta_max`` are rates (jobs per time unit); ``metadata_coef``,
    ``eta`` and ``psi`` are times; ``phi`` is dimensionless (``None``: the pattern's
    default, see :func:`default_phi`).
    """

    zeta_min: float
    zeta_max: float
    metadata_coef: float
    eta: float
    psi: float
    phi: float | None = None

    def __post_init__(self):
        for name in ("zeta_min", "zeta_max", "metadata_coef", "eta", "psi"):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
                raise ValidationError(f"{name} must be a finite number, got {value!r}")
        if self.zeta_min <= 0:
            raise ValidationError(
                f"zeta_min must be a positive transfer rate (jobs per time unit), got {self.zeta_min}"
            )
        if self.zeta_min > self.zeta_max:
            raise ValidationError(
                f"zeta_min ({self.zeta_min}) must not exceed zeta_max ({self.zeta_max}): "
                "they are the bounds of the uniform transfer rate of Eq. 13"
            )
        for name in ("metadata_coef", "eta", "psi"):
            if getattr(self, name) < 0:
                raise ValidationError(
                    f"{name} is a mean service time and must be >= 0, got {getattr(self, name)}"
                )
        if self.phi is not None and (not math.isfinite(self.phi) or self.phi <= 0):
            raise ValidationError(f"phi (simultaneous receivers, Eq. 16) must be > 0, got {self.phi}")


def default_phi(pattern: str, processes: int) -> float:
    """Return the paper's receiver factor of Eq. 16.

    1 for scatter and gather, the number of receiving processes for broadcast (all fetch
    simultaneously).

    Parameters
    ----------
    pattern : {"scatter", "broadcast", "gather"}
        The collective.
    processes : int
        Number of processes.
    """
    return float(processes) if pattern == "broadcast" else 1.0


@dataclass(frozen=True)
class CollectiveSimulation:
    """Result of :func:`simulate_collective`.

    Attributes
    ----------
    makespan : ndarray, shape (replications,)
        Communication time (last departure from R) of each replication.
    station_finish : DataFrame
        One row per replication, columns ``D, M, C, R``: when the last job left each
        station (``R`` equals ``makespan``).
    samples : dict of str -> ndarray
        Per-station service times of replication 0 (at most ``sample_limit`` each,
        evenly strided): ``D`` (1/mu1), ``M`` (metadata time), ``C`` (delay), ``R``
        (receive time incl. phi).  ``metadata_load`` holds the M queue length chi that
        each ``M`` sample was drawn with.
    """

    pattern: str
    n_jobs: int
    processes: int
    rates: ServiceRates
    phi: float
    seed: int
    makespan: np.ndarray
    station_finish: pd.DataFrame
    samples: dict[str, np.ndarray] = field(repr=False)

    @property
    def replications(self) -> int:
        """The number of simulated replications."""
        return int(self.makespan.size)

    @property
    def per_job(self) -> np.ndarray:
        """Makespan per data point (the y-axis of the paper's Fig. 6)."""
        return self.makespan / self.n_jobs

    def summary(self) -> dict[str, float]:
        """Mean, standard deviation, min, median and max of the makespan."""
        m = self.makespan
        return {
            "mean": float(m.mean()),
            "std": float(m.std(ddof=1)) if m.size > 1 else 0.0,
            "min": float(m.min()),
            "median": float(np.median(m)),
            "max": float(m.max()),
        }


# --------------------------------------------------------------------------- stations
def fifo_departures(arrivals, service, axis: int = -1) -> np.ndarray:
    """Departure times of FIFO single-server queues, by the max-plus recursion.

    ``D_k = max(D_{k-1}, a_k) + s_k``, computed as ``S_k + max_{i<=k}(a_i - S_{i-1})``
    with ``S`` the cumulative service (one vectorised pass along ``axis``; several
    queues at once along the other axes).  ``arrivals`` must be sorted along ``axis``
    (FIFO order); ``-inf`` arrivals with zero service are padding and stay ``-inf``.

    Parameters
    ----------
    arrivals : array-like of float
        Arrival times, sorted along ``axis``.
    service : array-like of float
        Service times, same shape.
    axis : int, default -1
        Axis along which the jobs of one queue lie.
    """
    arrivals = np.asarray(arrivals, dtype=float)
    service = np.asarray(service, dtype=float)
    cumulative = np.cumsum(service, axis=axis)
    slack = arrivals - (cumulative - service)
    np.maximum.accumulate(slack, axis=axis, out=slack)
    return slack + cumulative


def _last_fifo_departure(arrivals, service) -> np.ndarray:
    """Only the last departure of each FIFO queue (rows of 2-D input).

    Its makespan -- as the max of the max-plus slack.  Overwrites ``arrivals`` (the
    caller's scratch copy) to spare 100 MB temporaries at 13 M jobs.
    """
    cumulative = np.cumsum(service, axis=-1)
    np.subtract(arrivals, cumulative, out=arrivals)
    arrivals += service
    return np.max(arrivals, axis=-1) + cumulative[..., -1]


@njit(cache=True, nogil=True)
def _metadata_kernel(arrivals, offsets, coef, departures, service, load):  # pragma: no cover - compiled
    for line in range(offsets.size - 1):
        lo = offsets[line]
        hi = offsets[line + 1]
        arrived = lo  # arrivals[lo:arrived] are <= the current service start
        free = -np.inf
        for k in range(lo, hi):
            start = arrivals[k] if arrivals[k] > free else free
            while arrived < hi and arrivals[arrived] <= start:
                arrived += 1
            chi = arrived - k
            s = coef * (1.0 + math.log(chi))
            free = start + s
            departures[k] = free
            service[k] = s
            load[k] = chi


def metadata_departures(arrivals, coef: float, offsets=None):
    """Exact departures of the state-dependent metadata station M (Eq. 14, time form).

    A job starting service while ``chi`` jobs are at M (itself included) takes
    ``coef * (1 + ln(chi))``.  ``arrivals`` are sorted within each line; ``offsets``
    (``[0, ..., n]``) splits them into independent lines (gather: one M per sender).

    Returns ``(departures, service, load)``; ``load`` is chi per job.

    Parameters
    ----------
    arrivals : array-like of float
        Arrival times, sorted within each line.
    coef : float
        Service coefficient c of Eq. 14 (time unit of ``arrivals``).
    offsets : array-like of int, optional
        ``[0, ..., n]`` boundaries of independent lines; default: one line.
    """
    arrivals = np.ascontiguousarray(arrivals, dtype=float)
    if offsets is None:
        offsets = np.array([0, arrivals.size], dtype=np.int64)
    departures = np.empty_like(arrivals)
    service = np.empty_like(arrivals)
    load = np.empty(arrivals.size, dtype=np.int64)
    _metadata_kernel(arrivals, np.asarray(offsets, dtype=np.int64), float(coef), departures, service, load)
    return departures, service, load


def metadata_departures_reference(arrivals, coef: float):
    """Literal event-by-event M station (one line), the check of :func:`metadata_departures`.

    Before each service start, count the jobs that have arrived and not yet left.

    Parameters
    ----------
    arrivals : array-like of float
        Sorted arrival times of one line.
    coef : float
        Service coefficient c of Eq. 14.
    """
    arrivals = [float(a) for a in arrivals]
    departures, service, load = [], [], []
    free = -math.inf
    for k, a in enumerate(arrivals):
        start = max(a, free)
        chi = sum(1 for j, aj in enumerate(arrivals) if aj <= start and j >= k)
        s = coef * (1.0 + math.log(chi))
        free = start + s
        departures.append(free)
        service.append(s)
        load.append(chi)
    return np.array(departures), np.array(service), np.array(load)


# --------------------------------------------------------------------------- network
def check_simulation(pattern, n_jobs, processes, replications) -> tuple[str, int, int, int]:
    """Return the arguments every simulation of a collective shares, checked.

    Used by :func:`simulate_collective` and the event-driven reference
    (:mod:`workbench.models.fim.queueing_des`), so that both refuse the same input in the same
    words.

    Parameters
    ----------
    pattern : str
        One of :data:`PATTERNS`.
    n_jobs : int
        Data points (jobs), >= 1.
    processes : int
        Processes, >= 1.
    replications : int
        Replications, >= 1.

    Returns
    -------
    tuple of (str, int, int, int)
        ``(pattern, n_jobs, processes, replications)``, the counts as ints (a whole float
        such as ``4.0`` is accepted).

    Raises
    ------
    ValidationError
        An unknown pattern, or a count that is not a whole number >= 1 (a bool included).
    """
    if pattern not in PATTERNS:
        raise ValidationError(f"unknown collective pattern {pattern!r}; choose one of {', '.join(PATTERNS)}")
    for name, value in (("n_jobs", n_jobs), ("processes", processes), ("replications", replications)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) and not (
            isinstance(value, (float, np.floating)) and float(value).is_integer()
        ):
            raise ValidationError(f"{name} must be a whole number, got {value!r}")
        if value < 1:
            what = {"n_jobs": "data points (jobs)", "processes": "processes", "replications": "replications"}[name]
            raise ValidationError(f"{name} must be >= 1 {what}, got {value}")
    return pattern, int(n_jobs), int(processes), int(replications)


def _sending_line(rng, n, rates: ServiceRates, offsets):
    """D -> M -> C for jobs grouped in lines (``offsets``).

    Returns the per-job C departures, the station finish times and the per-job service
    samples.
    """
    transfer = rng.uniform(rates.zeta_min, rates.zeta_max, n)
    np.reciprocal(transfer, out=transfer)
    d_departures = np.cumsum(transfer)
    if offsets.size > 2:  # all jobs wait at time 0 at their own line's D: a segmented cumulative sum
        d_departures -= np.repeat(np.r_[0.0, d_departures[offsets[1:-1] - 1]], np.diff(offsets))
    m_departures, m_service, load = metadata_departures(d_departures, rates.metadata_coef, offsets)
    delay = rng.standard_exponential(n)
    delay *= rates.eta
    m_finish = m_departures.max()
    c_departures = np.add(m_departures, delay, out=m_departures)  # M's departures are not needed again
    finish = (d_departures.max(), m_finish, c_departures.max())
    return c_departures, finish, {"D": transfer, "M": m_service, "metadata_load": load, "C": delay}


def _receive(rng, pattern, c_departures, processes, mean_receive):
    """R stations; returns (makespan, receive-time draws of the first queues)."""
    n = c_departures.size
    if pattern == "scatter":
        rows = -(-n // processes)
        padded = np.full(rows * processes, -np.inf)
        padded[:n] = c_departures
        # column j of the (rows, p) layout is R queue j: jobs j, j + p, ... (round robin);
        # the -inf padding sorts first and its service cancels out of the recursion
        arrivals = np.sort(padded.reshape(rows, processes).T, axis=1)
        shape = arrivals.shape
    else:
        arrivals = np.sort(c_departures)[np.newaxis, :]
        shape = (1 if pattern == "gather" else processes, n)
    # broadcast: the same sorted arrivals at every queue, services drawn in chunks of queues
    queues_per_chunk = max(1, _BROADCAST_CHUNK // n) if pattern == "broadcast" else shape[0]
    makespan, first = -np.inf, None
    for start in range(0, shape[0], queues_per_chunk):
        count = min(queues_per_chunk, shape[0] - start)
        service = rng.standard_exponential((count, shape[1]))
        service *= mean_receive
        # scatter and gather: one chunk of arrivals they own; broadcast: a copy per chunk of queues
        scratch = np.array(np.broadcast_to(arrivals, service.shape)) if pattern == "broadcast" else arrivals
        makespan = max(makespan, float(_last_fifo_departure(scratch, service).max()))
        if first is None:
            first = service.ravel()
    return makespan, first


def _subsample(values: np.ndarray, limit: int) -> np.ndarray:
    if values.size <= limit:
        return values.copy()
    return values[np.linspace(0, values.size - 1, limit).astype(np.int64)]


def simulate_collective(
    pattern: str,
    n_jobs: int,
    processes: int,
    *,
    zeta_min: float,
    zeta_max: float,
    metadata_coef: float,
    eta: float,
    psi: float,
    phi: float | None = None,
    seed: int = 0,
    replications: int = 1,
    sample_limit: int = 10_000,
) -> CollectiveSimulation:
    """Simulate a scatter, broadcast or gather of ``n_jobs`` data points over ``processes`` processes.

    Through the D -> M -> C -> R network ([Bhimani2019] section 3, Fig. 4).

    Parameters
    ----------
    pattern : {"scatter", "broadcast", "gather"}
    n_jobs : int >= 1
        Data points (jobs), all present at D at time 0.
    processes : int >= 1
        Number of receivers (scatter, broadcast) or senders (gather).
    zeta_min, zeta_max : float
        Bounds of the per-job transfer rate of D, Eq. 13 (jobs per time unit).
    metadata_coef : float >= 0
        M's service time is ``metadata_coef * (1 + ln(chi))`` (Eq. 14, time form).
    eta : float >= 0
        Mean of C's exponential delay (Eq. 15).
    psi : float >= 0
        Mean of R's exponential receive time (Eq. 16), multiplied by ``phi``.
    phi : float > 0, optional
        Simultaneous receivers (Eq. 16); default :func:`default_phi`.
    seed : int, default 0
        Seeds a numpy ``SeedSequence``; replication ``r`` uses its ``r``-th spawned
        child, so it is the same whatever the number of replications.
    replications : int >= 1, default 1
        Independent simulations of the collective.
    sample_limit : int, default 10000
        Per-station service samples kept from replication 0.

    Returns
    -------
    CollectiveSimulation
        ``makespan`` holds one communication time per replication (same seed, same
        result), in the time unit of the rates.
    """
    pattern, n_jobs, processes, replications = check_simulation(pattern, n_jobs, processes, replications)
    rates = ServiceRates(zeta_min, zeta_max, metadata_coef, eta, psi, phi)
    phi_used = float(phi) if phi is not None else default_phi(pattern, processes)
    if pattern == "gather":
        shares = np.full(processes, n_jobs // processes, dtype=np.int64)
        shares[: n_jobs % processes] += 1
        offsets = np.r_[0, np.cumsum(shares[shares > 0])]
    else:
        offsets = np.array([0, n_jobs], dtype=np.int64)

    makespan = np.empty(replications)
    finish = np.empty((replications, len(STATIONS)))
    samples: dict[str, np.ndarray] = {}
    for r, child in enumerate(np.random.SeedSequence(seed).spawn(replications)):
        rng = np.random.default_rng(child)
        c_departures, line_finish, line_samples = _sending_line(rng, n_jobs, rates, offsets)
        makespan[r], receive = _receive(rng, pattern, c_departures, processes, psi * phi_used)
        finish[r] = (*line_finish, makespan[r])
        if r == 0:
            samples = {k: _subsample(v, sample_limit) for k, v in {**line_samples, "R": receive}.items()}
    return CollectiveSimulation(pattern=pattern, n_jobs=n_jobs, processes=processes, rates=rates, phi=phi_used,
                                seed=int(seed), makespan=makespan,
                                station_finish=pd.DataFrame(finish, columns=list(STATIONS)), samples=samples)
