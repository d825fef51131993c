"""The scenarios of [Branikas2024] section 7.3 as data: which rows train which model, which subsets test it.

:func:`message_scale_scenario` (Table 8.1), :func:`train_small_test_big` (Table 8.3) and
:func:`main_scenario` (Table 8.5) build a :class:`Scenario` with the varying column and its
values as parameters; :func:`split_rows` is their reproducible 60/40 split, by configuration
when ``group_by`` names the feature columns.  :func:`workbench.models.comm.gbm.run_scenario`
fits and scores them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import GroupShuffleSplit, ShuffleSplit

from workbench.errors import ValidationError

__all__ = ["TEST_SIZE", "Subset", "ScenarioModel", "Scenario", "split_rows", "message_scale_scenario",
           "train_small_test_big", "main_scenario"]

#: Share of each (sub)set held out for testing (section 7.3: 60/40).
TEST_SIZE = 0.4


@dataclass(frozen=True)
class Subset:
    """Rows a model is tested on.

    ``index`` holds row labels of the scenario's frame; ``published`` names the matching
    row of the seed table ``gbm_model_metrics_tables8`` (``subset`` column), if any.
    """

    name: str
    index: np.ndarray
    published: str | None = None


@dataclass(frozen=True)
class ScenarioModel:
    """One model of a scenario: the rows it trains on and the subsets it is tested on."""

    name: str
    train: np.ndarray
    tests: tuple[Subset, ...]


@dataclass(frozen=True)
class Scenario:
    """A modelling scenario of [Branikas2024] section 7.3 as data.

    ``name`` matches the seed table's ``scenario`` column (``message_scale``,
    ``train_small_test_big``, ``main``).
    """

    name: str
    models: tuple[ScenarioModel, ...]
    description: str = ""
    column: str | None = None  # the column whose values define the subsets, if any


def _plain(values: Sequence) -> list:
    """``values`` as a list of plain Python scalars (readable in messages)."""
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def _label(column: str, values: Sequence) -> str:
    values = sorted(values)
    text = "_".join(f"{v:g}" if isinstance(v, (float, np.floating)) else str(v) for v in values)
    return f"{column}_{text}" if len(values) <= 4 else f"{column}_{values[0]}-{values[-1]}"


def split_rows(frame: pd.DataFrame, rows, *, test_size: float = TEST_SIZE, seed: int = 0,
               group_by: Sequence[str] | None = None, where: str = "split") -> tuple[np.ndarray, np.ndarray]:
    """Split the row labels ``rows`` of ``frame`` into (train, test), reproducibly for a ``seed``.

    A share ``test_size`` is held out.  With ``group_by`` (column names) rows with equal
    values there stay together, so the split is by configuration (``GroupShuffleSplit``);
    else by row (``ShuffleSplit``).  Raises :class:`~workbench.errors.ValidationError`
    when a side would be empty.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements.
    rows : array-like
        Row labels of ``frame`` to split.
    test_size : float, default 0.4
        Share of the rows (or groups) held out for testing, in (0, 1).
    seed : int, default 0
        Seed of the shuffle.
    group_by : sequence of str, optional
        Columns whose equal values keep rows together; default: split by row.
    where : str, default "split"
        Name of the split in error messages.
    """
    if not (isinstance(test_size, (int, float)) and 0 < test_size < 1):
        raise ValidationError(f"{where}: test_size must be a fraction in (0, 1), got {test_size!r}")
    rows = np.asarray(rows)
    if group_by:
        missing = [c for c in group_by if c not in frame.columns]
        if missing:
            raise ValidationError(f"{where}: group_by column(s) {missing} are not in the frame")
        groups = frame.loc[rows, list(group_by)].astype(str).agg("|".join, axis=1).to_numpy()
        units, kind = np.unique(groups).size, "configurations"
        splitter = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
    else:
        groups, units, kind = None, rows.size, "rows"
        splitter = ShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
    if units < 2:
        raise ValidationError(f"{where}: a train/test split needs at least 2 {kind}, got {units}")
    n_test = math.ceil(test_size * units)  # sklearn's rounding
    if n_test >= units:
        raise ValidationError(f"{where}: test_size={test_size:g} of {units} {kind} leaves an empty training set")
    train, test = next(splitter.split(rows, groups=groups))
    return np.sort(rows[train]), np.sort(rows[test])


def _rows_with(frame: pd.DataFrame, column: str, values: Sequence, where: str) -> np.ndarray:
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    if column not in frame.columns:
        raise ValidationError(f"{where}: column {column!r} is not in the frame ({list(frame.columns)})")
    rows = frame.index[frame[column].isin(_plain(values))].to_numpy()
    if rows.size == 0:
        have = sorted(frame[column].dropna().unique().tolist())
        raise ValidationError(f"{where}: no rows with {column} in {_plain(values)}; the frame has {have}")
    return rows


def message_scale_scenario(frame: pd.DataFrame, small: Sequence = (1, 5, 10), large: Sequence = (50, 100), *,
                           column: str = "msg_multiple", test_size: float = TEST_SIZE, seed: int = 0,
                           group_by: Sequence[str] | None = None) -> Scenario:
    """[Branikas2024] section 7.3, Table 8.1.

    One model on the rows with ``column`` in ``small`` (message size
    ``[1, 5, 10] x sqrt(WSS)``), one on ``large`` (``[50, 100]``), each split 60/40 and
    tested on its own held-out rows.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements.
    small : sequence, default (1, 5, 10)
        Values of ``column`` of the small-message model.
    large : sequence, default (50, 100)
        Values of ``column`` of the large-message model.
    column : str, default "msg_multiple"
        Column holding the message size as a multiple of sqrt(WSS).
    test_size : float, default 0.4
        Share held out for testing, in (0, 1).
    seed : int, default 0
        Seed of the splits.
    group_by : sequence of str, optional
        Columns whose equal values keep rows together; default: split by row.
    """
    where = "message_scale_scenario"
    if set(small) & set(large):
        shared = sorted(set(_plain(small)) & set(_plain(large)))
        raise ValidationError(f"{where}: small and large share the value(s) {shared}")
    models = []
    for name, values in (("small_messages", small), ("large_messages", large)):
        rows = _rows_with(frame, column, values, f"{where} ({name})")
        train, test = split_rows(frame, rows, test_size=test_size, seed=seed, group_by=group_by,
                                 where=f"{where} ({name})")
        models.append(ScenarioModel(name, train, (Subset(name, test, name),)))
    return Scenario("message_scale", tuple(models),
                    f"{column} in {_plain(small)} vs {_plain(large)}, {1 - test_size:.0%}/{test_size:.0%} split each",
                    column)


def train_small_test_big(frame: pd.DataFrame, column: str = "nodes", train: Sequence = (4, 8, 16),
                         test: Sequence = (32, 64), *, test_size: float = TEST_SIZE, seed: int = 0,
                         group_by: Sequence[str] | None = None) -> Scenario:
    """[Branikas2024] section 7.3, Table 8.3.

    Train on 60 % of the rows with ``column`` in ``train`` (4, 8, 16 nodes); test on the
    other 40 % of them and on *every* row with ``column`` in ``test`` (32, 64 nodes),
    never seen in training.  Rows with other values are not used.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements.
    column : str, default "nodes"
        Column the scenario splits on.
    train : sequence, default (4, 8, 16)
        Values of ``column`` trained on (and partly tested on).
    test : sequence, default (32, 64)
        Values of ``column`` only tested on.
    test_size : float, default 0.4
        Share of the training values' rows held out for testing, in (0, 1).
    seed : int, default 0
        Seed of the split.
    group_by : sequence of str, optional
        Columns whose equal values keep rows together; default: split by row.
    """
    where = "train_small_test_big"
    if set(train) & set(test):
        shared = sorted(set(_plain(train)) & set(_plain(test)))
        raise ValidationError(f"{where}: train and test share the value(s) {shared}")
    small = _rows_with(frame, column, train, f"{where} (train values)")
    big = _rows_with(frame, column, test, f"{where} (test values)")
    fit_rows, held_out = split_rows(frame, small, test_size=test_size, seed=seed, group_by=group_by, where=where)
    tests = (Subset(_label(column, train), held_out, "nodes_4_8_16"), Subset(_label(column, test), big, "nodes_32_64"))
    return Scenario("train_small_test_big", (ScenarioModel("train_small", fit_rows, tests),),
                    f"train on {1 - test_size:.0%} of {_label(column, train)}, test on the rest and on "
                    f"{_label(column, test)}", column)


def main_scenario(frame: pd.DataFrame, *, test_size: float = TEST_SIZE, seed: int = 0,
                  group_by: Sequence[str] | None = None) -> Scenario:
    """[Branikas2024] section 7.3, Table 8.5: one model on all rows, split 60/40.

    Parameters
    ----------
    frame : pandas.DataFrame
        The measurements.
    test_size : float, default 0.4
        Share held out for testing, in (0, 1).
    seed : int, default 0
        Seed of the split.
    group_by : sequence of str, optional
        Columns whose equal values keep rows together; default: split by row.
    """
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        raise ValidationError("main_scenario: expected a non-empty pandas DataFrame")
    train, test = split_rows(frame, frame.index.to_numpy(), test_size=test_size, seed=seed, group_by=group_by,
                             where="main_scenario")
    return Scenario("main", (ScenarioModel("main", train, (Subset("all", test, "all"),)),),
                    f"all rows, {1 - test_size:.0%}/{test_size:.0%} split")
