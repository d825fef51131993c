"""The instructor's guide (docs/teaching.md) stays true, and the students' CSV template works.

* ``data/templates/my_runs.csv`` is read by the project's scaling reader, from disk and as a
  dashboard upload, is labelled SYNTHETIC, follows the formula its header states, and
  ``ScalingPredictor`` predicts from it;
* every exercise key, ``workbench.`` name, notebook and relative link in docs/teaching.md
  exists, and every number of its capacity table is one measured in ``bench/results``.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

from workbench.course.exercises import all_exercises
from workbench.course.path import COURSE
from workbench.io import list_curves, read_scaling_csv, read_scaling_data, select_curve
from workbench.io.scaling import SCALING_COLUMNS
from workbench.models.scaling import ScalingPredictor
from workbench.ui.data_picker import read_uploads

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "data" / "templates" / "my_runs.csv"
TEACHING = ROOT / "docs" / "teaching.md"
BENCH = ROOT / "bench" / "results"


# ------------------------------------------------------------------------------ the template

def test_the_template_reads_with_every_column_of_the_scaling_table():
    runs = read_scaling_csv(TEMPLATE)
    assert list(runs.columns[:len(SCALING_COLUMNS)]) == SCALING_COLUMNS
    header = next(line for line in TEMPLATE.read_text(encoding="utf-8").splitlines() if not line.startswith("#"))
    assert set(header.split(",")) == set(SCALING_COLUMNS), "the template shows every column the reader accepts"
    curves = list_curves(runs)
    assert len(curves) == 1, "one curve: the same processes per node throughout"
    assert curves.loc[0, "n_points"] >= 4 and (runs.groupby("processes").size() > 1).any(), "repeats shown"


def test_the_template_is_labelled_synthetic():
    text = TEMPLATE.read_text(encoding="utf-8")
    assert text.startswith("# TEMPLATE") and "SYNTHETIC" in text.splitlines()[0]
    runs = read_scaling_csv(TEMPLATE)
    assert runs["source"].str.contains("SYNTHETIC").all()


def test_the_template_follows_the_formula_its_header_states():
    # header: "t = 6 + 1200 / n seconds with about 1 % made-up noise"
    assert "t = 6 + 1200 / n seconds" in TEMPLATE.read_text(encoding="utf-8")
    runs = read_scaling_csv(TEMPLATE)
    formula = 6 + 1200 / runs["processes"].to_numpy(float)
    assert np.all(np.abs(runs["time_s"].to_numpy() / formula - 1) <= 0.025)


def test_the_template_uploads_as_the_dashboards_read_it():
    from_disk = read_scaling_data(TEMPLATE)
    uploaded = read_uploads([(TEMPLATE.name, TEMPLATE.read_bytes())])
    assert uploaded[SCALING_COLUMNS[:-1]].equals(from_disk[SCALING_COLUMNS[:-1]])


def test_the_template_predicts_with_the_scaling_predictor():
    curve = select_curve(read_scaling_csv(TEMPLATE), "my-app", "large")
    predictor = ScalingPredictor().fit(curve["processes"], curve["time_s"])
    frame = predictor.predict_frame([128], level=0.8)
    prediction = float(frame["prediction"].iloc[0])
    assert frame["lower"].iloc[0] <= prediction <= frame["upper"].iloc[0]
    # one doubling past the largest run of a near-Amdahl curve: close to the formula's 15.4 s
    assert prediction == pytest.approx(6 + 1200 / 128, rel=0.15)


# --------------------------------------------------------------------------------- the guide

def _guide() -> str:
    return TEACHING.read_text(encoding="utf-8")


def test_every_exercise_key_in_the_guide_exists():
    keys = {e.key for group in all_exercises().values() for e in group}
    stems = "|".join(entry.notebook for entry in COURSE)
    mentioned = set(re.findall(rf"`((?:{stems})/[\w-]+)`", _guide()))
    assert mentioned, "the guide names no exercise"
    assert mentioned <= keys, f"exercise keys in docs/teaching.md that do not exist: {sorted(mentioned - keys)}"


def test_every_notebook_of_the_course_is_in_the_guide():
    guide = _guide()
    for entry in COURSE:
        assert f"{entry.notebook[:2]} " in guide and entry.notebook in guide, entry.notebook


def _table_rows(header: str) -> list[str]:
    """The body rows of the guide's Markdown table whose header row starts with ``header``."""
    lines = _guide()[_guide().index(header):].splitlines()[2:]
    return lines[:next(i for i, line in enumerate(lines) if not line.startswith("|"))]


def test_the_learning_path_is_the_course_order_with_its_prerequisites():
    rows = [line.strip("|").split("|") for line in _table_rows("| step | notebook |")]
    assert [cells[1].split()[0] for cells in rows] == [entry.notebook[:2] for entry in COURSE]
    for cells, entry in zip(rows, COURSE):
        # "nothing (02 helps)", "05 helps": advice; the bare numbers are the course's prerequisites
        required = re.findall(r"\b(\d\d)\b(?! helps)", re.sub(r"\(.*?\)", "", cells[3]))
        assert required == [stem[:2] for stem in entry.prerequisites], entry.notebook


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_workbench_name_in_the_guide_resolves():
    names = sorted(set(re.findall(r"\bworkbench(?:\.[A-Za-z_]\w*)+", _guide())))
    assert len(names) >= 5
    for name in names:
        _resolve(name)


def test_every_relative_link_and_path_in_the_guide_exists():
    guide = _guide()
    links = re.findall(r"\]\((?!https?:|#)([^)#]+)", guide)
    assert links
    for link in links:
        assert (TEACHING.parent / link).resolve().exists(), link
    for path in re.findall(r"`((?:docs|bench|data|tools|instructor|workbench)/[\w./-]+\.\w+)`", guide):
        assert (ROOT / path).exists(), path


def _numbers(cells) -> list[float]:
    return [float(x) for cell in cells for x in re.findall(r"\d+(?:\.\d+)?", cell)]


def _is_subsequence(wanted: list[float], row: list[float]) -> bool:
    items = iter(row)
    return all(any(x == y for y in items) for x in wanted)


def test_the_capacity_table_quotes_measured_numbers():
    measured = []
    for name in ("load_widget.md", "load_widget_pool.md", "load_widget_class.md"):
        for line in (BENCH / name).read_text(encoding="utf-8").splitlines():
            if re.match(r"\|\s*\d", line):
                measured.append(_numbers(line.strip("|").split("|")))
    rows = _table_rows("| server | students |")
    assert len(rows) == 4
    for line in rows:
        quoted = _numbers(line.strip("|").split("|")[1:])  # the first cell is the server's options
        assert any(_is_subsequence(quoted, row) for row in measured), f"not a measured row: {line}"


def test_the_subsequence_check_can_fail():
    assert _is_subsequence([15, 1.8, 0.77], [15, 0.0, 1.8, 1.8, 0.77])
    assert not _is_subsequence([15, 1.9], [15, 0.0, 1.8, 1.8])
