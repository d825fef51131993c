"""The project's own exception and warning types.

Every loader, validator and estimator raises a subclass of :class:`WorkbenchError`
with a message that names the offending file, column or value, so that a notebook can
show it to the user instead of a traceback.
"""

from sklearn.exceptions import NotFittedError as _SklearnNotFittedError


class WorkbenchError(ValueError):
    """Base class of every error raised on purpose by the workbench."""


class DataFormatError(WorkbenchError):
    """A file could not be read: unknown format, corrupt or truncated content."""


class ValidationError(WorkbenchError):
    """Data were read but are unusable: missing columns, NaN, non-positive times, ..."""


class NotFittedError(ValidationError, _SklearnNotFittedError):
    """A model was used (predict, intervals, warnings) before ``fit``.  Also a scikit-learn
    ``NotFittedError``, so code written for scikit-learn estimators catches it too."""


class DatasetNotFoundError(WorkbenchError):
    """A catalogue dataset is unknown or its files are not in the local mirror."""


class MeasurementError(WorkbenchError):
    """A measurement could not be taken: perf missing, counters unsupported, the measured
    command failed or timed out."""


class WorkbenchWarning(UserWarning):
    """Base class of the workbench's warnings (e.g. a skipped, aborted NPB log)."""


class ParseWarning(WorkbenchWarning):
    """A file was skipped or only partly understood while parsing."""
