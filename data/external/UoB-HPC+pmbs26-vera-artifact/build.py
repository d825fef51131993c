#!/usr/bin/env python3
"""Rebuild curves.csv for UoB-HPC/pmbs26-vera-artifact (NAS Parallel Benchmarks core sweeps).

Source: the artifact of a 2026 paper by the University of Bristol HPC group characterising the
NVIDIA Vera CPU: NPB 3.4.4 OpenMP, class B, run on 1, 2, 3, ... N cores of one socket of four
CPUs (NVIDIA Grace, NVIDIA Vera, AMD EPYC 9R45 "Turin" on AWS c8a.metal-24xl, Intel Xeon 6975P-C
"Granite Rapids" on AWS c8i.metal-48xl), one OpenMP thread per core, threads pinned to cores
0..n-1, one run per configuration. The run scripts wrote results/npb/<platform>/nas-B-scaling.csv
(columns kernel, cores, mops, runtime_s), copying "Mop/s total" and "Time in seconds" from each
NPB output.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/UoB-HPC+pmbs26-vera-artifact/repo
e.g.  git clone --mirror https://github.com/UoB-HPC/pmbs26-vera-artifact \
          $SCALING_MIRROR/UoB-HPC+pmbs26-vera-artifact/repo
Files are read with `git show <pinned commit>:<path>`. With --checkout DIR the same paths are
read from a directory instead (a checkout of the pinned commit). Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build.py [--out DIR]
    python3 build.py --checkout /path/to/checkout [--out DIR]

Extraction rules:
  * kernels BT, CG, EP, FT, LU, MG, SP, UA (IS is left out: it is not in every platform's file and
    runs for 0.01-0.8 s);
  * n (cores) thinned to 1, 2, 4, 8 and every multiple of 8 up to the socket's core count, so a
    curve has at most 15 allocations, like the other development sources (the files hold every n);
  * time_s: NPB prints "Time in seconds" with 2 decimals (0.01 s steps are 5-25 % of the class B
    times at high core counts) and "Mop/s total" with 6-7 significant digits; NPB computes Mop/s
    as a fixed operation count of the kernel and class divided by the time, so
    time_s = W / mops with W = mops x runtime_s of the 1-core run of the same kernel and platform.
    The printed runtime_s is kept in notes, and every derived time is checked against it
    (|difference| <= 0.005 s + the relative rounding errors of the 1-core time and of both Mop/s
    values, which fails on any mistyped digit above the rounding); W's own rounding
    error is one factor common to the whole curve, so the shape of the curve is exact to the
    precision of Mop/s.
"""
import argparse
import csv
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "UoB-HPC/pmbs26-vera-artifact"
COMMIT = "05b701c13782d3a400bbd66b0a55e5f7be209983"
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["curve_id", "source_repo", "commit", "path", "app", "machine", "problem",
          "unit", "n", "run", "time_s", "metric", "notes", "processes", "nodes",
          "cores_per_node", "gpus_per_node"]
KERNELS = ["bt", "cg", "ep", "ft", "lu", "mg", "sp", "ua"]
NAMES = {"bt": "BT (block tri-diagonal solver)", "cg": "CG (conjugate gradient)", "ep": "EP (embarrassingly parallel)",
         "ft": "FT (3-D FFT)", "lu": "LU (lower-upper Gauss-Seidel solver)", "mg": "MG (multigrid)",
         "sp": "SP (scalar penta-diagonal solver)", "ua": "UA (unstructured adaptive mesh)"}
# platform -> (machine, cores used = cores of one socket, physical cores of the node, where the node's cores come from)
PLATFORMS = {
    "grace": ("NVIDIA Grace (72 Neoverse V2 cores), one socket of a Grace-Grace Superchip node of Isambard 3, "
              "GCC 15.3.0 -mcpu=neoverse-v2, numactl --cpunodebind=0 --membind=0", 72, 144,
              "platforms/grace/README.md: one socket (72 cores) of a Grace-Grace Superchip node (2 x 72 cores)"),
    "vera": ("NVIDIA Vera (88 Olympus cores, SMT off for these runs), pre-release engineering sample, "
             "power-capped to a 450 W TDP equivalent, GCC 15.3.0 -mcpu=olympus", 88, 88,
             "platforms/vera/lscpu.txt: 1 socket x 88 cores, 2 threads per core"),
    "turin-9r45": ("AMD EPYC 9R45 (Zen 5, 96 cores per socket, 8-core CCDs), AWS c8a.metal-24xl, socket 0 only "
                   "(numactl --membind=0), GCC 15.3.0 -march=native", 96, 192,
                   "platforms/turin-9r45/lscpu.txt: 2 sockets x 96 cores, 1 thread per core"),
    "gnr": ("Intel Xeon 6975P-C (Granite Rapids, 96 cores, 3 sub-NUMA clusters of 32 cores), AWS c8i.metal-48xl, "
            "GCC 15.3.0 -march=native", 96, 96,
            "platforms/gnr/lscpu.txt: 1 socket x 96 cores, 2 threads per core, 3 NUMA nodes of 32 cores"),
}
METRIC = ("NPB 'Time in seconds' of the timed benchmark section, recomputed as W / (Mop/s total) with W = "
          "Mop/s x seconds of the 1-core run (see build.py)")


def keep_n(n, cores):
    return n <= cores and (n in (1, 2, 4) or n % 8 == 0)


def reader(checkout):
    def read(path):
        if checkout:
            with open(os.path.join(checkout, path), encoding="utf-8") as fh:
                return fh.read()
        return subprocess.run(["git", "--git-dir", GITDIR, "show", f"{COMMIT}:{path}"], check=True,
                              capture_output=True).stdout.decode("utf-8")
    return read


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--checkout", help="read the files from this directory instead of the git mirror")
    args = ap.parse_args()
    read = reader(args.checkout)
    rows = []
    for platform, (machine, cores, node_cores, node_note) in PLATFORMS.items():
        path = f"results/npb/{platform}/nas-B-scaling.csv"
        table = {}
        for rec in csv.DictReader(io.StringIO(read(path))):
            kernel, n = rec["kernel"].strip().lower(), int(rec["cores"])
            if kernel in KERNELS and keep_n(n, cores):
                table.setdefault(kernel, []).append((n, rec["mops"].strip(), rec["runtime_s"].strip()))
        for kernel in KERNELS:
            runs = sorted(table[kernel])
            if runs[0][0] != 1:
                raise SystemExit(f"{path}: {kernel} has no 1-core run")
            work = float(runs[0][1]) * float(runs[0][2])  # Mop of the kernel at class B
            for n, mops, printed in runs:
                derived = work / float(mops)
                # the printed time is rounded to 0.01 s; W carries the 1-core run's rounding and Mop/s its own
                rel = 0.005 / float(runs[0][2]) + 0.005 / float(runs[0][1]) + 0.005 / float(mops)
                if abs(derived - float(printed)) > 0.005 + derived * rel + 1e-6:
                    raise SystemExit(f"{path}: {kernel} {n} cores: W/mops = {derived:.4f} s, file: {printed}")
                rows.append({
                    "curve_id": f"npb-omp-B-{kernel}-{platform}", "source_repo": REPO, "commit": COMMIT,
                    "path": path, "app": f"NPB 3.4.4 OpenMP {NAMES[kernel]}", "machine": machine,
                    "problem": "NAS Parallel Benchmarks class B", "unit": "cores", "n": n, "run": 0,
                    "time_s": f"{derived:.6g}", "metric": METRIC,
                    "notes": (f"printed runtime_s={printed}; mops={mops}; W={work:.6g} Mop; one OpenMP thread per core "
                              f"on cores 0..{n - 1} (OMP_PROC_BIND=close, OMP_PLACES=cores); single socket, "
                              f"single run; node cores from {node_note}"),
                    "processes": "", "nodes": 1, "cores_per_node": node_cores, "gpus_per_node": "",
                })
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows, {len({r['curve_id'] for r in rows})} curves", file=sys.stderr)


if __name__ == "__main__":
    main()
