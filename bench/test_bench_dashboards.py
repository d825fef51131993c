"""pytest-benchmark: how long a dashboard takes to answer a moved control, beside the model alone.

    python -m pytest bench/test_bench_dashboards.py --benchmark-only --benchmark-group-by=group

Goal: a slider move redraws the dashboard's main figure within 1 s (the user must see the
effect of a slider while dragging it).  Each group times one control of one dashboard (its
``last_update_s`` readout says the same on screen) and, as the baseline in the same run, the
model computation that move triggers, with no widgets or figures: the rest is the cost of
the dashboard itself.  Timings are reported, not asserted (``extra_info["goal_s"]``).
Data: the bundled SYNTHETIC K-means runs for FiM-Cal, the OSU latencies of ORFEO or the
project's own sweeps for the communication dashboards (whatever the dashboard opens on).
"""

from __future__ import annotations

import itertools

import pytest

from workbench.io.kmeans_runs import synthetic_kmeans_runs
from workbench.models.comm.regression import CommRegression
from workbench.models.comm.semi_empirical import ExchangeModel
from workbench.models.fim import FiMCal, FiMCom
from workbench.ui.comm_ml_dashboard import CommMLDashboard
from workbench.ui.comm_regression_dashboard import comm_regression_dashboard
from workbench.ui.fim_com_dashboard import FiMComDashboard
from workbench.ui.fim_dashboard import FiMDashboard

GOAL_S = 1.0


def move(control, values):
    """A function that sets ``control`` to the next of ``values`` (so every call is a change)."""
    cycle = itertools.cycle(values)
    return lambda: setattr(control, "value", next(cycle))


@pytest.mark.benchmark(group="FiM-Cal dashboard: alpha slider")
def test_fim_dashboard_alpha(benchmark):
    dash = FiMDashboard(runs=synthetic_kmeans_runs())
    benchmark.extra_info["goal_s"] = GOAL_S
    benchmark(move(dash.alpha, (0.95, 0.9)))


@pytest.mark.benchmark(group="FiM-Cal dashboard: alpha slider")
def test_fim_model_alone(benchmark):
    runs = synthetic_kmeans_runs()
    train = runs[runs["role"] == "train"] if "role" in runs else runs
    benchmark(lambda: FiMCal().fit(train))


@pytest.mark.benchmark(group="FiM-Com dashboard: psi slider")
def test_fim_com_dashboard_psi(benchmark):
    dash = FiMComDashboard(replications=5)
    benchmark.extra_info["goal_s"] = GOAL_S
    benchmark(move(dash.psi, (0.004, 0.003)))


@pytest.mark.benchmark(group="FiM-Com dashboard: psi slider")
def test_fim_com_model_alone(benchmark):
    dash = FiMComDashboard(replications=5)
    sim = dash.simulation
    rates = {name: getattr(sim.rates, name) for name in ("zeta_min", "zeta_max", "metadata_coef", "eta", "psi")}
    model = FiMCom(sim.pattern, rates=rates, replications=5).fit()
    benchmark(lambda: model.simulate(sim.n_jobs, sim.processes))


@pytest.mark.benchmark(group="communication regression dashboard: NT threshold")
def test_comm_regression_dashboard_threshold(benchmark):
    dash = comm_regression_dashboard()
    benchmark.extra_info["goal_s"] = GOAL_S
    value = dash.nt_threshold.value
    benchmark(move(dash.nt_threshold, (value * 2**0.25, value)))


@pytest.mark.benchmark(group="communication regression dashboard: NT threshold")
def test_comm_regression_model_alone(benchmark):
    dash = comm_regression_dashboard()
    model = CommRegression(split=dash.split())
    benchmark(lambda: model.fit(dash.data))


@pytest.mark.benchmark(group="communication ML dashboard: size factor")
def test_comm_ml_dashboard_size_factor(benchmark):
    dash = CommMLDashboard()
    benchmark.extra_info["goal_s"] = GOAL_S
    benchmark(move(dash.size_factor, (0.5, 0.4)))


@pytest.mark.benchmark(group="communication ML dashboard: size factor")
def test_comm_ml_model_alone(benchmark):
    base_us, size_factor = CommMLDashboard().semi_parameters()
    model = ExchangeModel(base_us=base_us, size_factor=size_factor).fit()
    benchmark(lambda: model.predict([1, 2, 4, 8], [4096, 65536, 262144, 1048576]))
