"""The static course site (``make site``, tools/build_site.py, docs/site.md).

One build into a temporary folder, with the API reference's warnings as errors, then: every
internal link and source in the built HTML resolves to a file of the site (and to an element
for a ``#fragment``), every lesson has its page with interactive figures and plotly.js once,
exercises show as questions and never with their answers, and a build without the real-data
mirror says so instead of failing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from workbench.course.exercises import all_exercises
from workbench.course.path import COURSE

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "build_site.py"

pytestmark = pytest.mark.slow  # the API reference of every module: ~40-80 s on 2 busy cores


class _Links(HTMLParser):
    """Collects a page's href/src values and its element ids."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)
            if name in ("id", "name") and value:
                self.ids.add(value)


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    result = subprocess.run([sys.executable, str(TOOL), "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, f"the site build failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    return out


def test_every_internal_link_resolves(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    parsed = {page.resolve(): _parse(page) for page in pages}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue  # another site (CDN, the papers): not part of this check
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site.resolve() not in target.parents:
                broken.append(f"{page.relative_to(site.resolve())}: {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids and unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site.resolve())}: {link} (no element with this id)")
    assert not broken, f"{len(broken)} broken links, e.g.:\n" + "\n".join(broken[:30])


def test_the_landing_page_lists_the_course_in_order(site):
    landing = (site / "index.html").read_text()
    positions = [landing.find(f'href="notebooks/{lesson.notebook}.html"') for lesson in COURSE]
    assert -1 not in positions, "a lesson has no link to its page"
    assert positions == sorted(positions), "the lessons are not in course order"
    for lesson in COURSE:
        assert f'src="screenshots/{lesson.notebook}.png"' in landing
    assert 'href="api/index.html"' in landing
    assert (site / "api" / "workbench.models.downey.html").is_file()


def test_every_notebook_page_has_its_figures_and_plotly_once(site):
    plotly_js = site / "_static" / "plotly.min.js"
    assert plotly_js.stat().st_size > 1_000_000
    for lesson in COURSE:
        page = (site / "notebooks" / f"{lesson.notebook}.html").read_text()
        assert page.count("_static/plotly.min.js") == 1, lesson.notebook
        assert len(page) < 3_000_000, f"{lesson.notebook}: plotly.js inlined?"
        figures = page.count("Plotly.newPlot(")
        if os.environ.get("WORKBENCH_DATA_MIRROR"):
            assert figures >= 1, f"{lesson.notebook}: no interactive figure"
        else:
            assert figures >= 1 or "could not be drawn" in page, lesson.notebook
        # the notebook's text is there, its collapsible sections stay collapsible
        notebook = json.loads((ROOT / "notebooks" / f"{lesson.notebook}.ipynb").read_text())
        markdown = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
        assert page.count("<details") == markdown.count("<details"), lesson.notebook


def test_exercises_show_their_questions_never_their_answers(site):
    pages = {lesson.notebook: (site / "notebooks" / f"{lesson.notebook}.html").read_text() for lesson in COURSE}
    everything = "".join(p.read_text(errors="replace") for p in site.rglob("*.html"))
    assert not (site / "instructor").exists()
    for stem, exercises in all_exercises().items():
        if stem not in pages:
            continue
        assert 'class="exercises"' in pages[stem], stem
        assert pages[stem].count('<span class="level">') == len(exercises), stem
        for exercise in exercises:
            for secret in (exercise.explanation, exercise.solution()):
                # an answer or its explanation, long enough not to occur by chance
                if len(secret) > 40:
                    assert secret not in everything, f"{stem} {exercise.key}: the site shows its answer"


def test_a_build_without_the_mirror_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_DATA_MIRROR"}
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('build_site', {str(TOOL)!r})\n"
            "tool = importlib.util.module_from_spec(spec); spec.loader.exec_module(tool)\n"
            f"print(tool.notebook_html(tool.NOTEBOOKS / '07_comm_regression.ipynb', 'x'))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "without the real-data mirror" in result.stdout or "could not be drawn" in result.stdout
    assert re.search(r"<h1[^>]*>", result.stdout)
