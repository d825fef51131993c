"""Headless tests of the fractal dashboard: construct it, move its controls, check that
the figures and readouts change, and that bad input lands in the visible panel.  Most
use the SYNTHETIC power-law profile (exact answers); one the measured demo."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.evaluation.fractal import synthetic_profile
from workbench.ui.common import ERROR_CLASS, MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS, STALE_CLASS, LiveFigure
from workbench.ui.fractal_dashboard import AUTO, DEMO, SYNTHETIC, UPLOAD, FractalDashboard


@pytest.fixture
def dash():
    return FractalDashboard(source=SYNTHETIC)


def _error(panel) -> str:
    return panel.value if f'class="{ERROR_CLASS}"' in panel.value else ""


def _fitted_x(d, phase="solve"):
    trace = next(t for t in d.figure.data if t.name == f"{phase}: fitted N_i")
    return np.asarray(trace.x, dtype=float)


def _csv(frame) -> bytes:
    return frame.to_csv(index=False).encode()


def test_dashboard_follows_the_convention(dash):
    assert PRIMARY_SLIDER_CLASS in dash.k._dom_classes and MAIN_FIGURE_CLASS in dash.figure._dom_classes
    others = (dash.threshold, dash.tolerance, dash.delta, dash.confidence)
    assert all(PRIMARY_SLIDER_CLASS not in s._dom_classes for s in others)
    assert all(not s.continuous_update for s in (dash.k, *others))
    assert not _error(dash.messages), dash.messages.value
    assert set(dash.figures) == {"shares", "table1"} and dash.shares_out.outputs and dash.table1_out.outputs
    dash.k.value = 4
    assert dash.shares_out.outputs[0]["data"]["application/vnd.plotly.v1+json"]["data"][-2]["name"] == "N_i fitted (4)"


def test_defaults_on_the_synthetic_profile(dash):
    e = dash.experiment
    assert e.phases == ("solve", "sweep") and e.target_size == 400 and e.k == 5
    assert dash.target.value == 400 and dash.C.value == AUTO and dash.delta.disabled
    assert dash.k.max == 8  # 9 small sizes: at most 8 distinct sizes above the smallest C
    assert dash.delta.value == pytest.approx(e.delta)  # auto delta shown on the slider
    assert "m = 3.000" in dash.readout.value and "Table 1 of Escobar & Boppana" in dash.table1_html.value
    assert dash.table1_html.value.count(">yes<") == 10  # every published prediction in its bracket


def test_k_redraws_the_main_figure(dash):
    before = _fitted_x(dash)
    bars_before = np.asarray(dash.bars.data[0].y, dtype=float)
    dash.k.value = 3
    after = _fitted_x(dash)
    assert after.size == 3 and before.size == 5 and not _error(dash.messages)
    np.testing.assert_allclose(after, np.log(dash.experiment.sizes / 400))
    assert 0 < dash.last_main_s <= dash.last_update_s and "main figure" in dash.readout.value
    # the prediction of the exact power law does not move, the shares (and so T) do
    np.testing.assert_allclose(np.asarray(dash.bars.data[0].y)[:2], bars_before[:2])
    assert "k = 3" in dash.readout.value


def test_threshold_changes_the_major_phases(dash):
    dash.threshold.value = 0.95
    assert dash.experiment.phases == ("solve", "sweep", "setup")
    assert any(t.name == "setup: m = 1.000" for t in dash.figure.data)
    assert list(dash.bars.data[0].x) == ["solve", "sweep", "setup", "total"]
    assert "setup" in dash.figures["shares"].layout.title.text


def test_chosen_c_and_delta(dash):
    dash.C.value = 40.0
    dash.delta_auto.value = False
    assert not dash.delta.disabled
    dash.delta.value = 40.0
    np.testing.assert_array_equal(dash.experiment.sizes, [80, 120, 160, 200])
    assert not dash.experiment.convergence_auto and "(chosen)" in dash.readout.value
    dash.delta.value = 20.0
    np.testing.assert_array_equal(dash.experiment.sizes, [60, 80, 100, 120, 140])


def _all_stale(d) -> bool:
    return all(p.stale if isinstance(p, LiveFigure) else STALE_CLASS in p.value for p in d.panels)


def test_an_impossible_design_shows_an_error_and_marks_the_panels_out_of_date(dash):
    before = _fitted_x(dash)
    dash.C.value = 160.0  # candidates above C: 180, 200
    dash.delta_auto.value = False
    dash.delta.value = 160.0  # every N_i maps onto 200
    assert "single measured size 200" in _error(dash.messages)
    # nothing pretends to show delta = 160: the fits of the last good state are not on screen
    assert _all_stale(dash) and len(dash.figure.data) == 0 and "Out of date" in dash.readout.value
    dash.delta_auto.value = True  # fixable: the message goes away, the panels come back
    assert not _error(dash.messages) and _fitted_x(dash).size == 2 and not dash.figure.stale
    assert not dash.bars.stale and STALE_CLASS not in dash.readout.value
    dash.C.value = AUTO
    np.testing.assert_array_equal(_fitted_x(dash), before)


def test_target_size_updates_the_c_choices(dash):
    dash.target.value = 200.0
    assert dash.experiment.target_size == 200 and dash.experiment.sizes.max() < 200
    assert max(v for _, v in dash.C.options if v != AUTO) < 200
    assert not _error(dash.messages)


def test_uploaded_csv_becomes_the_data(dash):
    frame = synthetic_profile(sizes=(100, 120, 140, 160, 180, 200), target_size=300)
    assert dash.load_files([("mine.csv", _csv(frame))])
    assert dash.source.value == UPLOAD and dash.target.value == 300
    assert dash.experiment.target_size == 300 and not _error(dash.messages)
    assert "uploaded profile" in dash.readout.value and dash.k.max == 5 and dash.k.value == 5


def test_a_profile_the_method_cannot_use_yet_is_loaded_with_a_hint(dash):
    # SYNTHETIC at tiny sizes: the share of the major phases is still moving at the largest small run
    frame = synthetic_profile(sizes=(10, 20, 30, 40, 50, 60), target_size=120)
    assert dash.load_files([("mine.csv", _csv(frame))])
    message = _error(dash.messages)
    assert "never stabilises" in message and "choose C" in message and dash.target.value == 120
    assert "previous data" not in message  # the panels say it themselves:
    assert _all_stale(dash) and "the new profile was loaded" in dash.figure.figure.layout.title.text
    dash.C.value = 20.0  # the hint works
    assert not _error(dash.messages) and dash.experiment.target_size == 120 and not dash.figure.stale


PPROF = """FUNCTION SUMMARY (mean):
---------------------------------------------------------------------------------------
%Time    Exclusive    Inclusive       #Call      #Subrs  Inclusive Name
              msec   total msec                          usec/call
---------------------------------------------------------------------------------------
100.0           10      {total}           1           2   {total}000 .TAU application
 80.0      {solve}      {solve}           1           0      {solve}000 solve
 10.0      {sweep}      {sweep}           1           0      {sweep}000 sweep
"""


def test_uploaded_pprof_outputs_named_by_size(dash):
    files = [(f"profile_{n}.txt", PPROF.format(total=n**3 // 500 + n * n // 20 + 10, solve=n**3 // 1000,
                                               sweep=n * n // 20).encode()) for n in (40, 60, 80, 100, 120, 240)]
    assert dash.load_files(files), dash.messages.value
    assert dash.source.value == UPLOAD and dash.experiment.target_size == 240
    assert set(dash.profile["phase"]) == {"solve", "sweep"} and "uploaded profile" in dash.readout.value
    assert dash.experiment.comparison.set_index("phase").loc["solve", "m"] == pytest.approx(3.0, abs=0.01)
    assert not dash.load_files([("run.txt", PPROF.format(total=20, solve=10, sweep=5).encode())])
    assert "does not record the input size" in _error(dash.messages) and dash.experiment.target_size == 240


def test_a_bad_upload_shows_a_message_and_keeps_the_data(dash):
    before = dash.experiment
    assert not dash.load_files([("broken.csv", b"size,phase\n1,a\n")])
    assert "time_s" in _error(dash.messages)
    assert dash.source.value == SYNTHETIC and dash.experiment is before
    assert not dash.load_files([("junk.pprof", b"\x00\x01 not a profile")])
    assert _error(dash.messages)
    two_sizes = synthetic_profile(sizes=(10,), target_size=20)
    assert not dash.load_files([("small.csv", _csv(two_sizes))])
    assert "at least 3" in _error(dash.messages) and dash.experiment is before


def test_the_measured_demo_is_the_default():
    d = FractalDashboard()
    assert d.source.value == DEMO and not d.notice.value and not _error(d.messages), d.messages.value
    e = d.experiment
    assert np.isfinite(e.error_total_pct) and e.target_size == d.profile["size"].max()
    before = np.asarray(d.figure.data[1].x, dtype=float)
    d.k.value = d.k.value + 1  # the browser test's move: the fitted sizes change
    assert not np.array_equal(before, np.asarray(d.figure.data[1].x, dtype=float))
