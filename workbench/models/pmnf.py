"""PMNF: Extra-P's single-parameter performance model normal form, as a scikit-learn estimator.

References
----------
[ExtraP]
    A. Calotoiu, T. Hoefler, M. Poke, F. Wolf: "Using automated performance modeling to find
    scalability bugs in complex codes", SC'13, doi:10.1145/2503210.2503277 -- the *performance
    model normal form* (PMNF) ``f(p) = sum_k c_k p^(i_k) log2(p)^(j_k)`` and the search over
    hypotheses with cross-validation.
[ExtraP4]
    Extra-P 4.x, https://github.com/extra-p/extrap (BSD-3-Clause), read at version 4.2.5
    (commit 291ac81).  The behaviour reproduced here is that of its default single-parameter
    modeler; the files are cited as ``[ExtraP4] <path>``:

    * ``extrap/modelers/single_parameter/basic.py`` -- ``create_default_building_blocks``
      (the 42 default hypotheses, the negative ones), ``generate_building_blocks`` (user
      exponent sets), ``get_matching_hypotheses`` (when log terms are dropped),
      ``create_model`` (constant model first; a constant with RSS 0 ends the search),
      ``__init__`` (``use_measure=Measure.MEAN``);
    * ``extrap/modelers/single_parameter/abstract_base.py`` -- ``find_best_hypothesis``
      (leave-one-out loop, constant-coefficient cleaning with ``epsilon = 0.0005``; without
      cross-validation ``CLEAN_CONSTANT_EPSILON = 1e-3``), ``compare_hypotheses`` (reject a
      term whose coefficient is 0 or contributes less than ``minimum_term_contribution =
      0.0005``; otherwise strict ``new.SMAPE < old.SMAPE``), ``create_constant_model``;
    * ``extrap/entities/hypotheses.py`` -- ``compute_cost_leave_one_out`` (the LOO SMAPE),
      ``ConstantHypothesis.compute_cost`` (the constant's SMAPE, on the training data),
      ``clean_constant_coefficient``, ``calc_term_contribution``, ``is_valid``;
    * ``extrap/entities/measurement.py`` -- repetitions at one point are reduced to their
      mean / median / min / max (``Measurement.value``);
    * ``extrap/gui/StrongScalingConversionDialog.py`` and ``extrap/fileio/io_helper.py``
      (``check_for_strong_scaling``) -- Extra-P 4.2 detects strong-scaling experiments and
      converts them by multiplying every value by the process count (``m *= m.coordinate[d]``),
      i.e. it models the total cost; its CUBE reader sums the per-rank values instead.

    No Extra-P code is used; the search below is a vectorised reimplementation.

Model
-----
One PMNF term plus a constant ([ExtraP], single-parameter case)::

    y(n) = c0 + c1 * n^i * log2(n)^j                                          (1)

with ``(i, j)`` from a fixed list of hypotheses, and the constant model ``y(n) = c0``.
With ``strong_scaling=True`` (the default) ``y`` is the *cost* ``t(n) * n`` (processor-time)
and the runtime prediction is::

    t(n) = y(n) / n = (c0 + c1 * n^i * log2(n)^j) / n                          (2)

Why the cost: in a strong-scaling experiment the runtime falls roughly like ``1/n`` and then
flattens or rises.  Eq. (1) has only non-negative default exponents and one additive term, so
it cannot express the ``1/n`` decrease (a negative ``c1`` on a small exponent produces a curve
that eventually goes negative instead).  The cost ``t * n`` is constant for perfect scaling
(``c0`` = the serial work) and grows with exactly the overheads the PMNF terms were designed
to describe (communication ``log2(n)``, ``n^(1/2)`` halos, ``n log2(n)`` all-to-alls...).  Extra-P
4.2 makes the same conversion for strong-scaling data ([ExtraP4]
``gui/StrongScalingConversionDialog.py``: "the run time will be the sum of the run times of
all ranks/threads describing the global effort").  ``strong_scaling=False`` models ``t``
itself (weak scaling, or any metric that is already a total).

Selection rules (what :meth:`PMNF.fit` does)
--------------------------------------------
1. *Repetitions*: runs at the same ``n`` are reduced to one value per distinct ``n`` by the
   ``measure`` (default: the **mean**, Extra-P's default ``Measure.MEAN``).  Cost values are
   ``measure(t) * n``, the same as Extra-P's ``measure(t * n)`` because ``n`` is constant
   within a group.
2. *Constant model*: ``c0 = mean(y)``; its SMAPE is computed on the training points (not
   cross-validated, as in Extra-P).  If its RSS is exactly 0 the constant is chosen.
3. *Each hypothesis* ``(i, j)`` in Extra-P's order: least squares for ``(c0, c1)``.  With >= 3
   distinct ``n``: leave-one-out over the distinct ``n``; each LOO fit's ``c0`` is set to 0
   when ``|c0 / min(y_train)| < 0.0005``; the score is the LOO SMAPE (percent)::

       SMAPE = 100 / m * sum_k 2 |yhat_-k(n_k) - y_k| / (|y_k| + |yhat_-k(n_k)|)   (3)

   and the reported coefficients come from a fit on all points (not cleaned).  With 2
   distinct ``n`` (or ``crossvalidation=False``) the fit on all points is scored by its
   training SMAPE after cleaning ``c0`` with threshold ``1e-3`` -- Extra-P's path without
   cross-validation.  (Extra-P itself runs LOO on 1-point training sets there, an
   under-determined least-squares problem; ``two_point_loo=True`` does that.)  With 2 points
   every hypothesis interpolates both, so the choice is made by the tie rule below: the first eligible hypothesis in
   Extra-P's order, ``c0 + c1 * log2(n)``, unless cleaning ``c0`` spoils it; a
   :class:`~workbench.errors.WorkbenchWarning` says so.
4. *Eligibility*: a hypothesis is skipped if its RSS is not finite (Extra-P's ``is_valid``),
   if ``c1 == 0``, or if the term contributes less than ``min_term_contribution`` (0.0005)
   of the data everywhere: ``max_k |c1 n_k^i log2(n_k)^j / y_k| < 0.0005``.  Negative ``c1``
   is *allowed*, as in Extra-P (the basic modeler never checks the sign).
5. *Choice*: the lowest score, starting from the constant; Extra-P replaces the best only on
   a strictly smaller SMAPE, so ties go to the earlier candidate (the constant first, then
   the hypothesis order).  Here scores within ``1e-8`` percentage points of the minimum
   count as ties, so that rounding noise of exact fits cannot decide.

Non-positive predictions
------------------------
Because ``c1`` (and ``c0``) may be negative, Eq. (2) can reach 0 or below for some ``n``
(usually far beyond the data, when ``c1 < 0``).  :meth:`PMNF.predict` then returns
``floor_ = 1e-9 * min(training runtimes)`` -- a tiny positive value in the input's unit, so
unit invariance is kept -- and emits a :class:`~workbench.errors.WorkbenchWarning` naming
the clipped positions.  ``may_clip_`` says at fit time whether this can happen for any
``n >= 1``.

Vectorisation
-------------
All hypotheses and all leave-one-out folds are fitted at once: the term values form an
``(H, m)`` array, the LOO training sets an ``(H, m, m - 1)`` array gathered with a fixed
index table, and the two-parameter least squares is the centred closed form
``c1 = S_xy / S_xx``, ``c0 = ybar - c1 xbar`` (two-pass, so no cancellation from
``sum x^2 - m xbar^2``).  A 4-point fit takes about 0.1-0.2 ms.  Memory is ``O(H m^2)``
floats, fine for the tens of distinct ``n`` of a scaling curve.

Agreement with Extra-P
----------------------
``bench/extrap_compare.py`` runs Extra-P 4.2.5's default modeler next to this class on the 152
curves of the scaling corpus (3 and 4 smallest allocations, strong scaling): the same hypothesis
on every curve, coefficients equal to ~1e-13.  One known numerical difference: Extra-P solves
each fit with ``numpy.linalg.lstsq(A, b, None)``, whose default cut-off drops the smaller
singular value of ``[1, x]`` when the term values span more than ~1e15 (e.g. ``n^3 log2(n)``
over ``n = 1 .. 65536``); the closed form here keeps the exact least-squares solution.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, ValidationError, WorkbenchWarning, emit_warnings
from workbench.validation import (
    FittedState,
    as_vector,
    check_fitted,
    processor_counts,
    require_allocations,
    require_span,
    require_valid,
    training_runs,
)

__all__ = [
    "PMNF",
    "PMNFHypothesis",
    "EXTRAP_POLY_EXPONENTS",
    "EXTRAP_LOG_EXPONENTS",
    "EXTRAP_DEFAULT_HYPOTHESES",
    "EXTRAP_NEGATIVE_HYPOTHESES",
]

#: Polynomial exponents of Extra-P's default hypotheses (0 included), [ExtraP4] basic.py.
EXTRAP_POLY_EXPONENTS: tuple[float, ...] = tuple(
    float(Fraction(e)) for e in
    ("0", "1/4", "1/3", "1/2", "2/3", "3/4", "4/5", "1", "5/4", "4/3", "3/2", "5/3", "7/4", "2",
     "9/4", "7/3", "5/2", "8/3", "11/4", "3")
)
#: Logarithm exponents of Extra-P's default hypotheses.
EXTRAP_LOG_EXPONENTS: tuple[float, ...] = (0.0, 1.0, 2.0)


def _pairs(text: str) -> tuple[tuple[float, float], ...]:
    """``"1/4:0 1/3:1"`` -> ``((0.25, 0.0), (0.333.., 1.0))``."""
    out = []
    for item in text.split():
        i, j = item.split(":")
        out.append((float(Fraction(i)), float(j)))
    return tuple(out)


#: Extra-P's 42 default hypotheses ``(i, j)`` in its order (the order breaks ties), [ExtraP4]
#: basic.py ``create_default_building_blocks(allow_log_terms=True)``.  Not the full product of
#: the two exponent sets: e.g. ``n^(4/5)`` and ``n^(7/4)`` come without log factors.
EXTRAP_DEFAULT_HYPOTHESES: tuple[tuple[float, float], ...] = _pairs(
    "0:1 0:2 1/4:0 1/3:0 1/4:1 1/3:1 1/4:2 1/3:2 1/2:0 1/2:1 1/2:2 2/3:0 3/4:0 2/3:1 3/4:1 "
    "4/5:0 2/3:2 3/4:2 1:0 1:1 1:2 5/4:0 5/4:1 4/3:0 4/3:1 3/2:0 3/2:1 3/2:2 5/3:0 7/4:0 "
    "2:0 2:1 2:2 9/4:0 7/3:0 5/2:0 5/2:1 5/2:2 8/3:0 11/4:0 3:0 3:1"
)
#: The hypotheses Extra-P appends with its ``allow_negative_exponents`` option (first the ones
#: with log factors, then the pure powers), in its order.
EXTRAP_NEGATIVE_HYPOTHESES: tuple[tuple[float, float], ...] = _pairs(
    "0:-1 0:-2 -1/4:-1 -1/3:-1 -1/4:-2 -1/3:-2 -1/2:-1 -1/2:-2 -2/3:-1 -3/4:-1 -2/3:-2 "
    "-3/4:-2 -1:-1 -1:-2 -5/4:-1 -4/3:-1 -3/2:-1 -3/2:-2 -2:-1 -2:-2 -5/2:-1 -5/2:-2 -3:-1 "
    "-1/4:0 -1/3:0 -1/2:0 -2/3:0 -3/4:0 -4/5:0 -1:0 -5/4:0 -4/3:0 -3/2:0 -5/3:0 -7/4:0 "
    "-2:0 -9/4:0 -7/3:0 -5/2:0 -8/3:0 -11/4:0 -3:0"
)

_MEASURES = ("mean", "median", "min", "max")
_EPS_CLEAN_LOO = 0.0005  # [ExtraP4] abstract_base.py: self.epsilon
_EPS_CLEAN_TRAIN = 1e-3  # [ExtraP4] abstract_base.py: CLEAN_CONSTANT_EPSILON
_SMAPE_TIE = 1e-8  # percentage points; scores closer than this are ties (see rule 5)
_FLOOR_REL = 1e-9  # floor_ = _FLOOR_REL * min(training runtimes)


def _exponent_text(x: float) -> str:
    f = Fraction(x).limit_denominator(1000)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _power(base: str, x: float) -> str:
    """``n``, ``n^2``, ``n^(3/2)``, ``n^(-1)``."""
    e = _exponent_text(x)
    if e == "1":
        return base
    return f"{base}^{e}" if e.isdigit() else f"{base}^({e})"


@dataclass(frozen=True)
class PMNFHypothesis:
    """One hypothesis of Eq. (1): the term ``n^i * log2(n)^j`` (``i = j = 0``: the constant model).

    Attributes
    ----------
    i : float
        Polynomial exponent.
    j : float
        Exponent of ``log2(n)``.
    """

    i: float
    j: float

    @property
    def is_constant(self) -> bool:
        """True for the constant model ``c0``."""
        return self.i == 0 and self.j == 0

    @property
    def term(self) -> str:
        """The term as text, e.g. ``"n^(3/2) * log2(n)"`` (``"1"`` for the constant)."""
        parts = []
        if self.i != 0:
            parts.append(_power("n", self.i))
        if self.j != 0:
            parts.append(_power("log2(n)", self.j))
        return " * ".join(parts) if parts else "1"

    @property
    def formula(self) -> str:
        """The model as text, e.g. ``"c0 + c1 * n^(3/2) * log2(n)"`` or ``"c0"``."""
        return "c0" if self.is_constant else f"c0 + c1 * {self.term}"

    def evaluate(self, n) -> np.ndarray:
        """Return the term ``n^i * log2(n)^j`` at ``n`` (``log2(1)^0 = 1``).

        Parameters
        ----------
        n : float or array-like of float
            Processor counts (>= 1).
        """
        n = np.asarray(n, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            return n**self.i * np.log2(n) ** self.j


#: values per block of the leave-one-out search (hypotheses x folds x training points)
_LOO_BLOCK = 2_000_000


@lru_cache(maxsize=64)
def _loo_index(m: int) -> np.ndarray:
    """``(m, m - 1)`` table: row ``k`` lists the training positions of fold ``k`` (all but ``k``)."""
    idx = np.broadcast_to(np.arange(m), (m, m))[~np.eye(m, dtype=bool)].reshape(m, m - 1)
    idx.setflags(write=False)
    return idx


def _aggregate(n: np.ndarray, t: np.ndarray, measure: str):
    """Distinct ``n`` (sorted), the ``measure`` of ``t`` at each, and the run counts."""
    ns, inv, counts = np.unique(n, return_inverse=True, return_counts=True)
    if ns.size == n.size:  # no repetitions: nothing to reduce
        return ns, t[np.argsort(n, kind="stable")], counts
    # reduce t / 2^k with 2^k near the largest runtime (exact), so that sums near the largest
    # float do not overflow, and scale back
    big = np.max(t) > np.finfo(float).max / t.size
    scale = float(np.ldexp(1.0, int(np.frexp(np.max(t))[1]) - 1)) if big else 1.0
    ns, agg, counts = _aggregate_scaled(ns, inv, counts, t / scale, measure)
    return ns, agg * scale, counts


def _aggregate_scaled(ns, inv, counts, t, measure):
    if measure == "mean":
        return ns, np.bincount(inv, weights=t, minlength=ns.size) / counts, counts
    order = np.lexsort((t, inv))  # by group, then by value within the group
    ts = t[order]
    start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    if measure == "min":
        agg = ts[start]
    elif measure == "max":
        agg = ts[start + counts - 1]
    else:  # median: mean of the two middle values of each sorted group
        agg = 0.5 * (ts[start + (counts - 1) // 2] + ts[start + counts // 2])
    return ns, agg, counts


def _two_point_loo(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Extra-P's leave-one-out on 2 points: each fold fits ``c0 + c1 x`` to 1 point (minimum norm).

    ``numpy.linalg.lstsq`` of ``[1, x_l] c = y_l`` gives ``c = y_l [1, x_l] / (1 + x_l^2)``; the
    constant is zeroed when tiny against ``y_l`` (as in the folds of :func:`_search`), and the fold
    predicts the other point.  Returns the LOO RSS and SMAPE per hypothesis (rows of ``X``, (H, 2)).
    """
    other = X[:, ::-1]  # fold k trains on the other point
    y_other = y[::-1]
    c0k = y_other / (1.0 + other**2)
    c1k = c0k * other
    c0k = np.where(np.abs(c0k / y_other) < _EPS_CLEAN_LOO, 0.0, c0k)
    d = c0k + c1k * X - y
    return np.einsum("hk,hk->h", d, d), 100.0 * np.sum(np.abs(d) / (y + np.abs(c0k + c1k * X)), axis=1)


def _search(ns, y, I, J, crossvalidate: bool, min_contribution: float, two_point_loo: bool = False) -> dict:
    """Score the constant model and every hypothesis ``(I[h], J[h])`` on points ``(ns, y)``.

    Returns arrays over ``1 + H`` candidates (index 0 = constant): ``c0``, ``c1``, ``rss``
    (training RSS of the returned coefficients), ``smape`` (the selection score), ``valid``,
    ``eligible``, ``contribution``, and ``chosen`` (an index); 2 points by :func:`_two_point_loo`.
    """
    m = ns.size
    ybar = y.mean()
    # Constant model, scored on the training data ([ExtraP4] create_constant_model).
    r0 = ybar - y
    rss0 = float(r0 @ r0)
    smape0 = 200.0 / m * float(np.sum(np.abs(r0) / (y + abs(ybar))))

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        X = ns**I[:, None] * np.log2(ns) ** J[:, None]  # (H, m) term values
        # Fit on all points, centred closed form of the 2-parameter least squares.
        xbar = X.mean(axis=1)
        dx = X - xbar[:, None]
        c1 = (dx @ (y - ybar)) / np.einsum("hm,hm->h", dx, dx)
        c0 = ybar - c1 * xbar
        if crossvalidate:
            idx = _loo_index(m) if m <= 256 else _loo_index.__wrapped__(m)  # keep the cache small
            yt = y[idx]  # (m, m-1)
            ym = yt.mean(axis=1)
            ymin = yt.min(axis=1)
            cost_rss, smape = np.empty(X.shape[0]), np.empty(X.shape[0])
            # hypotheses in blocks: a block's folds hold (block, m, m-1) values, so memory
            # stays bounded (PMNF.MAX_CV_ALLOCATIONS bounds the time); each hypothesis' row
            # is computed exactly as in one pass over all of them
            step = max(1, _LOO_BLOCK // (m * (m - 1)))
            for h0 in range(0, X.shape[0], step):
                Xb = X[h0:h0 + step]
                Xt = Xb[:, idx]  # (h, m, m-1): fold k's training term values
                xm = Xt.mean(axis=2)
                dxt = Xt - xm[:, :, None]
                c1k = np.einsum("hkl,kl->hk", dxt, yt - ym[:, None]) / np.einsum("hkl,hkl->hk", dxt, dxt)
                c0k = ym - c1k * xm
                # Extra-P zeroes a constant that is tiny relative to the smallest training value
                # (numerical noise of an intercept-free law), before predicting the left-out point.
                c0k = np.where(np.abs(c0k / ymin) < _EPS_CLEAN_LOO, 0.0, c0k)
                pred = c0k + c1k * Xb
                d = pred - y
                cost_rss[h0:h0 + step] = np.einsum("hk,hk->h", d, d)
                smape[h0:h0 + step] = 200.0 / m * np.sum(np.abs(d) / (y + np.abs(pred)), axis=1)
        elif two_point_loo:
            cost_rss, smape = _two_point_loo(X, y)
        else:
            c0 = np.where(np.abs(c0 / y.min()) < _EPS_CLEAN_TRAIN, 0.0, c0)
            pred = c0[:, None] + c1[:, None] * X
            d = pred - y
            cost_rss = np.einsum("hk,hk->h", d, d)
            smape = 200.0 / m * np.sum(np.abs(d) / (y + np.abs(pred)), axis=1)
        if crossvalidate or two_point_loo:
            res = c0[:, None] + c1[:, None] * X - y
            rss = np.einsum("hk,hk->h", res, res)
        else:
            rss = cost_rss
        contribution = np.max(np.abs(c1[:, None] * X / y), axis=1)
    valid = np.isfinite(cost_rss)
    eligible = valid & (c1 != 0) & ~(contribution < min_contribution)

    score = np.concatenate(([smape0], np.where(eligible, smape, np.inf)))
    score = np.where(np.isnan(score), np.inf, score)  # runtimes too far apart to score: not eligible
    if rss0 == 0.0:  # [ExtraP4] create_model: a perfect constant ends the search
        chosen = 0
    elif not np.isfinite(score.min()):
        chosen = -1  # nothing could be scored (PMNF.fit says so)
    else:
        chosen = int(np.flatnonzero(score <= score.min() + _SMAPE_TIE)[0])
    return {
        "c0": np.concatenate(([ybar], c0)),
        "c1": np.concatenate(([0.0], c1)),
        "rss": np.concatenate(([rss0], rss)),
        "smape": np.concatenate(([smape0], smape)),
        "valid": np.concatenate(([True], valid)),
        "eligible": np.concatenate(([True], eligible)),
        "contribution": np.concatenate(([np.nan], contribution)),
        "chosen": chosen,
    }


def _unscale(res: dict, k: int, y_scale: float, t: np.ndarray, where: str) -> None:
    """Scale the search's coefficients and RSS in ``res`` back by ``y_scale``, in place.

    An RSS beyond the float range is reported as inf; a ValidationError is raised when the
    chosen candidate ``k``'s coefficients exceed it.
    """
    with np.errstate(over="ignore"):  # an RSS beyond the float range is reported as inf
        for key in ("c0", "c1"):
            res[key] = res[key] * y_scale
        res["rss"] = res["rss"] * y_scale * y_scale
    if not (np.isfinite(res["c0"][k]) and np.isfinite(res["c1"][k])):
        raise ValidationError(f"{where}: the fitted coefficients exceed the float range (runtimes up to "
                              f"{t.max():g}): give t in a larger unit")


class PMNF(FittedState, BaseEstimator):
    """Extra-P's single-parameter PMNF model ``c0 + c1 n^i log2(n)^j`` chosen by LOO SMAPE.

    See the module docstring for the model (Eqs. 1-3), the selection rules and the sources
    ([ExtraP], [ExtraP4]) they follow.

    Parameters
    ----------
    poly_exponents, log_exponents : sequence of float or None, default None
        Both None: Extra-P's 42 default hypotheses (:data:`EXTRAP_DEFAULT_HYPOTHESES`), in its
        order.  Otherwise the hypotheses are built like Extra-P's user exponent sets: all
        ``(i, 0)``, then all ``(0, j)``, then the product ``(i, j)``, without ``(0, 0)`` and
        without duplicates; a None set stands for :data:`EXTRAP_POLY_EXPONENTS` or
        :data:`EXTRAP_LOG_EXPONENTS` ``= (0, 1, 2)``.
    strong_scaling : bool, default True
        Model the cost ``t * n`` and predict ``t = cost / n`` (Eq. 2; Extra-P 4.2's
        strong-scaling conversion).  False: model ``t`` directly.
    allow_negative_exponents : bool, default False
        Append Extra-P's negative hypotheses (:data:`EXTRAP_NEGATIVE_HYPOTHESES`) to the default
        set, and allow negative values in user sets.  As in Extra-P, all hypotheses with a log
        factor are then dropped if any training ``n <= 1`` (``log2(1)^-1`` is infinite).
    measure : {"mean", "median", "min", "max"}, default "mean"
        How repeated runs at one ``n`` are reduced (Extra-P's ``--measure``; mean by default).
    crossvalidation : bool, default True
        Score hypotheses by leave-one-out SMAPE (needs >= 3 distinct ``n``; with 2 the
        training SMAPE is used).  False: training SMAPE, as Extra-P's option of that name.
    min_term_contribution : float, default 0.0005
        A hypothesis whose term is below this fraction of every data value is skipped.
    two_point_loo : bool, default False
        With exactly 2 distinct ``n``, score the hypotheses as Extra-P 4.2.5 does: leave-one-out
        on 1-point training sets, each the minimum-norm least squares ``c = y [1, x] / (1 + x^2)``
        (:func:`_two_point_loo`), which ranks a hypothesis by how well ``x_2 / x_1`` matches
        ``y_2 / y_1``.  False: training SMAPE and Extra-P's hypothesis order (rule 3).

    Attributes
    ----------
    hypothesis_ : PMNFHypothesis
        The chosen ``(i, j)``; ``hypothesis_.formula`` is e.g. ``"c0 + c1 * n^(1/2) * log2(n)"``.
    coefficients_ : tuple of float
        ``(c0, c1)`` of the modelled quantity: cost in input time unit x processors if
        ``strong_scaling``, else the input time unit.  ``c1 = 0`` for the constant model.
    smape_ : float
        Score of the chosen candidate in percent: LOO SMAPE (Eq. 3) when ``cross_validated_``,
        else training SMAPE; for the constant model always its training SMAPE (Extra-P).
    hypotheses_ : pandas.DataFrame
        Every candidate, constant first, in search order: ``i, j, formula, c0, c1, rss``
        (training RSS of ``c0, c1`` in the modelled quantity), ``smape``, ``contribution``
        (``max |c1 term / y|``), ``valid``, ``eligible``, ``chosen``.  Built on first access.
    cross_validated_ : bool
        Whether the scores are leave-one-out.
    n_train_, t_train_, runs_ : ndarray
        Distinct training ``n`` (sorted), the runtime ``measure`` at each, number of runs.
    n_min_, n_max_ : float
        Smallest and largest training ``n``.
    warnings_ : list of ModelWarning
        Kinds ``no-log-terms`` (a training n <= 1) and ``two-allocations`` (only 2 distinct n).
    floor_ : float
        What :meth:`predict` returns where the model is not positive (input unit).
    may_clip_ : bool
        Whether the fitted model is <= 0 for some ``n >= 1`` (then :meth:`predict` clips).
    equation_ : str
        The fitted runtime model with numbers, e.g. ``"t(n) = (3 + 0.5 * n^(3/2)) / n"``.

    Examples
    --------
    >>> import numpy as np
    >>> n = np.array([1, 2, 4, 8, 16])
    >>> model = PMNF().fit(n, (3 + 0.5 * n**1.5 * np.log2(n)) / n)
    >>> model.hypothesis_.formula
    'c0 + c1 * n^(3/2) * log2(n)'
    """

    #: Most distinct n a cross-validated fit accepts: leave-one-out costs O(m^2) time and
    #: memory (0.9 s and 150 MB at the limit); ``crossvalidation=False`` has no limit.
    MAX_CV_ALLOCATIONS = 2000
    #: the fitted attribute that marks a fit (:class:`~workbench.validation.FittedState`)
    fitted_attribute = "hypothesis_"

    def __init__(
        self,
        poly_exponents=None,
        log_exponents=None,
        strong_scaling: bool = True,
        allow_negative_exponents: bool = False,
        measure: str = "mean",
        crossvalidation: bool = True,
        min_term_contribution: float = 0.0005,
        two_point_loo: bool = False,
    ):
        self.poly_exponents = poly_exponents
        self.log_exponents = log_exponents
        self.two_point_loo = two_point_loo
        self.strong_scaling = strong_scaling
        self.allow_negative_exponents = allow_negative_exponents
        self.measure = measure
        self.crossvalidation = crossvalidation
        self.min_term_contribution = min_term_contribution

    # -- hypothesis space -----------------------------------------------------------------
    def _exponent_set(self, values, name: str, where: str) -> list[float]:
        arr = as_vector(values, name, where)
        require_valid(~np.isfinite(arr), arr, name, "finite", where)
        if not self.allow_negative_exponents:
            require_valid(arr < 0, arr, name, ">= 0 (set allow_negative_exponents=True for negative ones)", where)
        return [float(v) for v in arr]

    def _space(self, where: str) -> tuple[np.ndarray, np.ndarray]:
        """Return the hypotheses ``(I, J)`` to search, in order."""
        if self.poly_exponents is None and self.log_exponents is None:
            pairs = list(EXTRAP_DEFAULT_HYPOTHESES)
            if self.allow_negative_exponents:
                pairs += EXTRAP_NEGATIVE_HYPOTHESES
        else:
            P = EXTRAP_POLY_EXPONENTS if self.poly_exponents is None else self._exponent_set(
                self.poly_exponents, "poly_exponents", where)
            L = EXTRAP_LOG_EXPONENTS if self.log_exponents is None else self._exponent_set(
                self.log_exponents, "log_exponents", where)
            # [ExtraP4] basic.py generate_building_blocks: (i, 0), (0, j), then (i, j).
            seq = [(i, 0.0) for i in P] + [(0.0, j) for j in L] + [(i, j) for i in P for j in L]
            pairs = list(dict.fromkeys(p for p in seq if p != (0.0, 0.0)))
            if not pairs:
                raise ValidationError(f"{where}: the exponent sets give no hypothesis besides the constant")
        arr = np.array(pairs, dtype=float).reshape(-1, 2)
        return arr[:, 0].copy(), arr[:, 1].copy()

    # -- fit ---------------------------------------------------------------------------------
    def fit(self, n, t) -> PMNF:
        """Choose the hypothesis and its coefficients from runs ``(n, t)``.

        Parameters
        ----------
        n : array-like of shape (k,) or (k, 1)
            Processor counts, finite and >= 1; repeats allowed.
        t : array-like of shape (k,)
            Runtimes, finite and > 0, any unit.

        Returns
        -------
        self
        """
        where = f"{type(self).__name__}.fit"
        mtc = self._checked_settings(where)
        n, t = training_runs(n, t, where)
        if t.size:
            require_span(t, where)
        I, J = self._space(where)

        ns, t_agg, runs = _aggregate(n, t, self.measure)
        m = ns.size
        self._check_allocations(ns, where)
        notes: list[ModelWarning] = []
        if self.allow_negative_exponents and ns[0] <= 1 and np.any(J != 0):
            # [ExtraP4] basic.py get_matching_hypotheses / are_measurements_log_capable.
            keep = J == 0
            I, J = I[keep], J[keep]
            notes.append(ModelWarning("no-log-terms", f"{where}: a training n is <= 1, so (as Extra-P does with "
                                      "negative exponents) no hypothesis with a log factor is used"))
        self._check_cost_range(ns, t_agg, where)
        y_scale, y = self._search_values(ns, t_agg)
        two = bool(self.crossvalidation) and bool(self.two_point_loo) and m == 2
        cv = bool(self.crossvalidation) and m >= 3
        if m == 2:
            notes.append(ModelWarning("two-allocations", f"{where}: only 2 distinct n: every hypothesis "
                                      "interpolates both points, so the choice follows " + (
                                          "how each predicts one point from the other (Extra-P's leave-one-out)"
                                          if two else "Extra-P's hypothesis order, not the data")))
        res = _search(ns, y, I, J, cv, mtc, two)
        cv = cv or two
        k = res["chosen"]
        if k < 0:
            raise ValidationError(f"{where}: no hypothesis could be scored on these runs (t from {t.min():g} to "
                                  f"{t.max():g}): the runtimes are too far apart for sums of squares")
        self._scaled = (y_scale, float(res["c0"][k]), float(res["c1"][k]))
        _unscale(res, k, y_scale, t, where)
        self._store_fit(I, J, res, k, cv, ns, t_agg, runs)
        self.warnings_ = notes
        emit_warnings(notes)
        return self

    def _checked_settings(self, where: str) -> float:
        """Check ``measure`` and ``min_term_contribution``; return the latter as a float."""
        if self.measure not in _MEASURES:
            raise ValidationError(f"{where}: measure must be one of {_MEASURES}, got {self.measure!r}")
        mtc = float(self.min_term_contribution)
        if not (np.isfinite(mtc) and mtc >= 0):
            raise ValidationError(f"{where}: min_term_contribution must be finite and >= 0, got {mtc!r}")
        return mtc

    def _check_allocations(self, ns: np.ndarray, where: str) -> None:
        """Raise a ValidationError unless the distinct training ``ns`` are enough, and not too many.

        At least 2 are needed; leave-one-out cross-validation accepts at most
        :attr:`MAX_CV_ALLOCATIONS`.
        """
        m = require_allocations(ns, 2, where, "n").size
        if self.crossvalidation and m > self.MAX_CV_ALLOCATIONS:
            raise ValidationError(
                f"{where}: leave-one-out cross-validation is limited to {self.MAX_CV_ALLOCATIONS} distinct n, got "
                f"{m} (its cost grows with the square of that number); repeated runs at one n count once: "
                "aggregate or select allocations, or pass crossvalidation=False (training SMAPE, no limit)")

    def _check_cost_range(self, ns: np.ndarray, t_agg: np.ndarray, where: str) -> None:
        """With ``strong_scaling``, raise a ValidationError if a cost ``t * n`` exceeds the float range."""
        if self.strong_scaling:
            with np.errstate(over="ignore"):
                over = ~np.isfinite(t_agg * ns)
            if over.any():
                i = int(np.flatnonzero(over)[0])
                raise ValidationError(
                    f"{where}: the cost t * n at n = {ns[i]:g} (runtime {t_agg[i]:g}) exceeds the largest float "
                    f"({np.finfo(float).max:.3g}); PMNF models the cost of a strong-scaling curve: give t in a "
                    "larger unit")

    def _search_values(self, ns: np.ndarray, t_agg: np.ndarray) -> tuple[float, np.ndarray]:
        """Return the scale ``2^k`` and the modelled values (cost or runtime) divided by it.

        The search runs on y / 2^k with 2^k near the median of y (exact in floating point, and
        every choice it makes is scale-free), so that runtimes near 1e-308 or 1e308 do not
        underflow or overflow its sums of squares; coefficients are scaled back afterwards
        (:func:`_unscale`).
        """
        log_y = np.log2(t_agg) + (np.log2(ns) if self.strong_scaling else 0.0)
        y_scale = float(np.ldexp(1.0, int(np.round(np.median(log_y)))))
        y = t_agg / y_scale * ns if self.strong_scaling else t_agg / y_scale
        return y_scale, y

    def _store_fit(self, I, J, res: dict, k: int, cv: bool, ns, t_agg, runs) -> None:
        """Set the fitted attributes from candidate ``k`` of the search result ``res`` (index 0: constant)."""
        self.hypothesis_ = PMNFHypothesis(0.0, 0.0) if k == 0 else PMNFHypothesis(float(I[k - 1]), float(J[k - 1]))
        self.coefficients_ = (float(res["c0"][k]), float(res["c1"][k]))
        self.smape_ = float(res["smape"][k])
        self.cross_validated_ = cv
        self.n_train_ = ns
        self.t_train_ = t_agg
        self.runs_ = runs
        self.n_min_ = float(ns[0])
        self.n_max_ = float(ns[-1])
        self.floor_ = float(_FLOOR_REL * t_agg.min())
        self.may_clip_ = self._may_clip()
        self._candidates = (I, J, res)
        self._table = None

    def _may_clip(self) -> bool:
        """Whether ``c0 + c1 g(n) <= 0`` for some ``n >= 1`` (``g`` = the chosen term).

        Decided on the fit's scale (same signs, and no underflow for runtimes near 1e-308).
        """
        c0, c1 = self.coefficients_ if self.hypothesis_.is_constant else self._scaled[1:]
        h = self.hypothesis_
        if h.is_constant or c1 == 0:
            return c0 <= 0
        if (h.i >= 0 and h.j >= 0) or (h.i <= 0 and h.j <= 0):
            # g is monotone on (1, inf): the extremes of the model are its limits at the ends.
            g1 = 1.0 if h.j == 0 else (0.0 if h.j > 0 else np.inf)
            ginf = np.inf if (h.i > 0 or h.j > 0) else 0.0
            ends = [c0 + c1 * g for g in (g1, ginf)]
            return bool(min(ends) <= 0)
        grid = np.geomspace(1.0 + 1e-9, 1e12, 4000)  # mixed signs: not monotone, look on a grid
        return bool(np.any(c0 + c1 * h.evaluate(grid) <= 0))

    # -- fitted state ------------------------------------------------------------------------------
    def _check_fitted(self, where: str) -> None:
        check_fitted(self, where=where)

    @property
    def hypotheses_(self) -> pd.DataFrame:
        """All candidates with their fits and scores (see the class docstring).

        Built lazily, because a DataFrame costs more than the whole fit.
        """
        self._check_fitted(f"{type(self).__name__}.hypotheses_")
        if self._table is None:
            I, J, res = self._candidates
            chosen = np.zeros(I.size + 1, dtype=bool)
            chosen[res["chosen"]] = True
            ii = np.concatenate(([0.0], I))
            jj = np.concatenate(([0.0], J))
            self._table = pd.DataFrame({
                "i": ii,
                "j": jj,
                "formula": [PMNFHypothesis(a, b).formula for a, b in zip(ii, jj)],
                "c0": res["c0"],
                "c1": res["c1"],
                "rss": res["rss"],
                "smape": res["smape"],
                "contribution": res["contribution"],
                "valid": res["valid"],
                "eligible": res["eligible"],
                "chosen": chosen,
            })
        return self._table

    @property
    def equation_(self) -> str:
        """The fitted runtime model with its numbers (see the class docstring)."""
        self._check_fitted(f"{type(self).__name__}.equation_")
        c0, c1 = self.coefficients_
        h = self.hypothesis_
        body = f"{c0:.6g}" if h.is_constant else f"{c0:.6g} {'-' if c1 < 0 else '+'} {abs(c1):.6g} * {h.term}"
        return f"t(n) = ({body}) / n" if self.strong_scaling else f"t(n) = {body}"

    # -- predict ---------------------------------------------------------------------------------------
    def cost(self, n) -> np.ndarray:
        """Return the fitted model of Eq. (1) at ``n`` without clipping.

        The cost ``t * n`` if ``strong_scaling``, else the runtime.  Same shape as ``n``.

        Parameters
        ----------
        n : float or array-like of float
            Processor counts (>= 1).
        """
        where = f"{type(self).__name__}.cost"
        self._check_fitted(where)
        return self._cost(self._check_n(n, where))

    def _cost(self, n: np.ndarray) -> np.ndarray:
        scale, inner = self._scaled_cost(n)
        with np.errstate(over="ignore", under="ignore"):
            return scale * inner

    def _scaled_cost(self, n: np.ndarray) -> tuple[float, np.ndarray]:
        """Return ``(scale, inner)`` with the cost ``scale * inner``.

        Exactly ``c0 + c1 g(n)`` wherever that is a normal float: the scale is a power of two.
        Evaluated on the fit's scale so that large coefficients of opposite sign do not overflow
        on the way, and so that the sign of a cost that underflows (runtimes near 1e-308) is
        still known.
        """
        if self.hypothesis_.is_constant:
            return 1.0, np.full(n.shape, self.coefficients_[0])
        scale, s0, s1 = self._scaled
        return scale, s0 + s1 * self.hypothesis_.evaluate(n)

    def _check_n(self, n, where: str) -> np.ndarray:
        arr = processor_counts(n, where)
        flat = arr.reshape(-1)
        if self.hypothesis_.j < 0:
            require_valid(flat <= 1, flat, "n", "> 1 (the model has a negative power of log2(n))", where)
        return arr

    def predict_raw(self, n) -> np.ndarray:
        """Runtime at ``n`` without the floor and the range check of :meth:`predict`.

        Parameters
        ----------
        n : array-like of float
            Processor counts, finite and >= 1 (> 1 with a negative power of ``log2(n)``).

        Returns
        -------
        numpy.ndarray
            Runtimes in the unit of the fitted ``t``, same shape as ``n``: NaN where the fitted
            model is not positive (it has no runtime there; the sign is read on the fit's scale,
            so a positive value that underflows is 0, not NaN), inf or 0 where the runtime is
            beyond the float range.
        """
        where = f"{type(self).__name__}.predict_raw"
        self._check_fitted(where)
        n = self._check_n(n, where)
        scale, inner = self._scaled_cost(n)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return np.where(inner > 0, scale * inner / n if self.strong_scaling else scale * inner, np.nan)

    def predict(self, n) -> np.ndarray:
        """Runtime at ``n`` processors in the unit of the fitted ``t``; same shape as ``n``.

        Where the fitted model is not positive the result is ``floor_`` and a
        :class:`~workbench.errors.WorkbenchWarning` names the first such position.

        Parameters
        ----------
        n : float or array-like of float
            Processor counts (>= 1).
        """
        where = f"{type(self).__name__}.predict"
        self._check_fitted(where)
        n = self._check_n(n, where)
        with np.errstate(over="ignore", invalid="ignore"):
            cost = self._cost(n)
            t = cost / n if self.strong_scaling else cost
        require_valid(np.isinf(t).reshape(-1), n.reshape(-1), "n", "an allocation whose predicted runtime is finite "
                      "(the fitted model is beyond the float range there)", where)
        bad = ~(t > 0)
        if np.any(bad):
            k = int(np.flatnonzero(bad.reshape(-1))[0])
            warnings.warn(
                f"{where}: the fitted model {self.equation_} is <= 0 at n[{k}] = {n.reshape(-1)[k]:g} "
                f"({int(bad.sum())} position(s)); returning floor_ = {self.floor_:.3g} there",
                WorkbenchWarning, stacklevel=2)
            t = np.where(bad, self.floor_, t)
        return t
