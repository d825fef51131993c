"""FiM vs RBASP scoring: aggregation over repeats, Table-4 style summary, experiment runner."""

import itertools

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.fim import aggregate_runs, compare_predictions, run_fim_experiment

F = 3.0e9


def measured_runs(repeats=2):
    """Runs from a known model: TC = 30 I K N + 2e8 cycles, two cores (no gain past t = 2)."""
    rows = []
    grid = [(c, "train") for c in itertools.product([10, 20, 40], [8, 16, 32], [2e4, 4e4, 8e4])]
    grid += [(c, "test") for c in [(20, 16, 3.2e5), (10, 32, 6.4e5)]]
    for (i, k, n), role in grid:
        tc = 30 * i * k * n + 2e8
        for t in ((1, 2, 4) if role == "train" else (1, 2, 3, 4, 8)):
            for r in range(repeats):
                rows.append(dict(iterations=i, clusters=k, points=n, processes=t, repeat=r, role=role,
                                 calc_time_s=tc / F / min(t, 2) * (1 + 0.01 * r), cycles=tc, stall_cycles=0.2 * tc,
                                 utilization=0.6, freq_hz=F))
    return pd.DataFrame(rows)


def test_aggregate_runs_takes_the_median_and_range():
    runs = measured_runs(repeats=3)
    agg = aggregate_runs(runs)
    assert len(agg) == len(runs) / 3
    row = agg[(agg.iterations == 10) & (agg.clusters == 8) & (agg.points == 2e4) & (agg.processes == 1)].iloc[0]
    base = (30 * 10 * 8 * 2e4 + 2e8) / F
    assert row.calc_time_s == pytest.approx(base * 1.01)
    assert row.calc_time_min_s == pytest.approx(base)
    assert row.calc_time_max_s == pytest.approx(base * 1.02)
    assert row.repeats == 3 and row.role == "train"


def test_table4_summary_hand_case():
    actual = pd.DataFrame({"iterations": 1, "clusters": 1, "points": 1, "processes": [1, 2, 4],
                           "calc_time_s": [4.0, 2.0, 3.0]})
    comp = compare_predictions(actual, {"good": [4.4, 2.0, 2.7], "flat": [4.0, 4.0, 4.0],
                                        "refuses": [4.0, np.nan, 1.0]})
    s = comp.summary.set_index("model")
    assert s.loc["good", "best_pct"] == pytest.approx(0.0)
    assert s.loc["good", "average_pct"] == pytest.approx((10 + 0 + 10) / 3)
    assert s.loc["good", "worst_pct"] == pytest.approx(10.0)
    assert s.loc["good", "within_20_pct"] == 100.0
    assert s.loc["good", "optimal_matches"] == 1 and s.loc["good", "mean_spearman"] == pytest.approx(1.0)
    assert s.loc["flat", "worst_pct"] == pytest.approx(100.0)
    assert np.isnan(s.loc["flat", "mean_spearman"])  # constant prediction: rank correlation undefined
    assert s.loc["refuses", "missing"] == 1
    cfg = comp.per_config.set_index("model")
    assert cfg.loc["good", "actual_optimal"] == 2 and cfg.loc["good", "predicted_optimal"] == 2
    assert cfg.loc["refuses", "predicted_optimal"] == 4


def test_compare_rejects_mismatched_predictions():
    actual = pd.DataFrame({"iterations": 1, "clusters": 1, "points": 1, "processes": [1, 2], "calc_time_s": [2.0, 1.0]})
    with pytest.raises(ValidationError, match="shape \\(3,\\), expected \\(2,\\)"):
        compare_predictions(actual, {"m": [1.0, 2.0, 3.0]})
    with pytest.raises(ValidationError, match="no predictions"):
        compare_predictions(actual, {})


def test_experiment_on_known_runs():
    ex = run_fim_experiment(measured_runs())
    assert set(ex.predictions) == {"FiM (I, K, N)", "FiM (I*N, I*K*N)", "FiM (I*N, I*K*N), U not scaled",
                                "RBASP linear g", "RBASP quadratic g", "RBASP log2 inputs"}
    assert len(ex.test) == 2 * 5 and len(ex.train) == 27 * 3
    s = ex.comparison.summary.set_index("model")
    # TC is exactly linear in I*K*N, so the work-feature FiM predicts alpha * TC / (t F); the
    # training runs at t = 4 are slower than 1/t (two cores), which pushes alpha above 1
    model = ex.models["FiM (I*N, I*K*N)"]
    assert 1.0 < model.alpha_ < 1.3
    work = ex.comparison.per_run[ex.comparison.per_run.model == "FiM (I*N, I*K*N)"]
    tc = 30 * work.iterations * work.clusters * work.points + 2e8
    np.testing.assert_allclose(work.predicted_s, model.alpha_ * tc / (work.processes * F), rtol=1e-6)
    # FiM cannot know that the machine has 2 cores: its predicted optimum is the largest t
    assert s.loc["FiM (I*N, I*K*N)", "optimal_matches"] == 0
    assert (ex.comparison.per_config.query("model == 'FiM (I*N, I*K*N)'").predicted_optimal == 8).all()


def test_experiment_errors():
    runs = measured_runs()
    with pytest.raises(ValidationError, match="no runs with role == 'test'"):
        run_fim_experiment(runs[runs.role == "train"])
    with pytest.raises(ValidationError, match="missing column 'role'"):
        run_fim_experiment(runs.drop(columns="role"))
    # too few training configurations: every variant is reported, none fitted
    tiny = runs[(runs.role == "test") | ((runs.iterations == 10) & (runs.clusters == 8) & (runs.points == 2e4))]
    with pytest.raises(ValidationError, match="no model could be fitted"):
        run_fim_experiment(tiny)
