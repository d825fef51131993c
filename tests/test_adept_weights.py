"""Per-target weights (thesis 3.5.2) and repeated runs (outliers dropped, the rest averaged)."""

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ModelWarning
from workbench.models import downey
from workbench.models.adept import Adept, aggregate_repeats, target_weights

KW = dict(pass1_size=500, pass2_size=60)


def test_target_weights_by_hand():
    # W_i = q max_j |n* - n_j| - |n* - n_i|, n = (2, 4, 8), q = 2
    # n* = 16: distances (14, 12, 8), max 14 -> W = (28 - 14, 28 - 12, 28 - 8) = (14, 16, 20)
    # n* = 4:  distances (2, 0, 4),  max 4  -> W = (8 - 2, 8 - 0, 8 - 4)    = (6, 8, 4)
    W = target_weights([2, 4, 8], [16, 4], 2.0)
    np.testing.assert_array_equal(W, [[14, 16, 20], [6, 8, 4]])


def test_q_one_gives_the_farthest_point_zero_weight():
    W = target_weights([2, 4, 8, 32], [16, 2, 40], 1.0)
    # n* = 16: distances (14, 12, 8, 16) -> farthest is n = 32
    np.testing.assert_array_equal(W[0], [2, 4, 8, 0])
    far = np.argmax(np.abs(np.array([16, 2, 40])[:, None] - np.array([2, 4, 8, 32])), axis=1)
    assert np.all(W[np.arange(3), far] == 0)
    assert np.all(W >= 0)


def test_large_q_gives_nearly_uniform_relative_weights():
    n = np.array([2, 4, 8, 16, 32.0])
    for q in (1e3, 1e6):
        W = target_weights(n, [64.0, 3.0], q)
        rel = W / W.max(axis=1, keepdims=True)
        np.testing.assert_allclose(rel, 1.0, atol=2.0 / q)
    # and the closest observation always weighs most (for any q >= 1)
    W = target_weights(n, [5.0], 2.0)
    assert np.argmax(W[0]) == 1  # n = 4 is closest to 5


def test_aggregate_repeats_averages_and_drops_an_obvious_outlier():
    n = [4, 4, 4, 8, 8, 16, 16, 16]
    t = [10.0, 10.2, 30.0, 6.0, 12.0, 4.0, 4.1, 3.9]
    obs, dropped = aggregate_repeats(n, t)
    # n = 4: median 10.2; |30 - 10.2| = 19.8 > 25 % of it and > 3 x 1.4826 x MAD (MAD = 0.2) -> dropped
    # n = 8: two runs are never judged (no majority), averaged: 9
    # n = 16: all within a few percent: averaged 4.0
    assert obs["n"].tolist() == [4, 8, 16]
    assert obs["t"].tolist() == pytest.approx([10.1, 9.0, 4.0])
    assert obs["runs"].tolist() == [2, 2, 3]
    assert obs["dropped"].tolist() == [1, 0, 0]
    assert dropped.to_dict("list") == {"n": [4], "t": [30.0]}


def test_aggregate_repeats_keeps_a_moderate_spread():
    # 20 % spread in three runs is not an "obvious" outlier (needs > 25 % of the median)
    obs, dropped = aggregate_repeats([2, 2, 2], [10.0, 10.5, 12.0])
    assert dropped.empty and obs["t"].tolist() == pytest.approx([32.5 / 3])


def test_fit_reports_dropped_repeats_and_uses_the_averages():
    n1 = np.array([2, 4, 8, 16, 32.0])
    t1 = 50 * downey.runtime(n1, 20, 0.5)
    # three runs at n = 8 with one obvious outlier, two identical runs elsewhere
    n = np.concatenate([n1, [8, 8, 2, 32]])
    t = np.concatenate([t1, [t1[2], 3 * t1[2], t1[0], t1[4]]])
    m = Adept(**KW).fit(n, t)
    kinds = [w.kind for w in m.warnings_]
    assert "dropped-repeat" in kinds
    w = next(w for w in m.warnings_ if w.kind == "dropped-repeat")
    assert isinstance(w, ModelWarning) and "n=8" in w.message
    obs = m.observations_
    assert obs["n"].tolist() == n1.tolist()
    assert obs["runs"].tolist() == [2, 1, 2, 1, 2] and obs["dropped"].tolist() == [0, 0, 1, 0, 0]
    np.testing.assert_allclose(obs["t"], t1)
    # the repeats carry no extra weight: same fits as the single runs
    ref = Adept(**KW).fit(n1, t1)
    targets = [3.0, 64.0]
    pd.testing.assert_frame_equal(m.explain(targets), ref.explain(targets))
