"""Bundled size grid ``gromacs-alaska-size-grids``: GROMACS, 3 sizes x 1-16 nodes, ukri-excalibur/excalibur-tests."""

from pathlib import Path

import numpy as np
import pytest

from workbench.io import SIZE_GRID_COLUMNS, fetch_dataset
from workbench.io.catalogue import DATA_DIR

FOLDER = DATA_DIR / "external" / "ukri-excalibur+excalibur-tests"
MIRROR = Path("/work/.mirror")
COMMIT = "37bbdc95a25bc53f06b8248ab3f515923655b71f"
ATOMS = [69866, 1403180, 2997924]
GRIDS = [f"gromacs-alaska-{fabric}-{campaign}" for fabric in ("ib", "roce") for campaign in ("c1", "c2", "c3")]


@pytest.fixture(scope="module")
def grids():
    return fetch_dataset("gromacs-alaska-size-grids").frame


def test_columns_units_and_the_full_grid(grids):
    assert list(grids.columns[: len(SIZE_GRID_COLUMNS)]) == SIZE_GRID_COLUMNS
    assert len(grids) == 139 and sorted(grids["grid"].unique()) == sorted(GRIDS)
    assert set(grids["n_unit"]) == {"nodes"} and set(grids["time_unit"]) == {"s/step"}
    assert set(grids["size_scope"]) == {"total"}
    assert (grids["processes"] == 32 * grids["n"]).all() and (grids["nodes"] == grids["n"]).all()
    # every grid: 3 sizes, each on all 5 node counts
    for _, grid in grids.groupby("grid"):
        assert sorted(grid["size"].unique()) == ATOMS
        assert all(sorted(n.unique()) == [1, 2, 4, 8, 16] for _, n in grid.groupby("size")["n"])
    assert grids.groupby(["grid", "size", "n"]).size().between(1, 2).all()


def test_time_is_wall_time_per_step_and_agrees_with_ns_per_day(grids):
    assert (grids[["n", "size", "time", "wall_s", "ns_per_day"]] > 0).all().all()
    steps = grids["size"].map({69866: 50000, 1403180: 10000, 2997924: 10000})
    assert (grids["nsteps"] == steps).all()
    assert np.allclose(grids["time"], grids["wall_s"] / grids["nsteps"], rtol=1e-8)
    # GROMACS: ns/day = nsteps x 2 fs / wall time; both printed with 3 decimals
    implied = grids["nsteps"] * 2e-6 * 86400 / grids["wall_s"]
    assert np.allclose(implied, grids["ns_per_day"], rtol=0.01)


def test_hand_checked_values_against_the_upstream_perflogs(grids):
    rows = grids.set_index("jobid")
    # perflogs/alaska/ib-gcc9-openmpi4-ucx/gromacs/Gromacs_61k_2/Gromacs_61k_2.log, 2020-08-19T17:18:13+01:00:
    # jobid=5034, wall_t=172.637 s, ns_per_day=50.048, num_procs=64, num_nodes=2
    row = rows.loc[5034]
    assert (row["grid"], row["n"], row["size"], row["processes"]) == ("gromacs-alaska-ib-c1", 2, 69866, 64)
    assert (row["wall_s"], row["ns_per_day"]) == (172.637, 50.048) and row["time"] == pytest.approx(172.637 / 50000)
    # .../Gromacs_61k_2.log, 2020-09-09T13:37:50+01:00: jobid=5253, wall_t=224.048 s (campaign c2)
    assert rows.loc[5253, "grid"] == "gromacs-alaska-ib-c2" and rows.loc[5253, "wall_s"] == 224.048
    # perflogs/alaska/roce-gcc9-openmpi4-ucx/gromacs/Gromacs_3000k_16/...: jobid=6406 (2020-09-10T16:01:02), 340.76 s
    row = rows.loc[6406]
    assert (row["grid"], row["n"], row["size"]) == ("gromacs-alaska-roce-c3", 16, 2997924)
    assert row["time"] == pytest.approx(340.76 / 10000)
    # the kept c1 outlier: 1.4M atoms on 1 node over InfiniBand, jobs 5022 and 5211
    assert rows.loc[5022, "wall_s"] == 2369.797 and rows.loc[5211, "wall_s"] == 1099.053


def test_same_jobs_as_the_mirror_curves(grids, data_mirror):
    """The wall times are the GROMACS rows of the mirror set excalibur-alaska (one source)."""
    curves = fetch_dataset("excalibur-alaska", mirror=data_mirror).frame
    gromacs = curves[curves["curve_id"].str.contains("gromacs")]
    assert sorted(gromacs["time_s"]) == sorted(grids["wall_s"])
