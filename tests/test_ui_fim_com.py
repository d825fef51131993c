"""Headless tests of the FiM-Com dashboard: construct it, move its controls, check that the
figures and readouts change, and that bad input lands in the visible panel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.fim_com import fit_stations, osu_station_samples
from workbench.io import fetch_dataset
from workbench.io.catalogue import MIRROR_ENV
from workbench.models.fim.service_fit import rates_from_fits
from workbench.ui.common import ERROR_CLASS, MAIN_FIGURE_CLASS, PRIMARY_SLIDER_CLASS
from workbench.ui.fim_com_dashboard import (
    DEFAULT_RATES,
    FiMComDashboard,
    measured_at,
    size_label,
)

RATE_NAMES = ("zeta_min", "zeta_max", "metadata_coef", "eta", "psi")


@pytest.fixture
def no_mirror(monkeypatch, tmp_path):
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "missing"))


@pytest.fixture
def dash(no_mirror):
    return FiMComDashboard(replications=5)


@pytest.fixture(scope="module")
def osu(data_mirror):
    return fetch_dataset("osu-orfeo", mirror=data_mirror).frame


def _error(panel) -> str:
    return panel.value if f'class="{ERROR_CLASS}"' in panel.value else ""


def _main(d):
    bars, mean, _ = d.figure.data
    return np.asarray(bars.x, dtype=float), float(mean.x[0])


def test_size_label_and_points():
    assert size_label(65536) == "64 KiB = 3277 points"
    assert size_label(1) == "1 B = 1 point"
    assert size_label(2**20) == "1 MiB = 52429 points"


def test_measured_at_picks_the_nearest_core_count_smaller_on_a_tie():
    curve = pd.DataFrame({"size_bytes": [8, 8, 8, 16], "cores": [62, 66, 70, 64], "latency_us": [1.0, 2.0, 3.0, 4.0]})
    assert measured_at(curve, 8, 63)["cores"] == 62  # 64 cores: 62 and 66 are both 2 away
    assert measured_at(curve, 8, 68)["cores"] == 70  # 69 cores
    assert measured_at(curve, 16, 63)["latency_us"] == 4.0
    assert measured_at(curve, 32, 63) is None and measured_at(None, 8, 3) is None


def test_without_the_mirror_it_runs_with_the_default_rates(dash):
    assert "unavailable" in dash.notice.value and "wb-warning" in dash.notice.value
    assert not _error(dash.messages), dash.messages.value
    assert {k: dash.parameters()[k] for k in RATE_NAMES} == DEFAULT_RATES
    assert dash.mapping.disabled and "No station fits" in dash.fit_table.value
    assert dash.figure.figure.layout.title.text.startswith("broadcast of 3277 points, 63 receivers")
    assert "unavailable (no data mirror)" in dash.readout.value
    dash.psi.value = 0.002
    dash.reset.click()  # back to the defaults
    assert dash.parameters()["psi"] == DEFAULT_RATES["psi"]


def test_dashboard_follows_the_convention(dash):
    assert PRIMARY_SLIDER_CLASS in dash.psi._dom_classes and MAIN_FIGURE_CLASS in dash.figure._dom_classes
    assert all(PRIMARY_SLIDER_CLASS not in getattr(dash, n)._dom_classes for n in RATE_NAMES if n != "psi")
    assert all(not c.continuous_update for c in (dash.size, dash.processes, dash.replications, dash.phi,
                                                 *(getattr(dash, n) for n in RATE_NAMES)))


def test_changing_psi_redraws_the_main_figure_and_the_r_cdf(dash):
    bars, mean = _main(dash)
    r_sim = np.asarray(dash.cdf.data[10].x, dtype=float)  # station R, simulated
    dash.psi.value = 0.004
    assert dash.simulation.rates.psi == 0.004
    new_bars, new_mean = _main(dash)
    assert new_mean > mean and not np.array_equal(bars, new_bars)
    assert new_mean == pytest.approx(dash.simulation.makespan.mean())
    # the simulated R draws are one fetch each (divided by phi): mean ~ psi
    new_r = np.asarray(dash.cdf.data[10].x, dtype=float)
    assert np.median(new_r) / np.median(r_sim) == pytest.approx(4.0, rel=0.1)
    assert dash.last_main_s < 1.0  # ~0.07 s on the 2-core reference machine
    assert f"{dash.simulation.makespan.mean():.4g} µs" in dash.readout.value


def test_zeta_min_above_zeta_max_shows_an_error_and_keeps_the_figure(dash):
    before = _main(dash)
    dash.zeta_min.value = 2000.0  # zeta_max is 676
    message = _error(dash.messages)
    assert "zeta_min" in message and "must not exceed zeta_max" in message
    after = _main(dash)
    np.testing.assert_array_equal(before[0], after[0])
    dash.zeta_max.value = 3000.0  # valid again: the error clears and the figure follows
    assert not _error(dash.messages)
    assert _main(dash)[1] < before[1]  # faster transfer, shorter makespan


def test_phi_follows_the_pattern_unless_set(dash):
    assert dash.phi.value == 63 and dash.phi.disabled and dash.simulation.phi == 63
    dash.pattern.value = "scatter"
    assert dash.phi.value == 1 and dash.simulation.phi == 1
    assert "broadcast only" in dash.readout.value
    dash.phi_default.value = False
    assert not dash.phi.disabled
    dash.phi.value = 10.0
    assert dash.simulation.phi == 10.0


def test_size_and_processes_set_the_model_size(dash):
    dash.size.value = 1024
    dash.processes.value = 7
    assert (dash.simulation.n_jobs, dash.simulation.processes) == (52, 7)
    assert dash.figure.figure.layout.title.text.startswith("broadcast of 52 points, 7 receivers")


def test_bad_constructor_arguments_are_validation_errors(no_mirror):
    with pytest.raises(ValidationError, match="pattern"):
        FiMComDashboard(pattern="allreduce")
    with pytest.raises(ValidationError, match="OSU sizes"):
        FiMComDashboard(size_bytes=1000)


def test_sweeps_run_in_the_background(no_mirror):
    d = FiMComDashboard(pattern="scatter", replications=2)
    d.wait_for_sweeps()
    assert set(d.figures) == {"vs_n", "vs_p"} and not _error(d.sweep_messages)
    assert "application/vnd.plotly.v1+json" in d.vs_n_out.outputs[0]["data"]
    mean = np.asarray(d.figures["vs_p"].data[2].y, dtype=float)
    assert 63 in d.figures["vs_p"].data[2].x and "sweeps: 3 replications" in d.sweep_status.value
    d.psi.value = 0.01  # slower receivers: every point of the sweep goes up
    d.wait_for_sweeps()
    assert np.all(np.asarray(d.figures["vs_p"].data[2].y, dtype=float) > mean)


# ------------------------------------------------------------------ real data


def test_initial_rates_are_the_node_fits_and_the_measured_side_is_shown(osu):
    d = FiMComDashboard(osu=osu, replications=5)
    assert d.notice.value == "" and not _error(d.messages)
    fitted = rates_from_fits(fit_stations(osu_station_samples(osu, mapping="node")))
    for name in RATE_NAMES:
        assert d.parameters()[name] == pytest.approx(fitted[name], rel=1e-3)
        # the defaults used without the mirror are these fits, rounded
        assert DEFAULT_RATES[name] == pytest.approx(fitted[name], rel=0.03), name
    # node placement was measured on 2, 6, ..., 62, 66 cores: 64 cores -> the nearest, 62
    assert "node, 62 cores, nearest measured to 64" in d.readout.value
    assert d.figure.data[2].x[0] == pytest.approx(float(d.measured_row["latency_us"]))
    assert "χ² p = " in d.cdf.figure.layout.annotations[3].text and "station" in d.fit_table.value


def test_placement_loads_its_fits_and_reset_puts_them_back(osu):
    d = FiMComDashboard(osu=osu, replications=5)
    d.mapping.value = "core"
    core = rates_from_fits(fit_stations(osu_station_samples(osu, mapping="core")))
    assert d.parameters()["psi"] == pytest.approx(core["psi"], rel=1e-3)
    assert "core, 64 cores, basic linear" in d.readout.value  # core placement: every core count measured
    d.psi.value = 0.01
    d.eta.value = 50.0
    d.reset.click()
    assert d.parameters()["psi"] == pytest.approx(core["psi"], rel=1e-3)
    assert d.parameters()["eta"] == pytest.approx(core["eta"], rel=1e-3)
    assert not _error(d.messages)
