"""Kernels of the dashboards' server: how many the memory holds, which page holds which, and when they go.

:func:`memory_kernel_cap` derives the default cap from the memory available;
:class:`WorkbenchKernelManager` (named in ``voila.json``) admits pages within the cap and culls
closed pages' kernels soon; :func:`class_pool_factory` wraps Voila's preheating so that refills
never slow a class down.  The page being served travels from the render handler
(:func:`workbench.ui.serving.pages.capped_render_handler`) to the kernel manager in
:data:`PAGE_SLOT`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import ipaddress
import os
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Bool, Integer

__all__ = [
    "HEADROOM_BYTES",
    "HEADROOM_FRACTION",
    "KERNEL_MEMORY_BYTES",
    "PAGE_SLOT",
    "PageSlot",
    "WorkbenchKernelManager",
    "class_pool_factory",
    "is_loopback",
    "kernel_transport",
    "memory_kernel_cap",
]

#: Memory of one dashboard's kernel once used (RSS, children included: 0.3-0.45 GB measured,
#: docs/serving.md), the unit of the default kernel cap.
KERNEL_MEMORY_BYTES = 400 * 2**20
#: Memory kept free whatever the kernels take: the server itself (~0.2 GB), uploads being read
#: (up to ~3x a 20 MiB file), the operating system and other users: 1 GiB + 10 % of the machine.
HEADROOM_BYTES = 2**30
HEADROOM_FRACTION = 0.10


#: Longest path of a Unix socket (``sun_path``: 108 bytes on Linux, 104 on macOS, with its NUL).
UNIX_SOCKET_PATH_MAX = 103
#: What Voila adds to its connection-file folder for a kernel's IPC sockets:
#: ``/voila_XXXXXXXX/kernel-<36-character id>-ipc-<n>``.
_IPC_SUFFIX = len("/voila_12345678/kernel-") + 36 + len("-ipc-9")


def kernel_transport(connection_root: str) -> str:
    """Return how the kernels talk to the server: ``"ipc"`` (Unix sockets) where they fit, else ``"tcp"``.

    Over TCP, jupyter_client finds a kernel's five ports by binding port 0 and letting them go,
    and the kernel binds them a moment later.  Any outgoing connection on the machine (the
    browser's, the server's) takes its local port from the same range, and one that takes a
    kernel's port in that moment leaves the kernel without a socket ("Address already in use":
    a dead kernel or heartbeat).  Unix sockets in the kernel's own folder have no such race.
    They need a POSIX system and a folder whose socket paths fit
    :data:`UNIX_SOCKET_PATH_MAX`; otherwise TCP.

    Parameters
    ----------
    connection_root : str
        The folder Voila makes its connection-file folder in (``Voila.connection_dir_root``).

    Examples
    --------
    >>> kernel_transport("/tmp") if os.name == "posix" else "ipc"
    'ipc'
    >>> kernel_transport("/" + "x" * 100)
    'tcp'
    """
    if os.name != "posix" or len(os.path.abspath(connection_root)) + _IPC_SUFFIX > UNIX_SOCKET_PATH_MAX:
        return "tcp"
    return "ipc"


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
    available, total : int or None, default None
        Memory available and in total, bytes; None: this machine's, now.

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
class PageSlot:
    """One admitted page: the visitor's address and, once it has one, its kernel.

    Attributes
    ----------
    client : str
        The visitor's address.
    kernel_id : str or None, default None
        The page's kernel, once Voila started it or took it from the pool.
    """

    client: str
    kernel_id: str | None = None


#: The page whose request is being served in this task (set by the render handler, read where
#: Voila starts or hands out the page's kernel: the preheating's refills run without it).
PAGE_SLOT: contextvars.ContextVar[PageSlot | None] = contextvars.ContextVar("workbench_page_slot", default=None)


def is_loopback(host: str) -> bool:
    """Return True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1): only this machine.

    Parameters
    ----------
    host : str
        A host name or address, IPv6 possibly in brackets.

    Returns
    -------
    bool
    """
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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

    Parameters
    ----------
    **kwargs
        Traitlets configuration, as jupyter_server's kernel manager takes it.
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
        self._pages: list[PageSlot] = []

    # ----------------------------------------------------------------- capacity

    @functools.cached_property
    def kernel_cap(self) -> int:
        """The cap in force: :attr:`max_kernels`, or :func:`memory_kernel_cap` when it is 0."""
        return self.max_kernels if self.max_kernels > 0 else memory_kernel_cap()

    def pool_reserve(self) -> int:
        """Kernels kept for the preheated pools (0 here; the class pool counts its pools' sizes)."""
        return 0

    def page_count(self, client: str | None = None) -> int:
        """Return the pages holding (or about to start) a kernel, of every visitor or of ``client``.

        Parameters
        ----------
        client : str or None, default None
            A visitor's address; None counts every page.

        Returns
        -------
        int
        """
        return sum(client is None or page.client == client for page in self._pages)

    def admit_page(self, client: str) -> tuple[PageSlot | None, str | None]:
        """Admit a page for ``client``, or say why not.

        The slot counts until the page's kernel shuts down (or, if it never got one, until
        its request ends: :meth:`release_page`).

        Parameters
        ----------
        client : str
            The visitor's address.

        Returns
        -------
        slot : PageSlot or None
            The page's slot; None beyond a limit.
        reason : str or None
            Why the page was refused, for the visitor; None when admitted.
        """
        cap, reserve = self.kernel_cap, self.pool_reserve()
        if self.page_count() >= cap - reserve:
            return None, (f"The server is full: it holds at most {cap} dashboards' kernels ({reserve} kept ready "
                          f"for the next visitors), and {self.page_count()} pages are open.")
        limited = self.limit_loopback_clients or not is_loopback(client)
        if limited and self.page_count(client) >= self.max_kernels_per_client:
            return None, (f"Your address has {self.page_count(client)} dashboards open, the most one visitor may "
                          f"have at once ({self.max_kernels_per_client}).")
        page = PageSlot(client)
        self._pages.append(page)
        return page, None

    def release_page(self, page: PageSlot) -> None:
        """Forget ``page`` if it never got a kernel (its request ended without one).

        Parameters
        ----------
        page : PageSlot
            A slot of :meth:`admit_page`.
        """
        if page.kernel_id is None and page in self._pages:
            self._pages.remove(page)

    def bind_page(self, kernel_id: str) -> None:
        """Give ``kernel_id`` to the page being served in this task, if any (it has left the pool now).

        Parameters
        ----------
        kernel_id : str
            The kernel.
        """
        page = PAGE_SLOT.get()
        if page is not None and page.kernel_id is None:
            page.kernel_id = kernel_id
            now = time.monotonic()
            self._outside_pool_since[kernel_id] = self._last_pass[kernel_id] = now

    async def start_kernel(self, *args, **kwargs):
        """Start a kernel; a page being served (:meth:`admit_page`) gets it.

        Parameters
        ----------
        *args, **kwargs
            As jupyter_server's ``AsyncMappingKernelManager.start_kernel``.

        Returns
        -------
        str
            The kernel's id.
        """
        kernel_id = await super().start_kernel(*args, **kwargs)
        self.bind_page(kernel_id)
        return kernel_id

    # ----------------------------------------------------------------- culling

    def notify_connect(self, kernel_id):
        """Record that a page connected to ``kernel_id``.

        Parameters
        ----------
        kernel_id : str
            The kernel.
        """
        super().notify_connect(kernel_id)
        self._ever_connected.add(kernel_id)
        self._disconnected_at.pop(kernel_id, None)

    def notify_disconnect(self, kernel_id):
        """Record when the last connection to ``kernel_id`` closed.

        Parameters
        ----------
        kernel_id : str
            The kernel.
        """
        super().notify_disconnect(kernel_id)
        if self._kernel_connections.get(kernel_id, 0) <= 0:
            self._disconnected_at[kernel_id] = time.monotonic()

    def cull_grace_left(self, kernel_id: str, now: float | None = None) -> float:
        """Return the seconds before the culler may consider ``kernel_id`` (0: it applies its own rules).

        Parameters
        ----------
        kernel_id : str
            The kernel.
        now : float or None, default None
            ``time.monotonic()`` of the culler pass; None: now.

        Returns
        -------
        float
        """
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

        Parameters
        ----------
        kernel_id : str
            The kernel.
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
        """Shut ``kernel_id`` down and forget its culling state and its page.

        Parameters
        ----------
        kernel_id : str
            The kernel.
        *args, **kwargs
            As jupyter_server's ``shutdown_kernel`` (``now``, ``restart``).
        """
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


class _ClassPool:
    """The class pool's behaviour (:func:`class_pool_factory`), mixed in before Voila's pooled kernel manager."""

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
        page = PAGE_SLOT.set(None)
        try:
            return super().fill_if_needed(delay, *args, **kw)
        finally:
            PAGE_SLOT.reset(page)
            self._refilling = False

    def _initialize(self, notebook_path, kernel_id=None, **kw):
        heating = super()._initialize(notebook_path, kernel_id, **kw)
        return self._one_at_a_time(heating) if self._refilling else heating

    async def _one_at_a_time(self, heating: Awaitable[dict]) -> dict:
        async with self._heating:
            content = await heating
            await asyncio.wait([content["task"]])
        return content


def class_pool_factory(voila_factory):
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

    Parameters
    ----------
    voila_factory : callable
        ``voila.voila_kernel_manager.voila_kernel_manager_factory``: ``(base_class,
        preheat_kernel, default_pool_size, **kwargs) -> kernel manager class``.

    Returns
    -------
    callable
        A factory of the same signature, marked ``wraps_for_class`` (so that
        :func:`~workbench.ui.serving.voila_internals.install_class_pool` wraps once), whose
        class with preheating has the pool's behaviour above.
    """

    def factory(base_class, preheat_kernel, default_pool_size, **kwargs):
        manager_class = voila_factory(base_class, preheat_kernel, default_pool_size, **kwargs)
        if not preheat_kernel:
            return manager_class


        class ClassPoolKernelManager(_ClassPool, manager_class):
            pass

        return ClassPoolKernelManager

    factory.wraps_for_class = True
    return factory
