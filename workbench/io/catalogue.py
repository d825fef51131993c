"""Dataset catalogue, in the style of scikit-learn's ``fetch_*`` functions.

Two kinds of datasets:

* **bundled**: small files shipped in the project's own ``data/`` folder (tables re-typed
  from the seed papers, clearly labelled synthetic examples, data this project measured, and
  small tidy extracts of public strong-scaling measurements under ``data/external/<owner>+<repo>/``
  with their upstream licence, provenance README and ``build.py``).  ``data/`` is located as
  ``Path(__file__).parents[2] / "data"``, i.e. next to the ``workbench`` package in the
  repository; this works because the project is installed in editable/development mode
  (``pip install -e .``).
* **mirror**: real measurements that the project must not copy (licences, size).  They
  are read from a local *mirror directory* laid out like the project's reference-data
  folder (``npb-pi-cluster/``, ``osu-orfeo/``, ``extrap-mpi/``, ``scaling-corpus/``,
  ``scaling-extra/``, ...).  Its location is
  given by the environment variable ``WORKBENCH_DATA_MIRROR`` (or the ``mirror=``
  argument of the functions below, which takes precedence).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError, DatasetNotFoundError, ParseWarning
from workbench.io.callpath import read_profiles
from workbench.io.collectives import read_extrap_mpi, read_osu_orfeo
from workbench.io.curves import (
    CURVE_COLUMNS,
    TOPOLOGY_COLUMNS,
    curves_from_scaling_frame,
    read_curve_extract,
    read_scaling_corpus,
    validate_curves,
)
from workbench.io.locations import DATA_DIR, MIRROR_ENV
from workbench.io.measured import read_comm_datagen, read_comm_pingpong, read_fractal_demo, read_measured_kmeans
from workbench.io.npb import read_npb_logs
from workbench.io.scaling import read_scaling_csv
from workbench.io.size_grid_entries import EXTERNAL_SIZE_GRIDS as _EXTERNAL_SIZE_GRIDS
from workbench.io.size_grids import SIZE_GRID_COLUMNS, read_size_grids
from workbench.io.text import csv_frame, is_folder, path_exists, read_file

__all__ = [
    "MIRROR_ENV",
    "DATA_DIR",
    "Dataset",
    "data_mirror",
    "list_datasets",
    "fetch_dataset",
    "fetch_npb_pi_cluster",
    "fetch_seed_table",
    "development_curves",
    "development_size_grids",
    "DEVELOPMENT_DATASETS",
    "SIZE_GRID_DATASETS",
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

    Parameters
    ----------
    mirror : str, os.PathLike or None, default None
        The mirror directory; None: ``WORKBENCH_DATA_MIRROR``.
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
    """Read a re-typed seed table with the checks of :mod:`workbench.io.text`, like every other reader.

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

_EXTRA_COMMON = (
    " frame: a curve table (workbench.io.curves: curve_id, source, n, run, time_s, unit, app, machine, metric, "
    "processes, nodes, cores_per_node, gpus_per_node, ..., licence; source = the upstream repository). "
)
#: Strong-scaling extracts of the mirror's scaling-extra/ folder: name -> (folder, title, description, source, licence)
_SCALING_EXTRA = {
    "excalibur-alaska": (
        "ukri-excalibur+excalibur-tests",
        "GROMACS, OpenFOAM, CP2K on a small OpenStack cluster (AlaSKA), InfiniBand vs RoCE, 1-16 nodes",
        "24 real strong-scaling curves, 169 runs (one per Slurm job), unit nodes, n = 1, 2, 4, 8, 16 (32 MPI ranks "
        "per node, 32 cores per node, so processes = 32 n): GROMACS 2016.4 (HECBioSim 61k, 1.4M, 3M atoms), OpenFOAM "
        "motorbike (whole-second ClockTime), CP2K H2O-256 on AlaSKA, StackHPC's OpenHPC Slurm cluster on OpenStack "
        "(Dell R630, 2x Xeon E5-2683 v4), over 100Gb InfiniBand and RoCE, in three measurement campaigns (curve ids "
        "end in -c1/-c2/-c3; not exchangeable). Retrograde tails (GROMACS 61k slows from 4 nodes on), flat tails, "
        "one outlier kept as printed (scaling-extra/README.md)." + _EXTRA_COMMON,
        "GitHub ukri-excalibur/excalibur-tests at 37bbdc95 (perflogs/alaska/*; scaling-extra/README.md, build.py)",
        "Apache-2.0",
    ),
    "mlperf-v0.7-dgxa100": (
        "mlcommons+training_results_v0.7",
        "MLPerf Training v0.7 transformer time-to-train on DGX A100, 8-480 GPUs",
        "1 real strong-scaling curve, 50 runs, unit gpus, n = 8, 16, 80, 160, 480 (1-60 DGX A100 nodes, 8 GPUs "
        "and 128 cores per node), 10 runs each: MLPerf time-to-train of NVIDIA's transformer submission. Not fixed "
        "work: the global batch size rises with scale (110592 tokens at 8-16 GPUs, 737280 from 80). Bimodal run "
        "noise (runs needing an extra epoch are 20-33% slower), flat tail." + _EXTRA_COMMON,
        "GitHub mlcommons/training_results_v0.7 at 0a8a85a2 (NVIDIA/results/dgxa100*/transformer; "
        "scaling-extra/README.md, build.py)",
        "Apache-2.0",
    ),
    "mlperf-v0.6-tpuv3": (
        "mlcommons+training_results_v0.6",
        "MLPerf Training v0.6 transformer, resnet, ssd, gnmt time-to-train on TPU v3 slices, 32-2048 cores",
        "4 real strong-scaling curves, 170 runs, unit cores (TPU v3 TensorCores, 2 per chip), n = 32..2048: MLPerf "
        "time-to-train of Google's submissions on Cloud TPU v3 pod slices; nodes, cores_per_node and gpus_per_node "
        "are not stated (empty). Not fixed work (batch size rises in steps with scale); flat tails, bimodal "
        "noise; one aborted run kept and flagged status=abort in notes." + _EXTRA_COMMON,
        "GitHub mlcommons/training_results_v0.6 at f312518c (Google/results/tpu-v3-*; scaling-extra/README.md, "
        "build.py)",
        "Apache-2.0",
    ),
}

#: Curve extracts bundled under data/external: name -> (folder, title, description, source, licence)
_EXTERNAL = {
    "cmaq-cloud": (
        "CMASCenter+pcluster-cmaq",
        "CMAQ strong scaling on AWS and Azure cloud VM clusters, 18-576 MPI processes",
        "68 real runs in 8 strong-scaling curves of the CMAQ air-quality model (CCTM v5.3.x, 2-day 12US2 "
        "benchmark; v5.4+, 12US1 on Graviton): AWS ParallelCluster c5n.9xlarge (18 cores), c5n.18xlarge (36), "
        "hpc6a.48xlarge (96), hpc7g.16xlarge (64) and Azure CycleCloud HBv3 (120 cores per VM), unit processes "
        "(MPI ranks), n = 18..576; every curve starts on one VM and crosses VM boundaries (nodes = VMs, from "
        "Slurm, log names, run scripts or the author's tables; cores_per_node from lscpu). Time = CMAQ's Total "
        "Time of the 2 simulated days. Repeats at one n differ in decomposition or pinning (up to 15 % "
        "spread); flat and retrograde tails (HBv3 96 ranks/VM, hpc6a 2023)." + _EXTRA_COMMON,
        "GitHub CMASCenter/pcluster-cmaq at 0add9a2f (run_scripts/**/*.log; data/external/"
        "CMASCenter+pcluster-cmaq/README.md, build.py)",
        "MIT",
    ),
    "npb-omp-cpus": (
        "UoB-HPC+pmbs26-vera-artifact",
        "NAS Parallel Benchmarks (OpenMP, class B) core sweeps on NVIDIA Grace, NVIDIA Vera, AMD Turin, Intel Granite "
        "Rapids",
        "448 real runs in 32 strong-scaling curves: NPB 3.4.4 OpenMP class B kernels BT, CG, EP, FT, LU, MG, SP, UA "
        "on one socket of NVIDIA Grace (72 cores), NVIDIA Vera (88), AMD EPYC 9R45 on AWS c8a.metal-24xl (96) and "
        "Intel Xeon 6975P-C on AWS c8i.metal-48xl (96), unit cores (one OpenMP thread per core), n = 1, 2, 4, 8 and "
        "multiples of 8 up to the socket, one run each; nodes = 1, cores_per_node from lscpu. Time = NPB's timed "
        "section, recomputed from Mop/s (the printed 0.01 s steps are too coarse; see the README). Intra-node only; "
        "noisy (bimodal EP, CG steps at core-complex boundaries), flat or retrograde tails (LU, MG)." + _EXTRA_COMMON,
        "GitHub UoB-HPC/pmbs26-vera-artifact at 05b701c1 (results/npb/*/nas-B-scaling.csv; data/external/"
        "UoB-HPC+pmbs26-vera-artifact/README.md, build.py)",
        "BSD-3-Clause",
    ),
    "cg-multigpu-a100": (
        "1fni+cuda-spmv-benchmark",
        "Conjugate-gradient solver strong scaling on 1-8 NVIDIA A100 GPUs of one node (custom CUDA CG and AmgX)",
        "24 real measurements in 6 strong-scaling curves: a CUDA + MPI conjugate-gradient solver for 5-point "
        "stencil matrices and NVIDIA AmgX's CG on the same matrices (100M, 225M, 400M unknowns), unit gpus, "
        "n = 1, 2, 4, 8 on one node with 8 A100-SXM4-80GB (NVLink), one MPI rank per GPU; time = solver time, "
        "median of 10 runs. Regular curves (87-94 % efficiency at 8 GPUs), no node boundary." + _EXTRA_COMMON,
        "GitHub 1fni/cuda-spmv-benchmark at eb8147ae (docs/PROBLEM_SIZE_SCALING_RESULTS.md, "
        "external/benchmarks/amgx/BENCHMARK_RESULTS.md; data/external/1fni+cuda-spmv-benchmark/README.md, build.py)",
        "MIT",
    ),
    "lammps-cloud": (
        "converged-computing+performance-study",
        "LAMMPS ReaxFF strong scaling on AWS, Azure and Google Cloud VM clusters and Kubernetes, CPU and GPU",
        "203 real runs in 11 strong-scaling curves: LAMMPS ReaxFF HNS (fixed problem, 100 steps) on AWS "
        "(ParallelCluster, EKS), Azure (CycleCloud, AKS) and Google Cloud (Compute Engine, GKE); CPU curves in "
        "nodes 32-256 (96 or 56 ranks per VM), GPU curves in gpus 32-256 (4-32 VMs of 8 V100); about 5 repeats "
        "per size; time = LAMMPS loop time. Noisy, bimodal and retrograde tails (GKE 256 nodes 2.7x slower than "
        "128)." + _EXTRA_COMMON,
        "GitHub converged-computing/performance-study at 6f3df687 (experiments/*/*/*/size*/results/lammps-reax; "
        "data/external/converged-computing+performance-study/README.md, build.py)",
        "MIT",
    ),
    "oceananigans-nibi-gpus": (
        "francispoulin+Oceananigans-DRAC",
        "Oceananigans ocean model GPU strong scaling on Nibi (8 H100 per node): 1-8 GPUs in one node, then 2-4 nodes",
        "10 real measurements in 2 strong-scaling curves of the Oceananigans.jl benchmark suite (case earth_ocean, "
        "latitude-longitude grid with 200 levels, Float64, WENO, CATKE) on the Nibi cluster of the Digital Research "
        "Alliance of Canada, unit gpus (one MPI rank per NVIDIA H100, 8 GPUs per node): 1/4 degree (1440x720x200) "
        "on 1, 2, 4, 8 GPUs inside one node and 16, 32 GPUs on 2 and 4 nodes; 1/8 degree (2880x1440x200) on "
        "4, 8, 16, 32 GPUs. Time = time per step, median of 5 windows of 100 steps, one run per GPU count; the "
        "multi-node points are noisy (slowest window 23-60 % slower than the fastest) and the 1/4 degree curve "
        "flattens across nodes (46 % efficiency on 32 GPUs)." + _EXTRA_COMMON,
        "GitHub francispoulin/Oceananigans-DRAC at 0b7d3894 (docs/drac.md, section 8; data/external/"
        "francispoulin+Oceananigans-DRAC/README.md, build.py)",
        "MIT",
    ),
    "oceananigans-suite-nibi": (
        "AndiJingzhiTse+Oceananigans.jl",
        "Oceananigans benchmark suite on Nibi and Rorqual: 3-192 cores in one node then 2-16 nodes, 1-4 H100 then "
        "2-8 nodes",
        "21 real measurements in 3 strong-scaling curves of the Oceananigans.jl benchmark suite (case earth_ocean, "
        "latitude-longitude 1440x720x200, Float64, WENO, CATKE) on the Nibi and Rorqual clusters of the Digital "
        "Research Alliance of Canada, committed by the benchmark controllers of a fork of CliMA/Oceananigans.jl: "
        "Nibi CPU in processes (one MPI rank per core, 192 cores per node) 3, 6, 12, 24, 48, 96, 192 inside one node "
        "and 384-3072 on 2-16 nodes; Nibi GPU in gpus (one rank per H100, 8 per node) 1, 2, 4 and 32 on 4 nodes; "
        "Rorqual GPU (4 H100 per node) 1, 2, 4 inside one node and 8, 16, 32 on 2, 4, 8 nodes. Time = time per step, "
        "median of 5 ten-step windows, one run per count; the 32-GPU points are noisy (Nibi spread 293 %, Rorqual "
        "slower than on 16 GPUs). Same group and problem as oceananigans-nibi-gpus: correlated sources."
        + _EXTRA_COMMON,
        "GitHub AndiJingzhiTse/Oceananigans.jl at 973226c4 (Nibi CPU table), 13da1fda (Nibi GPU table) and 9aa3b651 "
        "(Rorqual full suite) (benchmarking/results/{nibi,rorqual}/*/plot.md; "
        "data/external/AndiJingzhiTse+Oceananigans.jl/README.md, build.py)",
        "MIT",
    ),
    "azure-hbv3-apps": (
        "MicrosoftDocs+architecture-center",
        "HPC applications on Azure HBv3/HBv4: up to 120 (176) cores of one node, then 2-16 nodes (Fluent, CFX, "
        "HELYX, NAMD, LAMMPS, QE, AcuSolve, tNavigator)",
        "173 published measurements in 20 strong-scaling curves from the Azure Architecture Center HPC articles: "
        "Ansys Fluent 2021 R2 (7 models), Ansys CFX 2021 R2 (4), ENGYS HELYX 3.5.0 (3), NAMD 2.14 (STMV 21 M "
        "atoms), LAMMPS (in.lj), Quantum ESPRESSO 7.1 (ta2o5), Altair AcuSolve (impinging nozzle) and tNavigator "
        "22.4 (Speed Test 9, HBv3 and HBv4); unit processes (one rank per core; tNavigator: cores), n = 8-120 "
        "inside one 120-core HBv3 node (constrained-core VM sizes) and 128-1024 on 2-16 nodes of 64 cores "
        "(HBv4: 12-176, then 2-8 nodes of 144); nodes and cores_per_node known for every row. The 1-node "
        "64-core point is measured twice for 7 curves (0.6-24 % apart); superlinear (NAMD 2.9x) or sublinear "
        "(QE 1.5x) steps from 1 to 2 nodes; flat or retrograde tails inside the node." + _EXTRA_COMMON,
        "GitHub MicrosoftDocs/architecture-center, one commit per article: 0376c1d1 (ansys-fluent), 05fbd6a9 "
        "(ansys-cfx), 0985ff3f (engys-helyx), 095b0c6e (hpc-namd), 32bd3eda (hpc-lammps), 2aaeaaa6 "
        "(quantum-espresso), 26eb80ad (hpc-altair-acusolve), 232a431c (tnavigator) (docs/guide/hpc/*-content.md; "
        "data/external/MicrosoftDocs+architecture-center/README.md, build.py)",
        "CC-BY-4.0",
    ),
}

#: Per-region profile extracts bundled under data/external (Extra-P JSON Lines, one file per curve):
#: name -> (folder, title, description, source, licence)
_EXTERNAL_PROFILES = {
    "lammps-cloud-regions": (
        "converged-computing+performance-study/regions/lammps",
        "LAMMPS ReaxFF per-section timers (Pair, Neigh, Comm, Output, Modify, Other) on AWS, Azure and Google Cloud, "
        "CPU and GPU, 4 cluster sizes",
        "203 real runs in 11 curves, one file per curve (the curves of lammps-cloud): LAMMPS ReaxFF HNS (fixed "
        "problem, 100 MD steps: strong scaling) on AWS (ParallelCluster, EKS), Azure (CycleCloud, AKS) and Google "
        "Cloud (Compute Engine, GKE), CPU clusters of 32-256 VMs (processes 1792-24576) and GPU clusters of 4-32 "
        "VMs with 8 V100 (processes = GPUs 32-256), about 5 repetitions per size. Regions: Loop (LAMMPS's loop "
        "time, the mean over ranks) and its children Loop->Pair, Neigh, Comm, Output, Modify, Other (the 'MPI "
        "task timing breakdown' avg column: they add up to Loop); aggregation avg, seconds. frame: the profile "
        "table of workbench.io.read_profiles for every file, plus a column curve (the file's name); model one "
        "curve with workbench.models.regions.RegionPredictor(config={'curve': ...}) or read one file under "
        "path. Noisy and retrograde tails (GKE CPU 256 nodes, Azure CycleCloud CPU).",
        "GitHub converged-computing/performance-study at 6f3df687 (experiments/*/*/*/size*/results/lammps-reax/"
        "*.out; data/external/converged-computing+performance-study/README.md, build_regions.py)",
        "MIT",
    ),
    "kripke-cloud-regions": (
        "converged-computing+performance-study/regions/kripke",
        "Kripke per-timer breakdown (Generate, Solve and its kernels) on AWS, Azure and Google Cloud, CPU and GPU, "
        "4 cluster sizes",
        "144 real runs in 8 curves, one file per curve: Kripke (deterministic Sn particle transport, LLNL) with a "
        "fixed problem per curve (strong scaling): 6 CPU curves (448x168x256 zones, 16 groups, 500 iterations) "
        "on AWS (ParallelCluster, EKS), Azure (CycleCloud, AKS) and Google Cloud (Compute Engine, GKE), clusters "
        "of 32-256 VMs (processes 1792-24576), and 2 GPU curves (128^3 zones, 64 groups, 50 iterations, CUDA) on "
        "Azure AKS and Google Compute Engine, 4-32 VMs with 8 V100 (processes = GPUs 32-256); 1-7 repetitions "
        "per size. Regions: Kripke's timers of rank 0, nested as in its solver: Generate; Solve with children "
        "LTimes, LPlusTimes, Scattering, Source, Population, SweepSolver (and its child SweepSubdomain); "
        "aggregation none, seconds. frame: the profile table of workbench.io.read_profiles for every file, plus "
        "a column curve (the file's name); model one curve with RegionPredictor(config={'curve': ...}).",
        "GitHub converged-computing/performance-study at 6f3df687 (experiments/*/*/*/size*/results/kripke/*.out; "
        "data/external/converged-computing+performance-study/README.md, build_regions.py)",
        "MIT",
    ),
}

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


#: The datasets with their own loader, one row each (the curve extracts and seed tables follow
#: from the tables above in :func:`_registry`).
_FIXED_ENTRIES = (
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
)


def _read_region_profiles(folder: Path) -> pd.DataFrame:
    """Read every curve file in ``folder`` (Extra-P JSON Lines) into one profile table with a ``curve`` column."""
    table = read_profiles(sorted(folder.glob("*.jsonl")))
    # the profile label is "<file>#p<point>r<repetition>": the file names the curve
    table["curve"] = table["profile"].str.split("#").str[0].map(lambda f: Path(f).stem)
    return table


def _registry() -> list[_Entry]:
    entries = list(_FIXED_ENTRIES)
    for name, (folder, title, description, source, licence) in _SCALING_EXTRA.items():
        entries.append(_Entry(name, title, "mirror", f"scaling-extra/{folder}/curves.csv", description, source,
                              licence, partial(read_curve_extract, licence=licence)))
    for name, (folder, title, description, source, licence) in _EXTERNAL.items():
        entries.append(_Entry(name, title, "bundled", f"external/{folder}/curves.csv", description, source,
                              licence, partial(read_curve_extract, licence=licence)))
    for name, (folder, title, description, source, licence) in _EXTERNAL_PROFILES.items():
        entries.append(_Entry(name, title, "bundled", f"external/{folder}", description, source, licence,
                              _read_region_profiles))
    for name, (relpath, title, description, source, licence) in _EXTERNAL_SIZE_GRIDS.items():
        entries.append(_Entry(name, title, "bundled", f"external/{relpath}", description, source, licence,
                              read_size_grids))
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

    Parameters
    ----------
    mirror : str, os.PathLike or None, default None
        The mirror directory; None: ``WORKBENCH_DATA_MIRROR``.
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

    Parameters
    ----------
    name : str
        A name of :func:`list_datasets`.
    mirror : str, os.PathLike or None, default None
        The mirror directory; None: ``WORKBENCH_DATA_MIRROR``.
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

    Parameters
    ----------
    mirror : str, os.PathLike or None, default None
        The mirror directory; None: ``WORKBENCH_DATA_MIRROR``.
    """
    return fetch_dataset("npb-pi-cluster", mirror=mirror)


def fetch_seed_table(name: str) -> Dataset:
    """Return a table re-typed from one of the cited papers, e.g. ``"adept_fit_runtime_table2"``.

    Accepts the file stem, the file name (``.csv``) or the catalogue name (``seed-...``).

    Parameters
    ----------
    name : str
        The file stem, the file name or the catalogue name of the table.
    """
    stem = Path(name).stem if name.endswith(".csv") else name
    stem = stem.removeprefix("seed-")
    if stem not in _SEED_TABLES:
        raise DatasetNotFoundError(f"unknown seed table {name!r}; available: {', '.join(_SEED_TABLES)}")
    return fetch_dataset(f"seed-{stem}")


#: The catalogue's development curve sets, in the order :func:`development_curves` stacks them.
DEVELOPMENT_DATASETS = ("scaling-corpus", "npb-pi-cluster", *_SCALING_EXTRA)
#: Source label of the Raspberry Pi cluster's NPB curves (its repository, like every other source).
PI_REPOSITORY = "JohnnyPol/Pi_Cluster-ECE_NTUA_2024-2025"
_PI_MACHINE = "Raspberry Pi 4 cluster (16 nodes x 4 cores, Gigabit Ethernet)"
#: Repositories that are not independent of each other (same group, code, problem and clusters):
#: one source label for all of them, so that leave-one-source-out holds them out together.
SAME_SOURCE = {
    "francispoulin/Oceananigans-DRAC": "Oceananigans on Alliance clusters (2 repositories)",
    "AndiJingzhiTse/Oceananigans.jl": "Oceananigans on Alliance clusters (2 repositories)",
}


def development_curves(mirror: str | os.PathLike | None = None) -> pd.DataFrame:
    """Return every development curve of the catalogue in one curve table.

    Stacks the ``scaling-corpus`` (152 curves from 4 repositories), the Raspberry Pi
    cluster's NPB curves with at least 4 process counts (``npb-pi-cluster``, as the scaling
    benchmark reads them), the three ``scaling-extra`` sources and every bundled extract
    under ``data/external`` (catalogue entries whose files are ``data/external/*/curves.csv``).

    Parameters
    ----------
    mirror : str or os.PathLike, optional
        The real-data mirror; default ``WORKBENCH_DATA_MIRROR`` (see :func:`data_mirror`).

    Returns
    -------
    pandas.DataFrame
        A curve table (:mod:`workbench.io.curves`) with columns ``curve_id, source, n, run,
        time_s, unit, app, machine, metric, processes, nodes, cores_per_node,
        gpus_per_node, dataset, problem, licence``. ``source`` is one label per independent
        source, the upstream repository (``owner/name``; repositories of one group, code and
        machines share one label, :data:`SAME_SOURCE`): hold out whole sources when
        evaluating. ``dataset`` is the catalogue name. Topology columns are ``Int64``,
        ``<NA>`` where the source does not state them (``nodes`` = ``n`` where ``unit`` is
        ``"nodes"``, ``processes`` = ``n`` where it is ``"processes"``).

    Raises
    ------
    DatasetNotFoundError
        When the mirror is not configured or a mirrored set is missing.
    """
    names = list(DEVELOPMENT_DATASETS) + [e.name for e in _REGISTRY
                                          if e.kind == "bundled" and e.relpath.startswith("external/")
                                          and e.relpath.endswith("/curves.csv")]
    parts = []
    for name in names:
        if name == "npb-pi-cluster":
            with warnings.catch_warnings():  # aborted NPB logs are skipped, as by the scaling benchmark
                warnings.simplefilter("ignore", ParseWarning)
                frame = curves_from_scaling_frame(fetch_dataset(name, mirror=mirror).frame, source=PI_REPOSITORY,
                                                  min_points=4)
            frame = frame.assign(machine=_PI_MACHINE, licence=_entry(name).licence)
        else:
            frame = fetch_dataset(name, mirror=mirror).frame
        parts.append(frame.assign(dataset=name))
    columns = CURVE_COLUMNS + TOPOLOGY_COLUMNS + ["dataset", "problem", "licence"]
    stacked = pd.concat([p.reindex(columns=columns) for p in parts], ignore_index=True)
    stacked["source"] = stacked["source"].replace(SAME_SOURCE)
    for col in TOPOLOGY_COLUMNS:
        stacked[col] = stacked[col].astype("Int64")
    for col in ("processes", "nodes"):  # the allocation states the column it counts
        fill = stacked[col].isna() & stacked["unit"].eq(col)
        stacked.loc[fill, col] = stacked.loc[fill, "n"].round().astype("int64")
    ids = stacked.drop_duplicates(["dataset", "curve_id"])["curve_id"]
    if ids.duplicated().any():  # a curve id names one curve across all sets, or held-out curves would mix
        raise DataFormatError(f"development curves: curve id(s) {ids[ids.duplicated()].tolist()} appear in more "
                              "than one dataset")
    return validate_curves(stacked, "development curves")


#: The catalogue's bundled size-grid sets (``data/external/*/size_grids.csv``), in the order
#: :func:`development_size_grids` stacks them.
SIZE_GRID_DATASETS = tuple(_EXTERNAL_SIZE_GRIDS)


def development_size_grids() -> pd.DataFrame:
    """Return every bundled size grid (one application on one machine at several sizes and allocations).

    Stacks the catalogue's size-grid sets (:data:`SIZE_GRID_DATASETS`: ``data/external/*/size_grids.csv``,
    bundled, no mirror needed).

    Returns
    -------
    pandas.DataFrame
        A size-grid table (:mod:`workbench.io.size_grids`: ``grid, app, machine, n, n_unit,
        size_name, size, size_scope, time, time_unit, run, path``) plus ``processes`` and
        ``nodes`` (``Int64``, ``<NA>`` where the set does not state them), ``dataset`` (the
        catalogue name), ``source`` (the upstream repository, ``owner/name``: hold out whole
        sources when evaluating; the grids of one set share a source) and ``licence``.
        ``time_unit`` differs between sets (``s``, ``s/step``), never within a grid.

    Raises
    ------
    DataFormatError
        When a grid name appears in two sets.
    """
    parts = []
    for name in SIZE_GRID_DATASETS:
        entry = _entry(name)
        frame = fetch_dataset(name).frame
        folder = entry.relpath.split("/")[1]  # external/<owner>+<repo>/size_grids.csv
        parts.append(frame.assign(dataset=name, source=folder.replace("+", "/", 1), licence=entry.licence))
    columns = SIZE_GRID_COLUMNS + ["processes", "nodes", "dataset", "source", "licence"]
    stacked = pd.concat([p.reindex(columns=columns) for p in parts], ignore_index=True)
    for col in ("processes", "nodes"):
        stacked[col] = stacked[col].astype("Int64")
    owners = stacked.drop_duplicates(["dataset", "grid"])["grid"]
    if owners.duplicated().any():  # a grid name names one grid across all sets, or held-out grids would mix
        raise DataFormatError(f"size grids: grid name(s) {owners[owners.duplicated()].tolist()} appear in more than "
                              "one dataset")
    return stacked
