"""The size power law ``t = a_n * s^m`` (the fractal extrapolation at every measured allocation)."""

from __future__ import annotations

import numpy as np

from workbench.errors import ValidationError
from workbench.models.multiparam.base import MultiParameterModel

__all__ = ["SizePowerModel"]


class SizePowerModel(MultiParameterModel):
    """``t = a_n * prod_j s_j^m_j``: a power law in the size, shared by the measured allocations.

    The fractal extrapolation of [EscobarBoppana] (a line of ``ln t`` on ``ln size``) at every
    measured allocation at once, with one exponent per problem parameter shared by all
    allocations and one level ``a_n`` per allocation (least squares on ``ln t`` with an
    indicator column per allocation).  It predicts only at the measured allocations: elsewhere
    :meth:`predict` raises a ValidationError, and inside the predictor it abstains (NaN).

    Attributes
    ----------
    allocations_ : ndarray
        The measured allocations.
    levels_ : ndarray
        ``ln a_n`` per allocation.
    exponents_ : ndarray
        ``m_j`` per problem parameter.
    """

    name = "size-power"

    def _fit(self, n, S, t, notes) -> None:
        where = f"{type(self).__name__}.fit"
        alloc, idx = np.unique(n, return_inverse=True)
        idx = idx.reshape(-1)
        counts = np.bincount(idx)
        if not np.any(counts >= 2):
            raise ValidationError(f"{where}: needs at least one allocation measured at >= 2 sizes (to learn the "
                                  "size exponent), got one size per allocation")
        A = np.column_stack([np.eye(alloc.size)[idx], np.log(S)])
        coef = np.linalg.lstsq(A, np.log(t), rcond=None)[0]
        self.allocations_ = alloc
        self.levels_ = coef[:alloc.size]
        self.exponents_ = coef[alloc.size:]

    def _predict(self, n, S) -> np.ndarray:
        pos = np.searchsorted(self.allocations_, n)
        pos = np.minimum(pos, self.allocations_.size - 1)
        known = self.allocations_[pos] == n
        out = np.exp(self.levels_[pos] + np.log(S) @ self.exponents_)
        return np.where(known, out, np.nan)

    def predict(self, X) -> np.ndarray:
        """Return the runtime at each row of ``X``; only at the measured allocations (else a ValidationError).

        Parameters
        ----------
        X : pandas.DataFrame
            Column ``n`` and the fitted problem-parameter columns.
        """
        n, S = self._targets(X, f"{type(self).__name__}.predict")
        unknown = ~np.isin(n, self.allocations_)
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise ValidationError(f"{type(self).__name__}.predict: predicts only at the measured allocations "
                                  f"{self.allocations_.tolist()}, got n = {n[i]:g} in row {i}")
        return super().predict(X)

    @property
    def equation_(self) -> str:
        """The fitted model: the size exponents and the allocations it knows."""
        self._check_fitted(f"{type(self).__name__}.equation_")
        powers = " * ".join(f"{p}^{m:.3g}" for p, m in zip(self.parameters_, self.exponents_))
        return f"t = a(n) * {powers}, n in {self.allocations_.tolist()}"

