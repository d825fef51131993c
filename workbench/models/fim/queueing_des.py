"""FiM-Com by discrete-event simulation.

An independent SimPy implementation of the scatter / broadcast / gather queueing networks
([Bhimani2019] section 3, Fig. 4, Eqs. 13-16).

Why it exists
-------------
* **Independent check.**  :func:`workbench.models.fim.queueing.simulate_collective`
  reaches its speed through algebra (max-plus recursions, a compiled M loop, sorted
  arrivals, padded round-robin layouts): each step is a place to go wrong without any
  error.  Here the same model is written the way it is described -- every job is a SimPy
  process that queues at FIFO servers and waits on timeouts -- with no shared code
  except argument validation.  Both must agree exactly when the model is deterministic
  and in distribution (two-sample KS test) otherwise (``tests/test_fim_queueing_des.py``).
* **Speed baseline.**  It is what a straightforward event-driven simulator costs
  (``bench/test_bench_fim_com.py``): tens of microseconds per event, hopeless for the
  paper's 13 million data points.

The model is the one documented in :mod:`workbench.models.fim.queueing`:

* **D** -- per sending line one FIFO server (``simpy.Resource``, capacity 1); all the
  line's jobs request it at time 0 in job order; service ``1 / U(zeta_min, zeta_max)``.
* **M** -- per sending line one FIFO server; a job that starts service while ``chi``
  jobs are at M (waiting, plus itself) takes ``metadata_coef * (1 + ln(chi))``.
* **C** -- infinite server: each job waits ``Exp(mean eta)`` on its own.
* **R** -- FIFO receivers (capacity 1 each), service ``Exp(mean psi * phi)``: scatter
  sends the ``k``-th job to leave M to receiver ``k mod p``; broadcast sends a copy of
  every job to each of the ``p`` receivers; gather has ``p`` D/M/C lines (line ``j``
  holds ``n // p`` jobs, the first ``n % p`` lines one more) feeding one receiver.

The makespan is the last departure from R.  Random numbers come from the replication's
own generator, drawn when the event needs them, so the two implementations share the
distribution but not the draws.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.errors import WorkbenchError
from workbench.models.fim.queueing import ServiceRates, check_simulation, default_phi

__all__ = ["metadata_station_des", "simulate_collective_des"]


def _simpy():
    try:
        import simpy
    except ImportError as exc:
        raise WorkbenchError(
            "the event-driven FiM-Com simulation needs SimPy: pip install simpy "
            "(or pip install -e '.[test]')"
        ) from exc
    return simpy


class _MetadataStation:
    """The state-dependent M station of one sending line (Eq. 14, time form).

    ``present`` counts the jobs at M (queued or in service).  A job reads it when the
    server is granted: SimPy processes same-time events in scheduling order and the
    grant is scheduled at that instant, after every arrival already due then, so ``chi``
    includes all jobs that arrived at or before the service start -- the definition of
    :mod:`workbench.models.fim.queueing`.
    """

    def __init__(self, simpy, env, coef: float):
        self.env = env
        self.coef = coef
        self.server = simpy.Resource(env, capacity=1)
        self.present = 0

    def serve(self):
        """SimPy sub-process of one job; returns ``(chi, service time)``."""
        self.present += 1
        with self.server.request() as turn:
            yield turn
            chi = self.present
            service = self.coef * (1.0 + math.log(chi))
            yield self.env.timeout(service)
            self.present -= 1
        return chi, service


def metadata_station_des(arrivals, coef: float):
    """Simulate the M station alone, event by event.

    Jobs arrive at ``arrivals`` (any order of equal times, sorted) and are served FIFO.

    Returns ``(departures, service, load)`` like
    :func:`workbench.models.fim.queueing.metadata_departures`, ``load`` being chi.

    Parameters
    ----------
    arrivals : array-like of float
        Sorted arrival times.
    coef : float
        Service coefficient c of Eq. 14.
    """
    simpy = _simpy()
    arrivals = np.asarray(arrivals, dtype=float)
    env = simpy.Environment()
    station = _MetadataStation(simpy, env, float(coef))
    departures = np.empty(arrivals.size)
    service = np.empty(arrivals.size)
    load = np.empty(arrivals.size, dtype=np.int64)

    def job(k):
        yield env.timeout(arrivals[k])
        load[k], service[k] = yield from station.serve()
        departures[k] = env.now

    for k in range(arrivals.size):
        env.process(job(k))
    env.run()
    return departures, service, load


def _replicate(simpy, rng, pattern, n_jobs, processes, rates: ServiceRates, mean_receive) -> float:
    """One replication of the network; returns the makespan."""
    env = simpy.Environment()
    lines = processes if pattern == "gather" else 1
    receivers = [simpy.Resource(env, capacity=1) for _ in range(1 if pattern == "gather" else processes)]

    def receive(receiver):
        with receiver.request() as turn:
            yield turn
            yield env.timeout(rng.exponential(mean_receive))

    def job(k, transfer, metadata):
        with transfer.request() as turn:
            yield turn
            yield env.timeout(1.0 / rng.uniform(rates.zeta_min, rates.zeta_max))
        yield from metadata.serve()
        yield env.timeout(rng.exponential(rates.eta))
        if pattern == "scatter":
            yield from receive(receivers[k % processes])
        elif pattern == "broadcast":
            for receiver in receivers:
                env.process(receive(receiver))
        else:
            yield from receive(receivers[0])

    for line in range(lines):
        share = n_jobs // lines + (line < n_jobs % lines)
        transfer = simpy.Resource(env, capacity=1)
        metadata = _MetadataStation(simpy, env, rates.metadata_coef)
        # processes start in creation order, so D's FIFO queue holds the jobs in index
        # order and job k is the k-th to leave D and M (the round robin of scatter)
        for k in range(share):
            env.process(job(k, transfer, metadata))
    env.run()
    # nothing is scheduled after the last service at R ends
    return env.now


def simulate_collective_des(
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
) -> np.ndarray:
    """Makespans of a scatter, broadcast or gather simulated event by event with SimPy.

    Same model and parameters as
    :func:`workbench.models.fim.queueing.simulate_collective` (section 3, Eqs. 13-16);
    the same validation errors.  Replication ``r`` uses the ``r``-th child of
    ``numpy.random.SeedSequence(seed)``.

    Parameters
    ----------
    pattern : {"scatter", "broadcast", "gather"}
        The collective.
    n_jobs : int
        Data points (jobs), all present at D at time 0 (>= 1).
    processes : int
        Receivers (scatter, broadcast) or senders (gather), >= 1.
    zeta_min, zeta_max : float
        Bounds of D's per-job transfer rate (Eq. 13).
    metadata_coef : float
        M's service coefficient (Eq. 14).
    eta : float
        Mean of C's exponential delay (Eq. 15).
    psi : float
        Mean of R's exponential receive time (Eq. 16).
    phi : float, optional
        Simultaneous receivers (Eq. 16); default :func:`~workbench.models.fim.queueing.default_phi`.
    seed : int, default 0
        Seed of the ``SeedSequence`` whose children seed the replications.
    replications : int, default 1
        Independent simulations.

    Returns
    -------
    ndarray, shape (replications,)
        Communication time (last departure from R) of each replication.

    Raises
    ------
    WorkbenchError
        SimPy is not installed, or (``ValidationError``) an argument is invalid.
    """
    pattern, n_jobs, processes, replications = check_simulation(pattern, n_jobs, processes, replications)
    rates = ServiceRates(zeta_min, zeta_max, metadata_coef, eta, psi, phi)
    simpy = _simpy()
    mean_receive = psi * (float(phi) if phi is not None else default_phi(pattern, processes))
    return np.array(
        [
            _replicate(simpy, np.random.default_rng(child), pattern, n_jobs, processes, rates, mean_receive)
            for child in np.random.SeedSequence(seed).spawn(replications)
        ]
    )
