#!/usr/bin/env python3
"""Rebuild curves.csv for CMASCenter/pcluster-cmaq (CMAQ benchmark runs on cloud VM clusters).

Source: the run logs that the CMAS Center committed while benchmarking the CMAQ chemical
transport model (CCTM v5.3.2/v5.3.3, 2-day 12US2 CONUS benchmark; CCTM v5.4+, 2-day 12US1) on
AWS ParallelCluster (c5n.9xlarge, c5n.18xlarge, hpc6a.48xlarge, hpc7g.16xlarge) and Azure
CycleCloud (HBv3, 120 cores per VM). Every log ends with CMAQ's own timing report: the number
of MPI processes, the wall time of each simulated day and their sum ("Total Time").

Prerequisite: a git mirror of the repository at
    $SCALING_MIRROR/CMASCenter+pcluster-cmaq/repo
e.g.  git clone --mirror https://github.com/CMASCenter/pcluster-cmaq \
          $SCALING_MIRROR/CMASCenter+pcluster-cmaq/repo

Files are read with `git show <pinned commit>:<path>`. Standard library only.

Usage:
    SCALING_MIRROR=/path/to/mirrors python3 build.py [--out DIR]

One output row per run (one log). time_s = "Total Time" of the timing report (seconds, as
printed). A run is kept only when the report covers both simulated days and neither day took
less than half the other (several logs are of aborted or one-day reruns; they are listed on
stderr). Logs committed twice (the same CMAQ execution id in several folders) count once.
Topology comes from the logs and the repository, never guessed:
  * cores_per_node = "Core(s) per socket" x "Socket(s)" of the lscpu block at the top of each log
    (SMT is off on every VM type used);
  * nodes = SLURM_JOB_NUM_NODES printed in the log (Azure runs), else the "<nodes>x<ranks>"
    token of the log's file name, else the #SBATCH --nodes of the run script committed next to
    the logs (CCTM v5.3.2 on c5n.18xlarge), else the author's timing table
    docs/user_guide_pcluster/post/qa/timing_<instance>.csv (column NodesxCPU), matched on the
    process count and the printed total time.
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "CMASCenter/pcluster-cmaq"
COMMIT = "0add9a2f57265ed3e0f2a4f7a78f6d70d7b80b5d"  # 2025-02-25
MIRROR = os.environ.get("SCALING_MIRROR", "mirrors")
GITDIR = os.path.join(MIRROR, REPO.replace("/", "+"), "repo")

FIELDS = ["curve_id", "source_repo", "commit", "path", "app", "machine", "problem",
          "unit", "n", "run", "time_s", "metric", "notes", "processes", "nodes",
          "cores_per_node", "gpus_per_node"]
MIN_DISTINCT_N = 4
METRIC = ("CMAQ timing report 'Total Time': sum of the wall times of the 2 simulated days "
          "(CCTM run only, printed by the run script)")
APP_533 = "CMAQ CCTM v5.3.3 (gcc, Open MPI)"
PROBLEM_12US2 = ("CMAQ 2016 12US2 CONUS benchmark (12 km, 3409560 grid cells x layers, 35 layers), "
                 "2 simulated days (2015-12-22..23)")

# curve id -> (path regex at the pinned commit, app, problem, machine, how nodes are known, extra note)
CURVES = {
    "cmaq-12us2-aws-c5n.9xlarge": (
        r"^run_scripts/c5n\.9xlarge_scripts_logs/run_cctmv5\.3\.3_.*\.sharedvol\.log$",
        APP_533, PROBLEM_12US2,
        "AWS ParallelCluster, c5n.9xlarge VMs (18 cores Xeon Platinum 8124M, SMT off, up to 50 Gb/s Ethernet, no EFA), "
        "input on the shared EBS volume, 2022",
        "table:docs/user_guide_pcluster/post/qa/timing_c5n9xlarge.csv",
        "whole VMs (18 ranks per VM)"),
    "cmaq-12us2-aws-c5n.18xlarge-v532": (
        r"^run_scripts/c5n\.18xlarge_scripts_logs/CMAQv5\.3\.2/run_cctmv5\.3\.2_.*\.log$",
        "CMAQ CCTM v5.3.2 (gcc, Open MPI)", PROBLEM_12US2,
        "AWS ParallelCluster, c5n.18xlarge VMs (36 cores Xeon Platinum 8124M, SMT off, 100 Gb/s EFA), 2021",
        "script:run_scripts/c5n.18xlarge_scripts_logs/CMAQv5.3.2/run_cctm_2016_12US2.{p}pe.csh",
        "32 ranks per 36-core VM (#SBATCH --ntasks-per-node=32)"),
    "cmaq-12us2-aws-c5n.18xlarge-v533": (
        r"^run_scripts/(c5n\.18xlarge_scripts_logs/run_cctmv5\.3\.3_.*|hpc6a/logs/run_cctmv5\.3\.3_Bench_2016_12US2\.72\.[89]x[89]pe\.2day\.pcluster)\.log$",
        APP_533, PROBLEM_12US2,
        "AWS ParallelCluster, c5n.18xlarge VMs (36 cores Xeon Platinum 8124M, SMT off, 100 Gb/s EFA), "
        "input on FSx Lustre, 2022",
        "table:docs/user_guide_pcluster/post/qa/timing_c5n18xlarge.csv",
        "runs at one process count differ in domain decomposition (COLROW in notes)"),
    "cmaq-12us2-aws-hpc6a.48xlarge-2022": (
        r"^run_scripts/hpc6a/logs/run_cctmv5\.3\.3_Bench_2016_12US2\.hpc6a\.48xlarge\.\d+\.\d+x96\.\d+x\d+pe\.2day\.pcluster(\.pin)?\.log$",
        APP_533, PROBLEM_12US2,
        "AWS ParallelCluster, hpc6a.48xlarge VMs (96 cores AMD EPYC 7R13, SMT off, 100 Gb/s EFA), "
        "input on FSx Lustre, October 2022",
        "name", "2 runs per process count: with and without process pinning ('.pin' in the log name)"),
    "cmaq-12us2-aws-hpc6a.48xlarge-2023-codemod": (
        r"^run_scripts/hpc6a_shared/run_cctmv5\.3\.3_Bench_2016_12US2\.hpc6a\.48xlarge\.\d+\.\d+x96\.\d+x\d+pe\.2day\.pcluster\.shared\.(pin|nopin)\.codemod(\.ccc)?\.log$",
        "CMAQ CCTM v5.3.3 with the CMAS code modification ('codemod', gcc, Open MPI)", PROBLEM_12US2,
        "AWS ParallelCluster, hpc6a.48xlarge VMs (96 cores AMD EPYC 7R13, SMT off, 100 Gb/s EFA), "
        "input on the shared EBS volume, January 2023",
        "name", "runs at one process count differ in pinning (pin/nopin, '.ccc' rerun)"),
    "cmaq-12us2-azure-hbv3-64ppn": (
        r"^run_scripts/hbv120/run_cctmv5\.3\.3_.*\.log$",
        "CMAQ CCTM v5.3.3 with the CMAS code modification ('codemod', gcc, Open MPI)", PROBLEM_12US2,
        "Azure CycleCloud Slurm cluster, HBv3 VMs (120 cores AMD EPYC 7V73X/7V13, 4 NUMA domains, SMT off, "
        "200 Gb/s HDR InfiniBand), input on Lustre, October 2022",
        "slurm", "64 MPI ranks on each 120-core VM (SLURM_TASKS_PER_NODE=64)"),
    "cmaq-12us2-azure-hbv3-96ppn": (
        r"^run_scripts/hbv120/run_cctmv5\.3\.3_.*\.log$",
        "CMAQ CCTM v5.3.3 with the CMAS code modification ('codemod', gcc, Open MPI)", PROBLEM_12US2,
        "Azure CycleCloud Slurm cluster, HBv3 VMs (120 cores AMD EPYC 7V73X/7V13, 4 NUMA domains, SMT off, "
        "200 Gb/s HDR InfiniBand), input on Lustre, October 2022",
        "slurm", "96 MPI ranks on each 120-core VM (SLURM_TASKS_PER_NODE=96)"),
    "cmaq54-12us1-aws-hpc7g.16xlarge-32ppn": (
        r"^run_scripts/hpc7g\.16xlarge/logs/run_cctm5\.4p_.*\.\dx32\.log$",
        "CMAQ CCTM v5.4+ (gcc, Open MPI)",
        "CMAQ 2018 12US1 benchmark (cb6r5_ae6, 12 km, 4803435 grid cells x layers), 2 simulated days "
        "(2017-12-22..23)",
        "AWS ParallelCluster, hpc7g.16xlarge VMs (64 cores AWS Graviton3E, 200 Gb/s EFA), 2023",
        "name", "32 ranks per 64-core VM"),
}
PPN_CURVE = {"64": "cmaq-12us2-azure-hbv3-64ppn", "96": "cmaq-12us2-azure-hbv3-96ppn"}


def git(*args):
    return subprocess.run(["git", "--git-dir", GITDIR, *args], check=True, capture_output=True).stdout


def show(path):
    return git("show", f"{COMMIT}:{path}").decode("utf-8", "replace")


def report(text, path):
    """Return the timing report of a CMAQ log as a dict, or a reason why it is not a full run."""
    m = re.search(r"CMAQ TIMING REPORT.*?Number of Simulation Days:\s*(\d+).*?Number of Processes:\s*(\d+)"
                  r".*?Num\s+Day\s+Wall Time\s*\n(.*?)Total Time =\s*([\d.]+)", text, re.S)
    if not m:
        return "no CMAQ timing report (run did not finish)"
    days = re.findall(r"^\s*\d+\s+(\d{4}-\d\d-\d\d)\s+([\d.]+)\s*$", m.group(3), re.M)
    if int(m.group(1)) != 2 or len(days) != 2:
        return f"{m.group(1)} simulated day(s), the benchmark has 2"
    walls = [float(t) for _, t in days]
    if min(walls) < 0.5 * max(walls):
        return f"day wall times {walls[0]} and {walls[1]} s: one day did not run through"
    out = {"processes": int(m.group(2)), "total": m.group(4), "days": days}
    for key, pat in (("exec_id", r"CMAQ EXECUTION ID:\s*(\S+)"), ("start", r"Start Model Run At\s+(.+)"),
                     ("model", r"^Model name:\s*(.+)$"), ("cores_socket", r"^Core\(s\) per socket:\s*(\d+)"),
                     ("sockets", r"^Socket\(s\):\s*(\d+)"), ("threads", r"^Thread\(s\) per core:\s*(\d+)"),
                     ("slurm_nodes", r"^SLURM_JOB_NUM_NODES=(\d+)"),
                     ("slurm_ppn", r"^SLURM_TASKS_PER_NODE=(\d+)")):
        hit = re.search(pat, text, re.M)
        out[key] = hit.group(1).strip() if hit else ""
    colrow = re.search(r"\.(\d+x\d+)pe\.", path)
    out["colrow"] = colrow.group(1) if colrow else ""
    return out


def table_nodes(table_path):
    """(CPUs, total time) -> nodes, from one of the author's tab-separated timing tables."""
    rows = csv.DictReader(io.StringIO(show(table_path)), delimiter="\t")
    found = {}
    for row in rows:
        nodes_x = (row.get("NodesxCPU") or "").strip()
        if not re.fullmatch(r"\d+x\d+", nodes_x):
            continue
        total = float(row["TotalTime"])
        found[(int(row["CPUs"]), f"{total:.2f}")] = int(nodes_x.split("x")[0])
    return found


def nodes_of(how, path, rep, tables):
    if how == "slurm":
        return int(rep["slurm_nodes"]), "nodes: SLURM_JOB_NUM_NODES in the log"
    if how == "name":
        m = re.search(r"\.(\d+)x(\d+)\.", path.replace("start.", "."))
        if not m or int(m.group(1)) * int(m.group(2)) != rep["processes"]:
            raise SystemExit(f"{path}: no <nodes>x<ranks> token matching {rep['processes']} processes")
        return int(m.group(1)), f"nodes: '{m.group(0).strip('.')}' in the log name"
    if how.startswith("script:"):
        script = how[len("script:"):].format(p=rep["processes"])
        text = show(script)
        n = int(re.search(r"#SBATCH --nodes=(\d+)", text).group(1))
        ppn = int(re.search(r"#SBATCH --ntasks-per-node=(\d+)", text).group(1))
        if n * ppn != rep["processes"]:
            raise SystemExit(f"{script}: {n} x {ppn} != {rep['processes']}")
        return n, f"nodes: #SBATCH --nodes={n} --ntasks-per-node={ppn} in {script}"
    if how.startswith("table:"):
        table = how[len("table:"):]
        if table not in tables:
            tables[table] = table_nodes(table)
        key = (rep["processes"], f"{float(rep['total']):.2f}")
        if key not in tables[table]:
            raise SystemExit(f"{path}: {key} not in {table}")
        return tables[table][key], f"nodes: NodesxCPU of {table}"
    raise ValueError(how)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    paths = [p for p in git("ls-tree", "-r", "--name-only", COMMIT, "run_scripts").decode().splitlines()
             if p.endswith(".log")]
    rows, seen, tables = [], {}, {}
    for curve_id, (pattern, app, problem, machine, how, note) in CURVES.items():
        for path in sorted(p for p in paths if re.match(pattern, p)):
            rep = report(show(path), path)
            if isinstance(rep, str):
                print(f"skipped {path}: {rep}", file=sys.stderr)
                continue
            if how == "slurm" and PPN_CURVE.get(rep["slurm_ppn"]) != curve_id:
                continue
            if rep["exec_id"] in seen:
                print(f"skipped {path}: same CMAQ execution id as {seen[rep['exec_id']]}", file=sys.stderr)
                continue
            seen[rep["exec_id"]] = path
            nodes, nodes_note = nodes_of(how, path, rep, tables)
            cores = int(rep["cores_socket"]) * int(rep["sockets"])
            days = "; ".join(f"day {d} {t} s" for d, t in rep["days"])
            notes = (f"{note}; {nodes_note}; lscpu: {rep['model'] or 'model not printed'}, "
                     f"{rep['sockets']} socket(s) x {rep['cores_socket']} cores, {rep['threads']} thread(s) per core; "
                     f"decomposition COLROW {rep['colrow']}; {days}; started {rep['start']}; "
                     f"CMAQ execution id {rep['exec_id']}")
            rows.append({"curve_id": curve_id, "source_repo": REPO, "commit": COMMIT, "path": path, "app": app,
                         "machine": machine, "problem": problem, "unit": "processes", "n": rep["processes"],
                         "run": None, "time_s": rep["total"], "metric": METRIC, "notes": notes,
                         "processes": rep["processes"], "nodes": nodes, "cores_per_node": cores,
                         "gpus_per_node": ""})
    keep = []
    for curve_id in CURVES:
        curve = [r for r in rows if r["curve_id"] == curve_id]
        distinct = sorted({r["n"] for r in curve})
        if len(distinct) < MIN_DISTINCT_N:
            print(f"dropped curve {curve_id}: only n = {distinct}", file=sys.stderr)
            continue
        curve.sort(key=lambda r: (r["n"], r["path"]))
        counter = {}
        for r in curve:
            r["run"] = counter.get(r["n"], 0)
            counter[r["n"]] = r["run"] + 1
        keep += curve
    with open(os.path.join(args.out, "curves.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(keep)
    print(f"wrote {len(keep)} rows, {len({r['curve_id'] for r in keep})} curves", file=sys.stderr)


if __name__ == "__main__":
    main()
