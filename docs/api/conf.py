"""Sphinx configuration of the API reference (built by ``make site``, see docs/site.md).

tools/build_site.py writes one page per module of ``workbench`` next to a copy of this file and
runs ``sphinx-build -W --keep-going``: a docstring Sphinx cannot read fails the build.
"""

import re
from pathlib import Path

import workbench

project = "Parallel Performance Modeling Workbench"
author = "the workbench developers"
release = version = workbench.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # numpy-style docstrings (the convention ruff checks, [tool.ruff.lint.pydocstyle])
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"show-inheritance": True}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
# attributes as fields of their class: a property documented by autodoc and listed in the
# class's "Attributes" section is then one object, not two
napoleon_use_ivar = True
napoleon_use_rtype = False

STANDARD_SECTIONS = {"parameters", "returns", "yields", "raises", "warns", "attributes", "methods", "notes",
                     "references", "examples", "see also", "other parameters", "receives", "warnings"}


def _project_sections() -> list:
    """Return the project's own docstring section titles (a line underlined by as many dashes).

    The numpy convention allows sections of one's own ("Limits", "Model", ...); napoleon has to
    be told about them, else it reads them as part of the section above.  "Fitted attributes"
    (scikit-learn's fitted ``name_`` attributes) is laid out like "Parameters".
    """
    titles = set()
    for path in Path(workbench.__file__).parent.rglob("*.py"):
        for title, rule in re.findall(r"^[ \t]*(\S[^\n]*?)[ \t]*\n[ \t]*(-{3,})[ \t]*$", path.read_text(), re.M):
            if len(rule) == len(title) and title.lower() not in STANDARD_SECTIONS:
                titles.add(title)
    return [(t, "params_style") if t.lower() == "fitted attributes" else t for t in sorted(titles)]


napoleon_custom_sections = _project_sections()

# The annotations name third-party types (pandas, plotly, ipywidgets): without their
# inventories (no network at build time) they stay plain text, not unresolved references.
nitpicky = False

html_theme = "alabaster"
html_title = "workbench API reference"
html_show_sourcelink = False
html_theme_options = {"description": "API reference"}
# no table of contents of the 130 modules in every page's sidebar (a fifth of the build's
# time): the index page lists every module and links back to the course, each page links its
# neighbours
html_sidebars = {"**": ["about.html", "relations.html", "searchbox.html"]}

# |a - b| is an absolute value in the plain-text docstrings (help(), the editor), a
# substitution reference in reStructuredText: shown as code here.
_ABSOLUTE_VALUE = re.compile(r"(?<![|`\w])\|([^|`\s][^|`\n]*?[^|`\s]|[^|`\s])\|(?![|`\w])")


def _absolute_values(app, what, name, obj, options, lines):
    lines[:] = [_ABSOLUTE_VALUE.sub(r"``|\1|``", line) for line in lines]


def _skip_generated(app, what, name, obj, skip, options):
    # scikit-learn generates set_<method>_request on every estimator (metadata routing); their
    # docstrings refer to scikit-learn's own glossary, which this reference does not have
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    """Register the docstring filters."""
    app.connect("autodoc-process-docstring", _absolute_values)
    app.connect("autodoc-skip-member", _skip_generated)
