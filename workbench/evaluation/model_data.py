"""ADEPT vs Levenberg-Marquardt on data generated from the Downey model ([Deshmeh2013] section 3.6, Table 2).

The thesis generated 10 runtimes from a Downey instance, gave 4 of them to each fitting
method and predicted the other 6: ADEPT (like exhaustive search) was exact, while LM from
arbitrary initial guesses often landed far from the truth.

Also the SYNTHETIC example of the anomaly dashboard and its exercises: a Downey curve with one
injected anomaly (:func:`synthetic_anomaly_frame`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import quiet_warnings
from workbench.io import validate_scaling_frame
from workbench.models import downey
from workbench.models.adept import Adept
from workbench.models.baselines import DowneyLM, lm_from_random_starts

__all__ = ["TABLE2_N", "TABLE2_OBSERVED", "model_data_comparison", "synthetic_anomaly_frame"]

#: Allocations n = 2^k, k = 2..11, of which 4 spread ones (reaching past the saturation of the
#: thesis' A ranges) are observed; the other 6 are predicted.
TABLE2_N = 2.0 ** np.arange(2, 12)
TABLE2_OBSERVED = np.array([4.0, 32.0, 256.0, 2048.0])


def model_data_comparison(A, sigma, scale=3.7, n_starts=8, seed=0, units="fit") -> pd.DataFrame:
    """Max and mean error (%) on the 6 held-back points.

    ADEPT, and LM from ``n_starts`` random starts in the thesis' box A in [1, 3000], sigma
    in [0, 3000].

    ``scale`` is the time unit of the generated runtimes (seconds per model unit); use
    ``units="paper"`` with ``scale=1`` for the thesis' own setting.

    Parameters
    ----------
    A : float
        Average parallelism of the generating Downey model.
    sigma : float
        Its variance of parallelism.
    scale : float, default 3.7
        Seconds per model unit of the generated runtimes.
    n_starts : int, default 8
        Random starts of the LM baseline.
    seed : int, default 0
        Seed of the starts.
    units : {"fit", "paper"}, default "fit"
        ADEPT's and LM's time-scale convention.
    """
    t = scale * downey.runtime(TABLE2_N, A, sigma)
    seen = np.isin(TABLE2_N, TABLE2_OBSERVED)
    n_obs, t_obs, n_new, t_new = TABLE2_N[seen], t[seen], TABLE2_N[~seen], t[~seen]

    def errors(pred):
        e = np.abs(np.asarray(pred) / t_new - 1) * 100
        return float(np.nanmax(e)), float(np.nanmean(e))

    with quiet_warnings():  # the table is about the errors; the fits' caveats are not its subject
        rows = [("ADEPT", np.nan, np.nan, *errors(Adept(units=units).fit(n_obs, t_obs).predict(n_new)))]
        starts = lm_from_random_starts(n_obs, t_obs, n_starts=n_starts, seed=seed, units=units)
        for s in starts.itertuples(index=False):
            lm = DowneyLM(x0=(s.A0, s.sigma0), units=units).fit(n_obs, t_obs)
            rows.append(("LM", s.A0, s.sigma0, *errors(lm.predict(n_new))))
    return pd.DataFrame(rows, columns=["method", "A0", "sigma0", "max_error_pct", "mean_error_pct"])


def synthetic_anomaly_frame(A: float = 40.0, sigma: float = 0.5, tau: float = 2.0,
                            processes=(1, 2, 4, 8, 16, 32, 64, 128), anomaly_at: float = 32,
                            speedup_excess: float = 0.25) -> pd.DataFrame:
    """SYNTHETIC strong-scaling curve with one injected anomaly (nothing here was measured).

    t(n) = tau * T(n; A, sigma) seconds (Downey model, [Deshmeh2013] Table 1, no noise), except at
    ``anomaly_at``, whose runtime is divided by 1 + ``speedup_excess``: its speedup is 25 %
    too high, like the fast points of [Deshmeh2013] Fig. 9.  Returns a scaling frame
    (:mod:`workbench.io.scaling`) with benchmark ``"SYNTHETIC-anomaly"``, problem class
    ``"example"`` and a ``source`` column saying how each row was made.

    Parameters
    ----------
    A : float, default 40.0
        Average parallelism of the Downey model.
    sigma : float, default 0.5
        Its variance of parallelism.
    tau : float, default 2.0
        Seconds per model unit.
    processes : sequence of int, default (1, 2, 4, 8, 16, 32, 64, 128)
        Process counts of the curve.
    anomaly_at : float, default 32
        Process count whose runtime is too fast.
    speedup_excess : float, default 0.25
        How much too high its speedup is (0.25: 25 %).
    """
    n = np.asarray(processes, float)
    if anomaly_at not in n:
        raise ValueError(f"anomaly_at={anomaly_at!r} is not one of processes {n.tolist()}")
    t = tau * downey.runtime(n, A, sigma)
    t[n == anomaly_at] /= 1 + speedup_excess
    label = f"SYNTHETIC: Downey A={A:g}, sigma={sigma:g}, tau={tau:g} s"
    return validate_scaling_frame(pd.DataFrame({
        "benchmark": "SYNTHETIC-anomaly", "problem_class": "example", "processes": n.astype(int), "time_s": t,
        "source": np.where(n == anomaly_at, f"{label}; injected anomaly: speedup {speedup_excess:.0%} too high", label),
    }))
