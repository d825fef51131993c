"""A newcomer's first minutes, measured: fresh clone to course page, every dashboard loaded, nothing off the machine.

    python tools/first_hour.py                 # the real thing (minutes: a new .venv is installed)
    python tools/first_hour.py --reuse-venv --no-write   # quick: this venv, no install, block untouched

What it does, as a new user would (issue 23, Goals):

(a) ``git clone`` of this repository (its committed HEAD) into a temporary folder, with the data
    mirror reachable as ``../shared/data`` next to the clone and through ``WORKBENCH_DATA_MIRROR``,
    then ``make dashboards PORT=<a free port>`` there: the Makefile creates ``.venv`` and installs the
    package with pip (the machine's pip cache and indexes), then starts ``workbench serve``.  Timed
    until the course page (``/``) answers with its lessons.  Goal: <= 90 s.  ``--reuse-venv`` skips
    the install: make runs the server of the venv running this script (the clone first on
    ``PYTHONPATH``), for a quick check of everything else.
(b) Once the server's preheated kernels are ready, ``--busy`` busy-loop processes (default: one
    per core, i.e. both cores busy) run while every notebook of the clone's ``notebooks/`` is loaded
    in turn, through that server, in headless chromium (Playwright, ``/usr/bin/chromium`` with the
    arguments of the browser tests): timed from the page request until every visible
    ``.wb-figure`` is drawn at a non-zero size with at least one trace
    (:func:`workbench.ui.drive.open_dashboard`, then :func:`workbench.ui.drive.invisible_figures`).
    Each page is closed as a tab closes (its kernel released); before the next load the server
    refills its pool and falls idle (a person opens one dashboard, not ten in a row: loaded back to
    back, the refills of the previous pages' kernels would run during the next load;
    ``--back-to-back`` measures that instead).  Goal: median <= 5 s.
(c) Every request of those pages that would leave the machine (not loopback) is aborted and
    recorded (:func:`workbench.ui.drive.block_foreign_requests`, and the page's request and
    websocket events for anything the router does not see).  Goal: 0.

Prints a markdown report and, unless ``--no-write``, writes it between ``<!-- first-hour:begin -->``
and ``<!-- first-hour:end -->`` in whichever of README.md and docs/**/*.md holds them
(docs/serving-measurements.md; :mod:`readme_block`).  The machine is shared: the load average
before the loads is reported with the numbers.  Not part of the test suite.  Exit status 0 when
every dashboard loaded (whether or not the goals were met), 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from load_test import kernel_usage, server_pid_from_port, wait_idle
from readme_block import write_readme_block

from workbench.ui.drive import (
    DASHBOARDS,
    FOREIGN_URL,
    block_foreign_requests,
    invisible_figures,
    open_dashboard,
    page_problems,
)
from workbench.ui.serve import CHROMIUM, launch_chromium

ROOT = Path(__file__).resolve().parents[1]
BLOCK = "first-hour"
#: The goals of issue 23.
GOAL_COURSE_PAGE_S = 90
GOAL_MEDIAN_LOAD_S = 5
#: Variables of this shell that a newcomer's shell would not have (they would bend the
#: fresh install towards this checkout or its venv).
FOREIGN_ENV = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "CONDA_PREFIX", "DISPLAY", "WAYLAND_DISPLAY", "PORT",
               "SERVE_ARGS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")


@dataclass
class Load:
    """One dashboard's page load."""

    notebook: str
    seconds: float | None = None  # None: not every visible figure was drawn within the timeout
    figures: int = 0  # visible figures when done
    foreign: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _venv_environment(reuse_venv: bool, clone: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    # This script's venv off PATH: the Makefile must find the machine's python3.11 / python3.
    venv_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    if reuse_venv:
        env["PYTHONPATH"] = str(clone)  # the clone's package, not the venv's editable install
    return env


def make_command(port: int, reuse_venv: bool) -> list[str]:
    """``make dashboards`` on ``port``; with ``reuse_venv``, on this script's venv, its install stamp never remade."""
    cmd = ["make", "--no-print-directory", "dashboards", f"PORT={port}", "HOST=127.0.0.1", "SERVE_ARGS="]
    if reuse_venv:
        if sys.prefix == sys.base_prefix:
            raise SystemExit("--reuse-venv: run this script with a venv's python (e.g. .venv/bin/python)")
        stamp = Path(sys.prefix) / ".workbench-dashboards-installed"
        # -o: the stamp counts as up to date whatever pyproject.toml's date, so make never pip-installs
        # into the shared venv (an editable install would then point at the temporary clone).
        cmd += [f"VENV={sys.prefix}", "-o", str(stamp)]
    return cmd


def course_page_answers(url: str) -> bool:
    """The course page is served: status 200 and its list of lessons."""
    with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200 and b"lesson" in response.read()
    return False


def stop_tree(process: subprocess.Popen) -> None:
    """Stop ``process`` (make), the server it runs and the server's kernels (in sessions of their own)."""
    with contextlib.suppress(psutil.Error):
        descendants = psutil.Process(process.pid).children(recursive=True)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    _, alive = psutil.wait_procs(descendants, timeout=10)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()


@contextlib.contextmanager
def busy_cores(n: int):
    """``n`` processes each spinning one core, for the duration of the block."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
             for _ in range(n)]
    try:
        yield procs
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def wait_refilled(server: int, kernels: int, timeout_s: float) -> float:
    """Wait until the server holds ``kernels`` kernels again (its pools refilled) and is idle; return the seconds."""
    start = time.monotonic()
    while kernel_usage(server)["kernels"] < kernels and time.monotonic() - start < timeout_s:
        time.sleep(1)
    wait_idle(server, timeout_s=max(1.0, timeout_s - (time.monotonic() - start)), quiet_s=4)
    return time.monotonic() - start


def load_dashboard(browser, url: str, notebook: str, timeout_s: float) -> Load:
    """Load one dashboard in a fresh context, as the browser tests do; time it until every visible figure shows."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    record: list[str] = []
    block_foreign_requests(context, record)
    page = context.new_page()
    page.errors, page.foreign_requests = [], record
    seen: list[str] = []  # what the router may not see (websockets, service workers)
    page.on("request", lambda request: seen.append(request.url) if FOREIGN_URL.match(request.url) else None)
    page.on("websocket", lambda ws: seen.append(ws.url) if FOREIGN_URL.match(ws.url) else None)
    page.on("console", lambda msg: page.errors.append(f"console: {msg.text} ({msg.location.get('url')})")
            if msg.type == "error" else None)
    page.on("pageerror", lambda exc: page.errors.append(f"uncaught: {exc}"))
    load = Load(notebook)
    start = time.perf_counter()
    try:
        open_dashboard(page, url, timeout_s)
        left = max(0.5, timeout_s - (time.perf_counter() - start))
        missing = invisible_figures(page, timeout_s=left)
        if missing:
            load.problems += missing
        else:
            load.seconds = time.perf_counter() - start
    except Exception as exc:  # playwright's TimeoutError: recorded, the other dashboards still load
        load.problems.append(f"not loaded within {timeout_s:g} s: {str(exc).splitlines()[0]}")
    with contextlib.suppress(Exception):
        load.figures = page.evaluate("() => Array.from(document.querySelectorAll('.wb-figure'))"
                                     ".filter(f => f.offsetParent !== null).length")
        load.problems += page_problems(page)
    load.foreign = sorted(set(record) | set(seen))
    # Close the tab as a person does: Voila's beforeunload asks the server to shut the kernel down.
    with contextlib.suppress(Exception):
        with page.expect_event("close", timeout=10_000):
            page.close(run_before_unload=True)
        time.sleep(0.2)
    context.close()
    return load


def run(args) -> tuple[dict, list[Load]]:
    """Clone, serve with ``make dashboards``, load every dashboard; return the timings and the loads."""
    from playwright.sync_api import sync_playwright

    mirror = Path(args.data_mirror).resolve()
    if not mirror.is_dir():
        raise SystemExit(f"the data mirror {mirror} is not a folder (--data-mirror)")
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    tmp = Path(tempfile.mkdtemp(prefix="first-hour-"))
    clone = tmp / "workbench"
    (tmp / "shared").mkdir()
    (tmp / "shared" / "data").symlink_to(mirror)  # ../shared/data next to the clone, as in this project
    meta: dict = {"date": dt.date.today().isoformat(), "cores": os.cpu_count(), "reuse_venv": args.reuse_venv,
                  "back_to_back": args.back_to_back,
                  "memory_gib": round(psutil.virtual_memory().total / 2**30)}
    process = None
    try:
        t0 = time.time()
        subprocess.run(["git", "clone", "--quiet", str(args.repo), str(clone)], check=True)
        meta["clone_s"] = time.time() - t0
        meta["commit"] = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], check=True,
                                        capture_output=True, text=True).stdout.strip()
        env = _venv_environment(args.reuse_venv, clone)
        env["WORKBENCH_DATA_MIRROR"] = str(tmp / "shared" / "data")
        port = free_port()
        log_path = tmp / "make-dashboards.log"
        cmd = make_command(port, args.reuse_venv)
        print(f"$ cd {clone} && {' '.join(cmd)}   (log: {log_path})", flush=True)
        t_make = time.time()
        with open(log_path, "wb") as log:
            process = subprocess.Popen(cmd, cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        url = f"http://127.0.0.1:{port}/"
        deadline = t_make + args.timeout
        while not course_page_answers(url):
            if process.poll() is not None:
                raise SystemExit(f"make dashboards exited with {process.returncode}:\n"
                                 f"{log_path.read_text(errors='replace')[-3000:]}")
            if time.time() > deadline:
                raise SystemExit(f"the course page did not answer within {args.timeout} s:\n"
                                 f"{log_path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.25)
        t_page = time.time()
        meta["make_s"] = t_page - t_make
        meta["course_page_s"] = t_page - t0
        stamp = clone / ".venv" / ".workbench-dashboards-installed"
        if not args.reuse_venv and stamp.exists():
            meta["install_s"] = stamp.stat().st_mtime - t_make
        print(f"course page after {meta['course_page_s']:.1f} s (clone {meta['clone_s']:.1f} s, make dashboards "
              f"{meta['make_s']:.1f} s" + (f", of which .venv + pip {meta['install_s']:.1f} s" if "install_s" in meta
                                           else "") + ")", flush=True)

        server = server_pid_from_port(port)
        if server is None:
            raise SystemExit(f"no process listens on port {port}")
        idle = wait_idle(server, timeout_s=args.settle_timeout)
        meta["preheated_s"] = time.time() - t_page
        meta["kernels"] = idle["kernels"]
        print(f"preheated kernels ready {meta['preheated_s']:.0f} s after the course page: {idle}", flush=True)

        notebooks = sorted(p.name for p in (clone / "notebooks").glob("*.ipynb"))
        if args.notebooks:
            notebooks = [n for n in notebooks if any(n.startswith(prefix) for prefix in args.notebooks)]
        meta["load_average"] = os.getloadavg()[0]
        loads: list[Load] = []
        with sync_playwright() as playwright, busy_cores(args.busy):
            browser = launch_chromium(playwright, CHROMIUM)
            for notebook in notebooks:
                timeout = DASHBOARDS[notebook].load_timeout_s if notebook in DASHBOARDS else 90
                load = load_dashboard(browser, f"{url}voila/render/{notebook}", notebook, timeout)
                loads.append(load)
                if not args.back_to_back and notebook != notebooks[-1]:
                    wait_refilled(server, meta["kernels"], min(args.settle_timeout, 180))
                shown = "not drawn" if load.seconds is None else f"{load.seconds:.2f} s"
                print(f"{notebook}: {shown}, {load.figures} visible figures, {len(load.foreign)} requests off the "
                      f"machine, {len(load.problems)} problems {load.problems[:3]}", flush=True)
            browser.close()
        meta["kernels_after"] = kernel_usage(server)["kernels"]
        return meta, loads
    finally:
        if process is not None:
            stop_tree(process)
        if args.keep:
            print(f"kept {tmp}")
        else:
            subprocess.run(["rm", "-rf", str(tmp)], check=False)


def _mark(ok: bool) -> str:
    return "met" if ok else "**not met**"


def report(meta: dict, loads: list[Load], busy: int) -> str:
    """The markdown report: a title line, a blank line, the summary and the per-dashboard table."""
    times = [x.seconds for x in loads if x.seconds is not None]
    median = statistics.median(times) if times else float("nan")
    failed = [x.notebook for x in loads if x.seconds is None]
    foreign = sum(len(x.foreign) for x in loads)
    install = ("reusing this venv (`--reuse-venv`: no install)" if meta["reuse_venv"]
               else f"new .venv and pip install {meta['install_s']:.0f} s" if "install_s" in meta else "new .venv")
    lines = [
        f"First hour (tools/first_hour.py): fresh `git clone` of {meta['commit']}, `make dashboards`, "
        f"{len(loads)} dashboards in headless chromium with {busy} busy-loop processes; "
        f"{meta['cores']} cores, {meta['memory_gib']} GiB, {meta['date']}.",
        "",
        "| step | measured | goal |",
        "|---|---|---|",
        f"| fresh clone → course page answers | {meta['course_page_s']:.0f} s (clone {meta['clone_s']:.0f} s, "
        f"`make dashboards` {meta['make_s']:.0f} s: {install}, then the server) | ≤ {GOAL_COURSE_PAGE_S} s: "
        f"{_mark(meta['course_page_s'] <= GOAL_COURSE_PAGE_S)} |",
        f"| a dashboard until every visible figure is drawn (non-zero size, ≥ 1 trace), both cores busy: "
        f"median / max | {median:.1f} s / {max(times, default=float('nan')):.1f} s"
        + (f"; not drawn: {', '.join(failed)}" if failed else "")
        + f" | median ≤ {GOAL_MEDIAN_LOAD_S} s: {_mark(bool(times) and not failed and median <= GOAL_MEDIAN_LOAD_S)} |",
        f"| requests attempted off the machine during those loads | {foreign} | 0: {_mark(foreign == 0)} |",
        "",
        f"The preheated kernels ({meta['kernels']}) were ready {meta['preheated_s']:.0f} s after the course page "
        f"answered; the loads started then, with the machine's 1-min load average at {meta['load_average']:.1f} "
        "before the busy loops (the machine is shared), "
        + ("back to back (`--back-to-back`: the refills of the previous pages' kernels run during the next loads)."
           if meta["back_to_back"] else "one at a time, each once the server had refilled its pool and was idle."),
        "",
        "| dashboard | seconds to every visible figure drawn | visible figures | requests off the machine | problems |",
        "|---|---|---|---|---|",
    ]
    for x in loads:
        shown = "not drawn" if x.seconds is None else f"{x.seconds:.1f}"
        problems = "; ".join(p.replace("|", "/")[:120] for p in x.problems) or "0"
        lines.append(f"| {x.notebook} | {shown} | {x.figures} | {len(x.foreign)} | {problems} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reuse-venv", action="store_true",
                   help="skip the fresh install: make runs the server of this script's venv (quick run)")
    p.add_argument("--no-write", action="store_true", help="print only; leave the first-hour block alone")
    p.add_argument("--repo", default=str(ROOT), help="repository to clone (default: this one, its committed HEAD)")
    mirror = os.environ.get("WORKBENCH_DATA_MIRROR", str(ROOT.parent / "shared" / "data"))
    p.add_argument("--data-mirror", default=mirror,
                   help="the real-data mirror (default: $WORKBENCH_DATA_MIRROR, else ../shared/data)")
    p.add_argument("--busy", type=int, default=os.cpu_count() or 2, help="busy-loop processes during the loads "
                   "(default: one per core)")
    p.add_argument("--notebooks", nargs="*", default=None, help="only notebooks starting with these prefixes")
    p.add_argument("--timeout", type=float, default=900, help="seconds allowed for the course page to answer")
    p.add_argument("--settle-timeout", type=float, default=600,
                   help="seconds allowed for the preheated kernels to be ready before the loads")
    p.add_argument("--back-to-back", action="store_true",
                   help="load the next dashboard at once, not after the server refilled its pool and fell idle")
    p.add_argument("--keep", action="store_true", help="keep the temporary clone (and its make log)")
    args = p.parse_args(argv)
    meta, loads = run(args)
    text = report(meta, loads, args.busy)
    print("\n" + text)
    if not args.no_write:
        if args.notebooks:
            print("not writing the block: --notebooks measured only some dashboards", file=sys.stderr)
        else:
            path = write_readme_block(f"<!-- {BLOCK}:begin", f"<!-- {BLOCK}:end -->", text)
            print(f"wrote the {BLOCK} block in {path.relative_to(ROOT)}")
    return 0 if all(x.seconds is not None for x in loads) else 1


if __name__ == "__main__":
    sys.exit(main())
