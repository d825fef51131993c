"""ADEPT search (thesis 3.5.2): WSSRE, the profiled time scale, the fixed point of pass 1 and
the exact fast path of pass 2 against brute force."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from workbench.models import downey
from workbench.models.adept import search

SIZE = 60  # small grids: exactness, not resolution, is the point here


def test_wssre_by_hand():
    # x = T/t = (1.1, 0.8), w = (2, 1)
    # paper (tau = 1): 2 (0.1)^2 + 1 (0.2)^2 = 0.02 + 0.04 = 0.06
    # fit: tau = sum w x / sum w x^2 = (2.2 + 0.8)/(2.42 + 0.64) = 3/3.06
    #      WSSRE = S0 - S1^2/S2 = 3 - 9/3.06 = 0.0588235...
    x = np.array([1.1, 0.8])
    w = np.array([2.0, 1.0])
    assert search.wssre(x, w, paper=True) == pytest.approx(0.06)
    assert search.profiled_scale(x, w, paper=False) == pytest.approx(3 / 3.06)
    assert search.wssre(x, w, paper=False) == pytest.approx(3 - 9 / 3.06)


def test_profiled_scale_is_the_minimiser():
    rng = np.random.default_rng(1)
    x, w = rng.uniform(0.5, 2, 6), rng.uniform(0, 3, 6)
    best = minimize_scalar(lambda tau: np.sum(w * (tau * x - 1) ** 2), bounds=(0.01, 10), method="bounded",
                           options={"xatol": 1e-12})
    assert search.profiled_scale(x, w, paper=False) == pytest.approx(best.x, rel=1e-6)
    assert search.wssre(x, w, paper=False) == pytest.approx(best.fun, rel=1e-9)


def test_fixed_point_sigmas_pass_through_the_fixed_point():
    # pass 1: for every A, sigma makes T(n_f) = t_f (paper) or T(n_f)/T(n_g) = t_f/t_g (fit)
    A = np.linspace(5, 400, 300)
    n_f, t_f, n_g, t_g = 16.0, 9.0, 32.0, 5.5
    for paper in (True, False):
        roots = search.fixed_point_sigmas(n_f, t_f, A, paper=paper, n_g=n_g, t_g=t_g, s_max=50.0)
        Ar = np.broadcast_to(A[:, None], roots.shape)[np.isfinite(roots)]
        sr = roots[np.isfinite(roots)]
        assert sr.size >= 10 and (sr >= 0).all() and (sr <= 50).all()
        Tf = downey.runtime(n_f, Ar, sr)
        if paper:
            np.testing.assert_allclose(Tf, t_f, rtol=1e-9)
        else:
            np.testing.assert_allclose(Tf / downey.runtime(n_g, Ar, sr), t_f / t_g, rtol=1e-9)


def _check_exact(n, t, w, A_lo, A_hi, s_lo, s_hi, paper):
    res = search.grid_argmin(n, t, w, A_lo, A_hi, s_lo, s_hi, SIZE, SIZE, paper=paper)
    for k in range(w.shape[0]):
        A, s, f = search.grid_objective_bruteforce(n, t, w[k], A_lo, A_hi, s_lo, s_hi, SIZE, SIZE, paper=paper)
        np.testing.assert_allclose(res.objective[k], f.min(), rtol=1e-9, atol=1e-12 * w[k].sum())
        # the winner is a grid point, and its reported objective is its true WSSRE
        i = np.argmin(np.abs(A - res.A[k]))
        j = np.argmin(np.abs(s - res.sigma[k]))
        assert A[i] == pytest.approx(res.A[k], rel=1e-12) and s[j] == pytest.approx(res.sigma[k], rel=1e-12, abs=1e-12)
        assert f[i, j] == pytest.approx(res.objective[k], rel=1e-9, abs=1e-12 * w[k].sum())


@st.composite
def problems(draw, windows=("straddle", "low", "high", "degenerate", "one", "wide")):
    M = draw(st.integers(3, 6))
    n = np.sort(np.array(draw(st.lists(st.integers(1, 512), min_size=M, max_size=M, unique=True)), float))
    A0, s0 = draw(st.floats(1.5, 600)), draw(st.floats(0, 15))
    noise = np.array(draw(st.lists(st.floats(0.7, 1.3), min_size=M, max_size=M)))
    t = downey.runtime(n, A0, s0) * noise * draw(st.sampled_from([1.0, 1e-3, 250.0]))
    K = draw(st.integers(1, 3))
    w = np.array(draw(st.lists(st.floats(0, 10), min_size=K * M, max_size=K * M))).reshape(K, M)
    w[:, 0] += 0.1  # at least one positive weight per problem
    A_lo = draw(st.floats(1, 500))
    A_hi = A_lo + draw(st.sampled_from([0.0, 1.0, 50.0, 400.0]))
    kind = draw(st.sampled_from(windows))
    if kind == "straddle":  # windows across sigma = 1 (low and high variance in one column)
        s_lo, s_hi = draw(st.floats(0, 0.99)), draw(st.floats(1.01, 20))
    elif kind == "low":
        s_lo = draw(st.floats(0, 1))
        s_hi = draw(st.floats(s_lo, 1))
    elif kind == "high":
        s_lo = draw(st.floats(1, 30))
        s_hi = s_lo + draw(st.floats(0, 30))
    elif kind == "degenerate":  # hi == lo: a single sigma value
        s_lo = s_hi = draw(st.floats(0, 20))
    elif kind == "one":
        s_lo = s_hi = 1.0
    else:
        s_lo, s_hi = 0.0, draw(st.floats(100, 3000))
    return n, t, w, A_lo, A_hi, s_lo, s_hi, draw(st.booleans())


@settings(max_examples=40, deadline=None)
@given(problems(windows=("low", "one")))
def test_grid_argmin_is_exact_on_low_variance_windows(p):
    _check_exact(*p)


# Cases found by the property test.  A high-variance breakpoint beta_i = (n_i - A)/(A - 1)
# outside the sigma window used to be clipped to the window's edge, which creates a zero-length
# segment there that evaluates the edge's grid point with the wrong pieces.
#
# Above the window: n = (1, 2, 12), A = 6, sigma in [1, 1.125] (3 values): n = 12 leaves its rising
# piece at beta = 1.2 > 1.125; sigma = 1.125 was evaluated with n = 12 rising.  (Fixed.)
ABOVE = (np.array([1.0, 2, 12]), np.array([12.0, 4.5, 1.25]), np.array([[1.0, 1, 1]]), 6.0, 6.0, 1.0, 1.125)
# Below the window: n = (1, 2, 3, 9, 10), A in {8, 9}, sigma = 2 only: the breakpoints of n = 9, 10
# (1/7 and 2/7 for A = 8, 1/8 for A = 9) are clipped up to sigma = 2; brute force finds 0.0082107
# at A = 9, grid_argmin returns A = 8 with 0.0101022.
BELOW = (np.array([1.0, 2, 3, 9, 10]), np.array([6.0, 3, 2, 0.75, 1.0]), np.array([[0.1, 0, 0, 1, 0]]),
         8.0, 9.0, 2.0, 2.0)
# The window's last grid value: n = (1, 2, 3), sigma in [0, 2009] on 60 values: lo + h (size - 1)
# rounds to 2009.0000000000002 > hi, so it lies outside the closed last segment [.., hi] and is
# never evaluated: 5.8237e-9 (sigma = 1974.9) instead of the brute-force 5.6280e-9 (sigma = 2009).
WIDE = (np.array([1.0, 2, 3]), np.array([1.5, 1, 1.0]), np.array([[0.1, 0, 1]]), 1.0, 2.0, 0.0, 2009.0)


def test_grid_argmin_breakpoint_above_the_window():
    n, t, w, A_lo, A_hi, s_lo, s_hi = ABOVE
    res = search.grid_argmin(n, t, w, A_lo, A_hi, s_lo, s_hi, 1, 3, paper=False)
    _, s, f = search.grid_objective_bruteforce(n, t, w[0], A_lo, A_hi, s_lo, s_hi, 1, 3, paper=False)
    # brute force: sigma = 1.0 gives 0.103026, sigma = 1.125 gives 0.103364
    assert s[np.argmin(f[0])] == 1.0
    assert res.objective[0] == pytest.approx(f.min(), rel=1e-9)


# Formerly wrong (fixed by half-open segments on the unclipped sorted breakpoints): a
# breakpoint below the window clipped up to its start evaluated that grid point with the wrong
# pieces ('below'); the last grid value could round above hi and fall in no segment ('wide').
@pytest.mark.parametrize("case, sizes", [(BELOW, (2, 1)), (WIDE, (60, 60))], ids=["below", "wide"])
def test_grid_argmin_segment_edges(case, sizes):
    n, t, w, A_lo, A_hi, s_lo, s_hi = case
    res = search.grid_argmin(n, t, w, A_lo, A_hi, s_lo, s_hi, *sizes, paper=False)
    _, _, f = search.grid_objective_bruteforce(n, t, w[0], A_lo, A_hi, s_lo, s_hi, *sizes, paper=False)
    assert res.objective[0] == pytest.approx(f.min(), rel=1e-9)


@settings(max_examples=50, deadline=None)
@given(problems())
@example((ABOVE[0], ABOVE[1], ABOVE[2], 5.0, 6.0, 0.0, 1.125, False))
@example((BELOW[0], BELOW[1], BELOW[2], 8.0, 9.0, 2.0, 2.0, False))
@example((WIDE[0], WIDE[1], np.array([[0.1, 0, 0], [0.1, 0, 1.0]]), 1.0, 2.0, 0.0, 2009.0, False))
def test_grid_argmin_equals_bruteforce(p):
    _check_exact(*p)
