"""Bundled size grid ``pencilffts-size-grids``: 3-D FFTs at 3 sizes x 128-16384 processes on Jean-Zay."""

import math
from pathlib import Path

import numpy as np
import pytest

from workbench.io import SIZE_GRID_COLUMNS, fetch_dataset
from workbench.io.catalogue import DATA_DIR

FOLDER = DATA_DIR / "external" / "jipolanco+PencilFFTs.jl"
MIRROR = Path("/work/.mirror")
COMMIT = "17bb9472324aa9c010f0e658d4ed19a0df757bf4"
GRIDS = ["pencilffts-pi-jean-zay", "pencilffts-pa-jean-zay", "pencilffts-ni-jean-zay", "pencilffts-na-jean-zay",
         "p3dfft2-jean-zay"]
CELLS = {512**3: [128, 256, 512, 1024, 2048, 4096, 8192], 1024**3: [256, 512, 1024, 2048, 4096, 8192],
         2048**3: [512, 1024, 2048, 4096, 8192, 16384]}


@pytest.fixture(scope="module")
def grids():
    return fetch_dataset("pencilffts-size-grids").frame


def test_columns_units_and_the_full_grid(grids):
    assert list(grids.columns[: len(SIZE_GRID_COLUMNS)]) == SIZE_GRID_COLUMNS
    assert len(grids) == 95 and sorted(grids["grid"].unique()) == sorted(GRIDS)
    assert set(grids["n_unit"]) == {"processes"} and set(grids["time_unit"]) == {"s/step"}
    assert set(grids["size_scope"]) == {"total"} and set(grids["run"]) == {0}
    for _, grid in grids.groupby("grid"):
        assert {size: sorted(n) for size, n in grid.groupby("size")["n"]} == CELLS
    assert (grids["p1"] * grids["p2"] == grids["processes"]).all() and (grids["processes"] == grids["n"]).all()
    assert (grids["nodes"] == [math.ceil(p / 40) for p in grids["processes"]]).all()
    assert (grids[["time", "std_s", "min_s", "max_s"]] > 0).all().all()
    assert (grids["min_s"] <= grids["time"]).all() and (grids["time"] <= grids["max_s"]).all()
    assert grids["repetitions"].eq(100).all()


def test_hand_checked_values_against_the_upstream_files(grids):
    rows = grids.set_index(["grid", "size", "n"])
    # N512/PencilFFTs_PI.dat: 512 512 512 128 16 8 100 110.24199328719988 5.9067194560884495 95.68750855396502 ...
    row = rows.loc[("pencilffts-pi-jean-zay", 512**3, 128)]
    assert (row["p1"], row["p2"]) == (16, 8)
    assert row["time"] == pytest.approx(0.11024199328719988, rel=1e-12)
    assert row["min_s"] == pytest.approx(0.09568750855396502, rel=1e-12)
    # N512/P3DFFT2.dat: 512 512 512 8192 64 128 100 6.392 0.463731 5.76942 8.36639
    row = rows.loc[("p3dfft2-jean-zay", 512**3, 8192)]
    assert (row["p1"], row["p2"], row["time"], row["max_s"]) == (64, 128, pytest.approx(0.006392),
                                                                  pytest.approx(0.00836639))
    # N2048/PencilFFTs_PI.dat: the last line, 16384 processes (128 x 128), mean 369.24479452252854 ms
    assert rows.loc[("pencilffts-pi-jean-zay", 2048**3, 16384), "time"] == pytest.approx(0.36924479452252854)
    # N1024/PencilFFTs_NA.dat: 256 processes, mean 848.0566342773091 ms
    assert rows.loc[("pencilffts-na-jean-zay", 1024**3, 256), "time"] == pytest.approx(0.8480566342773091)


def test_strong_scaling_shape(grids):
    """Time falls with processes and grows with the problem at a fixed allocation (checked where it is clean)."""
    pi = grids[grids["grid"] == "pencilffts-pi-jean-zay"].pivot(index="n", columns="size", values="time")
    block = pi.loc[512:8192]  # all three sizes
    assert (np.diff(block.to_numpy(), axis=1) > 0).all()  # bigger problem, longer time, on every allocation
    assert (np.diff(pi[1024**3].dropna().to_numpy()) < 0).all()  # 1024^3: monotone strong scaling
