"""The processes x problem-size figure and dashboard without a browser (the browser test is
tests/browser/test_multiparam_dashboard.py)."""

import warnings

import numpy as np
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.multiparam import bundled_size_grids, synthetic_grid
from workbench.models.multiparam import MultiParameterPredictor
from workbench.plots.multiparam import prediction_grid, surface_figure
from workbench.ui.cross_size import multiparam_dashboard


@pytest.fixture(scope="module")
def fitted():
    frame = synthetic_grid()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MultiParameterPredictor().fit(frame.drop(columns="t"), frame.t)
    return frame, model


def test_surface_figure_layers_target_and_lines(fitted):
    frame, model = fitted
    grid = prediction_grid(model, (2, 256), (5e4, 4e6), "s", points=(12, 10))
    assert len(grid) == 120 and (grid.lower <= grid.prediction).all()
    target = model.predict_frame(frame.iloc[:1].drop(columns="t").assign(n=128.0, s=3.2e6)).iloc[0]
    fig = surface_figure(grid, frame, target, "s", work_exponent=1.2)
    heat, measured, work, strong, star = fig.data
    assert heat.type == "heatmap" and heat.z.shape == (10, 12)
    np.testing.assert_allclose(heat.z, np.log10(grid.prediction.to_numpy()).reshape(10, 12))
    assert len(measured.x) == len(frame)
    # constant work per process s^1.2 / n through the target
    np.testing.assert_allclose(work.y ** 1.2 / work.x, 3.2e6**1.2 / 128, rtol=1e-9)
    assert list(strong.y) == [3.2e6, 3.2e6]
    assert star.x[0] == 128 and star.y[0] == 3.2e6 and f"{target.prediction:.3g}" in star.text[0]
    # a parameter that is one process's part: the weak line keeps it, as a weak-scaling campaign does
    per_process = surface_figure(grid, frame, target, "s", work_exponent=1.2, per_process=True).data[2]
    assert set(per_process.y) == {3.2e6} and "per process" in per_process.name
    width = surface_figure(grid, frame, target, "s", layer="interval width")
    np.testing.assert_allclose(width.data[0].z, (grid.upper / grid.lower).to_numpy().reshape(10, 12))
    with pytest.raises(ValidationError, match="layer"):
        surface_figure(grid, frame, target, "s", layer="nope")


def test_dashboard_redraws_on_each_control():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dash = multiparam_dashboard()
        assert "wb-error" not in dash.messages.value
        assert "80 % interval" in dash.summary.value
        for change in (lambda: setattr(dash.target_n, "value", dash.target_n.value * 2),
                       lambda: setattr(dash.target_s, "value", dash.target_s.value * 2),
                       lambda: setattr(dash.layer, "value", "interval width")):
            before = dash.figure.revision
            change()
            assert dash.figure.revision == before + 1
        assert dash.figure.data[0].name == "interval width"


def test_every_bundled_size_grid_draws_without_an_error():
    # the real size grids are in the data menu without a mirror; each fits and draws
    labels = [label for _source, _grid, label, _frame in bundled_size_grids()]
    assert len(labels) >= 25 and any("[branson-crossroads-cpu]" in label for label in labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dash = multiparam_dashboard()
        assert set(labels) <= set(dash.data.options)
        for name in labels:
            before = dash.figure.revision
            dash.data.value = name
            assert "wb-error" not in dash.messages.value, (name, dash.messages.value)
            assert dash.figure.revision > before and dash.figure.data[0].type == "heatmap", name
            assert len(dash.figure.data[1].x) == len(dash.frame), name  # every measured run is marked
