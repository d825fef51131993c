"""Communication patterns and process mappings of the two communication benchmarks.

Pure numpy functions shared by the MPI benchmarks (:mod:`workbench.measure.comm`) and by the
descriptor computation (``mapping_descriptors``), so that the partners a benchmark used and
the inter-node ratio ``I`` a model is given are computed by the same code.

* :func:`random_partners` -- Papadopoulou, Goumas & Koziris ([Papadopoulou2015]), section III.B: "each
  process performs simultaneous non-blocking ping-pongs with one or more randomly selected
  processes, with messages of equal size" (1 to 4 partners per process in the paper).
* :func:`halo_partners` -- Branikas ([Branikas2024]), section 2.2, Listing 2.2 and Fig. 2.1: the
  data generator's periodic 2-D Cartesian neighbours, north, west, south, east, re-iterated
  when more than 4 messages are sent.
* :func:`block_mapping`, :func:`round_robin_mapping`, :func:`mapping` -- node index of every
  rank for the two usual placements (``mpirun --map-by core`` and ``--map-by node``; 004
  section 3.1 uses map-by node).
* :func:`internode_ratio` -- [Papadopoulou2015]'s descriptor ``I``, "the ratio of the total number of
  messages exchanged between processes on different nodes to the total number of messages
  exchanged" (section III.A); :func:`nodes_and_ppn` -- ``N`` and ``PPN`` of a mapping.

A partner array has shape ``(processes, messages)``: row ``p`` lists the ranks process ``p``
exchanges a message with, column ``k`` is round (message) ``k``. :data:`NO_PARTNER` (-1)
marks a round in which a process has no partner (the random pairing of an odd number of
processes leaves one process out per round, like ``MPI_PROC_NULL``).
"""

from __future__ import annotations

import numpy as np

from workbench.errors import ValidationError

__all__ = [
    "NO_PARTNER",
    "MAPPINGS",
    "random_partners",
    "halo_partners",
    "grid_dims",
    "block_mapping",
    "round_robin_mapping",
    "mapping",
    "internode_ratio",
    "nodes_and_ppn",
    "integer_at_least",
]

#: Partner entry of a process that sits out a round (odd process counts in :func:`random_partners`).
NO_PARTNER = -1

#: Mapping names accepted by :func:`mapping`, with their ``mpirun --map-by`` aliases.
MAPPINGS = {"block": "block", "core": "block", "round_robin": "round_robin", "node": "round_robin"}


def integer_at_least(value, name: str, where: str, minimum: int = 1) -> int:
    """Return ``value`` as an int >= ``minimum``, else raise a ValidationError.

    Bools and non-integers are refused; the error names ``where`` and ``name`` (shared with
    :mod:`workbench.measure.comm`).

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Its name in the error message.
    where : str
        The caller, named in the error message.
    minimum : int, default 1
        Smallest accepted value.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValidationError(f"{where}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _round_robin_schedule(players: int) -> np.ndarray:
    """Circle-method tournament for an even number of ``players``.

    A ``(players - 1, players)`` array whose row ``r`` is a perfect matching (entry ``i`` =
    partner of ``i`` in round ``r``) and in which every pair meets exactly once over all
    rounds.

    Player ``players - 1`` is the fixed centre; player ``i < players - 1`` meets
    ``(2r - i) mod (players - 1)`` in round ``r``, or the centre when that is ``i`` itself
    (exactly one such ``i`` per round because ``players - 1`` is odd).
    """
    m = players - 1
    rounds = np.arange(m)[:, None]
    i = np.arange(m)[None, :]
    partner = (2 * rounds - i) % m
    alone = partner == i
    partner = np.where(alone, m, partner)
    centre = np.argmax(alone, axis=1)  # the player paired with the centre in each round
    return np.concatenate([partner, centre[:, None]], axis=1)


def random_partners(processes: int, messages: int, seed=None) -> np.ndarray:
    """Random ping-pong partners of [Papadopoulou2015]'s benchmark (section III.B), ``(processes, messages)`` ints.

    Every process gets ``messages`` *distinct* partners, none of them itself (with an odd number
    of processes, see below, one of them may be :data:`NO_PARTNER` instead), and the relation
    is symmetric per round: if ``partners[p, k] == q`` then ``partners[q, k] == p``, so every
    ping-pong of round ``k`` has a peer doing the same round (one message per pair and round,
    no process waits for a partner busy elsewhere). Construction: a round-robin tournament
    (every pair meets once over ``processes - 1`` perfect matchings) on randomly permuted
    labels, of which ``messages`` rounds are drawn at random. With an odd number of processes
    a dummy player is added, so in every round one process has no partner
    (:data:`NO_PARTNER`); each process sits out at most one round.

    ``messages`` must be at most ``processes - 1`` (there are no more distinct partners; with
    2 processes only M = 1 exists). ``seed``: anything :func:`numpy.random.default_rng` accepts.

    Parameters
    ----------
    processes : int
        Number of processes (>= 2).
    messages : int
        Distinct partners per process (rounds).
    seed : int or numpy.random.Generator, optional
        Seed of the shuffle; default None: fresh entropy.
    """
    where = "random_partners"
    processes = integer_at_least(processes, "processes", where, minimum=2)
    messages = integer_at_least(messages, "messages", where)
    if messages > processes - 1:
        raise ValidationError(
            f"{where}: messages={messages} distinct partners need at least {messages + 1} processes, "
            f"got processes={processes} (messages must be <= processes - 1)"
        )
    rng = np.random.default_rng(seed)
    players = processes + processes % 2  # a dummy player (index `processes`) when odd
    schedule = _round_robin_schedule(players)[rng.choice(players - 1, size=messages, replace=False)]
    label = rng.permutation(players)  # relabel so that who meets whom in which round is random
    relabelled = np.empty_like(schedule)
    relabelled[:, label] = label[schedule]
    partners = relabelled[:, :processes].T
    return np.where(partners >= processes, NO_PARTNER, partners)


def grid_dims(processes: int) -> tuple[int, int]:
    """Return the most balanced 2-D factorisation ``(rows, cols)``, ``rows >= cols``.

    As ``MPI_Dims_create(processes, 2)`` returns it ([Branikas2024] Table 3.1: 8 -> 4 x 2,
    16 -> 4 x 4, 80 -> 8 x 10 there, i.e. the same pair up to order).

    Parameters
    ----------
    processes : int
        Number of processes (>= 1).
    """
    processes = integer_at_least(processes, "processes", "grid_dims")
    cols = int(np.max(np.flatnonzero(processes % np.arange(1, int(np.sqrt(processes)) + 1) == 0)) + 1)
    return processes // cols, cols


def halo_partners(processes: int, messages: int, dims: tuple[int, int] | None = None) -> np.ndarray:
    """Halo-exchange partners of [Branikas2024]'s data generator (section 2.2, Listing 2.2, Fig. 2.1).

    Ranks sit row-major on a periodic ``rows x cols`` grid (``dims``, default
    :func:`grid_dims`, like an MPI Cartesian communicator with periods on both axes):
    rank ``r`` is at ``(r // cols, r % cols)``. Its neighbours, in the order of Listing 2.2,
    are north ``(row - 1, col)``, west ``(row, col - 1)``, south ``(row + 1, col)`` and
    east ``(row, col + 1)``, wrapping around the borders ("processes on the borders ...
    replace their missing neighbours with processes on the opposite border"). Message ``k``
    goes to neighbour ``k mod 4`` ("when the number of messages exceeds 4, the communication
    pattern repeats from Message 1"). On an axis of extent 1 the neighbour is the process
    itself and on an axis of extent 2 both neighbours are the same process, as with
    ``MPI_Cart_shift`` on a periodic grid.

    Parameters
    ----------
    processes : int
        Number of processes.
    messages : int
        Messages per process; message ``k`` goes to neighbour ``k mod 4`` (north, west,
        south, east).
    dims : tuple of (int, int), optional
        Grid ``(rows, cols)`` with ``rows * cols == processes``; default :func:`grid_dims`.
    """
    where = "halo_partners"
    processes = integer_at_least(processes, "processes", where)
    messages = integer_at_least(messages, "messages", where)
    if dims is None:
        rows, cols = grid_dims(processes)
    else:
        if len(dims) != 2:
            raise ValidationError(f"{where}: dims must be two grid extents (rows, cols), got {dims!r}")
        rows, cols = (integer_at_least(d, "dims entry", where) for d in dims)
        if rows * cols != processes:
            raise ValidationError(f"{where}: dims {rows} x {cols} = {rows * cols} does not match processes={processes}")
    rank = np.arange(processes)
    row, col = rank // cols, rank % cols
    neighbours = np.stack(
        [
            ((row - 1) % rows) * cols + col,  # north
            row * cols + (col - 1) % cols,  # west
            ((row + 1) % rows) * cols + col,  # south
            row * cols + (col + 1) % cols,  # east
        ],
        axis=1,
    )
    return neighbours[:, np.arange(messages) % 4]


def block_mapping(processes: int, ppn: int) -> np.ndarray:
    """Return the node index of every rank when each node is filled before the next one.

    ``mpirun --map-by core``, Slurm's block distribution: rank ``r`` on node ``r // ppn``.

    Parameters
    ----------
    processes : int
        Number of ranks.
    ppn : int
        Ranks per node.
    """
    processes = integer_at_least(processes, "processes", "block_mapping")
    ppn = integer_at_least(ppn, "ppn", "block_mapping")
    return np.arange(processes) // ppn


def round_robin_mapping(processes: int, nodes: int) -> np.ndarray:
    """Return the node index of every rank dealt round robin over ``nodes`` nodes.

    ``mpirun --map-by node``, as in [Branikas2024] section 3.1 / Fig. 3.1: rank ``r`` on node
    ``r mod nodes``.

    Parameters
    ----------
    processes : int
        Number of ranks.
    nodes : int
        Number of nodes.
    """
    processes = integer_at_least(processes, "processes", "round_robin_mapping")
    nodes = integer_at_least(nodes, "nodes", "round_robin_mapping")
    return np.arange(processes) % nodes


def mapping(name: str, processes: int, *, ppn: int | None = None, nodes: int | None = None) -> np.ndarray:
    """Node index per rank for a mapping by name.

    ``"block"`` (alias ``"core"``) or ``"round_robin"`` (alias ``"node"``). Give ``ppn``
    or ``nodes``; the other follows (``nodes = ceil(processes / ppn)``, the last node
    possibly partly filled).

    Parameters
    ----------
    name : {"block", "core", "round_robin", "node"}
        The mapping.
    processes : int
        Number of ranks.
    ppn : int, optional
        Ranks per node (give this or ``nodes``).
    nodes : int, optional
        Number of nodes (give this or ``ppn``).
    """
    where = "mapping"
    kind = MAPPINGS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValidationError(f"{where}: unknown mapping {name!r}; choose one of {sorted(MAPPINGS)}")
    processes = integer_at_least(processes, "processes", where)
    if (ppn is None) == (nodes is None):
        raise ValidationError(f"{where}: give exactly one of ppn and nodes, got ppn={ppn!r}, nodes={nodes!r}")
    if ppn is None:
        nodes = integer_at_least(nodes, "nodes", where)
        ppn = -(-processes // nodes)
    else:
        ppn = integer_at_least(ppn, "ppn", where)
        nodes = -(-processes // ppn)
    return block_mapping(processes, ppn) if kind == "block" else round_robin_mapping(processes, nodes)


def _rank_node(rank_node, processes: int | None, where: str) -> np.ndarray:
    arr = np.asarray(rank_node)
    if arr.ndim != 1 or arr.size == 0:
        raise ValidationError(f"{where}: rank_node must be a non-empty 1-D array (node of every rank), got shape "
                              f"{arr.shape}")
    if processes is not None and arr.size != processes:
        raise ValidationError(f"{where}: rank_node has {arr.size} entries but there are {processes} processes")
    return arr


def internode_ratio(partners, rank_node) -> float:
    """[Papadopoulou2015]'s ``I``: the share of messages whose two ends are on different nodes (section III.A).

    ``partners``: ``(processes, messages)`` ranks (:data:`NO_PARTNER` entries are not
    messages and are ignored); ``rank_node``: node label of every rank (ints or host
    names). Every entry of ``partners`` counts as one message of its row's process.

    Parameters
    ----------
    partners : array-like of int, shape (processes, messages)
        Partner rank of each message.
    rank_node : array-like
        Node label of every rank (ints or host names).
    """
    where = "internode_ratio"
    partners = np.asarray(partners)
    if partners.ndim != 2 or not np.issubdtype(partners.dtype, np.integer):
        raise ValidationError(f"{where}: partners must be a 2-D integer array (processes x messages), got "
                              f"shape {partners.shape}, dtype {partners.dtype}")
    nodes = _rank_node(rank_node, partners.shape[0], where)
    sent = partners != NO_PARTNER
    if not sent.any():
        raise ValidationError(f"{where}: partners holds no message (every entry is NO_PARTNER or the array is empty)")
    if ((partners < NO_PARTNER) | (partners >= nodes.size)).any():
        raise ValidationError(f"{where}: partner ranks must lie in 0..{nodes.size - 1} (or {NO_PARTNER} for none)")
    own = np.broadcast_to(nodes[:, None], partners.shape)
    remote = own != nodes[np.where(sent, partners, 0)]
    return float(np.count_nonzero(remote & sent) / np.count_nonzero(sent))


def nodes_and_ppn(rank_node) -> tuple[int, int]:
    """``(N, PPN)`` of a mapping.

    The number of distinct nodes and the largest number of ranks on one node (equal to
    processes / N for an even placement).

    Parameters
    ----------
    rank_node : array-like
        Node label of every rank.
    """
    _, counts = np.unique(_rank_node(rank_node, None, "nodes_and_ppn"), return_counts=True)
    return int(counts.size), int(counts.max())
