"""Generate the SYNTHETIC example scaling tables in this folder (deterministic).

Run from the repository root:  python data/synthetic/make_synthetic.py

Every runtime is ``tau * T(n; A, sigma) * (1 + 0.02 z)`` with ``T`` Downey's runtime in
model units (ADEPT thesis Table 1, :func:`workbench.models.downey.runtime`), ``tau`` a
time scale in seconds and ``z`` standard normal noise.  Nothing here was measured.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from workbench.models.downey import runtime

HERE = Path(__file__).resolve().parent
SEED = 20240601
NOISE = 0.02
PROCESSES = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256])
REPEATED = np.array([4, 32, 128])  # three repetitions (run 0, 1, 2) at these n


def _table(rng, benchmark, problem_class, processes, runs, A, sigma, tau):
    t = tau * runtime(processes, A, sigma) * (1 + NOISE * rng.standard_normal(processes.size))
    return pd.DataFrame(
        {
            "benchmark": benchmark,
            "problem_class": problem_class,
            "processes": processes,
            "run": runs,
            "time_s": np.round(t, 4),
            "source": f"synthetic: Downey model A={A:g}, sigma={sigma:g}, tau={tau:g} s, {NOISE:.0%} noise",
        }
    )


def main() -> None:
    rng = np.random.default_rng(SEED)

    # Single size, with repetitions: processes 1..256, runs 0..2 at REPEATED.
    extra = np.repeat(REPEATED, 2)
    processes = np.concatenate([PROCESSES, extra])
    runs = np.concatenate([np.zeros(PROCESSES.size, int), np.tile([1, 2], REPEATED.size)])
    order = np.lexsort((runs, processes))
    downey = _table(rng, "downey-synthetic", "example", processes[order], runs[order], A=120, sigma=0.6, tau=2.5)
    downey.to_csv(HERE / "downey_example.csv", index=False)

    # Two problem sizes of the same "application" with a similar shape.
    ones = np.zeros(PROCESSES.size, int)
    small = _table(rng, "downey-synthetic", "small", PROCESSES, ones, A=120, sigma=0.6, tau=2.5)
    large = _table(rng, "downey-synthetic", "large", PROCESSES, ones, A=150, sigma=0.7, tau=9.0)
    pd.concat([small, large]).to_csv(HERE / "cross_size_example.csv", index=False)


if __name__ == "__main__":
    main()
