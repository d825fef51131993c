"""Tests of workbench.models.pmnf (Extra-P's single-parameter PMNF as an estimator)."""

from __future__ import annotations

import os
import timeit
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

from workbench.errors import NotFittedError, ValidationError, WorkbenchWarning
from workbench.models.pmnf import (
    EXTRAP_DEFAULT_HYPOTHESES,
    EXTRAP_NEGATIVE_HYPOTHESES,
    PMNF,
    PMNFHypothesis,
)


def term(n, i, j):
    n = np.asarray(n, dtype=float)
    return n**i * np.log2(n) ** j


# --------------------------------------------------------------------------------------------
# an independent, loop-based reference of Extra-P's selection (lstsq per fold, as Extra-P does)
# --------------------------------------------------------------------------------------------
def reference_scores(ns, y, pairs):
    """LOO SMAPE (percent) of every hypothesis and the constant's training SMAPE, with
    np.linalg.lstsq per fold and Extra-P's constant cleaning (|c0 / min y_train| < 0.0005)."""
    m = len(ns)
    c = y.mean()
    const = 100.0 / m * sum(2 * abs(c - yk) / (abs(yk) + abs(c)) for yk in y)
    scores = []
    for i, j in pairs:
        total = 0.0
        for k in range(m):
            keep = [q for q in range(m) if q != k]
            A = np.column_stack([np.ones(m - 1), term(ns[keep], i, j)])
            (c0, c1), *_ = np.linalg.lstsq(A, y[keep], rcond=None)
            if abs(c0 / y[keep].min()) < 0.0005:
                c0 = 0.0
            pred = c0 + c1 * term(ns[k], i, j)
            total += 2 * abs(pred - y[k]) / (abs(y[k]) + abs(pred))
        scores.append(100.0 * total / m)
    return const, np.array(scores)


# --------------------------------------------------------------------------------------------
# exact recovery
# --------------------------------------------------------------------------------------------
def test_exact_recovery_strong_scaling():
    n = np.array([1, 2, 4, 8, 16, 32], dtype=float)
    cost = 3.0 + 0.5 * n**1.5 * np.log2(n)
    model = PMNF().fit(n, cost / n)
    assert model.hypothesis_ == PMNFHypothesis(1.5, 1.0)
    assert model.hypothesis_.formula == "c0 + c1 * n^(3/2) * log2(n)"
    np.testing.assert_allclose(model.coefficients_, (3.0, 0.5), rtol=1e-9)
    assert model.smape_ < 1e-8
    assert model.cross_validated_
    assert model.n_max_ == 32.0
    # extrapolation follows Eq. (2): t = cost / n
    targets = np.array([64.0, 100.0, 1024.0])
    np.testing.assert_allclose(model.predict(targets), (3 + 0.5 * targets**1.5 * np.log2(targets)) / targets,
                               rtol=1e-9)
    assert model.equation_ == "t(n) = (3 + 0.5 * n^(3/2) * log2(n)) / n"


@pytest.mark.parametrize("i, j, c0, c1", [(0.5, 2.0, 2.0, 0.1), (0.0, 1.0, 7.0, 1.5), (3.0, 0.0, 0.2, 4.0)])
def test_exact_recovery_weak_scaling(i, j, c0, c1):
    n = np.array([2, 4, 8, 16, 64], dtype=float)
    model = PMNF(strong_scaling=False).fit(n, c0 + c1 * term(n, i, j))
    assert (model.hypothesis_.i, model.hypothesis_.j) == (i, j)
    np.testing.assert_allclose(model.coefficients_, (c0, c1), rtol=1e-8)
    np.testing.assert_allclose(model.predict(128.0), c0 + c1 * term(128.0, i, j), rtol=1e-8)


def test_perfect_strong_scaling_gives_the_constant_cost_model():
    n = np.array([1, 2, 4, 8], dtype=float)
    model = PMNF().fit(n, 100.0 / n)  # cost t * n = 100 exactly
    assert model.hypothesis_.is_constant and model.hypothesis_.formula == "c0"
    assert model.coefficients_ == (100.0, 0.0)
    np.testing.assert_allclose(model.predict([16, 3]), [100 / 16, 100 / 3], rtol=1e-12)


# --------------------------------------------------------------------------------------------
# LOO SMAPE
# --------------------------------------------------------------------------------------------
def test_loo_smape_by_hand():
    # n = 1, 2, 4 with t = 10, 6, 4.5  ->  cost y = 10, 12, 18.
    # Hypothesis c0 + c1 * n, leave-one-out:
    #   without n=1: line through (2,12), (4,18): c0 = 6, c1 = 3, predicts 9 at n=1    -> 2*1/19
    #   without n=2: line through (1,10), (4,18): c0 = 22/3, c1 = 8/3, predicts 38/3  -> 2*(2/3)/(12+38/3) = 2/37
    #   without n=4: line through (1,10), (2,12): c0 = 8, c1 = 2, predicts 16 at n=4   -> 2*2/34 = 2/17
    # (no constant is cleaned: |c0| / min(y_train) >= 0.5 >> 0.0005)
    expected = 100.0 / 3.0 * (2 / 19 + 2 / 37 + 2 / 17)
    model = PMNF().fit([1, 2, 4], [10, 6, 4.5])
    table = model.hypotheses_
    row = table[(table.i == 1.0) & (table.j == 0.0)]
    assert len(row) == 1
    assert row.smape.iloc[0] == pytest.approx(expected, rel=1e-12)
    # the constant c0 = mean(y) = 40/3 is scored on the training points, as in Extra-P
    c = 40.0 / 3.0
    const = 100.0 / 3.0 * sum(2 * abs(c - v) / (v + c) for v in (10.0, 12.0, 18.0))
    assert table.smape.iloc[0] == pytest.approx(const, rel=1e-12)
    assert table.formula.iloc[0] == "c0" and table.c0.iloc[0] == pytest.approx(c)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_search_matches_loop_reference(seed):
    rng = np.random.default_rng(seed)
    ns = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)[: 4 + seed]
    t = (50.0 + 2.0 * ns * np.log2(ns)) / ns * rng.lognormal(0.0, 0.05, ns.size)
    model = PMNF().fit(ns, t)
    table = model.hypotheses_
    const, scores = reference_scores(ns, t * ns, EXTRAP_DEFAULT_HYPOTHESES)
    assert table.smape.iloc[0] == pytest.approx(const, rel=1e-10)
    np.testing.assert_allclose(table.smape.to_numpy()[1:], scores, rtol=1e-7, atol=1e-9)
    # full-data coefficients of every hypothesis equal lstsq's
    for row in table.iloc[1:].itertuples():
        A = np.column_stack([np.ones(ns.size), term(ns, row.i, row.j)])
        coef, *_ = np.linalg.lstsq(A, t * ns, rcond=None)
        np.testing.assert_allclose([row.c0, row.c1], coef, rtol=1e-6, atol=1e-9 * abs(coef).max())
    # the choice: lowest score among eligible candidates, the first one on ties
    eligible = table.eligible.to_numpy()
    best = np.flatnonzero(eligible)[np.argmin(table.smape.to_numpy()[eligible])]
    assert table.chosen.to_numpy().nonzero()[0].tolist() == [best]
    assert model.smape_ == pytest.approx(table.smape.iloc[best])


def test_hypotheses_table():
    model = PMNF().fit([2, 4, 8, 16], [5.0, 3.0, 2.0, 1.8])
    table = model.hypotheses_
    assert list(table.columns) == ["i", "j", "formula", "c0", "c1", "rss", "smape", "contribution", "valid",
                                   "eligible", "chosen"]
    assert len(table) == 1 + len(EXTRAP_DEFAULT_HYPOTHESES)
    assert table.chosen.sum() == 1
    chosen = table[table.chosen].iloc[0]
    assert (chosen.i, chosen.j) == (model.hypothesis_.i, model.hypothesis_.j)
    assert (chosen.c0, chosen.c1) == model.coefficients_
    assert list(zip(table.i[1:], table.j[1:])) == list(EXTRAP_DEFAULT_HYPOTHESES)


def test_term_contribution_rule_rejects_negligible_terms():
    # a tiny n^3 term on top of a large constant: the term's contribution stays < 0.0005 of the data
    n = np.array([1, 2, 3, 4, 5], dtype=float)
    t = 1000.0 + 1e-6 * n**3
    model = PMNF(strong_scaling=False).fit(n, t)
    table = model.hypotheses_
    row = table[(table.i == 3.0) & (table.j == 0.0)].iloc[0]
    assert row.contribution < 0.0005 and not row.eligible
    assert model.hypothesis_.is_constant


def test_two_distinct_n_uses_training_smape_and_extrap_order():
    with pytest.warns(WorkbenchWarning, match="only 2 distinct n"):
        model = PMNF().fit([2, 8], [10.0, 4.0])
    assert not model.cross_validated_
    # every hypothesis interpolates both points; Extra-P's first hypothesis is c0 + c1 log2(n)
    assert model.hypothesis_ == PMNFHypothesis(0.0, 1.0)
    np.testing.assert_allclose(model.predict([2, 8]), [10.0, 4.0], rtol=1e-12)


# --------------------------------------------------------------------------------------------
# units, repeats, sklearn plumbing
# --------------------------------------------------------------------------------------------
def test_unit_invariance():
    rng = np.random.default_rng(7)
    n = np.array([1, 2, 4, 8, 16], dtype=float)
    t = (20.0 + 0.3 * n**1.5) / n * rng.lognormal(0, 0.03, n.size)
    seconds = PMNF().fit(n, t)
    millis = PMNF().fit(n, 1000.0 * t)
    assert seconds.hypothesis_ == millis.hypothesis_
    targets = np.array([1.0, 3.0, 32.0, 512.0])
    np.testing.assert_allclose(millis.predict(targets), 1000.0 * seconds.predict(targets), rtol=1e-10)
    np.testing.assert_allclose(millis.coefficients_, 1000.0 * np.array(seconds.coefficients_), rtol=1e-10)
    assert millis.smape_ == pytest.approx(seconds.smape_, rel=1e-9)


def test_repeats_are_averaged_like_extrap():
    n = np.array([4, 1, 2, 4, 8, 2, 1, 8, 4], dtype=float)
    t = np.array([3.1, 10.0, 5.2, 2.9, 2.2, 5.6, 11.0, 2.0, 3.3])
    model = PMNF().fit(n, t)
    means = {k: t[n == k].mean() for k in (1, 2, 4, 8)}
    reference = PMNF().fit(list(means), list(means.values()))
    assert model.hypothesis_ == reference.hypothesis_
    np.testing.assert_allclose(model.coefficients_, reference.coefficients_, rtol=1e-12)
    np.testing.assert_array_equal(model.n_train_, [1, 2, 4, 8])
    np.testing.assert_allclose(model.t_train_, list(means.values()), rtol=1e-15)
    np.testing.assert_array_equal(model.runs_, [2, 2, 3, 2])
    # the order of the runs does not matter
    perm = np.random.default_rng(0).permutation(n.size)
    again = PMNF().fit(n[perm], t[perm])
    np.testing.assert_allclose(again.coefficients_, model.coefficients_, rtol=1e-12)


def test_median_measure():
    n = np.array([1, 1, 1, 2, 2, 4, 4, 4, 4, 8], dtype=float)
    t = np.array([10.0, 30.0, 11.0, 6.0, 5.0, 3.0, 9.0, 3.2, 3.4, 2.5])
    model = PMNF(measure="median").fit(n, t)
    np.testing.assert_allclose(model.t_train_, [11.0, 5.5, 3.3, 2.5])
    reference = PMNF().fit([1, 2, 4, 8], [11.0, 5.5, 3.3, 2.5])
    assert model.hypothesis_ == reference.hypothesis_
    np.testing.assert_allclose(model.coefficients_, reference.coefficients_, rtol=1e-12)


def test_clone_and_params():
    model = PMNF(strong_scaling=False, measure="median", poly_exponents=(0.5, 1), log_exponents=(0, 1))
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    model.fit([1, 2, 4, 8], [1.0, 1.5, 2.2, 3.1])
    fitted_copy = clone(model)
    assert not hasattr(fitted_copy, "hypothesis_") and not hasattr(fitted_copy, "hypotheses_")
    # custom exponent sets: (i, 0), (0, j), then the product, without (0, 0) and duplicates
    assert list(zip(model.hypotheses_.i[1:], model.hypotheses_.j[1:])) == [(0.5, 0), (1, 0), (0, 1), (0.5, 1),
                                                                          (1, 1)]


def test_unfitted():
    model = PMNF()
    with pytest.raises(NotFittedError, match="not fitted"):
        model.predict([1, 2])
    with pytest.raises(SklearnNotFittedError):
        model.predict(4)
    assert not hasattr(model, "hypotheses_")
    assert issubclass(NotFittedError, ValidationError)


@pytest.mark.parametrize(
    "n, t, pattern",
    [
        ([1, 2, 4, 8], [1.0, 2.0, np.nan, 4.0], r"t must be finite and > 0.*, got t\[2\] = nan"),
        ([1, 2, 4, 8], [1.0, 2.0, 3.0, -1.0], r"t must be finite and > 0 \(runtimes\).*, got t\[3\] = -1.0"),
        ([1, 2, 4, 8], [1.0, 0.0, 3.0, 4.0], r"t must be finite and > 0.*, got t\[1\] = 0.0"),
        ([1, 0.5, 4, 8], [1.0, 2.0, 3.0, 4.0], r"n must be finite and >= 1.*, got n\[1\] = 0.5"),
        ([1, 2, np.inf, 8], [1.0, 2.0, 3.0, 4.0], r"n must be finite.*, got n\[2\] = inf"),
        ([4, 4, 4], [1.0, 2.0, 3.0], r"needs runs at >= 2 distinct n, got 1 \(all runs at n = 4\)"),
        ([1, 2, 4], [1.0, 2.0], r"same length, got 3 and 2"),
        ([], [], r"got 0"),
        ([[1, 2], [3, 4]], [1.0, 2.0, 3.0, 4.0], r"one-dimensional"),
        (["a", "b"], [1.0, 2.0], r"n must be numeric"),
    ],
)
def test_bad_fit_input(n, t, pattern):
    with pytest.raises(ValidationError, match=pattern):
        PMNF().fit(n, t)


def test_bad_predict_input_and_params():
    model = PMNF().fit([1, 2, 4, 8], [8.0, 4.5, 2.6, 1.6])
    with pytest.raises(ValidationError, match=r"n must be finite and >= 1.*, got n\[2\] = nan"):
        model.predict([1.0, 2.0, np.nan])
    with pytest.raises(ValidationError, match=r"n\[0\] = 0.0"):
        model.predict(np.array([[0.0, 2.0]]))
    with pytest.raises(ValidationError, match="measure must be one of"):
        PMNF(measure="mode").fit([1, 2, 4], [3.0, 2.0, 1.5])
    with pytest.raises(ValidationError, match=r"poly_exponents must be >= 0.*, got poly_exponents\[1\] = -0.5"):
        PMNF(poly_exponents=[1, -0.5]).fit([1, 2, 4], [3.0, 2.0, 1.5])


def test_predict_keeps_shape():
    model = PMNF().fit([1, 2, 4, 8], [8.0, 4.5, 2.6, 1.6])
    assert model.predict(16).shape == ()
    assert model.predict([[16, 32], [64, 128]]).shape == (2, 2)
    assert model.predict(np.array([16.0])).shape == (1,)


def test_nonpositive_model_is_clipped_with_warning():
    n = np.array([1, 2, 3, 4], dtype=float)
    model = PMNF(strong_scaling=False).fit(n, 100.0 - 2.0 * n)  # t = 100 - 2 n exactly
    assert model.hypothesis_ == PMNFHypothesis(1.0, 0.0)
    np.testing.assert_allclose(model.coefficients_, (100.0, -2.0), rtol=1e-10)
    assert model.may_clip_
    assert model.floor_ == pytest.approx(1e-9 * 92.0)
    with pytest.warns(WorkbenchWarning, match=r"<= 0 at n\[1\] = 50"):
        out = model.predict([10, 50, 200])
    assert out[0] == pytest.approx(80.0) and out[1] == out[2] == model.floor_
    assert np.all(out > 0)
    np.testing.assert_allclose(model.cost([50, 200]), [0.0, -300.0], atol=1e-9)

    increasing = PMNF().fit([1, 2, 4, 8], [8.0, 4.5, 2.6, 1.6])
    assert not increasing.may_clip_ or increasing.coefficients_[1] < 0


def test_negative_exponents_drop_log_terms_at_n_1():
    n = np.array([1, 2, 4, 8, 16], dtype=float)
    t = 5.0 + 10.0 * n**-0.5
    with pytest.warns(WorkbenchWarning, match="no hypothesis with a log factor"):
        model = PMNF(strong_scaling=False, allow_negative_exponents=True).fit(n, t)
    assert (model.hypotheses_.j == 0).all()
    assert model.hypothesis_ == PMNFHypothesis(-0.5, 0.0)
    np.testing.assert_allclose(model.coefficients_, (5.0, 10.0), rtol=1e-9)
    # without n = 1 the negative log hypotheses are searched too
    model = PMNF(strong_scaling=False, allow_negative_exponents=True).fit(n[1:], 2.0 + 3.0 / np.log2(n[1:]))
    assert model.hypothesis_ == PMNFHypothesis(0.0, -1.0)
    assert len(model.hypotheses_) == 1 + len(EXTRAP_DEFAULT_HYPOTHESES) + len(EXTRAP_NEGATIVE_HYPOTHESES)
    with pytest.raises(ValidationError, match=r"n must be > 1.*, got n\[0\] = 1.0"):
        model.predict([1.0, 4.0])


def test_formula_text():
    assert PMNFHypothesis(1.0, 0.0).formula == "c0 + c1 * n"
    assert PMNFHypothesis(2.0, 2.0).formula == "c0 + c1 * n^2 * log2(n)^2"
    assert PMNFHypothesis(1 / 3, 0.0).formula == "c0 + c1 * n^(1/3)"
    assert PMNFHypothesis(-0.5, -1.0).formula == "c0 + c1 * n^(-1/2) * log2(n)^(-1)"
    assert PMNFHypothesis(0.0, 1.0).formula == "c0 + c1 * log2(n)"


def test_fit_is_fast():
    n = np.array([4, 8, 16, 32], dtype=float)
    t = np.array([10.0, 5.5, 3.1, 2.0])
    per_fit = min(timeit.repeat(lambda: PMNF().fit(n, t), number=50, repeat=5)) / 50
    assert per_fit < 2e-3, f"{per_fit * 1e3:.3f} ms per 4-point fit"


# --------------------------------------------------------------------------------------------
# property: data from any default hypothesis are reproduced
# --------------------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(
    pair=st.sampled_from(EXTRAP_DEFAULT_HYPOTHESES),
    c0=st.floats(1e-2, 1e3),
    share=st.floats(0.05, 20.0),  # c1 * term(n_max) / c0: the term is never negligible
    ns=st.lists(st.integers(1, 512), min_size=4, max_size=8, unique=True),
    strong=st.booleans(),
)
def test_property_training_points_reproduced(pair, c0, share, ns, strong):
    i, j = pair
    n = np.array(sorted(ns), dtype=float)
    c1 = share * c0 / term(n[-1], i, j) if term(n[-1], i, j) > 0 else share
    y = c0 + c1 * term(n, i, j)
    t = y / n if strong else y
    model = PMNF(strong_scaling=strong).fit(n, t)
    np.testing.assert_allclose(model.predict(n), t, rtol=1e-7)
    assert model.smape_ < 1e-6


# --------------------------------------------------------------------------------------------
# real data
# --------------------------------------------------------------------------------------------
def _corpus_path() -> Path:
    mirror = os.environ.get("WORKBENCH_DATA_MIRROR")
    return Path(mirror) / "scaling-corpus" if mirror else Path("/work/shared/data/scaling-corpus")


@pytest.mark.skipif(not _corpus_path().exists(), reason=f"no scaling corpus at {_corpus_path()}")
@pytest.mark.parametrize("n_fit", [3, 4])
def test_real_corpus_curves(n_fit):
    from workbench.io import read_scaling_corpus

    corpus = read_scaling_corpus(_corpus_path())
    # a few curves of every source
    curve_ids = corpus.groupby("source", sort=True)["curve_id"].unique().map(lambda ids: sorted(ids)[:3]).sum()
    assert len(curve_ids) >= 8
    for cid in curve_ids:
        curve = corpus[corpus.curve_id == cid]
        allocations = np.sort(curve.n.unique())
        train = curve[curve.n.isin(allocations[:n_fit])]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WorkbenchWarning)
            model = PMNF().fit(train.n, train.time_s)
            pred = model.predict(allocations)
        assert pred.shape == allocations.shape
        assert np.all(np.isfinite(pred)) and np.all(pred > 0), cid
        assert model.cross_validated_ and np.isfinite(model.smape_)
        # the training points are fitted to within the model's own (training) error
        means = train.groupby("n").time_s.mean().to_numpy()
        assert np.all(np.abs(model.predict(allocations[:n_fit]) / means - 1) < 1.0), cid


def test_two_point_loo_is_extrap_leave_one_out_on_one_point_sets():
    # Extra-P 4.2.5 runs leave-one-out on 2 points too: each fold fits c0 + c1 x to the other point
    # by minimum-norm least squares, c = y_l [1, x_l] / (1 + x_l^2), and predicts the left-out one
    n, y = np.array([2.0, 8.0]), np.array([4.0, 16.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = PMNF(strong_scaling=False).fit(n, y)
        loo = PMNF(strong_scaling=False, two_point_loo=True).fit(n, y)
    assert default.hypothesis_.formula == "c0 + c1 * log2(n)" and not default.cross_validated_
    assert loo.hypothesis_.formula == "c0 + c1 * n" and loo.cross_validated_
    assert loo.coefficients_ == pytest.approx((0.0, 2.0), abs=1e-12)  # refitted on both points
    # the chosen hypothesis' score by hand: fold 1 trains on (8, 16), fold 2 on (2, 4)
    pred = [16 * (1 + 8 * 2) / 65, 4 * (1 + 2 * 8) / 5]
    smape = 100 * sum(abs(p - a) / (a + abs(p)) for p, a in zip(pred, y))
    assert loo.smape_ == pytest.approx(smape, rel=1e-12)
    # a ratio of 16 over a 4x step in n is n^2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert PMNF(strong_scaling=False, two_point_loo=True).fit(n, [4.0, 64.0]).hypothesis_.formula == \
            "c0 + c1 * n^2"
