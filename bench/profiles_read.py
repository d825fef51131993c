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

Usage: ``python bench/profiles_read.py --n 1000 10000 [--jobs 2]``; prints seconds and files per second.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbench.io import read_profiles

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
    names = subprocess.run(["git", "-C", str(MIRROR), "ls-tree", "-r", "--name-only", "HEAD", PREFIX],
                           capture_output=True, text=True, check=True).stdout.split()
    return [subprocess.run(["git", "-C", str(MIRROR), "show", f"HEAD:{n}"], capture_output=True, check=True).stdout
            for n in names if n.endswith(".cali")]


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--thicket-python", default="/tmp/thicket-venv/bin/python")
    parser.add_argument("--skip-thicket", action="store_true")
    args = parser.parse_args(argv)
    originals = real_files()
    for n in args.n:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            paths = replicate(originals, n, folder)
            serial, profiles = time_ours(folder, 1)
            parallel, _ = time_ours(folder, args.jobs)
            line = (f"n={n}: read_profiles {serial:.2f} s ({n / serial:.0f} files/s, {profiles} profiles); "
                    f"n_jobs={args.jobs} {parallel:.2f} s ({n / parallel:.0f} files/s)")
            if not args.skip_thicket and Path(args.thicket_python).exists():
                result = time_thicket(paths, args.thicket_python)
                if "seconds" in result:
                    best = min(serial, parallel)
                    line += (f"; Thicket.from_caliperreader {result['seconds']:.2f} s ({result['profiles']} "
                             f"profiles): ours {result['seconds'] / best:.1f}x faster")
                else:
                    line += f"; Thicket failed: {result['error']}"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
