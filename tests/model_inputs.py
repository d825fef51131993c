"""Small, well-formed inputs for every model: what the fuzz and contract tests start from.

Each function returns a fresh frame, so a test may change it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.models.fim import calculation_time

#: Clock frequency of the FiM runs, Hz.
F = 3.0e9


def fim_runs() -> pd.DataFrame:
    """FiM-Cal K-means runs: 6 configurations x 1, 2, 4 processes, times 1.3 x the Markov model's."""
    rows = []
    for i, k, p in [(10, 8, 1e4), (20, 8, 2e4), (40, 16, 1e4), (20, 16, 4e4), (10, 16, 2e4), (40, 8, 4e4)]:
        tc = 5e7 + 2e6 * i + 3e6 * k + 1e3 * p
        for t in (1, 2, 4):
            rows.append(dict(iterations=i, clusters=k, points=p, processes=t, cycles=tc, stall_cycles=0.2 * tc,
                             utilization=0.6, freq_hz=F, calc_time_s=1.3 * calculation_time(t, tc, F)))
    return pd.DataFrame(rows)


def comm_sweep(n: int = 120) -> pd.DataFrame:
    """A random communication sweep with the base metrics of [Papadopoulou2015] and a time linear in them."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "S": 2.0 ** rng.integers(7, 21, n), "M": rng.integers(1, 5, n).astype(float),
        "PPN": rng.integers(1, 17, n).astype(float), "N": rng.integers(1, 65, n).astype(float),
        "I": rng.uniform(0.0, 1.0, n), "SW": rng.integers(1, 6, n).astype(float), "R": 1.0,
    })
    frame["comm_time_us"] = 3.0 + 1e-4 * frame["S"] * frame["M"] * (1 + frame["PPN"] * frame["I"])
    return frame


def exchange_frame() -> pd.DataFrame:
    """Exchange-benchmark times at 4 message sizes x 1-8 processes per node, proportional to both."""
    sizes = [4096, 8192, 65536, 262144]
    rows = [dict(message_size_bytes=s, processes_per_node=p, avg_comm_time_us=6.1 * p * s / 4096 / 3)
            for s in sizes for p in (1, 2, 4, 8)]
    return pd.DataFrame(rows)


def gbm_frame(n_per: int = 4) -> pd.DataFrame:
    """Communication times of 4 node counts with the features of the gradient-boosting models."""
    rng = np.random.default_rng(0)
    nodes = np.repeat([4, 8, 16, 32], n_per)
    load = rng.choice(["memory", "compute"], nodes.size)
    return pd.DataFrame({"nodes": nodes, "messages": rng.choice([2, 4, 8], nodes.size), "load": load,
                         "comm_s": 1e-3 * nodes * rng.uniform(0.9, 1.1, nodes.size)})


def profile() -> pd.DataFrame:
    """A three-phase profile at six sizes (one run each): solve ~ s^1.5, io ~ s, init constant."""
    rows = [{"size": s, "phase": p, "time_s": f(s), "run": 0}
            for s in (100.0, 200.0, 300.0, 400.0, 500.0, 600.0)
            for p, f in (("solve", lambda s: 1e-4 * s**1.5), ("io", lambda s: 1e-3 * s), ("init", lambda s: 0.01))]
    return pd.DataFrame(rows)
