"""The fractal model (Escobar & Boppana, [EscobarBoppana]) against published and measured runs.

* :func:`table1_check` -- Table 1 of the paper reproduced from its published slope m and
  intercept b.  b is the natural log of the phase time in **milliseconds** (section 2.2:
  e^b is the predicted runtime at N_Lrg; e.g. comd on 8 cores, b = 15.4: e^15.4 ms =
  4877 s).  b is printed to one decimal, so the exact intercept lies in [b - 0.05,
  b + 0.05] and the published prediction must lie in the bracket e^(b +- 0.05) ms; the
  frame says whether it does and how far e^b itself is from the published actual time.
* :func:`demo_experiment` -- the method of section 2 on a measured profile (one row per
  phase per run, see :mod:`workbench.models.fractal`): major phases from the small runs
  (section 2.1, the 70 % threshold), the convergence size C, the design sizes
  N_i = C + i * delta (1 <= i <= k), the per-phase log-log fits (section 2.2) and the
  overall runtime T = sum t_P / sum r_P (section 2.3), compared with the measured run at
  the large target size.

Choosing the design sizes from what was measured
------------------------------------------------
The paper runs the application at N_i = C + i * delta after choosing C and delta; here
the runs already exist, so each requested N_i is replaced by the **nearest measured size**
among the candidates: measured sizes strictly above C (the paper's i starts at 1) and
strictly below the target size (the large run is what is predicted, never fitted).  A
tie goes to the smaller size.  Requests that land on the same measured size are merged,
so fewer than k sizes may be used; every substitution is listed in
:attr:`FractalExperiment.notes`.  With ``delta=None`` delta is chosen so that N_k is the
largest candidate, ``delta = (max candidate - C) / k``: the k sizes spread evenly over
the small runs.  With ``C=None`` C is the convergence size detected on the small runs
(:func:`~workbench.models.fractal.convergence_size`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import ValidationError, WorkbenchWarning
from workbench.io import fetch_seed_table
from workbench.metrics import error_pct
from workbench.models.fractal import (
    FractalExtrapolator,
    FractalPrediction,
    convergence_size,
    design_sizes,
    major_phases,
    phase_shares,
    validate_profile,
)
from workbench.validation import require_columns

__all__ = [
    "B_ROUNDING",
    "COMPARISON_COLUMNS",
    "TABLE1_COLUMNS",
    "DesignChoices",
    "FractalExperiment",
    "design_choices",
    "demo_experiment",
    "match_sizes",
    "synthetic_profile",
    "table1_check",
]

#: Half the last printed digit of Table 1's b (printed to one decimal).
B_ROUNDING = 0.05
#: Columns of :func:`table1_check`.
TABLE1_COLUMNS = [
    "cores", "app", "phase", "label", "C", "N_Lrg", "m", "b",
    "eb_s", "bracket_low_s", "bracket_high_s", "published_predicted_s", "published_actual_s",
    "inside_bracket", "eb_error_pct", "published_error_pct", "overall_error_pct",
]
#: Columns of :attr:`FractalExperiment.comparison`.
COMPARISON_COLUMNS = ["phase", "m", "b", "r2", "predicted_s", "band_low_s", "band_high_s", "actual_s",
                      "error_pct", "share_at_target", "actual_share"]
#: Name of the whole-program row in the comparison frame.
TOTAL = "total"


def table1_check(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 1 of [EscobarBoppana] recomputed from its published m and b (one row per phase).

    Columns (times in seconds): ``cores``, ``app``, ``phase``, ``label`` ("8 cores
    comd-ljforce"), ``C``, ``N_Lrg``, ``m``, ``b`` (ln of ms, as published), ``eb_s``
    (e^b ms in s), ``bracket_low_s``/``bracket_high_s`` (e^(b -+ :data:`B_ROUNDING`) ms
    in s: where the unrounded e^b lies), ``published_predicted_s``,
    ``published_actual_s``, ``inside_bracket`` (the published prediction lies in the
    bracket), ``eb_error_pct`` (|e^b - actual| / actual, %: our phase error from the
    published actual time), ``published_error_pct`` (the paper's phase error),
    ``overall_error_pct`` (the paper's, NaN on the second phase of an application).

    ``table`` defaults to the bundled seed table ``fractal_escobar_table1``.

    Parameters
    ----------
    table : pandas.DataFrame or None, default None
        Table 1 as published; None: the bundled seed table.
    """
    t = fetch_seed_table("fractal_escobar_table1").frame if table is None else table
    require_columns(t, ["cores", "C", "N_Lrg", "m", "b", "phase_predicted_s", "phase_actual_s"], "Table 1 check")
    b = t["b"].to_numpy(dtype=float)
    seconds = np.exp(np.stack([b, b - B_ROUNDING, b + B_ROUNDING])) / 1000.0  # b is ln(ms)
    published = t["phase_predicted_s"].to_numpy(dtype=float)
    actual = t["phase_actual_s"].to_numpy(dtype=float)
    return pd.DataFrame({
        "cores": t["cores"].to_numpy(),
        "app": t["app"].to_numpy(),
        "phase": t["phase"].to_numpy(),
        "label": [f"{c} cores {a}-{p}" for c, a, p in zip(t["cores"], t["app"], t["phase"])],
        "C": t["C"].to_numpy(dtype=float),
        "N_Lrg": t["N_Lrg"].to_numpy(dtype=float),
        "m": t["m"].to_numpy(dtype=float),
        "b": b,
        "eb_s": seconds[0],
        "bracket_low_s": seconds[1],
        "bracket_high_s": seconds[2],
        "published_predicted_s": published,
        "published_actual_s": actual,
        "inside_bracket": (published >= seconds[1]) & (published <= seconds[2]),
        "eb_error_pct": error_pct(actual, seconds[0]),
        "published_error_pct": t["phase_error_pct"].to_numpy(dtype=float),
        "overall_error_pct": t["overall_error_pct"].to_numpy(dtype=float),
    }, columns=TABLE1_COLUMNS)


#: Phases of :func:`synthetic_profile`: name -> (coefficient in s, exponent of N).
SYNTHETIC_PHASES = {"solve": (1e-6, 3.0), "sweep": (5e-5, 2.0), "setup": (2e-3, 1.0)}


def synthetic_profile(
    sizes=(40, 60, 80, 100, 120, 140, 160, 180, 200),
    target_size: float = 400,
    *,
    unprofiled: float = 0.05,
    noise: float = 0.0,
    runs: int = 1,
    seed: int = 0,
) -> pd.DataFrame:
    """Return a SYNTHETIC profile frame with exact power-law phases (for teaching and tests).

    Phases (:data:`SYNTHETIC_PHASES`): ``solve`` = 1e-6 N^3 s, ``sweep`` = 5e-5 N^2 s,
    ``setup`` = 2e-3 N s, measured at ``sizes`` and at ``target_size`` (the "large run");
    ``total_s`` = (1 + ``unprofiled``) x the sum of the phases (time outside every
    profiled phase).  ``noise`` > 0 multiplies every phase time by a log-normal factor
    with that sigma (seeded), one draw per row, ``runs`` repeats per size.  Without
    noise the fitted slopes are exactly 3, 2, 1 and e^b the phase time at the target.
    ``attrs["source"]`` says SYNTHETIC.

    Parameters
    ----------
    sizes : sequence of float, default (40, 60, 80, 100, 120, 140, 160, 180, 200)
        The small input sizes measured.
    target_size : float, default 400
        The size of the "large run".
    unprofiled : float, default 0.05
        Share of time outside every profiled phase, added to ``total_s``.
    noise : float, default 0.0
        Sigma of the log-normal factor on every phase time (0: exact).
    runs : int, default 1
        Repeats per size.
    seed : int, default 0
        Seed of the noise.
    """
    n = np.repeat(np.asarray([*sizes, target_size], dtype=float), runs * len(SYNTHETIC_PHASES))
    run = np.tile(np.repeat(np.arange(runs), len(SYNTHETIC_PHASES)), len(sizes) + 1)
    names = np.tile(list(SYNTHETIC_PHASES), (len(sizes) + 1) * runs)
    coef = np.array([SYNTHETIC_PHASES[p][0] for p in names])
    power = np.array([SYNTHETIC_PHASES[p][1] for p in names])
    time_s = coef * n**power
    if noise > 0:
        time_s *= np.random.default_rng(seed).lognormal(0.0, noise, time_s.size)
    frame = pd.DataFrame({"size": n, "phase": names, "time_s": time_s, "run": run})
    frame["total_s"] = frame.groupby(["size", "run"])["time_s"].transform("sum") * (1.0 + unprofiled)
    frame.attrs.update(time_unit="s", source="SYNTHETIC power laws (workbench.evaluation.fractal.synthetic_profile)")
    return frame


def match_sizes(requested, measured) -> np.ndarray:
    """Return the measured size nearest each requested size (ties to the smaller), vectorised.

    ``measured`` must be non-empty and increasing.  Returns one measured size per
    request (duplicates kept: the caller merges them).

    Parameters
    ----------
    requested : array-like
        The sizes asked for.
    measured : array-like
        The measured sizes, non-empty and increasing.
    """
    req = np.asarray(requested, dtype=float)
    grid = np.asarray(measured, dtype=float)
    if grid.size == 0:
        raise ValidationError("match_sizes: no measured sizes to choose from")
    right = np.clip(np.searchsorted(grid, req), 0, grid.size - 1)
    left = np.clip(right - 1, 0, grid.size - 1)
    take_right = np.abs(grid[right] - req) < np.abs(req - grid[left])
    return np.where(take_right, grid[right], grid[left])


@dataclass(frozen=True)
class FractalExperiment:
    """One run of the method on a measured profile, with the measured large run.

    Attributes
    ----------
    prediction : the model's :class:`~workbench.models.fractal.FractalPrediction`.
    target_size : N_Lrg.
    convergence_size : C used; ``convergence_auto`` says whether it was detected.
    delta, k : the design step (given or chosen, see the module docstring) and the
        number of sizes requested.
    requested_sizes : C + i * delta, i = 1..k (:func:`~workbench.models.fractal.design_sizes`).
    sizes : the distinct measured sizes fitted (the N_i used), increasing.
    small_sizes : every measured size below the target (the candidates and C's search).
    phases : the major phases (section 2.1), largest share first.
    shares : :func:`~workbench.models.fractal.phase_shares` of the whole profile
        (size, phase, time_s, total_s, share; means over runs).
    comparison : one row per major phase and a last row ``"total"``, columns
        :data:`COMPARISON_COLUMNS`: slope ``m``, intercept ``b`` (ln s), ``r2``,
        ``predicted_s`` (e^b; T for the total), the prediction band
        ``band_low_s``/``band_high_s``, ``actual_s`` (mean over the large runs; NaN
        without a measured run at the target), ``error_pct`` (|pred - actual| / actual,
        %), ``share_at_target`` (extrapolated r_P) and ``actual_share`` (measured).
    large_runs : the profile rows at the target size (the "large run"; empty if none).
    measured_total_s : mean whole-program time of the large runs (NaN if none).
    error_total_pct : overall error of T (NaN if no large run).
    notes : how the sizes were chosen and what was substituted, plus model warnings.
    """

    prediction: FractalPrediction
    target_size: float
    convergence_size: float
    convergence_auto: bool
    delta: float
    k: int
    requested_sizes: np.ndarray
    sizes: np.ndarray
    small_sizes: np.ndarray
    phases: tuple[str, ...]
    shares: pd.DataFrame
    comparison: pd.DataFrame
    large_runs: pd.DataFrame
    measured_total_s: float
    error_total_pct: float
    notes: tuple[str, ...]

    @property
    def phase_errors(self) -> pd.Series:
        """Error (%) per major phase, indexed by phase (the total excluded)."""
        rows = self.comparison[self.comparison["phase"] != TOTAL]
        return rows.set_index("phase")["error_pct"]


def _design(small_sizes: np.ndarray, C: float, delta: float | None, k: int) -> tuple[float, np.ndarray, np.ndarray,
                                                                                   list[str]]:
    """(delta, requested N_i, used measured sizes, notes) -- see the module docstring."""
    candidates = small_sizes[small_sizes > C]
    if candidates.size < 2:
        raise ValidationError(
            f"fractal design: only {candidates.size} measured size(s) above C = {C:g} and below the target "
            f"({', '.join(f'{s:g}' for s in candidates) or 'none'}); at least 2 are needed for a fit -- "
            f"choose a smaller C (measured small sizes: {', '.join(f'{s:g}' for s in small_sizes)})")
    notes = []
    if delta is None:
        delta = (candidates[-1] - C) / k
        notes.append(f"delta = (largest small run {candidates[-1]:g} - C {C:g}) / k {k} = {delta:.4g}")
    requested = design_sizes(C, delta, k)
    used = match_sizes(requested, candidates)
    moved = ~np.isclose(used, requested)
    if moved.any():
        pairs = ", ".join(f"{r:.4g} -> {u:g}" for r, u in zip(requested[moved], used[moved]))
        notes.append(f"requested N_i not measured, nearest measured size used: {pairs}")
    sizes = np.unique(used)
    if sizes.size < k:
        notes.append(f"{k} sizes requested, {sizes.size} distinct measured sizes used")
    if sizes.size < 2:
        raise ValidationError(
            f"fractal design: C = {C:g}, delta = {delta:g}, k = {k} map onto the single measured size {sizes[0]:g}; "
            "a fit needs 2 -- choose a smaller C or a delta that reaches other measured sizes (candidates: "
            f"{', '.join(f'{s:g}' for s in candidates)})")
    return float(delta), requested, sizes, notes


def _comparison_frame(phases: tuple, fits: pd.DataFrame, prediction, actual: np.ndarray, actual_share: np.ndarray,
                      measured_total: float) -> pd.DataFrame:
    """Return the per-phase and total comparison of predicted and measured times (``COMPARISON_COLUMNS``)."""
    predicted = np.r_[fits["predicted"].to_numpy(dtype=float), prediction.total]
    actual_all = np.r_[actual, measured_total]
    errors = np.full(predicted.size, np.nan)
    ok = np.isfinite(actual_all) & (actual_all > 0)
    if ok.any():
        errors[ok] = error_pct(actual_all[ok], predicted[ok])
    return pd.DataFrame({
        "phase": [*phases, TOTAL],
        "m": np.r_[fits["m"].to_numpy(dtype=float), np.nan],
        "b": np.r_[fits["b"].to_numpy(dtype=float), np.nan],
        "r2": np.r_[fits["r2"].to_numpy(dtype=float), np.nan],
        "predicted_s": predicted,
        "band_low_s": np.r_[fits["band_low"].to_numpy(dtype=float), prediction.band[0]],
        "band_high_s": np.r_[fits["band_high"].to_numpy(dtype=float), prediction.band[1]],
        "actual_s": actual_all,
        "error_pct": errors,
        "share_at_target": np.r_[fits["share_at_target"].to_numpy(dtype=float), np.nan],
        "actual_share": np.r_[actual_share, np.nan],
    }, columns=COMPARISON_COLUMNS)


def _experiment_inputs(profile, target_size, k) -> tuple[pd.DataFrame, float, int, np.ndarray]:
    """Return the checked profile (without attrs), target size, k and the measured sizes below the target."""
    profile = validate_profile(profile, "fractal experiment")
    # pandas deep-copies attrs in every operation: a measured profile's sidecar (machine,
    # per-run wall times) there made that copying most of the run time
    profile.attrs = {}
    target_size = float(target_size)
    k = int(k)
    if not np.isfinite(target_size) or target_size <= 0:
        raise ValidationError(f"fractal experiment: target_size must be a positive number, got {target_size!r}")
    if k < 2:
        raise ValidationError(f"fractal experiment: k must be at least 2 (a line needs two sizes), got {k}")
    measured = np.unique(profile["size"].to_numpy(dtype=float))
    small_sizes = measured[measured < target_size]
    if small_sizes.size < 2:
        raise ValidationError(
            f"fractal experiment: target size {target_size:g} has {small_sizes.size} measured size(s) below it; "
            f"at least 2 small runs are needed (measured sizes: {', '.join(f'{s:g}' for s in measured)})")
    return profile, target_size, k, small_sizes


def _large_run(shares: pd.DataFrame, target_size: float, phases, n_runs: int, notes: list) -> tuple:
    """Measured phase times and shares at the target size and its total (NaN where not measured); notes why not."""
    large = shares[np.isclose(shares["size"].to_numpy(dtype=float), target_size, rtol=1e-12, atol=0)]
    actual = large.set_index("phase")["time_s"].reindex(list(phases)).to_numpy(dtype=float)
    actual_share = large.set_index("phase")["share"].reindex(list(phases)).to_numpy(dtype=float)
    measured_total = float(large["total_s"].iloc[0]) if len(large) else float("nan")
    if n_runs == 0:
        notes.append(f"no measured run at the target size {target_size:g}: errors are not available")
    elif np.isnan(actual).any():
        missing = [p for p, a in zip(phases, actual) if np.isnan(a)]
        notes.append(f"phase(s) {missing} not in the large run: no error for them")
    return actual, actual_share, measured_total


def demo_experiment(
    profile: pd.DataFrame,
    target_size: float,
    *,
    threshold: float = 0.70,
    tolerance: float = 0.05,
    C: float | None = None,
    delta: float | None = None,
    k: int = 5,
    confidence: float = 0.95,
) -> FractalExperiment:
    """Run sections 2.1-2.3 of [EscobarBoppana] on ``profile`` and compare with the run at ``target_size``.

    Only the runs below ``target_size`` are used to find the major phases (cumulative
    share >= ``threshold``), C (``None``: detected with ``tolerance``) and the fitted
    sizes (N_i = C + i * delta, mapped to measured sizes as in the module docstring).
    The target size need not be measured; then the actual times and errors are NaN.
    Raises :class:`~workbench.errors.ValidationError` for a profile without the
    documented columns, a target not above two measured sizes, or a design that maps
    onto fewer than 2 measured sizes.

    Parameters
    ----------
    profile : pandas.DataFrame
        The profile frame (:func:`~workbench.models.fractal.phase_shares`' columns).
    target_size : float
        The size predicted.
    threshold : float, default 0.70
        Cumulative share of time the major phases reach.
    tolerance : float, default 0.05
        Largest change of the major phases' shares (absolute share) between sizes at and
        above C (C detection).
    C : float, optional
        The convergence size; default None: detected with ``tolerance``.
    delta : float, optional
        The step between fitted sizes; default None: ``(largest small run - C) / k``.
    k : int, default 5
        Number of fitted sizes.
    confidence : float, default 0.95
        Level of the prediction intervals.
    """
    profile, target_size, k, small_sizes = _experiment_inputs(profile, target_size, k)
    small = profile[profile["size"].to_numpy(dtype=float) < target_size]
    # the model's warnings are kept as notes (the dashboard shows them), not re-raised
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        phases = tuple(major_phases(small, threshold))
        notes = [str(w.message) for w in caught]
        auto = C is None
        if auto:
            C = float(convergence_size(small, list(phases), tolerance))
            notes.append(f"C = {C:g}: share of the major phases stable within {tolerance:g} beyond it")
        C = float(C)
        delta, requested, sizes, design_notes = _design(small_sizes, C, delta, k)
        notes += design_notes
        fitted = small[np.isin(small["size"].to_numpy(dtype=float), sizes)]
        model = FractalExtrapolator(threshold=threshold, tolerance=tolerance, confidence=confidence,
                                    phases=list(phases), min_size=float(sizes[0])).fit(fitted)
        prediction = model.predict(target_size)
    notes += list(prediction.warnings)

    shares = phase_shares(profile)
    large_runs = profile[np.isclose(profile["size"].to_numpy(dtype=float), target_size, rtol=1e-12, atol=0)]
    actual, actual_share, measured_total = _large_run(shares, target_size, phases, len(large_runs), notes)
    fits = prediction.phases.set_index("phase").loc[list(phases)]
    comparison = _comparison_frame(phases, fits, prediction, actual, actual_share, measured_total)
    return FractalExperiment(
        prediction=prediction, target_size=target_size, convergence_size=C, convergence_auto=auto, delta=delta,
        k=k, requested_sizes=requested, sizes=sizes, small_sizes=small_sizes, phases=phases,
        shares=shares, comparison=comparison, large_runs=large_runs,
        measured_total_s=measured_total, error_total_pct=float(comparison["error_pct"].to_numpy()[-1]),
        notes=tuple(notes),
    )


@dataclass(frozen=True)
class DesignChoices:
    """What the method can be asked on a profile's measured sizes (sections 2.2-2.3).

    Attributes
    ----------
    targets : the measured sizes with at least 2 smaller ones (possible N_Lrg), increasing.
    target_size : the chosen N_Lrg (one of ``targets``).
    small_sizes : the measured sizes below the target.
    convergence_sizes : the possible C: small sizes with at least 2 measured sizes between
        them and the target (a fit needs 2).
    k_max : the most fitted sizes that can be distinct: the small sizes above the smallest.
    delta_min, delta_max : the range of the size step delta: the smallest gap between small
        sizes up to their whole range (at least the gap).
    """

    targets: np.ndarray
    target_size: float
    small_sizes: np.ndarray
    convergence_sizes: np.ndarray
    k_max: int
    delta_min: float
    delta_max: float


def design_choices(profile: pd.DataFrame, target_size: float | None = None) -> DesignChoices:
    """Return the targets, convergence sizes C, k and delta that :func:`demo_experiment` can use.

    On ``profile`` with the target ``target_size`` (None: the largest measured size).

    Raises :class:`~workbench.errors.ValidationError` for fewer than 3 measured sizes or a
    target that is not a measured size above two others.

    Parameters
    ----------
    profile : pandas.DataFrame
        A profile frame (:mod:`workbench.models.fractal`).
    target_size : float or None, default None
        The target N_Lrg; None: the largest measured size.
    """
    sizes = np.unique(profile["size"].to_numpy(dtype=float))
    if sizes.size < 3:
        raise ValidationError(f"the profile has {sizes.size} measured size(s); the method needs at least 3: "
                              "2 small runs to fit and a larger one to predict")
    targets = sizes[2:]
    target = float(targets[-1]) if target_size is None else float(target_size)
    if not np.isin(target, targets):
        raise ValidationError(f"target size {target:g}: choose a measured size above two others "
                              f"({', '.join(f'{s:g}' for s in targets)})")
    small = sizes[sizes < target]
    gap = float(np.diff(small).min())
    return DesignChoices(targets=targets, target_size=target, small_sizes=small, convergence_sizes=small[:-2],
                         k_max=max(2, small.size - 1), delta_min=gap, delta_max=max(float(small[-1] - small[0]), gap))
