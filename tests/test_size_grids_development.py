"""All bundled size grids in one table: ``workbench.io.development_size_grids``."""

import pandas as pd
import pytest

from workbench.errors import DataFormatError
from workbench.io import SIZE_GRID_COLUMNS, development_size_grids, list_datasets, validate_size_grids
from workbench.io.catalogue import SIZE_GRID_DATASETS

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
