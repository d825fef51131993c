"""Work-aware models: ``t = c0 + c1 W(s)/n + overheads``, and the fixed expert form."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from workbench.errors import ModelWarning, ValidationError
from workbench.models.multiparam.base import MultiParameterModel, extrapolation_splits, size_key

__all__ = ["COARSE_WORK_EXPONENTS", "MAX_WORK_CELLS", "MAX_WORK_VECTORS", "MIN_SIZES_FOR_EXPONENT", "OVERHEAD_TERMS",
           "SCOPES", "SCOPE_EXPONENTS", "SIZE_LAW_NOISE", "WORK_EXPONENTS", "ExpertWorkModel", "WorkAwareModel"]

#: What the work of the problem parameters measures -> the exponent ``b`` of ``n`` in ``W = n^b prod s^a``.
#: ``"total"``: the whole problem, shared by the processes (strong scaling).  ``"per-process"``:
#: one process's part (weak-scaling inputs).  ``"per-process-steps3d"`` / ``"per-process-steps2d"``:
#: one process's part of a mesh whose number of time steps grows with the global resolution, as
#: an explicit solver's stability limit makes it (the cube root of the total cells in 3-D, the
#: square root in 2-D), so the total work grows as ``n^(4/3)`` / ``n^(3/2)`` at a fixed part.
SCOPES = {"total": 0.0, "per-process": 1.0, "per-process-steps3d": 4 / 3, "per-process-steps2d": 3 / 2}
#: The work exponents a scope tries instead of ``exponents`` (per problem parameter).  With time
#: steps that grow with the mesh the work is ``(n cells)^(1 + 1/d)`` in ``d`` dimensions: a
#: parameter that counts cells (or one edge of several) enters with ``1 + 1/d``, the edge of a
#: cube (square) with ``d + 1``; nothing in between has a physical reading.
SCOPE_EXPONENTS = {"per-process-steps3d": (4 / 3, 4.0), "per-process-steps2d": (3 / 2, 3.0)}

#: Default grid of work exponents ``a`` in ``W = s^a`` (per problem parameter); up to 4 for the
#: edge of a 3-D mesh whose time steps grow with it (``s^3`` cells times ``s`` steps).
WORK_EXPONENTS = (0.5, 2 / 3, 0.75, 1.0, 1.25, 4 / 3, 1.5, 5 / 3, 2.0, 2.5, 3.0, 4.0)
#: Most work vectors a scope's product grid over the problem parameters may hold: past it (four or
#: more varied parameters at the 12 default exponents) every varied parameter tries the first of
#: :data:`COARSE_WORK_EXPONENTS` that fits the budget, filtered from the grid asked for.  Twenty
#: runs cannot tell 12^4 work laws apart, and the search's time and memory grow with their number.
MAX_WORK_VECTORS = 12**3
#: The search holds tables of every work vector at every distinct point: past this many of them
#: (vectors x points) the budget shrinks with the points (3 parameters on 741 points took 4.5 GiB
#: and 19 s with the 12^3 grid).  64 points at the full 12^3 grid.
MAX_WORK_CELLS = 64 * 12**3
#: The coarser per-parameter grids, in order, that :data:`MAX_WORK_VECTORS` falls back to.
COARSE_WORK_EXPONENTS = ((0.5, 1.0, 4 / 3, 1.5, 2.0, 3.0), (1.0, 4 / 3, 2.0, 3.0), (1.0, 2.0, 3.0), (1.0,))
#: Overhead terms of :class:`WorkAwareModel`: name -> function of (n, W) (vectorised).
OVERHEAD_TERMS = {
    "log2(n)": lambda n, w: np.log2(n),
    "n^(1/2)": lambda n, w: np.sqrt(n),
    "n": lambda n, w: n,
    "(W/n)^(2/3)": lambda n, w: (w / n) ** (2 / 3),
    "(W/n)^(1/2)": lambda n, w: np.sqrt(w / n),
    "W": lambda n, w: w,
    "W/n*log2(n)": lambda n, w: w / n * np.log2(n),
    "W*log2(n)": lambda n, w: w * np.log2(n),
    "W*n^(1/2)": lambda n, w: w * np.sqrt(n),
    "W*n": lambda n, w: w * n,
}
#: Fewest distinct sizes from which :class:`WorkAwareModel` also tries overheads that grow with the
#: work; with fewer, only overheads in ``n`` (so that the sizes pin the work exponent).
MIN_SIZES_FOR_EXPONENT = 3
#: The least relative run-to-run noise the average over size laws (two sizes) assumes: six runs
#: fitted by four coefficients can match closer than the runs repeat, and a residual of 0.2 %
#: must not make one exponent certain.
SIZE_LAW_NOISE = 0.02
# beam of the work model's forward selection: best single terms and work exponents kept
_BEAM_TERMS, _BEAM_EXPONENTS = 4, 3


def _batched_fit(D: np.ndarray, W: np.ndarray, ridge: float = 1e-9) -> np.ndarray:
    """Weighted least squares for a batch of designs.

    ``D``: (C, m, k) designs (rows already divided by the runtimes), ``W``: (F, m) row
    weights (0/1 fold masks).  Returns (F, C, k) coefficients minimising
    ``sum_m W[f, m] (D[c, m] @ b - 1)^2`` with a tiny ridge on the column-normalised system.
    """
    norm = np.sqrt((D * D).sum(axis=1))  # (C, k)
    norm = np.where(norm > 0, norm, 1.0)
    Dn = D / norm[:, None, :]
    # the rows' outer products once, then every fold's sum over its rows as one product with
    # the masks (half the time of weighting the designs fold by fold)
    P = Dn[..., :, None] * Dn[..., None, :]  # (C, m, k, k)
    G = np.tensordot(W, P, axes=([1], [1]))  # (F, C, k, k)
    b = np.tensordot(W, Dn, axes=([1], [1]))  # (F, C, k)
    k = D.shape[2]
    G = G + ridge * np.eye(k)
    coef = np.linalg.solve(G, b[..., None])[..., 0]
    return coef / norm[None]


def _within_budget(values: tuple, varied: int, budget: int | None) -> tuple:
    """Return the per-parameter exponents to try: ``values`` or a coarser grid within the budget.

    The first of :data:`COARSE_WORK_EXPONENTS` (filtered from ``values``) whose product over
    ``varied`` parameters holds at most ``budget`` vectors (None: no budget); the value nearest
    linear work when none does.
    """
    if budget is None or len(values) ** varied <= budget:
        return values
    for coarse in COARSE_WORK_EXPONENTS:
        kept = tuple(v for v in values if any(abs(v - c) < 1e-12 for c in coarse))
        if kept and len(kept) ** varied <= budget:
            return kept
    return (min(values, key=lambda v: abs(np.log(v))),)  # the one nearest linear work


def _median(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=-1, keepdims=True)`` of finite values, bit for bit, without its overhead."""
    h = x.shape[-1] // 2
    if x.shape[-1] % 2:
        return np.partition(x, h, axis=-1)[..., h:h + 1]
    part = np.partition(x, (h - 1, h), axis=-1)
    return (part[..., h - 1:h] + part[..., h:h + 1]) / 2


def _fold_errors(pred: np.ndarray, folds: list) -> np.ndarray:
    """Mean over the folds of each candidate's mean absolute log error on the fold's test rows.

    ``pred``: (F + 1, C, m) predictions / runtimes; ``folds``: ``(f, test row indices)``.  The
    numbers of ``mean([abs(log(maximum(pred[f][:, test], 1e-12))).mean(axis=1) ...], axis=0)``
    bit for bit (the same arrays, sums and divisions), without the temporaries and wrappers.
    """
    total = None
    for f, test in folds:
        err = pred[f][:, test]
        np.maximum(err, 1e-12, out=err)
        np.log(err, out=err)
        np.abs(err, out=err)
        mean = np.add.reduce(err, axis=1) / test.size
        total = mean if total is None else total + mean
    return total / len(folds)


class _Designs:
    """The designs of every work vector, for :func:`_batched_fit` on many candidate subsets.

    ``base``: (A, m, c) columns of every work vector (rows divided by the runtimes).  :meth:`fit`
    returns bitwise what :func:`_batched_fit` returns on the C-contiguous design of the candidates:
    the same column norms (sums over the rows, in order), the same normalised columns and products,
    the same BLAS products ``masks @ (m, C k k)``; only gathered (``np.take``) from tables computed
    once per fit instead of broadcast over axes of length ``k`` (numpy's slowest case).
    """

    def __init__(self, base: np.ndarray):
        self.base = base
        norm = np.sqrt((base * base).sum(axis=1))  # (A, c)
        self.norm = np.where(norm > 0, norm, 1.0)
        self.unit = np.ascontiguousarray((base / self.norm[:, None, :]).transpose(1, 0, 2))  # (m, A, c)

    def fit(self, keep_a: np.ndarray, a: np.ndarray, idx: np.ndarray, W: np.ndarray, ridge: float = 1e-9):
        """Return the designs (C, m, k) and coefficients (F, C, k) of the candidates ``(u, a)``.

        ``keep_a``: (A',) work vectors; ``a``: (C,) the work vector of each candidate
        (``np.tile(keep_a, U)``); ``idx``: (U, k) columns of each subset; candidates are ordered
        (u, a), as the designs ``base[keep_a][:, :, idx].transpose(2, 0, 1, 3)``.
        """
        A, m, c = self.base.shape
        (U, k), Ak = idx.shape, keep_a.size
        C = U * Ak
        cols = np.repeat(idx, Ak, axis=0)  # (C, k)
        full = Ak == A  # keep_a is sorted: all work vectors, in order, and no selection to copy
        D = (self.base if full else self.base[keep_a])[:, :, idx].transpose(2, 0, 1, 3).reshape(C, m, k)  # a copy
        unit = np.take(self.unit.reshape(m, A * c), (a[:, None] * c + cols).ravel(), axis=1)  # (m, C k)
        # the products of each column pair once (a product is symmetric bit for bit), then gathered
        code = np.minimum(idx[:, :, None], idx[:, None, :]) * c + np.maximum(idx[:, :, None], idx[:, None, :])
        present = np.bincount(code.ravel(), minlength=c * c) > 0
        pairs = np.flatnonzero(present)
        pos = (np.cumsum(present) - 1)[code]  # (U, k, k): index among the pairs
        sel = self.unit if full else self.unit[:, keep_a]  # (m, A', c)
        prod = (np.take(sel, pairs // c, axis=2) * np.take(sel, pairs % c, axis=2)).reshape(m, Ak * pairs.size)
        P = np.take(prod, (np.arange(Ak)[:, None] * pairs.size + pos.reshape(U, 1, k * k)).ravel(), axis=1)
        # np.dot as np.tensordot calls it: the same BLAS call, hence the same sums
        G = np.dot(W, P).reshape(-1, C, k, k) + ridge * np.eye(k)
        b = np.dot(W, unit).reshape(-1, C, k)
        coef = np.linalg.solve(G, b[..., None])[..., 0]
        return D, coef / self.norm[a[:, None], cols][None]


class WorkAwareModel(MultiParameterModel):
    """``t = c0 + c1 W(s)/n + overheads``, exponents and terms chosen by cross-validation.

    Parameters
    ----------
    work : callable or None, default None
        ``work(S)`` -> total work per row from the (k, q) array of problem parameters (any
        positive unit); None learns ``W = prod_j s_j^a_j`` with ``a_j`` from ``exponents``.
    exponents : sequence of float, default :data:`WORK_EXPONENTS`
        Grid of work exponents per problem parameter (product grid over the parameters) of the
        scopes ``"total"`` and ``"per-process"``; the others try :data:`SCOPE_EXPONENTS`
        (leave them out of ``scopes`` to pin the work law).
    scopes : sequence of str, default tuple(SCOPES)
        What the learnt work of the problem parameters measures (names of :data:`SCOPES`),
        chosen by cross-validation with the exponents: ``"total"``, the whole problem (``W =
        prod s^a``, shared by the ``n`` processes: strong scaling); ``"per-process"``, one
        process's part (``W = n prod s^a``: the parameters are weak-scaling inputs, as RELeARN's
        neurons per rank); ``"per-process-steps3d"`` / ``"per-process-steps2d"``, one process's
        part of a mesh whose time steps grow with the global resolution (``W = n^(4/3) prod
        s^a`` / ``n^(3/2)``).  A user's ``work`` function gives the total work.
    overheads : sequence of str, default all of :data:`OVERHEAD_TERMS`
        Candidate overhead terms; from fewer than :data:`MIN_SIZES_FOR_EXPONENT` distinct sizes
        only those in ``n`` alone (no ``W``), whose sizes then pin the work exponent.
    max_terms : int, default 2
        Most overhead terms in one model.  Sets of two or more terms are searched among the 4
        best single terms at the 3 best work exponents (forward selection with a beam).
    select_terms : bool, default True
        False: use exactly ``overheads`` (and the first work exponent vector that fits
        best), no selection -- e.g. the expert form.
    complexity : float, default 0.01
        Added to a candidate's cross-validated log error per overhead term, and once for a
        scope whose time steps grow with the mesh (prefers the simpler of near ties).
    max_work_vectors : int or None, default :data:`MAX_WORK_VECTORS`
        Most work vectors of a scope's product grid over the varied problem parameters (and at
        most :data:`MAX_WORK_CELLS` over the number of distinct points); past it every varied
        parameter tries a coarser grid (:data:`COARSE_WORK_EXPONENTS`).  None: the full product
        grid, whose time and memory grow as ``len(exponents)`` to the number of parameters.

    Attributes
    ----------
    exponents_ : tuple of float
        Work exponents (NaN with a user work function).
    scope_ : str
        The chosen name of :data:`SCOPES` (``scopes``).
    terms_ : tuple of str
        The chosen overhead terms.
    coefficients_ : ndarray
        ``c0``, ``c1`` (work), then one per overhead term; all >= 0 when selected.
    cv_error_ : float
        Cross-validated mean absolute log error of the chosen candidate (NaN: no fold).
    candidates_ : DataFrame
        Every candidate: ``exponents``, ``terms``, ``cv_error``, ``feasible``, ``score``.
    size_laws_ : DataFrame
        The laws the prediction averages (``exponents``, ``scope``, ``terms``, ``weight``).  From
        fewer than :data:`MIN_SIZES_FOR_EXPONENT` sizes no run can tell the work exponents apart
        (an overhead-bound small size fits any of several within the noise), so every work vector
        with its best terms enters, weighted by its likelihood (:data:`SIZE_LAW_NOISE`), and the
        prediction is their weighted geometric mean; ``exponents_``, ``terms_`` and
        ``equation_`` are those of the chosen law.  Else the chosen law alone.
    """

    name = "work"

    def __init__(self, work=None, exponents=WORK_EXPONENTS, overheads=tuple(OVERHEAD_TERMS), max_terms: int = 2,
                 select_terms: bool = True, complexity: float = 0.01, scopes=tuple(SCOPES),
                 max_work_vectors: int | None = MAX_WORK_VECTORS):
        self.work = work
        self.exponents = exponents
        self.scopes = scopes
        self.overheads = overheads
        self.max_terms = max_terms
        self.select_terms = select_terms
        self.complexity = complexity
        self.max_work_vectors = max_work_vectors

    def _work_grid(self, n, S, where) -> tuple[list[tuple[float, ...]], np.ndarray]:
        """Work vectors (the exponents of the problem parameters, then that of n) and the (A, m) log-work values."""
        if self.work is not None:
            w = np.asarray(self.work(S), float).reshape(-1)
            if w.size != S.shape[0] or not np.all(np.isfinite(w) & (w > 0)):
                raise ValidationError(f"{where}: work(S) must return one finite positive work value per row")
            return [(np.nan,) * S.shape[1] + (0.0,)], np.log(w)[None]
        ex = np.asarray(self.exponents, float).reshape(-1)
        if ex.size == 0 or not np.all(np.isfinite(ex) & (ex > 0)):
            raise ValidationError(f"{where}: exponents must be finite and > 0, got {self.exponents!r}")
        budget = self.max_work_vectors
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1):
            raise ValidationError(f"{where}: max_work_vectors must be None or a whole number >= 1, got {budget!r}")
        if budget is not None:
            budget = max(1, min(int(budget), MAX_WORK_CELLS // S.shape[0]))
        scopes = tuple(self.scopes)
        if not scopes or any(sc not in SCOPES for sc in scopes):
            raise ValidationError(f"{where}: scopes must be names from {list(SCOPES)}, got {self.scopes!r}")
        # a parameter with one value in every run: its exponent is a constant factor of the work,
        # which the coefficients absorb, so one value stands for all -- linear work (a scope whose
        # steps grow with the mesh: its first, the parameter counts cells)
        varied = np.ptp(np.log(S), axis=0) > 1e-9
        grid = []
        # "total" first: on a tie the strong-scaling reading wins
        for sc in sorted(set(scopes), key=list(SCOPES).index):
            values = _within_budget(tuple(SCOPE_EXPONENTS.get(sc, ex)), int(varied.sum()), budget)
            per_parameter = [values if v else values[:1] if sc in SCOPE_EXPONENTS else (1.0,) for v in varied]
            grid += [a + (SCOPES[sc],) for a in itertools.product(*per_parameter)]
        return grid, np.asarray(grid) @ np.column_stack([np.log(S), np.log(n)]).T

    def _subsets(self, where, sizes: int):
        unknown = [h for h in self.overheads if h not in OVERHEAD_TERMS]
        if unknown:
            raise ValidationError(f"{where}: unknown overhead term(s) {unknown}; known: {list(OVERHEAD_TERMS)}")
        if not self.select_terms:
            return [tuple(self.overheads)]
        terms = self.overheads
        if sizes < MIN_SIZES_FOR_EXPONENT:
            # from two sizes c1 s^a/n pins the exponent only if nothing else scales with the size:
            # an overhead in W would trade its share of the growth against a, and no run could tell
            terms = [h for h in terms if "W" not in h]
        kmax = int(self.max_terms)
        return [c for k in range(kmax + 1) for c in itertools.combinations(terms, k)]

    @staticmethod
    def _columns(n, logw, terms) -> np.ndarray:
        """Return the (A, m, 2 + len(terms)) design ``1, W/n, overheads`` for every work vector."""
        w = np.exp(logw)  # (A, m)
        out = np.empty(w.shape + (2 + len(terms),))
        out[..., 0] = 1.0
        out[..., 1] = w / n
        for j, h in enumerate(terms, start=2):
            out[..., j] = OVERHEAD_TERMS[h](n, w)
        return out

    def _fit(self, n, S, t, notes) -> None:
        where = f"{type(self).__name__}.fit"
        grid, unscaled = self._work_grid(n, S, where)
        # scale the work so that W/n is near the runtimes (conditioning only)
        logw = unscaled - _median(unscaled - np.log(n)) + np.log(_median(t)[0])
        sizes = np.unique(size_key(S)).size
        # two sizes: the runs cannot tell the work exponents apart, so every work vector gets its
        # best terms and the prediction averages them (_average_laws)
        average = sizes < MIN_SIZES_FOR_EXPONENT and self.work is None and self.select_terms
        subsets = self._subsets(where, sizes)
        terms_all = list(dict.fromkeys(h for sub in subsets for h in sub))
        base = self._columns(n, logw, terms_all)
        base /= t[:, None]  # (A, m, 2 + T): relative least squares
        splits = extrapolation_splits(n, S)
        masks = np.vstack([np.ones_like(n)] + [train.astype(float) for _, _, train in splits])
        tests = [np.flatnonzero(test) for _, test, _ in splits]
        # a scope whose steps grow with the mesh is one more assumption: it costs as much as a term
        assumed = self.complexity * np.array([g[-1] not in (SCOPES["total"], SCOPES["per-process"]) for g in grid])
        blocks = self._search(base, subsets, terms_all, masks, tests, assumed, beam=not average)
        cand_a = np.concatenate([b[0] for b in blocks])
        cand_cv = np.concatenate([b[2] for b in blocks])
        cand_score = np.concatenate([b[3] for b in blocks])
        # scores within 1e-6 of the best are ties (exact data: rounding noise must not decide)
        best = int(np.flatnonzero(cand_score <= cand_score.min() + 1e-6)[0]) if np.isfinite(cand_score).any() else 0
        if np.isfinite(cand_score[best]):
            a, cv, i = int(cand_a[best]), float(cand_cv[best]), best
            for block_a, subs, _, _, block_coef, _ in blocks:  # the block of the best candidate
                if i < block_a.size:
                    break
                i -= block_a.size
            terms, coef = subs[i // (block_a.size // len(subs))], block_coef[i]
        else:
            # no candidate with non-negative coefficients: c0 + c1 W/n by NNLS on the middle exponent
            from scipy.optimize import nnls

            a, terms, cv = len(grid) // 2, (), float("nan")
            coef = nnls(self._columns(n, logw[a:a + 1], ())[0] / t[:, None], np.ones_like(t))[0]
            notes.append(ModelWarning("no-feasible-terms", f"{where}: no candidate had non-negative coefficients; "
                                      "fell back to c0 + c1 W/n by non-negative least squares"))
        self.exponents_ = tuple(float(v) for v in grid[a][:-1])
        self.scope_ = next(name for name, b in SCOPES.items() if b == grid[a][-1])
        self.terms_ = tuple(terms)
        self.coefficients_ = np.asarray(coef, float)
        self.cv_error_ = cv
        raw = self._log_work(n, S, shift=0.0)
        self._log_shift = float(logw[a][0] - raw[0])
        ok = np.isfinite(cand_score)
        self._candidates = (grid, cand_a, [(b[1], b[0].size // len(b[1])) for b in blocks], cand_cv, ok, cand_score)
        self._terms_all = terms_all
        self._laws = (self._average_laws(blocks, np.asarray(grid), (logw - unscaled)[:, 0], terms_all, n.size)
                      if average and ok.any() else None)
        if not splits:
            notes.append(ModelWarning("no-cross-validation", f"{where}: too few sizes and allocations to leave the "
                                      "largest out; terms chosen on the training error"))

    @staticmethod
    def _average_laws(blocks, grid: np.ndarray, shift: np.ndarray, terms_all: list, m: int) -> tuple:
        """Return the size laws to average when two sizes cannot tell the work exponents apart.

        Per work vector its best-scoring feasible candidate; weights ``exp(-m (r^2 - r_min^2) /
        (2 s^2))`` from the training RMS relative errors ``r`` over the ``m`` points, with ``s^2``
        the best law's residual variance (``m r_min^2 / (m - its coefficients and exponent)``) but
        at least :data:`SIZE_LAW_NOISE` squared: each law's Gaussian likelihood, as in Bayesian
        model averaging.  Returns ``(work vectors (L, q + 1), log-work shifts (L,), coefficients
        of 1, W/n and terms_all (L, 2 + T), weights (L,), terms of each law)``; laws of weight
        below 1e-6 are left out.
        """
        coefs, terms, n_coef = [], [], []
        for block_a, subs, _, _, block_coef, _ in blocks:
            repeat = block_a.size // len(subs)
            columns = np.array([[0, 1] + [2 + terms_all.index(h) for h in sub] for sub in subs])
            which = np.arange(block_a.size) // repeat  # the subset of each candidate
            full = np.zeros((block_a.size, 2 + len(terms_all)))
            full[np.arange(block_a.size)[:, None], columns[which]] = block_coef
            coefs.append(full)
            terms += [subs[u] for u in which]
            n_coef.append(np.full(block_a.size, columns.shape[1]))
        cand_a = np.concatenate([b[0] for b in blocks])
        score = np.concatenate([b[3] for b in blocks])
        train = np.concatenate([b[5] for b in blocks])
        valid = np.flatnonzero(np.isfinite(score) & np.isfinite(train))
        order = valid[np.lexsort((score[valid], cand_a[valid]))]
        _, first = np.unique(cand_a[order], return_index=True)
        pick = order[first]  # per work vector its best-scoring candidate
        r, k = train[pick], np.concatenate(n_coef)[pick] + 1  # coefficients and the exponent
        best = int(np.argmin(r))
        s2 = max(m * r[best] ** 2 / max(m - k[best], 1), SIZE_LAW_NOISE ** 2)
        w = np.exp(-m * (r**2 - r[best] ** 2) / (2.0 * s2))
        # laws that fit as well as the best to 1e-6 are ties, as in the search: exact runs fit every
        # exponent whose c0 stays >= 0, and the first (gentlest) of them stands for them all
        tied = np.flatnonzero(r <= r[best] + 1e-6)
        w[tied[1:]] = 0.0
        keep = w / w.sum() >= 1e-6
        w = w[keep] / w[keep].sum()
        pick = pick[keep]
        return (grid[cand_a[pick]], shift[cand_a[pick]], np.concatenate(coefs)[pick], w,
                [terms[i] for i in pick])

    def _search(self, base, subsets, terms_all, masks, tests, assumed, beam: bool = True) -> list[tuple]:
        """Fit and score every candidate (forward selection by subset size).

        ``assumed``: (A,) added to the score of each work vector's candidates.  ``beam``: False
        searches the larger subsets at every work vector, not only at the best few.

        Returns one block per subset size: ``(work vector indices, subsets, cv errors, scores,
        full-data coefficients, training RMS relative errors)``, candidates ordered (subset, work vector).
        """
        A, m = base.shape[:2]
        counts = masks.sum(axis=1)
        blocks, designs = [], None
        column = {h: 2 + j for j, h in enumerate(terms_all)}
        by_size: dict[int, list] = {}
        for sub in subsets:
            by_size.setdefault(len(sub), []).append(sub)
        sizes = sorted(by_size)
        keep_a, keep_terms = np.arange(A), None
        for k in sizes:
            subs = by_size[k] if keep_terms is None else [sub for sub in by_size[k] if keep_terms.issuperset(sub)]
            if not subs:
                continue
            idx = np.array([[0, 1] + [column[h] for h in sub] for sub in subs])  # (U, 2 + k)
            cand_a = np.concatenate([keep_a] * len(subs))  # np.tile(keep_a, U)
            # candidates ordered (u, a): on a tie the earlier terms (the gentler ones) win
            if len(subs) > 1 and keep_a.size > 1:
                designs = designs or _Designs(base)
                D, coef = designs.fit(keep_a, cand_a, idx, masks)  # (C, m, 2 + k), (F + 1, C, 2 + k)
            else:
                # one subset or one work vector: this reshape is a view, not a copy, over which numpy
                # sums the column norms in another order (pairwise) than over _Designs' tables
                D = base[keep_a][:, :, idx].transpose(2, 0, 1, 3).reshape(len(subs) * keep_a.size, m, 2 + k)
                coef = _batched_fit(D, masks)
            pred = np.matmul(D[None], coef[..., None])[..., 0]  # (F + 1, C, m): prediction / t
            C = D.shape[0]
            feasible = (coef[0] >= -1e-12).all(axis=1) if self.select_terms else np.ones(C, bool)
            used = [f for f in range(1, counts.size) if counts[f] >= 3 + k]
            cv = _fold_errors(pred, [(f, tests[f - 1]) for f in used]) if used else np.full(C, np.nan)
            train = np.sqrt(np.add.reduce((pred[0] - 1.0) ** 2, axis=1) / m)  # np.mean's sum and division
            score = np.where(np.isfinite(cv), cv, train) + self.complexity * k + assumed[cand_a]
            score = np.where(feasible & np.isfinite(score), score, np.inf)
            blocks.append((cand_a, subs, cv, score, coef[0], train))
            if k == 1 and self.select_terms and len(sizes) > 2:
                # forward selection: pairs (and larger sets) only of the best single terms, at the
                # best work exponents -- a beam that keeps the search linear in the number of terms
                by_term = score.reshape(len(subs), keep_a.size)
                keep_terms = {subs[u][0] for u in np.argsort(by_term.min(axis=1), kind="stable")[:_BEAM_TERMS]}
                if beam:
                    keep_a = keep_a[np.sort(np.argsort(by_term.min(axis=0), kind="stable")[:_BEAM_EXPONENTS])]
        return blocks

    @property
    def candidates_(self) -> pd.DataFrame:
        """Every candidate: ``exponents``, ``terms``, ``cv_error``, ``feasible``, ``score`` (built lazily)."""
        self._check_fitted(f"{type(self).__name__}.candidates_")
        grid, a, blocks, cv, ok, score = self._candidates
        terms = [sub for subs, repeat in blocks for sub in subs for _ in range(repeat)]
        return pd.DataFrame({"exponents": [grid[i] for i in a], "terms": terms, "cv_error": cv, "feasible": ok,
                             "score": score})

    def _log_work(self, n, S, shift=None) -> np.ndarray:
        if self.work is not None:
            base = np.log(np.asarray(self.work(S), float).reshape(-1))
        else:
            base = np.log(S) @ np.asarray(self.exponents_) + SCOPES[self.scope_] * np.log(n)
        return base + (self._log_shift if shift is None else shift)

    def _predict(self, n, S) -> np.ndarray:
        if self._laws is None:
            D = self._columns(n, self._log_work(n, S)[None], self.terms_)[0]
            return D @ self.coefficients_
        vectors, shift, coef, w, _ = self._laws
        logw = vectors @ np.column_stack([np.log(S), np.log(n)]).T + shift[:, None]  # (L, k)
        P = np.einsum("lkc,lc->lk", self._columns(n, logw, self._terms_all), coef)
        # the weighted geometric mean of the laws that predict a positive runtime there
        ok = P > 0
        wk = np.where(ok, w[:, None], 0.0)
        total = wk.sum(axis=0)
        mean = (wk * np.log(np.where(ok, P, 1.0))).sum(axis=0) / np.where(total > 0, total, 1.0)
        return np.where(total > 0, np.exp(mean), np.nan)

    @property
    def size_laws_(self) -> pd.DataFrame:
        """The size laws the prediction averages: ``exponents``, ``scope``, ``terms``, ``weight``.

        From fewer than :data:`MIN_SIZES_FOR_EXPONENT` sizes (no user work function) every work
        vector with its best terms, weighted by its likelihood (:data:`SIZE_LAW_NOISE`); else the
        chosen law alone, weight 1.
        """
        self._check_fitted(f"{type(self).__name__}.size_laws_")
        if self._laws is None:
            return pd.DataFrame({"exponents": [self.exponents_], "scope": [self.scope_], "terms": [self.terms_],
                                 "weight": [1.0]})
        vectors, _, _, w, terms = self._laws
        scopes = {b: name for name, b in SCOPES.items()}
        return pd.DataFrame({"exponents": [tuple(map(float, v[:-1])) for v in vectors],
                             "scope": [scopes[v[-1]] for v in vectors], "terms": [tuple(t) for t in terms],
                             "weight": w})

    @property
    def equation_(self) -> str:
        """The fitted model with its numbers (``W`` in the unit of the work function or ``prod s^a``)."""
        self._check_fitted(f"{type(self).__name__}.equation_")
        c = self.coefficients_
        scale = np.exp(self._log_shift)
        if self.work is None:
            b = SCOPES[self.scope_]
            w = "*".join([f"{p}^{a:.3g}" for p, a in zip(self.parameters_, self.exponents_)]
                         + ([] if b == 0 else ["n"] if b == 1 else [f"n^{b:.3g}"]))
        else:
            w = "W"
        parts = [f"{c[0]:.4g}", f"{c[1] * scale:.4g}*{w}/n"] + [
            f"{ci:.4g}*{h}" for ci, h in zip(c[2:], self.terms_)]
        return "t = " + " + ".join(parts) + ("" if not any("W" in h for h in self.terms_)
                                             else f"  (W = {scale:.4g}*{w})")


class ExpertWorkModel(WorkAwareModel):
    """The expert form ``t = c0 + c1 W/n + c2 log2(n)``, ``W`` = the size or ``work(S)``.

    Parameters
    ----------
    work : callable or None, default None
        Total work per row from the problem parameters; None: the product of the parameters.
    """

    name = "expert"
    # the fixed form: read by WorkAwareModel's fit as if they were parameters
    exponents = (1.0,)
    overheads = ("log2(n)",)
    max_terms = 1
    select_terms = False
    complexity = 0.0
    scopes = ("total",)
    max_work_vectors = MAX_WORK_VECTORS

    def __init__(self, work=None):
        self.work = work

