#!/usr/bin/env python3
"""Rebuild size_grids.csv for ukri-excalibur/excalibur-tests: GROMACS at 3 system sizes x 1-16 nodes on AlaSKA.

Source: ReFrame performance logs ("perflogs") committed in 2020 for AlaSKA, StackHPC's OpenHPC
Slurm cluster on OpenStack (Dell PowerEdge R630 nodes, 2x Intel Xeon E5-2683 v4 = 32 cores per
node), over two fabrics (100Gb InfiniBand `ib`, RoCE `roce`). GROMACS 2016.4 ran the HECBioSim
benchmarks of three sizes (69,866, 1,403,180 and 2,997,924 atoms; HECBioSim calls them 61k, 1400k
and 3000k) on 1, 2, 4, 8 and 16 nodes with 32 MPI ranks per node: a process x size grid per
fabric and measurement campaign.

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/ukri-excalibur+excalibur-tests/repo
e.g.  git clone --mirror https://github.com/ukri-excalibur/excalibur-tests \
          $SCALING_MIRROR/ukri-excalibur+excalibur-tests/repo
Files are read with `git show <pinned commit>:<path>` (the perflogs were deleted upstream in 2023;
the output does not depend on the mirror's HEAD). Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build_size_grids.py [--out DIR]

Read: perflogs/alaska/{ib,roce}-gcc9-openmpi4-ucx/gromacs/Gromacs_<size>_<nodes>/*.log (one line
per performance variable per job: time stamp, job id, `wall_t` = mdrun's "Wall t (s)",
`ns_per_day`, tags `num_procs`, `num_nodes`) and, for the step count and the atom count of each
system, the mdrun log of the last run of each test under output/alaska/.../Gromacs_<size>_<nodes>/
(`nsteps`, `dt`, "There are: N Atoms"; every test of one system must agree). The three systems
run different step counts (50,000 for 61k, 10,000 for the others), so time = wall_t / nsteps
(seconds per MD step). Every job's ns/day must agree with it (ns/day = dt x nsteps / wall_t),
which checks the step count for the jobs whose mdrun log is not kept. One row per job.

Campaigns (jobs told apart by perflog time stamp, +01:00), as in the project data mirror's
scaling-extra/ukri-excalibur+excalibur-tests/build.py: c1 before 2020-09-09, c2 from 2020-09-09 to
2020-09-10 12:00 (after commit 3299798b "try forcing IB for alaska:ib-gcc9-openmpi4-ucx", before
C-states were disabled: commit 581b079e "rerun and replot gromacs after c-states disabled"), c3
after. Runs of different campaigns are not exchangeable (c2 is up to 40 % slower), so each
(fabric, campaign) is one grid.
"""
import argparse
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "ukri-excalibur/excalibur-tests"
COMMIT = "37bbdc95a25bc53f06b8248ab3f515923655b71f"  # 2020-10-22
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["grid", "app", "machine", "n", "n_unit", "size_name", "size", "size_scope", "time", "time_unit",
          "run", "path", "processes", "nodes", "wall_s", "nsteps", "ns_per_day", "jobid", "timestamp"]
PERFLOG = re.compile(r"^perflogs/alaska/(ib|roce)-gcc9-openmpi4-ucx/gromacs/Gromacs_(\d+k)_(\d+)/Gromacs_\2_\3\.log$")
MDLOG = re.compile(r"^output/alaska/(ib|roce)-gcc9-openmpi4-ucx/gromacs/Gromacs_(\d+k)_(\d+)/\2-atoms\.log$")
LINE = re.compile(r"^(?P<stamp>[^|]+)\|[^|]*\|Gromacs_(?P<size>\d+k)_(?P<nodes>\d+) on alaska:(?P<part>[^|]+) using "
                  r"gromacs\|jobid=(?P<job>\d+)\|(?P<var>\w+)=(?P<value>[^|]+)\|[^|]*\|[^|]*\|(?P<tags>.*)$")
CAMPAIGNS = [("c1", "", "2020-09-09T00:00"), ("c2", "2020-09-09T00:00", "2020-09-10T12:00"),
             ("c3", "2020-09-10T12:00", "9999")]
RANKS_PER_NODE = 32  # '#SBATCH --ntasks-per-node=32', checked against num_procs on every job
NS_PER_DAY_TOLERANCE = 0.01  # ns/day is printed with 3 decimals, wall_t with 3: they agree to < 1 %
FABRICS = {"ib": "100Gb InfiniBand", "roce": "RoCE (Ethernet)"}
MACHINE = ("AlaSKA (StackHPC OpenHPC Slurm cluster on OpenStack): Dell PowerEdge R630, 2x Intel Xeon E5-2683 v4 "
           "(32 cores per node), {fabric}, gcc 9.3.0, Open MPI 4.0.3 + UCX")
APP = "GROMACS 2016.4 (gmx_mpi mdrun -noconfout, HECBioSim benchmark.tpr, 1 MPI rank per core)"


def git(*args):
    return subprocess.run(["git", "--git-dir", GITDIR, *args], check=True, capture_output=True).stdout


def campaign(stamp):
    local = stamp[:16]
    return next(name for name, start, end in CAMPAIGNS if start <= local < end)


def systems(paths):
    """Size label -> (atoms, nsteps, dt in ps), read from every kept mdrun log (they must agree)."""
    found = {}
    for path in paths:
        size = MDLOG.match(path).group(2)
        text = git("show", f"{COMMIT}:{path}").decode("utf-8", "replace")
        atoms = re.search(r"^There are: (\d+) Atoms$", text, re.M)
        nsteps = re.search(r"^\s+nsteps\s+=\s+(\d+)$", text, re.M)
        dt = re.search(r"^\s+dt\s+=\s+([\d.]+)$", text, re.M)
        if not (atoms and nsteps and dt and "GROMACS version:    2016.4" in text):
            raise SystemExit(f"{path}: no GROMACS 2016.4 header with nsteps, dt and the atom count")
        value = (int(atoms.group(1)), int(nsteps.group(1)), float(dt.group(1)))
        if found.setdefault(size, value) != value:
            raise SystemExit(f"{path}: {value} differs from another log of the {size} system: {found[size]}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    listing = git("ls-tree", "-r", "--name-only", COMMIT, "perflogs/alaska", "output/alaska").decode().splitlines()
    system = systems(sorted(p for p in listing if MDLOG.match(p)))
    jobs = {}
    for path in sorted(p for p in listing if PERFLOG.match(p)):
        for line in git("show", f"{COMMIT}:{path}").decode("utf-8", "replace").splitlines():
            m = LINE.match(line)
            if not m:
                raise SystemExit(f"{path}: unexpected perflog line {line[:120]!r}")
            tags = dict(t.split("=", 1) for t in m["tags"].split(",") if "=" in t)
            job = jobs.setdefault((path, m["job"]), {"stamp": m["stamp"], "size": m["size"],
                                                     "nodes": int(m["nodes"]), "fabric": m["part"].split("-")[0],
                                                     "procs": int(tags["num_procs"])})
            if int(tags["num_nodes"]) != job["nodes"] or m["stamp"] != job["stamp"]:
                raise SystemExit(f"{path}: job {m['job']} has inconsistent lines")
            job[m["var"]] = float(m["value"])
    rows = []
    for (path, jobid), job in sorted(jobs.items()):
        atoms, nsteps, dt = system[job["size"]]
        if job["procs"] != RANKS_PER_NODE * job["nodes"]:
            raise SystemExit(f"{path}: job {jobid} ran {job['procs']} ranks on {job['nodes']} nodes")
        seconds = job["wall_t"] / nsteps
        implied = dt * nsteps / 1000 * 86400 / job["wall_t"]  # ns/day of nsteps steps of dt ps in wall_t s
        if abs(implied / job["ns_per_day"] - 1) > NS_PER_DAY_TOLERANCE:
            raise SystemExit(f"{path}: job {jobid}: ns/day {job['ns_per_day']} disagrees with {nsteps} steps in "
                             f"{job['wall_t']} s ({implied:.3f})")
        rows.append({
            "grid": f"gromacs-alaska-{job['fabric']}-{campaign(job['stamp'])}", "app": APP,
            "machine": MACHINE.format(fabric=FABRICS[job["fabric"]]), "n": job["nodes"], "n_unit": "nodes",
            "size_name": f"HECBioSim {job['size']} ({atoms} atoms)", "size": atoms, "size_scope": "total",
            "time": round(seconds, 9), "time_unit": "s/step", "run": None, "path": path,
            "processes": job["procs"], "nodes": job["nodes"], "wall_s": job["wall_t"], "nsteps": nsteps,
            "ns_per_day": job["ns_per_day"], "jobid": int(jobid), "timestamp": job["stamp"],
        })
    rows.sort(key=lambda r: (r["grid"], r["size"], r["n"], r["timestamp"], r["jobid"]))
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
        print(f"{grid}: " + "; ".join(f"{s} atoms x {n} nodes: {counter[(grid, s, n)]}" for s, n in cells),
              file=sys.stderr)
    print(f"wrote {len(rows)} rows, {len({r['grid'] for r in rows})} grids", file=sys.stderr)


if __name__ == "__main__":
    main()
