"""FiM (Bhimani et al. 2019): calculation model (Markov chain + regression + alpha
calibration, section 2) and the RBASP baseline it is compared with (section 4, Eq. 17).

* :mod:`workbench.models.fim.markov` -- Eqs. 1-10 and the barrier-synchronised extension.
* :mod:`workbench.models.fim.calibration` -- Eq. 11 regression mapping, Eq. 12 and
  Algorithm 1 (alpha calibration), and the :class:`FiMCal` estimator.
* :mod:`workbench.models.fim.rbasp` -- :class:`RBASP`, Eq. 17.
"""

from workbench.models.fim.calibration import (
    HARDWARE_COLUMNS,
    CalibrationResult,
    FiMCal,
    HardwareRegression,
    calibrate_alpha,
    feature_columns,
    feature_matrix,
    markov_times,
)
from workbench.models.fim.markov import (
    U_TOLERANCE,
    BaseProbabilities,
    effective_utilization,
    barrier_stage_time,
    base_probabilities,
    calculation_time,
    hardware_valid,
    stage_completion_probability,
    stage_time,
    state_occupancy,
    transition_matrix,
    transition_matrix_literal,
)

from workbench.models.fim.rbasp import RBASP

__all__ = [
    "HARDWARE_COLUMNS",
    "CalibrationResult",
    "FiMCal",
    "HardwareRegression",
    "RBASP",
    "calibrate_alpha",
    "feature_columns",
    "feature_matrix",
    "markov_times",
    "U_TOLERANCE",
    "BaseProbabilities",
    "effective_utilization",
    "barrier_stage_time",
    "base_probabilities",
    "calculation_time",
    "hardware_valid",
    "stage_completion_probability",
    "stage_time",
    "state_occupancy",
    "transition_matrix",
    "transition_matrix_literal",
]
