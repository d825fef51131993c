"""Per region, on Extra-P's own test data: does our PMNF search choose Extra-P's hypothesis?

Issue 24's goal: "on Extra-P's test data, the per-region models choose the same hypotheses as
Extra-P where ours run the same PMNF search".  For every single-parameter experiment of
Extra-P's test data (``tests/data`` of ``extra-p/extrap``, read from the fetched mirror at
``/work/.mirror/extra-p+extrap``: text, JSON, JSON Lines and Cube files), our reader
(:func:`workbench.io.read_profiles`) makes the profile table; every (region, metric, kind,
aggregation) with at least 3 distinct parameter values is one curve.  Both searches then see
the same measurements:

* ours - :class:`workbench.models.pmnf.PMNF` with ``strong_scaling=False`` (the values as
  they are: Extra-P's default modeler does not convert them) and its defaults, which are
  Extra-P's: the 42 default hypotheses, no negative exponents, repetitions reduced by the
  mean, leave-one-out SMAPE;
* Extra-P 4.2.5's ``SingleParameterModeler`` (its default), run in its own venv by the worker
  of ``bench/extrap_compare.py`` (Extra-P pins numpy < 2: never in the project's venv).

A second check puts the readers in the loop: for the text, JSON and JSON Lines files, Extra-P
reads each file itself and models every (callpath, metric) with the same default modeler
(``--worker-read``); its hypotheses are matched by region and metric name with ours (our
reader, our search).

Reported: curves, hypotheses the same ``(i, j)``, and every curve where they differ or where one
side fits no model (ours refuses non-positive values: Extra-P's test data has negative ones on
purpose).  Curves with identical measurements under several region names (Extra-P's test
files repeat them) are counted once per file.  Cube profiles: the ``sum`` over locations,
Extra-P's Cube convention; Cube's ``min``/``avg``/``max`` are left out (the same search on other
numbers).  The search space is the same only for one parameter: multi-parameter experiments
are skipped (listed).

Run::

    .venv/bin/python bench/extrap_regions_compare.py   # -> bench/results/extrap_regions_compare.md

Not part of any test run; the report holds derived numbers and names, no measurements.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tools"))
import git_mirror  # noqa: E402

MIRROR = Path("/work/.mirror/extra-p+extrap/repo")
DEFAULT_EXTRAP_PYTHON = "/tmp/extrap-venv/bin/python"
# data files of tests/data that are not experiments
_NOT_EXPERIMENTS = ("mpi_data.csv", "synthetic-data.py")


def _extract(git: Path, out: Path) -> list[Path]:
    """Write the files of ``tests/data`` at HEAD of the mirror under ``out``; return the experiments."""
    names = git_mirror.extract(git, "tests/data", out)
    files = [out / n for n in names if not n.endswith(_NOT_EXPERIMENTS) and "/cubeset/" not in n]
    # a Cube experiment is a folder of profiles (one per parameter value)
    cube_sets = sorted({(out / n).parent.parent for n in names if "/cubeset/" in n and n.endswith(".cubex")})
    return sorted(files) + cube_sets


def worker_read() -> None:
    """Extra-P reads each file of the job list (stdin, JSON) and models it: (callpath, metric) -> (i, j)."""
    import warnings

    from extrap.fileio.file_reader.json_file_reader import JsonFileReader
    from extrap.fileio.file_reader.text_file_reader import TextFileReader
    from extrap.modelers.model_generator import ModelGenerator

    out = {}
    for path in json.load(sys.stdin):
        reader = TextFileReader() if path.lower().endswith(".txt") else JsonFileReader()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                experiment = reader.read_experiment(path)
                generator = ModelGenerator(experiment)
                generator.model_all()
        except Exception as error:  # noqa: BLE001 - reported per file, as Extra-P's reason
            out[path] = {"error": f"{type(error).__name__}: {str(error)[:100]}"}
            continue
        models = {}
        for (callpath, metric), model in generator.models.items():
            i = j = 0.0
            terms = getattr(model.hypothesis.function, "compound_terms", [])
            if terms:
                for simple in terms[0].simple_terms:
                    if simple.term_type == "polynomial":
                        i = float(simple.exponent)
                    else:
                        j = float(simple.exponent)
            models[f"{callpath.name}|{metric.name}"] = [i, j]
        out[path] = {"models": models}
    json.dump(out, sys.stdout)


def _curves(table, source: str) -> tuple[list[dict], str]:
    """The table's single-parameter curves (one dict each), or none and why."""
    import pandas as pd

    from workbench.io.callpath import PROFILE_TABLE_COLUMNS

    params = [c for c in table.columns if c not in PROFILE_TABLE_COLUMNS]
    numeric = {c: pd.to_numeric(table[c], errors="coerce") for c in params}
    varying = [c for c in params if numeric[c].notna().all() and numeric[c].nunique() > 1]
    if len(varying) != 1:
        return [], f"{len(varying)} varying parameters ({', '.join(varying) or 'none'})"
    x = numeric[varying[0]]
    rows = table.assign(_x=x)
    if "cube" in set(rows["format"]):
        rows = rows[rows["aggregation"] == "sum"]
    curves, seen = [], set()
    for (region, metric, kind, agg), g in rows.groupby(["region", "metric", "kind", "aggregation"], sort=True):
        if g["_x"].nunique() < 3:
            continue
        points = [[float(v), gg["value"].astype(float).tolist()] for v, gg in g.groupby("_x", sort=True)]
        key = json.dumps(points)
        if key in seen:  # the same measurements under another name
            continue
        seen.add(key)
        curves.append({"id": f"{source}|{region}|{metric}|{kind}|{agg}", "file": source, "region": region,
                       "metric": f"{metric} ({kind}, {agg})", "metric_name": metric, "points": points})
    return curves, ""


def _ours(points: list) -> tuple[float, float] | str:
    """Our PMNF search on the curve: (i, j), or why it fits none."""
    import numpy as np

    from workbench.errors import WorkbenchError, WorkbenchWarning
    from workbench.models.pmnf import PMNF

    n = np.concatenate([[x] * len(v) for x, v in points]).astype(float)
    t = np.concatenate([v for _, v in points]).astype(float)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WorkbenchWarning)
            model = PMNF(strong_scaling=False).fit(n, t)
    except WorkbenchError as error:
        return str(error).split(";")[0][:120]
    return float(model.hypothesis_.i), float(model.hypothesis_.j)


def _formula(ij) -> str:
    from workbench.models.pmnf import PMNFHypothesis

    return PMNFHypothesis(*ij).formula if isinstance(ij, tuple) else f"none ({ij})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extrap-python", default=os.environ.get("EXTRAP_PYTHON", DEFAULT_EXTRAP_PYTHON))
    ap.add_argument("--mirror", default=str(MIRROR), help="git directory of the fetched extra-p/extrap")
    ap.add_argument("--out", default=str(HERE / "results" / "extrap_regions_compare.md"))
    ap.add_argument("--worker-read", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker_read:
        worker_read()
        return 0
    if not Path(args.mirror).exists():
        sys.exit(f"no mirror of extra-p/extrap at {args.mirror} (fetch it first)")
    if not Path(args.extrap_python).exists():
        sys.exit(f"no Extra-P python at {args.extrap_python}; create it with\n"
                 "  python3 -m venv /tmp/extrap-venv && /tmp/extrap-venv/bin/pip install extrap")
    from workbench.errors import WorkbenchError
    from workbench.io import read_profiles

    commit = subprocess.run(["git", "-C", args.mirror, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    curves, skipped, own_files = [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for path in _extract(Path(args.mirror), root):
            source = str(path.relative_to(root / "tests" / "data"))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    table = read_profiles(path)
            except WorkbenchError as error:
                # the message names the file: without the temporary folder, the report is the same each run
                message = str(error).split("\n")[0].replace(str(root / "tests" / "data") + "/", "")
                skipped.append((source, "not read: " + message[:160]))
                continue
            found, why = _curves(table, source)
            curves += found
            if why:
                skipped.append((source, why))
            elif path.suffix.lower() in (".txt", ".json", ".jsonl"):
                own_files[str(path)] = source
        own = _extrap_reads(args.extrap_python, own_files)
    jobs = [{"id": c["id"], "points": c["points"], "targets": [p[0] for p in c["points"]]} for c in curves]
    proc = subprocess.run([args.extrap_python, str(HERE / "extrap_compare.py"), "--worker"], input=json.dumps(jobs),
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"Extra-P worker failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    reply = json.loads(proc.stdout)
    import pandas as pd

    theirs = {r["id"]: (float(r["i"]), float(r["j"])) for r in reply["results"]}
    rows = []
    for c in curves:
        ours = _ours(c["points"])
        rows.append({"file": c["file"], "region": c["region"], "metric": c["metric"], "points": len(c["points"]),
                     "ours": _formula(ours), "extrap": _formula(theirs[c["id"]]),
                     "fitted": isinstance(ours, tuple), "agree": ours == theirs[c["id"]]})
    table = pd.DataFrame(rows)
    _report(table, skipped, reply["version"], commit, Path(args.out), _own_rows(curves, own))
    return 0


def _extrap_reads(python: str, files: dict) -> dict:
    """Extra-P's own reading and modelling of ``files`` (path -> source name): source -> its reply."""
    proc = subprocess.run([python, str(Path(__file__).resolve()), "--worker-read"], input=json.dumps(list(files)),
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"Extra-P reading worker failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return {files[path]: reply for path, reply in json.loads(proc.stdout).items()}


def _own_rows(curves: list, own: dict):
    """Ours (our reader, our search) beside Extra-P's (its reader, its modeler), matched by region and metric."""
    import pandas as pd

    rows = []
    for c in curves:
        reply = own.get(c["file"])
        if reply is None:
            continue
        # a text file without METRIC lines: Extra-P's metric is unnamed, ours "<default>"
        metric = "" if c["metric_name"] == "<default>" else c["metric_name"]
        theirs = reply.get("models", {}).get(f"{c['region']}|{metric}")
        ours = _ours(c["points"])
        why = reply.get("error", "no such callpath and metric")
        rows.append({"file": c["file"], "region": c["region"], "metric": c["metric"], "ours": _formula(ours),
                     "extrap": _formula(tuple(theirs)) if theirs else f"not found ({why})",
                     "matched": theirs is not None, "agree": theirs is not None and ours == tuple(theirs)})
    return pd.DataFrame(rows, columns=["file", "region", "metric", "ours", "extrap", "matched", "agree"])


def _report(table, skipped: list, version: str, commit: str, out: Path, own) -> None:
    fitted = table[table["fitted"]]
    lines = [
        "# Per-region hypotheses: our PMNF search vs Extra-P on Extra-P's test data",
        "",
        f"Generated by `bench/extrap_regions_compare.py`: Extra-P {version}'s default single-parameter modeler "
        f"and `workbench.models.pmnf.PMNF(strong_scaling=False)` on the same measurements, read by "
        f"`workbench.io.read_profiles` from `tests/data` of extra-p/extrap at {commit[:10]}; one curve per "
        "(file, region, metric) with >= 3 parameter values, identical curves counted once per file.",
        "",
        "| curves | ours fits a model | same hypothesis (of those) | files |",
        "|---|---|---|---|",
        f"| {len(table)} | {len(fitted)} | {fitted['agree'].sum()}/{len(fitted)} "
        f"({fitted['agree'].mean():.1%}) | {table['file'].nunique()} |",
        "",
        "## Per file",
        "",
        "| file | curves | same hypothesis | ours fits none |",
        "|---|---|---|---|",
    ]
    for name, g in table.groupby("file", sort=True):
        lines.append(f"| {name} | {len(g)} | {g['agree'].sum()} | {(~g['fitted']).sum()} |")
    differ = table[~table["agree"]]
    lines += ["", f"## Curves where the hypotheses differ or ours fits none ({len(differ)})", ""]
    if len(differ):
        lines += ["| file | region | metric | points | ours | Extra-P |", "|---|---|---|---|---|---|"]
        lines += [f"| {r.file} | {r.region} | {r.metric} | {r.points} | {r.ours} | {r.extrap} |"
                  for r in differ.itertuples()]
    else:
        lines.append("None.")
    lines += ["", "## Extra-P reading its own files", "",
              "Text, JSON and JSON Lines files of the table above: Extra-P's reader and modeler against our reader "
              "and search, matched by region and metric name.", "",
              "| curves | matched by name | same hypothesis (of the matched) |", "|---|---|---|",
              f"| {len(own)} | {own['matched'].sum()} | {own['agree'].sum()}/{own['matched'].sum()} |"]
    odd = own[~own["agree"]]
    if len(odd):
        lines += ["", "| file | region | metric | ours | Extra-P |", "|---|---|---|---|---|"]
        lines += [f"| {r.file} | {r.region} | {r.metric} | {r.ours} | {r.extrap} |" for r in odd.itertuples()]
    lines += ["", f"## Files not compared ({len(skipped)})", "", "| file | why |", "|---|---|"]
    lines += [f"| {name} | {why} |" for name, why in skipped]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:12]))


if __name__ == "__main__":
    sys.exit(main())
