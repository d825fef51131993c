"""ADEPT's fitted state (issue 26): fit computes it, predict and explain only read it."""

import dataclasses
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest

from workbench.errors import ModelWarning
from workbench.models import downey
from workbench.models.adept import Adept
from workbench.models.adept.fitting import TargetSearch, fit_targets
from workbench.models.adept.results import TargetFits

ROOT = Path(__file__).resolve().parents[1]
N = np.array([2, 4, 8, 16, 32.0])
# a 4 % bump at n = 8: distinct fits per target, with warnings
T = 7 * downey.runtime(N, 40.0, 1.5) * np.array([1.0, 1.0, 1.04, 1.0, 1.0])


def _state(model):
    return joblib.hash({k: v for k, v in vars(model).items() if k != "search_"})


@pytest.fixture(scope="module")
def fitted():
    return Adept(targets=[64.0, 128.0]).fit(N, T)


def test_fit_sets_every_fitted_attribute_as_a_plain_attribute(fitted):
    for name in ("observations_", "delta_", "envelope_", "anomalies_", "ratio_", "n_max_fit_", "search_",
                 "target_fits_", "fits_", "fit_warnings_", "warnings_"):
        assert name in vars(fitted), name
    assert not isinstance(getattr(Adept, "warnings_", None), property)
    assert not isinstance(getattr(Adept, "fits_", None), property)
    assert list(fitted.fits_["target"]) == [64.0, 128.0]
    assert isinstance(fitted.search_, TargetSearch) and dataclasses.is_dataclass(fitted.search_)
    assert type(fitted.target_fits_).__dataclass_params__.frozen
    assert all(isinstance(w, ModelWarning) for w in fitted.warnings_)
    assert fitted.warnings_[:len(fitted.fit_warnings_)] == fitted.fit_warnings_


def test_predicting_fitted_targets_reads_the_fits_bit_for_bit(fitted):
    got = fitted.explain([128.0, 64.0, 128.0])
    want = fitted.fits_.set_index("target").loc[[128.0, 64.0, 128.0]].reset_index()
    pd.testing.assert_frame_equal(got[want.columns], want, check_exact=True)


@pytest.mark.parametrize("targets", [None, [64.0, 128.0]])
def test_predicting_other_targets_changes_nothing_and_repeats_exactly(targets):
    model = Adept(targets=targets).fit(N, T)
    before, memo = _state(model), dict(model.search_.cache)
    first = model.predict([48.0, 100.0, 1000.0])
    model.predict([3.0, 5000.0])
    model.warnings_for([777.0])
    assert _state(model) == before
    assert model.search_.cache.keys() == memo.keys()
    np.testing.assert_array_equal(model.predict([48.0, 100.0, 1000.0]), first)


def test_default_targets_answer_a_request_independently_of_earlier_requests():
    a = Adept().fit(N, T)
    b = Adept().fit(N, T)
    a.predict([64.0, 4096.0])  # asked before: does not change what comes next
    pd.testing.assert_frame_equal(a.explain([128.0, 256.0]), b.explain([128.0, 256.0]), check_exact=True)
    # the default targets summarise the fit: fits_ and warnings_ exist without any request
    assert 64.0 in b.fits_["target"].to_numpy() and isinstance(b.warnings_, list)


def test_the_module_level_fit_of_targets_is_what_explain_gives():
    model = Adept().fit(N, T)
    own = fit_targets(model.search_, np.array([40.0, 80.0]), dict(model.search_.cache))
    assert isinstance(own, TargetFits)
    for col, v in model.explain_columns([40.0, 80.0]).items():
        np.testing.assert_array_equal(v, own.columns[col], err_msg=col)


def test_empty_requests_keep_the_columns(fitted):
    empty = fitted.explain([])
    assert list(empty.columns) == list(fitted.fits_.columns) and len(empty) == 0
    no_targets = Adept(targets=[]).fit(N, T)
    assert len(no_targets.fits_) == 0 and list(no_targets.fits_.columns) == list(fitted.fits_.columns)


def test_adept_package_has_no_long_file_or_function():
    sys.path.insert(0, str(ROOT / "tools"))
    from long_functions import long_functions

    package = ROOT / "workbench" / "models" / "adept"
    assert list(long_functions([package], 80)) == []
    assert {p.name: len(p.read_text().splitlines()) for p in package.glob("*.py")
            if len(p.read_text().splitlines()) > 800} == {}
