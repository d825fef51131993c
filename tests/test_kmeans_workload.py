"""Parallel K-means workload: agreement with a plain numpy Lloyd, Lloyd's monotone
inertia, empty clusters, input validation and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from workbench.errors import MeasurementError, ValidationError
from workbench.workloads.kmeans import (
    SINGLE_THREAD_ENV,
    KMeansRun,
    initial_centroids,
    lloyd,
    make_points,
    run_kmeans,
)

N, K, I, D = 3000, 5, 8, 3


def reference_lloyd(data, centroids, iterations):
    """Textbook Lloyd with explicit (x - c)^2 distances, one process."""
    centroids = centroids.copy()
    inertia = []
    for _ in range(iterations):
        d2 = ((data[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
        labels = d2.argmin(axis=1)
        inertia.append(d2[np.arange(len(data)), labels].sum())
        for k in range(len(centroids)):
            members = data[labels == k]
            if len(members):
                centroids[k] = members.mean(axis=0)
    return centroids, np.array(inertia)


@pytest.fixture(scope="module")
def reference():
    data = make_points(N, K, D, seed=7)
    return reference_lloyd(data, initial_centroids(data, K, seed=7), I)


@pytest.mark.parametrize("processes", [1, 2, 3])
def test_matches_plain_lloyd(reference, processes):
    ref_centroids, ref_inertia = reference
    run = run_kmeans(N, K, I, processes, dims=D, seed=7)
    assert isinstance(run, KMeansRun)
    np.testing.assert_allclose(run.centroids, ref_centroids, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(run.inertia_history, ref_inertia, rtol=1e-9)
    assert run.inertia == run.inertia_history[-1]
    assert len(run.inertia_history) == I
    assert run.calc_time_s > 0
    assert (run.points, run.clusters, run.iterations, run.processes, run.dims, run.seed) == (N, K, I, processes, D, 7)


def test_inertia_is_non_increasing():
    history = np.array(run_kmeans(4000, 12, 15, 2, dims=4, seed=3).inertia_history)
    assert np.all(np.diff(history) <= 1e-9 * history[:-1])
    assert history[-1] < history[0]


def test_empty_cluster_keeps_its_centroid():
    # Two tight groups at 0 and 10 on a line; the third centroid at 1000 never gets a point.
    data = np.array([[0.0], [0.2], [-0.2], [10.0], [10.4], [9.6]])
    init = np.array([[1.0], [9.0], [1000.0]])
    centroids, history, empty, calc_time = lloyd(data, init, 3, 2)
    np.testing.assert_allclose(centroids, [[0.0], [10.0], [1000.0]], atol=1e-12)
    assert empty == 3  # one empty cluster in each of the 3 iterations
    # Hand-computed: to centroids 1 and 9: 1+0.64+1.44 + 1+1.96+0.36 = 6.4; then to the
    # group means 0 and 10: 0+0.04+0.04 + 0+0.16+0.16 = 0.4.
    assert history == pytest.approx((6.4, 0.4, 0.4))
    assert calc_time > 0


def test_data_are_deterministic_gaussian_blobs():
    a, b = make_points(5000, 4, 2, seed=1), make_points(5000, 4, 2, seed=1)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (5000, 2)
    assert not np.array_equal(a, make_points(5000, 4, 2, seed=2))
    init = initial_centroids(a, 4, seed=1)
    assert len(np.unique(init, axis=0)) == 4
    assert all((a == c).all(axis=1).any() for c in init)  # Forgy: centroids are data points


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"points": 0}, "points must be a positive integer, got 0"),
        ({"clusters": "3"}, "clusters must be a positive integer, got '3'"),
        ({"iterations": 2.0}, "iterations must be a positive integer"),
        ({"processes": True}, "processes must be a positive integer, got True"),
        ({"dims": -1}, "dims must be a positive integer"),
        ({"points": 4, "clusters": 2, "processes": 5}, "processes=5 exceeds points=4"),
        ({"points": 4, "clusters": 5, "processes": 1}, "clusters=5 exceeds points=4"),
        ({"seed": -1}, "seed must be a non-negative integer"),
    ],
)
def test_invalid_inputs(kwargs, message):
    args = {"points": 100, "clusters": 3, "iterations": 2, "processes": 1, **kwargs}
    dims, seed = args.pop("dims", 8), args.pop("seed", 0)
    with pytest.raises(ValidationError, match=message):
        run_kmeans(**args, dims=dims, seed=seed)


def _cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "workbench.workloads.kmeans", *args],
        capture_output=True, text=True, timeout=60, env=env,
    )


def test_cli_prints_one_json_line_even_without_the_blas_limits():
    # Without the single-thread variables the CLI re-executes itself with them set.
    env = {k: v for k, v in os.environ.items() if k not in SINGLE_THREAD_ENV}
    proc = _cli("--points", "2000", "--clusters", "4", "--iterations", "3", "--processes", "2",
                "--dims", "2", "--seed", "5", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    direct = run_kmeans(2000, 4, 3, 2, dims=2, seed=5)
    assert {k: result[k] for k in ("points", "clusters", "iterations", "processes", "dims", "seed")} == {
        "points": 2000, "clusters": 4, "iterations": 3, "processes": 2, "dims": 2, "seed": 5,
    }
    assert result["inertia"] == pytest.approx(direct.inertia, rel=1e-12)
    assert result["calc_time_s"] > 0 and result["empty_clusters"] == direct.empty_clusters


def test_cli_reports_invalid_input():
    proc = _cli("--points", "3", "--clusters", "2", "--iterations", "1", "--processes", "4",
                env={**os.environ, **SINGLE_THREAD_ENV})
    assert proc.returncode == 2
    assert "error: run_kmeans: processes=4 exceeds points=3" in proc.stderr
    assert proc.stdout == ""


def test_a_dying_worker_is_reported(monkeypatch):
    import workbench.workloads.kmeans as kmeans

    # Forked workers run the patched target: it exits before answering the first iteration.
    monkeypatch.setattr(kmeans, "_worker", lambda chunk, conn: os._exit(3))
    data = make_points(100, 2, 2)
    with pytest.raises(MeasurementError, match="worker 0 died \\(exit code 3\\)"):
        lloyd(data, initial_centroids(data, 2), 2, 2)


def test_lloyd_checks_shapes():
    data = make_points(10, 2, 3)
    with pytest.raises(ValidationError, match=r"lloyd: data must be \(N, d\) and centroids \(K, d\).*\(10, 3\) and "
                       r"\(2, 2\)"):
        lloyd(data, np.zeros((2, 2)), 1, 1)
    with pytest.raises(ValidationError, match="lloyd: processes=11 exceeds the 10 points"):
        lloyd(data, data[:2], 1, 11)
