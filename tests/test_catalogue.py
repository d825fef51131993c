"""Dataset catalogue: mirror resolution, registry, bundled and mirrored datasets."""

from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.errors import DatasetNotFoundError, ParseWarning
from workbench.io import (
    MIRROR_ENV,
    Dataset,
    data_mirror,
    fetch_dataset,
    fetch_npb_pi_cluster,
    fetch_seed_table,
    list_curves,
    list_datasets,
    select_curve,
)
from workbench.io.catalogue import DATA_DIR
from workbench.models.downey import runtime

REPO = Path(__file__).resolve().parents[1]
SEED_STEMS = sorted(p.stem for p in (REPO / "data" / "seed-tables").glob("*.csv"))


def test_data_dir_is_the_repository_data_folder():
    assert DATA_DIR == REPO / "data"
    assert len(SEED_STEMS) == 7


def test_data_mirror_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    with pytest.raises(DatasetNotFoundError, match=rf"set {MIRROR_ENV} to a directory holding npb-pi-cluster/"):
        data_mirror()
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "missing"))
    with pytest.raises(DatasetNotFoundError, match="is not an existing directory"):
        data_mirror()
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path))
    assert data_mirror() == tmp_path
    assert data_mirror(tmp_path / "..") == tmp_path / ".."  # the argument wins over the variable


def test_list_datasets_without_mirror(monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    table = list_datasets()
    assert table.columns.tolist() == ["name", "title", "kind", "available", "path", "source", "licence"]
    names = table["name"].tolist()
    assert names[:3] == ["npb-pi-cluster", "osu-orfeo", "extrap-mpi"]
    assert {"synthetic-downey", "synthetic-cross-size"} <= set(names)
    assert {f"seed-{s}" for s in SEED_STEMS} <= set(names)
    mirror = table[table["kind"] == "mirror"]
    assert not mirror["available"].any() and mirror["path"].isna().all()
    bundled = table[table["kind"] == "bundled"]
    # kmeans-fim, comm-pingpong-local, comm-datagen-local, fractal-demo-local, two synthetic
    # tables, the seed tables, the curve extracts under data/external, the per-region profile extracts and the
    # size grids (5 entries of _EXTERNAL_SIZE_GRIDS: tests/test_size_grids_*.py, tests/test_lanl_grids.py)
    assert bundled["available"].all() and len(bundled) == (6 + len(SEED_STEMS) + len(EXTERNAL_EXTRACTS)
                                                          + len(PROFILE_EXTRACTS) + 5)
    assert table.set_index("name").loc["npb-pi-cluster", "licence"] == "MIT"
    assert "SYNTHETIC" in table.set_index("name").loc["synthetic-downey", "title"]


def test_fetch_errors(monkeypatch, tmp_path):
    with pytest.raises(DatasetNotFoundError, match="unknown dataset 'nas'; available: npb-pi-cluster"):
        fetch_dataset("nas")
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    with pytest.raises(DatasetNotFoundError, match=MIRROR_ENV):
        fetch_npb_pi_cluster()
    with pytest.raises(DatasetNotFoundError, match=r"npb-pi-cluster/results not found in the data mirror"):
        fetch_npb_pi_cluster(mirror=tmp_path)
    with pytest.raises(DatasetNotFoundError, match="unknown seed table 'table99'"):
        fetch_seed_table("table99")


def test_fetch_npb_pi_cluster(data_mirror):
    with pytest.warns(ParseWarning) as record:
        ds = fetch_npb_pi_cluster(mirror=data_mirror)
    assert isinstance(ds, Dataset) and ds.name == "npb-pi-cluster" and ds.licence == "MIT"
    assert ds.path == data_mirror / "npb-pi-cluster" / "results"
    assert "JohnnyPol/Pi_Cluster" in ds.source and "Raspberry Pi" in ds.description
    assert len(ds.frame) == 75 and len(ds.frame.attrs["skipped"]) == 10 == len(record)
    assert ds.frame.attrs["cores_per_node"] == 4
    assert "packed (4 per node)" in set(list_curves(ds.frame)["placement"])


def test_fetch_uses_environment_variable(monkeypatch, data_mirror):
    monkeypatch.setenv(MIRROR_ENV, str(data_mirror))
    table = list_datasets()
    assert table["available"].all()
    ds = fetch_dataset("osu-orfeo")
    assert len(ds.frame) == 54916 and "No loader yet" not in ds.description
    assert ds.path == data_mirror / "osu-orfeo" and (ds.path / "bcast_core.csv").is_file()
    ds = fetch_dataset("extrap-mpi")
    assert len(ds.frame) == 70 and (ds.path / "mpi_data.csv").is_file() and ds.licence == "BSD-3-Clause"


@pytest.mark.parametrize("stem", SEED_STEMS)
def test_seed_tables_are_unchanged_copies(stem, data_mirror):
    ds = fetch_seed_table(stem)
    assert ds.name == f"seed-{stem}" and "seed" in ds.source
    assert fetch_seed_table(f"{stem}.csv").name == fetch_seed_table(f"seed-{stem}").name == ds.name
    original = pd.read_csv(data_mirror / "seed-tables" / f"{stem}.csv")
    pd.testing.assert_frame_equal(ds.frame, original)


def test_adept_table2_values():
    frame = fetch_seed_table("adept_fit_runtime_table2").frame
    assert frame["adept_s"].tolist() == [0.46, 0.48]
    assert frame["exhaustive_search_s"].tolist() == [5, 5]


def test_synthetic_downey_follows_the_model():
    frame = fetch_dataset("synthetic-downey").frame
    model = 2.5 * runtime(frame["processes"].to_numpy(), 120, 0.6)
    ratio = frame["time_s"].to_numpy() / model
    assert np.all(np.abs(ratio - 1) < 0.08)  # 2% noise: 4 standard deviations
    assert abs(ratio.mean() - 1) < 0.015
    runs = frame.groupby("processes")["run"].nunique()
    assert runs[runs == 3].index.tolist() == [4, 32, 128]
    assert frame["processes"].min() == 1 and frame["processes"].max() == 256
    assert frame["source"].str.startswith("synthetic").all()
    curve = select_curve(frame, "downey-synthetic", "example")
    assert len(curve) == 22


def test_synthetic_cross_size():
    frame = fetch_dataset("synthetic-cross-size").frame
    curves = list_curves(frame)
    assert sorted(curves["problem_class"]) == ["large", "small"]
    assert (curves["n_points"] == 16).all()
    large = select_curve(frame, "downey-synthetic", "large")
    small = select_curve(frame, "downey-synthetic", "small")
    # similar shape: the runtime ratio stays within a factor 1.6 of its value at n = 1
    ratio = large["time_s"].to_numpy() / small["time_s"].to_numpy()
    assert np.all((ratio / ratio[0] > 1 / 1.6) & (ratio / ratio[0] < 1.6))


def test_synthetic_files_are_reproducible(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("make_synthetic", REPO / "data" / "synthetic" / "make_synthetic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    module.main()
    for name in ("downey_example.csv", "cross_size_example.csv"):
        assert (tmp_path / name).read_bytes() == (REPO / "data" / "synthetic" / name).read_bytes(), name


def test_data_readme_mentions_every_file():
    readme = (REPO / "data" / "README.md").read_text()
    for name in ("seed-tables", "downey_example.csv", "cross_size_example.csv", "make_synthetic.py", MIRROR_ENV):
        assert name in readme
    assert "SYNTHETIC" in readme
    for name, (folder, *_rest) in EXTERNAL_EXTRACTS.items():  # the data/external table lists every extract
        assert f"`external/{folder}/`" in readme and f"`{name}`" in readme
    for name, (folder, *_rest) in PROFILE_EXTRACTS.items():
        assert f"`external/{folder}/`" in readme and f"`{name}`" in readme
    seed_readme = (REPO / "data" / "seed-tables" / "README.md").read_text()
    assert all(f"{stem}.csv" in seed_readme for stem in SEED_STEMS)


def test_no_warnings_for_bundled_data():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in list_datasets().query("kind == 'bundled'")["name"]:
            assert fetch_dataset(name).frame is not None


def test_measured_kmeans_dataset_is_labelled_and_complete():
    ds = fetch_dataset("kmeans-fim")
    runs = ds.frame
    assert "MEASURED" in ds.description and ds.path.name == "kmeans_fim.csv"
    assert set(runs["role"]) == {"train", "test"}
    assert runs.groupby(["role", "iterations", "clusters", "points", "processes"]).size().eq(3).all()
    assert sorted(runs.loc[runs.role == "train", "processes"].unique()) == [1, 2, 4]
    machine = runs.attrs["machine"]
    assert machine["cpus"] == 2 and machine["perf_version"].startswith("perf version")
    assert runs.attrs["date"].startswith("2026-")
    # counters were measured, not left empty
    assert runs["cycles"].gt(0).all() and runs["stall_cycles"].lt(runs["cycles"]).all()


#: Curve extracts of upstream sources: catalogue name -> (repository, licence, curves, runs, units, licence file).
CURVE_EXTRACTS = {
    "excalibur-alaska": ("ukri-excalibur/excalibur-tests", "Apache-2.0", 24, 169, {"nodes"}, "LICENSE"),
    "mlperf-v0.7-dgxa100": ("mlcommons/training_results_v0.7", "Apache-2.0", 1, 50, {"gpus"}, "LICENSE.md"),
    "mlperf-v0.6-tpuv3": ("mlcommons/training_results_v0.6", "Apache-2.0", 4, 170, {"cores"}, "LICENSE.md"),
}


@pytest.mark.parametrize("name", sorted(CURVE_EXTRACTS))
def test_curve_extracts_load_with_licence_and_provenance(name, data_mirror):
    from workbench.io import CURVE_COLUMNS, TOPOLOGY_COLUMNS

    repo, licence, n_curves, n_runs, units, licence_file = CURVE_EXTRACTS[name]
    entry = list_datasets(mirror=data_mirror).set_index("name").loc[name]
    assert entry["available"] and entry["licence"] == licence and repo in entry["source"]
    ds = fetch_dataset(name, mirror=data_mirror)
    frame = ds.frame
    assert list(frame.columns[: len(CURVE_COLUMNS) + 4]) == CURVE_COLUMNS + TOPOLOGY_COLUMNS
    assert {"commit", "path", "problem", "notes", "licence"} <= set(frame.columns)
    assert frame["source"].eq(repo).all() and frame["licence"].eq(licence).all()
    assert frame["commit"].str.fullmatch(r"[0-9a-f]{40}").all() and frame["commit"].nunique() == 1
    assert frame["curve_id"].nunique() == n_curves and len(frame) == n_runs and set(frame["unit"]) == units
    assert frame.groupby("curve_id")["n"].nunique().min() >= 4
    text = (ds.path.parent / licence_file).read_text()
    assert "Apache License" in text and "Version 2.0" in text
    assert frame["commit"].iloc[0][:8] in ds.source


#: Extracts bundled under data/external: name -> (folder, repository, licence, curves, runs, n range, licence words).
EXTERNAL_EXTRACTS = {
    "cmaq-cloud": ("CMASCenter+pcluster-cmaq", "CMASCenter/pcluster-cmaq", "MIT", 8, 68, (18, 576), "MIT License"),
    "npb-omp-cpus": ("UoB-HPC+pmbs26-vera-artifact", "UoB-HPC/pmbs26-vera-artifact", "BSD-3-Clause", 32, 448, (1, 96),
                     "BSD 3-Clause License"),
    "cg-multigpu-a100": ("1fni+cuda-spmv-benchmark", "1fni/cuda-spmv-benchmark", "MIT", 6, 24, (1, 8), "MIT License"),
    "lammps-cloud": ("converged-computing+performance-study", "converged-computing/performance-study", "MIT", 11, 203,
                     (32, 256), "MIT License"),
    "oceananigans-nibi-gpus": ("francispoulin+Oceananigans-DRAC", "francispoulin/Oceananigans-DRAC", "MIT", 2, 10,
                               (1, 32), "MIT License"),
    "oceananigans-suite-nibi": ("AndiJingzhiTse+Oceananigans.jl", "AndiJingzhiTse/Oceananigans.jl", "MIT", 3, 21,
                                (1, 3072), "MIT License"),
    "azure-hbv3-apps": ("MicrosoftDocs+architecture-center", "MicrosoftDocs/architecture-center", "CC-BY-4.0", 20, 173,
                        (8, 1152), "Creative Commons Attribution 4.0 International Public License"),
}


@pytest.mark.parametrize("name", sorted(EXTERNAL_EXTRACTS))
def test_external_extracts_are_documented_and_load(name):
    from workbench.io import CURVE_COLUMNS, TOPOLOGY_COLUMNS

    folder, repo, licence, n_curves, n_runs, (n_min, n_max), licence_words = EXTERNAL_EXTRACTS[name]
    entry = list_datasets().set_index("name").loc[name]
    assert entry["kind"] == "bundled" and entry["available"] and entry["licence"] == licence
    assert repo in entry["source"]
    ds = fetch_dataset(name)
    frame = ds.frame
    assert list(frame.columns[: len(CURVE_COLUMNS) + 4]) == CURVE_COLUMNS + TOPOLOGY_COLUMNS
    assert frame["source"].eq(repo).all() and frame["licence"].eq(licence).all()
    assert frame["curve_id"].nunique() == n_curves and len(frame) == n_runs
    assert (frame["n"].min(), frame["n"].max()) == (n_min, n_max)
    assert frame.groupby("curve_id")["n"].nunique().min() >= 4
    # one pinned commit per extract, or one per upstream file when the files were edited at different times
    commits = frame["commit"].unique()
    assert frame.groupby("path")["commit"].nunique().eq(1).all()
    assert all(re.fullmatch(r"[0-9a-f]{40}", c) and c[:8] in ds.source for c in commits)
    here = DATA_DIR / "external" / folder
    assert ds.path == here / "curves.csv"
    assert licence_words in (here / "LICENSE").read_text()
    readme = (here / "README.md").read_text()
    assert all(c in readme for c in commits) and f"Catalogue name: `{name}`" in readme
    # each curve id is named in the README, literally or by a template such as `npb-omp-B-<kernel>-vera`
    templates = [re.compile(re.sub(r"<[a-z]+>", "[a-z0-9.]+", re.escape(t).replace(r"\<", "<").replace(r"\>", ">")))
                 for t in re.findall(r"`([^`]*<[a-z]+>[^`]*)`", readme)]
    assert all(curve in readme or any(t.fullmatch(curve) for t in templates) for curve in frame["curve_id"].unique())
    build = (here / "build.py").read_text()
    assert all(c in build for c in commits) and "SCALING_MIRROR" in build


def test_cmaq_cloud_topology_crosses_vm_boundaries():
    curves = fetch_dataset("cmaq-cloud").frame
    assert curves["unit"].eq("processes").all() and curves["processes"].astype(float).eq(curves["n"]).all()
    assert curves["nodes"].notna().all() and curves["cores_per_node"].notna().all()
    assert curves["gpus_per_node"].isna().all()
    # every curve starts on one VM and ends on several
    span = curves.groupby("curve_id")["nodes"].agg(["min", "max"])
    assert span["min"].eq(1).all() and span["max"].ge(4).all()
    hbv3 = curves[curves["curve_id"] == "cmaq-12us2-azure-hbv3-64ppn"]
    assert hbv3["cores_per_node"].eq(120).all() and (hbv3["processes"] == 64 * hbv3["nodes"]).all()
    assert sorted(hbv3["n"].unique()) == [64, 128, 192, 256, 320, 384, 448]
    c5n = curves[curves["curve_id"] == "cmaq-12us2-aws-c5n.9xlarge"].set_index(["n", "run"])["time_s"]
    assert c5n[(18, 0)] == 24354.39 and c5n[(126, 0)] == 4042.71


def test_npb_omp_cpus_times_agree_with_the_printed_times():
    curves = fetch_dataset("npb-omp-cpus").frame
    assert curves["unit"].eq("cores").all() and curves["nodes"].eq(1).all() and curves["processes"].isna().all()
    assert dict(curves.groupby("curve_id")["cores_per_node"].first().groupby(lambda c: c.rsplit("-", 1)[-1]).first()) \
        == {"grace": 144, "vera": 88, "9r45": 192, "gnr": 96}
    assert set(curves.groupby("curve_id")["n"].max()) == {72, 88, 96}
    # time_s = W / (Mop/s); the printed two-decimal time in notes agrees to its rounding
    printed = curves["notes"].str.extract(r"printed runtime_s=([\d.]+)")[0].astype(float)
    assert ((curves["time_s"] - printed).abs() <= 0.0051 + 0.004 * curves["time_s"]).all()
    bt = curves[curves["curve_id"] == "npb-omp-B-bt-grace"].set_index("n")["time_s"]
    assert bt[1] == 86.84 and round(bt[2], 4) == round(8086.08 * 86.84 / 15960.99, 4)


def test_cg_multigpu_a100_is_gpu_strong_scaling_in_one_node():
    curves = fetch_dataset("cg-multigpu-a100").frame
    assert curves["unit"].eq("gpus").all() and curves["gpus_per_node"].eq(8).all() and curves["nodes"].eq(1).all()
    assert (curves["processes"].astype(float) == curves["n"]).all()
    times = curves.set_index(["curve_id", "n"])["time_s"]
    assert times[("cg-custom-stencil-20k-a100x8", 1)] == 0.5314 and times[("cg-amgx-20k-a100x8", 8)] == 0.10233
    assert all(sorted(ns) == [1, 2, 4, 8] for ns in curves.groupby("curve_id")["n"].apply(list))


def test_oceananigans_nibi_gpus_start_inside_one_node_and_leave_it():
    curves = fetch_dataset("oceananigans-nibi-gpus").frame
    assert curves["unit"].eq("gpus").all() and curves["gpus_per_node"].eq(8).all()
    assert curves["cores_per_node"].isna().all() and (curves["processes"].astype(float) == curves["n"]).all()
    # whole 8-GPU nodes once a run needs more than one: nodes = ceil(GPUs / 8)
    assert (curves["nodes"].astype(float) == np.ceil(curves["n"] / 8)).all()
    quarter = curves[curves["curve_id"] == "oceananigans-earth-ocean-1440x720x200-nibi-h100"].set_index("n")
    assert list(quarter.index) == [1, 2, 4, 8, 16, 32] and quarter["run"].eq(0).all()
    assert list(quarter["nodes"]) == [1, 1, 1, 1, 2, 4]  # 4 allocations inside one node, 2 across nodes
    assert quarter.loc[1, "time_s"] == 1.0114 and quarter.loc[32, "time_s"] == 0.0693
    # strong scaling: the time per step falls, by less than the GPU count once the runs cross nodes
    assert quarter["time_s"].is_monotonic_decreasing
    assert quarter.loc[16, "time_s"] / quarter.loc[32, "time_s"] < 1.3
    eighth = curves[curves["curve_id"] == "oceananigans-earth-ocean-2880x1440x200-nibi-h100"].set_index("n")
    assert list(eighth.index) == [4, 8, 16, 32] and eighth.loc[4, "time_s"] == 1.0364


def test_oceananigans_suite_nibi_cpu_and_gpu_curves_leave_one_node():
    curves = fetch_dataset("oceananigans-suite-nibi").frame
    assert (curves["processes"].astype(float) == curves["n"]).all() and curves["run"].eq(0).all()
    assert curves.groupby("path")["commit"].nunique().eq(1).all() and curves["commit"].nunique() == 3
    cpu = curves[curves["unit"] == "processes"].set_index("n")
    gpu = curves[curves["curve_id"] == "oceananigans-suite-earth-ocean-nibi-h100"].set_index("n")
    rorqual = curves[curves["curve_id"] == "oceananigans-suite-earth-ocean-rorqual-h100"].set_index("n")
    assert len(cpu) + len(gpu) + len(rorqual) == len(curves) and (rorqual["unit"] == "gpus").all()
    assert cpu["cores_per_node"].eq(192).all() and cpu["gpus_per_node"].isna().all()
    assert gpu["gpus_per_node"].eq(8).all() and gpu["cores_per_node"].isna().all()
    # nodes = ceil(n / units per node): seven CPU counts and three GPU counts inside one node
    assert (cpu["nodes"].astype(float) == np.ceil(cpu.index / 192)).all()
    assert (gpu["nodes"].astype(float) == np.ceil(gpu.index / 8)).all()
    assert list(cpu.index) == [3, 6, 12, 24, 48, 96, 192, 384, 768, 1536, 3072] and cpu["nodes"].eq(1).sum() == 7
    assert list(gpu.index) == [1, 2, 4, 32] and list(gpu["nodes"]) == [1, 1, 1, 4]
    assert cpu.loc[3, "time_s"] == 278.661033 and cpu.loc[3072, "time_s"] == 0.972165
    assert gpu.loc[1, "time_s"] == 1.021461 and gpu.loc[32, "time_s"] == 0.148059
    assert cpu["time_s"].is_monotonic_decreasing and gpu["time_s"].is_monotonic_decreasing
    # Rorqual: 4 H100 per node, 1, 2, 4 inside one node, then 2, 4, 8 nodes; 32 GPUs slower than 16 (median)
    assert rorqual["gpus_per_node"].eq(4).all() and rorqual["cores_per_node"].isna().all()
    assert list(rorqual.index) == [1, 2, 4, 8, 16, 32] and list(rorqual["nodes"]) == [1, 1, 1, 2, 4, 8]
    assert rorqual.loc[1, "time_s"] == 0.965221 and rorqual.loc[32, "time_s"] == 0.130831
    assert rorqual.loc[:16, "time_s"].is_monotonic_decreasing and rorqual.loc[32, "time_s"] > rorqual.loc[16, "time_s"]
    # the fastest window is kept in notes and is never slower than the median
    fastest = curves["notes"].str.extract(r"fastest-window time ([\d.]+) s/step")[0].astype(float)
    assert fastest.notna().all() and (fastest <= curves["time_s"]).all()


def test_lammps_cloud_topology_and_retrograde_tail():
    curves = fetch_dataset("lammps-cloud").frame
    cpu = curves[curves["unit"] == "nodes"]
    gpu = curves[curves["unit"] == "gpus"]
    assert len(cpu) + len(gpu) == len(curves) and cpu["curve_id"].nunique() == 6 and gpu["curve_id"].nunique() == 5
    assert (cpu["processes"] % cpu["nodes"] == 0).all()
    assert set((cpu["processes"] // cpu["nodes"]).unique()) == {56, 96}
    assert (gpu["processes"].astype(float) == gpu["n"]).all() and (gpu["processes"] == 8 * gpu["nodes"]).all()
    gke = cpu[cpu["curve_id"] == "lammps-reaxff-64x64x32-google-gke-cpu"].groupby("n")["time_s"].median()
    assert gke[256] > 2.5 * gke[128]  # the retrograde tail is kept as measured


def test_azure_hbv3_apps_start_inside_one_node_and_cross_it():
    curves = fetch_dataset("azure-hbv3-apps").frame
    ranks = curves["unit"].eq("processes")
    assert set(curves.loc[~ranks, "curve_id"]) == {f"azure-{m}-tnavigator-speedtest9" for m in ("hbv3", "hbv4")}
    assert curves.loc[~ranks, "unit"].eq("cores").all() and curves.loc[~ranks, "processes"].isna().all()
    assert curves.loc[ranks, "processes"].astype(float).eq(curves.loc[ranks, "n"]).all()
    hbv4 = curves["curve_id"].str.startswith("azure-hbv4")
    assert curves.loc[hbv4, "cores_per_node"].eq(176).all() and curves.loc[~hbv4, "cores_per_node"].eq(120).all()
    assert curves["gpus_per_node"].isna().all()
    # every curve: >= 3 allocations on one node, >= 3 node counts beyond it, 64 (HBv4: 144) cores per node there
    inside = curves[curves["nodes"] == 1]
    beyond = curves[curves["nodes"] > 1]
    assert inside.groupby("curve_id")["n"].nunique().min() >= 3 and (inside["n"] <= inside["cores_per_node"]).all()
    assert beyond.groupby("curve_id")["nodes"].nunique().min() >= 3
    assert curves["curve_id"].nunique() == inside["curve_id"].nunique() == beyond["curve_id"].nunique() == 20
    per_node = (beyond["n"] / beyond["nodes"]).groupby(beyond["cores_per_node"]).unique()
    assert {k: list(v) for k, v in per_node.items()} == {120: [64], 176: [144]}
    times = curves.set_index(["curve_id", "n", "run"])["time_s"]
    # Fluent: the 1-node row of the multi-node table repeats the single-node 64-core measurement (kept once,
    # with the more precise multi-node value); NAMD: two different 1-node measurements at 64 ranks
    assert times[("azure-hbv3-fluent-combustor-12m", 64, 0)] == 1512.56
    assert ("azure-hbv3-fluent-combustor-12m", 64, 1) not in times.index
    namd = times["azure-hbv3-namd-stmv-21m"]
    assert namd[(64, 0)] == 4092.31 and namd[(64, 1)] == 3835.48 and namd[(1024, 0)] == 183.09
    # AcuSolve's single-node table is in hours (x 3600); tNavigator on HBv4 crosses at 144 of 176 cores
    assert times[("azure-hbv3-acusolve-impinging-nozzle", 16, 0)] == 13.48 * 3600
    assert times[("azure-hbv4-tnavigator-speedtest9", 1152, 0)] == 958


#: Per-region profile extracts under data/external: name -> (folder, repository, licence, curves, runs, regions).
PROFILE_EXTRACTS = {
    "lammps-cloud-regions": ("converged-computing+performance-study/regions/lammps",
                             "converged-computing/performance-study", "MIT", 11, 203, 7),
    "kripke-cloud-regions": ("converged-computing+performance-study/regions/kripke",
                             "converged-computing/performance-study", "MIT", 8, 144, 9),
}


@pytest.mark.parametrize("name", sorted(PROFILE_EXTRACTS))
def test_profile_extracts_are_documented_and_load(name):
    from workbench.io import read_profiles, validate_profile_table

    folder, repo, licence, n_curves, n_runs, n_regions = PROFILE_EXTRACTS[name]
    entry = list_datasets().set_index("name").loc[name]
    assert entry["kind"] == "bundled" and entry["available"] and entry["licence"] == licence
    ds = fetch_dataset(name)
    here = DATA_DIR / "external" / folder
    assert ds.path == here and repo in ds.source
    table = validate_profile_table(ds.frame)
    assert table["curve"].nunique() == n_curves and table["profile"].nunique() == n_runs
    assert table["region"].nunique() == n_regions and set(table["metric"]) == {"time"} and set(table["unit"]) == {"s"}
    assert (table["value"] >= 0).all() and table["processes"].notna().all()
    assert table.groupby("curve")["processes"].nunique().min() >= 4  # >= 4 allocations per curve
    # every run holds every region once
    assert table.groupby("profile")["region"].nunique().eq(n_regions).all()
    # one file is one curve, read alone (an Extra-P experiment over the parameter processes)
    first = sorted(here.glob("*.jsonl"))[0]
    alone = read_profiles(first)
    assert len(alone) == (table["curve"] == first.stem).sum() and alone["processes"].nunique() >= 4
    # provenance: licence file, README with the full pinned commit, the build script with the same commit
    root = here.parents[1]
    assert "MIT License" in (root / "LICENSE").read_text()
    readme = (root / "README.md").read_text()
    build = (root / "build_regions.py").read_text()
    commit = re.search(r"COMMIT = \"([0-9a-f]{40})\"", build).group(1)
    assert commit in readme and commit[:8] in ds.source and "SCALING_MIRROR" in build
    assert f"`{name}`" in readme and all(f"`{curve}`" in readme for curve in table["curve"].unique())


def test_lammps_regions_add_up_to_the_loop_time_of_lammps_cloud():
    table = fetch_dataset("lammps-cloud-regions").frame
    values = table.pivot_table(index="profile", columns="region", values="value")
    sections = values.drop(columns="Loop").sum(axis=1)
    # LAMMPS's sections are means over ranks, printed with 5 significant digits: they add up to the loop time
    assert np.allclose(sections, values["Loop"], rtol=2e-3)
    # the Loop times are the 203 runs of the curve extract lammps-cloud
    curves = fetch_dataset("lammps-cloud").frame
    curve_of = curves["curve_id"].str.replace(r"lammps-reaxff-(\w+)-(.*)", r"lammps-\2-\1", regex=True)
    expected = curves.assign(curve=curve_of).groupby(["curve", "processes"])["time_s"].apply(sorted)
    loops = table[table["region"] == "Loop"]
    measured = loops.groupby(["curve", "processes"])["value"].apply(sorted)
    expected.index = expected.index.set_levels(expected.index.levels[1].astype(float), level=1)
    assert measured.to_dict() == expected.to_dict()


def test_kripke_regions_nest_and_fit_per_curve():
    from workbench.models.regions import RegionPredictor

    table = fetch_dataset("kripke-cloud-regions").frame
    values = table.pivot_table(index="profile", columns="region", values="value")
    children = [c for c in values.columns if c.startswith("Solve->") and c.count("->") == 1]
    assert len(children) == 6 and (values[children].sum(axis=1) <= values["Solve"]).all()
    assert (values["Solve->SweepSolver->SweepSubdomain"] <= values["Solve->SweepSolver"]).all()
    cpu = table[table["curve"] == "kripke-aws-parallel-cluster-cpu"]
    assert sorted(cpu["processes"].unique()) == [3072, 6144, 12288, 24576]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RegionPredictor(config={"curve": "kripke-aws-parallel-cluster-cpu"}).fit(table)
    assert model.root_ == "Solve" and len(model.regions_) == 9 and model.metric_ == ("time", "inclusive", "none")
