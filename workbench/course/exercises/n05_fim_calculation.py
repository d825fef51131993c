"""Exercises of notebook 05, FiM-Cal ([Bhimani2019] section 2, Eqs. 1-12 and Algorithm 1).

Levels 2-4 calibrate FiM on the K-means runs measured on this machine (catalogue
``kmeans-fim``) with the dashboard's default controls, as :func:`workbench.views.fim.fim_view`
does (through :func:`~workbench.evaluation.fim_explore.calibrate_and_compare`).
"""

from __future__ import annotations

from functools import lru_cache

from workbench.course.exercise import choice, numeric
from workbench.evaluation.fim import KMEANS_FEATURES
from workbench.evaluation.fim_explore import calibrate_and_compare, fim_variant_name, predict_at_alpha
from workbench.io import fetch_dataset
from workbench.models.fim import base_probabilities, transition_matrix

#: Cycles and clock of the toy chain of the level-1 exercise (small enough to see 1/TC).
_TOY_TC, _TOY_F = 50.0, 2.4e9
#: The dashboard's default FiM-Cal controls (workbench.views.fim.DEFAULTS: paper model and
#: features, alpha from 0 in steps of 1e-3, tau = 0.5, at most 5000 steps).
_DASHBOARD = dict(features=KMEANS_FEATURES, model="paper", alpha_init=0.0, epsilon=1e-3, tau=0.5, max_iter=5000,
                  scale_utilization=True)
_FIM = fim_variant_name("paper", work_features=False)


@lru_cache(maxsize=1)
def _runs():
    return fetch_dataset("kmeans-fim").frame


def _paper_time(sc: float, u: float, processes: int = 4) -> float:
    """Eqs. 9-10 from the all-active row of the chain of Eqs. 6-8 (seconds)."""
    matrix = transition_matrix(processes, *base_probabilities(_TOY_TC, sc, u).as_tuple())
    return float(1.0 / ((1.0 - matrix[-1].sum()) * _TOY_F))


def _more_stalls() -> str:
    few, many = _paper_time(sc=5.0, u=0.9), _paper_time(sc=40.0, u=0.2)
    if abs(many - few) <= 1e-9 * few:
        return "it stays the same"
    return "it rises" if many > few else "it falls"


def _calibrated_alpha(**controls) -> float:
    experiment = calibrate_and_compare(_runs(), {**_DASHBOARD, **controls}, _FIM)
    return float(experiment.models[_FIM].alpha_)


def _fim_mean_error_pct() -> float:
    """FiM's mean error on the test runs at the calibrated alpha as the dashboard shows it (6 digits)."""
    experiment = calibrate_and_compare(_runs(), _DASHBOARD, _FIM)
    alpha = float(f"{experiment.models[_FIM].alpha_:.6g}")
    summary = predict_at_alpha(experiment, _FIM, alpha)[1].summary.set_index("model")
    return float(summary.loc[_FIM, "average_pct"])


EXERCISES = (
    choice(
        "05_fim_calculation/stalls-and-time", 1,
        "Predict before you compute: in the paper's Markov model (Eqs. 1-10) with t = 4 processes and TC = 50 "
        "cycles, the processes stall far more (SC goes from 5 to 40 cycles, U from 0.9 to 0.2). What happens to "
        "the predicted time T?",
        ("it rises", "it falls", "it stays the same"),
        _more_stalls,
        "Eq. 9 takes the completion probability from the all-active row only: which of P_act, P_a2p, P_pass, "
        "P_p2a enter the sum of that row, and what is P_act + P_a2p by Eq. 2?",
        explanation="P_act + P_a2p = 1 - 1/TC whatever U is, and SC never enters the all-active row, so "
        "T = 1/(F (1 - (1 - 1/TC)^t)): the paper's T is TC cycles divided over t processes, stalls or not.",
    ),
    numeric(
        "05_fim_calculation/calibrated-alpha", 2,
        "Open the dashboard on the measured K-means runs with its default settings (paper model, I, K, N, "
        "tau = 0.5). What alpha does Algorithm 1 calibrate?",
        _calibrated_alpha,
        "Read the star on Algorithm 1's walk (the first figure) or the 'calibrated α' readout.",
        explanation="The walk starts at alpha = 0 and moves up by epsilon = 0.001 per step; it stops at the "
        "first alpha whose relative RMS on the training runs is below tau.",
        rel_tol=0.01,
    ),
    numeric(
        "05_fim_calculation/looser-tau", 3,
        "Now move the primary slider tau from 0.5 to 0.6. Where does the walk stop: what alpha is calibrated?",
        lambda: _calibrated_alpha(tau=0.6),
        "A larger tau is reached earlier on the walk: follow the RMS curve from the left until it drops below the "
        "new tau line.",
        explanation="Algorithm 1 stops at the first alpha with RMS < tau, so a looser tau stops the walk at a "
        "smaller alpha; it is a stopping rule, not a best fit.",
        rel_tol=0.01,
    ),
    numeric(
        "05_fim_calculation/fim-miss", 4,
        "With the default settings, FiM is trained on the runs on 1, 2, 4 processes and scored on the larger test "
        "runs on 1-8 processes. What is its mean error on the test runs, in percent? Then explain the miss with the "
        "'Prediction vs actual' figure.",
        _fim_mean_error_pct,
        "Read the 'FiM (I, K, N): mean error' readout, or the FiM row of the Table 4 panel.",
        explanation="The paper's T is TC/(tF) times alpha, so FiM's time falls like 1/t and it predicts the "
        "largest t (8) as optimal for every test configuration, while this 2-core machine is fastest at t = 2 in "
        "three of the four (t = 6 in the fourth): FiM gets the optimal t right in none. Alpha scales every "
        "prediction by the same factor and cannot bend the curve.",
        rel_tol=0.03,
        unit="%",
    ),
)
