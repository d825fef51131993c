"""FiM-Cal regression mapping (Eq. 11), Eq. 12, Algorithm 1 and RBASP (Eq. 17)."""

import itertools

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.models.fim import RBASP, FiMCal, HardwareRegression, calculation_time, calibrate_alpha, markov_times

F = 3.0e9
FEATURES = ("iterations", "clusters", "points")


def synthetic_runs(scale=1.3, processes=(1, 2, 4)):
    """Runs whose hardware variables are exactly linear in (I, K, N) and whose times are
    the paper's Markov model times ``scale`` times."""
    rows = []
    for i, k, n in itertools.product([10, 20, 40], [8, 16], [1e4, 2e4, 4e4]):
        tc = 5e7 + 2e6 * i + 3e6 * k + 1e3 * n
        for t in processes:
            rows.append(dict(iterations=i, clusters=k, points=n, processes=t, cycles=tc, stall_cycles=0.2 * tc,
                             utilization=0.6, freq_hz=F, calc_time_s=scale * calculation_time(t, tc, F)))
    return pd.DataFrame(rows)


def sequential_algorithm_1(hardware, t, actual, alpha, epsilon, tau, max_iter):
    """Algorithm 1 step by step (relative RMS, neglecting invalid rows)."""
    direction = 0
    for it in range(max_iter + 1):
        pred = markov_times(alpha * hardware, t, F)
        ok = np.isfinite(pred)
        if ok.any():
            if direction == 0:
                direction = 1 if np.mean(actual[ok] - pred[ok]) > 0 else -1
            rms = np.sqrt(np.mean(((pred[ok] - actual[ok]) / actual[ok]) ** 2))
            if rms < tau:
                return alpha, it
        elif direction == 0:
            direction = -1 if np.any(alpha * hardware[:, 2] > 1) else 1
        alpha += direction * epsilon
    return None, max_iter


def test_regression_recovers_linear_coefficients():
    runs = synthetic_runs()
    reg = HardwareRegression(FEATURES).fit(runs[runs.processes == 1])
    np.testing.assert_allclose(reg.coef_.loc["cycles"].to_numpy(), [5e7, 2e6, 3e6, 1e3], rtol=1e-8)
    np.testing.assert_allclose(reg.coef_.loc["utilization"].to_numpy(), [0.6, 0, 0, 0], atol=1e-9)
    assert reg.r2_["cycles"] == pytest.approx(1.0)
    # Eq. 12: every hardware variable scales with alpha
    new = pd.DataFrame({"iterations": [100], "clusters": [64], "points": [1e6]})
    np.testing.assert_allclose(reg.predict(new, alpha=2.0).to_numpy(), 2 * reg.predict(new).to_numpy())
    assert reg.predict(new)["cycles"].iloc[0] == pytest.approx(5e7 + 2e8 + 1.92e8 + 1e9)


def test_product_feature():
    runs = synthetic_runs()
    runs["cycles"] = 7.0 * runs.iterations * runs.clusters * runs.points
    reg = HardwareRegression(("iterations*clusters*points",)).fit(runs)
    assert reg.coef_.loc["cycles", "iterations*clusters*points"] == pytest.approx(7.0)


def test_alpha_walk_hand_case():
    # one run at t = 1 measured 1.5x slower than the Markov model says: with relative RMS
    # the walk stops at the first alpha with |alpha/1.5 - 1| < tau
    tc = 3e9
    result = calibrate_alpha(np.array([[tc, 0.2 * tc, 0.5]]), [1], [1.5 * tc / F], F,
                             alpha_init=1.0, epsilon=1e-3, tau=0.0125)
    assert result.converged and result.direction == 1
    assert result.iterations == 482  # alpha = 1.482: error 1.2 % < 1.25 %; 1.481: 1.27 %
    assert result.alpha == pytest.approx(1.482)
    assert result.rms < 0.0125
    assert result.trace["alpha"].iloc[-1] == pytest.approx(result.alpha)


def test_alpha_walk_goes_down_when_predictions_are_too_slow():
    tc = 3e9
    result = calibrate_alpha(np.array([[tc, 0.2 * tc, 0.9]]), [2], [0.8 * calculation_time(2, tc, F)], F,
                             epsilon=1e-3, tau=0.005)
    assert result.direction == -1
    assert result.alpha == pytest.approx(0.804, abs=1.1e-3)


@pytest.mark.parametrize("alpha_init", [0.0, 0.5, 1.0, 2.0])
def test_vectorised_walk_equals_the_sequential_algorithm(alpha_init):
    runs = synthetic_runs(scale=1.25)
    noise = np.random.default_rng(1).normal(1, 0.005, len(runs))
    hardware = HardwareRegression(FEATURES).fit(runs[runs.processes == 1]).predict(runs).to_numpy()
    t, actual = runs.processes.to_numpy(float), runs.calc_time_s.to_numpy() * noise
    got = calibrate_alpha(hardware, t, actual, F, alpha_init=alpha_init, epsilon=1e-3, tau=0.01, max_iter=3000)
    want_alpha, want_iter = sequential_algorithm_1(hardware, t, actual, alpha_init, 1e-3, 0.01, 3000)
    assert got.converged
    assert got.iterations == want_iter
    assert got.alpha == pytest.approx(want_alpha, abs=1e-9)


def test_non_convergence_is_reported_with_the_best_alpha():
    tc = 3e9
    hardware = np.array([[tc, 0.2 * tc, 0.5], [tc, 0.2 * tc, 0.5]])
    actual = np.array([tc / F, 2 * tc / F])  # same configuration, two different times
    result = calibrate_alpha(hardware, [1, 1], actual, F, epsilon=1e-3, tau=0.01, max_iter=2000)
    assert not result.converged
    # the walk stops where alpha * U passes 1.02 (alpha = 2.04), long before max_iter
    assert 1040 <= result.iterations <= 1042
    assert any("did not reach RMS < tau" in w for w in result.warnings)
    # relative errors (a - 1, a/2 - 1): (a-1)^2 + (a/2-1)^2 is smallest at 2.5 a = 3
    assert result.alpha == pytest.approx(1.2, abs=1e-3)


def test_eq12_caps_alpha_below_one_over_u():
    tc = 3e9
    hardware = np.array([[tc, 0.2 * tc, 0.9]])
    capped = calibrate_alpha(hardware, [1], [1.5 * tc / F], F, epsilon=1e-3, max_iter=1000)
    assert not capped.converged
    # a fully busy process is U up to 1 + U_TOLERANCE (timer granularity), so alpha <= 1.02 / U
    assert capped.alpha == pytest.approx(1.02 / 0.9, abs=1e-3)
    assert any("alpha cannot usefully exceed 1.133" in w for w in capped.warnings)
    assert capped.iterations < 1000  # the walk stops once alpha * U is past 1.02 for every run
    free = calibrate_alpha(hardware, [1], [1.5 * tc / F], F, epsilon=1e-3, tau=0.0125, max_iter=1000,
                           scale_utilization=False)
    assert free.converged and free.alpha == pytest.approx(1.482)


def test_invalid_predictions_are_neglected():
    tc = 3e9
    hardware = np.array([[tc, 0.2 * tc, 0.55], [tc, 0.2 * tc, 0.1]])
    actual = np.array([1.9 * tc / F, 1.9 * tc / F])
    result = calibrate_alpha(hardware, [1, 1], actual, F, epsilon=1e-3, tau=0.01)
    # alpha ~ 1.88 makes alpha * U = 1.03 > 1 for the first run: it is neglected
    assert result.converged and result.neglected == 1
    assert result.alpha == pytest.approx(1.882, abs=2e-3)
    assert any("neglected" in w for w in result.warnings)


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(epsilon=0.0), "epsilon must be > 0"),
    (dict(tau=-1.0), "tau must be > 0"),
    (dict(error="median"), "error must be 'relative' or 'absolute'"),
    (dict(model="queue"), "model must be one of"),
    (dict(max_iter=0), "max_iter must be >= 1"),
])
def test_calibration_rejects_bad_settings(kwargs, message):
    with pytest.raises(ValidationError, match=message):
        calibrate_alpha(np.array([[3e9, 6e8, 0.9]]), [1], [1.0], F, **kwargs)


def test_fimcal_recovers_the_generating_alpha_and_extrapolates():
    runs = synthetic_runs(scale=1.3)
    model = FiMCal(FEATURES, epsilon=1e-4, tau=1e-3).fit(runs)
    assert model.calibration_.converged
    assert model.alpha_ == pytest.approx(1.3, rel=2e-3)
    big = pd.DataFrame({"iterations": [100] * 3, "clusters": [64] * 3, "points": [1e6] * 3, "processes": [1, 8, 64]})
    tc = 5e7 + 2e8 + 1.92e8 + 1e9
    want = 1.3 * calculation_time(np.array([1, 8, 64]), tc, F)
    np.testing.assert_allclose(model.predict(big), want, rtol=2e-3)
    assert model.freq_hz_ == F


def test_fimcal_barrier_model_runs_and_is_slower_at_scale():
    runs = synthetic_runs(scale=1.0)
    paper = FiMCal(FEATURES, epsilon=1e-2, max_iter=100).fit(runs)
    barrier = FiMCal(FEATURES, model="barrier", stages="iterations", epsilon=1e-2, max_iter=100).fit(runs)
    big = pd.DataFrame({"iterations": [40] * 2, "clusters": [16] * 2, "points": [4e4] * 2, "processes": [1, 64]})
    ratio = barrier.predict(big) / paper.predict(big)
    assert ratio[1] > ratio[0]


def _bad(column, value):
    runs = synthetic_runs()
    runs.loc[3, column] = value
    return runs


@pytest.mark.parametrize(("runs", "message"), [
    (_bad("utilization", 1.5), "'utilization' .U. must be in \\[0, 1\\]"),
    (_bad("utilization", -0.1), "must be in \\[0, 1\\]"),
    (_bad("stall_cycles", 1e12), "'stall_cycles' .SC. must be smaller than 'cycles' .TC."),
    (_bad("calc_time_s", 0.0), "must be > 0"),
    (_bad("cycles", np.nan), "column 'cycles' must be numeric and finite"),
    (synthetic_runs().drop(columns="stall_cycles"), "missing column.s. \\['stall_cycles'\\]"),
    (synthetic_runs().iloc[:0], "the frame is empty"),
    (synthetic_runs(processes=(2, 4)), "no training runs with processes == 1"),
    (synthetic_runs().assign(cycles=np.nan, stall_cycles=np.nan), "no hardware counters in the runs"),
    (synthetic_runs().iloc[:3], "cannot determine 4 coefficients"),
])
def test_fimcal_rejects_bad_training_data(runs, message):
    with pytest.raises(ValidationError, match=message):
        FiMCal(FEATURES).fit(runs)


def test_fimcal_clips_u_just_above_one_with_a_warning():
    runs = _bad("utilization", 1.01)
    model = FiMCal(FEATURES, epsilon=1e-2, max_iter=50).fit(runs)
    assert any("clipped to 1" in w.message for w in model.warnings_)


def test_rbasp_recovers_eq17_exactly():
    rows = []
    for i, k, q in itertools.product([10, 20, 40], [8, 16, 32], [1, 2, 4]):
        rows.append(dict(iterations=i, clusters=k, processes=q,
                         calc_time_s=2.0 ** (1.0 + 0.05 * i + 0.02 * k - 0.4 * q + 0.03 * q * q)))
    runs = pd.DataFrame(rows)
    quad = RBASP(("iterations", "clusters"), g="quadratic").fit(runs)
    np.testing.assert_allclose(quad.coef_.to_numpy(), [1.0, 0.05, 0.02, -0.4, 0.03], atol=1e-9)
    new = pd.DataFrame({"iterations": [80], "clusters": [64], "processes": [16]})
    assert quad.predict(new)[0] == pytest.approx(2.0 ** (1 + 4 + 1.28 - 6.4 + 7.68))
    lin = RBASP(("iterations", "clusters"), g="linear").fit(runs)
    assert lin.residual_std_ > 0 and lin.train_rows_ == 27
    # runs at q outside train_processes are ignored
    more = pd.concat([runs, runs.assign(processes=8, calc_time_s=1e6)])
    np.testing.assert_allclose(RBASP(("iterations", "clusters"), g="quadratic").fit(more).coef_, quad.coef_)


def test_rbasp_log_features_fit_a_power_law():
    rows = [dict(points=n, processes=q, calc_time_s=3.0 * n**1.5 / q) for n in (1e3, 1e4, 1e5) for q in (1, 2, 4)]
    model = RBASP(("points",), log_features=True).fit(pd.DataFrame(rows))
    np.testing.assert_allclose(model.coef_.to_numpy(), [np.log2(3.0), 1.5, -1.0], atol=1e-9)


@pytest.mark.parametrize(("kwargs", "runs", "message"), [
    (dict(g="cubic"), None, "g must be 'linear' or 'quadratic'"),
    (dict(g="quadratic", train_processes=(1, 2)), None, "needs runs at >= 3 distinct process counts"),
    (dict(), "one-config", "cannot determine"),
])
def test_rbasp_errors(kwargs, runs, message):
    frame = synthetic_runs()
    if runs == "one-config":
        frame = frame[(frame.iterations == 10) & (frame.clusters == 8) & (frame.points == 1e4)]
    with pytest.raises(ValidationError, match=message):
        RBASP(FEATURES, **kwargs).fit(frame)
