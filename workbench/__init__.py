"""Parallel Performance Modeling Workbench.

Layers: :mod:`workbench.io` (loaders, dataset catalogue), :mod:`workbench.models`
(one sub-package per paper's method), :mod:`workbench.evaluation` (metrics),
:mod:`workbench.plots` (functions returning plotly figures) and :mod:`workbench.ui`
(ipywidgets dashboards that only wire widgets to the layers below).

References
----------
Docstrings cite the methods' papers by these keys, with the papers' own equation, section
and table numbers (e.g. "[Deshmeh2013] eq. (3.4)"); docs/references.md has the full entries.

* [Deshmeh2013] G. Deshmeh, ADEPT: Automatic Downey-based Envelope-constrained Prediction
  Tool, PhD thesis, University of Windsor, 2013, chapter 3 and Appendix A.
* [Downey1997] A. B. Downey, A model for speedup of parallel programs, UCB/CSD-97-933, 1997.
* [Ghosal1991] D. Ghosal, G. Serazzi, S. K. Tripathi, The processor working set and its use
  in scheduling multiprocessor systems, IEEE TSE, 1991.
* [Bhimani2019] J. Bhimani, N. Mi, M. Leeser, Z. Yang, New Performance Modeling Methods for
  Parallel Data Processing Applications, ACM TOMACS, 2019 (FiM-Cal and FiM-Com).
* [Barnes2008] B. J. Barnes et al., A Regression-Based Approach to Scalability Prediction,
  ICS 2008 (RBASP).
* [Papadopoulou2015] N. Papadopoulou, G. Goumas, N. Koziris, A Machine-Learning Approach for
  Communication Prediction of Large-Scale Applications, IEEE CLUSTER 2015.
* [Branikas2024] F. Branikas, Performance Analysis and Modeling of Parallel Applications in
  Distributed Memory Architectures, diploma thesis, NTUA, 2024.
* [EscobarBoppana] R. D. Escobar, R. V. Boppana, Performance Prediction of Parallel
  Scientific Applications, University of Texas at San Antonio.
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
