"""A reusable picker of strong-scaling data for the ADEPT dashboards.

Three steps, top to bottom:

1. **source**: a bundled SYNTHETIC example, the Raspberry Pi NPB logs from the dataset
   catalogue (needs the real-data mirror, ``WORKBENCH_DATA_MIRROR``), or files uploaded
   with the *Upload* button (several NPB ``.out``/``.log``/``.txt`` logs, or a tidy CSV,
   see :mod:`workbench.io.scaling`);
2. **curve**: one benchmark / problem class / placement (:func:`workbench.io.list_curves`);
3. **observed runs**: one toggle per processor count of the curve; the toggled counts are
   the observations a model is fitted on, the others are held back to score it.

The source step is a :class:`~workbench.ui.data_source.DataSource` (attribute ``data``),
shared with the other dashboards.  The picker exposes the selection
(:attr:`DataPicker.observed`, :attr:`DataPicker.held_back`, :attr:`DataPicker.key`) and
calls the functions registered with :meth:`DataPicker.on_change` after every change.  Bad
uploads and a missing mirror become messages in the panels, never a traceback: the
previous data stay selected.
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import pandas as pd

from workbench.errors import ParseWarning, ValidationError
from workbench.io import (
    fetch_dataset,
    fetch_npb_pi_cluster,
    list_curves,
    read_scaling_bytes,
    select_curve,
    validate_scaling_frame,
)
from workbench.ui.common import QuietChanges, message_panel, show_errors
from workbench.ui.data_source import Dataset, DataSource
from workbench.ui.uploads import UploadFormat
from workbench.validation import UNITS, check_unit

__all__ = ["DataPicker", "Source", "SOURCES", "UPLOAD", "UPLOAD_FORMAT", "default_observed", "read_uploads"]

#: Source key of uploaded files.
UPLOAD = "upload"
#: What the picker reads from an upload (said after every upload error).
UPLOAD_FORMAT = UploadFormat(
    "The dashboard reads NPB output logs (.out, .log or .txt, one run each, as the benchmark prints them) or a "
    "UTF-8 CSV table (.csv) with one row per run: the columns processes and time_s (runtime in seconds) are "
    "required; benchmark, problem_class, threads, nodes, gpus, run and unit (what n counts: processes, nodes, "
    "gpus or cores) are optional.",
    "benchmark,problem_class,processes,time_s")


@dataclass(frozen=True)
class Source:
    """A data source of the picker.

    ``load()`` returns a scaling frame (see :mod:`workbench.io.scaling`) or raises a
    :class:`~workbench.errors.WorkbenchError`.
    """

    key: str
    label: str
    load: Callable[[], pd.DataFrame]


def _pi_cluster() -> pd.DataFrame:
    # aborted/truncated logs are listed in frame.attrs["skipped"]; no warning spam in the page
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParseWarning)
        return fetch_npb_pi_cluster().frame


def _pi_cluster_merged() -> pd.DataFrame:
    """Return the Pi-cluster logs with every placement of a class in one curve (nodes unknown).

    The larger classes were run on a few processor counts, each with another placement.
    """
    frame = _pi_cluster().copy()
    frame["nodes"] = pd.array([pd.NA] * len(frame), dtype="Int64")
    # runs at one processor count on different placements become repeats
    frame["run"] = frame.groupby(["benchmark", "problem_class", "processes", "threads"], dropna=False).cumcount()
    return frame


#: Built-in sources by key.
SOURCES: dict[str, Source] = {
    s.key: s
    for s in (
        Source("synthetic-downey", "SYNTHETIC example: Downey model A=120, σ=0.6, 2 % noise (bundled)",
               lambda: fetch_dataset("synthetic-downey").frame),
        Source("synthetic-cross-size", "SYNTHETIC cross-size example: classes 'small' and 'large' (bundled)",
               lambda: fetch_dataset("synthetic-cross-size").frame),
        Source("npb-pi-cluster", "NPB 3.4.3 on a Raspberry Pi 4 cluster (catalogue: npb-pi-cluster)", _pi_cluster),
        Source("npb-pi-cluster-merged", "NPB 3.4.3 on a Raspberry Pi 4 cluster, placements merged per class "
               "(catalogue: npb-pi-cluster)", _pi_cluster_merged),
        Source("scaling-corpus", "152 real curves: GROMACS, CP2K, OpenSBLI, Castro, Gunrock... (catalogue: "
               "scaling-corpus; n in nodes or GPUs)", lambda: _scaling_corpus()),
    )
}
#: Sources that need the real-data mirror (WORKBENCH_DATA_MIRROR).
MIRRORED = frozenset({"npb-pi-cluster", "npb-pi-cluster-merged", "scaling-corpus"})


def _scaling_corpus() -> pd.DataFrame:
    """Return the scaling corpus (catalogue ``scaling-corpus``, a curve table) as a scaling frame.

    Benchmark "<app> on <machine>", problem_class the curve_id, ``processes`` the allocation
    n, whose unit (``nodes`` or ``gpus``) is kept in the extra column ``unit``.
    """
    c = fetch_dataset("scaling-corpus").frame
    return validate_scaling_frame(pd.DataFrame({
        "benchmark": c["app"] + " on " + c["machine"], "problem_class": c["curve_id"], "processes": c["n"],
        "run": c["run"], "time_s": c["time_s"], "source": c["source"], "unit": c["unit"]}))


def default_observed(processes: Sequence[float]) -> list[float]:
    """Return the runs a first prediction uses ([Deshmeh2013] section 3.8: 3 or 4 inputs).

    Long curves (>= 8 counts): 4 counts spread evenly (by rank) from the smallest to the
    second largest, so that the inputs reach past the linear section and the largest count
    is an extrapolation; 4 smallest counts that all lie in the linear section leave the
    saturation undetermined ([Deshmeh2013] section 3.10) -- try it by toggling.  Shorter curves: the 4
    smallest of >= 6, else the 3 smallest.

    Parameters
    ----------
    processes : sequence of float
        The curve's processor counts, sorted.
    """
    n = sorted(processes)
    if len(n) >= 8:
        return [n[i] for i in sorted(set(np.round(np.linspace(0, len(n) - 2, 4)).astype(int)))]
    return n[: 4 if len(n) >= 6 else 3]


def read_uploads(files: Iterable[tuple[str, bytes]]) -> pd.DataFrame:
    """One scaling frame from uploaded files given as (file name, content) pairs.

    NPB logs (``.out``, ``.log``, ``.txt``) and/or tidy CSV tables, dispatched on the file
    name by :func:`workbench.io.read_scaling_bytes`.  Raises a
    :class:`~workbench.errors.WorkbenchError` naming the first file that cannot be read.

    Parameters
    ----------
    files : iterable of (str, bytes)
        ``(file name, content)`` pairs.
    """
    frames = [read_scaling_bytes(name, bytes(content)) for name, content in files]
    if not frames:
        raise ValidationError("no file uploaded")
    return validate_scaling_frame(pd.concat(frames, ignore_index=True))


class DataPicker(QuietChanges, widgets.VBox):
    """Source, curve and observed-runs selection (see the module docstring).

    Parameters
    ----------
    sources : sequence of str or Source, default ("synthetic-downey", "npb-pi-cluster")
        Keys of :data:`SOURCES` and/or :class:`Source` objects, in menu order.
    source : str, optional
        Key of the initial source; default: the first one.
    curve : tuple, optional
        Preferred initial curve, e.g. ``("downey-synthetic", "large")`` (benchmark, problem
        class[, placement]); default: the curve with the most processor counts.
    n_observed : int or callable, default default_observed
        That many smallest counts, or a function of the sorted counts returning the
        observed ones (:func:`default_observed`).
    min_points : int, default 3
        Curves with fewer distinct processor counts are not offered.
    messages : ipywidgets.HTML, optional
        Panel for errors (shared with a dashboard); default: the picker's own.
    offer : callable, optional
        ``offer(usable, curves) -> usable subset``: which of the curves with ``min_points``
        a dashboard can use, given every curve of the data (e.g. cross-size: only target
        curves that have a base size); default: all of them.
    needs : str, default ""
        What the dashboard needs, in words, shown when a source or upload has no usable curve.

    Notes
    -----
    Attributes: ``source``, ``upload``, ``curve`` (controls), ``points`` (box of one
    ``ToggleButton`` per processor count), ``summary`` (HTML), ``notice`` (panel about the
    real-data mirror), ``messages`` (error panel), ``frame`` (the source's scaling frame),
    ``curves`` (its :func:`~workbench.io.list_curves` table, filtered by ``min_points`` and
    ``offer``), ``all_curves`` (unfiltered).
    """

    def __init__(
        self,
        sources: Sequence[str | Source] = ("synthetic-downey", "npb-pi-cluster"),
        source: str | None = None,
        curve: tuple | None = None,
        n_observed: int | Callable[[list[float]], Iterable[float]] = default_observed,
        min_points: int = 3,
        messages: widgets.HTML | None = None,
        offer: Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame] | None = None,
        needs: str = "",
    ):
        self._sources = {s.key: s for s in (SOURCES[s] if isinstance(s, str) else s for s in sources)}
        self._n_observed = n_observed
        self._preferred_curve = curve
        self.min_points = min_points
        self._offer, self.needs = offer, needs
        self._callbacks: list[Callable[[DataPicker], None]] = []
        # curves of each frame the data source accepted (id -> (frame, curves)): listed once
        self._usable_curves: dict[int, tuple[pd.DataFrame, pd.DataFrame]] = {}
        self._toggles: dict[float, widgets.ToggleButton] = {}
        self._unit_choice: str | None = None  # None: the curve's own unit
        self._alloc = np.empty(0)

        own_panel = messages is None
        self.messages = message_panel() if own_panel else messages
        initial = source or next(iter(self._sources))
        self._initial_label = self._sources[initial].label
        self.data: DataSource | None = None
        data = DataSource(
            [Dataset(s.key, s.label, s.load, needs_mirror=s.key in MIRRORED) for s in self._sources.values()],
            value=initial, upload=UPLOAD_FORMAT, read_upload=read_uploads, accept=".csv,.out,.log,.txt",
            upload_label="Upload NPB logs / CSV", validate=self._usable, messages=self.messages,
            description="Source", row_noun="runs")
        self.data = data
        self.source, self.upload, self.notice = data.menu, data.upload, data.notice
        self.curve = widgets.Dropdown(description="Curve", style={"description_width": "70px"},
                                      layout=widgets.Layout(width="640px"))
        self.points = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
        self.summary = widgets.HTML()
        if data.frame is None:  # the initial data could not be loaded: a bug in the bundled data, let it raise
            self._usable(self._sources[data.menu.value or initial].load())
        self._use_source(data.frame)

        data.on_change(self._on_source)
        self.curve.observe(self._on_curve, names="value")
        label = widgets.HTML("<b>Observed runs</b> (toggled: used for fitting; the others are held back):")
        children = [data, self.curve, label, self.points, self.summary]
        super().__init__(children + ([self.messages] if own_panel else []))

    # ------------------------------------------------------------------ public
    def on_change(self, callback: Callable[[DataPicker], None]) -> None:
        """Call ``callback(picker)`` after every change of source, curve or observed runs.

        Parameters
        ----------
        callback : callable
            Called as ``callback(picker)``.
        """
        self._callbacks.append(callback)

    @property
    def curve_key(self) -> tuple[str, str, str]:
        """(benchmark, problem_class, placement) of the selected curve."""
        return self.curve.value

    @property
    def runs(self) -> pd.DataFrame:
        """All runs of the selected curve (columns of :func:`workbench.io.select_curve`)."""
        return self._runs

    @property
    def processes(self) -> list[float]:
        """Distinct allocations of the selected curve, ascending, in :attr:`unit` (processor counts by default)."""
        return sorted(self._toggles)

    @property
    def own_unit(self) -> str:
        """What n counts in the selected curve's data: its ``unit`` (column or reader argument), else processes."""
        runs, frame = self._runs, self.frame
        for attrs in (runs.attrs, frame.attrs):
            if attrs.get("unit") is not None:
                return check_unit(attrs["unit"], self.label)
        if "unit" in runs.columns:
            given = runs["unit"].dropna().astype(str).unique()
        elif "unit" in frame.columns:  # select_curve keeps the scaling columns only
            b, c = self.curve_key[:2]
            given = frame.loc[(frame["benchmark"] == b) & (frame["problem_class"] == c), "unit"].dropna()
            given = given.astype(str).unique()
        else:
            given = ()
        if len(given) == 1:
            try:
                return check_unit(given[0], self.label)
            except ValidationError:
                pass
        return "processes"

    @property
    def unit(self) -> str:
        """What n counts now: the unit chosen with :meth:`set_unit`, else :attr:`own_unit`."""
        return self._unit_choice or self.own_unit

    def units(self) -> list[str]:
        """Return the units n can count, the curve's own first (every unit: see :meth:`set_unit`)."""
        return [self.own_unit, *(u for u in UNITS if u != self.own_unit)]

    def set_unit(self, unit: str | None) -> None:
        """Count the runs in ``unit`` (None: the curve's own), then notify.

        The unit's own column when the runs fill it (e.g. ``nodes``), else the curve's
        allocations read as ``unit`` (:meth:`relabelled`).

        Parameters
        ----------
        unit : str or None
            The unit; None: the curve's own.
        """
        unit = None if unit is None else check_unit(unit, "n counts")
        previous = self._unit_choice
        self._unit_choice = None if unit == self.own_unit else unit
        try:
            self._use_curve()
        except ValidationError:
            self._unit_choice = previous
            self._use_curve()
            raise
        self._fire()

    @property
    def both_counts(self) -> bool:
        """Whether the runs give processes and nodes that differ: the user should choose what n counts."""
        runs = self._runs
        if self.own_unit != "processes" or "nodes" not in runs.columns or not runs["nodes"].notna().all():
            return False
        return bool((self._runs["nodes"].astype(float) != self._runs["processes"].astype(float)).any())

    def observed_nodes(self) -> np.ndarray | None:
        """Nodes of every observed run (the order of :attr:`observed`), or None when not every run gives them."""
        runs = self._runs
        if self.unit == "nodes" or "nodes" not in runs.columns or not runs["nodes"].notna().all():
            return None
        return runs["nodes"].to_numpy(float)[np.isin(self._alloc, self.observed_n)]

    @property
    def observed_n(self) -> tuple[float, ...]:
        """Processor counts toggled as observed, ascending."""
        return tuple(n for n, b in sorted(self._toggles.items()) if b.value)

    @observed_n.setter
    def observed_n(self, values: Iterable[float]) -> None:
        """Toggle exactly ``values`` as observed, then notify once (as a user's click would)."""
        wanted = {float(v) for v in values}
        unknown = wanted - set(self._toggles)
        if unknown:
            raise ValidationError(f"processor counts {sorted(unknown)} are not in the curve {self.processes}")
        with self._quietly():
            for n, button in self._toggles.items():
                button.value = n in wanted
        self._after_points()
        self._fire()

    @property
    def observed(self) -> tuple[np.ndarray, np.ndarray]:
        """(n, t) of every run at an observed processor count (repeats included), seconds."""
        return self._split(True)

    @property
    def held_back(self) -> tuple[np.ndarray, np.ndarray]:
        """(n, t) of every run at the other processor counts, seconds."""
        return self._split(False)

    @property
    def key(self) -> tuple:
        """Hashable identity of the current selection, for caching fits."""
        n, t = self.observed
        return (self.source.value, id(self.frame), self.curve_key, tuple(n), tuple(t))

    @property
    def label(self) -> str:
        """The selected curve in words: benchmark, class and placement."""
        b, c, p = self.curve_key
        return f"{b} class {c}, {p}"

    def load_files(self, files: Iterable[tuple[str, bytes]]) -> bool:
        """Use uploaded (file name, content) pairs as the source.

        True on success, else the error is shown in :attr:`messages` and the previous data
        stay selected.

        Parameters
        ----------
        files : iterable of (str, bytes)
            ``(file name, content)`` pairs.
        """
        return self.data.load_files(files)

    # ----------------------------------------------------------------- helpers
    def _fire(self) -> None:
        for callback in self._callbacks:
            callback(self)

    def _usable(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``validate`` of the data source: refuse data without a curve this picker offers."""
        where = self.data.loading if self.data is not None else self._initial_label
        self._usable_curves[id(frame)] = (frame, self._check_curves(frame, where))
        return frame

    def _check_curves(self, frame: pd.DataFrame, where: str) -> pd.DataFrame:
        curves = list_curves(frame)
        usable = curves[curves["n_points"] >= self.min_points].reset_index(drop=True)
        found = "; ".join(curves["label"].head(6)) or "none"
        if usable.empty:
            raise ValidationError(
                f"{where}: no strong-scaling curve has runs on at least {self.min_points} different processor "
                f"counts (found: {found})")
        if self._offer is not None:
            usable = self._offer(usable, curves).reset_index(drop=True)
            if usable.empty:
                raise ValidationError(f"{where}: no curve this dashboard can use. {self.needs} (found: {found})")
        return usable

    def _use_source(self, frame: pd.DataFrame) -> None:
        self._unit_choice = None  # new data: n counts what they say, until the user chooses
        kept = self._usable_curves.get(id(frame))
        curves = kept[1] if kept is not None and kept[0] is frame else self._check_curves(frame, self.data.label)
        self.frame, self.curves, self.all_curves = frame, curves, list_curves(frame)
        options = [(row.label, (row.benchmark, row.problem_class, row.placement)) for row in curves.itertuples()]
        values = [v for _, v in options]
        pick = max(values, key=lambda v: curves.loc[values.index(v), "n_points"])
        if self._preferred_curve is not None:
            want = tuple(str(x).lower() for x in self._preferred_curve)
            pick = next((v for v in values if tuple(x.lower() for x in v[: len(want)]) == want), pick)
        with self._quietly():
            self.curve.options = options
            self.curve.value = pick
        self._use_curve()

    def _allocations(self, unit: str, quiet: bool = False) -> np.ndarray | None:
        """Every run's allocation in ``unit``.

        The unit's own column when every run fills it (``nodes``, ``gpus``; ``cores`` is
        processes x threads for runs counted in processes), else the curve's allocations (its
        ``processes`` column, where the scaling corpus and a plain upload keep n) read as
        ``unit``: a user whose ``processes`` column holds nodes says so by choosing nodes.
        ``quiet`` is kept for callers that probe; every unit can be read.
        """
        runs, own = self._runs, self.own_unit
        if unit in ("nodes", "gpus") and unit in runs.columns and runs[unit].notna().all():
            return runs[unit].to_numpy(float)
        if unit == "cores" and own == "processes" and "threads" in runs.columns:
            return runs["processes"].to_numpy(float) * runs["threads"].astype(float).fillna(1).to_numpy()
        return runs["processes"].to_numpy(float)

    def relabelled(self) -> bool:
        """Whether :attr:`unit` reads the curve's allocations as another unit (no column of its own counts them)."""
        unit, runs = self.unit, self._runs
        if unit == self.own_unit:
            return False
        if unit in ("nodes", "gpus"):
            return not (unit in runs.columns and runs[unit].notna().all())
        return not (unit == "cores" and self.own_unit == "processes" and "threads" in runs.columns)

    def _use_curve(self) -> None:
        # selected once per curve: select_curve validates the whole frame (~50 ms)
        self._runs = select_curve(self.frame, *self.curve_key)
        self._alloc = self._allocations(self.unit)
        processes = sorted(float(v) for v in np.unique(self._alloc))
        if callable(self._n_observed):
            chosen = {float(v) for v in self._n_observed(processes)}
        else:
            chosen = set(processes[: int(self._n_observed)])
        self._toggles = {
            n: widgets.ToggleButton(value=n in chosen, description=f"{n:g}", tooltip=f"n = {n:g} {UNITS[self.unit][1]}",
                                    layout=widgets.Layout(width="58px"))
            for n in processes
        }
        for button in self._toggles.values():
            button.observe(self._on_toggle, names="value")
        self.points.children = list(self._toggles.values())
        self._after_points()

    def _after_points(self) -> None:
        for button in self._toggles.values():
            button.button_style = "info" if button.value else ""
        obs = self.observed_n
        held = [n for n in self.processes if n not in obs]
        runs = len(self.observed[0])
        self.summary.value = (  # the label comes from the data (an upload's benchmark names): escaped
            f"<span style='font-size:13px'>{html.escape(self.label)}: observed n = "
            f"{', '.join(f'{v:g}' for v in obs) or 'none'} "
            f"({runs} run{'s' if runs != 1 else ''}); held back: {len(held)} processor count"
            f"{'s' if len(held) != 1 else ''}</span>"
        )

    def _split(self, observed: bool) -> tuple[np.ndarray, np.ndarray]:
        mask = np.isin(self._alloc, self.observed_n)
        keep = mask if observed else ~mask
        return self._alloc[keep], self.runs["time_s"].to_numpy(float)[keep]

    # ---------------------------------------------------------------- handlers
    def _on_source(self, data: DataSource) -> None:
        # the data were checked by _usable: choosing a curve of them fails only on a bug
        with show_errors(self.messages, stale=(self.summary,)):
            self._use_source(data.frame)
            self._fire()

    def _on_curve(self, change) -> None:
        if self._quiet:
            return
        ok = False
        with show_errors(self.messages):
            self._use_curve()
            ok = True
        if not ok:  # the previous curve stays selected (its runs and toggles were not replaced)
            with self._quietly():
                self.curve.value = change["old"]
            return
        self._fire()

    def _on_toggle(self, change) -> None:
        if self._quiet:
            return
        self._after_points()
        self._fire()
