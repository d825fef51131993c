"""Predictions for whole job archives, as a scheduler needs them.

* :func:`predict_many` -- every curve of a runs table (pandas or dask DataFrame, CSV or
  Parquet file) at the given targets, on joblib workers or a Dask cluster, resumable;
* :func:`recommend_allocation` -- what a scheduler asks next: the largest efficient and the
  smallest deadline-meeting allocation, with the interval's optimistic and pessimistic answer;
* the command line ``workbench predict`` (:mod:`workbench.cli`).
"""

from workbench.batch.predict import BATCH_COLUMNS, RECOMMEND_COLUMNS, predict_curves, recommend_allocation
from workbench.batch.run import predict_many

__all__ = ["BATCH_COLUMNS", "RECOMMEND_COLUMNS", "predict_curves", "predict_many", "recommend_allocation"]
