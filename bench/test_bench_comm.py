"""pytest-benchmark timings of YDF's inverse mean minimum depth ([Branikas2024] section 7.1) on a
fitted scikit-learn ensemble: the vectorised level-by-level computation
(:func:`workbench.models.comm.gbm.inverse_mean_min_depth`) beside the literal recursive
per-path walk (:func:`~workbench.models.comm.gbm.mean_min_depth_reference`).

    python -m pytest bench/test_bench_comm.py --benchmark-only --benchmark-group-by=group

The ensemble: ``GradientBoostingRegressor(n_estimators=300, max_depth=6)`` on 2 000 rows of
the thesis's six features (working set, load, message size, messages, nodes, processes per
node; a synthetic target), i.e. 300 trees of up to 127 nodes -- the size of the models
the thesis tunes.  Both benchmarks check their result against the other implementation;
the recursive one records the speed-up in ``extra_info``.
"""

import time

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingRegressor

from workbench.models.comm.gbm import FEATURES, inverse_mean_min_depth, mean_min_depth_reference


@pytest.fixture(scope="module")
def ensemble():
    rng = np.random.default_rng(0)
    X = np.column_stack([
        rng.choice([2, 8, 32, 128, 256, 512], 2000) * 2.0**20,  # working set
        rng.integers(0, 2, 2000),  # load
        rng.choice([1, 5, 10, 50, 100], 2000) * 1024.0,  # message size
        rng.choice([2, 4, 8], 2000),  # messages
        rng.choice([4, 8, 16, 32, 64], 2000),  # nodes
        rng.choice([2, 4, 8, 16, 20], 2000),  # processes per node
    ])
    y = 1e-9 * X[:, 2] * X[:, 3] * X[:, 5] * (1 + 0.3 * X[:, 1]) + 1e-12 * X[:, 0] + rng.normal(0, 1e-4, 2000)
    return GradientBoostingRegressor(n_estimators=300, max_depth=6, random_state=0).fit(X, y)


@pytest.mark.benchmark(group="inverse mean min depth, 300 trees of depth 6")
def test_vectorised(benchmark, ensemble):
    out = benchmark(inverse_mean_min_depth, ensemble, FEATURES)
    pd.testing.assert_frame_equal(out, mean_min_depth_reference(ensemble, FEATURES))


@pytest.mark.benchmark(group="inverse mean min depth, 300 trees of depth 6")
def test_recursive_walk(benchmark, ensemble):
    out = benchmark.pedantic(mean_min_depth_reference, args=(ensemble, FEATURES), rounds=3, iterations=1)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        fast = inverse_mean_min_depth(ensemble, FEATURES)
        times.append(time.perf_counter() - start)
    if benchmark.stats is not None:  # None under --benchmark-disable
        slow = benchmark.stats.stats.min
        benchmark.extra_info.update(vectorised_s=min(times), recursive_s=slow, speedup=slow / min(times))
    pd.testing.assert_frame_equal(out, fast)
