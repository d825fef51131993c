"""ADEPT: Automatic Downey-based Envelope-constrained Prediction Tool ([Deshmeh2013] chapter 3).

- :mod:`.envelope` — range pairs of the five cases (Appendix A) and the scale-free envelope;
- :mod:`.search` — the vectorised two-pass biased search (3.5.2);
- :mod:`.anomalies` — the R metric, anomaly candidates, removal curves, patterns (3.9);
- :mod:`.observations` — input checks, repeated runs, target weights, the cross-size union (3.12-3.15);
- :mod:`.fitting` — the search object (envelope, delta) and the biased per-target fits (3.5);
- :mod:`.results` — the per-target fits as a frozen table;
- :mod:`.warnings` — the warning rules, reliability judgment (3.10, Table 3);
- :mod:`.estimator` — :class:`Adept`, the scikit-learn estimator.
"""

from workbench.models.adept.anomalies import AnomalyReport, detect_anomalies, flatness, r_at_doubling, r_metric
from workbench.models.adept.envelope import Envelope, fit_envelope, range_pairs
from workbench.models.adept.estimator import WARNING_KINDS, Adept, aggregate_repeats, target_weights

__all__ = [
    "Adept",
    "WARNING_KINDS",
    "AnomalyReport",
    "Envelope",
    "aggregate_repeats",
    "detect_anomalies",
    "fit_envelope",
    "flatness",
    "r_at_doubling",
    "r_metric",
    "range_pairs",
    "target_weights",
]
