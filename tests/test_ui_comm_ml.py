"""Headless tests of the communication statistics and ML dashboard ([Branikas2024]): construct it,
move its controls, train in the background, and check that bad input lands in the panels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.io.catalogue import MIRROR_ENV
from workbench.models.comm.semi_empirical import SIZE_FACTOR, TABLE_6_2_BASE_US
from workbench.plots.comm_ml import (
    importance_figure,
    mean_std_band_figure,
    prediction_vs_actual_figure,
    rank_box_figure,
    rank_density_figure,
)
from workbench.ui.comm_ml_dashboard import CommMLDashboard
from workbench.ui.common import ERROR_CLASS, MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS, STALE_CLASS


def per_rank_sweep(seed: int = 0) -> pd.DataFrame:
    """A small per-rank frame in the COMM_SCHEMA layout (not measured: a formula with noise)."""
    rng = np.random.default_rng(seed)
    rows, run = [], 0
    for wss in (2**21, 2**23, 2**25):
        for load, ops in (("memory", 1), ("compute", 16)):
            for multiple in (1, 5, 10, 50, 100):
                for messages in (2, 4, 8):
                    for ppn in (2, 4):
                        size = int(multiple * np.sqrt(wss)) // 8 * 8
                        comp = 2e-9 * wss * ops
                        for rank in range(ppn):
                            comm = 1e-9 * size * messages * ppn * rng.uniform(0.8, 1.2) + 2e-4
                            rows.append(dict(run_id=run, rank=rank, host="vm", nodes=1, ppn=ppn, processes=ppn,
                                             wss_bytes=wss, load=load, extra_ops=ops, msg_multiple=multiple,
                                             message_bytes=size, messages=messages, iterations=16, barrier="none",
                                             comm_s=comm, comp_s=comp, total_s=comm + comp))
                        run += 1
    return pd.DataFrame(rows)


@pytest.fixture
def no_mirror(monkeypatch, tmp_path):
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "missing"))


@pytest.fixture
def dash(no_mirror):
    d = CommMLDashboard(per_rank=per_rank_sweep())
    return d


def _error(panel) -> str:
    return panel.value if f'class="{ERROR_CLASS}"' in panel.value else ""


def test_dashboard_follows_the_convention(dash):
    assert PRIMARY_SLIDER_CLASS in dash.size_factor._dom_classes and MAIN_FIGURE_CLASS in dash.figure._dom_classes
    assert PRIMARY_SLIDER_CLASS not in dash.base_us._dom_classes
    assert not dash.size_factor.continuous_update and not dash.base_us.continuous_update
    assert not _error(dash.messages) and not _error(dash.rank_messages)
    assert "OSU broadcast latencies" in dash.notice.value  # no mirror here
    assert dash.source.options == (("our data generator sweep", "datagen"),)


def test_size_factor_redraws_the_main_figure_and_table(dash):
    predicted = np.asarray(dash.figure.data[1].y, dtype=float)  # PpN 1 semi-empirical line
    table = dash.table_6_3.value
    dash.size_factor.value = 0.5
    assert np.asarray(dash.figure.data[1].y, dtype=float) == pytest.approx(predicted * 1.5, rel=1e-3)  # 1/3 -> 0.5
    assert "one message size lower" in table  # the thesis parameters reproduce the printed x 1/8
    assert "matches neither the formula nor 1/8 of it" in dash.table_6_3.value
    assert "× 0.5 ×" in dash.semi_readout.value
    assert dash.last_main_s > 0  # measured, not asserted: bench/test_bench_dashboards.py times it
    dash.base_us.value = 12.2
    assert dash.semi_parameters() == (12.2, 0.5)
    dash.reset.click()
    assert dash.semi_parameters() == (round(TABLE_6_2_BASE_US, 3), round(SIZE_FACTOR, 4))
    assert np.asarray(dash.figure.data[1].y, dtype=float) == pytest.approx(predicted)


def test_per_rank_section_selects_runs_that_share_the_other_settings(dash):
    assert dash.rank_by.value == "wss_bytes"
    ranks = dash.selected_ranks()
    assert ranks["wss_bytes"].nunique() == 3 and ranks["run_id"].nunique() == 3
    assert ranks.drop_duplicates("run_id")[["load", "msg_multiple", "messages", "ppn"]].nunique().max() == 1
    assert len(dash.figures["box"].data) == 3 and "normality" in dash.rank_table.value
    dash.rank_by.value = "load"
    assert len(dash.figures["box"].data) == 2 and not _error(dash.rank_messages)
    dash.rank_value.value = "total_s"
    assert dash.figures["density"].layout.xaxis.title.text == "total time [s]"


def test_training_runs_in_the_background_and_shows_results(dash):
    # before the first training: no empty figure boxes, a sentence says what to do
    assert dash.ml_results.layout.display == "none" and "then press <b>train</b>" in dash.train_status.value
    dash.n_iter.value, dash.cv.value, dash.n_estimators.value = 2, 2, (30, 60)
    dash.train(wait=True)
    assert not _error(dash.ml_messages), dash.ml_messages.value
    assert dash.ml_results.layout.display is None
    result = dash.result
    assert result.scenario == "train_small_test_big" and result.column == "ppn"
    assert result.metrics["subset"].tolist() == ["ppn_2", "ppn_4"]
    assert dash.color_by.value == "ppn" and "prediction" in dash.figures and "importance" in dash.figures
    assert "Tables 8.1/8.3/8.5" in dash.metrics.value and "nodes_32_64" in dash.metrics.value
    assert "trained in" in dash.train_status.value
    dash.color_by.value = "message_bytes"
    assert any("message_bytes" in (t.name or "") for t in dash.figures["prediction"].data)
    # the same request again comes from the cache
    first = dash.result
    dash.train(wait=True)
    assert dash.result is first


def _ml_stale(d) -> list[bool]:
    return [p.stale for p in d._ml_out.values()] + [STALE_CLASS in d.metrics.value]


def test_results_are_marked_out_of_date_when_the_data_or_settings_change(dash):
    dash.n_iter.value, dash.cv.value, dash.n_estimators.value = 2, 2, (30, 60)
    dash.train(wait=True)
    assert not any(_ml_stale(dash)) and "trained in" in dash.train_status.value
    dash.fraction.value = (0.2, 0.8)  # other runs: the shown result is not theirs
    assert all(_ml_stale(dash)) and "the data changed: press train to retrain" in dash.metrics.value
    assert "press <b>train</b>" in dash.train_status.value
    dash.fraction.value = (0.1, 0.8)  # back to the trained data: the result is shown again
    assert not any(_ml_stale(dash)) and "Tables 8.1/8.3/8.5" in dash.metrics.value
    dash.seed.value = 3
    assert all(_ml_stale(dash)) and "the settings changed: press train" in dash.metrics.value
    dash.train(wait=True)
    assert not any(_ml_stale(dash)) and not _error(dash.ml_messages)
    dash.fraction.value = (0.95, 1.0)  # a training that fails leaves nothing that looks current
    dash.train(wait=True)
    assert "no runs left" in _error(dash.ml_messages) and all(_ml_stale(dash))


def test_semi_empirical_and_per_rank_errors_mark_their_panels(dash, monkeypatch):
    from workbench.errors import ValidationError
    from workbench.views import comm_ml as cmd  # where the dashboard's panels are computed

    def refuse(*args, **kwargs):
        raise ValidationError("refused")

    monkeypatch.setattr(cmd, "reproduce_table_6_1", refuse)
    dash.size_factor.value = 0.5
    assert "refused" in _error(dash.messages)
    assert dash.figure.stale and STALE_CLASS in dash.table_6_3.value and STALE_CLASS in dash.semi_readout.value
    monkeypatch.setattr(cmd, "rank_statistics", refuse)
    dash.rank_value.value = "total_s"
    assert "refused" in _error(dash.rank_messages)
    assert all(p.stale for p in dash._rank_out.values()) and STALE_CLASS in dash.rank_table.value
    monkeypatch.undo()
    dash.size_factor.value = 0.4
    dash.rank_value.value = "comm_s"
    assert not dash.figure.stale and not any(p.stale for p in dash._rank_out.values())


def test_training_a_filter_that_keeps_nothing_shows_an_error(dash):
    dash.fraction.value = (0.95, 1.0)
    dash.n_iter.value, dash.cv.value = 1, 2
    dash.train(wait=True)
    assert "no runs left for the models: kept 0 of 180 runs with 0.95 &lt;= comm/total &lt;= 1" in _error(
        dash.ml_messages)
    dash.fraction.value = (0.5, 0.5)
    dash.train(wait=True)
    assert "need 0 &lt;= low &lt; high, got low=0.5, high=0.5" in _error(dash.ml_messages)


def test_without_any_data_the_semi_empirical_section_still_works(no_mirror, monkeypatch):
    import workbench.ui.comm_ml_dashboard as module
    from workbench.errors import DatasetNotFoundError

    def missing():
        raise DatasetNotFoundError("dataset 'comm-datagen-local': not found")

    monkeypatch.setattr(module, "load_datagen", missing)
    d = CommMLDashboard()
    assert "data-generator sweep" in d.notice.value and d.train_button.disabled
    assert "No per-rank data" in d.rank_table.value
    d.size_factor.value = 0.4
    assert not _error(d.messages) and "× 0.4 ×" in d.semi_readout.value
    d.train()
    assert "no data for the models" in _error(d.ml_messages)


# ----------------------------------------------------------------------------- figures


def test_figures_from_data():
    per_rank = per_rank_sweep()
    one = per_rank[(per_rank["msg_multiple"] == 5) & (per_rank["messages"] == 4) & (per_rank["ppn"] == 4)
                   & (per_rank["load"] == "memory")]
    box = rank_box_figure(one, "wss_bytes")
    assert [t.name for t in box.data] == ["2 MiB", "8 MiB", "32 MiB"] and box.data[0].boxmean == "sd"
    density = rank_density_figure(one, "wss_bytes")
    assert len(density.data) == 6  # a histogram and a normal curve per group
    area = np.trapezoid(density.data[1].y, density.data[1].x)
    assert area == pytest.approx(1.0, abs=1e-3)  # +-4 sigma of a normal density
    from workbench.models.comm.statistics import rank_statistics

    band = mean_std_band_figure(rank_statistics(one, by="wss_bytes"), "wss_bytes")
    assert len(band.data) == 2 and band.layout.xaxis.type == "linear"
    predictions = pd.DataFrame({"actual": [1.0, 2.0, 4.0], "predicted": [1.1, 1.5, 4.0], "subset": ["a", "a", "b"],
                                "nodes": [4, 8, 32]})
    fig = prediction_vs_actual_figure(predictions, "nodes")
    assert len(fig.data) == 3 + 3  # y = x, band twice; one trace per (subset, nodes) present
    assert fig.data[1].y[0] == pytest.approx(fig.data[0].y[0] * 1.3)
    imp = importance_figure(pd.DataFrame({"model": ["m", "m"], "feature": ["a", "b"], "inv_mean_min_depth": [0.5, 0.3],
                                          "permutation_mean": [0.2, 0.1], "permutation_std": [0.01, 0.02]}))
    assert list(imp.data[0].y) == ["b", "a"]  # ascending, the most important on top
