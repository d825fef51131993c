"""ADEPT's speed on short curves beside one scipy least-squares fit, in the same run.

    .venv/bin/python bench/adept_speed.py --before 90a4807 --out bench/results/adept_speed.md

Cases, on 20 synthetic curves (labelled synthetic: n = 2, 4, 8, 16, runtimes of Amdahl's law
with serial time 1-5 s, parallel work 100-1000 s and 3 % lognormal noise, seed 0):

* ``baseline``: one ``scipy.optimize.least_squares`` fit of Amdahl's law t = s + w/n to the
  4 points (the cost of the simplest model fit, as a machine-independent yardstick);
* ``fit + 8 targets``: ``Adept().fit(n, t).predict(targets)`` at n = 32 ... 4096 (goal
  <= 10 ms);
* ``fit + 50 targets``: the same with 50 targets ``round(geomspace(20, 5000, 50))`` (goal
  <= 50 ms);
* ``predictor, 8 targets``: ``ScalingPredictor().fit(n, t).predict_frame(targets)``, all models
  (what ``workbench.batch.predict_many`` runs per curve).

Each case runs ``--repeats`` times over the 20 curves after a warm-up; the table gives the
median and the best per-curve time.  ``--before COMMIT`` measures the package as it was at
``COMMIT`` too, in the same run: a git worktree in a temporary directory, imported first by a
subprocess of this script (``--measure``), so both columns share the machine's state.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from readme_block import publish  # noqa: E402

TARGETS_8 = np.array([32, 64, 128, 256, 512, 1024, 2048, 4096], float)
TARGETS_50 = np.unique(np.round(np.geomspace(20, 5000, 50)))
GOALS_MS = {"fit + 8 targets": 10.0, "fit + 50 targets": 50.0}


def curves(count: int = 20, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    n = np.array([2, 4, 8, 16], float)
    return [(n, (rng.uniform(1, 5) + rng.uniform(100, 1000) / n) * rng.lognormal(0, 0.03, n.size))
            for _ in range(count)]


def measure(repeats: int) -> dict:
    """Per-curve milliseconds of every case (median and best over ``repeats`` passes)."""
    from scipy.optimize import least_squares

    import workbench
    from workbench.models.adept import Adept
    from workbench.models.scaling import ScalingPredictor

    data = curves()
    # the models' warnings are still found and kept; printing them (which the models do at fit
    # since d0961cb) is not what is timed, and the older package printed none
    warnings.simplefilter("ignore")

    def amdahl(n, t):
        return least_squares(lambda p: (p[0] + p[1] / n) / t - 1.0, [1.0, 1.0])

    cases = {
        "baseline": lambda n, t: amdahl(n, t),
        "fit + 8 targets": lambda n, t: Adept().fit(n, t).predict(TARGETS_8),
        "fit + 50 targets": lambda n, t: Adept().fit(n, t).predict(TARGETS_50),
        "predictor, 8 targets": lambda n, t: ScalingPredictor().fit(n, t).predict_frame(TARGETS_8),
    }
    out = {"package": str(Path(workbench.__file__).parent), "cases": {}}
    for name, run in cases.items():
        for n, t in data[:3]:  # warm-up: imports, numba's cached kernels
            run(n, t)
        passes = []
        for _ in range(repeats):
            start = time.perf_counter()
            for n, t in data:
                run(n, t)
            passes.append((time.perf_counter() - start) / len(data) * 1e3)
        out["cases"][name] = {"median_ms": float(np.median(passes)), "best_ms": float(np.min(passes))}
    return out


def measure_at(commit: str, repeats: int) -> dict:
    """:func:`measure` with the package as it was at ``commit`` (git worktree, subprocess)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit],
                       check=True, capture_output=True)
        try:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            done = subprocess.run([sys.executable, __file__, "--measure", "--repeats", str(repeats)],
                                  check=True, capture_output=True, text=True, env=env)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                           check=False, capture_output=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["package"].startswith(str(tree)):
        raise SystemExit(f"the subprocess imported {result['package']}, not the worktree at {commit}")
    return result


def table(now: dict, before: dict | None, commit: str | None) -> str:
    head = "| case | now, median | now, best |" + (f" at {commit}, median | speed-up |" if before else "") + " goal |"
    rule = "|---|---|---|" + ("---|---|" if before else "") + "---|"
    rows = [head, rule]
    for name, cur in now["cases"].items():
        row = f"| {name} | {cur['median_ms']:.1f} ms | {cur['best_ms']:.1f} ms |"
        if before:
            old = before["cases"][name]["median_ms"]
            row += f" {old:.1f} ms | {old / cur['median_ms']:.1f}x |"
        goal = GOALS_MS.get(name)
        row += (f" <= {goal:g} ms: {'met' if cur['median_ms'] <= goal else 'not met'} |" if goal else " |")
        rows.append(row)
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--before", metavar="COMMIT", help="also measure the package at this commit")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--readme", metavar="BLOCK",
                    help="also write the table into the <!-- BLOCK:begin --> block (README.md or docs/)")
    ap.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # subprocess of --before
    args = ap.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.repeats)))
        return 0
    before = measure_at(args.before, args.repeats) if args.before else None
    now = measure(args.repeats)
    text = (f"# ADEPT speed ({dt.date.today()}, {os.cpu_count()} cores)\n\n"
            f"`bench/adept_speed.py --repeats {args.repeats}"
            + (f" --before {args.before}" if args.before else "")
            + "`: per-curve time on 20 synthetic 4-point curves (module docstring), same run.\n\n"
            + table(now, before, args.before) + "\n")
    publish(text, args.out, args.readme)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
