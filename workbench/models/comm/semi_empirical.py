"""The semi-empirical Exchange model of Branikas ([Branikas2024] chapter 6).

Built on the Intel MPI Benchmarks *Exchange* pattern measured on 64 ARIS nodes (Table
6.1, Fig. 6.2), with two independent variables, processes per node (PpN) and message
size (section 6.2):

* :class:`PpnFactorModel` -- Fig. 6.3: ``time(PpN, size) = PpN * base(size)`` with
  ``base(size)`` the time measured at 1 PpN for every message size (one empirical base
  case per size).
* :class:`ExchangeModel` -- the analytical expression of section 6.2 with a single base
  case: ``time(PpN, size) = PpN * (1/3) * (size / 4 KiB) * base``, ``base`` the time at
  1 PpN and 4 KiB (Fig. 6.4, errors in Fig. 6.5).  The 1/3 comes from Table 6.2, where the
  message-size ratio is "about three times the communication ratio"; it is the
  ``size_factor`` parameter here.

The base time.  Table 6.1 has no 4 KiB row, so the thesis's ``base`` is not printed.  It
can be recovered exactly from Table 6.2: its communication ratio is
``time / (base * PpN)``, and every one of the ten rows it shares with Table 6.1 gives the
same ``base = time / (ratio * PpN) = 6.10 us`` (6.1002-6.1029; e.g. 980.38 / 160.71 =
6.1003 at 2 MiB and 1 PpN): :data:`TABLE_6_2_BASE_US`, :func:`implied_base_us`.
:class:`ExchangeModel` takes the base as a parameter: a number, ``"measured"`` (the row
at 1 PpN and the base size of the fitted frame), ``"ratios"`` (the median implied base
of a ratio table such as 6.2) or ``"auto"`` (measured if there is such a row, else the
ratios).

The thesis's tables recomputed with these models are in :mod:`workbench.evaluation.comm_ml`:

* :func:`~workbench.evaluation.comm_ml.reproduce_table_6_1` -- our formula against every row
  of Table 6.1, with the percentage errors of Fig. 6.5 and the PpN-factor model beside it.
* :func:`~workbench.evaluation.comm_ml.table_6_3_check` -- Tables 6.3 and 6.4 (data generator vs the model and vs 32 x
  Exchange), with their documented inconsistencies *shown* in a ``discrepancy`` column:
  the printed predictions are the formula one message size lower (x 1/8), and the 2 MiB
  rows of the 32 x Exchange column are shifted.  Our columns use the formula as written.

Percentage errors follow the thesis (section 5.2): ``100 (measured - predicted) /
measured``, positive for an under-prediction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from workbench.errors import ValidationError
from workbench.validation import as_vector, check_fitted, numeric_columns

__all__ = [
    "BASE_SIZE_BYTES",
    "SIZE_FACTOR",
    "TABLE_6_2_BASE_US",
    "ITERATIONS",
    "ExchangeModel",
    "PpnFactorModel",
    "implied_base_us",
    "percentage_error",
]

#: The base case's message size (section 6.2): 4 KiB.
BASE_SIZE_BYTES = 4096
#: The thesis's size factor: the message-size ratio is about 3 times the communication ratio.
SIZE_FACTOR = 1 / 3
#: Base time (µs, 1 PpN, 4 KiB) implied by Table 6.2 at 2 MiB and 1 PpN: 980.38 / 160.71.
TABLE_6_2_BASE_US = 980.38 / 160.71
#: Time iterations of the data generator (section 3.2): the model times 32 for Table 6.3.
ITERATIONS = 32

#: The columns of an IMB Exchange table (Table 6.1).
EXCHANGE_COLUMNS = ["message_size_bytes", "processes_per_node", "avg_comm_time_us"]
_RATIO_COLUMNS = ["message_size_bytes", "processes_per_node", "communication_ratio"]
_BASE_CHOICES = ("auto", "measured", "ratios")


def percentage_error(predicted, measured) -> np.ndarray:
    """Return the thesis's signed percentage error (section 5.2).

    ``100 (measured - predicted) / measured``; positive when the model under-predicts.

    Parameters
    ----------
    predicted : array-like of float
        Model times.
    measured : array-like of float
        Measured times (same unit, non-zero).
    """
    p = as_vector(predicted, "predicted", "percentage_error")
    m = as_vector(measured, "measured", "percentage_error")
    if p.size != m.size:
        raise ValidationError(f"percentage_error: {p.size} predictions for {m.size} measurements")
    if np.any(m <= 0):
        raise ValidationError(f"percentage_error: measured times must be > 0, got {m[m <= 0][0]}")
    return 100.0 * (m - p) / m


def _ratio_table(ratios: pd.DataFrame) -> pd.DataFrame:
    """Return a ratio table with ``message_size_bytes`` (Table 6.2 gives ``message_size_kib``)."""
    if isinstance(ratios, pd.DataFrame) and "message_size_bytes" not in ratios.columns \
            and "message_size_kib" in ratios.columns:
        kib = numeric_columns(ratios, ["message_size_kib"], "communication-ratio table")["message_size_kib"]
        ratios = ratios.assign(message_size_bytes=kib * 1024)
    return _positive_columns(ratios, _RATIO_COLUMNS, "communication-ratio table")


def _broadcast_floats(ppn, size_bytes, where: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        return np.broadcast_arrays(np.asarray(ppn, dtype=float), np.asarray(size_bytes, dtype=float))
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{where}: ppn and size_bytes must be numbers or arrays that broadcast together "
                              f"({exc})") from None


def _positive_columns(frame, columns, where: str) -> pd.DataFrame:
    """Return ``frame`` with ``columns`` as finite floats > 0 (a copy), else raise a ValidationError.

    The error names the column and the first bad row.
    """
    out = numeric_columns(frame, columns, where)
    for c in columns:
        bad = ~(out[c].to_numpy() > 0) | (out[c].to_numpy() > 1e300)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValidationError(f"{where}: column {c!r} must be > 0 (and at most 1e300), got {out[c].iloc[i]!r} "
                                  f"in row {i}")
    return out


def implied_base_us(exchange: pd.DataFrame, ratios: pd.DataFrame) -> pd.DataFrame:
    """Return the base time each row of a ratio table implies (section 6.2).

    Table 6.2's communication ratio is ``time / (base * PpN)``, so
    ``base = time / (ratio * PpN)`` for every (size, PpN) that both tables hold.

    Returns ``message_size_bytes, processes_per_node, avg_comm_time_us,
    communication_ratio, implied_base_us``; for Tables 6.1 and 6.2 ten rows, all 6.10 µs.

    Parameters
    ----------
    exchange : pandas.DataFrame
        Exchange measurements: ``message_size_bytes, processes_per_node, avg_comm_time_us``.
    ratios : pandas.DataFrame
        Ratio table like Table 6.2: ``message_size_bytes, processes_per_node,
        communication_ratio``.
    """
    exchange = _positive_columns(exchange, EXCHANGE_COLUMNS, "Exchange table")
    ratios = _ratio_table(ratios)
    keys = ["message_size_bytes", "processes_per_node"]
    both = exchange[EXCHANGE_COLUMNS].merge(ratios[_RATIO_COLUMNS], on=keys)
    if both.empty:
        raise ValidationError("implied_base_us: the Exchange and ratio tables share no (message size, PpN) row")
    both["implied_base_us"] = both["avg_comm_time_us"] / (both["communication_ratio"] * both["processes_per_node"])
    return both.sort_values(keys).reset_index(drop=True)


class ExchangeModel(BaseEstimator):
    """[Branikas2024] section 6.2: ``time(PpN, size) = PpN * size_factor * (size / base_size) * base``.

    Parameters
    ----------
    base_size_bytes : float, default 4096
        Message size of the base case (4 KiB in the thesis).
    size_factor : float, default 1/3
        Communication ratio per message-size ratio (1/3 in the thesis, from Table 6.2).
    base_us : float or {"auto", "measured", "ratios"}, default "auto"
        The base time (µs at 1 PpN and ``base_size_bytes``): a positive number, or how
        :meth:`fit` obtains it -- ``"measured"`` (the frame's row at 1 PpN and the base
        size), ``"ratios"`` (median of :func:`implied_base_us` of the frame and the
        ``ratios`` passed to :meth:`fit`) or ``"auto"`` (measured when the frame has the
        row, else the ratios).  For Table 6.1 (no 4 KiB row) with Table 6.2 this gives
        6.10 µs (:data:`TABLE_6_2_BASE_US`).

    Attributes
    ----------
    base_us_ : float
        The base time (µs).
    base_source_ : str
        Where it came from: ``"given"``, ``"measured"`` or ``"ratios (n rows)"``.

    Examples
    --------
    With a given base time, 4 processes per node sending 8 KiB take 4 x 1/3 x 2 x 6 µs:

    >>> model = ExchangeModel(base_us=6.0).fit()
    >>> float(model.predict(4, 8192)), model.base_source_
    (16.0, 'given')
    """

    def __init__(self, base_size_bytes: float = BASE_SIZE_BYTES, size_factor: float = SIZE_FACTOR,
                 base_us: float | str = "auto"):
        self.base_size_bytes = base_size_bytes
        self.size_factor = size_factor
        self.base_us = base_us

    def _check_params(self) -> None:
        for name in ("base_size_bytes", "size_factor"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float, np.number)) and np.isfinite(value) and value > 0):
                raise ValidationError(f"ExchangeModel: {name} must be a positive number, got {value!r}")
        b = self.base_us
        if isinstance(b, str):
            if b not in _BASE_CHOICES:
                raise ValidationError(f"ExchangeModel: base_us must be a positive number or one of "
                                      f"{_BASE_CHOICES}, got {b!r}")
        elif not (isinstance(b, (int, float, np.number)) and np.isfinite(b) and b > 0):
            raise ValidationError(f"ExchangeModel: base_us must be a positive number (µs), got {b!r}")

    def fit(self, frame: pd.DataFrame | None = None, ratios: pd.DataFrame | None = None) -> ExchangeModel:
        """Find the base time.

        ``frame``: Exchange measurements with
        ``message_size_bytes, processes_per_node, avg_comm_time_us`` (Table 6.1's columns;
        not needed for a numeric ``base_us``); ``ratios``: a ratio table like Table 6.2
        (for ``base_us="ratios"``/``"auto"``).

        Parameters
        ----------
        frame : pandas.DataFrame, optional
            Exchange measurements (Table 6.1's columns); not needed for a numeric ``base_us``.
        ratios : pandas.DataFrame, optional
            Ratio table like Table 6.2, for ``base_us="ratios"`` or ``"auto"``.
        """
        self._check_params()
        if not isinstance(self.base_us, str):
            self.base_us_, self.base_source_ = float(self.base_us), "given"
            self.warnings_ = []  # every model has warnings_; this fit has none to give
            return self
        if frame is None:
            raise ValidationError(f"ExchangeModel: base_us={self.base_us!r} needs Exchange measurements to fit on")
        frame = _positive_columns(frame, EXCHANGE_COLUMNS, "ExchangeModel.fit")
        at_base = frame[(frame["processes_per_node"] == 1) & (frame["message_size_bytes"] == self.base_size_bytes)]
        if self.base_us in ("measured", "auto") and not at_base.empty:
            self.base_us_, self.base_source_ = float(at_base["avg_comm_time_us"].mean()), "measured"
            return self._checked_base()
        if self.base_us == "measured" or ratios is None:
            sizes = sorted(frame.loc[frame["processes_per_node"] == 1, "message_size_bytes"].unique().tolist())
            raise ValidationError(
                f"ExchangeModel: no measurement at 1 PpN and {self.base_size_bytes:g} B (1 PpN sizes: {sizes}); "
                f"pass ratios= (e.g. Table 6.2) with base_us='ratios'/'auto', or a number, e.g. "
                f"base_us={TABLE_6_2_BASE_US:.4g} (µs, implied by Table 6.2)")
        implied = implied_base_us(frame, ratios)
        self.base_us_ = float(implied["implied_base_us"].median())
        self.base_source_ = f"ratios ({len(implied)} rows)"
        return self._checked_base()

    def _checked_base(self) -> ExchangeModel:
        if not (np.isfinite(self.base_us_) and self.base_us_ > 0):
            raise ValidationError(f"ExchangeModel.fit: the base time from {self.base_source_} is {self.base_us_!r}, "
                                  "not a positive finite number: the times and ratios are out of any usable range")
        self.warnings_ = []  # every model has warnings_; this fit has none to give
        return self

    def predict(self, ppn, size_bytes) -> np.ndarray:
        """Predict the Exchange time (µs) for arrays (or scalars) ``ppn`` and ``size_bytes``.

        The two are broadcast against each other.

        Parameters
        ----------
        ppn : float or array-like
            Processes per node.
        size_bytes : float or array-like
            Message sizes in bytes (broadcast against ``ppn``).
        """
        check_fitted(self, "base_us_", "ExchangeModel.predict", fit="fit(table)")
        ppn, size = _broadcast_floats(ppn, size_bytes, "ExchangeModel.predict")
        if np.any(~np.isfinite(ppn) | (ppn <= 0)) or np.any(~np.isfinite(size) | (size <= 0)):
            raise ValidationError("ExchangeModel.predict: ppn and size_bytes must be finite and > 0")
        return ppn * self.size_factor * (size / self.base_size_bytes) * self.base_us_


class PpnFactorModel(BaseEstimator):
    """[Branikas2024] Fig. 6.3: ``time(PpN, size) = PpN * base(size)``.

    ``base(size)`` is the time measured at 1 PpN for that size.  Fitted attribute
    ``base_by_size_`` (a Series, µs, indexed by message size in bytes).
    """

    def fit(self, frame: pd.DataFrame) -> PpnFactorModel:
        """Learn ``base_by_size_`` from the 1-PpN measurements of ``frame``; return self.

        Parameters
        ----------
        frame : pandas.DataFrame
            Measurements with ``message_size_bytes, processes_per_node, avg_comm_time_us``;
            its 1-PpN rows give the base time per size.
        """
        frame = _positive_columns(frame, EXCHANGE_COLUMNS, "PpnFactorModel.fit")
        ones = frame[frame["processes_per_node"] == 1]
        if ones.empty:
            raise ValidationError("PpnFactorModel.fit: no measurement at 1 PpN, the base case of every size")
        self.base_by_size_ = ones.groupby("message_size_bytes")["avg_comm_time_us"].mean()
        self.warnings_ = []  # every model has warnings_; this fit has none to give
        return self

    def predict(self, ppn, size_bytes) -> np.ndarray:
        """Predicted time (µs); every size must have been measured at 1 PpN.

        Parameters
        ----------
        ppn : float or array-like
            Processes per node.
        size_bytes : float or array-like
            Message sizes in bytes (broadcast against ``ppn``).
        """
        check_fitted(self, "base_by_size_", "PpnFactorModel.predict", fit="fit(table)")
        ppn, size = _broadcast_floats(ppn, size_bytes, "PpnFactorModel.predict")
        known = np.isin(size, self.base_by_size_.index.to_numpy(dtype=float))
        if not known.all():
            raise ValidationError(f"PpnFactorModel.predict: no 1 PpN base case for size {size[~known].flat[0]:g} B; "
                                  f"measured sizes: {self.base_by_size_.index.tolist()}")
        return ppn * self.base_by_size_.reindex(size.ravel()).to_numpy().reshape(size.shape)
