"""Time every ADEPT benchmark case once on the same input and print a side-by-side table.

    python bench/run_adept_bench.py [--repeats 5] [--out bench/results/adept_bench.json]

Each case is run ``repeats`` times (the slow exhaustive search at most twice) after one
warm-up call; the table reports the best time.  Also compares with the thesis' Table 2
(seconds per fit, seed table ``adept_fit_runtime_table2``) and writes everything as JSON.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import adept_cases as cases  # noqa: E402

TARGET_MS = 50.0  # goal: the whole 50-target curve in <= 50 ms


def time_case(fn, repeats: int) -> tuple[float, float, float, object]:
    """Best and median wall-clock ms, best CPU ms (less sensitive to other load), last result."""
    result = fn()  # warm-up (imports, caches)
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return 1000 * min(wall), 1000 * float(np.median(wall)), 1000 * min(cpu), result


def run(repeats: int = 5) -> dict:
    rows = []
    for name, (fn, fits, label, kind) in cases.CASES.items():
        reps = min(repeats, 2) if name == "exhaustive_one" else repeats
        best, median, cpu, result = time_case(fn, reps)
        err = cases.max_error_pct(result) if kind == "prediction" else np.nan
        rows.append({"case": name, "method": label, "total_ms": best, "median_ms": median, "cpu_ms": cpu, "fits": fits,
                     "ms_per_fit": best / fits, "max_error_pct": err, "result": np.asarray(result, float)})
    table = pd.DataFrame(rows).set_index("case")
    lm = table.loc["lm_one", "ms_per_fit"]
    table["x_one_lm_fit"] = table["ms_per_fit"] / lm
    brute = table.loc["bruteforce_window_per_target", "result"]
    fast = table.loc["fast_window_per_target", "result"]
    batched = table.loc["fast_window_batched", "result"]
    agree = float(np.max(np.abs(fast / brute - 1))), float(np.max(np.abs(batched / brute - 1)))
    return {"table": table, "fast_vs_brute_max_rel_diff": agree}


def thesis_table2() -> pd.DataFrame:
    try:
        from workbench.io.catalogue import fetch_seed_table

        return fetch_seed_table("adept_fit_runtime_table2").frame
    except Exception:  # the catalogue is optional here: fall back to the reference copy
        path = Path(__file__).resolve().parents[2] / "shared" / "data" / "seed-tables" / "adept_fit_runtime_table2.csv"
        return pd.read_csv(path)


def comparison(table: pd.DataFrame, seed: pd.DataFrame) -> pd.DataFrame:
    """Thesis Table 2 (average seconds per fit, ca. 2009 hardware) next to this machine."""
    ours = {
        "Levenberg-Marquardt": table.loc["lm_one", "ms_per_fit"],
        "exhaustive search": table.loc["exhaustive_one", "ms_per_fit"],
        "genetic algorithm": np.nan,
        "ADEPT (per target)": table.loc["adept_per_target", "ms_per_fit"],
    }
    cols = ["levenberg_marquardt_s", "exhaustive_search_s", "genetic_algorithm_s", "adept_s"]
    out = pd.DataFrame({"method": list(ours), "this_machine_ms": list(ours.values())})
    for _, row in seed.iterrows():
        key = f"thesis_ms (A {row['A_range']}, sigma {row['sigma_range']})"
        out[key] = [1000 * float(row[c]) for c in cols]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "adept_bench.json"))
    args = ap.parse_args(argv)

    res = run(args.repeats)
    table = res["table"]
    seed = thesis_table2()
    comp = comparison(table, seed)
    curve_ms = float(table.loc["adept_curve", "total_ms"])

    show = table[["method", "total_ms", "cpu_ms", "fits", "ms_per_fit", "x_one_lm_fit", "max_error_pct"]]
    with pd.option_context("display.width", 200, "display.max_colwidth", 60, "display.float_format", "{:.3f}".format):
        print(f"input: n = {cases.N_OBS.astype(int).tolist()}, Downey A = {cases.A_TRUE:g}, sigma = "
              f"{cases.SIGMA_TRUE:g} (x {cases.SCALE:g} s), {cases.N_TARGETS} targets; {os.cpu_count()} CPUs, "
              f"{platform.processor() or platform.machine()}, numpy {np.__version__}; load average "
              f"{os.getloadavg()[0]:.1f}")
        print("total_ms: best wall-clock time of one call; cpu_ms: its CPU time; ms_per_fit = total_ms / fits")
        print(show.to_string())
        per, batched = res["fast_vs_brute_max_rel_diff"]
        print(f"\npass 2 exact fast path vs brute force (min WSSRE per window), max relative difference: "
              f"per target {per:.2e}, batched {batched:.2e}")
        print(f"ADEPT whole curve (50 targets): {curve_ms:.1f} ms -> target <= {TARGET_MS:g} ms "
              f"{'met' if curve_ms <= TARGET_MS else 'NOT met'}")
        print("\nThesis Table 2 (ms per fit) vs this machine:")
        print(comp.to_string(index=False))

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "input": {"n": cases.N_OBS.tolist(), "t_s": cases.T_OBS.tolist(), "A": cases.A_TRUE, "sigma": cases.SIGMA_TRUE,
                  "targets": cases.TARGETS.tolist(), "exhaustive_grid": [cases.EXHAUSTIVE_SIZE, cases.EXHAUSTIVE_SIZE],
                  "pass2_grid": [cases.PASS2_SIZE, cases.PASS2_SIZE]},
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "numpy": np.__version__, "load_average_1min": os.getloadavg()[0]},
        "results": show.reset_index().replace({np.nan: None}).to_dict("records"),
        "fast_vs_brute_max_rel_diff": {"per_target": res["fast_vs_brute_max_rel_diff"][0],
                                       "batched": res["fast_vs_brute_max_rel_diff"][1]},
        "adept_curve_ms": curve_ms,
        "target_ms": TARGET_MS,
        "target_met": curve_ms <= TARGET_MS,
        "thesis_table2_comparison": comp.replace({np.nan: None}).to_dict("records"),
    }
    out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"\nwritten: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
