"""Predictions for whole job archives, as a scheduler needs them.

* :func:`predict_many` -- every curve of a runs table (pandas or dask DataFrame, CSV or
  Parquet file) at targets chosen per curve (whole allocations, multiples of each curve's
  largest measured allocation, or a targets column: :func:`parse_targets`), on joblib
  workers or a Dask cluster, resumable;
* :func:`recommend_allocation` -- what a scheduler asks next: the largest efficient and the
  smallest deadline-meeting allocation, with the interval's optimistic and pessimistic answer;
* the command line ``workbench predict`` (:mod:`workbench.cli`).
"""

from workbench.batch.predict import (
    BATCH_COLUMNS,
    RECOMMEND_COLUMNS,
    batch_columns,
    cost_column,
    parse_targets,
    predict_curves,
    recommend_allocation,
)
from workbench.batch.run import predict_many

__all__ = [
    "BATCH_COLUMNS",
    "RECOMMEND_COLUMNS",
    "batch_columns",
    "cost_column",
    "parse_targets",
    "predict_curves",
    "predict_many",
    "recommend_allocation",
]
