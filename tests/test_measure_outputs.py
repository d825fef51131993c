"""Measurement outputs and the measurement lock: CSV + sidecar pairs
written atomically with the CSV's row count, size and checksum, checked on read; interrupted
writes (exceptions, Ctrl-C, kill -9) never leave a pair that reads back wrong; existing files
and the repository's data only with force; one measurement at a time per machine, across
threads and processes, with a process cap."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import pandas as pd
import pytest

from workbench.errors import DataFormatError, MeasurementError, ValidationError
from workbench.io import sidecar as sidecar_module
from workbench.io.catalogue import DATA_DIR
from workbench.io.sidecar import (
    check_output_path,
    default_measure_dir,
    read_measured_csv,
    stamp_sidecar,
    write_measured_csv,
)
from workbench.measure import (
    KMeansConfig,
    current_measurement,
    exclusive_measurement,
    max_processes,
    measure_kmeans,
    read_measured_kmeans,
    write_measured_kmeans,
)
from workbench.measure.comm import read_comm_datagen, read_comm_pingpong, write_comm_sweep
from workbench.measure.lock import lock_path, runtime_dir
from workbench.workloads.phases_demo import measure_phases_demo, read_fractal_demo, write_fractal_demo

MEASURED = DATA_DIR / "measured"
BUSY = r"another measurement is running \((?P<what>.*)\) — try again when it finishes"


@pytest.fixture(autouse=True)
def private_dirs(tmp_path_factory, monkeypatch):
    """A lock and a default output directory of this test's own: other test sessions on the
    machine (and real sweeps) neither block these tests nor are blocked by them."""
    base = tmp_path_factory.mktemp("measure-env")
    monkeypatch.setenv("WORKBENCH_RUNTIME_DIR", str(base / "run"))
    monkeypatch.setenv("WORKBENCH_MEASURE_DIR", str(base / "measured"))
    monkeypatch.delenv("WORKBENCH_MAX_PROCESSES", raising=False)
    return base


def _frame(rows: int = 50, offset: float = 0.0) -> pd.DataFrame:
    return pd.DataFrame({"x": range(rows), "t": [1.5 + offset + i / 7 for i in range(rows)]})


def _same(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    return frame


def _read(path) -> pd.DataFrame:
    return read_measured_csv(path, _same, "machine")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# ----------------------------------------------------------------------------- pairs and checks


def test_pair_records_rows_size_and_checksum(tmp_path):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {"date": "today", "csv": "overwritten"})
    meta = json.loads((tmp_path / "runs.json").read_text())
    data = path.read_bytes()
    assert meta["date"] == "today"
    assert meta["csv"] == {"file": "runs.csv", "rows": 50, "bytes": len(data),
                           "sha256": hashlib.sha256(data).hexdigest()}
    back = _read(path)
    pd.testing.assert_frame_equal(back, _frame())
    assert back.attrs["csv"]["rows"] == 50
    assert _leftovers(tmp_path) == []
    assert stat.S_IMODE(path.stat().st_mode) == 0o644 and stat.S_IMODE((tmp_path / "runs.json").stat().st_mode) == 0o644


def test_truncated_csv_is_refused_naming_both_files(tmp_path):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {})
    data = path.read_bytes()
    cut = data[: data.rindex(b"\n", 0, len(data) // 2) + 1]  # whole lines: pandas alone reads it happily
    path.write_bytes(cut)
    assert len(pd.read_csv(path)) < 50
    with pytest.raises(DataFormatError, match=r"runs\.csv does not match its metadata file .*runs\.json: the CSV has "
                                              rf"{len(cut)} bytes, the metadata record {len(data)} bytes \(50 rows\)"):
        _read(path)


def test_changed_content_and_sidecar_of_another_run_are_refused(tmp_path):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {})
    data = bytearray(path.read_bytes())
    data[-3] = ord("9") if data[-3] != ord("9") else ord("8")  # same size, one digit changed
    path.write_bytes(bytes(data))
    with pytest.raises(DataFormatError, match=r"runs\.json: the CSV's SHA-256 checksum differs"):
        _read(path)
    # a CSV from another run beside this sidecar
    other = write_measured_csv(_frame(offset=1.0), tmp_path / "other.csv", {})
    path.write_bytes(other.read_bytes())
    with pytest.raises(DataFormatError, match="does not match its metadata file"):
        _read(path)
    # a sidecar that records only a row count (hand-written) still has it checked
    (tmp_path / "runs.json").write_text(json.dumps({"csv": {"rows": 7}}))
    with pytest.raises(DataFormatError, match="the CSV has 50 rows, the metadata record 7"):
        _read(path)


def test_sidecar_without_checksum_is_accepted_and_can_be_stamped(tmp_path):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {"date": "d"})
    sidecar = tmp_path / "runs.json"
    meta = json.loads(sidecar.read_text())
    del meta["csv"]
    sidecar.write_text(json.dumps(meta, indent=1))  # written before checksums existed, no final newline
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(_read(path)) == 50
    stamp_sidecar(path)
    text = sidecar.read_text()
    assert text.startswith('{\n "date": "d",\n "csv": {') and not text.endswith("\n")  # the layout is kept
    assert json.loads(text)["csv"]["rows"] == 50
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(DataFormatError, match="does not match its metadata file"):
        _read(path)


@pytest.mark.parametrize("resave", [
    lambda data: data.replace(b"\n", b"\r\n"),  # git's core.autocrlf on checkout
    lambda data: b"\xef\xbb\xbf" + data,  # an editor's "UTF-8 with BOM"
    lambda data: b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"),
], ids=["crlf", "bom", "bom+crlf"])
def test_crlf_or_bom_resaved_csv_is_the_same_table(tmp_path, resave):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {"date": "d"})
    data = path.read_bytes()
    path.write_bytes(resave(data))
    assert path.read_bytes() != data
    back = _read(path)
    pd.testing.assert_frame_equal(back, _frame())
    assert back.attrs["date"] == "d"
    # the line ends are forgiven, a changed value is not
    changed = bytearray(resave(data))
    changed[-4] = ord("9") if changed[-4] != ord("9") else ord("8")
    path.write_bytes(bytes(changed))
    with pytest.raises(DataFormatError, match="does not match its metadata file"):
        _read(path)


def test_missing_sidecar_is_a_warning_and_a_bad_one_an_error(tmp_path):
    path = tmp_path / "runs.csv"
    _frame().to_csv(path, index=False)
    with pytest.warns(Warning, match="no metadata file runs.json"):
        _read(path)
    (tmp_path / "runs.json").write_text("[1, 2]")
    with pytest.raises(DataFormatError, match="runs.json: expected the metadata of a measured table as a JSON object "
                       ".*, got a JSON array"):
        _read(path)
    with pytest.raises(DataFormatError, match=r"nothing\.csv: file not found"):
        _read(tmp_path / "nothing.csv")
    os.mkfifo(tmp_path / "fifo.csv")
    with pytest.raises(DataFormatError, match="not a regular file"):  # and does not hang
        _read(tmp_path / "fifo.csv")


def test_shipped_measurements_carry_checksums_and_read_cleanly():
    for name, reader in (("kmeans_fim", read_measured_kmeans), ("comm_pingpong", read_comm_pingpong),
                         ("comm_datagen", read_comm_datagen), ("fractal_demo", read_fractal_demo)):
        meta = json.loads((MEASURED / f"{name}.json").read_text())
        assert set(meta["csv"]) == {"file", "rows", "bytes", "sha256"}, name
        assert meta["csv"]["bytes"] == (MEASURED / f"{name}.csv").stat().st_size
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frame = reader(MEASURED / f"{name}.csv")
        assert len(frame) == meta["csv"]["rows"]


def test_fractal_demo_reader_checks_the_pair(tmp_path):
    demo = read_fractal_demo(MEASURED / "fractal_demo.csv")
    path = write_fractal_demo(demo, tmp_path / "demo.csv", command="pytest")
    back = read_fractal_demo(path)
    assert len(back) == len(demo) and back.attrs["csv"]["rows"] == len(demo)
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(DataFormatError, match=r"demo\.csv does not match its metadata file .*demo\.json"):
        read_fractal_demo(path)


# ----------------------------------------------------------------------------- interrupted writes


class _Interrupt:
    """Stand-in of ``sidecar._write_all``: writes the first half of the payload whose text
    contains ``marker``, then raises ``error`` (as a Ctrl-C or a crash would, mid-write)."""

    def __init__(self, marker: bytes, error: BaseException):
        self.marker, self.error, self.real = marker, error, sidecar_module._write_all

    def __call__(self, fd, data):
        if self.marker in data:
            self.real(fd, data[: len(data) // 2])
            raise self.error
        self.real(fd, data)


def test_exception_while_writing_the_csv_leaves_no_csv(tmp_path, monkeypatch):
    monkeypatch.setattr(sidecar_module, "_write_all", _Interrupt(b"x,t\n", RuntimeError("disk on fire")))
    with pytest.raises(RuntimeError, match="disk on fire"):
        write_measured_csv(_frame(), tmp_path / "runs.csv", {})
    assert not (tmp_path / "runs.csv").exists()
    assert _leftovers(tmp_path) == []
    with pytest.raises(DataFormatError, match="says a write of this measurement started.*did not finish"):
        _read(tmp_path / "runs.csv")


def test_interrupted_overwrite_keeps_the_previous_pair(tmp_path, monkeypatch):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {"date": "first"})
    before = path.read_bytes(), (tmp_path / "runs.json").read_bytes()
    monkeypatch.setattr(sidecar_module, "_write_all", _Interrupt(b"x,t\n", KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        write_measured_csv(_frame(80, offset=3.0), path, {"date": "second"}, force=True)
    assert (path.read_bytes(), (tmp_path / "runs.json").read_bytes()) == before
    assert _leftovers(tmp_path) == []
    back = _read(path)
    assert len(back) == 50 and back.attrs["date"] == "first"


@pytest.mark.parametrize("previous", ["none", "checksummed", "legacy"])
def test_ctrl_c_between_csv_and_sidecar_is_refused_on_read(tmp_path, monkeypatch, previous):
    path = tmp_path / "runs.csv"
    if previous != "none":
        write_measured_csv(_frame(), path, {"date": "first"})
    if previous == "legacy":  # a sidecar from before checksums: it would vouch for anything
        meta = json.loads((tmp_path / "runs.json").read_text())
        del meta["csv"]
        (tmp_path / "runs.json").write_text(json.dumps(meta))
    monkeypatch.setattr(sidecar_module, "_write_all", _Interrupt(b'"sha256"', KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        write_measured_csv(_frame(80, offset=3.0), path, {"date": "second"}, force=previous != "none")
    assert len(pd.read_csv(path)) == 80  # the new CSV is complete and in place ...
    with pytest.raises(DataFormatError, match="does not match its metadata file|did not finish"):
        _read(path)  # ... but its sidecar is not its own: refused
    assert _leftovers(tmp_path) == []


_KILLER = textwrap.dedent("""
    import os, signal, sys
    import pandas as pd
    from workbench.io import sidecar
    real = sidecar._write_all
    def dying(fd, data):
        if data.startswith(b"x,t"):
            real(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally: a real kill
        real(fd, data)
    sidecar._write_all = dying
    frame = pd.DataFrame({"x": range(5000), "t": [0.25 * i for i in range(5000)]})
    sidecar.write_measured_csv(frame, sys.argv[1], {"date": "second"}, force=True)
""")


def test_kill_9_during_the_write_leaves_the_old_pair(tmp_path):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {"date": "first"})
    before = path.read_bytes()
    done = subprocess.run([sys.executable, "-c", _KILLER, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert path.read_bytes() == before
    assert len(_leftovers(tmp_path)) == 1  # the killed write's temporary file: ignored, never read
    back = _read(path)
    assert len(back) == 50 and back.attrs["date"] == "first"
    # and with no previous pair: no CSV at all, and the sidecar says what happened
    fresh = tmp_path / "fresh.csv"
    done = subprocess.run([sys.executable, "-c", _KILLER, str(fresh)], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert not fresh.exists()
    with pytest.raises(DataFormatError, match="did not finish"):
        _read(fresh)


# ----------------------------------------------------------------------------- where and force


def test_existing_measurement_needs_force(tmp_path):
    path = write_measured_csv(_frame(), tmp_path / "runs.csv", {"date": "2026-01-02"})
    with pytest.raises(MeasurementError, match=r"runs\.csv and .*runs\.json already exist \(measured 2026-01-02\): "
                                               r"not overwritten; pass force=True \(command line: --force\)"):
        write_measured_csv(_frame(80), path, {})
    assert len(_read(path)) == 50
    write_measured_csv(_frame(80), path, {}, force=True)
    assert len(_read(path)) == 80
    (tmp_path / "runs.json").unlink()  # a CSV alone counts too
    with pytest.raises(MeasurementError, match=r"runs\.csv already exists: not overwritten"):
        write_measured_csv(_frame(), path, {})
    with pytest.raises(ValidationError, match="must be written to a .csv file"):
        check_output_path(tmp_path / "runs.json")
    (tmp_path / "folder.csv").mkdir()
    with pytest.raises(MeasurementError, match="exists and is not a regular file"):
        check_output_path(tmp_path / "folder.csv", force=True)


def test_repository_data_and_the_mirror_need_force(tmp_path, monkeypatch):
    target = MEASURED / "pytest_must_not_exist.csv"
    with pytest.raises(MeasurementError, match=r"inside the repository's tracked data .*pass force=True"):
        write_measured_csv(_frame(), target, {})
    assert not target.exists() and not target.with_suffix(".json").exists()
    assert not [p for p in MEASURED.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.setenv("WORKBENCH_DATA_MIRROR", str(tmp_path / "mirror"))
    with pytest.raises(MeasurementError, match="tracked data"):
        check_output_path(tmp_path / "mirror" / "new" / "runs.csv")
    assert check_output_path(tmp_path / "mirror" / "runs.csv", force=True) == tmp_path / "mirror" / "runs.csv"


def test_default_directory_is_outside_the_repository(monkeypatch, tmp_path, private_dirs):
    assert default_measure_dir() == private_dirs / "measured"
    monkeypatch.delenv("WORKBENCH_MEASURE_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_measure_dir() == tmp_path / "xdg" / "workbench" / "measured"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_measure_dir() == tmp_path / "home" / ".local" / "share" / "workbench" / "measured"
    assert not default_measure_dir().resolve().is_relative_to(DATA_DIR.parent)


def test_writers_default_to_the_measure_dir_and_refuse_to_overwrite(private_dirs):
    folder = private_dirs / "measured"
    kmeans = read_measured_kmeans(MEASURED / "kmeans_fim.csv").head(12)
    path = write_measured_kmeans(kmeans, command="pytest")
    assert path.parent == folder and path.name.startswith("kmeans_") and len(read_measured_kmeans(path)) == 12
    with pytest.raises(MeasurementError, match="already exist"):
        write_measured_kmeans(kmeans)
    pingpong = read_comm_pingpong(MEASURED / "comm_pingpong.csv")
    assert write_comm_sweep(pingpong) == folder / "comm_pingpong.csv"
    with pytest.raises(MeasurementError, match="already exist"):
        write_comm_sweep(pingpong)
    assert len(read_comm_pingpong(write_comm_sweep(pingpong, force=True))) == len(pingpong)
    demo = read_fractal_demo(MEASURED / "fractal_demo.csv")
    assert write_fractal_demo(demo) == folder / "fractal_demo.csv"
    with pytest.raises(MeasurementError, match="already exist"):
        write_fractal_demo(demo)
    assert _leftovers(folder) == []


# ----------------------------------------------------------------------------- the lock


def test_nested_entries_of_one_thread_pass_and_other_threads_are_refused():
    assert current_measurement() is None
    refused = []

    def other():
        try:
            with exclusive_measurement("second"):
                refused.append(None)
        except MeasurementError as exc:
            refused.append(str(exc))

    with exclusive_measurement("dashboard action", processes=4) as info:
        assert info["what"] == "dashboard action" and info["pid"] == os.getpid()
        with exclusive_measurement("a sweep inside it", processes=2):
            assert current_measurement()["what"] == "dashboard action"
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(10)
    assert refused and refused[0] is not None
    assert refused[0].startswith("another measurement is running (dashboard action, 4 processes, started ")
    assert refused[0].endswith("— try again when it finishes")
    assert current_measurement() is None
    with exclusive_measurement("again"):  # released
        pass


def _hold(ready, release, what="holder test"):
    with exclusive_measurement(what, processes=3):
        ready.set()
        release.wait(60)


def _try(result):
    try:
        with exclusive_measurement("child"):
            result.put("acquired")
    except MeasurementError as exc:
        result.put(str(exc))


def test_a_second_process_is_refused_at_once_and_gets_the_lock_after():
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing shared but the lock file
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(ready, release))
    holder.start()
    try:
        assert ready.wait(60), "the holder did not start"
        with pytest.raises(MeasurementError, match=BUSY) as caught:
            with exclusive_measurement("parent"):
                pass
        assert "holder test, 3 processes, started " in str(caught.value)
        assert f"pid {holder.pid})" in str(caught.value)
        assert re.search(r"started \d\d:\d\d by \S+, pid", str(caught.value))
        seen = current_measurement()
        assert seen["what"] == "holder test" and seen["pid"] == holder.pid
    finally:
        release.set()
        holder.join(60)
    assert holder.exitcode == 0
    assert current_measurement() is None
    with exclusive_measurement("parent"):
        pass


def test_a_killed_holder_leaves_no_stale_lock():
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(ready, release, "to be killed"))
    holder.start()
    assert ready.wait(60)
    with pytest.raises(MeasurementError, match="to be killed"):
        with exclusive_measurement("parent"):
            pass
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(30)
    assert current_measurement() is None  # the description it left behind is recognised as stale
    with exclusive_measurement("parent"):
        pass


def test_a_forked_child_does_not_inherit_the_holding():
    ctx = multiprocessing.get_context("fork")
    result = ctx.Queue()
    with exclusive_measurement("parent holds"):
        child = ctx.Process(target=_try, args=(result,))
        child.start()
        message = result.get(timeout=60)
        child.join(30)
    assert message.startswith("another measurement is running (parent holds")
    child = ctx.Process(target=_try, args=(result,))
    child.start()
    assert result.get(timeout=60) == "acquired"
    child.join(30)


def test_process_cap(monkeypatch):
    assert max_processes() >= 8
    monkeypatch.setenv("WORKBENCH_MAX_PROCESSES", "2")
    assert max_processes() == 2
    with pytest.raises(MeasurementError, match=r"big sweep: 3 processes exceed the limit of 2 processes per "
                                               r"measurement on this machine \(set WORKBENCH_MAX_PROCESSES"):
        with exclusive_measurement("big sweep", processes=3):
            pass
    with pytest.warns(Warning, match="perf=False"), \
            pytest.raises(MeasurementError, match=r"K-means sweep \(6 runs\): 4 processes exceed the limit of 2"):
        measure_kmeans([KMeansConfig(5000, 4, 3, processes=(1, 4))], perf=False, progress=False)
    monkeypatch.setenv("WORKBENCH_MAX_PROCESSES", "many")
    with pytest.raises(MeasurementError, match="WORKBENCH_MAX_PROCESSES='many'"):
        max_processes()


def test_sweeps_are_refused_while_another_measurement_runs():
    ready, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold, args=(ready, release, "someone else's sweep"))
    holder.start()
    try:
        assert ready.wait(10)
        with pytest.warns(Warning, match="perf=False"), pytest.raises(MeasurementError, match="someone else's sweep"):
            measure_kmeans([KMeansConfig(5000, 4, 3)], processes=(1,), perf=False, progress=False)
        with pytest.raises(MeasurementError, match="someone else's sweep"):
            measure_phases_demo([8], 16, repeats=1)
    finally:
        release.set()
        holder.join(10)


def test_lock_directory(monkeypatch, tmp_path):
    assert lock_path() == runtime_dir() / "measure.lock"
    monkeypatch.delenv("WORKBENCH_RUNTIME_DIR")
    xdg = tmp_path / "xdg-run"
    (xdg / "workbench").mkdir(parents=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(xdg))
    assert runtime_dir() == xdg / "workbench"
    (xdg / "workbench").chmod(0o777)  # writable by others: someone could swap the lock
    with pytest.raises(MeasurementError, match="writable by others"):
        runtime_dir()
