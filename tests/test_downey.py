"""Tests for workbench.models.downey (thesis Table 1 and section 3.3.2)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import ValidationError
from workbench.models.downey import (
    check_parameters,
    efficiency,
    max_useful_allocation,
    processor_working_set,
    runtime,
    serial_runtime,
    speedup,
)

A_st = st.floats(1.0, 2000.0)
sigma_st = st.floats(0.0, 20.0)


# --- hand-computed values from Table 1 -------------------------------------------------
@pytest.mark.parametrize(
    ("n", "A", "sigma", "S", "T"),
    [
        # low variance, piece 1 (n <= A): S = 10*5 / (10 + 0.25*4) = 50/11;
        # T = (10 - 0.25)/5 + 0.25 = 2.2; T(1)/T = 10/2.2 = 50/11
        (5, 10, 0.5, 50 / 11, 2.2),
        # low variance, piece 2 (A <= n <= 2A-1 = 19): S = 150 / (0.5*9.5 + 15*0.75) = 150/16;
        # T = 0.5*9.5/15 + 0.75 = 1.0666..
        (15, 10, 0.5, 9.375, 4.75 / 15 + 0.75),
        # low variance, saturated (n >= 19): S = A, T = 1
        (25, 10, 0.5, 10.0, 1.0),
        # sigma = 0 is linear speedup up to A: S = n, T = A/n
        (4, 10, 0.0, 4.0, 2.5),
        # high variance, piece 1 (n <= A + A sigma - sigma = 28): S = 4*10*3 / (2*13 + 10) = 120/36;
        # T = 2 + 28/4 = 9; T(1) = A (1 + sigma) = 30 and 30/9 = 120/36
        (4, 10, 2.0, 120 / 36, 9.0),
        # high variance at the saturation point: S = 28*30 / (2*37 + 10) = 840/84 = A, T = sigma + 1
        (28, 10, 2.0, 10.0, 3.0),
        (100, 10, 2.0, 10.0, 3.0),
    ],
)
def test_table1_hand_computed(n, A, sigma, S, T):
    assert speedup(n, A, sigma) == pytest.approx(S, rel=1e-12)
    assert runtime(n, A, sigma) == pytest.approx(T, rel=1e-12)
    assert efficiency(n, A, sigma) == pytest.approx(S / n, rel=1e-12)


def test_serial_runtime_and_max_useful_allocation_by_hand():
    assert serial_runtime(10, 0.5) == 10.0  # low variance: T(1) = A
    assert serial_runtime(10, 2.0) == 30.0  # high variance: T(1) = A (1 + sigma)
    # 2A - 1 (low), A + A sigma - sigma (high); both 2A - 1 at sigma = 1
    np.testing.assert_array_equal(max_useful_allocation(10, [0.0, 0.5, 1.0, 2.0]), [19, 19, 19, 28])


def test_vectorised_over_all_arguments():
    n = np.array([[1.0], [5.0], [15.0]])
    A = np.array([10.0, 10.0])
    sigma = np.array([0.5, 2.0])
    s = speedup(n, A, sigma)
    assert s.shape == (3, 2)
    assert s[1, 0] == pytest.approx(50 / 11)
    assert s[1, 1] == pytest.approx(5 * 30 / (2 * 14 + 10))


# --- structural properties ------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(A_st, sigma_st)
def test_speedup_at_one_is_exactly_one(A, sigma):
    assert speedup(1, A, sigma) == 1.0
    assert runtime(1, A, sigma) == pytest.approx(serial_runtime(A, sigma), rel=1e-12)


def _jump(f, b, h):
    return abs(float(f(b + h)) - float(f(max(b - h, 1.0))))


@settings(max_examples=100, deadline=None)
@given(A_st, sigma_st)
def test_continuous_at_piece_boundaries(A, sigma):
    bounds = [A, 2 * A - 1] if sigma <= 1 else [A + A * sigma - sigma]
    for b in bounds:
        h = 1e-7 * b
        # |dS/dn| <= 1 and |dT/dn| <= T(1) on every piece, so without a jump the change is O(h)
        assert _jump(lambda x: speedup(x, A, sigma), b, h) <= 2 * h + 1e-12 * A
        assert _jump(lambda x: runtime(x, A, sigma), b, h) <= 2 * h * serial_runtime(A, sigma) + 1e-12 * A


@settings(max_examples=50, deadline=None)
@given(A_st, st.floats(1.0, 5000.0))
def test_speedup_continuous_across_sigma_one(A, n):
    eps = 1e-9
    assert speedup(n, A, 1 - eps) == pytest.approx(speedup(n, A, 1 + eps), rel=1e-6)
    assert speedup(n, A, 1.0) == pytest.approx(speedup(n, A, 1 + eps), rel=1e-6)


def test_runtime_jumps_by_factor_two_across_sigma_one():
    # T(1) is A on the low-variance side and A (1 + sigma) = 2A on the high-variance side
    # (Table 1), so the model-unit runtime is discontinuous in sigma although S is not.
    # Fits in raw units (DowneyLM units="paper") see this cliff; a fitted scale absorbs it.
    n = np.array([1.0, 7.0, 50.0, 500.0])
    ratio = runtime(n, 50.0, 1.0 + 1e-12) / runtime(n, 50.0, 1.0)
    np.testing.assert_allclose(ratio, 2.0, rtol=1e-9)


@settings(max_examples=100, deadline=None)
@given(A_st, sigma_st, st.floats(1.0, 1e5))
def test_runtime_ratio_is_speedup(A, sigma, n):
    assert serial_runtime(A, sigma) / runtime(n, A, sigma) == pytest.approx(speedup(n, A, sigma), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(A_st, sigma_st)
def test_speedup_monotone_bounded_and_efficiency_at_most_one(A, sigma):
    n = np.linspace(1.0, 2 * float(max_useful_allocation(A, sigma)) + 10, 4001)
    s = speedup(n, A, sigma)
    assert np.all(np.diff(s) >= -1e-9 * A)
    assert np.all(s <= np.minimum(n, A) * (1 + 1e-12))
    assert np.all(efficiency(n, A, sigma) <= 1 + 1e-12)
    assert s[-1] == pytest.approx(A)


@settings(max_examples=100, deadline=None)
@given(A_st, sigma_st)
def test_max_useful_allocation_is_where_speedup_reaches_a(A, sigma):
    n_max = max_useful_allocation(A, sigma)
    assert n_max >= A
    assert speedup(n_max, A, sigma) == A
    if sigma > 1e-3 and n_max > 1:  # for sigma = 0 the speedup is already A at n = A
        assert speedup(max(1.0, n_max * (1 - 1e-3)), A, sigma) < A


def test_max_useful_allocation_never_rounds_below_one():
    # A + A sigma - sigma gave 0.9999999999999991 for A = 1, sigma = 7.7, which then
    # failed validation as a processor count
    assert max_useful_allocation(1.0, 7.7) == 1.0
    assert speedup(max_useful_allocation(1.0, 7.7), 1.0, 7.7) == 1.0


# --- processor working set ------------------------------------------------------------------
def _working_set_brute_force(A, sigma):
    n = np.arange(1.0, math.ceil(float(max_useful_allocation(A, sigma))) + 2)
    eta = speedup(n, A, sigma) ** 2 / n
    # smallest n attaining the maximum, up to floating-point rounding of equal values
    return n[np.argmax(eta >= eta.max() * (1 - 1e-12))]


@pytest.mark.parametrize(
    ("A", "sigma", "expected"),
    [
        # sigma = 0: eta = n up to A, then A^2/n -> peak at A
        (10, 0.0, 10),
        # sigma = 0.5: piece-1 critical point (2A - sigma)/sigma = 39 > A (still rising at A),
        # piece-2 critical point sigma (A - 1/2)/(1 - sigma/2) = 6.3 < A (falling after A):
        # eta(9) = 7.5^2/9 = 6.25, eta(10) = (100/12.25)^2/10 = 6.66, eta(11) = (110/13)^2/11 = 6.51
        (10, 0.5, 10),
        # sigma = 1: S = 20n/(19 + n), eta ~ n/(19 + n)^2 peaks at 19 = 2A - 1
        (10, 1.0, 19),
        # sigma = 2: critical point (sigma (A - 1) + A)/sigma = 28/2 = 14:
        # eta(13) = 4.0123, eta(14) = 7.5^2/14 = 4.0179, eta(15) = 4.0131
        (10, 2.0, 14),
        (1, 0.0, 1),
        (1, 5.0, 1),
    ],
)
def test_processor_working_set_by_hand(A, sigma, expected):
    assert processor_working_set(A, sigma) == expected
    assert _working_set_brute_force(A, sigma) == expected


@settings(max_examples=80, deadline=None)
@given(A_st, sigma_st)
def test_processor_working_set_matches_brute_force(A, sigma):
    assert processor_working_set(A, sigma) == _working_set_brute_force(A, sigma)


def test_processor_working_set_tiny_sigma_is_quiet_and_correct():
    # sigma = 1e-310 overflowed (2A - sigma)/sigma with a leaked RuntimeWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = processor_working_set([10.0, 10.0], [1e-310, 1.0 + 1e-310])
    np.testing.assert_array_equal(got, [10, 19])


def test_processor_working_set_is_vectorised():
    got = processor_working_set([10.0, 10.0, 10.0], [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(got, [10, 19, 14])


# --- invalid input ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("A", "sigma", "match"),
    [
        (0.5, 1.0, "A .*must be finite and >= 1"),
        (np.nan, 1.0, "A .*must be finite and >= 1"),
        (np.inf, 1.0, "A .*must be finite and >= 1"),
        (10.0, -0.1, "sigma .*must be finite and >= 0"),
        (10.0, np.nan, "sigma .*must be finite and >= 0"),
        ([10.0, 0.0], 1.0, "A .*must be finite and >= 1"),
    ],
)
def test_invalid_parameters_raise(A, sigma, match):
    with pytest.raises(ValidationError, match=match):
        check_parameters(A, sigma)
    for f in (lambda: speedup(2, A, sigma), lambda: runtime(2, A, sigma), lambda: serial_runtime(A, sigma),
              lambda: max_useful_allocation(A, sigma), lambda: processor_working_set(A, sigma),
              lambda: efficiency(2, A, sigma)):
        with pytest.raises(ValidationError, match=match):
            f()


@pytest.mark.parametrize("n", [0.0, 0.5, -3.0, np.nan, [1.0, np.inf]])
def test_invalid_processor_counts_raise(n):
    with pytest.raises(ValidationError, match="number of processors n must be finite and >= 1"):
        speedup(n, 10, 0.5)
    with pytest.raises(ValidationError, match="number of processors n must be finite and >= 1"):
        runtime(n, 10, 0.5)
