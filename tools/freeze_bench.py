"""Freeze benchmark: load every dashboard many times with both cores busy and count figures
that do not redraw after a move.

Runs Voila with the configuration of ``make dashboards`` (:func:`workbench.ui.serve.voila_server`,
preheated kernels included), starts ``--busy`` CPU-bound processes, then for each dashboard
opens ``--loads`` fresh pages in headless chromium, performs the moves of
:data:`workbench.ui.drive.DASHBOARDS` and records, per move, the figures that did not show a
newer drawn revision within ``--timeout`` seconds ("frozen"), the load time and the
move-to-redraw time of each figure.

``--baseline-commit C`` runs the same loads against commit ``C`` (a git worktree, its own
``voila.json``) first, for the figures of that code: its dashboards used plotly
``FigureWidget`` s, so a figure counts as frozen when its trace geometry does not change
within the timeout after the primary slider moves although the server updated it (every
FigureWidget of those dashboards depended on the primary slider), and the page's
``[anywidget] Failed to initialize model`` rejections are counted (the cause).

    .venv/bin/python tools/freeze_bench.py --loads 30 --busy 2 --out bench/results/freeze_bench.md
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbench.ui.drive import DASHBOARDS, DRAWN_REVISIONS_JS, open_dashboard, perform, wait_for_redraw
from workbench.ui.serve import ROOT, launch_chromium, voila_server

INIT_SCRIPT = ("window.__wbRejections = [];"
               "window.addEventListener('unhandledrejection', e => window.__wbRejections.push(String(e.reason)));"
               "(() => { const error = console.error; console.error = (...a) => {"
               " window.__wbRejections.push(a.map(String).join(' ')); error(...a); }; })();")
# Trace geometry of every plotly figure on the page (baseline: FigureWidgets have no revision).
# FigureWidgets only: the static figures (mime outputs) of that code did not all follow the slider.
SIGNATURES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .filter(gd => !gd.closest('.widget-output')).map(gd =>
    Array.from(gd.querySelectorAll('.trace path, .trace image, .hm image'))
        .map(e => e.getAttribute('d') || e.getAttribute('href') || '').join('|'))"""


@contextlib.contextmanager
def busy_cores(n: int):
    """``n`` CPU-bound processes for the duration (the 'both cores busy' condition)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def run_loads(browser, notebooks, loads, measure) -> list[dict]:
    """``loads`` fresh pages per notebook; ``measure(page, notebook, row)`` loads the page and
    fills ``row`` (``load_s``, ``frozen``, ``redraw_s``); an exception counts as a failed page."""
    rows = []
    for notebook in notebooks:
        for i in range(loads):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.add_init_script(INIT_SCRIPT)
            row = {"notebook": notebook, "load": i, "frozen": [], "redraw_s": []}
            try:
                measure(page, notebook, row)
            except Exception as exc:  # a page that did not load counts as one failure
                row["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            row["rejections"] = sum("Failed to initialize" in r for r in page.evaluate("window.__wbRejections || []"))
            context.close()
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def measure_current(server, timeout_s):
    """Every move of the registry; frozen: figures that did not redraw within ``timeout_s``."""
    def measure(page, notebook, row):
        dashboard = DASHBOARDS[notebook]
        start = time.perf_counter()
        open_dashboard(page, server.render_url(notebook), dashboard.load_timeout_s)
        row["load_s"] = time.perf_counter() - start
        for move in dashboard.moves:
            before = page.evaluate(DRAWN_REVISIONS_JS)
            t0 = time.perf_counter()
            perform(page, move)
            stuck = wait_for_redraw(page, move.figures, before, timeout_s)
            row["frozen"] += stuck
            if not stuck:
                row["redraw_s"].append(time.perf_counter() - t0)
    return measure


def measure_baseline(url_of, timeout_s):
    """The primary slider only; frozen: FigureWidgets whose traces did not change."""
    def measure(page, notebook, row):
        start = time.perf_counter()
        page.goto(url_of(notebook), wait_until="domcontentloaded", timeout=120_000)
        page.wait_for_selector(":is(.wb-main-figure.js-plotly-plot, .wb-main-figure .js-plotly-plot) .main-svg",
                               state="attached", timeout=120_000)
        page.locator(".wb-primary-slider .noUi-handle").wait_for(timeout=120_000)
        time.sleep(2)  # the other figures' first drawing
        row["load_s"] = time.perf_counter() - start
        before = page.evaluate(SIGNATURES_JS)
        page.locator(".wb-primary-slider .noUi-handle").focus()
        t0 = time.perf_counter()
        for _ in range(5):
            page.keyboard.press("ArrowRight")
        while time.perf_counter() < t0 + timeout_s:
            now = page.evaluate(SIGNATURES_JS)
            if len(now) == len(before) and all(a != b for a, b in zip(now, before)):
                break
            time.sleep(0.2)
        now = page.evaluate(SIGNATURES_JS)
        row["frozen"] = [f"figure {k}" for k, (a, b) in enumerate(zip(now, before)) if a == b]
        if not row["frozen"]:
            row["redraw_s"].append(time.perf_counter() - t0)
    return measure


@contextlib.contextmanager
def baseline_server(commit: str, log: Path):
    """Voila over ``notebooks/`` of ``commit`` (a temporary git worktree, its voila.json)."""
    from workbench.ui.serve import _free_port, _stop  # the same start/stop as the current server

    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=ROOT, check=True,
                       capture_output=True)
        port = _free_port()
        cmd = [sys.executable, "-m", "voila", "notebooks", "--no-browser", "--Voila.ip=127.0.0.1",
               f"--Voila.port={port}", "--Voila.port_retries=0"]
        env = {**os.environ, "PYTHONPATH": str(tree)}
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        try:
            import urllib.request
            for _ in range(300):
                with contextlib.suppress(Exception):
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
                    break
                time.sleep(0.2)
            yield lambda nb: f"http://127.0.0.1:{port}/voila/render/{nb}"
        finally:
            _stop(proc)
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)


def summarize(rows: list[dict]) -> list[dict]:
    import numpy as np

    out = []
    for notebook in dict.fromkeys(r["notebook"] for r in rows):
        mine = [r for r in rows if r["notebook"] == notebook]
        redraws = [s for r in mine for s in r["redraw_s"]]
        loads_s = [r["load_s"] for r in mine if "load_s" in r]
        out.append({
            "dashboard": notebook,
            "loads": len(mine),
            "loads with a frozen figure": sum(bool(r["frozen"]) for r in mine),
            "frozen figures": sum(len(r["frozen"]) for r in mine),
            "pages that failed": sum("error" in r for r in mine),
            "anywidget init failures": sum(r["rejections"] for r in mine),
            "load median [s]": round(float(np.median(loads_s)), 1) if loads_s else None,
            "move->redraw median / p95 [s]": (f"{np.median(redraws):.2f} / {np.percentile(redraws, 95):.2f}"
                                              if redraws else "-"),
        })
    return out


def table(summary: list[dict]) -> str:
    head = list(summary[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(row[k]) for k in head) + " |" for row in summary]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loads", type=int, default=30, help="fresh page loads per dashboard")
    ap.add_argument("--busy", type=int, default=2, help="CPU-bound processes during the run")
    ap.add_argument("--timeout", type=float, default=20, help="seconds a figure may take to redraw")
    ap.add_argument("--dashboards", default=",".join(DASHBOARDS), help="comma-separated notebook names")
    ap.add_argument("--baseline-commit", help="also measure this commit's dashboards (git worktree)")
    ap.add_argument("--out", type=Path, help="markdown file for the tables (and a .json next to it)")
    args = ap.parse_args(argv)
    notebooks = [n.strip() for n in args.dashboards.split(",") if n.strip()]
    from playwright.sync_api import sync_playwright

    results = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = launch_chromium(pw)
        if args.baseline_commit:
            with baseline_server(args.baseline_commit, Path(tmp) / "baseline.log") as url_of, busy_cores(args.busy):
                results["baseline"] = run_loads(browser, notebooks, args.loads, measure_baseline(url_of, args.timeout))
        with voila_server(Path(tmp) / "voila.log") as server, busy_cores(args.busy):
            results["current"] = run_loads(browser, notebooks, args.loads, measure_current(server, args.timeout))
        browser.close()
    text = [f"# Freeze benchmark\n\n{args.loads} fresh loads per dashboard, {args.busy} CPU-bound processes "
            f"running, a figure is frozen when it does not redraw within {args.timeout:g} s of a move "
            f"(`tools/freeze_bench.py`).\n"]
    for name, rows in results.items():
        label = f"baseline: commit {args.baseline_commit} (plotly FigureWidgets)" if name == "baseline" else "current"
        text.append(f"## {label}\n\n{table(summarize(rows))}\n")
    report = "\n".join(text)
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report)
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
