"""Modules compose through public names only: no module reaches into another module's privates.

A refactor of a model's internals (PMNF's scaled cost, a baseline's formula) must not silently
break the modules that wrap it.  Every module of ``workbench/`` is parsed with :mod:`ast` and
these count as touching another module's private name:

* ``obj._name`` or ``getattr(obj, "_name")`` (``hasattr``/``setattr`` too) where ``obj`` is not
  ``self``, ``cls``, ``super()`` or a class of the module itself, unless ``_name`` is the
  module's own: defined in it (a function, class, assignment or ``self._name = ...``) and in no
  other module of the package.  A private name defined in several modules (``_predict``,
  ``_check_fitted``) is therefore reachable only through ``self`` (or :data:`SAME_MODULE`);
* ``from m import _name``, and importing a module whose dotted path has a private part
  (``workbench.io._private``).

Dunder names (``__wrapped__``) are public.  ``workbench.models.scaling`` must have none; the
rest of the package lists its known cases in :data:`KNOWN`, each to be removed with its fix
(the test fails on a new case and on a stale entry).
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workbench"
#: Packages that must touch no other module's private name, whatever KNOWN says.
STRICT = ("workbench/models/scaling/",)
#: Known cases elsewhere (issue 26 items 1 and 4): (module, what is touched).
KNOWN: set[tuple[str, str]] = set()


#: A module's own private names that other modules also define, so that the name rule above
#: cannot tell them from another module's (checked by hand): (module, what is touched).
SAME_MODULE = {
    ("workbench/measure/phases.py", "timer._runs"),  # _Run closing a run of the module's PhaseTimer
}


#: Documented public names that begin with an underscore (the standard library's ``os._exit``,
#: named tuples' ``_replace``, ``_asdict``, ``_fields``, ``_make``).
PUBLIC = {"_exit", "_replace", "_asdict", "_fields", "_make"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in PUBLIC


def _on_self(node: ast.AST) -> bool:
    """Whether ``node`` is ``self``, ``cls`` or ``super()``."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def defined_private_names(tree: ast.AST) -> set[str]:
    """Private names a module defines: functions, classes, assigned names and ``self._x``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for part in ast.walk(target):
                    if isinstance(part, ast.Name):
                        names.add(part.id)
                    elif isinstance(part, ast.Attribute) and _on_self(part.value):
                        names.add(part.attr)
    return {n for n in names if _private(n)}


def private_accesses(tree: ast.AST, own: set[str]) -> list[tuple[int, str]]:
    """``(line, what)`` for every touch of another module's private name in ``tree`` (module docstring)."""
    found = []
    classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and not _on_self(node.value):
            if node.attr not in own and not (isinstance(node.value, ast.Name) and node.value.id in classes):
                found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _private(node.args[1].value) and not _on_self(node.args[0])
              and node.args[1].value not in own):
            found.append((node.lineno, f"{ast.unparse(node.args[0])}.{node.args[1].value}"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if any(_private(part) for part in module.split(".")):
                found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{a.name}") for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if any(_private(p) for p in a.name.split("."))]
    return found


@functools.lru_cache(maxsize=2)
def package_accesses(root: Path = ROOT) -> dict[tuple[str, str], list[int]]:
    """Every ``(module path, what is touched) -> lines`` in ``root / "workbench"``."""
    trees = {p.relative_to(root).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
             for p in sorted((root / "workbench").rglob("*.py"))}
    definers = defaultdict(set)
    for path, tree in trees.items():
        for name in defined_private_names(tree):
            definers[name].add(path)
    found = defaultdict(list)
    for path, tree in trees.items():
        own = {name for name, where in definers.items() if where == {path}}
        for line, what in private_accesses(tree, own):
            found[(path, what)].append(line)
    return dict(found)


def test_rules_on_hand_made_modules():
    code = '''
from workbench.models.pmnf import _aggregate
import workbench.io._private as text
from workbench.io import _private
class A:
    def f(self, other, model):
        self._x = 1
        super()._g()
        model._predict(1)
        other._x
        getattr(model, "_scaled")
        return model.__wrapped__, model.public
'''
    tree = ast.parse(code)
    assert defined_private_names(tree) == {"_x"}
    found = sorted(what for _, what in private_accesses(tree, own=defined_private_names(tree)))
    assert found == ["model._predict", "model._scaled", "workbench.io._private", "workbench.io._private",
                     "workbench.models.pmnf._aggregate"]
    assert private_accesses(ast.parse("class B:\n    _k = 1\nB._k"), own=set()) == []
    # ``other._x`` counts once the name is not the module's alone
    assert "other._x" in [what for _, what in private_accesses(tree, own=set())]


def test_scaling_package_touches_no_private_name_of_another_module():
    found = {key: lines for key, lines in package_accesses().items() if key[0].startswith(STRICT)}
    assert not found, "private names of other modules used (add a public method instead): " + "; ".join(
        f"{path}:{lines} {what}" for (path, what), lines in sorted(found.items()))


def test_no_new_private_access_in_the_package_and_no_stale_known_case():
    found = package_accesses()
    new = sorted(set(found) - KNOWN - SAME_MODULE)
    assert not new, "new private access (use or add a public name): " + "; ".join(
        f"{path}:{found[(path, what)]} {what}" for path, what in new)
    stale = sorted((KNOWN | SAME_MODULE) - set(found))
    assert not stale, f"fixed, remove from KNOWN: {stale}"
