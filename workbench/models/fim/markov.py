"""FiM-Cal stochastic Markov model of parallel calculation (paper section 2.1).

Bhimani, Mi, Leeser, Yang (2019), "FiM: Performance Prediction for Parallel Computation in
Iterative Data Processing Applications", Eqs. 1-10.

Inputs are hardware variables measured with ``perf stat`` on one process (section 2.1.1):
``tc`` total cycles TC, ``sc`` stall cycles SC, ``u`` utilisation per process U (0..1),
``f_hz`` clock rate F in Hz.

* :func:`base_probabilities` -- the two-state base case, Eqs. 1-5.
* :func:`transition_matrix` -- the generic (t+1)-state chain of t processes, Eqs. 6-8.
* :func:`stage_completion_probability`, :func:`stage_time` -- Eqs. 9-10 in closed form.
* :func:`calculation_time` -- a chain of identical stages (the paper's stage chaining).
* :func:`state_occupancy` -- distribution over the number of active processes, cycle by
  cycle, starting from the all-active state (what Fig. 3 (b) animates).
* :func:`barrier_stage_time` -- *extension beyond the paper*: a barrier-synchronised
  stage finishes when the slowest of the t processes does (straggler effect).

Facts worth knowing (shown in the FiM-Cal notebook):

* Eqs. 6-8 say that the next number of active processes is (actives that stay active) +
  (passives that become active): the row ``i`` of the matrix is the convolution of a
  sub-stochastic binomial pmf over ``i`` actives (stay with P_act, turn passive with
  P_a2p; the remaining 1/TC is completion) with the binomial pmf of ``t - i`` passives
  (activate with P_p2a).  Row ``i`` sums to ``(1 - 1/TC)^i``.
* Eq. 9 uses only the all-active row, so ``P_s = 1 - (1 - 1/TC)^t`` and Eq. 10 gives
  ``T = 1 / (P_s F)`` ~ ``TC / (t F)``: SC and U do *not* influence the paper's
  prediction (the authors' code computes exactly this).  They matter in the barrier
  extension, where a process spends time passive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import integrate, signal, stats

from workbench.errors import ValidationError

__all__ = [
    "U_TOLERANCE",
    "BaseProbabilities",
    "effective_utilization",
    "base_probabilities",
    "hardware_valid",
    "transition_matrix",
    "transition_matrix_literal",
    "stage_completion_probability",
    "stage_time",
    "calculation_time",
    "state_occupancy",
    "barrier_stage_time",
]


@dataclass(frozen=True)
class BaseProbabilities:
    """Transition probabilities of the base case (one process, one stage), Eqs. 1-5.

    ``p_act`` stay active, ``p_a2p`` active -> passive, ``p_pass`` stay passive,
    ``p_p2a`` passive -> active, ``p_s1`` active -> stage complete (= 1/TC).
    """

    p_act: float
    p_a2p: float
    p_pass: float
    p_p2a: float
    p_s1: float

    def as_tuple(self) -> tuple[float, float, float, float]:
        """``(p_act, p_a2p, p_pass, p_p2a)``, the argument order of :func:`transition_matrix`."""
        return (self.p_act, self.p_a2p, self.p_pass, self.p_p2a)


#: Measured or predicted U up to 1 + U_TOLERANCE is timer granularity: a fully busy process.
U_TOLERANCE = 0.02


def effective_utilization(u, tc):
    """U as the Markov chain can use it.

    A fully busy process (U in (1 - 1/TC, 1 + U_TOLERANCE]) is the edge of Eq. 2, where U =
    1 would make P_a2p = -1/TC < 0; it is read as P_a2p = 0, i.e. U = 1 - 1/TC.  Other
    values are returned unchanged (and a U above 1 + U_TOLERANCE stays invalid).
    Broadcasts.

    Parameters
    ----------
    u : float or array-like of float
        Utilisation U (0..1).
    tc : float or array-like of float
        Total cycles TC.
    """
    u, tc = np.asarray(u, dtype=float), np.asarray(tc, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((u > 1 - 1 / tc) & (u <= 1 + U_TOLERANCE), 1 - 1 / tc, u)


def hardware_valid(tc, sc, u) -> np.ndarray:
    """Element-wise validity of hardware variables for the base case (Algorithm 1, line 3 plus ``P_a2p >= 0``).

    ``0 <= U <= 1 - 1/TC``, ``TC > 1``, ``0 < SC < TC``, all finite.

    Parameters
    ----------
    tc : float or array-like of float
        Total cycles TC.
    sc : float or array-like of float
        Stall cycles SC.
    u : float or array-like of float
        Utilisation U.
    """
    tc, sc, u = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (tc, sc, u)))
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = np.isfinite(tc) & np.isfinite(sc) & np.isfinite(u)
        ok &= (tc > 1) & (sc > 0) & (sc < tc) & (u >= 0) & (u <= 1 - 1 / tc)
    return ok


def base_probabilities(tc: float, sc: float, u: float) -> BaseProbabilities:
    """Base-case probabilities from measured TC, SC and U (Eqs. 1-5).

    P_act = U (1), P_a2p = 1 - U - 1/TC (2), P_pass = SC/TC (3), P_p2a = 1 - SC/TC (4),
    P_s1 = 1 - P_act - P_a2p = 1/TC (5).

    Raises :class:`ValidationError` naming the violated condition: U outside [0, 1],
    TC <= 1, SC <= 0, SC >= TC, or P_a2p < 0 (U > 1 - 1/TC).

    Parameters
    ----------
    tc : float
        Total cycles TC (> 1).
    sc : float
        Stall cycles SC (0 < SC < TC).
    u : float
        Utilisation U (0 <= U <= 1 - 1/TC).
    """
    values = {"TC": tc, "SC": sc, "U": u}
    for name, v in values.items():
        if not _finite_real(v):
            raise ValidationError(f"base_probabilities: {name} must be a finite number, got {v!r}")
    if not 0 <= u <= 1:
        raise ValidationError(f"base_probabilities: U (utilisation per process) must be in [0, 1], got {u}")
    if tc <= 1:
        raise ValidationError(f"base_probabilities: TC (total cycles) must be > 1, got {tc}")
    if sc <= 0:
        raise ValidationError(f"base_probabilities: SC (stall cycles) must be > 0, got {sc}")
    if sc >= tc:
        raise ValidationError(
            f"base_probabilities: SC (stall cycles, {sc:g}) must be smaller than TC (total cycles, {tc:g})"
        )
    p_a2p = 1.0 - u - 1.0 / tc
    if p_a2p < 0:
        raise ValidationError(
            f"base_probabilities: P_a2p = 1 - U - 1/TC = {p_a2p:.3g} < 0 (Eq. 2); U must be at most "
            f"1 - 1/TC = {1 - 1 / tc:.12g}"
        )
    return BaseProbabilities(p_act=float(u), p_a2p=float(p_a2p), p_pass=float(sc / tc),
                             p_p2a=float(1.0 - sc / tc), p_s1=float(1.0 / tc))


def _check_processes(t, where: str) -> np.ndarray:
    try:
        arr = np.asarray(t)
    except (TypeError, ValueError):  # ragged nested sequences
        arr = np.asarray([None])
    if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr != np.round(arr)) \
            or np.any(arr > 2**53):
        raise ValidationError(f"{where}: t (number of processes) must be integers >= 1 (at most 2^53), got {t!r}")
    return arr.astype(np.int64)


def _floats(value, name: str, where: str) -> np.ndarray:
    """``value`` as a float array, or a ValidationError naming the argument."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: {name} must be numeric, got {value!r} ({exc})") from None


#: Most cycles per process and stage :func:`barrier_stage_time` evaluates: 1e15 (four days of
#: one core at 3 GHz); beyond ~1e16, 1/W is below the rounding of its eigenvalues.
MAX_BARRIER_CYCLES = 1e15
#: Largest t of :func:`transition_matrix` (and :func:`transition_matrix_literal`): 134 MB.
MAX_MATRIX_PROCESSES = 4096


def _finite_real(v) -> bool:
    """Whether ``v`` is one finite real number (not a bool, string, complex or array)."""
    return (np.isscalar(v) and isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            and bool(np.isfinite(v)))


def _check_probability(p, name: str, where: str) -> float:
    if not _finite_real(p) or not 0 <= p <= 1:
        raise ValidationError(f"{where}: {name} must be a probability in [0, 1], got {p!r}")
    return float(p)


def transition_matrix(t: int, p_act: float, p_a2p: float, p_pass: float, p_p2a: float) -> np.ndarray:
    """Return the generic transition matrix of t processes, Eqs. 6-8.

    Entry ``[i, j]`` = P_ij(t): probability that a stage with ``i`` active processes has
    ``j`` active processes one cycle later; shape ``(t+1, t+1)``.  Eqs. 6, 7 and 8 are
    the cases j == i, j > i, j < i of one sum: ``P_ij = sum_a A_i(a) B_i(j - a)`` with
    ``A_i(a) = C(i, a) P_act^a P_a2p^(i-a)`` (actives that stay active) and
    ``B_i(b) = C(t-i, b) P_p2a^b P_pass^(t-i-b)`` (passives that activate).  All rows are
    convolved at once with FFTs (t = 1024 in a few milliseconds); the absolute error
    of an entry is ~1e-16, below which entries are returned as 0.

    The rows are sub-stochastic when ``P_act + P_a2p < 1``: the missing mass of row
    ``i`` is the probability that some active process completes the stage.

    Parameters
    ----------
    t : int
        Number of processes.
    p_act, p_a2p, p_pass, p_p2a : float
        Base-case probabilities of Eqs. 1-4 (:func:`base_probabilities`).
    """
    where = "transition_matrix"
    t_arr = _check_processes(t, where)
    if t_arr.ndim != 0 and t_arr.size != 1:
        raise ValidationError(f"{where}: t (number of processes) must be one integer, got {t!r}")
    t = int(t_arr.reshape(-1)[0])
    if t > MAX_MATRIX_PROCESSES:
        raise ValidationError(f"{where}: t = {t} processes give a {t + 1} x {t + 1} matrix; at most "
                              f"{MAX_MATRIX_PROCESSES} processes are supported (the matrix takes (t + 1)^2 values)")
    p_act, p_a2p, p_pass, p_p2a = (_check_probability(p, n, where) for p, n in
                                   ((p_act, "p_act"), (p_a2p, "p_a2p"), (p_pass, "p_pass"), (p_p2a, "p_p2a")))
    if p_act + p_a2p > 1 + 1e-12:
        raise ValidationError(f"{where}: p_act + p_a2p must be <= 1, got {p_act + p_a2p}")
    if abs(p_pass + p_p2a - 1) > 1e-9:
        raise ValidationError(f"{where}: p_pass + p_p2a must be 1 (Eq. 4), got {p_pass + p_p2a}")
    i = np.arange(t + 1)[:, None]
    k = np.arange(t + 1)[None, :]
    s = p_act + p_a2p
    # Sub-stochastic binomial: (P_act + P_a2p)^i * Binomial(i, P_act / (P_act + P_a2p)).
    if s > 0:
        active = _binom_pmf(k, i, p_act / s) * np.power(s, i)
    else:
        active = (k == 0).astype(float) * (i == 0)
    passive = _binom_pmf(k, t - i, p_p2a)
    matrix = signal.fftconvolve(active, passive, axes=1)[:, : t + 1]
    matrix[matrix < 1e-16] = 0.0  # FFT rounding noise, not probability
    return matrix


def _binom_pmf(k, n, p):
    """``stats.binom.pmf``; for p below 1e-300 (where scipy's incomplete beta overflows) the exact limit.

    Every term with k > 0 is far below the 1e-16 the matrix keeps.
    """
    if p < 1e-300:
        return (k == 0) & (n >= 0) * np.ones_like(k, dtype=bool)
    return stats.binom.pmf(k, n, p)


def transition_matrix_literal(t: int, p_act: float, p_a2p: float, p_pass: float, p_p2a: float) -> np.ndarray:
    """Eqs. 6-8 exactly as printed, one entry at a time with binomial coefficients.

    The reference that :func:`transition_matrix` is tested and benchmarked against (O(t^3)
    Python loops: for checking only, t up to ~100).

    Parameters
    ----------
    t : int
        Number of processes.
    p_act, p_a2p, p_pass, p_p2a : float
        Base-case probabilities of Eqs. 1-4 (:func:`base_probabilities`).
    """
    c = math.comb
    out = np.zeros((t + 1, t + 1))
    for i in range(t + 1):
        for j in range(t + 1):
            if i == j:    # Eq. 6
                out[i, j] = sum(c(i, k) * c(t - i, t - i - k) * p_act ** (i - k) * p_a2p**k
                                * p_pass ** (t - i - k) * p_p2a**k for k in range(min(i, t - i) + 1))
            elif i < j:   # Eq. 7
                out[i, j] = sum(c(i, k) * c(t - i, t - j - k) * p_act ** (i - k) * p_a2p**k
                                * p_pass ** (t - j - k) * p_p2a ** (j - i + k) for k in range(min(i, t - j) + 1))
            else:         # Eq. 8
                out[i, j] = sum(c(i, i - j + k) * c(t - i, t - i - k) * p_act ** (j - k) * p_a2p ** (i - j + k)
                                * p_pass ** (t - i - k) * p_p2a**k for k in range(min(j, t - i) + 1))
    return out


def stage_completion_probability(t, tc) -> np.ndarray | float:
    """Eq. 9: probability that a stage completes in a cycle, from the all-active state.

    ``P_s = 1 - sum_j P_tj(t) = 1 - (P_act + P_a2p)^t = 1 - (1 - 1/TC)^t`` (by Eq. 2),
    evaluated as ``-expm1(t log1p(-1/TC))`` so that TC ~ 1e12 keeps full precision.
    Broadcasts over ``t`` and ``tc``.

    Parameters
    ----------
    t : int or array-like of int
        Number of processes.
    tc : float or array-like of float
        Total cycles TC of the stage.
    """
    t = _check_processes(t, "stage_completion_probability")
    tc = _floats(tc, "TC", "stage_completion_probability")
    if not np.all(np.isfinite(tc)) or np.any(tc <= 1):
        raise ValidationError(f"stage_completion_probability: TC (cycles) must be finite and > 1, got {tc!r}")
    out = -np.expm1(t * np.log1p(-1.0 / tc))
    return float(out) if out.ndim == 0 else out


def _check_frequency(f_hz, where: str) -> np.ndarray:
    f = _floats(f_hz, "F", where)
    if not np.all(np.isfinite(f)) or np.any(f <= 0):
        raise ValidationError(f"{where}: F (clock rate) must be finite and > 0 Hz, got {f_hz!r}")
    return f


def stage_time(t, tc, f_hz) -> np.ndarray | float:
    """Eqs. 9-10: time in seconds of one stage of ``tc`` cycles on ``t`` processes, ``T = 1 / (P_s F)``.

    For TC >> t this is ``TC / (t F)``; at t = 1 exactly ``TC / F``. Broadcasts over all
    arguments.

    Parameters
    ----------
    t : int or array-like of int
        Number of processes.
    tc : float or array-like of float
        Total cycles TC of the stage.
    f_hz : float or array-like of float
        Clock rate F in Hz.
    """
    f = _check_frequency(f_hz, "stage_time")
    out = 1.0 / (np.asarray(stage_completion_probability(t, tc)) * f)
    return float(out) if out.ndim == 0 else out


def calculation_time(t, tc, f_hz, stages=1) -> np.ndarray | float:
    """Compute the calculation time of an application of ``stages`` barrier-separated stages.

    Stage chaining (section 2.1.3) decided here: stage ``s + 1`` starts when stage ``s``
    completes; the stages of an iterative application are identical, each carrying
    ``TC / stages`` cycles, so ``T_n = stages / (F (1 - (1 - stages/TC)^t))``.  With
    ``stages = 1`` this is Eq. 10; for TC >> stages * t every choice gives TC / (t F).
    Broadcasts over all arguments.

    Parameters
    ----------
    t : int or array-like of int
        Number of processes.
    tc : float or array-like of float
        Total cycles TC of the application.
    f_hz : float or array-like of float
        Clock rate F in Hz.
    stages : int or array-like of int, default 1
        Barrier-separated stages, each carrying ``TC / stages`` cycles.
    """
    n = _floats(stages, "stages", "calculation_time")
    if not np.all(np.isfinite(n)) or np.any(n < 1):
        raise ValidationError(f"calculation_time: stages must be >= 1, got {stages!r}")
    tc = _floats(tc, "TC", "calculation_time")
    if not np.all(tc / n > 1):
        raise ValidationError("calculation_time: each stage needs more than one cycle (TC / stages > 1)")
    out = n * np.asarray(stage_time(t, tc / n, f_hz))
    return float(out) if out.ndim == 0 else out


def state_occupancy(matrix: np.ndarray, cycles: int, start: int | None = None) -> np.ndarray:
    """Probability of each number of active processes after 0..``cycles`` cycles.

    Returns shape ``(cycles + 1, t + 2)``: columns 0..t are the states (number of active
    processes) and the last column is the probability that the stage has completed.
    ``start`` is the initial number of active processes (default: all, t).

    Parameters
    ----------
    matrix : ndarray of float, shape (t + 1, t + 1)
        Transition matrix (:func:`transition_matrix`).
    cycles : int
        Number of cycles to follow.
    start : int, optional
        Initial number of active processes; default: all, t.
    """
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValidationError(f"state_occupancy: matrix must be square, got shape {matrix.shape}")
    t = matrix.shape[0] - 1
    start = t if start is None else int(start)
    if not 0 <= start <= t or cycles < 0:
        raise ValidationError(f"state_occupancy: need 0 <= start <= {t} and cycles >= 0")
    pi = np.zeros((cycles + 1, t + 1))
    pi[0, start] = 1.0
    for c in range(cycles):  # a time recursion: each step needs the previous one
        pi[c + 1] = pi[c] @ matrix
    done = 1.0 - pi.sum(axis=1, keepdims=True)
    return np.hstack([pi, np.clip(done, 0.0, 1.0)])


def _barrier_inputs(t, tc, sc, u, f_hz, stages) -> tuple[np.ndarray, ...]:
    """Check and broadcast :func:`barrier_stage_time`'s inputs; add W = TC / (stages t) (cycles per process, stage)."""
    where = "barrier_stage_time"
    t = _check_processes(t, where).astype(float)
    f = _check_frequency(f_hz, where)
    tc, sc, u, n = (_floats(v, name, where) for v, name in ((tc, "TC"), (sc, "SC"), (u, "U"), (stages, "stages")))
    try:
        t, tc, sc, u, f, n = np.broadcast_arrays(t, tc, sc, u, f, n)
    except ValueError as exc:
        raise ValidationError(f"{where}: t, TC, SC, U, F and stages must broadcast together ({exc})") from None
    if not np.all(n >= 1):
        raise ValidationError(f"{where}: stages must be >= 1")
    w = tc / (n * t)
    if np.any(w > MAX_BARRIER_CYCLES):
        raise ValidationError(f"{where}: TC / (stages t) = {np.max(w):g} cycles per process and stage; the straggler "
                              f"sum is computed up to {MAX_BARRIER_CYCLES:g} (1/W is lost to rounding beyond)")
    if not np.all(hardware_valid(w, sc / tc * w, u)):
        raise ValidationError(
            f"{where}: invalid hardware variables (need 0 <= U <= 1 - 1/W with W = TC/(stages t) "
            "the cycles per process and stage, and 0 < SC < TC)"
        )
    return t, tc, sc, u, f, n, w


def barrier_stage_time(t, tc, sc, u, f_hz, stages=1) -> np.ndarray | float:
    """EXTENSION (not in the paper): expected time of barrier-synchronised stages.

    Each of the ``t`` processes runs the base chain of Eqs. 1-5 on its own share of the
    stage's work, ``W = TC / (stages * t)`` cycles: it is active with P_act = U, turns
    passive with ``1 - U - 1/W``, stays passive with SC/TC and completes with 1/W per
    active cycle.  Its completion time is phase-type; the stage ends at the *maximum*
    of the t completion times (the barrier), so the expected stage time is
    ``E[max] = sum_k (1 - (1 - S(k))^t)`` with the survival ``S(k) = e_A Q^k 1``
    of the 2x2 transient matrix ``Q``.  This exposes straggler effects (growing like
    the harmonic number H_t) and makes SC and U matter, which Eq. 9 cannot.

    Evaluated exactly for the first cycles (both eigenvalues of Q) and by the
    Euler-Maclaurin integral of the dominant eigen-term for the tail (Simpson's rule on
    a log grid); relative accuracy ~1e-7.  Returns seconds, ``stages * E[max] / F``.  Broadcasts.

    Parameters
    ----------
    t : int or array-like of int
        Number of processes.
    tc : float or array-like of float
        Total cycles TC of the application.
    sc : float or array-like of float
        Stall cycles SC.
    u : float or array-like of float
        Utilisation U.
    f_hz : float or array-like of float
        Clock rate F in Hz.
    stages : int or array-like of int, default 1
        Barrier-separated stages, each carrying ``TC / stages`` cycles.
    """
    t, tc, sc, u, f, n, w = _barrier_inputs(t, tc, sc, u, f_hz, stages)
    s = sc / tc                       # P_pass
    a, b, d = u, 1 - u - 1 / w, s        # Q = [[a, b], [1 - s, d]]
    # Eigenvalues of Q via mu = 1 - lambda of (I - Q), computed stably: det(I - Q) = (1-s)/W.
    tr = 2 - a - d
    det = (1 - s) / w
    mu2 = 0.5 * (tr + np.sqrt(np.maximum(tr * tr - 4 * det, 0)))
    mu1 = det / mu2
    lam1, lam2 = 1 - mu1, 1 - mu2
    s1 = a + b                        # S(1) = 1 - 1/W
    with np.errstate(divide="ignore", invalid="ignore"):
        c1 = (s1 - lam2) / (lam1 - lam2)
    # a double eigenvalue needs b = 0 (U at its ceiling 1 - 1/W: an active process never turns
    # passive), and then S(k) = a^k = lam1^k exactly
    c1 = np.where(np.isfinite(c1), c1, 1.0)
    c2 = 1 - c1
    # Head: exact discrete sum while the second eigen-term still matters.
    abs2 = np.clip(np.abs(lam2), 1e-300, 1 - 1e-12)
    k0 = int(np.clip(np.ceil(np.max(-40.0 / np.log(abs2))), 1, 4096))
    k = np.arange(k0)
    surv = c1[..., None] * np.power(lam1[..., None], k) + c2[..., None] * np.power(lam2[..., None], k)
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf is the right limit (g = 1)
        head = np.sum(-np.expm1(t[..., None] * np.log1p(-np.clip(surv, 0, 1))), axis=-1)
    # Tail: sum_{k>=k0} g(k) ~ int_{k0}^inf g + g(k0)/2 - g'(k0)/12, g(x) = 1 - (1 - c1 e^{-kappa x})^t.
    # With y = c1 e^{-kappa x}: int = (1/kappa) int_0^{y0} (1 - (1 - y)^t) d(ln y).
    kappa = -np.log1p(-mu1)
    y0 = c1 * np.exp(-kappa * k0)
    z = np.linspace(0.0, 1.0, 2049)
    lo = np.log(1e-18 / t)
    hi = np.log(np.maximum(y0, 1e-300))
    lny = lo[..., None] + (hi - lo)[..., None] * z
    g = -np.expm1(t[..., None] * np.log1p(-np.exp(lny)))
    tail_int = integrate.simpson(g, x=lny, axis=-1) / kappa + 1e-18 / kappa  # + the part below y_min (~t*y)
    g0 = -np.expm1(t * np.log1p(-y0))
    dg0 = -t * np.exp((t - 1) * np.log1p(-y0)) * kappa * y0  # g'(k0), Euler-Maclaurin term
    expected_cycles = head + tail_int + 0.5 * g0 - dg0 / 12
    out = n * expected_cycles / f
    return float(out) if out.ndim == 0 else out
