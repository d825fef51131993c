#!/usr/bin/env python3
"""Rebuild curves.csv for 1fni/cuda-spmv-benchmark (multi-GPU conjugate-gradient strong scaling).

Source: the result tables of a CUDA + MPI conjugate-gradient solver for 5-point stencil matrices
and of NVIDIA AmgX's CG on the same matrices, run on 1, 2, 4 and 8 NVIDIA A100-SXM4-80GB GPUs of
one node (one MPI rank per GPU, row-band partitioning, halo exchange staged through the host),
three problem sizes, median of 10 runs after 3 warm-up runs, solver time only.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/1fni+cuda-spmv-benchmark/repo
e.g.  git clone --mirror https://github.com/1fni/cuda-spmv-benchmark \
          $SCALING_MIRROR/1fni+cuda-spmv-benchmark/repo
Files are read with `git show <pinned commit>:<path>`. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build.py [--out DIR]

Read: docs/PROBLEM_SIZE_SCALING_RESULTS.md (custom CG) and
external/benchmarks/amgx/BENCHMARK_RESULTS.md (AmgX CG): under each heading
"### <N>×<N> Stencil (...)", the table "| GPUs | Time (ms) | ..." gives one row per GPU count.
time_s = Time (ms) / 1000, as printed.
"""
import argparse
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "1fni/cuda-spmv-benchmark"
COMMIT = "eb8147ae4d998b8abd25e154740f50dd98c5da89"  # 2026-02-17
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["curve_id", "source_repo", "commit", "path", "app", "machine", "problem",
          "unit", "n", "run", "time_s", "metric", "notes", "processes", "nodes",
          "cores_per_node", "gpus_per_node"]
MACHINE = "one node with 8x NVIDIA A100-SXM4-80GB (NVLink)"
METRIC = "CG solver time to relative residual 1e-6 (14 iterations), median of 10 runs after 3 warm-up runs"
GPUS_PER_NODE = 8
# path -> (curve id prefix, app, extra note)
FILES = {
    "docs/PROBLEM_SIZE_SCALING_RESULTS.md": (
        "cg-custom-stencil", "custom CUDA CG with stencil-aware CSR SpMV (repository's solver, main branch)",
        "custom solver, halo exchange staged through the host (device-to-host, MPI_Isend/Irecv, host-to-device), "
        "'10 runs per configuration, median timing reported'"),
    "external/benchmarks/amgx/BENCHMARK_RESULTS.md": (
        "cg-amgx", "NVIDIA AmgX PCG without preconditioner (distributed API)",
        "AmgX reference, halo exchange by AmgX's MPI communicator, '10 (outlier removal, median reported)'"),
}
HEADING = re.compile(r"^###\s+(\d+)\S(\d+)\s+Stencil\s*\(([^)]*)\)", re.M)


def show(path):
    return subprocess.run(["git", "--git-dir", GITDIR, "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def tables(text):
    """Yield (grid side, description, [(gpus, time_ms string)]) for every stencil section."""
    heads = list(HEADING.finditer(text))
    for i, head in enumerate(heads):
        body = text[head.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        lines = []
        for ln in body.splitlines():  # the first table under the heading, up to its first non-table line
            if ln.strip().startswith("|"):
                lines.append(ln.strip())
            elif lines:
                break
        header = [c.strip() for c in lines[0].strip("|").split("|")]
        if header[:2] != ["GPUs", "Time (ms)"]:
            raise SystemExit(f"unexpected table header {header}")
        rows = []
        for ln in lines[2:]:
            cells = [c.strip() for c in ln.strip("|").split("|")]
            rows.append((int(cells[0]), cells[1]))
        yield int(head.group(1)), head.group(3).strip(), rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    out = []
    for path, (prefix, app, note) in FILES.items():
        for side, description, rows in tables(show(path)):
            curve = f"{prefix}-{side // 1000}k-a100x8"
            for gpus, ms in rows:
                out.append({
                    "curve_id": curve, "source_repo": REPO, "commit": COMMIT, "path": path, "app": app,
                    "machine": MACHINE, "problem": f"5-point stencil matrix on a {side}x{side} grid ({description})",
                    "unit": "gpus", "n": gpus, "run": 0, "time_s": f"{float(ms) / 1000:.6g}", "metric": METRIC,
                    "notes": f"printed time {ms} ms; {note}; one MPI rank per GPU, all GPUs in one node",
                    "processes": gpus, "nodes": 1, "cores_per_node": "", "gpus_per_node": GPUS_PER_NODE,
                })
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(out)
    print(f"wrote {len(out)} rows, {len({r['curve_id'] for r in out})} curves", file=sys.stderr)


if __name__ == "__main__":
    main()
