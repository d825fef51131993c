"""Per-region interval coverage and warned recall of RegionPredictor, per source of profiles.

For every region curve of every source: fit :class:`workbench.models.regions.RegionPredictor`
without the largest allocation (``--holdout 1``; or the two largest, ``--holdout 2``),
predict the held-out allocation(s) and compare with the median measured inclusive time there:

* coverage - the fraction of held-out points inside the 80 % interval (target 0.70-0.90);
* miss - a prediction off by more than 30 % (``|log(actual / prediction)| > log 1.3``);
* warned recall - the fraction of misses whose row is ``warned`` (target >= 0.90);
* warned rate - the fraction of all rows that are ``warned``.

Sources (each evaluated on its own; nothing in RegionPredictor or the ScalingPredictor's
calibration is fitted on any of them, so every source is held out from the calibration,
i.e. the evaluation is leave-one-source-out by construction):

* ``relearn`` - /work/shared/data/extrap-mpi/relearn_data.txt (Extra-P text, 14 regions,
  p = 32..512 for each of 5 neuron counts n: 5 configurations);
* ``thicket-mpi-scaling`` - LLNL/thicket thicket/tests/data/mpi_scaling_cali (Caliper, LULESH
  at 27..343 ranks), read from the fetched mirror;
* ``extrap-strong-scaling`` - extra-p/extrap tests/data/text/strong_scaling/one_parameter_*.txt
  (Extra-P text, synthetic strong-scaling regions), read from the fetched mirror; identical
  curves under several region names are counted once.

Usage: ``python tools/region_coverage.py [--holdout 1|2] [--out results.csv]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.io import read_profiles
from workbench.models.regions import RegionPredictor

RELEARN = Path("/work/shared/data/extrap-mpi/relearn_data.txt")
MIRROR = Path("/work/.mirror")
LEVEL, MISS = 0.8, np.log(1.3)


def _from_mirror(repo: str, prefix: str, out: Path) -> Path | None:
    """Files under ``prefix`` of a fetched repository (git show), or None when not mirrored."""
    git = MIRROR / repo.replace("/", "+") / "repo"
    if not git.exists():
        return None
    names = subprocess.run(["git", "-C", str(git), "ls-tree", "-r", "--name-only", "HEAD", prefix],
                           capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(subprocess.run(["git", "-C", str(git), "show", f"HEAD:{name}"],
                                          capture_output=True, check=True).stdout)
    return out / prefix


def evaluate(table: pd.DataFrame, n: str, holdout: int, config: dict | None = None) -> pd.DataFrame:
    """One row per (region, held-out allocation): actual, prediction, interval, warned."""
    model = RegionPredictor(config=config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = model.fit(table, n=n).runs_
    allocations = np.sort(full["n"].unique())
    if allocations.size - holdout < 3:
        return pd.DataFrame()
    cut = allocations[-holdout - 1]
    train = table[pd.to_numeric(table[n], errors="coerce") <= cut]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RegionPredictor(config=config).fit(train, n=n)
    held = allocations[allocations > cut]
    frame = model.predict_frame(held, LEVEL)
    actual = full[full["n"].isin(held)].groupby(["region", "n"])["inclusive"].median()
    frame = frame.join(actual.rename("actual"), on=["region", "n"]).dropna(subset=["actual", "prediction"])
    frame = frame[frame["actual"] > 0]
    frame["inside"] = (frame["lower"] <= frame["actual"]) & (frame["actual"] <= frame["upper"])
    frame["miss"] = np.abs(np.log(frame["actual"] / frame["prediction"])) > MISS
    frame["config"] = ", ".join(f"{k}={v}" for k, v in (config or {}).items())
    return frame


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Coverage, misses and warned recall per source."""
    rows = []
    for source, part in frame.groupby("source", sort=False):
        misses = part[part["miss"]]
        rows.append({"source": source, "curves": part[["config", "region"]].drop_duplicates().shape[0],
                     "points": len(part), "coverage_80": part["inside"].mean(),
                     "misses_30pct": int(part["miss"].sum()),
                     "warned_recall": misses["warned"].mean() if len(misses) else np.nan,
                     "warned_rate": part["warned"].mean(),
                     "median_abs_log_error": float(np.median(np.abs(np.log(part["actual"] / part["prediction"]))))})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--holdout", type=int, default=1, choices=(1, 2))
    parser.add_argument("--out", type=Path, default=None, help="CSV of every held-out point")
    args = parser.parse_args(argv)
    parts = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if RELEARN.exists():
            relearn = read_profiles(RELEARN)
            for size in sorted(relearn["n"].unique()):
                parts.append(evaluate(relearn, "processes", args.holdout, {"n": size}).assign(source="relearn"))
        else:
            print("relearn: not in the data mirror, skipped", file=sys.stderr)
        lulesh = _from_mirror("LLNL/thicket", "thicket/tests/data/mpi_scaling_cali", tmp / "t")
        if lulesh is not None:
            parts.append(evaluate(read_profiles(lulesh), "processes", args.holdout).assign(
                source="thicket-mpi-scaling"))
        else:
            print("thicket-mpi-scaling: LLNL/thicket not fetched, skipped", file=sys.stderr)
        extrap = _from_mirror("extra-p/extrap", "tests/data/text/strong_scaling", tmp / "e")
        if extrap is not None:
            for path in sorted(extrap.glob("one_parameter_*.txt")):
                table = read_profiles(path)
                param = [c for c in table.columns if c in ("x", "p")][0]
                column = "processes" if param == "p" else param
                parts.append(evaluate(table, column, args.holdout).assign(source="extrap-strong-scaling",
                                                                          config=path.name))
        else:
            print("extrap-strong-scaling: extra-p/extrap not fetched, skipped", file=sys.stderr)
    frame = pd.concat([p for p in parts if len(p)], ignore_index=True)
    # Extra-P's test files repeat one curve under many region names: count each curve once
    frame = frame.drop_duplicates(["source", "config", "n", "actual", "prediction"])
    if args.out:
        frame.to_csv(args.out, index=False)
    summary = summarise(frame)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(f"RegionPredictor, {LEVEL:.0%} intervals, largest {args.holdout} allocation(s) held out")
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
