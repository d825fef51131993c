"""Real workloads to measure on this machine.

* :mod:`workbench.workloads.kmeans` - bulk-synchronous parallel K-means (Lloyd), the
  application of FiM's evaluation (paper section 4): ``run_kmeans``, ``KMeansRun`` and the
  CLI ``python -m workbench.workloads.kmeans``. (Not imported here, so that ``-m`` runs
  the module once.)
* :mod:`workbench.workloads.phases_demo` - a multi-phase program (stencil O(n^2), sort
  O(n^2 log n), LU solve O(n^3)) timed per phase for the fractal extrapolation of [EscobarBoppana]:
  ``measure_phases_demo`` and the CLI ``python -m workbench.workloads.phases_demo``.
"""
