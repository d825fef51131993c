"""The shared input checks of the readers (workbench.io.text): limits, encodings, line ends,
CSV shape, and the plain-words messages that replaced library texts; the perf stat number
parser on locale-grouped numbers."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import workbench.io.text as text_module
from workbench.errors import DataFormatError, ValidationError
from workbench.io import read_curves_csv, read_perf_stat, read_profile_csv, read_scaling_bytes, read_scaling_csv
from workbench.io.profiles import pprof_msec

PERF = """
 Performance counter stats for 'python kmeans.py':

     {cycles}      cycles                    #    1.936 GHz
          595756      stalled-cycles-frontend   #   41.97% frontend cycles idle
 <not supported>      stalled-cycles-backend
          731.25 msec task-clock                #    0.310 CPUs utilized

     2.366294 seconds time elapsed
"""


def write(tmp_path, content: bytes | str, name: str = "runs.csv"):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


# ----------------------------------------------------------------------------- perf numbers

@pytest.mark.parametrize(("shown", "value"), [
    ("1.482.491.957", 1482491957),  # dots group thousands: unambiguous when repeated
    ("1,482,491,957", 1482491957),
    ("1'482'491'957", 1482491957),
    ("1\u202f482\u202f491\u202f957", 1482491957),
    ("1482491957", 1482491957),
])
def test_perf_numbers_grouped_by_any_locale(shown, value):
    assert read_perf_stat(PERF.format(cycles=shown))["cycles"] == value


@pytest.mark.parametrize("shown", ["1.48.2", "1,2,3", "12,34.5", "9" * 400])
def test_perf_numbers_that_are_not_numbers_name_the_line(shown):
    with pytest.raises(DataFormatError) as info:
        read_perf_stat(PERF.format(cycles=shown), name="run.txt")
    message = str(info.value)
    assert message.startswith("run.txt, line 4: ") and "cycles" in message
    assert "1,482,491,957" in message or "too large" in message  # says what a number looks like


# ----------------------------------------------------------------------------- encodings and line ends

def test_not_utf8_names_the_line_in_plain_words(tmp_path):
    data = b"processes,time_s\n1,2\n2,caf\x8f\n"
    path = write(tmp_path, data)
    with pytest.raises(DataFormatError) as info:
        read_scaling_csv(path)
    message = str(info.value)
    offset = data.index(0x8F)
    assert message == f"{path}, line 3: not UTF-8 text (byte 0x8f at offset {offset}); save the file as UTF-8"
    assert "codec" not in message


def test_utf16_is_recognised(tmp_path):
    with pytest.raises(DataFormatError, match="UTF-16 text; save it as UTF-8"):
        read_scaling_csv(write(tmp_path, "processes,time_s\n1,2\n".encode("utf-16")))


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_bom_and_any_line_ends(tmp_path, newline):
    text = "# measured\nprocesses,time_s\n1,10\n\n2,6\n"
    plain = read_scaling_csv(write(tmp_path, text))
    (tmp_path / "other").mkdir()
    other = read_scaling_csv(write(tmp_path, "\ufeff" + text.replace("\n", newline), "other/runs.csv"))
    pd.testing.assert_frame_equal(plain, other)
    upload = ("\ufeff" + text.replace("\n", newline)).encode()
    assert read_scaling_bytes("runs.csv", upload)["time_s"].tolist() == [10, 6]


# ----------------------------------------------------------------------------- CSV shape

def test_repeated_column_names_are_refused_before_pandas_renames_them(tmp_path):
    # pandas would silently read the second one as "time_s.1"
    with pytest.raises(ValidationError, match=r"line 1: column name\(s\) 'time_s' appear more than once"):
        read_scaling_csv(write(tmp_path, "processes,time_s,time_s\n1,2,3\n"))


def test_rows_longer_than_the_header_name_the_line(tmp_path):
    with pytest.raises(DataFormatError) as info:
        read_scaling_csv(write(tmp_path, "processes,time_s\n1,2\n3,4,5\n"))
    assert str(info.value).startswith(f"{tmp_path / 'runs.csv'}, line 3: not a readable CSV table: 3 fields where "
                                      "the header (line 1) has 2")


def test_quoted_separators_are_not_extra_fields(tmp_path):
    frame = read_scaling_csv(write(tmp_path, 'benchmark,processes,time_s\n"cg, class C",1,2\n"cg, class C",2,1\n'))
    assert frame["benchmark"].tolist() == ["cg, class C"] * 2


def test_spreadsheet_trailing_separator_is_an_unnamed_column(tmp_path):
    frame = read_scaling_csv(write(tmp_path, "processes,time_s,\n1,2,\n2,1,\n"))
    assert frame["time_s"].tolist() == [2.0, 1.0] and "unnamed: 2" in frame.columns


def test_empty_file_shows_an_example_header(tmp_path):
    with pytest.raises(ValidationError, match="empty file: expected a header line such as 'size,phase,time_ms"):
        read_profile_csv(write(tmp_path, "\n# nothing\n", "profile.csv"))


@pytest.mark.parametrize(("limit", "value", "content", "message"), [
    ("MAX_LINES", 3, "processes,time_s\n1,2\n2,1\n4,1\n", "4 lines, more than the 3 accepted"),
    ("MAX_LINE_BYTES", 10, "processes,time_s\n1,2\n", "line 1: a line of 16 bytes, more than the 10 bytes accepted"),
    ("MAX_COLUMNS", 3, "a,b,c,d\n1,2,3,4\n", "line 1: the header has 4 columns or more, more than the 3"),
    ("MAX_CELLS", 5, "processes,time_s\n1,2\n2,1\n4,1\n", "3 rows of 2 columns, more than the 5 cells accepted"),
])
def test_limits_name_what_was_exceeded(tmp_path, monkeypatch, limit, value, content, message):
    monkeypatch.setattr(text_module, limit, value)
    with pytest.raises(DataFormatError, match=message) as info:
        read_scaling_csv(write(tmp_path, content))
    assert "runs.csv" in str(info.value)


def test_buffer_is_read_only_up_to_the_cap(monkeypatch):
    monkeypatch.setattr(text_module, "MAX_FILE_BYTES", 100)
    buffer = io.BytesIO(b"processes,time_s\n" + b"1,2\n" * 1000)
    buffer.name = "upload.csv"
    with pytest.raises(DataFormatError, match="upload.csv: the file holds more than the 100 bytes accepted"):
        read_scaling_csv(buffer)
    assert buffer.tell() == 101


def test_measured_csv_over_the_cap_is_refused_before_it_is_read_or_hashed(tmp_path, monkeypatch):
    """A measured pair whose CSV is over the 50 MiB cap: refused from its size alone (the
    file is sparse: 60 MiB on paper, no disk), with no open() of it and no checksum."""
    import hashlib
    import json
    import os

    from workbench.io import sidecar

    path = tmp_path / "runs.csv"
    with open(path, "wb") as file:
        file.truncate(60 * 2**20)
    (tmp_path / "runs.json").write_text(json.dumps({"csv": {"rows": 1, "bytes": 60 * 2**20, "sha256": "0" * 64}}))
    opened, hashed = [], []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opened.append(str(p)) or real_open(p, *a, **k))
    monkeypatch.setattr(hashlib, "sha256", lambda *a, **k: hashed.append(1))
    with pytest.raises(DataFormatError, match=r"runs\.csv: the file is 62,914,560 bytes, more than the 50 MiB "
                                              "accepted for a measured CSV table"):
        sidecar.read_measured_csv(path, lambda frame, name: frame, "machine")
    assert str(path) not in opened and not hashed
    # at the cap it is read (and then refused for its content, not its size)
    monkeypatch.undo()
    monkeypatch.setattr(text_module, "MAX_FILE_BYTES", 60 * 2**20)
    with pytest.raises(DataFormatError) as info:
        sidecar.read_measured_csv(path, lambda frame, name: frame, "machine")
    assert "accepted for" not in str(info.value)


# ----------------------------------------------------------------------------- messages in plain words

def test_missing_runtime_says_what_the_file_should_contain(tmp_path):
    with pytest.raises(ValidationError) as info:
        read_scaling_csv(write(tmp_path, "processes,time_ms\n1,2000\n"))
    message = str(info.value)
    assert ("name the runtime column 'time_s', in seconds (if 'time_ms' is the runtime, rename it 'time_s' and give "
            "it in seconds): expected a header line such as 'benchmark,problem_class,processes,time_s'") in message
    assert "time_column" not in message and "time_unit" not in message


def test_curve_table_messages_name_lines_of_the_file(tmp_path):
    with pytest.raises(ValidationError, match=r"'time_s' must be a finite number > 0 .* in lines \[3\]"):
        read_curves_csv(write(tmp_path, "curve_id,n,time_s\na,1,4\na,2,-1\n", "table.csv"))
    with pytest.raises(ValidationError, match=r"'run' must be a finite number a whole number >= 0"):
        read_curves_csv(write(tmp_path, "curve_id,n,run,time_s\na,1,0.5,4\n", "table.csv"))


@pytest.mark.parametrize("token", ["1:x", "nan", "1:2:3:4", "", "²", "9" * 400 + ".5"])
def test_pprof_times_that_are_not_times(token):
    with pytest.raises(DataFormatError, match="not a pprof time"):
        pprof_msec(token)
    assert pprof_msec("1:27:15.217") == pytest.approx(5235217.0) and pprof_msec("28,489") == 28489.0
