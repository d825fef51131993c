"""FiM ([Bhimani2019]).

Calculation model (Markov chain + regression + alpha calibration, section 2) and the RBASP
baseline it is compared with (section 4, Eq. 17).

* :mod:`workbench.models.fim.markov` -- Eqs. 1-10 and the barrier-synchronised extension.
* :mod:`workbench.models.fim.calibration` -- Eq. 11 regression mapping, Eq. 12 and
  Algorithm 1 (alpha calibration), and the :class:`FiMCal` estimator.
* :mod:`workbench.models.fim.rbasp` -- :class:`RBASP`, Eq. 17.
* :mod:`workbench.models.fim.queueing` -- FiM-Com (section 3): the D -> M -> C -> R
  queueing networks of scatter, broadcast and gather, :func:`simulate_collective`.
* :mod:`workbench.models.fim.service_fit` -- station service-time fits with chi-square
  goodness of fit (section 3.3, Fig. 11).
* :mod:`workbench.models.fim.fim_com` -- :class:`FiMCom`, the estimator: fitted stations in,
  communication times out.
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
from workbench.models.fim.fim_com import FiMCom
from workbench.models.fim.markov import (
    U_TOLERANCE,
    BaseProbabilities,
    barrier_stage_time,
    base_probabilities,
    calculation_time,
    effective_utilization,
    hardware_valid,
    stage_completion_probability,
    stage_time,
    state_occupancy,
    transition_matrix,
    transition_matrix_literal,
)
from workbench.models.fim.queueing import (
    PATTERNS,
    CollectiveSimulation,
    ServiceRates,
    default_phi,
    fifo_departures,
    metadata_departures,
    simulate_collective,
)
from workbench.models.fim.rbasp import RBASP
from workbench.models.fim.service_fit import StationFit, chi_square_test, fit_station, rates_from_fits

__all__ = [
    "HARDWARE_COLUMNS",
    "CalibrationResult",
    "FiMCal",
    "FiMCom",
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
    "PATTERNS",
    "CollectiveSimulation",
    "ServiceRates",
    "default_phi",
    "fifo_departures",
    "metadata_departures",
    "simulate_collective",
    "StationFit",
    "chi_square_test",
    "fit_station",
    "rates_from_fits",
]
