"""The shared table formatter (workbench.views.tables): what a person reads, on hand-made frames."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from workbench.models.fim import base_probabilities
from workbench.views.panels import frame_html
from workbench.views.tables import Column, fields_table, format_number, format_value, table, table_html


@pytest.mark.parametrize("value, text", [
    (0.04999999958333338, "0.05000"), (4.089341e-04, "4.089 × 10⁻⁴"), (4.440892e-14, "4.441 × 10⁻¹⁴"),
    (25.59637, "25.60"), (862788.0, "862788"), (123456.7, "123457"), (1.5e12, "1.500 × 10¹²"),
    (9.99996e-5, "1.000 × 10⁻⁴"), (0.0, "0"), (-0.5, "-0.5000"), (float("nan"), "–"), (float("inf"), "∞"),
])
def test_numbers_have_four_significant_digits_and_no_e_notation(value, text):
    assert format_number(value) == text


def test_kinds():
    assert format_value(0.8369, "fraction") == "83.7 %" and format_value(0.8369, "fraction", 0) == "84 %"
    assert format_value(12.345, "percent") == "12.3 %" and format_value(12.0, "int") == "12"
    assert format_value(True) == "yes" and format_value(("a", "b")) == "a, b" and format_value(None) == "–"
    with pytest.raises(ValueError, match="kind must be one of"):
        Column("x", "percentage")


def test_a_frame_reads_as_a_person_reads_it():
    # the chapter table of dashboard 02 as pandas printed it: index, 12.0 counts, NaN, e-notation
    frame = pd.DataFrame({"model": ["ADEPT", "Amdahl"], "predictions": [12.0, 13.0], "mean_PA": [40.5306, np.nan],
                          "within_30pct": [0.583333, 0.538462], "max_error_pct": [4.089341e-04, 25.59637]})
    text = table_html(frame, {"within_30pct": Column("within 30 %", "fraction", 0),
                              "mean_PA": Column("mean PA", "percent"), "max_error_pct": Column("max error [%]")})
    for shown in ("12<", "13<", "40.5 %<", "–<", "58 %<", "54 %<", "4.089 × 10⁻⁴<", "25.60<"):
        assert shown in text, shown
    for raw in ("12.0", "NaN", "e-04", "0.583", ">0<", ">1<"):
        assert raw not in text, raw
    assert "within 30 %" in text and "max error [%]" in text
    assert text.count("<tr>") == 3 and text.count("<th ") == 5  # header + 2 rows, no index column


def test_a_named_index_is_a_column_an_unnamed_one_is_dropped():
    frame = pd.DataFrame({"t": [1.5, 2.5]}, index=pd.Index([2, 4], name="processes"))
    assert "processes" in table_html(frame) and table(frame).text().columns.tolist() == ["processes", "t"]
    assert table(frame.reset_index(drop=True)).text().columns.tolist() == ["t"]
    runs = pd.DataFrame({"role": ["a", "a", "b"], "p": [1, 2, 1], "t": [1.0, 2.0, 3.5]})
    grouped = runs.groupby(["role", "p"]).median()
    assert table(grouped).text().to_dict("list") == {"role": ["a", "a", "b"], "p": ["1", "2", "1"],
                                                     "t": ["1", "2", "3.500"]}


def test_a_dataclass_is_a_table_of_its_fields_not_its_repr():
    probs = base_probabilities(tc=2.4e9, sc=6.0e8, u=0.95)
    shown = fields_table(probs, {"p_act": Column("P_act (stay active)")})
    html_text = shown._repr_html_()
    assert "BaseProbabilities(" not in html_text and "BaseProbabilities(" not in repr(shown)
    assert "P_act (stay active)" in html_text and "0.05000" in html_text and "4.167 × 10⁻¹⁰" in html_text
    assert len(shown.frame) == len(dataclasses.fields(probs))


def test_text_is_escaped_and_frame_html_uses_the_formatter():
    text = frame_html(pd.DataFrame({"name": ["<b>x</b>"], "n": [3.0]}), "Title <i>ok</i>")
    assert "&lt;b&gt;x&lt;/b&gt;" in text and "<i>ok</i>" in text and ">3<" in text
