"""Communication-time models.

[Papadopoulou2015] descriptors and regression, [Branikas2024] statistics, semi-empirical and gradient-boosting models;
shared patterns in :mod:`workbench.models.comm.patterns`.

[Papadopoulou2015] (Papadopoulou, Goumas & Koziris), section III:

* :func:`descriptors` -- the 13 descriptive metrics (``S, M, PPN, N, I, SW, R`` in,
  ``PT, NT, V, NI, VI, SWR`` added); :func:`mapping_descriptors` -- the base metrics of a
  communication pattern and a process mapping.
* :func:`pearson_table`, :func:`correlation_matrix` -- correlations with communication time.
* :class:`AreaSplit`, :class:`CommRegression`, :func:`robust_fit`, :func:`evaluate` -- the
  robust per-area regression and its scores.

Branikas's thesis ([Branikas2024]):

* :func:`rank_statistics`, :func:`run_summary`, :func:`comm_fraction_filter` -- per-rank
  populations (chapter 4) and the 0.1 <= comm/total <= 0.8 filter (section 7.2).
* :class:`ExchangeModel`, :class:`PpnFactorModel` -- the semi-empirical Exchange model
  (chapter 6; Tables 6.1-6.4 recomputed in :mod:`workbench.evaluation.comm_ml`).
* :class:`CommGBM`, :func:`message_scale_scenario`, :func:`train_small_test_big`,
  :func:`main_scenario`, :func:`run_scenario`, :func:`inverse_mean_min_depth` -- the
  gradient-boosting scenarios and importances (chapters 7-8).

Note: ``workbench.models.comm.descriptors`` is the *function* (the external entry point);
import the module's other names with ``from workbench.models.comm.descriptors import ...``.
"""

from importlib import import_module

from workbench.models.comm.descriptors import (
    DERIVED_COLUMNS,
    DESCRIPTOR_COLUMNS,
    METRIC_COLUMNS,
    descriptors,
    mapping_descriptors,
)

# Loaded on first use: the MPI benchmarks import ``patterns`` from this package in every
# rank, and scipy.stats / scikit-learn would add seconds to each rank's start-up.
_LAZY = {
    "pearson_table": "correlation",
    "correlation_matrix": "correlation",
    "AREAS": "regression",
    "DEFAULT_TERMS": "regression",
    "AreaSplit": "regression",
    "CommRegression": "regression",
    "CommRegressionResult": "regression",
    "evaluate": "regression",
    "robust_fit": "regression",
    "rank_statistics": "statistics",
    "run_summary": "statistics",
    "comm_fraction_filter": "statistics",
    "FilterReport": "statistics",
    "ExchangeModel": "semi_empirical",
    "PpnFactorModel": "semi_empirical",
    "CommGBM": "gbm",
    "Scenario": "scenarios",
    "ScenarioResult": "gbm",
    "message_scale_scenario": "scenarios",
    "train_small_test_big": "scenarios",
    "main_scenario": "scenarios",
    "run_scenario": "gbm",
    "inverse_mean_min_depth": "gbm",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CommGBM",
    "ExchangeModel",
    "FilterReport",
    "PpnFactorModel",
    "Scenario",
    "ScenarioResult",
    "comm_fraction_filter",
    "inverse_mean_min_depth",
    "main_scenario",
    "message_scale_scenario",
    "rank_statistics",
    "run_scenario",
    "run_summary",
    "train_small_test_big",
    "AREAS",
    "DEFAULT_TERMS",
    "DERIVED_COLUMNS",
    "DESCRIPTOR_COLUMNS",
    "METRIC_COLUMNS",
    "AreaSplit",
    "CommRegression",
    "CommRegressionResult",
    "correlation_matrix",
    "descriptors",
    "evaluate",
    "mapping_descriptors",
    "pearson_table",
    "robust_fit",
]
