"""Uploads to every dashboard that accepts files: bad files get a message in the project's own
words (what is wrong, what the dashboard expects, an example header line), never a
library's text or a Python argument name; names from an uploaded file never reach the page
as HTML (a benchmark called ``<img src=x onerror=alert(1)>`` is shown, not run)."""

from __future__ import annotations

import datetime

import ipywidgets as widgets
import pytest

from workbench.evaluation.comm_regression import synthetic_sweep
from workbench.evaluation.fractal import synthetic_profile
from workbench.io.catalogue import MIRROR_ENV
from workbench.ui.adept_dashboard import AdeptDashboard
from workbench.ui.anomalies import AnomalyDashboard
from workbench.ui.comm_regression_dashboard import CommRegressionDashboard
from workbench.ui.common import ERROR_CLASS
from workbench.ui.cross_size import CrossSizeDashboard
from workbench.ui.fim_dashboard import FiMDashboard, synthetic_kmeans_runs
from workbench.ui.fractal_dashboard import SYNTHETIC, FractalDashboard
from workbench.ui.predict_dashboard import PredictDashboard

EVIL = "<img src=x onerror=alert(1)>"
#: Texts of Python, pandas and the codecs that must never reach a dashboard's message (nor the
#: internal-error notice: every bad upload must get a message that names its problem).
FOREIGN = ("codec", "can't decode", "No columns to parse", "Error tokenizing", "C error", "time_column=",
           "Traceback", "Internal error", "ParserError", "UnicodeDecodeError", "EmptyDataError", "np.float64",
           "CommRegression.", "descriptors:", "read_csv")


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """No real-data mirror (bundled and synthetic data only) and a measurement lock of the test's own."""
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "missing"))
    monkeypatch.setenv("WORKBENCH_RUNTIME_DIR", str(tmp_path))


def _latin1(header: str, row: str) -> bytes:
    return f"{header}\n{row}\n".encode("latin-1")


def _bad_files(header: str, latin_row: str) -> dict[str, bytes]:
    return {
        "junk.csv": bytes(range(256)) * 8,
        "empty.csv": b"",
        "wrong.csv": b"alpha,beta,gamma\n1,2,3\n4,5,6\n",
        "latin1.csv": _latin1(header, latin_row),
    }


# dashboard key -> (factory, function to upload through the FileUpload widget, its own upload
# format's example header, a latin-1 data row for that header)
def _picker_upload(d):
    return d.picker


def _own_upload(d):
    return d


DASHBOARDS = {
    "00 predict": (lambda: PredictDashboard(source="synthetic-downey", curve=None), _picker_upload,
                   "benchmark,problem_class,processes,time_s", "r\xe9sum\xe9,A,1,10"),
    "02 adept": (AdeptDashboard, _picker_upload, "benchmark,problem_class,processes,time_s", "r\xe9sum\xe9,A,1,10"),
    "03 anomalies": (AnomalyDashboard, _picker_upload, "benchmark,problem_class,processes,time_s",
                     "r\xe9sum\xe9,A,1,10"),
    "04 cross-size": (CrossSizeDashboard, _picker_upload, "benchmark,problem_class,processes,time_s",
                      "r\xe9sum\xe9,A,1,10"),
    "05 fim": (lambda: FiMDashboard(runs=synthetic_kmeans_runs(repeats=1)), _own_upload,
               "role,iterations,clusters,points,dims,processes", "tr\xe4in,20,8,50000,8,1"),
    "07 comm regression": (lambda: CommRegressionDashboard(dataset="pingpong"), _own_upload,
                           "S,M,PPN,N,I,SW,R,comm_time_us", "1,1,2,1,0,1,1,3\xb5"),
    "09 fractal": (lambda: FractalDashboard(source=SYNTHETIC), _own_upload, "size,phase,time_ms,run,total_ms",
                   "64,s\xf6lve,10,0,12"),
}


@pytest.fixture(scope="module", params=sorted(DASHBOARDS))
def dashboard(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv(MIRROR_ENV, str(tmp_path_factory.mktemp("no-mirror") / "missing"))
    mp.setenv("WORKBENCH_RUNTIME_DIR", str(tmp_path_factory.mktemp("runtime")))
    factory, target, header, row = DASHBOARDS[request.param]
    d = factory()
    yield request.param, d, target(d), header, row
    mp.undo()


def _upload(target, name: str, content: bytes) -> None:
    """What the browser sends when a file is chosen in the FileUpload widget."""
    target.upload.value = ({"name": name, "type": "text/csv", "size": len(content), "content": memoryview(content),
                            "last_modified": datetime.datetime(2026, 1, 1)},)


def _error_text(panel) -> str:
    assert f'class="{ERROR_CLASS}"' in panel.value, panel.value
    return panel.value


def html_values(widget) -> list[str]:
    """Every string the page renders as HTML under ``widget``: HTML widgets' values and
    descriptions that allow HTML (widget labels, options and tooltips are text)."""
    found = []
    if isinstance(widget, (widgets.HTML, widgets.HTMLMath)):
        found.append(widget.value)
    if getattr(widget, "description_allow_html", False):
        found.append(widget.description)
    for child in getattr(widget, "children", ()):
        found.extend(html_values(child))
    return found


@pytest.mark.parametrize("kind", ["junk.csv", "empty.csv", "wrong.csv", "latin1.csv"])
def test_a_bad_upload_says_what_is_wrong_what_is_expected_and_an_example_header(dashboard, kind):
    key, d, target, header, row = dashboard
    content = _bad_files(header, row)[kind]
    _upload(target, kind, content)
    message = _error_text(d.messages)
    assert kind in message  # what is wrong, naming the file
    assert "reads" in message or "expects" in message or "expected" in message, message  # what it expects
    assert "Example header line" in message or "header line such as" in message, message
    for foreign in FOREIGN:
        assert foreign not in message, (key, kind, foreign, message)
    assert target.upload.value == ()  # cleared: the same file can be uploaded again after a fix
    if kind == "latin1.csv":
        assert "UTF-8" in message
    if kind == "wrong.csv":
        assert "alpha" in message  # says what the file has


def _evil_upload(key: str) -> tuple[str, bytes]:
    """A file with the name EVIL where the dashboard shows names: benchmark (picker), phase
    (fractal), an extra text column (comm regression), the file name (FiM)."""
    if key == "04 cross-size":
        rows = [f"{EVIL},small,{n},{100 / n:.4f}" for n in (1, 2, 4, 8)]
        rows += [f"{EVIL},large,{n},{800 / n:.4f}" for n in (2, 4, 8)]
        return "evil.csv", ("benchmark,problem_class,processes,time_s\n" + "\n".join(rows)).encode()
    if key in ("00 predict", "02 adept", "03 anomalies"):  # 00 also shows what n counts (the unit column)
        rows = [f"{EVIL},A,{n},{100 / n ** 0.8:.4f},{EVIL}" for n in (1, 2, 4, 8, 16, 32)]
        return "evil.csv", ("benchmark,problem_class,processes,time_s,unit\n" + "\n".join(rows)).encode()
    if key == "09 fractal":
        frame = synthetic_profile(sizes=(100, 120, 140, 160, 180, 200), target_size=300)
        frame["phase"] = frame["phase"].replace({"solve": EVIL})
        return "evil.csv", frame.to_csv(index=False).encode()
    if key == "07 comm regression":
        frame = synthetic_sweep()[["S", "M", "PPN", "N", "I", "SW", "R", "comm_time_us"]].assign(benchmark=EVIL)
        return f"{EVIL}.csv", frame.to_csv(index=False).encode()
    return f"{EVIL}.csv", synthetic_kmeans_runs(repeats=1).to_csv(index=False).encode()


def test_names_from_an_upload_never_reach_the_page_as_html(dashboard):
    key, d, target, _, _ = dashboard
    name, content = _evil_upload(key)
    _upload(target, name, content)
    assert ERROR_CLASS not in d.messages.value, (key, d.messages.value)  # accepted: the names are on screen
    shown = html_values(d)
    assert shown and not any(EVIL in value for value in shown), key
    assert any("&lt;img src=x onerror=alert(1)&gt;" in value for value in shown), key  # shown, escaped
    _upload(target, "evil-columns.csv", f"{EVIL},b\n1,2\n".encode())  # a column name quoted in a message
    assert ERROR_CLASS in d.messages.value and not any(EVIL in value for value in html_values(d)), key
