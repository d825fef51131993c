"""Build hook: a wheel carries the files of ``workbench.io.locations.SHIPPED`` (pyproject.toml has the rest).

The notebooks, ``voila.json``, the bundled data, the benchmark tables the dashboards read and
the course page's screenshots live once, in the repository.  Building a wheel copies them into
``workbench/_shipped/`` of the build (never into the source tree), where
:mod:`workbench.io.locations` finds them after ``pip install``; an editable install
(``pip install -e .``) reads the repository and copies nothing.
"""

import ast
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def shipped_patterns() -> tuple[str, ...]:
    """``SHIPPED`` of workbench/io/locations.py, read without importing the package."""
    tree = ast.parse((HERE / "workbench" / "io" / "locations.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SHIPPED" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError("workbench/io/locations.py defines no SHIPPED")


class BuildWithShippedFiles(build_py):
    """``build_py`` that also copies the shipped files into ``<build>/workbench/_shipped/``."""

    def run(self):
        """Build the package, then copy the shipped files (not for an editable install)."""
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "workbench" / "_shipped"
        for pattern in shipped_patterns():
            found = sorted(HERE.glob(pattern))
            if not found:
                raise RuntimeError(f"nothing matches {pattern!r} (workbench.io.locations.SHIPPED): a wheel without "
                                   "it could not serve the dashboards")
            for source in found:
                destination = target / source.relative_to(HERE)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, destination)


setup(cmdclass={"build_py": BuildWithShippedFiles})
