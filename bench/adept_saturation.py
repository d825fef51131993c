"""ADEPT's saturation rule on the real scaling corpus: ``saturation="thesis"`` vs ``"evidence"``.

For protocols k3 and k4 every curve of the scaling corpus is fitted on its 3 (4) smallest
distinct allocations, all runs included, and predicts each larger allocation; the actual
runtime is the median of the runs there.  Per variant of the rule (thesis, the new default,
and the thresholds tried) the script reports, overall and per source (curves of one source
are correlated):

- predictions, median PA (PA = 100 - 100 |pred - actual| / actual), share with an error
  within 10 % and 20 %;
- flat: share of predictions within 1 % of the prediction at the previous allocation (the
  largest observed one for the first target) -- no further speedup predicted; "flat, not
  warned": flat and without a new saturation warning;
- new warned: share of the predictions with an error > 30 % that carry a
  "saturation-undetermined" or "saturation-near-range" warning; any warned: the same for
  any reliability warning (``workbench.evaluation.holdout.RELIABILITY_KINDS`` plus the new
  kinds);
- leave one source out: median PA and errors > 30 % without each source in turn.

Run: ``.venv/bin/python bench/adept_saturation.py`` (about two minutes); writes the markdown
tables to ``bench/results/adept_saturation.md``.  Not collected by pytest.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import WorkbenchError
from workbench.evaluation.holdout import RELIABILITY_KINDS
from workbench.io import read_scaling_corpus
from workbench.models.adept import Adept

NEW_KINDS = frozenset({"saturation-undetermined", "saturation-near-range"})
MISS = 30.0  # error (%) that counts as a large miss


class _LinearGrid(Adept):
    """The thesis' linear pass-1 grid (as in ``saturation="thesis"``), in evidence mode."""

    _PASS1_SPACING = "linear"


class _GeometricGrid(Adept):
    """The geometric pass-1 grid of evidence mode, in thesis mode: the grid fix alone."""

    _PASS1_SPACING = "geometric"


def _variant(base=Adept, horizon=None, bound=None, floor=None, f_level=None):
    """An Adept subclass with other thresholds of the "evidence" rule."""
    attrs = {}
    if horizon is not None:
        attrs["_SATURATION_HORIZON"] = horizon
    if f_level is not None:
        attrs["_SATURATION_F_LEVEL"] = f_level
    if bound is not None:  # None: max(delta_, high_error); "delta": delta_ only; a number
        attrs["_SATURATION_BOUND"] = bound
    if floor == "target":  # the refit may not saturate before its own target either
        attrs["_SATURATION_FLOOR"] = "target"
    return type("AdeptVariant", (base,), attrs)


THESIS = "thesis (= before)"
DEFAULT = "evidence c=3 (default)"
#: name -> (class, keyword arguments).  The default is Adept() as shipped: horizon c = 3,
#: bound max(delta_, high_error = 10 %), floor (c n_top + 1)/2, F-test at 5 %.
VARIANTS = {
    THESIS: (Adept, {"saturation": "thesis"}),
    "thesis, geometric pass-1 grid": (_GeometricGrid, {"saturation": "thesis"}),
    "evidence c=1.5": (_variant(horizon=1.5), {}),
    "evidence c=2": (_variant(horizon=2.0), {}),
    "evidence c=2.5": (_variant(horizon=2.5), {}),
    DEFAULT: (Adept, {}),
    "evidence c=4": (_variant(horizon=4.0), {}),
    "evidence c=3, bound delta_": (_variant(bound="delta"), {}),
    "evidence c=3, bound max(delta_, 15 %)": (_variant(bound=0.15), {}),
    "evidence c=3, floor max(c n_top, target)": (_variant(floor="target"), {}),
    "evidence c=3, no F-test": (_variant(f_level=1.0), {}),
    "evidence c=3, linear pass-1 grid": (_variant(base=_LinearGrid), {}),
}
PER_SOURCE = (THESIS, DEFAULT)


def predictions(curves: pd.DataFrame, cls, kwargs, ks=(3, 4)) -> pd.DataFrame:
    """One row per (curve, k, held-back allocation)."""
    rows = []
    for cid, c in curves.groupby("curve_id", sort=True):
        ns = np.sort(c["n"].unique())
        for k in ks:
            if len(ns) <= k:
                continue
            obs = c[c["n"].isin(ns[:k])]
            held = ns[k:]
            actual = c[c["n"].isin(held)].groupby("n")["time_s"].median().reindex(held).to_numpy()
            at = np.concatenate([[ns[k - 1]], held])  # the previous allocation of every target
            model = cls(targets=at, **kwargs)
            try:
                model.fit(obs["n"].to_numpy(float), obs["time_s"].to_numpy(float))
                pred = model.predict(at)
                warnings = model.warnings_
            except WorkbenchError as exc:
                print(f"{cid} k={k}: {exc}", file=sys.stderr)
                continue
            for i, (target, act) in enumerate(zip(held, actual)):
                kinds = {w.kind for w in warnings if not w.targets or target in w.targets}
                rows.append({
                    "curve_id": cid, "source": c["source"].iloc[0], "k": k, "target": target,
                    "actual": act, "prediction": pred[i + 1], "previous": pred[i],
                    "new_warned": bool(kinds & NEW_KINDS),
                    "any_warned": bool(kinds & (NEW_KINDS | RELIABILITY_KINDS)),
                })
    d = pd.DataFrame(rows)
    d["E"] = 100 * (d["prediction"] - d["actual"]).abs() / d["actual"]
    d["flat"] = (d["prediction"] - d["previous"]).abs() <= 0.01 * d["previous"]
    return d


def summary(d: pd.DataFrame) -> pd.Series:
    miss = d["E"] > MISS
    n_miss = max(int(miss.sum()), 1)
    return pd.Series({
        "predictions": len(d),
        "median PA": 100 - d["E"].median(),
        "within 10 %": (d["E"] <= 10).mean(),
        "within 20 %": (d["E"] <= 20).mean(),
        "flat": d["flat"].mean(),
        "flat, not warned": (d["flat"] & ~d["new_warned"]).mean(),
        f"misses > {MISS:g} %": int(miss.sum()),
        "new warned": (miss & d["new_warned"]).sum() / n_miss,
        "any warned": (miss & d["any_warned"]).sum() / n_miss,
        "new warnings (all predictions)": d["new_warned"].mean(),
    })


def _leave_one_source_out(d: pd.DataFrame) -> pd.Series:
    cells = {}
    for src in sorted(d["source"].unique()):
        rest = d[d["source"] != src]
        parts = [f"{100 - g['E'].median():.1f} ({int((g['E'] > MISS).sum())})" for _, g in rest.groupby("k")]
        cells[f"without {src.split('/')[0]}"] = " / ".join(parts)
    return pd.Series(cells)


def _markdown(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    fmt = {c: (lambda v: f"{v:.0f}") for c in ("predictions", f"misses > {MISS:g} %")}
    fmt["median PA"] = lambda v: f"{v:.1f}"
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        cells = [fmt.get(c, lambda v: f"{v:.0%}" if isinstance(v, float) else str(v))(v) for c, v in zip(cols, row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    root = os.environ.get("WORKBENCH_DATA_MIRROR", "/work/shared/data")
    curves = read_scaling_corpus(root + "/scaling-corpus")
    tables, per_source, left_out, times = [], [], [], {}
    for name, (cls, kwargs) in VARIANTS.items():
        t0 = time.perf_counter()
        d = predictions(curves, cls, kwargs)
        times[name] = time.perf_counter() - t0
        print(f"{name}: {times[name]:.1f} s", file=sys.stderr)
        s = d.groupby("k").apply(summary).reset_index()
        tables.append(s.assign(variant=name))
        if name in PER_SOURCE:
            p = d.groupby(["k", "source"]).apply(summary).reset_index()
            per_source.append(p.assign(variant=name))
        left_out.append(_leave_one_source_out(d).rename(name))
    overall = pd.concat(tables, ignore_index=True)
    by_source = pd.concat(per_source, ignore_index=True)
    out = [
        "# ADEPT saturation rule on the scaling corpus",
        "",
        f"Generated by `bench/adept_saturation.py`: {curves['curve_id'].nunique()} curves, protocols k3/k4 "
        "(fit the k smallest allocations, all runs; predict each larger one; actual = median of its runs).",
        f"PA = 100 - 100 |pred - actual|/actual.  flat: prediction within 1 % of the one at the previous "
        f"allocation.  new warned / any warned: share of the misses (error > {MISS:g} %) carrying a new "
        "saturation warning / any reliability warning.  c: saturation horizon (x the largest observation).",
        "",
    ]
    for k in (3, 4):
        sel = overall[overall["k"] == k].drop(columns="k")
        out += [f"## k{k}, all curves", "",
                _markdown(sel[["variant"] + [c for c in sel.columns if c != "variant"]]), ""]
    for k in (3, 4):
        sel = by_source[by_source["k"] == k].drop(columns="k")
        sel = sel.sort_values(["source", "variant"],
                              key=lambda c: c.map(list(VARIANTS).index) if c.name == "variant" else c)
        out += [f"## k{k}, per source", "",
                _markdown(sel[["source", "variant"] + [c for c in sel.columns if c not in ("source", "variant")]]), ""]
    out += ["## Leave one source out", "",
            "Median PA, k3 / k4 (errors > 30 %), over the curves of the other three sources: a threshold "
            "chosen on all curves should also be chosen without any one source.", "",
            _markdown(pd.concat(left_out, axis=1).T.rename_axis("variant").reset_index()), ""]
    out += ["Runtime per variant (s): " + ", ".join(f"{k}: {v:.1f}" for k, v in times.items()), ""]
    text = "\n".join(out)
    print(text)
    dest = Path(__file__).resolve().parent / "results" / "adept_saturation.md"
    dest.parent.mkdir(exist_ok=True)
    dest.write_text(text)


if __name__ == "__main__":
    main()
