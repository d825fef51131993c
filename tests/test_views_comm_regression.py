"""The communication-regression panels without widgets (workbench.views.comm_regression),
and the data/evaluation helpers they use (workbench.evaluation.comm_regression)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.comm_regression import (
    COMM_TIMES_COLUMNS,
    evaluation_sets,
    osu_broadcast_label,
    read_comm_times_csv,
    synthetic_sweep,
)
from workbench.ui.common import FitCache
from workbench.views.comm_regression import (
    CommRegressionState,
    comm_regression_view,
    exploration_panels,
    fit_comm_regression,
    fit_panels,
    scatter_figure,
)

KIB = 1024


@pytest.fixture(scope="module")
def sweep() -> pd.DataFrame:
    return synthetic_sweep()  # 504 points, 420 with inter-node traffic, 2..256 processes


def _areas_drawn(fig) -> dict[str, int]:
    """Points per area in the main figure's right panel (legend 'Area Ia: n pts, ...')."""
    return {t.name.split(":")[0].removeprefix("Area "): len(t.x) for t in fig.data if (t.name or "").startswith("Area")}


def test_view_draws_every_panel_from_the_state(sweep):
    panels = comm_regression_view(CommRegressionState(sweep, "synthetic sweep"))
    assert panels.main.data[3].x == (128 * KIB + 1, 128 * KIB + 1)  # the NT threshold line (NT + 1 axis)
    assert sum(_areas_drawn(panels.main).values()) == len(sweep)
    overall = panels.fit.result.overall()
    rows = panels.fit_panels.readout_rows
    assert rows["data"] == f"synthetic sweep ({len(sweep)} points)"
    assert rows["overall (ours)"].startswith(f"MAPE {overall['mape']:.1f} %")
    assert "note" not in rows  # the synthetic sweep has inter-node traffic
    assert "Scores per area" in panels.fit_panels.scores and "paper 002" in panels.fit_panels.scores
    assert "Coefficients" in panels.fit_panels.coefficients and "<table" in panels.fit_panels.readout
    assert panels.heatmap.data[0].z.shape == (13, 2) and panels.matrix.data[0].z.shape == (14, 14)
    assert [t.name.split(" (")[0] for t in panels.fit_panels.residuals.data] == ["Area Ia", "Area Ib", "Area II"]
    assert panels.scatter.layout.xaxis.title.text == "PT" and sum(len(t.x) for t in panels.scatter.data) == len(sweep)


def test_the_thresholds_move_points_between_areas_and_refit(sweep):
    base = comm_regression_view(CommRegressionState(sweep, "s"))
    moved = comm_regression_view(CommRegressionState(sweep, "s", nt_threshold_bytes=8 * 1024 * KIB,
                                                     s_threshold_bytes=64 * KIB))
    assert moved.main.data[3].x[0] == 8 * 1024 * KIB + 1
    before, after = _areas_drawn(base.main), _areas_drawn(moved.main)
    assert after["II"] < before["II"] and after["Ia"] > before["Ia"]
    assert not np.allclose(moved.fit.result.predictions["predicted"], base.fit.result.predictions["predicted"])


def test_the_evaluations_score_other_points(sweep):
    scale = comm_regression_view(CommRegressionState(sweep, "s", evaluation="scale"))
    assert len(scale.fit.result.predictions) == (sweep["processes"] >= 128).sum()
    assert scale.fit.evaluation_text.startswith("trained on") and "<= 64 processes" in scale.fit.evaluation_text
    random = fit_comm_regression(CommRegressionState(sweep, "s", evaluation="random"))
    assert len(random.result.predictions) == len(sweep) - round(0.6 * len(sweep))


def test_fits_are_cached_by_data_key_split_loss_and_evaluation(sweep):
    cache = FitCache(4)
    state = CommRegressionState(sweep, "s", data_key=("synthetic",))
    first = fit_comm_regression(state, cache)
    assert fit_comm_regression(state, cache) is first
    other = CommRegressionState(sweep, "s", data_key=("synthetic",), robust="ols")
    assert fit_comm_regression(other, cache) is not first
    assert fit_comm_regression(CommRegressionState(sweep, "s"), cache) is not first  # no key: never cached


def test_the_view_parts_follow_their_controls(sweep):
    log = scatter_figure(CommRegressionState(sweep, "s", metric="NT", log_scale=True))
    assert log.data[-1].x == (128 * KIB, 128 * KIB)  # the NT threshold line on the NT scatter
    linear = scatter_figure(CommRegressionState(sweep, "s", metric="NT", log_scale=False))
    assert log.layout.xaxis.type == "log" and linear.layout.xaxis.type != "log"
    _, matrix = exploration_panels(CommRegressionState(sweep, "s", log_scale=False))
    assert "log10" not in matrix.layout.title.text
    one_node = sweep[sweep["NT"] == 0]
    state = CommRegressionState(one_node, "one node")
    assert "NT = 0 for every point" in fit_panels(state, fit_comm_regression(state)).readout_rows["note"]


@pytest.mark.parametrize("change, message", [
    (dict(evaluation="scale", data="no processes"), "train small / test big needs a 'processes' column"),
    (dict(robust="cauchy"), "the robust loss must be one of ['bisquare', 'huber', 'ols'], got 'cauchy'"),
    (dict(evaluation="everything"), "the evaluation must be one of ['all', 'scale', 'random']"),
    (dict(metric="XYZ"), "the scatter metric must be one of"),
    (dict(data="empty"), "no data to fit: s has no rows"),
    (dict(nt_threshold_bytes=-1.0), "nt_threshold_bytes must be a finite number >= 0"),
])
def test_bad_states_get_a_message_in_our_words(sweep, change, message):
    data = {"no processes": sweep.drop(columns="processes"), "empty": sweep.iloc[:0]}.get(change.pop("data", None),
                                                                                         sweep)
    with pytest.raises(ValidationError) as caught:
        comm_regression_view(CommRegressionState(data, "s", **change))
    assert message in str(caught.value)
    assert "Traceback" not in str(caught.value)


# ----------------------------------------------------------------------------- evaluation helpers


def test_evaluation_sets_and_labels(sweep):
    train, test, text = evaluation_sets(sweep, "all")
    assert train is sweep and test is sweep and text == f"in-sample: fitted and scored on all {len(sweep)} points"
    small = sweep[sweep["processes"] <= 8]  # no process count on both sides of 64 / 128
    train, test, _ = evaluation_sets(small, "scale")
    assert train["processes"].max() == 4 and set(test["processes"]) == {8}
    with pytest.raises(ValidationError, match="several process counts"):
        evaluation_sets(sweep[sweep["processes"] == 8], "scale")
    assert osu_broadcast_label("core", 5) == ("OSU broadcast on ORFEO, --map-by core, algorithm 5 (binary_tree), "
                                              "latency averaged over ranks")


def test_read_comm_times_csv(sweep):
    table = sweep[list(COMM_TIMES_COLUMNS)].assign(benchmark="mine")
    data = read_comm_times_csv("mine.csv", table.to_csv(index=False).encode())
    assert len(data) == len(sweep) and data["comm_time_us"].to_numpy() == pytest.approx(sweep["comm_time_us"])
    assert data["NT"].to_numpy() == pytest.approx(sweep["NT"].to_numpy()) and (data["benchmark"] == "mine").all()
    with pytest.raises(ValidationError, match=r"bad.csv: missing the column\(s\) M, PPN"):
        read_comm_times_csv("bad.csv", b"S,N,I,SW,R,comm_time_us\n1,2,3,4,5,6\n")
    with pytest.raises(ValidationError, match="column names are case-sensitive"):
        read_comm_times_csv("case.csv", table.rename(columns={"S": "s"}).to_csv(index=False).encode())
    zero = table.assign(comm_time_us=0.0).to_csv(index=False).encode()
    with pytest.raises(ValidationError, match=r"must be > 0, got 0 on line 2$"):
        read_comm_times_csv("zero.csv", zero)
