"""Input checks shared by the readers, models and metrics (messages name the caller, file or argument).

The one place for the checks every model needs; a model's own checks are thin uses of these:

* runs of a curve: :func:`training_runs` (numbers, lengths, ranges), :func:`run_pair` (runs
  drawn beside a model, possibly none), :func:`sample_weights`,
  :func:`require_allocations` (enough distinct allocations) and :func:`check_runs` (all of
  them, for the n -> t models);
* values typed or pasted by a user: :func:`one_dimensional` (one value per run, no scalar) and
  :func:`require_none` (every bad position named, where :func:`require_valid` names the first);
* targets: :func:`processor_counts` (any shape) and :func:`check_targets` (a vector);
* settings: :func:`check_level` (an interval level), :func:`check_names` (names from a
  registry), :func:`positive_int`, :func:`check_unit`;
* fitted state: :func:`check_fitted`.  The convention: a fitted estimator has the public fitted
  attribute (ending in ``_``) that its class names in ``fitted_attribute`` and documents in its
  Attributes section; ``fit`` sets it once everything ``predict`` reads exists.
  :class:`FittedState` gives a class that convention (and scikit-learn's
  ``__sklearn_is_fitted__``).
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from workbench.errors import NotFittedError, ValidationError


def check_fitted(estimator, attribute: str | None = None, where: str | None = None, fit: str = "fit(n, t)") -> None:
    """Raise :class:`~workbench.errors.NotFittedError` unless ``estimator`` has its fitted ``attribute``.

    The one not-fitted check, and wording, of every model.

    Parameters
    ----------
    estimator : object
        The model.
    attribute : str or None, default None
        The fitted attribute that marks a fit; None reads the class's ``fitted_attribute``
        (:class:`FittedState`).
    where : str or None, default None
        The caller named in the message (default: the class name).
    fit : str, default "fit(n, t)"
        The call that fits the model, as the message names it.
    """
    if attribute is None:
        attribute = type(estimator).fitted_attribute
    if not hasattr(estimator, attribute):
        name = type(estimator).__name__
        raise NotFittedError(f"{where or name}: this {name} is not fitted yet; call {fit} first")


class FittedState:
    """Mixin of the fitted-state convention (module docstring).

    A subclass sets ``fitted_attribute`` to the public fitted attribute that marks a fit;
    ``check_fitted(model)`` and scikit-learn's ``check_is_fitted`` then read it.
    """

    #: the public fitted attribute that ``fit`` sets once the model can predict
    fitted_attribute: ClassVar[str] = ""

    def __sklearn_is_fitted__(self) -> bool:
        """Return whether the fitted attribute named by ``fitted_attribute`` exists."""
        return bool(self.fitted_attribute) and hasattr(self, self.fitted_attribute)


def positive_int(value, name: str, where: str) -> int:
    """Return ``value`` as an int if it is a positive integer (not a bool), else raise a ValidationError.

    The message reads ``where: name must be a positive integer, got value``.

    Parameters
    ----------
    value : object
        The value checked.
    name : str
        Its name in the message.
    where : str
        The caller, named first in the message.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValidationError(f"{where}: {name} must be a positive integer, got {value!r}")
    return int(value)


def require_valid(mask_bad: np.ndarray, arr: np.ndarray, name: str, what: str, where: str) -> None:
    """Raise a ValidationError for the first position ``i`` where ``mask_bad`` is set.

    The message is ``where: name must be what, got name[i] = value`` (``got value at position
    i`` when ``name`` is words, not an argument's name); nothing happens when no position is set.

    Parameters
    ----------
    mask_bad : numpy.ndarray of bool
        The positions refused.
    arr : numpy.ndarray
        The values checked (the first bad one is shown).
    name : str
        The argument's name (``"n"``), or the values in words (``"prediction targets"``).
    what : str
        What a value must be, as the message says it.
    where : str
        The caller, named first in the message.
    """
    if np.any(mask_bad):
        i = int(np.flatnonzero(mask_bad)[0])
        got = f"{name}[{i}] = {arr[i]}" if name.isidentifier() else f"{arr[i]} at position {i}"
        raise ValidationError(f"{where}: {name} must be {what}, got {got}")


def as_vector(x, name: str, where: str) -> np.ndarray:
    """Return ``x`` as a 1-D float array (a scalar becomes one element).

    Else a ValidationError saying ``where: name must be ...``.

    Parameters
    ----------
    x : float or array-like of float
        The values.
    name : str
        Their name in the message.
    where : str
        The caller, named first in the message.
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: {name} must be numeric, got {x!r} ({exc})") from None
    if arr.ndim > 1:
        raise ValidationError(f"{where}: {name} must be one-dimensional, got shape {arr.shape}")
    return arr.reshape(-1)


def require_none(bad: np.ndarray, values: np.ndarray, what: str, where: str | None = None, *,
                 show_values: bool = True, limit: int | None = None) -> None:
    """Raise a ValidationError listing every position where ``bad`` is set (nothing when none is).

    Where :func:`require_valid` names the first bad value, this names them all (or the first
    ``limit``), for inputs a user types or pastes: ``where: what, got [values] at positions
    [i, ...]``.

    Parameters
    ----------
    bad : numpy.ndarray of bool
        The positions refused.
    values : numpy.ndarray
        The values checked (shown at the bad positions).
    what : str
        The rule broken, as the message says it (``"runtimes must be positive"``).
    where : str or None, default None
        The caller or the data named first in the message; None: no prefix.
    show_values : bool, default True
        Say the bad values (``got [...]``); False for ones that say nothing, e.g. NaN.
    limit : int or None, default None
        Most values and positions listed; None lists all.

    Raises
    ------
    ValidationError
        If any position is bad.
    """
    if not np.any(bad):
        return
    positions = np.flatnonzero(bad)[:limit]
    got = f", got {values[positions].tolist()}" if show_values else ""
    prefix = f"{where}: " if where else ""
    raise ValidationError(f"{prefix}{what}{got} at positions {positions.tolist()}")


def one_dimensional(values, name: str, where: str | None = None) -> np.ndarray:
    """Return ``values`` as a one-dimensional float array, else raise a ValidationError.

    Unlike :func:`as_vector`, a scalar is refused: the caller expects one value per run.

    Parameters
    ----------
    values : array-like
        The values.
    name : str
        What they are, for the message (``"t (runtimes)"``).
    where : str or None, default None
        The caller named first in the message; None: no prefix.

    Returns
    -------
    numpy.ndarray
        The values as floats.

    Raises
    ------
    ValidationError
        If the values are not numeric or not one-dimensional.
    """
    prefix = f"{where}: " if where else ""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{prefix}{name} must be numeric: {exc}") from None
    if arr.ndim != 1:
        raise ValidationError(f"{prefix}{name} must be one-dimensional, got shape {arr.shape}")
    return arr


#: What a processor count must be, as the messages of :func:`processor_counts` say it.
PROCESSOR_COUNTS = "finite and >= 1 (processor counts)"


def processor_counts(n, where: str) -> np.ndarray:
    """``n`` (any shape) as a float array of processor counts.

    Numeric, finite and >= 1, else a ValidationError naming the value and its position.

    Parameters
    ----------
    n : float or array-like of float
        Processor counts, any shape.
    where : str
        The caller, named first in the message.
    """
    try:
        arr = np.asarray(n, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: n must be numeric, got {n!r} ({exc})") from None
    flat = arr.reshape(-1)
    require_valid(~np.isfinite(flat) | (flat < 1), flat, "n", PROCESSOR_COUNTS, where)
    return arr


def training_runs(n, t, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Return training runs ``(n, t)`` as float vectors of equal length, else raise a ValidationError.

    A scikit-learn style column ``X`` of shape (k, 1) is accepted for ``n`` and ``t``:
    processor counts finite and >= 1, runtimes finite and > 0; the error names the value and
    its position.

    Parameters
    ----------
    n : array-like of float, shape (k,) or (k, 1)
        Processor counts (allocations), >= 1.
    t : array-like of float, shape (k,) or (k, 1)
        Runtimes, > 0.
    where : str
        The caller, named first in the message.
    """
    n, t = (as_vector(_column(x), name, where) for x, name in ((n, "n"), (t, "t")))
    if n.size != t.size:
        raise ValidationError(f"{where}: n and t must have the same length, got {n.size} and {t.size}")
    require_valid(~np.isfinite(n) | (n < 1), n, "n", PROCESSOR_COUNTS, where)
    require_valid(~np.isfinite(t) | (t <= 0), t, "t", "finite and > 0 (runtimes)", where)
    return n, t


def run_pair(values, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Return a pair ``(n, t)`` of array-likes as two flat float arrays of equal length.

    For runs drawn beside a model (observed or held-back points of a figure), which may be
    absent; their values are not checked further (:func:`training_runs` checks runs to fit).

    Parameters
    ----------
    values : tuple of (array-like, array-like) or None
        The processor counts and the runtimes; None gives two empty arrays.
    name : str
        The argument named in messages (``"held_back"``).

    Returns
    -------
    n, t : numpy.ndarray
        Float vectors of the same length.

    Raises
    ------
    ValidationError
        ``values`` is not a pair, or its two arrays differ in length.
    """
    if values is None:
        return np.zeros(0), np.zeros(0)
    try:
        n, t = values
    except (TypeError, ValueError):
        raise ValidationError(f"{name} must be a pair (n, t) of arrays") from None
    n, t = np.asarray(n, float).ravel(), np.asarray(t, float).ravel()
    if n.shape != t.shape:
        raise ValidationError(f"{name}: n has {n.size} values but t has {t.size}")
    return n, t


def sample_weights(sample_weight, t: np.ndarray, where: str) -> np.ndarray:
    """Return the weights of runs ``t`` as a float vector (None: all 1).

    Finite, >= 0 and one per run, else a ValidationError naming the value and its position.

    Parameters
    ----------
    sample_weight : array-like of float or None
        One weight per run (>= 0); None: all 1.
    t : numpy.ndarray
        The runtimes weighted (their length is checked).
    where : str
        The caller, named first in the message.
    """
    if sample_weight is None:
        return np.ones_like(t)
    w = as_vector(sample_weight, "sample_weight", where)
    if w.size != t.size:
        raise ValidationError(f"{where}: sample_weight must have the same length as t, got {w.size} and {t.size}")
    require_valid(~np.isfinite(w) | (w < 0), w, "sample_weight", "finite and >= 0", where)
    return w


#: What an allocation ``n`` counts, as the error messages name it.
ALLOCATIONS = "allocations (processes, nodes or GPUs)"


def require_allocations(n: np.ndarray, min_points: int, where: str, what: str = ALLOCATIONS,
                        runs: str = "runs") -> np.ndarray:
    """Return the distinct values of ``n`` (ascending) if there are at least ``min_points``.

    Else a ValidationError ``where: needs runs at >= min_points distinct what, got m (values)``
    (``runs`` names what was measured, ``what`` what ``n`` counts).

    Parameters
    ----------
    n : numpy.ndarray
        The allocations of the runs.
    min_points : int
        Fewest distinct allocations needed.
    where : str
        The caller, named first in the message.
    what : str, default ALLOCATIONS
        What ``n`` counts, as the message says it.
    runs : str, default "runs"
        What was measured, as the message says it.
    """
    distinct = np.unique(n)
    m = distinct.size
    if m < min_points:
        if m == 1:
            got = f" (all {runs} at n = {distinct[0]:g})"
        else:
            got = f" ({', '.join(f'{v:g}' for v in distinct)})" if m else ""
        raise ValidationError(f"{where}: needs {runs} at >= {min_points} distinct {what}, got {m}{got}")
    return distinct


def check_runs(n, t, min_points: int, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Return the runs of one curve as float vectors.

    ``n`` finite allocations >= 1, ``t`` finite runtimes > 0, of equal length
    (:func:`training_runs`), at >= ``min_points`` distinct allocations
    (:func:`require_allocations`); else a ValidationError that names the value and its
    position (or the allocations found).

    Parameters
    ----------
    n : array-like of float
        Allocations (>= 1), one per run.
    t : array-like of float
        Runtimes (> 0), one per run.
    min_points : int
        Fewest distinct allocations needed.
    where : str
        The caller, named first in the message.
    """
    n, t = training_runs(n, t, where)
    require_allocations(n, min_points, where)
    return n, t


def check_targets(n, where: str, *, name: str = "n", what: str = PROCESSOR_COUNTS, max_distinct: int | None = None,
                  too_many: str = "") -> np.ndarray:
    """Return target allocations as a float vector (a scalar is one target, any shape is flattened).

    Finite and >= 1, and at most ``max_distinct`` distinct values, else a ValidationError
    that names the first bad value and its position, or the number of distinct targets.

    Parameters
    ----------
    n : float or array-like of float
        The targets (processor counts).
    where : str
        The caller or the argument, named first in the messages.
    name : str, default "n"
        What the targets are called in the messages (an argument's name, or words such as
        ``"prediction targets"``).
    what : str, default PROCESSOR_COUNTS
        What a target must be, as the message says it.
    max_distinct : int, optional
        Most distinct targets one call accepts; default None: no limit.
    too_many : str, default ""
        Why there is a limit and what to do instead, appended to its message.

    Returns
    -------
    numpy.ndarray
        The targets as a flat float vector.

    Raises
    ------
    ValidationError
        A target that is not numeric, not finite or below 1, or too many distinct targets.

    Examples
    --------
    >>> check_targets(8, "predict")
    array([8.])
    >>> check_targets([4, 0.5], "predict")
    Traceback (most recent call last):
    ...
    workbench.errors.ValidationError: predict: n must be finite and >= 1 (processor counts), got n[1] = 0.5
    """
    try:
        arr = np.atleast_1d(np.asarray(n, dtype=float)).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: {name} must be numeric, got {n!r} ({exc})") from None
    require_valid(~np.isfinite(arr) | (arr < 1), arr, name, what, where)
    if max_distinct is not None:
        distinct = np.unique(arr).size
        if distinct > max_distinct:
            raise ValidationError(f"{where}: at most {max_distinct} distinct targets per call, got {distinct}"
                                  + (f"; {too_many}" if too_many else ""))
    return arr


def check_level(level, where: str | None = None) -> float:
    """Return an interval level in (0, 0.99], else raise a ValidationError (prefixed by ``where`` if given).

    Parameters
    ----------
    level : float
        The interval level.
    where : str, optional
        The caller, named first in the message; default None: no prefix.
    """
    prefix = f"{where}: " if where else ""
    try:
        value = float(level)
    except (TypeError, ValueError):
        raise ValidationError(f"{prefix}interval level must be a number in (0, 0.99], got {level!r}") from None
    if not 0 < value <= 0.99:
        raise ValidationError(f"{prefix}interval level must be in (0, 0.99] (e.g. 0.8 for 80 %), got {level!r}")
    return value


def check_names(names, known, where: str, what: str = "model") -> tuple[str, ...]:
    """Return ``names``, each a key of ``known``, as a tuple.

    ``None`` is all of ``known``; a string may list several (``"adept,pmnf"``); else a
    ValidationError naming the unknown ones and the choices.

    Parameters
    ----------
    names : str, sequence of str or None
        The names asked for (``"adept,pmnf"``, a list, or None for all).
    known : mapping or sequence of str
        The registry (its keys are the valid names).
    where : str
        The caller, named first in the message.
    what : str, default "model"
        What a name names, as the message says it.
    """
    if names is None:
        return tuple(known)
    try:
        items = [names] if isinstance(names, str) else list(names)
    except TypeError:
        items = [names]
    out = tuple(part.strip() for item in items for part in (item.split(",") if isinstance(item, str) else [item]))
    unknown = [m for m in out if m not in known]
    if unknown or not out:
        raise ValidationError(f"{where}: unknown {what}(s) {unknown or '(none given)'}; choose from {', '.join(known)}")
    return out


def _column(x):
    arr = np.asarray(x, dtype=object)
    return arr[:, 0] if arr.ndim == 2 and arr.shape[1] == 1 else x


def require_table(frame, columns, name: str, needs: str, empty: str = "the table has no rows") -> None:
    """Raise a ValidationError unless ``frame`` is a DataFrame with every one of ``columns`` and a row.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    columns : sequence of str
        The columns it must have.
    name : str
        What the messages call the table, named first.
    needs : str
        What the message on missing columns adds after them (the columns a table of the kind has).
    empty : str, default "the table has no rows"
        The message on a table without rows.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{name}: expected a table (pandas DataFrame), got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValidationError(f"{name}: missing column(s) {', '.join(map(repr, missing))}; {needs}")
    if frame.empty:
        raise ValidationError(f"{name}: {empty}")


def require_columns(frame, columns, where: str) -> None:
    """Raise a ValidationError unless ``frame`` is a non-empty DataFrame whose ``columns`` hold finite numbers.

    The message names the caller, the column and the row.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    columns : sequence of str
        The columns that must hold finite numbers.
    where : str
        The caller, named first in the message.
    """
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
    """Return column ``name`` of ``frame`` as finite floats, else raise a ValidationError.

    The error names the caller, the column and the first bad row.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    name : str
        The column.
    where : str
        The caller, named first in the message.
    """
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
    """Return a copy of ``frame`` with ``columns`` as finite floats.

    Numbers given as text are included, after the checks of :func:`require_columns`.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    columns : sequence of str
        The columns converted and checked.
    where : str
        The caller, named first in the message.
    """
    require_columns(frame, columns, where)
    out = frame.copy()
    for c in dict.fromkeys(columns):
        out[c] = numeric_column(frame, c, where)
    return out


#: Largest ratio max / min of one curve's runtimes the scaling fits accept (no strong-scaling
#: curve spans more; relative errors and their squares cannot be formed across much more).
MAX_RUNTIME_SPAN = 1e100


def require_span(t: np.ndarray, where: str, name: str = "t", limit: float = MAX_RUNTIME_SPAN) -> None:
    """Refuse positive values ``t`` that span more than ``limit`` (max / min) with a ValidationError.

    The error names the extreme values and their positions.

    Parameters
    ----------
    t : numpy.ndarray
        Positive values (runtimes).
    where : str
        The caller or the data, named first in the message.
    name : str, default "t"
        Their name in the message.
    limit : float, default MAX_RUNTIME_SPAN
        Largest accepted max / min.
    """
    lo, hi = int(np.argmin(t)), int(np.argmax(t))
    if np.log10(t[hi]) - np.log10(t[lo]) > np.log10(limit):
        raise ValidationError(
            f"{where}: {name} (runtimes) spans more than {limit:.0e} (from {name}[{lo}] = {t[lo]:g} to "
            f"{name}[{hi}] = {t[hi]:g}); one strong-scaling curve's runtimes differ by a few orders of magnitude: "
            "check the unit and the column")


#: Columns of a profile frame, one row per size, run and phase (``total_s`` is optional;
#: :func:`validate_profile`, the format of :mod:`workbench.models.fractal`).
PROFILE_COLUMNS = ("size", "phase", "time_s", "run", "total_s")


def validate_profile(frame, where: str = "profile", *, row_label: str = "row") -> pd.DataFrame:
    """Check a profile frame (the format of :mod:`workbench.models.fractal`'s docstring) and return a normalised copy.

    Columns in the order ``size, phase, time_s, run[, total_s]`` (``run`` = 0 when absent),
    ``attrs`` kept plus ``time_unit = "s"``. Raises :class:`~workbench.errors.ValidationError`
    naming ``where``, the column and the row (the frame's index label, called ``row_label``)
    for: not a DataFrame, no rows, missing columns, non-numeric / non-finite / non-positive
    sizes, negative or NaN times, non-integer or negative runs, empty phase names, a
    ``total_s`` that is not positive or differs within one run, duplicate (size, run, phase).

    Parameters
    ----------
    frame : pandas.DataFrame
        The profile frame.
    where : str, default "profile"
        The data, named first in the messages.
    row_label : str, default "row"
        What the messages call an index label (``"line"`` for a frame read from a file).
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame (profile frame), got {type(frame).__name__}")
    missing = [c for c in ("size", "phase", "time_s") if c not in frame.columns]
    if missing:
        raise ValidationError(
            f"{where}: missing column(s) {missing} of a profile frame (size, phase, time_s[, run, total_s]); "
            f"it has {list(frame.columns)}"
        )
    repeated = [c for c in PROFILE_COLUMNS if (frame.columns == c).sum() > 1]
    if repeated:
        raise ValidationError(f"{where}: column(s) {repeated} appear more than once; column names must be unique")
    if len(frame) == 0:
        raise ValidationError(f"{where}: the profile is empty (no phase timings)")
    cols = [c for c in PROFILE_COLUMNS if c in frame.columns]
    out = frame[cols].copy()
    # pandas deep-copies attrs on every operation: keep them off the working copy (speed)
    out.attrs = {}
    if "run" not in out.columns:
        out.insert(3, "run", 0)

    def _bad(column: str, mask: pd.Series, rule: str) -> None:
        if mask.any():
            pos = np.flatnonzero(mask.to_numpy())[0]
            label, value = mask.index[pos], frame[column].iloc[pos]
            value = value.item() if isinstance(value, np.generic) else value
            raise ValidationError(f"{where}: column {column!r} must be {rule}, got {value!r} in {row_label} {label}")

    for column, rule, ok in (
        ("size", "a finite number > 0", lambda v: np.isfinite(v) & (v > 0)),
        ("time_s", "a finite number >= 0 (seconds)", lambda v: np.isfinite(v) & (v >= 0)),
        ("run", "an integer >= 0", lambda v: np.isfinite(v) & (v >= 0) & (v == np.round(v))),
        ("total_s", "a finite number > 0 (seconds)", lambda v: np.isfinite(v) & (v > 0)),
    ):
        if column not in out.columns:
            continue
        values = pd.to_numeric(out[column], errors="coerce").astype(float)
        _bad(column, ~pd.Series(ok(values.to_numpy()), index=out.index), rule)
        out[column] = values
    out["run"] = out["run"].astype("int64")
    names = out["phase"].astype("string").str.strip()
    _bad("phase", names.isna() | (names == ""), "a non-empty name")
    out["phase"] = names.astype(object)
    dup = out.duplicated(["size", "run", "phase"])
    if dup.any():
        label = dup.index[np.flatnonzero(dup.to_numpy())[0]]
        row = out.loc[label]
        raise ValidationError(
            f"{where}: duplicate timing of phase {row['phase']!r} at size {row['size']:g}, run {row['run']} "
            f"in {row_label} {label} (one row per phase per run; sum repeated entries first)"
        )
    if "total_s" in out.columns:
        by_run = out.groupby(["size", "run"])["total_s"]
        spread = by_run.transform("max") - by_run.transform("min")
        _bad("total_s", spread > 1e-12 * out["total_s"], "the same for every phase of one run")
    out.attrs = {**frame.attrs, "time_unit": "s"}
    return out


# ------------------------------------------------------------------ allocation units and topology
#: What an allocation counts, by canonical name: (one, several, cost unit). The scaling frame's
#: ``unit``, the predictor's ``unit`` and every label and cost on screen follow it.
UNITS = {
    "processes": ("process", "processes", "process-hours"),
    "nodes": ("node", "nodes", "node-hours"),
    "gpus": ("GPU", "GPUs", "GPU-hours"),
    "cores": ("core", "cores", "core-hours"),
}
_UNIT_ALIASES = {alias: name for name, (one, many, _) in UNITS.items()
                 for alias in (name, one.lower(), many.lower(), name.rstrip("s"))}


def check_unit(unit, where: str) -> str:
    """Return the canonical allocation unit (a key of :data:`UNITS`) for ``unit``.

    Case-insensitive, singular or plural ("node", "GPUs"); None is ``"processes"``.  Else a
    ValidationError listing the units.

    Parameters
    ----------
    unit : str or None
        The unit, any case, singular or plural; None: processes.
    where : str
        The caller, named first in the message.
    """
    if unit is None:
        return "processes"
    name = _UNIT_ALIASES.get(str(unit).strip().lower())
    if name is None:
        raise ValidationError(f"{where}: unknown allocation unit {unit!r}; use one of {', '.join(UNITS)}")
    return name


def nodes_of(n, per_node, where: str, name: str = "per_node") -> np.ndarray:
    """Nodes needed by allocations ``n`` when one node holds ``per_node`` of them: ``ceil(n / per_node)``.

    ``per_node`` is a positive whole number (cores or GPUs per node); else a ValidationError.

    Parameters
    ----------
    n : float or array-like of float
        Allocations.
    per_node : int
        Allocation units per node (cores or GPUs), a positive whole number.
    where : str
        The caller, named first in the message.
    name : str, default "per_node"
        The per-node argument's name in the message.
    """
    value = float(per_node) if isinstance(per_node, (int, float, np.integer, np.floating)) and not isinstance(
        per_node, bool) else np.nan
    if not (np.isfinite(value) and value >= 1 and value == round(value)):
        raise ValidationError(f"{where}: {name} must be a whole number >= 1 (cores or GPUs per node), got {per_node!r}")
    return np.ceil(np.asarray(n, float) / value - 1e-9)


@dataclass(frozen=True)
class Threshold:
    """One number a model or a figure decides by: its ``value``, ``unit``, ``meaning`` and where it is ``used_by``.

    Declared once next to what uses it; every text that states the number is written from it.
    """

    value: float
    unit: str
    meaning: str
    used_by: str
