"""JSON sidecars of measured tables: ``runs.csv`` keeps its metadata (machine, date, command,
method, units) in ``runs.json`` beside it, loaded into ``frame.attrs``."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping
from os import PathLike
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError, ParseWarning

__all__ = ["sidecar_path", "write_sidecar", "attach_sidecar", "read_measured_csv"]


def sidecar_path(path: str | PathLike) -> Path:
    """The metadata file of the table at ``path``: the same name with ``.json``."""
    return Path(path).with_suffix(".json")


def write_sidecar(path: str | PathLike, meta: Mapping) -> Path:
    """Write ``meta`` as the sidecar of the table at ``path`` (values JSON cannot hold, such as
    numpy scalars or timestamps, are written as text)."""
    sidecar = sidecar_path(path)
    sidecar.write_text(json.dumps(dict(meta), indent=2, default=str) + "\n")
    return sidecar


def attach_sidecar(frame: pd.DataFrame, path: str | PathLike, unknown: str) -> pd.DataFrame:
    """Load the sidecar of the table at ``path`` into ``frame.attrs`` (in place; returns
    ``frame``). A missing sidecar gives a :class:`~workbench.errors.ParseWarning` naming what is
    then ``unknown``; an unreadable one a :class:`~workbench.errors.DataFormatError`."""
    sidecar = sidecar_path(path)
    if not sidecar.exists():
        warnings.warn(f"{path}: no metadata file {sidecar.name} ({unknown} unknown)", ParseWarning, stacklevel=3)
        return frame
    try:
        frame.attrs.update(json.loads(sidecar.read_text()))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataFormatError(f"{sidecar}: unreadable metadata JSON: {exc}") from None
    return frame


def read_measured_csv(path: str | PathLike, validate: Callable[[pd.DataFrame, str], pd.DataFrame],
                      unknown: str) -> pd.DataFrame:
    """Read a measured table written with a sidecar: the CSV at ``path`` checked by
    ``validate(frame, name)``, with its sidecar in ``frame.attrs`` (:func:`attach_sidecar`).
    An unreadable CSV is a :class:`~workbench.errors.DataFormatError` naming the file."""
    path = Path(path)
    try:
        frame = pd.read_csv(path)
    except FileNotFoundError:
        raise DataFormatError(f"{path}: file not found") from None
    except (OSError, ValueError, pd.errors.ParserError) as exc:  # UnicodeDecodeError is a ValueError
        raise DataFormatError(f"{path}: cannot read as CSV: {exc}") from None
    return attach_sidecar(validate(frame, str(path)), path, unknown)
