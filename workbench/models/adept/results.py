"""ADEPT's per-target results: the fits of a set of targets as one frozen table of columns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["TargetFits"]


@dataclass(frozen=True)
class TargetFits:
    """Per-target fits as numpy columns, one row per distinct target, sorted by target.

    Attributes
    ----------
    columns : dict of str to numpy.ndarray
        The columns of :attr:`~workbench.models.adept.Adept.fits_` (target, A, sigma, scale,
        wssre, max_rel_error, fixed_point, pass1_A, pass1_sigma, runner_up_A,
        runner_up_sigma, runner_up_wssre, n_used, saturation_n, saturation, saturating_A,
        saturating_sigma, saturation_suggested_n, variance, prediction, speedup,
        suggested_n); every array has one value per row.
    """

    columns: dict

    @property
    def targets(self) -> np.ndarray:
        """numpy.ndarray : The targets, sorted (the rows' keys)."""
        return self.columns["target"]

    def missing(self, targets: np.ndarray) -> np.ndarray:
        """Return the distinct ``targets`` that have no row (sorted).

        Parameters
        ----------
        targets : numpy.ndarray
            Processor counts.

        Returns
        -------
        numpy.ndarray
            Those without a fit here.
        """
        return np.setdiff1d(targets, self.targets)

    def merge(self, other: TargetFits) -> TargetFits:
        """Return the rows of both (``other``'s targets must not be here already).

        Parameters
        ----------
        other : TargetFits
            Fits of other targets.

        Returns
        -------
        TargetFits
            All rows, sorted by target.
        """
        order = np.argsort(np.concatenate([self.targets, other.targets]), kind="stable")
        return TargetFits({col: np.concatenate([v, other.columns[col]])[order] for col, v in self.columns.items()})

    def rows(self, targets: np.ndarray) -> dict[str, np.ndarray]:
        """Return the columns at ``targets``, in their order (each must have a row).

        Parameters
        ----------
        targets : numpy.ndarray
            Processor counts, repeats allowed.

        Returns
        -------
        dict of str to numpy.ndarray
            One value per target in every column.
        """
        at = np.searchsorted(self.targets, targets)
        return {col: v[at] for col, v in self.columns.items()}

    def empty(self) -> dict[str, np.ndarray]:
        """Return the columns with no row (their dtypes kept).

        Returns
        -------
        dict of str to numpy.ndarray
            Zero-length columns.
        """
        return {col: v[:0] for col, v in self.columns.items()}

    def frame(self) -> pd.DataFrame:
        """Return the fits as a frame (the columns in their order).

        Returns
        -------
        pandas.DataFrame
            One row per target.
        """
        return pd.DataFrame(self.columns)
