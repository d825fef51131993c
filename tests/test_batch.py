"""workbench.batch: predict_many (joblib, resume, file sources), recommend_allocation, the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.batch import BATCH_COLUMNS, RECOMMEND_COLUMNS, predict_many, recommend_allocation
from workbench.errors import DataFormatError, ValidationError
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
    assert list(out.columns) == ["app", "machine", *BATCH_COLUMNS]
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
    assert list(out.columns) == ["machine", *BATCH_COLUMNS, *RECOMMEND_COLUMNS]
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
    (parts / "manifest.json").write_text("{}")
    with pytest.raises(ValidationError, match="holds the finished chunks of an earlier run"):
        predict_many(runs, ["app"], TARGETS, models=MODELS, out=out, progress=False)
    with pytest.raises(ValidationError, match="the earlier run used other"):
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
    assert "could not be predicted" in stdout
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
    while len(list(parts.glob("chunk-*.pkl"))) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = len(list(parts.glob("chunk-*.pkl")))
    assert 3 <= kept < 14 and not resumed.exists()
    proc = _cli(*command(resumed), "--resume")
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
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
    assert len(list((tmp_path / "preds.parquet.parts").glob("chunk-*.pkl"))) == 1
    got = predict_many(runs, ["app", "machine"], TARGETS, models=MODELS, n_jobs=2, out=out, resume=True,
                       progress=False)  # 2 workers would chunk differently: the earlier chunks are kept
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected)
