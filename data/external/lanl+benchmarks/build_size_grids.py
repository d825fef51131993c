#!/usr/bin/env python3
"""Rebuild size_grids.csv for lanl/benchmarks (LANL's ATS-5 benchmark campaigns on Crossroads).

Source: the Sphinx documentation of the ATS-5 benchmark suite (doc/sphinx/*/), which publishes
figures of merit (FOM) of Branson, AMG2023, Parthenon-VIBE, MLMD and MiniEM at several core or
node counts for several problem sizes, plus the raw outputs of some multi-node runs.

Prerequisite: a git mirror of https://github.com/lanl/benchmarks (e.g. ``git clone --mirror
https://github.com/lanl/benchmarks lanl+benchmarks/repo``). Files are read with ``git show
<COMMIT>:<path>``, so the output depends only on the pinned commit. Standard library only.

Usage:
    python build_size_grids.py --repo /path/to/lanl+benchmarks/repo [--out size_grids.csv]

One output row per (grid, allocation, size), in the project's size-grid table (workbench.io.size_grids:
time_unit "s" or "s/step", run 0) followed by this extract's columns: see README.md for what n, size
and time mean in each grid. Runtime is either a measured time printed by the application
(``time_source`` "s (measured ...)") or derived from a FOM whose definition the documentation gives as
work / time with the work known for the run (``time_source`` "s (<work> / FOM)").
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys

COMMIT = "7e0fdf9f64c956168ba45482977e9be72b3c2cae"
HERE = os.path.dirname(os.path.abspath(__file__))
DOC = "doc/sphinx"
# the project's size-grid table (workbench.io.size_grids) first, then this extract's own columns
FIELDS = ["grid", "app", "machine", "n", "n_unit", "size_name", "size", "size_scope", "time", "time_unit", "run",
          "path", "scaling", "size_unit", "time_source", "fom", "fom_unit"]
CROSSROADS = "Crossroads (ATS-3; 2x Intel Xeon Max 9480 per node)"
ROCINANTE = "Rocinante HBM partition (Crossroads testbed; 2x Intel Xeon Max 9480 per node)"
# MD steps of the timed run: the last "run 10000" of kokkos_lammps_hippynn/MD-HO-cpu.in, whose LAMMPS
# "Performance" line (the 5th) Benchmark-Plotting.py reads
MLMD_STEPS = 10000


def show(repo, path):
    """Return the text of ``path`` at the pinned commit."""
    out = subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:{path}"], check=True, capture_output=True)
    return out.stdout.decode("utf-8-sig")


def ls(repo, folder):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", COMMIT, folder], check=True,
                         capture_output=True)
    return sorted(out.stdout.decode().split())


def table(repo, path):
    """Return the rows of a CSV table as lists of stripped strings (header first)."""
    rows = [[c.strip() for c in row] for row in csv.reader(io.StringIO(show(repo, path)))]
    return [r for r in rows if any(r)]


def num(text):
    return float(text.strip().rstrip("%"))


def row(grid, app, machine, scaling, n, n_unit, size_name, size, scope, time, time_unit, fom, fom_unit, path):
    if not (n > 0 and size > 0 and time > 0 and fom > 0):
        raise SystemExit(f"{path}: non-positive value in grid {grid} (n={n}, size={size}, time={time}, fom={fom})")
    # time_unit is "s/step" where the time is per time step, else "s"; how it was obtained is time_source
    per_step = "per time step" in time_unit or "/ steps" in time_unit
    return {"grid": grid, "app": app, "machine": machine, "n": n, "n_unit": n_unit,
            "size_name": f"{fmt(size)} {size_name}", "size": size, "size_scope": scope, "time": time,
            "time_unit": "s/step" if per_step else "s", "run": 0, "path": path, "scaling": scaling,
            "size_unit": size_name, "time_source": time_unit, "fom": fom, "fom_unit": fom_unit}


# ---------------------------------------------------------------------------------------- Branson
def branson(repo):
    """Branson: FOM = user photons / 'Total transport' time (branson.rst; src/imc_state.h), so time = photons / FOM."""
    out = []
    unit = "s (photons / FOM)"
    # single node of Crossroads, 8-112 cores, 10M, 66M, 200M photons (strong scaling per size)
    for label in ("10M", "66M", "200M"):
        path = f"{DOC}/01_branson/cpu_{label}.csv"
        photons = float(label[:-1]) * 1e6
        for r in table(repo, path)[1:]:
            fom = num(r[1])
            out.append(row("branson-crossroads-cpu", "Branson", CROSSROADS, "strong", int(num(r[0])), "cores",
                           "photons", photons, "total", photons / fom, unit, fom, "photons/s", path))
    # single Rocinante HBM node (commit 9cc6fa7: "New single node scaling numbers on roci hbm"): the column
    # headed 'Nodes' holds the rank count 8..112 of one 112-core node; Photons in millions
    path = f"{DOC}/01_branson/branson_single_scale.csv"
    for r in table(repo, path)[1:]:
        photons, fom = num(r[1]) * 1e6, num(r[3])
        out.append(row("branson-rocinante-cpu", "Branson", ROCINANTE, "strong", int(num(r[2])), "cores",
                       "photons", photons, "total", photons / fom, unit, fom, "photons/s", path))
    # multi-node, 110 ranks per node, fixed total photon counts (millions) at 32, 64, 96 nodes
    path = f"{DOC}/01_branson/branson_roci_scale_photonrange.csv"
    rows = table(repo, path)
    nodes = [int(num(c)) for c in rows[0][1:]]
    for r in rows[1:]:
        photons = num(r[0]) * 1e6
        for n, cell in zip(nodes, r[1:]):
            if cell == "" or num(cell) <= 0:  # the 8000M problem was not run on 32 nodes
                continue
            fom = num(cell)
            out.append(row("branson-rocinante-multinode", "Branson", ROCINANTE, "strong", n, "nodes", "photons",
                           photons, "total", photons / fom, unit, fom, "photons/s", path))
    # weak scaling: 85 million photons per node (branson.rst), total photons in millions in the table
    path = f"{DOC}/01_branson/branson_roci_scale_header.csv"
    for r in table(repo, path)[1:]:
        n, photons, fom = int(num(r[0])), num(r[1]) * 1e6, num(r[2])
        if abs(photons - 85e6 * n) > 1:
            raise SystemExit(f"{path}: {photons:g} photons on {n} nodes is not 85 million per node")
        out.append(row("branson-rocinante-weak", "Branson", ROCINANTE, "weak", n, "nodes", "photons", photons,
                       "total", photons / fom, unit, fom, "photons/s", path))
    return out


# ---------------------------------------------------------------------------------------- AMG2023
AMG_BLOCK = re.compile(
    r"srun -N (\d+) --ntasks-per-node=(\d+).*?-problem (\d) -n (\d+) (\d+) (\d+) -P (\d+) (\d+) (\d+)\n"
    r".*?\(Nx, Ny, Nz\) = \((\d+), (\d+), (\d+)\)"
    r".*?(?:GMRES|PCG) Setup:\s*wall clock time = ([\d.]+) seconds"
    r".*?(?:GMRES|PCG) Solve:\s*wall clock time = ([\d.]+) seconds"
    r".*?Figure of Merit \(FOM\): nnz_AP / \(Setup Phase Time \+ (?:3 \* )?Solve Phase Time\) ([\d.e+-]+)",
    re.S)


def amg(repo):
    """AMG2023 multi-node weak scaling: measured AMG setup + solve wall-clock seconds from the run outputs."""
    out = []
    for path in ls(repo, f"{DOC}/02_amg/scaling/output"):
        blocks = AMG_BLOCK.findall(show(repo, path))
        if len(blocks) != 2:
            raise SystemExit(f"{path}: expected the runs of problems 1 and 2, found {len(blocks)}")
        for b in blocks:
            nodes, ppn, problem = int(b[0]), int(b[1]), int(b[2])
            local = [int(x) for x in b[3:6]]
            topo = [int(x) for x in b[6:9]]
            grid_pts = [int(x) for x in b[9:12]]
            if topo[0] * topo[1] * topo[2] != nodes * ppn or grid_pts != [p * m for p, m in zip(topo, local)]:
                raise SystemExit(f"{path}: process topology {topo} x local size {local} != grid {grid_pts}")
            setup, solve, fom = float(b[12]), float(b[13]), float(b[14])
            size = grid_pts[0] * grid_pts[1] * grid_pts[2]
            stencil = {1: "27-pt AMG-GMRES", 2: "7-pt AMG-PCG"}[problem]
            out.append(row(f"amg-crossroads-p{problem}-weak", f"AMG2023 problem {problem} ({stencil})", CROSSROADS,
                           "weak", nodes, "nodes", "grid_points", size, "total", round(setup + solve, 6),
                           "s (measured AMG setup + solve wall clock)", fom, "nnz_AP/s", path))
    return out


# ---------------------------------------------------------------------------------------- Parthenon-VIBE
def vibe(repo):
    """Parthenon-VIBE multi-node weak scaling: measured 'walltime used' of each run output."""
    out = []
    for path in ls(repo, f"{DOC}/03_vibe/scaling/output"):
        m = re.fullmatch(r".*/scale-cpu\.(\d+)\.(\d+)\.(\d+)\.out", path)
        block, nx, nodes = (int(x) for x in m.groups())
        text = show(repo, path)
        root = re.search(r"Root grid = (\d+) x (\d+) x (\d+) MeshBlocks", text)
        if [int(x) * block for x in root.groups()] != [nx] * 3:
            raise SystemExit(f"{path}: root grid {root.groups()} x {block} does not match NX = {nx}")
        wall = float(re.search(r"walltime used = ([\d.e+-]+)", text).group(1))
        fom = float(re.search(r"zone-cycles/wallsecond = ([\d.e+-]+)", text).group(1))
        out.append(row("vibe-crossroads-weak", "Parthenon-VIBE (Burgers; 3 AMR levels; 16^3 blocks)", CROSSROADS,
                       "weak", nodes, "nodes", "base_mesh_cells", float(nx) ** 3, "total", wall,
                       "s (measured walltime used)", fom, "zone-cycles/s", path))
    return out


# ---------------------------------------------------------------------------------------- MLMD
def mlmd(repo):
    """MLMD (LAMMPS + HIPNN): FOM = katom-step/s of the timed 10000-step run, so time = atoms x 10000 / FOM."""
    out = []
    for label, atoms in (("4k", 4544), ("18k", 18176)):  # atom counts from mlmd.rst
        path = f"{DOC}/05_mlmd/cpu_{label}.csv"
        for r in table(repo, path)[1:]:
            fom = num(r[1])
            out.append(row("mlmd-crossroads-cpu", "MLMD (LAMMPS + HIPNN; Ag)", CROSSROADS, "strong", int(num(r[0])),
                           "cores", "atoms", float(atoms), "total", atoms * MLMD_STEPS / (fom * 1e3),
                           f"s (atoms x {MLMD_STEPS} steps / FOM)", fom, "katom-steps/s", path))
    return out


# ---------------------------------------------------------------------------------------- MiniEM
def miniem(repo):
    """MiniEM: FOM = cells x steps / solver time / 1000, so time per step = cells / (1000 FOM)."""
    out = []
    for label in ("0768k", "2592k", "4116k"):
        path = f"{DOC}/07_miniem/ats3-{label}.csv"
        rows = table(repo, path)
        head = rows[0]
        for r in rows[1:]:
            rec = dict(zip(head, r))
            # 8 NUMA domains of 14 cores per node: ranks = 8 x PEs per NUMA domain (ats3--all.csv: Ranks, Ranks/Domain)
            ranks = 8 * int(num(rec["PEs / NUMA Domain"]))
            cells, fom = num(rec["Cells"]), num(rec["Actual FOM (k-cell-steps/sec)"])
            out.append(row("miniem-crossroads-cpu", "MiniEM (Maxwell-Large)", CROSSROADS, "strong", ranks, "ranks",
                           "cells", cells, "total", cells / (fom * 1e3), "s per time step (cells / FOM)", fom,
                           "k-cell-steps/s", path))
    return out


# ---------------------------------------------------------------------------------------- SPARTA
def best_tries(repo, path, key):
    """Return {key(run): run} keeping, per configuration, the try with the highest FOM (the published one)."""
    rows = table(repo, path)
    fom = "FOM (M-particle-steps/sec/node)"
    best = {}
    for r in rows[1:]:
        run = dict(zip(rows[0], r))
        k = key(run)
        if k not in best or num(run[fom]) > num(best[k][fom]):
            best[k] = run
    return best


def check_published(path, published, run):
    """The documentation's table shows the best try's FOM rounded to 2 decimals: check it is this run's."""
    fom = num(run["FOM (M-particle-steps/sec/node)"])
    if abs(round(fom, 2) - published) > 0.0051:
        raise SystemExit(f"{path}: published FOM {published} is not the best try's {fom}")
    return fom


def sparta(repo):
    """SPARTA: measured loop times ('Loop time of ...' in log.sparta, collected in ats3--all.csv and
    ats3--scale--all.csv) of the tries whose FOM the documentation's tables show."""
    out = []
    # one node, 8-112 ranks, 15/35/55 particles per cell; the runs were time-boxed (the step count varies
    # with the rank count), so the comparable runtime is the loop time per step
    every = f"{DOC}/08_sparta/ats3--all.csv"
    best = best_tries(repo, every, lambda run: (int(num(run["Particles Per Cell [PPC]"])), int(num(run["No. Ranks"]))))
    for ppc in (15, 35, 55):
        path = f"{DOC}/08_sparta/ats3--{ppc}.csv"
        runs = [best[(ppc, ranks)] for ranks in (8, 32, 56, 88, 112)]
        # the particle count differs by < 0.05 % between runs of one ppc: one size per ppc (the mean, rounded)
        particles = float(round(sum(num(r["No. Particles"]) for r in runs) / len(runs)))
        rows = table(repo, path)[1:]
        if len(rows) != len(runs):
            raise SystemExit(f"{path}: expected {len(runs)} rows (8-112 ranks), found {len(rows)}")
        for published, run in zip(rows, runs):
            # "Processing Elements per NUMA Domain" 7.1 % ... 100 % of 14 cores x 8 NUMA domains
            ranks = int(num(run["No. Ranks"]))
            if round(num(published[0]) / 100 * 14) * 8 != ranks or num(run["No. Nodes"]) != 1:
                raise SystemExit(f"{path}: {published[0]} of a NUMA domain is not {ranks} ranks on one node")
            fom = check_published(path, num(published[1]), run)
            loop, steps = num(run["Wall Time (sec)"]), num(run["No. Steps"])
            out.append(row("sparta-crossroads-cpu", "SPARTA (2D flow past a cylinder)", CROSSROADS, "strong", ranks,
                           "ranks", "particles", particles, "total", loop / steps,
                           "s per time step (measured loop time / steps)", fom, "M-particle-steps/s/node", every))
    # weak scaling 1-2048 nodes (112 ranks each), about 250M particles per node, 6866 steps in every run
    every = f"{DOC}/08_sparta/ats3--scale--all.csv"
    path = f"{DOC}/08_sparta/ats3--scale--main.csv"
    best = best_tries(repo, every, lambda run: int(num(run["No. Nodes"])))
    for published in table(repo, path)[1:]:
        nodes = int(num(published[0]))
        run = best[nodes]
        fom = check_published(path, num(published[1]), run)
        if num(run["No. Steps"]) != 6866 or num(run["No. Ranks"]) != 112 * nodes:
            raise SystemExit(f"{every}: the best run on {nodes} nodes is not 6866 steps on {112 * nodes} ranks")
        out.append(row("sparta-crossroads-weak", "SPARTA (2D flow past a cylinder)", CROSSROADS, "weak", nodes,
                       "nodes", "particles", num(run["No. Particles"]), "total", num(run["Wall Time (sec)"]),
                       "s (measured loop time of 6866 steps)", fom, "M-particle-steps/s/node", every))
    return out


def fmt(value):
    if isinstance(value, float):
        # integral values (photon, particle, grid point counts) in full; others to 10 significant digits
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.10g}"
    return str(value)


def build(repo):
    rows = branson(repo) + amg(repo) + vibe(repo) + mlmd(repo) + miniem(repo) + sparta(repo)
    rows.sort(key=lambda r: (r["grid"], r["size"], r["n"]))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: fmt(v) for k, v in r.items()})
    return buf.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help="git directory of a mirror of lanl/benchmarks")
    parser.add_argument("--out", default=os.path.join(HERE, "size_grids.csv"),
                        help="output file (default: size_grids.csv here)")
    args = parser.parse_args(argv)
    text = build(args.repo)
    with open(args.out, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    print(f"wrote {text.count(chr(10)) - 1} rows to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
