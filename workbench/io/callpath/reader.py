""":func:`read_profiles`: files, folders, globs, lists and zip archives, serial or parallel.

Formats are told by content.

Part of :mod:`workbench.io.callpath` (the profile table is documented there).
"""

from __future__ import annotations

import collections
import glob
import io
import itertools
import json
import os
import re
import tarfile
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataFormatError, ParseWarning, ValidationError
from workbench.io import text as _text
from workbench.io.callpath.caliper import read_cali, read_cali_json
from workbench.io.callpath.common import (
    ALLOCATION_COLUMNS,
    MAX_FILES,
    MAX_ROWS,
    MAX_ZIP_MEMBERS,
    PER_RUN,
    PROFILE_TABLE_COLUMNS,
    SEP,
    WHAT,
    Rows,
    file_cap,
    mib,
    read_file_bytes,
    split_path,
)
from workbench.io.callpath.cube import read_cube
from workbench.io.callpath.extrap import (
    json_text,
    looks_like_extrap_text,
    read_extrap_json,
    read_extrap_jsonl,
    read_extrap_text,
)
from workbench.io.callpath.gptl import gptl_layout, read_gptl
from workbench.io.callpath.phiprof import looks_like_phiprof, read_phiprof
from workbench.io.callpath.table import validate_profile_table
from workbench.io.text import as_path, decode

__all__ = [
    "finish_table",
    "read_profile_files",
    "read_profiles",
]


def _is_tar(data: bytes) -> bool:
    return len(data) > 262 and data[257:262] == b"ustar"


#: An INI section header (``[globalSettings]``) as the first line: no JSON value starts so
#: (JSON's bare words true, false and null aside, which are no profile either).
_INI_SECTION = re.compile(rb"\[(?!(?:true|false|null)\])[A-Za-z_][^\]\[\n\"{},]*\][ \t]*(?:\r?\n|$)")


def _read_one(data: bytes, path: Path, name: str) -> pd.DataFrame | None:
    """One file's table, or None when its content is not a profile format (skipped in folders)."""
    if data.startswith(b"__rec="):
        return read_cali(decode(data, name, what=WHAT), name)
    if _is_tar(data):
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                names = archive.getnames()
        except (tarfile.TarError, OSError, EOFError, ValueError):
            raise DataFormatError(f"{name}: a damaged tar archive (expected a Score-P .cubex profile)") from None
        if "anchor.xml" not in names:
            return None
        return read_cube(data, path, name)
    if data.startswith(b"PK\x03\x04"):
        raise DataFormatError(f"{name}: a zip archive inside a zip archive is not read")
    head = data[:4096].lstrip()
    if _INI_SECTION.match(head):
        return None  # an INI file ([section] lines: Cube GUI's profile.ini beside a profile.cubex), not JSON
    if head[:1] not in (b"{", b"["):
        sample = data[:65536].decode("utf-8", "replace")
        if gptl_layout(sample):
            return read_gptl(decode(data, name, what=WHAT), name)
        if looks_like_phiprof(sample):
            return read_phiprof(decode(data, name, what=WHAT), name)
        if not looks_like_extrap_text(sample):
            return None
    text = decode(data, name, what=WHAT)
    if head[:1] == b"[":
        return read_cali_json(json_text(text, name), name)
    if head[:1] == b"{":
        first = text.lstrip().split("\n", 1)[0]
        try:
            one = json.loads(first)
        except (json.JSONDecodeError, RecursionError):
            one = None
        if isinstance(one, dict) and "params" in one:
            return read_extrap_jsonl(text, name)
        data_ = json_text(text, name)
        if not isinstance(data_, dict):
            return None
        if "measurements" in data_ and "parameters" in data_:
            return read_extrap_json(data_, name)
        if "records" in data_ or {"data", "columns", "nodes"} <= set(data_):
            return read_cali_json(data_, name)
        return None
    return read_extrap_text(text, name)


def _gunzip(data: bytes, name: str) -> bytes:
    """Return the content of a gzip-compressed file (E3SM keeps its GPTL timing files so), read under the cap."""
    import gzip
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
            out = unzipped.read(file_cap() + 1)
    except (OSError, EOFError, zlib.error, ValueError):
        raise DataFormatError(f"{name}: a damaged gzip file") from None
    if len(out) > file_cap():
        raise DataFormatError(f"{name}: the gzip file unpacks to more than the {mib(file_cap())} accepted for {WHAT}")
    if out[:2] == b"\x1f\x8b":
        raise DataFormatError(f"{name}: a gzip file inside a gzip file is not read")
    return out


def _expand(source) -> list[tuple[Path, str]]:
    """Expand a file, folder, glob or list into (path, name for messages) of every file."""
    if isinstance(source, (list, tuple)):
        out = []
        for item in source:
            out += _expand(item)
        return out
    path = as_path(source)
    text = str(source)
    if not _text.path_exists(path) and any(c in text for c in "*?["):
        matches = sorted(glob.glob(os.path.expanduser(text), recursive=True))
        files = [Path(m) for m in matches if os.path.isfile(m)]
        if not files:
            raise DataFormatError(f"{text}: no files match this pattern")
        return [(f, str(f)) for f in files]
    if _text.path_exists(path) and _text.is_folder(path):
        files = []
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            files += [Path(root) / n for n in sorted(names) if not n.startswith(".")]
            if len(files) > MAX_FILES:
                raise DataFormatError(f"{text}: more than {MAX_FILES:,} files in this folder")
        if not files:
            raise DataFormatError(f"{text}: an empty folder (expected {WHAT} files)")
        return [(f, str(f)) for f in files]
    return [(path, text)]


def _tar_members(data: bytes, name: str, workdir: Path, inside: bool) -> list[tuple[Path, str]] | None:
    """Unpack a tar archive of profiles (E3SM's ``timing.<LID>.tar.gz``) under the caps; None for a Cube profile."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            infos = archive.getmembers()
            if any(i.name == "anchor.xml" for i in infos) or Path(name).suffix.lower() == ".cubex":
                return None  # a Score-P .cubex profile is a tar archive holding anchor.xml
            if inside:
                raise DataFormatError(f"{name}: a tar archive inside an archive is not read")
            infos = [i for i in infos if i.isreg()]  # no links, devices or folders
            if len(infos) > MAX_ZIP_MEMBERS:
                raise DataFormatError(f"{name}: {len(infos):,} files in the tar archive, more than "
                                      f"{MAX_ZIP_MEMBERS:,}")
            total = sum(i.size for i in infos)
            if total > 8 * file_cap():
                raise DataFormatError(f"{name}: the tar archive unpacks to {total:,} bytes, more than the "
                                      f"{mib(8 * file_cap())} accepted")
            out = []
            for k, info in enumerate(infos):
                parts = [p for p in Path(info.name).parts if p not in ("", ".", "..", "/")]
                if not parts or any(p.startswith(".") for p in parts):
                    continue
                if info.size > file_cap():
                    raise DataFormatError(f"{name}: member {info.name[:80]!r} is more than the {mib(file_cap())} "
                                          "accepted")
                source = archive.extractfile(info)
                chunk = source.read(file_cap() + 1) if source is not None else b""
                target = workdir.joinpath(f"t{k:05d}", *parts)  # (no member can leave workdir)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(chunk)
                out.append((target, f"{name}:{'/'.join(parts)}"))
            return out
    except DataFormatError:
        raise
    except (tarfile.TarError, OSError, EOFError, ValueError):
        raise DataFormatError(f"{name}: a damaged tar archive (a Score-P .cubex profile, or a tar archive of "
                              "profiles)") from None


def _zip_members(data: bytes, name: str, workdir: Path) -> list[tuple[Path, str]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in archive.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise DataFormatError(f"{name}: a damaged zip archive") from None
    if len(infos) > MAX_ZIP_MEMBERS:
        raise DataFormatError(f"{name}: {len(infos):,} files in the zip archive, more than {MAX_ZIP_MEMBERS:,}")
    total = sum(i.file_size for i in infos)
    if total > 8 * file_cap():
        raise DataFormatError(f"{name}: the zip archive unpacks to {total:,} bytes, more than the "
                              f"{mib(8 * file_cap())} accepted")
    out = []
    for k, info in enumerate(infos):
        parts = [p for p in Path(info.filename).parts if p not in ("", ".", "..", "/")]
        if not parts or any(p.startswith(".") or p == "__MACOSX" for p in parts):
            continue
        target = workdir.joinpath(f"{k:05d}", *parts)  # (no member can leave workdir)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with archive.open(info) as src:
                chunk = src.read(file_cap() + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError):
            raise DataFormatError(f"{name}: member {info.filename[:80]!r} of the zip archive cannot be read"
                                  ) from None
        if len(chunk) > file_cap():
            raise DataFormatError(f"{name}: member {info.filename[:80]!r} is more than the {mib(file_cap())} accepted")
        target.write_bytes(chunk)
        out.append((target, f"{name}:{'/'.join(parts)}"))
    return out


#: File name endings that claim a profile format: such a file whose content is of no profile
#: format is an error (a damaged profile), not one of a folder's other files (skipped).
CLAIMED_FORMATS = {".cali": "a Caliper .cali file (it starts with __rec=)",
                   ".cubex": "a Score-P Cube profile (a tar archive holding anchor.xml)",
                   ".jsonl": "Extra-P JSON Lines (one object with params per line)"}


def _read_files(files: list[tuple[Path, str]], single: bool, workdir, skipped: list | None = None,
                inside: bool = False) -> list[pd.DataFrame]:
    """Read ``files`` into tables; the names of files of no profile format go to ``skipped``.

    ``inside``: the files come out of an archive (a tar archive in it is refused, not unpacked).
    """
    frames = []
    for path, name in files:
        data = read_file_bytes(path, name)
        if data[:2] == b"\x1f\x8b":
            data = _gunzip(data, name)
        if data.startswith(b"PK\x03\x04"):
            members = _zip_members(data, name, Path(workdir))
            frames += _read_files(members, False, workdir, skipped, inside=True)
            continue
        if _is_tar(data):
            members = _tar_members(data, name, Path(workdir), inside)
            if members is not None:  # (None: a Score-P Cube profile, read below)
                frames += _read_files(members, False, workdir, skipped, inside=True)
                continue
        frame = _read_one(data, path, name)
        if frame is None:
            if single:
                raise DataFormatError(f"{name}: unknown format: expected {WHAT}")
            claimed = CLAIMED_FORMATS.get(Path(name).suffix.lower())
            if claimed:
                raise DataFormatError(f"{name}: named like a profile, but its content is not {claimed}: "
                                      "a damaged or truncated file?")
            if skipped is not None:
                skipped.append(name)
            continue
        frames.append(frame)
    return frames


def _warn_skipped(skipped: list[str]) -> None:
    """One warning naming the files of no profile format that were skipped."""
    if not skipped:
        return
    shown = ", ".join(skipped[:5])
    if len(skipped) > 5:  # many: also every distinct file name with its count (e.g. scorep.cfg in each run)
        counts = collections.Counter(Path(n.replace(":", "/")).name for n in skipped)
        shown += (f" and {len(skipped) - 5:,} more; by name: "
                  + ", ".join(f"{k} ({v:,})" for k, v in counts.most_common(20)))
    warnings.warn(f"{len(skipped):,} file(s) of no profile format skipped (expected {WHAT}): {shown}",
                  ParseWarning, stacklevel=3)


def read_profiles(path_or_paths, n_jobs: int | None = 1, progress: bool | None = None, client=None) -> pd.DataFrame:
    """Read call-path profiles into one profile table (module docstring).

    Parameters
    ----------
    path_or_paths : str, path-like or list of them
        A file, a folder (read recursively: files of no profile format, such as Score-P's
        ``scorep.cfg`` or Cube's ``profile.ini``, are skipped with one ParseWarning naming
        them), a glob pattern (``runs/*.cali``) or a list of any of these; zip and tar
        archives and gzip-compressed files are unpacked. Formats are told by content; a file
        named ``.cali``, ``.cubex`` or ``.jsonl`` whose content is of no profile format is an
        error, not skipped.
    n_jobs : int or None, default 1
        Processes reading the files (joblib; -1 or None: one per CPU). Worth it from a few
        hundred files on (starting the workers takes about a second). Ignored with ``client``.
    progress : bool or None, default None
        Show a progress bar (``tqdm.auto``); None: from 1,000 files on.
    client : dask.distributed.Client or None, default None
        Read the files on this Dask cluster instead (chunks of files as tasks, about four per
        worker thread; the bar advances as chunks finish). The workers open the files by their
        paths, so these must be visible to them (one machine, or a shared file system); the
        table is the same as without a client.

    Returns
    -------
    pandas.DataFrame
        The profile table: :data:`PROFILE_TABLE_COLUMNS` then one column per run parameter,
        sorted by profile order in the input, region and metric.

    Raises
    ------
    DataFormatError
        A file that cannot be read or parsed (naming it and the line or record), a single
        file of no profile format, a file named like a profile of no profile format, a
        folder or pattern without any profile.

    Warns
    -----
    ParseWarning
        Once, naming the files of no profile format that were skipped (first five and a count).
    """
    files = _expand(path_or_paths)
    if len(files) > MAX_FILES:
        raise DataFormatError(f"{len(files):,} files given, more than the {MAX_FILES:,} read at once")
    single = (len(files) == 1 and not isinstance(path_or_paths, (list, tuple))
              and files[0][0] == as_path(path_or_paths))  # one file named: not a folder or a pattern
    show = len(files) >= 1000 if progress is None else bool(progress)
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="workbench-profiles-") as workdir:
        if client is not None:
            frames = _read_dask(files, client, show, skipped)
        elif n_jobs == 1 or len(files) < 2:
            frames = []
            for chunk in _chunks(files, 256, show):
                read = _read_files(chunk, single, workdir, skipped)
                if read:
                    frames.append(_collect(read))
        else:
            frames = _read_parallel(files, n_jobs, show, workdir, skipped)
    if not frames:
        raise DataFormatError(f"{_label(path_or_paths)}: no profiles found (expected {WHAT})")
    params = {k: v for _, chunk_params in frames for k, v in chunk_params.items()}
    try:
        table = finish_table([f for f, _ in frames], params)
    except ValidationError as exc:  # read values that break the table (e.g. a region twice in one file)
        raise DataFormatError(f"{exc} (a damaged file?)") from None
    _warn_skipped(skipped)
    return table


def _chunks(files: list, size: int, show: bool):
    """``files`` in chunks of ``size``, with a progress bar over the files when ``show``."""
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(files), desc="reading profiles", unit="file")
    try:
        for start in range(0, len(files), size):
            chunk = files[start:start + size]
            yield chunk
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()


def _rows_frame(rows: list[Rows]) -> pd.DataFrame:
    """Many profiles' rows as one frame (built once)."""
    cols = {k: [v for r in rows for v in r.cols[k]] for k in ("region", "metric", "kind", "aggregation", "unit")}
    frame = pd.DataFrame(cols)
    frame["value"] = np.fromiter((v for r in rows for v in r.cols["value"]), dtype=float)
    lengths = [len(r) for r in rows]
    frame["profile"] = np.repeat(np.array([r.profile for r in rows], dtype=object), lengths)
    frame["format"] = np.repeat(np.array([r.format for r in rows], dtype=object), lengths)
    return frame


def _collect(frames: list) -> tuple[pd.DataFrame, dict]:
    """Concatenate per-file frames (or rows); their run parameters by profile."""
    params = {f["profile"].iloc[0]: f.attrs["params"] for f in frames
              if isinstance(f, pd.DataFrame) and "params" in f.attrs and len(f)}
    params.update({r.profile: r.params for r in frames if isinstance(r, Rows)})
    if sum(len(f) for f in frames) > MAX_ROWS:
        raise DataFormatError(f"more than {MAX_ROWS:,} rows in these profiles")
    # in input order: each run of consecutive Rows becomes one frame (so chunking cannot reorder profiles)
    ordered = []
    for is_rows, group in itertools.groupby(frames, key=lambda f: isinstance(f, Rows)):
        ordered += [_rows_frame(list(group))] if is_rows else list(group)
    frames = ordered
    frame = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0].copy()
    frame.attrs = {}
    return frame, params


def _read_chunk(chunk: list, workdir: str | None) -> tuple[tuple[pd.DataFrame, dict] | None, list[str]]:
    """Read one worker's share: its files' tables concatenated, and its skipped files' names.

    One frame goes back per chunk, not hundreds.

    ``workdir`` None: zip members are unpacked into the worker's own temporary folder (a Dask
    worker may not see the caller's).
    """
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="workbench-profiles-") as own:
            return _read_chunk(chunk, own)
    skipped: list[str] = []
    frames = _read_files(chunk, False, workdir, skipped)
    return (_collect(frames) if frames else None), skipped


def _chunk_size(n_files: int, workers: int) -> int:
    return max(16, min(512, -(-n_files // (4 * workers))))  # ~4 chunks per worker: balance, little overhead


def _read_dask(files: list, client, show: bool, skipped: list) -> list[tuple[pd.DataFrame, dict]]:
    """Chunks of files as tasks on a Dask cluster; the results in input order."""
    try:
        from dask.distributed import as_completed
    except ImportError:
        raise DataFormatError("reading profiles with a Dask client needs dask.distributed: "
                              "pip install 'workbench[batch]'") from None
    workers = sum(client.nthreads().values()) or 1
    chunks = list(_chunks(files, _chunk_size(len(files), workers), False))
    futures = [client.submit(_read_chunk, chunk, None, pure=False) for chunk in chunks]
    sizes = {future.key: len(chunk) for future, chunk in zip(futures, chunks)}
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(files), desc="reading profiles", unit="file")
    try:
        for future in as_completed(futures):
            if future.status == "error":
                break  # raised below, in input order (the first bad file of the input is named)
            if bar is not None:
                bar.update(sizes[future.key])
        parts = [future.result() for future in futures]  # re-raises a worker's DataFormatError
    finally:
        if bar is not None:
            bar.close()
        client.cancel(futures)
    for _, names in parts:
        skipped += names
    return [part for part, _ in parts if part is not None]


def _read_parallel(files: list, n_jobs, show: bool, workdir: str, skipped: list) -> list[pd.DataFrame]:
    from joblib import Parallel, cpu_count, delayed

    workers = cpu_count() if n_jobs in (None, -1) else max(1, int(n_jobs))
    chunks = list(_chunks(files, _chunk_size(len(files), workers), False))
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(files), desc="reading profiles", unit="file")
    frames = []
    try:
        parallel = Parallel(n_jobs=workers, return_as="generator")
        for chunk, (part, names) in zip(chunks, parallel(delayed(_read_chunk)(c, workdir) for c in chunks)):
            skipped += names
            if part is not None:
                frames.append(part)
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    return frames


def read_profile_files(files) -> pd.DataFrame:
    """Read uploaded profiles, ``(file name, content bytes)`` pairs, like :func:`read_profiles`.

    Each file is written under its base name into a private temporary folder (a zip archive
    is unpacked as with :func:`read_profiles`), so formats are told by content as for files
    on disk; at most :data:`MAX_FILES` files and ``MAX_FILE_BYTES`` each.

    Parameters
    ----------
    files : iterable of (str, bytes)
        The uploaded files: a file name (only its base name is used) and its content.
    """
    files = list(files)
    if not files:
        raise DataFormatError("no files uploaded (expected " + WHAT + ")")
    if len(files) > MAX_FILES:
        raise DataFormatError(f"{len(files):,} files uploaded, more than the {MAX_FILES:,} read at once")
    with tempfile.TemporaryDirectory(prefix="workbench-upload-") as folder:
        for k, (name, content) in enumerate(files):
            base = Path(str(name).replace("\\", "/")).name or "upload"
            if len(content) > file_cap():
                raise DataFormatError(f"{base}: the upload is {len(content):,} bytes, more than the {mib(file_cap())} "
                                      f"accepted for {WHAT}")
            target = Path(folder) / f"{k:05d}" / base
            target.parent.mkdir()
            target.write_bytes(bytes(content))
        table = read_profiles(folder)
    prefix = str(Path(folder)) + os.sep
    names = [p.replace(prefix, "", 1) for p in table["profile"]]
    short = [n.split(os.sep, 1)[-1] for n in names]  # without the per-file folder, when still unique
    unique = len(set(short)) == len(set(names))
    table["profile"] = short if unique else names
    return table


def _label(source) -> str:
    if isinstance(source, (list, tuple)):
        return ", ".join(str(s) for s in source[:3]) + (" ..." if len(source) > 3 else "")
    return str(source)


def finish_table(frames: list[pd.DataFrame], params: dict | None = None) -> pd.DataFrame:
    """Concatenate per-file frames, add the run parameters, fill the region and run columns, order the columns.

    Parameters
    ----------
    frames : list of pandas.DataFrame
        The files' tables (one per file, or the rows of a chunk of files).
    params : dict of str to dict, optional
        Run parameters per profile label, added to those the files carried.
    """
    single = len(frames) == 1 and isinstance(frames[0], pd.DataFrame) and "params" not in frames[0].attrs
    frame, found = (frames[0], {}) if single else _collect(frames)
    params = {**found, **(params or {})}
    if params:
        table = pd.DataFrame.from_dict(params, orient="index")
        codes = table.index.get_indexer(frame["profile"])
        for column in table.columns:
            values = np.append(table[column].to_numpy(object), np.nan)[codes]  # -1: a profile without parameters
            if column in frame:
                values = np.where(frame[column].isna().to_numpy(), values, frame[column].to_numpy(object))
            frame[column] = values
    own = "run" in frame and "name" in frame and frame["name"].notna().all()  # read back from to_extrap
    if own:
        return _order(frame)
    regions = frame["region"].astype(str)
    unique = pd.Index(regions.unique())
    parts = [split_path(r) for r in unique]
    info = pd.DataFrame({"name": [p[-1] for p in parts], "parent": [SEP.join(p[:-1]) for p in parts],
                         "depth": [len(p) - 1 for p in parts]}, index=unique)
    codes = unique.get_indexer(regions)
    for column in ("name", "parent", "depth"):
        frame[column] = info[column].to_numpy()[codes]
    for column in ALLOCATION_COLUMNS:
        frame[column] = pd.to_numeric(frame[column], errors="coerce") if column in frame else np.nan
    frame["run"] = _runs(frame)
    return _order(frame)


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    """Table columns then the parameters by name; parameters of numbers (or missing) as float."""
    params = [c for c in frame.columns if c not in PROFILE_TABLE_COLUMNS]
    for column in params:
        values = frame[column]
        if pd.api.types.is_float_dtype(values) or pd.api.types.is_integer_dtype(values):
            frame[column] = values.astype(float)
            continue
        # numbers and missing values only (readers give numbers as float, text as str): float
        kinds = values.map(type).value_counts().index
        if all(k in (float, int, type(None)) for k in kinds):
            frame[column] = values.astype(float)
        else:
            frame[column] = values.where(values.notna(), None).astype(object)
    frame = frame[PROFILE_TABLE_COLUMNS + sorted(params)]
    return validate_profile_table(frame)


def _runs(frame: pd.DataFrame) -> np.ndarray:
    """Repetition index of each profile among the profiles of the same configuration."""
    config = [c for c in frame.columns if c not in PROFILE_TABLE_COLUMNS and c.lower() not in PER_RUN]
    codes, _ = pd.factorize(frame["profile"])
    _, first = np.unique(codes, return_index=True)  # one row per profile, in order of appearance
    profiles = frame[["profile", *ALLOCATION_COLUMNS, *config]].take(np.sort(first))
    keys = profiles[[*ALLOCATION_COLUMNS, *config]].astype(str)
    run = keys.groupby(list(keys.columns), sort=False, dropna=False).cumcount().to_numpy()
    return pd.Series(run, index=profiles["profile"].to_numpy()).reindex(frame["profile"]).to_numpy().astype(np.int64)


