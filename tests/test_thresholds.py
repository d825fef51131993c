"""Every threshold is declared once (value, unit, meaning, where it is used) and the texts state it from there.

A :class:`~workbench.validation.Threshold` is declared next to what decides by it; the texts
(warning kinds, figure legends, table headers) are f-strings of it.  This checks both halves:
each declared value appears in the texts written from it, and the literal parts of those
texts hold no copy of a number.
"""

import ast
import re
from pathlib import Path

import pandas as pd
import pytest

from workbench import metrics
from workbench.evaluation import holdout
from workbench.models.comm.gbm import BAND_PCT
from workbench.models.multiparam import predictor as multiparam
from workbench.models.scaling import predictor, rules
from workbench.plots import comm_regression as comm_plots
from workbench.plots import scaling as scaling_plots
from workbench.validation import Threshold
from workbench.views import adept as adept_views
from workbench.views import comm_regression as comm_views

ROOT = Path(__file__).resolve().parents[1]


def renderings(threshold: Threshold) -> list[str]:
    """The ways the texts write a threshold's value: 30 %, 0.25 -> 25 %, 2 doublings -> 4x, 3."""
    v = threshold.value
    out = [f"{v:g} %", f"{v:g}"] if threshold.unit == "percent" else [f"{v:.0%}".replace("%", " %"), f"{v:g}"]
    if threshold.unit == "doublings":
        out.insert(0, f"{2 ** v:g}x")
    return out


def states(threshold: Threshold, text: str) -> bool:
    """Whether ``text`` states the value of ``threshold`` (as a whole number, not inside a longer one)."""
    return any(re.search(rf"(?<![\d.]){re.escape(r)}(?![\d])", text) for r in renderings(threshold))


def literal_parts(source: str, name: str | None = None) -> list[str]:
    """The literal string parts (f-string parts included) of ``source``, docstrings excluded.

    With ``name``: only those of the value assigned to ``name`` at module level.
    """
    tree = ast.parse(source)
    if name is not None:
        values = [n.value for n in tree.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
        assert values, f"no module-level {name} ="
        tree = ast.Module(body=[ast.Expr(v) for v in values], type_ignores=[])
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


DECLARED = {
    **{f"scaling predictor {k}": t for k, t in predictor.THRESHOLDS.items()},
    **{f"multiparam {k}": t for k, t in multiparam.THRESHOLDS.items()},
    "metrics ERROR_BAND": metrics.ERROR_BAND,
    "holdout MISS": holdout.MISS,
}


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_each_threshold_is_declared_with_unit_meaning_and_user(name):
    t = DECLARED[name]
    assert isinstance(t, Threshold) and t.value == t.value and t.unit and t.meaning and t.used_by, name


@pytest.mark.parametrize("module", [rules, multiparam], ids=["scaling", "multiparam"])
def test_warning_texts_state_their_thresholds(module):
    """Every warning kind a threshold is used by states its value, and its literal parts no number."""
    for key, threshold in module.THRESHOLDS.items():
        kinds = [k for k in module.WARNING_KINDS if k in threshold.used_by]
        assert kinds or module is rules, f"{key}: used by no warning kind ({threshold.used_by})"
        for kind in kinds:
            assert states(threshold, module.WARNING_KINDS[kind]), (key, kind, module.WARNING_KINDS[kind])
    source = Path(module.__file__).read_text(encoding="utf-8")
    copies = [s for s in literal_parts(source, "WARNING_KINDS") if re.search(r"\d\s*(%|x\b)", s)]
    assert not copies, copies


def test_the_error_band_texts_come_from_its_declaration():
    band = metrics.ERROR_BAND
    assert comm_plots.BAND_PCT == BAND_PCT == band.value
    assert states(band, metrics.band_text())
    headers = [c.label for c in comm_views._SCORE_COLUMNS.values()]
    assert any(states(band, h) for h in headers), headers
    figure = comm_plots.residuals_by_area(pd.DataFrame({"area": ["Ia"], "error_pct": [5.0], "observed": [1.0],
                                                        "predicted": [1.05]}))
    assert states(band, figure.layout.title.text)


def test_the_holdout_miss_texts_come_from_its_declaration():
    table = adept_views.holdout_summary_table(pd.DataFrame({
        "model": ["m"], "predictions": [1], "refused": [0], "mean_PA": [90.0], "median_PA": [90.0],
        f"within_{holdout.MISS.value:g}pct": [1.0], "misses": [0], "misses_warned": [0],
        "warned_share_of_misses": [float("nan")], "warned_share_of_all": [0.0]}))
    text = table._repr_html_()
    assert states(holdout.MISS, text) and f"misses &gt; {holdout.MISS.value:g} %" in text


def test_the_benchmark_board_states_the_predictors_miss():
    miss = predictor.THRESHOLDS["miss"]
    assert states(miss, scaling_plots._BOARD_NAMES["miss_recall"])
    assert states(miss, scaling_plots._BOARD_NAMES["good_silent"])


#: Files whose texts were converted to be written from a declaration: no literal copy of 30 % left.
CONVERTED = ["workbench/views/comm_regression.py", "workbench/evaluation/comm_regression.py",
             "workbench/plots/comm_regression.py", "workbench/plots/comm_ml.py", "workbench/views/adept.py",
             "workbench/plots/scaling.py", "workbench/models/multiparam/predictor.py",
             "workbench/models/scaling/rules.py", "workbench/evaluation/holdout.py"]


@pytest.mark.parametrize("path", CONVERTED)
def test_no_hard_coded_copy_of_the_thirty_percent(path):
    found = [s for s in literal_parts((ROOT / path).read_text(encoding="utf-8"))
             if re.search(r"(?<![\d.])30\s*%|±\s*30|\+-\s*30", s)]
    assert not found, found


def test_the_checks_can_fail():
    t = Threshold(0.30, "relative error", "m", "k")
    assert states(t, "by more than 30 %") and not states(t, "by more than 31 %")
    assert not states(t, "by more than 130 %")
    assert states(Threshold(2.0, "doublings", "m", "k"), "more than 4x past")
    assert sorted(literal_parts('X = {"a": f"more than {v} %", "b": "4x"}\n', "X")) == sorted(
        ["a", "b", "more than ", " %", "4x"])
    assert literal_parts('"""Doc 30 %."""\nY = "30 %"\n') == ["30 %"]
