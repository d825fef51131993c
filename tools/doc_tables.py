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
``fim-cal``
    FiM-Cal and RBASP on the K-means runs measured here, the larger configurations held back
    (:func:`workbench.evaluation.fim.run_fim_experiment`, the comparison of dashboard 05).
``comm-regression``
    Papadopoulou et al.'s per-area robust regression on our ping-pong sweep and on the OSU
    broadcasts of ORFEO (:func:`workbench.evaluation.comm_regression.fit_and_evaluate`, dashboard 07).
``comm-gbm``
    Branikas's gradient-boosting scenarios on the OSU broadcasts and on our data-generator sweep
    beside the thesis's Tables 8.1-8.6 (:func:`workbench.evaluation.comm_ml.train_scenario`,
    dashboard 08; ~45 s of CPU, so the test does not recompute it: :data:`SLOW`).
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


def _err(x: float) -> str:
    """An error in percent as the docs print it: one decimal below 10 %, else whole percents."""
    return "-" if x != x else (f"{x:.1f} %" if x < 10 else f"{x:.0f} %")


#: What the variants of :func:`workbench.evaluation.fim.default_variants` are, for a reader of the table.
FIM_LABELS = {
    "FiM (I, K, N)": "FiM (I, K, N), as published",
    "FiM (I*N, I*K*N), U not scaled": "FiM (I*N, I*K*N), alpha not scaling U",
    "RBASP linear g": "RBASP, linear g (Eq. 17 as published)",
    "RBASP quadratic g": "RBASP, quadratic g",
    "RBASP log2 inputs": "RBASP on log2 inputs",
}


def fim_cal() -> str:
    """Dashboard 05's FiM-Cal / RBASP comparison on the measured K-means runs, as a markdown table."""
    from workbench.errors import quiet_warnings
    from workbench.evaluation.fim import run_fim_experiment
    from workbench.io import fetch_dataset

    with quiet_warnings():
        experiment = run_fim_experiment(fetch_dataset("kmeans-fim").frame)
    per_run, summary = experiment.comparison.per_run, experiment.comparison.summary
    lines = [
        f"{len(experiment.train)} training and {len(experiment.test)} test runs (configuration x process count, "
        "medians of the repeats); errors are |predicted - measured| / measured over the test runs. "
        "Made by `tools/doc_tables.py fim-cal` (`workbench.evaluation.fim.run_fim_experiment`).",
        "",
        "| model | best | average | worst | within 20 % | t <= 2 (2 cores): mean / worst | refused |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in summary.itertuples(index=False):
        mine = per_run[per_run["model"] == row.model]
        small = mine.loc[mine["processes"] <= 2, "error_pct"].dropna()
        small_text = f"{_err(small.mean())} / {_err(small.max())}" if len(small) else "-"
        within = "-" if row.within_20_pct != row.within_20_pct else f"{row.within_20_pct:.0f} %"
        refused = f"{row.missing} of {len(mine)}" if row.missing else "0"
        errors = " | ".join(_err(x) for x in (row.best_pct, row.average_pct, row.worst_pct))
        lines.append(f"| {FIM_LABELS.get(row.model, row.model)} | {errors} | {within} | {small_text} | {refused} |")
    return "\n".join(lines) + "\n"


def comm_regression() -> str:
    """Dashboard 07's regression on our sweep and on the OSU broadcasts, in-sample and held out."""
    from workbench.evaluation.comm_regression import (
        BCAST_PATTERNS,
        fit_and_evaluate,
        osu_broadcast_frame,
        pingpong_sweep,
    )
    from workbench.io import fetch_dataset
    from workbench.models.comm import AreaSplit

    sweep = pingpong_sweep()
    osu = fetch_dataset("osu-orfeo").frame
    cases = [(f"our ping-pong sweep (`comm-pingpong-local`, {len(sweep)} rows, "
              f"{sweep['processes'].min():g}-{sweep['processes'].max():g} processes, one node)", sweep, how, "bisquare")
             for how in ("all", "random", "scale")]
    cases.append(("same, ordinary least squares instead of the robust fit", sweep, "all", "ols"))
    for mapping, algorithm in (("core", 2), ("core", 1), ("node", 6), ("node", 5)):
        frame = osu_broadcast_frame(osu, mapping, algorithm)
        label = f"OSU broadcast, ORFEO, `--map-by {mapping}`, {BCAST_PATTERNS[algorithm].replace('_', ' ')}"
        cases += [(label, frame, how, "bisquare") for how in ("all", "scale")]
    lines = [
        "MAPE in percent; R2 of the predicted against the measured times. Made by `tools/doc_tables.py "
        "comm-regression` (`workbench.evaluation.comm_regression.fit_and_evaluate`, default area split and "
        "terms).",
        "",
        "| data | evaluation | MAPE | within +-30 % | R2 |",
        "|---|---|---|---|---|",
    ]
    for label, frame, how, robust in cases:
        result, text, _ = fit_and_evaluate(frame, AreaSplit(), robust=robust, how=how)
        o = result.overall()
        lines.append(f"| {label} | {text} | {o['mape']:.0f} % | {100 * o['share_within_30']:.0f} % | {o['r2']:.2f} |")
    return "\n".join(lines) + "\n"


def comm_gbm() -> str:
    """Dashboard 08's gradient-boosting scenarios beside the thesis's tables, as a markdown table."""
    from workbench.evaluation.comm_ml import SCENARIOS, compare_with_tables8, load_datagen, model_frame, train_scenario
    from workbench.io import fetch_dataset

    datagen = model_frame("datagen", load_datagen())
    sources = {"OSU broadcast (ORFEO)": model_frame("osu", fetch_dataset("osu-orfeo").frame),
               "our data generator": datagen}
    lines = [
        "Gradient boosting (default search: 6 candidates x 3 folds) per scenario; MAPE as the thesis's "
        f"fraction; the thesis's numbers are for its data generator on ARIS. Our data generator's sweep: "
        f"{datagen.attrs.get('filter', '').strip(' ()')}. Made by `tools/doc_tables.py "
        "comm-gbm` (`workbench.evaluation.comm_ml.train_scenario`, `compare_with_tables8`).",
        "",
        "| data | scenario | subset (thesis's) | R2 | MAPE | thesis R2 / MAPE |",
        "|---|---|---|---|---|---|",
    ]
    for label, frame in sources.items():
        for scenario in reversed(SCENARIOS):  # main first, as the thesis
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = train_scenario("osu" if label.startswith("OSU") else "datagen", scenario, frame)
            for row in compare_with_tables8(result.metrics).itertuples(index=False):
                lines.append(f"| {label} | {scenario.replace('_', ' ')} | {row.subset} ({row.published_subset}) "
                             f"| {row.r2:.3f} | {row.mape_fraction:.3f} "
                             f"| {row.published_r2:.3f} / {row.published_mape_fraction:.3f} |")
    return "\n".join(lines) + "\n"


#: Tables too slow to recompute in the test suite (tests/test_readme_examples.py): name -> why.
SLOW = {"comm-gbm": "six randomised searches of gradient boosting, ~45 s of CPU"}

#: Table name -> function returning the block's markdown (ending with a newline).
TABLES: dict[str, Callable[[], str]] = {"holdout": holdout, "fim-cal": fim_cal, "comm-regression": comm_regression,
                                        "comm-gbm": comm_gbm}


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
