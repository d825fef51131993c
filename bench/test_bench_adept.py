"""pytest-benchmark timings of ADEPT and its baselines on one input (see adept_cases.py).

    python -m pytest bench/ --benchmark-only            # (make bench)
    python -m pytest bench/ --benchmark-only --benchmark-group-by=group

Every benchmark also checks its result, so a fast wrong answer cannot pass unnoticed.
Timing goals are reported (extra_info), not asserted: timings depend on the machine.
"""

import adept_cases as cases
import numpy as np
import pytest

SLOW = dict(rounds=2, iterations=1, warmup_rounds=0)
MEDIUM = dict(rounds=3, iterations=1, warmup_rounds=1)


def _info(benchmark, name):
    _, fits, label, _ = cases.CASES[name]
    benchmark.extra_info.update({"method": label, "fits": fits, "targets": cases.N_TARGETS})


@pytest.mark.benchmark(group="whole curve: 50 targets")
def test_adept_curve(benchmark):
    _info(benchmark, "adept_curve")
    benchmark.extra_info["goal_ms"] = 50
    pred = benchmark(cases.adept_curve)
    assert cases.max_error_pct(pred) < 1.0


@pytest.mark.benchmark(group="whole curve: 50 targets")
def test_adept_per_target(benchmark):
    _info(benchmark, "adept_per_target")
    pred = benchmark.pedantic(cases.adept_per_target, **MEDIUM)
    assert cases.max_error_pct(pred) < 1.0


@pytest.mark.benchmark(group="whole curve: 50 targets")
def test_lm_per_target(benchmark):
    _info(benchmark, "lm_per_target")
    pred = benchmark.pedantic(cases.lm_per_target, **MEDIUM)
    assert np.all(np.isfinite(pred))


@pytest.mark.benchmark(group="one fit")
def test_lm_one(benchmark):
    _info(benchmark, "lm_one")
    pred = benchmark(cases.lm_one)
    assert np.all(np.isfinite(pred)) and np.all(pred > 0)


@pytest.mark.benchmark(group="one fit")
def test_exhaustive_one(benchmark):
    _info(benchmark, "exhaustive_one")
    benchmark.extra_info["grid"] = f"{cases.EXHAUSTIVE_SIZE} x {cases.EXHAUSTIVE_SIZE}"
    pred = benchmark.pedantic(cases.exhaustive_one, **SLOW)
    assert np.all(np.isfinite(pred)) and np.all(pred > 0)


@pytest.fixture(scope="module")
def brute_objectives():
    return cases.bruteforce_window_per_target()


@pytest.mark.benchmark(group="pass 2: 50 windows of 500 x 500")
def test_bruteforce_window_per_target(benchmark):
    _info(benchmark, "bruteforce_window_per_target")
    f = benchmark.pedantic(cases.bruteforce_window_per_target, **SLOW)
    assert np.all(np.isfinite(f))


@pytest.mark.benchmark(group="pass 2: 50 windows of 500 x 500")
def test_fast_window_per_target(benchmark, brute_objectives):
    _info(benchmark, "fast_window_per_target")
    f = benchmark(cases.fast_window_per_target)
    np.testing.assert_allclose(f, brute_objectives, rtol=1e-9, atol=1e-15)


@pytest.mark.benchmark(group="pass 2: 50 windows of 500 x 500")
def test_fast_window_batched(benchmark, brute_objectives):
    _info(benchmark, "fast_window_batched")
    f = benchmark(cases.fast_window_batched)
    np.testing.assert_allclose(f, brute_objectives, rtol=1e-9, atol=1e-15)
