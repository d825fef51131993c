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


if __name__ == "__main__":
    for fmt, path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "generated-profiles")).items():
        print(fmt, path)
