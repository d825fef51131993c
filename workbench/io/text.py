r"""Safe input for every reader of :mod:`workbench.io`.

Files, uploads and text, checked before any parser or pandas sees them.

The readers are reached from dashboards anyone may upload to and from paths a user types,
so a reader must not hang (a named pipe, ``/dev/zero``), exhaust memory (a huge file, or one
whose ``st_size`` lies), keep a kernel busy for minutes (pandas handles duplicate-looking
column names in time quadratic in their number: one 100,000-field line took 139 s) or show
a library's message ("'utf-8' codec can't decode byte 0x8f", "No columns to parse from
file"). Every reader therefore goes through these functions:

* :func:`read_file` - a path to checked text: the path must name a regular file (checked
  with ``os.stat`` on the resolved path *before* opening it, and again with ``fstat`` on
  the descriptor, opened non-blocking so that a FIFO swapped in meanwhile cannot hang),
  no larger than ``max_bytes`` (checked before reading, and at most ``max_bytes + 1``
  bytes are read, so a size that lies does not matter);
* :func:`decode` - bytes (a file's or an upload's) to checked text;
* :func:`checked_text` - text given directly (a ``str``) checked the same way;
* :func:`read_buffer` - a file-like object (an upload wrapped in ``io.BytesIO``);
* :func:`read_json` - a small JSON file (a sweep grid, a host map, a sidecar) to its object;
* :func:`csv_frame` - CSV text to a frame of strings indexed by line number, after
  :func:`check_csv_shape` has bounded what pandas will be asked to do.

Text is UTF-8 (a byte-order mark is accepted). Bytes that are not UTF-8 are an error that
names the line, except for the log readers (``legacy=True``: NPB, OSU/IMB and ``perf stat``
output), whose fields are ASCII: there any other 8-bit text is read as Latin-1, which
cannot change a number or a keyword. Windows (CRLF) and old Mac (CR) line endings become
``\n`` before parsing, so every parser sees the same lines.

Limits (module constants; the readers of logs pass a smaller ``max_bytes``: 8 MiB for NPB
logs and ``perf stat`` output, 16 MiB for OSU/IMB output):

==================  ===========  =============================================================
constant            value        why
==================  ===========  =============================================================
``MAX_FILE_BYTES``  50 MiB       largest file or upload read; the real data are < 1 MiB per
                                 file (the largest osu-orfeo CSV is 0.55 MB)
``MAX_LINES``       1,000,000    lines per file (the largest real table has 15,936); bounds
                                 the memory of per-line parsing (~60 bytes per line)
``MAX_LINE_BYTES``  1 MiB        bytes per line; the parsers' patterns are linear in it
``MAX_COLUMNS``     1,000        fields per CSV line, checked before pandas (real tables
                                 have up to 22 columns)
``MAX_CELLS``       2,000,000    data rows x columns of a CSV table (the largest real one has
                                 112,000): bounds the time (~1 s) and memory of pandas
==================  ===========  =============================================================

Errors are :class:`~workbench.errors.DataFormatError` (``unknown`` for "this is not the
expected kind of content", so that a folder reader can skip such a file) and
:class:`~workbench.errors.ValidationError` (an empty table, repeated column names); each
message starts with the file's name and, where there is one, the line.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
from itertools import repeat
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ValidationError

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LINES",
    "MAX_LINE_BYTES",
    "MAX_COLUMNS",
    "MAX_CELLS",
    "as_path",
    "is_folder",
    "path_exists",
    "read_file",
    "read_file_bytes",
    "read_buffer",
    "read_json",
    "decode",
    "checked_text",
    "check_csv_shape",
    "csv_frame",
]

#: Largest file or upload a reader reads, in bytes (50 MiB).
MAX_FILE_BYTES = 50 * 2**20
#: Most lines a text may have.
MAX_LINES = 1_000_000
#: Longest line, in bytes of UTF-8 (1 MiB).
MAX_LINE_BYTES = 2**20
#: Most fields a CSV line may have.
MAX_COLUMNS = 1000
#: Most cells (data rows x columns) of a CSV table.
MAX_CELLS = 2_000_000

# What os.stat says a path is, for "it is a named pipe (FIFO), not a regular file".
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_SEPARATORS = (",", ";", "\t")
# A blank or full-line comment line of a CSV table after the first line (a pattern that
# starts with a literal newline is searched for fast; "^" would be tried everywhere).
_SKIPPED_LINE_RE = re.compile(r"\n[ \t\f\v]*(?:#|\n|$)")
_SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}


# ----------------------------------------------------------------------------- paths

def as_path(path) -> Path:
    """``path`` (``str`` or path-like) as a Path, or a DataFormatError naming the wrong type.

    Parameters
    ----------
    path : str or path-like
        The path.
    """
    if isinstance(path, bytes) or not isinstance(path, (str, PathLike)):
        raise DataFormatError(f"expected the path of a file or folder, got {type(path).__name__}")
    return Path(path).expanduser()


def _stat(path: Path, name: str) -> os.stat_result:
    """``os.stat`` of the resolved path (symbolic links followed), errors in plain words."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise DataFormatError(f"{name}: cannot read file: no such file or directory") from None
    except PermissionError:
        raise DataFormatError(f"{name}: cannot read file: permission denied") from None
    except OSError as exc:  # a name too long, a loop of symbolic links, an I/O error
        raise DataFormatError(f"{name}: cannot read file: {(exc.strerror or 'error').lower()}") from None
    except ValueError:  # a NUL character in the name
        raise DataFormatError(f"{name!r}: not a valid file name") from None


def path_exists(path) -> bool:
    """Whether ``path`` names anything at all; never raises (for "is this text or a path?").

    Parameters
    ----------
    path : object
        Anything: text, a path, bytes.
    """
    try:
        os.stat(as_path(path))
    except (OSError, ValueError, DataFormatError):
        return False
    return True


def is_folder(path: Path, name: str | None = None) -> bool:
    """Whether the existing ``path`` is a folder; DataFormatError when it does not exist.

    Parameters
    ----------
    path : pathlib.Path
        An existing path.
    name : str, optional
        What messages call it; default: the path.
    """
    return stat.S_ISDIR(_stat(path, str(path) if name is None else name).st_mode)


def _not_regular(mode: int, name: str, what: str) -> DataFormatError:
    kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
    return DataFormatError(f"{name}: cannot read file: it is {kind}, not a regular file holding {what}")


def _too_large(name: str, size: int | None, max_bytes: int, what: str, unknown: type[DataFormatError]):
    held = f"is {size:,} bytes," if size is not None else "holds"  # (a size from os.stat can lie: /proc)
    return unknown(f"{name}: the file {held} more than the {_mib(max_bytes)} accepted for {what}")


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n:,} bytes"


def read_file_bytes(path, *, what: str, max_bytes: int | None = None,
                    unknown: type[DataFormatError] = DataFormatError, name: str | None = None) -> bytes:
    """Return the bytes of the regular file ``path``, the size cap checked before any is read.

    Folders, named pipes, devices, sockets, symbolic links to them and files over
    ``max_bytes`` (default :data:`MAX_FILE_BYTES`) are refused before a byte is read; at most
    ``max_bytes + 1`` bytes are read whatever the file system reports (``/proc`` files
    report 0, and a file may grow after the check). ``what`` and ``name`` as :func:`read_file`.

    Parameters
    ----------
    path : str or path-like
        The file.
    what : str
        What the file should hold, for messages ("an NPB log").
    max_bytes : int, optional
        Size cap; default :data:`MAX_FILE_BYTES`.
    unknown : type of DataFormatError, default DataFormatError
        The error raised for content that is not what was expected.
    name : str, optional
        What messages call the file; default: the path as given.
    """
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    path = as_path(path)
    name = str(path) if name is None else name
    status = _stat(path, name)
    if not stat.S_ISREG(status.st_mode):
        raise _not_regular(status.st_mode, name, what)
    if status.st_size > max_bytes:
        raise _too_large(name, status.st_size, max_bytes, what, unknown)
    try:
        # O_NONBLOCK: if a FIFO replaced the file since the stat, opening it must not wait
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:  # removed since the stat, or not readable by this user
        raise DataFormatError(f"{name}: cannot read file: {(exc.strerror or 'error').lower()}") from None
    with os.fdopen(fd, "rb") as file:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(mode, name, what)
        try:
            data = file.read(max_bytes + 1)
        except OSError as exc:
            raise DataFormatError(f"{name}: cannot read file: {(exc.strerror or 'error').lower()}") from None
    if len(data) > max_bytes:
        raise _too_large(name, None, max_bytes, what, unknown)
    return data


def read_file(path, *, what: str, max_bytes: int | None = None, legacy: bool = False,
              unknown: type[DataFormatError] = DataFormatError, name: str | None = None) -> str:
    """Return the checked text (:func:`decode`) of the regular file ``path``.

    ``what`` says what the file should hold, for messages ("an NPB log"); ``name`` is how
    messages call the file (default: the path as given). The bytes come from
    :func:`read_file_bytes`: nothing is read from a file over ``max_bytes`` (default
    :data:`MAX_FILE_BYTES`) or from anything but a regular file.

    Parameters
    ----------
    path : str or path-like
        The file.
    what : str
        What the file should hold, for messages ("an NPB log").
    max_bytes : int, optional
        Size cap; default :data:`MAX_FILE_BYTES`.
    legacy : bool, default False
        Accept Latin-1 text that is not UTF-8 (log readers; see :func:`decode`).
    unknown : type of DataFormatError, default DataFormatError
        The error raised for content that is not text of the expected kind.
    name : str, optional
        What messages call the file; default: the path as given.
    """
    name = str(as_path(path)) if name is None else name
    data = read_file_bytes(path, what=what, max_bytes=max_bytes, unknown=unknown, name=name)
    return decode(data, name, what=what, max_bytes=max_bytes, legacy=legacy, unknown=unknown)


def read_buffer(buffer, name: str, *, what: str, max_bytes: int | None = None, legacy: bool = False,
                unknown: type[DataFormatError] = DataFormatError) -> str:
    """Return the checked text of a file-like object (bytes or text), reading at most ``max_bytes + 1``.

    Parameters
    ----------
    buffer : file-like
        A binary or text file-like object.
    name : str
        What messages call it.
    what : str
        What it should hold, for messages.
    max_bytes : int, optional
        Size cap; default :data:`MAX_FILE_BYTES`.
    legacy : bool, default False
        Accept Latin-1 text that is not UTF-8 (see :func:`decode`).
    unknown : type of DataFormatError, default DataFormatError
        The error raised for content that is not text of the expected kind.
    """
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    try:
        data = buffer.read(max_bytes + 1)
    except (OSError, ValueError) as exc:  # closed, not readable
        raise DataFormatError(f"{name}: cannot read the data: {exc}") from None
    if len(data) > max_bytes:  # (only max_bytes + 1 were read: the size is not known)
        raise _too_large(name, None, max_bytes, what, unknown)
    if isinstance(data, str):
        return checked_text(data, name, what=what, max_bytes=max_bytes, unknown=unknown)
    if not isinstance(data, (bytes, bytearray)):
        raise DataFormatError(f"{name}: reading gave {type(data).__name__}, not text or bytes")
    return decode(bytes(data), name, what=what, max_bytes=max_bytes, legacy=legacy, unknown=unknown)


def read_json(path, *, what: str, max_bytes: int | None = None, name: str | None = None) -> dict:
    """Return the JSON object in the regular file ``path`` (:func:`read_file`'s checks and size cap).

    A DataFormatError naming the file, and the line and column of invalid JSON, when it
    holds anything else. ``what`` describes the object ("the sweep grid").

    Parameters
    ----------
    path : str or path-like
        The file.
    what : str
        What the object is, for messages ("the sweep grid").
    max_bytes : int, optional
        Size cap; default :data:`MAX_FILE_BYTES`.
    name : str, optional
        What messages call the file; default: the path as given.
    """
    name = str(path) if name is None else name
    text = read_file(path, what=what, max_bytes=max_bytes, name=name)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{name}, line {exc.lineno}, column {exc.colno}: not valid JSON "
                              f"(expected {what} as a JSON object)") from None
    except RecursionError:
        raise DataFormatError(f"{name}: JSON nested too deeply (expected {what} as a JSON object)") from None
    if not isinstance(data, dict):
        raise DataFormatError(f"{name}: expected {what} as a JSON object {{...}}, got a JSON {_json_kind(data)}")
    return data


def _json_kind(value) -> str:
    return {list: "array", str: "string", bool: "true/false", type(None): "null"}.get(type(value), "number")


# ----------------------------------------------------------------------------- text

def decode(data: bytes, name: str, *, what: str, max_bytes: int | None = None, legacy: bool = False,
           unknown: type[DataFormatError] = DataFormatError) -> str:
    r"""Decode ``data`` (a file's or an upload's bytes) as text with ``\n`` line ends.

    Refused with ``unknown``: more than ``max_bytes``, a zip archive (an Excel workbook),
    UTF-16 text, binary content (a NUL byte), too many or too long lines (:data:`MAX_LINES`,
    :data:`MAX_LINE_BYTES`). Not UTF-8: a DataFormatError naming the line, or Latin-1 text
    when ``legacy`` (see the module docstring).

    Parameters
    ----------
    data : bytes
        A file's or an upload's bytes.
    name : str
        What messages call it.
    what : str
        What it should hold, for messages.
    max_bytes : int, optional
        Size cap; default :data:`MAX_FILE_BYTES`.
    legacy : bool, default False
        Read text that is not UTF-8 as Latin-1 instead of refusing it.
    unknown : type of DataFormatError, default DataFormatError
        The error raised for content that is not text of the expected kind.
    """
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes, what, unknown)
    if data.startswith(b"PK\x03\x04"):
        raise unknown(f"{name}: unknown format: this is a zip archive or an Excel workbook, not {what} "
                      "(a spreadsheet must be exported as CSV)")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise unknown(f"{name}: unknown format: UTF-16 text; save it as UTF-8 (expected {what})")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise unknown(f"{name}: unknown format: binary content (a zero byte on line {_line_of(data, nul)}), "
                      f"not {what}")
    data = _unix_newlines(data)
    _check_lines(data, name, what, unknown)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not legacy:
            raise DataFormatError(
                f"{name}, line {_line_of(data, exc.start)}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start:,}); save the file as UTF-8"
            ) from None
        text = data.decode("latin-1")
    return text


def checked_text(text: str, name: str, *, what: str, max_bytes: int | None = None,
                 unknown: type[DataFormatError] = DataFormatError) -> str:
    r"""Text given as a ``str`` with the checks of :func:`decode` (no decoding).

    ``\n`` line ends, no leading byte-order mark, size and line limits.

    Parameters
    ----------
    text : str
        The text.
    name : str
        What messages call it.
    what : str
        What it should hold, for messages.
    max_bytes : int, optional
        Size cap; default :data:`MAX_FILE_BYTES`.
    unknown : type of DataFormatError, default DataFormatError
        The error raised for content that is not text of the expected kind.
    """
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    if not isinstance(text, str):
        raise DataFormatError(f"{name}: expected text, got {type(text).__name__}")
    if len(text) > max_bytes:
        raise _too_large(name, len(text), max_bytes, what, unknown)
    if "\x00" in text:
        raise unknown(f"{name}: unknown format: binary content (a zero character on line "
                      f"{text.count(chr(10), 0, text.index(chr(0))) + 1}), not {what}")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if 4 * len(text) > MAX_LINE_BYTES or text.count("\n") >= MAX_LINES:  # (4: the longest UTF-8 character)
        _check_lines(text.encode("utf-8", "replace"), name, what, unknown)
    return text.removeprefix("\ufeff")


def _unix_newlines(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _check_lines(data: bytes, name: str, what: str, unknown: type[DataFormatError]) -> None:
    """Line count and length limits, vectorised over the newline positions."""
    lines = data.count(b"\n") + (not data.endswith(b"\n"))  # (a final newline ends the last line)
    if lines > MAX_LINES:
        raise unknown(f"{name}: {lines:,} lines, more than the {MAX_LINES:,} accepted for {what}")
    if len(data) <= MAX_LINE_BYTES:
        return
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0x0A)
    lengths = np.diff(np.concatenate(([-1], ends, [len(data)]))) - 1
    long = np.flatnonzero(lengths > MAX_LINE_BYTES)
    if long.size:
        raise unknown(f"{name}, line {long[0] + 1}: a line of {int(lengths[long[0]]):,} bytes, more than the "
                      f"{_mib(MAX_LINE_BYTES)} accepted for {what}")


# ----------------------------------------------------------------------------- CSV

def _separator(header: str) -> str:
    """Return the separator of a CSV table.

    The one of ``,`` ``;`` tab the header line uses most (a comma when it uses none), so
    that one-column tables and sniffing mistakes in data rows cannot change it.
    """
    counts = [header.count(s) for s in _SEPARATORS]
    return _SEPARATORS[int(np.argmax(counts))] if max(counts) else ","


def _fields(line: str, sep: str, name: str, number: int) -> list[str]:
    """Return the fields of one CSV line, quotes honoured."""
    try:
        return next(csv.reader([line], delimiter=sep, skipinitialspace=True), [])
    except csv.Error:  # the csv module refuses fields over 128 KiB
        raise DataFormatError(f"{name}, line {number}: not a readable CSV line: a field of more than "
                              f"{csv.field_size_limit():,} characters (an unclosed quote?)") from None


def check_csv_shape(lines: list[str], numbers, name: str, sep: str, *, lower: bool = True) -> list[str]:
    """Check CSV lines before pandas reads them, and return the header's column names.

    Blank and comment lines are removed, the header first; ``numbers`` holds their line
    numbers in the file.

    A line may have at most :data:`MAX_COLUMNS` fields and no more than the header; the
    table at most :data:`MAX_CELLS` cells; column names must differ (case-insensitively
    when ``lower``). Counting separators bounds the fields of every line in one pass; only
    lines above the bound are parsed (quoted fields may hold separators).

    Parameters
    ----------
    lines : list of str
        The CSV's lines without blank and comment lines, header first.
    numbers : array-like of int
        Their line numbers in the file.
    name : str
        What messages call the file.
    sep : str
        The field separator.
    lower : bool, default True
        Compare column names case-insensitively.
    """
    header = lines[0]
    columns = _fields(header, sep, name, numbers[0]) if header.count(sep) < 10 * MAX_COLUMNS else []
    if not columns or len(columns) > MAX_COLUMNS:
        raise DataFormatError(f"{name}, line {numbers[0]}: the header has {header.count(sep) + 1:,} columns or more, "
                              f"more than the {MAX_COLUMNS:,} a table may have")
    if len(columns) * (len(lines) - 1) > MAX_CELLS:
        raise DataFormatError(f"{name}: {len(lines) - 1:,} rows of {len(columns)} columns, more than the "
                              f"{MAX_CELLS:,} cells accepted for a table")
    names = [c.strip().lower() if lower else c.strip() for c in columns]
    # an empty name (a trailing separator, as spreadsheets export) is named as pandas names it
    names = [c or ("unnamed: " if lower else "Unnamed: ") + str(i) for i, c in enumerate(names)]
    seen: set[str] = set()
    repeated = sorted({c for c in names if c in seen or seen.add(c)})
    if repeated:
        case = " (names are case-insensitive)" if lower else ""
        raise ValidationError(f"{name}, line {numbers[0]}: column name(s) {', '.join(map(repr, repeated[:10]))} appear "
                              f"more than once in the header{case}; give each column its own name")
    counts = np.fromiter(map(str.count, lines, repeat(sep)), dtype=np.int64, count=len(lines))
    # lines that may have more fields than the header: parse them with quotes honoured
    for i in np.flatnonzero(counts >= len(columns)):
        fields = _fields(lines[i], sep, name, numbers[i])
        if len(fields) > len(columns):
            shown = lines[i] if len(lines[i]) <= 80 else lines[i][:77] + "..."
            raise DataFormatError(
                f"{name}, line {numbers[i]}: not a readable CSV table: {len(fields):,} fields where the header "
                f"(line {numbers[0]}) has {len(columns)}: {shown!r}; every line needs one value per column, "
                f"separated by a {_SEPARATOR_NAMES[sep]}"
            )
    return names


def csv_frame(text: str, name: str, *, example: str, strings: bool = True, lower: bool = True,
              sep: str | None = None) -> pd.DataFrame:
    """Return a CSV table from checked text: the index holds each row's line number in the file.

    Full-line ``#`` comments and blank lines are dropped; the separator is ``sep`` or the
    one the header uses (:func:`_separator`). Column names are stripped (and lower-cased
    when ``lower``). With ``strings`` every cell is a stripped string and empty cells are
    NaN (validators convert them and name bad cells); otherwise pandas infers the types.
    ``example`` is a header line for the message about an empty file.

    Raises ValidationError for an empty file, a table without data rows or repeated column
    names, DataFormatError for a table pandas cannot read (shape: :func:`check_csv_shape`).

    Parameters
    ----------
    text : str
        Checked text (:func:`decode`, :func:`checked_text`).
    name : str
        What messages call the file.
    example : str
        A header line, shown in the message about an empty file.
    strings : bool, default True
        Keep every cell as a stripped string (empty: NaN); False: pandas infers the types.
    lower : bool, default True
        Lower-case the column names.
    sep : str, optional
        The separator; default: the one the header uses.
    """
    # Full-line '#' comments and blank lines are dropped; remember where the rest came from.
    text = text.rstrip()
    lines = text.split("\n")
    if not (_SKIPPED_LINE_RE.search(text) or text[:1] in "# \t\f\v"):  # usually: no loop over the lines
        numbers = range(1, len(lines) + 1)
    else:
        kept = [(i, line) for i, line in enumerate(lines, start=1)
                if line.strip() and not line.lstrip().startswith("#")]
        numbers, lines = [n for n, _ in kept], [line for _, line in kept]
    if not lines:
        raise ValidationError(f"{name}: empty file: expected a header line such as {example!r} and one line per row")
    sep = sep or _separator(lines[0])
    columns = check_csv_shape(lines, numbers, name, sep, lower=lower)
    if len(lines) == 1:
        raise ValidationError(f"{name}: no data rows below the header {lines[0].strip()[:200]!r}")
    # strings: only empty cells are missing (NaN); "NA", "null", "nan" stay text for the validators
    options = {"dtype": str, "keep_default_na": False, "na_values": [""]} if strings else {}
    body = text if isinstance(numbers, range) else "\n".join(lines)
    blanks = "".join(c for c in " \t\f\v" if c != sep)
    trailing = strings and (any(b + end in body for b in blanks for end in (sep, "\n")) or body[-1] in blanks)
    if trailing and '"' not in body:
        # blanks after cells (pandas skips those before them): removed from the text at once,
        # much faster than stripping every cell, which quoted cells need (below)
        body, trailing = re.sub(rf"[{blanks}]+(?={re.escape(sep)}|$)", "", body, flags=re.MULTILINE), False
    try:
        frame = pd.read_csv(io.StringIO(body), sep=sep, skipinitialspace=True, index_col=False, **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, csv.Error):
        raise DataFormatError(
            f"{name}: not a readable CSV table: check that every line has one value per column, separated by a "
            f"{_SEPARATOR_NAMES[sep]}, and that every quote (\") is closed; expected a header such as {example!r}"
        ) from None
    if frame.empty:
        raise ValidationError(f"{name}: no data rows below the header {lines[0].strip()[:200]!r}")
    # quoted fields spanning lines break the line mapping; fall back to row positions then
    frame.index = numbers[1:] if len(numbers) - 1 == len(frame) else np.arange(1, len(frame) + 1)
    frame.columns = columns if len(columns) == len(frame.columns) else [str(c).strip() for c in frame.columns]
    if trailing:  # blanks after quoted cells: strip every cell, blank cells -> NaN
        frame = frame.apply(lambda col: col.str.strip()).replace("", np.nan)
    return frame
