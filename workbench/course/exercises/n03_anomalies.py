"""Exercises of notebook 03, anomalies ([Deshmeh2013] section 3.9).

The dashboard's SYNTHETIC curve (Downey A = 40, sigma = 0.5, tau = 2 s on n = 1 ... 128, the run
at n = 32 made 25 % too fast; every run but the largest observed) for the first four; the
Raspberry Pi NPB logs (real data: needs the mirror ``WORKBENCH_DATA_MIRROR``) for the last.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from workbench.course.exercise import choice, numeric
from workbench.evaluation.model_data import synthetic_anomaly_frame
from workbench.io import fetch_npb_pi_cluster, select_curve
from workbench.metrics import error_pct
from workbench.models.adept import Adept, detect_anomalies, r_metric

ANOMALY_AT = 32.0


def _example_observed() -> tuple[np.ndarray, np.ndarray]:
    """Return the observed runs of the dashboard's SYNTHETIC curve: every run but the largest."""
    frame = synthetic_anomaly_frame(anomaly_at=ANOMALY_AT)
    n, t = frame["processes"].to_numpy(float), frame["time_s"].to_numpy(float)
    return n[:-1], t[:-1]


def _flagged(epsilon: float) -> bool:
    return ANOMALY_AT in detect_anomalies(*_example_observed(), epsilon=epsilon).candidates["n"].to_numpy()


def _anomaly(theta: float = 5.0):
    anomalies = detect_anomalies(*_example_observed(), epsilon=0.1, theta=theta).anomalies
    return anomalies[anomalies["n"] == ANOMALY_AT].iloc[0]


def _rise_into_32() -> float:
    n, t = _example_observed()
    R = r_metric(n, t)  # R[i] for the pair n[i] -> n[i + 1]
    i = int(np.flatnonzero(n == ANOMALY_AT)[0]) - 1  # the pair 16 -> 32
    return float(R[i] / R[i - 1])


@lru_cache(maxsize=1)
def _ep_d_miss() -> float:
    curve = select_curve(fetch_npb_pi_cluster().frame, "ep", "D", "packed (4 per node)")
    n, t = curve["processes"].to_numpy(float), curve["time_s"].to_numpy(float)
    prediction = Adept().fit(n[:-1], t[:-1]).predict([n[-1]])[0]
    return float(error_pct(t[-1], prediction))


EXERCISES = (
    choice(
        "03_anomalies/epsilon-up", 1,
        "Predict before you move the slider: raise the sensitivity epsilon from 0.1 to 0.3. Is the too-fast run at "
        "n = 32 still an anomaly candidate?",
        ("yes, still flagged", "no, no longer flagged"),
        lambda: "yes, still flagged" if _flagged(0.3) else "no, no longer flagged",
        "A pair is flagged when R rises by more than a factor 1 + epsilon from one pair to the next: compare the "
        "rise of R into n = 32 with the dotted threshold bar.",
        explanation="R rises by a factor 1.2 from the pair 8 -> 16 to the pair 16 -> 32, which is more than 1.1 "
        "but less than 1.3: at epsilon = 0.3 nothing is flagged.",
    ),
    numeric(
        "03_anomalies/rise-of-R", 2,
        "On the R curve, by what factor does R rise from the pair 8 -> 16 to the pair 16 -> 32?",
        _rise_into_32,
        "Hover the R curve at the two pairs (8 -> 16 and 16 -> 32) and divide the second R by the first.",
        explanation="Without the anomaly R would fall slowly along the curve; the run at 32 is 25 % too fast, "
        "which lifts R of the pair 16 -> 32.",
        rel_tol=0.02,
    ),
    numeric(
        "03_anomalies/magnitude", 2,
        "With epsilon = 0.1, what magnitude D does ADEPT give the anomaly it resolves at n = 32?",
        lambda: float(_anomaly()["D"]),
        "Hover the red cross on the R curve; D = min(10, (R_(i+1) - R_i) / epsilon) (chapter section 2).",
        explanation="D = (R(16 -> 32) - R(8 -> 16)) / 0.1: the jump of R in units of epsilon.",
        rel_tol=0.02,
    ),
    numeric(
        "03_anomalies/theta-10", 3,
        "Move the tolerance theta from 5 to 10 (epsilon = 0.1). By what factor is the weight of the run at n = 32 "
        "now multiplied in the fit?",
        lambda: float(_anomaly(theta=10.0)["weight_factor"]),
        "The weight factor is max(0, (theta - D) / theta); read D from the red cross, or the anomaly factor in the "
        "weights panel.",
        explanation="A larger theta forgives more: the factor rises from about 0.43 at theta = 5 to about 0.71 at "
        "theta = 10, so the too-fast run pulls the fit harder.",
        rel_tol=0.02,
    ),
    numeric(
        "03_anomalies/ep-d-miss", 4,
        "Real data: NPB EP class D on the Raspberry Pi cluster (packed, 4 per node), every run but the largest "
        "observed (4 ... 32 processes). By how many percent of the measured runtime does ADEPT, with anomaly "
        "handling, miss the held-back run at 64 processes?",
        _ep_d_miss,
        "Choose the Raspberry Pi source and EP D packed; read the held-back run's PA (error = 100 - PA) in the "
        "second figure, or compute 100 |prediction - actual| / actual.",
        explanation="ADEPT flags n = 8 (the step 8 -> 16 is 2.65x faster, superlinear) and drops it, but the run "
        "that misleads it is the slow one at 32 (only 1.4x faster than 16): a too-slow run lowers R, which looks "
        "like a normal saturating curve, so nothing flags it. The fit reads it as saturation and predicts about "
        "the 32-process runtime (170 s), while 64 processes ran 2.5x faster (67 s).",
        unit="%",
    ),
)
