"""Fractal extrapolation dashboard (Escobar & Boppana, seed 003): phase shares, log-log
fits per phase and the predicted runtime at a large input against a measured large run.

Wiring only: the method is :func:`workbench.evaluation.fractal.demo_experiment` (on top
of :mod:`workbench.models.fractal`), Table 1 :func:`~workbench.evaluation.fractal.table1_check`,
the figures :mod:`workbench.plots.fractal`.  Times in seconds.

* **Data**: the measured demonstration workload (catalogue ``fractal-demo-local``), a
  SYNTHETIC profile of exact power laws, or an uploaded profile -- a CSV of the profile
  form (``size, phase, time_s[, run, total_s]``) or TAU ``pprof`` text.  A file that
  cannot be read shows a red message and the previous data stay selected.
* **Controls**: the 70 % threshold of the major phases (section 2.1), the convergence
  size C (auto: detected with the tolerance; or one of the measured sizes), delta (auto:
  the k sizes spread up to the largest small run; or a value, each N_i = C + i delta then
  mapped to the nearest measured size), k, the confidence of the prediction band and
  the target size N_Lrg (a measured size, so that the prediction meets a measurement).
* **k is the primary slider** and the log-log fits the main figure: k changes the
  fitted sizes N_i (a point more or less per phase, a new slope).
* Second live figure: predicted vs measured at N_Lrg per phase and in total, with the
  band as error bars and the error in %.  Plain figures: shares vs size (redrawn after a
  change) and Table 1 (static), sent once the browser has drawn both live figures (see
  :class:`~workbench.ui.fim_dashboard.FiMDashboard` for why); the readout with Table 1's
  check beside it.

Speed (this 2-core machine shared with other work, load ~2, the measured demo): a change
of k refits and updates the main figure in ~80-250 ms in the kernel (``last_main_s``;
~70-100 ms for settings seen before, cached), all panels ~50 ms later
(``last_update_s``); slider release -> redrawn figure in the browser ~200-400 ms.
"""

from __future__ import annotations

import html
import io
import time
import warnings
from collections.abc import Callable, Iterable

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DatasetNotFoundError, ValidationError, WorkbenchError, WorkbenchWarning
from workbench.evaluation.fractal import FractalExperiment, demo_experiment, synthetic_profile, table1_check
from workbench.io import fetch_dataset
from workbench.io.profiles import EXAMPLE_HEADER, PPROF_FILE_PATTERN, read_pprof, read_profile_csv
from workbench.models.fractal import validate_profile
from workbench.plots.fractal import loglog_figure, prediction_figure, shares_figure, table1_figure
from workbench.ui.common import (
    FitCache,
    QuietChanges,
    NamedFigures,
    figure_widget,
    frame_html,
    mark_stale,
    message_panel,
    placeholder_figure,
    readout_html,
    rounded,
    show_errors,
    show_message,
    slider,
    update_figure_widget,
)
from workbench.ui.uploads import UploadFormat

__all__ = ["DEMO", "SOURCES", "SYNTHETIC", "UPLOAD", "UPLOAD_FORMAT", "FractalDashboard", "fractal_dashboard",
           "read_profile_uploads"]

DEMO, SYNTHETIC, UPLOAD = "demo", "synthetic", "upload"
AUTO = "auto"
#: Built-in data sources: key -> (label, loader).
SOURCES: dict[str, tuple[str, Callable[[], pd.DataFrame]]] = {
    DEMO: ("measured demo workload (catalogue fractal-demo-local)", lambda: fetch_dataset("fractal-demo-local").frame),
    SYNTHETIC: ("SYNTHETIC power laws: solve N³, sweep N², setup N (exact)", synthetic_profile),
}
#: What the upload button reads (said under the button and after every upload error).
UPLOAD_FORMAT = UploadFormat(
    "The dashboard reads a profile of runs at several input sizes: a UTF-8 CSV (.csv) with one row per phase "
    "per run -- the input size (size), the phase (function) name (phase) and the time spent in it (time_s, "
    "time_ms or time_us), optionally the repetition (run) and the run's whole runtime (total_s, total_ms or "
    "total_us) -- or TAU pprof text outputs, one per run, named profile_<size>[_<run>].txt (pprof does not "
    "record the size). The method needs at least 3 sizes: 2 small ones to fit and a larger one to predict.",
    EXAMPLE_HEADER)


def read_profile_uploads(files: Iterable[tuple[str, bytes]]) -> pd.DataFrame:
    """One profile frame from uploaded (file name, content) pairs.

    ``*.csv`` files are the documented profile CSV (:func:`~workbench.io.read_profile_csv`);
    any other file is TAU ``pprof`` text (:func:`~workbench.io.read_pprof`), whose output
    does not record the input size, so its name must say it:
    ``profile_<size>[_<run>][.<ext>]`` (e.g. ``profile_64.txt``, ``profile_64_2.txt``).
    Several files are combined.  Raises a :class:`~workbench.errors.WorkbenchError` naming
    the first file that cannot be read.
    """
    frames = []
    for name, content in files:
        if name.lower().endswith(".csv"):
            buffer = io.BytesIO(bytes(content))
            buffer.name = name
            frames.append(read_profile_csv(buffer))
            continue
        match = PPROF_FILE_PATTERN.match(name)
        if match is None:
            raise ValidationError(f"{name}: a pprof output must be named profile_<size>[_<run>].txt (pprof does not "
                                  "record the input size), e.g. profile_64.txt; or upload a profile CSV")
        frames.append(read_pprof(bytes(content), size=float(match["size"]), run=int(match["run"] or 0), name=name))
    if not frames:
        raise ValidationError("no file uploaded")
    return validate_profile(pd.concat(frames, ignore_index=True), ", ".join(n for n, _ in files))


class FractalDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Data picker, controls, readout, two live figures -- log-log fits (main) and
    predicted vs measured -- the shares-vs-size panel and Table 1.

    Attributes: ``source``, ``upload`` (data); ``threshold``, ``tolerance``, ``C``,
    ``delta_auto``, ``delta``, ``k`` (primary slider), ``confidence``, ``target``
    (controls); ``figure`` (main LiveFigure), ``bars`` (LiveFigure); ``shares_out``,
    ``table1_out`` (LiveFigures) and the figures they show in ``figures``; ``readout``,
    ``table1_html``, ``notes`` (HTML); ``messages`` (errors of the controls and uploads),
    ``notice`` (about the data); ``profile`` (the current profile frame),
    ``experiment`` (the last :class:`~workbench.evaluation.fractal.FractalExperiment`),
    ``last_main_s`` (change -> main figure updated), ``last_update_s`` (change -> every
    panel updated).
    """

    def __init__(self, source: str = DEMO, *, profile: pd.DataFrame | None = None, k: int = 5,
                 threshold: float = 0.70, confidence: float = 0.95):
        self.messages = message_panel()
        self.notice = message_panel()
        self.notes = widgets.HTML()
        self.readout = widgets.HTML()
        self._cache = FitCache(64)
        self._data_key = source
        self.figures: dict[str, go.Figure] = {}
        self.experiment: FractalExperiment | None = None
        self.last_main_s = self.last_update_s = float("nan")
        if profile is not None:
            source = UPLOAD
        elif source not in SOURCES:
            raise ValidationError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
        self.profile = profile if profile is not None else self._load(source)
        if self.profile is None:  # the demo data are missing: fall back to the synthetic profile
            source, self.profile = SYNTHETIC, synthetic_profile()
        self.profile = validate_profile(self.profile, "dashboard profile")
        self._data_key = source

        wide = {"description_width": "initial"}
        options = [(label, key) for key, (label, _) in SOURCES.items()] + [("uploaded profile", UPLOAD)]
        self.source = widgets.Dropdown(options=options, value=source, description="data", style=wide,
                                       layout=widgets.Layout(width="520px"))
        self.upload = widgets.FileUpload(accept=".csv,.txt,.pprof,.out", multiple=True,
                                         description="Upload profile", layout=widgets.Layout(width="200px"))
        self.threshold = slider("threshold (major phases)", threshold, 0.3, 0.99, 0.01)
        self.tolerance = slider("tolerance of C (share)", 0.05, 0.005, 0.3, 0.005)
        self.C = widgets.Dropdown(description="convergence size C", style=wide, layout=widgets.Layout(width="300px"))
        self.delta_auto = widgets.Checkbox(value=True, description="auto δ", indent=False,
                                           layout=widgets.Layout(width="90px"))
        self.delta = slider("δ (size step)", 1.0, 0.5, 2.0, disabled=True)
        self.k = slider("k (fitted sizes)", k, 2, 10, integer=True, primary=True)
        self.confidence = slider("confidence of the band", confidence, 0.5, 0.995, 0.005)
        self.target = widgets.Dropdown(description="target size N_Lrg", style=wide,
                                       layout=widgets.Layout(width="300px"))
        self.table1_html = widgets.HTML()
        self.shares_out, self.table1_out = (figure_widget(placeholder_figure(""), name=name) for name in ("shares", "table1"))
        self._set_size_options()

        main = bars = None
        with show_errors(self.messages):
            main, bars = self._refresh_figures()
            self._refresh_panels()
        self.figure = figure_widget(main if main is not None else placeholder_figure("No fit yet"), primary=True)
        self.bars = figure_widget(bars if bars is not None else placeholder_figure("No prediction yet"), name="bars")
        with show_errors(self.messages):
            check = table1_check()
            self.table1_html.value = frame_html(
                check[["label", "m", "b", "eb_s", "published_predicted_s", "inside_bracket", "published_actual_s",
                       "eb_error_pct", "published_error_pct"]].rename(columns={
                    "label": "row", "eb_s": "e^b ms [s]", "published_predicted_s": "published pred. [s]",
                    "inside_bracket": "in e^(b±0.05)", "published_actual_s": "actual [s]",
                    "eb_error_pct": "e^b error %", "published_error_pct": "paper error %"}),
                "Table 1 of seed 003 from its m and b (b = ln ms)")
            self._show("table1", self.table1_out, table1_figure(check))

        for control in (self.threshold, self.tolerance, self.C, self.delta, self.k, self.confidence, self.target):
            control.observe(self._on_change, names="value")
        self.delta_auto.observe(self._on_delta_auto, names="value")
        self.source.observe(self._on_source, names="value")
        self.upload.observe(self._on_upload, names="value")

        h = widgets.HTML
        data = widgets.VBox([widgets.HBox([self.source, self.upload]), self.notice, h(
            "<span style='font-size:12px;color:#555'>Upload: a CSV with one row per phase per run, columns "
            "<code>size, phase, time_s</code> (or <code>time_ms</code>, <code>time_us</code>) [, <code>run</code>, "
            "<code>total_s</code>], e.g. the header <code>size,phase,time_ms,run,total_ms</code>; or TAU "
            "<code>pprof</code> outputs named <code>profile_&lt;size&gt;[_&lt;run&gt;].txt</code>. At least 3 sizes: "
            "2 small ones to fit, a larger one to predict.</span>")])
        model = widgets.VBox([self.threshold, self.tolerance, self.C, self.target])
        design = widgets.VBox([self.k, widgets.HBox([self.delta, self.delta_auto]), self.confidence])
        super().__init__([
            data, widgets.HBox([model, design]), self.messages,
            widgets.HBox([self.readout, self.table1_html], layout=widgets.Layout(grid_gap="24px")), self.notes,
            h("<h4>Log-log fits per phase (Fig. 1 of seed 003): the line through the fitted sizes, extended to "
              "x = 0</h4>"), self.figure,
            h("<h4>Predicted vs measured at the large size (section 2.3)</h4>"), self.bars,
            h("<h4>Share of the runtime per phase vs size (section 2.1)</h4>"), self.shares_out,
            h("<h4>Table 1 of seed 003: published predictions vs the bracket of the printed intercept</h4>"),
            self.table1_out,
        ])

    # ------------------------------------------------------------------ data
    def _load(self, source: str) -> pd.DataFrame | None:
        try:
            return SOURCES[source][1]()
        except DatasetNotFoundError as exc:
            show_message(self.notice, f"The measured demo profile is unavailable ({exc}); showing the SYNTHETIC "
                                      "power-law profile instead.", kind="warning")
            return None

    def _set_size_options(self) -> None:
        """Target: measured sizes with >= 2 smaller ones (largest first selected); C:
        auto or a measured size below the target with >= 2 measured sizes between."""
        sizes = np.unique(self.profile["size"].to_numpy(dtype=float))
        if sizes.size < 3:
            raise ValidationError(f"the profile has {sizes.size} measured size(s); the method needs at least 3: "
                                  "2 small runs to fit and a larger one to predict")
        with self._quietly():
            targets = sizes[2:]
            self.target.options = [(f"{s:g}", float(s)) for s in targets[::-1]]
            self.target.value = float(targets[-1])
            self._set_c_options()
            self._set_design_ranges()

    def _set_c_options(self) -> None:
        small = np.unique(self.profile["size"].to_numpy(dtype=float))
        small = small[small < self.target.value]
        previous = self.C.value
        options = [(AUTO, AUTO)] + [(f"{s:g}", float(s)) for s in small[:-2]]
        with self._quietly():
            self.C.options = options
            self.C.value = previous if previous in [v for _, v in options] else AUTO

    def _set_design_ranges(self) -> None:
        """δ from the smallest gap between measured small sizes to their whole range; k up
        to the number of small sizes above the smallest (more cannot be distinct)."""
        small = np.unique(self.profile["size"].to_numpy(dtype=float))
        small = small[small < self.target.value]
        gap, span = float(np.diff(small).min()), float(small[-1] - small[0])
        with self._quietly():
            self.k.max = max(2, small.size - 1)
            self.delta.min, self.delta.max = 0.0, max(span, gap)  # min first: keep min <= max while changing
            self.delta.min, self.delta.step = gap, gap
            self.delta.value = min(max(self.delta.value, gap), span)

    def set_profile(self, profile: pd.DataFrame, key: str) -> None:
        """Use ``profile`` (validated) as the data; ``key`` names it in the caches."""
        profile = validate_profile(profile, "dashboard profile")
        previous = self.profile, self._data_key
        self.profile, self._data_key = profile, key
        try:
            self._set_size_options()
        except Exception:
            self.profile, self._data_key = previous
            raise

    # ------------------------------------------------------------------ model
    def parameters(self) -> dict:
        """Keyword arguments of :func:`demo_experiment` from the controls."""
        return dict(
            target_size=float(self.target.value), threshold=rounded(self.threshold.value, 3),
            tolerance=rounded(self.tolerance.value, 3), C=None if self.C.value == AUTO else float(self.C.value),
            delta=None if self.delta_auto.value else rounded(self.delta.value, 6), k=int(self.k.value),
            confidence=rounded(self.confidence.value, 4),
        )

    def _experiment(self, params: dict) -> FractalExperiment:
        key = (self._data_key, id(self.profile), tuple(sorted(params.items())))
        return self._cache.get(key, lambda: demo_experiment(self.profile, **params))

    def _refresh_figures(self) -> tuple[go.Figure, go.Figure]:
        """Run the experiment (or reuse it) and build both live figures."""
        with warnings.catch_warnings():  # the notes panel lists them
            warnings.simplefilter("ignore", WorkbenchWarning)
            e = self._experiment(self.parameters())
        self.experiment = e
        actual = dict(zip(e.comparison["phase"], e.comparison["actual_s"]))
        if self.delta_auto.value:
            with self._quietly():
                self.delta.value = min(max(e.delta, self.delta.min), self.delta.max)
        return (loglog_figure(e.prediction.phase_fits, actual=actual, measured=e.shares),
                prediction_figure(e.comparison, e.target_size))

    def _refresh_panels(self) -> None:
        """The shares panel, the readout and the notes of :attr:`experiment`."""
        e = self.experiment
        self._show("shares", self.shares_out, shares_figure(
            e.shares, e.phases, threshold=self.parameters()["threshold"], convergence_size=e.convergence_size,
            sizes=e.sizes, target_size=e.target_size))
        self.readout.value = self._readout(e)
        self.notes.value = ("<details style='font-size:12px'><summary>how the sizes were chosen, model notes "
                            f"({len(e.notes)})</summary><ul>"
                            + "".join(f"<li>{html.escape(n)}</li>" for n in e.notes) + "</ul></details>")

    def _readout(self, e: FractalExperiment) -> str:
        rows = {"data": self.source.label,
                "major phases": ", ".join(e.phases) + f" (cumulative ≥ {self.threshold.value:.0%})",
                "C, δ, k": f"C = {e.convergence_size:g} ({'auto' if e.convergence_auto else 'chosen'}), "
                           f"δ = {e.delta:.4g} ({'auto' if self.delta_auto.value else 'chosen'}), k = {e.k}",
                "fitted sizes N_i": ", ".join(f"{s:g}" for s in e.sizes)}
        for r in e.comparison.itertuples():
            if r.phase == "total":
                continue
            band = f"{r.band_low_s:.4g} … {r.band_high_s:.4g} s" if np.isfinite(r.band_low_s) else "no band (k = 2)"
            err = f", error {r.error_pct:.1f} %" if np.isfinite(r.error_pct) else ""
            rows[f"phase {r.phase}"] = (f"m = {r.m:.3f}, e^b = {r.predicted_s:.4g} s (band {band}), "
                                        f"measured {r.actual_s:.4g} s{err}")
        total = e.comparison.iloc[-1]
        band = (f"{total.band_low_s:.4g} … {total.band_high_s:.4g} s" if np.isfinite(total.band_low_s)
                else "no band")
        rows[f"T at N_Lrg = {e.target_size:g}"] = f"{total.predicted_s:.4g} s (band {band})"
        rows["measured large run"] = (f"{e.measured_total_s:.4g} s ({e.large_runs['run'].nunique()} run(s)): "
                                      f"error {e.error_total_pct:.1f} %" if np.isfinite(e.measured_total_s)
                                      else "none at this size")
        if np.isfinite(self.last_update_s):
            rows["redraw"] = (f"main figure {self.last_main_s * 1000:.0f} ms, all panels "
                              f"{self.last_update_s * 1000:.0f} ms")
        return readout_html(rows)

    # ------------------------------------------------------------------ refresh
    def _refresh(self) -> None:
        # the main figure goes out first: the browser draws messages in order, and the
        # static shares panel is a whole new plotly figure to draw
        start = time.perf_counter()
        main, bars = self._refresh_figures()
        update_figure_widget(self.figure, main)
        self.last_main_s = time.perf_counter() - start
        update_figure_widget(self.bars, bars)
        self._refresh_panels()
        self.last_update_s = time.perf_counter() - start
        self.readout.value = self._readout(self.experiment)

    @property
    def panels(self) -> tuple:
        """The panels that show the experiment of the current data and controls (Table 1 is
        static)."""
        return (self.figure, self.bars, self.shares_out, self.readout, self.notes)

    def _on_change(self, change) -> None:
        if self._quiet:
            return
        with show_errors(self.messages, stale=self.panels):
            if change["owner"] is self.target:
                self._set_c_options()
                self._set_design_ranges()
            self._refresh()

    def _on_delta_auto(self, change) -> None:
        self.delta.disabled = bool(change["new"])
        self._on_change(change)

    def _on_source(self, change) -> None:
        if self._quiet or change["new"] == UPLOAD:
            return
        ok = False
        with show_errors(self.messages):
            profile = self._load(change["new"])
            if profile is not None:
                self.set_profile(profile, change["new"])
                ok = True
                self._refresh_new_data()
        if not ok:
            with self._quietly():
                self.source.value = change["old"]

    def load_files(self, files: Iterable[tuple[str, bytes]]) -> bool:
        """Use uploaded (file name, content) pairs as the data (see
        :func:`read_profile_uploads`); True when they were loaded, else the error is shown in
        :attr:`messages` and the previous data stay selected."""
        ok = False
        files = [(name, bytes(content)) for name, content in files]
        with show_errors(self.messages):
            with UPLOAD_FORMAT.explaining([name for name, _ in files]):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", WorkbenchWarning)
                    profile = read_profile_uploads(files)
                key = f"{UPLOAD}:" + ",".join(f"{n}:{hash(c)}" for n, c in files)
                self.set_profile(profile, key)
            with self._quietly():
                self.source.value = UPLOAD
            show_message(self.notice, "\n".join(str(w.message) for w in caught), kind="warning")
            ok = True
            self._refresh_new_data()
        return ok

    def _refresh_new_data(self) -> None:
        """Refresh after the data changed; if the method fails on them with the current
        controls, say that the data were loaded, and mark every panel out of date (they
        showed the previous data) with what to do."""
        try:
            self._refresh()
        except WorkbenchError as exc:
            sizes = ", ".join(f"{s:g}" for s in np.unique(self.profile["size"]))
            for panel in self.panels:
                mark_stale(panel, "the new profile was loaded, but the method fails on it with these settings: "
                                  "choose C, raise the tolerance or change the threshold")
            raise type(exc)(f"{exc}\nThe profile was loaded (sizes {sizes}), but the method fails on it with "
                            "the current controls: choose C, raise the tolerance or change the threshold.") from None

    def _on_upload(self, change) -> None:
        self._take_upload(change, self.load_files)


def fractal_dashboard(**kwargs) -> FractalDashboard:
    """Build the fractal extrapolation dashboard; display it as a cell's last
    expression.  Keyword arguments: ``source`` (``"demo"`` or ``"synthetic"``),
    ``profile`` (a profile frame of your own), ``k``, ``threshold``, ``confidence``."""
    return FractalDashboard(**kwargs)
