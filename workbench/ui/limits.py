"""Limits shared by the dashboards (kernel side) and the server (:mod:`workbench.ui.serve`).

Kept in a module that imports nothing, so that neither side pulls in the other's stack.
"""

#: Largest upload a dashboard accepts, per selection of files (checked in Python, with a
#: message in the page; the server's websocket limit is set above it).
UPLOAD_LIMIT_BYTES = 20 * 2**20
