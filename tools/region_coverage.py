"""Per-region interval coverage and warned recall of RegionPredictor, per source of profiles.

For every region curve of every source: fit :class:`workbench.models.regions.RegionPredictor`
without the largest allocation (``--holdout 1``; or the two largest, ``--holdout 2``; or, with
``--all-cuts``, at every cut that leaves at least 3 allocations), predict the held-out
allocation(s) and compare with the median measured inclusive time there:

* coverage - the fraction of held-out points inside the 80 % interval (target 0.70-0.90);
* miss - a prediction off by more than 30 % (``|log(actual / prediction)| > log 1.3``);
* warned recall - the fraction of misses whose row is ``warned`` (target >= 0.90);
* warned rate - the fraction of all rows that are ``warned``;
* false alarms - the fraction of the rows that did *not* miss but are ``warned`` (a warning
  that fires on every row has recall 1 and false alarms 1: it carries no information).

Sources (each evaluated on its own; nothing in RegionPredictor or the ScalingPredictor's
calibration is fitted on any of them, so every source is held out from the calibration,
i.e. the evaluation is leave-one-source-out by construction):

* ``relearn`` - /work/shared/data/extrap-mpi/relearn_data.txt (Extra-P text, 14 regions,
  p = 32..512 for each of 5 neuron counts n: 5 configurations);
* ``thicket-mpi-scaling`` - LLNL/thicket thicket/tests/data/mpi_scaling_cali (Caliper, LULESH
  at 27..343 ranks), read from the fetched mirror;
* ``extrap-strong-scaling`` - extra-p/extrap tests/data/text/strong_scaling/one_parameter_*.txt
  (Extra-P text, synthetic strong-scaling regions), read from the fetched mirror; identical
  curves under several region names are counted once;
* ``extrap-cube`` - extra-p/extrap tests/data/cubeset/single_parameter (Score-P Cube, 4
  regions of a matrix multiplication at problem sizes x = 1..2000: not an allocation, but
  the region curves RegionPredictor is asked to model), read from the fetched mirror;
* ``lammps-cloud`` - the catalogue's ``lammps-cloud-regions`` (bundled extract of
  converged-computing/performance-study): LAMMPS ReaxFF's timing breakdown (Loop and its
  sections Pair, Neigh, Comm, Output, Modify, Other; mean over ranks), strong scaling, 11
  curves (one per cloud environment, CPU 32-256 VMs or GPU 4-32 VMs), 4 sizes each;
* ``kripke-cloud`` - the catalogue's ``kripke-cloud-regions`` (same study): Kripke's timers
  (Generate, Solve and its kernels, SweepSolver and SweepSubdomain; rank 0), strong scaling,
  8 curves, 4 sizes each;
* ``hecbiosim-archer2`` - HECBioSim/benchmark-results (no licence: read from the fetched mirror
  by ``tools/hecbiosim_profiles.py``, never copied): GROMACS 2022.4's cycle and time accounting
  (``mdrun`` and its rows: Force, PME mesh, Domain decomp., ...) and LAMMPS's timing breakdown
  (``Loop``: Pair, Kspace, Neigh, Comm, Modify, ...) on ARCHER2, 5 molecular systems (20k-3000k
  atoms) x 8 splits of a node into MPI tasks x OpenMP threads, strong scaling over nodes; the
  suite ran every node count 1-16, this source takes the doubling sequence 1, 2, 4, 8, 16 (the
  usual design of a scaling study, and 5 allocations make every cut affordable: fitting at all
  16 counts costs about 2 minutes of CPU per GROMACS curve). The allocation is the cores
  (nodes x 128, 128-2048), the same for the 8 splits of a node into tasks x threads: with the
  MPI processes, the 1-task splits start at n = 1, where RegionPredictor.predict_frame raises
  (a region's PMNF with a negative power of log2(n) is asked for its value at n = 1).

The two cloud sources are real applications measured on 6 cloud environments each, but with
4 allocations per curve: every cut that leaves 3 allocations is the holdout-1 cut, and
``--holdout 2`` leaves too few to fit (no rows). HECBioSim's curves have 5 allocations (those
with fewer than 4 of 1, 2, 4, 8, 16 give no rows).

Usage: ``python tools/region_coverage.py [--holdout 1|2] [--all-cuts] [--out results.csv]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

import git_mirror  # tools/, this script's folder
import hecbiosim_profiles  # tools/
import numpy as np
import pandas as pd

from workbench.io import fetch_dataset, read_profiles
from workbench.models.regions import RegionPredictor

RELEARN = Path("/work/shared/data/extrap-mpi/relearn_data.txt")
MIRROR = Path("/work/.mirror")
LEVEL, MISS = 0.8, np.log(1.3)
#: node counts of HECBioSim's curves evaluated (the suite measured 1..16)
HECBIOSIM_NODES = (1, 2, 4, 8, 16)


def _from_mirror(repo: str, prefix: str, out: Path) -> Path | None:
    """Files under ``prefix`` of a fetched repository (git show), or None when not mirrored."""
    git = MIRROR / repo.replace("/", "+") / "repo"
    if not git.exists():
        return None
    git_mirror.extract(git, prefix, out)
    return out / prefix


def evaluate(table: pd.DataFrame, n: str, holdout: int, config: dict | None = None,
             all_cuts: bool = False) -> pd.DataFrame:
    """One row per (region, held-out allocation): actual, prediction, interval, warned.

    ``all_cuts``: fit at every cut that leaves at least 3 allocations (column ``cut``: the
    number of allocations fitted) and predict every larger allocation, instead of holding
    out the ``holdout`` largest only.
    """
    model = RegionPredictor(config=config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = model.fit(table, n=n).runs_
    allocations = np.sort(full["n"].unique())
    if all_cuts:
        parts = [_evaluate_cut(table, n, full, allocations, k, config) for k in range(3, allocations.size)]
        parts = [p for p in parts if len(p)]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if allocations.size - holdout < 3:
        return pd.DataFrame()
    return _evaluate_cut(table, n, full, allocations, allocations.size - holdout, config)


def _evaluate_cut(table: pd.DataFrame, n: str, full: pd.DataFrame, allocations: np.ndarray, k: int,
                  config: dict | None) -> pd.DataFrame:
    """Fit on the ``k`` smallest allocations, predict the others (rows as :func:`evaluate`)."""
    cut = allocations[k - 1]
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
    frame["config"] = ", ".join(f"{key}={v}" for key, v in (config or {}).items())
    frame["cut"] = k
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
                     "false_alarms": part.loc[~part["miss"], "warned"].mean() if (~part["miss"]).any() else np.nan,
                     "median_abs_log_error": float(np.median(np.abs(np.log(part["actual"] / part["prediction"]))))})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--holdout", type=int, default=1, choices=(1, 2))
    parser.add_argument("--all-cuts", action="store_true", help="fit at every cut leaving >= 3 allocations")
    parser.add_argument("--out", type=Path, default=None, help="CSV of every held-out point")
    args = parser.parse_args(argv)
    parts = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if RELEARN.exists():
            relearn = read_profiles(RELEARN)
            for size in sorted(relearn["n"].unique()):
                parts.append(evaluate(relearn, "processes", args.holdout, {"n": size}, args.all_cuts).assign(
                    source="relearn"))
        else:
            print("relearn: not in the data mirror, skipped", file=sys.stderr)
        lulesh = _from_mirror("LLNL/thicket", "thicket/tests/data/mpi_scaling_cali", tmp / "t")
        if lulesh is not None:
            parts.append(evaluate(read_profiles(lulesh), "processes", args.holdout, None, args.all_cuts).assign(
                source="thicket-mpi-scaling"))
        else:
            print("thicket-mpi-scaling: LLNL/thicket not fetched, skipped", file=sys.stderr)
        extrap = _from_mirror("extra-p/extrap", "tests/data/text/strong_scaling", tmp / "e")
        if extrap is not None:
            for path in sorted(extrap.glob("one_parameter_*.txt")):
                table = read_profiles(path)
                param = [c for c in table.columns if c in ("x", "p")][0]
                column = "processes" if param == "p" else param
                parts.append(evaluate(table, column, args.holdout, None, args.all_cuts).assign(
                    source="extrap-strong-scaling", config=path.name))
        else:
            print("extrap-strong-scaling: extra-p/extrap not fetched, skipped", file=sys.stderr)
        cube = _from_mirror("extra-p/extrap", "tests/data/cubeset/single_parameter", tmp / "c")
        if cube is not None:
            parts.append(evaluate(read_profiles(cube), "x", args.holdout, None, args.all_cuts).assign(
                source="extrap-cube"))
        for source, name in (("lammps-cloud", "lammps-cloud-regions"), ("kripke-cloud", "kripke-cloud-regions")):
            table = fetch_dataset(name).frame
            for curve in sorted(table["curve"].unique()):
                parts.append(evaluate(table, "processes", args.holdout, {"curve": curve}, args.all_cuts).assign(
                    source=source))
        hecbiosim = MIRROR / "HECBioSim+benchmark-results" / "repo"
        if hecbiosim.exists():
            table = hecbiosim_profiles.profile_table(hecbiosim)
            table = table[table["nodes"].isin(HECBIOSIM_NODES)]
            sizes = table.groupby("curve")["nodes"].nunique()
            for curve in sorted(sizes.index[sizes >= 4]):  # 3 to fit and at least one to predict
                parts.append(evaluate(table, "cores", args.holdout, {"curve": curve}, args.all_cuts).assign(
                    source="hecbiosim-archer2"))
        else:
            print("hecbiosim-archer2: HECBioSim/benchmark-results not fetched, skipped", file=sys.stderr)
    frame = pd.concat([p for p in parts if len(p)], ignore_index=True)
    # Extra-P's test files repeat one curve under many region names: count each curve once
    frame = frame.drop_duplicates(["source", "config", "cut", "n", "actual", "prediction"])
    if args.out:
        frame.to_csv(args.out, index=False)
    summary = summarise(frame)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        held = "every cut leaving >= 3 allocations" if args.all_cuts else f"largest {args.holdout} allocation(s)"
        print(f"RegionPredictor, {LEVEL:.0%} intervals, {held} held out")
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
