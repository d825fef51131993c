"""The "Predict my runs" panels without widgets: :func:`workbench.views.predict.prediction_view` on
hand-made runs (figure, readout numbers, caching, bad input), the target slider's range,
"where to measure next" and the leaderboard panels; and the benchmark results reader moved
down to :mod:`workbench.evaluation.scaling_benchmark`."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.errors import DataFormatError, ValidationError
from workbench.evaluation.scaling_benchmark import read_benchmark_results
from workbench.ui.common import FitCache
from workbench.views.predict import (
    PredictState,
    board_curve_view,
    board_table_html,
    curve_unit,
    measure_next_html,
    measure_next_view,
    prediction_view,
    target_range,
)

N = np.array([1.0, 2, 4, 8, 16, 32])
T = 100.0 * (0.05 + 0.95 / N)  # Amdahl with a 5 % serial share


def _state(observed=(1, 2, 4, 8), **controls) -> PredictState:
    fitted = np.isin(N, observed)
    grid = target_range(N, observed)
    return PredictState(observed=(N[fitted], T[fitted]), held_back=(N[~fitted], T[~fitted]),
                        data_key=("amdahl", tuple(observed)), data_label="Amdahl 5 %",
                        observed_n=tuple(float(n) for n in observed), grid=(grid.lo, grid.hi),
                        **{"target": 32.0, **controls})


def test_the_prediction_at_the_target_and_its_readout():
    panels = prediction_view(_state())
    row = panels.frame.iloc[0]
    assert list(panels.frame["n"]) == [32.0] and row["prediction"] > 0
    assert panels.main.layout.title.text.startswith("at n = 32 processes:")
    marker = next(t for t in panels.main.data if t.name == "prediction at the target")
    assert list(marker.x) == [32.0] and marker.y[0] == pytest.approx(row["prediction"])
    assert panels.readout["data"] == "Amdahl 5 %" and panels.readout["observed n"] == "1, 2, 4, 8"
    assert "runtime at n = 32" in panels.readout and "80 % interval" in panels.readout
    assert "Prediction at n = 32 processes" in panels.target_table and "◀ chosen" in panels.weights
    assert "Held-back runs" in panels.holdout and "fit + figure" not in panels.readout  # the dashboard times it


def test_level_and_models_change_the_figure():
    narrow = prediction_view(_state(level=0.5))
    assert "50 % interval" in narrow.main.layout.title.text and "50 % interval" in narrow.readout
    hidden = [t.name for t in prediction_view(_state(models=("amdahl", "downey-lm"))).main.data if t.visible is False]
    assert len(hidden) == 6 and all(name.startswith(("USL", "ADEPT", "PMNF")) for name in hidden)  # line + band each


def test_a_cache_reuses_the_fit_per_data():
    cache = FitCache(8)
    first = prediction_view(_state(), cache).predictor
    assert prediction_view(_state(target=16.0), cache).predictor is first
    assert prediction_view(_state(observed=(1, 2, 4, 16)), cache).predictor is not first


def test_too_few_observed_runs_are_a_clear_error():
    with pytest.raises(ValidationError, match=">= 3 distinct"):
        prediction_view(_state(observed=(1, 2)))


def test_target_range_is_on_a_grid_of_eighth_doublings():
    r = target_range(N, (1, 2, 4, 8))
    assert 10 ** r.lo == pytest.approx(1) and 10 ** r.hi == pytest.approx(16 * 32)
    assert r.step == pytest.approx(math.log10(2) / 8) and r.value == pytest.approx(32)
    # whole allocations only, every measured one among them, powers of two on the grid
    assert all(type(o) is int for o in r.options) and set(N.astype(int)) <= set(r.options)
    assert r.options[-1] == 512 and 87 not in r.options and {91, 108} <= set(r.options)
    assert target_range(N, N).value == pytest.approx(128)  # nothing held back beyond: 4x the largest


def test_measure_next_adds_the_cost_and_follows_the_target():
    state = _state(target=64.0)
    p = prediction_view(state).predictor
    nxt = measure_next_view(state, p, FitCache(4))
    assert list(nxt.frame.columns) == ["n", "width_ratio", "narrowing", "cost"] and "at n = 64" in nxt.html
    np.testing.assert_allclose(nxt.frame["cost"], nxt.frame["n"] * p.predict(nxt.frame["n"].to_numpy()))


def test_curve_unit_from_the_unit_column():
    frame = pd.DataFrame({"benchmark": ["a", "b"], "problem_class": ["x", "y"], "unit": ["nodes", "GPUs"]})
    assert curve_unit(frame, ("b", "y")) == "GPUs" and curve_unit(frame, ("c", "z")) == "processes"
    assert curve_unit(frame.drop(columns="unit"), ("a", "x")) == "processes"


def _results(tmp_path):
    rows = [{"curve_id": curve, "fold": "f", "model": model, "predictions": 5, "refused": 0, "median_pa": pa,
             "within_10": 0.4, "within_20": 0.8, "coverage": 0.8, "median_width": 1.6, "constant_width": 1.8,
             "warned_share": 0.2, "miss_recall": 1.0, "good_silent": 0.75, "fit_ms": 1.0}
            for curve in ("c1", "<c2>") for model, pa in (("amdahl", 85.0), ("predictor", 91.0))]
    path = tmp_path / "curves.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    pd.DataFrame(rows).drop(columns=["curve_id", "fold"]).groupby("model").first().reset_index().to_csv(
        tmp_path / "scaling_leaderboard.csv", index=False)
    return path


def test_leaderboard_panels_from_the_results(tmp_path):
    per_curve, board = read_benchmark_results(_results(tmp_path))
    table = board_table_html(per_curve, board, "scaling_leaderboard.csv")
    assert "5 held-back predictions per model on 2 real curves" in table and "91.0 %" in table
    panels = board_curve_view(per_curve, "<c2>", "k3", None)
    assert panels.figure is None and "&lt;c2&gt;: metrics per model" in panels.metrics and "<c2>" not in panels.metrics


def test_missing_or_broken_results_say_how_to_make_them(tmp_path):
    with pytest.raises(DataFormatError, match="tools/scaling_benchmark.py"):
        read_benchmark_results(tmp_path / "missing.csv")
    path = _results(tmp_path)
    (tmp_path / "scaling_leaderboard.csv").write_bytes(b"")
    with pytest.raises(DataFormatError, match="scaling_leaderboard.csv: missing or not a readable CSV"):
        read_benchmark_results(path)


def test_measure_next_html():
    mv = pd.DataFrame({"n": [64.0, 32.0], "width_ratio": [1.5, 1.8], "narrowing": [0.6, 0.4]})
    text = measure_next_html(mv, 128, "gpus")
    assert "a run at n = 64 gpus" in text and "at n = 128 by about 60 %" in text and "<table" in text
    assert "measure at n [gpus]" in text and ">60 %<" in text and ">1.50<" in text
    assert "no candidate" in measure_next_html(mv.iloc[:0], 128)
    assert "cost of the run [GPU-hours]" in measure_next_html(mv.assign(cost=[7200.0, 3600.0]), 128, "gpus")


def test_the_target_table_reads_as_words_and_units():
    panels = prediction_view(_state())
    table = panels.target_table
    assert "predict_frame" not in table and "Prediction at n = 32 processes" in table
    assert "n [processes]" in table and "predicted runtime [s]" in table and "80 % interval, lower [s]" in table
    assert ">32<" in table and "32.0" not in table and "NaN" not in table and "('" not in table
