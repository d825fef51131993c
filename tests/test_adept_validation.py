"""Bad input gives a ValidationError with a specific message, never a raw exception."""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from workbench.errors import ValidationError, WorkbenchError
from workbench.models.adept import Adept

N = [2, 4, 8, 16]
T = [100.0, 55.0, 32.0, 20.0]
SMALL = dict(pass1_size=200, pass2_size=20)


@pytest.mark.parametrize("n, t, match", [
    ([2, 4, 4, 2], [10.0, 6, 6.2, 9.8], r"at least 3 different processor counts, got 2"),
    ([2, 4, 8], [10.0, 6], r"n has 3 values but t has 2"),
    ([2, 4, 8], [10.0, np.nan, 4], r"runtimes contain NaN or infinity at positions \[1\]"),
    ([2, 4, 8], [10.0, 6, np.inf], r"runtimes contain NaN or infinity at positions \[2\]"),
    ([2, np.nan, 8], [10.0, 6, 4], r"processor counts contain NaN or infinity at positions \[1\]"),
    ([2, 4, 8], [10.0, 0.0, 4], r"runtimes must be positive, got \[0\.0\]"),
    ([2, 4, 8], [10.0, -6, 4], r"runtimes must be positive, got \[-6\.0\]"),
    ([0.5, 4, 8], [10.0, 6, 4], r"processor counts must be >= 1, got \[0\.5\]"),
    ([[2, 4, 8]], [[10.0, 6, 4]], r"n \(processor counts\) must be one-dimensional, got shape \(1, 3\)"),
    ([2, 4, 8], [[10.0, 6, 4]], r"t \(runtimes\) must be one-dimensional"),
    (["two", "four", "eight"], [10.0, 6, 4], r"n \(processor counts\) must be numeric"),
    ([2, 4, 8], ["10 s", "6 s", "4 s"], r"t \(runtimes\) must be numeric"),
    ([], [], r"no observations given"),
])
def test_bad_observations(n, t, match):
    with pytest.raises(ValidationError, match=match):
        Adept(**SMALL).fit(n, t)


@pytest.mark.parametrize("params, match", [
    (dict(units="seconds"), r"units must be 'fit' or 'paper', got 'seconds'"),
    (dict(delta=0.0), r"delta must be in \(0, 1\), got 0\.0"),
    (dict(delta=1.0), r"delta must be in \(0, 1\), got 1\.0"),
    (dict(q=0.5), r"q must be >= 1"),
    (dict(epsilon=0.0), r"epsilon must be positive"),
    (dict(theta=-1.0), r"theta and gamma must be positive"),
])
def test_bad_parameters(params, match):
    with pytest.raises(ValidationError, match=match):
        Adept(**SMALL, **params).fit(N, T)


@pytest.mark.parametrize("call", ["predict", "predict_speedup", "explain", "warnings_for"])
def test_predict_before_fit(call):
    with pytest.raises(ValidationError, match=r"not fitted yet; call fit\(n, t\) first"):
        getattr(Adept(), call)([8])


@pytest.mark.parametrize("targets", [[0.5], [8, 0], [np.nan], [np.inf], [-4]])
def test_bad_prediction_targets(targets):
    m = Adept(**SMALL).fit(N, T)
    with pytest.raises(ValidationError, match=r"prediction targets must be finite processor counts >= 1"):
        m.predict(targets)


@pytest.mark.parametrize("n, t, base, match", [
    ([2, 4], [300.0, 170], ([2, 4, 8], [100.0, 55, 32]), r">= 4 processor counts on the base size, got 3"),
    ([2], [300.0], (N, T), r">= 2 processor counts on the target size, got 1"),
    ([3, 5], [300.0, 170], (N, T), r"share no processor count"),
    ([2, 4], [300.0, 170], (N,), r"base must be a pair \(n_base, t_base\)"),
    ([2, 4], [300.0, 170], (N, [100.0, 55, np.nan, 20]), r"base-size observations: runtimes contain NaN"),
])
def test_bad_cross_size_input(n, t, base, match):
    with pytest.raises(ValidationError, match=match):
        Adept(**SMALL).fit(n, t, base=base)


def test_validation_error_is_a_workbench_error():
    with pytest.raises(WorkbenchError):
        Adept(**SMALL).fit([1, 2], [3.0, 2.0])


# Found by the property test below: runtimes spanning many orders of magnitude leave the
# envelope empty for every delta (this used to end in an AttributeError on envelope_).
# (The original example, 1, 1e3, 1e6 s, grows with n and is now refused before the envelope.)
def test_unexplainable_data_give_a_validation_error():
    with pytest.raises(ValidationError, match=r"no Downey instance explains these observations"):
        Adept().fit([1, 2, 3], [1.0, 1e6, 1e3])


@pytest.mark.parametrize("t", [[1.0, 1e3, 1e6], [1.0, 2, 3, 4], [10.0, 10, 11], [10.0, 10.3, 10.6]])
def test_runtimes_growing_with_n_give_a_validation_error(t):
    # Downey's runtime never rises with n: such data used to give NaN predictions past n[-2]
    with pytest.raises(ValidationError, match=r"the runtimes grow with n .*no speedup for ADEPT to model"):
        Adept().fit([1, 2, 4, 8][:len(t)], t)


def test_a_rise_within_delta_is_the_ambiguous_last_point():
    # flat within noise (a 0.7 % rise, a real GPU curve of the corpus): the thesis' rule, warned
    model = Adept().fit([1, 2, 3], [0.093113, 0.093187, 0.093766])
    assert np.isnan(model.predict([4])[0]) and np.isfinite(model.predict([2])[0])
    assert "declining-or-anomalous-last-point" in {w.kind for w in model.warnings_}


def test_a_flat_curve_is_still_fitted():
    # constant runtimes are a speedup curve with A = 1 (no speedup), not a slowdown
    np.testing.assert_allclose(Adept().fit([1, 2, 4], [10.0, 10, 10]).predict([8]), [10.0], rtol=1e-6)


floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.lists(st.one_of(floats, st.integers(1, 64).map(float)), min_size=0, max_size=6),
       t=st.lists(st.one_of(floats, st.floats(1e-3, 1e4)), min_size=0, max_size=6))
@example(n=[1.0, 2.0, 3.0], t=[1.0, 1e3, 1e6])
def test_fit_on_arbitrary_floats_succeeds_or_raises_a_workbench_error(n, t):
    try:
        m = Adept(**SMALL).fit(n, t)
    except WorkbenchError:
        return
    p = m.predict([1.0, 7.0, 1e4])
    assert p.shape == (3,)
    assert np.all(np.isnan(p) | (p > 0))


def test_a_targets_fit_does_not_depend_on_the_other_targets():
    # all points in the linear section: pass 1 has exact ties, which used to be broken by the
    # rounding of the batched matrix product (A 12.4 alone vs 42.8 beside another target)
    n, t = np.array([1, 2, 3, 4.0]), np.array([303.8874, 151.7865, 99.2075, 75.5023])
    alone = Adept().fit(n, t).explain([96.0])
    for others in ([6.0, 96.0], [96.0, 97.0], [4.0, 96.0]):
        both = Adept().fit(n, t).explain(others).set_index("target").loc[[96.0]]
        np.testing.assert_allclose(both[["A", "sigma", "wssre", "prediction"]].to_numpy(),
                                   alone[["A", "sigma", "wssre", "prediction"]].to_numpy(), rtol=1e-12)


def test_predicting_no_target_gives_an_empty_array():
    m = Adept().fit([1, 2, 4], [10, 5.5, 3])
    assert m.predict([]).shape == (0,) and m.predict_speedup([]).shape == (0,)
