"""Call-path profiles of whole applications in one tidy *profile table*.

HPC users measure their codes with Caliper, Score-P (Cube), Extra-P's own input formats or
the timer libraries of large simulation codes (GPTL in CESM/E3SM, phiprof), not as
``processes,time_s`` tables. :func:`read_profiles` reads all of them into one frame
with one row per (profile, region, metric), so that every region can be modelled
(:func:`region_curves`, :class:`workbench.models.regions.RegionPredictor`).

The profile table
-----------------

===============  ========  ===================================================================
column           dtype     meaning
===============  ========  ===================================================================
``profile``      str       one measured run (a file, or one point and repetition of an
                           Extra-P experiment: ``file#p<point>r<repetition>``)
``format``       str       ``caliper``, ``cali-json``, ``cube``, ``extrap-text``,
                           ``extrap-json``, ``extrap-jsonl``, ``gptl``, ``phiprof``,
                           ``thicket``
``region``       str       call path from the root, elements joined by ``->`` (Extra-P's
                           separator), e.g. ``main->solve->MPI_Allreduce``
``name``         str       last element of the path
``parent``       str       ``region`` of the parent ("" for a root)
``depth``        int64     0 for a root
``metric``       str       what is measured (``time``, ``time.duration``, ``visits``, ...)
``kind``         str       ``inclusive``, ``exclusive`` or ``n/a`` (a per-region attribute)
``aggregation``  str       over processes (ranks; Cube: locations): ``min``, ``avg``, ``max``,
                           ``sum``, ``any`` (the same everywhere) or ``none`` (not aggregated
                           or not said)
``value``        float64   the measured value
``unit``         str       ``s`` for seconds, the source's unit otherwise, "" when unknown
``processes``    float64   MPI processes of the run (NaN when the source does not say)
``nodes``        float64   nodes (NaN when unknown)
``threads``      float64   threads per process (NaN when unknown)
``gpus``         float64   GPUs (NaN when unknown)
``run``          int64     repetition index among the profiles with the same run parameters
===============  ========  ===================================================================

Every run parameter the source records follows, one column each, after these: Caliper's
global attributes (adiak's ``problem_size``, ``jobsize``, ``numhosts``, ...; Caliper's own
``cali.*``/``spot.*`` bookkeeping left out), Extra-P's parameters (``p``, ``n``, ...), Cube's
``<attr>`` metadata and the parameters in the name of the folder of a Cube profile
(Extra-P's convention ``prefix.x10y1z1.r1``). Numeric parameters are float64. A parameter
whose name is a column above is mapped to it (``threads``) or prefixed with ``param.``.
Allocation columns come from the parameters when the source does not state them:
``processes`` from ``mpi.world.size``, ``jobsize``, ``p``, ``processes``, ``np``, ``ranks``...;
``nodes`` from ``numhosts``, ``nodes``; ``threads`` from ``threads``, ``omp_num_threads``, ``t``;
``gpus`` from ``gpus``, ``num_gpus``.

Formats are told by content, not by name: ``__rec=`` lines (Caliper ``.cali``, read with
``caliper-reader``), a tar archive holding ``anchor.xml`` (Score-P ``.cubex``, read with
``pycubexr``), Extra-P text (``PARAMETER``/``POINTS``/``REGION``/``METRIC``/``DATA`` lines),
Extra-P JSON (``parameters`` and ``measurements``, both its layouts), JSON Lines of
``{"params": ..., "value": ...}`` (Extra-P's; :func:`to_extrap` writes it), cali-query JSON
(a list of records, ``format json``, or ``{"records": [...], "globals": {...}}``), GPTL
timing files (a ``name ... wallmax ... wallmin`` table: the summaries over ranks CIME, E3SM
and CESM write, ``model_timing_stats``/``e3sm_timing_stats.*``; a ``Stats for thread 0:``
call tree: one rank's ``timing.N``; :mod:`workbench.io.callpath.gptl`), phiprof reports
(``Set of identical timers has N processes`` tables or phiprof 1's columns;
:mod:`workbench.io.callpath.phiprof`), zip and tar archives of any of these (a tar archive
holding ``anchor.xml`` is a Cube profile; E3SM keeps a run's GPTL files as
``timing.<LID>.tar.gz``), and gzip-compressed files of any of these (unpacked under the size
caps; an archive inside a tar archive is refused).
:func:`from_thicket` takes a Hatchet GraphFrame or a Thicket.

GPTL and phiprof timers are inclusive: their time rows are ``kind`` inclusive, with the
aggregations over ranks the report prints kept apart (GPTL summaries: max, min, avg and sum;
phiprof: avg, and max and min from its detailed table), a ``count`` metric beside them, and
``processes``/``threads`` from the report's header. GPTL's summaries list timers flat (each
a region at depth 0); its per-rank files and phiprof give the call tree.

Extra-P text files give no call tree; where ``REGION`` names are indented (as in the RELeARN
data), the indentation is taken as nesting (Extra-P itself reads them as flat regions).

Safety is that of the other readers (:mod:`workbench.io.text`): regular files only, size
caps before reading (``MAX_FILE_BYTES`` per file, :data:`MAX_FILES` files, zip and tar
members capped in number and size, only regular tar members unpacked), and only the
project's errors, naming the file (and the line or record): a parser's own exception never
reaches the user.
"""

from workbench.io.callpath.common import MAX_FILES, PROFILE_TABLE_COLUMNS
from workbench.io.callpath.extrap import to_extrap
from workbench.io.callpath.reader import read_profile_files, read_profiles
from workbench.io.callpath.table import region_curves, time_metric, validate_profile_table
from workbench.io.callpath.thicket import from_thicket

__all__ = [
    "PROFILE_TABLE_COLUMNS",
    "MAX_FILES",
    "read_profiles",
    "read_profile_files",
    "from_thicket",
    "to_extrap",
    "validate_profile_table",
    "time_metric",
    "region_curves",
]
