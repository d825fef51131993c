"""Profile readers: the simple CSV and TAU pprof text (real outputs, tests/data/profiles)."""

from __future__ import annotations

import io
import shutil
import warnings
from pathlib import Path

import pytest

from workbench.errors import DataFormatError, ParseWarning, ValidationError
from workbench.io import read_pprof, read_profile_csv
from workbench.io.profiles import pprof_msec
from workbench.models.fractal import FractalExtrapolator, phase_shares

DATA = Path(__file__).resolve().parent / "data" / "profiles"
TAUSTUBS = DATA / "taustubs_matmult_summary.txt"
MINIWEATHER = DATA / "miniweather_node0.txt"


# ----------------------------------------------------------------------------- CSV


def test_read_profile_csv_converts_milliseconds():
    frame = read_profile_csv(DATA / "simple_profile.csv")
    assert frame.columns.tolist() == ["size", "phase", "time_s", "run", "total_s"]
    assert len(frame) == 9 and frame.attrs["time_unit"] == "s"
    first = frame.iloc[0]
    assert ((first["size"], first["phase"], first["time_s"], first["run"], first["total_s"])
            == (64.0, "stencil", pytest.approx(0.1205), 0, 0.2))
    shares = phase_shares(frame).set_index(["size", "phase"])
    # size 96: two runs, stencil 270/500 and 272/505
    assert shares.loc[(96.0, "stencil"), "share"] == pytest.approx((270 / 500 + 272 / 505) / 2)


@pytest.mark.parametrize(
    ("column", "scale"), [("time_s", 1.0), ("time_ms", 1e-3), ("time_us", 1e-6), ("TIME_MS", 1e-3)]
)
def test_read_profile_csv_time_units(column, scale):
    text = f"size;phase;{column}\n10;a;5\n10;b;15\n"
    frame = read_profile_csv(io.StringIO(text))
    assert frame["time_s"].tolist() == pytest.approx([5 * scale, 15 * scale])
    assert frame["run"].tolist() == [0, 0] and "total_s" not in frame.columns


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("size,phase\n1,a\n", ValidationError, r"<buffer>: missing column time_s \(or time_ms / time_us\)"),
        ("size,time_s\n1,2\n", ValidationError, r"<buffer>: missing column\(s\) \['phase'\]"),
        ("size,phase,time_min\n1,a,2\n", DataFormatError, "unknown time unit in column 'time_min'; use one of time_s, "
         "time_ms, time_us"),
        ("size,phase,time_s,time_ms\n1,a,2,3\n", ValidationError, r"several time columns \['time_s', 'time_ms'\]"),
        ("size,phase,time_ms\n1,a,2\n1,b,-3\n", ValidationError, "column 'time_ms' must hold finite times >= 0, got "
         "'-3' on line 3"),
        ("size,phase,time_ms\n1,a,2\n1,b,\n", ValidationError, "column 'time_ms' must hold finite times >= 0, got "
         "empty on line 3"),
        ("size,phase,time_ms\n1,a,NaN\n", ValidationError, "column 'time_ms' must hold finite times >= 0, got 'NaN' on "
         "line 2"),
        ("size,phase,time_ms\n1,a,fast\n", ValidationError, "got 'fast' on line 2"),
        ("# note\nsize,phase,time_s\n0,a,2\n", ValidationError, "column 'size' must be a finite number > 0, got '0' in "
         "line 3"),
        ("size,phase,time_s,total_ms\n1,a,2,-1\n", ValidationError, "column 'total_ms' must hold finite times >= 0"),
        ("size,phase,time_s\n1,a,2\n1,a,3\n", ValidationError, "duplicate timing of phase 'a' at size 1, run 0 in line "
         "3"),
        ("", ValidationError, "empty file"),
    ],
)
def test_read_profile_csv_errors(text, error, message):
    with pytest.raises(error, match=message):
        read_profile_csv(io.StringIO(text))


def test_read_profile_csv_file_errors(tmp_path):
    with pytest.raises(DataFormatError, match="missing.csv: cannot read file"):
        read_profile_csv(tmp_path / "missing.csv")
    binary = tmp_path / "profile.xlsx"
    binary.write_bytes(b"PK\x03\x04 zip")
    with pytest.raises(DataFormatError,
                       match="profile.xlsx: unknown format: this is a zip archive or an Excel workbook"):
        read_profile_csv(binary)
    bad = tmp_path / "bad.csv"
    bad.write_text("size,phase,time_ms\n8,a,1\n8,b,-1\n")
    with pytest.raises(ValidationError, match=r"bad.csv: column 'time_ms' .* on line 3"):
        read_profile_csv(bad)
    with pytest.raises(DataFormatError, match="expected a CSV path or file-like object, got int"):
        read_profile_csv(42)


# ----------------------------------------------------------------------------- pprof


def test_pprof_time_formats():
    assert pprof_msec("0.593") == 0.593
    assert pprof_msec("11,900") == 11900.0
    assert pprof_msec("1:10.733") == pytest.approx(70733.0)  # m:ss.sss
    assert pprof_msec("2:38.281") == pytest.approx(158281.0)
    assert pprof_msec("1:27:15.217") == pytest.approx(5235217.0)  # h:mm:ss.sss
    for bad in ("1::2", "1:2:3:4", "abc"):
        with pytest.raises(ValueError):
            pprof_msec(bad)


def test_read_pprof_function_summary_mean_and_total():
    mean = read_pprof(TAUSTUBS, size=500)
    assert mean.attrs["pprof_table"] == "mean" and mean.attrs["time_unit"] == "s"
    times = mean.set_index("phase")["time_s"]
    assert ".TAU application" not in times.index and len(times) == 9
    assert times["compute"] == pytest.approx(1.715) and times["compute_interchange"] == pytest.approx(1.190)
    assert times["threaded_func"] == pytest.approx(0.00275e-3)
    assert mean["total_s"].tolist() == pytest.approx([2.975] * 9) and (mean["size"] == 500).all()
    total = read_pprof(TAUSTUBS, size=500, table="total", run=2).set_index("phase")
    assert total.loc["compute", "time_s"] == pytest.approx(6.860)
    assert total.loc["do_work", "time_s"] == pytest.approx(0.031)
    assert total["total_s"].tolist() == pytest.approx([11.9] * 9) and (total["run"] == 2).all()
    # exclusive times of the functions add up to the application's inclusive time minus its own exclusive time
    assert total["time_s"].sum() + 0.593e-3 == pytest.approx(11.9, rel=1e-3)


def test_read_pprof_node_table_with_long_names_and_minutes():
    with pytest.warns(ParseWarning, match=r"miniweather_node0.txt: line 17 skipped, not a pprof table row: '\.\.\.'"):
        frame = read_pprof(MINIWEATHER, size=400)
    assert frame.attrs["pprof_table"] == "NODE 0;CONTEXT 0;THREAD 0"
    times = frame.set_index("phase")["time_s"]
    assert times["void compute_tendencies_z(double *, double *, double *)"] == pytest.approx(34.240)
    step = "void semi_discrete_step(double *, double *, double *, double, int, double *, double *)"
    assert times[step] == pytest.approx(1.167)
    assert times["MPI_File_write_at_all()"] == pytest.approx(1.211)
    assert frame["total_s"].iloc[0] == pytest.approx(70.733)
    # the USER EVENTS table (with '=>' call paths) contributes nothing
    assert len(frame) == 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParseWarning)
        assert read_pprof(MINIWEATHER, size=400, table="0.0.0").equals(frame)


def test_read_pprof_text_callpaths_and_throttled():
    text = """NODE 0;CONTEXT 0;THREAD 0:
---------------------------------------------------------------------------------------
%Time    Exclusive    Inclusive       #Call      #Subrs  Inclusive Name
              msec   total msec                          usec/call
---------------------------------------------------------------------------------------
100.0        1,000        4,000           1           2    4000000 .TAU application
 50.0        2,000        2,000          10           0     200000 solve
 25.0        1,000        1,000          10           0     100000 read() [THROTTLED]
 25.0        1,000        1,000          10           0     100000 .TAU application => solve
"""
    frame = read_pprof(text, size=64).set_index("phase")
    assert frame["time_s"].to_dict() == {"solve": 2.0, "read()": 1.0}
    assert (frame["total_s"] == 4.0).all()
    assert read_pprof(text.encode(), size=64).equals(read_pprof(text, size=64))


def test_read_pprof_folder_with_sizes_from_file_names(tmp_path):
    (tmp_path / "empty").mkdir()
    shutil.copy(TAUSTUBS, tmp_path / "profile_64.txt")
    shutil.copy(TAUSTUBS, tmp_path / "profile_64_1.txt")
    shutil.copy(TAUSTUBS, tmp_path / "profile_128.out")
    (tmp_path / "profile.0.0.0").write_text("TAU's own profile format: not pprof text, ignored by the name pattern")
    (tmp_path / "notes.md").write_text("ignored")
    frame = read_pprof(tmp_path)
    assert sorted(set(zip(frame["size"], frame["run"]))) == [(64.0, 0), (64.0, 1), (128.0, 0)]
    assert len(frame) == 27 and frame.attrs["pprof_table"] == "mean"
    # the profile frame feeds the fractal model directly
    shares = phase_shares(frame)
    assert shares.loc[shares["phase"] == "compute", "share"].tolist() == pytest.approx([1.715 / 2.975] * 2)
    with pytest.raises(ValidationError, match="sizes of a folder's pprof outputs come from their file names"):
        read_pprof(tmp_path, size=64)
    with pytest.raises(DataFormatError, match="no pprof output files named profile_<size>"):
        read_pprof(tmp_path / "empty")


@pytest.mark.parametrize(
    ("source", "kwargs", "error", "message"),
    [
        (TAUSTUBS, {}, ValidationError, "pprof output does not record the input size: name the file profile_<size>"),
        (TAUSTUBS, {"size": 0}, ValidationError, "column 'size' must be a finite number > 0, got 0"),
        (TAUSTUBS, {"size": 8, "table": "NODE 3;CONTEXT 0;THREAD 0"}, ValidationError,
         r"no pprof table 'NODE 3;CONTEXT 0;THREAD 0'; the text has \['total', 'mean'\]"),
        ("just some text\nwithout a table\n", {"size": 8}, DataFormatError, "no TAU pprof table found"),
        ("FUNCTION SUMMARY (mean):\n100.0 1 1 1 0 1000 .TAU application\n", {"size": 8}, DataFormatError,
         "has no function rows besides '.TAU application'"),
        (DATA / "missing.txt", {"size": 8}, DataFormatError, "missing.txt: cannot read file"),
        (3.5, {"size": 8}, DataFormatError, "expected pprof text, a file or a folder path, got float"),
    ],
)
def test_read_pprof_errors(source, kwargs, error, message):
    with pytest.raises(error, match=message):
        read_pprof(source, **kwargs)


def test_read_pprof_needs_a_table_choice_without_summary():
    two = MINIWEATHER.read_text().replace("USER EVENTS",
                                          "NODE 1;CONTEXT 0;THREAD 0:\n" + _rows_only() + "\nUSER EVENTS")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParseWarning)
        with pytest.raises(ValidationError, match="several pprof tables .* and no 'FUNCTION SUMMARY \\(mean\\):' table "
                           "to use by default; choose one"):
            read_pprof(two, size=1)
        node1 = read_pprof(two, size=1, table="NODE 1;CONTEXT 0;THREAD 0")
    assert node1["phase"].tolist() == ["solve"]


def _rows_only() -> str:
    return "100.0 1 3 1 1 3000 .TAU application\n 66.0 2 2 1 0 2000 solve\n"


def test_profile_frames_fit_the_extrapolator():
    # a CSV profile with exact power laws: solve ~ n^3, sweep ~ n^2
    lines = ["size,phase,time_ms"] + [
        f"{n},{p},{t}" for n in (10, 20, 30, 40, 50) for p, t in (("solve", n**3 / 100), ("sweep", n**2 / 10))
    ]
    frame = read_profile_csv(io.StringIO("\n".join(lines)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = FractalExtrapolator(phases=["solve", "sweep"], min_size=10).fit(frame).predict(100)
    assert pred.phases.set_index("phase")["m"].to_dict() == {"solve": pytest.approx(3.0), "sweep": pytest.approx(2.0)}
    assert pred.phases.set_index("phase")["predicted"].to_dict() == {"solve": pytest.approx(10.0),
                                                                     "sweep": pytest.approx(1.0)}
