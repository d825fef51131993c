"""Throughput of ``workbench.batch.predict_many`` beside a plain loop, in the same run.

    .venv/bin/python bench/batch_throughput.py --curves 1000 --out bench/results/batch_throughput.md
    .venv/bin/python bench/batch_throughput.py --curves 10000 --only joblib2,dask --out bench/results/batch_10000.md

A synthetic archive (labelled synthetic: Amdahl-like curves, 4 allocations with 2 repeats each,
lognormal noise) written as Parquet; 8 targets; all models.  Measured: the plain loop
(``ScalingPredictor().fit(...).predict_frame(...)`` per curve, this process), joblib with 1 and
2 workers, a dask.distributed LocalCluster of 2 worker processes, each reading the Parquet
file; curves/s, the time 10,000 curves would take at that rate, and the driver's peak RSS
(sampled every 20 ms; the archive is read in batches, so it should not grow with the archive).
``--only`` picks the measurements (loop, joblib1, joblib2, dask; default all).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

from workbench.batch import predict_many
from workbench.models.scaling import ScalingPredictor

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from readme_block import publish  # noqa: E402

TARGETS = [32, 64, 128, 256, 512, 1024, 2048, 4096]


def synthetic_archive(curves: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = np.repeat([[2, 4, 8, 16]], curves, axis=0).astype(float)
    serial, work = rng.uniform(1, 5, (curves, 1)), rng.uniform(100, 1000, (curves, 1))
    t = (serial + work / n)[:, :, None] * rng.lognormal(0, 0.03, (curves, 4, 2))
    return pd.DataFrame({
        "app": np.repeat([f"app{i % 50}" for i in range(curves)], 8),
        "machine": np.repeat([f"m{i}" for i in range(curves)], 8),
        "processes": np.repeat(n, 2, axis=1).reshape(-1),
        "time_s": t.reshape(-1),
    })


class PeakRSS:
    """Peak resident memory of this process, sampled every 20 ms."""

    def __enter__(self):
        self.peak, self._stop = 0, threading.Event()
        proc = psutil.Process()

        def sample():
            while not self._stop.is_set():
                self.peak = max(self.peak, proc.memory_info().rss)
                time.sleep(0.02)
        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--curves", type=int, default=400)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--readme", metavar="BLOCK",
                    help="also write the table into the <!-- BLOCK:begin --> block (README.md or docs/)")
    ap.add_argument("--only", default="loop,joblib1,joblib2,dask",
                    help="comma-separated measurements: loop, joblib1, joblib2, dask")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    runs = synthetic_archive(args.curves)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.parquet"
        runs.to_parquet(path, index=False)

        def record(what, seconds, peak):
            rate = args.curves / seconds
            rows.append({"what": what, "seconds": seconds, "curves_per_s": rate, "ten_thousand_s": 1e4 / rate,
                         "peak_rss_mb": peak / 2**20})
            print(rows[-1], flush=True)

        if "loop" in only:
            with PeakRSS() as mem:
                start = time.perf_counter()
                for _, curve in runs.groupby(["app", "machine"]):
                    ScalingPredictor().fit(curve["processes"], curve["time_s"]).predict_frame(TARGETS)
                record("plain loop, this process", time.perf_counter() - start, mem.peak)
        for jobs in (1, 2):
            if f"joblib{jobs}" not in only:
                continue
            with PeakRSS() as mem:
                start = time.perf_counter()
                predict_many(path, ["app", "machine"], TARGETS, n_jobs=jobs, progress=False)
                record(f"predict_many joblib, {jobs} worker(s)", time.perf_counter() - start, mem.peak)
        if "dask" in only:
            from dask.distributed import Client, LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
                    Client(cluster) as client, PeakRSS() as mem:
                start = time.perf_counter()
                predict_many(path, ["app", "machine"], TARGETS, engine="dask", client=client, progress=False)
                record("predict_many dask LocalCluster, 2 workers", time.perf_counter() - start, mem.peak)
    table = ["| what | curves/s | 10,000 curves at that rate | driver peak RSS |", "|---|---|---|---|"]
    table += [f"| {r['what']} | {r['curves_per_s']:.1f} | {r['ten_thousand_s']:.0f} s | {r['peak_rss_mb']:.0f} MB |"
              for r in rows]
    text = (f"# Batch throughput ({dt.date.today()}, {os.cpu_count()} cores)\n\n"
            f"`bench/batch_throughput.py --curves {args.curves}`: synthetic archive (Parquet), 4 allocations x 2 "
            f"repeats per curve, {len(TARGETS)} targets, all models, same run.\n\n" + "\n".join(table) + "\n")
    publish(text, args.out, args.readme)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
