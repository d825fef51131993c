"""Sources of the per-region evaluation (tools/region_coverage.py) read from fetched mirrors.

HECBioSim/benchmark-results has no licence: tools/hecbiosim_profiles.py reads it from the
mirror when an evaluation runs, and these tests check that reader on the mirror (skipped where
the repository is not fetched). The bundled extracts (lammps-cloud-regions,
kripke-cloud-regions) are tested in test_catalogue.py; here, how the tool evaluates one of their curves.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.io import validate_profile_table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import hecbiosim_profiles  # noqa: E402

HECBIOSIM_REPO = Path("/work/.mirror/HECBioSim+benchmark-results/repo")


@pytest.fixture(scope="module")
def hecbiosim():
    if not HECBIOSIM_REPO.exists():
        pytest.skip("HECBioSim/benchmark-results is not mirrored here (fetch github:HECBioSim/benchmark-results)")
    return hecbiosim_profiles.profile_table(HECBIOSIM_REPO)


def test_hecbiosim_reads_every_job_as_a_profile_table(hecbiosim):
    table = validate_profile_table(hecbiosim)
    # 2 applications x 5 systems x 8 splits of a node (one LAMMPS curve has no file in the mirror)
    assert table["curve"].nunique() == 79 and set(table["app"]) == {"gromacs", "lammps"}
    assert set(table["atoms"]) == {"20k", "61k", "465k", "1400k", "3000k"}
    assert (table["processes"] == table["nodes"] * 128 / table["threads"]).all()
    assert (table["cores"] == table["nodes"] * 128).all()
    assert table["nodes"].between(1, 16).all() and set(table["threads"]) == {1, 2, 4, 8, 16, 32, 64, 128}
    assert table.groupby("profile")["region"].apply(lambda r: r.is_unique).all()
    assert all(name.startswith("archer/lammps/") for name in table.attrs["skipped"])


def test_hecbiosim_values_are_those_of_the_job_files(hecbiosim):
    # GROMACS, 1400k atoms, 4 nodes x 1 task x 128 threads: cycle accounting as in the JSON file
    job = hecbiosim[hecbiosim["profile"] == "archer/gromacs/128threads-1tasks/1400k-atoms/4/"
                                           "archergmx1400katoms128threads4nodes.json"].set_index("region")["value"]
    assert job["mdrun"] == 681.202 and job["mdrun->Force"] == 384.308 and job["mdrun->PME mesh"] == 166.163
    assert job["mdrun->Rest"] == 1.249  # hpcbench stores the Rest row's wall time under 'Ranks'
    # without separate PME ranks the rows add up to the wall time
    assert np.isclose(job.drop("mdrun").sum(), job["mdrun"], rtol=1e-3)
    # LAMMPS, 1400k atoms, 4 nodes: the breakdown's avg column adds up to the loop time
    job = hecbiosim[hecbiosim["profile"] == "archer/lammps/128threads-1tasks/1400k-atoms/4/"
                                           "archerlammps1400katoms128threads4nodes.json"].set_index("region")["value"]
    assert job["Loop"] == 3242.7099999999996 and job["Loop->Kspace"] == 1039 and job["Loop->Pair"] == 841.1
    assert np.isclose(job.drop("Loop").sum(), job["Loop"], rtol=1e-3)


def test_hecbiosim_separate_pme_ranks_each_add_up_to_the_wall_time(hecbiosim):
    gromacs = hecbiosim[hecbiosim["app"] == "gromacs"]
    values = gromacs.pivot_table(index="profile", columns="region", values="value")
    children = values.drop(columns="mdrun").sum(axis=1)
    pme = values["mdrun->PME mesh *"].notna()
    assert pme.any() and (~pme).any()
    # particle-particle ranks and PME ranks each account for the whole run: about twice the root (hpcbench's
    # JSON lacks a row of the PME ranks in some runs, up to 5 % of the root, e.g. 465k atoms, 128 tasks per node)
    ratio = children / values["mdrun"]
    assert ratio[pme].between(1.85, 2.001).all() and (ratio[pme].median() - 2) ** 2 < 1e-6
    assert np.allclose(ratio[~pme], 1, rtol=1e-3)


def test_region_coverage_evaluates_one_cloud_curve_at_its_last_size():
    import region_coverage

    from workbench.io import fetch_dataset

    table = fetch_dataset("lammps-cloud-regions").frame
    rows = region_coverage.evaluate(table, "processes", {"curve": "lammps-aws-parallel-cluster-cpu-64x64x32"})
    # 7 regions fitted on 32, 64, 128 VMs (96 ranks each), predicted at 256 VMs against the median of 5 runs:
    # the four-size curves have one cut, the one holding out the largest allocation (3 are needed to fit)
    assert len(rows) == 7 and set(rows["n"]) == {24576} and set(rows["cut"]) == {3} and set(rows["held"]) == {1}
    curve = table[(table["curve"] == "lammps-aws-parallel-cluster-cpu-64x64x32") & (table["processes"] == 24576)]
    median = curve.groupby("region")["value"].median()
    assert np.allclose(rows.set_index("region")["actual"].sort_index(), median.sort_index())
    assert (rows["inside"] == ((rows["lower"] <= rows["actual"]) & (rows["actual"] <= rows["upper"]))).all()


@pytest.fixture(scope="module")
def hecbiosim_sizes():
    if not HECBIOSIM_REPO.exists():
        pytest.skip("HECBioSim/benchmark-results is not mirrored here (fetch github:HECBioSim/benchmark-results)")
    return dict(hecbiosim_profiles.size_grids(HECBIOSIM_REPO))


def test_hecbiosim_size_grids_are_five_systems_at_node_doublings(hecbiosim_sizes):
    # 4 engines: AMBER (one split) and GROMACS, LAMMPS, NAMD (8, 8, 7 splits of a node)
    assert len(hecbiosim_sizes) == 24
    assert {name.split("-")[0] for name in hecbiosim_sizes} == {"amber", "gromacs", "lammps", "namd"}
    for name, grid in hecbiosim_sizes.items():
        assert list(grid.columns) == ["n", "atoms", "t"] and (grid.t > 0).all()
        tasks = int(name.split("-")[1].removesuffix("tasks"))
        assert set(grid.n / tasks) <= set(hecbiosim_profiles.NODE_DOUBLINGS)
        assert grid.atoms.nunique() >= 4 and grid.atoms.between(19_000, 3_000_000).all()


def test_hecbiosim_size_grid_runtime_is_seconds_per_step(hecbiosim_sizes):
    # GROMACS, 1400k atoms, 4 nodes x 1 task x 128 threads: 681.202 s wall for 10,000 steps
    grid = hecbiosim_sizes["gromacs-1tasks-x-128threads"]
    row = grid[(grid.n == 4) & (grid.atoms == 1403180)]
    assert len(row) == 1 and row.t.iloc[0] == pytest.approx(681.202 / 10_000)
    # the smallest system ran 50,000 steps and the others 10,000: per step, bigger is slower at every allocation
    per_size = hecbiosim_sizes["namd-128tasks-x-1threads"].pivot_table(index="n", columns="atoms", values="t")
    assert (np.diff(per_size.to_numpy(), axis=1) > 0).all()
