"""Tests for workbench.plots.scaling: the prediction figure's fixed traces, bands and log
axes on Amdahl-generated runtimes; the tables; the leaderboard aggregation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from workbench.errors import ValidationError
from workbench.models.scaling import MODELS, ScalingPredictor
from workbench.plots.scaling import (
    MODEL_LABELS,
    allocation_grid,
    format_seconds,
    holdout_frame,
    prediction_curves,
    prediction_figure,
    prediction_title,
    protocol_figure,
    weights_frame,
)
from workbench.views.predict import warnings_html, weights_html

N_ALL = np.array([1, 2, 4, 8, 16, 32, 64], float)
N_TRACES = 2 * len(MODELS) + 7


def amdahl_runs(n, serial=0.05, t1=100.0, noise=0.02):
    """Amdahl runtimes with a fixed +-noise pattern (deterministic)."""
    pattern = np.resize([1.0, -0.6, 0.3, -1.0, 0.8], len(n))
    return t1 * (serial + (1 - serial) / n) * (1 + noise * pattern)


@pytest.fixture(scope="module")
def runs():
    t = amdahl_runs(N_ALL)
    obs = N_ALL <= 8
    return (N_ALL[obs], t[obs]), (N_ALL[~obs], t[~obs])


@pytest.fixture(scope="module")
def predictor(runs):
    return ScalingPredictor().fit(*runs[0])


@pytest.fixture(scope="module")
def figure(predictor, runs):
    return prediction_figure(predictor, 64, observed=runs[0], held_back=runs[1], unit="nodes")


def _named(fig, name):
    matches = [tr for tr in fig.data if tr.name == name]
    assert len(matches) == 1, f"{name!r} in {[tr.name for tr in fig.data]}"
    return matches[0]


def test_prediction_figure_traces_bands_and_log_axes(figure, predictor):
    assert isinstance(figure, go.Figure) and len(figure.data) == N_TRACES
    names = [tr.name for tr in figure.data]
    bands = [tr for tr in figure.data if tr.name.endswith(" band")]
    assert [b.name for b in bands] == [f"{MODEL_LABELS[m]} band" for m in (*MODELS, "predictor")]
    assert all(b.fill == "toself" for b in bands)
    assert all(len(b.x) > 0 for b in bands)  # every model fitted on clean Amdahl data
    # the predictor's band is highlighted: more opaque than any model's
    alpha = lambda tr: float(tr.fillcolor.rsplit(",", 1)[1].rstrip(")"))  # noqa: E731
    assert alpha(bands[-1]) > max(alpha(b) for b in bands[:-1])
    for m in MODELS:
        w = 100 * predictor.weights_[m]
        assert f"{MODEL_LABELS[m]} (w = {w:.0f} %)" in names
    assert names[-5:] == ["observed runs (fitted)", "held back (actual)", "target", "80 % interval at the target",
                          "prediction at the target"]
    assert figure.layout.xaxis.type == "log" and figure.layout.yaxis.type == "log"
    assert "nodes" in figure.layout.xaxis.title.text
    assert list(_named(figure, "observed runs (fitted)").x) == [1, 2, 4, 8]
    assert list(_named(figure, "held back (actual)").x) == [16, 32, 64]


def test_target_is_marked_with_the_predictors_interval(figure, predictor):
    row = predictor.predict_frame([64]).iloc[0]
    assert list(_named(figure, "target").x) == [64, 64]
    bar = _named(figure, "80 % interval at the target")
    assert np.allclose(bar.y, [row["lower"], row["upper"]])
    assert np.allclose(_named(figure, "prediction at the target").y, [row["prediction"]])
    title = figure.layout.title.text
    assert title.startswith(f"at n = 64 nodes: {row['prediction']:.3g} s (80 % interval ")
    assert f"{row['lower']:.3g} – {row['upper']:.3g} s" in title
    lo, hi = figure.layout.yaxis.range  # the runs and the target's interval are in view
    assert 10**lo < min(row["lower"], amdahl_runs(N_ALL).min()) and 10**hi > row["upper"]


def test_only_target_traces_change_with_the_target(predictor, runs):
    grid = allocation_grid(1, 1024)
    curves = prediction_curves(predictor, grid)
    a = prediction_figure(predictor, 20, observed=runs[0], held_back=runs[1], curves=curves)
    b = prediction_figure(predictor, 300, observed=runs[0], held_back=runs[1], curves=curves)
    changed = [ta.name for ta, tb in zip(a.data, b.data) if not np.array_equal(np.asarray(ta.y, float),
                                                                                 np.asarray(tb.y, float))
               or not np.array_equal(np.asarray(ta.x, float), np.asarray(tb.x, float))]
    target_traces = {"target", "80 % interval at the target", "prediction at the target"}
    assert target_traces - {"target"} <= set(changed) <= target_traces  # model curves stay put
    assert list(b.data[-3].x) == [300, 300] and a.layout.title.text != b.layout.title.text


def test_unselected_models_are_empty_invisible_traces(predictor, runs):
    fig = prediction_figure(predictor, 64, observed=runs[0], models=["amdahl"])
    assert len(fig.data) == N_TRACES  # same trace list, so a live figure updates in place
    hidden = [tr for tr in fig.data if tr.visible is False]
    assert len(hidden) == 2 * (len(MODELS) - 1) and all(len(tr.x) == 0 for tr in hidden)
    assert _named(fig, "predictor (weighted)").visible


def test_level_widens_the_bands(predictor):
    grid = allocation_grid(1, 256)
    narrow, wide = prediction_curves(predictor, grid, 0.5), prediction_curves(predictor, grid, 0.95)
    assert set(narrow["model"]) == {*MODELS, "predictor"}
    assert list(narrow.columns) == ["model", "n", "prediction", "lower", "upper"]
    ratio = lambda c: np.log(c["upper"] / c["lower"]).to_numpy()  # noqa: E731
    assert np.all(ratio(wide) > ratio(narrow))
    assert np.allclose(narrow["prediction"], wide["prediction"])


def test_allocation_grid_and_formatting():
    grid = allocation_grid(2, 4096, points=30)
    assert grid[0] == 2 and grid[-1] == 4096 and np.all(np.diff(grid) > 0) and len(grid) <= 30
    assert format_seconds(12.345) == "12.3 s" and "min" in format_seconds(600) and "h" in format_seconds(7200)
    assert format_seconds(float("nan")) == "–"


def test_tables(predictor, runs):
    w = weights_frame(predictor)
    assert list(w["model"]) == list(MODELS) and w["weight"].sum() == pytest.approx(1.0)
    assert w["status"].str.startswith("fitted").all()
    assert ((w["status"] == "fitted") == (w["weight"] >= 1e-3)).all()
    chosen = predictor.predict_frame([64]).iloc[0]["model"]
    html = weights_html(w, chosen)
    assert f"{MODEL_LABELS[chosen]} ◀ chosen" in html and html.count("◀ chosen") == 1

    hold = holdout_frame(predictor, (np.array([16, 16, 32]), np.array([10.0, 12.0, 8.0])))
    assert list(hold["n"]) == [16, 32] and list(hold["actual"]) == [11.0, 8.0]  # repeats: median
    assert np.allclose(hold["error_pct"], 100 * np.abs(hold["prediction"] - hold["actual"]) / hold["actual"])
    assert holdout_frame(predictor, None).empty


def test_warnings_html_says_each_kind_in_words(predictor):
    frame = predictor.predict_frame([4096])
    kinds = frame.iloc[0]["warnings"]
    assert "far-extrapolation" in kinds
    text = warnings_html(frame)
    for kind in kinds:
        assert f"<code>{kind}</code>" in text
    assert "the largest measured allocation" in text  # the sentence of attrs["messages"]
    near = predictor.predict_frame([4]).copy()
    near.at[0, "warnings"] = ()
    assert "No warning" in warnings_html(near)
    notes = sum(len(m.warnings_) for m in predictor.members_.values())
    assert notes and f"the single models' own notes ({notes})" in warnings_html(frame, predictor)
    assert prediction_title(frame.iloc[0], "gpus").startswith("at n = 4096 gpus:")


def test_protocol_figure_refits_the_curve_as_the_benchmark_splits_it():
    t = amdahl_runs(N_ALL)
    runs = pd.DataFrame({"curve_id": "amdahl-demo", "n": N_ALL, "time_s": t, "unit": "gpus"})
    fig = protocol_figure(runs, "k3")
    assert fig.layout.title.text.startswith("amdahl-demo, protocol k3: at n = 64 gpus:")
    assert list(_named(fig, "observed runs (fitted)").x) == [1, 2, 4]
    assert list(_named(fig, "held back (actual)").x) == [8, 16, 32, 64]
    spread = protocol_figure(runs, "spread")
    assert list(_named(spread, "observed runs (fitted)").x) == [1, 4, 16, 64]
    short = protocol_figure(runs.iloc[:4], "k4")
    assert "too short" in short.layout.title.text and len(short.data) == 0
    with pytest.raises(ValidationError):
        protocol_figure(runs.iloc[:0], "k3")
