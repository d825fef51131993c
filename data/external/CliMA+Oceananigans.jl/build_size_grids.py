#!/usr/bin/env python3
"""Rebuild size_grids.csv for CliMA/Oceananigans.jl: the weak and strong scaling tables of its benchmark docs.

Source: the appendix "Performance benchmarks" of the Oceananigans.jl documentation
(docs/src/appendix/benchmarks.md), written in 2021 (commits 90cbeb8c "added multithreading
benchmarks", 5af22aff "Final touchup and nonhydrostatic scaling", f1250ddb "Update benchmarks.md")
and kept until 2026 (the tables were dropped in commit 188ee4dc). Each table is BenchmarkTools
output: one model time step (`time_step!`) timed 10 times (fewer when slow) on every MPI rank, the
timings of all ranks pooled, and min / median / mean / max printed with units.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/CliMA+Oceananigans.jl/repo
e.g.  git clone --mirror https://github.com/CliMA/Oceananigans.jl $SCALING_MIRROR/CliMA+Oceananigans.jl/repo
The file is read with `git show <pinned commit>:<path>`. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build_size_grids.py [--out DIR]

Tables read (section heading -> table title -> grid):
  Weak / Strong Scaling Shallow Water Model      -> oceananigans-shallow-water-mpi-cpu
      (one MPI rank per CPU core; weak: (4096, 256 R) points on R ranks; strong: 4096^2)
  Weak / Strong Scaling Nonhydrostatic Model     -> oceananigans-nonhydrostatic-mpi-cpu
      (weak: (128, 128, 16 R) on R ranks; strong: 256^3)
  Weak Scaling Multithreaded Shallow Water Model -> oceananigans-shallow-water-threads-cpu
      ((8192, 512 T) points on T Julia threads)
  Multi-GPU Shallow Water Model                  -> oceananigans-shallow-water-mpi-gpu
      ((4096, 256 R) points on R ranks, one V100 each)
A grid's tables must print the same Oceananigans version and CPU. size = grid points (the product
of the printed size); n = ranks (the product of the printed rank layout) or threads; time = the
median (seconds per time step); min, mean, max and samples are kept as columns; processes = the MPI
ranks (1 for the threaded runs). Left out: the
strong-scaling multithreaded nonhydrostatic table (one size) and the single-device CPU vs GPU
size sweeps (one allocation each).
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "CliMA/Oceananigans.jl"
COMMIT = "cd518612b0894544cc797092fdab00536077e98c"  # 2026-03-19, the last commit with the 2021 tables
PATH = "docs/src/appendix/benchmarks.md"
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["grid", "app", "machine", "n", "n_unit", "size_name", "size", "size_scope", "time", "time_unit",
          "run", "path", "processes", "table", "scaling", "min_s", "mean_s", "max_s", "samples", "version"]
# (section heading, table title) -> (grid, scaling, n_unit, application)
SW = "Oceananigans.jl ShallowWaterModel, doubly periodic 2-D domain, one time step (time_step!)"
NH = "Oceananigans.jl NonhydrostaticModel, triply periodic 3-D domain, one time step (time_step!)"
TABLES = {
    ("Weak Scaling Shallow Water Model", "Shallow water model weak scaling benchmark"):
        ("oceananigans-shallow-water-mpi-cpu", "weak", "processes", SW),
    ("Strong Scaling Shallow Water Model", "Shallow water model strong scaling benchmark"):
        ("oceananigans-shallow-water-mpi-cpu", "strong", "processes", SW),
    ("Weak Scaling Nonhydrostatic Model", "Nonhydrostatic model weak scaling benchmark"):
        ("oceananigans-nonhydrostatic-mpi-cpu", "weak", "processes", NH),
    ("Strong Scaling Nonhydrostatic Model", "Nonhydrostatic model strong scaling benchmark"):
        ("oceananigans-nonhydrostatic-mpi-cpu", "strong", "processes", NH),
    ("Weak Scaling Multithreaded Shallow Water Model",
     "Shallow water model weak scaling with multithreading benchmark"):
        ("oceananigans-shallow-water-threads-cpu", "weak", "threads", SW),
    ("Multi-GPU Shallow Water Model", "Shallow water model weak scaling benchmark"):
        ("oceananigans-shallow-water-mpi-gpu", "weak", "gpus", SW + ", CUDA-aware MPI"),
}
UNITS = {"ns": 1e-9, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
TIME = re.compile(r"^([\d.]+)\s*(ns|μs|us|ms|s)$")
TUPLE = re.compile(r"^\(([\d, ]+)\)$|^(\d+)$")


def git(*args):
    return subprocess.run(["git", "--git-dir", GITDIR, *args], check=True, capture_output=True).stdout


def seconds(cell):
    m = TIME.match(cell.strip())
    if not m:
        raise SystemExit(f"{PATH}: not a time: {cell!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def product(cell):
    m = TUPLE.match(cell.strip())
    if not m:
        raise SystemExit(f"{PATH}: not a size or a rank layout: {cell!r}")
    return math.prod(int(v) for v in (m.group(1) or m.group(2)).split(","))


def machine(block, n_unit):
    """Describe the machine from the printed platform block (CPU, GPU, Julia)."""
    cpu = re.search(r"^\s+CPU: (.+)$", block, re.M).group(1).strip()
    gpu = re.search(r"^\s+GPU: (.+)$", block, re.M)
    julia = re.search(r"^Julia Version (\S+)", block, re.M).group(1)
    os_name = re.search(r"^\s+OS: (.+)$", block, re.M).group(1).strip()
    if n_unit == "gpus":
        return (f"{gpu.group(1).strip()} GPUs, one MPI rank each, on {os_name} hosts (POWER9, 'CPU: {cpu}'); "
                f"Julia {julia}, Open MPI 3.1.4 (JULIA_MPI_PATH); cluster not named")
    where = ("Compute Canada software stack (/cvmfs/soft.computecanada.ca)" if "computecanada" in block
             else "cluster not named")
    # the multithreading section: "there are as many CPU cores allocated as the maximum number of threads"
    per = "one MPI rank per core" if n_unit == "processes" else "Julia threads, 32 cores allocated for every run"
    return f"{cpu}, {os_name}, {per}; Julia {julia}; {where}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    lines = git("show", f"{COMMIT}:{PATH}").decode("utf-8").splitlines()
    rows, heading, block_start, seen = [], "", 0, set()
    for i, line in enumerate(lines):
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("```"):
            block_start = i
        key = (heading, line.strip())
        if key not in TABLES:
            continue
        grid, scaling, n_unit, app = TABLES[key]
        block = "\n".join(lines[block_start:i])
        version = re.search(r"^Oceananigans (v[\d.]+)", block, re.M)
        # title, then the top border, the header, the rule under it, the rows, the bottom border
        header = [c.strip() for c in lines[i + 2].strip().strip("│").split("│")]
        if header[:2] != ["size", "ranks" if n_unit != "threads" else "threads"] or header[3] != "median":
            raise SystemExit(f"{PATH} line {i + 3}: unexpected table header {header}")
        seen.add(key)
        for j in range(i + 4, len(lines)):
            if lines[j].startswith("└"):
                break
            cells = [c.strip() for c in lines[j].strip().strip("│").split("│")]
            rows.append({
                "grid": grid, "app": app, "machine": machine(block, n_unit), "n": product(cells[1]),
                "n_unit": n_unit, "size_name": f"{cells[0]} grid points", "size": product(cells[0]),
                "size_scope": "total", "time": seconds(cells[3]), "time_unit": "s/step", "run": None,
                # MPI ranks (one per core or per GPU); the threaded runs are one process
                "path": PATH, "processes": product(cells[1]) if n_unit != "threads" else 1,
                "table": f"{heading}: {line.strip()} (line {i + 1})", "scaling": scaling,
                "min_s": seconds(cells[2]), "mean_s": seconds(cells[4]), "max_s": seconds(cells[5]),
                "samples": int(cells[8]), "version": version.group(1) if version else "not printed",
            })
    if seen != set(TABLES):
        raise SystemExit(f"{PATH}: tables not found: {sorted(set(TABLES) - seen)}")
    for grid in {r["grid"] for r in rows}:
        if len({(r["version"], r["machine"]) for r in rows if r["grid"] == grid}) != 1:
            raise SystemExit(f"{grid}: its tables print different versions or machines")
    rows.sort(key=lambda r: (r["grid"], r["size"], r["n"], r["scaling"] != "weak"))
    counter = {}
    for r in rows:
        key = (r["grid"], r["size"], r["n"])
        r["run"] = counter.get(key, 0)
        counter[key] = r["run"] + 1
    with open(os.path.join(args.out, "size_grids.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    for grid in sorted({r["grid"] for r in rows}):
        cells = sorted({(r["size"], r["n"]) for r in rows if r["grid"] == grid})
        print(f"{grid}: {len({s for s, _ in cells})} sizes, " + "; ".join(f"{s} x {n}" for s, n in cells),
              file=sys.stderr)
    print(f"wrote {len(rows)} rows, {len({r['grid'] for r in rows})} grids", file=sys.stderr)


if __name__ == "__main__":
    main()
