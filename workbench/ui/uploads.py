"""Upload messages in the project's own words, for every dashboard that accepts files.

A failed upload shows three things: what is wrong (the reader's message, which names the
file and, where there is one, the line), what the dashboard expects, and an example header
line.  The readers of :mod:`workbench.io` raise :class:`~workbench.errors.WorkbenchError` s
that say the first; :meth:`UploadFormat.explaining` adds the other two, and turns anything
else a reader raises (a bug) into a message that quotes no library text.

Usage, in a dashboard's upload handler::

    with show_errors(self.messages), FORMAT.explaining():
        frame = read_the_files(files)
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from workbench.errors import DataFormatError, WorkbenchError

__all__ = ["UploadFormat"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class UploadFormat:
    """What a dashboard reads from an upload.

    ``expects`` in words (a sentence or two) and ``example``, a header line of a file it
    accepts.
    """

    expects: str
    example: str

    def explain(self, message: str) -> str:
        """Append what the dashboard expects and the example header to ``message``.

        The example header is left out when the message quotes it already.

        Parameters
        ----------
        message : str
            The error message.
        """
        text = str(message).rstrip()
        tail = self.expects
        if self.example not in text:
            tail += f" Example header line: {self.example}"
        return f"{text}\n{tail}"

    @contextlib.contextmanager
    def explaining(self, names: Sequence[str] = ()) -> Iterator[None]:
        """Re-raise a :class:`~workbench.errors.WorkbenchError` of the body with :meth:`explain` ed text (same type).

        Any other exception of a reader becomes a
        :class:`~workbench.errors.DataFormatError` naming the files, logged with its
        traceback.

        Parameters
        ----------
        names : sequence of str, default ()
            The uploaded files' names, for an unexpected error's message.
        """
        try:
            yield
        except WorkbenchError as exc:
            raise type(exc)(self.explain(str(exc))) from None
        except Exception as exc:
            log.error("an upload reader raised %s", type(exc).__name__, exc_info=True)
            files = ", ".join(names) or "the uploaded file"
            raise DataFormatError(self.explain(
                f"{files}: could not be read (an unexpected {type(exc).__name__} in the workbench's reader; "
                "it was logged for the developers)")) from None
