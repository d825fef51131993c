"""The project's own exception and warning types.

Every loader, validator and estimator raises a subclass of :class:`WorkbenchError`
with a message that names the offending file, column or value, so that a notebook can
show it to the user instead of a traceback.
"""

import contextlib
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from sklearn.exceptions import NotFittedError as _SklearnNotFittedError


class WorkbenchError(ValueError):
    """Base class of every error raised on purpose by the workbench."""


class DataFormatError(WorkbenchError):
    """A file could not be read: unknown format, corrupt or truncated content."""


class ValidationError(WorkbenchError):
    """Data were read but are unusable: missing columns, NaN, non-positive times, ..."""


class NotFittedError(ValidationError, _SklearnNotFittedError):
    """A model was used (predict, intervals, warnings) before ``fit``.

    Also a scikit-learn ``NotFittedError``, so code written for scikit-learn estimators
    catches it too.
    """


class DatasetNotFoundError(WorkbenchError):
    """A catalogue dataset is unknown or its files are not in the local mirror."""


class MeasurementError(WorkbenchError):
    """A measurement could not be taken.

    Perf missing, counters unsupported, the measured command failed or timed out.
    """


class WorkbenchWarning(UserWarning):
    """Base class of the workbench's warnings (e.g. a skipped, aborted NPB log)."""


class ParseWarning(WorkbenchWarning):
    """A file was skipped or only partly understood while parsing."""


@dataclass(frozen=True)
class ModelWarning:
    """Why a fit or a prediction deserves caution, as data: the one warning type of every model.

    Every model keeps its warnings in ``warnings_`` as a list of these, and emits each one
    found while fitting as a :class:`WorkbenchWarning` (:meth:`emit`), so that both a
    program (``[w.kind for w in model.warnings_]``) and a person reading a notebook see it.

    Attributes
    ----------
    kind : str
        A short identifier, e.g. ``"retrograde-data"``, ``"linear-section"``; each model
        documents its kinds.
    message : str
        The warning in words, naming the data it concerns.
    targets : tuple of float
        The allocations (processes, nodes, sizes) it concerns; empty: all of them.
    suggested_n : float or None
        Where a further measurement would help most, if the model can tell.
    details : Mapping
        Numbers behind the message (not compared or hashed).
    """

    kind: str
    message: str
    targets: tuple = ()
    suggested_n: float | None = None
    details: Mapping = field(default_factory=dict, compare=False, hash=False)

    def __str__(self) -> str:
        return self.message

    def emit(self, stacklevel: int = 2) -> None:
        """Issue this warning as a :class:`WorkbenchWarning` (its message).

        Parameters
        ----------
        stacklevel : int, default 2
            As :func:`warnings.warn`'s, counted from the function calling ``emit``: 2 points at
        its caller (the caller of ``fit`` when ``fit`` emits).
        """
        warnings.warn(self.message, WorkbenchWarning, stacklevel=stacklevel + 1)


def emit_warnings(found: Iterable[ModelWarning], stacklevel: int = 2) -> None:
    """Emit each of a fit's warnings (``found``, its ``warnings_``) once, pointing at the caller of ``fit``.

    Parameters
    ----------
    found : iterable of ModelWarning
        A fit's warnings (its ``warnings_``).
    stacklevel : int, default 2
        As :func:`warnings.warn`'s, counted from the function calling ``emit_warnings``: 2
        points at its caller (the caller of ``fit``).
    """
    for warning in found:
        warning.emit(stacklevel=stacklevel + 1)



@contextlib.contextmanager
def quiet_warnings() -> Iterator[None]:
    """Silence :class:`WorkbenchWarning` s in a ``with`` block.

    For a model fitted inside another (an ensemble member, a cross-validation refit) whose
    warnings the outer model reports in its own ``warnings_``, and for dashboards, which
    show ``warnings_`` in a panel instead of as text under the cell.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        yield
