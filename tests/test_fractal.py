"""Fractal extrapolation ([EscobarBoppana]): phase fits, shares, C, T, Table 1."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import ValidationError, WorkbenchWarning
from workbench.io import fetch_seed_table
from workbench.models.fractal import (
    FractalExtrapolator,
    convergence_size,
    design_sizes,
    extrapolate_share,
    fit_phase,
    major_phases,
    phase_shares,
    validate_profile,
)


def _profile(times_by_phase: dict, sizes, runs=1, total=None) -> pd.DataFrame:
    """Tidy profile from ``{phase: f(size) -> seconds}`` (and optional ``total(size)``)."""
    rows = [
        {"size": n, "phase": p, "time_s": f(n), "run": r, **({"total_s": total(n)} if total else {})}
        for n in sizes for r in range(runs) for p, f in times_by_phase.items()
    ]
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- §2.2 fit_phase


@settings(max_examples=150, deadline=None)
@given(
    m=st.floats(0.5, 4.0),
    eb=st.floats(1e-3, 1e4),
    start=st.floats(2.0, 200.0),
    delta=st.floats(0.5, 60.0),
    k=st.integers(3, 9),
    factor=st.floats(1.2, 30.0),
)
def test_exact_recovery_of_m_and_eb_on_power_laws(m, eb, start, delta, k, factor):
    sizes = design_sizes(start, delta, k)
    target = factor * sizes[-1]
    times = eb * (sizes / target) ** m  # T(N) = e^b (N / N_Lrg)^m exactly
    fit = fit_phase(sizes, times, target)
    assert fit.m == pytest.approx(m, rel=1e-9, abs=1e-9)
    assert fit.predicted == pytest.approx(eb, rel=1e-8)
    assert fit.b == pytest.approx(np.log(eb), abs=1e-8)
    assert fit.r2 == pytest.approx(1.0)
    assert fit.band[0] == pytest.approx(eb, rel=1e-6) and fit.band[1] == pytest.approx(eb, rel=1e-6)
    assert fit.warnings == ()
    np.testing.assert_allclose(fit.predict(sizes), times, rtol=1e-8)
    assert fit.predict(target) == pytest.approx(eb, rel=1e-8)


def test_fit_phase_hand_values():
    # ln T = 2 x + ln 5 at x = ln(N / 8): T = 5 (N/8)^2 -> 1.25, 5*(9/64), 5*(16/64)... at N = 2, 3, 4
    fit = fit_phase([2, 3, 4], [5 / 16, 5 * 9 / 64, 5 / 4], 8)
    assert (fit.m, fit.predicted) == (pytest.approx(2.0), pytest.approx(5.0))
    assert fit.target_size == 8.0 and fit.sizes.tolist() == [2, 3, 4]
    # a non-exact line: OLS slope of y on x by hand
    x = np.log(np.array([1.0, 2.0, 4.0]) / 10)
    y = np.log([1.0, 3.0, 8.0])
    slope = np.sum((x - x.mean()) * (y - y.mean())) / np.sum((x - x.mean()) ** 2)
    fit = fit_phase([1, 2, 4], [1, 3, 8], 10)
    assert fit.m == pytest.approx(slope)
    assert fit.b == pytest.approx(y.mean() - slope * x.mean())
    assert 0.95 < fit.r2 < 1 and fit.residual_std > 0 and fit.band[0] < fit.predicted < fit.band[1]


def test_two_sizes_give_an_exact_line_and_no_band():
    with pytest.warns(WorkbenchWarning, match="only 2 sizes"):
        fit = fit_phase([10, 20], [1.0, 8.0], 40)
    assert fit.m == pytest.approx(3.0) and fit.predicted == pytest.approx(64.0)
    assert np.isnan(fit.band[0]) and np.isnan(fit.band[1]) and np.isnan(fit.residual_std)
    assert "only 2 sizes" in fit.warnings[0]


def test_target_inside_the_fitted_range_is_flagged():
    with pytest.warns(WorkbenchWarning, match="not above the largest fitted size"):
        fit = fit_phase([1, 2, 3], [1, 4, 9], 2)
    assert fit.predicted == pytest.approx(4.0)


def _simulate_coverage(sigma: float, trials: int, rng) -> tuple[float, np.ndarray]:
    sizes = design_sizes(100, 20, 5)
    target, truth = 1000.0, 50.0
    hits, widths = 0, []
    for _ in range(trials):
        times = truth * (sizes / target) ** 2.5 * np.exp(sigma * rng.standard_normal(sizes.size))
        # the measured target run has its own noise: a prediction interval must cover it
        actual = truth * np.exp(sigma * rng.standard_normal())
        fit = fit_phase(sizes, times, target, confidence=0.95)
        hits += fit.band[0] <= actual <= fit.band[1]
        widths.append(np.log(fit.band[1] / fit.band[0]))
    return hits / trials, np.array(widths)


def test_prediction_band_covers_the_truth_at_about_the_nominal_rate():
    coverage, _ = _simulate_coverage(0.05, 400, np.random.default_rng(20240603))
    # nominal 95 %: a binomial(400, 0.95) lies in [0.92, 0.975] with probability > 0.99
    assert 0.92 <= coverage <= 0.975, coverage


def test_prediction_band_shrinks_with_less_noise():
    medians = [np.median(_simulate_coverage(s, 60, np.random.default_rng(7))[1]) for s in (0.2, 0.05, 0.01)]
    # same draws: the log-width is proportional to sigma
    assert medians[0] > medians[1] > medians[2] > 0
    assert medians[0] / medians[1] == pytest.approx(4.0, rel=1e-6)
    # a higher confidence gives a wider band
    sizes = design_sizes(10, 5, 5)
    times = (sizes / 100) ** 2 * np.exp(0.1 * np.array([1, -1, 0.5, -0.5, 0]))
    narrow, wide = fit_phase(sizes, times, 100, confidence=0.5), fit_phase(sizes, times, 100, confidence=0.99)
    assert wide.band[0] < narrow.band[0] < narrow.predicted < narrow.band[1] < wide.band[1]


@pytest.mark.parametrize(
    ("sizes", "times", "target", "message"),
    [
        ([10], [1.0], 100, "at least 2 sizes"),
        ([], [], 100, "at least 2 sizes"),
        ([10, 20], [1.0, 2.0, 3.0], 100, "same length, got 2 and 3"),
        ([10, 20, 30], [1.0, 0.0, 3.0], 100, r"times must be > 0 .*times\[1\] = 0.0"),
        ([10, 20, 30], [1.0, -2.0, 3.0], 100, r"times\[1\] = -2.0"),
        ([10, 20, 30], [1.0, np.nan, 3.0], 100, r"times must be finite, got times\[1\] = nan"),
        ([10, 30, 20], [1.0, 2.0, 3.0], 100, r"strictly increasing, got sizes\[1\] = 30.0 then sizes\[2\] = 20.0"),
        ([10, 10, 20], [1.0, 2.0, 3.0], 100, "strictly increasing"),
        ([0, 10, 20], [1.0, 2.0, 3.0], 100, r"sizes must be > 0, got sizes\[0\] = 0.0"),
        ([10, np.inf, 20], [1.0, 2.0, 3.0], 100, "sizes must be finite"),
        ([10, 20, 30], [1.0, 2.0, 3.0], 0, "target_size must be finite and > 0, got 0"),
        ([10, 20, 30], [1.0, 2.0, 3.0], -5, "target_size must be finite and > 0"),
        ([10, 20, 30], [1.0, 2.0, 3.0], "big", "target_size must be a number"),
        ([10, 20, 30], ["a", 2.0, 3.0], 100, "times must be numeric"),
    ],
)
def test_fit_phase_bad_input(sizes, times, target, message):
    with pytest.raises(ValidationError, match=f"fit_phase: .*{message}"):
        fit_phase(sizes, times, target)


def test_fit_phase_bad_confidence_and_predict_size():
    with pytest.raises(ValidationError, match=r"confidence must be in \(0, 1\), got 1.5"):
        fit_phase([1, 2, 3], [1, 2, 3], 10, confidence=1.5)
    fit = fit_phase([1, 2, 3], [1, 2, 3], 10)
    with pytest.raises(ValidationError, match="PhaseFit.predict: size must be finite and > 0"):
        fit.predict([1, 0])


# ----------------------------------------------------------------------------- Table 1


def test_table1_predicted_runtimes_are_e_to_the_b_within_rounding():
    """Table 1 of Escobar & Boppana: b (ln ms, rounded to 0.1) brackets the published predicted seconds."""
    table = fetch_seed_table("fractal_escobar_table1").frame
    assert len(table) == 10
    predicted_ms = table["phase_predicted_s"].to_numpy() * 1000
    b = table["b"].to_numpy()
    inside = (np.exp(b - 0.05) <= predicted_ms) & (predicted_ms <= np.exp(b + 0.05))
    assert inside.all(), table.loc[~inside, ["cores", "app", "phase", "b", "phase_predicted_s"]]
    # the rounding matters: e^b alone is off by up to ~5 % (b to 0.1 = +-5 % in time)
    assert np.max(np.abs(np.exp(b) / predicted_ms - 1)) > 0.01
    for row in table.itertuples():
        # points on the published line at N_i = C + i*delta (N_5 = N_k, k = 5) give back m and b
        sizes = design_sizes(row.C, (row.N_k - row.C) / 5, 5)
        assert sizes[-1] == pytest.approx(row.N_k)
        fit = fit_phase(sizes, np.exp(row.m * np.log(sizes / row.N_Lrg) + row.b), row.N_Lrg)
        assert fit.m == pytest.approx(row.m) and fit.b == pytest.approx(row.b)
        assert np.exp(row.b - 0.05) <= row.phase_predicted_s * 1000 <= np.exp(row.b + 0.05)
        assert fit.predicted == pytest.approx(np.exp(row.b))


def test_table1_errors_are_the_published_differences():
    table = fetch_seed_table("fractal_escobar_table1").frame
    err = 100 * (table["phase_predicted_s"] - table["phase_actual_s"]).abs() / table["phase_actual_s"]
    # published to 0.1 from unrounded times: smg2000 cyclicred (8 cores) recomputes to 10.9 (11.0 printed)
    np.testing.assert_allclose(err, table["phase_error_pct"], atol=0.11)


# ----------------------------------------------------------------------------- §2.1 phases, C


SHARES_A = {1: 0.50, 2: 0.60, 3: 0.80, 4: 0.82, 5: 0.83, 6: 0.83}


def _drifting_profile() -> pd.DataFrame:
    # 1 s per run: the share of A equals its time
    return _profile({"A": SHARES_A.get, "B": lambda n: 1 - SHARES_A[n]}, sizes=SHARES_A, runs=2)


def test_phase_shares_with_and_without_total():
    prof = _profile({"A": lambda n: 2.0 * n, "B": lambda n: 1.0 * n}, [1, 2], runs=2, total=lambda n: 4.0 * n)
    shares = phase_shares(prof)
    assert shares.columns.tolist() == ["size", "phase", "time_s", "total_s", "share"]
    assert shares["share"].tolist() == [0.5, 0.25, 0.5, 0.25]
    assert shares["total_s"].tolist() == [4.0, 4.0, 8.0, 8.0]
    no_total = phase_shares(prof.drop(columns="total_s"))
    assert no_total["share"].tolist() == pytest.approx([2 / 3, 1 / 3] * 2)
    # mean over runs; a phase absent from a run counts as 0 s there
    uneven = pd.DataFrame(
        {"size": [1, 1, 1], "phase": ["A", "B", "A"], "time_s": [3.0, 1.0, 2.0], "run": [0, 0, 1]}
    )
    got = phase_shares(uneven).set_index("phase")
    assert got.loc["A", "time_s"] == 2.5 and got.loc["B", "time_s"] == 0.5
    assert got.loc["A", "share"] == pytest.approx((0.75 + 1.0) / 2)


def test_major_phases_cumulative_threshold():
    prof = _profile({"small": lambda n: 0.15, "big": lambda n: 0.6, "mid": lambda n: 0.25}, [1, 2, 3])
    assert major_phases(prof) == ["big", "mid"]  # 0.60 < 0.70 <= 0.85
    assert major_phases(prof, threshold=0.6) == ["big"]
    assert major_phases(prof, threshold=0.9) == ["big", "mid", "small"]
    # pooled over sizes with equal weight: A averages 0.73 over the drifting profile
    assert major_phases(_drifting_profile(), threshold=0.7) == ["A"]
    assert major_phases(_drifting_profile(), threshold=0.75) == ["A", "B"]
    with pytest.raises(ValidationError, match=r"threshold must be in \(0, 1\], got 0"):
        major_phases(prof, threshold=0)


def test_major_phases_when_total_includes_unprofiled_time():
    prof = _profile({"A": lambda n: 1.0, "B": lambda n: 1.0}, [1, 2], total=lambda n: 4.0)
    with pytest.warns(WorkbenchWarning, match="only 50.0% of the runtime"):
        assert major_phases(prof) == ["A", "B"]


def test_convergence_size_on_a_hand_made_profile():
    prof = _drifting_profile()
    # steps of A's share: 0.10, 0.20, 0.02, 0.01, 0.00 -> stable from size 3 on
    assert convergence_size(prof, ["A"], tolerance=0.05) == 3.0
    assert convergence_size(prof, ["A"], tolerance=0.15) == 3.0
    assert convergence_size(prof, ["A"], tolerance=0.2) == 1.0
    assert convergence_size(prof, ["A"], tolerance=0.015) == 4.0
    assert convergence_size(prof, "A", tolerance=0.0) == 5.0
    assert convergence_size(prof, ["A", "B"]) == 1.0  # together always 100 %


def test_convergence_size_errors():
    prof = _profile({"A": lambda n: n, "B": lambda n: 10.0}, [1, 2, 4, 8, 16])
    with pytest.raises(ValidationError, match=r"never stabilises within 0.05: it changes by 0.\d+ between the two "
                       r"largest sizes 8 and 16"):
        convergence_size(prof, ["A"])
    with pytest.raises(ValidationError, match=r"convergence_size: unknown phase\(s\) \['sort'\]; the profile has "
                       r"\['A', 'B'\]"):
        convergence_size(prof, ["A", "sort"])
    with pytest.raises(ValidationError, match="at least 2 profiled sizes"):
        convergence_size(_profile({"A": lambda n: 1.0}, [4]), ["A"])


def test_design_sizes():
    np.testing.assert_array_equal(design_sizes(112, 12.8, 5), [124.8, 137.6, 150.4, 163.2, 176.0])
    assert design_sizes(50, 10, 3).tolist() == [60, 70, 80]
    with pytest.raises(ValidationError, match="delta must be finite and > 0, got 0"):
        design_sizes(10, 0)
    with pytest.raises(ValidationError, match="k must be an integer >= 1, got 0"):
        design_sizes(10, 5, 0)


# ----------------------------------------------------------------------------- §2.3 overall


def test_extrapolate_share_hand_values_and_clipping():
    fit = extrapolate_share([1, 2, 3], [0.5, 0.6, 0.7], 5)
    assert (fit.slope, fit.share, fit.clipped) == (pytest.approx(0.1), pytest.approx(0.9), False)
    with pytest.warns(WorkbenchWarning, match=r"share 1.400 at size 10 is outside \(0, 1\]; using 1.000"):
        high = extrapolate_share([1, 2, 3], [0.5, 0.6, 0.7], 10)
    assert high.share == 1.0 and high.raw == pytest.approx(1.4) and high.clipped
    with pytest.warns(WorkbenchWarning, match="using 0.300"):
        low = extrapolate_share([1, 2, 3], [0.5, 0.4, 0.3], 10)
    assert low.share == pytest.approx(0.3) and low.raw == pytest.approx(-0.4)
    with pytest.raises(ValidationError, match=r"shares must be in \[0, 1\], got shares\[1\] = 1.2"):
        extrapolate_share([1, 2], [0.5, 1.2], 5)


def test_total_is_sum_of_phase_times_over_sum_of_shares():
    # A = 2 N^2, B = N^2, total 4 N^2 (a quarter unprofiled): r_A = 0.5, r_B = 0.25
    prof = _profile({"A": lambda n: 2.0 * n**2, "B": lambda n: 1.0 * n**2}, [10, 20, 30, 40, 50],
                    total=lambda n: 4.0 * n**2)
    model = FractalExtrapolator().fit(prof)
    assert model.phases_ == ["A", "B"] and model.convergence_size_ == 10.0
    pred = model.predict(100)
    # T = (2e4 + 1e4) / (0.5 + 0.25) = 4e4 = the true total 4 * 100^2
    assert pred.total == pytest.approx(4e4)
    assert pred.phases["predicted"].tolist() == pytest.approx([2e4, 1e4])
    assert pred.phases["share_at_target"].tolist() == pytest.approx([0.5, 0.25])
    assert pred.phases["m"].tolist() == pytest.approx([2.0, 2.0])
    assert pred.phases.columns.tolist() == ["phase", "m", "b", "predicted", "band_low", "band_high",
                                            "share_at_target", "r2"]
    assert pred.band == (pytest.approx(4e4), pytest.approx(4e4))
    assert set(pred.phase_fits) == {"A", "B"} and pred.phase_fits["A"].target_size == 100
    assert not hasattr(model, "phase_fits_")  # predicting leaves the model as fitted


def test_extrapolator_on_a_noisy_multiphase_profile():
    rng = np.random.default_rng(3)
    truth = {"solve": lambda n: 2e-6 * n**3, "stencil": lambda n: 4e-5 * n**2, "setup": lambda n: 1e-3 * n}
    sizes = [20, 40, 60, 80, 100, 120, 140, 160, 180, 200]
    prof = _profile(truth, sizes, runs=3)
    prof["time_s"] *= np.exp(0.02 * rng.standard_normal(len(prof)))
    model = FractalExtrapolator(threshold=0.7, tolerance=0.05).fit(prof)
    assert model.phases_ == ["solve"]
    assert 20 < model.convergence_size_ < 200
    # solve's share (0.6 -> 0.9 over the small sizes) extrapolates linearly above 1: clipped
    with pytest.warns(WorkbenchWarning, match=r"share 1.\d+ at size 800 is outside \(0, 1\]; using 1.000"):
        pred = model.predict(800)
    actual = sum(f(800) for f in truth.values())
    assert abs(pred.total / actual - 1) < 0.05
    assert pred.band[0] < pred.total < pred.band[1]
    assert pred.phases.loc[0, "m"] == pytest.approx(3.0, abs=0.1)
    # fixing the phases and the start size
    both = FractalExtrapolator(phases=["solve", "stencil"], min_size=100).fit(prof)
    assert both.convergence_size_ == 100 and set(both.data_["size"]) == {100, 120, 140, 160, 180, 200}
    with pytest.warns(WorkbenchWarning):
        both_pred = both.predict(800)
    assert "add up to 1.091 > 1; using 1" in both_pred.warnings[-1]
    assert both_pred.phases["m"].tolist() == pytest.approx([3.0, 2.0], abs=0.1)
    assert len(both_pred.warnings) == 3 and both_pred.total == pytest.approx(both_pred.phases["predicted"].sum())


def test_extrapolator_errors():
    prof = _drifting_profile()
    with pytest.raises(ValidationError, match="call fit"):
        FractalExtrapolator().predict(10)
    with pytest.raises(ValidationError, match=r"FractalExtrapolator.fit: unknown phase\(s\) \['sort'\]"):
        FractalExtrapolator(phases=["sort"]).fit(prof)
    with pytest.raises(ValidationError, match=r"only 1 profiled size\(s\) >= 6"):
        FractalExtrapolator(min_size=6).fit(prof)
    zero = _profile({"A": lambda n: float(n > 2), "B": lambda n: 1.0}, [1, 2, 3, 4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        model = FractalExtrapolator(phases=["A"], min_size=1).fit(zero)
        with pytest.raises(ValidationError, match=r"phase 'A': fit_phase: times must be > 0"):
            model.predict(10)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.drop(columns="time_s"), r"missing column\(s\) \['time_s'\]"),
        (lambda f: f.iloc[:0], "the profile is empty"),
        (lambda f: f.assign(time_s=[1.0, -1.0, 1.0, 1.0]), r"'time_s' must be a finite number >= 0 \(seconds\), got "
         r"-1.0 in row 1"),
        (lambda f: f.assign(time_s=[1.0, 1.0, np.nan, 1.0]), "'time_s' must be a finite number >= 0.*got nan in row 2"),
        (lambda f: f.assign(size=[1, 1, 0, 0]), "'size' must be a finite number > 0, got 0 in row 2"),
        (lambda f: f.assign(run=[0, 0, 1.5, 0]), "'run' must be an integer >= 0"),
        (lambda f: f.assign(phase=["A", "", "A", "B"]), "'phase' must be a non-empty name"),
        (lambda f: f.assign(phase=["A", "A", "A", "B"]), "duplicate timing of phase 'A' at size 1, run 0 in row 1"),
        (lambda f: f.assign(total_s=[3.0, 4.0, 3.0, 3.0]), "'total_s' must be the same for every phase of one run"),
        (lambda f: f.assign(total_s=[0.0, 0.0, 3.0, 3.0]), "'total_s' must be a finite number > 0"),
    ],
)
def test_profile_validation(change, message):
    frame = pd.DataFrame({"size": [1, 1, 2, 2], "phase": ["A", "B", "A", "B"], "time_s": [1.0, 1.0, 1.0, 1.0]})
    assert validate_profile(frame).columns.tolist() == ["size", "phase", "time_s", "run"]
    with pytest.raises(ValidationError, match=message):
        validate_profile(change(frame))
    with pytest.raises(ValidationError, match="expected a pandas DataFrame"):
        phase_shares([1, 2, 3])
