"""The exercises of each notebook: module ``nNN_<notebook stem>`` holds ``EXERCISES`` for ``NN_<stem>.ipynb``.

A notebook shows its exercises under its dashboard with
``workbench.ui.exercises.with_exercises(dashboard, "NN_<stem>")``;
:func:`exercises_for` and :func:`all_exercises` give them as data (tests check every one
accepts its own answer and refuses a wrong one; ``tools/solutions.py`` writes the
instructor's solutions).
"""

from __future__ import annotations

import importlib
import pkgutil

from workbench.course.exercise import Exercise

__all__ = ["all_exercises", "exercises_for", "notebooks_with_exercises"]


def notebooks_with_exercises() -> list[str]:
    """Return the notebook stems that have exercises, in course order (``"01_downey_explorer"``, ...)."""
    names = [m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("n") and m.name[1:3].isdigit()]
    return sorted(name[1:] for name in names)


def exercises_for(notebook: str) -> tuple[Exercise, ...]:
    """Return the exercises of notebook ``notebook`` (its stem, e.g. ``"01_downey_explorer"``).

    Parameters
    ----------
    notebook : str
        The notebook's stem, e.g. ``"01_downey_explorer"``.
    """
    stem = notebook.removesuffix(".ipynb")
    if stem not in notebooks_with_exercises():
        raise KeyError(f"no exercises for notebook {notebook!r}; notebooks with exercises: "
                       f"{', '.join(notebooks_with_exercises())}")
    return importlib.import_module(f"{__name__}.n{stem}").EXERCISES


def all_exercises() -> dict[str, tuple[Exercise, ...]]:
    """Return every notebook's exercises, by notebook stem."""
    return {stem: exercises_for(stem) for stem in notebooks_with_exercises()}
