"""FiM-Com: the fast simulator (max-plus + numba) against the independent SimPy
event-driven simulation of the same networks (section 3, Fig. 4, Eqs. 13-16).

Deterministic settings must agree exactly (and with hand-computed values); random ones
in distribution (two-sample KS test, fixed seeds), and a negative control shows the KS
test rejects a changed model, so these tests can fail.
"""

import functools
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp

from workbench.errors import ValidationError, WorkbenchError
from workbench.models.fim.queueing import (
    metadata_departures,
    metadata_departures_reference,
    simulate_collective,
)
from workbench.models.fim.queueing_des import metadata_station_des, simulate_collective_des


# --------------------------------------------------------------- deterministic agreement
@pytest.mark.parametrize("pattern", ["scatter", "broadcast", "gather"])
@pytest.mark.parametrize(("n_jobs", "processes"), [(7, 3), (12, 4), (5, 8), (1, 1)])
@pytest.mark.parametrize("metadata_coef", [0.0, 0.3, 0.93])
def test_deterministic_makespan_agrees_exactly(pattern, n_jobs, processes, metadata_coef):
    # zeta fixed, eta = psi = 0: every service time is known and the makespan is the M
    # departure of the last job of the longest line (scatter/broadcast: all n jobs on
    # one line; gather: ceil(n / p) jobs on the first line), D delivering every 0.8.
    # coef 0: 0.8 m.  coef 0.3 < 0.8: M never queues, 0.8 m + 0.3.  coef 0.93 > 0.8: M
    # falls behind, queues build and chi > 1 drives the makespan (0.93, not 1.0: with
    # 1.0 a service start equals an arrival time and chi hangs on the last bit of the
    # rounding, 4 * 1.0 + 0.8 against 6 * 0.8).
    kw = dict(zeta_min=1.25, zeta_max=1.25, metadata_coef=metadata_coef, eta=0.0, psi=0.0, replications=2)
    fast = simulate_collective(pattern, n_jobs, processes, seed=1, **kw).makespan
    des = simulate_collective_des(pattern, n_jobs, processes, seed=2, **kw)
    m = -(-n_jobs // processes) if pattern == "gather" else n_jobs
    expected = metadata_departures_reference(np.cumsum(np.full(m, 0.8)), metadata_coef)[0][-1]
    if metadata_coef < 0.8:
        assert expected == pytest.approx(0.8 * m + metadata_coef, rel=1e-12)
    np.testing.assert_allclose(fast, expected, rtol=1e-12)
    # equal up to rounding: the fast gather gets each line's D departures by subtracting
    # the previous lines' total from one global cumulative sum
    np.testing.assert_allclose(des, fast, rtol=1e-12)


def test_metadata_queue_builds_in_the_network():
    # the chi > 1 branch is reached inside the deterministic network test above
    load = simulate_collective("scatter", 12, 4, zeta_min=1.25, zeta_max=1.25, metadata_coef=0.93,
                               eta=0.0, psi=0.0).samples["metadata_load"]
    assert load.max() >= 2


def test_metadata_station_hand_computed():
    # three jobs at once: the first starts with chi = 3, then 2, then 1; the fourth
    # arrives at 4 > c (3 + ln 6) to an empty station
    c = 0.5
    departures, service, load = metadata_station_des([0.0, 0.0, 0.0, 4.0], c)
    np.testing.assert_array_equal(load, [3, 2, 1, 1])
    np.testing.assert_allclose(service, [c * (1 + math.log(3)), c * (1 + math.log(2)), c, c])
    np.testing.assert_allclose(departures, [c * (1 + math.log(3)), c * (2 + math.log(6)), c * (3 + math.log(6)), 4 + c])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=25), st.floats(0.0, 3.0))
def test_metadata_station_matches_fast_kernel_with_ties(times, coef):
    # integer arrival times force ties: the event order must count every job that
    # arrived at or before a service start, as the fast kernel and the reference do
    arrivals = np.sort(np.asarray(times, dtype=float))
    des = metadata_station_des(arrivals, coef)
    for expected in (metadata_departures(arrivals, coef), metadata_departures_reference(arrivals, coef)):
        for got, want in zip(des, expected):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------- agreement in distribution
# Every station shapes the makespan.  M's time grows with its queue, so it is stable
# only while its lone-job time stays below D's mean time per job (E[1/U] = 1.014): at
# 0.98 it mostly keeps up (chi = 1), but in ~5 % of the replications a queue builds and
# runs away until D runs dry (chi up to ~70, a heavy right tail) -- the load-dependent branch is
# exercised and a changed coefficient is detected.  psi is chosen per pattern
# so that R runs near saturation (utilisation ~0.9): scatter queue load psi / p,
# broadcast psi * phi = psi * p per job per unit of D time, gather p jobs per unit into
# one receiver.
CASES = {
    "scatter": dict(n_jobs=120, processes=4, psi=3.5),
    "broadcast": dict(n_jobs=120, processes=4, psi=0.22),
    "gather": dict(n_jobs=150, processes=3, psi=0.3),
}
COMMON = dict(zeta_min=0.8, zeta_max=1.2, metadata_coef=0.98, eta=2.0)
DES_REPLICATIONS = 400
FAST_REPLICATIONS = 3000


def _params(pattern, **factors):
    params = dict(CASES[pattern], **COMMON)
    return {name: value * factors.get(name, 1) for name, value in params.items()}


@functools.cache
def _des_sample(pattern):
    return simulate_collective_des(pattern, **_params(pattern), seed=101, replications=DES_REPLICATIONS)


def _fast_sample(pattern, **factors):
    return simulate_collective(pattern, **_params(pattern, **factors), seed=202,
                               replications=FAST_REPLICATIONS).makespan


@pytest.mark.parametrize("pattern", sorted(CASES))
def test_same_makespan_distribution(pattern):
    des, fast = _des_sample(pattern), _fast_sample(pattern)
    assert ks_2samp(des, fast).pvalue > 0.01
    # and the means within 4 standard errors of the difference
    se = math.hypot(des.std(ddof=1) / math.sqrt(des.size), fast.std(ddof=1) / math.sqrt(fast.size))
    assert abs(des.mean() - fast.mean()) < 4 * se


@pytest.mark.parametrize("pattern", sorted(CASES))
@pytest.mark.parametrize("change", [{"psi": 2.0}, {"metadata_coef": 1.1}], ids=["psi x2", "metadata_coef x1.1"])
def test_ks_detects_a_changed_model(pattern, change):
    # negative control: the same test against a fast model with one parameter changed
    # must reject
    assert ks_2samp(_des_sample(pattern), _fast_sample(pattern, **change)).pvalue < 1e-3


# --------------------------------------------------------------- errors
def test_same_seed_same_result():
    kw = dict(_params("scatter"), seed=5, replications=3)
    np.testing.assert_array_equal(simulate_collective_des("scatter", **kw), simulate_collective_des("scatter", **kw))


@pytest.mark.parametrize(
    ("args", "changes", "message"),
    [
        (("allreduce", 10, 2), {}, "unknown collective pattern 'allreduce'"),
        (("scatter", 0, 2), {}, "n_jobs must be >= 1"),
        (("gather", 10, 2.5), {}, "processes must be a whole number"),
        (("scatter", 10, 2), {"zeta_min": 2.0}, "zeta_min .2.0. must not exceed zeta_max"),
        (("broadcast", 10, 2), {"psi": -1.0}, "psi is a mean service time"),
        (("broadcast", 10, 2), {"phi": 0.0}, "phi .simultaneous receivers"),
    ],
)
def test_validation_errors_agree(args, changes, message):
    kw = {**COMMON, "psi": 1.0, **changes}
    with pytest.raises(ValidationError, match=message):
        simulate_collective(*args, **kw)
    with pytest.raises(ValidationError, match=message):
        simulate_collective_des(*args, **kw)


def test_missing_simpy_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "simpy", None)  # makes `import simpy` raise ImportError
    with pytest.raises(WorkbenchError, match="pip install simpy"):
        simulate_collective_des("scatter", 10, 2, **COMMON, psi=1.0)
