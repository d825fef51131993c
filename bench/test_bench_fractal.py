"""pytest-benchmark timings of the fractal model ([EscobarBoppana]) and of the phase timer's overhead.

    python -m pytest bench/test_bench_fractal.py --benchmark-only

Every benchmark checks its result; timings are reported, not asserted.
"""

import time
import warnings

import numpy as np
import pytest

from workbench.io import fetch_dataset
from workbench.measure.phases import PhaseTimer
from workbench.models.fractal import FractalExtrapolator, fit_phase

ENTRIES = 10_000


@pytest.mark.benchmark(group="phase timer overhead")
def test_phase_entry_and_exit(benchmark):
    """10 000 empty ``with timer.phase(...)`` blocks: the cost per phase entry is the mean / 10 000."""
    timer = PhaseTimer()
    phase = timer.phase("x")

    def enter_many():
        for _ in range(ENTRIES):
            with phase:
                pass

    with timer.run(1):
        benchmark(enter_many)
    benchmark.extra_info["entries_per_round"] = ENTRIES
    assert timer.frame()["phase"].tolist() == ["x"]


@pytest.mark.benchmark(group="phase timer overhead")
def test_baseline_two_clock_reads(benchmark):
    """Baseline for the timer: 10 000 bare pairs of ``perf_counter()`` reads, the least a timed
    region can cost."""
    clock = time.perf_counter

    def read_many():
        total = 0.0
        for _ in range(ENTRIES):
            t0 = clock()
            total += clock() - t0
        return total

    assert benchmark(read_many) >= 0


@pytest.mark.benchmark(group="fractal model")
def test_baseline_polyfit(benchmark):
    """Baseline for :func:`fit_phase`: the bare least-squares line of numpy on the same points."""
    sizes = 100.0 + 20.0 * np.arange(1, 6)
    times = 2.0 * (sizes / 1000) ** 3
    m, b = benchmark(np.polyfit, np.log(sizes / 1000), np.log(times), 1)
    assert m == pytest.approx(3.0) and np.exp(b) == pytest.approx(2.0)


@pytest.mark.benchmark(group="fractal model")
def test_fit_phase(benchmark):
    sizes = 100.0 + 20.0 * np.arange(1, 6)
    times = 2.0 * (sizes / 1000) ** 3
    fit = benchmark(fit_phase, sizes, times, 1000)
    assert fit.m == pytest.approx(3.0) and fit.predicted == pytest.approx(2.0)


@pytest.mark.benchmark(group="fractal model")
def test_extrapolator_on_the_demo_data(benchmark):
    demo = fetch_dataset("fractal-demo-local").frame
    target = demo.attrs["target_size"]
    small = demo[demo["size"] < target]

    def fit_predict():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return FractalExtrapolator().fit(small).predict(target)

    pred = benchmark(fit_predict)
    assert pred.total > 0 and pred.band[0] < pred.total < pred.band[1]
