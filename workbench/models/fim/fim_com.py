"""FiM-Com as an estimator: fitted station service times in, collective communication times out.

[Bhimani2019] section 3 models a scatter, broadcast or gather as the D -> M -> C -> R
queueing network of :mod:`workbench.models.fim.queueing` (Fig. 4, Eqs. 13-16), whose four
service-time distributions are calibrated on measurements (section 3.3, Fig. 11;
:mod:`workbench.models.fim.service_fit`).  :class:`FiMCom` puts both steps behind the
scikit-learn contract every model of the workbench follows: parameters in ``__init__``,
``fit`` returns ``self``, fitted attributes end in ``_``, warnings as
:class:`~workbench.errors.ModelWarning` in ``warnings_``.

Example::

    model = FiMCom("broadcast").fit(samples.samples, samples.loads)   # measured stations
    model.predict([[4096, 8], [4096, 16]])                             # mean makespans
    FiMCom("scatter", rates=dict(zeta_min=1, zeta_max=2, metadata_coef=0.1, eta=1, psi=0.5)).fit()
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from tqdm.auto import tqdm

from workbench.errors import ModelWarning, ValidationError, emit_warnings
from workbench.models.fim.queueing import PATTERNS, STATIONS, CollectiveSimulation, ServiceRates, simulate_collective
from workbench.models.fim.service_fit import STATION_FAMILIES, StationFit, fit_station, rates_from_fits
from workbench.validation import check_fitted

__all__ = ["FiMCom", "RATE_NAMES"]

#: The keyword arguments of :func:`~workbench.models.fim.queueing.simulate_collective` that
#: describe the stations (Eqs. 13-16).
RATE_NAMES = ("zeta_min", "zeta_max", "metadata_coef", "eta", "psi")
#: Goodness-of-fit p-value below which a station's fitted family is reported as rejected.
REJECT_P = 0.05
#: Configurations simulated before :meth:`FiMCom.predict` shows a progress bar.
_PROGRESS_FROM = 20


class FiMCom(BaseEstimator):
    """FiM-Com ([Bhimani2019] section 3): communication time of a collective by simulation.

    Parameters
    ----------
    pattern : {"scatter", "broadcast", "gather"}, default "broadcast"
        The collective (Fig. 4's routings).
    rates : mapping, optional
        The station parameters directly (``zeta_min, zeta_max, metadata_coef, eta, psi``,
        one time unit); then :meth:`fit` takes no samples.  ``None``: fit them.
    families : mapping, optional
        Service-time family per station, overriding the paper's
        (:data:`~workbench.models.fim.service_fit.STATION_FAMILIES`); D must stay
        ``uniform_rate`` and M ``log`` for a simulation.
    phi : float, optional
        Simultaneous receivers of Eq. 16; ``None``: the pattern's default.
    replications : int, default 10
        Simulations averaged per configuration by :meth:`predict`.
    seed : int, default 0
        Seed of every simulation (same seed, same prediction).

    Attributes
    ----------
    rates_ : ServiceRates
        The station parameters used.
    station_fits_ : dict of str -> StationFit
        The fitted stations (empty when ``rates`` was given).
    warnings_ : list of ModelWarning
        Kinds ``"station-fit-note"`` (a fit's own note, e.g. too few samples for a test)
        and ``"station-fit-rejected"`` (chi-square p-value below 0.05).

    Examples
    --------
    With the station parameters given (no samples to fit), the mean simulated time of a
    gather of 100 jobs over 4 processes (the parameters' time unit):

    >>> rates = dict(zeta_min=1.0, zeta_max=2.0, metadata_coef=0.1, eta=1.0, psi=0.5)
    >>> model = FiMCom("gather", rates=rates, replications=3, seed=7).fit()
    >>> round(float(model.predict([[100, 4]])[0]), 1)
    54.3
    """

    def __init__(self, pattern: str = "broadcast", rates: Mapping | None = None, families: Mapping | None = None,
                 phi: float | None = None, replications: int = 10, seed: int = 0):
        self.pattern = pattern
        self.rates = rates
        self.families = families
        self.phi = phi
        self.replications = replications
        self.seed = seed

    def fit(self, samples: Mapping | None = None, loads=None) -> FiMCom:
        """Fit the four stations to measured service times, or take ``rates`` as given.

        Parameters
        ----------
        samples : mapping of station -> array of service times, optional
            Keys ``D, M, C, R`` (one time unit throughout); an object with ``samples`` and
            ``loads`` attributes (e.g. :class:`~workbench.evaluation.fim_com.StationSamples`)
            is accepted too.  Omit it when the model was given ``rates``.
        loads : array, optional
            The M queue length chi of every M sample (Eq. 14's load).

        Returns
        -------
        FiMCom
            ``self``, fitted.
        """
        if self.pattern not in PATTERNS:
            raise ValidationError(f"FiMCom: unknown collective pattern {self.pattern!r}; choose one of "
                                  f"{', '.join(PATTERNS)}")
        if hasattr(samples, "samples") and hasattr(samples, "loads"):
            samples, loads = samples.samples, samples.loads if loads is None else loads
        if (samples is None) == (self.rates is None):
            raise ValidationError("FiMCom.fit: give either measured station samples to fit or rates= in the "
                                  "model, not " + ("both" if samples is not None else "neither"))
        if samples is None:
            self.station_fits_, self.warnings_ = {}, []
            self.rates_ = self._given_rates()
            return self
        self.station_fits_ = self._fit_stations(samples, loads)
        self.rates_ = ServiceRates(**rates_from_fits(self.station_fits_))
        self.warnings_ = self._fit_warnings(self.station_fits_)
        emit_warnings(self.warnings_)
        return self

    def _given_rates(self) -> ServiceRates:
        unknown = sorted(set(self.rates) - set(RATE_NAMES))
        missing = [name for name in RATE_NAMES if name not in self.rates]
        if unknown or missing:
            raise ValidationError(f"FiMCom: rates need exactly {', '.join(RATE_NAMES)}"
                                  + (f"; missing {', '.join(missing)}" if missing else "")
                                  + (f"; unknown {', '.join(unknown)}" if unknown else ""))
        return ServiceRates(**{name: self.rates[name] for name in RATE_NAMES})

    def _fit_stations(self, samples: Mapping, loads) -> dict[str, StationFit]:
        missing = [s for s in STATIONS if s not in samples]
        if missing:
            raise ValidationError(f"FiMCom.fit: service times for station(s) {', '.join(missing)} are missing "
                                  f"(expected all of {', '.join(STATIONS)})")
        families = {**STATION_FAMILIES, **(self.families or {})}
        return {s: fit_station(samples[s], families[s], station=s, loads=loads if families[s] == "log" else None)
                for s in STATIONS}

    @staticmethod
    def _fit_warnings(fits: Mapping[str, StationFit]) -> list[ModelWarning]:
        out = [ModelWarning("station-fit-note", f"station {s}: {note}") for s, fit in fits.items()
               for note in fit.warnings]
        out += [ModelWarning("station-fit-rejected",
                             f"station {s}: the {fit.family} family is rejected by the chi-square test "
                             f"(p = {fit.p_value:.3g} < {REJECT_P}); its simulated times are not trustworthy",
                             details={"p_value": fit.p_value, "chi2": fit.chi2, "dof": fit.dof})
                for s, fit in fits.items() if fit.p_value < REJECT_P]
        return out

    def simulate(self, n_jobs: int, processes: int, replications: int | None = None,
                 sample_limit: int = 10_000) -> CollectiveSimulation:
        """Simulate one configuration: ``n_jobs`` data points over ``processes`` processes.

        Returns the whole :class:`~workbench.models.fim.queueing.CollectiveSimulation`
        (makespans of every replication, station finish times, service samples).

        Parameters
        ----------
        n_jobs : int
            Data points of the collective.
        processes : int
            Processes taking part.
        replications : int or None, default None
            Simulations; None: the model's ``replications``.
        sample_limit : int, default 10000
            Most service-time samples kept per station.
        """
        check_fitted(self, "rates_", fit="fit(samples) (or fit() with rates=)")
        rates = self.rates_
        return simulate_collective(self.pattern, n_jobs, processes, zeta_min=rates.zeta_min,
                                   zeta_max=rates.zeta_max, metadata_coef=rates.metadata_coef, eta=rates.eta,
                                   psi=rates.psi, phi=self.phi, seed=self.seed,
                                   replications=self.replications if replications is None else replications,
                                   sample_limit=sample_limit)

    def predict(self, X) -> np.ndarray:
        """Mean communication time (makespan, time unit of the rates) per configuration.

        Parameters
        ----------
        X : DataFrame with columns ``n_jobs`` and ``processes``, or array of shape (k, 2)
            The configurations, one per row.

        Returns
        -------
        ndarray, shape (k,)
        """
        check_fitted(self, "rates_", fit="fit(samples) (or fit() with rates=)")
        configs = self._configurations(X)
        rows = tqdm(configs, desc=f"FiM-Com {self.pattern}", disable=len(configs) < _PROGRESS_FROM)
        # one simulation per configuration: each is a sequential queueing run, not a vector op
        return np.array([self.simulate(n, p, sample_limit=0).makespan.mean() for n, p in rows])

    @staticmethod
    def _configurations(X) -> list[tuple[int, int]]:
        if isinstance(X, pd.DataFrame):
            missing = [c for c in ("n_jobs", "processes") if c not in X.columns]
            if missing:
                raise ValidationError(f"FiMCom.predict: the table lacks column(s) {', '.join(missing)} "
                                      "(one row per configuration: n_jobs, processes)")
            X = X[["n_jobs", "processes"]].to_numpy()
        arr = np.asarray(X)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValidationError("FiMCom.predict: configurations must be rows of (n_jobs, processes), got shape "
                                  f"{arr.shape}")
        return [(row[0], row[1]) for row in arr.tolist()]
