"""Exercises of notebook 06, FiM-Com ([Bhimani2019] section 3, Eqs. 13-16, Fig. 4).

Every exercise simulates the collective as the dashboard does
(:func:`workbench.views.fim_com.fim_com_view`): the rates fitted to the OSU broadcast latencies of
ORFEO with ``--map-by core`` (catalogue ``osu-orfeo``), 20 replications, seed 0.
"""

from __future__ import annotations

from functools import lru_cache

from workbench.course.exercise import choice, numeric
from workbench.evaluation.fim_com import data_points, measured_at, placement_data
from workbench.io import fetch_dataset
from workbench.models.fim.queueing import simulate_collective
from workbench.models.fim.service_fit import rates_from_fits

#: The dashboard's opening point: a broadcast of 64 KiB to 29 receivers (30 cores).
_SIZE_BYTES, _RECEIVERS, _REPLICATIONS = 65536, 29, 20


@lru_cache(maxsize=1)
def _core_placement():
    return placement_data(fetch_dataset("osu-orfeo").frame, "core")


def _rates() -> dict[str, float]:
    # the dashboard shows its log sliders' values to 4 significant digits
    return {name: float(f"{value:.4g}") for name, value in rates_from_fits(_core_placement().fits).items()}


def _makespan_us(pattern: str = "broadcast", size_bytes: int = _SIZE_BYTES, **changed) -> float:
    """Mean makespan (µs) over the replications, the dashboard's 'model makespan'."""
    rates = {**_rates(), **changed}
    sim = simulate_collective(pattern, data_points(size_bytes), _RECEIVERS, seed=0, replications=_REPLICATIONS,
                              sample_limit=2000, **rates)
    return float(sim.makespan.mean())


def _psi_doubled() -> str:
    ratio = _makespan_us(psi=2 * _rates()["psi"]) / _makespan_us()
    if ratio > 1.8:
        return "it about doubles"
    return "it rises, but by less than half" if ratio > 1.05 else "it hardly changes"


def _miss_at_1_kib_pct() -> float:
    """How far (percent of the measurement) the model is below the measured 1 KiB broadcast."""
    measured = float(measured_at(_core_placement().curve, 1024, _RECEIVERS)["latency_us"])
    return (measured - _makespan_us(size_bytes=1024)) / measured * 100.0


EXERCISES = (
    choice(
        "06_fim_communication/double-psi", 1,
        "Predict before you move the slider: the dashboard opens on a broadcast of 64 KiB to 29 receivers. "
        "What happens to the model makespan when you double psi (the receive time per job, primary slider)?",
        ("it about doubles", "it rises, but by less than half", "it hardly changes"),
        _psi_doubled,
        "In a broadcast every receiver gets every job and phi = p: which station is the bottleneck? Compare "
        "the 'last departure D, M, C, R' readout before and after.",
        explanation="A broadcast copies all N jobs to each of the p receive queues, with mean service psi * p per "
        "job: R finishes long after D, M and C, so the makespan is almost N * psi * p and doubles with psi.",
    ),
    numeric(
        "06_fim_communication/opening-makespan", 2,
        "On the opening broadcast (64 KiB, 29 receivers, the core placement's fitted rates), what mean makespan "
        "does the model give?",
        _makespan_us,
        "Read the 'model makespan' readout, or the mean line of the makespan distribution (first figure).",
        explanation="64 KiB are 3277 data points of 20 B; the receive station R sets the makespan.",
        rel_tol=0.03,
        unit="µs",
    ),
    numeric(
        "06_fim_communication/scatter-speedup", 3,
        "Switch the pattern from broadcast to scatter (same size, receivers and rates). How many times shorter is "
        "the mean makespan of the scatter than that of the broadcast?",
        lambda: _makespan_us("broadcast") / _makespan_us("scatter"),
        "Scatter sends each job to one receiver (k mod p) with phi = 1: compare the two 'model makespan' readouts "
        "and look at which station now finishes last before R.",
        explanation="A scatter gives each receiver only N/p jobs at mean psi each, so R is no longer the "
        "bottleneck: the makespan falls to about the network start-up C, roughly ten times less here.",
        rel_tol=0.05,
        unit="times",
    ),
    numeric(
        "06_fim_communication/latency-bound-miss", 4,
        "Set the message size to 1 KiB (below the 64 KiB eager limit; 29 receivers, broadcast). By how many "
        "percent of the measured OSU latency is the model's mean makespan too low? Then explain the miss.",
        _miss_at_1_kib_pct,
        "Read 'measured OSU bcast' and 'model makespan' (or 'model vs measured') at 1 KiB, and compare with the "
        "Time vs N panel.",
        explanation="A 1 KiB broadcast is only 52 data points, so the model's time, built per data point with "
        "a single start-up delay at C, is small; the measured broadcast is latency-bound: per-message costs of "
        "the MPI library (protocol, matching, one message per receiver) that do not shrink with the size and "
        "that a per-point queueing network does not have.",
        rel_tol=0.05,
        unit="%",
    ),
)
