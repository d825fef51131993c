"""Layout helpers shared by the figure modules: several figures as one."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

__all__ = ["side_by_side"]


def side_by_side(figures: Sequence[go.Figure], titles: Sequence[str] | None = None,
                 widths: Sequence[float] | None = None) -> go.Figure:
    """Place figures next to each other as subplots of one figure (one FigureWidget instead of several).

    Axis types, titles and ranges are kept, legends are merged.

    Parameters
    ----------
    figures : sequence of plotly.graph_objects.Figure
        The figures, left to right.
    titles : sequence of str or None, default None
        Subplot titles (None: the figures' own).
    widths : sequence of float or None, default None
        Relative column widths (None: equal).
    """
    titles = list(titles) if titles is not None else [f.layout.title.text or "" for f in figures]
    out = make_subplots(rows=1, cols=len(figures), subplot_titles=titles, column_widths=widths,
                        horizontal_spacing=0.08)
    for col, f in enumerate(figures, start=1):
        for trace in f.data:
            out.add_trace(trace, row=1, col=col)
        for axis, update in (("xaxis", out.update_xaxes), ("yaxis", out.update_yaxes)):
            a = getattr(f.layout, axis)
            update(type=a.type, range=a.range, title_text=a.title.text, row=1, col=col)
    out.update_layout(barmode="group", height=max((f.layout.height or 450) for f in figures),
                      margin=dict(l=60, r=20, t=70, b=50), legend=dict(orientation="h", yanchor="top", y=-0.16, x=0))
    return out
