r"""Measured tables on disk.

``runs.csv`` with its metadata (machine, date, command, method, units) in the JSON sidecar
``runs.json`` beside it, loaded into ``frame.attrs``.

**Writing** (:func:`write_measured_csv`, used by every sweep's writer and CLI):

* *Atomic*: each file is written to a temporary file in the same directory (``.<name>.*.tmp``),
  flushed and ``fsync``-ed, then renamed over the target (``os.replace``), and the directory is
  synced. A kill at any moment leaves the previous file or none, never a partial one.
* *The CSV first, then the sidecar*, which records the CSV's ``rows`` (data rows, header
  excluded), ``bytes`` and ``sha256`` under the key ``"csv"``. Unless the existing sidecar
  already records a checksum (which the new CSV will not match), it is first replaced by a
  marker saying a write is in progress. So an interruption between the two files (Ctrl-C, kill)
  leaves either the previous complete pair, or a pair that :func:`read_measured_csv` rejects.
* *Never over existing data or into the repository's data without asking*
  (:func:`check_output_path`): an existing CSV or sidecar, or a target inside the repository's
  tracked ``data/`` directory (or the ``WORKBENCH_DATA_MIRROR`` reference data), needs
  ``force=True`` (CLIs: ``--force``); without it a :class:`~workbench.errors.MeasurementError`
  says what exists and how to overwrite it.
* *Default place* (:func:`default_measure_dir`): ``$WORKBENCH_MEASURE_DIR`` if set, else
  ``$XDG_DATA_HOME/workbench/measured``, else ``~/.local/share/workbench/measured`` -- outside
  the repository.

**Reading** (:func:`read_measured_csv`, the one reader of these pairs): when the sidecar records
the CSV's size, checksum and row count, all three are checked before the CSV is parsed; a
mismatch (a partial file, a sidecar from another run, an interrupted write) is a
:class:`~workbench.errors.DataFormatError` naming both files. A sidecar written before
checksums existed (no ``"csv"`` key) is accepted without a check: such files predate the
atomic writer, and :func:`stamp_sidecar` adds the checksum of the CSV as it is now. A missing
sidecar is only a :class:`~workbench.errors.ParseWarning`: an uploaded CSV has none. A CSV
whose only change is ``\r\n`` line ends or a leading UTF-8 byte-order mark (a checkout with
``core.autocrlf``, an editor's "save") is the same table: its size and checksum
are also compared with those line ends and mark removed. The CSV's size is checked against the
readers' cap (:data:`workbench.io.text.MAX_FILE_BYTES`) before a byte of it is read or hashed.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import tempfile
import warnings
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from os import PathLike
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError, MeasurementError, ParseWarning, ValidationError
from workbench.io.locations import DATA_DIR, MIRROR_ENV
from workbench.io.text import csv_frame, decode, path_exists, read_file_bytes, read_json

__all__ = [
    "MEASURE_DIR_ENV",
    "sidecar_path",
    "default_measure_dir",
    "protected_data_dirs",
    "check_output_path",
    "write_measured_csv",
    "write_sidecar",
    "stamp_sidecar",
    "attach_sidecar",
    "read_measured_csv",
    "atomic_write",
]

#: Environment variable naming the default directory of new measurements.
MEASURE_DIR_ENV = "WORKBENCH_MEASURE_DIR"
_SIDECAR_KEY = "csv"


def sidecar_path(path: str | PathLike) -> Path:
    """Return the metadata file of the table at ``path``: the same name with ``.json``.

    Parameters
    ----------
    path : str or path-like
        The table's path.
    """
    return Path(path).with_suffix(".json")


# ----------------------------------------------------------------------------- where

def default_measure_dir() -> Path:
    """Where new measurements go by default.

    ``$WORKBENCH_MEASURE_DIR``, else ``$XDG_DATA_HOME/workbench/measured``, else
    ``~/.local/share/workbench/measured`` (not created here; the writers create it).
    """
    explicit = os.environ.get(MEASURE_DIR_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "workbench" / "measured"


def protected_data_dirs() -> list[Path]:
    """Directories a measurement is written into only with ``force=True``.

    The repository's tracked ``data/`` and, when set, the reference-data mirror
    ``$WORKBENCH_DATA_MIRROR``.
    """
    dirs = [DATA_DIR]
    if os.environ.get(MIRROR_ENV):
        dirs.append(Path(os.environ[MIRROR_ENV]).expanduser())
    return [d.resolve() for d in dirs]


def _recorded_date(sidecar: Path) -> str:
    meta = _load_sidecar(sidecar, strict=False)
    date = meta.get("date") if isinstance(meta, dict) else None
    return f" (measured {date})" if date else ""


def check_output_path(path: str | PathLike, *, force: bool = False) -> Path:
    """Check ``path`` as the CSV of a new measurement and return it.

    A :class:`~workbench.errors.MeasurementError` when writing there needs ``force=True``: the
    CSV or its sidecar exists already, or the path lies in the repository's tracked data
    (:func:`protected_data_dirs`). A path not ending in ``.csv`` is a
    :class:`~workbench.errors.ValidationError` (its sidecar would be itself). Call it before a
    long sweep, so that the sweep is not lost at the end.

    Parameters
    ----------
    path : str or path-like
        Where the CSV is to be written (must end in ``.csv``).
    force : bool, default False
        Allow overwriting an existing measurement or writing into the repository's data.
    """
    path = Path(path).expanduser()
    if path.suffix.lower() != ".csv":
        raise ValidationError(f"{path}: a measured table must be written to a .csv file (its metadata go beside it "
                              "as .json)")
    sidecar = sidecar_path(path)
    for existing in (path, sidecar):
        if (existing.exists() or existing.is_symlink()) and not existing.is_file():
            raise MeasurementError(f"{existing} exists and is not a regular file; choose another output file")
    if force:
        return path
    resolved = path.resolve()
    for folder in protected_data_dirs():
        if resolved.is_relative_to(folder):
            raise MeasurementError(
                f"{path} is inside the repository's tracked data ({folder}): new measurements go to "
                f"{default_measure_dir()} by default (or ${MEASURE_DIR_ENV}); pass force=True (command line: "
                "--force) to write there on purpose, e.g. to replace a shipped dataset"
            )
    existing = [p for p in (path, sidecar) if p.exists() or p.is_symlink()]
    if existing:
        names = " and ".join(str(p) for p in existing)
        raise MeasurementError(
            f"{names} already exist{'s' if len(existing) == 1 else ''}{_recorded_date(sidecar)}: not overwritten; "
            "pass force=True (command line: --force) to replace the measurement, or choose another output file"
        )
    return path


# ----------------------------------------------------------------------------- atomic writes

def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (a seam for the tests' interrupted writes)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a directory
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, replace: bool = True) -> None:
    """Write ``data`` to ``path`` atomically.

    Through a synced temporary file in the same directory, then renamed into place
    (``replace=False``: hard-linked instead, failing with FileExistsError when ``path`` exists,
    so that two writers cannot both create it). The file gets the mode of the file it replaces,
    else 0644.

    Parameters
    ----------
    path : pathlib.Path
        The file to write.
    data : bytes
        Its content.
    replace : bool, default True
        Replace an existing file; False: fail with FileExistsError when ``path`` exists.
    """
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise
            except OSError:  # no hard links on this file system: check, then rename
                if path.exists():
                    raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
                os.replace(tmp, path)
            else:
                os.unlink(tmp)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_dir(path.parent)


def _json_bytes(meta: Mapping) -> bytes:
    return (json.dumps(dict(meta), indent=2, default=str) + "\n").encode("utf-8")


def write_sidecar(path: str | PathLike, meta: Mapping) -> Path:
    """Write ``meta`` as the sidecar of the table at ``path``, atomically.

    Values JSON cannot hold, such as numpy scalars or timestamps, are written as text. Prefer
    :func:`write_measured_csv`, which writes the pair and the checksum.

    Parameters
    ----------
    path : str or path-like
        The table's path (the sidecar is :func:`sidecar_path` of it).
    meta : mapping
        The metadata, JSON-serialisable or written as text.
    """
    sidecar = sidecar_path(path)
    atomic_write(sidecar, _json_bytes(meta))
    return sidecar


def _csv_record(path: Path, data: bytes, rows: int) -> dict:
    return {"file": path.name, "rows": int(rows), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def write_measured_csv(frame: pd.DataFrame, path: str | PathLike, meta: Mapping, *, force: bool = False,
                       float_format: str | None = None) -> Path:
    """Write ``frame`` to the CSV ``path`` and its metadata and checksum to its sidecar, atomically.

    ``frame`` is written without index; ``meta`` plus the CSV's row count, size and SHA-256
    (key ``"csv"``) go to its sidecar, both atomically, the CSV first (see the module
    docstring). ``force``: overwrite an existing measurement, or write into the repository's
    data (:func:`check_output_path`). Returns ``path``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements.
    path : str or path-like
        The CSV to write (must end in ``.csv``).
    meta : mapping
        Metadata for the sidecar.
    force : bool, default False
        Overwrite an existing measurement, or write into the repository's data.
    float_format : str, optional
        Format of floats in the CSV (as :meth:`pandas.DataFrame.to_csv`); default: pandas'.
    """
    path = check_output_path(path, force=force)
    sidecar = sidecar_path(path)
    data = frame.to_csv(index=False, float_format=float_format, lineterminator="\n").encode("utf-8")
    record = _csv_record(path, data, len(frame))
    meta = {**{k: v for k, v in dict(meta).items() if k != _SIDECAR_KEY}, _SIDECAR_KEY: record}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        previous = _load_sidecar(sidecar, strict=False) if sidecar.exists() else None
        if not (isinstance(previous, dict) and isinstance(previous.get(_SIDECAR_KEY), dict)
                and previous[_SIDECAR_KEY].get("sha256")):
            # No checksum there that the new CSV would fail: mark the write as in progress first.
            marker = {_SIDECAR_KEY: {"file": path.name, "incomplete": True,
                                     "started": datetime.now(timezone.utc).isoformat(timespec="seconds")},
                      "note": f"a write of {path.name} started but did not finish; measure again"}
            atomic_write(sidecar, _json_bytes(marker), replace=force)
        try:
            atomic_write(path, data, replace=force)
        except FileExistsError:
            raise MeasurementError(f"{path} appeared while it was being written (another writer?): not overwritten; "
                                   "pass force=True (command line: --force) to replace it") from None
        atomic_write(sidecar, _json_bytes(meta))
    except FileExistsError:
        raise MeasurementError(f"{sidecar} appeared while {path} was being written (another writer?): not "
                               "overwritten; pass force=True (command line: --force) to replace it") from None
    except OSError as exc:
        raise MeasurementError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def stamp_sidecar(path: str | PathLike) -> Path:
    """Add the CSV's checksum to the sidecar of a pair written before checksums.

    Record in the sidecar of the CSV at ``path`` the CSV's row count, size and SHA-256 as
    the CSV is now (atomically; nothing else changes). This vouches that the CSV is
    complete: check it first. Returns the sidecar's path.

    Parameters
    ----------
    path : str or path-like
        The CSV whose sidecar gets the checksum.
    """
    path = Path(path)
    sidecar = sidecar_path(path)
    meta = _load_sidecar(sidecar)
    if meta is None:
        raise DataFormatError(f"{path}: no metadata file {sidecar.name} to record the checksum in")
    data = _read_csv_bytes(path)
    rows = len(_parse_csv(data, str(path)))
    meta[_SIDECAR_KEY] = _csv_record(path, data, rows)
    raw = sidecar.read_text(encoding="utf-8")
    indents = [len(line) - len(line.lstrip(" ")) for line in raw.splitlines()[1:2] if line.startswith(" ")]
    text = json.dumps(meta, indent=indents[0] if indents else 2, default=str)  # keep the file's layout
    atomic_write(sidecar, (text + ("\n" if raw.endswith("\n") else "")).encode("utf-8"))
    return sidecar


# ----------------------------------------------------------------------------- reading

def _load_sidecar(sidecar: Path, *, strict: bool = True) -> dict | None:
    """Return the sidecar's JSON object, ``None`` when the file does not exist.

    Unreadable content is a DataFormatError (``strict=False``: ``None``).
    """
    if not path_exists(sidecar):
        return None
    try:
        return read_json(sidecar, what="the metadata of a measured table")
    except DataFormatError:
        if not strict:
            return None
        raise


def attach_sidecar(frame: pd.DataFrame, path: str | PathLike, unknown: str) -> pd.DataFrame:
    """Load the sidecar of the table at ``path`` into ``frame.attrs`` (in place; returns ``frame``).

    A missing sidecar gives a :class:`~workbench.errors.ParseWarning` naming what is then
    ``unknown``; an unreadable one a :class:`~workbench.errors.DataFormatError`. No integrity
    check: read measured pairs with :func:`read_measured_csv`.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table read from ``path``.
    path : str or path-like
        The table's path.
    unknown : str
        What is unknown without a sidecar, for the warning (e.g. "the machine").
    """
    meta = _load_sidecar(sidecar_path(path))
    return _attach(frame, meta, path, unknown)


def _attach(frame: pd.DataFrame, meta: dict | None, path, unknown: str) -> pd.DataFrame:
    if meta is None:
        warnings.warn(f"{path}: no metadata file {sidecar_path(path).name} ({unknown} unknown)", ParseWarning,
                      stacklevel=4)
        return frame
    frame.attrs.update(meta)
    return frame


def _read_csv_bytes(path: Path) -> bytes:
    # the readers' one size cap (workbench.io.text.MAX_FILE_BYTES, 50 MiB; a sweep's table is
    # ~40 KB), checked before a byte is read or hashed
    return read_file_bytes(path, what="a measured CSV table")


def _parse_csv(data: bytes, name: str) -> pd.DataFrame:
    # the shared checks (encoding, shape limits, messages in the project's words), pandas' types
    text = decode(data, name, what="a measured CSV table")
    return csv_frame(text, name, example="the header the measurement wrote", strings=False, lower=False,
                     sep=",").reset_index(drop=True)


def _mismatch(path: Path, sidecar: Path, detail: str) -> DataFormatError:
    return DataFormatError(
        f"{path} does not match its metadata file {sidecar}: {detail}. The CSV is incomplete or the metadata "
        "describe another run (an interrupted or concurrent write); measure again, or restore both files together"
    )


def _as_written(data: bytes) -> bytes:
    r"""Return the bytes as the writer made them: ``\n`` line ends, no UTF-8 byte-order mark.

    A CSV checked out with ``core.autocrlf`` or re-saved by an editor has ``\r\n`` line ends
    or a leading BOM but the same table; the recorded size and checksum are those of the
    writer's bytes (pandas writes ``\n`` and no BOM).
    """
    return data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")


def _check_record(path: Path, sidecar: Path, record, data: bytes | None) -> None:
    """Check the CSV's bytes against the sidecar's ``"csv"`` record.

    ``None`` bytes: the CSV is missing; ``None`` record: a sidecar from before checksums,
    not checked.
    """
    if record is None:
        return
    if not isinstance(record, dict):
        raise DataFormatError(f"{sidecar}: the '{_SIDECAR_KEY}' entry must be an object with rows, bytes and sha256")
    if record.get("incomplete"):
        raise DataFormatError(
            f"{path}: its metadata file {sidecar} says a write of this measurement started"
            f"{' at ' + str(record['started']) if record.get('started') else ''} and did not finish, so the CSV "
            "is not known to be complete; measure again (force=True / --force to overwrite)"
        )
    if data is None:
        return
    expected_bytes, expected_sha = record.get("bytes"), record.get("sha256")

    def matches(content: bytes) -> bool:
        return ((expected_bytes is None or expected_bytes == len(content))
                and (expected_sha is None or hashlib.sha256(content).hexdigest() == expected_sha))

    if matches(data) or matches(_as_written(data)):  # as written, or re-saved with CRLF / a BOM
        return
    if expected_bytes is not None and expected_bytes != len(data):
        raise _mismatch(path, sidecar, f"the CSV has {len(data)} bytes, the metadata record {expected_bytes} bytes "
                                       f"({record.get('rows', '?')} rows)")
    if expected_sha is not None and hashlib.sha256(data).hexdigest() != expected_sha:
        raise _mismatch(path, sidecar, "the CSV's SHA-256 checksum differs from the one recorded")


def _check_rows(path: Path, sidecar: Path, record, rows: int) -> None:
    if isinstance(record, dict) and record.get("rows") is not None and record["rows"] != rows:
        raise _mismatch(path, sidecar, f"the CSV has {rows} rows, the metadata record {record['rows']}")


def read_measured_csv(path: str | PathLike, validate: Callable[[pd.DataFrame, str], pd.DataFrame],
                      unknown: str, *, parse: Callable[[bytes, str], pd.DataFrame] | None = None) -> pd.DataFrame:
    """Read a measured table written with a sidecar.

    The CSV at ``path``, checked against the row count, size and checksum its sidecar records
    (see the module docstring), parsed (``parse(data, name)``; default
    :func:`pandas.read_csv`), checked by ``validate(frame, name)``, with the sidecar in
    ``frame.attrs``. An unreadable CSV or sidecar, or a pair that disagree, is a
    :class:`~workbench.errors.DataFormatError` naming the file(s); a missing sidecar a
    :class:`~workbench.errors.ParseWarning` naming what is then ``unknown``.

    Parameters
    ----------
    path : str or path-like
        The CSV.
    validate : callable
        ``validate(frame, name)`` checks the table and returns it.
    unknown : str
        What is unknown without a sidecar, for the warning.
    parse : callable, optional
        ``parse(data, name)`` turns the CSV's bytes into a frame; default :func:`pandas.read_csv`.
    """
    path = Path(path)
    sidecar = sidecar_path(path)
    meta = _load_sidecar(sidecar)
    record = meta.get(_SIDECAR_KEY) if meta is not None else None
    if not path.exists() and not path.is_symlink():
        _check_record(path, sidecar, record, None)  # names an interrupted write
        raise DataFormatError(f"{path}: file not found")
    data = _read_csv_bytes(path)
    _check_record(path, sidecar, record, data)
    frame = (parse or _parse_csv)(data, str(path))
    _check_rows(path, sidecar, record, len(frame))
    return _attach(validate(frame, str(path)), meta, path, unknown)
