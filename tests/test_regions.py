"""RegionPredictor (workbench.models.regions): one ScalingPredictor per region of a profile table,
share, rank, growth in words, "starts to dominate" verdicts, consistency of exclusive sums.

The generated application of tests/data/profiles/make_profiles.py has known laws: solve shrinks
like 64/p, MPI_Allreduce grows like 0.2 log2 p, io stays at 1 s, main's own time is 0.5 s."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from workbench.errors import ModelWarning, NotFittedError, ValidationError
from workbench.io import read_profiles
from workbench.models.regions import (
    REGION_FRAME_COLUMNS,
    RegionPredictor,
    growth_words,
    interval_half_width,
    shipped_region_calibration,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "data" / "profiles"))
import make_profiles as gen  # noqa: E402

RELEARN = Path("/work/shared/data/extrap-mpi/relearn_data.txt")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return read_profiles(gen.write_all(tmp_path_factory.mktemp("regions"))["caliper"])


@pytest.fixture(scope="module")
def fitted(table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RegionPredictor().fit(table)


def test_contract(table, fitted):
    model = RegionPredictor(models=("amdahl", "pmnf"))
    with pytest.raises(NotFittedError):
        model.predict_frame([64])
    assert clone(model).get_params() == model.get_params()
    assert fitted.metric_ == ("time.duration", "inclusive", "max")  # metric=None: inclusive, max over ranks
    assert fitted.root_ == "main" and set(fitted.predictors_) == set(gen.LAWS)
    assert all(isinstance(w, ModelWarning) for w in fitted.warnings_)
    assert not hasattr(clone(fitted), "predictors_")


def test_frame_columns_share_rank(fitted):
    frame = fitted.predict_frame([64, 256], level=0.8)
    assert list(frame.columns) == REGION_FRAME_COLUMNS and len(frame) == 2 * len(gen.LAWS)
    root = frame[frame["region"] == "main"]
    assert np.allclose(root["share"], 1.0)
    assert (frame["lower"] <= frame["prediction"]).all() and (frame["prediction"] <= frame["upper"]).all()
    for _, at_n in frame.groupby("n"):
        assert sorted(at_n["rank"]) == list(range(1, len(gen.LAWS) + 1))
    # measured allocation: the ranks follow the measured exclusive times at p = 32
    at32 = fitted.predict_frame([32]).set_index("region")
    assert at32.loc["main->solve", "rank"] == 1  # 64/32 = 2 s, the largest exclusive part
    assert at32.loc["main", "rank"] == 4  # 0.5 s
    solve = at32.loc["main->solve", "share"]
    assert solve == pytest.approx(max(gen.rank_times("main->solve", 32, 0)) / max(gen.rank_times("main", 32, 0)),
                                  rel=0.1)


def test_growth_words_of_the_known_laws(fitted):
    growth = fitted.growth([256]).set_index("region")["growth"]
    assert growth["main->solve"] == "shrinks like 1/n"
    assert growth["main->solve->MPI_Allreduce"] == "grows like log n"
    assert growth["main->io"] == "stays flat"


def test_verdicts_flag_the_growing_regions(fitted):
    verdicts = fitted.verdicts([256])
    share = verdicts[verdicts["kind"] == "share-grows"].set_index("region")
    rises = set(verdicts.loc[verdicts["kind"] == "runtime-rises", "region"])
    assert "main->solve->MPI_Allreduce" in share.index and "main->solve->MPI_Allreduce" in rises
    assert "main->solve" not in share.index and "main->solve" not in rises and "main->io" not in rises
    # Allreduce (0.2 log2 p) overtakes io (1 s) and solve (64/p) in exclusive time near p = 32..64:
    # its predicted crossing lies in the measured decade, the interval around it
    row = share.loc["main->solve->MPI_Allreduce"]
    assert 16 <= row["n_dominates"] <= 512 and row["n_lower"] <= row["n_dominates"]
    assert "starts to dominate at n ~" in row["message"]
    frame = fitted.predict_frame([256])
    kinds = frame.set_index("region").loc["main->solve->MPI_Allreduce", "warnings"]
    assert "share-grows" in kinds and "runtime-rises" in kinds


def test_exclusive_sum_matches_total(fitted):
    check = fitted.consistency_frame([8, 32, 128])
    assert list(check.columns) == ["n", "total", "sum_exclusive", "ratio", "measured_ratio"]
    assert check["measured_ratio"].iloc[0] == pytest.approx(1.0)  # a consistent call tree
    assert check["ratio"].iloc[:2].between(0.95, 1.05).all()  # inside the measured range
    assert check["ratio"].between(0.7, 1.3).all()


@pytest.mark.parametrize("n, t, words", [
    (np.geomspace(2, 512, 30), 3 + 100 / np.geomspace(2, 512, 30), "shrinks like 1/n"),
    (np.geomspace(2, 512, 30), 1 + 0.5 * np.log2(np.geomspace(2, 512, 30)), "grows like log n"),
    (np.geomspace(2, 512, 30), 2 + 0.01 * np.geomspace(2, 512, 30), "grows like n"),
    (np.geomspace(2, 512, 30), np.full(30, 4.0), "stays flat"),
    (np.geomspace(2, 512, 30), 10 - 8 / np.sqrt(np.geomspace(2, 512, 30)), "grows and levels off"),
])
def test_growth_words(n, t, words):
    assert growth_words(n, t) == words


def test_errors_and_configurations(table):
    with pytest.raises(ValidationError, match="lacks column"):
        RegionPredictor().fit(table.drop(columns="region"))
    with pytest.raises(ValidationError, match="no metric 'flops'"):
        RegionPredictor().fit(table, metric="flops")
    with pytest.raises(ValidationError, match="'gpus' is empty"):
        RegionPredictor().fit(table, n="gpus")
    if not RELEARN.exists():
        pytest.skip("the RELeARN Extra-P file is not in the data mirror")
    relearn = read_profiles(RELEARN)
    with pytest.warns(Warning, match="5 configurations of n"):
        model = RegionPredictor(models=("amdahl", "pmnf")).fit(relearn)
    assert "several-configurations" in [w.kind for w in model.warnings_]
    chosen = RegionPredictor(models=("amdahl", "pmnf"), config={"n": 9000})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chosen.fit(relearn)
    runs = chosen.runs_
    main = runs[(runs["region"] == "main()") & (runs["n"] == 32)]["inclusive"]
    assert sorted(main) == [834.664, 835.892]  # the n = 9000 row of main() at p = 32
    assert "several-configurations" not in [w.kind for w in chosen.warnings_]
    # RELeARN's indented regions overlap: Connectivity update's children add up to more than itself
    assert chosen.measured_ratio_ > 1.5 and chosen.parts_[0] == "Initialization"
    assert isinstance(chosen.predict_frame([1024]), pd.DataFrame)


def test_extrap_text_without_metric_is_modelled_as_measured(tmp_path):
    # no METRIC line: Extra-P's "<default>" metric, kind n/a; x is the allocation column
    lines = ["PARAMETER x", "POINTS ( 2 ) ( 4 ) ( 8 ) ( 16 )", "REGION main"]
    lines += [f"DATA {100 / x + 1:.6g} {100 / x + 1.01:.6g}" for x in (2, 4, 8, 16)]
    path = tmp_path / "plain.txt"
    path.write_text("\n".join(lines) + "\n")
    table = read_profiles(path)
    assert set(table["kind"]) == {"n/a"} and set(table["metric"]) == {"<default>"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RegionPredictor(models=("amdahl", "pmnf")).fit(table, n="x")
    frame = model.predict_frame([32])
    assert frame["prediction"].iloc[0] == pytest.approx(100 / 32 + 1, rel=0.15)
    assert frame["growth"].iloc[0] == "shrinks like 1/n"


def test_each_region_also_has_extrap_s_pmnf_and_the_point_combines_both(fitted):
    # the known laws are PMNF terms: Extra-P's search finds them on the measured values
    terms = {r: (m.hypothesis_.i, m.hypothesis_.j) for r, m in fitted.pmnf_.items()}
    assert terms["main->solve->MPI_Allreduce"] == (0.0, 1.0)  # 0.2 log2 p
    assert terms["main->solve"][0] < 0  # 64/p + 0.2 log2 p: a term that decays
    n = np.array([128.0, 512.0])
    frame = fitted.region_frame("main->solve->MPI_Allreduce", n)
    alone = fitted.predictors_["main->solve->MPI_Allreduce"].predict_frame(n)
    pmnf = fitted.pmnf_["main->solve->MPI_Allreduce"].predict(n)
    # the point is the geometric mean of both; the interval is the region calibration's about it
    np.testing.assert_allclose(frame["prediction"], np.sqrt(alone["prediction"] * pmnf), rtol=1e-12)
    half = interval_half_width(n, fitted.predictors_["main->solve->MPI_Allreduce"].n_max_, 0.8)
    np.testing.assert_allclose(np.log(frame["upper"] / frame["prediction"]), half, rtol=1e-12)
    np.testing.assert_allclose(np.log(frame["prediction"] / frame["lower"]), half, rtol=1e-12)
    # the strong-scaling members level a rising region off: the combination is closer to the law
    law = 0.2 * np.log2(n)
    assert (np.abs(np.log(frame["prediction"] / law)) < np.abs(np.log(alone["prediction"] / law))).all()
    # predict_frame gives the same rows as region_frame
    rows = fitted.predict_frame(n).set_index(["region", "n"])
    np.testing.assert_allclose(rows.loc["main->solve->MPI_Allreduce", "prediction"], frame["prediction"])


def test_the_region_interval_is_the_calibrated_quantile_times_the_distance_scale(table):
    # hand-made calibration: q(0.8) = 0.25, floor 2; half-width 0.25 * (2 + sqrt(ln(n / n_fitted)))
    cal = {"shape": 2.0, "levels": [0.5, 0.8], "quantiles": [0.1, 0.25]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RegionPredictor(region_calibration=cal).fit(table)
    n_fitted = model.predictors_["main->io"].n_max_
    frame = model.region_frame("main->io", [n_fitted, 4 * n_fitted], level=0.8)
    expected = 0.25 * np.array([2.0, 2.0 + np.sqrt(np.log(4.0))])
    np.testing.assert_allclose(np.log(frame["upper"] / frame["prediction"]), expected, rtol=1e-12)
    # level 0.65: halfway between the stored levels' quantiles
    frame = model.region_frame("main->io", [n_fitted], level=0.65)
    np.testing.assert_allclose(np.log(frame["upper"] / frame["prediction"]), 0.175 * 2.0, rtol=1e-12)
    with pytest.raises(ValidationError, match="calibrated for levels in"):
        model.region_frame("main->io", [n_fitted], level=0.9)


def test_the_shipped_region_calibration_is_monotone_and_says_how_it_was_made():
    cal = shipped_region_calibration()
    assert cal["made_by"].startswith("tools/region_coverage.py")
    assert len(cal["sources"]) >= 4 and min(cal["sources"].values()) > 0
    assert np.all(np.diff(cal["levels"]) > 0) and np.all(np.diff(cal["quantiles"]) > 0)
    # wider at a larger level and further from the measurements
    assert interval_half_width([64.0], 32.0, 0.9)[0] > interval_half_width([64.0], 32.0, 0.8)[0] > \
        interval_half_width([32.0], 32.0, 0.8)[0] > 0


def test_a_region_whose_two_models_disagree_by_more_than_e_is_warned(tmp_path):
    # a region that falls like 1/p^2 inside the range: the strong-scaling members level it off,
    # Extra-P's PMNF follows 1/p^2, and far out they are apart by more than a factor e
    p = np.array([1.0, 2, 4, 8, 16])
    rows = [{"profile": f"r{i}", "region": region, "parent": parent, "depth": depth, "metric": "time",
             "kind": "inclusive", "aggregation": "max", "value": value, "unit": "s", "processes": n}
            for i, n in enumerate(p)
            for region, parent, depth, value in (("main", "", 0, 1000 / n ** 2 + 5.0),
                                                  ("main->fast", "main", 1, 1000 / n ** 2))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RegionPredictor().fit(pd.DataFrame(rows))
    frame = model.region_frame("main->fast", [16.0, 1024.0])
    alone = model.predictors_["main->fast"].predict_frame([16.0, 1024.0])["prediction"].to_numpy()
    pmnf = model.pmnf_["main->fast"].predict(np.array([16.0, 1024.0]))
    apart = np.abs(np.log(pmnf / alone)) > 1.0
    assert apart[-1] and not apart[0]
    assert frame["warned"].iloc[-1] and "trend-disagrees" in frame["warnings"].iloc[-1]
    assert "trend-disagrees" not in frame["warnings"].iloc[0]
    far = model.predict_frame([1024.0])
    assert "trend-disagrees" in far.attrs["messages"]["main->fast"]
    assert "2.7x" in far.attrs["messages"]["main->fast"]["trend-disagrees"]


def test_fit_shows_a_progress_bar_over_the_regions_when_asked(table, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        RegionPredictor(models=("amdahl",)).fit(table, progress=True)
        shown = capsys.readouterr().err
        RegionPredictor(models=("amdahl",)).fit(table)  # 4 regions: under the threshold, silent
        silent = capsys.readouterr().err
    assert "regions: 100%|" in shown and f"{len(gen.LAWS)}/{len(gen.LAWS)}" in shown
    assert "regions:" not in silent


def test_a_region_measured_from_2_on_with_a_negative_power_of_log_n_is_predicted_from_n_1():
    # region b is absent at p = 1; Extra-P's PMNF search picks 2.1 + c p^-2.5 log2(p)^-2 for it,
    # which has no value at p = 1, where the verdicts start (found on HECBioSim's GROMACS timers)
    p = np.array([1.0, 2, 4, 8, 16])
    b = [None, 2.8232, 2.1493, 2.1208, 2.1275]
    rows = [{"profile": f"r{i}", "region": region, "parent": parent, "depth": depth, "metric": "time",
             "kind": "inclusive", "aggregation": "max", "value": value, "unit": "s", "processes": n}
            for i, n in enumerate(p)
            for region, parent, depth, value in (("main", "", 0, 100 / n + 3), ("main->a", "main", 1, 100 / n),
                                                  ("main->b", "main", 1, b[i]))
            if value is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RegionPredictor().fit(pd.DataFrame(rows))
    assert model.pmnf_["main->b"].hypothesis_.j < 0
    frame = model.predict_frame([32.0, 64.0])
    assert np.isfinite(frame["prediction"]).all() and len(frame) == 6
    # at p = 1 the region's point is its ScalingPredictor's alone
    alone = model.predictors_["main->b"].predict_frame([1.0])["prediction"].iloc[0]
    assert model.region_frame("main->b", [1.0])["prediction"].iloc[0] == pytest.approx(alone)


def test_region_risk_warns_rows_whose_miss_probability_reaches_the_learnt_threshold(table):
    base = {"shape": 2.0, "levels": [0.8], "quantiles": [0.25]}
    frames = {}
    for threshold in (None, 0.0, 1.01):
        cal = base if threshold is None else {**base, "risk_threshold": threshold}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = RegionPredictor(region_calibration=cal).fit(table)
        frames[threshold] = model.region_frame("main->io", [64.0, 1024.0])
    risk = frames[None]["miss_probability"].to_numpy()
    assert np.all((risk >= 0) & (risk <= 1))
    assert frames[0.0]["warned"].all() and all("region-risk" in k for k in frames[0.0]["warnings"])
    assert not any("region-risk" in k for k in frames[1.01]["warnings"])
    np.testing.assert_array_equal(frames[1.01]["warned"], frames[None]["warned"])  # no threshold: no rule
