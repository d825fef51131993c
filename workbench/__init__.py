"""Parallel Performance Modeling Workbench.

Layers: :mod:`workbench.io` (loaders, dataset catalogue), :mod:`workbench.models`
(one sub-package per paper's method), :mod:`workbench.evaluation` (metrics),
:mod:`workbench.plots` (functions returning plotly figures) and :mod:`workbench.ui`
(ipywidgets dashboards that only wire widgets to the layers below).
"""

from workbench.errors import (
    DataFormatError,
    DatasetNotFoundError,
    NotFittedError,
    ParseWarning,
    ValidationError,
    WorkbenchError,
    WorkbenchWarning,
)

__version__ = "0.1.0"

__all__ = [
    "DataFormatError",
    "DatasetNotFoundError",
    "NotFittedError",
    "ParseWarning",
    "ValidationError",
    "WorkbenchError",
    "WorkbenchWarning",
    "__version__",
]
