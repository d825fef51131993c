"""Figures and tables of FiM-Cal (workbench.plots.fim): the data in the traces."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.fim import compare_predictions
from workbench.models.fim import (
    HardwareRegression,
    base_probabilities,
    calculation_time,
    calibrate_alpha,
    state_occupancy,
    transition_matrix,
)
from workbench.plots.fim import (
    calibration_trace,
    config_label,
    display_probabilities,
    hardware_column,
    occupancy_figure,
    parity_figure,
    prediction_vs_actual,
    regression_slices,
    regression_surface,
    table4_figure,
    table4_frame,
    transition_heatmap,
)

F = 3.0e9
FEATURES = ("iterations", "clusters", "points")


@pytest.fixture(scope="module")
def linear_runs():
    """One-process runs whose TC, SC, U are exactly linear in (I, K, N)."""
    rows = []
    for i, k, n in itertools.product([10, 20, 40], [8, 16], [1e4, 2e4, 4e4]):
        tc = 5e7 + 2e6 * i + 3e6 * k + 1e3 * n
        rows.append(dict(iterations=i, clusters=k, points=n, processes=1, cycles=tc, stall_cycles=0.2 * tc,
                         utilization=0.5 + 0.001 * k, freq_hz=F, calc_time_s=calculation_time(1, tc, F)))
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def regression(linear_runs):
    return HardwareRegression(FEATURES).fit(linear_runs)


def _trace(fig, prefix):
    matches = [tr for tr in fig.data if (tr.name or "").startswith(prefix)]
    assert matches, f"no trace named {prefix!r}*: {[tr.name for tr in fig.data]}"
    return matches[0]


# ---------------------------------------------------------------- regression surface


def test_regression_surface_is_the_eq11_plane_and_marks_the_slice(linear_runs, regression):
    fig = regression_surface(linear_runs, regression, "TC", "iterations", "clusters", fixed={"points": 2e4})
    surface = fig.data[0]
    assert surface.type == "surface"
    x, y, z = np.asarray(surface.x), np.asarray(surface.y), np.asarray(surface.z)
    assert x[0] == 10 and x[-1] == 40 and y[0] == 8 and y[-1] == 16
    # z[row = y index, column = x index] = beta0 + beta . X with N fixed at 2e4
    np.testing.assert_allclose(z[0, 0], 5e7 + 2e6 * 10 + 3e6 * 8 + 1e3 * 2e4, rtol=1e-9)
    np.testing.assert_allclose(z[-1, -1], 5e7 + 2e6 * 40 + 3e6 * 16 + 1e3 * 2e4, rtol=1e-9)
    on, off = fig.data[1], fig.data[2]
    assert "N=20000" in on.name
    assert len(on.x) == 6 and len(off.x) == 12  # 3 I x 2 K on the slice, the other two N values off it
    assert set(np.asarray(on.z)) == set(linear_runs.loc[linear_runs.points == 2e4, "cycles"])
    assert "R² = 1.0000" in fig.layout.title.text


def test_regression_surface_default_slice_and_other_variables(linear_runs, regression):
    fig = regression_surface(linear_runs, regression, "utilization", "clusters", "points")
    assert "I=20" in fig.data[1].name  # the measured I nearest the median
    np.testing.assert_allclose(np.asarray(fig.data[0].z)[0, 0], 0.5 + 0.001 * 8, rtol=1e-9)
    assert fig.layout.scene.zaxis.title.text.startswith("U")
    assert hardware_column("sc") == "stall_cycles"


def test_regression_slices_draw_one_fitted_line_per_value(linear_runs, regression):
    fig = regression_slices(linear_runs, regression, "SC", "iterations", "clusters", fixed={"points": 4e4})
    assert [tr.name for tr in fig.data] == ["Eq. 11 fit, K=8", "measured, K=8", "Eq. 11 fit, K=16", "measured, K=16"]
    line, points = fig.data[2], fig.data[3]
    # SC = 0.2 TC is linear in (I, K, N): the K = 16 line at N = 4e4 from I = 10 to I = 40
    assert line.x[0] == 10 and line.x[-1] == 40
    np.testing.assert_allclose([line.y[0], line.y[-1]],
                               [0.2 * (5e7 + 2e6 * i + 3e6 * 16 + 1e3 * 4e4) for i in (10, 40)], rtol=1e-9)
    assert sorted(points.x) == [10, 20, 40]
    want = linear_runs[(linear_runs.clusters == 16) & (linear_runs.points == 4e4)].sort_values("iterations")
    np.testing.assert_allclose(sorted(points.y), want["stall_cycles"])
    assert fig.layout.title.text.startswith("SC = β0 + β·X (Eq. 11)") and "N=40000" in fig.layout.title.text


@pytest.mark.parametrize("view", [regression_surface, regression_slices])
@pytest.mark.parametrize("args, match", [
    (("IPC", "iterations", "clusters"), "TC, SC, U"),
    (("TC", "iterations", "iterations"), "different"),
    (("TC", "iterations", "dims"), "not a parameter"),
])
def test_regression_views_reject_bad_choices(linear_runs, regression, view, args, match):
    with pytest.raises(ValidationError, match=match):
        view(linear_runs, regression, *args)


# ---------------------------------------------------------------- calibration trace


def test_calibration_trace_shows_the_walk_tau_and_the_chosen_alpha():
    tc = 3e9
    result = calibrate_alpha(np.array([[tc, 0.2 * tc, 0.5]]), [1], [1.5 * tc / F], F,
                             alpha_init=1.0, epsilon=1e-3, tau=0.0125)
    fig = calibration_trace(result, 0.0125, alpha_used=1.2)
    walk = _trace(fig, "relative RMS")
    np.testing.assert_allclose(walk.x, result.trace["alpha"])
    # relative RMS of one run measured 1.5x the Markov time: |alpha / 1.5 - 1|
    np.testing.assert_allclose(walk.y, np.abs(result.trace["alpha"] / 1.5 - 1), rtol=1e-9)
    tau = _trace(fig, "τ")
    assert list(tau.y) == [0.0125, 0.0125] and tau.x[0] <= 1.0 and tau.x[1] >= result.alpha
    star = _trace(fig, "calibrated α")
    assert star.x[0] == pytest.approx(1.482) and star.y[0] < 0.0125
    assert list(_trace(fig, "α used").x) == [1.2, 1.2]
    assert list(_trace(fig, "valid training rows").y) == [1] * len(result.trace)
    assert "converged" in fig.layout.title.text and "NOT" not in fig.layout.title.text
    assert fig.layout.yaxis.type == "log"


def test_calibration_trace_says_when_the_walk_did_not_converge():
    tc = 3e9
    capped = calibrate_alpha(np.array([[tc, 0.2 * tc, 0.9]]), [1], [1.5 * tc / F], F, epsilon=1e-3, max_iter=1000)
    fig = calibration_trace(capped, 0.01, alpha_used=capped.alpha)
    # the walk stops where alpha * U passes 1.02 for every run (alpha = 1.134), not at max_iter
    assert f"NOT converged in {capped.iterations} steps" in fig.layout.title.text
    assert capped.iterations == 134
    assert len(_trace(fig, "α used").x) == 0  # equal to the calibrated alpha: nothing extra drawn
    valid = np.asarray(_trace(fig, "valid training rows").y)
    assert valid[0] == 1 and valid[-1] == 0  # past alpha ~ 1/U every row is invalid (neglected)
    with pytest.raises(ValidationError, match="tau"):
        calibration_trace(capped, 0.0)


# ---------------------------------------------------------------- Markov chain


def test_transition_heatmap_holds_the_matrix_and_the_completion_column():
    p = base_probabilities(10, 2, 0.5)  # P_act .5, P_a2p .4, P_pass .2, P_p2a .8, P_s1 .1
    matrix = transition_matrix(2, *p.as_tuple())
    fig = transition_heatmap(matrix)
    z = np.asarray(fig.data[0].z)
    assert list(fig.data[0].x) == ["0", "1", "2", "done"] and list(fig.data[0].y) == ["0", "1", "2"]
    np.testing.assert_allclose(z[:, :3], matrix)
    assert z[2, 2] == pytest.approx(0.25)  # P_22 = P_act^2 (section 2.1.3)
    assert z[1, 1] == pytest.approx(0.5 * 0.2 + 0.4 * 0.8)  # P_11 = P_act P_pass + P_a2p P_p2a
    # done = 1 - (P_act + P_a2p)^i = 1 - 0.9^i (Eq. 9 for i = t)
    np.testing.assert_allclose(z[:, 3], [0.0, 0.1, 0.19], atol=1e-12)


def test_occupancy_figure_stacks_the_states_and_draws_completion():
    p = base_probabilities(4, 1, 0.5)  # P_s1 = 1/4
    occupancy = state_occupancy(transition_matrix(1, *p.as_tuple()), 3)
    fig = occupancy_figure(occupancy)
    assert [tr.name for tr in fig.data] == ["0 active", "1 active", "completed"]
    assert all(tr.stackgroup == "states" for tr in fig.data[:2]) and fig.data[2].stackgroup is None
    done = np.asarray(fig.data[2].y)
    assert done[0] == 0 and done[1] == pytest.approx(0.25)  # one cycle from the active state
    np.testing.assert_allclose(np.asarray(fig.data[0].y) + np.asarray(fig.data[1].y) + done, 1.0)


def test_display_probabilities_keep_the_active_split_and_the_stall_ratio():
    p_act, p_a2p, p_pass, p_p2a = display_probabilities(2e9, 5e8, 0.999, 40)
    assert p_act + p_a2p == pytest.approx(1 - 1 / 40)  # completion 1/TC' per active cycle
    assert p_act / (p_act + p_a2p) == pytest.approx(0.999)
    assert (p_pass, p_p2a) == (pytest.approx(0.25), pytest.approx(0.75))
    # valid for the transition matrix although U = 0.999 > 1 - 1/TC' (Eq. 2 would give P_a2p < 0)
    assert transition_matrix(3, p_act, p_a2p, p_pass, p_p2a).shape == (4, 4)
    assert display_probabilities(10, 2, 1.3, 40)[0] == pytest.approx(1 - 1 / 40)  # U clipped to 1
    with pytest.raises(ValidationError, match="SC < TC"):
        display_probabilities(10, 10, 0.5, 40)


# ---------------------------------------------------------------- prediction vs actual


@pytest.fixture
def test_frame():
    rows = []
    for config, times in (((10, 8, 1000), [4.0, 2.5, 3.0]), ((20, 8, 1000), [8.0, 4.5, 4.0])):
        for t, time in zip((1, 2, 4), times, strict=True):
            rows.append(dict(zip(FEATURES, config, strict=True), processes=t, calc_time_s=time,
                             calc_time_min_s=time * 0.9, calc_time_max_s=time * 1.2))
    return pd.DataFrame(rows)


def test_prediction_vs_actual_draws_one_configuration_and_the_optima(test_frame):
    predictions = {"FiM": np.array([4.0, 2.0, 1.0, 8, 4, 2]), "RBASP": np.array([5.0, 3.0, 4.0, 9, 5, 4]),
                   "refused": np.full(6, np.nan)}
    fig = prediction_vs_actual(test_frame, predictions, {"iterations": 10, "clusters": 8, "points": 1000})
    measured = fig.data[0]
    assert list(measured.x) == [1, 2, 4] and list(measured.y) == [4.0, 2.5, 3.0]
    np.testing.assert_allclose(measured.error_y.array, [0.8, 0.5, 0.6])
    np.testing.assert_allclose(measured.error_y.arrayminus, [0.4, 0.25, 0.3])
    assert list(_trace(fig, "FiM").y) == [4.0, 2.0, 1.0] and list(_trace(fig, "RBASP").y) == [5.0, 3.0, 4.0]
    assert np.isnan(np.asarray(_trace(fig, "refused").y, dtype=float)).all()
    actual_opt = _trace(fig, "actual optimum")
    assert list(actual_opt.x) == [2] and list(actual_opt.y) == [2.5]
    predicted = _trace(fig, "predicted optima")
    assert list(predicted.x) == [4, 2] and list(predicted.y) == [1.0, 3.0]  # FiM at 4, RBASP at 2, none refused
    assert "FiM 4" in fig.layout.title.text and "refused –" in fig.layout.title.text
    # the other configuration, given as a tuple
    other = prediction_vs_actual(test_frame, predictions, (20, 8, 1000))
    assert list(other.data[0].y) == [8.0, 4.5, 4.0] and list(_trace(other, "actual optimum").x) == [4]


def test_prediction_vs_actual_errors(test_frame):
    with pytest.raises(ValidationError, match="no measured runs"):
        prediction_vs_actual(test_frame, {"m": np.ones(6)}, (99, 8, 1000))
    with pytest.raises(ValidationError, match="shape"):
        prediction_vs_actual(test_frame, {"m": np.ones(5)}, (10, 8, 1000))


def test_parity_figure_puts_every_test_run_against_its_prediction(test_frame):
    predicted = test_frame["calc_time_s"].to_numpy() * np.array([1.1, 1.3, 0.9, 1.0, 0.5, 1.19])
    comparison = compare_predictions(test_frame, {"FiM": predicted})
    fig = parity_figure(comparison)
    points = _trace(fig, "FiM")
    np.testing.assert_allclose(points.x, test_frame["calc_time_s"])
    np.testing.assert_allclose(points.y, predicted)
    lower, upper = fig.data[0], fig.data[1]
    np.testing.assert_allclose(np.asarray(lower.y) / np.asarray(lower.x), 0.8)
    np.testing.assert_allclose(np.asarray(upper.y) / np.asarray(upper.x), 1.2)
    np.testing.assert_allclose(_trace(fig, "predicted = actual").y, _trace(fig, "predicted = actual").x)
    assert "FiM 67 %" in fig.layout.title.text  # 4 of 6 within 20 % (errors 10, 30, 10, 0, 50, 19 %)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


# ---------------------------------------------------------------- Table 4


def test_table4_frame_puts_the_paper_beside_ours(test_frame):
    predicted = {"FiM": test_frame["calc_time_s"].to_numpy() * 1.1,
                 "RBASP": np.array([4.0, 3.0, 2.0, 8.0, 6.0, 5.0])}
    table = table4_frame(compare_predictions(test_frame, predicted))
    paper = table[table["source"] == "paper Table 4"].set_index("model")
    assert list(paper.index) == ["RBASP", "FiM"]
    assert paper.loc["FiM", ["best_pct", "average_pct", "worst_pct"]].tolist() == [0.42, 1.98, 10.87]
    assert paper.loc["RBASP", "predicted_optimal"] == "64" and paper.loc["FiM", "actual_optimal"] == "192"
    ours = table[table["source"].str.startswith("ours")].set_index("model")
    assert ours.loc["FiM", "average_pct"] == pytest.approx(10.0)
    assert ours.loc["FiM", "predicted_optimal"] == "2, 4" and ours.loc["FiM", "actual_optimal"] == "2, 4"
    assert ours.loc["RBASP", "predicted_optimal"] == "4, 4"  # its times fall with t in both
    assert ours.loc["FiM", "within_20_pct"] == 100.0
    assert len(table4_frame(apps=None)) == 16  # every application of the paper, two models each


def test_table4_figure_draws_each_row_as_a_range(test_frame):
    table = table4_frame(compare_predictions(test_frame, {"FiM": test_frame["calc_time_s"].to_numpy() * 1.1,
                                                          "none": np.full(6, np.nan)}))
    fig = table4_figure(table)
    assert len(fig.data) == 2 * len(table)
    first = fig.data[0]  # paper KM RBASP: best 1.61 ... worst 30.43
    assert list(first.x) == [1.61, 30.43] and fig.data[1].x[0] == 9.37
    assert "paper" in first.y[0] and "RBASP" in first.y[0]


def test_config_label():
    assert config_label({"iterations": 40, "clusters": 16, "points": 320000.0}) == "I=40, K=16, N=320000"
