"""Serve the dashboards with Voila and open them in headless chromium, from Python.

Used by the browser tests (``tests/browser/``) and ``tools/screenshots.py``; ``make
dashboards`` runs the same Voila command in the foreground, with preheated kernels.

* :func:`voila_server` starts Voila over ``notebooks/`` on a free local port, waits until it
  answers and stops it (and the kernels of the pages it served) on exit.
* :func:`launch_chromium` opens Debian's ``/usr/bin/chromium`` through Playwright for
  Python (never ``playwright install``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "PLOTLY_TRACES", "ROOT", "VoilaServer", "launch_chromium", "voila_server"]

#: The repository: Voila starts here so that ./voila.json (kernel culling, cell timeout) applies.
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

#: CSS selector of what a rendered plotly figure draws for its traces (legend entries are
#: ``g.traces``, not matched): their geometry changes when the figure is redrawn.
PLOTLY_TRACES = ".trace path, .trace image, .hm image"


@dataclass(frozen=True)
class VoilaServer:
    url: str  # e.g. http://127.0.0.1:40123/
    process: subprocess.Popen
    log_path: Path  # Voila's stdout and stderr

    def render_url(self, notebook: str) -> str:
        """Address of one dashboard, ``notebook`` relative to the served folder."""
        return f"{self.url}voila/render/{notebook}"

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _child_pids(pid: int) -> list[int]:
    """Direct children of ``pid`` (Linux /proc; empty elsewhere)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            children.append(int(stat.parent.name))
    return children


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(os.getpgid(pid), sig)


def _stop(process: subprocess.Popen) -> None:
    # jupyter_client starts each kernel in a session of its own, out of reach of Voila's
    # process group; ipykernel exits with its parent, and we make sure of it.
    kernels = _child_pids(process.pid)
    _kill_group(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid, signal.SIGKILL)
        process.wait()
    for pid in kernels:
        with contextlib.suppress(OSError):
            if b"ipykernel" in Path(f"/proc/{pid}/cmdline").read_bytes():
                _kill_group(pid, signal.SIGKILL)


@contextlib.contextmanager
def voila_server(
    log_path: Path,
    notebook_dir: str = "notebooks",
    *,
    cell_timeout_s: int = 120,
    start_timeout_s: float = 60,
    env: Mapping[str, str] | None = None,
) -> Iterator[VoilaServer]:
    """Run Voila over ``notebook_dir`` (relative to :data:`ROOT`) on a free local port.

    ``--Voila.port_retries=0`` makes a taken port an error instead of a silent move to
    another one; ``cell_timeout_s`` turns a hanging cell into an error on the page.  The
    server runs in a new session and its process group is killed on exit.  Raises
    ``RuntimeError`` (with the end of Voila's log) if it exits or does not answer within
    ``start_timeout_s``.
    """
    port = _free_port()
    cmd = [
        sys.executable, "-m", "voila", notebook_dir,
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--Voila.port={port}",
        "--Voila.port_retries=0",
        f"--VoilaExecutor.timeout={cell_timeout_s}",
        # No preheated kernels (voila.json turns them on for `make dashboards`): refilling
        # the pool runs a notebook while the browser loads the page's FigureWidget
        # JavaScript (~5 MB each), and anywidget gives a model only 2 s to initialize;
        # on a busy 2-core machine it then fails and the figure never updates.
        "--preheat_kernel=False",
    ]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            cmd, cwd=ROOT, env=dict(os.environ if env is None else env), stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
    server = VoilaServer(f"http://127.0.0.1:{port}/", process, Path(log_path))
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"voila exited with code {process.returncode}:\n{server.log_tail()}")
            with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError):
                with urllib.request.urlopen(server.url, timeout=2) as response:
                    if response.status == 200:
                        break
            if time.monotonic() > deadline:
                raise RuntimeError(f"voila did not answer on {server.url} within {start_timeout_s} s:\n{server.log_tail()}")
            time.sleep(0.2)
        yield server
    finally:
        _stop(process)


def launch_chromium(playwright, executable: Path = CHROMIUM):
    """A headless chromium ``Browser`` from a started ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=str(executable), args=list(CHROMIUM_ARGS), headless=True)
