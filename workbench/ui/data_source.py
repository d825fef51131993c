"""One data-source control for every dashboard: a menu of datasets, an optional upload button and an optional path box.

A dashboard lists its datasets (:class:`Dataset`: bundled SYNTHETIC examples, catalogue
data from the real-data mirror, ...) and gets one widget that loads, validates and caches
them and tells the dashboard after every change (:meth:`DataSource.on_change`).  Uploaded
files and a typed local path become menu entries of their own (keys :data:`UPLOAD` and
:data:`PATH`), and so does data the dashboard makes itself, e.g. a sweep it has just
measured (:meth:`DataSource.add`).

The screen never lies: a load that fails (bad upload, missing mirror, unreadable path)
shows a message saying what is wrong and what is expected
(:meth:`~workbench.ui.uploads.UploadFormat.explain`), the previous data stay selected and
the menu shows them again.  Catalogue entries whose mirror is missing are labelled
``(mirror not available)`` and say how to get the data when chosen.

Usage::

    source = DataSource([Dataset("synthetic", "SYNTHETIC example (bundled)", load_synthetic)],
                        upload=FORMAT, read_upload=read_files, messages=panel)
    source.on_change(lambda s: refresh(s.frame))
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets
import pandas as pd

from workbench.errors import DatasetNotFoundError, ValidationError, WorkbenchError
from workbench.io import data_mirror
from workbench.ui.common import INTERNAL_ERROR, QuietChanges, message_panel, show_errors, show_message
from workbench.ui.uploads import UploadFormat

__all__ = ["Dataset", "DataSource", "MIRROR_MISSING", "PATH", "UPLOAD", "mirror_problem"]

#: Key of the entry holding uploaded files.
UPLOAD = "upload"
#: Key of the entry holding data read from a typed path.
PATH = "path"
#: Appended to the menu label of a catalogue entry whose mirror is missing.
MIRROR_MISSING = " (mirror not available)"


@dataclass(frozen=True)
class Dataset:
    """One menu entry: ``load()`` returns the data or raises a :class:`~workbench.errors.WorkbenchError` saying why not.

    ``needs_mirror``: real data read from the catalogue's local mirror
    (``WORKBENCH_DATA_MIRROR``).
    """

    key: str
    label: str
    load: Callable[[], pd.DataFrame]
    needs_mirror: bool = False


def mirror_problem() -> str | None:
    """Why the real-data mirror cannot be used (with how to set it up), or None when it can."""
    try:
        data_mirror()
    except DatasetNotFoundError as exc:
        return str(exc)
    return None


def _short(names: str, limit: int = 80) -> str:
    return names[:limit] + ("…" if len(names) > limit else "")


class DataSource(QuietChanges, widgets.VBox):
    """Menu of datasets plus optional upload button and path box (see the module docstring).

    Parameters
    ----------
    datasets : sequence of Dataset
        The menu entries, in menu order.
    value : str, optional
        Key of the initial entry; default: the first.  A catalogue entry whose mirror is
        missing is replaced by the first entry that needs no mirror, with a warning.
    upload : UploadFormat, optional
        What an upload must contain (said after every upload error); default None: no
        upload button.
    read_upload : callable, optional
        Reads the uploaded ``(file name, content)`` pairs into one frame (required with
        ``upload``).
    multiple : bool, default True
        The upload button takes several files.
    accept : str, default ".csv"
        File types the upload button offers.
    upload_label : str, default "Upload"
        The upload button's text.
    path : bool, default False
        Show a text box for a local file or directory path, read by ``read_path``.
    read_path : callable, optional
        Reads the data at a path (required with ``path``).
    validate : callable, optional
        Checks (and may normalise) every loaded frame; raises a
        :class:`~workbench.errors.WorkbenchError` to refuse it.  Default: accept all.
    messages : ipywidgets.HTML, optional
        The panel for errors (a dashboard's own, to share one); default: a new one shown
        below the controls.
    description : str, default "Data"
        The menu's description.
    row_noun : str, default "rows"
        What a row of the data is, for the labels of uploads ("12 runs").

    Attributes
    ----------
    frame : the current, validated data (None only when even the initial load failed).
    key : the current entry's key (:data:`UPLOAD` / :data:`PATH` for those), or None.
    label : the current data in words, for titles and summaries.
    loading : what is being loaded, in words (the entry's label, the uploaded files' names,
        the path), for ``validate`` to name in its messages; set before each load.
    error : the message of the last load that failed (None after a success).
    menu, upload, path : the controls (``upload`` / ``path`` None when not offered).
    messages : error panel; ``notice``: panel for the note about a missing mirror.
    """

    def __init__(
        self,
        datasets: Sequence[Dataset],
        *,
        value: str | None = None,
        upload: UploadFormat | None = None,
        read_upload: Callable[[list[tuple[str, bytes]]], pd.DataFrame] | None = None,
        multiple: bool = True,
        accept: str = ".csv",
        upload_label: str = "Upload",
        path: bool = False,
        read_path: Callable[[str], pd.DataFrame] | None = None,
        validate: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
        messages: widgets.HTML | None = None,
        description: str = "Data",
        row_noun: str = "rows",
    ):
        if upload is not None and read_upload is None:
            raise TypeError("DataSource: an upload format needs read_upload, the function that reads the files")
        if path and read_path is None:
            raise TypeError("DataSource: path=True needs read_path, the function that reads a path")
        self._datasets: dict[str, Dataset] = {d.key: d for d in datasets}
        if value is not None and value not in self._datasets:
            raise ValidationError(f"unknown dataset {value!r}; known: {', '.join(self._datasets)}")
        self._format, self._read_upload, self._read_path = upload, read_upload, read_path
        self._validate = validate
        self._row_noun = row_noun
        self._callbacks: list[Callable[[DataSource], None]] = []
        self._frames: dict[str, pd.DataFrame] = {}
        self._labels: dict[str, str] = {k: d.label for k, d in self._datasets.items()}
        self.frame: pd.DataFrame | None = None
        self.key: str | None = None
        self.label: str = ""
        self.loading: str = ""
        self.error: str | None = None

        own_panel = messages is None
        self.messages = message_panel() if own_panel else messages
        self.notice = message_panel()
        needs_mirror = any(d.needs_mirror for d in self._datasets.values())
        problem = mirror_problem() if needs_mirror else None
        self.menu = widgets.Dropdown(options=self._options(problem), description=description,
                                     style={"description_width": "70px"}, layout=widgets.Layout(width="640px"))
        self.upload = (widgets.FileUpload(accept=accept, multiple=multiple, description=upload_label,
                                          layout=widgets.Layout(width="220px"))
                       if upload is not None else None)
        self.path = (widgets.Text(description="Path", placeholder="a local file or directory, then Enter",
                                  continuous_update=False, style={"description_width": "70px"},
                                  layout=widgets.Layout(width="640px"))
                     if path else None)

        initial = value or next(iter(self._datasets), None)
        if problem and initial is not None:
            instead = ""
            if self._datasets[initial].needs_mirror:
                initial = next((k for k, d in self._datasets.items() if not d.needs_mirror), initial)
                instead = " instead"
            own = f"; or upload your own data with the {upload_label} button" if upload is not None else ""
            show_message(self.notice, f"Real data not available: {problem}. Showing {self._labels[initial]}"
                                      f"{instead}{own}.", kind="warning")
        if initial is not None:
            with self._quietly():
                self.menu.value = initial
            with self._attempt():
                self._use(initial, self._load(initial))

        self.menu.observe(self._on_menu, names="value")
        if self.upload is not None:
            self.upload.observe(self._on_upload, names="value")
        if self.path is not None:
            self.path.observe(self._on_path, names="value")
        top = [self.menu] + ([self.upload] if self.upload is not None else [])
        children = [widgets.HBox(top)] + ([self.path] if self.path is not None else []) + [self.notice]
        super().__init__(children + ([self.messages] if own_panel else []))

    # ------------------------------------------------------------------ public
    def on_change(self, callback: Callable[[DataSource], None]) -> None:
        """Call ``callback(source)`` once after every change of the current data.

        Parameters
        ----------
        callback : callable
            Called as ``callback(source)``.
        """
        self._callbacks.append(callback)

    def select(self, key: str) -> bool:
        """Make entry ``key`` current, as a user's choice in the menu would.

        True on success, else the error is shown and the previous data stay selected.

        Parameters
        ----------
        key : str
            A menu entry's key.
        """
        if key not in self._labels:
            raise ValidationError(f"unknown dataset {key!r}; known: {', '.join(self._labels)}")
        if key == self.key:
            return True
        with self._quietly():
            self.menu.value = key
        return self._choose(key)

    def add(self, key: str, label: str, frame: pd.DataFrame, select: bool = True) -> bool:
        """Offer ``frame`` (e.g. a sweep just measured) as the menu entry ``key`` named ``label``.

        It replaces an entry of that key; ``select``: make it current.  True on success; a
        frame that ``validate`` refuses is not added and its message is shown.

        Parameters
        ----------
        key : str
            The entry's key.
        label : str
            Its text in the menu.
        frame : pandas.DataFrame
            The data.
        select : bool, default True
            Make it current.
        """
        ok = False
        self.loading = label
        with self._attempt():
            frame = self._validated(frame)
            ok = True
        if not ok:
            return False
        self._frames[key] = frame
        self._set_entry(key, label)
        if select or key == self.key:
            with self._quietly():
                self.menu.value = key
            self._use(key, frame)
            self._fire()
        return True

    def load_files(self, files: Iterable[tuple[str, bytes]]) -> bool:
        """Use uploaded ``(file name, content)`` pairs as the data (entry :data:`UPLOAD`).

        True on success, else the error (with what is expected) is shown and the previous
        data stay selected.

        Parameters
        ----------
        files : iterable of (str, bytes)
            ``(file name, content)`` pairs.
        """
        if self._format is None:
            raise TypeError("this DataSource takes no uploads")
        files = list(files)
        names = [name for name, _ in files]
        ok = False
        self.loading = ", ".join(names) or "the upload"
        with self._attempt():
            with self._format.explaining(names):
                if not files:
                    raise ValidationError("no file uploaded")
                frame = self._validated(self._read_upload(files))
            ok = True
        if not ok:
            return False
        self._frames[UPLOAD] = frame
        self._set_entry(UPLOAD, f"uploaded: {_short(', '.join(names))} ({len(frame)} {self._row_noun})")
        with self._quietly():
            self.menu.value = UPLOAD
        self._use(UPLOAD, frame)
        self._fire()
        return True

    def load_path(self, path: str) -> bool:
        """Use the data at the local ``path`` (entry :data:`PATH`).

        True on success, else the error is shown and the previous data stay selected.

        Parameters
        ----------
        path : str
            A local file or directory.
        """
        if self._read_path is None:
            raise TypeError("this DataSource reads no paths")
        path = str(path).strip()
        ok = False
        self.loading = path
        with self._attempt():
            if not path:
                raise ValidationError("no path given: type the path of a local file or directory")
            if self._format is not None:
                with self._format.explaining([path]):
                    frame = self._validated(self._read_path(path))
            else:
                frame = self._validated(self._read_path(path))
            ok = True
        if not ok:
            return False
        self._frames[PATH] = frame
        self._set_entry(PATH, f"path: {_short(path)} ({len(frame)} {self._row_noun})")
        with self._quietly():
            self.menu.value = PATH
        self._use(PATH, frame)
        self._fire()
        return True

    # ----------------------------------------------------------------- helpers
    def _options(self, problem: str | None) -> list[tuple[str, str]]:
        return [(label + (MIRROR_MISSING if problem and k in self._datasets and self._datasets[k].needs_mirror
                          else ""), k)
                for k, label in self._labels.items()]

    def _set_entry(self, key: str, label: str) -> None:
        self._labels[key] = label
        options = [o for o in self.menu.options if o[1] != key] + [(label, key)]
        with self._quietly():
            previous = self.menu.value
            self.menu.options = options
            self.menu.value = previous  # a replaced option must not move the menu

    @contextlib.contextmanager
    def _attempt(self):
        """:func:`show_errors` into :attr:`messages` that also keeps the message as :attr:`error`."""
        self.error = None
        with show_errors(self.messages):
            try:
                yield
            except Exception as exc:
                self.error = str(exc) if isinstance(exc, WorkbenchError) else INTERNAL_ERROR
                raise

    def _validated(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self._validate(frame) if self._validate is not None else frame

    def _load(self, key: str) -> pd.DataFrame:
        """Return the validated frame of entry ``key`` (cached); raises a WorkbenchError."""
        if key in self._frames:
            return self._frames[key]
        dataset = self._datasets[key]
        self.loading = dataset.label
        if dataset.needs_mirror:
            problem = mirror_problem()
            if problem:
                raise DatasetNotFoundError(f"{dataset.label}: real data not available: {problem}")
        frame = self._validated(dataset.load())
        self._frames[key] = frame
        return frame

    def _use(self, key: str, frame: pd.DataFrame) -> None:
        self.frame, self.key, self.label = frame, key, self._labels[key]

    def _fire(self) -> None:
        for callback in list(self._callbacks):
            callback(self)

    def _choose(self, key: str) -> bool:
        """Load entry ``key`` (the menu shows it already).

        On failure, show why and put the menu back on the current data.
        """
        ok = False
        with self._attempt():
            frame = self._load(key)
            ok = True
        if not ok:
            with self._quietly():
                self.menu.value = self.key
            return False
        self._use(key, frame)
        self._fire()
        return True

    # ---------------------------------------------------------------- handlers
    def _on_menu(self, change) -> None:
        if self._quiet or change["new"] == self.key:
            return
        self._choose(change["new"])

    def _on_upload(self, change) -> None:
        self._take_upload(change, self.load_files)

    def _on_path(self, change) -> None:
        if self._quiet or not str(change["new"]).strip():
            return
        self.load_path(change["new"])
