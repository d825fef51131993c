"""The knowledge documents stay true to the code: docs/references.md defines every citation key
the docstrings use, every test and every ``workbench.`` name that docs/decisions/*.md
points to exists, and so does every ``workbench.`` name of README.md and the other docs pages.
Static checks (ast, regular expressions, imports): no model is fitted.  (Their code blocks are
run by tests/test_readme_examples.py.)
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workbench"
REFERENCES = ROOT / "docs" / "references.md"
DECISIONS = sorted((ROOT / "docs" / "decisions").glob("*.md"))
EXPECTED_DECISIONS = {"adept", "fim", "comm_regression", "comm_ml", "fractal", "scaling"}

#: A citation key in a docstring: "[Deshmeh2013]", "[EscobarBoppana]", "[USL]".  Not a
#: subscript or type (``list[AdeptWarning]``, ``frame["n"]``), not a literal in backquotes
#: (``[THROTTLED]``), not a unit ("[B]", "[ms]") nor a numbered footnote ("[1]").
CITATION = re.compile(r"(?<![\w.`'\"\[\]])\[([A-Z][A-Za-z0-9]{2,})\]")
#: A key defined in references.md: a heading "### [Key]".
DEFINITION = re.compile(r"^#{2,4} \[([^\]]+)\]\s*$", re.MULTILINE)
TEST_REFERENCE = re.compile(r"(tests/[\w/]+\.py)::(\w+)")
NAME_REFERENCE = re.compile(r"\bworkbench(?:\.[A-Za-z_]\w*)+")


def _docstrings(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "lineno", 1), doc


def _python_files():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def cited_keys() -> dict[str, list[str]]:
    """Citation key -> where it is used ("path:line")."""
    used: dict[str, list[str]] = {}
    for path in _python_files():
        for line, doc in _docstrings(path):
            for key in CITATION.findall(doc):
                used.setdefault(key, []).append(f"{path.relative_to(ROOT)}:{line}")
    return used


def defined_keys() -> set[str]:
    return set(DEFINITION.findall(REFERENCES.read_text(encoding="utf-8")))


def test_citation_pattern_by_hand():
    text = ("[Deshmeh2013] eq. (3.4), see [EscobarBoppana] and [USL]; list[AdeptWarning], "
            "frame[\"n\"], ``[THROTTLED]``, size [B], time [ms], footnote [1]")
    assert CITATION.findall(text) == ["Deshmeh2013", "EscobarBoppana", "USL"]


def test_the_method_keys_are_defined():
    defined = defined_keys()
    for key in ("Deshmeh2013", "Downey1997", "Ghosal1991", "Bhimani2019", "Barnes2008",
                "Papadopoulou2015", "Branikas2024", "EscobarBoppana"):
        assert key in defined, f"docs/references.md does not define [{key}]"


def test_every_citation_key_in_a_docstring_is_defined():
    defined = defined_keys()
    missing = {key: where[:3] for key, where in cited_keys().items() if key not in defined}
    assert not missing, f"citation keys used in docstrings but not defined in docs/references.md: {missing}"


def test_every_method_has_a_decision_document():
    assert {p.stem for p in DECISIONS} >= EXPECTED_DECISIONS


def _decision_text():
    return {p.name: p.read_text(encoding="utf-8") for p in DECISIONS}


def test_every_referenced_test_exists():
    checked, missing = 0, []
    cache: dict[str, str] = {}
    for doc, text in _decision_text().items():
        for file, name in TEST_REFERENCE.findall(text):
            path = ROOT / file
            if file not in cache:
                cache[file] = path.read_text(encoding="utf-8") if path.is_file() else ""
            checked += 1
            if not re.search(rf"^\s*(?:async\s+)?def {re.escape(name)}\(", cache[file], re.MULTILINE):
                missing.append(f"{doc}: {file}::{name}")
    assert checked > 0, "the decision documents cite no tests"
    assert not missing, f"tests referenced in docs/decisions that do not exist: {missing}"


def _resolve(dotted: str):
    """Import the longest importable module prefix of ``dotted`` and getattr the rest."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if exc.name is not None and not ".".join(parts[:cut]).startswith(exc.name):
                raise  # a dependency of the module is missing, not the module itself
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_referenced_workbench_name_resolves():
    names = sorted({name for text in _decision_text().values() for name in NAME_REFERENCE.findall(text)})
    assert len(names) > 20, "the decision documents map too few equations to code"
    missing = []
    for name in names:
        try:
            _resolve(name)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{name} ({type(exc).__name__}: {exc})")
    assert not missing, f"names referenced in docs/decisions that do not resolve: {missing}"


@pytest.mark.parametrize("dotted", ["workbench.models.downey.speedup", "workbench.models.adept.Adept.fit"])
def test_resolve_by_hand(dotted):
    assert callable(_resolve(dotted))


def test_resolve_refuses_a_missing_name():
    with pytest.raises(AttributeError):
        _resolve("workbench.models.downey.no_such_function")
    with pytest.raises((AttributeError, ImportError)):
        _resolve("workbench.no_such_module.f")


def test_every_workbench_name_in_readme_and_docs_resolves():
    """Text moved between README.md and docs/ names functions that exist (``workbench.io.read_osu``, ...)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    names = {(page.relative_to(ROOT).as_posix(), name) for page in pages
             for name in NAME_REFERENCE.findall(page.read_text(encoding="utf-8"))}
    assert len(names) > 50, "README.md and docs/*.md name too few workbench functions to be the docs"
    missing = []
    for page, name in sorted(names):
        try:
            _resolve(name.rstrip("."))
        except (ImportError, AttributeError) as exc:
            missing.append(f"{page}: {name} ({type(exc).__name__}: {exc})")
    assert not missing, f"names in README.md / docs that do not resolve: {missing}"


#: A key defined only as another's alias: "### [Downey97]" followed by "Alias of [Downey1997]".
ALIAS = re.compile(r"^#{2,4} \[([^\]]+)\]\s*\n+Alias of \[([^\]]+)\]", re.MULTILINE)

#: Files that still cite an alias, and why; shrinks to empty (strict xfail: delete the entry
#: once the file cites the canonical keys).
ALIAS_CITATIONS_ALLOWED: dict[str, str] = {}


def alias_keys() -> dict[str, str]:
    """Alias key -> the key it stands for, from docs/references.md."""
    return dict(ALIAS.findall(REFERENCES.read_text(encoding="utf-8")))


def test_alias_pattern_by_hand():
    text = "### [Downey97]\n\nAlias of [Downey1997]. Used in ...\n\n### [USL]\n\nN. J. Gunther ..."
    assert ALIAS.findall(text) == [("Downey97", "Downey1997")]
    assert alias_keys().get("ADEPT") == "Deshmeh2013"


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=ALIAS_CITATIONS_ALLOWED[p]))
    if p in ALIAS_CITATIONS_ALLOWED else p
    for p in sorted(str(f.relative_to(ROOT)) for f in _python_files())])
def test_docstrings_cite_one_key_per_work(path):
    """One set of citation keys: a docstring cites a work by its canonical key, never by an alias."""
    aliases = alias_keys()
    found = sorted({f"[{key}] (use [{aliases[key]}]) at line {line}"
                    for line, doc in _docstrings(ROOT / path) for key in CITATION.findall(doc) if key in aliases})
    assert not found, f"{path} cites aliases: {found}"
