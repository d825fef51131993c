"""Tests for workbench.models.comm.patterns: [Papadopoulou2015]'s random partners, [Branikas2024]'s halo neighbours,
process mappings and the inter-node ratio I on hand-computed cases."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import ValidationError
from workbench.models.comm.patterns import (
    NO_PARTNER,
    block_mapping,
    grid_dims,
    halo_partners,
    internode_ratio,
    mapping,
    nodes_and_ppn,
    random_partners,
    round_robin_mapping,
)


# --- 004 Fig. 2.1: 16 processes on a periodic 4 x 4 grid, order north, west, south, east ----------
#    0  1  2  3
#    4  5  6  7
#    8  9 10 11
#   12 13 14 15
@pytest.mark.parametrize(
    "rank, expected",
    [
        (0, [12, 3, 4, 1]),  # corner: north and west wrap around
        (5, [1, 4, 9, 6]),  # interior
        (7, [3, 6, 11, 4]),  # east border wraps to column 0
        (15, [11, 14, 3, 12]),  # opposite corner
        (13, [9, 12, 1, 14]),
    ],
)
def test_halo_partners_16_processes_by_hand(rank, expected):
    assert halo_partners(16, 4)[rank].tolist() == expected


def test_halo_partners_repeat_from_message_1_beyond_four():
    six = halo_partners(16, 6)
    assert six[5].tolist() == [1, 4, 9, 6, 1, 4]
    assert halo_partners(16, 2).tolist() == six[:, :2].tolist()


def test_halo_partners_small_grids_talk_to_themselves_like_cart_shift():
    # 2 processes -> 2 x 1: north = south = the other rank, west = east = itself
    assert halo_partners(2, 4).tolist() == [[1, 0, 1, 0], [0, 1, 0, 1]]
    # explicit dims 2 x 4 (8 ranks): rank 1 at (0, 1)
    assert halo_partners(8, 4, dims=(2, 4))[1].tolist() == [5, 0, 5, 2]


@pytest.mark.parametrize("processes, dims",
                         [(16, (4, 4)), (8, (4, 2)), (80, (10, 8)), (2, (2, 1)), (7, (7, 1)), (12, (4, 3))])
def test_grid_dims_like_mpi_dims_create(processes, dims):
    assert grid_dims(processes) == dims


@given(st.integers(1, 64), st.integers(1, 9))
@settings(max_examples=60, deadline=None)
def test_halo_neighbourhood_is_symmetric(processes, messages):
    p = halo_partners(processes, messages)
    assert p.shape == (processes, messages)
    four = halo_partners(processes, 4)
    # whoever is my north has me as south, my west has me as east
    ranks = np.arange(processes)
    assert (four[four[:, 0], 2] == ranks).all() and (four[four[:, 1], 3] == ranks).all()


# --- 002 random partners -------------------------------------------------------------------------
@given(st.integers(2, 40), st.data(), st.integers(0, 2**32 - 1))
@settings(max_examples=80, deadline=None)
def test_random_partners_symmetric_distinct_not_self(processes, data, seed):
    messages = data.draw(st.integers(1, min(processes - 1, 6)))
    p = random_partners(processes, messages, seed)
    assert p.shape == (processes, messages)
    ranks = np.arange(processes)[:, None]
    real = p != NO_PARTNER
    assert (p[real] != np.broadcast_to(ranks, p.shape)[real]).all()
    # symmetric per round: my partner in round k has me as partner in round k
    rows, cols = np.nonzero(real)
    assert (p[p[rows, cols], cols] == rows).all()
    # distinct partners per process
    for row in p:
        real_row = row[row != NO_PARTNER]
        assert len(set(real_row.tolist())) == real_row.size
    if processes % 2 == 0:
        assert real.all()
    else:
        # one process sits out each round, each process at most once
        assert ((~real).sum(axis=0) == 1).all()
        assert ((~real).sum(axis=1) <= 1).all()


def test_random_partners_two_processes_and_seeding():
    assert random_partners(2, 1, seed=3).tolist() == [[1], [0]]
    assert np.array_equal(random_partners(10, 4, seed=7), random_partners(10, 4, seed=7))
    draws = {random_partners(10, 4, seed=s).tobytes() for s in range(5)}
    assert len(draws) > 1


def test_random_partners_covers_every_pair_when_all_rounds_drawn():
    p = random_partners(6, 5, seed=0)
    assert all(sorted(row) == sorted(set(range(6)) - {i}) for i, row in enumerate(p.tolist()))


@pytest.mark.parametrize("processes, messages", [(2, 2), (4, 4), (1, 1), (4, 0), (4, 1.5), (True, 1)])
def test_random_partners_rejects_impossible_requests(processes, messages):
    with pytest.raises(ValidationError, match="random_partners"):
        random_partners(processes, messages)


# --- mappings and I -------------------------------------------------------------------------------
def test_block_and_round_robin_mappings():
    assert block_mapping(8, 4).tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert round_robin_mapping(8, 2).tolist() == [0, 1, 0, 1, 0, 1, 0, 1]
    assert mapping("core", 6, nodes=2).tolist() == [0, 0, 0, 1, 1, 1]
    assert mapping("node", 6, ppn=3).tolist() == [0, 1, 0, 1, 0, 1]
    assert mapping("block", 5, ppn=2).tolist() == [0, 0, 1, 1, 2]
    assert nodes_and_ppn(mapping("block", 5, ppn=2)) == (3, 2)
    assert nodes_and_ppn(np.array(["a", "b", "a"])) == (2, 2)


def test_unknown_mapping_and_bad_arguments():
    with pytest.raises(ValidationError, match="unknown mapping 'scatter'"):
        mapping("scatter", 8, ppn=4)
    with pytest.raises(ValidationError, match="exactly one of ppn and nodes"):
        mapping("block", 8)
    with pytest.raises(ValidationError, match="dims 3 x 3"):
        halo_partners(8, 4, dims=(3, 3))


def test_internode_ratio_block_vs_round_robin_by_hand():
    # 16 ranks on a 4 x 4 grid, 4 halo messages each = 64 messages
    halo = halo_partners(16, 4)
    # block, 4 per node: node = grid row. West/east stay in the row, north/south leave it -> I = 1/2
    assert internode_ratio(halo, block_mapping(16, 4)) == pytest.approx(0.5)
    # round robin on 4 nodes: node = column. North/south stay in the column -> also 1/2
    assert internode_ratio(halo, round_robin_mapping(16, 4)) == pytest.approx(0.5)
    # round robin on 2 nodes: node = column parity; east/west change parity, north/south do not
    assert internode_ratio(halo, round_robin_mapping(16, 2)) == pytest.approx(0.5)
    # block with 8 per node: rows {0,1} and {2,3}; a north/south message leaves the node when it
    # crosses between rows 1-2 or wraps 3-0: of 32 vertical messages, 16 do -> 16/64
    assert internode_ratio(halo, block_mapping(16, 8)) == pytest.approx(0.25)
    # one node: nothing is inter-node; one rank per node: everything is
    assert internode_ratio(halo, block_mapping(16, 16)) == 0.0
    assert internode_ratio(halo, block_mapping(16, 1)) == 1.0


def test_internode_ratio_ignores_missing_partners_and_accepts_host_names():
    partners = np.array([[1, NO_PARTNER], [0, 2], [NO_PARTNER, 1]])
    # messages: 0->1 (same host), 1->0 (same), 1->2 (different), 2->1 (different): 2 of 4
    assert internode_ratio(partners, np.array(["n1", "n1", "n2"])) == pytest.approx(0.5)
    with pytest.raises(ValidationError, match="holds no message"):
        internode_ratio(np.full((2, 1), NO_PARTNER), [0, 0])
    with pytest.raises(ValidationError, match="3 entries but there are 2 processes"):
        internode_ratio([[1], [0]], [0, 0, 1])
    with pytest.raises(ValidationError, match="must lie in 0..1"):
        internode_ratio([[5], [0]], [0, 1])
