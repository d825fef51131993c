"""The package's layers, and no import cycles.

``[tool.importlinter]`` in pyproject.toml declares the floors of the package (a ``layers``
contract: a module imports only from floors below its own), that evaluation imports no
measurement, and that no siblings import each other in a circle (``acyclic_siblings``);
import-linter checks them here. The grimp tests check what the contracts leave open: no
cycle among modules at all (a package's ``__init__`` and its own children included, lazy
imports inside functions included), and every top-level module of ``workbench`` on a floor.
"""

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    done = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "0 broken" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 kept" in done.stdout, done.stdout[-2000:]


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("workbench", cache_dir=None)


def import_cycles(graph) -> list[list[str]]:
    """Every set of two or more modules that import each other round in a circle.

    The strongly connected components of the module import graph (Tarjan's algorithm,
    iterative), each sorted, larger than one module.
    """
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imported = work[-1]
            step = next(imported, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
                elif step in on_stack:
                    low[module] = min(low[module], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe_cycle(graph, component: list[str]) -> str:
    """One concrete circle through ``component``: ``a (l.3) -> b (l.10) -> a``."""
    first = component[0]
    second = min(m for m in graph.find_modules_directly_imported_by(first) if m in component)
    chain = [first, *graph.find_shortest_chain(importer=second, imported=first)]
    steps = []
    for importer, imported in zip(chain, chain[1:]):
        lines = sorted({d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)})
        steps.append(f"{importer} (l.{', '.join(map(str, lines))})" if lines else importer)
    return " -> ".join([*steps, first])


def test_the_cycle_finder_finds_and_names_a_cycle():
    toy = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("p.e", "p.a")]:
        toy.add_import(importer=importer, imported=imported)
    assert import_cycles(toy) == [["p.a", "p.b", "p.c"]]
    assert describe_cycle(toy, ["p.a", "p.b", "p.c"]) == "p.a -> p.b -> p.c -> p.a"
    toy.remove_import(importer="p.c", imported="p.a")
    assert import_cycles(toy) == []


def test_no_module_imports_itself_through_other_modules(graph):
    cycles = import_cycles(graph)
    assert not cycles, "import cycles (break each so that the dependency goes one way): " + "; ".join(
        describe_cycle(graph, component) for component in cycles
    )


def test_every_top_level_module_is_on_a_floor(graph):
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    floors = next(c for c in contracts if c["type"] == "layers")["layers"]
    on_a_floor = {name.strip() for floor in floors for name in floor.replace(":", "|").split("|")}
    assert graph.find_children("workbench") == on_a_floor


def test_the_catalogue_loads_the_projects_measurements_with_io_alone():
    # io owns the formats of the tables measured here: fetching them imports no measuring program
    script = (
        "import sys\n"
        "from workbench.io import fetch_dataset\n"
        "for name in ('kmeans-fim', 'comm-pingpong-local', 'comm-datagen-local', 'fractal-demo-local'):\n"
        "    assert len(fetch_dataset(name).frame) > 0, name\n"
        "print(sorted(m for m in sys.modules if m.startswith('workbench.') and m.split('.')[1] not in\n"
        "             ('io', 'errors', 'validation', 'calltree')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", done.stdout


# Plotly's own text markup (<b>, <i>, <br>, <sup>, <sub>, <span>, <a>) is allowed in figure
# texts; these tags are page HTML, which belongs in ``workbench.views``.
_PAGE_TAGS = ("<div", "<ul", "<ol", "<li", "<table", "<tr", "<td", "<th", "<details", "<summary", "<code",
              "<style", "<p>", "<p ")


def html_in_source(source: str) -> list[str]:
    """Name every function returning HTML (``*_html``) and every string literal with page HTML tags."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.endswith("_html"):
            found.append(f"line {node.lineno}: def {node.name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            tags = [t for t in _PAGE_TAGS if t in node.value.lower()]
            if tags:
                found.append(f"line {node.lineno}: string with {', '.join(tags)}")
    return found


def test_the_html_finder_finds_html():
    assert html_in_source("def table_html():\n    return 1\n") == ["line 1: def table_html"]
    assert html_in_source("x = f\"<div style='a'>{1}</div>\"\n") == ["line 1: string with <div"]
    assert html_in_source("title = '<b>Queue</b><br>wait'\n") == []


def test_no_figure_module_makes_html():
    """plots return figures and data; their HTML (tables, warning lists) lives in workbench.views."""
    offenders = {str(p.relative_to(ROOT)): found for p in sorted((ROOT / "workbench" / "plots").rglob("*.py"))
                 if (found := html_in_source(p.read_text(encoding="utf-8")))}
    assert not offenders, offenders
