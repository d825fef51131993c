"""ADEPT's saturation rule: a fit may not predict "no further speedup" near the observed
range on the strength of a small deviation (``saturation="evidence"``), while
``saturation="thesis"`` keeps the thesis' behaviour.  The rule's thresholds were chosen on
the real scaling corpus: ``bench/adept_saturation.py``."""

import numpy as np
import pytest
from sklearn.base import clone

from workbench.errors import ValidationError
from workbench.models import downey
from workbench.models.adept import Adept

# a real strong-scaling curve: 16/32/64 nodes, then 278/149/92 s were measured at 128-512
N = np.array([16, 32, 64.0])
T = np.array([2054, 1027, 524.0])
FAR = np.array([128, 256, 512.0])
ACTUAL = np.array([278, 149, 92.0])


def _kinds(model):
    return [w.kind for w in model.warnings_]


def test_a_two_percent_deviation_no_longer_predicts_a_flat_runtime():
    m = Adept(targets=FAR).fit(N, T)
    p = m.predict(FAR)
    # every doubling still speeds the run up (the thesis fit predicted 521 s flat)
    assert np.all(p[1:] < 0.75 * p[:-1])
    np.testing.assert_allclose(p, ACTUAL, rtol=0.15)
    w = [w for w in m.warnings_ if w.kind == "saturation-undetermined"]
    assert len(w) == 1 and set(w[0].targets) == set(FAR)
    # where to measure next: past the data, where the two fits differ by more than twice the bound
    assert 64 < w[0].suggested_n <= 128
    f = m.fits_
    assert (f["saturation"] == "undetermined").all()
    # the replaced fit is the thesis' one; the one used cannot saturate within 3x n_max
    assert f["saturating_A"].between(62, 64).all()
    assert (downey.max_useful_allocation(f["A"], f["sigma"]) >= 3 * 64).all()
    assert (f["max_rel_error"] <= 0.10).all()


def test_thesis_mode_keeps_the_saturating_fit():
    m = Adept(targets=FAR, saturation="thesis").fit(N, T)
    f = m.fits_
    assert f["A"].between(62, 64).all() and (f["sigma"] < 0.05).all()
    np.testing.assert_allclose(m.predict(FAR), 521, rtol=0.01)
    assert not {"saturation-undetermined", "saturation-near-range"} & set(_kinds(m))
    assert (f["saturation"] == "").all() and f["saturating_A"].isna().all()


def test_nodes_in_units_of_16_give_the_same_answer():
    # Downey's model is not invariant to the unit of n, but here the difference was an
    # artefact of the linear pass-1 grid (steps of ~0.6 in A whatever the unit of n)
    a = Adept(targets=FAR).fit(N, T).predict(FAR)
    b = Adept(targets=FAR / 16).fit(N / 16, T).predict(FAR / 16)
    np.testing.assert_allclose(b, a, rtol=0.01)
    # the thesis fits now agree as well: both saturating (A scales with n)
    fa = Adept(targets=FAR, saturation="thesis").fit(N, T).fits_
    m16 = Adept(targets=FAR / 16).fit(N / 16, T)
    assert m16.fits_["saturating_A"].to_numpy() * 16 == pytest.approx(fa["A"].to_numpy(), rel=0.02)


@pytest.mark.parametrize("noise", [[1, 1, 1, 1], [1.02, 0.98, 1.02, 0.98], [0.98, 1.02, 0.98, 1.02],
                                   [1, 1, 1.03, 0.97]])
def test_data_that_really_saturate_keep_the_saturating_fit(noise):
    # A = 12, sigma = 0.5: flat from n = 23, inside the observed range; up to 3 % noise
    n = np.array([4, 8, 16, 32.0])
    t = 3 * downey.runtime(n, 12, 0.5) * np.array(noise)
    m = Adept(targets=FAR / 2).fit(n, t)
    f = m.fits_
    assert (f["saturation"] == "near-range").all()
    assert f["A"].between(11, 13).all()
    np.testing.assert_allclose(m.predict(FAR / 2), 3.0, rtol=0.03)  # the truth: flat
    w = [w for w in m.warnings_ if w.kind == "saturation-near-range"]
    assert len(w) == 1 and set(w[0].targets) == set(FAR / 2)
    assert "saturation-undetermined" not in _kinds(m)


def test_three_points_with_a_clear_flattening_keep_the_saturating_fit():
    n = np.array([8, 16, 32.0])
    m = Adept(targets=[64.0, 128.0]).fit(n, 3 * downey.runtime(n, 12, 0.5))
    assert (m.fits_["saturation"] == "near-range").all()
    np.testing.assert_allclose(m.predict([64, 128]), 3.0, rtol=0.01)
    # the flat part begins at n = 23, inside the data: no run is needed to confirm it
    assert [w.suggested_n for w in m.warnings_ if w.kind == "saturation-near-range"] == [None]


def test_exact_model_data_saturating_just_past_the_range_keep_their_fit():
    # 5 points, truth A = 60, sigma = 0.8 (flat from n = 119): a non-saturating instance is
    # within 10 % but fits significantly worse than the exact saturating one (F-test)
    n = np.array([4, 8, 16, 32, 64.0])
    m = Adept(targets=[128.0, 256.0]).fit(n, 10 * downey.runtime(n, 60, 0.8))
    assert (m.fits_["saturation"] == "near-range").all()
    np.testing.assert_allclose(m.predict([128, 256]), 10 * downey.runtime(np.array([128, 256.0]), 60, 0.8), rtol=0.01)
    [sug] = [w.suggested_n for w in m.warnings_ if w.kind == "saturation-near-range"]
    assert sug == pytest.approx(119, abs=1)  # confirm where the flat part begins
    # it is the F-test that keeps it: the bound alone would take the refit
    no_f_test = type("NoFTest", (Adept,), {"_SATURATION_F_LEVEL": 1.0})
    assert (no_f_test(targets=[128.0, 256.0]).fit(n, 10 * downey.runtime(n, 60, 0.8)).fits_["saturation"]
            == "undetermined").all()


def test_fits_far_from_saturation_are_left_alone():
    n = np.array([4, 8, 16, 32.0])
    t = 5 * downey.runtime(n, 2000, 2.0)
    a, b = (Adept(targets=FAR, saturation=s).fit(n, t) for s in ("evidence", "thesis"))
    assert (a.fits_["saturation"] == "").all()
    assert not {"saturation-undetermined", "saturation-near-range"} & set(_kinds(a))
    np.testing.assert_allclose(a.predict(FAR), b.predict(FAR), rtol=1e-3)


@pytest.mark.parametrize("saturation", ["evidence", "thesis"])
def test_unit_invariance_holds(saturation):
    a = Adept(targets=FAR, saturation=saturation).fit(N, T)
    b = Adept(targets=FAR, saturation=saturation).fit(N, T * 1000)
    cols = ["A", "sigma", "max_rel_error", "saturation_n", "saturating_A", "saturating_sigma", "saturation_suggested_n"]
    np.testing.assert_allclose(b.fits_[cols].to_numpy(float), a.fits_[cols].to_numpy(float), rtol=1e-9)
    assert b.fits_["saturation"].tolist() == a.fits_["saturation"].tolist()
    np.testing.assert_allclose(b.predict(FAR), 1000 * a.predict(FAR), rtol=1e-9)
    assert [(w.kind, w.targets, w.suggested_n) for w in b.warnings_] == [
        (w.kind, w.targets, w.suggested_n) for w in a.warnings_]


def test_paper_units_only_warn():
    # with tau fixed to 1 s the runtimes pin A: no non-saturating instance fits, so the
    # saturating one is kept, and said so
    a = Adept(targets=FAR, units="paper").fit(N, T)
    b = Adept(targets=FAR, units="paper", saturation="thesis").fit(N, T)
    np.testing.assert_array_equal(a.predict(FAR), b.predict(FAR))
    assert "saturation-undetermined" not in _kinds(a)


@pytest.mark.parametrize("bad", ["Thesis", "none", None, 1])
def test_the_parameter_is_validated(bad):
    with pytest.raises(ValidationError, match="saturation"):
        Adept(saturation=bad).fit(N, T)


def test_get_params_and_clone_keep_it():
    m = Adept(saturation="thesis", delta=0.07)
    assert m.get_params()["saturation"] == "thesis"
    assert Adept().get_params()["saturation"] == "evidence"
    c = clone(m)
    assert c.get_params() == m.get_params() and c is not m
    assert Adept().set_params(saturation="thesis").saturation == "thesis"
