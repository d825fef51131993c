"""ADEPT vs LM on Downey-generated data (thesis 3.6, Table 2)."""

from workbench.evaluation.model_data import model_data_comparison


def test_adept_exact_and_lm_from_arbitrary_starts_often_not():
    table = model_data_comparison(600, 0.5, n_starts=8, seed=0)
    adept = table[table["method"] == "ADEPT"].iloc[0]
    lm = table[table["method"] == "LM"]
    assert adept["max_error_pct"] < 1.0
    assert len(lm) == 8 and (lm["max_error_pct"] > 1.0).sum() >= 1
