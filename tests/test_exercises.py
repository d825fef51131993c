"""Every exercise checks itself both ways: its own right answer is accepted, a wrong one refused.

Checked on the data (:mod:`workbench.course.exercises`) and through the answer boxes a
student uses (:mod:`workbench.ui.exercises`), for every exercise of every notebook.
"""

from __future__ import annotations

import json
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pytest

from workbench.course.exercise import Exercise, choice, numeric
from workbench.course.exercises import all_exercises, exercises_for, notebooks_with_exercises
from workbench.ui.exercises import RIGHT_CLASS, WRONG_CLASS, ExerciseBox, exercise_panel, with_exercises

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXERCISES = [exercise for exercises in all_exercises().values() for exercise in exercises]


def right_answer(exercise: Exercise) -> str:
    value = exercise.expected()
    return value if exercise.kind == "choice" else f"{float(value):.6g}"


def wrong_answer(exercise: Exercise) -> str:
    if exercise.kind == "choice":
        return next(option for option in exercise.options if option != exercise.expected())
    return f"{float(exercise.expected()) * (1 + 3 * exercise.rel_tol) + 1:.6g}"


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.key for e in EXERCISES])
def test_the_right_answer_is_accepted_and_a_wrong_one_refused_with_a_hint(exercise):
    assert exercise.check(right_answer(exercise)).correct
    verdict = exercise.check(wrong_answer(exercise))
    assert not verdict.correct and exercise.hint in verdict.message


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.key for e in EXERCISES])
def test_the_answer_box_says_right_and_wrong(exercise):
    box = ExerciseBox(exercise, 1)
    box.answer.value = right_answer(exercise)
    box.check_button.click()
    assert RIGHT_CLASS in box.verdict.value
    box.answer.value = wrong_answer(exercise)
    box.check_button.click()
    assert WRONG_CLASS in box.verdict.value and "Hint" in box.verdict.value


def test_every_notebook_with_exercises_shows_them_and_keys_are_unique():
    keys = [e.key for e in EXERCISES]
    assert len(keys) == len(set(keys))
    for stem in notebooks_with_exercises():
        assert all(e.key.startswith(f"{stem}/") for e in exercises_for(stem))
        assert 3 <= len(exercises_for(stem)) <= 5, stem
        code = "".join("".join(c["source"]) for c in json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]
                       if c["cell_type"] == "code")
        # in the dashboard's cell, not a cell of their own (see workbench.ui.exercises)
        assert 'with_exercises(' in code and f'"{stem}")' in code, f"{stem}.ipynb does not show its exercises"
        panel = exercise_panel(stem)
        assert len(panel.children) == 1 + len(exercises_for(stem))
        dashboard = widgets.HTML("the dashboard")
        shown = with_exercises(dashboard, stem)
        assert shown.children[0] is dashboard and shown.children[1].selected_index is None  # collapsed
        assert len(shown.children[1].children[0].children) == 1 + len(exercises_for(stem))


@pytest.mark.parametrize("answer, message", [
    ("", "Type a number"), ("twelve", "Type a number"), ("nan", "Type a number"), ("1e400", "Type a number"),
])
def test_what_is_not_a_number_is_said(answer, message):
    exercise = numeric("x/y", 2, "How much?", lambda: 2.0, "look", unit="s")
    verdict = exercise.check(answer)
    assert not verdict.correct and message in verdict.message and "(in s)" in verdict.message


def test_a_tolerance_and_an_unpicked_choice():
    exercise = numeric("x/y", 2, "How much?", lambda: 100.0, "look", rel_tol=0.05)
    assert exercise.check("104.9").correct and not exercise.check("105.1").correct
    pick = choice("x/z", 1, "Which?", ("a", "b"), lambda: "b", "think")
    assert not pick.check(None).correct and "Pick one" in pick.check(None).message
    with pytest.raises(KeyError, match="no exercises for notebook 'nope'"):
        exercises_for("nope")


def test_a_failing_checker_is_a_message_not_a_traceback():
    def broken():
        raise RuntimeError("bug")

    box = ExerciseBox(numeric("x/y", 2, "How much?", broken, "look"), 1)
    box.answer.value = "1"
    assert box.check() is False and "Internal error" in box.messages.value


def test_the_exercises_ask_about_what_the_dashboards_open_on(data_mirror):
    """Exercises that restate a dashboard's defaults (the course sits below the dashboards) agree with them."""
    from workbench.course.exercises import n00_predict_my_runs as n00
    from workbench.course.exercises import n03_anomalies as n03
    from workbench.ui.anomalies import AnomalyDashboard
    from workbench.ui.data_picker import default_observed
    from workbench.ui.predict_dashboard import DEFAULT_CURVE

    assert n00.CURVE_ID == DEFAULT_CURVE[1]
    n, _ = n00._curve()
    assert tuple(int(v) for v in default_observed(np.unique(n))) == n00.DEFAULT_OBSERVED
    dashboard = AnomalyDashboard()
    n_shown, t_shown = (np.asarray(v, float) for v in dashboard.picker.observed)
    n_asked, t_asked = n03._example_observed()
    np.testing.assert_array_equal(n_shown, n_asked)
    np.testing.assert_allclose(t_shown, t_asked, rtol=1e-12)


def test_notebook_10_restates_the_dashboards_synthetic_laws():
    # the course floor cannot import the views floor: the exercise keeps its own copy of the laws
    from workbench.course.exercises.n10_regions import LAWS
    from workbench.views.regions import SYNTHETIC_LAWS

    p = np.array([2.0, 7.0, 55.0, 1000.0])
    assert set(LAWS) == set(SYNTHETIC_LAWS)
    for region, law in SYNTHETIC_LAWS.items():
        np.testing.assert_allclose(LAWS[region](p), law(p), rtol=1e-12)
