"""Measurement harness: perf stat runs for real (skipped where perf cannot count cycles,
failing on CI), the perf control region, the K-means sweep frame and its files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from workbench.errors import DataFormatError, MeasurementError, ParseWarning, ValidationError, WorkbenchWarning
from workbench.measure import (
    MEASURED_COLUMNS,
    KMeansConfig,
    kmeans_design,
    measure_kmeans,
    perf_available,
    perf_region,
    perf_unavailable_reason,
    read_measured_kmeans,
    run_perf_stat,
    write_measured_kmeans,
)
from workbench.measure import perf as perf_module
from workbench.workloads.kmeans import SINGLE_THREAD_ENV


@pytest.fixture(autouse=True)
def private_measure_dirs(tmp_path_factory, monkeypatch):
    """This test's own measurement lock and default output directory (inherited by the CLIs it
    starts): other test sessions and real sweeps on the machine neither block it nor are
    blocked by it."""
    base = tmp_path_factory.mktemp("measure-env")
    monkeypatch.setenv("WORKBENCH_RUNTIME_DIR", str(base / "run"))
    monkeypatch.setenv("WORKBENCH_MEASURE_DIR", str(base / "measured"))
    return base


KMEANS = [sys.executable, "-m", "workbench.workloads.kmeans"]
TINY = ["--points", "20000", "--clusters", "8", "--iterations", "10", "--processes", "2"]
ENV = {**os.environ, **SINGLE_THREAD_ENV}


@pytest.fixture(scope="session")
def perf_required():
    """Skip when perf stat cannot count cycles on this machine (no PMU in a VM, paranoid
    level); on CI (CI=true) a missing perf binary fails, since .ci/run installs it."""
    reason = perf_unavailable_reason()
    if reason is None:
        return
    if os.environ.get("CI") == "true" and shutil.which("perf") is None:
        pytest.fail(f"perf is not installed on CI although .ci/run installs linux-perf: {reason}")
    pytest.skip(f"perf stat cannot count cycles here: {reason}")


# --------------------------------------------------------------------- perf runs

def test_control_mode_counts_only_the_calculation(perf_required):
    controlled = run_perf_stat([*KMEANS, *TINY], env=ENV)
    whole = run_perf_stat([*KMEANS, *TINY], env=ENV, control=False)
    result = json.loads(controlled.stdout)
    assert result["processes"] == 2 and result["calc_time_s"] > 0
    for stat in (controlled.stat, whole.stat):
        assert stat.cycles > 0 and stat.task_clock_ms > 0 and stat.form == "csv"
        assert 1e8 < stat.cycles / (stat.task_clock_ms / 1e3) < 1e10  # Hz (see the sweep test)
    # Interpreter start-up, imports and data generation are outside the region.
    assert controlled.stat.task_clock_ms < 0.8 * whole.stat.task_clock_ms
    # The region's CPU time is of the order of the calculation's wall time on 2 processes (+ the
    # parent); loose, because a vCPU descheduled by the host keeps task-clock running.
    assert controlled.stat.task_clock_ms / 1e3 < 10 * result["calc_time_s"]


def test_failing_command_reports_its_stderr(perf_required):
    code = "import sys; print('partial output'); sys.stderr.write('boom: bad thing\\n'); sys.exit(3)"
    with pytest.raises(MeasurementError, match="failed with exit code 3(.|\n)*boom: bad thing"):
        run_perf_stat([sys.executable, "-c", code], control=False)


def test_control_mode_without_region_is_explained(perf_required):
    with pytest.raises(MeasurementError, match="must enable the counters with workbench.measure.perf_region"):
        run_perf_stat([sys.executable, "-c", "pass"])


def test_timeout_kills_the_command(perf_required):
    with pytest.raises(MeasurementError, match="timed out after 0.5 s"):
        run_perf_stat([sys.executable, "-c", "import time; time.sleep(30)"], control=False, timeout=0.5)


def test_missing_perf_is_reported(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    perf_module.perf_unavailable_reason.cache_clear()
    try:
        assert not perf_available()
        assert "install it: `apt-get install linux-perf`" in perf_unavailable_reason()
        with pytest.raises(MeasurementError, match="perf is not on PATH: install it"):
            run_perf_stat(["true"])
    finally:
        monkeypatch.undo()
        perf_module.perf_unavailable_reason.cache_clear()


def test_empty_argv():
    with pytest.raises(MeasurementError, match="argv is empty"):
        run_perf_stat([])


def test_perf_region_is_a_no_op_outside_perf(monkeypatch):
    monkeypatch.delenv(perf_module.CTL_ENV, raising=False)
    monkeypatch.delenv(perf_module.ACK_ENV, raising=False)
    with perf_region() as controlled:
        assert controlled is False


def test_perf_region_without_a_listening_perf(monkeypatch, tmp_path):
    ctl, ack = tmp_path / "ctl", tmp_path / "ack"
    os.mkfifo(ctl)
    os.mkfifo(ack)
    monkeypatch.setenv(perf_module.CTL_ENV, str(ctl))
    monkeypatch.setenv(perf_module.ACK_ENV, str(ack))
    # Nobody reads the control fifo: a clear error instead of blocking forever.
    with pytest.raises(MeasurementError, match="cannot open the perf control fifos"):
        with perf_region():
            pass


# --------------------------------------------------------------------- sweep

SWEEP_CONFIGS = [
    KMeansConfig(20_000, 8, 10),
    {"points": 30_000, "clusters": 4, "iterations": 8, "dims": 4, "role": "test"},
]


@pytest.fixture(scope="module")
def tiny_sweep(perf_required):
    return measure_kmeans(SWEEP_CONFIGS, processes=(1, 2), repeats=1, progress=False)


def test_sweep_frame_columns_and_units(tiny_sweep):
    frame = tiny_sweep
    assert list(frame.columns) == MEASURED_COLUMNS
    assert len(frame) == 4
    assert frame[["points", "clusters", "iterations", "dims", "processes", "role"]].values.tolist() == [
        [20000, 8, 10, 8, 1, "train"], [20000, 8, 10, 8, 2, "train"],
        [30000, 4, 8, 4, 1, "test"], [30000, 4, 8, 4, 2, "test"],
    ]
    assert (frame["repeat"] == 0).all()
    assert (frame["cycles"] > 0).all()
    # Hz, not GHz or kHz; a run of a few ms in a VM can read well below the nominal clock
    # (the guest's cycle counter pauses while the host deschedules it), so only the unit is checked
    assert frame["freq_hz"].between(1e8, 1e10).all()
    # U > 1 happens on a run of ~10 ms in this VM: task-clock keeps running while the host
    # steals the vCPU; the shipped sweep's runs are >= 0.1 s (U <= 1.02 there)
    assert (frame["utilization"] > 0).all()
    assert (frame["calc_time_s"] > 0).all()
    # Derived columns follow their definitions.
    np.testing.assert_allclose(
        frame["utilization"], frame["task_clock_ms"] / 1e3 / (frame["calc_time_s"] * frame["processes"])
    )
    np.testing.assert_allclose(frame["freq_hz"], frame["cycles"] / (frame["task_clock_ms"] / 1e3))
    expected_sc = frame["stalled_cycles_frontend"] + frame["stalled_cycles_backend"].fillna(0)
    np.testing.assert_allclose(frame["stall_cycles"], expected_sc)
    assert (frame["stall_cycles"] < frame["cycles"]).all()
    assert frame.attrs["perf"] is True


def test_written_and_read_back_with_metadata(tiny_sweep, tmp_path):
    path = write_measured_kmeans(tiny_sweep, tmp_path / "kmeans_test.csv", command="pytest")
    back = read_measured_kmeans(path)
    pd.testing.assert_frame_equal(back, tiny_sweep, check_exact=False, rtol=1e-12)
    meta = back.attrs
    assert meta["command"] == "pytest" and meta["runs"] == 4 and meta["perf"] is True
    assert meta["machine"]["cpus"] == os.cpu_count()
    assert meta["machine"]["perf_version"].startswith("perf version")
    assert "perf stat" in meta["method"] and meta["date"][:2] == "20"
    assert set(meta["columns"]) == set(MEASURED_COLUMNS)


def test_sweep_cli_without_perf_writes_csv_and_sidecar(tmp_path):
    out = tmp_path / "measured" / "kmeans_cli.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "workbench.measure.sweep", "--design", "tiny", "--repeats", "1", "--no-perf",
         "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "perf=False" in proc.stderr  # the warning
    frame = read_measured_kmeans(out)
    assert len(frame) == 4 and set(frame["role"]) == {"train", "test"}
    assert frame["cycles"].isna().all() and frame["utilization"].isna().all()
    assert (frame["calc_time_s"] > 0).all()
    assert frame.attrs["perf"] is False
    assert "--no-perf" in frame.attrs["command"]
    assert len(frame.attrs["design"]) == 2


def test_sweep_cli_defaults_outside_the_repository_and_needs_force_to_overwrite(private_measure_dirs):
    import socket

    cli = [sys.executable, "-m", "workbench.measure.sweep", "--design", "tiny", "--repeats", "1", "--no-perf"]
    first = subprocess.run(cli, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    out = private_measure_dirs / "measured" / f"kmeans_{socket.gethostname()}.csv"
    assert len(read_measured_kmeans(out)) == 4
    before = out.read_bytes()
    again = subprocess.run(cli, capture_output=True, text=True, timeout=120)  # refused before measuring
    assert again.returncode == 2
    assert "already exist" in again.stderr and "--force" in again.stderr and "perf=False" not in again.stderr
    assert out.read_bytes() == before
    shipped = subprocess.run([*cli[:3], "--out", "data/measured/kmeans_fim.csv"], capture_output=True, text=True,
                             timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert shipped.returncode == 2 and "tracked data" in shipped.stderr


def test_sweep_writer_refuses_to_overwrite(tmp_path):
    frame = read_measured_kmeans(_shipped_kmeans()).head(8)
    path = write_measured_kmeans(frame, tmp_path / "k.csv", command="pytest")
    with pytest.raises(MeasurementError, match="already exist.*force=True"):
        write_measured_kmeans(frame.head(4), path)
    assert len(read_measured_kmeans(path)) == 8
    assert len(read_measured_kmeans(write_measured_kmeans(frame.head(4), path, force=True))) == 4
    path.write_bytes(path.read_bytes()[:-30])  # a partial file no longer reads back
    with pytest.raises(DataFormatError, match=r"k\.csv does not match its metadata file .*k\.json"):
        read_measured_kmeans(path)


def _shipped_kmeans():
    from workbench.io.catalogue import DATA_DIR

    return DATA_DIR / "measured" / "kmeans_fim.csv"


def test_sweep_without_perf_warns(monkeypatch):
    with pytest.warns(WorkbenchWarning, match="perf=False: measuring times only"):
        frame = measure_kmeans([KMeansConfig(5000, 4, 3)], processes=(1,), perf=False, progress=False)
    assert frame[["cycles", "stall_cycles", "task_clock_ms", "utilization", "freq_hz"]].isna().all().all()
    monkeypatch.setattr("workbench.measure.sweep.perf_unavailable_reason", lambda: "perf is not on PATH")
    with pytest.warns(WorkbenchWarning, match="perf unavailable.*perf is not on PATH"):
        measure_kmeans([KMeansConfig(5000, 4, 3)], processes=(1,), progress=False)


# --------------------------------------------------------------------- plan and validation

def test_default_design():
    plan = kmeans_design()
    train = [c for c in plan if c.role == "train"]
    test = [c for c in plan if c.role == "test"]
    assert len(train) == 27 and len(test) == 4
    assert all(c.processes == (1, 2, 4) for c in train)
    assert all(c.processes == (1, 2, 3, 4, 6, 8) for c in test)
    assert min(c.points for c in test) > max(c.points for c in train)
    assert {(c.points, c.clusters, c.iterations) for c in train} == {
        (n, k, i) for n in (50_000, 100_000, 200_000) for k in (8, 16, 32) for i in (20, 40, 80)
    }
    assert sum(len(c.processes) for c in plan) == 27 * 3 + 4 * 6


@pytest.mark.parametrize(
    ("configs", "kwargs", "message"),
    [
        ([], {}, "the sweep plan is empty"),
        ([KMeansConfig(100, 2, 2)], {"repeats": 0}, "repeats must be a positive integer"),
        ([KMeansConfig(100, 2, 2)], {"processes": ()}, "processes is empty"),
        ([KMeansConfig(100, 2, 2)], {"processes": (1, 0)}, "processes must be a positive integer, got 0"),
        ([KMeansConfig(100, 2, 2)], {"processes": (200,)}, "200 processes exceed points=100"),
        ([{"points": 100, "clusters": 2}], {}, "configuration 0"),
        ([(100, 2, 2)], {}, "must be a KMeansConfig or a mapping"),
    ],
)
def test_sweep_validation(configs, kwargs, message):
    with pytest.raises(ValidationError, match=message):
        measure_kmeans(configs, progress=False, **kwargs)


def test_config_validation():
    with pytest.raises(ValidationError, match="points must be a positive integer, got -5"):
        KMeansConfig(-5, 2, 2)
    with pytest.raises(ValidationError, match="clusters must not exceed points"):
        KMeansConfig(10, 20, 2)
    with pytest.raises(ValidationError, match="role must be 'train' or 'test'"):
        KMeansConfig(10, 2, 2, role="validation")
    with pytest.raises(ValidationError, match="processes 11 exceeds points"):
        KMeansConfig(10, 2, 2, processes=(1, 11))
    assert KMeansConfig(10, 2, 2, processes=[1, 2]).processes == (1, 2)


def _frame(**changes) -> pd.DataFrame:
    row = {c: 1.0 for c in MEASURED_COLUMNS} | {"role": "train", "repeat": 0} | changes
    return pd.DataFrame([row])


def test_reading_bad_tables(tmp_path):
    path = tmp_path / "m.csv"
    _frame().drop(columns=["freq_hz", "cycles"]).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="missing column\\(s\\) cycles, freq_hz"):
        read_measured_kmeans(path)
    _frame(role="holdout").to_csv(path, index=False)
    with pytest.raises(ValidationError, match="role has values \\['holdout'\\]"):
        read_measured_kmeans(path)
    _frame(processes=0).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="processes must hold integers >= 1"):
        read_measured_kmeans(path)
    _frame(calc_time_s=0.0).to_csv(path, index=False)
    with pytest.raises(ValidationError, match="calc_time_s must be > 0"):
        read_measured_kmeans(path)
    _frame(cycles="lots").to_csv(path, index=False)
    with pytest.raises(ValidationError, match="cycles has non-numeric values"):
        read_measured_kmeans(path)
    _frame().to_csv(path, index=False)
    with pytest.warns(ParseWarning, match="no metadata file m.json"):
        frame = read_measured_kmeans(path)
    assert len(frame) == 1 and frame.attrs == {}
    with pytest.raises(DataFormatError, match="absent.csv: file not found"):
        read_measured_kmeans(tmp_path / "absent.csv")
