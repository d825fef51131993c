"""All bundled size grids in one table: ``workbench.io.development_size_grids``."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from workbench.errors import DataFormatError
from workbench.io import SIZE_GRID_COLUMNS, development_size_grids, fetch_dataset, list_datasets, validate_size_grids
from workbench.io.catalogue import DATA_DIR, SIZE_GRID_DATASETS

MIRROR = Path("/work/.mirror")
EXPECTED = {  # dataset -> (source, rows, grids)
    "cloud-size-grids": ("converged-computing/performance-study", 271, 11),
    "gromacs-alaska-size-grids": ("ukri-excalibur/excalibur-tests", 139, 6),
    "oceananigans-size-grids": ("CliMA/Oceananigans.jl", 41, 4),
    "pencilffts-size-grids": ("jipolanco/PencilFFTs.jl", 95, 5),
    "lanl-size-grids": ("lanl/benchmarks", 131, 11),
}


def test_stacks_every_size_grid_set_with_source_and_licence():
    stacked = development_size_grids()
    assert set(SIZE_GRID_DATASETS) == set(EXPECTED)
    assert list(stacked.columns) == SIZE_GRID_COLUMNS + ["processes", "nodes", "dataset", "source", "licence"]
    summary = stacked.groupby("dataset").agg(source=("source", "first"), rows=("grid", "size"),
                                             grids=("grid", "nunique"))
    assert {d: tuple(r) for d, r in summary.iterrows()} == EXPECTED
    assert stacked.groupby("dataset")["source"].nunique().eq(1).all()
    licences = list_datasets().set_index("name")["licence"]
    assert (stacked["licence"] == stacked["dataset"].map(licences)).all()
    # the LANL tables state the allocation in one unit only (n_unit), with no processes or nodes columns;
    # the Oceananigans tables do not state nodes; the other sets state both
    lanl = stacked["dataset"].eq("lanl-size-grids")
    assert str(stacked["processes"].dtype) == "Int64" and stacked.loc[~lanl, "processes"].notna().all()
    assert stacked.loc[stacked["nodes"].isna(), "dataset"].isin(["oceananigans-size-grids", "lanl-size-grids"]).all()
    assert stacked["nodes"].isna().sum() == 41 + 131
    # still a valid size-grid table; every set has a grid of >= 3 sizes
    assert len(validate_size_grids(stacked)) == len(stacked)
    assert stacked.groupby(["dataset", "grid"])["size"].nunique().groupby("dataset").max().ge(3).all()


def test_grid_names_must_be_unique_across_sets(monkeypatch):
    import workbench.io.catalogue as catalogue

    real = catalogue.fetch_dataset

    def clashing(name, **kwargs):
        ds = real(name, **kwargs)
        if name == "pencilffts-size-grids":
            ds.frame["grid"] = "gromacs-alaska-ib-c1"
        return ds

    monkeypatch.setattr(catalogue, "fetch_dataset", clashing)
    with pytest.raises(DataFormatError, match=r"grid name\(s\) \['gromacs-alaska-ib-c1'\] appear in more than one"):
        development_size_grids()
    assert isinstance(real("pencilffts-size-grids").frame, pd.DataFrame)


#: dataset -> (folder under data/external, build script, licence words, commit)
PROVENANCE = {
    "cloud-size-grids": ("converged-computing+performance-study", "build_size_grids.py", "MIT License",
                         "6f3df687c43df5c3a7b76a73e206481cbbd16457"),
    "gromacs-alaska-size-grids": ("ukri-excalibur+excalibur-tests", "build_size_grids.py", "Apache License",
                                  "37bbdc95a25bc53f06b8248ab3f515923655b71f"),
    "oceananigans-size-grids": ("CliMA+Oceananigans.jl", "build_size_grids.py", "MIT License",
                                "cd518612b0894544cc797092fdab00536077e98c"),
    "pencilffts-size-grids": ("jipolanco+PencilFFTs.jl", "build_size_grids.py", "MIT License",
                              "17bb9472324aa9c010f0e658d4ed19a0df757bf4"),
    "lanl-size-grids": ("lanl+benchmarks", "build_size_grids.py", "BSD 3-Clause License",
                        "7e0fdf9f64c956168ba45482977e9be72b3c2cae"),
}


@pytest.mark.parametrize("name", sorted(PROVENANCE))
def test_each_extract_is_bundled_with_its_licence_and_provenance(name):
    folder, build, licence_words, commit = PROVENANCE[name]
    source, _rows, _grids = EXPECTED[name]
    here = DATA_DIR / "external" / folder
    entry = list_datasets().set_index("name").loc[name]
    assert entry["kind"] == "bundled" and entry["available"]
    assert source in entry["source"] and commit[:8] in entry["source"]
    ds = fetch_dataset(name)
    assert ds.path == here / "size_grids.csv"
    assert licence_words in (here / "LICENSE").read_text()
    readme = (here / "README.md").read_text()
    assert f"Catalogue name: `{name}`" in readme and commit in readme and commit in (here / build).read_text()
    assert all(f"`{grid}`" in readme for grid in ds.frame["grid"].unique())
    assert f"`external/{folder}/` | `{name}`" in (DATA_DIR / "README.md").read_text()


#: the extracts whose build script takes the mirror from SCALING_MIRROR (``<mirror>/<folder>/repo``)
REBUILT = {"cloud-size-grids": (271, 11), "gromacs-alaska-size-grids": (139, 6), "oceananigans-size-grids": (41, 4),
           "pencilffts-size-grids": (95, 5)}


@pytest.mark.parametrize("name", sorted(REBUILT))
def test_each_build_script_reproduces_its_csv(name, tmp_path):
    folder, build, _words, commit = PROVENANCE[name]
    gitdir = MIRROR / folder / "repo"
    if not gitdir.is_dir():
        pytest.skip(f"{EXPECTED[name][0]} is not mirrored here (fetch github:{EXPECTED[name][0]} into {MIRROR})")
    if subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "-e", commit], capture_output=True).returncode:
        pytest.skip(f"the mirror does not hold the pinned commit {commit[:8]}")
    here = DATA_DIR / "external" / folder
    done = subprocess.run([sys.executable, str(here / build), "--out", str(tmp_path)],
                          env={"SCALING_MIRROR": str(MIRROR), "PATH": "/usr/bin:/bin"}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "size_grids.csv").read_bytes() == (here / "size_grids.csv").read_bytes()
    rows, grids = REBUILT[name]
    assert f"wrote {rows} rows, {grids} grids" in done.stderr
