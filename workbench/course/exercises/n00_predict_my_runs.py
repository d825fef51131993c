"""Exercises of notebook 00, "Predict my runs" (the scaling predictor on the dashboard's default curve).

The default curve is GROMACS benchPEP on ARCHER2 from the scaling corpus (real data: needs
the mirror ``WORKBENCH_DATA_MIRROR``); the dashboard observes 1, 4, 32 and 128 nodes of it
by default and holds the other allocations back.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from workbench.course.exercise import choice, numeric
from workbench.io import fetch_dataset
from workbench.metrics import error_pct
from workbench.models.scaling import MODELS, ScalingPredictor
from workbench.plots.scaling import MODEL_LABELS

#: The dashboard's default curve (``workbench.ui.predict_dashboard.DEFAULT_CURVE``) and its default observed runs.
CURVE_ID = "archer2-gromacs-benchpep-ofi-1thr"
DEFAULT_OBSERVED = (1, 4, 32, 128)
SMALLEST_FOUR = (1, 2, 4, 8)


@lru_cache(maxsize=1)
def _curve():
    corpus = fetch_dataset("scaling-corpus").frame
    curve = corpus[corpus["curve_id"] == CURVE_ID]
    return curve["n"].to_numpy(float), curve["time_s"].to_numpy(float)


@lru_cache(maxsize=4)
def _predictor(observed: tuple[int, ...]) -> ScalingPredictor:
    n, t = _curve()
    keep = np.isin(n, observed)
    return ScalingPredictor().fit(n[keep], t[keep])


def _width(target: float) -> float:
    """Width of the 80 % interval at ``target`` as a factor upper/lower (the readout's "width x")."""
    row = _predictor(DEFAULT_OBSERVED).predict_frame([target], 0.8).iloc[0]
    return float(row["upper"] / row["lower"])


def _chosen_model() -> str:
    return MODEL_LABELS[_predictor(DEFAULT_OBSERVED).predict_frame([256], 0.8).iloc[0]["model"]]


def _miss_at_64() -> float:
    n, t = _curve()
    measured = float(np.median(t[n == 64]))  # five repeats: the median, as the predictor aggregates them
    return float(error_pct(measured, _predictor(DEFAULT_OBSERVED).predict([64])[0]))


EXERCISES = (
    choice(
        "00_predict_my_runs/interval-far-out", 1,
        "On the default curve (GROMACS on ARCHER2, observed 1, 4, 32 and 128 nodes), predict before you move the "
        "target slider: when the target goes from 256 to 2048 nodes, what happens to the 80 % interval (its width "
        "as a factor upper/lower)?",
        ("it gets wider", "it gets narrower", "it stays about the same"),
        lambda: "it gets wider" if _width(2048) > 1.5 * _width(256) else (
            "it gets narrower" if _width(2048) < _width(256) / 1.5 else "it stays about the same"),
        "The interval is calibrated on real held-back runs: think of what the extrapolation distance "
        "(target / largest observed run) does to the misses. Compare the readout '80 % interval' at both targets.",
        explanation="The interval widens with the extrapolation distance (16x the largest run at 2048 nodes, "
        "against 2x at 256), and the prediction carries a far-extrapolation warning there.",
    ),
    choice(
        "00_predict_my_runs/chosen-model", 2,
        "Same curve and runs, target 256 nodes: which model does the predictor choose (the largest weight)?",
        tuple(MODEL_LABELS[m] for m in MODELS),
        _chosen_model,
        "Read 'chosen model' in the readout beside the sliders, or the largest weight in the model-weights table.",
        explanation="The weights come from how well each model predicted this curve's own largest runs from the "
        "smaller ones, and how well it extrapolated on the corpus; here Amdahl, ADEPT and PMNF share the weight "
        "almost evenly and Amdahl has the largest.",
    ),
    numeric(
        "00_predict_my_runs/smallest-four", 3,
        "Toggle the observed runs to the four smallest allocations only (1, 2, 4 and 8 nodes). What runtime does "
        "the predictor now give at 256 nodes?",
        lambda: float(_predictor(SMALLEST_FOUR).predict([256])[0]),
        "Untick 32 and 128, tick 2 and 8 in the observed runs, set the target to 256 and read 'runtime at n = 256'.",
        explanation="The four smallest runs halve the runtime at each doubling, so they say little about where "
        "the curve flattens (it stops falling after 64 nodes: 38 s measured at 256): the prediction is warned "
        "(high-risk, far-extrapolation) and its 80 % interval spans more than a factor 10, with the measured "
        "runtime inside it. Models that turn upward past 8 nodes although every run fell (USL, PMNF) are left "
        "out of the point: the data do not show that turn.",
        unit="s",
    ),
    numeric(
        "00_predict_my_runs/miss-at-64", 4,
        "Back to the default observed runs (1, 4, 32, 128 nodes). The run at 64 nodes is held back: by how many "
        "percent of the measured runtime (median of its repeats) does the predictor miss it?",
        _miss_at_64,
        "Read the held-back runs table under the figure (prediction against actual at n = 64), or compute "
        "100 |prediction - actual| / actual from the readout at target 64.",
        explanation="The measured runtime stops falling after 64 nodes (33 s at 64, 36 s at 128, 38 s at 256): "
        "the curve is retrograde, and the observed 32- and 128-node runs straddle its minimum. Amdahl, the chosen "
        "model, can only fall with n, so between 59 s at 32 nodes and 36 s at 128 it cannot dip to 33 s at 64: "
        "it overestimates, and the prediction there is warned (high-risk).",
        rel_tol=0.05,
        unit="%",
    ),
)
