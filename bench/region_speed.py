"""Speed of RegionPredictor on profiles with many regions: its default models against all five.

Input: a labelled synthetic profile table (made here, seeded): a root ``main`` and R - 1 child
regions measured at p = 4..128 (6 allocations), region r's time ``1000/p + 0.01 r log2(p) + 1``
seconds with 2 % noise -- the shape of an application with many timers (a climate model's GPTL
output has hundreds).

Compared in the same run, on the same table: ``RegionPredictor()`` (its default,
:data:`workbench.models.regions.REGION_MODELS`, every scaling model but ADEPT) against
``RegionPredictor(models=tuple(MODELS))`` (all five, the default before: the baseline). Timed:
``fit`` and ``predict_frame([256, 512])`` (the dashboard's first answer: every region's rows,
shares, ranks, growth and verdicts).

Usage: ``python bench/region_speed.py [--regions 40 200] [--out bench/results/region_speed.md]``.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.models.regions import REGION_MODELS, RegionPredictor
from workbench.models.scaling import MODELS

ALLOCATIONS = np.array([4.0, 8, 16, 32, 64, 128])


def synthetic_table(regions: int, seed: int = 0) -> pd.DataFrame:
    """The labelled synthetic profile table described in the module docstring."""
    rng = np.random.default_rng(seed)
    p = ALLOCATIONS[:, None]
    r = np.arange(regions)[None, :]
    times = (1000 / p + 0.01 * r * np.log2(p) + 1) * (1 + 0.02 * rng.standard_normal((p.size, regions)))
    times[:, 0] = times[:, 1:].sum(axis=1) * 1.01  # the root holds every child
    names = ["main"] + [f"main->r{i}" for i in range(1, regions)]
    return pd.DataFrame({
        "profile": np.repeat([f"run{i}" for i in range(p.size)], regions),
        "region": np.tile(names, p.size), "parent": np.tile([""] + ["main"] * (regions - 1), p.size),
        "depth": np.tile([0] + [1] * (regions - 1), p.size), "metric": "time", "kind": "inclusive",
        "aggregation": "max", "value": times.reshape(-1), "unit": "s", "processes": np.repeat(ALLOCATIONS, regions)})


def time_one(table: pd.DataFrame, models: tuple) -> tuple[float, float]:
    """Seconds of fit and of the first predict_frame."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model = RegionPredictor(models=models).fit(table, progress=False)
        fitted = time.perf_counter()
        model.predict_frame([256.0, 512.0])
        return fitted - start, time.perf_counter() - fitted


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--regions", type=int, nargs="+", default=[40, 200])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "region_speed.md")
    args = parser.parse_args(argv)
    lines = ["# RegionPredictor speed: default models (no ADEPT) against all five (bench/region_speed.py)", "",
             f"{time.strftime('%Y-%m-%d')}, {platform.node()} ({platform.processor() or platform.machine()}), one "
             "process, both sides in the same run on the same synthetic table (module docstring).", "",
             "| regions | fit, all five (s) | fit, default (s) | speed-up | predict_frame, all five (s) | "
             "predict_frame, default (s) | speed-up |", "|---|---|---|---|---|---|---|"]
    for regions in args.regions:
        table = synthetic_table(regions)
        base_fit, base_predict = time_one(table, tuple(MODELS))
        fit, predict = time_one(table, REGION_MODELS)
        lines.append(f"| {regions} | {base_fit:.2f} | {fit:.2f} | {base_fit / fit:.1f}x | {base_predict:.2f} | "
                     f"{predict:.2f} | {base_predict / predict:.1f}x |")
        print(lines[-1], flush=True)
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
