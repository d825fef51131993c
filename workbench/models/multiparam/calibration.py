"""The multi-parameter interval calibration shipped with the package.

``multiparam_calibration.json`` beside this module, made by ``tools/multiparam_calibrate.py``
(error models, member priors, softmin temperature and risk threshold; numbers only).
"""

from __future__ import annotations

import functools
from pathlib import Path

from workbench.errors import ValidationError
from workbench.models.scaling.calibration import Calibration

__all__ = ["CALIBRATION_PATH", "default_calibration"]

#: Where the shipped calibration lives.
CALIBRATION_PATH = Path(__file__).with_name("multiparam_calibration.json")


@functools.lru_cache(maxsize=1)
def default_calibration() -> Calibration:
    """Return the multi-parameter calibration shipped with the package (``multiparam_calibration.json``)."""
    if not CALIBRATION_PATH.exists():
        raise ValidationError(f"the interval calibration {CALIBRATION_PATH} is missing; run "
                              "tools/multiparam_calibrate.py")
    return Calibration.from_json(CALIBRATION_PATH)
