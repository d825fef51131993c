"""ADEPT and the predictor reproduce the reference results (``tools/adept_reference.py``) on
every real curve: the same per-target fits, predictions, intervals and warnings as the
implementation before the issue-14 speed-up (made at commit 90a4807)."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import adept_reference  # noqa: E402

NUMERIC = ["target", "A", "sigma", "scale", "wssre", "max_rel_error", "prediction", "speedup", "runner_up_A",
           "runner_up_sigma", "suggested_n", "saturating_A", "saturation_suggested_n", "delta", "lower", "upper"]
TEXT = ["curve_id", "subset", "what", "saturation", "model", "warnings", "warned", "error"]


@pytest.fixture(scope="module")
def reference_and_now(data_mirror):
    expected = pd.read_csv(adept_reference.OUT, keep_default_na=False, na_values=[""])
    got = adept_reference.reference(adept_reference.load_curves(), progress=False)
    return expected, got


def test_same_rows_fits_predictions_and_warnings(reference_and_now):
    expected, got = reference_and_now
    assert len(got) == len(expected)
    for col in TEXT:
        a = expected[col].fillna("").astype(str).to_numpy()
        b = got[col].fillna("").astype(str).to_numpy()
        bad = np.flatnonzero(a != b)
        assert bad.size == 0, (col, expected.iloc[bad[:3]][["curve_id", "subset", "what", "target"]],
                               a[bad[:3]], b[bad[:3]])
    for col in NUMERIC:
        a = expected[col].to_numpy(float)
        b = pd.to_numeric(got[col], errors="coerce").to_numpy(float)
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=0, equal_nan=True, err_msg=col)
