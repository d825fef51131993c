"""The benchmark cases shared by ``test_bench_adept.py`` (pytest-benchmark) and
``run_adept_bench.py`` (plain script): one input, every method.

Input (thesis 3.6 / Table 2 style): 4 observations at n = 4, 32, 256, 2048 of the Downey
instance A = 600, sigma = 1.5 (high-variance set; it saturates at A + (A - 1) sigma = 1498.5,
inside the observed range, so the instance is identifiable with a fitted time scale), in
seconds (3.7 s per model unit), and 50 prediction targets n = round(geomspace(8, 4096, 50)).

Cases (each returns its predictions at the 50 targets where that makes sense):

- ``adept_curve``: ADEPT fit + predict of all 50 targets, thesis resolution (pass 1: 5000 A
  values; pass 2: 500 x 500 within +-15 %) -- the whole-curve use;
- ``adept_per_target``: the same, one fresh ADEPT fit per target (50 fits);
- ``lm_one``: one Levenberg-Marquardt fit (DowneyLM, default start), all targets from it;
- ``lm_per_target``: 50 LM fits with ADEPT's per-target weights (what a per-target method
  needs);
- ``exhaustive_one``: plain exhaustive search, one fit: A in [1, 3000] x sigma in [0, 3000]
  on a 3000 x 3000 grid (steps 1.0003 in both), uniform weights, brute-force WSSRE
  (``search.grid_objective_bruteforce`` in chunks of 100 A rows to bound memory);
- ``bruteforce_window_per_target`` / ``fast_window_per_target`` / ``fast_window_batched``:
  ADEPT's pass 2 alone -- the 500 x 500 window of every target evaluated point by point, vs
  the exact fast path (``search.grid_argmin``) one target at a time and all 50 at once.
"""

from __future__ import annotations

import numpy as np

from workbench.models import downey
from workbench.models.adept import Adept, search, target_weights
from workbench.models.baselines import DowneyLM

A_TRUE, SIGMA_TRUE, SCALE = 600.0, 1.5, 3.7
N_OBS = np.array([4.0, 32, 256, 2048])
T_OBS = SCALE * downey.runtime(N_OBS, A_TRUE, SIGMA_TRUE)
TARGETS = np.round(np.geomspace(8, 4096, 50))
T_TRUE = SCALE * downey.runtime(TARGETS, A_TRUE, SIGMA_TRUE)
N_TARGETS = len(TARGETS)

EXHAUSTIVE_SIZE = 3000  # 3000 x 3000 grid over A in [1, 3000], sigma in [0, 3000]
EXHAUSTIVE_CHUNK = 100
PASS2_SIZE = 500


def adept_curve() -> np.ndarray:
    return Adept(targets=TARGETS).fit(N_OBS, T_OBS).predict(TARGETS)


def adept_per_target() -> np.ndarray:
    return np.array([Adept(targets=[x]).fit(N_OBS, T_OBS).predict([x])[0] for x in TARGETS])


def lm_one() -> np.ndarray:
    return DowneyLM().fit(N_OBS, T_OBS).predict(TARGETS)


_WEIGHTS = target_weights(N_OBS, TARGETS, 2.0)


def lm_per_target() -> np.ndarray:
    return np.array([
        DowneyLM().fit(N_OBS, T_OBS, sample_weight=_WEIGHTS[k]).predict([x])[0] for k, x in enumerate(TARGETS)
    ])


def exhaustive_fit(n=N_OBS, t=T_OBS, size=EXHAUSTIVE_SIZE, chunk=EXHAUSTIVE_CHUNK):
    """Best (A, sigma, WSSRE) on the size x size grid, A in [1, 3000], sigma in [0, 3000]."""
    h = 2999.0 / (size - 1)
    w = np.ones(len(n))
    best = (np.nan, np.nan, np.inf)
    for c0 in range(0, size, chunk):
        c1 = min(size, c0 + chunk)
        A, s, f = search.grid_objective_bruteforce(n, t, w, 1 + h * c0, 1 + h * (c1 - 1), 0.0, 3000.0,
                                                   size_A=c1 - c0, size_s=size)
        i, j = np.unravel_index(np.argmin(f), f.shape)
        if f[i, j] < best[2]:
            best = (A[i], s[j], f[i, j])
    return best


def exhaustive_one() -> np.ndarray:
    A, s, _ = exhaustive_fit()
    x = downey.runtime(N_OBS, A, s) / T_OBS
    tau = np.sum(x) / np.sum(x * x)
    return tau * downey.runtime(TARGETS, A, s)


def pass2_windows():
    """Per-target pass-2 windows as ADEPT builds them: +-15 % around the pass-1 instance,
    clipped to the envelope (estimator.Adept._search)."""
    m = Adept(targets=TARGETS).fit(N_OBS, T_OBS)
    f = m.fits_.set_index("target").loc[TARGETS]
    (a0, a1), (s0, s1) = m.envelope_.A_range, m.envelope_.sigma_range
    A1, S1 = f["pass1_A"].to_numpy(), f["pass1_sigma"].to_numpy()
    return (np.clip(A1 * 0.85, a0, a1), np.clip(A1 * 1.15, a0, a1),
            np.clip(S1 * 0.85, s0, s1), np.clip(S1 * 1.15, s0, s1))


WINDOWS = None


def _windows():
    global WINDOWS
    if WINDOWS is None:
        WINDOWS = pass2_windows()
    return WINDOWS


def bruteforce_window_per_target() -> np.ndarray:
    """Minimum WSSRE of every target's 500 x 500 window, evaluated point by point."""
    lo_A, hi_A, lo_s, hi_s = _windows()
    return np.array([
        search.grid_objective_bruteforce(N_OBS, T_OBS, _WEIGHTS[k], lo_A[k], hi_A[k], lo_s[k], hi_s[k],
                                         PASS2_SIZE, PASS2_SIZE)[2].min()
        for k in range(N_TARGETS)
    ])


def fast_window_per_target() -> np.ndarray:
    lo_A, hi_A, lo_s, hi_s = _windows()
    return np.array([
        search.grid_argmin(N_OBS, T_OBS, _WEIGHTS[k:k + 1], lo_A[k], hi_A[k], lo_s[k], hi_s[k],
                           PASS2_SIZE, PASS2_SIZE).objective[0]
        for k in range(N_TARGETS)
    ])


def fast_window_batched() -> np.ndarray:
    lo_A, hi_A, lo_s, hi_s = _windows()
    return search.grid_argmin(N_OBS, T_OBS, _WEIGHTS, lo_A, hi_A, lo_s, hi_s, PASS2_SIZE, PASS2_SIZE).objective


# name -> (callable, number of prediction targets it covers, label, what its result is)
CASES = {
    "adept_curve": (adept_curve, N_TARGETS, "ADEPT, fit + predict 50 targets (5000; 500x500)", "prediction"),
    "adept_per_target": (adept_per_target, N_TARGETS, "ADEPT, one fit per target (50 fits)", "prediction"),
    "lm_one": (lm_one, 1, "LM (DowneyLM), one fit", "prediction"),
    "lm_per_target": (lm_per_target, N_TARGETS, "LM, 50 weighted fits (one per target)", "prediction"),
    "exhaustive_one": (exhaustive_one, 1, "exhaustive 3000x3000, one fit", "prediction"),
    "bruteforce_window_per_target": (bruteforce_window_per_target, N_TARGETS,
                                     "pass 2 brute force 500x500, per target", "wssre"),
    "fast_window_per_target": (fast_window_per_target, N_TARGETS, "pass 2 exact fast path, per target", "wssre"),
    "fast_window_batched": (fast_window_batched, N_TARGETS, "pass 2 exact fast path, 50 targets at once", "wssre"),
}


def max_error_pct(pred) -> float:
    """Largest relative error (%) of predictions against the true instance over the targets."""
    pred = np.asarray(pred, float)
    truth = T_TRUE if pred.size == N_TARGETS else T_TRUE[:pred.size]
    return float(100 * np.max(np.abs(pred / truth - 1)))
