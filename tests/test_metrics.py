"""Tests for workbench.metrics (thesis section 3.7: E and PA).

Every metric takes ``(y_true, y_pred)``, scikit-learn's order: the hand cases below put the
measured values first, and the asymmetric ones would fail if a metric read its arguments
the other way round.
"""

import inspect
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from workbench import evaluation, metrics
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
    np.testing.assert_allclose(error_pct(ACTUAL, PRED), [10, 10, 50, 20])
    np.testing.assert_allclose(prediction_accuracy(ACTUAL, PRED), [90, 90, 50, 80])
    # a scalar pair gives a float; a prediction off by more than 100 % has negative PA
    assert error_pct(1.0, 3.0) == pytest.approx(200.0)
    assert isinstance(error_pct(1.0, 3.0), float)
    assert prediction_accuracy(1.0, 3.0) == pytest.approx(-100.0)


def test_aggregate_metrics_by_hand():
    assert mape(ACTUAL, PRED) == pytest.approx((10 + 10 + 50 + 20) / 4)  # 22.5
    assert mpe(ACTUAL, PRED) == pytest.approx((10 - 10 + 50 - 20) / 4)  # 7.5
    # squared errors 100, 25, 100, 4 -> mean 57.25
    assert rmse(ACTUAL, PRED) == pytest.approx(math.sqrt(57.25))
    # mean(actual) = 45; SS_tot = 55^2 + 5^2 + 25^2 + 35^2 = 4900; SS_res = 229
    assert r2(ACTUAL, PRED) == pytest.approx(1 - 229 / 4900)
    # same order of both -> rank correlation 1; within 30 %: 3 of 4; within 10 %: 2 of 4
    assert spearman(ACTUAL, PRED) == pytest.approx(1.0)
    assert share_within(ACTUAL, PRED) == pytest.approx(0.75)
    assert share_within(ACTUAL, PRED, pct=10) == pytest.approx(0.5)
    assert share_within(ACTUAL, PRED, pct=9.99) == 0.0


def test_share_within_bound_is_inclusive_despite_rounding():
    # |1.3 - 1| / 1 * 100 evaluates to 30.000000000000004 in floating point
    assert share_within([1.0, 1.0], [1.3, 0.7], pct=30) == 1.0


def test_spearman_ties_are_averaged():
    # ranks pred: 1, 2.5, 2.5, 4; actual: 1, 2, 3, 4 -> Pearson of the ranks
    ra, rb = np.array([1, 2.5, 2.5, 4]), np.array([1, 2, 3, 4])
    expected = np.corrcoef(ra, rb)[0, 1]
    assert spearman([10, 20, 30, 40], [1, 2, 2, 5]) == pytest.approx(expected)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert isinstance(spearman([3, 4], [1, 2]), float)
    assert math.isnan(spearman([1, 2, 3], [1, 1, 1]))


def test_cross_check_against_sklearn():
    rng = np.random.default_rng(1)
    actual = rng.uniform(1, 100, 50)
    pred = actual * rng.uniform(0.5, 1.5, 50)
    assert rmse(actual, pred) == pytest.approx(np.sqrt(skm.mean_squared_error(actual, pred)))
    assert mape(actual, pred) == pytest.approx(100 * skm.mean_absolute_percentage_error(actual, pred))
    assert r2(actual, pred) == pytest.approx(skm.r2_score(actual, pred))
    # sklearn's force_finite convention for a constant target
    assert r2([2.0, 2.0], [2.0, 2.0]) == skm.r2_score([2.0, 2.0], [2.0, 2.0]) == 1.0
    assert r2([2.0, 2.0], [1.0, 3.0]) == skm.r2_score([2.0, 2.0], [1.0, 3.0]) == 0.0


def test_accepts_pandas_and_summarize_is_a_table_row():
    s = summarize(pd.Series(ACTUAL), pd.Series(PRED))
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
    table = pd.DataFrame([summarize(ACTUAL, PRED), summarize(ACTUAL, ACTUAL)])
    assert list(table["mape"]) == pytest.approx([22.5, 0.0])
    one = summarize([1.0], [2.0])
    assert one["mape"] == 100.0 and math.isnan(one["r2"]) and math.isnan(one["spearman"])


@pytest.mark.parametrize(
    ("func", "y_true", "y_pred", "match"),
    [
        (mape, [1, 2, 3], [1, 2], r"y_true and y_pred must have the same length, got 3 and 2"),
        (rmse, [], [], r"at least 1 points, got 0"),
        (r2, [1.0], [1.0], r"r2: needs at least 2 points, got 1"),
        (spearman, [1.0], [1.0], r"spearman: needs at least 2 points"),
        (error_pct, [1, 0], [1, 2], r"y_true \(the measured values\) must be > 0 .* y_true\[1\] = 0"),
        (mpe, [-1, 2], [1, 2], r"y_true\[0\] = -1"),
        (rmse, [1, 2], [1, np.nan], r"y_pred must be finite, got y_pred\[1\] = nan"),
        (r2, [1, np.inf], [1, 2], r"y_true must be finite, got y_true\[1\] = inf"),
        (mape, [[1, 2]], [[1, 2]], r"one-dimensional"),
        (mape, [1], ["a"], r"y_pred must be numeric"),
    ],
)
def test_invalid_input_raises_specific_validation_error(func, y_true, y_pred, match):
    with pytest.raises(ValidationError, match=match):
        func(y_true, y_pred)


def test_share_within_rejects_bad_pct():
    with pytest.raises(ValidationError, match="pct must be finite and >= 0"):
        share_within([1], [1], pct=-5)


def test_rmse_and_r2_do_not_need_positive_actuals():
    assert rmse([0.0, 1.0], [0.0, -1.0]) == pytest.approx(math.sqrt(2))
    assert r2([0.0, -1.0], [0.0, -1.0]) == 1.0


positive = st.floats(1e-3, 1e6)
pairs = st.integers(2, 20).flatmap(
    lambda k: st.tuples(st.lists(positive, min_size=k, max_size=k), st.lists(positive, min_size=k, max_size=k))
)


@settings(max_examples=60, deadline=None)
@given(pairs)
def test_pa_plus_e_is_100(pa):
    pred, actual = pa
    np.testing.assert_allclose(prediction_accuracy(actual, pred) + error_pct(actual, pred), 100.0)
    assert mape(actual, pred) >= abs(mpe(actual, pred)) - 1e-9


@settings(max_examples=60, deadline=None)
@given(pairs, st.floats(1e-3, 1e3))
def test_relative_metrics_are_scale_invariant(pa, c):
    pred, actual = np.array(pa[0]), np.array(pa[1])
    np.testing.assert_allclose(error_pct(c * actual, c * pred), error_pct(actual, pred), rtol=1e-9, atol=1e-9)
    assert mpe(c * actual, c * pred) == pytest.approx(mpe(actual, pred), rel=1e-9, abs=1e-9)
    assert mape(c * actual, c * pred) == pytest.approx(mape(actual, pred), rel=1e-9, abs=1e-9)
    assert spearman(c * actual, c * pred) == pytest.approx(spearman(actual, pred), nan_ok=True)
    assert rmse(c * actual, c * pred) == pytest.approx(c * rmse(actual, pred), rel=1e-9)
    # scaling may move an E sitting exactly on the 30 % bound by one rounding step
    e = error_pct(actual, pred)
    if np.all(np.abs(e - 30) > 1e-6):
        assert share_within(c * actual, c * pred) == share_within(actual, pred)


@settings(max_examples=60, deadline=None)
@given(pairs)
def test_r2_matches_sklearn_and_perfect_prediction_scores_one(pa):
    pred, actual = pa
    assert r2(actual, actual) == 1.0
    expected = skm.r2_score(actual, pred)
    assert r2(actual, pred) == pytest.approx(expected, rel=1e-9, abs=1e-9)


# ----------------------------------------------------------------------------- argument order

# Measured first, as scikit-learn: y_true = 1, 2, 4 measured, y_pred = 2, 3, 3 predicted.
# Each value below is worked by hand in both orders; the swapped one differs, so a metric
# (or a call) that reads the arguments the other way round fails here.
Y_TRUE = [1.0, 2.0, 4.0]
Y_PRED = [2.0, 3.0, 3.0]
# E = |y_pred - y_true| / y_true: 1/1, 1/2, 1/4 -> 100, 50, 25 %; signed +100, +50, -25 %.
# Swapped (dividing by 2, 3, 3): 50, 33.3, 33.3 %; signed -50, -33.3, +33.3 %.
# R^2: mean(y_true) = 7/3, SS_tot = (16 + 1 + 25) / 9 = 14/3, SS_res = 1 + 1 + 1 = 3
#      -> 1 - 9/14 = 5/14.  Swapped: mean 8/3, SS_tot = (4 + 1 + 1) / 9 = 2/3 -> 1 - 9/2 = -7/2.
ASYMMETRIC_BY_HAND = [
    # (metric, keyword arguments, value for (Y_TRUE, Y_PRED), value for the swapped call)
    (error_pct, {}, [100.0, 50.0, 25.0], [50.0, 100 / 3, 100 / 3]),
    (prediction_accuracy, {}, [0.0, 50.0, 75.0], [50.0, 200 / 3, 200 / 3]),
    (mape, {}, 175 / 3, 350 / 9),
    (mpe, {}, 125 / 3, -50 / 3),
    (r2, {}, 5 / 14, -7 / 2),
    (share_within, {}, 1 / 3, 0.0),
    (share_within, {"pct": 50}, 2 / 3, 1.0),
]


@pytest.mark.parametrize(("func", "kwargs", "expected", "swapped"), ASYMMETRIC_BY_HAND)
def test_asymmetric_metrics_by_hand_in_sklearn_order(func, kwargs, expected, swapped):
    np.testing.assert_allclose(func(Y_TRUE, Y_PRED, **kwargs), expected, rtol=1e-12)
    np.testing.assert_allclose(func(y_true=Y_TRUE, y_pred=Y_PRED, **kwargs), expected, rtol=1e-12)
    np.testing.assert_allclose(func(Y_PRED, Y_TRUE, **kwargs), swapped, rtol=1e-12)
    assert not np.allclose(expected, swapped)  # the case really tells the two orders apart


def test_summarize_by_hand_in_sklearn_order():
    s = summarize(Y_TRUE, Y_PRED)
    assert s == pytest.approx({
        "n_points": 3, "rmse": 1.0, "mpe": 125 / 3, "mape": 175 / 3, "max_error_pct": 100.0,
        "mean_pa": 100 - 175 / 3, "min_pa": 0.0, "r2": 5 / 14, "spearman": np.corrcoef([1, 2, 3], [1, 2.5, 2.5])[0, 1],
        "share_within_30": 1 / 3,
    })
    swapped = summarize(Y_PRED, Y_TRUE)
    assert swapped["mape"] == pytest.approx(350 / 9) and swapped["mpe"] == pytest.approx(-50 / 3)
    assert swapped["r2"] == pytest.approx(-7 / 2) and swapped["max_error_pct"] == pytest.approx(50.0)


def test_symmetric_metrics_by_hand():
    # RMSE and Spearman's rho do not depend on the order: errors 1, 1, 1; ranks 1 2 3 vs 1 2.5 2.5
    for y_true, y_pred in ((Y_TRUE, Y_PRED), (Y_PRED, Y_TRUE)):
        assert rmse(y_true, y_pred) == pytest.approx(1.0)
        assert spearman(y_true, y_pred) == pytest.approx(math.sqrt(3) / 2)


def test_same_numbers_as_sklearn_with_the_same_arguments():
    rng = np.random.default_rng(2)
    y_true = rng.uniform(1, 100, 40)
    y_pred = y_true * rng.uniform(0.3, 2.0, 40)
    for yt, yp in ((Y_TRUE, Y_PRED), (y_true, y_pred)):
        assert r2(yt, yp) == pytest.approx(skm.r2_score(yt, yp), rel=1e-12)
        assert mape(yt, yp) == pytest.approx(100 * skm.mean_absolute_percentage_error(yt, yp), rel=1e-12)
        assert rmse(yt, yp) == pytest.approx(skm.root_mean_squared_error(yt, yp), rel=1e-12)
        # and sklearn itself tells the orders apart on these inputs
        assert skm.r2_score(yt, yp) != pytest.approx(skm.r2_score(yp, yt))
        assert skm.mean_absolute_percentage_error(yt, yp) != pytest.approx(skm.mean_absolute_percentage_error(yp, yt))


def test_every_metric_takes_y_true_then_y_pred():
    for name in metrics.__all__:
        func = getattr(metrics, name)
        assert list(inspect.signature(func).parameters)[:2] == ["y_true", "y_pred"], name
        assert getattr(evaluation, name) is func  # the re-exports are the same functions
    # the old keyword names are gone: a call written for the old order fails loudly
    with pytest.raises(TypeError):
        mape(pred=Y_PRED, actual=Y_TRUE)
