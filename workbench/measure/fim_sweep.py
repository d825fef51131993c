"""The small K-means sweep the FiM-Cal dashboard measures on demand ([Bhimani2019] section 4).

:data:`SMALL_SWEEP` is just enough for FiM-Cal: Eq. 11's four coefficients need I, K and N
each varied on the training process counts, and one larger test configuration scores the
prediction.  :func:`measure_small_sweep` runs it once under ``perf stat`` (the counters
TC, SC, U that FiM needs), run by run, under one measurement lock.
"""

from __future__ import annotations

import pandas as pd

from workbench.errors import MeasurementError
from workbench.measure.lock import exclusive_measurement
from workbench.measure.perf import perf_unavailable_reason
from workbench.measure.sweep import KMeansConfig, measure_kmeans

__all__ = ["SMALL_SWEEP", "measure_small_sweep"]

#: 5 training configurations (I, K and N each varied, enough for Eq. 11's 4 coefficients)
#: on 1, 2, 4 processes and one larger test configuration on 1-4 processes, one repeat: 19
#: runs, ~20 s on this project's 2-core machine.  The smallest run still calculates for
#: ~0.1 s: in shorter runs the timer granularity pushes the measured U past 1.02, which
#: FiMCal refuses.
SMALL_SWEEP = (
    KMeansConfig(100_000, 8, 20, processes=(1, 2, 4)),
    KMeansConfig(200_000, 8, 20, processes=(1, 2, 4)),
    KMeansConfig(100_000, 16, 20, processes=(1, 2, 4)),
    KMeansConfig(100_000, 8, 40, processes=(1, 2, 4)),
    KMeansConfig(200_000, 16, 40, processes=(1, 2, 4)),
    KMeansConfig(400_000, 16, 40, processes=(1, 2, 3, 4), role="test"),
)


def measure_small_sweep(progress=None, plan=SMALL_SWEEP) -> pd.DataFrame:
    """Measure ``plan`` (default :data:`SMALL_SWEEP`) once under ``perf stat``, run by run.

    Parameters
    ----------
    progress : object with ``update(1)``, optional
        Told after each run (a tqdm bar).
    plan : sequence of KMeansConfig, default SMALL_SWEEP
        The configurations, each on its process counts.

    Returns
    -------
    pandas.DataFrame
        The measured runs (:data:`~workbench.io.measured.KMEANS_COLUMNS`).

    Raises
    ------
    MeasurementError
        When perf cannot count here (FiM needs TC, SC, U), or another measurement holds the lock.
    """
    reason = perf_unavailable_reason()
    if reason is not None:
        raise MeasurementError(f"perf stat cannot count on this machine, so TC, SC and U cannot be measured: {reason}")
    runs = [(config, t) for config in plan for t in config.processes]
    parts = []
    # one lock for the whole sweep (measure_kmeans takes it again per run: re-entrant), so that
    # no other measurement on this machine slips in between two runs
    with exclusive_measurement(f"FiM dashboard: small K-means sweep ({len(runs)} runs)",
                               processes=max(t for _, t in runs)):
        for config, t in runs:
            one = KMeansConfig(config.points, config.clusters, config.iterations, config.dims, (t,), config.role)
            parts.append(measure_kmeans([one], repeats=1, progress=False))
            if progress is not None:
                progress.update(1)
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["description"] = f"small sweep measured here just now ({len(frame)} runs, one repeat)"
    return frame
