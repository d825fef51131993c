"""Gradient-boosting models of communication time ([Branikas2024] chapters 7-8).

The thesis trains hyper-parameter-tuned gradient-boosted trees (TF-DF / YDF) on the
filtered per-run means of its data generator (section 7.2: features working-set size,
computational load type, message size, number of messages, nodes, processes per node;
target the communication time) in three scenarios (section 7.3), each with a 60/40
train/test split:

* **message scale** -- two models, one on the small messages (``[1, 5, 10] x
  sqrt(WSS)``), one on the large ones (``[50, 100] x sqrt(WSS)``): Table 8.1;
* **train small / test big** -- trained on 4, 8, 16 nodes, tested on the held-out 40 %
  of those and on every run with 32 and 64 nodes: Table 8.3;
* **main** -- one model on everything: Table 8.5.

Here the scenarios are data (:class:`Scenario`: which rows train which model and which
subsets test it), built by :func:`message_scale_scenario`, :func:`train_small_test_big`
and :func:`main_scenario` with the varying column and its values as parameters, so the
same code runs on the thesis's layout, on our single-node sweeps (where ``ppn`` or
``processes`` varies) and on OSU broadcast latencies (``processes``).  The split is by
*configuration* when ``group_by`` names the feature columns: repeated runs of one
configuration never sit on both sides.

:class:`CommGBM` is the estimator: scikit-learn's ``GradientBoostingRegressor`` (exact
greedy splits on the raw values, like YDF's GBT; ``estimators_`` hold plain trees for
:func:`inverse_mean_min_depth`) tuned by a randomised search with k-fold cross-validation
over :meth:`CommGBM.search_space`.  Chosen by measurement on the OSU broadcast data
(6 027 configurations <= 64 cores, 300 trees of depth 4): ``GradientBoostingRegressor``
0.6 s per fit vs 0.45 s for ``HistGradientBoostingRegressor`` with the same accuracy, and
a **log target** (``log_target=True``, the default) cut the held-out MAPE from 100 % to
9 % and raised R2 from 0.97 to 0.99, because the times span four decades; the search
minimises the cross-validated RMSE of the (log) target, i.e. the relative error.

Feature importances ([Branikas2024] section 7.1, Tables 8.2/8.4/8.6):

* :func:`inverse_mean_min_depth` -- YDF's ``INV_MEAN_MIN_DEPTH``: ``1 / (1 + d)`` where
  ``d`` is the mean, over trees and over every root-to-leaf path of a tree (leaves
  weighted equally), of the depth of the first node splitting on the feature (root = 0;
  a path that never splits on it counts its full length).  This is YDF's
  ``StructureMeanMinDepth``/``AddMinimumDepthPerPath`` (yggdrasil_decision_forests,
  model/decision_tree/decision_tree.cc), computed level by level over the arrays of all
  trees at once; :func:`mean_min_depth_reference` is the literal per-path recursion,
  kept for tests and the benchmark.  Features no tree splits on get NaN (YDF omits them).
* permutation importance (:func:`sklearn.inspection.permutation_importance`): the drop
  in R2 on a held-out subset when the feature's values are shuffled.

:func:`run_scenario` fits every model of a scenario and returns a
:class:`ScenarioResult`: tidy metrics per test subset (R2, RMSE, MAPE in percent *and*
as the thesis's fraction, MPE, share within +-30 %), predictions, importances, the best
hyper-parameters and warnings.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.inspection import permutation_importance
from sklearn.model_selection import KFold, ParameterSampler

from workbench.errors import ValidationError
from workbench.metrics import ERROR_BAND, mape, mpe, r2, rmse, share_within
from workbench.models.comm.scenarios import (
    TEST_SIZE,
    Scenario,
    ScenarioModel,
    Subset,
    main_scenario,
    message_scale_scenario,
    split_rows,
    train_small_test_big,
)
from workbench.validation import check_fitted

__all__ = [
    "FEATURES",
    "TARGET",
    "TEST_SIZE",
    "BAND_PCT",
    "Subset",
    "ScenarioModel",
    "Scenario",
    "ScenarioResult",
    "CommGBM",
    "message_scale_scenario",
    "train_small_test_big",
    "main_scenario",
    "split_rows",
    "run_scenario",
    "subset_metrics",
    "inverse_mean_min_depth",
    "mean_min_depth_reference",
]

#: [Branikas2024] section 7.2's features, named as in the data-generator frame (COMM_SCHEMA).
FEATURES = ("wss_bytes", "load", "message_bytes", "messages", "nodes", "ppn")
#: The target: per-run mean communication time over ranks (s).
TARGET = "comm_s"
#: The error band of the prediction-vs-actual plots and of ``within_30``, percent (``metrics.ERROR_BAND``).
BAND_PCT = ERROR_BAND.value

ProgressCallback = Callable[[int, int], None]


# ----------------------------------------------------------------------------- estimator


def _bounds(value, name: str, integer: bool) -> tuple:
    """``(lo, hi)`` from a number or a pair, validated."""
    lo, hi = (value, value) if np.isscalar(value) else tuple(value)
    ok = all(isinstance(v, (int, np.integer)) if integer else np.isfinite(v) for v in (lo, hi)) and 0 < lo <= hi
    if not ok:
        kind = "integers" if integer else "numbers"
        raise ValidationError(f"CommGBM: {name} must be positive {kind} or a pair lo <= hi of them, got {value!r}")
    return lo, hi


def _categories(values: pd.Series, column, where: str) -> list:
    """Sorted distinct values of a non-numeric feature (mixed types: by type name, then text)."""
    try:
        distinct = values.dropna().unique().tolist()
    except TypeError:  # unhashable values (lists, dicts)
        raise ValidationError(f"{where}: feature {column!r} holds values that are neither numbers nor labels "
                              f"(e.g. {values.iloc[0]!r})") from None
    try:
        return sorted(distinct)
    except TypeError:  # e.g. numbers and text in one column
        return sorted(distinct, key=lambda v: (type(v).__name__, repr(v)))


class CommGBM(RegressorMixin, BaseEstimator):
    """Gradient-boosted trees with a randomised hyper-parameter search ([Branikas2024] section 7.1).

    Parameters
    ----------
    n_iter : int, default 6
        Candidates drawn from :meth:`search_space` (``ParameterSampler``).
    cv : int, default 3
        Folds of the cross-validation scoring each candidate (shuffled ``KFold``).
    learning_rate : float or (float, float), default (0.03, 0.3)
        Range searched: a number fixes the value, a pair ``(lo, hi)`` draws it log-uniformly.
    max_depth : int or (int, int), default (2, 5)
        Range searched: a number fixes the value, a pair draws it uniformly among the integers.
    n_estimators : int or (int, int), default (100, 300)
        Range searched, as ``max_depth``.
    log_target : bool, default True
        Fit ``log(y)`` and predict ``exp`` of it (needs ``y > 0``); the search then scores
        relative errors.  See the module docstring for the measurement behind the default.
    random_state : int, default 0
        Seeds the candidates, the folds and the trees' row subsampling.

    Attributes
    ----------
    best_estimator_ : sklearn.ensemble.GradientBoostingRegressor
        The best candidate refitted on all rows.
    best_params_ : dict
        Its parameters.
    cv_results_ : pandas.DataFrame
        One row per candidate: its parameters, ``mean_rmse``, ``std_rmse`` over folds on the
        fitted scale, ``rank``.
    feature_names_in_ : ndarray of str
        The feature columns, in order.
    categories_ : dict of str -> list
        Column -> sorted category values of the non-numeric features (encoded as their position).
    fit_seconds_ : float
        Wall time of :meth:`fit`.

    Notes
    -----
    The search is ``RandomizedSearchCV``'s (same sampler, folds and refit) written out, so
    that :meth:`fit` can report progress after every fold: ``progress(done, total)`` is
    called ``n_iter * cv + 1`` times; ``None`` shows a ``tqdm.auto`` bar, ``False``
    nothing.  An exception raised by ``progress`` aborts the fit (a dashboard cancelling
    a stale request).
    """

    #: Values searched for the parameters without a control.
    MIN_SAMPLES_LEAF = (1, 2, 4, 8)
    SUBSAMPLE = (0.7, 0.85, 1.0)

    def __init__(self, n_iter: int = 6, cv: int = 3, learning_rate=(0.03, 0.3), max_depth=(2, 5),
                 n_estimators=(100, 300), log_target: bool = True, random_state: int = 0):
        self.n_iter = n_iter
        self.cv = cv
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.n_estimators = n_estimators
        self.log_target = log_target
        self.random_state = random_state

    def search_space(self) -> dict:
        """Return the distributions of the randomised search (``ParameterSampler`` form)."""
        lr = _bounds(self.learning_rate, "learning_rate", integer=False)
        depth = _bounds(self.max_depth, "max_depth", integer=True)
        trees = _bounds(self.n_estimators, "n_estimators", integer=True)
        return {
            "learning_rate": [lr[0]] if lr[0] == lr[1] else stats.loguniform(*lr),
            "max_depth": list(range(depth[0], depth[1] + 1)),
            "n_estimators": [trees[0]] if trees[0] == trees[1] else stats.randint(trees[0], trees[1] + 1),
            "min_samples_leaf": list(self.MIN_SAMPLES_LEAF),
            "subsample": list(self.SUBSAMPLE),
        }

    # -- encoding -----------------------------------------------------------------
    def _encode(self, X: pd.DataFrame, fitting: bool) -> np.ndarray:
        where = "CommGBM.fit" if fitting else "CommGBM.predict"
        if not isinstance(X, pd.DataFrame):
            raise ValidationError(f"{where}: X must be a pandas DataFrame of features, got {type(X).__name__}")
        repeated = X.columns[X.columns.duplicated()].unique().tolist()
        if repeated:
            raise ValidationError(f"{where}: feature column(s) {repeated} appear more than once; column names must be "
                                  "unique")
        if fitting:
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
            self.categories_ = {c: _categories(X[c], c, where) for c in X.columns
                                if not pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c])}
        missing = [c for c in self.feature_names_in_ if c not in X.columns]
        if missing:
            raise ValidationError(f"{where}: missing feature column(s) {missing}")
        if X.empty:
            raise ValidationError(f"{where}: no rows")
        columns = []
        for c in self.feature_names_in_:
            values = X[c]
            if values.isna().any():
                i = int(np.flatnonzero(values.isna().to_numpy())[0])
                raise ValidationError(f"{where}: feature {c!r} is missing in row {i} (index {X.index[i]})")
            if c in self.categories_:
                codes = pd.Index(self.categories_[c]).get_indexer(values)
                if (codes < 0).any():
                    bad = values[codes < 0].iloc[0]
                    raise ValidationError(f"{where}: feature {c!r} has the value {bad!r}, unseen in training "
                                          f"({self.categories_[c]})")
                columns.append(codes.astype(float))
            else:
                column = values.to_numpy(dtype=float)
                # the trees compare features as float32: beyond its range they become infinite
                bad = ~np.isfinite(column) | (np.abs(column) > np.finfo(np.float32).max)
                if bad.any():
                    i = int(np.flatnonzero(bad)[0])
                    raise ValidationError(f"{where}: feature {c!r} must be finite and within +-3.4e38 (the trees "
                                          f"store features as float32), got {column[i]} in row {i}")
                columns.append(column)
        return np.column_stack(columns)

    def _target(self, y) -> np.ndarray:
        try:
            y = np.asarray(y, dtype=float).ravel()
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"CommGBM.fit: the target y must be numbers, one per row ({exc})") from None
        bad = ~np.isfinite(y)
        if bad.any():
            raise ValidationError(f"CommGBM.fit: the target must be finite, got {y[bad][0]} in row "
                                  f"{int(np.flatnonzero(bad)[0])}")
        # squared errors of the boosting must stay finite (any y > 0 works with log_target)
        bad = (np.abs(y) > 1e150) & (not self.log_target)
        if bad.any():
            raise ValidationError(f"CommGBM.fit: without log_target the target must lie within +-1e150, got "
                                  f"{y[bad][0]} in row {int(np.flatnonzero(bad)[0])}")
        if self.log_target and np.any(y <= 0):
            i = int(np.flatnonzero(y <= 0)[0])
            raise ValidationError(f"CommGBM.fit: log_target needs a target > 0, got {y[i]} in row {i}")
        return np.log(y) if self.log_target else y

    # -- fit / predict ------------------------------------------------------------
    def fit(self, X: pd.DataFrame, y, progress: ProgressCallback | bool | None = None) -> CommGBM:
        """Search the hyperparameters by cross-validation, refit the best on ``X``, ``y``; return self.

        Parameters
        ----------
        X : pandas.DataFrame
            Features, one row per measurement.
        y : array-like of float
            Target (communication time) per row.
        progress : callable, None or False, optional
            ``progress(done, total)`` over the search's folds; default None: a progress bar;
            False: silent.
        """
        start = time.perf_counter()
        for name, minimum in (("n_iter", 1), ("cv", 2)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
                raise ValidationError(f"CommGBM: {name} must be an integer >= {minimum}, got {value!r}")
        space = self.search_space()
        Xe = self._encode(X, fitting=True)
        yt = self._target(y)
        if yt.size != Xe.shape[0]:
            raise ValidationError(f"CommGBM.fit: {Xe.shape[0]} feature rows but {yt.size} target values")
        configurations = np.unique(Xe, axis=0).shape[0]
        if configurations < 2:
            raise ValidationError(f"CommGBM.fit: the training rows hold {configurations} configuration of the "
                                  f"features {list(self.feature_names_in_)}; a model needs at least 2")
        if yt.size < 2 * self.cv:
            raise ValidationError(f"CommGBM.fit: {yt.size} training rows are too few for {self.cv}-fold "
                                  f"cross-validation (need at least {2 * self.cv})")
        candidates = list(ParameterSampler(space, self.n_iter, random_state=self.random_state))
        folds = list(KFold(self.cv, shuffle=True, random_state=self.random_state).split(Xe))
        total = len(candidates) * len(folds) + 1
        report, bar = self._progress(progress, total)
        try:
            scores = np.empty((len(candidates), len(folds)))
            for i, params in enumerate(candidates):
                for j, (tr, va) in enumerate(folds):
                    model = self._regressor(params).fit(Xe[tr], yt[tr])
                    scores[i, j] = np.sqrt(np.mean((model.predict(Xe[va]) - yt[va]) ** 2))
                    report(i * len(folds) + j + 1, total)
            mean = scores.mean(axis=1)
            best = int(np.argmin(mean))
            self.best_params_ = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in candidates[best].items()}
            self.best_estimator_ = self._regressor(self.best_params_).fit(Xe, yt)
            report(total, total)
        finally:
            if bar is not None:
                bar.close()
        self.cv_results_ = pd.DataFrame(candidates).assign(
            mean_rmse=mean, std_rmse=scores.std(axis=1), rank=pd.Series(mean).rank(method="min").astype(int))
        self.n_features_in_ = Xe.shape[1]
        self.fit_seconds_ = time.perf_counter() - start
        self.warnings_ = []  # every model has warnings_; this fit has none to give
        return self

    def _regressor(self, params: dict) -> GradientBoostingRegressor:
        return GradientBoostingRegressor(random_state=self.random_state, **params)

    @staticmethod
    def _progress(progress, total: int):
        if progress is False:
            return (lambda done, total: None), None
        if progress is None:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc="gradient boosting search", leave=False)

            def report(done, total):
                bar.update(done - bar.n)

            return report, bar
        if not callable(progress):
            raise ValidationError(f"CommGBM.fit: progress must be callable, None or False, got {progress!r}")
        return progress, None

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Predicted target for the feature frame ``X``.

        Parameters
        ----------
        X : pandas.DataFrame
            The feature columns, as in :meth:`fit`.
        """
        check_fitted(self, "best_estimator_", "CommGBM.predict", fit="fit(X, y)")
        pred = self.best_estimator_.predict(self._encode(X, fitting=False))
        return np.exp(pred) if self.log_target else pred


# ----------------------------------------------------------------------------- importances


def _trees(model) -> list:
    """Return the sklearn ``Tree`` objects of ``model``.

    A tree is anything with ``children_left``, ``children_right`` and ``feature``.
    """
    if isinstance(model, CommGBM):
        if not hasattr(model, "best_estimator_"):
            raise ValidationError("inverse_mean_min_depth: the CommGBM is not fitted")
        model = model.best_estimator_
    if hasattr(model, "children_left"):
        return [model]
    if hasattr(model, "tree_"):
        return [model.tree_]
    if hasattr(model, "estimators_"):
        return [e.tree_ for e in np.ravel(np.asarray(model.estimators_, dtype=object))]
    if isinstance(model, (list, tuple)) and model:
        return [t for m in model for t in _trees(m)]
    raise ValidationError(f"inverse_mean_min_depth: expected a fitted tree ensemble (estimators_), a tree or "
                          f"a CommGBM, got {type(model).__name__}")


def _importance_frame(names, depth: np.ndarray, used: np.ndarray) -> pd.DataFrame:
    inv = np.where(used, 1.0 / (1.0 + depth), np.nan)
    return pd.DataFrame({"feature": list(names), "mean_min_depth": depth, "inv_mean_min_depth": inv, "used": used})


def _names(model, feature_names, n_features: int | None) -> list[str]:
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None:
        if n_features is None:
            raise ValidationError("inverse_mean_min_depth: give feature_names (the model does not record them)")
        feature_names = [f"x{i}" for i in range(n_features)]
    return [str(n) for n in feature_names]


def inverse_mean_min_depth(model, feature_names: Sequence[str] | None = None) -> pd.DataFrame:
    """YDF's ``INV_MEAN_MIN_DEPTH`` of a fitted tree ensemble (see the module docstring).

    ``model``: a :class:`CommGBM`, a scikit-learn tree ensemble (``estimators_``), a tree
    (``tree_``) or a list of tree-like objects.  Vectorised: every tree's arrays are
    concatenated and walked one depth level at a time (a loop over levels, not nodes).

    Returns one row per feature: ``feature``, ``mean_min_depth`` (``d``),
    ``inv_mean_min_depth`` (``1 / (1 + d)``; NaN for a feature no node splits on) and
    ``used`` (bool), in the order of ``feature_names``.

    Parameters
    ----------
    model : CommGBM or tree ensemble
        A fitted :class:`CommGBM`, scikit-learn tree ensemble, tree, or list of trees.
    feature_names : sequence of str, optional
        Names of the features in column order; default: the model's own names.
    """
    trees = _trees(model)
    names = _names(model, feature_names, getattr(model, "n_features_in_", None))
    n_features = len(names)
    sizes = np.array([len(t.children_left) for t in trees])
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    shift = np.repeat(offsets, sizes)
    left, right = (np.concatenate([np.asarray(getattr(t, side)) for t in trees]).astype(np.int64)
                   for side in ("children_left", "children_right"))
    left, right = np.where(left >= 0, left + shift, -1), np.where(right >= 0, right + shift, -1)
    feature = np.concatenate([np.asarray(t.feature) for t in trees]).astype(np.int64)
    internal = left >= 0
    if internal.any() and (feature[internal].min() < 0 or feature[internal].max() >= n_features):
        raise ValidationError(f"inverse_mean_min_depth: the trees split on feature indices up to "
                              f"{feature[internal].max()}, but {n_features} feature names were given")
    # Walk all trees one level at a time, carrying for every node of the frontier the
    # depth of each feature's first split above it (the path length, ``level``, where
    # there is none yet); a leaf's row is then its path's min depth per feature.
    tree_of_node = np.repeat(np.arange(len(trees)), sizes)
    frontier, level = offsets, 0
    above = np.full((frontier.size, n_features), np.iinfo(np.int64).max, dtype=np.int64)
    leaf_nodes, leaf_depths = [], []
    while frontier.size:
        split = internal[frontier]
        leaf_nodes.append(frontier[~split])
        leaf_depths.append(np.minimum(above[~split], level))
        parents, above = frontier[split], above[split]
        rows, f = np.arange(parents.size), feature[parents]
        above[rows, f] = np.minimum(above[rows, f], level)
        frontier, above = np.concatenate([left[parents], right[parents]]), np.concatenate([above, above])
        level += 1
    leaves = np.concatenate(leaf_nodes)
    order = np.argsort(leaves, kind="stable")  # group the leaves by tree
    per_leaf = np.concatenate(leaf_depths)[order]
    tree_of_leaf = tree_of_node[leaves[order]]
    starts = np.flatnonzero(np.r_[True, np.diff(tree_of_leaf) != 0])
    per_tree = np.add.reduceat(per_leaf, starts, axis=0) / np.diff(np.r_[starts, leaves.size])[:, None]
    used = np.bincount(feature[internal], minlength=n_features)[:n_features] > 0
    return _importance_frame(names, per_tree.mean(axis=0), used)


def mean_min_depth_reference(model, feature_names: Sequence[str] | None = None) -> pd.DataFrame:
    """Compute :func:`inverse_mean_min_depth` by a literal transcription of YDF's algorithm.

    YDF's recursive ``AddMinimumDepthPerPath``: a Python walk of every root-to-leaf path.
    Slow; for tests and ``bench/test_bench_comm.py``.

    Parameters
    ----------
    model : CommGBM or tree ensemble
        A fitted :class:`CommGBM`, scikit-learn tree ensemble, tree, or list of trees.
    feature_names : sequence of str, optional
        Names of the features in column order; default: the model's own names.
    """
    trees = _trees(model)
    names = _names(model, feature_names, getattr(model, "n_features_in_", None))
    total = np.zeros(len(names))
    used = np.zeros(len(names), dtype=bool)

    for tree in trees:
        left, right, feature = tree.children_left, tree.children_right, tree.feature
        sums = np.zeros(len(names))
        leaves = 0

        def walk(node: int, path: list[int]) -> None:
            nonlocal leaves
            if left[node] < 0:
                leaves += 1
                for f in range(len(names)):
                    sums[f] += path.index(f) if f in path else len(path)
                return
            used[feature[node]] = True
            walk(left[node], path + [int(feature[node])])
            walk(right[node], path + [int(feature[node])])

        walk(0, [])
        total += sums / (leaves * len(trees))
    return _importance_frame(names, total, used)


# ----------------------------------------------------------------------------- running


def subset_metrics(y_true, y_pred, pct: float = BAND_PCT) -> dict[str, float]:
    """Return the scores of one test subset ([Branikas2024] section 5.2, via :mod:`workbench.metrics`).

    ``n``, ``r2``, ``rmse`` (target unit), ``mape_pct``, ``mape_fraction`` (the thesis's
    Tables 8.x print MAPE as a fraction: 0.239 = 23.9 %), ``mpe_pct`` (signed, positive =
    over-prediction: the thesis's section 5.2 uses the opposite sign) and ``within_30``
    (share of predictions within +-``pct`` %).  R2 is NaN below 2 points.  Arguments in
    scikit-learn's order: measured ``y_true`` first, like every metric.

    Parameters
    ----------
    y_true : array-like of float
        Measured values.
    y_pred : array-like of float
        Predicted values, same length.
    pct : float, default 30.0
        Half-width of the error band of ``within_30``, in percent (``ERROR_BAND``).
    """
    p = np.asarray(y_pred, dtype=float)
    a = np.asarray(y_true, dtype=float)
    m = mape(a, p)
    return {"n": int(a.size), "r2": r2(a, p) if a.size >= 2 else np.nan, "rmse": rmse(a, p), "mape_pct": m,
            "mape_fraction": m / 100.0, "mpe_pct": mpe(a, p), f"within_{pct:g}": share_within(a, p, pct)}


@dataclass(frozen=True)
class ScenarioResult:
    """Everything :func:`run_scenario` found.

    * ``metrics``: one row per (model, subset): ``scenario``, ``model``, ``subset``,
      ``published_subset`` (row of the seed Tables 8.x, or None), then the columns of
      :func:`subset_metrics`.
    * ``predictions``: one row per tested row: ``model``, ``subset``, ``row`` (index label
      in the input frame), the features, ``actual``, ``predicted`` (target unit),
      ``error_pct`` (signed, ``100 (predicted - actual) / actual``).
    * ``importances``: one row per (model, feature): ``inv_mean_min_depth``,
      ``mean_min_depth``, ``used``, ``permutation_mean``, ``permutation_std`` (drop of R2
      on the model's first test subset when the feature is shuffled).
    * ``best_params``, ``cv_results``, ``fit_seconds``, ``models``: per model name.
    * ``warnings``: what limits the result (constant features, test values outside the
      training range, tiny subsets); ``column``: the scenario's defining column.
    """

    scenario: str
    description: str
    features: tuple[str, ...]
    target: str
    metrics: pd.DataFrame
    predictions: pd.DataFrame
    importances: pd.DataFrame
    best_params: dict[str, dict]
    cv_results: dict[str, pd.DataFrame]
    fit_seconds: dict[str, float]
    models: dict[str, CommGBM] = field(repr=False)
    warnings: list[str] = field(default_factory=list)
    column: str | None = None


def _scenario_warnings(frame: pd.DataFrame, features: Sequence[str], model: ScenarioModel) -> list[str]:
    out = []
    train = frame.loc[model.train]
    constant = [f for f in features if train[f].nunique() < 2]
    if constant:
        out.append(f"{model.name}: feature(s) {constant} take a single value in the training rows and carry no "
                   "information")
    for subset in model.tests:
        rows = frame.loc[subset.index]
        for f in features:
            if pd.api.types.is_numeric_dtype(frame[f]) and not pd.api.types.is_bool_dtype(frame[f]):
                lo, hi = train[f].min(), train[f].max()
                outside = (rows[f] < lo) | (rows[f] > hi)
                if outside.any():
                    out.append(f"{model.name} on {subset.name}: {int(outside.sum())} of {len(rows)} rows have {f} "
                               f"outside the training range [{lo:g}, {hi:g}]; trees predict there as at the edge "
                               "(no extrapolation)")
        if len(rows) < 2:
            out.append(f"{model.name} on {subset.name}: {len(rows)} row(s), R2 undefined")
    return out


def _importances(model, first: pd.DataFrame, features: list, target: str, repeats: int, seed) -> pd.DataFrame:
    """Inverse mean minimal depth of ``model`` and its permutation importance on the test rows ``first``."""
    depth = inverse_mean_min_depth(model, features)
    if len(first) >= 2:
        perm = permutation_importance(model, first[features], first[target].to_numpy(dtype=float),
                                      n_repeats=repeats, random_state=seed)
        depth["permutation_mean"], depth["permutation_std"] = perm.importances_mean, perm.importances_std
    else:
        depth["permutation_mean"] = depth["permutation_std"] = np.nan
    return depth


def run_scenario(frame: pd.DataFrame, scenario: Scenario, *, features: Sequence[str] = FEATURES,
                 target: str = TARGET, estimator: CommGBM | None = None, permutation_repeats: int = 5,
                 progress: ProgressCallback | bool | None = None) -> ScenarioResult:
    """Fit a clone of ``estimator`` per model of ``scenario`` and score it on its test subsets.

    Each clone is fitted on its training rows of ``frame``.  Raises a ValidationError for a
    missing feature or target column, NaN targets, too few training rows or configurations.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements.
    scenario : Scenario
        The models and their train/test rows (e.g. :func:`main_scenario`).
    features : sequence of str, default FEATURES
        Feature columns.
    target : str, default "comm_s"
        Target column.
    estimator : CommGBM, optional
        Estimator cloned per model; default ``CommGBM()``.
    permutation_repeats : int, default 5
        Repeats of the permutation importance.
    progress : callable, None or False, optional
        ``progress(done, total)`` over the folds of every model's search (see
        :meth:`CommGBM.fit`); default None: a tqdm bar; False: silent.
    """
    where = f"run_scenario ({getattr(scenario, 'name', scenario)!r})"
    if not isinstance(scenario, Scenario):
        raise ValidationError(f"{where}: expected a Scenario (message_scale_scenario, ...), got "
                              f"{type(scenario).__name__}")
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    features = list(features)
    missing = [c for c in [*features, target] if c not in frame.columns]
    if missing:
        raise ValidationError(f"{where}: missing column(s) {missing}; the frame has {list(frame.columns)}")
    template = estimator if estimator is not None else CommGBM()
    per_model = template.n_iter * template.cv + 1 if isinstance(template.n_iter, int) and isinstance(
        template.cv, int) else 1
    grand_total = per_model * len(scenario.models)
    report, bar = CommGBM._progress(progress, grand_total)

    metrics, predictions, importances, warnings = [], [], [], []
    models, best, cv_results, seconds = {}, {}, {}, {}
    try:
        for k, spec in enumerate(scenario.models):
            if len(spec.train) == 0:
                raise ValidationError(f"{where}: model {spec.name!r} has an empty training set")
            train = frame.loc[spec.train]
            offset = k * per_model
            model = clone(template).fit(train[features], train[target],
                                        progress=lambda done, total, o=offset: report(o + done, grand_total))
            models[spec.name], best[spec.name] = model, model.best_params_
            cv_results[spec.name], seconds[spec.name] = model.cv_results_, model.fit_seconds_
            warnings += _scenario_warnings(frame, features, spec)
            for subset in spec.tests:
                rows = frame.loc[subset.index]
                actual = rows[target].to_numpy(dtype=float)
                pred = model.predict(rows[features])
                metrics.append({"scenario": scenario.name, "model": spec.name, "subset": subset.name,
                                "published_subset": subset.published, **subset_metrics(actual, pred)})
                predictions.append(rows[features].assign(
                    model=spec.name, subset=subset.name, row=rows.index.to_numpy(), actual=actual, predicted=pred,
                    error_pct=100.0 * (pred - actual) / actual))
            importances.append(_importances(model, frame.loc[spec.tests[0].index], features, target,
                                            permutation_repeats, template.random_state).assign(model=spec.name))
    finally:
        if bar is not None:
            bar.close()
    order = ["model", "subset", "row", *features, "actual", "predicted", "error_pct"]
    return ScenarioResult(
        scenario=scenario.name, description=scenario.description, features=tuple(features), target=target,
        metrics=pd.DataFrame(metrics),
        predictions=pd.concat(predictions, ignore_index=True)[order],
        importances=pd.concat(importances, ignore_index=True)[
            ["model", "feature", "inv_mean_min_depth", "mean_min_depth", "used", "permutation_mean",
             "permutation_std"]],
        best_params=best, cv_results=cv_results, fit_seconds=seconds, models=models, warnings=warnings,
        column=scenario.column,
    )
