"""FiM-Cal machine-learning part.

Regression mapping (Eq. 11), the alpha-scaled mapping (Eq. 12) and Algorithm 1 (alpha
calibration), wrapped as the :class:`FiMCal` estimator.

Training data is a tidy frame, one row per measured run (see
:mod:`workbench.measure.sweep` for how the workbench measures one), with columns

===================  =====================================================================
application params   e.g. ``iterations``, ``clusters``, ``points`` (the ``features``)
``processes``        number of processes t (int >= 1)
``calc_time_s``      measured calculation time, seconds (the ``target``)
``cycles``           TC, total cycles of the calculation (perf ``cycles``)
``stall_cycles``     SC, stalled cycles (perf ``stalled-cycles-*``)
``utilization``      U, utilisation per process, 0..1
``freq_hz``          F, effective clock rate, Hz
===================  =====================================================================

Decisions where the paper is silent or garbled (spec ``fim.md`` part 3):

* The hardware variables are regressed on runs with ``regression_processes`` processes
  (paper: one process, "we run an application ... on a single process"); alpha is
  calibrated against the measured times of *all* training runs, at their own t.
* ``features`` may contain products such as ``"iterations*clusters*points"`` (the K-means
  work); the paper's choice is the plain parameters.
* Algorithm 1 starts at ``alpha_init`` (paper 0, authors' code 1; at 0 every predicted TC
  is 0, i.e. invalid, so from alpha <= 0 the walk goes upwards).  The direction is fixed at
  the start: ``mean(actual - predicted) > 0`` over the valid rows (relative errors when
  ``error="relative"``) -> increase; if no row is
  valid, downwards when alpha * U > 1 (alpha too large), upwards otherwise.
  Then alpha moves by ``epsilon`` per iteration until the RMS error drops below ``tau``.
* The RMS error is of *relative* errors by default (``error="relative"``, unit-free: tau =
  0.01 means 1 %); ``error="absolute"`` is the paper's literal RMS in seconds.
* "Neglect bad values": rows whose predicted hardware variables are invalid at the current
  alpha (U outside [0, 1 + U_TOLERANCE], SC >= TC, TC <= 1) are left out of the RMS; an
  alpha at which every row is invalid is stepped over.  U in (1 - 1/TC, 1 + U_TOLERANCE] is
  a fully busy process (measured U of a CPU-bound run is 1.00 +- timer granularity) and is
  read as P_a2p = 0, the edge of Eq. 2.
* An iteration cap (``max_iter``) stops a walk that never reaches tau; the result is then
  the alpha with the lowest RMS seen on the walk, flagged ``converged=False`` with a
  warning.  The authors' code only ever increases alpha by 0.01 and its prediction script
  hard-codes alpha = 0.22; neither is copied here.
* Eq. 12 multiplies U by alpha as well, so alpha * U must stay below 1: alpha cannot
  exceed ~1/U, a ceiling the paper does not mention.  ``scale_utilization=False`` scales
  only TC and SC (an option, not the default).
* The walk is evaluated in vectorised chunks of alphas, which returns exactly the alpha at
  which the sequential Algorithm 1 stops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, emit_warnings
from workbench.models.fim.markov import (
    U_TOLERANCE,
    barrier_stage_time,
    calculation_time,
    effective_utilization,
    hardware_valid,
)
from workbench.validation import check_fitted, numeric_columns

__all__ = [
    "HARDWARE_COLUMNS",
    "feature_columns",
    "feature_matrix",
    "HardwareRegression",
    "CalibrationResult",
    "markov_times",
    "alpha_scaling",
    "calibrate_alpha",
    "FiMCal",
]

#: TC, SC and U, the hardware variables FiM regresses (Eq. 11), in that order.
HARDWARE_COLUMNS = ("cycles", "stall_cycles", "utilization")
MODELS = ("paper", "barrier")


def feature_columns(features) -> list[str]:
    """Return the frame columns that ``features`` (possibly products ``"a*b"``) read.

    Parameters
    ----------
    features : sequence of str
        Feature names; ``"a*b"`` is the product of columns ``a`` and ``b``.
    """
    return sorted({part.strip() for f in features for part in f.split("*")})


def feature_matrix(frame: pd.DataFrame, features) -> np.ndarray:
    """Design matrix ``[1, x_1, ..., x_p]`` of Eq. 11; a feature ``"a*b"`` is the product of columns ``a`` and ``b``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Runs with the columns ``features`` read (:func:`feature_columns`).
    features : sequence of str
        Feature names; ``"a*b"`` is the product of columns ``a`` and ``b``.
    """
    cols = [np.ones(len(frame))]
    for f in features:
        col = np.ones(len(frame))
        for part in f.split("*"):
            col = col * frame[part.strip()].to_numpy(dtype=float)
        cols.append(col)
    return np.column_stack(cols)


class HardwareRegression(BaseEstimator):
    """Eq. 11: each hardware variable (TC, SC, U) as a linear function of application parameters.

    ``y_i = beta_i0 + beta_i . X``, by least squares.  ``predict(frame, alpha)`` applies
    Eq. 12, ``y_i = alpha (beta_i0 + beta_i . X)``.

    Fitted: ``coef_`` (DataFrame, rows TC/SC/U by column name, columns ``intercept`` and
    the features), ``r2_`` (in-sample R^2 per variable).

    Parameters
    ----------
    features : sequence of str, default ("iterations", "clusters", "points")
        Application-parameter columns of Eq. 11 (``"a*b"`` for a product).
    """

    def __init__(self, features=("iterations", "clusters", "points")):
        self.features = features

    def fit(self, frame: pd.DataFrame) -> HardwareRegression:
        """Fit Eq. 11, one least-squares regression per hardware variable, on ``frame``; return self.

        Parameters
        ----------
        frame : pandas.DataFrame
            Runs with the feature columns and the measured ``cycles``, ``stall_cycles`` and
            ``utilization``.
        """
        where = "HardwareRegression.fit"
        features = list(self.features)
        if not features:
            raise ValidationError(f"{where}: needs at least one feature")
        frame = numeric_columns(frame, feature_columns(features) + list(HARDWARE_COLUMNS), where)
        x = feature_matrix(frame, features)
        if len(frame) < x.shape[1]:
            raise ValidationError(
                f"{where}: {len(frame)} training run(s) cannot determine {x.shape[1]} coefficients "
                f"(intercept + {features}); measure more configurations"
            )
        if np.linalg.matrix_rank(x) < x.shape[1]:
            constant = [f for f, col in zip(features, x[:, 1:].T, strict=True) if np.ptp(col) == 0]
            hint = f"; constant in the training runs: {constant}" if constant else ""
            raise ValidationError(f"{where}: the features {features} are collinear in the training runs{hint}")
        y = frame[list(HARDWARE_COLUMNS)].to_numpy(dtype=float)
        # Scale columns so that TC ~ 1e10 and U ~ 1 are solved equally well.
        scale = np.abs(x).max(axis=0)
        beta = np.linalg.lstsq(x / scale, y, rcond=None)[0] / scale[:, None]
        fitted = x @ beta
        ss_res = ((y - fitted) ** 2).sum(axis=0)
        ss_tot = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(ss_tot > 0, 1 - ss_res / ss_tot, 1.0)
        self.coef_ = pd.DataFrame(beta.T, index=list(HARDWARE_COLUMNS), columns=["intercept", *features])
        self.r2_ = pd.Series(r2, index=list(HARDWARE_COLUMNS))
        self.warnings_ = []  # every model has warnings_; this fit has none to give
        return self

    def predict(self, frame: pd.DataFrame, alpha: float = 1.0) -> pd.DataFrame:
        """Predicted TC, SC, U (columns ``cycles``, ``stall_cycles``, ``utilization``).

        Parameters
        ----------
        frame : pandas.DataFrame
            Rows with the feature columns.
        alpha : float, default 1.0
            Sensitivity constant of Eq. 12 multiplying every regressed variable.
        """
        check_fitted(self, "coef_", "HardwareRegression.predict", fit="fit(frame)")
        frame = numeric_columns(frame, feature_columns(self.features), "HardwareRegression.predict")
        values = alpha * feature_matrix(frame, self.features) @ self.coef_.to_numpy().T
        return pd.DataFrame(values, columns=list(HARDWARE_COLUMNS), index=frame.index)


#: rows per barrier_stage_time call in markov_times
_BARRIER_BLOCK = 256


def markov_times(hardware: np.ndarray, processes, freq_hz, stages=1, model: str = "paper") -> np.ndarray:
    """Compute the calculation times from hardware variables ``hardware[..., (TC, SC, U)]``.

    ``model="paper"``: Eqs. 9-10 with stage chaining (:func:`calculation_time`);
    ``model="barrier"``: the barrier-synchronised extension (:func:`barrier_stage_time`).
    Rows with invalid hardware variables give NaN.  Broadcasts.

    Parameters
    ----------
    hardware : ndarray of float, shape (..., 3)
        TC (cycles), SC (stall cycles) and U (utilisation, 0..1) in the last axis.
    processes : int or array-like of int
        Process counts t.
    freq_hz : float or array-like of float
        Clock rate F in Hz.
    stages : int or array-like of int, default 1
        Barrier-separated stages of the application.
    model : {"paper", "barrier"}, default "paper"
        Eqs. 9-10 or the barrier-synchronised extension.
    """
    hardware = np.asarray(hardware, dtype=float)
    tc, sc, u = hardware[..., 0], hardware[..., 1], hardware[..., 2]
    t, stages, freq_hz = (np.broadcast_to(np.asarray(v, dtype=float), tc.shape) for v in (processes, stages, freq_hz))
    # Cycles that one chain works through: a stage (paper), a process's share of it (barrier).
    work = tc / stages / t if model == "barrier" else tc / stages
    u = effective_utilization(u, work)
    with np.errstate(divide="ignore", invalid="ignore"):  # TC = 0 at alpha = 0: invalid, not an error
        ok = hardware_valid(work, sc * work / tc, u)
    out = np.full(tc.shape, np.nan)
    if ok.any():
        if model == "barrier":
            # in blocks: a barrier evaluation holds ~6000 values per row (more rows than a block
            # are split, which moves the head/tail split of the sum within its 1e-7 accuracy)
            args = [v[ok] for v in (t, tc, sc, u, freq_hz, stages)]
            block = _BARRIER_BLOCK if args[0].size > _BARRIER_BLOCK else args[0].size
            out[ok] = np.concatenate([barrier_stage_time(*(v[i:i + block] for v in args))
                                      for i in range(0, args[0].size, block)])
        else:
            out[ok] = calculation_time(t[ok], tc[ok], freq_hz[ok], stages[ok])
    return out


@dataclass(frozen=True)
class CalibrationResult:
    """Outcome of Algorithm 1.

    ``alpha``: calibrated sensitivity constant; ``converged``: RMS < tau was reached;
    ``iterations``: alpha steps taken; ``direction``: +1 or -1; ``rms``: RMS error at
    ``alpha``; ``neglected``: training rows left out at ``alpha`` (invalid predicted
    hardware); ``trace``: DataFrame ``step, alpha, rms, valid_rows`` along the walk
    (thinned to at most ~2000 rows, always with the first and the last step);
    ``warnings``: human-readable caveats.
    """

    alpha: float
    converged: bool
    iterations: int
    direction: int
    rms: float
    neglected: int
    trace: pd.DataFrame
    warnings: list[str] = field(default_factory=list)


def _rms(pred: np.ndarray, actual: np.ndarray, error: str) -> tuple[np.ndarray, np.ndarray]:
    diff = pred - actual
    if error == "relative":
        diff = diff / actual
    valid = np.isfinite(diff)
    n = valid.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rms = np.sqrt(np.where(valid, diff * diff, 0.0).sum(axis=-1) / n)
    return np.where(n > 0, rms, np.nan), n


def alpha_scaling(alpha, scale_utilization: bool = True) -> np.ndarray:
    """Eq. 12 multipliers of (TC, SC, U) for ``alpha`` (shape ``alpha.shape + (3,)``).

    With ``scale_utilization=False`` U keeps its regressed value.

    Parameters
    ----------
    alpha : float or array-like of float
        Sensitivity constants of Eq. 12.
    scale_utilization : bool, default True
        Scale U with alpha as Eq. 12 does; False keeps U at its regressed value.
    """
    alpha = np.asarray(alpha, dtype=float)[..., None]
    return np.concatenate([np.repeat(alpha, 2, axis=-1), alpha if scale_utilization else np.ones_like(alpha)], axis=-1)


def _past_u_ceiling(alpha: float, direction: int, hardware: np.ndarray, scale_utilization: bool) -> bool:
    u = hardware[:, 2]
    return bool(scale_utilization and direction == 1 and alpha > 0 and np.all(alpha * u > 1 + U_TOLERANCE))


#: Most (run, alpha) evaluations one Algorithm 1 walk makes (~3 s of CPU for either model):
#: a walk over more runs takes fewer steps (``max_iter`` is lowered to ``limit // runs``,
#: which the not-converged warning then names).  The paper model's default max_iter of
#: 200,000 steps is unaffected up to 250 runs.
WALK_EVALUATIONS = {"paper": 50_000_000, "barrier": 50_000}
#: Most training runs of the barrier extension (each costs ~300 kB per evaluated alpha).
MAX_BARRIER_ROWS = 2_000
#: values per vectorised chunk of (alphas x runs)
_CHUNK_VALUES = {"paper": 4_000_000, "barrier": 2_000}


def _number(value, name: str, where: str) -> float:
    if isinstance(value, bool):
        raise ValidationError(f"{where}: {name} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: {name} must be a number, got {value!r}") from None


def _walk_inputs(hardware, actual, processes, freq_hz, stages, where):
    """Return Algorithm 1's inputs as float arrays of matching shapes, else raise a ValidationError.

    The error names the argument and the first bad position.
    """
    try:
        hardware = np.asarray(hardware, dtype=float)
        actual = np.asarray(actual, dtype=float).reshape(-1)
        processes, freq_hz, stages = (np.asarray(v, dtype=float) for v in (processes, freq_hz, stages))
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: hardware, processes, actual, freq_hz and stages must be numeric ({exc})") \
            from None
    if hardware.ndim != 2 or hardware.shape[1] != 3:
        raise ValidationError(f"{where}: hardware must be an array (runs, 3) of TC, SC, U, got shape {hardware.shape}")
    if actual.size != hardware.shape[0] or actual.size == 0:
        raise ValidationError(f"{where}: needs one measured time per hardware row (at least one), got {actual.size} "
                              f"times for {hardware.shape[0]} rows")
    bad = ~np.isfinite(actual) | (actual <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{where}: measured times must be finite and > 0, got actual[{i}] = {actual[i]}")
    bad = ~np.isfinite(hardware).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValidationError(f"{where}: hardware must be finite, got row {i}: {hardware[i].tolist()}")
    out = []
    for name, v, ok in (("processes", processes, lambda x: (x >= 1) & (x == np.round(x))),
                        ("freq_hz", freq_hz, lambda x: x > 0), ("stages", stages, lambda x: x >= 1)):
        try:
            v = np.broadcast_to(v, actual.shape)
        except ValueError:
            raise ValidationError(f"{where}: {name} must be a number or one value per run, got shape {v.shape} for "
                                  f"{actual.size} runs") from None
        bad = ~np.isfinite(v) | ~ok(v)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValidationError(f"{where}: {name} has an invalid value {v[i]!r} at position {i}")
        out.append(v)
    return (hardware, actual, *out)


def _walk_settings(model, alpha_init, epsilon, tau, max_iter, error, where):
    """Return Algorithm 1's settings ``epsilon``, ``tau``, ``alpha_init`` as floats and ``max_iter`` as an int.

    Raises a ValidationError naming the first setting that is not a number in its range, or
    an unknown ``error`` or ``model``.
    """
    epsilon, tau, alpha_init = (_number(v, name, where) for v, name in
                                ((epsilon, "epsilon"), (tau, "tau"), (alpha_init, "alpha_init")))
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValidationError(f"{where}: epsilon must be > 0, got {epsilon!r}")
    if not (np.isfinite(tau) and tau > 0):
        raise ValidationError(f"{where}: tau must be > 0, got {tau!r}")
    if not np.isfinite(alpha_init):
        raise ValidationError(f"{where}: alpha_init must be finite, got {alpha_init!r}")
    max_iter_f = _number(max_iter, "max_iter", where)
    if not (np.isfinite(max_iter_f) and max_iter_f >= 1 and max_iter_f == np.round(max_iter_f)):
        raise ValidationError(f"{where}: max_iter must be >= 1 (an integer), got {max_iter!r}")
    max_iter = int(max_iter_f)
    if error not in ("relative", "absolute"):
        raise ValidationError(f"{where}: error must be 'relative' or 'absolute', got {error!r}")
    if model not in MODELS:
        raise ValidationError(f"{where}: model must be one of {MODELS}, got {model!r}")
    return epsilon, tau, alpha_init, max_iter


def _walk_limits(model, rows, max_iter, where):
    """Return the steps a walk over ``rows`` runs may take, whether that is below ``max_iter``, and the chunk.

    The chunk is the number of alphas evaluated at once.  Raises a ValidationError when
    the barrier extension is given more than :data:`MAX_BARRIER_ROWS` runs.
    """
    if model == "barrier" and rows > MAX_BARRIER_ROWS:
        raise ValidationError(
            f"{where}: the barrier extension is calibrated on at most {MAX_BARRIER_ROWS} runs, got {rows} (each "
            "evaluation integrates every run's straggler time); aggregate repeated runs or use model='paper'")
    # Work limit: a walk evaluates at most WALK_EVALUATIONS[model] (run, alpha) pairs, so that
    # a calibration answers within seconds whatever max_iter and the number of runs
    budget_steps = max(1, WALK_EVALUATIONS[model] // rows)
    capped = max_iter > budget_steps
    max_iter = min(int(max_iter), budget_steps)
    # alphas evaluated per vectorised chunk (a barrier evaluation costs ~2000x more memory),
    # fewer with many runs so that a chunk's (alphas x runs) arrays stay bounded
    chunk = 2048 if model == "paper" else 8
    chunk = int(min(chunk, max(1, _CHUNK_VALUES[model] // rows)))
    return max_iter, capped, chunk


def _walk_evaluator(hardware, processes, actual, freq_hz, stages, model, error, scale_utilization):
    """Return a function of an array of alphas giving the Markov predictions, their RMS errors and valid rows.

    The predictions are from ``alpha * hardware`` (Eq. 12), one row per alpha; the RMS error
    (relative or absolute, per ``error``) is over each alpha's valid rows.
    """
    def evaluate(alphas: np.ndarray):
        pred = markov_times(alpha_scaling(alphas, scale_utilization)[:, None, :] * hardware[None],
                            processes, freq_hz, stages, model)
        rms, n = _rms(pred, actual[None], error)
        return pred, rms, n

    return evaluate


def _initial_direction(evaluate, alpha_init, hardware, actual, error, scale_utilization) -> int:
    """Return the walk's direction from ``alpha_init`` > 0: +1 (increase alpha) or -1.

    "actual > predicted -> increase", measured like the RMS (relative or absolute) over the
    valid rows; if every row is invalid, downwards when alpha * U already exceeds its
    ceiling, else upwards.
    """
    pred0, _, n0 = evaluate(np.array([float(alpha_init)]))
    if n0[0] == 0:
        u0 = alpha_scaling(alpha_init, scale_utilization)[2] * hardware[:, 2]
        return -1 if np.any(u0 > 1) else 1
    err = (actual - pred0[0]) / (actual if error == "relative" else 1.0)
    return 1 if np.nanmean(err) > 0 else -1


def _walk(evaluate, alpha_init, direction, epsilon, tau, max_iter, chunk, hardware, scale_utilization):
    """Walk alpha by ``direction * epsilon`` per step, a chunk of steps at a time, until RMS < ``tau``.

    The walk stops at step ``max_iter``, or past the U ceiling where every later alpha is
    invalid too.  Returns ``(steps, rms, valid rows, found, hopeless)``: every evaluated
    step with its RMS error and number of valid rows, the first step with RMS < ``tau``
    (None if none) and whether the walk stopped at the U ceiling.
    """
    steps_all, rms_all, n_all = [], [], []
    start = 0
    found = None
    hopeless = False  # past the U ceiling: every later alpha is invalid too
    while start <= max_iter and found is None and not hopeless:
        steps = np.arange(start, min(start + chunk, max_iter + 1))
        alphas = alpha_init + direction * epsilon * steps
        _, rms, n = evaluate(alphas)
        steps_all.append(steps)
        rms_all.append(rms)
        n_all.append(n)
        hit = np.flatnonzero(rms < tau)
        if hit.size:
            found = int(steps[hit[0]])
        start = int(steps[-1]) + 1
        hopeless = found is None and n[-1] == 0 and _past_u_ceiling(alphas[-1], direction, hardware,
                                                                     scale_utilization)
    return np.concatenate(steps_all), np.concatenate(rms_all), np.concatenate(n_all), found, hopeless


def _walk_end(steps, rms, n, found, hopeless, where) -> tuple[int, int]:
    """Return the walk's last step and the chosen step.

    Both are the step ``found`` with RMS < tau if there is one; else the walk ends at its
    last step (past the U ceiling: one step after the last with a valid row) and the chosen
    step has the least RMS.  Raises a ValidationError when no step had a valid row.
    """
    if found is not None:
        return found, found
    last = int(steps[-1])
    if hopeless and (n > 0).any():
        last = int(steps[np.flatnonzero(n > 0)[-1]] + 1)  # stopped at the first hopeless step
    if np.all(np.isnan(rms)):
        raise ValidationError(
            f"{where}: every predicted hardware value was invalid along the whole walk "
            "(U outside [0, 1], SC >= TC or TC <= 1); the regression cannot be calibrated"
        )
    return last, int(steps[np.nanargmin(rms)])


def _walk_trace(steps, rms, n, last, chosen, alpha_init, direction, epsilon):
    """Return the walk's steps, RMS errors and valid rows up to step ``last``, and its trace.

    The trace (step, alpha, rms, valid_rows) holds <= 2000 evenly spread steps and the chosen one.
    """
    keep = steps <= last
    steps, rms, n = steps[keep], rms[keep], n[keep]
    thin = np.unique(np.r_[np.linspace(0, steps.size - 1, min(steps.size, 2000)).astype(int),
                           np.flatnonzero(steps == chosen)])
    trace = pd.DataFrame({"step": steps[thin], "alpha": alpha_init + direction * epsilon * steps[thin],
                          "rms": rms[thin], "valid_rows": n[thin]})
    return steps, rms, n, trace


def calibrate_alpha(hardware, processes, actual, freq_hz, stages=1, *, model="paper", alpha_init=1.0,
                    epsilon=1e-5, tau=0.01, max_iter=200_000, error="relative",
                    scale_utilization=True) -> CalibrationResult:
    """Run Algorithm 1: walk alpha in steps of ``epsilon`` until the RMS error is below ``tau``.

    The RMS error is between the Markov predictions from ``alpha * hardware`` (Eq. 12) and
    ``actual``.  Eq. 12 scales U as well, so alpha cannot exceed ``(1 + U_TOLERANCE) / U``
    without making every prediction invalid (the walk stops there).  See the module
    docstring for the decisions.  Vectorised over chunks of alphas.

    Parameters
    ----------
    hardware : ndarray of float, shape (rows, 3)
        Regression-predicted TC, SC, U at alpha = 1.
    processes : array-like of int, shape (rows,)
        Process count of each training run.
    actual : array-like of float, shape (rows,)
        Measured calculation time of each run, seconds.
    freq_hz : float or array-like of float
        Clock rate F in Hz.
    stages : int or array-like of int, default 1
        Barrier-separated stages of each run.
    model : {"paper", "barrier"}, default "paper"
        Eqs. 9-10 or the barrier-synchronised extension.
    alpha_init : float, default 1.0
        Where the walk starts.
    epsilon : float, default 1e-5
        Step of the walk in alpha.
    tau : float, default 0.01
        RMS error at which the walk stops.
    max_iter : int, default 200000
        Largest number of steps (lowered for large inputs, see ``WALK_EVALUATIONS``).
    error : {"relative", "absolute"}, default "relative"
        Whether the RMS error is of relative or absolute (s) differences.
    scale_utilization : bool, default True
        Scale U with alpha as Eq. 12 does; False scales only TC and SC.
    """
    where = "calibrate_alpha"
    epsilon, tau, alpha_init, max_iter = _walk_settings(model, alpha_init, epsilon, tau, max_iter, error, where)
    hardware, actual, processes, freq_hz, stages = _walk_inputs(hardware, actual, processes, freq_hz, stages, where)
    rows = actual.size
    max_iter, capped, chunk = _walk_limits(model, rows, max_iter, where)

    evaluate = _walk_evaluator(hardware, processes, actual, freq_hz, stages, model, error, scale_utilization)
    # TC = alpha * beta.X is invalid for alpha <= 0: only upwards helps
    direction = 1 if alpha_init <= 0 else _initial_direction(evaluate, alpha_init, hardware, actual, error,
                                                             scale_utilization)
    steps, rms, n, found, hopeless = _walk(evaluate, alpha_init, direction, epsilon, tau, max_iter, chunk, hardware,
                                           scale_utilization)
    last, chosen = _walk_end(steps, rms, n, found, hopeless, where)
    warnings: list[str] = []
    if found is None:
        limit = (f"the work limit of {max_iter} steps ({WALK_EVALUATIONS[model]:.0e} evaluations of the "
                 f"{model} model / {rows} runs)" if capped else f"max_iter = {max_iter} steps")
        warnings.append(
            f"Algorithm 1 did not reach RMS < tau = {tau:g} within {limit} of "
            f"epsilon = {epsilon:g}; alpha is the best seen on the walk (RMS {np.nanmin(rms):.4g})"
            + ("; a larger epsilon covers more alphas in as many steps" if capped else "")
        )
    steps, rms, n, trace = _walk_trace(steps, rms, n, last, chosen, alpha_init, direction, epsilon)
    alpha = float(alpha_init + direction * epsilon * chosen)
    valid_rows = int(n[steps == chosen][0])
    neglected = len(actual) - valid_rows
    if found is None and rms.size > 1 and rms[1] > rms[0]:
        warnings.append(
            "the first step raised the RMS error: the paper's direction rule (sign of the mean error) "
            "points away from the RMS minimum for these data; try another alpha_init"
        )
    if found is None and scale_utilization and direction == 1:
        ceiling = float(np.min((1 + U_TOLERANCE) / hardware[:, 2]))
        if alpha_init + epsilon * last > ceiling:
            warnings.append(
                f"alpha cannot usefully exceed {ceiling:.4g}: Eq. 12 scales U too, and alpha * U > 1 "
                "is invalid; try scale_utilization=False (scale TC and SC only)"
            )
    if neglected:
        warnings.append(f"{neglected} of {len(actual)} training runs neglected at alpha = {alpha:.6g}: "
                        "their predicted hardware variables are invalid (Algorithm 1, line 17)")
    return CalibrationResult(alpha=alpha, converged=found is not None, iterations=last, direction=direction,
                             rms=float(rms[steps == chosen][0]), neglected=neglected, trace=trace, warnings=warnings)


class FiMCal(BaseEstimator):
    """FiM-Cal (paper section 2, Fig. 2).

    Regression mapping + alpha calibration + Markov model, trained on small runs,
    predicting calculation time for new application parameters and process counts.

    Parameters
    ----------
    features : sequence of str, default ("iterations", "clusters", "points")
        Application-parameter columns of Eq. 11 (``"a*b"`` for a product).
    model : {"paper", "barrier"}, default "paper"
        ``"paper"``: Eqs. 9-10; ``"barrier"``: the straggler extension (not in the paper).
    stages : str, optional
        Name of a column holding the number of stages (``"iterations"`` for an iterative
        application); default None: one stage (Eq. 10).
    alpha_init : float, default 1.0
        Where Algorithm 1's walk starts.
    epsilon : float, default 1e-5
        Step of the walk in alpha.
    tau : float, default 0.01
        RMS error at which the walk stops.
    max_iter : int, default 200000
        Largest number of steps of the walk.
    error : {"relative", "absolute"}, default "relative"
        Whether the RMS error is of relative or absolute (s) differences.
    scale_utilization : bool, default True
        Eq. 12 scales U with alpha (the paper), which caps alpha below ~1/U; False scales
        only TC and SC.
    regression_processes : int, default 1
        Process count of the runs the hardware variables are regressed on.
    freq_hz : float, optional
        Clock rate F (Hz) for predictions; default None: the median measured ``freq_hz`` of
        the regression runs.
    target : str, default "calc_time_s"
        Measured time column, seconds.

    Notes
    -----
    Fitted: ``regression_`` (:class:`HardwareRegression`), ``alpha_``, ``calibration_``
    (:class:`CalibrationResult`), ``freq_hz_``, ``warnings_`` (list of
    :class:`~workbench.errors.ModelWarning`, kinds ``utilization-clipped`` and
    ``calibration-note``: the notes of :func:`calibrate_alpha`).
    """

    def __init__(self, features=("iterations", "clusters", "points"), model="paper", stages=None,
                 alpha_init=1.0, epsilon=1e-5, tau=0.01, max_iter=200_000, error="relative",
                 scale_utilization=True, regression_processes=1, freq_hz=None, target="calc_time_s"):
        self.features = features
        self.model = model
        self.stages = stages
        self.alpha_init = alpha_init
        self.epsilon = epsilon
        self.tau = tau
        self.max_iter = max_iter
        self.error = error
        self.scale_utilization = scale_utilization
        self.regression_processes = regression_processes
        self.freq_hz = freq_hz
        self.target = target

    def _stages(self, frame: pd.DataFrame):
        return 1 if self.stages is None else frame[self.stages].to_numpy(dtype=float)

    def _check_frame(self, frame: pd.DataFrame, where: str, training: bool) -> pd.DataFrame:
        cols = feature_columns(self.features) + ["processes"] + ([self.stages] if self.stages else [])
        if training:
            cols += [self.target, *HARDWARE_COLUMNS, "freq_hz"]
            empty = [c for c in (*HARDWARE_COLUMNS, "freq_hz")
                     if isinstance(frame, pd.DataFrame) and c in frame and len(frame)
                     and isinstance(frame[c], pd.Series) and frame[c].isna().all()]
            if empty:
                raise ValidationError(f"{where}: no hardware counters in the runs ({empty} are empty): measure "
                                      "them with perf stat (workbench.measure) to train FiM")
        frame = numeric_columns(frame, cols, where)  # a copy, numbers given as text converted
        t = frame["processes"].to_numpy(dtype=float)
        if np.any(t < 1) or np.any(t != np.round(t)) or np.any(t > 2**53):
            i = int(np.flatnonzero((t < 1) | (t != np.round(t)) | (t > 2**53))[0])
            raise ValidationError(f"{where}: 'processes' must be integers >= 1 (at most 2^53), got {t[i]:g} in row {i}")
        if not training:
            return frame
        checks = [
            (frame[self.target] <= 0, f"{self.target!r} (measured time) must be > 0"),
            (frame["cycles"] <= 1, "'cycles' (TC) must be > 1"),
            (frame["stall_cycles"] <= 0, "'stall_cycles' (SC) must be > 0"),
            (frame["stall_cycles"] >= frame["cycles"], "'stall_cycles' (SC) must be smaller than 'cycles' (TC)"),
            ((frame["utilization"] < 0) | (frame["utilization"] > 1 + U_TOLERANCE),
             "'utilization' (U) must be in [0, 1]"),
            (frame["freq_hz"] <= 0, "'freq_hz' (F) must be > 0"),
        ]
        for bad, message in checks:
            if bad.any():
                i = int(np.flatnonzero(bad.to_numpy())[0])
                raise ValidationError(f"{where}: {message}; row {i}: {frame.iloc[i].to_dict()}")
        over = frame["utilization"] > 1
        if over.any():
            self.warnings_.append(ModelWarning(
                "utilization-clipped", f"{int(over.sum())} run(s) with measured U up to "
                f"{frame['utilization'].max():.4f} > 1 (timer granularity) clipped to 1"))
            frame.loc[over, "utilization"] = 1.0
        return frame

    def fit(self, frame: pd.DataFrame) -> FiMCal:
        """Fit the hardware regression and calibrate alpha (Algorithm 1) on the runs ``frame``; return self.

        Parameters
        ----------
        frame : pandas.DataFrame
            Training runs: the feature columns, ``processes``, the target (s), ``cycles``,
            ``stall_cycles``, ``utilization`` and ``freq_hz``.
        """
        where = "FiMCal.fit"
        if self.model not in MODELS:
            raise ValidationError(f"{where}: model must be one of {MODELS}, got {self.model!r}")
        self.warnings_ = []
        frame = self._check_frame(frame, where, training=True)
        reg_rows = frame[frame["processes"] == self.regression_processes]
        if reg_rows.empty:
            raise ValidationError(
                f"{where}: no training runs with processes == {self.regression_processes} to regress the "
                f"hardware variables on; the frame has process counts {sorted(frame['processes'].unique())}"
            )
        self.regression_ = HardwareRegression(self.features).fit(reg_rows)
        self.freq_hz_ = float(reg_rows["freq_hz"].median()) if self.freq_hz is None else float(self.freq_hz)
        hardware = self.regression_.predict(frame).to_numpy()
        self.calibration_ = calibrate_alpha(
            hardware, frame["processes"].to_numpy(dtype=float), frame[self.target].to_numpy(dtype=float),
            self.freq_hz_, self._stages(frame), model=self.model, alpha_init=self.alpha_init,
            epsilon=self.epsilon, tau=self.tau, max_iter=self.max_iter, error=self.error,
            scale_utilization=self.scale_utilization,
        )
        self.alpha_ = self.calibration_.alpha
        self.warnings_ += [ModelWarning("calibration-note", note) for note in self.calibration_.warnings]
        emit_warnings(self.warnings_)
        return self

    def _check_fitted(self, where: str) -> None:
        check_fitted(self, "alpha_", where, fit="fit(...)")

    def predict_hardware(self, frame: pd.DataFrame, alpha: float | None = None) -> pd.DataFrame:
        """Eq. 12: predicted TC, SC, U for the rows of ``frame`` (default alpha: ``alpha_``).

        Parameters
        ----------
        frame : pandas.DataFrame
            Rows with the feature columns.
        alpha : float, optional
            Sensitivity constant; default: the calibrated ``alpha_``.
        """
        self._check_fitted("FiMCal.predict_hardware")
        base = self.regression_.predict(frame)
        return base * alpha_scaling(self.alpha_ if alpha is None else alpha, self.scale_utilization)

    def predict(self, frame: pd.DataFrame, alpha: float | None = None) -> np.ndarray:
        """Predicted calculation time in seconds per row (needs the feature columns and ``processes``).

        NaN where the predicted hardware variables are invalid.

        Parameters
        ----------
        frame : pandas.DataFrame
            Rows with the feature columns and ``processes`` (and the stages column if set).
        alpha : float, optional
            Sensitivity constant; default: the calibrated ``alpha_``.
        """
        where = "FiMCal.predict"
        self._check_fitted(where)
        frame = self._check_frame(frame, where, training=False)
        hardware = self.predict_hardware(frame, alpha).to_numpy()
        return markov_times(hardware, frame["processes"].to_numpy(dtype=float), self.freq_hz_,
                            self._stages(frame), self.model)
