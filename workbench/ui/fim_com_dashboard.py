"""FiM-Com dashboard (Bhimani et al. 2019, section 3, Fig. 6 and Fig. 11): the D -> M ->
C -> R queueing model of scatter, broadcast and gather with its service-rate sliders,
against OSU broadcast latencies measured on ORFEO (catalogue ``osu-orfeo``).

Wiring only: the model is :func:`workbench.models.fim.simulate_collective`, the station
fits and the OSU mapping (message size <-> data points at 20 B, cores - 1 <-> receivers,
station samples) are :mod:`workbench.evaluation.fim_com`, the figures
:mod:`workbench.plots.fim_com`.  Times in µs.

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

import html
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DatasetNotFoundError, ValidationError
from workbench.evaluation.fim_com import (
    POINT_BYTES,
    extrap_spread,
    fit_stations,
    osu_collective_curve,
    osu_station_samples,
    relative_spread,
    summarize_sweep,
    sweep_collective,
)
from workbench.io import fetch_dataset
from workbench.models.fim.queueing import PATTERNS, CollectiveSimulation, default_phi, simulate_collective
from workbench.models.fim.service_fit import StationFit, rates_from_fits
from workbench.plots.fim_com import makespan_figure, station_cdf_figure, station_fit_frame, sweep_figure
from workbench.ui.common import (
    FitCache,
    QuietChanges,
    NamedFigures,
    figure_widget,
    frame_html,
    message_panel,
    placeholder_figure,
    readout_html,
    rounded,
    show_errors,
    show_message,
    slider,
    update_figure_widget,
)

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_RATES",
    "MAPPINGS",
    "OSU_SIZES",
    "SWEEP_REPLICATIONS",
    "FiMComDashboard",
    "fim_com_dashboard",
    "measured_at",
    "size_label",
]

#: OSU message sizes of the osu-orfeo broadcast files: 1 B .. 1 MiB.
OSU_SIZES = tuple(int(2**k) for k in range(21))
#: OSU process placements (``--map-by``).
MAPPINGS = ("core", "socket", "node")
#: Rates used without the data mirror: the core placement's station fits rounded to 2-3
#: digits (points/µs for zeta, µs otherwise); a test keeps them in step with the fits.
DEFAULT_RATES = {"zeta_min": 425.0, "zeta_max": 890.0, "metadata_coef": 1.65e-5, "eta": 0.54, "psi": 0.00087}
#: The initial configuration (see the module docstring for why this one).
DEFAULT_CONFIG = {"pattern": "broadcast", "mapping": "core", "size_bytes": 65536, "processes": 29}
#: Replications per point of the time-vs-N and time-vs-p sweeps.
SWEEP_REPLICATIONS = 3
#: Process counts of the time-vs-p sweep (the current p is added).
SWEEP_PROCESSES = (1, 2, 3, 5, 8, 13, 20, 31, 47, 63, 95, 127, 191, 255)
#: Service-time samples kept from the simulation for the CDF panel.
SAMPLE_LIMIT = 2000
#: Extra-P collective with the measured repetition spread of each pattern (no scatter there).
_EXTRAP_COLLECTIVE = {"broadcast": "MPI_Bcast", "gather": "MPI_Gather"}
_RATE_SLIDERS = {  # name: (label, min, max)
    "zeta_min": ("ζ_min (D rate, points/µs)", 1.0, 1e5),
    "zeta_max": ("ζ_max (D rate, points/µs)", 1.0, 1e5),
    "metadata_coef": ("metadata coef (M, µs · ln χ)", 1e-6, 1.0),
    "eta": ("η (C mean, µs)", 1e-3, 1e3),
    "psi": ("ψ (R mean per point, µs)", 1e-6, 1.0),
}


def size_label(size_bytes: int) -> str:
    """``"64 KiB = 3277 points"``: a message size and its data points at 20 B each."""
    value, unit = float(size_bytes), "B"
    for bigger in ("KiB", "MiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    points = max(1, int(np.ceil(size_bytes / POINT_BYTES)))
    return f"{value:g} {unit} = {points} point{'s' if points > 1 else ''}"


def measured_at(curve: pd.DataFrame | None, size_bytes: int, processes: int) -> pd.Series | None:
    """The measured OSU row (:func:`~workbench.evaluation.fim_com.osu_collective_curve`)
    of ``size_bytes`` at the core count nearest ``processes + 1`` (the smaller on a tie:
    socket and node placements were measured on 2, 6, 10, ... cores only), or None."""
    if curve is None:
        return None
    rows = curve[curve["size_bytes"] == size_bytes]
    if rows.empty:
        return None
    distance = (rows["cores"] - (processes + 1)).abs()
    return rows.loc[distance.sort_values(kind="stable").index[0]]


@dataclass(frozen=True)
class _Measured:
    """What one OSU placement gives the dashboard."""

    fits: dict[str, StationFit]
    curve: pd.DataFrame
    provenance: dict[str, str]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class _SweepRequest:
    """Everything the sweep panels depend on (compared to skip stale work)."""

    pattern: str
    rates: tuple[tuple[str, float], ...]
    phi: float | None
    seed: int
    size_bytes: int
    n_jobs: int
    processes: int
    mapping: str
    per_point: bool


class FiMComDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Controls, readouts, two live figures -- makespan distribution (main) and station
    CDFs -- and the time-vs-N / time-vs-p panels.

    Attributes: ``pattern``, ``mapping``, ``size`` (bytes), ``processes``, ``replications``,
    ``seed``, ``zeta_min``, ``zeta_max``, ``metadata_coef``, ``eta``, ``psi`` (primary
    slider), ``phi``, ``phi_default``, ``per_point``, ``reset`` (controls); ``figure``
    (main LiveFigure), ``cdf`` (LiveFigure); ``vs_n_out``, ``vs_p_out`` (LiveFigures) and
    the figures they show in ``figures``; ``readout``, ``fit_table``, ``sweep_status``
    (HTML); ``messages`` (errors of the controls), ``sweep_messages``, ``notice`` (about
    the data); ``simulation`` (the last :class:`CollectiveSimulation`), ``osu`` (the
    osu-orfeo frame, None without the mirror), ``last_main_s`` (change ->
    main figure updated), ``last_update_s`` (the whole synchronous refresh).
    """

    def __init__(self, pattern: str = DEFAULT_CONFIG["pattern"], mapping: str = DEFAULT_CONFIG["mapping"],
                 size_bytes: int = DEFAULT_CONFIG["size_bytes"], processes: int = DEFAULT_CONFIG["processes"],
                 replications: int = 20, seed: int = 0, osu: pd.DataFrame | None = None):
        self.messages = message_panel()
        self.sweep_messages = message_panel()
        self.notice = message_panel()
        self._sim_cache = FitCache(64)
        self._sweep_cache = FitCache(64)  # touched only by the sweep thread
        self._measured: dict[str, _Measured] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._sweep_request: _SweepRequest | None = None
        self._sweep_future: Future | None = None
        self.figures: dict[str, go.Figure] = {}
        self.simulation: CollectiveSimulation | None = None
        self.measured_row: pd.Series | None = None
        self.last_main_s = self.last_update_s = float("nan")
        self.osu = osu if osu is not None else self._load_osu()
        self.extrap = self._load_extrap() if self.osu is not None else None

        if pattern not in PATTERNS:
            raise ValidationError(f"pattern must be one of {', '.join(PATTERNS)}, got {pattern!r}")
        if mapping not in MAPPINGS:
            raise ValidationError(f"mapping (OSU placement) must be one of {', '.join(MAPPINGS)}, got {mapping!r}")
        wide = {"description_width": "initial"}
        self.pattern = widgets.ToggleButtons(options=list(PATTERNS), value=pattern, description="pattern",
                                             style={**wide, "button_width": "90px"})
        self.mapping = widgets.ToggleButtons(options=list(MAPPINGS), value=mapping, description="OSU placement",
                                             disabled=self.osu is None, style={**wide, "button_width": "70px"})
        if size_bytes not in OSU_SIZES:
            raise ValidationError(f"size_bytes must be one of the OSU sizes {OSU_SIZES}, got {size_bytes}")
        self.size = widgets.SelectionSlider(options=[(size_label(s), s) for s in OSU_SIZES], value=size_bytes,
                                            description="message size", continuous_update=False, style=wide,
                                            layout=widgets.Layout(width="420px"))
        self.processes = slider("p (receivers = cores - 1)", processes, 1, 255, integer=True)
        self.replications = slider("replications", replications, 1, 200, integer=True)
        self.seed = widgets.BoundedIntText(value=seed, min=0, max=2**31 - 1, description="seed", style=wide,
                                           layout=widgets.Layout(width="180px"))
        start = dict(DEFAULT_RATES)
        with show_errors(self.messages):
            if self.osu is not None:
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
        self.readout = widgets.HTML()
        self.fit_table = widgets.HTML()
        self.sweep_status = widgets.HTML()
        self.vs_n_out, self.vs_p_out = (figure_widget(placeholder_figure(""), name=name, width="50%")
                                        for name in ("vs_n", "vs_p"))

        main = cdf = None
        with show_errors(self.messages):
            self._show_fits()
            start = time.perf_counter()
            main = self._main_figure()
            self.last_main_s = time.perf_counter() - start
            cdf = self._cdf_figure()
            self.last_update_s = time.perf_counter() - start
            self.readout.value = self._readout(self.simulation, self.measured_row)
        self.figure = figure_widget(main if main is not None else placeholder_figure("No simulation yet"),
                                    primary=True)
        self.cdf = figure_widget(cdf if cdf is not None else placeholder_figure("No station CDFs yet"), name="cdf")

        for control in (self.pattern, self.size, self.processes, self.replications, self.seed, self.phi_default,
                        self.phi, *(getattr(self, n) for n in _RATE_SLIDERS)):
            control.observe(self._on_change, names="value")
        self.mapping.observe(self._on_mapping, names="value")
        self.per_point.observe(self._on_per_point, names="value")
        self.reset.on_click(self._on_reset)

        h = widgets.HTML
        rates = widgets.VBox([*(getattr(self, n) for n in _RATE_SLIDERS), widgets.HBox([self.phi, self.phi_default]),
                              self.reset])
        setup = widgets.VBox([self.pattern, self.mapping, self.size, self.processes, self.replications, self.seed])
        super().__init__([
            self.notice,
            widgets.HBox([setup, rates]),
            self.messages, self.readout,
            h("<h4>Communication time (makespan) over the replications</h4>"), self.figure,
            h("<h4>Station service times (paper Fig. 11): measured, fitted (Eqs. 13-16), simulated</h4>"),
            self.cdf, self.fit_table,
            h("<h4>Communication time vs data points N and vs processes p (paper Fig. 6)</h4>"),
            widgets.HBox([self.per_point, self.sweep_status]), self.sweep_messages,
            widgets.HBox([self.vs_n_out, self.vs_p_out]),
        ])
        self._request_sweeps()

    # ------------------------------------------------------------------ data
    def _load_osu(self) -> pd.DataFrame | None:
        try:
            return fetch_dataset("osu-orfeo").frame
        except DatasetNotFoundError as exc:
            rates = ", ".join(f"{k} = {v:g}" for k, v in DEFAULT_RATES.items())
            show_message(self.notice, f"The measured OSU broadcast data (catalogue osu-orfeo) are unavailable, so the "
                                      f"measured side (latencies, station samples, fits) is not shown: "
                                      f"{str(exc).split(';')[0]}.\nThe model runs with the node placement's fits: "
                                      f"{rates}.", kind="warning")
            return None

    @staticmethod
    def _load_extrap() -> pd.DataFrame | None:
        try:
            return fetch_dataset("extrap-mpi").frame
        except DatasetNotFoundError:
            return None

    def _spread_row(self, sim: CollectiveSimulation) -> str:
        """The model's repetition spread beside Extra-P's measured one (IQR / median)."""
        model = relative_spread(sim.makespan)["rel_iqr"]
        collective = _EXTRAP_COLLECTIVE.get(sim.pattern)
        if self.extrap is None or collective is None:
            return f"model {model:.3g}; no measured {sim.pattern} spread in the Extra-P statistics"
        spread = extrap_spread(self.extrap, collective)
        ranks = spread["ranks"].unique()
        nearest = int(ranks[np.argmin(np.abs(ranks - (sim.processes + 1)))])
        measured = ", ".join(f"{r.library} {r.rel_iqr:.3g}" for r in spread[spread["ranks"] == nearest].itertuples())
        return f"model {model:.3g}; Extra-P {collective} at {nearest} ranks: {measured}"

    def measured(self, mapping: str) -> _Measured | None:
        """Fits, curve and sample provenance of one OSU placement (None without data)."""
        if self.osu is None:
            return None
        if mapping not in self._measured:
            samples = osu_station_samples(self.osu, mapping=mapping)
            self._measured[mapping] = _Measured(fit_stations(samples), osu_collective_curve(self.osu, mapping=mapping),
                                                samples.provenance, tuple(samples.warnings))
        return self._measured[mapping]

    def _fitted_rates(self, mapping: str) -> dict[str, float]:
        data = self.measured(mapping)
        return rates_from_fits(data.fits) if data is not None else dict(DEFAULT_RATES)

    def _show_fits(self) -> None:
        data = self.measured(self.mapping.value)
        if data is None:
            self.fit_table.value = "<i>No station fits: the measured OSU data are unavailable.</i>"
            return
        notes = "".join(f"<li><b>{s}</b>: {html.escape(text)}</li>" for s, text in data.provenance.items())
        notes += "".join(f"<li>{html.escape(w)}</li>" for w in data.warnings)
        self.fit_table.value = (
            frame_html(station_fit_frame(data.fits), f"Station fits, OSU broadcast, placement {self.mapping.value} "
                                                     "(χ² goodness of fit: a small p-value rejects the family)")
            + f"<details style='font-size:12px'><summary>how the samples were derived</summary><ul>{notes}</ul>"
              "</details>")

    # ------------------------------------------------------------------ model
    def parameters(self) -> dict:
        """Keyword arguments of :func:`simulate_collective` from the controls (log-slider
        values rounded to 4 significant digits)."""
        params = {name: rounded(getattr(self, name).value, 4) for name in _RATE_SLIDERS}
        n_jobs = max(1, int(np.ceil(self.size.value / POINT_BYTES)))
        return dict(pattern=self.pattern.value, n_jobs=n_jobs, processes=int(self.processes.value),
                    phi=None if self.phi_default.value else rounded(self.phi.value, 4),
                    seed=int(self.seed.value), replications=int(self.replications.value), **params)

    def _simulate(self, params: dict) -> CollectiveSimulation:
        key = tuple(sorted(params.items()))
        return self._sim_cache.get(key, lambda: simulate_collective(**params, sample_limit=SAMPLE_LIMIT))

    def _main_figure(self) -> go.Figure:
        """Simulate (or reuse the cached run) and draw the makespan distribution."""
        sim = self._simulate(self.parameters())
        self.simulation = sim
        row = measured_at(self._curve(), self.size.value, sim.processes) if sim.pattern == "broadcast" else None
        self.measured_row = row
        return makespan_figure(sim, None if row is None else float(row["latency_us"]))

    def _cdf_figure(self) -> go.Figure:
        data = self.measured(self.mapping.value)
        return station_cdf_figure(data.fits if data is not None else None, self.simulation)

    def _curve(self) -> pd.DataFrame | None:
        data = self.measured(self.mapping.value)
        return None if data is None else data.curve

    def _readout(self, sim: CollectiveSimulation, row: pd.Series | None) -> str:
        s = sim.summary()
        finish = sim.station_finish.mean()
        rows = {
            "model makespan": f"{s['mean']:.4g} ± {s['std']:.2g} µs (min {s['min']:.4g}, max {s['max']:.4g}; "
                              f"{sim.replications} replications)",
            "per data point": f"{s['mean'] / sim.n_jobs:.4g} µs ({size_label(self.size.value)})",
            "last departure D, M, C, R": ", ".join(f"{finish[k]:.4g}" for k in ("D", "M", "C", "R")) + " µs",
            "φ used": f"{sim.phi:g}" + (" (pattern default)" if self.phi_default.value else ""),
        }
        if sim.replications >= 4:
            rows["repetition spread (IQR / median)"] = self._spread_row(sim)
        if sim.pattern != "broadcast":
            rows["measured (OSU)"] = "broadcast only: no measured scatter/gather in osu-orfeo"
        elif row is None:
            rows["measured (OSU)"] = "unavailable (no data mirror)"
        else:
            cores = int(row["cores"])
            where = "" if cores == sim.processes + 1 else f", nearest measured to {sim.processes + 1}"
            rows[f"measured OSU bcast ({self.mapping.value}, {cores} cores{where}, basic linear)"] = (
                f"{row['latency_us']:.4g} µs (ranks {row['min_us']:.4g} … {row['max_us']:.4g})")
            rows["model vs measured"] = f"{(s['mean'] - row['latency_us']) / row['latency_us'] * 100:+.1f} %"
        rows["redraw"] = (f"main figure {self.last_main_s * 1000:.0f} ms, all live panels "
                          f"{self.last_update_s * 1000:.0f} ms")
        return readout_html(rows)

    # ------------------------------------------------------------------ refresh
    @property
    def panels(self) -> tuple:
        """The panels that follow the controls (the sweeps follow them in the background)."""
        return (self.figure, self.cdf, self.readout, self.vs_n_out, self.vs_p_out)

    def _refresh(self) -> None:
        start = time.perf_counter()
        update_figure_widget(self.figure, self._main_figure())
        self.last_main_s = time.perf_counter() - start
        update_figure_widget(self.cdf, self._cdf_figure())
        self.last_update_s = time.perf_counter() - start
        self.readout.value = self._readout(self.simulation, self.measured_row)
        self._request_sweeps()

    def _applied(self, change) -> None:
        """Apply ``change()`` and refresh; on an error mark the panels out of date and drop
        the pending sweeps (they were asked for the previous settings)."""
        ok = False
        with show_errors(self.messages, stale=self.panels):
            change()
            ok = True
        if not ok:
            self._sweep_request = None  # a sweep still running for the previous settings is not shown
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
            for name in _RATE_SLIDERS:
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
            self._show_fits()
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
    def _sweep_key(self) -> _SweepRequest:
        p = self.parameters()
        return _SweepRequest(p["pattern"], tuple((name, p[name]) for name in _RATE_SLIDERS), p["phi"], p["seed"],
                             int(self.size.value), p["n_jobs"], p["processes"], self.mapping.value,
                             bool(self.per_point.value))

    def _request_sweeps(self) -> None:
        """Ask the sweep thread for the time-vs-N and time-vs-p panels of the current
        controls."""
        request = self._sweep_key()
        if request == self._sweep_request:
            return
        self._sweep_request = request
        self.sweep_status.value = "<i>computing the sweeps …</i>"
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fim-com-sweeps")
        self._sweep_future = self._executor.submit(self._run_sweeps, request, self._curve())

    def _run_sweeps(self, request: _SweepRequest, curve: pd.DataFrame | None) -> None:
        """Sweep thread: compute (or reuse) both sweeps, then show them if ``request`` is
        still the latest; stale requests stop before and between the sweeps."""
        r = request
        start = time.perf_counter()
        with show_errors(self.sweep_messages, stale=(self.vs_n_out, self.vs_p_out)):
            values = {"n_jobs": sorted({max(1, int(np.ceil(s / POINT_BYTES))) for s in OSU_SIZES}),
                      "processes": sorted({*SWEEP_PROCESSES, r.processes})}
            summaries = {}
            for vary in ("n_jobs", "processes"):
                if r != self._sweep_request:
                    return
                key = (vary, r.pattern, r.rates, r.phi, r.seed, r.processes if vary == "n_jobs" else r.n_jobs)
                summaries[vary] = self._sweep_cache.get(key, lambda vary=vary: summarize_sweep(sweep_collective(
                    r.pattern, vary=vary, values=values[vary], n_jobs=r.n_jobs, processes=r.processes,
                    replications=SWEEP_REPLICATIONS, seed=r.seed, phi=r.phi, **dict(r.rates))))
            if r != self._sweep_request:
                return
            measured_n = measured_p = None
            if curve is not None and r.pattern == "broadcast":
                at = measured_at(curve, r.size_bytes, r.processes)
                measured_n = curve[curve["cores"] == at["cores"]] if at is not None else None
                measured_p = curve[curve["size_bytes"] == r.size_bytes]
            self._show("vs_n", self.vs_n_out, sweep_figure(summaries["n_jobs"], "n_jobs", measured_n, r.per_point))
            self._show("vs_p", self.vs_p_out, sweep_figure(summaries["processes"], "processes", measured_p,
                                                           r.per_point))
            self.sweep_status.value = (f"<span style='font-size:12px;color:#555'>sweeps: {SWEEP_REPLICATIONS} "
                                       f"replications per point, {time.perf_counter() - start:.2f} s</span>")

    def wait_for_sweeps(self, timeout: float | None = 60) -> None:
        """Block until the last requested sweeps are shown (tests, scripts)."""
        if self._sweep_future is not None:
            self._sweep_future.result(timeout)


def fim_com_dashboard(**kwargs) -> FiMComDashboard:
    """Build the FiM-Com dashboard; display it as a cell's last expression.  Keyword
    arguments set the initial controls (``pattern``, ``mapping``, ``size_bytes``,
    ``processes``, ``replications``, ``seed``) or pass an OSU frame (``osu=``)."""
    return FiMComDashboard(**kwargs)
