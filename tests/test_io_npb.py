"""NPB log parser: real Pi-cluster logs, synthetic OMP/MZ fixtures, broken input."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.errors import DataFormatError, ParseWarning, WorkbenchError
from workbench.io import NPB_COLUMNS, parse_npb_filename, parse_npb_text, read_npb_logs

# Expected outcome for the 85 Pi-cluster logs, established by reading every file:
# 75 end with a "Benchmark Completed" block, these 10 do not.
PI_SKIPPED = {
    "cg-A-10.out": "aborted: *** ERROR determining processor topology for 10 processes",
    "cg-F-64.out": "aborted: Error encountered in allocating space",
    "cg-E-64.out": "truncated: no 'Benchmark Completed' block",
    "ft-D-16-16.out": "truncated: no 'Benchmark Completed' block",
    "ft-D-16-8.out": "truncated: no 'Benchmark Completed' block",
    "ft-D-32-16.out": "truncated: no 'Benchmark Completed' block",
    "ft-D-8-8.out": "truncated: no 'Benchmark Completed' block",
    "lu-D-4-1.out": "truncated: no 'Benchmark Completed' block",
    "is-D-4-1.out": "empty file",
    "is-D-8-2.out": "empty file",
}
PI_FILES = 85


@pytest.fixture(scope="module")
def pi_results(data_mirror):
    return data_mirror / "npb-pi-cluster" / "results"


@pytest.fixture(scope="module")
def pi_frame(pi_results):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_npb_logs(pi_results)
    frame.attrs["_warnings"] = [w for w in caught if issubclass(w.category, ParseWarning)]
    return frame


def _row(frame, name):
    rows = frame[frame["source"].map(lambda s: Path(s).name) == name]
    assert len(rows) == 1, name
    return rows.iloc[0]


# --------------------------------------------------------------------- real data

def test_pi_cluster_counts_and_skipped(pi_frame, pi_results):
    assert len(pi_frame) == PI_FILES - len(PI_SKIPPED) == 75
    skipped = {Path(s["source"]).name: s["reason"] for s in pi_frame.attrs["skipped"]}
    assert skipped == PI_SKIPPED
    # every skipped file got a warning naming it and the reason
    messages = [str(w.message) for w in pi_frame.attrs["_warnings"]]
    assert len(messages) == len(PI_SKIPPED)
    for name, reason in PI_SKIPPED.items():
        assert any(name in m and reason in m for m in messages), name
    # nothing silently dropped: parsed + skipped = every file on disk
    on_disk = {str(p) for p in pi_results.rglob("*") if p.is_file()}
    accounted = set(pi_frame["source"]) | {s["source"] for s in pi_frame.attrs["skipped"]}
    assert accounted == on_disk and len(on_disk) == PI_FILES


def test_pi_cluster_columns_and_dtypes(pi_frame):
    assert list(pi_frame.columns[: len(NPB_COLUMNS)]) == NPB_COLUMNS
    assert pi_frame["processes"].dtype == "int64"
    assert pi_frame["threads"].dtype == "int64"
    assert str(pi_frame["nodes"].dtype) == "Int64"
    assert pi_frame["time_s"].dtype == "float64"
    assert pi_frame["verified"].dtype == bool
    assert set(pi_frame["benchmark"]) == {"bt", "cg", "ep", "ft", "is", "lu", "mg", "sp"}
    assert pi_frame["verified"].all()
    assert (pi_frame["threads"] == 1).all() and (pi_frame["variant"] == "mpi").all()
    assert set(pi_frame["npb_version"]) == {"3.4.3"}


@pytest.mark.parametrize(
    "name, cls, processes, nodes, time_s, mops",
    [
        ("cg-C-8-2.out", "C", 8, 2, 550.93, 260.19),
        ("cg-C-64-16.out", "C", 64, 16, 106.64, 1344.24),
        ("ep-E-10.out", "E", 10, None, 5937.44, 370.37),  # in first-10/
        ("is-D-8-8.out", "D", 8, 8, 188.13, 114.15),
        ("bt-D-25-8.out", "D", 25, 8, 5134.20, 11362.20),
        ("ep-S-64-16.out", "S", 64, 16, 0.03, 1140.48),  # directly under results/
        ("cg-D-64.out", "D", 64, None, 3803.16, 957.86),
    ],
)
def test_pi_cluster_spot_values(pi_frame, name, cls, processes, nodes, time_s, mops):
    row = _row(pi_frame, name)
    assert row["benchmark"] == name.split("-")[0]
    assert row["problem_class"] == cls
    assert row["processes"] == processes
    assert row["time_s"] == time_s
    assert row["mops_total"] == mops
    assert row["verified"]
    if nodes is None:
        assert pd.isna(row["nodes"])
    else:
        assert row["nodes"] == nodes


def test_mops_per_process_matches_printed_value(pi_frame):
    # independent check against the log's own "Mop/s/process" line (both printed with 2 decimals)
    for source, value in zip(pi_frame["source"], pi_frame["mops_per_process"]):
        printed = float(re.search(r"Mop/s/process\s*=\s*(\S+)", Path(source).read_text())[1])
        assert abs(value - printed) <= 0.0101, source


def test_nodes_only_from_the_file_name_convention(pi_frame):
    named = pi_frame["source"].map(lambda s: parse_npb_filename(s)["nodes"])
    assert pi_frame["nodes"].isna().tolist() == named.isna().tolist()
    assert (pi_frame["nodes"].dropna() == named.dropna().astype(int)).all()


# ------------------------------------------------------------ OMP / MZ fixtures

def test_omp_and_mz_fixtures(npb_fixtures):
    with pytest.warns(ParseWarning, match=r"README\.md: not NPB output"):
        frame = read_npb_logs(npb_fixtures)
    by_name = {Path(s).name: r for s, (_, r) in zip(frame["source"], frame.iterrows())}
    assert len(frame) == 4

    cg = by_name["cg.B.x.4threads.txt"]
    assert (cg["benchmark"], cg["problem_class"], cg["variant"]) == ("cg", "B", "omp")
    assert (cg["processes"], cg["threads"], cg["total_threads"]) == (1, 4, 4)
    assert (cg["time_s"], cg["mops_total"], cg["mops_per_process"]) == (27.35, 2000.32, 2000.32)
    assert cg["verified"] and cg["npb_version"] == "3.4.3" and pd.isna(cg["nodes"])

    ft = by_name["ft.S.x.2of4threads.log"]  # warning line inside the block, 2 of 4 threads used
    assert (ft["processes"], ft["threads"], ft["time_s"], ft["npb_version"]) == (1, 2, 0.21, "3.3.1")

    bt = by_name["bt-mz.C.4x4.out"]
    assert ((bt["benchmark"], bt["variant"], bt["processes"], bt["threads"], bt["total_threads"])
            == ("bt-mz", "mz", 4, 4, 16))
    assert bt["time_s"] == 61.84 and bt["mops_per_process"] == pytest.approx(39260.50 / 4)

    sp = by_name["sp-mz.A.3procs.out"]  # 8 threads over 3 processes, failed verification
    assert (sp["processes"], sp["total_threads"], sp["threads"]) == (3, 8, 3)
    assert sp["time_s"] == 12.413 and not sp["verified"]


def test_list_of_paths_and_single_file(npb_fixtures):
    files = [npb_fixtures / "mz" / "bt-mz.C.4x4.out", npb_fixtures / "omp"]
    frame = read_npb_logs(files)
    assert sorted(frame["benchmark"]) == ["bt-mz", "cg", "ft"]
    one = read_npb_logs(str(npb_fixtures / "mz" / "sp-mz.A.3procs.out"))
    assert len(one) == 1 and one.attrs["skipped"] == []


# ------------------------------------------------------------------ broken input

@pytest.fixture
def good_text(npb_fixtures):
    return (npb_fixtures / "omp" / "cg.B.x.4threads.txt").read_text()


def test_single_bad_file_raises_naming_it(tmp_path, good_text):
    truncated = tmp_path / "cg-B-4-1.out"
    truncated.write_text(good_text[: good_text.index("CG Benchmark Completed")])
    with pytest.raises(DataFormatError, match=r"cg-B-4-1\.out: truncated"):
        read_npb_logs(truncated)
    empty = tmp_path / "empty.out"
    empty.write_text("")
    with pytest.raises(DataFormatError, match=r"empty\.out: empty file"):
        read_npb_logs(empty)


def test_missing_paths_and_empty_directories(tmp_path):
    with pytest.raises(DataFormatError, match="no such file or directory"):
        read_npb_logs(tmp_path / "nope")
    with pytest.raises(DataFormatError, match="no files found"):
        read_npb_logs(tmp_path)
    (tmp_path / "notes.txt").write_text("just some notes\n")
    with pytest.warns(ParseWarning, match="notes.txt: not NPB output"):
        with pytest.raises(DataFormatError, match=r"no parseable NPB log among 1 file"):
            read_npb_logs(tmp_path)


def test_directory_reports_binary_and_aborted_files(tmp_path, good_text):
    (tmp_path / "ok.out").write_text(good_text)
    (tmp_path / "core.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 50)
    (tmp_path / "oom.out").write_text(" NAS Parallel Benchmarks 3.4 -- LU Benchmark\n"
                                      "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=1.0\n")
    (tmp_path / "latin1.log").write_bytes(" caf\xe9 \xff\xfe\n".encode("latin-1"))
    (tmp_path / ".hidden.out").write_text("ignored")
    with pytest.warns(ParseWarning) as record:
        frame = read_npb_logs(tmp_path)
    assert len(frame) == 1
    reasons = {Path(s["source"]).name: s["reason"] for s in frame.attrs["skipped"]}
    assert reasons == {
        "core.bin": "unknown format: binary content (a zero byte on line 1), not an NPB log",
        "oom.out": "aborted: slurmstepd: error: Detected 1 oom-kill event(s) in StepId=1.0",
        "latin1.log": "not NPB output: no 'NAS Parallel Benchmarks' header and no 'Benchmark Completed' block",
    }
    assert len(record) == 3


def test_parse_text_variants(good_text):
    record = parse_npb_text(good_text)
    assert record["source"] == "<text>" and record["nodes"] is None
    assert list(record) == NPB_COLUMNS
    failed = parse_npb_text(good_text.replace("=               SUCCESSFUL", "=             UNSUCCESSFUL"))
    assert failed["verified"] is False
    with pytest.raises(DataFormatError, match="not positive"):
        parse_npb_text(good_text.replace("27.35", " 0.00"))
    with pytest.raises(DataFormatError, match=r"cannot read 'time in seconds' = '\*+'"):
        parse_npb_text(good_text.replace("       27.35", "************"))
    with pytest.raises(DataFormatError, match="unknown problem class"):
        parse_npb_text(good_text.replace("=                        B", "=                        Q"))
    with pytest.raises(DataFormatError, match="implausible process/thread counts"):
        parse_npb_text(good_text.replace("Total threads   =                        4",
                                         "Total threads   = 99999999999999999999"))
    # two runs appended to one file: the last completed block wins
    second = good_text.replace("27.35", "13.70")
    assert parse_npb_text(good_text + second)["time_s"] == 13.70


def test_file_name_convention_and_mismatch(good_text):
    assert parse_npb_filename("results/cg/cg-C-64-16.out") == {
        "benchmark": "cg", "problem_class": "C", "processes": 64, "nodes": 16}
    assert parse_npb_filename("bt-mz-D-8.log") == {
        "benchmark": "bt-mz", "problem_class": "D", "processes": 8, "nodes": None}
    assert parse_npb_filename("cg.B.x.out") is None
    # CG B OMP has 1 process; a name claiming 4 processes on 1 node is not believed
    with pytest.warns(ParseWarning, match="nodes left unknown"):
        assert parse_npb_text(good_text, source="cg-B-4-1.out")["nodes"] is None
    assert parse_npb_text(good_text, source="cg-B-1-1.out")["nodes"] == 1


# ----------------------------------------------------------- property tests

def _check_record(record):
    assert list(record) == NPB_COLUMNS
    assert record["problem_class"] in set("SWABCDEFU")
    assert math.isfinite(record["time_s"]) and record["time_s"] > 0
    assert math.isfinite(record["mops_total"])
    assert isinstance(record["processes"], int) and record["processes"] >= 1
    assert isinstance(record["threads"], int) and record["threads"] >= 1
    assert isinstance(record["verified"], bool)


def _parse_or_format_error(text):
    """parse_npb_text may only return a valid record or raise DataFormatError."""
    try:
        record = parse_npb_text(text)
    except DataFormatError:
        return None
    _check_record(record)
    return record


FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(st.text())
def test_arbitrary_text_never_crashes(text):
    _parse_or_format_error(text)


@FAST
@given(st.lists(st.sampled_from([
    " CG Benchmark Completed.", " Class           =   C", " Time in seconds =   1e400",
    " Time in seconds =  -3", " Mop/s total     = nan", " Verification    = SUCCESSFUL",
    " Total processes =  0", " Total threads   = 2.5", " Total processes = 99999999999999999999",
    "", " Compile options:", " === = ", " *** ERROR", "garbage \ufffd\x00",
]), max_size=12))
def test_npb_like_fragments_never_crash(lines):
    _parse_or_format_error("\n".join(lines))


@FAST
@given(data=st.data())
def test_truncated_real_log_parses_identically_or_fails(good_text, data):
    full = parse_npb_text(good_text)
    cut = data.draw(st.integers(0, len(good_text)))
    record = _parse_or_format_error(good_text[:cut])
    if record is not None:
        keys = ["benchmark", "problem_class", "processes", "threads", "time_s", "mops_total", "verified"]
        assert {k: record[k] for k in keys} == {k: full[k] for k in keys}


@FAST
@given(data=st.data())
def test_line_deletions_and_garbage_never_crash(good_text, data):
    lines = good_text.splitlines()
    keep = data.draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
    mutated = "\n".join(line for line, k in zip(lines, keep) if k).encode()
    for _ in range(data.draw(st.integers(0, 5))):
        pos = data.draw(st.integers(0, len(mutated)))
        mutated = mutated[:pos] + data.draw(st.binary(min_size=1, max_size=8)) + mutated[pos:]
    _parse_or_format_error(mutated.decode("utf-8", errors="replace"))


@FAST
@given(content=st.binary(max_size=400))
def test_arbitrary_file_bytes_only_raise_workbench_errors(tmp_path, content):
    path = tmp_path / "random.out"
    path.write_bytes(content)
    try:
        frame = read_npb_logs(path)
    except WorkbenchError:
        return
    assert len(frame) == 1
