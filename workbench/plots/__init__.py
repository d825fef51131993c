"""Figures: functions that take data and return a :class:`plotly.graph_objects.Figure`.

The data are arrays, DataFrames or fitted estimators.  No widgets here;
:mod:`workbench.ui` wires these functions to controls.  One module per method, e.g.
:mod:`workbench.plots.downey`; :mod:`workbench.plots.layout` holds what several share.
"""
