"""Descriptive communication metrics of Papadopoulou, Goumas & Koziris ([Papadopoulou2015] section III.A).

All metrics are known before execution, from the application's communication profile and
the process mapping:

=======  =========================================================  ==================
column   meaning ([Papadopoulou2015] section III.A)                 unit
=======  =========================================================  ==================
``S``    message size                                               bytes
``M``    messages per process                                       count
``PPN``  processes per node                                         count
``N``    nodes                                                      count
``I``    ratio of inter-node messages to all messages               fraction in [0, 1]
``SW``   switches in the allocation                                 count
``R``    racks in the allocation                                    count
``PT``   process traffic ``S * M``                                  bytes
``NT``   node traffic ``PT * PPN * I`` (injected by one node)       bytes
``V``    total communication volume ``NT * N``                      bytes
``NI``   messages injected per node ``M * I * PPN``                 count
``VI``   total injected messages ``NI * N``                         count
``SWR``  estimated switches per rack ``SW / R``                     ratio
=======  =========================================================  ==================

:func:`descriptors` adds the derived columns to a frame of the seven base columns;
:func:`mapping_descriptors` computes the base columns of one configuration from a
communication pattern and a rank -> node mapping (the functions of
:mod:`workbench.models.comm.patterns`, shared with the benchmarks).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.errors import ValidationError
from workbench.models.comm.patterns import internode_ratio, mapping, nodes_and_ppn

__all__ = ["DESCRIPTOR_COLUMNS", "DERIVED_COLUMNS", "METRIC_COLUMNS", "descriptors", "mapping_descriptors"]

#: Largest value of a base metric :func:`descriptors` accepts (bytes, counts): products of
#: four of them (V = S M PPN I N) stay far inside the float range.
MAX_METRIC = 1e30
#: The seven base metrics ([Papadopoulou2015] section III.A), input of :func:`descriptors`.
DESCRIPTOR_COLUMNS = ("S", "M", "PPN", "N", "I", "SW", "R")
#: The derived metrics :func:`descriptors` adds, in this order.
DERIVED_COLUMNS = ("PT", "NT", "V", "NI", "VI", "SWR")
#: All thirteen metrics, in the paper's order of presentation.
METRIC_COLUMNS = ("S", "M", "PPN", "N", "I", "PT", "NT", "V", "NI", "VI", "SW", "R", "SWR")


def _checked(frame: pd.DataFrame, where: str) -> dict[str, np.ndarray]:
    """Return the base columns as float arrays, or raise a ValidationError naming column and first bad row."""
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in DESCRIPTOR_COLUMNS if c not in frame.columns]
    if missing:
        raise ValidationError(
            f"{where}: missing descriptor column(s) {missing}; needs {list(DESCRIPTOR_COLUMNS)}, "
            f"the frame has {list(frame.columns)}"
        )
    values = {}
    for c in DESCRIPTOR_COLUMNS:
        raw = frame[c]
        if isinstance(raw, pd.DataFrame):  # a repeated column name
            raise ValidationError(f"{where}: column {c!r} appears {raw.shape[1]} times; column names must be unique, "
                                  f"the frame has {list(frame.columns)}")
        if pd.api.types.is_bool_dtype(raw):
            raise ValidationError(f"{where}: column {c!r} must be numeric, got booleans")
        try:
            number = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        except (TypeError, ValueError):  # e.g. a categorical of strings
            number = pd.to_numeric(raw.astype(object), errors="coerce").to_numpy(dtype=float)
        checks = (
            (~np.isfinite(number), "must be a finite number"),
            (number < 0, "must be >= 0"),
            (number > MAX_METRIC, f"must be at most {MAX_METRIC:g} (the derived metrics multiply up to four of them)"),
        )
        if c == "I":
            checks += ((number > 1, "is a ratio and must lie in [0, 1]"),)
        if c == "R":
            checks += ((number <= 0, "must be > 0 (SWR = SW / R)"),)
        for bad, what in checks:
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValidationError(f"{where}: column {c!r} {what}, got {raw.iloc[i]!r} in row {i}")
        values[c] = number
    return values


def descriptors(frame: pd.DataFrame) -> pd.DataFrame:
    """Return a copy of ``frame`` with [Papadopoulou2015]'s derived metrics added (section III.A).

    ``PT = S*M``, ``NT = PT*PPN*I``, ``V = NT*N``, ``NI = M*I*PPN``, ``VI = NI*N``,
    ``SWR = SW/R`` (see the module docstring for units).

    ``frame`` needs the columns ``S, M, PPN, N, I, SW, R`` (other columns are kept);
    derived columns already present are recomputed.  A
    :class:`~workbench.errors.ValidationError` names the column and the first bad row for
    missing columns, non-numeric or NaN values, negative values, ``I`` outside [0, 1] and
    ``R <= 0``.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per configuration with the base metrics ``S, M, PPN, N, I, SW, R``.
    """
    v = _checked(frame, "descriptors")
    out = frame.copy()
    pt = v["S"] * v["M"]
    nt = pt * v["PPN"] * v["I"]
    ni = v["M"] * v["I"] * v["PPN"]
    out["PT"] = pt
    out["NT"] = nt
    out["V"] = nt * v["N"]
    out["NI"] = ni
    out["VI"] = ni * v["N"]
    out["SWR"] = v["SW"] / v["R"]
    return out


def mapping_descriptors(partners, rank_node, message_bytes: float, node_switch=None, switch_rack=None, *,
                        ppn: int | None = None, nodes: int | None = None) -> pd.Series:
    """Return the base metrics ``S, M, PPN, N, I, SW, R`` of one configuration ([Papadopoulou2015] section III.A).

    ``partners``: ``(processes, messages)`` ranks each process exchanges a message with
    (:func:`~workbench.models.comm.patterns.random_partners`,
    :func:`~workbench.models.comm.patterns.halo_partners`; ``NO_PARTNER`` entries are not
    messages).  ``rank_node``: node of every rank
    (:func:`~workbench.models.comm.patterns.mapping`), or a mapping *name* (``"block"``/
    ``"core"``, ``"round_robin"``/``"node"``) with ``ppn=`` or ``nodes=``, resolved by
    :func:`~workbench.models.comm.patterns.mapping` (an unknown name is a
    :class:`~workbench.errors.ValidationError`).  ``node_switch`` (optional): switch
    of every node, indexed by the node labels of ``rank_node`` (a sequence for integer
    nodes 0..n-1, or a mapping); ``switch_rack`` (optional): rack of every switch, likewise.

    * ``S`` = ``message_bytes``;
    * ``M`` = ``partners.shape[1]``, the messages of the busiest process (all processes
      have the same count in [Papadopoulou2015]'s application model);
    * ``N``, ``PPN`` = nodes used and the most ranks on one node
      (:func:`~workbench.models.comm.patterns.nodes_and_ppn`);
    * ``I`` = :func:`~workbench.models.comm.patterns.internode_ratio`;
    * ``SW``, ``R`` = distinct switches / racks of the used nodes, 1 when not given
      (a single switch, a single rack).

    Parameters
    ----------
    partners : array-like of int, shape (processes, messages)
        Rank each process exchanges each message with; ``NO_PARTNER`` entries are not messages.
    rank_node : array-like or str
        Node of every rank, or a mapping name (``"block"``/``"core"``,
        ``"round_robin"``/``"node"``) resolved with ``ppn`` or ``nodes``.
    message_bytes : float
        Message size S in bytes (>= 0).
    node_switch : sequence or mapping, optional
        Switch of every node, indexed by the node labels of ``rank_node``; default: one switch.
    switch_rack : sequence or mapping, optional
        Rack of every switch; default: one rack.
    ppn : int, optional
        Ranks per node, for a mapping name ``rank_node``.
    nodes : int, optional
        Number of nodes, for a mapping name ``rank_node``.
    """
    where = "mapping_descriptors"
    arr = np.asarray(partners)
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValidationError(f"{where}: partners must be a 2-D array (processes x messages), got shape {arr.shape}")
    try:
        size = float(message_bytes)
    except (TypeError, ValueError):
        raise ValidationError(f"{where}: message_bytes must be a number, got {message_bytes!r}") from None
    if not np.isfinite(size) or size < 0:
        raise ValidationError(f"{where}: message_bytes must be finite and >= 0, got {message_bytes!r}")
    if isinstance(rank_node, str):
        rank_node = mapping(rank_node, arr.shape[0], ppn=ppn, nodes=nodes)
    elif ppn is not None or nodes is not None:
        raise ValidationError(f"{where}: ppn/nodes only apply to a mapping given by name, not to a rank_node array")
    ratio = internode_ratio(arr, rank_node)
    nodes, ppn = nodes_and_ppn(rank_node)
    used = np.unique(np.asarray(rank_node))
    switches = _lookup(node_switch, used, "node_switch", where) if node_switch is not None else None
    racks = 1
    if switch_rack is not None:
        if switches is None:
            raise ValidationError(f"{where}: switch_rack needs node_switch (which switch each node hangs on)")
        racks = np.unique(_lookup(switch_rack, np.unique(switches), "switch_rack", where)).size
    return pd.Series(
        {"S": size, "M": float(arr.shape[1]), "PPN": float(ppn), "N": float(nodes), "I": ratio,
         "SW": float(np.unique(switches).size if switches is not None else 1), "R": float(racks)},
        name="descriptors",
    )


def _lookup(table, keys: np.ndarray, name: str, where: str) -> np.ndarray:
    """``table[key]`` for every key (a mapping or an integer-indexed sequence)."""
    try:
        if hasattr(table, "keys"):
            return np.asarray([table[k] for k in keys.tolist()])
        return np.asarray(table)[keys.astype(np.int64)]
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise ValidationError(f"{where}: {name} has no entry for some of {keys.tolist()[:10]}: {exc!r}") from None
