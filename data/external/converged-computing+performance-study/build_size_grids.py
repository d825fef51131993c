#!/usr/bin/env python3
"""Rebuild size_grids.csv for converged-computing/performance-study (AMG2023 weak scaling on three clouds).

Source: the raw outputs of a 2024 study (LLNL and collaborators) that ran HPC applications on
AWS, Microsoft Azure and Google Cloud, on VM clusters (ParallelCluster, CycleCloud, Compute
Engine) and on Kubernetes (EKS, AKS, GKE), CPU clusters of 32, 64, 128, 256 VMs and GPU
clusters of 4, 8, 16, 32 VMs (AWS EKS GPU: 4, 8, 16). Here: AMG2023 (hypre's algebraic
multigrid proxy, `amg -n NX NY NZ -P PX PY PZ -problem 2`: a 7-point Laplacian, PCG
preconditioned by AMG). `-n` is the block of every MPI process, so the problem grows with the
process count (weak scaling). On Google Compute Engine's GPU cluster the study ran three
per-process blocks (128x128x128, 256x128x128, 256x256x128) at 3-4 cluster sizes: a process x
size grid. Every other environment ran one block (256x256x128) at 3-4 cluster sizes: one
weak-scaling line.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/converged-computing+performance-study/repo
e.g.  git clone --mirror https://github.com/converged-computing/performance-study \
          $SCALING_MIRROR/converged-computing+performance-study/repo
Files are read with `git show <pinned commit>:<path>`. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build_size_grids.py [--out DIR]

Read: experiments/<cloud>/<environment>/<cpu|gpu>/size<N>/results/{amg2023,amg2023-large}/*.out
(directories named exactly size<N>; the Azure CycleCloud GPU logs named *UCX_TLS_all* (a transport
variant run on 4 VMs only), the variants size32-noefa, size<N>-placement and the result
folders amg2023-8gpu, amg2023-no-gpu, amg2023-placement, amg2023-without-flux-flags are other
configurations and are left out, and so is Google GKE GPU's `amg2023` folder: its README calls it
"mostly an erroneous run because we didn't originally get the GPU container working"; its GPU run
is `amg2023-large`). From every log: `(Nx, Ny, Nz)` (the global grid) and `(Px, Py, Pz)` (the
process grid), the per-process block = Nx/Px x Ny/Py x Nz/Pz, and the `wall clock time` of `PCG
Setup` and `PCG Solve`; time = setup + solve (AMG2023's figure of merit uses the same two
phases). Logs without them (failed jobs), and jobs whose Flux job spec (appended to the log)
names fewer nodes than the cluster's, are listed on stderr.
"""
import argparse
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "converged-computing/performance-study"
COMMIT = "6f3df687c43df5c3a7b76a73e206481cbbd16457"  # 2025-10-01
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["grid", "app", "machine", "n", "n_unit", "size_name", "size", "size_scope", "time", "time_unit",
          "run", "path", "processes", "nodes", "setup_s", "solve_s", "iterations"]
PATH = re.compile(r"^experiments/(aws|azure|google)/([a-z-]+)/(cpu|gpu)/size(\d+)/results/(amg2023|amg2023-large)/"
                  r"([^/]+\.out)$")
# Google GKE GPU's amg2023 folder is a CPU-only run (the README: "mostly an erroneous run because we
# didn't originally get the GPU container working"); its GPU run is amg2023-large.
SKIP_FOLDERS = {("google", "gke", "gpu", "amg2023")}
GRID = re.compile(r"\(Nx, Ny, Nz\) = \((\d+), (\d+), (\d+)\)\s+\(Px, Py, Pz\) = \((\d+), (\d+), (\d+)\)")
SETUP = re.compile(r"PCG Setup:\s+wall clock time = ([\d.eE+-]+) seconds")
SOLVE = re.compile(r"PCG Solve:\s+wall clock time = ([\d.eE+-]+) seconds")
ITERATIONS = re.compile(r"^Iterations = (\d+)", re.M)
# Flux appends the job's spec to the log: its node count, where present, must be the cluster's size
JOBSPEC_NODES = re.compile(r'START OF JOBSPEC\s*\{"resources": \[\{"type": "node", "count": (\d+)')
GPUS_PER_VM = 8  # every GPU VM of the study has 8 GPUs, one MPI rank each
HPC6A = "hpc6a.48xlarge VMs (96 cores AMD EPYC, EFA)"
C2D = "c2d-standard-112 VMs (56 cores, 112 vCPUs, AMD EPYC)"
MACHINES = {
    ("aws", "parallel-cluster", "cpu"): f"AWS ParallelCluster (Slurm) on {HPC6A}",
    ("aws", "eks", "cpu"): f"AWS EKS (Kubernetes, Flux Operator) on {HPC6A}",
    ("aws", "eks", "gpu"): "AWS EKS (Kubernetes) on p3dn.24xlarge VMs (the README: 'p2dn.24xlarge ... Each has 8 GPU')",
    ("azure", "cyclecloud", "cpu"): "Azure CycleCloud (Slurm) on HPC VMs (size not stated in the repository)",
    ("azure", "aks", "cpu"): "Azure AKS (Kubernetes, Flux Operator) on Standard_HB120-96rs_v3 VMs (96 active cores "
                             "AMD EPYC, InfiniBand)",
    ("azure", "cyclecloud", "gpu"): "Azure CycleCloud (Slurm) on GPU VMs (size not stated in the repository; 8 MPI "
                                    "ranks per VM, one per GPU)",
    ("azure", "aks", "gpu"): "Azure AKS (Kubernetes) on ND40rs_v2 VMs (8 NVIDIA V100)",
    ("google", "compute-engine", "cpu"): f"Google Compute Engine (Flux) on {C2D}",
    ("google", "gke", "cpu"): f"Google GKE (Kubernetes, Flux Operator) on {C2D}",
    ("google", "compute-engine", "gpu"): "Google Compute Engine (Flux) on n1-standard-32 VMs with 8 NVIDIA V100",
    ("google", "gke", "gpu"): "Google GKE (Kubernetes) on n1-standard-32 VMs with 8 NVIDIA V100",
}
APP = "AMG2023 (hypre BoomerAMG-preconditioned PCG, 7-point Laplacian, -problem 2), containerised"


def git(*args):
    return subprocess.run(["git", "--git-dir", GITDIR, *args], check=True, capture_output=True).stdout


def parse(text):
    """Return (global grid, process grid, setup s, solve s, iterations) of one AMG2023 log, or None."""
    grid, setup, solve, its = GRID.search(text), SETUP.search(text), SOLVE.search(text), ITERATIONS.search(text)
    if not (grid and setup and solve and its):
        return None
    numbers = [int(g) for g in grid.groups()]
    return numbers[:3], numbers[3:], float(setup.group(1)), float(solve.group(1)), int(its.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    paths = sorted(p for p in git("ls-tree", "-r", "--name-only", COMMIT, "experiments").decode().splitlines()
                   if PATH.match(p))
    rows = []
    for path in paths:
        cloud, env, hw, size, folder, name = PATH.match(path).groups()
        if (cloud, env, hw, folder) in SKIP_FOLDERS:
            continue
        if "ucx" in name.lower():  # Azure CycleCloud GPU, 4 VMs only: the UCX_TLS=all transport variant
            print(f"skipped {path}: UCX transport variant (one cluster size only)", file=sys.stderr)
            continue
        text = git("show", f"{COMMIT}:{path}").decode("utf-8", "replace")
        parsed = parse(text)
        if parsed is None:
            print(f"skipped {path}: no complete AMG2023 output (grid, PCG setup and solve times)", file=sys.stderr)
            continue
        (nx, ny, nz), (px, py, pz), setup, solve, its = parsed
        if nx % px or ny % py or nz % pz:
            raise SystemExit(f"{path}: grid {nx}x{ny}x{nz} is not a multiple of the process grid {px}x{py}x{pz}")
        nodes, procs = int(size), px * py * pz
        spec = JOBSPEC_NODES.search(text)
        if spec and int(spec.group(1)) != nodes:
            print(f"skipped {path}: a {spec.group(1)}-node job on the {nodes}-node cluster", file=sys.stderr)
            continue
        if hw == "gpu" and procs != nodes * GPUS_PER_VM:
            print(f"skipped {path}: {procs} ranks on {nodes} GPU VMs, not {GPUS_PER_VM} per VM", file=sys.stderr)
            continue
        block = (nx // px, ny // py, nz // pz)
        rows.append({
            "grid": f"amg2023-{cloud}-{env}-{hw}", "app": APP, "machine": MACHINES[(cloud, env, hw)],
            "n": procs if hw == "gpu" else nodes, "n_unit": "gpus" if hw == "gpu" else "nodes",
            "size_name": "x".join(map(str, block)) + " per process",
            "size": block[0] * block[1] * block[2], "size_scope": "per-process",
            "time": round(setup + solve, 6), "time_unit": "s", "run": None, "path": path,
            "processes": procs, "nodes": nodes, "setup_s": setup, "solve_s": solve, "iterations": its,
        })
    rows.sort(key=lambda r: (r["grid"], r["size"], r["n"], r["path"]))
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
        cells = sorted({(r["size"], r["size_name"], r["n"]) for r in rows if r["grid"] == grid})
        print(f"{grid}: " + "; ".join(f"{name} at n={n} x{counter[(grid, size, n)]}" for size, name, n in cells),
              file=sys.stderr)
    print(f"wrote {len(rows)} rows, {len({r['grid'] for r in rows})} grids", file=sys.stderr)


if __name__ == "__main__":
    main()
