"""ScalingPredictor, the interval calibration and the benchmark on hand-made and real curves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from workbench.errors import NotFittedError, ValidationError
from workbench.evaluation.scaling_benchmark import (
    benchmark_records,
    fit_calibration,
    leaderboard,
    leave_one_source_out,
    protocol_split,
    warning_table,
)
from workbench.models.scaling import MODELS, PREDICT_FRAME_COLUMNS, ScalingPredictor, default_calibration
from workbench.models.scaling.base import AmdahlScaling
from workbench.models.scaling.calibration import (
    PREDICTOR_FEATURES,
    Calibration,
    check_level,
    fit_error_model,
    miss_probability,
)
from workbench.models.scaling.predictor import combine, plausible, softmin_weights, weighted_cv_error

N = np.array([1.0, 2, 4, 8, 16])


def amdahl(n, t1=100.0, f=0.05):
    return t1 * (f + (1 - f) / np.asarray(n, float))


# ------------------------------------------------------------------ the combination maths


def test_combine_is_a_weighted_geometric_mean_that_skips_refusals():
    P = np.array([[100.0, 10.0, np.nan], [400.0, np.nan, np.nan]])
    pred, spread, best = combine(P, np.array([0.5, 0.5]))
    assert pred[0] == pytest.approx(200.0)  # sqrt(100 * 400)
    assert spread[0] == pytest.approx(np.log(2.0))  # log distance of each from the mean
    assert pred[1] == pytest.approx(10.0) and spread[1] == 0 and best[1] == 0
    assert np.isnan(pred[2]) and best[2] == -1


def test_softmin_weights_by_hand():
    w = softmin_weights(np.array([0.1, np.nan, 0.3]), np.array([9.0, 0.2, 9.0]), 0.1)
    expected = np.exp(-np.array([0.0, 0.1, 0.2]) / 0.1)
    np.testing.assert_allclose(w, expected / expected.sum())
    np.testing.assert_allclose(softmin_weights(np.array([0.1, 0.5]), np.array([0, 0]), np.inf), [0.5, 0.5])
    w = softmin_weights(np.array([0.1, 0.1]), np.array([0, 0]), 0.1, penalty=np.array([0.0, 50.0]))
    assert w[1] < 1e-100
    assert weighted_cv_error(np.array([0.25, 0.75]), np.array([0.2, np.nan])) == pytest.approx(0.2)


# ------------------------------------------------------------------------- calibration


def test_error_model_gives_calibrated_intervals_on_fresh_data():
    rng = np.random.default_rng(1)

    def sample(size):
        d = rng.uniform(-1, 4, size)
        feats = {"distance": d, "n_points": rng.choice([3.0, 4.0, 6.0], size),
                 "fit_error": rng.uniform(0, 0.2, size)}
        e = 0.05 * np.maximum(d, 0) + np.exp(-2.5 + 0.4 * np.maximum(d, 0)) * rng.laplace(size=size)
        return e, feats

    e, feats = sample(3000)
    em = fit_error_model(e, feats)
    assert em.location[1] == pytest.approx(0.05, abs=0.02)  # bias per doubling recovered
    e2, feats2 = sample(3000)
    lo, hi = (em.error_quantile(feats2, p) for p in (0.1, 0.9))
    coverage = np.mean((lo <= e2) & (e2 <= hi))
    assert 0.77 <= coverage <= 0.83
    # the scale grows with the extrapolation distance, as generated
    near, far = ({"distance": np.array([d]), "n_points": np.array([4.0]), "fit_error": np.array([0.1])}
                 for d in (0.0, 3.0))
    assert em.error_quantile(far, 0.9) - em.error_quantile(far, 0.1) > 2 * (
        em.error_quantile(near, 0.9) - em.error_quantile(near, 0.1))


def test_miss_probability_matches_the_quantiles():
    rng = np.random.default_rng(2)
    feats = {"distance": np.zeros(2000), "n_points": np.full(2000, 4.0), "fit_error": np.zeros(2000)}
    em = fit_error_model(rng.normal(0, 0.2, 2000), feats)
    p = miss_probability(em, {k: v[:1] for k, v in feats.items()}, 0.3)[0]
    # P(e < -log 1.3) + P(e > -log 0.7) for e ~ N(0, 0.2): 0.095 + 0.037
    assert p == pytest.approx(0.132, abs=0.03)


def test_calibration_round_trips_through_json(tmp_path):
    cal = default_calibration()
    cal.to_json(tmp_path / "c.json")
    again = Calibration.from_json(tmp_path / "c.json")
    assert again == cal
    assert set(cal.error_models) >= set(MODELS) | {"predictor"}
    assert cal.error_models["predictor"].features == PREDICTOR_FEATURES
    assert "made_by" in cal.provenance and cal.provenance["records"] > 1000


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.2, "high", None])
def test_level_is_checked(level):
    with pytest.raises(ValidationError, match="interval level"):
        check_level(level)


# ----------------------------------------------------------------------------- predictor


def test_predict_frame_contract():
    predictor = ScalingPredictor()
    assert clone(predictor).get_params() == predictor.get_params()
    t = amdahl(N) * (1 + 0.02 * np.array([1, -1, 1, -1, 1]))
    assert predictor.fit(N, t) is predictor
    targets = [32, 64, 128, 256, 512, 1024, 2048, 4096]
    frame = predictor.predict_frame(targets, level=0.8)
    assert list(frame.columns) == PREDICT_FRAME_COLUMNS
    assert frame["n"].tolist() == targets
    assert (frame["lower"] <= frame["prediction"]).all() and (frame["prediction"] <= frame["upper"]).all()
    assert frame["model"].isin(list(MODELS)).all()
    assert frame["warned"].dtype == bool
    assert all(isinstance(k, tuple) for k in frame["warnings"])
    assert set(frame.attrs["weights"]) <= set(MODELS)
    assert sum(frame.attrs["weights"].values()) == pytest.approx(1.0)
    for kinds in frame["warnings"]:
        for kind in kinds:
            assert frame.attrs["messages"][kind]
    # Amdahl data with +-2 % noise, one doubling past the data: close, and inside the interval
    assert frame["prediction"].iloc[0] == pytest.approx(amdahl(32), rel=0.2)
    assert frame["lower"].iloc[0] <= amdahl(32) <= frame["upper"].iloc[0]
    lo, hi = predictor.predict_interval(targets)
    np.testing.assert_array_equal(lo, frame["lower"]) and np.testing.assert_array_equal(hi, frame["upper"])


def test_predictor_works_from_three_allocations_and_not_below():
    frame = ScalingPredictor().fit([4, 8, 16], amdahl([4, 8, 16])).predict_frame([32, 64])
    assert frame["prediction"].notna().all()
    # "few allocations" fired on 65 % of the benchmark's predictions with the precision of chance: not a warning
    assert not any("few-allocations" in k for k in frame["warnings"])
    assert all(v.startswith(("usable", "doubtful")) for v in frame["verdict"])
    with pytest.raises(ValidationError, match="3 distinct"):
        ScalingPredictor().fit([4, 8, 8, 4], [3, 2, 2.1, 3.2])


def test_predictor_bad_input_and_unfitted_use():
    with pytest.raises(NotFittedError):
        ScalingPredictor().predict_frame([8])
    with pytest.raises(ValidationError, match=r"t\[1\] = 0"):
        ScalingPredictor().fit([1, 2, 4], [3.0, 0.0, 1.0])
    with pytest.raises(ValidationError, match=r"n\[2\] = inf"):
        ScalingPredictor().fit([1, 2, np.inf], [3.0, 2.0, 1.0])
    fitted = ScalingPredictor().fit(N, amdahl(N))
    with pytest.raises(ValidationError, match=r"n\[1\] = 0.5"):
        fitted.predict_frame([8, 0.5])
    with pytest.raises(ValidationError, match="unknown model"):
        ScalingPredictor(models=("amdahl", "magic")).fit(N, amdahl(N))


def test_a_curve_no_model_fits_gives_rows_with_a_message(monkeypatch):
    def refuse(self, n, t):
        raise ValidationError("this shape is beyond Amdahl")

    monkeypatch.setattr(AmdahlScaling, "_fit", refuse)
    predictor = ScalingPredictor(models=("amdahl",)).fit(N, amdahl(N))
    frame = predictor.predict_frame([32, 64])
    assert frame["prediction"].isna().all() and frame["warned"].all()
    assert frame["lower"].isna().all() and frame["upper"].isna().all()  # no prediction, no interval (not 1.8e308)
    assert all(k[0] == "no-model-fits" for k in frame["warnings"])
    assert all(v.startswith("no prediction") for v in frame["verdict"])
    assert "beyond Amdahl" in frame.attrs["messages"]["no-model-fits"]


def test_predictor_scales_with_the_time_unit():
    t = amdahl(N) * (1 + 0.03 * np.array([1, -1, 1, -1, 1]))
    a = ScalingPredictor().fit(N, t).predict_frame([64, 256])
    b = ScalingPredictor().fit(N, t * 1e3).predict_frame([64, 256])
    for col in ("prediction", "lower", "upper"):
        np.testing.assert_allclose(b[col], 1e3 * a[col], rtol=1e-6)
    assert a["warnings"].tolist() == b["warnings"].tolist()


def test_cross_validation_leaves_the_largest_allocations_out():
    predictor = ScalingPredictor().fit(N, amdahl(N))
    cv = predictor.cv_
    assert set(cv["train_max_n"]) == {4.0, 8.0}
    assert set(cv.loc[cv["train_max_n"] == 8, "n"]) == {16.0}
    assert set(cv.loc[cv["train_max_n"] == 4, "n"]) == {8.0, 16.0}
    assert predictor.cv_error_["amdahl"] == pytest.approx(0.0, abs=1e-9)  # exact Amdahl data


def test_measuring_closer_to_the_target_narrows_its_interval_most():
    t = amdahl(N) * (1 + 0.03 * np.array([1, -1, 1, -1, 1]))
    predictor = ScalingPredictor().fit(N, t)
    table = predictor.measurement_value(256)
    assert table["n"].iloc[0] == 128 and set(table["n"]) <= {32.0, 64.0, 128.0}
    assert predictor.measurement_value(24).empty  # nothing lies between 16 and 24: never the target itself
    assert predictor.measurement_value(256, candidates=[8, 256, 512, 64])["n"].tolist() == [64.0]  # only between
    assert (np.diff(table["width_ratio"]) >= 0).all()
    assert (table["narrowing"] > 0).all()


# ------------------------------------------------------------------ topology, plausibility


def test_a_target_that_leaves_the_one_node_of_the_measurements_is_warned_with_the_crossing_run():
    n = np.array([1.0, 2, 4, 8])
    predictor = ScalingPredictor(per_node=8).fit(n, amdahl(n))
    frame = predictor.predict_frame([8, 16, 64])
    assert [("leaves-node" in k) for k in frame["warnings"]] == [False, True, True]
    assert frame["warned"].tolist()[1:] == [True, True]
    assert predictor.target_nodes([8, 16, 64]).tolist() == [1, 2, 8]
    message = frame.attrs["messages"]["leaves-node"]
    assert "needs 2 nodes" in message and "Measure at 9 processes" in message
    assert "leaves the one node" in frame["verdict"].iloc[1]
    assert 9.0 in predictor.measurement_value(64)["n"].tolist()  # the smallest run on two nodes is proposed
    # the same runs with nodes given per run, or in units of nodes, or without topology
    assert "leaves-node" in ScalingPredictor(per_node=8).fit(n, amdahl(n), nodes=[1, 1, 1, 1]).predict_frame(
        [16])["warnings"].iloc[0]
    assert "leaves-node" not in ScalingPredictor().fit(n, amdahl(n)).predict_frame([16])["warnings"].iloc[0]
    assert ScalingPredictor(unit="nodes").fit(n, amdahl(n)).target_nodes([16]).tolist() == [16]


def test_a_target_beyond_the_node_has_an_interval_down_to_perfect_scaling():
    # flat inside the node (memory-bound), so every member predicts about 60 s beyond it; the best
    # n x t measured is 1 x 100 s, so perfect scaling gives 100/16 = 6.25 s at 16 processes
    n = np.array([1.0, 2, 4, 8])
    t = np.array([100.0, 70.0, 62.0, 60.0])
    inside = ScalingPredictor().fit(n, t).predict_frame([16])
    beyond = ScalingPredictor(per_node=8).fit(n, t).predict_frame([16])
    assert beyond["prediction"].iloc[0] == pytest.approx(inside["prediction"].iloc[0])
    assert beyond["lower"].iloc[0] == pytest.approx(100.0 / 16)
    assert inside["lower"].iloc[0] > 100.0 / 16  # inside the measured topology no floor is needed
    assert "perfect scaling" in beyond.attrs["messages"]["leaves-node"]


def test_topology_that_contradicts_the_runs_is_refused():
    with pytest.raises(ValidationError, match=r"nodes must be at most the run's processes.*nodes\[1\] = 4"):
        ScalingPredictor().fit([1, 2, 4], [3.0, 2.0, 1.0], nodes=[1, 4, 1])
    with pytest.raises(ValidationError, match="one value per run"):
        ScalingPredictor().fit([1, 2, 4], [3.0, 2.0, 1.0], nodes=[1, 1])
    with pytest.raises(ValidationError, match="per_node must be a whole number"):
        ScalingPredictor(per_node=2.5).fit([1, 2, 4], [3.0, 2.0, 1.0]).predict_frame([8])
    with pytest.raises(ValidationError, match="unknown allocation unit 'parsecs'"):
        ScalingPredictor(unit="parsecs").fit([1, 2, 4], [3.0, 2.0, 1.0])


def test_a_member_that_turns_upward_past_falling_data_is_implausible():
    P = np.array([[50.0, 25.0, 12.0], [60.0, 80.0, 300.0], [np.nan, 30.0, 20.0]])
    n = np.array([128.0, 256.0, 512.0])
    path_min = np.fmin.accumulate(np.where(np.isfinite(P), P, np.inf), axis=1)  # the lowest on the way there
    keep = plausible(P, n, n_max=64.0, t_last=100.0, falling=1.0, path_min=path_min)
    # the second member rises above its own 60 s at 128 (and then above the last measurement)
    assert keep.tolist() == [[True, True, True], [True, False, False], [True, True, True]]
    # without the path, only a rise above the last measurement counts
    assert plausible(P, n, 64.0, 100.0, 1.0).tolist() == [[True] * 3, [True, True, False], [True] * 3]
    # data that already rose: a rise is what they show, nothing is implausible
    assert plausible(P, n, 64.0, 100.0, falling=0.0).all()
    # inside the measured range nothing is judged
    assert plausible(np.array([[500.0]]), np.array([32.0]), 64.0, 100.0, 1.0).all()
    # the combination drops the implausible member unless nobody else is left
    pred, _, _ = combine(P, np.array([0.5, 0.5, 0.0]), keep)
    np.testing.assert_allclose(pred, [np.sqrt(50 * 60), 25.0, 12.0])
    lonely, _, _ = combine(P[1:2], np.array([1.0]), keep[1:2])
    assert lonely[2] == pytest.approx(300.0)


def test_the_readme_example_is_predicted_within_20_percent_or_covered():
    # 16/16/32/64 nodes, halving runtimes; measured later at 128/256/512 nodes: 278/149/92 s
    frame = ScalingPredictor().fit([16, 16, 32, 64], [2054, 2049, 1027, 524]).predict_frame([128, 256, 512])
    actual = np.array([278.0, 149.0, 92.0])
    close = np.abs(frame["prediction"] - actual) / actual <= 0.2
    covered = (frame["lower"] <= actual) & (actual <= frame["upper"])
    assert (close | covered).all(), frame


# ----------------------------------------------------------------------------- benchmark


def test_protocol_split():
    a = np.array([1.0, 2, 4, 8, 16, 32])
    assert [x.tolist() for x in protocol_split(a, "k3")] == [[1, 2, 4], [8, 16, 32]]
    assert [x.tolist() for x in protocol_split(a, "k4")] == [[1, 2, 4, 8], [16, 32]]
    assert [x.tolist() for x in protocol_split(a, "spread")] == [[1, 4, 16], [2, 8, 32]]
    assert protocol_split(a[:4], "k4") is None and protocol_split(a[:4], "spread") is None
    with pytest.raises(ValidationError, match="unknown protocol"):
        protocol_split(a, "k9")


def _synthetic_curves(seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for source in ("a", "b", "c"):
        for c in range(8):
            f = rng.uniform(0, 0.2)
            for n in 2.0 ** np.arange(6):
                for run in range(2):
                    rows.append({"curve_id": f"{source}{c}", "source": source, "n": n, "run": run,
                                 "time_s": amdahl(n, 50, f) * np.exp(rng.normal(0, 0.05))})
    return pd.DataFrame(rows)


def test_benchmark_leave_one_source_out_on_synthetic_curves():
    records = benchmark_records(_synthetic_curves(), progress=False)
    assert set(records["protocol"]) == {"k3", "k4", "spread"}
    assert records.groupby(["curve_id", "protocol"])["model"].nunique().eq(len(MODELS)).all()
    results = leave_one_source_out(records, progress=False)
    board = leaderboard(results).set_index("model")
    assert board.loc["predictor", "predictions"] == board.loc["amdahl", "predictions"]
    # Amdahl data with 5 % noise: everything is close, intervals cover most points
    assert board.loc["amdahl", "median_pa"] > 90
    assert 0.6 <= board.loc["predictor", "coverage"] <= 0.98
    warn = warning_table(results)
    assert warn["kind"].iloc[-1] == "warned"
    cal = fit_calibration(records)
    assert 0 <= cal.risk_threshold <= 1


def test_shipped_calibration_covers_real_held_back_runtimes(data_mirror):
    """The shipped calibration on real curves: a subset of every source, protocol k3/k4.
    (The full leave-one-source-out numbers are in README, made by tools/scaling_benchmark.py.)"""
    from workbench.io import read_scaling_corpus

    curves = read_scaling_corpus(data_mirror / "scaling-corpus")
    ids = curves.drop_duplicates("curve_id").groupby("source")["curve_id"].apply(lambda s: s.iloc[::4]).explode()
    records = benchmark_records(curves[curves["curve_id"].isin(ids)], protocols=("k3", "k4"), progress=False)
    from workbench.evaluation.scaling_benchmark import apply_calibration

    results = apply_calibration(records, default_calibration())
    board = leaderboard(results).set_index("model")
    assert 0.65 <= board.loc["predictor", "coverage"] <= 0.95
    assert board.loc["predictor", "miss_recall"] >= 0.75
    assert board.loc["predictor", "median_width"] < board.loc["predictor", "constant_width"] * 1.2
