"""The lanl-size-grids extract (data/external/lanl+benchmarks): units, hand-checked rows, grid shape, rebuild."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from workbench.io import fetch_dataset
from workbench.io.catalogue import DATA_DIR
from workbench.io.size_grids import SIZE_GRID_COLUMNS

HERE = DATA_DIR / "external" / "lanl+benchmarks"
#: A git mirror of lanl/benchmarks (override with LANL_BENCHMARKS_MIRROR); CI has none.
MIRROR = Path(os.environ.get("LANL_BENCHMARKS_MIRROR", "/work/.mirror/lanl+benchmarks/repo"))


@pytest.fixture(scope="module")
def grids():
    return fetch_dataset("lanl-size-grids").frame


def row(frame, grid, n, size):
    hit = frame[(frame.grid == grid) & (frame.n == n) & np.isclose(frame["size"], size, rtol=1e-12)]
    assert len(hit) == 1, (grid, n, size)
    return hit.iloc[0]


def test_columns_and_units(grids):
    # the project's size-grid table first, then the extract's own columns
    assert list(grids.columns) == SIZE_GRID_COLUMNS + ["scaling", "size_unit", "time_source", "fom", "fom_unit"]
    assert len(grids) == 131 and (grids["run"] == 0).all()
    assert set(grids["n_unit"]) == {"cores", "ranks", "nodes"}
    assert set(grids["scaling"]) == {"strong", "weak"} and set(grids["size_scope"]) == {"total"}
    assert set(grids["time_source"]) == {
        "s (photons / FOM)", "s (measured AMG setup + solve wall clock)", "s (measured walltime used)",
        "s (atoms x 10000 steps / FOM)", "s per time step (cells / FOM)",
        "s per time step (measured loop time / steps)", "s (measured loop time of 6866 steps)"}
    per_step = grids["time_source"].str.contains("per time step")
    assert (grids["time_unit"] == np.where(per_step, "s/step", "s")).all()
    units = grids.groupby("grid")[["n_unit", "size_unit", "time_source", "fom_unit", "app", "machine"]].nunique()
    assert units.eq(1).all().all()  # one unit of each kind per grid
    sizes = grids.groupby("grid")["size_unit"].first().to_dict()
    assert sizes["branson-crossroads-cpu"] == "photons" and sizes["amg-crossroads-p1-weak"] == "grid_points"
    assert sizes["vibe-crossroads-weak"] == "base_mesh_cells" and sizes["miniem-crossroads-cpu"] == "cells"
    # each size_name names its size: the number and the unit
    assert (grids["size_name"] == grids["size"].map(lambda v: f"{v:.0f}") + " " + grids["size_unit"]).all()
    # every row points at a file of the documentation tree
    assert grids["path"].str.startswith("doc/sphinx/").all()


def test_values_are_positive_and_finite(grids):
    for col in ("n", "size", "time", "fom"):
        values = grids[col].to_numpy(float)
        assert np.all(np.isfinite(values)) and np.all(values > 0), col
    assert (grids["n"] == grids["n"].round()).all()


def test_hand_checked_rows(grids):
    # cpu_10M.csv: "8,8.85e+04,...": 10 million photons / 8.85e4 photons/s
    r = row(grids, "branson-crossroads-cpu", 8, 10e6)
    assert r.fom == 8.85e4 and r.time == pytest.approx(112.99435, abs=1e-5)
    assert r.path == "doc/sphinx/01_branson/cpu_10M.csv"
    # cpu_200M.csv: "112,9.59E+05,...": 2e8 / 9.59e5
    assert row(grids, "branson-crossroads-cpu", 112, 200e6).time == pytest.approx(208.55057, abs=1e-5)
    # branson_single_scale.csv: "1,66,32,1123452.119160" (66 million photons on 32 cores of one node)
    assert row(grids, "branson-rocinante-cpu", 32, 66e6).time == pytest.approx(66e6 / 1123452.119160, rel=1e-9)
    # branson_roci_scale_photonrange.csv: 200 (million) photons, 1.25e+08 photons/s on 32 nodes
    assert row(grids, "branson-rocinante-multinode", 32, 200e6).time == pytest.approx(1.6, rel=1e-12)
    # branson_roci_scale_header.csv: 32 nodes x 85 million photons = 2720 million at 9.20E+07 photons/s
    assert row(grids, "branson-rocinante-weak", 32, 2720e6).time == pytest.approx(2720e6 / 9.2e7, rel=1e-9)
    # amg-1.1.32.out, problem 1: -P 24 12 12 x -n 38 38 38; setup 1.633190 s + solve 1.317902 s
    r = row(grids, "amg-crossroads-p1-weak", 32, 912 * 456 * 456)
    assert r.time == pytest.approx(2.951092, abs=1e-9) and r.fom == 4.363696e9
    # problem 2 on 2048 nodes: -P 96 48 48 x -n 60 60 60
    assert row(grids, "amg-crossroads-p2-weak", 2048, 5760 * 2880 * 2880)["n_unit"] == "nodes"
    # scale-cpu.16.256.4.out: walltime used = 3.46e+02 on 4 nodes with a 256^3 base mesh
    r = row(grids, "vibe-crossroads-weak", 4, 256.0**3)
    assert r.time == 346.0 and r.fom == 2.48e7
    # cpu_4k.csv: "8,219.528": 4544 atoms x 10000 steps / 219.528 katom-steps/s
    assert row(grids, "mlmd-crossroads-cpu", 8, 4544).time == pytest.approx(4544 * 10000 / 219528, rel=1e-9)
    # ats3-0768k.csv: 1 PE per NUMA domain (8 ranks), 768000 cells, 1683.32 k-cell-steps/s
    r = row(grids, "miniem-crossroads-cpu", 8, 768000)
    assert r.time == pytest.approx(768000 / 1683320, rel=1e-9) and r.n_unit == "ranks"
    assert row(grids, "miniem-crossroads-cpu", 112, 4116000).fom == 8423.60
    # ats3--all.csv: the best of the 64 tries with 15 particles per cell on 8 ranks (ats3--15.csv: 290.62):
    # "Loop time of 656.055 ... for 1779 steps"; the size is the mean particle count of the five rank counts
    r = row(grids, "sparta-crossroads-cpu", 8, 107121112)
    assert round(r.fom, 2) == 290.62 and r.time == pytest.approx(656.055 / 1779, rel=1e-9)
    # ats3--scale--all.csv: the best try on 1 node (2652.11 in ats3--scale--main.csv) ran 6866 steps in 656.29 s
    r = row(grids, "sparta-crossroads-weak", 1, 250031213)
    assert r.time == 656.29 and round(r.fom, 2) == 2652.11


def test_derived_times_invert_the_fom(grids):
    # time x FOM = the work the documentation divides by: photons, atoms x steps, cells (per step)
    photons = grids[grids.time_source == "s (photons / FOM)"]
    assert np.allclose(photons.time * photons.fom, photons["size"], rtol=1e-9)
    mlmd = grids[grids.grid == "mlmd-crossroads-cpu"]
    assert np.allclose(mlmd.time * mlmd.fom * 1e3, mlmd["size"] * 10000, rtol=1e-9)
    miniem = grids[grids.grid == "miniem-crossroads-cpu"]
    assert np.allclose(miniem.time * miniem.fom * 1e3, miniem["size"], rtol=1e-9)


def test_every_grid_is_a_size_grid_or_a_weak_line(grids):
    shape = {}
    for grid, g in grids.groupby("grid"):
        assert not g.duplicated(["n", "size"]).any(), grid
        kind = set(g["scaling"])
        assert len(kind) == 1, grid
        if kind == {"strong"}:
            per_size = g.groupby("size")["n"].nunique()
            assert len(per_size) >= 2 and per_size.min() >= 2, grid
        else:  # weak: one allocation per size, the size grows with the allocation
            assert g.groupby("size")["n"].nunique().eq(1).all() and len(g) >= 3, grid
            g = g.sort_values("n")
            assert g["size"].is_monotonic_increasing and g["n"].is_unique, grid
        shape[grid] = (g["size"].nunique(), g["n"].nunique(), len(g))
    assert shape == {
        "branson-crossroads-cpu": (3, 5, 15), "branson-rocinante-cpu": (3, 5, 15),
        "branson-rocinante-multinode": (7, 3, 20), "branson-rocinante-weak": (3, 3, 3),
        "amg-crossroads-p1-weak": (7, 7, 7), "amg-crossroads-p2-weak": (7, 7, 7), "vibe-crossroads-weak": (12, 12, 12),
        "mlmd-crossroads-cpu": (2, 5, 10), "miniem-crossroads-cpu": (3, 5, 15),
        "sparta-crossroads-cpu": (3, 5, 15), "sparta-crossroads-weak": (12, 12, 12)}


def test_weak_lines_keep_the_work_per_node(grids):
    per_node = grids[grids.scaling == "weak"].assign(per=lambda f: f["size"] / f["n"]).groupby("grid")["per"]
    spread = per_node.max() / per_node.min()
    # Branson and AMG exactly (85M photons per node; 38^3 or 60^3 points per rank x 108 ranks);
    # VIBE's NX is a multiple of 16: 4.0M (400^3 / 16 nodes) to 4.5M (208^3 / 2 nodes) base cells per node;
    # SPARTA's particle count (about 250M per node) is the run's, which the flow changes slightly
    assert spread[["branson-rocinante-weak", "amg-crossroads-p1-weak", "amg-crossroads-p2-weak"]].eq(1).all()
    assert spread["vibe-crossroads-weak"] < 1.15 and spread["sparta-crossroads-weak"] < 1.01
    assert per_node.first()["amg-crossroads-p1-weak"] == 108 * 38**3


@pytest.mark.skipif(not MIRROR.is_dir(), reason=f"no git mirror of lanl/benchmarks at {MIRROR} (set "
                    "LANL_BENCHMARKS_MIRROR); CI has none, so the rebuild is checked where the mirror exists")
def test_build_script_reproduces_the_extract(tmp_path):
    spec = importlib.util.spec_from_file_location("lanl_build", HERE / "build_size_grids.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    known = subprocess.run(["git", "-C", str(MIRROR), "cat-file", "-e", f"{module.COMMIT}^{{commit}}"],
                           capture_output=True)
    if known.returncode != 0:
        pytest.skip(f"the mirror at {MIRROR} lacks the pinned commit {module.COMMIT}")
    out = tmp_path / "size_grids.csv"
    module.main(["--repo", str(MIRROR), "--out", str(out)])
    assert out.read_bytes() == (HERE / "size_grids.csv").read_bytes()
