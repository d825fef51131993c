"""The region dashboard without a browser: panels follow the target and the region, uploads of
generated profiles load, a bad upload is a message; the figures and the table show the data."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from workbench.models.regions import RegionPredictor
from workbench.plots.regions import region_fit_figure, stacked_regions_figure
from workbench.ui.regions_dashboard import RegionsDashboard
from workbench.views.regions import region_view, synthetic_regions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "data" / "profiles"))
import make_profiles as gen  # noqa: E402


@pytest.fixture(scope="module")
def dashboard():
    return RegionsDashboard(source="synthetic")


def test_panels_follow_the_target_and_the_region(dashboard):
    assert dashboard.messages.value == ""
    assert "starts to dominate at n ~" in dashboard.verdicts.value
    assert dashboard.region.value == "main->io"  # the first region whose share grows
    main, fit = dashboard.main.revision, dashboard.fit_panel.revision
    table = dashboard.table.value
    dashboard.target.value = 512
    assert dashboard.main.revision > main and dashboard.fit_panel.revision > fit
    assert "Regions at n = 512" in dashboard.table.value and dashboard.table.value != table
    fit = dashboard.fit_panel.revision
    dashboard.region.value = "main->solve"
    assert dashboard.fit_panel.revision > fit
    assert "solve" in dashboard.figures["fit"].layout.title.text


def test_upload_of_generated_caliper_profiles(dashboard):
    files = [(f"demo-p{p}-r{r}.cali", gen.cali_text(p, r).encode()) for p in gen.PROCESSES for r in range(2)]
    assert dashboard.data.load_files(files)
    assert dashboard.model.metric_ == ("time.duration", "inclusive", "max")
    assert set(dashboard.model.predictors_) == set(gen.LAWS)
    assert not dashboard.data.load_files([("bad.cali", b"__rec=node,id=1,attr=999\nnonsense\n")])
    assert "bad.cali" in dashboard.messages.value


def test_figures_show_the_predictions():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RegionPredictor(models=("amdahl", "pmnf")).fit(synthetic_regions())
    view = region_view(model, 128.0, "main->solve")
    stacked = view.stacked
    names = [t.name for t in stacked.data]
    assert "measured total" in names and {"solve", "io", "MPI_Allreduce", "main"} <= set(names)
    exclusive = model.predict_exclusive([128.0]).set_index("region")["exclusive"]
    top = [t for t in stacked.data if t.name == "io"][0]
    assert top.y[-1] == pytest.approx(exclusive["main->io"])
    measured = [t for t in stacked.data if t.name == "measured total"][0]
    assert measured.y[0] == pytest.approx(64 / 2 + 0.2 + 1 + 0.5, rel=0.02)  # all exclusive times at p = 2
    fit = view.fit
    assert [t.name for t in fit.data] == ["interval", "prediction", "measured"]
    assert len(fit.data[2].x) == 10  # 5 process counts x 2 repetitions
    with pytest.raises(Exception, match="require|column"):
        stacked_regions_figure(exclusive.reset_index().drop(columns="exclusive"), model.runs_, 128.0)
    curve = model.region_frame("main->solve", np.array([2.0, 64.0]))
    assert (curve["lower"] <= curve["prediction"]).all()
    assert len(region_fit_figure("main->solve", model.runs_, curve, 64.0).data) == 3
