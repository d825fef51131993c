"""The FiM-Com panels without widgets: :func:`workbench.views.fim_com.fim_com_view` on hand-made
states (figures, readout numbers, the measured comparison, caching, bad input) and the
Fig. 6 sweeps."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.fim_com import PlacementData, placement_data
from workbench.io import fetch_dataset
from workbench.ui.common import FitCache
from workbench.views.fim_com import (
    DEFAULT_RATES,
    FiMComState,
    fim_com_view,
    fit_table_html,
    sweep_summary,
    sweep_view,
)


def _rates(**changed) -> tuple[tuple[str, float], ...]:
    return tuple({**DEFAULT_RATES, **changed}.items())


def _placement(latency_us: float = 100.0) -> PlacementData:
    """A measured broadcast curve at 64 KiB on 26, 30 and 34 cores (no station fits)."""
    curve = pd.DataFrame({"size_bytes": [65536] * 3, "cores": [26, 30, 34],
                          "latency_us": [latency_us - 10, latency_us, latency_us + 10],
                          "min_us": [5.0] * 3, "max_us": [200.0] * 3})
    return PlacementData("core", {}, curve, {"D": "per-point transfer <between sizes>"}, ("a warning & more",))


def test_default_state_simulates_the_broadcast_and_says_the_measurement_is_missing():
    state = FiMComState(replications=5)
    panels = fim_com_view(state)
    sim = panels.simulation
    assert (sim.pattern, sim.n_jobs, sim.processes, sim.phi) == ("broadcast", 3277, 29, 29.0)
    bars, mean, measured = panels.main.data
    assert float(mean.x[0]) == pytest.approx(sim.makespan.mean()) and len(measured.x) == 0
    assert np.asarray(bars.y).sum() == 5  # one count per replication
    assert panels.readout["measured (OSU)"] == "unavailable (no data mirror)"
    assert panels.readout["φ used"] == "29 (pattern default)"
    assert panels.readout["model makespan"].startswith(f"{sim.makespan.mean():.4g} ± ")
    assert "3277 points" in panels.readout["per data point"] and panels.measured_row is None
    assert len(panels.cdf.data) > 0 and "redraw" not in panels.readout  # the dashboard adds its timing


def test_psi_scales_the_makespans():
    slow = fim_com_view(FiMComState(replications=5, rates=_rates(psi=0.004))).simulation.makespan.mean()
    fast = fim_com_view(FiMComState(replications=5)).simulation.makespan.mean()
    assert slow > fast


def test_scatter_uses_phi_one_and_has_no_measurement():
    panels = fim_com_view(FiMComState(pattern="scatter", replications=3, placement=_placement()))
    assert panels.simulation.phi == 1.0 and panels.measured_row is None
    assert panels.readout["measured (OSU)"] == "broadcast only: no measured scatter/gather in osu-orfeo"
    chosen = fim_com_view(FiMComState(pattern="scatter", replications=3, phi=10.0))
    assert chosen.simulation.phi == 10.0 and chosen.readout["φ used"] == "10"


def test_the_measured_row_nearest_the_core_count_is_compared():
    panels = fim_com_view(FiMComState(replications=5, processes=31, placement=_placement(100.0)))  # 32 cores: 30 (tie)
    assert int(panels.measured_row["cores"]) == 30
    label = "measured OSU bcast (core, 30 cores, nearest measured to 32, basic linear)"
    assert panels.readout[label].startswith("100 µs (ranks 5 … 200)")
    error = (panels.simulation.makespan.mean() - 100.0) / 100.0 * 100
    assert panels.readout["model vs measured"] == f"{error:+.1f} %"
    assert float(panels.main.data[2].x[0]) == 100.0  # the measured line on the main figure


def test_a_cache_reuses_the_simulation():
    cache, state = FitCache(4), FiMComState(replications=3)
    first = fim_com_view(state, cache).simulation
    assert fim_com_view(replace(state, per_point=False), cache).simulation is first
    assert fim_com_view(replace(state, seed=1), cache).simulation is not first


def test_zeta_min_above_zeta_max_is_a_clear_error():
    with pytest.raises(ValidationError, match="must not exceed zeta_max"):
        fim_com_view(FiMComState(rates=_rates(zeta_min=2000.0)))


def test_fit_table_without_and_with_a_placement():
    assert "No station fits" in fit_table_html(None)
    table = fit_table_html(_placement())
    assert "placement core" in table and "<between sizes>" not in table  # provenance texts are escaped
    assert "per-point transfer &lt;between sizes&gt;" in table and "a warning &amp; more" in table


def test_states_compare_by_controls_not_by_data():
    a = FiMComState(placement=_placement(100.0))
    assert a == FiMComState(placement=_placement(200.0)) and a != replace(a, mapping="node")


def test_sweeps_add_the_current_processes_and_follow_the_rates():
    state = FiMComState(pattern="scatter", processes=7, replications=3)
    summaries = {vary: sweep_summary(state, vary) for vary in ("n_jobs", "processes")}
    assert 7 in set(summaries["processes"]["processes"]) and 63 in set(summaries["processes"]["processes"])
    assert summaries["n_jobs"]["n_jobs"].max() == 52429 and set(summaries["n_jobs"]["processes"]) == {7}
    panels = sweep_view(state, summaries)
    assert len(panels.vs_n.data) > 0 and 7 in panels.vs_p.data[2].x
    slower = sweep_summary(replace(state, rates=_rates(psi=0.01)), "processes")
    assert np.all(slower["mean"].to_numpy() > summaries["processes"]["mean"].to_numpy())
    with pytest.raises(ValidationError, match="vary"):
        sweep_summary(state, "replications")


def test_with_the_measured_osu_data(data_mirror):
    osu = fetch_dataset("osu-orfeo", mirror=data_mirror).frame
    placement = placement_data(osu, "core")
    panels = fim_com_view(FiMComState(replications=5, placement=placement, rates=_rates()))
    assert int(panels.measured_row["cores"]) == 30 and "model vs measured" in panels.readout
    assert "χ² p = " in panels.cdf.layout.annotations[3].text
    table = fit_table_html(placement)
    assert "placement core" in table and "how the samples were derived" in table
    with pytest.raises(ValidationError, match="placement"):
        placement_data(osu, "rack")
