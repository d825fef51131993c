"""The contract every n -> t strong-scaling model follows, and the five models under it.

References (short keys used in this package):

* [Amdahl67] G. Amdahl, "Validity of the single processor approach...", AFIPS 1967.
* [USL] N. Gunther, *Guerrilla Capacity Planning*, 2007 (Universal Scalability Law).
* [Downey1997] A. Downey, "A model for speedup of parallel programs", 1997 ([Deshmeh2013] Table 1).
* [Deshmeh2013] S. Deshmeh, PhD thesis, 2013, chapter 3: ADEPT (envelope, biased fits, warnings).
* [ExtraP] A. Calotoiu et al., SC13, and Extra-P 4.x: the performance model normal form.

A *scaling model* is a scikit-learn estimator (parameters only in ``__init__``,
``sklearn.base.clone`` works) with

* ``fit(n, t)``: ``n`` allocations (processes, nodes, GPUs; >= 1, repeats allowed), ``t``
  runtimes (> 0, any unit); returns ``self``;
* ``predict(n)``: runtimes in the unit of ``t``;
* ``predict_interval(n, level=0.8) -> (lower, upper)``: a central interval that holds
  the actual runtime with probability ``level``, calibrated on real curves the model did not
  see (:mod:`workbench.models.scaling.calibration`);
* ``warnings_``: a list of :class:`ModelWarning` (``.kind``, ``.message``);
* fitted attributes ending in ``_``; any use before ``fit`` raises
  :class:`~workbench.errors.NotFittedError`;
* for any input, only :class:`~workbench.errors.WorkbenchError` subclasses are raised, naming
  the argument and the position of the bad value.  Runtimes may be any positive finite
  numbers (1e-308 to 1e308; the fits rescale internally) spanning at most 1e100 within one
  curve; a prediction beyond the float range is a ValidationError.  Resource limits, each
  refused with a message saying what to do: ADEPT fits at most 32 distinct allocations
  (``Adept.MAX_ALLOCATIONS``), PMNF's leave-one-out at most 2000
  (``PMNF.MAX_CV_ALLOCATIONS``); repeated runs at one allocation are pooled and count once.
  Tests: ``tests/test_fuzz_models.py``.

:data:`MODELS` maps a model's name to its class.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator

from workbench.errors import ModelWarning, WorkbenchError, emit_warnings, quiet_warnings
from workbench.models.adept import Adept
from workbench.models.baselines import AmdahlModel, DowneyLM, USLModel
from workbench.models.pmnf import PMNF
from workbench.validation import FittedState, check_fitted, check_names, check_runs, check_targets, require_valid

__all__ = [
    "MODELS",
    "ModelWarning",
    "ScalingModel",
    "AmdahlScaling",
    "USLScaling",
    "DowneyLMScaling",
    "AdeptScaling",
    "PMNFScaling",
    "allocation_medians",
    "check_runs",
    "check_targets",
]


def allocation_medians(n: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct allocations (ascending) and the median runtime at each (repeats pooled).

    Parameters
    ----------
    n, t : numpy.ndarray of float
        Allocations and runtimes of the runs, one each per run (already checked, e.g. by
        :func:`check_runs`); repeated allocations are pooled into one median (the mean of the
        two middle runtimes for an even count).
    """
    alloc, inverse = np.unique(n, return_inverse=True)
    order = np.lexsort((t, inverse))
    counts = np.bincount(inverse)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sorted_t = t[order]
    lo = sorted_t[starts + (counts - 1) // 2]
    hi = sorted_t[starts + counts // 2]
    with np.errstate(over="ignore"):
        mid = (lo + hi) / 2.0
    # near the largest float the sum overflows; halving first gives the same median there
    return alloc, np.where(np.isfinite(mid), mid, lo / 2.0 + hi / 2.0)


def check_model_names(models, where: str) -> tuple[str, ...]:
    """Names in :data:`MODELS` as a tuple (:func:`~workbench.validation.check_names`).

    ``None`` is all of them, a string may list several ("adept,pmnf"); else a ValidationError
    naming the unknown ones.

    Parameters
    ----------
    models : str, sequence of str or None
        Model names (keys of :data:`MODELS`), comma-separated in a string; None for all.
    where : str
        The caller, named first in the error message.
    """
    return check_names(models, MODELS, where, "model")


class ScalingModel(FittedState, BaseEstimator):
    """Base class of the n -> t models.

    Validation, fitted-state checks, the in-sample fit error and calibrated intervals.
    Subclasses implement ``_fit(n, t)`` and ``_predict(n)`` (a float vector, NaN where the
    model refuses to predict), and may add ``_fit_warnings()``; they compose with the model
    they wrap through its public methods only (``tests/test_private_access.py``).

    Attributes
    ----------
    allocations_, medians_ : numpy.ndarray
        Distinct allocations (ascending) and the median runtime at each.
    n_max_ : float
        Largest allocation fitted.
    fit_time_s_ : float
        Seconds the wrapped model's fit took; it marks a fitted model (``fitted_attribute``,
        set by :meth:`fit` and :meth:`fit_for_prediction`).
    fit_error_ : float
        In-sample RMS of ``log(prediction / median)`` (:meth:`fit` only).
    warnings_ : list of ModelWarning
        The model's warnings about the fitted runs (:meth:`fit` only).
    """

    fitted_attribute = "fit_time_s_"

    #: key in :data:`MODELS` and in the calibration table
    name: ClassVar[str] = ""
    #: fewest distinct allocations the model can be fitted on
    min_points: ClassVar[int] = 3

    def fit(self, n, t) -> ScalingModel:
        """Fit on runs, with the in-sample error ``fit_error_`` and the ``warnings_`` (emitted once).

        Parameters
        ----------
        n : array-like of float
            Allocations of the runs (processes, nodes, GPUs; finite, >= 1, repeats allowed),
            at least ``min_points`` distinct ones.
        t : array-like of float
            Runtime of each run (finite, > 0, any unit: predictions come in the same unit).
        """
        self.fit_for_prediction(n, t)
        # in-sample misfit: RMS of log(prediction / median) over the allocations, a feature
        # of the interval calibration (a model that cannot follow its own data extrapolates worse)
        with np.errstate(invalid="ignore", divide="ignore"):
            resid = np.log(self._raw(self.allocations_) / self.medians_)
        resid = resid[np.isfinite(resid)]
        self.fit_error_ = float(np.sqrt(np.mean(resid**2))) if resid.size else float("nan")
        self.warnings_ = list(self._fit_warnings())
        emit_warnings(self.warnings_)
        return self

    def fit_for_prediction(self, n, t) -> ScalingModel:
        """Check the runs and fit the model for prediction only; return self.

        Everything :meth:`predict` needs, without the in-sample error ``fit_error_`` and the
        ``warnings_`` (all a cross-validation refit uses); nothing is emitted.

        Parameters
        ----------
        n, t : array-like of float
            Allocations (>= 1, repeats allowed) and runtimes (> 0), one each per run, as in
            :meth:`fit`.
        """
        n, t = check_runs(n, t, self.min_points, f"{type(self).__name__}.fit")
        self.allocations_, self.medians_ = allocation_medians(n, t)
        self.n_max_ = float(self.allocations_[-1])
        start = time.perf_counter()
        with quiet_warnings():  # the wrapped model's warnings are reported in warnings_
            self._fit(n, t)
        self.fit_time_s_ = time.perf_counter() - start
        return self

    def _fit_warnings(self) -> list[ModelWarning]:
        return []

    def _check_fitted(self) -> None:
        check_fitted(self)

    def predict(self, n) -> np.ndarray:
        """Predicted runtimes at ``n`` (unit of the fitted ``t``).

        NaN where the model refuses (ADEPT past an ambiguous last point).  A prediction
        beyond the float range (e.g. USL's slowdown at n = 1e300) is a ValidationError
        naming the target.

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1), in the unit of the fitted ``n``.
        """
        self._check_fitted()
        where = f"{type(self).__name__}.predict"
        n = check_targets(n, where)
        pred = self._raw(n)
        require_valid(np.isinf(pred) | (pred == 0), n, "n", "an allocation whose predicted runtime is a finite "
                      "number > 0 (the model's runtime there is beyond the float range)", where)
        return pred

    def predict_raw(self, n) -> np.ndarray:
        """Predicted runtimes at ``n`` without the range check of :meth:`predict`.

        Parameters
        ----------
        n : array-like of float
            Target allocations, finite and >= 1.

        Returns
        -------
        numpy.ndarray
            One runtime per target (a vector): NaN where the model refuses, inf or 0 where
            the runtime is beyond the float range (where :meth:`predict` raises).
        """
        self._check_fitted()
        return self._raw(check_targets(n, f"{type(self).__name__}.predict_raw"))

    def _raw(self, n: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return np.asarray(self._predict(n), float)

    def interval_features(self, n) -> dict[str, np.ndarray]:
        """Return what the interval calibration conditions on, per target.

        ``distance`` (log2 of target / largest observed allocation), ``n_points``
        (distinct allocations fitted) and ``fit_error`` (in-sample RMS log residual).

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1); each feature has one value per target.
        """
        self._check_fitted()
        n = check_targets(n, f"{type(self).__name__}.interval_features")
        return {
            "distance": np.log2(n / self.n_max_),
            "n_points": np.full(n.shape, float(self.allocations_.size)),
            "fit_error": np.full(n.shape, self.fit_error_),
        }

    def predict_interval(self, n, level: float = 0.8, calibration=None) -> tuple[np.ndarray, np.ndarray]:
        """Central ``level`` interval (lower, upper) of the runtime at ``n``.

        The prediction times the calibrated quantiles of this model's error on unseen real
        curves (:class:`~workbench.models.scaling.calibration.Calibration`; default: the
        table shipped with the package).

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1).
        level : float, default 0.8
            Probability that the interval holds the actual runtime, in (0, 1).
        calibration : Calibration, optional
            The error models to read the quantiles from; None (default) is the calibration
            shipped with the package (``calibration.json``).
        """
        from workbench.models.scaling.calibration import default_calibration

        self._check_fitted()
        pred = self.predict(n)
        cal = calibration if calibration is not None else default_calibration()
        return cal.interval(self.name, pred, self.interval_features(n), level)


class AmdahlScaling(ScalingModel):
    """[Amdahl67] ``T(n) = T1 (f + (1 - f) / n)``, fitted by exact non-negative least squares.

    On relative errors (:class:`~workbench.models.baselines.AmdahlModel`).  Two parameters:
    it never predicts a slowdown, and cannot bend more than ``1/n`` allows.
    """

    name = "amdahl"
    min_points = 2

    def _fit(self, n, t):
        self.model_ = AmdahlModel().fit(n, t)
        self.serial_fraction_ = self.model_.serial_fraction_

    def _predict(self, n):
        return self.model_.predict_raw(n)


class USLScaling(ScalingModel):
    """[USL] ``T(n) = T1 (1 + alpha (n - 1) + beta n (n - 1)) / n``, exact NNLS fit.

    :class:`~workbench.models.baselines.USLModel`: predicts a slowdown past its peak.
    """

    name = "usl"

    def _fit(self, n, t):
        self.model_ = USLModel().fit(n, t)
        self.alpha_, self.beta_, self.n_peak_ = self.model_.alpha_, self.model_.beta_, self.model_.n_peak_

    def _predict(self, n):
        return self.model_.predict_raw(n)


class DowneyLMScaling(ScalingModel):
    """[Downey1997] speedup model fitted by Levenberg-Marquardt with the time scale profiled out.

    :class:`~workbench.models.baselines.DowneyLM`, ``units="fit"``.

    Parameters
    ----------
    x0 : tuple of (float, float), default (10.0, 2.0)
        Levenberg-Marquardt's starting (A0, sigma0): average parallelism (>= 1) and its
        variance (>= 0) in Downey's model.
    max_nfev : int, default 2000
        Most model evaluations LM may spend (>= 1).
    """

    name = "downey-lm"

    def __init__(self, x0=(10.0, 2.0), max_nfev: int = 2000):
        self.x0 = x0
        self.max_nfev = max_nfev

    def _fit(self, n, t):
        self.model_ = DowneyLM(x0=self.x0, max_nfev=self.max_nfev).fit(n, t)
        self.A_, self.sigma_ = self.model_.A_, self.model_.sigma_

    def _predict(self, n):
        return self.model_.predict_raw(n)

    def _fit_warnings(self):
        return list(self.model_.warnings_)


class AdeptScaling(ScalingModel):
    """ADEPT [Deshmeh2013]: Downey's model with an envelope and one biased fit per target.

    With anomaly handling and the thesis' reliability warnings
    (:class:`~workbench.models.adept.Adept`).

    ``warnings_`` holds ADEPT's own warnings (kinds of
    :class:`~workbench.errors.ModelWarning`) for the fitted allocations;
    :meth:`warnings_for` gives those of given targets.

    Parameters
    ----------
    q : float, default 2.0
        Weight sensitivity to prediction distance of the biased fits (>= 1;
        [Deshmeh2013] section 3.5.2).
    delta : float, default 0.05
        Initial envelope deviation bound (a fraction), raised until the reference instance
        fits within it ([Deshmeh2013] section 3.5.1).
    saturation : {"evidence", "thesis"}, default "evidence"
        "thesis" uses the best WSSRE fit whatever it predicts, as the thesis did;
        "evidence" keeps a fit whose speedup stops just past the largest run only if the
        data demand it (else a refit and a "saturation-undetermined" warning) and searches
        a geometric A grid too (:class:`~workbench.models.adept.Adept`, Notes).
    """

    name = "adept"

    def __init__(self, q: float = 2.0, delta: float = 0.05, saturation: str = "evidence"):
        self.q = q
        self.delta = delta
        self.saturation = saturation

    def _fit(self, n, t):
        self.model_ = Adept(q=self.q, delta=self.delta, saturation=self.saturation, targets=np.unique(n)).fit(n, t)

    def _predict(self, n):
        # the raw per-target rows: ScalingModel.predict names a runtime beyond the float range
        return self.model_.explain_columns(n)["prediction"].astype(float) if n.size else np.zeros(0)

    def warnings_for(self, n) -> list[ModelWarning]:
        """ADEPT's warnings that concern the targets ``n`` (and the fit as a whole).

        Parameters
        ----------
        n : array-like of float
            Target allocations (finite, >= 1).
        """
        self._check_fitted()
        n = check_targets(n, "AdeptScaling.warnings_for")
        return [w for w in self.model_.warnings_for(n) if not w.targets or set(w.targets) & set(n.tolist())]

    def _fit_warnings(self):
        return self.warnings_for(self.allocations_)


class PMNFScaling(ScalingModel):
    """[ExtraP] performance model normal form ``c0 + c1 n^i log2(n)^j`` on the cost ``t n``.

    The cost of a strong-scaling curve, hypothesis chosen by leave-one-out SMAPE
    (:class:`~workbench.models.pmnf.PMNF`).
    """

    name = "pmnf"
    min_points = 2

    def _fit(self, n, t):
        self.model_ = PMNF().fit(n, t)  # its 2-allocation note is the min_points case, by design: not reported
        self.hypothesis_ = self.model_.hypothesis_

    def _predict(self, n):
        # where the fitted cost reaches zero (a negative c1) PMNF has no runtime to give:
        # refuse (NaN, PMNF.predict_raw) instead of PMNF's tiny floor value, which would read as
        # a prediction (a positive cost that underflows is a runtime beyond the float range,
        # which predict reports, not a refusal)
        return self.model_.predict_raw(n)

    def _fit_warnings(self):
        if self.model_.may_clip_:
            return [ModelWarning("cost-reaches-zero",
                                 f"the fitted cost {self.model_.equation_} decreases with n and reaches zero at "
                                 "some larger allocation: no prediction is made there")]
        return []


#: Every n -> t model by name (``MODELS[name]()`` gives an unfitted estimator).
MODELS: dict[str, type[ScalingModel]] = {
    cls.name: cls for cls in (AmdahlScaling, USLScaling, DowneyLMScaling, AdeptScaling, PMNFScaling)
}


def fit_or_message(model: ScalingModel, n, t, in_sample: bool = True) -> str:
    """Fit ``model`` in place.

    Return "" on success or the reason it could not be fitted (a model that cannot describe a
    curve is not an error of the caller).  ``in_sample=False`` fits for prediction only,
    without the in-sample error and warnings (cross-validation).

    Parameters
    ----------
    model : ScalingModel
        The estimator to fit (changed in place).
    n, t : array-like of float
        Allocations (>= 1) and runtimes (> 0), one each per run.
    in_sample : bool, default True
        True: :meth:`ScalingModel.fit` (with ``fit_error_`` and ``warnings_``, not emitted);
        False: :meth:`ScalingModel.fit_for_prediction`.
    """
    try:
        if in_sample:
            with quiet_warnings():  # the caller reports what it needs of the model's warnings_
                model.fit(n, t)
        else:
            model.fit_for_prediction(n, t)  # silences the wrapped model itself and emits nothing of its own
    except WorkbenchError as exc:
        return str(exc)
    except (FloatingPointError, np.linalg.LinAlgError, ValueError) as exc:  # numerical breakdowns
        return f"{model.name} could not be fitted: {exc}"
    return ""

