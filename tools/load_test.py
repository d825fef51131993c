"""Load test of the dashboard server: N concurrent sessions, each loading a dashboard and
moving its primary slider, then what the server keeps after the pages close.

    python tools/load_test.py --sessions 1,5,10 --mode widget --out bench/results/load_widget.md
    python tools/load_test.py --sessions 5 --mode browser --out load.json --out load.md

By default it starts its own server with :func:`workbench.ui.serve.voila_server`: the
command and voila.json of ``make dashboards`` (preheated kernels, culling), on a free
127.0.0.1 port.  ``--url URL`` tests a running server instead (its token, if any, in
``WORKBENCH_TOKEN``; its process found from the port, or ``--server-pid``).

Modes (one session per dashboard in turn from ``--dashboards``):

* ``widget`` measures the server alone, no browser: per session a websocket client does what
  Voila's page does at the widget-message level: GET the page (time to the whole HTML),
  connect to the kernel named in it, ``comm_info_request`` then ``request_state`` for every
  comm (time until the widgets' state is in hand: "ready"), find the primary slider and the
  main figure by their DOM classes (``wb-primary-slider``, ``wb-main-figure``), then move the
  slider ``--moves`` times (a ``comm_msg`` ``update`` of ``value``, as the browser sends) and
  time until the figure's model receives a new revision (``layout.meta.wb_revision`` of the
  plotly output of an ``Output`` widget; for any other figure model, any update).
* ``browser`` drives N headless chromium pages (Playwright, Debian's chromium): page load
  until the main figure is drawn, the slider moved with the arrow key, redraw seen in the DOM
  (the drawn figure's ``wb_revision``, or its trace geometry), and per load the JavaScript
  bytes transferred and the page's CPU time (CDP ``Performance.getMetrics``:
  TaskDuration/ScriptDuration).  The clients share the server's cores: see "client CPU-s".

A move is "never redrawn" when no new revision arrives within ``--redraw-timeout`` s; before
the next move the session waits until the kernel has finished handling the previous one.
Pages are closed as a tab closes (``--close beacon``: Voila's tab-close shutdown request) or
by dropping the connection (``--close disconnect``: culling must free the kernel).  Kernel
count and total kernel RSS (children of the server process, from /proc via psutil) are
taken at idle before the round, 5 s after the pages closed and ``--settle`` s later.

``--pool NOTEBOOK=N`` gives the server started here that many preheated kernels for a notebook
(as ``make dashboards SERVE_ARGS=--pool ...`` for a class).

Output: a markdown table (stdout, and ``--out X.md``), the raw records (``--out X.json``) and,
with ``--readme NAME``, the table between ``<!-- load-test:NAME:begin -->`` and
``<!-- load-test:NAME:end -->`` in whichever of README.md and docs/**/*.md holds them
(docs/serving-measurements.md).  Not part of the test suite; see docs/serving.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import math
import os
import re
import sys
import tempfile
import time
import urllib.parse
import uuid
from dataclasses import asdict, dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path

import psutil
from readme_block import write_readme_block

from workbench.ui.serve import CHROMIUM, CHROMIUM_ARGS, TOKEN_ENV, voila_server

PRIMARY_SLIDER_CLASS = "wb-primary-slider"
MAIN_FIGURE_CLASS = "wb-main-figure"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
DEFAULT_DASHBOARDS = "02_adept_prediction.ipynb,06_fim_communication.ipynb"
KERNEL_ID_RE = re.compile(r'"kernelId":\s*"([0-9a-f-]{36})"')


# --------------------------------------------------------------------------- processes


def _is_kernel(proc: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return any("ipykernel" in part for part in proc.cmdline())
    return False


def kernel_usage(server_pid: int) -> dict:
    """Kernels (children of the server running ipykernel) and their RSS, descendants included."""
    kernels, rss = 0, 0
    with contextlib.suppress(psutil.NoSuchProcess):
        for child in psutil.Process(server_pid).children():
            if not _is_kernel(child):
                continue
            kernels += 1
            for proc in [child, *child.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    rss += proc.memory_info().rss
    return {"kernels": kernels, "rss_gb": round(rss / 1e9, 2)}


def tree_cpu_s(pid: int, exclude: int | None = None) -> float:
    """CPU seconds of ``pid`` and its descendants (live ones, and reaped ones through their
    parents' children_* times), leaving out the subtree of ``exclude``."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    skip = set()
    if exclude is not None:
        with contextlib.suppress(psutil.NoSuchProcess):
            ex = psutil.Process(exclude)
            skip = {ex.pid, *(p.pid for p in ex.children(recursive=True))}
    total = 0.0
    for proc in procs:
        if proc.pid in skip:
            continue
        with contextlib.suppress(psutil.Error):
            t = proc.cpu_times()
            total += t.user + t.system + getattr(t, "children_user", 0) + getattr(t, "children_system", 0)
    return total


def wait_idle(server_pid: int, timeout_s: float = 900, quiet_s: float = 8) -> dict:
    """Wait until the kernel count is stable and the server uses < 0.15 core for ``quiet_s``."""
    deadline = time.monotonic() + timeout_s
    last = (kernel_usage(server_pid)["kernels"], tree_cpu_s(server_pid), time.monotonic())
    quiet_since = None
    while time.monotonic() < deadline:
        time.sleep(2)
        now = (kernel_usage(server_pid)["kernels"], tree_cpu_s(server_pid), time.monotonic())
        rate = (now[1] - last[1]) / max(now[2] - last[2], 1e-6)
        if now[0] == last[0] and rate < 0.15:
            quiet_since = quiet_since or last[2]
            if now[2] - quiet_since >= quiet_s:
                return kernel_usage(server_pid)
        else:
            quiet_since = None
        last = now
    print(f"warning: the server did not become idle within {timeout_s} s", file=sys.stderr)
    return kernel_usage(server_pid)


def server_pid_from_port(port: int) -> int | None:
    with contextlib.suppress(psutil.Error):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                return conn.pid
    return None


# --------------------------------------------------------------------------- records


@dataclass
class Move:
    value: float | int | str | None = None
    redraw_s: float | None = None  # first figure update with a new revision; None: not within the timeout
    late_s: float | None = None  # arrived, but after the timeout
    handled_s: float | None = None  # kernel idle again after handling the move (widget mode)


@dataclass
class Session:
    index: int
    notebook: str
    page_s: float | None = None  # widget: whole HTML; browser: main figure drawn
    ready_s: float | None = None  # widget: widgets' state received
    moves: list[Move] = field(default_factory=list)
    kernel_id: str | None = None
    widgets: int | None = None
    figure_model: str | None = None
    js_bytes: int | None = None  # browser: script responses (encoded bytes)
    ws_bytes: int | None = None  # browser: websocket payloads received
    task_s: float | None = None  # browser: page CPU (main thread tasks) up to the drawn figure
    script_s: float | None = None
    task_total_s: float | None = None  # ... and after the moves
    error: str | None = None

    @property
    def redrawn(self) -> int:
        return sum(m.redraw_s is not None for m in self.moves)


# --------------------------------------------------------------------------- widget mode


def _revision(outputs) -> int | None:
    revs = []
    for out in outputs or ():
        data = out.get("data", {}) if isinstance(out, dict) else {}
        fig = data.get(PLOTLY_MIME)
        if isinstance(fig, dict):
            meta = (fig.get("layout") or {}).get("meta")
            if isinstance(meta, dict) and isinstance(meta.get("wb_revision"), int):
                revs.append(meta["wb_revision"])
    return max(revs) if revs else None


class KernelClient:
    """The kernel side of one page: a websocket (legacy JSON protocol) and a mirror of the
    widget models, following the figure's revisions."""

    def __init__(self, ws):
        from jupyter_server.services.kernels.connection.base import deserialize_binary_message

        self._decode_binary = deserialize_binary_message
        self.ws = ws
        self.session = uuid.uuid4().hex
        self.replies: dict[str, asyncio.Future] = {}
        self.idle_at: dict[str, float] = {}
        self.state_replies: dict[str, float] = {}  # request msg_id -> arrival
        self.states: dict[str, dict] = {}
        self.figure: str | None = None
        self.figure_revision: int | None = None
        self.figure_updates = 0
        self.figure_update_t = 0.0
        self.output_capture: str | None = None  # Output.msg_id: display messages with this parent go into it
        self.changed = asyncio.Event()
        self.closed = False
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self):
        while True:
            raw = await self.ws.read_message()
            if raw is None:
                self.closed = True
                self.changed.set()
                return
            msg = self._decode_binary(raw) if isinstance(raw, bytes) else json.loads(raw)
            self._on_message(msg, time.monotonic())

    def _on_message(self, msg, t):
        kind = msg["header"]["msg_type"]
        parent = (msg.get("parent_header") or {}).get("msg_id")
        content = msg.get("content") or {}
        if parent in self.replies and kind.endswith("_reply"):
            fut = self.replies.pop(parent)
            if not fut.done():
                fut.set_result(msg)
        if kind == "status" and content.get("execution_state") == "idle" and parent:
            self.idle_at[parent] = t
        elif kind == "comm_msg":
            data = content.get("data") or {}
            comm = content.get("comm_id")
            if data.get("method") in ("update", "echo_update"):
                state = data.get("state") or {}
                self.states.setdefault(comm, {}).update(state)
                if parent in self.state_replies and not self.state_replies[parent]:
                    self.state_replies[parent] = t
                if comm == self.figure:
                    self._figure_changed(state, t)
            elif comm == self.figure:  # e.g. a FigureWidget's custom messages
                self._figure_changed({}, t)
        elif (kind in ("display_data", "update_display_data", "clear_output") and self.output_capture
              and parent == self.output_capture):
            self._figure_changed({"outputs": [content]} if kind != "clear_output" else {}, t)

    def _figure_changed(self, state, t):
        if "msg_id" in state:
            self.output_capture = state["msg_id"] or None
        if set(state) <= {"msg_id"} and state:
            return
        rev = _revision(state.get("outputs")) if "outputs" in state else None
        if rev is not None:
            self.figure_revision = max(rev, self.figure_revision or 0)
        self.figure_updates += 1
        self.figure_update_t = t
        self.changed.set()

    def send(self, msg_type: str, content: dict) -> str:
        msg_id = uuid.uuid4().hex
        msg = {
            "header": {"msg_id": msg_id, "username": "load-test", "session": self.session, "msg_type": msg_type,
                       "version": "5.3", "date": dt.datetime.now(dt.timezone.utc).isoformat()},
            "parent_header": {}, "metadata": {}, "content": content, "channel": "shell", "buffers": [],
        }
        self.ws.write_message(json.dumps(msg))
        return msg_id

    async def request(self, msg_type: str, content: dict, timeout: float) -> dict:
        fut = asyncio.get_running_loop().create_future()
        msg_id = self.send(msg_type, content)
        self.replies[msg_id] = fut
        return await asyncio.wait_for(fut, timeout)

    async def load_widget_state(self, timeout: float) -> int:
        """comm_info_request, then request_state on every widget comm, as the page does."""
        reply = await self.request("comm_info_request", {"target_name": "jupyter.widget"}, timeout)
        comms = list((reply["content"].get("comms") or {}).keys())
        for comm in comms:
            self.state_replies[self.send("comm_msg", {"comm_id": comm, "data": {"method": "request_state"}})] = 0.0
        deadline = time.monotonic() + timeout
        while not all(self.state_replies.values()):
            if time.monotonic() > deadline or self.closed:
                raise TimeoutError(f"{sum(not v for v in self.state_replies.values())} of {len(comms)} widget states "
                                   "missing")
            await asyncio.sleep(0.02)
        return len(comms)

    def find(self, dom_class: str) -> str | None:
        found = [c for c, s in self.states.items() if dom_class in (s.get("_dom_classes") or ())]
        return found[0] if found else None

    async def wait_figure(self, revision: int | None, updates: int, timeout: float) -> float | None:
        """Arrival time of the first figure change after (revision, updates), or None."""
        deadline = time.monotonic() + timeout
        while True:
            if revision is not None and self.figure_revision is not None:
                if self.figure_revision > revision:
                    return self.figure_update_t
            elif self.figure_updates > updates:
                return self.figure_update_t
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                return None
            self.changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def wait_idle(self, msg_id: str, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        while msg_id not in self.idle_at:
            if time.monotonic() > deadline or self.closed:
                return None
            await asyncio.sleep(0.02)
        return self.idle_at[msg_id]


def next_slider_value(state: dict, direction: int) -> tuple[str, object, int]:
    """(state key, new value, direction) one step along, turning at the ends."""
    model = state.get("_model_name", "")
    if model == "SelectionSliderModel":
        n = len(state.get("_options_labels") or ())
        i = state.get("index") or 0
        if not 0 <= i + direction < n:
            direction = -direction
        return "index", i + direction, direction
    lo, hi, step, value = state["min"], state["max"], state.get("step") or 1, state["value"]
    if model == "FloatLogSliderModel":
        base = state.get("base", 10)
        exp = math.log(value, base)
        if not lo - 1e-9 <= exp + direction * step <= hi + 1e-9:
            direction = -direction
        return "value", round(base ** (exp + direction * step), 12), direction
    if not lo <= value + direction * step <= hi:
        direction = -direction
    new = value + direction * step
    return "value", (int(new) if model == "IntSliderModel" else round(new, 12)), direction


def _cookies(response) -> dict[str, str]:
    jar = SimpleCookie()
    for header in response.headers.get_list("Set-Cookie"):
        jar.load(header)
    return {k: m.value for k, m in jar.items()}


async def widget_session(index: int, base_url: str, notebook: str, token: str | None, args) -> Session:
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest
    from tornado.websocket import websocket_connect

    rec = Session(index, notebook)
    query = f"?token={token}" if token else ""
    http = AsyncHTTPClient()
    client = None
    try:
        t0 = time.monotonic()
        page = await http.fetch(f"{base_url}voila/render/{notebook}{query}", request_timeout=args.load_timeout)
        rec.page_s = time.monotonic() - t0
        html = page.body.decode(errors="replace")
        rec.kernel_id = KERNEL_ID_RE.search(html).group(1)
        cookies = _cookies(page)
        ws_url = (base_url.replace("http", "ws", 1)
                  + f"api/kernels/{rec.kernel_id}/channels?session_id={uuid.uuid4().hex}")
        ws_url += f"&token={token}" if token else ""
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
        ws = await websocket_connect(HTTPRequest(ws_url, headers=headers, request_timeout=args.load_timeout),
                                     max_message_size=512 * 2**20)
        client = KernelClient(ws)
        rec.widgets = await client.load_widget_state(args.load_timeout)
        rec.ready_s = time.monotonic() - t0
        slider, client.figure = client.find(PRIMARY_SLIDER_CLASS), client.find(MAIN_FIGURE_CLASS)
        if slider is None or client.figure is None:
            saved = Path(tempfile.mkstemp(prefix=f"load_test_page{index}_", suffix=".html")[1])
            saved.write_text(html)
            raise RuntimeError(f"no {PRIMARY_SLIDER_CLASS} slider or {MAIN_FIGURE_CLASS} figure among {rec.widgets} "
                               f"widgets (page of {len(html)} characters saved in {saved})")
        figure_state = client.states[client.figure]
        rec.figure_model = figure_state.get("_model_name")
        client.figure_revision = _revision(figure_state.get("outputs"))
        client.output_capture = figure_state.get("msg_id") or None
        direction = 1
        for _ in range(args.moves):
            key, value, direction = next_slider_value(client.states[slider], direction)
            client.states[slider][key] = value
            revision, updates = client.figure_revision, client.figure_updates
            sent = time.monotonic()
            msg_id = client.send("comm_msg", {"comm_id": slider, "data": {"method": "update", "state": {key: value},
                                                                          "buffer_paths": []}})
            move = Move(value=value)
            arrived = await client.wait_figure(revision, updates, args.redraw_timeout)
            if arrived is not None:
                move.redraw_s = arrived - sent
            idle = await client.wait_idle(msg_id, args.load_timeout)
            if idle is not None:
                move.handled_s = idle - sent
            if arrived is None:
                late = await client.wait_figure(revision, updates, 0.5)
                move.late_s = None if late is None else late - sent
            rec.moves.append(move)
            await asyncio.sleep(args.think)
    except Exception as exc:  # noqa: BLE001 - recorded per session
        rec.error = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        if client is not None:
            if args.close == "beacon" and rec.kernel_id:
                with contextlib.suppress(Exception):
                    xsrf = cookies.get("_xsrf", "")
                    await http.fetch(HTTPRequest(
                        f"{base_url}voila/api/shutdown/{rec.kernel_id}{query}", method="POST",
                        body=urllib.parse.urlencode({"_xsrf": xsrf}),
                        headers={**headers, "Origin": base_url.rstrip("/"),
                                 "Content-Type": "application/x-www-form-urlencoded"}), raise_error=False)
            client.ws.close()
            client.reader.cancel()
    return rec


async def run_widget_round(base_url: str, token: str | None, notebooks: list[str], n: int, args) -> list[Session]:
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=max(64, 2 * n))

    async def start(i):
        await asyncio.sleep(i * args.ramp)
        return await widget_session(i, base_url, notebooks[i % len(notebooks)], token, args)

    return list(await asyncio.gather(*(start(i) for i in range(n))))


# --------------------------------------------------------------------------- browser mode

FIGURE_STATE_JS = """(sel) => {
    const host = document.querySelector(sel);
    if (!host) return null;
    const gd = host.classList.contains('js-plotly-plot') ? host : host.querySelector('.js-plotly-plot');
    if (!gd || !gd._fullLayout || !gd.querySelector('.main-svg')) return null;
    const meta = gd.layout && gd.layout.meta;
    const rev = meta && Number.isInteger(meta.wb_revision) ? meta.wb_revision : null;
    const sig = Array.from(gd.querySelectorAll('.trace path, .trace image, .hm image'))
        .map(e => e.getAttribute('d') || e.getAttribute('href') || '').join('|');
    return {rev, sig};
}"""
FIGURE_CHANGED_JS = f"""([sel, before]) => {{
    const now = ({FIGURE_STATE_JS})(sel);
    if (!now) return false;
    if (before.rev !== null && now.rev !== null) return now.rev > before.rev;
    return now.sig !== before.sig;
}}"""


async def browser_session(index: int, browser, page_url: str, notebook: str, args) -> Session:
    rec = Session(index, notebook, js_bytes=0, ws_bytes=0)
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    types: dict[str, str] = {}
    try:
        cdp = await context.new_cdp_session(page)
        await cdp.send("Network.enable")
        await cdp.send("Performance.enable")

        def on_response(e):
            types[e["requestId"]] = e.get("type", "")

        def on_finished(e):
            if types.get(e["requestId"]) == "Script":
                rec.js_bytes += int(e.get("encodedDataLength", 0))

        def on_frame(e):
            rec.ws_bytes += len(e.get("response", {}).get("payloadData", ""))

        cdp.on("Network.responseReceived", on_response)
        cdp.on("Network.loadingFinished", on_finished)
        cdp.on("Network.webSocketFrameReceived", on_frame)
        figure = f".{MAIN_FIGURE_CLASS}"
        t0 = time.monotonic()
        await page.goto(page_url, wait_until="domcontentloaded", timeout=args.load_timeout * 1000)
        await page.wait_for_function(f"(sel) => ({FIGURE_STATE_JS})(sel) !== null", arg=figure,
                                     timeout=args.load_timeout * 1000, polling=100)
        handle = page.locator(f".{PRIMARY_SLIDER_CLASS} .noUi-handle")
        await handle.wait_for(timeout=args.load_timeout * 1000)
        rec.page_s = time.monotonic() - t0
        rec.kernel_id = await page.evaluate(
            "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
        metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
        rec.task_s, rec.script_s = metrics.get("TaskDuration"), metrics.get("ScriptDuration")
        direction = 1
        for _ in range(args.moves):
            before = await page.evaluate(FIGURE_STATE_JS, figure)
            now, top = await handle.get_attribute("aria-valuenow"), await handle.get_attribute("aria-valuemax")
            bottom = await handle.get_attribute("aria-valuemin")
            with contextlib.suppress(TypeError, ValueError):
                if direction > 0 and float(now) >= float(top) or direction < 0 and float(now) <= float(bottom):
                    direction = -direction
            await handle.focus()
            sent = time.monotonic()
            await page.keyboard.press("ArrowRight" if direction > 0 else "ArrowLeft")
            move = Move(value=await handle.get_attribute("aria-valuenow"))
            try:
                await page.wait_for_function(FIGURE_CHANGED_JS, arg=[figure, before],
                                             timeout=args.redraw_timeout * 1000, polling=20)
                move.redraw_s = time.monotonic() - sent
            except Exception:  # playwright's TimeoutError
                with contextlib.suppress(Exception):
                    await page.wait_for_function(FIGURE_CHANGED_JS, arg=[figure, before], timeout=20_000, polling=100)
                    move.late_s = time.monotonic() - sent
            rec.moves.append(move)
            await asyncio.sleep(args.think)
        metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
        rec.task_total_s = metrics.get("TaskDuration")
    except Exception as exc:  # noqa: BLE001 - recorded per session
        rec.error = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        with contextlib.suppress(Exception):
            if args.close == "beacon":
                async with page.expect_event("close", timeout=10_000):
                    await page.close(run_before_unload=True)
                await asyncio.sleep(0.3)
        with contextlib.suppress(Exception):
            await context.close()
    return rec


async def run_browser_round(render_url, notebooks: list[str], n: int, args, client_cpu) -> list[Session]:
    """The sessions; ``client_cpu()`` is called before the browser closes (its processes'
    CPU time is lost once they exit) and its value stored in ``args.client_cpu_end``."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True)

        async def start(i):
            await asyncio.sleep(i * args.ramp)
            nb = notebooks[i % len(notebooks)]
            return await browser_session(i, browser, render_url(nb), nb, args)

        try:
            return list(await asyncio.gather(*(start(i) for i in range(n))))
        finally:
            args.client_cpu_end = client_cpu()
            await browser.close()


# --------------------------------------------------------------------------- rounds and report


def _q(values, q):
    values = sorted(values)
    if not values:
        return None
    k = (len(values) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def summarise(sessions: list[Session], usage: dict, cpu: dict, args) -> dict:
    page = [s.page_s for s in sessions if s.page_s is not None]
    ready = [s.ready_s for s in sessions if s.ready_s is not None]
    moves = [m for s in sessions for m in s.moves]
    redraws = [m.redraw_s for m in moves if m.redraw_s is not None]
    planned = len(sessions) * args.moves
    out = {
        "sessions": len(sessions),
        "page_median_s": _q(page, 0.5), "page_max_s": max(page, default=None),
        "ready_median_s": _q(ready, 0.5), "ready_max_s": max(ready, default=None),
        "redraw_median_s": _q(redraws, 0.5), "redraw_p95_s": _q(redraws, 0.95),
        "moves_planned": planned, "moves_never_redrawn": planned - len(redraws),
        "moves_late": sum(m.late_s is not None for m in moves),
        "sessions_without_redraw": sum(s.redrawn == 0 for s in sessions),
        "sessions_failed": sum(s.error is not None for s in sessions),
        "kernels": usage, "cpu_s": cpu,
    }
    if args.mode == "browser":
        js = [s.js_bytes for s in sessions if s.page_s is not None]
        out["js_mb_per_load"] = _q(js, 0.5) / 1e6 if js else None
        out["ws_mb_per_load"] = _q([s.ws_bytes for s in sessions if s.page_s is not None], 0.5) / 1e6 if js else None
        out["page_task_s_per_load"] = _q([s.task_s for s in sessions if s.task_s is not None], 0.5)
        out["page_script_s_per_load"] = _q([s.script_s for s in sessions if s.script_s is not None], 0.5)
    return out


def _fmt(x, digits=1, unit=" s"):
    return "–" if x is None else f"{x:.{digits}f}{unit}"


def markdown(rows: list[dict], args, meta: dict) -> str:
    widget = args.mode == "widget"
    head = ["sessions", "page HTML median / max" if widget else "page load (figure drawn) median / max"]
    if widget:
        head.append("widgets ready median / max")
    head += ["redraw median / p95", "moves never redrawn", "sessions with no redraw at all",
             "kernels (RSS): idle → pages closed → +%d s" % args.settle]
    if not widget:
        head += ["JS per load", "page CPU per load (task / script)"]
    head += ["server CPU-s", "client CPU-s"]
    lines = [f"Load test ({args.mode} mode): {meta['dashboards']}, {args.moves} slider moves per session, "
             f"redraw timeout {args.redraw_timeout:g} s, pages closed by {args.close}; "
             f"{meta['machine']}, {meta['date']}, server {meta['server']}.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        k = r["kernels"]
        cells = [str(r["sessions"]), f"{_fmt(r['page_median_s'])} / {_fmt(r['page_max_s'])}"]
        if widget:
            cells.append(f"{_fmt(r['ready_median_s'])} / {_fmt(r['ready_max_s'])}")
        cells += [
            f"{_fmt(r['redraw_median_s'], 2)} / {_fmt(r['redraw_p95_s'], 2)}",
            f"{r['moves_never_redrawn']} of {r['moves_planned']}"
            + (f" ({r['moves_late']} late)" if r["moves_late"] else ""),
            f"{r['sessions_without_redraw']} of {r['sessions']}"
            + (f" ({r['sessions_failed']} failed)" if r["sessions_failed"] else ""),
            " → ".join(f"{u['kernels']} ({u['rss_gb']:.1f} GB)" for u in (k["idle"], k["closed"], k["settled"])),
        ]
        if not widget:
            cells += [f"{_fmt(r['js_mb_per_load'], 1, ' MB')}",
                      f"{_fmt(r['page_task_s_per_load'], 1)} / {_fmt(r['page_script_s_per_load'], 1)}"]
        cells += [f"{r['cpu_s']['server']:.0f}", f"{r['cpu_s']['client']:.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    errors = [f"- session {s['index']} ({s['notebook']}, {r['sessions']} sessions): {s['error']}"
              for r in rows for s in r["records"] if s["error"]]
    if errors:
        lines += ["", "Errors:", *errors[:20]]
    return "\n".join(lines) + "\n"


def run(args) -> tuple[list[dict], dict]:
    notebooks = [nb.strip() for nb in args.dashboards.split(",") if nb.strip()]
    counts = [int(n) for n in str(args.sessions).split(",")]
    token = os.environ.get(TOKEN_ENV) or None
    meta = {"dashboards": ", ".join(notebooks), "date": dt.date.today().isoformat(),
            "machine": f"{os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB"}

    with contextlib.ExitStack() as stack:
        if args.url:
            base_url = args.url.rstrip("/") + "/"
            port = urllib.parse.urlsplit(base_url).port or 80
            server_pid = args.server_pid or server_pid_from_port(port)
            if server_pid is None:
                raise SystemExit(f"cannot find the process listening on port {port}: give --server-pid")
            meta["server"] = base_url
        else:
            log = Path(tempfile.mkdtemp(prefix="load_test_")) / "voila.log"
            pools = [f"--pool={pool}" for pool in args.pool]
            server = stack.enter_context(voila_server(log, "notebooks", serve_args=pools))
            base_url, server_pid, token = server.url, server.pid, None
            meta["server"] = " ".join(["python -m workbench.ui.serve (voila.json)", *pools])
            print(f"server {base_url} (pid {server_pid}), log {log}; waiting for the preheated kernels",
                  file=sys.stderr)
        query = f"?token={token}" if token else ""
        rows = []
        for n in counts:
            idle = wait_idle(server_pid)
            print(f"round of {n} session(s): idle {idle}", file=sys.stderr)
            def client_cpu():
                return tree_cpu_s(os.getpid(), exclude=server_pid)

            cpu0_server, cpu0_client = tree_cpu_s(server_pid), client_cpu()
            if args.mode == "widget":
                sessions = asyncio.run(run_widget_round(base_url, token, notebooks, n, args))
                args.client_cpu_end = client_cpu()
            else:
                sessions = asyncio.run(run_browser_round(lambda nb: f"{base_url}voila/render/{nb}{query}", notebooks, n,
                                                         args, client_cpu))
            cpu = {"server": tree_cpu_s(server_pid) - cpu0_server, "client": args.client_cpu_end - cpu0_client}
            time.sleep(5)
            closed = kernel_usage(server_pid)
            print(f"  pages closed: {closed}; waiting {args.settle} s", file=sys.stderr)
            time.sleep(args.settle)
            settled = kernel_usage(server_pid)
            row = summarise(sessions, {"idle": idle, "closed": closed, "settled": settled}, cpu, args)
            row["records"] = [asdict(s) for s in sessions]
            rows.append(row)
            print(markdown([row], args, meta), file=sys.stderr)
    return rows, meta


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sessions", default="1", help="concurrent sessions; a list (1,5,10) runs one round each")
    p.add_argument("--dashboards", default=DEFAULT_DASHBOARDS, help="comma-separated notebooks, used in turn")
    p.add_argument("--moves", type=int, default=5, help="slider moves per session")
    p.add_argument("--mode", choices=("widget", "browser"), default="widget")
    p.add_argument("--redraw-timeout", type=float, default=10.0,
                   help="s after a move before it counts as never redrawn")
    p.add_argument("--think", type=float, default=1.0, help="pause between moves (s)")
    p.add_argument("--ramp", type=float, default=0.0, help="delay between session starts (s); 0: all at once")
    p.add_argument("--load-timeout", type=float, default=300.0, help="page load / widget state timeout (s)")
    p.add_argument("--close", choices=("beacon", "disconnect"), default="beacon",
                   help="close pages as a tab closes (shutdown request) or by dropping the connection (culling)")
    p.add_argument("--settle", type=float, default=120.0, help="s after closing before the second kernel count")
    p.add_argument("--url", help="test this running server instead of starting one (token in $WORKBENCH_TOKEN)")
    p.add_argument("--server-pid", type=int, help="with --url: the server's process (default: found from the port)")
    p.add_argument("--pool", action="append", default=[], metavar="NOTEBOOK=N",
                   help="preheated kernels for a notebook on the server started here (python -m workbench.ui.serve "
                        "--pool)")
    p.add_argument("--out", action="append", default=[], type=Path, help="write X.md (table) or X.json (records)")
    p.add_argument("--readme", metavar="NAME",
                   help="write the table into the load-test:NAME block (in README.md or docs/)")
    args = p.parse_args(argv)
    rows, meta = run(args)
    table = markdown(rows, args, meta)
    print(table)
    for out in args.out:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix == ".json":
            options = {k: str(v) for k, v in vars(args).items() if k != "client_cpu_end"}
            out.write_text(json.dumps({"meta": meta, "args": options, "rounds": rows},
                                      indent=1, default=str))
        else:
            out.write_text(table)
        print(f"wrote {out}", file=sys.stderr)
    if args.readme:
        doc = write_readme_block(f"<!-- load-test:{args.readme}:begin -->", f"<!-- load-test:{args.readme}:end -->",
                                 table)
        print(f"wrote the {args.readme} table into {doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
