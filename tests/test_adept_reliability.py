"""Reliability judgment (thesis 3.10, Table 3): warnings are data (ModelWarning records)."""

import numpy as np
import pytest

from workbench.errors import ModelWarning
from workbench.models import downey
from workbench.models.adept import Adept

KW = dict(pass1_size=1000, pass2_size=100)
N6 = np.array([2, 4, 8, 16, 32, 64.0])
LINEAR_N = np.array([4, 8, 16, 32.0])  # far below A = 600: the linear section only


def _kinds(m):
    return [w.kind for w in m.warnings_]


@pytest.mark.parametrize("units, scale", [("paper", 1.0), ("fit", 3.7)])
def test_all_observations_in_the_linear_section_warn_and_suggest_n_at_least_A(units, scale):
    # Table 3: low-variance fit and every n_i < A -> "request additional observation on >= A nodes"
    t = scale * downey.runtime(LINEAR_N, 600, 0.5)
    m = Adept(units=units, **KW).fit(LINEAR_N, t)
    lin = [w for w in m.warnings_ if w.kind == "linear-section"]
    assert len(lin) == 1
    w = lin[0]
    fits = m.explain(list(w.targets))
    # the first piece ends at A (low variance) or A + (A - 1) sigma (high variance; only fit
    # mode warns there: with a free scale that piece is Amdahl-shaped and A unidentified)
    end = np.where(fits["variance"] == "low", fits["A"], fits["A"] + (fits["A"] - 1) * fits["sigma"])
    assert (end > LINEAR_N.max()).all()
    if units == "paper":
        assert (fits["variance"] == "low").all()
    # at the section's end, or at the largest target when it ends past every target (issue 23:
    # nothing past the targets concerned is suggested)
    assert LINEAR_N.max() < w.suggested_n == min(np.ceil(end.min()), max(w.targets))


def test_a_saturating_curve_has_no_linear_section_warning():
    t = downey.runtime(N6, 20, 0.5)
    assert "linear-section" not in _kinds(Adept(**KW).fit(N6, t))


@pytest.mark.parametrize("units", ["fit", "paper"])
def test_high_fit_error_for_a_shape_the_model_cannot_follow(units):
    # t = 100 / log2(n + 1): keeps falling like a logarithm, no Downey instance follows it
    t = 100 / np.log2(N6 + 1)
    m = Adept(units=units, **KW).fit(N6, t)
    hi = [w for w in m.warnings_ if w.kind == "high-fit-error"]
    assert len(hi) == 1
    assert hi[0].details["max_rel_error"] > 0.10
    assert set(hi[0].targets) <= set(m.fits_["target"])
    flagged = m.fits_[m.fits_["target"].isin(hi[0].targets)]
    assert (flagged["max_rel_error"] > max(0.10, m.delta_)).all()


def test_downey_data_give_no_high_fit_error():
    t = 10 * downey.runtime(N6, 20, 0.5) * np.array([1.02, 0.99, 1.01, 0.98, 1.0, 1.01])
    m = Adept(**KW).fit(N6, t)
    assert "high-fit-error" not in _kinds(m)
    assert m.fits_["max_rel_error"].max() < 0.05


@pytest.mark.parametrize("t", [
    10 * downey.runtime(N6, 50, 0.5) * np.array([1.3, 0.7, 1.3, 0.7, 1.3, 0.7]),
    1000 / N6**1.5,
], ids=["noise-30pct", "superlinear"])
def test_high_fit_error_when_the_data_deviate_strongly(t):
    m = Adept(**KW).fit(N6, t)
    assert m.fits_["max_rel_error"].max() > 0.3  # the fits really are off ...
    assert "high-fit-error" in _kinds(m)  # ... and that must be reported


def test_runner_up_with_a_suggested_allocation_outside_the_observed_range():
    # linear-section inputs in fit mode: instances with very different A fit equally well
    t = 3.7 * downey.runtime(LINEAR_N, 600, 0.5)
    m = Adept(**KW).fit(LINEAR_N, t)
    ru = [w for w in m.warnings_ if w.kind == "runner-up"]
    assert len(ru) == 1
    w = ru[0]
    assert w.suggested_n > LINEAR_N.max()
    fits = m.explain(list(w.targets))
    # Table 3: WSSRE_j < 1.1 WSSRE_best and A differing by a factor > 1.5
    ratio = fits["runner_up_A"] / fits["A"]
    assert ((ratio > 1.5) | (ratio < 1 / 1.5)).all()
    assert (fits["runner_up_wssre"] <= 1.1 * fits["wssre"]).all()
    # at the suggested allocation the two instances predict clearly different runtimes
    row = fits.iloc[0]
    Tb = row["scale"] * downey.runtime(row["suggested_n"], row["A"], row["sigma"])
    Tr = downey.runtime(row["suggested_n"], row["runner_up_A"], row["runner_up_sigma"])
    Tr_obs = downey.runtime(LINEAR_N, row["runner_up_A"], row["runner_up_sigma"])
    Tr = Tr * np.sum(Tr_obs * t) / np.sum(Tr_obs**2)  # the runner-up at its own best scale
    assert abs(Tb / Tr - 1) > 0.05


def test_warnings_are_records_and_warnings_for_selects_targets():
    t = 3.7 * downey.runtime(LINEAR_N, 600, 0.5)
    m = Adept(**KW).fit(LINEAR_N, t)
    assert m.warnings_ and all(isinstance(w, ModelWarning) for w in m.warnings_)
    assert all(isinstance(w.kind, str) and w.message for w in m.warnings_)
    ws = m.warnings_for([1000.0])  # a target outside the default ones is fitted on demand
    assert all(isinstance(w, ModelWarning) for w in ws)
    for w in ws:
        assert not w.targets or 1000.0 in w.targets
