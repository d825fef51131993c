"""Headless tests of the FiM-Cal dashboard: construct it, move its controls, check that the
figures and readouts change, and that bad input lands in the visible panel."""

from __future__ import annotations

import datetime
import os

import numpy as np
import pytest

from workbench.errors import MeasurementError, ValidationError
from workbench.evaluation import fim_explore
from workbench.evaluation.fim import KMEANS_FEATURES
from workbench.measure import current_measurement, fim_sweep
from workbench.ui import fim_dashboard as fd
from workbench.ui.common import (
    ERROR_CLASS,
    FIGURE_CLASS,
    MAIN_FIGURE_CLASS,
    PRIMARY_SLIDER_CLASS,
    STALE_CLASS,
    LiveFigure,
)
from workbench.ui.fim_dashboard import MAX_ITER, FiMDashboard, read_runs_upload, synthetic_kmeans_runs


@pytest.fixture(autouse=True)
def runtime_dir(monkeypatch, tmp_path):
    """A measurement lock of the test's own (the dashboard asks whether one is running)."""
    monkeypatch.setenv("WORKBENCH_RUNTIME_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def runs():
    return synthetic_kmeans_runs()


@pytest.fixture
def dash(runs):
    return FiMDashboard(runs=runs)


def _error(panel) -> str:
    return panel.value if f'class="{ERROR_CLASS}"' in panel.value else ""


def _trace(fig, prefix):
    return next(tr for tr in fig.data if (tr.name or "").startswith(prefix))


def _upload(d, name: str, content: bytes) -> None:
    """What the browser sends when a file is chosen in the FileUpload widget."""
    d.upload.value = ({"name": name, "type": "text/csv", "size": len(content), "content": memoryview(content),
                       "last_modified": datetime.datetime(2026, 1, 1)},)


def test_default_source_is_the_measured_dataset_from_the_catalogue():
    d = FiMDashboard()
    assert d.source.value == "kmeans-fim", d.notice.value
    assert d.notice.value == "" and not _error(d.messages) and not _error(d.notes)
    assert d.experiment is not None and "FiM (I, K, N)" in d.experiment.models
    assert d.last_update_s > 0  # measured, not asserted: bench/test_bench_dashboards.py times it


def test_dashboard_follows_the_convention(dash):
    assert not _error(dash.messages), dash.messages.value
    assert not _error(dash.notes), dash.notes.value
    assert PRIMARY_SLIDER_CLASS in dash.tau._dom_classes and MAIN_FIGURE_CLASS in dash.figure._dom_classes
    assert dash.figure.figure.layout.title.text.startswith("Algorithm 1")
    assert all(not c.continuous_update for c in (dash.alpha, dash.tau, dash.epsilon, dash.max_iter))
    fim = dash.experiment.models[dash.fim_name]
    assert dash.alpha.value == pytest.approx(fim.alpha_)  # alpha used starts at the calibrated alpha
    assert [tr.name for tr in dash.prediction.data][:4] == ["measured (median, min-max)", dash.fim_name,
                                                        "RBASP linear g", "RBASP quadratic g"]
    assert set(dash.figures) == {"parity", "table4", "surface", "heatmap", "occupancy"}
    assert "calibrated α" in dash.summary.value and "paper Table 4" in dash.table4.value



def test_every_panel_is_a_live_figure_that_follows_its_controls(dash):
    panels = (dash.parity_out, dash.table4_out, dash.surface_out, dash.heatmap_out, dash.occupancy_out)
    assert all(FIGURE_CLASS in p._dom_classes and "application/vnd.plotly.v1+json" in p.outputs[0]["data"]
               for p in panels)
    revision = dash.surface_out.revision
    dash.variable.value = "stall_cycles"
    shown = dash.surface_out.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert shown["layout"]["title"]["text"].startswith("SC =")
    assert dash.surface_out.revision == revision + 1 == shown["layout"]["meta"]["wb_revision"]


def test_alpha_used_for_prediction_scales_the_fim_curve_only(dash):
    before = np.asarray(_trace(dash.prediction, dash.fim_name).y, dtype=float)
    rbasp = np.asarray(_trace(dash.prediction, "RBASP linear g").y, dtype=float)
    alpha = dash.alpha.value
    dash.alpha.value = round(alpha * 0.9, 4)
    assert not _error(dash.messages), dash.messages.value
    after = np.asarray(_trace(dash.prediction, dash.fim_name).y, dtype=float)
    ok = np.isfinite(before) & np.isfinite(after)  # rows with alpha U > 1 are invalid (NaN)
    assert ok.any()
    before, after = before[ok], after[ok]
    # paper model: T = 1 / (F (1 - (1 - 1/(alpha TC))^t)), proportional to alpha for TC >> t
    np.testing.assert_allclose(after / before, round(alpha * 0.9, 4) / alpha, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(_trace(dash.prediction, "RBASP linear g").y, dtype=float), rbasp)
    assert list(_trace(dash.figure, "α used").x) == [dash.alpha.value] * 2
    assert f"{dash.alpha.value:.6g}" in dash.summary.value


def test_tau_epsilon_and_max_iter_rerun_algorithm_1(dash):
    dash.tau.value = 0.05
    assert list(_trace(dash.figure, "τ").y) == [0.05, 0.05]
    cal = dash.experiment.models[dash.fim_name].calibration_
    assert dash.experiment.models[dash.fim_name].tau == 0.05
    dash.epsilon.value = 0.01
    dash.max_iter.value = 200
    cal2 = dash.experiment.models[dash.fim_name].calibration_
    assert cal2 is not cal and cal2.iterations <= 200
    assert dash.alpha.value == pytest.approx(cal2.alpha)  # back at the new calibrated alpha
    np.testing.assert_allclose(_trace(dash.figure, "relative RMS").x, cal2.trace["alpha"])


def test_barrier_extension_is_capped_and_fast(dash):
    dash.max_iter.value = 5000
    dash.model.value = "barrier"
    assert not _error(dash.messages), dash.messages.value
    fim = dash.experiment.models[dash.fim_name]
    assert "barrier" in dash.fim_name and fim.model == "barrier" and fim.max_iter == MAX_ITER["barrier"]
    assert "(capped)" in dash.summary.value
    assert dash.last_update_s > 0  # measured, not asserted: bench/test_bench_dashboards.py times it
    assert dash.alpha_init.value == 1.0 and fim.alpha_init == 1.0  # 25 steps cannot walk from the paper's 0
    dash.model.value = "paper"
    assert dash.alpha_init.value == 0.0 and dash.experiment.models[dash.fim_name].alpha_init == 0.0


def test_features_switch_refits_fim_and_rbasp(dash):
    dash.features.value = "work"
    models = dash.experiment.models
    assert models[dash.fim_name].features == ("iterations*points", "iterations*clusters*points")
    assert list(models["RBASP linear g"].coef_.index) == ["intercept", *fd.FEATURES["work"], "q"]
    # the synthetic TC is linear in I K N: the work feature explains it exactly
    assert models[dash.fim_name].regression_.r2_["cycles"] == pytest.approx(1.0, abs=1e-6)


def test_markov_view_follows_t_and_the_configuration(dash):
    dash.processes.value = 3
    assert np.asarray(dash.figures["heatmap"].data[0].z).shape == (4, 5)  # 0..3 active + done
    dash.processes.value = 6
    z = np.asarray(dash.figures["heatmap"].data[0].z)
    assert z.shape == (7, 8)
    assert z[-1, -1] == pytest.approx(1 - (1 - 1 / fd.DISPLAY_TC) ** 6)  # Eq. 9 of the drawn chain
    assert "Eq. 10" in dash.markov_readout.value and "SC and U do not enter" in dash.markov_readout.value
    before = dash.markov_readout.value
    dash.config.value = dash.config.options[0][1]
    assert dash.markov_readout.value != before
    assert dash.prediction.figure.layout.title.text.startswith(dash.config.options[0][0])


def test_regression_view_controls(dash):
    assert dash.surface_view.value == "2d" and dash.figures["surface"].data[0].type == "scatter"
    tc = np.asarray(dash.figures["surface"].data[0].y, dtype=float)
    dash.variable.value = "utilization"
    u = np.asarray(dash.figures["surface"].data[0].y, dtype=float)
    assert tc.max() > 1e6 and u.max() < 2
    dash.axes.value = ("clusters", "points")
    assert [o[1] for o in dash.fixed.options] == [20.0, 40.0, 80.0]  # values of I in the training runs
    dash.fixed.value = 80.0
    assert "I=80" in dash.figures["surface"].layout.title.text
    assert dash.figures["surface"].layout.xaxis.title.text.startswith("K")
    dash.surface_view.value = "3d"  # paper Fig. 10
    fig = dash.figures["surface"]
    assert fig.data[0].type == "surface" and "I=80" in fig.data[1].name
    assert fig.layout.scene.xaxis.title.text.startswith("K") and fig.layout.scene.yaxis.title.text.startswith("N")


def test_bad_upload_shows_a_visible_error_and_keeps_the_data(dash, runs):
    source = dash.source.value
    _upload(dash, "broken.csv", b"processes,calc_time_s\n1,2.0\n")
    assert "broken.csv" in _error(dash.messages) and "missing the column" in dash.messages.value
    assert dash.source.value == source and dash.upload.value == ()
    _upload(dash, "notes.txt", b"hello")
    assert "notes.txt" in _error(dash.messages)
    good = runs.to_csv(index=False).encode()
    _upload(dash, "mine.csv", good)
    assert not _error(dash.messages), dash.messages.value
    assert dash.source.value == "upload" and "mine.csv" in dash.source.label
    assert "uploaded file mine.csv" in dash.data_summary.value


def test_read_runs_upload_names_the_file_and_bad_values():
    frame = synthetic_kmeans_runs(repeats=1)
    frame.loc[0, "calc_time_s"] = -1
    with pytest.raises(ValidationError, match="bad.csv: calc_time_s must be > 0"):
        read_runs_upload("bad.csv", frame.to_csv(index=False).encode())


def test_runs_without_counters_are_refused_visibly(runs):
    no_perf = runs.copy()
    no_perf[["cycles", "stall_cycles", "utilization", "freq_hz"]] = np.nan
    d = FiMDashboard(runs=runs)
    assert not d.load_csv("times_only.csv", no_perf.to_csv(index=False).encode())
    assert "no perf counters" in _error(d.messages)


def test_measure_button_runs_the_sweep_with_a_progress_bar(dash, monkeypatch):
    small = synthetic_kmeans_runs(repeats=1)
    calls = []

    def fake_measure(configs, repeats, progress):
        (config,) = configs
        calls.append((config.points, config.clusters, config.iterations, config.processes, config.role))
        mask = np.ones(len(small), dtype=bool)
        for f, v in zip(KMEANS_FEATURES, (config.iterations, config.clusters, config.points), strict=True):
            mask &= small[f].to_numpy() == v
        rows = small[mask & (small["processes"] == config.processes[0])]
        return rows if len(rows) else small.iloc[:1].assign(role=config.role, processes=config.processes[0])

    plan = (fd.KMeansConfig(50_000, 8, 20, processes=(1, 2, 4)), fd.KMeansConfig(100_000, 8, 20, processes=(1, 2, 4)),
            fd.KMeansConfig(50_000, 16, 20, processes=(1, 2, 4)), fd.KMeansConfig(50_000, 8, 40, processes=(1, 2, 4)),
            fd.KMeansConfig(100_000, 16, 40, processes=(1, 2, 4)),
            fd.KMeansConfig(320_000, 16, 40, processes=(1, 2, 3, 4), role="test"))
    shown = []

    def watched(configs, repeats, progress):
        bars = dash.progress.children
        shown.append((len(bars), bars[0].children[1].value if bars else None, current_measurement()))
        return fake_measure(configs, repeats, progress)

    monkeypatch.setattr(fim_sweep, "perf_unavailable_reason", lambda: None)
    monkeypatch.setattr(fim_sweep, "measure_kmeans", watched)
    assert dash.run_sweep(plan), dash.messages.value
    assert len(calls) == 19 and calls[-1][-1] == "test"
    assert dash.source.value == "sweep" and not dash.measure.disabled
    bars, done, holders = zip(*shown, strict=True)
    assert set(bars) == {1} and done[0] == 0  # the bar was shown during every run
    # the whole loop ran under one lock, announced with the most processes of the plan
    assert {h["what"] for h in holders} == {"FiM dashboard: small K-means sweep (19 runs)"}
    assert holders[0]["processes"] == 4 and holders[0]["pid"] == os.getpid()
    assert dash.progress.children == () and current_measurement() is None  # no bar left behind, lock released
    assert not dash.measure_note.value


def test_measure_button_without_perf_says_why(dash, monkeypatch):
    monkeypatch.setattr(fim_sweep, "perf_unavailable_reason", lambda: "perf not installed")
    source = dash.source.value
    assert not dash.run_sweep()
    assert "perf not installed" in _error(dash.messages) and dash.source.value == source
    assert dash.progress.children == () and not dash.measure.disabled  # no "measuring 0 %" bar left behind
    assert not any(p.stale for p in dash.panels if isinstance(p, LiveFigure))  # the data did not change
    with pytest.raises(MeasurementError, match="perf not installed"):
        fd.measure_small_sweep()


def test_every_control_recomputes(dash):
    for control, value in ((dash.alpha, 0.95), (dash.tau, 0.02), (dash.epsilon, 0.002), (dash.alpha_init, 0.9),
                           (dash.scale_u, False), (dash.processes, 8)):
        control.value = value
        assert not _error(dash.messages), dash.messages.value
        assert dash.last_update_s > 0  # measured, not asserted: bench/test_bench_dashboards.py times it


# ------------------------------------------------------------------ defaults, stale panels, the lock


def test_default_calibration_converges_on_the_measured_runs():
    d = FiMDashboard()
    fim = d.experiment.models[d.fim_name]
    c = fim.calibration_
    assert (fim.alpha_init, fim.tau, fim.epsilon) == (0.0, 0.5, 1e-3)  # the paper's start alpha = 0
    assert c.converged and c.rms < 0.5 and 0.8 < c.alpha < 1.0 and c.iterations > 100  # a real walk
    assert "NOT converged" not in d.summary.value and "(converged" in d.summary.value
    assert "wb-warning" not in d.notes.value and not _error(d.notes)
    d.tau.value = 0.01  # the paper's tau is out of reach on a 2-core machine: the summary says why
    assert "NOT converged" in d.summary.value and "lowest RMS on the walk is 0.48" in d.summary.value
    assert "wb-warning" in d.notes.value


def test_a_failed_refit_marks_every_panel_out_of_date(dash, monkeypatch):
    def refuse(*args, **kwargs):
        raise ValidationError("run_fim_experiment: no model could be fitted")

    monkeypatch.setattr(fim_explore, "run_fim_experiment", refuse)
    dash.tau.value = 0.2
    assert "no model could be fitted" in _error(dash.messages)
    for panel in dash.panels:
        assert (panel.stale if isinstance(panel, LiveFigure) else STALE_CLASS in panel.value), panel
    assert "Out of date" in dash.figure.figure.layout.title.text and "calibrated" not in dash.summary.value
    monkeypatch.undo()
    dash.tau.value = 0.3  # fixable: everything is drawn again
    assert not _error(dash.messages) and not any(p.stale for p in dash.panels if isinstance(p, LiveFigure))
    assert "calibrated α" in dash.summary.value and list(_trace(dash.figure, "τ").y) == [0.3, 0.3]


def test_new_data_that_cannot_be_fitted_are_kept_and_the_panels_marked(dash, runs, monkeypatch):
    good = runs.to_csv(index=False).encode()
    monkeypatch.setattr(fim_explore, "run_fim_experiment", lambda *a, **k: (_ for _ in ()).throw(
        ValidationError("run_fim_experiment: no model could be fitted")))
    assert not dash.load_csv("mine.csv", good)
    assert dash.source.value == "upload" and "mine.csv" in dash.data_summary.value  # the runs did change ...
    assert dash.figure.stale and dash.prediction.stale and "new data could not be fitted" in dash.summary.value
    monkeypatch.undo()
    dash.tau.value = 0.2  # ... and the next change draws them
    assert not dash.figure.stale and not _error(dash.messages)


def test_a_running_measurement_refuses_the_sweep_in_red_and_is_announced(dash, monkeypatch, measurement_elsewhere):
    monkeypatch.setattr(fim_sweep, "perf_unavailable_reason", lambda: None)
    monkeypatch.setattr(fim_sweep, "measure_kmeans", lambda *a, **k: pytest.fail("measured despite the lock"))
    # another measurement (another visitor's kernel would be another process)
    with measurement_elsewhere("K-means sweep (105 runs)", processes=8):
        source = dash.source.value
        assert not dash.run_sweep()
        message = _error(dash.messages)
        assert "another measurement is running (K-means sweep (105 runs), 8 processes" in message
        assert dash.source.value == source and dash.progress.children == () and not dash.measure.disabled
        note = dash.measure_note.value
        assert "a measurement is running (K-means sweep (105 runs), 8 processes, started" in note and "wb-info" in note
        assert FiMDashboard(runs=synthetic_kmeans_runs(repeats=1)).measure_note.value  # said on a fresh page too
    assert dash.show_measurement_state() is None and dash.measure_note.value == ""
