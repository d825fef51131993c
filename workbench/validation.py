"""Input checks shared by the models and metrics (messages name the caller and argument)."""

import numpy as np

from workbench.errors import ValidationError


def as_vector(x, name: str, where: str) -> np.ndarray:
    """``x`` as a 1-D float array (a scalar becomes one element), or a ValidationError
    saying ``where: name must be ...``."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: {name} must be numeric, got {x!r} ({exc})") from None
    if arr.ndim > 1:
        raise ValidationError(f"{where}: {name} must be one-dimensional, got shape {arr.shape}")
    return arr.reshape(-1)
