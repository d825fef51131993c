"""Tests for workbench.metrics (thesis section 3.7: E and PA)."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from workbench.errors import ValidationError
from workbench.evaluation import (
    error_pct,
    mape,
    mpe,
    prediction_accuracy,
    r2,
    rmse,
    share_within,
    spearman,
    summarize,
)

PRED = [110.0, 45.0, 30.0, 8.0]
ACTUAL = [100.0, 50.0, 20.0, 10.0]
# per point: E = 10, 10, 50, 20 (%); signed: +10, -10, +50, -20 (%)


def test_error_pct_and_pa_by_hand():
    np.testing.assert_allclose(error_pct(PRED, ACTUAL), [10, 10, 50, 20])
    np.testing.assert_allclose(prediction_accuracy(PRED, ACTUAL), [90, 90, 50, 80])
    # a scalar pair gives a float; a prediction off by more than 100 % has negative PA
    assert error_pct(3.0, 1.0) == pytest.approx(200.0)
    assert isinstance(error_pct(3.0, 1.0), float)
    assert prediction_accuracy(3.0, 1.0) == pytest.approx(-100.0)


def test_aggregate_metrics_by_hand():
    assert mape(PRED, ACTUAL) == pytest.approx((10 + 10 + 50 + 20) / 4)  # 22.5
    assert mpe(PRED, ACTUAL) == pytest.approx((10 - 10 + 50 - 20) / 4)  # 7.5
    # squared errors 100, 25, 100, 4 -> mean 57.25
    assert rmse(PRED, ACTUAL) == pytest.approx(math.sqrt(57.25))
    # mean(actual) = 45; SS_tot = 55^2 + 5^2 + 25^2 + 35^2 = 4900; SS_res = 229
    assert r2(PRED, ACTUAL) == pytest.approx(1 - 229 / 4900)
    # same order of both -> rank correlation 1; within 30 %: 3 of 4; within 10 %: 2 of 4
    assert spearman(PRED, ACTUAL) == pytest.approx(1.0)
    assert share_within(PRED, ACTUAL) == pytest.approx(0.75)
    assert share_within(PRED, ACTUAL, pct=10) == pytest.approx(0.5)
    assert share_within(PRED, ACTUAL, pct=9.99) == 0.0


def test_share_within_bound_is_inclusive_despite_rounding():
    # |1.3 - 1| / 1 * 100 evaluates to 30.000000000000004 in floating point
    assert share_within([1.3, 0.7], [1.0, 1.0], pct=30) == 1.0


def test_spearman_ties_are_averaged():
    # ranks pred: 1, 2.5, 2.5, 4; actual: 1, 2, 3, 4 -> Pearson of the ranks
    ra, rb = np.array([1, 2.5, 2.5, 4]), np.array([1, 2, 3, 4])
    expected = np.corrcoef(ra, rb)[0, 1]
    assert spearman([1, 2, 2, 5], [10, 20, 30, 40]) == pytest.approx(expected)
    assert spearman([4, 3, 2, 1], [1, 2, 3, 4]) == pytest.approx(-1.0)
    assert isinstance(spearman([1, 2], [3, 4]), float)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_cross_check_against_sklearn():
    rng = np.random.default_rng(1)
    actual = rng.uniform(1, 100, 50)
    pred = actual * rng.uniform(0.5, 1.5, 50)
    assert rmse(pred, actual) == pytest.approx(np.sqrt(skm.mean_squared_error(actual, pred)))
    assert mape(pred, actual) == pytest.approx(100 * skm.mean_absolute_percentage_error(actual, pred))
    assert r2(pred, actual) == pytest.approx(skm.r2_score(actual, pred))
    # sklearn's force_finite convention for a constant target
    assert r2([2.0, 2.0], [2.0, 2.0]) == skm.r2_score([2.0, 2.0], [2.0, 2.0]) == 1.0
    assert r2([1.0, 3.0], [2.0, 2.0]) == skm.r2_score([2.0, 2.0], [1.0, 3.0]) == 0.0


def test_accepts_pandas_and_summarize_is_a_table_row():
    s = summarize(pd.Series(PRED), pd.Series(ACTUAL))
    assert s == pytest.approx(
        {
            "n_points": 4,
            "rmse": math.sqrt(57.25),
            "mpe": 7.5,
            "mape": 22.5,
            "max_error_pct": 50.0,
            "mean_pa": 77.5,
            "min_pa": 50.0,
            "r2": 1 - 229 / 4900,
            "spearman": 1.0,
            "share_within_30": 0.75,
        }
    )
    table = pd.DataFrame([summarize(PRED, ACTUAL), summarize(ACTUAL, ACTUAL)])
    assert list(table["mape"]) == pytest.approx([22.5, 0.0])
    one = summarize([2.0], [1.0])
    assert one["mape"] == 100.0 and math.isnan(one["r2"]) and math.isnan(one["spearman"])


@pytest.mark.parametrize(
    ("func", "pred", "actual", "match"),
    [
        (mape, [1, 2], [1, 2, 3], r"same length, got 2 and 3"),
        (rmse, [], [], r"at least 1 points, got 0"),
        (r2, [1.0], [1.0], r"r2: needs at least 2 points, got 1"),
        (spearman, [1.0], [1.0], r"spearman: needs at least 2 points"),
        (error_pct, [1, 2], [1, 0], r"actual must be > 0 .* actual\[1\] = 0"),
        (mpe, [1, 2], [-1, 2], r"actual\[0\] = -1"),
        (rmse, [1, np.nan], [1, 2], r"pred must be finite, got pred\[1\] = nan"),
        (r2, [1, 2], [1, np.inf], r"actual must be finite, got actual\[1\] = inf"),
        (mape, [[1, 2]], [[1, 2]], r"one-dimensional"),
        (mape, ["a"], [1], r"pred must be numeric"),
    ],
)
def test_invalid_input_raises_specific_validation_error(func, pred, actual, match):
    with pytest.raises(ValidationError, match=match):
        func(pred, actual)


def test_share_within_rejects_bad_pct():
    with pytest.raises(ValidationError, match="pct must be finite and >= 0"):
        share_within([1], [1], pct=-5)


def test_rmse_and_r2_do_not_need_positive_actuals():
    assert rmse([0.0, -1.0], [0.0, 1.0]) == pytest.approx(math.sqrt(2))
    assert r2([0.0, -1.0], [0.0, -1.0]) == 1.0


positive = st.floats(1e-3, 1e6)
pairs = st.integers(2, 20).flatmap(
    lambda k: st.tuples(st.lists(positive, min_size=k, max_size=k), st.lists(positive, min_size=k, max_size=k))
)


@settings(max_examples=60, deadline=None)
@given(pairs)
def test_pa_plus_e_is_100(pa):
    pred, actual = pa
    np.testing.assert_allclose(prediction_accuracy(pred, actual) + error_pct(pred, actual), 100.0)
    assert mape(pred, actual) >= abs(mpe(pred, actual)) - 1e-9


@settings(max_examples=60, deadline=None)
@given(pairs, st.floats(1e-3, 1e3))
def test_relative_metrics_are_scale_invariant(pa, c):
    pred, actual = np.array(pa[0]), np.array(pa[1])
    np.testing.assert_allclose(error_pct(c * pred, c * actual), error_pct(pred, actual), rtol=1e-9, atol=1e-9)
    assert mpe(c * pred, c * actual) == pytest.approx(mpe(pred, actual), rel=1e-9, abs=1e-9)
    assert mape(c * pred, c * actual) == pytest.approx(mape(pred, actual), rel=1e-9, abs=1e-9)
    assert spearman(c * pred, c * actual) == pytest.approx(spearman(pred, actual), nan_ok=True)
    assert rmse(c * pred, c * actual) == pytest.approx(c * rmse(pred, actual), rel=1e-9)
    # scaling may move an E sitting exactly on the 30 % bound by one rounding step
    e = error_pct(pred, actual)
    if np.all(np.abs(e - 30) > 1e-6):
        assert share_within(c * pred, c * actual) == share_within(pred, actual)


@settings(max_examples=60, deadline=None)
@given(pairs)
def test_r2_matches_sklearn_and_perfect_prediction_scores_one(pa):
    pred, actual = pa
    assert r2(actual, actual) == 1.0
    expected = skm.r2_score(actual, pred)
    assert r2(pred, actual) == pytest.approx(expected, rel=1e-9, abs=1e-9)
