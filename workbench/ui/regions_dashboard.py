"""Region dashboard: "Which part of my code stops scaling?".

Wiring only: the panels are :mod:`workbench.views.regions` (widget-free), on top of
:class:`workbench.models.regions.RegionPredictor` and the profile readers of
:mod:`workbench.io.callpath`; the figures are :mod:`workbench.plots.regions`.

* **Data**: the RELeARN profiles (catalogue ``relearn-profiles``: Extra-P text, 14 regions),
  a SYNTHETIC application with exact laws, uploaded profiles (Caliper ``.cali``, Score-P
  ``.cubex``, Extra-P text/JSON/JSON Lines, cali-query JSON, GPTL timing files, phiprof
  reports, or a zip of them) or a typed
  path (a file, a folder, a zip). A file that cannot be read shows a red message and the
  previous data stay selected.
* **Controls**: the target allocation (the primary slider: predictions, shares, ranks,
  verdicts and both figures follow it), the region whose own fit is shown, the interval
  level.
* **Panels**: the verdicts in words (regions whose share grows, where they start to
  dominate, regions whose time rises, how the regions' own predictions add up to the
  total), the region table at the target, the stacked predicted region times against n
  with the measured totals (main figure) and the chosen region's fit with its band.

A change of data refits one ScalingPredictor per region (~1-4 s here); a change of target
recomputes the panels (~1-4 s for 14 regions on this 2-core machine).
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import pandas as pd

from workbench.errors import ValidationError
from workbench.io import fetch_dataset, read_profiles
from workbench.io.callpath import read_profile_files, validate_profile_table
from workbench.models.regions import RegionPredictor
from workbench.ui.common import (
    NamedFigures,
    QuietChanges,
    figure_widget,
    message_panel,
    placeholder_figure,
    rounded,
    show_errors,
    show_message,
    slider,
)
from workbench.ui.data_source import Dataset, DataSource
from workbench.ui.uploads import UploadFormat
from workbench.views.regions import region_view, synthetic_regions

__all__ = ["RegionsDashboard", "regions_dashboard", "UPLOAD_FORMAT"]

RELEARN, SYNTHETIC = "relearn", "synthetic"
UPLOAD_FORMAT = UploadFormat(
    "The dashboard reads call-path profiles of runs at 3 or more process counts: Caliper .cali files, Score-P "
    ".cubex profiles, Extra-P text, JSON or JSON Lines experiments, cali-query JSON, GPTL timing files "
    "(CESM/E3SM model_timing_stats), phiprof reports, or a .zip of any of them (formats are told by content). "
    "The process count comes from the profiles (mpi.world.size, jobsize, an Extra-P parameter p, Cube's "
    "process locations, GPTL's MPI TASKS line, phiprof's processes).",
    "PARAMETER p / POINTS ( 2 ) ( 4 ) ( 8 ) / REGION main / METRIC time / DATA 10.1 10.2 ...")


def _checked(frame: pd.DataFrame) -> pd.DataFrame:
    table = validate_profile_table(frame, "profiles")
    if pd.to_numeric(table["processes"], errors="coerce").nunique() < 3:
        raise ValidationError("profiles: they hold fewer than 3 process counts; the regions need runs at 3 or more "
                              "(the process count is read from mpi.world.size, jobsize, an Extra-P parameter p, "
                              "Cube's process locations, GPTL's MPI TASKS line or phiprof's processes)")
    return table


class RegionsDashboard(QuietChanges, NamedFigures, widgets.VBox):
    """Per-region predictions of a profile ensemble: which region stops scaling, and when.

    Parameters
    ----------
    source : str, default "relearn"
        ``"relearn"`` (catalogue, needs the data mirror; the SYNTHETIC application otherwise)
        or ``"synthetic"``.
    level : float, default 0.8
        Interval level.
    """

    def __init__(self, source: str = RELEARN, level: float = 0.8):
        self.figures = {}
        self.messages = message_panel()
        self.model: RegionPredictor | None = None
        datasets = [Dataset(RELEARN, "RELeARN, 14 regions (Extra-P text, catalogue relearn-profiles)",
                            lambda: fetch_dataset("relearn-profiles").frame, needs_mirror=True),
                    Dataset(SYNTHETIC, "SYNTHETIC application: solve 64/p, MPI_Allreduce 0.2 log2 p, io 1 s",
                            synthetic_regions)]
        self.data = DataSource(datasets, value=source, upload=UPLOAD_FORMAT, read_upload=read_profile_files,
                               accept=".zip,.cali,.cubex,.txt,.json,.jsonl,.gz,.tgz,.tar",
                               upload_label="Upload profiles",
                               path=True, read_path=read_profiles, validate=_checked, messages=self.messages,
                               description="data", row_noun="values")
        self.target = slider("target processes", 1024, 2, 4096, log=True, primary=True)
        self.level = slider("interval level", level, 0.5, 0.95, 0.05)
        self.region = widgets.Dropdown(description="region", style={"description_width": "initial"},
                                       layout=widgets.Layout(width="640px"))
        self.verdicts = widgets.HTML()
        self.table = widgets.HTML()
        self.main = figure_widget(placeholder_figure("loading ..."), primary=True)
        self.fit_panel = figure_widget(placeholder_figure("loading ..."), name="fit")
        with show_errors(self.messages, stale=(self.main, self.fit_panel)):
            self._fit()
        self.data.on_change(self._on_data)
        self.target.observe(self._on_change, names="value")
        self.level.observe(self._on_change, names="value")
        self.region.observe(self._on_region, names="value")
        h = widgets.HTML
        super().__init__([
            self.data, widgets.HBox([self.target, self.level]), self.region, self.messages, self.verdicts,
            h("<h4>Predicted time per region against the process count (stacked own times; points: measured "
              "totals)</h4>"), self.main,
            h("<h4>The chosen region's own fit and its interval</h4>"), self.fit_panel,
            self.table,
        ])

    # ------------------------------------------------------------------ data
    def _fit(self) -> None:
        if self.data.frame is None:
            return
        self.model = RegionPredictor().fit(self.data.frame, n="processes")
        notes = [w.message for w in self.model.warnings_ if w.kind == "several-configurations"]
        show_message(self.data.notice, "; ".join(notes) if notes else None, kind="warning")
        n_max = self.model.n_max_
        with self._quietly():
            self.target.min, self.target.max = np.log10(n_max), np.log10(n_max * 64)
            self.target.value = n_max * 4
            self.region.options = [(r, r) for r in self.model.predictors_]
        self._refresh(region=None)

    def _refresh(self, region: str | None) -> None:
        view = region_view(self.model, rounded(self.target.value), region, rounded(self.level.value))
        self.view = view
        chosen = view.region
        if chosen in self.model.predictors_ and self.region.value != chosen:
            with self._quietly():
                self.region.value = chosen
        self.verdicts.value = view.verdicts_html
        self.table.value = view.table_html
        self._show("main", self.main, view.stacked)
        self._show("fit", self.fit_panel, view.fit)

    def _on_data(self, _source) -> None:
        with show_errors(self.messages, stale=(self.main, self.fit_panel)):
            self._fit()

    def _on_change(self, _change) -> None:
        if self._quiet or self.model is None:
            return
        with show_errors(self.messages, stale=(self.main, self.fit_panel)):
            self._refresh(self.region.value)

    def _on_region(self, _change) -> None:
        if self._quiet or self.model is None:
            return
        with show_errors(self.messages, stale=(self.fit_panel,)):
            self._refresh(self.region.value)


def regions_dashboard(**kwargs) -> RegionsDashboard:
    """Build the region dashboard; display it as a cell's last expression (``source``, ``level``).

    Parameters
    ----------
    **kwargs
        Settings of :class:`RegionsDashboard` (``source``, ``level``).
    """
    return RegionsDashboard(**kwargs)
