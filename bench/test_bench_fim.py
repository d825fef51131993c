"""pytest-benchmark timings of FiM-Cal (workbench.models.fim), each beside its baseline.

    python -m pytest bench/test_bench_fim.py --benchmark-only --benchmark-group-by=group

* transition matrix (Eqs. 6-8): the vectorised FFT convolution at t = 64 and t = 1024 vs the
  paper's literal triple sum with binomial coefficients at t = 64 (the literal form at
  t = 1024 would take minutes); goal for t = 1024: well under a second.
* whole prediction curve: FiMCal.predict for one configuration at t = 1..1024 (paper model
  and the barrier extension).
* Algorithm 1: the vectorised alpha walk vs the step-by-step loop, same 2000 steps.

Every benchmark also checks its result; timing goals are reported, not asserted.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from workbench.models.fim import (
    FiMCal,
    base_probabilities,
    calculation_time,
    calibrate_alpha,
    markov_times,
    transition_matrix,
    transition_matrix_literal,
)

PROBS = base_probabilities(1e4, 2e3, 0.9).as_tuple()
F = 3.0e9


@pytest.mark.benchmark(group="transition matrix")
def test_matrix_literal_t64(benchmark):
    m = benchmark.pedantic(transition_matrix_literal, args=(64, *PROBS), rounds=2, iterations=1)
    np.testing.assert_allclose(m.sum(axis=1), (1 - 1e-4) ** np.arange(65), rtol=1e-9)


@pytest.mark.benchmark(group="transition matrix")
def test_matrix_vectorised_t64(benchmark):
    m = benchmark(transition_matrix, 64, *PROBS)
    np.testing.assert_allclose(m, transition_matrix_literal(64, *PROBS), rtol=1e-7, atol=1e-15)


@pytest.mark.benchmark(group="transition matrix")
def test_matrix_vectorised_t1024(benchmark):
    benchmark.extra_info["goal_s"] = 1.0
    m = benchmark.pedantic(transition_matrix, args=(1024, *PROBS), rounds=5, iterations=1)
    np.testing.assert_allclose(m.sum(axis=1), (1 - 1e-4) ** np.arange(1025), rtol=1e-9)


def _runs():
    rows = []
    for i, k, n in itertools.product([10, 20, 40], [8, 16], [1e4, 2e4, 4e4]):
        tc = 5e7 + 2e6 * i + 3e6 * k + 1e3 * n
        for t in (1, 2, 4):
            rows.append(dict(iterations=i, clusters=k, points=n, processes=t, cycles=tc, stall_cycles=0.2 * tc,
                             utilization=0.6, freq_hz=F, calc_time_s=1.3 * calculation_time(t, tc, F)))
    return pd.DataFrame(rows)


CURVE = pd.DataFrame({"iterations": 100, "clusters": 64, "points": 1e6, "processes": np.arange(1, 1025)})


@pytest.mark.benchmark(group="prediction curve t = 1..1024")
def test_curve_paper(benchmark):
    model = FiMCal(epsilon=1e-3, tau=1e-3).fit(_runs())
    pred = benchmark(model.predict, CURVE)
    assert np.all(np.diff(pred) < 0)


@pytest.mark.benchmark(group="prediction curve t = 1..1024")
def test_curve_barrier(benchmark):
    model = FiMCal(model="barrier", stages="iterations", epsilon=1e-2, max_iter=20).fit(_runs())
    pred = benchmark(model.predict, CURVE)
    assert np.all(np.isfinite(pred))


def _walk_inputs():
    runs = _runs()
    tc = runs.cycles.to_numpy()
    hardware = np.column_stack([tc, 0.2 * tc, np.full(len(tc), 0.6)])
    return hardware, runs.processes.to_numpy(float), runs.calc_time_s.to_numpy() * 1.0


def sequential_walk(hardware, t, actual, steps, epsilon):
    alpha, best = 1.0, np.inf
    for _ in range(steps + 1):
        pred = markov_times(alpha * hardware, t, F)
        ok = np.isfinite(pred)
        best = min(best, np.sqrt(np.mean(((pred[ok] - actual[ok]) / actual[ok]) ** 2)))
        alpha += epsilon
    return best


@pytest.mark.benchmark(group="Algorithm 1: 2000 alpha steps")
def test_walk_sequential(benchmark):
    hardware, t, actual = _walk_inputs()
    best = benchmark.pedantic(sequential_walk, args=(hardware, t, actual * 2, 2000, 1e-4), rounds=2, iterations=1)
    assert best > 0


@pytest.mark.benchmark(group="Algorithm 1: 2000 alpha steps")
def test_walk_vectorised(benchmark):
    hardware, t, actual = _walk_inputs()
    result = benchmark(calibrate_alpha, hardware, t, actual * 2, F, epsilon=1e-4, tau=1e-9, max_iter=2000)
    assert not result.converged and result.iterations == 2000
