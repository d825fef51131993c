"""Downey figure (workbench.plots.downey), shared dashboard helpers (workbench.ui.common)
and the Downey explorer's wiring, without a browser."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from workbench.errors import ValidationError
from workbench.models import downey
from workbench.plots.downey import default_n_max, downey_curves, downey_figure, variance_mode
from workbench.ui import DowneyExplorer, downey_explorer
from workbench.ui.common import (
    DEFAULT_FIGURE_HEIGHT,
    ERROR_CLASS,
    MAIN_FIGURE_CLASS,
    PRIMARY_SLIDER_CLASS,
    STALE_CLASS,
    figure_widget,
    message_panel,
    rounded,
    show_errors,
    show_message,
    slider,
    update_figure_widget,
)

# ----------------------------------------------------------------------------- plots


def test_curves_contain_the_kinks_and_match_the_model():
    # A = 10, sigma = 0.5 (low variance): pieces meet at n = A = 10 and n = 2A - 1 = 19
    c = downey_curves(10, 0.5, n_max=40)
    assert list(c.columns) == ["n", "speedup", "runtime", "efficiency"]
    assert {10.0, 19.0} <= set(c["n"])
    assert c["n"].iloc[0] == 1 and c["n"].iloc[-1] == 40
    assert np.all(np.diff(c["n"]) > 0)
    assert c.loc[c["n"] == 19, "speedup"].item() == pytest.approx(10)
    np.testing.assert_allclose(c["speedup"] * c["runtime"], downey.serial_runtime(10, 0.5))  # T = T(1)/S
    np.testing.assert_allclose(c["efficiency"], c["speedup"] / c["n"])


def test_default_range_is_twice_the_max_useful_allocation():
    assert default_n_max(100, 2) == 2 * (100 + 200 - 2)
    assert default_n_max(1, 0) == 4  # at least 4 processors
    assert downey_curves(100, 2)["n"].iloc[-1] == 596


@pytest.mark.parametrize("bad", [dict(A=0.5, sigma=1), dict(A=10, sigma=-1), dict(A=10, sigma=1, n_max=1)])
def test_bad_parameters_raise_validation_errors(bad):
    with pytest.raises(ValidationError):
        downey_curves(**bad)


def test_variance_mode_switches_above_one():
    assert [variance_mode(s) for s in (0, 1, 1.01)] == ["low", "low", "high"]


def test_figure_has_a_fixed_trace_list_and_marks_the_bounds():
    wide, narrow = downey_figure(100, 2), downey_figure(300, 0.5, n_max=50, log_x=False)
    names = [t.name.split(" (n =")[0] for t in wide.data]
    assert names[:3] == ["ideal S = n", "asymptote S = A", "Downey model"]
    assert names.count("Downey model") == 3  # speedup, runtime, efficiency panels
    assert len(wide.data) == len(narrow.data) == 11
    assert [t.type for t in wide.data] == [t.type for t in narrow.data]
    mua = next(t for t in wide.data if t.name.startswith("max useful allocation"))
    assert list(mua.x) == [298] and list(mua.y) == pytest.approx([100])  # A + A sigma - sigma, S = A
    pws = next(t for t in wide.data if t.name.startswith("processor working set"))
    assert list(pws.x) == [downey.processor_working_set(100, 2)]
    # markers beyond n_max are emptied, not dropped
    assert all(len(t.x) == 0 for t in narrow.data if t.mode == "markers")
    assert wide.layout.xaxis.type == "log" and narrow.layout.xaxis.type == "linear"
    assert "high variance" in wide.layout.title.text and "low variance" in narrow.layout.title.text


# ----------------------------------------------------------------------------- common


@pytest.mark.parametrize(
    "value, digits, expected",
    [(3.4999999999999996, 4, 3.5), (112.20184543019636, 4, 112.2), (0.000123456, 3, 0.000123), (0.0, 4, 0.0),
     (-2.71828, 2, -2.7)],
)
def test_rounded_keeps_significant_digits(value, digits, expected):
    assert rounded(value, digits) == expected


def test_show_errors_turns_workbench_errors_into_a_red_box():
    panel = message_panel()
    with show_errors(panel):
        raise ValidationError("column 'time_s' has <0> values")
    assert f'class="{ERROR_CLASS}"' in panel.value
    assert "column &#x27;time_s&#x27; has &lt;0&gt; values" in panel.value  # escaped
    with show_errors(panel):
        pass
    assert panel.value == ""  # success clears the previous error


def test_show_errors_as_decorator_reports_unexpected_errors_in_own_words(caplog):
    panel = message_panel()

    @show_errors(panel)
    def callback(change):
        return {}[change]

    assert callback("missing") is None
    assert "Internal error: the workbench could not apply the last change" in panel.value
    assert "KeyError" not in panel.value and "missing" not in panel.value  # no library text on the page
    assert "unexpected error in a dashboard callback" in caplog.text and "KeyError" in caplog.text


def test_show_errors_lets_keyboard_interrupt_through():
    with pytest.raises(KeyboardInterrupt), show_errors(message_panel()):
        raise KeyboardInterrupt


def test_show_message_kinds():
    panel = message_panel()
    show_message(panel, "fit is unreliable", kind="warning")
    assert 'class="wb-warning"' in panel.value
    with pytest.raises(ValueError):
        show_message(panel, "x", kind="fatal")


def test_slider_factory():
    s = slider("A", 100, 1, 5000, log=True, primary=True)
    assert s.min == 0 and s.max == pytest.approx(np.log10(5000)) and s.value == 100
    assert PRIMARY_SLIDER_CLASS in s._dom_classes and s.continuous_update is False
    i = slider("n", 4, 1, 64, integer=True)
    assert type(i).__name__ == "IntSlider" and PRIMARY_SLIDER_CLASS not in i._dom_classes
    with pytest.raises(ValueError):
        slider("bad", 1, 0, 10, log=True)


def test_update_figure_widget_updates_in_place_or_replaces():
    fw = figure_widget(go.Figure(go.Scatter(x=[1, 2], y=[1, 2], name="a")), primary=True)
    assert MAIN_FIGURE_CLASS in fw._dom_classes
    update_figure_widget(fw, go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 2, 1], name="b"), layout=dict(title="t")))
    assert list(fw.data[0].y) == [3, 2, 1] and fw.data[0].name == "b" and fw.figure.layout.title.text == "t"
    update_figure_widget(fw, go.Figure([go.Bar(x=[1], y=[2]), go.Scatter(x=[1], y=[1])]))
    assert [t.type for t in fw.data] == ["bar", "scatter"]


def test_update_figure_widget_sends_nothing_for_an_identical_figure_with_gaps():
    def gappy(y2):
        return go.Figure([go.Scatter(x=[1, 2, None, 3], y=[1, np.nan, 2, y2]), go.Scatter(x=["a", "b"], y=[1, 2])])

    fw = figure_widget(gappy(3.0))
    sent = []
    fw.observe(lambda change: sent.append(change["name"]), names=["outputs"])
    update_figure_widget(fw, gappy(3.0))
    assert sent == [] and fw.revision == 1  # NaN == NaN here, unlike plotly's own comparison
    update_figure_widget(fw, gappy(4.0))
    assert sent == ["outputs"] and fw.data[0].y[-1] == 4.0 and fw.revision == 2
    shown = fw.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert shown["layout"]["meta"] == {"wb_revision": 2}


def test_a_stale_figure_says_so_until_the_next_update():
    fw = figure_widget(go.Figure(go.Scatter(x=[1, 2], y=[1, 2])))
    fw.mark_stale("the upload failed; fix the file and upload it again")
    assert STALE_CLASS in fw._dom_classes and fw.data == ()
    assert fw.figure.layout.title.text == "Out of date: the upload failed; fix the file and upload it again"
    update_figure_widget(fw, go.Figure(go.Scatter(x=[1, 2], y=[1, 2])))
    assert STALE_CLASS not in fw._dom_classes and len(fw.data) == 1 and fw.revision == 3


def test_a_figure_panel_keeps_the_height_of_its_figure():
    # the panel carries its figure's height as a class and a style rule that keeps plotly's
    # box that tall (it collapsed to 0 px when plotly sized it to 100 % of an auto-height element)
    fw = figure_widget(go.Figure(go.Scatter(x=[1, 2], y=[1, 2]), layout=dict(height=333)))
    plotly, style = fw.outputs
    assert plotly["data"]["application/vnd.plotly.v1+json"]["layout"]["height"] == 333
    assert "wb-height-333" in fw._dom_classes
    rule = ".wb-height-333 .js-plotly-plot .svg-container{min-height:333px}"
    assert style["data"]["text/html"] == f"<style>{rule}</style>"
    update_figure_widget(fw, go.Figure(go.Scatter(x=[1, 2], y=[2, 1])))  # no height: the default, not plotly's 360
    shown = fw.outputs[0]["data"]["application/vnd.plotly.v1+json"]["layout"]
    assert shown["height"] == DEFAULT_FIGURE_HEIGHT and f"wb-height-{DEFAULT_FIGURE_HEIGHT}" in fw._dom_classes
    assert "wb-height-333" not in fw._dom_classes
    assert f"{DEFAULT_FIGURE_HEIGHT}px" in fw.outputs[1]["data"]["text/html"]


def test_redraw_sends_the_same_figure_again_and_keeps_it_stale():
    fw = figure_widget(go.Figure(go.Scatter(x=[1, 2], y=[1, 2])))
    fw.redraw()
    assert fw.revision == 2 and len(fw.data) == 1
    assert fw.outputs[0]["data"]["application/vnd.plotly.v1+json"]["layout"]["meta"] == {"wb_revision": 2}
    fw.mark_stale("the fit failed")
    fw.redraw()
    assert fw.stale and fw.revision == 4 and fw.figure.layout.title.text == "Out of date: the fit failed"


# ----------------------------------------------------------------------------- explorer


def test_explorer_wiring():
    d = downey_explorer()
    assert isinstance(d, DowneyExplorer)
    assert PRIMARY_SLIDER_CLASS in d.A._dom_classes and MAIN_FIGURE_CLASS in d.figure._dom_classes
    assert d.parameters() == (100.0, 2.0, 596.0)
    d.A.value = 10 ** 2.0499999999999998  # what keyboard steps on the log slider produce
    A, sigma, n_max = d.parameters()
    assert A == 112.2 and n_max == default_n_max(112.2, 2)
    assert d.n_max.value == n_max and d.n_max.disabled
    assert "A = 112.2" in d.figure.figure.layout.title.text
    assert f"{downey.max_useful_allocation(112.2, 2):.4g}" in d.readout.value
    d.sigma.value = 0.5
    assert "low variance" in d.readout.value and "low variance" in d.figure.figure.layout.title.text
    d.auto_range.value = False
    d.n_max.value = 50
    assert d.parameters()[2] == 50 and not d.n_max.disabled
    assert max(d.figure.data[2].x) == 50
    d.log_x.value = False
    assert d.figure.figure.layout.xaxis.type == "linear"
    assert d.messages.value == ""


def test_explorer_rejects_bad_initial_parameters():
    with pytest.raises(ValidationError, match="A"):
        downey_explorer(A=0.5)


def test_explorer_marks_the_figure_and_readout_out_of_date_after_an_error(monkeypatch):
    import importlib

    module = importlib.import_module("workbench.ui.downey_explorer")  # the package re-exports the function
    ex = downey_explorer()

    def refuse(*args, **kwargs):
        raise ValidationError("cannot draw")

    monkeypatch.setattr(module, "downey_figure", refuse)
    ex.A.value = 200.0
    assert "cannot draw" in ex.messages.value
    assert ex.figure.stale and STALE_CLASS in ex.readout.value
    monkeypatch.undo()
    ex.A.value = 300.0
    assert not ex.figure.stale and STALE_CLASS not in ex.readout.value and ex.messages.value == ""


def test_uploads_over_the_limit_get_a_message_and_change_nothing(monkeypatch):
    import workbench.ui.common as common
    from workbench.ui.data_picker import DataPicker

    monkeypatch.setattr(common, "UPLOAD_LIMIT_BYTES", 100)
    picker = DataPicker(("synthetic-downey",))
    before = picker.source.value
    picker.upload.value = ({"name": "big.csv", "content": memoryview(b"x" * 101), "size": 101, "type": "",
                            "last_modified": __import__("datetime").datetime(2026, 1, 1)},)
    assert "big.csv" in picker.messages.value and "accept up to" in picker.messages.value
    assert picker.source.value == before and picker.upload.value == ()
