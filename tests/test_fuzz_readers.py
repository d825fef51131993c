"""Fuzzing every reader of ``workbench.io`` (and the workload's): whatever the input, only the
project's own errors (:class:`~workbench.errors.WorkbenchError`) escape, each naming the
file and none repeating a library's message; hostile files (a named pipe, ``/dev/zero``,
a folder, a file over the size cap, a 100,000-field line) are refused without hanging; NPB
logs saved with Windows line endings parse exactly as the originals.

Inputs: random bytes, random CSV-like text (the readers' own column names mixed with junk,
NaN/inf/empty/huge/negative numbers, ``;`` and tab separators, CRLF and CR line ends, a
byte-order mark) and truncated or mutated copies of the example files of ``data/`` and
``tests/data/``. Hypothesis runs derandomized, so CI sees the same examples every time;
:func:`test_zz_fuzz_statistics` prints what ran (``pytest -s``)."""

from __future__ import annotations

import io
import os
import re
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench.io.text as text_module
from workbench.errors import DataFormatError, ParseWarning, WorkbenchError
from workbench.io import (
    parse_npb_text,
    read_curves_csv,
    read_extrap_mpi,
    read_imb,
    read_npb_logs,
    read_osu,
    read_osu_orfeo,
    read_perf_stat,
    read_pprof,
    read_profile_csv,
    read_profiles,
    read_scaling_bytes,
    read_scaling_corpus,
    read_scaling_csv,
    read_scaling_data,
    read_size_grids,
)
from workbench.measure.comm.pingpong import load_host_map
from workbench.measure.comm.worker import read_grid
from workbench.workloads.phases_demo import read_fractal_demo

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(
    p for folder in (ROOT / "data", ROOT / "tests" / "data") for p in folder.rglob("*")
    if p.is_file() and p.suffix in {".csv", ".txt", ".out", ".log"} and p.stat().st_size < 200_000
)

# reader -> (file name it expects, how to call it on a path)
READERS: dict[str, tuple[str, Callable[[Path], object]]] = {
    "read_npb_logs": ("cg-B-4-1.out", read_npb_logs),
    "read_scaling_csv": ("runs.csv", read_scaling_csv),
    "read_scaling_data(csv)": ("runs.csv", read_scaling_data),
    "read_scaling_data(log)": ("runs.log", read_scaling_data),
    "read_perf_stat": ("perf.txt", read_perf_stat),
    "read_osu": ("osu.txt", lambda p: read_osu(p, processes=4)),
    "read_imb": ("imb.txt", read_imb),
    "read_osu_orfeo(bcast)": ("bcast_core.csv", read_osu_orfeo),
    "read_osu_orfeo(p2p)": ("p2p.csv", read_osu_orfeo),
    "read_extrap_mpi": ("mpi_data.csv", read_extrap_mpi),
    "read_curves_csv": ("table.csv", read_curves_csv),
    "read_scaling_corpus": ("curves.csv", read_scaling_corpus),
    "read_size_grids": ("size_grids.csv", read_size_grids),
    "read_profile_csv": ("profile.csv", read_profile_csv),
    "read_pprof": ("profile_64.txt", lambda p: read_pprof(p, size=64)),
    "read_fractal_demo": ("demo.csv", read_fractal_demo),
    "read_grid": ("grid.json", read_grid),
    "load_host_map": ("hosts.json", load_host_map),
    # call-path profiles: formats by content, so one name per family of readers
    "read_profiles(cali)": ("profile.cali", read_profiles),
    "read_profiles(jsonl)": ("experiment.jsonl", read_profiles),
    "read_profiles(cubex)": ("profile.cubex", read_profiles),
}


def _named_buffer(data: bytes, name: str) -> io.BytesIO:
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


# reader of uploaded bytes or given text -> how to call it on (name, bytes)
UPLOAD_READERS: dict[str, Callable[[str, bytes], object]] = {
    "read_scaling_bytes(csv)": lambda name, data: read_scaling_bytes(f"{name}.csv", data),
    "read_scaling_bytes(out)": lambda name, data: read_scaling_bytes(f"{name}.out", data),
    "read_scaling_csv(buffer)": lambda name, data: read_scaling_csv(_named_buffer(data, name)),
    "read_profile_csv(buffer)": lambda name, data: read_profile_csv(_named_buffer(data, name)),
    "read_pprof(bytes)": lambda name, data: read_pprof(data, size=64, name=name),
    "read_pprof(text)": lambda name, data: read_pprof(data.decode("utf-8", "replace") + "\n", size=64, name=name),
    "read_perf_stat(bytes)": lambda name, data: read_perf_stat(data, name=name),
    "read_perf_stat(text)": lambda name, data: read_perf_stat(data.decode("utf-8", "replace") + "\n", name=name),
    "parse_npb_text": lambda name, data: parse_npb_text(data.decode("latin-1"), source=name),
}

# Library texts that must never reach a user, and Python argument names a dashboard user
# cannot act on.
FOREIGN_TEXTS = ("codec can't decode", "No columns to parse", "Error tokenizing", "field larger than field limit",
                 "invalid literal", "could not convert", "Traceback", "time_column=", "time_unit=")

STATS = {"examples": 0, "calls": 0, "errors": 0, "slowest": (0.0, "")}


def _check(label: str, name: str, call: Callable[[], object]) -> None:
    """Run one reader: only a WorkbenchError may escape, naming ``name`` and free of
    library texts; anything else fails the test with its traceback."""
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except WorkbenchError as exc:
        message = str(exc)
        STATS["errors"] += 1
        assert name in message, f"{label}: the message does not name {name!r}: {message[:300]}"
        leaked = [t for t in FOREIGN_TEXTS if t in message]
        assert not leaked, f"{label}: library text {leaked} in {message[:300]}"
    finally:
        elapsed = time.perf_counter() - start
        STATS["calls"] += 1
        if elapsed > STATS["slowest"][0]:
            STATS["slowest"] = (elapsed, label)


def _run_all(folder: Path, data: bytes) -> None:
    """Every reader on ``data``: as a file under each reader's expected name, and as an upload."""
    STATS["examples"] += 1
    for label, (file_name, reader) in READERS.items():
        path = folder / file_name
        path.write_bytes(data)
        _check(label, file_name, lambda: reader(path))
    for label, reader in UPLOAD_READERS.items():
        _check(label, "upload-7", lambda: reader("upload-7", data))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


FUZZ = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ----------------------------------------------------------------------------- strategies

COLUMNS = [
    "benchmark", "problem_class", "processes", "threads", "nodes", "run", "time_s", "time_ms", "source",
    "size", "phase", "time_us", "total_s", "total_ms", "curve_id", "n", "unit", "app", "machine", "metric",
    "source_repo", "algorithm", "cores", "iterations", "latency", "min", "max", "mapby", "p", "comm", "p50",
    "p95", "p99", "recv", "mpi", "variable", "Ranks", "N", "mean", "sd", "median", "iqr", "Processes",
]
CELLS = st.one_of(
    st.sampled_from(["", " ", "nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-320", "0", "-1", "-0.5", "1.5",
                     "4", "64", "9" * 25, "1.482.491.957", "1,5", "\"q,uoted\"", "\"", "#", "cg", "C", "core",
                     "<b>x</b>", "NA", "None", "true", "\u00e9t\u00e9", "1_000"]),
    st.integers(-10**20, 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
)


@st.composite
def csv_like(draw) -> bytes:
    """A table with the readers' column names, junk names and cells of every kind."""
    sep = draw(st.sampled_from([",", ",", ";", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    header = draw(st.lists(st.one_of(st.sampled_from(COLUMNS), st.text(max_size=5)), min_size=1, max_size=10))
    rows = draw(st.lists(st.lists(CELLS, min_size=0, max_size=len(header) + 2), max_size=12))
    lines = [sep.join(header)] + [sep.join(row) for row in rows]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["# comment", "", "   "])))
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    bom = "\ufeff" if draw(st.booleans()) else ""
    return (bom + text).encode(draw(st.sampled_from(["utf-8", "utf-8", "latin-1"])), "replace")


# Headers the readers expect (a row of each reader's real column names), for tables that
# get past the header checks and reach the value checks.
SCHEMAS = [
    "processes,time_s", "benchmark,problem_class,processes,threads,nodes,run,time_s,source",
    "size,phase,time_ms,run,total_ms", "size,phase,time_s", "curve_id,n,run,time_s,unit,app",
    "curve_id,source_repo,n,run,time_s", "grid,app,machine,n,n_unit,size_name,size,size_scope,time,time_unit,run,path",
    "algorithm,cores,iterations,size,latency,min,max",
    "mapby,size,latency,iterations,p50,p95,p99,recv", "mapby,p,comm,size,latency,min,max,iterations,p50,p95,p99",
    "mpi,variable,Ranks,N,mean,sd,median,min,max,iqr,ci_sd_left,ci_sd_right,ci_median_left,ci_median_right,"
    "ci_iqr_left,ci_iqr_right,smallest_left,largest_left,smallest_right,largest_right,smallest_interval,"
    "largest_interval",
]
GOOD_CELLS = st.one_of(st.integers(0, 300).map(str), st.floats(0.001, 1e4).map(lambda x: f"{x:.6g}"),
                       st.sampled_from(["cg", "C", "core", "cache", "node", "socket", "OpenMPI", "MPI_Bcast", "SD"]))


@st.composite
def schema_table(draw) -> bytes:
    """A table with one reader's header and mostly plausible cells, some of them bad."""
    header = draw(st.sampled_from(SCHEMAS)).split(",")
    rows = draw(st.lists(st.lists(st.one_of(GOOD_CELLS, GOOD_CELLS, GOOD_CELLS, CELLS), min_size=len(header),
                                  max_size=len(header)), min_size=1, max_size=8))
    if draw(st.booleans()) and len(rows) > 1:
        rows.append(rows[0])  # a repeated configuration
    return "\n".join(",".join(row) for row in [header, *rows]).encode()


NUMBERS = st.one_of(st.sampled_from(["1.482.491.957", "1,482,491,957", "1.48.2", "1,2,3", "0,73", "9" * 400,
                                     "1.5e3", "1'234", "1\u202f234", "0", "1..2", "12,34.5"]),
                    st.integers(0, 10**12).map(str), st.floats(0, 1e9).map(lambda x: f"{x:,.2f}"))


@st.composite
def perf_like(draw) -> bytes:
    """perf stat output (an example file) with its numbers replaced by locale-formatted,
    malformed and huge ones."""
    text = draw(st.sampled_from([p for p in EXAMPLES if p.parent.name == "perf"])).read_text()
    parts = re.split(r"(\d[\d.,]*)", text)
    parts = [draw(NUMBERS) if i % 2 and draw(st.booleans()) else part for i, part in enumerate(parts)]
    return "".join(parts).encode()


@st.composite
def mutated_example(draw) -> bytes:
    """A real example file cut short, with bytes changed, lines dropped or CRLF line ends."""
    data = draw(st.sampled_from(EXAMPLES)).read_bytes()
    kind = draw(st.sampled_from(["truncate", "truncate", "bytes", "lines", "crlf"]))
    if kind == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    if kind == "bytes":
        for _ in range(draw(st.integers(1, 8))):
            i = draw(st.integers(0, max(len(data) - 1, 0)))
            data = data[:i] + draw(st.binary(min_size=0, max_size=4)) + data[i + 1:]
        return data
    if kind == "lines":
        lines = data.split(b"\n")
        keep = draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
        return b"\n".join(line for line, k in zip(lines, keep) if k)
    return data.replace(b"\n", b"\r\n")


# ----------------------------------------------------------------------------- fuzzing

def test_examples_exist():
    assert len(EXAMPLES) >= 30 and any(p.suffix == ".csv" for p in EXAMPLES)


@pytest.mark.timeout(120)
@FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes(folder, data):
    _run_all(folder, data)


@pytest.mark.timeout(120)
@FUZZ
@given(data=csv_like())
def test_csv_like_text(folder, data):
    _run_all(folder, data)


@pytest.mark.timeout(120)
@FUZZ
@given(data=schema_table())
def test_tables_with_the_readers_columns(folder, data):
    _run_all(folder, data)


@pytest.mark.timeout(120)
@settings(FUZZ, max_examples=60)
@given(data=perf_like())
def test_perf_output_with_odd_numbers(folder, data):
    _run_all(folder, data)


@pytest.mark.timeout(180)
@settings(FUZZ, max_examples=160)
@given(data=mutated_example())
def test_mutated_example_files(folder, data):
    _run_all(folder, data)


# ----------------------------------------------------------------------------- hostile files

# read_fractal_demo opens its file with the measured-table reader of workbench.io.sidecar,
# which has its own words for hostile files (its parsing is read_profile_csv's)
OWN_OPEN = set(READERS) - {"read_fractal_demo"}


def _every_reader_refuses(folder: Path, make: Callable[[Path], None], expected: str, *, opening: bool = True) -> None:
    """Make the hostile file under each reader's expected name; each reader must raise a
    DataFormatError naming the file and saying ``expected`` (when the problem is found on
    ``opening`` the file, only the readers that open it with workbench.io.text)."""
    for label, (file_name, reader) in READERS.items():
        path = folder / label.replace("(", "_").replace(")", "") / file_name
        path.parent.mkdir()
        make(path)
        with pytest.raises(DataFormatError) as info:
            reader(path)
        message = str(info.value)
        assert file_name in message and (expected in message or opening and label not in OWN_OPEN), (label, message)


@pytest.mark.timeout(20)
def test_named_pipe_is_refused_without_waiting(tmp_path):
    _every_reader_refuses(tmp_path, os.mkfifo, "it is a named pipe (FIFO), not a regular file")


@pytest.mark.timeout(20)
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_link_to_dev_zero_is_refused_before_reading(tmp_path):
    _every_reader_refuses(tmp_path, lambda p: p.symlink_to("/dev/zero"), "it is a character device")


@pytest.mark.timeout(20)
def test_folder_where_a_file_is_expected(tmp_path):
    # readers that also take folders report what the folder lacks; the others refuse it
    for label, (file_name, reader) in READERS.items():
        path = tmp_path / label.replace("(", "_").replace(")", "") / file_name
        path.mkdir(parents=True)
        with pytest.raises(WorkbenchError) as info:
            reader(path)
        assert file_name in str(info.value), (label, str(info.value))


@pytest.fixture
def small_caps(monkeypatch):
    """Every size cap at 1,000 bytes (the defaults are megabytes)."""
    import workbench.io.microbench.tables as microbench  # the readers' shared file reading
    import workbench.io.npb as npb
    import workbench.io.perf as perf

    monkeypatch.setattr(text_module, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr(npb, "MAX_LOG_BYTES", 1000)
    monkeypatch.setattr(perf, "MAX_PERF_BYTES", 1000)
    monkeypatch.setattr(microbench, "MAX_FILE_BYTES", 1000)


@pytest.mark.timeout(20)
def test_oversize_files_and_uploads_are_refused(tmp_path, small_caps):
    data = b"processes,time_s\n" + b"1,2\n" * 500
    _every_reader_refuses(tmp_path, lambda p: p.write_bytes(data), "more than the 1,000 bytes accepted", opening=False)
    for label, reader in UPLOAD_READERS.items():
        with pytest.raises(DataFormatError, match="more than the 1,000 bytes accepted") as info:
            reader("upload-7", data)
        assert "upload-7" in str(info.value), label


@pytest.mark.timeout(20)
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc")
def test_file_whose_size_lies_is_read_only_up_to_the_cap(tmp_path, small_caps):
    # /proc files report st_size 0; this one holds more than 1,000 bytes
    assert os.stat("/proc/self/status").st_size == 0
    _every_reader_refuses(tmp_path, lambda p: p.symlink_to("/proc/self/status"),
                          "the file holds more than the 1,000 bytes accepted", opening=False)


@pytest.mark.timeout(20)
def test_hundred_thousand_field_line_is_refused(tmp_path):
    """pandas took 139 s on such a header (quadratic duplicate-name handling): now every
    reader refuses it (CSV readers name the line) without reaching pandas."""
    wide = (",".join(f"c{i % 10}" for i in range(100_000)) + "\n" + "1,2\n").encode()
    for label, (file_name, reader) in READERS.items():
        path = tmp_path / label.replace("(", "_").replace(")", "") / file_name
        path.parent.mkdir()
        path.write_bytes(wide)
        _check(label, file_name, lambda: reader(path))
        if file_name.endswith(".csv"):
            with pytest.raises(DataFormatError, match=r"line 1: the header has 100,000 columns or more"):
                reader(path)
    for label, reader in UPLOAD_READERS.items():
        _check(label, "upload-7", lambda: reader("upload-7", wide))


# ----------------------------------------------------------------------------- line ends

def _relative(frame: pd.DataFrame, root: Path) -> pd.DataFrame:
    return frame.assign(source=[str(Path(s).relative_to(root)) for s in frame["source"]])


def test_npb_logs_with_windows_line_ends_parse_identically(data_mirror, tmp_path):
    """All real Pi-cluster logs saved with CRLF (and with old-Mac CR, and CRLF after a
    byte-order mark) give the same frame and the same skipped files as the originals
    (0 of them parsed with CRLF before)."""
    results = data_mirror / "npb-pi-cluster" / "results"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        original = read_npb_logs(results)
    skipped = {str(Path(s["source"]).relative_to(results)): s["reason"] for s in original.attrs["skipped"]}
    variants = {"crlf": lambda b: b.replace(b"\n", b"\r\n"), "cr": lambda b: b.replace(b"\n", b"\r"),
                "bom-crlf": lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n")}
    for variant, convert in variants.items():
        copy = tmp_path / variant
        for log in (p for p in results.rglob("*") if p.is_file()):
            target = copy / log.relative_to(results)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(convert(log.read_bytes()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            converted = read_npb_logs(copy)
        assert len(converted) == len(original) == 75, variant
        pd.testing.assert_frame_equal(_relative(converted, copy), _relative(original, results))
        assert {str(Path(s["source"]).relative_to(copy)): s["reason"] for s in converted.attrs["skipped"]} == skipped


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"])
@pytest.mark.parametrize("example, reader", [
    ("synthetic/downey_example.csv", read_scaling_csv),
    ("synthetic/cross_size_example.csv", read_scaling_csv),
    ("measured/fractal_demo.csv", read_profile_csv),
])
def test_tables_with_windows_line_ends_and_bom_read_identically(tmp_path, newline, example, reader):
    original = (ROOT / "data" / example).read_bytes()
    plain, windows = tmp_path / "plain.csv", tmp_path / "windows" / "plain.csv"
    windows.parent.mkdir()
    plain.write_bytes(original)
    windows.write_bytes(b"\xef\xbb\xbf" + original.replace(b"\n", newline))
    pd.testing.assert_frame_equal(reader(windows), reader(plain))


# ----------------------------------------------------------------------------- statistics

def test_zz_fuzz_statistics():
    """Print what the fuzzing above ran (visible with ``pytest -s``)."""
    seconds, label = STATS["slowest"]
    print(f"\nfuzzed readers: {STATS['examples']} inputs, {STATS['calls']} reader calls, {STATS['errors']} "
          f"WorkbenchErrors, 0 other exceptions; slowest call {seconds:.3f} s ({label})")
    assert STATS["calls"] == 0 or np.isfinite(seconds)


# ----------------------------------------------------------------------------- call-path profiles

def _profile_examples() -> list[tuple[str, bytes]]:
    """The generated profile fixtures (tests/data/profiles/make_profiles.py) as (name, bytes)."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "data" / "profiles"))
    import make_profiles as gen

    return [("p.cali", gen.cali_text(8, 0).encode()), ("p.cubex", gen.cube_bytes(4, 0)),
            ("e.txt", gen.extrap_text().encode()), ("e.json", gen.extrap_json().encode()),
            ("l.json", gen.extrap_json_legacy().encode()), ("e.jsonl", gen.extrap_jsonl().encode()),
            ("q.json", gen.cali_query_json(8, 0).encode())]


def _timer_examples() -> list[tuple[str, bytes]]:
    """The generated GPTL and phiprof reports (make_profiles.write_timers' layouts) as (name, bytes)."""
    import gzip
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "data" / "profiles"))
    import make_profiles as gen

    return [("model_timing_stats", gen.gptl_summary(8, 0).encode()),
            ("timing.summary", gen.gptl_summary_v8(8, 0).encode()),
            ("model_timing.0001", gen.gptl_rank(4, 0, 1).encode()), ("phiprof_0.txt", gen.phiprof_text(8, 0).encode()),
            ("phiprof_1.txt", gen.phiprof_v1_text(8, 0).encode()),
            ("e3sm_timing_stats.gz", gzip.compress(gen.gptl_summary(4, 1).encode(), mtime=0)),
            ("timing.1.tar", gen.tar_bytes([("timing/model_timing_stats", gen.gptl_summary(2, 0).encode()),
                                   ("timing/model_timing.0", gen.gptl_rank(2, 0, 0).encode())]))]


TIMER_EXAMPLES = _timer_examples()
PROFILE_EXAMPLES = _profile_examples() + TIMER_EXAMPLES


@st.composite
def mutated_profile(draw, examples=None):
    name, data = draw(st.sampled_from(examples or PROFILE_EXAMPLES))
    how = draw(st.sampled_from(["truncate", "flip", "splice", "zero"]))
    i = draw(st.integers(0, max(len(data) - 1, 0)))
    if how == "truncate":
        data = data[:i]
    elif how == "flip":
        data = data[:i] + bytes([data[i] ^ draw(st.integers(1, 255))]) + data[i + 1:]
    elif how == "splice":
        data = data[:i] + draw(st.binary(max_size=40)) + data[i + draw(st.integers(0, 40)):]
    else:
        data = data[:i] + b"\0" * draw(st.integers(1, 64)) + data[i + 64:]
    return name, data


@pytest.mark.timeout(120)
@settings(FUZZ, max_examples=150)
@given(example=mutated_profile())
def test_mutated_profiles(folder, example):
    name, data = example
    path = folder / name
    path.write_bytes(data)
    _check("read_profiles", name, lambda: read_profiles(path))


@pytest.mark.timeout(120)
@settings(FUZZ, max_examples=150)
@given(example=mutated_profile(TIMER_EXAMPLES))
def test_mutated_timer_reports(folder, example):
    """GPTL and phiprof reports truncated, flipped, spliced or zeroed: a table or our error naming the file."""
    name, data = example
    path = folder / name
    path.write_bytes(data)
    _check("read_profiles", name, lambda: read_profiles(path))


@pytest.mark.timeout(120)
@settings(FUZZ, max_examples=60)
@given(example=mutated_profile())
def test_mutated_profile_in_a_folder_with_other_files(tmp_path_factory, example):
    """A folder holding a damaged profile, a good one and non-profile files (Cube's profile.ini,
    Score-P's scorep.cfg): either our error naming the damaged file, or a table with the good
    profile where the damaged file was read or skipped with the one warning that names it."""
    name, data = example
    folder = tmp_path_factory.mktemp("mixed")
    (folder / name).write_bytes(data)
    (folder / "good.cali").write_bytes(PROFILE_EXAMPLES[0][1])
    (folder / "profile.ini").write_text("[globalSettings]\nMainWindow\\coords\\size=@Size(1918 1173)\n")
    (folder / "scorep.cfg").write_text("SCOREP_ENABLE_PROFILING=true\n")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            table = read_profiles(folder)
    except WorkbenchError as exc:
        assert name in str(exc) and "good.cali" not in str(exc) and "profile.ini" not in str(exc)
        return
    skipped = [str(w.message) for w in caught if issubclass(w.category, ParseWarning)
               and "no profile format skipped" in str(w.message)]
    assert len(skipped) == 1 and "profile.ini" in skipped[0] and "scorep.cfg" in skipped[0]
    profiles = set(table["profile"])
    assert str(folder / "good.cali") in profiles
    assert any(p.startswith(str(folder / name)) for p in profiles) or name in skipped[0]
