"""Thesis section 3.6 / Table 2 setups (docs/decisions/adept.md): ADEPT vs Levenberg-Marquardt on data
generated from the Downey model.

Setup (the thesis: "10 observations were generated from the Downey model, 4 of which were
provided as input"; A 400-1000 with sigma 0-1, and A 400-2000 with sigma 1.1-12):

- the 10 allocations are n = 2^k, k = 2..11 (4 .. 2048);
- the 4 inputs are n = 4, 32, 256, 2048 -- spread over the whole range, so that every other
  allocation is an interpolation, and with the largest allocation beyond the low-variance
  saturation point 2A - 1 (799 .. 1999).  Why it matters: with all inputs in the linear
  section (n < A) the saturation is not identifiable -- every A above the largest input
  explains them -- and ADEPT then says so with a "linear-section" warning
  (tests/test_adept_reliability.py);
- "paper" units: runtimes in model units (T(inf) = 1 for low variance), as the thesis did;
  "fit" units: the same curves in seconds x 3.7 (any unit works there).
"""

import numpy as np
import pandas as pd
import pytest

from workbench.models import downey
from workbench.models.adept import Adept
from workbench.models.baselines import DowneyLM, lm_from_random_starts

N_ALL = 2.0 ** np.arange(2, 12)
INPUTS = np.array([0, 3, 6, 9])
HELD = np.setdiff1d(np.arange(10), INPUTS)
SCALE = 3.7  # seconds per model unit for the "fit" runs

SETS = {
    "low (A 400-1000, sigma 0-1)": [(420, 0.1), (600, 0.5), (800, 0.9), (1000, 0.3), (700, 1.0)],
    "high (A 400-2000, sigma 1.1-12)": [(420, 1.5), (600, 2.5), (900, 4.0), (1300, 8.0), (1900, 11.5)],
}
LM_STARTS = [(10.0, 2.0), (100.0, 0.5), (1.0, 0.0)]  # arbitrary initial guesses, plus random ones


def _max_error(pred, actual):
    return float(np.max(np.abs(pred / actual - 1)))


def _adept_error(A, sigma, units):
    t = downey.runtime(N_ALL, A, sigma) * (SCALE if units == "fit" else 1.0)
    m = Adept(units=units).fit(N_ALL[INPUTS], t[INPUTS])
    return _max_error(m.predict(N_ALL[HELD]), t[HELD])


@pytest.mark.parametrize("name", list(SETS))
def test_adept_fit_units_predicts_the_other_six_within_one_percent(name):
    errors = {inst: _adept_error(*inst, "fit") for inst in SETS[name]}
    assert max(errors.values()) < 0.01, errors


def test_adept_paper_units_high_variance_predicts_the_other_six_within_one_percent():
    name = "high (A 400-2000, sigma 1.1-12)"
    errors = {inst: _adept_error(*inst, "paper") for inst in SETS[name]}
    assert max(errors.values()) < 0.01, errors


# This used to fail (up to 17 % error, A = 420, sigma = 0.1): the fixed-point curve sigma(A) of
# pass 1 (slope -2/(n_f - 1)) crossed the thin Case 4 box between two of the 5000 A grid values,
# so only instances of other boxes passed through the fixed point.
def test_adept_paper_units_low_variance_predicts_the_other_six_within_one_percent():
    name = "low (A 400-1000, sigma 0-1)"
    errors = {inst: _adept_error(*inst, "paper") for inst in SETS[name]}
    assert max(errors.values()) < 0.01, errors


def test_paper_mode_low_variance_truth_is_in_the_envelope_and_found():
    A, sigma = 600, 0.5
    t = downey.runtime(N_ALL, A, sigma)
    m = Adept(units="paper").fit(N_ALL[INPUTS], t[INPUTS])
    assert m.envelope_.contains(A, sigma)
    fits = m.explain(N_ALL[HELD])
    # every target, including those whose fixed point is n = 4 (the thin-box case)
    assert (fits["max_rel_error"] < 1e-3).all()
    np.testing.assert_allclose(fits["A"], A, rtol=0.01)


@pytest.fixture(scope="module")
def lm_table() -> pd.DataFrame:
    """LM (units="paper", as the thesis ran levmar) from arbitrary starts, one row per start:
    set, A, sigma (truth), A0, sigma0 (start), A_fit, sigma_fit, max_error_pct (6 held-back n)."""
    rows = []
    for name, instances in SETS.items():
        for A, sigma in instances:
            t = downey.runtime(N_ALL, A, sigma)
            n_in, t_in = N_ALL[INPUTS], t[INPUTS]
            starts = lm_from_random_starts(n_in, t_in, n_starts=6, seed=0, units="paper")
            fits = [(r.A0, r.sigma0, r.A, r.sigma, r.scale) for r in starts.itertuples()]
            for x0 in LM_STARTS:
                m = DowneyLM(x0=x0, units="paper").fit(n_in, t_in)
                fits.append((*x0, m.A_, m.sigma_, m.scale_))
            for A0, s0, Af, sf, scale in fits:
                err = _max_error(scale * downey.runtime(N_ALL[HELD], Af, sf), t[HELD])
                rows.append((name, A, sigma, A0, s0, Af, sf, 100 * err))
    return pd.DataFrame(rows, columns=["set", "A", "sigma", "A0", "sigma0", "A_fit", "sigma_fit", "max_error_pct"])


def test_lm_from_arbitrary_starts_is_often_inaccurate(lm_table):
    # Thesis 3.6: LM "made highly inaccurate predictions ... highly sensitive to the initial
    # guesses".  On the same data ADEPT ("fit" units) is within 1 % everywhere (tests above).
    bad = lm_table["max_error_pct"] > 1.0
    per_set = bad.groupby(lm_table["set"]).sum()
    assert (per_set >= 1).all(), per_set
    # ... and some of these failures are large, not rounding
    assert (lm_table["max_error_pct"] > 20).sum() >= 3
    # while LM also succeeds from some starts: the problem is the start, not the data
    assert (lm_table["max_error_pct"] < 0.01).groupby(lm_table["set"]).sum().min() >= 1
