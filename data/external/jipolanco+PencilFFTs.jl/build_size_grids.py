#!/usr/bin/env python3
"""Rebuild size_grids.csv for jipolanco/PencilFFTs.jl: distributed 3-D FFTs at 3 sizes x 128-16384 MPI processes.

Source: the strong-scaling benchmarks of PencilFFTs.jl (a Julia library of distributed FFTs with
pencil decomposition) on the Jean-Zay cluster of IDRIS (CNRS, France; nodes of 2x Intel Xeon Gold
6248, 40 cores, Omni-Path), August 2021, PencilFFTs v0.12 against the Fortran library P3DFFT v2.7.6,
Intel MPI 2019.9. One benchmark = a forward real-to-complex 3-D FFT of N^3 points followed by the
backward transform (`mul!` then `ldiv!`), timed with MPI_Wtime on rank 0 over 100 repetitions after
a warm-up; the result files give the mean, std, min and max in milliseconds.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/jipolanco+PencilFFTs.jl/repo
e.g.  git clone --mirror https://github.com/jipolanco/PencilFFTs.jl $SCALING_MIRROR/jipolanco+PencilFFTs.jl/repo
Files are read with `git show <pinned commit>:<path>`. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build_size_grids.py [--out DIR]

Read: benchmarks/clusters/idris.jean_zay/results/IntelMPI.2019.9/N<N>/<case>.dat for N = 512, 1024,
2048 and the five cases PencilFFTs_PI, _PA, _NI, _NA (P/N: with or without dimension permutations;
I/A: MPI Isend/Irecv or Alltoallv transpositions; PI is the library's default) and P3DFFT2. Columns
(1) Nx (2) Ny (3) Nz (4) num_procs (5) P1 (6) P2 (7) repetitions (8) mean (9) std (10) min (11) max
(ms). One grid per case; time = the mean (seconds per forward + backward transform pair); the
other statistics are kept. nodes = ceil(processes / 40): the job script asks for
`--ntasks-per-node=40`. The proc_<P>.out logs next to the .dat files print the platform.
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "jipolanco/PencilFFTs.jl"
COMMIT = "17bb9472324aa9c010f0e658d4ed19a0df757bf4"  # 2021-08-30 "Update benchmarks (#36)"
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")
RESULTS = "benchmarks/clusters/idris.jean_zay/results/IntelMPI.2019.9"

FIELDS = ["grid", "app", "machine", "n", "n_unit", "size_name", "size", "size_scope", "time", "time_unit",
          "run", "path", "processes", "nodes", "p1", "p2", "repetitions", "std_s", "min_s", "max_s"]
PATH = re.compile(rf"^{re.escape(RESULTS)}/N(\d+)/(PencilFFTs_(PI|PA|NI|NA)|P3DFFT2)\.dat$")
CASES = {
    "PI": "PencilFFTs.jl v0.12 (Julia 1.7.0-beta3, FFTW 3.3.8 via FFTW.jl), dimension permutations, MPI Isend/Irecv "
          "transpositions (the library's default)",
    "PA": "PencilFFTs.jl v0.12 (Julia 1.7.0-beta3, FFTW 3.3.8 via FFTW.jl), dimension permutations, MPI_Alltoallv "
          "transpositions",
    "NI": "PencilFFTs.jl v0.12 (Julia 1.7.0-beta3, FFTW 3.3.8 via FFTW.jl), no dimension permutations, MPI "
          "Isend/Irecv transpositions",
    "NA": "PencilFFTs.jl v0.12 (Julia 1.7.0-beta3, FFTW 3.3.8 via FFTW.jl), no dimension permutations, "
          "MPI_Alltoallv transpositions",
    "P3DFFT2": "P3DFFT v2.7.6 (Fortran, Intel 2019 compilers, FFTW 3.3.8), C++ benchmark driver of PencilFFTs.jl",
}
TASK = "3-D real-to-complex FFT of N^3 points, forward then backward, pencil decomposition P1 x P2"
MACHINE = ("Jean-Zay (IDRIS, CNRS): Intel Xeon Gold 6248 (2 x 20 cores per node), Omni-Path 100 Gb/s, Intel MPI "
           "2019.9, 40 MPI processes per node")
RANKS_PER_NODE = 40  # submit_slurm.sh: --ntasks-per-node=40


def git(*args):
    return subprocess.run(["git", "--git-dir", GITDIR, *args], check=True, capture_output=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    paths = sorted(p for p in git("ls-tree", "-r", "--name-only", COMMIT, RESULTS).decode().splitlines()
                   if PATH.match(p))
    rows = []
    for path in paths:
        size, name, variant = PATH.match(path).groups()
        case = variant or name
        for line in git("show", f"{COMMIT}:{path}").decode().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            nx, ny, nz, procs, p1, p2, reps = (int(v) for v in line.split()[:7])
            mean, std, tmin, tmax = (float(v) / 1000 for v in line.split()[7:11])
            if not (nx == ny == nz == int(size) and p1 * p2 == procs and reps == 100):
                raise SystemExit(f"{path}: unexpected line {line.strip()!r}")
            rows.append({
                "grid": f"{'pencilffts-' + case.lower() if variant else 'p3dfft2'}-jean-zay",
                "app": f"{CASES[case]}: {TASK}", "machine": MACHINE, "n": procs, "n_unit": "processes",
                "size_name": f"{nx}^3 points", "size": nx * ny * nz, "size_scope": "total", "time": mean,
                "time_unit": "s/step", "run": 0, "path": path, "processes": procs,
                "nodes": math.ceil(procs / RANKS_PER_NODE), "p1": p1, "p2": p2, "repetitions": reps,
                "std_s": std, "min_s": tmin, "max_s": tmax,
            })
    rows.sort(key=lambda r: (r["grid"], r["size"], r["n"]))
    if len({(r["grid"], r["size"], r["n"]) for r in rows}) != len(rows):
        raise SystemExit("a (grid, size, processes) cell appears twice")
    with open(os.path.join(args.out, "size_grids.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    for grid in sorted({r["grid"] for r in rows}):
        sizes = sorted({r["size_name"] for r in rows if r["grid"] == grid}, key=lambda s: int(s.split("^")[0]))
        counts = {s: sorted(r["n"] for r in rows if r["grid"] == grid and r["size_name"] == s) for s in sizes}
        print(f"{grid}: " + "; ".join(f"{s} x {n}" for s, n in counts.items()), file=sys.stderr)
    print(f"wrote {len(rows)} rows, {len({r['grid'] for r in rows})} grids", file=sys.stderr)


if __name__ == "__main__":
    main()
