"""Cross-problem-size prediction (thesis 3.12-3.15): guiding points from a base size."""

import numpy as np
import pytest

from workbench.models import downey
from workbench.models.adept import Adept

KW = dict(pass1_size=1000, pass2_size=100)
SQUARES = np.array([16, 25, 36, 49, 64, 81, 100.0])


def test_guiding_points_by_hand():
    # base: n = 4, 8, 16, 32 with t = 100, 55, 32, 20; target: n = 8, 64 with t = 170, 30.
    # n0 = smallest n observed on both sizes = 8 (not the target's smallest n);
    # R = T_target(8) / T_base(8) = 170/55 = 3.0909...;
    # guiding points for base n not observed on the target: 4 -> 309.09, 16 -> 98.91, 32 -> 61.82
    m = Adept(**KW).fit([8, 64], [170.0, 30.0], base=([4, 8, 16, 32], [100.0, 55.0, 32.0, 20.0]))
    R = 170 / 55
    assert m.ratio_ == pytest.approx(R)
    obs = m.observations_
    assert obs["n"].tolist() == [4, 8, 16, 32, 64]
    assert obs["kind"].tolist() == ["guiding", "observed", "guiding", "guiding", "observed"]
    np.testing.assert_allclose(obs["t"], [100 * R, 170, 32 * R, 20 * R, 30])


def test_same_shape_at_another_scale_is_predicted_within_one_percent():
    # the target size is the base curve times 3.7 (e.g. 3.7x the work, same parallel profile)
    nb = np.array([4, 8, 16, 32, 64.0])
    tb = 10 * downey.runtime(nb, 60, 0.8)
    nt = np.array([4, 8.0])
    targets = np.array([16, 32, 64, 128.0])
    m = Adept(**KW).fit(nt, 37 * downey.runtime(nt, 60, 0.8), base=(nb, tb))
    assert m.ratio_ == pytest.approx(3.7)
    np.testing.assert_allclose(m.predict(targets), 37 * downey.runtime(targets, 60, 0.8), rtol=0.01)
    assert "sizes-differ" not in [w.kind for w in m.warnings_]


def test_a_fluctuating_ratio_means_the_sizes_differ():
    nb = np.array([4, 8, 16, 32, 64.0])
    tb = 10 * downey.runtime(nb, 60, 0.8)
    # target/base ratio 3.7 at n = 4 but 6.0 at n = 8: 62 % apart (> 25 % tolerance)
    tt = np.array([3.7 * tb[0], 6.0 * tb[1]])
    m = Adept(**KW).fit([4, 8], tt, base=(nb, tb))
    w = [w for w in m.warnings_ if w.kind == "sizes-differ"]
    assert len(w) == 1
    np.testing.assert_allclose(w[0].details["ratio"], [3.7, 6.0])
    # within the tolerance: no warning
    tt_ok = np.array([3.7 * tb[0], 4.0 * tb[1]])
    assert "sizes-differ" not in [w.kind for w in Adept(**KW).fit([4, 8], tt_ok, base=(nb, tb)).warnings_]


def test_a_strong_base_anomaly_guides_only_its_own_allocation():
    # base size: n = 49 is 50 % too slow -> D = min(10, (R_3 - R_2)/epsilon) = 9.09 >= gamma = 5
    tb = 10 * downey.runtime(SQUARES, 60, 0.5)
    tb[3] *= 1.5
    nt = np.array([16, 25.0])
    tt = 30 * downey.runtime(nt, 60, 0.5)
    m = Adept(**KW).fit(nt, tt, base=(SQUARES, tb))
    D = m.anomalies_.anomalies.set_index("n")["D"]
    assert D[49.0] >= 5
    obs = m.observations_.set_index("n")
    assert obs.loc[49.0, "kind"] == "guiding" and obs.loc[49.0, "only_for_target"] == 49.0
    assert obs.drop(index=49.0)["only_for_target"].isna().all()
    fits = m.explain([36.0, 49.0, 64.0])
    assert fits["n_used"].tolist() == [6, 7, 6]  # 49's guiding point only for the target 49
    # and the other targets are predicted as if the anomaly were not there
    np.testing.assert_allclose(m.predict([36.0, 64.0]), 30 * downey.runtime(np.array([36, 64.0]), 60, 0.5), rtol=0.01)


def test_a_mild_base_anomaly_guides_with_reduced_weight():
    # 12 % too slow: D = 2.02 < gamma -> a guiding point for every target, weight (theta - D)/theta
    tb = 10 * downey.runtime(SQUARES, 60, 0.5)
    tb[3] *= 1.12
    m = Adept(**KW).fit([16, 25.0], 30 * downey.runtime(np.array([16, 25.0]), 60, 0.5), base=(SQUARES, tb))
    D = float(m.anomalies_.anomalies.set_index("n").loc[49.0, "D"])
    assert 0 < D < 5
    obs = m.observations_.set_index("n")
    assert np.isnan(obs.loc[49.0, "only_for_target"])
    assert obs.loc[49.0, "weight_factor"] == pytest.approx((5 - D) / 5)
    assert "anomaly" in [w.kind for w in m.warnings_]
