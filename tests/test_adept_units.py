"""The unit problem (docs/decisions/adept.md): ADEPT results must not depend on the time unit.

units="fit" models t(n) = tau T(n; A, sigma) and profiles tau out, so seconds and
milliseconds must give the same A, sigma, envelope, verdicts and speedups, and runtimes
scaled by exactly 1000.  units="paper" is the thesis' literal reading (tau = 1 input
unit): there the same data in milliseconds is a *different* application -- the pitfall.

The curves carry a few percent of noise on purpose: on exact model data whose points all
lie on one piece, a whole family of instances fits with WSSRE ~ 1e-29, and which member
wins is decided by rounding noise (then A may differ in the 4th digit between units).
"""

import numpy as np
import pytest

from workbench.models import downey
from workbench.models.adept import Adept

KW = dict(pass1_size=800, pass2_size=80)
NOISE6 = np.array([1.03, 0.98, 1.02, 0.97, 1.01, 1.0])

N6 = np.array([2, 4, 8, 16, 32, 64.0])
SQ = np.array([16, 25, 36, 49, 64, 81, 100.0])
CURVES = {
    # low variance, saturating inside the range
    "low": (N6, 10 * downey.runtime(N6, 30, 0.6) * NOISE6),
    # high variance, saturating inside the range
    "high": (N6, 10 * downey.runtime(N6, 8, 3.0) * NOISE6),
    # an anomaly (n = 49 25 % too slow) -> verdicts and weights must match too
    "anomaly": (SQ, 7 * downey.runtime(SQ, 60, 0.5) * np.array([1, 1, 1, 1.25, 1, 1, 1])),
    # +-10 % alternating noise: anomaly, declining last point, superlinear, high-fit-error verdicts
    "noisy": (N6, 10 * downey.runtime(N6, 50, 0.5) * np.array([1.1, 0.9, 1.1, 0.9, 1.1, 0.9])),
}
TARGETS = np.array([1, 3, 12, 20, 50, 100, 128, 300.0])
FIT_COLUMNS = ["A", "sigma", "wssre", "max_rel_error", "speedup", "runner_up_A", "runner_up_sigma"]


@pytest.fixture(scope="module", params=list(CURVES))
def pair(request):
    n, t = CURVES[request.param]
    return Adept(**KW).fit(n, t), Adept(**KW).fit(n, t * 1000.0)


def test_seconds_and_milliseconds_give_the_same_instances(pair):
    s, ms = pair
    a, b = s.explain(TARGETS), ms.explain(TARGETS)
    for col in FIT_COLUMNS:
        np.testing.assert_allclose(b[col], a[col], rtol=1e-9, atol=1e-12, err_msg=col)
    np.testing.assert_allclose(b["prediction"], 1000 * a["prediction"], rtol=1e-9)
    np.testing.assert_allclose(ms.predict(TARGETS), 1000 * s.predict(TARGETS), rtol=1e-9)
    np.testing.assert_allclose(ms.predict_speedup(TARGETS), s.predict_speedup(TARGETS), rtol=1e-9)
    assert ms.delta_ == pytest.approx(s.delta_, rel=1e-12)


def test_seconds_and_milliseconds_give_the_same_verdicts(pair):
    s, ms = pair
    assert [w.kind for w in ms.warnings_] == [w.kind for w in s.warnings_]
    assert [w.targets for w in ms.warnings_] == [w.targets for w in s.warnings_]
    assert [w.suggested_n for w in ms.warnings_] == [w.suggested_n for w in s.warnings_]
    ra, rb = s.anomalies_, ms.anomalies_
    np.testing.assert_allclose(rb.r["R"], ra.r["R"], rtol=1e-12)
    assert rb.pattern == ra.pattern and rb.unresolved == ra.unresolved
    np.testing.assert_array_equal(rb.phase, ra.phase)
    np.testing.assert_allclose(rb.weight_factor, ra.weight_factor, rtol=1e-12)
    assert rb.anomalies["n"].tolist() == ra.anomalies["n"].tolist()


def test_seconds_and_milliseconds_give_the_same_envelope(pair):
    s, ms = pair
    cols = ["A_min", "A_max", "sigma_min", "sigma_max"]
    assert ms.envelope_.boxes.shape == s.envelope_.boxes.shape
    np.testing.assert_allclose(ms.envelope_.boxes[cols].to_numpy(), s.envelope_.boxes[cols].to_numpy(), rtol=1e-9)
    grid = np.geomspace(1, 512, 40)
    for x, y in zip(ms.envelope_.speedup_band(grid), s.envelope_.speedup_band(grid)):
        np.testing.assert_allclose(x, y, rtol=1e-9)
    for x, y in zip(ms.envelope_.runtime_band(grid), s.envelope_.runtime_band(grid)):
        np.testing.assert_allclose(x, 1000 * y, rtol=1e-9)


def test_anomaly_curve_verdicts_are_not_trivial():
    # guards the parametrisation above: the "anomaly" curve does produce an anomaly verdict
    n, t = CURVES["anomaly"]
    m = Adept(**KW).fit(n, t)
    assert m.anomalies_.anomalies["n"].tolist() == [49.0]


def test_paper_units_depend_on_the_time_unit():
    # The pitfall: in paper mode T(inf) = 1 input unit, so the same curve in milliseconds is
    # another application.  Here (true A = 30, sigma = 0.6 with 3 % noise) seconds give
    # A ~ 46-55, sigma ~ 4-5 (already off: a 1-second floor is forced on a curve that
    # flattens at ~10 s); milliseconds give A ~ 55-69 and sigma ~ 4000-5000 -- for sigma >> 1
    # the high-variance runtime is ~ sigma (1 + (A - 1)/n), so sigma absorbs the unit.
    n, t = CURVES["low"]
    s = Adept(units="paper", **KW).fit(n, t)
    ms = Adept(units="paper", **KW).fit(n, t * 1000)
    a, b = s.explain(TARGETS), ms.explain(TARGETS)
    assert np.all(np.abs(b["A"] / a["A"] - 1) > 0.1)
    assert np.all(b["sigma"] / a["sigma"] > 100)
    # fit mode recovers the curve's own A in either unit (A = 30 up to the noise)
    f = Adept(**KW).fit(n, t * 1000).explain(TARGETS)
    np.testing.assert_allclose(f["A"], 30, rtol=0.05)
    assert np.all(f["variance"] == "low")


# Found while writing the tests above: ways in which the time unit leaked into the results.
# The property asserted is weaker than the one above (flat valleys may legitimately tie): the
# same optimum WSSRE, the same verdicts, predictions equal to 1e-4.
ILL_CONDITIONED = [
    pytest.param(
        N6, 10 * downey.runtime(N6, 20, 3.0) * NOISE6, id="rising-high-variance"),
    # (formerly: the profiled objective is nearly flat towards large sigma and pass 1 chose
    # between exact ties by rounding noise; ties are now broken by candidate order)
    # the grid_argmin segment-edge bug made pass 2 depend on the rounding of the input:
    # WSSRE 1.45699 (s) vs 1.45697 (ms) at the target 20; both give 1.45687 since the fix
    pytest.param(N6, 100 / np.log2(N6 + 1), id="log-shape"),
    # a stepwise phase of 3 points is fitted exactly: obj = 0 in one unit and ~1e-31 in the other
    # used to flip the runner-up test (obj > 0); fixed by searching on t / max(t)
    pytest.param(np.array([4, 8, 16, 32, 64.0]), np.array([1000.0, 420, 260, 90, 85]), id="exact-phase"),
]


@pytest.mark.parametrize("n, t", ILL_CONDITIONED)
def test_ill_conditioned_curves_are_unit_invariant(n, t):
    s, ms = Adept(**KW).fit(n, t), Adept(**KW).fit(n, t * 1000)
    a, b = s.explain(TARGETS), ms.explain(TARGETS)
    np.testing.assert_allclose(b["wssre"], a["wssre"], rtol=1e-6, atol=1e-20)
    assert [w.kind for w in ms.warnings_] == [w.kind for w in s.warnings_]
    np.testing.assert_allclose(b["prediction"], 1000 * a["prediction"], rtol=1e-4)
