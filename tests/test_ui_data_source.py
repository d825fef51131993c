"""Headless tests of the shared data-source widget (workbench.ui.data_source): choosing
entries, failed loads that keep the previous data, uploads through the FileUpload widget,
the path box, entries added by a dashboard, one notification per change and catalogue
entries without a mirror."""

from __future__ import annotations

import datetime

import ipywidgets as widgets
import pandas as pd
import pytest

from workbench.errors import DataFormatError, ValidationError
from workbench.io import MIRROR_ENV
from workbench.ui.common import ERROR_CLASS, message_panel
from workbench.ui.data_source import MIRROR_MISSING, PATH, UPLOAD, Dataset, DataSource
from workbench.ui.uploads import UploadFormat

FORMAT = UploadFormat("The dashboard reads a UTF-8 CSV table with the columns x and y.", "x,y")


def _frame(*ys: float) -> pd.DataFrame:
    return pd.DataFrame({"x": range(len(ys)), "y": list(ys)})


def _read(files: list[tuple[str, bytes]]) -> pd.DataFrame:
    import io

    frames = []
    for name, content in files:
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            raise DataFormatError(f"{name}: not UTF-8 text") from None
        frame = pd.read_csv(io.StringIO(text))
        if list(frame.columns) != ["x", "y"]:
            raise DataFormatError(f"{name}: columns {', '.join(map(str, frame.columns))}, expected x and y")
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _positive(frame: pd.DataFrame) -> pd.DataFrame:
    if (frame["y"] <= 0).any():
        raise ValidationError("y must be positive")
    return frame


def _broken() -> pd.DataFrame:
    raise DataFormatError("the broken example cannot be read")


def _upload(source, name: str, content: bytes) -> None:
    """What the browser sends when a file is chosen in the FileUpload widget."""
    source.upload.value = ({"name": name, "type": "text/csv", "size": len(content), "content": memoryview(content),
                            "last_modified": datetime.datetime(2026, 1, 1)},)


def _error(panel) -> str:
    return panel.value if f'class="{ERROR_CLASS}"' in panel.value else ""


@pytest.fixture
def no_mirror(monkeypatch, tmp_path):
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "missing"))


@pytest.fixture
def source(no_mirror):
    calls = {"a": 0}

    def load_a():
        calls["a"] += 1
        return _frame(1, 2, 3)

    s = DataSource([Dataset("a", "example A", load_a), Dataset("b", "example B", lambda: _frame(4, 5)),
                    Dataset("broken", "broken example", _broken), Dataset("bad", "negative", lambda: _frame(-1)),
                    Dataset("real", "real data (catalogue)", lambda: _frame(9), needs_mirror=True)],
                   upload=FORMAT, read_upload=_read, validate=_positive, path=True,
                   read_path=lambda p: _read([(p, open(p, "rb").read())]))
    s.calls = calls
    s.fired = []
    s.on_change(lambda src: s.fired.append((src.key, src.frame["y"].tolist())))
    return s


def test_initial_entry_and_choosing_another(source):
    assert source.key == "a" and source.label == "example A" and source.frame["y"].tolist() == [1, 2, 3]
    assert isinstance(source.menu, widgets.Dropdown) and source.menu.value == "a"
    source.menu.value = "b"
    assert source.key == "b" and source.label == "example B" and source.fired == [("b", [4, 5])]
    source.menu.value = "a"  # cached: loaded once
    assert source.calls["a"] == 1 and source.fired[-1] == ("a", [1, 2, 3]) and len(source.fired) == 2
    assert source.select("b") and source.key == "b" and len(source.fired) == 3
    assert source.select("b") and len(source.fired) == 3  # no change, no notification
    with pytest.raises(ValidationError, match="unknown dataset"):
        source.select("nope")


@pytest.mark.parametrize("key, says", [("broken", "the broken example cannot be read"),
                                       ("bad", "y must be positive")])
def test_a_failing_load_keeps_the_previous_data_and_shows_why(source, key, says):
    source.menu.value = key
    assert says in _error(source.messages)
    assert source.key == "a" and source.menu.value == "a" and source.frame["y"].tolist() == [1, 2, 3]
    assert source.fired == [] and source.error == says
    source.menu.value = "b"  # the next success clears the message
    assert source.messages.value == "" and source.fired == [("b", [4, 5])] and source.error is None


def test_upload_success_becomes_a_menu_entry(source):
    _upload(source, "mine.csv", b"x,y\n0,7\n1,8\n")
    assert not _error(source.messages), source.messages.value
    assert source.key == UPLOAD and source.menu.value == UPLOAD and source.frame["y"].tolist() == [7, 8]
    assert source.label == "uploaded: mine.csv (2 rows)" and (source.label, UPLOAD) in source.menu.options
    assert source.fired == [(UPLOAD, [7, 8])] and source.upload.value == ()
    source.menu.value = "a"
    source.menu.value = UPLOAD  # the upload stays selectable
    assert source.frame["y"].tolist() == [7, 8] and len(source.fired) == 3


@pytest.mark.parametrize("name, content, says", [
    ("wrong.csv", b"alpha,beta\n1,2\n", "alpha"),
    ("latin1.csv", "x,y\n1,\xb5\n".encode("latin-1"), "UTF-8"),
    ("neg.csv", b"x,y\n0,-3\n", "y must be positive"),
    ("junk.csv", bytes(range(256)), "junk.csv"),
])
def test_upload_failure_says_what_is_wrong_and_keeps_the_data(source, name, content, says):
    _upload(source, name, content)
    message = _error(source.messages)
    assert says in message and "The dashboard reads" in message and "Example header line: x,y" in message
    assert "Traceback" not in message and "Internal error" not in message
    assert source.key == "a" and source.menu.value == "a" and source.fired == [] and source.upload.value == ()
    assert UPLOAD not in [k for _, k in source.menu.options]


def test_a_reader_bug_becomes_a_message(no_mirror):
    def buggy(files):
        raise KeyError("oops")

    s = DataSource([Dataset("a", "A", lambda: _frame(1))], upload=FORMAT, read_upload=buggy)
    assert not s.load_files([("f.csv", b"x,y\n")])
    message = _error(s.messages)
    assert "f.csv" in message and "could not be read" in message and "KeyError" in message and s.key == "a"


def test_path_entry(source, tmp_path):
    good = tmp_path / "runs.csv"
    good.write_text("x,y\n0,5\n1,6\n2,7\n")
    source.path.value = str(good)
    assert source.key == PATH and source.frame["y"].tolist() == [5, 6, 7] and str(good) in source.label
    assert source.fired == [(PATH, [5, 6, 7])]
    bad = tmp_path / "bad.csv"
    bad.write_text("alpha\n1\n")
    source.path.value = str(bad)
    assert "bad.csv" in _error(source.messages) and source.key == PATH and source.frame["y"].tolist() == [5, 6, 7]
    assert len(source.fired) == 1
    assert not source.load_path("  ") and "no path given" in _error(source.messages)


def test_add_offers_and_selects_a_frame(source):
    assert source.add("sweep", "measured here (3 runs)", _frame(10, 11, 12))
    assert source.key == "sweep" and source.label == "measured here (3 runs)" and source.menu.value == "sweep"
    assert source.fired == [("sweep", [10, 11, 12])]
    assert source.add("sweep", "measured here again (1 run)", _frame(13))  # replaces the current entry
    assert source.frame["y"].tolist() == [13] and len(source.fired) == 2
    assert [k for _, k in source.menu.options].count("sweep") == 1
    source.menu.value = "a"
    assert source.add("other", "not selected", _frame(2), select=False)
    assert source.key == "a" and len(source.fired) == 3 and ("not selected", "other") in source.menu.options
    assert not source.add("neg", "refused", _frame(-5))
    assert "y must be positive" in _error(source.messages) and "neg" not in [k for _, k in source.menu.options]
    assert source.key == "a" and len(source.fired) == 3


def test_missing_mirror_is_labelled_and_explained(no_mirror):
    messages = message_panel()
    s = DataSource([Dataset("real", "real data (catalogue)", lambda: _frame(9), needs_mirror=True),
                    Dataset("syn", "SYNTHETIC example", lambda: _frame(1))], messages=messages)
    assert ("real data (catalogue)" + MIRROR_MISSING, "real") in s.menu.options
    assert s.key == "syn" and "Real data not available" in s.notice.value and "wb-warning" in s.notice.value
    assert s.messages is messages and messages not in s.children  # a shared panel is the dashboard's to show
    s.menu.value = "real"
    message = _error(messages)
    assert "real data not available" in message and MIRROR_ENV in message
    assert s.key == "syn" and s.menu.value == "syn"
    assert s.upload is None and s.path is None


def test_mirror_entries_load_with_a_mirror(monkeypatch, data_mirror):
    monkeypatch.setenv(MIRROR_ENV, str(data_mirror))
    s = DataSource([Dataset("real", "real data", lambda: _frame(9), needs_mirror=True)])
    assert s.menu.options == (("real data", "real"),) and s.key == "real" and s.notice.value == ""


def test_a_failing_initial_load_is_shown(no_mirror):
    s = DataSource([Dataset("broken", "broken", _broken), Dataset("a", "A", lambda: _frame(1))])
    assert s.frame is None and s.key is None and "cannot be read" in _error(s.messages)
    assert s.error == "the broken example cannot be read"
    fired = []
    s.on_change(fired.append)
    s.menu.value = "a"
    assert s.key == "a" and len(fired) == 1 and s.messages.value == ""
