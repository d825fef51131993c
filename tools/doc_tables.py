"""Write the documentation's result tables from the code that computes them (no number typed by hand).

    WORKBENCH_DATA_MIRROR=../shared/data .venv/bin/python tools/doc_tables.py [NAME ...]

Each table NAME of :data:`TABLES` is written between ``<!-- doc-table:NAME:begin -->`` and
``<!-- doc-table:NAME:end -->`` in whichever of README.md and docs/**/*.md holds those markers
(tools/readme_block.py).  Without NAMEs every table is rewritten.  ``tests/test_readme_examples.py``
checks that each block holds what its function returns today.

``holdout``
    ADEPT and its baselines on the Raspberry Pi cluster's NPB curves, the 3 or 4 smallest
    allocations observed (:func:`workbench.evaluation.holdout.holdout_table`, the table
    dashboard 02 shows under "Accuracy on real curves").
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from readme_block import write_readme_block  # noqa: E402  (tools/, this script's folder)


def _pct(x: float) -> str:
    return f"{x:.0f} %"


def holdout() -> str:
    """The held-back evaluation of dashboard 02 as a markdown table and one sentence."""
    from workbench.evaluation.holdout import holdout_summary, holdout_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = holdout_table(n_observed=(3, 4))
    summary = holdout_summary(table)
    curves = table.groupby(["benchmark", "problem_class", "placement"]).ngroups
    held = int(summary["predictions"].iloc[0] + summary["refused"].iloc[0])
    lines = [
        f"{curves} curves, the 3 or 4 smallest allocations observed, {held} held-back predictions per model; "
        "PA = 100 % - |error| (refused predictions are not scored). Made by `tools/doc_tables.py holdout` "
        "(`workbench.evaluation.holdout`).",
        "",
        "| model | predictions (refused) | mean PA | median PA | within 30 % | misses > 30 % | misses warned "
        "| predictions warned |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in summary.itertuples(index=False):
        warns = row.model.startswith("ADEPT")
        scored, refused, misses, warned = (int(x) for x in (row.predictions, row.refused, row.misses,
                                                            row.misses_warned))
        lines.append(
            f"| {row.model} | {scored} ({refused}) | {_pct(row.mean_PA)} | {_pct(row.median_PA)} "
            f"| {_pct(100 * row.within_30pct)} | {misses} of {scored} "
            f"| {f'{warned} of {misses}' if warns else '(no warnings)'} "
            f"| {_pct(100 * row.warned_share_of_all) if warns else '–'} |")
    return "\n".join(lines) + "\n"


#: Table name -> function returning the block's markdown (ending with a newline).
TABLES: dict[str, Callable[[], str]] = {"holdout": holdout}


def markers(name: str) -> tuple[str, str]:
    """The begin and end markers of table ``name``."""
    return f"<!-- doc-table:{name}:begin -->", f"<!-- doc-table:{name}:end -->"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"tables to rewrite (default: all of {', '.join(TABLES)})")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.names) - set(TABLES))
    if unknown:
        ap.error(f"no table {', '.join(unknown)}; the tables are {', '.join(TABLES)}")
    for name in args.names or TABLES:
        path = write_readme_block(*markers(name), TABLES[name]())
        print(f"wrote {name} into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
