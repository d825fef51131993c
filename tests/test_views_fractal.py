"""The fractal panels without widgets: :func:`workbench.views.fractal.fractal_view` on hand-made
states of the SYNTHETIC power-law profile (exact answers), the design choices the
dashboard offers (:func:`~workbench.evaluation.fractal.design_choices`) and the profile
files reader (:func:`~workbench.io.profiles.read_profile_files`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.fractal import design_choices, synthetic_profile
from workbench.io.profiles import read_profile_files
from workbench.ui.common import FitCache
from workbench.views.fractal import FractalState, fractal_view, table1_view

PROFILE = synthetic_profile()  # sizes 40, 60, ..., 200 and the target 400


def _state(**controls) -> FractalState:
    return FractalState(profile=PROFILE, data_key="synthetic", data_label="SYNTHETIC power laws", **controls)


def _fitted_x(fig, phase="solve") -> np.ndarray:
    return np.asarray(next(t for t in fig.data if t.name == f"{phase}: fitted N_i").x, dtype=float)


def test_the_synthetic_power_laws_are_recovered():
    panels = fractal_view(_state())
    e = panels.experiment
    assert e.phases == ("solve", "sweep") and e.target_size == 400 and e.k == 5
    assert _fitted_x(panels.main).size == 5
    np.testing.assert_allclose(_fitted_x(panels.main), np.log(e.sizes / 400))
    assert list(panels.bars.data[0].x) == ["solve", "sweep", "total"]
    assert panels.readout["data"] == "SYNTHETIC power laws"
    assert panels.readout["phase solve"].startswith("m = 3.000")
    assert panels.readout["phase sweep"].startswith("m = 2.000")
    assert panels.readout["major phases"] == "solve, sweep (cumulative ≥ 70%)"
    assert "(auto)" in panels.readout["C, δ, k"] and "error" in panels.readout["measured large run"]
    assert f"model notes ({len(e.notes)})" in panels.notes
    assert panels.shares.data[-2].name == "N_i fitted (5)"


def test_k_and_the_threshold_change_the_fit():
    assert _fitted_x(fractal_view(_state(k=3)).main).size == 3
    panels = fractal_view(_state(threshold=0.95))
    assert panels.experiment.phases == ("solve", "sweep", "setup")
    assert any(t.name == "setup: m = 1.000" for t in panels.main.data)
    assert "setup" in panels.shares.layout.title.text


def test_chosen_c_and_delta():
    e = fractal_view(_state(C=40.0, delta=40.0)).experiment
    np.testing.assert_array_equal(e.sizes, [80, 120, 160, 200])
    assert not e.convergence_auto
    assert "(chosen)" in fractal_view(_state(C=40.0, delta=40.0)).readout["C, δ, k"]


def test_an_impossible_design_is_a_clear_error():
    with pytest.raises(ValidationError, match="single measured size 200"):
        fractal_view(_state(C=160.0, delta=160.0))
    with pytest.raises(ValidationError, match="at least 2 small runs"):
        fractal_view(_state(target_size=30.0))


def test_a_cache_reuses_the_experiment_per_data_and_controls():
    cache = FitCache(8)
    first = fractal_view(_state(), cache).experiment
    assert fractal_view(_state(), cache).experiment is first
    assert fractal_view(replace(_state(), data_key="other"), cache).experiment is not first
    assert fractal_view(_state(k=4), cache).experiment is not first


def test_states_compare_by_name_and_controls_not_by_frame():
    other = synthetic_profile(sizes=(10, 20, 30), target_size=60)
    assert _state() == replace(_state(), profile=other) and _state() != _state(k=4)


def test_table1_every_published_prediction_is_in_its_bracket():
    table1 = table1_view()
    assert table1.table.count(">yes<") == 10 and "True" not in table1.table
    assert "Table 1 of Escobar & Boppana" in table1.table
    assert len(table1.figure.data) > 0


# ------------------------------------------------------------------ moved down from the dashboard


def test_design_choices_of_the_synthetic_profile():
    choices = design_choices(PROFILE)
    assert choices.target_size == 400 and list(choices.targets) == [80, 100, 120, 140, 160, 180, 200, 400]
    assert list(choices.convergence_sizes) == [40, 60, 80, 100, 120, 140, 160] and choices.k_max == 8
    assert (choices.delta_min, choices.delta_max) == (20, 160)
    smaller = design_choices(PROFILE, 200)
    assert list(smaller.small_sizes) == [40, 60, 80, 100, 120, 140, 160, 180] and smaller.k_max == 7
    with pytest.raises(ValidationError, match="at least 3"):
        design_choices(synthetic_profile(sizes=(10,), target_size=20))
    with pytest.raises(ValidationError, match="measured size above two others"):
        design_choices(PROFILE, 50)


def test_read_profile_files_reads_csv_and_named_pprof():
    frame = read_profile_files([("mine.csv", PROFILE.to_csv(index=False).encode())])
    assert set(frame["phase"]) == set(PROFILE["phase"]) and len(frame) == len(PROFILE)
    with pytest.raises(ValidationError, match="does not record the input size"):
        read_profile_files([("run.txt", b"whatever")])
    with pytest.raises(ValidationError, match="no file uploaded"):
        read_profile_files([])
