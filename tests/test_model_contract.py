"""One contract for every model, in the spirit of scikit-learn's ``check_estimator``.

Every estimator of :mod:`workbench.models`: is a scikit-learn ``BaseEstimator`` whose
parameters are exactly its ``__init__`` arguments (``clone`` works); ``fit`` returns ``self``
and leaves the parameters alone; what ``fit`` adds ends in ``_``; ``warnings_`` is a list of
:class:`~workbench.errors.ModelWarning` and each warning found while fitting is emitted once
as a :class:`~workbench.errors.WorkbenchWarning`; predicting leaves the fitted model as it
was; a clone fitted on the same data predicts the same; results are arrays, tidy frames or
frozen dataclasses.  (Unfitted use: ``tests/test_not_fitted.py``.)
"""

from __future__ import annotations

import dataclasses
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from model_inputs import comm_sweep, exchange_frame, fim_runs, gbm_frame, profile
from sklearn.base import BaseEstimator, clone

from workbench.errors import ModelWarning, WorkbenchWarning
from workbench.models.adept import Adept
from workbench.models.baselines import AmdahlModel, DowneyLM, USLModel
from workbench.models.comm.gbm import CommGBM
from workbench.models.comm.regression import CommRegression
from workbench.models.comm.semi_empirical import ExchangeModel, PpnFactorModel
from workbench.models.fim import RBASP, FiMCal, FiMCom, HardwareRegression
from workbench.models.fractal import FractalExtrapolator
from workbench.models.pmnf import PMNF
from workbench.models.scaling import MODELS, ScalingPredictor

N = np.array([1.0, 2, 4, 8, 16, 32])
T = 100.0 * (0.1 + 0.9 / N) * (1 + 0.01 * np.log2(N))
RATES = dict(zeta_min=1.0, zeta_max=2.0, metadata_coef=0.1, eta=1.0, psi=0.5)


def station_samples(size: int = 400) -> dict:
    """Service times of the four FiM-Com stations drawn from the paper's families (Eqs. 13-16)."""
    rng = np.random.default_rng(1)
    loads = rng.integers(1, 20, size).astype(float)
    return {"samples": {"D": 1 / rng.uniform(1.0, 2.0, size), "M": 0.1 * (1 + np.log(loads)),
                        "C": rng.exponential(1.0, size), "R": rng.exponential(0.5, size)},
            "loads": loads}


def exchange_ratios() -> pd.DataFrame:
    frame = exchange_frame()
    frame["communication_ratio"] = frame["avg_comm_time_us"] / (6.1 * frame["processes_per_node"])
    return frame[["message_size_bytes", "processes_per_node", "communication_ratio"]]


def profile_with_unprofiled_time() -> pd.DataFrame:
    """:func:`profile` whose runs take 3x the time of their phases (``total_s``)."""
    frame = profile()
    return frame.assign(total_s=3 * frame.groupby(["size", "run"])["time_s"].transform("sum"))


def gbm_inputs():
    frame = gbm_frame()
    return (frame.drop(columns="comm_s"), frame["comm_s"]), {"progress": False}


#: name -> (unfitted model, fit arguments, fit keywords, predict arguments)
CASES = {
    "Adept": (Adept(), (N, T), {}, ([64.0, 128.0],)),
    "AmdahlModel": (AmdahlModel(), (N, T), {}, ([64.0],)),
    "USLModel": (USLModel(), (N, T), {}, ([64.0],)),
    "DowneyLM": (DowneyLM(), (N, T), {}, ([64.0],)),
    "PMNF": (PMNF(), (N, T), {}, ([64.0],)),
    **{f"MODELS[{name}]": (cls(), (N, T), {}, ([64.0],)) for name, cls in MODELS.items()},
    "ScalingPredictor": (ScalingPredictor(), (N, T), {}, ([64.0],)),
    "FractalExtrapolator": (FractalExtrapolator(), (profile(),), {}, (1200.0,)),
    "HardwareRegression": (HardwareRegression(), (fim_runs(),), {}, (fim_runs(),)),
    "FiMCal": (FiMCal(), (fim_runs(),), {}, (fim_runs(),)),
    "RBASP": (RBASP(), (fim_runs(),), {}, (fim_runs(),)),
    "ExchangeModel": (ExchangeModel(), (exchange_frame(), exchange_ratios()), {}, ([1, 2], [4096, 8192])),
    "PpnFactorModel": (PpnFactorModel(), (exchange_frame(),), {}, ([1, 2], [4096, 8192])),
    "CommRegression": (CommRegression(), (comm_sweep(),), {}, (comm_sweep(),)),
    "CommGBM": (CommGBM(n_iter=1, cv=2, n_estimators=(5, 10), max_depth=(1, 2)), *gbm_inputs(),
                (gbm_frame().drop(columns="comm_s"),)),
    "FiMCom (fitted stations)": (FiMCom(replications=2), (station_samples()["samples"], station_samples()["loads"]),
                                 {}, ([[200, 4], [200, 8]],)),
    "FiMCom (given rates)": (FiMCom("scatter", rates=RATES, replications=2), (), {}, ([[200, 4]],)),
}

#: Inputs on which a model must warn: name -> (unfitted model, fit arguments, a kind it must report)
SUPERLINEAR = 100.0 / N**1.2
WARNING_CASES = {
    "Adept": (Adept(), (N, SUPERLINEAR), "superlinear-speedup"),
    "AmdahlModel": (AmdahlModel(), (N, SUPERLINEAR), "linear-or-better"),
    "ScalingPredictor": (ScalingPredictor(), (N[:4], np.array([100.0, 60.0, 70.0, 40.0])), "retrograde-data"),
    "FiMCal": (FiMCal(), (fim_runs().assign(utilization=1.0 + 1e-6),), "utilization-clipped"),
    "CommRegression": (CommRegression(), (comm_sweep(30),), "pooled-fallback"),
    "FractalExtrapolator": (FractalExtrapolator(threshold=0.999999),
                            (profile_with_unprofiled_time(),), "phases-below-threshold"),
}


def fitted(name: str):
    model, args, kwargs, _ = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        return clone(model).fit(*args, **kwargs)


def public_fitted_state(model) -> str:
    """A hash of every fitted attribute (public, ending in ``_``), of fitted sub-models the same way.

    Private attributes are left out: a model may cache what it computed for a target.
    """
    def public(value):
        if isinstance(value, BaseEstimator):
            return public_fitted_state(value)
        if isinstance(value, dict):
            return {k: public(v) for k, v in value.items()}
        return value

    return joblib.hash({k: public(v) for k, v in vars(model).items() if k.endswith("_") and not k.startswith("_")})


def same(a, b) -> bool:
    if dataclasses.is_dataclass(a):
        return joblib.hash(dataclasses.asdict(a)) == joblib.hash(dataclasses.asdict(b))
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


@pytest.mark.parametrize("name", list(CASES))
def test_parameters_are_the_init_arguments_and_clone_keeps_them(name):
    model = CASES[name][0]
    assert isinstance(model, BaseEstimator)
    copy = clone(model)
    assert type(copy) is type(model) and joblib.hash(copy.get_params()) == joblib.hash(model.get_params())
    assert repr(copy)


@pytest.mark.parametrize("name", list(CASES))
def test_fit_returns_self_leaves_parameters_alone_and_adds_only_underscored_attributes(name):
    model, args, kwargs, _ = CASES[name]
    model = clone(model)
    params, before = joblib.hash(model.get_params()), set(vars(model))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        assert model.fit(*args, **kwargs) is model
    assert joblib.hash(model.get_params()) == params
    added = [k for k in set(vars(model)) - before if not k.startswith("_")]
    assert added and all(k.endswith("_") for k in added), sorted(added)


@pytest.mark.parametrize("name", list(CASES))
def test_warnings_are_model_warnings(name):
    model = fitted(name)
    assert isinstance(model.warnings_, list)
    assert all(isinstance(w, ModelWarning) and w.kind and w.message for w in model.warnings_)


@pytest.mark.parametrize("name", list(WARNING_CASES))
def test_a_warning_found_while_fitting_is_kept_and_emitted_once(name):
    model, args, kind = WARNING_CASES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = clone(model).fit(*args)
    emitted = [str(w.message) for w in caught if issubclass(w.category, WorkbenchWarning)]
    kept = [w.message for w in model.warnings_]
    assert kind in [w.kind for w in model.warnings_]
    assert emitted and len(emitted) == len(set(emitted)) and set(emitted) <= set(kept), (emitted, kept)


@pytest.mark.parametrize("name", list(CASES))
def test_predicting_leaves_the_model_as_fitted_and_a_refitted_clone_predicts_the_same(name):
    model, args, kwargs, predict_args = CASES[name]
    model = fitted(name)
    state = public_fitted_state(model)
    first = model.predict(*predict_args)
    assert public_fitted_state(model) == state
    assert same(first, model.predict(*predict_args))
    assert same(first, fitted(name).predict(*predict_args))


@pytest.mark.parametrize("name", list(CASES))
def test_results_are_arrays_frames_or_frozen_dataclasses(name):
    result = fitted(name).predict(*CASES[name][3])
    if dataclasses.is_dataclass(result):
        assert type(result).__dataclass_params__.frozen
    else:
        assert isinstance(result, (np.ndarray, pd.DataFrame)), type(result)
