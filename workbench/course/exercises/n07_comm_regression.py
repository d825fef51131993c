"""Exercises of notebook 07, communication time from descriptive metrics ([Papadopoulou2015]).

Every exercise fits the dashboard's opening data: the binary-tree OSU broadcast of ORFEO
with ``--map-by core`` (catalogue ``osu-orfeo``, 1344 points) with its descriptors
(:func:`~workbench.evaluation.comm_regression.osu_broadcast_frame`), fitted and scored by
:func:`~workbench.evaluation.comm_regression.fit_and_evaluate` as in
:func:`workbench.views.comm_regression.fit_comm_regression`.
"""

from __future__ import annotations

from functools import lru_cache

from workbench.course.exercise import choice, numeric
from workbench.evaluation.comm_regression import fit_and_evaluate, osu_broadcast_frame
from workbench.io import fetch_dataset
from workbench.models.comm.regression import AreaSplit

#: The dashboard's opening data: placement core, Open MPI broadcast algorithm 5 (binary tree).
_MAPPING, _ALGORITHM = "core", 5
_KIB = 1024


@lru_cache(maxsize=1)
def _broadcasts():
    return osu_broadcast_frame(fetch_dataset("osu-orfeo").frame, _MAPPING, _ALGORITHM)


def _overall(nt_threshold_kib: float = 128, robust: str = "bisquare", how: str = "all") -> dict:
    split = AreaSplit(nt_threshold_bytes=nt_threshold_kib * _KIB, s_threshold_bytes=4 * _KIB)
    return fit_and_evaluate(_broadcasts(), split, robust, how)[0].overall()


def _area_ii_when_raised() -> str:
    def area_ii(nt_threshold_kib: float) -> int:
        split = AreaSplit(nt_threshold_bytes=nt_threshold_kib * _KIB, s_threshold_bytes=4 * _KIB)
        return int((split.labels(_broadcasts()) == "II").sum())

    before, after = area_ii(128), area_ii(512)
    return "fewer points" if after < before else ("more points" if after > before else "the same points")


EXERCISES = (
    choice(
        "07_comm_regression/raise-nt-threshold", 1,
        "Predict before you move the slider: the NT threshold (primary slider) goes from 128 KiB to 512 KiB. "
        "What does Area II (NT above the threshold) hold afterwards?",
        ("more points", "fewer points", "the same points"),
        _area_ii_when_raised,
        "Area II is NT > threshold: which way does the vertical line move in the left panel, and which points are "
        "on its right?",
        explanation="A higher threshold moves the line to the right: the points with NT between 128 KiB and "
        "512 KiB go from Area II to Area I, and both areas are refitted.",
    ),
    numeric(
        "07_comm_regression/in-sample-mape", 2,
        "With the opening settings (NT threshold 128 KiB, S threshold 4 KiB, bisquare, in-sample), what is the "
        "overall mean absolute percentage error (MAPE) of the fit?",
        lambda: float(_overall()["mape"]),
        "Read the 'overall (ours)' readout under the figures.",
        explanation="One robust linear model per area, scored on the points it was fitted on; the paper "
        "reports 29 % on its own (different) data.",
        rel_tol=0.03,
        unit="%",
    ),
    numeric(
        "07_comm_regression/least-squares", 3,
        "Change the robust loss from bisquare to ols (ordinary least squares), all else as opened. What overall "
        "MAPE do you get now?",
        lambda: float(_overall(robust="ols")["mape"]),
        "Choose 'ols' in the robust loss control and read the 'overall (ours)' readout again.",
        explanation="Least squares minimises the squared error in microseconds, so the few slow points with "
        "large times pull the lines and the many fast points get larger relative errors: the MAPE rises. "
        "Bisquare gives outlying points less weight.",
        rel_tol=0.03,
        unit="%",
    ),
    numeric(
        "07_comm_regression/train-small-test-big", 4,
        "Choose the evaluation 'train small / test big': fit on the broadcasts with at most 64 processes and "
        "score on those with 128-256. What overall MAPE does the fit reach on the big runs? Then explain the miss "
        "from the predicted-vs-observed panel.",
        lambda: float(_overall(how="scale")["mape"]),
        "Read the 'overall (ours)' readout with that evaluation; in the right panel, are the test points above or "
        "below the diagonal?",
        explanation="With --map-by core and 128 cores per node, every training run (<= 64 processes) is on one "
        "node: inter-node traffic (I > 0) is never seen in training, and the model under-predicts the big runs, "
        "all of which span both nodes (its mean signed error is negative).",
        rel_tol=0.03,
        unit="%",
    ),
)
