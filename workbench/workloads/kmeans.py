"""Bulk-synchronous parallel K-means (Lloyd's algorithm): the workload of FiM's evaluation.

The paper (section 4) measures K-means with three application parameters: iterations I,
clusters K and points N. This is a real implementation to measure on this machine:

* the parent generates N points in ``dims`` dimensions (Gaussian blobs around K random
  centres, deterministic from ``seed``) and picks K distinct points as initial centroids;
* inside :func:`~workbench.measure.perf.perf_region` it forks ``processes`` workers
  (``multiprocessing`` fork context: each inherits its contiguous chunk of the points
  copy-on-write) and runs exactly I iterations. Each iteration is one FiM *stage*: the
  parent sends the centroids to every worker over a pipe, each worker assigns its points
  to the nearest centroid (squared distances ``||x||^2 - 2 x.c + ||c||^2``, vectorised) and
  returns per-cluster sums and counts, and the parent - the barrier - reduces them and
  updates the centroids (an empty cluster keeps its centroid);
* ``calc_time_s`` is the parent's wall time (``perf_counter``) from just before the
  workers start until they are joined.

BLAS must run single-threaded, or each worker's matrix product would use every core and
the process count would not be the parallelism measured: OpenBLAS / MKL / OpenMP read
:data:`~workbench.measure.machine.SINGLE_THREAD_ENV` once when numpy loads, so the runner sets it
for the child and the CLI re-executes itself with it when it is missing.

CLI: ``python -m workbench.workloads.kmeans --points N --clusters K --iterations I
--processes t [--dims d --seed s]`` prints one JSON line (:meth:`KMeansRun.summary`).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
from dataclasses import dataclass
from time import perf_counter

import numpy as np

from workbench.errors import MeasurementError, ValidationError, WorkbenchError
from workbench.measure.machine import SINGLE_THREAD_ENV
from workbench.measure.perf import perf_region
from workbench.validation import positive_int

__all__ = ["SINGLE_THREAD_ENV", "KMeansRun", "initial_centroids", "lloyd", "make_points", "run_kmeans"]

# Rows per block of the distance matrix: bounds a worker's temporary memory to ~8 MB
# whatever N and K (a loop over blocks, not over points).
_BLOCK_ELEMENTS = 1 << 20
# Spread of the blob centres relative to the unit standard deviation of each blob.
_CENTRE_RANGE = 10.0


@dataclass(frozen=True, eq=False)
class KMeansRun:
    """Result of one :func:`run_kmeans`.

    ``calc_time_s``: wall time of the parallel calculation (workers started ... joined), s.
    ``inertia``: sum of squared distances of the points to their assigned centroids in the
    last iteration's assignment step (before its centroid update). ``inertia_history``: the
    same for every iteration (non-increasing for Lloyd's algorithm). ``centroids``: shape
    (clusters, dims), after the last update. ``empty_clusters``: number of (iteration,
    cluster) pairs without points, whose centroid was kept.
    """

    points: int
    clusters: int
    iterations: int
    processes: int
    dims: int
    seed: int
    calc_time_s: float
    inertia: float
    inertia_history: tuple[float, ...]
    centroids: np.ndarray
    empty_clusters: int

    def summary(self) -> dict:
        """JSON-ready parameters and results (without the centroid array)."""
        return {
            "points": self.points,
            "clusters": self.clusters,
            "iterations": self.iterations,
            "processes": self.processes,
            "dims": self.dims,
            "seed": self.seed,
            "calc_time_s": self.calc_time_s,
            "inertia": self.inertia,
            "empty_clusters": self.empty_clusters,
        }


def make_points(points: int, clusters: int, dims: int = 8, seed: int = 0) -> np.ndarray:
    """Make ``points`` x ``dims`` float64 points in ``clusters`` Gaussian blobs, deterministic from ``seed``.

    Unit spread, centres uniform in [-10, 10]^dims.

    Parameters
    ----------
    points : int
        Number of points N.
    clusters : int
        Number of Gaussian blobs.
    dims : int, default 8
        Dimensions d.
    seed : int, default 0
        Seed of the data.
    """
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-_CENTRE_RANGE, _CENTRE_RANGE, size=(clusters, dims))
    labels = rng.integers(0, clusters, size=points)
    return centres[labels] + rng.standard_normal((points, dims))


def initial_centroids(data: np.ndarray, clusters: int, seed: int = 0) -> np.ndarray:
    """``clusters`` distinct points of ``data`` chosen at random (Forgy initialisation).

    Parameters
    ----------
    data : numpy.ndarray, shape (N, d)
        The points.
    clusters : int
        Number of centroids K.
    seed : int, default 0
        Seed of the choice.
    """
    rng = np.random.default_rng([seed, 1])
    return data[rng.choice(len(data), size=clusters, replace=False)].copy()


def _partial_sums(x: np.ndarray, xx: np.ndarray, centroids: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-cluster coordinate sums, counts and the inertia of one chunk's assignment."""
    k, d = centroids.shape
    cc = np.einsum("ij,ij->i", centroids, centroids)
    labels = np.empty(len(x), dtype=np.intp)
    inertia = 0.0
    step = max(1, _BLOCK_ELEMENTS // k)
    for start in range(0, len(x), step):
        block = slice(start, start + step)
        d2 = x[block] @ centroids.T
        d2 *= -2.0
        d2 += xx[block, None]
        d2 += cc
        lab = d2.argmin(axis=1)
        labels[block] = lab
        # Rounding can make the expanded form slightly negative for a point on a centroid.
        inertia += float(np.maximum(np.take_along_axis(d2, lab[:, None], axis=1), 0.0).sum())
    counts = np.bincount(labels, minlength=k)
    sums = np.empty((k, d))
    for j in range(d):
        sums[:, j] = np.bincount(labels, weights=x[:, j], minlength=k)
    return sums, counts, inertia


def _worker(chunk: np.ndarray, conn) -> None:
    """Serve assignment steps: receive centroids, send (sums, counts, inertia); None stops."""
    xx = np.einsum("ij,ij->i", chunk, chunk)
    while (centroids := conn.recv()) is not None:
        conn.send(_partial_sums(chunk, xx, centroids))
    conn.close()


def lloyd(data: np.ndarray, centroids: np.ndarray, iterations: int, processes: int):
    """Run ``iterations`` bulk-synchronous Lloyd iterations on ``processes`` forked workers.

    Returns ``(centroids, inertia_history, empty_clusters, calc_time_s)``; see
    :class:`KMeansRun`. ``data`` (N, d) is split into ``processes`` contiguous chunks.

    Parameters
    ----------
    data : numpy.ndarray, shape (N, d)
        The points.
    centroids : numpy.ndarray, shape (K, d)
        The initial centroids.
    iterations : int
        Lloyd iterations I.
    processes : int
        Forked workers t.
    """
    data = np.asarray(data, dtype=float)
    centroids = np.array(centroids, dtype=float, copy=True)
    if data.ndim != 2 or centroids.ndim != 2 or centroids.shape[1] != data.shape[1] or not len(centroids):
        raise ValidationError(
            f"lloyd: data must be (N, d) and centroids (K, d) with K >= 1, got {data.shape} and {centroids.shape}"
        )
    iterations = positive_int(iterations, "iterations", "lloyd")
    processes = positive_int(processes, "processes", "lloyd")
    if processes > len(data):
        raise ValidationError(f"lloyd: processes={processes} exceeds the {len(data)} points")
    ctx = mp.get_context("fork")
    history: list[float] = []
    empty = 0
    start = perf_counter()
    conns, workers = [], []
    try:
        for chunk in np.array_split(data, processes):
            parent_end, child_end = ctx.Pipe()
            worker = ctx.Process(target=_worker, args=(chunk, child_end), daemon=True)
            worker.start()
            child_end.close()
            conns.append(parent_end)
            workers.append(worker)
        for _ in range(iterations):
            try:
                for conn in conns:
                    conn.send(centroids)
                parts = [conn.recv() for conn in conns]
            except (EOFError, OSError):
                raise _worker_died(workers) from None
            sums = np.sum([p[0] for p in parts], axis=0)
            counts = np.sum([p[1] for p in parts], axis=0)
            history.append(float(sum(p[2] for p in parts)))
            filled = counts > 0
            empty += int((~filled).sum())
            centroids[filled] = sums[filled] / counts[filled, None]
        for conn in conns:
            conn.send(None)
        for worker in workers:
            worker.join()
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.kill()
                worker.join()
        for conn in conns:
            conn.close()
    return centroids, tuple(history), empty, perf_counter() - start


def _worker_died(workers) -> MeasurementError:
    for worker in workers:
        worker.join(timeout=1.0)
    dead = ", ".join(f"worker {i} died (exit code {w.exitcode})" for i, w in enumerate(workers) if not w.is_alive())
    return MeasurementError(f"k-means: {dead or 'a worker pipe broke'} during an iteration")


def run_kmeans(points: int, clusters: int, iterations: int, processes: int, *, dims: int = 8,
               seed: int = 0) -> KMeansRun:
    """Generate the data and run the measured K-means calculation (see the module docstring).

    ``points`` N, ``clusters`` K, ``iterations`` I, ``processes`` t (workers), ``dims`` d:
    positive integers with ``processes <= points`` and ``clusters <= points``. Only the
    calculation runs inside :func:`~workbench.measure.perf.perf_region`.

    Parameters
    ----------
    points : int
        Number of points N (>= processes and >= clusters).
    clusters : int
        Number of clusters K.
    iterations : int
        Lloyd iterations I.
    processes : int
        Workers t.
    dims : int, default 8
        Dimensions d.
    seed : int, default 0
        Seed of the data and the initial centroids.
    """
    points = positive_int(points, "points", "run_kmeans")
    clusters = positive_int(clusters, "clusters", "run_kmeans")
    iterations = positive_int(iterations, "iterations", "run_kmeans")
    processes = positive_int(processes, "processes", "run_kmeans")
    dims = positive_int(dims, "dims", "run_kmeans")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValidationError(f"run_kmeans: seed must be a non-negative integer, got {seed!r}")
    if processes > points:
        raise ValidationError(f"run_kmeans: processes={processes} exceeds points={points}: every worker needs a point")
    if clusters > points:
        raise ValidationError(f"run_kmeans: clusters={clusters} exceeds points={points}: centroids start at distinct "
                              "points")
    data = make_points(points, clusters, dims, seed)
    init = initial_centroids(data, clusters, seed)
    with perf_region():
        centroids, history, empty, calc_time = lloyd(data, init, iterations, processes)
    return KMeansRun(
        points=points, clusters=clusters, iterations=iterations, processes=processes, dims=dims,
        seed=int(seed), calc_time_s=calc_time, inertia=history[-1], inertia_history=history,
        centroids=centroids, empty_clusters=empty,
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.workloads.kmeans",
        description="Run the bulk-synchronous parallel K-means workload and print one JSON line.",
    )
    parser.add_argument("--points", type=int, required=True, help="number of points N")
    parser.add_argument("--clusters", type=int, required=True, help="number of clusters K")
    parser.add_argument("--iterations", type=int, required=True, help="number of iterations I")
    parser.add_argument("--processes", type=int, required=True, help="number of worker processes t")
    parser.add_argument("--dims", type=int, default=8, help="dimensions d (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one K-means measurement from the command line (one JSON line on stdout); return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default None: ``sys.argv[1:]``.
    """
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    if any(os.environ.get(k) != v for k, v in SINGLE_THREAD_ENV.items()):
        # numpy is loaded already with multi-threaded BLAS: restart with the limits (same
        # pid, so perf keeps counting it; before perf_region, so the restart is not counted).
        os.environ.update(SINGLE_THREAD_ENV)
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable, "-m", "workbench.workloads.kmeans", *argv])
    try:
        run = run_kmeans(args.points, args.clusters, args.iterations, args.processes, dims=args.dims, seed=args.seed)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(run.summary()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
