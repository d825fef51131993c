#!/usr/bin/env python3
"""Rebuild curves.csv for MicrosoftDocs/architecture-center (Azure HPC application benchmarks).

Source: the "performance results" sections of the Azure Architecture Center articles on running HPC
applications on Azure HBv3 (and HBv4) VMs (docs/guide/hpc/*-content.md: Ansys Fluent, Ansys CFX,
ENGYS HELYX, NAMD, LAMMPS, Quantum ESPRESSO, Altair AcuSolve, tNavigator). Each article used here has
a table of wall-clock times on ONE node for 8/16 .. 120 cores -- the HBv3 constrained-core VM sizes
Standard_HB120-16rs_v3 ... Standard_HB120rs_v3, which all expose part of the same 120-core, 2-socket
AMD EPYC 7V73X node with its full memory bandwidth -- and a table for the same model on 1-16 nodes
of Standard_HB120-64rs_v3 (64 cores used per node); tNavigator also on HBv4 (176-core nodes, 144 used
per node across nodes). Both tables together form one strong-scaling curve that starts inside a node
and crosses node boundaries.

Prerequisite (either):
  * a git mirror of the repository at  $SCALING_MIRROR/MicrosoftDocs+architecture-center/repo
    (e.g. git clone --mirror https://github.com/MicrosoftDocs/architecture-center ...); files are read
    with `git show <commit>:<path>`;
  * or --raw-dir DIR holding DIR/<commit>/<path> for every (commit, path) below, e.g. downloaded from
    https://raw.githubusercontent.com/MicrosoftDocs/architecture-center/<commit>/<path>.

Each article is read at the commit given in ARTICLES (the version the extract was made from; the
articles were edited at different times, so the commit is per file and is written per row).
Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build.py [--out DIR]
    python3 build.py --raw-dir DIR [--out DIR]

Rows: one per table row. When the 1-node row of the multi-node table repeats the single-node 64-core
measurement (equal within 0.1 %), it is kept once (the more precise printed value); otherwise both
are kept as two runs at n = 64 (they were separate measurements; the articles' two 64-core times
differ by up to 24 %). Every table is checked against its own printed relative-speed column
(time ratios agree within 3 %), which catches a misread number.
"""
import argparse
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "MicrosoftDocs/architecture-center"
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["curve_id", "source_repo", "commit", "path", "app", "machine", "problem",
          "unit", "n", "run", "time_s", "metric", "notes", "processes", "nodes",
          "cores_per_node", "gpus_per_node"]
CORES_PER_NODE = 120  # HBv3: 2 x 60-core AMD EPYC 7V73X; the -16/-32/-64/-96rs_v3 sizes expose part of it
MACHINE = ("Azure HBv3 VMs (AMD EPYC 7V73X Milan-X, 120 cores per node in 2 sockets, 448 GiB, 350 GB/s, "
           "200 Gb/s HDR InfiniBand); one node: constrained-core sizes Standard_HB120-{16,32,64,96}rs_v3 and "
           "Standard_HB120rs_v3; several nodes: Standard_HB120-64rs_v3 with 64 ranks per node (Azure CycleCloud)")

FLUENT = ("0376c1d1913b15298906d6633736d4df550c5f55", "docs/guide/hpc/ansys-fluent-content.md")
NAMD = ("095b0c6ef5c6afe7ce68658db64b6d4ebc163175", "docs/guide/hpc/hpc-namd-content.md")
LAMMPS = ("32bd3edaa65f8536c66cce3e83e34d0f3047f0aa", "docs/guide/hpc/hpc-lammps-content.md")
QE = ("2aaeaaa6e1e79fdfc4b7547d08e0c37b1b187cf9", "docs/guide/hpc/quantum-espresso-content.md")
ACUSOLVE = ("26eb80ad538e79b71e8c82a7c336709a1262b878", "docs/guide/hpc/hpc-altair-acusolve-content.md")
CFX = ("05fbd6a928202b48a0150983e027c24a98d96eb6", "docs/guide/hpc/ansys-cfx-content.md")
HELYX = ("0985ff3fc3e94b6a67ddc3bd8e19fa844b09ee1b", "docs/guide/hpc/engys-helyx-content.md")
TNAVIGATOR = ("232a431c56bb004a7649358f0467dd295bd54628", "docs/guide/hpc/tnavigator-content.md")
MACHINE_HBV4 = ("Azure HBv4 VMs (AMD EPYC 9V33X Genoa-X, 176 cores per node in 2 sockets, 400 Gb/s NDR InfiniBand); "
                "one node: constrained-core sizes Standard_HB176-{24,48,96,144}rs_v4 and Standard_HB176_v4; several "
                "nodes: Standard_HB176-144rs_v4 with 144 cores used per node (Azure CycleCloud)")

# Table locator: anchors are found in order (each after the previous one); the table used is the first
# one after the last anchor whose header has all `cols` (header names with whitespace and <br> collapsed).
FLUENT_TIME = "Wall-time per 100 iterations (seconds)"
FLUENT_MULTI_TIME = "Wall-clock time per 100 iterations (seconds)"
FLUENT_CASES = {  # case heading -> (curve id suffix, problem)
    "Aircraft wing": ("aircraft-wing-14m", "aircraft_wing_14m: 14 M hexahedral cells, pressure-based coupled, steady, "
                                           "realizable k-epsilon"),
    "Pump": ("pump-2m", "pump_2m: 2 M hexahedral cells, pressure-based coupled, steady, realizable k-epsilon, "
                        "mixture multiphase"),
    "Landing gear": ("landing-gear-15m", "landing_gear_15m: 15 M mixed cells, pressure-based coupled, unsteady LES, "
                                         "acoustics"),
    "Oil rig": ("oil-rig-7m", "oil_rig_7m: 7 M mixed cells, pressure-based segregated, unsteady, VOF, SST k-omega"),
    "Sedan": ("sedan-4m", "sedan_4m: 4 M mixed cells, pressure-based coupled, steady, standard k-epsilon"),
    "Combustor": ("combustor-12m", "combustor_12m: 12 M polyhedral cells, pressure-based coupled, pseudo transient, "
                                   "realizable k-epsilon, species transport"),
    "Exhaust system": ("exhaust-system-33m", "exhaust_system_33m: 33 M mixed cells, pressure-based coupled, steady, "
                                             "SST k-omega"),
}


def fluent_curves():
    out = {}
    for case, (suffix, problem) in FLUENT_CASES.items():
        out[f"azure-hbv3-fluent-{suffix}"] = dict(
            source=FLUENT, app="Ansys Fluent 2021 R2 (CentOS)",
            problem=problem + "; time per 100 iterations",
            metric="wall-clock time per 100 iterations (s), as printed",
            single=dict(anchors=["### Results, single-node configuration", f"#### {case} test case"],
                        cols=("Cores", FLUENT_TIME), speed="Relative speed increase"),
            multi=dict(anchors=["### Results, multi-node configuration", f"#### {case} test case"],
                       cols=("Number of nodes", "Number of cores", FLUENT_MULTI_TIME),
                       speed="Relative speed increase"))
    return out


CFX_MODELS = {  # model name in the tables -> (curve id suffix, problem)
    "perf_Pump_R16": ("pump", "perf_Pump_R16: automotive pump with rotating and stationary parts, 10 iterations"),
    "perf_Airfoil_10M_R16": ("airfoil-10m", "perf_Airfoil_10M_R16: transonic airfoil, 10 M mesh"),
    "perf_Airfoil_50M_R16": ("airfoil-50m", "perf_Airfoil_50M_R16: transonic airfoil, 50 M mesh"),
    "perf_Airfoil_100M_R16": ("airfoil-100m", "perf_Airfoil_100M_R16: transonic airfoil, 100 M mesh"),
}
CFX_TIME = "CFD solver wall-clock time (seconds)"
HELYX_MODELS = {  # heading -> (curve id suffix, problem)
    "### Model 1: City_landscape_Niigata-NNE": (
        "city-landscape-26m",
        "City_landscape_Niigata-NNE: 26.5 M cells, single phase turbulent, steady, 1,000 iterations"),
    "### Model 2a: Turbomachine_Ventilator-AFnq182": (
        "ventilator-3m", "Turbomachine_Ventilator-AFnq182: 3.1 M cells, single phase turbulent with MRF (AMI), steady, "
                         "1,000 iterations"),
    "### Model 3a: Marine_G2010-C2.2b-KCS-Fn026": (
        "marine-kcs-1m", "Marine_G2010-C2.2b-KCS-Fn026: 1.35 M cells, two-phase VOF with automatic mesh refinement, "
                         "CFL-regulated, 20 s"),
}


def cfx_curves():
    out = {}
    for model, (suffix, problem) in CFX_MODELS.items():
        skip = {120: "the article prints 1.05; 2029.20 / 1473.70 = 1.38"} if suffix == "airfoil-100m" else {}
        out[f"azure-hbv3-cfx-{suffix}"] = dict(
            source=CFX, app="Ansys CFX 2021 R2 (Intel MPI, CentOS 8.1)", problem=problem,
            metric="CFD solver wall-clock time (s), as printed",
            single=dict(anchors=["### Results, single-node configuration"], cols=("Cores", CFX_TIME),
                        match={"Model": model}, speed="Relative speed increase", speed_skip=skip),
            multi=dict(anchors=["### Results, multi-node configuration"],
                       cols=("Number of nodes", "Number of cores", CFX_TIME), match={"Model": model},
                       speed="Relative speed increase"))
    return out


def helyx_curves():
    out = {}
    for heading, (suffix, problem) in HELYX_MODELS.items():
        out[f"azure-hbv3-helyx-{suffix}"] = dict(
            source=HELYX, app="ENGYS HELYX 3.5.0", problem=problem,
            metric="solver running time (s), as printed",
            single=dict(anchors=["## HELYX 3.5.0 performance results on single-node VMs", heading],
                        cols=("Number of cores", "Solver running time (seconds)"), speed="Relative speed increase"),
            multi=dict(anchors=["## HELYX 3.5.0 performance results on multi-node clusters", heading],
                       cols=("Number of nodes", "Number of cores", "Solver running time (seconds)"),
                       speed="Relative speed increase"))
    return out


CURVES = {
    **fluent_curves(),
    **cfx_curves(),
    **helyx_curves(),
    "azure-hbv3-tnavigator-speedtest9": dict(
        source=TNAVIGATOR, app="Rock Flow Dynamics tNavigator 22.4", unit="cores",
        problem="Speed Test 9 reservoir model: 264 x 645 x 177 grid, 21.77 M active blocks",
        metric="total elapsed time (s), as printed",
        single=dict(anchors=["#### HBv3-series VM on single-node configuration"],
                    cols=("Number of vCPUs used", "Total elapsed time (seconds)"), speed="Relative speed increase"),
        multi=dict(anchors=["### HBv3-series VM results in a multi-node configuration"],
                   cols=("Number of nodes", "Number of vCPUs", "Total elapsed time (seconds)"),
                   speed="Relative speed increase")),
    "azure-hbv4-tnavigator-speedtest9": dict(
        source=TNAVIGATOR, app="Rock Flow Dynamics tNavigator 22.4", unit="cores", machine=MACHINE_HBV4,
        cores_per_node=176,
        problem="Speed Test 9 reservoir model: 264 x 645 x 177 grid, 21.77 M active blocks",
        metric="total elapsed time (s), as printed",
        single=dict(anchors=["### Results on the HBv4-series VM", "#### Results on single-node configuration"],
                    cols=("Number of vCPUs used", "Total Elapsed time (seconds)"), speed="Relative speed increase"),
        multi=dict(anchors=["#### HBv4-series VM results on multi-node configuration"],
                   cols=("Number of nodes", "Number of vCPUs", "Total Elapsed time (seconds)"),
                   speed="Relative speed increase")),
    "azure-hbv3-namd-stmv-21m": dict(
        source=NAMD, app="NAMD 2.14 (CentOS)",
        problem="STMV tiled 5x2x2 (model 1b): 21 M atoms, PME, time step 2 fs, 1,200 steps",
        metric="total wall-clock time (s), as printed",
        single=dict(anchors=["### NAMD 2.14 performance results on single-node VMs", "#### Model 1b: STMV"],
                    cols=("Number of cores", "Wall clock-time (seconds)"), speed="Relative speed increase"),
        multi=dict(anchors=["### NAMD 2.14 performance results on a multi-node cluster"],
                   cols=("Number of nodes", "Number of cores", "Wall-clock time (seconds)"),
                   speed="Relative speed increase")),
    "azure-hbv3-lammps-lj": dict(
        source=LAMMPS, app="LAMMPS 23 Jun 2022 (Open MPI 4.1.0, CentOS)",
        problem="in.lj Lennard-Jones liquid (article: '1.0e+9 atoms'), 200 steps",
        metric="total wall-clock time (s), as printed",
        single=dict(anchors=["### LAMMPS 23June2022 performance results on single-node VMs"],
                    cols=("Number of cores", "Wall clock time (seconds)"), speed="Relative speed increase"),
        multi=dict(anchors=["### LAMMPS performance results on multi-node cluster",
                            "Model 1: In.lj (Lennard-Jones Liquid)"],
                   cols=("Number of nodes", "Number of cores", "Wall clock time (seconds)"),
                   speed="Relative speed increase")),
    "azure-hbv3-qe-ta2o5": dict(
        source=QE, app="Quantum ESPRESSO 7.1",
        problem="ta2o5: 25 atoms per cell, 2 atomic types, 125 electrons, mixing beta 0.5",
        metric="total wall-clock time (s), as printed",
        single=dict(anchors=["### Quantum ESPRESSO performance results on single-node VMs"],
                    cols=("Number of cores", "Wall clock time (seconds)"), speed="Relative speed up"),
        multi=dict(anchors=["#### Model 1: ta2o5 for multi-node"],
                   cols=("Number of nodes", "Number of cores", "Wall clock time (seconds)"),
                   speed="Relative speed up")),
    "azure-hbv3-acusolve-impinging-nozzle": dict(
        source=ACUSOLVE, app="Altair AcuSolve (Intel MPI, CentOS 8.1)",
        problem="impinging nozzle: 7.69 M elements, steady, Spalart-Allmaras, 200 time steps",
        metric="total wall-clock time (s); the single-node table prints hours with 2 decimals (x 3600 here)",
        single=dict(anchors=["#### Results for impinging nozzle, single node"],
                    cols=("Number of processors", "Wall-clock time (hours)"), speed=None, hours=True,
                    note="one Standard_HB120-64rs_v3 VM ({n} of its 64 cores used; the article: processes "
                         "'artificially limited' below 64)"),
        multi=dict(anchors=["### Results for a multi-node configuration"],
                   cols=("Number of nodes", "Number of cores", "Wall-clock time (seconds)"),
                   speed="Relative increase")),
}


def read(source, raw_dir):
    commit, path = source
    if raw_dir:
        with open(os.path.join(raw_dir, commit, path), encoding="utf-8") as fh:
            return fh.read()
    return subprocess.run(["git", "--git-dir", GITDIR, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def norm(cell):
    cell = re.sub(r"<sup>.*$", "", cell)            # footnote marks such as 16<sup>3
    cell = re.sub(r"<br>|\*\*", " ", cell)
    return re.sub(r"\s+", " ", cell).strip()


def cells(line):
    parts = [norm(c) for c in line.strip().split("|")]
    if parts and parts[0] == "":
        parts = parts[1:]
    if parts and parts[-1] == "":
        parts = parts[:-1]
    return parts


def tables(text):
    """Yield (start offset, header, rows) of every markdown table (header, separator, body rows)."""
    lines = text.splitlines(keepends=True)
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line)
    i = 0
    while i < len(lines) - 1:
        if "|" in lines[i] and re.fullmatch(r"\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*", lines[i + 1]):
            header, rows, j = cells(lines[i]), [], i + 2
            while j < len(lines) and "|" in lines[j]:
                rows.append(cells(lines[j]))
                j += 1
            yield offsets[i], header, rows
            i = j
        else:
            i += 1


def locate(text, spec, where):
    pos = 0
    for anchor in spec["anchors"]:
        found = text.find(anchor, pos)
        if found < 0:
            raise SystemExit(f"{where}: anchor {anchor!r} not found")
        pos = found + len(anchor)
    match = spec.get("match", {})
    for start, header, rows in tables(text):
        if start >= pos and all(c in header for c in (*spec["cols"], *match)) and all(
                row[header.index(col)] == value for row in rows for col, value in match.items()):
            return header, rows
    raise SystemExit(f"{where}: no table with columns {spec['cols']} after {spec['anchors']}")


def number(cell, where):
    cell = cell.replace(",", "")
    if not re.fullmatch(r"\d+(\.\d+)?", cell):
        raise SystemExit(f"{where}: {cell!r} is not a number")
    return float(cell)


def parse(text, spec, where, multi):
    header, rows = locate(text, spec, where)
    idx = {c: header.index(c) for c in spec["cols"]}
    speed_idx = header.index(spec["speed"]) if spec.get("speed") else None
    out = []
    for row in rows:
        t = number(row[idx[spec["cols"][-1]]], where) * (3600.0 if spec.get("hours") else 1.0)
        cores = int(number(row[idx[spec["cols"][1 if multi else 0]]], where))
        nodes = int(number(row[idx["Number of nodes"]], where)) if multi else 1
        raw_speed = row[speed_idx] if speed_idx is not None else ""
        speed = None if raw_speed in ("", "NA", "N/A") else number(raw_speed, where)
        decimals = len(row[idx[spec["cols"][-1]]].replace(",", "").partition(".")[2])
        vm = row[header.index("VM size")] if "VM size" in header else None
        if cores in spec.get("speed_skip", {}):
            speed = None  # a misprinted relative speed (documented in speed_skip and the README)
        out.append(dict(n=cores, nodes=nodes, time_s=t, speed=speed, printed=row[idx[spec["cols"][-1]]],
                        decimals=decimals, vm=vm))
    # the printed relative speeds are ratios of the printed times (relative to some reference time)
    ref = [r for r in out if r["speed"] is not None]
    if len(ref) >= 2:
        first = ref[0]
        for r in ref[1:]:
            expected = first["time_s"] / r["time_s"]
            got = r["speed"] / first["speed"]
            if abs(expected / got - 1) > 0.03:
                raise SystemExit(f"{where}: n={r['n']}: time ratio {expected:.3f} disagrees with printed "
                                 f"relative speeds ({got:.3f})")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--raw-dir", default=None, help="directory with <commit>/<path> copies of the articles")
    args = ap.parse_args()
    texts, rows = {}, []
    for curve_id, spec in CURVES.items():
        commit, path = spec["source"]
        if spec["source"] not in texts:
            texts[spec["source"]] = read(spec["source"], args.raw_dir)
        text = texts[spec["source"]]
        single = parse(text, spec["single"], f"{path} ({curve_id}, single node)", multi=False)
        multi = parse(text, spec["multi"], f"{path} ({curve_id}, multi-node)", multi=True)
        unit = spec.get("unit", "processes")
        points = []
        for r in single:
            vm = r["vm"] or ("Standard_HB120rs_v3" if r["n"] == 120 else f"Standard_HB120-{r['n']}rs_v3")
            where = (spec["single"].get("note") or "one {vm} VM ({n} cores used)").format(vm=vm, n=r["n"])
            points.append(dict(r, table="single-node", where=where))
        for r in multi:
            same = [p for p in points if p["n"] == r["n"] and r["nodes"] == 1
                    and abs(p["time_s"] / r["time_s"] - 1) <= 0.001]
            if same:  # the 1-node row of the multi-node table repeats the single-node measurement
                if r["decimals"] > same[0]["decimals"]:
                    same[0].update(time_s=r["time_s"], printed=r["printed"], decimals=r["decimals"])
                same[0]["where"] += "; repeated as the 1-node row of the multi-node table"
                continue
            per_node = f"{r['n'] // r['nodes']} {'ranks' if unit == 'processes' else 'cores'} per node"
            vm = r["vm"] or "Standard_HB120-64rs_v3"
            points.append(dict(r, table="multi-node", where=f"{r['nodes']} x {vm} ({per_node})"))
        counter = {}
        for p in sorted(points, key=lambda p: (p["n"], p["table"] != "single-node")):
            run = counter.get(p["n"], 0)
            counter[p["n"]] = run + 1
            notes = (f"{p['table']} table of the article; {p['where']}; printed time {p['printed']}"
                     + (" h" if p["table"] == "single-node" and spec["single"].get("hours") else " s"))
            rows.append({"curve_id": curve_id, "source_repo": REPO, "commit": commit, "path": path,
                         "app": spec["app"], "machine": spec.get("machine", MACHINE), "problem": spec["problem"],
                         "unit": unit, "n": p["n"], "run": run, "time_s": round(p["time_s"], 6),
                         "metric": spec["metric"], "notes": notes,
                         "processes": p["n"] if unit == "processes" else "", "nodes": p["nodes"],
                         "cores_per_node": spec.get("cores_per_node", CORES_PER_NODE), "gpus_per_node": ""})
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows, {len({r['curve_id'] for r in rows})} curves", file=sys.stderr)


if __name__ == "__main__":
    main()
