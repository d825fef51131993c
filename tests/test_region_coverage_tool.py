"""tools/region_coverage.py: the region interval calibration and its leave-one-source-out scoring,
on hand-made held-out rows (the tool's data sources themselves live in fetched mirrors)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import region_coverage as tool  # noqa: E402


def _rows(source: str, errors, n=64.0, n_fitted=64.0) -> pd.DataFrame:
    errors = np.asarray(errors, float)
    return pd.DataFrame({"source": source, "n": n, "n_fitted": n_fitted, "prediction": 10.0,
                         "actual": 10.0 * np.exp(errors)})


def test_every_source_weighs_the_same_in_the_calibration():
    # A: 4 rows, |log error| 0.2..0.8 at the measured range (scale = shape 2): standardised 0.1..0.4,
    # weight 1/4 each; B: one row, 2.0 -> 1.0, weight 1. Cumulative: .125 .25 .375 .5 | 1.0
    frame = pd.concat([_rows("A", [0.2, -0.4, 0.6, -0.8]), _rows("B", [2.0])], ignore_index=True)
    cal = tool.calibrate(frame, shape=2.0, levels=(0.5, 0.8))
    assert cal["quantiles"] == pytest.approx([0.4, 1.0])  # pooled rows would give 0.8 -> 0.4
    assert cal["sources"] == {"A": 4, "B": 1}


def test_the_scale_grows_with_the_square_root_of_the_log_distance():
    frame = _rows("A", [1.0], n=64.0 * np.e ** 4, n_fitted=64.0)  # x = 4: scale 2 + 2
    assert tool.standardised_errors(frame, 2.0)[0] == pytest.approx(0.25)


def test_leave_one_source_out_never_uses_the_scored_source():
    # each source alone is perfectly calibrated by itself; scored with the other's quantile it is not
    small = _rows("small", np.full(10, 0.1))
    large = _rows("large", np.full(10, 1.0))
    inside = tool.loso_inside(pd.concat([small, large], ignore_index=True), level=0.8, shape=2.0)
    assert inside[:10].all()  # small errors under the large source's quantile
    assert not inside[10:].any()  # large errors over the small source's quantile


def test_the_risk_threshold_is_the_largest_that_gives_every_source_the_recall():
    # misses of A have risks .5 .4 .3 .2 .1 (none warned before the rule); B's one miss is warned
    a = pd.DataFrame({"source": "A", "miss": True, "warned_base": False,
                      "miss_probability": [0.5, 0.4, 0.3, 0.2, 0.1]})
    b = pd.DataFrame({"source": "B", "miss": [True, False], "warned_base": [True, False],
                      "miss_probability": [0.05, 0.9]})
    frame = pd.concat([a, b], ignore_index=True)
    assert tool.risk_threshold(frame, recall=0.8) == pytest.approx(0.2)  # 4 of A's 5 misses
    assert tool.risk_threshold(frame, recall=1.0) == pytest.approx(0.1)
    assert tool.risk_threshold(frame[frame["source"] == "B"], recall=1.0) == pytest.approx(0.5)  # needs none
