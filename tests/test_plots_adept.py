"""Tests for workbench.plots.adept: traces, envelope band, PA labels, R metric, weights."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from workbench.errors import ModelWarning, ValidationError
from workbench.io import fetch_dataset, select_curve
from workbench.models import downey
from workbench.models.adept import Adept
from workbench.plots.adept import (
    cross_size_figure,
    fits_table,
    holdout_frame,
    prediction_figure,
    prediction_grid,
    r_metric_figure,
    speedup_reference,
    unit_pitfall_table,
    weights_figure,
)
from workbench.plots.layout import side_by_side
from workbench.ui.anomalies import synthetic_anomaly_frame
from workbench.views.adept import warnings_html

PREDICTION_TRACES = [
    "envelope (lowest bound)", "envelope", "prediction", "best instance", "runner-up instance",
    "ADEPT prediction", "base size", "guiding points", "observed (used)", "held back (actual)",
    "prediction at held-back n",
]


@pytest.fixture(scope="module")
def example_runs():
    runs = select_curve(fetch_dataset("synthetic-downey").frame, "downey-synthetic", "example")
    return runs["processes"].to_numpy(float), runs["time_s"].to_numpy(float)


@pytest.fixture(scope="module")
def fitted(example_runs):
    """ADEPT on the runs at n = 2..64 (no run on one processor); the others held back."""
    n, t = example_runs
    obs = (n >= 2) & (n <= 64)
    return Adept().fit(n[obs], t[obs]), (n[~obs], t[~obs])


def _trace(fig, prefix):
    matches = [tr for tr in fig.data if (tr.name or "").startswith(prefix)]
    assert matches, f"no trace named {prefix!r}*: {[tr.name for tr in fig.data]}"
    return matches[0]


@pytest.mark.parametrize("view", ["speedup", "runtime"])
def test_prediction_figure_has_fixed_traces_and_valid_band(fitted, view):
    model, actual = fitted
    fig = prediction_figure(model, actual, view=view)
    assert isinstance(fig, go.Figure)
    assert len(fig.data) == len(PREDICTION_TRACES)
    for trace, prefix in zip(fig.data, PREDICTION_TRACES):
        assert trace.name.startswith(prefix)
    grid = prediction_grid(model, actual[0])
    pred = fig.data[5]
    np.testing.assert_allclose(pred.x, grid)
    expected = model.predict_speedup(grid) if view == "speedup" else model.predict(grid)
    np.testing.assert_allclose(pred.y, expected)
    lo, hi = np.asarray(fig.data[0].y, float), np.asarray(fig.data[1].y, float)
    finite = np.isfinite(lo) & np.isfinite(hi)
    assert finite.sum() > len(grid) // 2
    assert np.all(lo[finite] <= hi[finite] * (1 + 1e-12))
    assert fig.data[1].fill == "tonexty"
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.yaxis.type == ("log" if view == "runtime" else None)
    # single-size fit: no base, no guiding points; every observation drawn once
    assert len(fig.data[6].x) == 0 and len(fig.data[7].x) == 0
    assert len(fig.data[8].x) == len(model.observations_)
    assert len(fig.data[9].x) == len(np.unique(actual[0]))


def test_pa_labels_and_holdout_frame_hand_case(fitted):
    """Actual runtimes 1.25x and 0.8x the prediction: E = 20 % and 25 %, PA = 80 % and 75 %."""
    model, _ = fitted
    targets = np.array([128.0, 256.0])
    pred = model.predict(targets)
    actual = (targets, pred * np.array([1.25, 0.8]))
    h = holdout_frame(model, actual)
    np.testing.assert_allclose(h["error_pct"], [20.0, 25.0])
    np.testing.assert_allclose(h["accuracy_pct"], [80.0, 75.0])
    np.testing.assert_allclose(h["prediction"], pred)
    fig = prediction_figure(model, actual, view="runtime")
    held = _trace(fig, "held back")
    assert list(held.text) == ["PA 80%", "PA 75%"]
    np.testing.assert_allclose(held.y, actual[1])
    np.testing.assert_allclose(_trace(fig, "prediction at held-back").y, pred)
    assert "mean PA 78%" in fig.layout.title.text


def test_holdout_frame_averages_repeats_and_accepts_no_actual(fitted):
    model, _ = fitted
    p = model.predict([128.0])[0]
    h = holdout_frame(model, ([128.0, 128.0], [p * 0.5, p * 1.5]))  # mean = p: E = 0
    assert len(h) == 1 and h["error_pct"].iloc[0] == pytest.approx(0.0, abs=1e-9)
    assert holdout_frame(model, None).empty
    assert len(prediction_figure(model, None).data) == len(PREDICTION_TRACES)


def test_speedup_view_with_a_measured_t1_is_t1_over_the_runtime_view():
    """With a run on 1 processor every speedup is t(1)/runtime: observed exactly t(1)/t(n)."""
    n = np.array([1.0, 2.0, 4.0, 8.0])
    t = 3.0 * downey.runtime(n, 20.0, 0.5)
    model = Adept().fit(n, t)
    t1, how = speedup_reference(model)
    assert t1 == t[0] and "measured" in how
    actual = (np.array([16.0, 32.0]), 3.0 * downey.runtime(np.array([16.0, 32.0]), 20.0, 0.5))
    speed = prediction_figure(model, actual, view="speedup")
    runtime = prediction_figure(model, actual, view="runtime")
    np.testing.assert_allclose(_trace(speed, "observed").y, t[0] / t)
    for i in (0, 1, 5, 9, 10):  # envelope, prediction, held back, predictions there
        lo_or_y = np.asarray(speed.data[i].y, float)
        other = runtime.data[1 - i if i < 2 else i].y  # the band's bounds swap under 1/x
        np.testing.assert_allclose(lo_or_y, t[0] / np.asarray(other, float))


def test_speedup_reference_without_t1_is_adepts_prediction_for_one(fitted):
    model, _ = fitted
    t1, how = speedup_reference(model)
    assert t1 == pytest.approx(model.predict([1.0])[0])
    assert "no run on 1 processor" in how
    fig = prediction_figure(model, None, view="speedup")
    obs = model.observations_
    np.testing.assert_allclose(_trace(fig, "observed").y, t1 / obs["t"].to_numpy())


def test_runner_up_instances_are_drawn_dashed(example_runs):
    """Four runs in the linear section leave A unconstrained: ADEPT reports runner-ups
    (Table 3); the figure draws the best and runner-up instance of the largest such target."""
    n, t = example_runs
    obs = n <= 4
    model = Adept().fit(n[obs], t[obs])
    grid = prediction_grid(model)
    e = model.explain(grid)
    with_ru = e[e["runner_up_A"].notna()]
    assert len(with_ru), "precondition: this example has runner-up instances"
    row = with_ru.sort_values("target").iloc[-1]
    fig = prediction_figure(model, None, view="runtime")
    best, ru = fig.data[3], fig.data[4]
    assert best.line.dash == "dot" and ru.line.dash == "dash"
    assert f"n* = {row['target']:g}" in ru.name
    np.testing.assert_allclose(best.y, row["scale"] * downey.runtime(grid, row["A"], row["sigma"]))
    shape = np.asarray(ru.y, float) / downey.runtime(grid, row["runner_up_A"], row["runner_up_sigma"])
    np.testing.assert_allclose(shape, shape[0])  # the runner-up instance, at its own time scale


def test_prediction_figure_rejects_bad_view_and_pairs(fitted):
    model, actual = fitted
    with pytest.raises(ValidationError, match="view"):
        prediction_figure(model, actual, view="efficiency")
    with pytest.raises(ValidationError, match="pair"):
        prediction_figure(model, np.ones(3))


def test_fits_table_one_row_per_target(fitted):
    model, _ = fitted
    table = fits_table(model, [2, 64, 64, 128])
    assert table["target n"].tolist() == [2.0, 64.0, 128.0]
    assert {"A", "σ", "τ", "WSSRE", "fixed point n", "runner-up A"} <= set(table.columns)
    np.testing.assert_allclose(table["predicted t"], model.predict([2.0, 64.0, 128.0]))


def test_r_metric_figure_hand_computed_values():
    """Ideal linear speedup on doubling allocations: R = 1 * (1 + 1/2) = 1.5 for every pair."""
    n = np.array([1.0, 2.0, 4.0, 8.0])
    model = Adept().fit(n, 16.0 / n)
    fig = r_metric_figure(model.anomalies_, epsilon=0.1)
    np.testing.assert_allclose(fig.data[0].x, [2.0, 4.0, 8.0])
    np.testing.assert_allclose(fig.data[0].y, [1.5, 1.5, 1.5])
    threshold = np.asarray(fig.data[1].y, float)
    np.testing.assert_allclose(threshold[np.isfinite(threshold)], 1.65)
    np.testing.assert_allclose(np.asarray(fig.data[1].x, float)[np.isfinite(threshold)], [2.0, 4.0, 4.0, 8.0])
    assert len(fig.data[2].x) == 0 and len(fig.data[3].x) == 0 and len(fig.data) == 4


def test_r_metric_figure_highlights_candidates_and_removals():
    f = synthetic_anomaly_frame()  # n = 1..128, run at 32 is 25 % too fast
    n, t = f["processes"].to_numpy(float)[:-1], f["time_s"].to_numpy(float)[:-1]
    model = Adept(epsilon=0.1).fit(n, t)
    fig = r_metric_figure(model.anomalies_, 0.1)
    assert sorted(fig.data[2].x) == [16.0, 32.0]
    assert list(fig.data[3].x) == [32.0]
    removals = [tr.name for tr in fig.data[4:]]
    assert [r.split(" (")[0] for r in removals] == ["without n = 16", "without n = 32"]
    assert fig.data[5].line.width > fig.data[4].line.width  # the chosen removal is drawn heavier
    R = model.anomalies_.r["R"].to_numpy()
    threshold = np.asarray(fig.data[1].y, float)
    np.testing.assert_allclose(threshold[np.isfinite(threshold)], np.repeat(1.1 * R[:-1], 2))


def test_weights_figure_hand_computed_relative_weights():
    """n = 1, 2, 4 and n* = 8, q = 2: W = 2*7 - |8 - n| = 7, 8, 10 -> 0.7, 0.8, 1."""
    n = np.array([1.0, 2.0, 4.0])
    model = Adept(q=2.0).fit(n, 5.0 * downey.runtime(n, 30.0, 0.4))
    fig = weights_figure(model, target=8.0)
    np.testing.assert_allclose(fig.data[0].y, [1.0, 1.0, 1.0])
    np.testing.assert_allclose(fig.data[1].y, [0.7, 0.8, 1.0])
    assert list(fig.data[0].x) == ["n=1", "n=2", "n=4"]


def test_weights_figure_shows_the_anomaly_factor():
    f = synthetic_anomaly_frame()
    n, t = f["processes"].to_numpy(float)[:-1], f["time_s"].to_numpy(float)[:-1]
    model = Adept(epsilon=0.1, theta=5.0).fit(n, t)
    D = model.anomalies_.anomalies.set_index("n")["D"][32.0]
    fig = weights_figure(model, target=128.0)
    factor = dict(zip(fig.data[0].x, fig.data[0].y))
    assert factor["n=32"] == pytest.approx(max(0.0, (5.0 - D) / 5.0))
    assert factor["n=16"] == 1.0
    assert len(weights_figure(model).data[1].x) == 0


def test_cross_size_figure_shows_base_and_guiding_points():
    sizes = fetch_dataset("synthetic-cross-size").frame
    base = select_curve(sizes, "downey-synthetic", "small")
    target = select_curve(sizes, "downey-synthetic", "large")
    obs = target["processes"] <= 2
    base_nt = (base["processes"].to_numpy(float), base["time_s"].to_numpy(float))
    model = Adept().fit(target["processes"][obs], target["time_s"][obs], base=base_nt)
    actual = (target["processes"][~obs].to_numpy(float), target["time_s"][~obs].to_numpy(float))
    fig = cross_size_figure(model, base_nt, actual)
    np.testing.assert_allclose(_trace(fig, "base size").y, base_nt[1])
    guides = model.observations_[model.observations_["kind"] == "guiding"]
    np.testing.assert_allclose(_trace(fig, "guiding").y, guides["t"])
    np.testing.assert_allclose(guides["t"], base_nt[1][2:] * model.ratio_)  # t_base(n) * R, 3.12
    assert f"R = {model.ratio_:.3g}" in fig.layout.title.text
    speed = cross_size_figure(model, base_nt, actual, view="speedup")
    t1, _ = speedup_reference(model)
    np.testing.assert_allclose(_trace(speed, "base size").y, t1 / (base_nt[1] * model.ratio_))
    with pytest.raises(ValidationError, match="base"):
        cross_size_figure(Adept().fit([1, 2, 4], [4.0, 2.2, 1.3]), base_nt)


def test_warnings_html_escapes_and_abridges():
    warnings = [
        ModelWarning("high-fit-error", "error <10%> & more", targets=tuple(float(v) for v in range(1, 20))),
        ModelWarning("runner-up", "two instances", suggested_n=225.0),
    ]
    out = warnings_html(warnings)
    assert "&lt;10%&gt; &amp; more" in out and "<10%>" not in out
    assert "(19 targets)" in out and "measure at n = 225" in out
    assert out.count("<li>") == 2
    assert "no warnings" in warnings_html([])


def test_side_by_side_keeps_traces_and_axes(fitted):
    model, actual = fitted
    left, right = prediction_figure(model, actual, view="runtime"), weights_figure(model, 128.0)
    fig = side_by_side([left, right], titles=["a", "b"])
    assert len(fig.data) == len(left.data) + len(right.data)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis2.type != "log" and tuple(fig.layout.yaxis2.range) == (0, 1.05)
    assert {tr.xaxis for tr in fig.data[len(left.data):]} == {"x2"}


def test_unit_pitfall_table_fit_mode_is_unit_free_paper_mode_is_not(example_runs):
    n, t = example_runs
    obs = np.isin(n, [2, 4, 8, 16, 32, 64])
    table = unit_pitfall_table(n[obs], t[obs], target=128).set_index(["units", "time unit"])
    fit_s, fit_ms = table.loc[("fit", "s")], table.loc[("fit", "ms")]
    for col in ("A", "σ", "τ [s]", "predicted S", "predicted t [s]"):
        assert fit_ms[col] == pytest.approx(fit_s[col], rel=1e-6)
    assert table.loc[("paper", "s"), "τ [s]"] == 1.0 and table.loc[("paper", "ms"), "τ [s]"] == 1e-3
    assert table.loc[("paper", "ms"), "A"] != pytest.approx(table.loc[("paper", "s"), "A"], rel=0.05)
