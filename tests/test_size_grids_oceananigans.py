"""Bundled size grid ``oceananigans-size-grids``: the weak/strong scaling tables of the Oceananigans.jl docs."""

from pathlib import Path

import numpy as np
import pytest

from workbench.io import SIZE_GRID_COLUMNS, fetch_dataset
from workbench.io.catalogue import DATA_DIR

FOLDER = DATA_DIR / "external" / "CliMA+Oceananigans.jl"
MIRROR = Path("/work/.mirror")
COMMIT = "cd518612b0894544cc797092fdab00536077e98c"
GRIDS = {"oceananigans-shallow-water-mpi-cpu": ("processes", 8, 16), "oceananigans-nonhydrostatic-mpi-cpu":
         ("processes", 8, 16), "oceananigans-shallow-water-threads-cpu": ("threads", 6, 6),
         "oceananigans-shallow-water-mpi-gpu": ("gpus", 3, 3)}


@pytest.fixture(scope="module")
def grids():
    return fetch_dataset("oceananigans-size-grids").frame


def test_columns_units_sizes_and_allocations(grids):
    assert list(grids.columns[: len(SIZE_GRID_COLUMNS)]) == SIZE_GRID_COLUMNS
    assert len(grids) == 41 and set(grids["grid"]) == set(GRIDS)
    assert set(grids["time_unit"]) == {"s/step"} and set(grids["size_scope"]) == {"total"}
    for name, (unit, sizes, rows) in GRIDS.items():
        grid = grids[grids["grid"] == name]
        assert set(grid["n_unit"]) == {unit} and grid["size"].nunique() == sizes and len(grid) == rows
    assert (grids[["n", "size", "time", "min_s", "mean_s", "max_s"]] > 0).all().all()
    threads = grids["n_unit"] == "threads"
    assert (grids.loc[~threads, "processes"] == grids.loc[~threads, "n"]).all()
    assert grids.loc[threads, "processes"].eq(1).all()
    assert (grids["min_s"] <= grids["time"]).all() and (grids["time"] <= grids["max_s"]).all()
    # weak scaling: the size grows with n (points per rank or thread fixed); strong: one size
    weak = grids[grids["scaling"] == "weak"]
    assert weak.assign(per=weak["size"] / weak["n"]).groupby("grid")["per"].nunique().eq(1).all()
    assert grids[grids["scaling"] == "strong"].groupby("grid")["size"].nunique().eq(1).all()
    # size is the product of the printed size
    printed = grids["size_name"].str.extract(r"^\(([\d, ]+)\) grid points$")[0]
    assert (printed.map(lambda t: int(np.prod([int(v) for v in t.split(",")]))) == grids["size"]).all()


def test_hand_checked_values_against_the_docs(grids):
    rows = grids.set_index(["grid", "size", "n", "run"])
    sw = "oceananigans-shallow-water-mpi-cpu"
    # line 181: │   (4096, 256) │   (1, 1) │ 363.885 ms │ 364.185 ms │ 364.911 ms │ 370.414 ms │ ... │ 10 │
    row = rows.loc[(sw, 4096 * 256, 1, 0)]
    expected = (0.364185, 0.363885, 0.370414, 10)
    assert (row["time"], row["min_s"], row["max_s"], row["samples"]) == pytest.approx(expected)
    # line 232: │ (4096, 4096) │   (1, 1) │    5.694 s │ ... (strong); line 185 and 236 meet at 16 ranks
    assert rows.loc[(sw, 4096**2, 1, 0), "time"] == pytest.approx(5.694)
    assert rows.loc[(sw, 4096**2, 16, 0), "scaling"] == "weak"
    assert rows.loc[(sw, 4096**2, 16, 1), "scaling"] == "strong"
    assert rows.loc[(sw, 4096**2, 16, 0), "time"] == pytest.approx(0.395473)
    assert rows.loc[(sw, 4096**2, 16, 1), "time"] == pytest.approx(0.395749)
    # line 342: │ (128, 128, 2048) │ (1, 128, 1) │ 218.592 ms │ 285.293 ms │ ... │ 1280 │
    row = rows.loc[("oceananigans-nonhydrostatic-mpi-cpu", 128 * 128 * 2048, 128, 0)]
    assert row["time"] == pytest.approx(0.285293) and row["samples"] == 1280 and row["version"] == "v0.60.1"
    # multi-GPU line 286: │   (4096, 768) │   (1, 3) │ 3.553 ms│ 3.653 ms│ 5.195 ms│39.152 ms│
    row = rows.loc[("oceananigans-shallow-water-mpi-gpu", 4096 * 768, 3, 0)]
    assert (row["time"], row["max_s"]) == pytest.approx((0.003653, 0.039152))
    # multithreading: (8192, 16384) on 32 threads, median 3.069 s
    assert rows.loc[("oceananigans-shallow-water-threads-cpu", 8192 * 16384, 32, 0), "time"] == pytest.approx(3.069)
