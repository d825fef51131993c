"""Speed of reading Caliper profile ensembles: workbench.io.read_profiles against Thicket's reader.

Input: the 5 real Caliper files of LLNL/thicket ``thicket/tests/data/mpi_scaling_cali`` (LULESH,
27..343 ranks; read from the fetched mirror, never copied into the tree), replicated to N files
with jittered metadata (each copy gets its own ``launchdate``, so every file is a distinct run)
in a temporary folder.

Compared in the same run, on the same files:

* ``read_profiles(folder)`` (one process) and ``read_profiles(folder, n_jobs=J)`` (joblib processes);
* ``thicket.Thicket.from_caliperreader(files)`` -- LLNL's reader, installed in its own venv
  (``--thicket-python``, default /tmp/thicket-venv/bin/python: ``python -m venv /tmp/thicket-venv &&
  /tmp/thicket-venv/bin/pip install llnl-thicket``), timed inside that interpreter after its imports.

Usage: ``python bench/profiles_read.py --n 1000 10000 [--jobs 2] [--out bench/results/profiles_read.md]``;
prints seconds and files per second per N and writes the table (all N of one run) to ``--out``.
The issue's goal: at 10,000 files ours at least 5x faster than Thicket's reader, same run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbench.io import read_profiles

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import git_mirror  # noqa: E402

MIRROR = Path("/work/.mirror/LLNL+thicket/repo")
PREFIX = "thicket/tests/data/mpi_scaling_cali"
THICKET_TIMER = r"""
import sys, time, json
paths = json.load(open(sys.argv[1]))
import thicket
start = time.perf_counter()
tk = thicket.Thicket.from_caliperreader(paths, disable_tqdm=True)
print(json.dumps({"seconds": time.perf_counter() - start, "profiles": len(tk.profile),
                  "rows": int(len(tk.dataframe))}))
"""


def real_files() -> list[bytes]:
    if not MIRROR.exists():
        sys.exit("LLNL/thicket is not fetched (/work/.mirror/LLNL+thicket); fetch github:LLNL/thicket first")
    return [git_mirror.file_bytes(MIRROR, n) for n in git_mirror.file_names(MIRROR, PREFIX) if n.endswith(".cali")]


def replicate(originals: list[bytes], n: int, folder: Path) -> list[Path]:
    """``n`` copies of the real files, each with its own launchdate (the adiak global)."""
    paths = []
    for i in range(n):
        data = originals[i % len(originals)].decode()
        # the launchdate value is the data of the node whose attribute is launchdate's id
        data = re.sub(r"(data=)(16\d{8})(\b)", lambda m: f"{m.group(1)}{int(m.group(2)) + i}{m.group(3)}", data,
                      count=1)
        path = folder / f"run{i:05d}.cali"
        path.write_text(data)
        paths.append(path)
    return paths


def time_ours(folder: Path, n_jobs: int) -> tuple[float, int]:
    start = time.perf_counter()
    table = read_profiles(folder, n_jobs=n_jobs, progress=False)
    return time.perf_counter() - start, table["profile"].nunique()


def time_thicket(paths: list[Path], python: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump([str(p) for p in paths], handle)
    done = subprocess.run([python, "-c", THICKET_TIMER, handle.name], capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


GOAL = 5.0


def _speed(seconds: float, n: int) -> str:
    return f"{seconds:.1f} s ({n / seconds:,.0f} files/s)"


def report(rows: list[dict], jobs: int, thicket_version: str) -> str:
    """The Markdown results table of one run (every N measured in it)."""
    lines = [
        "# Reading Caliper profile ensembles (bench/profiles_read.py)", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()} VM with "
        f"{os.cpu_count()} cores shared with other work (load average given per row: timings vary with load).",
        "Input: the 5 real Caliper files of LLNL/thicket `thicket/tests/data/mpi_scaling_cali` (LULESH, "
        "27..343 ranks, 45 regions x 4 metrics each) replicated to N files, each with its own launchdate, "
        "in a temporary folder. All rows below come from one run of the script, one reader at a time.",
        f"Thicket: {thicket_version} in its own venv, `Thicket.from_caliperreader(files, disable_tqdm=True)` "
        "timed after its imports.", "",
        f"| N files | read_profiles, 1 process | read_profiles, n_jobs={jobs} | Thicket.from_caliperreader | "
        f"ours (best) vs Thicket | goal >= {GOAL:.0f}x | load average (1/5/15 min) |",
        "|---|---|---|---|---|---|---|"]
    for row in rows:
        n = row["n"]
        best = min(row["serial"], row["parallel"])
        if "seconds" in row.get("thicket", {}):
            ratio = row["thicket"]["seconds"] / best
            thicket, speedup = _speed(row["thicket"]["seconds"], n), f"{ratio:.1f}x faster"
            goal = "met" if ratio >= GOAL else "not met"
        else:
            thicket, speedup, goal = row.get("thicket", {}).get("error", "not run"), "-", "-"
        lines.append(f"| {n:,} | {_speed(row['serial'], n)} | {_speed(row['parallel'], n)} | {thicket} | "
                     f"{speedup} | {goal} | {row['load']} |")
    return "\n".join(lines) + "\n"


def thicket_version(python: str) -> str:
    done = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('llnl-thicket'))"],
                          capture_output=True, text=True)
    return f"llnl-thicket {done.stdout.strip()}" if done.returncode == 0 else "llnl-thicket (version unknown)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--thicket-python", default="/tmp/thicket-venv/bin/python")
    parser.add_argument("--skip-thicket", action="store_true")
    parser.add_argument("--out", default=None, help="write the Markdown table here (bench/results/profiles_read.md)")
    args = parser.parse_args(argv)
    originals = real_files()
    rows = []
    for n in args.n:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            paths = replicate(originals, n, folder)
            serial, profiles = time_ours(folder, 1)
            parallel, _ = time_ours(folder, args.jobs)
            row = {"n": n, "serial": serial, "parallel": parallel,
                   "load": " / ".join(f"{x:.1f}" for x in os.getloadavg())}
            rows.append(row)
            line = (f"n={n}: read_profiles {serial:.2f} s ({n / serial:.0f} files/s, {profiles} profiles); "
                    f"n_jobs={args.jobs} {parallel:.2f} s ({n / parallel:.0f} files/s)")
            if not args.skip_thicket and Path(args.thicket_python).exists():
                result = time_thicket(paths, args.thicket_python)
                row["thicket"] = result
                if "seconds" in result:
                    best = min(serial, parallel)
                    line += (f"; Thicket.from_caliperreader {result['seconds']:.2f} s ({result['profiles']} "
                             f"profiles): ours {result['seconds'] / best:.1f}x faster")
                else:
                    line += f"; Thicket failed: {result['error']}"
            print(line, flush=True)
            if args.out:  # after every N, so a long run leaves its finished rows
                Path(args.out).write_text(report(rows, args.jobs, thicket_version(args.thicket_python)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
