"""Run ``predict_many`` over a job archive, resumably.

The curves of a job archive in chunks on joblib workers or a Dask cluster, with a progress bar,
results kept per chunk (Parquet, checksummed: :class:`_ResultStore`) so that an interrupted run
resumes.  Local workers end with the process that started them, even when it is killed
(:func:`_die_with_driver`); a Dask scheduler that does not answer is reported after
:data:`CONNECT_TIMEOUT_S` seconds.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import math
import os
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from workbench.batch.archive import ArchiveSource
from workbench.batch.predict import batch_columns, parse_targets, predict_curves
from workbench.errors import DataFormatError, ValidationError, WorkbenchWarning
from workbench.io.sidecar import atomic_write
from workbench.models.scaling.base import check_model_names
from workbench.models.scaling.calibration import check_level
from workbench.validation import UNITS, check_unit, nodes_of

__all__ = ["predict_many"]

ENGINES = ("joblib", "dask")
#: Most curves per chunk (a chunk is one task: ~0.1 s of CPU per curve).
MAX_CHUNK_CURVES = 200
_OUT_SUFFIXES = (".csv", ".parquet")
#: Seconds to wait for a Dask scheduler to answer before saying it cannot be reached.
CONNECT_TIMEOUT_S = 5
#: How often a local worker checks that the process that started it is still there, in seconds.
PARENT_POLL_S = 0.5


@dataclass(frozen=True)
class _Settings:
    """What every chunk is predicted with (and what a resumed run must share)."""

    by: tuple[str, ...]
    targets: tuple[int, ...]
    factors: tuple[float, ...]
    targets_column: str | None
    level: float
    models: tuple[str, ...]
    n_column: str
    t_column: str
    unit: str
    per_node: int | None
    nodes_column: str | None
    efficiency: float | None
    deadline: float | None


def _predict_chunk(chunk_id: int, runs: pd.DataFrame, settings: _Settings) -> tuple[int, pd.DataFrame]:
    """One task: the batch rows of every curve in ``runs`` (module-level: workers import it)."""
    return chunk_id, predict_curves(runs, settings.by, [*settings.targets, *(f"{f!r}x" for f in settings.factors)],
                                    settings.level, settings.models, n_column=settings.n_column,
                                    t_column=settings.t_column, unit=settings.unit, per_node=settings.per_node,
                                    nodes_column=settings.nodes_column,
                                    targets_column=settings.targets_column, efficiency=settings.efficiency,
                                    deadline=settings.deadline)


def predict_many(runs, by, targets, level: float = 0.8, models=None, engine: str = "joblib", n_jobs: int = -1,
                 client=None, progress: bool = True, *, scheduler: str | None = None, out=None,
                 resume: bool = False, chunk_curves: int | None = None, n_column: str = "processes",
                 t_column: str = "time_s", unit: str | None = None, targets_column: str | None = None,
                 per_node: int | None = None, nodes_column: str | None = None,
                 efficiency: float | None = None, deadline: float | None = None) -> pd.DataFrame:
    """Predict every curve of a runs table at ``targets`` (see :mod:`workbench.batch.predict` for the columns returned).

    Parameters
    ----------
    runs : pandas.DataFrame, path-like or dask DataFrame
        The runs (one row per run, repeats allowed): a pandas DataFrame (e.g. the canonical
        scaling frame), the path of a CSV or Parquet file (read in batches: the whole archive
        is never in one process), or a dask DataFrame.
    by : str or sequence of str
        The column(s) that identify a curve, e.g. ``["app", "machine"]``.
    targets : sequence of int or str, or None
        Allocations to predict, per curve (see :mod:`workbench.batch.predict`): whole
        numbers in the unit of ``n_column`` (``[256, 512]``), and/or multiples of each
        curve's largest measured allocation (``["2x", "4x"]``); None with ``targets_column``.
    level : float, default 0.8
        Central probability of the calibrated intervals.
    models : str or sequence of str, optional
        Model names (``"adept,pmnf"`` or a list); default None: all of them.
    engine : {"joblib", "dask"}, default "joblib"
        Local processes, or a ``dask.distributed.Client``.  Both give the same rows.
    n_jobs : int, default -1
        joblib's worker count (1: this process; -1: every core).
    client : dask.distributed.Client, optional
        The Dask client of ``engine="dask"``; default: one connected to ``scheduler``.
    progress : bool, default True
        A progress bar of the curves done.
    scheduler : str, optional
        Address of a Dask scheduler (``"tcp://host:8786"``) to connect to without ``client``.
    out : str or path-like, optional
        Write the result there too (``.csv`` or ``.parquet``); finished chunks are kept beside
        it in ``<out>.parts/`` (Parquet, with their SHA-256 in the folder's manifest) until the
        end.  A kept chunk that is damaged, truncated, replaced or missing is computed again,
        with one :class:`~workbench.errors.WorkbenchWarning` naming it.
    resume : bool, default False
        Continue an interrupted run into ``out`` without recomputing its finished chunks.
    chunk_curves : int, optional
        Curves per task; default: about 4 tasks per worker, at most 200 curves.
    n_column, t_column : str, default "processes", "time_s"
        Allocation and runtime (seconds for the cost column) columns; the result names its
        target column ``n_column`` too.
    unit : str, optional
        What ``n_column`` counts (:data:`~workbench.validation.UNITS`: processes, nodes, gpus,
        cores), for messages and the cost column (``node_hours``...); default: ``n_column``
        if it is a unit's name, else processes.
    targets_column : str, optional
        A column of the runs whose values are further targets of their curve.
    per_node : int, optional
        Allocation units per node (cores or GPUs), for the predictor's ``leaves-node`` check
        (:class:`~workbench.models.scaling.ScalingPredictor`).
    nodes_column : str, optional
        A column of the nodes each run used, for the same check.
    efficiency, deadline : float, optional
        Add the recommendations of :func:`~workbench.batch.predict.recommend_allocation`
        (threshold on parallel efficiency in (0, 1]; deadline in the runtimes' unit).
    """
    settings = _check_settings(by, targets, level, models, n_column, t_column, unit, targets_column, per_node,
                               nodes_column, efficiency, deadline)
    if engine not in ENGINES:
        raise ValidationError(f"predict_many: engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    source = ArchiveSource(runs, settings.by, n_column, t_column,
                           extra=[c for c in (targets_column, nodes_column) if c])
    results, store, chunk_ids = _run_chunks(source, settings, (engine, n_jobs, client, scheduler), progress, out,
                                            resume, chunk_curves)
    frames = [results[c] if c in results else store.read(c) for c in chunk_ids]
    frame = (pd.concat(frames, ignore_index=True) if frames
             else predict_curves(pd.DataFrame(columns=source.columns), settings.by, None, settings.level,
                                 settings.models, n_column=n_column, t_column=t_column, unit=settings.unit,
                                 efficiency=efficiency, deadline=deadline))
    if store:
        store.finish(frame)
    return frame


def _run_chunks(source: ArchiveSource, settings, engine_args: tuple, progress: bool, out, resume: bool,
                chunk_curves: int | None) -> tuple[dict, _ResultStore | None, pd.Index]:
    """Run the chunks not finished yet; return their frames by chunk id, the store beside ``out`` and every chunk id."""
    keep = _keeps_chunks(out, resume)
    keys = source.curve_keys()
    with ExecutionEngine(*engine_args) as (execute, workers):
        if chunk_curves is None and out is not None and resume:  # the recorded chunk size, whatever the
            chunk_curves = _ResultStore.earlier_chunk_curves(out)  # workers: chunks on disk and to run line up
        size = (int(chunk_curves) if chunk_curves is not None
                else max(1, min(MAX_CHUNK_CURVES, math.ceil(len(keys) / (4 * workers)))))
        if size < 1:
            raise ValidationError(f"predict_many: chunk_curves must be >= 1, got {chunk_curves}")
        keys["_chunk"] = np.arange(len(keys)) // size
        curves_per_chunk = keys["_chunk"].value_counts().sort_index()
        store = (_ResultStore(out, settings, source, size, len(curves_per_chunk), resume, keep)
                 if out is not None else None)
        done = store.finished() if store else set()
        results: dict[int, pd.DataFrame] = {}
        with tqdm(total=len(keys), desc="curves", unit="curve", disable=not progress) as bar:
            bar.update(int(curves_per_chunk[sorted(done)].sum()) if done else 0)
            with tempfile.TemporaryDirectory(prefix="workbench-batch-") as spill:
                tasks = _chunks(source, keys, done, Path(spill))
                for chunk_id, frame in execute(tasks, settings):
                    if store:
                        store.write(chunk_id, frame)
                    results[chunk_id] = frame
                    bar.update(int(curves_per_chunk[chunk_id]))
    return results, store, curves_per_chunk.index


def _keeps_chunks(out, resume: bool) -> bool:
    """Whether finished chunks are kept beside ``out`` (Parquet needs pyarrow; without it, say what is lost)."""
    keep = out is not None and _have_pyarrow()
    if out is not None and not keep:
        if resume or str(out).lower().endswith(".parquet"):
            raise ValidationError(f"{out}: {'resuming' if resume else 'writing Parquet'} needs pyarrow: "
                                  "pip install 'workbench[batch]'")
        warnings.warn(f"{out}: finished chunks are not kept without pyarrow (pip install 'workbench[batch]'): "
                      "an interrupted run starts again", WorkbenchWarning, stacklevel=3)
    return keep


# ----------------------------------------------------------------------------- settings

def _check_settings(by, targets, level, models, n_column, t_column, unit, targets_column, per_node, nodes_column,
                    efficiency, deadline) -> _Settings:
    by = [by] if isinstance(by, str) else list(by or ())
    if not by or not all(isinstance(c, str) and c for c in by):
        raise ValidationError("predict_many: by must name the column(s) that identify a curve, e.g. ['app', 'machine']")
    if n_column in by:
        raise ValidationError(f"predict_many: the allocation column {n_column!r} cannot also identify a curve (by)")
    unit = check_unit(unit if unit is not None else (n_column if n_column in UNITS else None), "predict_many")
    absolute, factors = parse_targets(targets)
    if not absolute and not factors and not targets_column:
        raise ValidationError("predict_many: no targets: give allocations (256 512), multiples of each curve's "
                              "largest measured allocation (2x 4x), or a targets column")
    if efficiency is not None:
        efficiency = float(efficiency)
        if not 0 < efficiency <= 1:
            raise ValidationError(f"predict_many: the efficiency threshold must be in (0, 1], got {efficiency:g}")
    if deadline is not None:
        deadline = float(deadline)
        if not (np.isfinite(deadline) and deadline > 0):
            raise ValidationError(f"predict_many: the deadline must be a runtime > 0, got {deadline:g}")
    if per_node is not None:
        nodes_of([1], per_node, "predict_many", "per_node")  # a whole number >= 1
        per_node = int(per_node)
    return _Settings(tuple(by), absolute, factors, targets_column or None, check_level(level),
                     check_model_names(models, "predict_many"), n_column, t_column, unit, per_node,
                     nodes_column or None, efficiency, deadline)


# ----------------------------------------------------------------------------- chunks

def _chunks(source: ArchiveSource, keys: pd.DataFrame, done: set[int],
            spill: Path) -> Iterator[tuple[int, pd.DataFrame]]:
    """``(chunk id, runs of its curves)`` for every chunk not ``done``, in order.

    A table in memory is split directly; a file or dask source is routed batch by batch to
    files of whole chunks first, so that only one batch and one chunk are held at a time.
    """
    if source.kind == "frame":
        routed = source.frame[source.columns].merge(keys, on=source.by, how="left")
        for chunk_id, part in routed.groupby("_chunk", sort=True):
            if int(chunk_id) not in done:
                yield int(chunk_id), part.drop(columns="_chunk")
        return
    files: dict[int, list[Path]] = {}
    for index, batch in enumerate(source.batches()):
        routed = batch.merge(keys, on=source.by, how="left")
        for chunk_id, part in routed.groupby("_chunk", sort=False):
            chunk_id = int(chunk_id)
            if chunk_id in done:
                continue
            files.setdefault(chunk_id, []).append(_spill(part.drop(columns="_chunk"),
                                                         spill / f"runs-{chunk_id:06d}-{index:06d}"))
    for chunk_id in sorted(files):
        part = pd.concat([_unspill(p) for p in files[chunk_id]], ignore_index=True)
        for p in files.pop(chunk_id):
            p.unlink()
        yield chunk_id, part


def _spill(part: pd.DataFrame, base: Path) -> Path:
    """Write a piece of a chunk's runs to ``base`` + suffix; return the file.

    Parquet (data only) when pyarrow is there and the columns fit it; else a pickle.  Either
    way the file is in this run's private temporary folder (mode 0700, removed at the end)
    and read back only by this run: unlike ``<out>.parts/``, nothing else writes there.
    """
    if _have_pyarrow():
        path = base.with_suffix(".parquet")
        try:
            part.to_parquet(path, index=False)
            return path
        except Exception:  # pyarrow refuses e.g. a key column mixing numbers and text
            path.unlink(missing_ok=True)
    path = base.with_suffix(".pkl")
    part.to_pickle(path)
    return path


def _unspill(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_pickle(path)


# ----------------------------------------------------------------------------- engines

def _die_with_driver(driver_pid: int) -> None:
    """Start, in a local worker, a watch that ends the worker once ``driver_pid`` is gone.

    The joblib (loky) initializer of every worker.  A worker whose driver is killed
    (SIGKILL, an OOM kill) is adopted by another process, so its parent PID changes: the
    watch, a daemon thread polling ``os.getppid()`` every :data:`PARENT_POLL_S` seconds,
    then ends the worker at once (``os._exit``: nothing of the driver's is left to clean).
    Loky's resource trackers end by themselves once the driver and its workers are gone.
    """
    if os.getppid() != driver_pid:  # the driver died while this worker was starting
        os._exit(1)

    def watch() -> None:
        while os.getppid() == driver_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="workbench-die-with-driver", daemon=True).start()


class ExecutionEngine:
    """The execution engine, a context manager giving ``(execute, workers)``.

    ``execute(tasks, settings)`` yields ``(chunk id, frame)`` as tasks finish, holding at
    most ~2 tasks per worker in flight.

    Parameters
    ----------
    engine : {"joblib", "dask"}
        Local processes or a Dask cluster.
    n_jobs : int
        joblib's worker count (1: this process; -1: every core; 0 refused).
    client : dask.distributed.Client or None
        The Dask client; None: one connected to ``scheduler`` (and closed on exit).
    scheduler : str or None
        Address of a Dask scheduler, used without ``client``.
    """

    def __init__(self, engine: str, n_jobs: int, client, scheduler):
        self.engine, self.n_jobs, self.client, self.scheduler = engine, n_jobs, client, scheduler
        self._own_client = None

    def __enter__(self):
        if self.engine == "joblib":
            from joblib import cpu_count

            n_jobs = int(self.n_jobs)
            if n_jobs == 0:
                raise ValidationError("predict_many: n_jobs must not be 0 (1 = this process, -1 = every core)")
            workers = n_jobs if n_jobs > 0 else max(1, cpu_count() + 1 + n_jobs)
            return self._joblib(workers), workers
        client = self.client
        if client is None:
            if not self.scheduler:
                raise ValidationError("predict_many: engine='dask' needs a client (dask.distributed.Client) "
                                      "or a scheduler address such as tcp://host:8786")
            try:
                from dask.distributed import Client
            except ImportError:
                raise ValidationError("predict_many: engine='dask' needs dask.distributed: "
                                      "pip install 'workbench[batch]'") from None
            try:
                client = self._own_client = Client(self.scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
            except (OSError, TimeoutError):
                raise ValidationError(f"cannot reach the Dask scheduler at {self.scheduler}: no answer within "
                                      f"{CONNECT_TIMEOUT_S} s; is it running, and is the address the host:port "
                                      "of its tcp:// line?") from None
            except ValueError:
                raise ValidationError(f"{self.scheduler!r} is not a Dask scheduler address: expected e.g. "
                                      "tcp://host:8786") from None
            except Exception as exc:  # something answered, but not as a scheduler (a web server, a proxy)
                raise ValidationError(f"{self.scheduler} did not answer as a Dask scheduler "
                                      f"({type(exc).__name__}); is it the address of its tcp:// line?") from None
        workers = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()) or 1
        return self._dask(client, workers), workers

    def __exit__(self, *exc):
        if self._own_client is not None:
            self._own_client.close()
        return False

    @staticmethod
    def _joblib(workers: int):
        def execute(tasks: Iterable, settings: _Settings):
            if workers == 1:
                for chunk_id, part in tasks:
                    yield _predict_chunk(chunk_id, part, settings)
                return
            from joblib import Parallel, delayed, parallel_config

            # loky workers, each started with a watch on this process (they outlived a killed
            # driver by minutes otherwise, holding their memory)
            with parallel_config(backend="loky", initializer=_die_with_driver, initargs=(os.getpid(),)):
                parallel = Parallel(n_jobs=workers, return_as="generator_unordered", pre_dispatch="2*n_jobs")
                yield from parallel(delayed(_predict_chunk)(chunk_id, part, settings) for chunk_id, part in tasks)
        return execute

    @staticmethod
    def _dask(client, workers: int):
        def execute(tasks: Iterable, settings: _Settings):
            from dask.distributed import as_completed

            tasks = iter(tasks)
            pending = as_completed()
            for chunk_id, part in itertools.islice(tasks, 2 * workers):
                pending.add(client.submit(_predict_chunk, chunk_id, part, settings, pure=False))
            for future in pending:
                yield future.result()
                future.release()
                for chunk_id, part in itertools.islice(tasks, 1):
                    pending.add(client.submit(_predict_chunk, chunk_id, part, settings, pure=False))
        return execute


# ----------------------------------------------------------------------------- resume

#: Version of the ``<out>.parts/`` layout (1: pickled chunks, never read; 2: Parquet + checksums).
PARTS_FORMAT = 2
_JOURNAL = "chunks.jsonl"


def _have_pyarrow() -> bool:
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


class _ResultStore:
    """Finished chunks in ``<out>.parts/`` as Parquet files, each with its SHA-256 recorded.

    ``manifest.json`` holds what the run was made with (settings, source, chunk size), written
    once; ``chunks.jsonl`` the manifest's chunk records, one JSON line appended (and synced)
    after each chunk's file is written atomically: ``{"chunk", "file", "bytes", "sha256",
    "rows"}``. On resume a chunk is kept only if its record, size, checksum, Parquet content,
    columns and row count all agree; a damaged, truncated, replaced or missing one is computed
    again, with one note (a :class:`~workbench.errors.WorkbenchWarning`) naming them all, and
    so is, silently, a file without a record (a run stopped between writing and recording
    it).  Nothing in the folder is ever executed or unpickled: Parquet is data only.  The
    output file is written (atomically) at the end and the folder removed.

    ``keep=False`` (no pyarrow): chunks are not kept, only the output is written.
    """

    def __init__(self, out, settings: _Settings, source: ArchiveSource, chunk_curves: int, chunks: int,
                 resume: bool, keep: bool = True):
        self.out = Path(out).expanduser()
        if self.out.suffix.lower() not in _OUT_SUFFIXES:
            raise ValidationError(f"{self.out}: the output must be a .csv or .parquet file")
        if not self.out.parent.is_dir():
            raise ValidationError(f"{self.out}: the folder {self.out.parent} does not exist")
        if self.out.is_dir():
            raise ValidationError(f"{self.out} is a folder: give the output as a file name ending in .csv or .parquet")
        self.folder = self.out.with_name(self.out.name + ".parts")
        self.columns = batch_columns(settings.by, settings.efficiency is not None or settings.deadline is not None,
                                     settings.n_column, settings.unit)
        self.keep, self.chunks, self.kept, self.records = keep, chunks, set(), {}
        if not keep:
            return
        manifest = {"format": PARTS_FORMAT, "settings": asdict(settings), "source": source.describe(),
                    "chunk_curves": chunk_curves}
        manifest = json.loads(json.dumps(manifest))  # tuples as lists, as read back
        path = self.folder / "manifest.json"
        if self.folder.exists():
            if not resume:
                raise ValidationError(f"{self.folder} holds the finished chunks of an earlier run: resume it "
                                      "(resume=True, --resume) or remove the folder")
            try:
                earlier = json.loads(path.read_text())
                if not isinstance(earlier, dict):
                    raise ValueError
            except (OSError, ValueError, RecursionError):
                raise DataFormatError(f"{path}: unreadable; remove {self.folder} to start again") from None
            if earlier.get("format") != PARTS_FORMAT:
                raise ValidationError(f"{self.folder}: kept by an older version of workbench, whose chunks are not "
                                      "read (they are pickles); remove the folder to start again")
            if earlier != manifest:
                changed = sorted(k for k in manifest if earlier.get(k) != manifest[k])
                raise ValidationError(f"{self.folder}: the earlier run used other {', '.join(changed)}; resume with "
                                      f"the same runs and settings, or remove the folder to start again")
            self.records, self.kept = self._check_kept()
        else:
            self.folder.mkdir()
            atomic_write(path, json.dumps(manifest, indent=1).encode())

    @staticmethod
    def earlier_chunk_curves(out) -> int | None:
        """Return the chunk size of the run kept beside ``out`` (None: no readable earlier run)."""
        path = Path(out).expanduser()
        try:
            manifest = json.loads((path.with_name(path.name + ".parts") / "manifest.json").read_text())
            return int(manifest["chunk_curves"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _file(self, chunk_id: int) -> Path:
        # named from the chunk number, never from a recorded name (which could point anywhere)
        return self.folder / f"chunk-{chunk_id:06d}.parquet"

    def _records(self) -> tuple[dict[int, dict], int]:
        """Return the last valid record of each chunk in range, and the count of unreadable lines."""
        path = self.folder / _JOURNAL
        try:
            if path.stat().st_size > 4096 * (self.chunks + 16):  # records are ~200 bytes: not this run's
                raise DataFormatError(f"{path}: far larger than the records of {self.chunks} chunks; remove "
                                      f"{self.folder} to start again")
            lines = path.read_bytes().splitlines()
        except FileNotFoundError:
            return {}, 0
        except OSError:
            raise DataFormatError(f"{path}: unreadable; remove {self.folder} to start again") from None
        records, bad = {}, 0
        for line in lines:
            try:
                record = json.loads(line)
                chunk_id = record["chunk"]
                ok = (type(chunk_id) is int and 0 <= chunk_id < self.chunks
                      and all(type(record.get(k)) is int for k in ("bytes", "rows"))
                      and isinstance(record.get("sha256"), str))
            except (ValueError, TypeError, KeyError, RecursionError):  # not a record (a cut line, tampering)
                ok = False
            if ok:
                records[chunk_id] = record
            elif line.strip():
                bad += 1
        return records, bad

    def _load(self, chunk_id: int, record: dict) -> tuple[pd.DataFrame | None, str]:
        """Return the chunk's frame if its file agrees with ``record``, else None and why not."""
        path = self._file(chunk_id)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return None, "missing"
        except OSError:
            return None, "unreadable"
        if size != record["bytes"]:
            return None, f"{size:,} bytes, {record['bytes']:,} recorded"
        try:
            data = path.read_bytes()
        except OSError:
            return None, "unreadable"
        if hashlib.sha256(data).hexdigest() != record["sha256"]:
            return None, "checksum differs"
        try:
            import pyarrow.parquet as pq

            frame = pq.read_table(io.BytesIO(data)).to_pandas()
        except Exception:  # pyarrow's own errors (ArrowInvalid, ...): not Parquet after all
            return None, "not a Parquet table"
        if list(frame.columns) != self.columns or len(frame) != record["rows"]:
            return None, "other columns or rows"
        return frame, ""

    def _check_kept(self) -> tuple[dict[int, dict], set[int]]:
        """Return the records and the chunks of the earlier run that can be kept; one note for the others."""
        records, bad = self._records()
        kept, problems = set(), []
        for chunk_id in sorted(records):
            frame, why = self._load(chunk_id, records[chunk_id])
            if frame is None:
                problems.append(f"{self._file(chunk_id).name} ({why})")
            else:
                kept.add(chunk_id)
        recorded = {self._file(c).name for c in records}
        orphans = sorted(p.name for p in self.folder.glob("chunk-*") if p.name not in recorded)
        if problems or bad:
            what = problems[:4] + ([f"{len(problems) - 4} more"] if len(problems) > 4 else [])
            parts = ([f"{len(problems)} kept chunk(s) of the earlier run are damaged or missing and are computed "
                      f"again: {', '.join(what)}"] if problems else [])
            parts += [f"{bad} unreadable line(s) of {_JOURNAL} ignored"] if bad else []
            warnings.warn(f"{self.folder}: {'; '.join(parts)}", WorkbenchWarning, stacklevel=4)
        for name in orphans:  # written by a run stopped before recording them: computed again
            (self.folder / name).unlink(missing_ok=True)
        return records, kept

    def finished(self) -> set[int]:
        """Return the chunks kept from the earlier run (checked)."""
        return set(self.kept) if self.keep else set()

    def write(self, chunk_id: int, frame: pd.DataFrame) -> None:
        """Keep a finished chunk: its Parquet file atomically, then its record in the journal."""
        if not self.keep:
            return
        buffer = io.BytesIO()
        try:
            frame.to_parquet(buffer, index=False)
        except Exception as exc:  # pyarrow refuses e.g. a key column mixing numbers and text
            raise ValidationError(f"{self.folder}: cannot keep chunk {chunk_id} as Parquet ({type(exc).__name__}: "
                                  "a curve-key column mixing numbers and text?); give each key column one "
                                  "type") from None
        data = buffer.getvalue()
        atomic_write(self._file(chunk_id), data)
        record = {"chunk": chunk_id, "file": self._file(chunk_id).name, "bytes": len(data),
                  "sha256": hashlib.sha256(data).hexdigest(), "rows": len(frame)}
        fd = os.open(self.folder / _JOURNAL, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (json.dumps(record) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def read(self, chunk_id: int) -> pd.DataFrame:
        """Return a chunk kept from the earlier run, checked again."""
        record = self.records.get(chunk_id)
        frame, why = self._load(chunk_id, record) if record is not None else (None, "record missing")
        if frame is None:
            raise DataFormatError(f"{self._file(chunk_id)}: changed while this run was going ({why}); run again "
                                  "with --resume to compute it again")
        return frame

    def finish(self, frame: pd.DataFrame) -> None:
        """Write the output file atomically and remove the kept chunks."""
        if self.out.suffix.lower() == ".csv":
            atomic_write(self.out, frame.to_csv(index=False).encode())
        else:
            atomic_write(self.out, frame.to_parquet(index=False))
        if self.keep:
            shutil.rmtree(self.folder)
