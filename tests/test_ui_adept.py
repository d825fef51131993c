"""Headless tests of the ADEPT dashboards and the data picker: construct them, move their
controls programmatically, check that the live figures change and errors land in the
visible panel instead of raising."""

from __future__ import annotations

import datetime
import re

import numpy as np
import pytest

from workbench.errors import DataFormatError, ValidationError
from workbench.io import MIRROR_ENV
from workbench.models import downey
from workbench.models.adept import Adept, detect_anomalies
from workbench.plots.adept import curve_warnings
from workbench.ui.adept_dashboard import AdeptDashboard, adept_dashboard
from workbench.ui.anomalies import AnomalyDashboard, synthetic_anomaly_frame, verdict_html
from workbench.ui.common import ERROR_CLASS, MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS, STALE_CLASS, FitCache, frame_html
from workbench.ui.cross_size import CrossSizeDashboard, base_candidates
from workbench.ui.data_picker import DataPicker, default_observed, read_uploads

PI_CG_C = [f"npb-pi-cluster/results/cg/cg-C-{n}-{n // 4}.out" for n in (4, 8, 16, 32, 64)]  # 4 per node


@pytest.fixture
def no_mirror(monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)


def _ys(figure) -> list[np.ndarray]:
    return [np.asarray(tr.y if tr.y is not None else [], dtype=object) for tr in figure.data]


def _changed(before, figure) -> bool:
    after = _ys(figure)
    return len(before) != len(after) or any(
        a.shape != b.shape or not np.array_equal(a.astype(float), b.astype(float), equal_nan=True)
        for a, b in zip(before, after))


def _upload(picker, name: str, content: bytes) -> None:
    """What the browser sends when a file is chosen in the FileUpload widget."""
    picker.upload.value = ({"name": name, "type": "", "size": len(content), "content": memoryview(content),
                            "last_modified": datetime.datetime(2026, 1, 1)},)


def _error(panel) -> str:
    return panel.value if f'class="{ERROR_CLASS}"' in panel.value else ""


# ------------------------------------------------------------------ data picker


def test_picker_keeps_the_previous_curve_when_a_curve_cannot_be_selected(no_mirror, monkeypatch):
    from workbench.ui import data_picker

    picker = DataPicker(("synthetic-cross-size",))
    fired = []
    picker.on_change(fired.append)
    before, runs = picker.curve.value, picker.runs
    other = next(v for _, v in picker.curve.options if v != before)

    def refuse(*args, **kwargs):
        raise ValidationError("cannot select it")

    monkeypatch.setattr(data_picker, "select_curve", refuse)
    picker.curve.value = other
    assert "cannot select it" in _error(picker.messages)
    # the menu shows the curve whose runs and toggles are still in use, and nobody was told of a change
    assert picker.curve.value == before and picker.runs is runs and not fired


def test_picker_summary_escapes_names_from_the_data(no_mirror):
    picker = DataPicker()
    evil = "<img src=x onerror=alert(1)>"
    rows = "".join(f"{evil},A,{n},{100 / n:.3f}\n" for n in (1, 2, 4, 8))
    assert picker.load_files([("evil.csv", f"benchmark,problem_class,processes,time_s\n{rows}".encode())])
    assert evil not in picker.summary.value and "&lt;img src=x onerror=alert(1)&gt;" in picker.summary.value


def test_default_observed_rule():
    assert default_observed([1, 2, 4, 8, 16, 32]) == [1, 2, 4, 8]
    assert default_observed([4, 8, 16, 32, 64]) == [4, 8, 16]
    assert default_observed([8, 16]) == [8, 16]
    assert default_observed([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]) == [1, 8, 32, 192]


def test_read_uploads_names_the_bad_file():
    with pytest.raises(DataFormatError, match="notes.xlsx"):
        read_uploads([("ok.csv", b"processes,time_s\n1,10\n2,6\n"), ("notes.xlsx", b"PK\x03\x04")])
    with pytest.raises(ValidationError, match="no file"):
        read_uploads([])
    frame = read_uploads([("runs.csv", b"processes,time_s\n1,10\n2,6\n4,3.5\n")])
    assert frame["time_s"].tolist() == [10.0, 6.0, 3.5] and frame["benchmark"].iloc[0] == "runs"


def test_picker_exposes_observed_and_held_back(no_mirror):
    picker = DataPicker()
    assert "not available" in picker.notice.value and "wb-warning" in picker.notice.value
    assert picker.source.value == "synthetic-downey"
    assert picker.observed_n == (1.0, 8.0, 32.0, 192.0)
    n, t = picker.observed
    assert sorted(set(n)) == [1.0, 8.0, 32.0, 192.0] and len(n) == 6  # three repeated runs at n = 32
    held_n, _ = picker.held_back
    assert set(held_n) == set(picker.processes) - {1.0, 8.0, 32.0, 192.0}
    seen = []
    picker.on_change(lambda p: seen.append(p.observed_n))
    picker.observed_n = [2, 8, 32]
    assert seen == [(2.0, 8.0, 32.0)]
    assert [b.value for b in picker.points.children].count(True) == 3
    with pytest.raises(ValidationError, match="not in the curve"):
        picker.observed_n = [5]


def test_picker_upload_of_a_csv_becomes_the_source(no_mirror):
    picker = DataPicker()
    seen = []
    picker.on_change(lambda p: seen.append(p.curve_key))
    _upload(picker, "mine.csv", b"processes,time_s\n1,100\n2,52\n4,27\n8,15\n16,9\n")
    assert not _error(picker.messages), picker.messages.value
    assert picker.source.value == "upload" and seen == [("mine", "n/a", "default placement")]
    assert picker.observed_n == (1.0, 2.0, 4.0)
    assert picker.upload.value == ()  # cleared, so the same file can be uploaded again


def test_picker_catalogue_source_and_npb_log_upload(monkeypatch, data_mirror):
    monkeypatch.setenv(MIRROR_ENV, str(data_mirror))
    picker = DataPicker(source="npb-pi-cluster")
    assert picker.notice.value == "" and picker.source.value == "npb-pi-cluster"
    assert picker.curves["n_points"].min() >= 3
    files = [(p.rsplit("/", 1)[1], (data_mirror / p).read_bytes()) for p in PI_CG_C]
    assert picker.load_files(files)
    assert picker.curve_key == ("cg", "C", "4 per node") and picker.processes == [4.0, 8.0, 16.0, 32.0, 64.0]


# -------------------------------------------------------------- ADEPT dashboard


def test_adept_dashboard_reacts_to_its_controls(no_mirror):
    d = AdeptDashboard()
    assert not _error(d.messages), d.messages.value
    assert PRIMARY_SLIDER_CLASS in d.q._dom_classes and MAIN_FIGURE_CLASS in d.figure._dom_classes
    assert d.q.continuous_update is False and d.delta.continuous_update is False
    assert "not available" in d.picker.notice.value  # visible note about the missing mirror
    assert "Prediction vs actual" in d.tables.value and "Per-target fits" in d.tables.value
    before = _ys(d.figure)
    d.q.value = 2.25
    assert not _error(d.messages), d.messages.value
    assert _changed(before, d.figure)
    assert d.model.q == 2.25

    before = _ys(d.figure)
    d.view.value = "runtime"
    assert _changed(before, d.figure) and d.figure.figure.layout.yaxis.type == "log"
    before = _ys(d.figure)
    d.units.value = "paper"
    assert d.model.units == "paper" and _changed(before, d.figure)
    assert d.last_update_s < 30  # measured ~0.2-0.5 s; a hang would show here


def test_adept_dashboard_errors_go_to_the_panel(no_mirror):
    d = AdeptDashboard()
    before = _ys(d.figure)
    d.picker.observed_n = [1, 2]
    assert "at least 3 different processor counts" in _error(d.messages)
    # nothing on screen pretends to show the new selection: the panels say they are out of date
    assert d.figure.stale and len(d.figure.data) == 0 and "Out of date" in d.figure.figure.layout.title.text
    assert all(STALE_CLASS in panel.value for panel in (d.summary, d.tables, d.warnings))
    _upload(d.picker, "x.csv", b"garbage")
    assert "x.csv" in _error(d.messages)
    assert d.picker.source.value == "synthetic-downey"
    d.picker.observed_n = [1, 2, 4, 8]
    assert d.messages.value == "" and not d.figure.stale and _changed(before, d.figure)
    assert STALE_CLASS not in d.summary.value and "mean PA" in d.summary.value


def test_fit_cache_reuses_models():
    cache, calls = FitCache(size=2), []
    make = lambda v: (lambda: calls.append(v) or v)  # noqa: E731
    assert cache.get("a", make(1)) == 1 and cache.get("a", make(2)) == 1
    cache.get("b", make(3))
    cache.get("c", make(4))  # evicts "a"
    assert cache.get("a", make(5)) == 5 and calls == [1, 3, 4, 5]
    assert "–" in frame_html(synthetic_anomaly_frame().assign(x=np.nan).head(2))


# ------------------------------------------------------------ anomaly dashboard


def test_anomaly_dashboard_epsilon_theta_and_verdict(no_mirror):
    d = AnomalyDashboard()
    assert not _error(d.messages), d.messages.value
    assert PRIMARY_SLIDER_CLASS in d.epsilon._dom_classes and MAIN_FIGURE_CLASS in d.figure._dom_classes
    assert d.picker.observed_n == (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
    assert "n = 32" in d.verdict.value
    before = _ys(d.figure)
    d.epsilon.value = 0.15
    assert not _error(d.messages) and _changed(before, d.figure)
    threshold = np.asarray(d.figure.data[1].y, float)
    np.testing.assert_allclose(threshold[np.isfinite(threshold)],
                               np.repeat(1.15 * d.model.anomalies_.r["R"].to_numpy()[:-1], 2))
    before = _ys(d.fit_figure)
    d.theta.value = 2.0
    assert _changed(before, d.fit_figure)
    factor = dict(zip(d.fit_figure.data[-2].x, d.fit_figure.data[-2].y))
    D = d.model.anomalies_.anomalies.set_index("n")["D"][32.0]
    assert factor["n=32"] == pytest.approx(max(0.0, (2.0 - D) / 2.0))
    assert d.baseline.anomalies_.candidates.empty  # "without anomaly handling"


def test_anomaly_dashboard_too_few_points(no_mirror):
    d = AnomalyDashboard()
    d.picker.observed_n = [1, 2]
    assert "at least 3" in _error(d.messages)
    # both figures and every readout say they are out of date, none shows the previous runs
    assert d.figure.stale and d.fit_figure.stale
    assert all(STALE_CLASS in p.value for p in (d.summary, d.verdict, d.warnings, d.tables))
    d.picker.observed_n = [1, 2, 4, 8, 16]
    assert not _error(d.messages) and not d.figure.stale and not d.fit_figure.stale
    assert "pattern" in d.verdict.value


def test_synthetic_anomaly_frame_is_labelled_and_injected():
    f = synthetic_anomaly_frame()
    assert f["benchmark"].unique().tolist() == ["SYNTHETIC-anomaly"]
    assert f["source"].str.startswith("SYNTHETIC").all()
    clean = synthetic_anomaly_frame(speedup_excess=0.0)
    ratio = clean["time_s"].to_numpy() / f["time_s"].to_numpy()
    np.testing.assert_allclose(ratio, np.where(f["processes"] == 32, 1.25, 1.0))
    with pytest.raises(ValueError, match="anomaly_at"):
        synthetic_anomaly_frame(anomaly_at=3)
    assert "none (no R increase" in verdict_html(detect_anomalies(clean["processes"], clean["time_s"]))


# --------------------------------------------------------- cross-size dashboard


def test_cross_size_dashboard_reacts_to_q(no_mirror):
    d = CrossSizeDashboard()
    assert not _error(d.messages), d.messages.value
    assert d.picker.curve_key[:2] == ("downey-synthetic", "large") and d.picker.observed_n == (1.0, 2.0)
    assert d.base.value[:2] == ("downey-synthetic", "small")
    assert PRIMARY_SLIDER_CLASS in d.q._dom_classes and MAIN_FIGURE_CLASS in d.figure._dom_classes
    assert "runtime ratio" in d.summary.value
    before = _ys(d.figure)
    d.q.value = 2.25
    assert not _error(d.messages) and _changed(before, d.figure)
    d.picker.observed_n = [1]
    assert "2 processor counts on the target size, got 1" in _error(d.messages)
    assert d.figure.stale and all(STALE_CLASS in p.value for p in (d.summary, d.tables, d.warnings))
    d.picker.observed_n = [1, 2]
    assert not _error(d.messages) and not d.figure.stale and "runtime ratio" in d.summary.value


def test_base_candidates_same_benchmark_only(no_mirror):
    d = CrossSizeDashboard()
    curves = d.picker.curves
    assert base_candidates(curves, ("downey-synthetic", "large", "default placement")) == [
        ("downey-synthetic", "small", "default placement")]
    assert base_candidates(curves, ("other", "large", "default placement")) == []


def test_cross_size_works_on_the_real_pi_cluster_logs(monkeypatch, data_mirror):
    monkeypatch.setenv(MIRROR_ENV, str(data_mirror))
    d = CrossSizeDashboard()
    assert "two problem sizes" in d.needs.value  # said before the user tries
    d.picker.source.value = "npb-pi-cluster-merged"
    assert not _error(d.messages)
    # NPB ep class F (8, 16 observed; 64 held back) from class D on 4..64 processes
    assert d.picker.curve_key[:2] == ("ep", "F") and d.base.value[:2] == ("ep", "D")
    assert list(d.picker.held_back[0]) == [64.0]
    assert np.isfinite(d.model.predict([64.0])).all() and "ratio R" in d.figure.figure.layout.title.text


def test_cross_size_says_what_it_needs_for_data_without_two_sizes(no_mirror):
    d = CrossSizeDashboard()
    before = d.picker.source.value
    one_class = b"benchmark,problem_class,processes,time_s\nx,A,1,10\nx,A,2,5.2\nx,A,4,2.9\nx,A,8,1.7\n"
    assert not d.picker.load_files([("one_class.csv", one_class)])
    assert "no curve this dashboard can use" in _error(d.messages) and "two problem sizes" in _error(d.messages)
    assert d.picker.source.value == before  # the previous data stay, with their figure


def test_the_default_curve_gives_one_saturation_point_and_suggestions_inside_the_drawn_range():
    # issue 23: the bundled example said the linear section "ends at n = 862788", that
    # saturation is at n = 240 and at n = 255, and suggested runs at 3072, 327 and 241: the
    # fits for targets inside the data (n <= 192) saturate elsewhere than those past it
    dash = adept_dashboard()
    model, drawn = dash.model, dash.model.fits_["target"]
    top = max(dash.picker.observed_n)
    warnings = curve_warnings(model, np.union1d(drawn, dash.picker.held_back[0]))
    kinds = [w.kind for w in warnings]
    assert kinds == ["saturation-near-range"]  # one saturation point, demanded by the data
    [w] = warnings
    assert min(w.targets) > top and top < w.suggested_n < drawn.max()
    quoted = [float(v) for v in re.findall(r"n = (\d+(?:\.\d+)?)", w.message)]
    assert quoted and all(top < v <= drawn.max() for v in quoted)
    shown = dash.warnings.value
    assert "862788" not in shown and "3072" not in shown and "327" not in shown
    assert shown.count("stops speeding up") == 1
    # the per-target fits inside the data carry no saturation warning in the held-back table either
    assert not any(k in dash.tables.value for k in ("linear-section", "saturation-undetermined"))


def test_the_linear_section_warning_quotes_nothing_past_the_largest_target():
    # all observations far below A = 600 (the first piece ends past every target)
    n = np.array([4, 8, 16, 32.0])
    model = Adept(pass1_size=1000, pass2_size=100).fit(n, 3.7 * downey.runtime(n, 600, 0.5))
    targets = np.array([4, 8, 16, 32, 64, 128.0])
    [w] = [w for w in model.warnings_for(targets) if w.kind == "linear-section"]
    assert 32 < w.suggested_n <= 128 and "past n = 128, the largest target" in w.message
    assert all(float(v) <= 128 for v in re.findall(r"n = (\d+)", w.message))
