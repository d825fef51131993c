"""FiMCom, the estimator around FiM-Com's queueing network ([Bhimani2019] section 3).

It must give exactly what the functions it wraps give (station fits, then the simulation),
on hand-made samples and on the OSU broadcast latencies of ORFEO, and refuse bad input in
the project's words.
"""

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError, WorkbenchWarning
from workbench.evaluation.fim_com import compare_with_osu, fit_stations, osu_collective_curve, osu_station_samples
from workbench.io import fetch_dataset
from workbench.models.fim import FiMCom, ServiceRates, fit_station, rates_from_fits, simulate_collective

RATES = dict(zeta_min=1.0, zeta_max=2.0, metadata_coef=0.1, eta=1.0, psi=0.5)


def samples(size=400, seed=1):
    rng = np.random.default_rng(seed)
    loads = rng.integers(1, 20, size).astype(float)
    return {"D": 1 / rng.uniform(1.0, 2.0, size), "M": 0.1 * (1 + np.log(loads)),
            "C": rng.exponential(1.0, size), "R": rng.exponential(0.5, size)}, loads


def test_given_rates_predict_the_mean_makespan_of_the_simulation():
    model = FiMCom("gather", rates=RATES, replications=3, seed=7).fit()
    assert model.rates_ == ServiceRates(**RATES) and model.station_fits_ == {} and model.warnings_ == []
    expected = [simulate_collective("gather", n, p, seed=7, replications=3, sample_limit=0, **RATES).makespan.mean()
                for n, p in [(100, 4), (300, 8)]]
    np.testing.assert_array_equal(model.predict([[100, 4], [300, 8]]), expected)
    frame = pd.DataFrame({"processes": [4, 8], "n_jobs": [100, 300], "other": ["a", "b"]})
    np.testing.assert_array_equal(model.predict(frame), expected)
    sim = model.simulate(100, 4)
    assert sim.pattern == "gather" and sim.makespan.size == 3 and sim.makespan.mean() == expected[0]


def test_fitted_stations_are_the_paper_families_fitted_one_by_one():
    times, loads = samples()
    model = FiMCom(replications=2).fit(times, loads)
    for station, family in {"D": "uniform_rate", "M": "log", "C": "exponential", "R": "exponential"}.items():
        alone = fit_station(times[station], family, station=station, loads=loads if family == "log" else None)
        assert model.station_fits_[station].params == alone.params
    assert model.rates_ == ServiceRates(**rates_from_fits(model.station_fits_))


def test_a_rejected_station_family_is_a_model_warning_emitted_by_fit():
    times, loads = samples()
    times["C"] = np.random.default_rng(2).uniform(2.0, 3.0, times["C"].size)  # a floor, not exponential
    with pytest.warns(WorkbenchWarning, match="station C: the exponential family is rejected"):
        model = FiMCom().fit(times, loads)
    rejected = [w for w in model.warnings_ if w.kind == "station-fit-rejected"]
    by_station = {w.message.split(":")[0]: w for w in rejected}
    assert "station C" in by_station and by_station["station C"].details["p_value"] < 1e-6
    assert "station R" not in by_station  # drawn from the exponential it is fitted with


@pytest.mark.parametrize("call, message", [
    (lambda: FiMCom().fit(), "give either measured station samples to fit or rates= in the model, not neither"),
    (lambda: FiMCom(rates=RATES).fit(*samples()), "not both"),
    (lambda: FiMCom("alltoall", rates=RATES).fit(), "unknown collective pattern 'alltoall'"),
    (lambda: FiMCom(rates={**RATES, "mu": 1}).fit(), "unknown mu"),
    (lambda: FiMCom(rates={"eta": 1}).fit(), "missing zeta_min, zeta_max, metadata_coef, psi"),
    (lambda: FiMCom().fit({"D": [1.0, 2.0]}), r"station\(s\) M, C, R are missing"),
    (lambda: FiMCom(rates=RATES).fit().predict([100, 4]), r"rows of \(n_jobs, processes\), got shape \(2,\)"),
    (lambda: FiMCom(rates=RATES).fit().predict(pd.DataFrame({"n_jobs": [1]})), "lacks column"),
    (lambda: FiMCom(rates=RATES).fit().predict([[0, 4]]), "n_jobs must be >= 1"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises(ValidationError, match=message):
        call()


def test_on_the_osu_broadcasts_it_predicts_what_the_evaluation_predicts(data_mirror):
    osu = fetch_dataset("osu-orfeo", mirror=data_mirror).frame
    station_samples = osu_station_samples(osu, mapping="node")
    curve = osu_collective_curve(osu, mapping="node", algorithm=1)
    some = curve[(curve["cores"] == 4) & curve["size_bytes"].isin([1, 65536, 1048576])]
    with pytest.warns(WorkbenchWarning):  # the paper's exponential C and R are rejected on real latencies
        model = FiMCom("broadcast", replications=2).fit(station_samples)
    expected = compare_with_osu(some, rates_from_fits(fit_stations(station_samples)), replications=2)
    np.testing.assert_array_equal(model.predict(some), expected["predicted_us"].to_numpy())
    assert {"station-fit-rejected"} <= {w.kind for w in model.warnings_}
