"""Figures of FiM-Com (workbench.plots.fim_com): the data in the traces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.models.fim.queueing import simulate_collective
from workbench.models.fim.service_fit import fit_station
from workbench.plots.fim_com import (
    EAGER_POINTS,
    ecdf,
    makespan_figure,
    station_cdf_figure,
    station_fit_frame,
    sweep_figure,
)

RATES = dict(zeta_min=584.0, zeta_max=676.0, metadata_coef=5.7e-5, eta=0.98, psi=0.001)


@pytest.fixture(scope="module")
def sim():
    return simulate_collective("broadcast", 500, 7, replications=12, seed=3, **RATES)


@pytest.fixture(scope="module")
def fits():
    rng = np.random.default_rng(0)
    return {
        "D": fit_station(1 / rng.uniform(584, 676, 20), "uniform_rate", station="D"),  # too few for chi-square
        "M": fit_station(5e-5 * np.log(np.arange(2, 202)), "log", station="M", loads=np.arange(2, 202)),
        "C": fit_station(rng.exponential(0.98, 300), "exponential", station="C"),
        "R": fit_station(rng.exponential(0.001, 300), "exponential", station="R"),
    }


def _named(fig, prefix):
    matches = [tr for tr in fig.data if (tr.name or "").startswith(prefix)]
    assert matches, f"no trace named {prefix!r}*: {[tr.name for tr in fig.data]}"
    return matches[0]


def test_ecdf_is_the_step_function_of_the_sorted_values():
    x, y = ecdf([3.0, 1.0, 2.0, np.nan])
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(y, [1 / 3, 2 / 3, 1.0])
    x, y = ecdf(np.arange(10_000.0), max_points=101)
    assert x.size == 101 and x[0] == 0 and x[-1] == 9999 and y[-1] == 1.0  # thinned, ends kept
    np.testing.assert_allclose(y, (x + 1) / 10_000)


def test_makespan_figure_histogram_mean_and_measured_line(sim):
    fig = makespan_figure(sim, measured_us=10.0)
    bars, mean, measured = fig.data
    assert bars.type == "bar" and int(np.sum(bars.y)) == sim.replications
    assert np.all(np.asarray(bars.x) - np.asarray(bars.width) / 2 <= sim.makespan.max())
    assert list(mean.x) == [pytest.approx(sim.makespan.mean())] * 2
    assert list(measured.x) == [10.0, 10.0]
    s = sim.summary()
    title = fig.layout.title.text
    assert f"{s['mean']:.4g} ± {s['std']:.2g} µs" in title
    assert f"{s['mean'] / 500:.3g} µs per point" in title
    assert f"{(s['mean'] - 10) / 10 * 100:+.1f} %" in title
    lo, hi = fig.layout.xaxis.range  # measured line and every bar inside the axis
    assert lo < 10.0 and hi > sim.makespan.max()


def test_makespan_figure_without_measurement_keeps_an_empty_trace(sim):
    fig = makespan_figure(sim)
    assert len(fig.data) == 3 and len(fig.data[2].x) == 0
    assert "measured" not in fig.layout.title.text


def test_station_cdf_figure_measured_fitted_simulated_per_station(fits, sim):
    fig = station_cdf_figure(fits, sim)
    assert len(fig.data) == 12  # 4 stations x (measured, simulated, fitted)
    names = [tr.name for tr in fig.data[:3]]
    assert names == ["measured (OSU-derived)", "simulated (current parameters)", "fitted model"]
    # station C (third subplot): measured ECDF is the sorted samples
    measured_c = fig.data[6]
    np.testing.assert_allclose(measured_c.x, fits["C"].samples)
    # the fitted line is the fit's CDF
    fitted_r = fig.data[11]
    np.testing.assert_allclose(fitted_r.y, fits["R"].cdf(np.asarray(fitted_r.x)))
    # simulated R is one fetch: the draws divided by phi (= 7 receivers for broadcast)
    simulated_r = fig.data[10]
    expected = np.sort(sim.samples["R"] / 7)
    np.testing.assert_allclose(simulated_r.x, ecdf(expected)[0])


def test_station_cdf_titles_carry_family_parameters_and_p_values(fits):
    fig = station_cdf_figure(fits)
    titles = [a.text for a in fig.layout.annotations][:4]
    assert "uniform_rate(ζmin=" in titles[0] and "χ² p = n/a (too few samples" in titles[0]
    for text, station in zip(titles[1:], "MCR"):
        assert f"χ² p = {fits[station].p_value:.3g}" in text
    assert f"exponential(mean={fits['C'].samples.mean():.3g})" in titles[2]
    # without a simulation the simulated traces are present but empty
    assert all(len(fig.data[k].x) == 0 for k in (1, 4, 7, 10))


def test_station_cdf_axes_log_only_where_samples_span_decades(fits, sim):
    fig = station_cdf_figure(fits, sim)
    assert fig.layout.xaxis.type == "linear"  # D: 1/rate within 584..676
    assert fig.layout.xaxis3.type == "log" and fig.layout.xaxis4.type == "log"  # exponential C, R


def test_station_cdf_without_fits_shows_only_the_simulation(sim):
    fig = station_cdf_figure(None, sim)
    assert all("no measured samples" in a.text for a in fig.layout.annotations[:4])
    assert all(len(fig.data[k].x) == 0 for k in (0, 2, 3, 5, 6, 8, 9, 11))
    assert len(fig.data[1].x) > 0


def test_station_fit_frame(fits):
    table = station_fit_frame(fits)
    assert list(table["station"]) == ["D", "M", "C", "R"]
    assert np.isnan(table.loc[0, "p_value"]) and "too few samples" in table.loc[0, "note"]
    assert table.loc[2, "p_value"] == pytest.approx(fits["C"].p_value)
    assert table.loc[2, "parameters"].startswith("mean=")


def _summary(pattern="broadcast", vary="n_jobs"):
    values = [1, 100, 3277, 10_000]
    frame = pd.DataFrame({"pattern": pattern, "n_jobs": values if vary == "n_jobs" else 3277,
                          "processes": 4 if vary == "n_jobs" else values})
    frame["mean"] = [2.0, 10.0, 100.0, 300.0]
    frame["min"] = frame["mean"] * 0.9
    frame["max"] = frame["mean"] * 1.2
    return frame


def test_sweep_figure_vs_n_has_the_band_measured_curve_and_eager_limit():
    summary = _summary()
    measured = pd.DataFrame({"n_jobs": [1, 3277], "processes": [4, 4], "size_bytes": [1, 65536],
                             "latency_us": [3.0, 150.0]})
    fig = sweep_figure(summary, "n_jobs", measured)
    lower, band, mean, meas, eager = fig.data
    assert band.fill == "tonexty" and lower.fill is None
    np.testing.assert_allclose(lower.y, summary["min"])
    np.testing.assert_allclose(band.y, summary["max"])
    np.testing.assert_allclose(mean.y, summary["mean"])
    np.testing.assert_allclose(mean.customdata, summary["n_jobs"] * 20)  # bytes in the hover
    np.testing.assert_allclose(meas.y, [3.0, 150.0])
    assert list(eager.x) == [EAGER_POINTS, EAGER_POINTS] == [3277, 3277]
    assert fig.layout.xaxis.type == "log"


def test_sweep_figure_per_point_and_scatter_eager_limit_per_receiver():
    fig = sweep_figure(_summary("scatter"), "n_jobs", per_job=True)
    np.testing.assert_allclose(fig.data[2].y, np.array([2.0, 10.0, 100.0, 300.0]) / [1, 100, 3277, 10_000])
    assert len(fig.data[3].x) == 0  # no measured curve
    assert list(fig.data[4].x) == [3277 * 4] * 2  # each of p = 4 receivers gets 64 KiB


def test_sweep_figure_vs_processes_has_no_eager_line():
    fig = sweep_figure(_summary(vary="processes"), "processes")
    assert len(fig.data) == 4 and fig.layout.xaxis.type is None
    np.testing.assert_allclose(fig.data[2].x, [1, 100, 3277, 10_000])
    with pytest.raises(ValidationError, match="vary"):
        sweep_figure(_summary(), "size")
