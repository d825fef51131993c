"""Tests for workbench.measure.comm: the 002 ping-pong reduction by hand, the 004 data generator's
pieces, bad input, the shipped measured sweeps, and both benchmarks run for real under mpiexec
at tiny size (2 ranks, a few configurations)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from workbench.errors import DataFormatError, MeasurementError, ParseWarning, ValidationError, WorkbenchError
from workbench.io import fetch_dataset
from workbench.measure.comm import (
    DATAGEN_COLUMNS,
    PINGPONG_COLUMNS,
    DatagenConfig,
    PingPongConfig,
    datagen_grid,
    find_mpiexec,
    jacobi_sweep,
    message_bytes,
    pingpong_grid,
    read_comm_datagen,
    read_comm_pingpong,
    reported_time,
    run_sweep,
    third_quartile,
    write_comm_sweep,
)
from workbench.measure.comm.datagen import grid_side
from workbench.measure.comm.pingpong import allocation_descriptors, load_host_map
from workbench.measure.comm.sweep import main as sweep_main
from workbench.measure.comm.sweep import parse_bytes
from workbench.measure.comm.worker import library_name


@pytest.fixture(autouse=True)
def private_measure_dirs(tmp_path_factory, monkeypatch):
    """This test's own measurement lock and default output directory, so that other test
    sessions and real sweeps on the machine do not interfere."""
    base = tmp_path_factory.mktemp("measure-env")
    monkeypatch.setenv("WORKBENCH_RUNTIME_DIR", str(base / "run"))
    monkeypatch.setenv("WORKBENCH_MEASURE_DIR", str(base / "measured"))
    return base


@pytest.fixture(scope="module")
def mpi_ready() -> None:
    """mpi4py and an mpiexec (the venv's first): skip locally without them, fail on CI."""
    reason = None
    if importlib.util.find_spec("mpi4py") is None:
        reason = "mpi4py is not installed (pip install -e '.[mpi]')"
    else:
        try:
            find_mpiexec()
        except MeasurementError as exc:
            reason = str(exc)
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"MPI missing on CI: {reason}")
    pytest.skip(reason)


# --- 002 reduction: per process drop the slowest 25 %, max of the rest; max over processes -------
def test_reported_time_by_hand():
    times = np.array([
        [1.0, 2.0, 3.0, 4.0],  # drop 4 -> 3
        [10.0, 1.0, 1.0, 1.0],  # drop the OS-noise outlier 10 -> 1
        [2.0, 2.0, 9.0, 2.0],  # drop 9 -> 2
    ])
    assert third_quartile(times).tolist() == [3.0, 1.0, 2.0]
    assert reported_time(times) == (3.0, 2.0)  # (max over processes, median over processes)
    # 8 iterations: drop the 2 slowest of [5, 1, 7, 3, 2, 8, 6, 4] -> 6
    assert third_quartile([5, 1, 7, 3, 2, 8, 6, 4]) == 6
    # fewer than 4 iterations drop nothing
    assert third_quartile([3.0, 1.0, 2.0]) == 3.0


@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 50)), elements=st.floats(0, 1e3)))
@settings(max_examples=60, deadline=None)
def test_third_quartile_is_the_nearest_rank_quantile(times):
    expected = np.quantile(times, 0.75, axis=1, method="inverted_cdf")
    assert np.array_equal(third_quartile(times), expected)
    worst, median = reported_time(times)
    assert worst == expected.max() and median == pytest.approx(np.median(expected))


@pytest.mark.parametrize("bad", [[], [[1.0, np.nan]], [[-1.0, 2.0]]])
def test_reduction_rejects_bad_times(bad):
    with pytest.raises(ValidationError):
        reported_time(bad) if np.ndim(bad) == 2 else third_quartile(bad)


# --- 004 data generator pieces ----------------------------------------------------------------
def test_message_bytes_and_grid_side_by_hand():
    # sqrt(2 MiB) = 1448.15 B -> 1448 (a multiple of 8); x100 = 144815.5 -> 144816
    assert message_bytes(1, 2 * 2**20) == 1448
    assert message_bytes(100, 2 * 2**20) == 144816
    assert message_bytes(1, 2**20) == 1024  # [Branikas2024]'s base working set 1 MiB -> 1 KiB per row
    assert message_bytes(0.001, 64) == 8
    assert [grid_side(w) for w in (2 * 2**20, 8 * 2**20, 32 * 2**20)] == [512, 1024, 2048]
    assert DatagenConfig(2**20, "memory", 5, 4).message_bytes == 5120


def test_jacobi_sweep_matches_the_five_point_formula():
    rng = np.random.default_rng(1)
    u = rng.random((37, 23))
    new = np.full_like(u, -1.0)
    expected = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]) / 4
    # tiny blocks (2 rows) and 3 operations per element: same values, border untouched
    jacobi_sweep(u, new, extra_ops=3, block_bytes=2 * 8 * 23)
    assert np.allclose(new[1:-1, 1:-1], expected)
    assert (new[0] == -1).all() and (new[:, -1] == -1).all()
    assert np.allclose(new[1, 1], (u[0, 1] + u[2, 1] + u[1, 0] + u[1, 2]) / 4)


def test_datagen_config_defaults_and_bad_values():
    assert DatagenConfig(2**20, "compute", 1, 2).extra_ops == 16
    assert DatagenConfig(2**20, "compute", 1, 2, extra_ops=32).extra_ops == 32
    with pytest.raises(ValidationError, match="unknown barrier 'node'"):
        DatagenConfig(2**20, "memory", 1, 2, barrier="node")
    with pytest.raises(ValidationError, match="unknown load 'io'"):
        DatagenConfig(2**20, "io", 1, 2)
    with pytest.raises(ValidationError, match="load 'memory' needs extra_ops 1"):
        DatagenConfig(2**20, "memory", 1, 2, extra_ops=16)
    with pytest.raises(ValidationError, match="msg_multiple must be a positive number"):
        DatagenConfig(2**20, "memory", 0, 2)
    with pytest.raises(ValidationError, match="messages must be an integer >= 1"):
        DatagenConfig(2**20, "memory", 1, 0)
    with pytest.raises(ValidationError, match="configuration 0"):
        DatagenConfig.from_mapping({"wss_bytes": 2**20, "load": "memory", "bogus": 1}, 0)


# --- grids, host map and CLI input --------------------------------------------------------------
def test_grids_and_empty_grids():
    plan = pingpong_grid([128, 256], [1, 2], repeats=2)
    assert len(plan) == 8 and [c.repeat for c in plan] == [0] * 4 + [1] * 4
    assert len(datagen_grid()) == 3 * 2 * 5 * 3
    with pytest.raises(ValidationError, match="zero configurations"):
        pingpong_grid(sizes=[])
    with pytest.raises(ValidationError, match="zero configurations"):
        datagen_grid(loads=[])
    with pytest.raises(ValidationError, match="zero configurations"):
        run_sweep("pingpong", [], [2])
    with pytest.raises(ValidationError, match="unknown benchmark 'allreduce'"):
        run_sweep("allreduce", pingpong_grid([128], [1], 1), [2])
    with pytest.raises(ValidationError, match="every process count must be an integer >= 2"):
        run_sweep("pingpong", pingpong_grid([128], [1], 1), [1])
    with pytest.raises(ValidationError, match="S \\(message size in bytes\\)"):
        PingPongConfig(0, 1)


def test_host_map_gives_switches_and_racks(tmp_path):
    hosts = ["n1", "n1", "n2", "n3"]
    assert allocation_descriptors(hosts) == {"N": 3, "PPN": 2, "SW": 1, "R": 1}
    path = tmp_path / "map.json"
    path.write_text(json.dumps({h: {"switch": s, "rack": r} for h, s, r in
                                [("n1", "s1", "r1"), ("n2", "s2", "r1"), ("n3", "s2", "r1"), ("n4", "s3", "r2")]}))
    assert allocation_descriptors(hosts, load_host_map(path)) == {"N": 3, "PPN": 2, "SW": 2, "R": 1}
    with pytest.raises(ValidationError, match="no entry for host\\(s\\) \\['n9'\\]"):
        allocation_descriptors(["n9"], load_host_map(path))
    path.write_text('{"n1": {"switch": "s1",\n "rack": }}')
    with pytest.raises(DataFormatError, match=r"map.json, line 2, column 10: not valid JSON \(expected a host map"):
        load_host_map(path)
    path.write_text('[["n1", "s1", "r1"]]')
    with pytest.raises(DataFormatError, match="expected a host map .* as a JSON object .*, got a JSON array"):
        load_host_map(path)
    with pytest.raises(DataFormatError, match="it is a folder, not a regular file"):
        load_host_map(tmp_path)
    with pytest.raises(ValidationError, match="keys 'switch' and 'rack'"):
        load_host_map({"n1": {"switch": "s1"}})


def test_parse_bytes_and_library_name():
    assert [parse_bytes(t) for t in ("128", "4KiB", "2MiB", "32M")] == [128, 4096, 2 * 2**20, 32 * 2**20]
    with pytest.raises(ValidationError, match="size in bytes"):
        parse_bytes("2 parsecs")
    assert library_name("MPICH Version:      5.0.2\nMPICH Release date: ...") == "MPICH 5.0.2"
    assert library_name("Open MPI v4.1.5, package: Open MPI ...") == "Open MPI v4.1.5"


def test_cli_reports_bad_input_without_a_traceback(tmp_path, capsys):
    code = sweep_main(["datagen", "--processes", "2", "--barriers", "sometimes", "--out", str(tmp_path / "x.csv"),
                       "--quiet"])
    assert code == 2
    assert "unknown barrier 'sometimes'" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


# --- readers -------------------------------------------------------------------------------------
def _pingpong_frame() -> pd.DataFrame:
    frame = pd.DataFrame([{"S": 128, "M": 1, "PPN": 2, "N": 1, "I": 0.0, "SW": 1, "R": 1, "processes": 2,
                           "iterations": 10, "repeat": 0, "comm_time_us": 5.0, "median_us": 4.0,
                           "mpi_library": "MPICH 5.0.2", "host": "vm"}])
    frame.attrs["benchmark"] = "pingpong"
    return frame


def test_readers_reject_corrupt_files(tmp_path):
    path = tmp_path / "pp.csv"
    path.write_bytes(b"\x00\xff\xfe garbage \x00\n\x01")
    with pytest.raises(WorkbenchError):
        read_comm_pingpong(path)
    with pytest.raises(DataFormatError, match="file not found"):
        read_comm_datagen(tmp_path / "missing.csv")
    frame = _pingpong_frame()
    frame.drop(columns=["I"]).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="missing column\\(s\\) \\['I'\\]"):
        read_comm_pingpong(path)
    frame.assign(comm_time_us=-1.0).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="comm_time_us must be finite and > 0"):
        read_comm_pingpong(path)
    frame.assign(I=1.5).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="I \\(inter-node ratio\\)"):
        read_comm_pingpong(path)
    # the data-generator reader refuses a ping-pong table and an unknown load
    with pytest.raises(ValidationError, match="missing column"):
        read_comm_datagen(_write(frame, tmp_path / "dg.csv"))
    shipped = read_comm_datagen(_shipped("comm_datagen.csv"))
    _write(shipped.head(3).assign(load="io"), tmp_path / "dg.csv")
    with pytest.raises(ValidationError, match="column load has values \\['io'\\]"):
        read_comm_datagen(tmp_path / "dg.csv")


def _write(frame: pd.DataFrame, path):
    frame.to_csv(path, index=False)
    return path


def _shipped(name: str):
    from workbench.io.catalogue import DATA_DIR

    return DATA_DIR / "measured" / name


def test_writer_is_atomic_checked_and_refuses_to_overwrite(tmp_path, private_measure_dirs):
    frame = _pingpong_frame()
    path = write_comm_sweep(frame, tmp_path / "pp.csv")
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["csv"]["rows"] == 1 and meta["csv"]["bytes"] == path.stat().st_size
    with pytest.raises(MeasurementError, match="already exist.*force=True"):
        write_comm_sweep(frame, path)
    two = pd.concat([frame, frame.assign(repeat=1)], ignore_index=True)
    two.attrs["benchmark"] = "pingpong"
    write_comm_sweep(two, path, force=True)
    assert len(read_comm_pingpong(path)) == 2
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(DataFormatError, match=r"pp\.csv does not match its metadata file .*pp\.json"):
        read_comm_pingpong(path)
    assert write_comm_sweep(frame) == private_measure_dirs / "measured" / "comm_pingpong.csv"
    with pytest.raises(MeasurementError, match="inside the repository's tracked data"):
        write_comm_sweep(frame, _shipped("comm_pingpong.csv"))


def test_cli_refuses_an_existing_output_before_running(tmp_path, capsys):
    out = tmp_path / "pp.csv"
    write_comm_sweep(_pingpong_frame(), out)
    code = sweep_main(["pingpong", "--processes", "2", "--sizes", "1KiB", "--messages", "1", "--quiet",
                       "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert "already exist" in err and "--force" in err


def test_write_read_round_trip_and_missing_sidecar_warns(tmp_path):
    frame = _pingpong_frame()
    frame.attrs["machine"] = {"cpus": 2}
    path = write_comm_sweep(frame, tmp_path / "pp.csv", command="python -m workbench.measure.comm pingpong ...")
    back = read_comm_pingpong(path)
    assert back.columns.tolist() == PINGPONG_COLUMNS
    assert back.attrs["machine"] == {"cpus": 2} and back.attrs["command"].startswith("python -m")
    path.with_suffix(".json").unlink()
    with pytest.warns(ParseWarning, match="no metadata file"):
        read_comm_pingpong(path)


# --- shipped measured data through the catalogue ------------------------------------------------
def test_shipped_pingpong_sweep():
    ds = fetch_dataset("comm-pingpong-local")
    frame = ds.frame
    assert "MEASURED" in ds.description and frame.columns.tolist() == PINGPONG_COLUMNS
    assert frame.attrs["mpi_library_version"].startswith("MPICH") and frame.attrs["mpi4py_version"]
    assert frame.attrs["machine"]["cpus"] == 2 and "load_average_before" in frame.attrs["launches"][0]
    # one machine: everything intra-node
    assert (frame["N"] == 1).all() and (frame["I"] == 0).all() and (frame["PPN"] == frame["processes"]).all()
    assert (frame["M"] <= frame["processes"] - 1).all()
    assert frame["S"].min() == 128 and frame["S"].max() == 4 * 2**20
    assert (frame["median_us"] <= frame["comm_time_us"]).all()
    # latency grows with the message size: 4 MiB costs far more than 128 B (2 ranks, M = 1)
    two = frame.query("processes == 2 and M == 1").groupby("S")["comm_time_us"].median()
    assert two[4 * 2**20] > 20 * two[128]
    assert os.path.getsize(ds.path) < 1_000_000


def test_shipped_datagen_sweep():
    ds = fetch_dataset("comm-datagen-local")
    frame = ds.frame
    assert "MEASURED" in ds.description and frame.columns.tolist() == DATAGEN_COLUMNS
    per_run = frame.groupby("run_id").agg(rows=("rank", "size"), processes=("processes", "first"),
                                          ranks=("rank", "nunique"))
    assert (per_run["rows"] == per_run["processes"]).all() and (per_run["ranks"] == per_run["processes"]).all()
    assert set(frame["load"]) == {"memory", "compute"} and set(frame["processes"]) == {2, 4}
    assert (frame["message_bytes"]
            == [message_bytes(m, w) for m, w in zip(frame["msg_multiple"], frame["wss_bytes"])]).all()
    # the timers nest: comm + comp never exceed the loop's total (barrier none: the rest is loop overhead)
    assert (frame["comm_s"] + frame["comp_s"] <= frame["total_s"] * (1 + 1e-6)).all()
    # compute-bound steps take longer than memory-bound ones on the same working set
    comp = frame.groupby(["load", "wss_bytes"])["comp_s"].median()
    assert (comp["compute"] > 4 * comp["memory"]).all()
    assert os.path.getsize(ds.path) < 1_000_000


def test_shipped_files_load_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_comm_pingpong(_shipped("comm_pingpong.csv"))
        read_comm_datagen(_shipped("comm_datagen.csv"))


# --- the benchmarks for real under mpiexec ------------------------------------------------------
@pytest.mark.timeout(120)
def test_pingpong_runs_under_mpiexec(mpi_ready, tmp_path):
    frame = run_sweep("pingpong", pingpong_grid([128, 65536], [1, 2], repeats=1), [2], iterations=20, warmup=2,
                      progress=False)
    # M = 2 needs 3 processes: skipped and listed
    assert len(frame) == 2 and frame.columns.tolist() == PINGPONG_COLUMNS
    assert [s["M"] for s in frame.attrs["skipped"]] == [2, 2]
    assert (frame["comm_time_us"] > 0).all() and (frame["median_us"] <= frame["comm_time_us"]).all()
    assert frame[["PPN", "N", "I", "SW", "R", "processes"]].iloc[0].tolist() == [2, 1, 0.0, 1, 1, 2]
    assert frame["mpi_library"].iloc[0] != "" and frame.attrs["mpi_library_version"]
    launch = frame.attrs["launches"][0]
    assert "-n 2" in launch["command"] and len(launch["load_average_after"]) == 3
    back = read_comm_pingpong(write_comm_sweep(frame, tmp_path / "pp.csv"))
    assert back["S"].tolist() == [128, 65536]


@pytest.mark.timeout(120)
def test_datagen_runs_under_mpiexec(mpi_ready, tmp_path):
    configs = [DatagenConfig(2**16, "memory", 1, 4, "global"),
               DatagenConfig(2**16, "compute", 10, 3, "socket", extra_ops=3)]
    frame = run_sweep("datagen", configs, [2], iterations=3, progress=False)
    assert frame.columns.tolist() == DATAGEN_COLUMNS and len(frame) == 4
    assert frame.groupby("run_id")["rank"].apply(sorted).tolist() == [[0, 1], [0, 1]]
    assert (frame[["comm_s", "comp_s", "total_s"]] > 0).all().all()
    assert (frame["comm_s"] + frame["comp_s"] <= frame["total_s"] * (1 + 1e-6)).all()
    assert frame["message_bytes"].tolist() == [256, 256, 2560, 2560]  # sqrt(64 KiB) = 256 B
    assert frame["barrier"].tolist() == ["global", "global", "socket", "socket"]
    assert (frame[["nodes", "ppn", "processes"]].iloc[0] == [1, 2, 2]).all()
    back = read_comm_datagen(write_comm_sweep(frame, tmp_path / "dg.csv"))
    assert math.isclose(back["total_s"].sum(), frame["total_s"].sum(), rel_tol=1e-5)


@pytest.mark.timeout(120)
def test_cli_runs_a_tiny_sweep(mpi_ready, tmp_path):
    out = tmp_path / "pp.csv"
    assert sweep_main(["pingpong", "--processes", "2", "--sizes", "1KiB", "--messages", "1", "--repeats", "2",
                       "--iterations", "10", "--quiet", "--out", str(out)]) == 0
    frame = read_comm_pingpong(out)
    assert frame["repeat"].tolist() == [0, 1]
    assert frame.attrs["command"].startswith("python -m workbench.measure.comm pingpong")


@pytest.mark.timeout(60)
def test_sweep_is_refused_while_another_measurement_runs(mpi_ready, monkeypatch, measurement_elsewhere):
    with measurement_elsewhere("a K-means sweep elsewhere"):
        with pytest.raises(MeasurementError, match=r"another measurement is running \(a K-means sweep elsewhere"):
            run_sweep("pingpong", pingpong_grid([128], [1], 1), [2], progress=False)
    monkeypatch.setenv("WORKBENCH_MAX_PROCESSES", "2")
    with pytest.raises(MeasurementError, match="3 processes exceed the limit of 2"):
        run_sweep("pingpong", pingpong_grid([128], [1], 1), [2, 3], progress=False)


@pytest.mark.timeout(60)
def test_failing_launch_is_a_measurement_error(mpi_ready, tmp_path):
    bogus = tmp_path / "mpiexec"
    bogus.write_text("#!/bin/sh\necho 'launcher exploded' >&2\nexit 3\n")
    bogus.chmod(0o755)
    with pytest.raises(MeasurementError, match="exit code 3(.|\n)*launcher exploded"):
        run_sweep("pingpong", pingpong_grid([128], [1], 1), [2], mpiexec=str(bogus), progress=False)
