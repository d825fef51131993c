"""Real workloads to measure on this machine.

* :mod:`workbench.workloads.kmeans` - bulk-synchronous parallel K-means (Lloyd), the
  application of FiM's evaluation (paper section 4): ``run_kmeans``, ``KMeansRun`` and the
  CLI ``python -m workbench.workloads.kmeans``. (Not imported here, so that ``-m`` runs
  the module once.)
"""
