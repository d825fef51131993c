"""Run ``predict_many`` over a job archive, resumably.

The curves of a job archive in chunks on joblib workers or a Dask cluster, with a progress bar,
results kept per chunk so that an interrupted run resumes.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from workbench.batch.archive import ArchiveSource
from workbench.batch.predict import batch_columns, predict_curves
from workbench.errors import DataFormatError, ValidationError
from workbench.io.sidecar import atomic_write
from workbench.models.scaling.base import check_model_names, check_targets
from workbench.models.scaling.calibration import check_level

__all__ = ["predict_many"]

ENGINES = ("joblib", "dask")
#: Most curves per chunk (a chunk is one task: ~0.1 s of CPU per curve).
MAX_CHUNK_CURVES = 200
_OUT_SUFFIXES = (".csv", ".parquet")


@dataclass(frozen=True)
class _Settings:
    """What every chunk is predicted with (and what a resumed run must share)."""

    by: tuple[str, ...]
    targets: tuple[float, ...]
    level: float
    models: tuple[str, ...]
    n_column: str
    t_column: str
    efficiency: float | None
    deadline: float | None


def _predict_chunk(chunk_id: int, runs: pd.DataFrame, settings: _Settings) -> tuple[int, pd.DataFrame]:
    """One task: the batch rows of every curve in ``runs`` (module-level: workers import it)."""
    return chunk_id, predict_curves(runs, settings.by, np.array(settings.targets), settings.level, settings.models,
                                    n_column=settings.n_column, t_column=settings.t_column,
                                    efficiency=settings.efficiency, deadline=settings.deadline)


def predict_many(runs, by, targets, level: float = 0.8, models=None, engine: str = "joblib", n_jobs: int = -1,
                 client=None, progress: bool = True, *, scheduler: str | None = None, out=None,
                 resume: bool = False, chunk_curves: int | None = None, n_column: str = "processes",
                 t_column: str = "time_s", efficiency: float | None = None,
                 deadline: float | None = None) -> pd.DataFrame:
    """Predict every curve of a runs table at ``targets`` (see :mod:`workbench.batch.predict` for the columns returned).

    Parameters
    ----------
    runs : the runs (one row per run, repeats allowed): a pandas DataFrame (e.g. the canonical
        scaling frame), the path of a CSV or Parquet file (read in batches: the whole archive
        is never in one process), or a dask DataFrame.
    by : the column(s) that identify a curve, e.g. ``["app", "machine"]``.
    targets : allocations to predict (the unit of ``n_column``).
    level : central probability of the calibrated intervals.
    models : model names (``"adept,pmnf"`` or a list); None: all of them.
    engine : ``"joblib"`` (local processes; ``n_jobs`` as joblib's, 1 = this process) or
        ``"dask"`` (a ``dask.distributed.Client`` given as ``client``, or one connected to
        ``scheduler``, e.g. ``"tcp://host:8786"``).  Both give the same rows.
    progress : a progress bar of the curves done.
    out : write the result there too (``.csv`` or ``.parquet``); finished chunks are kept
        beside it in ``<out>.parts/`` until the end, so that ``resume=True`` continues an
        interrupted run without recomputing them.
    chunk_curves : curves per task (default: about 4 tasks per worker, at most 200 curves).
    n_column, t_column : allocation and runtime columns.
    efficiency, deadline : add the recommendations of
        :func:`~workbench.batch.predict.recommend_allocation` (threshold on parallel
        efficiency in (0, 1]; deadline in the runtimes' unit).
    """
    settings = _check_settings(by, targets, level, models, n_column, t_column, efficiency, deadline)
    if engine not in ENGINES:
        raise ValidationError(f"predict_many: engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    source = ArchiveSource(runs, settings.by, n_column, t_column)
    keys = source.curve_keys()
    with _engine(engine, n_jobs, client, scheduler) as (execute, workers):
        if chunk_curves is None and out is not None and resume:  # a resumed run keeps its chunks,
            chunk_curves = _ResultStore.earlier_chunk_curves(out)  # whatever the workers now
        size = (int(chunk_curves) if chunk_curves is not None
                else max(1, min(MAX_CHUNK_CURVES, math.ceil(len(keys) / (4 * workers)))))
        if size < 1:
            raise ValidationError(f"predict_many: chunk_curves must be >= 1, got {chunk_curves}")
        keys["_chunk"] = np.arange(len(keys)) // size
        curves_per_chunk = keys["_chunk"].value_counts().sort_index()
        store = _ResultStore(out, settings, source, size, resume) if out is not None else None
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
    frames = [results[c] if c in results else store.read(c) for c in curves_per_chunk.index]
    recommend = efficiency is not None or deadline is not None
    frame = (pd.concat(frames, ignore_index=True) if frames
             else pd.DataFrame(columns=batch_columns(settings.by, recommend)))
    if store:
        store.finish(frame)
    return frame


# ----------------------------------------------------------------------------- settings

def _check_settings(by, targets, level, models, n_column, t_column, efficiency, deadline) -> _Settings:
    by = [by] if isinstance(by, str) else list(by or ())
    if not by or not all(isinstance(c, str) and c for c in by):
        raise ValidationError("predict_many: by must name the column(s) that identify a curve, e.g. ['app', 'machine']")
    if efficiency is not None:
        efficiency = float(efficiency)
        if not 0 < efficiency <= 1:
            raise ValidationError(f"predict_many: the efficiency threshold must be in (0, 1], got {efficiency:g}")
    if deadline is not None:
        deadline = float(deadline)
        if not (np.isfinite(deadline) and deadline > 0):
            raise ValidationError(f"predict_many: the deadline must be a runtime > 0, got {deadline:g}")
    targets = check_targets(targets, "predict_many")
    return _Settings(tuple(by), tuple(float(v) for v in targets), check_level(level),
                     check_model_names(models, "predict_many"), n_column, t_column, efficiency, deadline)


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
            path = spill / f"runs-{chunk_id:06d}-{index:06d}.pkl"
            part.drop(columns="_chunk").to_pickle(path)
            files.setdefault(chunk_id, []).append(path)
    for chunk_id in sorted(files):
        part = pd.concat([pd.read_pickle(p) for p in files[chunk_id]], ignore_index=True)
        for p in files.pop(chunk_id):
            p.unlink()
        yield chunk_id, part


# ----------------------------------------------------------------------------- engines

class _engine:
    """The execution engine as ``(execute, workers)``.

    ``execute(tasks, settings)`` yields ``(chunk id, frame)`` as tasks finish, holding at
    most ~2 tasks per worker in flight.
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
                client = self._own_client = Client(self.scheduler, timeout="30s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise ValidationError(f"predict_many: cannot reach the Dask scheduler at {self.scheduler} "
                                      f"({type(exc).__name__}); is it running?") from None
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
            from joblib import Parallel, delayed

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

class _ResultStore:
    """Finished chunks in ``<out>.parts/``, written atomically, with the settings they were made with.

    The output file is written (atomically) at the end and the folder removed.
    """

    def __init__(self, out, settings: _Settings, source: ArchiveSource, chunk_curves: int, resume: bool):
        self.out = Path(out).expanduser()
        if self.out.suffix.lower() not in _OUT_SUFFIXES:
            raise ValidationError(f"{self.out}: the output must be a .csv or .parquet file")
        if not self.out.parent.is_dir():
            raise ValidationError(f"{self.out}: the folder {self.out.parent} does not exist")
        self.folder = self.out.with_name(self.out.name + ".parts")
        manifest = {"settings": asdict(settings), "source": source.describe(), "chunk_curves": chunk_curves}
        manifest = json.loads(json.dumps(manifest))  # tuples as lists, as read back
        path = self.folder / "manifest.json"
        if self.folder.exists():
            if not resume:
                raise ValidationError(f"{self.folder} holds the finished chunks of an earlier run: resume it "
                                      "(resume=True, --resume) or remove the folder")
            try:
                earlier = json.loads(path.read_text())
            except (OSError, ValueError):
                raise DataFormatError(f"{path}: unreadable; remove {self.folder} to start again") from None
            if earlier != manifest:
                changed = sorted(k for k in manifest if earlier.get(k) != manifest[k])
                raise ValidationError(f"{self.folder}: the earlier run used other {', '.join(changed)}; resume with "
                                      f"the same runs and settings, or remove the folder to start again")
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

    def finished(self) -> set[int]:
        return {int(p.stem.split("-")[1]) for p in self.folder.glob("chunk-*.pkl")}

    def write(self, chunk_id: int, frame: pd.DataFrame) -> None:
        atomic_write(self.folder / f"chunk-{chunk_id:06d}.pkl", pickle.dumps(frame))

    def read(self, chunk_id: int) -> pd.DataFrame:
        return pd.read_pickle(self.folder / f"chunk-{chunk_id:06d}.pkl")

    def finish(self, frame: pd.DataFrame) -> None:
        if self.out.suffix.lower() == ".csv":
            atomic_write(self.out, frame.to_csv(index=False).encode())
        else:
            atomic_write(self.out, frame.to_parquet(index=False))
        shutil.rmtree(self.folder)
