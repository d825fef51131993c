"""Parsers for the text output of the two standard MPI micro-benchmark suites.

:func:`read_osu` - OSU Micro-Benchmarks (OMB, ``osu_latency``, ``osu_bw``, ``osu_bcast`` ...)
    The stdout of any 5.x-7.x version, as users keep it: one file per run, several runs
    appended to one log (each ``# OSU MPI ... Test vX.Y`` title starts a new ``run``), or a
    whole terminal session with prompts and ``mpirun`` messages in between (lines before a
    title, outside tables, are ignored).  Every variant of OMB's table is understood from
    its column header (``print_header``/``print_only_header``/``print_only_header_nbc`` of
    ``c/util/osu_util*.c``):

    * point-to-point ``# Size  Latency (us)`` / ``Avg Latency(us)`` (7.5+), bandwidth
      ``Bandwidth (MB/s)`` (``osu_bw``, ``osu_bibw``), ``osu_mbw_mr``'s ``MB/s  Messages/s``
      with its ``# [ pairs: N ] [ window size: W ]`` line;
    * blocking collectives ``Avg Latency(us)`` and, with ``-f``, ``Min Latency(us)
      Max Latency(us)  Iterations``; ``osu_barrier`` has no ``Size`` column;
    * non-blocking collectives ``Overall(us)  Compute(us)  Pure Comm.(us)  Overlap(%)`` and,
      with ``-f``, ``Coll. Init(us)  MPI_Test(us)  MPI_Wait(us)`` (and in 7.x ``Min Comm.(us)
      Max Comm.(us)``); ``osu_ibarrier`` prints its header without ``#``;
    * 7.x extras: the ``# Datatype: MPI_CHAR.`` line (before or after the header), the
      ``Validation`` column (``Pass``/``Fail``, with ``-c``), the percentile columns ``P50 Tail
      Lat(us)`` / ``P99 Tail BW(MB/s)`` of the tail-latency option (in the 7.4 sources; no
      real output seen, the test uses a file laid out from those ``printf`` formats) and
      ``Transmit Size`` (derived datatypes).

:func:`read_imb` - Intel MPI Benchmarks (``IMB-MPI1``; also IMB-EXT/-NBC/-RMA tables)
    One block per ``# Benchmarking <name>`` with ``# #processes = N``, optionally
    ``# ( N additional processes waiting in MPI_Barrier)``, ``-multi`` blocks
    (``# Benchmarking Multi-<name>``, ``# ( G groups of P processes each running
    simultaneous )``), ``MODE: AGGREGATE``/``NON-AGGREGATE`` (IMB-EXT/-RMA), and the table
    ``#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec] Mbytes/sec`` in its variants:
    ``t[usec]`` (PingPong, PingPing), no ``Mbytes/sec`` (collectives), no ``#bytes``
    (Barrier), ``Mbytes/sec Msg/sec`` (Uniband, Biband), ``defects`` (builds with ``-check``),
    ``t_ovrl t_pure t_CPU overlap[%]`` (IMB-NBC).  The banner (``Intel(R) MPI Benchmarks
    2021.7, MPI-1 part``, ``# Date``, ``# Machine``, ``# MPI Version``, the calling sequence,
    ``# List of Benchmarks to run:``) goes to ``frame.attrs["headers"]``; each banner starts
    a new ``run``.  The ``[ 1.91, 21.93, ... ]`` tail-latency lines of the ``-show_tail``
    fork of IMB (PerfKitBenchmarker) are skipped.

The package is one module per format (:mod:`.osu`, :mod:`.imb`), the table machinery they share
(:mod:`.tables`) and the Exchange layout (:mod:`.exchange`); its names are importable from here.

Both readers take a file or a folder (every non-hidden file in it; files that are not
output of that suite are skipped with a :class:`~workbench.errors.ParseWarning` and listed
in ``frame.attrs["skipped"]``) and return one row per table row: per file, run, table
(benchmark, process count) and message size.  ``source`` and ``line`` say where each row
came from.

Bad input raises :class:`~workbench.errors.DataFormatError` naming the file and line: a
missing file, an empty file, text that is not that suite's output, a table row with the
wrong number of fields, a data row before any column header, non-numeric or negative
values, a folder without any output of the suite.  A run cut short (a job killed in the
middle of a table) keeps its complete rows and warns with a ParseWarning naming the line
of the incomplete last row (IMB also warns when a run has no ``All processes entering
MPI_Finalize`` line).

:func:`imb_exchange_table` turns IMB ``Exchange`` rows into the layout of Table 6.1 of
Branikas ([Branikas2024], ``data/seed-tables/exchange_benchmark_table6_1.csv``), the input
of the semi-empirical Exchange model (§6.1-6.2).
"""

from workbench.io.microbench.exchange import EXCHANGE_TABLE_COLUMNS, imb_exchange_table
from workbench.io.microbench.imb import IMB_COLUMNS, IMB_METRICS, read_imb
from workbench.io.microbench.osu import OSU_COLUMNS, OSU_METRICS, read_osu
from workbench.io.microbench.tables import MAX_FILE_BYTES  # read where it is defined: patch it in .tables

__all__ = [
    "OSU_COLUMNS",
    "OSU_METRICS",
    "IMB_COLUMNS",
    "IMB_METRICS",
    "EXCHANGE_TABLE_COLUMNS",
    "MAX_FILE_BYTES",
    "read_osu",
    "read_imb",
    "imb_exchange_table",
]
