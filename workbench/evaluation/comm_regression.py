"""[Papadopoulou2015]'s communication regression on real data: our ping-pong sweep and OSU broadcasts.

Two measured datasets are turned into [Papadopoulou2015]'s descriptor frame (columns ``S, M, PPN, N, I,
SW, R`` + ``comm_time_us``, see :mod:`workbench.models.comm.descriptors`):

**Our ping-pong sweep** (catalogue ``comm-pingpong-local``, :func:`pingpong_sweep`):
[Papadopoulou2015]'s own benchmark (section III.B) run with mpi4py on this machine; the rows already
carry the descriptors (COMM_SCHEMA contract).  On one machine every message stays on the
node: ``N = 1``, ``I = 0``, hence ``NT = V = NI = VI = 0`` -- every point is in Area I and
the NT threshold has nothing to split; only the message-size split (Ia/Ib) is exercised.

**OSU broadcast on ORFEO** (catalogue ``osu-orfeo``, :func:`osu_broadcast_frame`):
``osu_bcast`` latencies (µs, OSU's average over ranks of the per-call average) on two
nodes of 2 sockets x 64 cores (128 cores per node) for ``--map-by core|socket|node``.
Each (mapping, algorithm, processes, size) becomes one configuration:

* ``S`` = the message size (bytes);
* the **pattern** is the algorithm's tree with root 0 (:func:`broadcast_partners`): row
  ``r`` of the partner array lists the ranks ``r`` sends to, in order (Open MPI 4.1
  ``coll_tuned`` topologies, ``ompi/mca/coll/base/coll_base_topo.c``): 1 basic linear (the
  root sends to every rank), 2 chain (:data:`CHAIN_FANOUT` = 4 chains of consecutive ranks,
  Open MPI's default ``bcast_algorithm_chain_fanout``), 5 binary tree (the interleaved
  k-ary tree of ``build_tree`` with fanout 2), 6 binomial (``build_bmtree``).  Algorithm 0
  ("default") lets Open MPI pick an algorithm per size and count by rules we cannot
  reconstruct for this run, so it has no pattern and is refused;
* ``M`` = messages on the critical path (:func:`critical_path_messages`): a sender
  injects its messages one after another in the order of its row, so the ``k``-th child
  receives ``k`` messages after its parent; ``M`` is the largest such count over ranks
  (basic linear: ``p - 1``, the root's messages; binomial tree of 8 ranks: 6, chain of 16: 6).
  This replaces [Papadopoulou2015]'s "messages per process", which assumes every process sends the
  same number of messages -- a broadcast does not;
* the **rank -> node mapping** (:func:`osu_rank_node`): ``--map-by core`` and
  ``--map-by socket`` fill node 0 (128 cores) before node 1 (block mapping; socket only
  alternates the sockets *inside* a node, invisible to the node-level descriptors, so core
  and socket have identical descriptors and differ only in their measurements);
  ``--map-by node`` deals ranks round robin over the 2 nodes;
* ``PPN``, ``N``, ``I`` from that mapping and the tree's edges
  (:func:`~workbench.models.comm.descriptors.mapping_descriptors`), ``SW = R = 1``
  (one switch, one rack: two nodes);
* comm time = ``latency_us`` (or ``max_us``, the slowest rank, closer to [Papadopoulou2015]'s maximum
  over processes: ``time=``).

The OSU files paste several campaigns together; repeated configurations are averaged as
:func:`workbench.evaluation.fim_com.osu_collective_curve` does.

:func:`train_test_split_by` and :func:`evaluate_split` implement the train-small /
test-big check (train on <= 64 processes, test on 128-256), :func:`published_comparison`
puts our numbers beside the paper's 29 % mean error and 60 % within +-30 %
(16-8192 processes, 3D-Jacobi and 3D-advection kernels on Vilje; our MAPE is in percent).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.evaluation.fim_com import osu_collective_curve
from workbench.io import fetch_dataset
from workbench.io.text import csv_frame, decode
from workbench.metrics import band_text
from workbench.models.comm.correlation import TARGET
from workbench.models.comm.descriptors import DESCRIPTOR_COLUMNS, descriptors, mapping_descriptors
from workbench.models.comm.patterns import NO_PARTNER, mapping
from workbench.models.comm.regression import (
    PUBLISHED,
    AreaSplit,
    CommRegression,
    CommRegressionResult,
    comm_times,
    evaluate,
)

__all__ = [
    "BCAST_PATTERNS",
    "CHAIN_FANOUT",
    "COMM_TIMES_COLUMNS",
    "COMM_TIMES_EXAMPLE",
    "EVALUATIONS",
    "ORFEO_CORES_PER_NODE",
    "ORFEO_NODES",
    "OSU_MAPPINGS",
    "broadcast_partners",
    "critical_path_messages",
    "default_sweep",
    "evaluate_split",
    "evaluation_sets",
    "fit_and_evaluate",
    "osu_broadcast_frame",
    "osu_broadcast_label",
    "osu_rank_node",
    "pingpong_sweep",
    "published_comparison",
    "random_split",
    "read_comm_times_csv",
    "synthetic_sweep",
    "train_test_split_by",
]

#: Cores per ORFEO EPYC node (2 sockets x 64 cores) and nodes used by the OSU runs.
ORFEO_CORES_PER_NODE = 128
ORFEO_NODES = 2
#: OSU ``--map-by`` placements and the node-level mapping each one is.
OSU_MAPPINGS = {"core": "block", "socket": "block", "node": "round_robin"}
#: Open MPI ``bcast_algorithm_chain_fanout`` default: number of chains below the root.
CHAIN_FANOUT = 4
#: Broadcast algorithms with a pattern (Open MPI 4.1 coll_tuned ids -> name).
BCAST_PATTERNS = {1: "basic_linear", 2: "chain", 5: "binary_tree", 6: "binomial"}


# ----------------------------------------------------------------------- patterns


def _children_to_partners(parent: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Build a partner array from each rank's parent and the position key that orders siblings.

    Row = a sender's children in send order; the root's parent is -1.
    """
    p = parent.size
    child = np.flatnonzero(parent >= 0)
    sort = np.lexsort((order[child], parent[child]))
    child = child[sort]
    par = parent[child]
    counts = np.bincount(par, minlength=p)
    width = max(int(counts.max()), 1)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(child.size) - start[par]
    partners = np.full((p, width), NO_PARTNER, dtype=np.int64)
    partners[par, slot] = child
    return partners


def broadcast_partners(algorithm: int, processes: int) -> np.ndarray:
    """Return the tree of an Open MPI broadcast rooted at rank 0 as a ``(processes, k)`` partner array.

    Parameters
    ----------
    algorithm : int
        An Open MPI 4.1 ``coll_tuned`` broadcast id with a pattern, a key of
        :data:`BCAST_PATTERNS` (see the module docstring for the algorithms).
    processes : int
        Ranks, >= 2.

    Returns
    -------
    numpy.ndarray of int64
        Row ``r`` = the ranks ``r`` sends the message to, in send order, padded with
        ``NO_PARTNER``.

    Raises
    ------
    ValidationError
        An algorithm without a pattern, or fewer than 2 processes.
    """
    where = "broadcast_partners"
    if algorithm not in BCAST_PATTERNS:
        raise ValidationError(
            f"{where}: no pattern for broadcast algorithm {algorithm!r}; choose one of "
            f"{ {k: v for k, v in BCAST_PATTERNS.items()} } (0 = Open MPI's per-size default has none)"
        )
    if isinstance(processes, bool) or not isinstance(processes, (int, np.integer)) or processes < 2:
        raise ValidationError(f"{where}: processes must be an integer >= 2, got {processes!r}")
    p = int(processes)
    rank = np.arange(p)
    if algorithm == 1:  # basic linear: the root sends to every other rank
        parent = np.where(rank == 0, -1, 0)
        order = rank
    elif algorithm == 2:  # chain: ranks 1..p-1 in `fanout` consecutive chains
        fanout = min(CHAIN_FANOUT, p - 1)
        base, extra = divmod(p - 1, fanout)
        lengths = base + (np.arange(fanout) < extra)
        heads = 1 + np.concatenate([[0], np.cumsum(lengths)[:-1]])
        is_head = np.isin(rank, heads)
        parent = np.where(rank == 0, -1, np.where(is_head, 0, rank - 1))
        order = rank
    elif algorithm == 5:  # Open MPI build_tree(fanout 2): children r + 2^level * (1, 2)
        level = np.floor(np.log2(rank + 1)).astype(np.int64)
        parent = np.full(p, -1)
        for i in (1, 2):
            child = rank + (2**level) * i
            ok = child < p
            parent[child[ok]] = rank[ok]
        order = rank
    else:  # 6, binomial (build_bmtree): parent = rank with its lowest set bit cleared
        parent = np.where(rank == 0, -1, rank & (rank - 1))
        order = rank  # children r + 1, r + 2, r + 4, ...: increasing rank
    return _children_to_partners(parent, order)


def critical_path_messages(partners) -> int:
    """Count the messages on the longest root-to-leaf path of a broadcast tree (root 0).

    Every sender injects its messages one after another in row order: child ``k``
    (1-based) of a sender receives ``k`` sends after its parent.

    Parameters
    ----------
    partners : array-like of int, shape (processes, k)
        The tree as :func:`broadcast_partners` returns it.

    Returns
    -------
    int
        The maximum over ranks of the sends before the message reaches them.
    """
    arr = np.asarray(partners)
    sender, slot = np.nonzero(arr != NO_PARTNER)
    child = arr[sender, slot]
    arrival = np.zeros(arr.shape[0], dtype=np.int64)
    # depth iterations at most; each pass propagates one more level
    for _ in range(arr.shape[0]):
        new = arrival.copy()
        new[child] = arrival[sender] + slot + 1
        if np.array_equal(new, arrival):
            break
        arrival = new
    return int(arrival.max())


def osu_rank_node(mapping_name: str, processes: int) -> np.ndarray:
    """Return the node (0 or 1) of every rank of an ORFEO OSU run placed with ``--map-by mapping_name``.

    The placements are described in the module docstring.

    Parameters
    ----------
    mapping_name : {"core", "socket", "node"}
        The run's ``--map-by`` (:data:`OSU_MAPPINGS`).
    processes : int
        Ranks of the run.

    Returns
    -------
    numpy.ndarray of int
        One node per rank.

    Raises
    ------
    ValidationError
        An unknown mapping.
    """
    kind = OSU_MAPPINGS.get(mapping_name)
    if kind is None:
        raise ValidationError(f"osu_rank_node: unknown OSU mapping {mapping_name!r}; "
                              f"choose one of {list(OSU_MAPPINGS)}")
    if kind == "block":
        return mapping("block", processes, ppn=ORFEO_CORES_PER_NODE)
    return mapping("round_robin", processes, nodes=ORFEO_NODES)


# ---------------------------------------------------------------------- datasets


def osu_broadcast_frame(osu: pd.DataFrame, mapping: str = "core", algorithm: int = 1,
                        time: str = "latency_us") -> pd.DataFrame:
    """[Papadopoulou2015]'s descriptor frame of the OSU broadcasts of one placement and algorithm.

    Parameters
    ----------
    osu : pandas.DataFrame
        The ``osu-orfeo`` frame (:func:`workbench.io.read_osu_orfeo`).
    mapping : {"core", "socket", "node"}, default "core"
        The placement (:func:`osu_rank_node`).
    algorithm : int, default 1
        The broadcast algorithm (:func:`broadcast_partners`).
    time : {"latency_us", "min_us", "max_us"}, default "latency_us"
        The column that becomes ``comm_time_us``: the average over ranks, or the minimum or
        maximum.

    Returns
    -------
    pandas.DataFrame
        Columns ``mapping``, ``algorithm``, ``processes``, the 13 metrics, ``comm_time_us``,
        ``latency_us``, ``min_us``, ``max_us``; sorted by processes then size.

    Raises
    ------
    ValidationError
        An unknown ``time``, algorithm or mapping, or no such runs in ``osu``.
    """
    if time not in ("latency_us", "min_us", "max_us"):
        raise ValidationError(f"osu_broadcast_frame: time must be latency_us, min_us or max_us, got {time!r}")
    if algorithm not in BCAST_PATTERNS:
        broadcast_partners(algorithm, 2)  # raises the explanatory error
    osu_rank_node(mapping, 2)  # unknown mapping: a clear error before the data lookup
    curve = osu_collective_curve(osu, benchmark="bcast", mapping=mapping, algorithm=algorithm)
    per_count = []
    for p in np.unique(curve["cores"]):
        p = int(p)
        partners = broadcast_partners(algorithm, p)
        base = mapping_descriptors(partners, osu_rank_node(mapping, p), 1.0)
        base["M"] = float(critical_path_messages(partners))
        per_count.append({"processes": p, **{c: base[c] for c in DESCRIPTOR_COLUMNS if c != "S"}})
    frame = curve.rename(columns={"processes": "receivers"}).merge(
        pd.DataFrame(per_count), left_on="cores", right_on="processes")
    frame = frame.assign(mapping=mapping, algorithm=int(algorithm), S=frame["size_bytes"].astype(float),
                         **{TARGET: frame[time].astype(float)})
    columns = ["mapping", "algorithm", "processes", *DESCRIPTOR_COLUMNS, TARGET, "latency_us", "min_us", "max_us"]
    out = descriptors(frame[columns])
    return out.sort_values(["processes", "S"]).reset_index(drop=True)


def pingpong_sweep(mirror=None) -> pd.DataFrame:
    """Load our ping-pong sweep with the 13 metrics added.

    Catalogue ``comm-pingpong-local``, measured by :mod:`workbench.measure.comm` on this
    machine.

    Parameters
    ----------
    mirror : str, os.PathLike or None, default None
        The data mirror; None: ``WORKBENCH_DATA_MIRROR`` (:func:`~workbench.io.fetch_dataset`).

    Returns
    -------
    pandas.DataFrame
        The descriptor frame; its ``attrs`` keep the run facts (machine, date, MPI version).

    Raises
    ------
    DatasetNotFoundError
        The sweep is not there.
    """
    data = fetch_dataset("comm-pingpong-local", mirror=mirror)
    frame = descriptors(data.frame)
    frame.attrs.update(data.frame.attrs)
    return frame


def synthetic_sweep(seed: int = 0, noise: float = 0.05) -> pd.DataFrame:
    """Return a SYNTHETIC sweep (not a measurement) in the ping-pong frame's columns.

    [Papadopoulou2015]'s parameter grid on a made-up cluster (N 1..16 nodes, PPN 1..16, M
    1..4, S 128 B..1 MiB, ``I`` of a block mapping with random partners approximated by
    ``1 - (PPN-1)/(P-1)``, SW = R = 1) and times from a three-regime model; for
    demonstrations and tests where no measured sweep is at hand.

    Parameters
    ----------
    seed : int, default 0
        Seeds the scatter.
    noise : float, default 0.05
        Sigma of the log-normal scatter of the times.

    Returns
    -------
    pandas.DataFrame
        The descriptor frame with ``comm_time_us``; ``attrs["synthetic"]`` is True.
    """
    rng = np.random.default_rng(seed)
    grid = np.array(np.meshgrid([1, 2, 4, 8, 16], [1, 2, 4, 8, 16], [1, 2, 4], 2.0 ** np.arange(7, 21, 2),
                                indexing="ij")).reshape(4, -1).T
    n, ppn, m, s = grid.T
    procs = n * ppn
    keep = procs >= 2
    n, ppn, m, s, procs = n[keep], ppn[keep], m[keep], s[keep], procs[keep]
    frame = pd.DataFrame({"S": s, "M": m, "PPN": ppn, "N": n, "I": np.clip(1 - (ppn - 1) / (procs - 1), 0, 1),
                          "SW": 1.0, "R": 1.0, "processes": procs})
    frame = descriptors(frame)
    latency = 2.0 + 0.8 * frame["M"] + 0.05 * frame["NI"]
    bandwidth = frame["PT"] / 8000.0 + frame["NT"] / 2500.0
    congestion = np.where(frame["NT"] > 128 * 1024, frame["NT"] * frame["PPN"] / 40000.0, 0.0)
    time_us = (latency + bandwidth + congestion) * rng.lognormal(0.0, noise, len(frame))
    frame[TARGET] = time_us
    frame.attrs.update({"synthetic": True, "description": "SYNTHETIC sweep (workbench.evaluation.comm_regression."
                                                          f"synthetic_sweep, seed {seed}): not a measurement"})
    return frame


def default_sweep(mirror=None) -> tuple[pd.DataFrame, str]:
    """Our measured ping-pong sweep, or -- when it is not there -- the synthetic one, with a label saying which.

    Parameters
    ----------
    mirror : str, os.PathLike or None, default None
        As in :func:`pingpong_sweep`.

    Returns
    -------
    frame : pandas.DataFrame
        :func:`pingpong_sweep`'s or :func:`synthetic_sweep`'s frame.
    label : str
        Which one, in words.
    """
    try:
        return pingpong_sweep(mirror), "ping-pong sweep measured on this machine (comm-pingpong-local)"
    except DatasetNotFoundError:
        return synthetic_sweep(), "SYNTHETIC sweep (the measured ping-pong sweep is not available)"


# -------------------------------------------------------------------- evaluation


def train_test_split_by(frame: pd.DataFrame, column: str = "processes", train_max: float = 64,
                        test_min: float | None = 128) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split ``frame`` into train-small / test-big sets.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements.
    column : str, default "processes"
        The column split on.
    train_max : float, default 64
        Rows with ``column <= train_max`` are for training.
    test_min : float or None, default 128
        Rows with ``column >= test_min`` are for testing; None: everything above ``train_max``.

    Returns
    -------
    train, test : pandas.DataFrame
        The two sets of rows.

    Raises
    ------
    ValidationError
        No such column, ``test_min < train_max``, or an empty set.
    """
    where = "train_test_split_by"
    if column not in frame.columns:
        raise ValidationError(f"{where}: no column {column!r}; the frame has {list(frame.columns)}")
    values = pd.to_numeric(frame[column], errors="coerce")
    lower = train_max if test_min is None else test_min
    if lower < train_max:
        raise ValidationError(f"{where}: test_min ({test_min}) must be >= train_max ({train_max})")
    train = frame[values <= train_max]
    test = frame[values > train_max] if test_min is None else frame[values >= test_min]
    for name, part, rule in (("training", train, f"<= {train_max}"),
                             ("test", test, f">= {test_min}" if test_min is not None else f"> {train_max}")):
        if part.empty:
            raise ValidationError(f"{where}: the {name} set ({column} {rule}) is empty; {column} spans "
                                  f"{values.min()} .. {values.max()}")
    return train, test


def random_split(frame: pd.DataFrame, train_fraction: float = 0.6, seed: int = 0
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return a random ``train_fraction`` / rest split of the rows (seeded, reproducible).

    Parameters
    ----------
    frame : pandas.DataFrame
        At least 2 rows.
    train_fraction : float, default 0.6
        Share of the rows for training, in (0, 1); each set keeps at least one row.
    seed : int, default 0
        Seeds the permutation.

    Returns
    -------
    train, test : pandas.DataFrame
        The two sets, each in the frame's order.
    """
    if not 0 < train_fraction < 1:
        raise ValidationError(f"random_split: train_fraction must lie in (0, 1), got {train_fraction!r}")
    if len(frame) < 2:
        raise ValidationError(f"random_split: needs at least 2 rows, got {len(frame)}")
    order = np.random.default_rng(seed).permutation(len(frame))
    cut = min(max(1, int(round(train_fraction * len(frame)))), len(frame) - 1)
    return frame.iloc[np.sort(order[:cut])], frame.iloc[np.sort(order[cut:])]


def evaluate_split(train: pd.DataFrame, test: pd.DataFrame | None = None, model: CommRegression | None = None,
                   y: str = TARGET) -> CommRegressionResult:
    """Fit ``model`` on ``train`` and score it on ``test``.

    Parameters
    ----------
    train : pandas.DataFrame
        The training measurements.
    test : pandas.DataFrame or None, default None
        The rows scored; None scores ``train`` itself (an in-sample fit).
    model : CommRegression or None, default None
        The model fitted; None: :class:`CommRegression()`.
    y : str, default TARGET ("comm_time_us")
        The column of measured times.

    Returns
    -------
    CommRegressionResult
        Predictions and metrics of the test rows.
    """
    model = model if model is not None else CommRegression()
    model.fit(train, y)
    return evaluate(model, train if test is None else test, y)


def published_comparison(result: CommRegressionResult) -> pd.DataFrame:
    """Our overall MAPE (%) and share within +-30 % beside the paper's (section IV).

    Parameters
    ----------
    result : CommRegressionResult
        A scored fit (:func:`evaluate_split`).

    Returns
    -------
    pandas.DataFrame
        Columns ``metric``, ``ours``, ``paper``.
    """
    ours = result.overall()
    return pd.DataFrame({
        "metric": ["mean absolute relative error (MAPE, %)", f"share of predictions within {band_text()}"],
        "ours": [ours["mape"], ours["share_within_30"]],
        "paper": [PUBLISHED["mape"], PUBLISHED["share_within_30"]],
    })


def osu_broadcast_label(mapping_name: str, algorithm: int) -> str:
    """Return the OSU descriptor frame of :func:`osu_broadcast_frame` in words (titles, readouts).

    Parameters
    ----------
    mapping_name : str
        The placement.
    algorithm : int
        The broadcast algorithm.

    Returns
    -------
    str
        E.g. ``"OSU broadcast on ORFEO, --map-by core, algorithm 1 (basic_linear), latency
        averaged over ranks"``.
    """
    return (f"OSU broadcast on ORFEO, --map-by {mapping_name}, algorithm {algorithm} "
            f"({BCAST_PATTERNS.get(algorithm, 'no pattern')}), latency averaged over ranks")


#: How :func:`evaluation_sets` scores a fit: key -> the choice in words.
EVALUATIONS = {
    "all": "in-sample (fit and score all points)",
    "scale": "train small / test big (processes)",
    "random": "random 60 / 40 split (seed 0)",
}


def evaluation_sets(data: pd.DataFrame, how: str = "all") -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Training and test rows of one of the :data:`EVALUATIONS`, and what they are in words.

    Parameters
    ----------
    data : pandas.DataFrame
        The measurements.
    how : {"all", "random", "scale"}, default "all"
        ``"all"`` fits and scores every point; ``"random"`` is a seeded 60/40 split
        (:func:`random_split`); ``"scale"`` trains small and tests big by ``processes``
        (:func:`train_test_split_by`): the OSU scenario (train <= 64, test 128..256
        processes) where the data reach that far, otherwise train below the largest process
        count and test at it.

    Returns
    -------
    train, test : pandas.DataFrame
        The rows.
    text : str
        The choice in words, with the numbers of points.

    Raises
    ------
    ValidationError
        Unknown ``how``, or ``"scale"`` on data without a ``processes`` column or with a
        single process count.
    """
    if how not in EVALUATIONS:
        raise ValidationError(f"the evaluation must be one of {list(EVALUATIONS)}, got {how!r}")
    if how == "all":
        return data, data, f"in-sample: fitted and scored on all {len(data)} points"
    if how == "random":
        train, test = random_split(data, 0.6, seed=0)
        return train, test, f"random split: trained on {len(train)}, scored on {len(test)} other points"
    if "processes" not in data.columns:
        raise ValidationError("train small / test big needs a 'processes' column in the data")
    counts = np.unique(data["processes"])
    if counts.size < 2:
        raise ValidationError(f"train small / test big needs several process counts, the data have {counts}")
    # the OSU split of evaluation.comm_ml.osu_train_small_test_big (train <= 64, test 128..256)
    # where the data reach that far, so the dashboards and the evaluation agree
    osu_like = (counts <= 64).any() and (counts >= 128).any()
    train_max, test_min = (64, 128) if osu_like else (counts[-2], counts[-1])
    train, test = train_test_split_by(data, "processes", train_max, test_min)
    return train, test, (f"trained on {len(train)} points with <= {train_max:g} processes, scored on "
                         f"{len(test)} with >= {test_min:g}")


def fit_and_evaluate(data: pd.DataFrame, split: AreaSplit, robust: str = "bisquare", how: str = "all"
                     ) -> tuple[CommRegressionResult, str, CommRegression]:
    """Fit :class:`~workbench.models.comm.regression.CommRegression` and score it on held-out rows.

    Fitted on the training rows of :func:`evaluation_sets` and scored on the test rows.  The
    model's warnings (a robust fit that did not converge, an area with too few points) are
    collected in ``result.warnings`` rather than emitted, so a caller shows them where it
    wants.

    Parameters
    ----------
    data : pandas.DataFrame
        The measurements.
    split : AreaSplit
        The areas of the model.
    robust : str, default "bisquare"
        The robust loss (:class:`CommRegression`).
    how : {"all", "random", "scale"}, default "all"
        As in :func:`evaluation_sets`.

    Returns
    -------
    result : CommRegressionResult
        Predictions and metrics of the test rows.
    text : str
        The evaluation in words.
    model : CommRegression
        The fitted model.
    """
    train, test, text = evaluation_sets(data, how)
    model = CommRegression(split=split, robust=robust)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train)
    return evaluate(model, test), text, model


# ----------------------------------------------------------------------- uploads

#: Columns a table of communication times must have: [Papadopoulou2015]'s descriptors and the time (µs).
COMM_TIMES_COLUMNS = (*DESCRIPTOR_COLUMNS, TARGET)
#: A header line of such a table (said in messages about a bad file).
COMM_TIMES_EXAMPLE = ",".join(COMM_TIMES_COLUMNS)


def _in_file_words(message: str, lines: pd.Index) -> str:
    """Return a model's message about an uploaded table in the file's terms.

    Without the Python name it starts with (``descriptors:``, ``CommRegression.fit:``) and
    with the file's line instead of the row position.
    """
    message = re.sub(r"^(?:[A-Za-z_][\w.]*: )+", "", message)
    return re.sub(r"\bin row (\d+)", lambda m: f"on line {lines[int(m[1])]}" if int(m[1]) < len(lines)
                  else m[0], message)


def read_comm_times_csv(name: str, content: bytes) -> pd.DataFrame:
    """Read a CSV table of measured communication phases as [Papadopoulou2015]'s descriptor frame.

    Other columns than the needed ones are kept, numbers as numbers ([Papadopoulou2015]
    section III).

    Parameters
    ----------
    name : str
        The file's name, named in messages.
    content : bytes
        The file's bytes: UTF-8 CSV with the columns :data:`COMM_TIMES_COLUMNS` (``S, M, PPN,
        N, I, SW, R`` and ``comm_time_us`` > 0, case-sensitive).

    Returns
    -------
    pandas.DataFrame
        The descriptor frame, indexed 0..n-1.

    Raises
    ------
    ValidationError, DataFormatError
        Naming the file, the line and the problem: not UTF-8 text, a missing column, a
        value the descriptors or the model refuse.
    """
    table = csv_frame(decode(bytes(content), name, what="a CSV table of communication times"), name,
                      example=COMM_TIMES_EXAMPLE, lower=False)
    missing = [c for c in COMM_TIMES_COLUMNS if c not in table.columns]
    if missing:
        found = ", ".join(map(str, table.columns[:12])) + (" ..." if len(table.columns) > 12 else "")
        lower = {str(c).lower() for c in table.columns}
        case = ("; column names are case-sensitive" if any(c.lower() in lower for c in missing) else "")
        raise ValidationError(f"{name}: missing the column(s) {', '.join(missing)} (the file has {found}{case})")
    try:
        data = descriptors(table)
        comm_times(data, TARGET)
    except ValidationError as exc:
        raise ValidationError(f"{name}: {_in_file_words(str(exc), table.index)}") from None
    for column in data.columns:  # cells were read as text: numbers become numbers
        numbers = pd.to_numeric(data[column], errors="coerce")
        if numbers.notna().sum() == data[column].notna().sum():
            data[column] = numbers
    return data.reset_index(drop=True)
