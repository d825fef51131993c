"""Parser for ``perf stat`` output: the hardware variables of FiM-Cal (paper section 2.1).

FiM's base case (Eqs. 1-5) needs four numbers measured on a run with Linux ``perf stat``:
the clock F, the total cycles TC, the stall cycles SC and the utilisation U. This module
reads the counters they are derived from; :mod:`workbench.measure` runs the measurement.

Both output forms of ``perf stat`` are read (the form is detected automatically):

* the human form (default)::

     Performance counter stats for 'python ...':

             1419445      cycles                    #    1.936 GHz
              595756      stalled-cycles-frontend   #   41.97% frontend cycles idle
     <not supported>      stalled-cycles-backend
                0.73 msec task-clock                #    0.310 CPUs utilized

         0.002366294 seconds time elapsed

* the CSV form of ``perf stat -x,`` (no elapsed time: perf does not print it there)::

     1293693,,cycles,645359,100.00,2.005,GHz
     <not supported>,,stalled-cycles-backend,0,100.00,,
     0.65,msec,task-clock,645359,100.00,0.465,CPUs utilized

Tolerated: program output mixed into the text (only counter lines of known events are
read), the ``Events disabled`` / ``Events enabled`` lines of ``perf stat -D -1 --control``,
locale thousands separators in the human form (``1,234,567`` or, in decimal-comma locales
such as de_DE, ``1.234.567`` with ``0,73 msec``), ``cpu-clock`` instead of ``task-clock``,
event modifiers (``cycles:u``) and hybrid-CPU PMU prefixes (``cpu_core/cycles/`` and
``cpu_atom/cycles/`` are summed: a thread runs on one kind of core at a time). If the text
holds several counter blocks (runs appended to one file), the last one is read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from os import PathLike

from workbench.errors import DataFormatError, MeasurementError
from workbench.io.text import as_path, checked_text, decode, path_exists, read_file

__all__ = ["PERF_STAT_KEYS", "PerfStat", "read_perf_stat"]

#: Keys of the mapping returned by :func:`read_perf_stat`, in this order.
PERF_STAT_KEYS = (
    "cycles",
    "stalled_cycles_frontend",
    "stalled_cycles_backend",
    "task_clock_ms",
    "cpus_utilized",
    "elapsed_s",
)

# perf's event names (and aliases) -> counter key.
_EVENTS = {
    "cycles": "cycles",
    "cpu-cycles": "cycles",
    "stalled-cycles-frontend": "stalled_cycles_frontend",
    "idle-cycles-frontend": "stalled_cycles_frontend",
    "stalled-cycles-backend": "stalled_cycles_backend",
    "idle-cycles-backend": "stalled_cycles_backend",
    "task-clock": "task-clock",
    "cpu-clock": "cpu-clock",
}
_CLOCK_UNITS_MS = {"msec": 1.0, "ms": 1.0, "usec": 1e-3, "us": 1e-3, "nsec": 1e-6, "ns": 1e-6, "sec": 1e3, "s": 1e3}
_MISSING = ("<not supported>", "<not counted>")
# Files of perf output are small (a few kB; an hour of `perf stat -I 1000` is ~4 MB);
# anything far larger is not one, and each pattern scans the whole text.
MAX_PERF_BYTES = 8 * 2**20
_WHAT = "perf stat output"
_TEXT_NAME = "<perf stat text>"

# The patterns match within one line: "[ \t]", not "\s", which also matches newlines and
# made "^\s*" take time quadratic in the number of blank lines.
_HEADER_RE = re.compile(r"^[ \t]*Performance counter stats for\b.*$", re.MULTILINE)
_NUM = r"\d[\d.,'\u202f\u00a0]*"
_HUMAN_RE = re.compile(
    rf"^[ \t]*(?P<value><not supported>|<not counted>|{_NUM})[ \t]+"
    rf"(?:(?P<unit>{'|'.join(_CLOCK_UNITS_MS)})[ \t]+)?(?P<event>[A-Za-z][\w./:=-]*)(?P<rest>.*)$",
    re.MULTILINE,
)
_CSV_RE = re.compile(
    r"^(?P<value><not supported>|<not counted>|\d[\d.]*),(?P<unit>[^,\n]*),(?P<event>[^,\s]+)(?P<rest>(?:,.*)?)$",
    re.MULTILINE,
)
_CPUS_HUMAN_RE = re.compile(rf"#[ \t]*(?P<value>{_NUM})[ \t]+CPUs utilized")
_ELAPSED_RE = re.compile(rf"^[ \t]*(?P<value>{_NUM})[ \t]+(?:\+-[ \t]+{_NUM}[ \t]+)?seconds time elapsed",
                         re.MULTILINE)
_PMU_RE = re.compile(r"^[\w-]+/(?P<inner>[^/]+)/[a-zA-Z]*$")
_MODIFIER_RE = re.compile(r":[ukhHGpPIDSWe]+$")
# Decimal-comma locales print task-clock with two decimals after a comma and no point.
_DECIMAL_COMMA_RE = re.compile(r"^[ \t]*[\d.]*\d,\d\d[ \t]+(?:msec|ms)\s", re.MULTILINE)
_SPACES_RE = re.compile("['\u202f\u00a0]")
_GROUPED_RE = {mark: re.compile(rf"\d{{1,3}}(?:{re.escape(mark)}\d{{3}})*") for mark in ".,"}

_NO_COUNTERS_HINT = (
    "hardware counters are unavailable: typical in virtual machines without PMU passthrough "
    "or when kernel.perf_event_paranoid > 2; fix: `sudo sysctl kernel.perf_event_paranoid=2` "
    "(or run as root), or measure on bare metal / a VM with the PMU exposed"
)


@dataclass(frozen=True)
class PerfStat(Mapping):
    """The counters of one ``perf stat`` run.

    Also a read-only mapping over :data:`PERF_STAT_KEYS` (``ps["cycles"]``, ``dict(ps)``).

    ``cycles`` - CPU cycles summed over every counted thread (FiM's TC). ``stalled_cycles_*``
    - cycles without progress in the front end (instruction supply) / back end (execution
    resources, memory); ``None`` when the CPU does not expose the event (AMD Zen: back end).
    ``task_clock_ms`` - CPU time of the counted threads in milliseconds (``cpu-clock`` when
    ``task-clock`` was not measured). ``cpus_utilized`` - perf's task-clock / wall time of the
    *whole* run. ``elapsed_s`` - wall time of the whole run in seconds (``None`` in the CSV
    form, which does not print it). ``form`` (``"human"``/``"csv"``) and ``clock_event`` say
    what was read; they are attributes, not mapping keys.
    """

    cycles: int
    stalled_cycles_frontend: int | None
    stalled_cycles_backend: int | None
    task_clock_ms: float
    cpus_utilized: float | None
    elapsed_s: float | None
    form: str = field(default="human", compare=False)
    clock_event: str = field(default="task-clock", compare=False)

    def __getitem__(self, key: str):
        if key not in PERF_STAT_KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(PERF_STAT_KEYS)

    def __len__(self) -> int:
        return len(PERF_STAT_KEYS)


# ----------------------------------------------------------------------------- numbers

def _human_number(text: str, decimal_comma: bool) -> float | None:
    """Parse a number as perf prints it, with the locale's separators.

    None when the digits and marks do not make one (``1.48.2``) or it is not finite.

    ``'``, narrow and normal no-break spaces group digits. With both ``.`` and ``,`` the
    last one is the decimal mark; a mark used more than once groups thousands
    (``1.482.491.957`` = 1482491957 in any locale); a single mark is the decimal mark of the
    output's locale (``decimal_comma``: ``0,73``), or groups thousands where it can
    (``1,234`` = 1234 in an English locale), else it is the decimal mark after all (``0.73``
    among decimal-comma numbers, ``1,5`` among English ones).
    """
    s = _SPACES_RE.sub("", text)
    marks = [mark for mark in ".," if mark in s]
    if len(marks) == 2:
        decimal = "." if s.rfind(".") > s.rfind(",") else ","
    elif len(marks) == 1 and s.count(marks[0]) == 1:
        local = "," if decimal_comma else "."
        decimal = marks[0] if marks[0] == local or not _GROUPED_RE[marks[0]].fullmatch(s) else None
    else:
        decimal = None
    if decimal is None:
        integer, fraction = s, ""
    elif s.count(decimal) > 1:
        return None
    else:
        integer, _, fraction = s.partition(decimal)
    group = next((mark for mark in ".," if mark != decimal and mark in integer), None)
    if group is not None and not _GROUPED_RE[group].fullmatch(integer):
        return None
    digits = integer.replace(group, "") if group else integer
    if not digits.isdecimal() or (fraction and not fraction.isdecimal()):
        return None
    value = float(f"{digits}.{fraction or 0}")
    return value if math.isfinite(value) else None


def _line(text: str, m: re.Match) -> int:
    return text.count("\n", 0, m.start()) + 1


def _number_of(text: str, m: re.Match, raw: str, decimal_comma: bool, source: str, what: str) -> float:
    """Return the number ``raw`` read on the line of ``m``, or raise a DataFormatError naming that line."""
    value = _human_number(raw, decimal_comma)
    if value is None:
        raise DataFormatError(
            f"{source}, line {_line(text, m)}: cannot read {raw[:40]!r} ({what}) as a number: expected digits with at "
            "most one decimal mark, thousands grouped in threes (e.g. 1482491957, 1,482,491,957, 1.482.491.957 or "
            "0.73)"
        )
    return value


def _event_key(raw: str) -> str | None:
    name = raw
    m = _PMU_RE.match(name)
    if m:
        name = m["inner"]
    name = _MODIFIER_RE.sub("", name)
    return _EVENTS.get(name.lower())


# ----------------------------------------------------------------------------- blocks

def _last_block(matches: list[re.Match]) -> list[re.Match]:
    """Counter lines of the last run: a repeated raw event name starts a new block."""
    block: list[re.Match] = []
    seen: set[str] = set()
    for m in matches:
        if m["event"] in seen:
            block, seen = [], set()
        block.append(m)
        seen.add(m["event"])
    return block


def _collect(block: list[re.Match], text: str, decimal_comma: bool, source: str) -> tuple[dict, dict]:
    """``key -> value`` (None for <not supported>/<not counted>) and ``key -> raw text``."""
    values: dict[str, float | None] = {}
    raw: dict[str, str] = {}
    for m in block:
        key = _event_key(m["event"])
        if key is None:
            continue
        shown = m["value"].strip()
        if shown in _MISSING:
            values.setdefault(key, None)
            raw.setdefault(key, shown)
            continue
        value = _number_of(text, m, shown, decimal_comma, source, m["event"])
        if key in ("task-clock", "cpu-clock"):
            unit = (m["unit"] or "msec").strip() or "msec"
            if unit not in _CLOCK_UNITS_MS:
                raise DataFormatError(f"{source}, line {_line(text, m)}: {m['event']} has unknown unit {unit[:40]!r}; "
                                      f"expected one of {', '.join(_CLOCK_UNITS_MS)}")
            value *= _CLOCK_UNITS_MS[unit]
        previous = values.get(key)
        # Hybrid CPUs report one line per core type: the thread's count is their sum.
        values[key] = value if previous is None else previous + value
        if not math.isfinite(values[key]):
            raise DataFormatError(f"{source}, line {_line(text, m)}: {m['event']} = {shown[:40]!r} is too large")
        raw[key] = shown
    return values, raw


def _parse_human(text: str, source: str) -> tuple[dict, dict, float | None, float | None]:
    headers = list(_HEADER_RE.finditer(text))
    start = headers[-1].end() if headers else 0
    decimal_comma = _DECIMAL_COMMA_RE.search(text, start) is not None
    lines = [m for m in _HUMAN_RE.finditer(text, start) if _event_key(m["event"]) is not None]
    block = _last_block(lines)
    values, raw = _collect(block, text, decimal_comma, source)
    cpus = None
    for m in block:
        if _event_key(m["event"]) in ("task-clock", "cpu-clock"):
            hit = _CPUS_HUMAN_RE.search(m["rest"])
            if hit:
                cpus = _number_of(text, m, hit["value"], decimal_comma, source, "CPUs utilized")
    elapsed = _ELAPSED_RE.search(text, start)
    if elapsed is None:
        return values, raw, cpus, None
    return values, raw, cpus, _number_of(text, elapsed, elapsed["value"], decimal_comma, source, "seconds time elapsed")


def _parse_csv(text: str, source: str) -> tuple[dict, dict, float | None, None]:
    lines = [m for m in _CSV_RE.finditer(text) if _event_key(m["event"]) is not None]
    block = _last_block(lines)
    values, raw = _collect(block, text, False, source)
    cpus = None
    for m in block:
        if _event_key(m["event"]) in ("task-clock", "cpu-clock"):
            rest = m["rest"].split(",")
            for i, item in enumerate(rest[1:], start=1):
                if item.strip() == "CPUs utilized" and rest[i - 1].strip():
                    cpus = _number_of(text, m, rest[i - 1].strip(), False, source, "CPUs utilized")
    return values, raw, cpus, None


# ----------------------------------------------------------------------------- public

def _read_source(text_or_path, name: str | None) -> tuple[str, str]:
    """(text, name for messages) from perf output text, bytes or a file path."""
    if isinstance(text_or_path, (bytes, bytearray)):
        name = name or _TEXT_NAME
        return decode(bytes(text_or_path), name, what=_WHAT, max_bytes=MAX_PERF_BYTES, legacy=True), name
    if isinstance(text_or_path, str) and ("\n" in text_or_path or "\r" in text_or_path or not text_or_path.strip()
                                          or not path_exists(text_or_path)):
        # Text, or one line that names nothing on disk: parse it as text (a one-line CSV record).
        name = name or _TEXT_NAME
        return checked_text(text_or_path, name, what=_WHAT, max_bytes=MAX_PERF_BYTES), name
    if not isinstance(text_or_path, (str, PathLike)):
        raise DataFormatError(
            f"read_perf_stat: expected perf stat output (str/bytes) or a file path, "
            f"got {type(text_or_path).__name__}"
        )
    path = as_path(text_or_path)
    name = name or str(path)
    return read_file(path, what=_WHAT, max_bytes=MAX_PERF_BYTES, legacy=True, name=name), name


def read_perf_stat(text_or_path, *, name: str | None = None) -> PerfStat:
    """Counters of a ``perf stat`` run from its output (human or ``-x,`` CSV form, detected).

    Parameters
    ----------
    text_or_path : str, bytes or path-like
        The output as ``str``/``bytes``, or the path (``str``/``Path``) of a file it was
        saved to (a regular file of at most 50 MB; any line ends).
    name : str, optional
        What messages call the output; default: the path, or ``"<perf stat text>"``.

    Raises
    ------
    DataFormatError
        No counter block is found, a counter's number cannot be read (the message names the
        line) or ``cycles`` / ``task-clock`` (``cpu-clock``) is missing.
    MeasurementError
        ``cycles`` is ``<not supported>`` or ``<not counted>`` (hardware counters
        unavailable; the message names the fix).
    """
    text, source = _read_source(text_or_path, name)
    if _HEADER_RE.search(text):
        form, (values, raw, cpus, elapsed) = "human", _parse_human(text, source)
    elif any(_event_key(m["event"]) for m in _CSV_RE.finditer(text)):
        form, (values, raw, cpus, elapsed) = "csv", _parse_csv(text, source)
    else:
        # Human counter lines without their header (a pasted fragment).
        form, (values, raw, cpus, elapsed) = "human", _parse_human(text, source)
        if not values:
            one_line = isinstance(text_or_path, str) and "\n" not in text_or_path and text_or_path.strip()
            also = f" (and {text_or_path[:80]!r} is not an existing file either)" if one_line else ""
            raise DataFormatError(
                f"{source}: no perf stat counter block found (unknown format){also}: expected the "
                "output of `perf stat` - the human form ('Performance counter stats for ...') "
                "or the `perf stat -x,` CSV form (lines like '1293693,,cycles,...')"
            )
    if "cycles" not in values:
        raise DataFormatError(
            f"{source}: no 'cycles' counter in the perf stat output ({form} form); "
            "measure with `perf stat -e cycles,stalled-cycles-frontend,stalled-cycles-backend,task-clock`"
        )
    if raw["cycles"] == "<not supported>":
        raise MeasurementError(f"{source}: cycles is <not supported>: {_NO_COUNTERS_HINT}")
    if values["cycles"] is None:
        raise MeasurementError(
            f"{source}: cycles is <not counted>: the counter never ran (perf started with "
            "-D/--control and the counters were never enabled, or the event could not be scheduled)"
        )
    clock_event = "task-clock" if values.get("task-clock") is not None else "cpu-clock"
    task_clock = values.get(clock_event)
    if task_clock is None:
        state = raw.get("task-clock") or raw.get("cpu-clock") or "missing"
        raise DataFormatError(
            f"{source}: task-clock (or cpu-clock) is {state} in the perf stat output ({form} form); "
            "add `-e task-clock`: it gives the CPU time needed for the utilisation U"
        )

    def count(key: str) -> int | None:
        v = values.get(key)
        return None if v is None else int(round(v))

    return PerfStat(
        cycles=count("cycles"),
        stalled_cycles_frontend=count("stalled_cycles_frontend"),
        stalled_cycles_backend=count("stalled_cycles_backend"),
        task_clock_ms=float(task_clock),
        cpus_utilized=cpus,
        elapsed_s=elapsed,
        form=form,
        clock_event=clock_event,
    )
