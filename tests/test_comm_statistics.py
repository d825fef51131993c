"""Per-rank statistics, run summaries and the comm/total filter of [Branikas2024] (
sections 4.1 and 7.2), on hand-made per-rank frames and on the measured data-generator sweep."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.models.comm.statistics import (
    MIN_RANKS_NORMALTEST,
    comm_fraction_filter,
    rank_statistics,
    run_summary,
)


def per_rank_frame(comm_by_run: dict[int, list[float]], total: float = 1.0) -> pd.DataFrame:
    """A data-generator frame (COMM_SCHEMA columns) with the given per-rank comm times."""
    rows = []
    for run, comms in comm_by_run.items():
        for rank, c in enumerate(comms):
            rows.append(dict(run_id=run, rank=rank, host="h", nodes=1, ppn=len(comms), processes=len(comms),
                             wss_bytes=2**21 * (run + 1), load="memory", extra_ops=1, msg_multiple=1,
                             message_bytes=1448, messages=4, iterations=16, barrier="none",
                             comm_s=c, comp_s=total - c, total_s=total))
    return pd.DataFrame(rows)


def test_rank_statistics_matches_hand_computed_values():
    frame = per_rank_frame({0: [1.0, 2.0, 3.0, 10.0], 1: [0.5, 0.7]})
    out = rank_statistics(frame).set_index("run_id")
    a = out.loc[0]
    assert a["n"] == 4 and a["mean"] == 4.0 and a["min"] == 1.0 and a["max"] == 10.0
    assert a["std"] == pytest.approx(np.std([1, 2, 3, 10], ddof=1))
    # linear interpolation quartiles: positions 0.75, 1.5, 2.25 of the sorted values
    assert (a["q1"], a["median"], a["q3"]) == pytest.approx((1.75, 2.5, 4.75))
    assert a["skew"] == pytest.approx(stats.skew([1, 2, 3, 10], bias=False))
    assert 0 < a["shapiro_p"] < 1 and np.isnan(a["normaltest_p"])
    assert "too few ranks (n=4) for D'Agostino-Pearson" in a["normality_note"]
    b = out.loc[1]
    assert b["n"] == 2 and np.isnan(b["skew"]) and np.isnan(b["shapiro_p"])
    assert "too few ranks (n=2) for Shapiro-Wilk" in b["normality_note"]


def test_rank_statistics_reads_normal_and_skewed_populations():
    rng = np.random.default_rng(7)
    frame = per_rank_frame({0: list(rng.normal(10, 1, 1280)), 1: list(rng.exponential(1, 1280))}, total=100.0)
    out = rank_statistics(frame).set_index("run_id")
    assert out.loc[0, "shapiro_p"] > 0.01 and out.loc[0, "normaltest_p"] > 0.01
    assert out.loc[0, "normality_note"] == ""
    assert out.loc[1, "shapiro_p"] < 1e-10 and out.loc[1, "normaltest_p"] < 1e-10
    assert out.loc[1, "skew"] == pytest.approx(2.0, abs=0.4)  # exponential: skewness 2
    assert MIN_RANKS_NORMALTEST == 20


def test_rank_statistics_groups_by_several_columns_and_flags_constant_populations():
    frame = per_rank_frame({0: [1.0, 1.0, 1.0], 1: [2.0, 3.0, 4.0]})
    out = rank_statistics(frame, by=["load", "wss_bytes"], value="comm_s")
    assert list(out.columns[:2]) == ["load", "wss_bytes"] and len(out) == 2
    constant = out.iloc[0]
    assert constant["std"] == 0 and "same time" in constant["normality_note"] and np.isnan(constant["shapiro_p"])


def test_rank_statistics_bad_input():
    frame = per_rank_frame({0: [1.0, 2.0, 3.0]})
    with pytest.raises(ValidationError, match="missing group column"):
        rank_statistics(frame, by="nope")
    with pytest.raises(ValidationError, match="missing column"):
        rank_statistics(frame, value="latency")
    frame.loc[1, "comm_s"] = np.nan
    with pytest.raises(ValidationError, match="'comm_s' must be numeric and finite"):
        rank_statistics(frame)


def test_run_summary_means_and_comm_fraction():
    frame = per_rank_frame({0: [0.2, 0.4], 1: [0.5, 0.7, 0.9]}, total=2.0)
    runs = run_summary(frame).set_index("run_id")
    assert runs.loc[0, "comm_s"] == pytest.approx(0.3) and runs.loc[0, "n_ranks"] == 2
    assert runs.loc[1, "comm_s_std"] == pytest.approx(0.2)
    assert runs.loc[1, "comp_s"] == pytest.approx(1.3) and runs.loc[1, "total_s_std"] == 0
    assert runs.loc[1, "comm_fraction"] == pytest.approx(0.7 / 2.0)
    assert runs.loc[1, "wss_bytes"] == 2**22 and runs.loc[1, "load"] == "memory"


def test_run_summary_refuses_a_configuration_that_varies_within_a_run():
    frame = per_rank_frame({0: [0.2, 0.4]})
    frame.loc[1, "messages"] = 8
    with pytest.raises(ValidationError, match="'messages' takes several values within run 0"):
        run_summary(frame)


def test_comm_fraction_filter_keeps_the_inclusive_band_and_reports_drops():
    runs = pd.DataFrame({"comm_s": [0.05, 0.1, 0.5, 0.8, 0.9, 0.0], "total_s": [1.0] * 6})
    kept, report = comm_fraction_filter(runs)
    assert kept.index.tolist() == [1, 2, 3]  # 0.1 and 0.8 are kept
    assert (report.n_in, report.n_kept, report.n_below, report.n_above) == (6, 3, 2, 1)
    assert "kept 3 of 6 runs" in str(report)
    kept, report = comm_fraction_filter(runs, low=0.0, high=1.0)
    assert report.n_kept == 6


@pytest.mark.parametrize(
    "frame, kwargs, message",
    [
        (pd.DataFrame({"comm_s": [0.1]}), {}, "missing column"),
        (pd.DataFrame({"comm_s": [np.nan], "total_s": [1.0]}), {}, "'comm_s' must be numeric and finite"),
        (pd.DataFrame({"comm_s": [0.1, 0.2], "total_s": [1.0, 0.0]}), {}, "'total_s' must be > 0, got 0.0 in row 1"),
        (pd.DataFrame({"comm_s": [-0.1], "total_s": [1.0]}), {}, "'comm_s' must be >= 0"),
        (pd.DataFrame({"comm_s": [0.1], "total_s": [1.0]}), {"low": 0.8, "high": 0.1}, "0 <= low < high"),
    ],
)
def test_comm_fraction_filter_bad_input(frame, kwargs, message):
    with pytest.raises(ValidationError, match=message):
        comm_fraction_filter(frame, **kwargs)


def test_measured_datagen_sweep_summarises():
    from workbench.evaluation.comm_ml import datagen_runs, load_datagen

    try:
        per_rank = load_datagen()
    except DatasetNotFoundError as exc:
        pytest.skip(f"the measured data-generator sweep is not bundled yet: {exc}")
    runs, report = datagen_runs(per_rank)
    assert report.n_in == per_rank["run_id"].nunique() and report.n_kept == len(runs) > 0
    assert ((runs["comm_fraction"] >= 0.1) & (runs["comm_fraction"] <= 0.8)).all()
    stats_ = rank_statistics(per_rank)
    assert (stats_["n"] == per_rank.groupby("run_id").size().to_numpy()).all()
