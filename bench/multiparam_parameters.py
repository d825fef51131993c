"""The work model's fit time and accuracy over 1-5 problem parameters: its grid budget against the full grid.

The work model's laws are the product of its exponent grid over the problem parameters (12 per
parameter); past ``MAX_WORK_VECTORS`` laws every varied parameter tries a coarser grid
(:class:`~workbench.models.multiparam.WorkAwareModel`'s ``max_work_vectors``).  Baseline, in the
same run: ``max_work_vectors=None``, the full product grid.  Labelled synthetic runs: ``n`` = 2,
4, 8, 16, 32 processes, 40 runs whose parameters are drawn from 1, 2, 4 (the first from 100-800;
one case with 1000 runs, three parameters drawn from 1-32, to test many distinct points),
3 % log-normal noise, ``t = 0.5 + c W / n + 0.1 log2 n``; two laws, ``W`` the product of the
parameters with the second one squared (in the coarse grid) and with every exponent 4/3 (not in
it).  Fitted without the runs at 32 processes, scored on them (median PA).  Fit times are the
fastest of 3 fits (1 past 10 s); peak memory that of a fourth, under :mod:`tracemalloc` (which
numpy reports its buffers to).  The baseline is not run with five parameters: its 2 x 12^5
laws over these runs took all of this machine's 24 GiB and the kernel killed it.  Run::

    .venv/bin/python bench/multiparam_parameters.py        # writes bench/results/multiparam_parameters.md

About a minute, most of it the baselines at four parameters and at 1000 runs.  Not part of any test run.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.models.multiparam import MAX_WORK_VECTORS, WorkAwareModel  # noqa: E402

#: The laws (labelled synthetic): name -> exponent of each parameter in the work (by position).
LAWS = {"second parameter squared": lambda q: [1.0] + [2.0] + [1.0] * (q - 2),
        "every exponent 4/3": lambda q: [4 / 3] * q}
#: (problem parameters, runs, levels of the parameters beyond the first): the last row has many
#: distinct points, where the tables of every work vector at every point grow with both.
CASES = ((1, 40, (1.0, 2.0, 4.0)), (2, 40, (1.0, 2.0, 4.0)), (3, 40, (1.0, 2.0, 4.0)), (4, 40, (1.0, 2.0, 4.0)),
         (5, 40, (1.0, 2.0, 4.0)), (3, 1000, tuple(2.0 ** np.arange(6))))
#: Most problem parameters the baseline (the full grid) is run with (five exhaust 24 GiB).
FULL_GRID_PARAMETERS = 4
NOISE = 0.03


def runs(q: int, exponents, count: int = 40, levels=(1.0, 2.0, 4.0), seed: int = 0) -> pd.DataFrame:
    """``count`` runs with ``q`` problem parameters (beyond the first, drawn from ``levels``) and work
    ``prod s_j^a_j`` (``exponents[:q]``)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"n": np.tile([2.0, 4.0, 8.0, 16.0, 32.0], count // 5)})
    frame["s0"] = rng.choice([100.0, 200.0, 400.0, 800.0], len(frame))
    for j in range(1, q):
        frame[f"s{j}"] = rng.choice(levels, len(frame))
    work = np.prod(frame[[f"s{j}" for j in range(q)]].to_numpy() ** np.asarray(exponents[:q]), axis=1)
    work = work / np.median(work)
    frame["t"] = (0.5 + 8.0 * work / frame.n + 0.1 * np.log2(frame.n)) * np.exp(rng.normal(0.0, NOISE, len(frame)))
    return frame


def measure(frame: pd.DataFrame, budget) -> dict:
    """Fit the work model with ``budget`` on all but the largest allocation; time it, score it there."""
    test = frame.n == frame.n.max()
    X, t = frame.drop(columns="t"), frame.t
    seconds = []
    for _ in range(3):
        start = time.perf_counter()
        model = WorkAwareModel(max_work_vectors=budget).fit(X[~test], t[~test])
        seconds.append(time.perf_counter() - start)
        if seconds[-1] > 10:
            break
    tracemalloc.start()  # numpy reports its buffers to tracemalloc; a fit apart from the timed ones
    WorkAwareModel(max_work_vectors=budget).fit(X[~test], t[~test])
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    actual = t[test].to_numpy()
    pa = float(np.median(100.0 - 100.0 * np.abs(model.predict(X[test]) - actual) / actual))
    laws = len({tuple(e) for e in model.candidates_.exponents})
    return {"seconds": min(seconds), "pa": pa, "laws": laws, "peak_mib": peak}


def table() -> pd.DataFrame:
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, law in LAWS.items():
            for q, count, levels in CASES:
                frame = runs(q, law(q), count, levels)
                budget = measure(frame, MAX_WORK_VECTORS)
                full = measure(frame, None) if q <= FULL_GRID_PARAMETERS else dict.fromkeys(budget, np.nan)
                points = len(frame.drop(columns="t").drop_duplicates())
                rows.append({"law": name, "parameters": q, "points": points, "laws": budget["laws"],
                             "full_laws": full["laws"],
                             "seconds": budget["seconds"], "full_seconds": full["seconds"],
                             "pa": budget["pa"], "full_pa": full["pa"], "peak_mib": budget["peak_mib"],
                             "full_peak_mib": full["peak_mib"]})
    return pd.DataFrame(rows)


def markdown(result: pd.DataFrame) -> str:
    lines = ["| law (SYNTHETIC) | problem parameters | distinct points | laws tried: budget / full | fit time (s): "
             "budget / full | speed-up | peak memory (MiB): budget / full | median PA at 32 processes: budget / full |",
             "|---|---|---|---|---|---|---|---|"]
    for r in result.itertuples(index=False):
        head = f"| {r.law} | {r.parameters} | {r.points} | {r.laws} / "
        if np.isnan(r.full_seconds):  # the baseline was not run
            lines.append(head + f"{2 * 12**r.parameters} | {r.seconds:.4f} / out of memory | - | "
                         f"{r.peak_mib:.0f} / more than 24 GiB | {r.pa:.1f} / - |")
            continue
        lines.append(head + f"{r.full_laws:.0f} | {r.seconds:.4f} / {r.full_seconds:.4f} | "
                     f"{r.full_seconds / r.seconds:.1f}x | {r.peak_mib:.0f} / {r.full_peak_mib:.0f} | "
                     f"{r.pa:.1f} / {r.full_pa:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "multiparam_parameters.md"))
    args = ap.parse_args(argv)
    text = ("# The work model over 1-5 problem parameters: grid budget against the full grid (labelled synthetic)\n\n"
            f"Generated by `bench/multiparam_parameters.py`: {NOISE * 100:g} % noise, fitted without the "
            f"runs at 32 processes and scored on them; budget `MAX_WORK_VECTORS` = {MAX_WORK_VECTORS} laws per "
            "scope, baseline the full product grid (`max_work_vectors=None`) in the same run. `laws tried` counts "
            "the distinct work vectors over every scope.\n\n" + markdown(table()) + "\n")
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
