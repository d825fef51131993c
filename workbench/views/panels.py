"""What the views return, built without widgets: HTML readouts and tables, placeholder figures.

Shared by :mod:`workbench.views` (widget-free, for unit tests) and the dashboards
(:mod:`workbench.ui.common` re-exports them).
"""

from __future__ import annotations

import html
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping

import pandas as pd
import plotly.graph_objects as go

from workbench.views.tables import Column, table_html

__all__ = ["FitCache", "frame_html", "placeholder_figure", "readout_html"]


def readout_html(rows: Mapping[str, str]) -> str:
    """Return a compact two-column HTML table of ``label -> value`` readouts (values escaped).

    Parameters
    ----------
    rows : mapping of str to str
        Label -> value.
    """
    body = "".join(
        f'<tr><td style="padding:1px 10px 1px 0;color:#555">{html.escape(k)}</td>'
        f'<td style="padding:1px 0"><b>{html.escape(v)}</b></td></tr>'
        for k, v in rows.items()
    )
    return f'<table style="font-size:13px;line-height:1.5">{body}</table>'


class FitCache:
    """A small least-recently-used cache of fitted models keyed on (data, parameters).

    Parameters
    ----------
    size : int, default 32
        Most values kept.
    """

    def __init__(self, size: int = 32):
        self.size = size
        self._items: OrderedDict = OrderedDict()

    def get(self, key: Hashable, fit: Callable[[], object]):
        """Return the cached value for ``key``, computing it with ``fit()`` on a miss.

        Parameters
        ----------
        key : hashable
            What identifies the value (data and parameters).
        fit : callable
            Computes the value, without arguments.
        """
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = fit()
        self._items[key] = value
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return value


def frame_html(frame: pd.DataFrame, title: str = "", columns: Mapping[str, Column] | None = None) -> str:
    """Return a small DataFrame as a formatted HTML table (:func:`workbench.views.tables.table_html`).

    No index column, integers as integers, 4 significant digits, ``–`` for a missing value;
    ``columns`` names the headers (with units) and the percentages; ``title`` is HTML.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    title : str, default ""
        Title above the table (HTML).
    columns : mapping of str to Column, optional
        Headers (with units) and kinds by column name.
    """
    return table_html(frame, columns, title)


def placeholder_figure(text: str) -> go.Figure:
    """Return an empty figure with a title, shown until the first successful fit.

    Parameters
    ----------
    text : str
        The title.
    """
    fig = go.Figure()
    fig.update_layout(title=dict(text=text), height=420, xaxis=dict(visible=False), yaxis=dict(visible=False))
    return fig
