"""The ``workbench`` command (also ``python -m workbench``).

Usage::

    workbench predict RUNS.csv|RUNS.parquet --by app,machine --targets 256 512 --out preds.csv
        [--level 0.8] [--models adept,pmnf] [--efficiency 0.7] [--deadline 3600]
        [--scheduler tcp://HOST:8786] [--jobs N] [--resume] [--n-column processes] [--t-column time_s]
    workbench benchmark CURVES.csv [--out leaderboard.csv]

Bad input ends with one line naming the file, line or column, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from workbench.errors import WorkbenchError

__all__ = ["main"]

EXIT_BAD_INPUT = 2


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench", description="Predict how long parallel jobs take.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{predict,benchmark}")

    p = commands.add_parser("predict", help="predict every curve of a job archive at target allocations",
                            description="One row per (curve, target): prediction, calibrated interval, warnings.")
    p.add_argument("runs", type=Path, help="runs table: CSV or Parquet, one row per run (repeats allowed)")
    p.add_argument("--by", required=True, help="comma-separated columns that identify a curve, e.g. app,machine")
    p.add_argument("--targets", required=True, nargs="+", type=_positive, help="allocations to predict")
    p.add_argument("--out", required=True, type=Path, help="output file (.csv or .parquet)")
    p.add_argument("--level", type=_positive, default=0.8, help="central probability of the intervals (default 0.8)")
    p.add_argument("--models", help="comma-separated models (default: all: amdahl,usl,downey-lm,adept,pmnf)")
    p.add_argument("--efficiency", type=_positive, help="add the largest allocation with parallel efficiency >= this")
    p.add_argument("--deadline", type=_positive, help="add the smallest allocation meeting this runtime")
    p.add_argument("--scheduler", help="Dask scheduler address (tcp://HOST:8786); default: local processes")
    p.add_argument("--jobs", type=int, default=-1, help="local worker processes (default: every core)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run with the same settings")
    p.add_argument("--chunk-curves", type=int, help="curves per task (default: ~4 tasks per worker, at most 200)")
    p.add_argument("--n-column", default="processes", help="allocation column (default processes)")
    p.add_argument("--t-column", default="time_s", help="runtime column (default time_s)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    b = commands.add_parser("benchmark", help="leaderboard of the models on your curves, leave-one-source-out",
                            description="The scaling benchmark on a curve table (curve_id, source, n, time_s).")
    b.add_argument("curves", type=Path, help="curve table CSV (columns curve_id, source, n, time_s)")
    b.add_argument("--out", type=Path, help="also write the leaderboard as CSV")
    b.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def _predict(args) -> int:
    from workbench.batch import predict_many

    frame = predict_many(
        args.runs, [c.strip() for c in args.by.split(",") if c.strip()], args.targets, level=args.level,
        models=args.models, engine="dask" if args.scheduler else "joblib", n_jobs=args.jobs,
        scheduler=args.scheduler, progress=not args.quiet, out=args.out, resume=args.resume,
        chunk_curves=args.chunk_curves,
        n_column=args.n_column, t_column=args.t_column, efficiency=args.efficiency, deadline=args.deadline)
    curves = frame.drop_duplicates(list(frame.columns[: frame.columns.get_loc("n")]))
    failed = int((curves["error"] != "").sum())
    print(f"wrote {args.out}: {len(frame)} predictions for {len(curves)} curves"
          + (f" ({failed} could not be predicted: see the 'error' column)" if failed else ""))
    return 0


def _benchmark(args) -> int:
    from workbench.evaluation.scaling_benchmark import benchmark_records, leaderboard, leave_one_source_out
    from workbench.io.curves import read_curves_csv

    curves = read_curves_csv(args.curves)
    if "source" not in curves.columns or curves["source"].nunique() < 2:
        raise WorkbenchError(f"{args.curves}: the benchmark is leave-one-source-out: it needs a 'source' column "
                             "with at least 2 sources (curves of one source are correlated)")
    results = leave_one_source_out(benchmark_records(curves, progress=not args.quiet), progress=not args.quiet)
    board = leaderboard(results)
    print(board.to_string(index=False))
    if args.out:
        board.to_csv(args.out, index=False)
        print(f"wrote {args.out}")
    return 0


def _one_line_notes(command: str):
    """Return a ``warnings.showwarning`` that prints a warning as one line naming the command."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"workbench {command}: note: {' '.join(str(message).split())}", file=sys.stderr)
    return show


def main(argv=None) -> int:
    """Run the ``workbench`` command line (``argv``: default ``sys.argv[1:]``); return the exit status."""
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_notes(args.command)  # a note, not a file:line and source
            return {"predict": _predict, "benchmark": _benchmark}[args.command](args)
    except WorkbenchError as exc:
        print(f"workbench {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"workbench {args.command}: interrupted"
              + (" (continue with --resume)" if args.command == "predict" else ""), file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
