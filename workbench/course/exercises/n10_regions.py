"""Exercises of notebook 10, "Which part of my code stops scaling?" (RegionPredictor on profiles).

The dashboard opens on the RELeARN profiles (catalogue ``relearn-profiles``, real data: needs
the mirror ``WORKBENCH_DATA_MIRROR``): 14 regions measured at 32..512 processes for 5 neuron
counts, of which it models the first (n = 5000, the configuration it names in its notice),
with the target at 4x the largest measured run (2048 processes) and 80 % intervals. The
SYNTHETIC application of the data menu follows exact laws (:data:`LAWS`, the dashboard's
``workbench.views.regions.SYNTHETIC_LAWS``: a sibling floor, so restated here and compared
with it by ``tests/test_exercises.py``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import optimize

from workbench.course.exercise import choice, numeric
from workbench.errors import quiet_warnings
from workbench.io import fetch_dataset
from workbench.models.regions import RegionPredictor

#: The dashboard's default target: 4x RELeARN's largest measured run (512 processes).
TARGET = 2048.0
PREFIX = "Simulation loop->Connectivity update->"
#: The regions the first exercise asks about (the ones that contain them, main(), Simulation loop and
#: Connectivity update, are left out: their share includes the others').
CANDIDATES = ("Find target neurons (w/ RMA)", "Create synapses (w/ Alltoall)", "Update local trees",
              "Empty remote nodes cache")
ALLREDUCE = "main->solve->MPI_Allreduce"
#: The SYNTHETIC application's own (exclusive) time in seconds per region, as a function of p.
LAWS = {
    "main": lambda p: 0.5 + 0 * p,
    "main->solve": lambda p: 64.0 / p,
    ALLREDUCE: lambda p: 0.2 * np.log2(p),
    "main->io": lambda p: 1.0 + 0 * p,
}


@lru_cache(maxsize=1)
def _relearn() -> RegionPredictor:
    """Return the dashboard's default model (its fit warns of the several configurations: its notice says so)."""
    with quiet_warnings():
        return RegionPredictor().fit(fetch_dataset("relearn-profiles").frame, n="processes")


@lru_cache(maxsize=1)
def _at_target():
    return _relearn().predict_frame([TARGET], 0.8).set_index("region")


def _largest_share() -> str:
    shares = _at_target()["share"]
    return max(CANDIDATES, key=lambda name: shares[PREFIX + name])


def _warned() -> float:
    return float(_at_target()["warned"].sum())


def _allreduce_takes_over() -> float:
    """Return the process count at which MPI_Allreduce's own time, by the laws, first exceeds every other one."""
    own = dict(LAWS)
    allreduce = own.pop(ALLREDUCE)

    def gap(log2_p: float) -> float:
        p = np.float64(2.0 ** log2_p)
        return float(allreduce(p) - max(float(law(p)) for law in own.values()))

    return float(2.0 ** optimize.brentq(gap, 1.0, 20.0, xtol=1e-10))


EXERCISES = (
    choice(
        "10_regions/largest-share", 1,
        "On the default data (RELeARN, n = 5000 neurons, target 2048 processes), predict before you read the "
        "region table: which of these regions takes the largest share of the predicted total? (The regions that "
        "contain them, main(), Simulation loop and Connectivity update, are left out.)",
        CANDIDATES,
        _largest_share,
        "Read the share column of the region table under the figures (largest first); the names there are full "
        "call paths, e.g. 'Simulation loop->Connectivity update->Find target neurons (w/ RMA)'.",
        explanation="Finding the target neurons (remote memory access) takes almost all of the run at 2048 "
        "processes, and creating the synapses (an all-to-all) almost as much: both are inside the connectivity "
        "update, which is nearly the whole simulation loop. The other two options are below 0.01 % of the run.",
    ),
    numeric(
        "10_regions/overlap", 2,
        "Same data. The verdicts end with a check of how the regions' own (exclusive) times add up to the total. "
        "In the measured profiles, what do they add up to, in percent of the total (the median over the profiles)?",
        lambda: 100.0 * _relearn().measured_ratio_,
        "Read the last sentence of the verdicts above the figures: 'Already in the measured profiles they add up "
        "to ... of the total'.",
        explanation="About twice the total: RELeARN's regions overlap. Extra-P's text format gives no call tree, "
        "the indentation of its REGION names is read as nesting, and two regions that each take nearly the whole "
        "run (finding target neurons and creating synapses) are siblings there although one runs inside the "
        "other. The stacked figure is therefore not the total: read each region's own fit.",
        unit="%",
    ),
    numeric(
        "10_regions/warned", 2,
        "Same data and target. How many of the 13 regions' predictions are warned (the 'warned' column of the "
        "region table)?",
        _warned,
        "Count the rows of the region table whose warned column is true (or whose warnings include high-risk).",
        explanation="Nearly all of them: every RELeARN region's time grows with the process count (each process "
        "holds n neurons, so this is not strong scaling), unlike the strong-scaling curves the warnings were "
        "calibrated on. Measured on held-out allocations (tools/region_coverage.py), most of these region "
        "predictions do miss by more than 30 %: the interval, not the point, is the answer here.",
        rel_tol=0.0,
    ),
    numeric(
        "10_regions/allreduce-law", 3,
        "Switch the data to the SYNTHETIC application, whose own times follow exact laws: solve 64/p s, "
        "MPI_Allreduce 0.2 log2(p) s, io 1 s, main 0.5 s. From the laws alone, at which process count p does "
        "MPI_Allreduce's own time first exceed every other region's? Then compare with the dashboard's verdict.",
        _allreduce_takes_over,
        "Past p = 64, io (1 s) is the largest of the others; before, solve (64/p). Solve 0.2 log2(p) = 64/p "
        "numerically (between p = 32 and 64).",
        explanation="p = 55.3: 0.2 log2(p) = 64/p there (1.16 s). The dashboard's region models see only p = 2..32, "
        "all before the crossing, so their 'starts to dominate' is an extrapolation with a wide interval: read "
        "the interval of the verdict, and measure past the crossing before trusting its point.",
        rel_tol=0.02,
    ),
)
