"""Write the reference results that ADEPT's and the predictor's fast paths must reproduce.

    WORKBENCH_DATA_MIRROR=../shared/data .venv/bin/python tools/adept_reference.py

Fits :class:`~workbench.models.adept.Adept` (default settings, and ``units="paper",
saturation="thesis"``) and :class:`~workbench.models.scaling.ScalingPredictor` on every curve
of the scaling corpus and the NPB Raspberry Pi curves, on the runs at the 3 and 4 smallest
allocations and on all of them, and writes each per-target fit (or the refusal message) to
``tests/data/adept_reference.csv.gz``: derived numbers only, no runtimes.
``tests/test_adept_reference.py`` refits and compares.  ADEPT's rows were made with the
implementation before its speed-up (commit 90a4807), so the test shows the fast code gives the
same results; the predictor's rows were remade when its combination and calibration changed
(14 development sources, the plausibility rule, shift-robust intervals, the perfect-scaling floor), checked to leave
every ADEPT row identical.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.errors import WorkbenchError  # noqa: E402
from workbench.io import curves_from_scaling_frame, fetch_dataset, fetch_npb_pi_cluster  # noqa: E402
from workbench.models.adept import Adept  # noqa: E402
from workbench.models.scaling import ScalingPredictor  # noqa: E402

OUT = ROOT / "tests" / "data" / "adept_reference.csv.gz"
ADEPT_SETTINGS = {"default": {}, "paper-thesis": {"units": "paper", "saturation": "thesis"}}
FIT_COLUMNS = ["A", "sigma", "scale", "wssre", "max_rel_error", "prediction", "speedup", "runner_up_A",
               "runner_up_sigma", "suggested_n", "saturation", "saturating_A", "saturation_suggested_n"]
FRAME_COLUMNS = ["prediction", "lower", "upper", "model", "warned", "warnings"]


def load_curves() -> pd.DataFrame:
    """The corpus and the NPB curves with >= 4 allocations: curve_id, n, time_s."""
    corpus = fetch_dataset("scaling-corpus").frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        npb = curves_from_scaling_frame(fetch_npb_pi_cluster().frame, source="npb-pi-cluster", min_points=4)
    return pd.concat([corpus[["curve_id", "n", "time_s"]], npb[["curve_id", "n", "time_s"]]], ignore_index=True)


def cases(curves: pd.DataFrame):
    """(curve_id, subset, n, t, targets) for every curve and subset "k3", "k4", "all"."""
    for cid, g in curves.groupby("curve_id", sort=True):
        n, t = g["n"].to_numpy(float), g["time_s"].to_numpy(float)
        alloc = np.unique(n)
        for subset, k in (("k3", 3), ("k4", 4), ("all", alloc.size)):
            if alloc.size < k or (subset == "k4" and alloc.size == 4):
                continue
            keep = n <= alloc[k - 1]
            targets = np.unique(np.concatenate([alloc, alloc[-1] * np.array([2.0, 4.0, 8.0])]))
            yield cid, subset, n[keep], t[keep], targets


def adept_rows(cid, subset, n, t, targets):
    for setting, kw in ADEPT_SETTINGS.items():
        base = {"curve_id": cid, "subset": subset, "what": f"adept-{setting}"}
        try:
            model = Adept(**kw).fit(n, t)
            fits = model.explain(targets)
            kinds = ";".join(sorted({w.kind for w in model.warnings_for(targets)}))
        except WorkbenchError as exc:
            yield {**base, "error": str(exc)}
            continue
        for row in fits.to_dict("records"):
            yield {**base, "target": row["target"], **{c: row[c] for c in FIT_COLUMNS},
                   "delta": model.delta_, "warnings": kinds, "error": ""}


def predictor_rows(cid, subset, n, t, targets):
    base = {"curve_id": cid, "subset": subset, "what": "predictor"}
    try:
        frame = ScalingPredictor().fit(n, t).predict_frame(targets)
    except WorkbenchError as exc:
        yield {**base, "error": str(exc)}
        return
    for row in frame.to_dict("records"):
        yield {**base, "target": row["n"], **{c: row[c] for c in FRAME_COLUMNS if c != "warnings"},
               "warnings": ";".join(row["warnings"]), "error": ""}


def reference(curves: pd.DataFrame, progress: bool = True) -> pd.DataFrame:
    rows = []
    todo = list(cases(curves))
    for case in tqdm(todo, desc="reference fits", disable=not progress):
        rows += adept_rows(*case)
        rows += predictor_rows(*case)
    return pd.DataFrame(rows)


def main() -> int:
    frame = reference(load_curves())
    OUT.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUT, index=False)
    print(f"{len(frame)} rows -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
