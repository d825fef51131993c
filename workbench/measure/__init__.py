"""Measurement harness: run commands under ``perf stat`` and sweep a workload.

* :func:`run_perf_stat`, :func:`perf_available`, :func:`perf_unavailable_reason`,
  :func:`perf_region`, :class:`PerfRun` - counters of one command, optionally of its
  calculation phase only (:mod:`workbench.measure.perf`).
* :func:`measure_kmeans`, :func:`kmeans_design`, :class:`KMeansConfig`,
  :func:`read_measured_kmeans`, :func:`write_measured_kmeans`, :data:`MEASURED_COLUMNS` -
  the K-means sweep and its tidy frame of TC, SC, U, F per run
  (:mod:`workbench.measure.sweep`, imported on first use so that
  ``python -m workbench.measure.sweep`` runs that module once).
* :mod:`workbench.measure.phases` - :class:`~workbench.measure.phases.PhaseTimer`, named-phase
  timing of Python programs (exclusive times, the profile frame of the fractal model).
* :mod:`workbench.measure.comm` - the MPI communication benchmarks of seeds 002 and 004
  (``python -m workbench.measure.comm pingpong|datagen``), run under ``mpiexec``.
* :func:`exclusive_measurement`, :func:`current_measurement`, :func:`max_processes` - one
  measurement at a time per machine, non-blocking, and a cap on its processes
  (:mod:`workbench.measure.lock`); every sweep above runs inside it.
* :func:`default_measure_dir`, :func:`check_output_path` - where measurements are written
  (outside the repository by default; existing files and the repository's ``data/`` only with
  ``force=True``), atomically with the CSV's checksum in the sidecar
  (:mod:`workbench.io.sidecar`).
"""

from workbench.io.sidecar import check_output_path, default_measure_dir
from workbench.measure.lock import current_measurement, exclusive_measurement, max_processes
from workbench.measure.perf import PerfRun, perf_available, perf_region, perf_unavailable_reason, run_perf_stat

_SWEEP_NAMES = (
    "MEASURED_COLUMNS",
    "KMeansConfig",
    "kmeans_design",
    "measure_kmeans",
    "read_measured_kmeans",
    "write_measured_kmeans",
    "default_kmeans_path",
)

__all__ = [
    "PerfRun",
    "check_output_path",
    "current_measurement",
    "default_measure_dir",
    "exclusive_measurement",
    "max_processes",
    "perf_available",
    "perf_region",
    "perf_unavailable_reason",
    "run_perf_stat",
    *_SWEEP_NAMES,
]


def __getattr__(name: str):
    if name in _SWEEP_NAMES:
        from workbench.measure import sweep

        return getattr(sweep, name)
    raise AttributeError(f"module 'workbench.measure' has no attribute {name!r}")
