"""The semi-empirical Exchange model of [Branikas2024] ( chapter 6) against Tables 6.1-6.4."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ValidationError
from workbench.evaluation.comm_ml import reproduce_table_6_1, table_6_3_check
from workbench.io import fetch_seed_table
from workbench.models.comm.semi_empirical import (
    TABLE_6_2_BASE_US,
    ExchangeModel,
    PpnFactorModel,
    implied_base_us,
    percentage_error,
)


@pytest.fixture(scope="module")
def table_6_1():
    return fetch_seed_table("exchange_benchmark_table6_1").frame


def test_formula_by_hand():
    model = ExchangeModel(base_us=6.0).fit()
    # PpN 2, 8 KiB: 2 * 1/3 * 2 * 6 = 8 µs
    assert model.predict(2, 8192) == pytest.approx(8.0)
    np.testing.assert_allclose(model.predict([1, 4], [4096, 4096]), [2.0, 8.0])
    assert model.base_source_ == "given"
    assert ExchangeModel(size_factor=0.5, base_size_bytes=1024, base_us=2.0).fit().predict(3, 2048) == pytest.approx(6)


def test_table_6_2_implies_one_base_time(table_6_1):
    implied = implied_base_us(table_6_1, fetch_seed_table("exchange_ratios_table6_2").frame)
    assert len(implied) == 10  # 256 KiB and 2 MiB at PpN 1, 2, 4, 8, 16
    assert implied["implied_base_us"].between(6.100, 6.103).all()
    assert TABLE_6_2_BASE_US == pytest.approx(6.1003, abs=1e-4)


def test_table_6_1_reproduced_with_the_fig_6_5_pattern():
    table = reproduce_table_6_1()
    assert table.attrs["base_source"] == "ratios (10 rows)"
    assert table.attrs["base_us"] == pytest.approx(6.1004, abs=2e-3)
    err = table.set_index(["message_size_bytes", "processes_per_node"])["percentage_error"]
    # 32 KiB at 1 PpN: (27.49 - 1/3 * 8 * 6.10) / 27.49 = +40.8 % (under-prediction)
    assert err[(32768, 1)] == pytest.approx(100 * (27.49 - 8 / 3 * 6.1004) / 27.49, abs=0.05)
    assert err[(32768, 1)] == pytest.approx(40.8, abs=0.1) and err[(32768, 2)] == pytest.approx(25.7, abs=0.1)
    # Fig. 6.5: large errors (under-prediction) at small sizes and few PpN, then about -10 %
    big = err.drop([(32768, 1), (32768, 2)])
    assert big.abs().max() < 15 and (big.loc[2097152] < 0).all()
    assert err.loc[2097152].abs().max() < 13.5 and err[(2097152, 16)] == pytest.approx(-8.6, abs=0.1)
    assert (np.diff(err.loc[32768].to_numpy()[:3]) < 0).all()  # falls with PpN at the smallest size
    # Fig. 6.3's PpN-factor model is exact at 1 PpN and closer than the formula at 2 MiB
    assert (table.loc[table["processes_per_node"] == 1, "ppn_factor_error"] == 0).all()
    two = table[table["message_size_bytes"] == 2097152]
    assert (two["ppn_factor_error"].abs() <= two["abs_error_pct"]).all()


def test_base_choices(table_6_1):
    with pytest.raises(ValidationError, match="no measurement at 1 PpN and 4096 B.*base_us=6.1"):
        ExchangeModel(base_us="measured").fit(table_6_1)
    with pytest.raises(ValidationError, match="pass ratios="):
        ExchangeModel().fit(table_6_1)  # auto without ratios
    with_base = pd.concat([table_6_1, pd.DataFrame([{"message_size_bytes": 4096, "processes_per_node": 1,
                                                     "nodes": 64, "avg_comm_time_us": 7.5}])])
    model = ExchangeModel().fit(with_base)
    assert model.base_us_ == 7.5 and model.base_source_ == "measured"
    table = reproduce_table_6_1(base_us=5.0)
    assert table.attrs["base_source"] == "given"
    assert table["predicted_us"].iloc[0] == pytest.approx(1 / 3 * 8 * 5.0)


@pytest.mark.parametrize("kwargs, message", [
    ({"size_factor": 0}, "size_factor must be a positive number"),
    ({"base_size_bytes": -1}, "base_size_bytes must be a positive number"),
    ({"base_us": "fitted"}, "base_us must be a positive number or one of"),
    ({"base_us": np.nan}, "base_us must be a positive number"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValidationError, match=message):
        ExchangeModel(**kwargs).fit()


def test_predict_errors(table_6_1):
    with pytest.raises(ValidationError, match="call fit"):
        ExchangeModel(base_us=6.0).predict(1, 4096)
    with pytest.raises(ValidationError, match="finite and > 0"):
        ExchangeModel(base_us=6.0).fit().predict(0, 4096)
    factor = PpnFactorModel().fit(table_6_1)
    assert factor.predict(4, 32768) == pytest.approx(4 * 27.49)
    with pytest.raises(ValidationError, match="no 1 PpN base case for size 4096"):
        factor.predict(1, 4096)
    with pytest.raises(ValidationError, match="missing column"):
        PpnFactorModel().fit(table_6_1.drop(columns="avg_comm_time_us"))


def test_percentage_error_sign():
    np.testing.assert_allclose(percentage_error([50, 150], [100, 100]), [50, -50])
    with pytest.raises(ValidationError, match="> 0"):
        percentage_error([1], [0])


def test_tables_6_3_and_6_4_show_their_inconsistencies():
    check = table_6_3_check().set_index(["message_size_bytes", "processes_per_node"])
    # the printed predictions are the formula one message size lower (x 1/8), to their last digit
    printed = check["published_prediction_s"]
    assert (np.abs(check["formula_one_size_lower_s"] - printed) <= 1e-3 * 1.0001).all()
    np.testing.assert_allclose(check["formula_prediction_s"] / check["formula_one_size_lower_s"], 8.0)
    assert check["discrepancy"].str.contains("one message size lower").all()
    # ours, by hand: 32 KiB, PpN 2: 32 * 2 * 1/3 * 8 * 6.1004 µs = 1.041 ms
    assert check.loc[(32768, 2), "formula_prediction_s"] == pytest.approx(32 * 2 / 3 * 8 * 6.1004e-6, rel=1e-3)
    assert check.loc[(32768, 2), "formula_percentage_error"] == pytest.approx(98.4, abs=0.05)
    # 32 x Exchange: the 32/256 KiB rows match Table 6.1; the 2 MiB rows at PpN 2 and 4 are shifted
    x32 = check["discrepancy"].str.contains("32 x Exchange")
    assert x32[x32].index.tolist() == [(2097152, 2), (2097152, 4)]
    assert "this row's printed prediction" in check.loc[(2097152, 2), "discrepancy"]
    assert "the value of PpN 2, 2048 KiB" in check.loc[(2097152, 4), "discrepancy"]
    assert check.loc[(2097152, 4), "exchange_x32_s"] == pytest.approx(32 * 3679.86e-6)
    assert check.loc[(262144, 8), "exchange_x32_s"] == pytest.approx(check.loc[(262144, 8), "published_exchange_x32_s"],
                                                                      abs=1e-5)
    assert check.xs(20, level="processes_per_node")["exchange_x32_s"].isna().all()  # Table 6.1 stops at 16
