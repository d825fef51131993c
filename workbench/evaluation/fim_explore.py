"""What the FiM-Cal dashboard computes, without widgets ([Bhimani2019] sections 2 and 4).

* :func:`calibrate_and_compare`: FiMCal with one set of Algorithm 1 parameters beside the
  two RBASP variants ([Barnes2008], Eq. 17), trained and scored by
  :func:`~workbench.evaluation.fim.run_fim_experiment`;
* :func:`predict_at_alpha`: the predictions and scores with FiM's alpha set by hand;
* :func:`markov_chain_at`: the Markov chain of Eqs. 6-8 of one configuration at ``t``
  processes and the Eq. 9-10 numbers beside it, drawn with a short stage
  (:func:`display_probabilities`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import ValidationError
from workbench.evaluation.fim import (
    KMEANS_FEATURES,
    Comparison,
    FiMExperiment,
    compare_predictions,
    run_fim_experiment,
)
from workbench.models.fim import (
    RBASP,
    U_TOLERANCE,
    FiMCal,
    calculation_time,
    stage_completion_probability,
    state_occupancy,
    transition_matrix,
)

__all__ = ["RBASP_VARIANTS", "MarkovChainView", "calibrate_and_compare", "display_probabilities", "fim_variant_name",
           "markov_chain_at", "predict_at_alpha"]

#: The RBASP variants shown beside FiM: name -> the g of Eq. 17.
RBASP_VARIANTS = {"RBASP linear g": "linear", "RBASP quadratic g": "quadratic"}


def fim_variant_name(model: str, work_features: bool) -> str:
    """Return the name of a FiM variant (Markov model and Eq. 11 features), for titles and tables.

    Parameters
    ----------
    model : {"paper", "barrier"}
        The Markov model.
    work_features : bool
        Eq. 11 on the work terms instead of the plain parameters.
    """
    return "FiM" + (" barrier ext." if model == "barrier" else "") + (
        " (I·N, I·K·N)" if work_features else " (I, K, N)")


def calibrate_and_compare(runs: pd.DataFrame, params: dict, name: str) -> FiMExperiment:
    """Fit ``FiMCal(**params)`` as ``name`` and both RBASP variants, and predict the test runs.

    Trained on the train runs of ``runs`` by :func:`~workbench.evaluation.fim.run_fim_experiment`.

    Parameters
    ----------
    runs : pandas.DataFrame
        Measured runs with a ``role`` column.
    params : dict
        Keyword arguments of :class:`~workbench.models.fim.FiMCal`.
    name : str
        The FiM variant's name in the results.
    """
    variants = {name: FiMCal(**params)}
    variants.update({label: RBASP(params["features"], g=g) for label, g in RBASP_VARIANTS.items()})
    return run_fim_experiment(runs, variants)


def predict_at_alpha(exp: FiMExperiment, name: str, alpha: float) -> tuple[dict[str, np.ndarray], Comparison]:
    """Predict the test runs with every model of ``exp``, FiM ``name`` at ``alpha``, and score them.

    FiM (when fitted) gets its calibrated alpha replaced by ``alpha``; the scores are
    :func:`~workbench.evaluation.fim.compare_predictions`.

    Parameters
    ----------
    exp : FiMExperiment
        A fitted experiment (:func:`calibrate_and_compare`).
    name : str
        The FiM variant whose alpha is replaced.
    alpha : float
        The sensitivity constant used.
    """
    predictions = dict(exp.predictions)
    fim = exp.models.get(name)
    if fim is not None:
        predictions[name] = fim.predict(exp.test, alpha=alpha)
    return predictions, compare_predictions(exp.test, predictions)


def display_probabilities(tc: float, sc: float, u: float, display_tc: float) -> tuple[float, float, float, float]:
    """Compute base-case probabilities (Eqs. 1-5) of a chain that completes after ``display_tc`` cycles.

    Instead of TC, for drawing it: with TC ~ 1e9 the completion probability per cycle,
    1/TC, is invisible in a heatmap or an occupancy plot.

    Kept from the real chain: P_pass = SC/TC and P_p2a = 1 - SC/TC (Eqs. 3-4), and the
    split of an active cycle between staying active and turning passive, U : 1 - U.
    Changed: completion P_s1 = 1/``display_tc``, so P_act = U (1 - 1/TC') and
    P_a2p = (1 - U)(1 - 1/TC') -- Eq. 1-2 up to the factor 1 - 1/TC', which keeps the
    chain valid whatever U is.  U is clipped to [0, 1].  Returns the argument tuple of
    :func:`~workbench.models.fim.transition_matrix`.

    Parameters
    ----------
    tc : float
        Total cycles TC.
    sc : float
        Stall cycles SC.
    u : float
        Utilisation U.
    display_tc : float
        Cycles per stage of the drawn chain, TC'.
    """
    if not (np.isfinite(tc) and np.isfinite(sc) and tc > 0 and 0 < sc < tc):
        raise ValidationError(f"display_probabilities: need 0 < SC < TC, got SC = {sc!r}, TC = {tc!r}")
    if not (np.isfinite(display_tc) and display_tc > 1):
        raise ValidationError(f"display_probabilities: display_tc must be > 1, got {display_tc!r}")
    u = float(np.clip(u, 0.0, 1.0))
    keep = 1.0 - 1.0 / display_tc
    return u * keep, (1.0 - u) * keep, sc / tc, 1.0 - sc / tc


@dataclass(frozen=True)
class MarkovChainView:
    """The chain of one configuration at ``processes`` and alpha (see :func:`markov_chain_at`).

    ``tc``, ``sc``, ``u``: the hardware variables FiM predicts (Eqs. 11-12);
    ``valid``: 0 < SC < TC (else ``matrix`` and ``occupancy`` are None); ``matrix``: P_ij
    drawn with TC' = ``display_tc``; ``occupancy``: the state occupancy over cycles from
    the all-active state; ``completion``: Eq. 9's P_s with the real TC; ``stage_time_s``:
    Eq. 10's T; ``prediction_s``: FiM's prediction (NaN: invalid hardware, neglected).
    """

    config: dict
    processes: int
    alpha: float
    display_tc: float
    tc: float
    sc: float
    u: float
    valid: bool
    matrix: np.ndarray | None = None
    occupancy: np.ndarray | None = None
    completion: float = float("nan")
    stage_time_s: float = float("nan")
    prediction_s: float = float("nan")

    @property
    def u_out_of_range(self) -> bool:
        """U outside [0, 1] (beyond the tolerance): Eq. 12 scaled it past a valid utilization."""
        return not 0 <= self.u <= 1 + U_TOLERANCE


def markov_chain_at(fim: FiMCal, config: dict, processes: int, alpha: float, display_tc: float) -> MarkovChainView:
    """Build the Markov chain (Eqs. 6-8) of ``config`` (I, K, N) at ``processes`` and ``alpha``.

    The matrix is drawn with ``display_tc`` cycles per stage (:func:`display_probabilities`);
    the occupancy runs ~4 TC'/t + 10 cycles, past the expected completion from the
    all-active state (Eq. 9).

    Parameters
    ----------
    fim : FiMCal
        A fitted FiM-Cal.
    config : dict
        The configuration: I, K, N as its feature columns.
    processes : int
        Process count t.
    alpha : float
        The sensitivity constant.
    display_tc : float
        Cycles per stage of the drawn chain.
    """
    t = int(processes)
    row = pd.DataFrame({k: [v] for k, v in config.items()} | {"processes": [t]})
    tc, sc, u = (float(v) for v in fim.predict_hardware(row, alpha).to_numpy()[0])
    common = dict(config=dict(config), processes=t, alpha=alpha, display_tc=display_tc, tc=tc, sc=sc, u=u)
    if not (tc > 1 and 0 < sc < tc):
        return MarkovChainView(valid=False, **common)
    matrix = transition_matrix(t, *display_probabilities(tc, sc, u, display_tc))
    stages = 1 if fim.stages is None else config[fim.stages]
    return MarkovChainView(
        valid=True, matrix=matrix, occupancy=state_occupancy(matrix, int(np.ceil(4 * display_tc / t)) + 10),
        completion=float(stage_completion_probability(t, tc)),
        stage_time_s=float(calculation_time(t, tc, fim.freq_hz_, stages)),
        prediction_s=float(fim.predict(row, alpha=alpha)[0]), **common)


#: Parameters of the K-means runs (re-exported for the callers of this module).
FEATURES = KMEANS_FEATURES
