"""The dashboards' server command line: its options, their parsing, and the command that serves them.

:func:`parse_args` reads ``workbench serve``'s arguments (and the token from
:data:`TOKEN_ENV`) into :class:`ServeOptions`; :func:`serve_command` turns options back into
the command (never holding a secret) that :func:`workbench.ui.serve.voila_server` runs.
"""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.io.locations import NOTEBOOK_DIR
from workbench.ui.serving import ServeError
from workbench.ui.serving.kernels import is_loopback

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MIN_TOKEN_LENGTH",
    "TOKEN_ENV",
    "ServeOptions",
    "parse_args",
    "serve_command",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8866
#: Environment variable holding the access token (never put on a command line, where
#: ``ps`` shows it to every user of the machine); removed before any kernel starts.
TOKEN_ENV = "WORKBENCH_TOKEN"
MIN_TOKEN_LENGTH = 16


@dataclass
class ServeOptions:
    """What the command line chose (secrets included; :func:`serve_command` never shows them).

    Attributes
    ----------
    notebook_dir : pathlib.Path, default NOTEBOOK_DIR
        The folder served (the course's notebooks).
    host : str, default DEFAULT_HOST ("127.0.0.1")
        The address listened on.
    port : int, default DEFAULT_PORT (8866)
        The port.
    open_browser : bool, default True
        Open a browser tab.
    token : str or None, default None
        The access token.
    token_generated : bool, default False
        Whether the token was made here (``--generate-token``: the URL is printed with it).
    hashed_password : str or None, default None
        A hashed password (login page instead of a token).
    pools : dict of str -> int, default {}
        Preheated kernels per notebook.
    cell_timeout_s : int or None, default None
        Seconds per cell; None: voila.json's.
    max_kernels : int or None, default None
        The kernel cap; None: voila.json's (0 there: derived from memory).
    max_kernels_per_client : int or None, default None
        Pages one visitor address holds; None: voila.json's.
    extra : list of str, default []
        ``--Class.trait=value`` options for Voila.
    """

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
    """Return the options of the command line and the environment.

    Parameters
    ----------
    argv : sequence of str or None, default None
        The arguments; None: ``sys.argv[1:]``.  Unknown ``--Class.trait=value`` options go to
        Voila (``options.extra``).
    environ : Mapping[str, str] or None, default None
        The environment (read for :data:`TOKEN_ENV`); None: ``os.environ``.
    prog : str, default "python -m workbench.ui.serve"
        The command's name in the help.

    Returns
    -------
    options : ServeOptions
        What was chosen, secrets included.
    print_config : bool
        Whether ``--print-config`` was given.
    """
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

    Parameters
    ----------
    options : ServeOptions or None, default None
        What to serve; None: ``ServeOptions()``.
    python : str, default sys.executable
        The interpreter.

    Returns
    -------
    list of str
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
