"""Compare :class:`workbench.models.pmnf.PMNF` with Extra-P's own single-parameter modeler.

For every curve of the scaling corpus and ``k`` in (3, 4), both models are fitted to the runs at
the ``k`` smallest allocations (strong scaling: the cost ``t * n``, repeats averaged -- Extra-P
4.2's strong-scaling conversion and its default ``Measure.MEAN``), and compared on

* the chosen hypothesis ``(i, j)`` (agreement rate),
* the predicted runtimes at the curve's larger allocations (relative difference
  ``|ours - extrap| / extrap``), and each model's error against the measured means there.

Extra-P pins ``numpy~=1.18`` (i.e. < 2), so it cannot live in the project's venv (numpy >= 2)
and must never be added to ``pyproject.toml``.  It runs in a separate venv, driven through its
Python API (``SingleParameterModeler.create_model`` on ``Measurement`` objects) by this same
file started as a worker (``--worker``, reads jobs as JSON on stdin; imports no workbench code).

Run::

    python3 -m venv /tmp/extrap-venv && /tmp/extrap-venv/bin/pip install extrap
    .venv/bin/python bench/extrap_compare.py                     # -> bench/results/extrap_compare.md
    .venv/bin/python bench/extrap_compare.py --extrap-python /path/to/venv/bin/python \\
        --corpus /path/to/scaling-corpus --out /tmp/extrap_compare.md

The corpus is found at ``--corpus``, else ``$WORKBENCH_DATA_MIRROR/scaling-corpus``, else
``/work/shared/data/scaling-corpus``.  The report holds only derived numbers and curve ids,
no measurements.  Not part of any test run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_EXTRAP_PYTHON = "/tmp/extrap-venv/bin/python"
HERE = Path(__file__).resolve().parent


# ----------------------------------------------------------------------------------------------
# worker: runs inside the Extra-P venv, imports nothing from the workbench
# ----------------------------------------------------------------------------------------------
def worker() -> None:
    import warnings

    import extrap
    import numpy as np
    from extrap.entities.callpath import Callpath
    from extrap.entities.coordinate import Coordinate
    from extrap.entities.measurement import Measurement
    from extrap.entities.metric import Metric
    from extrap.modelers.single_parameter.basic import SingleParameterModeler

    jobs = json.load(sys.stdin)
    out = []
    for job in jobs:
        measurements = [
            Measurement(Coordinate(float(n)), Callpath("main"), Metric("time"), [float(v) for v in values])
            for n, values in job["points"]
        ]
        modeler = SingleParameterModeler()  # Extra-P's "Default" modeler, Measure.MEAN
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "needs at least 5 points" for 3-4 points
            model = modeler.create_model(measurements)
        seconds = time.perf_counter() - start
        function = model.hypothesis.function
        i = j = 0.0
        c1 = 0.0
        terms = getattr(function, "compound_terms", [])
        if terms:
            c1 = float(terms[0].coefficient)
            for simple in terms[0].simple_terms:
                if simple.term_type == "polynomial":
                    i = float(simple.exponent)
                else:
                    j = float(simple.exponent)
        cost = np.asarray(function.evaluate(np.asarray(job["targets"], dtype=float)), dtype=float)
        cost = np.broadcast_to(cost, (len(job["targets"]),))
        out.append({
            "id": job["id"], "i": i, "j": j, "c0": float(function.constant_coefficient), "c1": c1,
            "smape": float(model.hypothesis.SMAPE), "cost": [float(v) for v in cost], "seconds": seconds,
        })
    json.dump({"version": extrap.__version__, "results": out}, sys.stdout)


# ----------------------------------------------------------------------------------------------
# driver: runs in the project's venv
# ----------------------------------------------------------------------------------------------
def _corpus_path(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    mirror = os.environ.get("WORKBENCH_DATA_MIRROR")
    return Path(mirror) / "scaling-corpus" if mirror else Path("/work/shared/data/scaling-corpus")


def _formula(i: float, j: float) -> str:
    from workbench.models.pmnf import PMNFHypothesis

    return PMNFHypothesis(i, j).formula


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extrap-python", default=os.environ.get("EXTRAP_PYTHON", DEFAULT_EXTRAP_PYTHON),
                    help="python of a venv with `pip install extrap` (default: %(default)s)")
    ap.add_argument("--corpus", default=None, help="scaling-corpus folder or curves.csv")
    ap.add_argument("--out", default=str(HERE / "results" / "extrap_compare.md"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0

    import warnings

    import numpy as np
    import pandas as pd

    from workbench.errors import WorkbenchWarning
    from workbench.io import read_scaling_corpus
    from workbench.models.pmnf import PMNF

    corpus_path = _corpus_path(args.corpus)
    if not corpus_path.exists():
        sys.exit(f"no scaling corpus at {corpus_path} (use --corpus or WORKBENCH_DATA_MIRROR)")
    if not Path(args.extrap_python).exists():
        sys.exit(f"no Extra-P python at {args.extrap_python}; create it with\n"
                 "  python3 -m venv /tmp/extrap-venv && /tmp/extrap-venv/bin/pip install extrap")
    corpus = read_scaling_corpus(corpus_path)

    jobs, ours = [], {}
    for cid, curve in corpus.groupby("curve_id", sort=True):
        allocations = np.sort(curve.n.unique())
        means = curve.groupby("n").time_s.mean().reindex(allocations).to_numpy()
        for k in (3, 4):
            if allocations.size <= k:
                continue
            train = curve[curve.n.isin(allocations[:k])]
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", WorkbenchWarning)
                model = PMNF().fit(train.n.to_numpy(), train.time_s.to_numpy())
            seconds = time.perf_counter() - start
            targets = allocations[k:]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", WorkbenchWarning)
                pred = model.predict(targets)
            key = f"{cid}|{k}"
            ours[key] = dict(curve_id=cid, source=curve.source.iloc[0], k=k, i=model.hypothesis_.i,
                             j=model.hypothesis_.j, c0=model.coefficients_[0], c1=model.coefficients_[1],
                             smape=model.smape_, pred=pred, targets=targets,
                             measured=means[k:], seconds=seconds)
            # Extra-P's strong-scaling conversion multiplies every value (each run) by n
            points = [[float(n), (g.time_s * n).tolist()] for n, g in train.groupby("n", sort=True)]
            jobs.append({"id": key, "points": points, "targets": targets.tolist()})

    proc = subprocess.run([args.extrap_python, str(Path(__file__).resolve()), "--worker"],
                          input=json.dumps(jobs), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"Extra-P worker failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    reply = json.loads(proc.stdout)

    rows = []
    for r in reply["results"]:
        o = ours[r["id"]]
        theirs = np.asarray(r["cost"]) / o["targets"]
        # where the (shared) cost model is <= 0, Extra-P returns it and PMNF returns floor_:
        # those targets are counted, not compared
        positive = theirs > 0
        rel_diff = np.abs(o["pred"] - theirs)[positive] / theirs[positive]
        if not rel_diff.size:
            rel_diff = np.array([np.nan])
        c_rel = max(abs(o["c0"] / r["c0"] - 1) if r["c0"] else abs(o["c0"]),
                    abs(o["c1"] / r["c1"] - 1) if r["c1"] else abs(o["c1"]))
        rows.append(dict(
            curve_id=o["curve_id"], source=o["source"], k=o["k"],
            ours=_formula(o["i"], o["j"]), extrap=_formula(r["i"], r["j"]),
            agree=(o["i"], o["j"]) == (r["i"], r["j"]),
            smape_ours=o["smape"], smape_extrap=r["smape"],
            coef_rel_diff=float(c_rel),
            median_rel_diff=float(np.median(rel_diff)), max_rel_diff=float(np.max(rel_diff)),
            clipped=int((~positive).sum()), targets=int(positive.size),
            ape_ours=float(np.median(np.abs(o["pred"] / o["measured"] - 1))),
            ape_extrap=float(np.median(np.abs(theirs / o["measured"] - 1))),
            ms_ours=1e3 * o["seconds"], ms_extrap=1e3 * r["seconds"],
        ))
    table = pd.DataFrame(rows)

    lines = [
        "# PMNF vs Extra-P: single-parameter models of the scaling corpus",
        "",
        f"Generated by `bench/extrap_compare.py` (Extra-P {reply['version']}, its default "
        "single-parameter modeler; strong scaling: models of the cost t*n, repeats averaged). "
        "Each curve is fitted on the runs at its k smallest allocations and predicted at all "
        "larger ones. `coef.` = largest relative difference of c0, c1; `rel. diff.` = "
        "|ours - Extra-P| / Extra-P of the predicted runtime at targets where Extra-P's is > 0 "
        "(median over a curve's targets, then summarised over curves); `clipped` = targets where "
        "the fitted cost model is <= 0, so that Extra-P predicts a non-positive runtime and "
        "PMNF returns its `floor_`; `APE` = median |predicted / measured mean - 1| over a "
        "curve's targets, median over curves.",
        "",
        "| k | curves | same hypothesis | max coef. diff. | median rel. diff. | max rel. diff. "
        "| clipped (curves, targets) | median APE ours | median APE Extra-P | ms/fit ours | ms/fit Extra-P |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for k, g in table.groupby("k"):
        lines.append(
            f"| {k} | {len(g)} | {g.agree.mean():.1%} ({g.agree.sum()}/{len(g)}) "
            f"| {g.coef_rel_diff.max():.1e} | {g.median_rel_diff.median():.1e} | {g.max_rel_diff.max():.1e} "
            f"| {(g.clipped > 0).sum()}, {g.clipped.sum()}/{g.targets.sum()} "
            f"| {g.ape_ours.median():.1%} | {g.ape_extrap.median():.1%} "
            f"| {g.ms_ours.median():.3f} | {g.ms_extrap.median():.1f} |"
        )
    differ = table[~table.agree | (table.coef_rel_diff > 1e-6) | (table.max_rel_diff > 1e-6) | (table.clipped > 0)]
    lines += ["", f"## Curves with a different model, coefficients or clipped targets ({len(differ)})", ""]
    if len(differ):
        lines += ["| curve | k | ours | Extra-P | SMAPE ours | SMAPE Extra-P | coef. diff. | max rel. diff. "
                  "| clipped |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in differ.itertuples():
            lines.append(f"| {r.curve_id} | {r.k} | {r.ours} | {r.extrap} | {r.smape_ours:.4g} "
                         f"| {r.smape_extrap:.4g} | {r.coef_rel_diff:.1e} "
                         f"| {'n/a' if np.isnan(r.max_rel_diff) else format(r.max_rel_diff, '.1e')} "
                         f"| {r.clipped}/{r.targets} |")
    else:
        lines.append("None.")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
