"""Run a command under ``perf stat`` and read its counters (FiM-Cal inputs, paper section 2.1).

:func:`run_perf_stat` runs ``perf stat -x, -e cycles,stalled-cycles-frontend,
stalled-cycles-backend,task-clock -- argv`` and returns the parsed
:class:`~workbench.io.perf.PerfStat` with the command's output. perf counts the command and
every process it forks.

Control mode (``control=True``, perf >= 5.9): perf starts with the counters disabled
(``-D -1``) and listens on a control fifo (``--control fifo:CTL,ACK``); the fifo paths are
passed to the command in ``WORKBENCH_PERF_CTL`` / ``WORKBENCH_PERF_ACK``. The command wraps
its calculation phase in :func:`perf_region`, so interpreter start-up and data generation
are not counted. Processes forked while the counters are enabled are counted. perf's
"CPUs utilized" is then task-clock over the wall time of the *whole* run, not of the
counted region: a utilisation of the calculation phase must use the command's own timing
(see :mod:`workbench.measure.sweep`).

``perf_event_paranoid``: unprivileged users need ``kernel.perf_event_paranoid <= 2`` for
user-space counters (root is not limited); in virtual machines without PMU passthrough the
hardware events are ``<not supported>`` whatever the setting.
"""

from __future__ import annotations

import os
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import DataFormatError, MeasurementError

if TYPE_CHECKING:
    from workbench.io.perf import PerfStat

# workbench.io.perf is imported where it is used: the measured workload imports this module
# for perf_region() and should not pay for loading pandas (workbench.io) at every start-up.

__all__ = [
    "ACK_ENV",
    "CTL_ENV",
    "DEFAULT_EVENTS",
    "PerfRun",
    "perf_available",
    "perf_region",
    "perf_unavailable_reason",
    "run_perf_stat",
]

#: Events counted by :func:`run_perf_stat` (TC, the two kinds of stall cycles, CPU time).
DEFAULT_EVENTS = ("cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "task-clock")
#: Environment variables carrying the control / acknowledgement fifo paths to the command.
CTL_ENV = "WORKBENCH_PERF_CTL"
ACK_ENV = "WORKBENCH_PERF_ACK"
#: Seconds :func:`perf_region` waits for perf's acknowledgement.
ACK_TIMEOUT_S = 30.0

_INSTALL_HINT = "install it: `apt-get install linux-perf` (Debian) or `linux-tools-$(uname -r)` (Ubuntu)"


@dataclass(frozen=True)
class PerfRun:
    """One command run under perf: its counters, standard output and standard error."""

    stat: PerfStat
    stdout: str
    stderr: str


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:]) or "(empty)"


@lru_cache(maxsize=1)
def perf_unavailable_reason() -> str | None:
    """``None`` when ``perf stat`` counts cycles here, else why not (checked once, cached)."""
    exe = shutil.which("perf")
    if exe is None:
        return f"perf is not on PATH: {_INSTALL_HINT}"
    try:
        proc = subprocess.run(
            [exe, "stat", "-x,", "-e", "cycles,task-clock", "true"],
            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`perf stat -e cycles true` could not run: {exc}"
    from workbench.io.perf import read_perf_stat

    if proc.returncode != 0:
        return f"`perf stat -e cycles true` failed (exit {proc.returncode}): {_tail(proc.stderr, 3)}"
    try:
        stat = read_perf_stat(proc.stderr)
    except (DataFormatError, MeasurementError) as exc:
        return str(exc)
    return None if stat.cycles > 0 else "`perf stat -e cycles true` counted 0 cycles"


def perf_available() -> bool:
    """Whether ``perf`` is on PATH and ``perf stat -e cycles true`` gives a count (cached)."""
    return perf_unavailable_reason() is None


@contextmanager
def perf_region() -> Iterator[bool]:
    """Count only the enclosed code when run under :func:`run_perf_stat` in control mode.

    With ``WORKBENCH_PERF_CTL`` / ``WORKBENCH_PERF_ACK`` set, writes ``enable`` to the
    control fifo and waits for perf's ``ack``, and ``disable`` (+ ack) on exit; without
    them it does nothing. Yields whether the counters are controlled.
    """
    ctl, ack = os.environ.get(CTL_ENV), os.environ.get(ACK_ENV)
    if not ctl or not ack:
        yield False
        return
    try:
        # Non-blocking: perf holds both fifos open, so a missing reader means perf is gone.
        ctl_fd = os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
        ack_fd = os.open(ack, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise MeasurementError(
            f"perf_region: cannot open the perf control fifos {CTL_ENV}={ctl!r}, {ACK_ENV}={ack!r}: "
            f"{exc.strerror or exc} (is the command running under `perf stat --control`?)"
        ) from None
    try:
        _command(ctl_fd, ack_fd, b"enable")
        try:
            yield True
        finally:
            _command(ctl_fd, ack_fd, b"disable")
    finally:
        os.close(ctl_fd)
        os.close(ack_fd)


def _command(ctl_fd: int, ack_fd: int, word: bytes) -> None:
    """Send one control command and wait for perf's ``ack`` line."""
    os.write(ctl_fd, word + b"\n")
    buffer = b""
    while b"ack\n" not in buffer:
        ready, _, _ = select.select([ack_fd], [], [], ACK_TIMEOUT_S)
        if not ready:
            raise MeasurementError(f"perf_region: perf did not acknowledge {word.decode()!r} "
                                   f"within {ACK_TIMEOUT_S:g} s")
        try:
            chunk = os.read(ack_fd, 64)
        except BlockingIOError:
            continue
        # perf writes "ack\n" with its terminating NUL, which can lead the next reply.
        buffer += chunk.replace(b"\x00", b"")


def _perf_command(tmp: Path, out: Path, argv: list[str], events: list[str], control: bool,
                  env: Mapping[str, str] | None) -> tuple[list[str], dict[str, str]]:
    """Return the ``perf stat`` command line writing to ``out`` and the command's environment.

    In control mode the fifos are made in ``tmp`` and named to the command through
    :data:`CTL_ENV` / :data:`ACK_ENV`; otherwise those variables are removed, so that a
    :func:`perf_region` in the command does nothing.
    """
    cmd = ["perf", "stat", "-x,", "-o", str(out), "-e", ",".join(events)]
    child_env = dict(os.environ if env is None else env)
    if control:
        ctl, ack = tmp / "ctl.fifo", tmp / "ack.fifo"
        os.mkfifo(ctl)
        os.mkfifo(ack)
        cmd += ["-D", "-1", "--control", f"fifo:{ctl},{ack}"]
        child_env.update({CTL_ENV: str(ctl), ACK_ENV: str(ack)})
    else:
        child_env.pop(CTL_ENV, None)
        child_env.pop(ACK_ENV, None)
    return cmd + ["--", *argv], child_env


def run_perf_stat(
    argv: Sequence[str],
    *,
    events: Sequence[str] = DEFAULT_EVENTS,
    control: bool = True,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> PerfRun:
    """Run ``argv`` under ``perf stat -x,`` and return its counters and output.

    ``control`` is explained in the module docstring.  Raises
    :class:`~workbench.errors.MeasurementError` when perf is missing, the counters are not
    supported, or the command fails or times out (with the tail of its standard error).

    Parameters
    ----------
    argv : sequence of str
        The command.
    events : sequence of str, default DEFAULT_EVENTS
        perf events; must include ``cycles`` and ``task-clock`` (or ``cpu-clock``).
    control : bool, default True
        Count only inside the command's :func:`perf_region`.
    env : mapping of str to str, optional
        The command's whole environment; default: this process's.
    timeout : float, optional
        Seconds after which the command's process group is killed; default None: no limit.
    """
    argv = [str(a) for a in argv]
    events = [str(e) for e in events]
    if not argv:
        raise MeasurementError("run_perf_stat: argv is empty: give the command to measure")
    reason = perf_unavailable_reason()
    if reason is not None:
        raise MeasurementError(f"run_perf_stat: cannot measure {argv[0]!r}: {reason}")
    with tempfile.TemporaryDirectory(prefix="workbench-perf-") as tmp:
        out = Path(tmp) / "perf.csv"
        cmd, child_env = _perf_command(Path(tmp), out, argv, events, control, env)
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            env=child_env, text=True, start_new_session=True,
        )
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            raise MeasurementError(
                f"run_perf_stat: {shlex.join(argv)} timed out after {timeout:g} s and was killed; "
                f"stderr tail:\n{_tail(stderr)}"
            ) from None
        if proc.returncode != 0:
            hint = ""
            if "control" in stderr and ("unknown option" in stderr or "usage" in stderr.lower()):
                hint = " (perf < 5.9 has no --control: update perf or use control=False)"
            raise MeasurementError(
                f"run_perf_stat: {shlex.join(argv)} failed with exit code {proc.returncode}{hint}; "
                f"stderr tail:\n{_tail(stderr)}"
            )
        text = out.read_text(errors="replace") if out.exists() else ""
    from workbench.io.perf import read_perf_stat

    try:
        stat = read_perf_stat(text)
    except MeasurementError as exc:
        if control and "not counted" in str(exc):
            raise MeasurementError(
                f"run_perf_stat: no cycles counted for {shlex.join(argv)}: in control mode the "
                f"command must enable the counters with workbench.measure.perf_region() ({exc})"
            ) from None
        raise
    except DataFormatError as exc:
        raise MeasurementError(f"run_perf_stat: unreadable perf output for {shlex.join(argv)}: {exc}") from None
    return PerfRun(stat=stat, stdout=stdout, stderr=stderr)
