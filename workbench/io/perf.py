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

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from workbench.errors import DataFormatError, MeasurementError
from workbench.validation import read_file_bytes

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
# Files of perf output are small; anything far larger is not one.
MAX_PERF_BYTES = 50_000_000

_HEADER_RE = re.compile(r"^\s*Performance counter stats for\b.*$", re.MULTILINE)
_NUM = r"\d[\d.,'\u202f\u00a0]*"
_HUMAN_RE = re.compile(
    rf"^\s*(?P<value><not supported>|<not counted>|{_NUM})\s+"
    rf"(?:(?P<unit>{'|'.join(_CLOCK_UNITS_MS)})\s+)?(?P<event>[A-Za-z][\w./:=-]*)(?P<rest>.*)$",
    re.MULTILINE,
)
_CSV_RE = re.compile(
    r"^(?P<value><not supported>|<not counted>|\d[\d.]*),(?P<unit>[^,]*),(?P<event>[^,\s]+)(?P<rest>(?:,.*)?)$",
    re.MULTILINE,
)
_CPUS_HUMAN_RE = re.compile(rf"#\s*(?P<value>{_NUM})\s+CPUs utilized")
_ELAPSED_RE = re.compile(rf"^\s*(?P<value>{_NUM})\s+(?:\+-\s+{_NUM}\s+)?seconds time elapsed", re.MULTILINE)
_PMU_RE = re.compile(r"^[\w-]+/(?P<inner>[^/]+)/[a-zA-Z]*$")
_MODIFIER_RE = re.compile(r":[ukhHGpPIDSWe]+$")
# Decimal-comma locales print task-clock with two decimals after a comma and no point.
_DECIMAL_COMMA_RE = re.compile(r"^\s*[\d.]*\d,\d\d\s+(?:msec|ms)\s", re.MULTILINE)

_NO_COUNTERS_HINT = (
    "hardware counters are unavailable: typical in virtual machines without PMU passthrough "
    "or when kernel.perf_event_paranoid > 2; fix: `sudo sysctl kernel.perf_event_paranoid=2` "
    "(or run as root), or measure on bare metal / a VM with the PMU exposed"
)


@dataclass(frozen=True)
class PerfStat(Mapping):
    """The counters of one ``perf stat`` run; also a read-only mapping over
    :data:`PERF_STAT_KEYS` (``ps["cycles"]``, ``dict(ps)``).

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

def _human_number(text: str, decimal_comma: bool) -> float:
    """A number as the human form prints it, with the locale's separators."""
    s = re.sub(r"['\u202f\u00a0]", "", text)
    if decimal_comma:
        s = s.replace(".", "").replace(",", ".")
    else:
        s = s.replace(",", "")
    return float(s)


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


def _collect(block: list[re.Match], number, source: str) -> tuple[dict, dict]:
    """``key -> value`` (None for <not supported>/<not counted>) and ``key -> raw text``."""
    values: dict[str, float | None] = {}
    raw: dict[str, str] = {}
    for m in block:
        key = _event_key(m["event"])
        if key is None:
            continue
        text = m["value"].strip()
        if text in _MISSING:
            values.setdefault(key, None)
            raw.setdefault(key, text)
            continue
        value = number(text)
        if key in ("task-clock", "cpu-clock"):
            unit = (m["unit"] or "msec").strip() or "msec"
            if unit not in _CLOCK_UNITS_MS:
                raise DataFormatError(f"{source}: {m['event']} has unknown unit {unit!r}")
            value *= _CLOCK_UNITS_MS[unit]
        previous = values.get(key)
        # Hybrid CPUs report one line per core type: the thread's count is their sum.
        values[key] = value if previous is None else previous + value
        raw[key] = text
    return values, raw


def _parse_human(text: str, source: str) -> tuple[dict, dict, float | None, float | None]:
    headers = list(_HEADER_RE.finditer(text))
    body = text[headers[-1].end():] if headers else text
    decimal_comma = bool(_DECIMAL_COMMA_RE.search(body))

    def number(s: str) -> float:
        return _human_number(s, decimal_comma)

    lines = [m for m in _HUMAN_RE.finditer(body) if _event_key(m["event"]) is not None]
    block = _last_block(lines)
    values, raw = _collect(block, number, source)
    cpus = None
    for m in block:
        if _event_key(m["event"]) in ("task-clock", "cpu-clock"):
            hit = _CPUS_HUMAN_RE.search(m["rest"])
            if hit:
                cpus = number(hit["value"])
    elapsed = _ELAPSED_RE.search(body)
    return values, raw, cpus, (number(elapsed["value"]) if elapsed else None)


def _parse_csv(text: str, source: str) -> tuple[dict, dict, float | None, None]:
    lines = [m for m in _CSV_RE.finditer(text) if _event_key(m["event"]) is not None]
    block = _last_block(lines)
    values, raw = _collect(block, float, source)
    cpus = None
    for m in block:
        if _event_key(m["event"]) in ("task-clock", "cpu-clock"):
            rest = m["rest"].split(",")
            for i, item in enumerate(rest[1:], start=1):
                if item.strip() == "CPUs utilized" and rest[i - 1].strip():
                    cpus = float(rest[i - 1])
    return values, raw, cpus, None


# ----------------------------------------------------------------------------- public

def _read_source(text_or_path) -> tuple[str, str]:
    """(text, name for messages) from perf output text, bytes or a file path."""
    if isinstance(text_or_path, bytes):
        return text_or_path.decode("utf-8", errors="replace"), "<perf stat text>"
    if isinstance(text_or_path, str) and ("\n" in text_or_path or not text_or_path.strip()):
        return text_or_path, "<perf stat text>"
    if isinstance(text_or_path, str) and not Path(text_or_path).expanduser().is_file():
        # One line that is no existing file: parse it as text (a one-line CSV record).
        return text_or_path, "<perf stat text>"
    if not isinstance(text_or_path, (str, PathLike)):
        raise DataFormatError(
            f"read_perf_stat: expected perf stat output (str/bytes) or a file path, "
            f"got {type(text_or_path).__name__}"
        )
    path = Path(text_or_path).expanduser()
    data = read_file_bytes(path, MAX_PERF_BYTES, "{path}: not perf stat output: far larger than any perf stat file")
    return data.decode("utf-8", errors="replace"), str(path)


def read_perf_stat(text_or_path) -> PerfStat:
    """Counters of a ``perf stat`` run from its output (human or ``-x,`` CSV form, detected).

    ``text_or_path``: the output as ``str``/``bytes``, or the path (``str``/``Path``) of a
    file it was saved to. Raises :class:`~workbench.errors.DataFormatError` when no counter
    block is found or ``cycles`` / ``task-clock`` (``cpu-clock``) is missing, and
    :class:`~workbench.errors.MeasurementError` when ``cycles`` is ``<not supported>`` or
    ``<not counted>`` (hardware counters unavailable; the message names the fix).
    """
    text, source = _read_source(text_or_path)
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
