"""Fuzz every model's ``fit`` (and ``predict``): whatever the input, only the project's own
errors (:class:`~workbench.errors.WorkbenchError` subclasses) escape, what is returned is
finite (or NaN where a model documents that it refuses to predict), and nothing hangs.

Models covered (every ``fit`` in :mod:`workbench.models`):

* n -> t scaling models: ``MODELS`` (``amdahl``, ``usl``, ``downey-lm``, ``adept``, ``pmnf``)
  and :class:`ScalingPredictor`; the estimators under them: :class:`AmdahlModel`,
  :class:`USLModel`, :class:`DowneyLM` (``units="fit"`` and ``"paper"``),
  :func:`lm_from_random_starts`, :class:`PMNF` (cross-validated or not, cost or runtime),
  :class:`Adept` (fit and paper units, cross-size with ``base=``), Downey's model itself
  (:mod:`workbench.models.downey`, parameters and allocations);
* the interval calibration's :func:`fit_error_model`;
* FiM: :class:`HardwareRegression`, :class:`FiMCal` (paper and barrier models),
  :func:`calibrate_alpha`, :class:`RBASP`, the Markov chain (:func:`base_probabilities`,
  :func:`transition_matrix`, :func:`calculation_time`, :func:`barrier_stage_time`),
  FiM-Com's service-time fits (:func:`fit_station`, every family) and :func:`rates_from_fits`;
* communication: :class:`CommRegression` and :func:`robust_fit`, :class:`ExchangeModel`,
  :class:`PpnFactorModel`, :class:`CommGBM`;
* fractal extrapolation: :func:`fit_phase`, :func:`extrapolate_share`,
  :class:`FractalExtrapolator`.

Inputs: NaN, +-inf, 0, negative values, 1e-308, 5e-324, 1e308, 1.8e308, duplicated values and
column names, one point, empty inputs, strings and other junk, wrong shapes, and huge counts
(the explicit tests at the end, which also bound the time to answer).  Hypothesis runs
derandomised, so the examples are the same on every run.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_inputs import F, comm_sweep, exchange_frame, fim_runs, gbm_frame, profile

from workbench.errors import WorkbenchError
from workbench.models import downey
from workbench.models.adept import Adept
from workbench.models.baselines import AmdahlModel, DowneyLM, USLModel, lm_from_random_starts
from workbench.models.comm.gbm import CommGBM
from workbench.models.comm.regression import CommRegression, robust_fit
from workbench.models.comm.semi_empirical import ExchangeModel, PpnFactorModel
from workbench.models.fim import RBASP, FiMCal, HardwareRegression, calculation_time, calibrate_alpha
from workbench.models.fim.markov import barrier_stage_time, base_probabilities, transition_matrix
from workbench.models.fim.service_fit import FAMILIES, fit_station, rates_from_fits
from workbench.models.fractal import FractalExtrapolator, extrapolate_share, fit_phase
from workbench.models.pmnf import PMNF
from workbench.models.scaling import MODELS, ScalingPredictor
from workbench.models.scaling.calibration import FEATURES, fit_error_model

pytestmark = pytest.mark.timeout(60)


#: WORKBENCH_FUZZ_SCALE=20 runs 20 times the examples, WORKBENCH_FUZZ_RANDOM=1 new ones on every
#: run (a longer hunt than CI's; the timeout marker still applies under pytest)
_SCALE = float(os.environ.get("WORKBENCH_FUZZ_SCALE", "1"))
_RANDOM = os.environ.get("WORKBENCH_FUZZ_RANDOM", "") not in ("", "0")


def fuzz(examples: int):
    return settings(max_examples=max(1, int(examples * _SCALE)), derandomize=not _RANDOM, deadline=None,
                    database=None, suppress_health_check=list(HealthCheck))


# ----------------------------------------------------------------------------- values

SPECIAL = (np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, -1e308, 1e-308, 5e-324, 2.2250738585072014e-308, 1e308,
           1.7976931348623157e308, 0.5, 1.0, 2.0, 3.0, 1e-3, 1e6, 1e15, 2.0**53 + 2)
JUNK = ("x", "", "1.5", " 2 ", "nan", "1e400", None, True, False, b"1", [1.0, 2.0], {"a": 1}, 1 + 2j)

number = st.one_of(st.sampled_from(SPECIAL), st.floats(allow_nan=True, allow_infinity=True),
                   st.integers(-5, 10**6).map(float), st.floats(1.0, 1e4))
cell = st.one_of(number, number, number, st.sampled_from(JUNK))


@st.composite
def vectors(draw, make, min_size=0, max_size=8):
    """Mostly ``make(rng, k)`` (valid data of length k), sometimes with one value replaced by a
    special value or junk, or a list of arbitrary cells."""
    how = draw(st.sampled_from(["valid", "valid", "corrupt", "cells"]))
    if how == "cells":
        return draw(st.lists(cell, min_size=min_size, max_size=max_size))
    k = draw(st.integers(max(min_size, 2), max(max_size, 2)))
    values = list(make(np.random.default_rng(draw(st.integers(0, 2**16))), k))
    if how == "corrupt":
        values[draw(st.integers(0, k - 1))] = draw(cell)
    return values


def attempt(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, or None when it raises a WorkbenchError (an accepted answer,
    which must say something); any other exception fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except WorkbenchError as exc:
            assert str(exc).strip(), f"{type(exc).__name__} without a message"
            return None


def finite_positive(values, allow_nan=False):
    v = np.asarray(values, float)
    ok = np.isfinite(v) & (v > 0)
    if allow_nan:
        ok |= np.isnan(v)
    assert ok.all(), f"non-finite or non-positive output: {v[~ok][:5]}"


# ------------------------------------------------------------------- n -> t curves

CURVES = {
    "amdahl": lambda n: 0.1 + 0.9 / n,
    "flat": lambda n: np.ones_like(n),
    "growing": lambda n: 1.0 + np.log2(n),
    "retrograde": lambda n: 1.0 / n + 0.01 * n,
    "superlinear": lambda n: n**-1.5,
}


@st.composite
def runs(draw, max_points: int = 9):
    """``(n, t)`` runs: mostly curves that pass validation (so the fits themselves are
    exercised) at extreme scales and layouts, sometimes with one bad value, junk or a bad shape."""
    clean = draw(st.sampled_from([True, True, False]))  # most pass validation, unless the data are extreme
    k = draw(st.integers(3 if clean else 0, max(3, max_points)))
    layout = draw(st.sampled_from(["pow2", "pow2", "consecutive", "random", "repeats", "huge-n", "close-n", "one-n"]))
    if layout == "pow2":
        n = 2.0 ** np.arange(k)
    elif layout == "consecutive":
        n = np.arange(1.0, k + 1)
    elif layout == "random":
        n = np.array(draw(st.lists(st.floats(1.0, 1e6), min_size=k, max_size=k)), float)
    elif layout == "repeats":  # every allocation run twice (or three times)
        n = np.repeat(2.0 ** np.arange(k), draw(st.integers(2, 3)))
    elif layout == "huge-n":
        n = np.geomspace(1e150, 1e308, k) if k else np.zeros(0)
    elif layout == "close-n":
        n = 1.0 + 1e-13 * np.arange(k)
    else:
        n = np.full(k, 8.0)
    with np.errstate(all="ignore"):
        if draw(st.booleans()):
            t = CURVES[draw(st.sampled_from(sorted(CURVES)))](n)
            t = t * np.exp(draw(st.sampled_from([0.0, 0.02, 0.3])) * np.sin(7.0 * np.arange(n.size)))
        else:
            t = np.exp(np.array(draw(st.lists(st.floats(-5, 5), min_size=n.size, max_size=n.size)), float))
        scale = draw(st.sampled_from(["1", "1e-308", "1e-300", "1e300", "1e308", "spread", "5e-324"]))
        if scale == "1e308":
            t = t / np.max(t, initial=1.0) * 1e308
        elif scale == "spread":  # runtimes hundreds of orders of magnitude apart
            t = t * 10.0 ** np.linspace(-300, 300, n.size)
        else:
            t = t * float(scale)
    n_out, t_out = list(n), list(t)
    if clean:
        return n_out, t_out
    if k and draw(st.booleans()):  # one bad value somewhere
        target = n_out if draw(st.booleans()) else t_out
        target[draw(st.integers(0, len(target) - 1))] = draw(cell)
    form = draw(st.sampled_from(["list"] * 3 + ["mismatch", "2d", "scalar", "strings"]))
    if form == "mismatch":
        t_out = t_out + [1.0]
    elif form == "2d":
        n_out = [n_out, n_out]
    elif form == "scalar":
        n_out, t_out = (n_out[0], t_out[0]) if k else (4.0, 1.0)
    elif form == "strings":
        t_out = [f"{v} s" for v in t_out]
    return n_out, t_out


def targets_for(n):
    try:
        arr = np.asarray(n, float).reshape(-1)
        top = float(np.nanmax(arr[np.isfinite(arr)])) if np.isfinite(arr).any() else 1.0
    except (TypeError, ValueError):
        top = 1.0
    return [1.0, 3.0, max(top, 1.0), min(2 * max(top, 1.0), 1e308)]


def check_scaling_model(model, n, t):
    fitted = attempt(model.fit, n, t)
    if fitted is None:
        return
    tg = targets_for(n)
    pred = attempt(model.predict, tg)
    if pred is None:  # refused (e.g. a runtime beyond the float range): said so in words
        return
    kinds = {w.kind for w in model.warnings_}
    refusals = {"declining-or-anomalous-last-point", "cost-reaches-zero"}
    finite_positive(pred, allow_nan=bool(kinds & refusals))
    interval = attempt(model.predict_interval, tg, 0.8)
    if interval is not None:
        lo, hi = (np.asarray(v, float) for v in interval)
        ok = ~np.isnan(pred)
        assert np.all(np.isfinite(lo[ok]) & np.isfinite(hi[ok]) & (lo[ok] <= hi[ok]))


@pytest.mark.parametrize("name", ["amdahl", "usl", "downey-lm", "pmnf"])
@fuzz(200)
@given(data=runs())
def test_scaling_models(name, data):
    check_scaling_model(MODELS[name](), *data)


@fuzz(200)
@given(data=runs(max_points=7))
def test_scaling_adept(data):
    check_scaling_model(MODELS["adept"](), *data)


@fuzz(100)
@given(data=runs(max_points=6))
def test_scaling_predictor(data):
    n, t = data
    model = ScalingPredictor()
    if attempt(model.fit, n, t) is None:
        return
    tg = targets_for(n)
    frame = attempt(model.predict_frame, tg, 0.8)
    if frame is not None:  # NaN only in rows that say no model predicts there
        refused = frame["warnings"].map(lambda kinds: "no-model-fits" in kinds).to_numpy()
        finite_positive(frame["prediction"][~refused])
        assert np.all(np.isnan(frame["prediction"][refused]))
        bounds = frame[["lower", "upper"]].to_numpy(float)[~refused]
        assert np.all(np.isfinite(bounds) & (bounds[:, :1] <= bounds[:, 1:]))
        np.testing.assert_array_equal(attempt(model.predict, tg), frame["prediction"].to_numpy())


@pytest.mark.parametrize("make", [AmdahlModel, USLModel, DowneyLM, lambda: DowneyLM(units="paper"),
                                  PMNF, lambda: PMNF(crossvalidation=False, strong_scaling=False)],
                         ids=["amdahl", "usl", "downey-lm", "downey-lm-paper", "pmnf", "pmnf-plain"])
@fuzz(150)
@given(data=runs())
def test_baseline_estimators(make, data):
    model = make()
    if attempt(model.fit, *data) is None:
        return
    pred = attempt(model.predict, targets_for(data[0]))
    if pred is not None:
        assert not np.any(np.isinf(np.asarray(pred, float))), pred
        assert not np.any(np.isnan(np.asarray(pred, float))), pred


@fuzz(120)
@given(data=runs(max_points=6), units=st.sampled_from(["fit", "paper"]))
def test_adept(data, units):
    model = Adept(units=units, pass1_size=400, pass2_size=40)
    if attempt(model.fit, *data) is None:
        return
    pred = attempt(model.predict, targets_for(data[0]))
    if pred is not None:
        # NaN only past an ambiguous (declining) last point, which a warning names
        kinds = attempt(lambda: {w.kind for w in model.warnings_}) or set()
        ambiguous = "declining-or-anomalous-last-point" in kinds
        finite_positive(pred, allow_nan=ambiguous)
    assert attempt(lambda: model.fits_) is not None


@fuzz(80)
@given(target=runs(max_points=4), base=runs(max_points=6))
def test_adept_cross_size(target, base):
    model = Adept(pass1_size=400, pass2_size=40)
    if attempt(model.fit, *target, base=base) is not None:
        pred = attempt(model.predict, targets_for(target[0]))
        if pred is not None:
            finite_positive(pred, allow_nan=True)


@fuzz(30)
@given(data=runs(max_points=6), starts=st.sampled_from([1, 2, 0, -1, 2.5, "3"]))
def test_lm_from_random_starts(data, starts):
    frame = attempt(lm_from_random_starts, *data, n_starts=starts, max_nfev=200)
    if frame is not None:
        assert np.all(np.isfinite(frame[["A", "sigma", "scale", "cost"]].to_numpy(float)))


@fuzz(300)
@given(n=st.lists(number, min_size=0, max_size=5), A=number, sigma=number)
def test_downey_model(n, A, sigma):
    speedup = attempt(downey.speedup, n, A, sigma)
    if speedup is not None:  # 0 < S(n) <= min(n, A), even where n A (sigma + 1) overflows
        assert np.all(np.isfinite(speedup) & (speedup > 0)), speedup
        assert np.all(speedup <= np.minimum(np.asarray(n, float), A) * (1 + 1e-9)), speedup
    runtime = attempt(downey.runtime, n, A, sigma)
    if runtime is not None:  # model units, T(1) = A (1 + sigma): +inf only past the float range
        assert np.all(runtime > 0), runtime
    for fn in (downey.serial_runtime, downey.max_useful_allocation):
        attempt(fn, A, sigma)


@fuzz(60)
@given(size=st.integers(0, 60), bad=st.sampled_from([None, "nan", "inf", "huge", "string", "short-features"]))
def test_fit_error_model(size, bad):
    rng = np.random.default_rng(size)
    errors = rng.normal(0, 0.2, size)
    features = {"distance": rng.uniform(0, 3, size), "n_points": rng.integers(3, 9, size).astype(float),
                "fit_error": rng.uniform(0, 0.2, size)}
    if bad == "nan" and size:
        errors[0] = np.nan
    elif bad == "inf" and size:
        features["distance"][0] = np.inf
    elif bad == "huge" and size:
        errors[0] = 1e308
    elif bad == "string":
        errors = ["x"] * size
    elif bad == "short-features":
        features["distance"] = features["distance"][:-1]
    model = attempt(fit_error_model, errors, features, FEATURES)
    if model is not None:
        assert np.all(np.isfinite(model.location)) and np.all(np.isfinite(model.scale))
        assert np.all(np.isfinite(model.quantiles))


# ------------------------------------------------------------------------ frames


def mutate(draw, frame: pd.DataFrame) -> pd.DataFrame:
    """One of: unchanged, empty, one row, a column dropped, duplicated or turned into text,
    a cell replaced by a special value or junk, a column scaled to the float extremes."""
    frame = frame.copy()
    how = draw(st.sampled_from(["none", "none", "empty", "one-row", "drop", "duplicate", "text", "cell", "cell",
                                "cell", "scale", "bools", "category"]))
    columns = list(frame.columns)
    column = draw(st.sampled_from(columns))
    if how == "empty":
        return frame.iloc[0:0]
    if how == "one-row":
        return frame.iloc[:1]
    if how == "drop":
        return frame.drop(columns=column)
    if how == "duplicate":
        return pd.concat([frame, frame[[column]]], axis=1)
    if how == "text":
        frame[column] = frame[column].astype(str)
        return frame
    if how == "bools":
        frame[column] = frame[column].astype(str) == frame[column].astype(str).iloc[0]
        return frame
    if how == "category":
        frame[column] = frame[column].astype("category")
        return frame
    if how == "scale" and pd.api.types.is_numeric_dtype(frame[column]):
        frame[column] = frame[column] * draw(st.sampled_from([1e-308, 1e308, -1.0, 0.0, 1e300]))
        return frame
    if how == "cell" and len(frame):
        values = frame[column].astype(object).tolist()
        values[draw(st.integers(0, len(frame) - 1))] = draw(cell)
        frame[column] = pd.Series(values, index=frame.index, dtype=object)
    return frame


@fuzz(60)
@given(data=st.data(), model=st.sampled_from(["paper", "barrier"]))
def test_fim_calibration(data, model):
    frame = mutate(data.draw, fim_runs())
    est = FiMCal(model=model, max_iter=300, epsilon=1e-3)
    if attempt(est.fit, frame) is not None:
        pred = attempt(est.predict, frame)
        if pred is not None:
            v = np.asarray(pred, float)
            assert np.all(np.isnan(v) | (np.isfinite(v) & (v > 0)))  # NaN: invalid hardware (documented)
    reg = HardwareRegression()
    if attempt(reg.fit, frame[frame["processes"] == 1] if "processes" in frame and not isinstance(
            frame["processes"], pd.DataFrame) else frame) is not None:
        assert np.all(np.isfinite(reg.coef_.to_numpy()))
    rb = RBASP(g=data.draw(st.sampled_from(["linear", "quadratic"])))
    if attempt(rb.fit, frame) is not None:
        pred = attempt(rb.predict, frame)
        if pred is not None:
            assert np.all(np.isfinite(pred))


@fuzz(60)
@given(data=st.data(), model=st.sampled_from(["paper", "barrier"]))
def test_fim_calibrate_alpha(data, model):
    runs = fim_runs()
    hardware = runs[["cycles", "stall_cycles", "utilization"]].to_numpy().tolist()
    actual = runs["calc_time_s"].tolist()
    processes = runs["processes"].tolist()
    which = data.draw(st.sampled_from(["none", "hardware", "actual", "processes", "scale", "shape"]))
    if which == "hardware":
        hardware[data.draw(st.integers(0, len(hardware) - 1))][data.draw(st.integers(0, 2))] = data.draw(cell)
    elif which == "actual":
        actual[data.draw(st.integers(0, len(actual) - 1))] = data.draw(cell)
    elif which == "processes":
        processes[data.draw(st.integers(0, len(processes) - 1))] = data.draw(cell)
    elif which == "scale":
        factor = data.draw(st.sampled_from([1e-308, 1e308, 1e-300, 1e300]))
        actual = [a * factor for a in actual]
    elif which == "shape":
        hardware = hardware[: data.draw(st.integers(0, 3))]
    result = attempt(calibrate_alpha, hardware, processes, actual, F, model=model, max_iter=200, epsilon=1e-3)
    if result is not None:
        assert np.isfinite(result.alpha)


def maybe(valid):
    """``valid`` (a strategy) about three times in four, otherwise any cell."""
    return st.sampled_from([True, True, True, False]).flatmap(lambda ok: valid if ok else cell)


@fuzz(300)
@given(data=st.data())
def test_fim_markov(data):
    tc = data.draw(maybe(st.floats(2.0, 1e13)))
    sc = data.draw(maybe(st.floats(0.01, 0.99).map(lambda f: f * tc if isinstance(tc, float) else f)))
    u = data.draw(maybe(st.floats(0.0, 0.9)))
    t = data.draw(maybe(st.integers(1, 64).map(float)))
    probabilities = attempt(base_probabilities, tc, sc, u)
    p = probabilities.as_tuple() if probabilities is not None and data.draw(st.booleans()) else \
        tuple(data.draw(maybe(st.floats(0.0, 1.0))) for _ in range(4))
    m = attempt(transition_matrix, t, *p)
    if m is not None:
        assert np.all(np.isfinite(m))
    for fn, args in ((calculation_time, (t, tc, F)), (barrier_stage_time, (t, tc, sc, u, F))):
        out = attempt(fn, *args)
        if out is not None:
            assert np.all(np.isfinite(out))


@fuzz(200)
@given(samples=vectors(lambda rng, k: rng.exponential(1.0, k) * 10.0 ** rng.choice([0, -300, 300, -6]), 0, 40),
       family=st.sampled_from(sorted(FAMILIES) + ["nope"]),
       loads=st.one_of(st.none(), vectors(lambda rng, k: rng.integers(1, 9, k).astype(float), 0, 40)),
       bins=st.sampled_from([None, None, 0, 1, 3, -2, 2.5, "x"]))
def test_fim_service_fits(samples, family, loads, bins):
    if loads is not None and family == "log" and isinstance(samples, list):
        loads = (loads * len(samples))[: len(samples)] if loads else loads  # mostly paired
    fit = attempt(fit_station, samples, family, loads=loads, bins=bins)
    if fit is not None:
        assert all(np.isfinite(v) for v in fit.params.values()), fit.params
    ok = fit_station(np.linspace(1.0, 2.0, 20), "uniform_rate")
    fits = {"D": ok, "M": fit_station([1.0, 2.0, 3.0], "log", loads=[1, 2, 3]), "C": ok, "R": ok}
    if fit is not None:
        fits[family[:1].upper()] = fit
    attempt(rates_from_fits, fits)


@fuzz(100)
@given(data=st.data(), robust=st.sampled_from(["bisquare", "huber", "ols"]))
def test_comm_regression(data, robust):
    frame = mutate(data.draw, comm_sweep())
    model = CommRegression(robust=robust)
    if attempt(model.fit, frame) is not None:
        pred = attempt(model.predict, frame)
        if pred is not None:
            assert np.all(np.isfinite(pred))
    y = data.draw(st.sampled_from(["column", "array", "strings", "short", "nested"]))
    values = {"column": None, "array": np.ones(len(frame)), "strings": ["1"] * len(frame),
              "short": [1.0], "nested": [[1.0], [1.0, 2.0]]}[y]
    attempt(CommRegression().fit, frame, values)


@fuzz(150)
@given(data=st.data(), loss=st.sampled_from(["bisquare", "huber", "ols", "nope"]))
def test_comm_robust_fit(data, loss):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    rows = data.draw(st.sampled_from([True, True, False]).flatmap(
        lambda enough: st.integers(5, 30) if enough else st.integers(0, 4)))
    terms = data.draw(st.integers(1, 3))
    X = rng.normal(size=(rows, terms)) * data.draw(st.sampled_from([1.0, 1.0, 1e-300, 1e300, 1e10]))
    y = 3.0 + X @ rng.normal(size=terms) + rng.normal(size=rows) * data.draw(st.sampled_from([0.1, 0.0, 0.1, 1e300]))
    X, y = X.tolist(), y.tolist()
    how = data.draw(st.sampled_from(["none", "none", "none", "X", "y", "ragged", "constant"]))
    if how == "X" and rows:
        X[data.draw(st.integers(0, rows - 1))][0] = data.draw(cell)
    elif how == "y" and rows:
        y[data.draw(st.integers(0, rows - 1))] = data.draw(cell)
    elif how == "ragged" and rows:
        X[0] = X[0] + [1.0]
    elif how == "constant":
        X = [[1.0] * terms for _ in range(rows)]
    fit = attempt(robust_fit, X, y, loss)
    if fit is not None:
        assert np.isfinite(fit.intercept) and np.all(np.isfinite(fit.coef))


@fuzz(100)
@given(data=st.data(), base=st.sampled_from(["auto", "measured", "ratios", 6.1, 0.0, "x"]))
def test_comm_semi_empirical(data, base):
    frame = mutate(data.draw, exchange_frame())
    ratios = mutate(data.draw, exchange_frame().assign(
        communication_ratio=lambda f: f["avg_comm_time_us"] / (6.1 * f["processes_per_node"]))[
        ["message_size_bytes", "processes_per_node", "communication_ratio"]])
    model = ExchangeModel(base_us=base)
    if attempt(model.fit, frame, ratios) is not None:
        assert np.isfinite(model.base_us_) and model.base_us_ > 0, model.base_us_
        attempt(model.predict, [1, 2], [4096, 8192])
    ppn = PpnFactorModel()
    if attempt(ppn.fit, frame) is not None:
        attempt(ppn.predict, [1, 2], [4096, 8192])


@fuzz(30)
@given(data=st.data())
def test_comm_gbm(data):
    frame = mutate(data.draw, gbm_frame())
    if "comm_s" not in frame or isinstance(frame["comm_s"], pd.DataFrame):
        y = np.ones(len(frame))
    else:
        y = frame["comm_s"]
    X = frame.drop(columns=[c for c in ["comm_s"] if c in frame])
    model = CommGBM(n_iter=1, cv=2, n_estimators=(5, 10), max_depth=(1, 2))
    if attempt(model.fit, X, y, progress=False) is not None:
        pred = attempt(model.predict, X)
        if pred is not None:
            assert np.all(np.isfinite(pred))


@fuzz(120)
@given(data=st.data(), target=cell)
def test_fractal(data, target):
    frame = mutate(data.draw, profile())
    model = FractalExtrapolator()
    if attempt(model.fit, frame) is not None:
        pred = attempt(model.predict, target)
        if pred is not None:
            assert np.isfinite(pred.total) and pred.total >= 0  # 0: underflow far below the sizes


@fuzz(200)
@given(sizes=vectors(lambda rng, k: np.cumsum(rng.uniform(1, 100, k)) * 10.0 ** rng.choice([0, -300, 300]), 0, 7),
       values=vectors(lambda rng, k: rng.uniform(0, 1, k) * 10.0 ** rng.choice([0, 0, -300, 300]), 0, 7),
       target=maybe(st.floats(1.0, 1e6)))
def test_fractal_phase_and_share(sizes, values, target):
    fit = attempt(fit_phase, sizes, values, target)
    if fit is not None:
        assert np.isfinite(fit.m) and np.isfinite(fit.b)
    share = attempt(extrapolate_share, sizes, values, target)
    if share is not None:
        assert np.isfinite(share.share)


# -------------------------------------------------------------- huge counts, time


def timed(fn, *args, **kwargs):
    start = time.process_time()
    result = attempt(fn, *args, **kwargs)
    return result, time.process_time() - start


def curve(n):
    return 100.0 * (0.05 + 0.95 / n) * (1 + 0.001 * np.sin(n))


def test_many_runs_at_few_allocations_are_aggregated():
    # 100,000 runs at 5 allocations: every n -> t model aggregates the repeats
    n = np.resize(2.0 ** np.arange(5), 100_000)
    t = curve(n)
    for name, model in [*((m, MODELS[m]()) for m in MODELS), ("predictor", ScalingPredictor())]:
        fitted, seconds = timed(model.fit, n, t)
        assert fitted is not None, name
        finite_positive(model.predict([32.0]))
        assert seconds < 20, (name, seconds)


def test_adept_refuses_more_allocations_than_its_limit_at_once():
    n = np.arange(1.0, 100_001)
    for model in (Adept(), MODELS["adept"]()):
        fitted, seconds = timed(model.fit, n, curve(n))
        assert fitted is None and seconds < 2
    with pytest.raises(WorkbenchError, match=r"at most 32 distinct processor counts, got 33"):
        Adept().fit(np.arange(1.0, 34), curve(np.arange(1.0, 34)))
    model = Adept().fit([1, 2, 4, 8], [10.0, 6, 4, 3])
    with pytest.raises(WorkbenchError, match=r"at most 500 distinct targets per call"):
        model.predict(np.arange(1.0, 502))


@pytest.mark.parametrize("noise", [0.001, 0.3])
def test_adept_at_its_limit_fits_in_bounded_time_and_memory(noise):
    # 32 allocations (the limit), smooth or noisy (the delta search then takes many rounds):
    # measured ~1-2 s of CPU and a 100-150 MiB tracemalloc peak on a 2-core machine
    import tracemalloc

    n = np.arange(1.0, Adept.MAX_ALLOCATIONS + 1)
    t = curve(n) * np.exp(noise * np.sin(3.7 * n))
    tracemalloc.start()
    try:
        start = time.process_time()
        model = Adept().fit(n, t)
        finite_positive(model.predict(np.r_[n[:-1], 2 * n.max()]), allow_nan=True)
        assert model.warnings_ is not None
        seconds = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seconds < 30 and peak < 400 * 2**20, (seconds, peak / 2**20)


def test_many_distinct_allocations():
    # models without a limit fit 100,000 distinct allocations; PMNF's leave-one-out and the
    # predictor's ADEPT member refuse with a message, the rest goes on
    n = np.arange(1.0, 100_001)
    t = curve(n)
    for name in ("amdahl", "usl", "downey-lm"):
        model, seconds = timed(MODELS[name]().fit, n, t)
        assert model is not None and seconds < 20, (name, seconds)
    assert attempt(PMNF().fit, n, t) is None
    assert attempt(PMNF(crossvalidation=False).fit, n, t) is not None
    predictor, seconds = timed(ScalingPredictor().fit, n[:3000], t[:3000])
    assert predictor is not None and "adept" in predictor.failures_ and "pmnf" in predictor.failures_
    assert seconds < 30


def test_big_frames():
    runs = pd.concat([fim_runs()] * 2000, ignore_index=True)  # 36,000 runs
    model, seconds = timed(FiMCal(max_iter=2000, epsilon=1e-3).fit, runs)
    assert model is not None and seconds < 30
    sweep = pd.concat([comm_sweep()] * 300, ignore_index=True)  # 36,000 measurements
    fitted, seconds = timed(CommRegression().fit, sweep)
    assert fitted is not None and seconds < 30
    samples = np.random.default_rng(0).uniform(1, 2, 1_000_000)
    for family in ("uniform_rate", "exponential", "shifted_exponential"):
        assert attempt(fit_station, samples, family) is not None
