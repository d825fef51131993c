"""Rerun the scaling benchmark, rebuild the shipped interval calibration and the README tables.

    WORKBENCH_DATA_MIRROR=../shared/data .venv/bin/python tools/scaling_benchmark.py [--no-write]

1. Reads the real curves: the scaling corpus (152 curves, catalogue ``scaling-corpus``) and
   the Raspberry Pi NPB curves with at least 4 allocations (``npb-pi-cluster``), each curve
   labelled with its source.
2. Fits every model and the predictor on every curve under the protocols k3, k4 and spread
   (:func:`workbench.evaluation.scaling_benchmark.benchmark_records`).
3. Leave-one-source-out: calibrates intervals, predictor temperature and warning threshold on
   the other sources and scores the held-out one; summarises with ``leaderboard`` and
   ``warning_table``.
4. Writes ``bench/results/scaling_benchmark.md`` (all tables), the README block between
   ``<!-- scaling-benchmark:begin -->`` and ``<!-- scaling-benchmark:end -->`` and the block
   ``scaling-benchmark-full`` of docs/benchmarks.md (tools/readme_block.py finds them), the per-curve
   summary ``bench/results/scaling_curves.csv`` and the overall ``scaling_leaderboard.csv``
   (derived numbers only, no runtimes; the dashboard's leaderboard view reads them) and the
   calibration fitted on all sources to ``workbench/models/scaling/calibration.json``.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from readme_block import write_readme_block  # noqa: E402  (tools/, this script's folder)

from workbench.evaluation.scaling_benchmark import (  # noqa: E402
    PROTOCOLS,
    benchmark_curves,
    benchmark_records,
    fit_calibration,
    leaderboard,
    leave_one_source_out,
    speed_table,
    warning_table,
)
from workbench.models.scaling.calibration import CALIBRATION_PATH  # noqa: E402

RESULTS = ROOT / "bench" / "results"
BEGIN, END = "<!-- scaling-benchmark:begin -->", "<!-- scaling-benchmark:end -->"
FULL_BEGIN, FULL_END = "<!-- scaling-benchmark-full:begin -->", "<!-- scaling-benchmark-full:end -->"


def load_curves() -> pd.DataFrame:
    """The benchmark's curves (:func:`benchmark_curves`), with the columns the evaluation reads."""
    keep = ["curve_id", "source", "n", "run", "time_s", "unit", "app", "machine", "metric"]
    return benchmark_curves()[keep]


def _pct(x):
    return "–" if pd.isna(x) else f"{100 * x:.0f} %"


def markdown(frame: pd.DataFrame, formats: dict) -> str:
    cols = list(formats)
    head = "| " + " | ".join(formats[c][0] for c in cols) + " |"
    rule = "|" + "|".join("---" for _ in cols) + "|"
    body = ["| " + " | ".join(formats[c][1](row[c]) for c in cols) + " |" for _, row in frame.iterrows()]
    return "\n".join([head, rule] + body)


BOARD = {
    "model": ("model", str),
    "predictions": ("predictions", lambda v: f"{int(v)}"),
    "median_pa": ("median PA", lambda v: f"{v:.1f} %"),
    "within_10": ("within 10 %", _pct),
    "within_20": ("within 20 %", _pct),
    "coverage": ("80 % interval coverage", _pct),
    "median_width": ("median width (upper/lower)", lambda v: f"{v:.2f}x"),
    "constant_width": ("constant band, same coverage", lambda v: f"{v:.2f}x"),
    "miss_recall": ("misses > 30 % warned", _pct),
    "good_silent": ("silent when <= 30 %", _pct),
    "fit_ms": ("fit [ms]", lambda v: f"{v:.1f}"),
}
SPEED = {
    "what": ("what", str),
    "curves": ("curves", lambda v: f"{int(v)}"),
    "median_ms": ("median [ms]", lambda v: f"{v:.1f}"),
    "p90_ms": ("90th percentile [ms]", lambda v: f"{v:.1f}"),
}
WARN = {
    "kind": ("warning kind", lambda v: f"`{v}`"),
    "fired": ("fires on", _pct),
    "precision": ("precision (error > 30 %)", _pct),
    "recall": ("recall (error > 30 %)", _pct),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print the tables, write nothing")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    curves = load_curves()
    records = benchmark_records(curves)
    results = leave_one_source_out(records)
    overall = leaderboard(results)
    order = {m: i for i, m in enumerate(["predictor", "amdahl", "usl", "downey-lm", "adept", "pmnf"])}
    overall = overall.sort_values("model", key=lambda s: s.map(order)).reset_index(drop=True)
    by_protocol = leaderboard(results, by=("protocol", "model"))
    by_source = leaderboard(results[results["model"] == "predictor"], by=("fold",))
    warn = warning_table(results)
    speed = speed_table(curves)
    elapsed = time.perf_counter() - start
    n_curves = curves["curve_id"].nunique()
    n_sources = curves["source"].nunique()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    intro = (
        f"{n_curves} real curves from {n_sources} sources (the scaling corpus and the Pi-cluster NPB curves with >= 4 "
        f"allocations), protocols {', '.join(PROTOCOLS)}, {int(overall['predictions'].iloc[0])} held-back "
        "predictions per model; intervals, predictor weights and warning threshold calibrated "
        "leave-one-source-out (on the other sources, scored on the held-out one). Refused predictions count "
        "as misses. Made by `tools/scaling_benchmark.py` "
        f"(commit {commit}, {datetime.date.today()}, {elapsed:.0f} s on {platform.machine()})."
    )
    protocol_tables = "\n\n".join(
        f"**{p}**\n\n" + markdown(g.drop(columns="protocol"), BOARD)
        for p, g in by_protocol.groupby("protocol", sort=False))
    source_board = by_source.rename(columns={"fold": "model"})
    text = "\n\n".join([
        intro, markdown(overall, BOARD),
        "Warnings of the predictor as classifiers of a miss (error > 30 %), leave-one-source-out:",
        markdown(warn, WARN),
        "Speed per curve (its 4 smallest allocations, 8 targets), both timed in the same loop:",
        markdown(speed, SPEED),
    ])
    full = "\n\n".join([
        "# Scaling benchmark", text, "## By protocol", protocol_tables,
        "## Predictor by held-out source", markdown(source_board, {**BOARD, "model": ("held-out source", str)}),
    ]) + "\n"
    print(full)
    if args.no_write:
        return 0
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scaling_benchmark.md").write_text(full)
    per_curve = leaderboard(results, by=("curve_id", "fold", "model"))
    per_curve.to_csv(RESULTS / "scaling_curves.csv", index=False, float_format="%.4g")
    overall.to_csv(RESULTS / "scaling_leaderboard.csv", index=False, float_format="%.4g")
    write_readme_block(BEGIN, END, text + "\n", append=True)
    write_readme_block(FULL_BEGIN, FULL_END, text + "\n")
    calibration = fit_calibration(records, provenance={
        "made_by": "tools/scaling_benchmark.py", "commit": commit, "date": str(datetime.date.today()),
        "data": f"{n_curves} curves ({n_sources} sources): scaling-corpus and npb-pi-cluster (>= 4 allocations)",
        "protocols": list(PROTOCOLS), "records": int(len(records)),
        "method": "per model: weighted median regression of log(actual/predicted) on [1, extrapolation] and a "
                  "Laplace scale model on the features; empirical quantiles of the standardised errors; each "
                  "(curve, protocol) fit weighted once",
    })
    calibration.to_json(CALIBRATION_PATH)
    print(f"wrote {CALIBRATION_PATH.relative_to(ROOT)}, {RESULTS.relative_to(ROOT)}/scaling_benchmark.md, "
          "the README and docs/benchmarks.md blocks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
