#!/usr/bin/env python3
"""Rebuild curves.csv for converged-computing/performance-study (LAMMPS ReaxFF on three clouds).

Source: the raw outputs of a 2024 study (LLNL and collaborators) that ran HPC applications on
AWS, Microsoft Azure and Google Cloud, on VM clusters (ParallelCluster, CycleCloud, Compute
Engine) and on Kubernetes (EKS, AKS, GKE), CPU clusters of 32, 64, 128, 256 nodes and GPU
clusters of 4, 8, 16, 32 nodes, 5 repetitions per size. Here: LAMMPS with the ReaxFF HNS
benchmark (`in.reaxff.hns`, fixed problem: 64x64x32 replication = 39,845,888 atoms, and on GPUs
also 64x32x32 = 19,922,944 atoms), 100 MD steps, so every environment gives strong-scaling curves.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/converged-computing+performance-study/repo
e.g.  git clone --mirror https://github.com/converged-computing/performance-study \
          $SCALING_MIRROR/converged-computing+performance-study/repo
Files are read with `git show <pinned commit>:<path>`. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build.py [--out DIR]

Read: experiments/<cloud>/<environment>/<cpu|gpu>/size<N>/results/lammps-reax/*.out (the
directories named exactly size<N>; the variants size32-noefa and size<N>-placement are other
configurations and are left out). Every line "Loop time of T on P procs for S steps with A atoms"
is one run: time_s = T as printed (LAMMPS's timed MD loop), processes = P, nodes = N. A log that
holds two such lines ran both GPU problem sizes; logs without one (failed jobs, stderr files) are
listed on stderr. Curves: one per environment, CPU/GPU, problem size (and the Azure CycleCloud
'ucxall' transport variant); curves with fewer than 4 node counts are dropped (listed).
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

FIELDS = ["curve_id", "source_repo", "commit", "path", "app", "machine", "problem",
          "unit", "n", "run", "time_s", "metric", "notes", "processes", "nodes",
          "cores_per_node", "gpus_per_node"]
MIN_DISTINCT_N = 4
PATH = re.compile(r"^experiments/(aws|azure|google)/([a-z-]+)/(cpu|gpu)/size(\d+)/results/lammps-reax/([^/]+\.out)$")
LOOP = re.compile(r"^Loop time of ([\d.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms", re.M)
PROBLEMS = {39845888: "64x64x32", 19922944: "64x32x32"}
# (cloud, environment, cpu|gpu) -> (machine, cores per node or "", GPUs per node or "")
HPC6A = "hpc6a.48xlarge VMs (96 cores AMD EPYC, EFA)"
C2D = "c2d-standard-112 VMs (56 cores, 112 vCPUs, AMD EPYC)"
MACHINES = {
    ("aws", "parallel-cluster", "cpu"): (f"AWS ParallelCluster (Slurm) on {HPC6A}", 96, ""),
    ("aws", "eks", "cpu"): (f"AWS EKS (Kubernetes, Flux Operator) on {HPC6A}", 96, ""),
    ("aws", "eks", "gpu"): ("AWS EKS (Kubernetes) on p3dn.24xlarge VMs (the README: 'p2dn.24xlarge ... Each has "
                            "8 GPU')", "", 8),
    ("azure", "cyclecloud", "cpu"): ("Azure CycleCloud (Slurm) on HPC VMs (size not stated in the repository; "
                                     "96 MPI ranks per VM)", "", ""),
    ("azure", "aks", "cpu"): ("Azure AKS (Kubernetes, Flux Operator) on Standard_HB120-96rs_v3 VMs (96 active "
                              "cores AMD EPYC, InfiniBand)", 96, ""),
    ("azure", "cyclecloud", "gpu"): ("Azure CycleCloud (Slurm) on GPU VMs (size not stated in the repository; "
                                     "8 MPI ranks per VM, one per GPU)", "", ""),
    ("azure", "aks", "gpu"): ("Azure AKS (Kubernetes) on ND40rs_v2 VMs (8 NVIDIA V100)", "", 8),
    ("google", "compute-engine", "cpu"): (f"Google Compute Engine (Flux) on {C2D}", 56, ""),
    ("google", "gke", "cpu"): (f"Google GKE (Kubernetes, Flux Operator) on {C2D}", 56, ""),
    ("google", "compute-engine", "gpu"): ("Google Compute Engine (Flux) on n1-standard-32 VMs with 8 NVIDIA V100 "
                                          "(gpu_count = 8)", "", 8),
    ("google", "gke", "gpu"): ("Google GKE (Kubernetes) on n1-standard-32 VMs with 8 NVIDIA V100 "
                               "(acceleratorCount 8)", "", 8),
}
APP = "LAMMPS ReaxFF (in.reaxff.hns, KOKKOS build on GPUs), containerised"
METRIC = "LAMMPS 'Loop time' of the 100 MD steps (seconds, as printed)"


def git(*args):
    return subprocess.run(["git", "--git-dir", GITDIR, *args], check=True, capture_output=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    paths = sorted(p for p in git("ls-tree", "-r", "--name-only", COMMIT, "experiments").decode().splitlines()
                   if PATH.match(p))
    rows = []
    for path in paths:
        cloud, env, hw, size, name = PATH.match(path).groups()
        try:
            text = git("show", f"{COMMIT}:{path}").decode("utf-8", "replace")
        except subprocess.CalledProcessError:
            print(f"skipped {path}: not in the mirror", file=sys.stderr)
            continue
        loops = LOOP.findall(text)
        if not loops:
            print(f"skipped {path}: no 'Loop time' line", file=sys.stderr)
            continue
        machine, cores, gpus = MACHINES[(cloud, env, hw)]
        nodes = int(size)
        variant = "-ucxall" if "ucxall" in name else ""
        for seconds, procs, steps, atoms in loops:
            problem = PROBLEMS[int(atoms)]
            unit, n = ("gpus", int(procs)) if hw == "gpu" else ("nodes", nodes)
            if hw == "gpu" and int(procs) != nodes * 8:  # every GPU VM of the study has 8 GPUs, one rank each
                print(f"skipped a run in {path}: {procs} ranks on {nodes} nodes, not 8 per node", file=sys.stderr)
                continue
            rows.append({
                "curve_id": f"lammps-reaxff-{problem}-{cloud}-{env}-{hw}{variant}", "source_repo": REPO,
                "commit": COMMIT, "path": path, "app": APP, "machine": machine,
                "problem": f"ReaxFF HNS, {problem} replication ({atoms} atoms), {steps} steps",
                "unit": unit, "n": n, "run": None, "time_s": seconds, "metric": METRIC,
                "notes": (f"{procs} MPI ranks on {nodes} nodes ({int(procs) // nodes} per node); log {name}"
                          + ("; UCX transport setting 'ucxall'" if variant else "")),
                "processes": int(procs), "nodes": nodes, "cores_per_node": cores, "gpus_per_node": gpus,
            })
    keep = []
    for curve in sorted({r["curve_id"] for r in rows}):
        runs = sorted((r for r in rows if r["curve_id"] == curve), key=lambda r: (r["n"], r["path"]))
        distinct = sorted({r["n"] for r in runs})
        if len(distinct) < MIN_DISTINCT_N:
            print(f"dropped curve {curve}: only n = {distinct}", file=sys.stderr)
            continue
        counter = {}
        for r in runs:
            r["run"] = counter.get(r["n"], 0)
            counter[r["n"]] = r["run"] + 1
        keep += runs
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(keep)
    print(f"wrote {len(keep)} rows, {len({r['curve_id'] for r in keep})} curves", file=sys.stderr)


if __name__ == "__main__":
    main()
