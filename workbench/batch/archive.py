"""Job archives too large for one process.

Read in batches of rows, routed to chunks of whole curves on disk, so the driver holds one
batch (and one chunk per running task) at a time.

Sources: a pandas DataFrame, a CSV or Parquet path, or a dask DataFrame.  Curve keys read from
a CSV are text (a key "007" stays "007"); Parquet and dask keep their types.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd

from workbench.errors import DataFormatError, ValidationError

__all__ = ["ArchiveSource", "BATCH_ROWS"]

#: Rows read per batch from a file (a few tens of MB of a typical archive).
BATCH_ROWS = 200_000
_SUFFIXES = {".csv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet"}


class ArchiveSource:
    """Batches of the columns a prediction needs, from one of the accepted sources.

    Parameters
    ----------
    source : pandas.DataFrame, path-like or dask DataFrame
        The runs: a frame, a CSV or Parquet file, or a dask DataFrame.
    by : sequence of str
        The columns that identify a curve.
    n_column, t_column : str
        Allocation and runtime columns.
    batch_rows : int, optional
        Rows per batch read from a file; default ``BATCH_ROWS`` (200,000).
    extra : sequence of str, default ()
        Further columns the prediction reads (targets, nodes).
    """

    def __init__(self, source, by: Sequence[str], n_column: str, t_column: str, batch_rows: int | None = None,
                 extra: Sequence[str] = ()):
        self.by, self.columns = list(by), list(dict.fromkeys([*by, n_column, t_column, *extra]))
        self.batch_rows = BATCH_ROWS if batch_rows is None else batch_rows
        self.frame = source if isinstance(source, pd.DataFrame) else None
        self.kind, self.path, self.ddf = "frame", None, None
        if self.frame is None and _is_dask_frame(source):
            self.kind, self.ddf = "dask", source
        elif self.frame is None:
            if not isinstance(source, (str, os.PathLike)):
                raise ValidationError("predict_many: the runs must be a pandas or dask DataFrame, or the path of a "
                                      f"CSV or Parquet file, got {type(source).__name__}")
            self.path = Path(source).expanduser()
            self.kind = _SUFFIXES.get(self.path.suffix.lower(), "")
            if not self.kind:
                raise DataFormatError(f"{self.path}: unknown format: expected a .csv or .parquet file of runs")
            if not self.path.is_file():
                raise DataFormatError(f"{self.path}: no such file (expected a CSV or Parquet file of runs)")
        self._check_columns(self._header())

    @property
    def name(self) -> str:
        """The source in words, for messages."""
        return str(self.path) if self.path is not None else f"the {self.kind.replace('frame', 'runs')} table"

    def describe(self) -> dict:
        """Return what identifies the source for a resumed run."""
        if self.path is None:
            return {"kind": self.kind}
        status = self.path.stat()
        return {"kind": self.kind, "path": str(self.path.resolve()), "bytes": status.st_size,
                "modified_ns": status.st_mtime_ns}

    # ------------------------------------------------------------------ reading
    def _header(self) -> list[str]:
        if self.kind == "frame":
            return [str(c) for c in self.frame.columns]
        if self.kind == "dask":
            return [str(c) for c in self.ddf.columns]
        if self.kind == "parquet":
            return list(_parquet_file(self.path).schema_arrow.names)
        try:
            return list(pd.read_csv(self.path, nrows=0, skiprows=self._comment_lines()).columns)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError):
            raise DataFormatError(f"{self.path}: not a readable CSV table of runs (expected a header line such as "
                                  f"{','.join(self.columns)})") from None

    def _comment_lines(self) -> int:
        """Count the ``#`` lines before a CSV's header (a commented template, as the upload reader accepts).

        Only leading lines: a ``#`` inside the data stays data (a curve may be named ``app#1``).
        """
        count = 0
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if not line.lstrip("\ufeff").startswith("#") or count >= 10_000:
                        break
                    count += 1
        except OSError:
            return 0
        return count

    def _check_columns(self, header: list[str]) -> None:
        missing = [c for c in self.columns if c not in header]
        if missing:
            raise DataFormatError(f"{self.name}: no column(s) {', '.join(map(repr, missing))}; found "
                                  f"{', '.join(map(repr, header[:20]))} (expected the curve keys and the "
                                  f"allocation and runtime columns, e.g. {','.join(self.columns)})")

    def batches(self, columns: Sequence[str] | None = None) -> Iterator[pd.DataFrame]:
        """Yield the rows in batches, only ``columns`` (default: keys, allocation and runtime).

        Parameters
        ----------
        columns : sequence of str, optional
            The columns yielded; default: the keys, allocation and runtime.
        """
        columns = list(columns or self.columns)
        if self.kind == "frame":
            yield self.frame[columns]
        elif self.kind == "dask":
            for part in self.ddf[columns].to_delayed():
                yield part.compute()
        elif self.kind == "parquet":
            for batch in _parquet_file(self.path).iter_batches(batch_size=self.batch_rows, columns=columns):
                yield batch.to_pandas()
        else:
            dtypes = {c: str for c in self.by}
            try:
                # every column is parsed (a batch at a time): with usecols pandas lets a line with
                # extra fields through
                with pd.read_csv(self.path, dtype=dtypes, chunksize=self.batch_rows, keep_default_na=False,
                                 na_values=[""], skiprows=self._comment_lines()) as reader:
                    for batch in reader:
                        yield batch[columns]
            except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
                line = re.search(r"line (\d+)", str(exc))
                where = f", line {line[1]}" if line else ""
                raise DataFormatError(f"{self.path}{where}: not a readable CSV table of runs (a line with a "
                                      "different number of fields, or text that is not UTF-8)") from None

    def curve_keys(self) -> pd.DataFrame:
        """Return the distinct curve keys, sorted (one pass over the key columns only)."""
        keys = [b.drop_duplicates() for b in self.batches(self.by)]
        if not keys:
            return pd.DataFrame(columns=self.by)
        return (pd.concat(keys, ignore_index=True).drop_duplicates()
                .sort_values(self.by, kind="stable", na_position="last").reset_index(drop=True))


def _is_dask_frame(obj) -> bool:
    return type(obj).__module__.startswith("dask") and hasattr(obj, "to_delayed")


def _parquet_file(path: Path):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DataFormatError(f"{path}: reading Parquet needs pyarrow: pip install 'workbench[batch]'") from None
    try:
        return pq.ParquetFile(path)
    except Exception:  # pyarrow's own error types (ArrowInvalid, ...) for a file that is not Parquet
        raise DataFormatError(f"{path}: not a readable Parquet file") from None
