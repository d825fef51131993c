"""Take a screenshot of every dashboard and list them in the docs (``make screenshots``).

Starts Voila over notebooks/, opens each notebook in headless chromium (Debian's
/usr/bin/chromium through Playwright), waits for its main figure (DOM class
``wb-main-figure``, see workbench/ui/common.py), moves nothing, and saves the output
holding the dashboard to docs/screenshots/<notebook stem>.png.

The block between the ``screenshots:begin`` and ``screenshots:end`` markers, in whichever of
README.md and docs/**/*.md holds it (docs/dashboards.md), is rewritten with one entry per
notebook, its image paths relative to that file; lines naming a notebook that does not exist yet
(placeholders for planned dashboards) are kept as they are.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import nbformat
from playwright.sync_api import sync_playwright
from readme_block import find_block

from workbench.ui.common import MAIN_FIGURE_CLASS
from workbench.ui.serve import CHROMIUM, PLOTLY_TRACES, ROOT, launch_chromium, voila_server

NOTEBOOK_DIR = ROOT / "notebooks"
SHOT_DIR = ROOT / "docs" / "screenshots"
BEGIN, END = "<!-- screenshots:begin", "<!-- screenshots:end -->"
LOAD_TIMEOUT_MS = 120_000
VIEWPORT = {"width": 1400, "height": 1000}


def notebook_title(path: Path) -> str:
    """The notebook's first Markdown ``# `` heading, else its file stem."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+)$", cell.source, flags=re.M)
            if match:
                return match.group(1).strip()
    return path.stem


def take(page, url: str, out: Path) -> None:
    page.set_viewport_size(VIEWPORT)
    page.goto(url, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_selector(f".{MAIN_FIGURE_CLASS} :is({PLOTLY_TRACES})", state="attached", timeout=LOAD_TIMEOUT_MS)
    output = page.locator(f".jp-OutputArea-output:has(.{MAIN_FIGURE_CLASS})").first
    # Grow the window to hold the whole dashboard: parts scrolled out of view may not be
    # painted in an element screenshot.
    box = output.bounding_box()
    page.set_viewport_size({"width": VIEWPORT["width"],
                            "height": max(VIEWPORT["height"], int(box["y"] + box["height"]) + 20)})
    page.wait_for_timeout(1500)  # let plotly finish its layout (legend, fonts) at the new size
    output.screenshot(path=out)


def readme_block(notebooks: list[Path], old_block: list[str], doc: Path) -> list[str]:
    """The block's lines for ``doc``: title, notebook and screenshot (a path relative to ``doc``)."""
    lines = []
    for nb in notebooks:
        shot = SHOT_DIR / f"{nb.stem}.png"
        lines.append(f"**{notebook_title(nb)}** (`notebooks/{nb.name}`)")
        lines.append("")
        if shot.exists():
            lines.append(f"![{notebook_title(nb)}]({Path(os.path.relpath(shot, doc.parent)).as_posix()})")
        else:
            lines.append("*(no screenshot yet: run `make screenshots`)*")
        lines.append("")
    existing = {nb.name for nb in notebooks}
    for line in old_block:  # placeholders of planned dashboards
        names = re.findall(r"\b(\w+\.ipynb)\b", line)
        if names and not existing.intersection(names):
            lines += [line, ""]
    return lines


def update_readme(notebooks: list[Path]) -> None:
    doc = find_block(BEGIN, END)
    if doc is None:
        sys.exit(f"no file of README.md, docs/**/*.md has a {BEGIN} ... {END} block")
    text = doc.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(BEGIN))
    end = lines.index(END, start)
    block = readme_block(notebooks, lines[start + 1 : end], doc)
    new = lines[: start + 1] + block + lines[end:]
    doc.write_text("\n".join(new) + ("\n" if text.endswith("\n") else ""), encoding="utf-8")
    print(f"wrote the screenshot list into {doc.relative_to(ROOT)}")


def main(argv: list[str]) -> int:
    notebooks = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    wanted = [nb for nb in notebooks if not argv or nb.stem in argv or nb.name in argv]
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} is missing: install Debian's chromium (make chromium)", file=sys.stderr)
        return 1
    SHOT_DIR.mkdir(parents=True, exist_ok=True)
    failed = []
    with tempfile.TemporaryDirectory() as tmp, voila_server(Path(tmp) / "voila.log") as server:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
            for nb in wanted:
                out = SHOT_DIR / f"{nb.stem}.png"
                try:
                    take(page, server.render_url(nb.name), out)
                    print(f"saved {out.relative_to(ROOT)}")
                except Exception as exc:  # report every dashboard, then fail
                    failed.append(nb.name)
                    print(f"FAILED {nb.name}: {exc}", file=sys.stderr)
            browser.close()
    update_readme(notebooks)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
