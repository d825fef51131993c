"""The bundled size grid ``cloud-size-grids``: AMG2023 weak scaling from converged-computing/performance-study."""

from pathlib import Path

import numpy as np
import pytest

from workbench.errors import ValidationError
from workbench.io import SIZE_GRID_COLUMNS, fetch_dataset, read_size_grids, validate_size_grids
from workbench.io.catalogue import DATA_DIR

FOLDER = DATA_DIR / "external" / "converged-computing+performance-study"
MIRROR = Path("/work/.mirror")
COMMIT = "6f3df687c43df5c3a7b76a73e206481cbbd16457"
GCE_GPU = "amg2023-google-compute-engine-gpu"


@pytest.fixture(scope="module")
def grids():
    return fetch_dataset("cloud-size-grids").frame


def test_columns_units_and_counts(grids):
    assert list(grids.columns[: len(SIZE_GRID_COLUMNS)]) == SIZE_GRID_COLUMNS
    assert {"processes", "nodes", "setup_s", "solve_s", "iterations"} <= set(grids.columns)
    assert len(grids) == 271 and grids["grid"].nunique() == 11
    assert set(grids["time_unit"]) == {"s"} and set(grids["size_scope"]) == {"per-process"}
    gpu = grids["grid"].str.endswith("-gpu")
    assert grids.loc[gpu, "n_unit"].eq("gpus").all() and grids.loc[~gpu, "n_unit"].eq("nodes").all()
    # n counts what n_unit says: GPUs = MPI ranks (8 per VM), nodes = VMs
    assert (grids.loc[gpu, "n"] == grids.loc[gpu, "processes"]).all()
    assert (grids.loc[gpu, "processes"] == 8 * grids.loc[gpu, "nodes"]).all()
    assert (grids.loc[~gpu, "n"] == grids.loc[~gpu, "nodes"]).all()
    # one ranks-per-VM layout per grid (a job smaller than its cluster would break it)
    assert (grids["processes"] / grids["nodes"]).groupby(grids["grid"]).nunique().eq(1).all()
    assert set(grids["path"].str.extract(r"^experiments/[a-z]+/[a-z-]+/(?:cpu|gpu)/size\d+/results/"
                                         r"(amg2023(?:-large)?)/")[0]) == {"amg2023", "amg2023-large"}


def test_values_are_positive_and_time_is_setup_plus_solve(grids):
    assert (grids[["n", "size", "time", "setup_s", "solve_s"]] > 0).all().all()
    assert np.allclose(grids["time"], grids["setup_s"] + grids["solve_s"], rtol=0, atol=1e-6)
    assert grids["iterations"].between(1, 100).all()
    # size is the per-process block named by size_name
    blocks = grids["size_name"].str.extract(r"^(\d+)x(\d+)x(\d+) per process$").astype(int)
    assert (blocks.prod(axis=1) == grids["size"]).all()


def test_google_compute_engine_gpu_is_a_process_by_size_grid(grids):
    gce = grids[grids["grid"] == GCE_GPU]
    cells = gce.groupby(["size", "n"]).size()
    assert sorted(gce["size"].unique()) == [128**3, 256 * 128 * 128, 256 * 256 * 128]  # >= 3 sizes
    assert cells.eq(5).all() and len(cells) == 11
    per_size = gce.groupby("size")["n"].apply(lambda n: sorted(n.unique()))
    assert per_size[128**3] == per_size[256 * 256 * 128] == [32, 64, 128, 256]
    assert per_size[256 * 128 * 128] == [32, 64, 256]
    # the other grids are weak-scaling lines: one block at 3-4 allocations
    others = grids[grids["grid"] != GCE_GPU].groupby("grid")
    assert others["size"].nunique().eq(1).all() and others["n"].nunique().between(3, 4).all()


def test_hand_checked_values_against_the_upstream_logs(grids):
    rows = grids.set_index("path")
    # experiments/google/compute-engine/gpu/size4/results/amg2023/amg2023-4-large-problem-iter-1-...out:
    # (Nx, Ny, Nz) = (1024, 512, 256), (Px, Py, Pz) = (4, 4, 2), PCG Setup 5.794447 s, PCG Solve 8.577185 s, 37 its
    row = rows.loc["experiments/google/compute-engine/gpu/size4/results/amg2023/"
                   "amg2023-4-large-problem-iter-1-4232925151232.out"]
    assert (row["grid"], row["n"], row["size"], row["size_name"]) == (GCE_GPU, 32, 4194304, "256x128x128 per process")
    assert (row["setup_s"], row["solve_s"], row["iterations"]) == (5.794447, 8.577185, 37)
    assert row["time"] == pytest.approx(14.371632, abs=1e-9)
    # .../size32/results/amg2023-large/amg2023-large-32-iter-1-5743008808960.out: (2048, 2048, 512) on (8, 8, 4),
    # setup 17.205401 s, solve 24.984746 s, 44 iterations
    row = rows.loc["experiments/google/compute-engine/gpu/size32/results/amg2023-large/"
                   "amg2023-large-32-iter-1-5743008808960.out"]
    assert (row["n"], row["size"], row["processes"], row["nodes"]) == (256, 8388608, 256, 32)
    assert row["time"] == pytest.approx(17.205401 + 24.984746, abs=1e-9) and row["iterations"] == 44
    # experiments/aws/eks/cpu/size32/results/amg2023/amg2023-32-iter-1-978011029504.out: 1024 ranks on 32 nodes,
    # setup 31.067655 s, solve 41.488405 s
    row = rows.loc["experiments/aws/eks/cpu/size32/results/amg2023/amg2023-32-iter-1-978011029504.out"]
    assert (row["grid"], row["n"], row["n_unit"], row["processes"]) == ("amg2023-aws-eks-cpu", 32, "nodes", 1024)
    assert row["time"] == pytest.approx(72.55606, abs=1e-9)


def test_left_out_runs_are_not_in_the_table(grids):
    paths = grids["path"]
    assert not paths.str.contains("ucx", case=False).any()  # the UCX transport variants
    assert not paths.str.startswith("experiments/google/gke/gpu/size4/results/amg2023/").any()  # the CPU-only run
    # a 64-node job on Azure AKS's 128-node cluster (its Flux job spec names 64 nodes)
    assert not paths.str.contains("amg2023-64-iter-i-1211600207872").any()


def test_reader_refuses_bad_tables(tmp_path, grids):
    good = grids[SIZE_GRID_COLUMNS].head(4)
    assert len(validate_size_grids(good)) == 4
    with pytest.raises(ValidationError, match=r"column 'size' must be a finite number > 0"):
        validate_size_grids(good.assign(size=0.0))
    with pytest.raises(ValidationError, match=r"column 'size_scope' must be one of total, per-process"):
        validate_size_grids(good.assign(size_scope="local"))
    with pytest.raises(ValidationError, match="several rows with size"):
        validate_size_grids(good.assign(run=0))
    mixed = good.assign(n_unit=["nodes", "gpus", "nodes", "nodes"])
    with pytest.raises(ValidationError, match="mixes n_unit"):
        validate_size_grids(mixed)
    with pytest.raises(ValidationError, match=r"missing column\(s\) 'time'"):
        validate_size_grids(good.drop(columns="time"))
    path = tmp_path / "grid.csv"
    good.assign(time=-1.0).to_csv(path, index=False)
    message = r"(?s)grid\.csv.*'time' must be a finite number > 0.*lines \[2, 3, 4, 5\]"
    with pytest.raises(ValidationError, match=message):
        read_size_grids(path)
