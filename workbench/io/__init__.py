"""Data layer: NPB log parser, tidy scaling tables and the dataset catalogue.

* :func:`read_npb_logs` / :func:`parse_npb_text` - raw NAS Parallel Benchmarks output
  (MPI, OpenMP, multi-zone) to a tidy frame (:mod:`workbench.io.npb`).
* :func:`read_scaling_csv`, :func:`validate_scaling_frame`, :func:`list_curves`,
  :func:`select_curve`, :func:`read_scaling_data`, :func:`read_scaling_bytes` - the
  canonical strong-scaling table (:mod:`workbench.io.scaling`).
* :func:`list_datasets`, :func:`fetch_dataset`, :func:`fetch_npb_pi_cluster`,
  :func:`fetch_seed_table`, :func:`data_mirror` - bundled and mirrored datasets
  (:mod:`workbench.io.catalogue`; real data via ``WORKBENCH_DATA_MIRROR``);
  :func:`development_curves` - every development strong-scaling curve in one curve table,
  one ``source`` label per upstream repository.
* :func:`read_perf_stat`, :class:`PerfStat` - ``perf stat`` output (human or ``-x,`` CSV
  form, text or file) to the counters of FiM-Cal (:mod:`workbench.io.perf`).
* :func:`read_osu_orfeo`, :func:`read_extrap_mpi` - measured MPI collective latencies
  (the ``osu-orfeo`` OSU CSV files and Extra-P's ``mpi_data.csv``) to tidy frames for
  FiM-Com calibration (:mod:`workbench.io.collectives`).
* :func:`read_osu`, :func:`read_imb`, :func:`imb_exchange_table` - the text output of the
  OSU Micro-Benchmarks (5.x-7.x) and Intel MPI Benchmarks (IMB-MPI1 ...) to tidy frames,
  and IMB Exchange rows in the layout of Table 6.1 of [Branikas2024]
  (:mod:`workbench.io.microbench`).
* :func:`read_scaling_corpus`, :func:`read_curve_extract`, :func:`read_curves_csv`,
  :func:`curves_from_scaling_frame`, :func:`validate_curves`, :func:`curve_summary` - many
  strong-scaling curves in one tidy *curve table* (:mod:`workbench.io.curves`, optional
  topology columns :data:`TOPOLOGY_COLUMNS`), e.g. the 152-curve ``scaling-corpus``.
* :func:`read_size_grids`, :func:`validate_size_grids` - one application on one machine at
  several problem sizes and allocations in one tidy *size-grid table* (:mod:`workbench.io.size_grids`,
  columns :data:`SIZE_GRID_COLUMNS`), e.g. the catalogue's ``cloud-size-grids``;
  :func:`development_size_grids` - every bundled size grid in one table, one ``source`` per
  upstream repository.
* :func:`read_profile_csv`, :func:`read_pprof` - per-phase profiles of small runs (simple
  CSV, TAU ``pprof`` text) as the profile frame of the fractal model
  (:mod:`workbench.io.profiles`).
* :func:`read_profiles`, :func:`from_thicket`, :func:`to_extrap`, :func:`validate_profile_table`,
  :func:`region_curves` - call-path profiles of whole applications (Caliper ``.cali``,
  cali-query JSON, Score-P ``.cubex``, Extra-P text/JSON/JSON Lines, GPTL timing files of
  CESM/E3SM, phiprof reports, Hatchet/Thicket objects) in
  one tidy *profile table* (one row per profile, region and metric), and per-region scaling
  curves from it (:mod:`workbench.io.callpath`).
* :func:`read_measured_kmeans`, :func:`read_comm_pingpong`, :func:`read_comm_datagen`,
  :func:`read_fractal_demo` - the tables this project measures itself (CSV + JSON sidecar):
  their columns, checks and readers (:mod:`workbench.io.measured`; the programs that measure
  them, :mod:`workbench.measure` and :mod:`workbench.workloads`, write with the same).

Every reader opens files, uploads and text through :mod:`workbench.io.text`: regular files
only (no folders, named pipes or devices where a file is expected), size caps checked before
reading (50 MiB by default), UTF-8 with or without a byte-order mark (Latin-1 accepted in
logs), any line ends, and CSV shape limits checked before pandas (1,000 columns, 1 MiB lines,
1,000,000 lines, 2,000,000 cells). Whatever the input, a reader raises only the project's
errors (:class:`~workbench.errors.WorkbenchError`), each naming the file and, where there is
one, the line (``tests/test_fuzz_readers.py``).
"""

from workbench.io.callpath import (
    PROFILE_TABLE_COLUMNS,
    from_thicket,
    read_profiles,
    region_curves,
    to_extrap,
    validate_profile_table,
)
from workbench.io.catalogue import (
    MIRROR_ENV,
    Dataset,
    data_mirror,
    development_curves,
    development_size_grids,
    fetch_dataset,
    fetch_npb_pi_cluster,
    fetch_seed_table,
    list_datasets,
)
from workbench.io.collectives import read_extrap_mpi, read_osu_orfeo
from workbench.io.curves import (
    CURVE_COLUMNS,
    TOPOLOGY_COLUMNS,
    curve_summary,
    curves_from_scaling_frame,
    read_curve_extract,
    read_curves_csv,
    read_scaling_corpus,
    validate_curves,
)
from workbench.io.measured import read_comm_datagen, read_comm_pingpong, read_fractal_demo, read_measured_kmeans
from workbench.io.microbench import imb_exchange_table, read_imb, read_osu
from workbench.io.npb import NPB_COLUMNS, parse_npb_filename, parse_npb_text, read_npb_logs
from workbench.io.perf import PerfStat, read_perf_stat
from workbench.io.profiles import read_pprof, read_profile_csv
from workbench.io.scaling import (
    SCALING_COLUMNS,
    SCALING_TOPOLOGY_COLUMNS,
    TIME_UNITS,
    UNITS,
    allocations,
    frame_unit,
    list_curves,
    placement_labels,
    read_scaling_bytes,
    read_scaling_csv,
    read_scaling_data,
    select_curve,
    validate_scaling_frame,
)
from workbench.io.size_grids import SIZE_GRID_COLUMNS, read_size_grids, validate_size_grids

__all__ = [
    "CURVE_COLUMNS",
    "MIRROR_ENV",
    "NPB_COLUMNS",
    "PROFILE_TABLE_COLUMNS",
    "SCALING_COLUMNS",
    "SCALING_TOPOLOGY_COLUMNS",
    "SIZE_GRID_COLUMNS",
    "TIME_UNITS",
    "TOPOLOGY_COLUMNS",
    "UNITS",
    "allocations",
    "frame_unit",
    "Dataset",
    "PerfStat",
    "curve_summary",
    "curves_from_scaling_frame",
    "data_mirror",
    "development_curves",
    "development_size_grids",
    "fetch_dataset",
    "fetch_npb_pi_cluster",
    "fetch_seed_table",
    "from_thicket",
    "imb_exchange_table",
    "list_curves",
    "list_datasets",
    "parse_npb_filename",
    "parse_npb_text",
    "placement_labels",
    "read_curve_extract",
    "read_curves_csv",
    "read_comm_datagen",
    "read_comm_pingpong",
    "read_extrap_mpi",
    "read_fractal_demo",
    "read_imb",
    "read_measured_kmeans",
    "read_npb_logs",
    "read_osu",
    "read_osu_orfeo",
    "read_perf_stat",
    "read_pprof",
    "read_profile_csv",
    "read_profiles",
    "region_curves",
    "read_scaling_bytes",
    "read_scaling_corpus",
    "read_scaling_csv",
    "read_scaling_data",
    "read_size_grids",
    "select_curve",
    "to_extrap",
    "validate_curves",
    "validate_profile_table",
    "validate_scaling_frame",
    "validate_size_grids",
]
