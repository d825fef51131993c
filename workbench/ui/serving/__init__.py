"""The parts of the dashboards' server that plug into Voila (:mod:`workbench.ui.serve` runs them).

- :mod:`.kernels` — the kernel cap from memory, :class:`~.kernels.WorkbenchKernelManager`
  (admission of pages, culling of closed ones) and the class pool around Voila's preheating;
- :mod:`.voila_internals` — the overrides of Voila's private members (contents manager, kernel
  pool, templates without CDN requests) and the check that those members are as expected;
- :mod:`.pages` — what the server answers itself: the course page at the root, the
  screenshots, the capped render handler and the identity provider.
- :mod:`.options` — the command line: :class:`~.options.ServeOptions`, their parsing and
  the command that serves them.

Every public name is also importable from :mod:`workbench.ui.serve` (``voila.json`` names
them there).
"""

__all__ = ["ServeError"]


class ServeError(Exception):
    """A configuration the server refuses to start with (the message says what to do)."""
