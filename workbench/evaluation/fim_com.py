"""FiM-Com against measured collectives.

What is mapped to what, station samples derived from OSU latencies, and sweeps of the
queueing model over data size and process count.

Mapping of the OSU Micro-Benchmarks broadcast data (``osu-orfeo``) onto the model:

* **message size <-> data points**: ``n_jobs = ceil(size_bytes / point_bytes)``, with
  ``point_bytes = 20`` as in the paper's K-means (section 4.1: "each data point is of
  20 Bytes"); a 1-byte message is one job.
* **cores <-> processes**: an ``MPI_Bcast`` over ``cores`` ranks has ``cores - 1``
  receivers, the model's ``processes`` R queues (the root keeps its copy).
* **time**: OSU's average latency over ranks (µs) <-> the mean makespan (µs).
* the basic linear algorithm (Open MPI ``coll_tuned`` algorithm 1: the root sends to
  each receiver in turn) is the one closest to Fig. 4's one-sender model; the others
  (chain, trees) can be chosen to see where the model stops applying.

Per-station service-time samples (section 3.3: "measure the total communication time
... and deduct the measured runtime of the other parts"), from one mapping (core,
socket or node placement):

* **D** (transfer, Eq. 13): per-point times ``dT / (dsize / point_bytes)`` between
  consecutive message sizes >= the eager limit, at 2 ranks (one sender, one receiver;
  every algorithm is the same transfer there, so the algorithms are replicates).
* **C** (initialisation, Eq. 15): the fastest rank's latency (``min_us``) for a 1-byte
  broadcast, one sample per core count: start-up with a negligible payload.
* **R** (receive, Eq. 16): in a linear broadcast the last receiver waits for
  ``cores - 2`` more sends than the first, so ``(max_us - min_us) / ((cores - 2) n)`` is
  one receiver's time per data point; one sample per core count >= 3 and message size
  >= the eager limit.  (``phi = processes`` then restores the sequential sends.)
* **M** (metadata, Eq. 14): at 2 ranks, at sizes >= the eager limit, the per-point time
  left after deducting start-up (the 1-byte latency) and transfer (``n`` times D's mean):
  ``(T - T_1B - n * d) / n`` -- the rendezvous handshake spread over the message --
  paired with the load ``chi = n`` (a message hands all its points to the network at
  once).  Non-positive remainders are dropped and counted in the warnings.  Below the
  eager limit the remainder is dominated by per-message costs that a per-point station
  cannot carry (fitted there, M becomes the bottleneck and 1 MiB broadcasts come out
  20 times too slow).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from workbench.errors import ValidationError
from workbench.models.fim.queueing import simulate_collective
from workbench.models.fim.service_fit import STATION_FAMILIES, StationFit, fit_station
from workbench.validation import require_columns

__all__ = [
    "POINT_BYTES",
    "EAGER_BYTES",
    "STATION_FAMILIES",
    "StationSamples",
    "osu_collective_curve",
    "osu_station_samples",
    "fit_stations",
    "sweep_collective",
    "summarize_sweep",
    "compare_with_osu",
    "extrap_spread",
    "relative_spread",
    "OSU_SIZES",
    "OSU_MAPPINGS",
    "SWEEP_PROCESSES",
    "PlacementData",
    "data_points",
    "extrap_spread_near",
    "measured_at",
    "measured_sweep_curves",
    "placement_data",
    "size_label",
    "sweep_values",
]

#: Bytes per data point (section 4.1).
POINT_BYTES = 20
#: Eager/rendezvous switch used to split small and large messages (the paper's 64 KB).
EAGER_BYTES = 65536
_OSU_COLUMNS = ["size_bytes", "processes", "latency_us", "min_us", "max_us"]


@dataclass(frozen=True)
class StationSamples:
    """Measured service-time samples per station (µs) and how each was derived."""

    samples: dict[str, np.ndarray]
    loads: np.ndarray
    provenance: dict[str, str]
    warnings: list[str] = field(default_factory=list)


def _select(osu: pd.DataFrame, benchmark: str, mapping: str, algorithm: int | None) -> pd.DataFrame:
    where = "FiM-Com measured data"
    if not isinstance(osu, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(osu).__name__}")
    missing = [c for c in ["benchmark", "mapping", "algorithm", *_OSU_COLUMNS] if c not in osu.columns]
    if missing:
        raise ValidationError(f"{where}: missing column(s) {missing}; load the data with read_osu_orfeo")
    rows = osu[(osu["benchmark"] == benchmark) & (osu["mapping"] == mapping)]
    if rows.empty:
        have = sorted(set(zip(osu["benchmark"], osu["mapping"])))
        raise ValidationError(f"{where}: no {benchmark!r} rows with mapping {mapping!r}; available: {have}")
    if algorithm is not None:
        chosen = rows[rows["algorithm"] == algorithm]
        if chosen.empty:
            raise ValidationError(
                f"{where}: no {benchmark}/{mapping} rows for algorithm {algorithm}; "
                f"available: {sorted(rows['algorithm'].dropna().unique().tolist())}"
            )
        rows = chosen
    require_columns(rows, _OSU_COLUMNS, f"{where} ({benchmark}, {mapping})")
    # the files paste several runs together: drop exact copies, average repeated runs
    keys = ["algorithm", "processes", "size_bytes"]
    measured = ["latency_us", "min_us", "max_us"]
    rows = rows.drop_duplicates(subset=keys + measured)
    return rows.groupby(keys, as_index=False, dropna=False)[measured].mean()


def osu_collective_curve(
    osu: pd.DataFrame,
    *,
    benchmark: str = "bcast",
    mapping: str = "node",
    algorithm: int = 1,
    point_bytes: int = POINT_BYTES,
) -> pd.DataFrame:
    """Measured latency per (size, cores) in model terms.

    Columns: ``size_bytes``, ``n_jobs`` (data points), ``cores``, ``processes``
    (receivers, ``cores - 1``), ``latency_us`` (mean over ranks), ``min_us``,
    ``max_us``; sorted by cores then size.

    Parameters
    ----------
    osu : pandas.DataFrame
        osu-orfeo latencies (:func:`~workbench.io.collectives.read_osu_orfeo`).
    benchmark : {"bcast", "reduce"}, default "bcast"
        The collective measured.
    mapping : str, default "node"
        Process placement (``core``, ``socket``, ``node`` or ``cache``).
    algorithm : int, default 1
        Open MPI algorithm id of the runs used.
    point_bytes : int, default 20
        Bytes per data point (job) of the model.
    """
    if point_bytes <= 0:
        raise ValidationError(f"point_bytes must be > 0, got {point_bytes}")
    rows = _select(osu, benchmark, mapping, algorithm)
    out = pd.DataFrame(
        {
            "size_bytes": rows["size_bytes"].astype(np.int64),
            "n_jobs": np.maximum(1, np.ceil(rows["size_bytes"] / point_bytes)).astype(np.int64),
            "cores": rows["processes"].astype(np.int64),
            "processes": rows["processes"].astype(np.int64) - 1,
            "latency_us": rows["latency_us"].astype(float),
            "min_us": rows["min_us"].astype(float),
            "max_us": rows["max_us"].astype(float),
        }
    )
    return out[out["processes"] >= 1].sort_values(["cores", "size_bytes"]).reset_index(drop=True)


def osu_station_samples(
    osu: pd.DataFrame,
    *,
    mapping: str = "node",
    algorithm: int = 1,
    point_bytes: int = POINT_BYTES,
    eager_bytes: int = EAGER_BYTES,
) -> StationSamples:
    """Per-station service-time samples (µs) derived from OSU broadcast latencies.

    The derivation of each station is in the module docstring and in ``provenance``.

    Parameters
    ----------
    osu : pandas.DataFrame
        osu-orfeo latencies (:func:`~workbench.io.collectives.read_osu_orfeo`).
    mapping : str, default "node"
        Process placement.
    algorithm : int, default 1
        Open MPI algorithm id of the runs used.
    point_bytes : int, default 20
        Bytes per data point (job) of the model.
    eager_bytes : int, default 65536
        Eager/rendezvous switch of the MPI library, bytes.
    """
    everything = _select(osu, "bcast", mapping, None)
    pairs = everything[everything["processes"] == 2].sort_values(["algorithm", "size_bytes"])
    warnings: list[str] = []

    large = pairs[pairs["size_bytes"] >= eager_bytes]
    d_times = []
    for _, curve in large.groupby("algorithm"):
        d_times.append(np.diff(curve["latency_us"].to_numpy()) / np.diff(curve["size_bytes"].to_numpy() / point_bytes))
    d = np.concatenate(d_times) if d_times else np.array([])
    if (d <= 0).any():
        warnings.append(f"D: {int((d <= 0).sum())} non-positive slopes dropped (latency fell with size)")
    d = d[d > 0]
    if d.size < 2:
        raise ValidationError(f"too few 2-rank messages >= {eager_bytes} B for mapping {mapping!r} to derive D")

    linear = _select(osu, "bcast", mapping, algorithm)
    smallest = linear[linear["size_bytes"] == linear["size_bytes"].min()]
    c = smallest["min_us"].to_numpy(dtype=float)
    wide = linear[(linear["processes"] >= 3) & (linear["size_bytes"] >= eager_bytes)]
    points = np.ceil(wide["size_bytes"] / point_bytes)
    r = ((wide["max_us"] - wide["min_us"]) / ((wide["processes"] - 2) * points)).to_numpy(dtype=float)

    start = pairs[pairs["size_bytes"] == pairs["size_bytes"].min()].set_index("algorithm")["latency_us"]
    n = np.ceil(large["size_bytes"].to_numpy() / point_bytes)
    excess = (large["latency_us"].to_numpy() - start.loc[large["algorithm"]].to_numpy() - n * d.mean()) / n
    keep = excess > 0
    if (~keep).any():
        warnings.append(
            f"M: {int((~keep).sum())} of {keep.size} per-point remainders are <= 0 after deducting "
            "start-up and transfer, dropped"
        )
    provenance = {
        "D": f"per-point slope of 2-rank latency, sizes >= {eager_bytes} B, {len(d_times)} algorithms as replicates",
        "M": f"2-rank per-point remainder at sizes >= {eager_bytes} B after start-up and transfer, load chi = points",
        "C": f"1-byte broadcast, fastest rank's latency (min over ranks), one per core count, algorithm {algorithm}",
        "R": f"(slowest - fastest rank) / ((cores - 2) points), sizes >= {eager_bytes} B, algorithm {algorithm}",
    }
    return StationSamples({"D": d, "M": excess[keep], "C": c, "R": r}, n[keep], provenance, warnings)


def fit_stations(samples: StationSamples, families: dict[str, str] | None = None) -> dict[str, StationFit]:
    """Fit every station of ``samples`` with the paper's families (or ``families``).

    Parameters
    ----------
    samples : StationSamples
        Service-time samples per station (:func:`osu_station_samples`).
    families : dict of str to str, optional
        Station -> distribution family, overriding the paper's (``STATION_FAMILIES``).
    """
    chosen = {**STATION_FAMILIES, **(families or {})}
    return {
        station: fit_station(
            values, chosen[station], station=station, loads=samples.loads if chosen[station] == "log" else None
        )
        for station, values in samples.samples.items()
    }


def sweep_collective(
    pattern: str,
    *,
    vary: str,
    values,
    n_jobs: int,
    processes: int,
    replications: int = 10,
    seed: int = 0,
    progress: bool = False,
    **rates,
) -> pd.DataFrame:
    """Simulate ``pattern`` for each of ``values`` of ``vary``, the other held at its given value.

    ``vary`` is ``"n_jobs"`` or ``"processes"`` (Fig. 6's axes).

    Returns a tidy frame: ``pattern, n_jobs, processes, replication, makespan`` (time
    unit of the rates) and ``per_job`` (makespan / n_jobs).

    Parameters
    ----------
    pattern : {"scatter", "broadcast", "gather"}
        The collective.
    vary : {"n_jobs", "processes"}
        The swept quantity (Fig. 6's axes).
    values : iterable of int
        Its values.
    n_jobs : int
        Data points when ``vary`` is ``"processes"``.
    processes : int
        Receivers or senders when ``vary`` is ``"n_jobs"``.
    replications : int, default 10
        Simulations per value.
    seed : int, default 0
        Seed of the simulations.
    progress : bool, default False
        Show a progress bar.
    **rates : float
        Service parameters of :func:`~workbench.models.fim.queueing.simulate_collective`.
    """
    if vary not in ("n_jobs", "processes"):
        raise ValidationError(f"vary must be 'n_jobs' or 'processes', got {vary!r}")
    frames = []
    for value in tqdm(list(values), desc=f"{pattern} vs {vary}", disable=not progress):
        config = {"n_jobs": n_jobs, "processes": processes, vary: int(value)}
        sim = simulate_collective(pattern, config["n_jobs"], config["processes"], seed=seed,
                                  replications=replications, sample_limit=0, **rates)
        frames.append(
            pd.DataFrame(
                {
                    "pattern": pattern,
                    "n_jobs": sim.n_jobs,
                    "processes": sim.processes,
                    "replication": np.arange(sim.replications),
                    "makespan": sim.makespan,
                    "per_job": sim.per_job,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def summarize_sweep(sweep: pd.DataFrame) -> pd.DataFrame:
    """Mean, min and max makespan over replications per configuration.

    Parameters
    ----------
    sweep : pandas.DataFrame
        A sweep of :func:`sweep_collective`.
    """
    return (
        sweep.groupby(["pattern", "n_jobs", "processes"], as_index=False)["makespan"]
        .agg(mean="mean", min="min", max="max")
        .assign(per_job=lambda f: f["mean"] / f["n_jobs"])
    )


def compare_with_osu(
    curve: pd.DataFrame,
    rates: dict[str, float],
    *,
    pattern: str = "broadcast",
    replications: int = 3,
    seed: int = 0,
    progress: bool = False,
) -> pd.DataFrame:
    """Put the model's mean makespan beside every measured configuration of ``curve``.

    ``curve`` comes from :func:`osu_collective_curve`; adds ``predicted_us`` and
    ``error_pct`` (signed, relative to the measured latency).

    Parameters
    ----------
    curve : pandas.DataFrame
        Measured latencies (:func:`osu_collective_curve`).
    rates : dict of str to float
        Service parameters (:func:`~workbench.models.fim.service_fit.rates_from_fits`).
    pattern : str, default "broadcast"
        The collective simulated.
    replications : int, default 3
        Simulations per configuration.
    seed : int, default 0
        Seed of the simulations.
    progress : bool, default False
        Show a progress bar.
    """
    predicted = np.empty(len(curve))
    rows = list(curve[["n_jobs", "processes"]].itertuples(index=False))
    for i, (n_jobs, processes) in enumerate(tqdm(rows, desc="FiM-Com vs OSU", disable=not progress)):
        sim = simulate_collective(pattern, int(n_jobs), int(processes), seed=seed, replications=replications,
                                  sample_limit=0, **rates)
        predicted[i] = sim.makespan.mean()
    return curve.assign(predicted_us=predicted, error_pct=100 * (predicted - curve["latency_us"]) / curve["latency_us"])


def relative_spread(makespans) -> dict[str, float]:
    """Dimensionless spread of repeated communication times.

    IQR / median and the coefficient of variation (comparable across message sizes and
    units).

    Parameters
    ----------
    makespans : array-like of float
        Repeated communication times.
    """
    x = np.asarray(makespans, dtype=float)
    if x.size < 2:
        raise ValidationError(f"a spread needs at least 2 replications, got {x.size}")
    q1, median, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    return {"rel_iqr": float((q3 - q1) / median), "cv": float(x.std(ddof=1) / x.mean())}


def extrap_spread(extrap: pd.DataFrame, collective: str = "MPI_Bcast") -> pd.DataFrame:
    """Measured repetition spread of one collective from the Extra-P MPI statistics (1600-2000 repetitions per row).

    ``library, ranks, repetitions, median_us, rel_iqr, cv``.  Message sizes are not
    recorded there, so only the dimensionless spread is compared with the model's
    replications (:func:`relative_spread`).

    Parameters
    ----------
    extrap : pandas.DataFrame
        Extra-P's MPI statistics (:func:`~workbench.io.collectives.read_extrap_mpi`).
    collective : str, default "MPI_Bcast"
        The collective.
    """
    require_columns(extrap, ["ranks", "median_us", "iqr_us", "mean_us", "sd_us"], "Extra-P MPI statistics")
    rows = extrap[extrap["collective"] == collective]
    if rows.empty:
        raise ValidationError(
            f"Extra-P MPI statistics: no rows for {collective!r}; available: {sorted(extrap['collective'].unique())}"
        )
    return (
        rows.assign(rel_iqr=rows["iqr_us"] / rows["median_us"], cv=rows["sd_us"] / rows["mean_us"])
        [["library", "ranks", "repetitions", "median_us", "rel_iqr", "cv"]]
        .sort_values(["library", "ranks"])
        .reset_index(drop=True)
    )


# ----------------------------------------------------------------------------- the OSU grid
#: OSU message sizes of the osu-orfeo broadcast files: 1 B .. 1 MiB.
OSU_SIZES = tuple(int(2**k) for k in range(21))
#: OSU process placements (``--map-by``) measured in osu-orfeo.
OSU_MAPPINGS = ("core", "socket", "node")
#: Process counts of a time-vs-p sweep (:func:`sweep_values` adds the current one).
SWEEP_PROCESSES = (1, 2, 3, 5, 8, 13, 20, 31, 47, 63, 95, 127, 191, 255)


def data_points(size_bytes: int, point_bytes: int = POINT_BYTES) -> int:
    """Return the model's ``n_jobs`` for a message of ``size_bytes``.

    ``ceil(size / point_bytes)``, at least one (a 1-byte message is one job; see the module
    docstring).

    Parameters
    ----------
    size_bytes : int
        Message size in bytes.
    point_bytes : int, default 20
        Bytes per data point.
    """
    return max(1, int(np.ceil(size_bytes / point_bytes)))


def size_label(size_bytes: int) -> str:
    """``"64 KiB = 3277 points"``: a message size and its data points at 20 B each.

    Parameters
    ----------
    size_bytes : int
        Message size in bytes.
    """
    value, unit = float(size_bytes), "B"
    for bigger in ("KiB", "MiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    points = data_points(size_bytes)
    return f"{value:g} {unit} = {points} point{'s' if points > 1 else ''}"


def measured_at(curve: pd.DataFrame | None, size_bytes: int, processes: int) -> pd.Series | None:
    """Return the measured row of ``curve`` at ``size_bytes`` and the core count nearest ``processes + 1``.

    ``curve`` comes from :func:`osu_collective_curve`; None when there is no such row.

    On a tie the smaller core count wins: socket and node placements were measured on 2,
    6, 10, ... cores only, so 64 cores (63 receivers) reads the 62-core run.

    Parameters
    ----------
    curve : pandas.DataFrame or None
        Measured latencies (:func:`osu_collective_curve`), or None.
    size_bytes : int
        Message size in bytes.
    processes : int
        Receivers (the core count read is ``processes + 1``).
    """
    if curve is None:
        return None
    rows = curve[curve["size_bytes"] == size_bytes]
    if rows.empty:
        return None
    distance = (rows["cores"] - (processes + 1)).abs()
    return rows.loc[distance.sort_values(kind="stable").index[0]]


def measured_sweep_curves(curve: pd.DataFrame | None, size_bytes: int,
                          processes: int) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """Return the measured counterparts of the two sweeps of Fig. 6.

    The latencies over message size at the core count :func:`measured_at` reads, and over
    core counts at ``size_bytes``; None where ``curve`` is None (no data) or has no such
    row.

    Parameters
    ----------
    curve : pandas.DataFrame or None
        Measured latencies (:func:`osu_collective_curve`), or None.
    size_bytes : int
        Message size of the sweep over core counts.
    processes : int
        Receivers of the sweep over message sizes.
    """
    if curve is None:
        return None, None
    at = measured_at(curve, size_bytes, processes)
    over_sizes = curve[curve["cores"] == at["cores"]] if at is not None else None
    return over_sizes, curve[curve["size_bytes"] == size_bytes]


def sweep_values(vary: str, processes: int, sizes=OSU_SIZES, process_counts=SWEEP_PROCESSES) -> list[int]:
    """Return the grid of a Fig. 6 sweep.

    The data points of the OSU ``sizes`` (``vary="n_jobs"``) or ``process_counts`` with the
    current ``processes`` added (``vary="processes"``).

    Parameters
    ----------
    vary : {"n_jobs", "processes"}
        The swept quantity.
    processes : int
        The current receivers, added to the process grid.
    sizes : sequence of int, default OSU_SIZES
        Message sizes (bytes) of the data-point grid.
    process_counts : sequence of int, default SWEEP_PROCESSES
        The process grid.
    """
    if vary == "n_jobs":
        return sorted({data_points(s) for s in sizes})
    if vary == "processes":
        return sorted({*process_counts, int(processes)})
    raise ValidationError(f"vary must be 'n_jobs' or 'processes', got {vary!r}")


@dataclass(frozen=True)
class PlacementData:
    """What one OSU placement gives.

    The station ``fits``, the measured broadcast ``curve`` and how the station samples were
    derived (``provenance``, ``warnings``).
    """

    mapping: str
    fits: dict[str, StationFit]
    curve: pd.DataFrame
    provenance: dict[str, str]
    warnings: tuple[str, ...]


def placement_data(osu: pd.DataFrame, mapping: str) -> PlacementData:
    """Fit the stations of one placement of ``osu`` and read its measured broadcast curve.

    Station fits (:func:`fit_stations` of :func:`osu_station_samples`) and the measured
    broadcast curve (:func:`osu_collective_curve`).

    Parameters
    ----------
    osu : pandas.DataFrame
        osu-orfeo latencies.
    mapping : str
        Process placement.
    """
    if mapping not in OSU_MAPPINGS:
        raise ValidationError(f"mapping (OSU placement) must be one of {', '.join(OSU_MAPPINGS)}, got {mapping!r}")
    samples = osu_station_samples(osu, mapping=mapping)
    return PlacementData(mapping, fit_stations(samples), osu_collective_curve(osu, mapping=mapping),
                         dict(samples.provenance), tuple(str(w) for w in samples.warnings))


def extrap_spread_near(extrap: pd.DataFrame, collective: str, ranks: int) -> pd.DataFrame:
    """Return :func:`extrap_spread` of ``collective`` at the measured rank count nearest ``ranks``.

    One row per MPI library.

    Parameters
    ----------
    extrap : pandas.DataFrame
        Extra-P's MPI statistics.
    collective : str
        The collective (e.g. ``"MPI_Bcast"``).
    ranks : int
        The rank count wanted.
    """
    spread = extrap_spread(extrap, collective)
    measured = spread["ranks"].unique()
    nearest = measured[np.argmin(np.abs(measured - ranks))]
    return spread[spread["ranks"] == nearest].reset_index(drop=True)
