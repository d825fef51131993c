"""K-means runs for FiM-Cal [Bhimani2019] beyond the measured table.

A SYNTHETIC example, the reader of an uploaded runs CSV and the check that a runs table
has what FiM-Cal needs.

The table is the measured K-means sweep of :mod:`workbench.io.measured`
(:data:`~workbench.io.measured.KMEANS_COLUMNS`, one row per run); the SYNTHETIC example has
the same columns, so every reader and model takes both.
"""

from __future__ import annotations

import itertools
import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import ValidationError, WorkbenchError, WorkbenchWarning
from workbench.io.measured import KMEANS_COLUMNS, read_measured_kmeans
from workbench.io.text import csv_frame, decode

__all__ = ["FIM_COUNTERS", "KMEANS_PARAMETERS", "check_fim_runs", "read_runs_upload", "synthetic_kmeans_runs"]

#: Application parameters of the K-means workload ([Bhimani2019] section 2.2.1: I, K, N).
KMEANS_PARAMETERS = ("iterations", "clusters", "points")
#: Counters FiM-Cal reads from a run: TC, SC, U and F ([Bhimani2019] section 2.1).
FIM_COUNTERS = ("cycles", "stall_cycles", "utilization", "freq_hz")


def synthetic_kmeans_runs(repeats: int = 3, cores: int = 2, seed: int = 0) -> pd.DataFrame:
    """Make SYNTHETIC runs shaped like a K-means sweep on a ``cores``-core machine.

    Nothing here was measured; the columns are those of
    :data:`~workbench.io.measured.KMEANS_COLUMNS`.

    TC = 3e7 + 25 I K N (1 + 0.05 (t - 1)) cycles (work plus a per-process overhead),
    SC = 0.25 TC, U = min(1, cores / t), F = 2.4 GHz and time = TC / (F min(t, cores))
    with 2 % noise.  Training: I in {20, 40, 80}, K in {8, 16, 32}, N in {5e4, 1e5, 2e5}
    on t = 1, 2, 4; test: four larger configurations on t = 1, 2, 3, 4, 6, 8.

    Parameters
    ----------
    repeats : int, default 3
        Runs per configuration.
    cores : int, default 2
        Cores of the imagined machine (U = min(1, cores / t)).
    seed : int, default 0
        Seed of the noise.
    """
    rng = np.random.default_rng(seed)
    train = [(i, k, n, "train", (1, 2, 4)) for i, k, n in itertools.product((20, 40, 80), (8, 16, 32),
                                                                             (50_000, 100_000, 200_000))]
    test = [(i, k, n, "test", (1, 2, 3, 4, 6, 8)) for i, k, n in ((40, 16, 320_000), (80, 32, 320_000),
                                                                  (20, 16, 640_000), (40, 32, 640_000))]
    rows = [dict(role=role, iterations=i, clusters=k, points=n, dims=8, processes=t, repeat=r)
            for i, k, n, role, ts in train + test for t in ts for r in range(repeats)]
    frame = pd.DataFrame(rows)
    t = frame["processes"].to_numpy(float)
    work = frame["iterations"] * frame["clusters"] * frame["points"]
    tc = (3e7 + 25.0 * work * (1 + 0.05 * (t - 1))).to_numpy(float)
    f = 2.4e9
    frame["calc_time_s"] = tc / (f * np.minimum(t, cores)) * rng.normal(1, 0.02, len(frame))
    frame["cycles"] = tc
    frame["stalled_cycles_frontend"] = 0.25 * tc
    frame["stalled_cycles_backend"] = np.nan
    frame["stall_cycles"] = 0.25 * tc
    frame["task_clock_ms"] = tc / f * 1e3
    frame["utilization"] = np.minimum(frame["task_clock_ms"] / 1e3 / (frame["calc_time_s"] * t), 1.0)
    frame["cpus_utilized"] = np.nan
    frame["freq_hz"] = f
    frame = frame[KMEANS_COLUMNS]
    frame.attrs["description"] = "SYNTHETIC K-means-like runs (not measured): see synthetic_kmeans_runs"
    return frame


def _in_file_lines(message: str, lines: pd.Index) -> str:
    """Return the reader's "rows [0, 3]" (positions in the table it read) as the uploaded file's lines."""
    def lines_of(match: re.Match) -> str:
        rows = [int(v) for v in match[1].split(",") if v.strip()]
        if not all(0 <= r < len(lines) for r in rows):
            return match[0]
        return f"line{'s' if len(rows) > 1 else ''} {', '.join(str(lines[r]) for r in rows)}"

    return re.sub(r"\brows \[([\d, ]+)\]", lines_of, message)


def read_runs_upload(name: str, content: bytes) -> pd.DataFrame:
    """Read a measured-runs CSV uploaded as (file name, bytes).

    Read like :func:`~workbench.io.measured.read_measured_kmeans` (same columns and
    checks; no metadata sidecar).  Errors name the uploaded file and its lines.

    Parameters
    ----------
    name : str
        The uploaded file's name, for messages.
    content : bytes
        The file's content.
    """
    if not name.lower().endswith(".csv"):
        raise ValidationError(f"{name}: not a CSV file (the name does not end in .csv): upload the CSV table of "
                              "measured runs")
    # checked here (encoding, binary content, shape, columns) so that the reader below only
    # ever sees a plain comma-separated table, and no message quotes pandas or a codec
    table = csv_frame(decode(bytes(content), name, what="a CSV table of measured K-means runs"), name,
                      example=",".join(KMEANS_COLUMNS))
    missing = [c for c in KMEANS_COLUMNS if c not in table.columns]
    if missing:
        found = ", ".join(map(str, table.columns[:12])) + (" ..." if len(table.columns) > 12 else "")
        raise ValidationError(f"{name}: not a table of measured K-means runs: missing the column(s) "
                              f"{', '.join(missing)} (the file has {found})")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "upload.csv"
        table.to_csv(path, index=False)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", WorkbenchWarning)  # no sidecar JSON with an upload
                frame = read_measured_kmeans(path)
        except WorkbenchError as exc:
            raise type(exc)(_in_file_lines(str(exc).replace(str(path), name), table.index)) from None
    frame.attrs["description"] = f"uploaded file {name}"
    return frame


def check_fim_runs(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    """Return ``frame`` when FiM-Cal can use it, else raise a ValidationError naming ``label``.

    FiM-Cal needs the parameters I, K, N, the process count, the role, the calculation
    time and at least some perf counters (TC, SC, U, F), and both train runs (to fit) and
    test runs (to score).

    Parameters
    ----------
    frame : pandas.DataFrame
        Measured K-means runs (:data:`~workbench.io.measured.KMEANS_COLUMNS`).
    label : str
        What the messages call the runs (the data source).
    """
    need = [*KMEANS_PARAMETERS, "processes", "role", "calc_time_s", *FIM_COUNTERS]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValidationError(f"{label}: missing the column(s) {', '.join(missing)}")
    if frame[list(FIM_COUNTERS)].isna().all(axis=None):
        raise ValidationError(f"{label}: no perf counters (the columns cycles, stall_cycles, utilization and "
                              "freq_hz, FiM's TC, SC, U and F, are all empty): FiM needs them; measure where perf "
                              "can count")
    for role in ("train", "test"):
        if not (frame["role"] == role).any():
            raise ValidationError(f"{label}: no {role} runs (the column role has no {role!r} row): FiM is trained on "
                                  "the train runs and scored on the test runs")
    return frame
