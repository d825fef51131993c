"""Exercises of notebook 01, the Downey model explorer ([Downey1997]; [Deshmeh2013] Table 1)."""

from __future__ import annotations

import numpy as np

from workbench.course.exercise import choice, numeric
from workbench.models import downey

EXERCISES = (
    choice(
        "01_downey_explorer/sigma-at-64", 1,
        "With A = 100, predict before you move the slider: at n = 64 processors, what happens to the speedup "
        "when sigma goes from 0 to 2?",
        ("it rises", "it falls", "it stays the same"),
        lambda: "it falls" if downey.speedup(64, 100, 2.0) < downey.speedup(64, 100, 0.0) else "it rises",
        "sigma is the variance of parallelism: a program whose parallelism varies keeps fewer processors busy "
        "on average. Set A = 100 and compare the two curves at n = 64.",
        explanation="More variance means more time in phases with less parallelism than the processors: "
        "S(64) drops from 64 to 45.",
    ),
    numeric(
        "01_downey_explorer/speedup-low-variance", 2,
        "With A = 100 and sigma = 0.5, what speedup does the model give at n = 50 processors?",
        lambda: float(downey.speedup(50, 100, 0.5)),
        "Low variance (sigma <= 1) and n <= A: the first formula of Table 1, S(n) = A n / (A + sigma (n - 1) / 2).",
        explanation="S(50) = 100 * 50 / (100 + 0.5 * 49 / 2) = 44.5.",
        rel_tol=0.02,
    ),
    numeric(
        "01_downey_explorer/where-it-saturates", 3,
        "With A = 100 and sigma = 2, from how many processors on does the speedup stop growing (the model's "
        "largest useful allocation)?",
        lambda: float(downey.max_useful_allocation(100, 2.0)),
        "High variance: the speedup is flat from n = A + A sigma - sigma on. Move n max past it and watch the "
        "curve go flat.",
        explanation="A + A sigma - sigma = 100 + 200 - 2 = 298 processors; more add nothing.",
        rel_tol=0.01,
        unit="processors",
    ),
    numeric(
        "01_downey_explorer/efficiency-half", 3,
        "With A = 100 and sigma = 1, at how many processors does the efficiency S(n)/n fall to 50 %? "
        "(Answer to the nearest processor.)",
        lambda: float(np.argmax(downey.efficiency(np.arange(1, 1001), 100, 1.0) <= 0.5) + 1),
        "Efficiency falls as n grows: read the efficiency panel (set sigma = 1), or compute S(n)/n for a few n.",
        explanation="At sigma = 1 both variance forms agree; efficiency first reaches 50 % at this n.",
        rel_tol=0.02,
        unit="processors",
    ),
)
