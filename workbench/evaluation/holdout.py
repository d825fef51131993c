"""Held-back-allocation evaluation of ADEPT and its baselines on real strong-scaling curves.

For every curve with enough points, the ``k`` smallest allocations are "observed" and the
larger ones held back — the scheduler's question "how will this job run on more nodes?".
Each model is fitted on the observed runs only and predicts the held-back runtimes; ADEPT's
reliability warnings are recorded beside its errors, so one can check the goal that a user
is warned before nearly every large miss.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from workbench.errors import WorkbenchError, quiet_warnings
from workbench.metrics import error_pct
from workbench.models.adept import Adept
from workbench.models.baselines import AmdahlModel, DowneyLM, USLModel
from workbench.validation import Threshold

__all__ = ["MISS", "RELIABILITY_KINDS", "holdout_table", "holdout_summary", "default_models"]

#: Warning kinds that say "do not trust this prediction blindly" ("delta-increased",
#: "dropped-repeat", "stepwise" and "specially-optimised" are informational).
RELIABILITY_KINDS = frozenset({
    "linear-section", "high-fit-error", "runner-up", "declining-or-anomalous-last-point",
    "sizes-differ", "unresolved-anomaly", "superlinear-speedup", "anomaly",
    "saturation-undetermined", "saturation-near-range",
})
#: A held-back prediction misses when its error E is above this (the ADEPT chapter's tables);
#: the summary's ``within_<value>pct`` column and the tables' headers are written from it.
MISS = Threshold(30.0, "percent", "a held-back prediction misses when its error E = |predicted - actual| / actual "
                 "is above this", "holdout_summary; notebook 02's summary table (views.adept)")


def default_models() -> dict:
    """Model name -> unfitted estimator with ``fit(n, t)`` / ``predict(n)`` (cloned per curve)."""
    return {
        "ADEPT": Adept(),
        "ADEPT (paper units, s)": Adept(units="paper"),
        "ADEPT (paper units, ms)": _Milliseconds(Adept(units="paper")),
        "Amdahl": AmdahlModel(),
        "USL": USLModel(),
        "Downey LM": DowneyLM(),
    }


class _Milliseconds(BaseEstimator):
    """Feeds a model milliseconds and returns seconds: shows the unit pitfall of paper mode."""

    def __init__(self, model):
        self.model = model

    def fit(self, n, t):
        self.model.fit(n, np.asarray(t) * 1000.0)
        return self

    def predict(self, n):
        return self.model.predict(n) / 1000.0

    def warnings_for(self, n):
        return self.model.warnings_for(n)


def _curves(frame: pd.DataFrame, min_points: int):
    from workbench.io import list_curves, select_curve

    for row in list_curves(frame).itertuples(index=False):
        if row.n_points < min_points:
            continue
        curve = select_curve(frame, row.benchmark, row.problem_class, row.placement)
        agg = curve.groupby("processes", as_index=False)["time_s"].mean()
        yield row, agg["processes"].to_numpy(float), agg["time_s"].to_numpy(float)


def _warned(model, target: float) -> tuple[bool, str]:
    kinds = sorted({
        w.kind for w in model.warnings_for([target])
        if w.kind in RELIABILITY_KINDS and (not w.targets or target in w.targets)
    })
    return bool(kinds), ", ".join(kinds)


def holdout_table(frame: pd.DataFrame | None = None, n_observed=(3, 4), models: dict | None = None) -> pd.DataFrame:
    """Predict held-back allocations from the ``n_observed`` smallest ones, per curve and model.

    ``frame``: a scaling frame (default: the Raspberry Pi cluster NPB logs from the
    catalogue, which needs ``WORKBENCH_DATA_MIRROR``).  Returns one row per (curve,
    n_observed, target, model) with columns benchmark, problem_class, placement,
    n_observed, observed (the allocations used), target, actual (s), model, prediction (s),
    error_pct, warned (ADEPT only: a reliability warning covers this target) and
    warning_kinds.  A model that cannot fit a curve gets NaN predictions and the error
    message in ``warning_kinds``.

    Parameters
    ----------
    frame : pandas.DataFrame or None, default None
        A scaling frame; None: the Raspberry Pi cluster NPB logs.
    n_observed : sequence of int, default (3, 4)
        How many of the smallest allocations are observed, one protocol each.
    models : dict of str -> estimator or None, default None
        The models by name; None: :func:`default_models`.
    """
    if frame is None:
        from workbench.io import fetch_npb_pi_cluster

        with warnings.catch_warnings():  # aborted logs are listed in frame.attrs["skipped"]
            warnings.simplefilter("ignore")
            frame = fetch_npb_pi_cluster().frame
    models = models or default_models()
    rows = []
    for curve, n, t in _curves(frame, min(n_observed) + 1):
        for k in n_observed:
            if len(n) <= k:
                continue
            obs, held = slice(0, k), slice(k, None)
            for name, estimator in models.items():
                model = clone(estimator)
                try:
                    with quiet_warnings():  # recorded per target below (warnings_for)
                        model.fit(n[obs], t[obs])
                    pred = np.asarray(model.predict(n[held]), float)
                    note = ""
                except WorkbenchError as exc:
                    pred, note = np.full(len(n[held]), np.nan), f"fit failed: {exc}"
                for target, actual, p in zip(n[held], t[held], pred):
                    warned, kinds = (_warned(model, target) if hasattr(model, "warnings_for") and not note
                                     else (False, note))
                    rows.append({
                        "benchmark": curve.benchmark, "problem_class": curve.problem_class,
                        "placement": curve.placement, "n_observed": k, "observed": tuple(n[obs].astype(int)),
                        "target": target, "actual": actual, "model": name, "prediction": p,
                        "error_pct": float(error_pct(actual, p)) if np.isfinite(p) else np.nan,
                        "warned": warned, "warning_kinds": kinds,
                    })
    if not rows:
        raise WorkbenchError(f"no curve has more than {min(n_observed)} allocations to hold some back")
    return pd.DataFrame(rows)


def holdout_summary(table: pd.DataFrame, miss_pct: float = MISS.value) -> pd.DataFrame:
    """Score each model's predictions: count, mean and median PA, share within ``miss_pct``.

    PA = 100 - E; for models that warn, also how many misses (E > ``miss_pct``) carried a
    warning.  Refused predictions (NaN) are counted, not scored.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`holdout_table`'s rows (columns ``model``, ``error_pct``, ``warned``).
    miss_pct : float, default MISS.value (30)
        The error E (percent) above which a prediction misses.
    """

    def one(g: pd.DataFrame) -> pd.Series:
        e = g["error_pct"]
        miss = e > miss_pct
        return pd.Series({
            "predictions": int(e.notna().sum()),
            "refused": int(e.isna().sum()),
            "mean_PA": float(100 - e.mean()),
            "median_PA": float(100 - e.median()),
            f"within_{miss_pct:g}pct": float((e <= miss_pct).sum() / max(e.notna().sum(), 1)),
            "misses": int(miss.sum()),
            "misses_warned": int((miss & g["warned"]).sum()),
            "warned_share_of_misses": float((miss & g["warned"]).sum() / miss.sum()) if miss.any() else np.nan,
            "warned_share_of_all": float(g["warned"].mean()),
        })

    return table.groupby("model", sort=False)[["error_pct", "warned"]].apply(one).reset_index()
