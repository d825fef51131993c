"""Tables as a person reads them: one formatter for every table on screen.

Dashboards (through :func:`workbench.views.panels.frame_html`) and notebook cells (through
:func:`table` and :func:`fields_table`, which display as HTML) show data frames with

* no index column (a *named* index is data and becomes the first column),
* headers that say the unit (the caller names them: ``Column("runtime [s]")``),
* integers as integers (a float column whose values are all whole, e.g. counts that pandas
  made ``12.0``, is shown as ``12``),
* percentages with ``%`` (``kind="percent"`` for values already in percent,
  ``kind="fraction"`` for shares such as 0.8369, shown as ``83.7 %``),
* other numbers with ``digits`` significant digits in positional notation, and in
  ``4.09 × 10⁻⁴`` form only when very small or very large (never ``4.089341e-04``),
* a missing value as ``–`` (never ``NaN``), booleans as yes / no, sequences joined with
  commas, and a dataclass as a two-column table of its fields (:func:`fields_table`),
  never its ``repr``.

Everything is HTML-escaped except the title, which callers build as HTML.
"""

from __future__ import annotations

import dataclasses
import html
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["KINDS", "Column", "Table", "fields_table", "format_number", "format_value", "table", "table_html"]

#: How a column is shown (see the module docstring); ``auto`` infers int / number / text /
#: bool from the values.
KINDS = ("auto", "int", "number", "percent", "fraction", "text", "bool")
MISSING = "–"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Column:
    """How to show one column: its header ``label`` (None: the column's name, with its unit in brackets).

    ``kind`` one of :data:`KINDS`; ``digits``: significant digits of a number, decimals of a
    percentage.
    """

    label: str | None = None
    kind: str = "auto"
    digits: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")


def _missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float | np.floating) and math.isnan(value)


def format_number(value: float, digits: int = 4) -> str:
    """Return ``value`` with ``digits`` significant digits, positional unless below 1e-3 or from 1e9 up.

    Whole numbers are shown without decimals; ``nan`` as ``–``.

    Parameters
    ----------
    value : float
        The number.
    digits : int, default 4
        Significant digits.
    """
    if _missing(value):
        return MISSING
    v = float(value)
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    exponent = math.floor(math.log10(abs(v)))
    if exponent >= 9 or exponent < -3:
        mantissa = round(v / 10**exponent, digits - 1)
        if abs(mantissa) >= 10:  # 9.9996 rounded up
            mantissa, exponent = mantissa / 10, exponent + 1
        return f"{mantissa:.{digits - 1}f} × 10{str(exponent).translate(_SUPERSCRIPT)}"
    if v.is_integer():
        return str(int(v))
    return f"{v:.{max(0, digits - 1 - exponent)}f}"


def format_value(value, kind: str = "auto", digits: int | None = None) -> str:
    """Return one cell as text (see the module docstring); ``kind="auto"`` infers it from the value.

    Parameters
    ----------
    value : object
        The cell.
    kind : {"auto", "bool", "int", "number", "percent", "fraction", "text"}, default "auto"
        How to show it; "auto" infers it from the value.
    digits : int, optional
        Significant digits of a number (default 4), decimals of a percentage (default 1).
    """
    if _missing(value):
        return MISSING
    if kind == "auto":
        kind = _kind_of(pd.Series([value], dtype=object))
    if kind == "bool":
        return "yes" if bool(value) else "no"
    if kind == "int":
        return str(int(round(float(value))))
    if kind in ("percent", "fraction"):
        v = float(value) * (100 if kind == "fraction" else 1)
        return f"{v:.{1 if digits is None else digits}f} %" if math.isfinite(v) else MISSING
    if kind == "number":
        return format_number(value, 4 if digits is None else digits)
    if isinstance(value, list | tuple | set | frozenset | np.ndarray):
        return ", ".join(format_value(v) for v in value)
    return str(value)


def _kind_of(values: pd.Series) -> str:
    """Infer the kind of a column from its non-missing values."""
    present = [v for v in values if not _missing(v)]
    if not present:
        return "text"
    if all(isinstance(v, bool | np.bool_) for v in present):
        return "bool"
    if all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_)
           for v in present):
        finite = [float(v) for v in present if math.isfinite(float(v))]
        return "int" if finite and all(v.is_integer() and abs(v) < 1e15 for v in finite) else "number"
    return "text"


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """Return the frame without its index, unless the index is named (then it is its first column)."""
    names = [n for n in frame.index.names if n is not None]
    return frame.reset_index() if names else frame.reset_index(drop=True)


def table_html(frame: pd.DataFrame, columns: Mapping[str, Column] | None = None, title: str = "",
               note: str = "") -> str:
    """Return ``frame`` as a compact HTML table formatted as the module docstring says.

    ``columns``: how to show some columns (by name; the others are inferred and keep their
    names); ``title`` (HTML) goes above, ``note`` (text) below.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    columns : mapping of str to Column, optional
        How to show some columns (by name; the others are inferred and keep their names).
    title : str, default ""
        Title above the table (HTML).
    note : str, default ""
        Note below the table (text).
    """
    columns = dict(columns or {})
    data = _shown(frame)
    head, cells, numeric = [], [], []
    for name in data.columns:
        spec = columns.get(name, Column())
        kind = spec.kind if spec.kind != "auto" else _kind_of(data[name])
        head.append(spec.label if spec.label is not None else str(name))
        cells.append([format_value(v, kind, spec.digits) for v in data[name]])
        numeric.append(kind in ("int", "number", "percent", "fraction"))
    th = "".join(f'<th style="text-align:{"right" if num else "left"}">{html.escape(h)}</th>'
                 for h, num in zip(head, numeric, strict=True))
    rows = "".join(
        "<tr>" + "".join(f'<td style="text-align:{"right" if num else "left"}">{html.escape(col[i])}</td>'
                         for col, num in zip(cells, numeric, strict=True)) + "</tr>"
        for i in range(len(data)))
    top = f"<b>{title}</b>" if title else ""
    bottom = f'<div style="color:#555">{html.escape(note)}</div>' if note else ""
    return (f'<div class="wb-table-box" style="font-size:12px;overflow-x:auto">{top}'
            '<style>.wb-table{border-collapse:collapse}.wb-table td,.wb-table th{padding:1px 8px;'
            'border-bottom:1px solid #eee}</style>'
            f'<table class="wb-table"><thead><tr>{th}</tr></thead><tbody>{rows}</tbody></table>{bottom}</div>')


@dataclass(frozen=True)
class Table:
    """A formatted table for a notebook cell: shown as :func:`table_html`, printed as aligned text."""

    frame: pd.DataFrame
    columns: Mapping[str, Column] = dataclasses.field(default_factory=dict)
    title: str = ""
    note: str = ""

    def _repr_html_(self) -> str:
        return table_html(self.frame, self.columns, self.title, self.note)

    def text(self) -> pd.DataFrame:
        """Return the table as a frame of the strings shown (headers renamed)."""
        data = _shown(self.frame)
        out = {}
        for name in data.columns:
            spec = self.columns.get(name, Column())
            kind = spec.kind if spec.kind != "auto" else _kind_of(data[name])
            out[spec.label if spec.label is not None else str(name)] = [
                format_value(v, kind, spec.digits) for v in data[name]]
        return pd.DataFrame(out)

    def __repr__(self) -> str:
        body = self.text().to_string(index=False)
        return "\n".join(part for part in (self.title and html.unescape(self.title), body, self.note) if part)


def table(frame: pd.DataFrame, columns: Mapping[str, Column] | None = None, title: str = "",
          note: str = "") -> Table:
    """Return ``frame`` as a :class:`Table`: the last expression of a notebook cell shows it formatted.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    columns : mapping of str to Column, optional
        How to show some columns (by name).
    title : str, default ""
        Title above the table (HTML).
    note : str, default ""
        Note below the table (text).
    """
    return Table(frame, dict(columns or {}), title, note)


def fields_table(record, labels: Mapping[str, Column] | None = None, title: str = "") -> Table:
    """Return a dataclass instance (or a mapping) as a two-column table: quantity, value.

    ``labels``: a :class:`Column` per field name (its label names the quantity, its kind
    formats the value); other fields keep their names and inferred formats.

    Parameters
    ----------
    record : dataclass instance or mapping
        The fields.
    labels : mapping of str to Column, optional
        A column per field name (label and format); other fields keep their names.
    title : str, default ""
        Title above the table (HTML).
    """
    items = dataclasses.asdict(record).items() if dataclasses.is_dataclass(record) else dict(record).items()
    labels = dict(labels or {})
    rows = []
    for name, value in items:
        spec = labels.get(name, Column())
        rows.append({"quantity": spec.label if spec.label is not None else name,
                     "value": format_value(value, spec.kind, spec.digits)})
    return Table(pd.DataFrame(rows, columns=["quantity", "value"]), {"value": Column(kind="text")}, title)
