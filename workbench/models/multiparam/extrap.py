"""Extra-P 4.2.5's multi-parameter PMNF modeler, reimplemented ([ExtraP], [ExtraP4]).

References
----------
[ExtraP]
    The performance model normal form (PMNF) and its hypothesis search.
[ExtraP4]
    Extra-P 4.2.5 (commit 291ac81), ``extrap/modelers/multi_parameter/multi_parameter_modeler.py``
    (``find_best_measurement_points``, ``create_model``) and ``extrap/entities/hypotheses.py``
    (``MultiParameterHypothesis.compute_coefficients`` / ``compute_cost``,
    ``calc_term_contribution``).  No Extra-P code is used.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import ModelWarning, ValidationError, quiet_warnings
from workbench.models.multiparam.base import ALLOCATION, MultiParameterModel, unique_rows
from workbench.models.pmnf import PMNF

__all__ = ["ExtraPMultiParameter"]


def _term_values(x, i, j):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(x, float) ** i * np.log2(np.asarray(x, float)) ** j


def _line_points(P: np.ndarray, y: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Extra-P's ``find_best_measurement_points`` for parameter ``p``.

    Group the points by their other coordinates (lines along ``p``), keep the longest lines,
    keep only the lines present at the first value of ``p``, and average ``y`` per value of
    ``p`` over them.
    """
    others = np.delete(P, p, axis=1)
    _, line, counts = unique_rows(others)
    longest = counts[line] == counts.max()
    first = P[np.flatnonzero(longest)[0], p]
    common = np.unique(line[longest & (P[:, p] == first)])
    keep = longest & np.isin(line, common)
    xs, inv = np.unique(P[keep, p], return_inverse=True)
    ys = np.bincount(inv.reshape(-1), weights=y[keep]) / np.bincount(inv.reshape(-1))
    return xs, ys


def _extrap_hypotheses(k: int, combinations: bool) -> list[tuple[tuple[int, ...], ...]]:
    """Extra-P's multi-parameter hypotheses over ``k`` active terms, in its order.

    Each hypothesis is a tuple of products; a product is a tuple of term indices.
    """
    mult = tuple(range(k))
    add = [(i,) for i in range(k)]
    out = [(mult,), tuple(add)]
    if not combinations:
        return out
    if k == 2:
        out += [(add[0], mult), (add[1], mult)]
    elif k == 3:
        xy, yz, xz = (0, 1), (1, 2), (0, 2)
        out += [(mult, add[0]), (mult, add[1]), (mult, add[2]),
                (mult, xy), (mult, yz), (mult, xz),
                (mult, xy, add[2]), (mult, yz, add[0]), (mult, xz, add[1]),
                (mult, add[0], add[1]), (mult, add[0], add[2]), (mult, add[1], add[2]),
                (xy, add[2]), (xy, add[2], add[1]), (xy, add[2], add[0]),
                (xz, add[1]), (xz, add[1], add[0]), (xz, add[1], add[2]),
                (yz, add[0]), (yz, add[0], add[1]), (yz, add[0], add[2])]
    return out


def _smape(pred, y) -> float:
    s = np.abs(pred) + np.abs(y)
    return float(np.mean(np.where(s > 0, 2 * np.abs(pred - y) / np.where(s > 0, s, 1.0), 0.0)) * 100)


def _lstsq(A, y):
    # as [ExtraP4] compute_coefficients: numpy's default cut-off, retried at machine precision
    # when it drops a singular value
    coef, _, rank, _ = np.linalg.lstsq(A, y, rcond=None)
    if rank < A.shape[1]:
        coef = np.linalg.lstsq(A, y, rcond=-1)[0]
    return coef


class ExtraPMultiParameter(MultiParameterModel):
    """Extra-P 4.2.5's multi-parameter PMNF modeler, reimplemented (module docstring).

    Parameters
    ----------
    target : {"runtime", "cost"}, default "runtime"
        Model ``t`` itself (Extra-P on runtime) or the cost ``t * n`` (runtime x allocation),
        predicting ``cost / n``.
    combinations : bool, default True
        Extra-P's ``allow_combinations_of_sums_and_products``.
    epsilon : float, default 0.0005
        Minimum term contribution ([ExtraP4] ``self.epsilon``).

    Attributes
    ----------
    terms_ : list of (str, float, float)
        The single-parameter term ``x^i log2(x)^j`` of each parameter that is not constant
        (parameter name, ``i``, ``j``).
    products_ : tuple of tuple of int
        The chosen hypothesis: a sum of products of ``terms_`` (indices).
    coefficients_ : ndarray
        Constant, then one coefficient per product.
    smape_ : float
        Training SMAPE (percent) of the chosen hypothesis.
    hypotheses_ : DataFrame
        Every hypothesis tried: ``formula``, ``smape``, ``eligible``, ``chosen``.
    """

    name = "extrap-mp"

    def __init__(self, target: str = "runtime", combinations: bool = True, epsilon: float = 0.0005):
        self.target = target
        self.combinations = combinations
        self.epsilon = epsilon

    def _y(self, n, t):
        return t * n if self.target == "cost" else t

    def _fit(self, n, S, t, notes) -> None:
        where = f"{type(self).__name__}.fit"
        if self.target not in ("runtime", "cost"):
            raise ValidationError(f"{where}: target must be 'runtime' or 'cost', got {self.target!r}")
        P = np.column_stack([n, S])
        y = self._y(n, t)
        names = [ALLOCATION] + list(self.parameters_)
        terms, single = [], []
        for p in range(P.shape[1]):
            xs, ys = _line_points(P, y, p)
            if xs.size < 2:
                continue
            with quiet_warnings():
                try:
                    # a parameter with 2 values: Extra-P's leave-one-out on 1-point training sets
                    model = PMNF(strong_scaling=False, two_point_loo=True).fit(xs, ys)
                except ValidationError:
                    continue
            h = model.hypothesis_
            if not h.is_constant:
                terms.append((names[p], h.i, h.j))
                single.append((p, model.coefficients_))
            if xs.size < 5:
                notes.append(ModelWarning(
                    "few-points", f"{where}: parameter {names[p]!r} has {xs.size} values on its longest lines; "
                    "Extra-P asks for at least 5", details={"parameter": names[p]}))
        G = np.column_stack([_term_values(P[:, p], i, j) for (_, i, j), (p, _) in zip(terms, single)]) \
            if terms else np.zeros((len(y), 0))
        rows, chosen = [], 0
        if not terms:
            products, coef = (), np.array([y.mean()])
            rows.append((self._formula((), terms), _smape(np.full_like(y, y.mean()), y), True))
        elif len(terms) == 1:
            # [ExtraP4] create_model: the single-parameter coefficients reused, or refitted on all points
            products = ((0,),)
            reuse = np.array(single[0][1])
            refit = _lstsq(np.column_stack([np.ones_like(y), G[:, 0]]), y)
            s_reuse = _smape(reuse[0] + reuse[1] * G[:, 0], y)
            s_refit = _smape(refit[0] + refit[1] * G[:, 0], y)
            chosen = int(s_refit < s_reuse)
            coef = refit if chosen else reuse
            rows += [(self._formula(products, terms) + " (single-parameter coefficients)", s_reuse, True),
                     (self._formula(products, terms) + " (refitted)", s_refit, True)]
        else:
            best = None
            for h in _extrap_hypotheses(len(terms), self.combinations):
                A = np.column_stack([np.ones_like(y)] + [G[:, list(prod)].prod(axis=1) for prod in h])
                c = _lstsq(A, y)
                s = _smape(A @ c, y)
                contrib = np.abs(A[:, 1:] * c[1:] / y[:, None]).max(axis=0)
                ok = bool(np.all(c[1:] != 0) and np.all(contrib >= self.epsilon))
                rows.append((self._formula(h, terms), s, ok))
                # the first hypothesis is the start whatever its terms ([ExtraP4] scores hypothesis 0
                # again inside its loop, where it can only replace itself)
                if best is None or (ok and s < best[2]):
                    best, chosen = (h, c, s), len(rows) - 1
            products, coef = best[0], best[1]
        self.terms_ = terms
        self.products_ = tuple(products)
        self.coefficients_ = np.asarray(coef, float)
        self._G_index = [p for p, _ in single]
        with np.errstate(all="ignore"):
            self.smape_ = _smape(self._evaluate(P), y)
        self._hypotheses = (rows, chosen)

    @property
    def hypotheses_(self) -> pd.DataFrame:
        """Every hypothesis tried: ``formula``, ``smape`` (training, percent), ``eligible``, ``chosen``.

        Built lazily (a DataFrame costs more than the fit).
        """
        self._check_fitted(f"{type(self).__name__}.hypotheses_")
        rows, chosen = self._hypotheses
        table = pd.DataFrame(rows, columns=["formula", "smape", "eligible"])
        table["chosen"] = np.arange(len(table)) == chosen
        return table

    @staticmethod
    def _formula(products, terms) -> str:
        def term(k):
            name, i, j = terms[k]
            parts = ([f"{name}^{i:g}"] if i != 0 else []) + ([f"log2({name})^{j:g}"] if j != 0 else [])
            return "*".join(parts)
        return " + ".join(["c0"] + [f"c{m + 1}*" + "*".join(term(k) for k in prod) for m, prod in enumerate(products)])

    def _evaluate(self, P: np.ndarray) -> np.ndarray:
        out = np.full(P.shape[0], self.coefficients_[0])
        for m, prod in enumerate(self.products_):
            v = np.ones(P.shape[0])
            for k in prod:
                _, i, j = self.terms_[k]
                v = v * _term_values(P[:, self._G_index[k]], i, j)
            out = out + self.coefficients_[m + 1] * v
        return out

    def _predict(self, n, S) -> np.ndarray:
        y = self._evaluate(np.column_stack([n, S]))
        return y / n if self.target == "cost" else y

    @property
    def equation_(self) -> str:
        """The fitted model with its numbers."""
        self._check_fitted(f"{type(self).__name__}.equation_")
        parts = [f"{self.coefficients_[0]:.4g}"]
        for m, prod in enumerate(self.products_):
            factors = []
            for k in prod:
                name, i, j = self.terms_[k]
                factors += ([f"{name}^{i:g}"] if i != 0 else []) + ([f"log2({name})^{j:g}"] if j != 0 else [])
            parts.append(f"{self.coefficients_[m + 1]:.4g}*" + "*".join(factors))
        body = " + ".join(parts)
        return f"t = ({body}) / n" if self.target == "cost" else f"t = {body}"

