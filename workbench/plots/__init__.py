"""Figures: functions that take data (arrays, DataFrames, fitted estimators) and return a
:class:`plotly.graph_objects.Figure`.  No widgets here; :mod:`workbench.ui` wires these
functions to controls.  One module per method, e.g. :mod:`workbench.plots.downey`.
"""
