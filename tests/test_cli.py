"""The ``workbench`` command line as a person uses it: units and per-curve targets in
``predict``, ``benchmark`` on one source, and tables on screen that read as tables (units in
headers, whole numbers, percentages) while the files keep raw numbers."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from workbench.cli import _number, _text_table, main

MODELS = "amdahl,usl"  # fast members: the command line, not the models, is under test


@pytest.fixture
def nodes_csv(tmp_path):
    """Two curves in nodes: 'big' measured at 1024-4096 nodes, 'small' at 2-32 nodes."""
    rng = np.random.default_rng(1)
    rows = []
    for app, ns, work in (("big", (1024, 2048, 3072, 4096), 40000.0), ("small", (2, 4, 8, 16, 32), 500.0)):
        for n in ns:
            for run in range(2):
                rows.append({"app": app, "machine": "m1", "nodes": n,
                             "time_s": (5 + work / n) * rng.lognormal(0, 0.02)})
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _predict(capsys, *args):
    status = main(["predict", *map(str, args), "--models", MODELS, "--jobs", "1", "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


def test_node_counts_keep_their_column_whole_numbers_and_per_curve_targets(tmp_path, nodes_csv, capsys):
    out_csv = tmp_path / "preds.csv"
    status, out, err = _predict(capsys, nodes_csv, "--by", "app,machine", "--n-column", "nodes", "--targets", 16,
                                "2x", "--out", out_csv)
    assert status == 0 and err == ""
    text = out_csv.read_text()
    assert text.splitlines()[0] == ("app,machine,nodes,prediction,lower,upper,node_hours,model,warned,warnings,"
                                    "verdict,observed,error")
    preds = pd.read_csv(out_csv, keep_default_na=False, na_values=[""])
    assert preds["nodes"].dtype == np.int64  # whole numbers in the file: 16, not 16.0
    assert preds.groupby("app")["nodes"].apply(list).to_dict() == {"big": [16, 8192], "small": [16, 64]}
    big16 = preds[(preds["app"] == "big") & (preds["nodes"] == 16)].iloc[0]
    assert np.isnan(big16["prediction"])  # refused for this curve only
    assert big16["error"] == ("16 nodes: below this curve's smallest measured allocation (1,024 nodes); models "
                              "extrapolate to larger allocations only")
    done = preds[preds["error"].isna()]  # (an empty field in the CSV)
    assert len(done) == 3 and done["prediction"].gt(0).all()
    np.testing.assert_allclose(done["node_hours"], done["nodes"] * done["prediction"] / 3600)
    # on screen: units in the headers, whole allocations, no index, one summary line
    lines = out.splitlines()
    assert re.match(r"app\s+machine\s+nodes\s+runtime \(s\)\s+80 % interval \(s\)\s+node-hours\s+model\s+note$",
                    lines[0])
    assert re.match(r"big\s+m1\s+8,192\s+\d", lines[2]) and re.match(r"small\s+m1\s+64\s+\d", lines[4])
    assert "below this curve's smallest measured allocation" in lines[1]
    assert not re.search(r"\d\.0\b|e[+-]\d\d|NaN|nan", out)
    assert lines[-1] == (f"wrote {out_csv}: 3 predictions for 2 curves (allocations in nodes, costs in node-hours); "
                         "1 target not predicted: see the 'error' column")


def test_unit_names_the_labels_and_the_cost(tmp_path, nodes_csv, capsys):
    out_csv = tmp_path / "preds.parquet"
    status, out, err = _predict(capsys, nodes_csv, "--by", "app", "--n-column", "nodes", "--unit", "gpus",
                                "--targets", "4x", "--out", out_csv, "--rows", 0)
    assert status == 0, err
    preds = pd.read_parquet(out_csv)
    assert list(preds.columns[:6]) == ["app", "nodes", "prediction", "lower", "upper", "gpu_hours"]
    assert preds["nodes"].tolist() == [16384, 128] and str(preds["nodes"].dtype) == "Int64"
    assert out == (f"wrote {out_csv}: 2 predictions for 2 curves (allocations in GPUs, costs in GPU-hours)\n")


def test_targets_column_lists_each_curves_targets(tmp_path, nodes_csv, capsys):
    runs = pd.read_csv(nodes_csv)
    runs["want"] = np.nan
    runs.loc[runs.index[0], "want"] = 5000  # big
    runs.loc[runs.index[-1], "want"] = 48  # small
    runs.loc[runs.index[-2], "want"] = 100
    runs.to_csv(nodes_csv, index=False)
    out_csv = tmp_path / "preds.csv"
    status, out, err = _predict(capsys, nodes_csv, "--by", "app", "--n-column", "nodes", "--targets-column", "want",
                                "--out", out_csv)
    assert status == 0, err
    preds = pd.read_csv(out_csv)
    assert preds.groupby("app")["nodes"].apply(list).to_dict() == {"big": [5000], "small": [48, 100]}


@pytest.mark.parametrize(("targets", "message"), [
    (["87.2"], "target 87.2 (position 0) is not an allocation: targets are whole numbers >= 1"),
    (["0"], "target 0 (position 0) is not an allocation"),
    (["two"], "target two (position 0) is neither an allocation"),
    ([], "no targets: give --targets"),
])
def test_bad_targets_are_one_line_and_status_2(tmp_path, nodes_csv, capsys, targets, message):
    args = ["--targets", *targets] if targets else []
    status, out, err = _predict(capsys, nodes_csv, "--by", "app", "--n-column", "nodes", *args, "--out",
                                tmp_path / "p.csv")
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "p.csv").exists()


def test_benchmark_help_names_every_column(capsys):
    with pytest.raises(SystemExit):
        main(["benchmark", "--help"])
    text = capsys.readouterr().out
    for column in ("curve_id", "n ", "time_s", "run", "source"):
        assert f"\n  {column}" in text, column
    assert "measured more than once" in text and "calibration shipped with workbench" in text


def test_benchmark_on_one_source_falls_back_to_the_shipped_calibration(tmp_path, capsys):
    rng = np.random.default_rng(2)
    rows = [{"curve_id": f"c{i}", "n": n, "run": r, "time_s": (2 + 300 / n) * rng.lognormal(0, 0.03)}
            for i in range(3) for n in (1, 2, 4, 8, 16, 32) for r in range(2)]
    pd.DataFrame(rows).to_csv(tmp_path / "curves.csv", index=False)
    status = main(["benchmark", str(tmp_path / "curves.csv"), "--quiet", "--out", str(tmp_path / "board.csv")])
    out, err = capsys.readouterr()
    assert status == 0
    assert err.startswith("workbench benchmark: note: one source (custom): leave-one-source-out needs >= 2")
    assert err.count("\n") == 1
    lines = out.splitlines()
    assert lines[0] == ("Leaderboard: 3 curves from one source (custom), calibration: the one shipped with workbench "
                        "(not held out); allocations in processes")
    assert lines[1].split("  ")[0] == "model" and "median PA" in lines[1] and "within 10 %" in lines[1]
    predictor = next(line for line in lines if line.startswith("predictor"))
    assert re.search(r"predictor\s+\d+\s+\d+\s+\d+\.\d %\s+\d+ %", predictor)  # counts whole, shares in %
    rows = [re.split(r"\s{2,}", line) for line in lines[2:-1]]
    assert [r[0] for r in rows] == ["amdahl", "usl", "downey-lm", "adept", "pmnf", "predictor"]
    assert all(re.fullmatch(r"\d+", r[1]) and re.fullmatch(r"\d+", r[2]) for r in rows)  # counts: 24, not 24.0
    assert all(re.fullmatch(r"\d+ %|–", cell) for r in rows for cell in r[4:7])
    board = pd.read_csv(tmp_path / "board.csv")
    assert board["predictions"].dtype == np.int64
    assert board["within_10"].between(0, 1).all() and board["median_pa"].between(0, 100).all()  # raw numbers


def test_number_and_text_table_hand_cases():
    assert [_number(x) for x in (16163.4, 123.6, 12.345, 1.0, 0.012345, float("nan"))] == [
        "16,163", "124", "12.3", "1", "0.0123", "–"]
    frame = pd.DataFrame({"app": ["a", "bbb"], "nodes": ["16", "8,192"]})
    assert _text_table(frame) == "app  nodes\na       16\nbbb  8,192"


def test_output_problems_are_one_line_and_status_2(tmp_path, nodes_csv, capsys, monkeypatch):
    import workbench.batch.run as run

    (tmp_path / "folder.csv").mkdir()
    status, out, err = _predict(capsys, nodes_csv, "--by", "app", "--n-column", "nodes", "--targets", "2x", "--out",
                                tmp_path / "folder.csv")
    assert status == 2 and err == f"workbench predict: {tmp_path / 'folder.csv'} is a folder: give the output as a " \
                                  "file name ending in .csv or .parquet\n"

    def refused(path, data, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(run, "atomic_write", refused)  # (root can write anywhere: the refusal is simulated)
    status, out, err = _predict(capsys, nodes_csv, "--by", "app", "--n-column", "nodes", "--targets", "2x", "--out",
                                tmp_path / "p.csv")
    assert status == 2 and err == f"workbench predict: {tmp_path / 'p.csv.parts' / 'manifest.json'}: permission " \
                                  "denied\n"


def test_recommendations_on_screen_are_whole_allocations(tmp_path, nodes_csv, capsys):
    status, out, err = _predict(capsys, nodes_csv, "--by", "app", "--n-column", "nodes", "--targets", "2x", "4x",
                                "--deadline", 10, "--out", tmp_path / "p.csv")
    assert status == 0, err
    preds = pd.read_csv(tmp_path / "p.csv")
    small = preds[preds["app"] == "small"]
    met = small.loc[small["prediction"] <= 10, "nodes"]
    expected = f"{met.min():,}" if len(met) else "–"  # the smallest target whose prediction is <= 10 s
    header, *rows = out.splitlines()[:-1]
    assert "on time from (nodes)" in header and "efficient up to" not in header
    column = header.index("on time from (nodes)") + len("on time from (nodes)")
    assert [r[:column].split()[-1] for r in rows if r.startswith("small")] == [expected, expected]


def test_benchmark_on_two_sources_is_leave_one_source_out(tmp_path, capsys):
    rng = np.random.default_rng(3)
    rows = [{"curve_id": f"{src}{i}", "source": src, "n": n, "time_s": (2 + 300 / n) * rng.lognormal(0, 0.03)}
            for src in ("x", "y") for i in range(2) for n in (1, 2, 4, 8, 16)]
    pd.DataFrame(rows).to_csv(tmp_path / "curves.csv", index=False)
    status = main(["benchmark", str(tmp_path / "curves.csv"), "--quiet", "--unit", "gpus"])
    out, err = capsys.readouterr()
    assert status == 0
    # 2 curves per source are too few to learn a calibration without one source: said, and the
    # shipped calibration is used
    assert err == ("workbench benchmark: note: leave-one-source-out could not learn a calibration from 1 of the 2 "
                   "sources (an error model needs at least 20 held-back predictions, got 10), so the intervals, "
                   "warnings and the predictor's weights use the calibration shipped with workbench (learnt on its "
                   "own curves); the models' accuracy (PA, within 10 % / 20 %) does not depend on it\n")
    assert out.splitlines()[0] == ("Leaderboard: 4 curves from 2 sources, calibration: the one shipped with workbench "
                                   "(not held out); allocations in GPUs")
    # with enough curves per source, it is learnt leave-one-source-out
    rows = [{"curve_id": f"{src}{i}", "source": src, "n": n, "time_s": (2 + 300 / n) * rng.lognormal(0, 0.03)}
            for src in ("x", "y") for i in range(5) for n in (1, 2, 4, 8, 16, 32)]
    pd.DataFrame(rows).to_csv(tmp_path / "curves.csv", index=False)
    status = main(["benchmark", str(tmp_path / "curves.csv"), "--quiet", "--unit", "gpus"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert out.splitlines()[0] == ("Leaderboard: 10 curves from 2 sources, calibration learnt leave-one-source-out; "
                                   "allocations in GPUs")


@pytest.mark.parametrize("flag, value", [("--level", "-0.8"), ("--efficiency", "0"), ("--deadline", "-5"),
                                         ("--level", "nan")])
def test_numeric_options_refuse_values_that_are_not_positive(tmp_path, nodes_csv, capsys, flag, value):
    with pytest.raises(SystemExit) as stop:
        _predict(capsys, nodes_csv, "--by", "app", "--targets", 64, "--out", tmp_path / "p.csv", flag, value)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "expected a number > 0" in err and "Traceback" not in err
