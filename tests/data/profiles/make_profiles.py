"""Write the small *generated* call-path profiles the tests read (no upstream file is copied).

Labelled synthetic data: a made-up application ``demo`` with regions ``main``,
``main->solve``, ``main->solve->MPI_Allreduce`` and ``main->io`` whose times follow known
laws of the process count p (``solve`` shrinks like 1/p, ``MPI_Allreduce`` grows like
log2 p, ``io`` is constant), written in every format :func:`workbench.io.read_profiles`
reads: Caliper ``.cali`` (text records), Score-P ``.cubex`` (tar of ``anchor.xml`` and
``CUBEX.INDEX``/``CUBEX.DATA`` files, the layout pycubexr reads), Extra-P text (indented
regions), Extra-P JSON (both layouts), Extra-P JSON Lines and cali-query JSON.

Run ``python tests/data/profiles/make_profiles.py OUT_DIR``; the tests call
:func:`write_all` into a temporary folder.
"""

from __future__ import annotations

import io
import json
import math
import struct
import sys
import tarfile
from pathlib import Path

PROCESSES = (2, 4, 8, 16, 32)
REPEATS = 2
#: region -> exclusive time (s) as a function of p and the repetition (a small fixed jitter)
LAWS = {
    "main": lambda p: 0.5,
    "main->solve": lambda p: 64.0 / p,
    "main->solve->MPI_Allreduce": lambda p: 0.2 * math.log2(p),
    "main->io": lambda p: 1.0,
}
JITTER = (1.0, 1.02)


def exclusive(region: str, p: int, rep: int) -> float:
    return LAWS[region](p) * JITTER[rep]


def inclusive(region: str, p: int, rep: int) -> float:
    return sum(exclusive(r, p, rep) for r in LAWS if r == region or r.startswith(region + "->"))


def rank_times(region: str, p: int, rep: int, kind: str = "inclusive") -> list[float]:
    """Per-rank times: rank r takes (1 + 0.01 r / p) times the base value (max on the last rank)."""
    base = inclusive(region, p, rep) if kind == "inclusive" else exclusive(region, p, rep)
    return [base * (1 + 0.01 * r / p) for r in range(p)]


# ----------------------------------------------------------------------------- Caliper

def cali_text(p: int, rep: int) -> str:
    """A Caliper .cali (spot layout: min/avg/max over ranks of inclusive time, adiak globals)."""
    lines = [
        "__rec=node,id=12,attr=10,data=268,parent=3",
        "__rec=node,id=13,attr=8,data=region,parent=12",
        "__rec=node,id=14,attr=10,data=64,parent=3",
        "__rec=node,id=15,attr=8,data=attribute.unit,parent=14",
    ]
    ids = {}
    for k, agg in enumerate(("min", "avg", "max")):
        lines += [f"__rec=node,id={20 + 2 * k},attr=15,data=sec,parent=5",
                  f"__rec=node,id={21 + 2 * k},attr=10,data=65,parent={20 + 2 * k}",
                  f"__rec=node,id={30 + k},attr=8,data={agg}#inclusive#sum#time.duration,parent={21 + 2 * k}"]
        ids[agg] = 30 + k
    lines += ["__rec=node,id=40,attr=10,data=1612,parent=2", "__rec=node,id=41,attr=8,data=jobsize,parent=40",
              "__rec=node,id=42,attr=10,data=1612,parent=2", "__rec=node,id=43,attr=8,data=problem_size,parent=42",
              "__rec=node,id=44,attr=10,data=1612,parent=3", "__rec=node,id=45,attr=8,data=cluster,parent=44",
              "__rec=node,id=46,attr=10,data=1612,parent=2", "__rec=node,id=47,attr=8,data=launchdate,parent=46"]
    node = 100
    region_node = {}
    for region in LAWS:
        parts = region.split("->")
        parent = region_node.get("->".join(parts[:-1]))
        lines.append(f"__rec=node,id={node},attr=13,data={parts[-1]}" + (f",parent={parent}" if parent else ""))
        region_node[region] = node
        node += 1
    for region in LAWS:
        times = rank_times(region, p, rep)
        values = (min(times), sum(times) / len(times), max(times))
        lines.append(f"__rec=ctx,ref={region_node[region]},attr={ids['min']}={ids['avg']}={ids['max']},"
                     f"data={values[0]:.9g}={values[1]:.9g}={values[2]:.9g}")
    lines += [f"__rec=node,id=200,attr=41,data={p}", "__rec=node,id=201,attr=43,data=30,parent=200",
              "__rec=node,id=202,attr=45,data=demo-cluster,parent=201",
              f"__rec=node,id=203,attr=47,data={1700000000 + 100 * p + rep},parent=202",
              "__rec=globals,ref=203"]
    return "\n".join(lines) + "\n"


def cali_query_json(p: int, rep: int) -> str:
    """cali-query ``format json(object)``: records with a '/'-joined path, and globals."""
    records = []
    for region in LAWS:
        times = rank_times(region, p, rep)
        records.append({"path": region.replace("->", "/"), "max#inclusive#sum#time.duration": max(times),
                        "avg#inclusive#sum#time.duration": sum(times) / len(times)})
    return json.dumps({"records": records, "globals": {"jobsize": p, "problem_size": 30}})


# ----------------------------------------------------------------------------- Cube

def _anchor(p: int) -> bytes:
    metrics = ('<metric id="0" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name>'
               '<dtype>DOUBLE</dtype><uom>sec</uom><url></url><descr>Total CPU allocation time</descr></metric>')
    regions, cnodes = [], []
    names = {}
    for region in LAWS:
        name = region.split("->")[-1]
        if name not in names:
            names[name] = len(names)
            regions.append(f'<region id="{names[name]}" mod="demo.c" begin="1" end="-1"><name>{name}</name>'
                           '<url></url><descr>user</descr></region>')

    def tree(prefix: str, cid: list[int]) -> str:
        out = ""
        for region in LAWS:
            parts = region.split("->")
            if "->".join(parts[:-1]) == prefix:
                out += f'<cnode id="{cid[0]}" calleeId="{names[parts[-1]]}">'
                cid[0] += 1
                out += tree(region, cid) + "</cnode>"
        return out

    cnodes = tree("", [0])
    ranks = "".join(f'<locationgroup Id="{r}"><name>rank {r}</name><rank>{r}</rank><type>process</type>'
                    f'<location Id="{r}"><name>Master thread</name><rank>0</rank><type>thread</type></location>'
                    "</locationgroup>" for r in range(p))
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.3">'
           '<attr key="Creator" value="workbench test generator"/><attr key="CUBE_CT_AGGR" value="SUM"/>'
           f"<metrics>{metrics}</metrics><program>{''.join(regions)}{cnodes}</program>"
           '<system><systemtreenode Id="0"><name>machine demo</name><class>machine</class>'
           f'<systemtreenode Id="1"><name>node 0</name><class>node</class>{ranks}</systemtreenode>'
           "</systemtreenode><topologies></topologies></system></cube>")
    return xml.encode()


def cube_bytes(p: int, rep: int) -> bytes:
    """A Score-P Cube profile with one inclusive time metric, p ranks of one thread each."""
    # cnode ids are numbered depth first (as _anchor writes them); the values of an INCLUSIVE
    # metric are stored in Cube's "wide" order: a node's children listed together when the
    # node is visited, the nodes visited depth first
    def children(prefix):
        return [r for r in LAWS if "->".join(r.split("->")[:-1]) == prefix]

    depth_first, wide = [], []

    def walk(prefix):
        for region in children(prefix):
            depth_first.append(region)
            walk(region)

    def walk_wide(region):
        kids = children(region)
        wide.extend(kids)
        for kid in kids:
            walk_wide(kid)

    walk("")
    for root in children(""):
        wide.append(root)
        walk_wide(root)
    assert sorted(depth_first) == sorted(wide) == sorted(LAWS)
    index = b"CUBEX.INDEX" + struct.pack("<ihbi", 1, 0, 0, len(wide)) + struct.pack(f"<{len(wide)}i", *range(len(wide)))
    values = [v for region in wide for v in rank_times(region, p, rep)]
    data = b"CUBEX.DATA" + struct.pack(f"<{len(values)}d", *values)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, payload in (("anchor.xml", _anchor(p)), ("0.index", index), ("0.data", data)):
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            info.mtime = 0
            archive.addfile(info, io.BytesIO(payload))
    return buffer.getvalue()


# ----------------------------------------------------------------------------- Extra-P

def extrap_text() -> str:
    """Extra-P text with indented regions (inclusive max-rank time), parameters p and size."""
    lines = ["PARAMETER p", "PARAMETER size", ""]
    lines += [f"POINTS ( {p} 30 )" for p in PROCESSES]
    lines += ["", "METRIC time"]
    for region in LAWS:
        depth = region.count("->")
        lines.append("REGION " + "  " * depth + region.split("->")[-1])
        for p in PROCESSES:
            lines.append("DATA " + " ".join(f"{max(rank_times(region, p, r)):.9g}" for r in range(REPEATS)))
    return "\n".join(lines) + "\n"


def extrap_json() -> str:
    """Extra-P's JSON layout with "parameters" and "measurements"."""
    measurements = {region: {"time": [{"point": [p], "values": [max(rank_times(region, p, r))
                                                                 for r in range(REPEATS)]}
                                      for p in PROCESSES]} for region in LAWS}
    return json.dumps({"parameters": ["p"], "measurements": measurements}, indent=1)


def extrap_json_legacy() -> str:
    """Extra-P's older JSON layout (ids for parameters, call paths, metrics, coordinates)."""
    regions = list(LAWS)
    data = {"parameters": [{"id": 1, "name": "p"}],
            "callpaths": [{"id": i + 1, "name": r} for i, r in enumerate(regions)],
            "metrics": [{"id": 1, "name": "time"}],
            "coordinates": [{"id": k + 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": p}]}
                            for k, p in enumerate(PROCESSES)],
            "measurements": [{"coordinate_id": k + 1, "callpath_id": i + 1, "metric_id": 1,
                              "value": max(rank_times(r, p, rep))}
                             for i, r in enumerate(regions) for k, p in enumerate(PROCESSES)
                             for rep in range(REPEATS)]}
    return json.dumps(data)


def extrap_jsonl() -> str:
    """Extra-P JSON Lines (one value per line; repeated keys are repetitions)."""
    return "\n".join(json.dumps({"params": {"p": p}, "callpath": r, "metric": "time",
                                 "value": max(rank_times(r, p, rep))})
                     for r in LAWS for p in PROCESSES for rep in range(REPEATS)) + "\n"


def write_all(out: Path) -> dict[str, Path]:
    """Write every fixture under ``out``; return {format: file or folder}."""
    out = Path(out)
    paths = {}
    cali = out / "cali"
    cube = out / "cube"
    cali.mkdir(parents=True, exist_ok=True)
    for p in PROCESSES:
        for rep in range(REPEATS):
            (cali / f"demo-p{p}-r{rep}.cali").write_text(cali_text(p, rep))
            folder = cube / f"demo.p{p}.r{rep + 1}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "profile.cubex").write_bytes(cube_bytes(p, rep))
            (folder / "scorep.cfg").write_text("SCOREP_ENABLE_PROFILING=true\n")  # not a profile: skipped
    paths["caliper"], paths["cube"] = cali, cube
    (out / "query-p8.json").write_text(cali_query_json(8, 0))
    paths["cali-json"] = out / "query-p8.json"
    for name, text in (("extrap.txt", extrap_text()), ("extrap.json", extrap_json()),
                       ("extrap-legacy.json", extrap_json_legacy()), ("extrap.jsonl", extrap_jsonl())):
        (out / name).write_text(text)
    paths.update({"extrap-text": out / "extrap.txt", "extrap-json": out / "extrap.json",
                  "extrap-json-legacy": out / "extrap-legacy.json", "extrap-jsonl": out / "extrap.jsonl"})
    return paths


# ----------------------------------------------------------------------------- GPTL and phiprof

#: calls per rank of each region (the timers' counts)
CALLS = {"main": 1, "main->solve": 10, "main->solve->MPI_Allreduce": 100, "main->io": 2}
#: regions timed inside OpenMP regions with 2 threads per process (GPTL counts each thread)
THREADED = {"main->solve"}


def _leaf(region: str) -> str:
    return region.split("->")[-1]


def gptl_summary(p: int, rep: int) -> str:
    """CIME/E3SM ``model_timing_stats`` (GPTLpr_summary_file after perf_mod's GLOBAL STATISTICS line)."""
    width = max(len(_leaf(r)) for r in LAWS)
    lines = ["", f"***** GLOBAL STATISTICS ({p:6d} MPI TASKS) *****", "",
             "$Id: gptl.c,v 1.157 2011-03-28 20:55:18 rosinski Exp $",
             "'count' is cumulative. All other stats are max/min",
             "'on' indicates whether the timer was active during output, and so stats are lower or upper bounds.", "",
             "name" + " " * (width + 2 - 4) + " on  processes  threads        count"
             "      walltotal   wallmax (proc   thrd  )   wallmin (proc   thrd  )"]
    for region in LAWS:
        times = rank_times(region, p, rep)
        threads = 2 if region in THREADED else 1
        total = sum(times) * threads  # every thread of a rank takes the rank's time
        lines.append(f'"{_leaf(region)}"' + " " * (width - len(_leaf(region))) + "  - "
                     + f"  {p:8d} {p * threads:8d} {float(CALLS[region] * p * threads):12.6e} "
                     + f"  {total:12.6e} {max(times):9.3f} ({p - 1:6d} {0:6d}) {min(times):9.3f} ({0:6d} {0:6d})")
    return "\n".join(lines) + "\n\n"


def gptl_summary_v8(p: int, rep: int) -> str:
    """GPTL 8's ``timing.summary`` (pr_summary.c, threaded: rank and thread of the extremes)."""
    width = max(len(_leaf(r)) for r in LAWS)
    lines = ["GPTL version info: 8.1.1", f"Total ranks in communicator={p}", "nthreads on rank 0=2",
             "'N' used for mean, std. dev. calcs.: 'ncalls'/'nthreads'",
             "'ncalls': number of times the region was invoked across tasks and threads.",
             "'nranks': number of ranks which invoked the region.",
             "mean, std. dev: computed using per-rank max time across all threads on each rank",
             "wallmax and wallmin: max, min time across tasks and threads.", "",
             "name" + " " * (width - 4) + "   ncalls nranks mean_time   std_dev   wallmax (rank  thread)   "
             "wallmin (rank  thread)"]
    for region in LAWS:
        times = rank_times(region, p, rep)
        mean = sum(times) / p
        std = math.sqrt(sum((t - mean) ** 2 for t in times) / (p - 1))
        calls = CALLS[region] * p * (2 if region in THREADED else 1)
        lines.append(_leaf(region) + " " * (width - len(_leaf(region)))
                     + f" {calls:8d} {p:6d} {mean:9.3f} {std:9.3f} {max(times):9.3f} ({p - 1:6d} {0:5d}) "
                     + f"{min(times):9.3f} ({0:6d} {0:5d})")
    return "\n".join(lines) + "\n"


def gptl_rank(p: int, rep: int, rank: int) -> str:
    """CIME's per-rank ``model_timing.NNNN`` (GPTLpr_file: preamble, thread 0's and 1's call trees)."""
    width = max(len(_leaf(r)) for r in LAWS)
    depth = max(r.count("->") for r in LAWS)
    lines = ["$Id: gptl.c,v 1.157 2011-03-28 20:55:18 rosinski Exp $", "GPTL was built with THREADED_OMP",
             "HAVE_MPI was true", "  HAVE_COMM_F2C was true", "  ENABLE_PMPI was false", "HAVE_PAPI was false",
             "Underlying timing routine was gettimeofday.", "Per-call utr overhead est: 2.4e-08 sec.",
             "If overhead stats are printed, roughly half the estimated number is",
             "embedded in the wallclock stats for each timer.",
             "If a '%_of' field is present, it is w.r.t. the first timer for thread 0.",
             "If a 'e6_per_sec' field is present, it is in millions of PAPI counts per sec.", "",
             "A '*' in column 1 below means the timer had multiple parents, though the",
             "values printed are for all calls.",
             "Further down the listing may be more detailed information about multiple",
             "parents. Look for 'Multiple parent info'", ""]
    for thread in (0, 1):
        if thread:
            lines.append("")
        lines.append(f"Stats for thread {thread}:")
        lines.append("  " * (depth + 1) + " " * (width + 2) + " On  Called Recurse"
                     + "   Wallclock          max          min" + "     UTR Overhead ")
        for region in LAWS:
            if thread and region not in THREADED:
                continue
            d = region.count("->") if not thread else 0
            wall = rank_times(region, p, rep)[rank]
            calls = CALLS[region]
            lines.append("  " + "  " * d + f'"{_leaf(region)}"' + " " * (width - len(_leaf(region)))
                         + "  " * (depth - d) + "  -" + f"{calls:8d}    -   "
                         + f"{wall:12.6f} {wall / calls:12.6f} {wall / calls * 0.9:12.6f} "
                         + f"{calls * 2 * 2.4e-08:16.6f} ")
        lines.append("")
        lines.append("Overhead sum =   1.2e-05 wallclock seconds")
        lines.append("Total calls  = 113")
    return "\n".join(lines) + "\n"


class _Table:
    """phiprof 2's PrettyPrintTable (cells with spans, a title, horizontal rules), as it prints."""

    def __init__(self, title: str):
        self.title, self.rows = title, [[]]

    def rule(self):
        self.rows += [[("---", 1)], []]

    def cell(self, text, span=1, indent=0):
        text = f"{text:.4g}" if isinstance(text, float) else str(text)
        self.rows[-1].append((" " * (2 * indent) + text, span))

    def row(self):
        self.rows.append([])

    def text(self, delimiter=" | ") -> str:
        n = max(sum(s for _, s in r) for r in self.rows)
        widths = [0] * n
        for r in self.rows:
            at = 0
            for text, span in r:
                if span == 1:
                    widths[at] = max(widths[at], len(text))
                at += span
        for r in self.rows:
            at = 0
            for text, span in r:
                if span > 1:
                    have = (span - 1) * len(delimiter) + sum(widths[at:at + span])
                    if have < len(text):
                        for col in range(at, at + span):
                            widths[col] += (len(text) - have) // span + (col - at < (len(text) - have) % span)
                at += span
        total = len(delimiter) + sum(w + len(delimiter) for w in widths)
        out = "\n" + self.title.rjust((total + len(self.title)) // 2) + "\n" if self.title else ""
        for r in self.rows:
            if not r:
                continue
            if r == [("---", 1)]:
                out += "-" * total + "\n"
                continue
            line, at = delimiter, 0
            for text, span in r:
                width = sum(widths[at:at + span]) + (span - 1) * len(delimiter)
                if span > 1:
                    pad = (width - len(text)) // 2
                    line += " " * pad + text.ljust(width - pad)
                else:
                    line += text.ljust(width)
                line += delimiter
                at += span
            for col in range(at, n):
                line += " " * widths[col] + delimiter
            out += line + "\n"
        return out


def _phiprof_stats(p: int, rep: int):
    """Per region: level, group, avg, parent share %, max (rank), min (rank), calls."""
    out = {}
    for region in LAWS:
        times = rank_times(region, p, rep)
        parent = "->".join(region.split("->")[:-1])
        base = sum(rank_times(parent, p, rep)) / p if parent else sum(times) / p
        out[region] = dict(level=region.count("->") + 1, group="A" if "MPI" in region else "",
                           avg=sum(times) / p, share=100 * sum(times) / p / base, max=max(times), max_rank=p - 1,
                           min=min(times), min_rank=0, calls=float(CALLS[region]))
    return out


def phiprof_text(p: int, rep: int, prints=("groups", "compact", "detailed")) -> str:
    """A phiprof 2 report ``phiprof_0.txt`` (PHIPROF_PRINTS=groups,compact,detailed by default)."""
    stats = _phiprof_stats(p, rep)
    out = ""
    for what in prints:
        if what == "groups":
            table = _Table("Groups")
            table.rule()
            table.cell("", 2), table.cell("Time (s)", 6), table.row(), table.rule()
            for title in ("Group", "Name", "Avg", "% of total", "Max time,rank", "Min time,rank"):
                table.cell(title, 2 if "," in title else 1)
            table.row(), table.rule()
            s = stats["main->solve->MPI_Allreduce"]
            for cell in ("A", "MPI", s["avg"], 100 * s["avg"] / stats["main"]["avg"], s["max"], s["max_rank"],
                         s["min"], s["min_rank"]):
                table.cell(cell)
            table.row(), table.rule()
        elif what == "compact":
            table = _Table(f"Timers with more than 1% of total time. Set of identical timers has {p} processes "
                           "with up to 1 threads each.")
            table.rule()
            for title, span in (("", 4), ("Count", 1), ("Process time", 3), ("Thread imbalances", 3),
                                ("Workunits", 1)):
                table.cell(title, span)
            table.row(), table.rule()
            for title in ("Id", "Lvl", "Grp", "Name", "Avg", "Avg (s)", "Time %", "Imb %", "No", "Avg %", "Max %",
                          "Avg"):
                table.cell(title)
            table.row(), table.rule()
            for k, region in enumerate(LAWS, start=1):
                s = stats[region]
                imbalance = 100 * (s["max"] - s["avg"]) / s["max"] * (p / (p - 1))
                for cell in (k, s["level"], s["group"]):
                    table.cell(cell)
                table.cell(_leaf(region), 1, s["level"] - 1)
                for cell in (s["calls"], s["avg"], s["share"], imbalance, 1.0, "", ""):
                    table.cell(cell)
                table.row()
                if region == "main->io":  # main's time outside solve and io: phiprof's "Other" row
                    other = stats["main"]["avg"] - stats["main->solve"]["avg"] - s["avg"]
                    for cell in ("", 2, ""):
                        table.cell(cell)
                    table.cell("Other", 1, 1)
                    for cell in (0.0, other, 100 * other / stats["main"]["avg"], 0.0, 1.0, "", ""):
                        table.cell(cell)
                    table.row()
            table.rule()
        else:
            table = _Table(f"All timers. Set of identical timers has {p} processes with up to 1 threads each.")
            table.rule()
            for title, span in (("", 4), ("Threads", 1), ("Time (s)", 6), ("Calls", 1), ("Workunit-rate", 3)):
                table.cell(title, span)
            table.row(), table.rule()
            for title in ("Id", "Lvl", "Grp", "Label", "Avg", "Avg", "%", "Max time,rank", "Min time,rank", "Avg",
                          "Total", "Per process", "Unit"):
                table.cell(title, 2 if "," in title else 1)
            table.row(), table.rule()
            for k, region in enumerate(LAWS, start=1):
                s = stats[region]
                for cell in (k, s["level"], s["group"]):
                    table.cell(cell)
                table.cell(_leaf(region), 1, s["level"] - 1)
                for cell in (1.0, s["avg"], s["share"], s["max"], s["max_rank"], s["min"], s["min_rank"], s["calls"]):
                    table.cell(cell)
                table.row()
            table.rule()
        out += table.text()
    return out


def phiprof_v1_text(p: int, rep: int) -> str:
    """A phiprof 1 report (fixed-width columns; C++ streams left-aligned, 5 significant digits)."""
    stats = _phiprof_stats(p, rep)
    group_width = 6
    label_width = max(len(_leaf(r)) + 2 * r.count("->") for r in LAWS)
    total = 6 + group_width + 1 + label_width + 1 + 2 + 11 * 7 + 6 * 2 + 10

    def g(x):
        return f"{x:.5g}"

    lines = ["-" * total, "Phiprof results with time fraction of total time larger than 0",
             f"Processes in set of timers {p} with (up to) 1 threads ", "Timer resolution is 1e-09", "-" * total,
             " " * (6 + group_width + 1 + label_width + 1) + "Threads".ljust(11) + "Time(s)".ljust(11 * 4 + 12)
             + "Calls".ljust(11) + "Workunit-rate".ljust(22),
             "Level".ljust(6) + "Groups".ljust(group_width + 1) + "Label".ljust(label_width + 1)
             + "".join(t.ljust(w) for t, w in (("Average", 11), ("Average", 11), ("parent %", 11), ("Maximum", 11),
                                               ("Rank", 6), ("Minimum", 11), ("Rank", 6), ("Average", 11),
                                               ("Average", 11), ("Per process", 11))),
             "-" * (total // 2 - 5) + " Profile " + "-" * (total // 2 - 5)]
    for region in LAWS:
        s = stats[region]
        indent = 2 * (s["level"] - 1)
        lines.append(str(s["level"]).ljust(6) + s["group"].ljust(group_width + 1) + " " * indent
                     + _leaf(region).ljust(label_width + 1 - indent) + g(1.0).ljust(12) + g(s["avg"]).ljust(11)
                     + g(s["share"]).ljust(11) + g(s["max"]).ljust(11) + str(s["max_rank"]).ljust(6)
                     + g(s["min"]).ljust(11) + str(s["min_rank"]).ljust(6) + g(s["calls"]).ljust(11))
    s = stats["main->solve->MPI_Allreduce"]
    lines += ["-" * (total // 2 - 4) + " Groups " + "-" * (total // 2 - 3),
              " " * 6 + "A".ljust(group_width + 1) + "MPI".ljust(label_width + 1) + " " * 11 + g(s["avg"]).ljust(11)
              + g(10.0).ljust(11) + g(s["max"]).ljust(11) + str(s["max_rank"]).ljust(6) + g(s["min"]).ljust(11)
              + str(s["min_rank"]).ljust(6), "-" * total]
    return "\n".join(lines) + "\n"


def tar_bytes(members: list[tuple[str, bytes]], compress: bool = False, symlink: str | None = None) -> bytes:
    """A tar archive (gzip-compressed with ``compress``) of ``members``, plus a symbolic link
    ``symlink`` to /etc/passwd when given (E3SM keeps a run's timing folder as a tar archive)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if compress else "w") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        if symlink:
            info = tarfile.TarInfo(symlink)
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            archive.addfile(info)
    return buffer.getvalue()


def write_timers(out: Path) -> dict[str, Path]:
    """Write the GPTL and phiprof fixtures under ``out``; return {name: file or folder}.

    One folder per report kind with a run per process count and repetition: ``gptl`` (CIME
    summaries, named as CIME names them), ``gptl-v8`` (GPTL 8 summaries), ``gptl-rank``
    (per-rank files of one run at p=4), ``phiprof`` (phiprof 2), ``phiprof-v1``.
    """
    out = Path(out)
    folders = {k: out / k for k in ("gptl", "gptl-v8", "gptl-rank", "phiprof", "phiprof-v1")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    for p in PROCESSES:
        for rep in range(REPEATS):
            run = folders["gptl"] / f"run-p{p}-r{rep}" / "timing"
            run.mkdir(parents=True, exist_ok=True)
            (run / "model_timing_stats").write_text(gptl_summary(p, rep))
            (folders["gptl-v8"] / f"timing-p{p}-r{rep}.summary").write_text(gptl_summary_v8(p, rep))
            (folders["phiprof"] / f"p{p}-r{rep}").mkdir(exist_ok=True)
            (folders["phiprof"] / f"p{p}-r{rep}" / "phiprof_0.txt").write_text(phiprof_text(p, rep))
            (folders["phiprof-v1"] / f"phiprof-p{p}-r{rep}.txt").write_text(phiprof_v1_text(p, rep))
    for rank in range(4):
        (folders["gptl-rank"] / f"model_timing.{rank:04d}").write_text(gptl_rank(4, 0, rank))
    return folders


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "generated-profiles")
    for fmt, path in {**write_all(target), **write_timers(target / "timers")}.items():
        print(fmt, path)
