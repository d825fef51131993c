"""Station service-time fits and chi-square goodness of fit (section 3.3, Fig. 11)."""

import numpy as np
import pytest
from scipy import stats

from workbench.errors import ValidationError
from workbench.models.fim import chi_square_test, fit_station, rates_from_fits, simulate_collective

rng = np.random.default_rng(20191)


def test_uniform_rate_is_the_mle_of_the_rates():
    rates = rng.uniform(0.9, 1.0, 400)
    fit = fit_station(1 / rates, "uniform_rate", station="D")
    assert fit.params == {"zeta_min": pytest.approx(rates.min()), "zeta_max": pytest.approx(rates.max())}
    # the CDF of the service time 1/rate: 0 below 1/zeta_max, 1 above 1/zeta_min
    assert fit.cdf(0.99 / rates.max()) == 0 and fit.cdf(1.01 / rates.min()) == 1
    assert fit.mean == pytest.approx(np.log(rates.max() / rates.min()) / (rates.max() - rates.min()))
    assert fit.p_value > 0.01


def test_exponential_families():
    x = rng.exponential(2.0, 1000)
    fit = fit_station(x, "exponential")
    assert fit.params == {"scale": pytest.approx(x.mean())} and fit.mean == pytest.approx(x.mean())
    assert fit.p_value > 0.01
    shifted = fit_station(5 + x, "shifted_exponential")
    assert shifted.params["loc"] == pytest.approx(5 + x.min())
    assert shifted.mean == pytest.approx(5 + x.mean())
    assert shifted.p_value > 0.01
    # a plain exponential cannot produce a 5-unit floor: rejected
    assert fit_station(5 + x, "exponential").p_value < 1e-6


def test_log_form_recovers_its_coefficient_exactly():
    chi = rng.integers(1, 500, 300)
    t = 0.04 * (1 + np.log(chi))
    fit = fit_station(t, "log", station="M", loads=chi)
    assert fit.params["metadata_coef"] == pytest.approx(0.04, rel=1e-12)
    # the fitted step CDF sits on the samples (up to rounding of the coefficient)
    assert fit.ks_statistic <= 0.02 and fit.p_value > 0.5
    assert fit.mean == pytest.approx(t.mean())


def test_log_form_on_the_simulators_own_metadata_samples():
    sim = simulate_collective("scatter", 3000, 4, zeta_min=50, zeta_max=60, metadata_coef=0.01, eta=1, psi=0.01)
    fit = fit_station(sim.samples["M"], "log", loads=sim.samples["metadata_load"])
    assert fit.params["metadata_coef"] == pytest.approx(0.01, rel=1e-9)


def test_chi_square_matches_scipy_on_the_same_bins():
    x = rng.exponential(1.0, 200)
    fit = fit_station(x, "exponential")
    k = int(np.clip(round(2 * 200**0.4), 3, 30))
    inner = np.quantile(np.sort(x), np.arange(1, k) / k)
    observed = np.histogram(x, np.r_[-np.inf, inner, np.inf])[0]
    expected = 200 * np.diff(np.r_[0, stats.expon(scale=x.mean()).cdf(inner), 1])
    assert expected.min() >= 5  # no merging in this case
    ref = stats.chisquare(observed, expected, ddof=1)
    assert fit.chi2 == pytest.approx(ref.statistic) and fit.p_value == pytest.approx(ref.pvalue)
    assert fit.dof == k - 2


def test_wrong_family_is_rejected():
    x = rng.uniform(0, 4, 1000)
    assert fit_station(x, "exponential").p_value < 1e-6


def test_too_few_samples_give_nan_with_a_reason():
    fit = fit_station([1.0, 2.0, 3.0], "exponential")
    assert np.isnan(fit.p_value) and "too few samples" in fit.warnings[0]


def test_samples_outside_the_support_are_reported_and_rejected():
    x = np.r_[rng.exponential(1.0, 200), -np.ones(20)]
    fit = fit_station(x, "exponential")
    assert fit.p_value < 1e-6
    assert any("negative" in w for w in fit.warnings)


def test_merging_keeps_counts():
    statistic, dof, p, warning = chi_square_test(np.arange(1.0, 41), lambda e: np.clip(e / 40, 0, 1), 0)
    assert warning is None and dof >= 1 and p > 0.5


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (([1.0, 2.0], "gamma"), {}, "unknown service-time family 'gamma'"),
        (([1.0, np.nan], "exponential"), {}, "must be finite"),
        (([1.0], "exponential"), {}, "at least 2 service times"),
        (([1.0, 2.0], "log"), {}, "needs the queue length"),
        (([1.0, 2.0], "log"), {"loads": [1, 2, 3]}, "2 service times but 3 loads"),
        (([1.0, 2.0], "log"), {"loads": [0, 2]}, "chi must be >= 1"),
        (([1.0, -2.0], "uniform_rate"), {}, "positive service times"),
    ],
)
def test_bad_input_is_named(args, kwargs, message):
    with pytest.raises(ValidationError, match=message):
        fit_station(*args, **kwargs)


def test_rates_from_fits():
    fits = {
        "D": fit_station(1 / rng.uniform(2, 3, 100), "uniform_rate"),
        "M": fit_station([0.1, 0.2], "log", loads=[1, 3]),
        "C": fit_station(rng.exponential(2.0, 100), "exponential"),
        "R": fit_station(rng.exponential(0.5, 100), "shifted_exponential"),
    }
    rates = rates_from_fits(fits)
    assert set(rates) == {"zeta_min", "zeta_max", "metadata_coef", "eta", "psi"}
    assert rates["eta"] == pytest.approx(fits["C"].samples.mean())
    assert rates["psi"] == pytest.approx(fits["R"].samples.mean())
    simulate_collective("scatter", 10, 2, **rates)  # usable as is
    with pytest.raises(ValidationError, match="stations R are missing"):
        rates_from_fits({k: v for k, v in fits.items() if k != "R"})
