"""workbench.batch: predict_many (joblib, resume, file sources), recommend_allocation, the CLI."""

from __future__ import annotations

import os
import pickle
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.batch import BATCH_COLUMNS, RECOMMEND_COLUMNS, predict_many, recommend_allocation
from workbench.errors import DataFormatError, ValidationError, WorkbenchWarning
from workbench.models.scaling import ScalingPredictor

ROOT = Path(__file__).resolve().parents[1]
TARGETS = [64, 128]
MODELS = "amdahl,usl"  # fast members: the batch plumbing, not the models, is under test here


def _archive(curves: int = 6, seed: int = 0) -> pd.DataFrame:
    """Amdahl-like curves with noise and repeats; curve 'bad' has a NaN runtime, 'short' 2 points."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(curves):
        serial, work = rng.uniform(1, 5), rng.uniform(100, 1000)
        for n in (2, 4, 8, 16):
            for run in range(2):
                rows.append({"app": f"app{i % 3}", "machine": f"m{i}", "processes": n,
                             "time_s": (serial + work / n) * rng.lognormal(0, 0.02)})
    rows += [{"app": "bad", "machine": "m0", "processes": n, "time_s": t} for n, t in [(2, 10), (4, np.nan), (8, 3)]]
    rows += [{"app": "short", "machine": "m0", "processes": n, "time_s": t} for n, t in [(2, 10), (4, 6)]]
    return pd.DataFrame(rows)


def test_each_curve_is_its_own_predictor_and_bad_curves_get_their_message():
    runs = _archive()
    out = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, progress=False)
    assert list(out.columns) == ["app", "machine", "processes", "prediction", "lower", "upper", "process_hours",
                                 *BATCH_COLUMNS[3:]]
    assert out["processes"].dtype == "Int64" and out["observed"].dtype == "int64"
    assert len(out) == runs.groupby(["app", "machine"]).ngroups * len(TARGETS)  # nothing dropped
    curve = runs[(runs["app"] == "app1") & (runs["machine"] == "m1")]
    expected = (ScalingPredictor(models=("amdahl", "usl")).fit(curve["processes"], curve["time_s"])
                .predict_frame(TARGETS))
    got = out[(out["app"] == "app1") & (out["machine"] == "m1")]
    np.testing.assert_array_equal(got["prediction"], expected["prediction"])
    np.testing.assert_array_equal(got["upper"], expected["upper"])
    assert got["warnings"].tolist() == [";".join(k) for k in expected["warnings"]]
    assert (got["error"] == "").all() and (got["observed"] == 4).all()
    bad = out[out["app"] == "bad"]
    assert bad["prediction"].isna().all() and bad["error"].str.contains("t must be finite").all()
    short = out[out["app"] == "short"]
    assert short["error"].str.contains("needs runs at >= 3 distinct allocations").all()


def test_workers_and_chunks_do_not_change_a_row():
    runs = _archive(8)
    one = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, progress=False)
    two = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=2, chunk_curves=3, progress=False)
    pd.testing.assert_frame_equal(one, two)


def test_csv_and_parquet_archives_read_in_batches(tmp_path, monkeypatch):
    import workbench.batch.archive as archive

    runs = _archive(5)
    expected = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, progress=False)
    monkeypatch.setattr(archive, "BATCH_ROWS", 7)  # curves spread over many batches
    runs.to_csv(tmp_path / "runs.csv", index=False)
    runs.to_parquet(tmp_path / "runs.parquet", index=False)
    for name in ("runs.csv", "runs.parquet"):
        source = archive.ArchiveSource(tmp_path / name, ["app", "machine"], "processes", "time_s")
        assert len(list(source.batches())) == -(-len(runs) // 7)  # really read 7 rows at a time
        got = predict_many(tmp_path / name, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, chunk_curves=2,
                           progress=False)
        pd.testing.assert_frame_equal(got, expected, check_dtype=False)


def test_recommend_allocation_hand_computed():
    # base: 4 processes, 100 s. E(n) = 400 / (n t(n))
    targets = [8, 16, 32, 64]
    prediction = [55.0, 30.0, 20.0, 18.0]  # E = 0.91, 0.83, 0.625, 0.35
    lower = [50.0, 25.0, 14.0, 10.0]  # E = 1.0, 1.0, 0.89, 0.625
    upper = [60.0, 40.0, 30.0, 30.0]  # E = 0.83, 0.625, 0.42, 0.21
    rec = recommend_allocation(4, 100.0, targets, prediction, lower, upper, efficiency=0.7, deadline=26.0)
    assert rec == {"efficient_n": 16.0, "efficient_n_optimistic": 32.0, "efficient_n_pessimistic": 8.0,
                   "deadline_n": 32.0, "deadline_n_optimistic": 16.0, "deadline_n_pessimistic": pytest.approx(np.nan,
                                                                                                            nan_ok=True)}
    # the range must *stay* efficient: a dip ends it even if a larger n recovers
    rec = recommend_allocation(1, 10.0, [2, 4, 8], [5.0, 5.0, 1.0], [5.0, 5.0, 1.0], [5.0, 5.0, 1.0], efficiency=0.9)
    assert rec["efficient_n"] == 2.0


def test_recommendations_in_the_batch_output():
    runs = _archive(3)
    out = predict_many(runs, "machine", [32, 64, 128], models=MODELS, n_jobs=1, progress=False, efficiency=0.5,
                       deadline=1e9)
    assert list(out.columns) == ["machine", "processes", *BATCH_COLUMNS[:3], "process_hours", *BATCH_COLUMNS[3:],
                                 *RECOMMEND_COLUMNS]
    assert all(out[c].dtype == "Int64" for c in RECOMMEND_COLUMNS)
    fine = out[out["error"] == ""]
    assert (fine["deadline_n"] == 32).all()  # every prediction meets a deadline of 1e9 s
    assert (fine["efficient_n_pessimistic"].fillna(0) <= fine["efficient_n"].fillna(0)).all()
    assert (fine["efficient_n"].fillna(0) <= fine["efficient_n_optimistic"].fillna(0)).all()


def test_bad_settings_and_sources_are_named(tmp_path):
    runs = _archive(2)
    with pytest.raises(DataFormatError, match=r"no column\(s\) 'cluster'"):
        predict_many(runs, ["cluster"], TARGETS, progress=False)
    with pytest.raises(ValidationError, match="unknown model"):
        predict_many(runs, ["app"], TARGETS, models="adept,magic", progress=False)
    with pytest.raises(ValidationError, match="efficiency threshold must be in"):
        predict_many(runs, ["app"], TARGETS, efficiency=1.5, progress=False)
    with pytest.raises(ValidationError, match="engine must be one of"):
        predict_many(runs, ["app"], TARGETS, engine="spark", progress=False)
    with pytest.raises(ValidationError, match="needs a client"):
        predict_many(runs, ["app"], TARGETS, engine="dask", progress=False)
    (tmp_path / "runs.xlsx").write_bytes(b"PK\x03\x04")
    with pytest.raises(DataFormatError, match="runs.xlsx: unknown format"):
        predict_many(tmp_path / "runs.xlsx", ["app"], TARGETS, progress=False)
    (tmp_path / "ragged.csv").write_text("app,machine,processes,time_s\na,m,2,1.0\na,m,4,0.5,9,9\n")
    with pytest.raises(DataFormatError, match="ragged.csv, line 3: not a readable CSV table"):
        predict_many(tmp_path / "ragged.csv", ["app", "machine"], TARGETS, progress=False)


def test_resume_refuses_other_settings(tmp_path):
    runs = _archive(2)
    out = tmp_path / "preds.csv"
    parts = tmp_path / "preds.csv.parts"
    parts.mkdir()
    (parts / "manifest.json").write_text('{"format": 2, "settings": {}}')
    with pytest.raises(ValidationError, match="holds the finished chunks of an earlier run"):
        predict_many(runs, ["app"], TARGETS, models=MODELS, out=out, progress=False)
    with pytest.raises(ValidationError, match="the earlier run used other chunk_curves, settings, source"):
        predict_many(runs, ["app"], TARGETS, models=MODELS, out=out, resume=True, progress=False)
    # a folder of an earlier version (pickled chunks) is never read
    (parts / "manifest.json").write_text('{"settings": {}}')
    (parts / "chunk-000000.pkl").write_bytes(b"cos\nsystem\n(S'echo pwned'\ntR.")
    with pytest.raises(ValidationError, match="kept by an older version of workbench, whose chunks are not read"):
        predict_many(runs, ["app"], TARGETS, models=MODELS, out=out, resume=True, progress=False)


def _cli(*args, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "workbench", *map(str, args)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def test_cli_predicts_an_archive_and_a_killed_run_resumes_to_the_same_output(tmp_path):
    runs = _archive(12)
    runs.to_csv(tmp_path / "runs.csv", index=False)
    whole = tmp_path / "whole.csv"
    proc = _cli("predict", tmp_path / "runs.csv", "--by", "app,machine", "--targets", 64, 128, "--out", whole,
                "--models", MODELS, "--jobs", 1, "--quiet")
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "4 targets not predicted: see the 'error' column" in stdout
    expected = pd.read_csv(whole, keep_default_na=False, na_values=[""])
    assert len(expected) == 14 * 2

    # the same run with one curve per chunk, killed once some chunks are kept, then resumed
    resumed = tmp_path / "resumed.csv"
    parts = tmp_path / "resumed.csv.parts"
    def command(out):
        return ("predict", tmp_path / "runs.csv", "--by", "app,machine", "--targets", 64, 128, "--out", out,
                "--models", MODELS + ",adept", "--jobs", 1, "--quiet", "--chunk-curves", 1)

    proc = _cli(*command(resumed), start_new_session=True)
    deadline = time.monotonic() + 240
    while len(list(parts.glob("chunk-*.parquet"))) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = sorted(parts.glob("chunk-*.parquet"))
    assert 3 <= len(kept) < 14 and not resumed.exists()
    kept[0].write_bytes(kept[0].read_bytes()[:100])  # a damaged chunk: computed again, with one note
    proc = _cli(*command(resumed), "--resume")
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert re.fullmatch(r"workbench predict: note: .*resumed\.csv\.parts: 1 kept chunk\(s\) of the earlier run are "
                        rf"damaged or missing and are computed again: {kept[0].name} \(100 bytes, [\d,]+ recorded\)\n",
                        stderr), stderr
    uninterrupted = tmp_path / "uninterrupted.csv"
    proc = _cli(*command(uninterrupted))
    assert proc.communicate(timeout=300) and proc.returncode == 0
    pd.testing.assert_frame_equal(pd.read_csv(resumed), pd.read_csv(uninterrupted))
    assert not parts.exists()


def test_cli_bad_input_is_one_line_and_status_2(tmp_path):
    (tmp_path / "runs.csv").write_text("app,procs,time_s\na,2,1.0\n")
    proc = _cli("predict", tmp_path / "runs.csv", "--by", "app", "--targets", 64, "--out", tmp_path / "p.csv")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert "runs.csv: no column(s) 'processes'" in stderr


def test_dask_local_cluster_gives_joblibs_rows(tmp_path):
    """A real dask.distributed LocalCluster (2 worker processes), fed a pandas frame, a Parquet
    file and a dask DataFrame: the rows of the joblib engine, row for row."""
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster

    runs = _archive(8)
    expected = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=2, chunk_curves=3,
                            progress=False, efficiency=0.5)
    runs.to_parquet(tmp_path / "runs.parquet", index=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        for source in (runs, tmp_path / "runs.parquet", dd.from_pandas(runs, npartitions=3)):
            got = predict_many(source, ["app", "machine"], TARGETS, models=MODELS, engine="dask", client=client,
                               chunk_curves=3, progress=False, efficiency=0.5)
            pd.testing.assert_frame_equal(got, expected, check_dtype=False)
        got = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, engine="dask",
                           scheduler=cluster.scheduler_address, chunk_curves=3, progress=False, efficiency=0.5)
        pd.testing.assert_frame_equal(got, expected)


def test_resume_keeps_the_earlier_chunks_with_other_workers(tmp_path, monkeypatch):
    import workbench.batch.run as run

    runs = _archive(8)
    expected = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, progress=False)
    out = tmp_path / "preds.parquet"
    real, calls = run._predict_chunk, []

    def interrupted(chunk_id, part, settings):
        calls.append(chunk_id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(chunk_id, part, settings)

    monkeypatch.setattr(run, "_predict_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):  # default chunking for 1 worker: 4 chunks
        predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, out=out, progress=False)
    monkeypatch.undo()
    assert len(list((tmp_path / "preds.parquet.parts").glob("chunk-*.parquet"))) == 1
    got = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=2, out=out, resume=True,
                       progress=False)  # 2 workers would chunk differently: the earlier chunks are kept
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected)


class _Payload:
    """A pickle that creates a file when unpickled: what an attacker would leave in a parts folder."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def test_damaged_tampered_or_missing_chunks_are_computed_again_with_one_note(tmp_path, monkeypatch):
    import hashlib
    import json

    import workbench.batch.run as run

    runs = _archive(8)  # 10 curves: 10 chunks of one curve
    expected = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, progress=False)
    out = tmp_path / "preds.csv"
    parts = tmp_path / "preds.csv.parts"
    real, calls = run._predict_chunk, []

    def interrupted(chunk_id, part, settings):
        calls.append(chunk_id)
        if len(calls) == 7:
            raise KeyboardInterrupt
        return real(chunk_id, part, settings)

    monkeypatch.setattr(run, "_predict_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, out=out, chunk_curves=1,
                     progress=False)
    chunk = [parts / f"chunk-{i:06d}.parquet" for i in range(6)]
    assert all(c.is_file() for c in chunk) and not (parts / "chunk-000006.parquet").exists()
    records = [json.loads(line) for line in (parts / "chunks.jsonl").read_text().splitlines()]
    assert [r["chunk"] for r in records] == list(range(6))
    assert all(r["sha256"] == hashlib.sha256(c.read_bytes()).hexdigest() for r, c in zip(records, chunk))

    chunk[0].write_bytes(chunk[0].read_bytes()[:-40])  # truncated
    truncated = records[0]["bytes"] - 40
    data = bytearray(chunk[1].read_bytes())
    data[len(data) // 2] ^= 0xFF  # one byte changed, same size
    chunk[1].write_bytes(bytes(data))
    chunk[2].unlink()  # missing
    marker = tmp_path / "unpickled"
    bomb = pickle.dumps(_Payload(marker))  # a tampered chunk, its record forged to match
    chunk[3].write_bytes(bomb)
    with open(parts / "chunks.jsonl", "a") as journal:
        journal.write(json.dumps({**records[3], "bytes": len(bomb), "sha256": hashlib.sha256(bomb).hexdigest()}))
        journal.write("\n{not json\n" + "[" * 100_000 + "\n")
    calls.clear()
    monkeypatch.setattr(run, "_predict_chunk", lambda *args: calls.append(args[0]) or real(*args))
    with pytest.warns(WorkbenchWarning) as notes:
        got = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, out=out, resume=True,
                           progress=False)
    assert len(notes) == 1
    assert str(notes[0].message) == (
        f"{parts}: 4 kept chunk(s) of the earlier run are damaged or missing and are computed again: "
        f"chunk-000000.parquet ({truncated:,} bytes, {records[0]['bytes']:,} recorded), "
        "chunk-000001.parquet (checksum differs), chunk-000002.parquet (missing), "
        "chunk-000003.parquet (not a Parquet table); 2 unreadable line(s) of chunks.jsonl ignored")
    assert sorted(calls) == [0, 1, 2, 3, 6, 7, 8, 9]  # chunks 4 and 5 kept
    assert not marker.exists()  # nothing was unpickled
    pd.testing.assert_frame_equal(got, expected)
    assert out.read_text() == expected.to_csv(index=False)
    assert not parts.exists()


def _process_table() -> dict[int, tuple[int, str]]:
    """Return {pid: (parent pid, state)} of every process, from /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def _descendants(pid: int) -> set[int]:
    table = _process_table()
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        children = [p for p, (ppid, _) in table.items() if ppid == parent and p not in found]
        found.update(children)
        todo.extend(children)
    return found


def _running(pids) -> set[int]:
    table = _process_table()
    return {p for p in pids if p in table and table[p][1] != "Z"}  # a zombie has ended


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes through /proc (Linux)")
def test_sigkill_of_the_cli_leaves_no_worker_behind(tmp_path):
    """``workbench predict --jobs 2`` killed with SIGKILL (driver only, not its group): its loky
    workers and resource trackers end within 10 s (they lived on for minutes before)."""
    _archive(30).to_csv(tmp_path / "runs.csv", index=False)
    proc = _cli("predict", tmp_path / "runs.csv", "--by", "app,machine", "--targets", 64, 128, "--out",
                tmp_path / "p.csv", "--models", MODELS + ",adept", "--jobs", 2, "--chunk-curves", 1, "--quiet",
                start_new_session=True)
    spawned: set[int] = set()
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [p for p in _descendants(proc.pid)
                       if b"popen_loky_posix" in Path(f"/proc/{p}/cmdline").read_bytes()]
            if len(workers) >= 2 and list((tmp_path / "p.csv.parts").glob("chunk-*.parquet")):
                break
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before it could be killed"
        spawned = _descendants(proc.pid)
        assert len(spawned) >= 3  # 2 workers and loky's resource tracker at least
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed = time.monotonic()
        while _running(spawned) and time.monotonic() - killed < 10:
            time.sleep(0.1)
        assert not _running(spawned), f"still running 10 s after the driver was killed: {_running(spawned)}"
    finally:  # whatever happened, leave nothing of this test running
        for pid in _running(spawned | (_descendants(proc.pid) if proc.poll() is None else set())):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_dead_scheduler_is_reported_after_the_connect_timeout(tmp_path, monkeypatch):
    """A scheduler address nobody answers: one line in the project's words once the connect
    timeout has passed (it took 30 s before; here the timeout is set to 1 s to show it is
    the one used), and a non-address is named at once."""
    import socket

    import workbench.batch.run as run

    with socket.socket() as sock:  # a port of this machine that nothing listens on
        sock.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.setattr(run, "CONNECT_TIMEOUT_S", 1)
    started = time.monotonic()
    with pytest.raises(ValidationError, match=rf"^cannot reach the Dask scheduler at {address}: no answer within 1 s; "
                                              "is it running"):
        predict_many(_archive(2), ["app"], TARGETS, engine="dask", scheduler=address, progress=False)
    assert time.monotonic() - started < 10
    with pytest.raises(ValidationError, match="'localhost' is not a Dask scheduler address: expected e.g. tcp://"):
        predict_many(_archive(2), ["app"], TARGETS, engine="dask", scheduler="localhost", progress=False)
    (tmp_path / "runs.csv").write_text("app,processes,time_s\na,2,1.0\na,4,0.6\na,8,0.4\n")
    proc = _cli("predict", tmp_path / "runs.csv", "--by", "app", "--targets", 16, "--out", tmp_path / "p.csv",
                "--scheduler", address, "--quiet")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "Traceback" not in stderr and stderr.count("\n") == 1, stderr
    assert stderr.startswith(f"workbench predict: cannot reach the Dask scheduler at {address}: no answer within 5 s")


def test_targets_whole_numbers_and_multiples_per_curve():
    from workbench.batch import parse_targets

    assert parse_targets([256, "512", 64.0, "2x", "1.5X", 256, " 2 x"]) == ((256, 512, 64), (2.0, 1.5))
    for bad, message in ((87.2, "87.2 .* is not an allocation"), (0, "not an allocation"),
                         ("x", "neither an allocation"), ("-2x", "neither"), (float("nan"), "not an allocation")):
        with pytest.raises(ValidationError, match=message):
            parse_targets([64, bad])
    # curve a measured at 1..3 processes, curve b at 4..16: 1.5x is 4.5 -> 5 (half up) and 24;
    # 0.1x of b is 1.6 -> 2, below b's smallest allocation: refused for b alone
    runs = pd.DataFrame({"app": ["a"] * 3 + ["b"] * 3, "processes": [1, 2, 3, 4, 8, 16],
                         "time_s": [10.0, 5.5, 4.0, 30.0, 16.0, 9.0]})
    out = predict_many(runs, "app", ["1.5x", "0.1x"], models=MODELS, n_jobs=1, progress=False)
    assert out[["app", "processes"]].values.tolist() == [["a", 1], ["a", 5], ["b", 2], ["b", 24]]
    refused = out[out["error"] != ""]
    assert refused[["app", "processes"]].values.tolist() == [["b", 2]]
    assert refused["error"].iat[0] == ("2 processes: below this curve's smallest measured allocation (4 processes); "
                                       "models extrapolate to larger allocations only")
    assert out.loc[out["error"] == "", "prediction"].gt(0).all() and np.isnan(refused["prediction"].iat[0])
    with pytest.raises(ValidationError, match="no targets"):
        predict_many(runs, "app", None, progress=False)
    with pytest.raises(ValidationError, match="unknown allocation unit 'racks'"):
        predict_many(runs, "app", [8], unit="racks", progress=False)


def test_topology_reaches_each_curves_predictor():
    """--per-node and --nodes-column: each curve's predictor gets them (its rows are those of a
    ScalingPredictor fitted with them), and nodes that contradict the runs are that curve's error."""
    runs = _archive(2)
    runs = runs[runs["app"] != "bad"].copy()
    runs["nodes"] = 1
    runs.loc[runs["app"] == "app1", "nodes"] = 9  # more nodes than processes at n = 2, 4, 8
    out = predict_many(runs, "app", TARGETS, models=MODELS, n_jobs=1, progress=False, per_node=16,
                       nodes_column="nodes")
    curve = runs[runs["app"] == "app0"]
    expected = (ScalingPredictor(models=("amdahl", "usl"), per_node=16)
                .fit(curve["processes"], curve["time_s"], curve["nodes"]).predict_frame(TARGETS))
    got = out[out["app"] == "app0"]
    np.testing.assert_array_equal(got["prediction"], expected["prediction"])
    np.testing.assert_array_equal(got["upper"], expected["upper"])
    assert got["warnings"].tolist() == [";".join(k) for k in expected["warnings"]]
    assert out.loc[out["app"] == "app1", "error"].str.contains("more nodes than processes").all()
    with pytest.raises(ValidationError, match="per_node must be a whole number >= 1"):
        predict_many(runs, "app", TARGETS, per_node=0, progress=False)


def test_without_pyarrow_the_csv_is_written_and_resume_is_refused_in_words(tmp_path, monkeypatch):
    import workbench.batch.run as run

    monkeypatch.setattr(run, "_have_pyarrow", lambda: False)
    runs = _archive(2)
    with pytest.warns(WorkbenchWarning, match="finished chunks are not kept without pyarrow"):
        got = predict_many(runs, "app", TARGETS, models=MODELS, n_jobs=1, progress=False, out=tmp_path / "p.csv")
    assert (tmp_path / "p.csv").read_text() == got.to_csv(index=False)
    assert not (tmp_path / "p.csv.parts").exists()
    for out, resume, what in (("p.csv", True, "resuming"), ("p.parquet", False, "writing Parquet")):
        with pytest.raises(ValidationError, match=f"{what} needs pyarrow: pip install 'workbench\\[batch\\]'"):
            predict_many(runs, "app", TARGETS, models=MODELS, n_jobs=1, progress=False, out=tmp_path / out,
                         resume=resume)


def test_a_file_archive_and_its_resume_unpickle_nothing(tmp_path, monkeypatch):
    """Spilled pieces of chunks and kept chunks are Parquet: a run from a CSV archive, interrupted
    and resumed, never calls an unpickler."""
    import workbench.batch.archive as archive
    import workbench.batch.run as run

    runs = _archive(5)
    expected = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, progress=False)
    runs.to_csv(tmp_path / "runs.csv", index=False)
    monkeypatch.setattr(archive, "BATCH_ROWS", 7)

    def refuse(*args, **kwargs):
        raise AssertionError("something was unpickled")

    for name in ("load", "loads"):
        monkeypatch.setattr(pickle, name, refuse)
    monkeypatch.setattr(pd, "read_pickle", refuse)
    real, calls = run._predict_chunk, []

    def interrupted(chunk_id, part, settings):
        calls.append(chunk_id)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(chunk_id, part, settings)

    monkeypatch.setattr(run, "_predict_chunk", interrupted)
    out = tmp_path / "p.parquet"
    with pytest.raises(KeyboardInterrupt):
        predict_many(tmp_path / "runs.csv", ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, chunk_curves=2,
                     out=out, progress=False)
    monkeypatch.setattr(run, "_predict_chunk", real)
    got = predict_many(tmp_path / "runs.csv", ["app", "machine"], TARGETS, models=MODELS, n_jobs=1, out=out,
                       resume=True, progress=False)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
