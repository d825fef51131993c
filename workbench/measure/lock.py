"""One measurement at a time per machine.

A process-wide and cross-process lock for the expensive actions (measuring sweeps), and a
cap on the processes one sweep may start.

A measurement on a shared machine measures the machine's load as much as the program: two
sweeps at once spoil each other's timings and counters, and on a dashboard served to a class
every visitor could start one. So every sweep of the workbench (:func:`~workbench.measure.sweep.
measure_kmeans`, :func:`~workbench.measure.comm.sweep.run_sweep`,
:func:`~workbench.workloads.phases_demo.measure_phases_demo`) runs inside
:func:`exclusive_measurement`, and a dashboard that runs several of them as one action wraps
the whole action in it::

    from workbench.measure import exclusive_measurement

    with exclusive_measurement("FiM dashboard: small sweep", processes=4):
        ...  # measure; nested exclusive_measurement calls of this thread pass through

* **Non-blocking**: when another measurement holds the lock (in this process or any other of
  the same user on this machine) the call raises a :class:`~workbench.errors.MeasurementError`
  at once -- ``another measurement is running (K-means sweep, 8 processes, started 14:03 by
  alice, pid 4242) — try again when it finishes`` -- instead of queueing behind it.
* **Cross-process**: ``fcntl.flock`` on ``<runtime dir>/measure.lock``; the kernel releases it
  when the holder exits, however it exits (kill -9 included), so a lock is never stale. The
  holder's description (what, processes, start time, user, pid, host) is written into the
  file for the message above, and read by :func:`current_measurement`.
* **Runtime directory** (:func:`runtime_dir`): ``$WORKBENCH_RUNTIME_DIR`` if set, else
  ``$XDG_RUNTIME_DIR/workbench``, else ``<tempdir>/workbench-<uid>`` (created ``0700``; a
  directory owned by someone else or writable by others is refused). One lock per user: a
  Voila server's kernels all run as its user, so they share it. Give several users one lock
  by pointing ``WORKBENCH_RUNTIME_DIR`` at a directory they can all write to.
* **Reentrant per thread**: the thread that holds the lock may enter again (the dashboard's
  action, then each sweep inside it); another thread of the same process is refused like
  another process. A child made by ``fork`` does not inherit the holding.
* **Process cap** (:func:`max_processes`): a measurement announcing ``processes=n`` above the
  cap is refused before it starts; the cap is ``$WORKBENCH_MAX_PROCESSES`` if set, else
  ``max(8, 2 x CPUs)`` (8: the largest count of the default K-means design, which
  oversubscribes this 2-core machine on purpose). A server for a class sets it lower.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from workbench.errors import MeasurementError

__all__ = [
    "MAX_PROCESSES_ENV",
    "RUNTIME_DIR_ENV",
    "current_measurement",
    "exclusive_measurement",
    "lock_path",
    "max_processes",
    "runtime_dir",
]

#: Environment variable naming the directory of the lock file (see :func:`runtime_dir`).
RUNTIME_DIR_ENV = "WORKBENCH_RUNTIME_DIR"
#: Environment variable capping the processes of one measurement (see :func:`max_processes`).
MAX_PROCESSES_ENV = "WORKBENCH_MAX_PROCESSES"
_LOCK_NAME = "measure.lock"


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def _user() -> str:
    try:
        import getpass

        return getpass.getuser()
    except (ImportError, KeyError, OSError):
        return f"uid {_uid()}"


def runtime_dir() -> Path:
    """Return the directory of the measurement lock.

    ``$WORKBENCH_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/workbench``, else
    ``<tempdir>/workbench-<uid>``; created (mode 0700) if missing. A MeasurementError when
    it cannot be created or is not safely ours.
    """
    explicit = os.environ.get(RUNTIME_DIR_ENV)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if explicit:
        folder = Path(explicit).expanduser()
    elif xdg and Path(xdg).is_dir():
        folder = Path(xdg) / "workbench"
    else:
        folder = Path(tempfile.gettempdir()) / f"workbench-{_uid()}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise MeasurementError(f"cannot create the measurement lock directory {folder}: {exc.strerror or exc}; "
                               f"set {RUNTIME_DIR_ENV} to a directory you can write to") from None
    if not stat.S_ISDIR(info.st_mode):
        raise MeasurementError(f"the measurement lock directory {folder} is not a directory (a symlink?); "
                               f"remove it or set {RUNTIME_DIR_ENV}")
    if not explicit and (info.st_uid != _uid() or info.st_mode & 0o022):
        raise MeasurementError(f"the measurement lock directory {folder} belongs to another user or is writable "
                               f"by others; remove it or set {RUNTIME_DIR_ENV} to a directory of your own")
    return folder


def lock_path() -> Path:
    """Return the lock file: ``runtime_dir() / "measure.lock"``."""
    return runtime_dir() / _LOCK_NAME


def max_processes() -> int:
    """Return the most processes one measurement may use.

    ``$WORKBENCH_MAX_PROCESSES`` (an integer >= 1), else ``max(8, 2 * os.cpu_count())``.
    """
    value = os.environ.get(MAX_PROCESSES_ENV)
    if value is None or not value.strip():
        return max(8, 2 * (os.cpu_count() or 1))
    try:
        cap = int(value)
    except ValueError:
        cap = 0
    if cap < 1:
        raise MeasurementError(f"{MAX_PROCESSES_ENV}={value!r}: give the most processes one measurement may use "
                               "as an integer >= 1")
    return cap


# ----------------------------------------------------------------------------- state

class _State:
    """What this process holds.

    The lock file's descriptor, the holding thread, the depth of nested entries and the
    holder's description.
    """

    def __init__(self):
        self.guard = threading.Lock()
        self.fd: int | None = None
        self.owner: int | None = None
        self.depth = 0
        self.info: dict | None = None


_state = _State()


def _after_fork_in_child() -> None:
    global _state
    old = _state
    _state = _State()
    if old.fd is not None:  # the parent keeps the lock; the child's copy must not pose as it
        try:
            os.close(old.fd)
        except OSError:
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _describe(info: dict | None) -> str:
    if not info:
        return "another measurement is running (its description is not written yet)"
    parts = [str(info.get("what") or "a measurement")]
    if info.get("processes"):
        parts.append(f"{info['processes']} processes")
    started = info.get("started")
    try:
        when = datetime.fromisoformat(started).astimezone().strftime("%H:%M") if started else None
    except (TypeError, ValueError):
        when = None
    by = f"by {info.get('user', 'unknown user')}, pid {info.get('pid', '?')}"
    if info.get("host") and info.get("host") != socket.gethostname():
        by += f" on {info['host']}"
    parts.append(f"started {when} {by}" if when else f"started {by}")
    return f"another measurement is running ({', '.join(parts)})"


def _busy(info: dict | None) -> MeasurementError:
    return MeasurementError(f"{_describe(info)} — try again when it finishes")


def _read_info(fd: int) -> dict | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 65536).decode("utf-8", errors="replace")
        info = json.loads(text) if text.strip() else None
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def _open_lock() -> int:
    path = lock_path()
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags, 0o600)
    except OSError as exc:
        raise MeasurementError(f"cannot open the measurement lock {path}: {exc.strerror or exc}; "
                               f"set {RUNTIME_DIR_ENV} to a directory you can write to") from None


def current_measurement() -> dict | None:
    """Describe the measurement running on this machine, or return ``None`` when none is.

    The description holds ``what``, ``processes``, ``started`` ISO time, ``user``, ``pid``,
    ``host``. For a dashboard to say so before the user presses its button; the answer may
    be stale at once.
    """
    with _state.guard:
        if _state.owner is not None:
            return dict(_state.info or {})
    try:
        fd = _open_lock()
    except MeasurementError:
        return None
    try:
        info = _read_info(fd)
        if info is None:  # the holder empties the file when it finishes
            return None
        try:  # left by a holder that was killed? Then the lock is free (probed only in that case,
            # so that asking does not refuse a measurement starting at the same moment)
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return info
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextmanager
def exclusive_measurement(what: str, *, processes: int | None = None) -> Iterator[dict]:
    """Run the body as the only measurement on this machine (see the module docstring); yields the holder's description.

    ``what``: a short description shown to whoever is refused meanwhile (e.g.
    ``"K-means sweep (105 runs)"``); ``processes``: the most processes the measurement
    starts at once, checked against :func:`max_processes`.

    Raises :class:`~workbench.errors.MeasurementError` at once, without waiting, when another
    measurement runs, or when ``processes`` exceeds the cap.

    Parameters
    ----------
    what : str
        A short description shown to whoever is refused meanwhile (``"K-means sweep (105 runs)"``).
    processes : int, optional
        The most processes the measurement starts at once, checked against :func:`max_processes`.
    """
    cap = max_processes()
    if processes is not None and processes > cap:
        raise MeasurementError(
            f"{what}: {processes} processes exceed the limit of {cap} processes per measurement on this machine "
            f"(set {MAX_PROCESSES_ENV} to change it)"
        )
    me = threading.get_ident()
    with _state.guard:
        if _state.owner == me:  # nested entry of the holding thread
            _state.depth += 1
            nested = True
        elif _state.owner is not None:
            raise _busy(_state.info)
        else:
            nested = False
            _state.owner, _state.depth = me, 1  # reserve against the other threads of this process
    if nested:
        try:
            yield dict(_state.info or {})
        finally:
            with _state.guard:
                _state.depth -= 1
        return
    fd = None
    try:
        fd = _open_lock()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise _busy(_read_info(fd)) from None
            raise MeasurementError(f"cannot lock {lock_path()}: {exc.strerror or exc}") from None
        info = {
            "what": str(what),
            "processes": processes,
            "started": datetime.now().astimezone().isoformat(timespec="seconds"),
            "user": _user(),
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        except OSError:
            pass  # the description is for messages only
    except BaseException:
        if fd is not None:
            os.close(fd)
        with _state.guard:
            _state.owner, _state.depth = None, 0
        raise
    with _state.guard:
        _state.fd, _state.info = fd, info
    try:
        yield dict(info)
    finally:
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        os.close(fd)  # closing the last descriptor releases the flock
        with _state.guard:
            _state.fd, _state.info, _state.owner, _state.depth = None, None, None, 0
