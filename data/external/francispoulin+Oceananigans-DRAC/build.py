#!/usr/bin/env python3
"""Rebuild curves.csv for francispoulin/Oceananigans-DRAC (Oceananigans GPU strong scaling on Nibi).

Source: the scaling table of the guide docs/drac.md ("## 8. Scaling on Nibi"): the Oceananigans
benchmark suite, case `earth_ocean` (latitude-longitude grid, 200 levels, Float64, WENO
advection, CATKE, 2 tracers), run with one MPI rank per NVIDIA H100 GPU on the Nibi cluster of
the Digital Research Alliance of Canada (8 GPUs per node), 1 to 32 GPUs on 1 to 4 nodes, time per
step = median of 5 windows of 100 steps.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/francispoulin+Oceananigans-DRAC/repo
e.g.  git clone --mirror https://github.com/francispoulin/Oceananigans-DRAC \
          $SCALING_MIRROR/francispoulin+Oceananigans-DRAC/repo
Files are read with `git show <pinned commit>:<path>`; or give --checkout DIR, a working tree
of the pinned commit (then docs/drac.md is read from DIR). Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build.py [--out DIR]
    python3 build.py --checkout /path/to/Oceananigans-DRAC [--out DIR]

Read: in docs/drac.md, the table under "**Strong scaling at three resolutions:**" (columns
Resolution, GPUs, Nodes, Time per step (s), Efficiency, Throughput, Memory per GPU; a resolution
label starts a curve, empty labels continue it; rows whose time is "pending" are skipped) and
the "GPUs per node" table at the top of the guide (Nibi: 8). time_s = the printed time per step.
Curves with fewer than 4 GPU counts are dropped (listed on stderr).
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "francispoulin/Oceananigans-DRAC"
COMMIT = "0b7d3894c08a8470bcbc40d8268315344d208d11"
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")
PATH = "docs/drac.md"

FIELDS = ["curve_id", "source_repo", "commit", "path", "app", "machine", "problem",
          "unit", "n", "run", "time_s", "metric", "notes", "processes", "nodes",
          "cores_per_node", "gpus_per_node"]
MIN_DISTINCT_N = 4
APP = "Oceananigans.jl 0.113.5 (Julia 1.10.10, CUDA.jl, system OpenMPI 4.1.5, CUDA-aware MPI)"
MACHINE = ("Nibi (Digital Research Alliance of Canada): GPU nodes with 8x NVIDIA H100 80 GB, "
           "Slurm, October 2026")
METRIC = ("wall time per time step printed by the Oceananigans benchmark suite: median of 5 windows "
          "of 100 steps after warm-up")
# resolution label (as printed) -> (curve id, time step the guide says was used)
RESOLUTIONS = {
    "1/4°": ("oceananigans-earth-ocean-1440x720x200-nibi-h100", "60 s"),
    "1/8°": ("oceananigans-earth-ocean-2880x1440x200-nibi-h100", "30 s"),
    "1/16°": ("oceananigans-earth-ocean-5760x2880x200-nibi-h100", "15 s"),
}
TABLE_TITLE = "**Strong scaling at three resolutions:**"
SETUP = "Median of 5 windows of 100 steps; one\nMPI rank per GPU; grid split in x."
STEPS = "we used 60, 30, 15 and 7.5 s for 1/4°,\n1/8°, 1/16° and 1/32°"


def read(checkout):
    if checkout:
        with open(os.path.join(checkout, PATH), encoding="utf-8") as fh:
            return fh.read()
    return subprocess.run(["git", "--git-dir", GITDIR, "show", f"{COMMIT}:{PATH}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def table_after(text, marker):
    """The markdown table (list of cell lists, header first, separator dropped) after marker."""
    start = text.index(marker) + len(marker)
    rows = []
    for line in text[start:].splitlines():
        if line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif rows:
            break
    return rows


def gpus_per_node(text):
    rows = table_after(text, "## Overview")
    if rows[0][:2] != ["Cluster", "GPUs per node"]:
        raise SystemExit(f"unexpected cluster table header {rows[0]}")
    nibi = [r for r in rows[1:] if r[0].startswith("[Nibi]")]
    return int(nibi[0][1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--checkout", help="working tree of the pinned commit (instead of the git mirror)")
    args = ap.parse_args()
    text = read(args.checkout)
    section = text[text.index("## 8. Scaling on Nibi"):text.index("## 9.")]
    for quote in (SETUP, STEPS):  # the setup the metric and problem columns describe
        if quote not in section:
            raise SystemExit(f"{PATH}: expected text not found: {quote!r}")
    per_node = gpus_per_node(text)
    rows = table_after(section, TABLE_TITLE)
    header = ["Resolution (cells)", "GPUs", "Nodes", "Time per step (s)", "Efficiency",
              "Throughput (cells/s)", "Memory per GPU (GiB)"]
    if rows[0] != header:
        raise SystemExit(f"unexpected scaling table header {rows[0]}")
    curves, label = {}, None
    for cells in rows[1:]:
        if cells[0]:
            label = cells[0]
        gpus, nodes, time = int(cells[1]), int(cells[2]), cells[3]
        if time == "pending":
            print(f"skipped {label.split(',')[0]} on {gpus} GPUs: time 'pending'", file=sys.stderr)
            continue
        if nodes != math.ceil(gpus / per_node):
            raise SystemExit(f"{gpus} GPUs on {nodes} nodes do not fill nodes of {per_node} GPUs")
        curves.setdefault(label, []).append((gpus, nodes, time, cells[4], cells[5], cells[6]))
    out = []
    for label, points in curves.items():
        resolution = label.split(",")[0].strip()
        curve_id, dt = RESOLUTIONS[resolution]
        if len({p[0] for p in points}) < MIN_DISTINCT_N:
            print(f"dropped curve {curve_id}: only {[p[0] for p in points]} GPUs", file=sys.stderr)
            continue
        grid = re.search(r"(\d+) × (\d+) × (\d+)", label).groups()
        problem = (f"Oceananigans benchmark suite case earth_ocean at {resolution}: latitude-longitude grid "
                   f"{'x'.join(grid)} ({label.split('(')[1].rstrip(')')} cells), Float64, WENO advection, "
                   f"CATKE, 2 tracers, time step {dt}")
        for gpus, nodes, time, eff, thr, mem in points:
            where = "inside one node" if nodes == 1 else f"across {nodes} nodes"
            out.append({
                "curve_id": curve_id, "source_repo": REPO, "commit": COMMIT, "path": PATH, "app": APP,
                "machine": MACHINE, "problem": problem, "unit": "gpus", "n": gpus, "run": 0, "time_s": time,
                "metric": METRIC,
                "notes": (f"one MPI rank per GPU, grid split in x, {gpus} GPU{'s' if gpus > 1 else ''} {where} "
                          f"({per_node} GPUs per node); "
                          f"printed efficiency {eff}, throughput {thr} cells/s, memory per GPU {mem} GiB"),
                "processes": gpus, "nodes": nodes, "cores_per_node": "", "gpus_per_node": per_node,
            })
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(out)
    print(f"wrote {len(out)} rows, {len({r['curve_id'] for r in out})} curves", file=sys.stderr)


if __name__ == "__main__":
    main()
