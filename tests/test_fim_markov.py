"""FiM-Cal Markov model, Eqs. 1-10, against hand-computed cases and the literal sums."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import ValidationError
from workbench.models.fim import (
    barrier_stage_time,
    base_probabilities,
    calculation_time,
    hardware_valid,
    stage_completion_probability,
    stage_time,
    state_occupancy,
    transition_matrix,
    transition_matrix_literal,
)


def test_base_case_equations_1_to_5():
    bp = base_probabilities(tc=1000.0, sc=150.0, u=0.9)
    assert bp.p_act == 0.9                          # Eq. 1
    assert bp.p_a2p == pytest.approx(1 - 0.9 - 0.001)  # Eq. 2
    assert bp.p_pass == pytest.approx(0.15)         # Eq. 3
    assert bp.p_p2a == pytest.approx(0.85)          # Eq. 4
    assert bp.p_s1 == pytest.approx(1 - bp.p_act - bp.p_a2p)  # Eq. 5 = 1/TC
    assert bp.p_s1 == pytest.approx(0.001)


@pytest.mark.parametrize(
    ("tc", "sc", "u", "message"),
    [
        (1000.0, 150.0, 1.2, "U .utilisation per process. must be in \\[0, 1\\]"),
        (1000.0, 150.0, -0.1, "must be in \\[0, 1\\]"),
        (1000.0, 1000.0, 0.5, "SC .stall cycles, 1000. must be smaller than TC"),
        (1000.0, 0.0, 0.5, "SC .stall cycles. must be > 0"),
        (0.5, 0.1, 0.5, "TC .total cycles. must be > 1"),
        (1000.0, 150.0, 1.0, "P_a2p = 1 - U - 1/TC"),
        (float("nan"), 150.0, 0.5, "TC must be a finite number"),
    ],
)
def test_base_case_rejects_invalid_hardware(tc, sc, u, message):
    with pytest.raises(ValidationError, match=message):
        base_probabilities(tc, sc, u)


def test_hardware_valid_mask():
    ok = hardware_valid([1000, 1000, 1000, 0.5], [150, 1000, 150, 0.1], [0.9, 0.9, 1.0, 0.5])
    assert ok.tolist() == [True, False, False, False]


def test_t1_is_the_base_case():
    p = transition_matrix(1, 0.6, 0.3, 0.2, 0.8)
    # state 0 = passive, state 1 = active
    np.testing.assert_allclose(p, [[0.2, 0.8], [0.3, 0.6]], rtol=1e-12)


def test_t2_matches_the_paper_text():
    p_act, p_a2p, p_pass, p_p2a = 0.6, 0.3, 0.2, 0.8
    p = transition_matrix(2, p_act, p_a2p, p_pass, p_p2a)
    assert p[2, 2] == pytest.approx(p_act * p_act)                      # P22
    assert p[0, 0] == pytest.approx(p_pass * p_pass)                    # P00
    assert p[1, 1] == pytest.approx(p_act * p_pass + p_a2p * p_p2a)     # P11
    assert p[0, 1] == pytest.approx(2 * p_pass * p_p2a)                 # P01
    assert p[0, 2] == pytest.approx(p_p2a**2)
    assert p[2, 0] == pytest.approx(p_a2p**2)
    assert p[2, 1] == pytest.approx(2 * p_act * p_a2p)


def test_t3_hand_entries():
    p_act, p_a2p, p_pass, p_p2a = 0.5, 0.4, 0.3, 0.7
    p = transition_matrix(3, p_act, p_a2p, p_pass, p_p2a)
    assert p[3, 3] == pytest.approx(p_act**3)
    assert p[3, 0] == pytest.approx(p_a2p**3)
    assert p[0, 3] == pytest.approx(p_p2a**3)
    assert p[1, 2] == pytest.approx(2 * p_act * p_pass * p_p2a + p_a2p * p_p2a**2)   # Eq. 7, k = 0, 1
    assert p[2, 1] == pytest.approx(2 * p_act * p_a2p * p_pass + p_a2p**2 * p_p2a)  # Eq. 8, k = 0, 1
    # the missing mass of row i is the completion probability of its i actives
    np.testing.assert_allclose(p.sum(axis=1), (p_act + p_a2p) ** np.arange(4), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    t=st.integers(1, 12),
    u=st.floats(0.05, 0.95),
    stall=st.floats(0.01, 0.99),
    tc=st.floats(2.0, 1e6),
)
def test_vectorised_matrix_equals_literal_sums(t, u, stall, tc):
    bp = base_probabilities(tc, stall * tc, u * (1 - 1 / tc))
    fast = transition_matrix(t, *bp.as_tuple())
    slow = transition_matrix_literal(t, *bp.as_tuple())
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-15)


def test_large_matrix_rows_sum_as_predicted():
    bp = base_probabilities(1e4, 2e3, 0.9)
    p = transition_matrix(1024, *bp.as_tuple())
    assert p.shape == (1025, 1025)
    assert np.all(p >= 0)
    np.testing.assert_allclose(p.sum(axis=1), (1 - 1e-4) ** np.arange(1025), rtol=1e-9)


@pytest.mark.parametrize("t", [1, 2, 3, 7])
def test_eq9_from_the_matrix_equals_the_closed_form(t):
    tc = 50.0
    bp = base_probabilities(tc, 10.0, 0.7)
    from_matrix = 1 - transition_matrix(t, *bp.as_tuple())[t].sum()
    assert stage_completion_probability(t, tc) == pytest.approx(from_matrix, rel=1e-12)
    assert stage_completion_probability(t, tc) == pytest.approx(1 - (1 - 1 / tc) ** t, rel=1e-12)


def test_eq10_hand_values():
    f = 2.4e9
    # t = 1: one completion chance 1/TC per cycle -> TC cycles -> TC / F seconds
    assert stage_time(1, 2.4e9, f) == pytest.approx(1.0, rel=1e-12)
    # t = 2, TC = 4: P_s = 1 - (3/4)^2 = 7/16 -> T = 16 / (7 F)
    assert stage_time(2, 4.0, f) == pytest.approx(16 / (7 * f), rel=1e-12)
    # TC >> t: T ~ TC / (t F); precision kept at TC = 1e12 by expm1/log1p
    np.testing.assert_allclose(stage_time(np.array([1, 2, 4, 1024]), 1e12, f), 1e12 / (np.array([1, 2, 4, 1024]) * f),
                               rtol=1e-9)


def test_sc_and_u_do_not_enter_eq10():
    # the authors' code uses only the all-active row: T depends on TC and F alone
    t = 5
    for u, sc in [(0.5, 10.0), (0.95, 400.0)]:
        bp = base_probabilities(1000.0, sc, u)
        ps = 1 - transition_matrix(t, *bp.as_tuple())[t].sum()
        assert 1 / (ps * 1e9) == pytest.approx(stage_time(t, 1000.0, 1e9), rel=1e-10)


def test_stage_chaining():
    # one stage: Eq. 10; n identical stages of TC/n cycles each: n / (F (1 - (1 - n/TC)^t))
    assert calculation_time(3, 1000.0, 1.0) == pytest.approx(stage_time(3, 1000.0, 1.0))
    assert calculation_time(3, 1000.0, 1.0, stages=10) == pytest.approx(10 / (1 - (1 - 10 / 1000) ** 3))
    with pytest.raises(ValidationError, match="more than one cycle"):
        calculation_time(2, 10.0, 1.0, stages=20)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: stage_time(0, 1e6, 1e9), "t .number of processes. must be integers >= 1"),
    (lambda: stage_time(1.5, 1e6, 1e9), "integers >= 1"),
    (lambda: stage_time(2, 1e6, 0.0), "F .clock rate. must be finite and > 0"),
    (lambda: stage_time(2, 0.5, 1e9), "TC .cycles. must be finite and > 1"),
    (lambda: transition_matrix(2, 1.2, 0.0, 0.5, 0.5), "p_act must be a probability"),
    (lambda: transition_matrix(2, 0.5, 0.5, 0.5, 0.4), "p_pass \\+ p_p2a must be 1"),
    (lambda: transition_matrix(2, 0.7, 0.5, 0.5, 0.5), "p_act \\+ p_a2p must be <= 1"),
])
def test_invalid_arguments(call, message):
    with pytest.raises(ValidationError, match=message):
        call()


def test_state_occupancy_conserves_probability():
    bp = base_probabilities(200.0, 40.0, 0.8)
    p = transition_matrix(4, *bp.as_tuple())
    occ = state_occupancy(p, cycles=50)
    assert occ.shape == (51, 6)
    assert occ[0, 4] == 1.0
    np.testing.assert_allclose(occ.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.diff(occ[:, -1]) >= -1e-15)  # completed mass only grows
    np.testing.assert_allclose(occ[1, :5], p[4], rtol=1e-12)


def _brute_barrier(t, tc, sc, u, cycles=200_000):
    w = tc / t
    q = np.array([[u, 1 - u - 1 / w], [1 - sc / tc, sc / tc]])
    v = np.array([1.0, 0.0])
    total = 0.0
    for _ in range(cycles):
        g = 1 - (1 - v.sum()) ** t
        total += g
        if g < 1e-16:
            break
        v = v @ q
    return total


@pytest.mark.parametrize("t", [1, 2, 3, 8])
@pytest.mark.parametrize(("tc_per_process", "u", "stall"), [(400.0, 0.9, 0.15), (50.0, 0.6, 0.5), (3000.0, 0.97, 0.3)])
def test_barrier_extension_equals_the_discrete_sum(t, tc_per_process, u, stall):
    tc = tc_per_process * t
    got = barrier_stage_time(t, tc, stall * tc, u, 1.0)
    assert got == pytest.approx(_brute_barrier(t, tc, stall * tc, u), rel=2e-6)


def test_barrier_single_process_mean_is_the_fundamental_matrix():
    w, u, s = 1e7, 0.95, 0.2
    q = np.array([[u, 1 - u - 1 / w], [1 - s, s]])
    expected = np.linalg.inv(np.eye(2) - q).sum(axis=1)[0]
    assert barrier_stage_time(1, w, s * w, u, 1.0) == pytest.approx(expected, rel=1e-7)


def test_barrier_exposes_stragglers():
    t = np.array([1, 2, 4, 64, 1024])
    tc, f = 2e10, 2.4e9
    paper = calculation_time(t, tc, f)
    barrier = barrier_stage_time(t, tc, 0.2 * tc, 0.97, f)
    ratio = barrier / paper
    assert np.all(np.diff(ratio) > 0)  # the barrier costs more the more processes wait
    # geometric work per process: E[max of t] grows like the harmonic number H_t
    harmonic = np.array([sum(1 / k for k in range(1, n + 1)) for n in t])
    np.testing.assert_allclose(ratio / ratio[0], harmonic, rtol=0.02)


def test_a_fully_busy_process_is_the_edge_of_eq2():
    from workbench.models.fim import U_TOLERANCE, effective_utilization

    u = effective_utilization([1.0, 1.01, 1.0 + 2 * U_TOLERANCE, 0.5], 1000.0)
    np.testing.assert_allclose(u, [0.999, 0.999, 1.04, 0.5])
    assert hardware_valid(1000.0, 100.0, u).tolist() == [True, True, False, True]
    bp = base_probabilities(1000.0, 100.0, float(u[0]))
    assert bp.p_a2p == pytest.approx(0.0, abs=1e-15)
