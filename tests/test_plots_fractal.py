"""Figures of the fractal model (workbench.plots.fractal): the data in the traces, on a
SYNTHETIC power-law profile whose fits are exact, and on Table 1."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.evaluation.fractal import demo_experiment, synthetic_profile, table1_check
from workbench.plots.fractal import OTHER, loglog_figure, prediction_figure, shares_figure, table1_figure


@pytest.fixture(scope="module")
def exp():
    return demo_experiment(synthetic_profile(), 400, C=40, delta=40, k=4)  # SYNTHETIC, exact power laws


def _named(fig, prefix):
    matches = [tr for tr in fig.data if (tr.name or "").startswith(prefix)]
    assert matches, f"no trace named {prefix!r}*: {[tr.name for tr in fig.data]}"
    return matches[0]


def test_shares_are_stacked_major_phases_then_the_rest(exp):
    fig = shares_figure(exp.shares, exp.phases, threshold=0.7, convergence_size=40, sizes=exp.sizes,
                        target_size=400)
    solve, sweep, other = fig.data[:3]
    assert [solve.name, sweep.name, other.name] == ["solve", "sweep", OTHER]
    assert solve.stackgroup == sweep.stackgroup == other.stackgroup
    x = np.asarray(solve.x)
    np.testing.assert_array_equal(x, [40, 60, 80, 100, 120, 140, 160, 180, 200, 400])
    # share at N = 100: solve 1.0 / 1.785 s, the stack closes at 1
    assert solve.y[3] == pytest.approx(1.0 / (1.7 * 1.05))
    np.testing.assert_allclose(np.asarray(solve.y) + np.asarray(sweep.y) + np.asarray(other.y), 1.0)
    threshold = _named(fig, "threshold 70%")
    assert list(threshold.y) == [0.7, 0.7]
    assert list(_named(fig, "C = 40").x) == [40, 40]
    used = _named(fig, "N_i fitted (4)")
    np.testing.assert_array_equal(used.x, [80, 120, 160, 200])
    np.testing.assert_allclose(used.y, (np.asarray(solve.y) + np.asarray(sweep.y))[[2, 4, 6, 8]])
    assert list(_named(fig, "N_Lrg = 400").x) == [400, 400]
    assert fig.layout.xaxis.type == "linear"  # 40..400 spans a factor of 10


def test_loglog_points_line_and_extrapolation(exp):
    actual = dict(zip(exp.comparison["phase"], exp.comparison["actual_s"]))
    fig = loglog_figure(exp.prediction.phase_fits, actual=actual, measured=exp.shares)
    assert len(fig.data) == 1 + 5 * 2  # grey unfitted sizes, then 5 traces per phase
    rest = fig.data[0]
    # solve and sweep at the 5 sizes that were not fitted (40, 60, 100, 140, 180)
    assert len(rest.x) == 10
    np.testing.assert_allclose(sorted(set(np.round(np.exp(rest.x) * 400, 9))), [40, 60, 100, 140, 180])
    points, line, ahead, pred, measured = fig.data[1:6]
    np.testing.assert_allclose(points.x, np.log(np.array([80, 120, 160, 200]) / 400))
    np.testing.assert_allclose(points.y, np.log(1e-6 * np.array([80, 120, 160, 200]) ** 3))
    assert line.name == "solve: m = 3.000"
    np.testing.assert_allclose(line.x, np.log([80 / 400, 200 / 400]))  # the fitted span
    assert list(ahead.x) == [line.x[1], 0.0] and ahead.line.dash == "dash"  # extended to x = 0
    assert ahead.y[-1] == pytest.approx(math.log(64.0))  # b = ln(1e-6 * 400^3 s)
    assert pred.x == (0.0,) and pred.y[0] == pytest.approx(math.log(64.0))
    assert measured.y[0] == pytest.approx(math.log(64.0)) and "measured 64 s" in measured.name
    assert [a.text for a in fig.layout.annotations] == ["m = 3.00", "m = 2.00"]


def test_loglog_band_as_error_bars_and_none_without_measurement():
    e = demo_experiment(synthetic_profile(noise=0.05, runs=2, seed=4), 300, C=40, delta=40, k=4)  # no run at 300
    fig = loglog_figure(e.prediction.phase_fits, actual=dict(zip(e.comparison["phase"], e.comparison["actual_s"])))
    points, line, ahead, pred, measured = fig.data[:5]
    low, high = e.prediction.phase_fits["solve"].band
    assert pred.error_y.visible
    assert pred.error_y.array[0] == pytest.approx(math.log(high) - pred.y[0])
    assert pred.error_y.arrayminus[0] == pytest.approx(pred.y[0] - math.log(low))
    assert len(measured.x) == 0 and measured.name == "solve: measured: none"


def test_prediction_bars_with_band_and_error(exp):
    fig = prediction_figure(exp.comparison, 400)
    pred, actual = fig.data
    assert list(pred.x) == ["solve", "sweep", "total"]
    np.testing.assert_allclose(pred.y, exp.comparison["predicted_s"])
    np.testing.assert_allclose(actual.y, [64.0, 8.0, 1.05 * 72.8])
    texts = [a.text for a in fig.layout.annotations]
    assert texts[:2] == ["error 0.0 %", "error 0.0 %"]
    assert texts[2] == f"error {exp.error_total_pct:.1f} %"
    assert "overall error" in fig.layout.title.text and "N_Lrg = 400" in fig.layout.title.text


def test_table1_figure_brackets_and_published_values():
    check = table1_check()
    fig = table1_figure(check)
    bracket, published, actual = fig.data
    assert len(bracket.x) == 10 and bracket.x[0] == "8 cores comd-ljforce"
    np.testing.assert_allclose(bracket.y, 1.0)  # relative to e^b
    np.testing.assert_allclose(np.asarray(bracket.error_y.array), math.exp(0.05) - 1)
    np.testing.assert_allclose(np.asarray(bracket.error_y.arrayminus), 1 - math.exp(-0.05))
    eb = np.exp(check["b"]) / 1000
    np.testing.assert_allclose(published.y, check["published_predicted_s"] / eb)
    assert published.y[0] == pytest.approx(5109.9 / 4876.80, rel=1e-5)  # comd 8 cores: 1.048 < 1.051
    np.testing.assert_allclose(actual.y, check["published_actual_s"] / eb)
    assert (np.abs(np.log(published.y)) <= 0.05).all()
    assert "10 of 10 rows" in fig.layout.title.text
