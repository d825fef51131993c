"""Exercises of notebook 04, predicting across problem sizes ([Deshmeh2013] sections 3.12-3.15).

The dashboard's default: the bundled SYNTHETIC cross-size example, target size ``large``
observed at its two smallest allocations (n = 1, 2), base size ``small`` (all 16 runs).
The Raspberry Pi NPB logs have no base size (see the chapter), so there is no real-data
exercise here.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from workbench.course.exercise import choice, numeric
from workbench.io import fetch_dataset, select_curve
from workbench.metrics import prediction_accuracy
from workbench.models.adept import Adept

DEFAULT_OBSERVED = (1, 2)


@lru_cache(maxsize=1)
def _sizes():
    frame = fetch_dataset("synthetic-cross-size").frame
    base = select_curve(frame, "downey-synthetic", "small")
    target = select_curve(frame, "downey-synthetic", "large")
    return ((base["processes"].to_numpy(float), base["time_s"].to_numpy(float)),
            (target["processes"].to_numpy(float), target["time_s"].to_numpy(float)))


@lru_cache(maxsize=4)
def _fit(observed: tuple[int, ...]) -> Adept:
    base, (n, t) = _sizes()
    keep = np.isin(n, observed)
    return Adept().fit(n[keep], t[keep], base=base)


def _guiding_points(observed) -> int:
    return int((_fit(tuple(observed)).observations_["kind"] == "guiding").sum())


def _pa_at_256() -> float:
    _, (n, t) = _sizes()
    return float(prediction_accuracy(t[n == 256][0], _fit(DEFAULT_OBSERVED).predict([256])[0]))


def _sizes_differ(observed) -> bool:
    return any(w.kind == "sizes-differ" for w in _fit(tuple(observed)).warnings_)


EXERCISES = (
    choice(
        "04_cross_size/third-run", 1,
        "Predict before you toggle: besides n = 1 and 2, observe the large size's run at n = 3 too. What happens "
        "to the number of guiding points?",
        ("it grows", "it shrinks", "it stays the same"),
        lambda: ("it shrinks" if _guiding_points((1, 2, 3)) < _guiding_points(DEFAULT_OBSERVED) else
                 "it grows" if _guiding_points((1, 2, 3)) > _guiding_points(DEFAULT_OBSERVED) else
                 "it stays the same"),
        "A guiding point is made for every n observed on the base size but not on the target size "
        "(chapter section 1, step 2).",
        explanation="n = 3 is now measured on the large size, so its guiding point is no longer needed: "
        "one purple diamond fewer.",
    ),
    numeric(
        "04_cross_size/ratio", 2,
        "With the default runs (large size observed at n = 1 and 2), what runtime ratio R (large / small) does "
        "ADEPT use to make the guiding points?",
        lambda: float(_fit(DEFAULT_OBSERVED).ratio_),
        "Read the ratio R in the summary beside the figure; it is taken at the smallest n observed on both sizes.",
        explanation="R = T_large(1) / T_small(1): each guiding point is a small-size runtime times R.",
        rel_tol=0.02,
    ),
    numeric(
        "04_cross_size/pa-at-256", 2,
        "Same runs: what prediction accuracy PA (in %) does the held-back large-size run at n = 256 get?",
        _pa_at_256,
        "Hover the held-back run at n = 256 (its label gives PA); PA = 100 - 100 |prediction - actual| / actual.",
        explanation="The guiding points carry the small size's shape, and the small size (A = 120, sigma = 0.6) "
        "saturates earlier than the large one (A = 150, sigma = 0.7): the predicted curve flattens too early "
        "and predicts runtimes above the measured ones far out: PA 93 % at n = 128, 83 % at 192, 75 % at 256.",
        rel_tol=0.03,
        unit="%",
    ),
    choice(
        "04_cross_size/sizes-differ", 3,
        "Observe the large size at n = 1, 2 and 256. Does ADEPT now warn that the two sizes behave like different "
        "applications (sizes-differ: the ratio large / small varies by more than 25 % over the common n)?",
        ("yes, it warns sizes-differ", "no, no sizes-differ warning"),
        lambda: "yes, it warns sizes-differ" if _sizes_differ((1, 2, 256)) else "no, no sizes-differ warning",
        "Compare the runtime ratios large / small at the n observed on both sizes (1, 2 and 256): hover the runs "
        "of both sizes.",
        explanation="The ratio is 4.68 at n = 2 but 3.73 at n = 256 (the large size keeps scaling where the small "
        "one saturates): 25.6 % apart, just past the 25 % tolerance (chapter section 3).",
    ),
)
