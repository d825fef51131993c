"""The interval of a region prediction: calibrated on held-out region predictions.

``point x/÷ exp(q(level) * (shape + sqrt(ln(n / n_fitted))))``: :func:`interval_half_width`,
with the numbers of ``region_calibration.json`` (made by ``tools/region_coverage.py
--calibrate``), used by :class:`workbench.models.regions.RegionPredictor`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from workbench.errors import ValidationError

__all__ = ["CALIBRATION_PATH", "interval_half_width", "interval_scale", "shipped_region_calibration"]

#: The shipped region interval calibration (numbers only), made by ``tools/region_coverage.py --calibrate``.
CALIBRATION_PATH = Path(__file__).with_name("region_calibration.json")


@functools.lru_cache(maxsize=1)
def shipped_region_calibration() -> dict:
    """Return the shipped region interval calibration (``region_calibration.json``).

    Keys: ``shape`` (the constant of :func:`interval_scale`), ``levels`` and ``quantiles``
    (for each central level, that quantile of the standardised |log error| of held-out
    region predictions, every development source weighted equally), and how it was made.
    """
    return json.loads(CALIBRATION_PATH.read_text())


def interval_scale(n, n_fitted, shape: float) -> np.ndarray:
    """Return how a region prediction's log error grows with the distance past its measurements.

    ``shape + sqrt(max(0, ln(n / n_fitted))))``: a floor for the error inside the measured
    range (noise, a trend the model misses), and growth like the square root of the
    log-distance past the largest fitted allocation beyond it (measured on held-out region
    predictions of four sources by ``tools/region_coverage.py``: their errors grow with the
    distance, slower than in proportion to it).

    Parameters
    ----------
    n : array-like of float
        Target allocations.
    n_fitted : float or array-like of float
        The largest allocation the region was fitted on (one per target, or one for all).
    shape : float
        The floor (the calibration's ``shape``).
    """
    x = np.log(np.maximum(np.asarray(n, float) / np.asarray(n_fitted, float), 1.0))
    return shape + np.sqrt(x)


def interval_half_width(n, n_fitted: float, level: float, calibration: dict | None = None) -> np.ndarray:
    """Return the log half-width of a region's central ``level`` interval at allocations ``n``.

    ``q(level) * interval_scale(n, n_fitted, shape)``, where ``q(level)`` is the calibration's
    quantile of standardised held-out errors at that level (linear between the stored levels).

    Parameters
    ----------
    n : array-like of float
        Target allocations.
    n_fitted : float
        The largest allocation the region was fitted on.
    level : float
        Central probability of the interval, in (0, the largest calibrated level].
    calibration : dict or None, default None
        ``shape``, ``levels`` and ``quantiles``; None: :func:`shipped_region_calibration`.

    Raises
    ------
    ValidationError
        When ``level`` is past the calibrated levels.

    Examples
    --------
    >>> cal = {"shape": 2.0, "levels": [0.5, 0.8], "quantiles": [0.1, 0.25]}
    >>> interval_half_width([8, 32], 8, 0.8, cal).round(3).tolist()  # 0.25 * (2 + sqrt(ln 4))
    [0.5, 0.794]
    """
    cal = calibration if calibration is not None else shipped_region_calibration()
    levels, quantiles = np.asarray(cal["levels"], float), np.asarray(cal["quantiles"], float)
    if not 0 < level <= levels.max():
        raise ValidationError(f"RegionPredictor: region intervals are calibrated for levels in (0, {levels.max():g}]; "
                              f"got {level!r}")
    q = float(np.interp(level, np.concatenate([[0.0], levels]), np.concatenate([[0.0], quantiles])))
    return q * interval_scale(n, n_fitted, float(cal["shape"]))
