"""IMB ``Exchange`` rows as Table 6.1 of Branikas ([Branikas2024]): :func:`imb_exchange_table`.

The input of the semi-empirical Exchange model (§6.1-6.2); the layout is that of
``data/seed-tables/exchange_benchmark_table6_1.csv``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from workbench.errors import ValidationError

__all__ = ["EXCHANGE_TABLE_COLUMNS", "imb_exchange_table"]

#: Columns of :func:`imb_exchange_table` (the first four are Table 6.1's).
EXCHANGE_TABLE_COLUMNS = [
    "message_size_bytes",
    "processes_per_node",
    "nodes",
    "avg_comm_time_us",
    "processes",
    "source",
    "line",
]

def imb_exchange_table(frame: pd.DataFrame, ppn: int | Mapping[str, int], *, benchmark: str = "Exchange"
                       ) -> pd.DataFrame:
    """Return IMB ``Exchange`` rows of :func:`~workbench.io.microbench.read_imb` in the layout of Table 6.1.

    Branikas (2024) [Branikas2024], §6.1: the Exchange benchmark's average time Δt per
    message size and processes per node (PpN) on a fixed node count is the data of the
    semi-empirical model ``Communication Time(PpN, S) = PpN * Base Case(S)`` (§6.2).  IMB
    does not know the placement, so ``ppn`` is required; ``nodes = processes / ppn``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The frame :func:`~workbench.io.microbench.read_imb` returns.
    ppn : int or Mapping[str, int]
        Processes per node of the run: an int for all rows, or a mapping from file name
        (the ``source`` column) to its PpN.
    benchmark : str, default "Exchange"
        The IMB benchmark whose rows are taken.

    Returns
    -------
    pandas.DataFrame
        The columns :data:`EXCHANGE_TABLE_COLUMNS`: ``message_size_bytes``,
        ``processes_per_node``, ``nodes`` (Int64), ``avg_comm_time_us`` (IMB's ``t_avg``,
        µs), ``processes``, ``source``, ``line``; one row per table row (repeated
        configurations are kept, not averaged), sorted by size, PpN, nodes.  ``-multi``
        blocks are left out (their time is per group, not for the whole job).

    Raises
    ------
    ValidationError
        the frame lacks the columns of :func:`read_imb`, holds no ``benchmark`` rows,
        a row's process count is unknown, ``ppn`` is not a whole number >= 1 (or a file
        is missing from the mapping), or ``processes`` is not a multiple of ``ppn``.
    """
    needed = {"benchmark", "multi", "processes", "size_bytes", "t_avg_us", "source", "line"}
    missing = sorted(needed - set(frame.columns))
    if missing:
        raise ValidationError(f"missing column(s) {missing}: pass the frame returned by read_imb")
    rows = frame[(frame["benchmark"] == benchmark) & ~frame["multi"].astype(bool)]
    if rows.empty:
        found = sorted(frame["benchmark"].dropna().unique().tolist())
        raise ValidationError(f"no {benchmark!r} rows (without -multi) in the frame; benchmarks present: {found}")
    if rows["processes"].isna().any():
        line = rows.loc[rows["processes"].isna(), ["source", "line"]].iloc[0]
        raise ValidationError(
            f"{line['source']}, line {line['line']}: the process count of this {benchmark} table is unknown "
            "(no '#processes = N' line)"
        )
    per_node = _processes_per_node(rows, ppn)
    processes = rows["processes"].to_numpy(dtype=np.int64)
    uneven = processes % per_node != 0
    if uneven.any():
        i = int(np.flatnonzero(uneven)[0])
        raise ValidationError(
            f"{rows['source'].iloc[i]}, line {rows['line'].iloc[i]}: {processes[i]} processes are not a "
            f"multiple of ppn = {per_node[i]}"
        )
    table = pd.DataFrame(
        {
            "message_size_bytes": rows["size_bytes"].to_numpy(dtype=np.int64),
            "processes_per_node": per_node,
            "nodes": processes // per_node,
            "avg_comm_time_us": rows["t_avg_us"].to_numpy(dtype=float),
            "processes": processes,
            "source": rows["source"].to_numpy(dtype=object),
            "line": rows["line"].to_numpy(dtype=np.int64),
        }
    )
    for column in ("message_size_bytes", "processes_per_node", "nodes", "processes"):
        table[column] = pd.array(table[column].to_numpy(), dtype="Int64")
    table["source"] = pd.array(table["source"].to_numpy(), dtype="str")
    table = table.sort_values(["message_size_bytes", "processes_per_node", "nodes", "source", "line"])
    return table.reset_index(drop=True)[EXCHANGE_TABLE_COLUMNS]


def _processes_per_node(rows: pd.DataFrame, ppn: int | Mapping[str, int]) -> np.ndarray:
    """Return each row's processes per node (``imb_exchange_table``'s ``ppn``), checked."""
    if isinstance(ppn, Mapping):
        unknown = sorted(set(rows["source"]) - set(ppn))
        if unknown:
            raise ValidationError(f"ppn gives no processes per node for file(s) {unknown}")
        per_node = rows["source"].map(dict(ppn))
    else:
        per_node = pd.Series(ppn, index=rows.index, dtype=object)
    bad = ~per_node.map(lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1)
    if bad.any():
        raise ValidationError(f"ppn must be a whole number >= 1, got {per_node[bad].iloc[0]!r}")
    return per_node.astype(np.int64).to_numpy()
