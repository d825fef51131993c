"""Curve tables (workbench.io.curves) and the scaling-corpus catalogue entry."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.errors import DataFormatError, ValidationError
from workbench.io import (
    CURVE_COLUMNS,
    curve_summary,
    curves_from_scaling_frame,
    fetch_dataset,
    list_datasets,
    read_curves_csv,
    read_scaling_corpus,
    validate_curves,
)


def test_validate_curves_fills_defaults_and_orders_columns():
    frame = validate_curves(pd.DataFrame({"curve_id": ["a", "a", "a"], "n": [1, 2, 4], "time_s": [3.0, 2.0, 1.5],
                                          "extra": [1, 2, 3]}))
    assert list(frame.columns) == CURVE_COLUMNS + ["extra"]
    assert frame["source"].eq("custom").all() and frame["unit"].eq("processes").all()
    assert frame["run"].tolist() == [0, 0, 0] and frame["app"].eq("a").all()


@pytest.mark.parametrize(("change", "message"), [
    ({"time_s": [3.0, -2.0, 1.5]}, r"'time_s' must be a finite number > 0 .*\[-2.0\] in rows \[1\]"),
    ({"n": [1, 0.5, 4]}, r"'n' must be a finite number >= 1"),
    ({"n": [1, 2, "x"]}, r"'n' must be a finite number"),
    ({"n": [1, 2, 2]}, r"several rows with n = 2 and run = 0"),
])
def test_validate_curves_names_the_problem(change, message):
    frame = pd.DataFrame({"curve_id": ["a"] * 3, "n": [1, 2, 4], "time_s": [3.0, 2.0, 1.5]}).assign(**change)
    with pytest.raises(ValidationError, match=message):
        validate_curves(frame)


def test_missing_columns_and_bad_files(tmp_path):
    with pytest.raises(ValidationError, match=r"missing column\(s\) 'time_s'"):
        validate_curves(pd.DataFrame({"curve_id": ["a"], "n": [1]}))
    with pytest.raises(DataFormatError, match="no such file"):
        read_curves_csv(tmp_path / "missing.csv")
    (tmp_path / "bin.csv").write_bytes(b"\x8f\x00\xff\xfe")
    with pytest.raises(DataFormatError, match="unknown format"):
        read_curves_csv(tmp_path / "bin.csv")
    (tmp_path / "ok.csv").write_text("curve_id,n,time_s\nx,1,4\nx,2,2.5\n")
    assert curve_summary(read_curves_csv(tmp_path / "ok.csv"))["n_points"].tolist() == [2]
    with pytest.raises(DataFormatError, match="not the scaling corpus"):
        read_scaling_corpus(tmp_path / "ok.csv")


def test_curves_from_a_scaling_frame():
    runs = fetch_dataset("synthetic-downey").frame
    curves = curves_from_scaling_frame(runs, source="synthetic")
    assert curves["source"].eq("synthetic").all() and curves["unit"].eq("processes").all()
    summary = curve_summary(curves)
    assert summary["n_points"].iloc[0] == runs["processes"].nunique()
    assert len(curves) == len(runs)


def test_scaling_corpus_from_the_catalogue(monkeypatch, data_mirror):
    monkeypatch.setenv("WORKBENCH_DATA_MIRROR", str(data_mirror))
    entry = list_datasets().set_index("name").loc["scaling-corpus"]
    assert entry["available"] and "GPL-3.0" in entry["licence"]
    data = fetch_dataset("scaling-corpus")
    assert "GPL-3.0" in data.description and "leave-one-source-out" in data.description
    curves = data.frame
    summary = curve_summary(curves)
    assert len(summary) == 152 and len(curves) == 1451
    assert summary["n_points"].min() >= 5
    assert set(summary["unit"]) == {"nodes", "gpus"}
    gpl = curves[curves["source"] == "hpc-uk/archer-benchmarks"]
    assert gpl["licence"].eq("GPL-3.0").all() and gpl["curve_id"].nunique() == 43
    assert (curves.groupby(["curve_id", "n"])["run"].nunique() > 1).groupby("curve_id").any().sum() == 28
