"""Curve tables (workbench.io.curves) and the scaling-corpus catalogue entry."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.errors import DataFormatError, ValidationError
from workbench.io import (
    CURVE_COLUMNS,
    TOPOLOGY_COLUMNS,
    curve_summary,
    curves_from_scaling_frame,
    development_curves,
    fetch_dataset,
    list_datasets,
    read_curve_extract,
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


def _topology_frame(**change):
    frame = pd.DataFrame({"curve_id": ["a"] * 4, "n": [1, 2, 4, 8], "time_s": [8.0, 4.2, 2.3, 1.4],
                          "unit": "nodes", "processes": [16, 32, 64, 128], "nodes": [1, 2, 4, 8],
                          "cores_per_node": [16] * 4, "gpus_per_node": [None] * 4})
    return frame.assign(**change)


def test_topology_columns_are_typed_and_placed_after_the_curve_columns():
    frame = validate_curves(_topology_frame(extra=list("wxyz")))
    assert list(frame.columns) == CURVE_COLUMNS + TOPOLOGY_COLUMNS + ["extra"]
    assert all(str(frame[c].dtype) == "Int64" for c in TOPOLOGY_COLUMNS)
    assert frame["processes"].tolist() == [16, 32, 64, 128] and frame["gpus_per_node"].isna().all()
    # a table with only some of the topology columns keeps those only
    partial = validate_curves(_topology_frame().drop(columns=["processes", "gpus_per_node"]))
    assert list(partial.columns) == CURVE_COLUMNS + ["nodes", "cores_per_node"]


@pytest.mark.parametrize(("change", "message"), [
    ({"nodes": [1, 2, 4, 0]},
     r"'nodes' must be a whole number >= 1 \(or empty when not known\); found \[0\] in rows \[3\]"),
    ({"processes": [16, 32.5, 64, 128]}, r"'processes' must be a whole number >= 1.*\[32.5\] in rows \[1\]"),
    ({"gpus_per_node": [None, "four", None, None]},
     r"'gpus_per_node' must be a whole number.*\['four'\] in rows \[1\]"),
    ({"processes": [16, 32, 2, 128], "unit": "processes", "n": [16, 32, 2, 128]},
     r"more nodes than processes.*nodes vs processes: 4 vs 2\) in rows \[2\]"),
    ({"cores_per_node": [16, 16, 16, 8]}, r"more processes per node than cores_per_node \(128 processes on 8 nodes of "
                                          r"8 cores\) in rows \[3\]"),
    ({"nodes": [1, 2, 4, 16]}, r"unit 'nodes' but column 'nodes' differs from n \(n = 8, nodes = 16\) in rows \[3\]"),
])
def test_topology_checks_name_the_row(change, message):
    with pytest.raises(ValidationError, match=message):
        validate_curves(_topology_frame(**change))


def test_topology_missing_values_are_allowed(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("curve_id,n,time_s,processes,nodes,cores_per_node,gpus_per_node\n"
                    "a,4,3.0,4,,32,\na,8,2.0,8,1,,\na,64,1.0,64,2,32,\n")
    frame = read_curves_csv(path)
    assert frame["nodes"].isna().tolist() == [True, False, False]
    blank = validate_curves(_topology_frame(nodes=["1", " ", "", None], unit="processes", n=[16, 32, 64, 128]))
    assert blank["nodes"].isna().tolist() == [False, True, True, True] and blank["nodes"].iloc[0] == 1
    path.write_text("curve_id,n,time_s,processes,nodes\na,4,3.0,4,1\na,8,2.0,8,9\n")
    with pytest.raises(ValidationError, match=r"more nodes than processes.*in lines \[3\]"):
        read_curves_csv(path)


def test_npb_curves_carry_their_topology(data_mirror):
    from workbench.io import fetch_npb_pi_cluster

    with pytest.warns(Warning):  # the Pi cluster has aborted logs, skipped with a warning
        runs = fetch_npb_pi_cluster(mirror=data_mirror).frame
    curves = curves_from_scaling_frame(runs, source="npb-pi-cluster", min_points=4)
    assert curves["processes"].astype(float).tolist() == curves["n"].tolist()
    assert curves["cores_per_node"].eq(4).all() and curves["gpus_per_node"].isna().all()
    packed = curves[curves["curve_id"] == "cg-C-packed (4 per node)"]
    assert packed["n"].tolist() == [4, 8, 16, 32, 64] and packed["nodes"].tolist() == [1, 2, 4, 8, 16]
    # a scaling frame without a machine's cores per node leaves them unknown
    synthetic = curves_from_scaling_frame(fetch_dataset("synthetic-downey").frame)
    assert synthetic["cores_per_node"].isna().all() and synthetic["nodes"].isna().all()


def test_read_curve_extract_refuses_other_tables(tmp_path):
    (tmp_path / "curves.csv").write_text("curve_id,source_repo,n,time_s\nx,a/b,1,4\n")
    with pytest.raises(DataFormatError, match=r"not a curve extract.*'commit', 'processes'"):
        read_curve_extract(tmp_path, licence="MIT")


#: Curves and runs per source of the development curves (the mirror's sets and data/external).
DEVELOPMENT_SOURCES = {
    "ARCHER2-HPC/performance_ofi-ucx": (15, 496),
    "hpc-uk/archer-benchmarks": (43, 393),
    "AMReX-Astro/Castro": (31, 185),
    "gunrock/gunrock": (63, 377),
    "JohnnyPol/Pi_Cluster-ECE_NTUA_2024-2025": (5, 24),
    "ukri-excalibur/excalibur-tests": (24, 169),
    "mlcommons/training_results_v0.7": (1, 50),
    "mlcommons/training_results_v0.6": (4, 170),
    "CMASCenter/pcluster-cmaq": (8, 68),
    "UoB-HPC/pmbs26-vera-artifact": (32, 448),
    "1fni/cuda-spmv-benchmark": (6, 24),
    "converged-computing/performance-study": (11, 203),
    "MicrosoftDocs/architecture-center": (20, 173),
    "Oceananigans on Alliance clusters (2 repositories)": (5, 31),  # two correlated repositories, one source
}


def test_development_curves(data_mirror):
    curves = development_curves(mirror=data_mirror)
    assert list(curves.columns) == CURVE_COLUMNS + TOPOLOGY_COLUMNS + ["dataset", "problem", "licence"]
    assert curves["source"].nunique() >= 7
    counts = curves.groupby("source").agg(curves=("curve_id", "nunique"), runs=("n", "size"))
    assert {k: tuple(v) for k, v in counts.iterrows()} == DEVELOPMENT_SOURCES
    assert curves.groupby("curve_id")["source"].nunique().eq(1).all()
    assert curves.groupby("curve_id")["n"].nunique().min() >= 4
    # topology: nodes where the unit is nodes, per-node counts where the source states them
    nodes = curves["unit"].eq("nodes")
    assert curves.loc[nodes, "nodes"].astype(float).tolist() == curves.loc[nodes, "n"].tolist()
    alaska = curves[curves["source"] == "ukri-excalibur/excalibur-tests"]
    assert (alaska["processes"] == 32 * alaska["nodes"]).all() and alaska["cores_per_node"].eq(32).all()
    dgx = curves[curves["source"] == "mlcommons/training_results_v0.7"]
    assert dgx["gpus_per_node"].eq(8).all() and (dgx["nodes"] * 8 == dgx["n"]).all()
    assert curves["licence"].notna().all() and not curves["licence"].eq("").any()
