"""The course path (workbench.course.path) and its landing page (workbench.course.landing),
served at the root of ``make dashboards`` (workbench.ui.serve).

The server test starts the command of ``make dashboards`` over notebooks/ without preheated
kernels (a few seconds) and follows every link and image of the root page.
"""

from __future__ import annotations

import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

from workbench.course.exercises import notebooks_with_exercises
from workbench.course.landing import landing_html, screenshot_url, voila_url
from workbench.course.path import COURSE, Lesson, lesson
from workbench.ui.serve import course_page, voila_server

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))
#: The order of the issue's course plan (docs: the landing page lists it top to bottom).
PLANNED_ORDER = [
    "00_predict_my_runs", "10_regions", "01_downey_explorer", "02_adept_prediction", "03_anomalies", "04_cross_size",
    "05_fim_calculation", "06_fim_communication", "07_comm_regression", "08_comm_statistics_ml",
    "09_fractal_extrapolation",
]


class _Page(HTMLParser):
    """Lessons (``li.lesson``: id, links, images, text) and every address of an HTML page."""

    def __init__(self, html: str):
        super().__init__()
        self.lessons: list[dict] = []
        self.ids: list[str] = []
        self.addresses: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "li" and attrs.get("class") == "lesson":
            self.lessons.append({"id": attrs["id"], "links": [], "images": [], "text": ""})
        address = attrs.get("href") or attrs.get("src")
        if address:
            self.addresses.append(address)
            if self.lessons:
                self.lessons[-1]["images" if tag == "img" else "links"].append((attrs.get("class"), address))

    def handle_data(self, data):
        if self.lessons:
            self.lessons[-1]["text"] += data


# --------------------------------------------------------------------------- the course path


def test_every_notebook_is_a_lesson_exactly_once_in_the_planned_order():
    stems = [entry.notebook for entry in COURSE]
    assert len(stems) == len(set(stems)), f"a notebook is in COURSE twice: {stems}"
    assert sorted(stems) == NOTEBOOKS, (f"COURSE and notebooks/ differ: missing {set(NOTEBOOKS) - set(stems)}, "
                                        f"stale {set(stems) - set(NOTEBOOKS)}")
    assert stems == PLANNED_ORDER


@pytest.mark.parametrize("entry", COURSE, ids=lambda entry: entry.notebook)
def test_lesson_is_complete(entry: Lesson):
    assert entry.screenshot_path.is_file(), f"{entry.screenshot} is missing (make screenshots)"
    assert entry.screenshot == f"docs/screenshots/{entry.notebook}.png"
    assert entry.title.strip() and entry.teaches.strip()
    # one sentence: a capital first, a full stop last, no full stop between sentences inside
    assert entry.teaches[0].isupper() and entry.teaches.endswith(".")
    assert not re.search(r"[.!?] [A-Z]", entry.teaches), entry.teaches
    assert 5 <= entry.minutes <= 90
    earlier = PLANNED_ORDER[: PLANNED_ORDER.index(entry.notebook)]
    assert all(stem in earlier for stem in entry.prerequisites), (
        f"{entry.notebook}: prerequisites must be earlier lessons, got {entry.prerequisites}")


def test_lesson_lookup_by_stem_or_file_name():
    third = COURSE[PLANNED_ORDER.index("03_anomalies")]
    assert lesson("03_anomalies") is lesson("notebooks/03_anomalies.ipynb") is third
    with pytest.raises(KeyError, match="not part of the course"):
        lesson("99_missing")


# --------------------------------------------------------------------------- the page


def test_landing_html_lists_every_lesson_in_order_with_its_links():
    page = _Page(landing_html("/base/"))
    assert [item["id"] for item in page.lessons] == [entry.notebook for entry in COURSE]
    for entry, item in zip(COURSE, page.lessons, strict=True):
        text = " ".join(item["text"].split())
        assert entry.title in text and entry.teaches in text
        assert f"about {entry.minutes} min" in text
        dashboard = f"/base/voila/render/{entry.notebook}.ipynb"
        assert ("open", dashboard) in item["links"] and dashboard == voila_url("/base", entry.notebook)
        assert item["images"] == [(None, f"/base/course/screenshots/{entry.notebook}.png")]
        assert item["images"][0][1] == screenshot_url("/base/", entry)
        prerequisites = [address for kind, address in item["links"] if kind == "prerequisite"]
        assert prerequisites == [f"#{stem}" for stem in entry.prerequisites]
        if not entry.prerequisites:
            assert "take first: none" in text
        assert ("with exercises" in text) == (entry.notebook in notebooks_with_exercises())
    # every fragment link points at an element of the page
    assert {address[1:] for address in page.addresses if address.startswith("#")} <= set(page.ids)


def test_landing_html_takes_the_static_sites_addresses_and_escapes_text():
    odd = Lesson("x_<b>", "A & B <i>", "Teaches <script>alert(1)</script>.", 75, (), "docs/screenshots/x.png")
    html = landing_html(lessons=[odd], dashboard_url=lambda entry: f"site/{entry.notebook}.html",
                        thumbnail_url=lambda entry: "img/x.png", others=[("y.ipynb", "site/y.html")],
                        open_label="Read <it>")
    assert ">Read &lt;it&gt;</a>" in html and "Open the dashboard" not in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "A &amp; B &lt;i&gt;" in html
    assert 'href="site/x_&lt;b&gt;.html"' in html and 'src="img/x.png"' in html
    assert 'href="site/y.html"' in html and "about 1 h 15 min" in html
    assert "No lesson" in landing_html(lessons=[])


def test_course_page_of_another_folder_lists_its_notebooks(tmp_path):
    (tmp_path / "01_downey_explorer.ipynb").write_text("{}")
    (tmp_path / "mine.ipynb").write_text("{}")
    page = _Page(course_page("/", tmp_path))
    assert [item["id"] for item in page.lessons] == ["01_downey_explorer"]
    assert "/voila/render/mine.ipynb" in page.addresses
    assert "/voila/render/02_adept_prediction.ipynb" not in page.addresses


# --------------------------------------------------------------------------- served at the root


@pytest.fixture(scope="module")
def course_server():
    """``make dashboards``'s command over notebooks/, without preheated kernels (starts in seconds)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "_PYTEST", "COV_CORE_"))}
    with tempfile.TemporaryDirectory() as folder:
        with voila_server(Path(folder) / "voila.log", env=env,
                          serve_args=["--VoilaConfiguration.preheat_kernel=False"]) as server:
            yield server


def _get(url: str, headers: dict | None = None) -> tuple[int, bytes, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read(), response.url
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), url


def test_root_is_the_course_and_every_link_and_thumbnail_resolves(course_server):
    status, body, _ = _get(course_server.url)
    assert status == 200
    page = _Page(body.decode())
    assert [item["id"] for item in page.lessons] == PLANNED_ORDER
    assert "voila/tree" not in body.decode()  # Voila's list of files is gone
    # fragments point into the page (unit test above), the icon is inline data
    addresses = sorted({address for address in page.addresses if not address.startswith(("#", "data:"))})
    dashboards = [address for address in addresses if "/voila/render/" in address]
    assert len(dashboards) == len(COURSE)
    for address in addresses:
        url = urllib.parse.urljoin(course_server.url, address)
        if address in dashboards:
            # Rendering runs the notebook (seconds of CPU each): here Voila is asked whether it
            # serves the notebook; the browser tests and the one page below render them.
            name = address.rsplit("/voila/render/", 1)[1]
            status, meta, _ = _get(urllib.parse.urljoin(course_server.url, f"voila/api/contents/{name}"))
            assert status == 200, f"{address}: Voila does not serve {name} ({status})"
        else:
            status, content, _ = _get(url)
            assert status == 200, f"{address} -> {status}"
            assert content.startswith(b"\x89PNG"), f"{address} is not a PNG"
    lightest = voila_url("/", "01_downey_explorer")
    assert lightest in dashboards
    status, html, _ = _get(urllib.parse.urljoin(course_server.url, lightest))
    assert status == 200 and b'"kernelId"' in html, html[-2000:]


def test_tree_pages_lead_to_the_course_and_foreign_hosts_are_refused(course_server):
    for path in ("voila/tree", "voila/tree/", "voila/tree/anything/else"):
        status, body, final = _get(course_server.url + path)
        assert status == 200 and final == course_server.url and b'class="course"' in body
    evil = {"Host": "evil.example"}
    for path in ("", f"course/screenshots/{COURSE[0].notebook}.png", "voila/tree/"):
        assert _get(course_server.url + path, evil)[0] == 403
    assert _get(course_server.url + "course/screenshots/missing.png")[0] == 404
    assert _get(course_server.url + "course/screenshots/../path.py")[0] in (403, 404)
