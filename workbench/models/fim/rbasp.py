"""RBASP, the regression baseline FiM is compared with.

[Barnes2008], as in [Bhimani2019] section 4.1, Eq. 17.

``log2(y) = beta_0 + beta_1 x_1 + ... + beta_n x_n + g(q)``, with ``g`` linear
(``gamma_1 q``) or quadratic (``gamma_1 q + gamma_2 q^2``) in the process count q, fitted
by least squares on runs at ``q in train_processes`` (paper: {1, 2, 4}) and extrapolated
to larger process counts and new application parameters.  ``log_features=True`` uses
``log2`` of the application parameters and of q instead (a power-law variant; the
paper's Eq. 17 is linear in the raw values, the default).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from workbench.errors import ValidationError
from workbench.models.fim.calibration import feature_columns, feature_matrix
from workbench.validation import check_fitted, numeric_columns

__all__ = ["RBASP"]


class RBASP(BaseEstimator):
    """Eq. 17 as a scikit-learn style estimator on a tidy runs frame.

    Fitted: ``coef_`` (Series: ``intercept``, the features, ``q`` and for a quadratic
    ``g`` also ``q^2``), ``residual_std_`` (standard deviation of the log2 residuals),
    ``train_rows_`` (number of runs used).

    Parameters
    ----------
    features : sequence of str, default ("iterations", "clusters", "points")
        Application-parameter columns (``"a*b"`` for a product).
    g : {"linear", "quadratic"}, default "linear"
        Form of the process-count term of Eq. 17.
    train_processes : sequence of int, default (1, 2, 4)
        Process counts of the runs fitted on.
    log_features : bool, default False
        Use log2 of the features and of the process count.
    target : str, default "calc_time_s"
        Measured time column, seconds.
    """

    def __init__(self, features=("iterations", "clusters", "points"), g="linear", train_processes=(1, 2, 4),
                 log_features=False, target="calc_time_s"):
        self.features = features
        self.g = g
        self.train_processes = train_processes
        self.log_features = log_features
        self.target = target

    def _design(self, frame: pd.DataFrame, where: str) -> np.ndarray:
        frame = numeric_columns(frame, feature_columns(self.features) + ["processes"], where)
        x = feature_matrix(frame, self.features)
        q = frame["processes"].to_numpy(dtype=float)
        if self.log_features:
            if np.any(x[:, 1:] <= 0) or np.any(q <= 0):
                raise ValidationError(f"{where}: log_features=True needs positive features and process counts")
            x[:, 1:] = np.log2(x[:, 1:])
            q = np.log2(q)
        cols = [x, q[:, None]]
        if self.g == "quadratic":
            cols.append(q[:, None] ** 2)
        return np.hstack(cols)

    def fit(self, frame: pd.DataFrame) -> RBASP:
        """Fit Eq. 17 to the runs ``frame`` by least squares on log2 times; return self.

        Parameters
        ----------
        frame : pandas.DataFrame
            Runs with the feature columns, ``processes`` and the target.
        """
        where = "RBASP.fit"
        if self.g not in ("linear", "quadratic"):
            raise ValidationError(f"{where}: g must be 'linear' or 'quadratic', got {self.g!r}")
        frame = numeric_columns(frame, [self.target, "processes"], where)
        rows = frame[frame["processes"].isin(list(self.train_processes))]
        q_seen = sorted(rows["processes"].unique())
        need_q = 2 if self.g == "linear" else 3
        if len(q_seen) < need_q:
            raise ValidationError(
                f"{where}: a {self.g} g(q) needs runs at >= {need_q} distinct process counts out of "
                f"{list(self.train_processes)}; found {q_seen}"
            )
        y = rows[self.target].to_numpy(dtype=float)
        if np.any(y <= 0):
            raise ValidationError(f"{where}: {self.target!r} must be > 0 to take log2")
        x = self._design(rows, where)
        if len(rows) < x.shape[1] or np.linalg.matrix_rank(x) < x.shape[1]:
            raise ValidationError(
                f"{where}: {len(rows)} training run(s) at q in {list(self.train_processes)} cannot determine "
                f"{x.shape[1]} coefficients; vary every feature of {list(self.features)} in the training runs"
            )
        scale = np.abs(x).max(axis=0)
        scale[scale == 0] = 1.0
        beta = np.linalg.lstsq(x / scale, np.log2(y), rcond=None)[0] / scale
        names = ["intercept", *self.features, "q"] + (["q^2"] if self.g == "quadratic" else [])
        self.coef_ = pd.Series(beta, index=names)
        self.residual_std_ = float(np.std(np.log2(y) - x @ beta))
        self.train_rows_ = len(rows)
        self.warnings_ = []  # every model has warnings_; this fit has none to give
        return self

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Predicted time per row, in the unit of the training target (seconds).

        Parameters
        ----------
        frame : pandas.DataFrame
            Rows with the feature columns and ``processes``.
        """
        check_fitted(self, "coef_", "RBASP.predict", fit="fit(frame)")
        with np.errstate(over="ignore", invalid="ignore"):
            pred = np.exp2(self._design(frame, "RBASP.predict") @ self.coef_.to_numpy())
        bad = ~np.isfinite(pred)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValidationError(f"RBASP.predict: the predicted time of row {i} is beyond the float range (its "
                                  "features or process count are far outside the training runs)")
        return pred
