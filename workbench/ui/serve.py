"""Serve the dashboards with Voila.

One definition for ``make dashboards``, the browser tests and the tools, and headless
chromium from Python.

Command line (what ``make dashboards`` runs as ``workbench serve``; see ``docs/serving.md``)::

    workbench serve [NOTEBOOK_DIR] [--host 127.0.0.1] [--port 8866] [--no-browser]
        [--generate-token | --token-file FILE | --password | --password-hash-file FILE]
        [--pool NOTEBOOK=N ...] [--cell-timeout S] [--max-kernels N] [--max-kernels-per-client N]
        [--print-config] [--Class.trait=value ...]

(also ``python -m workbench.ui.serve``).  Everything else comes from the project's
``voila.json`` (preheated kernels, kernel culling, the kernel cap, the cell timeout, Host
check, websocket message limit), read whatever the current directory: the repository's, or
the copy an installed wheel carries (:mod:`workbench.io.locations`).  Serving beyond loopback
(``--host 0.0.0.0`` or a LAN address) requires a token (environment variable
:data:`TOKEN_ENV`, ``--token-file`` or ``--generate-token``) or a password; without one the
command refuses to start.

* :func:`voila_server` runs that same command in the background on a free local port (browser
  tests, ``tools/screenshots.py``, ``tools/load_test.py``) and stops it, and the kernels of
  the pages it served, on exit.
* :func:`launch_chromium` opens Debian's ``/usr/bin/chromium`` through Playwright for
  Python (never ``playwright install``).
* :class:`WorkbenchKernelManager` and :class:`WorkbenchIdentityProvider` (named in
  ``voila.json``) cap the kernels and make closed pages release theirs; the render handler
  (:func:`capped_render_handler`) refuses pages beyond the cap: see their docstrings.
* Pages request nothing off the machine (:data:`TEMPLATE_DIR`) and reading a notebook logs no
  trust warning (:class:`WorkbenchContentsManager`).  These override private members of Voila
  0.5.13 (:data:`VOILA_TESTED`), checked by :func:`voila_internals_problems`.
* The root (and Voila's tree pages, redirected there) is the course page
  (:func:`workbench.course.landing.landing_html`, :class:`CoursePageHandler`): the lessons in
  order, each with its screenshot (published at ``course/screenshots/``) and a link that opens
  its dashboard.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import functools
import getpass
import inspect
import ipaddress
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.base.handlers import JupyterHandler, path_regex
from jupyter_server.services.contents.largefilemanager import LargeFileManager
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from jupyter_server.utils import url_path_join
from tornado import web
from traitlets import Bool, Integer

from workbench.course.landing import SCREENSHOT_ROUTE, landing_html, server_full_html, voila_url
from workbench.course.path import COURSE
from workbench.io.locations import NOTEBOOK_DIR, RESOURCE_ROOT, SCREENSHOT_DIR, VOILA_CONFIG
from workbench.ui.limits import UPLOAD_LIMIT_BYTES

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "CONFIG_FILE",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "HEADROOM_BYTES",
    "HEADROOM_FRACTION",
    "KERNEL_MEMORY_BYTES",
    "MIN_PAGES",
    "PLOTLY_TRACES",
    "ROOT",
    "TEMPLATE_DIR",
    "TOKEN_ENV",
    "UPLOAD_LIMIT_BYTES",
    "VOILA_TESTED",
    "WEBSOCKET_MAX_MESSAGE_BYTES",
    "CoursePageHandler",
    "ServeError",
    "ServeOptions",
    "VoilaServer",
    "WorkbenchContentsManager",
    "WorkbenchIdentityProvider",
    "WorkbenchKernelManager",
    "build_app",
    "capped_render_handler",
    "course_page",
    "install_voila_overrides",
    "is_loopback",
    "launch_chromium",
    "main",
    "memory_kernel_cap",
    "parse_args",
    "serve_command",
    "voila_internals_problems",
    "voila_server",
]

#: The repository (or, installed from a wheel, the package's copies of its files:
#: :mod:`workbench.io.locations`); its voila.json is the one configuration of every server
#: started here.
ROOT = RESOURCE_ROOT
CONFIG_FILE = VOILA_CONFIG
#: Templates found before Voila's (``index.html.j2``, ``page.html``): Voila's lab template
#: without the Font Awesome stylesheets it asks cdn.jsdelivr.net for (its own bundle already
#: carries Font Awesome 5), so that no page requests anything off the machine.
TEMPLATE_DIR = Path(__file__).with_name("voila_templates")
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

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8866
#: Environment variable holding the access token (never put on a command line, where
#: ``ps`` shows it to every user of the machine); removed before any kernel starts.
TOKEN_ENV = "WORKBENCH_TOKEN"
MIN_TOKEN_LENGTH = 16

#: Largest websocket message the server reads (tornado's ``websocket_max_message_size``,
#: 10 MiB by default).  A file upload reaches the kernel as one message of about the file's
#: size; above this limit tornado closes the page's kernel connection (code 1009, the page
#: shows "Connection lost, reconnecting" and the upload is lost) before Python can say
#: anything, so it is set well above :data:`UPLOAD_LIMIT_BYTES`: files between the two get
#: the dashboard's message, and only files over twice the limit drop the connection.
WEBSOCKET_MAX_MESSAGE_BYTES = 2 * UPLOAD_LIMIT_BYTES + 2**20


#: Memory of one dashboard's kernel once used (RSS, children included: 0.3-0.45 GB measured,
#: docs/serving.md), the unit of the default kernel cap.
KERNEL_MEMORY_BYTES = 400 * 2**20
#: Memory kept free whatever the kernels take: the server itself (~0.2 GB), uploads being read
#: (up to ~3x a 20 MiB file), the operating system and other users: 1 GiB + 10 % of the machine.
HEADROOM_BYTES = 2**30
HEADROOM_FRACTION = 0.10


class ServeError(Exception):
    """A configuration the server refuses to start with (the message says what to do)."""


def _memory_bytes() -> tuple[int, int]:
    """Return ``(available, total)`` memory in bytes (Linux ``/proc/meminfo``, else ``os.sysconf``)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = {line.split(":")[0]: int(line.split()[1]) * 1024
                  for line in Path("/proc/meminfo").read_text().splitlines() if line.endswith("kB")}
        return fields["MemAvailable"], fields["MemTotal"]
    page = os.sysconf("SC_PAGE_SIZE")
    return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page


def memory_kernel_cap(available: int | None = None, total: int | None = None) -> int:
    """Return the default kernel cap: how many dashboards' kernels the memory holds.

    ``floor((available - headroom) / KERNEL_MEMORY_BYTES)``, headroom = 1 GiB + 10 % of the
    total memory (:data:`HEADROOM_BYTES`, :data:`HEADROOM_FRACTION`), at least 1.  Memory is
    read when the server starts (``MemAvailable``: what it can use without swapping).  E.g.
    24 GiB total, 21 GiB available: (21 - 1 - 2.4) GiB / 0.39 GiB = 45 kernels.

    Parameters
    ----------
    available, total : int, optional
        Bytes; default: this machine's, now.

    Returns
    -------
    int
        The largest number of kernels (preheated pools included) the server should hold.
    """
    if available is None or total is None:
        measured = _memory_bytes()
        available = measured[0] if available is None else available
        total = measured[1] if total is None else total
    headroom = HEADROOM_BYTES + HEADROOM_FRACTION * total
    return max(1, int((available - headroom) // KERNEL_MEMORY_BYTES))


@dataclass(eq=False)
class _PageSlot:
    """One admitted page: the visitor's address and, once it has one, its kernel."""

    client: str
    kernel_id: str | None = None


#: The page whose request is being served in this task (set by the render handler, read where
#: Voila starts or hands out the page's kernel: the preheating's refills run without it).
_PAGE_SLOT: contextvars.ContextVar[_PageSlot | None] = contextvars.ContextVar("workbench_page_slot", default=None)


# --------------------------------------------------------------------------- server classes


class WorkbenchKernelManager(AsyncMappingKernelManager):
    """Voila's kernel manager base: a kernel cap, a per-visitor limit, and a culler that frees closed pages soon.

    The base is ``VoilaConfiguration.multi_kernel_manager_class``; the culler does not touch
    open pages.

    **Capacity.**  Every page holds a kernel (~0.3-0.45 GB) until it closes, so plain GETs
    of dashboard URLs (a script, a class refreshing) could fill the server's memory.  The
    server holds at most :attr:`max_kernels` kernels, the preheated pools included (0: derived
    from memory, :func:`memory_kernel_cap`), and one visitor address at most
    :attr:`max_kernels_per_client` pages (loopback addresses, i.e. this machine's users or a
    reverse proxy, only when :attr:`limit_loopback_clients`: Voila does not read
    ``X-Forwarded-For``, so behind a proxy every student would share one address).
    :meth:`admit_page` decides before a page starts or takes a kernel: beyond either limit
    the render handler answers ``503`` with ``Retry-After`` (:attr:`full_retry_after`) and
    starts nothing.  The pools' kernels are reserved: pages get ``max_kernels`` minus the
    pools' sizes, so refills never exceed the cap.

    **Culling.**  jupyter_server's culler (``MappingKernelManager.cull_kernel_if_idle``) shuts
    a kernel down when it has been idle longer than ``cull_idle_timeout``, is not busy and,
    with ``cull_connected=False``, has no websocket connection: an open page (connected) is
    never culled, a closed one is, at the next pass.  Voila's preheating adds a gap it does
    not cover: a pooled kernel (never culled while in the pool) may have been idle for hours
    when a page takes it, and the page connects only after loading its JavaScript; a culler
    pass in between would kill the kernel of a page that is still loading.  So a kernel is
    culled only once, in addition,

    * ``cull_idle_timeout`` seconds have passed since it left the pool and since its last
      page disconnected (a reload or a dropped network gets that long to reconnect), and
    * a kernel no page ever connected to is given :attr:`never_connected_timeout` seconds
      (slow page loads on a busy server); a page's kernel is then shut down at the next pass
      unless busy, however recently its notebook ran (a GET without a browser never connects).

    "Left the pool" is when a page got the kernel (:meth:`admit_page`'s slot), else when
    culler passes start seeing it (Voila's manager does not pass pooled kernels on): the first
    pass that sees it, or the first after a gap of more than two intervals.
    """

    never_connected_timeout = Integer(
        40,
        config=True,
        help="Seconds a kernel that no page ever connected to is kept after it left the pool.",
    )
    max_kernels = Integer(
        0,
        config=True,
        help="Most kernels the server holds, preheated pools included (0: derived from memory, "
             "workbench.ui.serve.memory_kernel_cap).",
    )
    max_kernels_per_client = Integer(
        10,
        config=True,
        help="Most pages (kernels) one visitor address holds at once (behind a proxy: the proxy's, unless "
             "ServerApp.trust_xheaders).",
    )
    limit_loopback_clients = Bool(
        False,
        config=True,
        help="Apply max_kernels_per_client to loopback addresses too (off: on 127.0.0.1 every page is this "
             "machine's, or a reverse proxy's, and only the cap applies).",
    )
    full_retry_after = Integer(
        30,
        config=True,
        help="Seconds a page refused for lack of capacity says to wait (HTTP Retry-After).",
    )

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._outside_pool_since: dict[str, float] = {}
        self._last_pass: dict[str, float] = {}
        self._disconnected_at: dict[str, float] = {}
        self._ever_connected: set[str] = set()
        self._pages: list[_PageSlot] = []

    # ----------------------------------------------------------------- capacity

    @functools.cached_property
    def kernel_cap(self) -> int:
        """The cap in force: :attr:`max_kernels`, or :func:`memory_kernel_cap` when it is 0."""
        return self.max_kernels if self.max_kernels > 0 else memory_kernel_cap()

    def pool_reserve(self) -> int:
        """Kernels kept for the preheated pools (0 here; the class pool counts its pools' sizes)."""
        return 0

    def page_count(self, client: str | None = None) -> int:
        """Pages holding (or about to start) a kernel, of every visitor or of ``client``."""
        return sum(client is None or page.client == client for page in self._pages)

    def admit_page(self, client: str) -> tuple[_PageSlot | None, str | None]:
        """Admit a page for ``client`` (its address): ``(slot, None)``, or ``(None, reason)`` beyond a limit.

        The slot counts until the page's kernel shuts down (or, if it never got one, until
        its request ends: :meth:`release_page`).
        """
        cap, reserve = self.kernel_cap, self.pool_reserve()
        if self.page_count() >= cap - reserve:
            return None, (f"The server is full: it holds at most {cap} dashboards' kernels ({reserve} kept ready "
                          f"for the next visitors), and {self.page_count()} pages are open.")
        limited = self.limit_loopback_clients or not is_loopback(client)
        if limited and self.page_count(client) >= self.max_kernels_per_client:
            return None, (f"Your address has {self.page_count(client)} dashboards open, the most one visitor may "
                          f"have at once ({self.max_kernels_per_client}).")
        page = _PageSlot(client)
        self._pages.append(page)
        return page, None

    def release_page(self, page: _PageSlot) -> None:
        """Forget ``page`` if it never got a kernel (its request ended without one)."""
        if page.kernel_id is None and page in self._pages:
            self._pages.remove(page)

    def bind_page(self, kernel_id: str) -> None:
        """Give ``kernel_id`` to the page being served in this task, if any (it has left the pool now)."""
        page = _PAGE_SLOT.get()
        if page is not None and page.kernel_id is None:
            page.kernel_id = kernel_id
            now = time.monotonic()
            self._outside_pool_since[kernel_id] = self._last_pass[kernel_id] = now

    async def start_kernel(self, *args, **kwargs):
        """Start a kernel; a page being served (:meth:`admit_page`) gets it."""
        kernel_id = await super().start_kernel(*args, **kwargs)
        self.bind_page(kernel_id)
        return kernel_id

    # ----------------------------------------------------------------- culling

    def notify_connect(self, kernel_id):
        """Record that a page connected to ``kernel_id``."""
        super().notify_connect(kernel_id)
        self._ever_connected.add(kernel_id)
        self._disconnected_at.pop(kernel_id, None)

    def notify_disconnect(self, kernel_id):
        """Record when the last connection to ``kernel_id`` closed."""
        super().notify_disconnect(kernel_id)
        if self._kernel_connections.get(kernel_id, 0) <= 0:
            self._disconnected_at[kernel_id] = time.monotonic()

    def cull_grace_left(self, kernel_id: str, now: float | None = None) -> float:
        """Seconds before the culler may consider ``kernel_id`` (0: it applies its own rules)."""
        now = time.monotonic() if now is None else now
        last = self._last_pass.get(kernel_id)
        if last is None or now - last > max(2 * self.cull_interval, 10):
            self._outside_pool_since[kernel_id] = now
        self._last_pass[kernel_id] = now
        since = self._outside_pool_since[kernel_id]
        since = max(since, self._disconnected_at.get(kernel_id, since))
        grace = self.cull_idle_timeout if kernel_id in self._ever_connected else self.never_connected_timeout
        return max(0.0, since + grace - now)

    async def cull_kernel_if_idle(self, kernel_id):
        """Cull ``kernel_id`` once it is dead or its grace (:meth:`cull_grace_left`) is over.

        A page's kernel (:meth:`admit_page`) that the page never connected to is then shut
        down unless busy; the others by the base rules (a preheating kernel, still running its
        notebook for the pool, is never taken for an abandoned page).
        """
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            return None
        state = getattr(kernel, "execution_state", None)
        if state != "dead" and self.cull_grace_left(kernel_id) > 0:
            return None
        page_kernel = any(page.kernel_id == kernel_id for page in self._pages)
        if page_kernel and state not in ("dead", "busy") and kernel_id not in self._ever_connected:
            self.log.info("Culling kernel %s: no page connected to it within %s s", kernel_id,
                          self.never_connected_timeout)
            return await self.shutdown_kernel(kernel_id)
        return await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):
        """Shut ``kernel_id`` down and forget its culling state and its page."""
        try:
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)
        finally:
            self._outside_pool_since.pop(kernel_id, None)
            self._last_pass.pop(kernel_id, None)
            self._disconnected_at.pop(kernel_id, None)
            self._ever_connected.discard(kernel_id)
            self._pages = [page for page in self._pages if page.kernel_id != kernel_id]


def _ready(heating: asyncio.Future) -> bool:
    return heating.done() and not heating.cancelled() and heating.exception() is None


def _class_pool_factory(voila_factory):
    """Wrap Voila's kernel manager factory so that preheated kernels serve a class without slowing it down.

    The factory is ``voila.voila_kernel_manager.voila_kernel_manager_factory``.

    Voila's pool (0.5.13) counts a refill that has not started yet as a kernel: a page
    arriving after the pool was used waits for that refill, ``fill_delay`` included, and
    refills after a burst of pages start all at once, taking both cores while the students
    move their sliders.  Here

    * only ready kernels count: a page never waits for a refill, it starts its own kernel
      when none is ready (as without a pool);
    * refills (after a page took a kernel, ``fill_delay`` later, see voila.json) heat one
      kernel at a time, its notebook executed to the end before the next starts, so they
      take at most one core; the first fill at start-up stays parallel.
    """

    def factory(base_class, preheat_kernel, default_pool_size, **kwargs):
        manager_class = voila_factory(base_class, preheat_kernel, default_pool_size, **kwargs)
        if not preheat_kernel:
            return manager_class

        class ClassPoolKernelManager(manager_class):
            def __init__(self, **kw):
                self._heating = asyncio.Lock()
                self._refilling = False
                super().__init__(**kw)

            def get_pool_size(self, notebook_name: str) -> int:
                return sum(map(_ready, self._pools.get(notebook_name, ())))

            def pool_reserve(self) -> int:
                config = self.kernel_pools_config
                default = config.get("default", {})
                return sum(max(0, config.get(name, default).get("pool_size", default.get("pool_size", 1)))
                           for name in self._pools)

            async def get_rendered_notebook(self, notebook_name: str, *args, **kw):
                pool = self._pools.get(notebook_name, [])
                first_ready = next((i for i, heating in enumerate(pool) if _ready(heating)), 0)
                if pool:
                    pool.insert(0, pool.pop(first_ready))
                rendered = await super().get_rendered_notebook(notebook_name, *args, **kw)
                bind = getattr(self, "bind_page", None)  # WorkbenchKernelManager: the page gets the kernel
                if bind is not None:
                    bind(rendered[2])
                return rendered

            def fill_if_needed(self, delay=None, *args, **kw):
                # Voila passes delay=0 for the first fill and None (fill_delay) for refills;
                # _initialize is called, not yet awaited, inside this call.  The refill's
                # tasks copy this context: without the page, so their kernels stay the pool's.
                self._refilling = delay is None
                page = _PAGE_SLOT.set(None)
                try:
                    return super().fill_if_needed(delay, *args, **kw)
                finally:
                    _PAGE_SLOT.reset(page)
                    self._refilling = False

            def _initialize(self, notebook_path, kernel_id=None, **kw):
                heating = super()._initialize(notebook_path, kernel_id, **kw)
                return self._one_at_a_time(heating) if self._refilling else heating

            async def _one_at_a_time(self, heating: Awaitable[dict]) -> dict:
                async with self._heating:
                    content = await heating
                    await asyncio.wait([content["task"]])
                return content

        return ClassPoolKernelManager

    factory.wraps_for_class = True
    return factory


class WorkbenchContentsManager(LargeFileManager):
    """Voila's contents manager without notebook signatures: the dashboards are always executed afresh.

    jupyter_server checks a notebook's signature (the user's ``nbsignatures.db``) every time
    it reads one, so that the classic notebook shows stored HTML/JavaScript outputs only of
    notebooks the user ran, and logs ``Notebook ... is not trusted`` for the others: once
    per notebook and page here, for notebooks saved without outputs.  Voila never shows
    stored outputs (it executes the notebook and marks the fresh outputs trusted itself), so
    the check decides nothing: every cell is marked untrusted, as the check did, without the
    database lookup and without the warning.  Installed by :func:`install_voila_overrides`
    (Voila 0.5.13 creates ``voila.app.LargeFileManager`` itself; there is no setting).
    """

    def mark_trusted_cells(self, nb, path=""):
        """Mark every cell untrusted (no signature lookup, no log line)."""
        self.notary.mark_cells(nb, False)


#: The Voila releases whose private members this module overrides or relies on (pyproject.toml
#: pins the same range); :func:`voila_internals_problems` checks the members themselves.
VOILA_TESTED = ">=0.5.13,<0.6"


def _parameters(function) -> list[str]:
    """Return the parameter names of ``function`` (empty when it has no signature)."""
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return []


def _source(obj) -> str:
    """Return the source of ``obj`` (empty when it has none)."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


def _kernel_pool_problems() -> list[str]:
    """Return the problems of :func:`voila_internals_problems` in Voila's kernel pool (VoilaKernelManager)."""
    import voila.app
    import voila.voila_kernel_manager as vkm

    problems = []
    params, source = _parameters, _source

    def expect(condition: bool, what: str) -> None:
        if not condition:
            problems.append(what)

    factory = getattr(vkm, "voila_kernel_manager_factory", None)
    expect(factory is not None and params(factory)[:3] == ["base_class", "preheat_kernel", "default_pool_size"],
           "voila.voila_kernel_manager.voila_kernel_manager_factory(base_class, preheat_kernel, default_pool_size, "
           "...): the class pool wraps it")
    expect(getattr(voila.app, "voila_kernel_manager_factory", None) is not None,
           "voila.app.voila_kernel_manager_factory: install_class_pool replaces it there")
    if factory is not None:
        manager = factory(AsyncMappingKernelManager, True, 1)
        for name, expected in (("get_rendered_notebook", ["self", "notebook_name", "extra_kernel_env_variables"]),
                               ("fill_if_needed", ["self", "delay", "notebook_name"]),
                               ("_initialize", ["self", "notebook_path", "kernel_id"]),
                               ("get_pool_size", ["self", "notebook_name"]),
                               ("cull_kernel_if_idle", ["self", "kernel_id"]),
                               ("shutdown_kernel", ["self", "kernel_id"])):
            got = params(getattr(manager, name, None))
            expect(got[:len(expected)] == expected,
                   f"VoilaKernelManager.{name}{tuple(expected[1:])}: found {tuple(got[1:])}")
        text = source(manager)
        for fragment, why in (("self._pools", "the pools (_pools: notebook -> list of heating tasks)"),
                              ("return render_task, renderer.rendered_cache, kernel_id",
                               "get_rendered_notebook returns (render_task, rendered_cache, kernel_id)"),
                              ('"kernel_id": kernel_id', "_initialize returns a dict with task, renderer, kernel_id"),
                              ("self.fill_if_needed(", "get_rendered_notebook refills through fill_if_needed"),
                              ("kernel_pools_config", "pool sizes in kernel_pools_config")):
            expect(fragment in text, f"VoilaKernelManager: {why} (source: {fragment!r})")
    return problems


def _lab_template_links_font_awesome() -> bool:
    """Whether Voila's lab template still has the Font Awesome links our template removes."""
    import voila

    lab = Path(voila.__file__).resolve().parents[3] / "share/jupyter/voila/templates/lab/index.html.j2"
    candidates = [lab, *(Path(p) / "voila/templates/lab/index.html.j2" for p in __import__("jupyter_core.paths")
                         .paths.jupyter_path())]
    template = next((c for c in candidates if c.is_file()), None)
    ours = (TEMPLATE_DIR / "index.html.j2").read_text()
    links = [line.split("'")[1] for line in ours.splitlines() if line.strip().startswith("| replace('<link")]
    return bool(template is not None and links and all(link in template.read_text() for link in links))


def voila_internals_problems() -> list[str]:
    """Return what changed in the private Voila / jupyter_server members this module builds on (empty: none).

    Written against Voila 0.5.13 (:data:`VOILA_TESTED`).  Each entry names the member and what
    is expected of it; :func:`build_app` refuses to start when the list is not empty, and
    ``tests/test_serve.py`` fails with it.
    """
    import voila
    import voila.app
    import voila.handler
    import voila.tornado.handler
    from jupyter_server.services.contents.manager import ContentsManager
    from jupyter_server.services.kernels.kernelmanager import MappingKernelManager

    problems = _kernel_pool_problems()
    params, source = _parameters, _source

    def expect(condition: bool, what: str) -> None:
        if not condition:
            problems.append(what)

    app_source = source(voila.app.Voila)
    expect("LargeFileManager(parent=self)" in app_source and hasattr(voila.app, "LargeFileManager"),
           "voila.app.Voila.init_settings creates voila.app.LargeFileManager(parent=self): WorkbenchContentsManager "
           "replaces it there")
    expect("TornadoVoilaHandler," in app_source and r'"/voila/render/(.*)"' in app_source,
           "voila.app.Voila.init_handlers routes /voila/render/(.*) to TornadoVoilaHandler: the capped handler "
           "replaces it")
    expect(hasattr(voila.app.Voila, "init_handlers") and hasattr(voila.app.Voila, "template_paths"),
           "voila.app.Voila.init_handlers and .template_paths")
    expect(params(getattr(voila.tornado.handler.TornadoVoilaHandler, "get", None))[:2] == ["self", "path"],
           "voila.tornado.handler.TornadoVoilaHandler.get(self, path)")
    expect(issubclass(voila.tornado.handler.TornadoVoilaHandler, voila.handler.VoilaHandler),
           "TornadoVoilaHandler subclasses voila.handler.VoilaHandler (the identity provider sets the _xsrf cookie "
           "for it)")
    expect(_lab_template_links_font_awesome(),
           "voila/templates/lab/index.html.j2 links Font Awesome from cdn.jsdelivr.net as "
           "workbench/ui/voila_templates/index.html.j2 removes it")
    expect(params(ContentsManager.mark_trusted_cells)[:3] == ["self", "nb", "path"],
           "jupyter_server ContentsManager.mark_trusted_cells(self, nb, path)")
    for name in ("notify_connect", "notify_disconnect", "cull_kernel_if_idle", "start_kernel", "shutdown_kernel"):
        expect(hasattr(MappingKernelManager, name), f"jupyter_server MappingKernelManager.{name}")
    expect("_kernel_connections" in source(MappingKernelManager),
           "jupyter_server MappingKernelManager._kernel_connections (connections per kernel)")
    return problems


def install_voila_overrides() -> None:
    """Install :func:`install_class_pool` and :class:`WorkbenchContentsManager` into ``voila.app`` (idempotent).

    Raises :class:`ServeError` naming what changed when Voila's internals are not those this
    module was written against (:func:`voila_internals_problems`).
    """
    import voila
    import voila.app

    problems = voila_internals_problems()
    if problems:
        raise ServeError(f"Voila {voila.__version__} is not the Voila this server was written against "
                         f"({VOILA_TESTED}); these internals changed:\n  - " + "\n  - ".join(problems)
                         + "\nInstall a Voila in that range (pip install 'voila" + VOILA_TESTED + "').")
    install_class_pool()
    voila.app.LargeFileManager = WorkbenchContentsManager


def install_class_pool() -> None:
    """Make Voila build its kernel manager with :func:`_class_pool_factory` (idempotent)."""
    import voila.app

    if not getattr(voila.app.voila_kernel_manager_factory, "wraps_for_class", False):
        voila.app.voila_kernel_manager_factory = _class_pool_factory(voila.app.voila_kernel_manager_factory)


class WorkbenchIdentityProvider(PasswordIdentityProvider):
    """Identity provider that also gives every dashboard page its ``_xsrf`` cookie.

    jupyter_server's token/password identity provider (``Voila.identity_provider_class``).

    When a tab closes, Voila 0.5.13's page posts ``_xsrf=<cookie>`` to
    ``voila/api/shutdown/<kernel>`` (``navigator.sendBeacon`` in its widget manager), but the
    page handler never creates that cookie (only the tree page does), so every such request
    failed with ``403 '_xsrf' argument missing`` and the kernel lived on until culled.
    Creating the cookie here keeps the XSRF check (cookie and form field must match, Origin
    must match Host) and lets the shutdown succeed.
    """

    async def get_user(self, handler):
        """Return the request's user, setting the ``_xsrf`` cookie on dashboard page requests."""
        user = super().get_user(handler)
        if isinstance(user, Awaitable):
            user = await user
        if user is not None and handler.request.method == "GET":
            from voila.handler import VoilaHandler

            if isinstance(handler, VoilaHandler):
                # tornado's xsrf_token reads current_user, which jupyter_server sets right
                # after this call returns: set it first (same value).
                handler.current_user = user
                handler.xsrf_token  # noqa: B018 - reading it sets the cookie
        return user


# --------------------------------------------------------------------------- course page


def course_page(base_url: str, notebook_dir: Path) -> str:
    """Return the page served at the root: the course's lessons found in ``notebook_dir``, in order.

    Notebooks of the folder that are not lessons (e.g. a folder of one's own) are listed
    after them with a link each, so that every notebook served stays reachable.
    """
    names = sorted(path.name for path in notebook_dir.glob("*.ipynb") if not path.name.startswith("."))
    lessons = [lesson for lesson in COURSE if lesson.filename in names]
    taught = {lesson.filename for lesson in lessons}
    others = [(name, voila_url(base_url, name.removesuffix(".ipynb"))) for name in names if name not in taught]
    return landing_html(base_url, lessons=lessons, others=others)


class _PlainErrors(JupyterHandler):
    """A ``JupyterHandler`` whose error pages are one line of text.

    jupyter_server's error page is a template Voila's server cannot render (it has no
    ``static_path``): the refusal (403 for a foreign Host, 404) would end in a traceback in
    the log instead of an answer.
    """

    def write_error(self, status_code: int, **kwargs) -> None:
        """Answer ``status_code`` with its reason as plain text."""
        self.set_header("Content-Type", "text/plain; charset=UTF-8")
        self.finish(f"{status_code} {self._reason}\n")


class CoursePageHandler(_PlainErrors):
    """The root of the server: :func:`course_page` instead of Voila's list of files.

    A ``JupyterHandler``: the Host check (DNS rebinding) and the token or password apply as
    to every dashboard page.
    """

    def initialize(self, notebook_dir: str) -> None:
        """Keep the folder served (tornado calls this with the handler's arguments)."""
        self.notebook_dir = Path(notebook_dir)

    @web.authenticated
    def get(self) -> None:
        """Send the course page (built on each request: a new notebook appears without a restart)."""
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish(course_page(self.base_url, self.notebook_dir))


class _ScreenshotHandler(_PlainErrors, web.StaticFileHandler):
    """The screenshots of ``docs/screenshots`` for the course page's thumbnails (Host check and login apply).

    Not jupyter_server's ``AuthenticatedFileHandler``: it refuses a GET without a
    ``Referer`` header, which browsers may leave out for images.
    """

    @web.authenticated
    def get(self, path: str, include_body: bool = True):
        """Send one screenshot."""
        return web.StaticFileHandler.get(self, path, include_body)


class _ToCoursePageHandler(_PlainErrors):
    """Voila's tree pages (``voila/tree/...``): redirected to the course page."""

    @web.authenticated
    def get(self, path: str = "") -> None:
        """Redirect to the root."""
        self.redirect(self.base_url)


@functools.cache
def capped_render_handler():
    """Return Voila's dashboard handler class with the capacity check in front of it (built once).

    A subclass of ``voila.tornado.handler.TornadoVoilaHandler`` (``voila/render/<notebook>``):
    before Voila starts or takes a kernel, :meth:`WorkbenchKernelManager.admit_page` decides;
    a refused page gets ``503 Service Unavailable`` with ``Retry-After`` and
    :func:`~workbench.course.landing.server_full_html`, and no kernel.  The admitted page's
    slot is passed to the kernel manager through a context variable, so that the kernel
    Voila then starts (or takes from the pool) is counted as this page's.
    """
    from voila.tornado.handler import TornadoVoilaHandler

    class CappedVoilaHandler(TornadoVoilaHandler):
        @web.authenticated
        async def get(self, path=None):
            manager = self.kernel_manager
            if not hasattr(manager, "admit_page"):  # another kernel manager: no cap
                return await super().get(path)
            page, refusal = manager.admit_page(self.request.remote_ip or "?")
            if refusal is not None:
                retry = max(1, int(manager.full_retry_after))
                self.log.warning("Refused %s to %s: %s", self.request.path, self.request.remote_ip, refusal)
                self.set_status(503)
                self.set_header("Retry-After", str(retry))
                self.set_header("Content-Type", "text/html; charset=UTF-8")
                self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
                return self.finish(server_full_html(self.base_url, retry, refusal))
            token = _PAGE_SLOT.set(page)
            try:
                return await super().get(path)
            finally:
                _PAGE_SLOT.reset(token)
                manager.release_page(page)

    return CappedVoilaHandler


def _capped(handlers: list) -> list:
    """Voila's routes with its dashboard handler replaced by :func:`capped_render_handler`'s."""
    from voila.tornado.handler import TornadoVoilaHandler

    return [(route[0], capped_render_handler(), *route[2:]) if len(route) > 1 and route[1] is TornadoVoilaHandler
            else route for route in handlers]


def _course_handlers(server_url: str, notebook_dir: Path) -> list[tuple]:
    """Tornado routes of the course page, its screenshots and the redirected tree pages.

    They go before Voila's own (tornado takes the first route that matches).
    """
    return [
        (server_url, CoursePageHandler, {"notebook_dir": str(notebook_dir)}),
        (url_path_join(server_url, r"/voila/tree" + path_regex), _ToCoursePageHandler),
        (url_path_join(server_url, SCREENSHOT_ROUTE, "(.*)"), _ScreenshotHandler,
         {"path": str(SCREENSHOT_DIR)}),
    ]


# --------------------------------------------------------------------------- configuration


def is_loopback(host: str) -> bool:
    """Return True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1): only this machine."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class ServeOptions:
    """What the command line chose (secrets included; :func:`serve_command` never shows them)."""

    notebook_dir: Path = NOTEBOOK_DIR
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    open_browser: bool = True
    token: str | None = None
    token_generated: bool = False
    hashed_password: str | None = None
    pools: dict[str, int] = field(default_factory=dict)
    cell_timeout_s: int | None = None
    max_kernels: int | None = None  # None: voila.json (0 there: derived from memory)
    max_kernels_per_client: int | None = None  # None: voila.json
    extra: list[str] = field(default_factory=list)  # --Class.trait=value for Voila

    @property
    def loopback(self) -> bool:
        """Whether the server listens on a loopback address only."""
        return is_loopback(self.host)

    def check(self) -> None:
        """Refuse what is unsafe: beyond loopback, a token or a password is required."""
        if self.token is not None and len(self.token) < MIN_TOKEN_LENGTH:
            raise ServeError(f"the token is too short ({len(self.token)} characters): use at least {MIN_TOKEN_LENGTH}")
        if not self.loopback and not (self.token or self.hashed_password):
            raise ServeError(
                f"refusing to serve on {self.host!r} (beyond this machine) without a token or a password:\n"
                "every visitor runs the dashboards' code on this server.  Give one of\n"
                f"  {TOKEN_ENV}=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))') make dashboards "
                f"HOST={self.host}\n"
                f"  make dashboards HOST={self.host} SERVE_ARGS=--generate-token\n"
                f"  python -m workbench.ui.serve --host {self.host} --password\n"
                "(see docs/serving.md), or keep the default --host 127.0.0.1."
            )
        for name, size in self.pools.items():
            if size < 0:
                raise ServeError(f"--pool {name}={size}: the pool size must be >= 0")
        for option, value in (("--max-kernels", self.max_kernels), ("--max-kernels-per-client",
                                                                      self.max_kernels_per_client)):
            if value is not None and value < 1:
                raise ServeError(f"{option} {value}: give at least 1 (without the option: voila.json's value)")


def _pool(text: str) -> tuple[str, int]:
    name, sep, size = text.rpartition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NOTEBOOK=N, got {text!r}")
    try:
        return name, int(size)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer pool size in {text!r}") from None


def _parser(prog: str = "python -m workbench.ui.serve") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Serve the dashboards (notebooks/) with Voila, configured by the repository's voila.json.",
        epilog=f"Token: set {TOKEN_ENV} in the environment (not on the command line). Extra "
               "--Class.trait=value options go to Voila. See docs/serving.md.",
    )
    p.add_argument("notebook_dir", nargs="?", default=str(NOTEBOOK_DIR), help="folder served (default: the "
                   f"course's notebooks, {NOTEBOOK_DIR})")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
                        "interface, needs a token or a password)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; taken = error)")
    p.add_argument("--no-browser", dest="open_browser", action="store_false", help="do not open a browser tab")
    auth = p.add_mutually_exclusive_group()
    auth.add_argument("--token-file", type=Path, help="read the access token from this file")
    auth.add_argument("--generate-token", action="store_true", help="make a random token and print the URL with it")
    auth.add_argument("--password", action="store_true", help="ask for a password (login page instead of a token)")
    auth.add_argument("--password-hash-file", type=Path,
                      help="file holding a hashed password (python -c 'from jupyter_server.auth import passwd; "
                           "print(passwd())')")
    p.add_argument("--pool", type=_pool, action="append", default=[], metavar="NOTEBOOK=N",
                   help="preheated kernels for one notebook (default: voila.json's default_pool_size), "
                        "e.g. --pool 02_adept_prediction.ipynb=3 for a class on that dashboard")
    p.add_argument("--cell-timeout", type=int, dest="cell_timeout_s", help="seconds per cell (default: voila.json)")
    p.add_argument("--max-kernels", type=int, metavar="N",
                   help="most kernels the server holds, preheated pools included; pages beyond get 'server full, "
                        "try again' (default: voila.json; 0 there: (available memory - 1 GiB - 10%% of the "
                        "memory) / 0.4 GiB)")
    p.add_argument("--max-kernels-per-client", type=int, metavar="N",
                   help="most dashboards one visitor address holds open at once (default: voila.json)")
    p.add_argument("--print-config", action="store_true", help="print the effective configuration and exit")
    return p


def parse_args(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None,
               prog: str = "python -m workbench.ui.serve") -> tuple[ServeOptions, bool]:
    """Options from the command line and the environment; returns ``(options, print_config)``."""
    environ = os.environ if environ is None else environ
    parser = _parser(prog)
    args, unknown = parser.parse_known_args(None if argv is None else list(argv))
    extra = [a for a in unknown if a.startswith("--") and "." in a.split("=", 1)[0]]
    if len(extra) != len(unknown):
        parser.error(f"unrecognized arguments: {' '.join(a for a in unknown if a not in extra)}")
    options = ServeOptions(
        notebook_dir=Path(args.notebook_dir).resolve(), host=args.host, port=args.port,
        open_browser=args.open_browser, pools=dict(args.pool), cell_timeout_s=args.cell_timeout_s,
        max_kernels=args.max_kernels, max_kernels_per_client=args.max_kernels_per_client, extra=extra,
    )
    if args.token_file:
        options.token = args.token_file.read_text().strip()
    elif args.generate_token:
        options.token, options.token_generated = secrets.token_urlsafe(24), True
    elif environ.get(TOKEN_ENV):
        options.token = environ[TOKEN_ENV].strip()
    if args.password_hash_file:
        options.hashed_password = args.password_hash_file.read_text().strip()
    elif args.password:
        from jupyter_server.auth import passwd

        options.hashed_password = passwd(getpass.getpass("Password for the dashboards: "))
    return options, args.print_config


def serve_command(options: ServeOptions | None = None, *, python: str = sys.executable) -> list[str]:
    """Return the command line that serves ``options`` (never holding a secret: the token travels in :data:`TOKEN_ENV`).

    :func:`voila_server` runs it; ``make dashboards`` runs the same module.
    """
    o = options or ServeOptions()
    cmd = [python, "-m", "workbench.ui.serve", str(o.notebook_dir), "--host", o.host, "--port", str(o.port)]
    if not o.open_browser:
        cmd.append("--no-browser")
    cmd += [f"--pool={name}={size}" for name, size in o.pools.items()]
    if o.cell_timeout_s is not None:
        cmd.append(f"--cell-timeout={o.cell_timeout_s}")
    if o.max_kernels is not None:
        cmd.append(f"--max-kernels={o.max_kernels}")
    if o.max_kernels_per_client is not None:
        cmd.append(f"--max-kernels-per-client={o.max_kernels_per_client}")
    return cmd + list(o.extra)


def _voila_argv(o: ServeOptions) -> list[str]:
    argv = [str(o.notebook_dir), f"--Voila.ip={o.host}", f"--Voila.port={o.port}", "--Voila.port_retries=0"]
    if not o.open_browser:
        argv.append("--no-browser")
    if o.cell_timeout_s is not None:
        argv.append(f"--VoilaExecutor.timeout={o.cell_timeout_s}")
    if o.max_kernels is not None:
        argv.append(f"--WorkbenchKernelManager.max_kernels={o.max_kernels}")
    if o.max_kernels_per_client is not None:
        argv.append(f"--WorkbenchKernelManager.max_kernels_per_client={o.max_kernels_per_client}")
    return argv + list(o.extra)


def build_app(options: ServeOptions):
    """Return a configured, not yet started ``voila.app.Voila``.

    Voila.json (found from :data:`ROOT`, whatever the current directory), then the
    options.  Beyond loopback the Host check is off (clients use the server's name or
    address) and the token or password is what keeps visitors out; on loopback only
    ``localhost``/loopback Host headers are served (DNS rebinding protection).  Its root is
    the course page (:func:`course_page`) instead of Voila's list of files.
    """
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from voila.app import Voila

    options.check()
    if not options.notebook_dir.is_dir():
        raise ServeError(f"{options.notebook_dir} is not a folder")
    install_voila_overrides()
    app = Voila(config_file_paths=[str(CONFIG_FILE.parent), *jupyter_config_path()])
    app.initialize(_voila_argv(options))
    # Our templates first: the lab template without its CDN stylesheets (TEMPLATE_DIR).
    app.template_paths = [str(TEMPLATE_DIR), *app.template_paths]
    app.tornado_settings = {
        **app.tornado_settings,
        "allow_remote_access": not options.loopback,
        "websocket_max_message_size": WEBSOCKET_MAX_MESSAGE_BYTES,
    }
    app.tornado_settings.setdefault("local_hostnames", ["localhost"])
    extra = Config()
    if options.token:
        app.token = options.token
    if options.hashed_password:
        extra.PasswordIdentityProvider.hashed_password = options.hashed_password
    if options.pools:
        default = max(app.voila_configuration.default_pool_size, 0)
        pools = {"default": {"pool_size": default}}
        pools.update({name: {"pool_size": size} for name, size in options.pools.items()})
        extra.VoilaKernelManager.kernel_pools_config = pools
    app.update_config(extra)
    _check_capacity(app, options)
    voila_handlers = app.init_handlers  # Voila's start() asks for its routes here
    app.init_handlers = lambda: [*_course_handlers(app.server_url, options.notebook_dir), *_capped(voila_handlers())]
    return app


def _pool_total(app, notebook_dir: Path) -> int:
    """Preheated kernels the pools hold when full (Voila preheats every notebook of the folder)."""
    configuration = app.voila_configuration
    if not configuration.preheat_kernel:
        return 0
    pools = app.config.VoilaKernelManager.get("kernel_pools_config", None) or {}
    default = pools.get("default", {}).get("pool_size", max(configuration.default_pool_size, 0))
    names = [str(p.relative_to(notebook_dir)) for p in notebook_dir.rglob("*.ipynb") if ".ipynb_checkpoints" not in
             p.parts]
    return sum(max(0, pools.get(name, {}).get("pool_size", default)) for name in names)


#: Pages a cap derived from memory leaves at least, beyond the preheated pools.
MIN_PAGES = 2


def _check_capacity(app, options: ServeOptions) -> None:
    """Fix the kernel cap (from memory when voila.json says 0) and refuse a given cap the pools fill.

    A cap derived from memory that the pools alone would fill (a small machine) becomes the
    pools + :data:`MIN_PAGES`, with a note saying how to use less memory.
    """
    from traitlets.config import Config

    manager = app.config.WorkbenchKernelManager
    cap = int(manager.get("max_kernels", 0) or 0)
    derived = cap <= 0
    pools = _pool_total(app, options.notebook_dir)
    note = None
    if derived:
        cap = memory_kernel_cap()
        if cap < pools + MIN_PAGES:
            note = (f"the memory available holds about {cap} kernels and the preheated pools take {pools}: serving "
                    f"with a cap of {pools + MIN_PAGES}; to use less memory, give smaller pools (--pool NOTEBOOK=0, "
                    "--VoilaConfiguration.default_pool_size=0) or --max-kernels (docs/serving.md)")
            cap = pools + MIN_PAGES
    elif cap <= pools:
        raise ServeError(f"the preheated pools take {pools} kernels and --max-kernels / voila.json allows only {cap}: "
                         "no page could get one. Give --max-kernels above the pools, or smaller pools (--pool "
                         "NOTEBOOK=0, --VoilaConfiguration.default_pool_size=0); see docs/serving.md")
    extra = Config()
    extra.WorkbenchKernelManager.max_kernels = cap
    app.update_config(extra)
    app.workbench_capacity = {"max_kernels": cap, "derived_from_memory": derived, "preheated": pools,
                              "max_kernels_per_client": int(manager.get("max_kernels_per_client", 10)), "note": note}


def describe(app, options: ServeOptions) -> dict:
    """Return the effective configuration (secrets masked), as ``--print-config`` shows it."""
    c = app.config
    return {
        "command": serve_command(options),
        "config_file": str(CONFIG_FILE),
        "notebook_dir": str(options.notebook_dir),
        "host": options.host,
        "port": options.port,
        "loopback": options.loopback,
        "auth": "token" if options.token else "password" if options.hashed_password else "none",
        "tornado_settings": app.tornado_settings,
        "preheat_kernel": app.voila_configuration.preheat_kernel,
        "default_pool_size": app.voila_configuration.default_pool_size,
        "kernel_pools_config": c.VoilaKernelManager.get("kernel_pools_config", None),
        "kernel_manager": app.voila_configuration.multi_kernel_manager_class.__module__ + "."
                          + app.voila_configuration.multi_kernel_manager_class.__name__,
        "identity_provider": app.identity_provider_class.__module__ + "." + app.identity_provider_class.__name__,
        "MappingKernelManager": {k: v for k, v in c.MappingKernelManager.items()},
        "WorkbenchKernelManager": {k: v for k, v in c.WorkbenchKernelManager.items()},
        "capacity": app.workbench_capacity,
        "cell_timeout_s": c.VoilaExecutor.get("timeout", None),
    }


def _public_url(options: ServeOptions) -> str:
    host = socket.gethostname() if options.host in ("0.0.0.0", "::", "") else options.host
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{options.port}/"


def main(argv: Sequence[str] | None = None, prog: str = "python -m workbench.ui.serve") -> int:
    """Serve the dashboards from the command line (``prog``: its name in the help); return the exit status."""
    try:
        options, print_config = parse_args(argv, prog=prog)
        os.environ.pop(TOKEN_ENV, None)  # kernels inherit this process's environment
        app = build_app(options)
    except ServeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if print_config:
        print(json.dumps(describe(app, options), indent=2, default=str))
        return 0
    url = _public_url(options)
    if options.token_generated:
        print(f"Dashboards: {url}?token={options.token}  (share this address; Ctrl-C to stop)", flush=True)
    elif options.token:
        print(f"Dashboards: {url}?token=<the token in ${TOKEN_ENV} or --token-file>  (Ctrl-C to stop)", flush=True)
    else:
        print(f"Dashboards: {url}  (Ctrl-C to stop)", flush=True)
    capacity = app.workbench_capacity
    print(f"Kernels: at most {capacity['max_kernels']}"
          + (" (from the memory available)" if capacity["derived_from_memory"] else "")
          + f", {capacity['preheated']} of them preheated; at most {capacity['max_kernels_per_client']} pages per "
          "visitor address (--max-kernels, --max-kernels-per-client)", flush=True)
    if capacity["note"]:
        print(f"Note: {capacity['note']}", flush=True)
    if not options.loopback:
        print(f"Serving beyond this machine on {options.host}:{options.port}: every visitor runs the dashboards' "
              "code here (docs/serving.md).", flush=True)
    app.start()
    return 0


# --------------------------------------------------------------------------- background server


@dataclass(frozen=True)
class VoilaServer:
    """A started Voila server: its URL, process, log file and token."""

    url: str  # e.g. http://127.0.0.1:40123/
    process: subprocess.Popen
    log_path: Path  # the server's stdout and stderr
    token: str | None = None

    @property
    def pid(self) -> int:
        """The Voila server process (kernels are its children)."""
        return self.process.pid

    def render_url(self, notebook: str) -> str:
        """Address of one dashboard, ``notebook`` relative to the served folder."""
        query = f"?token={self.token}" if self.token else ""
        return f"{self.url}voila/render/{notebook}{query}"

    def log_tail(self, chars: int = 4000) -> str:
        """Return the last ``chars`` characters of the server's log."""
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
    notebook_dir: str | Path = "notebooks",
    *,
    cell_timeout_s: int | None = None,
    start_timeout_s: float = 90,
    env: Mapping[str, str] | None = None,
    host: str = DEFAULT_HOST,
    token: str | None = None,
    serve_args: Sequence[str] = (),
) -> Iterator[VoilaServer]:
    """Run :func:`serve_command` over ``notebook_dir`` (relative to :data:`ROOT`) on a free port.

    The command of ``make dashboards``, configured by voila.json.

    ``cell_timeout_s`` overrides voila.json's cell timeout only when given; ``token`` is
    passed in :data:`TOKEN_ENV`; ``serve_args`` are more command-line options.  The server
    runs in a new session and its process group (and its kernels) are killed on exit.
    Raises ``RuntimeError`` (with the end of the server's log) if it exits or does not answer
    within ``start_timeout_s``.
    """
    port = _free_port()
    options = ServeOptions(notebook_dir=ROOT / notebook_dir, host=host, port=port, open_browser=False,
                           cell_timeout_s=cell_timeout_s)
    cmd = serve_command(options) + list(serve_args)
    process_env = dict(os.environ if env is None else env)
    process_env.pop(TOKEN_ENV, None)
    if token:
        process_env[TOKEN_ENV] = token
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            cmd, cwd=ROOT, env=process_env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
    server = VoilaServer(f"http://127.0.0.1:{port}/", process, Path(log_path), token)
    probe = server.url + (f"?token={token}" if token else "")
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"voila exited with code {process.returncode}:\n{server.log_tail()}")
            with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError):
                with urllib.request.urlopen(probe, timeout=2) as response:
                    if response.status == 200:
                        break
            if time.monotonic() > deadline:
                raise RuntimeError(f"voila did not answer on {server.url} within {start_timeout_s} "
                                   f"s:\n{server.log_tail()}")
            time.sleep(0.2)
        yield server
    finally:
        _stop(process)


def launch_chromium(playwright, executable: Path = CHROMIUM):
    """Return a headless chromium ``Browser`` from a started ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=str(executable), args=list(CHROMIUM_ARGS), headless=True)


if __name__ == "__main__":
    # Run the importable module, not this __main__ copy of it: voila.json names
    # workbench.ui.serve's classes, and the kernel manager shares the page being served
    # (_PAGE_SLOT) with the render handler, so both must come from one module.
    from workbench.ui import serve as _module

    sys.exit(_module.main())
