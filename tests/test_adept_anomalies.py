"""Anomaly detection with the R metric (thesis 3.9): candidates, individual anomalies,
the ambiguous last point and the two scalability patterns."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.models import downey
from workbench.models.adept import Adept, detect_anomalies, flatness, r_metric

KW = dict(pass1_size=1000, pass2_size=100)
SQUARES = np.array([16, 25, 36, 49, 64, 81, 100.0])  # the thesis' NAS runs use square counts
DOUBLING = np.array([4, 8, 16, 32, 64, 128.0])


def _curve(n, A=60, sigma=0.5, scale=7.0):
    return scale * downey.runtime(n, A, sigma)


# --- the R metric (3.9.1) ---------------------------------------------------------------------------
def test_r_metric_by_hand():
    # R_i = ((t_i n_i / n_{i+1}) / t_{i+1}) (1 + (n_{i+1} - n_i)/n_{i+1})
    # n = (1, 2, 4), t = (10, 6, 4):
    #   R_0 = ((10 * 1/2)/6) (1 + 1/2) = (5/6)(3/2) = 1.25
    #   R_1 = ((6 * 2/4)/4) (1 + 2/4) = (3/4)(3/2) = 1.125
    np.testing.assert_allclose(r_metric([1, 2, 4], [10, 6, 4]), [1.25, 1.125])
    # uneven gap: n = (4, 6), t = (9, 7): ((9 * 4/6)/7)(1 + 2/6) = (6/7)(4/3) = 8/7
    np.testing.assert_allclose(r_metric([4, 6], [9, 7]), [8 / 7])


def test_r_metric_needs_no_time_unit():
    n, t = SQUARES, _curve(SQUARES)
    for c in (1e-3, 1000.0, 3.7):
        np.testing.assert_allclose(r_metric(n, c * t), r_metric(n, t), rtol=1e-14)


def test_flatness_by_hand():
    # total excess rise; on doubling steps R is judged as it is: only 1.4 -> 1.54 rises, by 10 %
    assert flatness([1, 2, 4, 8, 16], [1.5, 1.4, 1.54, 1.2]) == pytest.approx(0.1)
    assert flatness([1, 2, 4, 8], [1.5, 1.4, 1.3]) == 0.0


@pytest.mark.parametrize("g", [1.0, 0.8, 0.3, 0.0])
def test_uneven_steps_alone_are_not_a_rise(g):
    # R itself rises with the step size on a clean power law t ~ n^-g (ideal scaling g = 1:
    # R = 2 - n_i/n_{i+1} = 1.5 for 2x, 1.75 for 4x); the flatness judges that as no rise
    n = np.array([1, 2, 8, 12, 48, 64.0])
    t = 100 * n**-g
    R = r_metric(n, t)
    if g == 1.0:
        np.testing.assert_allclose(R, 2 - n[:-1] / n[1:])
    assert flatness(n, R) == pytest.approx(0.0, abs=1e-12)
    rep = detect_anomalies(n, t)
    assert rep.candidates.empty and rep.anomalies.empty


@settings(max_examples=60, deadline=None)
@given(A=st.floats(2, 500), sigma=st.floats(0, 12), scale=st.floats(1e-3, 1e4),
       n=st.sampled_from([DOUBLING, SQUARES, np.arange(8, 65, 8.0), np.arange(1, 12.0), 2.0 ** np.arange(0, 12)]))
def test_downey_curves_give_no_candidates(A, sigma, scale, n):
    # on regular layouts R does not rise along a Downey curve: nothing is flagged
    t = scale * downey.runtime(n, A, sigma)
    rep = detect_anomalies(n, t)
    assert rep.candidates.empty and rep.pattern == "none" and not rep.unresolved
    if t[-1] < t[-2]:  # a saturated (flat) tail: see the next test
        assert rep.anomalies.empty and not rep.last_point_ambiguous
        np.testing.assert_array_equal(rep.weight_factor, 1.0)


def test_a_saturated_downey_tail_is_not_a_declining_phase():
    n = DOUBLING
    t = 5 * downey.runtime(n, 10, 0.5)  # saturates at 2A - 1 = 19: t(32) = t(64) = t(128) = 5
    assert t[-1] == t[-2] == t[-3]
    rep = detect_anomalies(n, t)
    assert rep.anomalies.empty and not rep.last_point_ambiguous
    m = Adept(**KW).fit(n, t)
    assert "declining-or-anomalous-last-point" not in [w.kind for w in m.warnings_]


# --- individual anomalous points (3.9.2) ---------------------------------------------------------
def test_a_slow_interior_point_is_resolved_with_its_magnitude_and_weight():
    n, t = SQUARES, _curve(SQUARES)
    t[3] *= 1.25  # n = 49 is 25 % too slow
    R = r_metric(n, t)
    # the rise R_3/R_2 (1.478 > 1 + epsilon) flags observations 3 and 4 (n = 49, 64)
    rises = R[1:] / R[:-1]
    assert np.nonzero(rises > 1.1)[0].tolist() == [2]
    rep = detect_anomalies(n, t, epsilon=0.1, theta=5.0)
    assert sorted(rep.candidates["n"]) == [49.0, 64.0]
    # removing n = 49 flattens the R curve, removing n = 64 does not (Figure 9's middle row)
    flat = rep.removal_curves.groupby("removed_n")["flatness"].first()
    assert flat[49.0] < 0.05 < flat[64.0]
    assert rep.anomalies["n"].tolist() == [49.0]
    D = min(10.0, (R[3] - R[2]) / 0.1)  # D_l = min(10, (R_{i+1} - R_i)/epsilon) = 4.623
    assert rep.anomalies["D"].iloc[0] == pytest.approx(D)
    assert rep.anomalies["weight_factor"].iloc[0] == pytest.approx((5.0 - D) / 5.0)
    np.testing.assert_allclose(rep.weight_factor, [1, 1, 1, (5 - D) / 5, 1, 1, 1])
    # the estimator carries the factor into its observations and reports the anomaly
    m = Adept(**KW).fit(n, t)
    np.testing.assert_allclose(m.observations_["weight_factor"], rep.weight_factor)
    assert any(w.kind == "anomaly" and w.details["n"] == 49.0 for w in m.warnings_)


def test_handling_the_anomaly_improves_the_other_predictions():
    n, t = SQUARES, _curve(SQUARES)
    t[3] *= 1.25
    targets = np.array([16, 25, 36, 64, 81, 100, 121, 144.0])
    truth = _curve(targets)
    err_on = np.abs(Adept(**KW).fit(n, t).predict(targets) / truth - 1)
    # epsilon so large that nothing is detected: the slow point pulls the fits
    off = Adept(epsilon=100.0, **KW).fit(n, t)
    assert off.anomalies_.anomalies.empty
    err_off = np.abs(off.predict(targets) / truth - 1)
    assert err_on.max() < err_off.max() and err_on.mean() < 0.6 * err_off.mean()


def test_candidates_with_fewer_than_four_points_stay_unresolved():
    n, t = SQUARES[2:5], _curve(SQUARES[2:5])
    t[1] *= 1.25
    rep = detect_anomalies(n, t)
    assert rep.anomalies.empty and rep.unresolved == [49.0, 64.0]
    m = Adept(**KW).fit(n, t)
    assert "unresolved-anomaly" in [w.kind for w in m.warnings_]


def test_a_fast_interior_point_is_the_only_anomaly():
    n, t = SQUARES, _curve(SQUARES)
    t[2] *= 0.75  # n = 36 is 25 % too fast
    rep = detect_anomalies(n, t)
    assert rep.anomalies["n"].tolist() == [36.0]
    assert (rep.weight_factor[[0, 1, 3, 4, 5, 6]] == 1).all()


def test_a_slow_point_on_a_doubling_layout_is_an_individual_anomaly():
    n, t = DOUBLING, _curve(DOUBLING, A=200)
    t[2] *= 1.25  # n = 16
    rep = detect_anomalies(n, t)
    assert rep.pattern == "none"
    assert rep.anomalies["n"].tolist() == [16.0]


# --- the last point (3.9.1) --------------------------------------------------------------------------
@pytest.mark.parametrize("factor", [0.75, 1.6])
def test_an_anomalous_last_point_is_ambiguous_and_bounds_the_predictions(factor):
    # 25 % too fast (an R rise at the end), or slower than the point before it (decline)
    n, t = SQUARES, _curve(SQUARES)
    t[-1] *= factor
    if factor > 1:
        assert t[-1] >= t[-2]
    m = Adept(**KW).fit(n, t)
    assert m.anomalies_.last_point_ambiguous
    last = [w for w in m.warnings_ if w.kind == "declining-or-anomalous-last-point"]
    assert len(last) == 1 and "n=100" in last[0].message
    assert m.observations_["weight_factor"].iloc[-1] == 0
    p = m.predict([16, 50, 81, 100, 121, 200])
    assert np.isfinite(p[:3]).all() and np.isnan(p[3:]).all()
    # the rest of the curve is still predicted well (the last point is not fitted)
    assert np.abs(p[:3] / _curve(np.array([16, 50, 81.0])) - 1).max() < 0.01


# --- scalability patterns (3.9.3) --------------------------------------------------------------------
def test_stepwise_two_phase_curve_is_split_at_the_step():
    # a memory-level step between 6 and 7 threads: runtimes drop to 60 % of the model's
    n = np.arange(2, 12.0)
    T = 100 * downey.runtime(n, 40, 0.5)
    t = np.where(n <= 6, T, 0.6 * T)
    rep = detect_anomalies(n, t)
    assert rep.pattern == "stepwise"
    assert rep.phase.tolist() == [0] * 5 + [1] * 5
    assert rep.anomalies.empty
    m = Adept(**KW).fit(n, t)
    assert "stepwise" in [w.kind for w in m.warnings_]
    fits = m.explain([3.0, 5.0, 9.0, 11.0])
    assert (fits["n_used"] == 5).all()  # only the points of the target's own phase
    truth = np.array([T[1], T[3], 0.6 * T[7], 0.6 * T[9]])
    np.testing.assert_allclose(fits["prediction"], truth, rtol=1e-3)


# (This used to fail: the "fast" points were taken as i + 1 of a rise R_{i+1}/R_i, the slow
# neighbour, instead of i + 2.)
def test_powers_of_two_twenty_percent_faster_are_specially_optimised():
    n = np.array([2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64.0])  # 11 points, 6 powers of two
    T = 100 * downey.runtime(n, 30, 0.5)  # saturates at 59: the instance is identifiable
    pow2 = np.log2(n) == np.round(np.log2(n))
    t = np.where(pow2, 0.8 * T, T)
    rep = detect_anomalies(n, t)
    assert rep.pattern == "specially-optimised"
    assert rep.feasible_allocations == "powers of two"
    np.testing.assert_array_equal(rep.weight_factor, pow2.astype(float))
    m = Adept(**KW).fit(n, t)
    assert "specially-optimised" in [w.kind for w in m.warnings_]
    # predictions follow the optimised allocations' curve, in and beyond the observed range
    targets = np.array([40.0, 128.0])
    np.testing.assert_allclose(m.predict(targets), 0.8 * 100 * downey.runtime(targets, 30, 0.5), rtol=0.01)
