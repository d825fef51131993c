"""workbench.evaluation.fractal: Table 1 of Escobar & Boppana from its m and b, and the method of
sections 2.1-2.3 on SYNTHETIC power-law profiles (exact answers known) and on the
measured demonstration workload."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.fractal import (
    B_ROUNDING,
    COMPARISON_COLUMNS,
    SYNTHETIC_PHASES,
    TABLE1_COLUMNS,
    demo_experiment,
    match_sizes,
    synthetic_profile,
    table1_check,
)
from workbench.io import fetch_dataset, fetch_seed_table

# ----------------------------------------------------------------------------- Table 1


@pytest.fixture(scope="module")
def check():
    return table1_check()


def test_table1_has_the_ten_published_rows(check):
    assert list(check.columns) == TABLE1_COLUMNS
    assert len(check) == 10
    assert check["label"].iloc[0] == "8 cores comd-ljforce"
    assert (check["cores"] == 8).sum() == 5 and (check["cores"] == 32).sum() == 5


def test_comd_8_cores_by_hand(check):
    row = check.iloc[0]  # b = 15.4 (ln ms), published 5109.9 s, actual 5120.4 s
    assert row["eb_s"] == pytest.approx(math.exp(15.4) / 1000)  # 4876.8 s
    assert row["eb_s"] == pytest.approx(4876.80, abs=0.01)
    assert row["bracket_low_s"] == pytest.approx(math.exp(15.35) / 1000) == pytest.approx(4638.96, abs=0.01)
    assert row["bracket_high_s"] == pytest.approx(math.exp(15.45) / 1000) == pytest.approx(5126.84, abs=0.01)
    assert bool(row["inside_bracket"])
    assert row["eb_error_pct"] == pytest.approx(abs(4876.80 - 5120.4) / 5120.4 * 100, abs=1e-3)  # 4.76 %


def test_every_published_prediction_lies_within_the_rounding_of_b(check):
    assert check["inside_bracket"].all(), check.loc[~check["inside_bracket"], "label"].tolist()
    # the bracket is the printed b's rounding, e^(+-0.05): a 10.3 % wide window
    np.testing.assert_allclose(check["bracket_high_s"] / check["bracket_low_s"], math.exp(2 * B_ROUNDING))
    # e^b itself is the prediction only to within that rounding: up to ~5 % off the published value
    assert (np.abs(check["eb_s"] / check["published_predicted_s"] - 1) < math.exp(B_ROUNDING) - 1).all()


def test_published_phase_errors_follow_from_the_published_times(check):
    recomputed = np.abs(check["published_predicted_s"] - check["published_actual_s"]) / check["published_actual_s"]
    # the paper rounds errors of unrounded times: within 0.15 percentage points (smg 8 cores: 10.9 vs 11.0)
    np.testing.assert_allclose(recomputed * 100, check["published_error_pct"], atol=0.15)


def test_a_mistyped_intercept_falls_outside_the_bracket():
    table = fetch_seed_table("fractal_escobar_table1").frame.copy()
    table.loc[0, "b"] = 15.3  # 0.1 off: e^15.35 ms = 4639 s is the new upper edge < 5109.9 s
    out = table1_check(table)
    assert not out["inside_bracket"].iloc[0] and out["inside_bracket"].iloc[1:].all()


def test_table1_check_names_a_missing_column():
    table = fetch_seed_table("fractal_escobar_table1").frame.drop(columns=["b"])
    with pytest.raises(ValidationError, match="'b'"):
        table1_check(table)


# ----------------------------------------------------------------------------- sizes


def test_match_sizes_nearest_with_ties_to_the_smaller():
    grid = [60, 80, 100, 140]
    np.testing.assert_array_equal(match_sizes([61, 70, 90, 119, 121, 500, 10], grid), [60, 60, 80, 100, 140, 140, 60])
    with pytest.raises(ValidationError, match="no measured sizes"):
        match_sizes([1.0], [])


# ----------------------------------------------------------------------------- experiment (synthetic)


@pytest.fixture(scope="module")
def profile():
    return synthetic_profile()  # SYNTHETIC: exact power laws, sizes 40..200 and 400


def test_synthetic_profile_is_a_profile_frame(profile):
    assert {"size", "phase", "time_s", "run", "total_s"} <= set(profile.columns)
    assert "SYNTHETIC" in profile.attrs["source"]
    at_100 = profile[profile["size"] == 100].set_index("phase")["time_s"]
    assert at_100["solve"] == pytest.approx(1.0) and at_100["sweep"] == pytest.approx(0.5)
    assert at_100["setup"] == pytest.approx(0.2)
    assert profile.loc[profile["size"] == 100, "total_s"].iloc[0] == pytest.approx(1.7 * 1.05)


def test_exact_recovery_on_power_laws_with_matching_design(profile):
    e = demo_experiment(profile, 400, C=40, delta=40, k=4)
    assert e.phases == ("solve", "sweep")  # setup is a minor phase at the 70 % threshold
    np.testing.assert_array_equal(e.requested_sizes, [80, 120, 160, 200])
    np.testing.assert_array_equal(e.sizes, [80, 120, 160, 200])  # all measured: nothing substituted
    assert not any("nearest" in n for n in e.notes)
    assert not e.convergence_auto and e.convergence_size == 40 and e.delta == 40 and e.k == 4
    c = e.comparison.set_index("phase")
    assert list(e.comparison.columns) == COMPARISON_COLUMNS and list(c.index) == ["solve", "sweep", "total"]
    for phase in ("solve", "sweep"):
        coef, power = SYNTHETIC_PHASES[phase]
        assert c.loc[phase, "m"] == pytest.approx(power, abs=1e-9)
        assert c.loc[phase, "predicted_s"] == pytest.approx(coef * 400**power, rel=1e-9)  # 64 s, 8 s
        assert c.loc[phase, "actual_s"] == pytest.approx(coef * 400**power)
        assert c.loc[phase, "error_pct"] == pytest.approx(0.0, abs=1e-7)
        assert c.loc[phase, "b"] == pytest.approx(math.log(coef * 400**power))
    # T = sum t_P / sum r_P (section 2.3) against the measured total 1.05 (64 + 8 + 0.8)
    assert c.loc["total", "predicted_s"] == pytest.approx(e.prediction.total)
    assert e.measured_total_s == pytest.approx(1.05 * 72.8)
    assert e.error_total_pct == pytest.approx(abs(e.prediction.total - 76.44) / 76.44 * 100)
    assert len(e.large_runs) == 3 and (e.large_runs["size"] == 400).all()
    assert e.phase_errors.index.tolist() == ["solve", "sweep"]


def test_noisy_power_laws_have_a_band_around_the_truth():
    e = demo_experiment(synthetic_profile(noise=0.03, runs=3, seed=1), 400, C=40, delta=40, k=4)
    c = e.comparison.set_index("phase")
    assert c.loc["solve", "m"] == pytest.approx(3.0, abs=0.1)
    assert (c["band_low_s"] < c["predicted_s"]).all() and (c["predicted_s"] < c["band_high_s"]).all()
    assert (c.loc[["solve", "sweep"], "error_pct"] < 10).all()
    assert e.large_runs["run"].nunique() == 3


def test_auto_c_and_auto_delta_spread_k_sizes_up_to_the_largest_small_run(profile):
    e = demo_experiment(profile, 400, k=4)
    assert e.convergence_auto and e.convergence_size in e.small_sizes
    largest = e.small_sizes.max()
    assert e.delta == pytest.approx((largest - e.convergence_size) / 4)
    assert e.requested_sizes[-1] == pytest.approx(largest) and e.sizes[-1] == largest
    assert (e.sizes > e.convergence_size).all() and set(e.sizes) <= set(e.small_sizes)


def test_unmeasured_design_sizes_map_to_the_nearest_measured_size(profile):
    e = demo_experiment(profile, 400, C=40, delta=30, k=5)  # 70 110 130 160 190 requested... 70 -> 60 (tie)
    np.testing.assert_array_equal(e.requested_sizes, [70, 100, 130, 160, 190])
    np.testing.assert_array_equal(e.sizes, [60, 100, 120, 160, 180])
    assert any("70 -> 60" in n and "130 -> 120" in n for n in e.notes)
    # requests beyond the small runs merge onto the largest one
    e = demo_experiment(profile, 400, C=160, delta=20, k=5)
    np.testing.assert_array_equal(e.sizes, [180, 200])
    assert any("5 sizes requested, 2 distinct" in n for n in e.notes)


def test_the_target_run_is_never_fitted(profile):
    e = demo_experiment(profile, 200, C=40, delta=40, k=5)  # N_5 = 240 would be above the target
    assert e.sizes.max() < 200 and e.target_size == 200


def test_a_target_without_a_measured_run_gives_nan_errors(profile):
    e = demo_experiment(profile, 300, C=40, delta=40, k=4)
    assert e.comparison["actual_s"].isna().all() and e.comparison["error_pct"].isna().all()
    assert e.large_runs.empty and math.isnan(e.measured_total_s) and math.isnan(e.error_total_pct)
    assert any("no measured run at the target size 300" in n for n in e.notes)
    assert e.comparison.set_index("phase").loc["solve", "predicted_s"] == pytest.approx(1e-6 * 300**3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(target_size=60), "2 small runs"),
        (dict(target_size=400, C=180), "only 1 measured size"),
        (dict(target_size=400, C=160, delta=60, k=3), "single measured size 200"),
        (dict(target_size=400, k=1), "k must be at least 2"),
        (dict(target_size=-5), "target_size must be a positive"),
    ],
)
def test_impossible_designs_raise_clear_errors(profile, kwargs, message):
    with pytest.raises(ValidationError, match=message):
        demo_experiment(profile, **kwargs)


def test_bad_profiles_are_rejected_with_the_column_named(profile):
    bad = profile.copy()
    bad.loc[4, "time_s"] = -1.0
    with pytest.raises(ValidationError, match="time_s"):
        demo_experiment(bad, 400)
    with pytest.raises(ValidationError, match="phase"):
        demo_experiment(profile.drop(columns=["phase"]), 400)


# ----------------------------------------------------------------------------- measured demo


@pytest.fixture(scope="module")
def demo() -> pd.DataFrame:
    return fetch_dataset("fractal-demo-local").frame  # bundled in data/measured: never skipped


def test_measured_demo_prediction_has_a_real_error(demo):
    target = float(demo["size"].max())
    e = demo_experiment(demo, target)
    c = e.comparison.set_index("phase")
    assert len(e.sizes) >= 2 and e.sizes.max() < target
    assert np.isfinite(c["error_pct"]).all() and (c["error_pct"] >= 0).all()
    assert (c.loc[list(e.phases), "m"] > 0).all()  # every major phase grows with the input
    assert (c.loc[list(e.phases), "r2"] > 0.9).all()
    assert e.error_total_pct < 50  # a real, bounded error (the closing note reports it)
