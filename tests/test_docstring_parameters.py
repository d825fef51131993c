"""Every parameter of a public function or method is documented: name, type and default.

ruff's numpy rules (tests/test_lint.py) check a Parameters section's form once it exists, not
that it exists nor that it gives a type and a default (issue 26, item 6).  This test does, for
every module of ``workbench/``: each public function and each public method of a public class
with parameters (``self``, ``cls`` aside) has a numpy ``Parameters`` section naming every
parameter (``a, b : int`` counts for both; ``*args, **kwargs`` may be named as such) with a
type, and a parameter with a default says ``default`` (or ``optional``) on its line.  The
parameters of a public class's ``__init__`` are documented in the class docstring, as numpy
and scikit-learn do.  A property's setter is documented by its property.

One test per file, no exceptions.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "workbench").rglob("*.py"))

_SECTION = re.compile(r"^Parameters\n-{3,}\n(.*?)(?=\n\n[A-Z][A-Za-z ]+\n-{3,}\n|\Z)", re.S | re.M)
_ENTRY = re.compile(r"^([*\w][\w, *]*?)\s*:\s*(.*)$")


def documented_parameters(doc: str) -> dict[str, str] | None:
    """``name -> type line`` of a numpy docstring's Parameters section (None: no section)."""
    found = _SECTION.search(doc)
    if found is None:
        return None
    entries = {}
    for line in found.group(1).split("\n"):
        entry = _ENTRY.match(line)
        if entry:
            for name in entry.group(1).split(","):
                entries[name.strip().lstrip("*")] = entry.group(2).strip()
        elif re.fullmatch(r"\*{0,2}\w+(\s*,\s*\*{0,2}\w+)*", line):  # "*args, **kwargs": no type
            for name in line.split(","):
                entries[name.strip().lstrip("*")] = ""
    return entries


def problems(source: str) -> list[str]:
    """What the rule finds missing in a module's source, one line per parameter."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
                init = next((f for f in child.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                if init is not None:
                    found.extend(_function_problems(init, prefix, ast.get_docstring(child) or "", child.name))
                visit(child, f"{prefix}{child.name}.")
            elif (isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and not child.name.startswith("_")
                  and not any(isinstance(d, ast.Attribute) and d.attr == "setter" for d in child.decorator_list)):
                found.extend(_function_problems(child, prefix))

    visit(ast.parse(source), "")
    return found


def _function_problems(function: ast.FunctionDef, prefix: str, doc: str | None = None,
                       name: str | None = None) -> list[str]:
    """Problems of one function; ``doc``/``name``: an ``__init__`` checked against its class docstring."""
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = {a.arg for a in positional[len(positional) - len(args.defaults):]}
    defaults |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    names = [a.arg for a in positional + args.kwonlyargs if a.arg not in ("self", "cls")]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    if not names:
        return []
    where = f"{prefix}{name or function.name} (line {function.lineno})"
    section = documented_parameters((ast.get_docstring(function) or "") if doc is None else doc)
    if section is None:
        return [f"{where}: no Parameters section for {names}"]
    out = []
    for name in names:
        if name not in section:
            out.append(f"{where}: {name} is not documented")
        elif not section[name] and name not in (getattr(args.vararg, "arg", None), getattr(args.kwarg, "arg", None)):
            out.append(f"{where}: {name} has no type")
        elif name in defaults and not re.search(r"\b(default|optional)\b", section[name]):
            out.append(f"{where}: {name} does not say its default")
    return out


@pytest.mark.parametrize("path", FILES)
def test_public_parameters_are_documented_with_type_and_default(path):
    found = problems((ROOT / path).read_text(encoding="utf-8"))
    assert not found, f"{path}: " + "; ".join(found)


def test_the_rule_on_a_hand_made_module():
    source = '''
def good(a, b=1, *rest, c: int = 2, **options):
    """Do it.

    Parameters
    ----------
    a, b : int, default 1
        Numbers.
    c : int, default 2
        A third.
    *rest, **options
        More.
    """


def no_section(a):
    """Do it."""


def no_default(a=1):
    """Do it.

    Parameters
    ----------
    a : int
        A number.

    Returns
    -------
    int
    """


def _private(a):
    pass


class Public:
    def method(self, x):
        """Do it.

        Parameters
        ----------
        y : int
            Not x.
        """


class _Hidden:
    def method(self, x):
        pass


class Estimator:
    """An estimator.

    Parameters
    ----------
    alpha : float, default 1.0
        A weight.
    """

    def __init__(self, alpha=1.0, beta=2):
        """Not where the parameters go."""

    @property
    def value(self):
        """A value."""

    @value.setter
    def value(self, new):
        pass
'''
    assert problems(source) == [
        "no_section (line 16): no Parameters section for ['a']",
        "no_default (line 20): a does not say its default",
        "Public.method (line 39): x is not documented",
        "Estimator (line 63): beta is not documented",
    ]
