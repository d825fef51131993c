"""Widget-free views of the dashboards: per method, ``view(state) -> panels``.

A view takes everything a dashboard's panels depend on (a frozen ``<Method>State``: the data
and the control values) and returns what the panels show (a frozen ``<Method>Panels`` of
plotly figures, HTML strings and tidy frames).  The dashboards in :mod:`workbench.ui` only
build the state from their widgets and push the panels back; unit tests call the views
directly.  Nothing here imports ipywidgets: the views work with the library alone.
"""
