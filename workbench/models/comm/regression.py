"""Robust per-area regression of communication time on descriptive metrics.

The metrics and areas of [Papadopoulou2015] section III.C and Fig. 2.

The paper's procedure:

1. **Area split** (:class:`AreaSplit`): the log-scale scatter plot of node traffic ``NT``
   against time has two slopes, so the data are split at ``NT = 128 KiB`` into Area I
   (``NT <= 128 kB``) and Area II (``NT > 128 kB``); inside Area I the message size
   splits again at ``S = 4 KiB``: Area Ia (``S <= 4 kB``) and Ib (``S > 4 kB``).  Both
   thresholds are parameters here.
2. **Model forms** per area with "selected variables and interaction terms"; the paper
   does not list them, so :data:`DEFAULT_TERMS` are ours (chosen and explained there).
3. **Robust multiple regression** per area ("Linear Model class available in Matlab
   R2013a ... to deal with heteroskedastic errors and influential outliers"): Matlab's
   ``fitlm(..., 'RobustOpts', 'on')`` defaults to iteratively re-weighted least squares
   with Tukey's bisquare weights, tuning constant 4.685, residuals adjusted for leverage
   and scaled by the MAD; :func:`robust_fit` re-implements that algorithm (``robustfit``'s
   ``statrobustfit``), and offers Huber weights (tuning 1.345) and plain least squares.

:class:`CommRegression` is a scikit-learn style estimator over a frame of the seven base
metrics (``S, M, PPN, N, I, SW, R``; the derived ones are computed); :func:`evaluate`
turns its predictions into data -- a predictions frame and metrics per area and overall
from :mod:`workbench.metrics` (MAPE in percent, the share within +-30 %, ...),
beside the paper's 29 % mean error and 60 % of predictions within +-30 %
(:data:`PUBLISHED`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, emit_warnings
from workbench.metrics import ERROR_BAND, summarize
from workbench.models.comm.correlation import TARGET
from workbench.models.comm.descriptors import DESCRIPTOR_COLUMNS, METRIC_COLUMNS, descriptors
from workbench.validation import FittedState, check_fitted, numeric_column

__all__ = [
    "AREAS",
    "DEFAULT_TERMS",
    "PUBLISHED",
    "ROBUST_LOSSES",
    "AreaSplit",
    "CommRegression",
    "CommRegressionResult",
    "RobustFit",
    "evaluate",
    "metrics_by_area",
    "comm_times",
    "robust_fit",
    "term_values",
]

#: Area labels in the paper's order (Fig. 2 (a)-(c)).
AREAS = ("Ia", "Ib", "II")
#: Robust losses of :func:`robust_fit`: name -> default tuning constant (Matlab's, 95 %
#: efficiency under normal errors); ``"ols"`` is ordinary least squares.
ROBUST_LOSSES = {"bisquare": 4.685, "huber": 1.345, "ols": None}
#: The paper's overall result on 3D-Jacobi and 3D-advection, 16-8192 processes (section IV):
#: mean absolute relative error and share of predictions within +-30 %.
PUBLISHED = {"mape": 29.0, "share_within_30": 0.60}

#: Default model form per area (terms are metric names or products ``"A:B"``; an intercept
#: is always fitted).  The paper names no model form, so these follow its reading of the
#: areas and were checked on our data (ping-pong sweep and OSU broadcast):
#:
#: * **Ia** (low node traffic, small messages): latency bound -- time grows with the number
#:   of messages a process and a node must issue (``M``, ``NI``) and the processes sharing
#:   a node (``PPN``); ``S:M`` keeps the (small) per-byte cost.
#: * **Ib** (low node traffic, large messages): bandwidth bound on the process's own link
#:   -- process traffic ``PT = S*M`` and what the node injects (``NT``); ``PT:PPN`` is the
#:   contention of the processes sharing the node's memory and network interface (which
#:   is what the paper's "local contention" of ``PT`` refers to).
#: * **II** (high node traffic): congestion -- node traffic ``NT`` (the paper's best single
#:   correlate), total volume ``V``, their growth with processes per node ``NT:PPN``, and
#:   ``PT`` for the intra-node share of the traffic.
DEFAULT_TERMS: dict[str, tuple[str, ...]] = {
    "Ia": ("M", "NI", "PPN", "S:M"),
    "Ib": ("PT", "NT", "PT:PPN"),
    "II": ("NT", "V", "NT:PPN", "PT"),
}


# ----------------------------------------------------------------------------- areas


@dataclass(frozen=True)
class AreaSplit:
    """[Papadopoulou2015]'s area split (section III.C) with its thresholds as parameters.

    Area ``"Ia"``: ``NT <= nt_threshold_bytes`` and ``S <= s_threshold_bytes``; ``"Ib"``:
    ``NT <= nt_threshold_bytes`` and ``S > s_threshold_bytes``; ``"II"``:
    ``NT > nt_threshold_bytes``.  Defaults: the paper's 128 kB and 4 kB, read as KiB.
    """

    nt_threshold_bytes: float = 128 * 1024
    s_threshold_bytes: float = 4 * 1024

    def __post_init__(self):
        for name in ("nt_threshold_bytes", "s_threshold_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(value) or value < 0:
                raise ValidationError(f"AreaSplit: {name} must be a finite number >= 0, got {value!r}")

    def labels(self, frame: pd.DataFrame) -> np.ndarray:
        """Return the area (``"Ia"``, ``"Ib"`` or ``"II"``) of every row of ``frame``.

        Needs ``S`` and ``NT``, e.g. from
        :func:`~workbench.models.comm.descriptors.descriptors`.

        Parameters
        ----------
        frame : pandas.DataFrame
            Configurations with the columns ``S`` and ``NT`` (bytes).
        """
        nt = numeric_column(frame, "NT", "AreaSplit.labels")
        s = numeric_column(frame, "S", "AreaSplit.labels")
        return np.where(nt > self.nt_threshold_bytes, "II", np.where(s > self.s_threshold_bytes, "Ib", "Ia"))

    def describe(self) -> dict[str, str]:
        """Human-readable rule of each area."""
        nt, s = _bytes(self.nt_threshold_bytes), _bytes(self.s_threshold_bytes)
        return {"Ia": f"NT <= {nt}, S <= {s}", "Ib": f"NT <= {nt}, S > {s}", "II": f"NT > {nt}"}


def _bytes(value: float) -> str:
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if value >= size:
            return f"{value / size:g} {unit}"
    return f"{value:g} B"


def term_values(frame: pd.DataFrame, term: str) -> np.ndarray:
    """Return the values of a model term.

    A term is a metric column (``"NT"``) or a product of metrics (``"NT:PPN"``, any number
    of factors).

    Parameters
    ----------
    frame : pandas.DataFrame
        Configurations with the metric columns.
    term : str
        A metric column (``"NT"``) or a product of them (``"NT:PPN"``).
    """
    factors = [f.strip() for f in str(term).split(":")]
    unknown = [f for f in factors if f not in METRIC_COLUMNS]
    if unknown or not factors:
        raise ValidationError(f"model term {term!r}: unknown metric(s) {unknown}; terms are metrics of "
                              f"{list(METRIC_COLUMNS)} or products such as 'NT:PPN'")
    return np.prod([numeric_column(frame, f, f"model term {term!r}") for f in factors], axis=0)


# ------------------------------------------------------------------- robust fitting


@dataclass(frozen=True)
class RobustFit:
    """Result of :func:`robust_fit` on the original (unscaled) terms.

    ``intercept``, ``coef`` (one per column), ``stderr`` (of ``coef``; approximate: the
    robust scale times the square root of the diagonal of ``(X' W X)^-1``, not Matlab's
    sandwich estimate), ``intercept_stderr``, ``weights`` (final IRLS weight per point, 0 =
    rejected outlier; 1 everywhere for ``"ols"``), ``scale`` (robust residual scale
    ``MAD / 0.6745`` of the leverage-adjusted residuals; RMS for ``"ols"``), ``n_iter``,
    ``converged``.
    """

    intercept: float
    coef: np.ndarray
    stderr: np.ndarray
    intercept_stderr: float
    weights: np.ndarray
    scale: float
    n_iter: int
    converged: bool


def _madsigma(r: np.ndarray, rank: int) -> float:
    # Matlab's madsigma: the median of the n - p + 1 largest absolute residuals / 0.6745
    # (the p - 1 smallest are zero-ish by construction of a p-parameter fit)
    rs = np.sort(np.abs(r))
    return float(np.median(rs[max(0, rank - 1):]) / 0.6745)


def _weights(u: np.ndarray, loss: str) -> np.ndarray:
    a = np.abs(u)
    if loss == "bisquare":
        return np.where(a < 1, (1 - u**2) ** 2, 0.0)
    return 1.0 / np.maximum(1.0, a)  # huber


def _robust_inputs(X, y, loss: str, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Return ``X`` as a (points, terms) float array and ``y`` as a float vector, checked.

    Raises a ValidationError for an unknown ``loss``, non-numeric or mismatched arrays, fewer
    points than coefficients, and values that are not finite or lie beyond +-1e150.
    """
    if loss not in ROBUST_LOSSES:
        raise ValidationError(f"{where}: loss must be one of {list(ROBUST_LOSSES)}, got {loss!r}")
    try:
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: X (points x terms) and y must be numeric arrays ({exc})") from None
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] != y.size:
        raise ValidationError(f"{where}: X must be (points, terms) with one row per y, got {X.shape} and {y.size}")
    n, k = X.shape
    p = k + 1
    if n < p:
        raise ValidationError(f"{where}: {p} coefficients need at least {p} points, got {n}")
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise ValidationError(f"{where}: X and y must be finite")
    # squares and standard deviations of the terms must stay finite
    for name, values in (("X", X), ("y", y)):
        big = np.abs(values) > 1e150
        if big.any():
            i = tuple(int(j) for j in np.unravel_index(int(np.flatnonzero(big)[0]), values.shape))
            raise ValidationError(f"{where}: {name} must lie within +-1e150, got {name}{list(i)} = "
                                  f"{values[i]:g}: rescale the terms or the times")
    return X, y


def _scaled_design(X: np.ndarray, where: str):
    """Return the design ``[1, (X - mean) / sd]``, ``mean``, ``sd`` and the leverage adjustment.

    The adjustment ``1 / sqrt(1 - h)`` of each point's residual uses its leverage ``h``
    capped at 0.9999.  Raises a ValidationError for constant or collinear columns.
    """
    n, k = X.shape
    p = k + 1
    mean = X.mean(axis=0)
    sd = X.std(axis=0)
    if (sd == 0).any():
        raise ValidationError(f"{where}: column(s) {np.flatnonzero(sd == 0).tolist()} are constant; drop them")
    Z = np.column_stack([np.ones(n), (X - mean) / sd])
    q, r_ = np.linalg.qr(Z)
    if np.linalg.matrix_rank(r_) < p:
        raise ValidationError(f"{where}: the terms are collinear (rank {np.linalg.matrix_rank(r_)} < {p}); drop some")
    h = np.minimum(0.9999, np.sum(q**2, axis=1))
    adjust = 1.0 / np.sqrt(1.0 - h)
    return Z, mean, sd, adjust


def _irls(Z, y, b, adjust, loss: str, tune, max_iter: int, where: str):
    """Iterate re-weighted least squares from the coefficients ``b`` (the steps of :func:`robust_fit`).

    Returns ``(b, w, scale, n_iter, converged)``: the last coefficients and weights, the
    robust scale of the final residuals, the iterations run and whether the coefficients
    settled.  Raises a ValidationError for a ``tune`` that is not > 0.
    """
    n, p = Z.shape
    tune = ROBUST_LOSSES[loss] if tune is None else float(tune)
    if not np.isfinite(tune) or tune <= 0:
        raise ValidationError(f"{where}: tune must be > 0, got {tune!r}")
    tiny = 1e-6 * np.std(y, ddof=1) if n > 1 else 0.0
    tiny = tiny if tiny > 0 else 1.0
    tol = np.sqrt(np.finfo(float).eps)
    w = np.ones(n)
    n_iter, converged = 0, False
    for n_iter in range(1, max_iter + 1):
        radj = (y - Z @ b) * adjust
        s = max(_madsigma(radj, p), tiny)
        w = _weights(radj / (s * tune), loss)
        sw = np.sqrt(w)
        b_old, b = b, np.linalg.lstsq(Z * sw[:, None], y * sw, rcond=None)[0]
        if np.all(np.abs(b - b_old) <= tol * np.maximum(np.abs(b), np.abs(b_old))):
            converged = True
            break
    scale = max(_madsigma((y - Z @ b) * adjust, p), tiny)
    return b, w, scale, n_iter, converged


def _unscaled_coefficients(Z, w, b, scale, mean, sd):
    """Return the intercept, coefficients and their standard errors on the terms' original scale.

    The standard errors are approximate: ``scale^2 (Z' W Z)^-1`` with the weights of the
    last iteration, NaN when that matrix is singular (every point rejected).
    """
    p = Z.shape[1]
    zw = Z * w[:, None]
    try:
        cov = scale**2 * np.linalg.inv(Z.T @ zw)
        se_z = np.sqrt(np.clip(np.diag(cov), 0, None))
    except np.linalg.LinAlgError:  # every point rejected in a degenerate case
        cov, se_z = None, np.full(p, np.nan)
    coef = b[1:] / sd
    intercept = float(b[0] - np.sum(coef * mean))
    stderr = se_z[1:] / sd
    if cov is not None:  # the intercept of the unscaled terms is a linear combination
        g = np.r_[1.0, -mean / sd]
        intercept_se = float(np.sqrt(max(g @ cov @ g, 0.0)))
    else:
        intercept_se = float("nan")
    return intercept, coef, stderr, intercept_se


def robust_fit(X, y, loss: str = "bisquare", tune: float | None = None, max_iter: int = 50) -> RobustFit:
    """Fit the robust linear regression ``y ~ 1 + X`` by iteratively re-weighted least squares.

    The algorithm of Matlab's ``robustfit`` / ``fitlm(..., 'RobustOpts', 'on')`` that
    [Papadopoulou2015] used.

    Each iteration: residuals ``r`` adjusted for leverage (``r / sqrt(1 - h)``, ``h``
    capped at 0.9999), scale ``s = MAD / 0.6745`` of the adjusted residuals (median of the
    ``n - p + 1`` largest, Matlab's ``madsigma``, floored at ``1e-6 * std(y)`` so a perfect
    fit of most points still rejects the others), weights ``w(r_adj / (tune * s))`` --
    bisquare ``(1 - u^2)^2`` for ``|u| < 1`` else 0, Huber ``min(1, 1/|u|)`` -- and a
    weighted least-squares refit; stop when no coefficient changes by more than
    ``sqrt(eps)`` relative, or after ``max_iter`` iterations (``converged`` False).  Starts
    from ordinary least squares, which is also the answer for ``loss="ols"``.

    The columns are centred and scaled internally (the metrics span 1 .. 1e10 bytes), so
    the fit is well conditioned; the result is on the original scale.  ``X`` must have
    full column rank (drop constant or collinear terms first, as :class:`CommRegression`
    does).

    Parameters
    ----------
    X : array-like of float, shape (n, k)
        Regressors (full column rank).
    y : array-like of float, shape (n,)
        Response.
    loss : {"bisquare", "huber", "ols"}, default "bisquare"
        Weight function of the re-weighting; "ols" is ordinary least squares.
    tune : float, optional
        Tuning constant; default: Matlab's for ``loss`` (4.685 bisquare, 1.345 Huber).
    max_iter : int, default 50
        Largest number of re-weighting iterations.
    """
    where = "robust_fit"
    X, y = _robust_inputs(X, y, loss, where)
    n, k = X.shape
    p = k + 1
    Z, mean, sd, adjust = _scaled_design(X, where)
    b = np.linalg.lstsq(Z, y, rcond=None)[0]
    if loss != "ols":
        b, w, scale, n_iter, converged = _irls(Z, y, b, adjust, loss, tune, max_iter, where)
    else:
        w, n_iter, converged = np.ones(n), 0, True
        dof = max(n - p, 1)
        scale = float(np.sqrt(np.sum((y - Z @ b) ** 2) / dof))
    intercept, coef, stderr, intercept_se = _unscaled_coefficients(Z, w, b, scale, mean, sd)
    return RobustFit(intercept, coef, stderr, intercept_se, w, float(scale), n_iter, converged)


# --------------------------------------------------------------------- estimator


@dataclass(frozen=True)
class _AreaModel:
    """One area's fitted model: the terms kept, the fit, and where it was fitted."""

    terms: tuple[str, ...]
    fit: RobustFit
    source: str  # "area" (own points) or "pooled" (fallback: all training points)
    n_points: int
    dropped: tuple[str, ...] = ()


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without ``attrs``.

    Pandas deep-copies them on every column access, which made a fit on a sweep with its
    run facts attached ~30 times slower.
    """
    frame.attrs = {}
    return frame


def _configurations(frame: pd.DataFrame) -> int:
    return int(frame[list(DESCRIPTOR_COLUMNS)].drop_duplicates().shape[0])


def comm_times(frame: pd.DataFrame, y=None, where: str = "CommRegression.fit") -> np.ndarray:
    """Return the measured communication times of ``frame``'s rows, checked (the models' target).

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements, one row each.
    y : str, array-like or None, default None
        The times: a column of ``frame`` by name, one value per row, or None for the column
        :data:`~workbench.models.comm.correlation.TARGET`.
    where : str, default "CommRegression.fit"
        The caller named in error messages.

    Returns
    -------
    numpy.ndarray
        One float per row, each finite and > 0 (the unit of ``y``, µs for the target column).

    Raises
    ------
    ValidationError
        The column is missing or repeated, ``y`` has another length than ``frame`` or uneven
        nesting, or a time is not a finite number > 0 (naming the row).
    """
    if y is None or isinstance(y, str):
        column = y or TARGET
        if column not in frame.columns:
            raise ValidationError(f"{where}: no target given and no column {column!r} in the frame; pass y "
                                  "(communication times, µs) or a column name")
        raw = frame[column]
        if isinstance(raw, pd.DataFrame):
            raise ValidationError(f"{where}: the target column {column!r} appears {raw.shape[1]} times; column "
                                  "names must be unique")
        name = f"column {column!r}"
    else:
        try:
            raw = pd.Series(np.asarray(y).reshape(-1) if np.ndim(y) else [y])
        except (TypeError, ValueError):  # ragged nested sequences
            raise ValidationError(f"{where}: y must be one communication time per row (a flat sequence), got "
                                  f"{type(y).__name__} of uneven nesting") from None
        name = "y"
    try:
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    except (TypeError, ValueError):  # e.g. a categorical, or nested sequences in y
        values = pd.to_numeric(pd.Series(np.asarray(raw, dtype=object).reshape(-1)), errors="coerce").to_numpy(
            dtype=float)
    if values.size != len(frame):
        raise ValidationError(f"{where}: y has {values.size} values for {len(frame)} rows")
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{where}: communication times ({name}) must be finite numbers, got "
                              f"{raw.iloc[i]!r} in row {i}")
    if (values <= 0).any():
        i = int(np.flatnonzero(values <= 0)[0])
        raise ValidationError(f"{where}: communication times ({name}) must be > 0, got {values[i]:g} in row {i}")
    return values


class CommRegression(FittedState, BaseEstimator):
    """[Papadopoulou2015]'s communication-time model: one robust linear regression per area.

    Parameters
    ----------
    split : AreaSplit, default AreaSplit()
        The area thresholds (the paper's NT 128 KiB, S 4 KiB).
    terms : mapping of str -> sequence of str, default None
        Model form per area (metric names or products ``"A:B"``); areas not given use
        :data:`DEFAULT_TERMS`.  An intercept is always fitted.
    robust : {"bisquare", "huber", "ols"}, default "bisquare"
        The loss: bisquare is Matlab's default, what the paper used.
    min_points_per_area : int or None, default None
        Fewest training points for an area to get its own fit (None: ``2 * (terms + 1)``).
        Below it -- or when the area has no training points at all, e.g. when only small
        runs are used for training -- the area is predicted by a **pooled fallback**: the
        same terms fitted robustly on *all* training points.  Each fallback is recorded in
        ``warnings_`` (a :class:`~workbench.errors.ModelWarning` of kind ``pooled-fallback``; a
        dropped term gives ``terms-dropped``) and emitted as a :class:`~workbench.errors.WorkbenchWarning`.

    Notes
    -----
    Within an area, terms that do not vary (e.g. ``NT = 0`` when every message stays on
    its node) or that are collinear with earlier terms (``V = NT * N`` at fixed ``N``)
    cannot be estimated: they are dropped (coefficient 0, noted in ``coef_``) -- the
    intercept or the kept term carries their effect.

    Attributes
    ----------
    coef_ : pandas.DataFrame
        One row per area and term (``"(intercept)"`` first): ``area``, ``term``, ``coef``
        (µs per unit of the term when y is in µs), ``stderr`` (approximate, see
        :class:`RobustFit`), ``source`` (``"area"``/``"pooled"``), ``note``.
    areas_ : tuple of str
        The areas fitted on their own points.
    n_points_ : dict of str -> int
        Training points per area (all three areas).
    models_ : dict of str -> RobustFit
        The fitted model per area.
    warnings_ : list of ModelWarning
        What the fit noticed (areas with too few points, dropped terms).
    n_configurations_ : int
        Distinct descriptor rows in the training data.
    """

    #: the fitted attribute that marks a fit (:class:`~workbench.validation.FittedState`)
    fitted_attribute = "models_"

    def __init__(self, split: AreaSplit = AreaSplit(), terms: Mapping[str, Sequence[str]] | None = None,
                 robust: str = "bisquare", min_points_per_area: int | None = None):
        self.split = split
        self.terms = terms
        self.robust = robust
        self.min_points_per_area = min_points_per_area

    # --------------------------------------------------------------- validation
    def _area_terms(self) -> dict[str, tuple[str, ...]]:
        given = dict(self.terms or {})
        unknown = sorted(set(given) - set(AREAS))
        if unknown:
            raise ValidationError(f"CommRegression: terms for unknown area(s) {unknown}; areas are {list(AREAS)}")
        out = {}
        for area in AREAS:
            chosen = tuple(given.get(area, DEFAULT_TERMS[area]))
            if not chosen:
                raise ValidationError(f"CommRegression: area {area} needs at least one term")
            for term in chosen:  # check the names now, not at the first predict
                unknown = [f for f in str(term).split(":") if f.strip() not in METRIC_COLUMNS]
                if unknown:
                    raise ValidationError(f"CommRegression: area {area} term {term!r} has unknown metric(s) {unknown};"
                                          f" terms are metrics of {list(METRIC_COLUMNS)} or products such as 'NT:PPN'")
            out[area] = chosen
        return out

    # --------------------------------------------------------------------- fit
    def fit(self, frame: pd.DataFrame, y=None) -> CommRegression:
        """Fit every area's model.

        Parameters
        ----------
        frame : pandas.DataFrame
            The base metrics ``S, M, PPN, N, I, SW, R`` per measurement.
        y : array-like, str or None, default None
            Communication times, or the name of their column; None: the column ``comm_time_us``.

        Returns
        -------
        self
        """
        if self.robust not in ROBUST_LOSSES:
            raise ValidationError(f"CommRegression: robust must be one of {list(ROBUST_LOSSES)}, got {self.robust!r}")
        if not isinstance(self.split, AreaSplit):
            raise ValidationError(f"CommRegression: split must be an AreaSplit, got {type(self.split).__name__}")
        area_terms = self._area_terms()
        data = _plain(descriptors(frame))
        if len(data) == 0:
            raise ValidationError("CommRegression.fit: the frame is empty (no measurements)")
        target = comm_times(data, y)
        configs = _configurations(data)
        if configs < 2:
            raise ValidationError(
                f"CommRegression.fit needs at least 2 distinct configurations (rows of {', '.join(DESCRIPTOR_COLUMNS)})"
                f" to relate time to the metrics, got {configs} in {len(data)} row(s): a sweep with one "
                "configuration only measures its spread"
            )
        labels = self.split.labels(data)
        self.models_, self.warnings_ = {}, []
        self.n_points_ = {a: int(np.sum(labels == a)) for a in AREAS}
        self.n_configurations_ = configs
        for area in AREAS:
            mask = labels == area
            terms = area_terms[area]
            need = self.min_points_per_area if self.min_points_per_area is not None else 2 * (len(terms) + 1)
            model, problem = None, ""
            if mask.sum() < need:
                problem = f"{int(mask.sum())} training point(s) < {need}"
            else:
                model, problem = self._fit_area(data[mask], target[mask], terms, "area")
            if model is None:
                pooled, pooled_problem = self._fit_area(data, target, terms, "pooled")
                if pooled is None:
                    raise ValidationError(
                        f"CommRegression.fit: area {area} cannot be fitted ({problem}) and the pooled fallback "
                        f"with terms {list(terms)} fails too ({pooled_problem}); it needs at least "
                        f"{len(terms) + 1} distinct configurations where these terms vary, got {configs} "
                        "configurations in all"
                    )
                message = (f"area {area} ({self.split.describe()[area]}): {problem}; predicted by the pooled "
                           f"fallback (terms {list(pooled.terms)} fitted on all {len(data)} training points)")
                self.warnings_.append(ModelWarning("pooled-fallback", message))
                model = pooled
            if model.dropped:
                self.warnings_.append(ModelWarning("terms-dropped", f"area {area}: term(s) {list(model.dropped)} "
                                                   "dropped (constant or collinear in the training points)"))
            self.models_[area] = model
        self.areas_ = tuple(a for a in AREAS if self.models_[a].source == "area")
        self.coef_ = self._coef_frame()
        emit_warnings(self.warnings_)
        return self

    def _fit_area(self, data: pd.DataFrame, y: np.ndarray, terms: Sequence[str], source: str):
        """Fit one area; returns ``(model, "")`` or ``(None, reason)``."""
        columns, kept, dropped = [], [], []
        for term in terms:
            x = term_values(data, term)
            trial = np.column_stack([np.ones(len(x)), *columns, x])
            # keep a term only if it adds a direction: constant and collinear terms cannot be estimated
            centred = trial - trial.mean(axis=0)
            centred[:, 0] = 1.0
            scale = np.abs(centred).max(axis=0)
            scale[scale == 0] = 1.0
            if np.all(np.isfinite(centred)) and \
                    np.linalg.matrix_rank(centred / scale, tol=1e-10 * len(x)) == trial.shape[1]:
                columns.append(x)
                kept.append(term)
            else:
                dropped.append(term)
        X = np.column_stack(columns) if columns else np.empty((len(data), 0))
        distinct = _configurations(data)
        if distinct < len(kept) + 1:
            return None, f"{distinct} distinct configuration(s) < {len(kept) + 1} coefficients"
        if not kept:
            # nothing varies: the model is the robust location (a constant)
            fit = _constant_fit(y, self.robust)
        else:
            fit = robust_fit(X, y, loss=self.robust)
        if not (np.isfinite(fit.intercept) and np.all(np.isfinite(fit.coef))):
            return None, f"the fit of {list(kept)} has no finite coefficients (times or terms out of range)"
        return _AreaModel(tuple(kept), fit, source, int(len(y)), tuple(dropped)), ""

    def _coef_frame(self) -> pd.DataFrame:
        rows = []
        for area in AREAS:
            m = self.models_[area]
            note = "pooled fallback" if m.source == "pooled" else ""
            rows.append(dict(area=area, term="(intercept)", coef=m.fit.intercept, stderr=m.fit.intercept_stderr,
                             source=m.source, note=note))
            for term, c, se in zip(m.terms, m.fit.coef, m.fit.stderr):
                rows.append(dict(area=area, term=term, coef=float(c), stderr=float(se), source=m.source, note=note))
            for term in m.dropped:
                rows.append(dict(area=area, term=term, coef=0.0, stderr=np.nan, source=m.source,
                                 note="dropped: constant or collinear in the training points"))
        return pd.DataFrame(rows, columns=["area", "term", "coef", "stderr", "source", "note"])

    # ----------------------------------------------------------------- predict
    def areas(self, frame: pd.DataFrame) -> np.ndarray:
        """Return the area of every row of ``frame`` under this model's split.

        Parameters
        ----------
        frame : pandas.DataFrame
            The base metrics ``S, M, PPN, N, I, SW, R`` per measurement.
        """
        return self.split.labels(descriptors(frame))

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Predicted communication time of every row (unit of the training ``y``).

        Parameters
        ----------
        frame : pandas.DataFrame
            The base metrics ``S, M, PPN, N, I, SW, R`` per measurement.
        """
        check_fitted(self, where="CommRegression.predict", fit="fit(frame)")
        data = _plain(descriptors(frame))
        labels = self.split.labels(data)
        out = np.empty(len(data))
        for area in AREAS:
            mask = labels == area
            if not mask.any():
                continue
            m = self.models_[area]
            part = data[mask]
            X = np.column_stack([term_values(part, t) for t in m.terms]) if m.terms else np.empty((len(part), 0))
            out[mask] = m.fit.intercept + X @ m.fit.coef
        return out


def _constant_fit(y: np.ndarray, loss: str) -> RobustFit:
    """Intercept-only model: the median (robust) or the mean (ols)."""
    centre = float(np.mean(y) if loss == "ols" else np.median(y))
    return RobustFit(centre, np.empty(0), np.empty(0), float("nan"), np.ones(y.size),
                     float(np.median(np.abs(y - centre)) / 0.6745), 0, True)


# -------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class CommRegressionResult:
    """Predictions and scores of a :class:`CommRegression` on a set of measurements.

    ``predictions``: the evaluated frame (all its columns and the 13 metrics) with
    ``area``, ``observed`` and ``predicted`` (time unit of ``y``, µs for the sweeps) and
    ``error_pct`` -- **signed** relative error ``100 (predicted - observed) / observed``
    (the y axis of the paper's Fig. 2 (d); its absolute value is
    :func:`workbench.metrics.error_pct`).
    ``metrics``: one row per area (``Ia``, ``Ib``, ``II``) and ``"all"``, columns
    ``area`` and those of :func:`workbench.metrics.summarize` (``n_points``,
    ``rmse``, ``mpe``, ``mape`` (percent), ``max_error_pct``, ``mean_pa``, ``min_pa``,
    ``r2``, ``spearman``, ``share_within_30`` (fraction)); an area without points has
    ``n_points`` 0 and NaN scores.  ``warnings``: the messages of the model's ``warnings_``.
    """

    predictions: pd.DataFrame
    metrics: pd.DataFrame
    warnings: list[str] = field(default_factory=list)

    def overall(self) -> dict[str, float]:
        """Return the ``"all"`` row of :attr:`metrics` as a dict."""
        return self.metrics.set_index("area").loc["all"].to_dict()


def evaluate(model: CommRegression, frame: pd.DataFrame, y=None, pct: float = ERROR_BAND.value
             ) -> CommRegressionResult:
    """Score a fitted ``model`` on ``frame``.

    Parameters
    ----------
    model : CommRegression
        A fitted model.
    frame : pandas.DataFrame
        Measurements with the descriptor inputs (:func:`~workbench.models.comm.descriptors`).
    y : str, array-like or None, default None
        The measured times, as in :meth:`CommRegression.fit`.
    pct : float, default ERROR_BAND.value (30)
        Half-width of the error band of ``share_within``, percent.
    """
    check_fitted(model, where="CommRegression.predict", fit="fit(frame)")
    data = _plain(descriptors(frame)).reset_index(drop=True)
    observed = comm_times(data, y)
    predicted = model.predict(data)
    labels = model.split.labels(data)
    predictions = data.assign(area=labels, observed=observed, predicted=predicted,
                              error_pct=100.0 * (predicted - observed) / observed)
    return CommRegressionResult(predictions, metrics_by_area(predictions, pct), [w.message for w in model.warnings_])


def metrics_by_area(predictions: pd.DataFrame, pct: float = ERROR_BAND.value) -> pd.DataFrame:
    """Score a predictions frame per area and overall.

    Parameters
    ----------
    predictions : pandas.DataFrame
        Columns ``area``, ``observed``, ``predicted``; see :class:`CommRegressionResult`.
    pct : float, default ERROR_BAND.value (30)
        Half-width of the error band of ``share_within``, percent.
    """
    rows = []
    empty = {k: np.nan for k in summarize([1.0], [1.0], pct)}
    for area in (*AREAS, "all"):
        part = predictions if area == "all" else predictions[predictions["area"] == area]
        scores = summarize(part["observed"], part["predicted"], pct) if len(part) else {**empty, "n_points": 0}
        rows.append({"area": area, **scores})
    return pd.DataFrame(rows)
