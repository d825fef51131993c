"""phiprof reports (``phiprof_N.txt``, ``profile_N.txt``): the hierarchical timers of fmihpc/phiprof.

phiprof writes one report per set of processes with identical timers. Both of its layouts are
read (told by content, not by name):

- phiprof 2 (``PrettyPrintTable``: cells between ``|``). The title of each timer table says
  ``Set of identical timers has N processes with up to T threads each``. Its ``compact``
  (timers above 1 % of the total) and ``full`` tables (``Id | Lvl | Grp | Name | Avg | Avg (s)
  | Time % | Imb % | ...``) give the count and the time averaged over the processes; the
  ``detailed`` table (``Id | Lvl | Grp | Label | Avg | Avg | % | Max time,rank | Min
  time,rank | Avg ...``) also gives the max and min over processes. A file holding several
  tables gives each (timer, statistic) once. The ``Groups`` table is not read (groups are no
  call tree).
- phiprof 1 (fixed-width columns): ``Processes in set of timers N with (up to) T threads``,
  then after ``Level Groups Label ...`` the rows ``level [groups] label threads avg parent%
  max rank min rank calls [workunits]`` between ``Profile`` and ``Groups``.

Rows: time (inclusive, seconds) ``avg`` and, where printed, ``max`` and ``min`` over the
processes; ``count`` (``avg``: calls per process). The ``Lvl``/``Level`` column gives the
nesting (level 1 timers are roots). phiprof's ``Other`` rows (a parent's time outside its
children) are left out: they are no timer, and the exclusive time follows from the tree.
``processes`` and ``threads`` come from the title (the processes of the report's set: phiprof
writes one report per set of processes with identical timers, ``phiprof_0.txt`` for the
largest); a report named ``phiprof_N.txt`` or ``profile_N.txt`` has run parameter
``timer_set`` = N, so that the sets of one run stay apart.

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import re

import numpy as np

from workbench.errors import DataFormatError
from workbench.io.callpath.common import Rows, TreePath, timer_rows

__all__ = [
    "looks_like_phiprof",
    "read_phiprof",
]

_TITLE2 = re.compile(r"Set of identical timers has (\d+) processes(?: with up to (\d+) threads each)?")
_TITLE1 = re.compile(r"^Processes in set of timers (\d+)(?: with \(up to\) (\d+) threads)?")
_RULE = re.compile(r"^-{10,}\s*$")
_MARK = re.compile(r"^-+ (Profile|Groups) -+\s*$")
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan"  # one way to match a number
_ROW1 = re.compile(rf"^\s*(?P<label>\S(?:.*?\S)?)\s+(?P<nums>(?:{_NUM})(?:\s+(?:{_NUM})){{7}})"
                   rf"(?:\s+(?P<wu>\S.*/s))?\s*$")
#: longest table line read (phiprof's longest labels and all its columns stay far below)
MAX_ROW_CHARS = 16_384
#: cells of a phiprof 2 row: compact/full tables and the detailed table
_CELLS = {"Name": 12, "Label": 15}
#: phiprof's default report names (``<prefix>_<set>.txt``): set 0 holds the most processes, the
#: others smaller sets of processes whose timers differ
_SET_IN_NAME = re.compile(r"^(?:phiprof|profile)_(\d+)\.txt$")
_SNIFF_LINES = 200


def looks_like_phiprof(text: str) -> bool:
    """Return whether ``text`` (a file's start) is a phiprof report.

    Parameters
    ----------
    text : str
        The start of a file's content.
    """
    for line in text.split("\n", _SNIFF_LINES)[:_SNIFF_LINES]:
        if _TITLE2.search(line) or _TITLE1.match(line) or line.startswith("Phiprof results with time fraction"):
            return True
        cells = _cells(line)
        if cells and cells[:3] == ["Id", "Lvl", "Grp"]:
            return True
    return False


def _cells(line: str) -> list[str] | None:
    """Return the stripped cells of a ``| a | b |`` table row, or None for any other line."""
    stripped = line.strip()
    if len(stripped) < 2 or stripped[0] != "|" or stripped[-1] != "|":
        return None
    return [c.strip() for c in stripped[1:-1].split("|")]


def _check_length(line: str, name: str, number: int) -> None:
    if len(line) > MAX_ROW_CHARS:
        raise DataFormatError(f"{name}, line {number}: {len(line):,} characters, more than the {MAX_ROW_CHARS:,} "
                              "of a phiprof table line")


def _number(value: str, what: str, name: str, number: int) -> float:
    try:
        out = float(value)
    except ValueError:
        raise DataFormatError(f"{name}, line {number}: {what} {value[:40]!r} is not a number") from None
    if not np.isfinite(out) or out < 0:
        raise DataFormatError(f"{name}, line {number}: {what} {value[:40]!r} is not a finite number >= 0")
    return out


def _level(value: str, name: str, number: int) -> int:
    if not value.isdigit() or int(value) < 1:
        raise DataFormatError(f"{name}, line {number}: level {value[:20]!r} is not a whole number >= 1")
    return int(value)


def read_phiprof(text: str, name: str) -> Rows:
    """Read a phiprof report (phiprof 2 tables or phiprof 1 columns) into profile-table rows.

    Parameters
    ----------
    text : str
        The file's content.
    name : str
        The file's name (or a label) that every error message starts with.

    Returns
    -------
    Rows
        The profile's rows (format ``phiprof``) and its run parameters.

    Raises
    ------
    DataFormatError
        A row whose cells or numbers do not follow the table's titles, a table cut short,
        a report without timers (each naming the file and the line).
    """
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if any(_TITLE1.match(line) or line.startswith("Phiprof results with time fraction") for line in lines[:50]):
        rows, params = _read_v1(lines, name)
    else:
        rows, params = _read_v2(lines, name)
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if match := _SET_IN_NAME.match(base):
        params["timer_set"] = float(match.group(1))
    return timer_rows(rows, name, "phiprof", params)


def _put(rows: dict, key: tuple, value: float, unit: str) -> None:
    rows.setdefault(key, (value, unit))  # several tables may show one statistic: the first is kept


def _read_v2(lines: list[str], name: str) -> tuple[dict, dict]:
    params = {"processes": np.nan, "threads": np.nan}
    rows: dict = {}
    kind = None  # inside a table's rows: "Name" (compact/full), "Label" (detailed), "Group" (skipped)
    tree = TreePath(name)
    open_at = 0
    for number, line in enumerate(lines, start=1):
        _check_length(line, name, number)
        if match := _TITLE2.search(line):
            params["processes"] = float(match.group(1))
            if match.group(2):
                params["threads"] = float(match.group(2))
            continue
        cells = _cells(line)
        if kind is None:
            if cells and cells[:3] == ["Id", "Lvl", "Grp"] and len(cells) > 3 and cells[3] in _CELLS:
                kind, open_at, tree = cells[3], number, TreePath(name)
            elif cells and cells[:2] == ["Group", "Name"]:
                kind, open_at = "Group", number
            continue
        if _RULE.match(line):
            if number > open_at + 1:  # the rule right under the titles opens the rows; the next one closes them
                kind = None
            continue
        if kind == "Group" or (number == len(lines) and not line.strip()):
            continue  # (the text after the file's last line end is no row)
        expected = _CELLS[kind]
        if cells is None or len(cells) < expected:
            raise DataFormatError(f"{name}, line {number}: not a row of phiprof's timer table (expected "
                                  f"{expected} cells between '|'), got {line.strip()[:80]!r}: a damaged or "
                                  "truncated file?")
        if len(cells) > expected:  # a '|' inside a timer's name
            extra = len(cells) - expected
            cells = cells[:3] + ["|".join(cells[3:4 + extra])] + cells[4 + extra:]
        label = cells[3]
        level = _level(cells[1], name, number)
        if not cells[0] and label == "Other":
            continue  # phiprof's remainder of the parent: no timer
        if not label:
            raise DataFormatError(f"{name}, line {number}: a timer without a name")
        region = tree.path(level - 1, label, number)
        if kind == "Name":
            _put(rows, (region, "count", "n/a", "avg"), _number(cells[4], "count", name, number), "")
            _put(rows, (region, "time", "inclusive", "avg"), _number(cells[5], "time", name, number), "s")
        else:
            _put(rows, (region, "time", "inclusive", "max"), _number(cells[7], "max time", name, number), "s")
            _put(rows, (region, "time", "inclusive", "avg"), _number(cells[5], "time", name, number), "s")
            _put(rows, (region, "time", "inclusive", "min"), _number(cells[9], "min time", name, number), "s")
            _put(rows, (region, "count", "n/a", "avg"), _number(cells[11], "calls", name, number), "")
    if kind is not None:
        raise DataFormatError(f"{name}: phiprof's table opened on line {open_at} ends without its closing rule "
                              "(a line of dashes): a truncated file?")
    return rows, params


def _read_v1(lines: list[str], name: str) -> tuple[dict, dict]:
    params = {"processes": np.nan, "threads": np.nan}
    header = None
    for number, line in enumerate(lines, start=1):
        if match := _TITLE1.match(line):
            params["processes"] = float(match.group(1))
            if match.group(2):
                params["threads"] = float(match.group(2))
        elif line.startswith("Level") and "Label" in line:
            header = number
            break
    if header is None:
        raise DataFormatError(f"{name}: a phiprof 1 report without its 'Level Groups Label' titles")
    titles = lines[header - 1]
    at_groups = titles.find("Groups")
    at_label = titles.find("Label")
    at_numbers = titles.find("Average", at_label)
    if not 0 < at_groups < at_label < at_numbers:
        raise DataFormatError(f"{name}, line {header}: phiprof's titles are not 'Level Groups Label Average ...'")
    # a label column narrower than its title ("LabelAverage"): split the rows by their numbers instead
    by_columns = titles[at_label:at_numbers].rstrip() == "Label" and titles[at_numbers - 1] == " "
    rows: dict = {}
    tree = TreePath(name)
    inside = closed = False
    for number in range(header + 1, len(lines) + 1):
        line = lines[number - 1]
        _check_length(line, name, number)
        mark = _MARK.match(line)
        if mark:
            inside = mark.group(1) == "Profile"
            continue
        if _RULE.match(line):
            if inside or rows:
                closed = True
                break
            continue
        if not inside or not line.strip():
            continue
        level_text = line[:at_groups].strip()
        if by_columns and (len(line) <= at_numbers or line[at_numbers - 1] == " "):
            label = line[at_label:at_numbers].strip()
            numbers = line[at_numbers:].split()
        else:
            match = _ROW1.match(line[at_label:])
            if not match:
                numbers, label = [], ""
            else:
                label, numbers = match["label"].strip(), match["nums"].split()
        if len(numbers) < 8 or not label:
            raise DataFormatError(f"{name}, line {number}: not a row of phiprof's profile (expected level, groups, "
                                  f"label and 8 numbers), got {line.strip()[:80]!r}: a damaged or truncated file?")
        level = _level(level_text, name, number)
        if label == "Other":
            continue  # phiprof's remainder of the parent: no timer
        region = tree.path(level - 1, label, number)
        _put(rows, (region, "time", "inclusive", "max"), _number(numbers[3], "maximum", name, number), "s")
        _put(rows, (region, "time", "inclusive", "avg"), _number(numbers[1], "average", name, number), "s")
        _put(rows, (region, "time", "inclusive", "min"), _number(numbers[5], "minimum", name, number), "s")
        _put(rows, (region, "count", "n/a", "avg"), _number(numbers[7], "calls", name, number), "")
    if not closed:
        raise DataFormatError(f"{name}: phiprof's profile ends without its closing line of dashes: a truncated file?")
    return rows, params
