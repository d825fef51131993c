"""Tidy strong-scaling tables: reading, validation and selection of curves.

The canonical *scaling frame* has one row per measured run:

===================  ========  ===========================================================
column               dtype     meaning
===================  ========  ===========================================================
``benchmark``        str       application / benchmark name (default: the file's stem, or
                               ``"custom"``)
``problem_class``    str       problem size label, e.g. NPB class ``"C"`` (default ``"n/a"``)
``processes``        int64     number of processes n >= 1 (required)
``threads``          int64     threads per process >= 1 (default 1)
``nodes``            Int64     nodes used, ``<NA>`` = unknown / scheduler default
``run``              int64     repetition index >= 0 of the same configuration (default 0)
``time_s``           float64   wall-clock runtime in seconds, > 0 (required)
``source``           str       where the row came from (file, log), may be missing
===================  ========  ===========================================================

Optional topology columns, checked when present and kept after these (``Int64``, ``<NA>`` =
unknown): ``cores_per_node`` (cores of one node), ``gpus`` (GPUs used by the run) and
``gpus_per_node``.  A run that contradicts them is refused, naming the value and row: more
nodes than processes, more processes x threads per node than ``cores_per_node``, more GPUs
per node than ``gpus_per_node``.  An optional ``unit`` column (or the ``unit`` argument of
:func:`read_scaling_csv`) says what an allocation counts: ``processes`` (default), ``nodes``,
``gpus`` or ``cores`` (:data:`~workbench.validation.UNITS`); :func:`frame_unit` reads it and
:func:`allocations` returns the allocation of each run in it.

Other columns are kept unchanged after these.  A *strong-scaling curve* is the set of
rows of one benchmark and problem class measured with one *placement* (how the
processes were laid out over nodes, see :func:`placement_labels`).
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ValidationError
from workbench.io.npb import MAX_COUNT, parse_npb_bytes, read_npb_logs, records_to_frame
from workbench.io.text import as_path, csv_frame, decode, is_folder, path_exists, read_buffer, read_file
from workbench.validation import UNITS, check_unit

__all__ = [
    "SCALING_COLUMNS",
    "TIME_UNITS",
    "read_scaling_csv",
    "validate_scaling_frame",
    "placement_labels",
    "list_curves",
    "select_curve",
    "read_scaling_data",
    "read_scaling_bytes",
    "allocations",
    "frame_unit",
    "SCALING_TOPOLOGY_COLUMNS",
    "UNITS",
]

SCALING_COLUMNS = ["benchmark", "problem_class", "processes", "threads", "nodes", "run", "time_s", "source"]
#: Accepted ``time_unit`` values and their length in seconds.
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}
NPB_SUFFIXES = {".out", ".log", ".txt"}
_CONFIG = ["benchmark", "problem_class", "processes", "threads", "nodes", "run"]
_DEFAULTS = {"benchmark": "custom", "problem_class": "n/a", "threads": 1, "run": 0}
_INTEGER_MINIMUM = {"processes": 1, "threads": 1, "nodes": 1, "run": 0}
#: Optional whole-number columns describing where a run ran (``<NA>`` = unknown).
SCALING_TOPOLOGY_COLUMNS = ("cores_per_node", "gpus", "gpus_per_node")
DEFAULT_PLACEMENT = "default placement"
#: A header line of a scaling CSV, shown in messages about the file's columns.
EXAMPLE_HEADER = "benchmark,problem_class,processes,time_s"
_WHAT = "a CSV scaling table"


# ----------------------------------------------------------------------------- reading

def read_scaling_csv(path_or_buffer, *, time_column: str = "time_s", time_unit: str = "s",
                     unit: str | None = None) -> pd.DataFrame:
    """Read and validate a tidy scaling table from CSV (``,``, ``;`` or tab separated).

    Column names are matched case-insensitively; full-line ``#`` comments are ignored.
    When the file has no ``benchmark`` column, its file name stem is used. The file is
    read with the checks and limits of :mod:`workbench.io.text` (a regular file of at
    most 50 MiB, UTF-8 with or without BOM, any line ends, at most 1,000 columns).

    Parameters
    ----------
    path_or_buffer : str, os.PathLike or file-like (text or bytes)
        The CSV file, or an open file whose ``name`` (if any) is named in messages.
    time_column : str, default "time_s"
        Name of the runtime column in the file (case-insensitive), e.g. ``"time_ms"``;
        it becomes ``time_s``.
    time_unit : {"s", "ms", "us"}, default "s"
        Unit of ``time_column``; values are converted to seconds.
    unit : {"processes", "nodes", "gpus", "cores"} or None, default None
        What an allocation counts (``frame.attrs["unit"]``, see :func:`allocations`); None
        takes the file's ``unit`` column, else ``"processes"``.

    Returns
    -------
    pandas.DataFrame
        The canonical scaling frame (see the module docstring).

    Raises
    ------
    DataFormatError
        the content is not CSV text (binary, zip/Excel, not UTF-8, ragged rows, over a
        limit) or the path does not name a readable regular file.
    ValidationError
        empty file, no data rows, repeated column names, or any problem listed by
        :func:`validate_scaling_frame`; messages give the file's line numbers.
    """
    if time_unit not in TIME_UNITS:
        raise ValidationError(f"unknown time_unit {time_unit!r}; use one of {', '.join(TIME_UNITS)}")
    if isinstance(path_or_buffer, (str, PathLike)):
        name = str(path_or_buffer)
        text = read_file(path_or_buffer, what=_WHAT)
    elif hasattr(path_or_buffer, "read"):
        name = str(getattr(path_or_buffer, "name", "<buffer>"))
        text = read_buffer(path_or_buffer, name, what=_WHAT)
    else:
        raise DataFormatError(f"expected a CSV path or file-like object, got {type(path_or_buffer).__name__}")
    return _scaling_table(text, name, time_column, time_unit, unit)


def _scaling_table(text: str, name: str, time_column: str = "time_s", time_unit: str = "s",
                   unit: str | None = None) -> pd.DataFrame:
    """Return the validated scaling frame of checked CSV text (the work of :func:`read_scaling_csv`)."""
    frame = csv_frame(text, name, example=EXAMPLE_HEADER)
    time_column = time_column.strip().lower()
    labels = {}
    if time_column != "time_s":
        if time_column not in frame.columns:
            raise ValidationError(_missing(name, [time_column], frame.columns))
        if "time_s" in frame.columns:
            raise ValidationError(f"{name}: both 'time_s' and {time_column!r} hold a runtime; keep one of the two "
                                  "columns")
        frame = frame.rename(columns={time_column: "time_s"})
        labels["time_s"] = time_column
    if "benchmark" not in frame.columns and name != "<buffer>":
        frame["benchmark"] = Path(name).stem
    if unit is not None:
        frame.attrs["unit"] = check_unit(unit, name)
    frame = _validate(frame, name=name, rows="line", labels=labels)
    frame["time_s"] = frame["time_s"] * TIME_UNITS[time_unit]
    return frame


# -------------------------------------------------------------------------- validation

def _missing(name: str, wanted: list[str], columns) -> str:
    found = ", ".join(repr(c) for c in list(columns)[:12]) or "none"
    found += f" (and {len(columns) - 12} more)" if len(columns) > 12 else ""
    message = f"{name}: missing required column(s) {', '.join(map(repr, wanted))}; found columns: {found}"
    if "time_s" not in wanted:  # the caller named another runtime column
        return message
    # a runtime under another name or unit is the usual cause: say what the file must hold
    timed = [str(c) for c in columns if "time" in str(c) or str(c) in ("seconds", "secs", "sec", "s")]
    rename = f" (if {timed[0]!r} is the runtime, rename it 'time_s' and give it in seconds)" if timed else ""
    return (f"{message}; name the runtime column 'time_s', in seconds{rename}: expected a header line such as "
            f"{EXAMPLE_HEADER!r}")


def _rows(index, word: str, limit: int = 8) -> str:
    count = len(index)
    more = f" and {count - limit} more" if count > limit else ""
    plural = "s" if count > 1 else ""
    return f"{word}{plural} {', '.join(str(i) for i in index[:limit])}{more}"


def _stripped(column: pd.Series) -> pd.Series:
    """Return the text of ``column`` without surrounding blanks, missing cells kept missing (None).

    Each distinct value is stripped once: a million-row column holds a few names, and
    stripping every cell took seconds.
    """
    codes, uniques = pd.factorize(column)
    text = np.array([str(u).strip() for u in uniques] + [None], dtype=object)  # code -1 (missing) -> None
    return pd.Series(text[codes], index=column.index, dtype=object)


def _validate(frame: pd.DataFrame, *, name: str, rows: str, labels: dict) -> pd.DataFrame:
    """Validate a scaling frame: the work behind :func:`validate_scaling_frame`.

    ``rows`` is the word for index labels in messages ("row" or "line"), ``labels`` maps
    canonical to user column names.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    had_run = "run" in frame.columns
    missing = [c for c in ("processes", "time_s") if c not in frame.columns]
    if missing:
        raise ValidationError(_missing(name, [labels.get(c, c) for c in missing], frame.columns))
    if frame.empty:
        raise ValidationError(f"{name}: the table has no rows")

    problems: list[str] = []

    def label(col: str) -> str:
        return repr(labels.get(col, col))

    def numeric(col: str, allow_missing: bool) -> pd.Series:
        return _numeric(frame, col, allow_missing, label(col), rows, problems)

    for col, default in _DEFAULTS.items():
        if col not in frame.columns:
            frame[col] = default
    if "nodes" not in frame.columns:
        frame["nodes"] = pd.NA
    if "source" not in frame.columns:
        frame["source"] = pd.NA

    time_s = numeric("time_s", allow_missing=False)
    nonpositive = time_s <= 0
    if nonpositive.any():
        problems.append(f"column {label('time_s')} must be > 0 (a runtime); found {time_s[nonpositive].tolist()[:5]} "
                        f"in {_rows(frame.index[nonpositive], rows)}")
    integers = {}
    for col, minimum in _INTEGER_MINIMUM.items():
        values = numeric(col, allow_missing=col == "nodes")
        fractional = np.isfinite(values) & (values != np.round(values))
        if fractional.any():
            problems.append(f"column {label(col)} must hold whole numbers; found {values[fractional].tolist()[:5]} "
                            f"in {_rows(frame.index[fractional], rows)}")
        out_of_range = (values < minimum) | (values > MAX_COUNT)
        if out_of_range.any():
            problems.append(f"column {label(col)} must be >= {minimum} (and <= {MAX_COUNT}); found "
                            f"{values[out_of_range].tolist()[:5]} in {_rows(frame.index[out_of_range], rows)}")
        integers[col] = values
    for col in SCALING_TOPOLOGY_COLUMNS:
        if col in frame.columns:
            values = numeric(col, allow_missing=True)
            bad = np.isfinite(values) & ((values < 1) | (values != np.round(values)) | (values > MAX_COUNT))
            if bad.any():
                problems.append(f"column {label(col)} must hold whole numbers >= 1; found "
                                f"{values[bad].tolist()[:5]} in {_rows(frame.index[bad], rows)}")
            integers[col] = values
    problems += _topology_problems(integers, label, frame.index, rows)
    texts = {col: _stripped(frame[col]) for col in ("benchmark", "problem_class")}
    for col, text in texts.items():
        empty = text.isna() | text.eq("")
        if empty.any():
            problems.append(f"column {label(col)} has empty cells in {_rows(frame.index[empty], rows)}")
    if problems:
        raise ValidationError(f"{name}: invalid scaling data:\n- " + "\n- ".join(problems))

    frame["time_s"] = time_s
    for col, values in integers.items():
        frame[col] = values.round().astype("Int64" if col == "nodes" or col in SCALING_TOPOLOGY_COLUMNS else "int64")
    for col, text in texts.items():
        frame[col] = text.astype(str)
    frame["source"] = frame["source"].astype("str").where(frame["source"].notna(), None)

    _check_duplicates(frame, name, rows, had_run)

    extras = [c for c in frame.columns if c not in SCALING_COLUMNS]
    out = frame[SCALING_COLUMNS + extras].reset_index(drop=True)
    out.attrs = dict(frame.attrs)
    return out


def _numeric(frame: pd.DataFrame, col: str, allow_missing: bool, label: str, rows: str,
             problems: list[str]) -> pd.Series:
    """Return ``frame[col]`` as float64, appending to ``problems`` its blank and unreadable cells."""
    raw = frame[col]
    values = pd.to_numeric(raw, errors="coerce").astype("float64")
    unreadable = ~np.isfinite(values.to_numpy())
    # which unreadable cells are blank (only those are looked at: the column may be long)
    empty = np.zeros(len(raw), dtype=bool)
    if unreadable.any():
        looked = raw[unreadable]
        empty[unreadable] = (looked.isna() | looked.astype(str).str.strip().eq("")).to_numpy()
    bad = unreadable & ~empty
    if empty.any() and not allow_missing:
        problems.append(f"column {label} has empty/NaN cells in {_rows(frame.index[empty], rows)}")
    if bad.any():
        shown = ", ".join(repr(str(v)) for v in raw[bad].unique()[:5])
        problems.append(
            f"column {label} has non-numeric or infinite values {shown} in {_rows(frame.index[bad], rows)}"
        )
    return values


def _check_duplicates(frame: pd.DataFrame, name: str, rows: str, had_run: bool) -> None:
    """Raise ValidationError naming the rows that repeat a configuration, with the fix."""
    dup = frame.duplicated(_CONFIG, keep=False)
    if dup.any():
        first = frame.loc[dup].iloc[0]
        example = ", ".join(f"{c}={first[c]}" for c in ("benchmark", "problem_class", "processes"))
        if had_run:
            advice = "give each repetition its own `run` number"
        else:
            advice = "if these are repeated measurements, add a `run` column numbering them 0, 1, 2, ..."
        raise ValidationError(
            f"{name}: duplicate configurations (same benchmark, problem_class, processes, threads, nodes, run) "
            f"in {_rows(frame.index[dup], rows)}, e.g. {example}; {advice}"
        )


def _topology_problems(values: dict, label, index, rows: str) -> list[str]:
    """List the runs whose topology contradicts itself (more nodes than processes, more per node than it holds)."""
    problems = []
    p, threads, nodes = values["processes"], values["threads"], values["nodes"]
    with np.errstate(invalid="ignore", divide="ignore"):
        checks = [(nodes > p, lambda i: f"{int(nodes.iloc[i])} nodes for {int(p.iloc[i])} processes (a run cannot "
                   "use more nodes than processes)")]
        if "cores_per_node" in values:
            cores = values["cores_per_node"]
            per_node = p * threads / nodes
            checks.append((per_node > cores, lambda i: (
                f"{int(p.iloc[i])} processes x {int(threads.iloc[i])} threads on {int(nodes.iloc[i])} node(s) is "
                f"{per_node.iloc[i]:g} per node, more than {label('cores_per_node')} = {int(cores.iloc[i])}")))
        if "gpus" in values and "gpus_per_node" in values:
            gpus, per = values["gpus"], values["gpus_per_node"]
            checks.append((gpus / nodes > per, lambda i: (
                f"{int(gpus.iloc[i])} GPUs on {int(nodes.iloc[i])} node(s), more than {label('gpus_per_node')} = "
                f"{int(per.iloc[i])} per node")))
    for bad, say in checks:
        bad = np.asarray(bad.fillna(False) if hasattr(bad, "fillna") else bad, bool)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problems.append(f"topology contradicts the runs in {_rows(index[bad], rows)}: e.g. {rows} {index[i]}: "
                            f"{say(i)}")
    return problems


def frame_unit(frame: pd.DataFrame) -> str:
    """Return what an allocation of ``frame`` counts.

    Parameters
    ----------
    frame : pandas.DataFrame
        A scaling frame.

    Returns
    -------
    str
        ``frame.attrs["unit"]`` (set by the ``unit`` argument of the readers), else the
        ``unit`` column when it holds one known unit for every row, else ``"processes"``.
    """
    if frame.attrs.get("unit") is not None:
        return check_unit(frame.attrs["unit"], "scaling data")
    if "unit" in frame.columns:
        given = frame["unit"].dropna().astype(str).str.strip().str.lower().unique()
        if len(given) == 1:
            try:
                return check_unit(given[0], "scaling data")
            except ValidationError:
                pass
    return "processes"


def allocations(frame: pd.DataFrame, unit: str | None = None) -> np.ndarray:
    """Return the allocation of every run of a scaling frame, in ``unit``.

    ``processes``: the ``processes`` column; ``nodes``: ``nodes`` (every run must state it);
    ``gpus``: the ``gpus`` column when present, else one GPU per process; ``cores``:
    processes x threads.

    Parameters
    ----------
    frame : pandas.DataFrame
        A validated scaling frame.
    unit : {"processes", "nodes", "gpus", "cores"} or None, default None
        What to count; None: the frame's own (:func:`frame_unit`).

    Returns
    -------
    numpy.ndarray
        One float per row.

    Raises
    ------
    ValidationError
        Naming the rows where the unit's count is unknown.
    """
    unit = check_unit(unit, "allocations") if unit is not None else frame_unit(frame)
    if unit == "nodes" or (unit == "gpus" and "gpus" in frame.columns):
        column = frame[unit].astype("Float64")
        missing = column.isna().to_numpy()
        if missing.any():
            raise ValidationError(
                f"the allocation unit is {UNITS[unit][1]}, but the {unit!r} column is empty in "
                f"{_rows(frame.index[missing], 'row')}; give the count of every run, or choose another unit")
        return column.to_numpy(float)
    if unit == "cores":
        return frame["processes"].to_numpy(float) * frame["threads"].to_numpy(float)
    return frame["processes"].to_numpy(float)


def validate_scaling_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Check a scaling table and return a canonical copy (module docstring columns first).

    Missing optional columns get their defaults (threads 1, run 0, nodes <NA>, benchmark
    "custom", problem_class "n/a").

    Parameters
    ----------
    df : pandas.DataFrame
        The table; its ``attrs`` are kept.

    Returns
    -------
    pandas.DataFrame
        The canonical scaling frame.

    Raises
    ------
    ValidationError
        Naming the columns and rows (index labels) concerned, listing every problem found at
        once: missing required columns (with the columns found), empty/NaN cells, non-numeric
        values, runtimes or counts that are zero/negative, non-integer counts, duplicate
        configurations (then add a ``run`` column for repeated measurements).
    """
    return _validate(df, name="scaling data", rows="row", labels={})


# ------------------------------------------------------------------------------ curves

def placement_labels(processes, nodes, cores_per_node: int | None = None) -> np.ndarray:
    """Human-readable placement of ``processes`` over ``nodes`` (vectorised).

    ===============================  ===========================================
    label                            when
    ===============================  ===========================================
    ``"default placement"``          nodes unknown (the scheduler decided)
    ``"packed (4 per node)"``        processes / nodes == ``cores_per_node``
                                     (every core of every node used)
    ``"spread (1 per node)"``        one process per node
    ``"2 per node"``                 any other whole number of processes per node
    ``"uneven (3.125 per node)"``    processes not a multiple of nodes
    ===============================  ===========================================

    Parameters
    ----------
    processes : array-like of int
        Processes of each run.
    nodes : array-like of int or <NA>
        Nodes of each run (broadcast against ``processes``); <NA> or NaN: unknown.
    cores_per_node : int or None, default None
        A property of the machine (4 on the Raspberry Pi cluster); None: nothing is called
        "packed".

    Returns
    -------
    numpy.ndarray of object
        One label per run.
    """
    p = np.asarray(processes, dtype=float)
    n = pd.array(nodes, dtype="Float64").to_numpy(dtype=float, na_value=np.nan)
    p, n = np.broadcast_arrays(p, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = p / n
    whole = np.isfinite(ratio) & (ratio == np.round(ratio))
    per_node = pd.Series(np.where(whole, ratio, 0)).astype(int).astype(str).to_numpy(dtype=object) + " per node"
    uneven = "uneven (" + pd.Series(ratio).map("{:g}".format).to_numpy(dtype=object) + " per node)"
    packed = whole & (cores_per_node is not None) & (ratio == (cores_per_node or 0))
    return np.select(
        [np.isnan(n), packed, whole & (ratio == 1), whole],
        [DEFAULT_PLACEMENT, "packed (" + per_node + ")", "spread (1 per node)", per_node],
        default=uneven,
    ).astype(object)


def _with_placement(frame: pd.DataFrame, cores_per_node: int | None) -> pd.DataFrame:
    cores = cores_per_node if cores_per_node is not None else frame.attrs.get("cores_per_node")
    frame = validate_scaling_frame(frame)
    frame["placement"] = placement_labels(frame["processes"], frame["nodes"], cores)
    return frame


def list_curves(frame: pd.DataFrame, *, cores_per_node: int | None = None) -> pd.DataFrame:
    """Available strong-scaling curves in a scaling frame.

    Parameters
    ----------
    frame : pandas.DataFrame
        A scaling frame (validated here).
    cores_per_node : int or None, default None
        See :func:`placement_labels`; None: ``frame.attrs["cores_per_node"]`` (set by the
        catalogue for machines it knows).

    Returns
    -------
    pandas.DataFrame
        One row per curve: ``benchmark``, ``problem_class``, ``placement``, ``n_points``
        (distinct process counts), ``n_runs`` (rows, repetitions included), ``processes``
        (sorted list of the distinct process counts) and ``label`` (e.g. ``"cg class C,
        packed (4 per node): 5 points"`` for a dropdown), sorted by benchmark, class and
        decreasing number of points.
    """
    frame = _with_placement(frame, cores_per_node)
    keys = ["benchmark", "problem_class", "placement"]
    curves = frame.groupby(keys, sort=False).agg(
        n_points=("processes", "nunique"),
        n_runs=("processes", "size"),
        processes=("processes", lambda s: sorted(s.unique().tolist())),
    ).reset_index()
    curves["label"] = (
        curves["benchmark"] + " class " + curves["problem_class"] + ", " + curves["placement"] + ": "
        + curves["n_points"].astype(str) + np.where(curves["n_points"] == 1, " point", " points")
    )
    curves = curves.sort_values(["benchmark", "problem_class", "n_points", "placement"],
                                ascending=[True, True, False, True])
    return curves.reset_index(drop=True)


def select_curve(
    frame: pd.DataFrame,
    benchmark: str,
    problem_class: str,
    placement: str | None = None,
    *,
    cores_per_node: int | None = None,
) -> pd.DataFrame:
    """Rows of one strong-scaling curve, sorted by processes and run.

    Parameters
    ----------
    frame : pandas.DataFrame
        A scaling frame (validated here).
    benchmark : str
        The benchmark (case-insensitive).
    problem_class : str
        Its problem class (case-insensitive).
    placement : str or None, default None
        A label of :func:`placement_labels`; None is allowed when the benchmark/class has a
        single placement.
    cores_per_node : int or None, default None
        As in :func:`list_curves`.

    Returns
    -------
    pandas.DataFrame
        Columns ``processes``, ``threads``, ``nodes``, ``run``, ``time_s`` (seconds) and
        ``source``.

    Raises
    ------
    ValidationError
        Listing what is available when nothing matches or the placement is ambiguous.
    """
    frame = _with_placement(frame, cores_per_node)
    same = (frame["benchmark"].str.lower() == str(benchmark).lower()) & (
        frame["problem_class"].str.lower() == str(problem_class).lower()
    )
    if not same.any():
        available = sorted(set(zip(frame["benchmark"], frame["problem_class"])))
        shown = ", ".join(f"{b} class {c}" for b, c in available)
        raise ValidationError(f"no data for {benchmark} class {problem_class}; available: {shown}")
    placements = sorted(frame.loc[same, "placement"].unique())
    if placement is None:
        if len(placements) > 1:
            raise ValidationError(
                f"{benchmark} class {problem_class} was measured with {len(placements)} placements "
                f"({'; '.join(placements)}); choose one of these placements"
            )
        placement = placements[0]
    elif placement not in placements:
        raise ValidationError(
            f"{benchmark} class {problem_class} has no runs with placement {placement!r}; "
            f"available: {'; '.join(placements)}"
        )
    curve = frame.loc[same & (frame["placement"] == placement),
                      ["processes", "threads", "nodes", "run", "time_s", "source"]]
    return curve.sort_values(["processes", "nodes", "threads", "run"]).reset_index(drop=True)


# ---------------------------------------------------------------------------- dispatch

def read_scaling_data(path) -> pd.DataFrame:
    """Read scaling data from a path of any supported kind (used by the dashboards).

    * a directory, or a ``.out`` / ``.log`` / ``.txt`` file: NPB logs via
      :func:`~workbench.io.read_npb_logs`;
    * a ``.csv`` file: :func:`read_scaling_csv` (time in seconds in ``time_s``);
    * anything else: :class:`~workbench.errors.DataFormatError` ("unknown file format").

    Parameters
    ----------
    path : str or os.PathLike
        The file or folder.

    Returns
    -------
    pandas.DataFrame
        A validated scaling frame (NPB-specific columns kept after the canonical ones;
        skipped logs stay in ``attrs["skipped"]``).
    """
    p = as_path(path)
    if p.suffix.lower() in NPB_SUFFIXES or (path_exists(p) and is_folder(p)):
        return validate_scaling_frame(read_npb_logs(p))
    if p.suffix.lower() == ".csv":
        return read_scaling_csv(p)
    if not path_exists(p):
        raise DataFormatError(f"{p}: cannot read file: no such file or directory")
    raise DataFormatError(
        f"{p}: unknown file format {p.suffix or '(no extension)'!r}; expected a .csv scaling table, "
        f"NPB logs (.out, .log, .txt) or a directory of logs"
    )


def read_scaling_bytes(name: str, content: bytes, unit: str | None = None) -> pd.DataFrame:
    """Read an uploaded file's ``name`` and raw ``content`` like :func:`read_scaling_data`.

    The same checks and limits as a file on disk; messages name the file ``name``.

    Parameters
    ----------
    name : str
        The file's name: its extension chooses the reader (``.csv``, or an NPB log ``.out``,
        ``.log``, ``.txt``).
    content : bytes
        The file's bytes.
    unit : {"processes", "nodes", "gpus", "cores"} or None, default None
        As in :func:`read_scaling_csv` (CSV tables only).

    Returns
    -------
    pandas.DataFrame
        A validated scaling frame.

    Raises
    ------
    DataFormatError
        An unknown extension, or content that its reader refuses.
    """
    suffix = Path(name).suffix.lower()
    if suffix == ".csv":
        return _scaling_table(decode(bytes(content), name, what=_WHAT), name, unit=unit)
    if suffix in NPB_SUFFIXES:
        record = parse_npb_bytes(bytes(content), name)
        return validate_scaling_frame(records_to_frame([record]))
    raise DataFormatError(
        f"{name}: unknown file format {suffix or '(no extension)'!r}; expected a .csv scaling table "
        f"or an NPB log (.out, .log, .txt)"
    )

