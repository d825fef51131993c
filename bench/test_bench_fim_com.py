"""pytest-benchmark timings of FiM-Com (workbench.models.fim.queueing), the fast simulator
beside the independent SimPy event-driven one (workbench.models.fim.queueing_des).

    python -m pytest bench/test_bench_fim_com.py --benchmark-only --benchmark-group-by=group

* the paper's largest case (section 4.1, Fig. 6): 13 million data points over 192
  processes, scatter and gather, fast simulator only (SimPy would take hours); goal about
  one second each (spec fim.md part 5).
* side by side on sizes SimPy handles: scatter of 20 000 jobs and broadcast of 2 000 jobs
  (x 16 receivers = 32 000 receptions) over 16 processes, same parameters; each SimPy
  benchmark records its best time, the fast simulator's best time and their ratio in
  ``extra_info``.

Parameters: transfer rate 90-100 % of nominal (section 3.2), time unit = one nominal
transfer.  Every benchmark checks its result against the expected makespan or the other
implementation; timing goals are reported, not asserted.
"""

import time

import numpy as np
import pytest

from workbench.models.fim.queueing import simulate_collective
from workbench.models.fim.queueing_des import simulate_collective_des

#: metadata 0.3 (1 + ln chi) stays below the shortest D time 1.0, so M never queues
RATES = dict(zeta_min=0.9, zeta_max=1.0, metadata_coef=0.3, eta=2.0, psi=0.7)
#: E[1 / U(0.9, 1.0)]: the mean D time per job
MEAN_TRANSFER = np.log(1.0 / 0.9) / 0.1
PAPER_JOBS, PAPER_PROCESSES = 13_000_000, 192


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    # numba compiles (or loads from cache) the metadata kernel on the first call
    simulate_collective("gather", 100, 4, **RATES)


def _makespan(pattern, n_jobs, processes, seed=0):
    return float(simulate_collective(pattern, n_jobs, processes, seed=seed, **RATES).makespan[0])


@pytest.mark.benchmark(group="13 M jobs x 192 processes (paper's largest)")
def test_fast_scatter_13m(benchmark):
    benchmark.extra_info["goal_s"] = 1.0
    makespan = benchmark.pedantic(
        _makespan, args=("scatter", PAPER_JOBS, PAPER_PROCESSES), rounds=3, iterations=1, warmup_rounds=1
    )
    # the single D line dominates: n E[1/U], plus a C + R tail of a few time units
    assert makespan == pytest.approx(PAPER_JOBS * MEAN_TRANSFER, rel=1e-4)


@pytest.mark.benchmark(group="13 M jobs x 192 processes (paper's largest)")
def test_fast_gather_13m(benchmark):
    benchmark.extra_info["goal_s"] = 1.0
    makespan = benchmark.pedantic(
        _makespan, args=("gather", PAPER_JOBS, PAPER_PROCESSES), rounds=3, iterations=1, warmup_rounds=1
    )
    # 192 senders outpace the one collector (load 0.7 * 192 / 1.05): it receives all n
    assert makespan == pytest.approx(PAPER_JOBS * RATES["psi"], rel=2e-3)


def _side_by_side(benchmark, pattern, n_jobs, processes, rel):
    des = benchmark.pedantic(
        lambda: float(simulate_collective_des(pattern, n_jobs, processes, seed=1, **RATES)[0]), rounds=3, iterations=1
    )
    fast_times = []
    for _ in range(5):
        start = time.perf_counter()
        fast = _makespan(pattern, n_jobs, processes, seed=2)
        fast_times.append(time.perf_counter() - start)
    if benchmark.stats is not None:  # None under --benchmark-disable
        des_s = benchmark.stats.stats.min
        benchmark.extra_info.update(des_s=des_s, fast_s=min(fast_times), speedup=des_s / min(fast_times))
    # one replication each, different random numbers: the makespans agree to sampling noise
    assert des == pytest.approx(fast, rel=rel)


@pytest.mark.benchmark(group="scatter 20 000 jobs x 16 processes")
def test_fast_scatter_20k(benchmark):
    makespan = benchmark(_makespan, "scatter", 20_000, 16)
    assert makespan == pytest.approx(20_000 * MEAN_TRANSFER, rel=2e-3)


@pytest.mark.benchmark(group="scatter 20 000 jobs x 16 processes")
def test_simpy_scatter_20k(benchmark):
    _side_by_side(benchmark, "scatter", 20_000, 16, rel=2e-3)


@pytest.mark.benchmark(group="broadcast 2 000 jobs x 16 processes")
def test_fast_broadcast_2k(benchmark):
    makespan = benchmark(_makespan, "broadcast", 2_000, 16)
    # phi = 16: every receiver is saturated (11.2 per job vs 1.05), the slowest of 16 wins
    assert makespan > 2_000 * RATES["psi"] * 16


@pytest.mark.benchmark(group="broadcast 2 000 jobs x 16 processes")
def test_simpy_broadcast_2k(benchmark):
    _side_by_side(benchmark, "broadcast", 2_000, 16, rel=0.06)
