"""Loaders of the measured collective latencies (osu-orfeo, extrap-mpi): real data through
the catalogue, hand-checked rows, documented quirks, and bad input."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.errors import DataFormatError
from workbench.io import fetch_dataset, read_extrap_mpi, read_osu_orfeo
from workbench.io.collectives import EXTRAP_MPI_COLUMNS, OSU_ORFEO_COLUMNS

# data rows per file (non-blank lines minus the header), counted by hand
OSU_ROWS = {
    "bcast_core.csv": 15935,
    "bcast_socket.csv": 13713,
    "bcast_node.csv": 6720,
    "reduce_core.csv": 5376,
    "nbft.csv": 8043,
    "p2p.csv": 5129,
}
MEASURED = ["benchmark", "mapping", "algorithm", "processes", "peer", "size_bytes", "latency_us", "min_us", "max_us",
            "p50_us", "p95_us", "p99_us", "iterations"]


@pytest.fixture(scope="module")
def osu(data_mirror):
    return fetch_dataset("osu-orfeo", mirror=data_mirror).frame


@pytest.fixture(scope="module")
def extrap(data_mirror):
    return fetch_dataset("extrap-mpi", mirror=data_mirror).frame


def _row(frame, **where):
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        mask &= (frame[column] == value).to_numpy(dtype=bool, na_value=False)
    rows = frame[mask]
    assert len(rows) == 1, (where, len(rows))
    return rows.iloc[0]


# ----------------------------------------------------------------------------- osu-orfeo

def test_osu_frame_has_one_row_per_csv_row(osu, data_mirror):
    assert osu.columns.tolist() == OSU_ORFEO_COLUMNS
    counts = osu["source"].value_counts().to_dict()
    assert counts == OSU_ROWS
    for name, n in OSU_ROWS.items():
        lines = (data_mirror / "osu-orfeo" / name).read_text().splitlines()
        blank = [i + 1 for i, line in enumerate(lines) if not line.strip()]
        assert blank == ([8066, 8067] if name == "bcast_socket.csv" else []), name  # the seam of two campaigns
        assert len(lines) - 1 - len(blank) == n, name
    assert str(osu["algorithm"].dtype) == "Int64" and str(osu["iterations"].dtype) == "Int64"
    assert osu["size_bytes"].dtype == np.int64 and osu["processes"].dtype == np.int64
    # sorted by configuration, then file and line
    keys = ["benchmark", "mapping", "algorithm", "processes", "peer", "size_bytes", "source", "line"]
    pd.testing.assert_frame_equal(osu, osu.sort_values(keys, na_position="first").reset_index(drop=True))


def test_osu_hand_checked_rows(osu):
    # bcast_node.csv line 2: 0,206,1000,1.0,13.1,2.15,25.47
    row = _row(osu, source="bcast_node.csv", algorithm=0, processes=206, size_bytes=1)
    assert (row.benchmark, row.mapping, row.algorithm_name, row.line) == ("bcast", "node", "default", 2)
    assert (row.latency_us, row.min_us, row.max_us, row.iterations) == (13.1, 2.15, 25.47, 1000)
    assert np.isnan(row.p50_us) and pd.isna(row.peer)
    # nbft.csv: node,2,1,1048576,91.83,90.36,93.29,1000,91.51,92.09,92.3
    row = _row(osu, benchmark="nbft", mapping="node", processes=2, size_bytes=1048576)
    assert (row.latency_us, row.min_us, row.max_us) == (91.83, 90.36, 93.29)
    assert (row.p50_us, row.p95_us, row.p99_us, row.peer) == (91.51, 92.09, 92.3, 1)
    assert pd.isna(row.algorithm) and pd.isna(row.algorithm_name)
    # p2p.csv line 2: cache,1,0.14,1000,0.14,0.15,0.16,1 (no min/max columns)
    row = _row(osu, source="p2p.csv", line=2)
    assert (row.mapping, row.size_bytes, row.latency_us, row.peer, row.processes) == ("cache", 1, 0.14, 1, 2)
    assert (row.p50_us, row.p95_us, row.p99_us) == (0.14, 0.15, 0.16)
    assert np.isnan(row.min_us) and np.isnan(row.max_us)
    # reduce_core.csv line 3: 0,2,1000,2,0.39,0.34,0.44
    row = _row(osu, source="reduce_core.csv", line=3)
    assert (row.benchmark, row.mapping, row.algorithm, row.processes, row.size_bytes) == ("reduce", "core", 0, 2, 2)
    assert (row.latency_us, row.min_us, row.max_us) == (0.39, 0.34, 0.44)


def test_osu_mappings_and_algorithm_names(osu):
    mappings = osu.groupby("source")["mapping"].unique().map(sorted).to_dict()
    assert mappings == {
        "bcast_core.csv": ["core"], "bcast_socket.csv": ["socket"], "bcast_node.csv": ["node"],
        "reduce_core.csv": ["core"], "nbft.csv": ["cache", "core", "node", "socket"],
        "p2p.csv": ["cache", "core", "node", "socket"],
    }
    names = osu.dropna(subset="algorithm").groupby(["benchmark", "algorithm"])["algorithm_name"].unique()
    assert {k: list(v) for k, v in names.items()} == {
        ("bcast", 0): ["default"], ("bcast", 1): ["basic_linear"], ("bcast", 2): ["chain"],
        ("bcast", 5): ["binary_tree"], ("bcast", 6): ["binomial"],
        ("reduce", 0): ["default"], ("reduce", 1): ["linear"], ("reduce", 2): ["chain"], ("reduce", 4): ["binary"],
    }
    pointwise = osu[osu["benchmark"].isin(["nbft", "p2p"])]
    assert pointwise["algorithm"].isna().all() and pointwise["algorithm_name"].isna().all()
    assert osu.loc[osu["benchmark"].isin(["bcast", "reduce"]), "peer"].isna().all()


def test_osu_process_counts_and_sizes(osu):
    core = osu[osu["source"] == "bcast_core.csv"]
    assert core["processes"].min() == 2 and core["processes"].max() == 256
    per_algorithm = core.groupby("algorithm")["processes"].unique().map(sorted)
    assert per_algorithm[1] == list(range(2, 257))  # basic linear: every count
    assert all(per_algorithm[a] == list(range(2, 255, 4)) for a in (0, 2, 5, 6))
    assert sorted(core["size_bytes"].unique()) == [2**k for k in range(21)]  # 1 B .. 1 MiB
    p2p = osu[osu["benchmark"] == "p2p"]
    assert (p2p["processes"] == 2).all() and p2p["size_bytes"].max() == 4 * 2**20
    nbft = osu[osu["benchmark"] == "nbft"]
    assert nbft["processes"].between(2, 257).all() and (nbft["peer"] == nbft["processes"] - 1).all()
    assert (osu["latency_us"] > 0).all() and (osu["min_us"].dropna() <= osu["latency_us"][osu["min_us"].notna()]).all()


def test_osu_quirks_are_kept_not_cleaned(osu):
    """The repeated campaigns of the upstream files are documented, not silently dropped."""
    copies = osu[osu.duplicated(["source", *MEASURED])].groupby("source").size().to_dict()
    assert copies == {"bcast_socket.csv": 4032, "bcast_core.csv": 1931}
    outlier = osu[(osu["source"] == "bcast_socket.csv") & (osu["algorithm"] == 0) & (osu["processes"] == 206)
                  & (osu["size_bytes"] == 2)]
    assert sorted(outlier["latency_us"]) == [9.21, 167.25, 167.25]
    assert sorted(outlier["line"]) == [3, 5379, 8069]


def test_read_one_file_equals_its_part_of_the_folder(osu, data_mirror):
    one = read_osu_orfeo(data_mirror / "osu-orfeo" / "p2p.csv")
    pd.testing.assert_frame_equal(one, osu[osu["source"] == "p2p.csv"].reset_index(drop=True))


# ----------------------------------------------------------------------------- extrap-mpi

def test_extrap_frame(extrap, data_mirror):
    assert extrap.columns.tolist() == EXTRAP_MPI_COLUMNS and len(extrap) == 70
    assert fetch_dataset("extrap-mpi", mirror=data_mirror).path == data_mirror / "extrap-mpi"
    assert set(extrap["library"]) == {"IntelMPI", "OpenMPI"}
    ranks = extrap.groupby(["library", "collective"])["ranks"].apply(list)
    assert len(ranks) == 14 and all(r == [32, 64, 128, 256, 512] for r in ranks)
    assert extrap["collective"].nunique() == 7 and "MPI_Bcast" in set(extrap["collective"])
    # line 2: IntelMPI,MPI_Barrier,32,1600,13.2596784375,19.4484428163,11.21505,10.3234,478.4662,2.93795,...
    row = _row(extrap, library="IntelMPI", collective="MPI_Barrier", ranks=32)
    assert (row.repetitions, row.mean_us, row.sd_us, row.median_us) == (1600, 13.2596784375, 19.4484428163, 11.21505)
    assert (row.min_us, row.max_us, row.iqr_us, row.line) == (10.3234, 478.4662, 2.93795, 2)
    assert (row.ci_median_left_us, row.ci_median_right_us) == (11.1739, 11.2586)
    assert (row.smallest_left, row.largest_left, row.smallest_interval) == ("IQR", "SD", "Med")
    # one configuration has far fewer repetitions than the README's 1600-2000
    assert extrap.loc[extrap["repetitions"] < 1500, ["collective", "ranks", "repetitions"]].values.tolist() == [
        ["MPI_Allgather", 512, 395]
    ]


def test_extrap_confidence_intervals_match_the_documented_formulas(extrap):
    n = extrap["repetitions"].to_numpy()
    half_t = stats.t.ppf(0.975, n - 1) * extrap["sd_us"] / np.sqrt(n)
    np.testing.assert_allclose(extrap["ci_sd_left_us"], extrap["mean_us"] - half_t, rtol=1e-9)
    np.testing.assert_allclose(extrap["ci_sd_right_us"], extrap["mean_us"] + half_t, rtol=1e-9)
    half_notch = 1.58 * extrap["iqr_us"] / np.sqrt(n)
    np.testing.assert_allclose(extrap["ci_iqr_left_us"], extrap["median_us"] - half_notch, rtol=1e-9)
    np.testing.assert_allclose(extrap["ci_iqr_right_us"], extrap["median_us"] + half_notch, rtol=1e-9)
    assert (extrap["ci_median_left_us"] <= extrap["median_us"]).all()
    assert (extrap["median_us"] <= extrap["ci_median_right_us"]).all()


# ----------------------------------------------------------------------------- bad input

BCAST_HEADER = "algorithm,cores,iterations,size,latency,min,max"
P2P_HEADER = "mapby,size,latency,iterations,p50,p95,p99,recv"


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("bcast_core.csv", "algorithm,cores,iterations,size,min,max\n0,2,1000,1,0.1,0.2\n",
         r"missing column\(s\) \['latency'\]"),
        ("bcast_core.csv", f"{BCAST_HEADER}\n0,2,1000,1,0.15,0.1,0.2\n0,2,1000,2,fast,0.1,0.2\n",
         r"column 'latency' must be numeric, got 'fast' on line 3"),
        ("bcast_core.csv", f"{BCAST_HEADER}\n0,2,1000,1,,0.1,0.2\n",
         r"column 'latency' must be numeric, got an empty cell on line 2"),
        ("reduce_core.csv", f"{BCAST_HEADER}\n0,2,1000,1,-1.5,0.1,0.2\n",
         r"column 'latency' must be a non-negative time in microseconds, got '-1.5' on line 2"),
        ("p2p.csv", f"{P2P_HEADER}\ncache,1,0.14,1000,0.14,0.15,-0.16,1\n",
         r"column 'p99' must be a non-negative time"),
        ("bcast_node.csv", f"{BCAST_HEADER}\n0,2,1000,0,0.15,0.1,0.2\n",
         r"column 'size' must be a positive message size in bytes, got '0' on line 2"),
        ("bcast_node.csv", f"{BCAST_HEADER}\n0,2.5,1000,1,0.15,0.1,0.2\n",
         r"column 'cores' must be a whole number, got '2.5'"),
        ("bcast_node.csv", f"{BCAST_HEADER}\n12,2,1000,1,0.15,0.1,0.2\n",
         r"unknown Open MPI bcast algorithm id\(s\) \[12\]"),
        ("p2p.csv", f"{P2P_HEADER}\nrack,1,0.14,1000,0.14,0.15,0.16,1\n",
         r"column 'mapby' must be one of .*got 'rack' on line 2"),
        ("p2p.csv", f"{BCAST_HEADER}\n0,2,1000,1,0.15,0.1,0.2\n",
         r"missing column\(s\) \['mapby', 'p50', 'p95', 'p99', 'recv'\] for an osu-orfeo p2p file"),
        ("nbft.csv", "mapby,p,comm,size,latency,min,max,iterations,p50,p95,p99,extra\n",
         r"no data rows"),
        ("bcast_cores.csv", f"{BCAST_HEADER}\n0,2,1000,1,0.15,0.1,0.2\n",
         r"unknown osu-orfeo file name 'bcast_cores.csv'; expected one of bcast_\{core"),
        ("bcast_core.csv", "", r"empty file"),
    ],
)
def test_osu_bad_input(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataFormatError, match=message) as info:
        read_osu_orfeo(path)
    assert name in str(info.value)


def test_osu_bad_folders(tmp_path):
    with pytest.raises(DataFormatError, match=re.escape(f"{tmp_path}: no osu-orfeo CSV files")):
        read_osu_orfeo(tmp_path)
    (tmp_path / "LICENSE").write_text("MIT")
    (tmp_path / "bcast_core.csv").write_text(f"{BCAST_HEADER}\n0,2,1000,1,0.15,0.1,0.2\n")
    assert len(read_osu_orfeo(tmp_path)) == 1  # non-CSV files are ignored
    (tmp_path / "notes.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DataFormatError, match="unknown osu-orfeo file name 'notes.csv'"):
        read_osu_orfeo(tmp_path)
    with pytest.raises(DataFormatError, match="no such file or directory"):
        read_osu_orfeo(tmp_path / "missing")


EXTRAP_HEADER = (
    "mpi,variable,Ranks,N,mean,sd,median,min,max,iqr,ci_sd_left,ci_sd_right,ci_median_left,ci_median_right,"
    "ci_iqr_left,ci_iqr_right,smallest_left,largest_left,smallest_right,largest_right,smallest_interval,"
    "largest_interval"
)
EXTRAP_ROW = (
    "OpenMPI,MPI_Bcast,32,1598,43.6,21.9,38.3,27.9,441.6,11.6,42.6,44.7,37.9,38.6,37.8,38.7,Med,SD,Med,SD,Med,SD"
)


def test_extrap_reads_a_small_file(tmp_path):
    (tmp_path / "mpi_data.csv").write_text(f"{EXTRAP_HEADER}\n{EXTRAP_ROW}\n")
    frame = read_extrap_mpi(tmp_path)
    assert frame.columns.tolist() == EXTRAP_MPI_COLUMNS
    assert frame.iloc[0][["library", "ranks", "repetitions", "mean_us"]].tolist() == ["OpenMPI", 32, 1598, 43.6]


@pytest.mark.parametrize(
    "text, message",
    [
        (f"{EXTRAP_HEADER.replace(',mean,', ',')}\n{EXTRAP_ROW.replace(',43.6,', ',')}\n",
         r"missing column\(s\) \['mean'\]"),
        (f"{EXTRAP_HEADER}\n{EXTRAP_ROW.replace(',43.6,', ',n/a,')}\n",
         r"column 'mean' must be numeric, got 'n/a' on line 2"),
        (f"{EXTRAP_HEADER}\n{EXTRAP_ROW.replace(',21.9,', ',-21.9,')}\n",
         r"column 'sd' must be a non-negative time, got '-21.9' on line 2"),
        (f"{EXTRAP_HEADER}\n{EXTRAP_ROW.replace(',32,', ',0,')}\n",
         r"column 'ranks' must be a rank count >= 1, got '0'"),
        (f"{EXTRAP_HEADER}\n{EXTRAP_ROW.replace('OpenMPI', '')}\n",
         r"column 'mpi' has an empty cell on line 2"),
    ],
)
def test_extrap_bad_input(tmp_path, text, message):
    path = tmp_path / "mpi_data.csv"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=message) as info:
        read_extrap_mpi(path)
    assert "mpi_data.csv" in str(info.value)


def test_extrap_folder_without_the_file(tmp_path):
    with pytest.raises(DataFormatError, match=re.escape(f"{tmp_path}: no mpi_data.csv in this folder")):
        read_extrap_mpi(tmp_path)
