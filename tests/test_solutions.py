"""The instructor's solutions (instructor/solutions.md) and the lecture plan's exercise lists
(docs/teaching.md) are what ``tools/solutions.py`` writes from the exercises now.

When an exercise is added or changed these fail until ``.venv/bin/python tools/solutions.py``
is run again (with ``WORKBENCH_DATA_MIRROR`` set: real-data exercises compute their answers
from the real measurements).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from workbench.course.exercises import all_exercises
from workbench.course.path import COURSE

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import solutions  # noqa: E402

STALE = "is out of date: run .venv/bin/python tools/solutions.py (after every change to an exercise)"


@pytest.fixture(scope="module")
def exercises(data_mirror):
    # the real-data exercises (level 4) read the mirror; without it the solutions cannot be computed
    return all_exercises()


@pytest.fixture(scope="module")
def written(exercises):
    return solutions.solutions_markdown(exercises)


def test_committed_solutions_are_current(written):
    assert solutions.SOLUTIONS.is_file(), f"instructor/solutions.md is missing: run {solutions.COMMAND}"
    assert solutions.SOLUTIONS.read_text(encoding="utf-8") == written, f"instructor/solutions.md {STALE}"


def test_committed_lecture_exercise_lists_are_current(exercises):
    text = solutions.TEACHING.read_text(encoding="utf-8")
    assert text == solutions.teaching_markdown(text, exercises), f"docs/teaching.md's exercise lists {STALE}"


def test_every_exercise_has_its_solution_in_course_order(exercises, written):
    headings = re.findall(r"^### `([^`]+)`$", written, flags=re.M)
    course = [entry.notebook for entry in COURSE]
    expected = [e.key for stem in course for e in exercises.get(stem, ())]
    assert headings == expected
    assert len(expected) == sum(len(group) for group in exercises.values())
    assert written.count("**Solution.** Answer: ") == len(expected)
    for group in exercises.values():
        for exercise in group:
            assert exercise.question in written and exercise.hint in written, exercise.key


def test_one_section_per_notebook_in_course_order(exercises, written):
    sections = re.findall(r"^Notebook `notebooks/(\w+)\.ipynb`", written, flags=re.M)
    assert sections == [entry.notebook for entry in COURSE if entry.notebook in exercises]


def test_a_choice_lists_its_options_and_a_number_its_tolerance(exercises):
    exercise = next(e for group in exercises.values() for e in group if e.kind == "choice")
    text = solutions.exercise_section(exercise)
    assert "**Options.** " + " / ".join(exercise.options) in text
    assert f"**Solution.** Answer: {exercise.expected()}." in text
    number = next(e for group in exercises.values() for e in group if e.kind == "number")
    assert f"within ±{number.rel_tol * 100:g} %" in solutions.exercise_section(number)


def test_check_mode_reports_a_stale_file_and_leaves_it(tmp_path, monkeypatch, capsys):
    # the mechanism on one notebook's exercises (no real data, a fraction of the time)
    some = {"01_downey_explorer": all_exercises()["01_downey_explorer"]}
    monkeypatch.setattr(solutions, "all_exercises", lambda: some)
    stale = tmp_path / "solutions.md"
    stale.write_text("# an old version\n", encoding="utf-8")
    teaching = tmp_path / "teaching.md"
    teaching.write_text(solutions.TEACHING.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(solutions, "SOLUTIONS", stale)
    monkeypatch.setattr(solutions, "TEACHING", teaching)
    monkeypatch.setattr(solutions, "ROOT", tmp_path)
    assert solutions.main(["--check"]) == 1
    assert "solutions.md is out of date" in capsys.readouterr().out
    assert stale.read_text(encoding="utf-8") == "# an old version\n"
    assert solutions.main([]) == 0
    assert solutions.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == solutions.solutions_markdown(some)
    assert "01_downey_explorer/sigma-at-64" in teaching.read_text(encoding="utf-8")


def test_a_teaching_page_without_the_block_is_refused():
    with pytest.raises(SystemExit, match="lecture-exercises"):
        solutions.teaching_markdown("# no block here\n", {})


def test_the_lectures_are_the_course_path_in_order():
    stems = [stem for _, lecture in solutions.LECTURES for stem in lecture]
    assert stems == [entry.notebook for entry in COURSE]
    assert len(solutions.LECTURES) == 3


def test_the_instructor_folder_says_it_is_not_for_students():
    text = (ROOT / "instructor" / "README.md").read_text(encoding="utf-8")
    assert "not part of the student site" in text
    assert "tools/solutions.py" in text
