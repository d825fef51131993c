"""Dataset catalogue, in the style of scikit-learn's ``fetch_*`` functions.

Two kinds of datasets:

* **bundled**: small files shipped in the project's own ``data/`` folder (tables re-typed
  from the seed papers, clearly labelled synthetic examples).  ``data/`` is located as
  ``Path(__file__).parents[2] / "data"``, i.e. next to the ``workbench`` package in the
  repository; this works because the project is installed in editable/development mode
  (``pip install -e .``).
* **mirror**: real measurements that the project must not copy (licences, size).  They
  are read from a local *mirror directory* laid out like the project's reference-data
  folder (``npb-pi-cluster/``, ``osu-orfeo/``, ``extrap-mpi/``, ...).  Its location is
  given by the environment variable ``WORKBENCH_DATA_MIRROR`` (or the ``mirror=``
  argument of the functions below, which takes precedence).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from workbench.errors import DatasetNotFoundError
from workbench.io._text import csv_frame, is_folder, path_exists, read_file
from workbench.io.callpath import read_profiles
from workbench.io.collectives import read_extrap_mpi, read_osu_orfeo
from workbench.io.curves import read_scaling_corpus
from workbench.io.locations import DATA_DIR, MIRROR_ENV
from workbench.io.measured import read_comm_datagen, read_comm_pingpong, read_fractal_demo, read_measured_kmeans
from workbench.io.npb import read_npb_logs
from workbench.io.scaling import read_scaling_csv

__all__ = [
    "MIRROR_ENV",
    "DATA_DIR",
    "Dataset",
    "data_mirror",
    "list_datasets",
    "fetch_dataset",
    "fetch_npb_pi_cluster",
    "fetch_seed_table",
]

#: Cores per node of the Raspberry Pi 4 cluster (16 workers x 4 cores).
PI_CORES_PER_NODE = 4


@dataclass
class Dataset:
    """A fetched dataset (a Bunch-like record).

    ``frame`` is ``None`` for datasets that are registered but have no loader yet; then
    ``description`` says so and ``path`` points at the raw files.
    """

    name: str
    frame: pd.DataFrame | None
    description: str
    source: str
    licence: str
    path: Path


@dataclass(frozen=True)
class _Entry:
    name: str
    title: str
    kind: str  # "bundled" | "mirror"
    relpath: str  # relative to DATA_DIR (bundled) or to the mirror
    description: str
    source: str
    licence: str
    loader: Callable[[Path], pd.DataFrame] | None


def data_mirror(mirror: str | os.PathLike | None = None) -> Path:
    """Return the mirror directory holding the real datasets.

    ``mirror`` if given, else the environment variable ``WORKBENCH_DATA_MIRROR``.
    Raises :class:`~workbench.errors.DatasetNotFoundError` with instructions when neither
    is set or the directory does not exist.
    """
    value = mirror if mirror is not None else os.environ.get(MIRROR_ENV)
    how = (
        f"set {MIRROR_ENV} to a directory holding npb-pi-cluster/, osu-orfeo/ and extrap-mpi/ "
        f"(laid out like the project's reference data folder, e.g. export {MIRROR_ENV}=/path/to/shared/data)"
    )
    if value is None or str(value).strip() == "":
        raise DatasetNotFoundError(f"no data mirror configured: {how}")
    path = Path(value).expanduser()
    if not (path_exists(path) and is_folder(path)):
        raise DatasetNotFoundError(f"data mirror {str(path)!r} is not an existing directory: {how}")
    return path


def _load_pi_cluster(path: Path) -> pd.DataFrame:
    frame = read_npb_logs(path)
    frame.attrs["cores_per_node"] = PI_CORES_PER_NODE
    return frame


def _load_seed_table(path: Path) -> pd.DataFrame:
    """Read a re-typed seed table with the checks of :mod:`workbench.io._text`, like every other reader.

    The table is comma-separated and typed by pandas.
    """
    text = read_file(path, what="a seed table (CSV)")
    frame = csv_frame(text, str(path), example="name,value", strings=False, lower=False, sep=",")
    return frame.reset_index(drop=True)


_PI_DESCRIPTION = (
    "Raw NAS Parallel Benchmarks 3.4.3 (MPI) output logs from a Raspberry Pi 4 cluster "
    "(16 workers x 4 cores, Gigabit Ethernet, Slurm): BT, CG, EP, FT, IS, LU, MG, SP, classes S..F, "
    "4..64 processes, the same process count placed on 1..16 nodes (file cg-C-64-16.out = CG class C, "
    "64 processes on 16 nodes; no node count = default placement). One run per configuration. "
    "Aborted/truncated/empty logs are listed in frame.attrs['skipped']. Known quirk: the same process "
    "count runs much faster spread over 16 nodes than packed on 4 (thermal throttling, upstream README)."
)
_PI_SOURCE = "GitHub JohnnyPol/Pi_Cluster-ECE_NTUA_2024-2025 at b1a63793 (2025-11), benchmarks/results"

_SEED_TABLES = {
    "fractal_escobar_table1": "Fractal model (Escobar): Table 1 - fractal dimension m, intercept b, predicted vs "
                              "actual phase runtimes",
    "exchange_benchmark_table6_1": "IMB Exchange average time (us) on 64 ARIS nodes (Table 6.1)",
    "exchange_ratios_table6_2": "Message-size ratio vs communication ratio (Table 6.2)",
    "datagen_vs_semiempirical_table6_3_6_4": "Data-generator communication time vs semi-empirical prediction (Tables "
                                             "6.3/6.4)",
    "gbm_model_metrics_tables8": "R2, RMSE, MAPE of the gradient-boosting scenarios (Tables 8.1/8.3/8.5)",
    "fim_vs_rbasp_table4": "FIM vs RBASP relative errors and optimal process counts (Table 4)",
    "adept_fit_runtime_table2": "ADEPT thesis Table 2: seconds per fit (LM, exhaustive, GA, ADEPT)",
}
_SEED_PAPERS = {
    "fractal_escobar_table1": "Escobar & Boppana, Performance Prediction of Parallel Scientific Applications, "
    "Table 1",
    "fim_vs_rbasp_table4": "Bhimani, Mi, Leeser & Yang, New Performance Modeling Methods for Parallel Data "
    "Processing Applications, 2019, Table 4",
    "adept_fit_runtime_table2": "Deshmeh, PhD thesis, 2013, Table 2",
}
# the other tables come from chapters 6 and 8 of this thesis
_BRANIKAS = (
    "Branikas, Performance Analysis and Modeling of Parallel Applications in Distributed Memory "
    "Architectures, diploma thesis, NTUA, 2024"
)


def _registry() -> list[_Entry]:
    entries = [
        _Entry(
            "npb-pi-cluster", "NPB 3.4.3 MPI logs, Raspberry Pi 4 cluster", "mirror", "npb-pi-cluster/results",
            _PI_DESCRIPTION, _PI_SOURCE, "MIT", _load_pi_cluster,
        ),
        _Entry(
            "osu-orfeo", "OSU Micro-Benchmarks 7.3 collective latencies, ORFEO (AMD EPYC)", "mirror", "osu-orfeo",
            "OSU Micro-Benchmarks 7.3 latencies in microseconds: bcast_{core,socket,node} (5 Open MPI algorithms x "
            "2..256 cores x 1 B..1 MiB), reduce_core (4 algorithms), p2p (2 processes by distance), nbft (linear "
            "broadcast, 2..257 processes). frame: all six CSV files concatenated by workbench.io.read_osu_orfeo "
            "(columns benchmark, mapping, algorithm, algorithm_name, processes, peer, size_bytes, latency_us, ..., "
            "source, line). Rows are kept as measured: bcast_socket.csv and bcast_core.csv repeat many "
            "configurations (verbatim copies and second campaigns, e.g. bcast_socket algorithm 0, 206 cores, 2 B "
            "= 167 us once vs 9 us in another campaign); see the workbench.io.collectives docstring.",
            "2x AMD EPYC 7H12 nodes, ORFEO cluster, Open MPI 4.1.5, 2024; GitHub "
            "marcotallone/collective-operations-latency at 1fbc4a2b", "MIT", read_osu_orfeo,
        ),
        _Entry(
            "extrap-mpi", "Extra-P test data: MPI collectives and RELeARN", "mirror", "extrap-mpi",
            "mpi_data.csv: summary statistics (N, mean, sd, median, min, max, IQR, 95% intervals) of 7 MPI "
            "collectives x {IntelMPI, OpenMPI} x 32..512 ranks; frame: that file read by "
            "workbench.io.read_extrap_mpi (columns library, collective, ranks, repetitions, mean_us, ...; units not "
            "stated upstream, likely microseconds). relearn_data.txt (Extra-P text format, 2 parameters (p, n), "
            "14 regions) has no loader: read it under path.",
            "GitHub extra-p/extrap tests/data at 291ac815", "BSD-3-Clause", read_extrap_mpi,
        ),
        _Entry(
            "relearn-profiles", "RELeARN call-path profiles, 14 regions (Extra-P text)", "mirror",
            "extrap-mpi/relearn_data.txt",
            "Inclusive time (s) of 14 regions of the RELeARN neural-network simulator, 2 repetitions at each of "
            "p = 32..512 processes x n = 5000..9000 neurons (Extra-P text; indented regions nest). frame: the "
            "profile table of workbench.io.read_profiles (one row per profile, region and metric; columns "
            "region, parent, depth, value, processes, run, p, n, ...); model it per region with "
            "workbench.models.regions.RegionPredictor (one configuration of n at a time).",
            "GitHub extra-p/extrap tests/data at 291ac815", "BSD-3-Clause", read_profiles,
        ),
        _Entry(
            "scaling-corpus", "152 real strong-scaling curves: GROMACS, CP2K, OpenSBLI, CASTEP, VASP, Castro, Gunrock",
            "mirror", "scaling-corpus/curves.csv",
            "152 real strong-scaling curves, 1451 runs, one row per run: 7 applications on 13 machines, "
            "allocations in nodes (ARCHER2, ARCHER, Cirrus, CSD3, Isambard, Frontier, Summit, ...) or GPUs "
            "(Gunrock, 1-6 K40m), many with repeated runs. frame: a curve table (workbench.io.curves: curve_id, "
            "source, n, run, time_s, unit, app, machine, metric, ..., licence). What the time measures differs "
            "per curve (whole-run wall time, time per iteration or coarse step): read 'metric'. Curves of one "
            "source are correlated: evaluate leave-one-source-out. LICENCE per row: the hpc-uk/archer-benchmarks "
            "rows (43 curves) are GPL-3.0 (copyleft); drop them (frame[frame.source != "
            "'hpc-uk/archer-benchmarks']) where that matters. Known quirks (retrograde OFI curves, outliers kept "
            "as printed) are listed in the corpus README.",
            "ARCHER2-HPC/performance_ofi-ucx at 0ff502e6, hpc-uk/archer-benchmarks at f644ea4b, "
            "AMReX-Astro/Castro at f63fde10, gunrock/gunrock at 9bdadf13 (scaling-corpus/README.md)",
            "per row: CC0-1.0, GPL-3.0 (hpc-uk/archer-benchmarks rows), BSD-3-Clause-LBNL, Apache-2.0",
            read_scaling_corpus,
        ),
        _Entry(
            "kmeans-fim", "K-means under perf stat on this project's 2-core VM (FiM-Cal training/test runs)",
            "bundled", "measured/kmeans_fim.csv",
            "MEASURED by this project (not synthetic): the bulk-synchronous parallel K-means of "
            "workbench.workloads.kmeans run under `perf stat` (counters enabled only around the calculation) "
            "by `python -m workbench.measure.sweep`; small 'train' configurations on 1, 2, 4 processes and "
            "larger 'test' configurations on 1-8 processes, 3 repeats each. Machine, date, perf version and "
            "method are in measured/kmeans_fim.json (frame.attrs). Columns: see workbench.io.measured.KMEANS_COLUMNS.",
            "this project (data/measured/kmeans_fim.json)", "MIT (project)", read_measured_kmeans,
        ),
        _Entry(
            "comm-pingpong-local", "002 random non-blocking ping-pong, MPICH shared memory on this project's 2-core VM",
            "bundled", "measured/comm_pingpong.csv",
            "MEASURED by this project (not synthetic) on its 2-core KVM guest with MPICH (mpich wheel) over shared "
            "memory: the random non-blocking ping-pong benchmark of Papadopoulou et al. (2015, section III.B) run "
            "by `python -m workbench.measure.comm pingpong` (mpi4py): S = 128 B .. 4 MiB, M = 1..processes-1 random "
            "partners, 2, 3 and 4 processes (3 and 4 oversubscribe the 2 cores), 200 iterations, 3 repeats; "
            "comm_time_us = max over ranks of each rank's 3rd-quartile iteration time, median_us = median over "
            "ranks. One node, so N = 1 and I = 0 everywhere and SW = R = 1: the inter-node descriptors only vary "
            "on a cluster. Other development processes shared the CPU; machine, MPI version, load averages and "
            "command are in measured/comm_pingpong.json (frame.attrs). Columns: see "
            "workbench.io.measured.PINGPONG_COLUMNS.",
            "this project (data/measured/comm_pingpong.json)", "MIT (project)", read_comm_pingpong,
        ),
        _Entry(
            "comm-datagen-local",
            "004 halo-exchange data generator, per-rank timers, MPICH on this project's 2-core VM",
            "bundled", "measured/comm_datagen.csv",
            "MEASURED by this project (not synthetic) on its 2-core KVM guest with MPICH over shared memory: "
            "Branikas's configurable data generator (2024, Listings 2.2/3.1) run by `python -m "
            "workbench.measure.comm datagen`: working set 2, 8, 32 MiB per rank, memory-bound (1 op) and "
            "compute-bound (16 ops) Jacobi loads, message size 1, 5, 10, 50, 100 x sqrt(working set), 2, 4, 8 "
            "messages, no barrier, 2 and 4 processes (4 oversubscribe the 2 cores), 16 time steps (the thesis "
            "uses 32). One row per rank and run (run_id): comm_s, comp_s, total_s summed over the time steps. "
            "One node (nodes = 1): node-count effects only appear on a cluster. Machine, MPI version, load "
            "averages and command are in measured/comm_datagen.json (frame.attrs).",
            "this project (data/measured/comm_datagen.json)", "MIT (project)", read_comm_datagen,
        ),
        _Entry(
            "fractal-demo-local", "Multi-phase demo workload (stencil, sort, dense solve) profiled on this project's "
                                  "2-core VM",
            "bundled", "measured/fractal_demo.csv",
            "MEASURED by this project (not synthetic): the demo workload of workbench.workloads.phases_demo run by "
            "`python -m workbench.workloads.phases_demo` - per run at grid side n, the exclusive times of four phases "
            "timed with workbench.measure.phases.PhaseTimer: setup (O(n^2)), stencil (Jacobi sweeps, O(n^2)), sort "
            "(O(n^2 log n)), dense_solve (LU solve, O(n^3)); 12 small sizes and one large target size (also "
            "measured), 3 rounds. frame: the profile frame of workbench.models.fractal (size, phase, time_s, run, "
            "total_s); attrs: target_size, small_sizes, clock (the thread's CPU time by default), machine, date, "
            "BLAS, load averages, per-run wall times and the command (measured/fractal_demo.json). For the fractal "
            "extrapolation of Escobar & Boppana.",
            "this project (data/measured/fractal_demo.json)", "MIT (project)", read_fractal_demo,
        ),
        _Entry(
            "synthetic-downey", "SYNTHETIC: Downey-model strong scaling (A=120, sigma=0.6)", "bundled",
            "synthetic/downey_example.csv",
            "Synthetic, not measured (benchmark 'downey-synthetic', class 'example'): t(n) = 2.5 s x Downey runtime "
            "T(n; A=120, sigma=0.6) (thesis Table 1) with "
            "2% multiplicative Gaussian noise, processes 1..256, 3 repetitions (run 0..2) at a few n. "
            "Generated by data/synthetic/make_synthetic.py (seed 20240601).",
            "synthetic (data/synthetic/make_synthetic.py)", "MIT (project)",
            lambda p: read_scaling_csv(p),
        ),
        _Entry(
            "synthetic-cross-size", "SYNTHETIC: two problem sizes with a similar Downey shape", "bundled",
            "synthetic/cross_size_example.csv",
            "Synthetic, not measured: problem_class 'small' (A=120, sigma=0.6, 2.5 s) and 'large' (A=150, "
            "sigma=0.7, 9 s), 2% noise; for the cross-problem-size predictor. "
            "Generated by data/synthetic/make_synthetic.py (seed 20240601).",
            "synthetic (data/synthetic/make_synthetic.py)", "MIT (project)",
            lambda p: read_scaling_csv(p),
        ),
    ]
    for stem, title in _SEED_TABLES.items():
        paper = _SEED_PAPERS.get(stem, _BRANIKAS)
        entries.append(
            _Entry(
                f"seed-{stem}", title, "bundled", f"seed-tables/{stem}.csv",
                f"Table re-typed from {paper}; facts from the publication, see data/seed-tables/README.md.",
                f"{paper} (seed table: re-typed from the publication)",
                "facts from the publication (citation required)", _load_seed_table,
            )
        )
    return entries


_REGISTRY = _registry()


def _entry(name: str) -> _Entry:
    for entry in _REGISTRY:
        if entry.name == name:
            return entry
    names = ", ".join(e.name for e in _REGISTRY)
    raise DatasetNotFoundError(f"unknown dataset {name!r}; available: {names}")


def _resolve(entry: _Entry, mirror) -> Path:
    root = DATA_DIR if entry.kind == "bundled" else data_mirror(mirror)
    path = root / entry.relpath
    if not path.exists():
        where = "the bundled data folder" if entry.kind == "bundled" else f"the data mirror {str(root)!r}"
        raise DatasetNotFoundError(f"dataset {entry.name!r}: {entry.relpath} not found in {where}")
    return path


def list_datasets(mirror: str | os.PathLike | None = None) -> pd.DataFrame:
    """All registered datasets.

    Columns: ``name``, ``title``, ``kind`` (``"bundled"`` or ``"mirror"``), ``available``
    (bool: the files are present; mirror datasets need ``WORKBENCH_DATA_MIRROR`` or
    ``mirror=``), ``path`` (str, ``None`` when the mirror is not configured), ``source``
    (provenance) and ``licence``.
    """
    rows = []
    for entry in _REGISTRY:
        try:
            path = _resolve(entry, mirror)
            available = True
        except DatasetNotFoundError:
            available = False
            try:
                root = DATA_DIR if entry.kind == "bundled" else data_mirror(mirror)
                path = root / entry.relpath
            except DatasetNotFoundError:
                path = None
        rows.append(
            {
                "name": entry.name,
                "title": entry.title,
                "kind": entry.kind,
                "available": available,
                "path": None if path is None else str(path),
                "source": entry.source,
                "licence": entry.licence,
            }
        )
    return pd.DataFrame(rows, columns=["name", "title", "kind", "available", "path", "source", "licence"])


def fetch_dataset(name: str, *, mirror: str | os.PathLike | None = None) -> Dataset:
    """Load a registered dataset by name (see :func:`list_datasets`).

    Raises :class:`~workbench.errors.DatasetNotFoundError` for unknown names, or when a
    mirror dataset's files cannot be found (with instructions to set
    ``WORKBENCH_DATA_MIRROR``).
    """
    entry = _entry(name)
    path = _resolve(entry, mirror)
    frame = entry.loader(path) if entry.loader is not None else None
    return Dataset(entry.name, frame, entry.description, entry.source, entry.licence, path)


def fetch_npb_pi_cluster(*, mirror: str | os.PathLike | None = None) -> Dataset:
    """Return the Raspberry Pi cluster NPB logs parsed with :func:`~workbench.io.read_npb_logs`.

    Skipped logs are warned about (:class:`~workbench.errors.ParseWarning`) and listed in
    ``frame.attrs["skipped"]``; ``frame.attrs["cores_per_node"] == 4`` so that
    :func:`~workbench.io.list_curves` labels 4 processes per node as "packed".
    """
    return fetch_dataset("npb-pi-cluster", mirror=mirror)


def fetch_seed_table(name: str) -> Dataset:
    """Return a table re-typed from one of the cited papers, e.g. ``"adept_fit_runtime_table2"``.

    Accepts the file stem, the file name (``.csv``) or the catalogue name (``seed-...``).
    """
    stem = Path(name).stem if name.endswith(".csv") else name
    stem = stem.removeprefix("seed-")
    if stem not in _SEED_TABLES:
        raise DatasetNotFoundError(f"unknown seed table {name!r}; available: {', '.join(_SEED_TABLES)}")
    return fetch_dataset(f"seed-{stem}")
