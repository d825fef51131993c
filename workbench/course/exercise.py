"""An exercise as data: a question, a checker that computes the answer with the models, a hint.

A checker never stores the right answer as a typed-in number: it computes it from the
workbench's own models and data each time (``expected()``), so an exercise stays right when
a model or a dataset changes, and a test can ask every exercise for its answer and check
that the answer is accepted and a wrong one refused.

Answers come in two kinds:

* **number**: the student types a number; it is right within a relative tolerance
  (:func:`numeric`), e.g. "what speedup does the model predict at 64 processes?".
* **choice**: the student picks one of a few options (:func:`choice`), e.g. "what happens to
  the predicted runtime at 256 processes when sigma grows: it rises, falls or stays?".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Exercise", "LEVELS", "Verdict", "choice", "numeric"]

#: Exercise levels, from first contact to real analysis (shown beside each exercise).
LEVELS = {
    1: "predict before you move",
    2: "read the dashboard",
    3: "change the model",
    4: "fit real data and explain the miss",
}


@dataclass(frozen=True)
class Verdict:
    """What the checker says of one answer: ``correct`` and a message for the student."""

    correct: bool
    message: str


@dataclass(frozen=True)
class Exercise:
    """One exercise of a notebook.

    Attributes
    ----------
    key : str
        Unique identifier, ``"<notebook stem>/<short name>"``.
    level : int
        1-4, see :data:`LEVELS`.
    question : str
        The task, in Markdown-free plain text (it is shown as HTML-escaped text).
    kind : {"number", "choice"}
        The answer a student gives.
    expected : callable
        ``expected()`` computes the right answer with the models: a float (``number``) or
        one of ``options`` (``choice``).
    hint : str
        Shown after a wrong answer: where to look, not the answer.
    explanation : str
        Shown after a right answer, and in the instructor's solutions: why it is right.
    options : tuple of str
        The choices (``choice`` only).
    rel_tol : float
        Relative tolerance of a ``number`` answer, relative to the right answer.
    unit : str
        Unit of a ``number`` answer, shown beside the box.
    """

    key: str
    level: int
    question: str
    kind: str
    expected: Callable[[], object]
    hint: str
    explanation: str = ""
    options: tuple[str, ...] = ()
    rel_tol: float = 0.05
    unit: str = ""

    def __post_init__(self):
        if self.kind not in ("number", "choice"):
            raise ValueError(f"exercise {self.key}: kind must be 'number' or 'choice', got {self.kind!r}")
        if self.level not in LEVELS:
            raise ValueError(f"exercise {self.key}: level must be one of {sorted(LEVELS)}, got {self.level!r}")
        if self.kind == "choice" and len(self.options) < 2:
            raise ValueError(f"exercise {self.key}: a choice needs at least 2 options")

    def check(self, answer) -> Verdict:
        """Judge a student's ``answer`` (text or number) against :attr:`expected`.

        Parameters
        ----------
        answer : str or float
            The student's answer.
        """
        right = self.expected()
        if self.kind == "choice":
            if answer == right:
                return Verdict(True, _with(f"Right: {right}.", self.explanation))
            return Verdict(False, _with("Not quite." if answer in self.options else "Pick one of the options.",
                                        f"Hint: {self.hint}"))
        value = _number(answer)
        if value is None:
            return Verdict(False, f"Type a number{f' (in {self.unit})' if self.unit else ''}, e.g. 12.5.")
        if abs(value - float(right)) <= self.rel_tol * abs(float(right)):  # relative to the right answer
            return Verdict(True, _with(f"Right: the model gives {float(right):.4g}{_unit(self.unit)}.",
                                       self.explanation))
        return Verdict(False, _with(f"Not quite ({value:g}{_unit(self.unit)} is off by more than "
                                    f"{self.rel_tol:.0%}).", f"Hint: {self.hint}"))

    def solution(self) -> str:
        """Return the right answer and its explanation, for the instructor's solutions."""
        right = self.expected()
        shown = f"{float(right):.4g}{_unit(self.unit)}" if self.kind == "number" else str(right)
        return _with(f"Answer: {shown}.", self.explanation)


def numeric(key: str, level: int, question: str, expected: Callable[[], float], hint: str, *,
            explanation: str = "", rel_tol: float = 0.05, unit: str = "") -> Exercise:
    """Return an exercise answered by a number within ``rel_tol`` of ``expected()``.

    Parameters
    ----------
    key : str
        Unique identifier, ``"<notebook stem>/<short name>"``.
    level : int
        1-4, see :data:`LEVELS`.
    question : str
        The question shown.
    expected : callable
        Computes the right answer (a number) when asked.
    hint : str
        Shown after a wrong answer.
    explanation : str, default ""
        Shown after a right answer.
    rel_tol : float, default 0.05
        Relative tolerance of a right answer.
    unit : str, default ""
        The answer's unit, shown beside the box.
    """
    return Exercise(key, level, question, "number", expected, hint, explanation, (), rel_tol, unit)


def choice(key: str, level: int, question: str, options: Sequence[str], expected: Callable[[], str], hint: str, *,
           explanation: str = "") -> Exercise:
    """Return an exercise answered by picking ``expected()`` among ``options``.

    Parameters
    ----------
    key : str
        Unique identifier, ``"<notebook stem>/<short name>"``.
    level : int
        1-4, see :data:`LEVELS`.
    question : str
        The question shown.
    options : sequence of str
        The choices offered.
    expected : callable
        Returns the right choice when asked.
    hint : str
        Shown after a wrong answer.
    explanation : str, default ""
        Shown after a right answer.
    """
    return Exercise(key, level, question, "choice", expected, hint, explanation, tuple(options))


def _number(answer) -> float | None:
    if isinstance(answer, bool):
        return None
    if isinstance(answer, (int, float)):
        return float(answer) if math.isfinite(answer) else None
    try:
        value = float(str(answer).strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _unit(unit: str) -> str:
    return f" {unit}" if unit else ""


def _with(first: str, second: str) -> str:
    return f"{first} {second}".strip()
