"""n -> t strong-scaling models under one contract, calibrated intervals and the predictor.

* :mod:`.base` -- the contract (:class:`ScalingModel`), :data:`MODELS` (``"amdahl"``,
  ``"usl"``, ``"downey-lm"``, ``"adept"``, ``"pmnf"``) and :class:`ModelWarning`;
* :mod:`.calibration` -- how far off each model is on unseen real curves, as a function of
  extrapolation distance, number of allocations and fit quality (the shipped table,
  ``calibration.json``, is made by ``tools/scaling_benchmark.py``);
* :mod:`.predictor` -- :class:`ScalingPredictor`, which weights every model by
  extrapolation-oriented cross-validation and returns predictions with intervals and
  measured warnings (``predict_frame``);
* :mod:`.rules` -- the predictor's combination, plausibility and warning rules as functions of
  arrays (shared with the benchmark) and the thresholds behind them.
"""

from workbench.models.scaling.base import (
    MODELS,
    AdeptScaling,
    AmdahlScaling,
    DowneyLMScaling,
    ModelWarning,
    PMNFScaling,
    ScalingModel,
    USLScaling,
)
from workbench.models.scaling.calibration import Calibration, ErrorModel, default_calibration
from workbench.models.scaling.predictor import PREDICT_FRAME_COLUMNS, WARNING_KINDS, ScalingPredictor

__all__ = [
    "MODELS",
    "PREDICT_FRAME_COLUMNS",
    "WARNING_KINDS",
    "AdeptScaling",
    "AmdahlScaling",
    "Calibration",
    "DowneyLMScaling",
    "ErrorModel",
    "ModelWarning",
    "PMNFScaling",
    "ScalingModel",
    "ScalingPredictor",
    "USLScaling",
    "default_calibration",
]
