"""Held-back evaluation (workbench.evaluation.holdout) on bundled and real curves."""

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ParseWarning, WorkbenchError
from workbench.evaluation.holdout import holdout_summary, holdout_table
from workbench.io import fetch_npb_pi_cluster
from workbench.models import downey


def _downey_frame(A=120.0, sigma=0.6, scale=2.5):
    n = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256.0])
    return pd.DataFrame({"benchmark": "synthetic", "problem_class": "A", "processes": n.astype(int),
                         "time_s": scale * downey.runtime(n, A, sigma)})


def test_table_rows_and_errors_on_exact_model_data():
    tab = holdout_table(_downey_frame(), n_observed=(3,))
    assert set(tab["model"]) == {"ADEPT", "ADEPT (paper units, s)", "ADEPT (paper units, ms)", "Amdahl", "USL",
                                 "Downey LM"}
    assert (tab.groupby("model").size() == 6).all()  # 9 counts, 3 observed, 6 held back
    row = tab.iloc[0]
    assert row["error_pct"] == pytest.approx(abs(row["prediction"] - row["actual"]) / row["actual"] * 100)
    assert tab["observed"].iloc[0] == (1, 2, 4)


def test_summary_counts_misses_and_warned_misses():
    tab = pd.DataFrame({"model": "m", "error_pct": [10.0, 50.0, 80.0, np.nan], "warned": [False, True, False, True]})
    s = holdout_summary(tab).iloc[0]
    assert (s["predictions"], s["refused"], s["misses"], s["misses_warned"]) == (3, 1, 2, 1)
    assert s["mean_PA"] == pytest.approx(100 - 140 / 3) and s["warned_share_of_misses"] == 0.5


def test_too_short_curves_are_an_error():
    with pytest.raises(WorkbenchError, match="more than 3"):
        holdout_table(_downey_frame().head(3), n_observed=(3,))


def test_real_pi_cluster_curves(data_mirror):
    with pytest.warns(ParseWarning):  # the aborted logs of the Pi folder
        frame = fetch_npb_pi_cluster(mirror=data_mirror).frame
    tab = holdout_table(frame)
    summary = holdout_summary(tab).set_index("model")
    # five packed curves with >= 4 counts: 4 x (2 + 1) + 1 held-back predictions per model
    assert summary.loc["Amdahl", "predictions"] == 13
    adept = summary.loc["ADEPT"]
    assert adept["predictions"] + adept["refused"] == 13
    # every ADEPT miss > 30 % carries a reliability warning on these curves (measured, see README)
    assert adept["misses_warned"] == adept["misses"]
