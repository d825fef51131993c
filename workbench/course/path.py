"""The course path: every notebook of ``notebooks/`` as a lesson, in the order to take them.

The landing page of ``make dashboards`` (:mod:`workbench.course.landing`) and the static
site list :data:`COURSE` in this order.  Each entry says what the notebook teaches (one
sentence, written from the notebook's own text), about how long it takes (reading the text,
trying the dashboard and answering the exercises), which notebooks to take first, and which
screenshot (``docs/screenshots/<stem>.png``, written by ``make screenshots``) shows it.
``tests/test_landing.py`` checks that every notebook is here exactly once and that every
screenshot exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["COURSE", "REPOSITORY", "Lesson", "lesson"]

#: The repository (the screenshots' paths are relative to it).
REPOSITORY = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Lesson:
    """One notebook of the course.

    Attributes
    ----------
    notebook : str
        The notebook's stem, e.g. ``"01_downey_explorer"`` (file ``notebooks/<stem>.ipynb``).
    title : str
        Short title shown on the landing page.
    teaches : str
        One sentence: what a student learns there.
    minutes : int
        About how long the lesson takes: reading, trying the dashboard, the exercises.
    prerequisites : tuple of str
        Stems of the notebooks to take first (empty: none).
    screenshot : str
        The dashboard's screenshot, relative to the repository.
    """

    notebook: str
    title: str
    teaches: str
    minutes: int
    prerequisites: tuple[str, ...] = ()
    screenshot: str = ""

    @property
    def filename(self) -> str:
        """The notebook's file name in ``notebooks/``, e.g. ``"01_downey_explorer.ipynb"``."""
        return f"{self.notebook}.ipynb"

    @property
    def screenshot_path(self) -> Path:
        """The screenshot's absolute path."""
        return REPOSITORY / self.screenshot


def _lesson(notebook: str, title: str, teaches: str, minutes: int, prerequisites: tuple[str, ...] = ()) -> Lesson:
    return Lesson(notebook, title, teaches, minutes, prerequisites, f"docs/screenshots/{notebook}.png")


COURSE: tuple[Lesson, ...] = (
    _lesson(
        "00_predict_my_runs", "Predict my runs",
        "Predict the runtime of your own program on more processes from a few measured runs, with five "
        "scaling models combined into one prediction, an interval calibrated on 152 real curves, and "
        "warnings when not to trust it.",
        15,
    ),
    _lesson(
        "10_regions", "Which part of my code stops scaling?",
        "Read the call-path profiles HPC tools write (Caliper, Score-P Cube, Extra-P), predict every region on "
        "more processes with an interval, and see which region's share grows and from which process count it "
        "starts to dominate the run.",
        20, ("00_predict_my_runs",),
    ),
    _lesson(
        "01_downey_explorer", "The Downey speedup model",
        "How Downey's two parameters, the average parallelism A and its variance σ, shape a speedup curve, "
        "where it saturates (maximum useful allocation) and the processor working set.",
        20,
    ),
    _lesson(
        "02_adept_prediction", "ADEPT: prediction from a few runs",
        "How ADEPT fits the Downey model to three or four measured runtimes (envelope, one biased fit per "
        "target, reliability warnings), why the time unit must not change the answer, and how accurate it "
        "is on real NAS Parallel Benchmarks runs.",
        40, ("01_downey_explorer",),
    ),
    _lesson(
        "03_anomalies", "Anomalies the model cannot explain",
        "How ADEPT's R metric finds runs that deviate from the Downey model, removes or down-weights single "
        "anomalous points, and recognises stepwise and specially optimised scalability patterns.",
        25, ("02_adept_prediction",),
    ),
    _lesson(
        "04_cross_size", "Predicting across problem sizes",
        "How many runs of a small problem and two runs of a larger one predict the larger problem's "
        "scaling through guiding points, and when the two sizes behave too differently to trust it.",
        20, ("02_adept_prediction", "03_anomalies"),
    ),
    _lesson(
        "05_fim_calculation", "FiM-Cal: calculation time from hardware counters",
        "How FiM predicts the calculation time of an iterative program from perf counters with a Markov "
        "chain of active and stalled processes, a regression mapping and one calibrated constant α, "
        "compared with the RBASP regression on K-means runs measured here.",
        40,
    ),
    _lesson(
        "06_fim_communication", "FiM-Com: collectives as a queueing network",
        "How FiM-Com models the time of scatter, broadcast and gather as jobs flowing through four queueing "
        "stations, and how its simulated makespans compare with measured OSU broadcast latencies.",
        25,
    ),
    _lesson(
        "07_comm_regression", "Communication time by regression",
        "How metrics known before a run (message size, messages, processes per node, node traffic) predict "
        "communication time with one robust linear model per traffic area, and where the area thresholds "
        "split the data.",
        25,
    ),
    _lesson(
        "08_comm_statistics_ml", "Communication: statistics, a semi-empirical model, gradient boosting",
        "How per-rank communication times spread within one run, how a semi-empirical model built on a "
        "base time reproduces the thesis's tables, and how gradient boosting predicts communication time "
        "from measured sweeps.",
        30,
    ),
    _lesson(
        "09_fractal_extrapolation", "Fractal extrapolation to a large input",
        "How the runtime at a large input size is extrapolated from a few small runs: the major phases, "
        "the convergence size, and one log-log fit per phase with a confidence band.",
        25,
    ),
)


def lesson(notebook: str) -> Lesson:
    """Return the lesson of ``notebook`` (its stem or file name, e.g. ``"01_downey_explorer.ipynb"``).

    Parameters
    ----------
    notebook : str
        The notebook's stem or file name.
    """
    stem = Path(notebook).name.removesuffix(".ipynb")
    for entry in COURSE:
        if entry.notebook == stem:
            return entry
    raise KeyError(f"{notebook!r} is not part of the course; its notebooks are: "
                   f"{', '.join(entry.notebook for entry in COURSE)}")
