"""pytest-benchmark: ScalingPredictor fit + 8 targets against one scipy least-squares fit.

    python -m pytest bench/test_bench_scaling.py --benchmark-only      # (part of make bench)

The goal: the predictor's fit and 8 predictions
with intervals take <= 100 ms per curve (median), reported beside the baseline of one
``scipy.optimize.least_squares`` fit of Amdahl's law to the same runs, in the same run.
The median over every corpus curve is measured by ``tools/scaling_benchmark.py``
(:func:`workbench.evaluation.scaling_benchmark.speed_table`) and written to the README.
Here: one curve (4 allocations of a synthetic Amdahl curve, labelled). Timings are
reported, not asserted.
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench.evaluation.scaling_benchmark import _least_squares_amdahl
from workbench.models.adept import Adept
from workbench.models.scaling import ScalingPredictor

N = np.array([1.0, 2, 4, 8])
T = 100 * (0.05 + 0.95 / N) * np.array([1.01, 0.99, 1.02, 0.98])  # SYNTHETIC: Amdahl f=0.05, +-2 %
TARGETS = 2.0 ** np.arange(4, 12)  # 8 targets: 16 .. 2048


@pytest.mark.benchmark(group="scaling predictor: one curve, 8 targets")
def test_predictor_fit_and_8_targets(benchmark):
    benchmark.extra_info["goal_ms"] = 100
    frame = benchmark(lambda: ScalingPredictor().fit(N, T).predict_frame(TARGETS))
    assert len(frame) == 8 and frame["prediction"].notna().all()
    assert frame["prediction"].iloc[0] == pytest.approx(100 * (0.05 + 0.95 / 16), rel=0.1)


@pytest.mark.benchmark(group="scaling predictor: one curve, 8 targets")
def test_adept_fit_and_8_targets(benchmark):
    """Issue "Batch prediction at scale", goal 4: ADEPT's fit and 8 predictions <= 10 ms
    (bench/adept_speed.py measures it beside the implementation before the speed-up)."""
    benchmark.extra_info["goal_ms"] = 10
    pred = benchmark(lambda: Adept().fit(N, T).predict(TARGETS))
    assert pred[0] == pytest.approx(100 * (0.05 + 0.95 / 16), rel=0.1)


@pytest.mark.benchmark(group="scaling predictor: one curve, 8 targets")
def test_scipy_least_squares_baseline(benchmark):
    t1, f = benchmark(_least_squares_amdahl, N, T)
    assert t1 == pytest.approx(100, rel=0.05) and f == pytest.approx(0.05, abs=0.03)
