"""FiM-Com against the OSU broadcast latencies of ORFEO: mapping, station samples, fits,
and the model's prediction of measured latencies."""

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.fim_com import (
    compare_with_osu,
    extrap_spread,
    fit_stations,
    osu_collective_curve,
    osu_station_samples,
    relative_spread,
    summarize_sweep,
    sweep_collective,
)
from workbench.io import fetch_dataset
from workbench.models.fim import rates_from_fits, simulate_collective


@pytest.fixture(scope="module")
def osu(request):
    mirror = request.getfixturevalue("data_mirror")
    return fetch_dataset("osu-orfeo", mirror=mirror).frame


@pytest.fixture(scope="module")
def node_rates(osu):
    return rates_from_fits(fit_stations(osu_station_samples(osu, mapping="node")))


def test_curve_maps_sizes_to_points_and_cores_to_receivers(osu, data_mirror):
    curve = osu_collective_curve(osu, mapping="node", algorithm=1)
    assert set(curve["size_bytes"]) == {2**k for k in range(21)}
    np.testing.assert_array_equal(curve["n_jobs"], np.maximum(1, np.ceil(curve["size_bytes"] / 20)))
    np.testing.assert_array_equal(curve["processes"], curve["cores"] - 1)
    # hand-checked against the raw file: duplicate runs of a configuration are averaged
    raw = pd.read_csv(data_mirror / "osu-orfeo" / "bcast_node.csv")
    cores = int(np.sort(curve["cores"].unique())[10])
    rows = raw[(raw["algorithm"] == 1) & (raw["cores"] == cores) & (raw["size"] == 1048576)]
    got = curve[(curve["cores"] == cores) & (curve["size_bytes"] == 1048576)]
    assert got["latency_us"].item() == pytest.approx(rows["latency"].mean())


def test_station_samples_are_positive_and_plausible(osu):
    samples = osu_station_samples(osu, mapping="node")
    assert set(samples.samples) == {"D", "M", "C", "R"}
    for station, values in samples.samples.items():
        assert values.size >= 2 and np.all(values > 0), station
    assert samples.loads.size == samples.samples["M"].size and samples.loads.min() >= 2
    # 20-byte points at 10-16 GB/s (the node interconnect): 500-800 points per µs
    rates = 1 / samples.samples["D"]
    assert 500 < rates.min() and rates.max() < 800
    assert set(samples.provenance) == {"D", "M", "C", "R"}


def test_fits_report_p_values_or_why_not(osu):
    fits = fit_stations(osu_station_samples(osu, mapping="node"))
    for fit in fits.values():
        assert (0 <= fit.p_value <= 1) or (np.isnan(fit.p_value) and fit.warnings)
    # the start-up latency is no pure exponential (a floor near 1 µs): rejected
    assert fits["C"].p_value < 0.01


def test_calibrated_model_predicts_large_broadcasts(osu, node_rates):
    """Fitted on station samples, the model meets the measured linear broadcast of
    1 MiB within 10 % at 2 and 254 cores (it does not at 1 byte, see the next test)."""
    curve = osu_collective_curve(osu, mapping="node", algorithm=1)
    for cores in (2, 254):
        row = curve[(curve["cores"] == cores) & (curve["size_bytes"] == 1048576)].iloc[0]
        sim = simulate_collective("broadcast", int(row.n_jobs), int(row.processes), replications=3, **node_rates)
        assert sim.makespan.mean() == pytest.approx(row.latency_us, rel=0.10)


def test_small_broadcasts_to_many_cores_are_underestimated(osu, node_rates):
    # a known limitation: per-message start-up per receiver is not in the per-point model
    curve = osu_collective_curve(osu, mapping="node", algorithm=1)
    row = curve[(curve["cores"] == 254) & (curve["size_bytes"] == 1)].iloc[0]
    sim = simulate_collective("broadcast", 1, int(row.processes), replications=20, **node_rates)
    assert sim.makespan.mean() < 0.2 * row.latency_us


def test_bad_selections_are_named(osu):
    with pytest.raises(ValidationError, match="no 'bcast' rows with mapping 'rack'"):
        osu_collective_curve(osu, mapping="rack")
    with pytest.raises(ValidationError, match="algorithm 9"):
        osu_collective_curve(osu, mapping="node", algorithm=9)
    with pytest.raises(ValidationError, match="missing column"):
        osu_collective_curve(osu.drop(columns="latency_us"))
    with pytest.raises(ValidationError, match="point_bytes"):
        osu_collective_curve(osu, point_bytes=0)


def test_sweep_is_tidy_and_grows_with_size():
    rates = dict(zeta_min=0.9, zeta_max=1.0, metadata_coef=0.01, eta=1.0, psi=0.05)
    sweep = sweep_collective("scatter", vary="n_jobs", values=[10, 100, 1000], n_jobs=1, processes=4,
                             replications=3, **rates)
    assert list(sweep.columns) == ["pattern", "n_jobs", "processes", "replication", "makespan", "per_job"]
    assert len(sweep) == 9
    summary = summarize_sweep(sweep)
    assert summary["mean"].is_monotonic_increasing
    assert (summary["min"] <= summary["mean"]).all() and (summary["mean"] <= summary["max"]).all()
    with pytest.raises(ValidationError, match="vary must be"):
        sweep_collective("scatter", vary="size", values=[1], n_jobs=1, processes=1, **rates)


def test_relative_spread_hand_computed():
    spread = relative_spread([1.0, 2.0, 3.0, 4.0, 5.0])
    assert spread["rel_iqr"] == pytest.approx((4 - 2) / 3)
    assert spread["cv"] == pytest.approx(np.std([1, 2, 3, 4, 5], ddof=1) / 3)
    with pytest.raises(ValidationError, match="at least 2 replications"):
        relative_spread([1.0])


def test_extrap_spread_on_the_real_statistics(data_mirror):
    extrap = fetch_dataset("extrap-mpi", mirror=data_mirror).frame
    bcast = extrap_spread(extrap, "MPI_Bcast")
    assert len(bcast) == 10 and set(bcast["library"]) == {"IntelMPI", "OpenMPI"}
    row = bcast[(bcast["library"] == "IntelMPI") & (bcast["ranks"] == 32)].iloc[0]
    assert row["median_us"] == pytest.approx(9.12175)
    assert 0.3 < row["rel_iqr"] < 0.4
    with pytest.raises(ValidationError, match="no rows for 'MPI_Scan'"):
        extrap_spread(extrap, "MPI_Scan")


def test_compare_with_osu_adds_prediction_and_signed_error(osu, node_rates):
    curve = osu_collective_curve(osu, mapping="node", algorithm=1)
    some = curve[(curve["cores"] == 2) & curve["size_bytes"].isin([1, 1048576])]
    cmp = compare_with_osu(some, node_rates, replications=2)
    assert list(cmp.columns) == [*curve.columns, "predicted_us", "error_pct"]
    np.testing.assert_allclose(cmp["error_pct"], 100 * (cmp["predicted_us"] / cmp["latency_us"] - 1))
    large = cmp[cmp["size_bytes"] == 1048576].iloc[0]
    assert abs(large["error_pct"]) < 10
