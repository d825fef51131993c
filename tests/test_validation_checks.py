"""The canonical checks of :mod:`workbench.validation` and the public methods the scaling models compose with.

The scaling wrappers use ``predict_raw`` (no range check) and ``fit_for_prediction`` instead of
the wrapped models' private members; these tests pin what those public methods return.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from workbench.errors import NotFittedError, ValidationError
from workbench.models.baselines import AmdahlModel, DowneyLM, USLModel
from workbench.models.pmnf import PMNF
from workbench.models.scaling import MODELS
from workbench.models.scaling.base import (
    AmdahlScaling,
    DowneyLMScaling,
    PMNFScaling,
    USLScaling,
    check_model_names,
)
from workbench.validation import (
    FittedState,
    check_fitted,
    check_level,
    check_names,
    check_runs,
    check_targets,
    require_allocations,
    sample_weights,
)

N = np.array([1.0, 2, 4, 8, 16])


# ------------------------------------------------------------------------- the checks


def test_require_allocations_names_what_it_found():
    with pytest.raises(ValidationError, match=r"^f: needs runs at >= 3 distinct allocations \(processes, nodes or "
                                              r"GPUs\), got 2 \(2, 4\)$"):
        require_allocations(np.array([4.0, 2, 4]), 3, "f")
    with pytest.raises(ValidationError, match=r"^f: needs observations at >= 2 distinct n, got 1 \(all "
                                              r"observations at n = 4\)$"):
        require_allocations(np.array([4.0, 4]), 2, "f", "n", "observations")
    with pytest.raises(ValidationError, match=r"got 0$"):
        require_allocations(np.array([]), 1, "f")
    np.testing.assert_array_equal(require_allocations(np.array([8.0, 1, 8, 2]), 3, "f"), [1, 2, 8])


def test_check_runs_and_targets():
    n, t = check_runs([[1], [2], [4]], [3, 2, 1], 3, "f")  # a scikit-learn column is accepted
    np.testing.assert_array_equal(n, [1, 2, 4])
    assert t.dtype == float
    with pytest.raises(ValidationError, match=r"f: t must be finite and > 0 \(runtimes\), got t\[1\] = -2.0"):
        check_runs([1, 2, 4], [3, -2, 1], 3, "f")
    np.testing.assert_array_equal(check_targets(8, "f"), [8.0])
    np.testing.assert_array_equal(check_targets([[1, 2], [4, 8]], "f"), [1, 2, 4, 8])
    with pytest.raises(ValidationError, match=r"f: n must be finite and >= 1 .*, got n\[1\] = 0.5"):
        check_targets([2, 0.5], "f")


def test_sample_weights():
    t = np.ones(3)
    np.testing.assert_array_equal(sample_weights(None, t, "f"), [1, 1, 1])
    with pytest.raises(ValidationError, match="same length as t, got 2 and 3"):
        sample_weights([1, 2], t, "f")
    with pytest.raises(ValidationError, match=r"sample_weight\[2\] = -1.0"):
        sample_weights([1, 2, -1], t, "f")


def test_check_level_and_names():
    assert check_level(0.8) == 0.8 and check_level("0.5") == 0.5
    with pytest.raises(ValidationError, match=r"^interval level must be in \(0, 0.99\]"):
        check_level(1)
    with pytest.raises(ValidationError, match=r"^g: interval level must be a number"):
        check_level("x", "g")
    assert check_names("a, b", {"a": 1, "b": 2}, "f") == ("a", "b")
    assert check_names(None, {"a": 1, "b": 2}, "f") == ("a", "b")
    with pytest.raises(ValidationError, match=r"^f: unknown reader\(s\) \['c'\]; choose from a, b$"):
        check_names(["a", "c"], {"a": 1, "b": 2}, "f", "reader")
    assert check_model_names("adept,pmnf", "f") == ("adept", "pmnf")
    with pytest.raises(ValidationError, match=r"unknown model\(s\) \(none given\)"):
        check_model_names([], "f")


def test_fitted_state_convention():
    class Model(FittedState, BaseEstimator):
        fitted_attribute = "coef_"

        def fit(self, x):
            self.coef_ = 1.0
            return self

    model = Model()
    with pytest.raises(NotFittedError, match=r"^Model.predict: this Model is not fitted yet; call fit\(x\) first$"):
        check_fitted(model, where="Model.predict", fit="fit(x)")
    assert not model.__sklearn_is_fitted__()
    model.fit(0)
    check_fitted(model)
    check_is_fitted(model)  # scikit-learn reads the same convention
    for cls in (PMNF, AmdahlModel, USLModel, *MODELS.values()):
        assert issubclass(cls, FittedState) and cls.fitted_attribute.endswith("_"), cls


# ------------------------------------------------------------- the public composition


def test_pmnf_predict_raw_refuses_where_the_cost_is_not_positive():
    # superlinear runs: the cost t n falls with n, fitted as 9.92 - 0.9 log2(n), zero past n = 2^11
    t = np.array([10, 4.5, 2.0, 0.9, 0.4])
    model = PMNF().fit(N, t)
    assert model.hypothesis_.formula == "c0 + c1 * log2(n)" and model.may_clip_
    far = np.array([2.0, 1e6])
    raw = model.predict_raw(far)
    assert np.isnan(raw[1]) and raw[0] == pytest.approx((9.92 - 0.9) / 2)
    with pytest.warns(Warning, match="floor_"):
        assert model.predict(far)[1] == model.floor_  # predict clips to the floor instead
    assert raw[0] == model.predict(far[:1])[0]
    scaling = PMNFScaling().fit(N, t)
    assert np.isnan(scaling.predict(far)[1]) and scaling.predict(far)[0] == raw[0]


def test_baseline_predict_raw_is_predict_without_the_range_check():
    model = USLModel().fit(N, np.array([10.0, 6, 4, 4.5, 6]))
    assert model.beta_ > 0
    np.testing.assert_array_equal(model.predict_raw(N), model.predict(N))
    assert model.predict_raw([1e300])[0] == np.inf
    with pytest.raises(ValidationError, match=r"USLModel.predict: n must be an allocation whose predicted runtime is "
                                              r"finite"):
        model.predict([1e300])
    with pytest.raises(NotFittedError):
        AmdahlModel().predict_raw([2])


def test_scaling_model_fit_for_prediction_and_predict_raw():
    t = 100 * (0.05 + 0.95 / N)
    full = USLScaling().fit(N, t)
    light = USLScaling().fit_for_prediction(N, t)
    assert not hasattr(light, "warnings_") and not hasattr(light, "fit_error_")
    targets = np.array([32.0, 64.0])
    np.testing.assert_array_equal(light.predict(targets), full.predict(targets))
    np.testing.assert_array_equal(full.predict_raw(targets), full.predict(targets))
    slow = USLScaling().fit(N, np.array([10.0, 6, 4, 4.5, 6]))
    assert slow.predict_raw([1e300])[0] in (0.0, np.inf)  # beyond the float range: reported, not raised
    with pytest.raises(ValidationError, match=r"USLScaling.predict: n must be an allocation"):
        slow.predict([1e300])
    with pytest.raises(NotFittedError, match="USLScaling is not fitted yet"):
        USLScaling().predict_raw([2])


@pytest.mark.parametrize("t", [100 * (0.05 + 0.95 / N), np.array([10.0, 6, 4, 4.5, 6]),
                               np.array([9.0, 5, 2.6, 1.5, 1])])
def test_wrappers_predict_exactly_what_the_wrapped_model_predicts(t):
    # the public route (predict_raw) gives the wrapped models' own predictions, bit for bit
    targets = np.array([1.0, 3, 16, 64, 1024])
    for wrapper, model in ((AmdahlScaling(), AmdahlModel()), (USLScaling(), USLModel()),
                           (DowneyLMScaling(), DowneyLM()), (PMNFScaling(), PMNF())):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine, theirs = wrapper.fit(N, t).predict(targets), model.fit(N, t).predict(targets)
        np.testing.assert_array_equal(mine, theirs, err_msg=type(wrapper).__name__)
