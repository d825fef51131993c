#!/usr/bin/env python3
"""Rebuild the per-region profile extracts of converged-computing/performance-study (LAMMPS, Kripke).

Source: the raw outputs of a 2024 study (LLNL and collaborators) that ran HPC applications on
AWS, Microsoft Azure and Google Cloud, on VM clusters (ParallelCluster, CycleCloud, Compute
Engine) and on Kubernetes (EKS, AKS, GKE): CPU clusters of 32, 64, 128, 256 VMs and GPU
clusters of 4, 8, 16, 32 VMs (8 GPUs each), about 5 repetitions per size. Two applications print
a per-region timer breakdown at the end of every run; this script writes them as Extra-P JSON Lines
(Extra-P's own input format, read by Extra-P and by :func:`workbench.io.read_profiles`), one file
per curve, ``regions/<app>/<curve>.jsonl``: a line per (process count, region) with the
parameter ``processes`` (MPI ranks as printed; one rank per GPU on GPU clusters), the call path
(``->`` between levels), the metric label ``<aggregation>#inclusive#time`` (seconds) and the
value of every repetition as a list (in path order, so repetition r of every region is the
same log):

* ``regions/lammps/`` - LAMMPS ReaxFF HNS (fixed problem, 100 MD steps: strong scaling).
  Each ``Loop time of T on P procs ...`` line and the ``MPI task timing breakdown`` table after it
  is one run: region ``Loop`` = T (the timed MD loop), its children ``Loop->Pair``, ``Neigh``,
  ``Comm``, ``Output``, ``Modify``, ``Other`` = the table's ``avg time`` column (the mean over the
  MPI ranks; LAMMPS's ``%total`` is avg / T, so the children add up to ``Loop``). Aggregation
  ``avg`` for every row (LAMMPS's finish.cpp prints the loop time as the mean over the ranks
  too: summed with MPI_Allreduce and divided by the ranks).
* ``regions/kripke/`` - Kripke (deterministic Sn transport; the same zones, groups and
  directions at every size: strong scaling). The ``TIMER_NAMES:`` / ``TIMER_DATA:`` lines give
  the seconds of each timer, nested as in Kripke's SteadyStateSolver: ``Solve`` encloses the
  iteration loop's ``LTimes``, ``LPlusTimes``, ``Scattering``, ``Source``, ``Population`` and
  ``SweepSolver``, which encloses ``SweepSubdomain``; ``Generate`` (problem set-up) is a second
  root. The nesting is checked on every run (children never add up to more than the parent).
  Kripke prints the timers of rank 0: aggregation ``none``.

Curves: one per application, cloud, environment, CPU/GPU and problem (the problem read from each
log); curves with fewer than 4 distinct node counts (the directory's ``size<N>``) are dropped,
and runs with more than one OpenMP thread per rank (none at this commit). The curves, their
process and node counts and repetitions are printed on stdout, skipped logs on stderr.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/converged-computing+performance-study/repo
Files are read with ``git show <pinned commit>:<path>``. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build_regions.py [--out DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "converged-computing/performance-study"
COMMIT = "6f3df687c43df5c3a7b76a73e206481cbbd16457"  # 2025-10-01
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")
MIN_DISTINCT_NODES = 4
APPS = ("lammps-reax", "kripke")
PATH = re.compile(r"^experiments/(aws|azure|google)/([a-z-]+)/(cpu|gpu)/size(\d+)/results/(lammps-reax|kripke)/"
                  r"([^/]+\.out)$")

LOOP = re.compile(r"^Loop time of ([\d.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms", re.M)
THREADS = re.compile(r"with (\d+) MPI tasks x (\d+) OpenMP threads")
SECTION = re.compile(r"^(\w+)\s*\|\s*([\d.eE+-]*)\s*\|\s*([\d.eE+-]+)\s*\|", re.M)
LAMMPS_SECTIONS = ("Pair", "Neigh", "Comm", "Output", "Modify", "Other")
LAMMPS_PROBLEMS = {39845888: "64x64x32", 19922944: "64x32x32"}

KRIPKE_NAMES = re.compile(r"^TIMER_NAMES:(.*)$", re.M)
KRIPKE_DATA = re.compile(r"^TIMER_DATA:(.*)$", re.M)
KRIPKE_TASKS = re.compile(r"Total MPI tasks:\s+(\d+)")
KRIPKE_PROBLEM = {"zones": re.compile(r"Zones:\s+(\d+ x \d+ x \d+)"), "groups": re.compile(r"Groups:\s+(\d+)"),
                  "quadrature": re.compile(r"Quadrature Set:\s+(.+)"), "iterations": re.compile(
                      r"Number iterations:\s+(\d+)"), "arch": re.compile(r"Architecture:\s+(\S+)")}
#: Kripke's timers: name -> parent ("" for a root), as nested in SteadyStateSolver / SweepSolver
KRIPKE_PARENT = {"Generate": "", "Solve": "", "LTimes": "Solve", "LPlusTimes": "Solve", "Scattering": "Solve",
                 "Source": "Solve", "Population": "Solve", "SweepSolver": "Solve",
                 "SweepSubdomain": "Solve->SweepSolver"}


def git(*args):
    return subprocess.run(["git", "--git-dir", GITDIR, *args], check=True, capture_output=True).stdout


def lammps_runs(text, where, nodes, hw):
    """(problem, processes, threads, rows builder) per Loop-time block of one LAMMPS log."""
    out = []
    starts = [m.start() for m in LOOP.finditer(text)] + [len(text)]
    for i, m in enumerate(LOOP.finditer(text)):
        block = text[m.start():starts[i + 1]]
        seconds, procs, _steps, atoms = m.groups()
        table = block.split("MPI task timing breakdown:", 1)[-1].split("\n\n", 1)[0]
        sections = {name: avg for name, _min, avg in SECTION.findall(table)}
        if not sections:
            print(f"skipped a run in {where}: no timing breakdown", file=sys.stderr)
            continue
        if set(sections) != set(LAMMPS_SECTIONS):  # Bond, Kspace, Sync appear with other inputs / settings
            raise SystemExit(f"{where}: sections {sorted(sections)}, expected {LAMMPS_SECTIONS}")
        if hw == "gpu" and int(procs) != nodes * 8:
            print(f"skipped a run in {where}: {procs} ranks on {nodes} nodes, not 8 per node", file=sys.stderr)
            continue
        threads = THREADS.search(block)
        regions = [("Loop", "", seconds)] + [(f"Loop->{s}", "Loop", sections[s]) for s in LAMMPS_SECTIONS]
        out.append((LAMMPS_PROBLEMS[int(atoms)], int(procs), int(threads.group(2)) if threads else 1, regions))
    return out


def kripke_runs(text, where):
    names, data, tasks = KRIPKE_NAMES.search(text), KRIPKE_DATA.search(text), KRIPKE_TASKS.search(text)
    if not (names and data and tasks):
        print(f"skipped {where}: no TIMER_NAMES/TIMER_DATA lines (the run did not finish)", file=sys.stderr)
        return []
    timers = dict(zip(names.group(1).strip().split(","), map(float, data.group(1).strip().split(","))))
    if set(timers) != set(KRIPKE_PARENT):
        print(f"skipped {where}: timers {sorted(timers)}", file=sys.stderr)
        return []
    for parent in ("Solve", "SweepSolver"):  # the nesting: children never add up to more than the parent
        children = sum(v for k, v in timers.items() if KRIPKE_PARENT[k].split("->")[-1:] == [parent])
        if children > timers[parent] * 1.001:
            raise SystemExit(f"{where}: the children of {parent} add up to {children} > {timers[parent]}")
    problem = {k: (p.search(text).group(1).strip() if p.search(text) else "") for k, p in KRIPKE_PROBLEM.items()}
    label = f"zones {problem['zones']}, {problem['groups']} groups, {problem['quadrature']}, " \
            f"{problem['iterations']} iterations, {problem['arch'] or 'Sequential'}"
    regions = []
    for name, value in timers.items():
        parent = KRIPKE_PARENT[name]
        regions.append((f"{parent}->{name}" if parent else name, parent, value))
    return [(label, int(tasks.group(1)), 1, regions)]


def build(app):
    """{curve: {processes: [(profile, regions), ...]}} of one application, curves with too few sizes dropped."""
    paths = sorted(p for p in git("ls-tree", "-r", "--name-only", COMMIT, "experiments").decode().splitlines()
                   if PATH.match(p) and PATH.match(p).group(5) == app)
    curves = {}
    for path in paths:
        cloud, env, hw, size, _app, name = PATH.match(path).groups()
        text = git("show", f"{COMMIT}:{path}").decode("utf-8", "replace")
        nodes = int(size)
        found = lammps_runs(text, path, nodes, hw) if app == "lammps-reax" else kripke_runs(text, path)
        for problem, procs, threads, regions in found:
            if threads != 1:
                print(f"skipped a run in {path}: {threads} OpenMP threads per rank", file=sys.stderr)
                continue
            curve = (f"{app.split('-')[0]}-{cloud}-{env}-{hw}" + (f"-{problem}" if app == "lammps-reax" else "")
                     + ("-ucxall" if "ucxall" in name else ""))  # Azure CycleCloud runs with another UCX setting
            entry = curves.setdefault(curve, {"problem": problem, "runs": {}, "nodes": {}})
            if entry["problem"] != problem:
                raise SystemExit(f"{curve}: several problems ({entry['problem']!r}, {problem!r})")
            entry["runs"].setdefault(procs, []).append((path, regions))
            entry["nodes"][procs] = nodes
    kept = {}
    for curve in sorted(curves):
        sizes = sorted(set(curves[curve]["nodes"].values()))
        if len(sizes) < MIN_DISTINCT_NODES:
            print(f"dropped {curve}: only nodes = {sizes}", file=sys.stderr)
            continue
        kept[curve] = curves[curve]
    return kept


def write(curve, entry, aggregation, folder):
    """One Extra-P JSON Lines file per curve: a line per (processes, region), repetitions as a list."""
    lines = []
    for procs in sorted(entry["runs"]):
        runs = entry["runs"][procs]  # in path order: repetition r of every region is the same log
        for i, (region, _parent, _value) in enumerate(runs[0][1]):
            values = [float(regions[i][2]) for _path, regions in runs]
            if any(regions[i][0] != region for _path, regions in runs):
                raise SystemExit(f"{curve}, {procs} processes: regions in a different order")
            lines.append(json.dumps({"params": {"processes": procs}, "callpath": region,
                                     "metric": f"{aggregation}#inclusive#time", "value": values}))
    path = os.path.join(folder, f"{curve}.jsonl")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    for app, aggregation in (("lammps-reax", "avg"), ("kripke", "none")):
        folder = os.path.join(args.out, "regions", app.split("-")[0])
        os.makedirs(folder, exist_ok=True)
        for old in os.listdir(folder):
            if old.endswith(".jsonl"):
                os.remove(os.path.join(folder, old))
        curves = build(app)
        for curve, entry in curves.items():
            write(curve, entry, aggregation, folder)
            sizes = ", ".join(f"{p} ({entry['nodes'][p]} nodes, {len(entry['runs'][p])} runs)"
                              for p in sorted(entry["runs"]))
            print(f"{curve}: {entry['problem']}; processes {sizes}")
        print(f"{folder}: {len(curves)} curves, {sum(len(r) for e in curves.values() for r in e['runs'].values())} "
              "runs", file=sys.stderr)


if __name__ == "__main__":
    main()
