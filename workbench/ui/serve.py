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
  (kernels, pages, Voila's internals); their public names are importable from here too.
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
import contextlib
import getpass
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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.io.locations import NOTEBOOK_DIR, RESOURCE_ROOT, VOILA_CONFIG
from workbench.ui.limits import UPLOAD_LIMIT_BYTES
from workbench.ui.serving import ServeError
from workbench.ui.serving.kernels import (
    HEADROOM_BYTES,
    HEADROOM_FRACTION,
    KERNEL_MEMORY_BYTES,
    WorkbenchKernelManager,
    is_loopback,
    memory_kernel_cap,
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
    # Run the importable module, not this __main__ copy of it, so that what main() builds and
    # what voila.json names (workbench.ui.serve's classes) are one module's.
    from workbench.ui import serve as _module

    sys.exit(_module.main())
