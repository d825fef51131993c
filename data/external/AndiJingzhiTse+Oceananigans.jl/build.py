#!/usr/bin/env python3
"""Rebuild curves.csv for AndiJingzhiTse/Oceananigans.jl (Oceananigans benchmark suite on Nibi and Rorqual).

Source: the summary tables (plot.md) that the benchmark controllers of this fork of
CliMA/Oceananigans.jl committed under benchmarking/results/{nibi,rorqual}/: the suite's `earth_ocean` case
(latitude-longitude grid 1440 x 720 x 200, no bathymetry, Float64, WENO, CATKE, T/S, split
Runge-Kutta 3, time step 60 s; two warm-up steps, five windows of ten steps) on the Nibi cluster
of the Digital Research Alliance of Canada:
  * CPU: one MPI rank per pinned core, 3 to 3072 cores (192 cores per node: 3-192 on one node,
    384-3072 on 2-16 nodes);
  * GPU: one MPI rank per NVIDIA H100, 1, 2, 4 GPUs on one node and 32 GPUs on 4 nodes;
and on the Rorqual cluster (same Alliance, 4 H100 per node), section `gpu_scaling_super_fine` of
the full-suite table: one MPI rank per H100, 1, 2, 4 GPUs on one node, 8, 16, 32 GPUs on 2, 4, 8
nodes.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/AndiJingzhiTse+Oceananigans.jl/repo
e.g.  git clone --mirror https://github.com/AndiJingzhiTse/Oceananigans.jl \
          $SCALING_MIRROR/AndiJingzhiTse+Oceananigans.jl/repo
Each file is read with `git show <its pinned commit>:<path>` (the tables were last complete at
different commits); or give --checkout DIR, a directory holding those three files at those commits
under their repository paths. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build.py [--out DIR]
    python3 build.py --checkout /path/to/files [--out DIR]

One row per COMPLETED table line (pending, running, failed and geometry-limited counts are
skipped and listed on stderr). time_s = the "Median s/step" column: per rank the median of the
five 10-step windows divided by ten, the maximum over ranks (the suite's own statistic); the
fastest-window value is kept in notes. Units per node are read from the Nibi tables: the
multi-node rows must all hold the same number of cores (GPUs) per node, which is then
cores_per_node (gpus_per_node); single-node rows must not exceed it. The Rorqual table has no Nodes
column: its runs were submitted with at most 4 tasks (one GPU each) per node and as few nodes as
that allows (the per-count slurm_job.txt records next to plot.md: --ntasks-per-node=4, NumNodes=1,
2, 4, 8 for 4, 8, 16, 32 ranks; 2 ranks on one node), so nodes = ceil(ranks / 4) there.
"""
import argparse
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "AndiJingzhiTse/Oceananigans.jl"
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["curve_id", "source_repo", "commit", "path", "app", "machine", "problem",
          "unit", "n", "run", "time_s", "metric", "notes", "processes", "nodes",
          "cores_per_node", "gpus_per_node"]
PROBLEM = ("Oceananigans benchmark suite case earth_ocean: latitude-longitude grid 1440x720x200 "
           "(207,360,000 cells, no bathymetry), Float64, WENOVectorInvariantDefault momentum, WENO7 tracers, "
           "CATKE, T/S, SplitRungeKutta3, time step 60 s")
METRIC = ("wall time per time step printed by the Oceananigans benchmark suite: per rank the median of 5 windows "
          "of 10 steps after 2 warm-up steps, divided by 10; the maximum over ranks")
# curve id -> (path, pinned commit, unit, columns (allocation, nodes, fastest, median), app, machine, note,
#              section heading holding the table or None, units per node or None = from the Nodes column)
TABLES = {
    "oceananigans-suite-earth-ocean-nibi-cpu-cores": (
        "benchmarking/results/nibi/2026-10-06_cpu_scaling_cores_super_fine/plot.md",
        "973226c4390ce17a08acdb569454cefe0ef72b85", "processes",
        ("Cores", "Nodes", "Fastest s/step", "Median s/step"),
        "Oceananigans.jl 0.113.0 (fork, Julia 1.10.10), Distributed(CPU()), one MPI rank per pinned core",
        "Nibi (Digital Research Alliance of Canada) CPU nodes, Intel Xeon 6972P, 192 cores per node, October 2026",
        "one MPI rank per core (1 Julia thread), balanced horizontal partition {partition}; Slurm job {job}",
        None, None),
    "oceananigans-suite-earth-ocean-nibi-h100": (
        "benchmarking/results/nibi/2026-10-05_gpu_scaling/plot.md",
        "13da1fda84148da78c08f9711e705ea1a00dbbad", "gpus",
        ("GPUs", "Nodes", "Fastest-window s/step", "Median s/step"),
        "Oceananigans.jl (fork, Julia 1.10.10), Distributed(GPU()), one MPI rank per GPU, CUDA-aware MPI",
        "Nibi (Digital Research Alliance of Canada) GPU nodes, NVIDIA H100 80 GB, October 2026",
        "one MPI rank per GPU, partition {partition}; printed spread of the windows {spread}",
        None, None),
    "oceananigans-suite-earth-ocean-rorqual-h100": (
        "benchmarking/results/rorqual/2026-10-07_full_suite/plot.md",
        "9aa3b651c364b91560951d327c9b96b538f6870f", "gpus",
        ("Ranks", None, "Fastest s/step", "Median s/step"),
        "Oceananigans.jl (fork, Julia), Distributed(GPU()), one MPI rank per GPU, extended halos",
        "Rorqual (Digital Research Alliance of Canada) GPU nodes, 4 NVIDIA H100 80 GB HBM3 per node, October 2026",
        "one MPI rank per GPU, partition {partition}; series gpu_scaling_super_fine of the full suite",
        "gpu_scaling_super_fine", 4),
}


def read(path, commit, checkout):
    if checkout:
        with open(os.path.join(checkout, path), encoding="utf-8") as fh:
            return fh.read()
    return subprocess.run(["git", "--git-dir", GITDIR, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def table(text, first_column, section=None):
    """The markdown table whose header starts with first_column, or if a section is given the first
    table after the heading `## section` whose header holds first_column, as a list of dicts."""
    lines = text.splitlines()
    begin = lines.index(f"## {section}") if section else 0
    start = next(i for i, ln in enumerate(lines) if i >= begin and (
        ln.startswith(f"| {first_column} |") or (section and ln.startswith("|") and f"| {first_column} |" in ln)))
    header = [c.strip() for c in lines[start].strip().strip("|").split("|")]
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        rows.append(dict(zip(header, cells)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--checkout", help="directory holding the three plot.md files at their pinned commits")
    args = ap.parse_args()
    out = []
    for curve_id, spec in TABLES.items():
        path, commit, unit, (col_n, col_nodes, col_fast, col_med), app, machine, note, section, fixed = spec
        text = read(path, commit, args.checkout)
        windows = text.replace("5 windows", "five windows")
        windows = windows.replace("five ten-step windows", "five windows of ten steps")
        if "Δt" not in text or "five windows of ten steps" not in windows:
            raise SystemExit(f"{path}: the benchmark settings the metric describes are not stated")
        rows = table(text, col_n, section)
        if fixed:  # no Nodes column: packed onto nodes of `fixed` units (see the docstring)
            for row in rows:
                row["Nodes"] = str(-(-int(row[col_n]) // fixed))
            col_nodes = "Nodes"
        done = []
        for row in rows:
            if row.get("State", "COMPLETED") != "COMPLETED" or row[col_med] in ("", "—"):
                print(f"skipped {curve_id} n={row[col_n]}: {row.get('State', 'no time')}", file=sys.stderr)
                continue
            done.append(row)
        multi = {int(r[col_n]) // int(r[col_nodes]) for r in done if int(r[col_nodes]) > 1}
        if len(multi) != 1 or any(int(r[col_n]) % int(r[col_nodes]) for r in done if int(r[col_nodes]) > 1):
            raise SystemExit(f"{path}: multi-node rows do not fill nodes of one size: {multi}")
        per_node = multi.pop()
        if any(int(r[col_n]) > per_node for r in done if int(r[col_nodes]) == 1):
            raise SystemExit(f"{path}: a one-node row holds more than {per_node} {unit}")
        for row in done:
            n, nodes = int(row[col_n]), int(row[col_nodes])
            where = "inside one node" if nodes == 1 else f"across {nodes} nodes"
            what = "cores" if unit == "processes" else unit
            details = note.format(partition=row.get("Partition", ""), job=row.get("Job", ""),
                                  spread=row.get("Spread", ""))
            out.append({
                "curve_id": curve_id, "source_repo": REPO, "commit": commit, "path": path, "app": app,
                "machine": machine, "problem": PROBLEM, "unit": unit, "n": n, "run": 0,
                "time_s": row[col_med], "metric": METRIC,
                "notes": (f"{n} {what} {where} ({per_node} per node); {details}; "
                          f"fastest-window time {row[col_fast]} s/step"),
                "processes": n, "nodes": nodes,
                "cores_per_node": per_node if unit == "processes" else "",
                "gpus_per_node": per_node if unit == "gpus" else "",
            })
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(out)
    print(f"wrote {len(out)} rows, {len({r['curve_id'] for r in out})} curves", file=sys.stderr)


if __name__ == "__main__":
    main()
