"""Exercises of notebook 09, fractal extrapolation ([EscobarBoppana] section 2).

Every exercise runs the method on the measured demo profile (catalogue
``fractal-demo-local``) with the dashboard's controls, as
:func:`workbench.views.fractal.fractal_view` does
(:func:`~workbench.evaluation.fractal.demo_experiment`, target N_Lrg = the largest
measured size).
"""

from __future__ import annotations

import warnings
from functools import lru_cache

from workbench.course.exercise import choice, numeric
from workbench.errors import WorkbenchWarning
from workbench.evaluation.fractal import demo_experiment
from workbench.io import fetch_dataset

#: The dashboard's opening controls (section 2: 70 % major phases, k = 5, a 95 % band).
_OPENING = dict(threshold=0.70, tolerance=0.05, C=None, delta=None, k=5, confidence=0.95)


@lru_cache(maxsize=1)
def _profile():
    return fetch_dataset("fractal-demo-local").frame


def _experiment(**changed):
    profile = _profile()
    with warnings.catch_warnings():  # the dashboard lists them as notes
        warnings.simplefilter("ignore", WorkbenchWarning)
        return demo_experiment(profile, target_size=float(profile["size"].max()), **{**_OPENING, **changed})


def _phase(experiment, phase: str):
    return experiment.comparison.set_index("phase").loc[phase]


def _band_width(k: int) -> float:
    total = _phase(_experiment(k=k), "total")
    return float(total["band_high_s"] / total["band_low_s"])


def _fewer_sizes() -> str:
    wide5, wide3 = _band_width(5), _band_width(3)
    return "it widens" if wide3 > wide5 else ("it narrows" if wide3 < wide5 else "it stays the same")


def _joins_at_90() -> str:
    joined = [p for p in _experiment(threshold=0.90).phases if p not in _experiment().phases]
    return joined[0] if len(joined) == 1 else ("none" if not joined else "several")


EXERCISES = (
    choice(
        "09_fractal_extrapolation/fewer-sizes", 1,
        "Predict before you move the slider: k (primary slider) goes from 5 fitted sizes to 3. What happens to "
        "the band of the predicted total time T at N_Lrg?",
        ("it widens", "it narrows", "it stays the same"),
        _fewer_sizes,
        "The band is a Student t prediction interval with k - 2 degrees of freedom: what do fewer points do to t "
        "and to the fit's uncertainty? Read the 'T at N_Lrg' readout at both k.",
        explanation="With 3 points the interval has 1 degree of freedom (t is about 12.7 at 95 %) and a line "
        "through 3 scattered points is poorly pinned down at x = 0: the band grows from a factor of about 3 to "
        "a factor of hundreds.",
    ),
    numeric(
        "09_fractal_extrapolation/solve-slope", 2,
        "With the opening controls, what slope m (fractal dimension) does the log-log fit give the dense_solve "
        "phase?",
        lambda: float(_phase(_experiment(), "dense_solve")["m"]),
        "Read the 'phase dense_solve' readout, or the slope in the legend of the log-log figure.",
        explanation="LU is O(n^3): the measured slope comes out just below 3.",
        rel_tol=0.01,
    ),
    choice(
        "09_fractal_extrapolation/threshold-90", 3,
        "Raise the threshold of the major phases from 70 % to 90 %. Which phase joins dense_solve and stencil "
        "among the major phases?",
        ("setup", "sort", "none"),
        _joins_at_90,
        "Major phases are taken largest first until their cumulative share reaches the threshold: look at the "
        "shares-vs-size figure, or read the 'major phases' readout after the move.",
        explanation="dense_solve and stencil cover 70 % but not 90 % of the runtime, so the next-largest "
        "phase is added; it is then fitted and extrapolated like the others.",
    ),
    numeric(
        "09_fractal_extrapolation/stencil-miss", 4,
        "With the opening controls, by how many percent does the extrapolated stencil time (e^b) miss the "
        "measured stencil time of the large run? Then explain the miss from its log-log points.",
        lambda: float(_phase(_experiment(), "stencil")["error_pct"]),
        "Read the 'phase stencil' readout or the predicted-vs-measured bars; then compare the stencil's fitted "
        "slope with its O(n^2) complexity.",
        explanation="The stencil is O(n^2), but its fitted slope is well below 2 (about 1.75): over the fitted "
        "sizes its time grows slower than n^2 (fixed costs per sweep and cache effects weigh more at small n), "
        "and the line carries that too-flat slope to N_Lrg. The prediction is too low; the measured time still "
        "lies inside the wide band, which says how little to trust e^b.",
        rel_tol=0.03,
        unit="%",
    ),
)
