"""Round 4 of issue 25: can the predictor's interval learn from the application's own extrapolation backtests?

Reproduces every table of ``bench/results/multiparam_round4.md`` (written by hand from this script's output):
the 80 % coverage (and the median log width of the interval) of the multi-parameter predictor, leave-one-source-out
on the development data (:mod:`workbench.evaluation.multiparam`), for the shipped interval and for variants that
also use the *backtest residuals* -- the log errors of the combined prediction on the held-out runs of the
predictor's own extrapolation cross-validation (``MultiParameterPredictor.cv_``).  Every constant a variant
learns is learnt on the three calibration sources only.  The combination is never changed, so median PA and the
share within 20 % are those of ``multiparam.md`` in every variant.  Run::

    WORKBENCH_DATA_MIRROR=../shared/data .venv/bin/python bench/multiparam_backtest_intervals.py

``--extrap-repo`` (default ``/work/.mirror/extra-p+extrap/repo`` if present): a git mirror of ``extra-p/extrap``
for the ``extrap-tests`` source.  About 1.5 minutes of CPU.  Prints markdown; not part of any test run.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.errors import quiet_warnings  # noqa: E402
from workbench.evaluation.multiparam import (  # noqa: E402
    SPLITS,
    benchmark_records,
    calibrate,
    development_sources,
    predictor_rows,
    split_masks,
)
from workbench.models.multiparam import (  # noqa: E402
    MultiParameterPredictor,
    aggregate_runs,
    check_parameters,
    extrapolation_distance,
    extrapolation_splits,
    line_distance,
    target_weights,
)
from workbench.models.scaling.calibration import (  # noqa: E402
    PREDICTOR_FEATURES,
    PROBABILITIES,
    Calibration,
    design_matrix,
    fit_error_model,
)
from workbench.models.scaling.predictor import combine  # noqa: E402

DEFAULT_EXTRAP_REPO = "/work/.mirror/extra-p+extrap/repo"
LEVEL = 0.8
GROUP = ["source", "dataset", "split"]
CELLS = [(s, p) for s in ("extrap-tests", "gunrock", "npb", "relearn") for p in SPLITS]
M0_GRID = (1, 3, 10, 20, 30, 50, 70, 100, 150, 200, 300, 1000)


# ------------------------------------------------------------------------------------ data
def backtests(sources: dict) -> pd.DataFrame:
    """Every member's cross-validation prediction per (source, dataset, split), with the fold run's features.

    The features are those the predictor gives a target: distance past the fold's training box or past the
    run's own lines (doublings), the fold's distinct training points, the member's fit error.
    """
    out = []
    for src, sets in sources.items():
        for name, frame in sets:
            for split in SPLITS:
                test = split_masks(frame, split)
                X = frame.drop(columns="t")
                train = ~test
                if not test.any() or len(X[train].drop_duplicates()) < 3:
                    continue
                with quiet_warnings(), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pred = MultiParameterPredictor(calibration=Calibration({}, {}, 0.1, 1.0)).fit(
                        X[train], frame.t[train])
                n, S, _ = check_parameters(X[train], "backtests")
                t = frame.t[train].to_numpy(float)
                cv = pred.cv_.copy()
                dist, lines, points = [], [], []
                for _fold, te, tr in extrapolation_splits(n, S):
                    nd, Sd, _, _ = aggregate_runs(n[tr], S[tr], t[tr])
                    d = extrapolation_distance(n[te], S[te], nd.min(), nd.max(), Sd.min(axis=0), Sd.max(axis=0))
                    ld = line_distance(n[te], S[te], nd, Sd)
                    for _member in pred.members_:  # cv_ rows: per fold, per member, the fold's runs
                        dist.append(d)
                        lines.append(ld)
                        points.append(np.full(int(te.sum()), float(nd.size)))
                if not len(cv):
                    continue
                cv["distance"] = np.maximum(np.concatenate(dist), np.concatenate(lines))
                cv["n_points"] = np.concatenate(points)
                cv["row"] = cv.groupby("model").cumcount()
                cv["fit_error"] = cv.model.map({m: model.fit_error_ for m, model in pred.members_.items()})
                cv["source"], cv["dataset"], cv["split"] = src, name, split
                out.append(cv)
    return pd.concat(out, ignore_index=True)


def combined_backtests(records: pd.DataFrame, bt: pd.DataFrame, cal: Calibration) -> pd.DataFrame:
    """The combined (weighted geometric mean) prediction on every backtest run, with the predictor's features."""
    out = []
    recs = dict(tuple(records.groupby(GROUP, sort=False)))
    for key, g in bt.groupby(GROUP, sort=False):
        if key not in recs:
            continue
        r = recs[key]
        names = list(r.model.unique())
        first = r.groupby("model").first().reindex(names)
        fold_cv = {fold: dict(zip(names, first[col].to_numpy(float)))
                   for fold, col in (("all", "cv_error"), ("bigger", "cv_bigger"), ("more-n", "cv_more_n"))
                   if np.isfinite(first[col].to_numpy(float)).any()}
        g = g[g.model.isin(names)]
        wide = g.pivot(index="row", columns="model", values="prediction").reindex(columns=names)
        base = g[g.model == names[0]].set_index("row").loc[wide.index]
        w, cv_t = target_weights(fold_cv, names, np.full(len(wide), "all"), cal)
        pred, spread, best = combine(wide.to_numpy().T, w)
        fit_error = first.fit_error.to_numpy(float)
        out.append(pd.DataFrame({
            "source": key[0], "dataset": key[1], "split": key[2], "fold": base.fold.to_numpy(),
            "actual": base.actual.to_numpy(), "prediction": pred, "distance": base.distance.to_numpy(),
            "n_points": base.n_points.to_numpy(), "disagreement": spread, "cv_error": cv_t,
            "fit_error": np.where(best >= 0, fit_error[np.maximum(best, 0)], np.nan)}))
    return pd.concat(out, ignore_index=True)


# ------------------------------------------------------------------------------------ helpers
def features(rows: pd.DataFrame) -> dict:
    return {k: rows[k].to_numpy(float) for k in ("distance", "n_points", "fit_error", "disagreement", "cv_error")}


def scale(error_model, feats: dict) -> np.ndarray:
    """The calibrated scale s(x) of an error model (its ``scale`` coefficients on the design matrix)."""
    return np.exp(np.clip(design_matrix(feats, error_model.features) @ np.asarray(error_model.scale), -12, 5))


def cell_weights(rows: pd.DataFrame) -> np.ndarray:
    """Each (source, split) counts once, each of its grids equally (as the shipped calibration weighs)."""
    size = rows.groupby(GROUP)["target"].transform("size")
    grids = rows.groupby(["source", "split"])["dataset"].transform("nunique")
    return 1.0 / (size.to_numpy(float) * grids.to_numpy(float))


def weighted_quantile(values, weights, p: float) -> float:
    ok = np.isfinite(values)
    v, w = values[ok], weights[ok]
    order = np.argsort(v)
    cum = (np.cumsum(w[order]) - 0.5 * w[order]) / w.sum()
    return float(np.interp(p, cum, v[order]))


def abs_quantile(error_model, p: float) -> float:
    """The calibrated quantile of |z| at ``p`` (the stored quantiles are symmetric: |z| at p is z at (1 + p) / 2)."""
    return float(np.interp((1 + p) / 2, PROBABILITIES, error_model.quantiles))


def log_error(rows: pd.DataFrame) -> np.ndarray:
    return np.log(rows.actual.to_numpy(float) / rows.prediction.to_numpy(float))


def per_group(rows: pd.DataFrame, stats: pd.DataFrame, column: str, default: float) -> np.ndarray:
    return rows[GROUP].merge(stats, on=GROUP, how="left")[column].fillna(default).to_numpy(float)


# ------------------------------------------------------------------------------------ variants
class Fold:
    """One held-out source: its calibration (learnt on the others), their rows and its own rows."""

    def __init__(self, records, bt, held):
        train = records[records.source != held]
        train = train[np.isfinite(train.prediction) & (train.prediction > 0)]
        self.cal = calibrate(train)
        self.em = self.cal.error_models["predictor"]
        rows = predictor_rows(train, self.cal)
        self.train = rows[np.isfinite(rows.prediction)].reset_index(drop=True)
        self.train_bt = combined_backtests(train, bt, self.cal)
        self.held = predictor_rows(records[records.source == held], self.cal)
        self.held_bt = combined_backtests(records[records.source == held], bt, self.cal)

    def z(self, b: pd.DataFrame, direction: bool = False) -> pd.DataFrame:
        b = b.assign(z=np.abs(log_error(b)) / scale(self.em, features(b)))
        b = b[np.isfinite(b.z)]
        if direction:  # a bigger target: the size folds' backtests; a more-p target: the more-n fold's
            b = b[np.where(b.fold == "more-n", "more-p", "bigger") == b.split]
        return b


def scored(rows: pd.DataFrame, half: np.ndarray) -> pd.DataFrame:
    e = log_error(rows)
    return rows.assign(covered=np.abs(e) <= half, logwidth=2 * half)


def baseline(f: Fold) -> pd.DataFrame:
    return scored(f.held, abs_quantile(f.em, LEVEL) * scale(f.em, features(f.held)))


def distance_capped(f: Fold) -> pd.DataFrame:
    """V9: the distance feature capped at the largest distance among the calibration rows."""
    feats = features(f.held)
    feats["distance"] = np.minimum(feats["distance"], f.train.distance.max())
    return scored(f.held, abs_quantile(f.em, LEVEL) * scale(f.em, feats))


def shrunk_factor(f: Fold, m0: float, stat: str = "median", widen_only=False, direction=False,
                  requantile=True) -> pd.DataFrame:
    """V1 (V2 widen only, V6 direction folds): scale times exp(m / (m + m0) log(zb / zc)), re-quantiled."""
    p = {"median": 0.5, "q80": 0.8}[stat]
    zc = abs_quantile(f.em, p)

    def factor(rows, b):
        st = f.z(b, direction).groupby(GROUP).z.agg(zb=lambda s: np.quantile(s, p), m="size").reset_index()
        st["f"] = np.exp(st.m / (st.m + m0) * np.log(np.maximum(st.zb, 1e-9) / zc))
        if widen_only:
            st["f"] = np.maximum(st.f, 1.0)
        return per_group(rows, st, "f", 1.0)

    q = abs_quantile(f.em, LEVEL)
    if requantile:  # the calibration sources' standardised errors with the factor in place
        s_t = scale(f.em, features(f.train)) * factor(f.train, f.train_bt)
        q = weighted_quantile(np.abs(log_error(f.train)) / s_t, cell_weights(f.train), LEVEL)
    return scored(f.held, q * scale(f.em, features(f.held)) * factor(f.held, f.held_bt))


def learnt_feature(f: Fold, mode: str, direction=False) -> pd.DataFrame:
    """V3: log of the median backtest |log error| in the predictor's scale regression (learnt on the others)."""
    def with_bt(rows, b):
        b = b.assign(a=np.abs(log_error(b)))
        b = b[np.isfinite(b.a)]
        if direction:
            b = b[np.where(b.fold == "more-n", "more-p", "bigger") == b.split]
        feats = features(rows)
        value = per_group(rows, b.groupby(GROUP).a.median().rename("bt").reset_index(), "bt", np.nan)
        feats["cv_error" if mode == "replace" else "noise"] = value  # "noise": a log feature unused otherwise
        return feats

    ft, fh = with_bt(f.train, f.train_bt), with_bt(f.held, f.held_bt)
    e = log_error(f.train)
    em = fit_error_model(e, ft, PREDICTOR_FEATURES, cell_weights(f.train))
    s_t = np.exp(np.clip(design_matrix(ft, em.features) @ np.asarray(em.scale), -12, 5))
    ok = np.isfinite(e) & (np.abs(e) < 1e3)
    q = weighted_quantile(np.where(ok, np.abs(e) / s_t, np.nan), cell_weights(f.train), LEVEL)
    s_h = np.exp(np.clip(design_matrix(fh, em.features) @ np.asarray(em.scale), -12, 5))
    return scored(f.held, q * s_h)


def conformal_half(f: Fold, rows, b, m0: float, direction=False) -> np.ndarray:
    """V7: (m0 zc + m za) / (m0 + m) s(x); za the split-conformal quantile of the application's backtest z."""
    zc = abs_quantile(f.em, LEVEL)

    def conformal(z):
        z = np.sort(z.to_numpy())
        k = int(np.ceil((z.size + 1) * LEVEL))
        return z[k - 1] if k <= z.size else np.nan

    st = f.z(b, direction).groupby(GROUP).z.agg(za=conformal, m="size").reset_index()
    za = per_group(rows, st, "za", np.nan)
    m = np.where(np.isfinite(za), per_group(rows, st, "m", 0.0), 0.0)
    za = np.where(np.isfinite(za), za, zc)
    return (m0 * zc + m * za) / (m0 + m) * scale(f.em, features(rows))


def conformal_blend(f: Fold, m0: float, direction=False, correct=True) -> pd.DataFrame:
    c = 1.0
    if correct:  # one pooled factor: the calibration sources' coverage at the level
        h_t = conformal_half(f, f.train, f.train_bt, m0, direction)
        c = weighted_quantile(np.abs(log_error(f.train)) / h_t, cell_weights(f.train), LEVEL)
    return scored(f.held, c * conformal_half(f, f.held, f.held_bt, m0, direction))


def learnt_m0(f: Fold, criterion: str) -> float:
    """V7's m0 chosen on the calibration sources (M0_GRID) by an interval criterion."""
    e = np.abs(log_error(f.train))
    w = cell_weights(f.train)
    best, best_m0 = np.inf, M0_GRID[0]
    for m0 in M0_GRID:
        h = conformal_half(f, f.train, f.train_bt, m0)
        h = h * weighted_quantile(e / h, w, LEVEL)
        cov = pd.Series(e <= h).groupby([f.train.source, f.train.split]).mean()
        inband = int(((cov >= 0.7) & (cov <= 0.9)).sum())
        if criterion == "score":  # Winkler interval score, in log units
            s = 2 * h + 2 / (1 - LEVEL) * np.maximum(e - h, 0)
            ok = np.isfinite(s)
            value = float(np.sum(w[ok] * s[ok]) / w[ok].sum())
        elif criterion == "deviation":
            value = float(np.mean(np.abs(cov - LEVEL)))
        elif criterion == "in-band, larger m0":
            value = -inband - 1e-6 * m0
        else:  # "in-band, smaller m0"
            value = -inband + 1e-6 * m0
        if value < best:
            best, best_m0 = value, m0
    return best_m0


def nested_m0(records: pd.DataFrame, bt: pd.DataFrame, held: str) -> dict:
    """V7's m0 chosen by leave-one-source-out *inside* the calibration sources of ``held``, by three criteria.

    For each m0 of ``M0_GRID``: calibrate on two of the three, score V7 on the third, for each third.  Returns
    ``{criterion: m0}``: ``"in-band"`` (most inner cells in 0.70-0.90; the middle of the tied m0s),
    ``"deviation"`` (smallest mean |coverage - 0.80| over the inner cells), ``"score"`` (smallest weighted
    interval score).
    """
    sub = records[records.source != held]
    inner = [Fold(sub, bt, src) for src in sub.source.unique()]
    stats = {}
    for m0 in M0_GRID:
        rows = pd.concat([conformal_blend(f, m0) for f in inner], ignore_index=True)
        cov = rows.groupby(["source", "split"]).covered.mean()
        e, h = np.abs(log_error(rows)), rows.logwidth.to_numpy() / 2
        score = 2 * h + 2 / (1 - LEVEL) * np.maximum(e - h, 0)
        w, ok = cell_weights(rows), np.isfinite(score)
        stats[m0] = (int(((cov >= 0.7) & (cov <= 0.9)).sum()), float(np.mean(np.abs(cov - LEVEL))),
                     float(np.sum(w[ok] * score[ok]) / w[ok].sum()))
    most = max(v[0] for v in stats.values())
    tied = [m0 for m0 in M0_GRID if stats[m0][0] == most]
    return {"in-band": tied[len(tied) // 2], "deviation": min(M0_GRID, key=lambda m0: stats[m0][1]),
            "score": min(M0_GRID, key=lambda m0: stats[m0][2])}


# ------------------------------------------------------------------------------------ report
def cells(rows: pd.DataFrame) -> str:
    out = []
    for src, split in CELLS:
        g = rows[(rows.source == src) & (rows.split == split)]
        out.append(f"{g.covered.mean():.2f} ({np.nanmedian(g.logwidth):.2f})" if len(g) else "")
    return " | ".join(out)


def main(argv=None) -> int:
    """Print the coverage of every variant (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extrap-repo", default=DEFAULT_EXTRAP_REPO if Path(DEFAULT_EXTRAP_REPO).exists() else None)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    sources = development_sources(extrap_repo=args.extrap_repo)
    records = benchmark_records(sources, progress=False)
    bt = backtests(sources)
    folds = {src: Fold(records, bt, src) for src in records.source.unique()}

    def variant(label, func, *a, **k):
        rows = pd.concat([func(f, *a, **k) for f in folds.values()], ignore_index=True)
        print(f"| {label} | {cells(rows)} |")

    print(f"{len(records)} member rows, {len(bt)} backtest rows\n")
    print("| variant | " + " | ".join(f"{s} {p}" for s, p in CELLS) + " |")
    print("|---" * (len(CELLS) + 1) + "|")
    variant("baseline", baseline)
    for stat in ("median", "q80"):
        for m0 in (1, 3, 10, 30, 100):
            variant(f"V1 {stat}, m0 = {m0}", shrunk_factor, m0, stat)
        variant(f"V1 {stat}, m0 = 10, not re-quantiled", shrunk_factor, 10, stat, requantile=False)
    for m0 in (3, 10, 30):
        variant(f"V2 widen only, m0 = {m0}", shrunk_factor, m0, widen_only=True)
        variant(f"V6 direction folds, m0 = {m0}", shrunk_factor, m0, direction=True)
        variant(f"V2 + V6, m0 = {m0}", shrunk_factor, m0, widen_only=True, direction=True)
    for mode in ("replace", "add"):
        for direction in (False, True):
            variant(f"V3 {mode}{', direction folds' if direction else ''}", learnt_feature, mode, direction)
    for m0 in M0_GRID:
        variant(f"V7, m0 = {m0}", conformal_blend, m0)
    for m0 in (3, 10, 30, 100):
        variant(f"V7 direction folds, m0 = {m0}", conformal_blend, m0, direction=True)
    variant("V9 distance capped at the calibration's largest", distance_capped)
    for criterion in ("score", "deviation", "in-band, larger m0", "in-band, smaller m0"):
        chosen = {src: learnt_m0(f, criterion) for src, f in folds.items()}
        rows = pd.concat([conformal_blend(f, chosen[src]) for src, f in folds.items()], ignore_index=True)
        print(f"| V7, m0 learnt ({criterion}: {chosen}) | {cells(rows)} |")
    nested = {src: nested_m0(records, bt, src) for src in folds}
    for criterion in ("in-band", "deviation", "score"):
        chosen = {src: nested[src][criterion] for src in folds}
        rows = pd.concat([conformal_blend(f, chosen[src]) for src, f in folds.items()], ignore_index=True)
        print(f"| V7, m0 by nested leave-one-source-out ({criterion}: {chosen}) | {cells(rows)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
