"""ADEPT envelope: the range pairs of Appendix A (eqs. 25-35) and the scale-free envelope.

Hand-computed cases use delta = 0.1 and data generated from known Downey instances, so
every number in the comments can be checked with a pocket calculator.  Runtimes in
``units="paper"`` are model units (T(inf) = 1 for low variance), as in the thesis.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench.models import downey
from workbench.models.adept import fit_envelope, range_pairs
from workbench.models.adept.search import relative_model

DELTA = 0.1
COLUMNS = ["A_min", "A_max", "sigma_min", "sigma_max", "case", "i", "j", "k"]


def _rows(boxes: pd.DataFrame) -> list[tuple]:
    return sorted(boxes[COLUMNS].itertuples(index=False, name=None), key=lambda r: (r[4], r[5], r[6]))


def _assert_boxes(boxes, expected):
    got = _rows(boxes)
    assert len(got) == len(expected), got
    for g, e in zip(got, sorted(expected, key=lambda r: (r[4], r[5], r[6]))):
        assert g[4:] == e[4:], (g, e)
        assert g[:4] == pytest.approx(e[:4], rel=1e-6), (g, e)


# --- hand-computed range pairs, one small case per Appendix A case --------------------------------
def test_case_1_high_variance_both_rising():
    # A = 10, sigma = 2: T(n) = sigma + (A + A sigma - sigma)/n = 2 + 28/n -> t(2) = 16, t(4) = 9
    # n t: 32, 36.
    # Case 1 (eq. 26): sigma = (36 - 32)/(4 - 2) = 2 -> [1.8, 2.2]
    #   (eq. 27): A = [28.8 - sigma, 35.2 - sigma]/(sigma + 1)   (n_i t_i (1 -+ 0.1) = 28.8, 35.2)
    #   sigma = 1.8: [27/2.8, 33.4/2.8] = [9.642857, 11.928571]
    #   sigma = 2.2: [26.6/3.2, 33/3.2] = [8.3125, 10.3125]   -> A in [8.3125, 11.928571]
    # Case 2 (eqs. 28-29, t_j reading): sigma in [9*0.9 - 1, 9*1.1 - 1] = [7.1, 8.9]
    #   sigma = 7.1: [21.7/8.1, 28.1/8.1] = [2.679012, 3.469136]
    #   sigma = 8.9: [19.9/9.9, 26.3/9.9] = [2.010101, 2.656566]  -> A in [2.010101, 3.469136]
    # Case 4: sigma = 2 * 2 = 4 -> [3.6, 4.4], above 1: discarded.
    # Case 5: sigma = 2 (32 - 36)/2 = -4 -> [-1.6, -2.4], negative: discarded.
    boxes = range_pairs([2, 4], [16, 9], DELTA)
    _assert_boxes(boxes, [
        (8.3125, 33.4 / 2.8, 1.8, 2.2, 1, 0, 1, -1),
        (19.9 / 9.9, 28.1 / 8.1, 7.1, 8.9, 2, 0, 1, -1),
    ])
    env = fit_envelope([2, 4], [16, 9], DELTA, "paper")
    assert env.contains(10, 2)


def test_case_2_high_variance_rising_then_saturated():
    # A = 3, sigma = 2: saturation at A + A sigma - sigma = 7; T = 2 + 7/n up to 7, then 3.
    # n = (1, 8): t = (9, 3); n t = (9, 24).
    # Case 2: sigma in [3*0.9 - 1, 3*1.1 - 1] = [1.7, 2.3];
    #   A = [8.1, 9.9]/(sigma + 1) (n_i = 1, so sigma (1 - n_i) = 0)
    #   sigma = 1.7: [3.0, 3.666667]; sigma = 2.3: [2.454545, 3.0] -> A in [2.454545, 3.666667]
    # Case 1: sigma = (24 - 9)/7 = 15/7 -> [1.928571, 2.357143]
    #   A = [8.1, 9.9]/(sigma + 1): 1.928571 -> [2.765854, 3.380488]; 2.357143 -> [2.412766, 2.948936]
    #   -> A in [2.412766, 3.380488]
    # Cases 4 and 5: sigma = 30/7 (> 1) and -30/7 (+2 -> negative): discarded.
    boxes = range_pairs([1, 8], [9, 3], DELTA)
    s1 = 15 / 7
    _assert_boxes(boxes, [
        (9 * 0.9 / (s1 * 1.1 + 1), 9 * 1.1 / (s1 * 0.9 + 1), s1 * 0.9, s1 * 1.1, 1, 0, 1, -1),
        (8.1 / 3.3, 9.9 / 2.7, 1.7, 2.3, 2, 0, 1, -1),
    ])
    assert fit_envelope([1, 8], [9, 3], DELTA, "paper").contains(3, 2)


def test_case_3_equals_case_2_on_the_third_observation_and_is_redundant():
    # Same instance (A = 3, sigma = 2), n = (1, 8, 16): t = (9, 3, 3).  For the pair
    # (i, j) = (1, 2) both points are saturated and Case 3 takes A from k = 0:
    #   sigma in [1.7, 2.3] (eq. 30 from t_j = 3), A in [2.454545, 3.666667] (eq. 31 from
    #   n_k t_k = 9) -- exactly the Case 2 box of the pair (k, j) = (0, 2) ("(31) is
    #   essentially the same as (29)"), so a Case 3 range pair is always a duplicate.
    # The Case 2 box of (1, 2): sigma in [1.7, 2.3], A = [21.6 - 7 sigma, 26.4 - 7 sigma]/(sigma + 1)
    #   sigma = 1.7: [3.592593, 5.370370]; 2.3: [1.666667, 3.121212] -> [1.666667, 5.370370]
    #   contains the Case 3 / Case 2 (0, j) boxes, which are therefore dropped as redundant.
    n, t = [1, 8, 16], [9, 3, 3]
    boxes = range_pairs(n, t, DELTA)
    assert not (boxes["case"] == 3).any()
    big = boxes[(boxes["case"] == 2) & (boxes["i"] == 1) & (boxes["j"] == 2)]
    assert _rows(big)[0][:4] == pytest.approx((5.5 / 3.3, 14.5 / 2.7, 1.7, 2.3))
    env = fit_envelope(n, t, DELTA, "paper")
    lo, hi = 3 * 0.9 - 1, 3 * 1.1 - 1  # 1.7, 2.3 as computed in floating point
    case3 = np.array([[8.1 / (hi + 1), lo], [8.1 / (hi + 1), hi], [9.9 / (lo + 1), lo], [9.9 / (lo + 1), hi]])
    assert env.contains(case3[:, 0], case3[:, 1]).all()  # the union still holds the Case 3 box
    assert env.contains(3, 2)


def test_case_4_low_variance_first_piece():
    # A = 10, sigma = 0.5: T = (A - sigma/2)/n + sigma/2 = 9.75/n + 0.25 -> t(2) = 5.125, t(4) = 2.6875
    # n t = (10.25, 10.75).
    # Case 4 (eq. 32): sigma = 2 (10.75 - 10.25)/2 = 0.5 -> [0.45, 0.55]
    #   (eq. 33): A = [9.225 - sigma/2, 11.275 - sigma/2] -> A in [9.225 - 0.275, 11.275 - 0.225] = [8.95, 11.05]
    # Case 2: sigma in [2.6875*0.9 - 1, 2.6875*1.1 - 1] = [1.41875, 1.95625],
    #   A = [9.225 - sigma, 11.275 - sigma]/(sigma + 1):
    #   1.41875 -> [3.227390, 4.074935]; 1.95625 -> [2.458774, 3.152220] -> A in [2.458774, 4.074935]
    # Case 1: sigma = 0.25 -> [0.225, 0.275] (< 1); Case 5: -0.5 + 2 -> [1.45, 1.55] (> 1): discarded.
    boxes = range_pairs([2, 4], [5.125, 2.6875], DELTA)
    _assert_boxes(boxes, [
        (8.95, 11.05, 0.45, 0.55, 4, 0, 1, -1),
        (7.26875 / 2.95625, 9.85625 / 2.41875, 1.41875, 1.95625, 2, 0, 1, -1),
    ])
    assert fit_envelope([2, 4], [5.125, 2.6875], DELTA, "paper").contains(10, 0.5)


def test_case_5_low_variance_second_piece():
    # A = 10, sigma = 0.5, piece 2 (A <= n <= 2A - 1): T = sigma (A - 1/2)/n + 1 - sigma/2 = 4.75/n + 0.75
    # t(12) = 1.1458333, t(16) = 1.046875; n t = (13.75, 16.75).
    # Case 5 (eq. 34): sigma = 2 (13.75 - 16.75)/4 (1 -+ 0.1) + 2 = -1.5 (0.9 | 1.1) + 2 = [0.35, 0.65]
    #   (eq. 35): A = 6.5 + (13.75 (1 -+ 0.1) - 12)/sigma = [6.5 + 0.375/sigma, 6.5 + 3.125/sigma]
    #   -> A_min = 6.5 + 0.375/0.65 = 7.076923, A_max = 6.5 + 3.125/0.35 = 15.428571
    # Case 1: 0.75 -> [0.675, 0.825] (< 1); Case 2: [-0.058, 0.152] (< 1); Case 4: [1.35, 1.65]: discarded.
    t = [4.75 / 12 + 0.75, 4.75 / 16 + 0.75]
    boxes = range_pairs([12, 16], t, DELTA)
    _assert_boxes(boxes, [(6.5 + 0.375 / 0.65, 6.5 + 3.125 / 0.35, 0.35, 0.65, 5, 0, 1, -1)])
    assert fit_envelope([12, 16], t, DELTA, "paper").contains(10, 0.5)


def test_clipping_at_sigma_one_and_redundancy_removal():
    # A = 10, sigma = 1: T = 9.5/n + 0.5 -> t(2) = 5.25, t(4) = 2.875; n t = (10.5, 11.5).
    # Case 4: sigma = 2 (11.5 - 10.5)/2 = 1 -> [0.9, 1.1], clipped to [0.9, 1] (low variance)
    #   A = [9.45 - sigma/2, 11.55 - sigma/2] -> [8.95, 11.1]
    # Case 5: sigma = -1 (0.9 | 1.1) + 2 = [0.9, 1.1] -> clipped [0.9, 1]
    #   A = [1.5 + 7.45/sigma, 1.5 + 9.55/sigma] -> [8.95, 12.111111]  => contains the Case 4 box,
    #   which is dropped as redundant (thesis 3.5.1, Figure 4).
    # Case 2: sigma in [1.5875, 2.1625], A = [9.45 - sigma, 11.55 - sigma]/(sigma + 1) -> [2.304348, 3.850242]
    # Case 1: sigma = 0.5 -> [0.45, 0.55] < 1: discarded.
    boxes = range_pairs([2, 4], [5.25, 2.875], DELTA)
    _assert_boxes(boxes, [
        (8.95, 1.5 + 9.55 / 0.9, 0.9, 1.0, 5, 0, 1, -1),
        (7.2875 / 3.1625, 9.9625 / 2.5875, 1.5875, 2.1625, 2, 0, 1, -1),
    ])


def test_clipping_high_variance_sigma_below_one_and_A_below_one():
    # High variance at sigma = 1 exactly: T = 1 + 19/n -> t(2) = 10.5, t(4) = 5.75; n t = (21, 23).
    # Case 1: sigma = 1 -> [0.9, 1.1] clipped to [1, 1.1] (high variance needs sigma >= 1);
    #   A = [18.9 - sigma, 23.1 - sigma]/(sigma + 1): 1 -> [8.95, 11.05]; 1.1 -> [8.476190, 10.476190]
    boxes = range_pairs([2, 4], [10.5, 5.75], DELTA)
    c1 = boxes[boxes["case"] == 1]
    assert _rows(c1)[0][:4] == pytest.approx((17.8 / 2.1, 11.05, 1.0, 1.1))
    # A below 1 is cut: n = (1, 2), t = (1, 0.55): Case 4 sigma = 2 (1.1 - 1)/1 = 0.2 -> [0.18, 0.22],
    # A = n_1 t_1 (1 -+ 0.1) = [0.9, 1.1] (n_i = 1: no sigma term) -> clipped to [1, 1.1].
    # (Case 1: 0.1 < 1, Case 2: t_j - 1 < 0, Case 5: -0.2 + 2 = 1.8 > 1 -- all discarded.)
    _assert_boxes(range_pairs([1, 2], [1.0, 0.55], DELTA), [(1.0, 1.1, 0.18, 0.22, 4, 0, 1, -1)])


# --- properties on model data -----------------------------------------------------------------------
LAYOUTS = [
    [1, 2, 4, 8, 16, 32, 64],
    [2.0**k for k in range(2, 12)],
    [4, 32, 256, 2048],
    [16, 25, 36, 49, 64, 81, 100, 121, 144],
    [8, 16, 24, 32, 40, 48, 56, 64],
    [100, 200, 300, 1000, 3000],
]


@st.composite
def layouts(draw):
    if draw(st.booleans()):
        return np.array(draw(st.sampled_from(LAYOUTS)), float)
    ns = draw(st.lists(st.integers(1, 4096), min_size=3, max_size=8, unique=True))
    return np.array(sorted(ns), float)


def _check_boxes_valid(boxes):
    assert (boxes["A_min"] >= 1).all() and (boxes["A_min"] <= boxes["A_max"]).all()
    assert (boxes["sigma_min"] >= 0).all() and (boxes["sigma_min"] <= boxes["sigma_max"]).all()
    high = boxes["case"].isin([1, 2, 3])
    assert (boxes.loc[high, "sigma_min"] >= 1).all()
    assert (boxes.loc[~high, "sigma_max"] <= 1).all()


def _check_no_box_inside_another(boxes):
    a0, a1, s0, s1 = (boxes[c].to_numpy() for c in ("A_min", "A_max", "sigma_min", "sigma_max"))
    inside = (a0[:, None] >= a0) & (a1[:, None] <= a1) & (s0[:, None] >= s0) & (s1[:, None] <= s1)
    np.fill_diagonal(inside, False)
    assert not inside.any()


@settings(max_examples=60, deadline=None)
@given(A=st.floats(5, 2000), sigma=st.floats(1.0, 12, exclude_min=True), n=layouts(), delta=st.floats(0.01, 0.3))
def test_paper_envelope_contains_the_true_high_variance_instance(A, sigma, n, delta):
    # High variance (sigma > 1; sigma = 1 uses the low-variance formulas) has two pieces
    # (rising, saturated); Cases 1-3 cover every layout as long as not all runtimes are
    # equal (Appendix A, assumption 3).
    t = downey.runtime(n, A, sigma)
    assume(np.ptp(t) > 0)
    env = fit_envelope(n, t, delta, "paper")
    assert env.contains(A, sigma)
    _check_boxes_valid(env.boxes)
    _check_no_box_inside_another(env.boxes)


@settings(max_examples=60, deadline=None)
@given(A=st.floats(5, 2000), sigma=st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), n=layouts(),
       delta=st.floats(0.01, 0.3))
def test_paper_envelope_contains_the_true_low_variance_instance(A, sigma, n, delta):
    # Appendix A's argument for low variance: "either two of the observations are in the
    # first piece, or two of the observations are in the second piece".  Restricted here to
    # the layouts where that holds (Case 5 needs sigma > 0, as its A bound divides by sigma,
    # and sigma not so small that its sigma range reaches 0); the other layouts are the
    # xfail cases below.  (A sigma below 1e-6 but above 0 is lost in the rounding of eq. 32.)
    first = np.sum(n <= A)
    second = np.sum((n > A) & (n < 2 * A - 1))
    assume(first >= 2 or (second >= 2 and sigma > 2 * delta))
    t = downey.runtime(n, A, sigma)
    env = fit_envelope(n, t, delta, "paper")
    assert env.contains(A, sigma)
    _check_boxes_valid(env.boxes)
    _check_no_box_inside_another(env.boxes)


_SATURATED = pytest.mark.xfail(strict=True, reason=(
    "LIMITATION of the thesis (kept literal): exact model data whose true instance is outside the "
    "paper-mode envelope: the five cases of Appendix A have no range pair for observations on the saturated "
    "low-variance piece (n >= 2A - 1, "
    "T = 1) -- the appendix's 'two observations in the first or two in the second piece' misses it"))
@pytest.mark.parametrize("A, sigma, n", [
    pytest.param(14.77, 0.32, [4, 32, 256, 2048], marks=_SATURATED, id="one-on-piece-1-three-saturated"),
    pytest.param(500.0, 0.5, [4, 1500, 2000], marks=_SATURATED, id="one-on-piece-1-two-saturated"),
    # Case 5's A bound (n_i + 1)/2 + n_i (t_i (1 +- delta) - 1)/sigma is infinite when its sigma
    # range reaches 0; the box used to be dropped, piece 2 now bounds A to [(n_j + 1)/2, n_i] (fixed)
    pytest.param(100.0, 0.05, [20, 120, 150], id="two-on-piece-2-small-sigma"),
    # s4 = 2 (n_j t_j - n_i t_i)/(n_j - n_i) comes out as 1e-15 for sigma = 0, and eq. 32's
    # multiplicative widening [0.75, 1.25] x 1e-15 used to exclude 0 (fixed)
    pytest.param(1344.512755476551, 0.0, [1, 37, 321], id="sigma-zero-rounding"),
])
def test_paper_envelope_contains_the_truth_for_special_low_variance_layouts(A, sigma, n):
    n = np.array(n, float)
    t = downey.runtime(n, A, sigma)
    assert fit_envelope(n, t, 0.25 if sigma == 0 else 0.05, "paper").contains(A, sigma)


# --- fit-mode (scale-free) envelope -------------------------------------------------------------------
def _ratio_ok(env, A, sigma):
    x = relative_model(env.n, env.t, A, sigma)
    return x.max(axis=-1) / x.min(axis=-1) <= (1 + env.delta) / (1 - env.delta)


@settings(max_examples=30, deadline=None)
@given(A=st.floats(5, 2000), sigma=st.floats(0, 12), n=layouts(), scale=st.floats(1e-3, 1e4),
       delta=st.floats(0.01, 0.3))
def test_fit_envelope_contains_the_truth_for_scaled_model_data(A, sigma, n, scale, delta):
    t = scale * downey.runtime(n, A, sigma)
    env = fit_envelope(n, t, delta, "fit")
    assert env.contains(A, sigma)
    # the search is confined to A_range x sigma_range: they must hold the truth as well
    assert env.A_range[0] <= A <= env.A_range[1]
    assert env.sigma_range[0] <= sigma <= env.sigma_range[1]


def test_fit_envelope_is_invariant_to_the_time_unit():
    n = np.array([2, 4, 8, 16, 32, 64.0])
    t = downey.runtime(n, 40, 0.7) * np.array([1.02, 0.98, 1.03, 0.99, 1.0, 1.01])
    a = fit_envelope(n, t, 0.05, "fit")
    b = fit_envelope(n, t * 1000, 0.05, "fit")
    c = fit_envelope(n, t / 3.7, 0.05, "fit")
    assert len(a.boxes) > 10
    for other in (b, c):
        assert other.boxes.shape == a.boxes.shape
        np.testing.assert_allclose(other.boxes[["A_min", "A_max", "sigma_min", "sigma_max"]].to_numpy(),
                                   a.boxes[["A_min", "A_max", "sigma_min", "sigma_max"]].to_numpy(), rtol=1e-9)
        np.testing.assert_allclose(other.A_range, a.A_range, rtol=1e-12)
        np.testing.assert_allclose(other.sigma_range, a.sigma_range, rtol=1e-9)


def test_paper_envelope_changes_with_the_time_unit():
    # the unit pitfall (docs/decisions/adept.md): paper mode reads runtimes as model units
    n = np.array([2, 4, 8, 16, 32, 64.0])
    t = downey.runtime(n, 40, 0.7)
    a = fit_envelope(n, t, 0.05, "paper")
    b = fit_envelope(n, t * 1000, 0.05, "paper")
    assert a.contains(40, 0.7) and not b.contains(40, 0.7)


def test_fit_envelope_equals_its_definition_on_random_points():
    # units="fit": the envelope is {(A, sigma): max_i x_i / min_i x_i <= (1 + delta)/(1 - delta)},
    # x_i = T(n_i; A, sigma)/t_i.  The boxes are exact sigma intervals on a geometric A grid
    # (1200 columns from 1 to max(3000, 20 n_max)); check random sigmas on the grid columns
    # against the definition, and Envelope.contains on arbitrary points.
    rng = np.random.default_rng(7)
    n = np.array([4, 8, 16, 32, 64, 128.0])
    t = 9.0 * downey.runtime(n, 60, 1.8) * rng.uniform(0.97, 1.03, n.size)
    env = fit_envelope(n, t, 0.08, "fit")
    A_grid = np.geomspace(1.0, 3000.0, 1200)
    cols = rng.choice(A_grid, 400)
    sig = np.concatenate([rng.uniform(0, 3, 200), rng.uniform(0, 40, 200)])
    b = env.boxes
    in_box = ((np.isclose(cols[:, None], b["A_min"].to_numpy(), rtol=1e-12))
              & (sig[:, None] >= b["sigma_min"].to_numpy()) & (sig[:, None] <= b["sigma_max"].to_numpy())).any(axis=1)
    x = relative_model(n, t, cols, sig)
    ratio = x.max(axis=1) / x.min(axis=1)
    limit = (1.08) / (0.92)
    clear = np.abs(ratio / limit - 1) > 1e-9  # leave out points on the boundary itself
    assert in_box.any() and (~in_box).any()
    np.testing.assert_array_equal(in_box[clear], (ratio <= limit)[clear])
    # contains() is the definition itself, also off the grid columns
    A_any = rng.uniform(1, 300, 500)
    s_any = rng.uniform(0, 10, 500)
    np.testing.assert_array_equal(env.contains(A_any, s_any), _ratio_ok(env, A_any, s_any))
    # and every box column lies inside the envelope's bounding ranges
    assert (b["A_min"] >= env.A_range[0]).all() and (b["A_max"] <= env.A_range[1]).all()


def test_envelope_bands_bracket_the_observations_in_speedup_space():
    n = np.array([2, 4, 8, 16, 32, 64.0])
    t = downey.runtime(n, 40, 0.7)
    for units, data in (("paper", t), ("fit", 123.0 * t)):
        env = fit_envelope(n, data, 0.05, units)
        lo, hi = env.speedup_band(n)
        S = downey.speedup(n, 40, 0.7)
        assert np.all(lo <= S * (1 + 1e-9)) and np.all(S <= hi * (1 + 1e-9))
