"""Rebuild the shipped interval calibration of the multi-parameter predictor.

    WORKBENCH_DATA_MIRROR=../shared/data .venv/bin/python tools/multiparam_calibrate.py \
        [--extrap-repo /path/to/extra-p+extrap/repo] [--hecbiosim-repo /path/to/repo] [--no-write]

1. Reads the development grids (:func:`workbench.evaluation.multiparam.development_sources`:
   RELeARN, NPB on a Pi cluster, Gunrock on R-MAT graphs, the bundled size-grid extracts (LANL,
   GROMACS on AlaSKA, AMG2023 on Google Cloud, Oceananigans.jl, PencilFFTs.jl) and, with
   ``--extrap-repo``, Extra-P's own two-parameter test experiments; with ``--hecbiosim-repo``,
   HECBioSim's four MD engines on ARCHER2 over five molecular systems,
   :func:`hecbiosim_profiles.size_grids`).
2. Fits the predictor per grid and split (*bigger*, *more-p*) and records every member's
   held-out predictions (:func:`~workbench.evaluation.multiparam.benchmark_records`).
3. Prints the leave-one-source-out accuracy and 80 % coverage (calibrated on the other
   sources, scored on the held-out one).
4. Writes the calibration fitted on all sources (temperature, priors, error models, warning
   threshold; numbers only, no data) to ``workbench/models/multiparam/multiparam_calibration.json``.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import hecbiosim_profiles  # noqa: E402  (tools/)

from workbench.evaluation.multiparam import (  # noqa: E402
    SPLITS,
    benchmark_records,
    calibrate,
    development_sources,
    leave_one_source_out,
    summary,
)
from workbench.models.multiparam import CALIBRATION_PATH  # noqa: E402

DEFAULT_EXTRAP_REPO = "/work/.mirror/extra-p+extrap/repo"


def main(argv=None) -> int:
    """Run the calibration (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extrap-repo", default=DEFAULT_EXTRAP_REPO if Path(DEFAULT_EXTRAP_REPO).exists() else None)
    ap.add_argument("--hecbiosim-repo", default=str(hecbiosim_profiles.DEFAULT_MIRROR),
                    help="a git mirror of HECBioSim/benchmark-results (no licence: read, never copied)")
    ap.add_argument("--no-write", action="store_true", help="print only; do not write the calibration")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    sources = development_sources(extrap_repo=args.extrap_repo)
    sources.update(hecbiosim_profiles.size_sources(args.hecbiosim_repo))
    records = benchmark_records(sources)
    held = summary(leave_one_source_out(records))
    print(held.to_string(index=False))
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    grids = {src: len(sets) for src, sets in sources.items()}
    provenance = {
        "made_by": "tools/multiparam_calibrate.py",
        "commit": commit,
        "date": datetime.date.today().isoformat(),
        "data": ", ".join(f"{src}: {k} grids" for src, k in grids.items()),
        "splits": list(SPLITS),
        "records": int(len(records)),
        "method": ("per member: weighted median regression of log(actual/predicted) on [1, extrapolation] and a "
                   "Laplace scale model on the features (distance past the measured box in doublings, inside, "
                   "in-sample misfit, 1/points; the predictor also the members' disagreement and its "
                   "cross-validation error); symmetric empirical quantiles of the standardised errors (of their "
                   "absolute values, mirrored); each (source, split) "
                   "weighted once; temperature chosen from workbench.evaluation.multiparam.TEMPERATURES"),
    }
    cal = calibrate(records, provenance)
    print(f"temperature {cal.temperature}, risk threshold {cal.risk_threshold:.3f}, priors {cal.cv_prior}")
    if not args.no_write:
        cal.to_json(CALIBRATION_PATH)
        print(f"wrote {CALIBRATION_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
