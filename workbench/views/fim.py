"""The FiM-Cal dashboard's panels without widgets ([Bhimani2019] sections 2 and 4).

:class:`FiMState` holds what the panels depend on: the runs (measured K-means runs,
:data:`~workbench.io.measured.KMEANS_COLUMNS`) and the control values.  :func:`fim_view`
calibrates FiM (Algorithm 1) beside RBASP ([Barnes2008], Eq. 17) --
:func:`~workbench.evaluation.fim_explore.calibrate_and_compare`, cached when given a cache --
and returns :class:`FiMPanels`: the calibration trace (the main figure), prediction vs
actual, parity, Table 4, the regression mapping (Eq. 11, Fig. 10) and the Markov chain
(Eqs. 6-10) of one configuration, with the readouts as rows.  :func:`data_choices`,
:func:`fixed_choices` and :func:`data_summary_html` fill the pickers and the data line when
the runs change.

Speed: Algorithm 1 moves alpha by epsilon per step, so the dashboard caps ``max_iter``
(:data:`MAX_ITER`: 20 000 steps for the paper model, ~0.1-0.2 s; 25 for the barrier
extension, whose every step evaluates a phase-type maximum).
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.evaluation.fim import KMEANS_FEATURES, KMEANS_WORK_FEATURES, Comparison, FiMExperiment
from workbench.evaluation.fim_explore import (
    MarkovChainView,
    calibrate_and_compare,
    fim_variant_name,
    markov_chain_at,
    predict_at_alpha,
)
from workbench.models.fim import BaseProbabilities
from workbench.plots.fim import (
    PARAMETER_LABELS,
    calibration_trace,
    config_label,
    occupancy_figure,
    parity_figure,
    prediction_vs_actual,
    regression_slices,
    regression_surface,
    table4_figure,
    table4_frame,
    transition_heatmap,
)
from workbench.views.tables import Column, Table, fields_table

__all__ = ["ALPHA_START", "BASE_PROBABILITY_LABELS", "DEFAULTS", "DISPLAY_TC", "FEATURES", "MAX_ITER", "FiMPanels",
           "FiMState", "base_probabilities_table", "data_choices", "data_summary_html", "fim_parameters", "fit_key",
           "fixed_choices", "fim_view"]

#: Feature choices of Eq. 11 (and Eq. 17): the paper's plain parameters, or the K-means
#: work terms I N and I K N (beyond the paper, see workbench.evaluation.fim).
FEATURES = {"paper": KMEANS_FEATURES, "work": KMEANS_WORK_FEATURES}
#: Cap of Algorithm 1's iterations in the dashboard, per Markov model (see the module docstring).
MAX_ITER = {"paper": 20_000, "barrier": 25}
#: Initial Algorithm 1 controls: the paper's start alpha = 0, a tau the measured runs can reach
#: (their lowest relative RMS is 0.485, see workbench.ui.fim_dashboard), epsilon and max_iter
#: sized for the dashboard's latency.
DEFAULTS = {"alpha_init": 0.0, "epsilon": 1e-3, "tau": 0.5, "max_iter": 5000}
#: The alpha start each Markov model gets when the user has not chosen one: the barrier
#: extension's 25 steps cannot walk from the paper's 0, so it starts where the authors' code
#: does, at 1.
ALPHA_START = {"paper": DEFAULTS["alpha_init"], "barrier": 1.0}
#: Cycles per stage of the chain drawn in the Markov view (see display_probabilities).
DISPLAY_TC = 40


class Cache(Protocol):
    """What :func:`fim_view` needs of a cache: ``get(key, compute)`` (e.g. :class:`~workbench.ui.common.FitCache`)."""

    def get(self, key: Hashable, compute: Callable[[], object]) -> object:
        """Return the value cached for ``key``, computing it with ``compute()`` on a miss.

        Parameters
        ----------
        key : hashable
            What identifies the value (the runs and the FiMCal parameters).
        compute : callable
            Computes the value, without arguments.
        """


@dataclass(frozen=True, eq=False)
class FiMState:
    """Everything the panels depend on.

    ``runs``: the runs (train and test); ``features``: ``"paper"`` or ``"work"``
    (:data:`FEATURES`); ``model``: ``"paper"`` or ``"barrier"``; ``alpha_init``,
    ``epsilon``, ``tau``, ``max_iter`` (as asked: capped by :data:`MAX_ITER`),
    ``scale_utilization``: Algorithm 1's controls; ``alpha``: alpha used for prediction
    (None: the calibrated alpha); ``config``: the test configuration (I, K, N) of the
    prediction and Markov views (None: the last one); ``processes``: t of the Markov view;
    ``variable``, ``axes``, ``fixed``, ``surface_view``: the regression view (hardware
    column, the two parameters on the axes, the value of the third (None: its middle
    training value), ``"2d"`` slices or the ``"3d"`` surface).
    """

    runs: pd.DataFrame
    features: str = "paper"
    model: str = "paper"
    alpha_init: float = DEFAULTS["alpha_init"]
    epsilon: float = DEFAULTS["epsilon"]
    tau: float = DEFAULTS["tau"]
    max_iter: int = DEFAULTS["max_iter"]
    scale_utilization: bool = True
    alpha: float | None = None
    config: tuple[float, float, float] | None = None
    processes: int = 4
    variable: str = "cycles"
    axes: tuple[str, str] = ("iterations", "clusters")
    fixed: float | None = None
    surface_view: str = "2d"

    @property
    def fim_name(self) -> str:
        """The FiM variant chosen (model and features), for titles."""
        return fim_variant_name(self.model, self.features == "work")


@dataclass(frozen=True, eq=False)
class FiMPanels:
    """What the dashboard shows for one :class:`FiMState`.

    Figures: ``calibration`` (main: Algorithm 1's trace), ``prediction`` (vs actual, one
    configuration), ``parity``, ``table4`` (figure; ``table4_table`` the frame beside it),
    ``surface`` (regression mapping), ``heatmap`` and ``occupancy`` (Markov chain).
    Readouts: ``summary_rows`` and ``markov_rows`` (label -> value), ``notes`` (the fit's
    warnings, shown as ``notes_kind``: ``"error"``, ``"warning"`` or ``"info"``).  Also the
    ``experiment``, the ``comparison`` at ``alpha`` (the alpha used), the
    ``calibrated_alpha`` (None: FiM not fitted) and ``fit_key`` (changes with a recalibration).
    """

    experiment: FiMExperiment
    comparison: Comparison
    fim_name: str
    fit_key: tuple
    alpha: float
    calibrated_alpha: float | None
    calibration: go.Figure
    prediction: go.Figure
    parity: go.Figure
    table4: go.Figure
    table4_table: pd.DataFrame
    surface: go.Figure
    heatmap: go.Figure
    occupancy: go.Figure
    summary_rows: dict[str, str] = field(default_factory=dict)
    markov_rows: dict[str, str] = field(default_factory=dict)
    notes: str = ""
    notes_kind: str = "info"
    markov: MarkovChainView | None = None

    @property
    def figures(self) -> dict[str, go.Figure]:
        """The secondary figures by panel name (the main and prediction figures left out)."""
        return {"parity": self.parity, "table4": self.table4, "surface": self.surface, "heatmap": self.heatmap,
                "occupancy": self.occupancy}


def fim_parameters(state: FiMState) -> dict:
    """Return the FiMCal parameters of ``state``, ``max_iter`` capped by :data:`MAX_ITER`.

    Parameters
    ----------
    state : FiMState
        The runs and the control values.
    """
    return dict(features=FEATURES[state.features], model=state.model, alpha_init=state.alpha_init,
                epsilon=state.epsilon, tau=state.tau, max_iter=min(int(state.max_iter), MAX_ITER[state.model]),
                scale_utilization=bool(state.scale_utilization))


def fit_key(state: FiMState) -> tuple:
    """Return the identity of the calibration ``state`` asks for: (the runs, the FiMCal parameters).

    Parameters
    ----------
    state : FiMState
        The runs and the control values.
    """
    return (id(state.runs), tuple(sorted(fim_parameters(state).items())))


def _placeholder(text: str) -> go.Figure:
    # what workbench.ui.common.placeholder_figure draws, without importing the widget helpers
    fig = go.Figure()
    fig.update_layout(title=dict(text=text), height=420, xaxis=dict(visible=False), yaxis=dict(visible=False))
    return fig


def _significant(value: float, digits: int = 6) -> float:
    return float(f"{value:.{digits}g}")


def fim_view(state: FiMState, cache: Cache | None = None) -> FiMPanels:
    """Calibrate (or reuse the cached calibration) and compute every panel of ``state``.

    Raises a :class:`~workbench.errors.WorkbenchError` when the runs cannot be fitted at
    all (no model); a FiM that cannot be calibrated leaves RBASP shown and says why in
    ``notes``.

    Parameters
    ----------
    state : FiMState
        The runs and the control values.
    cache : Cache, optional
        Reuses calibrations per :func:`fit_key`; default None: always calibrate.
    """
    params, name, key = fim_parameters(state), state.fim_name, fit_key(state)

    def fit() -> FiMExperiment:
        return calibrate_and_compare(state.runs, params, name)

    exp = cache.get(key, fit) if cache is not None else fit()
    fim = exp.models.get(name)
    calibrated = float(fim.alpha_) if fim is not None else None
    if state.alpha is not None:
        alpha = state.alpha
    else:
        alpha = _significant(calibrated) if calibrated is not None else 1.0
    predictions, comparison = predict_at_alpha(exp, name, alpha)
    configs = data_choices(state.runs)[0]
    config = dict(zip(KMEANS_FEATURES, state.config or configs[-1][1], strict=True))
    if fim is not None:
        calib = calibration_trace(fim.calibration_, fim.tau, alpha_used=alpha, error=fim.error)
        notes, kind = "\n".join(exp.warnings), ("info" if fim.calibration_.converged else "warning")
    else:
        calib = _placeholder("FiM could not be fitted: see the message above")
        notes, kind = "FiM could not be fitted with these settings:\n" + "\n".join(exp.warnings), "error"
    table = table4_frame(comparison)
    markov, heatmap, occupancy, markov_rows = _markov(fim, name, config, state.processes, alpha)
    return FiMPanels(
        experiment=exp, comparison=comparison, fim_name=name, fit_key=key, alpha=alpha, calibrated_alpha=calibrated,
        calibration=calib, prediction=prediction_vs_actual(exp.test, predictions, config),
        parity=parity_figure(comparison), table4=table4_figure(table), table4_table=table,
        surface=_surface(state, exp, fim), heatmap=heatmap, occupancy=occupancy,
        summary_rows=_summary_rows(state, fim, comparison, alpha), markov_rows=markov_rows, notes=notes,
        notes_kind=kind, markov=markov)


def _summary_rows(state: FiMState, fim, comparison: Comparison, alpha: float) -> dict[str, str]:
    rows = {}
    if fim is not None:
        c = fim.calibration_
        capped = " (capped)" if int(state.max_iter) > MAX_ITER[state.model] else ""
        rows.update({
            "calibrated α": f"{c.alpha:.6g} ({'converged' if c.converged else 'NOT converged'}, "
                            f"{c.iterations} steps{capped}, {'up' if c.direction > 0 else 'down'})",
            "RMS at α (train)": f"{c.rms:.4g} ({fim.error}); τ = {fim.tau:g}",
        })
        lowest = float(c.trace["rms"].min())
        if not c.converged and np.isfinite(lowest):
            rows["τ out of reach"] = (f"the lowest RMS on the walk is {lowest:.4g}: choose τ above it (or "
                                      "more steps, a larger ε, another α start)")
        rows.update({
            "neglected train rows": f"{c.neglected}",
            "α used for prediction": f"{alpha:.6g}",
            "F used": f"{fim.freq_hz_ / 1e9:.3f} GHz",
            "R² of TC, SC, U": ", ".join(f"{v:.3f}" for v in fim.regression_.r2_),
        })
    for rec in comparison.summary.itertuples(index=False):
        if pd.isna(rec.average_pct):
            rows[f"{rec.model}: mean error"] = "no valid prediction (all refused: invalid hardware variables)"
            continue
        rows[f"{rec.model}: mean error"] = (f"{rec.average_pct:.1f} % (worst {rec.worst_pct:.1f} %, "
                                            f"optimal t right in {rec.optimal_matches} of {rec.configs})")
    return rows


def _surface(state: FiMState, exp: FiMExperiment, fim) -> go.Figure:
    if fim is None:
        return _placeholder("No regression (FiM not fitted)")
    x, y = state.axes
    other = next(p for p in KMEANS_FEATURES if p not in (x, y))
    fixed = state.fixed if state.fixed is not None else fixed_choices(state.runs, state.axes)[1]
    runs = exp.train[exp.train["processes"] == fim.regression_processes]
    draw = regression_surface if state.surface_view == "3d" else regression_slices
    return draw(runs, fim.regression_, state.variable, x, y, fixed={other: fixed})


def _markov(fim, name: str, config: dict, processes: int, alpha: float):
    """Build the Markov view: (chain, heatmap, occupancy figure, readout rows)."""
    if fim is None:
        blank = _placeholder("No Markov chain (FiM not fitted)")
        return None, blank, blank, {}
    chain = markov_chain_at(fim, config, processes, alpha, DISPLAY_TC)
    tc, sc, u, t = chain.tc, chain.sc, chain.u, chain.processes
    if not chain.valid:
        blank = _placeholder("Invalid hardware variables at this α")
        return chain, blank, blank, {"hardware at α": f"TC = {tc:.4g}, SC = {sc:.4g}: not valid (need 0 < SC < TC)"}
    heatmap = transition_heatmap(
        chain.matrix, f"P_ij({t}) with TC' = {DISPLAY_TC}, SC/TC = {sc / tc:.3f}, U = {min(max(u, 0), 1):.3f}")
    rows = {
        f"{config_label(config)} at α = {alpha:.4g}": f"TC = {tc:.4g} cycles, SC = {sc:.4g}, U = {u:.4f}",
        "per-cycle completion 1/TC (Eq. 5)": f"{1 / tc:.3g}   (drawn with 1/TC' = {1 / DISPLAY_TC:.3g})",
        f"Eq. 9: P_s = 1 - (1 - 1/TC)^{t}": f"{chain.completion:.4g}",
        f"Eq. 10: T = 1/(P_s F) at t = {t}": f"{chain.stage_time_s:.4g} s (SC and U do not enter)",
        f"{name} prediction at t = {t}": "invalid hardware (neglected)" if not np.isfinite(chain.prediction_s)
        else f"{chain.prediction_s:.4g} s",
    }
    if chain.u_out_of_range:
        rows["warning"] = f"U = {u:.4g} is outside [0, 1] at this α (Eq. 12 scales U): invalid, drawn with U = 1"
    return chain, heatmap, occupancy_figure(chain.occupancy), rows


# ------------------------------------------------------------------ choices when the runs change


def data_choices(runs: pd.DataFrame) -> tuple[list[tuple[str, tuple]], list[tuple[str, tuple[str, str]]]]:
    """Return the menu options of the test configurations and of the regression view's axes.

    Configurations: (label, (I, K, N)) of every distinct test configuration, in order;
    axes: (label, (x, y)) of every pair of I, K, N, I x K first as in Fig. 10.

    Parameters
    ----------
    runs : pandas.DataFrame
        Measured runs with a ``role`` column.
    """
    test = runs[runs["role"] == "test"].drop_duplicates(list(KMEANS_FEATURES))
    configs = [(config_label(dict(zip(KMEANS_FEATURES, row, strict=True))), tuple(float(v) for v in row))
               for row in test[list(KMEANS_FEATURES)].itertuples(index=False)]
    pairs = [(f"{PARAMETER_LABELS[x]} × {PARAMETER_LABELS[y]}", (x, y))
             for x, y in itertools.combinations(KMEANS_FEATURES, 2)]
    return configs, pairs


def fixed_choices(runs: pd.DataFrame, axes: tuple[str, str]) -> tuple[list[tuple[str, float]], float]:
    """Return the options for the parameter not on ``axes`` and its default (the middle value).

    The values of the training runs on one process (those Eq. 11 is fitted on), else of all runs.

    Parameters
    ----------
    runs : pandas.DataFrame
        Measured runs.
    axes : tuple of (str, str)
        The two parameters on the regression view's axes.
    """
    x, y = axes
    other = next(p for p in KMEANS_FEATURES if p not in (x, y))
    values = sorted(runs.loc[(runs["role"] == "train") & (runs["processes"] == 1), other].unique())
    values = values or sorted(runs[other].unique())
    options = [(f"{PARAMETER_LABELS[other].split(' ')[0]} = {v:g}", float(v)) for v in values]
    return options, float(values[len(values) // 2])


def data_summary_html(runs: pd.DataFrame, meta: dict, label: str) -> str:
    """One line about the runs: counts, configurations, process counts, machine and date (escaped).

    Parameters
    ----------
    runs : pandas.DataFrame
        Measured runs.
    meta : dict
        Their metadata (machine, date), e.g. the sidecar.
    label : str
        The data source's name.
    """
    configs = len(data_choices(runs)[0])
    train = runs[runs["role"] == "train"]
    facts = [f"{len(runs)} runs ({len(train)} train, {(runs['role'] == 'test').sum()} test)",
             f"{train.drop_duplicates(list(KMEANS_FEATURES)).shape[0]} training and {configs} test configurations",
             "processes " + ", ".join(f"{v:g}" for v in sorted(runs["processes"].unique()))]
    machine = meta.get("machine") or {}
    if machine:
        facts.append(f"{machine.get('cpu_model', '?')}, {machine.get('cpus', '?')} CPUs")
    if meta.get("date"):
        facts.append(f"measured {str(meta['date'])[:10]}")
    if meta.get("description") and str(meta["description"]) not in label:
        facts.append(str(meta["description"]))
    return f"<div style='font-size:13px'><b>{html.escape(label)}</b>: {html.escape('; '.join(facts))}</div>"


#: The base case's probabilities (Eqs. 1-5) in words.
BASE_PROBABILITY_LABELS = {
    "p_act": Column("P_act: stay active (Eq. 1)", "number"),
    "p_a2p": Column("P_a2p: active → passive (Eq. 2)", "number"),
    "p_pass": Column("P_pass: stay passive (Eq. 3)", "number"),
    "p_p2a": Column("P_p2a: passive → active (Eq. 4)", "number"),
    "p_s1": Column("P_s1: stage complete, 1/TC (Eq. 5)", "number")}


def base_probabilities_table(probabilities: BaseProbabilities, title: str = "") -> Table:
    """Return :class:`~workbench.models.fim.BaseProbabilities` as a table of the five probabilities, in words.

    Parameters
    ----------
    probabilities : BaseProbabilities
        Probabilities of Eqs. 1-5.
    title : str, default ""
        Title above the table (HTML).
    """
    return fields_table(probabilities, BASE_PROBABILITY_LABELS, title)
