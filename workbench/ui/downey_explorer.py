"""Interactive explorer of the Downey speedup model (ADEPT [Deshmeh2013] Table 1, section 3.3.2).

Wiring only: the model is :mod:`workbench.models.downey`, the figure
:func:`workbench.plots.downey.downey_figure`.  This is the template the other dashboards
copy (see the convention in :mod:`workbench.ui.common`).
"""

from __future__ import annotations

import ipywidgets as widgets

from workbench.models import downey
from workbench.plots.downey import default_n_max, downey_figure, variance_mode
from workbench.ui.common import (
    figure_widget,
    message_panel,
    readout_html,
    rounded,
    show_errors,
    slider,
    update_figure_widget,
)

__all__ = ["DowneyExplorer", "downey_explorer"]

#: Slider limits: A (average parallelism) on a log scale, sigma (variance of parallelism).
A_RANGE = (1.0, 5000.0)
SIGMA_RANGE = (0.0, 20.0)
N_MAX_RANGE = (2.0, 1e6)


class DowneyExplorer(widgets.VBox):
    """Build the Downey explorer's widgets.

    A, sigma and n-range controls, readouts of the derived allocations, and a live
    three-panel figure (speedup with bounds, runtime in model units, efficiency).

    Attributes: ``A`` (the primary slider), ``sigma``, ``auto_range``, ``n_max``, ``log_x``
    (controls), ``readout`` (HTML), ``messages`` (error panel), ``figure`` (LiveFigure).

    Parameters
    ----------
    A : float, default 100.0
        Initial average parallelism.
    sigma : float, default 2.0
        Initial variance of parallelism.
    n_max : float, optional
        Largest n drawn; default: automatic (:func:`~workbench.plots.downey.default_n_max`).
    log_x : bool, default True
        Logarithmic n axis.
    """

    def __init__(self, A: float = 100.0, sigma: float = 2.0, n_max: float | None = None, log_x: bool = True):
        downey.check_parameters(A, sigma)
        # The model is a few thousand flops: update while dragging.
        self.A = slider(
            "A (average parallelism)", A, *A_RANGE, log=True, step=0.01, continuous_update=True, primary=True
        )
        self.sigma = slider("σ (variance of parallelism)", sigma, *SIGMA_RANGE, step=0.05, continuous_update=True)
        self.auto_range = widgets.Checkbox(value=n_max is None, description="n range: 2 × max useful allocation",
                                           indent=False)
        self.n_max = slider(
            "largest n shown", n_max or default_n_max(A, sigma), *N_MAX_RANGE, log=True, step=0.05,
            disabled=n_max is None,
        )
        self.log_x = widgets.Checkbox(value=log_x, description="log n axis", indent=False)
        self.readout = widgets.HTML(layout=widgets.Layout(margin="0 0 0 24px"))
        self.messages = message_panel()
        A, sigma, n_max = self.parameters()
        self.figure = figure_widget(downey_figure(A, sigma, n_max, log_x), primary=True)
        self._update_readout(A, sigma, n_max)

        for control in (self.A, self.sigma, self.auto_range, self.n_max, self.log_x):
            control.observe(self._on_change, names="value")
        controls = widgets.VBox([self.A, self.sigma, self.auto_range, self.n_max, self.log_x])
        super().__init__([widgets.HBox([controls, self.readout]), self.messages, self.figure])

    def parameters(self) -> tuple[float, float, float]:
        """Return the current (A, sigma, n_max), rounded (keyboard steps give 3.4999999999999996)."""
        A, sigma = rounded(self.A.value), round(self.sigma.value, 4)
        n_max = default_n_max(A, sigma) if self.auto_range.value else rounded(self.n_max.value)
        return A, sigma, n_max

    def _on_change(self, change) -> None:
        if change["owner"] is self.n_max and self.auto_range.value:
            return  # moved below, to show the automatic range: nothing new to draw
        with show_errors(self.messages, stale=(self.figure, self.readout)):
            self.n_max.disabled = self.auto_range.value
            A, sigma, n_max = self.parameters()
            if self.auto_range.value:
                self.n_max.value = n_max
            self._update_readout(A, sigma, n_max)
            update_figure_widget(self.figure, downey_figure(A, sigma, n_max, self.log_x.value))

    def _update_readout(self, A: float, sigma: float, n_max: float) -> None:
        mode = variance_mode(sigma)
        self.readout.value = readout_html(
            {
                "mode": f"{mode} variance (σ {'≤' if mode == 'low' else '>'} 1)",
                "max useful allocation": f"{float(downey.max_useful_allocation(A, sigma)):.4g}",
                "processor working set": f"{float(downey.processor_working_set(A, sigma)):.4g}",
                f"S at n = {n_max:.4g}": f"{float(downey.speedup(n_max, A, sigma)):.4g}",
                f"efficiency at n = {n_max:.4g}": f"{float(downey.efficiency(n_max, A, sigma)):.3f}",
            }
        )


def downey_explorer(A: float = 100.0, sigma: float = 2.0, n_max: float | None = None,
                    log_x: bool = True) -> DowneyExplorer:
    """Build the Downey model explorer; display it by making it a cell's last expression.

    Parameters
    ----------
    A : float, default 100.0
        Initial average parallelism.
    sigma : float, default 2.0
        Initial variance of parallelism.
    n_max : float, optional
        Largest n drawn; default: automatic.
    log_x : bool, default True
        Logarithmic n axis.
    """
    return DowneyExplorer(A=A, sigma=sigma, n_max=n_max, log_x=log_x)
