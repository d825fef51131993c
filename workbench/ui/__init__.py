"""Dashboards: ipywidgets that wire controls to :mod:`workbench.views` and :mod:`workbench.plots`.

Each notebook in ``notebooks/`` displays one of them in a few lines.  Shared helpers and
the dashboard convention (DOM classes the browser tests rely on) are in
:mod:`workbench.ui.common`.  What a dashboard shows is computed by its widget-free view in
:mod:`workbench.views`.
"""

from workbench.ui.downey_explorer import DowneyExplorer, downey_explorer

__all__ = ["DowneyExplorer", "downey_explorer"]
