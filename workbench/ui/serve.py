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
* The classes Voila loads and the overrides of its internals live in :mod:`workbench.ui.serving`
  (kernels, pages, Voila's internals, the command line's options); their public names are
  importable from here too.
* Pages request nothing off the machine (:data:`TEMPLATE_DIR`) and reading a notebook logs no
  trust warning (:class:`WorkbenchContentsManager`).  These override private members of Voila
  0.5.13 (:data:`VOILA_TESTED`), checked by :func:`voila_internals_problems`.
* The root (and Voila's tree pages, redirected there) is the course page
  (:func:`workbench.course.landing.landing_html`, :class:`CoursePageHandler`): the lessons in
  order, each with its screenshot (published at ``course/screenshots/``) and a link that opens
  its dashboard.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.io.locations import RESOURCE_ROOT, VOILA_CONFIG
from workbench.ui.limits import UPLOAD_LIMIT_BYTES
from workbench.ui.serving import ServeError
from workbench.ui.serving.kernels import (
    HEADROOM_BYTES,
    HEADROOM_FRACTION,
    KERNEL_MEMORY_BYTES,
    WorkbenchKernelManager,
    is_loopback,
    kernel_transport,
    memory_kernel_cap,
)
from workbench.ui.serving.options import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    MIN_TOKEN_LENGTH,
    TOKEN_ENV,
    ServeOptions,
    parse_args,
    serve_command,
)
from workbench.ui.serving.pages import (
    CoursePageHandler,
    WorkbenchIdentityProvider,
    capped_render_handler,
    capped_routes,
    course_handlers,
    course_page,
)
from workbench.ui.serving.voila_internals import (
    TEMPLATE_DIR,
    VOILA_TESTED,
    WorkbenchContentsManager,
    install_class_pool,
    install_voila_overrides,
    voila_internals_problems,
)

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
    "MIN_TOKEN_LENGTH",
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
    "install_class_pool",
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

#: Largest websocket message the server reads (tornado's ``websocket_max_message_size``,
#: 10 MiB by default).  A file upload reaches the kernel as one message of about the file's
#: size; above this limit tornado closes the page's kernel connection (code 1009, the page
#: shows "Connection lost, reconnecting" and the upload is lost) before Python can say
#: anything, so it is set well above :data:`UPLOAD_LIMIT_BYTES`: files between the two get
#: the dashboard's message, and only files over twice the limit drop the connection.
WEBSOCKET_MAX_MESSAGE_BYTES = 2 * UPLOAD_LIMIT_BYTES + 2**20



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

    Parameters
    ----------
    options : ServeOptions
        What the command line chose.

    Returns
    -------
    voila.app.Voila
        With ``workbench_capacity`` (the kernel cap in force and where it came from).

    Raises
    ------
    ServeError
        Unsafe options (:meth:`ServeOptions.check`), a missing folder, a Voila whose internals
        changed, or a kernel cap the preheated pools fill.
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
    if "transport" not in app.config.KernelManager:  # the command line's --KernelManager.transport wins
        extra.KernelManager.transport = kernel_transport(app.connection_dir_root)
    app.update_config(extra)
    _check_capacity(app, options)
    voila_handlers = app.init_handlers  # Voila's start() asks for its routes here
    app.init_handlers = lambda: [*course_handlers(app.server_url, options.notebook_dir),
                                 *capped_routes(voila_handlers())]
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
    """Return the effective configuration (secrets masked), as ``--print-config`` shows it.

    Parameters
    ----------
    app : voila.app.Voila
        :func:`build_app`'s application.
    options : ServeOptions
        What the command line chose.

    Returns
    -------
    dict
        JSON-ready settings: command, files, address, authentication kind, pools, kernel
        manager, kernel transport (:func:`~workbench.ui.serving.kernels.kernel_transport`) and capacity.
    """
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
        "kernel_transport": c.KernelManager.get("transport", "tcp"),
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
    """Serve the dashboards from the command line; return the exit status.

    Parameters
    ----------
    argv : sequence of str or None, default None
        The arguments (:func:`parse_args`); None: ``sys.argv[1:]``.
    prog : str, default "python -m workbench.ui.serve"
        The command's name in the help.

    Returns
    -------
    int
        0, or 2 when the server refuses to start (the reason on stderr).
    """
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
    """A started Voila server: its URL, process, log file and token.

    Attributes
    ----------
    url : str
        E.g. ``http://127.0.0.1:40123/``.
    process : subprocess.Popen
        The server process.
    log_path : pathlib.Path
        The server's stdout and stderr.
    token : str or None, default None
        Its access token.
    """

    url: str
    process: subprocess.Popen
    log_path: Path
    token: str | None = None

    @property
    def pid(self) -> int:
        """The Voila server process (kernels are its children)."""
        return self.process.pid

    def render_url(self, notebook: str) -> str:
        """Return the address of one dashboard.

        Parameters
        ----------
        notebook : str
            The notebook, relative to the served folder (``"01_downey_explorer.ipynb"``).

        Returns
        -------
        str
            With the token, if the server has one.
        """
        query = f"?token={self.token}" if self.token else ""
        return f"{self.url}voila/render/{notebook}{query}"

    def log_tail(self, chars: int = 4000) -> str:
        """Return the last ``chars`` characters of the server's log.

        Parameters
        ----------
        chars : int, default 4000
            How many characters.

        Returns
        -------
        str
        """
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
    """Run :func:`serve_command` over ``notebook_dir`` on a free port.

    The command of ``make dashboards``, configured by voila.json.  The server runs in a new
    session and its process group (and its kernels) are killed on exit.

    Parameters
    ----------
    log_path : pathlib.Path
        Where the server's output goes.
    notebook_dir : str or pathlib.Path, default "notebooks"
        The folder served, relative to :data:`ROOT`.
    cell_timeout_s : int or None, default None
        Seconds per cell; None: voila.json's.
    start_timeout_s : float, default 90
        Seconds the server has to answer.
    env : Mapping[str, str] or None, default None
        The server's environment; None: this process's.
    host : str, default DEFAULT_HOST ("127.0.0.1")
        The address listened on.
    token : str or None, default None
        The access token, passed in :data:`TOKEN_ENV`.
    serve_args : sequence of str, default ()
        More command-line options.

    Yields
    ------
    VoilaServer

    Raises
    ------
    RuntimeError
        With the end of the server's log, if it exits or does not answer within
        ``start_timeout_s``.
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
    """Return a headless chromium ``Browser`` from a started ``sync_playwright()``.

    Parameters
    ----------
    playwright : playwright.sync_api.Playwright
        The started Playwright.
    executable : pathlib.Path, default CHROMIUM
        The chromium binary (Debian's ``/usr/bin/chromium``).

    Returns
    -------
    playwright.sync_api.Browser
    """
    return playwright.chromium.launch(executable_path=str(executable), args=list(CHROMIUM_ARGS), headless=True)


if __name__ == "__main__":
    # Run the importable module, not this __main__ copy of it, so that what main() builds and
    # what voila.json names (workbench.ui.serve's classes) are one module's.
    from workbench.ui import serve as _module

    sys.exit(_module.main())
