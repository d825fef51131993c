"""FiM-Com dashboard ([Bhimani2019] section 3, Fig. 6 and Fig. 11).

The D -> M -> C -> R queueing model of scatter, broadcast and gather with its service-rate
sliders, against OSU broadcast latencies measured on ORFEO (catalogue ``osu-orfeo``).

Wiring only: the panels are :mod:`workbench.views.fim_com` (widget-free), on top of the
model :func:`workbench.models.fim.simulate_collective`, the station fits and the OSU mapping
(message size <-> data points at 20 B, cores - 1 <-> receivers, station samples) of
:mod:`workbench.evaluation.fim_com` and the figures of :mod:`workbench.plots.fim_com`.
Times in µs.

* Controls: pattern, OSU placement (core/socket/node: whose station fits and measured
  curve are used), message size (the OSU sizes 1 B .. 1 MiB), processes p (receivers,
  cores - 1), replications, seed, and the service parameters of Eqs. 13-16 (log
  sliders); phi follows the pattern's default unless unticked.  The rates start at the
  fits of the chosen placement's station samples; choosing a placement loads its fits,
  *reset to fitted* puts them back after dragging.
* **psi is the primary slider** and the makespan distribution the main figure: psi
  scales every receive time, so moving it always moves the makespans.
* Second live figure: the station CDFs (Fig. 11), measured, fitted and what the
  current simulation drew.
* Time vs N and vs p (Fig. 6) with the measured broadcast beside the model: plain
  figures, recomputed with :data:`SWEEP_REPLICATIONS` replications after each change in
  a background thread (one worker, the latest request wins, results cached per
  parameters), because the broadcast sweeps (up to 1 MiB and 255 receivers) take
  0.7-1.8 s here, depending on the rates -- five to ten times the latency budget of a
  slider.  They are sent once the browser has drawn both live
  figures (see :class:`~workbench.ui.fim_dashboard.FiMDashboard` for why).

Default configuration: a broadcast of 64 KiB (3277 points) to 29 receivers (30 cores) with
``--map-by core`` (OSU's default placement) and that placement's fitted rates: the model is
19.7 % below the measured latency there (86 vs 107 µs), a typical point of the model's
range.  Over the OSU broadcasts of 16 KiB .. 1 MiB on 2-254 cores (3 placements x 7 sizes x
7 core counts, 5 replications) the median |model - measured| / measured is 19 % (core 24 %,
node 19 %, socket 13 %; the core placement's median signed error is -19 %); below 16 KiB the
per-point model does not describe the latency-bound broadcast (median |error| 81 %, up to
+1100 %).  The former default, node placement with 63 receivers, sat at +63 %.

Speed (this 2-core machine, broadcast of 64 KiB = 3277 points to 63 receivers, 20
replications): simulation ~55 ms, main figure ready ~70 ms after the change, all live
panels ~140 ms (``last_main_s``, ``last_update_s``); the default 29 receivers take half.

Without the data mirror the dashboard runs with :data:`DEFAULT_RATES` (the core fits)
and says that the measured side is unavailable.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.evaluation.fim_com import OSU_MAPPINGS as MAPPINGS
from workbench.evaluation.fim_com import (
    OSU_SIZES,
    SWEEP_PROCESSES,
    PlacementData,
    measured_at,
    placement_data,
    size_label,
)
from workbench.io import fetch_dataset
from workbench.models.fim.queueing import PATTERNS, CollectiveSimulation, default_phi
from workbench.models.fim.service_fit import rates_from_fits
from workbench.ui.common import (
    FitCache,
    NamedFigures,
    QuietChanges,
    figure_widget,
    message_panel,
    placeholder_figure,
    readout_html,
    rounded,
    show_errors,
    show_message,
    slider,
)
from workbench.views.fim_com import (
    DEFAULT_RATES,
    RATE_NAMES,
    SWEEP_REPLICATIONS,
    VARIES,
    FiMComState,
    fim_com_view,
    fit_table_html,
    sweep_summary,
    sweep_view,
)

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_RATES",
    "MAPPINGS",
    "OSU_SIZES",
    "SWEEP_PROCESSES",
    "SWEEP_REPLICATIONS",
    "FiMComDashboard",
    "fim_com_dashboard",
    "measured_at",
    "size_label",
]

#: The initial configuration (see the module docstring for why this one).
DEFAULT_CONFIG = {"pattern": "broadcast", "mapping": "core", "size_bytes": 65536, "processes": 29}
_RATE_SLIDERS = {  # name: (label, min, max), in the order of RATE_NAMES
    "zeta_min": ("ζ_min (D rate, points/µs)", 1.0, 1e5),
    "zeta_max": ("ζ_max (D rate, points/µs)", 1.0, 1e5),
    "metadata_coef": ("metadata coef (M, µs · ln χ)", 1e-6, 1.0),
    "eta": ("η (C mean, µs)", 1e-3, 1e3),
    "psi": ("ψ (R mean per point, µs)", 1e-6, 1.0),
}
_WIDE = {"description_width": "initial"}


def _check_choices(pattern: str, mapping: str, size_bytes: int) -> None:
    if pattern not in PATTERNS:
        raise ValidationError(f"pattern must be one of {', '.join(PATTERNS)}, got {pattern!r}")
    if mapping not in MAPPINGS:
        raise ValidationError(f"mapping (OSU placement) must be one of {', '.join(MAPPINGS)}, got {mapping!r}")
    if size_bytes not in OSU_SIZES:
        raise ValidationError(f"size_bytes must be one of the OSU sizes {OSU_SIZES}, got {size_bytes}")


def _load_osu(notice: widgets.HTML) -> pd.DataFrame | None:
    """Return the osu-orfeo frame, or None with a warning in ``notice`` (no data mirror)."""
    try:
        return fetch_dataset("osu-orfeo").frame
    except DatasetNotFoundError as exc:
        rates = ", ".join(f"{k} = {v:g}" for k, v in DEFAULT_RATES.items())
        show_message(notice, f"The measured OSU broadcast data (catalogue osu-orfeo) are unavailable, so the measured "
                             f"side (latencies, station samples, fits) is not shown: {str(exc).split(';')[0]}.\n"
                             f"The model runs with the core placement's fits: {rates}.", kind="warning")
        return None


def _load_extrap() -> pd.DataFrame | None:
    """Return the Extra-P MPI statistics (measured repetition spreads), None without the mirror."""
    try:
        return fetch_dataset("extrap-mpi").frame
    except DatasetNotFoundError:
        return None


class FiMComDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Controls, readouts, two live figures.

    Makespan distribution (main) and station CDFs -- and the time-vs-N / time-vs-p panels.

    Attributes: ``pattern``, ``mapping``, ``size`` (bytes), ``processes``, ``replications``,
    ``seed``, ``zeta_min``, ``zeta_max``, ``metadata_coef``, ``eta``, ``psi`` (primary
    slider), ``phi``, ``phi_default``, ``per_point``, ``reset`` (controls); ``figure``
    (main LiveFigure), ``cdf`` (LiveFigure); ``vs_n_out``, ``vs_p_out`` (LiveFigures) and
    the figures they show in ``figures``; ``readout``, ``fit_table``, ``sweep_status``
    (HTML); ``messages`` (errors of the controls), ``sweep_messages``, ``notice`` (about
    the data); ``simulation`` (the last :class:`CollectiveSimulation`), ``osu`` (the
    osu-orfeo frame, None without the mirror), ``last_main_s`` (change ->
    main figure updated), ``last_update_s`` (the whole synchronous refresh).

    Parameters
    ----------
    pattern : {"scatter", "broadcast", "gather"}, default "broadcast"
        The collective simulated.
    mapping : str, default "core"
        The OSU placement whose fitted rates and measurements are used.
    size_bytes : int, default 65536
        Message size, bytes.
    processes : int, default 29
        Receivers (or senders).
    replications : int, default 20
        Simulations per configuration.
    seed : int, default 0
        Seed of the simulations.
    osu : pandas.DataFrame, optional
        OSU latencies of your own; default: the catalogue's.
    """

    def __init__(self, pattern: str = DEFAULT_CONFIG["pattern"], mapping: str = DEFAULT_CONFIG["mapping"],
                 size_bytes: int = DEFAULT_CONFIG["size_bytes"], processes: int = DEFAULT_CONFIG["processes"],
                 replications: int = 20, seed: int = 0, osu: pd.DataFrame | None = None):
        _check_choices(pattern, mapping, size_bytes)
        self.messages, self.sweep_messages, self.notice = message_panel(), message_panel(), message_panel()
        self._sim_cache = FitCache(64)
        self._sweep_cache = FitCache(64)  # touched only by the sweep thread
        self._placements: dict[str, PlacementData] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._sweep_state: FiMComState | None = None
        self._sweep_future: Future | None = None
        self.figures: dict[str, go.Figure] = {}
        self.simulation: CollectiveSimulation | None = None
        self.measured_row: pd.Series | None = None
        self.last_main_s = self.last_update_s = float("nan")
        self.osu = osu if osu is not None else _load_osu(self.notice)
        self.extrap = _load_extrap() if self.osu is not None else None

        self._build_controls(pattern, mapping, size_bytes, processes, replications, seed)
        self.readout, self.fit_table, self.sweep_status = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.figure = figure_widget(placeholder_figure("No simulation yet"), primary=True)
        self.cdf = figure_widget(placeholder_figure("No station CDFs yet"), name="cdf")
        self.vs_n_out, self.vs_p_out = (figure_widget(placeholder_figure(""), name=name, width="50%")
                                        for name in ("vs_n", "vs_p"))
        with show_errors(self.messages):
            self._refresh_live()

        for control in (self.pattern, self.size, self.processes, self.replications, self.seed, self.phi_default,
                        self.phi, *(getattr(self, n) for n in RATE_NAMES)):
            control.observe(self._on_change, names="value")
        self.mapping.observe(self._on_mapping, names="value")
        self.per_point.observe(self._on_per_point, names="value")
        self.reset.on_click(self._on_reset)
        super().__init__(self._layout())
        with show_errors(self.sweep_messages, stale=(self.vs_n_out, self.vs_p_out)):
            self._request_sweeps()

    def _build_controls(self, pattern: str, mapping: str, size_bytes: int, processes: int, replications: int,
                        seed: int) -> None:
        self.pattern = widgets.ToggleButtons(options=list(PATTERNS), value=pattern, description="pattern",
                                             style={**_WIDE, "button_width": "90px"})
        self.mapping = widgets.ToggleButtons(options=list(MAPPINGS), value=mapping, description="OSU placement",
                                             disabled=self.osu is None, style={**_WIDE, "button_width": "70px"})
        self.size = widgets.SelectionSlider(options=[(size_label(s), s) for s in OSU_SIZES], value=size_bytes,
                                            description="message size", continuous_update=False, style=_WIDE,
                                            layout=widgets.Layout(width="420px"))
        self.processes = slider("p (receivers = cores - 1)", processes, 1, 255, integer=True)
        self.replications = slider("replications", replications, 1, 200, integer=True)
        self.seed = widgets.BoundedIntText(value=seed, min=0, max=2**31 - 1, description="seed", style=_WIDE,
                                           layout=widgets.Layout(width="180px"))
        start = dict(DEFAULT_RATES)
        with show_errors(self.messages):
            start = self._fitted_rates(mapping)
        for name, (label, lo, hi) in _RATE_SLIDERS.items():
            # exponent readouts: d3's ".4g" writes 5.7e-5 as 0.00005700, too wide for the readout
            setattr(self, name, slider(label, start[name], lo, hi, log=True, primary=name == "psi",
                                       readout_format=".4g" if name.startswith("zeta") or name == "eta" else ".3e"))
        self.phi_default = widgets.Checkbox(value=True, description="φ = pattern default", indent=False,
                                            layout=widgets.Layout(width="160px"))
        self.phi = slider("φ (simultaneous receivers)", default_phi(pattern, processes), 0.1, 1000.0, log=True,
                          disabled=True)
        self.reset = widgets.Button(description="reset to fitted", icon="undo", layout=widgets.Layout(width="150px"),
                                    tooltip="put back the rates fitted to the chosen placement's OSU station samples")
        self.per_point = widgets.Checkbox(value=True, description="time per data point (Fig. 6)", indent=False)

    def _layout(self) -> list[widgets.Widget]:
        h = widgets.HTML
        rates = widgets.VBox([*(getattr(self, n) for n in RATE_NAMES), widgets.HBox([self.phi, self.phi_default]),
                              self.reset])
        setup = widgets.VBox([self.pattern, self.mapping, self.size, self.processes, self.replications, self.seed])
        return [
            self.notice,
            widgets.HBox([setup, rates]),
            self.messages, self.readout,
            h("<h4>Communication time (makespan) over the replications</h4>"), self.figure,
            h("<h4>Station service times (paper Fig. 11): measured, fitted (Eqs. 13-16), simulated</h4>"),
            self.cdf, self.fit_table,
            h("<h4>Communication time vs data points N and vs processes p (paper Fig. 6)</h4>"),
            widgets.HBox([self.per_point, self.sweep_status]), self.sweep_messages,
            widgets.HBox([self.vs_n_out, self.vs_p_out]),
        ]

    # ------------------------------------------------------------------ data
    def measured(self, mapping: str) -> PlacementData | None:
        """Fits, curve and sample provenance of one OSU placement (None without data).

        Parameters
        ----------
        mapping : str
            The OSU placement.
        """
        if self.osu is None:
            return None
        if mapping not in self._placements:
            self._placements[mapping] = placement_data(self.osu, mapping)
        return self._placements[mapping]

    def _fitted_rates(self, mapping: str) -> dict[str, float]:
        data = self.measured(mapping)
        return rates_from_fits(data.fits) if data is not None else dict(DEFAULT_RATES)

    # ------------------------------------------------------------------ model
    def state(self) -> FiMComState:
        """Return the controls and the chosen placement's data (log-slider values rounded to 4 significant digits)."""
        return FiMComState(
            pattern=self.pattern.value, size_bytes=int(self.size.value), processes=int(self.processes.value),
            replications=int(self.replications.value), seed=int(self.seed.value),
            rates=tuple((name, rounded(getattr(self, name).value, 4)) for name in RATE_NAMES),
            phi=None if self.phi_default.value else rounded(self.phi.value, 4), mapping=self.mapping.value,
            per_point=bool(self.per_point.value), placement=self.measured(self.mapping.value), extrap=self.extrap)

    def parameters(self) -> dict:
        """Keyword arguments of :func:`~workbench.models.fim.queueing.simulate_collective` from the controls."""
        return self.state().parameters()

    # ------------------------------------------------------------------ refresh
    @property
    def panels(self) -> tuple:
        """The panels that follow the controls (the sweeps follow them in the background)."""
        return (self.figure, self.cdf, self.readout, self.vs_n_out, self.vs_p_out)

    def _refresh_live(self) -> None:
        """Simulate the controls' state and show the live panels (the main figure first)."""
        start = time.perf_counter()
        state = self.state()
        self.fit_table.value = fit_table_html(state.placement)
        panels = fim_com_view(state, self._sim_cache)
        self.simulation, self.measured_row = panels.simulation, panels.measured_row
        self.figure.update(panels.main)
        self.last_main_s = time.perf_counter() - start
        self.cdf.update(panels.cdf)
        self.last_update_s = time.perf_counter() - start
        self.readout.value = readout_html({**panels.readout, "redraw": (
            f"main figure {self.last_main_s * 1000:.0f} ms, all live panels {self.last_update_s * 1000:.0f} ms")})

    def _refresh(self) -> None:
        self._refresh_live()
        self._request_sweeps()

    def _applied(self, change) -> None:
        """Apply ``change()`` and refresh.

        On an error mark the panels out of date and drop the pending sweeps (they were
        asked for the previous settings).
        """
        ok = False
        with show_errors(self.messages, stale=self.panels):
            change()
            ok = True
        if not ok:
            self._sweep_state = None  # a sweep still running for the previous settings is not shown
            self.sweep_status.value = ""

    def _on_change(self, change) -> None:
        if self._quiet:
            return

        def apply():
            if self.phi_default.value:
                with self._quietly():
                    self.phi.value = default_phi(self.pattern.value, int(self.processes.value))
            self.phi.disabled = self.phi_default.value
            self._refresh()

        self._applied(apply)

    def _set_rates(self, rates: dict[str, float]) -> None:
        with self._quietly():
            for name in RATE_NAMES:
                getattr(self, name).value = rates[name]

    def _on_mapping(self, change) -> None:
        if self._quiet:
            return
        rates = None
        with show_errors(self.messages):
            rates = self._fitted_rates(change["new"])
        if rates is None:  # the placement's fits failed: nothing changed, the previous one stays
            if change["old"] is not None:
                with self._quietly():
                    self.mapping.value = change["old"]
            return

        def apply():
            self._set_rates(rates)
            self._refresh()

        self._applied(apply)

    def _on_reset(self, _button=None) -> None:
        def apply():
            self._set_rates(self._fitted_rates(self.mapping.value))
            self._refresh()

        self._applied(apply)

    def _on_per_point(self, change) -> None:
        self._request_sweeps()

    # ------------------------------------------------------------------ sweeps
    def _request_sweeps(self) -> None:
        """Ask the sweep thread for the time-vs-N and time-vs-p panels of the current controls."""
        state = replace(self.state(), replications=SWEEP_REPLICATIONS)
        if state == self._sweep_state:
            return
        self._sweep_state = state
        self.sweep_status.value = "<i>computing the sweeps …</i>"
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fim-com-sweeps")
        self._sweep_future = self._executor.submit(self._run_sweeps, state)

    def _run_sweeps(self, state: FiMComState) -> None:
        """Sweep thread: compute (or reuse) both sweeps, then show them if ``state`` is still the latest.

        Stale requests stop before and between the sweeps.
        """
        start = time.perf_counter()
        with show_errors(self.sweep_messages, stale=(self.vs_n_out, self.vs_p_out)):
            summaries = {}
            for vary in VARIES:
                if state != self._sweep_state:
                    return
                summaries[vary] = sweep_summary(state, vary, self._sweep_cache)
            if state != self._sweep_state:
                return
            panels = sweep_view(state, summaries)
            self._show("vs_n", self.vs_n_out, panels.vs_n)
            self._show("vs_p", self.vs_p_out, panels.vs_p)
            self.sweep_status.value = (f"<span style='font-size:12px;color:#555'>sweeps: {SWEEP_REPLICATIONS} "
                                       f"replications per point, {time.perf_counter() - start:.2f} s</span>")

    def wait_for_sweeps(self, timeout: float | None = 60) -> None:
        """Block until the last requested sweeps are shown (tests, scripts).

        Parameters
        ----------
        timeout : float or None, default 60
            Longest wait, seconds (None: no limit).
        """
        if self._sweep_future is not None:
            self._sweep_future.result(timeout)


def fim_com_dashboard(**kwargs) -> FiMComDashboard:
    """Build the FiM-Com dashboard; display it as a cell's last expression.

    Keyword arguments set the initial controls (``pattern``, ``mapping``, ``size_bytes``,
    ``processes``, ``replications``, ``seed``) or pass an OSU frame (``osu=``).

    Parameters
    ----------
    **kwargs
        Settings of :class:`FiMComDashboard`.
    """
    return FiMComDashboard(**kwargs)
