"""Per-region profile table of HECBioSim's ARCHER2 benchmarks (GROMACS and LAMMPS), read from a git mirror.

HECBioSim/benchmark-results holds the output of the HECBioSim benchmark suite collected by
``hpcbench`` (one JSON file per job): GROMACS 2022.4 and LAMMPS on ARCHER2 (HPE Cray EX, 2x AMD
EPYC 7742, 128 cores per node), five molecular systems (20k, 61k, 465k, 1400k, 3000k atoms), each
on 1-16 nodes with 8 splits of a node's 128 cores into MPI tasks x OpenMP threads (1 x 128 to
128 x 1): strong scaling over nodes for every (application, system, split). The repository has
no licence, so nothing of it is copied into this project: :func:`profile_table` reads the
files of a fetched mirror (``git show``) when an evaluation runs (``tools/region_coverage.py``).

Regions per run (seconds):

* GROMACS - root ``mdrun`` = the run's wall-clock time (``run.Totals``), children = the rows of
  GROMACS's cycle and time accounting (``run.Cycles``: ``Domain decomp.``, ``Force``, ``PME
  mesh``, ..., ``Rest``), each row's ``Wall time (s)``, which GROMACS averages over the ranks
  that ran it (aggregation ``avg``). With separate PME ranks (rows ``Send X to PME``, ``PME
  mesh *``, ``PME wait``, ...) the rows of the particle-particle ranks and those of the PME
  ranks each add up to the wall time: the children overlap in time (their sum is twice the
  root; 1.9-2 times in some pure-MPI runs, whose JSON lacks a row of the PME ranks). hpcbench
  stores the ``Rest`` row's wall time in the field ``Ranks`` (read from there) and cuts ``PME
  wait for PP *`` at its first space (kept as stored: region ``PME wait``).
* LAMMPS - root ``Loop`` = the loop time (``run.Totals``), children = the ``MPI task timing
  breakdown`` (``run.Breakdowns``: ``Pair``, ``Bond``, ``Kspace``, ``Neigh``, ``Comm``,
  ``Output``, ``Modify``, ``Other``), its ``avg time`` column (means over ranks; they add up to
  the loop time).

``processes`` = MPI tasks (nodes x tasks per node), ``nodes`` from the directory (checked
against the job's Slurm ``nodes``), ``threads`` = OpenMP threads per task, ``cores`` = nodes x
128 (every split fills the node); ``curve`` names the
(application, system, split); ``run`` counts the files of one job size (the LAMMPS 128 x 1
split has a second file at 58 sizes: another Slurm job of the same input, a day apart). Files
that are empty or whose content the mirror lacks (at HEAD 64f6b3b2: 35 LAMMPS files, mostly of
the 3000k-atom system) are skipped and listed in ``attrs["skipped"]``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

REPO = "HECBioSim/benchmark-results"
#: cores of an ARCHER2 node (2x AMD EPYC 7742): every split of the suite fills them (tasks x threads = 128)
CORES_PER_NODE = 128
PATH = re.compile(r"^archer/(gromacs|lammps)/(\d+)threads-(\d+)tasks/(\d+k)-atoms/(\d+)/[^/]+\.json$")


def _git(git: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(git), *args], capture_output=True, check=True).stdout


def _jobs(git: Path, pattern: re.Pattern) -> dict[str, bytes | None]:
    """The job files under ``archer/`` at HEAD whose path ``pattern`` matches, sorted, with their contents."""
    names = [n for n in _git(git, "ls-tree", "-r", "--name-only", "HEAD", "archer").decode().split()
             if pattern.match(n)]
    return _contents(git, sorted(names))


def _contents(git: Path, names: list[str]) -> dict[str, bytes | None]:
    """The files at HEAD in one ``git cat-file --batch`` (one process, not one per file); None where missing."""
    out = subprocess.run(["git", "-C", str(git), "cat-file", "--batch"], capture_output=True, check=True,
                         input="".join(f"HEAD:{n}\n" for n in names).encode()).stdout
    contents, at = {}, 0
    for name in names:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if header[-1] == b"missing":
            contents[name], at = None, end + 1
            continue
        size = int(header[2])
        contents[name], at = out[end + 1:end + 1 + size], end + 1 + size + 1  # content, then a newline
    return contents


def _number(value) -> float:
    return float(str(value).strip())


def _gromacs_regions(run: dict) -> list[tuple[str, float]]:
    regions = [("mdrun", _number(run["Totals"]["Wall Clock Time (s)"]))]
    for name, row in run["Cycles"].items():
        # hpcbench shifts the 'Rest' row (no ranks, threads, calls): its wall time is under 'Ranks'
        value = row.get("Wall time (s)", row.get("Ranks") if name == "Rest" else None)
        if value is not None:
            regions.append((f"mdrun->{name}", _number(value)))
    return regions


def _lammps_regions(run: dict) -> list[tuple[str, float]]:
    (breakdown,) = run["Breakdowns"]  # one MD run per job
    return [("Loop", _number(run["Totals"]["Wall Clock Time (s)"]))] + [
        (f"Loop->{name}", _number(row["avg time"])) for name, row in breakdown.items()]


def profile_table(git: Path) -> pd.DataFrame:
    """The profile table (:func:`workbench.io.read_profiles`' columns) of every job, plus ``curve``.

    Parameters
    ----------
    git : pathlib.Path
        The fetched repository (``/work/.mirror/HECBioSim+benchmark-results/repo``).

    Returns
    -------
    pandas.DataFrame
        One row per job and region; ``curve`` = ``<app>-<system>-atoms-<tasks>tasks-x-<threads>threads``;
        ``attrs["skipped"]`` lists the files that are empty or whose content the mirror lacks.
    """
    rows, runs, skipped = [], {}, []
    for name, raw in _jobs(git, PATH).items():
        app, threads, tasks, atoms, nodes = PATH.match(name).groups()
        if raw is None or not raw.strip():  # listed, but its blob is not in the mirror (large files), or empty
            skipped.append(name)
            continue
        job = json.loads(raw)
        if int(job["slurm"]["slurm"]["nodes"]) != int(nodes):
            raise ValueError(f"{name}: Slurm nodes {job['slurm']['slurm']['nodes']} in a folder of {nodes} nodes")
        regions = _gromacs_regions(job["run"]) if app == "gromacs" else _lammps_regions(job["run"])
        curve = f"{app}-{atoms}-atoms-{tasks}tasks-x-{threads}threads"
        key = (curve, int(nodes))
        runs[key] = runs.get(key, -1) + 1
        for region, value in regions:
            rows.append({"profile": name, "format": "hpcbench-json", "region": region,
                         "name": region.split("->")[-1], "parent": "->".join(region.split("->")[:-1]),
                         "depth": region.count("->"), "metric": "time", "kind": "inclusive",
                         "aggregation": "avg", "value": value, "unit": "s",
                         "processes": float(int(nodes) * int(tasks)), "nodes": float(nodes),
                         "cores": float(int(nodes) * CORES_PER_NODE),
                         "threads": float(threads), "gpus": float("nan"), "run": runs[key], "curve": curve,
                         "app": app, "atoms": atoms})
    table = pd.DataFrame(rows)
    table.attrs["skipped"] = skipped
    return table


#: every MD engine of the suite: ``<app>/<threads>threads-<tasks>tasks/<system>-atoms/<nodes>/`` (AMBER:
#: ``amber/<system>-atoms/<nodes>/``, tasks and threads from the job's Slurm request)
SIZE_PATH = re.compile(r"^archer/(gromacs|lammps|namd|amber)/(?:(\d+)threads-(\d+)tasks/)?(\d+k)-atoms/(\d+)/"
                       r"[^/]+\.json$")


#: the allocations :func:`size_grids` keeps (nodes)
NODE_DOUBLINGS = (1, 2, 4, 8, 16)


def size_grids(git: Path) -> list[tuple[str, pd.DataFrame]]:
    """Processes x problem-size grids of the suite: one per (engine, split of a node into tasks x threads).

    The five molecular systems (19,605 to 2,997,924 atoms) ran a different number of MD steps
    (50,000 for the smallest, 10,000 for the others), so the runtime is the wall-clock time per
    step (hpcbench's ``s/step`` = wall time / steps) and the size the system's exact atom count,
    both as the job's output reports them.  Only the jobs on 1, 2, 4, 8 and 16 nodes are kept:
    campaigns double the allocation (the suite steps by one node), and on 1-16 nodes the split
    *more-p* would otherwise predict 16 nodes from 15, which is no extrapolation.

    Parameters
    ----------
    git : pathlib.Path
        The fetched repository (``/work/.mirror/HECBioSim+benchmark-results/repo``).

    Returns
    -------
    list of (str, pandas.DataFrame)
        ``(grid, frame)`` with ``grid`` = ``<app>-<tasks>tasks-x-<threads>threads`` and the frame's
        columns ``n`` (MPI processes = nodes x tasks per node), ``atoms`` and ``t`` (seconds per MD
        step), one row per job; grids with fewer than 3 systems are left out.
    """
    rows = []
    for name, raw in _jobs(git, SIZE_PATH).items():
        if raw is None or not raw.strip():
            continue
        app, threads, tasks, _, nodes = SIZE_PATH.match(name).groups()
        job = json.loads(raw)
        slurm = job["slurm"]["slurm"]
        if int(slurm["nodes"]) != int(nodes):
            raise ValueError(f"{name}: Slurm nodes {slurm['nodes']} in a folder of {nodes} nodes")
        tasks = int(tasks or slurm["ntasks-per-node"])
        threads = int(threads or slurm.get("cpus-per-task", 1))
        totals = job["run"]["Totals"]
        if int(nodes) not in NODE_DOUBLINGS:
            continue
        rows.append({"grid": f"{app}-{tasks}tasks-x-{threads}threads", "n": float(int(nodes) * tasks),
                     "atoms": _number(totals["Number of atoms"]), "t": _number(totals["s/step"])})
    table = pd.DataFrame(rows)
    table = table[table.t > 0]
    return [(grid, g.drop(columns="grid").sort_values(["atoms", "n"]).reset_index(drop=True))
            for grid, g in table.groupby("grid", sort=True) if g.atoms.nunique() >= 3]


#: where ``fetch github:HECBioSim/benchmark-results`` puts the repository on the development machine
DEFAULT_MIRROR = Path("/work/.mirror/HECBioSim+benchmark-results/repo")


def size_sources(git: Path | None) -> dict[str, list[tuple[str, pd.DataFrame]]]:
    """``{"hecbiosim-archer2": size_grids(git)}``, or ``{}`` (with a note on stderr) when ``git`` is absent.

    Parameters
    ----------
    git : pathlib.Path or None
        The fetched repository; None or a missing folder: the source is left out.
    """
    if git is None or not Path(git).exists():
        print("hecbiosim-archer2: HECBioSim/benchmark-results not fetched, left out", file=sys.stderr)
        return {}
    return {"hecbiosim-archer2": size_grids(Path(git))}
