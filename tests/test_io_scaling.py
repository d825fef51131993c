"""Tidy scaling tables: CSV reader, validator, placements, curves, dispatch."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.errors import DataFormatError, ParseWarning, ValidationError, WorkbenchError
from workbench.io import (
    SCALING_COLUMNS,
    allocations,
    fetch_npb_pi_cluster,
    frame_unit,
    list_curves,
    placement_labels,
    read_scaling_bytes,
    read_scaling_csv,
    read_scaling_data,
    select_curve,
    validate_scaling_frame,
)


def write(tmp_path, text, name="bench.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------ reading

def test_minimal_csv_gets_defaults(tmp_path):
    frame = read_scaling_csv(write(tmp_path, "processes,time_s\n1,10.0\n2,5.5\n4,3\n", "myapp.csv"))
    assert list(frame.columns) == SCALING_COLUMNS
    assert frame["processes"].tolist() == [1, 2, 4]
    assert frame["time_s"].tolist() == [10.0, 5.5, 3.0]
    assert frame["processes"].dtype == "int64" and frame["time_s"].dtype == "float64"
    assert frame["threads"].tolist() == [1, 1, 1] and frame["run"].tolist() == [0, 0, 0]
    assert frame["nodes"].isna().all() and str(frame["nodes"].dtype) == "Int64"
    assert set(frame["benchmark"]) == {"myapp"}  # from the file name
    assert set(frame["problem_class"]) == {"n/a"}


def test_units_column_names_delimiters_comments(tmp_path):
    text = "# measured on my laptop\nProcesses ; Time_ms ; Nodes ; extra\n\n1;2500;1;a\n8;400;2;b\n"
    frame = read_scaling_csv(write(tmp_path, text), time_column="time_ms", time_unit="ms")
    assert frame["time_s"].tolist() == pytest.approx([2.5, 0.4])
    assert frame["nodes"].tolist() == [1, 2]
    assert frame["extra"].tolist() == ["a", "b"]  # unknown columns are kept, after the canonical ones
    us = read_scaling_csv(io.StringIO("processes\ttime_us\n2\t1500000\n"), time_column="time_us", time_unit="us")
    assert us["time_s"].tolist() == [1.5]
    assert us["benchmark"].tolist() == ["custom"]  # a nameless buffer


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("procs,seconds\n1,2\n", r"missing required column\(s\) 'processes', 'time_s'; found columns: 'procs', "
         r"'seconds'"),
        ("processes,time_s\n1,2\n2,\n4,1\n", r"column 'time_s' has empty/NaN cells in line 3\b"),
        ("processes,time_s\n1,2\nfour,1\n8,abc\n", r"column 'processes' has non-numeric or infinite values 'four' in "
         r"line 3"),
        ("processes,time_s\n1,2\n2,0\n4,-1\n", r"column 'time_s' must be > 0 .* lines 3, 4"),
        ("processes,time_s\n0,2\n2,1\n", r"column 'processes' must be >= 1 \(and <= 2147483647\); found \[0.0\] in "
         r"line 2"),
        ("processes,time_s\n1e30,2\n", r"column 'processes' must be >= 1 .*found \[1e\+30\] in line 2"),
        ("processes,time_s\n1.5,2\n2,1\n", r"column 'processes' must hold whole numbers; found \[1.5\] in line 2"),
        ("processes,time_s\n1,2\n1,2.1\n", r"duplicate configurations .* lines 2, 3.*add a `run` column"),
        ("processes,run,time_s\n1,0,2\n1,0,2.1\n", r"duplicate configurations .*own `run` number"),
        ("processes,time_s,benchmark\n1,2,cg\n2,1,\n", r"column 'benchmark' has empty cells in line 3"),
        ("Processes,processes,time_s\n1,1,2\n", r"column name\(s\) 'processes' appear more than once"),
        ("", r"empty file"),
        ("\n  \n", r"empty file"),
        ("processes,time_s\n", r"no data rows"),
    ],
)
def test_validation_messages(tmp_path, text, pattern):
    with pytest.raises(ValidationError, match=pattern):
        read_scaling_csv(write(tmp_path, text))


def test_all_problems_reported_at_once(tmp_path):
    text = "processes,time_s\nx,1\n2,-5\n"
    with pytest.raises(ValidationError) as err:
        read_scaling_csv(write(tmp_path, text))
    assert "non-numeric or infinite values 'x' in line 2" in str(err.value)
    assert "must be > 0" in str(err.value) and "line 3" in str(err.value)


def test_time_column_named_in_messages(tmp_path):
    with pytest.raises(ValidationError, match=r"missing required column\(s\) 'runtime'"):
        read_scaling_csv(write(tmp_path, "processes,time_s\n1,2\n"), time_column="runtime")
    with pytest.raises(ValidationError, match=r"column 'time_ms' has non-numeric"):
        read_scaling_csv(write(tmp_path, "processes,time_ms\n1,fast\n"), time_column="time_ms", time_unit="ms")
    with pytest.raises(ValidationError, match="unknown time_unit 'h'"):
        read_scaling_csv(write(tmp_path, "processes,time_s\n1,2\n"), time_unit="h")


@pytest.mark.parametrize(
    "content, pattern",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary content"),
        (b"PK\x03\x04\x14\x00\x06\x00", "a zip archive or an Excel workbook, not a CSV scaling table"),
        ("processes,time_s\n1,caf\xe9\n".encode("latin-1"), "not UTF-8"),
        (b'processes,time_s\n1,2\n3,4,5,6\n', "not a readable CSV"),
    ],
)
def test_unreadable_content_is_a_format_error(tmp_path, content, pattern):
    path = tmp_path / "upload.csv"
    path.write_bytes(content)
    with pytest.raises(DataFormatError, match=pattern):
        read_scaling_csv(path)
    with pytest.raises(DataFormatError, match=pattern):
        read_scaling_bytes("upload.csv", content)


def test_validate_frame_uses_index_labels_and_keeps_attrs():
    df = pd.DataFrame({"processes": [1, 2, 4], "time_s": [3.0, np.nan, 1.0]}, index=[10, 11, 12])
    with pytest.raises(ValidationError, match=r"'time_s' has empty/NaN cells in row 11"):
        validate_scaling_frame(df)
    df = pd.DataFrame({"processes": [1, 2], "time_s": [3.0, 2.0]})
    df.attrs["note"] = "kept"
    out = validate_scaling_frame(df)
    assert out.attrs["note"] == "kept" and df.columns.tolist() == ["processes", "time_s"]  # input untouched
    with pytest.raises(ValidationError, match="expected a pandas DataFrame"):
        validate_scaling_frame([1, 2])


# ------------------------------------------------------------------ placements

def test_placement_labels():
    labels = placement_labels([4, 8, 16, 8, 25, 64], pd.array([1, 8, 8, pd.NA, 8, 16], dtype="Int64"), 4)
    assert labels.tolist() == [
        "packed (4 per node)", "spread (1 per node)", "2 per node", "default placement",
        "uneven (3.125 per node)", "packed (4 per node)",
    ]
    # without the machine's core count nothing is called "packed"
    assert placement_labels([4], [1]).tolist() == ["4 per node"]


def test_curves_of_synthetic_table(tmp_path):
    text = "benchmark,problem_class,processes,run,time_s\n" + "".join(
        f"app,A,{p},{r},{100 / p + r}\n" for p in (1, 2, 4) for r in range(2)
    ) + "app,B,1,0,50\napp,B,2,0,26\n"
    frame = read_scaling_csv(write(tmp_path, text))
    curves = list_curves(frame)
    assert curves[["problem_class", "placement", "n_points", "n_runs"]].values.tolist() == [
        ["A", "default placement", 3, 6], ["B", "default placement", 2, 2]]
    assert curves["processes"].tolist() == [[1, 2, 4], [1, 2]]
    assert curves["label"][0] == "app class A, default placement: 3 points"
    curve = select_curve(frame, "APP", "a")  # case-insensitive, single placement
    assert curve.columns.tolist() == ["processes", "threads", "nodes", "run", "time_s", "source"]
    assert curve["processes"].tolist() == [1, 1, 2, 2, 4, 4]
    assert curve["run"].tolist() == [0, 1, 0, 1, 0, 1]
    with pytest.raises(ValidationError, match="no data for app class Z; available: app class A, app class B"):
        select_curve(frame, "app", "Z")
    with pytest.raises(ValidationError, match="no runs with placement 'spread"):
        select_curve(frame, "app", "A", "spread (1 per node)")


@pytest.fixture(scope="module")
def pi(data_mirror):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParseWarning)
        return fetch_npb_pi_cluster(mirror=data_mirror).frame


def test_pi_cluster_packed_cg_curve(pi):
    curve = select_curve(pi, "cg", "C", "packed (4 per node)")
    assert curve["processes"].tolist() == [4, 8, 16, 32, 64]
    assert curve["nodes"].tolist() == [1, 2, 4, 8, 16]
    assert curve["time_s"].tolist() == [1450.11, 550.93, 308.78, 112.39, 106.64]
    spread = select_curve(pi, "cg", "C", "spread (1 per node)")
    assert list(zip(spread["processes"], spread["nodes"])) == [(8, 8), (16, 16)]
    with pytest.raises(ValidationError, match=r"cg class C was measured with 3 placements .*choose one of these "
                       r"placements"):
        select_curve(pi, "cg", "C")


def test_pi_cluster_curve_list(pi):
    curves = list_curves(pi)
    cg = curves[(curves["benchmark"] == "cg") & (curves["problem_class"] == "C")]
    assert dict(zip(cg["placement"], cg["n_points"])) == {
        "packed (4 per node)": 5, "2 per node": 2, "spread (1 per node)": 2}
    assert curves["n_runs"].sum() == len(pi) == 75
    bt = curves[curves["benchmark"] == "bt"]
    assert set(bt["placement"]) == {"2 per node", "spread (1 per node)", "default placement",
                                    "uneven (3.125 per node)", "uneven (1.5625 per node)"}


# --------------------------------------------------------------------- dispatch

def test_read_scaling_data_dispatch(tmp_path, npb_fixtures):
    csv = read_scaling_data(write(tmp_path, "processes,time_s\n1,2\n"))
    assert csv["time_s"].tolist() == [2.0]
    logs = read_scaling_data(npb_fixtures / "omp")
    assert sorted(logs["benchmark"]) == ["cg", "ft"]
    assert list(logs.columns[: len(SCALING_COLUMNS)]) == SCALING_COLUMNS and "mops_total" in logs
    one = read_scaling_data(npb_fixtures / "mz" / "bt-mz.C.4x4.out")
    assert one["threads"].tolist() == [4]
    with pytest.raises(DataFormatError, match=r"unknown file format '\.xlsx'"):
        read_scaling_data(write(tmp_path, "x", "table.xlsx"))
    with pytest.raises(DataFormatError, match="no such file"):
        read_scaling_data(tmp_path / "missing.json")


def test_read_scaling_bytes(npb_fixtures):
    frame = read_scaling_bytes("uploaded.csv", b"processes,time_s\n2,10\n")
    assert (frame["benchmark"][0], frame["time_s"][0]) == ("uploaded", 10.0)
    with pytest.raises(ValidationError, match="missing required column"):
        read_scaling_bytes("uploaded.csv", b"processes,time_ms\n2,10\n")  # time_s expected
    content = (npb_fixtures / "mz" / "sp-mz.A.3procs.out").read_bytes()
    log = read_scaling_bytes("sp-mz-A-3-1.out", content)
    assert (log["processes"][0], log["nodes"][0], log["source"][0]) == (3, 1, "sp-mz-A-3-1.out")
    with pytest.raises(DataFormatError, match=r"x\.out: truncated"):
        read_scaling_bytes("x.out", content[:200])
    with pytest.raises(DataFormatError, match="binary"):
        read_scaling_bytes("x.log", b"\x00\x01")
    with pytest.raises(DataFormatError, match=r"unknown file format '\.parquet'"):
        read_scaling_bytes("x.parquet", b"PAR1")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=st.one_of(
    st.binary(max_size=300),
    st.lists(
        st.lists(st.sampled_from(["1", "2", "-1", "0", "x", "", "nan", "1e999", "2.5", " 3 ", '"4"']),
                 min_size=2, max_size=3),
        max_size=6,
    ).map(lambda rows: ("processes,time_s,run\n" + "\n".join(",".join(r) for r in rows)).encode()),
))
def test_uploaded_csv_only_raises_workbench_errors(content):
    try:
        frame = read_scaling_bytes("upload.csv", content)
    except WorkbenchError:
        return
    assert (frame["time_s"] > 0).all() and (frame["processes"] >= 1).all()
    assert not frame.duplicated(["processes", "threads", "run"]).any()


# ---------------------------------------------------------------- topology and allocation units
TOPOLOGY_BAD = {
    "more nodes than processes": ("processes,nodes,time_s\n4,1,10\n4,8,10\n", "line 3: 8 nodes for 4 processes"),
    "more per node than cores": ("processes,nodes,cores_per_node,time_s\n16,1,16,10\n64,2,16,3\n",
                                 "line 3: 64 processes x 1 threads on 2 node(s) is 32 per node, more than "
                                 "'cores_per_node' = 16"),
    "threads count against cores": ("processes,threads,nodes,cores_per_node,time_s\n8,4,1,16,10\n",
                                    "8 processes x 4 threads on 1 node(s) is 32 per node"),
    "more GPUs per node than it has": ("processes,nodes,gpus,gpus_per_node,time_s\n8,1,8,4,2\n",
                                       "8 GPUs on 1 node(s), more than 'gpus_per_node' = 4 per node"),
    "fractional cores": ("processes,cores_per_node,time_s\n4,2.5,10\n", "'cores_per_node' must hold whole numbers"),
}


@pytest.mark.parametrize("case", sorted(TOPOLOGY_BAD))
def test_topology_that_contradicts_the_runs_is_refused_naming_value_and_line(case):
    text, expected = TOPOLOGY_BAD[case]
    with pytest.raises(ValidationError) as err:
        read_scaling_csv(io.StringIO(text))
    assert expected in str(err.value)


def test_topology_columns_are_kept_as_nullable_integers_and_allocations_follow_the_unit():
    frame = read_scaling_csv(io.StringIO("processes,threads,nodes,cores_per_node,time_s\n"
                                         "16,2,1,32,10\n64,2,4,32,3\n128,2,8,,2\n"))
    assert str(frame["cores_per_node"].dtype) == "Int64" and frame["cores_per_node"].isna().tolist() == [
        False, False, True]
    assert allocations(frame).tolist() == [16, 64, 128]  # default unit: processes
    assert allocations(frame, "nodes").tolist() == [1, 4, 8]
    assert allocations(frame, "cores").tolist() == [32, 128, 256]
    assert allocations(frame, "GPU").tolist() == [16, 64, 128]  # one GPU per process when no gpus column
    assert frame_unit(read_scaling_csv(io.StringIO("processes,time_s\n4,1\n"), unit="Nodes")) == "nodes"
    with pytest.raises(ValidationError, match="unknown allocation unit 'parsecs'"):
        read_scaling_csv(io.StringIO("processes,time_s\n4,1\n"), unit="parsecs")
    with pytest.raises(ValidationError, match=r"'nodes' column is empty in row 0"):
        allocations(read_scaling_csv(io.StringIO("processes,time_s\n4,1\n")), "nodes")


def test_a_unit_column_with_one_known_unit_sets_the_frames_unit():
    assert frame_unit(read_scaling_csv(io.StringIO("processes,time_s,unit\n4,1,gpus\n8,1,gpus\n"))) == "gpus"
    # mixed or unknown units (a catalogue of many curves) leave the default: the column is kept as data
    mixed = read_scaling_csv(io.StringIO("benchmark,processes,time_s,unit\na,4,1,gpus\nb,8,1,nodes\n"))
    assert frame_unit(mixed) == "processes" and mixed["unit"].tolist() == ["gpus", "nodes"]
