"""The server of the dashboards (workbench.ui.serve + voila.json): one command for ``make
dashboards`` and the tests, a token required beyond loopback, Host/Origin checks (DNS
rebinding), the tab-close kernel shutdown and the culling of closed pages' kernels.

The last tests start real Voila servers over a one-cell notebook (a few seconds each, with
culling shortened through the command line); everything stays under ~60 s.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import nbformat
import pytest

from workbench.ui import serve
from workbench.ui.serve import (
    ROOT,
    TOKEN_ENV,
    UPLOAD_LIMIT_BYTES,
    WEBSOCKET_MAX_MESSAGE_BYTES,
    ServeError,
    ServeOptions,
    build_app,
    is_loopback,
    parse_args,
    serve_command,
    voila_server,
)
from workbench.ui.serving import kernels

TOKEN = "test-token-0123456789abcdef"


# --------------------------------------------------------------------------- command and config


@pytest.mark.parametrize(
    "host, loopback",
    [("127.0.0.1", True), ("127.0.1.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("myhost.example", False), ("", False)],
)
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_token_or_password_required_beyond_loopback():
    options, _ = parse_args(["--host", "0.0.0.0"], environ={})
    with pytest.raises(ServeError, match="without a token or a password") as exc:
        options.check()
    assert TOKEN_ENV in str(exc.value) and "--generate-token" in str(exc.value)
    parse_args(["--host", "127.0.0.1"], environ={})[0].check()  # loopback: allowed without
    parse_args(["--host", "0.0.0.0"], environ={TOKEN_ENV: TOKEN})[0].check()
    generated, _ = parse_args(["--host", "0.0.0.0", "--generate-token"], environ={})
    generated.check()
    assert generated.token_generated and len(generated.token) >= serve.MIN_TOKEN_LENGTH
    with pytest.raises(ServeError, match="too short"):
        parse_args(["--host", "0.0.0.0"], environ={TOKEN_ENV: "abc"})[0].check()


def test_password_hash_file_counts_as_auth(tmp_path):
    from jupyter_server.auth import passwd

    hashed = tmp_path / "hash"
    hashed.write_text(passwd("correct horse battery staple") + "\n")
    options, _ = parse_args(["--host", "0.0.0.0", "--password-hash-file", str(hashed)], environ={})
    options.check()
    assert options.hashed_password.startswith("argon2:")


def test_cli_refuses_beyond_loopback_without_token(monkeypatch, capsys):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert serve.main(["--host", "0.0.0.0", "--no-browser", "--print-config"]) == 2
    assert "refusing to serve on '0.0.0.0'" in capsys.readouterr().err


def test_serve_command_holds_no_secret_and_passes_voila_options():
    options = ServeOptions(host="0.0.0.0", port=9999, open_browser=False, token=TOKEN,
                           pools={"02_adept_prediction.ipynb": 3}, extra=["--VoilaConfiguration.show_tracebacks=True"])
    cmd = serve_command(options)
    assert cmd[1:3] == ["-m", "workbench.ui.serve"]
    assert TOKEN not in " ".join(cmd)
    assert "--pool=02_adept_prediction.ipynb=3" in cmd and cmd[-1] == "--VoilaConfiguration.show_tracebacks=True"
    parsed, _ = parse_args(cmd[3:], environ={})
    assert (parsed.host, parsed.port, parsed.open_browser, parsed.pools, parsed.extra) == (
        "0.0.0.0", 9999, False, {"02_adept_prediction.ipynb": 3}, ["--VoilaConfiguration.show_tracebacks=True"])
    with pytest.raises(SystemExit):
        parse_args(["--bogus"], environ={})


def test_make_dashboards_runs_the_command_of_the_tests():
    """``make dashboards`` and :func:`voila_server` (browser tests, tools) both run
    ``python -m workbench.ui.serve``, which reads voila.json: same configuration."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    dry = subprocess.run(["make", "-n", "dashboards", "PORT=12345"], cwd=ROOT, capture_output=True, text=True,
                         timeout=30)
    line = [ln for ln in dry.stdout.splitlines() if "workbench serve" in ln]
    assert line, f"make dashboards does not run workbench serve:\n{dry.stdout}{dry.stderr}"
    words = line[-1].split()
    assert words[0].endswith(".venv/bin/workbench") and words[1] == "serve"  # = python -m workbench.ui.serve
    assert words[words.index("--host") + 1] == "127.0.0.1" and words[words.index("--port") + 1] == "12345"
    assert not any(w.startswith(("--Voila", "--preheat", "--MappingKernelManager")) for w in words), words
    assert "voila " not in dry.stdout.replace("voila.json", "")  # no second definition

    recorded = []

    class NoServer:  # records the command, then "exits" at once
        pid, returncode = 2**22 + 12345, 1

        def __init__(self, cmd, **kwargs):
            recorded.append(cmd)

        def poll(self):
            return 1

        def wait(self, timeout=None):
            return 1

    original = serve.subprocess.Popen
    serve.subprocess.Popen = NoServer
    try:
        with pytest.raises(RuntimeError, match="exited"), voila_server(Path("/dev/null")):
            pass
    finally:
        serve.subprocess.Popen = original
    cmd = recorded[0]
    assert cmd[1:3] == ["-m", "workbench.ui.serve"]
    assert cmd[4:6] == ["--host", "127.0.0.1"] and "--no-browser" in cmd
    assert not any(w.startswith(("--Voila", "--preheat", "--cell-timeout")) for w in cmd), cmd


def test_make_lab_adds_allow_root_only_for_root():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    dry = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    line = [ln for ln in dry.stdout.splitlines() if "jupyter lab" in ln][-1]
    assert ("--allow-root" in line) == (__import__("os").getuid() == 0), line


@pytest.mark.parametrize("given, port", [([], "8888"), (["PORT=9123"], "9123")])
def test_make_lab_honours_port(given, port):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in __import__("os").environ.items() if k != "PORT"}
    dry = subprocess.run(["make", "-n", "lab", *given], cwd=ROOT, capture_output=True, text=True, timeout=30, env=env)
    line = [ln for ln in dry.stdout.splitlines() if "jupyter lab" in ln][-1]
    assert f"--ServerApp.port={port} " in line and "--ServerApp.port_retries=0" in line, line


def test_dashboards_use_the_upload_limit_of_the_server():
    from workbench.ui import common

    limit = getattr(common, "UPLOAD_LIMIT_BYTES", UPLOAD_LIMIT_BYTES)
    assert limit == UPLOAD_LIMIT_BYTES < WEBSOCKET_MAX_MESSAGE_BYTES


def test_voila_json_is_the_documented_configuration():
    config = json.loads((ROOT / "voila.json").read_text())
    tornado = config["Voila"]["tornado_settings"]
    assert tornado["websocket_max_message_size"] == WEBSOCKET_MAX_MESSAGE_BYTES >= 2 * UPLOAD_LIMIT_BYTES
    assert tornado["allow_remote_access"] is False and tornado["local_hostnames"] == ["localhost"]
    assert config["VoilaConfiguration"]["preheat_kernel"] is True
    cull = config["MappingKernelManager"]
    assert cull["cull_connected"] is False and cull["cull_busy"] is False
    # a closed page's kernel goes within 2 minutes: idle timeout + one culler interval
    assert cull["cull_idle_timeout"] + cull["cull_interval"] <= 110
    # a kernel no page connected to (a plain GET) goes within 60 s: its grace + one interval
    workbench = config["WorkbenchKernelManager"]
    assert workbench["never_connected_timeout"] + cull["cull_interval"] <= 60
    assert workbench["max_kernels"] == 0  # derived from memory (memory_kernel_cap)
    assert workbench["max_kernels_per_client"] >= 1 and workbench["full_retry_after"] >= 1
    assert config["PasswordIdentityProvider"]["allow_password_change"] is False
    for dotted in (config["VoilaConfiguration"]["multi_kernel_manager_class"],
                   config["Voila"]["identity_provider_class"]):
        module, name = dotted.rsplit(".", 1)
        assert getattr(__import__(module, fromlist=[name]), name)


@pytest.fixture()
def keep_sigterm():
    handler = signal.getsignal(signal.SIGTERM)  # Voila.initialize installs its own
    yield
    signal.signal(signal.SIGTERM, handler)


def test_build_app_modes(tmp_path, keep_sigterm):
    app = build_app(ServeOptions(notebook_dir=tmp_path, open_browser=False))
    assert app.tornado_settings["allow_remote_access"] is False
    assert app.tornado_settings["websocket_max_message_size"] == WEBSOCKET_MAX_MESSAGE_BYTES
    assert app.ip == "127.0.0.1" and app.port_retries == 0 and app.token is None
    assert app.voila_configuration.preheat_kernel is True
    assert app.voila_configuration.multi_kernel_manager_class is serve.WorkbenchKernelManager
    assert app.config.MappingKernelManager.cull_idle_timeout == 60

    app = build_app(ServeOptions(notebook_dir=tmp_path, host="0.0.0.0", open_browser=False, token=TOKEN,
                                 pools={"a.ipynb": 3}))
    assert app.tornado_settings["allow_remote_access"] is True and app.token == TOKEN
    assert app.config.VoilaKernelManager.kernel_pools_config == {"default": {"pool_size": 1},
                                                                 "a.ipynb": {"pool_size": 3}}
    with pytest.raises(ServeError):
        build_app(ServeOptions(notebook_dir=tmp_path, host="0.0.0.0"))


def test_voila_internals_are_those_serve_overrides():
    """serve.py overrides private members of Voila 0.5.13 (kernel-manager factory, pools, render
    handler, contents manager, lab template): a Voila that changed them must fail here, loudly."""
    import voila
    from packaging.specifiers import SpecifierSet

    problems = serve.voila_internals_problems()
    assert not problems, (f"Voila {voila.__version__}: these internals that workbench/ui/serve.py overrides "
                          "changed:\n  - " + "\n  - ".join(problems))
    assert voila.__version__ in SpecifierSet(serve.VOILA_TESTED)
    import tomllib
    pinned = [r for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][
        "dashboards"] if r.startswith("voila")]
    assert pinned == [f"voila{serve.VOILA_TESTED}"], pinned


def test_a_changed_voila_internal_is_named_and_stops_the_server(monkeypatch, tmp_path, keep_sigterm):
    import voila.voila_kernel_manager as vkm

    # a Voila whose factory takes other arguments
    monkeypatch.setattr(vkm, "voila_kernel_manager_factory", lambda base_class, preheat, size: base_class)
    problems = serve.voila_internals_problems()
    assert any("voila_kernel_manager_factory(base_class, preheat_kernel, default_pool_size" in p for p in problems)
    with pytest.raises(ServeError, match="these internals changed"):
        build_app(ServeOptions(notebook_dir=tmp_path, open_browser=False))


def test_workbench_serve_is_the_server_command(capsys):
    from workbench.cli import main as workbench

    assert workbench(["serve", "--print-config", "--max-kernels", "40", "--port", "9876"]) == 0
    config = json.loads(capsys.readouterr().out)
    assert config["port"] == 9876 and config["capacity"]["max_kernels"] == 40
    assert config["config_file"] == str(serve.CONFIG_FILE) and config["notebook_dir"] == str(ROOT / "notebooks")
    with pytest.raises(SystemExit):
        workbench(["serve", "--help"])
    assert "usage: workbench serve" in capsys.readouterr().out


def test_kernels_talk_over_unix_sockets_where_their_paths_fit(capsys, tmp_path):
    from workbench.cli import main as workbench
    from workbench.ui.serving.kernels import UNIX_SOCKET_PATH_MAX, kernel_transport

    # a TCP kernel's ports are found free, let go and bound later: an outgoing connection can take one
    # in between ("Address already in use"); Unix sockets in the kernel's folder cannot be taken
    assert workbench(["serve", "--print-config"]) == 0
    assert json.loads(capsys.readouterr().out)["kernel_transport"] == "ipc"
    assert workbench(["serve", "--print-config", "--KernelManager.transport=tcp"]) == 0  # the user's choice wins
    assert json.loads(capsys.readouterr().out)["kernel_transport"] == "tcp"
    # the longest socket path: /<root>/voila_XXXXXXXX/kernel-<36>-ipc-9
    room = UNIX_SOCKET_PATH_MAX - len("/voila_12345678/kernel-") - 36 - len("-ipc-9")
    assert kernel_transport("/" + "r" * (room - 1)) == "ipc"
    assert kernel_transport("/" + "r" * room) == "tcp"


def test_memory_kernel_cap_formula():
    gib = 2**30
    # 24 GiB machine, 21 GiB available: (21 - 1 - 2.4) GiB / 0.390625 GiB = 45.06
    assert serve.memory_kernel_cap(available=21 * gib, total=24 * gib) == 45
    assert serve.memory_kernel_cap(available=4 * gib, total=8 * gib) == 5  # (4 - 1 - 0.8) / 0.39 = 5.6
    assert serve.memory_kernel_cap(available=gib, total=2 * gib) == 1  # never below one
    assert serve.memory_kernel_cap() >= 1  # this machine


def test_admission_counts_pages_per_client_and_against_the_cap():
    km = serve.WorkbenchKernelManager(max_kernels=3, max_kernels_per_client=2)
    a1, refusal = km.admit_page("10.0.0.1")
    assert a1 is not None and refusal is None
    assert km.admit_page("10.0.0.1")[0] is not None
    page, refusal = km.admit_page("10.0.0.1")
    assert page is None and "Your address has 2 dashboards open" in refusal
    assert km.admit_page("127.0.0.1")[0] is not None  # loopback: only the cap applies
    page, refusal = km.admit_page("10.0.0.2")
    assert page is None and "at most 3" in refusal and "3 pages are open" in refusal
    km.release_page(a1)  # its request ended without a kernel: the place is free again
    assert km.page_count() == 2 and km.admit_page("10.0.0.2")[0] is not None
    # the kernel Voila starts for the page being served is that page's (context variable)
    km2 = serve.WorkbenchKernelManager(max_kernels=5)
    page, _ = km2.admit_page("10.0.0.3")
    token = kernels.PAGE_SLOT.set(page)
    try:
        km2.bind_page("kernel-1")
    finally:
        kernels.PAGE_SLOT.reset(token)
    km2.bind_page("kernel-2")  # no page being served: a pool kernel
    km2.release_page(page)  # it has a kernel: it keeps its place until the kernel shuts down
    assert page.kernel_id == "kernel-1" and km2.page_count("10.0.0.3") == 1
    strict = serve.WorkbenchKernelManager(max_kernels=9, max_kernels_per_client=1, limit_loopback_clients=True)
    assert strict.admit_page("127.0.0.1")[0] is not None and strict.admit_page("127.0.0.1")[0] is None


def test_build_app_refuses_a_cap_the_pools_fill(tmp_path, keep_sigterm, monkeypatch):
    folder = _tiny_notebooks(tmp_path / "nb")
    with pytest.raises(ServeError, match="pools take 1 kernels .* only 1"):
        build_app(ServeOptions(notebook_dir=folder, open_browser=False, max_kernels=1))
    app = build_app(ServeOptions(notebook_dir=folder, open_browser=False, max_kernels=2, max_kernels_per_client=1))
    assert app.workbench_capacity == {"max_kernels": 2, "derived_from_memory": False, "preheated": 1,
                                      "max_kernels_per_client": 1, "note": None}
    app = build_app(ServeOptions(notebook_dir=folder, open_browser=False))
    assert app.workbench_capacity["derived_from_memory"] and app.workbench_capacity["max_kernels"] >= 2
    # a small machine: the memory would not even hold the pools; the server still serves a few pages
    monkeypatch.setattr(serve, "memory_kernel_cap", lambda: 0)
    app = build_app(ServeOptions(notebook_dir=folder, open_browser=False, pools={"tiny.ipynb": 3}))
    capacity = app.workbench_capacity
    assert capacity["max_kernels"] == 3 + serve.MIN_PAGES and "smaller pools" in capacity["note"]
    with pytest.raises(ServeError, match="--max-kernels 0"):
        ServeOptions(max_kernels=0).check()
    parsed, _ = parse_args(["--max-kernels", "7", "--max-kernels-per-client", "3"], environ={})
    assert (parsed.max_kernels, parsed.max_kernels_per_client) == (7, 3)
    assert "--max-kernels=7" in serve_command(parsed) and "--max-kernels-per-client=3" in serve_command(parsed)


def test_cull_grace_rules():
    """Culler passes every 30 s; grace counted from leaving the pool / the last disconnect."""
    km = serve.WorkbenchKernelManager(cull_interval=30, cull_idle_timeout=60, never_connected_timeout=300)
    assert km.cull_grace_left("k", now=1000.0) == 300  # first pass seeing it: just left the pool, no page yet
    assert km.cull_grace_left("k", now=1030.0) == 270
    km.notify_connect("k")
    assert km.cull_grace_left("k", now=1060.0) == 0  # connected once: the stock idle rules apply
    km._disconnected_at["k"] = 1070.0  # its page closed: grace from then
    assert km.cull_grace_left("k", now=1090.0) == 40
    assert km.cull_grace_left("k", now=1120.0) == 10
    assert km.cull_grace_left("k", now=1150.0) == 0
    # a kernel seen while starting, then pooled (no passes) for an hour, then taken by a page
    assert km.cull_grace_left("p", now=1000.0) == 300
    assert km.cull_grace_left("p", now=4600.0) == 300  # the clock restarts when it leaves the pool


class _FakeVoilaPool:
    """What the class pool relies on in Voila 0.5.13's preheating manager: ``_pools`` of
    heating tasks, ``fill_if_needed`` creating ``_initialize`` coroutines (delay 0 at start,
    None for refills) and ``get_rendered_notebook`` awaiting the first task of a pool."""

    def __init__(self, log):
        self._pools = {}
        self.log = log

    def fill_if_needed(self, delay=None, notebook_name=None, count=1):
        loop = asyncio.get_running_loop()
        for _ in range(count):
            self._pools.setdefault(notebook_name, []).append(loop.create_task(self._initialize(notebook_name)))

    def _initialize(self, notebook_path, kernel_id=None):
        async def heat():
            self.log.append(("start", notebook_path))
            await asyncio.sleep(0.01)

            async def execute_notebook():
                await asyncio.sleep(0.05)
                self.log.append(("executed", notebook_path))

            return {"task": asyncio.create_task(execute_notebook()), "kernel_id": notebook_path}
        return heat()

    async def get_rendered_notebook(self, notebook_name):
        return await self._pools[notebook_name].pop(0)


def test_class_pool_counts_ready_kernels_and_refills_one_at_a_time():
    def fake_factory(base_class, preheat_kernel, default_pool_size, **kwargs):
        return base_class

    manager_class = kernels.class_pool_factory(fake_factory)(_FakeVoilaPool, True, 1)

    async def scenario():
        log = []
        km = manager_class(log=log)
        km.fill_if_needed(delay=0, notebook_name="a", count=2)  # start-up: both heat at once
        await asyncio.sleep(0)
        assert km.get_pool_size("a") == 0  # still heating: a page starts its own kernel
        heated = await asyncio.gather(*km._pools["a"])
        await asyncio.gather(*(content["task"] for content in heated))
        assert log == [("start", "a"), ("start", "a"), ("executed", "a"), ("executed", "a")]
        assert km.get_pool_size("a") == 2
        log.clear()
        km.fill_if_needed(notebook_name="b", count=3)  # refills: one kernel at a time
        await asyncio.gather(*km._pools["b"])
        await asyncio.sleep(0.1)
        assert log == [("start", "b"), ("executed", "b")] * 3
        # a page takes a ready kernel, not a refill still waiting in front of it
        waiting = asyncio.get_running_loop().create_future()
        km._pools["c"] = [waiting, *km._pools["b"]]
        assert km.get_pool_size("c") == 3
        assert (await km.get_rendered_notebook("c"))["kernel_id"] == "b"
        assert km._pools["c"][0] is waiting
        waiting.cancel()

    _run(scenario())


# --------------------------------------------------------------------------- real servers


def _tiny_notebooks(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("import ipywidgets as w\nw.IntSlider(value=1)")]
    nbformat.write(nb, folder / "tiny.ipynb")
    return folder


class Client:
    """A browser stand-in: cookies kept, ``Host``/``Origin`` settable."""

    def __init__(self, server):
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  _NoRedirect())

    def request(self, path, *, method="GET", headers=None, data=None):
        req = urllib.request.Request(self.server.url + path.lstrip("/"), method=method, headers=headers or {},
                                     data=data)
        try:
            with self.opener.open(req, timeout=60) as response:
                return response.status, response.read().decode(errors="replace"), response.headers
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace"), exc.headers

    def open_page(self, notebook="tiny.ipynb", query=""):
        status, html, _ = self.request(f"voila/render/{notebook}{query}")
        assert status == 200, html[-2000:]
        return re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', html).group(1)

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)

    def kernel_alive(self, kernel_id) -> bool:
        return self.request(f"api/kernels/{kernel_id}")[0] == 200


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


async def _ws_status(server, kernel_id, headers=None, query="", keep=False):
    """HTTP status of a kernel websocket handshake (101 = connected), and the socket if
    ``keep`` (else it is closed)."""
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect

    url = server.url.replace("http", "ws", 1) + f"api/kernels/{kernel_id}/channels?session_id={uuid.uuid4()}{query}"
    try:
        ws = await websocket_connect(HTTPRequest(url, headers=headers or {}, request_timeout=30))
    except HTTPClientError as exc:
        return exc.code, None
    if not keep:
        ws.close()
        await asyncio.sleep(0.1)
    return 101, ws


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: in one pytest run with the browser tests,
    Playwright's sync API keeps an event loop running in the main thread."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _kernel_pids(server) -> list[int]:
    return [pid for pid in serve._child_pids(server.pid)
            if b"ipykernel" in Path(f"/proc/{pid}/cmdline").read_bytes()]


@pytest.fixture(scope="module")
def loopback_server(tmp_path_factory):
    """The configuration of ``make dashboards`` on a free port, culling shortened to seconds."""
    folder = _tiny_notebooks(tmp_path_factory.mktemp("nb"))
    args = ["--MappingKernelManager.cull_interval=1", "--MappingKernelManager.cull_idle_timeout=2",
            "--WorkbenchKernelManager.never_connected_timeout=8",
            "--VoilaKernelManager.fill_delay=1"]  # the taken preheated kernel is back within seconds
    with voila_server(tmp_path_factory.mktemp("log") / "voila.log", folder, serve_args=args) as server:
        yield server


def test_dns_rebinding_refused_on_loopback(loopback_server):
    client = Client(loopback_server)
    kernel_id = client.open_page()
    port = loopback_server.url.rsplit(":", 1)[1].strip("/")
    evil = {"Host": "evil.example", "Origin": "http://evil.example"}
    assert client.request("voila/render/tiny.ipynb", headers=evil)[0] == 403
    assert client.request(f"api/kernels/{kernel_id}", headers=evil)[0] == 403
    assert client.request("voila/api/contents/", headers=evil)[0] == 403
    assert client.request("", headers=evil)[0] == 403  # the course page
    assert client.request("course/screenshots/01_downey_explorer.png", headers=evil)[0] == 403
    status, ws = _run(_ws_status(loopback_server, kernel_id, evil))
    assert status == 403, "a page on evil.example reached the kernel websocket"
    # the same requests with this machine's names pass
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        ok = {"Host": host, "Origin": f"http://{host}"}
        assert client.request(f"api/kernels/{kernel_id}", headers=ok)[0] == 200
        assert _run(_ws_status(loopback_server, kernel_id, ok))[0] == 101
    # a matching Host with a foreign Origin is a cross-site websocket: refused too
    status, _ = _run(_ws_status(loopback_server, kernel_id, {"Origin": "http://evil.example"}))
    assert status == 403


#: A stylesheet, script or module the page would fetch from another machine (namespace URIs
#: such as xmlns="http://www.w3.org/2000/svg" are not requests).
_OFF_MACHINE = re.compile(r"""(?:href|src)\s*=\s*["']?(?:https?:)?//(?!127\.0\.0\.1|localhost)|import\(\s*["']https?://""")


def test_pages_request_nothing_off_the_machine_and_log_no_trust_warning(loopback_server):
    """The lab template's Font Awesome and mermaid CDN requests are gone (workbench/ui/voila_templates),
    on dashboards and on error pages; reading a notebook logs no "Notebook ... is not trusted"."""
    client = Client(loopback_server)
    status, html, _ = client.request("voila/render/tiny.ipynb")
    assert status == 200 and "widget" in html
    assert "voila-style.js" in html  # Voila's bundle with Font Awesome 5, served from here
    status, missing, _ = client.request("voila/render/missing.ipynb")
    assert status == 404 and "404" in missing
    for page in (html, missing, client.request("")[1]):
        assert not _OFF_MACHINE.search(page), _OFF_MACHINE.search(page).group(0)
        assert "cdn.jsdelivr" not in page and "cdnjs" not in page
    log = loopback_server.log_tail(1_000_000)
    assert "Using pre-heated kernel" in log or "Kernel started" in log  # the notebook was read
    assert "is not trusted" not in log, log[-3000:]


def test_tab_close_shutdown_succeeds(loopback_server):
    """The page's beforeunload beacon (form field _xsrf = the _xsrf cookie) shuts its kernel."""
    client = Client(loopback_server)
    kernel_id = client.open_page()
    xsrf = client.cookie("_xsrf")
    assert xsrf, "the dashboard page set no _xsrf cookie: the tab-close shutdown would get 403"
    origin = {"Origin": loopback_server.url.rstrip("/")}
    # without the token (a cross-site form post) it is refused, and the kernel lives
    assert client.request(f"voila/api/shutdown/{kernel_id}", method="POST", data=b"", headers=origin)[0] == 403
    assert client.kernel_alive(kernel_id)
    body = urllib.parse.urlencode({"_xsrf": xsrf}).encode()
    status = client.request(f"voila/api/shutdown/{kernel_id}", method="POST", data=body,
                            headers={**origin, "Content-Type": "application/x-www-form-urlencoded"})[0]
    assert status == 204
    assert not client.kernel_alive(kernel_id)


def test_closed_pages_are_culled_open_pages_and_pool_kept(loopback_server):
    client = Client(loopback_server)
    connected = client.open_page()
    never_connected = client.open_page()

    async def scenario():
        status, ws = await _ws_status(loopback_server, connected, keep=True)
        assert status == 101
        await asyncio.sleep(5)  # > idle timeout + interval: an open page is not culled
        assert client.kernel_alive(connected), "the kernel of an open page was culled"
        assert client.kernel_alive(never_connected), "a page still loading lost its kernel"
        ws.close()  # the tab closes without the beacon (crash, network loss)
        closed_at = time.monotonic()
        while client.kernel_alive(connected) and time.monotonic() - closed_at < 15:
            await asyncio.sleep(0.5)
        return time.monotonic() - closed_at

    released_after = _run(scenario())
    assert not client.kernel_alive(connected), "a closed page's kernel was not culled"
    assert 2 <= released_after <= 6, released_after  # idle timeout (2 s) + interval (1 s) + shutdown
    deadline = time.monotonic() + 15
    while client.kernel_alive(never_connected) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not client.kernel_alive(never_connected), "a kernel no page connected to is never freed"
    # every page's kernel is gone (earlier tests' too), the preheated one (pool size 1) stays
    deadline = time.monotonic() + 10
    while len(_kernel_pids(loopback_server)) != 1 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert len(_kernel_pids(loopback_server)) == 1, "preheated kernel culled, or page kernels leaked"
    assert "Using pre-heated kernel" in loopback_server.log_tail(100_000)
    assert client.open_page()  # and the pool still serves pages


def test_a_page_never_waits_for_a_pool_refill(tmp_path):
    """Voila's own pool would make the second page wait for the refill (an hour here)."""
    folder = _tiny_notebooks(tmp_path / "nb")
    with voila_server(tmp_path / "voila.log", folder,
                      serve_args=["--VoilaKernelManager.fill_delay=3600"]) as server:
        client = Client(server)
        first = client.open_page()
        second = client.open_page()  # the pool is empty: its own kernel, at once
        assert first != second and client.kernel_alive(second)
        assert server.log_tail(100_000).count("Using pre-heated kernel") == 1


def test_class_mode_needs_the_token(tmp_path):
    """Beyond loopback (0.0.0.0): no Host check (clients use the server's name), the token
    (or the password) keeps everyone else out of pages, API and websockets."""
    from jupyter_server.auth import passwd

    folder = _tiny_notebooks(tmp_path / "nb")
    (tmp_path / "hash").write_text(passwd("class password 42"))
    with voila_server(tmp_path / "voila.log", folder, host="0.0.0.0", token=TOKEN,
                      serve_args=["--VoilaConfiguration.default_pool_size=0",
                                  f"--password-hash-file={tmp_path / 'hash'}"]) as server:
        anonymous = Client(server)
        status, _, headers = anonymous.request("voila/render/tiny.ipynb")
        assert status == 302 and "/login" in headers["Location"]
        assert anonymous.request("voila/render/tiny.ipynb", headers={"Host": "evil.example"})[0] == 302
        assert _run(_ws_status(server, str(uuid.uuid4())))[0] == 403
        assert anonymous.request(f"voila/render/tiny.ipynb?token={TOKEN[:-1]}")[0] == 302
        for path in ("", "course/screenshots/01_downey_explorer.png", "voila/tree/"):  # course page too
            status, _, headers = anonymous.request(path)
            assert status == 302 and "/login" in headers["Location"], (path, status)

        student = Client(server)
        kernel_id = student.open_page(query=f"?token={TOKEN}")
        assert student.kernel_alive(kernel_id)  # the login cookie now authenticates
        status, course, _ = student.request("")
        assert status == 200 and 'href="/voila/render/tiny.ipynb"' in course
        assert student.request("course/screenshots/01_downey_explorer.png")[0] == 200
        assert not anonymous.kernel_alive(kernel_id)
        assert _run(_ws_status(server, kernel_id, query=f"&token={TOKEN}"))[0] == 101
        assert TOKEN not in " ".join(Path(f"/proc/{server.pid}/cmdline").read_text().split("\0"))
        for pid in _kernel_pids(server):  # kernels never see the token variable
            assert f"{TOKEN_ENV}=".encode() not in Path(f"/proc/{pid}/environ").read_bytes()

        # or the login page with the password (its form carries the _xsrf token)
        reader = Client(server)
        status, login, _ = reader.request("login")
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', login).group(1)
        for password, expected in (("wrong", 401), ("class password 42", 302)):
            body = urllib.parse.urlencode({"_xsrf": xsrf, "password": password}).encode()
            assert reader.request("login", method="POST", data=body)[0] == expected
        assert reader.open_page()


def _get_from(server, path: str, source: str):
    """GET ``path`` from the loopback address ``source`` (127.0.0.x: another visitor); (status, headers, body)."""
    import http.client

    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(source, 0))
    try:
        connection.request("GET", "/" + path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode(errors="replace")
    finally:
        connection.close()


def test_plain_gets_cannot_fill_the_server(tmp_path):
    """20 plain GETs (no browser, no websocket) from 4 addresses at once: the kernels never exceed
    the cap, refused pages get 503 "server full, try again in N s" and start nothing, no address
    holds more than its limit, and the never-connected kernels go: back to the idle count
    (the preheated kernel) within 2 minutes."""
    from concurrent.futures import ThreadPoolExecutor

    folder = _tiny_notebooks(tmp_path / "nb")
    cap, per_client = 4, 2
    args = [f"--max-kernels={cap}", f"--max-kernels-per-client={per_client}",
            "--WorkbenchKernelManager.limit_loopback_clients=True", "--WorkbenchKernelManager.full_retry_after=7",
            "--MappingKernelManager.cull_interval=1", "--WorkbenchKernelManager.never_connected_timeout=3",
            "--VoilaKernelManager.fill_delay=1"]
    with voila_server(tmp_path / "voila.log", folder, serve_args=args) as server:
        idle = len(_kernel_pids(server))
        assert idle == 1  # the preheated kernel
        counts, stop = [], False

        def watch():
            while not stop:
                counts.append(len(_kernel_pids(server)))
                time.sleep(0.05)

        sources = [f"127.0.0.{1 + i % 4}" for i in range(20)]
        with ThreadPoolExecutor(21) as pool:
            watcher = pool.submit(watch)
            answers = list(pool.map(lambda source: (source, *_get_from(server, "voila/render/tiny.ipynb", source)),
                                    sources))
            started = time.monotonic()
            time.sleep(3)  # the pool's refill (fill_delay 1 s) comes back meanwhile
            stop = True
            watcher.result()
        served = [a for a in answers if a[1] == 200]
        refused = [a for a in answers if a[1] == 503]
        assert len(served) + len(refused) == 20, [a[1] for a in answers]
        assert 1 <= len(served) <= cap - 1  # the preheated kernel is kept: cap - 1 pages
        assert max(counts) <= cap, f"{max(counts)} kernels with a cap of {cap}"
        for source in set(sources):
            assert sum(a[0] == source for a in served) <= per_client
        for _, _, headers, body in refused:
            assert headers["Retry-After"] == "7"
            assert "Server full: try again in 7 s" in body and "Traceback" not in body
            assert not _OFF_MACHINE.search(body)  # the refusal page asks no other machine either
        log = server.log_tail(1_000_000)
        assert log.count("Refused /voila/render/tiny.ipynb") == len(refused)
        while len(_kernel_pids(server)) > idle and time.monotonic() - started < 120:
            time.sleep(0.5)
        back_after = time.monotonic() - started
        assert len(_kernel_pids(server)) == idle, "the kernels of plain GETs were not freed within 2 minutes"
        assert "no page connected to it within 3 s" in server.log_tail(1_000_000)
        print(f"served {len(served)}, refused {len(refused)}, max kernels {max(counts)} (cap {cap}), "
              f"back to {idle} kernel(s) {back_after:.1f} s after the burst")
        # the places are free again, and one address still gets only its share (requests at once:
        # sequential ones would outlive the 3 s grace of the first)
        with ThreadPoolExecutor(per_client + 1) as pool:
            statuses = sorted(pool.map(lambda _: _get_from(server, "voila/render/tiny.ipynb", "127.0.0.9")[0],
                                       range(per_client + 1)))
        assert statuses == [200] * per_client + [503], statuses
