"""Input checks shared by the readers, models and metrics (messages name the caller, file or argument)."""

from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ValidationError


def existing_path(path: str | PathLike) -> Path:
    """``path`` as a :class:`~pathlib.Path` that exists, or a DataFormatError saying why not."""
    try:
        path = Path(path)
    except TypeError:
        raise DataFormatError(f"expected a path to a file or folder, got {type(path).__name__}") from None
    if not path.exists():
        raise DataFormatError(f"{path}: no such file or directory")
    return path


def read_file_bytes(path: Path, max_bytes: int, too_large: str, error: type[DataFormatError] = DataFormatError) -> bytes:
    """The content of the file ``path``, refusing files over ``max_bytes`` with ``error(too_large)``
    (formatted with ``path`` and ``size``) -- a reader's guard against being handed, say, a core
    dump -- and turning an OSError into a DataFormatError that names the file."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise error(too_large.format(path=path, size=size))
        return path.read_bytes()
    except OSError as exc:
        raise DataFormatError(f"{path}: cannot read file: {exc.strerror or exc}") from None


def require_valid(mask_bad: np.ndarray, arr: np.ndarray, name: str, what: str, where: str) -> None:
    """A ValidationError ``where: name must be what, got name[i] = value`` for the first
    position ``i`` where ``mask_bad`` is set; nothing when none is."""
    if np.any(mask_bad):
        i = int(np.flatnonzero(mask_bad)[0])
        raise ValidationError(f"{where}: {name} must be {what}, got {name}[{i}] = {arr[i]}")


def as_vector(x, name: str, where: str) -> np.ndarray:
    """``x`` as a 1-D float array (a scalar becomes one element), or a ValidationError
    saying ``where: name must be ...``."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: {name} must be numeric, got {x!r} ({exc})") from None
    if arr.ndim > 1:
        raise ValidationError(f"{where}: {name} must be one-dimensional, got shape {arr.shape}")
    return arr.reshape(-1)


def require_columns(frame, columns, where: str) -> None:
    """A ValidationError unless ``frame`` is a non-empty DataFrame whose ``columns`` exist
    and hold finite numbers; the message names the caller, the column and the row."""
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValidationError(f"{where}: missing column(s) {missing}; the frame has {list(frame.columns)}")
    if len(frame) == 0:
        raise ValidationError(f"{where}: the frame is empty (no measured runs)")
    for c in columns:
        numeric_column(frame, c, where)


def numeric_column(frame, name: str, where: str) -> np.ndarray:
    """Column ``name`` of the DataFrame ``frame`` as finite floats, or a ValidationError naming
    the caller, the column and the first bad row."""
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    if name not in frame.columns:
        raise ValidationError(f"{where}: missing column {name!r}; the frame has {list(frame.columns)}")
    column = frame[name]
    if isinstance(column, pd.DataFrame):  # a repeated column name (or a MultiIndex level)
        raise ValidationError(f"{where}: column {name!r} appears {column.shape[1]} times; column names must be "
                              f"unique, the frame has {list(frame.columns)}")
    try:
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    except (TypeError, ValueError):  # e.g. a categorical of strings
        values = pd.to_numeric(column.astype(object), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{where}: column {name!r} must be numeric and finite, got {column.iloc[i]!r} in row {i}")
    return values


def numeric_columns(frame, columns, where: str) -> pd.DataFrame:
    """A copy of the DataFrame ``frame`` with ``columns`` as finite floats (numbers given as
    text included), after the checks of :func:`require_columns`."""
    require_columns(frame, columns, where)
    out = frame.copy()
    for c in dict.fromkeys(columns):
        out[c] = numeric_column(frame, c, where)
    return out


#: Largest ratio max / min of one curve's runtimes the scaling fits accept (no strong-scaling
#: curve spans more; relative errors and their squares cannot be formed across much more).
MAX_RUNTIME_SPAN = 1e100


def require_span(t: np.ndarray, where: str, name: str = "t", limit: float = MAX_RUNTIME_SPAN) -> None:
    """A ValidationError when the positive values ``t`` span more than ``limit``
    (max / min), naming the extreme values and their positions."""
    lo, hi = int(np.argmin(t)), int(np.argmax(t))
    if np.log10(t[hi]) - np.log10(t[lo]) > np.log10(limit):
        raise ValidationError(
            f"{where}: {name} (runtimes) spans more than {limit:.0e} (from {name}[{lo}] = {t[lo]:g} to "
            f"{name}[{hi}] = {t[hi]:g}); one strong-scaling curve's runtimes differ by a few orders of magnitude: "
            "check the unit and the column")
