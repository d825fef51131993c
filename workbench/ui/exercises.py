"""Answer boxes for a notebook's exercises: type or pick an answer, press *check*, read the verdict.

Usage, in the notebook's dashboard cell (the exercises sit in a collapsed section under the
dashboard)::

    from workbench.ui.downey_explorer import downey_explorer
    from workbench.ui.exercises import with_exercises

    with_exercises(downey_explorer(), "01_downey_explorer")

Why in the dashboard's cell and not in a cell of their own at the end: Voila (0.5.13 with
ipywidgets 8.1) renders a page whose kernel was not preheated (a class that has used up the
kernel pool) while its cells still run, and a widget shown by a later cell is then drawn
before its model arrives: "Error displaying widget: model not found" on 2 of 3 such loads
here, 0 of 3 with the exercises inside the first widget cell.

Each exercise (:mod:`workbench.course.exercises`) shows its level, its question, an answer
box (a text box for a number, radio buttons for a choice), a *check* button and the verdict:
green with the explanation when right, red with a hint when wrong.  The right answer is
computed by the exercise's checker from the models at the moment of checking.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from workbench.course.exercise import LEVELS, Exercise
from workbench.course.exercises import exercises_for
from workbench.ui.common import message_panel, show_errors

__all__ = ["ExerciseBox", "exercise_panel", "with_exercises"]

#: DOM classes of a verdict (the browser tests and the page's colours rely on them).
RIGHT_CLASS, WRONG_CLASS = "wb-answer-right", "wb-answer-wrong"


class ExerciseBox(widgets.VBox):
    """One exercise: question, answer box, *check* button and verdict.

    Attributes: ``exercise``, ``answer`` (Text or RadioButtons), ``check_button``,
    ``verdict`` (HTML), ``messages`` (errors of a checker, never a traceback).

    Parameters
    ----------
    exercise : Exercise
        The exercise.
    number : int
        Its number in the notebook (shown in the title).
    """

    def __init__(self, exercise: Exercise, number: int):
        self.exercise = exercise
        title = (f"<b>Exercise {number}</b> <span style='color:#666'>(level {exercise.level}: "
                 f"{html.escape(LEVELS[exercise.level])})</span><br>{html.escape(exercise.question)}")
        if exercise.kind == "choice":
            self.answer = widgets.RadioButtons(options=list(exercise.options), value=None,
                                               layout=widgets.Layout(width="auto"))
        else:
            self.answer = widgets.Text(placeholder="your answer" + (f" ({exercise.unit})" if exercise.unit else ""),
                                       layout=widgets.Layout(width="220px"))
        self.check_button = widgets.Button(description="check", icon="check", layout=widgets.Layout(width="100px"))
        self.verdict = widgets.HTML()
        self.messages = message_panel()
        self.check_button.on_click(self._on_check)
        super().__init__([widgets.HTML(title), widgets.HBox([self.answer, self.check_button]), self.verdict,
                          self.messages], layout=widgets.Layout(margin="0 0 14px 0"))

    def check(self) -> bool:
        """Judge the current answer, show the verdict and return whether it is right."""
        with show_errors(self.messages, stale=(self.verdict,)):
            verdict = self.exercise.check(self.answer.value)
            css = RIGHT_CLASS if verdict.correct else WRONG_CLASS
            colour = "#1a7f37" if verdict.correct else "#b42318"
            self.verdict.value = (f'<div class="{css}" style="color:{colour}">{"✔" if verdict.correct else "✘"} '
                                  f"{html.escape(verdict.message)}</div>")
            return verdict.correct
        return False

    def _on_check(self, _button) -> None:
        self.check()


def exercise_panel(notebook: str) -> widgets.VBox:
    """Return the exercises of ``notebook`` (its stem, e.g. ``"01_downey_explorer"``) as answer boxes.

    Parameters
    ----------
    notebook : str
        The notebook's stem, e.g. ``"01_downey_explorer"``.
    """
    boxes = [ExerciseBox(exercise, i) for i, exercise in enumerate(exercises_for(notebook), start=1)]
    header = widgets.HTML("<h3>Exercises</h3><p>Answer in the box, then press <i>check</i>: the workbench "
                          "computes the answer with the same model as the dashboard above.</p>")
    return widgets.VBox([header, *boxes])


def with_exercises(dashboard: widgets.Widget, notebook: str) -> widgets.VBox:
    """Return ``dashboard`` with the exercises of ``notebook`` in a collapsed section under it.

    Parameters
    ----------
    dashboard : ipywidgets.Widget
        The dashboard.
    notebook : str
        The notebook's stem.
    """
    exercises = widgets.Accordion(children=[exercise_panel(notebook)], selected_index=None)
    exercises.set_title(0, f"Exercises ({len(exercises_for(notebook))}): check your understanding with the model")
    return widgets.VBox([dashboard, exercises])
