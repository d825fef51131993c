"""The ``workbench`` command (also ``python -m workbench``).

Usage::

    workbench predict RUNS.csv|RUNS.parquet --by app,machine --targets 256 512 --out preds.csv
        [--targets 2x 4x] [--targets-column COL] [--unit processes|nodes|gpus|cores]
        [--n-column nodes] [--t-column time_s] [--level 0.8] [--models adept,pmnf]
        [--efficiency 0.7] [--deadline 3600] [--scheduler tcp://HOST:8786] [--jobs N] [--resume]
    workbench benchmark CURVES.csv [--out leaderboard.csv] [--unit nodes]
    workbench serve [NOTEBOOK_DIR] [--host 127.0.0.1] [--port 8866] [...]   (workbench serve --help)

Tables on screen are for reading (units in the headers, percentages as %, whole numbers as
whole numbers); the files written keep the raw numbers.  Bad input ends with one line naming
the file, line or column, and exit status 2; notes (e.g. a damaged chunk of a resumed run)
are one line each.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

from workbench.errors import ValidationError, WorkbenchError
from workbench.validation import UNITS

__all__ = ["main"]

EXIT_BAD_INPUT = 2


def _positive(text: str) -> float:
    """Return ``text`` as a finite number > 0 (a level, an efficiency, a deadline), else an argparse error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


_PREDICT_EPILOG = """\
targets, per curve:
  --targets 256 512      the same allocations for every curve (whole numbers, in --unit)
  --targets 2x 4x        multiples of each curve's largest measured allocation
  --targets-column COL   a column of the runs table: its values on a curve's rows
A target below a curve's smallest measured allocation is refused for that curve (a row with
its reason in the 'error' column); the other curves and targets are still predicted.

examples:
  workbench predict runs.csv --by app,machine --targets 2x 4x --out preds.csv
  workbench predict runs.csv --by app --n-column nodes --unit nodes --targets 64 128 --out preds.csv

The output keeps the allocation column's name and whole numbers, and adds the cost
(<unit>_hours: allocation x predicted runtime, runtimes in seconds).
"""

_BENCHMARK_EPILOG = """\
columns of CURVES.csv (one row per measured run):
  curve_id   which curve the run belongs to (one problem, one configuration)
  n          allocation (processes, nodes, GPUs or cores: see --unit / a 'unit' column)
  time_s     runtime in seconds, > 0
  run        repetition 0, 1, 2, ... at the same n of a curve: needed when an n was
             measured more than once (optional otherwise)
  source     where the curve comes from; curves of one source are correlated (optional,
             default: one source)
  unit, app, machine, metric   optional
Each curve needs >= 4 distinct allocations (the protocols hold the largest ones back).

With >= 2 sources the calibration (intervals, warnings, the predictor's weights) is learnt on
the other sources for each held-out source (leave-one-source-out).  With one source that
cannot be done: the models' accuracy is still measured, and the intervals and warnings use
the calibration shipped with workbench, as the table's title says.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench", description="Predict how long parallel jobs take.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{predict,benchmark,serve}")

    p = commands.add_parser("predict", help="predict every curve of a job archive at target allocations",
                            description="One row per (curve, target): prediction, calibrated interval, cost,\n"
                                        "warnings.", epilog=_PREDICT_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", type=Path, help="runs table: CSV or Parquet, one row per run (repeats allowed)")
    p.add_argument("--by", required=True, help="comma-separated columns that identify a curve, e.g. app,machine")
    p.add_argument("--targets", nargs="+", default=[], metavar="TARGET",
                   help="allocations to predict: whole numbers (256 512) and/or multiples of each curve's largest "
                        "measured allocation (2x 4x)")
    p.add_argument("--targets-column", metavar="COL", help="a column of the runs table listing each curve's targets")
    p.add_argument("--out", required=True, type=Path, help="output file (.csv or .parquet)")
    p.add_argument("--unit", choices=list(UNITS),
                   help="what the allocations count, for labels and costs (default: the --n-column name if it is "
                        "one of these, else processes)")
    p.add_argument("--n-column", help="allocation column (default: the --unit name, else processes)")
    p.add_argument("--t-column", default="time_s", help="runtime column, in seconds (default time_s)")
    p.add_argument("--per-node", type=int, metavar="N",
                   help="cores (or GPUs) per node: a target needing more nodes than the runs used is warned")
    p.add_argument("--nodes-column", metavar="COL", help="a column of the nodes each run used (topology)")
    p.add_argument("--level", type=_positive, default=0.8, help="central probability of the intervals (default 0.8)")
    p.add_argument("--models", help="comma-separated models (default: all: amdahl,usl,downey-lm,adept,pmnf)")
    p.add_argument("--efficiency", type=_positive, help="add the largest allocation with parallel efficiency >= this")
    p.add_argument("--deadline", type=_positive, help="add the smallest allocation meeting this runtime (seconds)")
    p.add_argument("--scheduler", help="Dask scheduler address (tcp://HOST:8786); default: local processes")
    p.add_argument("--jobs", type=int, default=-1, help="local worker processes (default: every core)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run with the same settings")
    p.add_argument("--chunk-curves", type=int, help="curves per task (default: ~4 tasks per worker, at most 200)")
    p.add_argument("--rows", type=int, default=20, help="rows of the predictions shown on screen (default 20)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    b = commands.add_parser("benchmark", help="leaderboard of the models on your curves",
                            description="The scaling benchmark on your curve table: every model and the\n"
                                        "predictor, fitted on the smaller allocations of each curve, scored on\n"
                                        "the larger ones.", epilog=_BENCHMARK_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("curves", type=Path, help="curve table CSV (columns below)")
    b.add_argument("--unit", choices=list(UNITS), help="what n counts, for the labels (default: the table's 'unit' "
                                                       "column, else processes)")
    b.add_argument("--out", type=Path, help="also write the leaderboard as CSV (raw numbers)")
    b.add_argument("--quiet", action="store_true", help="no progress bars")

    # parsed by workbench.ui.serve (main() hands it the arguments); listed here for --help
    commands.add_parser("serve", add_help=False, help="serve the dashboards with Voila (the installed course, or "
                        "a folder of notebooks); workbench serve --help")
    return parser


def _serve(argv: list[str]) -> int:
    """``workbench serve``: the dashboards' server (:mod:`workbench.ui.serve`, needs the dashboards extra)."""
    try:
        from workbench.ui.serve import main as serve
    except ImportError as exc:
        print(f"workbench serve: the dashboards need Voila and Jupyter ({exc}); install them with "
              "pip install 'workbench[dashboards]'", file=sys.stderr)
        return EXIT_BAD_INPUT
    return serve(argv, prog="workbench serve")


def _predict(args) -> int:
    from workbench.batch import predict_many

    by = [c.strip() for c in args.by.split(",") if c.strip()]
    n_column = args.n_column or (args.unit or "processes")
    unit = args.unit or (n_column if n_column in UNITS else "processes")
    if not args.targets and not args.targets_column:
        raise WorkbenchError("no targets: give --targets (256 512, or 2x 4x of each curve's largest measured "
                             "allocation) or --targets-column")
    frame = predict_many(
        args.runs, by, args.targets or None, level=args.level,
        models=args.models, engine="dask" if args.scheduler else "joblib", n_jobs=args.jobs,
        scheduler=args.scheduler, progress=not args.quiet, out=args.out, resume=args.resume,
        chunk_curves=args.chunk_curves, n_column=n_column, t_column=args.t_column, unit=unit,
        targets_column=args.targets_column, per_node=args.per_node, nodes_column=args.nodes_column,
        efficiency=args.efficiency, deadline=args.deadline)
    one, several, cost = UNITS[unit]
    curves = len(frame.drop_duplicates(by))
    predicted = int((frame["error"] == "").sum())
    shown = max(0, args.rows)
    if shown and len(frame):
        print(_text_table(_predictions_table(frame.head(shown), by, n_column, unit, args.level)))
        if len(frame) > shown:
            print(f"... {len(frame) - shown:,} more rows in {args.out}")
    print(f"wrote {args.out}: {predicted:,} predictions for {curves:,} curves (allocations in {several}, costs in "
          f"{cost})" + (f"; {len(frame) - predicted:,} {'target' if len(frame) - predicted == 1 else 'targets'} "
                       "not predicted: see the 'error' column" if predicted < len(frame) else ""))
    return 0


def _benchmark(args) -> int:
    from workbench.evaluation.scaling_benchmark import (
        apply_calibration,
        benchmark_records,
        leaderboard,
        leave_one_source_out,
    )
    from workbench.io.curves import read_curves_csv
    from workbench.models.scaling.calibration import default_calibration

    curves = read_curves_csv(args.curves)
    units = sorted(set(curves["unit"])) if "unit" in curves.columns else []
    unit = args.unit or (units[0] if len(units) == 1 and units[0] in UNITS else "processes")
    sources = list(dict.fromkeys(curves["source"]))
    records = benchmark_records(curves, progress=not args.quiet)
    n_curves = records["curve_id"].nunique()
    results = None
    if len(sources) >= 2:
        try:
            results = leave_one_source_out(records, progress=not args.quiet)
        except ValidationError as exc:  # e.g. too few held-back predictions to learn an error model
            reason = (f"leave-one-source-out could not learn a calibration from {len(sources) - 1} of the "
                      f"{len(sources)} sources ({exc})")
        else:
            title = (f"Leaderboard: {n_curves} curves from {len(sources)} sources, calibration learnt "
                     "leave-one-source-out")
    else:
        reason = f"one source ({sources[0]}): leave-one-source-out needs >= 2"
    if results is None:
        results = apply_calibration(records, default_calibration())
        title = (f"Leaderboard: {n_curves} curves from {_sources(sources)}, calibration: the one shipped with "
                 "workbench (not held out)")
        warnings.warn(f"{reason}, so the intervals, warnings and the predictor's weights use the calibration "
                      "shipped with workbench (learnt on its own curves); the models' accuracy (PA, within 10 % / "
                      "20 %) does not depend on it", stacklevel=2)
    board = leaderboard(results)
    skipped = curves["curve_id"].nunique() - n_curves
    print(title + (f" ({skipped} curves with < 4 allocations skipped)" if skipped else "")
          + f"; allocations in {UNITS[unit][1]}")
    print(_text_table(_leaderboard_table(board)))
    if args.out:
        counts = [c for c in ("predictions", "refused", "curves") if c in board.columns]
        board.astype(dict.fromkeys(counts, "int64")).to_csv(args.out, index=False)
        print(f"wrote {args.out}")
    return 0


# ----------------------------------------------------------------------------- tables on screen

def _number(x) -> str:
    """Return a runtime or cost for reading: 3 significant digits, thousands separated, no exponent."""
    if x is None or not np.isfinite(x):
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return np.format_float_positional(x, precision=3, fractional=False, trim="-")


def _predictions_table(frame, by: list[str], n_column: str, unit: str, level: float):
    """Return batch predictions as display strings: units in the headers, whole allocations."""
    import pandas as pd

    from workbench.batch.predict import cost_column

    one, several, cost = UNITS[unit]
    out = pd.DataFrame({c: frame[c].astype(str).to_numpy() for c in by})
    out[several] = [("–" if pd.isna(v) else f"{int(v):,}") for v in frame[n_column]]
    out["runtime (s)"] = [_number(v) for v in frame["prediction"]]
    out[f"{100 * level:g} % interval (s)"] = [
        "–" if not np.isfinite(lo) else f"{_number(lo)} – {_number(hi)}" for lo, hi in zip(frame["lower"],
                                                                                        frame["upper"])]
    out[cost] = [_number(v) for v in frame[cost_column(unit)]]
    out["model"] = frame["model"].to_numpy()
    for col, header in (("efficient_n", f"efficient up to ({several})"), ("deadline_n", f"on time from ({several})")):
        if col in frame.columns and frame[col].notna().any():
            out[header] = [("–" if pd.isna(v) else f"{int(v):,}") for v in frame[col]]
    notes = []
    for error, warned, kinds in zip(frame["error"], frame["warned"], frame["warnings"]):
        label = "WARNED" if warned is True or warned == 1 else "note"  # kinds that are not a warning are notes
        text = error or (f"{label}: {kinds.replace(';', ', ')}" if kinds else "")
        notes.append(text if len(text) <= 120 else text[:119] + "…")
    out["note"] = notes
    return out


def _leaderboard_table(board):
    """Return a leaderboard as display strings: counts as whole numbers, shares in %."""
    from workbench.plots.scaling import format_leaderboard

    board = board.copy()
    for col in ("predictions", "refused", "curves"):
        if col in board.columns:
            board[col] = board[col].map(lambda v: f"{int(v):,}")
    table = format_leaderboard(board)
    if "median_width" in board.columns:  # a fold without a usable calibration gives unbounded intervals
        wide = board["median_width"].to_numpy(float) >= 1000
        table.loc[wide, "median width (upper/lower)"] = "> 1000x"
    return table.rename(columns={"fit [ms]": "fit (ms)"})


def _sources(sources: list[str]) -> str:
    return f"one source ({sources[0]})" if len(sources) == 1 else f"{len(sources)} sources"


def _text_table(frame) -> str:
    """Return a table of display strings as text: no index, words left and numbers right."""
    columns = [str(c) for c in frame.columns]
    cells = [[str(v) for v in frame[c]] for c in frame.columns]
    widths = [max([len(h), *map(len, col)]) for h, col in zip(columns, cells)]
    numeric = [all(not v or v[0].isdigit() or v[0] in "–-." for v in col) for col in cells]

    def line(values) -> str:
        return "  ".join(v.rjust(w) if right else v.ljust(w) for v, w, right in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(columns), *(line(row) for row in zip(*cells))])


def _one_line_notes(command: str):
    """Return a ``warnings.showwarning`` that prints a warning as one line naming the command."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"workbench {command}: note: {' '.join(str(message).split())}", file=sys.stderr)
    return show


def main(argv=None) -> int:
    """Run the ``workbench`` command line (``argv``: default ``sys.argv[1:]``); return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments; default None: ``sys.argv[1:]``.
    """
    if list(sys.argv[1:] if argv is None else argv)[:1] == ["serve"]:
        return _serve(list(sys.argv[1:] if argv is None else argv)[1:])
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_notes(args.command)  # a note, not a file:line and source
            return {"predict": _predict, "benchmark": _benchmark}[args.command](args)
    except WorkbenchError as exc:
        print(f"workbench {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # e.g. an output folder this user cannot write to, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"workbench {args.command}: {where}{(exc.strerror or type(exc).__name__).lower()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"workbench {args.command}: interrupted"
              + (" (continue with --resume)" if args.command == "predict" else ""), file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
