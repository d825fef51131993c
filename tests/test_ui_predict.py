"""Headless tests of the "Predict my runs" dashboard (notebook 00): build it without a
browser, move its controls programmatically, check the live figure and the readouts, bad
uploads in the error panel, and the leaderboard view on a small per-curve CSV."""

from __future__ import annotations

import datetime
import html

import numpy as np
import pandas as pd
import pytest

from workbench.io import MIRROR_ENV
from workbench.ui.common import ERROR_CLASS, MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS, STALE_CLASS, LiveFigure
from workbench.ui.predict_dashboard import PredictDashboard


@pytest.fixture
def no_mirror(monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)


@pytest.fixture
def dash(no_mirror, tmp_path):
    return PredictDashboard(benchmark_csv=tmp_path / "missing.csv")


def _ys(figure) -> list[np.ndarray]:
    return [np.asarray(tr.y if tr.y is not None else [], dtype=float) for tr in figure.data]


def _changed(before, figure) -> bool:
    after = _ys(figure)
    return len(before) != len(after) or any(a.shape != b.shape or not np.array_equal(a, b, equal_nan=True)
                                            for a, b in zip(before, after))


def _upload(picker, name: str, content: bytes) -> None:
    """What the browser sends when a file is chosen in the FileUpload widget."""
    picker.upload.value = ({"name": name, "type": "", "size": len(content), "content": memoryview(content),
                            "last_modified": datetime.datetime(2026, 1, 1)},)


def _error(panel) -> str:
    return html.unescape(panel.value) if f'class="{ERROR_CLASS}"' in panel.value else ""


def test_builds_on_bundled_data_and_says_so(dash):
    assert not _error(dash.messages), dash.messages.value
    assert "not available" in dash.picker.notice.value and "wb-warning" in dash.picker.notice.value
    assert dash.picker.source.value == "synthetic-downey"
    assert PRIMARY_SLIDER_CLASS in dash.target._dom_classes and MAIN_FIGURE_CLASS in dash.figure._dom_classes
    assert dash.target.continuous_update is False
    # target: the largest held-back allocation, beyond the observed ones; slider up to 16x
    assert dash.parameters()["target"] == max(dash.picker.processes) == 256
    options = dash.target.options  # whole allocations only (issue 23: the slider offered n = 87.2)
    assert options[0] == 1 and options[-1] == 16 * 256 and all(type(o) is int for o in options)
    assert list(options) == sorted(set(options)) and {1, 2, 4, 256, 4096} <= set(options)
    assert dash.figure.figure.layout.title.text.startswith("at n = 256 processes:")
    assert "80 % interval" in dash.figure.figure.layout.title.text
    for panel, text in ((dash.readout, "runtime at n = 256"), (dash.target_table, "Prediction at n = 256"),
                        (dash.weights, "◀ chosen"), (dash.next, "Where to measure next"),
                        (dash.holdout, "Held-back runs")):
        assert text in panel.value, (text, panel.value[:300])
    dash.target.value = 1024  # past the data: runs strictly between the largest measured and the target
    assert dash.next_frame is not None and list(dash.next_frame.columns) == ["n", "width_ratio", "narrowing", "cost"]
    assert not dash.next_frame.empty and f"n = {dash.next_frame['n'].iloc[0]:g} processes" in dash.next.value
    assert "cost of the run [process-hours]" in dash.next.value


def test_moving_the_target_redraws_figure_and_readout(dash):
    before, readout, title = _ys(dash.figure), dash.readout.value, dash.figure.figure.layout.title.text
    fit = dash.predictor
    dash.target.value = dash.target.options[dash.target.options.index(dash.target.value) + 5]  # 5 key presses
    target = dash.parameters()["target"]
    assert not _error(dash.messages), dash.messages.value
    assert _changed(before, dash.figure) and dash.figure.figure.layout.title.text != title
    assert dash.readout.value != readout and f"runtime at n = {target:g}" in dash.readout.value
    assert dash.predictor is fit  # same data: the fit is reused
    assert list(dash.frame["n"]) == [target]
    marker = [tr for tr in dash.figure.data if tr.name == "prediction at the target"][0]
    assert list(marker.x) == [target] and marker.y[0] == pytest.approx(dash.frame["prediction"].iloc[0])
    assert f"at n = {target:g}" in dash.next.value  # where to measure next follows the target


def test_level_and_model_boxes(dash):
    before = _ys(dash.figure)
    dash.level.value = 0.5
    assert _changed(before, dash.figure) and "50 % interval" in dash.figure.figure.layout.title.text
    dash.model_boxes["pmnf"].value = False
    hidden = [tr.name for tr in dash.figure.data if tr.visible is False]
    assert len(hidden) == 2 and all(name.startswith("PMNF") for name in hidden)


def test_toggling_observed_runs_refits(dash):
    fit = dash.predictor
    dash.picker.observed_n = [1, 2, 4, 8]
    assert not _error(dash.messages), dash.messages.value
    assert dash.predictor is not fit and list(dash.predictor.allocations_) == [1, 2, 4, 8]
    observed = [tr for tr in dash.figure.data if tr.name == "observed runs (fitted)"][0]
    assert sorted(set(observed.x)) == [1, 2, 4, 8]
    assert dash.parameters()["target"] == 256  # same curve: the target stays
    dash.picker.observed_n = [1, 8, 32, 192]
    assert dash.predictor is fit  # cached per (data, observed selection)


def test_too_few_observed_runs_mark_every_panel_out_of_date(dash):
    dash.picker.observed_n = [1, 2]
    assert ">= 3 distinct" in _error(dash.messages)
    assert len(dash.figure.data) == 0 and "Out of date" in dash.figure.figure.layout.title.text
    assert all(STALE_CLASS in p._dom_classes if isinstance(p, LiveFigure) else STALE_CLASS in p.value
               for p in dash.panels)
    assert "Out of date" in dash.readout.value and dash.predictor is None
    dash.picker.observed_n = [1, 2, 4]
    assert dash.messages.value == "" and len(dash.figure.data) > 0 and not dash.figure.stale
    assert dash.figure.figure.layout.title.text.startswith("at n = 256") and STALE_CLASS not in dash.readout.value


@pytest.mark.parametrize("name, content, expected", [
    ("notes.xlsx", b"PK\x03\x04binary", "notes.xlsx"),
    ("two.csv", b"processes,time_s\n1,10\n2,6\n", "at least 3"),
    ("negative.csv", b"processes,time_s\n1,10\n2,-6\n4,3\n", "> 0"),
])
def test_bad_uploads_show_a_message_and_mark_the_figure(dash, name, content, expected):
    before = _ys(dash.figure)
    _upload(dash.picker, name, content)  # must not raise
    assert expected in _error(dash.messages), dash.messages.value
    assert dash.picker.source.value == "synthetic-downey"  # the previous data stay selected
    assert dash.figure.figure.layout.title.text.startswith("⚠ Not updated")  # ... and the figure says so
    assert not _changed(before, dash.figure)
    dash.target.value = 64  # the next good update clears both
    assert dash.messages.value == "" and dash.figure.figure.layout.title.text.startswith("at n = 64")


def test_good_upload_becomes_the_data(dash):
    _upload(dash.picker, "mine.csv", b"processes,time_s\n1,100\n2,52\n4,27\n8,15\n16,9\n")
    assert not _error(dash.messages), dash.messages.value
    assert dash.picker.source.value == "upload" and list(dash.predictor.allocations_) == [1, 2, 4]
    assert dash.parameters()["target"] == 16 and "processes" in dash.figure.figure.layout.xaxis.title.text
    held = [tr for tr in dash.figure.data if tr.name == "held back (actual)"][0]
    assert sorted(held.x) == [8, 16]


def test_leaderboard_without_results_says_how_to_make_them(dash):
    assert dash.board.layout.display == "none"
    dash.view.value = "board"
    assert dash.board.layout.display is None and dash._views["predict"].layout.display == "none"
    assert "tools/scaling_benchmark.py" in dash.board_messages.value and "missing" in dash.board_messages.value


def _per_curve(path):
    rows = []
    for curve, fold in (("archer2-gromacs-benchpep-ofi-1thr", "ARCHER2-HPC/performance_ofi-ucx"),
                        ("gunrock-cc-soc-orkut-k40m", "gunrock/gunrock")):
        for model, pa in (("amdahl", 85.0), ("predictor", 91.0)):
            rows.append({"curve_id": curve, "fold": fold, "model": model, "predictions": 5, "refused": 0,
                         "median_pa": pa, "within_10": 0.4, "within_20": 0.8, "coverage": 0.8, "median_width": 1.6,
                         "constant_width": 1.8, "warned_share": 0.2, "miss_recall": 1.0, "good_silent": 0.75,
                         "fit_ms": 1.0})
    pd.DataFrame(rows).to_csv(path, index=False)
    overall = pd.DataFrame(rows).drop(columns=["curve_id", "fold"]).groupby("model", sort=False).first()
    overall.iloc[::-1].reset_index().to_csv(path.with_name("scaling_leaderboard.csv"), index=False)
    return path


def test_leaderboard_view_from_a_per_curve_csv(no_mirror, tmp_path):
    dash = PredictDashboard(benchmark_csv=_per_curve(tmp_path / "curves.csv"))
    dash.view.value = "board"
    assert not _error(dash.board_messages), dash.board_messages.value
    table = dash.board_table.value
    assert "Leaderboard" in table and table.index("predictor") < table.index("amdahl")  # predictor first
    assert "91.0 %" in table and "80 %" in table
    curves = [v for _, v in dash.board_curve.options]
    assert curves == ["archer2-gromacs-benchpep-ofi-1thr", "gunrock-cc-soc-orkut-k40m"]
    assert "archer2-gromacs-benchpep-ofi-1thr: metrics per model" in dash.board_metrics.value
    assert "not available" in dash.board_note.value  # no mirror: the metrics only
    dash.board_curve.value = "gunrock-cc-soc-orkut-k40m"
    assert "gunrock-cc-soc-orkut-k40m: metrics per model" in dash.board_metrics.value


def test_corpus_in_nodes_and_drill_down_with_the_mirror(monkeypatch, data_mirror, tmp_path):
    monkeypatch.setenv(MIRROR_ENV, str(data_mirror))
    dash = PredictDashboard(benchmark_csv=_per_curve(tmp_path / "curves.csv"))
    assert dash.picker.source.value == "scaling-corpus" and dash.picker.notice.value == ""
    assert dash.picker.curve_key[1] == "archer2-gromacs-benchpep-ofi-1thr"
    assert "nodes" in dash.figure.figure.layout.xaxis.title.text and "n counts" in dash.readout.value
    assert dash.target.description == "target n (nodes)"
    dash.view.value = "board"
    assert not _error(dash.board_messages) and dash.board_note.value == ""
    fig = dash.figures["board"]
    assert fig.layout.title.text.startswith("archer2-gromacs-benchpep-ofi-1thr, protocol k3: at n = 256 nodes")
    observed = [tr for tr in fig.data if tr.name == "observed runs (fitted)"][0]
    assert sorted(set(observed.x)) == [1, 2, 4] and dash.board_out.layout.display is None
    plotly = [o for o in dash.board_out.outputs if "application/vnd.plotly.v1+json" in o["data"]]
    assert plotly == [dash.board_out.outputs[0]]
    dash.board_protocol.value = "spread"
    observed = [tr for tr in dash.figures["board"].data if tr.name == "observed runs (fitted)"][0]
    assert sorted(set(observed.x)) == [1, 4, 16, 64, 256]


def test_what_n_counts_is_chosen_and_labels_and_costs_follow(dash):
    import base64
    import re

    assert dash.unit.value == "processes" and [v for _, v in dash.unit.options] == ["processes", "nodes", "gpus",
                                                                                     "cores"]
    dash.unit.value = "gpus"  # plain processes,time_s data whose n are GPUs
    assert not _error(dash.messages), dash.messages.value
    assert dash.target.description == "target n (GPUs)" and "GPUs" in dash.figure.figure.layout.xaxis.title.text
    assert "read as GPUs" in dash.unit_note.value and dash.per_node.description == "GPUs per node"
    assert "GPU-hours" in dash.readout.value and "process" not in dash.readout.value
    dash.per_node.value = 4  # with the node size the cost is in node-hours: ceil(n / 4) nodes x runtime
    target = dash.parameters()["target"]
    hours = float(re.search(r"([\d.]+) node-hours", dash.readout.value).group(1))
    assert hours == pytest.approx(np.ceil(target / 4) * dash.frame["prediction"].iloc[0] / 3600, rel=1e-2)
    # the predictions table downloads as CSV (a data: link, works offline)
    link = dash.download.value
    assert 'download="predictions_gpus.csv"' in link and "data:text/csv;base64," in link
    csv = base64.b64decode(re.search(r"base64,([^\"]+)", link).group(1)).decode().splitlines()
    assert csv[0].startswith("n,unit,prediction_s,lower_s,upper_s,level,model,warned,warnings")
    assert any(line.startswith(f"{target:g},gpus,") for line in csv[1:])


def test_an_upload_with_processes_and_nodes_lets_the_user_choose(dash):
    runs = "processes,nodes,time_s\n" + "\n".join(f"{p},{max(1, p // 4)},{100 * (0.05 + 0.95 / p):.4f}"
                                                   for p in (1, 2, 4, 8, 16, 32, 64))
    _upload(dash.picker, "both.csv", runs.encode())
    assert not _error(dash.messages), dash.messages.value
    assert dash.unit.value == "processes" and "both processes and nodes" in dash.unit_note.value
    dash.unit.value = "nodes"
    assert dash.picker.processes == [1.0, 2.0, 4.0, 8.0, 16.0] and dash.unit_note.value == ""
    assert dash.target.description == "target n (nodes)" and "node-hours" in dash.readout.value
    assert all(type(o) is int for o in dash.target.options)
