"""[Papadopoulou2015]'s descriptive metrics (section III.A): hand cases, properties, bad input, mappings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import ValidationError
from workbench.models.comm.descriptors import (
    DERIVED_COLUMNS,
    DESCRIPTOR_COLUMNS,
    METRIC_COLUMNS,
    descriptors,
    mapping_descriptors,
)
from workbench.models.comm.patterns import NO_PARTNER, halo_partners, mapping, random_partners


def base(**overrides):
    row = dict(S=1024, M=4, PPN=16, N=8, I=0.75, SW=3, R=2)
    row.update(overrides)
    return pd.DataFrame({k: [v] for k, v in row.items()})


def test_entry_point_is_exported_from_the_package():
    import workbench.models.comm as comm

    # the function shadows its module's attribute on the package: the external entry point
    assert comm.descriptors is descriptors
    assert comm.descriptors(base())["NT"].iloc[0] == 49152


def test_hand_case():
    out = descriptors(base()).iloc[0]
    # PT = S*M, NT = PT*PPN*I, V = NT*N, NI = M*I*PPN, VI = NI*N, SWR = SW/R
    assert out["PT"] == 4096
    assert out["NT"] == 49152
    assert out["V"] == 393216
    assert out["NI"] == 48
    assert out["VI"] == 384
    assert out["SWR"] == 1.5


def test_intra_node_traffic_only_gives_zero_node_traffic():
    out = descriptors(base(I=0.0)).iloc[0]
    assert out["PT"] == 4096 and out[["NT", "V", "NI", "VI"]].tolist() == [0, 0, 0, 0]


def test_returns_a_copy_keeping_other_columns_and_order():
    frame = base().assign(comm_time_us=12.5, host="x")
    before = frame.copy()
    out = descriptors(frame)
    pd.testing.assert_frame_equal(frame, before)  # input untouched
    assert list(out.columns) == [*frame.columns, *DERIVED_COLUMNS]
    assert out["comm_time_us"].iloc[0] == 12.5
    assert set(METRIC_COLUMNS) == set(DESCRIPTOR_COLUMNS) | set(DERIVED_COLUMNS)


def test_existing_derived_columns_are_recomputed():
    out = descriptors(base().assign(NT=-1.0, PT=0.0))
    assert out["NT"].iloc[0] == 49152 and out["PT"].iloc[0] == 4096


def test_integer_strings_are_accepted_as_numbers():
    frame = base().astype(str)
    assert descriptors(frame)["V"].iloc[0] == 393216


positive = st.floats(min_value=0, max_value=1e7, allow_nan=False)
counts = st.integers(min_value=1, max_value=4096)


@settings(max_examples=80, deadline=None)
@given(s=positive, m=counts, ppn=counts, n=counts, i=st.floats(0, 1), sw=counts, r=counts,
       k=st.floats(min_value=0.01, max_value=1000))
def test_properties(s, m, ppn, n, i, sw, r, k):
    one = descriptors(base(S=s, M=m, PPN=ppn, N=n, I=i, SW=sw, R=r)).iloc[0]
    assert one["V"] == pytest.approx(one["NT"] * n, rel=1e-12, abs=1e-300)
    assert one["VI"] == pytest.approx(one["NI"] * n, rel=1e-12, abs=1e-300)
    assert one["NT"] == pytest.approx(one["PT"] * one["NI"] / m, rel=1e-9, abs=1e-300)  # NT = S * NI
    scaled = descriptors(base(S=s * k, M=m, PPN=ppn, N=n, I=i, SW=sw, R=r)).iloc[0]
    for c in ("PT", "NT", "V"):  # bytes scale with the message size ...
        assert scaled[c] == pytest.approx(one[c] * k, rel=1e-9, abs=1e-300)
    for c in ("NI", "VI", "SWR"):  # ... message counts do not
        assert scaled[c] == one[c]


@pytest.mark.parametrize(
    "frame, words",
    [
        (base().drop(columns=["PPN", "R"]), ["missing", "PPN", "R"]),
        (base(N=np.nan), ["'N'", "finite", "row 0"]),
        (pd.concat([base(), base(M=-1)], ignore_index=True), ["'M'", ">= 0", "row 1"]),
        (base(I=1.5), ["'I'", "[0, 1]", "1.5"]),
        (base(R=0), ["'R'", "> 0"]),
        (base(S="large"), ["'S'", "'large'"]),
        (base(SW=True), ["'SW'", "booleans"]),
    ],
)
def test_bad_input_names_column_and_row(frame, words):
    with pytest.raises(ValidationError) as err:
        descriptors(frame)
    for word in words:
        assert word in str(err.value)


def test_not_a_frame():
    with pytest.raises(ValidationError, match="DataFrame"):
        descriptors({"S": [1]})


# ------------------------------------------------------------------ mapping_descriptors


def test_halo_on_block_mapping_hand_case():
    # 4 x 4 periodic grid, one grid row per node: north/south leave the node, west/east stay
    partners = halo_partners(16, 4, dims=(4, 4))
    row = mapping_descriptors(partners, mapping("block", 16, ppn=4), 2048)
    assert row.to_dict() == {"S": 2048.0, "M": 4.0, "PPN": 4.0, "N": 4.0, "I": 0.5, "SW": 1.0, "R": 1.0}
    full = descriptors(row.to_frame().T).iloc[0]
    assert full["NT"] == 2048 * 4 * 4 * 0.5


def test_mapping_by_name_equals_mapping_array():
    partners = random_partners(24, 3, seed=1)
    by_name = mapping_descriptors(partners, "node", 512, nodes=3)
    by_array = mapping_descriptors(partners, mapping("round_robin", 24, nodes=3), 512)
    pd.testing.assert_series_equal(by_name, by_array)
    assert by_name["N"] == 3 and by_name["PPN"] == 8 and 0 < by_name["I"] <= 1


def test_single_node_has_no_internode_messages():
    row = mapping_descriptors(random_partners(4, 2, seed=0), np.zeros(4, dtype=int), 64)
    assert row["N"] == 1 and row["PPN"] == 4 and row["I"] == 0


def test_linear_broadcast_pattern_root_row_only():
    # root 0 sends to 1..7, round robin on 2 nodes: 1, 3, 5, 7 are remote -> I = 4/7
    partners = np.full((8, 7), NO_PARTNER)
    partners[0] = np.arange(1, 8)
    row = mapping_descriptors(partners, "node", 1, nodes=2)
    assert row["M"] == 7 and row["I"] == pytest.approx(4 / 7)


def test_switches_and_racks():
    rank_node = mapping("block", 16, ppn=4)  # nodes 0..3
    row = mapping_descriptors(random_partners(16, 2, seed=3), rank_node, 64,
                              node_switch=[0, 0, 1, 2], switch_rack={0: "a", 1: "a", 2: "b"})
    assert row["SW"] == 3 and row["R"] == 2
    assert descriptors(row.to_frame().T)["SWR"].iloc[0] == 1.5


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda p: mapping_descriptors(p, "scatter", 64, ppn=4), ["unknown mapping", "'scatter'"]),
        (lambda p: mapping_descriptors(p, mapping("block", 16, ppn=4), -1), ["message_bytes", ">= 0"]),
        (lambda p: mapping_descriptors(p, np.zeros(8, dtype=int), 64), ["8 entries", "16 processes"]),
        (lambda p: mapping_descriptors(p, mapping("block", 16, ppn=4), 64, node_switch=[0, 1]), ["node_switch"]),
        (lambda p: mapping_descriptors(p, mapping("block", 16, ppn=4), 64, switch_rack=[0]), ["needs node_switch"]),
        (lambda p: mapping_descriptors(p[:, 0], mapping("block", 16, ppn=4), 64), ["2-D"]),
        (lambda p: mapping_descriptors(p, mapping("block", 16, ppn=4), 64, ppn=4), ["by name"]),
    ],
)
def test_mapping_descriptors_bad_input(call, words):
    with pytest.raises(ValidationError) as err:
        call(random_partners(16, 2, seed=0))
    for word in words:
        assert word in str(err.value)
