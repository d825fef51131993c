"""Build the static course site (no kernel): ``python tools/build_site.py [--out site]``; ``make site`` runs it.

The site (docs/site.md) has three parts:

* ``index.html``: the course path (:data:`workbench.course.path.COURSE`, rendered by
  :func:`workbench.course.landing.landing_html`) linking the rendered notebooks;
* ``notebooks/<stem>.html``: each notebook's Markdown (``<details>`` sections stay
  collapsible), its other code cells as code, and, in place of the dashboard cell, the
  dashboard's figures at their default state as interactive plotly HTML (plotly.js is one
  file, ``_static/plotly.min.js``, loaded once per page).  The figures are taken from the
  dashboard built exactly as its notebook cell builds it, so they are the figures a student
  sees first (the dashboards draw them through the widget-free views, :mod:`workbench.views`);
  nothing is hand-copied.  The exercises (under the dashboard in the notebook) become their
  questions at the end of the page: the site never
  shows answers (the instructor's solutions live in ``instructor/``, never copied here);
* ``api/``: the API reference, generated from the numpy-style docstrings by Sphinx (autodoc +
  napoleon) with warnings as errors.

Where a dashboard needs the real-data mirror and ``WORKBENCH_DATA_MIRROR`` is not set, its
page says so instead of failing.
"""

from __future__ import annotations

import argparse
import ast
import html
import importlib
import json
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import plotly  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
from nbconvert.filters.markdown_mistune import markdown2html_mistune  # noqa: E402

import workbench  # noqa: E402
from workbench.errors import WorkbenchError  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
SCREENSHOTS = ROOT / "docs" / "screenshots"
API_SOURCES = ROOT / "docs" / "api"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
MATHJAX = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"
#: A dashboard cell with exercises ends with this call (workbench.ui.exercises); the site lists the questions
#: at the end of the page, under the notebook's "## Exercises" heading.
EXERCISE_CALL = "with_exercises"

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; line-height: 1.55; }
nav.site { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 24px; font-size: 14px; }
nav.site a { margin-right: 16px; color: #0969da; text-decoration: none; }
main { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
pre.code { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 12px; overflow-x: auto;
           font-size: 13px; }
p.code-note { color: #57606a; font-size: 13px; margin: -8px 0 16px; }
section.dashboard { border: 1px solid #d0d7de; border-radius: 8px; padding: 8px 16px; margin: 16px 0; }
section.dashboard > h2 { font-size: 16px; margin: 4px 0 8px; }
p.notice { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: 6px 12px; }
ol.exercises li { margin-bottom: 12px; }
span.level { color: #57606a; font-size: 13px; }
table { border-collapse: collapse; } td, th { border: 1px solid #d0d7de; padding: 2px 8px; }
details { margin: 8px 0; } summary { cursor: pointer; font-weight: 600; }
a.anchor-link { visibility: hidden; margin-left: 6px; text-decoration: none; color: #57606a; }
h1:hover a.anchor-link, h2:hover a.anchor-link, h3:hover a.anchor-link { visibility: visible; }
"""


# --- notebooks --------------------------------------------------------------------------------

def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _last_call(code: str) -> str | None:
    """Return the name of the function a code cell calls in its last statement (None: no call)."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return None
    if body and isinstance(body[-1], ast.Expr) and isinstance(body[-1].value, ast.Call):
        func = body[-1].value.func
        return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return None


def is_dashboard_cell(code: str) -> bool:
    """Whether a code cell shows a dashboard: it imports from ``workbench.ui`` and ends by calling it."""
    call = _last_call(code)
    return call is not None and "workbench.ui" in code and call in code.split("import", 1)[-1]


def shows_exercises(code: str) -> bool:
    """Whether a dashboard cell also shows the notebook's exercises.

    Its last expression calls ``with_exercises(..., "<stem>")``, itself or inside it (notebook 04
    shows two dashboards in one box, the first with the exercises).
    """
    return _exercise_call(code) is not None


def build_dashboard(code: str):
    """Run a dashboard cell's code (its imports, then its last expression) and return the dashboard."""
    tree = ast.parse(code)
    namespace: dict = {}
    exec(compile(ast.Module(tree.body[:-1], type_ignores=[]), "<dashboard cell>", "exec"), namespace)
    return eval(compile(ast.Expression(tree.body[-1].value), "<dashboard cell>", "eval"), namespace)


def dashboard_panels(dashboard) -> tuple[list[go.Figure], list[str]]:
    """Return the figures a dashboard shows and its notices about missing real data, in page order.

    The figures are its ``LiveFigure`` panels with data (an empty one waits for a button, e.g.
    "train"); the notices are the HTML panels in which the dashboard itself says that the
    real-data mirror (``WORKBENCH_DATA_MIRROR``) is missing and what it shows instead.
    """
    import ipywidgets as widgets

    from workbench.ui.common import LiveFigure

    figures, notices, seen, stack = [], [], set(), [dashboard]
    while stack:
        widget = stack.pop()
        if id(widget) in seen:
            continue
        seen.add(id(widget))
        if isinstance(widget, LiveFigure):
            if widget.figure.data:
                figures.append(widget.figure)
            continue
        if isinstance(widget, widgets.HTML) and "WORKBENCH_DATA_MIRROR" in widget.value:
            notices.append(widget.value)
        stack.extend(reversed(list(getattr(widget, "children", ()) or ())))
    return figures, notices


def figure_html(figure: go.Figure, div_id: str) -> str:
    """Return one interactive figure as an HTML fragment (plotly.js is loaded once by the page)."""
    return figure.to_html(full_html=False, include_plotlyjs=False, div_id=div_id,
                          config={"responsive": True, "displaylogo": False})


def dashboard_html(code: str, stem: str, number: int) -> str:
    """Return the static stand-in of a dashboard cell: its figures at their default state, or why not."""
    head = ('<section class="dashboard"><h2>The dashboard at its default settings</h2>'
            '<p class="code-note">A static copy of its figures (zoom and hover work): the controls need a '
            "running kernel. Open the notebook with <code>make dashboards</code> or in JupyterLab to move them.</p>")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            figures, notices = dashboard_panels(build_dashboard(code))
    except WorkbenchError as exc:
        return (f'{head}<p class="notice">The dashboard could not be drawn for this site: '
                f"{html.escape(str(exc))}</p></section>")
    if not figures:
        raise RuntimeError(f"{stem}: the dashboard cell shows no figure; is it still a dashboard?")
    mirror = "" if not notices else (
        '<p class="notice">This site was built without the real-data mirror (<code>WORKBENCH_DATA_MIRROR</code> '
        "not set); the dashboard says what it shows instead:</p>" + "\n".join(notices))
    parts = [figure_html(fig, f"{stem}-figure-{number}-{i}") for i, fig in enumerate(figures)]
    return head + mirror + "\n".join(parts) + "</section>"


def _exercise_call(code: str) -> ast.Call | None:
    """Return the ``with_exercises(...)`` call of a cell's last expression (itself or inside it), or None."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return None
    if not body or not isinstance(body[-1], ast.Expr):
        return None
    return next((node for node in ast.walk(body[-1].value) if isinstance(node, ast.Call)
                 and EXERCISE_CALL in (getattr(node.func, "id", None), getattr(node.func, "attr", None))), None)


def exercise_stem(code: str) -> str:
    """Return the notebook stem a dashboard cell passes to ``with_exercises(dashboard, "<stem>")``."""
    return ast.literal_eval(_exercise_call(code).args[1])


def exercises_html(stem: str) -> str:
    """Return the notebook's exercises as questions only (levels and options, never an answer)."""
    from workbench.course.exercise import LEVELS
    from workbench.course.exercises import exercises_for

    items = []
    for exercise in exercises_for(stem):
        options = "".join(f"<li>{html.escape(option)}</li>" for option in exercise.options)
        items.append(
            f'<li><span class="level">Level {exercise.level}: {html.escape(LEVELS[exercise.level])}'
            f"</span><br>{markdown2html_mistune(exercise.question)}"
            + (f"<ul>{options}</ul>" if options else "") + "</li>"
        )
    # the notebook's own Markdown heads the section ("## Exercises")
    return ('<section class="exercises"><p class="code-note">Answer them in the notebook '
            "(JupyterLab or <code>make dashboards</code>): each answer is checked against the model's own "
            f'computation, with a hint on a wrong one.</p><ol class="exercises">{"".join(items)}</ol></section>')


def _links_to_pages(markdown_html: str) -> str:
    # a link to another notebook opens its rendered page
    return markdown_html.replace('.ipynb"', '.html"').replace(".ipynb#", ".html#")


def notebook_html(path: Path, title: str) -> str:
    """Return the rendered page of one notebook."""
    cells = json.loads(path.read_text())["cells"]
    body, exercises = [], None
    for number, cell in enumerate(cells):
        text = _source(cell)
        if cell["cell_type"] == "markdown":
            body.append(_links_to_pages(markdown2html_mistune(text)))
        elif cell["cell_type"] == "code" and is_dashboard_cell(text):
            body.append(dashboard_html(text, path.stem, number))
            exercises = exercise_stem(text) if shows_exercises(text) else None
        elif cell["cell_type"] == "code" and text.strip():
            body.append(f'<pre class="code"><code>{html.escape(text)}</code></pre>'
                        '<p class="code-note">Run this cell in JupyterLab to see its output.</p>')
    if exercises:
        body.append(exercises_html(exercises))
    return page(title, "\n".join(body), depth=1, plotly_js=True)


def page(title: str, body: str, *, depth: int, plotly_js: bool = False) -> str:
    """Return a site page: navigation, MathJax for the notebooks' formulas, plotly.js once."""
    up = "../" * depth
    scripts = f'<script src="{up}_static/plotly.min.js"></script>' if plotly_js else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<link rel="stylesheet" href="{up}_static/site.css">
<script>window.MathJax = {{tex: {{inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]]}}}};</script>
<script async src="{MATHJAX}"></script>
{scripts}
</head>
<body>
<nav class="site"><a href="{up}index.html">Course</a><a href="{up}api/index.html">API reference</a></nav>
<main>
{body}
</main>
</body>
</html>
"""


# --- landing page -----------------------------------------------------------------------------

def lessons() -> list:
    """Return the course's lessons in order (:data:`workbench.course.path.COURSE`)."""
    from workbench.course.path import COURSE

    return list(COURSE)


def landing(course: list) -> str:
    """Return the landing page: the course path linking the rendered notebooks."""
    try:
        from workbench.course.landing import landing_html
    except ImportError:  # the course package without its landing page: a plain ordered list
        items = "".join(f'<li><a href="notebooks/{lesson.notebook}.html">{html.escape(lesson.title)}</a>: '
                        f"{html.escape(lesson.teaches)} ({lesson.minutes} min)</li>" for lesson in course)
        return page("The course", f"<h1>The course</h1><ol>{items}</ol>", depth=0)
    page_html = landing_html(
        lessons=course,
        dashboard_url=lambda lesson: f"notebooks/{lesson.notebook}.html",
        thumbnail_url=lambda lesson: f"screenshots/{lesson.notebook}.png",
        open_label="Read the lesson",  # a static page: the live dashboard is make dashboards'
    )
    # the site's own addition: the API reference, after the course
    api = ('<p class="intro">On this site the lessons are static pages (figures at the dashboards\' default '
           'settings); <code>make dashboards</code> serves them live. The library\'s '
           '<a href="api/index.html">API reference</a> documents every module from its docstrings.</p>')
    return page_html.replace("</main>", api + "\n</main>", 1)


# --- API reference ----------------------------------------------------------------------------

def api_modules() -> list[str]:
    """Return every module of the package, the package first."""
    names = [m.name for m in pkgutil.walk_packages(workbench.__path__, "workbench.")]
    # ``__main__`` modules (``python -m workbench``, ...) run their command line on import
    return ["workbench"] + sorted(n for n in names if not n.endswith(".__main__"))


def own_members(module_name: str) -> list[str]:
    """Return the public names a module defines itself (re-exports are documented where they are defined)."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    own = []
    for name in names:
        obj = getattr(module, name, None)
        defined_in = getattr(obj, "__module__", None)
        if defined_in == module_name or (defined_in is None and not hasattr(module, "__path__")
                                          and not isinstance(obj, type(module))):
            own.append(name)
    return own


def api_sources(target: Path) -> None:
    """Write the Sphinx sources of the API reference (conf.py, index, one page per module) into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(API_SOURCES / "conf.py", target / "conf.py")
    modules = api_modules()
    for name in modules:
        members = own_members(name)
        options = f"   :members: {', '.join(members)}\n" if members else "   :no-members:\n"
        (target / f"{name}.rst").write_text(f"{name}\n{'=' * len(name)}\n\n.. automodule:: {name}\n{options}")
    index = (API_SOURCES / "index.rst").read_text()
    (target / "index.rst").write_text(index + "".join(f"   {name}\n" for name in modules))


def build_api(out: Path, *, jobs: str = "auto") -> None:
    """Generate the API reference into ``out`` (Sphinx, warnings as errors)."""
    with tempfile.TemporaryDirectory(prefix="workbench-api-") as sources:
        api_sources(Path(sources))
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q", "-j", jobs,
                   "-d", str(Path(sources) / ".doctrees"), sources, str(out)]
        result = subprocess.run(command, cwd=ROOT)
    if result.returncode:
        raise SystemExit(f"the API reference has warnings (shown above); sphinx-build exit code {result.returncode}")


# --- the site ---------------------------------------------------------------------------------

def build_site(out: Path, *, api: bool = True) -> Path:
    """Build the whole site into ``out`` (emptied first) and return ``out``."""
    if out.exists():
        shutil.rmtree(out)
    (out / "_static").mkdir(parents=True)
    (out / "notebooks").mkdir()
    shutil.copy(PLOTLY_JS, out / "_static" / "plotly.min.js")
    (out / "_static" / "site.css").write_text(STYLE)
    course = lessons()
    shutil.copytree(SCREENSHOTS, out / "screenshots")
    for lesson in course:
        started = time.perf_counter()
        notebook = NOTEBOOKS / f"{lesson.notebook}.ipynb"
        (out / "notebooks" / f"{lesson.notebook}.html").write_text(notebook_html(notebook, lesson.title))
        print(f"  {lesson.notebook}: {time.perf_counter() - started:.1f} s", flush=True)
    (out / "index.html").write_text(landing(course))
    if api:
        build_api(out / "api")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="where to write the site (default: site/)")
    parser.add_argument("--no-api", action="store_true", help="skip the API reference (quicker, for drafts)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    build_site(args.out, api=not args.no_api)
    print(f"site written to {args.out} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
