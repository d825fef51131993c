"""OSU Micro-Benchmarks / Intel MPI Benchmarks text parsers on real outputs
(tests/data/microbench/README.md names their sources), every table variant, multi-run
logs, folders, and each kind of bad input."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import DataFormatError, ParseWarning, ValidationError
from workbench.io import imb_exchange_table, read_imb, read_osu
from workbench.io.catalogue import fetch_seed_table
from workbench.io.microbench import EXCHANGE_TABLE_COLUMNS, IMB_COLUMNS, OSU_COLUMNS
from workbench.io.microbench.osu import _osu_benchmark

DATA = Path(__file__).resolve().parent / "data" / "microbench"
OSU = DATA / "osu"
IMB = DATA / "imb"


def strict(reader, path, **kwargs) -> pd.DataFrame:
    """Read with every warning turned into an error: the real fixtures must parse cleanly."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return reader(path, **kwargs)


def row(frame: pd.DataFrame, **where) -> pd.Series:
    mask = np.ones(len(frame), bool)
    for key, value in where.items():
        mask &= (frame[key] == value).to_numpy()
    assert mask.sum() == 1, where
    return frame[mask].iloc[0]


# ----------------------------------------------------------------------------- OSU: real outputs

def test_osu_latency_v5():
    frame = strict(read_osu, OSU / "hpcbench_osu_latency_v5.3.2.txt")
    assert list(frame.columns) == OSU_COLUMNS + ["latency_us", "source", "line"]
    assert frame["size_bytes"].tolist() == [16, 32, 64]
    assert frame["latency_us"].tolist() == [3.68, 3.85, 3.84]
    assert frame["line"].tolist() == [3, 4, 5]
    first = frame.iloc[0]
    assert (first["benchmark"], first["version"], first["run"], first["processes"]) == ("osu_latency", "5.3.2", 1, 2)
    assert first["title"] == "OSU MPI Latency Test v5.3.2"
    assert pd.isna(first["datatype"])
    assert first["source"] == "hpcbench_osu_latency_v5.3.2.txt"
    assert str(frame["size_bytes"].dtype) == "Int64"


def test_osu_collective_full_columns():
    frame = strict(read_osu, OSU / "pkb_osu_bcast_full_v5.7.txt")
    r = row(frame, size_bytes=8)
    assert (r["latency_us"], r["min_us"], r["max_us"], r["iterations"], r["line"]) == (6.93, 4.77, 9.08, 1000, 5)
    assert r["benchmark"] == "osu_bcast"
    assert pd.isna(r["processes"])  # a collective's output does not say
    assert str(frame["iterations"].dtype) == "Int64"


def test_osu_collective_average_only():
    frame = strict(read_osu, OSU / "hpcbench_osu_allgatherv_v5.3.2.txt")
    assert frame["benchmark"].unique().tolist() == ["osu_allgatherv"]
    assert row(frame, size_bytes=128)["latency_us"] == 6.18
    assert "min_us" not in frame


def test_osu_barrier_has_no_size():
    frame = strict(read_osu, OSU / "pkb_osu_barrier_full_v5.7.txt")
    assert len(frame) == 1
    r = frame.iloc[0]
    assert (r["benchmark"], r["size_bytes"], r["latency_us"], r["min_us"], r["max_us"]) == (
        "osu_barrier", 0, 98.91, 98.90, 98.91)


def test_osu_non_blocking_full():
    frame = strict(read_osu, OSU / "pkb_osu_ialltoall_full_v5.7.txt")
    r = row(frame, size_bytes=4)
    assert r["benchmark"] == "osu_ialltoall"
    assert [r[c] for c in ("overall_us", "compute_us", "init_us", "test_us", "wait_us", "pure_comm_us",
                           "overlap_pct")] == [96.74, 67.41, 10.19, 0.0, 18.99, 64.40, 54.44]
    assert r["line"] == 6


def test_osu_header_without_hash():
    # osu_ibarrier 5.7 prints its column header without the leading '#'
    frame = strict(read_osu, OSU / "pkb_osu_ibarrier_full_v5.7.txt")
    r = frame.iloc[0]
    assert (r["benchmark"], r["size_bytes"], r["overall_us"], r["pure_comm_us"], r["overlap_pct"]) == (
        "osu_ibarrier", 0, 112.28, 88.42, 76.32)


def test_osu_message_rate_and_pairs():
    frame = strict(read_osu, OSU / "pkb_osu_mbw_mr_v5.7.txt")
    r = row(frame, size_bytes=4)
    assert (r["bandwidth_mb_s"], r["messages_per_s"], r["processes"]) == (0.95, 238253.89, 2)  # 1 pair


def test_osu_point_to_point_variants():
    frame = strict(read_osu, OSU / "pkb_osu_latency_mt_v5.7.txt")  # thread-count lines before the title
    assert frame["benchmark"].tolist() == ["osu_latency_mt"] * 2
    assert row(frame, size_bytes=8)["latency_us"] == 2950.69
    frame = strict(read_osu, OSU / "pkb_osu_put_latency_v5.7.txt")
    assert (frame["benchmark"].iloc[0], frame["latency_us"].tolist()) == ("osu_put_latency", [3.84, 3.81])
    frame = strict(read_osu, OSU / "pkb_osu_bibw_v5.7.txt")
    assert (frame["benchmark"].iloc[0], frame["bandwidth_mb_s"].tolist()) == ("osu_bibw", [2.37, 4.66])
    assert frame["processes"].tolist() == [2, 2]


def test_osu_v7_datatype_after_header():
    frame = strict(read_osu, OSU / "icemc_osu_bw_v7.2.txt")
    r = frame.iloc[0]
    assert (r["benchmark"], r["version"], r["datatype"], r["size_bytes"], r["bandwidth_mb_s"]) == (
        "osu_bw", "7.2", "MPI_CHAR", 1048576, 11090.27)


def test_osu_terminal_log_with_several_runs():
    frame = strict(read_osu, OSU / "ocitutorials_osu_v7.5_terminal_log.txt")
    runs = frame.groupby("run").agg(benchmark=("benchmark", "first"), datatype=("datatype", "first"),
                                    rows=("line", "size"))
    assert runs["benchmark"].tolist() == ["osu_alltoall", "osu_latency", "osu_allreduce"]
    assert runs["datatype"].tolist() == ["MPI_CHAR", "MPI_CHAR", "MPI_INT"]
    assert runs["rows"].tolist() == [27, 1, 27]
    assert frame["version"].unique().tolist() == ["7.5"]
    r = row(frame, run=3, size_bytes=268435456)
    assert (r["latency_us"], r["line"]) == (496306.98, 76)
    assert row(frame, run=1, size_bytes=67108864)["latency_us"] == 747888.64
    assert row(frame, run=2, size_bytes=1)["latency_us"] == 1.67


def test_osu_tail_latency_and_validation_columns():
    frame = strict(read_osu, OSU / "synthetic_osu_latency_tail_v7.4.txt")
    r = row(frame, size_bytes=2)
    assert (r["latency_us"], r["validation"], r["p50_us"], r["p90_us"], r["p99_us"]) == (
        1.72, "Pass", 1.70, 1.81, 3.02)


def test_osu_folder_reads_every_file():
    frame = strict(read_osu, OSU)
    files = sorted(p.name for p in OSU.iterdir())
    assert sorted(frame["source"].unique()) == files
    assert len(frame) == sum(len(strict(read_osu, OSU / name)) for name in files)
    assert frame.attrs["skipped"] == []
    # file order, then line order
    assert frame["source"].tolist() == sorted(frame["source"].tolist())


def test_osu_folder_skips_other_files(tmp_path):
    shutil.copy(OSU / "pkb_osu_bibw_v5.7.txt", tmp_path)
    shutil.copy(IMB / "hpcbench_imb_pingpong_2017.txt", tmp_path)
    (tmp_path / "job.sh").write_text("#!/bin/bash\nmpirun -n 2 osu_bibw\n")
    with pytest.warns(ParseWarning) as record:
        frame = read_osu(tmp_path)
    messages = sorted(str(w.message) for w in record)
    assert "hpcbench_imb_pingpong_2017.txt: not OSU Micro-Benchmarks output" in messages[0]
    assert "use read_imb" in messages[0]
    assert "job.sh: not OSU Micro-Benchmarks output" in messages[1]
    assert frame["source"].unique().tolist() == ["pkb_osu_bibw_v5.7.txt"]
    assert frame.attrs["skipped"] == ["hpcbench_imb_pingpong_2017.txt", "job.sh"]


def test_osu_processes_argument():
    frame = strict(read_osu, OSU, processes=64)
    assert row(frame, source="pkb_osu_bcast_full_v5.7.txt", size_bytes=8)["processes"] == 64
    assert row(frame, source="pkb_osu_bibw_v5.7.txt", size_bytes=8)["processes"] == 2  # stated by the test
    frame = strict(read_osu, OSU, processes={"pkb_osu_bcast_full_v5.7.txt": 16}.get)
    assert row(frame, source="pkb_osu_bcast_full_v5.7.txt", size_bytes=8)["processes"] == 16
    assert pd.isna(row(frame, source="pkb_osu_barrier_full_v5.7.txt")["processes"])
    with pytest.raises(ValidationError, match="processes must be a whole number >= 1"):
        read_osu(OSU, processes=0)
    with pytest.raises(ValidationError, match=r"processes for pkb_osu_bcast_full_v5.7.txt .* got 'many'"):
        read_osu(OSU / "pkb_osu_bcast_full_v5.7.txt", processes=lambda name: "many")
    with pytest.raises(ValidationError, match=r"processes\('pkb_osu_bcast_full_v5.7.txt'\) failed: TypeError"):
        read_osu(OSU / "pkb_osu_bcast_full_v5.7.txt", processes=lambda name: int(re.search(r"np(\d+)", name)[1]))


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Latency", "osu_latency"),
        ("Bi-Directional Bandwidth", "osu_bibw"),
        ("Multiple Bandwidth / Message Rate", "osu_mbw_mr"),
        ("Broadcast Latency", "osu_bcast"),
        ("Allreduce Latency", "osu_allreduce"),
        ("Reduce_scatter Latency", "osu_reduce_scatter"),
        ("All-to-All Personalized Exchange Latency", "osu_alltoall"),
        ("Non-blocking All-to-All Latency", "osu_ialltoall"),
        ("Non-Blocking Broadcast Latency", "osu_ibcast"),
        ("Allgather Persistent Latency", "osu_allgather_persistent"),
        ("_Put Latency", "osu_put_latency"),
        ("_Get Bandwidth", "osu_get_bw"),
    ],
)
def test_osu_benchmark_names(title, name):
    assert _osu_benchmark(title) == name


def test_osu_accelerator_title(tmp_path):
    path = tmp_path / "cuda.txt"
    path.write_text("# OSU MPI-CUDA Latency Test v7.5\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)\n"
                    "1                      12.07\n")
    frame = strict(read_osu, path)
    assert (frame["benchmark"].iloc[0], frame["latency_us"].iloc[0]) == ("osu_latency", 12.07)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**30), st.integers(0, 10**9)), min_size=1, max_size=30))
def test_osu_round_trip(tmp_path_factory, rows):
    """What OMB prints (print_stats: %-10d then %18.2f) reads back exactly."""
    path = tmp_path_factory.mktemp("osu") / "out.txt"
    body = "".join("%-10d%18.2f\n" % (size, cents / 100) for size, cents in rows)
    path.write_text("# OSU MPI Allreduce Latency Test v7.3\n# Size       Avg Latency(us)\n" + body)
    frame = strict(read_osu, path)
    assert frame["size_bytes"].tolist() == [size for size, _ in rows]
    np.testing.assert_allclose(frame["latency_us"], [cents / 100 for _, cents in rows], rtol=0, atol=1e-9)
    assert frame["line"].tolist() == list(range(3, 3 + len(rows)))


# ----------------------------------------------------------------------------- OSU: bad input

def write(tmp_path: Path, text: str, name: str = "out.txt") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


LATENCY = "# OSU MPI Latency Test v7.3\n# Size          Latency (us)\n# Datatype: MPI_CHAR.\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "out.txt: empty file"),
        ("   \n\n", "out.txt: empty file"),
        ("size,latency\n1,2.5\n", "not OSU Micro-Benchmarks output: no '# OSU MPI ... Test' title line"),
        (LATENCY + "1     0.25\n2     0.26   0.27\n4     0.28\n",
         r"out.txt, line 5: expected 2 fields \(size_bytes, latency_us\) as in the header on line 2, got 3"),
        (LATENCY + "1     0.25\n2\n4     0.28\n", r"line 5: expected 2 fields .* got 1: '2'"),
        (LATENCY + "1     0.25\n2     abc\n", r"line 5: column 'latency_us' must be a number, got 'abc'"),
        (LATENCY + "1     nan\n", r"line 4: column 'latency_us' must be a number, got 'nan'"),
        (LATENCY + "1     -0.25\n", r"line 4: column 'latency_us' must not be negative, got '-0.25'"),
        (LATENCY + "1.5   0.25\n", r"line 4: column 'size_bytes' must be a whole number, got '1.5'"),
        ("# OSU MPI Latency Test v7.3\n1     0.25\n", r"line 2: a data row before any column header"),
    ],
)
def test_osu_bad_input(tmp_path, text, message):
    with pytest.raises(DataFormatError, match=message):
        read_osu(write(tmp_path, text))


def test_osu_given_imb_output_points_to_read_imb():
    with pytest.raises(DataFormatError, match="looks like Intel MPI Benchmarks output: use read_imb"):
        read_osu(IMB / "hpcbench_imb_pingpong_2017.txt")


def test_osu_missing_path_and_binary(tmp_path):
    with pytest.raises(DataFormatError, match="nope.txt: cannot read file: no such file or directory"):
        read_osu(tmp_path / "nope.txt")
    path = tmp_path / "a.out"
    path.write_bytes(b"\x7fELF\x00\x00binary")
    with pytest.raises(DataFormatError, match="a.out: unknown format: binary content"):
        read_osu(path)


def test_osu_folder_without_osu_output(tmp_path):
    with pytest.raises(DataFormatError, match=r"no OSU Micro-Benchmarks output in this folder \(0 file"):
        read_osu(tmp_path)
    write(tmp_path, "hello\n", "notes.txt")
    with pytest.warns(ParseWarning), pytest.raises(DataFormatError, match=r"\(1 file\(s\) looked at: notes.txt\)"):
        read_osu(tmp_path)


def test_osu_run_cut_short_keeps_complete_rows(tmp_path):
    text = (OSU / "pkb_osu_bcast_full_v5.7.txt").read_text() + "16                      7.01              4.80\n"
    with pytest.warns(ParseWarning, match=r"out.txt, line 6: incomplete last row .* \(3 of 5 fields\)"):
        frame = read_osu(write(tmp_path, text))
    assert frame["size_bytes"].tolist() == [4, 8]
    # killed, then the scheduler's message: the incomplete row is still the table's last
    text += "slurmstepd: error: *** STEP 42.0 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***\n"
    with pytest.warns(ParseWarning, match="line 6: incomplete last row"):
        assert len(read_osu(write(tmp_path, text))) == 2


def test_osu_title_without_rows(tmp_path):
    text = "# OSU MPI Latency Test v7.3\n# Size          Latency (us)\n"
    with pytest.warns(ParseWarning, match=r"line 1: run 1 \('OSU MPI Latency Test v7.3'\) has no data rows"), \
            pytest.raises(DataFormatError, match="out.txt: no data rows"):
        read_osu(write(tmp_path, text))
    text = (OSU / "hpcbench_osu_latency_v5.3.2.txt").read_text() + "# OSU MPI Bandwidth Test v5.3.2\n"
    with pytest.warns(ParseWarning, match="run 2 .* has no data rows"):
        assert len(read_osu(write(tmp_path, text))) == 3


def test_osu_interleaved_text_is_reported(tmp_path):
    text = LATENCY + "1     0.25\nWarning! Limiting max message size to: 4096.\n2     0.26\n"
    with pytest.warns(ParseWarning, match=r"ignored 1 line\(s\) inside tables .* line 5: 'Warning! Limiting"):
        frame = read_osu(write(tmp_path, text))
    assert frame["latency_us"].tolist() == [0.25, 0.26]


# ----------------------------------------------------------------------------- IMB: real outputs

def test_imb_pingpong_and_header_metadata():
    frame = strict(read_imb, IMB / "hpcbench_imb_pingpong_2017.txt")
    assert list(frame.columns) == IMB_COLUMNS + ["repetitions", "t_avg_us", "mbytes_per_s", "source", "line"]
    assert len(frame) == 24
    r = row(frame, size_bytes=4194304)
    assert (r["repetitions"], r["t_avg_us"], r["mbytes_per_s"], r["line"]) == (10, 797.81, 5257.28, 59)
    assert (r["benchmark"], r["version"], r["processes"], r["multi"], r["groups"], r["waiting"]) == (
        "PingPong", "2017 update 2", 2, False, 1, 0)
    assert pd.isna(r["mode"])
    (header,) = frame.attrs["headers"]
    assert header["date"] == "Wed Sep  6 09:18:52 2017"
    assert (header["machine"], header["system"], header["mpi_version"]) == ("x86_64", "Darwin", "3.1")
    assert (header["calling_sequence"], header["benchmarks"]) == ("./IMB-MPI1 PingPong", ["PingPong"])
    assert (header["min_message_bytes"], header["max_message_bytes"]) == (0, 4194304)
    assert (header["part"], header["run"], header["source"]) == ("MPI-1", 1, "hpcbench_imb_pingpong_2017.txt")


def test_imb_collective():
    frame = strict(read_imb, IMB / "hpcbench_imb_alltoallv_2017.txt")
    r = row(frame, size_bytes=65536)
    assert (r["repetitions"], r["t_min_us"], r["t_max_us"], r["t_avg_us"]) == (640, 20.05, 20.06, 20.06)
    assert "mbytes_per_s" not in frame


def test_imb_exchange_excerpt_without_banner():
    frame = strict(read_imb, IMB / "ompi_users_imb_exchange_40procs_2009.txt")
    assert frame.attrs["headers"] == []
    r = row(frame, size_bytes=4194304)
    assert (r["benchmark"], r["processes"], r["run"]) == ("Exchange", 40, 1)
    assert (r["t_min_us"], r["t_max_us"], r["t_avg_us"], r["mbytes_per_s"]) == (20423.82, 143447.80, 84832.93, 111.54)
    assert pd.isna(r["version"])


def test_imb_uniband_blocks_and_waiting_processes():
    frame = strict(read_imb, IMB / "nrel_imb_uniband_2019.txt")
    assert frame.groupby("processes")["waiting"].first().to_dict() == {2: 2, 4: 0}
    assert row(frame, processes=2, size_bytes=0)["messages_per_s"] == 6176400
    assert row(frame, processes=4, size_bytes=4194304)["mbytes_per_s"] == 1174.88


def test_imb_multi_groups_and_tail_lines():
    frame = strict(read_imb, IMB / "pkb_imb_allgather_multi_2019.txt")
    assert len(frame) == 7  # the "[ ... ]" tail-latency lines are not rows
    blocks = frame[["multi", "groups", "processes", "waiting"]].astype(object).values.tolist()
    assert blocks == [[True, 60, 2, 0], [True, 30, 4, 0], [True, 15, 8, 0], [True, 7, 16, 8], [True, 3, 32, 24],
                      [False, 1, 64, 56], [False, 1, 120, 0]]
    assert row(frame, processes=64)["t_avg_us"] == 113.14
    assert frame["benchmark"].unique().tolist() == ["Allgather"]


def test_imb_barrier_without_bytes_column():
    frame = strict(read_imb, IMB / "pkb_imb_barrier_multi_2019.txt")
    assert frame["size_bytes"].tolist() == [0, 0]
    assert frame[["multi", "groups", "processes", "t_avg_us"]].astype(object).values.tolist() == [
        [True, 2, 2, 80.90], [False, 1, 4, 91.24]]
    assert frame["repetitions"].tolist() == [100000, 100000]


def test_imb_two_runs_in_one_log():
    frame = strict(read_imb, IMB / "ocitutorials_imb_2021.7_two_runs.txt")
    assert frame.groupby("run")["benchmark"].first().tolist() == ["PingPong", "Allreduce"]
    r = row(frame, run=1, size_bytes=268435456)
    assert (r["t_avg_us"], r["mbytes_per_s"], r["repetitions"], r["version"]) == (21957.85, 12225.03, 1, "2021.7")
    assert row(frame, run=2, size_bytes=268435456)["t_max_us"] == 326712.51
    assert row(frame, run=2, size_bytes=0)["processes"] == 144
    assert [h["date"] for h in frame.attrs["headers"]] == ["Thu Jun 20 11:35:05 2024", "Thu Jun 20 11:40:32 2024"]


def test_imb_folder():
    frame = strict(read_imb, IMB)
    assert sorted(frame["source"].unique()) == sorted(p.name for p in IMB.iterdir())
    assert len(frame.attrs["headers"]) == 7  # one per banner; the 2009 excerpt has none
    assert frame["benchmark"].value_counts().to_dict()["Exchange"] == 24


# ----------------------------------------------------------------------------- IMB: bad input

PINGPONG = (IMB / "hpcbench_imb_pingpong_2017.txt").read_text()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("#bytes  time\n1 2\n", r"line 1: a table header before any '# Benchmarking' line"),
        ("hello world\n", "not Intel MPI Benchmarks output: no '# Benchmarking <name>' line"),
        (PINGPONG.replace("         1024         1000         0.43      2376.19",
                          "         1024         1000         0.43      2376.19   7"),
         r"line 47: expected 4 fields \(size_bytes, repetitions, t_avg_us, mbytes_per_s\) as in the header on "
         r"line 35, got 5"),
        (PINGPONG.replace("2376.19", "2,376.19"), r"line 47: column 'mbytes_per_s' must be a number, got '2,376.19'"),
        (PINGPONG.replace("       #bytes #repetitions      t[usec]   Mbytes/sec\n", ""),
         r"line 35: a data row before the column header .* of the 'PingPong' block \(line 32\)"),
    ],
)
def test_imb_bad_input(tmp_path, text, message):
    with pytest.raises(DataFormatError, match=message):
        read_imb(write(tmp_path, text))


def test_imb_given_osu_output_points_to_read_osu():
    with pytest.raises(DataFormatError, match="looks like OSU Micro-Benchmarks output: use read_osu"):
        read_imb(OSU / "pkb_osu_bcast_full_v5.7.txt")


def test_imb_run_cut_short(tmp_path):
    text = PINGPONG[: PINGPONG.index("      2097152") + len("      2097152           20")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_imb(write(tmp_path, text))
    messages = [str(w.message) for w in caught if issubclass(w.category, ParseWarning)]
    assert len(messages) == 2
    assert re.search(r"out.txt, line 58: incomplete last row of the 'PingPong' table \(2 of 4 fields\)", messages[0])
    assert "run 1 (banner on line 3) has no 'All processes entering MPI_Finalize' line" in messages[1]
    assert frame["size_bytes"].max() == 1048576
    assert len(frame) == 22  # 0 B and 1 B .. 1 MiB


def test_imb_folder_without_imb_output(tmp_path):
    shutil.copy(OSU / "pkb_osu_bcast_full_v5.7.txt", tmp_path)
    with pytest.warns(ParseWarning, match="use read_osu"), \
            pytest.raises(DataFormatError, match="no Intel MPI Benchmarks output in this folder"):
        read_imb(tmp_path)


# ----------------------------------------------------------------------------- Exchange -> Table 6.1

def test_exchange_table_from_real_output():
    frame = strict(read_imb, IMB)
    table = imb_exchange_table(frame, ppn=8)
    assert list(table.columns) == EXCHANGE_TABLE_COLUMNS
    assert len(table) == 24
    r = table[table["message_size_bytes"] == 2097152].iloc[0]
    assert (r["processes_per_node"], r["nodes"], r["processes"], r["avg_comm_time_us"], r["line"]) == (
        8, 5, 40, 61021.08, 28)
    by_file = imb_exchange_table(frame, ppn={"ompi_users_imb_exchange_40procs_2009.txt": 1})
    assert by_file["nodes"].unique().tolist() == [40]


def test_exchange_table_reproduces_table_6_1_layout(tmp_path):
    """IMB output of the thesis's runs (64 ARIS nodes, PpN 1..16) gives Table 6.1 back."""
    seed = pd.read_csv(fetch_seed_table("exchange_benchmark_table6_1").path)
    ppn = {}
    for per_node, part in seed.groupby("processes_per_node"):
        lines = ["#------", "# Benchmarking Exchange ", f"# #processes = {64 * per_node} ", "#------",
                 "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec"]
        lines += ["%13d%13d%13.2f%13.2f%13.2f%13.2f" % (s, 10, t, t, t, 1.0)
                  for s, t in zip(part["message_size_bytes"], part["avg_comm_time_us"])]
        name = f"exchange_ppn{per_node}.txt"
        write(tmp_path, "\n".join(lines) + "\n", name)
        ppn[name] = per_node
    table = imb_exchange_table(strict(read_imb, tmp_path), ppn)
    expected = seed.sort_values(["message_size_bytes", "processes_per_node"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(table[list(seed.columns)].astype({c: "int64" for c in seed.columns[:3]}),
                                  expected, check_dtype=False)


def test_exchange_table_errors():
    frame = strict(read_imb, IMB)
    with pytest.raises(ValidationError, match="40 processes are not a multiple of ppn = 3"):
        imb_exchange_table(frame, ppn=3)
    with pytest.raises(ValidationError, match=r"ppn gives no processes per node for file\(s\)"):
        imb_exchange_table(frame, ppn={"other.txt": 1})
    with pytest.raises(ValidationError, match="ppn must be a whole number >= 1, got 0"):
        imb_exchange_table(frame, ppn=0)
    with pytest.raises(ValidationError, match=r"no 'Exchange' rows .* benchmarks present: \['PingPong'\]"):
        imb_exchange_table(strict(read_imb, IMB / "hpcbench_imb_pingpong_2017.txt"), ppn=1)
    with pytest.raises(ValidationError, match=r"missing column\(s\) \['t_avg_us'\]"):
        imb_exchange_table(frame.drop(columns="t_avg_us"), ppn=1)
