"""Gradient-boosting scenarios of [Branikas2024] ( chapters 7-8): scenario masks,
the estimator and its search, YDF's inverse mean minimum depth on hand-built trees,
metrics on toy data, and the OSU broadcast train-small/test-big case on real data."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor

from workbench.errors import ValidationError
from workbench.io import fetch_dataset
from workbench.models.comm.gbm import (
    CommGBM,
    Scenario,
    inverse_mean_min_depth,
    main_scenario,
    mean_min_depth_reference,
    message_scale_scenario,
    run_scenario,
    split_rows,
    subset_metrics,
    train_small_test_big,
)

FAST = dict(n_iter=2, cv=2, n_estimators=(30, 60), max_depth=(2, 3))


def tree(left, right, feature):
    """A tree in scikit-learn's array layout (-1 = no child, feature -2 at leaves)."""
    return SimpleNamespace(tree_=SimpleNamespace(children_left=np.array(left), children_right=np.array(right),
                                                 feature=np.array(feature)))


# root f0 -> leaf | (f1 -> leaf, leaf): leaves at depth 1, 2, 2
TREE_A = tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [0, -2, 1, -2, -2])
# a single leaf (no split)
TREE_B = tree([-1], [-1], [-2])
# root f1 -> (f1 -> leaf, leaf) | leaf: f1 again below itself
TREE_C = tree([1, 2, -1, -1, -1], [4, 3, -1, -1, -1], [1, 1, -2, -2, -2])


def toy_frame(n_per: int = 12, seed: int = 0) -> pd.DataFrame:
    """Runs of a thesis-like sweep: comm time grows with message size, messages, nodes."""
    rng = np.random.default_rng(seed)
    nodes = np.repeat([4, 8, 16, 32, 64], n_per)
    multiple = rng.choice([1, 5, 10, 50, 100], nodes.size)
    messages = rng.choice([2, 4, 8], nodes.size)
    load = rng.choice(["memory", "compute"], nodes.size)
    comm = 1e-3 * multiple * messages * (1 + np.log2(nodes) / 4) * np.where(
        load == "memory", 1.0, 1.3)
    return pd.DataFrame({"nodes": nodes, "msg_multiple": multiple, "messages": messages, "load": load,
                         "comm_s": comm * rng.uniform(0.97, 1.03, nodes.size)})


# ----------------------------------------------------------------------------- min depth


def test_inverse_mean_min_depth_on_hand_built_trees():
    out = inverse_mean_min_depth([TREE_A], ["f0", "f1", "f2"]).set_index("feature")
    # leaves L (path f0), RL and RR (path f0, f1): f0 at 0; f1 at 1 on every path
    # (L lacks it: its length 1); f2 absent: path lengths 1, 2, 2
    np.testing.assert_allclose(out["mean_min_depth"], [0.0, 1.0, 5 / 3])
    assert out["used"].tolist() == [True, True, False]
    np.testing.assert_allclose(out["inv_mean_min_depth"], [1.0, 0.5, np.nan])


def test_inverse_mean_min_depth_averages_trees_and_counts_a_lone_leaf_as_depth_zero():
    out = inverse_mean_min_depth([TREE_A, TREE_B, TREE_C], ["f0", "f1", "f2"]).set_index("feature")
    # tree C: leaves at depths 2, 2, 1; f1 first at depth 0 on all; f0 absent -> 5/3
    np.testing.assert_allclose(out["mean_min_depth"], [(0 + 0 + 5 / 3) / 3, (1 + 0 + 0) / 3, (5 / 3 + 0 + 5 / 3) / 3])
    assert out.loc["f1", "inv_mean_min_depth"] == pytest.approx(1 / (1 + 1 / 3))
    ref = mean_min_depth_reference([TREE_A, TREE_B, TREE_C], ["f0", "f1", "f2"])
    pd.testing.assert_frame_equal(out.reset_index(), ref)


@pytest.mark.parametrize("model", [
    GradientBoostingRegressor(n_estimators=40, max_depth=4, random_state=1),
    RandomForestRegressor(n_estimators=15, max_depth=7, random_state=1),
])
def test_vectorised_equals_the_recursive_walk_on_fitted_ensembles(model):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5))
    y = X[:, 0] * 3 + X[:, 1] ** 2 + rng.normal(scale=0.1, size=300)
    model.fit(X, y)
    names = list("abcde")
    pd.testing.assert_frame_equal(inverse_mean_min_depth(model, names), mean_min_depth_reference(model, names))
    out = inverse_mean_min_depth(model, names).set_index("feature")
    assert out["inv_mean_min_depth"].idxmax() in ("a", "b")  # the informative features sit near the root


def test_inverse_mean_min_depth_bad_input():
    with pytest.raises(ValidationError, match="up to 1, but 1 feature names"):
        inverse_mean_min_depth([TREE_A], ["only"])
    with pytest.raises(ValidationError, match="expected a fitted tree ensemble"):
        inverse_mean_min_depth(object(), ["a"])
    with pytest.raises(ValidationError, match="not fitted"):
        inverse_mean_min_depth(CommGBM(), ["a"])


# ----------------------------------------------------------------------------- scenarios


def test_train_small_test_big_masks():
    frame = toy_frame()
    scenario = train_small_test_big(frame, "nodes", (4, 8, 16), (32, 64), seed=3)
    (model,) = scenario.models
    held_out, big = model.tests
    small = frame.index[frame["nodes"] <= 16]
    assert sorted([*model.train, *held_out.index]) == small.tolist()
    assert len(model.train) == 21 and len(held_out.index) == 15  # 36 rows: ceil(0.4 * 36) = 15 held out
    assert big.index.tolist() == frame.index[frame["nodes"] >= 32].tolist()
    assert (held_out.name, big.name) == ("nodes_4_8_16", "nodes_32_64")
    assert (held_out.published, big.published) == ("nodes_4_8_16", "nodes_32_64")
    again = train_small_test_big(frame, "nodes", (4, 8, 16), (32, 64), seed=3)
    np.testing.assert_array_equal(again.models[0].train, model.train)
    other = train_small_test_big(frame, "nodes", (4, 8, 16), (32, 64), seed=4)
    assert not np.array_equal(other.models[0].train, model.train)


def test_message_scale_and_main_masks():
    frame = toy_frame()
    scenario = message_scale_scenario(frame)
    small, large = scenario.models
    assert set(frame.loc[small.train, "msg_multiple"]) | set(frame.loc[small.tests[0].index, "msg_multiple"]) <= {1, 5,
                                                                                                                    10}
    assert set(frame.loc[large.train, "msg_multiple"]) <= {50, 100}
    assert len(small.train) + len(small.tests[0].index) == frame["msg_multiple"].isin([1, 5, 10]).sum()
    main = main_scenario(frame, test_size=0.25)
    (m,) = main.models
    assert sorted([*m.train, *m.tests[0].index]) == frame.index.tolist() and len(m.tests[0].index) == 15
    assert m.tests[0].name == "all"


def test_split_by_configuration_keeps_repeats_together():
    frame = pd.DataFrame({"a": np.repeat(np.arange(10), 3), "y": np.arange(30.0)})
    train, test = split_rows(frame, frame.index, group_by=["a"], seed=1)
    assert not set(frame.loc[train, "a"]) & set(frame.loc[test, "a"])
    assert len(test) == 12  # 4 of 10 configurations, 3 rows each


@pytest.mark.parametrize("call, message", [
    (lambda f: train_small_test_big(f, "nodes", (4, 8), (8, 16)), "share the value"),
    (lambda f: train_small_test_big(f, "nodes", (4,), (128,)), r"no rows with nodes in \[128\]"),
    (lambda f: train_small_test_big(f, "racks"), "column 'racks' is not in the frame"),
    (lambda f: main_scenario(f.head(1)), "needs at least 2 rows"),
    (lambda f: main_scenario(f.head(2), test_size=0.9), "leaves an empty training set"),
    (lambda f: main_scenario(f, test_size=1.5), "test_size must be a fraction"),
    (lambda f: split_rows(f, f.index[:4], group_by=["nodes"]), "at least 2 configurations"),
])
def test_scenario_bad_input(call, message):
    with pytest.raises(ValidationError, match=message):
        call(toy_frame())


# ----------------------------------------------------------------------------- metrics


def test_subset_metrics_by_hand():
    m = subset_metrics([1.0, 2.0, 4.0], [1.0, 2.0, 3.0])
    assert m["n"] == 3
    assert m["rmse"] == pytest.approx(np.sqrt(1 / 3))
    assert m["r2"] == pytest.approx(1 - 1 / (42 / 9))  # SS_tot = 42/9
    assert m["mape_pct"] == pytest.approx(25 / 3) and m["mape_fraction"] == pytest.approx(25 / 300)
    assert m["mpe_pct"] == pytest.approx(-25 / 3) and m["within_30"] == 1.0
    assert np.isnan(subset_metrics([2.0], [1.0])["r2"])


# ----------------------------------------------------------------------------- estimator


def test_commgbm_learns_reproducibly_and_reports_progress():
    frame = toy_frame(30)
    calls = []
    X, y = frame[["nodes", "msg_multiple", "messages", "load"]], frame["comm_s"]
    model = CommGBM(**FAST, random_state=5).fit(X, y, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (5, 5) and len(calls) == 5  # 2 candidates x 2 folds + refit
    assert model.categories_ == {"load": ["compute", "memory"]}
    assert len(model.cv_results_) == 2 and set(model.cv_results_["rank"]) <= {1, 2}
    assert model.best_params_["max_depth"] in (2, 3)
    pred = model.predict(X)
    assert subset_metrics(y, pred)["r2"] > 0.9
    again = CommGBM(**FAST, random_state=5).fit(X, y, progress=False)
    np.testing.assert_array_equal(again.predict(X), pred)
    linear = CommGBM(**FAST, log_target=False, random_state=5).fit(X, y, progress=False)
    assert not np.array_equal(linear.predict(X), pred)


def test_commgbm_search_space_follows_the_controls():
    space = CommGBM(learning_rate=0.1, max_depth=(3, 5), n_estimators=(50, 80)).search_space()
    assert space["learning_rate"] == [0.1] and space["max_depth"] == [3, 4, 5]
    assert space["n_estimators"].support() == (50, 80)
    with pytest.raises(ValidationError, match="max_depth must be positive integers"):
        CommGBM(max_depth=(4, 2)).search_space()


def test_commgbm_bad_input():
    frame = toy_frame()
    X, y = frame[["nodes", "load"]], frame["comm_s"]
    with pytest.raises(ValidationError, match="target must be finite, got nan in row 3"):
        CommGBM(**FAST).fit(X, y.where(frame.index != 3), progress=False)
    with pytest.raises(ValidationError, match="log_target needs a target > 0"):
        CommGBM(**FAST).fit(X, -y, progress=False)
    one = frame.assign(nodes=4, load="memory")
    with pytest.raises(ValidationError, match="1 configuration of the features"):
        CommGBM(**FAST).fit(one[["nodes", "load"]], y, progress=False)
    with pytest.raises(ValidationError, match="too few for 2-fold"):
        CommGBM(**FAST).fit(X.head(3), y.head(3), progress=False)
    with pytest.raises(ValidationError, match="feature 'nodes' is missing in row 2"):
        CommGBM(**FAST).fit(X.assign(nodes=X["nodes"].where(X.index != 2)), y, progress=False)
    model = CommGBM(**FAST).fit(X, y, progress=False)
    with pytest.raises(ValidationError, match="missing feature column"):
        model.predict(X[["nodes"]])
    with pytest.raises(ValidationError, match="'load' has the value 'io', unseen in training"):
        model.predict(X.assign(load="io"))
    with pytest.raises(ValidationError, match="call fit"):
        CommGBM().predict(X)
    with pytest.raises(ValidationError, match="n_iter must be an integer >= 1"):
        CommGBM(n_iter=0).fit(X, y)


# ----------------------------------------------------------------------------- run_scenario


def test_run_scenario_on_a_toy_sweep():
    frame = toy_frame(20)
    features = ["nodes", "msg_multiple", "messages", "load"]
    scenario = train_small_test_big(frame, seed=1)
    result = run_scenario(frame, scenario, features=features, estimator=CommGBM(**FAST), progress=False)
    assert result.metrics["subset"].tolist() == ["nodes_4_8_16", "nodes_32_64"]
    assert result.metrics["n"].tolist() == [len(t.index) for t in scenario.models[0].tests]
    assert len(result.predictions) == result.metrics["n"].sum()
    held = result.predictions[result.predictions["subset"] == "nodes_4_8_16"]
    assert subset_metrics(held["actual"], held["predicted"])["rmse"] == pytest.approx(result.metrics["rmse"].iloc[0])
    np.testing.assert_allclose(held["error_pct"], 100 * (held["predicted"] - held["actual"]) / held["actual"])
    assert result.metrics["r2"].iloc[0] > 0.8  # seen node counts
    assert set(result.importances["feature"]) == set(features)
    assert result.importances["permutation_mean"].notna().all()
    assert any("outside the training range [4, 16]" in w for w in result.warnings)
    assert result.best_params["train_small"] and result.fit_seconds["train_small"] > 0


def test_run_scenario_bad_input():
    frame = toy_frame()
    scenario = main_scenario(frame)
    with pytest.raises(ValidationError, match=r"missing column\(s\) \['wss_bytes'"):
        run_scenario(frame, scenario, progress=False)  # the thesis's features are not in the toy frame
    with pytest.raises(ValidationError, match="expected a Scenario"):
        run_scenario(frame, "main", features=["nodes"], progress=False)
    empty = Scenario("main", (scenario.models[0].__class__("main", np.array([], dtype=int), scenario.models[0].tests),))
    with pytest.raises(ValidationError, match="empty training set"):
        run_scenario(frame, empty, features=["nodes"], estimator=CommGBM(**FAST), progress=False)


# ----------------------------------------------------------------------------- real data


def test_osu_broadcast_train_small_test_big(data_mirror):
    from workbench.evaluation.comm_ml import compare_with_tables8, osu_train_small_test_big

    osu = fetch_dataset("osu-orfeo", mirror=data_mirror).frame
    result = osu_train_small_test_big(osu, estimator=CommGBM(n_iter=2, cv=2, n_estimators=(100, 150)))
    metrics = result.metrics.set_index("subset")
    seen, unseen = metrics.loc["processes_2-64"], metrics.loc["processes_128-256"]
    # seen core counts are predicted well; 128-256 cores lie beyond every tree split
    assert seen["r2"] > 0.95 and seen["mape_pct"] < 20 and seen["within_30"] > 0.9
    assert unseen["r2"] < 0.8 and unseen["mpe_pct"] < -30  # under-predicts: latency keeps growing with cores
    assert any("outside the training range [2, 64]" in w for w in result.warnings)
    compared = compare_with_tables8(result.metrics)
    assert compared["published_subset"].tolist() == ["nodes_4_8_16", "nodes_32_64"]
    assert compared["published_r2"].tolist() == [0.854, 0.466]


def test_osu_configurations_and_presets(data_mirror):
    from workbench.evaluation.comm_ml import OSU_EAGER_BYTES, build_scenario, osu_bcast_configurations

    frame = osu_bcast_configurations(fetch_dataset("osu-orfeo", mirror=data_mirror).frame)
    assert not frame.duplicated(["mapping", "algorithm", "processes", "size_bytes"]).any()
    assert set(frame["algorithm"]) == {"0", "1", "2", "5", "6"} and frame["repeats"].min() >= 1
    small, large = build_scenario("osu", "message_scale", frame).models
    assert frame.loc[[*small.train, *small.tests[0].index], "size_bytes"].max() < OSU_EAGER_BYTES
    assert frame.loc[large.train, "size_bytes"].min() >= OSU_EAGER_BYTES
    (model,) = build_scenario("osu", "train_small_test_big", frame).models
    assert frame.loc[model.train, "processes"].max() <= 64
    assert frame.loc[model.tests[1].index, "processes"].between(128, 256).all()


def test_our_datagen_sweep_main_scenario_beside_table_8_5():
    from workbench.errors import DatasetNotFoundError
    from workbench.evaluation.comm_ml import build_scenario, compare_with_tables8, datagen_runs, load_datagen

    try:
        runs, report = datagen_runs(load_datagen())
    except DatasetNotFoundError as exc:
        pytest.skip(f"the measured data-generator sweep is not bundled yet: {exc}")
    assert 0 < report.n_kept < report.n_in
    (model,) = build_scenario("datagen", "train_small_test_big", runs).models
    assert model.tests[0].name == "ppn_2" and set(runs.loc[model.tests[1].index, "ppn"]) == {4}  # one node here
    result = run_scenario(runs, build_scenario("datagen", "main", runs), estimator=CommGBM(n_iter=3), progress=False)
    (row,) = compare_with_tables8(result.metrics).to_dict("records")
    assert row["published_r2"] == 0.858 and row["published_mape_fraction"] == 0.262
    assert row["r2"] > 0.6 and row["mape_fraction"] < 0.4  # measured here: R2 0.87, MAPE 0.22
    importances = result.importances.set_index("feature")
    assert not importances.loc["nodes", "used"]  # one node: never split on
    assert any("'nodes'" in w and "single value" in w for w in result.warnings)
