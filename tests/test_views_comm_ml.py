"""The communication statistics and ML panels without widgets (workbench.views.comm_ml),
and the training helpers they use (workbench.evaluation.comm_ml.model_frame / train_scenario)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.comm_ml import model_frame, reproduce_table_6_1, train_scenario
from workbench.models.comm.semi_empirical import SIZE_FACTOR, TABLE_6_2_BASE_US
from workbench.views.comm_ml import (
    CommMLState,
    RankState,
    SemiEmpiricalState,
    TrainingState,
    color_choices,
    comm_ml_view,
    rank_view,
    run_options,
    semi_empirical_view,
    training_view,
    varying_features,
)


def per_rank_sweep(seed: int = 0) -> pd.DataFrame:
    """A small per-rank frame in the COMM_SCHEMA layout (a formula with noise, not measured):
    3 working sets x 2 loads x 3 message multiples x 2 PpN, 36 runs."""
    rng = np.random.default_rng(seed)
    rows, run = [], 0
    for wss in (2**21, 2**23, 2**25):
        for load, ops in (("memory", 1), ("compute", 16)):
            for multiple in (1, 10, 100):
                for ppn in (2, 4):
                    size = int(multiple * np.sqrt(wss)) // 8 * 8
                    comp = 2e-9 * wss * ops
                    for rank in range(ppn):
                        comm = 1e-9 * size * 4 * ppn * rng.uniform(0.8, 1.2) + 2e-4
                        rows.append(dict(run_id=run, rank=rank, host="vm", nodes=1, ppn=ppn, processes=ppn,
                                         wss_bytes=wss, load=load, extra_ops=ops, msg_multiple=multiple,
                                         message_bytes=size, messages=4, iterations=16, barrier="none",
                                         comm_s=comm, comp_s=comp, total_s=comm + comp))
                    run += 1
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def per_rank() -> pd.DataFrame:
    return per_rank_sweep()


@pytest.fixture(scope="module")
def trained(per_rank):
    frame = model_frame("datagen", per_rank, low=0.0, high=1.0)
    return train_scenario("datagen", "train_small_test_big", frame, n_iter=1, cv=2, n_estimators=(20, 30))


# ----------------------------------------------------------------------------- semi-empirical


def test_semi_empirical_view_follows_the_parameters():
    thesis = semi_empirical_view(SemiEmpiricalState())
    assert thesis.table.equals(reproduce_table_6_1(base_us=TABLE_6_2_BASE_US, size_factor=SIZE_FACTOR))
    doubled = semi_empirical_view(SemiEmpiricalState(base_us=2 * TABLE_6_2_BASE_US))
    assert np.asarray(doubled.main.data[1].y, float) == pytest.approx(2 * np.asarray(thesis.main.data[1].y, float))
    assert doubled.readout_rows["model"] == f"time = PpN × {SIZE_FACTOR:g} × (size / 4 KiB) × " \
                                           f"{2 * TABLE_6_2_BASE_US:.4g} µs"
    err = thesis.table["percentage_error"]
    assert thesis.readout_rows["error on Table 6.1 (thesis sign)"].startswith(f"{err.min():+.1f} … {err.max():+.1f} %")
    assert "one message size lower" in thesis.table_6_3 and "32×Table 6.1 [s]" in thesis.table_6_3
    assert "× 1/3" not in thesis.readout and "<table" in thesis.readout


def test_semi_empirical_view_refuses_bad_parameters():
    with pytest.raises(ValidationError) as caught:
        semi_empirical_view(SemiEmpiricalState(base_us=-1.0))
    assert "base" in str(caught.value)


# ----------------------------------------------------------------------------- per-rank


def test_rank_view_shows_the_runs_that_share_the_other_settings(per_rank):
    varying = varying_features(per_rank)
    assert varying == ["ppn", "processes", "wss_bytes", "load", "extra_ops", "msg_multiple", "message_bytes"]
    options = run_options(per_rank, varying)
    assert len(options) == 36 and options[0][0].startswith("run 0: ppn = 2") and options[0][1] == 0
    panels = rank_view(RankState(per_rank, "wss_bytes", reference=0))
    assert panels.ranks["run_id"].nunique() == 3 and len(panels.ranks) == 3 * 2
    assert [t.name for t in panels.box.data] == ["2 MiB", "8 MiB", "32 MiB"]
    assert len(panels.density.data) == 6 and len(panels.band.data) == 2
    assert "normality" in panels.table and "3 runs, 6 rank times" in panels.box.layout.title.text
    total = rank_view(RankState(per_rank, "load", reference=0, value="total_s"))
    assert len(total.box.data) == 2 and total.density.layout.xaxis.title.text == "total time [s]"
    assert varying_features(None) == [] and run_options(None, varying) == []


@pytest.mark.parametrize("state, message", [
    (RankState(None, "wss_bytes", reference=0), "no per-rank data: our data-generator sweep"),
    (RankState("frame", "wss_bytes", reference=0, value="wall_s"), "the timer must be one of"),
    (RankState("frame", "wss_bytes", reference=999), "run 999 is not in the frame"),
])
def test_rank_view_bad_states_get_a_message(per_rank, state, message):
    if isinstance(state.per_rank, str):
        state = RankState(per_rank, state.by, state.reference, state.value)
    with pytest.raises(ValidationError, match=message):
        rank_view(state)


# ----------------------------------------------------------------------------- training


def test_model_frame_filters_and_refuses(per_rank):
    frame = model_frame("datagen", per_rank, low=0.0, high=1.0)
    assert len(frame) == 36 and "kept 36 of 36 runs" in frame.attrs["filter"]
    with pytest.raises(ValidationError, match="no runs left for the models: kept 0 of 36 runs"):
        model_frame("datagen", per_rank, low=0.999, high=1.0)
    with pytest.raises(ValidationError, match="no data for the models: the OSU broadcast latencies"):
        model_frame("osu", None)
    with pytest.raises(ValidationError, match="unknown data source 'mars'"):
        model_frame("mars", per_rank)


def test_training_view_shows_the_result(trained):
    assert trained.scenario == "train_small_test_big" and trained.column == "ppn"
    options, default = color_choices(trained)
    assert default == "ppn" and options[0] == "subset" and options[-1] == "error_pct"
    panels = training_view(TrainingState(trained, seconds=2.25))
    assert panels.color_by == "ppn" and panels.color_options == options
    shown = sum(len(t.x) for t in panels.prediction.data if t.mode == "markers")
    assert shown == len(trained.predictions)
    assert "Tables 8.1/8.3/8.5" in panels.metrics and "best parameters" in panels.metrics
    assert "train small / test big (Table 8.3) trained in 2.2 s" in panels.status
    assert len(panels.importance.data) >= 1
    by_size = training_view(TrainingState(trained, color_by="message_bytes"))
    assert any("message_bytes" in (t.name or "") for t in by_size.prediction.data)
    with pytest.raises(ValidationError, match="colour by must be one of"):
        training_view(TrainingState(trained, color_by="colour"))


def test_view_composes_the_sections(per_rank, trained):
    panels = comm_ml_view(CommMLState(ranks=RankState(per_rank, "load", reference=3), training=TrainingState(trained)))
    assert len(panels.ranks.box.data) == 2 and panels.training.color_by == "ppn"
    assert len(panels.semi.main.data) == len(semi_empirical_view(SemiEmpiricalState()).main.data)
    alone = comm_ml_view(CommMLState())
    assert alone.ranks is None and alone.training is None
