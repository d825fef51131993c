"""Write the instructor's solutions from the exercises themselves.

    .venv/bin/python tools/solutions.py           # rewrite instructor/solutions.md and the
                                                  # exercise lists of docs/teaching.md
    .venv/bin/python tools/solutions.py --check   # exit 1 (and say what) when either is stale

``instructor/solutions.md`` has one section per notebook, in course order, and in it every
exercise of :func:`workbench.course.exercises.all_exercises`: key, level, question, the
options of a choice, the answer and its explanation (:meth:`Exercise.solution`, computed by
the exercise's own checker from the models, so real-data exercises need
``WORKBENCH_DATA_MIRROR``), what is accepted, and the hint a wrong answer gets.

``docs/teaching.md`` holds, between ``<!-- lecture-exercises:begin -->`` and
``<!-- lecture-exercises:end -->``, the exercise keys of each lecture of :data:`LECTURES`.

Both files are generated: an exercise that changes makes ``tests/test_solutions.py`` fail
until this script is run again.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from workbench.course.exercise import LEVELS, Exercise
from workbench.course.exercises import all_exercises
from workbench.course.path import COURSE, lesson
from workbench.errors import quiet_warnings

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "instructor" / "solutions.md"
TEACHING = ROOT / "docs" / "teaching.md"
BEGIN, END = "<!-- lecture-exercises:begin -->", "<!-- lecture-exercises:end -->"
COMMAND = ".venv/bin/python tools/solutions.py"

#: The three lectures of docs/teaching.md: title and the notebooks (stems) each one uses.  Together
#: they are the course path (workbench.course.path.COURSE) in its order (tests/test_teaching.py).
LECTURES = (
    ("Lecture 1: how long will my job take?",
     ("00_predict_my_runs", "10_regions", "01_downey_explorer", "02_adept_prediction")),
    ("Lecture 2: when the model misses, other sizes, and the calculation time",
     ("03_anomalies", "04_cross_size", "05_fim_calculation")),
    ("Lecture 3: communication models and extrapolation to a large input",
     ("06_fim_communication", "07_comm_regression", "08_comm_statistics_ml", "09_fractal_extrapolation")),
)


def lecture_of(stem: str) -> int | None:
    """Return the number (1-3) of the lecture that uses notebook ``stem``, None if none does."""
    for number, (_, stems) in enumerate(LECTURES, start=1):
        if stem in stems:
            return number
    return None


def _accepted(exercise: Exercise) -> str:
    if exercise.kind == "choice":
        return "only the option of the solution"
    unit = f" (in {exercise.unit})" if exercise.unit else ""
    return f"a number{unit} within ±{exercise.rel_tol * 100:g} % of the model's value"


def exercise_section(exercise: Exercise) -> str:
    """Return the Markdown of one exercise: question, options, answer, what is accepted, hint."""
    lines = [f"### `{exercise.key}`", "",
             f"Level {exercise.level} ({LEVELS[exercise.level]}).", "",
             f"**Question.** {exercise.question}", ""]
    if exercise.kind == "choice":
        lines += ["**Options.** " + " / ".join(exercise.options), ""]
    lines += [f"**Solution.** {exercise.solution()}", "",
              f"Accepted: {_accepted(exercise)}.", "",
              f"Hint after a wrong answer: {exercise.hint}", ""]
    return "\n".join(lines)


def solutions_markdown(exercises: dict[str, tuple[Exercise, ...]] | None = None) -> str:
    """Return the text of ``instructor/solutions.md`` (every notebook's exercises, course order)."""
    exercises = all_exercises() if exercises is None else exercises
    outside = sorted(set(exercises) - {entry.notebook for entry in COURSE})
    if outside:
        raise SystemExit(f"exercises for notebooks outside the course path (workbench/course/path.py): {outside}")
    count = sum(len(group) for group in exercises.values())
    parts = ["# Instructor's solutions", "",
             f"Written by `{COMMAND}` from the exercises in `workbench/course/exercises/`: do not edit by hand, "
             "run the script after changing an exercise (`tests/test_solutions.py` fails until then). Every answer "
             "is computed by the exercise's own checker from the workbench's models, as the answer boxes do. "
             "Not part of the student site (see `instructor/README.md`).", "",
             f"{count} exercises in {len(exercises)} notebooks. Levels: "
             + "; ".join(f"{level} {name}" for level, name in LEVELS.items()) + ".", ""]
    with quiet_warnings():  # the models' fit warnings are the dashboards' business, not the solutions'
        for entry in COURSE:
            if entry.notebook not in exercises:
                continue
            lecture = lecture_of(entry.notebook)
            parts += [f"## {entry.notebook[:2]} {entry.title}", "",
                      f"Notebook `notebooks/{entry.filename}`" + (f", lecture {lecture}" if lecture else "")
                      + f"; checkers in `workbench/course/exercises/n{entry.notebook}.py`.", ""]
            parts += [exercise_section(exercise) for exercise in exercises[entry.notebook]]
    return "\n".join(parts).rstrip("\n") + "\n"


def lecture_block(exercises: dict[str, tuple[Exercise, ...]] | None = None) -> str:
    """Return the exercise keys of each lecture (the generated block of docs/teaching.md)."""
    exercises = all_exercises() if exercises is None else exercises
    lines = [f"<!-- written by {COMMAND} from workbench/course/exercises; do not edit by hand -->", ""]
    for title, stems in LECTURES:
        minutes = sum(lesson(stem).minutes for stem in stems)
        lines += [f"**{title}** (the lessons' own estimate: {minutes} min of student work)", ""]
        for stem in stems:
            keys = ", ".join(f"`{e.key}` (L{e.level})" for e in exercises.get(stem, ()))
            lines.append(f"- {stem} ({lesson(stem).minutes} min): {keys or 'no exercises yet'}")
        lines.append("")
    return "\n".join(lines)


def teaching_markdown(text: str, exercises: dict[str, tuple[Exercise, ...]] | None = None) -> str:
    """Return docs/teaching.md's ``text`` with its lecture-exercises block rewritten."""
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{TEACHING.relative_to(ROOT)} has no {BEGIN} ... {END} block to write into")
    block = f"{BEGIN}\n{lecture_block(exercises)}{END}"
    return re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, count=1, flags=re.S)


def main(argv: list[str] | None = None) -> int:
    """Write (or ``--check``) instructor/solutions.md and docs/teaching.md's exercise lists."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether the files are up to date")
    args = parser.parse_args(argv)
    exercises = all_exercises()
    wanted = {SOLUTIONS: solutions_markdown(exercises),
              TEACHING: teaching_markdown(TEACHING.read_text(encoding="utf-8"), exercises)}
    stale = [path for path, text in wanted.items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run {COMMAND}")
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
