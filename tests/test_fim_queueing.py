"""FiM-Com queueing networks (section 3, Eqs. 13-16): the max-plus recursion, the exact
metadata station, the three routings, the delay station, seeds and bad parameters."""

from math import lgamma

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import ValidationError
from workbench.models.fim import (
    default_phi,
    fifo_departures,
    metadata_departures,
    simulate_collective,
)
from workbench.models.fim.queueing import metadata_departures_reference

FAST_D = dict(zeta_min=1e9, zeta_max=1e9)  # D hands every job on within ~1e-9 time units
RATES = dict(zeta_min=0.8, zeta_max=1.2, metadata_coef=0.3, eta=2.0, psi=0.7)


def sequential_fifo(arrivals, service):
    """D_k = max(D_{k-1}, a_k) + s_k, one job at a time."""
    out, free = [], -np.inf
    for a, s in zip(arrivals, service):
        free = max(free, a) + s
        out.append(free)
    return np.array(out)


# ----------------------------------------------------------------------------- FIFO
def test_fifo_hand_computed_busy_and_idle_server():
    # busy from the start: 2, 4, 6; an idle gap: the second job waits for its arrival
    np.testing.assert_allclose(fifo_departures([0, 1, 2], [2, 2, 2]), [2, 4, 6])
    np.testing.assert_allclose(fifo_departures([0, 5], [1, 1]), [1, 6])
    np.testing.assert_allclose(fifo_departures([0, 0, 10, 10.5], [3, 3, 1, 1]), [3, 6, 11, 12])


def test_fifo_several_queues_along_an_axis_and_padding():
    arrivals = np.array([[0.0, 1, 2], [-np.inf, 0, 5]])
    service = np.array([[2.0, 2, 2], [9.0, 1, 1]])
    out = fifo_departures(arrivals, service, axis=1)
    np.testing.assert_allclose(out[0], [2, 4, 6])
    # a -inf arrival is padding: its service does not delay the real jobs
    assert out[1, 0] == -np.inf
    np.testing.assert_allclose(out[1, 1:], [1, 6])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=40),
    st.data(),
)
def test_fifo_max_plus_equals_the_sequential_recursion(arrivals, data):
    arrivals = np.sort(arrivals)
    service = np.array(data.draw(st.lists(st.floats(0, 10), min_size=arrivals.size, max_size=arrivals.size)))
    np.testing.assert_allclose(fifo_departures(arrivals, service), sequential_fifo(arrivals, service), atol=1e-9)


# ----------------------------------------------------------------------------- M station
def test_metadata_station_hand_computed():
    # three jobs present at 0: chi = 3, 2, 1 -> c (1 + ln 3), c (1 + ln 2), c
    departures, service, load = metadata_departures([0, 0, 0], 2.0)
    np.testing.assert_allclose(service, [2 * (1 + np.log(3)), 2 * (1 + np.log(2)), 2])
    np.testing.assert_array_equal(load, [3, 2, 1])
    np.testing.assert_allclose(departures[-1], 2 * (3 + np.log(6)))
    # spaced arrivals never queue: every job is alone (chi = 1) and takes c
    departures, service, load = metadata_departures([0, 10, 20], 1.0)
    np.testing.assert_allclose(departures, [1, 11, 21])
    np.testing.assert_array_equal(load, [1, 1, 1])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 20, allow_nan=False), min_size=1, max_size=60),
    st.floats(0, 3),
)
def test_compiled_metadata_station_equals_the_literal_event_loop(arrivals, coef):
    arrivals = np.sort(np.round(arrivals, 1))  # rounding makes ties, which count as present
    fast = metadata_departures(arrivals, coef)
    slow = metadata_departures_reference(arrivals, coef)
    np.testing.assert_allclose(fast[0], slow[0], atol=1e-9)
    np.testing.assert_array_equal(fast[2], slow[2])


def test_metadata_lines_are_independent():
    a = np.array([0.0, 0, 0, 0, 0])
    together, _, _ = metadata_departures(a, 1.0, offsets=[0, 2, 5])
    np.testing.assert_allclose(together[:2], metadata_departures(a[:2], 1.0)[0])
    np.testing.assert_allclose(together[2:], metadata_departures(a[2:], 1.0)[0])


# ----------------------------------------------------------------------------- network
@pytest.mark.parametrize("pattern", ["scatter", "broadcast", "gather"])
def test_deterministic_transfer_only(pattern):
    # fixed rate, no metadata, delay or receive time: the makespan is the longest line's D
    sim = simulate_collective(pattern, 10, 3, zeta_min=2.0, zeta_max=2.0, metadata_coef=0, eta=0, psi=0)
    longest_line = 4 if pattern == "gather" else 10  # gather: shares 4, 3, 3
    assert sim.makespan[0] == pytest.approx(longest_line / 2.0)
    assert sim.station_finish.loc[0, "D"] == pytest.approx(longest_line / 2.0)


def test_metadata_queue_in_the_network_is_exact():
    # D hands on jobs ~1e-9 apart: the first is alone (takes c), the rest queue behind it,
    # chi = n-1, ..., 1 -> makespan = n + ln((n-1)!) for c = 1
    n = 50
    sim = simulate_collective("scatter", n, 4, **FAST_D, metadata_coef=1.0, eta=0, psi=0)
    assert sim.makespan[0] == pytest.approx(n + lgamma(n), rel=1e-9)


def test_uniform_transfer_mean_matches_eq_13():
    # E[1/U(a, b)] = ln(b/a) / (b - a) per job
    n, a, b = 2000, 0.5, 2.0
    sim = simulate_collective("scatter", n, 1, zeta_min=a, zeta_max=b, metadata_coef=0, eta=0, psi=0, replications=50)
    assert sim.makespan.mean() == pytest.approx(n * np.log(b / a) / (b - a), rel=0.01)
    assert sim.samples["D"].min() >= 1 / b and sim.samples["D"].max() <= 1 / a


def harmonic(n):
    return float(np.sum(1.0 / np.arange(1, n + 1)))


def test_delay_station_is_infinite_server():
    # all jobs reach C together; an infinite-server delay ends at the max of n exponentials
    # (eta * H_n), where a single FIFO server would take n * eta
    n, eta = 20, 3.0
    sim = simulate_collective("scatter", n, 2, **FAST_D, metadata_coef=0, eta=eta, psi=0, replications=4000)
    assert sim.makespan.mean() == pytest.approx(eta * harmonic(n), rel=0.03)


@pytest.mark.parametrize(
    "pattern, n, p, phi, expected",
    [
        # one job per R queue: the max of p exponentials
        ("scatter", 6, 6, None, 0.5 * harmonic(6)),
        # a broadcast of one job to p queues, with the paper's phi = p contention
        ("broadcast", 1, 6, None, 6 * 0.5 * harmonic(6)),
        ("broadcast", 1, 6, 1.0, 0.5 * harmonic(6)),
        # every job to one FIFO at the collector: a sum of n exponentials
        ("gather", 12, 4, None, 12 * 0.5),
        # round robin of 12 jobs over 1 queue is the same single FIFO
        ("scatter", 12, 1, None, 12 * 0.5),
    ],
)
def test_routing_and_phi_match_hand_computed_expectations(pattern, n, p, phi, expected):
    sim = simulate_collective(pattern, n, p, **FAST_D, metadata_coef=0, eta=0, psi=0.5, phi=phi, replications=4000)
    assert sim.makespan.mean() == pytest.approx(expected, rel=0.04)


def test_broadcast_is_slower_than_scatter_and_grows_with_p():
    scatter = simulate_collective("scatter", 400, 8, **RATES, replications=20).makespan.mean()
    b8 = simulate_collective("broadcast", 400, 8, **RATES, replications=20).makespan.mean()
    b16 = simulate_collective("broadcast", 400, 16, **RATES, replications=20).makespan.mean()
    assert scatter < b8 < b16


def test_default_phi():
    assert default_phi("scatter", 8) == 1 and default_phi("gather", 8) == 1
    assert default_phi("broadcast", 8) == 8
    assert simulate_collective("broadcast", 5, 8, **RATES).phi == 8


def test_same_seed_same_result_and_replications_are_prefix_stable():
    a = simulate_collective("gather", 300, 5, **RATES, seed=7, replications=4)
    b = simulate_collective("gather", 300, 5, **RATES, seed=7, replications=4)
    np.testing.assert_array_equal(a.makespan, b.makespan)
    one = simulate_collective("gather", 300, 5, **RATES, seed=7, replications=1)
    assert one.makespan[0] == a.makespan[0]
    other = simulate_collective("gather", 300, 5, **RATES, seed=8, replications=4)
    assert not np.array_equal(a.makespan, other.makespan)


def test_result_shapes_and_samples():
    sim = simulate_collective("broadcast", 100, 4, **RATES, replications=3, sample_limit=50)
    assert sim.makespan.shape == (3,) and sim.replications == 3
    assert list(sim.station_finish.columns) == ["D", "M", "C", "R"]
    np.testing.assert_array_equal(sim.station_finish["R"], sim.makespan)
    # stations finish in order: D <= M <= C <= R
    f = sim.station_finish.to_numpy()
    assert np.all(np.diff(f, axis=1) >= -1e-9)
    assert all(sim.samples[s].size == 50 for s in ("D", "M", "C", "R"))
    assert sim.samples["metadata_load"].min() >= 1
    np.testing.assert_allclose(sim.per_job, sim.makespan / 100)
    assert set(sim.summary()) == {"mean", "std", "min", "median", "max"}


def test_more_processes_than_jobs():
    sim = simulate_collective("scatter", 3, 10, **RATES)
    assert np.isfinite(sim.makespan).all()
    sim = simulate_collective("gather", 3, 10, **RATES)
    assert np.isfinite(sim.makespan).all()


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(zeta_min=2.0, zeta_max=1.0), "must not exceed zeta_max"),
        (dict(zeta_min=0.0), "zeta_min must be a positive"),
        (dict(eta=-1.0), "eta is a mean service time"),
        (dict(psi=-0.1), "psi is a mean service time"),
        (dict(metadata_coef=-1.0), "metadata_coef is a mean service time"),
        (dict(psi=float("nan")), "psi must be a finite number"),
        (dict(phi=0.0), "phi"),
    ],
)
def test_bad_rates_are_named(change, message):
    with pytest.raises(ValidationError, match=message):
        simulate_collective("scatter", 10, 2, **{**RATES, **change})


@pytest.mark.parametrize(
    "args, message",
    [
        (("scatter", 10, 0), "processes must be >= 1"),
        (("scatter", 0, 4), "n_jobs must be >= 1"),
        (("scatter", 2.5, 4), "n_jobs must be a whole number"),
        (("allreduce", 10, 4), "unknown collective pattern 'allreduce'"),
    ],
)
def test_bad_sizes_and_patterns_are_named(args, message):
    with pytest.raises(ValidationError, match=message):
        simulate_collective(*args, **RATES)


def test_bad_replications():
    with pytest.raises(ValidationError, match="replications must be >= 1"):
        simulate_collective("scatter", 10, 2, **RATES, replications=0)
